"""Leaving with real processes on loopback (protocol.md §6.1 "A leave", §9.7, §13.1; issues 23, 29): a person
who quits with q in the middle of a Modern Art open auction leaves for good: the log records it, no step
waits for her again, the next rounds' deals go on without her and the others finish ranked, the audit
naming her leave; a resumed seat that no one answers says where it stands and exits."""

from __future__ import annotations

import fcntl
import json
import os
import select
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

from core.events import Timeout

from .netutil import ROOT, LogFollower, easel, entries_of, free_ports, logs_under, spawn_easel, wait_for

TABLE = 300          # the table's time-out: no step after the quit may come near it
ROUND = 20           # an open auction's raise round (open_round_seconds, the default)


class Terminal:
    """A person's terminal: ``python -m cli ARGS`` on a pseudo-terminal of 100x30; what it prints is read
    all the time (so it never blocks on a full pty) and kept."""

    def __init__(self, args, home: Path, env: dict | None = None) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        e = dict(os.environ, EASEL_HOME=str(home), TERM="xterm", EASEL_PACE="0", EASEL_SEND_AT_ONCE="1")
        e.pop("EASEL_FAULTS", None)
        e.update(env or {})

        def tty():
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.err = open(home.parent / (home.name + ".stderr"), "wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "cli", *args], cwd=ROOT, env=e, stdin=slave, stdout=slave,
                                     stderr=self.err, preexec_fn=tty)
        os.close(slave)
        self.master = master
        self.out = b""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self.master], [], [], 0.2)
            except (OSError, ValueError):
                return
            if not ready:
                if self.proc.poll() is not None:
                    return
                continue
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.out = (self.out + chunk)[-200_000:]

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self._reader.join(timeout=5)
        try:
            os.close(self.master)
        except OSError:
            pass
        self.err.close()

    def stderr(self) -> str:
        if not self.err.closed:
            self.err.flush()
        return Path(self.err.name).read_text(errors="replace")


def _answer(state) -> str:
    """What the person types when asked (a move the rules accept in every such step; an open auction
    is handled by the test)."""
    return {"play": "play 1", "double": "pass", "price": "price 1", "fixed_price": "pass",
            "once_around": "pass", "sealed": "pass"}.get(state.ms.phase, "pass")


def test_a_person_who_quits_in_an_open_auction_leaves_for_good_and_the_others_finish_ranked(tmp_path):
    port = free_ports(1)[0]
    homes = {name: tmp_path / name for name in ("ann", "bo", "cy")}
    for h in homes.values():
        h.mkdir()
    ann = Terminal(["host", "--game", "modern-art", "--players", "3", "--port", str(port), "--bind", "127.0.0.1",
                    "--no-advertise", "--timeout", str(TABLE), "--name", "Ann"], homes["ann"])
    bots = [spawn_easel(["bot", "--join", "127.0.0.1:%d" % port, "--level", "medium", "--name", name.capitalize()], homes[name])
            for name in ("bo", "cy")]
    try:
        # Ann answers every question the game asks her until she is asked in an open auction's raise
        # round; then she quits (q, and q again: mid-game the screen asks once more)
        follow = LogFollower(homes["ann"])
        typed: dict = {}
        quit_at = None
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and ann.proc.poll() is None:
            t = follow.poll()
            st = t.step if t is not None else None
            if t is not None and t.over:
                break
            if (st is not None and st.purpose == "move" and 0 in st.seats and st.kind in ("commit", "act")
                    and getattr(t.state, "stage", None) == "play"):
                if t.state.ms.phase == "open":
                    quit_phase = st.phase
                    ann.type("q")
                    ann.type("q")
                    quit_at = time.monotonic()
                    break
                # typed again only if the step is still open 3 s later (the screen may not have been asking yet)
                if time.monotonic() - typed.get(st.phase, -10.0) > 3.0:
                    typed[st.phase] = time.monotonic()
                    ann.type(_answer(t.state) + "\r")
            time.sleep(0.05)
        assert quit_at is not None, "Ann was never asked in an open auction: %s" % ann.stderr()[-2000:]

        # the table moves on without her (issue 29): her leave is placed in the log as her answer to the
        # next step that expects her, no step waits for her again (no certificate names her), the deal of
        # the next rounds takes her shares from the secret her leave published, and the game ends ranked
        bo = LogFollower(homes["bo"])
        end = time.monotonic() + 200
        t = None
        while time.monotonic() < end:
            t = bo.poll() or t
            if t is not None and t.over:
                break
            time.sleep(0.05)
        assert t is not None and t.over, "the game did not end within 200 s of Ann's quit"
        assert 0 in t.gone and t.gone[0][1] >= quit_phase, t.gone
        assert not [ph for ph, seats in t.timeouts.items() if ph >= quit_phase and 0 in seats], t.timeouts
        res = t.result()
        assert res["status"] == "complete" and res["ranking"][-1] == 0 and res["left"] == [0], res
        assert res["rounds"] == 4, res
        rc = ann.proc.wait(timeout=30)
        assert rc == 130, ann.stderr()[-2000:]
        ann.close()
        screen = ann.out.decode(errors="replace")
        assert "you left the table for good" in screen, screen[-1500:]
        results = [b.communicate(timeout=60) for b in bots]
        for b, (so, se) in zip(bots, results):
            assert b.returncode == 0 and json.loads(so.decode().strip().splitlines()[-1])["over"], se.decode()[-2000:]
            # the others' screens (a bot's is its log) say who left, and accuse no one
            text = se.decode(errors="replace")
            assert "Ann left the table: their turns pass at once" in text, text[-2000:]
            assert "although" not in text
        log = logs_under(homes["bo"])[0]
        assert log.read_bytes() == logs_under(homes["cy"])[0].read_bytes()
        r = easel("audit", log, logs_under(homes["cy"])[0])
        assert r.returncode == 0 and r.stdout.startswith("VALID"), r.stdout + r.stderr
        assert "left: Ann left the table at entry %d" % t.gone[0][0] in r.stdout, r.stdout
        assert "voted Ann out" not in r.stdout and "timed out or withheld" not in r.stdout
    finally:
        ann.close()
        for b in bots:
            if b.poll() is None:
                b.kill()
                b.wait(timeout=10)


