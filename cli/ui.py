"""Terminal UI for Easel's Painting Game (prompt-toolkit, full screen).

The network node runs in trio on the main thread; prompt-toolkit is asyncio
based, so each UI runs its ``Application`` in a worker thread with its own
asyncio loop (``trio.to_thread.run_sync`` -> ``asyncio.run``).  The two sides
only meet in a few places:

* trio -> UI: ``GameUI.update`` builds an immutable ``Snapshot`` of the table
  (in the trio thread, where the table lives), swaps it in with one attribute
  store and calls ``app.invalidate()``, which is thread safe.  The UI thread
  only ever reads snapshots and immutable game states.
* UI -> trio: a submitted move is handed back with
  ``trio_token.run_sync_soon`` (non-blocking), which sets the ``trio.Event``
  that ``GameUI.decide`` is waiting on.
* quitting from trio (cancellation, ``exit()``): ``loop.call_soon_threadsafe``
  into the UI loop.

Coordinates are 0-based everywhere (rows 0-4 top to bottom, columns 0-4 left
to right), as in the rules engine's messages and move descriptions.

Commands of the game UI (typed on the command line, Enter runs them):

    bid SHEET TOKENS [SHEET TOKENS ...]   bid (0 removes the bid); also b, "bid 3=12"
    splash ROW COL COLOUR                  main splash, e.g. "splash 2 3 R" or "s 23r"
    splash none                            no splash
    extra ROW COL COLOUR | extra none      the once-per-game extra submission (costs garnets)
    convert N                              convert N garnets to tokens this round
    clear                                  empty the draft
    submit  (or Enter on an empty line)    check the draft and send it
    help                                   the long help in the message line
Keys: q (on an empty line), Ctrl-Q or Ctrl-C quit; PageUp/PageDown scroll the
middle pane (sheets on offer, owned sheets, round results, event log);
Up/Down recall earlier commands.

Replay keys: Right/Left (l/h, also Space/Enter and Backspace) one entry;
Down/Up (n/p) to the next/previous entry that applied moves (a round's end);
Home/End (g/G) first/last entry; PageUp/PageDown scroll; q, Ctrl-Q, Ctrl-C quit.
"""

from __future__ import annotations

import asyncio
import re
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
from prompt_toolkit.styles import Style

from core.engine import IllegalAction
from core.events import Event, Genesis, Timeout, parse_entry
from core.table import RuleError, Table

__all__ = [
    "GameUI",
    "ReplayUI",
    "Snapshot",
    "snapshot_of",
    "CommandError",
    "parse_space",
    "HELP_GAME",
    "HELP_SPECTATOR",
    "HELP_REPLAY",
]

SIZE = 5
LOG_KEEP = 300          # event-log lines kept in a snapshot
LOG_TEXT_LINES = 20     # event-log lines in render_text()
ALERTS_SHOWN = 5
TEXT_WIDTH = 100        # width used to lay out sheet cards in render_text()

HELP_GAME = (
    "bid SHEET N [SHEET N..] | splash ROW COL R/B/Y | extra ROW COL R/B/Y | convert N | "
    "clear | Enter=submit | help | PgUp/PgDn scroll | q quit"
)
HELP_GAME_SHORT = "bid ID N|splash R C COL|extra R C COL|convert N|clear|Enter=submit|help|PgUp/Dn|q"
HELP_SPECTATOR = "spectating | PgUp/PgDn scroll | q / Ctrl-Q quit"
HELP_REPLAY = (
    "Right/Left (l/h) one entry | Down/Up (n/p) next/prev round | "
    "Home/End (g/G) first/last | PgUp/PgDn scroll | q quit"
)
HELP_REPLAY_SHORT = "Right/Left entry | Down/Up round | Home/End | PgUp/PgDn scroll | q quit"
LONG_HELP = (
    "Rows and columns are 0-4 (row first). bid 3 12: bid 12 tokens on sheet 3 (bid 3 0 removes it). "
    "splash 2 3 R: add red to row 2, column 3 and its neighbours. extra 0 4 Y: the once-per-game "
    "extra splash (costs garnets). convert 2: turn 2 garnets into tokens. clear: empty the draft. "
    "Enter on an empty line (or submit) checks the move and seals it."
)

# colour letter -> style of a grid / sheet cell
CELL_STYLE = {
    "W": "bg:#ffffff fg:#8a8a8a",
    "R": "bg:#d70000 fg:#ffffff bold",
    "B": "bg:#005fff fg:#ffffff bold",
    "Y": "bg:#ffd700 fg:#000000 bold",
    "P": "bg:#8700af fg:#ffffff bold",
    "O": "bg:#ff8700 fg:#000000 bold",
    "G": "bg:#00af00 fg:#000000 bold",
    "K": "bg:#000000 fg:#ffffff bold",
}

STYLE = Style.from_dict(
    {
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
        "bid": "bold fg:ansimagenta",
        "over": "bold fg:ansired",
        "log.mine": "fg:ansicyan",
        "log.note": "fg:ansiyellow",
        "alert": "bold fg:ansired",
        "prompt": "bold",
        **{"cell.%s" % k.lower(): v for k, v in CELL_STYLE.items()},
    }
)

