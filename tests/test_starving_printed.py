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

def _tonight(players, first, sales, score, sold_before, food_before=None, studios=None, **fields):
    """A night of ``players`` seats, the marker on ``first``: each seat in ``sales`` ({seat: card
    id}) holds that canvas complete and sells it tonight (food 3 or less, nutrition 2: no overflow;
    the Paint Market empty: nothing to collect). ``score``/``food_before`` are per seat before
    tonight, ``sold_before`` the number of paintings each seat sold before (distinct other cards);
    ``studios`` the unused cubes. Returns the state at the night's first announcement."""
    assert all(CARDS[c].food <= 3 for c in sales.values())
    pool = iter(cards_where(lambda c: True, sum(sold_before), avoid=sales.values()))
    earlier = tuple(tuple(next(pool) for _ in range(k)) for k in sold_before)
    st = with_canvases(base(players, first=first), {s: [(c, full(c))] for s, c in sales.items()})
    st = replace(night(st), nutrition=(2,) * players, paint_market=cubes(), sold=earlier, score=tuple(score),
                 food_earned=tuple(food_before or (0,) * players),
                 studios=tuple(studios) if studios else st.studios,
                 deck=tuple(c for c in st.deck if c not in {x for e in earlier for x in e}), **fields)
    return st


def _objectives(res):
    return [(o["seat"], o["objective"]) for o in res["objectives"]]


@pytest.mark.parametrize("first", range(4))
def test_the_only_artist_to_meet_an_objective_wins_over_a_seat_with_more_points(first):
    """"If no one starves, the Paint-by-Cube Master Painter is the first player to do either of the
    following ... 4 players: complete 5 paintings or score 12 points": one artist alone meets an
    objective tonight, so it wins even with fewer points than an artist who met none, whoever
    announces first."""
    cid = card_where(lambda c: c.stars == 1 and c.food <= 3)
    st = _tonight(4, first, {0: cid}, score=(5, 11, 0, 0), sold_before=(4, 3, 0, 0))
    end = _finish(st)
    res = rules.result(end)
    assert end.phase == "over" and res["points"][:2] == [6, 11] and res["sold"][:2] == [5, 3]
    assert res["winners"] == [0] and res["ranking"][:2] == [0, 1] and res["places"][:2] == [1, 2]
    assert res["decided_by"] == "objective"
    assert res["objectives"] == [{"seat": 0, "objective": "paintings", "day": 1}]


# (favoured seat's, other seat's) (points, sold, food earned, unused cubes) after tonight: equal up
# to the named tie-break, which the favoured seat wins (and loses every later one)
STAGES = {
    "points": ((13, 3, 5, 3), (12, 4, 6, 4)),
    "canvases": ((12, 4, 5, 3), (12, 3, 6, 4)),
    "food": ((12, 3, 6, 3), (12, 3, 5, 4)),
    "cubes": ((12, 3, 5, 4), (12, 3, 5, 3)),
}


@pytest.mark.parametrize("stage", list(STAGES))
@pytest.mark.parametrize("favoured", [1, 3])
@pytest.mark.parametrize("first", range(4))
def test_two_artists_meeting_the_point_objective_the_same_night_are_a_tie(stage, favoured, first):
    """"Ties. If both objectives are met by different players, the player with the most points win.
    In the case of a tie based on points, the player with the most completed canvases wins. In case
    there is still a tie, the player who earned the most food wins. If there's still a tie, the
    player with the most unused paint cubes in their studio wins." Two artists reach 12 points in
    the same night: the night is one moment, so this is a tie decided by points, then completed
    canvases (sold, decision 26), then food earned, then unused cubes - at every announce order
    (each first player), never by who announced first."""
    other = 4 - favoured
    a, b = cards_where(lambda c: 1 <= c.stars <= 3 and 1 <= c.food <= 3, 2)
    want = {favoured: STAGES[stage][0], other: STAGES[stage][1], 0: (11, 4, 9, 9), 2: (10, 4, 9, 9)}
    card = {favoured: a, other: b}
    score = [want[s][0] - (CARDS[card[s]].stars if s in card else 0) for s in range(4)]
    sold = [want[s][1] - (1 if s in card else 0) for s in range(4)]
    food = [want[s][2] - (CARDS[card[s]].food if s in card else 0) for s in range(4)]
    studios = [cubes(B=want[s][3]) for s in range(4)]
    st = _tonight(4, first, card, score, sold, food, studios)
    res = rules.result(_finish(st))
    assert [res[k][favoured] for k in ("points", "sold", "food", "cubes")] == list(want[favoured])
    assert [res[k][other] for k in ("points", "sold", "food", "cubes")] == list(want[other])
    assert _objectives(res) == [(1, "points"), (3, "points")]     # seat order, whoever announced first
    assert res["decided_by"] == "tie" and res["winners"] == [favoured]
    assert res["ranking"] == [favoured, other, 0, 2] and res["places"][favoured] == 1 and res["places"][other] == 2


