"""Starving Artists: the rules, sentence by sentence.

One named test per sentence of issue 5 section 2 ("Starving Artists, complete"), per numbered
decision of core/games/starving_artists/RULES.md, and the rulebook's worked example of getting
paid.  Every scenario starts from a real ``setup`` state whose fields are replaced
(``dataclasses.replace``) and is then driven through ``check`` / ``apply`` / ``chance`` only.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from core.encoding import encode
from core.engine import IllegalAction
from core.games.starving_artists import GAME, rules
from core.games.starving_artists.cards import CARDS

from .starving_util import (
    at, base, card_where, cards_where, collect_log, cubes, empty, ent, full, night, run, seed,
    sell_all, settle, total_cubes, with_canvases,
)

CI = rules.CI
W = rules.WILD


def sub(a, b):
    return tuple(x - y for x, y in zip(a, b))


def add(a, b):
    return tuple(x + y for x, y in zip(a, b))


def filled_counts(filled: str) -> tuple:
    return cubes(**Counter(ch for ch in filled if ch != "."))


def last_turn_of_day(st):
    """``st`` at the afternoon turn of the last seat in order from the first player."""
    order = rules.order_from(st.first, st.alive)
    return replace(st, phase="afternoon", step="turn", actor=order[-1])


def decisions(st, max_steps=400):
    """Drive with default actions until the night; the (phase, seat) of each decision."""
    out = []
    day = st.day
    for i in range(max_steps):
        if st.phase in ("night", "over") or st.step != "turn" or st.day != day:
            return out, st
        t = rules.turn(st)
        if t.kind == "chance":
            st = rules.chance(st, ent(i))
            continue
        out.append((st.phase, t.seats[0]))
        st = rules.apply(st, t.seats[0], {"do": "work"})
    raise AssertionError("no night")


def sellers(players, paints, pm, first=0, seat_of=None, nutrition=1, **fields):
    """A night where seat i (or seat_of[i]) holds one complete canvas of paint value paints[i]."""
    st = base(players, first=first)
    used: set = set()
    per: dict = {}
    ids = []
    for i, p in enumerate(paints):
        seat = seat_of[i] if seat_of else i
        cid = card_where(lambda c, p=p: c.paint == p and c.food <= 4, avoid=used)
        used.add(cid)
        ids.append(cid)
        per.setdefault(seat, []).append((cid, full(cid)))
    st = with_canvases(st, per)
    st = replace(st, paint_market=pm, nutrition=(nutrition,) * players, **fields)
    return night(st), ids


def announce_all(st):
    """Every seat in turn announces all its complete canvases; returns the state after the last."""
    while st.phase == "night" and st.step == "announce":
        t = rules.turn(st)
        if t.kind == "chance":
            st = rules.chance(st, ent(77))
            continue
        st = rules.apply(st, st.actor, sell_all(st, st.actor))
    return st


def finish_night(st):
    """Announce everything and collect with the default ("take best") pick."""
    return run(st, policy=lambda s, seat: sell_all(s, seat) if s.step == "announce" else None,
               until=lambda s: s.phase != "night")


# =====================================================================================
# Components


def test_components_150_cubes_by_colour():
    assert rules.COLOURS == "ROYGBPKW"
    assert dict(zip(rules.COLOURS, rules.BAG)) == {
        "R": 15, "O": 20, "Y": 20, "G": 20, "B": 30, "P": 15, "K": 20, "W": 10}
    assert sum(rules.BAG) == 150
    for players in (1, 2, 3, 4):
        st = rules.setup({}, players, seed(players))
        assert total_cubes(st) == 150
        per_colour = add(add(st.bag, st.paint_market), tuple(map(sum, zip(*st.studios))))
        assert per_colour == rules.BAG


def test_components_92_canvas_cards_loaded():
    assert len(CARDS) == 92 and [c.id for c in CARDS] == list(range(92))
    for c in CARDS:
        assert c.title and c.painter and isinstance(c.year, int)
        assert c.size >= 1 and all(1 <= len(q) <= 2 for q in c.squares)
        assert all("W" not in q for q in c.squares)
    st = rules.setup({}, 4, seed(3))
    assert len(st.deck) + sum(1 for c in st.market if c != -1) == 92


# =====================================================================================
# Setup


def test_setup_first_player_from_the_seed():
    firsts = {rules.setup({}, 4, seed(k)).first for k in range(40)}
    assert firsts == {0, 1, 2, 3}
    a = rules.setup({}, 4, seed(5))
    assert a == rules.setup({}, 4, seed(5))           # same seed, same table
    assert a.actor == a.first and a.day == 1 and a.phase == "morning"
    assert rules.turn(a).seats == (a.first,)


def test_setup_nutrition_five_and_score_zero():
    st = rules.setup({}, 3, seed(2))
    assert st.nutrition == (5, 5, 5) and st.score == (0, 0, 0)
    assert st.sold == ((), (), ()) and st.food_earned == (0, 0, 0) and st.alive == (True,) * 3


def test_setup_six_cubes_each_from_the_bag():
    st = rules.setup({}, 4, seed(6))
    assert [sum(s) for s in st.studios] == [6, 6, 6, 6]
    assert st.canvases == ((),) * 4
    # they came out of the bag: the bag lacks exactly the studios and the Paint Market
    drawn = add(tuple(map(sum, zip(*st.studios))), st.paint_market)
    assert add(st.bag, drawn) == rules.BAG
    assert len({s for s in st.studios}) > 1            # random, not one fixed hand


def test_setup_three_canvases_at_costs_1_2_3():
    st = base(2)
    assert len(set(st.market)) == 3 and -1 not in st.market
    assert not set(st.market) & set(st.deck)
    assert rules.view(st, 0)["market_costs"] == [1, 2, 3]
    st = replace(st, studios=at(st.studios, 0, cubes(K=5)))
    for slot in (1, 2, 3):
        rules.check(st, 0, {"do": "buy", "slot": slot, "pay": {"K": slot}})
        for wrong in {1, 2, 3} - {slot}:
            with pytest.raises(IllegalAction, match="exactly %d cube" % slot):
                rules.check(st, 0, {"do": "buy", "slot": slot, "pay": {"K": wrong}})


def test_setup_paint_market_gets_four_cubes_on_day_one():
    st = rules.setup({}, 3, seed(8))
    assert sum(st.paint_market) == 4 and not st.pending


# =====================================================================================
# Buying


@pytest.mark.parametrize("slot", [1, 2, 3])
def test_buying_shifts_the_row_toward_slot_1_and_flips_into_slot_3(slot):
    st = base(2)
    st = replace(st, studios=at(st.studios, 0, cubes(B=3)))
    row = list(st.market)
    bought = row[slot - 1]
    st2 = rules.apply(st, 0, {"do": "buy", "slot": slot, "pay": {"B": slot}})
    rest = [c for c in row if c != bought]
    assert st2.market == (rest[0], rest[1], -1)
    assert st2.pending == (("canvas", 3),)
    assert st2.canvases[0] == ((bought, empty(bought)),)
    st3 = rules.chance(st2, ent(slot))
    assert st3.market[:2] == (rest[0], rest[1])
    assert st3.market[2] in st.deck and st3.market[2] not in st3.deck
    assert len(st3.deck) == len(st.deck) - 1


def test_buying_pays_the_slot_cost_to_the_paint_market():
    st = base(2)
    st = replace(st, studios=at(st.studios, 0, cubes(R=1, W=1, G=2)), paint_market=cubes(Y=1))
    st2 = rules.apply(st, 0, {"do": "buy", "slot": 3, "pay": {"R": 1, "W": 1, "G": 1}})
    assert st2.paint_market == cubes(Y=1, R=1, W=1, G=1)
    assert st2.studios[0] == cubes(G=1)
    assert st2.bag == st.bag


def test_buying_without_the_cubes_is_refused():
    st = base(2)
    st = replace(st, studios=at(st.studios, 0, cubes(R=2)))
    with pytest.raises(IllegalAction, match="you have only 2 red cubes"):
        rules.apply(st, 0, {"do": "buy", "slot": 3, "pay": {"R": 3}})
    with pytest.raises(IllegalAction, match="you have no blue cube"):
        rules.check(st, 0, {"do": "buy", "slot": 1, "pay": {"B": 1}})
    st = replace(st, studios=at(st.studios, 0, cubes()))
    assert all(a["do"] != "buy" for a in rules.legal_actions(st, 0))


def test_buying_with_an_empty_deck_leaves_slot_3_empty_without_a_chance_step():
    st = base(2)
    st = replace(st, deck=(), studios=at(st.studios, 0, cubes(R=1)))
    a, b, c = st.market
    st2 = rules.apply(st, 0, {"do": "buy", "slot": 1, "pay": {"R": 1}})
    assert st2.market == (b, c, -1) and st2.pending == ()
    assert rules.turn(st2).kind == "sequential" and st2.actor == 1


def test_buying_from_an_empty_slot_is_refused():
    st = base(2)
    st = replace(st, market=(st.market[0], st.market[1], -1), studios=at(st.studios, 0, cubes(R=3)))
    with pytest.raises(IllegalAction, match="slot 3 of the canvas market is empty"):
        rules.check(st, 0, {"do": "buy", "slot": 3, "pay": {"R": 3}})


# =====================================================================================
# The start of a day


def test_day_one_has_no_marker_pass_and_no_nutrition_loss():
    st = rules.setup({}, 3, seed(11))
    first = st.first
    order, st2 = decisions(st)
    assert order[0] == ("morning", first)
    assert st.nutrition == (5, 5, 5) and st.day == 1


def test_day_start_marker_passes_clockwise():
    st = base(4, first=2)
    seen = [st.first]
    for _ in range(5):
        d = st.day
        st = run(st, until=lambda s, d=d: s.day == d + 1)
        seen.append(st.first)
    assert seen == [2, 3, 0, 1, 2, 3]


def test_day_start_four_cubes_from_the_bag_to_the_paint_market():
    st = base(3)
    st = replace(last_turn_of_day(st), paint_market=cubes(R=1))
    # end the day with an action that draws nothing from the bag: a purchase
    st = replace(st, studios=at(st.studios, st.actor, cubes(K=1)))
    st2 = rules.apply(st, st.actor, {"do": "buy", "slot": 1, "pay": {"K": 1}})
    assert st2.day == 2 and ("market", 4) in st2.pending
    assert rules.turn(st2).kind == "chance"                   # before anyone acts
    st3 = rules.chance(st2, ent(1))
    assert sum(st3.paint_market) == 1 + 1 + 4                 # R, the K paid, four new
    assert sum(st3.bag) == sum(st2.bag) - 4


def test_day_start_nutrition_drops_by_one_except_day_one():
    st = base(3)
    assert st.nutrition == (5, 5, 5)
    st = run(st, until=lambda s: s.day == 2)
    assert st.nutrition == (4, 4, 4)
    st = run(st, until=lambda s: s.day == 3)
    assert st.nutrition == (3, 3, 3)


def test_day_start_seat_below_1_is_out_and_its_cubes_go_back_to_the_bag():
    cid = card_where(lambda c: c.size >= 3)
    st = base(3)
    f = full(cid)[:2] + "." * (CARDS[cid].size - 2)
    st = with_canvases(st, {0: [(cid, f)]})
    st = replace(last_turn_of_day(st), nutrition=(1, 3, 3), studios=at(st.studios, 0, cubes(R=2, W=1)))
    bag0 = st.bag
    st2 = rules.apply(st, st.actor, {"do": "work"})         # seat 2 ends day 1
    assert st2.day == 2 and st2.alive == (False, True, True) and st2.nutrition[0] == 0
    assert st2.canvases[0] == ()
    t = rules.turn(st2)
    assert t.kind == "chance" and 0 not in t.seats
    st3 = rules.chance(st2, ent(2))
    assert st3.studios[0] == cubes()
    # bag: - 3 (seat 2's work) - 4 (Paint Market) + studio (R2 W1) + canvas cubes
    assert sum(st3.bag) == sum(bag0) - 3 - 4 + 3 + 2
    assert total_cubes(st3) == total_cubes(st)                # no cube lost or made
    with pytest.raises(IllegalAction, match="you starved"):
        rules.check(st3, 0, {"do": "work"})


def test_day_start_after_a_starvation_the_others_get_exactly_one_more_day():
    st = base(3)
    st = replace(last_turn_of_day(st), day=3, nutrition=(1, 4, 4))
    st = rules.apply(st, st.actor, {"do": "work"})
    assert st.day == 4 and not st.alive[0] and st.phase == "morning"
    order, st2 = decisions(st)
    # day 4 is played in full by the survivors, then the game ends after its night
    assert [s for _, s in order] == [1, 2, 1, 2]
    st3 = run(st2)
    assert st3.phase == "over" and st3.day == 4
    assert rules.turn(st3).kind == "over"


def test_day_start_the_marker_skips_a_starved_seat():
    st = base(4, first=0)
    st = replace(last_turn_of_day(st), nutrition=(3, 1, 1, 3))
    st2 = rules.apply(st, st.actor, {"do": "work"})
    # the marker would pass to seat 1, which starves with seat 2: it goes on to seat 3
    assert st2.alive == (True, False, False, True) and st2.first == 3
    order, _ = decisions(st2)
    assert [s for _, s in order] == [3, 0, 3, 0]


def test_day_start_marker_skips_starved_seat_on_later_days():
    # seat 1 starved earlier (game continued since the day after has not ended in this
    # constructed state): the marker moving from seat 0 skips it
    st = base(3, first=0)
    st = replace(last_turn_of_day(replace(st, alive=(True, False, True), nutrition=(4, 0, 4),
                                          canvases=((), (), ()), studios=at(st.studios, 1, cubes()))),
                 day=2, starve_day=0)
    st2 = rules.apply(st, st.actor, {"do": "work"})
    assert st2.first == 2 and st2.actor == 2


# =====================================================================================
# Morning and afternoon


def test_morning_and_afternoon_in_order_from_the_first_player():
    st = base(4, first=2)
    order, st2 = decisions(st)
    assert order == [("morning", 2), ("morning", 3), ("morning", 0), ("morning", 1),
                     ("afternoon", 2), ("afternoon", 3), ("afternoon", 0), ("afternoon", 1)]
    assert st2.phase == "night" or st2.day == 2


# =====================================================================================
# Work


def test_work_draws_three_cubes_from_the_bag():
    st = base(2)
    st1 = rules.apply(st, 0, {"do": "work"})
    assert st1.studios == st.studios and st1.bag == st.bag    # nothing drawn yet
    assert st1.pending == (("cubes", 0, 3),)
    st2 = rules.chance(st1, ent(3))
    gained = sub(st2.studios[0], st.studios[0])
    assert sum(gained) == 3 and min(gained) >= 0
    assert sub(st.bag, st2.bag) == gained


def test_work_cubes_cannot_be_painted_or_traded_this_turn():
    cid = card_where(lambda c: c.size >= 3)
    st = base(2)
    st = with_canvases(st, {0: [(cid, empty(cid))]})
    st = replace(st, studios=at(st.studios, 0, cubes()), paint_market=cubes(R=3))
    # a free action after the work cannot use the cubes the work draws
    with pytest.raises(IllegalAction, match="you have no"):
        rules.check(st, 0, {"do": "work", "then": {"do": "trade", "give": {"B": 2}, "take": {"R": 1}}})
    st1 = rules.apply(st, 0, {"do": "work"})
    assert st1.actor == 1 and st1.studios[0] == cubes()   # the turn is over, cubes not yet in


def test_work_cubes_arrive_at_the_end_of_the_turn():
    st = base(2)
    st1 = rules.apply(st, 0, {"do": "work"})
    assert rules.incoming(st1) == [3, 0]
    assert rules.view(st1, 1)["incoming"] == [3, 0]
    st2 = run(st1, until=lambda s: s.actor == 0 and rules.turn(s).kind == "sequential")
    assert st2.phase == "afternoon" and sum(st2.studios[0]) == sum(st.studios[0]) + 3


# =====================================================================================
# Paint


def _painter(cid, studio, seat=0, players=2, filled=None):
    st = base(players)
    st = with_canvases(st, {seat: [(cid, filled or empty(cid))]})
    return replace(st, studios=at(st.studios, seat, studio), first=seat, actor=seat)


def test_paint_up_to_four_cubes():
    cid = card_where(lambda c: c.size >= 5 and all(len(q) == 1 for q in c.squares[:5]))
    cols = [CARDS[cid].squares[i][0] for i in range(5)]
    st = _painter(cid, cubes(**Counter(cols)))
    four = [[cid, i, cols[i]] for i in range(4)]
    st2 = rules.apply(st, 0, {"do": "paint", "place": four})
    assert st2.canvases[0][0][1][:4] == "".join(cols[:4])
    assert st2.studios[0] == cubes(**{cols[4]: 1})
    with pytest.raises(IllegalAction, match="1 to 4 placements"):
        rules.check(st, 0, {"do": "paint", "place": four + [[cid, 4, cols[4]]]})


def test_paint_exact_colour_and_wrong_colour_refused():
    cid = card_where(lambda c: len(c.squares[0]) == 1)
    col = CARDS[cid].squares[0][0]
    other = next(c for c in "ROYGBPK" if c != col)
    st = _painter(cid, cubes(**{col: 1, other: 1}))
    with pytest.raises(IllegalAction, match="square 0 of .* takes %s, not %s"
                       % (rules.COLOUR_NAME[col], rules.COLOUR_NAME[other])):
        rules.check(st, 0, {"do": "paint", "place": [[cid, 0, other]]})
    st2 = rules.apply(st, 0, {"do": "paint", "place": [[cid, 0, col]]})
    assert st2.canvases[0][0][1][0] == col


def test_paint_either_colour_of_a_diamond():
    cid = card_where(lambda c: any(len(q) == 2 for q in c.squares))
    sq = next(i for i, q in enumerate(CARDS[cid].squares) if len(q) == 2)
    a, b = CARDS[cid].squares[sq]
    other = next(c for c in "ROYGBPK" if c not in (a, b))
    st = _painter(cid, cubes(**{a: 1, b: 1, other: 1}))
    for col in (a, b):
        st2 = rules.apply(st, 0, {"do": "paint", "place": [[cid, sq, col]]})
        assert st2.canvases[0][0][1][sq] == col
    with pytest.raises(IllegalAction, match="takes .* or .*, not"):
        rules.check(st, 0, {"do": "paint", "place": [[cid, sq, other]]})


def test_paint_a_wild_fills_any_square():
    cid = card_where(lambda c: c.size >= 3)
    st = _painter(cid, cubes(W=1))
    for sq in range(CARDS[cid].size):
        rules.check(st, 0, {"do": "paint", "place": [[cid, sq, "W"]]})


def test_paint_at_most_one_wild_per_canvas():
    cid, cid2 = cards_where(lambda c: c.size >= 3, 2)
    st = _painter(cid, cubes(W=3))
    with pytest.raises(IllegalAction, match="a canvas holds at most one wild cube"):
        rules.check(st, 0, {"do": "paint", "place": [[cid, 0, "W"], [cid, 1, "W"]]})
    st2 = rules.apply(st, 0, {"do": "paint", "place": [[cid, 0, "W"]]})
    st2 = replace(st2, first=0, actor=0, phase="morning", step="turn", pending=())
    with pytest.raises(IllegalAction, match="at most one wild cube"):
        rules.check(st2, 0, {"do": "paint", "place": [[cid, 1, "W"]]})
    # one wild on each of two canvases in one action is fine
    st3 = with_canvases(st, {0: [(cid, empty(cid)), (cid2, empty(cid2))]})
    st3 = replace(st3, studios=at(st3.studios, 0, cubes(W=2)))
    st4 = rules.apply(st3, 0, {"do": "paint", "place": [[cid, 0, "W"], [cid2, 0, "W"]]})
    assert [f.count("W") for _, f in st4.canvases[0]] == [1, 1]


def test_paint_onto_several_own_canvases_in_one_action():
    a, b = cards_where(lambda c: len(c.squares[0]) == 1, 2)
    ca, cb = CARDS[a].squares[0][0], CARDS[b].squares[0][0]
    st = _painter(a, cubes(**Counter([ca, cb])))
    st = with_canvases(st, {0: [(a, empty(a)), (b, empty(b))]})
    st2 = rules.apply(st, 0, {"do": "paint", "place": [[a, 0, ca], [b, 0, cb]]})
    assert [f[0] for _, f in st2.canvases[0]] == [ca, cb] and st2.studios[0] == cubes()


def test_paint_only_own_canvases():
    mine, theirs = cards_where(lambda c: len(c.squares[0]) == 1, 2)
    col = CARDS[theirs].squares[0][0]
    st = base(2)
    st = with_canvases(st, {0: [(mine, empty(mine))], 1: [(theirs, empty(theirs))]})
    st = replace(st, studios=at(st.studios, 0, cubes(**{col: 1})))
    with pytest.raises(IllegalAction, match="is not one of your canvases"):
        rules.check(st, 0, {"do": "paint", "place": [[theirs, 0, col]]})
    mkt = st.market[0]
    with pytest.raises(IllegalAction, match="is not one of your canvases"):
        rules.check(st, 0, {"do": "paint", "place": [[mkt, 0, col]]})


def test_paint_needs_the_cubes_and_an_empty_square():
    cid = card_where(lambda c: len(c.squares[0]) == 1 and len(c.squares[1]) == 1 and c.squares[0] == c.squares[1])
    col = CARDS[cid].squares[0][0]
    st = _painter(cid, cubes(**{col: 1}))
    with pytest.raises(IllegalAction, match="you have only 1"):
        rules.check(st, 0, {"do": "paint", "place": [[cid, 0, col], [cid, 1, col]]})
    with pytest.raises(IllegalAction, match="painted twice"):
        rules.check(st, 0, {"do": "paint", "place": [[cid, 0, col], [cid, 0, col]]})
    st2 = _painter(cid, cubes(**{col: 1}), filled=col + "." * (CARDS[cid].size - 1))
    with pytest.raises(IllegalAction, match="already holds"):
        rules.check(st2, 0, {"do": "paint", "place": [[cid, 0, col]]})


# =====================================================================================
# Free actions


@pytest.mark.parametrize("give,take", [(2, 1), (5, 2), (9, 3)])
def test_free_trade_rates(give, take):
    st = base(2)
    st = replace(st, studios=at(st.studios, 0, cubes(K=give)), paint_market=cubes(R=3))
    st2 = rules.apply(st, 0, {"do": "trade", "give": {"K": give}, "take": {"R": take}})
    assert st2.studios[0] == cubes(R=take)
    assert st2.paint_market == cubes(R=3 - take, K=give)
    assert st2.actor == 0 and st2.step == "turn" and st2.free_used[0]   # the turn goes on


@pytest.mark.parametrize("give,take", [(2, 2), (3, 1), (4, 2), (5, 1), (9, 2), (10, 3), (1, 1), (6, 2)])
def test_free_trade_other_rates_refused(give, take):
    st = base(2)
    st = replace(st, studios=at(st.studios, 0, cubes(K=10)), paint_market=cubes(R=5))
    with pytest.raises(IllegalAction):
        rules.check(st, 0, {"do": "trade", "give": {"K": give}, "take": {"R": take}})


def test_free_trade_wilds_may_be_given_never_taken():
    st = base(2)
    st = replace(st, studios=at(st.studios, 0, cubes(W=2, R=2)), paint_market=cubes(W=3, B=1))
    st2 = rules.apply(st, 0, {"do": "trade", "give": {"W": 2}, "take": {"B": 1}})
    assert st2.studios[0] == cubes(R=2, B=1) and st2.paint_market == cubes(W=5)
    with pytest.raises(IllegalAction, match="you cannot take a wild cube from the Paint Market"):
        rules.check(st, 0, {"do": "trade", "give": {"R": 2}, "take": {"W": 1}})


def test_free_trade_needs_the_cubes_in_the_paint_market():
    st = base(2)
    st = replace(st, studios=at(st.studios, 0, cubes(R=2)), paint_market=cubes(B=1))
    with pytest.raises(IllegalAction, match="the Paint Market has no green cube"):
        rules.check(st, 0, {"do": "trade", "give": {"R": 2}, "take": {"G": 1}})


def test_free_action_before_or_after_the_main_action():
    st = base(2)
    st = replace(st, studios=at(st.studios, 0, cubes(R=4)), paint_market=cubes(B=2))
    before = rules.apply(st, 0, {"do": "trade", "give": {"R": 2}, "take": {"B": 1}})
    assert before.actor == 0
    before = rules.apply(before, 0, {"do": "work"})
    after = rules.apply(st, 0, {"do": "work", "then": {"do": "trade", "give": {"R": 2}, "take": {"B": 1}}})
    assert before.studios == after.studios and before.paint_market == after.paint_market
    assert after.actor == 1 and after.free_used == (True, False)


def test_free_action_after_paint_uses_the_studio_as_the_paint_left_it():
    cid = card_where(lambda c: c.squares[0] == ("R",))
    st = _painter(cid, cubes(R=1, B=1))
    st = replace(st, paint_market=cubes(G=1))
    with pytest.raises(IllegalAction, match="you have no red cube"):
        rules.check(st, 0, {"do": "paint", "place": [[cid, 0, "R"]],
                            "then": {"do": "trade", "give": {"R": 1, "B": 1}, "take": {"G": 1}}})
    st2 = rules.apply(replace(st, studios=at(st.studios, 0, cubes(R=2, B=1))), 0, {
        "do": "paint", "place": [[cid, 0, "R"]],
        "then": {"do": "trade", "give": {"R": 1, "B": 1}, "take": {"G": 1}}})
    assert st2.studios[0] == cubes(G=1) and st2.actor == 1


def test_free_action_only_in_ones_own_turn_not_at_night():
    st, ids = sellers(2, [9], cubes(R=3))
    st = replace(st, studios=at(st.studios, 0, cubes(B=2)))
    with pytest.raises(IllegalAction, match="announce your sales"):
        rules.check(st, 0, {"do": "trade", "give": {"B": 2}, "take": {"R": 1}})
    day = replace(base(2), studios=at(st.studios, 1, cubes(B=2)), paint_market=cubes(R=3))
    with pytest.raises(IllegalAction, match="it is seat 0's turn"):
        rules.check(day, 1, {"do": "trade", "give": {"B": 2}, "take": {"R": 1}})


def test_free_action_a_second_one_in_a_day_is_refused():
    st = base(2)
    st = replace(st, studios=at(st.studios, 0, cubes(R=9)), paint_market=cubes(B=5))
    st2 = rules.apply(st, 0, {"do": "trade", "give": {"R": 2}, "take": {"B": 1}})
    for free in ({"do": "trade", "give": {"R": 2}, "take": {"B": 1}}, {"do": "reset", "pay": {"R": 2}}):
        with pytest.raises(IllegalAction, match="already used your free action today"):
            rules.check(st2, 0, free)
    # still refused in the afternoon of the same day
    st3 = rules.apply(st2, 0, {"do": "work"})
    st3 = run(st3, until=lambda s: s.phase == "afternoon" and s.actor == 0 and rules.turn(s).kind != "chance")
    with pytest.raises(IllegalAction, match="already used your free action today"):
        rules.check(st3, 0, {"do": "trade", "give": {"R": 2}, "take": {"B": 1}})
    # and allowed again the next day
    st4 = run(st3, until=lambda s: s.day == 2 and s.actor == 0 and s.step == "turn"
              and rules.turn(s).kind != "chance")
    assert st4.free_used[0] is False
    st4 = replace(st4, studios=at(st4.studios, 0, cubes(R=2)))
    assert rules.problems(st4, 0, {"do": "reset", "pay": {"R": 2}}) == []


def test_free_reset_costs_two_cubes_and_flips_three_new_canvases_in_the_order_drawn():
    st = base(2)
    st = replace(st, studios=at(st.studios, 0, cubes(R=1, W=1, B=1)), paint_market=cubes())
    old = st.market
    st2 = rules.apply(st, 0, {"do": "reset", "pay": {"R": 1, "W": 1}})
    assert st2.paint_market == cubes(R=1, W=1) and st2.studios[0] == cubes(B=1)
    assert st2.market == (-1, -1, -1)
    assert [op for op in st2.pending] == [("canvas", 1), ("canvas", 2), ("canvas", 3)]
    assert set(old) <= set(st2.discarded) and not set(old) & set(st2.deck)   # out of the game
    assert rules.turn(st2).kind == "chance"
    st3 = rules.chance(st2, ent(4))
    assert -1 not in st3.market and set(st3.market) <= set(st.deck)
    flips = [text for _, text in st3.events if "turned over" in text]
    assert flips == ["%s is turned over into slot %d" % (rules.card_title(c), i + 1)
                     for i, c in enumerate(st3.market)]
    with pytest.raises(IllegalAction, match="exactly 2 cubes"):
        rules.check(st, 0, {"do": "reset", "pay": {"R": 1}})


def test_free_reset_then_buy_one_immediately_if_the_action_is_not_taken():
    st = base(2)
    st = replace(st, studios=at(st.studios, 0, cubes(R=2, B=1)))
    st2 = rules.chance(rules.apply(st, 0, {"do": "reset", "pay": {"R": 2}}), ent(5))
    assert st2.actor == 0 and st2.step == "turn"
    new = st2.market[0]
    st3 = rules.apply(st2, 0, {"do": "buy", "slot": 1, "pay": {"B": 1}})
    assert st3.canvases[0] == ((new, empty(new)),) and st3.actor == 1
    # after the main action the reset ends the turn: no buy from the new row
    st4 = rules.apply(st, 0, {"do": "work", "then": {"do": "reset", "pay": {"R": 2}}})
    assert st4.actor == 1 and st4.free_used[0]


def test_free_reset_with_an_empty_deck_is_refused():
    st = base(2)
    st = replace(st, deck=(), studios=at(st.studios, 0, cubes(R=2)))
    with pytest.raises(IllegalAction, match="deck is empty"):
        rules.check(st, 0, {"do": "reset", "pay": {"R": 2}})


# =====================================================================================
# Night: announcements and sales


def test_night_announce_in_order_from_the_first_player():
    st, ids = sellers(3, [7, 9, 6], cubes(), first=1)
    seen = []
    while st.step == "announce":
        seen.append(st.actor)
        st = rules.apply(st, st.actor, sell_all(st, st.actor))
    assert seen == [1, 2, 0]


def test_night_only_seats_with_a_complete_canvas_announce():
    a, b = cards_where(lambda c: c.size >= 2 and c.food <= 2, 2)
    st = base(3, first=0)
    st = with_canvases(st, {0: [(a, full(a)[:-1] + ".")], 2: [(b, full(b))]})
    st = replace(last_turn_of_day(st), nutrition=(3, 3, 3))
    st2 = rules.apply(st, st.actor, {"do": "work"})
    assert st2.phase == "night" and st2.step == "announce" and st2.actor == 2
    st3 = rules.chance(st2, ent(1)) if rules.turn(st2).kind == "chance" else st2
    st4 = rules.apply(st3, 2, {"do": "sell", "canvases": []})
    assert st4.day == 2


def test_night_announcements_cannot_change_afterwards():
    st, ids = sellers(3, [7, 9, 6], cubes(), first=0)
    st = replace(st, nutrition=(3, 1, 1))
    st1 = rules.apply(st, 0, {"do": "sell", "canvases": []})
    # the sales are applied only after every announcement, and seat 0 cannot take it back
    with pytest.raises(IllegalAction, match="it is seat 1's turn"):
        rules.check(st1, 0, {"do": "sell", "canvases": [ids[0]]})
    st2 = rules.apply(st1, 1, {"do": "sell", "canvases": [ids[1]]})
    assert st2.score == st.score and st2.canvases[1] == st.canvases[1]   # nothing sold yet
    st3 = rules.apply(st2, 2, {"do": "sell", "canvases": [ids[2]]})
    assert st3.canvases[0] == st.canvases[0]                            # seat 0 kept its canvas
    assert st3.sold[1] == (ids[1],) and st3.sold[2] == (ids[2],) and st3.sold[0] == ()


def test_night_selling_an_unfinished_canvas_is_refused():
    a = card_where(lambda c: c.size >= 3)
    b = card_where(lambda c: c.size >= 2, avoid=[a])
    st = base(2)
    st = with_canvases(st, {0: [(a, full(a)[:-1] + "."), (b, full(b))]})
    st = night(st)
    with pytest.raises(IllegalAction, match="is not complete"):
        rules.check(st, 0, {"do": "sell", "canvases": [a]})
    with pytest.raises(IllegalAction, match="not one of your canvases"):
        rules.check(st, 0, {"do": "sell", "canvases": [st.market[0]]})
    rules.check(st, 0, {"do": "sell", "canvases": [b]})


def test_night_sale_food_goes_to_nutrition():
    cid = card_where(lambda c: 1 <= c.food <= 3)
    st = base(2)
    st = with_canvases(st, {0: [(cid, full(cid))]})
    st = replace(night(st), nutrition=(2, 3), paint_market=cubes())
    st2 = rules.apply(st, 0, {"do": "sell", "canvases": [cid]})
    assert st2.food_earned[0] == CARDS[cid].food
    assert st2.nutrition[0] == 2 + CARDS[cid].food - 1          # minus the next day's meal
    assert st2.day == 2


def test_night_sale_food_above_five_gives_four_cubes_per_extra_food_from_the_bag():
    cid = card_where(lambda c: c.food >= 3)
    food = CARDS[cid].food
    st = base(2)
    st = with_canvases(st, {0: [(cid, full(cid))]})
    st = replace(night(st), nutrition=(4, 3), paint_market=cubes(), studios=at(st.studios, 0, cubes()))
    extra = 4 + food - 5
    bag0 = st.bag
    st2 = rules.apply(st, 0, {"do": "sell", "canvases": [cid]})
    assert ("cubes", 0, 4 * extra) in st2.pending
    assert st2.pending[0] == ("cubes", 0, 4 * extra)            # drawn before anything returns
    st3 = rules.chance(st2, ent(6))
    assert st3.nutrition[0] == 5 - 1                            # capped at 5, then day 2's meal
    assert sum(st3.studios[0]) == 4 * extra
    assert st3.paint_market != cubes() and sum(st3.paint_market) == 4  # only the day's four cubes
    # from the bag: the bag lost the overflow and the day's four, and got the canvas's cubes back
    assert sum(st3.bag) == sum(bag0) - 4 * extra - 4 + CARDS[cid].size


def test_night_sale_canvas_cubes_back_to_the_bag():
    cid = card_where(lambda c: c.size >= 5 and c.food <= 2 and any(len(q) == 2 for q in c.squares))
    f = list(full(cid))
    f[0] = "W"
    f = "".join(f)
    st = base(2)
    st = with_canvases(st, {0: [(cid, f)]})
    st = replace(night(st), nutrition=(3, 3), paint_market=cubes())
    st2 = rules.apply(st, 0, {"do": "sell", "canvases": [cid]})
    assert st2.bag == add(st.bag, filled_counts(f))   # day 2's draw is still pending
    assert st2.canvases[0] == ()


def test_night_sale_stars_go_to_score():
    a, b = cards_where(lambda c: c.stars >= 1 and c.food <= 1, 2)
    st = base(2)
    st = with_canvases(st, {0: [(a, full(a)), (b, full(b))]})
    st = replace(night(st), score=(3, 0), nutrition=(3, 3), paint_market=cubes())
    st2 = rules.apply(st, 0, {"do": "sell", "canvases": [a, b]})
    assert st2.score == (3 + CARDS[a].stars + CARDS[b].stars, 0)
    assert st2.sold[0] == (a, b)


def test_night_not_selling_keeps_the_canvas():
    cid = card_where(lambda c: c.food <= 2)
    st = base(2)
    st = with_canvases(st, {0: [(cid, full(cid))]})
    st = replace(night(st), nutrition=(3, 3))
    st2 = rules.apply(st, 0, {"do": "sell", "canvases": []})
    assert st2.canvases[0] == ((cid, full(cid)),) and st2.score == (0, 0)


# =====================================================================================
# Night: getting paid (collection actions)


def test_rulebook_example_A7_B9_C6_with_15_cubes():
    pm = cubes(R=3, O=2, Y=2, G=2, B=3, P=1, K=2)
    assert sum(pm) == 15
    st, ids = sellers(3, [7, 9, 6], pm, first=0)
    studios0 = st.studios
    st2 = finish_night(st)
    # B takes 4, A takes 2, C 1; again; then B takes 1 and the market is empty
    assert collect_log(st2) == [(1, 4), (0, 2), (2, 1), (1, 4), (0, 2), (2, 1), (1, 1)]
    got = [sum(sub(st2.studios[s], studios0[s])) for s in range(3)]
    assert got == [4, 9, 2]


def test_collection_4_2_1_by_paint_value_order():
    pm = cubes(R=10, O=10, Y=10, G=10, B=10)
    st, ids = sellers(4, [4, 9, 6, 7], pm, first=0)
    st2 = finish_night(st)
    log = collect_log(st2)
    # highest (seat 1, 9) 4; second (seat 3, 7) 2; others (seat 2, 6 and seat 0, 4) 1 each
    assert log[:4] == [(1, 4), (3, 2), (2, 1), (0, 1)]
    got = Counter()
    for s, n in log:
        got[s] += n
    assert got == {1: 9, 3: 7, 2: 6, 0: 4}                      # each painting's paint value


def test_collection_equal_paint_values_take_the_same_amount_ordered_from_the_first_player():
    pm = cubes(R=10, O=10, Y=10, G=10, B=10)
    st, ids = sellers(3, [9, 9, 6], pm, first=1)
    log = collect_log(finish_night(st))
    # seats 0 and 1 both 9: both take 4; seat 1 (the first player) before seat 0
    assert log[:2] == [(1, 4), (0, 4)]
    st, ids = sellers(3, [9, 9, 6], pm, first=2)
    log = collect_log(finish_night(st))
    assert log[:3] == [(0, 4), (1, 4), (2, 2)]            # from seat 2 clockwise: 0 before 1


def test_collection_several_paintings_of_one_seat_collected_separately():
    pm = cubes(R=10, O=10, Y=10, G=10, B=10)
    st, ids = sellers(2, [9, 7], pm, seat_of=[0, 0])
    log = collect_log(finish_night(st))
    assert log == [(0, 4), (0, 2), (0, 4), (0, 2), (0, 1), (0, 2), (0, 1)]
    assert sum(n for _, n in log) == 16


def test_collection_round_robin_until_each_value_collected_or_market_empty():
    st, ids = sellers(2, [9, 4], cubes(R=3, B=3))
    st2 = finish_night(st)
    log = collect_log(st2)
    assert log == [(0, 4), (1, 2)]                  # 6 cubes: the market ran out
    assert st2.paint_market == cubes() and ("market", 4) in st2.pending   # day 2's cubes to come


def test_collection_at_most_one_wild_per_collection_action():
    st, ids = sellers(2, [9], cubes(W=3, R=3, B=3))
    st = announce_all(st)
    st = settle(st)
    assert st.step == "collect" and st.actor == 0
    with pytest.raises(IllegalAction, match="at most one wild cube per collection action"):
        rules.check(st, 0, {"do": "take", "cubes": {"W": 2, "R": 2}})
    with pytest.raises(IllegalAction, match="exactly 4 cubes"):
        rules.check(st, 0, {"do": "take", "cubes": {"W": 1, "R": 2}})
    with pytest.raises(IllegalAction, match="the Paint Market has no green cube"):
        rules.check(st, 0, {"do": "take", "cubes": {"G": 1, "R": 3}})
    for a in rules.legal_actions(st, 0):
        assert a["cubes"].get("W", 0) <= 1
    # only wilds left: one per action, each one a collection action of its own
    st, ids = sellers(2, [9], cubes(W=3, R=1))
    log = collect_log(finish_night(st))
    assert log == [(0, 2), (0, 1), (0, 1)]


def test_collection_the_seat_picks_its_cubes():
    st, ids = sellers(2, [9], cubes(R=5, B=5, K=2))
    st = settle(announce_all(st))
    assert st.step == "collect"
    before = st.studios[0]
    st2 = rules.apply(st, 0, {"do": "take", "cubes": {"K": 2, "B": 1, "R": 1}})
    assert sub(st2.studios[0], before) == cubes(K=2, B=1, R=1)
    assert st2.paint_market == cubes(R=4, B=4)
    # the "take best" default is always a legal pick
    rules.check(st2, 0, rules.default_action(st2, 0))


def test_collection_forced_picks_are_applied_automatically():
    st, ids = sellers(2, [9], cubes(R=20))
    st2 = announce_all(st)
    # one colour only: every collection action is forced, no step asks seat 0
    assert st2.phase == "morning" and st2.day == 2
    assert st2.studios[0] == add(st.studios[0], cubes(R=9))
    assert collect_log(st2) == [(0, 4), (0, 4), (0, 1)]


def test_collection_out_of_turn_refused():
    st, ids = sellers(2, [9, 7], cubes(R=5, B=5))
    st = settle(announce_all(st))
    assert st.step == "collect" and st.actor == 0
    with pytest.raises(IllegalAction, match="it is seat 0's turn"):
        rules.check(st, 1, {"do": "take", "cubes": {"R": 2}})


# =====================================================================================
# End of the game and the winner


@pytest.mark.parametrize("players,paintings,points", [(2, 7, 16), (3, 6, 14), (4, 5, 12)])
def test_end_points_target(players, paintings, points):
    assert rules.TARGETS[players] == (paintings, points)
    cid = card_where(lambda c: c.stars >= 1 and c.food <= 2)
    st = base(players)
    st = with_canvases(st, {0: [(cid, full(cid))]})
    st = replace(night(st), nutrition=(3,) * players, paint_market=cubes())
    short = rules.apply(replace(st, score=at(st.score, 0, points - CARDS[cid].stars - 1)), 0,
                        sell_all(st, 0))
    assert short.phase == "morning" and short.day == 2
    reach = rules.apply(replace(st, score=at(st.score, 0, points - CARDS[cid].stars)), 0, sell_all(st, 0))
    assert reach.phase == "over" and rules.turn(reach).kind == "over"
    assert rules.result(reach)["winners"] == [0]


@pytest.mark.parametrize("players,paintings,points", [(2, 7, 16), (3, 6, 14), (4, 5, 12)])
def test_end_paintings_target(players, paintings, points):
    cid = card_where(lambda c: c.stars <= 2 and c.food <= 4)
    earlier = tuple(cards_where(lambda c: True, paintings, avoid=[cid]))
    st = base(players)
    st = with_canvases(st, {1: [(cid, full(cid))]})
    st = replace(night(st), nutrition=at((3,) * players, 1, 1), paint_market=cubes(), deck=tuple(
        c for c in st.deck if c not in earlier))
    short = rules.apply(replace(st, sold=at(st.sold, 1, earlier[:paintings - 2])), 1, sell_all(st, 1))
    assert short.phase == "morning"
    reach = rules.apply(replace(st, sold=at(st.sold, 1, earlier[:paintings - 1])), 1, sell_all(st, 1))
    assert reach.phase == "over" and rules.result(reach)["sold"][1] == paintings
    assert rules.result(reach)["winners"] == [1]


def test_end_complete_but_unsold_canvases_do_not_count_as_paintings():
    ids = cards_where(lambda c: True, 6)
    st = base(4)
    st = with_canvases(st, {0: [(c, full(c)) for c in ids]})
    st = replace(night(st), nutrition=(3,) * 4, paint_market=cubes())
    keep = rules.apply(st, 0, {"do": "sell", "canvases": []})
    assert keep.phase == "morning"


def test_end_the_game_ends_after_the_night_not_at_the_sale():
    cid = card_where(lambda c: c.stars >= 1 and c.food <= 2 and c.paint >= 2)
    st = base(2)
    st = with_canvases(st, {0: [(cid, full(cid))]})
    st = replace(night(st), nutrition=(3, 3), score=(16 - CARDS[cid].stars, 0),
                 paint_market=cubes(R=3, B=3))
    st2 = rules.apply(st, 0, sell_all(st, 0))
    # the target is reached but seat 0 still collects its cubes first
    assert st2.phase == "night" and st2.step == "collect"
    st3 = run(st2)
    assert st3.phase == "over" and sum(sub(st3.studios[0], st.studios[0])) == min(CARDS[cid].paint, 6)


def _over(players, **fields):
    st = base(players)
    return replace(st, phase="over", step="", actor=-1, **fields)


def test_end_ties_by_points_then_completed_canvases_then_food_then_cubes():
    a, b, c = cards_where(lambda x: True, 3)
    # points decide
    r = rules.result(_over(2, score=(5, 6)))
    assert r["winners"] == [1] and r["ranking"] == [1, 0]
    # equal points: more completed (sold) canvases
    r = rules.result(_over(2, score=(6, 6), sold=((a, b), (c,))))
    assert r["winners"] == [0]
    # then the food earned
    r = rules.result(_over(2, score=(6, 6), sold=((a,), (b,)), food_earned=(2, 3)))
    assert r["winners"] == [1]
    # then the unused cubes in the studio
    r = rules.result(_over(2, score=(6, 6), sold=((a,), (b,)), food_earned=(3, 3),
                           studios=(cubes(R=4), cubes(R=2, W=1))))
    assert r["winners"] == [0] and r["places"] == [1, 2]
    # a full tie shares the place
    r = rules.result(_over(2, score=(6, 6), sold=((a,), (b,)), food_earned=(3, 3),
                           studios=(cubes(R=3), cubes(B=3))))
    assert r["winners"] == [0, 1] and r["places"] == [1, 1]


def test_end_both_objectives_met_by_different_seats_most_points_wins():
    ids = cards_where(lambda x: True, 7)
    r = rules.result(_over(2, score=(16, 10), sold=(ids[:2], ids[2:])))   # seat 1 has 5 sold
    assert r["winners"] == [0]
    r = rules.result(_over(2, score=(12, 16), sold=(tuple(ids), ())))    # seat 0: 7 paintings
    assert r["winners"] == [1]


def test_end_the_starved_seat_can_win():
    st = base(3)
    st = replace(last_turn_of_day(st), day=2, nutrition=(1, 3, 3), score=(9, 4, 2))
    st = run(rules.apply(st, st.actor, {"do": "work"}))
    r = rules.result(st)
    assert st.phase == "over" and r["starved"] == [True, False, False]
    assert r["winners"] == [0] and r["cubes"][0] == 0


# =====================================================================================
# Options: Color Study


def test_option_color_study_four_of_one_colour_for_any_cube_from_the_bag():
    st = base(2, options={"color_study": True})
    st = replace(st, studios=at(st.studios, 0, cubes(G=4, R=1)), paint_market=cubes())
    st2 = rules.apply(st, 0, {"do": "study", "give": "G", "take": "P"})
    assert st2.studios[0] == cubes(R=1, P=1) and st2.paint_market == cubes(G=4)
    assert st2.bag == sub(st.bag, cubes(P=1))
    assert st2.free_used[0] and st2.actor == 0                 # instead of the free action
    with pytest.raises(IllegalAction, match="already used your free action"):
        rules.check(st2, 0, {"do": "trade", "give": {"R": 1, "P": 1}, "take": {"G": 1}})
    # the wild may be taken too ("any colour of your choice")
    rules.check(st, 0, {"do": "study", "give": "G", "take": "W"})


def test_option_color_study_needs_four_of_the_same_colour_and_the_option():
    st = base(2, options={"color_study": True})
    st = replace(st, studios=at(st.studios, 0, cubes(G=3, R=1)))
    with pytest.raises(IllegalAction, match="needs 4 green cubes; you have 3"):
        rules.check(st, 0, {"do": "study", "give": "G", "take": "P"})
    off = replace(base(2), studios=at(st.studios, 0, cubes(G=4)))
    with pytest.raises(IllegalAction, match="Color Study option is off"):
        rules.check(off, 0, {"do": "study", "give": "G", "take": "P"})
    empty_bag = replace(st, studios=at(st.studios, 0, cubes(G=4)), bag=sub(st.bag, cubes(P=st.bag[CI["P"]])))
    with pytest.raises(IllegalAction, match="the bag has no purple cube"):
        rules.check(empty_bag, 0, {"do": "study", "give": "G", "take": "P"})


# =====================================================================================
# Options: Player trades


def _trader(players=4, offerer=1, studios=None):
    st = base(players, first=offerer, options={"player_trades": True})
    if studios is not None:
        st = replace(st, studios=studios)
    return st


def test_option_player_trades_one_offer_a_day_to_all():
    st = _trader(studios=(cubes(B=1), cubes(R=3), cubes(B=1), cubes(B=1)))
    st2 = rules.apply(st, 1, {"do": "offer", "give": {"R": 1}, "take": {"B": 1}})
    t = rules.turn(st2)
    assert t.kind == "simultaneous" and t.seats == (0, 2, 3) and not t.sealed
    st3 = run(st2, until=lambda s: s.step == "turn")
    assert st3.actor == 1 and st3.free_used[1]
    with pytest.raises(IllegalAction, match="already used your free action today"):
        rules.check(st3, 1, {"do": "offer", "give": {"R": 1}, "take": {"B": 1}})
    with pytest.raises(IllegalAction, match="already used your free action today"):
        rules.check(st3, 1, {"do": "trade", "give": {"R": 2}, "take": {"B": 1}})


def test_option_player_trades_first_accepting_seat_clockwise_from_the_offerer():
    st = _trader(offerer=2, studios=(cubes(B=2), cubes(B=2), cubes(R=2), cubes(B=2)))
    st2 = rules.apply(st, 2, {"do": "offer", "give": {"R": 1}, "take": {"B": 1}})
    # answers arrive in any order; seats 1 and 0 accept, seat 3 declines:
    # clockwise from seat 2 is 3, 0, 1 -> seat 0 trades
    s = st2
    for seat, yes in ((1, True), (3, False), (0, True)):
        s = rules.apply(s, seat, {"do": "answer", "accept": yes})
    assert s.studios[2] == cubes(R=1, B=1) and s.studios[0] == cubes(B=1, R=1)
    assert s.studios[1] == cubes(B=2) and s.studios[3] == cubes(B=2)
    assert s.actor == 2 and s.step == "turn"                 # the offerer's turn goes on


def test_option_player_trades_all_answers_in_one_simultaneous_step():
    st = _trader(offerer=0, studios=(cubes(R=2), cubes(B=2), cubes(B=2), cubes(B=2)))
    st2 = rules.apply(st, 0, {"do": "offer", "give": {"R": 1}, "take": {"B": 1}})
    s = rules.apply(st2, 3, {"do": "answer", "accept": True})
    # seat 3 accepted first in time, but the trade waits for all answers
    assert s.step == "answer" and s.studios == st2.studios
    t = rules.turn(s)
    assert t.kind == "simultaneous" and set(t.seats) >= {1, 2}
    with pytest.raises(IllegalAction, match="already answered"):
        rules.check(s, 3, {"do": "answer", "accept": False})
    with pytest.raises(IllegalAction, match="wait for the other artists"):
        rules.check(s, 0, {"do": "work"})
    s = rules.apply(s, 2, {"do": "answer", "accept": True})
    s = rules.apply(s, 1, {"do": "answer", "accept": False})
    # seat 2 is before seat 3 clockwise from seat 0: seat 2 gets the trade, not the faster seat 3
    assert s.studios[2] == cubes(B=1, R=1) and s.studios[3] == cubes(B=2)


def test_option_player_trades_no_acceptance_no_trade_and_holding_required():
    st = _trader(players=3, offerer=0, studios=(cubes(R=2), cubes(B=2), cubes(G=2)))
    st2 = rules.apply(st, 0, {"do": "offer", "give": {"R": 1}, "take": {"P": 1}})
    with pytest.raises(IllegalAction, match="you cannot accept: you have no purple"):
        rules.check(st2, 1, {"do": "answer", "accept": True})
    s = run(st2, until=lambda x: x.step == "turn")               # defaults decline
    assert s.studios == st.studios and s.actor == 0 and s.free_used[0]
    with pytest.raises(IllegalAction, match="Player trades option is off"):
        rules.check(base(3), 0, {"do": "offer", "give": {"R": 1}, "take": {"B": 1}})
    with pytest.raises(IllegalAction, match="you have no"):
        rules.check(st, 0, {"do": "offer", "give": {"K": 1}, "take": {"B": 1}})


def test_option_player_trades_starved_seats_are_not_asked():
    st = _trader(offerer=0, studios=(cubes(R=2), cubes(), cubes(B=2), cubes(B=2)))
    st = replace(st, alive=(True, False, True, True), nutrition=(3, 0, 3, 3))
    st2 = rules.apply(st, 0, {"do": "offer", "give": {"R": 1}, "take": {"B": 1}})
    assert rules.turn(st2).seats == (2, 3)


# =====================================================================================
# Options: Last Supper


def test_option_last_supper():
    cid = card_where(lambda c: c.stars >= 2)
    st = base(2, options={"last_supper": True})
    st = with_canvases(st, {0: [(cid, full(cid))]})
    st = replace(night(st), nutrition=(1, 3))
    st2 = rules.apply(st, 0, {"do": "sell", "canvases": [], "supper": cid})
    assert st2.alive[0] and st2.day == 2
    assert st2.nutrition[0] == min(5, 1 + CARDS[cid].stars) - 1
    assert st2.sold[0] == () and st2.score[0] == 0 and cid in st2.discarded   # not completed
    with pytest.raises(IllegalAction, match="only for an artist at nutrition 1"):
        rules.check(replace(st, nutrition=(2, 3)), 0, {"do": "sell", "canvases": [], "supper": cid})
    with pytest.raises(IllegalAction, match="Last Supper option is off"):
        rules.check(replace(st, config=dict(st.config, last_supper=False)), 0,
                    {"do": "sell", "canvases": [], "supper": cid})
    # without it the seat starves
    st3 = rules.apply(st, 0, {"do": "sell", "canvases": []})
    assert not st3.alive[0]


# =====================================================================================
# Options: junior rules


def test_junior_paint_market_starts_with_one_of_each_non_wild_colour():
    st = rules.setup({"edition": "junior"}, 3, seed(12))
    assert st.paint_market == cubes(R=1, O=1, Y=1, G=1, B=1, P=1, K=1)
    assert total_cubes(st) == 150


def test_junior_every_canvas_costs_one():
    st = base(2, options={"edition": "junior"})
    st = replace(st, studios=at(st.studios, 0, cubes(R=3)))
    assert rules.view(st, 0)["market_costs"] == [1, 1, 1]
    for slot in (1, 2, 3):
        rules.check(st, 0, {"do": "buy", "slot": slot, "pay": {"R": 1}})
    with pytest.raises(IllegalAction, match="exactly 1 cube"):
        rules.check(st, 0, {"do": "buy", "slot": 3, "pay": {"R": 3}})


def test_junior_sales_draw_the_paint_value_from_the_bag():
    cid = card_where(lambda c: c.paint >= 3 and c.food <= 2)
    st = base(2, options={"edition": "junior"})
    st = with_canvases(st, {0: [(cid, full(cid))]})
    st = replace(night(st), nutrition=(3, 3), studios=at(st.studios, 0, cubes()))
    pm = st.paint_market
    st2 = rules.apply(st, 0, sell_all(st, 0))
    assert st2.paint_market == pm and st2.step != "collect"
    assert ("cubes", 0, CARDS[cid].paint) in st2.pending
    st3 = rules.chance(st2, ent(3))
    assert sum(st3.studios[0]) == CARDS[cid].paint


def test_junior_more_than_four_of_a_colour_in_the_market_go_back_to_the_bag():
    st = base(2, options={"edition": "junior"})
    st = replace(st, studios=at(st.studios, 0, cubes(R=5, B=1)), paint_market=cubes(R=3, G=2))
    st2 = rules.apply(st, 0, {"do": "trade", "give": {"R": 5}, "take": {"G": 2}})
    assert st2.paint_market == cubes(R=4)                     # 3 + 5 = 8 -> 4 back
    assert st2.bag == add(st.bag, cubes(R=4))
    # also for a purchase
    st = replace(st, paint_market=cubes(B=4))
    st3 = rules.apply(st, 0, {"do": "buy", "slot": 1, "pay": {"B": 1}})
    assert st3.paint_market == cubes(B=4)
    st3 = rules.chance(st3, ent(1))                            # (after the pending flip)
    assert st3.bag == add(st.bag, cubes(B=1))


def test_junior_day_start_draw_is_capped_too():
    st = base(2, options={"edition": "junior"})
    only_red = cubes(R=sum(st.bag))
    st = replace(last_turn_of_day(st), paint_market=cubes(R=3), bag=only_red,
                 studios=at(st.studios, 1, cubes(K=1)))
    st2 = rules.apply(st, 1, {"do": "work"})
    st3 = settle(st2)
    assert st3.paint_market == cubes(R=4)


# =====================================================================================
# Options: solo


def test_solo_uses_35_canvases():
    st = rules.setup({}, 1, seed(13))
    assert len(st.deck) + 3 == 35
    st2 = rules.setup({"remove_comics": True}, 1, seed(13))
    assert all(CARDS[c].stars > 0 for c in set(st2.deck) | set(st2.market))


def test_solo_slot_1_removed_at_end_of_day_with_matching_market_cubes_back_to_the_bag():
    cid = card_where(lambda c: all(len(q) == 1 for q in c.squares) and len({q[0] for q in c.squares}) >= 2)
    cols = Counter(q[0] for q in CARDS[cid].squares)
    a = next(iter(cols))
    nonmatch = next(c for c in "ROYGBPK" if c not in cols)
    st = base(1)
    st = replace(st, market=(cid,) + st.market[1:], deck=tuple(c for c in st.deck if c != cid))
    pm = cubes(**{a: cols[a] + 2, nonmatch: 3, "W": 1})
    st = replace(last_turn_of_day(st), paint_market=pm, studios=(cubes(K=1),), nutrition=(3,))
    row = st.market
    st2 = rules.apply(st, 0, {"do": "work"})
    assert cid in st2.discarded and cid not in st2.market
    assert st2.market[:2] == row[1:] and st2.market[2] == -1 and ("canvas", 3) in st2.pending
    # one cube back per matching square (decision), non-matching colours and wilds stay
    assert st2.paint_market[CI[a]] == 2
    assert st2.paint_market[CI[nonmatch]] == 3 and st2.paint_market[W] == 1
    st3 = settle(st2)
    assert -1 not in st3.market


def test_solo_ends_when_the_artist_starves():
    st = base(1)
    st = replace(last_turn_of_day(st), nutrition=(1,), score=(12,))
    st2 = rules.apply(st, 0, {"do": "work"})
    assert st2.phase == "over"
    r = rules.result(st2)
    assert r["starved"] == [True] and r["rating"] == "Surviving"


def test_solo_ends_when_the_canvas_market_is_empty():
    st = base(1)
    st = replace(last_turn_of_day(st), deck=(), market=(st.market[0], -1, -1), nutrition=(3,))
    st2 = rules.apply(st, 0, {"do": "work"})
    assert st2.phase == "over" and "empty" in rules.result(st2)["reason"]


def test_solo_has_no_points_target():
    st = base(1)
    st = replace(last_turn_of_day(st), score=(40,), sold=(tuple(range(10)),), nutrition=(3,))
    st2 = rules.apply(st, 0, {"do": "work"})
    assert st2.phase == "morning" and st2.day == 2


@pytest.mark.parametrize("points,rating", [(0, "Keep trying"), (9, "Keep trying"), (10, "Surviving"),
                                           (15, "Surviving"), (20, "Expert"), (25, "Professional"),
                                           (31, "Professional")])
def test_solo_rating_in_the_result(points, rating):
    r = rules.result(_over(1, score=(points,)))
    assert r["rating"] == rating


# =====================================================================================
# Randomness


def test_randomness_work_draw_is_not_fixed_before_the_chance_step():
    st = base(2)
    st1 = rules.apply(st, 0, {"do": "work"})
    st1 = rules.apply(st1, 1, {"do": "work"})
    outs = {rules.chance(st1, ent(k)).studios for k in range(10)}
    assert len(outs) > 1                                         # the entropy decides, not the seed
    assert rules.chance(st1, ent(3)) == rules.chance(st1, ent(3))


def test_randomness_chance_turn_before_the_information_is_needed():
    st = base(2)
    st = replace(st, studios=at(st.studios, 0, cubes(R=1)))
    # a flip: needed before anyone decides again
    st2 = rules.apply(st, 0, {"do": "buy", "slot": 1, "pay": {"R": 1}})
    t = rules.turn(st2)
    assert t.kind == "chance" and t.seats == (0, 1)
    with pytest.raises(IllegalAction, match="waiting for shared randomness"):
        rules.check(st2, 1, {"do": "work"})
    # a new day's Paint Market draw: needed before the first action
    st3 = rules.apply(last_turn_of_day(base(2)), 1, {"do": "work"})
    assert st3.day == 2 and rules.turn(st3).kind == "chance"


def test_randomness_work_then_next_seat_needs_no_chance_step():
    st = base(3)
    st1 = rules.apply(st, 0, {"do": "work"})
    assert rules.turn(st1).kind == "sequential" and st1.actor == 1
    st2 = rules.apply(st1, 1, {"do": "work"})
    assert rules.turn(st2).kind == "sequential" and st2.actor == 2


def test_randomness_several_work_draws_resolve_in_one_chance_step():
    st = base(4, first=1)
    for seat in (1, 2, 3, 0):
        assert rules.turn(st).kind == "sequential" and st.actor == seat
        st = rules.apply(st, seat, {"do": "work"})
    assert st.phase == "afternoon" and st.actor == 1
    assert st.pending == (("cubes", 1, 3), ("cubes", 2, 3), ("cubes", 3, 3), ("cubes", 0, 3))
    t = rules.turn(st)
    assert t.kind == "chance"
    st2 = rules.chance(st, ent(9))
    assert st2.pending == () and rules.turn(st2).kind == "sequential"
    before = base(4, first=1).studios
    assert [sum(st2.studios[s]) - sum(before[s]) for s in range(4)] == [3, 3, 3, 3]
    draws = [text.split()[1] for _, text in st2.events if " draws " in text]
    assert draws == ["1", "2", "3", "0"]                         # in the order caused


def test_randomness_chance_asks_only_seats_still_in_the_game():
    st = base(3)
    st = replace(last_turn_of_day(st), nutrition=(3, 1, 3))
    st2 = rules.apply(st, st.actor, {"do": "work"})
    assert rules.turn(st2).seats == (0, 2)


def test_randomness_setup_uses_the_seed_and_nothing_else():
    a = rules.setup({}, 4, seed(20))
    b = rules.setup({}, 4, seed(21))
    assert a != b and a == rules.setup({}, 4, seed(20))


RULES_MD = Path(rules.__file__).with_name("RULES.md")


def rules_md_vectors() -> dict:
    """RULES.md's vector block: name -> (inputs, expected), each a {key: text} map."""
    text = RULES_MD.read_text(encoding="utf-8")
    m = re.search(r"<!-- starving-artists-vectors:begin -->(.*?)<!-- starving-artists-vectors:end -->", text, re.S)
    assert m, "RULES.md has no starving-artists-vectors block"
    out = {}
    for line in m.group(1).splitlines():
        line = line.strip()
        if not line or line.startswith("```"):
            continue
        name, rest = line.split(None, 1)
        ins, outs = rest.split(" -> ")
        assert name not in out, name
        out[name] = (dict(kv.split("=", 1) for kv in ins.split()), dict(kv.split("=", 1) for kv in outs.split()))
    return out


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",")]


