"""Finding a table and coming back to a game by a name short enough to type (issue 23, items 3, 8 and 9).

Measured before: `easel join` listed the tables only after its whole window (5.2 s on a loaded machine),
showed the host by its key ("host b5df-2a8e-...") and exited, so everyone copied HOST:PORT by hand;
`easel resume last` said "last is not a game directory"; the exit line printed a 64-hex folder
that wrapped over two lines, and `easel history` said "easel resume continues it" beside a `.../log`
path that resume did not take.

The LAN parts (several machines, a host resumed after kill -9) are in test_lan.py.
"""

from __future__ import annotations

import io
import json
import re
import secrets
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import trio

from cli import live
from cli.runner import report
from cli.common import EXIT_INTERRUPTED, EXIT_OK, UsageError
from cli.history import resolve_game_dir, short_id
from cli.tables import JOIN, WATCH, KeyLines, Listing, answer, find_table
from p2p.discovery import TableAd, advertise

from . import netutil
from .test_cli import no_traceback

easel = netutil.easel
FP = "1a2b-3c4d-5e6f-7a8b"
LOOPBACK = ["127.0.0.1"]


def ad(table: str, free: int = 1, seats: int = 3, play: bool = False, name: str = "Ann", port: int = 4000) -> TableAd:
    inst = "painting-%s%s on %s" % (table, "p" if play else "", FP)
    return TableAd("painting", 0 if play else free, seats, FP, table, "10.0.0.2", port, inst, play, name)


# --------------------------------------------------------------------------- the listing, pure
def test_join_numbers_the_open_tables_in_the_order_found_and_a_number_stays_with_its_table():
    out = io.StringIO()
    listing = Listing(JOIN, out)
    listing.on_change("found", ad("aa", free=2))
    listing.on_change("found", ad("bb", play=True, name="Bo"))          # in play: listed, not joinable
    listing.on_change("found", ad("cc", free=1, name="Cy", port=4001))
    lines = out.getvalue().splitlines()
    assert re.match(r"^\s+1\s+painting\s+2/3 free\s+host Ann  at 10\.0\.0\.2:4000$", lines[0]), lines
    assert re.match(r"^\s+painting\s+in play \(3 seats\)\s+host Bo  watch: easel watch 10\.0\.0\.2:4000$", lines[1]), lines
    assert re.match(r"^\s+2\s+painting\s+1/3 free\s+host Cy  at 10\.0\.0\.2:4001$", lines[2]), lines
    assert "1a2b" not in out.getvalue()                                   # the hosts by name, not by key
    assert answer(listing, "2\n") == ("pick", listing.numbered[1].ad)
    assert answer(listing, "\n") == ("pick", listing.numbered[0].ad)      # Enter alone: the first one
    # table 1 fills, then goes (its game started): it keeps its number, and cannot be picked
    listing.on_change("updated", ad("aa", free=0))
    assert "full (3 seats)" in out.getvalue().splitlines()[-1]
    assert answer(listing, "1")[0] == "say" and "table 1 is full" in answer(listing, "1")[1]
    listing.on_change("gone", ad("aa", free=0))
    assert "table 1 has gone" in out.getvalue().splitlines()[-1]
    what, words = answer(listing, "1")
    assert what == "say" and "table 1 has gone" in words
    assert answer(listing, "")[1] is listing.numbered[1].ad               # the first one still there
    assert answer(listing, "7") == ("say", "no table 7: the tables listed are numbered 1 to 2")
    assert answer(listing, "q") == ("quit", None)
    assert answer(listing, "two")[0] == "say" and answer(listing, "\u0663")[0] == "say"   # digits are ASCII digits
    # a table found again keeps its number
    listing.on_change("found", ad("aa", free=2))
    assert out.getvalue().splitlines()[-1].split()[0] == "1" and answer(listing, "1")[0] == "pick"


def test_watch_numbers_the_tables_in_play_and_says_join_for_the_open_ones():
    out = io.StringIO()
    listing = Listing(WATCH, out)
    listing.on_change("found", ad("aa", free=2))
    listing.on_change("found", ad("bb", play=True, name="Bo"))
    lines = out.getvalue().splitlines()
    assert "join: easel join 10.0.0.2:4000" in lines[0] and not lines[0].split()[0].isdigit()
    assert lines[1].split()[0] == "1" and "watch: easel watch" in lines[1]
    assert answer(listing, "")[1].table == "bb"
    empty = Listing(JOIN, io.StringIO())
    assert answer(empty, "") == ("say", "no table to join yet: still looking (q quits)")
    assert answer(empty, "1") == ("say", "no table 1: none is listed yet")


