"""Starving Artists: printed rules that the engine once bent, each test quoting the sentence of
starving-artists-rulebook.md it checks (who wins, the free action after your action, the solo
diamond, Last Supper, junior's Paint Market, solo-only options)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.engine import ConfigError, IllegalAction
from core.games.starving_artists import rules
from core.games.starving_artists.cards import CARDS

from .starving_util import at, base, card_where, cards_where, cubes, full, night, run, sell_all, settle, with_canvases


def _finish(st):
    return run(st, policy=lambda s, seat: sell_all(s, seat) if s.step == "announce" else None,
               until=lambda s: s.phase != "night")


# ------------------------------------------------------------------ 1. who wins


def test_first_to_five_paintings_wins_over_a_seat_with_more_points():
    """"If no one starves, the Paint-by-Cube Master Painter is the first player to do either of the
    following ... 4 players: complete 5 paintings or score 12 points"."""
    cid = card_where(lambda c: c.stars == 1 and c.food <= 3)
    earlier = cards_where(lambda c: True, 7, avoid=[cid])
    st = with_canvases(base(4), {0: [(cid, full(cid))]})
    st = replace(night(st), nutrition=(2,) * 4, paint_market=cubes(),
                 sold=(tuple(earlier[:4]), tuple(earlier[4:7]), (), ()), score=(5, 11, 0, 0),
                 deck=tuple(c for c in st.deck if c not in earlier))
    end = _finish(st)
    res = rules.result(end)
    assert end.phase == "over" and res["points"][:2] == [6, 11] and res["sold"][:2] == [5, 3]
    assert res["winners"] == [0] and res["ranking"][:2] == [0, 1] and res["places"][:2] == [1, 2]
    assert res["decided_by"] == "objective"
    assert res["objectives"] == [{"seat": 0, "objective": "paintings", "day": 1}]


def test_two_seats_reaching_the_same_objective_in_one_night_first_sale_wins():
    """"the first player to do either": sales at night come "Starting with the first player and
    proceeding clockwise", so the first seat in that order to reach an objective is first, even
    with fewer points."""
    a, b = cards_where(lambda c: c.stars == 1 and c.food <= 3, 2)
    earlier = cards_where(lambda c: True, 8, avoid=[a, b])
    st = with_canvases(base(4, first=2), {1: [(a, full(a))], 3: [(b, full(b))]})
    st = replace(night(st), nutrition=(2,) * 4, paint_market=cubes(),
                 sold=((), tuple(earlier[:4]), (), tuple(earlier[4:8])), score=(0, 9, 0, 4),
                 deck=tuple(c for c in st.deck if c not in earlier))
    res = rules.result(_finish(st))
    # seat 3 sells before seat 1 (clockwise from seat 2): seat 3 is first to 5 paintings
    assert [o["seat"] for o in res["objectives"]] == [3, 1]
    assert res["winners"] == [3] and res["ranking"][:2] == [3, 1] and res["decided_by"] == "objective"


def test_both_objectives_met_by_different_seats_points_decide():
    """"Ties. If both objectives are met by different players, the player with the most points win.\""""
    a = card_where(lambda c: c.stars == 1 and c.food <= 3)
    b = card_where(lambda c: c.stars >= 2 and c.food <= 3, avoid=[a])
    earlier = cards_where(lambda c: True, 5, avoid=[a, b])
    st = with_canvases(base(4), {0: [(a, full(a))], 1: [(b, full(b))]})
    st = replace(night(st), nutrition=(2,) * 4, paint_market=cubes(),
                 sold=(tuple(earlier[:4]), (earlier[4],), (), ()), score=(3, 12 - CARDS[b].stars, 0, 0),
                 deck=tuple(c for c in st.deck if c not in earlier))
    res = rules.result(_finish(st))
    assert [(o["seat"], o["objective"]) for o in res["objectives"]] == [(0, "paintings"), (1, "points")]
    assert res["decided_by"] == "points" and res["winners"] == [1]


def test_nobody_meets_an_objective_after_a_starvation_points_decide():
    """"If someone does starve, and neither the painting nor point objectives were met, then the
    player with the highest point score wins. The winner *could be* the player who starved.\""""
    st = replace(base(3), phase="afternoon", actor=2, day=2, nutrition=(1, 3, 3), score=(9, 4, 2))
    st = run(rules.apply(st, 2, {"do": "work"}))
    res = rules.result(st)
    assert res["objectives"] == [] and res["decided_by"] == "points" and res["winners"] == [0]


# ------------------------------------------------------------------ 3. solo-only options


@pytest.mark.parametrize("option,value", [("remove_comics", True), ("solo_canvases", 20)])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_solo_only_options_are_refused_at_a_table_of_two_to_four(option, value, players):
    """"Setup. Follow standard set up, but only use 35 Canvas Cards ... You may also wish to remove
    the zero-point, comic book Canvas cards from the deck." is under "Solo game": a table of 2-4
    uses the whole deck, so these options are refused there (left at their default they change
    nothing and are accepted, so a full config read back from a table still configures)."""
    with pytest.raises(ConfigError, match="%s is for the solo game only" % option):
        rules.configure({option: value}, players)
    assert rules.configure({option: rules.OPTIONS[option]}, players) == rules.OPTIONS
    assert rules.configure({option: value}, 1)[option] == value
