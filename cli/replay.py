"""The replay viewer: a finished (or partial) log stepped through entry by entry, or mark by mark.

Replay keys: Right/Left (l/h, also Space/Enter and Backspace) one entry;
Down/Up (n/p) to the next/previous mark (by default an entry that applied
moves: a step closed; a screen may choose coarser marks); Home/End (g/G)
first/last entry; PgUp/PgDn scroll; ? help; q, Ctrl-Q, Ctrl-C quit.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.dimension import Dimension as D

import core.games as registry
from core.events import parse_entry, seat_names
from core.table import RuleError, Table

from .panes import TEXT_WIDTH, BaseUI, ftc
from .screens import Line, Screen, Snapshot, join, with_names, wrap
from .snapshot import LOG_KEEP, _title_text, describe_entry, genesis_words, snapshot_of, step_status

__all__ = ["ReplayUI"]


class ReplayUI(BaseUI):
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
            doc = self._table.genesis.doc
            self._seat_note = self._seat_note or with_names(secret_words, seat_names(doc) if "names" in doc else ())
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
