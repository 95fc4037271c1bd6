"""Starving Artists: the state and what every room of the rules shares (the constants, the frozen
``State`` and its scratch copy ``_W``, the cube arithmetic, the market's flips and the checks of a
value).  Pure, as all of the rules (rules.py says how the rooms fit together)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Iterable, Mapping, Sequence

from ...engine import IllegalAction
from ...rng import Rng
from ..common import short as _short
from .cards import CARDS, Card

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


def _shift_market(w: _W) -> None:
    """Cards slide toward slot 1; each empty slot waits for a flip."""
    cards = [c for c in w.market if c != -1]
    flips = [op for op in w.pending if op[0] == "canvas"]
    w.pending = [op for op in w.pending if op[0] != "canvas"] if flips else w.pending
    w.market = cards + [-1] * (3 - len(cards))
    for slot in range(len(cards) + 1, 4):
        _queue_flip(w, slot)


# --------------------------------------------------------------------------
# the checks of a value (every step's check uses them)


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
