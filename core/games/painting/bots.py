"""Bots for the Painting Game.  A bot sees only ``view(state, seat)``.

* ``RandomBot``: a random legal move.
* ``HeuristicBot``: bids on the sheets that are cheapest to produce from the
  current grid, and splashes where the rules' own mixing makes the most
  progress toward the sheets it owns (or is bidding on: a sheet bought this
  round can score this round).

``play_game`` drives a whole game locally, for tests and benchmarks.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...rng import Rng
from . import rules

__all__ = ["RandomBot", "HeuristicBot", "play_game", "sheet_cost", "CELL_COST"]

_COLOURS = ("R", "B", "Y")


def _popcount(x: int) -> int:
    return bin(x).count("1")


def _cell_cost(mask: int, target: int) -> int:
    """Rough number of primaries still to add for a cell to show ``target``."""
    if mask == target:
        return 0
    if mask == 7:  # black: turns white next round, then needs all of target
        return 1 + _popcount(target)
    if mask & ~target == 0:  # only missing primaries
        return _popcount(target & ~mask)
    # a wrong primary is on it: fill it up to three primaries (reset), wait, repaint
    return _popcount(7 & ~mask) + 1 + _popcount(target)


CELL_COST = [[_cell_cost(m, t) for t in range(8)] for m in range(8)]


def _placements(cells: Sequence[Sequence]) -> list[list[tuple[int, int]]]:
    """For every in-bounds shift: the (grid index, target mask) of each coloured cell."""
    col = [(r, c, rules.COLOUR_MASK[k]) for r, c, k in cells if k != "W"]
    if not col:
        return []
    size = rules.SIZE
    h = max(r for r, _, _ in col)
    w = max(c for _, c, _ in col)
    rmin = min(r for r, _, _ in col)
    cmin = min(c for _, c, _ in col)
    out = []
    for dr in range(-rmin, size - h):
        for dc in range(-cmin, size - w):
            out.append([((r + dr) * size + c + dc, t) for r, c, t in col])
    return out


def sheet_cost(grid: Sequence[int], placements: list[list[tuple[int, int]]]) -> int:
    """Least total cell cost over every placement (0 = the sheet matches now)."""
    best = 1 << 30
    cc = CELL_COST
    for pl in placements:
        s = 0
        for i, t in pl:
            s += cc[grid[i]][t]
            if s >= best:
                break
        else:
            best = s
            if best == 0:
                return 0
    return best


# weight of a target by its cost: a match is worth far more than progress
_PROGRESS = (64, 14, 7, 4, 2, 1)


def _progress(cost: int) -> int:
    return _PROGRESS[cost] if cost < len(_PROGRESS) else 0


class RandomBot:
    """A random legal move: a random subset of sheets with random amounts, a random splash."""

    def choose(self, view: Mapping[str, Any], seat: int, rng: Rng) -> dict:
        tokens = view["tokens"][seat]
        garnets = view["garnets"][seat]
        cost = view["rules"]["extra_cost"]
        extra = None
        splash = None
        if rng.below(10) != 0:
            splash = [rng.below(5), rng.below(5), rng.choice(_COLOURS)]
        if splash is not None and not view["extra_used"][seat] and garnets >= cost and rng.below(5) == 0:
            extra = [rng.below(5), rng.below(5), rng.choice(_COLOURS)]
            garnets -= cost
        convert = 0
        if garnets > 0 and rng.below(4) == 0:
            convert = rng.between(0, garnets)
        budget = rng.between(0, tokens + convert)
        chosen = [s["id"] for s in view["offer"] if rng.below(2) == 0]
        rng.shuffle(chosen)
        bids: dict[str, int] = {}
        for sid in chosen:
            if budget <= 0:
                break
            amount = rng.between(0, budget)
            if amount > 0:
                bids[str(sid)] = amount
                budget -= amount
        return {"bids": bids, "splash": splash, "extra": extra, "convert": convert}


class HeuristicBot:
    """Bids on cheap-to-make sheets; splashes toward its own sheets."""

    def choose(self, view: Mapping[str, Any], seat: int, rng: Rng) -> dict:
        grid = rules.masks_from_view_grid(view["grid"])
        black = view["rules"]["black"]
        rounds = view["rules"]["rounds"]
        r = view["round"]
        left = rounds - r + 1  # rounds left, this one included
        tokens = view["tokens"][seat]
        garnets = view["garnets"][seat]

        owned = []
        work = 0
        for h in view["owned"][seat]:
            pl = _placements(h["cells"])
            c = sheet_cost(grid, pl)
            owned.append((h["value"], pl))
            work += c

        # --- bids: cheap sheets we can still finish, within our splash capacity
        capacity = 3 * left  # rough cost units one seat can paint in the rounds left
        scored_offer = []
        for s in view["offer"]:
            pl = _placements(s["cells"])
            c = sheet_cost(grid, pl)
            need = max(1, (c + 2) // 3)
            if need > left:
                continue
            expect = max(1, s["value"] - (need - 1))
            # prefer high expected value per unit of work
            scored_offer.append(((expect * 16) // (1 + c), c, s["id"], expect, pl))
        scored_offer.sort(key=lambda x: (-x[0], x[1], x[2]))
        # Several heuristic bots at one table value sheets alike; identical bids tie
        # and discard the sheet.  So each bot takes its sheets from the best few at
        # random and shades its amounts: bots spread over sheets and rarely tie.
        shortlist = scored_offer[:4]
        rng.shuffle(shortlist)
        shortlist.sort(key=lambda x: -x[0] + rng.below(1 + x[0] // 2))
        picks = []
        for prio, c, sid, expect, pl in shortlist:
            if len(picks) >= 2 or work + c > capacity:
                break
            picks.append((sid, expect, pl, c))
            work += c
        bids: dict[str, int] = {}
        budget = tokens if left == 1 else (tokens * 3) // 4
        if picks and budget > 0:
            total_expect = sum(p[1] for p in picks)
            for sid, expect, pl, c in picks:
                amount = (budget * expect) // total_expect
                amount = (amount * rng.between(60, 100)) // 100
                if amount > 0:
                    bids[str(sid)] = amount
            # amounts sum to at most budget <= tokens: never an overspend

        # --- splash: the option that makes the most progress on our targets
        targets = [(v * 2, pl) for v, pl in owned] + [(e, pl) for _, e, pl, _ in picks]

        def score(g: Sequence[int]) -> int:
            return sum(w * _progress(sheet_cost(g, pl)) for w, pl in targets)

        splash = None
        extra = None
        if targets:
            best = score(grid)
            options = []
            for i in range(25):
                for col in _COLOURS:
                    sp = [i // 5, i % 5, col]
                    g = rules.mix(grid, [sp], black)
                    sc = score(g)
                    if sc > best:
                        best, options = sc, [sp]
                    elif sc == best and options:
                        options.append(sp)
            if options:
                splash = options[rng.below(len(options))]
            cost = view["rules"]["extra_cost"]
            if splash is not None and not view["extra_used"][seat] and garnets >= cost:
                # spend the garnets only if a second splash completes one more sheet
                def completed(g: Sequence[int]) -> int:
                    return sum(1 for _, pl in targets if sheet_cost(g, pl) == 0)

                base = completed(rules.mix(grid, [splash], black))
                best2, opt2 = base, None
                for i in range(25):
                    for col in _COLOURS:
                        sp = [i // 5, i % 5, col]
                        n = completed(rules.mix(grid, [splash, sp], black))
                        if n > best2:
                            best2, opt2 = n, sp
                extra = opt2
        return {"bids": bids, "splash": splash, "extra": extra, "convert": 0}


def _entropy(rng: Rng) -> bytes:
    return b"".join(rng.u64().to_bytes(8, "big") for _ in range(4))


def play_game(
    config: Mapping[str, Any],
    players: int,
    seed: bytes,
    bots_by_seat: Sequence[Any] | Mapping[int, Any],
) -> tuple[rules.State, dict]:
    """Play a whole game locally; every bot action goes through ``check``.

    Chance turns get entropy from ``Rng(seed, "painting/play/chance")``; the
    bot of seat s in round r gets ``Rng(seed, "painting/play/bot/s/round-r")``.
    All seats choose from the state before anyone's move of the round is
    applied (the moves are simultaneous), then they are applied in seat order.
    """
    config = rules.configure(config, players)
    state = rules.setup(config, players, seed)
    chance_rng = Rng(seed, "painting/play/chance")
    while True:
        t = rules.turn(state)
        if t.kind == "over":
            return state, rules.result(state)
        if t.kind == "chance":
            state = rules.chance(state, _entropy(chance_rng))
            continue
        actions = []
        for s in t.seats:
            rng = Rng(seed, "painting/play/bot/%d/round-%d" % (s, state.round))
            raw = bots_by_seat[s].choose(rules.view(state, s), s, rng)
            actions.append(rules.check(state, s, raw))
        for s, a in zip(t.seats, actions):
            state = rules.apply(state, s, a)