_PRIMARY_WORDS = {"R": "R", "RED": "R", "B": "B", "BLUE": "B", "Y": "Y", "YELLOW": "Y"}
_NONE_WORDS = {"NONE", "NO", "OFF", "-", "CLEAR", "0"}

Frag = tuple  # (style, text)
Line = list   # list of fragments


class CommandError(ValueError):
    """A command line the UI cannot understand; the message says why."""


# --------------------------------------------------------------------------- snapshots


@dataclass(frozen=True)
class Snapshot:
    """Everything the screen shows about the table, taken in the trio thread."""

    seat: int | None
    players: int
    view: dict | None
    phase: int
    step_kind: str | None
    step_purpose: str | None
    step_label: str
    step_seats: tuple
    missing: tuple
    over: bool
    result: dict | None
    log: tuple                  # ((style, text), ...) oldest first
    moves: int                  # moves applied so far
    entries: int                # log entries applied (genesis included)
    alerts: tuple = ()
    status: str = ""


def _round_of_phase(moves: Sequence) -> dict:
    phases = sorted({m[1] for m in moves})
    return {ph: i + 1 for i, ph in enumerate(phases)}


def snapshot_of(table: Table, seat: int | None, alerts: Sequence[str] = (), status: str = "",
                waiting: Sequence[int] | None = None) -> Snapshot:
    """Copy what the UI needs out of ``table`` (call it in the thread that owns the table).

    ``waiting``: the seats the current step still waits for, if the caller
    knows better than ``table.missing()`` (a peer places a step's events in
    the log only once all of them are in, so its table's ``missing()`` lists
    every seat of the step until it closes).
    """
    step = table.step
    missing = tuple(table.missing())
    if waiting is not None:
        missing = tuple(s for s in missing if s in set(waiting))
    view = table.view(seat)
    rounds = _round_of_phase(table.moves)
    items: list = []
    for idx, ph, s, action in table.moves[-LOG_KEEP:]:
        try:
            text = table.game.describe(table.state, s, action)
        except Exception:  # pragma: no cover - describe is total, but never crash the UI
            text = "seat %s moved" % s
        if s == seat:
            text = text.replace("seat %d " % s, "seat %d (you) " % s, 1)
        items.append((idx, 1, "class:log.mine" if s == seat else "", "r%d  %s" % (rounds.get(ph, 0), text)))
    for note in table.notes[-LOG_KEEP:]:
        who = "" if note.seat is None else "seat %d: " % note.seat
        items.append((note.index, 0, "class:log.note", "!   %s%s" % (who, note.text)))
    items.sort(key=lambda it: (it[0], it[1]))
    log = tuple((style, text) for _, _, style, text in items[-LOG_KEEP:])
    return Snapshot(
        seat=seat,
        players=table.players,
        view=view,
        phase=table.phase,
        step_kind=None if step is None else step.kind,
        step_purpose=None if step is None else step.purpose,
        step_label="" if step is None else step.label,
        step_seats=() if step is None else tuple(step.seats),
        missing=missing,
        over=table.over,
        result=table.result(),
        log=log,
        moves=len(table.moves),
        entries=table.count,
        alerts=tuple(alerts[-ALERTS_SHOWN:]) if alerts else (),
        status=status or "",
    )


# --------------------------------------------------------------------------- parsing


def parse_space(args: Sequence[str]) -> list | None:
    """``["2", "3", "R"]`` / ``["23r"]`` / ``["2,3,red"]`` -> ``[2, 3, "R"]``; ``["none"]`` -> None."""
    s = re.sub(r"[\s,;:/]+", "", "".join(args)).upper()
    if s in _NONE_WORDS:
        return None
    m = re.fullmatch(r"(\d)(\d)([A-Z]+)", s)
    if not m:
        raise CommandError("give a row (0-4), a column (0-4) and a colour R, B or Y, e.g. 2 3 R (or none)")
    row, col, word = int(m.group(1)), int(m.group(2)), m.group(3)
    if not 0 <= row < SIZE or not 0 <= col < SIZE:
        raise CommandError("rows and columns go from 0 to 4, not %d %d" % (row, col))
    colour = _PRIMARY_WORDS.get(word)
    if colour is None:
        raise CommandError("you can only splash a primary colour: R (red), B (blue) or Y (yellow), not %s" % word)
    return [row, col, colour]


def _parse_int(word: str, what: str) -> int:
    try:
        n = int(word.lstrip("#"))
    except ValueError:
        raise CommandError("%s must be a whole number, not %r" % (what, word)) from None
    if n < 0:
        raise CommandError("%s cannot be negative" % what)
    return n


def _space_text(sp: Sequence | None) -> str:
    return "-" if sp is None else "%d %d %s" % (sp[0], sp[1], sp[2])


@dataclass
class Draft:
    round: int | None = None
    bids: dict = field(default_factory=dict)    # sheet id (int) -> tokens
    splash: list | None = None
    extra: list | None = None
    convert: int = 0

    def action(self) -> dict:
        return {
            "bids": {str(k): v for k, v in sorted(self.bids.items()) if v > 0},
            "splash": None if self.splash is None else list(self.splash),
            "extra": None if self.extra is None else list(self.extra),
            "convert": self.convert,
        }

    def total(self) -> int:
        return sum(self.bids.values())


