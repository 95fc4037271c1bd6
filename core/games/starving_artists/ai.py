"""Stronger Starving Artists bots.  Each sees only ``view(state, seat)``.

* ``HeuristicBot``: plans the canvases it can finish.  It matches its studio
  against the empty squares of its canvases (closest to completion first, one
  wild per canvas), paints the cubes that help (completing a canvas first),
  buys canvases that are cheap to finish for what they bring (stars, food,
  paint), works when it is short of cubes, trades surplus colours for needed
  ones with the Paint Market (resets the canvas market only when nothing there
  is worth buying), sells every complete canvas at night, picks collection
  cubes by need and accepts player trades that help it.
  It plans its food: the *deadline* is the number of main actions left before
  the last night whose sales still feed it (this day's turns + 2 x (nutrition
  - 1), tonight's sales counted); the *food project* is its food-bearing
  canvas quickest to finish, estimated as paint actions (empty squares / 4)
  plus getting the cubes its studio lacks (one by the day's trade if the
  Paint Market has it, the rest by work at the bag's odds).  When the
  estimate comes within ``FOOD_MARGIN`` actions of the deadline, or its sale
  would leave fewer than ``FOOD_NEXT`` actions for the next one (or it owns no
  food canvas and the deadline is near), it works for that canvas alone: buys
  a quicker food canvas if the market has one, trades for the project's
  colours, paints it, works for its missing cubes rather than painting other
  canvases, and resets the canvas market if nothing can feed it in time.

* ``SearchBot``: determinized Monte-Carlo search.  For a turn decision it
  takes a few candidate actions (the heuristic's choice, the food plan's, its
  variants, and one of each kind ``rules.legal_actions`` offers), then for each of several
  determinizations (a state rebuilt from the view with ``state_from_view``:
  the unseen deck and the pending draws are sampled) plays every seat with the
  heuristic for a few days and scores the outcome (place first, then score
  margin, with canvases in progress and nutrition counted at the horizon).
  The same determinizations and chance entropy serve every candidate (common
  random numbers).  Rollouts are capped by count, never by a clock.

Both bots work on a ``State`` rebuilt from the view, pass their choice
through ``rules.check`` and fall back to ``rules.default_action`` if it is
refused.  Pure: no clock, no ``random``; randomness only from the ``Rng``.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...engine import IllegalAction
from ...rng import Rng
from ..common import entropy_from
from . import rules
from .cards import CARDS
from .rules import COLOURS, State, apply_unchecked, state_from_view

__all__ = ["HeuristicBot", "SearchBot", "heuristic_action", "utility"]

WILD = 7
_CI = {c: i for i, c in enumerate(COLOURS)}
# per card: per square, the colour indices that fill it
_SQ: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(_CI[c] for c in sq) for sq in card.squares) for card in CARDS)
_BAG_SHARE = tuple(n / 150 for n in rules.BAG)
_TRADES = ((9, 3), (5, 2), (2, 1))
RESET_BELOW = 0.4   # reset the canvas market when the best canvas there scores below this


# --------------------------------------------------------------------------
# planning: what the studio covers on the seat's canvases


class _Plan:
    """The seat's canvases matched against its studio."""

    __slots__ = ("order", "assigned", "uncovered", "left", "desire", "deficit")

    def __init__(self, studio: Sequence[int], canvases: Sequence[tuple[int, str]], hungry: bool,
                 market: Sequence[int] = (), first: int = -1) -> None:
        inc = [(cid, f) for cid, f in canvases if "." in f]
        if hungry:
            inc.sort(key=lambda cf: (cf[0] != first, CARDS[cf[0]].food == 0, cf[1].count("."),
                                     -CARDS[cf[0]].food, -CARDS[cf[0]].stars, cf[0]))
        else:
            inc.sort(key=lambda cf: (cf[0] != first, cf[1].count("."), -CARDS[cf[0]].stars,
                                     -CARDS[cf[0]].food, cf[0]))
        self.order = inc
        left = list(studio)
        assigned: dict[int, list[tuple[int, int]]] = {}
        uncovered: dict[int, list[int]] = {}
        for cid, f in inc:
            sqs = _SQ[cid]
            a: list[tuple[int, int]] = []
            un: list[int] = []
            diam: list[int] = []
            for i, ch in enumerate(f):
                if ch != ".":
                    continue
                cols = sqs[i]
                if len(cols) == 1:
                    c = cols[0]
                    if left[c] > 0:
                        left[c] -= 1
                        a.append((i, c))
                    else:
                        un.append(i)
                else:
                    diam.append(i)
            for i in diam:
                x, y = sqs[i]
                c = x if left[x] >= left[y] else y
                if left[c] > 0:
                    left[c] -= 1
                    a.append((i, c))
                else:
                    un.append(i)
            if un and left[WILD] > 0 and "W" not in f:
                # the wild goes to the square whose colours are scarcest in the bag
                un.sort(key=lambda i: sum(rules.BAG[c] for c in sqs[i]))
                i = un.pop(0)
                left[WILD] -= 1
                a.append((i, WILD))
            assigned[cid] = a
            uncovered[cid] = un
        self.assigned = assigned
        self.uncovered = uncovered
        self.left = left
        # what each colour is worth to the seat now (collection picks, trades, payments)
        deficit = [0.0] * 8
        for cid, f in inc:
            for i in uncovered[cid]:
                cols = _SQ[cid][i]
                w = 1.0 / len(cols)
                for c in cols:
                    deficit[c] += w
        self.deficit = deficit
        desire = [0.15 + _BAG_SHARE[c] for c in range(8)]
        for c in range(7):
            desire[c] += 3.0 * deficit[c]
        wild_use = any(uncovered[cid] and "W" not in f for cid, f in inc)
        desire[WILD] = 2.5 if wild_use else 1.2
        for cid in market:
            if cid >= 0:
                for cols in _SQ[cid]:
                    for c in cols:
                        desire[c] += 0.05 / len(cols)
        self.desire = desire

    def covered(self) -> int:
        return sum(len(a) for a in self.assigned.values())

    def uncovered_total(self) -> int:
        return sum(len(u) for u in self.uncovered.values())

    def paint(self) -> tuple[list[list], list[int]]:
        """Up to 4 placements: whole canvases it can complete first, then progress
        (closest to completion first); a wild only where it completes a canvas."""
        plan: list[list] = []
        done: list[int] = []
        slots = 4
        for cid, f in self.order:
            a = self.assigned[cid]
            if a and not self.uncovered[cid] and len(a) <= slots:
                plan.extend([cid, i, COLOURS[c]] for i, c in a)
                slots -= len(a)
                done.append(cid)
        if slots:
            for cid, f in self.order:
                if cid in done:
                    continue
                for i, c in self.assigned[cid]:
                    if slots and c != WILD:
                        plan.append([cid, i, COLOURS[c]])
                        slots -= 1
        return plan, done