@pytest.mark.parametrize("first", range(4))
def test_both_objectives_met_by_different_seats_points_decide(first):
    """"Ties. If both objectives are met by different players, the player with the most points win.\""""
    a = card_where(lambda c: c.stars == 1 and c.food <= 3)
    b = card_where(lambda c: c.stars >= 2 and c.food <= 3, avoid=[a])
    st = _tonight(4, first, {0: a, 1: b}, score=(3, 12 - CARDS[b].stars, 0, 0), sold_before=(4, 1, 0, 0))
    res = rules.result(_finish(st))
    assert _objectives(res) == [(0, "paintings"), (1, "points")]
    assert res["decided_by"] == "tie" and res["winners"] == [1] and res["ranking"][:2] == [1, 0]


@pytest.mark.parametrize("first", range(3))
def test_artists_meeting_an_objective_the_same_night_all_place_above_those_who_met_none(first):
    """The tie is between the artists who met an objective: two reach 6 paintings at 3 seats with
    few points; the third, with more points, met none and is placed after them (as a lone artist
    meeting an objective is placed above it)."""
    a, b = cards_where(lambda c: c.stars == 1 and c.food <= 3, 2)
    st = _tonight(3, first, {1: a, 2: b}, score=(13, 3, 4), sold_before=(2, 5, 5))
    res = rules.result(_finish(st))
    assert res["points"] == [13, 4, 5] and res["sold"] == [2, 6, 6]
    assert _objectives(res) == [(1, "paintings"), (2, "paintings")] and res["decided_by"] == "tie"
    assert res["winners"] == [2] and res["ranking"] == [2, 1, 0] and res["places"] == [3, 2, 1]


@pytest.mark.parametrize("first", range(2))
def test_artists_equal_on_every_tie_break_share_the_win(first):
    """"If there's still a tie, the player with the most unused paint cubes in their studio wins" -
    and if that is equal too, the rulebook names no winner: the two share the win (place 1 twice,
    as decision 20 shares a place)."""
    a, b = cards_where(lambda c: c.stars == 2 and c.food == 3, 2)
    st = _tonight(2, first, {0: a, 1: b}, score=(14, 14), sold_before=(2, 2), food_before=(4, 4),
                  studios=(cubes(R=2), cubes(G=1, W=1)))
    res = rules.result(_finish(st))
    assert res["decided_by"] == "tie" and _objectives(res) == [(0, "points"), (1, "points")]
    assert res["winners"] == [0, 1] and res["places"] == [1, 1]


