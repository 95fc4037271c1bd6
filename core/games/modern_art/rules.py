"""Modern Art (Reiner Knizia): rules engine.

Pure: no I/O, no clock, no ``random``; the only randomness after setup is the
deck's order, which is NOT in this module at all (see below).  RULES.md next to
this file says what the code does, in plain words, with every decision.
(Near 1,000 lines, over the house's ~900: one game's whole rules, state to
views; the auction types already live in auctions.py and the table's deal in
dealt.py, and what is left is one job: the round, the card play and the sale.)

Hidden hands and the deal-layer seam
------------------------------------
The shared state never holds a card identity that is not public.  The deck is
70 *positions* 0..69 of a shuffled (masked) deck; dealing assigns positions in
order (``State.dealt`` = how many have been dealt); a hand is a tuple of
positions; ``State.revealed[pos]`` is the card id at ``pos`` once that card has
been played (-1 before).  Who holds which position is public; which card is at
a position is known only to its holder until played.

A card play names a position of the actor's hand and the card it claims is
there::

    {"do": "play", "pos": p, "card": c, "double": None | {"pos": p2, "card": c2}}

The pure rules accept a claim consistent with public knowledge: ``p`` is in
the actor's hand, ``c`` has not been revealed (so no card id is ever claimed
twice: per-artist counts can never be exceeded), and the claim fits the move
(a second card of a double by the same artist and not a double).  Whether
position ``p`` really holds card ``c`` is for the deal layer to prove.  At the
table (``dealt.py``) a card play is bound before it is shown: the seat signs
the *choice*, positions only (``check_choice`` gives that form: ``{"do":
"play", "pos": p, "double": None | {"pos": p2}}``, ``{"do": "add", "pos":
p}``), and its peer then opens the cards in an automatic step, where the full
card-id action is checked here and applied; a choice whose cards are never
shown is discarded face down (``discard_unchecked``).  For offline play, tests
and bots, ``deal_open(seed)`` gives an open deal (position -> card, a seeded
permutation) and ``check_open`` adds the check a deal layer would make.
``view(state, seat, known)`` shows a seat its own cards when given what it
knows (``known``: position -> card).

The state is immutable by convention: ``apply`` copies it (``_clone``) and
replaces the fields it changes, always with new tuples.

Auction types are data: each is one record in ``auctions.py`` (how it starts;
per phase the kind of decision it asks, its check, apply, time-out default,
legal actions, label and words).  This module runs the card play, the round
and the sale, and dispatches every auction phase through ``auctions.STEPS``,
branching on a step's kind, never on a phase's name.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from ...engine import ConfigError, GameInfo, IllegalAction, OVER, Turn
from ...rng import Rng
from ..common import asked, short as _short
from .cards import ARTISTS, N_CARDS, TYPE_NAMES, artist_of, card_name, card_view, type_of

__all__ = [
    "NAME", "INFO", "State", "DEAL", "START_MONEY", "TILES", "ROUNDS",
    "configure", "setup", "turn", "check", "check_open", "apply", "apply_unchecked", "chance",
    "default_action", "view", "private_view", "result", "describe", "legal_actions", "problems",
    "state_from_view", "determinize", "deal_open", "known_for", "ranking_of", "values_of",
    "next_with_cards", "hand_of", "timeout_only", "check_choice", "discard_unchecked", "set_aside", "pass_turn",
]

NAME = "modern-art"
START_MONEY = 100
ROUNDS = 4
TILES = (30, 20, 10)
DEAL = {3: (10, 6, 6, 0), 4: (9, 4, 4, 0), 5: (8, 3, 3, 0)}
OPTIONS = {"edition": "standard", "open_round_seconds": 20}
OPTION_HELP = {
    "edition": "rules edition: standard (the only one)",
    "open_round_seconds": "seconds each seat has to raise or pass in a round of an open auction, "
                          "5 to 600 (default 20; the table's time-out wins when shorter); silence = pass",
}
OPEN_ROUND_SECONDS = (5, 600)
EDITIONS = ("standard",)

INFO = GameInfo(
    name=NAME, title="Modern Art", min_players=3, max_players=5, default_players=4,
    editions=EDITIONS, information="imperfect", simultaneous=True, sealed=True, chance=False,
    options=dict(OPTIONS), option_help=dict(OPTION_HELP), secrets=True, listing=20,
)

from . import auctions as _auctions  # noqa: E402  (the auction records; they call back into this module)

PHASES = ("play",) + _auctions.PHASES + ("over",)     # the standard game's (a registered type adds its own)


# --------------------------------------------------------------------------
# state


class State:
    """The whole public state of a game.  Immutable by convention (every field a tuple or scalar)."""

    __slots__ = (
        "players", "config", "round", "phase", "actor", "dealt", "hands", "revealed", "money",
        "board", "played", "bought", "auctioneer", "opener", "cards_up", "atype", "high",
        "high_bidder", "order", "idx", "asked", "bids", "price", "open_round", "out", "skips",
        "sales", "rounds", "last",
    )

    players: int                         # 3..5
    config: Mapping[str, Any]            # from configure
    round: int                           # 1..4 (stays 4 when over)
    phase: str                           # one of PHASES
    actor: int                           # seat to decide in a sequential phase (-1 in simultaneous/over)
    dealt: int                           # deck positions dealt so far (positions 0..dealt-1)
    hands: tuple                         # per seat: sorted tuple of deck positions
    revealed: tuple                      # 70 entries: card id at that position, -1 = not public
    money: tuple                         # per seat (each view shows a seat only its own until the game ends)
    board: tuple                         # 4 rounds x 5 artists: value tiles (0/10/20/30)
    played: tuple                        # 5 artists: cards played this round (round-enders included)
    bought: tuple                        # per seat: card ids bought this round
    auctioneer: int                      # the (final) auctioneer of the current auction, -1 none
    opener: int                          # seat that played the first card of the current auction
    cards_up: tuple                      # card ids on offer (1, or 2 for a double)
    atype: str                           # auction type being run ("" outside an auction)
    high: int                            # standing bid (0 = none) / fixed price in "fixed_price"
    high_bidder: int                     # -1 = none
    order: tuple                         # seats asked in turn (double offer, once around, fixed price)
    idx: int                             # index in order of the seat asked now
    asked: tuple                         # simultaneous phases: seats that must answer this round
    bids: tuple                          # per seat: None (not yet) or the amount (0 = pass), transient
    price: int                           # fixed price named
    open_round: int                      # 1, 2, ... in an open auction
    out: tuple                           # open auction: seats that passed (out of this auction for good)
    skips: int                           # card turns skipped in a row (time-outs)
    sales: tuple                         # this round: (cards, auctioneer, winner, price, type)
    rounds: tuple                        # summaries of finished rounds (tuples, see _end_round)
    last: str                            # what happened last, for people

    def fields(self) -> tuple:
        return tuple(getattr(self, k) for k in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is State and self.fields() == other.fields()

    def __hash__(self) -> int:
        return hash(self.fields()[2:])

    def __repr__(self) -> str:
        return "State(round=%d, phase=%s, actor=%d, money=%r)" % (self.round, self.phase, self.actor, self.money)


def _clone(s: State) -> State:
    w = State.__new__(State)
    for k in State.__slots__:
        object.__setattr__(w, k, getattr(s, k))
    return w


# --------------------------------------------------------------------------
# small helpers (bots, screen, tests)


def hand_of(state: State, seat: int) -> tuple:
    return state.hands[seat]


def next_with_cards(state: State, start: int, hands: Sequence[Sequence[int]] | None = None) -> int:
    """First seat clockwise from ``start`` (included) holding a card, -1 if none does."""
    n = state.players
    hands = state.hands if hands is None else hands
    for k in range(n):
        s = (start + k) % n
        if hands[s]:
            return s
    return -1


def ranking_of(played: Sequence[int]) -> list[int]:
    """Artists by cards played this round, most first; ties by board order (leftmost first)."""
    return sorted(range(5), key=lambda a: (-played[a], a))


def tiles_of(played: Sequence[int]) -> tuple:
    """The value tile each artist gets this round: 30/20/10 to the top three with at least one card."""
    out = [0] * 5
    for place, a in enumerate(ranking_of(played)[:3]):
        if played[a] > 0:
            out[a] = TILES[place]
    return tuple(out)


def values_of(board: Sequence[Sequence[int]], rnd: int, tiles: Sequence[int]) -> tuple:
    """What a painting of each artist sells for at the end of round ``rnd`` (1-based) with these tiles:
    the sum of all its tiles so far if it got a tile this round, else 0."""
    out = []
    for a in range(5):
        if tiles[a]:
            out.append(sum(board[r][a] for r in range(rnd - 1)) + tiles[a])
        else:
            out.append(0)
    return tuple(out)


def _tie_winner(seats: Iterable[int], auctioneer: int, n: int) -> int:
    """Among tied seats: the auctioneer, else the nearest clockwise from the auctioneer."""
    seats = list(seats)
    if auctioneer in seats:
        return auctioneer
    return min(seats, key=lambda s: (s - auctioneer) % n)


def _who(seat: int) -> str:
    return "seat %d" % seat


# --------------------------------------------------------------------------
# setup and rounds


def configure(options: Mapping[str, Any], players: int) -> dict:
    if type(players) is not int or not INFO.min_players <= players <= INFO.max_players:
        raise ConfigError("Modern Art is for 3 to 5 players, not %s" % _short(players))
    if not isinstance(options, Mapping):
        raise ConfigError("options must be a map of option names to values")
    cfg = dict(OPTIONS)
    for k, v in options.items():
        if k not in OPTIONS:
            raise ConfigError("unknown option %s (known: %s)" % (_short(k), ", ".join(sorted(OPTIONS))))
        if k == "edition" and v not in EDITIONS:
            raise ConfigError("edition must be one of %s, not %s" % (", ".join(EDITIONS), _short(v)))
        if k == "open_round_seconds" and (type(v) is not int or not OPEN_ROUND_SECONDS[0] <= v <= OPEN_ROUND_SECONDS[1]):
            raise ConfigError("open_round_seconds must be a whole number from %d to %d, not %s" % (*OPEN_ROUND_SECONDS, _short(v)))
        cfg[k] = v
    return cfg


def setup(config: Mapping[str, Any], players: int, seed: bytes) -> State:
    """Round 1 dealt, 100 each; the first auctioneer is drawn from the shared seed."""
    cfg = configure(config, players)
    n = players
    s = State.__new__(State)
    init = dict(
        players=n, config=cfg, round=1, phase="play", actor=-1, dealt=0, hands=((),) * n,
        revealed=(-1,) * N_CARDS, money=(START_MONEY,) * n, board=((0,) * 5,) * ROUNDS,
        played=(0,) * 5, bought=((),) * n, auctioneer=-1, opener=-1, cards_up=(), atype="",
        high=0, high_bidder=-1, order=(), idx=0, asked=(), bids=(None,) * n, price=0,
        open_round=0, out=(), skips=0, sales=(), rounds=(), last="",
    )
    for k, v in init.items():
        object.__setattr__(s, k, v)
    first = Rng(seed, NAME + "/first").below(n)
    _start_round(s, first)
    return s


def _start_round(w: State, start: int) -> None:
    """Deal this round's cards (positions in deck order, seat 0's block first) and find the first auctioneer."""
    n = w.players
    k = DEAL[n][w.round - 1]
    hands = list(w.hands)
    pos = w.dealt
    for s in range(n):
        hands[s] = tuple(sorted(hands[s] + tuple(range(pos, pos + k))))
        pos += k
    w.hands = tuple(hands)
    w.dealt = pos
    w.played = (0,) * 5
    w.bought = ((),) * n
    w.sales = ()
    w.skips = 0
    _clear_auction(w)
    a = next_with_cards(w, start % n)
    if a < 0:
        _end_round(w, -1, "nobody has a card to play", start % n)
        return
    w.phase = "play"
    w.actor = a


def _clear_auction(w: State) -> None:
    w.auctioneer = -1
    w.opener = -1
    w.cards_up = ()
    w.atype = ""
    w.high = 0
    w.high_bidder = -1
    w.order = ()
    w.idx = 0
    w.asked = ()
    w.bids = (None,) * w.players
    w.price = 0
    w.open_round = 0
    w.out = ()


def _end_round(w: State, ender: int, reason: str, next_start: int, unsold: tuple = ()) -> None:
    """Rank, place tiles, sell every painting bought this round to the bank, then the next round."""
    n = w.players
    tiles = tiles_of(w.played)
    board = list(w.board)
    board[w.round - 1] = tiles
    w.board = tuple(board)
    values = values_of(w.board, w.round, tiles)
    pay = tuple(sum(values[artist_of(c)] for c in w.bought[s]) for s in range(n))
    w.money = tuple(m + p for m, p in zip(w.money, pay))
    w.rounds = w.rounds + ((w.round, w.played, tiles, values, pay, ender, reason, unsold, w.bought, w.sales),)
    w.last = "round %d ends: %s" % (w.round, reason)
    _clear_auction(w)
    if w.round >= ROUNDS:
        w.phase = "over"
        w.actor = -1
        w.bought = ((),) * n
        return
    w.round += 1
    _start_round(w, next_start)


def _next_turn(w: State, after: int) -> None:
    """The next card turn: the first seat left of ``after`` holding a card; none -> the round ends."""
    n = w.players
    _clear_auction(w)
    a = next_with_cards(w, (after + 1) % n)
    if a < 0:
        _end_round(w, -1, "nobody has a card left to play", (after + 1) % n)
        return
    w.phase = "play"
    w.actor = a


# --------------------------------------------------------------------------
# auctions


def _start_auction(w: State, auctioneer: int, cards: tuple, atype: str) -> None:
    """Open the auction of type ``atype`` (its record in auctions.AUCTIONS starts it)."""
    w.auctioneer = auctioneer
    w.cards_up = cards
    w.atype = atype
    w.high = 0
    w.high_bidder = -1
    w.bids = (None,) * w.players
    _auctions.AUCTIONS[atype].start(w)


def _sold(w: State, winner: int, price: int, quiet: bool = False) -> None:
    """The cards on offer go to ``winner`` (-1: no bid, the auctioneer takes them free); payment to the
    auctioneer, or to the bank when the auctioneer wins; then the next turn left of the auctioneer."""
    a = w.auctioneer
    if winner < 0:
        winner, price = a, 0
    money = list(w.money)
    money[winner] -= price
    if winner != a:
        money[a] += price
    w.money = tuple(money)
    bought = list(w.bought)
    bought[winner] = bought[winner] + w.cards_up
    w.bought = tuple(bought)
    w.sales = w.sales + ((w.cards_up, a, winner, price, w.atype or "double"),)
    if not quiet:
        names = " and ".join(card_name(c) for c in w.cards_up)
        if price == 0:
            w.last = "%s takes %s free" % (_who(winner), names)
        elif winner == a:
            w.last = "%s buys %s for %d, paid to the bank" % (_who(winner), names, price)
        else:
            w.last = "%s buys %s for %d, paid to %s" % (_who(winner), names, price, _who(a))
    _next_turn(w, a)


def _play_card(w: State, seat: int, pos: int, card: int) -> None:
    hands = list(w.hands)
    hands[seat] = tuple(p for p in hands[seat] if p != pos)
    w.hands = tuple(hands)
    rev = list(w.revealed)
    rev[pos] = card
    w.revealed = tuple(rev)
    played = list(w.played)
    played[artist_of(card)] += 1
    w.played = tuple(played)


# --------------------------------------------------------------------------
# turn


def turn(state: State) -> Turn:
    ph = state.phase
    if ph == "over":
        return OVER
    label = _label(state)
    step = _auctions.STEPS.get(ph)
    if step is not None and step.simultaneous:
        waiting = tuple(s for s in state.asked if state.bids[s] is None)
        # e.g. an open auction's raise rounds go at the table's pace: a short time per round
        return Turn("simultaneous", waiting or state.asked, sealed=True, label=label, time=step.time(state))
    return Turn("sequential", (state.actor,), label=label)


def _label(state: State) -> str:
    r = "round %d" % state.round
    ph = state.phase
    if ph == "play":
        return "%s: %s auctions a painting" % (r, _who(state.actor))
    step = _auctions.STEPS.get(ph)
    if step is not None:
        return "%s: %s" % (r, step.label(state))
    return "game over"


def chance(state: State, entropy: bytes) -> State:
    raise IllegalAction("Modern Art never asks for shared randomness after setup")


# --------------------------------------------------------------------------
# checking actions


def _keys(action: dict, allowed: tuple, what: str) -> None:
    extra = sorted(str(k) for k in action if k not in allowed)
    if extra:
        raise IllegalAction("%s takes only %s; unknown: %s" % (what, ", ".join(allowed), ", ".join(extra)))


def _int(raw: Any, what: str, lo: int, hi: int) -> int:
    if type(raw) is not int:
        raise IllegalAction("%s must be a whole number, not %s" % (what, _short(raw)))
    if not lo <= raw <= hi:
        raise IllegalAction("%s must be from %d to %d, not %d" % (what, lo, hi, raw))
    return raw


def _claim(state: State, seat: int, raw_pos: Any, raw_card: Any, what: str) -> tuple[int, int]:
    pos = _int(raw_pos, what + " position", 0, N_CARDS - 1)
    card = _int(raw_card, what + " card", 0, N_CARDS - 1)
    if pos not in state.hands[seat]:
        raise IllegalAction("deck position %d is not in your hand (yours: %s)" % (
            pos, ", ".join(map(str, state.hands[seat])) or "none"))
    if card in state.revealed:
        raise IllegalAction("%s has already been played, so it cannot be in your hand" % card_name(card))
    return pos, card


def _amount(raw: Any) -> int:
    if type(raw) is not int:
        raise IllegalAction("the amount must be a whole number, not %s" % _short(raw))
    return raw


def _asked(state: State, seat: Any, action: Any) -> Any:
    """The checks every action starts with (the game goes on, the seat exists and is asked now, the
    action is a map); returns the auction step record of the phase (None in the card play)."""
    asked(state, seat, action, "an action is a map like {\"do\": \"pass\"}, not %s")
    ph = state.phase
    step = _auctions.STEPS.get(ph)
    if step is not None and step.simultaneous:
        if seat not in state.asked:
            raise IllegalAction("%s is not asked in this %s round" % (
                _who(seat), "raise" if _auctions.base_kind(step.kind) == _auctions.RAISE_OR_OUT else "bidding"))
        if state.bids[seat] is not None:
            raise IllegalAction("%s has already answered this round" % _who(seat))
    elif seat != state.actor:
        raise IllegalAction("it is %s's turn, not %s's: %s" % (_who(state.actor), _who(seat), _label(state)))
    return step


def check(state: State, seat: Any, action: Any) -> dict:
    """The action made canonical, or IllegalAction with a sentence saying why not."""
    step = _asked(state, seat, action)
    do = action.get("do")
    if step is not None:
        return step.check(state, seat, action, state.money[seat])

    # the card play
    if do == "skip":
        # only a time-out gives a skip (default_action); a seat on turn holds cards and must auction one
        raise IllegalAction("the seat on turn must auction a painting: send play (a seat loses its turn only "
                            "when it times out)")
    if do != "play":
        raise IllegalAction("it is your turn to auction a painting: send play")
    _keys(action, ("do", "pos", "card", "double"), "play")
    pos, card = _claim(state, seat, action.get("pos"), action.get("card"), "the played")
    out: dict = {"do": "play", "pos": pos, "card": card, "double": None}
    second = action.get("double")
    if second is not None:
        if type_of(card) != "double":
            raise IllegalAction("only a double auction card can take a second card; %s is a %s card"
                                % (card_name(card), TYPE_NAMES[type_of(card)]))
        if state.played[artist_of(card)] + 1 >= 5:
            raise IllegalAction("%s is the 5th %s card: the round ends at once, no second card can be added"
                                % (card_name(card), ARTISTS[artist_of(card)]))
        if not isinstance(second, dict):
            raise IllegalAction("double must be a map {\"pos\": position, \"card\": card id} or null")
        _keys(second, ("pos", "card"), "the second card")
        p2, c2 = _claim(state, seat, second.get("pos"), second.get("card"), "the second")
        if p2 == pos:
            raise IllegalAction("the second card must be another position of your hand, not %d again" % pos)
        if c2 == card:
            raise IllegalAction("one card cannot be played twice")
        _second_ok(card, c2)
        out["double"] = {"pos": p2, "card": c2}
    return out


def check_choice(state: State, seat: Any, action: Any) -> dict:
    """A card play or an add as the deal layer binds it: positions only, no card id.

    ``{"do": "play", "pos": p, "double": None | {"pos": p2}}`` or ``{"do": "add", "pos": p}``.
    From the card-id form (what a screen or a bot chooses: it knows its hand) the claim is checked in
    full by ``check`` and the cards are dropped; the positions-only form (what a peer signs and every
    other peer receives) is checked for public facts only: the seat is asked, the positions are in
    its hand and distinct.  Whether the cards make a legal play (a double's second card by the same
    artist and not a double, no second card after the artist's 5th) is known only when they are
    shown: the deal layer checks the full action then (``check``)."""
    adding = _auctions.kind_of(state.phase) == _auctions.ADD
    if isinstance(action, dict) and "card" not in action and action.get("do") in ("play", "add") \
            and (state.phase == "play" or adding):
        _asked(state, seat, action)
        do = action["do"]
        if state.phase == "play" and do == "play":
            _keys(action, ("do", "pos", "double"), "play")
            pos = _own(state, seat, action.get("pos"), "the played")
            second = action.get("double")
            if second is None:
                return {"do": "play", "pos": pos, "double": None}
            if not isinstance(second, dict):
                raise IllegalAction("double must be a map {\"pos\": position} or null")
            _keys(second, ("pos",), "the second card")
            p2 = _own(state, seat, second.get("pos"), "the second")
            if p2 == pos:
                raise IllegalAction("the second card must be another position of your hand, not %d again" % pos)
            return {"do": "play", "pos": pos, "double": {"pos": p2}}
        if adding and do == "add":
            _keys(action, ("do", "pos"), "add")
            return {"do": "add", "pos": _own(state, seat, action.get("pos"), "the second")}
    a = check(state, seat, action)
    if a["do"] == "play":
        return {"do": "play", "pos": a["pos"], "double": None if a["double"] is None else {"pos": a["double"]["pos"]}}
    if a["do"] == "add":
        return {"do": "add", "pos": a["pos"]}
    return a


def _own(state: State, seat: int, raw_pos: Any, what: str) -> int:
    pos = _int(raw_pos, what + " position", 0, N_CARDS - 1)
    if pos not in state.hands[seat]:
        raise IllegalAction("deck position %d is not in your hand (yours: %s)" % (
            pos, ", ".join(map(str, state.hands[seat])) or "none"))
    return pos


def _second_ok(first: int, second: int) -> None:
    if artist_of(second) != artist_of(first):
        raise IllegalAction("the second card of a double must be by %s, not %s"
                            % (ARTISTS[artist_of(first)], ARTISTS[artist_of(second)]))
    if type_of(second) == "double":
        raise IllegalAction("the second card of a double cannot be another double")


def problems(state: State, seat: int, action: Any) -> list[str]:
    try:
        check(state, seat, action)
    except IllegalAction as exc:
        return [str(exc) or "illegal move"]
    return []


def check_open(state: State, seat: int, action: Any, deal: Sequence[int]) -> dict:
    """``check`` plus what a deal layer proves: each claimed card really is at its position."""
    a = check(state, seat, action)
    claims = []
    if a["do"] in ("play", "add"):
        claims.append((a["pos"], a["card"]))
        if a.get("double"):
            claims.append((a["double"]["pos"], a["double"]["card"]))
    for pos, card in claims:
        if deal[pos] != card:
            raise IllegalAction("deck position %d does not hold %s" % (pos, card_name(card)))
    return a


# --------------------------------------------------------------------------
# applying actions


def apply(state: State, seat: int, action: Any) -> State:
    return apply_unchecked(state, seat, check(state, seat, action))


def apply_unchecked(state: State, seat: int, a: Mapping) -> State:
    """Apply an action already returned by ``check`` (bots' rollouts call this directly), or a time-out's
    ``default_action`` (the table applies those without ``check``: a skip is never a chosen move)."""
    w = _clone(state)
    ph = w.phase
    n = w.players
    step = _auctions.STEPS.get(ph)
    if step is not None:
        step.apply(w, seat, a)
        return w
    if a["do"] == "skip":
        w.skips += 1
        w.last = "%s loses the turn (timed out)" % _who(seat)
        holders = sum(1 for h in w.hands if h)
        if w.skips >= holders:
            _end_round(w, -1, "every seat with cards lost its turn in a row", (seat + 1) % n)
        else:
            _next_turn(w, seat)
        return w
    w.skips = 0
    card = a["card"]
    _play_card(w, seat, a["pos"], card)
    artist = artist_of(card)
    w.opener = seat
    w.auctioneer = seat
    w.cards_up = (card,)
    w.last = "%s plays %s" % (_who(seat), card_name(card))
    if w.played[artist] >= 5:
        _end_round(w, seat, "%s played the 5th %s card" % (_who(seat), ARTISTS[artist]),
                   (seat + 1) % n, (card,))
        return w
    if type_of(card) != "double":
        _start_auction(w, seat, (card,), type_of(card))
        return w
    second = a.get("double")
    if second:
        _add_second(w, seat, second["pos"], second["card"])
        return w
    _auctions.AUCTIONS[type_of(card)].start(w)          # the double offer
    return w


def discard_unchecked(state: State, seat: int, positions: Sequence[int]) -> State:
    """The deal layer's cut open: the positions ``seat`` chose (a card play, a double with its second
    card, or an add) leave its hand face down, never revealed, counted for no artist; the seat loses
    what it chose to do: in the card play its turn (as a time-out's ``skip``: ``skips`` grows, and a
    circle of lost turns by every seat holding cards ends the round), in the double offer its chance
    to add (as a pass)."""
    w = _clone(state)
    n = w.players
    hands = list(w.hands)
    hands[seat] = tuple(p for p in hands[seat] if p not in positions)
    w.hands = tuple(hands)
    gone = "%s loses the chosen card%s, discarded face down (never shown)" % (_who(seat), "" if len(positions) == 1 else "s")
    step = _auctions.step_of(w.phase)
    if step is not None and _auctions.base_kind(step.kind) == _auctions.ADD:
        step.apply(w, seat, {"do": "pass"})
        if not w.last.startswith("nobody adds"):
            w.last = gone + ": nothing added to the double"
        return w
    w.skips += 1
    w.last = gone + ": the turn to auction is lost"
    holders = sum(1 for h in w.hands if h)
    if holders and w.skips >= holders:
        _end_round(w, -1, "every seat with cards lost its turn in a row", (seat + 1) % n)
    else:
        _next_turn(w, seat)      # (no seat holds a card: the round ends, "nobody has a card left to play")
    return w


def set_aside(state: State, seats: Sequence[int], keep: Sequence[int] = ()) -> State:
    """The hands of ``seats`` (seats that left the table) set aside face down, out of play for good: they
    hold no card from now on (but the positions in ``keep``, bound in an open that is still to come)."""
    if not any(p not in keep for s in seats for p in state.hands[s]):
        return state
    w = _clone(state)
    hands = list(w.hands)
    for s in seats:
        hands[s] = tuple(p for p in hands[s] if p in keep)
    w.hands = tuple(hands)
    return w


def pass_turn(state: State, seat: int) -> State:
    """The card turn of a seat that left the table passes to the next seat holding a card (no lost turn is
    counted: it is not a time-out); none -> the round ends."""
    w = _clone(state)
    w.last = "%s left the table: the turn passes" % _who(seat)
    _next_turn(w, seat)
    return w


def _add_second(w: State, seat: int, pos: int, card: int) -> State:
    """A second card joins the double: ``seat`` becomes the auctioneer; the 5th card ends the round."""
    n = w.players
    _play_card(w, seat, pos, card)
    first = w.cards_up[0]
    w.cards_up = (first, card)
    w.auctioneer = seat
    artist = artist_of(card)
    w.last = "%s adds %s to the double" % (_who(seat), card_name(card))
    if w.played[artist] >= 5:
        _end_round(w, seat, "%s played the 5th %s card as the second card of a double" % (_who(seat), ARTISTS[artist]),
                   (seat + 1) % n, (first, card))
        return w
    _start_auction(w, seat, (first, card), type_of(card))
    return w


# --------------------------------------------------------------------------
# time-outs, legal actions


def default_action(state: State, seat: int) -> dict:
    """What the rules apply for a timed-out seat: lose the card turn (nobody else can reveal a hidden
    card; this is the only way to a skip), pass, bid 0, or name the lowest legal fixed price."""
    step = _auctions.STEPS.get(state.phase)
    if step is not None:
        return step.default(state, seat)
    return {"do": "skip"}


def timeout_only(action: Any) -> bool:
    """True for the action only a time-out gives (``check`` refuses it as a seat's own move)."""
    return action == {"do": "skip"}


def _amounts(lo: int, hi: int) -> list[int]:
    if lo > hi:
        return []
    out = {lo, hi}
    for step in (1, 2, 5, 10, 20, 40):
        if lo + step <= hi:
            out.add(lo + step)
    out.add((lo + hi) // 2)
    return sorted(out)


def _unrevealed_samples(state: State, artist: int | None = None, no_double: bool = False) -> list[int]:
    """One unrevealed card id per (artist, type): claims consistent with public knowledge."""
    seen = set(state.revealed)
    out, kinds = [], set()
    for c in range(N_CARDS):
        a, t = artist_of(c), type_of(c)
        if c in seen or (artist is not None and a != artist) or (no_double and t == "double"):
            continue
        if (a, t) not in kinds:
            kinds.add((a, t))
            out.append(c)
    return out


def legal_actions(state: State, seat: int, known: Mapping[int, int] | None = None) -> list[dict]:
    """Every kind of legal action for ``seat`` now.  Card plays: with ``known`` (position -> card of the
    seat's hand) exactly the seat's own cards; without it, a sample of claims consistent with public
    knowledge (one per artist and type).  In an auction step it holds the default action; a card turn's
    default (skip) is a time-out's only, never listed."""
    ph = state.phase
    if ph == "over":
        return []
    step = _auctions.STEPS.get(ph)
    if step is not None and step.simultaneous:
        if seat not in state.asked or state.bids[seat] is not None:
            return []
    elif seat != state.actor:
        return []
    hand = state.hands[seat]
    if ph == "play":
        out: list[dict] = []
        if known is not None:
            mine = [(p, known[p]) for p in hand if p in known]
            for p, c in mine:
                out.append({"do": "play", "pos": p, "card": c, "double": None})
                if type_of(c) == "double" and state.played[artist_of(c)] < 4:
                    for p2, c2 in mine:
                        if p2 != p and artist_of(c2) == artist_of(c) and type_of(c2) != "double":
                            out.append({"do": "play", "pos": p, "card": c, "double": {"pos": p2, "card": c2}})
        else:
            p = hand[0]
            for c in _unrevealed_samples(state):
                out.append({"do": "play", "pos": p, "card": c, "double": None})
                if type_of(c) == "double" and len(hand) > 1 and state.played[artist_of(c)] < 4:
                    for c2 in _unrevealed_samples(state, artist_of(c), no_double=True)[:1]:
                        out.append({"do": "play", "pos": p, "card": c, "double": {"pos": hand[1], "card": c2}})
        return out
    out = step.legal(state, seat)
    if _auctions.base_kind(step.kind) == _auctions.ADD:
        first = state.cards_up[0]
        if known is not None:
            for p in hand:
                c = known.get(p)
                if c is not None and artist_of(c) == artist_of(first) and type_of(c) != "double" and c not in state.revealed:
                    out.append({"do": "add", "pos": p, "card": c})
        else:
            for c in _unrevealed_samples(state, artist_of(first), no_double=True):
                out.append({"do": "add", "pos": hand[0], "card": c})
    return out


# --------------------------------------------------------------------------
# the open deal (offline play, tests, bots)


def deal_open(seed: bytes) -> tuple[int, ...]:
    """An open deal: position -> card id, a permutation of 0..69 from ``Rng(seed, "modern-art/open-deal")``."""
    deck = list(range(N_CARDS))
    Rng(seed, NAME + "/open-deal").shuffle(deck)
    return tuple(deck)


def known_for(state: State, seat: int, deal: Sequence[int]) -> dict[int, int]:
    """What ``seat`` knows under an open deal: its own hand's positions -> cards."""
    return {p: deal[p] for p in state.hands[seat]}


# --------------------------------------------------------------------------
# views


def _round_view(r: tuple) -> dict:
    rnd, played, tiles, values, pay, ender, reason, unsold, bought, sales = r
    return {
        "round": rnd, "played": list(played), "tiles": list(tiles), "values": list(values),
        "payouts": list(pay), "ender": None if ender < 0 else ender, "reason": reason,
        "unsold": list(unsold), "bought": [list(b) for b in bought], "sales": [_sale_view(x) for x in sales],
    }


def _sale_view(x: tuple) -> dict:
    cards, a, winner, price, atype = x
    return {"cards": list(cards), "auctioneer": a, "winner": winner, "price": price, "type": atype}


def view(state: State, seat: int | None, known: Mapping[int, int] | None = None) -> dict:
    """What ``seat`` sees: the whole public state, plus its own cards if ``known`` (position -> card)
    is given.  Without ``known`` every hand is shown only as positions (counts)."""
    n = state.players
    me = seat if type(seat) is int and 0 <= seat < n else None
    t = turn(state)
    auction = None
    if state.phase not in ("play", "over"):
        auction = {
            "type": state.atype or "double",
            "cards": list(state.cards_up),
            "opener": state.opener,
            "auctioneer": state.auctioneer,
            "high": state.high,
            "high_bidder": None if state.high_bidder < 0 else state.high_bidder,
            "price": state.price if "price" in _auctions.shows_of(state.phase) else None,
            "order": list(state.order),
            "idx": state.idx,
            "asked": list(state.asked),
            "answered": [s for s in state.asked if state.bids[s] is not None],
            "open_round": state.open_round,
            "out": list(state.out),
        }
    v: dict[str, Any] = {
        "game": NAME,
        "options": dict(state.config),
        "players": n,
        "me": me,
        "round": state.round,
        "phase": state.phase,
        "label": t.label if t.kind != "over" else "game over",
        "waiting": list(t.seats) if t.kind in ("sequential", "simultaneous") else [],
        "actor": None if state.actor < 0 else state.actor,
        "dealt": state.dealt,
        "deck": N_CARDS - state.dealt,
        "hands": [list(h) for h in state.hands],
        "hand_sizes": [len(h) for h in state.hands],
        "revealed": [[p, c] for p, c in enumerate(state.revealed) if c >= 0],
        "money": [m if state.phase == "over" or s == me else None for s, m in enumerate(state.money)],
        "board": [list(r) for r in state.board],
        "played": list(state.played),
        "bought": [list(b) for b in state.bought],
        "auction": auction,
        "skips": state.skips,
        "sales": [_sale_view(x) for x in state.sales],
        "rounds": [_round_view(r) for r in state.rounds],
        "last": state.last,
    }
    if me is not None and known is not None:
        cards = []
        for p in state.hands[me]:
            c = known.get(p)
            if type(c) is int and 0 <= c < N_CARDS:
                cards.append(dict(card_view(c), pos=p))
        v["cards"] = cards
    res = result(state)
    if res is not None:
        v["result"] = res
    return v


def private_view(state: State, seat: int, known: Mapping[int, int]) -> dict:
    return view(state, seat, known)


def state_from_view(v: Mapping[str, Any], guess: int | None = None) -> State:
    """The State a view describes.  Exact but for the money of other seats, which a view hides until the
    game ends: each hidden amount is ``guess`` (default: the viewer's own money, else the start money)."""
    n = v["players"]
    me = v.get("me")
    if guess is None:
        guess = v["money"][me] if type(me) is int and v["money"][me] is not None else START_MONEY
    money = tuple(guess if m is None else m for m in v["money"])
    s = State.__new__(State)
    rev = [-1] * N_CARDS
    for p, c in v["revealed"]:
        rev[p] = c
    a = v["auction"]
    bids = [None] * n
    if a is not None:
        for x in a["answered"]:
            bids[x] = 0  # amounts of a half-answered round are never in a view (the table applies a batch at once)
    rounds = tuple(
        (r["round"], tuple(r["played"]), tuple(r["tiles"]), tuple(r["values"]), tuple(r["payouts"]),
         -1 if r["ender"] is None else r["ender"], r["reason"], tuple(r["unsold"]),
         tuple(tuple(b) for b in r["bought"]),
         tuple((tuple(x["cards"]), x["auctioneer"], x["winner"], x["price"], x["type"]) for x in r["sales"]))
        for r in v["rounds"])
    init = dict(
        players=n, config=dict(v["options"]), round=v["round"], phase=v["phase"],
        actor=-1 if v["actor"] is None else v["actor"], dealt=v["dealt"],
        hands=tuple(tuple(h) for h in v["hands"]), revealed=tuple(rev), money=money,
        board=tuple(tuple(r) for r in v["board"]), played=tuple(v["played"]),
        bought=tuple(tuple(b) for b in v["bought"]),
        auctioneer=-1 if a is None else a["auctioneer"], opener=-1 if a is None else a["opener"],
        cards_up=() if a is None else tuple(a["cards"]),
        atype="" if a is None or a["type"] == "double" else a["type"],
        high=0 if a is None else a["high"],
        high_bidder=-1 if a is None or a["high_bidder"] is None else a["high_bidder"],
        order=() if a is None else tuple(a["order"]), idx=0 if a is None else a["idx"],
        asked=() if a is None else tuple(a["asked"]), bids=tuple(bids),
        price=0 if a is None or a["price"] is None else a["price"],
        open_round=0 if a is None else a["open_round"], out=() if a is None else tuple(a.get("out", ())),
        skips=v["skips"],
        sales=tuple((tuple(x["cards"]), x["auctioneer"], x["winner"], x["price"], x["type"]) for x in v["sales"]),
        rounds=rounds, last=v["last"],
    )
    for k, val in init.items():
        object.__setattr__(s, k, val)
    return s


def determinize(state: State, seat: int | None, rng: Rng) -> State:
    """The state with what ``seat`` cannot see redrawn: the other seats' money (behind their screens until
    the game ends).  The state holds no hidden card identity at all, so nothing else is hidden (bots
    sample the unseen cards themselves: bots.sample_deal).  The conformance suite checks that ``seat``'s
    view does not change, so no view leaks another seat's money."""
    if state.phase == "over":
        return state
    w = _clone(state)
    w.money = tuple(m if s == seat else rng.below(1000) for s, m in enumerate(state.money))
    return w


# --------------------------------------------------------------------------
# result, describe


def result(state: State) -> dict | None:
    if state.phase != "over":
        return None
    n = state.players
    money = list(state.money)
    ranking = sorted(range(n), key=lambda s: (-money[s], s))
    places = [1 + sum(1 for o in range(n) if money[o] > money[s]) for s in range(n)]
    return {
        "money": money,
        "ranking": ranking,
        "places": places,
        "winners": [s for s in ranking if places[s] == 1],
        "rounds": len(state.rounds),
    }


def describe(state: State, seat: int, action: Any) -> str:
    who = "seat %s" % _short(seat)
    if not isinstance(action, dict):
        return "%s: unreadable action %s" % (who, _short(action))
    try:
        return who + " " + _describe(state, action)
    except Exception:
        return "%s: unreadable action %s" % (who, _short(action))


def _cname(c: Any) -> str:
    return card_name(c) if type(c) is int and 0 <= c < N_CARDS else "card %s" % _short(c)


def _describe(state: State, a: dict) -> str:
    do = a.get("do")
    if do == "play":
        text = "auctions %s" % _cname(a.get("card"))
        sec = a.get("double")
        if isinstance(sec, dict):
            text += " with %s" % _cname(sec.get("card"))
        return text
    if do == "skip":
        return "loses the turn (timed out)"
    amt = a.get("amount")
    # an auction's action: its step's words (auctions.py), in the third person
    text = _auctions.said(state.phase, a, False, amount=_short(amt) if amt else amt, price=state.price,
                          card=_cname(a.get("card")) if do == "add" else "")
    return text if text is not None else "unknown action %s" % _short(do)
