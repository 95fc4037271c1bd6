"""The game-agnostic terminal UI shell (prompt-toolkit, full screen).

Everything here serves every game; what one game shows and understands is
its *screen* (cli/screens/, protocol in cli/screens/__init__.py).

The network node runs in trio on the main thread; prompt-toolkit is asyncio
based, so each UI runs its ``Application`` in a worker thread with its own
asyncio loop (``trio.to_thread.run_sync`` -> ``asyncio.run``).  The two sides
only meet in a few places:

* trio -> UI: ``GameUI.update`` builds an immutable ``Snapshot`` of the table
  (in the trio thread, where the table lives), swaps it in with one attribute
  store and calls ``app.invalidate()``, which is thread safe.  The UI thread
  only ever reads snapshots and immutable game states.
* UI -> trio: a submitted action is handed back with
  ``trio_token.run_sync_soon`` (non-blocking), which sets the ``trio.Event``
  that ``GameUI.decide`` is waiting on.
* quitting from trio (cancellation, ``exit()``): ``loop.call_soon_threadsafe``
  into the UI loop.

``decide(decision)`` (a ``p2p.node.Decision``) is called by the node each time our seat must
act: once a round in one game, many times a day in another.  Every call is
one action; the shell never assumes one decision per round and never resets
the screen's draft (the screen does, when its game needs it).

One way to play every game: each command edits the draft shown under the
board (a screen's own draft, or a complete move a command composed, which the
shell holds), and Enter on an empty line (or ``send``) sends it; with
``send_at_once`` (``--send-at-once``, ``EASEL_SEND_AT_ONCE=1``) a complete move
goes out as soon as it is typed.

Shell commands (the screen adds its own, see its help page):

    submit, send  (or Enter on an empty line)    send the draft
    help  (or ? on an empty line)          the help page in the middle pane
Keys: q (on an empty line), Ctrl-Q or Ctrl-C quit (mid-game they ask once more);
at game over a seat's ``a`` (on an empty line, or the command ``again``) asks for
a rematch: the UI closes with ``again`` set and ``game_dir`` (given by the
node's runner) naming the finished game, and the runner (cli/live.py) then does
what ``easel again GAME_DIR`` does, the new game opening in the same terminal;
its ``n`` (or ``no``) says no to the rematch instead: the UI closes with
``decline`` set and the runner tells the rematch lobby (``easel again --decline``);
Esc closes the help; Space (on an empty line) or Esc skips a reveal; PgUp/PgDn scroll the middle pane; Up/Down recall earlier commands.
Esc is bound eagerly: it is never read as the start of a Meta key, which
would swallow the next letter typed within a second.

Warnings: one line above the prompt says what the next step costs our seat
if nothing changes, from the game's own pure ``warnings(view, seat)`` hook
(core/games/<game>/warnings.py, set on the game object), or that our
decision times out in 10 s or less.

The status line shows an estimate of the time left on our decision: the node
hands ``decide`` a typed ``p2p.node.Decision`` whose ``deadline`` is the peer's
step clock (or, before that clock has seen the step, now plus the step's own
time); the shell never probes the peer itself.

The reveal: when moves are applied, the screen's ``beats`` are played at the
UI's pace (a trio timer repaints at each beat); Space on an empty line or Esc
skips them.  Pace 0 (tests, pipes) plays nothing.  While they play, the title,
board, seats, middle pane and event log show the table as it was before the
step they reveal (its results show once the beats end or are skipped, or
from a beat marked ``Beat.after`` on); a prompt that tells how the step went
waits for the end too, and an open decision's draft shows once the player
types.  A newer step's reveal replaces one still playing (cli/reveal.py: the
reel and its rules), so nothing of an earlier step plays after a later one.

Legality: a game with seat secrets (core/engine.py, "Private information")
may need what only our peer can add before an action is legal (Modern Art: a
card play's proof).  The UI knows our seat's secret from the table
(``Table.secrets``, where the peer keeps it) and checks every action as the
peer will send it: through the game's ``seal_action`` first (``seal``).

Replay keys: Right/Left (l/h, also Space/Enter and Backspace) one entry;
Down/Up (n/p) to the next/previous mark (by default an entry that applied
moves: a step closed; a screen may choose coarser marks); Home/End (g/G)
first/last entry; PgUp/PgDn scroll; ? help; q, Ctrl-Q, Ctrl-C quit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

import trio
from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import (
    BufferControl,
    FormattedTextControl,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.dimension import Dimension as D
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.styles import DynamicStyle, Style

import core.games as registry
from core.engine import IllegalAction
from core.events import parse_entry
from core.table import RuleError, Table

from .reveal import Reel, Reeled
from .screens import (
    Beat,
    CommandError,
    Context,
    Line,
    Say,
    Screen,
    Send,
    Sent,
    Snapshot,
    join,
    plain_label,
    screen_for,
    who,
    width_of,
    with_names,
    wrap,
)
from .snapshot import (  # noqa: F401 - re-exported: callers import them from here
    LOG_KEEP,
    _PLACEHOLDER,
    _effect,
    _named,
    _without_seat,
    certificate_lines,
    _seats_lines,
    _title_text,
    describe_entry,
    genesis_words,
    seat_status,
    snapshot_of,
    step_status,
)

__all__ = [
    "GameUI",
    "ReplayUI",
    "Snapshot",
    "snapshot_of",
    "CommandError",
    "problems",
    "check",
    "legal_actions",
    "seal",
    "HELP_SPECTATOR",
    "HELP_GAME_OVER",
]

PACE = 0.8              # seconds a reveal beat shows, on a terminal (EASEL_PACE overrides; 0 = instant)
LOG_TEXT_LINES = 20     # event-log lines in render_text()
TEXT_WIDTH = 100        # width used to lay out the panes in render_text()
LATEST_LINES = 3        # newest event-log lines repeated at the top of a short middle pane
WARN_TIMEOUT = 10       # seconds left on our decision from which the warning line says so
WARN_LINES = 2          # lines the warning may take (wrapped) before it is cut
COARSE_FROM = 60        # seconds left from which the countdown says whole minutes (it changes once a minute)

HELP_GAME_OVER = "game over | a again (rematch) | n no rematch | help | PgUp/PgDn scroll | q quit"
HELP_SPECTATOR = "spectating | help | PgUp/PgDn scroll | q / Ctrl-Q quit"
LONG_HELP = "help shown above (help, ? or Esc closes it; PgUp/PgDn scrolls it)"

_SHELL_HELP = [
    ("help, ?", "show or hide this page (Esc hides it too)"),
    ("q, Ctrl-Q", "quit (q on an empty line); PgUp/PgDn scroll the middle pane; Up/Down recall commands"),
    ("Space, Esc", "skip the reveal of what just happened (Space on an empty line)"),
    ("a, again", "at game over: play again with the same seats, names, game and options (a rematch, as "
                 "easel again GAME_DIR does), in this terminal"),
    ("n, no", "at game over: say no to the rematch, so the others do not wait for you (as easel again "
              "--decline GAME_DIR does), then quit"),
]
_AGAIN_WORDS = ("a", "again")
_DECLINE_WORDS = ("n", "no")
_SUBMIT_WORDS = ("submit", "send", "ok", "go")
_HELP_WORDS = ("help", "h", "?")
_QUIT_WORDS = ("q", "quit", "exit")

STYLE = {
    "title": "reverse bold",
    "header": "bold underline",
    "label": "fg:ansibrightblack",
    "you": "bold fg:ansicyan",
    "waiting": "fg:ansiyellow",
    "yourmove": "reverse bold fg:ansigreen",
    "sent": "fg:ansigreen",
    "error": "bold fg:ansired",
    "info": "fg:ansigreen",
    "help": "reverse",
    "over": "bold fg:ansired",
    "log.mine": "fg:ansicyan",
    "log.note": "fg:ansiyellow",
    "alert": "bold fg:ansired",
    "prompt": "bold",
    "reveal": "reverse bold fg:ansimagenta",
    "reveal.caption": "bold",
}

log = logging.getLogger("easel.ui")


# --------------------------------------------------------------------------- the terminal is ours


@contextlib.contextmanager
def stderr_into(path: Any):
    """While the full-screen UI runs, whatever is written to standard error (a Python warning, an
    "Exception ignored in" message, a thread's traceback, a library's own print) goes to the file
    ``path`` (the easel log) instead of the terminal. Such a line moves the terminal's cursor under
    prompt-toolkit, which draws each redraw relative to where it believes the cursor is: every later
    redraw then lands rows off and leaves lines twice (issue 23: "the bottom pane repeats lines").
    Nothing changes when ``path`` is None or standard error is not a terminal."""
    try:
        active = path is not None and os.isatty(2)
    except (OSError, ValueError):
        active = False
    if not active:
        yield
        return
    try:
        sys.stderr.flush()
        saved = os.dup(2)
        fd = os.open(str(path), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except (OSError, ValueError):
        yield
        return
    _STDERR_SAVED.append(saved)
    try:
        os.dup2(fd, 2)
        os.close(fd)
        yield
    finally:
        restore_stderr()


_STDERR_SAVED: list[int] = []      # standard error as it was before stderr_into (restore_stderr)


def restore_stderr() -> None:
    """Standard error back on the terminal, if stderr_into still holds it (also from the CLI's own way out:
    an interrupt that abandons the run may skip the context's exit)."""
    while _STDERR_SAVED:
        saved = _STDERR_SAVED.pop()
        try:
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        try:
            os.dup2(saved, 2)
            os.close(saved)
        except OSError:
            pass


# --------------------------------------------------------------------------- legality, from the game


def seal(game: Any, state: Any, seat: int | None, action: Any, secret: bytes | None) -> Any:
    """``action`` as our peer will send it: through the game's ``seal_action`` with our seat's secret
    (a game with seat secrets attaches there what only that seat can give, e.g. the proof that a
    played card is the one at its deck position).  Unchanged without a secret, for a game whose hook
    keeps it (the default), or when the hook fails (then the game's check says what is wrong);
    an IllegalAction from the hook (what only our secret can tell: Modern Art's claimed card that is
    not at its position) goes to the caller, as the peer's ``act`` would raise it."""
    if secret is None or game is None or seat is None:
        return action
    try:
        return game.seal_action(state, seat, action, secret)
    except IllegalAction:
        raise
    except Exception:
        return action


def problems(game: Any, state: Any, seat: int, action: Any, secret: bytes | None = None) -> list[str]:
    """Every problem the game finds with ``action`` for ``seat`` ([] = legal).

    The one place the UI asks about legality: the game's ``problems`` hook
    (core/engine.py; by default ``check``'s reason).  With ``secret`` (our
    seat's secret, a game with seat secrets) the action is checked as the
    peer will send it: sealed first (``seal``).
    """
    try:
        action = seal(game, state, seat, action, secret)
        return [str(p) for p in game.problems(state, seat, action)]
    except IllegalAction as exc:
        return [str(exc)]
    except Exception as exc:  # never let a rules hook crash the UI
        return ["cannot check this action (%s)" % type(exc).__name__]


def check(game: Any, state: Any, seat: int, action: Any, secret: bytes | None = None) -> Any:
    """The normalised action (sealed first with ``secret``, see ``problems``), or IllegalAction saying why not."""
    try:
        action = seal(game, state, seat, action, secret)
        return game.check(state, seat, action)
    except IllegalAction:
        raise
    except Exception as exc:
        raise IllegalAction("malformed action (%s)" % type(exc).__name__) from None


def legal_actions(game: Any, state: Any, seat: int, secret: bytes | None = None) -> list | None:
    """The game's legal actions for ``seat`` (with our seat's ``secret``: as the game lists them for
    that seat), or None if the game's hook fails."""
    try:
        out = game.legal_actions(state, seat, secret)
    except Exception:
        return None
    return None if out is None else list(out)


def secret_of(table: Any, seat: int | None) -> bytes | None:
    """Our seat's secret as the local peer keeps it for its table (``Table.secrets``), or None."""
    secrets = getattr(table, "secrets", None)
    if seat is None or not isinstance(secrets, dict):
        return None
    sec = secrets.get(seat)
    return sec if isinstance(sec, bytes) else None


# --------------------------------------------------------------------------- base


class _BaseUI:
    """The shared panes, the worker-thread runner and the quit plumbing."""

    seat: int | None

    def __init__(self, seat: int | None, title: str, screen: Screen | None = None, key: str | None = None) -> None:
        self.seat = seat
        self.title = title
        self.key = key
        self.screen: Screen | None = screen
        self._snap: Snapshot | None = None
        self._scroll = 0
        self._scroll_info = (0, 20, 0)     # (top, height, total) of the middle pane
        self._middle_window: Window | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._quit = False          # quit requested (any thread)
        self._closed = False        # the UI thread has finished
        self._app: Application | None = None
        self._help_shown = False    # the middle pane shows the help page
        self._style = self._make_style()
        self.pace = 0.0             # seconds a reveal beat shows (0: beats are not played)
        self.reel = Reel()          # the beats to play, one after the other (cli/reveal.py)
        self._reel_wake = trio.Event()
        self._beats_failed = False  # a screen's beats raised once (logged once)
        self.stderr_to: Any = None  # while the UI runs on the terminal, standard error goes to this file (stderr_into)

    # -- the screen --------------------------------------------------------------
    def _screen(self) -> Screen:
        return self.screen or _PLACEHOLDER

    def _use_screen_for(self, game_name: str) -> None:
        if self.screen is None:
            self.screen = screen_for(game_name)
            self._style = self._make_style()

    def _make_style(self) -> Style:
        extra = dict(self.screen.styles) if self.screen is not None else {}
        return Style.from_dict({**STYLE, **extra})

    def _ctx(self) -> Context:
        snap = self._snap
        return Context(
            seat=self.seat,
            snap=snap,
            view=snap.view if snap else None,
            game=snap.game if snap else None,
            state=snap.state if snap else None,
        )

    # -- what the panes show: the table now, or as it was while a reveal plays ---------
    def _shown(self) -> Snapshot | None:
        """The snapshot the panes show: while a beat plays, the table as it was before the step
        the beat reveals (so no result shows before its beat); else the latest."""
        return self.reel.shown(self._snap)

    def _past_ctx(self, snap: Snapshot) -> Context:
        """A context for rendering ``snap`` (an earlier snapshot) while a reveal plays."""
        return Context(seat=self.seat, snap=snap, view=snap.view, game=snap.game, state=snap.state, reveal=True)

    def _view_ctx(self) -> Context:
        """The context the panes are drawn from (``_ctx`` unless a reveal plays, see ``_shown``);
        commands, decisions and the draft always use ``_ctx``."""
        shown = self._shown()
        if shown is None or shown is self._snap:
            return self._ctx()
        return self._past_ctx(shown)

    # -- panes (fragment lists) ------------------------------------------------
    def _cols(self) -> int:
        app = self._app
        try:
            if app is not None and app.is_running:
                return max(30, app.output.get_size().columns - 1)
        except Exception:
            pass
        return TEXT_WIDTH

    def _pane_title(self) -> list:
        ctx = self._view_ctx()
        text = _title_text(self.title, ctx.snap, self._screen(), ctx, self.key)
        cols = self._cols()
        if self.key and len(text) > cols:
            # a narrow terminal: the status matters more than the key (help shows it)
            text = _title_text(self.title, ctx.snap, self._screen(), ctx, None)
        if len(text) > cols and ctx.snap is not None and ctx.snap.over and ctx.snap.status:
            # at game over the key line says what the status says (a again, n no, q quits): drop it first
            text = _title_text(self.title, replace(ctx.snap, status=""), self._screen(), ctx, None)
        if len(text) > cols and self.title in ("Easel", "Easel - watching") and ctx.snap is not None \
                and ctx.snap.game_title:
            # then the plain "Easel - " before the game's name (never a warning such as UNSAFE SEED)
            text = _title_text(ctx.snap.game_title, ctx.snap, self._screen(), ctx, None)
        if len(text) > cols + 1:
            text = text[:cols] + "…"       # a cut that shows
        return [("class:title", text)]

    def _pane_board(self) -> list:
        now = self._beat_now()
        if now is not None and now.beat.board is not None:
            return join(now.beat.board)
        return join(self._screen().board_lines(self._view_ctx()))

    # -- the reveal: beats played one after the other (cli/reveal.py) ----------------
    @property
    def _reel(self) -> tuple:
        return self.reel.items

    @property
    def _reveals(self) -> int:
        return self.reel.reveals

    def _beat_now(self) -> Reeled | None:
        """The beat showing now, or None (any thread: it only reads the reel)."""
        return self.reel.now()

    def _queue_beats(self, beats: Sequence[Beat], before: Snapshot | None = None,
                     after: Snapshot | None = None) -> None:
        """Play ``beats`` (what the step after ``before`` revealed) instead of any older reveal (trio thread)."""
        if self.reel.queue(beats, self.pace, before, after):
            self._reel_wake.set()

    def skip_beats(self) -> bool:
        """Stop the reveal (Space or Esc); True if one was playing (any thread)."""
        playing = self.reel.skip()
        self._invalidate()
        return playing

    @property
    def revealing(self) -> bool:
        return self._beat_now() is not None

    async def _countdown_clock(self) -> None:
        """Repaint when something the clock alone changes is shown differently (trio); nothing here."""

    async def _beat_clock(self) -> None:
        """Repaint at each beat's start and end (trio)."""
        while True:
            self._reel_wake = trio.Event()
            times = self.reel.times()
            if times:
                with trio.move_on_after(min(times) - time.monotonic() + 0.01):
                    await self._reel_wake.wait()
            else:
                await self._reel_wake.wait()
            self.reel.tidy()
            self._invalidate()

    def _beat_lines(self, width: int) -> list[Line]:
        snap = self._snap
        return _named(self.reel.lines(width), snap.names if snap is not None else ())

    def _pane_seats(self) -> list:
        ctx = self._view_ctx()
        return join(_seats_lines(ctx.snap, self._screen(), ctx)) if ctx.snap else [("class:label", "(no table yet)")]

    def _log_lines(self) -> list[Line]:
        """Newest first: alerts (the latest), then the described moves and the table's notes (as shown)."""
        snap, shown = self._snap, self._shown()
        lines: list[Line] = []
        if snap is not None:
            lines += [[("class:alert", "!!  " + a)] for a in reversed(snap.alerts)]
        if shown is not None:
            lines += [[(style, text)] for style, text in reversed(shown.log)]
        return lines

    def _middle_lines(self, width: int, log_limit: int | None = None, height: int | None = None) -> list[Line]:
        """The scrollable middle: the result, the screen's part, the event log (or the help page).

        ``height``: the pane's height; when the event log starts below it (a short terminal), its
        newest lines are shown at the top too, so nobody needs PgDn to see what just happened."""
        if self._help_shown:
            return self._help_lines(width)
        ctx = self._view_ctx()
        screen = self._screen()
        lines: list[Line] = self._beat_lines(width)
        names = ctx.snap.names if ctx.snap is not None else ()
        if ctx.result:
            over = _named(screen.game_over_lines(ctx, width), names)
            if over:
                lines += over + [[]]
            certs = _named(certificate_lines(ctx.snap, width), names)
            if certs:
                lines += certs + [[]]
        body = screen.middle_lines(ctx, width)
        if getattr(screen, "names_in_middle", False):
            body = _named(body, names)              # else left as drawn: names would break its boxes and columns
        log = self._log_lines()
        if height is not None and log and len(lines) + len(body) + 1 >= height and height >= 8:
            latest: list[Line] = [[("class:header", "Latest"), ("class:label", " (the event log is below: PgDn)")]]
            for line in log[:LATEST_LINES]:
                rows = wrap(line, width, "      ")
                first = list(rows[0]) if rows else []
                if len(rows) > 1 and first:       # one line each: show that it goes on (in the log below)
                    style, text = first[-1]
                    first[-1] = (style, text.rstrip()[:max(0, width - width_of(first[:-1]) - 4)] + " ...")
                latest.append(first)
            lines += latest + [[]]
        lines += body
        lines.append([("class:header", "Event log"), ("class:label", " (newest first)")])
        if not log:
            lines.append([("class:label", "  nothing yet")])
        for line in log[:log_limit] if log_limit else log:
            lines += wrap(line, width, "      ")
        return lines

    def _help_lines(self, width: int) -> list[Line]:
        lines: list[Line] = [[("class:header", "Help"), ("class:label", " - %s" % self._help_closing())], []]
        for head, rows in self._help_sections():
            if not rows:
                continue
            lines.append([("class:header", head)])
            key_w = max(len(k) for k, _ in rows) + 2
            for key, text in rows:
                lines += wrap([("bold", "  " + key.ljust(key_w)), ("", text)], width, " " * (key_w + 2))
            lines.append([])
        return lines

    def _help_closing(self) -> str:
        return "help, ? or Esc closes it; PgUp/PgDn scrolls"

    def _help_sections(self) -> list:
        ctx = self._ctx()
        screen = self._screen()
        return [("Commands", list(screen.command_help(ctx)) + self._shell_help())] + list(screen.rules_help(ctx))

    def _shell_help(self) -> list:
        return list(_SHELL_HELP)

    def _toggle_help(self, show: bool | None = None) -> None:
        new = (not self._help_shown) if show is None else show
        if new != self._help_shown:
            self._help_shown = new
            self._scroll = 0

    def _pane_middle(self) -> list:
        info = self._middle_window.render_info
        height = info.window_height if info is not None else 20
        lines = self._middle_lines(self._cols(), height=height)
        self._scroll = max(0, min(self._scroll, len(lines) - height))
        self._scroll_info = (self._scroll, height, len(lines))
        return join(lines[self._scroll:])

    def _pane_scrollbar(self) -> list:
        top, height, total = self._scroll_info
        width = self._cols() + 1
        if total <= height:
            text = ""
        else:
            text = "-- lines %d-%d of %d%s (PgUp/PgDn) " % (
                top + 1, min(total, top + height), total, ", more below" if top + height < total else "")
        return [("class:label", (text + "-" * width)[:width])]

    def _scroll_by(self, lines: int) -> None:
        self._scroll = max(0, self._scroll + lines)

    def _top_height(self) -> int:
        players = self._snap.players if self._snap else 2
        beats = [len(it.beat.board) for it in self._reel if it.beat.board is not None]
        return max([len(self._screen().board_lines(self._view_ctx())), players + 2, 3] + beats)

    def _main_windows(self) -> list:
        def ftc(get: Callable[[], list]) -> FormattedTextControl:
            return FormattedTextControl(get, focusable=False, show_cursor=False)

        board_width = lambda: self._screen().board_width  # noqa: E731
        top = VSplit(
            [
                Window(ftc(self._pane_board), width=lambda: D.exact(board_width())),
                Window(width=lambda: D.exact(2 if board_width() else 0)),
                Window(ftc(self._pane_seats)),
            ],
            height=lambda: D.exact(self._top_height()),
        )
        self._middle_window = Window(ftc(self._pane_middle), height=D(min=1, weight=1))
        return [
            Window(ftc(self._pane_title), height=1, style="class:title"),
            top,
            self._middle_window,
            Window(ftc(self._pane_scrollbar), height=1, wrap_lines=False),
        ]

    def _main_text(self) -> str:
        parts = [
            self._pane_title(),
            self._pane_board(),
            self._pane_seats(),
            join(self._middle_lines(TEXT_WIDTH, LOG_TEXT_LINES)),
        ]
        return "\n".join(fragment_list_to_text(p).rstrip("\n") for p in parts if p) + "\n"

    def _common_bindings(self, kb: KeyBindings) -> None:
        @kb.add("c-q", eager=True)
        @kb.add("c-c", eager=True)
        def _(event) -> None:
            self._quit_key()

        @kb.add("pageup")
        def _(event) -> None:
            self._scroll_by(-self._page())

        @kb.add("pagedown")
        def _(event) -> None:
            self._scroll_by(self._page())

    def _page(self) -> int:
        return max(1, self._scroll_info[1] - 2)

    def _make_app(self, layout: Layout, kb: KeyBindings, input, output, refresh_interval: float | None = None) -> Application:
        return Application(
            layout=layout,
            key_bindings=kb,
            style=DynamicStyle(lambda: self._style),
            full_screen=True,
            input=input,
            output=output,
            mouse_support=False,
            terminal_size_polling_interval=0.5,
            refresh_interval=refresh_interval,
        )

    # -- running -----------------------------------------------------------------
    async def run(self) -> None:
        """Run the full-screen UI in a worker thread until the user quits.

        Cancelling this task asks the UI to quit and waits for its thread.
        """
        assert self._app is not None
        if self._closed:
            return
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._exit_on_cancel)
            nursery.start_soon(self._beat_clock)
            nursery.start_soon(self._countdown_clock)
            try:
                with stderr_into(self.stderr_to):
                    await trio.to_thread.run_sync(self._thread_main)
            finally:
                nursery.cancel_scope.cancel()

    async def _exit_on_cancel(self) -> None:
        try:
            await trio.sleep_forever()
        finally:
            self.exit()

    def _thread_main(self) -> None:
        try:
            asyncio.run(self._async_main())
        finally:
            self._closed = True

    async def _async_main(self) -> None:
        self._loop = asyncio.get_running_loop()
        try:
            await self._app.run_async(
                pre_run=self._pre_run, handle_sigint=False, set_exception_handler=False
            )
        except (EOFError, KeyboardInterrupt):
            pass
        finally:
            self._loop = None

    def _pre_run(self) -> None:
        if self._quit:
            self._exit_now()

    def _quit_key(self) -> None:
        """The user asked to quit (q, Ctrl-Q, Ctrl-C); UI thread only."""
        self._exit_now()

    def _exit_now(self) -> None:
        """Quit; UI thread only."""
        self._quit = True
        app = self._app
        if app is not None and app.is_running and app.future is not None and not app.future.done():
            app.exit()

    def exit(self) -> None:
        """Ask the UI to quit; safe from any thread, before or while it runs."""
        self._quit = True
        loop = self._loop
        if loop is not None:
            try:
                loop.call_soon_threadsafe(self._exit_now)
            except RuntimeError:  # loop already closed
                pass

    def _invalidate(self) -> None:
        app = self._app
        if app is not None:
            try:
                app.invalidate()  # thread safe; a no-op when not running
            except RuntimeError:
                pass

    @property
    def closed(self) -> bool:
        """True once the UI thread has finished (the user quit)."""
        return self._closed


