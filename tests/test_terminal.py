"""What the terminal shows is what the screen drew: the real GameUI writing to a pseudo-terminal, its
bytes read by a small VT100 terminal (tests/vt.py) and compared, redraw after redraw, with
prompt-toolkit's own last screen.

Seen on the LAN (issue 23, item 7): at 120x40 the bottom pane showed a waiting line, or the whole
3-line prompt, twice. prompt-toolkit draws each redraw relative to where it believes the cursor is;
a line written to the terminal under it (a Python warning, an "Exception ignored" message, a thread's
traceback: standard error is the terminal) moves the real cursor, and every later redraw lands rows
off, leaving lines twice. While the UI runs, standard error goes to the easel log instead
(cli.shell.stderr_into).
"""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import sys
import termios
import threading
import time
from dataclasses import replace

import trio
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

import cli.shell as shell
from cli.screens.modern_art import ModernArtScreen
from cli.shell import GameUI

from .test_modern_art_screen import ME, OFFLINE as GAME, act, cid, play, snap_for, start   # the rules alone: a bare state
from .test_ui import _screen, running, until
from .vt import Terminal

ENTER = "\r"
ROWS, COLS = 40, 120


def test_the_small_terminal_wraps_scrolls_and_erases_as_a_terminal_does():
    t = Terminal(3, 5)
    t.feed("abcdefg\r\nxy\x1b[1;1Hq\x1b[2;2H\x1b[K")
    assert t.lines() == ["qbcde", "f", "xy"]
    t.feed("\x1b[3;1H12345\n")                       # the last column, then a line feed: it scrolls
    assert t.lines() == ["f", "12345", ""]
    t.feed("\x1b[?7l\x1b[1;1Habcdefgh\x1b[?7h")    # no autowrap: the last column is overwritten
    assert t.lines() == ["abcdh", "12345", ""]


class Pty:
    """A pseudo-terminal of ROWSxCOLS: the UI writes to its slave, a thread reads the master."""

    def __init__(self) -> None:
        self.master, self.slave = pty.openpty()
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        self.term = Terminal(ROWS, COLS)
        self.lock = threading.Lock()
        self.chunks: list[bytes] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            with self.lock:
                self.chunks.append(data)

    def shown(self) -> list[str]:
        with self.lock:
            data, self.chunks = b"".join(self.chunks), []
        self.term.feed(data)
        return self.term.lines()

    def close(self) -> None:
        os.close(self.slave)
        os.close(self.master)


async def test_at_120x40_the_terminal_shows_what_the_screen_drew_even_with_a_stray_line_on_stderr(tmp_path):
    term = Pty()
    out_file = os.fdopen(os.dup(term.slave), "w", encoding="utf-8")
    out = Vt100_Output(out_file, lambda: Size(rows=ROWS, columns=COLS), term="xterm")
    saved = os.dup(2)
    os.dup2(term.slave, 2)                       # standard error is the terminal, as in a person's shell
    log = tmp_path / "easel.log"
    try:
        st = play(start(), 0, cid(ME, "open"))
        snap = snap_for(st, 2)
        with trio.fail_after(120), create_pipe_input() as inp:
            ui = GameUI(2, input=inp, output=out, screen=ModernArtScreen())
            ui.stderr_to = log
            ui._snap = snap
            from cli.composer import Asked
            pending = Asked(seat=2, view=snap.view, game=GAME, state=st, phase=snap.phase)
            ui.composer.asked = pending
            ui.outbox.listen()      # this trio loop takes what is sent (the node's, in a game)
            said = ui.screen.on_decision(ui._ctx())
            ui._say(said.text, said.style)             # the 3-line open-auction prompt at 120 columns

            async def same() -> list[str]:
                """Wait (bounded) until the terminal shows what prompt-toolkit drew; return it."""
                try:     # bounded, and long: a loaded machine may take seconds to draw (CI's often is)
                    with trio.fail_after(25):
                        await until(lambda: _screen(ui, ROWS, COLS) and term.shown() == _screen(ui, ROWS, COLS))
                except trio.TooSlowError:
                    pass
                shown, drawn = term.shown(), _screen(ui, ROWS, COLS)
                assert shown == drawn, "\n".join("%-3s%s\n   %s" % (r, a, b) for r, (a, b) in enumerate(zip(shown, drawn))
                                                 if a != b)
                return shown

            async with running(ui):
                first = await same()
                assert sum("Open auction for MeO" in l for l in first) == 1
                # a stray line under the screen: a thread's traceback, a warning (three lines in all)
                os.write(2, b"Exception ignored in: <function X.__del__>\nTraceback (most recent call last):\n")
                print("RuntimeWarning: coroutine was never awaited", file=sys.__stderr__, flush=True)
                inp.send_text("bid 12" + ENTER)          # the draft: the message changes height
                await until(lambda: any("Draft: " in l for l in _screen(ui, ROWS, COLS)))
                await same()
                inp.send_text(ENTER)                     # sent
                await until(lambda: pending.submitted)
                await same()
                # the table moves on: a waiting line where the decision was, 1-line panes where there were 3
                nxt = act(act(act(act(st, 0, {"do": "bid", "amount": 6}), 1, {"do": "pass"}),
                              2, {"do": "bid", "amount": 12}), 3, {"do": "pass"})
                ui._snap = replace(snap_for(nxt, 2, phase=7), missing=(0,))
                ui._invalidate()
                await until(lambda: any("waiting for" in l for l in _screen(ui, ROWS, COLS)))
                shown = await same()
                for line in shown[-8:]:                  # nothing in the bottom pane twice
                    assert not line.strip() or shown[-8:].count(line) == 1, line
                ui.exit()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        out_file.close()
        term.close()
    text = log.read_text()
    assert "Exception ignored in" in text and "coroutine was never awaited" in text      # kept, not lost


def test_standard_error_comes_back_to_the_terminal_even_when_the_ui_was_abandoned(tmp_path):
    """An interrupt that abandons the run can skip the context's exit: the CLI's way out
    (cli.main: "easel: interrupted") puts standard error back on the terminal first."""
    from cli.main import _stderr_back

    term = Pty()
    saved = os.dup(2)
    os.dup2(term.slave, 2)
    try:
        held = shell.stderr_into(tmp_path / "easel.log")
        held.__enter__()                              # ... and never left
        os.write(2, b"to the log\n")
        _stderr_back()
        os.write(2, b"easel: interrupted\r\n")
        deadline = time.monotonic() + 5              # bounded: the reader thread takes the bytes
        while "easel: interrupted" not in "\n".join(term.shown()) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert "easel: interrupted" in "\n".join(term.term.lines())
        assert "to the log" not in "\n".join(term.term.lines())
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        term.close()
    assert (tmp_path / "easel.log").read_text() == "to the log\n"
