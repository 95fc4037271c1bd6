"""Modern Art's auction types as data: one record per type, read by the rules, the bots and the screen.

Each ``Auction`` record holds everything one auction type is: its names (the
card face's name, the screen's symbol, short word and the words a person may
type for it), how it starts (``start``), and its steps (``Step``: one per
phase the type runs through, each with ``check``, ``apply``, ``default``,
``legal`` and ``label``; ``apply`` also advances to the next seat or closes
the auction).  Each step declares the **kind** of decision it asks (``KINDS``:
a sealed amount, raise-or-pass, raise-or-drop-out, name a price, buy-or-pass,
add a card; or a ``Kind`` record, a new kind of decision that says what the
others ask of it: the kind whose policy, warning and pane it shares, the
view's fields, its action words and the words a person types) and its **words** (``Words``: key help, prompt, the sentence said
when asked, whose move it is, the action words in the second and the third
person, what a time-out does).  ``rules.py`` runs a card play and the round
and dispatches every auction phase through ``STEPS`` (phase -> Step); the
bots (bots.py), the warnings (warnings.py) and the screen
(cli/screens/modern_art/) dispatch on a step's kind and say its words,
never a phase's name.  Adding or changing an auction type is this file (and
its rule text in RULES.md): ``register(auction, cards)`` adds one, with the
cards that carry it (tests/test_modern_art_dutch.py registers a Dutch
auction from the test and plays it with the bots and through the screen, and
then the same auction whose falling step is a new kind, "take it at this
price", written as a ``Kind`` record in the test alone).

Pure, like the rules: every function takes the state; ``start`` and ``apply``
change ``w``, a clone the rules made for this transition.  ``register`` is a
registry's change (the standard game registers nothing: its deck is the five
types below).

``standing_action(view, seat, order)`` is a seat's own standing order in an
open auction ("raise for me up to N"): what its peer answers for it, round by
round, without asking the person again.  The order never leaves the seat's
own peer (the ceiling is private); the table only ever sees the bids.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping

from ...engine import IllegalAction
from . import cards as _cards
from .cards import ARTISTS, TYPE_NAMES, artist_of, card_name

__all__ = ["Auction", "Step", "Words", "Said", "AUCTIONS", "STEPS", "PHASES", "KINDS", "ADD", "PRICE", "BUY",
           "RAISE", "RAISE_OR_OUT", "SEALED", "Kind", "SHOWS", "by_word", "step_of", "kind_of", "base_kind", "shows_of",
           "answer_as", "verbs", "said", "standing_action",
           "auction_key", "next_raise", "register", "unregister", "registered"]

# The kinds of decision a step asks (a step's ``kind``).  What a kind means is all the bots, the warnings
# and the screen know of a step: each answers every step of a kind the same way, with the step's words.
SEALED = "sealed"              # one sealed amount at once, 0 = none ("bid N", "pass" = bid 0)
RAISE = "raise"                # raise the standing bid or pass, each seat once, in turn
RAISE_OR_OUT = "raise_or_out"  # raise the standing bid or drop out for good, in rounds answered at once
PRICE = "price"                # the auctioneer names the price
BUY = "buy"                    # buy at the price shown (``view["auction"]["price"]``) or pass, in turn
ADD = "add"                    # add a second card of the lot's artist (not a double) or pass, in turn
KINDS = (SEALED, RAISE, RAISE_OR_OUT, PRICE, BUY, ADD)


@dataclass(frozen=True)
class Kind:
    """A new kind of decision, as its record: a step whose ``kind`` is a ``Kind`` (not one of KINDS) carries
    all that the rules, the bots, the warnings and the screen ask of it, so adding it edits none of them
    (tests/test_modern_art_dutch.py adds "take it at this price" from the test).

    ``like`` is the one of KINDS whose bot policy, warning and auction pane it shares (the places that
    dispatch on a kind read ``kind_of``, which says ``like``); ``shows`` the state's fields the view puts in
    ``view["auction"]`` while it is asked (``shows_of``); ``answers`` renames the shared policy's action
    words to this kind's (``{"buy": "take"}``: a bot's "buy" is sent as "take"); ``verbs`` the words a
    person types for it, each with its parser ``(args, view) -> action`` (a ValueError's text is said to
    the person).  Its words (key help, prompt, said, what a time-out does) are its step's ``Words``."""

    name: str
    like: str
    shows: tuple = ()
    answers: Mapping = field(default_factory=dict)
    verbs: Mapping = field(default_factory=dict)


