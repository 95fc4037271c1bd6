"""Bots for the Painting Game.  A bot sees only ``view(state, seat)``.

* ``RandomBot``: a random legal move.
* ``HardBot``: draws the other seats' sealed moves from a model of a player
  and plays the round out against each draw; keeps the bids that put it
  furthest ahead and the splash that makes the most progress once the
  drawn splashes are in.
* ``HeuristicBot``: bids on the sheets that are cheapest to produce from the
  current grid (small ones count more: they may show by chance), and splashes where the rules' own mixing makes the most
  progress toward the sheets it owns (or is bidding on: a sheet bought this
  round can score this round); uses garnets (conversion, the extra splash)
  when that pays; leaves its bids or splash empty only when that is clearly
  right, and says why in the move.

``play_game`` drives a whole game locally, for tests and benchmarks.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from ...rng import Rng
from ..common import entropy_from, play_locally
from . import rules

__all__ = ["RandomBot", "HeuristicBot", "HardBot", "play_game", "sheet_cost", "CELL_COST"]

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


# Memos of two pure functions (a sheet's placements, a sheet's cost on a grid): the hard bot asks
# the same questions many times in one decision (every drawn seat sees the same grid and sheets).
# They change no result, only the time: both are bounded and emptied together when full.
_PL_MEMO: dict = {}
_COST_MEMO: dict = {}
_PL_MEMO_MAX = 4096
_COST_MEMO_MAX = 200_000


class _Pl(tuple):
    """Placements kept in ``_PL_MEMO`` (alive while memoized, so their identity names them)."""

    __slots__ = ()


def _placements(cells: Sequence[Sequence]) -> tuple:
    """For every in-bounds shift: the (grid index, target mask) of each coloured cell (memoized)."""
    key = tuple((r, c, k) for r, c, k in cells)
    pl = _PL_MEMO.get(key)
    if pl is None:
        if len(_PL_MEMO) >= _PL_MEMO_MAX:
            _PL_MEMO.clear()
            _COST_MEMO.clear()  # its keys name placements by identity
        pl = _PL_MEMO[key] = _Pl(tuple(p) for p in _placements_of(key))
    return pl


def _placements_of(cells: Sequence[Sequence]) -> list[list[tuple[int, int]]]:
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


def sheet_cost(grid: Sequence[int], placements: Sequence) -> int:
    """Least total cell cost over every placement (0 = the sheet matches now)."""
    if type(placements) is _Pl and type(grid) is tuple:
        key = (grid, id(placements))
        c = _COST_MEMO.get(key)
        if c is None:
            if len(_COST_MEMO) >= _COST_MEMO_MAX:
                _COST_MEMO.clear()
            c = _COST_MEMO[key] = _sheet_cost(grid, placements)
        return c
    return _sheet_cost(grid, placements)


def _sheet_cost(grid: Sequence[int], placements: Sequence) -> int:
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


# chance that a sheet of n cells shows somewhere on the grid at the end of a round without anyone
# aiming at it (measured on the grids of tables of heuristic and random bots: a grid splashed by
# six seats is full of colour, and two cells side by side match often)
_BY_CHANCE = (0.0, 0.0, 0.23, 0.035, 0.003, 0.0, 0.0)

# weight of a target by its cost: a match is worth far more than progress
_PROGRESS = (64, 14, 7, 4, 2, 1)


def _progress(cost: int) -> int:
    return _PROGRESS[cost] if cost < len(_PROGRESS) else 0


class RandomBot:
    """A random legal move: a random subset of sheets with random amounts, a random splash."""

    summary = "random legal moves: random bids on random sheets, a random splash"

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


_SPLASHES = tuple((i // rules.SIZE, i % rules.SIZE, col) for i in range(rules.SIZE * rules.SIZE) for col in _COLOURS)


_MIX_MEMO: dict = {}
_MIX_MEMO_MAX = 2048


def _one_splash(grid: tuple, black: str) -> tuple:
    """``rules.mix(grid, [sp], black)`` for every splash of ``_SPLASHES``, in that order (memoized)."""
    key = (grid, black)
    out = _MIX_MEMO.get(key)
    if out is None:
        if len(_MIX_MEMO) >= _MIX_MEMO_MAX:
            _MIX_MEMO.clear()
        out = _MIX_MEMO[key] = tuple(rules.mix(grid, [sp], black) for sp in _SPLASHES)
    return out


def _need(cost: int) -> int:
    """Rough number of splashes of one seat to pay ``cost`` primaries (a plus covers up to 5 cells)."""
    return max(1, (cost + 2) // 3)


def _completable(grid: Sequence[int], pl: list, black: str, two: bool) -> bool:
    """Can one splash (two if ``two``) of this seat alone make the sheet show now?"""
    c = sheet_cost(grid, pl)
    if c == 0:
        return True
    if c > (10 if two else 5):  # one splash adds one primary to at most 5 cells
        return False
    closer = []
    for g in _one_splash(tuple(grid), black):
        c1 = sheet_cost(g, pl)
        if c1 == 0:
            return True
        if two and c1 < c and c1 <= 5:
            closer.append(g)
    for g in closer:
        for g2 in _one_splash(g, black):
            if sheet_cost(g2, pl) == 0:
                return True
    return False


def _colourful(g: Sequence[int]) -> int:
    return sum(1 for m in g if m and m != 7)


class HeuristicBot:
    """Bids on sheets it can make in the rounds left; splashes toward its sheets; spends.

    Every round it bids on up to two sheets in reach (it can make them in the
    rounds left and, from 3 cells, the grid is at most ``reach`` primaries off or
    its next splash alone makes them; good value for the work
    left, drawn with chance from those in reach so several such bots spread
    over the sheets and rarely tie), shared 2 : 1 between them (times their
    expected points) and shaded a little: all its tokens, plus the garnets it
    can spare (converted only as far as the bids need them).  A lost bid costs nothing and tokens left at the end
    only break ties, so it bids everything it has every round.  In the last
    round only a sheet its own splash (and extra) completes is in reach.

    It splashes where the mixing makes the most progress on its sheets; when
    no splash helps, where it harms no sheet of its own and sets back the
    other seats' sheets most, then where it colours the most cells.  It buys
    the extra splash when a second splash completes one more owned sheet worth
    3 points or more (in the last round: any sheet it owns or bids on); until
    then it keeps the garnets the extra costs.

    It leaves a part of its move empty only when that is clearly right, and
    says why in the move (``why``, shown in the log line) and in
    ``self.reason``: no bid with no tokens, or with no sheet on offer it could
    make in the rounds left; no splash when every splash would set back its
    own sheets.
    """

    summary = ("bids all its tokens on two sheets it can make, splashes toward its sheets "
               "(else against the others'); a fair first opponent")

    #: most sheets it bids on in one round
    most = 2
    #: how its tokens are shared between its picks, best first (times each one's expected points)
    shares = (2, 1)
    #: it picks from this many of the best sheets in reach, priorities blurred by up to 1/spread
    field = 7
    spread = 1
    #: weight of the chance that a sheet shows without anyone aiming at it (by its size)
    by_chance = 4
    #: most primaries a sheet of 3 cells or more may still need for it to bid on it, unless its
    #: next splash alone makes it (None: any it could make in the rounds left)
    reach = 2

    def __init__(self) -> None:
        self.reason: dict | None = None

    def choose(self, view: Mapping[str, Any], seat: int, rng: Rng) -> dict:
        grid = rules.masks_from_view_grid(view["grid"])
        rl = view["rules"]
        black = rl["black"]
        r = view["round"]
        left = rl["rounds"] - r + 1  # rounds left, this one included
        final = left <= 1
        tokens = view["tokens"][seat]
        garnets = view["garnets"][seat]
        extra_cost = rl["extra_cost"]
        extra_open = not view["extra_used"][seat] and garnets >= extra_cost
        # in the last round only a match counts: progress toward one is worth nothing
        weight = (lambda c: 64 if c == 0 else 0) if final else _progress

        owned = []
        work = 0
        for h in view["owned"][seat]:
            pl = _placements(h["cells"])
            c = sheet_cost(grid, pl)
            owned.append((h["value"], pl))
            work += _need(c)
        others = [(h["value"], _placements(h["cells"]))
                  for s, hs in enumerate(view["owned"]) if s != seat for h in hs]

        # --- which sheets to bid on: those in reach, cheapest to make for their value
        offer = []
        for sh in view["offer"]:
            pl = _placements(sh["cells"])
            c = sheet_cost(grid, pl)
            if final:
                if not _completable(grid, pl, black, extra_open):
                    continue
                expect = sh["value"]
            else:
                need = _need(c)
                if need > left:
                    continue
                if self.reach is not None and len(sh["cells"]) > 2 and c > self.reach and not _completable(grid, pl, black, False):
                    # on a grid six seats splash, a sheet that needs more than its owner's next
                    # splash is rarely made: the others' splashes spoil it first
                    continue
                expect = max(1, sh["value"] - (need - 1))
                if work + need > left:  # busy: it may not get round to this one
                    expect = max(1, expect * left // (work + need))
            pri = (expect * 16) // (1 + c)
            if not final:  # a small sheet may also show by chance in the rounds left
                pri += (expect * 16 * self.by_chance * int(100 * _BY_CHANCE[min(len(sh["cells"]), 6)])) // 100
            offer.append((pri, c, sh["id"], expect, pl))
        offer.sort(key=lambda x: (-x[0], x[1], x[2]))
        # Several heuristic bots at one table value sheets alike; identical bids tie
        # and discard the sheet.  So each bot takes its sheets from the best few at
        # random and shades its amounts: bots spread over sheets and rarely tie.
        shortlist = offer[: self.field]
        rng.shuffle(shortlist)
        shortlist.sort(key=lambda x: -x[0] + rng.below(1 + x[0] // self.spread))
        picks = [(sid, expect, pl) for _, _, sid, expect, pl in shortlist[: self.most]]
        if tokens + garnets - (extra_cost if extra_open and not final else 0) <= 0:
            picks = []  # nothing to bid with (the extra's garnets are kept for it)

        # --- splash: the most progress on its sheets (owned count double: they are sure)
        targets = [(v * 2, pl) for v, pl in owned] + [(e, pl) for _, e, pl in picks]

        def score(g: Sequence[int], ts: Sequence) -> int:
            return sum(w * weight(sheet_cost(g, pl)) for w, pl in ts)

        base = score(grid, targets)
        scored = [(score(g, targets), sp, g) for sp, g in zip(_SPLASHES, _one_splash(grid, black))]
        top = max(x[0] for x in scored)
        why: dict[str, str] = {}
        splash = None
        extra = None
        after = grid
        if top < base:
            why["splash"] = "would spoil its sheets"
        else:
            best = [x for x in scored if x[0] == top]
            if len(best) > 1 and others:
                # no better way to help itself: set back the other seats' sheets
                harm = [(-score(g, others), sp, g) for _, sp, g in best]
                hi = max(h[0] for h in harm)
                best = [(top, sp, g) for h, sp, g in harm if h == hi]
            if len(best) > 1 and top == base:
                col = [(_colourful(g), sp, g) for _, sp, g in best]
                hi = max(c[0] for c in col)
                best = [(top, sp, g) for c, sp, g in col if c == hi]
            _, splash, after = best[rng.below(len(best))]
            splash = list(splash)

            # --- the extra splash, when a second splash completes one more sheet
            if extra_open:
                # a sheet bid on may be lost: before the last round only owned sheets count
                done = [(v * 2, pl) for v, pl in owned] + ([(e, pl) for _, e, pl in picks] if final else [])

                def completed(g: Sequence[int]) -> int:
                    return sum(w for w, pl in done if sheet_cost(g, pl) == 0)

                now = completed(after)
                gain, opt = 0, None
                for sp in _SPLASHES:
                    n = completed(rules.mix(grid, [splash, sp], black)) - now
                    if n > gain:
                        gain, opt = n, sp
                # weights are doubled points for owned sheets, expected points for picks
                if opt is not None and (final or gain >= 6):
                    extra = list(opt)
                    after = rules.mix(grid, [splash, extra], black)

        if final:
            # a sheet bought now scores only if it shows at the end of this round
            picks = [p for p in picks if sheet_cost(after, p[2]) == 0]

        # --- amounts: everything it has, tokens and the garnets it can spare
        spare = garnets - (extra_cost if extra is not None else 0)
        if extra is None and extra_open and not final:
            spare -= extra_cost  # keep the extra splash's garnets for a later round
        spare = max(0, spare)
        have = tokens + spare
        budget = have  # a lost bid costs nothing; tokens left at the end only break ties
        bids: dict[str, int] = {}
        if picks and budget > 0:
            weights = [p[1] * w for p, w in zip(picks, self.shares)]
            total = sum(weights)
            for (sid, _, _), wt in zip(picks, weights):
                amount = (budget * wt) // total
                amount = (amount * rng.between(70, 100)) // 100
                if amount > 0:
                    bids[str(sid)] = amount
            if not bids:
                bids[str(picks[0][0])] = 1
        if not bids:
            why["bids"] = "no tokens" if tokens == 0 else "nothing in reach"
        convert = max(0, sum(bids.values()) - tokens)  # <= spare: budget <= tokens + spare
        if final:
            # garnets left at the end count for nothing, tokens break ties: convert them all
            convert = max(convert, garnets - (extra_cost if extra is not None else 0))
        self.reason = dict(why) or None
        move = {"bids": bids, "splash": splash, "extra": extra, "convert": convert}
        if why:
            move["why"] = why
        return move


def play_game(
    config: Mapping[str, Any],
    players: int,
    seed: bytes,
    bots_by_seat: Sequence[Any] | Mapping[int, Any],
) -> tuple[rules.State, dict]:
    """Play a whole game locally; every bot action goes through ``check`` (core/games/common.py).

    Chance turns get entropy from ``Rng(seed, "painting/play/chance")``; the
    bot of seat s in round r gets ``Rng(seed, "painting/play/bot/s/round-r")``.
    All seats choose from the state before anyone's move of the round is
    applied (the moves are simultaneous), then they are applied in seat order.
    """
    return play_locally(rules, "painting", config, players, seed, bots_by_seat, max_steps=None,
                        bot_rng=lambda state, s, k: Rng(seed, "painting/play/bot/%d/round-%d" % (s, state.round)))


# --------------------------------------------------------------------------
# the hard level: sampled opponents, simulated rounds


# chance that a sheet needing ``need`` more splashes of its owner gets made in the rounds left
# (other seats' splashes spoil cells as often as they help): a rough table, tuned by the benchmark
_FINISH = (1.0, 0.6, 0.32, 0.15, 0.06, 0.02)
# the same by the primaries still to add (each step of progress counts)
_BY_COST = (1.0, 0.7, 0.55, 0.42, 0.32, 0.24, 0.17, 0.12, 0.08, 0.05, 0.03)


def _chance(cost: int, left: int, cells: int) -> float:
    """Chance that an unscored sheet of this cost and size gets made in the ``left`` rounds to go."""
    if left <= 0:
        return 0.0
    need = _need(cost)
    own = _BY_COST[cost] if need <= left and cost < len(_BY_COST) else 0.0
    return 1.0 - (1.0 - own) * (1.0 - _BY_CHANCE[min(cells, 6)]) ** left


def _potential(value: int, cost: int, left: int, cells: int = 6) -> float:
    """Expected points of an unscored sheet of this value, cost and size with ``left`` rounds to go."""
    p = _chance(cost, left, cells)
    return p * max(1, value - (min(_need(cost), left) - 1)) if p > 0 else 0.0


class _Seat:
    """One seat's public position, as the hard bot simulates it."""

    __slots__ = ("points", "tokens", "sheets")

    def __init__(self, points: int, tokens: int, sheets: list) -> None:
        self.points = points
        self.tokens = tokens
        self.sheets = sheets        # [(value, placements)] owned, unscored


