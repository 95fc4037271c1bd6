"""Starving Artists engine: smoke and property tests, refusals, the rulebook's collection example,
and the decisions listed in core/games/starving_artists/RULES.md that name this file."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from core.encoding import decode, encode
from core.engine import ConfigError, IllegalAction
from core.games.starving_artists import GAME, rules
from core.games.starving_artists.bots import RandomBot, play_game, random_legal
from core.games.starving_artists.cards import CARDS
from core.rng import Rng

ALL = frozenset(range(len(CARDS)))


def _seed(k: int) -> bytes:
    return k.to_bytes(4, "big") + bytes(28)


def _ent(k: int) -> bytes:
    return bytes([k % 256]) * 32


def counts(**kw) -> tuple:
    return rules.counts_of(kw)


# ------------------------------------------------------------------ a greedy test bot (exercises sales)


class GreedyBot:
    """Paints as much as it can, buys when it has few canvases, sells everything complete,
    accepts offers, sometimes uses a free action.  Only for exercising the engine."""

    def choose(self, view, seat, rng):
        st = rules.state_from_view(view, rng)
        acts = rules.legal_actions(st, seat)
        step = view["step"]
        if step == "announce":
            return max(acts, key=lambda a: (len(a["canvases"]), a["supper"] is not None))
        if step == "answer":
            return acts[-1]
        if step in ("collect", "dusk"):
            return rules.default_action(st, seat)
        free = [a for a in acts if a["do"] in rules.FREE]
        if free and rng.below(3) == 0:
            return free[rng.below(len(free))]
        paints = [a for a in acts if a["do"] == "paint"]
        if paints:
            best = max(paints, key=lambda a: len(a["place"]))
            if len(best["place"]) >= 2 or rng.below(2):
                return best
        buys = [a for a in acts if a["do"] == "buy"]
        if buys and len(view["canvases"][seat]) < 2:
            return buys[0]
        return {"do": "work"}


# ------------------------------------------------------------------ invariants


def _cube_total(st: rules.State) -> int:
    held = sum(sum(x) for x in st.studios)
    on = sum(len(f) - f.count(".") for cs in st.canvases for _, f in cs)
    return sum(st.bag) + sum(st.paint_market) + held + on


def _invariants(st: rules.State) -> None:
    for c in (st.bag, st.paint_market, *st.studios):
        assert len(c) == 8 and min(c) >= 0
    if not st.pending:
        assert _cube_total(st) == 150
    assert all(0 <= x <= 5 for x in st.nutrition)
    for s in range(st.players):
        if st.alive[s]:
            assert st.nutrition[s] >= 1 or st.phase == "over"
        else:
            assert not st.canvases[s]
    for cs in st.canvases:
        for cid, f in cs:
            card = CARDS[cid]
            assert len(f) == card.size and f.count("W") <= 1
            for i, ch in enumerate(f):
                assert ch in ".W" or ch in card.squares[i]
    seen = list(st.deck) + [c for c in st.market if c != -1] + [c for cs in st.canvases for c, _ in cs] \
        + [c for g in st.sold for c in g] + list(st.discarded)
    assert len(seen) == len(set(seen))
    if st.players > 1:
        assert set(seen) == ALL
    assert _pending_ok(st)


def _pending_ok(st):
    flips = sum(1 for op in st.pending if op[0] == "canvas")
    return flips <= len(st.deck)


def _drive(config, players, seed, bots, *, check_legal=False, check_views=False, limit=20000):
    """Play to the end like the table: check every action, default actions always legal."""
    config = rules.configure(config, players)
    state = rules.setup(config, players, seed)
    crng = Rng(seed, "test/chance")
    kinds = set()
    for k in range(limit):
        _invariants(state)
        t = rules.turn(state)
        if t.kind == "over":
            return state, rules.result(state), kinds
        if t.kind == "chance":
            assert t.seats and all(state.alive[s] for s in t.seats)
            state = rules.chance(state, crng.u64().to_bytes(8, "big") * 4)
            continue
        assert t.kind in ("sequential", "simultaneous")
        if check_views:
            views = [rules.view(state, s) for s in range(players)]
            for s, v in enumerate(views):
                assert decode(encode(v)) == v
                assert dict(v, me=None) == dict(views[0], me=None)
                back = rules.state_from_view(v, Rng(seed, "rebuild/%d" % k))
                assert rules.view(back, s) == v
                assert len(back.deck) == len(state.deck)
        actions = []
        for s in t.seats:
            rules.check(state, s, rules.default_action(state, s))
            if check_legal:
                for a in rules.legal_actions(state, s):
                    rules.check(state, s, a)
            raw = bots[s].choose(rules.view(state, s), s, Rng(seed, "test/bot/%d/%d" % (s, k)))
            assert isinstance(rules.describe(state, s, raw), str)
            actions.append(rules.check(state, s, raw))
            kinds.add(raw["do"])
        for s, a in zip(t.seats, actions):
            state = rules.apply(state, s, a)
    raise AssertionError("game did not end")


OPTION_SETS = [
    {},
    {"edition": "junior"},
    {"color_study": True},
    {"player_trades": True},
    {"last_supper": True},
    {"remove_comics": True},
]


@pytest.mark.parametrize("players", [1, 2, 3, 4])
@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(o) or "default")
def test_random_and_greedy_games_end_without_error(players, options):
    if players > 1 and any(o in rules.SOLO_ONLY for o in options):
        with pytest.raises(ConfigError, match="solo game only"):
            rules.configure(options, players)
        return
    ended = set()
    for g in range(3):
        bots = [RandomBot()] * players
        st, res, _ = _drive(options, players, _seed(g), bots, check_legal=(g == 0))
        assert res is not None and sorted(res["ranking"]) == list(range(players))
        ended.add(res["reason"])
        bots = [GreedyBot()] * players
        st, res, kinds = _drive(options, players, _seed(100 + g), bots, check_legal=(g == 0))
        assert res is not None and res["winners"]
        assert "sell" in kinds or players == 1 or st.day <= 6
        if players == 1:
            assert res["rating"] in ("Keep trying", "Surviving", "Expert", "Professional")
        ended.add(res["reason"])
    assert ended


def test_views_are_encodable_public_and_rebuild_the_state():
    for players, options in ((4, {"player_trades": True}), (1, {"remove_comics": True}), (3, {"edition": "junior"})):
        _drive(options, players, _seed(7), [GreedyBot()] * players, check_views=True)


def test_greedy_games_sell_and_collect():
    reasons = []
    kinds = set()
    for g in range(6):
        st, res, k = _drive({}, 2, _seed(200 + g), [GreedyBot(), GreedyBot()])
        reasons.append(res["reason"])
        kinds |= k
    assert {"sell", "take", "buy", "paint", "work"} <= kinds
    assert all(r for r in reasons)


def test_full_four_player_random_game_is_fast():
    t0 = time.perf_counter()
    for g in range(5):
        play_game({}, 4, _seed(g), [RandomBot()] * 4)
    per_game = (time.perf_counter() - t0) / 5
    assert per_game < 0.2, per_game


def test_play_game_is_deterministic():
    a = play_game({"player_trades": True}, 3, _seed(3), [GreedyBot()] * 3)
    b = play_game({"player_trades": True}, 3, _seed(3), [GreedyBot()] * 3)
    assert a[0] == b[0] and a[1] == b[1]


def test_bot_registry_and_info():
    assert GAME.bots["random"] is RandomBot
    info = GAME.info
    assert info.name == "starving-artists" and info.min_players == 1 and info.max_players == 4
    assert info.editions == ("standard", "junior") and info.chance and info.simultaneous and not info.sealed
    assert set(rules.OPTION_HELP) == set(info.options) == set(rules.OPTIONS)


# ------------------------------------------------------------------ configuration


@pytest.mark.parametrize("options,players,word", [
    ({"edition": "senior"}, 2, "edition"),
    ({"colour_study": True}, 2, "unknown option"),
    ({"color_study": 1}, 2, "true or false"),
    ({"solo_canvases": 9}, 1, "10 to 92"),
    ({"solo_canvases": True}, 1, "10 to 92"),
    ({}, 5, "1 to 4 players"),
    ({}, 0, "1 to 4 players"),
    ("x", 2, "map"),
])
def test_configure_refuses_bad_options(options, players, word):
    with pytest.raises(ConfigError, match=word):
        rules.configure(options, players)


def test_configure_fills_defaults():
    assert rules.configure({}, 4) == rules.OPTIONS
    assert rules.configure({"last_supper": True}, 2)["last_supper"] is True


# ------------------------------------------------------------------ state building


def _base(players=3, **kw) -> rules.State:
    st = rules.setup({k: kw.pop(k) for k in list(kw) if k in rules.OPTIONS}, players, _seed(1))
    st = replace(st, first=0, actor=0, events=())
    return replace(st, **kw) if kw else st


def _card(pred, avoid=()) -> int:
    for c in CARDS:
        if pred(c) and c.id not in avoid:
            return c.id
    raise AssertionError("no such card")


def _complete(cid) -> str:
    return "".join(sq[0] for sq in CARDS[cid].squares)


def _studios(st, seat, cubes):
    s = list(st.studios)
    s[seat] = cubes
    return tuple(s)


def _cvs(st, seat, items):
    c = list(st.canvases)
    c[seat] = tuple(items)
    return tuple(c)


# ------------------------------------------------------------------ refusals (issue: bad input)


def test_wrong_colour_on_a_square_is_refused():
    cid = _card(lambda c: len(c.squares[0]) == 1 and c.squares[0][0] != "R")
    st = _base()
    st = replace(st, canvases=_cvs(st, 0, [(cid, "." * CARDS[cid].size)]), studios=_studios(st, 0, counts(R=3)))
    want = rules.COLOUR_NAME[CARDS[cid].squares[0][0]]
    with pytest.raises(IllegalAction, match="square 0 of '.*' takes %s, not red" % want):
        rules.apply(st, 0, {"do": "paint", "place": [[cid, 0, "R"]]})
    dia = _card(lambda c: any(len(q) == 2 for q in c.squares))
    sq = [i for i, q in enumerate(CARDS[dia].squares) if len(q) == 2][0]
    a, b = (rules.COLOUR_NAME[c] for c in CARDS[dia].squares[sq])
    other = [c for c in "ROYGBPK" if c not in CARDS[dia].squares[sq]][0]
    st = replace(st, canvases=_cvs(st, 0, [(dia, "." * CARDS[dia].size)]),
                 studios=_studios(st, 0, counts(**{other: 1, CARDS[dia].squares[sq][1]: 1})))
    with pytest.raises(IllegalAction, match="takes %s or %s, not" % (a, b)):
        rules.check(st, 0, {"do": "paint", "place": [[dia, sq, other]]})
    # either colour of the diamond is fine
    rules.check(st, 0, {"do": "paint", "place": [[dia, sq, CARDS[dia].squares[sq][1]]]})


def test_a_second_wild_on_a_canvas_is_refused():
    cid = _card(lambda c: c.size >= 4)
    st = _base()
    f = "W" + "." * (CARDS[cid].size - 1)
    st = replace(st, canvases=_cvs(st, 0, [(cid, f)]), studios=_studios(st, 0, counts(W=2)))
    with pytest.raises(IllegalAction, match="a canvas holds at most one wild cube"):
        rules.check(st, 0, {"do": "paint", "place": [[cid, 1, "W"]]})
    st = replace(st, canvases=_cvs(st, 0, [(cid, "." * CARDS[cid].size)]))
    with pytest.raises(IllegalAction, match="at most one wild"):
        rules.check(st, 0, {"do": "paint", "place": [[cid, 1, "W"], [cid, 2, "W"]]})
    rules.check(st, 0, {"do": "paint", "place": [[cid, 1, "W"]]})


def test_buying_without_the_cubes_is_refused():
    st = _base()
    st = replace(st, studios=_studios(st, 0, counts(R=1, B=1)))
    with pytest.raises(IllegalAction, match="you have only 1 red cube"):
        rules.apply(st, 0, {"do": "buy", "slot": 3, "pay": {"R": 3}})
    with pytest.raises(IllegalAction, match="exactly 3 cubes, not 2"):
        rules.check(st, 0, {"do": "buy", "slot": 3, "pay": {"R": 1, "B": 1}})
    with pytest.raises(IllegalAction, match="you have no green cube"):
        rules.check(st, 0, {"do": "buy", "slot": 1, "pay": {"G": 1}})
    rules.check(st, 0, {"do": "buy", "slot": 2, "pay": {"R": 1, "B": 1}})


def test_a_second_free_action_in_a_day_is_refused():
    st = _base()
    st = replace(st, studios=_studios(st, 0, counts(R=6, B=4)), paint_market=counts(Y=3, G=3))
    st2 = rules.apply(st, 0, {"do": "trade", "give": {"R": 2}, "take": {"Y": 1}})
    assert st2.actor == 0 and st2.step == "turn" and st2.studios[0] == counts(R=4, B=4, Y=1)
    for free in ({"do": "trade", "give": {"R": 2}, "take": {"G": 1}}, {"do": "reset", "pay": {"B": 2}}):
        with pytest.raises(IllegalAction, match="you already used your free action today"):
            rules.check(st2, 0, free)
    with pytest.raises(IllegalAction, match="already used your free action"):
        rules.check(st2, 0, {"do": "work", "then": {"do": "trade", "give": {"R": 2}, "take": {"G": 1}}})


def test_taking_a_wild_in_a_trade_is_refused():
    st = _base()
    st = replace(st, studios=_studios(st, 0, counts(R=2, W=1)), paint_market=counts(W=2, B=1))
    with pytest.raises(IllegalAction, match="you cannot take a wild cube from the Paint Market"):
        rules.check(st, 0, {"do": "trade", "give": {"R": 2}, "take": {"W": 1}})
    rules.check(st, 0, {"do": "trade", "give": {"R": 1, "W": 1}, "take": {"B": 1}})  # giving a wild is fine
    with pytest.raises(IllegalAction, match="2 cubes for 1, 5 for 2 or 9 for 3"):
        rules.check(st, 0, {"do": "trade", "give": {"R": 2, "W": 1}, "take": {"B": 1}})


def test_selling_an_unfinished_canvas_is_refused():
    a = _card(lambda c: c.size >= 3)
    st = _base()
    st = replace(st, phase="night", step="announce",
                 canvases=_cvs(st, 0, [(a, _complete(a)[:-1] + ".")]))
    with pytest.raises(IllegalAction, match="canvas '.*' is not complete"):
        rules.check(st, 0, {"do": "sell", "canvases": [a]})
    rules.check(st, 0, {"do": "sell", "canvases": []})


def test_acting_out_of_turn_is_refused():
    st = _base()
    with pytest.raises(IllegalAction, match="it is seat 0's turn, not yours"):
        rules.apply(st, 1, {"do": "work"})
    with pytest.raises(IllegalAction, match="there is no seat 7"):
        rules.check(st, 7, {"do": "work"})
    st2 = rules.apply(st, 0, {"do": "work"})
    with pytest.raises(IllegalAction, match="it is seat 1's turn"):
        rules.check(st2, 0, {"do": "work"})


@pytest.mark.parametrize("raw,word", [
    (None, "must be a map"),
    ({"do": "dance"}, "unknown action"),
    ({"do": "work", "x": 1}, "unknown key"),
    ({"do": "buy", "slot": "1", "pay": {"R": 1}}, "slot must be a whole number"),
    ({"do": "buy", "slot": True, "pay": {"R": 1}}, "slot must be a whole number"),
    ({"do": "buy", "slot": 1, "pay": {"X": 1}}, "not a colour"),
    ({"do": "buy", "slot": 1, "pay": {"R": -1}}, "0 or more"),
    ({"do": "buy", "slot": 1, "pay": [1]}, "must be a map"),
    ({"do": "paint", "place": []}, "1 to 4 placements"),
    ({"do": "paint", "place": [[0, 0]]}, "placement is"),
    ({"do": "paint", "place": [[999, 0, "R"]]}, "canvas id"),
    ({"do": "paint", "place": [[0, 0, "R"]] * 5}, "1 to 4"),
    ({"do": "work", "then": {"do": "work"}}, "then must be a free action"),
    ({"do": "trade", "give": {"R": 2}, "take": {"B": 1}, "then": {"do": "work"}}, "only a main action"),
    ({"do": "sell", "canvases": []}, "work, buy or paint"),
    ({"do": "study", "give": "R", "take": "B"}, "Color Study option is off"),
    ({"do": "offer", "give": {"R": 1}, "take": {"B": 1}}, "Player trades option is off"),
])
def test_hostile_and_malformed_actions_get_a_sentence(raw, word):
    st = _base()
    with pytest.raises(IllegalAction, match=word):
        rules.check(st, 0, raw)
    assert rules.problems(st, 0, raw) and isinstance(rules.describe(st, 0, raw), str)
    assert rules.problems(st, 0, {"do": "work"}) == []


def test_check_never_raises_anything_but_illegal_action():
    st = _base()
    weird = [1, "work", [], {"do": None}, {"do": "paint", "place": [[0, 1.5, "R"]]},
             {"do": "paint", "place": [["a", 0, "R"]]}, {"do": "trade", "give": {1: 2}, "take": {}},
             {"do": "take", "cubes": {}}, {"do": "answer", "accept": 1}, {"do": "buy", "slot": 2 ** 70}]
    for raw in weird:
        with pytest.raises(IllegalAction):
            rules.check(st, 0, raw)
        rules.describe(st, 0, raw)


# ------------------------------------------------------------------ the rulebook's collection example


def _night_sales(players, paints, market, seat_of=None, first=0, nutrition=2):
    """Seats 0..k-1 each hold one complete canvas of the given paint values; all announce it."""
    st = _base(players)
    used = set(c for c in st.market)
    canvases = list(st.canvases)
    ids = []
    for i, p in enumerate(paints):
        seat = seat_of[i] if seat_of else i
        cid = _card(lambda c, p=p: c.paint == p, avoid=used)
        used.add(cid)
        ids.append(cid)
        canvases[seat] = canvases[seat] + ((cid, _complete(cid)),)
    st = replace(st, phase="night", step="announce", actor=first, first=first, canvases=tuple(canvases),
                 paint_market=market, nutrition=(nutrition,) * players, deck=tuple(sorted(
                     set(st.deck) - set(ids))))
    return st, ids


def _run_collection(st):
    """Announce every complete canvas, then take by default; the (seat, n) of each collection action."""
    while st.phase == "night":
        t = rules.turn(st)
        if t.kind == "chance":
            st = rules.chance(st, _ent(5))
            continue
        s = t.seats[0]
        if st.step == "announce":
            done = [c for c, f in st.canvases[s] if rules.is_complete(f)]
            st = rules.apply(st, s, {"do": "sell", "canvases": done})
        else:
            st = rules.apply(st, s, rules.default_action(st, s))
    takes = []
    for d, text in st.events:
        if " collects " in text:
            seat = int(text.split()[1])
            cubes = text.split(" collects ")[1].split(" for ")[0]
            takes.append((seat, len(cubes.split(", "))))
    return st, takes


def test_rulebook_collection_example_a7_b9_c6_with_15_cubes():
    market = counts(R=3, O=2, Y=2, G=2, B=3, P=1, K=2)
    assert sum(market) == 15
    st, _ = _night_sales(3, [7, 9, 6], market)
    st, takes = _run_collection(st)
    # B takes 4, A 2, C 1; again; then B takes 1 and the market is empty
    assert takes == [(1, 4), (0, 2), (2, 1), (1, 4), (0, 2), (2, 1), (1, 1)]
    assert sum(st.paint_market) == 0


def test_collection_ties_share_the_amount_in_order_from_the_first_player():
    market = counts(R=5, O=5, Y=5, G=5, B=5, P=5, K=5)
    # seats 0,1,2 sell paint values 9, 9, 6; first player is seat 1
    st, _ = _night_sales(3, [9, 9, 6], market, first=1)
    st, takes = _run_collection(st)
    assert takes[:3] == [(1, 4), (0, 4), (2, 2)]
    got = {}
    for s, n in takes:
        got[s] = got.get(s, 0) + n
    assert got == {0: 9, 1: 9, 2: 6}


def test_several_paintings_of_one_seat_are_collected_separately():
    market = counts(R=5, O=5, Y=5, G=5, B=5, P=5, K=5)
    st, ids = _night_sales(2, [9, 7], market, seat_of=[0, 0])
    st, takes = _run_collection(st)
    assert takes[:2] == [(0, 4), (0, 2)]
    assert sum(n for _, n in takes) == 16


def test_collection_takes_at_most_one_wild_and_forced_takes_are_automatic():
    st, ids = _night_sales(2, [9], counts(W=3, R=1))
    st, takes = _run_collection(st)
    # first action: R + W (forced: the only multiset with at most one wild), then W, then W
    assert takes == [(0, 2), (0, 1), (0, 1)]
    assert st.paint_market == rules.ZERO
    st, _ = _night_sales(2, [9], counts(W=2, R=3, B=3))
    while rules.turn(st).kind != "sequential" or st.step != "collect":
        s = rules.turn(st).seats[0]
        st = rules.apply(st, s, {"do": "sell", "canvases": [c for c, _ in st.canvases[s]]})
    with pytest.raises(IllegalAction, match="at most one wild cube per collection action"):
        rules.check(st, 0, {"do": "take", "cubes": {"W": 2, "R": 2}})
    with pytest.raises(IllegalAction, match="exactly 4 cubes"):
        rules.check(st, 0, {"do": "take", "cubes": {"R": 3}})
    for a in rules.legal_actions(st, 0):
        rules.check(st, 0, a)


def test_food_overflow_draws_four_cubes_per_extra_food_from_the_bag():
    cid = _card(lambda c: c.food >= 2 and c.paint > 1)
    food = CARDS[cid].food
    st, _ = _night_sales(2, [CARDS[cid].paint], counts(R=3, B=3), nutrition=4)
    st = replace(st, canvases=_cvs(st, 0, [(cid, _complete(cid))]), studios=_studios(st, 0, rules.ZERO))
    bag_before = sum(st.bag)
    st = rules.apply(st, 0, {"do": "sell", "canvases": [cid]})
    extra = 4 + food - 5
    assert st.nutrition[0] == 5
    assert st.pending[0] == ("cubes", 0, 4 * extra)           # the draw first,
    assert st.pending[1][0] == "return"                      # then the canvas's cubes go back
    assert st.food_earned[0] == food and st.sold[0] == (cid,)
    assert rules.turn(st).kind == "chance"                     # before seat 0's collection action
    st = rules.chance(st, _ent(9))
    assert sum(st.studios[0]) == 4 * extra and not st.pending
    assert sum(st.bag) == bag_before - 4 * extra + len(_complete(cid))


def test_work_cubes_arrive_after_the_turn():
    st = _base(2)
    before = st.studios[0]
    st = replace(st, paint_market=counts(B=3))
    st1 = rules.apply(st, 0, {"do": "work"})
    assert st1.studios[0] == before and st1.pending == (("cubes", 0, 3),)
    assert rules.incoming(st1) == [3, 0]
    assert rules.turn(st1).kind == "sequential" and st1.actor == 1   # seat 1 acts before the draw
    st2 = rules.apply(st1, 1, {"do": "work"})
    t = rules.turn(st2)
    assert t.kind == "chance" and t.seats == (0, 1)                   # seat 0 decides next: draw first
    st3 = rules.chance(st2, _ent(1))
    assert sum(st3.studios[0]) == sum(before) + 3 and sum(st3.studios[1]) == sum(st2.studios[1]) + 3
    # different entropy, different cubes (eventually): the seed does not fix them
    outs = {rules.chance(st2, _ent(k)).studios[0] for k in range(8)}
    assert len(outs) > 1


def test_chance_asks_only_living_seats_and_solo_asks_the_player():
    st = _base(1)
    st = rules.apply(st, 0, {"do": "work"})
    assert st.phase == "afternoon" and rules.turn(st).kind == "chance" and rules.turn(st).seats == (0,)
    st = _base(3, alive=(True, False, True), nutrition=(3, 0, 3))
    st = replace(st, pending=(("market", 4),))
    assert rules.turn(st).seats == (0, 2)


def test_offer_goes_to_the_first_accepting_seat_clockwise_from_the_offerer():
    st = _base(4, player_trades=True)
    st = replace(st, first=1, actor=1, studios=(counts(B=1), counts(R=2), counts(B=1), counts(B=2)))
    off = rules.apply(st, 1, {"do": "offer", "give": {"R": 1}, "take": {"B": 1}})
    t = rules.turn(off)
    assert t.kind == "simultaneous" and t.seats == (0, 2, 3) and not t.sealed
    answers = {0: True, 2: False, 3: True}
    acts = {s: rules.check(off, s, {"do": "answer", "accept": a}) for s, a in answers.items()}
    s2 = off
    for s in t.seats:
        s2 = rules.apply(s2, s, acts[s])
    # clockwise from seat 1: 2 (declined), 3 (accepted) -> seat 3, not seat 0
    assert s2.studios[3] == counts(B=1, R=1) and s2.studios[1] == counts(R=1, B=1)
    assert s2.studios[0] == counts(B=1)
    assert s2.step == "turn" and s2.actor == 1 and s2.free_used[1]
    with pytest.raises(IllegalAction, match="already used your free action"):
        rules.check(s2, 1, {"do": "offer", "give": {"R": 1}, "take": {"B": 1}})
    # nobody able to accept: a seat without the cubes cannot say yes
    with pytest.raises(IllegalAction, match="you cannot accept: you have no purple"):
        rules.check(rules.apply(st, 1, {"do": "offer", "give": {"R": 1}, "take": {"P": 1}}), 0,
                    {"do": "answer", "accept": True})


def test_offer_as_then_ends_the_turn_after_the_answers():
    st = _base(2, player_trades=True)
    st = replace(st, studios=(counts(R=2), counts(B=2)))
    off = rules.apply(st, 0, {"do": "work", "then": {"do": "offer", "give": {"R": 1}, "take": {"B": 1}}})
    assert off.step == "answer"
    done = rules.apply(off, 1, {"do": "answer", "accept": False})
    assert done.actor == 1 and done.step == "turn"


def test_paintings_count_when_sold_not_when_complete():
    cid = [c.id for c in CARDS if c.stars == 1][:6]
    st = _base(4)
    st = replace(st, canvases=_cvs(st, 0, [(c, _complete(c)) for c in cid[:5]]), phase="night",
                 step="announce", sold=((cid[5],), (), (), ()), deck=tuple(sorted(set(st.deck) - set(cid))))
    keep = rules.apply(st, 0, {"do": "sell", "canvases": []})
    assert keep.phase == "morning" and keep.day == 2          # 5 complete, 1 sold: no end
    sold4 = rules.apply(st, 0, {"do": "sell", "canvases": cid[:4]})
    assert sold4.phase == "over" and rules.result(sold4)["sold"][0] == 5


def test_starvation_gives_the_others_exactly_one_more_day_and_the_starved_can_win():
    st = _base(3)
    st = replace(st, phase="afternoon", actor=2, nutrition=(1, 2, 2), score=(5, 1, 0), day=4)
    st = rules.apply(st, 2, {"do": "work"})
    assert st.day == 5 and not st.alive[0] and st.starve_day == 5 and st.first == 1
    assert st.canvases[0] == () and ("studio", 0) in st.pending
    while st.phase != "over":
        t = rules.turn(st)
        if t.kind == "chance":
            assert 0 not in t.seats
            st = rules.chance(st, _ent(3))
        else:
            st = rules.apply(st, t.seats[0], rules.default_action(st, t.seats[0]))
    assert st.day == 5
    res = rules.result(st)
    assert res["winners"] == [0] and res["starved"] == [True, False, False] and res["cubes"][0] == 0


def test_ranking_tiebreaks_and_shared_places():
    st = _base(4)
    st = replace(st, phase="over", step="", actor=-1, score=(5, 5, 5, 2), sold=((1, 2), (3, 4), (5,), ()),
                 food_earned=(3, 3, 9, 9), studios=(counts(R=2), counts(B=2), counts(R=9), counts()))
    res = rules.result(st)
    assert res["ranking"][:2] == [0, 1] and res["places"] == [1, 1, 3, 4] and res["winners"] == [0, 1]
    st = replace(st, studios=(counts(R=2), counts(B=3), counts(), counts()))
    res = rules.result(st)
    assert res["ranking"] == [1, 0, 2, 3] and res["places"] == [2, 1, 3, 4]
    # cubes drawn but not yet arrived count for the tie-break: no chance step at the end
    st = replace(st, pending=(("cubes", 0, 3),))
    assert rules.turn(st).kind == "over" and rules.result(st)["cubes"][0] == 5


@pytest.mark.parametrize("points,rating", [(0, "Keep trying"), (9, "Keep trying"), (10, "Surviving"),
                                           (19, "Surviving"), (20, "Expert"), (24, "Expert"),
                                           (25, "Professional"), (40, "Professional")])
def test_solo_rating_bands(points, rating):
    assert rules.solo_rating(points) == rating
    st = replace(_base(1), phase="over", step="", actor=-1, score=(points,))
    assert rules.result(st)["rating"] == rating


def test_solo_deck_and_remove_comics():
    st = rules.setup({}, 1, _seed(4))
    assert len(st.deck) + 3 == 35
    st = rules.setup({"remove_comics": True, "solo_canvases": 92}, 1, _seed(4))
    cards = set(st.deck) | set(st.market)
    assert all(CARDS[c].stars > 0 for c in cards) and len(cards) == sum(1 for c in CARDS if c.stars > 0)
    assert len(rules.setup({}, 4, _seed(4)).deck) == 89


def test_solo_end_of_day_removes_slot_one_and_returns_matching_cubes():
    cid = _card(lambda c: sum(1 for q in c.squares if len(q) == 1) >= 3)
    single = [q[0] for q in CARDS[cid].squares if len(q) == 1]
    c0 = single[0]
    st = _base(1)
    m = list(st.market)
    m[0] = cid
    st = replace(st, market=tuple(m), deck=tuple(c for c in st.deck if c != cid), phase="afternoon",
                 paint_market=counts(**{c0: 1, "W": 2}), studios=(counts(),))
    st2 = rules.apply(st, 0, {"do": "work"})
    assert cid in st2.discarded and st2.market[0] == m[1] and st2.market[1] == m[2]
    # only one cube of c0 was there: one goes back; wilds never match
    assert st2.paint_market[rules.CI[c0]] == 0 and st2.paint_market[rules.WILD] >= 2
    assert ("canvas", 3) in st2.pending


def test_solo_ends_when_the_canvas_market_is_empty():
    st = _base(1)
    st = replace(st, deck=(), market=(st.market[0], -1, -1), phase="afternoon", studios=(counts(),))
    st2 = rules.apply(st, 0, {"do": "work"})
    assert st2.phase == "over" and "market is empty" in rules.result(st2)["reason"]


def test_buy_shifts_the_row_and_flips_into_slot_three():
    st = _base(2)
    st = replace(st, studios=_studios(st, 0, counts(R=2)))
    a, b, c = st.market
    st2 = rules.apply(st, 0, {"do": "buy", "slot": 2, "pay": {"R": 2}})
    assert st2.market == (a, c, -1) and st2.pending == (("canvas", 3),)
    assert st2.canvases[0] == ((b, "." * CARDS[b].size),) and st2.paint_market[0] == st.paint_market[0] + 2
    assert rules.turn(st2).kind == "chance"
    st3 = rules.chance(st2, _ent(2))
    assert st3.market[2] != -1 and st3.market[2] in st2.deck and len(st3.deck) == len(st2.deck) - 1


def test_reset_flips_three_and_the_seat_may_still_buy():
    st = _base(2)
    st = replace(st, studios=_studios(st, 0, counts(R=2, B=1)))
    old = st.market
    st2 = rules.apply(st, 0, {"do": "reset", "pay": {"R": 2}})
    assert st2.market == (-1, -1, -1) and set(old) <= set(st2.discarded)
    st3 = rules.chance(st2, _ent(4))
    assert -1 not in st3.market and st3.actor == 0 and st3.step == "turn"
    rules.check(st3, 0, {"do": "buy", "slot": 1, "pay": {"B": 1}})
    # a reset after the buy (decision 15 withdrawn): the buy's card is turned over, then discarded
    both = rules.apply(st, 0, {"do": "buy", "slot": 1, "pay": {"B": 1}, "then": {"do": "reset", "pay": {"R": 2}}})
    assert both.pending == (("canvas", 3), ("reset",), ("canvas", 1), ("canvas", 2), ("canvas", 3))
    assert both.actor == 1 and both.canvases[0][0][0] == old[0]
    with pytest.raises(IllegalAction, match="deck is empty"):
        rules.check(replace(st, deck=()), 0, {"do": "reset", "pay": {"R": 2}})


def test_colour_study_takes_any_colour_from_the_bag():
    st = _base(2, color_study=True)
    st = replace(st, studios=_studios(st, 0, counts(R=4)))
    st2 = rules.apply(st, 0, {"do": "study", "give": "R", "take": "W"})
    assert st2.studios[0] == counts(W=1) and st2.bag[rules.WILD] == st.bag[rules.WILD] - 1
    assert st2.paint_market[0] == st.paint_market[0] + 4
    with pytest.raises(IllegalAction, match="reads the bag"):
        rules.check(st, 0, {"do": "work", "then": {"do": "study", "give": "R", "take": "B"}})
    with pytest.raises(IllegalAction, match="needs 4 red cubes; you have 3"):
        rules.check(replace(st, studios=_studios(st, 0, counts(R=3))), 0, {"do": "study", "give": "R", "take": "B"})
    # with color study on, pending draws are resolved before every turn
    assert rules.turn(replace(st2, pending=(("return", counts(R=1)),))).kind == "chance"


def test_last_supper():
    cid = _card(lambda c: c.stars >= 2)
    st = _base(2, last_supper=True)
    st = replace(st, phase="night", step="announce", nutrition=(1, 3),
                 canvases=_cvs(st, 0, [(cid, _complete(cid))]))
    with pytest.raises(IllegalAction, match="Last Supper is only for an artist at nutrition 1"):
        rules.check(replace(st, nutrition=(2, 3)), 0, {"do": "sell", "canvases": [], "supper": cid})
    with pytest.raises(IllegalAction, match="both sold and eaten"):
        rules.check(st, 0, {"do": "sell", "canvases": [cid], "supper": cid})
    st2 = rules.apply(st, 0, {"do": "sell", "canvases": [], "supper": cid})
    assert st2.nutrition[0] == min(5, 1 + CARDS[cid].stars) - 1 and st2.alive[0]   # next day started
    assert cid in st2.discarded and st2.sold[0] == () and st2.score[0] == 0
    off = _base(2)
    with pytest.raises(IllegalAction, match="Last Supper option is off"):
        rules.check(replace(off, phase="night", step="announce", nutrition=(1, 3),
                            canvases=_cvs(off, 0, [(cid, _complete(cid))])), 0,
                    {"do": "sell", "canvases": [], "supper": cid})


def test_junior_costs_one_pays_from_the_bag_and_caps_the_market():
    st = rules.setup({"edition": "junior"}, 2, _seed(2))
    assert st.paint_market == (1, 1, 1, 1, 1, 1, 1, 0)
    st = replace(st, first=0, actor=0, studios=_studios(st, 0, counts(R=5)))
    st2 = rules.apply(st, 0, {"do": "buy", "slot": 3, "pay": {"R": 1}})
    # "Use the Paint Market only to trade for paints": the payment goes to the bag (before the flip)
    assert st2.paint_market[0] == 1 and st2.pending == (("canvas", 3),) and st2.bag[0] == st.bag[0] + 1
    st3 = rules.apply(replace(st, paint_market=counts(R=3)), 0, {"do": "trade", "give": {"R": 5}, "take": {"R": 2}})
    # market R: 3 - 2 + 5 = 6 -> 2 extras back to the bag
    assert st3.paint_market[0] == 4 and st3.bag[0] == st.bag[0] + 2
    cid = _card(lambda c: c.paint > 0)
    night = replace(st, phase="night", step="announce", canvases=_cvs(st, 0, [(cid, _complete(cid))]))
    after = rules.apply(night, 0, {"do": "sell", "canvases": [cid]})
    assert ("cubes", 0, CARDS[cid].paint) in after.pending and after.paint_market == night.paint_market


def test_first_player_marker_passes_each_day_from_day_two():
    st = _base(3)
    assert st.day == 1
    st = replace(st, phase="afternoon", actor=2)
    st = rules.apply(st, 2, {"do": "work"})
    assert st.day == 2 and st.first == 1 and st.actor == 1 and st.nutrition == (4, 4, 4)
    assert ("market", 4) in st.pending and rules.turn(st).kind == "chance"


def test_setup_deals_from_the_seed():
    for n in (1, 2, 3, 4):
        st = rules.setup({}, n, _seed(n))
        assert st.day == 1 and st.phase == "morning" and st.actor == st.first and 0 <= st.first < n
        assert all(sum(x) == 6 for x in st.studios) and st.nutrition == (5,) * n and st.score == (0,) * n
        assert -1 not in st.market and sum(st.paint_market) == 4 and not st.pending
        assert sum(st.bag) == 150 - 6 * n - 4 and list(st.deck) == sorted(st.deck)
        assert rules.turn(st).kind == "sequential"
    assert {rules.setup({}, 4, _seed(k)).first for k in range(12)} == {0, 1, 2, 3}


def test_trade_takes_from_the_market_as_it_was_before_the_give():
    st = _base()
    st = replace(st, studios=_studios(st, 0, counts(R=2)), paint_market=counts(B=1))
    with pytest.raises(IllegalAction, match="the Paint Market has no red cube"):
        rules.check(st, 0, {"do": "trade", "give": {"R": 2}, "take": {"R": 1}})


def test_returned_cubes_queue_behind_pending_draws():
    st = _base(2)
    st = replace(st, phase="afternoon", actor=1, nutrition=(1, 3), studios=(counts(R=2), counts(B=2)))
    st = rules.apply(st, 1, {"do": "work"})          # seat 1's draw is pending; day 2 starts; seat 0 starves
    assert st.pending[0] == ("cubes", 1, 3) and ("studio", 0) in st.pending
    assert st.bag == _base(2).bag                   # nothing went back yet: the draw comes first
    st = rules.chance(st, _ent(6))
    assert st.studios[0] == rules.ZERO and sum(st.studios[1]) == 5 and _cube_total(st) == _cube_total(
        replace(_base(2), studios=(counts(R=2), counts(B=2))))


def test_solo_diamond_returns_nothing_when_one_of_its_colours_is_missing():
    cid = _card(lambda c: any(len(q) == 2 for q in c.squares))
    sq = [q for q in CARDS[cid].squares if len(q) == 2][0]
    a = sq[0]
    singles_a = sum(1 for q in CARDS[cid].squares if q == (a,))
    diamonds_with_a = sum(1 for q in CARDS[cid].squares if len(q) == 2 and a in q)
    st = _base(1)
    m = list(st.market)
    m[0] = cid
    st = replace(st, market=tuple(m), deck=tuple(c for c in st.deck if c != cid), phase="afternoon",
                 paint_market=counts(**{a: 9}), studios=(counts(),))
    st2 = rules.apply(st, 0, {"do": "work"})
    if rules.turn(st2).kind == "chance":
        st2 = rules.chance(st2, _ent(5))
    if st2.step == "dusk":
        st2 = rules.apply(st2, 0, rules.default_action(st2, 0))
    # the single squares of colour a take one cube each; every diamond with a could name its other colour
    assert st2.paint_market[rules.CI[a]] == 9 - singles_a
    assert diamonds_with_a >= 1