# the fields of the state each of KINDS shows in the view while asked (a Kind says its own: ``shows``)
SHOWS = {BUY: ("price",)}


@dataclass(frozen=True)
class Said:
    """One action's words in both persons, written once: the screen says ``you`` ("you pass") to the seat
    that sent it, the rules' ``describe`` says ``they`` after "seat N " ("passes").  Fields in braces:
    ``amount``, ``price``, ``card``.  With no ``key`` field (None or 0) the ``*_none`` form is said, when
    there is one ("no bid")."""

    you: str
    they: str
    you_none: str = ""
    they_none: str = ""
    key: str = "amount"

    def words(self, you: bool, **fields: Any) -> str:
        none = self.you_none if you else self.they_none
        if none and not fields.get(self.key):
            return none.format(**fields)
        return (self.you if you else self.they).format(**fields)


_PASS = Said("you pass", "passes")
_OUTBID = "You cannot outbid the standing {high}: you have {money} money."
_BID = Said("your bid: {amount}", "bids {amount}", you_none="no bid")


@dataclass(frozen=True)
class Words:
    """What a person reads about one step.  Fields in braces are filled by the screen from the view:
    ``money`` (the seat's own), ``high`` (standing bid), ``low`` (high + 1), ``price``, ``round`` (raise
    round), ``lot`` (the cards on offer), ``artist`` (the first card's), ``stand`` ("standing bid 12 by
    seat 2" / "no bid yet"), ``bid`` ("bid above 12 or pass" / "bid or pass"), and the seats ``actor``,
    ``auctioneer``, ``opener`` ("you" / "seat 2"; capitalised: ``Actor``, ``Auctioneer``, ``Opener``)."""

    keys: tuple               # the key help, longest first (the screen adds help, scrolling and quit)
    prompt: tuple             # (head, commands, note): the line under the status while asked
    asks: str                 # the decision in a few words: the status line's "YOUR MOVE (...)"
    tells: str                # the sentence said when asked
    doing: tuple              # whose decision, (when it is ours, when it is another seat's)
    hint: str                 # the action forms a person types here, for "do X or Y" messages
    about: tuple = ("", "")   # the auction pane's words on the step (asked seat, others)
    turns: str = ""           # the auction pane: who is asked ("Buyers in turn: ", "Bidding: ")
    turns_note: str = ""      # after the seats in turn
    answered: str = "answered"   # a sealed round: the word for the seats whose answer is in
    refused: str = ""         # what to say instead of a refusal that shows an action's format
    cannot: str = ""          # the warning when the seat cannot afford the step's move ({high}, {price}, {money})
    timeout: tuple = ("", "")  # (words of the step's label, what a time-out does in it)
    said: Mapping = field(default_factory=dict)   # do -> Said


@dataclass(frozen=True)
class Step:
    """One phase of an auction type.  ``simultaneous`` phases ask ``state.asked`` (sealed batches)."""

    phase: str
    kind: Any                            # one of KINDS, or a Kind record: what the step asks
    simultaneous: bool
    check: Callable[..., dict]           # (state, seat, action, money) -> the canonical action, or IllegalAction
    apply: Callable[..., None]           # (w, seat, canonical action): changes w (advance, sell, next round)
    default: Callable[..., dict]         # (state, seat) -> what a time-out gives
    legal: Callable[..., list]           # (state, seat) -> every kind of legal action (the default among them)
    label: Callable[..., str]            # (state) -> the step's label for people (round prefix added by rules)
    words: Words
    time: Callable[..., Any] = field(default=lambda s: None)   # (state) -> Turn.time (None: the table's)


@dataclass(frozen=True)
class Auction:
    key: str                             # the card's type (cards.TYPES)
    name: str                            # the card face's name ("open auction": cards.TYPE_NAMES)
    symbol: str                          # one letter on the card chip (screen)
    word: str                            # short name ("once around")
    aliases: tuple                       # words a person may type for it (lower case)
    rule: str                            # the rule in one paragraph (help pages)
    prefer: int                          # bots: liking as a card to auction / a double's second card
    start: Callable[..., None]           # (w): w.auctioneer, w.cards_up set; opens the first step (or sells)
    steps: tuple                         # Step records, in the order the type runs them


