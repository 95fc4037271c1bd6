"""The Painting Game's screen (see cli/screens/__init__.py for the protocol).

Coordinates are 0-based everywhere (rows 0-4 top to bottom, columns 0-4 left
to right), as in the rules engine's messages and move descriptions.

Commands (typed on the command line, Enter runs them):

    bid SHEET TOKENS [SHEET TOKENS ...]   bid (0 removes the bid); also b, "bid 3=12"
    splash ROW COL COLOUR                  main splash, e.g. "splash 2 3 R" or "s 23r"
    splash none                            no splash
    extra ROW COL COLOUR | extra none      the once-per-game extra submission (costs garnets)
    convert N                              convert N garnets to tokens this round
    clear                                  empty the draft
    submit  (or Enter on an empty line)    check the draft and send it; a move without a
                                           splash takes a second Enter

The board: each grid cell a coloured block with its letter (for colour-blind
players); the cells the last round changed in [brackets], a cell that got all
three primaries as [k] once it is white again; each sheet in its own frame with
its number, value and owner (or your bid); a sheet that just matched framed
under "Just matched".  When a round closes, ``beats`` replays it step by step
(see cli/screens/__init__.py, "The reveal moment").

The draft is one round's sealed move: it is kept until the round on screen
changes, and once sent it is shown as sealed until the next round.  The draft
line lists everything the rules would refuse ("to fix: ...").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from core.engine import IllegalAction
from core.games.painting import rules as _rules
from core.games.painting import sheets as _sheets

from . import (
    Beat,
    CommandError,
    Context,
    Line,
    Say,
    Screen,
    Send,
    layout_cards,
    place_words,
    plural,
    shared_places,
    side_by_side,
    seat_name,
    who,
    width_of,
    wrap,
)

__all__ = ["PaintingScreen", "SCREEN", "Draft", "parse_space", "new_round_words"]

SIZE = 5
WIDE = 140          # from this many columns the sheets on offer and the owned ones sit side by side

HELP_GAME = (
    "bid SHEET N [SHEET N..] | splash ROW COL R/B/Y | extra ROW COL R/B/Y | convert N | "
    "clear | Enter=submit | help | PgUp/PgDn scroll | q quit"
)
HELP_GAME_SHORT = "bid ID N | splash ROW COL R/B/Y | extra .. | convert N | clear | Enter=submit | help | q"
HELP_GAME_TINY = "bid ID N | splash ROW COL R/B/Y | Enter=submit | help | q quit"

_COMMAND_HELP = [
    ("bid SHEET N [SHEET N..]",
     "bid N tokens on a sheet on offer: bid 3 12, or several at once: bid 3 12 5 4; bid 3 0 removes a bid"),
    ("splash ROW COL R|B|Y", "your splash this round: splash 2 3 R (short: s 23r); splash none removes it"),
    ("extra ROW COL R|B|Y", "the once-per-game extra splash (costs %(extra_cost)d garnets): extra 0 4 Y; extra none"),
    ("convert N", "turn N garnets into N tokens this round (convert 0 undoes it)"),
    ("clear", "empty the draft"),
    ("submit / empty Enter", "check the draft and seal it; a sealed move cannot be changed"),
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
    ("Screen", "grid cells are coloured blocks with their letter; [X] a cell the last round changed, [k] one "
               "that got all three primaries last round (white now); sheets are framed with their number, value "
               "(v) and owner (or your bid). When a round's moves are opened the screen shows them step by step: "
               "the bids side by side, who took what, each splash landing with its mixing, the matches - "
               "(X) marks a matching sheet's cells. Space (on an empty line) or Esc skips it."),
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
EXTRA_STYLES = {
    "cell.wasblack": "bg:#ffffff fg:#000000 bold",
    "changed": "underline",
    "matchcell": "underline",
    "matched": "bold fg:ansigreen",
    "frame": "fg:ansibrightblack",
    "win": "bold fg:ansigreen",
    "tie": "bold fg:ansiyellow",
}

_PRIMARY_WORDS = {"R": "R", "RED": "R", "B": "B", "BLUE": "B", "Y": "Y", "YELLOW": "Y"}
_NONE_WORDS = {"NONE", "NO", "OFF", "-", "CLEAR", "0"}



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


# --------------------------------------------------------------------------- the grid


def _letters(vgrid: Any) -> list[list[str]] | None:
    """A view's grid (5 rows of cell dicts) -> 5 rows of colour letters; None if it is not one."""
    try:
        return [[str(cell["colour"]) for cell in row] for row in vgrid][:SIZE]
    except (TypeError, KeyError):
        return None


def _cell_frag(colour: str, mark: str | None) -> tuple:
    """One grid cell: a coloured block with its letter; a changed cell in brackets, a cell that was black
    last round (white now) as [k], the cells of a matching sheet in (..)."""
    style = "class:cell.%s" % colour.lower()
    if mark == "new":
        return (style + " class:changed", "[%s]" % colour)
    if mark == "was-black":
        return ("class:cell.wasblack class:changed", "[k]")
    if mark == "match":
        return (style + " class:matchcell", "(%s)" % colour)
    if mark == "splash":
        return (style + " class:changed", "<%s>" % colour)
    return (style, " %s " % colour)


