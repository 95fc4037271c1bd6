"""A real LAN for the tests: every peer in its own network namespace, all on one bridge (itself in a
namespace): ``Lan``, its fixtures (``lan_available``, ``lan``: import both into a test module) and the
helpers the LAN tests share (tests/test_lan.py, tests/test_lan_watch.py).

Addresses come from 198.18.0.0/15 only (set aside for benchmarking), the bridge and every link live in
namespaces created here (never on the host's own interfaces), and everything is torn down at the
end, even on failure.  Needs root and ``ip netns``; skipped otherwise.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.logfile import parse as parse_log

ROOT = Path(__file__).resolve().parent.parent
PREFIX = "ezlan-"             # every namespace made here: ezlan-<pid>-<random>-<role>
FULL = 43                     # a 3-seat painting game: the genesis + 3 seats x 14 steps, nobody timed out
SLOW = "reorder=1,delay=0.25,seed=%d"   # every frame a little late: a game of several seconds, so "mid-game" exists
# every frame still late and out of order, but 5 times less: for a game the test holds (a seat stopped) to be
# in the middle of it, or that it only plays out (no step of it watched by a guess of time)
BRISK = "reorder=1,delay=0.05,seed=%d"
GAME_WALL = 60.0              # no game here may take longer


def _ip(*args: str, check: bool = True, timeout: float = 10) -> subprocess.CompletedProcess:
    r = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise RuntimeError("ip %s: %s" % (" ".join(args), r.stderr.strip()))
    return r


def _netns_list() -> list[str]:
    r = _ip("netns", "list", check=False)
    return [line.split()[0] for line in r.stdout.splitlines() if line.strip()]


def _why_not() -> str | None:
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "the ip command (iproute2) is not installed"
    try:
        probe = "%sprobe-%d-%06x" % (PREFIX, os.getpid(), random.getrandbits(24))
        r = _ip("netns", "add", probe, check=False)
        if r.returncode != 0:
            return "ip netns is unavailable: %s" % r.stderr.strip()
        _ip("netns", "del", probe, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return "ip netns is unavailable: %s" % exc
    return None


def _cleanup_leftovers() -> None:
    """Namespaces of ours left by a run that died (its pid is gone): delete them."""
    for name in _netns_list():
        m = re.match(re.escape(PREFIX) + r"(?:probe-)?(\d+)-", name)
        if m and not Path("/proc/%s" % m.group(1)).exists():
            _ip("netns", "del", name, check=False)


@pytest.fixture(scope="module", autouse=True)
def lan_available():
    why = _why_not()
    if why:
        pytest.skip(why)
    _cleanup_leftovers()
    yield
    _cleanup_leftovers()


def take_down(procs: list, made: list) -> None:
    """Kill every process started in the namespaces, reap it, then delete the namespaces made (newest first)."""
    for p in procs:
        if p.poll() is None:
            p.kill()
    for p in procs:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
    for ns in reversed(made):
        _ip("netns", "del", ns, check=False)
    made.clear()


class Lan:
    """``n`` machines (namespaces) on one bridge, machine k at 198.18.<net>.<10+k>/24."""

    def __init__(self, n: int, tmp: Path) -> None:
        self.tag = "%s%d-%06x" % (PREFIX, os.getpid(), random.getrandbits(24))
        self.net = random.randrange(1, 255)
        self.bridge = self.tag + "-br"
        self.hosts = [self.tag + "-m%d" % k for k in range(n)]
        self.addrs = [self.addr(k) for k in range(n)]
        self.homes = [tmp / ("home%d" % k) for k in range(n)]
        self.procs: list[subprocess.Popen] = []
        self.made: list[str] = []

    def addr(self, k: int, host: int | None = None) -> str:
        return "198.18.%d.%d" % (self.net, 10 + k if host is None else host)

    def up(self) -> "Lan":
        b = self.bridge
        _ip("netns", "add", b)
        self.made.append(b)
        _ip("-n", b, "link", "add", "br0", "type", "bridge")
        _ip("-n", b, "link", "set", "br0", "type", "bridge", "mcast_snooping", "0", check=False)
        _ip("-n", b, "link", "set", "br0", "up")
        for k, ns in enumerate(self.hosts):
            _ip("netns", "add", ns)
            self.made.append(ns)
            _ip("-n", ns, "link", "set", "lo", "up")
            # both ends are born in the bridge's namespace; one moves to the machine: nothing touches the host
            _ip("-n", b, "link", "add", "p%d" % k, "type", "veth", "peer", "name", "eth0", "netns", ns)
            _ip("-n", b, "link", "set", "p%d" % k, "master", "br0")
            _ip("-n", b, "link", "set", "p%d" % k, "up")
            _ip("-n", ns, "addr", "add", self.addrs[k] + "/24", "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "up")
            _ip("-n", ns, "route", "add", "224.0.0.0/4", "dev", "eth0")
        return self

    def down(self) -> None:
        take_down(self.procs, self.made)

    def set_addr(self, k: int, new: str) -> None:
        ns = self.hosts[k]
        _ip("-n", ns, "addr", "del", self.addrs[k] + "/24", "dev", "eth0")
        _ip("-n", ns, "addr", "add", new + "/24", "dev", "eth0")
        _ip("-n", ns, "route", "replace", "224.0.0.0/4", "dev", "eth0")
        self.addrs[k] = new

    def link(self, k: int, state: str) -> None:
        _ip("-n", self.hosts[k], "link", "set", "eth0", state)
        if state == "up":
            _ip("-n", self.hosts[k], "route", "replace", "224.0.0.0/4", "dev", "eth0")

    def easel(self, k: int, *args, faults: str | None = None, env: dict | None = None) -> subprocess.Popen:
        """``easel ARGS`` on machine ``k`` (its own EASEL_HOME); ``env``: more variables (a test knob)."""
        env = dict(os.environ, EASEL_HOME=str(self.homes[k]), EASEL_ZEROCONF_INTERFACES=self.addrs[k], **(env or {}))
        env.pop("EASEL_FAULTS", None)
        if faults:
            env["EASEL_FAULTS"] = faults
        p = subprocess.Popen(["ip", "netns", "exec", self.hosts[k], sys.executable, "-m", "cli", *map(str, args)],
                             cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.procs.append(p)
        return p

    def logs(self, k: int) -> list[Path]:
        return sorted(self.homes[k].glob("games/*/log"))


@pytest.fixture
def lan(tmp_path, request):
    n = getattr(request, "param", 3)
    net = Lan(n, tmp_path)
    try:
        net.up()
        yield net
    finally:
        net.down()
    assert not [ns for ns in _netns_list() if ns.startswith(net.tag)], "namespaces left behind"


# --------------------------------------------------------------------------- helpers
def wait_for(pred, timeout: float, interval: float = 0.02) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(interval)
    return bool(pred())


def records(path: Path | None) -> int:
    if path is None:
        return 0
    try:
        return len(parse_log(path.read_bytes()).entries)
    except OSError:
        return 0


def paced(pacer: subprocess.Popen, follower, target, wall: float = GAME_WALL, ended=lambda: False):
    """Follow a game without racing it: stop ``pacer`` (SIGSTOP; a seat the table waits for at its next step,
    so the game halts there while the table's time-out is long), read the log with ``follower``
    (netutil.LogFollower), look; until ``target(table)``, let the pacer go on (SIGCONT) until the log has
    grown, and look again. Returns the table with the pacer stopped (the caller lets it go on), or None if
    ``ended()`` or ``wall`` s passed first (the pacer then runs)."""
    deadline = time.monotonic() + wall
    while time.monotonic() < deadline and not ended():
        pacer.send_signal(signal.SIGSTOP)
        t = follower.poll()
        if t is not None and t.state is not None and target(t):
            return t
        pacer.send_signal(signal.SIGCONT)
        seen = follower.n
        wait_for(lambda: ended() or len(_entries_of(follower)) > seen, timeout=max(0.0, deadline - time.monotonic()))
    return None


def _entries_of(follower) -> list:
    from .netutil import logs_under

    logs = logs_under(follower.home)
    if not logs:
        return []
    try:
        return parse_log(logs[0].read_bytes()).entries
    except Exception:           # a log being written or rolled back under us: nothing new seen yet
        return []


def first_log(lan: Lan, k: int) -> Path | None:
    logs = lan.logs(k)
    return logs[0] if logs else None


def finish(procs: list[subprocess.Popen], timeout: float = GAME_WALL) -> list[tuple[int | None, str, str]]:
    deadline = time.monotonic() + timeout
    out = []
    for p in procs:
        try:
            so, se = p.communicate(timeout=max(0.5, deadline - time.monotonic()))
            out.append((p.returncode, so.decode(errors="replace"), se.decode(errors="replace")))
        except subprocess.TimeoutExpired:
            p.kill()
            so, se = p.communicate()
            out.append((None, so.decode(errors="replace"), se.decode(errors="replace")))
    return out


def assert_all_finished(results, expect: int) -> None:
    assert len(results) == expect
    for rc, so, se in results:
        assert rc == 0, "exit %r\nstdout: %s\nstderr: %s" % (rc, so[-1000:], se[-3000:])
        assert "Traceback" not in se
        assert json.loads(so.strip().splitlines()[-1])["over"] is True


def assert_same_logs(paths: list[Path], entries: int | None = None) -> None:
    data = [p.read_bytes() for p in paths]
    assert all(d == data[0] for d in data), [len(parse_log(d).entries) for d in data]
    if entries is not None:
        assert len(parse_log(data[0]).entries) == entries
    r = subprocess.run([sys.executable, "-m", "cli", "audit", *map(str, paths)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("VALID"), r.stdout + r.stderr


def host_port(proc: subprocess.Popen, timeout: float = 20) -> int:
    """The lobby port an `easel host` prints on stderr ("table open on port N")."""
    os.set_blocking(proc.stderr.fileno(), False)
    buf = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        buf += proc.stderr.read() or b""
        m = re.search(rb"table open on port (\d+)", buf)
        if m:
            os.set_blocking(proc.stderr.fileno(), True)
            return int(m.group(1))
        time.sleep(0.05)
    raise AssertionError("the host never opened its table: %r" % buf.decode(errors="replace"))


def seat_of(lan: Lan, k: int) -> int:
    from p2p.identity import load_or_create
    from p2p.node import load_roster

    genesis, _ = load_roster(first_log(lan, k).parent)
    return genesis.doc["seats"].index(load_or_create(lan.homes[k]).public)


def connected_from(lan: Lan, server: int, port: int, client: int) -> bool:
    """Does machine ``server`` hold an established TCP connection on ``port`` from machine ``client``?"""
    r = subprocess.run(["ip", "netns", "exec", lan.hosts[server], "ss", "-Htn", "state", "established",
                        "( sport = :%d )" % port], capture_output=True, text=True, timeout=10)
    return lan.addrs[client] in r.stdout


def play_port(lan: Lan, k: int) -> int:
    from p2p.node import load_roster

    _, roster = load_roster(first_log(lan, k).parent)
    return int(roster["addrs"][seat_of(lan, k)][1])


def read_until(proc: subprocess.Popen, pattern: bytes, timeout: float = 30, buf: bytes = b"", *,
               out: bool = False) -> bytes:
    """What the process wrote on stderr (stdout with ``out``; after ``buf``, read before) until it matches
    ``pattern`` (a bounded wait)."""
    stream = proc.stdout if out else proc.stderr
    os.set_blocking(stream.fileno(), False)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            buf += stream.read() or b""
            if re.search(pattern, buf):
                return buf
            time.sleep(0.05)
    finally:
        os.set_blocking(stream.fileno(), True)
    raise AssertionError("never said %r: %r" % (pattern, buf.decode(errors="replace")))


def established(lan: Lan, k: int, pid: int) -> list[tuple[tuple[str, int], tuple[str, int]]]:
    """The TCP connections process ``pid`` holds on machine ``k``, as ``ss`` there lists them: (local, peer)."""
    r = subprocess.run(["ip", "netns", "exec", lan.hosts[k], "ss", "-tnpH", "state", "established"], capture_output=True,
                       text=True, timeout=10)
    out = []
    for line in r.stdout.splitlines():
        if "pid=%d," % pid not in line:
            continue
        parts = line.split()
        ends = []
        for part in parts[2:4]:
            host, port = part.rsplit(":", 1)
            ends.append((host.strip("[]").removeprefix("::ffff:"), int(port)))
        out.append(tuple(ends))
    return out


def alive(pid: int) -> bool:
    try:
        return Path("/proc/%d/stat" % pid).read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def seated(lan: Lan, k: int) -> bool:
    log = first_log(lan, k)
    return bool(log) and (log.parent / "roster").exists()