_rules = None


def _R():
    """rules.py (imported on first use: it imports this module)."""
    global _rules
    if _rules is None:
        from . import rules
        _rules = rules
    return _rules


# --------------------------------------------------------------------------- shared


def _bad(text: str) -> IllegalAction:
    return IllegalAction(text)


def _who(seat: int) -> str:
    return "seat %d" % seat


def _pass_only(action: dict) -> dict | None:
    if action.get("do") == "pass":
        _R()._keys(action, ("do",), "pass")
        return {"do": "pass"}
    return None


def _bid_amount(state, action: dict, money: int) -> int:
    R = _R()
    R._keys(action, ("do", "amount"), "bid")
    amount = R._amount(action.get("amount"))
    if amount < 0:
        raise _bad("a bid cannot be negative")
    if amount > money:
        raise _bad("you have only %d; you cannot bid %d" % (money, amount))
    return amount


def _raise_check(state, seat: int, action: dict, money: int) -> dict:
    """Open and once around: a bid above the standing bid, or a pass."""
    p = _pass_only(action)
    if p:
        return p
    if action.get("do") != "bid":
        raise _bad("bid an amount or pass")
    amount = _bid_amount(state, action, money)
    if amount <= state.high:
        if state.high_bidder >= 0:
            raise _bad("your bid must be above the standing bid of %d (by %s)" % (state.high, _who(state.high_bidder)))
        raise _bad("a bid must be at least 1")
    return {"do": "bid", "amount": amount}


def _raise_legal(state, seat: int) -> list:
    return [{"do": "pass"}] + [{"do": "bid", "amount": x} for x in _R()._amounts(state.high + 1, state.money[seat])]


def _pass(state, seat: int) -> dict:
    return {"do": "pass"}


# --------------------------------------------------------------------------- open


def _open_start(w) -> None:
    w.open_round = 0
    w.out = ()
    _open_round(w)


def _open_round(w) -> None:
    """A new raise round: every seat still in (not out, not the standing bidder) that could raise.
    Nobody left to ask: sold to the standing bidder (or free to the auctioneer)."""
    n = w.players
    asked = tuple(s for s in range(n) if s != w.high_bidder and s not in w.out and w.money[s] > w.high)
    if not asked:
        _R()._sold(w, w.high_bidder, w.high)
        return
    w.phase = "open"
    w.actor = -1
    w.open_round += 1
    w.asked = asked
    w.bids = (None,) * n


def _open_apply(w, seat: int, a: Mapping) -> None:
    """Record the answer (a pass drops the seat out of this auction for good); when every asked seat has
    answered, the highest raise stands and the next round opens, or nobody raised and it is sold."""
    bids = list(w.bids)
    bids[seat] = a["amount"] if a["do"] == "bid" else 0
    w.bids = tuple(bids)
    if a["do"] == "pass":
        w.out = tuple(sorted(set(w.out) | {seat}))
    if any(bids[s] is None for s in w.asked):
        return
    raisers = [s for s in w.asked if bids[s] > w.high]
    if not raisers:
        _R()._sold(w, w.high_bidder, w.high)
        return
    top = max(bids[s] for s in raisers)
    w.high_bidder = _R()._tie_winner([s for s in raisers if bids[s] == top], w.auctioneer, w.players)
    w.high = top
    w.last = "open auction: %s leads with %d" % (_who(w.high_bidder), top)
    _open_round(w)


def _open_time(state) -> int:
    R = _R()
    return state.config.get("open_round_seconds", R.OPTIONS["open_round_seconds"])


# --------------------------------------------------------------------------- once around


def _once_start(w) -> None:
    n = w.players
    w.phase = "once_around"
    w.order = tuple((w.auctioneer + k) % n for k in range(1, n + 1))
    w.idx = -1
    _once_advance(w)


def _once_advance(w) -> None:
    """Once around: the next seat in order that could bid higher; past the auctioneer -> sold."""
    order = w.order
    i = w.idx + 1
    while i < len(order) and w.money[order[i]] <= w.high:
        i += 1
    if i >= len(order):
        _R()._sold(w, w.high_bidder, w.high)
        return
    w.idx = i
    w.actor = order[i]


def _once_apply(w, seat: int, a: Mapping) -> None:
    if a["do"] == "bid":
        w.high = a["amount"]
        w.high_bidder = seat
        w.last = "%s bids %d" % (_who(seat), w.high)
    _once_advance(w)


