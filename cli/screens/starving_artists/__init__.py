"""The Starving Artists screen (see cli/screens/__init__.py for the protocol).

This module is the screen itself (``StarvingArtistsScreen``: its commands and draft, its prompts and
news, its help); what it draws and says is in ``drawing.py``, what it reads from the command line and
suggests in ``parsing.py``, the night's reveal in ``reveal.py``.  An action's words are the game's
(core/games/starving_artists/words.py), in the second person on the draft line.

What it shows: the day, the phase (morning / afternoon / night) and whose turn
it is (title, status line, seats table); your studio and the Paint Market as
coloured blocks with their letters and counts, in the rulebook's colour-blind
order R O Y G B P K W (board pane); every seat's nutrition (a 5-pip meter),
points, canvases sold, canvases, cubes and the first-player marker (seats
table); your canvases and the canvas market as small coloured grids (middle
pane): a painted square is a solid block with its cube's letter, an empty
square shows its number and the colour(s) it takes as coloured letters (a
diamond shows both); at night the announcements and the collection queue; the
day's happenings (draws, flips, every collection action) from the view's
events.

Numbers, as on the screen: canvases are numbered 1, 2, ... (yours, in the
order you bought them; ``#ID`` names a canvas by its card id); squares are
numbered 0, 1, 2, ... in reading order, as drawn on the grids and as the
rules engine words them; market slots are 1, 2, 3.

Commands (Enter runs them):

    work                                  work: 3 cubes from the bag
    buy SLOT [pay CUBES]                  buy a canvas; without pay a payment is suggested (Enter sends it)
    paint CANVAS SQUARE COLOUR ...        up to 4 cubes: paint 1 3 R 1 4 B (or paint 1 3 R 4 B)
    paint auto                            suggest the most squares you can fill (Enter sends it)
    trade GIVE for TAKE                   free action with the Paint Market: trade BB for R
    reset [pay CUBES]                     free action: new canvas market for 2 cubes
    study GIVE TAKE                       free action (Color Study): study B R
    offer GIVE for TAKE                   free action (Player trades): offer 2B for R
    MAIN then FREE                        work then trade BB for R
    sell N [N ...] | sell all | sell none   night: announce your sales (canvas numbers)
    supper N                              night (Last Supper): eat canvas N
    take CUBES | take best                night: a collection action
    accept | decline                      answer a trade offer
    clear                                 forget the suggested draft

CUBES are written ``2B 1R``, ``BBR``, ``B2 R`` or with colour words
(``2 blue red``).  Legality always comes from the game (ctx.check /
ctx.problems); the screen only parses and suggests.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from ..base import Beat, CommandError, Context, Say, Screen, Send, Snapshot
from ..parts import mark_where
from ..text import Line, place_words, plural, who
from .drawing import (_PINNED, _doing, _names_of, _short_title, action_words, board_lines, cards_lines, card_name,
                      compact_event, cubes_text, game_over_lines, night_lines, seat_cells, studios_lines,
                      today_lines, trade_offer_lines)
from .parsing import best_take, parse_action, parse_colour, parse_cubes, parse_paint
from .reveal import new_events, night_beats

__all__ = ["StarvingArtistsScreen", "SCREEN", "parse_cubes", "parse_colour", "parse_paint", "cubes_text",
           "compact_event", "new_events", "night_beats", "action_words"]



# a painted square / a cube: solid block with its letter
CUBE_STYLE = {
    "R": "bg:#d70000 fg:#ffffff bold",
    "O": "bg:#ff8700 fg:#000000 bold",
    "Y": "bg:#ffd700 fg:#000000 bold",
    "G": "bg:#00af00 fg:#000000 bold",
    "B": "bg:#005fff fg:#ffffff bold",
    "P": "bg:#8700af fg:#ffffff bold",
    "K": "bg:#000000 fg:#ffffff bold",
    "W": "bg:#ffffff fg:#000000 bold",
}
# an empty square: the needed colour as a coloured letter (no block)
NEED_STYLE = {
    "R": "fg:#ff5f5f bold",
    "O": "fg:#ff8700 bold",
    "Y": "fg:#ffd700 bold",
    "G": "fg:#5fd700 bold",
    "B": "fg:#5f87ff bold",
    "P": "fg:#af5fff bold",
    "K": "fg:#a8a8a8 bold underline",
    "W": "fg:#ffffff bold",
}

CARD_W = 28          # width of a drawn card
CELL_W = 4           # width of one square (plus one space between squares)
NIGHT_STEPS = ("announce", "collect")

_KEY_TURN = [
    "work | buy SLOT [pay CUBES] | paint CANVAS SQUARE COLOUR.. | paint auto | trade GIVE for TAKE | reset | "
    "MAIN then FREE | Enter=send | help | q quit",
    "work | buy SLOT | paint C SQ COL.. | paint auto | trade GIVE for TAKE | reset | then | help | q",
    "work | buy SLOT | paint C SQ COL | paint auto | trade | help | q",
]
_KEY_NIGHT = [
    "sell N [N..] | sell all | sell none | supper N | take CUBES | take best | Enter=send | help | PgUp/PgDn | q quit",
    "sell N.. | sell none | take CUBES | take best | Enter=send | help | q",
]
_KEY_ANSWER = ["accept | decline | help | PgUp/PgDn scroll | q quit", "accept | decline | help | q"]

_COMMAND_HELP = [
    ("work", "main action: draw 3 cubes from the bag (they arrive after your turn: not paintable now)"),
    ("buy SLOT [pay CUBES]",
     "main action: buy the canvas in market slot 1-3 for its cost (%(costs)s): buy 2 pay OB. Without pay "
     "the screen suggests the cubes you need least; Enter sends the suggestion"),
    ("paint CANVAS SQUARE COLOUR ..",
     "main action: up to 4 cubes onto your canvases: paint 1 3 R 1 4 B (canvas 1, squares 3 and 4); "
     "paint 1 3 R 4 B says the same. CANVAS is your canvas number (1, 2, ..) or #ID; SQUARE is the "
     "number drawn on the empty square; COLOUR a letter or word"),
    ("paint auto", "suggest the most squares you can fill now (up to 4); Enter sends it, or type your own"),
    ("trade GIVE for TAKE",
     "free action: trade with the Paint Market, 2 for 1, 5 for 2, 9 for 3: trade BB for R; trade for R "
     "suggests what to give. Wilds may be given, never taken"),
    ("reset [pay CUBES]", "free action: pay 2 cubes for three new canvases in the market: reset pay RK "
                          "(without pay a payment is suggested)"),
    ("study GIVE TAKE", "free action (Color Study option): 4 cubes of colour GIVE to the Paint Market, "
                        "1 cube of colour TAKE from the bag: study B R"),
    ("offer GIVE for TAKE", "free action (Player trades option): offer 2B for R to every other artist"),
    ("MAIN then FREE", "a main action with the day's free action after it, sent together: "
                       "work then trade BB for R; paint 1 0 R then reset. A free action on its own "
                       "(trade, reset, ..) is sent first and your turn goes on"),
    ("sell N [N ..]", "night: announce the complete canvases you sell (your canvas numbers); sell all; "
                      "sell none. Announcements are final"),
    ("supper N", "night, Last Supper option, at nutrition 1: eat complete canvas N for its stars in food "
                 "(also: sell 1 supper 2)"),
    ("take CUBES", "night: your collection action, exactly the amount shown: take BBR; take best takes "
                   "the game's pick (the cubes your canvases need first); Enter takes the suggested pick"),
    ("accept / decline", "answer another artist's trade offer"),
    ("diamonds COLOUR ..", "solo end of day: the colour each diamond of the leaving slot-1 canvas takes "
                           "back from the Paint Market (diamonds R B, diamonds RB; diamonds auto = the "
                           "default, the more plentiful colour)"),
    ("clear", "forget the suggested draft"),
    ("submit / empty Enter", "send the suggested draft (buy or reset without pay, paint auto, take best)"),
    ("CUBES", "2B 1R, BBR, B2 R, or words: 2 blue red. Colours: R red, O orange, Y yellow, G green, B blue, "
              "P purple, K black, W wild (clear)"),
]


# the step's label (rules._label) -> what a time-out does there (rules.default_action)
_TIMEOUT_WORDS = (
    ("'s turn", "the turn is spent working"),
    ("trade offer", "the offer is declined"),
    ("announces sales", "nothing is sold tonight"),
    ("collects", "the cubes are taken, needed colours first"),
    ("chooses the diamonds", "the rules choose the diamonds' colours"),
)


class StarvingArtistsScreen(Screen):
    """Studio, canvases as coloured grids, the two markets, nutrition and fame; many actions a day."""

    board_width = 40
    styles = {
        **{"cube.%s" % k.lower(): v for k, v in CUBE_STYLE.items()},
        **{"need.%s" % k.lower(): v for k, v in NEED_STYLE.items()},
        "done": "bold fg:ansigreen",
        "slot": "bg:#303030 fg:#9e9e9e",
        "phase": "bold reverse",
        "marker": "bold fg:ansiyellow",
    }
    commands = {
        "work": "work", "w": "work",
        "buy": "buy", "b": "buy",
        "paint": "paint", "p": "paint",
        "trade": "trade", "t": "trade",
        "reset": "reset",
        "study": "study",
        "offer": "offer",
        "sell": "sell",
        "supper": "supper",
        "take": "take",
        "accept": "accept",
        "decline": "decline",
        "diamonds": "diamonds",
        "clear": "clear",
    }
    names_in_middle = True     # its middle says "seat N" in sentences; the studios' column takes the names itself
    timeout_effect = ("the rules' default: a turn works, an announcement sells nothing, "
                      "a collection takes the needed cubes first, an answer declines")
    chance_words = "drawing cubes from the bag / turning canvases over"
    mark_words = ("day/phase", "starts a new day or phase (morning, afternoon, night)")

    def timeout_effect_for(self, label: str) -> str:
        """Only the step that timed out: the rules' default for it (rules.default_action)."""
        for words, effect in _TIMEOUT_WORDS:
            if words in label:
                return effect
        return self.timeout_effect if not label else "the rules' default for that step"

    def __init__(self) -> None:
        self.draft: dict | None = None      # a suggested action waiting for Enter
        self.draft_why = ""                 # what the suggestion is ("suggested payment", ...)
        self._free_note = ""                # said after a free action sent on its own
        self._events: list = []             # the view's (day, event) list at our last decision

    # -- title, board, seats ---------------------------------------------------
    def title_parts(self, ctx: Context) -> list[str]:
        v = ctx.table_view
        if not v:
            return []
        parts = []
        if v["phase"] == "over":
            parts.append("after day %d" % v["day"])
        else:
            doing = _doing(v, ctx.seat, _names_of(ctx))
            parts.append("day %d %s%s" % (v["day"], v["phase"], ": " + doing if doing else ""))
        if v.get("edition") == "junior":
            parts.append("junior")
        if v.get("players") == 1:
            parts.append("solo")
        return parts

    def board_lines(self, ctx: Context) -> list[Line]:
        return board_lines(ctx.table_view, ctx.seat, _names_of(ctx))

    def seat_columns(self, ctx: Context) -> list[tuple[str, int]]:
        return [("food", 5), ("pts", 5), ("sold", 4), ("canv", 5), ("cubes", 5), ("1st", 3)]

    def seat_cells(self, ctx: Context, s: int) -> list[str]:
        return seat_cells(ctx.table_view, s)

    # -- the middle pane ---------------------------------------------------------
    def middle_lines(self, ctx: Context, width: int) -> list[Line]:
        v = ctx.table_view
        if not v:
            return [[("class:label", "Waiting for the shared seed...")]]
        me = ctx.seat
        lines: list[Line] = []
        night = v["phase"] == "night"
        if v.get("offer"):
            lines += trade_offer_lines(v, me, width) + [[]]
        if night:
            lines += night_lines(v, me, width) + [[]]
        lines += cards_lines(v, me, width)
        lines.append([])
        lines += studios_lines(v, me, width, _names_of(ctx))
        lines.append([])
        lines += today_lines(v, me, width)
        lines.append([])
        return lines

    # -- game over ---------------------------------------------------------------
    def game_over_lines(self, ctx: Context, width: int) -> list[Line]:
        res = ctx.result
        if not isinstance(res, dict) or "ranking" not in res:
            return super().game_over_lines(ctx, width)
        return game_over_lines(res, ctx.seat, width)

    def final_words(self, ctx: Context) -> str:
        res = ctx.result
        if not isinstance(res, dict) or "ranking" not in res or ctx.seat not in res["ranking"]:
            return "The game is over."
        s = ctx.seat
        places = res.get("places") or []
        place = places[s] if s < len(places) else res["ranking"].index(s) + 1
        pts = res["points"][s]
        n = len(res["ranking"])
        if n == 1:          # a solo game: no place to finish in, a rating
            text = "Game over after day %s: you scored %s with %s sold%s." % (
                res.get("days", "?"), plural(pts, "point"), plural(res["sold"][s], "canvas", "canvases"),
                " (you starved)" if (res.get("starved") or [False] * (s + 1))[s] else "")
            if res.get("rating"):
                text += " Solo rating: %s." % res["rating"]
            return text
        shared = sum(1 for o in res["ranking"] if (places[o] if o < len(places) else 0) == place) > 1
        text = "Game over after day %s: you finished %s with %s and %s sold." % (
            res.get("days", "?"), place_words(place, n, shared), plural(pts, "point"),
            plural(res["sold"][s], "canvas", "canvases"))
        if res.get("rating"):
            text += " Solo rating: %s." % res["rating"]
        elif s in (res.get("winners") or []):
            text += " You win!" if len(res["winners"]) == 1 else " You share the win."
        elif res.get("winners"):
            text += " Winner: %s." % who(res["winners"], s)
        return text

    # -- the event log -----------------------------------------------------------
    # -- deciding ----------------------------------------------------------------
    def decision_label(self, ctx: Context) -> str:
        v = ctx.move_view
        if not v:
            return ""
        step = v["step"]
        if step == "turn":
            return "day %d %s" % (v["day"], v["phase"])
        if step == "announce":
            return "night: announce sales"
        if step == "collect":
            amount = v["collection"].get("amount")
            return "night: collect %s cube%s" % (amount, "" if amount == 1 else "s")
        if step == "answer":
            return "answer seat %d's offer" % v["offer"]["seat"] if v.get("offer") else "answer the offer"
        if step == "dusk":
            return "end of day: diamonds"
        return ""

    def on_decision(self, ctx: Context) -> Say | None:
        v = ctx.move_view
        self.draft, self.draft_why = None, ""
        if not v or ctx.seat is None:
            return None
        me = ctx.seat
        news = self._news(v, me)
        step = v["step"]
        if step == "turn":
            if self._free_note:
                text = "%s Now your main action: work, buy or paint." % self._free_note
            else:
                text = "Day %d %s: your turn." % (v["day"], v["phase"])
            self._free_note = ""
            return Say(text + news)
        self._free_note = ""
        if step == "announce":
            done = [(i + 1, c) for i, c in enumerate(v["canvases"][me]) if c["complete"]]
            names = ", ".join("%d %s" % (i, _short_title(c["card"]["title"], 24)) for i, c in done)
            return Say("Night: announce your sales (final). Complete: %s. sell N.. | sell all | sell none.%s"
                       % (names, news))
        if step == "collect":
            best = best_take(ctx)
            col = v["collection"]
            e = col["queue"][col["next"]] if col.get("next") is not None else None
            what = " for %s" % card_name(v, e["canvas"]) if e else ""
            amount = col.get("amount")
            if best is not None:
                self.draft, self.draft_why = best, "the game's best pick"
                return Say("Collect %s cube%s%s from the Paint Market: Enter takes %s, or take CUBES.%s" % (
                    amount, "" if amount == 1 else "s", what, cubes_text(best["cubes"]), news))
            return Say("Collect %s cubes%s: take CUBES.%s" % (amount, what, news))
        if step == "answer" and v.get("offer"):
            off = v["offer"]
            return Say("Seat %d offers %s for your %s: accept or decline.%s" % (
                off["seat"], cubes_text(off["give"]), cubes_text(off["take"]), news))
        if step == "dusk" and v.get("dusk"):
            d = v["dusk"]
            self.draft = {"do": "diamonds", "colours": list(d["default"])}
            self.draft_why = "keeps the scarcer colour in the Paint Market"
            return Say("End of day: %s leaves the market. Choose each diamond's colour (what goes back to the "
                       "bag): %s. Enter sends %s, or diamonds COLOUR...%s" % (
                           card_name(v, d["canvas"]), "; ".join(
                               "%s: %s" % (k, cubes_text(r)) for k, r in d["returns"].items()),
                           " ".join(d["default"]), news))
        return None

    NEWS_CHARS = 160

    def _news(self, v: dict, me: int) -> str:
        """What happened since our last decision (the view's events: moves, draws, flips, sales,
        collections); when it is long the oldest news goes first, ours last. Remembers what it told."""
        cur = list(zip(v.get("event_days") or [v["day"]] * len(v.get("events") or []), v.get("events") or []))
        old = self._events
        self._events = cur
        new = cur
        for drop in range(len(old) + 1):            # events are only appended, and trimmed at the front
            rest = old[drop:]
            if cur[:len(rest)] == rest:
                new = cur[len(rest):]
                break
        if not new:
            return ""
        own = re.compile(r"seat %d (works|buys|paints|trades|pays|studies|offers)\b" % me)
        texts: list[str] = []
        flips: list[str] = []
        for _, t in new:
            m = re.match(r"('.*') is turned over into slot (\d)$", t)
            if m:
                flips.append("%s (%s)" % (_short_title(m.group(1), 30), m.group(2)))
                continue
            if flips:
                texts.append("turned over: " + ", ".join(flips))
                flips = []
            if not own.match(t):
                texts.append(re.sub(r"\bseat %d\b" % me, "seat %d (you)" % me, compact_event(t)))
        if flips:
            texts.append("turned over: " + ", ".join(flips))
        if not texts:
            return ""
        mine = "seat %d (you)" % me

        def level(t: str) -> int:
            if mine in t:
                return 3
            if t.startswith("day ") or " sells " in t or " starves" in t or " collects " in t or "offer" in t:
                return 2
            if t.startswith("turned over") or t.startswith("the Paint Market"):
                return 0
            return 1

        keep = list(range(len(texts)))

        def size() -> int:
            return sum(len(texts[i]) + 2 for i in keep)

        for lv in range(4):                  # the least telling news goes first, oldest first
            for i in list(keep):
                if size() <= self.NEWS_CHARS or len(keep) == 1:
                    break
                if level(texts[i]) == lv:
                    keep.remove(i)
        out = [texts[i] for i in keep]
        # news left out is said in words (a lone "..." read as a placeholder: "So far: ...; ...")
        more = " (%d more in the event log)" % (len(texts) - len(keep)) if len(keep) < len(texts) else ""
        return (" Since your last move%s: " if old else " So far%s: ") % more + "; ".join(out) + "."

    def draft_line(self, ctx: Context) -> list:
        v = ctx.move_view
        if not v or ctx.seat is None:
            return []
        me = ctx.seat
        if not v["alive"][me] and v["phase"] != "over":
            return [("class:label", "You starved and are out of the game; you can still watch (and win on points).")]
        if self.draft is not None and ctx.deciding:
            out: list = [("bold", "Draft: "), ("", action_words(v, me, self.draft)),
                         ("class:label", " (%s; Enter sends it)" % self.draft_why)]
            probs = ctx.problems(self.draft)
            if probs:
                out.append(("class:error", " | cannot send: " + "; ".join(probs)))
            return out
        if ctx.deciding:
            step = v["step"]
            if step == "turn":
                opts = v.get("options") or {}
                frees = ["trade", "reset"] + (["study"] if opts.get("color_study") else []) + \
                    (["offer"] if opts.get("player_trades") else [])
                free = "used today" if v["free_used"][me] else "unused: " + ", ".join(frees)
                return [("bold", "Your turn: "), ("", "work | buy SLOT | paint C SQ COLOUR.. | paint auto"),
                        ("class:label", " | free action %s" % free)]
            if step == "announce":
                return [("bold", "Announce: "), ("", "sell N [N..] | sell all | sell none"),
                        ("class:label", " (your canvas numbers; final once sent)")]
            if step == "collect":
                return [("bold", "Collect: "), ("", "take CUBES | take best")]
            if step == "answer":
                return [("bold", "Answer: "), ("", "accept | decline")]
            if step == "dusk":
                return [("bold", "End of day: "), ("", "diamonds COLOUR.. (one per diamond of the leaving canvas)")]
        if v["phase"] == "over":
            return []
        what = "drawing cubes / turning canvases over" if v.get("chance") else _doing(v, me, _names_of(ctx))
        out = [("class:label", "Waiting: %s." % what)]
        if v["step"] == "turn" and v["phase"] != "night":
            out.append(("class:label", " Your free action today: %s." % ("used" if v["free_used"][me] else "unused")))
        return out

    # -- commands ----------------------------------------------------------------
    def command(self, ctx: Context, name: str, args: list[str]) -> Say | Send | None:
        if name == "clear":
            self.draft, self.draft_why = None, ""
            return Say("draft cleared")
        v = ctx.move_view
        if v is None or ctx.seat is None:
            raise CommandError("the table has not started yet")
        action, why = parse_action(ctx, v, name, args, self.commands)
        if not ctx.deciding:
            probs = ctx.problems(action)
            reason = probs[0] if probs else "it is not your move yet - wait for YOUR MOVE"
            if v.get("step") == "answer" and v.get("offer") and v["offer"]["seat"] == ctx.seat:
                reason = "the others are answering your trade offer; your turn goes on after that"
            raise CommandError("%s - nothing sent" % reason)
        probs = ctx.problems(action)
        if probs:
            raise CommandError("cannot do that: %s - nothing sent" % "; ".join(probs))
        if why:
            self.draft, self.draft_why = action, why
            return Say("Suggested (%s): %s. Enter sends it, or type another command." % (
                why, action_words(v, ctx.seat, action)))
        self.draft, self.draft_why = None, ""
        return Send(action)

    def submit(self, ctx: Context) -> Say | Send | None:
        if not ctx.deciding:
            return None
        v = ctx.move_view
        if self.draft is None:
            step = v["step"] if v else ""
            hint = {
                "turn": "type work, buy SLOT, paint CANVAS SQUARE COLOUR (or paint auto), or a free action",
                "announce": "type sell N [N..], sell all or sell none",
                "collect": "type take CUBES or take best",
                "answer": "type accept or decline",
                "dusk": "type diamonds COLOUR.. or diamonds auto",
            }.get(step, "type a command (help lists them)")
            raise CommandError("nothing to send yet: %s" % hint)
        probs = ctx.problems(self.draft)
        if probs:
            raise CommandError("cannot send the draft: %s - change it or type another command" % "; ".join(probs))
        action = self.draft
        self.draft, self.draft_why = None, ""
        return Send(action)

    def on_sent(self, ctx: Context, action: Any, text: str) -> Say:
        self.draft, self.draft_why = None, ""
        do = action.get("do") if isinstance(action, dict) else None
        if do in ("trade", "reset", "study", "offer"):
            self._free_note = "Sent: %s." % text
            return Say("Sent: %s. Your turn goes on: work, buy or paint next." % text, "class:sent")
        extra = ""
        if do == "work":
            extra = " (they arrive after your turn)"
        v = ctx.move_view
        if do == "buy" and v:
            slot = action.get("slot")
            card = v["market"][slot - 1] if isinstance(slot, int) and 1 <= slot <= 3 else None
            if card:
                extra = ": %s" % _short_title(card["title"], 40)
        return Say("Sent: %s%s" % (text, extra), "class:sent")

    # -- help --------------------------------------------------------------------
    def key_help(self, ctx: Context) -> list[str]:
        v = ctx.move_view
        step = v.get("step") if v else None
        if step in NIGHT_STEPS:
            return _KEY_NIGHT
        if step == "answer" and ctx.deciding:
            return _KEY_ANSWER
        return _KEY_TURN

    def command_help(self, ctx: Context) -> list[tuple[str, str]]:
        v = ctx.table_view
        junior = (v or {}).get("edition") == "junior" or (ctx.config or {}).get("edition") == "junior"
        values = {"costs": "every slot costs 1 (junior)" if junior else "slot 1 costs 1, slot 2 costs 2, slot 3 costs 3"}
        return [(k, text % values if "%(" in text else text) for k, text in _COMMAND_HELP]

    def rules_help(self, ctx: Context) -> list[tuple[str, list[tuple[str, str]]]]:
        v = ctx.table_view
        cfg = dict((v or {}).get("options") or ctx.config or {})
        players = (v or {}).get("players") or ctx.players or 4
        junior = cfg.get("edition") == "junior"
        rows = [
            ("A day", "Start of day (from day 2): the first-player marker ◆ passes clockwise, 4 cubes go from the "
                      "bag to the Paint Market, everyone's nutrition drops by 1 (below 1: you starve and are out; "
                      "the others get exactly one more day). Then morning and afternoon: each artist, clockwise "
                      "from the first player, takes one action. Then night: sales."),
            ("Actions", "work: 3 cubes from the bag (not paintable this turn). buy: pay the slot's cost (%s) in any "
                        "cubes to the Paint Market; the row slides toward slot 1 and a new canvas is turned over "
                        "into slot 3. paint: up to 4 cubes onto your canvases - the square's colour, either colour "
                        "of a diamond, or a wild (at most one wild per canvas)."
                        % ("1 each, junior" if junior else "1, 2, 3")),
            ("Free action", "once a day, in one of your turns, before or after your action: trade with the Paint "
                            "Market 2 for 1, 5 for 2 or 9 for 3 (wilds may be given, never taken), or reset the "
                            "canvas market for 2 cubes (three new canvases; you may still buy one)%s%s."
                            % ("; or a Color Study: 4 cubes of one colour for any 1 from the bag" if cfg.get("color_study") else "",
                               "; or one trade offer to all the others (the first accepting seat clockwise from you "
                               "trades)" if cfg.get("player_trades") else "")),
            ("Night", "clockwise from the first player, artists with a complete canvas announce what they sell "
                      "(final). Each sale: food value to nutrition (above 5: 4 cubes from the bag per extra food), "
                      "the canvas's cubes back to the bag, stars to your points.%s"
                      % (" Last Supper: at nutrition 1 you may eat a complete canvas for its stars in food."
                         if cfg.get("last_supper") else "")),
            ("Getting paid", "draw the paint value from the bag (junior)." if junior else
             "in paint-value order the canvases sold tonight collect from the Paint Market, in rounds of "
             "collection actions: the highest paint value takes 4 cubes an action, the second highest 2, all "
             "others 1, until each has its paint value or the market is empty; equal values take the same amount, "
             "in order from the first player; at most one wild per action. Enter takes the suggested pick."),
        ]
        if players == 1:
            end = ("solo: at the end of each day the slot 1 canvas leaves the game (matching Paint Market cubes go "
                   "back to the bag; you choose each diamond's colour); the game ends when you starve or the canvas "
                   "market is empty. Rating: 0-9 "
                   "Keep trying, 10-19 Surviving, 20-24 Expert, 25+ Professional.")
        else:
            targets = {2: (7, 16), 3: (6, 14), 4: (5, 12)}.get(players)
            end = ("after a night in which an artist has sold %d canvases or has %d points (%d players), or the "
                   "night of the day after someone starves. The night's sales count together: an artist who alone "
                   "meets an objective wins; several who meet one the same night are a tie, decided among them "
                   "by points, then canvases sold, then food earned, then unused cubes; if none is met, points "
                   "decide among all (the same order after points) and a starved artist can still win." % (targets + (players,))
                   if targets else "see RULES.md")
        rows.append(("End", end))
        rows.append(("Screen", "canvases are numbered 1, 2, .. (yours) and squares 0, 1, .. in reading order; a "
                               "painted square is a solid block with its cube's letter, an empty one shows its number "
                               "and the colour letter(s) it takes (two letters: a diamond, either colour). Colours in "
                               "the rulebook's order: R red, O orange, Y yellow, G green, B blue, P purple, K black, "
                               "W wild. Seats: food = nutrition (5 pips), pts = points/target, sold = canvases "
                               "sold/target, canv = canvases (/N✓ complete), cubes (+N arriving), ◆ first player."))
        return [("Starving Artists in short", rows)]

    # -- replay ------------------------------------------------------------------
    def describe_table(self, ctx: Context, config: Mapping[str, Any], players: int) -> str:
        cfg = dict(config)
        parts = ["%s rules" % cfg.get("edition", "standard")]
        names = {"color_study": "Color Study", "player_trades": "Player trades", "last_supper": "Last Supper"}
        on = [label for key, label in names.items() if cfg.get(key)]
        parts.append("options: %s" % (", ".join(on) if on else "none"))
        if players == 1:
            parts.append("solo, %s canvases%s" % (cfg.get("solo_canvases", 35),
                                                  ", no comic books" if cfg.get("remove_comics") else ""))
        return "Starving Artists for %d seat%s; %s" % (players, "" if players == 1 else "s", "; ".join(parts))

    # -- the event log -----------------------------------------------------------
    def describe(self, game: Any, state: Any, seat: int, action: Any) -> str:
        """The game's words, a painting's squares grouped per canvas (the title once, not per square)."""
        return compact_event(game.describe(state, seat, action))

    # -- the reveal moment -------------------------------------------------------
    def beats(self, ctx: Context, before: Snapshot) -> list[Beat]:
        """At night and as a day starts: each announcement, sale, collection and draw as a beat."""
        return night_beats(before.view if before is not None else None, ctx.snap.view if ctx.snap else None,
                           ctx.seat)

    def happenings(self, before: Any, view: Any) -> list[str]:
        """A seat starving (and the game's end), which no move names, for the event log."""
        return [compact_event(text) for _, text in new_events(before, view) if _PINNED.search(text)]

    def is_mark(self, before: Snapshot, after: Snapshot) -> bool:
        return mark_where(before, after, lambda v: (v.get("day"), v.get("phase")))


SCREEN = StarvingArtistsScreen
