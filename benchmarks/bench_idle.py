"""An idle table: what six peers cost the machine while a person thinks.  Prints one JSON object.

The table of ``easel play`` (you + 5 bots), through the real CLI code, one OS process per seat:
seat 0 is a host process running ``cli.hosting.host_main`` with a person's UI that never moves (this
script's ``--host-child`` mode), seats 1..5 are ``easel bot --join`` processes.  Once every bot has
made its move and the table waits for seat 0 only (its log replayed here: the step's missing seats
are exactly (0,), every peer's log as long as the host's), and a settling pause (``--settle``) has
passed, each repetition measures over ``--duration`` seconds (default 60), per peer process:

* CPU: utime + stime from /proc/PID/stat (every thread of the process), as a share of one core;
* wake-ups: voluntary + involuntary context switches summed over /proc/PID/task/*/status.  A
  proxy: a thread that wakes (timer, socket) and sleeps again makes one voluntary switch; being
  preempted (involuntary) is counted too, so a busy machine inflates it a little;
* bytes to each other peer: ``bytes_sent`` of every TCP socket of the process (``ss -tinp``: the
  kernel's count of payload bytes, TLS records included, TCP/IP headers not), each socket
  attributed to the peer process owning its other end, per second.  Nothing in the peers is
  changed to count them.

Goals (the "quiet when waiting" issue): all six peers together <= 2 % of one core (<= 0.3 % per
peer), each peer <= 2 wake-ups per second, <= 200 bytes/s to each other peer.

Every figure: median, min, max and raw list over ``--reps`` repetitions (default 5; a fresh table
each).  Per repetition the peer figures are reduced to the table's total, its worst peer (and, for
bytes, its worst ordered pair), which are what the goals bound.

    python benchmarks/bench_idle.py [--duration 60] [--reps 5] [--game painting] [--players 6]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import load, peer_env, stats, stop_groups  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CLK_TCK = os.sysconf("SC_CLK_TCK")
READY_TIMEOUT = 120.0   # s for the table to seal and the bots to move
GOALS = {"cpu_total_pct_of_one_core": 2.0, "cpu_per_peer_pct_of_one_core": 0.3, "wakeups_per_s_per_peer": 2.0,
         "bytes_per_s_to_each_peer": 200.0}


# ----------------------------------------------------------------------------- the person's peer
def host_child(port: int, game: str, players: int, timeout: int) -> int:
    """Seat 0: ``easel play``'s host code with a person who never moves (no terminal needed)."""
    import trio

    from cli.hosting import host_main
    from cli.options import LiveArgs, resolve_table

    class NeverUI:
        """The person: sees every update, never decides."""

        def update(self, *a, **k) -> None:
            pass

        async def run(self) -> None:
            await trio.sleep_forever()

        async def decide(self, view, seat, peer):
            await trio.sleep_forever()

    args = LiveArgs(cmd="host", game=game, players=players, bots=0, port=port, timeout=timeout, seed="idle",
                    unsafe_seed=True, bind="127.0.0.1", no_advertise=True, quiet=True)
    resolve_table(args)
    return trio.run(host_main, args, lambda node_seat: NeverUI())


# ----------------------------------------------------------------------------- /proc and ss
def cpu_seconds(pid: int) -> float:
    with open("/proc/%d/stat" % pid) as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return (int(rest[11]) + int(rest[12])) / CLK_TCK   # fields 14, 15: utime, stime


def context_switches(pid: int) -> int:
    n = 0
    for task in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/status" % (pid, task)) as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        n += int(line.split()[1])
        except OSError:
            pass   # a thread that ended meanwhile
    return n


_SS_ADDR = re.compile(r"^(\S+):(\d+)$")