def _option(text: str):
    return {"true": True, "false": False}.get(text, int(text) if text.isdigit() else text)


# Written from RULES.md ("Draws byte for byte") alone: no rules.py helper is used.
def _text_draw(bag: list[int], rng, n: int) -> tuple[list[int], list[str]]:
    rs, got = [], []
    for _ in range(n):
        total = sum(bag)
        if total == 0:
            break
        r = rng.below(total)
        rs.append(r)
        colour = 0
        while r >= bag[colour]:
            r -= bag[colour]
            colour += 1
        bag[colour] -= 1
        got.append("ROYGBPKW"[colour])
    return rs, got


def _text_setup(seed32: bytes, players: int, options: dict) -> dict:
    from core.rng import Rng

    rng = Rng(seed32, "starving-artists/setup")
    first = rng.below(players)
    deck = [c.id for c in CARDS]
    if players == 1:
        pool = [c for c in deck if not (options.get("remove_comics") and CARDS[c].stars == 0)]
        rng.shuffle(pool)
        deck = sorted(pool[: options.get("solo_canvases", 35)])
    pool = list(deck)
    bag = [15, 20, 20, 20, 30, 15, 20, 10]
    studios = [""] * players
    for k in range(players):
        seat = (first + k) % players
        studios[seat] = "".join(sorted(_text_draw(bag, rng, 6)[1], key="ROYGBPKW".index))
    market = [deck.pop(rng.below(len(deck))) for _slot in (1, 2, 3)]
    if options.get("edition") == "junior":
        pm = [c for i, c in enumerate("ROYGBPK") if bag[i] > 0]
    else:
        pm = sorted(_text_draw(bag, rng, 4)[1], key="ROYGBPKW".index)
    return {"first": first, "pool": pool, "studios": studios, "market": market, "paint_market": "".join(pm)}