# --------------------------------------------------------------------------- sealed


def _sealed_start(w) -> None:
    w.phase = "sealed"
    w.actor = -1
    w.asked = tuple(s for s in range(w.players) if w.money[s] > 0)
    if not w.asked:
        _R()._sold(w, -1, 0)


def _sealed_check(state, seat: int, action: dict, money: int) -> dict:
    if action.get("do") == "pass":
        _R()._keys(action, ("do",), "pass")
        return {"do": "pass"}
    if action.get("do") != "bid":
        raise _bad("bid an amount or pass")
    return {"do": "bid", "amount": _bid_amount(state, action, money)}


def _sealed_apply(w, seat: int, a: Mapping) -> None:
    bids = list(w.bids)
    bids[seat] = a["amount"] if a["do"] == "bid" else 0
    w.bids = tuple(bids)
    if any(bids[s] is None for s in w.asked):
        return
    top = max(bids[s] for s in w.asked)
    if top <= 0:
        _R()._sold(w, -1, 0)
        return
    win = _R()._tie_winner([s for s in w.asked if bids[s] == top], w.auctioneer, w.players)
    w.high, w.high_bidder = top, win
    _R()._sold(w, win, top)


# --------------------------------------------------------------------------- fixed price


def _fixed_start(w) -> None:
    w.phase = "price"
    w.actor = w.auctioneer


def _price_check(state, seat: int, action: dict, money: int) -> dict:
    R = _R()
    if action.get("do") != "price":
        raise _bad("name the fixed price: {\"do\": \"price\", \"amount\": n}")
    R._keys(action, ("do", "amount"), "price")
    amount = R._amount(action.get("amount"))
    if amount > money:
        raise _bad("the fixed price must be at most your money (%d), not %d" % (money, amount))
    if amount < 1 and money > 0:
        raise _bad("the fixed price must be at least 1")
    if amount < 0:
        raise _bad("the fixed price cannot be negative")
    return {"do": "price", "amount": amount}


def _price_apply(w, seat: int, a: Mapping) -> None:
    n = w.players
    w.price = a["amount"]
    w.high = a["amount"]
    w.phase = "fixed_price"
    w.order = tuple((w.auctioneer + k) % n for k in range(1, n))
    w.idx = -1
    w.last = "%s names the price %d" % (_who(seat), w.price)
    _fixed_advance(w)


def _price_default(state, seat: int) -> dict:
    return {"do": "price", "amount": min(1, state.money[seat])}


def _price_legal(state, seat: int) -> list:
    money = state.money[seat]
    if money == 0:
        return [{"do": "price", "amount": 0}]
    return [{"do": "price", "amount": x} for x in _R()._amounts(1, money)]


def _fixed_advance(w) -> None:
    """Fixed price: the next seat left of the auctioneer that can pay; none left -> the auctioneer buys."""
    order = w.order
    i = w.idx + 1
    while i < len(order) and w.money[order[i]] < w.price:
        i += 1
    if i >= len(order):
        _R()._sold(w, w.auctioneer, w.price)
        return
    w.idx = i
    w.actor = order[i]


def _buy_check(state, seat: int, action: dict, money: int) -> dict:
    p = _pass_only(action)
    if p:
        return p
    if action.get("do") != "buy":
        raise _bad("buy at %d or pass" % state.price)
    _R()._keys(action, ("do",), "buy")
    if money < state.price:
        raise _bad("you have only %d; you cannot pay the price of %d" % (money, state.price))
    return {"do": "buy"}


def _buy_apply(w, seat: int, a: Mapping) -> None:
    if a["do"] == "buy":
        _R()._sold(w, seat, w.price)
    else:
        _fixed_advance(w)


def _buy_legal(state, seat: int) -> list:
    return [{"do": "pass"}] + ([{"do": "buy"}] if state.money[seat] >= state.price else [])


# --------------------------------------------------------------------------- double


def _double_start(w) -> None:
    """The opener played a double without a second card: the offer goes round from its left."""
    n = w.players
    w.phase = "double"
    w.atype = ""
    w.order = tuple((w.opener + k) % n for k in range(1, n))
    w.idx = -1
    _double_advance(w)