# --------------------------------------------------------------------------- rendering helpers


def _width(line: Line) -> int:
    return sum(len(t) for _, t in line)


def _join(lines: Sequence[Line]) -> list:
    out: list = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.extend(line)
    return out


def _seat_name(s: int, me: int | None) -> str:
    return "seat %d (you)" % s if s == me else "seat %d" % s


def _who(seats: Sequence[int], me: int | None) -> str:
    return ", ".join("you" if s == me else "seat %d" % s for s in seats)


def _grid_lines(view: dict | None) -> list[Line]:
    lines: list[Line] = [[("class:header", "Grid"), ("class:label", " (row col)")]]
    lines.append([("class:label", "   " + "".join(" %d " % c for c in range(SIZE)))])
    for r in range(SIZE):
        line: Line = [("class:label", " %d " % r)]
        for c in range(SIZE):
            colour = view["grid"][r][c]["colour"] if view else "W"
            line.append(("class:cell.%s" % colour.lower(), " %s " % colour))
        lines.append(line)
    return lines


def _sheet_drawing(cells: Sequence[Sequence]) -> list[Line]:
    if not cells:
        return [[("", "(empty)")]]
    rows = max(c[0] for c in cells) + 1
    cols = max(c[1] for c in cells) + 1
    at = {(c[0], c[1]): c[2] for c in cells}
    out = []
    for r in range(rows):
        line: Line = []
        for c in range(cols):
            col = at.get((r, c))
            line.append(("class:cell.%s" % col.lower(), "%s " % col) if col else ("", "  "))
        out.append(line)
    return out


def _layout_cards(cards: Sequence[list[Line]], width: int, gap: int = 3) -> list[Line]:
    """Put cards (lists of lines) side by side, wrapping to ``width``."""
    rows: list[list] = []
    cur: list = []
    used = 0
    for card in cards:
        w = max((_width(l) for l in card), default=0)
        need = w if not cur else used + gap + w
        if cur and need > width:
            rows.append(cur)
            cur, need = [], w
        cur.append((w, card))
        used = need
    if cur:
        rows.append(cur)
    out: list[Line] = []
    for row in rows:
        height = max(len(card) for _, card in row)
        for i in range(height):
            line: Line = []
            for j, (w, card) in enumerate(row):
                frags = card[i] if i < len(card) else []
                if j:
                    line.append(("", " " * gap))
                line.extend(frags)
                pad = w - _width(frags)
                if pad and j < len(row) - 1:
                    line.append(("", " " * pad))
            out.append(line)
    return out


def _offer_lines(view: dict | None, bids: dict, width: int) -> list[Line]:
    if not view:
        return [[("class:header", "Sheets on offer")], [("class:label", "  (none yet)")]]
    head: Line = [("class:header", "Sheets on offer"), ("class:label", " (round %d; v = value if bought now)" % view["round"])]
    if not view["offer"]:
        return [head, [("class:label", "  (none this moment)")]]
    cards = []
    for sh in view["offer"]:
        head_line: Line = [("bold", "#%d" % sh["id"]), ("", " v%d" % sh["value"])]
        amt = bids.get(sh["id"])
        if amt:
            head_line.append(("class:bid", " bid %d" % amt))
        cards.append([head_line] + _sheet_drawing(sh["cells"]))
    return [head] + _layout_cards(cards, width)


def _owned_lines(view: dict | None, me: int | None, width: int) -> list[Line]:
    head: Line = [("class:header", "Owned sheets"), ("class:label", " (current value)")]
    if not view:
        return [head, [("class:label", "  (none)")]]
    order = sorted(range(view["players"]), key=lambda s: (s != me, s))
    cards = []
    for s in order:
        for h in view["owned"][s]:
            card: list[Line] = [
                [("bold", "#%d" % h["id"]), ("", " v%d" % h["value"])],
                [("class:you" if s == me else "class:label", "you" if s == me else "seat %d" % s)],
            ]
            card += _sheet_drawing(h["cells"])
            cards.append(card)
    if not cards:
        return [head, [("class:label", "  (none)")]]
    return [head] + _layout_cards(cards, width)


def _scored_lines(view: dict | None, me: int | None) -> list[Line]:
    if not view or not view["scored"]:
        return [[("class:header", "Scored"), ("", ": none yet")]]
    parts = ["#%d %s r%d +%d" % (e["id"], "you" if e["seat"] == me else "seat %d" % e["seat"], e["round"], e["points"])
             for e in view["scored"]]
    return [[("class:header", "Scored"), ("", ": " + ", ".join(parts))]]