@pytest.mark.parametrize("first", range(4))
def test_a_last_supper_on_the_night_two_artists_tie(first):
    """Last Supper: "The painting does not count as completed for end game purposes." Seat 1 reaches
    12 points with a no-food sale and eats a second canvas the same night; the eaten one is not a
    completed painting for the tie-break, so seat 2 (equal points and paintings sold, more food)
    wins. Seat 0, at nutrition 1 with nothing to eat, does not starve: the game is over after this
    night, there is no next day."""
    sale = card_where(lambda c: c.food == 0 and c.stars == 4)
    eaten = card_where(lambda c: c.food <= 3, avoid=[sale])
    other = card_where(lambda c: c.stars == 2 and 1 <= c.food <= 3, avoid=[sale, eaten])
    st = with_canvases(base(4, first=first, options={"last_supper": True}),
                       {1: [(sale, full(sale)), (eaten, full(eaten))], 2: [(other, full(other))]})
    pool = iter(cards_where(lambda c: True, 6, avoid=[sale, eaten, other]))
    earlier = ((), (next(pool), next(pool), next(pool)), (next(pool), next(pool), next(pool)), ())
    st = replace(night(st), nutrition=(1, 1, 2, 2), paint_market=cubes(), score=(0, 8, 10, 0),
                 sold=earlier, food_earned=(0, 0, 0, 0), deck=tuple(c for c in st.deck if c not in sum(earlier, ())))
    supper = {1: {"do": "sell", "canvases": [sale], "supper": eaten}}
    end = run(st, policy=lambda s, seat: supper.get(seat) or sell_all(s, seat) if s.step == "announce" else None)
    res = rules.result(end)
    assert end.phase == "over" and eaten in end.discarded and end.nutrition[1] > 1
    assert res["points"][1:3] == [12, 12] and res["sold"][1:3] == [4, 4] and res["food"][1] < res["food"][2]
    assert res["decided_by"] == "tie" and res["winners"] == [2] and res["ranking"][:2] == [2, 1]
    assert res["starved"] == [False] * 4 and end.alive == (True,) * 4


@pytest.mark.parametrize("lone", [False, True])
def test_objectives_met_on_the_night_after_a_starvation_decide_and_not_the_starved_points(lone):
    """"If someone does starve, and neither the painting nor point objectives were met, then the
    player with the highest point score wins": the last night after a starvation is also a night
    on which objectives can be met, and then they decide - here seat 0 starved with the most
    points, and the artists who reach 6 paintings that night (one alone, or two tied) win."""
    a, b = cards_where(lambda c: c.stars == 1 and c.food <= 3, 2)
    sales = {1: a} if lone else {1: a, 2: b}
    st = with_canvases(base(3, first=1), {s: [(c, full(c))] for s, c in sales.items()})
    pool = iter(cards_where(lambda c: True, 10, avoid=[a, b]))
    earlier = ((), tuple(next(pool) for _ in range(5)), tuple(next(pool) for _ in range(5)))
    st = replace(night(st), day=3, starve_day=3, alive=(False, True, True), nutrition=(0, 2, 2),
                 studios=(cubes(), cubes(R=1), cubes(R=1)), paint_market=cubes(), score=(13, 2, 4), sold=earlier,
                 deck=tuple(c for c in st.deck if c not in sum(earlier, ())))
    res = rules.result(_finish(st))
    assert res["reason"] == "an artist reached 6 paintings or 14 points" and res["starved"] == [True, False, False]
    if lone:
        assert res["decided_by"] == "objective" and res["winners"] == [1] and res["ranking"] == [1, 0, 2]
    else:
        assert res["decided_by"] == "tie" and res["winners"] == [2] and res["ranking"] == [2, 1, 0]


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


# ------------------------------------------------------------------ 2. free action after the action, solo, supper, junior


def test_reset_after_buying_in_the_same_turn():
    """Free actions: "once per day, you may do one of the following at any time during one of your
    turns (including before or after you take your action)" - and "Reset the Canvas Market" is one:
    a buy (which ends the turn) may carry the reset after it. The buy's new card is turned over
    into slot 3 first, then discarded with the rest, then three new canvases are turned over."""
    st = base(2)
    st = replace(st, studios=at(st.studios, 0, cubes(R=2, B=1)))
    m1, m2, m3 = st.market
    both = rules.apply(st, 0, {"do": "buy", "slot": 1, "pay": {"B": 1}, "then": {"do": "reset", "pay": {"R": 2}}})
    assert both.canvases[0] == ((m1, "." * CARDS[m1].size),) and both.actor == 1 and both.free_used[0]
    assert both.pending == (("canvas", 3), ("reset",), ("canvas", 1), ("canvas", 2), ("canvas", 3))
    assert rules.view(both, 1)["pending"][1] == {"kind": "reset"}
    after = settle(both, 5)
    assert -1 not in after.market and len(after.deck) == len(st.deck) - 4
    gone = set(after.discarded) - set(st.discarded)
    assert len(gone) == 3 and {m2, m3} < gone and not gone & set(after.market)
    # the text replays it: the buy's flip, then the reset (no word), then three flips (RULES.md)
    from core.rng import Rng
    from .starving_util import ent
    rng, deck = Rng(ent(5), "starving-artists/chance"), list(both.deck)
    flipped = [deck.pop(rng.below(len(deck))) for _ in range(4)]
    assert list(after.market) == flipped[1:] and (gone - {m2, m3}) == {flipped[0]}


