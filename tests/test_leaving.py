"""People who leave: the host's bots play on without it, and every screen says who is gone and what happens."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import trio

from cli import bots as live_bots
from cli.runner import silence_lines
from p2p.identity import Identity

from .netutil import descendants, make_table


@pytest.fixture
def table():
    ids = [Identity.generate() for _ in range(2)]
    return ids, make_table(ids, timeout=30, nonce=b"leaving1"), None


def _sleeper() -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)


def _node(seats: int, me: int = 0, over: bool = False):
    return SimpleNamespace(seat=me, keys=[bytes([i]) * 32 for i in range(seats)], peer=SimpleNamespace(table=SimpleNamespace(over=over)))


def _bot(index: int, seat: int, proc=None, home: Path = Path("/nonexistent")) -> live_bots.LocalBot:
    return live_bots.LocalBot(index=index, home=home, level="random", name="bot %d" % (index + 1), log=Path("/dev/null"), seat=seat, proc=proc)


def test_the_hosts_bots_play_on_when_it_leaves_a_table_with_other_people():
    p = _sleeper()
    try:
        bots = [_bot(0, 2, p)]
        node = _node(3)                       # seat 1 is someone else's
        assert live_bots.others_at_table(node, bots)
        live_bots.finish_bots(node, bots)
        assert p.poll() is None, "the bot was stopped although other people still play"
    finally:
        p.kill()
        p.wait()


def test_easel_play_abandoned_stops_its_bots():
    p = _sleeper()
    try:
        bots = [_bot(0, 1, p), _bot(1, 2, None)]
        node = _node(3)                       # every other seat is one of our bots: nobody is left to play with
        assert not live_bots.others_at_table(node, bots)
        live_bots.finish_bots(node, bots)
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
    live_bots._start_bot(bot, [sys.executable, "-c", "import time; time.sleep(30)"], fresh=True)
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
        live_bots.write_bots_file(d, [running])
        rec = json.loads((d / "local-bots.json").read_text())["bots"][0]
        assert rec["pid"] == p.pid and rec["started"]
        bots, notes = live_bots.restart_bots(d, genesis, None)
        assert len(notes) == 1 and "bot 1 (seat 1) still plays (process %d" % p.pid in notes[0]
        # not started again, but still ours: watched, and stopped with us when nobody else is at the table
        # (a host killed, resumed, then quitting left such a bot playing alone for 10+ minutes)
        assert [(b.seat, b.proc.pid) for b in bots] == [(1, p.pid)]
        assert bots[0].proc.poll() is None
        live_bots.finish_bots(_node(2), bots)
        assert p.wait(timeout=30) is not None and bots[0].proc.poll() is not None
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    # once it is gone, resume would restart it (here its game files are missing, and it says so)
    bots, notes = live_bots.restart_bots(d, genesis, None)
    assert bots == [] and "cannot be restarted" in notes[0]


def test_every_screen_says_who_is_gone_since_when_what_the_table_does_and_what_you_can_do():
    names = ("Ann", "Bo", "Cy")
    t = time.mktime((2026, 11, 26, 21, 4, 10, 0, 0, -1))
    lines = silence_lines(names, {1: t}, 0, 60, False, "/g")
    assert lines[0] == "not connected: Bo (seat 1) since 21:04:10; they can come back with easel resume"
    assert "the table times Bo out of every step not made within 60 s" in lines[1]
    assert lines[2] == "you can wait, or quit (q) and come back later with: easel resume /g" and len(lines) == 3
    # one seat gone: each line fits beside its "!!  " at 100 columns, with a long name and a long short id
    # (issue 29; more seats make a longer first line: the screen wraps an alert, never cuts it)
    for line in silence_lines(("Ann", "Bartholomew", "Cy"), {1: t}, 0, 300, False, "0123456789ab"):
        assert len("!!  " + line) <= 99, line
    # more than half the table gone: a time-out is impossible (protocol.md §5.3), the table waits
    lines = silence_lines(names, {1: t, 2: t + 2}, 0, 60, False, "/g")
    assert lines[0] == "not connected: Bo (seat 1) since 21:04:10, Cy (seat 2) since 21:04:12; they can come back with " \
                       "easel resume"
    assert "2 of 3 seats are gone" in lines[1] and "can never time them out" in lines[1] and "waits for them" in lines[1]
    # nothing to say once the game is over, or when everyone is here
    assert silence_lines(names, {1: t}, 0, 60, True, "/g") == []
    assert silence_lines(names, {}, 0, 60, False, "/g") == []
    # a four-seat table with two gone can still time them out (2 voters for 2 seats)
    lines = silence_lines(names + ("Di",), {1: t, 2: t}, 0, 60, False, "/g")
    assert "the table times them out" in lines[1]


# --------------------------------------------------------------------------- no orphan (issue 23, item 2)
ROOT = Path(__file__).resolve().parent.parent
SLOW = "reorder=1,delay=0.5,seed=%d"      # every frame half a second late: a game of tens of seconds
PROCESS_EXIT = 60.0                        # s: the bound on every wait for a process to end (a loaded machine)
# A host stops its bots on its way out and waits for them before it exits: once it has exited they are gone.
# The bound on that check stays below BOT_ALONE, so that a bot leaving by itself (alone) cannot pass for it.
STOPPED_WITH_HOST = 10.0


def _spawn(args, home: Path, faults: str | None = None, sigint_ignored: bool = False) -> subprocess.Popen:
    """``easel ARGS`` with EASEL_HOME ``home``; ``sigint_ignored``: as a shell script starts a command in the
    background (``cmd &``), with SIGINT ignored (a disposition exec keeps)."""
    import os

    env = dict(os.environ, EASEL_HOME=str(home))
    env.pop("EASEL_FAULTS", None)
    if faults:
        env["EASEL_FAULTS"] = faults
    ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sigint_ignored else None
    return subprocess.Popen([sys.executable, "-m", "cli", *map(str, args)], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=ignore)


def _running(pid: int, started: str | None) -> bool:
    """Is that process (pid and start time, as local-bots.json keeps them) still running (a zombie is not)?"""
    return started is not None and live_bots._started(pid) == started


def _table_bots(home: Path, game: Path | None = None) -> tuple[Path, list[tuple[int, str]]]:
    """Wait until a game of ``home`` (other than ``game``) is sealed and its node started (local-bots.json and
    the roster beside it): its directory and its bots' (pid, start time)."""
    from .netutil import wait_for

    def found():
        return [f.parent for f in home.glob("games/*/local-bots.json") if (f.parent / "roster").exists() and f.parent != game]

    assert wait_for(lambda: found(), timeout=PROCESS_EXIT), "no table was sealed"
    gdir = found()[0]
    bots = [(b["pid"], b["started"]) for b in json.loads((gdir / "local-bots.json").read_text())["bots"]]
    assert bots and all(_running(p, s) for p, s in bots)
    return gdir, bots