def _last_round_lines(view: dict | None, me: int | None) -> list[Line]:
    if not view or not view.get("last_round"):
        return []
    lr = view["last_round"]
    sold, ties, unsold = [], [], []
    for a in lr["auction"]:
        if a["outcome"] == "sold":
            sold.append("#%d to %s for %d (v%d)" % (a["sheet"], "you" if a["winner"] == me else "seat %d" % a["winner"], a["price"], a["value"]))
        elif a["outcome"] == "tie":
            ties.append("#%d (%s)" % (a["sheet"], _who(a.get("tied", []), me)))
        else:
            unsold.append("#%d" % a["sheet"])
    parts = []
    parts.append("sold " + ", ".join(sold) if sold else "nothing sold")
    if ties:
        parts.append("tied, discarded: " + ", ".join(ties))
    if unsold:
        parts.append("no bids: " + " ".join(unsold))
    scored = ["%s #%d +%d" % ("you" if e["seat"] == me else "seat %d" % e["seat"], e["sheet"], e["points"]) for e in lr["scored"]]
    parts.append("scored: " + (", ".join(scored) if scored else "nothing"))
    return [[("class:header", "Round %d results" % lr["round"]), ("", ": " + "; ".join(parts))]]


def _result_lines(res: dict | None, players: int, me: int | None) -> list[Line]:
    if not res:
        return []
    lines: list[Line] = [[("class:over", "GAME OVER")]]
    rank = []
    for i, s in enumerate(res["ranking"]):
        rank.append("%d. %s %d pts, %d tokens" % (i + 1, _seat_name(s, me), res["points"][str(s)], res["tokens"][str(s)]))
    lines.append([("", "Ranking: " + "; ".join(rank))])
    if res.get("draw"):
        lines.append([("", "Draw: every seat has the same points; nobody wins.")])
    else:
        tol = res.get("tokens_of_life", {})
        winners = ", ".join("%s%s" % (_seat_name(s, me), " (%d token%s of life)" % (tol[str(s)], "" if tol[str(s)] == 1 else "s") if str(s) in tol else "")
                            for s in res["winners"])
        lines.append([("", "Winner%s: %s" % ("" if len(res["winners"]) == 1 else "s", winners))])
        ec = ", ".join(_seat_name(s, me) for s in res["elimination_candidates"])
        extra = " (the winner%s choose%s one)" % (("", "s") if len(res["ec_chosen_by"]) == 1 else ("s", "")) if res.get("ec_chosen_by") else ""
        lines.append([("", "Elimination candidate%s: %s%s" % ("" if len(res["elimination_candidates"]) == 1 else "s", ec, extra))])
    earned = res.get("garnets_earned", {})
    if any(earned.values()):
        lines.append([("", "Garnets earned: " + ", ".join("%s %d" % (_seat_name(int(s), me), n) for s, n in sorted(earned.items(), key=lambda kv: int(kv[0])) if n))])
    return lines


def _step_status(snap: Snapshot) -> tuple[str, str]:
    """(style, text) for the line that says what the table waits for."""
    me = snap.seat
    if snap.over:
        return "class:over", "Game over."
    who = _who(snap.missing, me) or "nobody"
    if snap.view is None:
        return "class:waiting", "Drawing the shared seed - waiting for %s" % who
    if snap.step_purpose == "seed":
        what = "shared randomness for the next sheets (%s)" % snap.step_kind
    else:
        what = snap.step_label
    return "class:waiting", "%s - waiting for %s" % (what, who)


def _seat_status(snap: Snapshot, s: int) -> str:
    if snap.over or s not in snap.step_seats:
        return ""
    waiting = s in snap.missing
    if snap.step_purpose == "seed":
        return "seed.." if waiting else "seed ok"
    if snap.step_kind == "commit":
        return "choosing" if waiting else "sealed"
    if snap.step_kind == "reveal":
        return "opening" if waiting else "opened"
    return "to move" if waiting else "moved"


def _seats_lines(snap: Snapshot) -> list[Line]:
    me = snap.seat
    view = snap.view
    fmt = "%s %-13s %4s %4s %4s %5s %4s  "
    lines: list[Line] = [[("class:header", "Seats")]]
    lines.append([("class:label", fmt % (" ", "", "tok", "garn", "pts", "extra", "own") + "now")])
    for s in range(snap.players):
        mark = ">" if s == me else " "
        if view:
            row = fmt % (mark, _seat_name(s, me), view["tokens"][s], view["garnets"][s], view["points"][s],
                         "used" if view["extra_used"][s] else "free", len(view["owned"][s]))
        else:
            row = fmt % (mark, _seat_name(s, me), "-", "-", "-", "-", "-")
        st = _seat_status(snap, s)
        style = "class:you" if s == me else ""
        lines.append([(style, row), ("class:waiting" if st in ("choosing", "opening", "to move", "seed..") else "class:label", st)])
    return lines


def _wrap(line: Line, width: int, indent: str = "  ") -> list[Line]:
    """Word-wrap one line of fragments to ``width`` columns."""
    chars = [(st, ch) for st, text in line for ch in text]
    if len(chars) <= width or width < 10:
        return [line]
    out: list[Line] = []
    first = True
    while chars:
        room = width if first else width - len(indent)
        if len(chars) <= room:
            cut = len(chars)
        else:
            cut = room
            for i in range(room, 0, -1):
                if chars[i][1] == " ":
                    cut = i
                    break
        piece, chars = chars[:cut], chars[cut:]
        while chars and chars[0][1] == " ":
            chars = chars[1:]
        frags: Line = [] if first else [("", indent)]
        for st, ch in piece:
            if frags and frags[-1][0] == st:
                frags[-1] = (st, frags[-1][1] + ch)
            else:
                frags.append((st, ch))
        out.append(frags)
        first = False
    return out


