"""Starving Artists: the night.  The announcements clockwise from the first player, the sales (food,
cubes back to the bag, stars), the objectives judged over the whole night, then getting paid: the
collection actions from the Paint Market in paint-value order; then the day ends (dawn.py)."""

from __future__ import annotations

from typing import Sequence

from .cards import CARDS
from .dawn import _close_day, _dusk, _note_objectives
from .state import (MAX_NUTRITION, WILD, State, _W, _add, _filled_counts, _plural, _sub, _to_bag, card_title,
                    cube_words, is_complete, order_from)

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
