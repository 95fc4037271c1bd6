"""State-building helpers for the Starving Artists rules tests (tests/test_starving_rules.py).

Scenarios start from a real ``rules.setup(...)`` state and ``dataclasses.replace`` its fields;
they are then driven only through ``check`` / ``apply`` / ``chance`` (chance with fixed 32-byte
entropy), never by poking the engine's internals.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterable, Sequence

from core.games.starving_artists import rules
from core.games.starving_artists.cards import CARDS

ALL_CARDS = frozenset(range(len(CARDS)))
COLOURS = rules.COLOURS


def seed(k: int) -> bytes:
    """A fixed 32-byte setup seed."""
    return b"sa-rules" + k.to_bytes(4, "big") + bytes(20)


def ent(k: int) -> bytes:
    """Fixed 32-byte chance entropy."""
    return b"chance!!" + k.to_bytes(4, "big") + bytes(20)


def cubes(**kw: int) -> tuple[int, ...]:
    """8 colour counts in COLOURS order from letters: cubes(R=2, W=1)."""
    return rules.counts_of(kw)


def base(players: int = 3, first: int = 0, options: dict | None = None, k: int = 1, **fields) -> rules.State:
    """A real setup state with the first-player marker on ``first`` (its turn), no events,
    then ``fields`` replaced."""
    st = rules.setup(dict(options or {}), players, seed(k))
    st = replace(st, first=first, actor=first, events=())
    return replace(st, **fields) if fields else st


def at(tup: Sequence, seat: int, value) -> tuple:
    """``tup`` with item ``seat`` replaced by ``value``."""
    out = list(tup)
    out[seat] = value
    return tuple(out)


def card_where(pred: Callable, avoid: Iterable[int] = ()) -> int:
    avoid = set(avoid)
    for c in CARDS:
        if c.id not in avoid and pred(c):
            return c.id
    raise AssertionError("no card fits the test's needs")


def cards_where(pred: Callable, n: int, avoid: Iterable[int] = ()) -> list[int]:
    avoid = set(avoid)
    out = [c.id for c in CARDS if c.id not in avoid and pred(c)][:n]
    assert len(out) == n, "not enough cards fit the test's needs"
    return out


def full(cid: int) -> str:
    """A complete ``filled`` string for card ``cid`` (first colour of each square)."""
    return "".join(sq[0] for sq in CARDS[cid].squares)


def empty(cid: int) -> str:
    return "." * CARDS[cid].size


def out_of_deck(st: rules.State, ids: Iterable[int]) -> tuple[int, ...]:
    ids = set(ids)
    return tuple(c for c in st.deck if c not in ids)


def with_canvases(st: rules.State, per_seat: dict) -> rules.State:
    """Give seats canvases {seat: [(card id, filled), ...]}; the cards leave deck and market
    (market slots holding one are refilled from the deck so the market stays full)."""
    ids = {cid for items in per_seat.values() for cid, _ in items}
    cv = list(st.canvases)
    for seat, items in per_seat.items():
        cv[seat] = tuple(items)
    deck = [c for c in st.deck if c not in ids]
    market = list(st.market)
    for i, c in enumerate(market):
        if c in ids:
            market[i] = deck.pop(0)
    return replace(st, canvases=tuple(cv), deck=tuple(deck), market=tuple(market))


def night(st: rules.State, first: int | None = None) -> rules.State:
    """``st`` moved to the night's announcements: the announce step of the first seat, clockwise
    from the first player, holding a complete canvas (as the engine's own night start does)."""
    f = st.first if first is None else first
    order = rules.order_from(f, st.alive)
    for s in order:
        if any(rules.is_complete(x) for _, x in st.canvases[s]):
            return replace(st, first=f, phase="night", step="announce", actor=s, announced=())
    raise AssertionError("nobody has a complete canvas")


def total_cubes(st: rules.State) -> int:
    held = sum(sum(x) for x in st.studios)
    on = sum(len(f) - f.count(".") for cs in st.canvases for _, f in cs)
    return sum(st.bag) + sum(st.paint_market) + held + on


def settle(st: rules.State, k: int = 0) -> rules.State:
    """Resolve a pending chance turn (if ``turn`` asks for one) with fixed entropy."""
    t = rules.turn(st)
    if t.kind == "chance":
        st = rules.chance(st, ent(k))
    return st


def run(st: rules.State, policy: Callable | None = None, until: Callable | None = None,
        max_steps: int = 2000, k: int = 0) -> rules.State:
    """Drive the game: chance turns get fixed entropy; decisions come from ``policy(st, seat)``
    (default: the engine's default action) until ``until(st)`` or the game is over."""
    for i in range(max_steps):
        if until is not None and until(st):
            return st
        t = rules.turn(st)
        if t.kind == "over":
            return st
        if t.kind == "chance":
            st = rules.chance(st, ent(k + i))
            continue
        for s in t.seats:
            act = policy(st, s) if policy else None
            if act is None:
                act = rules.default_action(st, s)
            st = rules.apply(st, s, act)
            if t.kind == "sequential":
                break
    raise AssertionError("the game did not reach the expected point in %d steps" % max_steps)


def collect_log(st: rules.State) -> list[tuple[int, int]]:
    """(seat, number of cubes) of every collection action in the events, in order."""
    out = []
    for _, text in st.events:
        if " collects " in text:
            seat = int(text.split()[1])
            got = text.split(" collects ", 1)[1].rsplit(" for ", 1)[0]
            out.append((seat, 0 if got == "nothing" else len(got.split(", "))))
    return out


def sell_all(st: rules.State, seat: int) -> dict:
    return {"do": "sell", "canvases": [c for c, f in st.canvases[seat] if rules.is_complete(f)]}
