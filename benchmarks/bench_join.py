"""How soon `easel join` lists a table once its host announced it.  Prints one JSON object.

Each repetition, on loopback (``EASEL_ZEROCONF_INTERFACES=127.0.0.1``), through the real CLI:

* **floor**: one CLI process start, ``easel games --json`` to its exit (what every benchmark here
  calls the floor: Python starting and importing the CLI);
* **join started at the announcement** (the goal's figure): a real ``easel host`` opens a table
  (``--auto``, a fresh ``--name`` per repetition); an observer in this process, browsing before the
  host starts, sees the host's first announcement (zeroconf's add_service: the moment the records
  reach the LAN) and at that moment starts ``easel join --wait 5``; the time from the announcement to
  the line of that table on join's standard output (matched by the host's name). It includes the
  join process's own start, so it is compared with the floor of the same repetition;
* **join already listing**: ``easel join --wait 30`` started first (and given ``--settle`` seconds to
  start browsing), then the host: announcement to the line listed;
* with ``--compare DIR`` (another checkout, e.g. /work/main), the first figure again with that
  checkout's ``easel join --wait 3`` (its line matched by the lobby port), interleaved, so before and
  after see the same machine.

Goal (issue 23): a table listed within 1 s of its host announcing it.

    python benchmarks/bench_join.py [--reps 7] [--settle 2] [--compare /work/main]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import load, peer_env, stats  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GOAL_S = 1.0
STEP_TIMEOUT = 30.0      # s any one wait of a repetition may take (a failure, not a figure)


def cli_env(home: Path, root: Path = ROOT) -> dict:
    env = peer_env(home)
    env["EASEL_ZEROCONF_INTERFACES"] = "127.0.0.1"
    if root != ROOT:
        env["PYTHONPATH"] = str(root)
    return env


class Observer:
    """A zeroconf browser in this process: calls ``on_seen`` (in zeroconf's thread) the moment a service
    whose instance name holds ``tag`` is announced."""

    def __init__(self) -> None:
        from zeroconf import IPVersion, ServiceBrowser, Zeroconf

        from p2p.discovery import SERVICE_TYPE

        self.zc = Zeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
        self.lock = threading.Lock()
        self.waiting: dict[str, tuple] = {}      # fingerprint -> (callback, result list)
        obs = self

        class Listener:
            def add_service(self, zc, type_, name):
                obs.seen(name)

            def update_service(self, zc, type_, name):
                obs.seen(name)

            def remove_service(self, zc, type_, name):
                pass

        self.browser = ServiceBrowser(self.zc, SERVICE_TYPE, Listener())

    def seen(self, name: str) -> None:
        t = time.monotonic()
        with self.lock:
            for fp, (callback, out) in list(self.waiting.items()):
                if fp in name and not out:
                    out.append(t)
                    del self.waiting[fp]
                    callback()

    def expect(self, fingerprint: str, callback) -> list:
        out: list = []
        with self.lock:
            self.waiting[fingerprint] = (callback, out)
        return out

    def close(self) -> None:
        self.browser.cancel()
        self.zc.close()


def key_of(home: Path) -> str:
    """The fingerprint of the key a home holds (made now if it has none): the host's, to know its table."""
    from p2p.identity import load_or_create

    return load_or_create(home).fingerprint


def start_host(home: Path, name: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "cli", "host", "--game", "painting", "--players", "2", "--auto", "random",
                             "--bind", "127.0.0.1", "--name", name, "--timeout", "60"], cwd=ROOT, env=cli_env(home),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def lobby_port(host: subprocess.Popen) -> int:
    buf = b""
    deadline = time.monotonic() + STEP_TIMEOUT
    os.set_blocking(host.stderr.fileno(), False)
    while time.monotonic() < deadline and host.poll() is None:
        buf += host.stderr.read() or b""
        m = re.search(rb"table open on port (\d+)", buf)
        if m:
            return int(m.group(1))
        time.sleep(0.01)
    raise SystemExit("the host did not open its table: %r" % buf.decode(errors="replace")[-2000:])


class LineWatch:
    """Reads a process's standard output in a thread; ``when`` is the time the first line matching ``pattern`` came."""

    def __init__(self, proc: subprocess.Popen, pattern: str) -> None:
        self.proc, self.pattern = proc, re.compile(pattern)
        self.when: float | None = None
        self.lines: list[str] = []
        self.done = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for raw in self.proc.stdout:
            t = time.monotonic()
            line = raw.decode(errors="replace").rstrip("\n")
            self.lines.append(line)
            if self.when is None and self.pattern.search(line):
                self.when = t
                self.done.set()
        self.done.set()

    def wait(self) -> float:
        if not self.done.wait(STEP_TIMEOUT) or self.when is None:
            raise SystemExit("join never listed the table: %r" % self.lines[-10:])
        return self.when


def stop(*procs: subprocess.Popen) -> None:
    for p in procs:
        if p is not None and p.poll() is None:
            p.terminate()
    for p in procs:
        if p is None:
            continue
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def join_cmd(wait: float) -> list[str]:
    return [sys.executable, "-m", "cli", "join", "--wait", str(wait)]


def floor_once(tmp: Path) -> float:
    t = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "cli", "games", "--json"], cwd=ROOT, env=cli_env(tmp / "floor"),
                       capture_output=True, timeout=60)
    if r.returncode != 0:
        raise SystemExit("easel games failed: %s" % r.stderr.decode(errors="replace")[-2000:])
    return time.monotonic() - t