def test_a_resumed_seat_alone_says_where_it_stands_and_exits_leaving_a_valid_unfinished_log(tmp_path, monkeypatch):
    """Issue 23 item 5: a seat killed mid-game and resumed after the others finished and left printed
    nothing and waited until killed. Now, alone, it says whom it waits for, that they may have finished
    and how to get their log (after ALONE_SAY), and exits (after ALONE_GIVE_UP), headless or on a screen.
    The patiences are set shorter (EASEL_ALONE_PATIENCE, cli/resuming.py alone_patience), not waited out."""
    import signal

    from cli.resuming import ALONE_ENV

    ALONE_SAY, ALONE_GIVE_UP = 1, 3         # three distinct numbers in the words: 1 s, 2 s left, 3 s
    monkeypatch.setenv(ALONE_ENV, "%d,%d" % (ALONE_SAY, ALONE_GIVE_UP))

    homes = [tmp_path / ("seat-%d" % k) for k in range(3)]
    port = free_ports(1)[0]
    host = spawn_easel(["host", "--game", "painting", "--players", "3", "--port", str(port), "--auto", "random",
                        "--bind", "127.0.0.1", "--no-advertise", "--timeout", "2", "--option", "rounds=1", "--name", "Ann"], homes[0])
    bots = [spawn_easel(["bot", "--join", "127.0.0.1:%d" % port, "--level", "random", "--name", name], homes[k])
            for k, name in ((1, "Bo"), (2, "Cy"))]
    procs = [host] + bots
    try:
        # Bo is killed as soon as its game starts (no word: the others time it out and finish without it; one
        # round is enough for that, and each step Bo misses costs the table its 2 s time-out)
        assert wait_for(lambda: logs_under(homes[1]) and (logs_under(homes[1])[0].parent / "roster").exists(), timeout=60,
                        interval=0.002), "Bo's game never started"
        bots[0].send_signal(signal.SIGKILL)
        bots[0].wait(timeout=10)
        for p in (host, bots[1]):
            p.communicate(timeout=120)
            assert p.returncode == 0
        log = logs_under(homes[1])[0]
        before = log.read_bytes()
        r = easel("audit", "--json", log)
        assert json.loads(r.stdout)["complete"] is False, "Bo's game had ended before it was killed"
        game_dir = log.parent

        # headless (easel resume --level): the words on standard error, then the end of the process
        t0 = time.monotonic()
        p = spawn_easel(["resume", str(game_dir), "--level", "random"], homes[1])
        procs.append(p)
        out, err = p.communicate(timeout=ALONE_GIVE_UP + 60)
        took = time.monotonic() - t0
        err = err.decode(errors="replace")
        assert took >= ALONE_GIVE_UP - 1 and p.returncode != 0 and json.loads(out.decode())["over"] is False, err
        lines = err.splitlines()
        at = [i for i, line in enumerate(lines) if line.startswith("easel: no other seat has answered")]
        assert len(at) == 2, err
        first, last = ("\n".join(lines[i:i + 4]) for i in at)
        # four short lines, the game by its short id (issue 29: nine lines with two 64-character paths)
        from cli.history import SHORT_ID

        gid = game_dir.name[:SHORT_ID]                 # the only game of Bo's home
        for words in ("no other seat has answered for %d s: alone at this table, waiting for Ann, Cy" % ALONE_SAY,
                      "they may have finished and left", "your log stops unfinished after",
                      "easel watch %s while one plays" % gid, "easel replay %s on theirs" % gid,
                      "easel resume %s tries again" % gid):
            assert words in first and words.replace("%d s" % ALONE_SAY, "%d s" % ALONE_GIVE_UP) in last, (words, first, last)
        assert "gives up in %d s" % (ALONE_GIVE_UP - ALONE_SAY) in first and "gave up" in last
        assert game_dir.name not in first + last and all(len(line) <= 100 for line in (first + "\n" + last).splitlines())
        # its log is as it was: valid, unfinished
        assert log.read_bytes()[:len(before)] == before
        r = easel("audit", "--json", log)
        rep = json.loads(r.stdout)
        assert rep["valid"] is True and rep["complete"] is False and r.returncode == 1

        # a person (easel resume on a screen): the words on the screen, then the screen closes by itself
        t0 = time.monotonic()
        person = Terminal(["resume", str(game_dir)], homes[1])
        try:
            rc = person.proc.wait(timeout=ALONE_GIVE_UP + 60)
            took = time.monotonic() - t0
        finally:
            person.close()
        text = person.out.decode(errors="replace")
        assert rc == 130 and took >= ALONE_GIVE_UP - 1, text[-2000:]
        assert "gave up" in person.stderr() and "alone at this table" in person.stderr()
        # its exit: four lines, each within the 100-column terminal, then the one that says how to continue
        said = [line for line in person.stderr().splitlines() if line.startswith("easel: ")][-4:]
        assert said[0].startswith("easel: no other seat has answered") and said[-1].startswith("easel: gave up"), said
        assert "tries again" not in said[-1] and all(len(line) <= 100 for line in said), said
        assert "you left an unfinished game" in text and "the other seats were told" not in text
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=10)