# --------------------------------------------------------------------------- the game UI


@dataclass(eq=False)
class _Pending:
    seat: int
    view: Any
    game: Any
    state: Any
    phase: int
    token: Any
    event: trio.Event = field(default_factory=trio.Event)
    result: Any = None
    submitted: bool = False


class GameUI(_BaseUI):
    """The live table: panes, the screen's draft, a command line; ``decide`` asks for one action.

    ``screen``: the game's screen; by default chosen from the first table's
    game name (``screen_for``).  ``key``: our key's fingerprint, for the title.
    ``pace``: seconds each beat of a reveal shows (see ``Screen.beats``); by
    default ``default_pace``: PACE (or ``EASEL_PACE``) on a real terminal, 0
    (no reveal: instant) when given an input or output or not on a TTY (tests).
    """

    def __init__(self, seat: int | None, *, title: str = "Easel", input=None, output=None,
                 screen: Screen | None = None, key: str | None = None, pace: float | None = None,
                 send_at_once: bool | None = None) -> None:
        super().__init__(seat, title, screen, key)
        self.pace = default_pace(input, output) if pace is None else max(0.0, min(10.0, float(pace)))
        # one way to play every game: a command edits the draft, Enter on an empty line sends it;
        # send_at_once (--send-at-once, EASEL_SEND_AT_ONCE=1) sends a complete move as soon as it is typed
        self.send_at_once = default_send_at_once() if send_at_once is None else bool(send_at_once)
        self._held: tuple[_Pending, Any, str] | None = None   # a complete move the screen composed, not sent yet
        self._open_hint: tuple[int | None, float] | None = None   # (table phase, wall time) a step opened, at a resume
        self._status = ""
        self._alerts: list[str] = []
        self._table: Table | None = None           # trio thread only (the UI thread reads just our seat's
                                                   # secret from it, set once and never changed: secret_of)
        self._pending: _Pending | None = None
        self.sent: Sent | None = None              # the last action we sent
        self._sent_phase = -1                      # table phase our last action was sent for
        self._message: tuple[str, str] = ("", "")  # (style, text)
        self._after_reveal: tuple[str, str] | None = None   # a message held back until the reveal ends
        self._message_at: int | None = None        # moves applied when the message was said (see _expire)
        self._notice: tuple[str, str] | None = None     # a line of its own above the message (a time-out)
        self._notice_at = -1                       # moves applied when the notice went up
        self._typed_in = -1                         # the reveal during which a command was last typed
        self._deadline: float | None = None        # time.monotonic() when our decision times out (estimate)
        self._seen_timeouts: set | None = None     # phases whose time-out we already reported
        self._over_said = False
        self._timeout_words = ""                   # our last time-out, until the next prompt shows it
        self._cut: dict = {}                       # the peer's cut_moves: our signed moves a certificate cut
        self._left_steps: dict = {}                # the peer's left_steps: time-outs of seats that said they left
        self._quit_armed = False                   # q was pressed once mid-game
        self.again = False                         # the player asked for a rematch at game over (a)
        self.decline = False                       # the player said no to the rematch at game over (n)
        self._first_table: Any = None              # trio.Event a decision waits on until the first update
        self.game_dir = None                       # the game's directory, set by the runner (for the rematch)
        self._buffer = Buffer(multiline=False, accept_handler=self._on_accept, history=InMemoryHistory())
        self._buffer.on_text_changed += self._typing

        kb = KeyBindings()
        self._common_bindings(kb)
        empty = Condition(lambda: self._buffer.text == "")

        @kb.add("q", filter=empty)
        def _(event) -> None:
            self._quit_key()

        @kb.add("?", filter=empty)
        def _(event) -> None:
            self._toggle_help()

        over = Condition(lambda: self.seat is not None and self._snap is not None and self._snap.over)

        @kb.add("a", filter=empty & over)
        def _(event) -> None:
            self._again_key()

        @kb.add("n", filter=empty & over)
        def _(event) -> None:
            self._decline_key()

        # Esc is eager and always bound: prompt-toolkit's own bindings would otherwise read it as the
        # start of a Meta key and take the next letter typed within a second with it ("bid" -> "id")
        @kb.add("escape", eager=True)
        def _(event) -> None:
            if self._help_shown:
                self._toggle_help(False)
            else:
                self.skip_beats()

        revealing = Condition(lambda: self.revealing)

        @kb.add(" ", filter=revealing & empty)
        def _(event) -> None:
            self.skip_beats()

        def ftc(get: Callable[[], list]) -> FormattedTextControl:
            return FormattedTextControl(get, focusable=False, show_cursor=False)

        self._input_window = Window(
            BufferControl(self._buffer, input_processors=[BeforeInput([("class:prompt", "> ")])]),
            height=1,
        )
        bottom = [
            Window(ftc(self._pane_status), dont_extend_height=True, wrap_lines=True, height=D(min=1)),
            Window(ftc(self._pane_draft), dont_extend_height=True, wrap_lines=True, height=D(min=1)),
            Window(ftc(self._pane_message), dont_extend_height=True, wrap_lines=True, height=D(min=1)),
            Window(ftc(self._pane_warning), dont_extend_height=True, wrap_lines=False,
                   height=D(min=0, max=WARN_LINES)),
            self._input_window,
            Window(ftc(self._pane_help), height=1, wrap_lines=False, style="class:help"),
        ]
        layout = Layout(HSplit(self._main_windows() + bottom), focused_element=self._input_window)
        # no refresh timer: the screen is drawn when something shown changes (update, a key), and
        # the countdown clock repaints when the time left, as shown, changes (once a minute, then a second)
        self._clock_wake = trio.Event()
        self._app = self._make_app(layout, kb, input, output)

    # -- trio side -------------------------------------------------------------
    def update(self, table: Table, alerts: list[str], status: str, *, waiting: Sequence[int] | None = None,
               cut: Any = None, left: Any = None) -> None:
        """The game advanced (trio thread): take a snapshot and repaint.

        ``waiting`` (optional): the seats whose event for the current step has
        not arrived yet, when the caller knows (see ``snapshot_of``).  ``cut``
        (optional): the peer's ``cut_moves``, (phase, seat) -> a signed move of that seat, fitting
        its chain, for a step a time-out certificate voted it out of (protocol.md §6.5).
        """
        if cut is not None:
            self._cut = dict(cut)
        if left is not None:
            self._left_steps = dict(left)         # (optional) the peer's left_steps (protocol.md §9.7)
        self._use_screen_for(table.genesis.doc.get("game", ""))
        if self._open_hint is not None and self._open_hint[0] is None:
            self._open_hint = (table.phase, self._open_hint[1])      # the step open when we resumed
        self._alerts = list(alerts or [])
        self._status = status or ""
        self._table = table
        if self._first_table is not None:
            self._first_table.set()     # a decision asked before the first update goes on (decide)
        before = self._snap
        self._snap = self._mine_done(snapshot_of(table, self.seat, self._alerts, self._status, waiting,
                                                 self._screen(), before=before, cut=self._cut, left_steps=self._left_steps))
        if self.pace > 0 and before is not None and self._snap.entries > before.entries:
            try:
                beats = self._screen().beats(self._ctx(), before)
            except Exception:   # a reveal is a nicety: never let it break the table (but say so, once)
                beats = []
                if not self._beats_failed:
                    self._beats_failed = True
                    log.warning("the %s screen's reveal failed; no reveal is shown for it (further failures "
                                "are not logged)", type(self._screen()).__name__, exc_info=True)
            self._queue_beats(beats or [], before, self._snap)
        self._expire()
        self._report_timeouts(table)
        p = self._pending
        if p is not None and table.phase != p.phase and not p.event.is_set():
            # the step we were asked about is gone (time-out, rollback): give up on it
            p.result = None
            p.event.set()
        if self._snap.over and not self._over_said and self.seat is not None:
            self._over_said = True
            words = self._screen().final_words(self._ctx())
            if self._timeout_words:        # on a line of its own, not glued to the final words
                self._set_notice(self._timeout_words)
            self._say_after_reveal(words, "class:over")
            self._timeout_words = ""
        self._wake_clock()
        self._invalidate()

    def tell(self, text: str) -> None:
        """A message from the runner for the bottom pane (trio thread), e.g. that no other seat answers:
        it stays until the player types or the next prompt replaces it."""
        self._say(text, "class:error")
        self._invalidate()

    def _countdown(self) -> str:
        """What the clock alone changes on the screen: the time left on our open decision, as shown."""
        d = self._deadline
        return "" if d is None or self._deciding() is None else countdown_words(d - time.monotonic())

    async def _countdown_clock(self) -> None:
        """Repaint when the time left on our decision, as shown (status line, time-out warning),
        changes; asleep while nothing counts down (woken by decide and update: a new deadline)."""
        shown = self._countdown()
        while True:
            self._clock_wake = trio.Event()
            d = self._deadline
            wait = next_change(d - time.monotonic()) if d is not None and self._deciding() is not None else None
            with trio.move_on_after(wait if wait is not None else float("inf")):
                await self._clock_wake.wait()
            now = self._countdown()
            if now != shown:
                shown = now
                self._invalidate()

    def _wake_clock(self) -> None:
        """The deadline or the decision may have changed (trio thread): the clock looks again."""
        self._clock_wake.set()

    def step_open_hint(self, wall: float) -> None:
        """At a resume: the step open when the table is first seen began about ``wall`` (time.time(), e.g.
        the log's last change), so the countdown goes on from there instead of starting over (the
        peer's own step clock only starts at the resume; the others' began with the step)."""
        self._open_hint = (None, float(wall))

    def _hinted(self, at: float | None, d: Any) -> float | None:
        """At a resume (``step_open_hint``), the step began before our peer's clock saw it: end the
        countdown that much earlier (the Decision's deadline is then now plus the step's time)."""
        h = self._open_hint
        if h is None or at is None or h[0] != d.phase:
            return at
        timeout = at - time.monotonic()          # the step's whole time: our clock only starts now
        hinted = time.monotonic() + (h[1] + timeout - time.time())
        return min(at, hinted)

    def _report_timeouts(self, table: Table) -> None:
        """Say so, once, when a time-out certificate voted our seat out: "Voted out: ..." when our peer
        holds our signed move for that step (it did not reach the voters in time, or they voted
        anyway: protocol.md §6.5), "Time ran out" only when we signed none."""
        timeouts = getattr(table, "timeouts", None) or {}
        if self._seen_timeouts is None:        # what happened before we were watching is old news
            self._seen_timeouts = set(timeouts)
            return
        for phase in sorted(set(timeouts) - self._seen_timeouts):
            self._seen_timeouts.add(phase)
            if self.seat is not None and self.seat in timeouts[phase]:
                mine = self._cut.get((phase, self.seat))
                if mine is not None:       # we did move: the others voted us out all the same
                    self._deadline = None
                    self._timeout_words = "Voted out: %s." % mine["text"]
                    self._say(self._timeout_words, "class:error")
                    continue
                label = ""
                for note in getattr(table, "notes", []):
                    if note.phase == phase and "(" in note.text:
                        label = plain_label(note.text[note.text.find("(") + 1:-1])
                self._deadline = None
                self._timeout_words = ("Time ran out%s: your move was not sent in time and counts as no move%s."
                                       % (" for %s" % label if label else "", _effect(self._screen(), label)))
                self._say(self._timeout_words, "class:error")

    async def decide(self, d: Any) -> Any:
        """Our seat must act (trio thread): let the player compose one action; return it once submitted.

        ``d`` is the node's ``Decision`` (view, seat, phase, game, state, secret, deadline): what
        the player's choice needs, never the Peer.  Called again for every action the seat takes
        (several in one round are fine).  Returns None if the step closes without us (the node
        then asks again if needed).  Once the user has quit, waits until cancelled.
        """
        if self._table is None:
            # the node may ask before it first told us the table (its decider starts with it): the
            # screen (and so the words and commands) comes from the table, so wait for it
            if self._first_table is None:
                self._first_table = trio.Event()
            await self._first_table.wait()
        if self._snap is None or self._snap.phase != self._table.phase:
            self.update(self._table, self._alerts, self._status)   # our snapshot is stale
        while self._closed or self._quit:
            await trio.sleep_forever()
        p = _Pending(seat=d.seat, view=d.view, game=d.game, state=d.state, phase=d.phase,
                     token=trio.lowlevel.current_trio_token())
        self._deadline = self._hinted(_monotonic(d.deadline), d)
        self._pending = p
        standing = self._screen().standing(self._ctx())    # the player's standing order answers: no prompt
        if standing is not None:
            try:
                self._send(standing.action)
            except CommandError as exc:
                self._say(str(exc), "class:error")
        prompt = None if p.submitted else self._screen().on_decision(self._ctx())
        if self._timeout_words:            # do not let the prompt hide that we timed out: a line of its own
            self._set_notice(self._timeout_words)
        if prompt is not None:
            self._say_after_reveal(prompt.text, prompt.style)   # it may tell what the reveal shows
        self._timeout_words = ""
        self._wake_clock()
        self._invalidate()
        try:
            await p.event.wait()
            return p.result
        finally:
            if self._pending is p:
                self._pending = None
            self._wake_clock()          # no decision, no countdown: at once, not at the clock's next tick
            self._invalidate()

    decide.takes_decision = True   # GameNode hands it a p2p.node.Decision, not the Peer

    def _resolve(self, p: _Pending, action: Any) -> None:
        # trio thread
        if not p.event.is_set():
            p.result = action
            p.event.set()
            self._sent_phase = p.phase
            if self._snap is not None:
                self._snap = self._mine_done(self._snap)
            self._wake_clock()          # no countdown now: the clock sleeps
            self._invalidate()

    def _mine_done(self, snap: Snapshot) -> Snapshot:
        """Once we have sent our action for a step, the step no longer waits for us."""
        if snap.phase == self._sent_phase and self.seat in snap.missing:
            return replace(snap, missing=tuple(s for s in snap.missing if s != self.seat))
        return snap

    # -- UI side ---------------------------------------------------------------
    def _deciding(self) -> _Pending | None:
        p = self._pending
        return p if p is not None and not p.submitted else None

    def _ctx(self) -> Context:
        snap = self._snap
        p = self._deciding()
        if p is not None:
            view, game, state = p.view, p.game, p.state
        else:
            view = snap.view if snap else None
            game = snap.game if snap else None
            state = snap.state if snap else None
        seat = self.seat
        secret = secret_of(self._table, seat)     # our seat's secret, where our peer keeps it

        # checked as our peer will send it: sealed with our seat's secret first (a game with seat secrets)
        def _check(action: Any) -> Any:
            return action if game is None else check(game, state, seat, action, secret)

        def _problems(action: Any) -> list[str]:
            return [] if game is None or seat is None else problems(game, state, seat, action, secret)

        def _legal() -> list | None:
            return None if game is None or seat is None else legal_actions(game, state, seat, secret)

        return Context(seat=seat, snap=snap, view=view, game=game, state=state, deciding=p is not None,
                       sent=self.sent, check=_check, problems=_problems, legal=_legal)

    def _past_ctx(self, snap: Snapshot) -> Context:
        return Context(seat=self.seat, snap=snap, view=snap.view, game=snap.game, state=snap.state,
                       sent=self.sent, reveal=True)

    def _shell_help(self) -> list:
        send = ("Enter, send", "send your draft (Enter on an empty line): every command only edits the draft, "
                "in every game" if not self.send_at_once else
                "send your draft (Enter on an empty line); with --send-at-once a complete move goes out as soon "
                "as it is typed")
        return [send] + list(_SHELL_HELP)

    def _say(self, text: str, style: str = "class:info") -> None:
        self._message = (style, text)
        self._message_at = self._snap.moves if self._snap is not None else -1

    def _set_notice(self, text: str, style: str = "class:error") -> None:
        """``text`` on a line of its own above the message, until the step open now closes (the
        message no longer says it too)."""
        self._notice = (style, text)
        self._notice_at = self._snap.moves if self._snap is not None else -1
        if self._message[1] == text:
            self._message = ("", "")

    def _expire(self) -> None:
        """Words said about a step are dropped once the table applied moves after them (the step
        closed): a "Sent: your bid" must not stay on through later auctions. Our own time-out stays
        until the next prompt takes it over (its own line, above the prompt); nothing expires at game over."""
        snap = self._snap
        if snap is None or snap.over:
            return
        if self._notice is not None and snap.moves > self._notice_at:
            self._notice = None
        at = self._message_at
        if self._message[1] and at is not None and snap.moves > at and self._message[1] != self._timeout_words:
            self._message = ("", "")
            self._quit_armed = False           # its question is gone from the screen: ask again
        held = self._after_reveal
        if held is not None and len(held) > 2 and snap.moves > held[2]:
            self._after_reveal = None

    def _say_after_reveal(self, text: str, style: str = "class:info") -> None:
        """Say ``text`` now, or once the reveal playing now ends (a prompt for the next round that tells
        how the round went would give away what the beats are about to show)."""
        if self.revealing:
            self._after_reveal = (style, text, self._snap.moves if self._snap is not None else -1)
        else:
            self._say(text, style)

    def _on_accept(self, buff: Buffer) -> bool:
        during = self.revealing
        if during:
            self._typed_in = self._reveals
        try:
            self._execute(buff.text)
        except CommandError as exc:
            self._say(str(exc), "class:error")
        except Exception as exc:  # never let a typo kill the UI thread
            self._say("error: %s" % exc, "class:error")
        if during:
            self._after_reveal = None   # the player went on under the reveal: its answer stays, not the old prompt
        return False

    def _execute(self, text: str) -> None:
        words = text.strip().split()
        if not words:
            self._submit()
            return
        cmd, args = words[0].lower(), words[1:]
        if cmd in _QUIT_WORDS:
            self._quit_key()
            return
        self._quit_armed = False
        if cmd in _AGAIN_WORDS and not args:
            self._again_key()
            return
        if cmd in _DECLINE_WORDS and not args and self._snap is not None and self._snap.over:
            self._decline_key()
            return
        if cmd in _HELP_WORDS:
            self._toggle_help()
            self._say(LONG_HELP if self._help_shown else "help closed")
            return
        self._toggle_help(False)
        if cmd in _SUBMIT_WORDS:
            self._submit()
            return
        screen = self._screen()
        name = screen.commands.get(cmd)
        if name is None:
            names = list(dict.fromkeys(screen.commands.values())) + ["submit", "help"]
            raise CommandError("unknown command %r; commands: %s" % (cmd, ", ".join(names)))
        if self.seat is None:
            raise CommandError("you are spectating: there is nothing to move (q quits)")
        if self._snap is not None and self._snap.over:
            raise CommandError("the game is over: there are no more moves (q quits)")
        self._outcome(screen.command(self._ctx(), name, args))

    def _outcome(self, out: Say | Send | None, submitted: bool = False) -> None:
        """What a screen's command (or its submit, ``submitted``) gave: a move to hold in the draft
        (sent by Enter on an empty line), or to send now (submit, or ``send_at_once``); or words."""
        if isinstance(out, Send):
            if submitted or self.send_at_once:
                self._held = None
                self._send(out.action)
            else:
                self._hold(out.action)
        elif isinstance(out, Say):
            self._held = None           # another command: the screen's own draft (or its words) replace ours
            self._say(out.text, out.style)

    def _checked(self, action: Any) -> tuple:
        """(the decision asked, ``action`` as the game normalises it), or a CommandError saying why not."""
        p = self._deciding()
        if p is None:
            raise self._not_your_turn()
        if p.game is not None:
            try:
                action = check(p.game, p.state, p.seat, action, secret_of(self._table, p.seat))
            except IllegalAction as exc:
                raise CommandError("illegal move: %s - fix it and try again" % exc) from None
        return p, action

    def _hold(self, action: Any) -> None:
        """Keep ``action`` as the draft (checked now, as it will be sent); Enter on an empty line sends it."""
        p, action = self._checked(action)
        try:
            text = self._screen().describe(p.game, p.state, p.seat, action) if p.game is not None else repr(action)
        except Exception:
            text = repr(action)
        self._held = (p, action, _without_seat(text, p.seat))
        self._say("Draft ready: Enter on an empty line sends it, or type another command to replace it.",
                  "class:info")

    def _held_now(self) -> tuple[_Pending, Any, str] | None:
        held = self._held
        if held is not None and held[0] is not self._deciding():
            self._held = held = None        # its step is gone (sent, timed out, closed)
        return held

    def _typing(self, _buffer: Buffer) -> None:
        self._quit_armed = False

    def _quit_key(self) -> None:
        """Quitting in the middle of a game takes a second press: our seat would stop moving."""
        snap = self._snap
        if self.seat is None or snap is None or snap.over or self._quit_armed:
            self._exit_now()
            return
        self._quit_armed = True
        self._say("Quit in the middle of the game? The others are told you left: your turns pass at once until you "
                  "come back (easel resume continues the game later). Press q or Ctrl-Q again to quit, or type any "
                  "command to stay.", "class:error")

    def _again_key(self) -> None:
        """A rematch (a / again at game over): close the UI and let the runner start it; UI thread only."""
        if self.seat is None:
            raise CommandError("you are spectating: only the seats can play again (q quits)")
        if self._snap is None or not self._snap.over:
            raise CommandError("the game is not over yet: a rematch (a) is offered at game over")
        self.again = True
        self._say("Again: the rematch opens...", "class:info")
        self._exit_now()

    def _decline_key(self) -> None:
        """No rematch for us (n / no at game over): close the UI and let the runner say so to the rematch
        lobby; UI thread only."""
        if self.seat is None:
            raise CommandError("you are spectating: only the seats are asked for a rematch (q quits)")
        self.decline = True
        self._say("No rematch: telling the others...", "class:info")
        self._exit_now()

    def _not_your_turn(self) -> CommandError:
        snap = self._snap
        return CommandError("it is not your turn to move yet%s" % (
            " (waiting for %s)" % who(snap.missing, self.seat) if snap and snap.missing else ""))

    def _submit(self) -> None:
        if self.seat is None:
            raise CommandError("you are spectating: there is nothing to submit (q quits)")
        snap = self._snap
        if self._deciding() is None and snap is not None and snap.over:
            raise CommandError("the game is over (a plays again, n says no to a rematch, q quits)")
        held = self._held_now()
        if held is not None:
            self._held = None
            self._send(held[1])
            return
        out = self._screen().submit(self._ctx())
        if out is None and self._deciding() is None:
            raise self._not_your_turn()
        self._outcome(out, submitted=True)

    def _send(self, action: Any) -> None:
        """Check ``action`` with the game and hand it to the node (UI thread)."""
        p, action = self._checked(action)
        ctx = self._ctx()
        screen = self._screen()
        try:
            text = screen.describe(p.game, p.state, p.seat, action) if p.game is not None else repr(action)
        except Exception:
            text = repr(action)
        p.submitted = True
        try:
            p.token.run_sync_soon(self._resolve, p, action)
        except trio.RunFinishedError:
            p.submitted = False
            raise CommandError("the game node has stopped; the move was not sent") from None
        self.sent = Sent(p.phase, action, text)
        self._deadline = None
        said = screen.on_sent(ctx, action, text)
        self._say(said.text, said.style)

    # -- panes -----------------------------------------------------------------
    def _pane_status(self, width: int | None = None) -> list:
        snap = self._snap
        out: list = []
        if self._deciding() is not None:
            label = self._screen().decision_label(self._ctx())
            out.append(("class:yourmove", " YOUR MOVE (%s) " % label if label else " YOUR MOVE "))
            left = None if self._deadline is None else self._deadline - time.monotonic()
            if left is not None:
                out.append(("class:error" if left < 31 else "class:waiting", " " + countdown_words(left)))
            tail = " - type commands below, Enter on an empty line submits"
            room = (width or self._cols()) - width_of(out)
            if len(tail) > room:
                tail = " - Enter on an empty line submits"
            if len(tail) > room:
                tail = " - Enter submits"        # one line: a long decision label keeps the status on one
            out.append(("", tail))
        elif snap is None:
            out.append(("class:waiting", "Waiting for the table..."))
        else:
            out.append(step_status(self._shown() or snap, self._screen()))
        return self._wrapped(out, width)

    def _wrapped(self, frags: list, width: int | None = None, indent: str = "  ") -> list:
        return join(wrap(list(frags), width or self._cols(), indent))

    def _pane_draft(self, width: int | None = None) -> list:
        if self.seat is None:
            return [("class:label", "Spectating.")]
        snap = self._snap
        if snap is not None and snap.over:
            return [("class:label", "The game is over - a plays again with the same seats, n says no "
                                    "to a rematch, q quits.")]
        if self._deciding() is not None and self.revealing and self._typed_in != self._reveals:
            # the draft of the next move would tell what the reveal is about to show (what is left after it)
            return self._wrapped([("class:label", "Your move is open: the reveal plays first (Space or Esc skips "
                                                  "it), or type a command to start now.")], width)
        held = self._held_now()
        if held is not None:
            return self._wrapped([("bold", "Draft: "), ("", held[2]),
                                  ("class:label", " (Enter on an empty line sends it; another command replaces it)")],
                                 width)
        line = self._screen().draft_line(self._ctx())
        return self._wrapped(line, width) if line else [("", "")]

    def _pane_message(self, width: int | None = None) -> list:
        held = self._after_reveal
        if held is not None and not self.revealing:
            self._message, self._after_reveal = (held[0], held[1]), None
            self._message_at = held[2] if len(held) > 2 else self._message_at
        style, text = self._message
        snap = self._snap
        names = snap.names if snap is not None else ()
        lines: list = []
        notice = self._notice
        if notice is not None:
            lines += wrap([(notice[0], with_names(notice[1], names) if names else notice[1])], width or self._cols())
        if text:
            lines += wrap([(style, with_names(text, names) if names else text)], width or self._cols())
        return join(lines) if lines else [("", "")]

    def warning(self) -> str:
        """The one line above the prompt: what the next step costs our seat if nothing changes (the
        game's own ``warnings`` hook on the view the panes show), or a time-out close at hand."""
        snap = self._shown()
        if self.seat is None or snap is None or snap.over:
            return ""
        p = self._deciding()
        if p is not None and self._deadline is not None:
            left = int(self._deadline - time.monotonic())
            if 0 <= left <= WARN_TIMEOUT:
                held = self._held_now() is not None
                return "Time-out in %d s: %s, or it counts as no move%s." % (
                    left, "press Enter to send your draft" if held else "send your move now",
                    _effect(self._screen(), snap.step_label))
        return first_warning(snap.game, snap.view, self.seat)

    def _pane_warning(self, width: int | None = None) -> list:
        """The warning line: wrapped to two lines at most (cut with "…" only past that), so a
        warning naming four sheets is read whole at 100 columns."""
        text = self.warning()
        if not text:
            return []
        cols = width or self._cols()
        lines = wrap([("class:alert", "!! " + text)], cols, "   ")
        if len(lines) > WARN_LINES:
            last = "".join(t for _, t in lines[WARN_LINES - 1])
            lines = lines[:WARN_LINES - 1] + [[("class:alert", last[:max(0, cols - 1)].rstrip() + "…")]]
        return join(lines)

    def _pane_help(self, width: int | None = None) -> list:
        if self.seat is None:
            return [("class:help", HELP_SPECTATOR)]
        if self._snap is not None and self._snap.over:
            return [("class:help", HELP_GAME_OVER)]
        cols = width or self._cols()
        options = self._screen().key_help(self._ctx()) or ["help | q quit"]
        for text in options:
            if cols >= len(text):
                break
        return [("class:help", text)]

    def render_text(self) -> str:
        """Plain text of the main panes, the status, the draft and the message (for tests), TEXT_WIDTH wide."""
        parts = [self._main_text()]
        w = TEXT_WIDTH
        warning = self._pane_warning(w)
        for pane in (self._pane_status(w), self._pane_draft(w), self._pane_message(w)) + ((warning,) if warning else ()) \
                + (self._pane_help(w),):
            parts.append(fragment_list_to_text(pane) + "\n")
        return "".join(parts)


