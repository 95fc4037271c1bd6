"""People who leave: the host's bots play on without it, and every screen says who is gone and what happens."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from cli import live
from p2p.identity import Identity

from .netutil import make_table


@pytest.fixture
def table():
    ids = [Identity.generate() for _ in range(2)]
    return ids, make_table(ids, timeout=30, nonce=b"leaving1"), None


def _sleeper() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)


def _node(seats: int, me: int = 0, over: bool = False):
    return SimpleNamespace(seat=me, keys=[bytes([i]) * 32 for i in range(seats)], peer=SimpleNamespace(table=SimpleNamespace(over=over)))


def _bot(index: int, seat: int, proc=None, home: Path = Path("/nonexistent")) -> live.LocalBot:
    return live.LocalBot(index=index, home=home, level="random", name="bot %d" % (index + 1), log=Path("/dev/null"), seat=seat, proc=proc)


def test_the_hosts_bots_play_on_when_it_leaves_a_table_with_other_people():
    p = _sleeper()
    try:
        bots = [_bot(0, 2, p)]
        node = _node(3)                       # seat 1 is someone else's
        assert live.others_at_table(node, bots)
        live.finish_bots(node, bots)
        assert p.poll() is None, "the bot was stopped although other people still play"
    finally:
        p.kill()
        p.wait()


def test_easel_play_abandoned_stops_its_bots():
    p = _sleeper()
    try:
        bots = [_bot(0, 1, p), _bot(1, 2, None)]
        node = _node(3)                       # every other seat is one of our bots: nobody is left to play with
        assert not live.others_at_table(node, bots)
        live.finish_bots(node, bots)
        assert p.wait(timeout=10) is not None
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_bots_are_started_in_their_own_session(tmp_path, monkeypatch):
    """A bot must outlive its host's terminal: it is not in the host's process group."""
    import os

    monkeypatch.setenv("EASEL_HOME", str(tmp_path))
    bot = _bot(0, 1, home=tmp_path / "b")
    bot.log = tmp_path / "bot.log"
    live._start_bot(bot, [sys.executable, "-c", "import time; time.sleep(30)"], fresh=True)
    try:
        assert os.getpgid(bot.proc.pid) != os.getpgid(0)
        assert os.getsid(bot.proc.pid) == bot.proc.pid
    finally:
        bot.proc.kill()
        bot.proc.wait()


def test_resume_does_not_start_a_second_copy_of_a_bot_that_still_plays(tmp_path, table):
    ids, genesis, roster = table
    d = tmp_path / "game"
    d.mkdir()
    p = _sleeper()
    try:
        running = _bot(0, 1, p, home=tmp_path / "bot-0")
        live.write_bots_file(d, [running])
        rec = json.loads((d / "local-bots.json").read_text())["bots"][0]
        assert rec["pid"] == p.pid and rec["started"]
        bots, notes = live.restart_bots(d, genesis, None)
        assert len(notes) == 1 and "bot 1 (seat 1) still plays (process %d" % p.pid in notes[0]
        # not started again, but still ours: watched, and stopped with us when nobody else is at the table
        # (a host killed, resumed, then quitting left such a bot playing alone for 10+ minutes)
        assert [(b.seat, b.proc.pid) for b in bots] == [(1, p.pid)]
        assert bots[0].proc.poll() is None
        live.finish_bots(_node(2), bots)
        assert p.wait(timeout=30) is not None and bots[0].proc.poll() is not None
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    # once it is gone, resume would restart it (here its game files are missing, and it says so)
    bots, notes = live.restart_bots(d, genesis, None)
    assert bots == [] and "cannot be restarted" in notes[0]


def test_every_screen_says_who_is_gone_since_when_what_the_table_does_and_what_you_can_do():
    names = ("Ann", "Bo", "Cy")
    t = time.mktime((2026, 11, 26, 21, 4, 10, 0, 0, -1))
    lines = live.silence_lines(names, {1: t}, 0, 60, False, "/g")
    assert lines[0] == "not connected: Bo (seat 1) since 21:04:10"
    assert "the table times Bo out of every step not made within 60 s" in lines[1]
    assert "easel resume" in lines[2] and "you can wait, or quit (q)" in lines[2] and lines[2].endswith("easel resume /g")
    # more than half the table gone: a time-out is impossible (protocol.md §5.3), the table waits
    lines = live.silence_lines(names, {1: t, 2: t + 2}, 0, 60, False, "/g")
    assert lines[0] == "not connected: Bo (seat 1) since 21:04:10, Cy (seat 2) since 21:04:12"
    assert "2 of 3 seats are gone" in lines[1] and "can never time them out" in lines[1] and "waits for them" in lines[1]
    # nothing to say once the game is over, or when everyone is here
    assert live.silence_lines(names, {1: t}, 0, 60, True, "/g") == []
    assert live.silence_lines(names, {}, 0, 60, False, "/g") == []
    # a four-seat table with two gone can still time them out (2 voters for 2 seats)
    lines = live.silence_lines(names + ("Di",), {1: t, 2: t}, 0, 60, False, "/g")
    assert "the table times them out" in lines[1]


def test_easel_play_stops_its_bots_when_its_terminal_closes(tmp_path):
    """Bots live in their own session (they outlive a host's terminal); easel play's, with nobody else at the
    table, are stopped when its terminal hangs up (SIGHUP ends it like Ctrl-C, so its way out runs)."""
    import os
    import signal

    from .netutil import wait_for

    env = dict(os.environ, EASEL_HOME=str(tmp_path), EASEL_FAULTS="reorder=1,delay=0.5,seed=1")
    host = subprocess.Popen([sys.executable, "-m", "cli", "host", "--auto", "random", "--players", "3", "--bots", "2",
                             "--bind", "127.0.0.1", "--no-advertise"], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=Path(__file__).parent.parent)
    try:
        assert wait_for(lambda: list(tmp_path.glob("games/*/local-bots.json")), timeout=30)
        pids = [b["pid"] for b in json.loads(next(tmp_path.glob("games/*/local-bots.json")).read_text())["bots"]]
        assert len(pids) == 2 and all(live._started(p) for p in pids)
        host.send_signal(signal.SIGHUP)
        host.wait(timeout=30)
        assert wait_for(lambda: not any(live._started(p) for p in pids), timeout=15), "a bot outlived easel play"
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