# --------------------------------------------------------------------------- picking on loopback
TAG = secrets.token_hex(3)      # our hosts' names end with it: other tests on this loopback advertise tables too


async def _with_tables(n: int, body):
    """``n`` tables of ours advertised on loopback (random table ids, hosts named T0-TAG, T1-TAG...) while
    ``body(ids)`` runs."""
    ids = [secrets.token_hex(4) for _ in range(n)]
    async with trio.open_nursery() as nursery:
        async def hold(k):
            async with advertise(game="painting", free=1, seats=2, fingerprint=FP, table=ids[k], port=41000 + k,
                                 interfaces=LOOPBACK, host_name="T%d-%s" % (k, TAG)):
                await trio.sleep_forever()

        for k in range(n):
            nursery.start_soon(hold, k)
        try:
            return await body(ids)
        finally:
            nursery.cancel_scope.cancel()


async def test_on_a_terminal_the_number_typed_joins_that_table_while_the_listing_goes_on():
    """The person reads the listing and types the number of Ann's table (other tables on this loopback may be
    listed too: the line is found by the host's name)."""
    out = io.StringIO()

    def typing() -> str:              # the person: waits (bounded) for T1's line, types its number
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            m = re.search(r"^\s+(\d+)\s+painting\s+1/2 free\s+host T1-%s " % TAG, out.getvalue(), re.M)
            if m:
                return m.group(1) + "\n"
            time.sleep(0.02)
        return "q\n"

    async def body(ids):
        with trio.fail_after(30):
            return await find_table(JOIN, 3.0, interactive=True, out=out, read_line=typing, interfaces=LOOPBACK)

    picked = await _with_tables(2, body)
    assert picked is not None and picked.host_name == "T1-" + TAG and picked.port == 41001, out.getvalue()
    text = out.getvalue()
    first = text.splitlines()[0]
    assert first.startswith("easel: looking for tables on the LAN; type a number and Enter to join") and len(first) <= 100
    assert re.search(r"^easel: joining table \d+: painting, host T1-%s, at 127\.0\.0\.1:41001$" % TAG, text, re.M), text


async def test_q_quits_and_end_of_input_too():
    for line in ("q\n", ""):
        out = io.StringIO()
        with trio.fail_after(20):
            got = await find_table(JOIN, 3.0, interactive=True, out=out, read_line=lambda line=line: line,
                                   interfaces=LOOPBACK)
        assert got is None


def test_on_a_terminal_the_listing_reads_key_by_key_so_q_needs_no_enter():
    """Seen live (issue 29): in easel join's listing q did nothing until Enter (the terminal held the line).
    Read key by key: q on an empty line answers at once; a number is echoed, erased by Backspace, taken
    by Enter; arrow keys type nothing; the terminal's own mode comes back afterwards."""
    import os
    import pty
    import termios

    master, slave = pty.openpty()
    try:
        before = termios.tcgetattr(slave)
        assert before[3] & termios.ICANON
        out = io.StringIO()
        with KeyLines(slave, out) as keys:
            assert not termios.tcgetattr(slave)[3] & (termios.ICANON | termios.ECHO)
            os.write(master, b"q")                               # no Enter
            assert keys.read_line() == "q\n"
            os.write(master, b"12\x7f3\x1b[A\x1b[1;5C\r")         # 1 2 Backspace 3, Up, Ctrl-Right, Enter
            assert keys.read_line() == "13\n"
            os.write(master, b"7\x15 Q")                          # Ctrl-U erases the line: Q on it quits
            assert keys.read_line() == "q\n"
            os.write(master, b"\x04")                            # Ctrl-D on an empty line: end of input
            assert keys.read_line() == ""
        assert out.getvalue() == "q\n12\b \b3\n7\b \b Q\n\n"
        assert termios.tcgetattr(slave) == before
    finally:
        os.close(slave)
        os.close(master)