def _double_advance(w) -> None:
    """The double offer goes round from the opener's left to seats holding a card; nobody adds ->
    the opener takes the double card free."""
    order = w.order
    i = w.idx + 1
    while i < len(order) and not w.hands[order[i]]:
        i += 1
    if i >= len(order):
        w.last = "nobody adds a second card: %s takes %s free" % (_who(w.opener), card_name(w.cards_up[0]))
        w.auctioneer = w.opener
        _R()._sold(w, w.opener, 0, quiet=True)
        return
    w.idx = i
    w.actor = order[i]


def _double_check(state, seat: int, action: dict, money: int) -> dict:
    R = _R()
    if action.get("do") == "pass":
        R._keys(action, ("do",), "pass")
        return {"do": "pass"}
    if action.get("do") != "add":
        raise _bad("add a second %s card to the double (add) or pass" % ARTISTS[artist_of(state.cards_up[0])])
    R._keys(action, ("do", "pos", "card"), "add")
    pos, card = R._claim(state, seat, action.get("pos"), action.get("card"), "the second")
    R._second_ok(state.cards_up[0], card)
    return {"do": "add", "pos": pos, "card": card}


def _double_apply(w, seat: int, a: Mapping) -> None:
    if a["do"] == "pass":
        _double_advance(w)
    else:
        _R()._add_second(w, seat, a["pos"], a["card"])


def _double_legal(state, seat: int) -> list:
    return [{"do": "pass"}]      # the cards a seat may add are listed by rules.legal_actions (it knows the hand)


# --------------------------------------------------------------------------- the records