def started_at_announcement(obs: Observer, tmp: Path, rep: int, root: Path = ROOT) -> float:
    """Announcement -> listed, ``easel join`` (of checkout ``root``) started the moment the host announced."""
    name = "bench-%s" % secrets.token_hex(3)
    hhome = tmp / ("host-%d-%s" % (rep, root.name))
    fp = key_of(hhome)
    joined: list = []

    def start_join() -> None:
        joined.append(subprocess.Popen(join_cmd(5 if root == ROOT else 3), cwd=root, env=cli_env(tmp / "joiner", root),
                                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL))

    seen = obs.expect(fp, start_join)
    host = start_host(hhome, name)
    join = None
    try:
        port = lobby_port(host)
        deadline = time.monotonic() + STEP_TIMEOUT
        while not joined and time.monotonic() < deadline:
            time.sleep(0.005)
        if not joined:
            raise SystemExit("the observer never saw the host's announcement")
        join = joined[0]
        # ours: the host by name; another checkout's (without TXT name): by the lobby port
        pattern = r"host %s\s" % re.escape(name) if root == ROOT else r":%d$" % port
        return LineWatch(join, pattern).wait() - seen[0]
    finally:
        stop(join, host)


def already_listing(obs: Observer, tmp: Path, rep: int, settle: float) -> float:
    """Announcement -> listed, ``easel join --wait 30`` browsing since ``settle`` seconds before the host started."""
    name = "bench-%s" % secrets.token_hex(3)
    hhome = tmp / ("early-host-%d" % rep)
    fp = key_of(hhome)
    join = subprocess.Popen(join_cmd(30), cwd=ROOT, env=cli_env(tmp / "joiner"), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    host = None
    try:
        watch = LineWatch(join, r"host %s\s" % re.escape(name))
        time.sleep(settle)
        seen = obs.expect(fp, lambda: None)
        host = start_host(hhome, name)
        listed = watch.wait()
        deadline = time.monotonic() + STEP_TIMEOUT
        while not seen and time.monotonic() < deadline:
            time.sleep(0.005)
        return listed - seen[0]
    finally:
        stop(join, host)


def main() -> None:
    import tempfile

    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--settle", type=float, default=2.0, help="s the already-listing join gets before the host starts")
    ap.add_argument("--compare", default=None, metavar="DIR", help="another checkout whose easel join is measured too")
    a = ap.parse_args()
    if a.reps < 5:
        raise SystemExit("--reps: at least 5")
    other = Path(a.compare).resolve() if a.compare else None
    load0 = load()
    floors, at_announce, running, before = [], [], [], []
    obs = Observer()
    try:
        with tempfile.TemporaryDirectory() as d:
            tmp = Path(d)
            for rep in range(a.reps):
                floors.append(floor_once(tmp))
                at_announce.append(started_at_announcement(obs, tmp, rep))
                if other is not None:
                    before.append(started_at_announcement(obs, tmp, rep, other))
                running.append(already_listing(obs, tmp, rep, a.settle))
    finally:
        obs.close()
    out = {
        "benchmark": "join_listing",
        "reps": a.reps,
        "floor_cli_process_start_s": stats(floors),
        "announce_to_listed_join_started_then_s": stats(at_announce),
        "announce_to_listed_minus_floor_s": stats([x - f for x, f in zip(at_announce, floors)]),
        "announce_to_listed_join_already_listing_s": stats(running),
        "goal_s": GOAL_S,
        "goal_met": stats(at_announce)["median"] <= GOAL_S,
        "load_start": load0,
        "load_end": load(),
    }
    if other is not None:
        out["compare"] = {"root": str(other), "announce_to_listed_join_started_then_s": stats(before)}
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