def _all_gone(bots, timeout: float = PROCESS_EXIT) -> bool:
    from .netutil import wait_for

    assert STOPPED_WITH_HOST < live_bots.BOT_ALONE

    return wait_for(lambda: not any(_running(p, s) for p, s in bots), timeout=timeout, interval=0.05)


def _begun(log: Path) -> bool:
    """The log holds its genesis (a whole entry at least)."""
    from core.logfile import parse

    try:
        return bool(parse(log.read_bytes()).entries)
    except (OSError, ValueError):
        return False


def _over(log: Path) -> bool:
    from core import games as registry
    from core.logfile import parse
    from core.table import replay

    return replay(parse(log.read_bytes()).entries, registry).over


def test_easel_play_stops_its_bots_when_its_terminal_closes(tmp_path):
    """`easel play` in a terminal (a pty), its table sealed and waiting for the person: the terminal closes
    (the pty's master end: SIGHUP to the person's process). That is the person quitting, on the very path
    q takes: easel play ends as "you left an unfinished game" (130, no traceback) and, nobody else being
    at the table, stops its bots. Waits on the table's files and on the processes only."""
    import pty

    pid, fd = pty.fork()
    if pid == 0:         # the child: the pty is its controlling terminal, as a person's terminal is
        try:
            env = dict(os.environ, EASEL_HOME=str(tmp_path), TERM="xterm")
            os.chdir(ROOT)
            os.execve(sys.executable, [sys.executable, "-m", "cli", "play", "--players", "3", "--name", "Ann"], env)
        finally:
            os._exit(127)
    status = None
    try:
        import select

        def drain() -> None:          # the terminal reads what the screen draws, so the screen never blocks
            while select.select([fd], [], [], 0)[0]:
                try:
                    if not os.read(fd, 65536):
                        return
                except OSError:
                    return

        from .netutil import wait_for

        # sealed: the roster, and the genesis written (the log file may exist empty a moment before it)
        assert wait_for(lambda: drain() or any((f.parent / "roster").exists() and _begun(f.parent / "log")
                                               for f in tmp_path.glob("games/*/local-bots.json")),
                        timeout=PROCESS_EXIT)
        gdir, bots = _table_bots(tmp_path)
        assert len(bots) == 2 and not _over(gdir / "log")
        os.close(fd)                  # the terminal closes
        fd = None
        deadline = time.monotonic() + PROCESS_EXIT
        while status is None and time.monotonic() < deadline:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = os.waitstatus_to_exitcode(st)
            else:
                time.sleep(0.05)
        assert status == 130, "easel play did not leave as a person who quits (exit %r)" % status
        assert _all_gone(bots, STOPPED_WITH_HOST), "a bot outlived easel play's terminal"
    finally:
        if fd is not None:
            os.close(fd)
        if status is None:
            os.kill(pid, 9)
            os.waitpid(pid, 0)