def _letters(counts) -> str:
    return "".join(c * n for c, n in zip(rules.COLOURS, counts))


def test_randomness_vectors_in_rules_md_recomputed_from_the_text():
    """RULES.md's byte-level draw procedure and its vectors: each vector is rebuilt from the
    text's procedure and from the code (rules.setup / rules.chance), and both give RULES.md's values."""
    from core.rng import Rng

    vectors = rules_md_vectors()
    assert set(vectors) == {"draw", "flip", "setup-4", "setup-solo"}
    # a bag draw: the first cubes of a chance step's Rng from the initial bag
    ins, want = vectors["draw"]
    entropy = bytes.fromhex(ins["entropy"])
    bag = _ints(ins["bag"])
    assert len(entropy) == 32 and ins["domain"] == "starving-artists/chance" and tuple(bag) == rules.BAG
    rs, got = _text_draw(list(bag), Rng(entropy, ins["domain"]), int(ins["n"]))
    assert rs == _ints(want["r"]) and got == want["cubes"].split(",")
    st = base(2)
    st = replace(st, bag=tuple(bag), studios=(cubes(), cubes()), pending=(("cubes", 0, int(ins["n"])),))
    done = rules.chance(st, entropy)
    assert _letters(done.studios[0]) == "".join(sorted(got, key=rules.COLOURS.index))
    assert done.bag == sub(tuple(bag), done.studios[0])
    # a flip from a given deck
    ins, want = vectors["flip"]
    entropy = bytes.fromhex(ins["entropy"])
    deck = _ints(ins["deck"])
    assert deck == sorted(deck) and ins["domain"] == "starving-artists/chance"
    i = Rng(entropy, ins["domain"]).below(len(deck))
    assert (i, deck[i]) == (int(want["i"]), int(want["card"]))
    st = replace(base(2), deck=tuple(deck), market=(1, 2, -1), pending=(("canvas", 3),))
    done = rules.chance(st, entropy)
    assert done.market == (1, 2, int(want["card"])) and done.deck == tuple(c for c in deck if c != int(want["card"]))
    # setups: the draw order of the text, and the code's setup
    for name in ("setup-4", "setup-solo"):
        ins, want = vectors[name]
        seed32 = bytes.fromhex(ins["seed"])
        players = int(ins["players"])
        options = {k: _option(v) for k, v in ins.items() if k not in ("seed", "players")}
        mine = _text_setup(seed32, players, options)
        assert mine["first"] == int(want["first"]), name
        assert mine["studios"] == want["studios"].split(","), name
        assert mine["market"] == _ints(want["market"]), name
        assert mine["paint_market"] == want["paint_market"], name
        if "pool" in want:
            assert mine["pool"] == _ints(want["pool"]), name
        st = rules.setup(options, players, seed32)
        assert st.first == mine["first"] and list(st.market) == mine["market"], name
        assert [_letters(x) for x in st.studios] == mine["studios"], name
        assert _letters(st.paint_market) == mine["paint_market"], name
        assert sorted(st.deck + st.market) == mine["pool"], name
    assert len(_ints(vectors["setup-solo"][1]["pool"])) == 10
    # the text's setup is the code's for other seeds, player counts and options too
    for k in range(12):
        players = 1 + k % 4
        options = [{}, {"edition": "junior"}, {"remove_comics": True, "solo_canvases": 92}][k % 3]
        if players > 1:
            options = {o: v for o, v in options.items() if o not in rules.SOLO_ONLY}
        st = rules.setup(options, players, seed(300 + k))
        mine = _text_setup(seed(300 + k), players, options)
        assert (st.first, list(st.market), [_letters(x) for x in st.studios], _letters(st.paint_market)) == \
            (mine["first"], mine["market"], mine["studios"], mine["paint_market"]), (k, options)
        assert sorted(st.deck + st.market) == mine["pool"]


