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
    submit  (or Enter on an empty line)    check the draft and send it; a move without a
                                           splash takes a second Enter
    help  (or ? on an empty line)          the help page (commands and rules) in the middle pane
Keys: q (on an empty line), Ctrl-Q or Ctrl-C quit (mid-game they ask once more);
Esc closes the help; PgUp/PgDn scroll the middle pane (round results, sheets on
offer, owned sheets, event log); Up/Down recall earlier commands.

The draft line lists everything the rules would refuse ("to fix: ..."); the
status line shows an estimate of the time left on our move (from the peer's
step clock and time-out, when ``decide`` is given a peer that has them).

Replay keys: Right/Left (l/h, also Space/Enter and Backspace) one entry;
Down/Up (n/p) to the next/previous entry that applied moves (a round's end);
Home/End (g/G) first/last entry; PgUp/PgDn scroll; ? help; q, Ctrl-Q, Ctrl-C quit.
"""

from __future__ import annotations

import asyncio
import re
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
HELP_GAME_SHORT = "bid ID N | splash ROW COL R/B/Y | extra .. | convert N | clear | Enter=submit | help | q"
HELP_GAME_TINY = "bid ID N | splash ROW COL R/B/Y | Enter=submit | help | q quit"
HELP_GAME_OVER = "game over | help | PgUp/PgDn scroll | q quit"
HELP_SPECTATOR = "spectating | help | PgUp/PgDn scroll | q / Ctrl-Q quit"
HELP_REPLAY = (
    "Right/Left (l/h) one entry | Down/Up (n/p) next/prev round | "
    "Home/End (g/G) first/last | PgUp/PgDn scroll | ? help | q quit"
)
HELP_REPLAY_SHORT = "Right/Left entry | Down/Up round | Home/End | PgUp/PgDn | ? help | q quit"
LONG_HELP = "help shown above (help, ? or Esc closes it; PgUp/PgDn scrolls it)"

_COMMAND_HELP = [
    ("bid SHEET N [SHEET N..]",
     "bid N tokens on a sheet on offer: bid 3 12, or several at once: bid 3 12 5 4; bid 3 0 removes a bid"),
    ("splash ROW COL R|B|Y", "your splash this round: splash 2 3 R (short: s 23r); splash none removes it"),
    ("extra ROW COL R|B|Y", "the once-per-game extra splash (costs %(extra_cost)d garnets): extra 0 4 Y; extra none"),
    ("convert N", "turn N garnets into N tokens this round (convert 0 undoes it)"),
    ("clear", "empty the draft"),
    ("submit / empty Enter", "check the draft and seal it; a sealed move cannot be changed"),
    ("help, ?", "show or hide this page (Esc hides it too)"),
    ("q, Ctrl-Q", "quit (q on an empty line); PgUp/PgDn scroll the middle pane; Up/Down recall commands"),
]

_RULES_HELP = [
    ("Rounds", "%(rounds)d rounds. In each, every seat secretly bids on the sheets on offer and splashes "
               "one primary colour onto the 5x5 grid; the moves are sealed until everyone has moved, "
               "then all of them are opened together and the round resolves."),
    ("Grid", "rows and columns are numbered 0-4, row first: 0 0 is the top-left cell, 4 4 the bottom-right."),
    ("Tokens", "you start with %(starting_tokens)s tokens and gain %(tokens_per_round)d each round; unspent "
               "tokens carry over (and break ties at the end). Your bids together may not exceed your tokens."),
    ("Auction", "the single highest bid on a sheet pays its bid and takes the sheet. If the highest bid is "
                "tied, nobody pays and the sheet is discarded. Losing bids cost nothing. Unsold sheets are "
                "discarded. Bidding 0 is not bidding."),
    ("Value", "a sheet is worth its number of cells + the round number (v on the cards). A sheet you own "
              "that is not scored loses 1 point of value at the end of each round (never below 1)."),
    ("Splash", "adds the colour to the cell and its orthogonal neighbours (the grid does not wrap). A primary "
               "already on a cell changes nothing; all splashes of a round land together."),
    ("Colours", "R red, B blue, Y yellow; R+B = P purple, R+Y = O orange, B+Y = G green; W white = no colour. "
                "All three primaries: %(black)s"),
    ("Scoring", "after the splashes, every sheet you own whose pattern appears anywhere on the grid (same "
                "colours and shape, no rotation or reflection, position does not matter; white sheet cells "
                "are background) scores its current value for you, once, and is discarded - also in the "
                "round you bought it."),
    ("Garnets", "convert garnets 1 for 1 into tokens, or spend %(extra_cost)d on the once-per-game extra "
                "splash (it needs a main splash too). You earn 1 garnet per %(garnet_divisor)d points at the end."),
    ("End", "after round %(rounds)d the most points wins 2 Tokens of Life; a tie on points is broken by the "
            "most tokens left, and if exactly two are still tied each gets 1 Token of Life. The fewest points "
            "make the elimination candidate(s). Everyone on the same points: a draw, a new match is played."),
    ("Public", "tokens, garnets, points, who owns which sheet, who took which sheet at what price, and the "
               "grid. Your bids and splash are hidden until the round's moves are opened."),
]

_BLACK_WORDS = {
    "round": "the cell turns K black for the rest of the round (it matches nothing) and is white, "
             "with no primaries, from the next round on.",
    "immediate": "the cell turns white at once, with no primaries.",
}

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
    config: dict | None = None  # the game's configuration (options with their defaults)


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
        items.append((note.index, 0, "class:log.note", "!   " + _note_text(table, note, seat)))
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
        config=dict(table.config) if isinstance(getattr(table, "config", None), dict) else None,
    )


def _note_text(table: Table, note: Any, me: int | None) -> str:
    """A table note in players' words (time-outs name the seats, "you" included)."""
    timed_out = table.timeouts.get(note.phase) if note.seat is None else None
    if timed_out is not None and note.text.startswith("timed out"):
        label = note.text[note.text.find("(") + 1:-1] if "(" in note.text else ""
        return "time-out: %s did not move in time%s - counted as no move (no bids, no splash)" % (
            _who(timed_out, me), " (%s)" % _plain_label(label) if label else "")
    who = "" if note.seat is None else "%s: " % _seat_name(note.seat, me)
    return who + note.text


def _without_seat(text: str, seat: int | None) -> str:
    """ "seat 3 bids ..." -> "bids ..." (when the line already says who)."""
    prefix = "seat %s " % seat
    return text[len(prefix):] if text.startswith(prefix) else text


def _plain_label(label: str) -> str:
    """A step label without the commit/reveal plumbing: "round 2: bids and splash: commit" -> "round 2: bids and splash"."""
    for suffix in (": commit", ": reveal", " (reveal)"):
        if label.endswith(suffix):
            return label[: -len(suffix)]
    return label


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
    head: Line = [("class:header", "Sheets on offer"),
                  ("class:label", " (round %d; v = value if bought now = cells + round)" % view["round"])]
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
    if view and view.get("phase") == "over":
        head: Line = [("class:header", "Sheets never scored"), ("class:label", " (they score nothing; v = value at the end)")]
    else:
        head = [("class:header", "Owned sheets"),
                ("class:label", " (v = value now; an unscored sheet loses 1 each round, never below 1)")]
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
    bought = ["#%d %s for %d in round %d" % (h["id"], "you" if s == me else "seat %d" % s, h["price"], h["bought"])
              for s in order for h in view["owned"][s] if "price" in h and "bought" in h]
    lines = [head] + _layout_cards(cards, width)
    if bought:
        lines += _wrap([("class:label", "Bought: "), ("", ", ".join(bought))], width)
    return lines


def _scored_lines(view: dict | None, me: int | None) -> list[Line]:
    if not view or not view["scored"]:
        return [[("class:header", "Scored"), ("", ": none yet")]]
    parts = ["#%d %s +%d (round %d)" % (e["id"], "you" if e["seat"] == me else "seat %d" % e["seat"], e["points"], e["round"])
             for e in view["scored"]]
    return [[("class:header", "Scored"), ("", ": " + ", ".join(parts))]]


def _legend_line(view: dict) -> Line:
    keys = [("W", "white"), ("R", "red"), ("B", "blue"), ("Y", "yellow"), ("P", "R+B"), ("O", "R+Y"), ("G", "B+Y")]
    if view["rules"].get("black") == "round":
        keys.append(("K", "R+B+Y black"))
    else:
        keys[0] = ("W", "white (also R+B+Y)")
    line: Line = [("class:label", "Colours:")]
    for colour, words in keys:
        line += [("class:label", " "), ("class:cell.%s" % colour.lower(), " %s " % colour), ("class:label", " %s" % words)]
    line[-1] = ("class:label", line[-1][1].rstrip())
    return line


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
    black = [(r, c) for r, row in enumerate(lr.get("grid") or []) for c, cell in enumerate(row) if cell.get("colour") == "K"]
    if black:
        over = view.get("phase") == "over"
        parts.append("black (all three primaries%s) at %s" % (
            "" if over else "; white again now",
            ", ".join("%d %d" % rc for rc in black)))
    return [[("class:header", "Round %d results" % lr["round"]), ("", ": " + "; ".join(parts))]]


def _ordinal(n: int) -> str:
    return "%d%s" % (n, "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th"))