def test_a_headless_host_stops_its_bots_on_sighup_as_on_quit(tmp_path):
    """The same without a screen (`easel host --auto`): SIGHUP ends the seat as quitting does (its report
    says the game is not over, no traceback), and its bots, alone at the table, are stopped."""
    host = _spawn(["host", "--auto", "random", "--players", "3", "--bots", "2", "--bind", "127.0.0.1", "--no-advertise"],
                  tmp_path, SLOW % 1)
    try:
        gdir, bots = _table_bots(tmp_path)
        host.send_signal(signal.SIGHUP)
        so, se = host.communicate(timeout=PROCESS_EXIT)
        assert host.returncode == 1 and "Traceback" not in se.decode(), se.decode()[-3000:]
        assert json.loads(so.decode().strip().splitlines()[-1])["over"] is False, "the game ended before the hang-up"
        assert _all_gone(bots, STOPPED_WITH_HOST), "a bot outlived its host"
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()


@pytest.mark.parametrize("sigint", ["default", "ignored"])
def test_the_bots_started_in_the_lobby_go_when_the_host_leaves_it(tmp_path, sigint):
    """A host that leaves its lobby (its terminal closes while a seat is still free) takes the bots it
    started there with it: none is left knocking or waiting. Also a host started in the background of a
    shell script (``easel host ... &``: SIGINT ignored from the start, so neither Python nor trio catch
    Ctrl-C in it): the hang-up sent on as SIGINT went nowhere, and that host sat in its lobby for ever."""
    host = _spawn(["host", "--auto", "random", "--players", "3", "--bots", "1", "--bind", "127.0.0.1", "--no-advertise"],
                  tmp_path, sigint_ignored=sigint == "ignored")
    try:
        os.set_blocking(host.stderr.fileno(), False)
        said = b""
        deadline = time.monotonic() + PROCESS_EXIT
        while b"bot 1 (bot, " not in said and time.monotonic() < deadline and host.poll() is None:
            said += host.stderr.read() or b""
            time.sleep(0.05)
        assert b"bot 1 (bot, " in said, said.decode()            # the bot sits in the lobby, a seat is free
        os.set_blocking(host.stderr.fileno(), True)
        kids = [(p, live_bots._started(p)) for p in descendants(host.pid)]
        assert kids
        host.send_signal(signal.SIGHUP)
        host.communicate(timeout=PROCESS_EXIT)
        assert host.returncode == 130
        assert _all_gone(kids), "a process the host started outlived its lobby"
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()


@pytest.fixture(params=["default", "ignored"])
def hangups(request, monkeypatch):
    """This process catches hang-ups as a live command does (catch_hangups), SIGINT as Python leaves it or
    ignored (a command started in the background of a shell script); the terminal is left alone. Yields a
    function that hangs this process up (SIGHUP); every handler and HangUp's state put back after."""
    from cli import hangup

    saved = signal.getsignal(signal.SIGHUP), signal.getsignal(signal.SIGINT)
    state = {k: getattr(hangup.HangUp, k) for k in ("armed", "heard", "leave", "token", "interrupted", "scope", "scope_token")}
    monkeypatch.setattr(hangup, "detach_terminal", lambda: None)
    if request.param == "ignored":
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        hangup.catch_hangups()
        yield lambda: os.kill(os.getpid(), signal.SIGHUP)
    finally:
        signal.signal(signal.SIGHUP, saved[0])
        signal.signal(signal.SIGINT, saved[1])
        for k, v in state.items():
            setattr(hangup.HangUp, k, v)