def countdown_words(left: float) -> str:
    """The time left on our decision as the status line says it: whole minutes while a minute or more
    is left ("about 4 min left": the screen redraws for it once a minute), then seconds ("about
    0:42 left", once a second)."""
    left = max(0, int(left))
    if left >= COARSE_FROM:
        return "about %d min left" % (left // 60)
    return "about %d:%02d left" % (left // 60, left % 60)


def next_change(left: float) -> float | None:
    """Seconds until ``countdown_words`` (and the warning's "Time-out in N s") change, None once at 0."""
    whole = int(left)
    if whole <= 0:
        return None                                  # "0:00" until the table closes the step
    step = 60 if whole >= COARSE_FROM else 1
    return left - step * (whole // step) + 0.01      # when the whole minutes (or seconds) shown drop by one


def _monotonic(deadline: float | None) -> float | None:
    """A Decision's ``deadline`` (on the trio clock) as a time.monotonic() value; None stays None."""
    if not isinstance(deadline, (int, float)) or isinstance(deadline, bool):
        return None
    return time.monotonic() + max(0.0, deadline - trio.current_time())


def first_warning(game: Any, view: Any, seat: int | None) -> str:
    """The first sentence of the game's ``warnings(view, seat)`` hook (core/games/<game>/warnings.py),
    "" without a game, a view or a seat; a failing hook says nothing (a warning is a help, never a crash)."""
    if game is None or view is None or seat is None:
        return ""
    try:
        out = game.warnings(view, seat)
    except Exception:
        log.debug("the game's warnings hook failed", exc_info=True)
        return ""
    return str(out[0]) if out else ""


def default_send_at_once() -> bool:
    """EASEL_SEND_AT_ONCE=1 (or true/yes): a complete move is sent as soon as it is typed."""
    return os.environ.get("EASEL_SEND_AT_ONCE", "").strip().lower() in ("1", "true", "yes", "on")


def default_pace(input: Any = None, output: Any = None) -> float:
    """Seconds a reveal beat shows: 0 (instant) unless the UI runs on the real terminal (not given an
    input or output, as tests are, and stdin and stdout are TTYs); there EASEL_PACE if set (0 turns
    the reveal off, at most 10), else PACE."""
    if input is not None or output is not None:
        return 0.0
    try:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            return 0.0
    except (AttributeError, ValueError):
        return 0.0
    env = os.environ.get("EASEL_PACE")
    if env is None:
        return PACE
    try:
        return max(0.0, min(10.0, float(env)))
    except ValueError:
        return PACE


# --------------------------------------------------------------------------- the replay viewer


class ReplayUI(_BaseUI):
    """Step through a finished (or partial) log entry by entry, or mark by mark."""

    def __init__(self, entries: list[bytes], seat: int | None, *, input=None, output=None,
                 title: str = "Easel replay", start: int = 0, games: Any = registry, screen: Screen | None = None,
                 secret: bytes | None = None, secret_words: str = "", warning: Sequence[str] = ()) -> None:
        """``secret``: the seat's own secret (a game with seat secrets), so its view shows its
        hand at every entry; ``secret_words`` says where it came from (shown under the title).
        ``warning``: lines shown at every entry (the audit's words for a damaged or unfinished log)."""
        super().__init__(seat, title, screen)
        self.warning = [str(w) for w in warning]
        if not entries:
            raise ValueError("an empty log has nothing to replay")
        self.entries = list(entries)
        self._snaps: list[Snapshot] = []
        self._descs: list[str] = []
        self._error: str | None = None
        self._table: Table | None = None
        self._seat_note = ""
        try:
            self._table = Table.start(self.entries[0], games)
        except RuleError as exc:
            raise ValueError("entry 0 is not a valid genesis: %s" % exc) from None
        self._use_screen_for(self._table.genesis.doc.get("game", ""))
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < self._table.players):
            self._seat_note = "there is no seat %s in this %d-seat game: watching as a spectator" % (seat, self._table.players)
            self.seat = seat = None
        if seat is not None and secret is not None:
            self._table.secrets[seat] = secret      # Table.view(seat) then holds the seat's own hand
            self._seat_note = self._seat_note or secret_words
        self._snaps.append(snapshot_of(self._table, seat, screen=self._screen()))
        self._snap = self._snaps[0]
        self._descs.append(self._describe_genesis(self._table))
        self.pos = 0
        self.goto(start if start >= 0 else len(self.entries) + start)

        kb = KeyBindings()
        self._common_bindings(kb)

        def bind(keys: Sequence[str], fn: Callable[[], None]) -> None:
            for k in keys:
                kb.add(k)(lambda event, fn=fn: fn())

        bind(["right", "l", " ", "enter"], lambda: self.goto(self.pos + 1))
        bind(["left", "h", "backspace"], lambda: self.goto(self.pos - 1))
        bind(["home", "g"], lambda: self.goto(0))
        bind(["end", "G"], lambda: self.goto(len(self.entries) - 1))
        bind(["n", "down"], self.next_mark)
        bind(["p", "up"], self.prev_mark)
        bind(["q"], self._exit_now)
        bind(["?"], self._toggle_help)

        @kb.add("escape", eager=True)       # eager: never the start of a Meta key (see GameUI)
        def _(event) -> None:
            self._toggle_help(False)

        def ftc(get: Callable[[], list]) -> FormattedTextControl:
            return FormattedTextControl(get, focusable=False, show_cursor=False)

        bottom = [
            Window(ftc(self._pane_entry), dont_extend_height=True, wrap_lines=True, height=D(min=1)),
            Window(ftc(self._pane_status), dont_extend_height=True, wrap_lines=True, height=D(min=1)),
            Window(ftc(lambda: [("class:help", self._key_line(self._cols()))]),
                   height=1, wrap_lines=False, style="class:help"),
        ]
        self._app = self._make_app(Layout(HSplit(self._main_windows() + bottom)), kb, input, output)

    # -- replaying ---------------------------------------------------------------
    def _describe_genesis(self, table: Table) -> str:
        doc = table.genesis.doc
        cfg = table.config if isinstance(getattr(table, "config", None), dict) else (doc["config"] or {})
        try:
            text = self._screen().describe_table(self._ctx(), cfg, len(doc["seats"]))
        except Exception:
            text = "%s for %d seats" % (doc["game"], len(doc["seats"]))
        return "the table opens (genesis): %s%s" % (text, genesis_words(doc))

    def _log_lines(self) -> list[Line]:
        """Newest first: the log entries up to the one on screen, described."""
        lines: list[Line] = []
        for i in range(self.pos, max(-1, self.pos - LOG_KEEP), -1):
            style = "bold" if i == self.pos else ""
            lines.append([(style, "%4d  %s" % (i, self._descs[i]))])
        return lines

    def _help_closing(self) -> str:
        return "? or Esc closes it; PgUp/PgDn scrolls"

    def _key_line(self, width: int) -> str:
        mark = self._screen().mark_words[0]
        long = ("Right/Left (l/h) one entry | Down/Up (n/p) next/prev %s | "
                "Home/End (g/G) first/last | PgUp/PgDn scroll | ? help | q quit" % mark)
        short = "Right/Left entry | Down/Up %s | Home/End | PgUp/PgDn | ? help | q quit" % mark
        return long if width >= len(long) else short

    def _help_sections(self) -> list:
        keys = [
            ("Right / Left (l / h)", "one log entry forward / back (also Space or Enter / Backspace)"),
            ("Down / Up (n / p)", "to the next / previous entry that %s" % self._screen().mark_words[1]),
            ("Home / End (g / G)", "the first / last entry"),
            ("PgUp / PgDn", "scroll the middle pane"),
            ("?", "show or hide this page"),
            ("q, Ctrl-Q", "quit"),
        ]
        return [("Replay keys", keys)] + list(self._screen().rules_help(self._ctx()))

    def _describe(self, table: Table, ent: Any) -> str:
        return describe_entry(table, ent, self.seat, self._screen())

    def _ensure(self, n: int) -> int:
        """Replay up to entry ``n`` (or as far as the log is valid); returns the last valid index."""
        n = min(n, len(self.entries) - 1)
        while len(self._snaps) <= n and self._error is None:
            i = len(self._snaps)
            t = self._table
            try:
                ent = parse_entry(self.entries[i], keys=t.keys)
                desc = self._describe(t, ent)
                t.append(ent)
            except Exception as exc:  # RuleError, EntryError, anything: stop here
                self._error = "entry %d is invalid, the replay stops before it: %s" % (i, exc)
                break
            self._snaps.append(snapshot_of(t, self.seat, screen=self._screen(), before=self._snaps[-1]))
            self._descs.append(desc)
        return min(n, len(self._snaps) - 1)

    def goto(self, n: int) -> None:
        self.pos = self._ensure(max(0, n))
        self._snap = self._snaps[self.pos]

    def _is_mark(self, n: int) -> bool:
        return n > 0 and self._screen().is_mark(self._snaps[n - 1], self._snaps[n])

    def next_mark(self) -> None:
        """Jump to the next mark (by default: the next entry that applied moves)."""
        n = self.pos + 1
        while True:
            last = self._ensure(n)
            if last < n:
                self.goto(last)
                return
            if self._is_mark(n):
                self.goto(n)
                return
            n += 1

    def prev_mark(self) -> None:
        for n in range(self.pos - 1, 0, -1):
            if self._is_mark(n):
                self.goto(n)
                return
        self.goto(0)

    @property
    def last(self) -> int:
        return len(self.entries) - 1

    # -- panes -----------------------------------------------------------------
    def _pane_entry(self, width: int | None = None) -> list:
        width = width or self._cols()
        lines = []
        for i, w in enumerate(self.warning[:4]):
            lines += wrap([("class:error" if i == 0 else "class:label", w)], width, "    ")
        lines += wrap([("bold", "Entry %d of %d: " % (self.pos, self.last)), ("", self._descs[self.pos])], width)
        if self._error is not None and self.pos == len(self._snaps) - 1:
            lines += wrap([("class:error", self._error)], width)
        if self._seat_note:
            lines += wrap([("class:label", self._seat_note)], width)
        return join(lines)

    def _pane_status(self, width: int | None = None) -> list:
        snap = self._snap
        if snap is None:
            return []
        style, text = step_status(snap, self._screen())
        return join(wrap([(style, "Table now: " + text)], width or self._cols()))

    def _pane_title(self) -> list:
        return [("class:title", _title_text(self.title, self._snap, self._screen(), self._ctx(), None,
                                            "entry %d/%d" % (self.pos, self.last)))]

    def render_text(self) -> str:
        return self._main_text() + "".join(
            fragment_list_to_text(p) + "\n"
            for p in (self._pane_entry(TEXT_WIDTH), self._pane_status(TEXT_WIDTH), [("", self._key_line(10_000))])
        )