OPEN = Auction(
    key="open", name=TYPE_NAMES["open"], symbol="O", word="open", aliases=("o", "open"),
    rule="rounds of sealed raise-or-pass: every seat still in (the auctioneer too, not the standing bidder) "
         "hands in a raise or a pass at once; a pass drops the seat out of this auction for good; the highest "
         "raise stands (equal raises: the auctioneer, else the nearest clockwise); it sells when a round has no "
         "raise or nobody is left to ask. \"upto N\" raises for you round by round up to N without asking again.",
    prefer=2, start=_open_start,
    steps=(Step("open", RAISE_OR_OUT, True, _raise_check, _open_apply, _pass, _raise_legal,
                lambda s: "open auction, raise round %d (standing bid %d)" % (s.open_round, s.high),
                Words(keys=("bid N | bid +N | bid all | upto N | pass (out for good)", "bid N | upto N | pass"),
                      prompt=("Bid: ", "bid N | bid +N | bid all | upto N | pass",
                              " ({low} to {money}; pass = out of this auction)"),
                      asks="open auction round {round}: {bid}",
                      tells="Open auction for {lot}, raise round {round}, {stand}: bid N ({low} to {money}), upto N "
                            "(raise for you up to N, no more questions) or pass (out of this auction). Raises are "
                            "sealed; a round without a raise sells.",
                      doing=("open auction, raise round {round}",) * 2, hint="bid N or pass",
                      about=("   raise round {round}: raises are sealed; a round without a raise sells",) * 2,
                      turns="Raise or pass now: ", timeout=("open auction", "a pass: out of this auction"),
                      cannot=_OUTBID, said={"pass": _PASS, "bid": _BID}),
                _open_time),),
)
ONCE_AROUND = Auction(
    key="once_around", name=TYPE_NAMES["once_around"], symbol="1", word="once around",
    aliases=("1", "once", "oncearound", "once_around", "once-around", "around"),
    rule="from the auctioneer's left, each seat once bids higher or passes; the auctioneer last. The highest "
         "bid wins.",
    prefer=2, start=_once_start,
    steps=(Step("once_around", RAISE, False, _raise_check, _once_apply, _pass, _raise_legal,
                lambda s: "once around, %s bids or passes (standing bid %d)" % (_who(s.actor), s.high),
                Words(keys=("bid N | bid +N | bid all | pass", "bid N | pass"),
                      prompt=("Bid: ", "bid N | bid +N | bid all | pass", " ({low} to {money})"),
                      asks="once around: {bid}",
                      tells="Once around for {lot}, auctioneer {auctioneer}, {stand}: bid N ({low} to {money}) or "
                            "pass - one chance.",
                      doing=("your bid", "{actor} bids"), hint="bid N or pass",
                      turns="Each once, in turn: ", turns_note=" (the auctioneer last)",
                      timeout=("once around", "a pass"), cannot=_OUTBID, said={"pass": _PASS, "bid": _BID})),),
)
SEALED_BID = Auction(
    key="sealed", name=TYPE_NAMES["sealed"], symbol="S", word="sealed", aliases=("s", "sealed", "seal"),
    rule="every seat with money hands in one sealed bid (0 = no bid); the highest wins; ties: the auctioneer, "
         "else the nearest clockwise from it.",
    prefer=1, start=_sealed_start,
    steps=(Step("sealed", SEALED, True, _sealed_check, _sealed_apply, lambda s, seat: {"do": "bid", "amount": 0},
                lambda s, seat: [{"do": "bid", "amount": x} for x in _R()._amounts(0, s.money[seat])],
                lambda s: "sealed bids",
                Words(keys=("bid N (0 = no bid) | bid all | pass", "bid N | pass"),
                      prompt=("Sealed bid: ", "bid N | pass", " (0 to {money}; 0 = no bid)"),
                      asks="sealed bid, 0 = no bid",
                      tells="Sealed auction for {lot}, auctioneer {auctioneer}: one sealed bid, bid N (0 to {money}; "
                            "0 = no bid). Ties: the auctioneer, else the nearest clockwise.",
                      doing=("sealed bids",) * 2, hint="bid N (0 = no bid)",
                      about=("  Every seat with money hands in one sealed bid at once (0 = no bid); ties go to the "
                             "auctioneer, else the nearest clockwise from it.",) * 2,
                      turns="Bidding: ", answered="bid in", timeout=("sealed bids", "no bid"),
                      said={"pass": _PASS, "bid": Said("your bid: {amount}", "hands in a sealed bid", "no bid",
                                                       "hands in no bid")})),),
)
FIXED_PRICE = Auction(
    key="fixed_price", name=TYPE_NAMES["fixed_price"], symbol="F", word="fixed price",
    aliases=("f", "fixed", "fixed_price", "fixed-price", "fixedprice", "price"),
    rule="the auctioneer names a price (1 to its money); from its left each seat buys or passes; the first buyer "
         "takes it; if all pass the auctioneer must buy it.",
    prefer=0, start=_fixed_start,
    steps=(Step("price", PRICE, False, _price_check, _price_apply, _price_default, _price_legal,
                lambda s: "%s names a fixed price" % _who(s.actor),
                Words(keys=("price N (1 to your money)", "price N"),
                      prompt=("Fixed price: ", "price N", " (1 to {money})"),
                      asks="name the fixed price",
                      tells="Name your fixed price for {lot}: price N (1 to {money}). If nobody buys, you must buy "
                            "it yourself.",
                      doing=("you name a price", "{actor} names a price"), hint="price N",
                      about=("  You name the price (1 to your money): price N, at most {money}. If all others "
                             "pass, you must buy it yourself.", "  {Auctioneer} names the price (1 to their money)"),
                      refused="name the fixed price first: price N",
                      timeout=("names a fixed price", "the price is the lowest, 1"),
                      said={"price": Said("your fixed price: {amount}", "names the fixed price {amount}")})),
           Step("fixed_price", BUY, False, _buy_check, _buy_apply, _pass, _buy_legal,
                lambda s: "%s may buy for %d" % (_who(s.actor), s.price),
                Words(keys=("buy | pass", "buy | pass"),
                      prompt=("Price {price}: ", "buy | pass", " (you have {money})"),
                      asks="buy for {price} or pass",
                      tells="{Auctioneer} offers {lot} at {price}: buy or pass (you have {money}).",
                      doing=("you may buy", "{actor} may buy"), hint="buy or pass",
                      about=(" - the first to buy takes it, paid to {auctioneer}; if all pass, {auctioneer} must "
                             "buy it, paying the bank",) * 2,
                      turns="Buyers in turn: ", refused="buy or pass", timeout=("may buy", "a pass: no purchase"),
                      cannot="You cannot buy at the fixed price {price}: you have {money} money.",
                      said={"pass": _PASS, "buy": Said("you buy for {price}", "buys at the fixed price {price}",
                                                       "you buy", key="price")}))),
)
DOUBLE = Auction(
    key="double", name=TYPE_NAMES["double"], symbol="D", word="double", aliases=("d", "double"),
    rule="the auctioneer may add a second card of the same artist (not a double) at once; if not, the offer goes "
         "round from its left and whoever adds becomes the auctioneer (is paid) and play continues on its left. "
         "The auction is the second card's type; the winner takes both. Nobody adds: the auctioneer takes the "
         "double card free.",
    prefer=0, start=_double_start,
    steps=(Step("double", ADD, False, _double_check, _double_apply, _pass, _double_legal,
                lambda s: "%s may add a second %s to the double" % (_who(s.actor), ARTISTS[artist_of(s.cards_up[0])]),
                Words(keys=("add N | add CARD (a second card of the artist, not a double) | pass",
                            "add N | add CARD | pass", "add N | pass"),
                      prompt=("Double offered: ", "add N | add CARD | pass", " (highlighted numbers fit)"),
                      asks="add a second {artist} to the double, or pass",
                      tells="{Opener} offers {lot}: add a second {artist} card (add N; you become the auctioneer "
                            "and are paid) or pass.",
                      doing=("double offered to you", "double offered to {actor}"), hint="add N, add CARD or pass",
                      about=("  A second {artist} card (not a double) is wanted; whoever adds one becomes the "
                             "auctioneer, is paid, and the auction is that card's type.",) * 2,
                      turns="Offer in turn: ", turns_note="; nobody adds: it goes free to {opener}",
                      refused="add N, add CARD or pass", timeout=("second", "a pass: nothing added to the double"),
                      said={"pass": _PASS, "add": Said("you add {card} to the double (you are the auctioneer now)",
                                                       "adds {card} to the double and becomes the auctioneer")})),),
)