def test_a_hang_up_outside_a_game_ends_the_run_and_never_cuts_a_stop_short(hangups):
    """Outside a game (a lobby, the table starting, the way out) the terminal closing ends the command as
    Ctrl-C does (KeyboardInterrupt: exit 130), whatever SIGINT's disposition: the run is cancelled, every
    ``finally`` runs (the lobby's stop of its bots), and a stop already under way (synchronous: stopping
    our bots) is finished first, not cut short. Waits on the hang-up having been heard, never on time."""
    from cli import hangup

    steps = []

    async def lobby():
        try:
            hangups()
            with trio.move_on_after(PROCESS_EXIT):     # only a bound: the hang-up ends it at once
                await trio.sleep_forever()
            steps.append("still in the lobby")
        finally:
            steps.append("bots stopped")

    with pytest.raises(KeyboardInterrupt):
        hangup.run(lobby)
    assert steps == ["bots stopped"]

    steps.clear()
    hangup.HangUp.interrupted = False

    async def way_out():
        hangups()
        deadline = time.monotonic() + PROCESS_EXIT
        while not hangup.HangUp.interrupted and time.monotonic() < deadline:
            time.sleep(0.01)        # stopping our bots (blocking): the hang-up is heard in here
        steps.append("bots stopped")
        with trio.move_on_after(PROCESS_EXIT):
            await trio.sleep_forever()
        steps.append("still on the way out")

    with pytest.raises(KeyboardInterrupt):
        hangup.run(way_out)
    assert steps == ["bots stopped"]

    # a hang-up that comes before the run (a name being asked): KeyboardInterrupt there; a run after it is
    # cancelled from its start
    steps.clear()
    hangup.HangUp.interrupted = False
    with pytest.raises(KeyboardInterrupt):
        hangups()
        deadline = time.monotonic() + PROCESS_EXIT
        while time.monotonic() < deadline:
            time.sleep(0.01)

    async def later():
        try:
            with trio.move_on_after(PROCESS_EXIT):
                await trio.sleep_forever()
            steps.append("still in the lobby")
        finally:
            steps.append("bots stopped")

    with pytest.raises(KeyboardInterrupt):
        hangup.run(later)
    assert steps == ["bots stopped"]


def test_a_host_killed_then_resumed_then_quitting_stops_the_bots_that_ran_on(tmp_path):
    """The host dies (kill -9) with its bot playing; `easel resume` finds the bot still running (it does not
    start a second copy) and takes it back: when the resumed host quits, that bot goes too."""
    host = _spawn(["host", "--auto", "random", "--players", "2", "--bots", "1", "--bind", "127.0.0.1", "--no-advertise"],
                  tmp_path, SLOW % 2)
    resumed = None
    try:
        gdir, bots = _table_bots(tmp_path)
        host.kill()
        host.wait()
        assert all(_running(p, s) for p, s in bots), "the bot should outlive a crash of its host"
        resumed = _spawn(["resume", gdir, "--level", "random"], tmp_path, SLOW % 3)
        from .netutil import wait_for

        # it takes its seat again: its node rewrote the roster file (an event on disk, not a guess of time)
        stamp = (gdir / "log").stat().st_size
        assert wait_for(lambda: (gdir / "log").stat().st_size > stamp or resumed.poll() is not None, timeout=PROCESS_EXIT)
        resumed.send_signal(signal.SIGHUP)
        so, se = resumed.communicate(timeout=PROCESS_EXIT)
        assert "still plays (process %d" % bots[0][0] in se.decode(), se.decode()[-3000:]
        assert json.loads(so.decode().strip().splitlines()[-1])["over"] is False
        assert _all_gone(bots, STOPPED_WITH_HOST), "the bot from before the crash outlived the resumed host"
    finally:
        for p in (host, resumed):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()