def test_solo_diamond_the_artist_chooses_its_colour():
    """Solo: "If a Canvas Card has a square with more than one color, you can choose which of the
    colors is used to satisfy that square even if the market doesn't have the other color." The
    artist is asked at the end of the day when the choice changes what goes back; the default is the
    more plentiful colour (it keeps the scarcer one in the Paint Market)."""
    cid = card_where(lambda c: sum(1 for q in c.squares if len(q) == 2) == 1)
    a, b = next(q for q in CARDS[cid].squares if len(q) == 2)
    singles = {q[0]: sum(1 for x in CARDS[cid].squares if x == q) for q in CARDS[cid].squares if len(q) == 1}
    st = base(1)
    st = replace(st, phase="afternoon", market=(cid,) + st.market[1:], nutrition=(3,),
                 deck=tuple(c for c in st.deck if c != cid), studios=(cubes(),),
                 paint_market=cubes(**{a: singles.get(a, 0) + 1, b: singles.get(b, 0) + 3}))
    dusk = settle(rules.apply(st, 0, {"do": "work"}))
    assert dusk.step == "dusk" and rules.turn(dusk).seats == (0,)
    v = rules.view(dusk, 0)["dusk"]
    assert v["canvas"] == cid and v["default"] == [b] and set(v["returns"]) == {a, b}
    with pytest.raises(IllegalAction, match="diamond"):
        rules.check(dusk, 0, {"do": "diamonds", "colours": ["W"]})
    with pytest.raises(IllegalAction, match="end of the day"):
        rules.check(dusk, 0, {"do": "work"})
    for bad in ({"do": "diamonds", "colours": a}, {"do": "diamonds"}, {"do": "diamonds", "colours": [a, a]},
                {"do": "diamonds", "colours": [7]}, {"do": "diamonds", "colours": [a], "x": 1}):
        assert rules.problems(dusk, 0, bad)
    with pytest.raises(IllegalAction, match="solo end of the day only"):
        rules.check(st, 0, {"do": "diamonds", "colours": [a]})
    mine = rules.apply(dusk, 0, {"do": "diamonds", "colours": [a]})    # the scarcer colour goes back
    assert (mine.paint_market[rules.CI[a]], mine.paint_market[rules.CI[b]]) == (0, 3)
    assert cid in mine.discarded and mine.day == 2
    dflt = rules.apply(dusk, 0, rules.default_action(dusk, 0))
    assert (dflt.paint_market[rules.CI[a]], dflt.paint_market[rules.CI[b]]) == (1, 2)
    # no choice to make (neither colour in the market): nobody is asked
    none = settle(rules.apply(replace(st, paint_market=cubes()), 0, {"do": "work"}))
    assert none.step == "turn" and none.day == 2


def test_solo_end_of_day_turns_over_a_queued_flip_before_removing_slot_one():
    """Solo: "at the end of each day, you remove the Canvas Card in the one-paint slot of the Canvas
    Market from play" - after a reset sent with the day's last action, the new slot-1 card must be
    face up first: the end of the day waits for the chance step that turns it over."""
    st = base(1)
    st = replace(st, phase="afternoon", nutrition=(3,), studios=(cubes(R=2),), paint_market=cubes())
    end = rules.apply(st, 0, {"do": "work", "then": {"do": "reset", "pay": {"R": 2}}})
    assert end.step == "dusk" and end.market == (-1, -1, -1) and rules.turn(end).kind == "chance"
    nxt = rules.chance(end, bytes(32))
    if nxt.step == "dusk":                      # a diamond choice: the default
        nxt = rules.apply(nxt, 0, rules.default_action(nxt, 0))
    left = [c for c in nxt.discarded if c not in st.market and c not in st.discarded]
    assert nxt.day == 2 and len(left) == 1 and nxt.market[2] == -1 and ("canvas", 3) in nxt.pending
    assert set(st.market) <= set(nxt.discarded) and left[0] not in nxt.market