def test_a_headless_host_hung_up_in_round_2_leaves_and_its_bot_and_a_joiner_finish_ranked(tmp_path):
    """Real processes on loopback (issue 29): `easel host --game modern-art --players 3 --bots 1` (its seat
    played by a bot, headless) and a bot another machine started (`easel bot --join`); the host's process
    is hung up (SIGHUP: the path q takes) in round 2. Its leave is placed, its bot and the joiner play on
    (round 3's and 4's deals take its shares from the secret its leave published) and finish with the same
    log, which the audit reads VALID, the leave named; the host is ranked after the seats that stayed."""
    import signal

    port = free_ports(1)[0]
    homes = {name: tmp_path / name for name in ("ann", "cy")}
    for h in homes.values():
        h.mkdir()
    host = spawn_easel(["host", "--game", "modern-art", "--players", "3", "--bots", "1", "--auto", "easy",
                        "--port", str(port), "--bind", "127.0.0.1", "--no-advertise", "--timeout", str(TABLE),
                        "--name", "Ann"], homes["ann"])
    cy = spawn_easel(["bot", "--join", "127.0.0.1:%d" % port, "--level", "easy", "--name", "Cy"], homes["cy"])
    try:
        follow = LogFollower(homes["cy"])
        assert wait_for(lambda: (lambda t: t is not None and getattr(t.state, "ms", None) is not None
                                 and t.state.ms.round >= 2)(follow.poll()), timeout=120, interval=0.02), \
            "the game never reached round 2"
        t = follow.table
        ann = t.genesis.doc["names"].index("Ann")
        assert not t.over and ann not in t.gone
        host.send_signal(signal.SIGHUP)
        host.communicate(timeout=60)
        so, se = cy.communicate(timeout=200)
        assert cy.returncode == 0 and json.loads(so.decode().strip().splitlines()[-1])["over"], se.decode()[-2000:]
        t = follow.poll()
        assert t is not None and t.over and ann in t.gone, t.gone
        assert not [ph for ph, seats in t.timeouts.items() if ann in seats and ph >= t.gone[ann][1]]
        res = t.result()
        assert res["status"] == "complete" and res["ranking"][-1] == ann and res["rounds"] == 4, res
        logs = [lg for lg in sorted(tmp_path.rglob("games/*/log")) if lg.read_bytes() == logs_under(homes["cy"])[0].read_bytes()]
        assert len(logs) >= 2, "the host's bot and the joiner do not hold the same log"
        r = easel("audit", logs_under(homes["cy"])[0])
        assert r.returncode == 0 and r.stdout.startswith("VALID"), r.stdout + r.stderr
        assert "left: Ann left the table at entry %d" % t.gone[ann][0] in r.stdout, r.stdout
    finally:
        for p in (host, cy):
            if p.poll() is None:
                p.kill()
                p.wait(timeout=10)
