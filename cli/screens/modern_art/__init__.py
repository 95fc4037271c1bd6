"""The Modern Art screen (see cli/screens/__init__.py for the protocol).

This module is the screen itself (``ModernArtScreen``: its commands, prompts and draft, its help,
the event log's words); the card notation a person types and reads, the commands' help and our own
actions in words are in ``notation.py``, what it reads from a view (an auction step's words filled
in, whose move it is) in ``view.py``, what it draws in ``panes.py`` (the value board, the hand, the
auction under way drawn by its step's kind, this round, the round summaries, the result) and the
reveal (sealed bids side by side, raise rounds "going once, going twice, sold", sales and round
ends, replayed through the game's own views) in ``reveal.py``.

What it shows: the round and whose move (title, board pane, seats table); the
artist value board: every round's tiles (30/20/10), each artist's cumulative
value and how many of its cards were played this round (the 5th ends the round)
(board pane); each seat's hand size, purchases this round and its part in the
current auction, and YOUR money only - the others' money stays behind their
screens, as at the table (seats table); the current auction: its type, the
card(s), the auctioneer, the standing bid and bidder or the fixed price, who is
asked and in what order; your hand grouped by artist, each card a block in its
artist's colour with the artist's two letters and the auction-type symbol
(colour-blind players read the letters); this round's sales and purchases; the
last round's summary (ranking, tiles, values, payouts) (middle pane).

Artists (board order, also the ranking's tie-break): Ca Manuel Carvalho,
Th Sigrid Thaler, Me Daniel Melim, Ma Ramon Martins, Si Rafael Silveira.
Auction types: O open, 1 once around, S sealed, F fixed price, D double.
A card's short name is the two together: ``MeS`` is a Daniel Melim card for a
sealed auction.

Commands (Enter runs them):

    play N [M]            auction card N of your hand (the numbers drawn in front of the cards);
                          M: the second card of a double (same artist, not a double)
    play CARD [CARD]      the same by short name: play MeS, play MeD MeO, play melim sealed
    add N | add CARD      double offer: add a second card (you become the auctioneer)
    pass                  double offer, open / once-around bidding, fixed price: pass;
                          sealed: no bid
    bid N                 open / once around: a bid above the standing bid; sealed: your
                          bid (0 = no bid); bid +N raises the standing bid by N; bid all
    price N               fixed price: name the price (1 to your money)
    buy                   fixed price: buy at the price named
    upto N                open auction: raise for me round by round up to N (kept by this screen
                          only, never sent: the ceiling is private); no more questions in this auction

A pass in an open auction drops you out of that auction: you are not asked again in it.
Legality always comes from the game (ctx.check / ctx.problems); the screen
only reads commands and shows the table.

An auction step is shown by what it asks (its kind: core/games/modern_art/auctions.py,
``KINDS``) in its record's words (``Words``: key help, prompt, whose move, the action words
in the second person, what a time-out does), never by its phase's name; so a new auction
type (auctions.register) plays on this screen unchanged (tests/test_modern_art_dutch.py).  A new
kind of decision is a step whose kind is an ``auctions.Kind`` record: drawn in ``panes.py`` as the
kind it is ``like`` (``auction_lines`` and ``_money_tail`` branch on ``kind_of``), its typed words
(``Kind.verbs``) join ``commands`` and are parsed by the record (``_parse``); nothing here names it.
Parts that say nothing of Modern Art are in cli/screens/parts.py.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from core.games.modern_art import dealt as _dealt
from core.games.modern_art import rules as _rules
from core.games.modern_art.auctions import ADD, AUCTIONS, RAISE, RAISE_OR_OUT, SEALED, STEPS
from core.games.modern_art.auctions import auction_key, kind_of, said, standing_action, step_of, verbs
from core.games.modern_art.cards import ARTISTS, N_CARDS, artist_of, type_of

from ..base import Beat, CommandError, Context, Say, Screen, Send, Snapshot
from ..text import Line, layout_cards, place_words, who, width_of, wrap
from ..parts import amount_of, latest_view, mark_where, names_of, view_of, waiting_of
from .notation import (_COMMAND_HELP, _DEAL_WORDS, _KEYS_IDLE, _KEYS_PLAY, _KEYS_TAIL, _TIMEOUT_WORDS, CODES,
                       _types_words, _with_cards, _word, action_words, card_code, card_words, hand_order, legend,
                       parse_card)
from .panes import (BOARD_W, _addable, _hand_lines, auction_lines, board_pane, result_lines, round_lines,
                    summary_lines)
from .reveal import happening_words, reveal_beats
from .view import _bought_cell, _doing, _ends_round, _finished, _money_of, _say

__all__ = ["ModernArtScreen", "SCREEN", "parse_card", "hand_order", "card_code", "action_words", "reveal_beats",
           "card_words", "CODES", "legend", "_word", "auction_lines", "round_lines", "result_lines"]


# artist colours: a block with dark/light letters; the two letters make them readable without colour
ARTIST_BG = (
    "bg:#f59e0b fg:#000000 bold",   # Manuel Carvalho: amber
    "bg:#0ea5e9 fg:#000000 bold",   # Sigrid Thaler: blue
    "bg:#d70000 fg:#ffffff bold",   # Daniel Melim: red
    "bg:#00af00 fg:#000000 bold",   # Ramon Martins: green
    "bg:#8700af fg:#ffffff bold",   # Rafael Silveira: purple
)
ARTIST_FG = (
    "fg:#f59e0b bold",
    "fg:#0ea5e9 bold",
    "fg:#ff5f5f bold",
    "fg:#5fd700 bold",
    "fg:#af5fff bold",
)
WIDE = 140          # from this width, panels go side by side


# --------------------------------------------------------------------------- the screen


class ModernArtScreen(Screen):
    """The value board, your hand in the artists' colours, the auction under way, your money only."""

    board_width = BOARD_W
    styles = {
        **{"art.%d" % a: ARTIST_BG[a] for a in range(5)},
        **{"artfg.%d" % a: ARTIST_FG[a] for a in range(5)},
        "phase": "bold reverse",
        "tile": "bold fg:ansiyellow",
        "now": "reverse",
        "warn": "bold fg:ansired",
        "money": "bold fg:ansigreen",
        "bid": "bold fg:ansimagenta",
        "win": "bold reverse fg:ansigreen",
    }
    _commands = {
        "play": "play", "p": "play", "auction": "play",
        "add": "add", "a": "add",
        "pass": "pass", "no": "pass",
        "bid": "bid", "b": "bid", "raise": "bid",
        "price": "price",
        "buy": "buy", "yes": "buy",
        "upto": "upto", "max": "upto", "ceiling": "upto",
    }
    timeout_effect = ("a card turn is lost, a bid or a buyer passes (open: out of that auction; sealed: no bid), "
                      "a fixed price is the lowest, 1")
    names_in_middle = True     # its middle says "seat N" only in text and in columns with_names keeps
    chance_words = "drawing the shared seed"
    mark_words = ("sale", "ends an auction (a sale) or a round")

    @property
    def commands(self) -> dict:
        """The typed words: this screen's, and those of every registered kind of decision (auctions.Kind)."""
        return {**self._commands, **{w: w for w in verbs() if w not in self._commands}}

    def __init__(self) -> None:
        self._order: dict | None = None      # our standing order in an open auction (private: never sent)
        # the card play or add we composed last, with its cards (the table binds its positions only,
        # so our own event log and draft can still name the cards: never sent)
        self._chosen: dict | None = None

    def timeout_effect_for(self, label: str) -> str:
        """Only the step that timed out: the rules' default for it (auctions.py's ``default``)."""
        for words, effect in _TIMEOUT_WORDS + tuple(st.words.timeout for st in STEPS.values()):
            if words in label:
                return effect
        return self.timeout_effect if not label else "the rules' default for that step"

    def standing(self, ctx: Context) -> Send | None:
        """The move our standing order makes for us now (an open auction with "upto N"), else None."""
        v = view_of(ctx)
        if not ctx.deciding or v is None or ctx.seat is None:
            return None
        action = standing_action(v, ctx.seat, self._order)
        return Send(action) if action is not None else None

    # -- title, board, seats ---------------------------------------------------
    def title_parts(self, ctx: Context) -> list[str]:
        v = latest_view(ctx)
        if not v:
            return []
        if v.get("phase") == "over":
            return ["after round %d" % _finished(v)]
        return ["round %d/%d: %s" % (v.get("round", 1), _rules.ROUNDS, _doing(v, ctx.seat, names_of(ctx)))]

    def board_lines(self, ctx: Context) -> list[Line]:
        return board_pane(latest_view(ctx), ctx.seat, names_of(ctx))

    def seat_columns(self, ctx: Context) -> list[tuple[str, int]]:
        return [("money", 5), ("hand", 4), ("bought", 10), ("role", 6)]

    def seat_cells(self, ctx: Context, s: int) -> list[str]:
        v = latest_view(ctx)
        if not v:
            return ["-"] * 4
        over = v.get("phase") == "over"
        money = v.get("money") or []
        if (s == ctx.seat or over) and s < len(money):
            m = str(money[s])
        else:
            m = "?"
        sizes = v.get("hand_sizes") or []
        hand = str(sizes[s]) if s < len(sizes) else "-"
        bought = _bought_cell(v, s, 10)
        a = v.get("auction") or {}
        role = []
        if not over and a and a.get("auctioneer") == s:
            role.append("A")
        if not over and a and a.get("high_bidder") == s and kind_of(v.get("phase")) in (RAISE, RAISE_OR_OUT):
            role.append("high")
        if not over and v.get("phase") == "play" and v.get("actor") == s:
            role.append("A")
        return [m, hand, bought, " ".join(role)[:6]]

    # -- the middle pane ---------------------------------------------------------
    def middle_lines(self, ctx: Context, width: int) -> list[Line]:
        v = latest_view(ctx)
        if not v:
            return [[("class:label", "Waiting for the shared seed...")]]
        me = ctx.seat
        over = v.get("phase") == "over"
        highlight: list[int] = []
        if kind_of(v.get("phase")) == ADD and v.get("actor") == me:
            highlight = [c["pos"] for _, c in _addable(v)]
        wide = width >= WIDE
        half = (width - 4) // 2 if wide else width
        top = auction_lines(v, me, half, waiting_of(ctx))
        hand = _hand_lines(v, me, half, highlight)
        lines: list[Line] = []
        if wide and top and hand:
            lines += layout_cards([top, hand], width, gap=4)
        else:
            lines += top + ([[]] if top and hand else []) + hand
        lines.append([])
        names = names_of(ctx)
        now = round_lines(v, me, half, names)
        rounds = v.get("rounds") or []
        last = summary_lines(rounds[-1], me, half, v.get("players", 0)) if rounds and not over else []
        if wide and now and last:
            lines += layout_cards([now, last], width, gap=4)
            lines.append([])
        else:
            for part in (now, last):
                if part:
                    lines += part + [[]]
        if over:
            for r in rounds:
                lines += summary_lines(r, me, width, v.get("players", 0)) + [[]]
        return [l for line in lines for l in (wrap(line, width, "    ") if width_of(line) > width else [line])]

    def game_over_lines(self, ctx: Context, width: int) -> list[Line]:
        lines = result_lines(ctx.result, ctx.seat, width, names_of(ctx))
        return lines or super().game_over_lines(ctx, width)

    def final_words(self, ctx: Context) -> str:
        res = ctx.result
        if isinstance(res, Mapping) and res.get("status") == "abandoned":
            return "The game is abandoned: the deal could not go on; nobody is ranked."
        if not isinstance(res, Mapping) or ctx.seat not in (res.get("ranking") or []):
            return "The game is over."
        s = ctx.seat
        places = res.get("places") or []
        place = places[s] if s < len(places) else res["ranking"].index(s) + 1
        money = (res.get("money") or [0] * (s + 1))[s]
        shared = sum(1 for o in res["ranking"] if (places[o] if o < len(places) else 0) == place) > 1
        text = "Game over after round %d: you finished %s with %d money." % (
            res.get("rounds", _rules.ROUNDS), place_words(place, len(res["ranking"]), shared), money)
        winners = list(res.get("winners") or [])
        if s in winners:
            text += " You win!" if len(winners) == 1 else " You share the win."
        elif winners:
            text += " Winner: %s." % who(winners, s)
        return text

    # -- the event log -----------------------------------------------------------
    def describe(self, game: Any, state: Any, seat: int, action: Any) -> str:
        """The game's words (the shell gives the state the move was made in), except that a bid
        says its amount (0: no bid): in the log a sealed bid is already open."""
        if isinstance(action, dict) and "open" in action:
            # the open shows the cards the seat bound: told as the card play it is
            full = _dealt.opened_action(state, seat, action) if isinstance(state, _dealt.DState) else None
            if full is not None:
                action = full
        elif isinstance(action, dict) and action.get("do") in ("play", "add") and "card" not in action:
            # a choice binds positions only; on our own screen we know what we chose
            mine = self._chosen
            if mine is not None and mine.get("do") == action.get("do") and mine.get("pos") == action.get("pos") \
                    and (mine.get("double") or {}).get("pos") == (action.get("double") or {}).get("pos"):
                cards = [mine["card"]] + ([mine["double"]["card"]] if mine.get("double") else [])
                what = " and ".join(card_words(c) for c in cards if isinstance(c, int) and 0 <= c < N_CARDS)
                return "seat %s chooses %s to %s" % (
                    seat, what, "add to the double" if mine["do"] == "add" else "auction")
        if isinstance(action, dict):
            do = action.get("do")
            if do == "skip":    # a time-out's default, never a chosen move: no word of whether the seat moved
                return "seat %s loses the turn to auction: voted out (a time-out)" % seat
            if do == "bid" and isinstance(action.get("amount"), int):
                amt = action["amount"]
                return "seat %s %s" % (seat, "bids %d" % amt if amt else "hands in no bid")
            card = action.get("card")
            if do in ("play", "add") and isinstance(card, int) and 0 <= card < N_CARDS:
                if do == "add":
                    return "seat %s %s" % (seat, said(None, action, False, card=card_words(card)))
                sec = action.get("double")
                sec_card = sec.get("card") if isinstance(sec, Mapping) else None
                if not (isinstance(sec_card, int) and 0 <= sec_card < N_CARDS):
                    sec_card = None
                ending = _ends_round(game, state, [card] + ([sec_card] if sec_card is not None else []))
                if ending is not None:       # the 5th card of its artist is not auctioned: the round ends
                    return "seat %s plays %s, the 5th %s card: the round ends, nothing is auctioned" % (
                        seat, " and ".join(card_words(c) for c in [card, sec_card] if c is not None), ARTISTS[ending])
                text = "seat %s auctions %s" % (seat, card_words(card))
                if sec_card is not None:
                    text += " with %s" % card_words(sec_card)
                return text
        text = game.describe(state, seat, action)
        for deal_words, plain_words in _DEAL_WORDS:
            text = text.replace(deal_words, plain_words)
        return text

    def log_tag(self, step: int) -> str:
        return "%d" % step

    # -- deciding ----------------------------------------------------------------
    def decision_label(self, ctx: Context) -> str:
        v = view_of(ctx)
        if not v:
            return ""
        step = step_of(v.get("phase"))
        if v.get("phase") == "play":
            return "round %d: auction a card" % v.get("round", 1)
        return _say(v, ctx.seat, step.words.asks) if step is not None else ""

    def on_decision(self, ctx: Context) -> Say | None:
        v = view_of(ctx)
        me = ctx.seat
        if not v or me is None:
            return None
        step = step_of(v.get("phase"))
        if v.get("phase") == "play":
            if "cards" not in v:
                return Say("Your turn to auction, but this screen does not know your cards yet.")
            return Say("Your turn to auction: play N (the number in front of a card) or play CARD (e.g. play %s); "
                       "a double with its second card: play N M." % (
                           card_code(hand_order(v["cards"])[0]["id"]) if v["cards"] else "MeS"))
        return Say(_say(v, me, step.words.tells)) if step is not None else None

    def draft_line(self, ctx: Context) -> list:
        v = view_of(ctx)
        me = ctx.seat
        if not v or me is None or v.get("phase") == "over":
            return []
        if not ctx.deciding:
            sent = ctx.sent
            if sent is not None and ctx.snap is not None and sent.phase == ctx.snap.phase:
                # what was sent is said once, on the message line under this one (on_sent): here only
                # that it is in, and whom the step still waits for
                others = [s for s in ctx.missing if s != me]
                return [("class:sent", "Your move is in"), ("class:label", " - waiting for %s." % (
                    who(others, me, names_of(ctx)) if others else "the others"))]
            return [("class:label", "Waiting: %s." % _doing(v, me, names_of(ctx)))]
        step = step_of(v.get("phase"))
        if v.get("phase") == "play":
            return [("bold", "Your turn: "), ("", "play N [M] | play CARD [CARD]"),
                    ("class:label", " (M / second CARD: the second card of a double)")]
        if step is None:
            return []
        head, commands, note = step.words.prompt
        return [("bold", _say(v, me, head)), ("", commands), ("class:label", _say(v, me, note))]

    # -- commands ----------------------------------------------------------------
    def command(self, ctx: Context, name: str, args: list[str]) -> Say | Send | None:
        v = view_of(ctx)
        if v is None or ctx.seat is None:
            raise CommandError("the table has not started yet")
        if v.get("phase") == "over":
            raise CommandError("the game is over")
        if name == "upto":
            return self._upto(ctx, v, args)
        action = self._parse(ctx, v, name, args)
        if not ctx.deciding:
            sent = ctx.sent
            if sent is not None and ctx.snap is not None and sent.phase == ctx.snap.phase:
                raise CommandError("you already sent your move for this step (%s) - waiting for %s; nothing sent" % (
                    re.sub(r"^seat %d " % ctx.seat, "", sent.text),
                    who([s for s in ctx.missing if s != ctx.seat], ctx.seat) or "the others"))
            probs = ctx.problems(action)
            reason = self._words(v, ctx.seat, probs[0]) if probs else "it is not your move yet - wait for YOUR MOVE"
            raise CommandError("%s - nothing sent" % reason)
        probs = ctx.problems(action)
        if probs:
            raise CommandError("cannot do that: %s - nothing sent" % "; ".join(self._words(v, ctx.seat, p) for p in probs))
        return Send(action)

    @staticmethod
    def _words(v: Mapping, me: int, problem: str) -> str:
        """The game's reason in a player's words: our seat as "you", a hint instead of an action format."""
        if '{"' in problem:
            step = step_of(v.get("phase"))
            hint = "play a card: play N or play CARD" if v.get("phase") == "play" else \
                step.words.refused if step is not None else ""
            if hint:
                return hint
        return problem.replace("not seat %d's" % me, "not yours")

    def _hand(self, v: Mapping) -> list[dict]:
        if "cards" not in v:
            raise CommandError("this screen does not know your cards yet (the deal has not shown them)")
        hand = hand_order(v["cards"])
        if not hand:
            raise CommandError("you have no cards in your hand")
        return hand

    def _parse(self, ctx: Context, v: dict, name: str, args: list[str]) -> dict:
        me = ctx.seat
        kind = kind_of(v.get("phase"))
        a = v.get("auction") or {}
        money = _money_of(v, me)
        if name == "play" and kind == ADD and a:
            name = "add"                      # "play N" when a double is offered to you means add
        if name == "play":
            if not args:
                raise CommandError("usage: play N [M] or play CARD [CARD], e.g. play 3 or play MeS "
                                   "(M: the second card of a double)")
            hand = self._hand(v)
            first, used = parse_card(args, hand)
            rest = args[used:]
            if rest and rest[0].lower() in ("with", "and", "+"):
                rest = rest[1:]
            second = None
            if rest:
                c2, used2 = parse_card(rest, hand, taken=[first["pos"]], prefer_second=artist_of(first["id"]))
                if rest[used2:]:
                    raise CommandError("too much after the cards: %r - play N [M] takes one card, or two for a double"
                                       % " ".join(rest[used2:]))
                second = {"pos": c2["pos"], "card": c2["id"]}
            self._chosen = {"do": "play", "pos": first["pos"], "card": first["id"], "double": second}
            return dict(self._chosen)
        if name == "add":
            if not args:
                raise CommandError("usage: add N or add CARD - the second card of the double (same artist, not a double)")
            hand = self._hand(v)
            first = (a.get("cards") or [None])[0] if kind == ADD else None
            art = artist_of(first) if isinstance(first, int) and 0 <= first < N_CARDS else None
            card, used = parse_card(args, hand, prefer_second=art)
            if args[used:]:
                raise CommandError("add takes one card, not %r" % " ".join(args))
            self._chosen = {"do": "add", "pos": card["pos"], "card": card["id"]}
            return dict(self._chosen)
        if name == "pass":
            if args:
                raise CommandError("pass takes no arguments")
            if kind == SEALED:
                return {"do": "bid", "amount": 0}
            return {"do": "pass"}
        if name == "bid":
            if len(args) != 1:
                raise CommandError("usage: bid N (a whole number), bid +N (the standing bid + N) or bid all")
            return {"do": "bid", "amount": amount_of(args[0], "bid", a.get("high", 0) if a else 0, money)}
        if name == "price":
            if len(args) != 1:
                raise CommandError("usage: price N - the fixed price, 1 to your money")
            return {"do": "price", "amount": amount_of(args[0], "price", 0, money)}
        if name == "buy":
            if args:
                raise CommandError("buy takes no arguments (it buys at the price named)")
            return {"do": "buy"}
        kind = verbs().get(name)
        if kind is not None:                  # a registered kind's word: its record parses it
            try:
                return kind[1](list(args), v)
            except ValueError as e:
                raise CommandError(str(e)) from None
        raise CommandError("unknown command %r" % name)

    def submit(self, ctx: Context) -> Say | Send | None:
        if not ctx.deciding:
            return None
        v = view_of(ctx)
        ph = (v or {}).get("phase", "")
        step = step_of(ph)
        hint = "play N or play CARD" if ph == "play" else (step.words.hint if step else "a command (help lists them)")
        raise CommandError("nothing to send yet: type %s" % hint)

    def _upto(self, ctx: Context, v: dict, args: list[str]) -> Say | Send:
        """``upto N``: our standing order for this open auction (kept here, never sent)."""
        me = ctx.seat
        a = v.get("auction") or {}
        if kind_of(v.get("phase")) != RAISE_OR_OUT or not a:
            raise CommandError("upto N is for an open auction (while one is under way)")
        if me in (a.get("out") or []):
            raise CommandError("you passed: you are out of this auction")
        if len(args) != 1:
            raise CommandError("usage: upto N - raise for me each round up to N, then drop out")
        money = _money_of(v, me)
        n = amount_of(args[0], "ceiling", a.get("high", 0), money)
        if n <= a.get("high", 0):
            raise CommandError("the standing bid is already %d: a ceiling must be above it (or pass)" % a.get("high", 0))
        self._order = {"auction": auction_key(v), "upto": n}
        if ctx.deciding:
            action = standing_action(v, me, self._order)
            if action is not None:
                return Send(action)
        return Say("Standing order: up to %d in this auction (only on your screen); you will not be asked again "
                   "in it." % n, "class:sent")

    def on_sent(self, ctx: Context, action: Any, text: str) -> Say:
        v = view_of(ctx)
        words = action_words(action, v) if isinstance(action, dict) else str(text)
        extra = ""
        if isinstance(action, dict) and v:
            kind = kind_of(v.get("phase"))
            if kind == SEALED:
                extra = " (sealed until every bid is in)"
            elif kind == RAISE_OR_OUT:
                order = self._order if self._order and self._order.get("auction") == auction_key(v) else None
                if order is not None and action.get("do") == "pass":
                    extra = " - the standing bid reached your ceiling (up to %d): you are out of this auction" \
                        % order["upto"]
                elif order is not None:
                    extra = " (standing order: up to %d, raised for you each round; nothing more to answer)" % order["upto"]
                elif action.get("do") == "pass":
                    extra = " - you are out of this auction"
                else:
                    extra = " (sealed until this raise round closes)"
            else:
                card = _with_cards(action, v).get("card")      # the table binds positions: our hand names it
                if action.get("do") == "play" and action.get("double") is None and isinstance(card, int) and \
                        0 <= card < N_CARDS and type_of(card) == "double":
                    extra = " - the double now goes round for a second card"
        return Say("Sent: %s%s" % (words, extra), "class:sent")

    # -- help --------------------------------------------------------------------
    def key_help(self, ctx: Context) -> list[str]:
        v = view_of(ctx)
        ph = (v or {}).get("phase", "")
        step = step_of(ph)
        if not ctx.deciding or ph != "play" and step is None:
            return list(_KEYS_IDLE)
        if ph == "play":
            return list(_KEYS_PLAY)
        keys = step.words.keys          # the first gets the long tail, the last the short one
        return [k + _KEYS_TAIL[0 if i == 0 else 2 if i == len(keys) - 1 else 1] for i, k in enumerate(keys)]

    def command_help(self, ctx: Context) -> list[tuple[str, str]]:
        return [(k, t % _types_words() if k == "CARD" else t) for k, t in _COMMAND_HELP]

    def rules_help(self, ctx: Context) -> list[tuple[str, list[tuple[str, str]]]]:
        v = latest_view(ctx)
        players = (v or {}).get("players") or ctx.players or 4
        deal = _rules.DEAL.get(players, _rules.DEAL[4])
        rows = [
            ("A turn", "the auctioneer plays a card from its hand; the auction is the card's type. Payment goes to "
                       "the auctioneer, or to the bank when the auctioneer buys its own painting. Nobody bids more "
                       "than its money. No bid: the auctioneer takes the painting free. Then the turn passes to the "
                       "next seat on the left holding cards (a seat without cards still bids)."),
        ] + [("%s %s" % (x.symbol, x.word), x.rule) for x in AUCTIONS.values()] + [
            ("Round end", "the 5th card of one artist ends the round at once (it is not auctioned, but counts); "
                          "also when nobody has cards left. Artists ranked by cards played this round (ties: board "
                          "order Ca Th Me Ma Si): tiles 30, 20, 10 to the top three. A painting of a top-three artist "
                          "sells to the bank for all its tiles so far; any other for 0. Hands carry over."),
            ("The game", "4 rounds; each seat starts with 100 money; %d players are dealt %s cards in rounds 1-4. "
                         "Most money at the end wins; equal money shares the place."
                         % (players, "/".join(str(k) for k in deal))),
            ("Screens", "money is behind screens: the game shows each seat only its own money (others: ?) until "
                        "the game ends; every payment is public (the sales), so you may count, but nothing counts "
                        "for you."),
            ("Screen", "cards: a block in the artist's colour with its letters and the type symbol, e.g. MeS = "
                       "Daniel Melim, sealed. Artists: Ca Manuel Carvalho (amber), Th Sigrid Thaler (blue), Me Daniel "
                       "Melim (red), Ma Ramon Martins (green), Si Rafael Silveira (purple). Types: %s. Board: r1-r4 the tiles each round, sum = tiles so "
                       "far, now = cards played this round (●, the 5th ends it). Seats: bought = paintings bought "
                       "this round by artist; role A = auctioneer, high = standing bidder." % _types_words()),
        ]
        return [("Modern Art in short", rows)]

    # -- the reveal and replay ---------------------------------------------------
    def beats(self, ctx: Context, before: Snapshot) -> list[Beat]:
        """Sealed bids opening side by side, open-auction raise rounds ("going once, going twice, sold"),
        every sale, and a round's end: ranking, tiles and payouts."""
        return reveal_beats(ctx.snap, before, ctx.seat)

    def describe_table(self, ctx: Context, config: Mapping[str, Any], players: int) -> str:
        return "Modern Art for %d seats; %s edition; 100 money each, 4 rounds" % (
            players, dict(config).get("edition", "standard"))

    def happenings(self, before: Any, view: Any) -> list[str]:
        """Every sale and every round's end between two views, for the event log: the moves say who bid,
        only the rules say who bought, for how much, and what the bank paid (the reveal shows it too,
        but it may be skipped)."""
        if not isinstance(before, Mapping) or not isinstance(view, Mapping):
            return []
        return happening_words(before, view)

    def is_mark(self, before: Snapshot, after: Snapshot) -> bool:
        return mark_where(before, after, lambda v: (_finished(v), len(v.get("sales") or [])))


SCREEN = ModernArtScreen