AUCTIONS: dict[str, Auction] = {a.key: a for a in (OPEN, ONCE_AROUND, SEALED_BID, FIXED_PRICE, DOUBLE)}
STEPS: dict[str, Step] = {st.phase: st for a in AUCTIONS.values() for st in a.steps}
PHASES = tuple(STEPS)
OWNER: dict[str, Auction] = {st.phase: a for a in AUCTIONS.values() for st in a.steps}
_STANDARD = tuple(AUCTIONS)
_RETYPED: dict[int, str] = {}         # card id -> a registered type that card carries now


def by_word(word: str) -> str | None:
    """The auction type a person means by ``word`` (a symbol, a name, an alias), or None."""
    w = word.lower()
    for a in AUCTIONS.values():
        if w in a.aliases or w == a.key:
            return a.key
    return None


def step_of(phase: Any) -> Step | None:
    """The auction step a phase runs (None: the card play, the end, or no phase at all)."""
    return STEPS.get(phase) if isinstance(phase, str) else None


def kind_of(phase: Any) -> str | None:
    """What the phase asks (one of KINDS: a Kind record's ``like``), None outside an auction step."""
    st = step_of(phase)
    return None if st is None else base_kind(st.kind)


def base_kind(kind: Any) -> str:
    """One of KINDS: the kind itself, or the one a Kind record is ``like``."""
    return kind.like if isinstance(kind, Kind) else kind


def shows_of(phase: Any) -> tuple:
    """The state's fields the view shows in its auction while ``phase`` asks (``SHOWS``, ``Kind.shows``)."""
    st = step_of(phase)
    if st is None:
        return ()
    return st.kind.shows if isinstance(st.kind, Kind) else SHOWS.get(st.kind, ())


def answer_as(phase: Any, action: Any) -> Any:
    """A policy's answer for ``kind_of(phase)`` in the words of the phase's own kind (``Kind.answers``)."""
    st = step_of(phase)
    if st is None or not isinstance(st.kind, Kind) or not isinstance(action, dict):
        return action
    do = st.kind.answers.get(action.get("do"))
    return action if do is None else dict(action, do=do)


def verbs() -> dict:
    """Every word a person may type for a registered Kind: word -> (kind, its parser)."""
    return {w: (st.kind, f) for st in STEPS.values() if isinstance(st.kind, Kind) for w, f in st.kind.verbs.items()}


def said(phase: Any, action: Mapping, you: bool, **fields: Any) -> str | None:
    """An auction action's words (``you``: second person, else third), from the step of ``phase``, else from
    the first step that knows the action (a view may have moved on since); None when no step does."""
    do = action.get("do")
    st = step_of(phase)
    words = st.words.said.get(do) if st is not None else None
    if words is None:
        words = next((x.words.said[do] for x in STEPS.values() if do in x.words.said), None)
    return None if words is None else words.words(you, **fields)


