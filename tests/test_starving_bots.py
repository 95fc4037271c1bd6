"""Starving Artists bots (core/games/starving_artists/ai.py): always legal, see only the view,
the heuristic beats random, its choices follow its plan, and a search move is fast."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest

from core.engine import ConfigError
from core.games.starving_artists import ai, rules
from core.games.starving_artists.ai import HeuristicBot, SearchBot
from core.games.starving_artists.bots import RandomBot, play_game
from core.games.starving_artists.cards import CARDS
from core.rng import Rng


def _seed(k: int) -> bytes:
    return k.to_bytes(4, "big") + bytes(28)


def counts(**kw) -> tuple:
    return rules.counts_of(kw)


class StrictHeuristic:
    """The heuristic's own proposal, without the fallback: it must already be legal."""

    def __init__(self) -> None:
        self.kinds: set[str] = set()

    def choose(self, view, seat, rng):
        state = rules.state_from_view(view, rng)
        action = ai.heuristic_action(state, seat)
        assert rules.problems(state, seat, action) == [], (action, rules.problems(state, seat, action))
        self.kinds.add(action["do"])
        then = action.get("then")
        if then:
            self.kinds.add(then["do"])
        return action


def _fast_search() -> SearchBot:
    return SearchBot(rollouts=2, candidates=3, horizon=1)


OPTION_SETS = [
    {},
    {"edition": "junior"},
    {"color_study": True},
    {"player_trades": True},
    {"last_supper": True},
    {"remove_comics": True},
    {"color_study": True, "player_trades": True, "last_supper": True},
]


@pytest.mark.parametrize("players", [1, 2, 3, 4])
@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(o) or "default")
def test_bots_always_choose_legal_actions(players, options):
    """play_game passes every action through check, which raises on an illegal one; the strict
    heuristic asserts its own proposal is legal (no fallback hides a bug)."""
    if players > 1 and any(o in rules.SOLO_ONLY for o in options):
        with pytest.raises(ConfigError, match="solo game only"):
            rules.configure(options, players)
        return
    strict = StrictHeuristic()
    for g in range(2):
        line = [[strict, HeuristicBot(), RandomBot(), _fast_search()][(s + g) % 4] for s in range(players)]
        if players == 1:
            line = [[strict, _fast_search()][g]]
        state, res = play_game(options, players, _seed(10 * players + g), line)
        assert rules.turn(state).kind == "over" and res is not None
    if players == 2:
        assert {"work", "buy", "paint", "sell"} <= strict.kinds, strict.kinds


def test_heuristic_uses_free_actions_and_options_over_many_games():
    strict = StrictHeuristic()
    for g in range(6):
        opts = {"color_study": True, "player_trades": True} if g % 2 else {}
        play_game(opts, 3, _seed(500 + g), [strict, StrictHeuristic(), strict])
    assert {"work", "buy", "paint", "sell", "take", "trade"} <= strict.kinds, strict.kinds


def _pairs_ahead(strong, weak, games: int, players: int, base: int) -> tuple[int, int]:
    ahead = pairs = 0
    for g in range(games):
        line = [strong() if (s + g) % 2 == 0 else weak() for s in range(players)]
        _, res = play_game({}, players, _seed(base + g), line)
        places = res["places"]
        for i in range(players):
            for j in range(players):
                if isinstance(line[i], strong) and isinstance(line[j], weak):
                    pairs += 1
                    ahead += places[i] < places[j]
    return ahead, pairs


def test_heuristic_beats_random():
    ahead, pairs = _pairs_ahead(HeuristicBot, RandomBot, 20, 2, 1000)
    assert ahead >= 0.75 * pairs, (ahead, pairs)


def test_heuristic_scores_and_survives_far_better_than_random():
    pts = {"h": 0, "r": 0}
    for g in range(6):
        line = [HeuristicBot(), RandomBot()] if g % 2 else [RandomBot(), HeuristicBot()]
        _, res = play_game({}, 2, _seed(2000 + g), line)
        for s, bot in enumerate(line):
            pts["h" if isinstance(bot, HeuristicBot) else "r"] += res["points"][s]
    assert pts["h"] >= 4 * max(1, pts["r"]), pts


def _heuristic_tables(players: int, base: int, games: int) -> tuple[int, float]:
    """(games ended by a starvation, mean paintings sold per seat) over all-heuristic tables."""
    starved = sold = 0
    for g in range(games):
        _, res = play_game({}, players, _seed(base + g), [HeuristicBot() for _ in range(players)])
        starved += res["reason"] == "the day after a starvation is over" or any(res["starved"])
        sold += sum(res["sold"])
    return starved, sold / (games * players)