def test_last_supper_is_judged_after_the_nights_sales():
    """Last Supper: "If you would otherwise starve at the start of the next turn (your nutrition is at
    one), you may discard one completed painting": a seat whose sales tonight raise its nutrition
    would not otherwise starve."""
    fed = card_where(lambda c: c.food >= 1)
    nofood = card_where(lambda c: c.food == 0, avoid=[fed])
    eaten = card_where(lambda c: c.stars >= 2, avoid=[fed, nofood])
    st = with_canvases(base(2, options={"last_supper": True}),
                       {0: [(fed, full(fed)), (nofood, full(nofood)), (eaten, full(eaten))]})
    st = replace(night(st), nutrition=(1, 3), paint_market=cubes())
    with pytest.raises(IllegalAction, match="would otherwise starve"):
        rules.check(st, 0, {"do": "sell", "canvases": [fed], "supper": eaten})
    rules.check(st, 0, {"do": "sell", "canvases": [nofood], "supper": eaten})


def test_last_supper_canvas_is_not_a_completed_painting_for_the_end():
    """Last Supper: "The painting does not count as completed for end game purposes": paintings
    count when sold (decision 2); the eaten one is not sold, so 4 sold + 1 eaten is not 5."""
    eaten = card_where(lambda c: c.stars >= 1)
    earlier = cards_where(lambda c: True, 4, avoid=[eaten])
    st = with_canvases(base(4, options={"last_supper": True}), {0: [(eaten, full(eaten))]})
    st = replace(night(st), nutrition=(1, 3, 3, 3), paint_market=cubes(), sold=(tuple(earlier), (), (), ()),
                 deck=tuple(c for c in st.deck if c not in earlier))
    st2 = rules.apply(st, 0, {"do": "sell", "canvases": [], "supper": eaten})
    assert st2.phase != "over" and len(st2.sold[0]) == 4 and st2.met == ()


def test_junior_pays_for_canvases_into_the_bag():
    """Junior: "Use the Paint Market only to trade for paints." A canvas (or a reset) is paid into
    the bag, not the Paint Market (at once: a buy pays before its flip is queued, decision 23)."""
    st = base(2, options={"edition": "junior"})
    st = replace(st, studios=at(st.studios, 0, cubes(R=3)), paint_market=cubes(B=1))
    st2 = rules.apply(st, 0, {"do": "buy", "slot": 2, "pay": {"R": 1}})
    assert st2.paint_market == cubes(B=1) and st2.pending == (("canvas", 3),)
    assert st2.bag == tuple(x + y for x, y in zip(st.bag, cubes(R=1)))
    st3 = rules.apply(st, 0, {"do": "reset", "pay": {"R": 2}})
    assert st3.paint_market == cubes(B=1) and st3.bag == tuple(x + y for x, y in zip(st.bag, cubes(R=2)))


@pytest.mark.parametrize("edition", ["standard", "junior"])
@pytest.mark.parametrize("queued", [False, True])
def test_a_buy_pays_first_then_its_card_is_turned_over_in_both_editions(edition, queued):
    """"You may buy one canvas from the Canvas Market by paying the cost in paint cubes to the Paint
    Market ... When a canvas is purchased, cards are shifted down (toward one) and a new one is
    flipped over in the three slot": the payment first, then the flip (decision 23), in both
    editions - standard into the Paint Market, junior into the bag ("Use the Paint Market only to
    trade for paints"), which waits only behind draws already queued (decision 8), never behind
    the buy's own flip. The order changes no draw: the flip takes no cube."""
    st = base(2, options={"edition": edition})
    before = (("cubes", 1, 3),) if queued else ()        # seat 1's morning work, still to be drawn
    st = replace(st, first=1, actor=0, studios=at(st.studios, 0, cubes(R=3)), paint_market=cubes(B=1),
                 pending=before)
    st2 = rules.apply(st, 0, {"do": "buy", "slot": 1, "pay": {"R": 1}})
    if edition == "standard":
        assert st2.paint_market == cubes(R=1, B=1) and st2.bag == st.bag
        assert st2.pending == before + (("canvas", 3),)
    elif queued:
        assert st2.paint_market == cubes(B=1) and st2.bag == st.bag
        assert st2.pending == before + (("return", cubes(R=1)), ("canvas", 3))
    else:
        assert st2.paint_market == cubes(B=1) and st2.bag == tuple(x + y for x, y in zip(st.bag, cubes(R=1)))
        assert st2.pending == (("canvas", 3),)
        # so the paid cube is in the bag for a Color Study after the buy, even the bag's only red one
        no_red = replace(st, bag=at(st.bag, 0, 0), studios=at(st.studios, 0, cubes(R=1, B=4)),
                         config=dict(st.config, color_study=True))
        study = {"do": "buy", "slot": 1, "pay": {"R": 1}, "then": {"do": "study", "give": "B", "take": "R"}}
        assert rules.apply(no_red, 0, study).studios[0] == cubes(R=1)
    # once the chance step is over, the red cube is where the edition puts it
    st3 = settle(st2, 3)
    assert st3.pending == () and -1 not in st3.market and st3.studios[0] == cubes(R=2)
    red = st3.bag[0] + st3.studios[1][0] - st.bag[0] - st.studios[1][0]
    assert (st3.paint_market[0], red) == ((1, 0) if edition == "standard" else (0, 1))