# =====================================================================================
# Acting out of turn, bad input


def test_acting_out_of_turn_is_refused():
    st = base(3, first=0)
    for seat in (1, 2):
        with pytest.raises(IllegalAction, match="it is seat 0's turn, not yours"):
            rules.apply(st, seat, {"do": "work"})
    with pytest.raises(IllegalAction, match="no seat"):
        rules.check(st, 3, {"do": "work"})
    st, ids = sellers(3, [7, 9, 6], cubes(), first=0)
    with pytest.raises(IllegalAction, match="it is seat 0's turn"):
        rules.check(st, 2, {"do": "sell", "canvases": [ids[2]]})
    with pytest.raises(IllegalAction, match="announce your sales"):
        rules.check(st, 0, {"do": "work"})
    over = _over(2)
    with pytest.raises(IllegalAction, match="the game is over"):
        rules.check(over, 0, {"do": "work"})


_names = hs.sampled_from(["work", "buy", "paint", "trade", "reset", "study", "offer", "answer", "sell",
                          "take", "do", "then", "slot", "pay", "place", "give", "cubes", "canvases",
                          "supper", "accept", "R", "W", "X", ""])
_atoms = hs.one_of(hs.none(), hs.booleans(), hs.integers(-3, 120), hs.integers(), _names,
                   hs.text(max_size=4), hs.binary(max_size=3), hs.floats(allow_nan=True))