def _grid_lines(letters: list[list[str]] | None, marks: Mapping | None = None,
                head: Line | None = None, legend: Sequence[Line] = ()) -> list[Line]:
    """The 5x5 grid, 18 columns wide: row and column numbers, then a coloured block per cell (its letter
    kept for colour-blind players); ``marks`` (row, col) -> "new" / "was-black" / "match" / "splash"."""
    marks = marks or {}
    lines: list[Line] = [head or [("class:header", "Grid"), ("class:label", " (row col)")]]
    lines.append([("class:label", "   " + "".join(" %d " % c for c in range(SIZE)))])
    for r in range(SIZE):
        line: Line = [("class:label", " %d " % r)]
        for c in range(SIZE):
            colour = letters[r][c] if letters else "W"
            line.append(_cell_frag(colour, marks.get((r, c))))
        lines.append(line)
    return lines + list(legend)


def _masks(letters: list[list[str]]) -> tuple:
    return tuple(_rules.COLOUR_MASK.get(ch, 0) for row in letters for ch in row)


def _primaries(letter: str) -> list[str]:
    mask = _rules.COLOUR_MASK.get(letter, 0)
    return [p for p, bit in _rules.PRIMARY_BIT.items() if mask & bit]


def _unmask(grid: Sequence[int]) -> list[list[str]]:
    text = _rules.colour_string(grid)
    return [list(text[r * SIZE:(r + 1) * SIZE]) for r in range(SIZE)]


def _round_moves(snap: Any, lr: Mapping) -> dict | None:
    """seat -> the move it made in the round ``lr`` summarises: from the view when the rules give them
    (``last_round["moves"]``), else the snapshot's last moves (a round applies one move per seat, all at
    once, so they are the table's last ``players`` moves); None when neither says."""
    given = lr.get("moves")
    if isinstance(given, list) and given and all(isinstance(m, dict) for m in given):
        return {s: m for s, m in enumerate(given)}
    view = snap.view
    n = view.get("players", 0)
    tail = list(getattr(snap, "moves_tail", ()) or ())
    if n <= 0 or len(tail) < n or getattr(snap, "moves", 0) < n * lr["round"]:
        return None
    last = tail[-n:]
    seats = [t[1] for t in last]
    if sorted(seats) != list(range(n)) or not all(isinstance(t[2], Mapping) for t in last):
        return None
    return {t[1]: t[2] for t in last}


def _splashes(move: Mapping) -> list:
    out = []
    for key in ("splash", "extra"):
        sp = move.get(key)
        if isinstance(sp, (list, tuple)) and len(sp) == 3:
            out.append([int(sp[0]), int(sp[1]), str(sp[2])])
    return out


def _plus(r: int, c: int) -> list[tuple[int, int]]:
    return [(r + dr, c + dc) for dr, dc in ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE]


@dataclass
class RoundStory:
    """What one round did, as far as the view (and the snapshot) tell it."""

    round: int
    before: list[list[str]] | None     # the grid as the round opened
    after: list[list[str]]             # the grid after the splashes (black cells still black)
    moves: dict | None                 # seat -> its opened move
    changed: set                       # cells whose colour the round changed
    black: set                         # cells that got all three primaries