def _result_lines(res: dict | None, players: int, me: int | None) -> list[Line]:
    if not res:
        return []
    lines: list[Line] = [[("class:over", "GAME OVER"), ("class:label", " - final ranking (points, then tokens left)")]]
    tol = res.get("tokens_of_life", {})
    earned = res.get("garnets_earned", {})
    winners = set(res.get("winners", []))
    ecs = set(res.get("elimination_candidates", []))
    for i, s in enumerate(res["ranking"]):
        notes = []
        if s in winners:
            notes.append("winner")
        n_tol = tol.get(str(s), 0)
        if n_tol:
            notes.append("%d Token%s of Life" % (n_tol, "" if n_tol == 1 else "s"))
        if s in ecs:
            notes.append("elimination candidate")
        g = earned.get(str(s), 0)
        row = "%2d. %-13s %4d pts %5d tokens  +%d garnet%s  %s" % (
            i + 1, _seat_name(s, me), res["points"][str(s)], res["tokens"][str(s)], g, "" if g == 1 else "s", ", ".join(notes))
        lines.append([("class:you" if s == me else "", row.rstrip())])
    if res.get("draw"):
        lines.append([("", "Draw: every seat has the same points - no winner, no Tokens of Life, no elimination "
                           "candidate; a new match is played.")])
    else:
        if len(winners) > 2:
            lines.append([("", "%s are still tied after tokens: nobody gets a Token of Life." % _who(res["winners"], me).capitalize())])
        if res.get("ec_chosen_by"):
            by = res["ec_chosen_by"]
            verb = "chooses" if len(by) == 1 and by[0] != me else "choose"
            lines.append([("", "Several elimination candidates: %s %s one of %s." % (
                _who(by, me), verb, _who(res["elimination_candidates"], me)))])
    return lines