_keys = hs.one_of(_names, hs.sampled_from(list("ROYGBPKW")), hs.none(), hs.integers(-2, 5),
                  hs.booleans(), hs.binary(max_size=2))
_values = hs.recursive(_atoms, lambda ch: hs.lists(ch, max_size=4) | hs.dictionaries(_keys, ch, max_size=4),
                       max_leaves=10)
_actions = hs.one_of(
    _values,
    hs.fixed_dictionaries({"do": _names}, optional={k: _values for k in (
        "slot", "pay", "place", "give", "take", "cubes", "canvases", "supper", "accept", "then")}),
)


def _garbage_states():
    out = [base(3, options={"color_study": True, "player_trades": True, "last_supper": True})]
    st, _ = sellers(3, [7, 9, 6], cubes(R=5, B=5, W=2))
    out.append(st)
    out.append(settle(announce_all(st)))
    tr = _trader(studios=(cubes(B=1), cubes(R=3), cubes(B=1), cubes(B=1)))
    out.append(rules.apply(tr, 1, {"do": "offer", "give": {"R": 1}, "take": {"B": 1}}))
    out.append(_over(2))
    return out


_STATES = _garbage_states()


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=hs.integers(0, len(_STATES) - 1), seat=hs.one_of(hs.integers(-1, 4), _atoms), action=_actions)
def test_bad_input_never_raises_anything_but_illegal_action(which, seat, action):
    st = _STATES[which]
    try:
        checked = rules.check(st, seat, action)
    except IllegalAction as exc:
        assert str(exc)
        assert rules.problems(st, seat, action) == [str(exc)]
    else:
        rules.apply(st, seat, checked)                         # a legal action applies cleanly
    assert isinstance(rules.describe(st, seat, action), str)