def _title_text(title: str, snap: Snapshot | None, extra: str = "") -> str:
    parts = [title if "painting" in title.lower() else "%s - The Painting Game" % title]
    if snap is not None:
        parts.append("spectator" if snap.seat is None else "you are seat %d" % snap.seat)
        v = snap.view
        if snap.over:
            parts.append("game over")
        elif v:
            parts.append("round %d/%d" % (v["round"], v["rules"]["rounds"]))
        if v:
            parts.append("%s edition" % v["edition"])
        if snap.status:
            parts.append(snap.status)
    if extra:
        parts.append(extra)
    return " " + " | ".join(parts)


# --------------------------------------------------------------------------- base


class _BaseUI:
    """The shared panes, the worker-thread runner and the quit plumbing."""

    seat: int | None

    def __init__(self, seat: int | None, title: str) -> None:
        self.seat = seat
        self.title = title
        self._snap: Snapshot | None = None
        self._scroll = 0
        self._scroll_info = (0, 20, 0)     # (top, height, total) of the middle pane
        self._middle_window: Window | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._quit = False          # quit requested (any thread)
        self._closed = False        # the UI thread has finished
        self._app: Application | None = None

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
        return [("class:title", _title_text(self.title, self._snap))]

    def _pane_grid(self) -> list:
        return _join(_grid_lines(self._snap.view if self._snap else None))

    def _pane_seats(self) -> list:
        return _join(_seats_lines(self._snap)) if self._snap else [("class:label", "(no table yet)")]

    def _draft_bids(self) -> dict:
        return {}

    def _log_lines(self) -> list[Line]:
        """Newest first: alerts, then the described moves and the table's notes."""
        snap = self._snap
        lines: list[Line] = []
        if snap is not None:
            lines += [[("class:alert", "!!  " + a)] for a in reversed(snap.alerts)]
            lines += [[(style, text)] for style, text in reversed(snap.log)]
        return lines

    def _middle_lines(self, width: int, log_limit: int | None = None) -> list[Line]:
        """The scrollable middle: result, sheets on offer, owned sheets, round results, log."""
        snap = self._snap
        view = snap.view if snap else None
        lines: list[Line] = []
        if snap is not None and snap.result:
            for line in _result_lines(snap.result, snap.players, self.seat):
                lines += _wrap(line, width)
            lines.append([])
        if not (snap is not None and snap.over):
            lines += _offer_lines(view, self._draft_bids(), width)
            lines.append([])
        lines += _owned_lines(view, self.seat, width)
        lines.append([])
        for line in _last_round_lines(view, self.seat) + _scored_lines(view, self.seat):
            lines += _wrap(line, width)
        lines.append([])
        log = self._log_lines()
        lines.append([("class:header", "Event log"), ("class:label", " (newest first)")])
        if not log:
            lines.append([("class:label", "  nothing yet")])
        for line in log[:log_limit] if log_limit else log:
            lines += _wrap(line, width, "      ")
        return lines

    def _pane_middle(self) -> list:
        lines = self._middle_lines(self._cols())
        info = self._middle_window.render_info
        height = info.window_height if info is not None else 20
        self._scroll = max(0, min(self._scroll, len(lines) - height))
        self._scroll_info = (self._scroll, height, len(lines))
        return _join(lines[self._scroll:])

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

    def _main_windows(self) -> list:
        def ftc(get: Callable[[], list]) -> FormattedTextControl:
            return FormattedTextControl(get, focusable=False, show_cursor=False)

        top = VSplit(
            [
                Window(ftc(self._pane_grid), width=D.exact(20)),
                Window(width=D.exact(2)),
                Window(ftc(self._pane_seats)),
            ],
            height=lambda: D.exact(max(7, (self._snap.players if self._snap else 2) + 2)),
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
            self._pane_grid(),
            self._pane_seats(),
            _join(self._middle_lines(TEXT_WIDTH, LOG_TEXT_LINES)),
        ]
        return "\n".join(fragment_list_to_text(p).rstrip("\n") for p in parts if p) + "\n"

    def _common_bindings(self, kb: KeyBindings) -> None:
        @kb.add("c-q", eager=True)
        @kb.add("c-c", eager=True)
        def _(event) -> None:
            self._exit_now()

        @kb.add("pageup")
        def _(event) -> None:
            self._scroll_by(-self._page())

        @kb.add("pagedown")
        def _(event) -> None:
            self._scroll_by(self._page())

    def _page(self) -> int:
        return max(1, self._scroll_info[1] - 2)

    def _make_app(self, layout: Layout, kb: KeyBindings, input, output) -> Application:
        return Application(
            layout=layout,
            key_bindings=kb,
            style=STYLE,
            full_screen=True,
            input=input,
            output=output,
            mouse_support=False,
            terminal_size_polling_interval=0.5,
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
            try:
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
    view: dict
    game: Any
    state: Any
    phase: int
    token: Any
    event: trio.Event = field(default_factory=trio.Event)
    result: Any = None
    submitted: bool = False


class GameUI(_BaseUI):
    """The live table: panes, a draft move, a command line; ``decide`` asks for a move."""

    def __init__(self, seat: int | None, *, title: str = "Easel", input=None, output=None) -> None:
        super().__init__(seat, title)
        self._status = ""
        self._alerts: list[str] = []
        self._table: Table | None = None           # trio thread only
        self._pending: _Pending | None = None
        self._draft = Draft()
        self._sent: tuple | None = None            # (round, description) of our sealed move
        self._sent_phase = -1                      # table phase our last move was sent for
        self._message: tuple[str, str] = ("", "")  # (style, text)
        self._buffer = Buffer(multiline=False, accept_handler=self._on_accept, history=InMemoryHistory())

        kb = KeyBindings()
        self._common_bindings(kb)
        empty = Condition(lambda: self._buffer.text == "")

        @kb.add("q", filter=empty)
        def _(event) -> None:
            self._exit_now()

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
            self._input_window,
            Window(ftc(self._pane_help), height=1, wrap_lines=False, style="class:help"),
        ]
        layout = Layout(HSplit(self._main_windows() + bottom), focused_element=self._input_window)
        self._app = self._make_app(layout, kb, input, output)

    # -- trio side -------------------------------------------------------------
    def update(self, table: Table, alerts: list[str], status: str, *, waiting: Sequence[int] | None = None) -> None:
        """The game advanced (trio thread): take a snapshot and repaint.

        ``waiting`` (optional): the seats whose event for the current step has
        not arrived yet, when the caller knows (see ``snapshot_of``).
        """
        self._alerts = list(alerts or [])
        self._status = status or ""
        self._table = table
        self._snap = self._mine_done(snapshot_of(table, self.seat, self._alerts, self._status, waiting))
        p = self._pending
        if p is not None and table.phase != p.phase and not p.event.is_set():
            # the step we were asked about is gone (time-out, rollback): give up on it
            p.result = None
            p.event.set()
        self._invalidate()

    async def decide(self, view: dict, seat: int, peer) -> dict:
        """Our turn (trio thread): let the player compose a move; return it once submitted.

        Returns None if the step closes without us (the node then asks again
        if needed).  Once the user has quit, waits until cancelled.
        """
        table = getattr(peer, "table", None) or self._table
        if table is not None and (self._snap is None or self._snap.phase != table.phase):
            self.update(table, self._alerts, self._status)   # our snapshot is stale
        while self._closed or self._quit:
            await trio.sleep_forever()
        p = _Pending(
            seat=seat,
            view=view,
            game=None if table is None else table.game,
            state=None if table is None else table.state,
            phase=-1 if table is None else table.phase,
            token=trio.lowlevel.current_trio_token(),
        )
        self._pending = p
        self._invalidate()
        try:
            await p.event.wait()
            return p.result
        finally:
            if self._pending is p:
                self._pending = None
            self._invalidate()

    def _resolve(self, p: _Pending, action: dict) -> None:
        # trio thread
        if not p.event.is_set():
            p.result = action
            p.event.set()
            self._sent_phase = p.phase
            if self._snap is not None:
                self._snap = self._mine_done(self._snap)
            self._invalidate()

    def _mine_done(self, snap: Snapshot) -> Snapshot:
        """Once we have sent our move for a step, the step no longer waits for us."""
        if snap.phase == self._sent_phase and self.seat in snap.missing:
            return replace(snap, missing=tuple(s for s in snap.missing if s != self.seat))
        return snap

    # -- UI side ---------------------------------------------------------------
    def _view(self) -> dict | None:
        p = self._pending
        if p is not None and not p.submitted:
            return p.view
        return self._snap.view if self._snap else None

    def _sync_draft(self) -> None:
        view = self._view()
        if view is None:
            return
        if self._draft.round != view["round"]:
            self._draft = Draft(round=view["round"])
        if self._sent is not None and self._sent[0] != view["round"]:
            self._sent = None

    def _draft_bids(self) -> dict:
        self._sync_draft()
        return dict(self._draft.bids)

    def _say(self, text: str, style: str = "class:info") -> None:
        self._message = (style, text)

    def _on_accept(self, buff: Buffer) -> bool:
        try:
            self._execute(buff.text)
        except CommandError as exc:
            self._say(str(exc), "class:error")
        except Exception as exc:  # never let a typo kill the UI thread
            self._say("error: %s" % exc, "class:error")
        return False

    def _execute(self, text: str) -> None:
        self._sync_draft()
        words = text.strip().split()
        if not words:
            self._submit()
            return
        cmd, args = words[0].lower(), words[1:]
        if cmd in ("q", "quit", "exit"):
            self._exit_now()
            return
        if cmd in ("help", "h", "?"):
            self._say(LONG_HELP)
            return
        if self.seat is None:
            raise CommandError("you are spectating: there is nothing to move (q quits)")
        view = self._view()
        d = self._draft
        if cmd in ("bid", "b"):
            parts = re.split(r"[\s=:,]+", " ".join(args).strip()) if args else []
            if not parts or len(parts) % 2:
                raise CommandError("usage: bid SHEET TOKENS [SHEET TOKENS ...], e.g. bid 3 12 (bid 3 0 removes it)")
            offer = [sh["id"] for sh in view["offer"]] if view else []
            changes = []
            for i in range(0, len(parts), 2):
                sid = _parse_int(parts[i], "the sheet number")
                amt = _parse_int(parts[i + 1], "the bid")
                if sid not in offer:
                    raise CommandError("sheet %d is not on offer (on offer: %s)" % (sid, " ".join(map(str, offer)) or "none"))
                changes.append((sid, amt))
            for sid, amt in changes:
                if amt:
                    d.bids[sid] = amt
                else:
                    d.bids.pop(sid, None)
            self._say("bids: " + (", ".join("#%d=%d" % kv for kv in sorted(d.bids.items())) or "none"))
        elif cmd in ("splash", "s"):
            d.splash = parse_space(args)
            self._say("splash: %s" % _space_text(d.splash))
        elif cmd in ("extra", "x", "e"):
            d.extra = parse_space(args)
            self._say("extra: %s" % _space_text(d.extra))
        elif cmd in ("convert", "c"):
            if len(args) != 1:
                raise CommandError("usage: convert N (garnets to turn into tokens this round)")
            d.convert = _parse_int(args[0], "the number of garnets")
            self._say("convert: %d" % d.convert)
        elif cmd in ("clear", "reset"):
            self._draft = Draft(round=d.round)
            self._say("draft cleared")
        elif cmd in ("submit", "send", "ok", "go"):
            self._submit()
        else:
            raise CommandError("unknown command %r; commands: bid, splash, extra, convert, clear, submit, help" % cmd)

    def _submit(self) -> None:
        if self.seat is None:
            raise CommandError("you are spectating: there is nothing to submit (q quits)")
        p = self._pending
        snap = self._snap
        if p is None or p.submitted:
            if snap is not None and snap.over:
                raise CommandError("the game is over (q quits)")
            if self._sent is not None:
                raise CommandError("your move for round %d is already sealed; waiting for %s" % (self._sent[0], _who(snap.missing, self.seat) if snap else "the others"))
            raise CommandError("it is not your turn to move yet%s" % (" (waiting for %s)" % _who(snap.missing, self.seat) if snap and snap.missing else ""))
        action = self._draft.action()
        if p.game is not None:
            try:
                action = p.game.check(p.state, p.seat, action)
            except IllegalAction as exc:
                raise CommandError("illegal move: %s - fix it and press Enter again" % exc) from None
            text = p.game.describe(p.state, p.seat, action)
        else:
            text = repr(action)
        p.submitted = True
        try:
            p.token.run_sync_soon(self._resolve, p, action)
        except trio.RunFinishedError:
            p.submitted = False
            raise CommandError("the game node has stopped; the move was not sent") from None
        self._sent = (p.view["round"], text)
        self._say("move sealed and sent: %s" % text, "class:sent")

    # -- panes -----------------------------------------------------------------
    def _pane_status(self) -> list:
        snap = self._snap
        out: list = []
        p = self._pending
        if p is not None and not p.submitted:
            out.append(("class:yourmove", " YOUR MOVE (round %d) " % p.view["round"]))
            out.append(("", " type commands below; Enter on an empty line submits"))
        elif snap is None:
            out.append(("class:waiting", "Waiting for the table..."))
        else:
            style, text = _step_status(snap)
            out.append((style, text))
        return out

    def _pane_draft(self) -> list:
        if self.seat is None:
            return [("class:label", "Spectating.")]
        self._sync_draft()
        view = self._view()
        d = self._draft
        p = self._pending
        snap = self._snap
        if snap is not None and snap.over:
            return [("class:label", "The game is over - q quits.")]
        if self._sent is not None and (p is None or p.submitted):
            return [("class:sent", "Sealed: %s" % self._sent[1])]
        out: list = [("bold", "Draft: ")]
        bids = ", ".join("#%d=%d" % kv for kv in sorted(d.bids.items())) or "none"
        out.append(("", "bids %s" % bids))
        total = d.total()
        if view is not None:
            have = view["tokens"][self.seat]
            budget = have + d.convert
            style = "class:error" if total > budget else ""
            out.append((style, " (%d of %d tokens%s)" % (total, have, " + %d converted" % d.convert if d.convert else "")))
        else:
            out.append(("", " (total %d)" % total))
        out.append(("", " | splash %s" % _space_text(d.splash)))
        if view is not None and view["extra_used"][self.seat]:
            out.append(("class:label", " | extra used"))
        else:
            cost = " (costs %d garnets)" % view["rules"]["extra_cost"] if view and d.extra else ""
            out.append(("", " | extra %s%s" % (_space_text(d.extra), cost)))
        if view is not None and (d.convert or view["garnets"][self.seat]):
            out.append(("", " | convert %d (of %d garnets)" % (d.convert, view["garnets"][self.seat])))
        elif d.convert:
            out.append(("", " | convert %d" % d.convert))
        return out

    def _pane_message(self) -> list:
        style, text = self._message
        return [(style, text)] if text else [("", "")]

    def _pane_help(self) -> list:
        if self.seat is None:
            return [("class:help", HELP_SPECTATOR)]
        return [("class:help", HELP_GAME if self._cols() >= len(HELP_GAME) else HELP_GAME_SHORT)]

    def render_text(self) -> str:
        """Plain text of the main panes, the status, the draft and the message (for tests)."""
        parts = [self._main_text()]
        for pane in (self._pane_status(), self._pane_draft(), self._pane_message(), self._pane_help()):
            parts.append(fragment_list_to_text(pane) + "\n")
        return "".join(parts)