def _hungry(state: State, seat: int) -> bool:
    return state.nutrition[seat] <= 2


def _plan(state: State, seat: int, studio: Sequence[int] | None = None,
          canvases: Sequence[tuple[int, str]] | None = None) -> _Plan:
    return _Plan(state.studios[seat] if studio is None else studio,
                 state.canvases[seat] if canvases is None else canvases,
                 _hungry(state, seat), state.market)


def _pick(pool: Sequence[int], k: int, desire: Sequence[float], deficit: Sequence[float],
          best: bool, wild_ok: bool = True, max_wild: int = 8) -> list[int] | None:
    """k cubes from ``pool``: the most wanted (best=True) or the least wanted, greedily."""
    p = list(pool)
    d = list(deficit)
    got = [0] * 8
    for _ in range(k):
        pick, val = -1, 0.0
        for c in range(8):
            if p[c] <= 0 or (c == WILD and (not wild_ok or got[WILD] >= max_wild)):
                continue
            v = desire[c] if c == WILD else desire[c] - 3.0 * (deficit[c] - max(0.0, d[c]))
            if pick < 0 or (v > val if best else v < val):
                pick, val = c, v
        if pick < 0:
            return None
        p[pick] -= 1
        got[pick] += 1
        if pick != WILD:
            d[pick] -= 1
    return got