def sockets(pids: set[int]) -> dict[tuple, tuple[int, int]]:
    """{(local addr, peer addr): (pid, bytes_sent)} of the established TCP sockets of ``pids``
    (empty without iproute2's ``ss``: the bytes are then not measured)."""
    try:
        out = subprocess.run(["ss", "-tinpH", "state", "established"], capture_output=True, text=True, check=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    socks: dict = {}
    cur = None
    for line in out.splitlines():
        if not line.startswith((" ", "\t")):
            parts = line.split()
            cur = None
            # Recv-Q Send-Q Local Peer [users:(...)]
            if len(parts) >= 4:
                m = re.search(r"pid=(\d+)", line)
                if m and int(m.group(1)) in pids:
                    cur = (parts[2], parts[3], int(m.group(1)))
        elif cur is not None:
            m = re.search(r"\bbytes_sent:(\d+)", line)
            socks[(cur[0], cur[1])] = (cur[2], int(m.group(1)) if m else 0)
            cur = None
    return socks


def snapshot(pids: list[int]) -> dict:
    return {"t": time.monotonic(), "cpu": {p: cpu_seconds(p) for p in pids}, "cs": {p: context_switches(p) for p in pids},
            "socks": sockets(set(pids))}


def pair_bytes(a: dict, b: dict) -> dict[tuple[int, int], int]:
    """Bytes sent from pid x to pid y between snapshots a and b (sockets alive at b; one closed
    meanwhile is not seen: its last bytes are missed, a reconnection's are counted)."""
    owner = {local: pid for (local, _), (pid, _) in b["socks"].items()}
    out: dict = {}
    for key, (pid, sent) in b["socks"].items():
        other = owner.get(key[1])
        if other is None or other == pid:
            continue
        before = a["socks"].get(key, (pid, 0))[1]   # a connection opened meanwhile: all its bytes
        out[(pid, other)] = out.get((pid, other), 0) + max(0, sent - before)
    return out


# ----------------------------------------------------------------------------- one repetition
def _table_waits_for_person(homes: list[Path], players: int):
    """(True, log length) when the host's log ends at a step that is a person's move (purpose
    "move") open to seat 0, every peer's log is as long, and the host holds (in its spool) the
    events of that step of every other seat it expects: only seat 0 is missing.  Read from the
    files the peers write (logs replayed, spool parsed); no peer state is asked for."""
    import core.games as registry
    from core.events import Event, parse_entry, parse_genesis
    from core.logfile import parse
    from core.table import Table

    logs = []
    for h in homes:
        found = list(h.glob("games/*/log"))
        if not found:
            return False, 0
        logs.append(parse(found[0].read_bytes()).entries)
    if len({len(x) for x in logs}) != 1 or len(logs) != players or not logs[0]:
        return False, 0
    entries = logs[0]
    t = Table.start(parse_genesis(entries[0]), registry)
    for raw in entries[1:]:
        t.append(parse_entry(raw, keys=t.keys, verify=False))
    st = t.step
    if t.over or st is None or st.purpose != "move" or 0 not in t.missing():
        return False, 0
    if st.sequential:   # seat 0's turn
        return t.missing()[0] == 0, len(entries)
    have = set(t.batch)
    spool = list(homes[0].glob("games/*/spool"))
    if spool:
        for raw in parse(spool[0].read_bytes()).entries:
            try:
                ev = parse_entry(raw, verify=False)
            except Exception:
                continue
            if type(ev) is Event and ev.prev == st.prev and ev.author in t.keys:
                have.add(t.keys.index(ev.author))
    return set(st.seats) - {0} <= have, len(entries)


def run_once(game: str, players: int, duration: float, settle: float) -> dict:
    from cli.children import easel_command, free_port

    with tempfile.TemporaryDirectory() as d:
        port = free_port()
        homes = [Path(d) / ("peer-%d" % k) for k in range(players)]
        procs = []
        try:
            for k in range(players):
                env = peer_env(homes[k])
                if k == 0:
                    cmd = [sys.executable, str(Path(__file__).resolve()), "--host-child", "--port", str(port), "--game", game,
                           "--players", str(players)]
                else:
                    cmd = easel_command("bot", "--join", "127.0.0.1:%d" % port, "--seed", "idle-%d" % k, "--unsafe-seed")
                procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                              stdin=subprocess.DEVNULL, start_new_session=True))
                if k == 0:
                    time.sleep(0.5)   # the lobby opens (a bot that finds no lobby retries anyway)
            deadline = time.monotonic() + READY_TIMEOUT
            ready_at = None
            while True:
                if any(p.poll() is not None for p in procs):
                    err = [p.stderr.read().decode(errors="replace")[-1500:] for p in procs if p.poll() is not None]
                    raise SystemExit("a peer exited before the table was idle: %s" % err)
                ok, n = _table_waits_for_person(homes, players)
                if ok:
                    ready_at = time.monotonic()
                    break
                if time.monotonic() > deadline:
                    raise SystemExit("the table did not come to wait for seat 0 in %.0f s" % READY_TIMEOUT)
                time.sleep(0.2)
            time.sleep(settle)   # the last step's acknowledgements and have-vectors settle
            pids = [p.pid for p in procs]
            a = snapshot(pids)
            time.sleep(duration)
            b = snapshot(pids)
            ok2, n2 = _table_waits_for_person(homes, players)
            if not ok2 or n2 != n:
                raise SystemExit("the table moved while it should have waited for seat 0 (%d -> %d entries)" % (n, n2))
        finally:
            stop_groups(procs, signal.SIGTERM, grace=10)
    dt = b["t"] - a["t"]
    seat_of = {pid: k for k, pid in enumerate(pids)}
    cpu = [100 * (b["cpu"][p] - a["cpu"][p]) / dt for p in pids]
    wake = [(b["cs"][p] - a["cs"][p]) / dt for p in pids]
    pairs = pair_bytes(a, b)
    bps = {"%d->%d" % (seat_of[x], seat_of[y]): v / dt for (x, y), v in sorted(pairs.items())}
    return {"seconds": dt, "log_entries": n, "cpu_pct": cpu, "wakeups_per_s": wake, "bytes_per_s": bps,
            "pairs_seen": len(pairs), "ready_after_s": ready_at}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--settle", type=float, default=2.0)
    ap.add_argument("--game", default="painting")
    ap.add_argument("--players", type=int, default=6)
    ap.add_argument("--host-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.host_child:
        sys.exit(host_child(a.port, a.game, a.players, 86400))
    if a.reps < 1 or a.duration <= 0:
        raise SystemExit("--reps must be at least 1 and --duration positive")
    load_before = load()
    runs = [run_once(a.game, a.players, a.duration, a.settle) for _ in range(a.reps)]
    if not any(r["pairs_seen"] for r in runs):
        print("bench_idle: no socket of the peers seen (is iproute2's ss installed?): bytes not measured", file=sys.stderr)
    per_pair = [max(r["bytes_per_s"].values(), default=float("nan")) for r in runs]
    res = {
        "benchmark": "idle",
        "game": a.game,
        "peers": a.players,
        "reps": a.reps,
        "duration_s": a.duration,
        "cpu_pct_of_one_core": {
            "total": stats([sum(r["cpu_pct"]) for r in runs], 3),
            "worst_peer": stats([max(r["cpu_pct"]) for r in runs], 3),
            "per_seat_median": [round(sorted(r["cpu_pct"][k] for r in runs)[len(runs) // 2], 3) for k in range(a.players)],
        },
        "wakeups_per_s_per_peer": {
            "worst_peer": stats([max(r["wakeups_per_s"]) for r in runs], 2),
            "median_peer": stats([sorted(r["wakeups_per_s"])[len(r["wakeups_per_s"]) // 2] for r in runs], 2),
            "per_seat_median": [round(sorted(r["wakeups_per_s"][k] for r in runs)[len(runs) // 2], 2) for k in range(a.players)],
            "what": "voluntary + involuntary context switches of every thread of the peer process, per second (a proxy for wake-ups)",
        },
        "bytes_per_s_to_each_peer": {
            "worst_pair": stats(per_pair, 1),
            "median_pair": stats([sorted(r["bytes_per_s"].values())[len(r["bytes_per_s"]) // 2] if r["bytes_per_s"] else 0.0
                                  for r in runs], 1),
            "pairs_seen": [r["pairs_seen"] for r in runs],
            "what": "TCP payload bytes (TLS records included) one peer process sent to another, per second (ss -tinp bytes_sent)",
        },
        "log_entries_when_idle": [r["log_entries"] for r in runs],
        "goals": GOALS,
        "meets": {},
        "load_before": load_before,
        "load_after": load(),
        "definition": "six local peer processes (seat 0 a person who never moves, seats 1-5 `easel bot`), the table "
                      "waiting for seat 0; per repetition a fresh table measured over duration_s after it settled",
    }
    res["meets"] = {
        "cpu_total": res["cpu_pct_of_one_core"]["total"]["median"] <= GOALS["cpu_total_pct_of_one_core"],
        "cpu_per_peer": res["cpu_pct_of_one_core"]["worst_peer"]["median"] <= GOALS["cpu_per_peer_pct_of_one_core"],
        "wakeups": res["wakeups_per_s_per_peer"]["worst_peer"]["median"] <= GOALS["wakeups_per_s_per_peer"],
        "bytes": res["bytes_per_s_to_each_peer"]["worst_pair"]["median"] <= GOALS["bytes_per_s_to_each_peer"],
    }
    print(json.dumps(res))


if __name__ == "__main__":
    main()