# ------------------------------------------------------------------ 4. what the text says an outsider must do


def _text_pick(market, k, canvases, studio):
    """Decision 25's collection pick, from RULES.md's words only."""
    order = "ROYGBPK"
    need = {c: 0 for c in order}
    for cid, filled in canvases:
        for sq, f in zip(CARDS[cid].squares, filled):
            if f == ".":
                for c in sq:
                    need[c] += 1
    need = {c: max(0, need[c] - studio[rules.CI[c]]) for c in order}
    m = {c: market[rules.CI[c]] for c in order + "W"}
    got = {c: 0 for c in order + "W"}
    for _ in range(k):
        pick = next((c for c in order if need[c] - got[c] > 0 and m[c] > 0), None)
        if pick is None and got["W"] == 0 and m["W"] > 0:
            pick = "W"
        if pick is None:
            top = max(m[c] for c in order)
            pick = next((c for c in order if m[c] == top and top > 0), None)
        if pick is None:
            break
        m[pick] -= 1
        got[pick] += 1
    return {c: n for c, n in got.items() if n}


def test_default_collection_pick_as_written():
    """Decision 25 (time-outs): the default collection action, rebuilt from the text for many
    markets and canvases, is the engine's."""
    from core.rng import Rng
    rng = Rng(bytes(32), "test/sa-pick")
    ids = cards_where(lambda c: True, 30)
    for _ in range(300):
        market = tuple(rng.below(4) for _ in range(8))
        studio = tuple(rng.below(3) for _ in range(8))
        cvs = []
        for cid in (ids[rng.below(30)], ids[rng.below(30)]):
            if cid in [c for c, _ in cvs]:
                continue
            f = "".join(sq[0] if rng.below(2) else "." for sq in CARDS[cid].squares)
            cvs.append((cid, f))
        k = 1 + rng.below(4)
        st = replace(base(2), studios=(studio, cubes()), canvases=(tuple(cvs), ()))
        want = _text_pick(market, k, cvs, studio)
        assert rules.cubes_map(rules.best_take(market, k, rules._need_counts(st, 0))) == want


# ------------------------------------------------------------------ 4. timing vectors, rebuilt from the text

import re  # noqa: E402
from pathlib import Path  # noqa: E402

from core.rng import Rng  # noqa: E402

from .test_starving_rules import _text_draw  # noqa: E402  (RULES.md's cube draw, written from the text)

RULES_MD = Path(__file__).resolve().parents[1] / "core/games/starving_artists/RULES.md"
FULL_BAG = [15, 20, 20, 20, 30, 15, 20, 10]


def timing_vectors() -> dict:
    text = RULES_MD.read_text(encoding="utf-8")
    m = re.search(r"<!-- starving-artists-timing:begin -->(.*?)<!-- starving-artists-timing:end -->", text, re.S)
    assert m, "RULES.md has no starving-artists-timing block"
    out = {}
    for line in m.group(1).splitlines():
        line = line.strip()
        if not line or line.startswith("```"):
            continue
        name, rest = line.split(None, 1)
        ins, outs = rest.split(" -> ")
        out[name] = (dict(kv.split("=", 1) for kv in ins.split()), dict(kv.split("=", 1) for kv in outs.split()))
    return out