def test_heuristic_tables_rarely_starve():
    """Food planning: before it, 13 of these 20 four-seat games (and 13 of the 20 two-seat ones)
    ended by a starvation, with 2.6 (4.0) paintings sold per seat; now 3 and 0, with 3.6 (6.4).
    The bounds leave room for tuning, not for the old behaviour."""
    starved, sold = _heuristic_tables(4, 3000, 20)
    assert starved <= 6 and sold >= 3.2, (starved, sold)
    starved, sold = _heuristic_tables(2, 3100, 20)
    assert starved <= 6 and sold >= 5.0, (starved, sold)


def test_deadline_counts_main_actions_before_the_last_feeding_night():
    st = _state(2, actor=0, first=0, nutrition=(5, 1), canvases=((), ()))
    assert ai._deadline(st, 0) == 10     # day 1 morning at 5: days 1..5, two actions each
    assert ai._deadline(st, 1) == 2      # at 1: only today's two actions
    assert ai._deadline(replace(st, phase="afternoon"), 1) == 1
    done = _card(4)
    full = "".join(sq[0] for sq in CARDS[done].squares)
    fed = replace(st, canvases=((), ((done, full),)))
    # a complete canvas is sold tonight: its food counts (capped at 5)
    assert ai._deadline(fed, 1) == 2 + 2 * min(4, CARDS[done].food)


def test_hungry_heuristic_buys_the_food_canvas_it_can_finish_in_time():
    small = next(c.id for c in CARDS if c.food >= 3 and c.size <= 4 and all(len(q) == 1 for q in c.squares))
    big = max((c for c in CARDS if c.food == 0), key=lambda c: (c.stars, -c.size)).id
    studio = [a + b for a, b in zip(_studio_for(small), _studio_for(big))]
    studio[rules.CI["B"]] += 3
    filler = next(c.id for c in CARDS if c.id not in (small, big) and c.food == 0)
    market = (big, small, filler)
    st = _state(actor=0, first=0, nutrition=(2, 5), studios=(tuple(studio), rules.ZERO), canvases=((), ()),
                market=market, deck=tuple(c for c in range(len(CARDS)) if c not in market))
    a = _choose(HeuristicBot(), st, 0)
    assert a["do"] == "buy" and a["slot"] == 2, a
    # and it finishes it in the afternoon, in time for tonight's sale
    st2 = rules.apply(st, 0, a)
    st2 = replace(st2, pending=(), actor=0, phase="afternoon")
    b = _choose(HeuristicBot(), st2, 0, 1)
    assert b["do"] == "paint" and any(cid == small and rules.is_complete(f)
                                      for cid, f in rules.apply(st2, 0, b).canvases[0]), b


def test_hungry_heuristic_keeps_its_cubes_for_its_food_canvas():
    """At nutrition 2 with a food canvas missing one colour the market lacks, it works for it
    rather than spending the trade cubes on a canvas without food."""
    food = next(c.id for c in CARDS if c.food >= 3 and c.size == 4 and all(len(q) == 1 for q in c.squares))
    need = rules.CI[CARDS[food].squares[0][0]]
    other = next(c.id for c in CARDS if c.food == 0 and c.size >= 11
                 and not any(need in [rules.CI[x] for x in q] for q in c.squares))
    studio = [a + b for a, b in zip(_studio_for(food, skip=1), _studio_for(other))]
    pm = [2 if c != need else 0 for c in range(7)] + [0]
    bag = list(rules.BAG)
    st = _state(actor=0, first=0, day=4, nutrition=(2, 5), studios=(tuple(studio), rules.ZERO),
                canvases=(((food, "...."), (other, "." * CARDS[other].size)), ()), paint_market=tuple(pm),
                bag=tuple(bag))
    a = _choose(HeuristicBot(), st, 0)
    assert a["do"] == "work" or (a["do"] == "paint" and all(p[0] == food for p in a["place"])), a


# ------------------------------------------------------------------ chosen actions follow the plan


def _state(players=2, **changes) -> rules.State:
    st = rules.setup(rules.configure({}, players), players, _seed(77))
    return replace(st, **changes)


def _card(size: int) -> int:
    """A card of ``size`` squares, one without diamonds if the deck has one."""
    of_size = [c for c in CARDS if c.size == size]
    assert of_size, "no card of size %d" % size
    plain = [c for c in of_size if all(len(sq) == 1 for sq in c.squares)]
    return (plain or of_size)[0].id


def _studio_for(cid: int, skip: int = 0) -> list[int]:
    studio = [0] * 8
    for sq in CARDS[cid].squares[skip:]:
        studio[rules.CI[sq[0]]] += 1
    return studio


