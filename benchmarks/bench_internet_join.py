"""Beyond the LAN (issue 30): from ``easel bot --join INVITATION`` in one home to its seat at a table hosted in
another, through ``easel relay``, in network namespaces (two homes behind MASQUERADE routers that drop unsolicited
inbound; tests/test_internet.py builds them).  Needs root, ip netns and iptables.

For each kind of home router -- ``keeps_ports`` (a hole punch can work) and ``random_ports`` (--random-fully on
home B's router: relayed) -- REPS tables of two seats: ``seated_s`` is the time from starting the joiner to the host
printing it seated (process start and imports included: what a person waits), ``direct_s`` the time from then until
home B holds a TCP connection to home A's router (the direct path; null if none within 10 s; both seats delay
every frame a little, as tests/test_lan.py's SLOW, so that the game outlasts the punch).

``first_decision`` (issue 30): a 2-seat Painting table hosted in home A (its seat a bot), and a *person* in home B
running ``easel join INVITATION --name Cy`` in a pseudo-terminal of 100x30: the time from just before the process
starts to the first moment its screen shows that person a decision (the status line's ``YOUR MOVE``, as
benchmarks/bench_first_decision.py reads it: every byte the terminal receives, none missed).  Its **floor**, measured
in the same run and interleaved (one before each internet sample): the same table hosted on loopback and ``easel join
127.0.0.1:PORT`` with no relay and no libp2p (the LAN's path).  ``over_floor_s`` is what reaching each other through
the relay adds (medians).

Prints one JSON line: medians, min and max (and the raw figures).

    python benchmarks/bench_internet_join.py [--reps 5] [--parts seated,first_decision]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import read_until, spawn_in_pty  # noqa: E402
from tests.test_internet import Homes, _nat_why_not  # noqa: E402
from tests.test_lan import SLOW, wait_for  # noqa: E402

REPS = 5
DIRECT_WAIT = 10.0
ROOT = Path(__file__).resolve().parent.parent
MARK = b"YOUR MOVE"
FIRST_TIMEOUT = 60.0       # s for a joiner's screen to show its first decision


def one(random_b: bool) -> tuple[float, float | None]:
    with TemporaryDirectory() as d:
        net = Homes(Path(d), random_b=random_b).up()
        try:
            net.easel("inet", "relay", "relay", "--listen", net.relay_ip, "--port", 4001)
            address = net.line("relay", "relay: ", "out")
            net.easel("hA", "host", "host", "--game", "painting", "--players", 2, "--auto", "random", "--timeout", 60,
                      "--internet", "--relay", address, faults=SLOW % 1)   # every frame a little late: the game outlasts the punch
            invite = net.line("host", "invite: ", "err")
            t0 = time.monotonic()
            net.easel("hB", "b1", "bot", "--join", invite, "--level", "random", "--name", "Cy", faults=SLOW % 2)
            seated = re.compile(r"^easel: seats: .*Cy \(bot", re.M)
            assert wait_for(lambda: seated.search(net.text("host")) is not None, 60, interval=0.01), net.text("b1")
            t1 = time.monotonic()
            got = wait_for(lambda: net.wan["A"] in net.tcp_peers("hB"), DIRECT_WAIT, interval=0.02)
            return t1 - t0, (time.monotonic() - t1) if got else None
        finally:
            net.down()


def _screen_until_decision(argv: list[str], env: dict) -> float:
    """Start ``argv`` in a pseudo-terminal (100x30); seconds until its screen shows MARK (then its terminal closes)."""
    t0 = time.monotonic()
    pid, fd = spawn_in_pty(argv, env, ROOT)
    first, seen = None, b""
    try:
        first, seen = read_until(fd, MARK, t0, t0 + FIRST_TIMEOUT)
    finally:
        os.close(fd)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    if first is None:
        raise SystemExit("no decision on the joiner's screen within %d s; its last bytes: %r" % (FIRST_TIMEOUT, seen[-400:]))
    return first


def _person_env(home: Path) -> dict:
    env = dict(os.environ, EASEL_HOME=str(home), TERM="xterm-256color", PYTHONPATH=str(ROOT))   # -P: not the cwd
    for k in ("EASEL_TRACE", "EASEL_FAULTS", "EASEL_PACE", "COLUMNS", "LINES"):
        env.pop(k, None)
    return env


def first_decision_relayed() -> float:
    """A person in home B joins by invitation a table hosted in home A, through ``easel relay``."""
    with TemporaryDirectory() as d:
        net = Homes(Path(d)).up()
        try:
            net.easel("inet", "relay", "relay", "--listen", net.relay_ip, "--port", 4001)
            address = net.line("relay", "relay: ", "out")
            net.easel("hA", "host", "host", "--game", "painting", "--players", 2, "--auto", "random", "--timeout", 60,
                      "--internet", "--relay", address)
            invite = net.line("host", "invite: ", "err")
            return _screen_until_decision(["ip", "netns", "exec", net.ns["hB"], sys.executable, "-P", "-m", "cli", "join",
                                           invite, "--name", "Cy"], _person_env(Path(d) / "cy"))
        finally:
            net.down()


def first_decision_floor() -> float:
    """The same on loopback, the LAN's way: ``easel join 127.0.0.1:PORT``, no relay, no libp2p."""
    with TemporaryDirectory() as d:
        env = _person_env(Path(d) / "host")
        host = subprocess.Popen([sys.executable, "-P", "-m", "cli", "host", "--game", "painting", "--players", "2", "--auto",
                                 "random", "--timeout", "60", "--bind", "127.0.0.1", "--no-advertise"], cwd=ROOT, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            os.set_blocking(host.stderr.fileno(), False)
            buf, port = b"", None
            deadline = time.monotonic() + 30
            while port is None and time.monotonic() < deadline and host.poll() is None:
                buf += host.stderr.read() or b""
                m = re.search(rb"table open on port (\d+)", buf)
                port = int(m.group(1)) if m else None
                time.sleep(0.01)
            assert port, buf[-2000:]
            return _screen_until_decision([sys.executable, "-P", "-m", "cli", "join", "127.0.0.1:%d" % port, "--name", "Cy"],
                                          _person_env(Path(d) / "cy"))
        finally:
            host.kill()
            host.wait()


def summary(xs: list) -> dict:
    got = [x for x in xs if x is not None]
    if not got:
        return {"median": None, "min": None, "max": None, "n": 0}
    return {"median": round(statistics.median(got), 3), "min": round(min(got), 3), "max": round(max(got), 3), "n": len(got)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=REPS)
    ap.add_argument("--parts", default="seated,first_decision", help="seated, first_decision (comma-separated)")
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    why = _nat_why_not()
    if why:
        print(json.dumps({"bench": "internet_join", "skipped": why}))
        return 0
    out = {"bench": "internet_join", "reps": args.reps, "load_before": os.getloadavg()[0]}
    if "seated" in parts:
        for name, random_b in (("keeps_ports", False), ("random_ports", True)):
            runs = [one(random_b) for _ in range(args.reps)]
            out[name] = {"seated_s": summary([r[0] for r in runs]), "direct_s": summary([r[1] for r in runs]),
                         "direct_runs": sum(r[1] is not None for r in runs)}
    if "first_decision" in parts:
        floor, relayed = [], []
        for _ in range(args.reps):
            floor.append(first_decision_floor())
            relayed.append(first_decision_relayed())
        out["first_decision"] = {
            "join_invitation_two_homes_s": dict(summary(relayed), raw=[round(x, 3) for x in relayed]),
            "floor_join_loopback_lan_s": dict(summary(floor), raw=[round(x, 3) for x in floor]),
        }
        out["first_decision"]["over_floor_s"] = round(statistics.median(relayed) - statistics.median(floor), 3)
        out["first_decision"]["ratio_to_floor"] = round(statistics.median(relayed) / statistics.median(floor), 2)
    out["load_after"] = os.getloadavg()[0]
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