def _spend(studio: Sequence[int], keep: Sequence[int], n: int, desire: Sequence[float]) -> list[int] | None:
    """n cubes to pay: cubes not kept first (least wanted first), wilds last."""
    if sum(studio) < n:
        return None
    free = [max(0, studio[c] - keep[c]) for c in range(8)]
    out = [0] * 8
    for _ in range(n):
        pick, key = -1, None
        for c in range(8):
            if studio[c] - out[c] <= 0:
                continue
            k = (free[c] - out[c] <= 0, c == WILD, desire[c])
            if key is None or k < key:
                pick, key = c, k
        out[pick] += 1
    return out


def _cmap(counts: Sequence[int]) -> dict:
    return {COLOURS[i]: n for i, n in enumerate(counts) if n}


# --------------------------------------------------------------------------
# the heuristic


def _buy_options(state: State, seat: int, plan: _Plan,
                 need_food: bool = False) -> list[tuple[float, int, list[int], float]]:
    """(score, slot, pay, coverage share) for each affordable canvas in the market.

    ``need_food``: the seat has no food-bearing canvas it can finish in time, so
    food weighs as much as stars and a canvas without food is worth little."""
    studio = state.studios[seat]
    total = sum(studio)
    junior = state.config["edition"] == "junior"
    hungry = _hungry(state, seat) or need_food
    nut = state.nutrition[seat]
    out = []
    keep = [studio[c] - plan.left[c] for c in range(8)]
    for slot in (1, 2, 3):
        cid = state.market[slot - 1]
        if cid < 0:
            continue
        cost = 1 if junior else slot
        if total < cost:
            continue
        card = CARDS[cid]
        sqs = _SQ[cid]
        # pay with what the new canvas does not need, from the cubes no canvas uses
        need_new = [0] * 8
        for cols in sqs:
            for c in cols:
                need_new[c] += 1
        keep2 = [keep[c] + need_new[c] for c in range(8)]
        pay = _spend(studio, keep2, cost, plan.desire)
        if pay is None:
            continue
        left = [max(0, plan.left[c] - pay[c]) for c in range(8)]
        cov = 0
        wild = left[WILD] > 0
        diam = []
        for cols in sqs:
            if len(cols) == 1:
                if left[cols[0]] > 0:
                    left[cols[0]] -= 1
                    cov += 1
                elif wild:
                    wild = False
                    cov += 1
            else:
                diam.append(cols)
        for x, y in diam:
            c = x if left[x] >= left[y] else y
            if left[c] > 0:
                left[c] -= 1
                cov += 1
            elif wild:
                wild = False
                cov += 1
        size = card.size
        unc = size - cov
        fw = 1.3 if hungry else (0.7 if nut <= 3 else 0.45)
        value = card.stars + fw * card.food + 0.08 * card.paint
        if need_food and card.food == 0:
            value *= 0.3
        actions = 1.0 + (size + 3) // 4 + 0.8 * unc + cost / 3.0
        out.append((value / actions, slot, pay, cov / size))
    out.sort(key=lambda x: (-x[0], x[1]))
    return out


def _best_trade(state: State, seat: int, plan: _Plan, reserve: int) -> dict | None:
    """Surplus cubes for needed colours from the Paint Market (never a wild taken)."""
    if state.free_used[seat]:
        return None
    pm = list(state.paint_market)
    pm[WILD] = 0
    # the colours we would take, in the order of the canvases' uncovered squares
    wants: list[int] = []
    avail = list(pm)
    for cid, f in plan.order:
        for i in plan.uncovered[cid]:
            cols = _SQ[cid][i]
            c = max(cols, key=lambda c: avail[c])
            if avail[c] > 0:
                avail[c] -= 1
                wants.append(c)
    if not wants:
        return None
    surplus = list(plan.left)
    surplus[WILD] = 0
    spare = sum(surplus) - reserve
    for give_n, take_n in _TRADES:
        if spare >= give_n and len(wants) >= take_n:
            give = _pick(surplus, give_n, plan.desire, [0.0] * 8, best=False, wild_ok=False)
            if give is None:
                continue
            take = [0] * 8
            for c in wants[:take_n]:
                take[c] += 1
            return {"do": "trade", "give": _cmap(give), "take": _cmap(take)}
    return None


def _trade_on(studio: Sequence[int], trade: Mapping) -> list[int]:
    s = list(studio)
    for k, v in trade["give"].items():
        s[_CI[k]] -= v
    for k, v in trade["take"].items():
        s[_CI[k]] += v
    return s