def _ids(text):
    return [int(x) for x in text.split(",")]


def _filled(cid):
    """A canvas filled with the first colour of each square (RULES.md's vectors say so)."""
    out = [0] * 8
    for sq in CARDS[cid].squares:
        out["ROYGBPKW".index(sq[0])] += 1
    return out


def _text_junior_night(entropy, nutrition, sales, first, players):
    """RULES.md "A day" 3 (junior) and "Randomness": the queue a junior night builds, then one
    chance step resolving it first in first out."""
    queue = []
    nut = list(nutrition)
    for seat, cid in sales:                     # announce order = the order given
        card = CARDS[cid]
        extra = max(0, nut[seat] + card.food - 5)
        nut[seat] = min(5, nut[seat] + card.food)
        if extra:
            queue.append(("cubes", seat, 4 * extra))
        if queue:
            queue.append(("return", _filled(cid)))
    pos = {s: (s - first) % players for s in range(players)}
    order = sorted(range(len(sales)), key=lambda i: (-CARDS[sales[i][1]].paint, pos[sales[i][0]], i))
    for i in order:
        if CARDS[sales[i][1]].paint > 0:
            queue.append(("cubes", sales[i][0], CARDS[sales[i][1]].paint))
    bag = list(FULL_BAG)
    rng = Rng(entropy, "starving-artists/chance")
    drawn = []
    for op in queue:
        if op[0] == "cubes":
            drawn.append("".join(_text_draw(bag, rng, op[2])[1]))
        else:
            bag = [a + b for a, b in zip(bag, op[1])]
    words = ["cubes:%d:%d" % (op[1], op[2]) if op[0] == "cubes" else "return" for op in queue]
    return ",".join(words), "/".join(drawn)


def _text_flips(entropy, deck, n, cubes_first=0):
    rng = Rng(entropy, "starving-artists/chance")
    bag = list(FULL_BAG)
    drawn = "".join(_text_draw(bag, rng, cubes_first)[1]) if cubes_first else ""
    deck = list(deck)
    return drawn, [deck.pop(rng.below(len(deck))) for _ in range(n)]


