"""Leaving with real processes on loopback (protocol.md §9.7, §13.1; issue 23): a person who quits with q
in the middle of a Modern Art open auction costs the table a round trip per step, not the round's 20 s
or the table's 300 s; a resumed seat that no one answers says where it stands and exits."""

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


def test_a_person_who_quits_in_an_open_auction_costs_the_table_a_round_trip_per_step(tmp_path):
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

        # the table moves on: every step that expects Ann closes with a certificate at once (a round
        # trip), the open round she left included, and the game ends well inside one table time-out.
        # Bo's log is read every 50 ms: a step first seen open (or closed) at a read opened after the
        # read before, so "closed at the read that saw it minus that earlier read" bounds its time.
        bo = LogFollower(homes["bo"])
        opened: dict = {}
        took: dict = {}
        before = quit_at
        end = time.monotonic() + 200
        t = None
        while time.monotonic() < end:
            t = bo.poll()
            now = time.monotonic()
            if t is not None:
                for phase, seats in t.timeouts.items():
                    if phase >= quit_phase and phase not in took:
                        took[phase] = (now - max(opened.get(phase, before), quit_at), tuple(seats))
                if t.step is not None:
                    opened.setdefault(t.step.phase, before)
                if t.over:
                    break
            before = now
            time.sleep(0.05)
        assert t is not None and t.over, "the game did not end within 200 s of Ann's quit"
        rc = ann.proc.wait(timeout=30)
        assert rc == 130, ann.stderr()[-2000:]
        ann.close()
        screen = ann.out.decode(errors="replace")
        assert "the other seats were told you left" in screen, screen[-1500:]
        assert quit_phase in took and len(took) >= 2, took
        for ph, (secs, seats) in took.items():
            assert seats == (0,), (ph, seats)
            assert secs < 10, "phase %d waited %.1f s for Ann, who had left" % (ph, secs)
        results = [b.communicate(timeout=60) for b in bots]
        for b, (so, se) in zip(bots, results):
            assert b.returncode == 0 and json.loads(so.decode().strip().splitlines()[-1])["over"], se.decode()[-2000:]
            # the others' screens (a bot's is its log) say who left, and accuse no one
            text = se.decode(errors="replace")
            assert "Ann left the table: their turns pass at once" in text, text[-2000:]
            assert "although" not in text
        log = logs_under(homes["bo"])[0]
        certs = [e for e in entries_of(log.read_bytes()) if isinstance(e, Timeout)]
        assert certs and all([v for v, _ in c.votes] == [1, 2] for c in certs if c.phase >= quit_phase)
        r = easel("audit", log, logs_under(homes["cy"])[0])
        assert r.returncode == 0 and r.stdout.startswith("VALID"), r.stdout + r.stderr
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

    ALONE_SAY, ALONE_GIVE_UP = 2, 5         # three distinct numbers in the words: 2 s, 3 s left, 5 s
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
        said = [line for line in err.splitlines() if line.startswith("easel: no other seat has answered")]
        assert len(said) == 2, err
        first, last = said
        for words in ("no other seat has answered for %d s: you are alone at this table, waiting for Ann, Cy" % ALONE_SAY,
                      "They may have finished the game and left", "Your log stops after",
                      "`easel watch %s`" % game_dir, "games/%s/log" % game_dir.name, "`easel resume %s` tries again" % game_dir):
            assert words in first and words.replace("%d s" % ALONE_SAY, "%d s" % ALONE_GIVE_UP) in last, (words, first, last)
        assert "gives up in %d s" % (ALONE_GIVE_UP - ALONE_SAY) in first and "Gave up" in last
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
        assert "Gave up" in person.stderr() and "you are alone at this table" in person.stderr()
        assert "you left an unfinished game" in text and "the other seats were told" not in text
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=10)