def test_a_hosts_bot_leaves_once_no_person_is_connected_for_bot_alone(tmp_path, monkeypatch):
    """Ann's host and Bo (another person, here a bot of his own) both vanish (kill -9: no word, no way out
    run): Ann's bot is left with nobody but bots. Within BOT_ALONE (15 s; set to 4 s here through
    EASEL_BOT_ALONE, which Ann's host hands its bot) it leaves by itself, says why in its log, and leaves a
    valid unfinished game log."""
    BOT_ALONE = 4
    monkeypatch.setenv(live_bots.BOT_ALONE_ENV, str(BOT_ALONE))
    host = _spawn(["host", "--auto", "random", "--players", "3", "--bots", "1", "--bind", "127.0.0.1", "--no-advertise",
                   "--port", "0", "--name", "Ann"], tmp_path / "ann", SLOW % 4)
    bo = None
    try:
        import re

        os.set_blocking(host.stderr.fileno(), False)
        said = b""
        deadline = time.monotonic() + PROCESS_EXIT
        while not re.search(rb"table open on port (\d+)", said) and time.monotonic() < deadline and host.poll() is None:
            said += host.stderr.read() or b""
            time.sleep(0.05)
        port = int(re.search(rb"table open on port (\d+)", said).group(1))
        os.set_blocking(host.stderr.fileno(), True)
        bo = _spawn(["bot", "--join", "127.0.0.1:%d" % port, "--level", "random", "--name", "Bo"], tmp_path / "bo", SLOW % 5)
        gdir, bots = _table_bots(tmp_path / "ann")
        from core.logfile import parse
        from .netutil import wait_for

        assert wait_for(lambda: len(parse((gdir / "log").read_bytes()).entries) >= 3, timeout=PROCESS_EXIT)   # in play
        host.kill()
        bo.kill()
        host.wait()
        bo.wait()
        gone_at = time.monotonic()
        assert _all_gone(bots, BOT_ALONE + PROCESS_EXIT), "the bot stayed at a table with nobody but bots"
        took = time.monotonic() - gone_at
        assert took >= BOT_ALONE - 1, "it left before BOT_ALONE: %.1f s" % took
        (bot_log,) = (tmp_path / "ann" / "bots" / "bot-1" / "games").glob("*/log")   # bot 1 lives in bots/bot-1
        text = next(gdir.glob("bot-seat-*.log")).read_text()
        assert "nobody but bots has been connected to this seat for %d s (Ann, Bo gone): leaving the table" % BOT_ALONE in text, text
        assert "Traceback" not in text
        from .netutil import easel

        r = easel("audit", bot_log, home=tmp_path / "ann")
        assert r.returncode == 1 and r.stdout.startswith("VALID") and "the game is not finished" in r.stdout, r.stdout
    finally:
        for p in (host, bo):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()


def test_bots_leave_at_game_over_and_a_rematchs_bots_go_with_its_host(tmp_path):
    """A short game to its end: the host's bot leaves at game over by itself (it waits for no rematch). Then
    the host's `easel again` restarts its bot for the rematch; the host's terminal closes mid-rematch, and
    the rematch's bot goes with it."""
    home = tmp_path / "ann"
    host = _spawn(["host", "--auto", "random", "--players", "2", "--bots", "1", "--bind", "127.0.0.1", "--no-advertise",
                   "--option", "rounds=1"], home)
    again = None
    try:
        first, bots = _table_bots(home)
        so, se = host.communicate(timeout=PROCESS_EXIT * 3)
        assert host.returncode == 0 and json.loads(so.decode().strip().splitlines()[-1])["over"], se.decode()[-3000:]
        assert _all_gone(bots), "the bot stayed after game over"
        again = _spawn(["again", first, "--level", "random"], home, SLOW % 6)
        second, rematch_bots = _table_bots(home, game=first)
        assert not _over(second / "log")
        again.send_signal(signal.SIGHUP)
        so, se = again.communicate(timeout=PROCESS_EXIT)
        assert "Traceback" not in se.decode(), se.decode()[-3000:]
        assert _all_gone(rematch_bots, STOPPED_WITH_HOST), "the rematch's bot outlived its host"
    finally:
        for p in (host, again):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()


def test_leave_when_alone_counts_people_not_the_hosts_bots():
    """The rule itself, on a fake node: people (any seat that is not one of the host's bots, the host
    included) all silent for ``after`` seconds -> the bot quits its seat; one person connected -> it
    stays; a table of nothing but the host's bots -> nothing to watch."""
    import trio
    import trio.testing

    keys = [bytes([i]) * 32 for i in range(4)]

    class Node:
        def __init__(self, silent: dict) -> None:
            self.keys, self.seat, self.silent_since = keys, 2, silent
            self.done, self.lost = trio.Event(), trio.Event()
            self.quits = 0
            self.genesis = SimpleNamespace(doc={"seats": keys, "names": ["Ann", "Bo", "bot 1", "bot 2"]})
            self.store = SimpleNamespace(dir=Path("/g"))

        def quit_table(self) -> None:
            self.quits += 1
            self.done.set()

    fellows = {keys[2], keys[3]}

    async def main():
        now = time.time()
        gone = Node({0: now - 1, 1: now - 0.5, 3: now})          # Ann and Bo silent, our fellow bot too
        with trio.fail_after(10):
            await live_bots.leave_when_alone(gone, fellows, after=1.0)
        assert gone.quits == 1
        here = Node({0: now - 100})                                # Bo is connected: stay
        async with trio.open_nursery() as n:
            n.start_soon(live_bots.leave_when_alone, here, fellows, 0.01)
            await trio.testing.wait_all_tasks_blocked()            # it waits for a connection to drop
            assert here.quits == 0
            here.silent_since[1] = time.time()                     # Bo's connection drops
            here.lost.set()
            with trio.fail_after(10):
                await here.done.wait()
        assert here.quits == 1
        only_bots = Node({})
        with trio.fail_after(10):
            await live_bots.leave_when_alone(only_bots, set(keys), after=0.0)
        assert only_bots.quits == 0

    trio.run(main)