# =====================================================================================
# Views


def _views(st):
    return [rules.view(st, s) for s in (None, *range(st.players))]


def test_views_carry_no_deck_contents_or_order():
    st = base(3)
    other = sorted(set(range(92)) - set(st.deck) - set(st.market))
    assert len(other) < len(st.deck)
    swapped = replace(st, deck=tuple(reversed(st.deck)))
    different = replace(st, deck=tuple(sorted(set(range(92)) - set(st.market)))[:len(st.deck)][::-1])
    assert different.deck != st.deck
    for a, b, c in zip(_views(st), _views(swapped), _views(different)):
        assert a == b == c
        assert a["deck"] == len(st.deck)
    # solo: the 35-card subset is hidden as well
    solo = rules.setup({}, 1, seed(30))
    alt = replace(solo, deck=tuple(c for c in range(92) if c not in solo.market)[:len(solo.deck)])
    assert alt.deck != solo.deck and _views(alt) == _views(solo)


def test_views_are_the_same_for_every_seat_but_me_and_encodable():
    st = rules.apply(base(3), 0, {"do": "work"})
    vs = _views(st)
    for v in vs:
        encode(v)
        w = dict(v)
        w.pop("me")
        w0 = dict(vs[0])
        w0.pop("me")
        assert w == w0
    # a pending draw shows only how many cubes are coming, never their colours
    assert vs[1]["incoming"] == [3, 0, 0] and vs[1]["studios"][0] == rules.cubes_map(st.studios[0])