def round_story(snap: Any) -> RoundStory | None:
    """The latest resolved round of the snapshot's view (None before the first)."""
    view = snap.view if snap is not None else None
    if not isinstance(view, dict) or not view.get("last_round"):
        return None
    lr = view["last_round"]
    after = _letters(lr.get("grid"))
    if after is None:
        return None
    before = _letters(lr.get("before")) if lr.get("before") is not None else None
    prev = getattr(snap, "prev_view", None)
    if before is None and isinstance(prev, dict) and prev.get("round") == lr["round"] and prev.get("phase") == "play":
        before = _letters(prev.get("grid"))
    moves = _round_moves(snap, lr)
    black = {(r, c) for r in range(SIZE) for c in range(SIZE) if after[r][c] == "K"}
    if before is not None:
        changed = {(r, c) for r in range(SIZE) for c in range(SIZE) if before[r][c] != after[r][c]}
        if moves is not None:     # the edition where black turns white at once: find it from the splashes
            spl = [sp for s in sorted(moves) for sp in _splashes(moves[s])]
            try:
                full = _rules.mix(_masks(before), spl, "round")
                black |= {(i // SIZE, i % SIZE) for i, m in enumerate(full) if m == _rules.ALL_PRIMARIES}
            except Exception:
                pass
    elif moves is not None:       # no grid from before the round: the splashed cells stand in
        changed = {rc for s in moves for sp in _splashes(moves[s]) for rc in _plus(sp[0], sp[1])}
    else:
        changed = set()
    return RoundStory(lr["round"], before, after, moves, changed, black)


def _board_marks(view: dict, story: RoundStory | None) -> tuple[dict, list[Line]]:
    """Marks and legend for the settled grid: the cells the last round changed, the black ones."""
    if story is None:
        return {}, []
    now = _letters(view.get("grid")) or story.after
    marks: dict = {}
    for rc in story.changed:
        marks[rc] = "new"
    cleared = {rc for rc in story.black if now[rc[0]][rc[1]] != "K"}
    for rc in cleared:
        marks[rc] = "was-black"
    legend: list[Line] = []
    if story.changed - cleared:
        legend.append([("class:cell.w class:changed", "[X]"), ("class:label", " changed in r%d" % story.round)])
    if cleared and (view.get("rules") or {}).get("black") == "immediate":
        legend.append([("class:cell.wasblack class:changed", "[k]"), ("class:label", " R+B+Y->W in r%d" % story.round)])
    elif cleared:
        legend.append([("class:cell.wasblack class:changed", "[k]"), ("class:label", " black r%d, now W" % story.round)])
    elif story.black:
        legend.append([("class:cell.k", " K "), ("class:label", " R+B+Y black")])   # fits board_width
    return marks, legend


# --------------------------------------------------------------------------- sheets, framed


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


def framed(title: Line, body: Sequence[Line], foot: Line = (), style: str = "class:frame") -> list[Line]:
    """A box around ``body``: ``title`` in the top border, ``foot`` in the bottom one."""
    title, foot = list(title), list(foot)
    inner = max([width_of(l) + 2 for l in body] + [width_of(title) + 1, width_of(foot) + 1, 6])
    out: list[Line] = [[(style, "┌")] + title + [(style, "─" * (inner - width_of(title)) + "┐")]]
    for line in body:
        out.append([(style, "│"), ("", " ")] + list(line) + [("", " " * (inner - 1 - width_of(line))), (style, "│")])
    out.append([(style, "└")] + foot + [(style, "─" * (inner - width_of(foot)) + "┘")])
    return out


def sheet_card(sheet: Mapping, value: int | None = None, foot: Line = (), style: str = "class:frame",
               title: Line | None = None) -> list[Line]:
    """One sheet in its own frame: number and value on top, ``foot`` (owner, bid, ...) below."""
    head = title if title is not None else [("bold", "#%d" % sheet["id"]),
                                            ("", " v%d" % (sheet["value"] if value is None else value))]
    return framed(head, _sheet_drawing(sheet["cells"]), foot, style)


def _offer_lines(view: dict | None, bids: dict, width: int) -> list[Line]:
    if not view:
        return [[("class:header", "Sheets on offer")], [("class:label", "  (none yet)")]]
    head: Line = [("class:header", "Sheets on offer"),
                  ("class:label", " (round %d; v = value if bought now = cells + round)" % view["round"])]
    if not view["offer"]:
        return [head, [("class:label", "  (none this moment)")]]
    cards = []
    for sh in view["offer"]:
        amt = bids.get(sh["id"])
        foot: Line = [("class:bid", "bid %d" % amt)] if amt else []
        cards.append(sheet_card(sh, foot=foot, style="class:bid" if amt else "class:frame"))
    return [head] + layout_cards(cards, width, gap=1)


def _owner(s: int, me: int | None) -> Line:
    return [("class:you" if s == me else "class:label", "you" if s == me else "seat %d" % s)]


def _owned_lines(view: dict | None, me: int | None, width: int) -> list[Line]:
    if view and view.get("phase") == "over":
        head: Line = [("class:header", "Sheets never scored"), ("class:label", " (they score nothing; v = value at the end)")]
    else:
        head = [("class:header", "Owned sheets"),
                ("class:label", " (v = value now; an unscored sheet loses 1 each round, never below 1)")]
        if width_of(head) > width:     # a side column (a wide terminal): the same, shorter, on one line
            head = [("class:header", "Owned sheets"), ("class:label", " (v = value now; unscored: -1 a round, min 1)")]
    if not view:
        return [head, [("class:label", "  (none)")]]
    order = sorted(range(view["players"]), key=lambda s: (s != me, s))
    cards = []
    for s in order:
        for h in view["owned"][s]:
            cards.append(sheet_card(h, foot=_owner(s, me), style="class:you" if s == me else "class:frame"))
    if not cards:
        return [head, [("class:label", "  (none)")]]
    bought = ["#%d %s for %d in round %d" % (h["id"], "you" if s == me else "seat %d" % s, h["price"], h["bought"])
              for s in order for h in view["owned"][s] if "price" in h and "bought" in h]
    lines = [head] + layout_cards(cards, width, gap=1)
    if bought:
        lines += wrap([("class:label", "Bought: "), ("", ", ".join(bought))], width)
    return lines


def _matched_cards(view: dict, me: int | None, rnd: int | None) -> list[list[Line]]:
    """The sheets that matched in round ``rnd``, framed and highlighted."""
    cards = []
    for e in view.get("scored") or []:
        if rnd is not None and e.get("round") == rnd and e.get("cells"):
            title: Line = [("class:matched", "#%d +%d" % (e["id"], e["points"]))]
            foot = [("class:matched", "MATCH ")] + _owner(e["seat"], me)
            cards.append(sheet_card(e, foot=foot, style="class:matched", title=title))
    return cards


def _scored_lines(view: dict | None, me: int | None, width: int = 100) -> list[Line]:
    if not view or not view["scored"]:
        return [[("class:header", "Scored"), ("", ": none yet")]]
    parts = ["#%d %s +%d (round %d)" % (e["id"], "you" if e["seat"] == me else "seat %d" % e["seat"], e["points"], e["round"])
             for e in view["scored"]]
    lines = wrap([("class:header", "Scored"), ("", ": " + ", ".join(parts))], width)
    lr = view.get("last_round")
    cards = _matched_cards(view, me, lr["round"] if lr else None)
    if cards:
        lines.append([("class:matched", "Just matched"), ("class:label", " in round %d (scored and discarded)" % lr["round"])])
        lines += layout_cards(cards, width, gap=1)
    return lines


# --------------------------------------------------------------------------- the reveal


BEAT_WIDTH = 96     # the reveal's tables are laid out for a 100-column terminal (the shell wraps them if narrower)
_NAMES = {"R": "red", "B": "blue", "Y": "yellow", "P": "purple", "O": "orange", "G": "green", "W": "white", "K": "black"}


def _who(s: int, me: int | None) -> str:
    return "you" if s == me else "seat %d" % s


def _bids_table(offer: Sequence[Mapping], moves: dict, players: int, me: int | None, auction: Sequence[Mapping] | None,
                width: int) -> list[Line]:
    """Bids per sheet side by side: a column per sheet, a row per seat (the winning bid highlighted),
    and, once ``auction`` is given, a row saying who took it."""
    out_by = {a["sheet"]: a for a in auction or []}
    name_w = 9
    col_w = 8
    per_row = max(1, (width - name_w) // col_w)
    lines: list[Line] = []
    for k in range(0, len(offer), per_row):
        chunk = offer[k:k + per_row]
        head: Line = [("class:label", "%-*s" % (name_w, "sheet"))]
        for sh in chunk:
            head.append(("bold", ("#%d v%d" % (sh["id"], sh["value"])).rjust(col_w)))
        lines.append(head)
        for s in range(players):
            row: Line = [("class:you" if s == me else "", "%-*s" % (name_w, _who(s, me)))]
            for sh in chunk:
                bid = (moves.get(s) or {}).get("bids", {}).get(str(sh["id"]), 0) if moves else 0
                a = out_by.get(sh["id"])
                style = ""
                if a is not None and bid:
                    if a["outcome"] == "sold" and a["winner"] == s:
                        style = "class:win"
                    elif a["outcome"] == "tie" and s in (a.get("tied") or []):
                        style = "class:tie"
                    else:
                        style = "class:label"
                row.append((style, ("%d" % bid if bid else "-").rjust(col_w)))
            lines.append(row)
        if auction is not None:
            row = [("class:label", "%-*s" % (name_w, "goes to"))]
            for sh in chunk:
                a = out_by.get(sh["id"])
                if a is None:
                    row.append(("", "?".rjust(col_w)))
                elif a["outcome"] == "sold":
                    w = _who(a["winner"], me)       # "seat N" (named by the shell) when it fits the column
                    row.append(("class:win", (w if len(w) < col_w else w.replace("seat ", "s")).rjust(col_w)))
                elif a["outcome"] == "tie":
                    row.append(("class:tie", "tie".rjust(col_w)))
                else:
                    row.append(("class:label", "-".rjust(col_w)))
            lines.append(row)
        if k + per_row < len(offer):
            lines.append([])
    return lines


def _auction_words(lr: Mapping, me: int | None) -> list[str]:
    out = []
    for a in lr["auction"]:
        if a["outcome"] == "sold":
            out.append("%s take%s #%d for %d (value %d)" % (_who(a["winner"], me), "" if a["winner"] == me else "s",
                                                            a["sheet"], a["price"], a["value"]))
        elif a["outcome"] == "tie":
            out.append("#%d: %s tied - discarded, nobody pays" % (a["sheet"], who(a.get("tied") or [], me)))
    unsold = [a["sheet"] for a in lr["auction"] if a["outcome"] not in ("sold", "tie")]
    if unsold:
        out.append("no bids on %s" % ", ".join("#%d" % i for i in unsold))
    return out or ["no sheet changed hands"]


def _mix_words(before: list[list[str]], after: list[list[str]], added: dict) -> list[str]:
    """ "2 2: R + Y = O orange" for each cell a splash changed."""
    out = []
    for (r, c) in sorted(added):
        b, a = before[r][c], after[r][c]
        if a == b:
            continue
        add = "+".join(sorted(added[(r, c)] - set(_primaries(b))))
        if not add:
            continue
        text = "%d %d: %s" % (r, c, "%s on white" % add if b == "W" else "%s + %s" % (b, add))
        if a == "K":
            text += " = K black (all three)"
        elif a == "W":
            text += " = W (all three: white)"
        elif a != add:
            text += " = %s %s" % (a, _NAMES.get(a, a))
        out.append(text)
    return out


def reveal_beats(snap: Any, before: Any, me: int | None) -> list[Beat]:
    """The round that just closed, step by step: bids, who took what, each seat's splash landing with its
    mixing, then the matches.  [] when the transition closed no round."""
    view = snap.view if snap is not None else None
    bview = before.view if before is not None else None
    if not isinstance(view, dict) or not view.get("last_round"):
        return []
    lr = view["last_round"]
    blr = bview.get("last_round") if isinstance(bview, dict) else None
    if blr and blr.get("round", 0) >= lr["round"]:
        return []
    story = round_story(snap)
    if story is None:
        return []
    r = lr["round"]
    n = view["players"]
    offer = list(bview["offer"]) if isinstance(bview, dict) and bview.get("round") == r and bview.get("offer") else []
    if not offer:      # the sold sheets at least (their values are known)
        offer = [{"id": a["sheet"], "value": a.get("value", 0), "cells": []} for a in lr["auction"]]
    moves = story.moves
    before_grid = story.before or story.after
    beats: list[Beat] = []

    def board(letters, marks=None, note="") -> list[Line]:
        head: Line = [("class:reveal", " r%d " % r), ("class:label", " %s" % note[:15])]
        return _grid_lines(letters, marks, head)

    # 1. the bids, side by side
    if moves is not None:
        extras = []
        for s in range(n):
            m = moves.get(s) or {}
            if m.get("convert"):
                extras.append("%s convert%s %d garnet%s" % (_who(s, me), "" if s == me else "s", m["convert"],
                                                          "" if m["convert"] == 1 else "s"))
        mid = _bids_table(offer, moves, n, me, None, BEAT_WIDTH)
        if extras:
            mid.append([("class:label", "; ".join(extras))])
        beats.append(Beat("Round %d: the sealed moves are opened - the bids, sheet by sheet" % r,
                          board(before_grid, None, "bids open"), mid))
    # 2. who took what
    mid = (_bids_table(offer, moves, n, me, lr["auction"], BEAT_WIDTH) if moves is not None else [])
    mid += [[("", "  " + w)] for w in _auction_words(lr, me)]
    beats.append(Beat("Round %d: who took what, and what they paid" % r, board(before_grid, None, "auction"), mid))
    # 3. each seat's splash landing
    if moves is not None and story.before is not None:
        grid = _masks(story.before)
        black = (view.get("rules") or {}).get("black", "round")
        landed: list = []
        any_splash = False
        for s in range(n):
            spl = _splashes(moves.get(s) or {})
            if not spl:
                continue
            any_splash = True
            prev = _unmask(_rules.mix(grid, landed, black))
            landed += spl
            now = _unmask(_rules.mix(grid, landed, black))
            added: dict = {}
            for row, col, colour in spl:
                for rc in _plus(row, col):
                    added.setdefault(rc, set()).add(colour)
            marks = {rc: "new" for rc in added if prev[rc[0]][rc[1]] != now[rc[0]][rc[1]]}
            for row, col, _ in spl:
                marks[(row, col)] = "splash" if (row, col) not in marks else marks[(row, col)]
            what = " and ".join("%s at %d %d" % (_NAMES[c], row, col) for row, col, c in spl)
            words = _mix_words(prev, now, added) or ["nothing changes: those colours were already there"]
            cap = "%s splash%s %s%s" % (_who(s, me), "" if s == me else "es", what,
                                       " (the second is the extra)" if len(spl) > 1 else "")
            beats.append(Beat(cap, board(now, marks, "splashes"), [[("", "  " + w)] for w in words]))
        if not any_splash:
            beats.append(Beat("Round %d: nobody splashed" % r, board(story.before, None, "no splash"), []))
    elif moves is not None:
        spl = ["%s: %s" % (_who(s, me), ", ".join("%s %d %d" % (c, row, col) for row, col, c in _splashes(moves[s])) or "none")
               for s in range(n)]
        beats.append(Beat("Round %d: the splashes land together" % r,
                          board(story.after, {rc: "new" for rc in story.changed}, "splashes"),
                          [[("", "  " + "; ".join(spl))]]))
    # 4. matches
    marks: dict = {rc: "new" for rc in story.changed}
    colours = "".join("".join(row) for row in story.after)
    for e in view.get("scored") or []:
        if e.get("round") == r and e.get("cells"):
            try:
                offsets = _sheets.match_offsets(colours, e["cells"])
            except Exception:
                offsets = []
            if offsets:
                dr, dc = offsets[0]
                for cr, cc, col in e["cells"]:
                    if col != "W":
                        marks[(cr + dr, cc + dc)] = "match"
    scored = lr.get("scored") or []
    if scored:
        cap = "Matches: " + ", ".join("%s #%d +%d" % (_who(e["seat"], me), e["sheet"], e["points"]) for e in scored)
    else:
        cap = "Round %d: no owned sheet matches the grid" % r
    mid = []
    cards = _matched_cards(view, me, r)
    if cards:
        mid += layout_cards(cards, BEAT_WIDTH, gap=1)
    if story.black:
        cells = ", ".join("%d %d" % rc for rc in sorted(story.black))
        if (view.get("rules") or {}).get("black") == "immediate":
            mid.append([("class:cell.w", " W "), ("", " all three primaries at %s: white at once (this edition)" % cells)])
        else:
            mid.append([("class:cell.k", " K "), ("", " black at %s: all three primaries - it matches nothing%s" % (
                cells, "" if view.get("phase") == "over" else " and is white from the next round"))])
    # the last beat has reached the round's result: the panes (seats' points and tokens) show it too
    beats.append(Beat(cap, board(story.after, marks, "matches"), mid, hold=2, after=True))
    return beats


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
            ties.append("#%d (%s)" % (a["sheet"], who(a.get("tied", []), me)))
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


def _result_lines(res: dict | None, players: int, me: int | None) -> list[Line]:
    if not res:
        return []
    lines: list[Line] = [[("class:over", "GAME OVER"), ("class:label", " - final ranking (points, then tokens left)")]]
    tol = res.get("tokens_of_life", {})
    earned = res.get("garnets_earned", {})
    winners = set(res.get("winners", []))
    ecs = set(res.get("elimination_candidates", []))
    places = _places(res)
    for s in res["ranking"]:
        notes = []
        if s in winners:
            notes.append("winner")
        n_tol = tol.get(str(s), 0)
        if n_tol:
            notes.append("%d Token%s of Life" % (n_tol, "" if n_tol == 1 else "s"))
        if s in ecs:
            notes.append("elimination candidate")
        g = earned.get(str(s), 0)
        tied = sum(1 for p in places.values() if p == places[s]) > 1
        row = "%2d%s %-13s %4d pts %12s  +%d garnet%s  %s" % (
            places[s], "=" if tied else ".", seat_name(s, me), res["points"][str(s)],
            plural(res["tokens"][str(s)], "token"), g, "" if g == 1 else "s", ", ".join(notes))
        lines.append([("class:you" if s == me else "", row.rstrip())])
    if res.get("draw"):
        lines.append([("", "Draw: every seat has the same points - no winner, no Tokens of Life, no elimination "
                           "candidate; a new match is played.")])
    else:
        if len(winners) > 2:
            lines.append([("", "%s are still tied after tokens: nobody gets a Token of Life." % who(res["winners"], me).capitalize())])
        if res.get("ec_chosen_by"):
            by = res["ec_chosen_by"]
            verb = "chooses" if len(by) == 1 and by[0] != me else "choose"
            lines.append([("", "Several elimination candidates: %s %s one of %s." % (
                who(by, me), verb, who(res["elimination_candidates"], me)))])
    return lines


def _space_words(sp: Sequence | None) -> str:
    if sp is None:
        return "none"
    return "%s at row %d, column %d (and its neighbours)" % (
        {"R": "red", "B": "blue", "Y": "yellow"}.get(sp[2], sp[2]), sp[0], sp[1])


def new_round_words(view: dict, seat: int, sent: tuple | None) -> str:
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
                    sid, " with %s" % who(others, seat) if others else ""))
            else:
                mine.append("#%d: higher bids tied, discarded" % sid)
    for e in lr["scored"]:
        if e["seat"] == seat:
            mine.append("you scored #%d for %d point%s" % (e["sheet"], e["points"], "" if e["points"] == 1 else "s"))
    if not mine:
        mine.append("you took nothing and scored nothing")
    return "%s Round %d: %s." % (head, lr["round"], "; ".join(mine))


def _places(res: dict) -> dict[int, int]:
    """Each seat's place: seats with the same points and tokens left share one (the ranking's order)."""
    return shared_places(res["ranking"], lambda s: (res["points"].get(str(s)), res["tokens"].get(str(s))))


def _final_words(res: dict | None, seat: int) -> str:
    if not res:
        return "The game is over."
    if seat not in res["ranking"]:
        return "The game is over."
    places = _places(res)
    place = places[seat]
    shared = sum(1 for p in places.values() if p == place) > 1
    pts = res["points"].get(str(seat), 0)
    text = "Game over: you finished %s with %d point%s." % (
        place_words(place, len(res["ranking"]), shared), pts, "" if pts == 1 else "s")
    if res.get("draw"):
        return text + " Everyone has the same points: a draw, a new match is played."
    tol = res.get("tokens_of_life", {}).get(str(seat), 0)
    if tol:
        text += " You win %d Token%s of Life!" % (tol, "" if tol == 1 else "s")
    elif res.get("winners"):
        text += " Winner: %s." % who(res["winners"], seat)
    if seat in res.get("elimination_candidates", []):
        text += " You are %s elimination candidate." % ("the" if len(res["elimination_candidates"]) == 1 else "an")
    return text




_HELP_DEFAULTS = {"rounds": 6, "starting_tokens": 30, "tokens_per_round": 10, "extra_cost": 7,
                  "garnet_divisor": 25, "black": "round"}


class PaintingScreen(Screen):
    """The grid, the seats' tokens and garnets, the sheets, and one sealed move a round."""

    board_width = 20
    names_in_middle = True     # its columns and card edges keep their width with names (with_names)
    styles = {"bid": "bold fg:ansimagenta", **{"cell.%s" % k.lower(): v for k, v in CELL_STYLE.items()}, **EXTRA_STYLES}
    commands = {"bid": "bid", "b": "bid", "splash": "splash", "s": "splash", "extra": "extra", "x": "extra",
                "e": "extra", "convert": "convert", "c": "convert", "clear": "clear", "reset": "clear"}
    timeout_effect = "no bids, no splash"
    chance_words = "dealing the next sheets"
    mark_words = ("round", "closed a round (the moves were applied)")

    def __init__(self) -> None:
        self.draft = Draft()
        self._sent: tuple | None = None            # (round, description) of our sealed move
        self._sent_action: tuple | None = None     # (round, action) of our sealed move
        self._confirm: dict | None = None          # a move waiting for a second Enter
        self._prompted_round: int | None = None    # the round we last announced as "your move"

    # -- the draft ---------------------------------------------------------------
    def _sync(self, ctx: Context) -> None:
        """A new round on screen: a fresh draft, and the sealed move is old news."""
        view = ctx.view
        if not isinstance(view, dict):
            return
        if self.draft.round != view["round"]:
            self.draft = Draft(round=view["round"])
        if self._sent is not None and self._sent[0] != view["round"]:
            self._sent = None

    def _sealed(self, ctx: Context) -> bool:
        """Our move for the round on screen is sealed (and no new decision is open)."""
        return self._sent is not None and not ctx.deciding

    def problems(self, ctx: Context) -> list[str]:
        """Everything the rules would refuse in the draft, all at once."""
        view = ctx.view
        if ctx.seat is None or not isinstance(view, dict):
            return []
        return list(ctx.problems(self.draft.action())) if ctx.deciding else []   # the game's verdict

    def _say_draft(self, ctx: Context, text: str) -> Say:
        """Report a draft change, with what is wrong with the draft so far (if anything)."""
        if self.problems(ctx):
            return Say("%s (the draft cannot be sent yet: see \"to fix\")" % text, "class:error")
        return Say(text)

    def command(self, ctx: Context, name: str, args: list[str]) -> Say | Send | None:
        self._sync(ctx)
        self._confirm = None
        if self._sealed(ctx):
            raise CommandError("your move for round %d is sealed and cannot be changed; waiting for %s" % (
                self._sent[0], who(ctx.missing, ctx.seat) or "the others"))
        view = ctx.view
        d = self.draft
        if name == "bid":
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
            return self._say_draft(ctx, "bids: " + (", ".join("#%d=%d" % kv for kv in sorted(d.bids.items())) or "none"))
        if name == "splash":
            d.splash = parse_space(args)
            return self._say_draft(ctx, "splash: %s" % _space_words(d.splash))
        if name == "extra":
            d.extra = parse_space(args)
            return self._say_draft(ctx, "extra: %s" % _space_words(d.extra))
        if name == "convert":
            if len(args) != 1:
                raise CommandError("usage: convert N (garnets to turn into tokens this round)")
            d.convert = _parse_int(args[0], "the number of garnets")
            return self._say_draft(ctx, "convert: %d garnet%s" % (d.convert, "" if d.convert == 1 else "s"))
        self.draft = Draft(round=d.round)
        return Say("draft cleared")

    def submit(self, ctx: Context) -> Say | Send | None:
        self._sync(ctx)
        if not ctx.deciding:
            if self._sent is not None:
                raise CommandError("your move for round %d is already sealed; waiting for %s" % (
                    self._sent[0], who(ctx.missing, ctx.seat) or "the others"))
            return None
        action: Any = self.draft.action()
        try:
            action = ctx.check(action)
        except IllegalAction as exc:
            more = len(self.problems(ctx)) > 1
            raise CommandError("illegal move: %s - fix it%s and press Enter again" % (
                exc, " (\"to fix\" above lists every problem)" if more else "")) from None
        if action.get("splash") is None and self._confirm != action:
            self._confirm = dict(action)
            what = "no bids and no splash" if not action.get("bids") else "no splash"
            return Say("Your move has %s. Press Enter again to seal it as it is, or add a splash: "
                       "splash ROW COL R/B/Y" % what, "class:error")
        self._confirm = None
        return Send(action)

    def on_sent(self, ctx: Context, action: Any, text: str) -> Say:
        rnd = ctx.view["round"]
        self._sent = (rnd, text)
        self._sent_action = (rnd, dict(action))
        return Say("Round %d move sealed and sent: %s" % (rnd, text), "class:sent")

    def on_decision(self, ctx: Context) -> Say | None:
        view = ctx.view
        rnd = view.get("round") if isinstance(view, dict) else None
        if rnd == self._prompted_round:
            return None
        self._prompted_round = rnd
        self._confirm = None
        return Say(new_round_words(view, ctx.seat, self._sent_action))

    def decision_label(self, ctx: Context) -> str:
        return "round %d" % ctx.view["round"] if isinstance(ctx.view, dict) else ""

    def draft_line(self, ctx: Context) -> list:
        self._sync(ctx)
        if self._sealed(ctx):
            return [("class:sent", "Sealed (round %d): %s" % self._sent)]
        view = ctx.view if isinstance(ctx.view, dict) else None
        seat = ctx.seat
        d = self.draft
        out: list = [("bold", "Draft: ")]
        bids = ", ".join("#%d=%d" % kv for kv in sorted(d.bids.items())) or "none"
        out.append(("", "bids %s" % bids))
        total = d.total()
        if view is not None:
            have = view["tokens"][seat]
            budget = have + d.convert
            style = "class:error" if total > budget else ""
            out.append((style, " (%d of %d tokens%s)" % (total, have, " + %d converted" % d.convert if d.convert else "")))
        else:
            out.append(("", " (total %d)" % total))
        out.append(("", " | splash %s" % _space_text(d.splash)))
        if view is not None and view["extra_used"][seat]:
            out.append(("class:label", " | extra used"))
        else:
            cost = " (costs %d garnets)" % view["rules"]["extra_cost"] if view and d.extra else ""
            out.append(("", " | extra %s%s" % (_space_text(d.extra), cost)))
        if view is not None and (d.convert or view["garnets"][seat]):
            out.append(("", " | convert %d (of %d garnets)" % (d.convert, view["garnets"][seat])))
        elif d.convert:
            out.append(("", " | convert %d" % d.convert))
        probs = self.problems(ctx) if ctx.deciding or view is not None else []
        if probs:
            out.append(("class:error", " | to fix: " + "; ".join(probs)))
        return out

    # -- title, board, seats -----------------------------------------------------
    def title_parts(self, ctx: Context) -> list[str]:
        v = ctx.snap.view if ctx.snap else None
        if not v:
            return []
        parts = [] if ctx.over else ["round %d/%d" % (v["round"], v["rules"]["rounds"])]
        return parts + ["%s edition" % v["edition"]]

    def board_lines(self, ctx: Context) -> list[Line]:
        """The grid as coloured blocks with letters; the cells the last round changed in [brackets], its
        black cells (white again now) as [k], with a legend line for each mark shown."""
        view = ctx.snap.view if ctx.snap else None
        if not isinstance(view, dict):
            return _grid_lines(None)
        marks, legend = _board_marks(view, round_story(ctx.snap))
        return _grid_lines(_letters(view["grid"]), marks, legend=legend)

    def seat_columns(self, ctx: Context) -> list[tuple[str, int]]:
        return [("tok", 4), ("garn", 4), ("pts", 4), ("extra", 6), ("own", 4)]

    def seat_cells(self, ctx: Context, s: int) -> list[str]:
        view = ctx.snap.view if ctx.snap else None
        if not view:
            return ["-"] * 5
        return [str(view["tokens"][s]), str(view["garnets"][s]), str(view["points"][s]),
                "used" if view["extra_used"][s] else "unused", str(len(view["owned"][s]))]

    # -- the middle pane ---------------------------------------------------------
    def middle_lines(self, ctx: Context, width: int) -> list[Line]:
        """Last round, the colour legend, sheets on offer, owned sheets, scored sheets."""
        view = ctx.snap.view if ctx.snap else None
        me = ctx.seat
        lines: list[Line] = []
        last = _last_round_lines(view, me)
        for line in last:
            lines += wrap(line, width)
        if view is not None:
            lines += wrap(_legend_line(view), width)
        if last or view is not None:
            lines.append([])
        offer: list[Line] = []
        if not ctx.over:
            if not ctx.reveal:          # drawing an earlier round while a reveal plays: the draft is not its
                self._sync(ctx)
            mine = not ctx.reveal or (isinstance(view, dict) and self.draft.round == view.get("round"))
            offer = _offer_lines(view, dict(self.draft.bids) if mine else {}, width)
        if offer and width >= WIDE:
            # a wide terminal: the sheets on offer beside the owned and scored ones, not under them
            half = (width - 3) // 2
            left = _offer_lines(view, dict(self.draft.bids) if mine else {}, half)
            rw = width - half - 3
            right = _owned_lines(view, me, rw) + [[]] + _scored_lines(view, me, rw)
            right = [part for line in right for part in (wrap(line, rw, "  ") if width_of(line) > rw else [line])]
            return lines + side_by_side(left, right, half) + [[]]
        if offer:
            lines += offer + [[]]
        lines += _owned_lines(view, me, width)
        lines.append([])
        lines += _scored_lines(view, me, width)
        lines.append([])
        return lines

    # -- the reveal moment -------------------------------------------------------
    def beats(self, ctx: Context, before: Any) -> list[Beat]:
        """A round closed: its bids side by side, who took what, each splash landing, the matches."""
        return reveal_beats(ctx.snap, before, ctx.seat)

    def game_over_lines(self, ctx: Context, width: int) -> list[Line]:
        lines: list[Line] = []
        for line in _result_lines(ctx.result, ctx.players, ctx.seat):
            lines += wrap(line, width, "     ")
        return lines

    def final_words(self, ctx: Context) -> str:
        return _final_words(ctx.result, ctx.seat)

    def log_tag(self, step: int) -> str:
        return "r%d" % step

    # -- help --------------------------------------------------------------------
    def _help_values(self, ctx: Context) -> dict:
        values = dict(_HELP_DEFAULTS)
        if ctx.config:
            values.update({k: v for k, v in ctx.config.items() if k in values})
        view = ctx.snap.view if ctx.snap else None
        if isinstance(view, dict):
            values.update(view["rules"])
        values["black"] = _BLACK_WORDS.get(values["black"], str(values["black"]))
        return values

    def key_help(self, ctx: Context) -> list[str]:
        return [HELP_GAME, HELP_GAME_SHORT, HELP_GAME_TINY]

    def command_help(self, ctx: Context) -> list[tuple[str, str]]:
        values = self._help_values(ctx)
        return [(k, text % values) for k, text in _COMMAND_HELP]

    def rules_help(self, ctx: Context) -> list[tuple[str, list[tuple[str, str]]]]:
        values = self._help_values(ctx)
        return [("The Painting Game in short", [(k, text % values) for k, text in _RULES_HELP])]

    # -- replay ------------------------------------------------------------------
    def describe_table(self, ctx: Context, config: Mapping[str, Any], players: int) -> str:
        cfg = dict(config)
        if {"edition", "rounds", "starting_tokens", "tokens_per_round", "first_round_sheets",
                "sheets_per_round", "starting_garnets"} <= set(cfg):
            opts = ("%(edition)s edition, %(rounds)d rounds, %(starting_tokens)d tokens + %(tokens_per_round)d a round, "
                    "%(starting_garnets)d garnets, %(first_round_sheets)d sheets in round 1 then %(sheets_per_round)d" % cfg)
        else:
            opts = ", ".join("%s %s" % (k.replace("_", " "), v) for k, v in sorted(cfg.items())) or "default options"
        return "the Painting Game for %d seats; %s" % (players, opts)


SCREEN = PaintingScreen