def test_timing_vectors_in_rules_md_recomputed_from_the_text():
    """RULES.md's timing vectors (junior payment draws after all of the night's sales in collection
    order; a solo end of day with flips still queued; a reset after a buy), each rebuilt from the
    text and from the code."""
    vec = timing_vectors()
    assert set(vec) == {"junior-night", "solo-dusk", "buy-reset"}
    # junior night
    ins, want = vec["junior-night"]
    ent32 = bytes.fromhex(ins["entropy"])
    sales = [tuple(int(x) for x in s.split(":")) for s in ins["sales"].split(",")]
    nutrition = _ids(ins["nutrition"])
    first, players = int(ins["first"]), len(nutrition)
    queue, drawn = _text_junior_night(ent32, nutrition, sales, first, players)
    assert (queue, drawn) == (want["queue"], want["drawn"])
    st = base(players, first=first, options={"edition": "junior"})
    per: dict = {}
    for seat, cid in sales:
        per.setdefault(seat, []).append((cid, full(cid)))
    st = with_canvases(st, per)
    st = replace(night(st), nutrition=tuple(nutrition), bag=tuple(FULL_BAG), studios=((0,) * 8,) * players)
    while st.step == "announce":
        st = rules.apply(st, st.actor, {"do": "sell", "canvases": [c for s, c in sales if s == st.actor]})
    ops = ["cubes:%d:%d" % (op[1], op[2]) if op[0] == "cubes" else op[0] for op in st.pending]
    assert ops[-1] == "market" and ",".join(ops[:-1]) == queue     # then the next day's Paint Market draw
    done = rules.chance(st, ent32)
    per_seat = ["", ""]
    for op, got in zip([o for o in queue.split(",") if o != "return"], drawn.split("/")):
        per_seat[int(op.split(":")[1])] += got
    assert [rules.counts_of({c: w.count(c) for c in set(w)}) for w in per_seat] == list(done.studios)
    # solo dusk: the day's last action is work then reset; the queue is the 3 cubes, then 3 flips
    ins, want = vec["solo-dusk"]
    ent32 = bytes.fromhex(ins["entropy"])
    deck, market = _ids(ins["deck"]), _ids(ins["market"])
    cubes3, flips = _text_flips(ent32, deck, 3, cubes_first=3)
    assert (cubes3, ",".join(map(str, flips)), str(flips[0])) == (want["drawn"], want["flips"], want["removed"])
    st = replace(base(1), phase="afternoon", deck=tuple(deck), market=tuple(market), bag=tuple(FULL_BAG),
                 studios=(cubes(W=2),), paint_market=cubes(), nutrition=(3,))
    end = rules.apply(st, 0, {"do": "work", "then": {"do": "reset", "pay": {"W": 2}}})
    assert end.step == "dusk" and end.pending == (("cubes", 0, 3), ("canvas", 1), ("canvas", 2), ("canvas", 3))
    nxt = rules.chance(end, ent32)
    assert nxt.day == 2 and nxt.discarded[-1] == flips[0] and list(nxt.market[:2]) == flips[1:]
    assert "".join(sorted(cubes3, key="ROYGBPKW".index)) == "".join(
        "ROYGBPKW"[i] * n for i, n in enumerate(nxt.studios[0]))
    # buy then reset
    ins, want = vec["buy-reset"]
    ent32 = bytes.fromhex(ins["entropy"])
    deck, market = _ids(ins["deck"]), _ids(ins["market"])
    _, flips = _text_flips(ent32, deck, 4)
    assert (str(flips[0]), ",".join(map(str, flips[1:]))) == (want["discarded"], want["market"])
    st = replace(base(2), deck=tuple(deck), market=tuple(market), studios=(cubes(R=3), cubes()), discarded=())
    assert ins["slot"] == "1"
    both = rules.apply(st, 0, {"do": "buy", "slot": 1, "pay": {"R": 1}, "then": {"do": "reset", "pay": {"R": 2}}})
    after = rules.chance(both, ent32)
    assert list(after.market) == flips[1:] and after.discarded[-1] == flips[0]


# ------------------------------------------------------------------ the screen speaks the new forms


def _dusk_state():
    cid = card_where(lambda c: sum(1 for q in c.squares if len(q) == 2) == 1)
    a, b = next(q for q in CARDS[cid].squares if len(q) == 2)
    singles = {q[0]: sum(1 for x in CARDS[cid].squares if x == q) for q in CARDS[cid].squares if len(q) == 1}
    st = base(1)
    st = replace(st, phase="afternoon", market=(cid,) + st.market[1:], nutrition=(3,),
                 deck=tuple(c for c in st.deck if c != cid), studios=(cubes(),),
                 paint_market=cubes(**{a: singles.get(a, 0) + 1, b: singles.get(b, 0) + 3}))
    return settle(rules.apply(st, 0, {"do": "work"})), a, b


def test_screen_offers_the_diamond_choice_and_buy_then_reset():
    from cli.screens import Send
    from cli.screens.starving_artists import StarvingArtistsScreen

    from .test_starving_screen import ctx_for

    dusk, a, b = _dusk_state()
    sc = StarvingArtistsScreen()
    ctx = ctx_for(dusk, 0)
    say = sc.on_decision(ctx)
    assert "End of day" in say.text and sc.draft == {"do": "diamonds", "colours": [b]}
    assert sc.decision_label(ctx) == "end of day: diamonds"
    sent = sc.command(ctx, "diamonds", [a])
    assert isinstance(sent, Send) and sent.action == {"do": "diamonds", "colours": [a]}
    assert sc.command(ctx, "diamonds", ["auto"]).action == {"do": "diamonds", "colours": [b]}
    st = replace(base(2), studios=(cubes(R=3), cubes()))
    sent = sc.command(ctx_for(st, 0), "buy", ["1", "pay", "R", "then", "reset", "pay", "RR"])
    assert sent.action == {"do": "buy", "slot": 1, "pay": {"R": 1}, "then": {"do": "reset", "pay": {"R": 2}}}
