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