def _step_status(snap: Snapshot) -> tuple[str, str]:
    """(style, text) for the line that says what the table waits for."""
    me = snap.seat
    if snap.over:
        return "class:over", "Game over - the final ranking is at the top of the middle pane."
    who = _who(snap.missing, me) or "nobody"
    if snap.view is None:
        return "class:waiting", "Drawing the shared seed - waiting for %s" % who
    if snap.step_purpose == "seed":
        what = "dealing the next sheets (%s)" % (
            "peers seal their random shares" if snap.step_kind == "commit" else "peers open their random shares")
    else:
        what = _plain_label(snap.step_label)
        if snap.step_kind == "commit":
            what += " (seats choose their sealed moves)"
        elif snap.step_kind == "reveal":
            what += " (the sealed moves are being opened)"
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
    fmt = "%s %-13s %4s %4s %4s %6s %4s  "
    lines: list[Line] = [[("class:header", "Seats")]]
    lines.append([("class:label", fmt % (" ", "", "tok", "garn", "pts", "extra", "own") + "now")])
    for s in range(snap.players):
        mark = ">" if s == me else " "
        if view:
            row = fmt % (mark, _seat_name(s, me), view["tokens"][s], view["garnets"][s], view["points"][s],
                         "used" if view["extra_used"][s] else "unused", len(view["owned"][s]))
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
        self._help_shown = False    # the middle pane shows the help page

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
        """The scrollable middle: result, last round, sheets on offer, owned sheets, scored, log (or the help page)."""
        if self._help_shown:
            return self._help_lines(width)
        snap = self._snap
        view = snap.view if snap else None
        lines: list[Line] = []
        if snap is not None and snap.result:
            for line in _result_lines(snap.result, snap.players, self.seat):
                lines += _wrap(line, width, "     ")
            lines.append([])
        last = _last_round_lines(view, self.seat)
        for line in last:
            lines += _wrap(line, width)
        if view is not None:
            lines += _wrap(_legend_line(view), width)
        if last or view is not None:
            lines.append([])
        if not (snap is not None and snap.over):
            lines += _offer_lines(view, self._draft_bids(), width)
            lines.append([])
        lines += _owned_lines(view, self.seat, width)
        lines.append([])
        for line in _scored_lines(view, self.seat):
            lines += _wrap(line, width)
        lines.append([])
        log = self._log_lines()
        lines.append([("class:header", "Event log"), ("class:label", " (newest first)")])
        if not log:
            lines.append([("class:label", "  nothing yet")])
        for line in log[:log_limit] if log_limit else log:
            lines += _wrap(line, width, "      ")
        return lines

    def _help_lines(self, width: int) -> list[Line]:
        snap = self._snap
        view = snap.view if snap else None
        values = {"rounds": 6, "starting_tokens": 30, "tokens_per_round": 10, "extra_cost": 7,
                  "garnet_divisor": 25, "black": "round"}
        if snap is not None and snap.config:
            values.update({k: v for k, v in snap.config.items() if k in values})
        if view is not None:
            values.update(view["rules"])
        values["black"] = _BLACK_WORDS.get(values["black"], str(values["black"]))
        lines: list[Line] = [[("class:header", "Help"), ("class:label", " - %s" % self._help_closing())], []]
        for head, rows in self._help_sections():
            lines.append([("class:header", head)])
            key_w = max(len(k) for k, _ in rows) + 2
            for key, text in rows:
                lines += _wrap([("bold", "  " + key.ljust(key_w)), ("", text % values)], width, " " * (key_w + 2))
            lines.append([])
        return lines

    def _help_closing(self) -> str:
        return "help, ? or Esc closes it; PgUp/PgDn scrolls"

    def _help_sections(self) -> list:
        return [("Commands", _COMMAND_HELP), ("The Painting Game in short", _RULES_HELP)]

    def _toggle_help(self, show: bool | None = None) -> None:
        new = (not self._help_shown) if show is None else show
        if new != self._help_shown:
            self._help_shown = new
            self._scroll = 0

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
            style=STYLE,
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
        self._sent_action: tuple | None = None     # (round, action) of our sealed move
        self._sent_phase = -1                      # table phase our last move was sent for
        self._message: tuple[str, str] = ("", "")  # (style, text)
        self._confirm: dict | None = None          # a move waiting for a second Enter
        self._deadline: float | None = None        # time.monotonic() when our move times out (estimate)
        self._prompted_round: int | None = None    # the round we last announced as "your move"
        self._seen_timeouts: set | None = None     # phases whose time-out we already reported
        self._over_said = False
        self._timeout_words = ""                   # our last time-out, until the next prompt shows it
        self._quit_armed = False                   # q was pressed once mid-game
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

        @kb.add("escape", filter=Condition(lambda: self._help_shown))
        def _(event) -> None:
            self._toggle_help(False)

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
        # refresh once a second so the time left on our move counts down
        self._app = self._make_app(layout, kb, input, output, refresh_interval=1.0)

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
        self._report_timeouts(table)
        p = self._pending
        if p is not None and table.phase != p.phase and not p.event.is_set():
            # the step we were asked about is gone (time-out, rollback): give up on it
            p.result = None
            p.event.set()
        if self._snap.over and not self._over_said and self.seat is not None:
            self._over_said = True
            words = _final_words(self._snap.result, self.seat)
            self._say("%s %s" % (self._timeout_words, words) if self._timeout_words else words, "class:over")
            self._timeout_words = ""
        self._invalidate()

    def _report_timeouts(self, table: Table) -> None:
        """Say so, once, when a time-out certificate counted our seat as not moving."""
        timeouts = getattr(table, "timeouts", None) or {}
        if self._seen_timeouts is None:        # what happened before we were watching is old news
            self._seen_timeouts = set(timeouts)
            return
        for phase in sorted(set(timeouts) - self._seen_timeouts):
            self._seen_timeouts.add(phase)
            if self.seat is not None and self.seat in timeouts[phase]:
                label = ""
                for note in getattr(table, "notes", []):
                    if note.phase == phase and "(" in note.text:
                        label = _plain_label(note.text[note.text.find("(") + 1:-1])
                self._deadline = None
                self._timeout_words = ("Time ran out%s: your move was not sent in time and counts as no move "
                                       "(no bids, no splash)." % (" for %s" % label if label else ""))
                self._say(self._timeout_words, "class:error")

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
        self._deadline = _deadline_of(peer, table)
        rnd = view.get("round") if isinstance(view, dict) else None
        if rnd != self._prompted_round:
            self._prompted_round = rnd
            self._confirm = None
            words = _new_round_words(view, seat, self._sent_action)
            if self._timeout_words:        # do not let the new round hide that we timed out
                self._say("%s %s" % (self._timeout_words, words), "class:error")
            else:
                self._say(words, "class:info")
        self._timeout_words = ""
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

    def _sealed(self) -> bool:
        """Our move for the round on screen is sealed (and no new decision is open)."""
        p = self._pending
        return self._sent is not None and (p is None or p.submitted)

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
        if cmd not in ("submit", "send", "ok", "go", "help", "h", "?"):
            self._confirm = None
        if cmd in ("q", "quit", "exit"):
            self._quit_key()
            return
        self._quit_armed = False
        if cmd in ("help", "h", "?"):
            self._toggle_help()
            self._say(LONG_HELP if self._help_shown else "help closed")
            return
        self._toggle_help(False)
        if cmd in ("submit", "send", "ok", "go"):
            self._submit()
            return
        if cmd not in ("bid", "b", "splash", "s", "extra", "x", "e", "convert", "c", "clear", "reset"):
            raise CommandError("unknown command %r; commands: bid, splash, extra, convert, clear, submit, help" % cmd)
        if self.seat is None:
            raise CommandError("you are spectating: there is nothing to move (q quits)")
        snap = self._snap
        if snap is not None and snap.over:
            raise CommandError("the game is over: there are no more moves (q quits)")
        if self._sealed():
            raise CommandError("your move for round %d is sealed and cannot be changed; waiting for %s" % (
                self._sent[0], (_who(snap.missing, self.seat) if snap else "") or "the others"))
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
            self._say_draft("bids: " + (", ".join("#%d=%d" % kv for kv in sorted(d.bids.items())) or "none"))
        elif cmd in ("splash", "s"):
            d.splash = parse_space(args)
            self._say_draft("splash: %s" % _space_words(d.splash))
        elif cmd in ("extra", "x", "e"):
            d.extra = parse_space(args)
            self._say_draft("extra: %s" % _space_words(d.extra))
        elif cmd in ("convert", "c"):
            if len(args) != 1:
                raise CommandError("usage: convert N (garnets to turn into tokens this round)")
            d.convert = _parse_int(args[0], "the number of garnets")
            self._say_draft("convert: %d garnet%s" % (d.convert, "" if d.convert == 1 else "s"))
        else:
            self._draft = Draft(round=d.round)
            self._say("draft cleared")

    def _typing(self, _buffer: Buffer) -> None:
        self._quit_armed = False

    def _quit_key(self) -> None:
        """Quitting in the middle of a game takes a second press: our seat would stop moving."""
        snap = self._snap
        if self.seat is None or snap is None or snap.over or self._quit_armed:
            self._exit_now()
            return
        self._quit_armed = True
        self._say("Quit in the middle of the game? Your seat stops moving and will be timed out (easel resume "
                  "continues the game later). Press q or Ctrl-Q again to quit, or type any command to stay.",
                  "class:error")

    def _problems(self) -> list[str]:
        view = self._view()
        if self.seat is None or not isinstance(view, dict):
            return []
        return _draft_problems(view, self.seat, self._draft)

    def _say_draft(self, text: str) -> None:
        """Report a draft change, with what is wrong with the draft so far (if anything)."""
        probs = self._problems()
        if probs:
            self._say("%s (the draft cannot be sent yet: see \"to fix\")" % text, "class:error")
        else:
            self._say(text)

    def _submit(self) -> None:
        if self.seat is None:
            raise CommandError("you are spectating: there is nothing to submit (q quits)")
        p = self._pending
        snap = self._snap
        if p is None or p.submitted:
            if snap is not None and snap.over:
                raise CommandError("the game is over (q quits)")
            if self._sent is not None:
                raise CommandError("your move for round %d is already sealed; waiting for %s" % (
                    self._sent[0], (_who(snap.missing, self.seat) if snap else "") or "the others"))
            raise CommandError("it is not your turn to move yet%s" % (" (waiting for %s)" % _who(snap.missing, self.seat) if snap and snap.missing else ""))
        action = self._draft.action()
        if p.game is not None:
            try:
                action = p.game.check(p.state, p.seat, action)
            except IllegalAction as exc:
                more = len(self._problems()) > 1
                raise CommandError("illegal move: %s - fix it%s and press Enter again" % (
                    exc, " (\"to fix\" above lists every problem)" if more else "")) from None
        if action.get("splash") is None and self._confirm != action:
            self._confirm = dict(action)
            what = "no bids and no splash" if not action.get("bids") else "no splash"
            self._say("Your move has %s. Press Enter again to seal it as it is, or add a splash: "
                      "splash ROW COL R/B/Y" % what, "class:error")
            return
        self._confirm = None
        text = p.game.describe(p.state, p.seat, action) if p.game is not None else repr(action)
        p.submitted = True
        try:
            p.token.run_sync_soon(self._resolve, p, action)
        except trio.RunFinishedError:
            p.submitted = False
            raise CommandError("the game node has stopped; the move was not sent") from None
        self._sent = (p.view["round"], text)
        self._sent_action = (p.view["round"], dict(action))
        self._deadline = None
        self._say("Round %d move sealed and sent: %s" % (p.view["round"], text), "class:sent")

    # -- panes -----------------------------------------------------------------
    def _pane_status(self, width: int | None = None) -> list:
        snap = self._snap
        out: list = []
        p = self._pending
        if p is not None and not p.submitted:
            out.append(("class:yourmove", " YOUR MOVE (round %d) " % p.view["round"]))
            left = None if self._deadline is None else self._deadline - time.monotonic()
            if left is not None:
                left = max(0, int(left))
                out.append(("class:error" if left <= 30 else "class:waiting",
                            " about %d:%02d left" % (left // 60, left % 60)))
            tail = " - type commands below, Enter on an empty line submits"
            if _width(out) + len(tail) > (width or self._cols()):
                tail = " - Enter on an empty line submits"
            out.append(("", tail))
        elif snap is None:
            out.append(("class:waiting", "Waiting for the table..."))
        else:
            style, text = _step_status(snap)
            out.append((style, text))
        return self._wrapped(out, width)

    def _wrapped(self, frags: list, width: int | None = None, indent: str = "  ") -> list:
        return _join(_wrap(list(frags), width or self._cols(), indent))

    def _pane_draft(self, width: int | None = None) -> list:
        if self.seat is None:
            return [("class:label", "Spectating.")]
        self._sync_draft()
        view = self._view()
        d = self._draft
        p = self._pending
        snap = self._snap
        if snap is not None and snap.over:
            return [("class:label", "The game is over - PgUp/PgDn scroll, q quits.")]
        if self._sealed():
            return self._wrapped([("class:sent", "Sealed (round %d): %s" % self._sent)], width)
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
        probs = self._problems() if p is not None or view is not None else []
        if probs:
            out.append(("class:error", " | to fix: " + "; ".join(probs)))
        return self._wrapped(out, width)

    def _pane_message(self, width: int | None = None) -> list:
        style, text = self._message
        return self._wrapped([(style, text)], width) if text else [("", "")]

    def _pane_help(self, width: int | None = None) -> list:
        if self.seat is None:
            return [("class:help", HELP_SPECTATOR)]
        if self._snap is not None and self._snap.over:
            return [("class:help", HELP_GAME_OVER)]
        cols = width or self._cols()
        for text in (HELP_GAME, HELP_GAME_SHORT, HELP_GAME_TINY):
            if cols >= len(text):
                break
        return [("class:help", text)]

    def render_text(self) -> str:
        """Plain text of the main panes, the status, the draft and the message (for tests), TEXT_WIDTH wide."""
        parts = [self._main_text()]
        w = TEXT_WIDTH
        for pane in (self._pane_status(w), self._pane_draft(w), self._pane_message(w), self._pane_help(w)):
            parts.append(fragment_list_to_text(pane) + "\n")
        return "".join(parts)


def _deadline_of(peer: Any, table: Any) -> float | None:
    """Estimate (as a time.monotonic() value) when the open step times out (``Peer.deadline``).

    The time-out is voted by the other peers on their own clocks, so this is
    only an estimate; None when the peer does not say.
    """
    deadline = getattr(peer, "deadline", None)
    if not callable(deadline):
        return None
    try:
        at = deadline()
        now = trio.current_time()
    except (RuntimeError, TypeError, ValueError):
        return None
    if not isinstance(at, (int, float)) or isinstance(at, bool):
        return None
    return time.monotonic() + max(0.0, at - now)


def _draft_problems(view: dict, seat: int, d: Draft) -> list[str]:
    """What the rules would refuse in this draft, all at once (the game's check stays the judge)."""
    probs = []
    tokens = view["tokens"][seat]
    garnets = view["garnets"][seat]
    cost = view["rules"]["extra_cost"]
    if d.extra is not None:
        if view["extra_used"][seat]:
            probs.append("you have already used your extra submission")
        elif d.splash is None:
            probs.append("the extra splash needs a main splash too")
    need = d.convert + (cost if d.extra is not None and not view["extra_used"][seat] else 0)
    if need > garnets:
        what = []
        if d.convert:
            what.append("convert %d" % d.convert)
        if d.extra is not None and not view["extra_used"][seat]:
            what.append("the extra (%d)" % cost)
        probs.append("%s need%s %d garnet%s, you have %d" % (
            " + ".join(what), "s" if len(what) == 1 and not d.convert else "", need, "" if need == 1 else "s", garnets))
    budget = tokens + min(d.convert, garnets)
    if d.total() > budget:
        probs.append("bids total %d, more than your %d tokens%s" % (
            d.total(), tokens, " + %d converted" % min(d.convert, garnets) if min(d.convert, garnets) else ""))
    offer = {sh["id"] for sh in view.get("offer", [])}
    gone = sorted(sid for sid in d.bids if sid not in offer)
    if gone:
        probs.append("sheet%s %s no longer on offer" % ("s" if len(gone) > 1 else "", " ".join(map(str, gone))))
    return probs


def _space_words(sp: Sequence | None) -> str:
    if sp is None:
        return "none"
    return "%s at row %d, column %d (and its neighbours)" % (
        {"R": "red", "B": "blue", "Y": "yellow"}.get(sp[2], sp[2]), sp[0], sp[1])


def _new_round_words(view: dict, seat: int, sent: tuple | None) -> str:
    """The message when a round asks for our move: what happened to us last round."""
    rnd = view.get("round", 0)
    head = "Round %d of %d: your move." % (rnd, view.get("rules", {}).get("rounds", 0))
    lr = view.get("last_round")
    if not lr:
        return head + " Bid, splash, then Enter on an empty line to seal it; help explains more."
    mine = []
    my_bids = {}
    if sent is not None and sent[0] == lr["round"]:
        my_bids = {int(k): v for k, v in (sent[1].get("bids") or {}).items()}
    for a in lr["auction"]:
        sid = a["sheet"]
        if a["outcome"] == "sold" and a["winner"] == seat:
            mine.append("you took #%d for %d (value %d)" % (sid, a["price"], a["value"]))
        elif sid in my_bids and a["outcome"] == "sold":
            mine.append("#%d went to seat %d for %d (you bid %d)" % (sid, a["winner"], a["price"], my_bids[sid]))
        elif sid in my_bids and a["outcome"] == "tie":
            tied = a.get("tied") or []
            if seat in tied:
                others = [s for s in tied if s != seat]
                mine.append("you tied for #%d%s: discarded, nobody paid" % (
                    sid, " with %s" % _who(others, seat) if others else ""))
            else:
                mine.append("#%d: higher bids tied, discarded" % sid)
    for e in lr["scored"]:
        if e["seat"] == seat:
            mine.append("you scored #%d for %d point%s" % (e["sheet"], e["points"], "" if e["points"] == 1 else "s"))
    if not mine:
        mine.append("you took nothing and scored nothing")
    return "%s Round %d: %s." % (head, lr["round"], "; ".join(mine))


def _final_words(res: dict | None, seat: int) -> str:
    if not res:
        return "The game is over."
    place = res["ranking"].index(seat) + 1 if seat in res["ranking"] else 0
    pts = res["points"].get(str(seat), 0)
    text = "Game over: you finished %s of %d with %d point%s." % (
        _ordinal(place), len(res["ranking"]), pts, "" if pts == 1 else "s")
    if res.get("draw"):
        return text + " Everyone has the same points: a draw, a new match is played."
    tol = res.get("tokens_of_life", {}).get(str(seat), 0)
    if tol:
        text += " You win %d Token%s of Life!" % (tol, "" if tol == 1 else "s")
    elif res.get("winners"):
        text += " Winner: %s." % _who(res["winners"], seat)
    if seat in res.get("elimination_candidates", []):
        text += " You are %s elimination candidate." % ("the" if len(res["elimination_candidates"]) == 1 else "an")
    return text


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
        self._seat_note = ""
        try:
            self._table = Table.start(self.entries[0])
        except RuleError as exc:
            raise ValueError("entry 0 is not a valid genesis: %s" % exc) from None
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < self._table.players):
            self._seat_note = "there is no seat %s in this %d-seat game: watching as a spectator" % (seat, self._table.players)
            self.seat = seat = None
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
        bind(["?"], self._toggle_help)

        @kb.add("escape", filter=Condition(lambda: self._help_shown))
        def _(event) -> None:
            self._toggle_help(False)

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
        cfg = table.config if isinstance(getattr(table, "config", None), dict) else (doc["config"] or {})
        name = "the Painting Game" if doc["game"] == "painting" else doc["game"]
        if doc["game"] == "painting" and {"edition", "rounds", "starting_tokens", "tokens_per_round",
                                          "first_round_sheets", "sheets_per_round", "starting_garnets"} <= set(cfg):
            opts = ("%(edition)s edition, %(rounds)d rounds, %(starting_tokens)d tokens + %(tokens_per_round)d a round, "
                    "%(starting_garnets)d garnets, %(first_round_sheets)d sheets in round 1 then %(sheets_per_round)d" % cfg)
        else:
            opts = ", ".join("%s %s" % (k.replace("_", " "), v) for k, v in sorted(cfg.items())) or "default options"
        return "the table opens (genesis): %s for %d seats; %s" % (name, len(doc["seats"]), opts)

    def _log_lines(self) -> list[Line]:
        """Newest first: the log entries up to the one on screen, described."""
        lines: list[Line] = []
        for i in range(self.pos, max(-1, self.pos - LOG_KEEP), -1):
            style = "bold" if i == self.pos else ""
            lines.append([(style, "%4d  %s" % (i, self._descs[i]))])
        return lines

    def _help_closing(self) -> str:
        return "? or Esc closes it; PgUp/PgDn scrolls"

    def _help_sections(self) -> list:
        keys = [
            ("Right / Left (l / h)", "one log entry forward / back (also Space or Enter / Backspace)"),
            ("Down / Up (n / p)", "to the next / previous entry that closed a round (the moves were applied)"),
            ("Home / End (g / G)", "the first / last entry"),
            ("PgUp / PgDn", "scroll the middle pane"),
            ("?", "show or hide this page"),
            ("q, Ctrl-Q", "quit"),
        ]
        return [("Replay keys", keys), ("The Painting Game in short", _RULES_HELP)]

    def _describe(self, table: Table, ent: Any) -> str:
        if isinstance(ent, Timeout):
            return "time-out certificate: %s did not move in time%s - counted as no move" % (
                _who(list(ent.seats), self.seat) or "nobody", " (%s)" % _plain_label(table.step.label) if table.step else "")
        if isinstance(ent, Genesis):
            return "a second genesis"
        ev: Event = ent
        seat = table.seat_of(ev.author)
        st = table.step
        who = "seat %s" % seat if seat != self.seat else "seat %s (you)" % seat
        purpose = st.purpose if st is not None else "move"
        if ev.kind == "commit":
            label = _plain_label(st.label) if st is not None else ""
            return "%s commits to %s" % (who, "its share of the shared randomness" if purpose == "seed" else "a sealed move (%s)" % label)
        if ev.kind == "reveal":
            if purpose == "seed":
                return "%s reveals its share of the shared randomness" % who
            try:
                return "%s reveals: %s" % (who, _without_seat(table.game.describe(table.state, seat, ev.body["value"]), seat))
            except Exception:
                return "%s reveals its move" % who
        try:
            return "%s plays: %s" % (who, _without_seat(table.game.describe(table.state, seat, ev.body["action"]), seat))
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
    def _pane_entry(self, width: int | None = None) -> list:
        width = width or self._cols()
        lines = _wrap([("bold", "Entry %d of %d: " % (self.pos, self.last)), ("", self._descs[self.pos])], width)
        if self._error is not None and self.pos == len(self._snaps) - 1:
            lines += _wrap([("class:error", self._error)], width)
        if self._seat_note:
            lines += _wrap([("class:label", self._seat_note)], width)
        return _join(lines)

    def _pane_status(self, width: int | None = None) -> list:
        snap = self._snap
        if snap is None:
            return []
        style, text = _step_status(snap)
        return _join(_wrap([(style, "Table now: " + text)], width or self._cols()))

    def _pane_title(self) -> list:
        return [("class:title", _title_text(self.title, self._snap, "entry %d/%d" % (self.pos, self.last)))]

    def render_text(self) -> str:
        return self._main_text() + "".join(
            fragment_list_to_text(p) + "\n"
            for p in (self._pane_entry(TEXT_WIDTH), self._pane_status(TEXT_WIDTH), [("", HELP_REPLAY)])
        )
