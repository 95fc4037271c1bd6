"""Finding 7 of issue 9 through the command line: a peer of a real 3-seat table (``easel host``
and two ``easel bot`` processes on loopback) is killed with SIGKILL, the last record of its
log file is torn (cut in the middle, as by a crash or a disk error), and ``easel resume`` on
its game directory must finish the game: every log identical, no time-out (the seat was
resumed, not voted out), the audit VALID.

The table moves on between the look at the log and the kill, so the kill lands anywhere
(inside a batch, after our own event, after another seat's): every point must heal."""

from __future__ import annotations

import signal
import time

from core.events import Timeout
from core.logfile import parse as parse_log
from core.table import replay

from .helpers import GAMES
from .netutil import easel, entries_of, finish_procs, finished_identical, free_ports, logs_under, spawn_easel, wait_for

GAME = "painting"
RECORDS = 43          # a 3-seat Painting Game log: the genesis and 14 steps of 3 events


def _records(path) -> int:
    try:
        return len(parse_log(path.read_bytes()).entries)
    except OSError:
        return 0


def _tear_last_record(path) -> tuple[int, int]:
    """Cut the file in the middle of its last whole record (after dropping any torn bytes the
    kill left): (records before, records after the cut, as a reader sees them)."""
    data = path.read_bytes()
    parsed = parse_log(data)
    assert parsed.problem is None and len(parsed.entries) >= 2, (parsed.problem, len(parsed.entries))
    start = parsed.offsets[-1]
    path.write_bytes(data[: start + (parsed.good - start) // 2])
    after = parse_log(path.read_bytes())
    assert after.torn and len(after.entries) == len(parsed.entries) - 1
    return len(parsed.entries), len(after.entries)


def test_torn_log_tail_then_easel_resume_finishes_the_game(tmp_path):
    t0 = time.monotonic()
    homes = [tmp_path / ("h%d" % k) for k in range(3)]
    port = free_ports(1)[0]
    common = ["--seed", "torn-tail", "--unsafe-seed"]
    host = spawn_easel(["host", "--game", GAME, "--players", "3", "--port", str(port), "--auto", "random", *common,
                        "--bind", "127.0.0.1", "--no-advertise", "--timeout", "60"], homes[0])
    bots = [spawn_easel(["bot", "--join", "127.0.0.1:%d" % port, "--level", "random", *common], homes[k]) for k in (1, 2)]
    procs = [host] + bots
    try:
        victim = bots[0]
        # kill bot 1 once its log holds a few steps (it is torn below), long before the end
        grown = wait_for(lambda: any(p.poll() is not None for p in procs)
                         or any(_records(p) >= 5 for p in logs_under(homes[1])), timeout=30, interval=0.002)
        assert grown and all(p.poll() is None for p in procs), "bot 1's log never grew: %r" % (finish_procs(procs, 1),)
        victim.send_signal(signal.SIGKILL)
        victim.wait(timeout=10)
        assert victim.returncode == -signal.SIGKILL
        log_path = logs_under(homes[1])[0]
        before, after = _tear_last_record(log_path)
        assert before < RECORDS, "the bot had already finished when it was killed"
        time.sleep(0.3)
        resumed = spawn_easel(["resume", str(log_path.parent), "--level", "random", *common], homes[1])
        procs.append(resumed)
        results = finish_procs([host, bots[1], resumed], timeout=45)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=10)
    # the resumed peer found the torn tail and cut it
    assert "torn tail" in results[2][2], results[2][2][-3000:]
    logs, data = finished_identical(results, homes)
    ents = entries_of(data[0])
    assert len(ents) + 1 == RECORDS, len(ents) + 1
    assert not [e for e in ents if isinstance(e, Timeout)], "the torn seat was timed out instead of resumed"
    assert replay(parse_log(data[0]).entries, GAMES).over
    r = easel("audit", *[lg[0] for lg in logs])
    assert r.returncode == 0 and r.stdout.startswith("VALID"), r.stdout + r.stderr
    assert time.monotonic() - t0 < 60