# --------------------------------------------------------------------------- the replay viewer


class ReplayUI(_BaseUI):
    """Step through a finished (or partial) log entry by entry."""

    def __init__(self, entries: list[bytes], seat: int | None, *, input=None, output=None,
                 title: str = "Easel replay", start: int = 0) -> None:
        super().__init__(seat, title)
        if not entries:
            raise ValueError("an empty log has nothing to replay")
        self.entries = list(entries)
        self._snaps: list[Snapshot] = []
        self._descs: list[str] = []
        self._error: str | None = None
        self._table: Table | None = None
        try:
            self._table = Table.start(self.entries[0])
        except RuleError as exc:
            raise ValueError("entry 0 is not a valid genesis: %s" % exc) from None
        self._snaps.append(snapshot_of(self._table, seat))
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
        bind(["n", "down"], self.next_round)
        bind(["p", "up"], self.prev_round)
        bind(["q"], self._exit_now)

        def ftc(get: Callable[[], list]) -> FormattedTextControl:
            return FormattedTextControl(get, focusable=False, show_cursor=False)

        bottom = [
            Window(ftc(self._pane_entry), dont_extend_height=True, wrap_lines=True, height=D(min=1)),
            Window(ftc(self._pane_status), dont_extend_height=True, wrap_lines=True, height=D(min=1)),
            Window(ftc(lambda: [("class:help", HELP_REPLAY if self._cols() >= len(HELP_REPLAY) else HELP_REPLAY_SHORT)]),
                   height=1, wrap_lines=False, style="class:help"),
        ]
        self._app = self._make_app(Layout(HSplit(self._main_windows() + bottom)), kb, input, output)

    # -- replaying ---------------------------------------------------------------
    @staticmethod
    def _describe_genesis(table: Table) -> str:
        doc = table.genesis.doc
        return "genesis: %s for %d seats, options %s" % (doc["game"], len(doc["seats"]), doc["config"] or "default")

    def _describe(self, table: Table, ent: Any) -> str:
        if isinstance(ent, Timeout):
            return "time-out certificate: seats %s timed out (%s)" % (list(ent.seats), table.step.label if table.step else "")
        if isinstance(ent, Genesis):
            return "a second genesis"
        ev: Event = ent
        seat = table.seat_of(ev.author)
        st = table.step
        who = "seat %s" % seat if seat != self.seat else "seat %s (you)" % seat
        purpose = st.purpose if st is not None else "move"
        if ev.kind == "commit":
            label = st.label if st is not None else ""
            return "%s commits to %s" % (who, "its share of the shared randomness" if purpose == "seed" else "a sealed move (%s)" % label)
        if ev.kind == "reveal":
            if purpose == "seed":
                return "%s reveals its share of the shared randomness" % who
            try:
                return "%s reveals: %s" % (who, table.game.describe(table.state, seat, ev.body["value"]))
            except Exception:
                return "%s reveals its move" % who
        try:
            return "%s plays: %s" % (who, table.game.describe(table.state, seat, ev.body["action"]))
        except Exception:
            return "%s moves" % who

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
            self._snaps.append(snapshot_of(t, self.seat))
            self._descs.append(desc)
        return min(n, len(self._snaps) - 1)

    def goto(self, n: int) -> None:
        self.pos = self._ensure(max(0, n))
        self._snap = self._snaps[self.pos]

    def next_round(self) -> None:
        """Jump to the next entry that applied moves (closes a round)."""
        base = self._snaps[self.pos].moves
        n = self.pos + 1
        while True:
            last = self._ensure(n)
            if last < n:
                self.goto(last)
                return
            if self._snaps[n].moves > base:
                self.goto(n)
                return
            n += 1

    def prev_round(self) -> None:
        for n in range(self.pos - 1, 0, -1):
            if self._snaps[n].moves > self._snaps[n - 1].moves:
                self.goto(n)
                return
        self.goto(0)

    @property
    def last(self) -> int:
        return len(self.entries) - 1

    # -- panes -----------------------------------------------------------------
    def _pane_entry(self) -> list:
        out = [("bold", "Entry %d of %d: " % (self.pos, self.last)), ("", self._descs[self.pos])]
        if self._error is not None and self.pos == len(self._snaps) - 1:
            out += [("", "\n"), ("class:error", self._error)]
        return out

    def _pane_status(self) -> list:
        snap = self._snap
        if snap is None:
            return []
        style, text = _step_status(snap)
        return [(style, "Table now: " + text)]

    def _pane_title(self) -> list:
        return [("class:title", _title_text(self.title, self._snap, "entry %d/%d" % (self.pos, self.last)))]

    def render_text(self) -> str:
        return self._main_text() + "".join(
            fragment_list_to_text(p) + "\n" for p in (self._pane_entry(), self._pane_status(), [("", HELP_REPLAY)])
        )