class HardBot:
    """Samples what the other seats may do and keeps the move that does best against the samples.

    Bids and splashes are sealed and simultaneous, so it reasons over what the others may send
    from what its seat sees: ``samples`` times it draws every other seat's move from a model of
    a player (the heuristic bot with its own chance, or now and then a random move), and it
    plays the round out against each draw: the auctions (unique highest bid), the splashes all
    mixed at once, the sheets that show, the decay.  Each outcome is scored for every seat as
    points plus what its unscored sheets are likely to bring in the rounds left (by how far the
    grid is from them) plus a little for tokens (they buy later sheets; after the last round
    they only break ties), and a move's worth is how far it puts the seat ahead of each other
    seat, summed.

    Its candidate bids come from the samples themselves: for the sheets worth most to it, one
    more than what the others bid in some of the draws (a lost bid costs nothing, a won bid
    costs what it says: it pays what it must, not everything) or a share of its budget, alone
    or in pairs, and the heuristic's own bids.  Its splash is then the one that leaves the most
    progress on its sheets (those it holds, and those it wins in each draw) once the drawn
    splashes are mixed in, the other seats' sheets counting a little against; the once-per-game
    extra when it completes a sheet; garnets turned into tokens as the heuristic does.  It never
    reads what its seat may not see: only the view, and ``rng``.
    """

    summary = ("guesses the others' sealed bids and splashes from what it sees, plays the round out "
               "against its guesses, pays only what it must; the strongest")

    #: draws of the other seats' moves per decision
    samples = 10
    #: share of draws (in 100) in which another seat is modelled as a random player
    random_share = 30
    #: most primaries a sheet of 3 cells or more may still need for it to bid on it (as the heuristic)
    reach = 2
    #: sheets on offer considered for bids
    field = 4
    #: splashes (best by the heuristic's score) tried against the draws
    splashes = 18
    #: shares of its budget (in 100) also tried as bids on a sheet
    fractions = (15, 35, 60)
    #: the best single bids paired with each other
    pairs = 5
    #: how much the other seats' prospects count against its own (1: fully, 0: not at all)
    rivalry = 1.0
    #: least gain (progress weight, per draw) for which the extra splash is bought before the last round
    extra_price = 250
    #: a held sheet of 3 cells or more further than this many primaries off the grid says its seat
    #: plays at random (a careful player buys only sheets in reach), by this much (in 100) each
    far_cost = 3
    far_weight = 25
    #: a lead of this many points (estimated) counts as most of a won pair, before the last round
    scale = 1.5
    #: points a token is worth before the last round (it buys later sheets)
    token_worth = 0.12

    def __init__(self) -> None:
        self.reason: dict | None = None

    def _random_share(self, view: Mapping[str, Any], o: int, grid: Sequence[int]) -> int:
        """How often (in 100) seat ``o`` is drawn as a random player: more often the more sheets it
        holds that it cannot make in the rounds left or that are far off the grid (a careful player
        buys few, and those in reach: a far one is the clearest public sign of a random player)."""
        left = view["rules"]["rounds"] - view["round"] + 1
        held = view["owned"][o]
        if not held:
            return self.random_share
        hopeless = far = 0
        for h in held:
            c = sheet_cost(grid, _placements(h["cells"]))
            hopeless += _need(c) > left
            far += len(h["cells"]) > 2 and c > self.far_cost
        return max(10, min(90, self.random_share + 15 * (len(held) - 2) + 20 * hopeless + self.far_weight * far))

    def choose(self, view: Mapping[str, Any], seat: int, rng: Rng) -> dict:
        rl = view["rules"]
        black = rl["black"]
        rounds = rl["rounds"]
        r = view["round"]
        final = r >= rounds
        n = view["players"]
        grid = rules.masks_from_view_grid(view["grid"])
        tokens = view["tokens"][seat]
        garnets = view["garnets"][seat]
        extra_cost = rl["extra_cost"]
        extra_open = not view["extra_used"][seat] and garnets >= extra_cost
        # tokens are worth this much each at the horizon (later sheets); at the end only ties
        lam = 0.001 if final else self.token_worth

        seats = []
        for s in range(n):
            seats.append(_Seat(view["points"][s], view["tokens"][s],
                               [(h["value"], _placements(h["cells"])) for h in view["owned"][s]]))
        offer = {str(sh["id"]): (sh["value"], _placements(sh["cells"])) for sh in view["offer"]}

        # --- the draws: every other seat's move from a model of a player, its own chance each time
        draws = []
        others = [s for s in range(n) if s != seat]
        share = {o: self._random_share(view, o, grid) for o in others}
        for _ in range(self.samples):
            moves = {}
            for o in others:
                ov = dict(view, seat=o, my_move=None)
                sub = Rng(entropy_from(rng), "painting/hard/draw")
                model = RandomBot() if rng.below(100) < share[o] else HeuristicBot()
                moves[o] = model.choose(ov, o, sub)
            draws.append(moves)

        # --- what its own heuristic would do (a few times): candidates, and the splash scores
        own = [HeuristicBot().choose(view, seat, Rng(entropy_from(rng), "painting/hard/own")) for _ in range(3)]

        # --- sheet values for bidding: as if owned after this round on the present grid
        left_after = rounds - r
        worth = []
        for sid, (v, pl) in offer.items():
            c = sheet_cost(grid, pl)
            if final:
                w = v if _completable(grid, pl, black, extra_open) else 0.0
            elif self.reach is not None and pl and len(pl[0]) > 2 and c > self.reach and not _completable(grid, pl, black, False):
                w = 0.0  # the others' splashes spoil a sheet that far off before it is made (as the heuristic)
            else:
                # bought now it may show at once (cost within one splash) or later
                w = max(_FINISH[1] * v if c <= 3 else 0.0, _potential(v, c, left_after + 1, len(pl[0]) if pl else 6))
            if w > 0:
                worth.append((w, sid))
        worth.sort(key=lambda x: (-x[0], int(x[1])))
        worth = worth[: self.field]

        spare = garnets - (extra_cost if extra_open and not final else 0)
        budget = tokens + max(0, spare)

        plans: list[dict] = [{}]
        singles = []
        for w, sid in worth:
            highs = sorted({max([m["bids"].get(sid, 0) for m in d.values()] + [0]) for d in draws})
            amounts = sorted({h + 1 + rng.below(2) for h in highs if h + 1 <= budget})
            if len(amounts) > 4:  # the cheapest, the dearest and two between
                k = len(amounts)
                amounts = [amounts[0], amounts[k // 3], amounts[(2 * k) // 3], amounts[-1]]
            # shares of the budget, shaded by its own chance: two hard seats with equal budgets
            # would otherwise bid alike on the sheet both want, tie, and lose it to a third
            amounts = sorted(set(amounts) | {max(1, (budget * f) // 100 - rng.below(3)) for f in self.fractions if budget > 0})
            for a in amounts:
                plans.append({sid: a})
                singles.append((sid, a))
        for m in own:
            if m["bids"]:
                plans.append(dict(m["bids"]))

        def splash_score(g: Sequence[int], targets: Sequence) -> float:
            return sum(w * _progress(sheet_cost(g, pl)) for w, pl in targets)

        def top_splashes(targets: Sequence, k: int) -> list:
            base = [(splash_score(g, targets), sp) for sp, g in zip(_SPLASHES, _one_splash(grid, black))]
            base.sort(key=lambda x: -x[0])
            return [sp for _, sp in base[:k]]

        def simulate(bids: Mapping[str, int], splash, extra, convert: int, moves: Mapping[int, dict]) -> float:
            """Score of the round played out with this move against one draw (sum over the others)."""
            pts = [st.points for st in seats]
            tok = [st.tokens for st in seats]
            held = [list(st.sheets) for st in seats]
            allm = dict(moves)
            allm[seat] = {"bids": bids, "splash": splash, "extra": extra, "convert": convert}
            for s, m in allm.items():
                tok[s] += m.get("convert") or 0
            for sid, (v, pl) in offer.items():
                best, who = 0, -1
                for s, m in allm.items():
                    b = m["bids"].get(sid, 0)
                    if b > best:
                        best, who = b, s
                    elif b == best and b > 0:
                        who = -1
                if who >= 0:
                    tok[who] -= best
                    held[who].append((v, pl))
            sps = []
            for m in allm.values():
                if m.get("splash") is not None:
                    sps.append(m["splash"])
                if m.get("extra") is not None:
                    sps.append(m["extra"])
            g = rules.mix(grid, sps, black)
            if not final and black == "round":
                g = tuple(0 if x == 7 else x for x in g)
            est = []
            for s in range(n):
                p = pts[s]
                pot = 0.0
                work = 0
                for v, pl in held[s]:
                    c = sheet_cost(g, pl)
                    if c == 0:
                        p += v
                    elif not final:
                        q = _chance(c, left_after, len(pl[0]) if pl else 6)
                        if q > 0:
                            pot += q * max(1, v - 1 - (min(_need(c), left_after) - 1))
                            work += _need(c)
                if work > left_after > 0:
                    pot *= left_after / work
                est.append(p + pot + lam * tok[s])
            me = est[seat]
            scale = 0.01 if final else self.scale
            rel = self.rivalry
            return sum(math.tanh((me - rel * est[o]) / scale) for o in others)

        def value(bids, splash, extra, convert) -> float:
            return sum(simulate(bids, splash, extra, convert, d) for d in draws)

        owned_targets = [(v * 2, pl) for v, pl in seats[seat].sheets]

        def plan_targets(bids: Mapping[str, int]) -> list:
            return owned_targets + [(offer[sid][0], offer[sid][1]) for sid in bids]

        def fits(bids: Mapping[str, int], extra) -> bool:
            need = max(0, sum(bids.values()) - tokens) + (extra_cost if extra is not None else 0)
            return need <= garnets and (extra is None or extra_open)

        def conv(bids: Mapping[str, int], extra) -> int:
            c = max(0, sum(bids.values()) - tokens)
            if final:
                c = max(c, garnets - (extra_cost if extra is not None else 0))
            return c

        # --- 1. bids, each with the splash that suits it best on the present grid
        scored = []
        plans = [b for b in plans if fits(b, None)]
        for bids in plans:
            sp = top_splashes(plan_targets(bids), 1)[0]
            scored.append((value(bids, list(sp), None, conv(bids, None)), bids))
        for m in own:  # the heuristic's whole moves (with its extra) as they are
            if fits(m["bids"], m["extra"]):
                scored.append((value(m["bids"], m["splash"], m["extra"], conv(m["bids"], m["extra"])), m["bids"]))
        # pairs of the best single bids on two sheets
        tops = sorted((x for x in scored if len(x[1]) == 1), key=lambda x: -x[0])[: self.pairs]
        for i in range(len(tops)):
            for j in range(i + 1, len(tops)):
                b = dict(tops[i][1], **tops[j][1])
                if len(b) == 2 and fits(b, None):
                    sp = top_splashes(plan_targets(b), 1)[0]
                    scored.append((value(b, list(sp), None, conv(b, None)), b))
        best_v = max(v for v, _ in scored)
        bids = next(b for v, b in scored if v == best_v)

        # --- 2. the splash (and extra) for those bids, against the same draws: the most progress
        # on its sheets (owned count double, those it wins in a draw as they are) once every
        # splash of the round is in, then the least for the others' sheets
        weight = (lambda c: 64 if c == 0 else 0) if final else _progress
        others_held = [(v, pl) for o in others for v, pl in seats[o].sheets]
        wins = []
        for d in draws:
            won = []
            for sid, a in bids.items():
                if a > max([m["bids"].get(sid, 0) for m in d.values()] + [0]):
                    won.append((offer[sid][0], offer[sid][1]))
            sps = [m[k] for m in d.values() for k in ("splash", "extra") if m.get(k) is not None]
            wins.append((won, sps))

        def progress(splash, extra) -> float:
            mine_sp = [splash] + ([extra] if extra is not None else [])
            tot = 0.0
            for won, sps in wins:
                g = rules.mix(grid, sps + mine_sp, black)
                for w, pl in owned_targets:
                    tot += w * weight(sheet_cost(g, pl))
                for w, pl in won:
                    tot += w * weight(sheet_cost(g, pl))
                for w, pl in others_held:
                    tot -= w * weight(sheet_cost(g, pl)) / 16
            return tot

        cands = [list(sp) for sp in top_splashes(plan_targets(bids), self.splashes)]
        cands += [list(m["splash"]) for m in own if m["splash"] is not None]
        best = None
        for sp in cands:
            v = progress(sp, None)
            if best is None or v > best[0]:
                best = (v, sp, None)
        if extra_open:
            for m in own:
                if m["extra"] is not None and fits(bids, m["extra"]):
                    v = progress(m["splash"], m["extra"]) - (0 if final else self.extra_price * len(draws))
                    if v > best[0]:
                        best = (v, list(m["splash"]), list(m["extra"]))
            if final:
                sp0 = best[1]
                for ex in top_splashes(plan_targets(bids), 6) if fits(bids, [0, 0, "R"]) else ():
                    v = progress(sp0, list(ex))
                    if v > best[0]:
                        best = (v, sp0, list(ex))
        _, splash, extra = best
        bids = {k: bids[k] for k in sorted(bids, key=int) if bids[k] > 0}
        move = {"bids": bids, "splash": splash, "extra": extra, "convert": conv(bids, extra)}
        why = {}
        if not bids:
            why["bids"] = "no tokens" if tokens == 0 else "nothing in reach"
        self.reason = dict(why) or None
        if why:
            move["why"] = why
        return move