def test_engine_api_object_delegates_to_the_rules():
    st = GAME.setup(GAME.configure({}, 2), 2, seed(40))
    assert GAME.turn(st) == rules.turn(st)
    assert GAME.default_action(st, st.actor) == {"do": "work"}


# =====================================================================================
# RULES.md decisions (numbered as in core/games/starving_artists/RULES.md)


def test_decision_01_food_overflow_drawn_from_the_bag_before_the_canvas_cubes_return():
    cid = card_where(lambda c: c.food >= 2)
    st = base(2)
    st = with_canvases(st, {0: [(cid, full(cid))]})
    st = replace(night(st), nutrition=(5, 3), paint_market=cubes())
    st2 = rules.apply(st, 0, sell_all(st, 0))
    assert st2.pending[0] == ("cubes", 0, 4 * CARDS[cid].food)
    assert st2.pending[1] == ("return", filled_counts(full(cid)))
    # an empty bag shows the order: the overflow finds nothing, the canvas's cubes come back after
    st3 = rules.chance(rules.apply(replace(st, bag=cubes()), 0, sell_all(st, 0)), ent(1))
    assert st3.studios[0] == st.studios[0]


def test_decision_02_paintings_count_when_sold():
    # (the end check: test_end_complete_but_unsold_canvases_do_not_count_as_paintings)
    st = base(4)
    ids = cards_where(lambda c: True, 5)
    r = rules.result(replace(st, phase="over", step="", actor=-1, sold=(tuple(ids), (), (), ())))
    assert r["sold"] == [5, 0, 0, 0]


def test_decision_03_work_cubes_resolve_before_that_seats_next_decision_only():
    st = base(2)
    st = rules.apply(st, 0, {"do": "work"})
    assert rules.turn(st).kind == "sequential"              # seat 1 decides without the draw
    assert st.studios[0] == base(2).studios[0]
    st = rules.apply(st, 1, {"do": "work"})
    assert rules.turn(st).kind == "chance"                   # seat 0 is next: its cubes first


def test_decision_04_player_trade_offer_sizes_wilds_and_free_action_use():
    st = _trader(players=3, offerer=0, studios=(cubes(R=10, W=1), cubes(B=2, W=1), cubes(B=2)))
    rules.check(st, 0, {"do": "offer", "give": {"W": 1}, "take": {"W": 1}})          # wilds allowed
    rules.check(st, 0, {"do": "offer", "give": {"R": 9}, "take": {"B": 9}})
    with pytest.raises(IllegalAction, match="give must be 1 to 9 cubes, not 10"):
        rules.check(st, 0, {"do": "offer", "give": {"R": 10}, "take": {"B": 1}})
    with pytest.raises(IllegalAction, match="take must be 1 to 9 cubes, not 0"):
        rules.check(st, 0, {"do": "offer", "give": {"R": 1}, "take": {}})
    st2 = rules.apply(st, 0, {"do": "offer", "give": {"W": 1}, "take": {"W": 1}})
    st2 = rules.apply(rules.apply(st2, 1, {"do": "answer", "accept": True}), 2,
                      {"do": "answer", "accept": False})
    assert st2.studios[0] == cubes(R=10, W=1) and st2.studios[1] == cubes(B=2, W=1)   # a swap
    assert st2.free_used[0]


@pytest.mark.parametrize("points,rating", [(19, "Surviving"), (24, "Expert")])
def test_decision_05_solo_rating_band_edges(points, rating):
    assert rules.solo_rating(points) == rating


def test_decision_06_solo_chance_is_asked_of_the_player_alone():
    st = rules.apply(base(1), 0, {"do": "work"})
    t = rules.turn(st)
    assert t.kind == "chance" and t.seats == (0,)


def test_decision_08_returns_wait_behind_queued_draws():
    # seat 1 worked in the afternoon (3 cubes owed) and the bag is empty when seat 0 sells:
    # the work draw comes first and finds nothing; the sold canvas's cubes come back after it
    cid = card_where(lambda c: c.size >= 4 and c.food <= 2)
    st = base(2)
    st = with_canvases(st, {0: [(cid, full(cid))]})
    st = replace(night(st), nutrition=(3, 3), paint_market=cubes(), bag=cubes(), pending=(("cubes", 1, 3),))
    st2 = rules.apply(st, 0, sell_all(st, 0))
    assert st2.bag == cubes()                                   # not back yet: queued
    assert st2.pending[0] == ("cubes", 1, 3) and st2.pending[1] == ("return", filled_counts(full(cid)))
    st3 = rules.chance(st2, ent(2))
    assert st3.studios[1] == st.studios[1]                       # nothing to draw at its turn in the queue
    # then the day's four Paint Market cubes come from the returned ones
    assert sum(st3.paint_market) == 4 and sum(st3.bag) == CARDS[cid].size - 4


def test_decision_09_setup_deals_from_the_seed_and_junior_market_from_the_bag():
    st = rules.setup({}, 2, seed(50))
    assert st == rules.setup({}, 2, seed(50)) and not st.pending
    assert rules.turn(st).kind == "sequential"                  # no chance step on day 1
    jr = rules.setup({"edition": "junior"}, 2, seed(50))
    drawn = add(tuple(map(sum, zip(*jr.studios))), cubes(R=1, O=1, Y=1, G=1, B=1, P=1, K=1))
    assert add(jr.bag, drawn) == rules.BAG


def test_decision_10_collection_amounts_by_distinct_paint_value():
    pm = cubes(R=10, O=10, Y=10, G=10, B=10)
    st, ids = sellers(3, [9, 9, 6], pm, first=1)
    log = collect_log(finish_night(st))
    # both 9s take 4 (seat 1 first: it holds the marker), the 6 is the second value: 2
    assert log[:3] == [(1, 4), (0, 4), (2, 2)]


def test_decision_10_one_seats_paintings_collected_in_its_announce_order():
    a, b = cards_where(lambda c: c.paint == 9 and c.food <= 2, 2)
    st = base(2)
    st = with_canvases(st, {0: [(a, full(a)), (b, full(b))]})
    st = replace(night(st), nutrition=(1, 3), paint_market=cubes(R=10, O=10, B=10))
    st2 = run(rules.apply(st, 0, {"do": "sell", "canvases": [b, a]}), until=lambda s: s.phase != "night")
    titles = [text.rsplit(" for ", 1)[1] for _, text in st2.events if " collects " in text]
    assert titles[:2] == [rules.card_title(b), rules.card_title(a)]
    assert collect_log(st2)[:2] == [(0, 4), (0, 4)]


def test_decision_11_a_market_of_only_wilds_still_pays_one_per_action():
    st, ids = sellers(2, [9], cubes(W=4))
    st2 = announce_all(st)
    assert collect_log(st2) == [(0, 1), (0, 1), (0, 1), (0, 1)]
    assert st2.studios[0] == add(st.studios[0], cubes(W=4))


def test_decision_12_solo_diamond_returns_nothing_when_one_colour_is_missing():
    cid = card_where(lambda c: sum(1 for q in c.squares if len(q) == 2) == 1)
    a, b = next(q for q in CARDS[cid].squares if len(q) == 2)
    singles = Counter(q[0] for q in CARDS[cid].squares if len(q) == 1)
    st = base(1)
    st = replace(last_turn_of_day(st), market=(cid,) + st.market[1:], nutrition=(3,),
                 deck=tuple(c for c in st.deck if c != cid))
    # a missing: the singles of b take theirs, the diamond takes nothing by default (it names a)
    one = settle(rules.apply(replace(st, paint_market=cubes(**{b: singles[b] + 2})), 0, {"do": "work"}))
    assert one.step == "dusk" and rules.default_action(one, 0) == {"do": "diamonds", "colours": [a]}
    one = rules.apply(one, 0, rules.default_action(one, 0))
    assert one.paint_market[CI[b]] == 2 and one.paint_market[CI[a]] == 0
    # both there: by default the diamond takes the colour the market has more of
    two = settle(rules.apply(replace(st, paint_market=cubes(**{a: singles[a] + 1, b: singles[b] + 3})), 0,
                             {"do": "work"}))
    two = rules.apply(two, 0, rules.default_action(two, 0))
    assert (two.paint_market[CI[a]], two.paint_market[CI[b]]) == (1, 2)