ZYGOTE_SCRIPT = r"""
import json, os, sys, time
from pathlib import Path
from cli import zygote
import cli.live  # the CLI imported, as easel play has it before trio runs
from cli.main import main
out = Path(sys.argv[1])
z = zygote.start(main)
assert z is not None and z.pid != os.getpid()
ok = z.spawn(["--version"], {"EASEL_HOME": str(out / "home")}, out / "ok.log", "easel --version")
rc_ok = ok.wait(30)
env_probe = z.spawn(["games", "--json"], {"EASEL_HOME": str(out / "home")}, out / "games.log", "easel games")
rc_games = env_probe.wait(30)
sleeper = z.spawn(["bot", "--join", "127.0.0.1:9"], {"EASEL_HOME": str(out / "home")}, out / "bot.log", "easel bot")
deadline = time.monotonic() + 30     # it sets itself up after the fork: its own session first
while os.getsid(sleeper.pid) != sleeper.pid and time.monotonic() < deadline:
    time.sleep(0.01)
sid = os.getsid(sleeper.pid)
while Path("/proc/%d/comm" % sleeper.pid).read_text().strip() != "easel bot" and time.monotonic() < deadline:
    time.sleep(0.01)
parent = int(Path("/proc/%d/stat" % sleeper.pid).read_text().rsplit(")", 1)[1].split()[1])
comm = Path("/proc/%d/comm" % sleeper.pid).read_text().strip()
sleeper.kill()
rc_killed = sleeper.wait(30)
print(json.dumps({"rc_ok": rc_ok, "rc_games": rc_games, "rc_killed": rc_killed, "sid": sid, "pid": sleeper.pid,
                  "parent": parent, "zygote": z.pid, "me": os.getpid(), "my_sid": os.getsid(0), "comm": comm}))
"""


def test_a_bot_forked_from_the_zygote_is_a_process_of_its_own(tmp_path):
    """The zygote (forked before trio runs) forks each bot: in its own session (not the terminal's, not the
    host's process group), not a child of the host, its output in its own log, EASEL_HOME its own, running
    the CLI's main as ``python -m cli ARGS`` would; its exit status comes back to the host, a signal too."""
    r = subprocess.run([sys.executable, "-c", ZYGOTE_SCRIPT, str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["rc_ok"] == 0 and (tmp_path / "ok.log").read_text().startswith("easel ")
    assert got["rc_games"] == 0 and json.loads((tmp_path / "games.log").read_text())[0]["name"]
    assert got["sid"] == got["pid"] != got["my_sid"]            # a session of its own
    assert got["parent"] == got["zygote"] != got["me"]          # the zygote's child, not the host's
    assert got["comm"] == "easel bot"                            # what ps shows
    assert got["rc_killed"] == -9


def test_the_status_names_the_seats_reached_only_through_the_relay():
    """Between two homes the status said "3/3 peers connected" whether the game went direct or through the relay."""
    from types import SimpleNamespace as NS

    from cli.runner import relayed_words

    def conn(relayed):
        transport = NS(relayed=relayed) if relayed is not None else NS()      # None: a LAN socket (no such flag)
        return NS(stream=NS(stream=NS(transport_stream=transport)))

    keys = [b"a", b"b", b"c"]
    names = ("Ann", "Bo", "Cy")
    assert relayed_words(NS(keys=keys, conns={b"b": conn(None), b"c": conn(None)}), names) == ""
    assert relayed_words(NS(keys=keys, conns={b"b": conn(False), b"c": conn(False)}), names) == ""
    assert relayed_words(NS(keys=keys, conns={b"c": conn(True), b"b": conn(False)}), names) == " (via relay: Cy)"
    assert relayed_words(NS(keys=keys, conns={b"c": conn(True), b"b": conn(True)}), names) == " (via relay: Bo, Cy)"
