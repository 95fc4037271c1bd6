"""Starving Artists: rules engine.

Everything here is pure: no I/O, no clock, no ``random``; randomness comes
only through ``core.rng.Rng`` from entropy the table supplies.  RULES.md next
to this file says what the code does, in plain words, with every decision.

The state is a frozen dataclass of tuples; ``apply`` and ``chance`` build a
new state (through a mutable scratch copy, ``_W``) and never touch the old one.

Cubes are counted per colour as 8-tuples in the order ``COLOURS`` =
"ROYGBPKW" (red orange yellow green blue purple black wild).  In actions and
views a multiset of cubes is a map colour letter -> positive count.

Randomness is batched: every bag draw and canvas flip is queued in
``State.pending`` (first in, first out) when the rules cause it, together with
the cubes that go back into the bag after it, and ``chance`` resolves the whole
queue in order.  ``turn`` asks for chance only when a decision needs a result
(see RULES.md, "Step order").
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, fields
from typing import Any, Iterable, Mapping, Sequence

from ...engine import ConfigError, GameInfo, IllegalAction, OVER, Turn
from ...rng import Rng
from .cards import CARDS, Card

__all__ = [
    "INFO", "OPTIONS", "OPTION_HELP", "COLOURS", "COLOUR_NAME", "BAG", "TARGETS",
    "State", "configure", "setup", "turn", "check", "apply", "apply_unchecked", "chance",
    "default_action", "view", "result", "describe", "legal_actions", "problems",
    "state_from_view", "determinize", "cubes_map", "counts_of", "needs_of", "is_complete", "take_options",
    "best_take", "answerers", "order_from", "solo_rating", "card_title", "incoming", "cube_words",
    "Checked", "MAIN", "FREE", "CI", "WILD", "ZERO",
]

NAME = "starving-artists"
COLOURS = "ROYGBPKW"
CI = {c: i for i, c in enumerate(COLOURS)}
WILD = 7
COLOUR_NAME = {"R": "red", "O": "orange", "Y": "yellow", "G": "green", "B": "blue",
               "P": "purple", "K": "black", "W": "wild"}
BAG = (15, 20, 20, 20, 30, 15, 20, 10)     # 150 cubes
ZERO = (0,) * 8
TARGETS = {2: (7, 16), 3: (6, 14), 4: (5, 12)}   # players -> (paintings sold, points)
TRADE_RATES = {2: 1, 5: 2, 9: 3}
START_NUTRITION = 5
MAX_NUTRITION = 5
START_CUBES = 6
SOLO_RATINGS = ((25, "Professional"), (20, "Expert"), (10, "Surviving"), (0, "Keep trying"))

OPTIONS = {
    "edition": "standard",
    "color_study": False,
    "player_trades": False,
    "last_supper": False,
    "remove_comics": False,
    "solo_canvases": 35,
}
BOOL_OPTIONS = ("color_study", "player_trades", "last_supper", "remove_comics")
SOLO_CANVASES = (10, 92)
SOLO_ONLY = ("remove_comics", "solo_canvases")   # refused at 2-4 seats unless left at the default
EDITIONS = ("standard", "junior")

OPTION_HELP = {
    "edition": "rules edition: standard (default) or junior (canvases cost 1, sales paid from the bag)",
    "color_study": "true/false (default false): 4 cubes of one colour to the Paint Market for 1 cube of your choice from the bag, as the free action",
    "player_trades": "true/false (default false): one trade offer a day to all other artists, as the free action",
    "last_supper": "true/false (default false): at nutrition 1, discard a completed canvas at night for its stars in food",
    "remove_comics": "true/false (default false), solo only: leave the zero-star comic-book canvases out of the deck",
    "solo_canvases": "whole number 10 to 92 (default 35), solo only: canvases in the deck",
}


INFO = GameInfo(
    name=NAME, title="Starving Artists", min_players=1, max_players=4, default_players=4,
    editions=EDITIONS, information="imperfect", simultaneous=True, sealed=False,
    chance=True, options=dict(OPTIONS), option_help=dict(OPTION_HELP), listing=10,
)

MAIN = ("work", "buy", "paint")
FREE = ("trade", "reset", "study", "offer")


# --------------------------------------------------------------------------
# state


@dataclass(frozen=True, slots=True, weakref_slot=True)
class State:
    config: Mapping[str, Any]            # full config from configure (never changed)
    players: int
    day: int                             # 1, 2, ...
    phase: str                           # "morning" | "afternoon" | "night" | "over"
    step: str                            # "turn" | "answer" | "announce" | "collect" | "" (over)
    first: int                           # seat holding the first-player marker
    actor: int                           # seat to decide (turn/announce/collect), the offerer in "answer", -1 if over
    alive: tuple[bool, ...]
    nutrition: tuple[int, ...]
    score: tuple[int, ...]               # stars earned
    food_earned: tuple[int, ...]         # food values of the paintings sold
    sold: tuple[tuple[int, ...], ...]    # per seat: card ids sold, in order
    studios: tuple[tuple[int, ...], ...]  # per seat: 8 colour counts
    canvases: tuple[tuple[tuple[int, str], ...], ...]  # per seat: (card id, filled) ; filled = one char per square, "." empty
    market: tuple[int, int, int]         # canvas market slots 1..3: card id or -1 (empty)
    paint_market: tuple[int, ...]        # 8 colour counts
    bag: tuple[int, ...]                 # 8 colour counts (before the pending queue)
    deck: tuple[int, ...]                # card ids still in the deck, sorted (no order: flips are uniform)
    discarded: tuple[int, ...]           # face-up cards out of play (reset, solo, starved seats, suppers)
    pending: tuple[tuple, ...]           # FIFO: ("cubes", seat, n) ("market", n) ("canvas", slot 1..3) ("return", counts8) ("studio", seat)
    free_used: tuple[bool, ...]          # free action used today
    offer: tuple | None                  # (seat, give8, take8, ends_turn) while answers are collected
    answers: tuple                       # per seat: None | True | False
    announced: tuple[tuple[int, tuple[int, ...], int], ...]   # (seat, canvas ids, supper id or -1)
    collection: tuple[tuple[int, int, int, int], ...]        # (seat, card id, cubes owed, per action)
    coll_next: int                       # index in collection of the next collection action
    starve_day: int                      # day of the first starvation (0 = none)
    end_reason: str                      # why the game ended ("" while playing)
    events: tuple[tuple[int, str], ...]  # (day, text) of this and the previous day
    met: tuple[tuple[int, str, int], ...] = ()  # (seat, "paintings" | "points", day) in the order reached


class _W:
    """A mutable scratch copy of a State."""

    __slots__ = tuple(f.name for f in fields(State))

    def __init__(self, s: State) -> None:
        self.config = s.config
        self.players = s.players
        self.day = s.day
        self.phase = s.phase
        self.step = s.step
        self.first = s.first
        self.actor = s.actor
        self.alive = list(s.alive)
        self.nutrition = list(s.nutrition)
        self.score = list(s.score)
        self.food_earned = list(s.food_earned)
        self.sold = list(s.sold)
        self.studios = [list(x) for x in s.studios]
        self.canvases = [list(x) for x in s.canvases]
        self.market = list(s.market)
        self.paint_market = list(s.paint_market)
        self.bag = list(s.bag)
        self.deck = s.deck
        self.discarded = list(s.discarded)
        self.pending = list(s.pending)
        self.free_used = list(s.free_used)
        self.offer = s.offer
        self.answers = list(s.answers)
        self.announced = list(s.announced)
        self.collection = [list(x) for x in s.collection]
        self.coll_next = s.coll_next
        self.starve_day = s.starve_day
        self.end_reason = s.end_reason
        self.events = list(s.events)
        self.met = list(s.met)

    def freeze(self) -> State:
        return State(
            config=self.config, players=self.players, day=self.day, phase=self.phase,
            step=self.step, first=self.first, actor=self.actor, alive=tuple(self.alive),
            nutrition=tuple(self.nutrition), score=tuple(self.score),
            food_earned=tuple(self.food_earned), sold=tuple(self.sold),
            studios=tuple(tuple(x) for x in self.studios),
            canvases=tuple(tuple(x) for x in self.canvases), market=tuple(self.market),
            paint_market=tuple(self.paint_market), bag=tuple(self.bag), deck=tuple(self.deck),
            discarded=tuple(self.discarded), pending=tuple(self.pending),
            free_used=tuple(self.free_used), offer=self.offer, answers=tuple(self.answers),
            announced=tuple(self.announced),
            collection=tuple(tuple(x) for x in self.collection), coll_next=self.coll_next,
            starve_day=self.starve_day, end_reason=self.end_reason, events=tuple(self.events),
            met=tuple(self.met),
        )

    def event(self, text: str) -> None:
        self.events.append((self.day, text))


# --------------------------------------------------------------------------
# small helpers (also used by bots, the screen and tests)


def cubes_map(counts: Sequence[int]) -> dict:
    """8 colour counts -> {"R": 2, ...} without zero counts."""
    return {COLOURS[i]: n for i, n in enumerate(counts) if n}


def counts_of(cubes: Mapping[str, int] | None) -> tuple[int, ...]:
    """A (valid) colour map -> 8 colour counts."""
    out = [0] * 8
    for k, v in (cubes or {}).items():
        out[CI[k]] += v
    return tuple(out)


def cube_words(counts: Sequence[int]) -> str:
    """"R, B, B" for a small multiset; "nothing" when empty."""
    parts = []
    for i, n in enumerate(counts):
        parts.extend([COLOURS[i]] * n)
    return ", ".join(parts) if parts else "nothing"


def card_title(card_id: int) -> str:
    return "'%s'" % CARDS[card_id].title


def is_complete(filled: str) -> bool:
    return "." not in filled


def needs_of(card: Card, filled: str) -> list[tuple[str, ...]]:
    """The colours each still empty square takes (one tuple per empty square)."""
    return [card.squares[i] for i, f in enumerate(filled) if f == "."]


def order_from(first: int, alive: Sequence[bool]) -> list[int]:
    """Alive seats clockwise from ``first``."""
    n = len(alive)
    return [(first + k) % n for k in range(n) if alive[(first + k) % n]]


def _next_alive(seat: int, alive: Sequence[bool]) -> int:
    n = len(alive)
    for k in range(1, n + 1):
        s = (seat + k) % n
        if alive[s]:
            return s
    return seat


def answerers(state: State) -> tuple[int, ...]:
    """Seats that answer the current trade offer."""
    if state.offer is None:
        return ()
    off = state.offer[0]
    return tuple(s for s in range(state.players) if s != off and state.alive[s])


def solo_rating(points: int) -> str:
    for lo, name in SOLO_RATINGS:
        if points >= lo:
            return name
    return SOLO_RATINGS[-1][1]


def _plural(n: int, word: str) -> str:
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def _short(x: Any) -> str:
    try:
        s = repr(x)
    except Exception:  # pragma: no cover - hostile __repr__
        s = "<%s>" % type(x).__name__
    return s if len(s) <= 40 else s[:37] + "..."


def _draw(bag: list[int], rng: Rng, n: int) -> list[int]:
    """Draw up to n cubes uniformly from ``bag`` (changed in place)."""
    got = [0] * 8
    total = sum(bag)
    for _ in range(n):
        if total <= 0:
            break
        r = rng.below(total)
        i = 0
        while r >= bag[i]:
            r -= bag[i]
            i += 1
        bag[i] -= 1
        got[i] += 1
        total -= 1
    return got


def _add(dst: list[int], src: Sequence[int]) -> None:
    for i in range(8):
        dst[i] += src[i]


def _sub(dst: list[int], src: Sequence[int]) -> None:
    for i in range(8):
        dst[i] -= src[i]


def _to_bag(w: _W, counts: Sequence[int]) -> None:
    """Cubes back into the bag: at once, or queued after the draws still pending."""
    if not any(counts):
        return
    if w.pending:
        w.pending.append(("return", tuple(counts)))
    else:
        _add(w.bag, counts)


def _filled_counts(filled: str) -> list[int]:
    out = [0] * 8
    for ch in filled:
        if ch != ".":
            out[CI[ch]] += 1
    return out


def _pending_flips(pending: Iterable[tuple]) -> int:
    return sum(1 for op in pending if op[0] == "canvas")


def _queue_flip(w: _W, slot: int) -> None:
    """Queue a flip into ``slot`` (1..3) if the deck still has a card for it."""
    if len(w.deck) > _pending_flips(w.pending):
        w.pending.append(("canvas", slot))


def _pay(w: _W, pay: Sequence[int]) -> None:
    """A buy's or a reset's payment: to the Paint Market; junior, to the bag ("Use the Paint Market
    only to trade for paints")."""
    if w.config["edition"] == "junior":
        _to_bag(w, pay)
    else:
        _add(w.paint_market, pay)


def _junior_overflow(w: _W) -> None:
    if w.config["edition"] != "junior":
        return
    extra = [max(0, n - 4) for n in w.paint_market]
    if any(extra):
        _sub(w.paint_market, extra)
        _to_bag(w, extra)
        w.event("the Paint Market returns %s to the bag (junior: at most 4 of a colour)" % cube_words(extra))


# --------------------------------------------------------------------------
# configure / setup


def configure(options: Mapping[str, Any], players: int) -> dict:
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise ConfigError("options must be a map of option name -> value")
    if type(players) is not int or not INFO.min_players <= players <= INFO.max_players:
        raise ConfigError("Starving Artists takes 1 to 4 players (1 = solo), not %s" % _short(players))
    config = dict(OPTIONS)
    for key, value in options.items():
        if not isinstance(key, str) or key not in OPTIONS:
            raise ConfigError("unknown option %s (known: %s)" % (_short(key), ", ".join(sorted(OPTIONS))))
        if key == "edition":
            if not isinstance(value, str) or value not in EDITIONS:
                raise ConfigError("option edition must be standard or junior, not %s" % _short(value))
        elif key in BOOL_OPTIONS:
            if type(value) is not bool:
                raise ConfigError("option %s must be true or false, not %s" % (key, _short(value)))
        elif key == "solo_canvases":
            lo, hi = SOLO_CANVASES
            if type(value) is not int or not lo <= value <= hi:
                raise ConfigError("option solo_canvases must be a whole number from %d to %d, not %s"
                                  % (lo, hi, _short(value)))
        if key in SOLO_ONLY and players != 1 and value != OPTIONS[key]:
            raise ConfigError("option %s is for the solo game only (1 player); a table of %d players "
                              "uses the whole deck" % (key, players))
        config[key] = value
    return config


def setup(config: Mapping[str, Any], players: int, seed: bytes) -> State:
    config = configure(config, players)
    if isinstance(seed, (bytearray, memoryview)):
        seed = bytes(seed)
    if not isinstance(seed, bytes) or len(seed) != 32:
        raise ConfigError("seed must be 32 bytes")
    rng = Rng(seed, NAME + "/setup")
    n = players
    first = rng.below(n)
    pool = list(range(len(CARDS)))
    if n == 1:
        if config["remove_comics"]:
            pool = [c for c in pool if CARDS[c].stars > 0]
        rng.shuffle(pool)
        pool = pool[: config["solo_canvases"]]
    deck = sorted(pool)
    bag = list(BAG)
    studios: list[list[int]] = [[0] * 8 for _ in range(n)]
    for s in order_from(first, [True] * n):
        studios[s] = _draw(bag, rng, START_CUBES)
    market = [-1, -1, -1]
    for slot in range(3):
        if deck:
            i = rng.below(len(deck))
            market[slot] = deck.pop(i)
    if config["edition"] == "junior":
        pm = [1 if bag[i] > 0 and i != WILD else 0 for i in range(8)]
        _sub(bag, pm)
    else:
        pm = _draw(bag, rng, 4)
    events = [(1, "day 1: seat %d has the first-player marker" % first),
              (1, "the Paint Market starts with %s" % cube_words(pm))]
    return State(
        config=config, players=n, day=1, phase="morning", step="turn", first=first, actor=first,
        alive=(True,) * n, nutrition=(START_NUTRITION,) * n, score=(0,) * n,
        food_earned=(0,) * n, sold=((),) * n, studios=tuple(tuple(x) for x in studios),
        canvases=((),) * n, market=tuple(market), paint_market=tuple(pm), bag=tuple(bag),
        deck=tuple(deck), discarded=(), pending=(), free_used=(False,) * n, offer=None,
        answers=(None,) * n, announced=(), collection=(), coll_next=0, starve_day=0,
        end_reason="", events=tuple(events),
    )


# --------------------------------------------------------------------------
# turn


def _deciders(state: State) -> tuple[int, ...]:
    if state.step == "answer":
        return answerers(state)
    return (state.actor,)


def _needs_chance(state: State, deciders: Sequence[int]) -> bool:
    if not state.pending:
        return False
    if state.step == "turn" and state.config["color_study"]:
        return True
    for op in state.pending:
        k = op[0]
        if k == "canvas" or k == "market":
            return True
        if k == "cubes" and op[1] in deciders:
            return True
    return False


def _chance_seats(state: State) -> tuple[int, ...]:
    seats = tuple(s for s in range(state.players) if state.alive[s])
    return seats or tuple(range(state.players))


def _label(state: State) -> str:
    d = state.day
    if state.phase == "over":
        return "game over"
    if state.step == "turn":
        return "day %d %s: seat %d's turn" % (d, state.phase, state.actor)
    if state.step == "answer":
        return "day %d: answer seat %d's trade offer" % (d, state.offer[0])
    if state.step == "announce":
        return "day %d night: seat %d announces sales" % (d, state.actor)
    if state.step == "collect":
        e = state.collection[state.coll_next]
        return "day %d night: seat %d collects (%s)" % (d, e[0], _plural(_take_amount(state, e), "cube"))
    if state.step == "dusk":
        return "day %d end: seat %d chooses the diamonds of %s" % (d, state.actor, card_title(state.market[0]))
    return "day %d %s" % (d, state.phase)


def turn(state: State) -> Turn:
    if state.phase == "over":
        return OVER
    deciders = _deciders(state)
    if _needs_chance(state, deciders):
        return Turn("chance", seats=_chance_seats(state),
                    label="day %d %s: shared randomness for the bag and the deck" % (state.day, state.phase))
    label = _label(state)
    if state.step == "answer":
        return Turn("simultaneous", seats=deciders, sealed=False, label=label)
    return Turn("sequential", (state.actor,), label=label)


# --------------------------------------------------------------------------
# chance


def chance(state: State, entropy: bytes) -> State:
    if isinstance(entropy, (bytearray, memoryview)):
        entropy = bytes(entropy)
    if not isinstance(entropy, bytes) or len(entropy) != 32:
        raise ValueError("entropy must be 32 bytes")
    if state.phase == "over" or not state.pending:
        raise ValueError("Starving Artists asks for no randomness now")
    w = _W(state)
    _resolve(w, Rng(entropy, NAME + "/chance"))
    if w.step == "dusk":
        _dusk(w)
    return w.freeze()


def _resolve(w: _W, rng: Rng) -> None:
    ops = w.pending
    w.pending = []
    for op in ops:
        kind = op[0]
        if kind == "cubes":
            got = _draw(w.bag, rng, op[2])
            _add(w.studios[op[1]], got)
            w.event("seat %d draws %s" % (op[1], cube_words(got)))
        elif kind == "market":
            got = _draw(w.bag, rng, op[1])
            _add(w.paint_market, got)
            w.event("the Paint Market receives %s" % cube_words(got))
            _junior_overflow(w)
        elif kind == "canvas":
            if w.deck:
                i = rng.below(len(w.deck))
                cid = w.deck[i]
                w.deck = w.deck[:i] + w.deck[i + 1:]
                slot = op[1]
                if w.market[slot - 1] != -1:  # pragma: no cover - flips only target empty slots
                    slot = w.market.index(-1) + 1
                w.market[slot - 1] = cid
                w.event("%s is turned over into slot %d" % (card_title(cid), slot))
        elif kind == "reset":
            gone = [c for c in w.market if c != -1]
            w.discarded.extend(gone)
            w.market = [-1, -1, -1]
            w.event("the canvas market is discarded: %s" % (", ".join(card_title(c) for c in gone) or "nothing"))
        elif kind == "return":
            _add(w.bag, op[1])
        elif kind == "studio":
            _add(w.bag, w.studios[op[1]])
            w.studios[op[1]] = [0] * 8


def incoming(state: State) -> list[int]:
    """Cubes each seat will receive from the pending queue (exact: counts do not depend on colours)."""
    out = [0] * state.players
    total = sum(state.bag)
    held = [sum(x) for x in state.studios]
    for op in state.pending:
        k = op[0]
        if k == "cubes":
            got = min(op[2], total)
            total -= got
            out[op[1]] += got
            held[op[1]] += got
        elif k == "market":
            total -= min(op[1], total)
        elif k == "return":
            total += sum(op[1])
        elif k == "studio":
            total += held[op[1]]
            held[op[1]] = 0
            out[op[1]] = 0
    return out


# --------------------------------------------------------------------------
# the flow of a day (automatic steps)


def _end_turn(w: _W) -> None:
    nxt = _next_alive(w.actor, w.alive)
    if nxt != w.first:
        w.actor = nxt
        w.step = "turn"
        return
    if w.phase == "morning":
        w.phase = "afternoon"
        w.actor = w.first
        w.step = "turn"
        return
    _start_night(w)


def _has_complete(w: _W, seat: int) -> bool:
    return any(is_complete(f) for _, f in w.canvases[seat])


def _start_night(w: _W) -> None:
    w.phase = "night"
    w.announced = []
    for s in order_from(w.first, w.alive):
        if _has_complete(w, s):
            w.step = "announce"
            w.actor = s
            return
    _resolve_sales(w)


def _after_announce(w: _W, seat: int) -> None:
    order = order_from(w.first, w.alive)
    for s in order[order.index(seat) + 1:]:
        if _has_complete(w, s):
            w.actor = s
            return
    _resolve_sales(w)


def _resolve_sales(w: _W) -> None:
    junior = w.config["edition"] == "junior"
    sold_now: list[tuple[int, int, int]] = []   # (seat, card id, announce index)
    for idx, (seat, ids, supper) in enumerate(w.announced):
        for cid in ids:
            card = CARDS[cid]
            filled = _remove_canvas(w, seat, cid)
            nut = w.nutrition[seat] + card.food
            extra = 0
            if nut > MAX_NUTRITION:
                extra = nut - MAX_NUTRITION
                nut = MAX_NUTRITION
            w.nutrition[seat] = nut
            w.food_earned[seat] += card.food
            if extra:
                w.pending.append(("cubes", seat, 4 * extra))
            _to_bag(w, _filled_counts(filled))
            w.score[seat] += card.stars
            w.sold[seat] = w.sold[seat] + (cid,)
            sold_now.append((seat, cid, idx))
            w.event("seat %d sells %s: %s, %d food%s" % (
                seat, card_title(cid), _plural(card.stars, "star"), card.food,
                " (%d extra food = %d cubes from the bag)" % (extra, 4 * extra) if extra else ""))
        if supper != -1:
            card = CARDS[supper]
            filled = _remove_canvas(w, seat, supper)
            w.nutrition[seat] = min(MAX_NUTRITION, w.nutrition[seat] + card.stars)
            _to_bag(w, _filled_counts(filled))
            w.discarded.append(supper)
            w.event("seat %d eats its Last Supper: %s is discarded for %d food" % (
                seat, card_title(supper), card.stars))
    # the night is one moment: the objectives are judged over all of its sales together (decision 27)
    _note_objectives(w)
    # getting paid: paint value order; ties by seat order from the first player, then announce order
    pos = {s: i for i, s in enumerate(order_from(w.first, w.alive))}
    sold_now.sort(key=lambda e: (-CARDS[e[1]].paint, pos[e[0]], e[2]))
    values = sorted({CARDS[c].paint for _, c, _ in sold_now}, reverse=True)
    per_value = {v: (4 if i == 0 else 2 if i == 1 else 1) for i, v in enumerate(values)}
    w.collection = []
    w.coll_next = 0
    for seat, cid, _ in sold_now:
        paint = CARDS[cid].paint
        if paint <= 0:
            continue
        if junior:
            w.pending.append(("cubes", seat, paint))
            w.event("seat %d is paid %d cubes from the bag for %s (junior)" % (seat, paint, card_title(cid)))
        else:
            w.collection.append([seat, cid, paint, per_value[paint]])
    _collect_next(w)


def _note_objectives(w: _W) -> None:
    """Record each objective a seat has reached (2-4 seats), judged at the end of the night's sales
    over all of them together (a night is one moment, decision 27): seat by seat from seat 0, a
    seat's paintings before its points. The announce order plays no part."""
    if w.players not in TARGETS:
        return
    need_sold, need_points = TARGETS[w.players]
    have = {(s, o) for s, o, _ in w.met}
    for seat in range(w.players):
        for obj, reached in (("paintings", len(w.sold[seat]) >= need_sold),
                             ("points", w.score[seat] >= need_points)):
            if reached and (seat, obj) not in have:
                w.met.append((seat, obj, w.day))
                w.event("seat %d meets the %s objective (%s)" % (
                    seat, obj, _plural(need_sold, "painting") if obj == "paintings" else _plural(need_points, "point")))


def _remove_canvas(w: _W, seat: int, cid: int) -> str:
    cs = w.canvases[seat]
    for i, (c, f) in enumerate(cs):
        if c == cid:
            del cs[i]
            return f
    raise AssertionError("canvas not held")  # pragma: no cover - check guarantees it


def _takeable(market: Sequence[int]) -> int:
    return sum(market[:WILD]) + min(1, market[WILD])


def _take_amount(state: State | _W, entry: Sequence[int]) -> int:
    return min(entry[3], entry[2], _takeable(state.paint_market))


def take_options(market: Sequence[int], k: int, limit: int | None = None) -> list[tuple[int, ...]]:
    """Every distinct multiset of ``k`` cubes the market allows, at most one wild (8-tuples)."""
    out: list[tuple[int, ...]] = []
    cur = [0] * 8

    def rec(i: int, left: int) -> bool:
        if limit is not None and len(out) >= limit:
            return True
        if i == WILD:
            if left == 0:
                out.append(tuple(cur))
            elif left == 1 and market[WILD] >= 1:
                cur[WILD] = 1
                out.append(tuple(cur))
                cur[WILD] = 0
            return False
        top = min(left, market[i])
        for x in range(top, -1, -1):
            cur[i] = x
            if rec(i + 1, left - x):
                cur[i] = 0
                return True
        cur[i] = 0
        return False

    rec(0, k)
    return out


def _collect_next(w: _W) -> None:
    """Run collection actions until one needs a choice, or the night's collection is over."""
    q = w.collection
    while q:
        if _takeable(w.paint_market) == 0 or all(e[2] <= 0 for e in q):
            break
        i = w.coll_next % len(q)
        while q[i][2] <= 0:
            i = (i + 1) % len(q)
        w.coll_next = i
        k = _take_amount(w, q[i])
        opts = take_options(w.paint_market, k, limit=2)
        if len(opts) == 1:
            _do_take(w, i, opts[0])
            continue
        w.step = "collect"
        w.actor = q[i][0]
        return
    _end_night(w)


def _do_take(w: _W, i: int, got: Sequence[int]) -> None:
    e = w.collection[i]
    _sub(w.paint_market, got)
    _add(w.studios[e[0]], got)
    e[2] -= sum(got)
    w.coll_next = (i + 1) % len(w.collection)
    w.event("seat %d collects %s for %s" % (e[0], cube_words(got), card_title(e[1])))


def _end_night(w: _W) -> None:
    w.collection = []
    w.coll_next = 0
    w.step = ""
    w.actor = -1
    if w.players == 1:
        w.phase = "night"
        w.step = "dusk"
        w.actor = 0
        if any(op[0] in ("canvas", "reset") for op in w.pending):
            return      # the slot-1 canvas is turned over first: a chance step, then _dusk
        return _dusk(w)
    _close_day(w)


def _dusk(w: _W) -> None:
    """Solo end of day, the slot-1 canvas face up: ask the artist which colour each diamond uses
    when that choice changes what goes back to the bag; else remove it at once."""
    if w.market[0] != -1 and len(diamond_outcomes(w.paint_market, w.market[0])) > 1:
        return
    _solo_end_of_day(w, None)
    _close_day(w)


def _close_day(w: _W) -> None:
    w.step = ""
    w.actor = -1
    n = w.players
    if n == 1:
        if all(c == -1 for c in w.market) and not _pending_flips(w.pending):
            return _game_over(w, "the canvas market is empty")
    else:
        need_sold, need_points = TARGETS[n]
        _note_objectives(w)     # a state built by hand: no night's sales judged it
        if w.met:
            return _game_over(w, "an artist reached %d paintings or %d points" % (need_sold, need_points))
        if w.starve_day and w.starve_day <= w.day:
            return _game_over(w, "the day after a starvation is over")
    _start_day(w)


def diamond_squares(cid: int) -> list[int]:
    """The diamond (two-colour) squares of a card, in square order."""
    return [i for i, sq in enumerate(CARDS[cid].squares) if len(sq) == 2]


def solo_returns(pm: Sequence[int], cid: int, colours: Sequence[str] | None) -> tuple[int, ...]:
    """The cubes the solo end of day sends from the Paint Market ``pm`` back to the bag for card
    ``cid``: each one-colour square takes one cube of its colour if one is left; then each diamond,
    in square order, one cube of the colour chosen for it (``colours``, one letter per diamond) if one
    is left.  ``colours`` None = the default choice (``default_diamonds``)."""
    card = CARDS[cid]
    back = [0] * 8
    for sq in card.squares:
        if len(sq) == 1:
            i = CI[sq[0]]
            if pm[i] - back[i] > 0:
                back[i] += 1
    if colours is None:
        colours = _default_diamonds(pm, card, back)
    for sq, col in zip([sq for sq in card.squares if len(sq) == 2], colours):
        i = CI[col]
        if pm[i] - back[i] > 0:
            back[i] += 1
    return tuple(back)


def _default_diamonds(pm: Sequence[int], card: Card, back: list[int]) -> list[str]:
    left = [pm[i] - back[i] for i in range(8)]
    out = []
    for sq in card.squares:
        if len(sq) != 2:
            continue
        a, b = CI[sq[0]], CI[sq[1]]
        if left[a] == 0 or left[b] == 0:     # name the missing colour: nothing goes back
            col = a if left[a] == 0 else b
        else:                                # both there: the more plentiful (a tie: the first listed)
            col = a if left[a] >= left[b] else b
            left[col] -= 1
        out.append(COLOURS[col])
    return out


def default_diamonds(pm: Sequence[int], cid: int) -> list[str]:
    """The default colour of each diamond of card ``cid`` at the solo end of day (decision 12)."""
    card = CARDS[cid]
    back = [0] * 8
    for sq in card.squares:
        if len(sq) == 1 and pm[CI[sq[0]]] - back[CI[sq[0]]] > 0:
            back[CI[sq[0]]] += 1
    return _default_diamonds(pm, card, back)


def diamond_outcomes(pm: Sequence[int], cid: int) -> dict[tuple[int, ...], list[str]]:
    """Each distinct return the artist can choose for card ``cid`` -> the first colour list giving it
    (every combination, square order; a card has at most a few diamonds)."""
    out: dict[tuple[int, ...], list[str]] = {}
    combos: list[list[str]] = [[]]
    for i in diamond_squares(cid):
        combos = [c + [x] for c in combos for x in CARDS[cid].squares[i]]
    for c in combos:
        out.setdefault(solo_returns(pm, cid, c), c)
    return out


def _solo_end_of_day(w: _W, colours: Sequence[str] | None) -> None:
    cid = w.market[0]
    if cid == -1:
        return
    pm = w.paint_market
    back = list(solo_returns(pm, cid, colours))
    _sub(pm, back)
    _to_bag(w, back)
    w.discarded.append(cid)
    w.market[0] = -1
    w.event("end of day: %s leaves the canvas market; %s from the Paint Market go back to the bag"
            % (card_title(cid), cube_words(back)))
    _shift_market(w)


def _shift_market(w: _W) -> None:
    """Cards slide toward slot 1; each empty slot waits for a flip."""
    cards = [c for c in w.market if c != -1]
    flips = [op for op in w.pending if op[0] == "canvas"]
    w.pending = [op for op in w.pending if op[0] != "canvas"] if flips else w.pending
    w.market = cards + [-1] * (3 - len(cards))
    for slot in range(len(cards) + 1, 4):
        _queue_flip(w, slot)


def _game_over(w: _W, reason: str) -> None:
    w.phase = "over"
    w.step = ""
    w.actor = -1
    w.offer = None
    w.end_reason = reason
    w.event("game over: %s" % reason)


def _start_day(w: _W) -> None:
    w.day += 1
    d = w.day
    w.events = [e for e in w.events if e[0] >= d - 1][-80:]
    n = w.players
    w.free_used = [False] * n
    w.offer = None
    w.answers = [None] * n
    w.announced = []
    w.first = _next_alive(w.first, w.alive)
    w.event("day %d: seat %d has the first-player marker" % (d, w.first))
    w.pending.append(("market", 4))
    starved = []
    for s in range(n):
        if not w.alive[s]:
            continue
        w.nutrition[s] -= 1
        if w.nutrition[s] < 1:
            w.nutrition[s] = 0
            starved.append(s)
    for s in starved:
        w.alive[s] = False
        w.pending.append(("studio", s))
        for cid, filled in w.canvases[s]:
            _to_bag(w, _filled_counts(filled))
            w.discarded.append(cid)
        w.canvases[s] = []
        w.event("seat %d starves and is out of the game" % s)
    if starved and not w.starve_day:
        w.starve_day = d
    if n == 1 and starved:
        return _game_over(w, "the artist starved")
    if not any(w.alive):
        return _game_over(w, "every artist starved")
    if not w.alive[w.first]:
        w.first = _next_alive(w.first, w.alive)
        w.event("the first-player marker passes to seat %d" % w.first)
    w.phase = "morning"
    w.step = "turn"
    w.actor = w.first


# --------------------------------------------------------------------------
# checking actions


class Checked(dict):
    """An action as ``check`` returned it for one state (``apply`` skips checking it again there)."""

    __slots__ = ("_for",)


def _cubes(raw: Any, what: str, lo: int = 0, hi: int = 150) -> tuple[int, ...]:
    if not isinstance(raw, dict):
        raise IllegalAction('%s must be a map of colour letter -> number of cubes, like {"R": 2, "B": 1}, not %s'
                            % (what, _short(raw)))
    out = [0] * 8
    for k, v in raw.items():
        if type(k) is not str or k not in CI:
            raise IllegalAction("%s: %s is not a colour (use R red, O orange, Y yellow, G green, "
                                "B blue, P purple, K black, W wild)" % (what, _short(k)))
        if type(v) is not int or v < 0:
            raise IllegalAction("%s: the number of %s cubes must be a whole number, 0 or more, not %s"
                                % (what, COLOUR_NAME[k], _short(v)))
        out[CI[k]] = v
    total = sum(out)
    if not lo <= total <= hi:
        if lo == hi:
            raise IllegalAction("%s must be exactly %s, not %d" % (what, _plural(lo, "cube"), total))
        raise IllegalAction("%s must be %d to %d cubes, not %d" % (what, lo, hi, total))
    return tuple(out)


def _colour(raw: Any, what: str) -> int:
    if type(raw) is not str or raw not in CI:
        raise IllegalAction("%s must be a colour letter (R red, O orange, Y yellow, G green, B blue, "
                            "P purple, K black, W wild), not %s" % (what, _short(raw)))
    return CI[raw]


def _must_hold(have: Sequence[int], want: Sequence[int], who: str = "you have") -> None:
    for i in range(8):
        if want[i] > have[i]:
            name = COLOUR_NAME[COLOURS[i]]
            if have[i] == 0:
                raise IllegalAction("%s no %s cube (%d needed)" % (who, name, want[i]))
            raise IllegalAction("%s only %s (%d needed)" % (who, _plural(have[i], name + " cube"), want[i]))


def _keys(action: dict, allowed: tuple[str, ...], what: str) -> None:
    for k in action:
        if k not in allowed:
            raise IllegalAction("unknown key %s in a %s action (allowed: %s)" % (_short(k), what, ", ".join(allowed)))


def _int(raw: Any, what: str, lo: int, hi: int) -> int:
    if type(raw) is not int or not lo <= raw <= hi:
        raise IllegalAction("%s must be a whole number from %d to %d, not %s" % (what, lo, hi, _short(raw)))
    return raw


def _card_id(raw: Any, what: str) -> int:
    if type(raw) is not int or not 0 <= raw < len(CARDS):
        raise IllegalAction("%s must be a canvas id (a whole number from 0 to %d), not %s"
                            % (what, len(CARDS) - 1, _short(raw)))
    return raw


def _check_main(s: State | _W, seat: int, action: dict) -> dict:
    do = action["do"]
    studio = s.studios[seat]
    if do == "work":
        _keys(action, ("do", "then"), "work")
        return {"do": "work"}
    if do == "buy":
        _keys(action, ("do", "slot", "pay", "then"), "buy")
        slot = _int(action.get("slot"), "slot", 1, 3)
        cid = s.market[slot - 1]
        if cid == -1:
            raise IllegalAction("slot %d of the canvas market is empty" % slot)
        cost = 1 if s.config["edition"] == "junior" else slot
        if "pay" not in action:
            raise IllegalAction("say which cubes pay for %s: pay = %s, e.g. {\"R\": %d}"
                                % (card_title(cid), _plural(cost, "cube"), cost))
        pay = _cubes(action["pay"], "pay for %s (slot %d)" % (card_title(cid), slot), cost, cost)
        _must_hold(studio, pay)
        return {"do": "buy", "slot": slot, "pay": cubes_map(pay)}
    # paint
    _keys(action, ("do", "place", "then"), "paint")
    place = action.get("place")
    if not isinstance(place, list) or not 1 <= len(place) <= 4:
        raise IllegalAction("place must be a list of 1 to 4 placements [canvas id, square, colour], not %s"
                            % _short(place))
    mine = {cid: f for cid, f in s.canvases[seat]}
    used = [0] * 8
    seen = set()
    new_wild: dict[int, int] = {}
    out = []
    for p in place:
        if not isinstance(p, list) or len(p) != 3:
            raise IllegalAction("a placement is [canvas id, square, colour], not %s" % _short(p))
        cid = _card_id(p[0], "a placement's canvas")
        if cid not in mine:
            raise IllegalAction("canvas %d (%s) is not one of your canvases" % (cid, card_title(cid)))
        card = CARDS[cid]
        sq = p[1]
        if type(sq) is not int or not 0 <= sq < card.size:
            raise IllegalAction("%s has squares 0 to %d, not %s" % (card_title(cid), card.size - 1, _short(sq)))
        col = _colour(p[2], "the colour of square %d of %s" % (sq, card_title(cid)))
        if (cid, sq) in seen:
            raise IllegalAction("square %d of %s is painted twice in one action" % (sq, card_title(cid)))
        seen.add((cid, sq))
        if mine[cid][sq] != ".":
            raise IllegalAction("square %d of %s already holds a %s cube"
                                % (sq, card_title(cid), COLOUR_NAME[mine[cid][sq]]))
        if col == WILD:
            new_wild[cid] = new_wild.get(cid, 0) + 1
            if new_wild[cid] + (1 if "W" in mine[cid] else 0) > 1:
                raise IllegalAction("a canvas holds at most one wild cube (%s)" % card_title(cid))
        elif not card.masks[sq] >> col & 1:
            raise IllegalAction("square %d of %s takes %s, not %s" % (
                sq, card_title(cid), " or ".join(COLOUR_NAME[c] for c in card.squares[sq]),
                COLOUR_NAME[COLOURS[col]]))
        used[col] += 1
        out.append([cid, sq, COLOURS[col]])
    _must_hold(studio, used)
    return {"do": "paint", "place": out}


def _check_free(s: State | _W, seat: int, action: dict, after_main: bool = False) -> dict:
    do = action["do"]
    cfg = s.config
    if "then" in action:
        raise IllegalAction("only a main action (work, buy, paint) can carry a free action in 'then'")
    if s.free_used[seat]:
        raise IllegalAction("you already used your free action today")
    studio = s.studios[seat]
    pm = s.paint_market
    if do == "trade":
        _keys(action, ("do", "give", "take"), "trade")
        give = _cubes(action.get("give"), "give", 1, 150)
        take = _cubes(action.get("take"), "take", 0, 150)
        ng = sum(give)
        if ng not in TRADE_RATES:
            raise IllegalAction("the Paint Market trades 2 cubes for 1, 5 for 2 or 9 for 3; you gave %d" % ng)
        if sum(take) != TRADE_RATES[ng]:
            raise IllegalAction("giving %d cubes takes exactly %s from the Paint Market, not %d"
                                % (ng, _plural(TRADE_RATES[ng], "cube"), sum(take)))
        if take[WILD]:
            raise IllegalAction("you cannot take a wild cube from the Paint Market")
        _must_hold(studio, give)
        _must_hold(pm, take, "the Paint Market has")
        return {"do": "trade", "give": cubes_map(give), "take": cubes_map(take)}
    if do == "reset":
        _keys(action, ("do", "pay"), "reset")
        if len(s.deck) <= _pending_flips(s.pending):
            raise IllegalAction("the deck is empty: a reset would turn over no new canvases")
        pay = _cubes(action.get("pay"), "pay for the reset", 2, 2)
        _must_hold(studio, pay)
        return {"do": "reset", "pay": cubes_map(pay)}
    if do == "study":
        _keys(action, ("do", "give", "take"), "study")
        if not cfg["color_study"]:
            raise IllegalAction("the Color Study option is off at this table")
        g = _colour(action.get("give"), "give (the colour of the 4 cubes)")
        t = _colour(action.get("take"), "take (the colour you take from the bag)")
        if studio[g] < 4:
            raise IllegalAction("a colour study needs 4 %s cubes; you have %d" % (COLOUR_NAME[COLOURS[g]], studio[g]))
        if any(op[0] != "canvas" for op in s.pending):
            raise IllegalAction("a colour study reads the bag, which still owes this turn's draws: "
                                "study before you work, or on a later turn")
        if s.bag[t] < 1:
            raise IllegalAction("the bag has no %s cube" % COLOUR_NAME[COLOURS[t]])
        return {"do": "study", "give": COLOURS[g], "take": COLOURS[t]}
    # offer
    _keys(action, ("do", "give", "take"), "offer")
    if not cfg["player_trades"]:
        raise IllegalAction("the Player trades option is off at this table")
    if not any(s.alive[o] for o in range(s.players) if o != seat):
        raise IllegalAction("there is no other artist to trade with")
    give = _cubes(action.get("give"), "give", 1, 9)
    take = _cubes(action.get("take"), "take", 1, 9)
    _must_hold(studio, give)
    return {"do": "offer", "give": cubes_map(give), "take": cubes_map(take)}


class _After(_W):
    """The scratch state after a main action, to check its ``then``."""

    __slots__ = ()


def _check(state: State, seat: Any, action: Any) -> dict:
    if state.phase == "over":
        raise IllegalAction("the game is over")
    if type(seat) is not int or not 0 <= seat < state.players:
        raise IllegalAction("there is no seat %s at this table" % _short(seat))
    if not isinstance(action, dict):
        raise IllegalAction('an action must be a map like {"do": "work"}, not %s' % _short(action))
    do = action.get("do")
    if type(do) is not str or do not in MAIN + FREE + ("answer", "sell", "take", "diamonds"):
        raise IllegalAction("unknown action %s (one of work, buy, paint, trade, reset, study, offer, "
                            "answer, sell, take, diamonds)" % _short(do))
    if not state.alive[seat]:
        raise IllegalAction("you starved: you are out of the game")
    t = turn(state)
    if t.kind == "chance":
        raise IllegalAction("no one acts now: waiting for shared randomness (draws from the bag or the deck)")
    if state.step == "answer":
        off = state.offer[0]
        if seat == off:
            raise IllegalAction("wait for the other artists to answer your trade offer")
        if state.answers[seat] is not None:
            raise IllegalAction("you already answered seat %d's trade offer" % off)
        if do != "answer":
            raise IllegalAction('answer seat %d\'s trade offer first: {"do": "answer", "accept": true or false}' % off)
        _keys(action, ("do", "accept"), "answer")
        acc = action.get("accept")
        if type(acc) is not bool:
            raise IllegalAction("accept must be true or false, not %s" % _short(acc))
        if acc:
            _must_hold(state.studios[seat], state.offer[2], "you cannot accept: you have")
        return {"do": "answer", "accept": acc}
    if seat != state.actor:
        raise IllegalAction("it is seat %d's turn, not yours" % state.actor)
    if state.step == "dusk":
        cid = state.market[0]
        ds = diamond_squares(cid)
        if do != "diamonds":
            raise IllegalAction('it is the end of the day: choose the colour of each diamond of %s, '
                                '{"do": "diamonds", "colours": [%d letters]}' % (card_title(cid), len(ds)))
        _keys(action, ("do", "colours"), "diamonds")
        cols = action.get("colours")
        if not isinstance(cols, list) or len(cols) != len(ds):
            raise IllegalAction("colours must be a list of %s, one per diamond of %s in square order, not %s"
                                % (_plural(len(ds), "colour letter"), card_title(cid), _short(cols)))
        out = []
        for i, raw in zip(ds, cols):
            col = _colour(raw, "the colour of diamond %d of %s" % (i, card_title(cid)))
            if COLOURS[col] not in CARDS[cid].squares[i]:
                raise IllegalAction("diamond %d of %s is %s, not %s" % (
                    i, card_title(cid), " or ".join(COLOUR_NAME[c] for c in CARDS[cid].squares[i]),
                    COLOUR_NAME[COLOURS[col]]))
            out.append(COLOURS[col])
        return {"do": "diamonds", "colours": out}
    if do == "diamonds":
        raise IllegalAction("diamonds are chosen at the solo end of the day only")
    if state.step == "turn":
        if do in ("answer", "sell", "take"):
            raise IllegalAction("it is your %s turn: work, buy or paint (and maybe one free action), not %s"
                                % (state.phase, do))
        if do in FREE:
            return _check_free(state, seat, action)
        main = _check_main(state, seat, action)
        then = action.get("then")
        if then is not None:
            if not isinstance(then, dict) or then.get("do") not in FREE:
                raise IllegalAction("then must be a free action (trade, reset, study or offer), not %s"
                                    % _short(then))
            if state.free_used[seat]:
                raise IllegalAction("you already used your free action today")
            after = _after_main(state, seat, main)
            main["then"] = _check_free(after, seat, then, after_main=True)
        return main
    if state.step == "announce":
        if do != "sell":
            raise IllegalAction('it is night: announce your sales, {"do": "sell", "canvases": [ids]} '
                                "(an empty list sells nothing)")
        _keys(action, ("do", "canvases", "supper"), "sell")
        ids = action.get("canvases", [])
        if ids is None:
            ids = []
        if not isinstance(ids, list):
            raise IllegalAction("canvases must be a list of canvas ids, not %s" % _short(ids))
        mine = {cid: f for cid, f in state.canvases[seat]}
        out = []
        for raw in ids:
            cid = _card_id(raw, "a canvas to sell")
            if cid not in mine:
                raise IllegalAction("canvas %d (%s) is not one of your canvases" % (cid, card_title(cid)))
            if cid in out:
                raise IllegalAction("canvas %s is listed twice" % card_title(cid))
            if not is_complete(mine[cid]):
                raise IllegalAction("canvas %s is not complete" % card_title(cid))
            out.append(cid)
        sup = action.get("supper")
        if sup is not None:
            if not state.config["last_supper"]:
                raise IllegalAction("the Last Supper option is off at this table")
            cid = _card_id(sup, "supper")
            if state.nutrition[seat] != 1:
                raise IllegalAction("the Last Supper is only for an artist at nutrition 1 (you have %d)"
                                    % state.nutrition[seat])
            if cid not in mine:
                raise IllegalAction("canvas %d (%s) is not one of your canvases" % (cid, card_title(cid)))
            if not is_complete(mine[cid]):
                raise IllegalAction("canvas %s is not complete" % card_title(cid))
            if cid in out:
                raise IllegalAction("canvas %s cannot be both sold and eaten" % card_title(cid))
            fed = sum(CARDS[c].food for c in out)
            if fed:
                raise IllegalAction("the Last Supper is for an artist who would otherwise starve: tonight's "
                                    "sales raise your nutrition to %d" % min(MAX_NUTRITION, 1 + fed))
        return {"do": "sell", "canvases": out, "supper": sup}
    # collect
    if do != "take":
        raise IllegalAction('it is your collection action: {"do": "take", "cubes": {...}}')
    _keys(action, ("do", "cubes"), "take")
    entry = state.collection[state.coll_next]
    k = _take_amount(state, entry)
    got = _cubes(action.get("cubes"), "the cubes you take for %s" % card_title(entry[1]), k, k)
    if got[WILD] > 1:
        raise IllegalAction("take at most one wild cube per collection action")
    _must_hold(state.paint_market, got, "the Paint Market has")
    return {"do": "take", "cubes": cubes_map(got)}


def _after_main(state: State, seat: int, main: dict) -> _After:
    a = _After(state)
    _do_main(a, seat, main)
    return a


def check(state: State, seat: int, action: Any) -> dict:
    """Validate a raw action; return it normalised or raise IllegalAction with a sentence."""
    try:
        out = Checked(_check(state, seat, action))
    except IllegalAction:
        raise
    except Exception as exc:  # a hostile value we did not foresee: refuse it, never crash
        raise IllegalAction("malformed action (%s)" % type(exc).__name__) from None
    out._for = weakref.ref(state)
    return out


def problems(state: State, seat: int, action: Any) -> list[str]:
    """What ``check`` would refuse, as sentences (empty = legal)."""
    try:
        check(state, seat, action)
    except IllegalAction as exc:
        return [str(exc)]
    return []


# --------------------------------------------------------------------------
# applying actions


def _do_main(w: _W, seat: int, a: Mapping) -> None:
    do = a["do"]
    if do == "work":
        w.pending.append(("cubes", seat, 3))
        w.event("seat %d works (3 cubes from the bag, arriving after the turn)" % seat)
    elif do == "buy":
        slot = a["slot"]
        pay = counts_of(a["pay"])
        cid = w.market[slot - 1]
        _sub(w.studios[seat], pay)
        _pay(w, pay)            # the payment first, then the flip into slot 3 (decision 23, both editions)
        w.canvases[seat].append((cid, "." * CARDS[cid].size))
        w.market[slot - 1] = -1
        w.event("seat %d buys %s from slot %d for %s" % (seat, card_title(cid), slot, cube_words(pay)))
        _shift_market(w)
    else:
        cs = w.canvases[seat]
        idx = {cid: i for i, (cid, _) in enumerate(cs)}
        studio = w.studios[seat]
        for cid, sq, col in a["place"]:
            i = idx[cid]
            f = cs[i][1]
            cs[i] = (cid, f[:sq] + col + f[sq + 1:])
            studio[CI[col]] -= 1
        w.event("seat %d paints %s" % (seat, ", ".join("%s on square %d of %s" % (col, sq, card_title(cid))
                                                       for cid, sq, col in a["place"])))


def _do_free(w: _W, seat: int, a: Mapping, ends_turn: bool) -> None:
    do = a["do"]
    w.free_used[seat] = True
    if do == "trade":
        give, take = counts_of(a["give"]), counts_of(a["take"])
        _sub(w.studios[seat], give)
        _add(w.studios[seat], take)
        _sub(w.paint_market, take)
        _add(w.paint_market, give)
        w.event("seat %d trades %s for %s with the Paint Market" % (seat, cube_words(give), cube_words(take)))
        _junior_overflow(w)
    elif do == "reset":
        pay = counts_of(a["pay"])
        _sub(w.studios[seat], pay)
        _pay(w, pay)
        if _pending_flips(w.pending):
            # after a buy in the same move: its new card is turned over first, then discarded with the rest
            w.pending.append(("reset",))
        else:
            gone = [c for c in w.market if c != -1]
            w.discarded.extend(gone)
            w.market = [-1, -1, -1]
        for slot in (1, 2, 3):
            _queue_flip(w, slot)
        w.event("seat %d pays %s to reset the canvas market" % (seat, cube_words(pay)))
    elif do == "study":
        g, t = CI[a["give"]], CI[a["take"]]
        w.studios[seat][g] -= 4
        w.paint_market[g] += 4
        w.bag[t] -= 1
        w.studios[seat][t] += 1
        w.event("seat %d studies colour: 4 %s to the Paint Market, 1 %s from the bag"
                % (seat, a["give"], a["take"]))
        _junior_overflow(w)
    else:
        give, take = counts_of(a["give"]), counts_of(a["take"])
        w.offer = (seat, give, take, ends_turn)
        w.answers = [None] * w.players
        w.step = "answer"
        w.event("seat %d offers %s for %s to the other artists" % (seat, cube_words(give), cube_words(take)))


def _resolve_offer(w: _W) -> None:
    off, give, take, ends_turn = w.offer
    n = w.players
    partner = -1
    for k in range(1, n):
        s = (off + k) % n
        if w.alive[s] and w.answers[s] and all(w.studios[s][i] >= take[i] for i in range(8)):
            partner = s
            break
    if partner >= 0:
        _sub(w.studios[off], give)
        _add(w.studios[partner], give)
        _sub(w.studios[partner], take)
        _add(w.studios[off], take)
        w.event("seat %d accepts seat %d's offer: %s for %s" % (partner, off, cube_words(give), cube_words(take)))
    else:
        w.event("no one accepts seat %d's offer" % off)
    w.offer = None
    w.answers = [None] * n
    w.step = "turn"
    w.actor = off
    if ends_turn:
        _end_turn(w)


def apply(state: State, seat: int, action: Any) -> State:
    ref = getattr(action, "_for", None) if type(action) is Checked else None
    if ref is None or ref() is not state:
        action = check(state, seat, action)
    return apply_unchecked(state, seat, action)


def apply_unchecked(state: State, seat: int, action: Mapping) -> State:
    """Apply a normalised action known to be legal in ``state`` (from ``check`` or
    ``legal_actions`` of this very state).  For bots' search; the table uses ``apply``."""
    w = _W(state)
    do = action["do"]
    if do in MAIN:
        _do_main(w, seat, action)
        then = action.get("then")
        if then is not None:
            _do_free(w, seat, then, ends_turn=True)
        if then is None or then["do"] != "offer":
            _end_turn(w)
    elif do in FREE:
        _do_free(w, seat, action, ends_turn=False)
    elif do == "answer":
        w.answers[seat] = action["accept"]
        if all(w.answers[s] is not None for s in answerers(state)):
            _resolve_offer(w)
    elif do == "sell":
        sup = action.get("supper")
        w.announced.append((seat, tuple(action["canvases"]), -1 if sup is None else sup))
        if action["canvases"] or sup is not None:
            w.event("seat %d announces %s%s" % (
                seat, " and ".join(card_title(c) for c in action["canvases"]) or "no sale",
                "; Last Supper: %s" % card_title(sup) if sup is not None else ""))
        else:
            w.event("seat %d sells nothing tonight" % seat)
        _after_announce(w, seat)
    elif do == "take":
        _do_take(w, w.coll_next, counts_of(action["cubes"]))
        _collect_next(w)
    elif do == "diamonds":
        w.event("seat %d paints the diamonds of %s %s" % (seat, card_title(w.market[0]), ", ".join(action["colours"])))
        _solo_end_of_day(w, action["colours"])
        _close_day(w)
    else:  # pragma: no cover - check refuses it
        raise IllegalAction("unknown action")
    return w.freeze()


# --------------------------------------------------------------------------
# defaults, legal actions


def _need_counts(state: State, seat: int) -> list[int]:
    """Cubes per colour the seat's canvases still need beyond its studio (diamonds count for both)."""
    need = [0] * 8
    for cid, f in state.canvases[seat]:
        for sq in needs_of(CARDS[cid], f):
            for c in sq:
                need[CI[c]] += 1
    have = state.studios[seat]
    return [max(0, need[i] - have[i]) for i in range(8)]


def best_take(market: Sequence[int], k: int, need: Sequence[int]) -> tuple[int, ...]:
    """A deterministic good pick of k cubes: needed colours first (COLOURS order), then one wild,
    then the most plentiful colours."""
    m = list(market)
    deficit = list(need)
    got = [0] * 8
    for _ in range(k):
        pick = -1
        for i in range(WILD):
            if deficit[i] > 0 and m[i] > 0:
                pick = i
                break
        if pick < 0 and got[WILD] == 0 and m[WILD] > 0:
            pick = WILD
        if pick < 0:
            best = 0
            for i in range(WILD):
                if m[i] > best:
                    best, pick = m[i], i
        if pick < 0:
            break
        m[pick] -= 1
        got[pick] += 1
        if pick != WILD:
            deficit[pick] -= 1
    return tuple(got)


def default_action(state: State, seat: int) -> dict:
    if state.step == "dusk":
        return {"do": "diamonds", "colours": default_diamonds(state.paint_market, state.market[0])}
    if state.step == "answer":
        return {"do": "answer", "accept": False}
    if state.step == "announce":
        return {"do": "sell", "canvases": [], "supper": None}
    if state.step == "collect":
        e = state.collection[state.coll_next]
        k = _take_amount(state, e)
        return {"do": "take", "cubes": cubes_map(best_take(state.paint_market, k, _need_counts(state, seat)))}
    return {"do": "work"}


def _spend(studio: Sequence[int], n: int, keep: Sequence[int]) -> tuple[int, ...] | None:
    """n cubes to pay, least useful first (colours not needed, then plentiful; wilds last)."""
    s = list(studio)
    out = [0] * 8
    for _ in range(n):
        best, pick = None, -1
        for i in range(8):
            if s[i] <= 0:
                continue
            key = (i == WILD, keep[i] > 0, -(s[i] - keep[i]))
            if best is None or key < best:
                best, pick = key, i
        if pick < 0:
            return None
        s[pick] -= 1
        out[pick] += 1
    return tuple(out)


def _greedy_paint(state: State, seat: int, only: int | None = None) -> list[list]:
    """Up to 4 placements from the studio, canvases nearest completion first."""
    studio = list(state.studios[seat])
    cs = sorted(state.canvases[seat], key=lambda cf: cf[1].count("."))
    out: list[list] = []
    for cid, f in cs:
        if only is not None and cid != only:
            continue
        card = CARDS[cid]
        wild = "W" in f
        for sq, ch in enumerate(f):
            if len(out) >= 4:
                return out
            if ch != ".":
                continue
            for c in card.squares[sq]:
                if studio[CI[c]] > 0:
                    studio[CI[c]] -= 1
                    out.append([cid, sq, c])
                    break
            else:
                if not wild and studio[WILD] > 0:
                    studio[WILD] -= 1
                    wild = True
                    out.append([cid, sq, "W"])
    return out


def legal_actions(state: State, seat: int) -> list[dict]:
    """A representative list of legal actions for ``seat`` (every kind that is legal appears;
    paint, trade, take may be a sample).  Empty if the seat has nothing to decide."""
    t = turn(state)
    if t.kind in ("over", "chance") or seat not in t.seats:
        return []
    if state.step == "answer":
        out = [{"do": "answer", "accept": False}]
        if all(state.studios[seat][i] >= state.offer[2][i] for i in range(8)):
            out.append({"do": "answer", "accept": True})
        return out
    if state.step == "collect":
        e = state.collection[state.coll_next]
        k = _take_amount(state, e)
        return [{"do": "take", "cubes": cubes_map(o)} for o in take_options(state.paint_market, k)]
    if state.step == "dusk":
        return [{"do": "diamonds", "colours": c} for c in diamond_outcomes(state.paint_market, state.market[0]).values()]
    if state.step == "announce":
        done = [cid for cid, f in state.canvases[seat] if is_complete(f)]
        opts = [[], done] + ([[c] for c in done] if len(done) > 1 else [])
        out = [{"do": "sell", "canvases": list(o), "supper": None} for o in opts]
        if state.config["last_supper"] and state.nutrition[seat] == 1:
            for c in done:
                out.append({"do": "sell", "canvases": [], "supper": c})
                rest = [d for d in done if d != c]
                if rest:
                    out.append({"do": "sell", "canvases": rest, "supper": c})
        return out
    # a turn
    studio = state.studios[seat]
    need = _need_counts(state, seat)
    out: list[dict] = [{"do": "work"}]
    cost_of = (lambda slot: 1) if state.config["edition"] == "junior" else (lambda slot: slot)
    for slot in (1, 2, 3):
        if state.market[slot - 1] != -1:
            pay = _spend(studio, cost_of(slot), need)
            if pay is not None:
                out.append({"do": "buy", "slot": slot, "pay": cubes_map(pay)})
    paints = []
    allp = _greedy_paint(state, seat)
    if allp:
        paints.append(allp)
    for cid, _ in state.canvases[seat]:
        p = _greedy_paint(state, seat, only=cid)
        if p and p != allp:
            paints.append(p)
        if p:
            paints.append(p[:1])
    seen = set()
    for p in paints:
        key = repr(p)
        if key not in seen:
            seen.add(key)
            out.append({"do": "paint", "place": [list(x) for x in p]})
    if not state.free_used[seat]:
        pm = state.paint_market
        total = sum(studio)
        for give_n, take_n in TRADE_RATES.items():
            if total >= give_n and sum(pm[:WILD]) >= take_n:
                give = _spend(studio, give_n, need)
                take = best_take([pm[i] if i != WILD else 0 for i in range(8)], take_n, need)
                if give is not None and sum(take) == take_n:
                    out.append({"do": "trade", "give": cubes_map(give), "take": cubes_map(take)})
        if total >= 2 and state.deck:
            out.append({"do": "reset", "pay": cubes_map(_spend(studio, 2, need))})
        if state.config["color_study"]:
            gs = [i for i in range(8) if studio[i] >= 4]
            if gs:
                ts = [i for i in range(8) if state.bag[i] > 0 and need[i] > 0] or \
                     [i for i in range(8) if state.bag[i] > 0]
                if ts:
                    out.append({"do": "study", "give": COLOURS[gs[0]], "take": COLOURS[ts[0]]})
        if state.config["player_trades"] and total >= 1 and any(
                state.alive[o] for o in range(state.players) if o != seat):
            give = _spend(studio, 1, need)
            want = [i for i in range(WILD) if need[i] > 0] or [CI["B"]]
            out.append({"do": "offer", "give": cubes_map(give), "take": {COLOURS[want[0]]: 1}})
        # a main action carrying its free action in "then"
        frees = [a for a in out if a["do"] in FREE]
        mains = [a for a in out if a["do"] in MAIN]
        for f in frees:
            for m in (mains[0], mains[-1]):
                cand = dict(m, then=f)
                try:
                    out.append(dict(_check(state, seat, cand)))
                    break
                except IllegalAction:
                    continue
    return out


# --------------------------------------------------------------------------
# views and results


def _canvas_view(cid: int, filled: str) -> dict:
    return {"id": cid, "card": CARDS[cid].to_view(),
            "filled": [None if ch == "." else ch for ch in filled], "complete": is_complete(filled)}


def _pending_view(op: tuple) -> dict:
    k = op[0]
    if k == "cubes":
        return {"kind": "cubes", "seat": op[1], "n": op[2]}
    if k == "market":
        return {"kind": "market", "n": op[1]}
    if k == "canvas":
        return {"kind": "canvas", "slot": op[1]}
    if k == "return":
        return {"kind": "return", "cubes": cubes_map(op[1])}
    if k == "reset":
        return {"kind": "reset"}
    return {"kind": "studio", "seat": op[1]}


def view(state: State, seat: int | None) -> dict:
    n = state.players
    cfg = state.config
    t = turn(state)
    cost = [1, 1, 1] if cfg["edition"] == "junior" else [1, 2, 3]
    v: dict[str, Any] = {
        "game": NAME,
        "edition": cfg["edition"],
        "options": dict(cfg),
        "players": n,
        "me": seat if type(seat) is int and 0 <= seat < n else None,
        "day": state.day,
        "phase": state.phase,
        "step": state.step,
        "label": t.label if t.kind != "over" else "game over",
        "waiting": list(t.seats) if t.kind in ("sequential", "simultaneous") else [],
        "chance": t.kind == "chance",
        "first": state.first,
        "turn": state.actor if state.actor >= 0 else None,
        "alive": list(state.alive),
        "nutrition": list(state.nutrition),
        "score": list(state.score),
        "food_earned": list(state.food_earned),
        "sold": [len(x) for x in state.sold],
        "gallery": [list(x) for x in state.sold],
        "studios": [cubes_map(x) for x in state.studios],
        "incoming": incoming(state),
        "canvases": [[_canvas_view(cid, f) for cid, f in cs] for cs in state.canvases],
        "market": [None if c == -1 else CARDS[c].to_view() for c in state.market],
        "market_costs": cost,
        "paint_market": cubes_map(state.paint_market),
        "bag": cubes_map(state.bag),
        "pending": [_pending_view(op) for op in state.pending],
        "deck": len(state.deck),
        "discarded": list(state.discarded),
        "free_used": list(state.free_used),
        "offer": None if state.offer is None else {
            "seat": state.offer[0], "give": cubes_map(state.offer[1]), "take": cubes_map(state.offer[2]),
            "ends_turn": state.offer[3],
            "answers": [a for a in state.answers],
        },
        "announced": [{"seat": s, "canvases": list(ids), "supper": None if sup == -1 else sup}
                      for s, ids, sup in state.announced],
        "collection": {
            "queue": [{"seat": e[0], "canvas": e[1], "paint": CARDS[e[1]].paint, "owed": e[2], "per": e[3]}
                      for e in state.collection],
            "next": state.coll_next if state.step == "collect" else None,
            "amount": _take_amount(state, state.collection[state.coll_next]) if state.step == "collect" else None,
        },
        "targets": list(TARGETS[n]) if n in TARGETS else None,
        "dusk": None if state.step != "dusk" or state.market[0] == -1 else {
            "canvas": state.market[0], "diamonds": diamond_squares(state.market[0]),
            "default": default_diamonds(state.paint_market, state.market[0]),
            "returns": {"".join(c): cubes_map(r) for r, c in diamond_outcomes(state.paint_market, state.market[0]).items()},
        },
        "starve_day": state.starve_day or None,
        "end_reason": state.end_reason or None,
        "objectives": [{"seat": s, "objective": o, "day": d} for s, o, d in state.met],
        "events": [text for _, text in state.events],
        "event_days": [d for d, _ in state.events],
    }
    res = result(state)
    if res is not None:
        v["result"] = res
    return v


def state_from_view(v: Mapping[str, Any], rng: Rng) -> State:
    """A full State consistent with a view: the unseen deck is drawn at random from the cards no one
    has seen (so every state a seat cannot tell apart from the real one is possible).  Pending draws
    stay pending (nothing is known about them); ``chance`` resolves them with any entropy."""
    n = v["players"]
    cfg = dict(v["options"])
    seen = set()
    for c in v["market"]:
        if c is not None:
            seen.add(c["id"])
    for cs in v["canvases"]:
        for c in cs:
            seen.add(c["id"])
    for g in v["gallery"]:
        seen.update(g)
    seen.update(v["discarded"])
    pool = [c.id for c in CARDS if c.id not in seen and not (n == 1 and cfg["remove_comics"] and c.stars == 0)]
    rng.shuffle(pool)
    deck = tuple(sorted(pool[: v["deck"]]))
    pend = []
    for p in v["pending"]:
        k = p["kind"]
        if k == "cubes":
            pend.append(("cubes", p["seat"], p["n"]))
        elif k == "market":
            pend.append(("market", p["n"]))
        elif k == "canvas":
            pend.append(("canvas", p["slot"]))
        elif k == "return":
            pend.append(("return", counts_of(p["cubes"])))
        elif k == "reset":
            pend.append(("reset",))
        else:
            pend.append(("studio", p["seat"]))
    off = v["offer"]
    coll = v["collection"]
    phase = v["phase"]
    step = v["step"]
    return State(
        config=cfg, players=n, day=v["day"], phase=phase, step=step, first=v["first"],
        actor=-1 if v["turn"] is None else v["turn"], alive=tuple(v["alive"]),
        nutrition=tuple(v["nutrition"]), score=tuple(v["score"]), food_earned=tuple(v["food_earned"]),
        sold=tuple(tuple(g) for g in v["gallery"]),
        studios=tuple(counts_of(m) for m in v["studios"]),
        canvases=tuple(tuple((c["id"], "".join("." if x is None else x for x in c["filled"])) for c in cs)
                       for cs in v["canvases"]),
        market=tuple(-1 if c is None else c["id"] for c in v["market"]),
        paint_market=counts_of(v["paint_market"]), bag=counts_of(v["bag"]), deck=deck,
        discarded=tuple(v["discarded"]), pending=tuple(pend), free_used=tuple(v["free_used"]),
        offer=None if off is None else (off["seat"], counts_of(off["give"]), counts_of(off["take"]), off["ends_turn"]),
        answers=tuple(off["answers"]) if off is not None else (None,) * n,
        announced=tuple((a["seat"], tuple(a["canvases"]), -1 if a["supper"] is None else a["supper"])
                        for a in v["announced"]),
        collection=tuple((e["seat"], e["canvas"], e["owed"], e["per"]) for e in coll["queue"]),
        coll_next=coll["next"] if coll["next"] is not None else 0,
        starve_day=v["starve_day"] or 0, end_reason=v["end_reason"] or "",
        events=tuple(zip(v.get("event_days") or [v["day"]] * len(v["events"]), v["events"])),
        met=tuple((m["seat"], m["objective"], m["day"]) for m in v.get("objectives") or ()),
    )


def determinize(state: State, seat: int | None, rng: Rng) -> State:
    """A state ``seat`` cannot tell from ``state``: the deck's cards resampled from the unseen ones."""
    return state_from_view(view(state, seat), rng)


def decided_by(state: State) -> str:
    """How the winner is chosen (rulebook "End of the Game", decision 27): "objective" when one seat
    alone met an objective (it wins, even with fewer points), "tie" when two or more seats met one
    in the same night (points decide among them, then paintings sold, food earned, unused cubes),
    "points" when none was met (every seat by points, ...), "solo" for the solo game."""
    if state.players == 1:
        return "solo"
    seats = {s for s, _, _ in state.met}
    if not seats:
        return "points"
    return "objective" if len(seats) == 1 else "tie"


def result(state: State) -> dict | None:
    if state.phase != "over":
        return None
    n = state.players
    inc = incoming(state)
    cubes = [sum(state.studios[s]) + inc[s] if state.alive[s] else 0 for s in range(n)]
    sold = [len(x) for x in state.sold]
    how = decided_by(state)
    met = {s for s, _, _ in state.met}
    # the seats that met an objective come first (all seats when none did), then the others; within
    # each group: points, paintings sold, food earned, unused cubes (more is better); equal on all
    # four shares the place
    keys = [(0 if (s in met or not met) else -1, state.score[s], sold[s], state.food_earned[s], cubes[s])
            for s in range(n)]
    ranking = sorted(range(n), key=lambda s: (tuple(-x for x in keys[s]), s))
    places = [1 + sum(1 for o in range(n) if keys[o] > keys[s]) for s in range(n)]
    out: dict[str, Any] = {
        "ranking": ranking,
        "places": places,
        "points": list(state.score),
        "sold": sold,
        "food": list(state.food_earned),
        "cubes": cubes,
        "starved": [not a for a in state.alive],
        "winners": [s for s in ranking if places[s] == 1],
        "reason": state.end_reason,
        "days": state.day,
        "objectives": [{"seat": s, "objective": o, "day": d} for s, o, d in state.met],
        "decided_by": how,
    }
    if n == 1:
        out["rating"] = solo_rating(state.score[0])
    return out


# --------------------------------------------------------------------------
# describe


def _map_words(m: Any) -> str:
    if not isinstance(m, dict):
        return "?"
    try:
        parts = []
        for c in COLOURS:
            k = m.get(c, 0)
            if type(k) is int and k > 0:
                parts.append("%d %s" % (k, c) if k > 1 else c)
        return ", ".join(parts) or "nothing"
    except Exception:
        return "?"


def _title(x: Any) -> str:
    if type(x) is int and 0 <= x < len(CARDS):
        return card_title(x)
    return "canvas %s" % _short(x)


def describe(state: State, seat: int, action: Any) -> str:
    who = "seat %s" % _short(seat)
    if not isinstance(action, dict):
        return "%s: unreadable action %s" % (who, _short(action))
    try:
        return who + " " + _describe(state, action)
    except Exception:
        return "%s: unreadable action %s" % (who, _short(action))


def _describe(state: State, a: dict) -> str:
    do = a.get("do")
    text: str
    if do == "work":
        text = "works: 3 cubes from the bag"
    elif do == "buy":
        slot = a.get("slot")
        cid = state.market[slot - 1] if type(slot) is int and 1 <= slot <= 3 else -1
        text = "buys %s from slot %s for %s" % (_title(cid) if cid != -1 else "a canvas", _short(slot),
                                                 _map_words(a.get("pay")))
    elif do == "paint":
        place = a.get("place") or []
        text = "paints " + "; ".join("%s on square %s of %s" % (p[2], p[1], _title(p[0])) for p in place)
    elif do == "trade":
        text = "trades %s for %s with the Paint Market" % (_map_words(a.get("give")), _map_words(a.get("take")))
    elif do == "reset":
        text = "resets the canvas market for %s" % _map_words(a.get("pay"))
    elif do == "study":
        text = "makes a colour study: 4 %s for 1 %s from the bag" % (a.get("give"), a.get("take"))
    elif do == "offer":
        text = "offers %s for %s to the other artists" % (_map_words(a.get("give")), _map_words(a.get("take")))
    elif do == "answer":
        text = "accepts the offer" if a.get("accept") is True else "declines the offer"
    elif do == "sell":
        ids = a.get("canvases") or []
        text = "sells " + " and ".join(_title(c) for c in ids) if ids else "sells nothing"
        if a.get("supper") is not None:
            text += "; Last Supper: " + _title(a.get("supper"))
    elif do == "take":
        text = "collects %s" % _map_words(a.get("cubes"))
    elif do == "diamonds":
        text = "paints the diamonds of the slot-1 canvas %s" % ", ".join(str(c) for c in a.get("colours") or [])
    else:
        return "unknown action %s" % _short(do)
    then = a.get("then")
    if isinstance(then, dict):
        text += ", then " + _describe(state, then)
    return text