def test_decision_13_solo_ends_when_the_market_is_empty_after_the_flips():
    st = base(1)
    # one card left in the deck: after slot 1 leaves, the row is refilled -> the game goes on
    st = replace(last_turn_of_day(st), deck=st.deck[:1], market=(st.market[0], -1, -1), nutrition=(3,))
    st2 = rules.apply(st, 0, {"do": "work"})
    assert st2.phase == "morning"
    # (an empty deck and one card: test_solo_ends_when_the_canvas_market_is_empty)


def test_decision_14_solo_deck_remove_comics_uses_all_when_fewer_remain():
    st = rules.setup({"remove_comics": True, "solo_canvases": 92}, 1, seed(14))
    pool = set(st.deck) | set(st.market)
    assert pool == {c.id for c in CARDS if c.stars > 0}
    st = rules.setup({"solo_canvases": 10}, 1, seed(14))
    assert len(st.deck) + 3 == 10


def test_decision_15_reset_with_fewer_than_three_cards_and_after_a_buy():
    st = base(2)
    st = replace(st, deck=st.deck[:2], studios=at(st.studios, 0, cubes(R=3)))
    st2 = rules.chance(rules.apply(st, 0, {"do": "reset", "pay": {"R": 2}}), ent(15))
    assert set(st2.market[:2]) == set(st.deck) and st2.market[2] == -1 and st2.deck == ()
    # after a buy: the buy's flip takes one of the two cards, the reset turns over the other
    both = rules.chance(rules.apply(st, 0, {"do": "buy", "slot": 1, "pay": {"R": 1},
                                            "then": {"do": "reset", "pay": {"R": 2}}}), ent(15))
    assert both.deck == () and both.market[1:] == (-1, -1) and both.market[0] in st.deck
    assert set(st.market[1:]) | (set(st.deck) - {both.market[0]}) <= set(both.discarded)
    # a deck with one card: the buy's flip takes it, a reset would turn over nothing
    one = replace(st, deck=st.deck[:1])
    with pytest.raises(IllegalAction, match="deck is empty"):
        rules.check(one, 0, {"do": "buy", "slot": 1, "pay": {"R": 1}, "then": {"do": "reset", "pay": {"R": 2}}})


def test_decision_16_market_trade_takes_only_what_was_there_before_the_give():
    st = base(2)
    st = replace(st, studios=at(st.studios, 0, cubes(R=2)), paint_market=cubes(B=1))
    with pytest.raises(IllegalAction, match="the Paint Market has no red cube"):
        rules.check(st, 0, {"do": "trade", "give": {"R": 2}, "take": {"R": 1}})


def test_decision_17_color_study_resolves_the_bag_first_and_not_after_work():
    st = base(2, options={"color_study": True})
    st = replace(st, studios=at(st.studios, 0, cubes(R=4)))
    with pytest.raises(IllegalAction, match="reads the bag"):
        rules.check(st, 0, {"do": "work", "then": {"do": "study", "give": "R", "take": "B"}})
    st1 = rules.apply(st, 0, {"do": "work"})
    # seat 1 is next and has no cubes owed, but with Color Study the bag is settled first
    assert rules.turn(st1).kind == "chance"
    plain = rules.apply(replace(st, config=dict(st.config, color_study=False)), 0, {"do": "work"})
    assert rules.turn(plain).kind == "sequential"


def test_decision_18_last_supper_after_the_sales_capped_without_overflow():
    sold = card_where(lambda c: c.food == 0)
    eaten = card_where(lambda c: c.stars >= 4, avoid=[sold])
    st = base(2, options={"last_supper": True})
    st = with_canvases(st, {0: [(sold, full(sold)), (eaten, full(eaten))]})
    st = replace(night(st), nutrition=(1, 3), paint_market=cubes())
    bag0 = st.bag
    st2 = rules.apply(st, 0, {"do": "sell", "canvases": [sold], "supper": eaten})
    # sale first: 1 + food 0 (still starving); supper then adds stars, capped at 5, no overflow cubes
    assert not any(op[0] == "cubes" for op in st2.pending)
    assert st2.nutrition[0] == 5 - 1                          # capped at 5, then day 2's meal
    assert st2.sold[0] == (sold,) and eaten in st2.discarded and st2.canvases[0] == ()
    assert st2.score[0] == CARDS[sold].stars
    assert st2.bag == add(bag0, add(filled_counts(full(sold)), filled_counts(full(eaten))))


def test_decision_20_pending_cubes_count_for_the_tie_break_without_a_chance_step():
    st = _over(2, score=(6, 6), studios=(cubes(R=2), cubes(R=4)), pending=(("cubes", 0, 3),))
    assert rules.turn(st).kind == "over"
    r = rules.result(st)
    assert r["cubes"] == [5, 4] and r["winners"] == [0]


def test_decision_21_junior_cap_counts_wilds_too():
    st = base(2, options={"edition": "junior"})
    st = replace(st, studios=at(st.studios, 0, cubes(W=2)), paint_market=cubes(W=4, B=1))
    st2 = rules.apply(st, 0, {"do": "trade", "give": {"W": 2}, "take": {"B": 1}})
    assert st2.paint_market == cubes(W=4) and st2.bag == add(st.bag, cubes(W=2))


@pytest.mark.parametrize("raw,word", [
    ({"do": "work", "extra": 1}, "unknown key"),
    ({"do": "buy", "slot": 1, "pay": {"r": 1}}, "not a colour"),
    ({"do": "buy", "slot": True, "pay": {"R": 1}}, "slot must be a whole number"),
    ({"do": "buy", "slot": "1", "pay": {"R": 1}}, "slot must be a whole number"),
    ({"do": "buy", "slot": 1.0, "pay": {"R": 1}}, "slot must be a whole number"),
    ({"do": "buy", "slot": 1, "pay": {"R": True}}, "whole number"),
    ({"do": "trade", "give": {"R": 2.0}, "take": {"B": 1}}, "whole number"),
    ({"do": "paint", "place": [[0, 0, "red"]]}, "not one of your canvases|colour letter"),
    ({"do": "Work"}, "unknown action"),
])
def test_decision_24_strict_actions(raw, word):
    st = base(2)
    st = replace(st, studios=at(st.studios, 0, cubes(R=3, B=2)), paint_market=cubes(B=2))
    with pytest.raises(IllegalAction, match=word):
        rules.check(st, 0, raw)
    (msg,) = rules.problems(st, 0, raw)
    assert msg and msg[0].isalpha()


def test_decision_25_time_out_defaults():
    st = base(2)
    assert rules.default_action(st, 0) == {"do": "work"}
    sel, ids = sellers(2, [9], cubes(R=5, B=2, G=1, W=1))
    assert rules.default_action(sel, 0) == {"do": "sell", "canvases": [], "supper": None}
    # collection: needed colours first (here green), then one wild, then the most plentiful
    need = card_where(lambda c: c.squares[0] == ("G",) and c.size >= 2, avoid=ids)
    sel = with_canvases(sel, {0: [(ids[0], full(ids[0])), (need, "." + full(need)[1:])]})
    sel = replace(sel, studios=at(sel.studios, 0, cubes()))
    col = settle(rules.apply(sel, 0, {"do": "sell", "canvases": [ids[0]]}))
    assert col.step == "collect"
    assert rules.default_action(col, 0) == {"do": "take", "cubes": {"G": 1, "W": 1, "R": 2}}
    tr = _trader(players=3, offerer=0, studios=(cubes(R=2), cubes(B=2), cubes(B=2)))
    off = rules.apply(tr, 0, {"do": "offer", "give": {"R": 1}, "take": {"B": 1}})
    assert rules.default_action(off, 1) == {"do": "answer", "accept": False}
    for s, seat in ((st, 0), (sel, 0), (col, 0), (off, 1)):
        rules.check(s, seat, rules.default_action(s, seat))


def test_decision_26_complete_but_unsold_canvases_break_no_tie():
    """The tie-break after points counts paintings sold: a complete canvas still held decides nothing."""
    a, b, c, d = cards_where(lambda x: True, 4)
    # equal points and sold: the food decides, not seat 1's two complete but unsold canvases
    st = with_canvases(_over(2, score=(6, 6), sold=((a,), (b,)), food_earned=(3, 2)), {1: [(c, full(c)), (d, full(d))]})
    r = rules.result(st)
    assert r["sold"] == [1, 1] and r["winners"] == [0] and r["ranking"] == [0, 1]
    # one more painting sold does decide (against the same complete canvases)
    st2 = replace(st, sold=((a,), (b, c)), canvases=(st.canvases[0], ((d, full(d)),)))
    assert rules.result(st2)["winners"] == [1]
    # equal on all four: a full tie whoever holds complete canvases
    st3 = with_canvases(_over(2, score=(6, 6), sold=((a,), (b,)), food_earned=(3, 3),
                              studios=(cubes(R=2), cubes(B=2))), {1: [(c, full(c))]})
    r = rules.result(st3)
    assert r["places"] == [1, 1] and r["winners"] == [0, 1]
    # and the complete canvas does not count as a painting for the end of the game either
    assert rules.result(with_canvases(_over(2), {0: [(c, full(c))]}))["sold"] == [0, 0]


def test_legal_actions_all_pass_check_in_every_kind_of_step():
    for st in _STATES:
        t = rules.turn(st)
        for seat in t.seats if t.kind in ("sequential", "simultaneous") else ():
            acts = rules.legal_actions(st, seat)
            assert rules.default_action(st, seat) in acts
            for a in acts:
                rules.check(st, seat, a)


# =====================================================================================
# Whole games: the rules' invariants hold at every step of random legal play


@pytest.mark.parametrize("players,options", [
    (2, {}), (3, {"player_trades": True, "color_study": True}), (4, {"last_supper": True}),
    (1, {}), (3, {"edition": "junior"}),
])
def test_random_legal_games_keep_the_rules_invariants(players, options):
    from core.rng import Rng
    for game in range(4):
        rng = Rng(seed(100 + game), "test/choices")
        st = rules.setup(options, players, seed(200 + 10 * players + game))
        for step in range(4000):
            t = rules.turn(st)
            if t.kind == "over":
                break
            if not st.pending:
                assert total_cubes(st) == 150
            assert all(0 <= n <= 5 for n in st.nutrition)
            assert all(n >= 1 for n, a in zip(st.nutrition, st.alive) if a)
            if options.get("edition") == "junior" and not st.pending:
                assert max(st.paint_market) <= 4
            if t.kind == "chance":
                assert st.pending and set(t.seats) == {s for s in range(players) if st.alive[s]}
                st = rules.chance(st, ent(step + 1000 * game))
                continue
            for seat in t.seats:
                acts = rules.legal_actions(st, seat)
                assert acts and rules.default_action(st, seat) in acts
                act = acts[rng.below(len(acts))]
                if st.step == "collect":
                    assert act["cubes"].get("W", 0) <= 1
                before = st
                st = rules.apply(st, seat, act)
                if before.step == "announce":
                    order = rules.order_from(before.first, before.alive)
                    assert order.index(seat) >= max([order.index(s) for s, _, _ in before.announced] + [-1])
                if t.kind == "sequential":
                    break
        assert rules.turn(st).kind == "over", "game did not end"
        r = rules.result(st)
        assert sorted(r["ranking"]) == list(range(players)) and r["winners"]
        if players == 1:
            assert r["rating"] in ("Keep trying", "Surviving", "Expert", "Professional")