def _choose(bot, st, seat, k=0):
    return bot.choose(rules.view(st, seat), seat, Rng(_seed(k), "test"))


def test_heuristic_completes_a_canvas_it_can_finish():
    cid = _card(4)
    studio = _studio_for(cid)
    st = _state(actor=0, first=0, studios=(tuple(studio), rules.ZERO), canvases=(((cid, "...."),), ()),
                market=tuple(c for c in (50, 51, 52)))
    a = _choose(HeuristicBot(), st, 0)
    assert a["do"] == "paint" and len(a["place"]) == 4
    after = rules.apply(st, 0, a)
    assert rules.is_complete(after.canvases[0][0][1])


def test_heuristic_works_when_its_studio_is_empty_and_it_owns_a_canvas():
    cid = _card(8)
    st = _state(actor=0, first=0, studios=(rules.ZERO, rules.ZERO), canvases=(((cid, "." * 8),), ()))
    assert _choose(HeuristicBot(), st, 0) == {"do": "work"}


def test_heuristic_buys_a_canvas_its_studio_covers_when_it_has_none():
    cid = _card(5)
    studio = _studio_for(cid)
    studio[rules.CI["B"]] += 2
    market = [c.id for c in CARDS if c.size >= 12][:2] + [cid]
    st = _state(actor=0, first=0, studios=(tuple(studio), rules.ZERO), canvases=((), ()),
                market=tuple(market), deck=tuple(c for c in range(len(CARDS)) if c not in market))
    a = _choose(HeuristicBot(), st, 0)
    assert a["do"] == "buy" and a["slot"] == 3, a


def test_heuristic_trades_surplus_for_a_needed_colour():
    cid = _card(4)
    need = rules.CI[CARDS[cid].squares[0][0]]
    studio = _studio_for(cid, skip=1)
    extra = next(c for c in range(7) if c != need)
    studio[extra] += 3      # surplus: the other squares are covered already
    pm = [0] * 8
    pm[need] = 2
    st = _state(actor=0, first=0, studios=(tuple(studio), rules.ZERO), canvases=(((cid, "...."),), ()),
                paint_market=tuple(pm))
    a = _choose(HeuristicBot(), st, 0)
    assert a["do"] == "trade" and a["take"] == {rules.COLOURS[need]: 1}, a
    # and then completes the canvas with the same turn
    st2 = rules.apply(st, 0, a)
    b = _choose(HeuristicBot(), st2, 0, 1)
    assert b["do"] == "paint" and rules.is_complete(rules.apply(st2, 0, b).canvases[0][0][1])


def test_heuristic_sells_every_complete_canvas_at_night():
    a, b = _card(4), _card(5)
    st = _state(actor=0, first=0, canvases=(((a, "".join(sq[0] for sq in CARDS[a].squares)),
                                             (b, "." * CARDS[b].size)), ()))
    st = replace(st, phase="night", step="announce")
    act = _choose(HeuristicBot(), st, 0)
    assert act == {"do": "sell", "canvases": [a], "supper": None}


def test_heuristic_collects_the_colours_it_needs():
    cid = _card(6)
    needed = CARDS[cid].squares[0][0]
    pm = [5 if c != needed else 1 for c in rules.COLOURS[:7]] + [0]
    st = _state(canvases=(((cid, "." * CARDS[cid].size),), ()), paint_market=tuple(pm),
                studios=(rules.ZERO, rules.ZERO))
    st = replace(st, phase="night", step="collect", actor=0, collection=((0, 40, 9, 4),), coll_next=0)
    act = _choose(HeuristicBot(), st, 0)
    assert act["do"] == "take" and act["cubes"].get(needed) == 1 and sum(act["cubes"].values()) == 4


def test_heuristic_answers_trades_by_need():
    cid = _card(4)
    need = CARDS[cid].squares[0][0]
    studio = list(_studio_for(cid, skip=1))
    spare = next(c for c in "ROYGBPK" if c != need)
    studio[rules.CI[spare]] += 2
    st = _state(3, studios=(rules.ZERO, tuple(studio), rules.ZERO), canvases=((), ((cid, "...."),), ()),
                step="answer", actor=0, answers=(None, None, None))
    good = replace(st, offer=(0, counts(**{need: 1}), counts(**{spare: 1}), False))
    assert _choose(HeuristicBot(), good, 1)["accept"] is True
    used = CARDS[cid].squares[1][0]
    bad = replace(st, offer=(0, counts(**{spare: 1}), counts(**{used: 1}), False))
    if used != spare:
        assert _choose(HeuristicBot(), bad, 1)["accept"] is False


# ------------------------------------------------------------------ search