# --------------------------------------------------------------------------- more auction types


def register(auction: Auction, cards: Iterable[int] = ()) -> None:
    """Add an auction type: its record, its steps, and the cards (ids) that carry it from now on instead of
    their printed type.  For variants and tests (tests/test_modern_art_dutch.py): the standard game registers
    nothing, so its deck, logs and views are the five types above.  ``unregister`` undoes it."""
    phases = [st.phase for st in auction.steps]
    if auction.key in AUCTIONS or not auction.steps:
        raise ValueError("auction type %r is registered already (or has no step)" % auction.key)
    if any(p in STEPS or p in ("play", "over") for p in phases) or len(set(phases)) != len(phases):
        raise ValueError("the phases of %r must be new: %s" % (auction.key, ", ".join(phases)))
    if any(not (isinstance(st.kind, Kind) and st.kind.like in KINDS) and st.kind not in KINDS
           for st in auction.steps):
        raise ValueError("a step's kind is one of %s, or a Kind record like one of them" % ", ".join(KINDS))
    ids = [c for c in cards]
    if any(type(c) is not int or not 0 <= c < _cards.N_CARDS or c in _RETYPED for c in ids):
        raise ValueError("cards are unregistered card ids 0 to %d" % (_cards.N_CARDS - 1))
    AUCTIONS[auction.key] = auction
    for st in auction.steps:
        STEPS[st.phase] = st
        OWNER[st.phase] = auction
    TYPE_NAMES[auction.key] = auction.name
    _RETYPED.update({c: auction.key for c in ids})
    _refresh()


def unregister(key: str) -> None:
    """Remove a registered auction type; its cards carry their printed types again."""
    if key in _STANDARD or key not in AUCTIONS:
        raise ValueError("%r is not a registered auction type" % key)
    for st in AUCTIONS.pop(key).steps:
        del STEPS[st.phase], OWNER[st.phase]
    del TYPE_NAMES[key]
    for c in [c for c, t in _RETYPED.items() if t == key]:
        del _RETYPED[c]
    _refresh()


@contextmanager
def registered(auction: Auction, cards: Iterable[int] = ()) -> Iterator[Auction]:
    """``register`` for the length of a ``with`` block (a test's)."""
    register(auction, cards)
    try:
        yield auction
    finally:
        unregister(auction.key)


def _refresh() -> None:
    global PHASES
    PHASES = tuple(STEPS)
    _cards.retype(_RETYPED)


# --------------------------------------------------------------------------- a seat's standing order


def auction_key(view: Mapping[str, Any]) -> list | None:
    """Which auction a view shows: [round, sales so far this round, cards on offer] (None outside one)."""
    a = view.get("auction") if isinstance(view, Mapping) else None
    if not isinstance(a, Mapping):
        return None
    return [view.get("round"), len(view.get("sales") or []), list(a.get("cards") or [])]


def next_raise(high: int, upto: int) -> int:
    """What a standing order raises to over a standing bid ``high``: halfway to the ceiling (at least +1),
    so it reaches its ceiling in a few rounds without announcing it in the first."""
    return min(upto, high + max(1, (upto - high + 1) // 2))


def standing_action(view: Mapping[str, Any], seat: int, order: Mapping[str, Any] | None) -> dict | None:
    """The action a seat's standing order gives when the seat is asked in an open auction, or None (ask the
    person).  ``order``: ``{"auction": auction_key(view), "upto": N}``, kept by the seat's own peer or UI.
    Within the ceiling it raises (``next_raise``); at or past it, it passes (and so drops out)."""
    if not isinstance(order, Mapping) or not isinstance(view, Mapping) or kind_of(view.get("phase")) != RAISE_OR_OUT:
        return None
    if order.get("auction") != auction_key(view):
        return None
    a = view["auction"]
    if seat not in (a.get("asked") or []) or seat in (a.get("answered") or []):
        return None
    upto = order.get("upto")
    money = (view.get("money") or [None] * (seat + 1))[seat]
    if type(upto) is not int:
        return None
    if type(money) is int:
        upto = min(upto, money)
    high = a.get("high") or 0
    if upto <= high:
        return answer_as(view.get("phase"), {"do": "pass"})
    return answer_as(view.get("phase"), {"do": "bid", "amount": next_raise(high, upto)})