def _other_free(state: State, seat: int, plan: _Plan) -> dict | None:
    """Colour study or a player-trade offer, when the market has none of what we need."""
    cfg = state.config
    if state.free_used[seat]:
        return None
    need = [c for c in range(7) if plan.deficit[c] >= 1.0]
    if not need:
        return None
    surplus = list(plan.left)
    surplus[WILD] = 0
    if cfg["color_study"]:
        give = [c for c in range(7) if surplus[c] >= 4]
        take = [c for c in need if state.bag[c] > 0]
        if give and take and not any(op[0] != "canvas" for op in state.pending):
            g = min(give, key=lambda c: plan.desire[c])
            t = max(take, key=lambda c: plan.deficit[c])
            return {"do": "study", "give": COLOURS[g], "take": COLOURS[t]}
    if cfg["player_trades"] and sum(surplus) >= 1 and any(
            state.alive[o] for o in range(state.players) if o != seat):
        give = _pick(surplus, 1, plan.desire, [0.0] * 8, best=False, wild_ok=False)
        t = max(need, key=lambda c: plan.deficit[c])
        if give is not None:
            return {"do": "offer", "give": _cmap(give), "take": {COLOURS[t]: 1}}
    return None


# --------------------------------------------------------------------------
# food: finish a food-bearing canvas before nutrition runs out

FOOD_MARGIN = 3      # spare main actions wanted between a food canvas's estimate and the deadline
FOOD_ACTIONS = 1.5    # a food canvas's food counts as this many actions when choosing one
FOOD_NEXT = 7         # main actions wanted after a food canvas's sale for the next one
NO_FOOD_DEADLINE = 8  # with no food canvas owned, buy one once the deadline is this close


def _turns_today(state: State) -> int:
    return 2 if state.phase == "morning" else 1


def _deadline(state: State, seat: int) -> int:
    """Main actions the seat has left before the last night whose sales still feed it
    (complete canvases are sold tonight: their food counts)."""
    ready = sum(CARDS[cid].food for cid, f in state.canvases[seat] if "." not in f)
    n = min(rules.MAX_NUTRITION, state.nutrition[seat] + ready)
    return _turns_today(state) + 2 * (n - 1)