def _midgame(players: int, seed: int, days: int = 3) -> rules.State:
    config = rules.configure({}, players)
    st = rules.setup(config, players, _seed(seed))
    crng = Rng(_seed(seed), "mid")
    bot = HeuristicBot()
    for k in range(2000):
        t = rules.turn(st)
        if t.kind == "chance":
            st = rules.chance(st, crng.u64().to_bytes(8, "big") * 4)
            continue
        if st.day > days and st.step == "turn":
            return st
        for s in t.seats:
            st = rules.apply(st, s, _choose(bot, st, s, k))
    raise AssertionError("no midgame state")


def test_search_move_is_fast_and_deterministic():
    bot = SearchBot()
    times = []
    ran = 0
    for players, seed in ((2, 1), (4, 2), (3, 3)):
        st = _midgame(players, seed)
        seat = rules.turn(st).seats[0]
        view = rules.view(st, seat)
        t0 = time.perf_counter()
        a = bot.choose(view, seat, Rng(_seed(5), "search"))
        times.append(time.perf_counter() - t0)
        assert rules.problems(st, seat, a) == []
        assert bot.choose(view, seat, Rng(_seed(5), "search")) == a
        # the search itself runs (the guard in choose is not what answers)
        searched = bot._search(view, rules.state_from_view(view, Rng(_seed(6), "d")), seat, Rng(_seed(6), "s"))
        assert searched is None or rules.problems(st, seat, searched) == []
        ran += searched is not None
    assert ran >= 2
    times.sort()
    assert times[1] < 1.0 and times[-1] < 3.0, times


def test_search_candidates_are_legal_and_led_by_the_heuristic():
    st = _midgame(2, 4)
    seat = st.actor
    cands = ai.candidates(st, seat, 6)
    assert 1 <= len(cands) <= 6
    assert all(rules.problems(st, seat, a) == [] for a in cands)
    assert cands[0] == ai._plain(rules.check(st, seat, ai.heuristic_action(st, seat)))
    assert len({repr(sorted(a.items())) for a in cands}) == len(cands)


def test_utility_ranks_places():
    st = _state(2)
    over = replace(st, phase="over", step="", actor=-1, score=(10, 4), end_reason="test")
    assert ai.utility(over, 0) > ai.utility(over, 1)
    assert ai.utility(over, 0) >= 0.9 and ai.utility(over, 1) <= 0.1
    mid = replace(st, score=(6, 2))
    assert ai.utility(mid, 0) > ai.utility(mid, 1)


def test_bots_are_pure():
    src = (Path(ai.__file__)).read_text()
    for word in ("import random", "import time", "datetime", "os.urandom", "threading"):
        assert word not in src


def test_heuristic_resets_only_a_useless_canvas_market():
    studio = counts(P=6)
    base = _state(actor=0, first=0, studios=(studio, rules.ZERO), canvases=((), ()))

    def score(cid):
        # a seat without a food canvas weighs food (need_food), as the bot does
        st = replace(base, market=(cid, -1, -1))
        return ai._buy_options(st, 0, ai._plan(st, 0), True)[0][0]

    worst = sorted(range(len(CARDS)), key=score)[:3]
    market = tuple(worst)
    st = replace(base, market=market, deck=tuple(c for c in range(len(CARDS)) if c not in market))
    assert all(b[0] < ai.RESET_BELOW for b in ai._buy_options(st, 0, ai._plan(st, 0), True))
    a = _choose(HeuristicBot(), st, 0)
    assert a["do"] == "reset" and sum(a["pay"].values()) == 2, a
    # a good canvas in the market: it buys instead
    best = max(range(len(CARDS)), key=score)
    st2 = replace(st, market=(best,) + market[1:])
    assert _choose(HeuristicBot(), st2, 0)["do"] == "buy"


def test_bot_levels_are_registered():
    from core.games.starving_artists import GAME

    assert GAME.bots["heuristic"] is HeuristicBot and GAME.bots["search"] is SearchBot
    for level in ("heuristic", "search"):
        assert hasattr(GAME.bots[level](), "choose")


def test_bench_reports_heuristic_table_figures():
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    import bench_starving_bots as bench

    games = [bench.play_table((2, k, 1)) for k in range(2)]
    out = bench.summarize_tables(games)["2-seat"]
    assert out["games"] == 2
    assert out["mean_sold_per_seat"] == round(sum(g["sold"] for g in games) / 4, 2)
    assert out["mean_winner_points"] == round(sum(g["winner_points"] for g in games) / 2, 2)
    assert out["starvation_share"] in (0.0, 0.5, 1.0) and out["mean_end_day"] >= 1
