"""Modern Art's auction types as data: one record per type, read by the rules, the bots and the screen.

Each ``Auction`` record holds everything one auction type is: its names (the
card face's name is ``cards.TYPE_NAMES``; here the screen's symbol, short word
and the words a person may type for it), how it starts (``start``), and its
steps (``Step``: one per phase the type runs through, each with ``check``,
``apply``, ``default``, ``legal`` and ``label``; ``apply`` also advances to
the next seat or closes the auction).  ``rules.py`` runs a card play and the
round; every auction phase is dispatched through ``STEPS`` (phase -> Step),
never by name.  Adding or changing an auction type is this file (plus the
deck's split in ``cards.py`` when the cards change).

Pure, like the rules: every function takes the state; ``start`` and ``apply``
change ``w``, a clone the rules made for this transition.

``standing_action(view, seat, order)`` is a seat's own standing order in an
open auction ("raise for me up to N"): what its peer answers for it, round by
round, without asking the person again.  The order never leaves the seat's
own peer (the ceiling is private); the table only ever sees the bids.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ...engine import IllegalAction
from .cards import ARTISTS, TYPE_NAMES, artist_of, card_name

__all__ = ["Auction", "Step", "AUCTIONS", "STEPS", "PHASES", "by_word", "standing_action", "auction_key",
           "next_raise"]


@dataclass(frozen=True)
class Step:
    """One phase of an auction type.  ``simultaneous`` phases ask ``state.asked`` (sealed batches)."""

    phase: str
    simultaneous: bool
    check: Callable[..., dict]           # (state, seat, action, money) -> the canonical action, or IllegalAction
    apply: Callable[..., None]           # (w, seat, canonical action): changes w (advance, sell, next round)
    default: Callable[..., dict]         # (state, seat) -> what a time-out gives
    legal: Callable[..., list]           # (state, seat) -> every kind of legal action (the default among them)
    label: Callable[..., str]            # (state) -> the step's label for people (round prefix added by rules)
    hint: str                            # the action forms a person types here, for "do X or Y" messages
    time: Callable[..., Any] = field(default=lambda s: None)   # (state) -> Turn.time (None: the table's)


@dataclass(frozen=True)
class Auction:
    key: str                             # the card's type (cards.TYPES)
    symbol: str                          # one letter on the card chip (screen)
    word: str                            # short name ("once around")
    aliases: tuple                       # words a person may type for it (lower case)
    rule: str                            # the rule in one paragraph (help pages)
    prefer: int                          # bots: liking as a card to auction / a double's second card
    start: Callable[..., None]           # (w): w.auctioneer, w.cards_up set; opens the first step (or sells)
    steps: tuple                         # Step records, in the order the type runs them

    @property
    def name(self) -> str:
        return TYPE_NAMES[self.key]


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
    key="open", symbol="O", word="open", aliases=("o", "open"),
    rule="rounds of sealed raise-or-pass: every seat still in (the auctioneer too, not the standing bidder) "
         "hands in a raise or a pass at once; a pass drops the seat out of this auction for good; the highest "
         "raise stands (equal raises: the auctioneer, else the nearest clockwise); it sells when a round has no "
         "raise or nobody is left to ask. \"upto N\" raises for you round by round up to N without asking again.",
    prefer=2, start=_open_start,
    steps=(Step("open", True, _raise_check, _open_apply, _pass, _raise_legal,
                lambda s: "open auction, raise round %d (standing bid %d)" % (s.open_round, s.high),
                "bid N or pass", _open_time),),
)
ONCE_AROUND = Auction(
    key="once_around", symbol="1", word="once around",
    aliases=("1", "once", "oncearound", "once_around", "once-around", "around"),
    rule="from the auctioneer's left, each seat once bids higher or passes; the auctioneer last. The highest "
         "bid wins.",
    prefer=2, start=_once_start,
    steps=(Step("once_around", False, _raise_check, _once_apply, _pass, _raise_legal,
                lambda s: "once around, %s bids or passes (standing bid %d)" % (_who(s.actor), s.high),
                "bid N or pass"),),
)
SEALED = Auction(
    key="sealed", symbol="S", word="sealed", aliases=("s", "sealed", "seal"),
    rule="every seat with money hands in one sealed bid (0 = no bid); the highest wins; ties: the auctioneer, "
         "else the nearest clockwise from it.",
    prefer=1, start=_sealed_start,
    steps=(Step("sealed", True, _sealed_check, _sealed_apply, lambda s, seat: {"do": "bid", "amount": 0},
                lambda s, seat: [{"do": "bid", "amount": x} for x in _R()._amounts(0, s.money[seat])],
                lambda s: "sealed bids", "bid N (0 = no bid)"),),
)
FIXED_PRICE = Auction(
    key="fixed_price", symbol="F", word="fixed price",
    aliases=("f", "fixed", "fixed_price", "fixed-price", "fixedprice", "price"),
    rule="the auctioneer names a price (1 to its money); from its left each seat buys or passes; the first buyer "
         "takes it; if all pass the auctioneer must buy it.",
    prefer=0, start=_fixed_start,
    steps=(Step("price", False, _price_check, _price_apply, _price_default, _price_legal,
                lambda s: "%s names a fixed price" % _who(s.actor), "price N"),
           Step("fixed_price", False, _buy_check, _buy_apply, _pass, _buy_legal,
                lambda s: "%s may buy for %d" % (_who(s.actor), s.price), "buy or pass")),
)
DOUBLE = Auction(
    key="double", symbol="D", word="double", aliases=("d", "double"),
    rule="the auctioneer may add a second card of the same artist (not a double) at once; if not, the offer goes "
         "round from its left and whoever adds becomes the auctioneer (is paid) and play continues on its left. "
         "The auction is the second card's type; the winner takes both. Nobody adds: the auctioneer takes the "
         "double card free.",
    prefer=0, start=_double_start,
    steps=(Step("double", False, _double_check, _double_apply, _pass, _double_legal,
                lambda s: "%s may add a second %s to the double" % (_who(s.actor), ARTISTS[artist_of(s.cards_up[0])]),
                "add N, add CARD or pass"),),
)

AUCTIONS: dict[str, Auction] = {a.key: a for a in (OPEN, ONCE_AROUND, SEALED, FIXED_PRICE, DOUBLE)}
STEPS: dict[str, Step] = {st.phase: st for a in AUCTIONS.values() for st in a.steps}
PHASES = tuple(STEPS)
OWNER: dict[str, Auction] = {st.phase: a for a in AUCTIONS.values() for st in a.steps}


def by_word(word: str) -> str | None:
    """The auction type a person means by ``word`` (a symbol, a name, an alias), or None."""
    w = word.lower()
    for a in AUCTIONS.values():
        if w in a.aliases or w == a.key:
            return a.key
    return None


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
    if not isinstance(order, Mapping) or not isinstance(view, Mapping) or view.get("phase") != "open":
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
        return {"do": "pass"}
    return {"do": "bid", "amount": next_raise(high, upto)}