def _est(plan: _Plan, cid: int, filled: str, pm: Sequence[int] = ()) -> float:
    """Main actions to finish an owned canvas: paint actions plus getting the cubes the
    studio lacks: one from the Paint Market by the day's trade (if there), the rest by
    work, 3 random cubes of which the share in the bag of the needed colours help."""
    unc = plan.uncovered[cid]
    turns = float((filled.count(".") + 3) // 4)
    if not unc:
        return turns
    cols: set[int] = set()
    traded = False
    missing = 0
    for i in unc:
        sq = _SQ[cid][i]
        if not traded and pm and any(pm[c] > 0 and c != WILD for c in sq):
            traded = True
            continue
        missing += 1
        cols.update(sq)
    if missing:
        share = sum(_BAG_SHARE[c] for c in cols)
        if "W" not in filled:
            share += _BAG_SHARE[WILD]
        turns += min(missing * 2.0, missing / max(0.3, 3.0 * share) + 0.5)
    return turns + (0.3 if traded else 0.0)


def _food_key(est: float, food: int, deadline: int) -> tuple[bool, float]:
    """Which food canvas to go for: one finished in time first, then the most actions left
    after selling it (each food is two more actions)."""
    return (est > deadline, est - FOOD_ACTIONS * food)


def _food_project(state: State, seat: int, deadline: int) -> tuple[float, int] | None:
    """(estimate, card id) of the owned food-bearing canvas to finish first (``_food_key``)."""
    best = None
    studio = state.studios[seat]
    for cid, f in state.canvases[seat]:
        if "." not in f or CARDS[cid].food <= 0:
            continue
        p = _Plan(studio, state.canvases[seat], True, state.market, first=cid)
        e = _est(p, cid, f, state.paint_market)
        k = (_food_key(e, CARDS[cid].food, deadline), e, cid)
        if best is None or k < best:
            best = k
    return None if best is None else (best[1], best[2])


def _market_food(state: State, seat: int, plan: _Plan) -> list[tuple[float, int, int, list[int]]]:
    """(estimate including the buy, -food, slot, pay) of each affordable food canvas, best first."""
    studio = state.studios[seat]
    junior = state.config["edition"] == "junior"
    out = []
    keep = [studio[c] - plan.left[c] for c in range(8)]
    for slot in (1, 2, 3):
        cid = state.market[slot - 1]
        if cid < 0 or CARDS[cid].food <= 0:
            continue
        cost = 1 if junior else slot
        need_new = [0] * 8
        for cols in _SQ[cid]:
            for c in cols:
                need_new[c] += 1
        pay = _spend(studio, [keep[c] + need_new[c] for c in range(8)], cost, plan.desire)
        if pay is None:
            continue
        after = [studio[c] - pay[c] for c in range(8)]
        canv = tuple(state.canvases[seat]) + ((cid, "." * CARDS[cid].size),)
        p = _Plan(after, canv, True, (), first=cid)
        e = 1 + _est(p, cid, "." * CARDS[cid].size, state.paint_market) + 0.15 * cost
        out.append((e, -CARDS[cid].food, slot, pay))
    deadline = _deadline(state, seat)
    out.sort(key=lambda o: (_food_key(o[0], -o[1], deadline), o[2]))
    return out


def _food_action(state: State, seat: int, deadline: int, project: tuple[float, int] | None) -> dict | None:
    """The turn of a seat that must get food soon: everything for the quickest food canvas."""
    studio = state.studios[seat]
    free = not state.free_used[seat]
    first = project[1] if project is not None else -1
    plan = _Plan(studio, state.canvases[seat], True, state.market, first=first)
    market = _market_food(state, seat, plan)
    own_est = project[0] if project is not None else 99.0
    own_key = _food_key(own_est, CARDS[first].food if project is not None else 0, deadline)
    # + 1: the canvas already started is kept unless the market's is clearly better
    if market and _food_key(market[0][0] + 1.0, -market[0][1], deadline) < own_key:
        e, _, slot, pay = market[0]
        main = {"do": "buy", "slot": slot, "pay": _cmap(pay)}
        if free:
            then = _then_trade(state, seat, main)
            if then is not None:
                main["then"] = then
        return main
    # neither the own canvases nor the market's can feed the seat in time: a new market
    best_market = market[0][0] if market else 99.0
    if (free and own_est > deadline and best_market > deadline - 1 and len(state.deck) >= 3
            and sum(studio) >= 3):
        keep = [studio[c] - plan.left[c] for c in range(8)] if project is not None else [0] * 8
        pay = _spend(studio, keep, 2, plan.desire)
        if pay is not None:
            return {"do": "reset", "pay": _cmap(pay)}
    if project is None:
        return None
    cid = first
    filled = dict(state.canvases[seat])[cid]
    if free:
        tr = _best_trade(state, seat, plan, 0)
        if tr is not None:
            p2 = _Plan(_trade_on(studio, tr), state.canvases[seat], True, state.market, first=cid)
            if len(p2.uncovered[cid]) < len(plan.uncovered[cid]):
                return tr
    paint, done = plan.paint()
    unc = len(plan.uncovered[cid])
    mine = [pl for pl in paint if pl[0] == cid]
    if cid in done or (mine and unc == 0):
        return {"do": "paint", "place": paint}
    # other canvases wait: their cubes may pay the trades this canvas needs
    if len(mine) >= 4:
        return {"do": "paint", "place": mine}
    # the cubes still missing come first; paint when the time left needs every action
    paint_turns = (filled.count(".") + 3) // 4
    if mine and deadline <= paint_turns + (1 if unc else 0):
        return {"do": "paint", "place": mine}
    return {"do": "work"}


def _turn_action(state: State, seat: int) -> dict:
    studio = state.studios[seat]
    deadline = _deadline(state, seat)
    project = _food_project(state, seat, deadline)
    if project is None:
        need_food = deadline <= NO_FOOD_DEADLINE
    else:
        # in time, and leaving enough actions after its sale for the next food canvas
        est, food = project[0], CARDS[project[1]].food
        need_food = est + FOOD_MARGIN > deadline or deadline - est + 2 * food < FOOD_NEXT
    if need_food:
        act = _food_action(state, seat, deadline, project)
        if act is not None:
            return act
    plan = _plan(state, seat)
    paint, done = plan.paint()
    free = not state.free_used[seat]
    inc = len(plan.order)
    unc = plan.uncovered_total()
    spare = sum(plan.left)
    want_canvas = inc == 0 or (inc == 1 and unc == 0 and spare >= 2) or (inc == 1 and unc <= 1 and spare >= 5)
    reserve = 3 if want_canvas or inc == 0 else 0

    # 1. a free action first when it gives needed colours
    if free:
        tr = _best_trade(state, seat, plan, reserve)
        if tr is not None:
            p2 = _plan(state, seat, studio=_trade_on(studio, tr))
            paint2, done2 = p2.paint()
            if done2 and len(done2) > len(done):
                return tr
            # a needed cube now is worth more than a surplus one; keep cubes to buy with
            if not done:
                return tr
        elif not done:
            other = _other_free(state, seat, plan)
            if other is not None:
                return other

    # 2. the main action
    if done or len(paint) >= 3:
        return {"do": "paint", "place": paint}
    buys = _buy_options(state, seat, plan, need_food or project is None) if inc < 2 or spare >= 6 else []
    good = [b for b in buys if b[0] >= 0.45 or (b[3] >= 0.75 and b[0] >= 0.3)]
    pick = None
    if buys and want_canvas:
        pick = buys[0] if (inc == 0 or buys[0][0] >= 0.3) else None
    elif good and inc < 2:
        pick = good[0]
    elif good and spare >= 6 and good[0][3] >= 0.6:
        pick = good[0]
    if pick is not None and inc and any(pick[2][c] > plan.left[c] for c in range(8)):
        pick = None     # never pay with cubes a canvas in progress is waiting for
    if pick is not None and (pick[0] >= RESET_BELOW or not free or len(state.deck) < 3 or sum(studio) < 5):
        main = {"do": "buy", "slot": pick[1], "pay": _cmap(pick[2])}
        if free:
            then = _then_trade(state, seat, main)
            if then is not None:
                main["then"] = then
        return main
    if (want_canvas and free and len(state.deck) >= 3 and sum(studio) >= 5
            and (not buys or buys[0][0] < RESET_BELOW)):
        pay = _spend(studio, [studio[c] - plan.left[c] for c in range(8)], 2, plan.desire)
        if pay is not None:
            return {"do": "reset", "pay": _cmap(pay)}
    if paint and (unc == 0 or (_hungry(state, seat) and len(paint) >= 2) or sum(studio) >= 10):
        return {"do": "paint", "place": paint}
    return {"do": "work"}


def _then_trade(state: State, seat: int, main: dict) -> dict | None:
    """The trade to make right after buying: for the new canvas's colours."""
    try:
        after = apply_unchecked(state, seat, main)
    except Exception:  # pragma: no cover - defensive
        return None
    p = _plan(after, seat)
    if after.free_used[seat]:
        return None
    # after.free_used is False: the trade happens in the same turn
    tr = _best_trade(after, seat, p, 1)
    return tr


def _announce(state: State, seat: int) -> dict:
    done = [cid for cid, f in state.canvases[seat] if "." not in f]
    supper = None
    sell = list(done)
    if state.config["last_supper"] and state.nutrition[seat] == 1 and done:
        food = sum(CARDS[c].food for c in done)
        if food == 0:
            c = max(done, key=lambda c: (CARDS[c].stars, -c))
            if CARDS[c].stars > 0:
                supper = c
                sell = [d for d in done if d != c]
    return {"do": "sell", "canvases": sell, "supper": supper}


def _take(state: State, seat: int) -> dict:
    e = state.collection[state.coll_next]
    k = min(e[3], e[2], sum(state.paint_market[:WILD]) + min(1, state.paint_market[WILD]))
    plan = _plan(state, seat)
    got = _pick(state.paint_market, k, plan.desire, plan.deficit, best=True, max_wild=1)
    if got is None:
        return rules.default_action(state, seat)
    return {"do": "take", "cubes": _cmap(got)}


def _answer(state: State, seat: int) -> dict:
    off = state.offer
    if off is None:
        return {"do": "answer", "accept": False}
    _, give, take, _ = off     # the offerer gives ``give`` to us and takes ``take`` from us
    studio = state.studios[seat]
    if any(studio[c] < take[c] for c in range(8)):
        return {"do": "answer", "accept": False}
    before = _plan(state, seat)
    after_studio = [studio[c] - take[c] + give[c] for c in range(8)]
    after = _plan(state, seat, studio=after_studio)
    gain = after.covered() - before.covered()
    ok = gain > 0 or (gain == 0 and sum(give) >= sum(take) and after_studio[WILD] >= studio[WILD])
    return {"do": "answer", "accept": bool(ok)}


def heuristic_action(state: State, seat: int) -> dict:
    """The heuristic's action for ``seat`` in a full state (unchecked; see ``HeuristicBot``)."""
    step = state.step
    if step == "turn":
        return _turn_action(state, seat)
    if step == "announce":
        return _announce(state, seat)
    if step == "collect":
        return _take(state, seat)
    if step == "answer":
        return _answer(state, seat)
    return rules.default_action(state, seat)


def _checked(state: State, seat: int, action: dict) -> dict:
    try:
        return rules.check(state, seat, action)
    except IllegalAction:
        return rules.check(state, seat, rules.default_action(state, seat))


class HeuristicBot:
    """Plans the canvases it can finish, trades for what they need, watches nutrition."""

    def choose(self, view: Mapping[str, Any], seat: int, rng: Rng) -> dict:
        state = state_from_view(view, rng)
        try:
            return _plain(_checked(state, seat, heuristic_action(state, seat)))
        except Exception:  # never let a planning slip stop the table: the default is always legal
            return rules.default_action(state, seat)


def _plain(action: Mapping) -> dict:
    out = dict(action)
    if isinstance(out.get("then"), Mapping):
        out["then"] = dict(out["then"])
    return out


# --------------------------------------------------------------------------
# search


def _estimate(state: State, s: int) -> float:
    """Points a seat may count on at a horizon: score plus canvases in progress.  At 2-4 seats the
    paintings objective counts too (an artist meeting either objective wins): paintings sold and in
    progress, scaled to the point target, when that is the seat's better race."""
    est = float(state.score[s])
    if not state.alive[s]:
        return est
    sold = float(len(state.sold[s]))
    for cid, f in state.canvases[s]:
        card = CARDS[cid]
        frac = 1.0 - f.count(".") / card.size
        est += card.stars * 0.85 * frac * frac + 0.1 * card.food * frac
        sold += 0.85 * frac * frac
    if state.players in rules.TARGETS:
        need_sold, need_points = rules.TARGETS[state.players]
        est = max(est, need_points * sold / need_sold)
    est += 0.06 * sum(state.studios[s])
    nut = state.nutrition[s]
    if nut <= 1:
        est -= 1.5
    elif nut == 2:
        est -= 0.5
    return est


def utility(state: State, seat: int) -> float:
    """Place first (1 for first, 0 for last), then the score margin, then nutrition safety."""
    n = state.players
    res = rules.result(state)
    if res is not None:
        if n == 1:
            return res["points"][0] / 30.0 + (0.2 if res["starved"][0] is False else 0.0)
        place = res["places"][seat]
        pts = res["points"]
        best_other = max(pts[o] for o in range(n) if o != seat)
        tie = sum(1 for o in range(n) if res["places"][o] == place) - 1
        return (n - place) / (n - 1) - 0.15 * tie / n + 0.02 * (pts[seat] - best_other)
    est = [_estimate(state, s) for s in range(n)]
    if n == 1:
        return est[0] / 30.0 + 0.03 * state.nutrition[0]
    mine = est[seat]
    better = sum(1 for o in range(n) if o != seat and est[o] > mine)
    best_other = max(est[o] for o in range(n) if o != seat)
    # a soft place: the margin to the best other seat counts as much as a place near a tie
    margin = mine - best_other
    soft = margin / (abs(margin) + 1.5)
    return (n - 1 - better) / (n - 1) * 0.5 + 0.5 * (soft + 1) / 2 + 0.02 * margin


def rollout(state: State, seat: int, rng: Rng, horizon_days: int, max_steps: int = 600) -> float:
    """Play every seat with the heuristic until the game ends or ``horizon_days`` days pass."""
    stop = state.day + horizon_days
    for _ in range(max_steps):
        if state.phase == "over" or state.day >= stop:
            break
        t = rules.turn(state)
        if t.kind == "chance":
            state = rules.chance(state, entropy_from(rng))
            continue
        if t.kind == "over":
            break
        if t.kind == "simultaneous":
            acts = [(s, heuristic_action(state, s)) for s in t.seats]
            for s, a in acts:
                state = _safe_apply(state, s, a)
            continue
        s = t.seats[0]
        state = _safe_apply(state, s, heuristic_action(state, s))
    return utility(state, seat)


def _safe_apply(state: State, seat: int, action: dict) -> State:
    try:
        return rules.apply(state, seat, action)
    except IllegalAction:
        return rules.apply(state, seat, rules.default_action(state, seat))


def _key(action: Mapping) -> str:
    return repr(sorted((k, repr(v)) for k, v in action.items()))


def candidates(state: State, seat: int, cap: int) -> list[dict]:
    """A few distinct legal actions: the heuristic's first, then its variants, then one per kind."""
    out: list[dict] = []
    seen: set[str] = set()

    def add(a: dict | None) -> None:
        if a is None or len(out) >= cap:
            return
        try:
            c = rules.check(state, seat, a)
        except IllegalAction:
            return
        k = _key(c)
        if k not in seen:
            seen.add(k)
            out.append(_plain(c))

    add(heuristic_action(state, seat))
    if state.step == "turn":
        # the food plan's choice, also when the heuristic does not think it urgent yet
        deadline = _deadline(state, seat)
        add(_food_action(state, seat, deadline, _food_project(state, seat, deadline)))
        plan = _plan(state, seat)
        paint, _ = plan.paint()
        add({"do": "work"})
        if paint:
            add({"do": "paint", "place": paint})
        buys = _buy_options(state, seat, plan)
        for b in buys[:2]:
            add({"do": "buy", "slot": b[1], "pay": _cmap(b[2])})
        if not state.free_used[seat]:
            add(_best_trade(state, seat, plan, 0))
        by_kind: dict[str, dict] = {}
        for a in rules.legal_actions(state, seat):
            by_kind.setdefault(a["do"], a)
        for kind in ("reset", "trade", "buy", "paint", "study", "offer"):
            if kind in by_kind:
                add(by_kind[kind])
    elif state.step == "announce":
        for a in rules.legal_actions(state, seat):
            add(a)
    return out


class SearchBot:
    """Determinized Monte-Carlo over the heuristic: best mean utility over a few rollouts.

    ``rollouts`` determinizations per candidate, ``candidates`` actions at most,
    ``horizon`` days per rollout.  Only turn decisions and night announcements
    are searched; collection picks and trade answers use the heuristic.
    """

    def __init__(self, rollouts: int = 12, candidates: int = 6, horizon: int = 3) -> None:
        self.rollouts = rollouts
        self.candidates = candidates
        self.horizon = horizon

    def choose(self, view: Mapping[str, Any], seat: int, rng: Rng) -> dict:
        state = state_from_view(view, rng)
        try:
            base = _plain(_checked(state, seat, heuristic_action(state, seat)))
        except Exception:  # never let a planning slip stop the table: the default is always legal
            return rules.default_action(state, seat)
        if state.step not in ("turn", "announce"):
            return base
        try:
            return self._search(view, state, seat, rng) or base
        except Exception:  # the heuristic's choice, already checked
            return base

    def _search(self, view: Mapping[str, Any], state: State, seat: int, rng: Rng) -> dict | None:
        cands = candidates(state, seat, self.candidates)
        if len(cands) <= 1:
            return None
        totals = [0.0] * len(cands)
        for r in range(self.rollouts):
            det_seed = entropy_from(rng)
            chance_seed = entropy_from(rng)
            det = state_from_view(view, Rng(det_seed, "starving-artists/search/deal"))
            for i, a in enumerate(cands):
                try:
                    s2 = rules.apply(det, seat, a)
                except IllegalAction:
                    totals[i] -= 1e6
                    continue
                totals[i] += rollout(s2, seat, Rng(chance_seed, "starving-artists/search/chance"),
                                     self.horizon)
        best = max(range(len(cands)), key=lambda i: (totals[i], -i))
        return cands[best]
