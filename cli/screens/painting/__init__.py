"""The Painting Game's screen (see cli/screens/__init__.py for the protocol).

This module is the screen itself (``PaintingScreen``: commands, the draft, its words to the player);
what it draws is in ``board.py`` (the grid, the sheets, the results) and ``reveal.py`` (a closed round
replayed beat by beat).

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

from ..base import Beat, CommandError, Context, Say, Screen, Send
from ..text import Line, place_words, side_by_side, who, width_of, wrap
from .board import (SIZE, RoundStory, _board_marks, _grid_lines, _last_round_lines, _legend_line, _letters,
                    _offer_lines, _owned_lines, _places, _result_lines, _scored_lines, round_story)
from .reveal import reveal_beats

__all__ = ["PaintingScreen", "SCREEN", "Draft", "parse_space", "new_round_words", "round_story", "reveal_beats",
           "RoundStory"]
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
