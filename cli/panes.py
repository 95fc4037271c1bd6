"""The panes every UI shows, and how a UI runs: ``BaseUI``, the base of the live table (cli/shell.py
``GameUI``) and the replay viewer (cli/replay.py ``ReplayUI``).

The panes: the title bar, the board (the screen's ``board_lines``, or a reveal beat's board), the
seats table, the scrollable middle pane (a beat's lines, the result, the screen's part, the event
log newest first; or the help page) and its scroll bar.  While a reveal plays (cli/reveal.py) they
are drawn from the table as it was before the step it reveals (``_view_ctx``).  The runner: the
prompt-toolkit ``Application`` in a worker thread with its own asyncio loop, beside the trio tasks
that repaint at each beat and when the countdown changes; quitting from either side.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import Any, Callable, Sequence

import trio
from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import FormattedTextControl, Layout, VSplit, Window
from prompt_toolkit.layout.dimension import Dimension as D
from prompt_toolkit.styles import DynamicStyle, Style

from .commands import SHELL_HELP
from .reveal import Reel, Reeled
from .screens import Beat, Context, Line, Screen, Snapshot, join, screen_for, wrap
from .screens.text import cut_line
from .snapshot import _PLACEHOLDER, _named, _seats_lines, _title_text, certificate_lines
from .terminal import stderr_into

__all__ = ["BaseUI", "STYLE", "TEXT_WIDTH", "ftc"]

LOG_TEXT_LINES = 20     # event-log lines in render_text()
TEXT_WIDTH = 100        # width used to lay out the panes in render_text()
_NO_PARTS = Screen()    # a screen whose title has no parts of its own (what the title always shows)
LATEST_LINES = 3        # newest event-log lines repeated at the top of a short middle pane
KEY_ROOM = 64           # title columns the step and the status keep when it shows our key (_title_key): as long as
                        # they come (" | round 1/4: open auction, raise round 1 | 4/4 peers connected" is 63)


def ftc(get: Callable[[], list]) -> FormattedTextControl:
    """A pane's control: the fragments ``get`` returns at each redraw, never focused."""
    return FormattedTextControl(get, focusable=False, show_cursor=False)


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
    "log.talk": "fg:ansigreen",
    "alert": "bold fg:ansired",
    "prompt": "bold",
    "reveal": "reverse bold fg:ansimagenta",
    "reveal.caption": "bold",
}


class BaseUI:
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
        self._title_plain: set = set()   # the widths at which the title dropped "Easel - " (it stays dropped)
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

    def _title_key(self, ctx: Context, cols: int) -> str | None:
        """Our key in the title, or None: decided by the width and what never changes in a game (the title,
        the game, our name), never by the step, so it does not come and go as the steps' words do: it shows
        where it leaves the step and the status KEY_ROOM columns (in a narrow terminal they matter more; the
        help shows the key)."""
        if not self.key:
            return None
        snap = ctx.snap
        fixed = _title_text(self.title, None if snap is None else replace(snap, over=False, status=""),
                            _NO_PARTS, ctx, self.key)
        return self.key if len(fixed) + KEY_ROOM <= cols + 1 else None     # the title row is cols + 1 wide

    def _pane_title(self) -> list:
        ctx = self._view_ctx()
        cols = self._cols()
        key = self._title_key(ctx, cols)
        head = self.title
        if cols in self._title_plain and ctx.snap is not None and ctx.snap.game_title:
            head = ctx.snap.game_title
        text = _title_text(head, ctx.snap, self._screen(), ctx, key)
        if len(text) > cols and ctx.snap is not None and ctx.snap.over and ctx.snap.status:
            # at game over the key line says what the status says (a again, n no, q quits): drop it first
            text = _title_text(head, replace(ctx.snap, status=""), self._screen(), ctx, key)
        if len(text) > cols and head in ("Easel", "Easel - watching") and ctx.snap is not None \
                and ctx.snap.game_title:
            # then the plain "Easel - " before the game's name (never a warning such as UNSAFE SEED), for good
            # at this width: it does not come back when a step's words are short again
            self._title_plain.add(cols)
            return self._pane_title()
        if len(text) > cols + 1:
            text = text[:cols] + "…"       # a cut that shows
        return [("class:title", text)]

    def _pane_board(self) -> list:
        now = self._beat_now()
        if now is not None and now.beat.board is not None:
            return join(now.beat.board)
        return join(self._screen().board_lines(self._view_ctx()))

    # -- the reveal: beats played one after the other (cli/reveal.py) ----------------
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
                if line and line[0][0] == "class:alert":
                    latest += rows                # an alert is read whole (what to do about it is at its end)
                    continue
                # one line each, cut by columns (a wide character or an emoji takes two): " ..." shows that it
                # goes on (in the log below)
                latest.append(cut_line(line, width) if len(rows) > 1 else list(rows[0]) if rows else [])
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
        return list(SHELL_HELP)

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
        beats = [len(it.beat.board) for it in self.reel.items if it.beat.board is not None]
        return max([len(self._screen().board_lines(self._view_ctx())), players + 2, 3] + beats)

    def _main_windows(self) -> list:
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