def test_easel_join_on_a_terminal_quits_at_q_without_enter(tmp_path):
    """The real command in a terminal (a pty, browsing loopback only): q alone ends the listing."""
    import os
    import pty
    import select
    import subprocess
    import sys

    master, slave = pty.openpty()
    env = dict(os.environ, EASEL_HOME=str(tmp_path), EASEL_ZEROCONF_INTERFACES="127.0.0.1")
    env.pop("EASEL_FAULTS", None)
    p = subprocess.Popen([sys.executable, "-m", "cli", "join", "--wait", "60"], cwd=netutil.ROOT, env=env,
                         stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
    out = b""

    def read_until(done, seconds: float) -> bool:
        nonlocal out
        end = time.monotonic() + seconds
        while not done() and time.monotonic() < end:
            if select.select([master], [], [], 0.05)[0]:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    return done()
                out += chunk
        return done()

    try:
        assert read_until(lambda: b"looking for tables on the LAN" in out, 30), out
        os.write(master, b"q")
        p.wait(timeout=15)
        assert p.returncode == 0, out
        assert b"Traceback" not in out
        assert termios_mode_back(slave)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        os.close(slave)
        os.close(master)


def termios_mode_back(fd: int) -> bool:
    import termios

    return bool(termios.tcgetattr(fd)[3] & termios.ICANON and termios.tcgetattr(fd)[3] & termios.ECHO)


async def test_pick_waits_for_table_n_and_gives_up_after_wait():
    with trio.fail_after(10):
        with pytest.raises(UsageError, match=r"no table 99 found on the LAN in 0.5 s"):
            await find_table(JOIN, 0.5, pick=99, out=io.StringIO(), interfaces=LOOPBACK)

    async def body(ids):
        with trio.fail_after(30):
            return await find_table(JOIN, 20.0, pick=1, out=io.StringIO(), interfaces=LOOPBACK)

    picked = await _with_tables(1, body)
    assert picked is not None and picked.free >= 1 and not picked.play   # the first open table listed (ours, or another test's)


def test_easel_join_pick_joins_the_table_picked_and_checks_its_hosts_key(monkeypatch):
    """The wiring: the table picked is joined at its address with its advertised key checked (TLS)."""
    from cli import main

    picked = ad("aa", name="Ann")
    calls = {}
    import cli.tables as tables

    monkeypatch.setattr(live, "need_terminal", lambda: None)
    monkeypatch.setattr(tables, "pick_from_lan", lambda args: calls.setdefault("pick", args.pick) and picked)

    async def fake_join(host, port, decide_factory, **kw):
        calls["join"] = (host, port, kw["expect_fp"], kw["name"])
        return EXIT_OK

    monkeypatch.setattr(live, "join_main", fake_join)
    assert main.main(["join", "--pick", "2", "--name", "Bo"]) == EXIT_OK
    assert calls == {"pick": 2, "join": ("10.0.0.2", 4000, FP, "Bo")}


@pytest.mark.parametrize(
    "args,words",
    [
        (["join", "--pick", "1"], "needs a terminal"),
        (["join", "--pick", "0"], "--pick takes a table's number as listed, 1 or more"),
        (["join", "127.0.0.1:5000", "--pick", "1"], "give it without an address"),
        (["watch", "127.0.0.1:5000", "--pick", "1", "--json"], "give it without an address"),
        (["watch", "--pick", "1", "--json", "--wait", "0"], "no table 1 found on the LAN in 0 s"),
        (["join", "--wait", "-1"], "--wait must be 0 to 3600 seconds"),
    ],
)
def test_pick_errors_are_one_line_exit_2(args, words, tmp_path):
    r = easel(*args, home=tmp_path)
    assert r.returncode == 2 and words in r.stderr, (r.stdout, r.stderr)
    no_traceback(r)


def test_without_a_terminal_join_lists_and_exits_and_says_how_to_pick(tmp_path):
    r = easel("join", "--wait", "0", home=tmp_path)
    assert r.returncode == 0 and r.stdout.strip() == "no open tables found (a manual HOST:PORT always works: easel join HOST:PORT)"
    r = easel("watch", "--wait", "0", home=tmp_path)
    assert r.returncode == 0 and r.stdout.strip() == \
        "no tables in play found (a seat's play address always works: easel watch HOST:PORT)"   # watch's own hint


# --------------------------------------------------------------------------- a game by a short name
def _home_game(home: Path, name: str, over: bool, age: float) -> Path:
    """A game directory in ``home`` whose log replays as finished (``over``) or not, last changed ``age`` s ago."""
    d = home / "games" / name
    d.mkdir(parents=True)
    (d / "log").write_bytes(b"")
    t = time.time() - age
    import os

    os.utime(d / "log", (t, t))
    return d


def test_last_a_short_id_and_a_log_name_the_game_resume_and_again_take(tmp_path, monkeypatch):
    import cli.history as history

    home = tmp_path / "easel-home"
    monkeypatch.setenv("EASEL_HOME", str(home))
    done = _home_game(home, "abcd" + "e" * 60, over=True, age=10)     # the newest: finished
    left = _home_game(home, "abcd" + "0" * 60, over=False, age=100)   # an older one, left unfinished
    other = _home_game(home, "ffff" + "1" * 60, over=False, age=200)
    monkeypatch.setattr(history, "_over", lambda d: d == done)
    assert resolve_game_dir("last", over=False) == left               # resume: the newest unfinished game
    assert resolve_game_dir("last", over=True) == done                 # again: the newest finished one
    assert resolve_game_dir("last") == done                            # (any: the newest)
    assert resolve_game_dir("ffff") == other and resolve_game_dir("FFFF1111") == other
    assert resolve_game_dir(str(left / "log")) == left                 # the log easel history prints
    assert resolve_game_dir(str(left)) == left
    with pytest.raises(UsageError, match="abcd starts the ids of 2 games here: give more of it"):
        resolve_game_dir("abcd")
    assert resolve_game_dir("abc") == Path("abc")                      # too short for an id: a path (not a game)
    assert short_id(done) == "abcdeeee" and short_id(left) == "abcd0000" and short_id(other) == "ffff1111"
    assert short_id(tmp_path) == str(tmp_path)                         # not a game of this home: its path
    monkeypatch.setattr(history, "_over", lambda d: True)
    with pytest.raises(UsageError, match="no unfinished game in"):
        resolve_game_dir("last", over=False)


def test_easel_watch_takes_a_games_short_id_as_resume_does(tmp_path, monkeypatch):
    """A seat left alone is told `easel watch ID` (issue 29: it printed the game's 64-hex path)."""
    import cli.watching as watching

    home = tmp_path / "easel-home"
    monkeypatch.setenv("EASEL_HOME", str(home))
    d = _home_game(home, "5b1a5803" + "2" * 56, over=False, age=0)
    me, other = b"m" * 32, b"o" * 32
    seen = []

    def roster_of(path):
        seen.append(Path(path))
        return SimpleNamespace(doc={"seats": [me, other]}), {"addrs": [["", 4000], ["10.0.0.7", 4001]]}

    monkeypatch.setattr(watching, "load_roster", roster_of)
    monkeypatch.setattr(watching, "load_or_create", lambda: SimpleNamespace(public=me))
    assert watching.watch_targets("5b1a5803") == [("10.0.0.7", 4001)] and seen == [d]
    assert watching.watch_targets("last") == [("10.0.0.7", 4001)] and seen[-1] == d
    assert watching.watch_targets("10.0.0.9:4100") == [("10.0.0.9", 4100)]     # an address is still an address


def test_the_exit_lines_name_the_game_by_last_or_its_short_id_never_a_64_hex_path(tmp_path, monkeypatch, capsys):
    import cli.history as history

    home = tmp_path / "easel-home"
    monkeypatch.setenv("EASEL_HOME", str(home))
    gid = "3f2a1b2c" + "9" * 56
    d = _home_game(home, gid, over=False, age=0)
    monkeypatch.setattr(history, "_over", lambda x: False)
    table = SimpleNamespace(over=False, head=b"", result=lambda: None)
    node = SimpleNamespace(peer=SimpleNamespace(table=table), failed=None, store=SimpleNamespace(dir=d), seat=0)
    assert report(node, interactive=True) == EXIT_INTERRUPTED
    out = capsys.readouterr().out
    assert "easel: you left an unfinished game: easel resume last (or easel resume 3f2a1b2c) continues it" in out
    # another unfinished game is newer now: last no longer names this one, its short id does
    _home_game(home, "77" * 32, over=False, age=-5)
    report(node, interactive=True)
    out = capsys.readouterr().out
    assert "easel: you left an unfinished game: easel resume 3f2a1b2c continues it" in out
    table.over = True
    monkeypatch.setattr(history, "_over", lambda x: True)
    assert report(node, interactive=True) == EXIT_OK
    out = capsys.readouterr().out
    assert out.strip() == "easel: game over: easel replay 3f2a1b2c, easel audit 3f2a1b2c; easel again 3f2a1b2c plays it again"
    for line in out.splitlines():
        assert len(line) <= 100 and not re.search(r"[0-9a-f]{64}", line)


def test_resume_last_and_the_short_id_history_gives_finish_a_game_both_seats_left(tmp_path):
    """Two seats of a finished demo game lose the last third of their logs (as a crash would leave them);
    one comes back with `easel resume last`, the other with the command `easel history` prints: the game
    finishes, both logs the same and valid."""
    from core.logfile import parse

    out = tmp_path / "demo"
    r = easel("demo", "--game", "painting", "--players", 2, "--option", "rounds=2", "--seed", "find", "--out", out,
              "--json", home=tmp_path / "h", timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    logs = [Path(p) for p in json.loads(r.stdout)["logs"]]
    full = parse(logs[0].read_bytes())
    cut = full.offsets[len(full.entries) * 2 // 3]
    for log in logs:
        log.write_bytes(log.read_bytes()[:cut])
    homes = [log.parents[2] for log in logs]
    h = easel("history", home=homes[1])
    assert h.returncode == 0, h.stderr
    m = re.search(r"unfinished  at entry \d+: easel resume ([0-9a-f]{8})$", h.stdout, re.M)
    assert m and logs[1].parent.name.startswith(m.group(1)), h.stdout
    assert all(len(line) <= 100 for line in h.stdout.splitlines() if not line.startswith("    /")), h.stdout
    import subprocess
    import sys

    procs = []
    for home, target in ((homes[0], "last"), (homes[1], m.group(1))):
        env = dict(__import__("os").environ, EASEL_HOME=str(home))
        procs.append(subprocess.Popen([sys.executable, "-m", "cli", "resume", target, "--level", "random"], cwd=netutil.ROOT,
                                      env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True))
    results = []
    for p in procs:
        try:
            so, se = p.communicate(timeout=90)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise
        results.append((p.returncode, so, se))
    for rc, so, se in results:
        assert rc == 0 and json.loads(so.strip().splitlines()[-1])["over"], se[-2000:]
    assert logs[0].read_bytes() == logs[1].read_bytes() and len(parse(logs[0].read_bytes()).entries) == len(full.entries)
    a = easel("audit", logs[0], logs[1])
    assert a.returncode == 0 and a.stdout.startswith("VALID"), a.stdout + a.stderr
    # and now the newest unfinished game is gone: last says so in a line
    r = easel("resume", "last", "--level", "random", home=homes[0])
    assert r.returncode == 2 and "no unfinished game in" in r.stderr
    no_traceback(r)


def test_a_table_in_play_whose_host_no_longer_answers_leaves_the_listing_and_comes_back_if_it_answers(monkeypatch):
    """A killed host cannot withdraw its record: the listing probes each table in play (cli/tables.py
    ``probing``) and says it has gone after PROBE_MISSES probes in a row without an answer (§10)."""
    from cli import tables

    monkeypatch.setattr(tables, "PROBE_EVERY", 0.01)
    out = io.StringIO()
    listing = Listing(WATCH, out)
    played = ad("ab", play=True)
    up = {"ok": True}
    asked = []

    async def probe(host, port, timeout):
        asked.append((host, port))
        return up["ok"]

    async def main():
        with trio.fail_after(10):
            async with trio.open_nursery() as n:
                n.start_soon(tables.probing, listing, probe)
                listing.on_change("found", played)
                while len(asked) < 3:
                    await trio.sleep(0.01)
                assert listing.number(1) is played and listing.first() is played
                up["ok"] = False
                while not listing.numbered[0].silent:
                    await listing.changed.wait()
                assert len(asked) >= 3 + tables.PROBE_MISSES
                with pytest.raises(UsageError, match="table 1 has gone"):
                    listing.number(1)
                assert listing.first() is None
                up["ok"] = True
                while listing.numbered[0].silent:
                    await listing.changed.wait()
                assert listing.number(1) is played
                n.cancel_scope.cancel()

    trio.run(main)
    text = out.getvalue()
    assert "table 1 has gone (painting, host Ann): its host no longer answers" in text
    assert text.count("has gone") == 1 and text.count("(its host answers again)") == 1
    assert set(asked) == {("10.0.0.2", 4000)}
