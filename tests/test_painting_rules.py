"""Rules of the Painting Game, one behaviour per test."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from core import games
from core.encoding import decode, encode
from core.engine import ConfigError, IllegalAction
from core.games.painting import GAME, rules, sheets
from core.games.painting.rules import COLOUR_MASK
from core.games.painting.sheets import Sheet
from core.rng import Rng

E1 = bytes(range(32))
E2 = bytes(range(1, 33))


# --------------------------------------------------------------------------
# helpers


def started(players: int = 4, edition: str = "clarified", **options) -> rules.State:
    """A game in round 1, ready for moves."""
    cfg = rules.configure({"edition": edition, **options}, players)
    st = rules.setup(cfg, players, bytes(32))
    return rules.chance(st, E1)


def with_offer(st: rules.State, offer: dict[int, list]) -> rules.State:
    """Replace the sheets on offer by hand-made ones (id -> cells)."""
    cat = dict(st.catalogue)
    for sid, cells in offer.items():
        cat[sid] = Sheet(sid, sheets.normalise_cells(cells))
    return replace(st, catalogue=cat, offer=tuple(offer), next_id=max(max(offer), st.next_id - 1) + 1)


def with_grid(st: rules.State, rows: list[str]) -> rules.State:
    """Set the grid from 5 strings of colour letters (W R B Y P O G)."""
    assert len(rows) == 5 and all(len(r) == 5 for r in rows)
    return replace(st, grid=tuple(COLOUR_MASK[ch] for row in rows for ch in row))


def grid_rows(st: rules.State, grid=None) -> list[str]:
    s = rules.colour_string(st.grid if grid is None else grid)
    return [s[i * 5 : i * 5 + 5] for i in range(5)]


def move(bids=None, splash=None, extra=None, convert=0) -> dict:
    return {"bids": bids or {}, "splash": splash, "extra": extra, "convert": convert}


def play_round(st: rules.State, moves: dict[int, dict]) -> rules.State:
    """Apply a move for every seat (empty move if not given), then feed the next chance."""
    assert rules.turn(st).kind == "simultaneous"
    for s in range(st.players):
        st = rules.apply(st, s, moves.get(s, rules.default_action(st, s)))
    return st


def next_round(st: rules.State, entropy: bytes = E2) -> rules.State:
    assert rules.turn(st).kind == "chance"
    return rules.chance(st, entropy)


def cell(st: rules.State, r: int, c: int, grid=None) -> str:
    g = st.grid if grid is None else grid
    return rules.MASK_COLOUR[g[r * 5 + c]]


WHITE = ["WWWWW"] * 5


# --------------------------------------------------------------------------
# configuration, setup, turns


def test_game_registered_and_info():
    assert games.get("painting") is GAME
    info = GAME.info
    assert (info.min_players, info.max_players, info.default_players) == (2, 8, 6)
    assert info.editions == ("clarified", "mm8")
    assert info.simultaneous and info.sealed and info.chance and info.information == "imperfect"
    assert list(GAME.bots) == ["random", "heuristic", "hard"]
    encode(dict(info.options))


def test_configure_fills_defaults_and_is_idempotent():
    cfg = GAME.configure({}, 6)
    assert cfg == {"edition": "clarified", "rounds": 6, "starting_tokens": 30, "tokens_per_round": 10,
                   "starting_garnets": 10, "first_round_sheets": 10, "sheets_per_round": 7}
    assert GAME.configure(cfg, 6) == cfg
    assert GAME.configure({"edition": "mm8"}, 2)["edition"] == "mm8"
    encode(cfg)


@pytest.mark.parametrize(
    "options, players",
    [
        ({"colour": 1}, 4),
        ({"edition": "gg5"}, 4),
        ({"edition": 1}, 4),
        ({}, 1),
        ({}, 9),
        ({}, True),
        ({}, "6"),
        ({"rounds": 0}, 4),
        ({"rounds": True}, 4),
        ({"starting_tokens": -1}, 4),
        ({"starting_tokens": "30"}, 4),
        ({"sheets_per_round": 10**9}, 4),
        ({"first_round_sheets": 0}, 4),
        ({1: 2}, 4),
        ([], 4),
    ],
)
def test_configure_refuses(options, players):
    with pytest.raises(ConfigError):
        GAME.configure(options, players)


def test_setup_white_grid_tokens_and_first_turn_is_chance():
    st = GAME.setup(GAME.configure({"starting_garnets": 3}, 5), 5, bytes(32))
    assert set(st.grid) == {0}
    assert st.tokens == (30,) * 5 and st.garnets == (3,) * 5 and st.points == (0,) * 5
    t = GAME.turn(st)
    assert t.kind == "chance" and st.round == 1
    with pytest.raises(IllegalAction):
        GAME.check(st, 0, move())


def test_round_turn_is_one_sealed_simultaneous_turn_for_all_seats():
    st = started(players=5)
    t = GAME.turn(st)
    assert t.kind == "simultaneous" and t.sealed and t.seats == (0, 1, 2, 3, 4)
    assert t.label == "round 1: bids and splash"
    st = rules.apply(st, 0, move())
    assert GAME.turn(st).seats == (0, 1, 2, 3, 4)  # still the same turn until everyone moved


def test_round_one_offers_ten_sheets_later_rounds_seven_with_fresh_ids():
    st = started()
    assert st.offer == tuple(range(1, 11))
    st = next_round(play_round(st, {}))
    assert st.round == 2 and st.offer == tuple(range(11, 18))


def test_sheets_come_from_chance_entropy_not_the_seed():
    cfg = rules.configure({}, 4)
    a = rules.chance(rules.setup(cfg, 4, bytes(32)), E1)
    b = rules.chance(rules.setup(cfg, 4, b"\x01" * 32), E1)
    c = rules.chance(rules.setup(cfg, 4, bytes(32)), E2)
    cells = lambda st: [st.catalogue[i].cells for i in st.offer]
    assert cells(a) == cells(b)  # the seed plays no part
    assert cells(a) != cells(c)  # the entropy does


def test_chance_refused_outside_chance_turn_and_bad_entropy():
    st = started()
    with pytest.raises(ValueError):
        rules.chance(st, E1)
    st0 = rules.setup(rules.configure({}, 4), 4, bytes(32))
    with pytest.raises(ValueError):
        rules.chance(st0, b"short")


def test_play_continues_for_six_rounds_then_over():
    st = started()
    for r in range(1, 7):
        assert st.round == r
        st = play_round(st, {})
        if r < 6:
            st = next_round(st)
    assert GAME.turn(st).kind == "over"
    assert GAME.result(st) is not None


# --------------------------------------------------------------------------
# sheets


def test_generated_sheets_are_connected_in_box_normalised_and_coloured():
    sizes = set()
    for k in range(40):
        rng = Rng(bytes([k]) * 32, "test")
        for _ in range(10):
            cells = sheets.generate_sheet_cells(rng)
            n = len(cells)
            sizes.add(n)
            assert 2 <= n <= 6
            assert list(cells) == sorted(cells)
            assert min(r for r, _, _ in cells) == 0 and min(c for _, c, _ in cells) == 0
            assert max(r for r, _, _ in cells) < 4 and max(c for _, c, _ in cells) < 4
            assert all(col in "RBYPOG" for _, _, col in cells)
            pos = {(r, c) for r, c, _ in cells}
            assert len(pos) == n
            seen, todo = set(), [next(iter(pos))]
            while todo:
                p = todo.pop()
                if p in seen:
                    continue
                seen.add(p)
                todo += [q for q in ((p[0] + 1, p[1]), (p[0] - 1, p[1]), (p[0], p[1] + 1), (p[0], p[1] - 1)) if q in pos]
            assert seen == pos  # orthogonally connected
    assert sizes == {2, 3, 4, 5, 6}


def test_generate_round_is_deterministic_and_ids_sequential():
    a = sheets.generate_round(E1, 3, 7, 11)
    b = sheets.generate_round(E1, 3, 7, 11)
    assert a == b and [s.id for s in a] == list(range(11, 18))
    assert [s.cells for s in sheets.generate_round(E1, 4, 7, 11)] != [s.cells for s in a]


def test_matching_by_translation_anywhere():
    sheet = [(0, 0, "R"), (0, 1, "B")]
    grid = rules.colour_string(with_grid(started(), ["WWWWW", "WWWWW", "WWWWW", "WWWRB", "WWWWW"]).grid)
    assert sheets.matches(grid, sheet)
    assert sheets.match_offsets(grid, sheet) == [(3, 3)]


def test_matching_not_by_rotation_or_reflection():
    sheet = [(0, 0, "R"), (0, 1, "B")]
    rotated = rules.colour_string(with_grid(started(), ["WWWWW", "WRWWW", "WBWWW", "WWWWW", "WWWWW"]).grid)
    reflected = rules.colour_string(with_grid(started(), ["WWWWW", "WBRWW", "WWWWW", "WWWWW", "WWWWW"]).grid)
    assert not sheets.matches(rotated, sheet)
    assert not sheets.matches(reflected, sheet)
    l_shape = [(0, 0, "G"), (1, 0, "G"), (1, 1, "O")]
    mirrored = rules.colour_string(with_grid(started(), ["WWWWW", "WWWGW", "WWOGW", "WWWWW", "WWWWW"]).grid)
    assert not sheets.matches(mirrored, l_shape)


def test_white_sheet_cells_are_background():
    g = rules.colour_string(with_grid(started(), ["RGBWW", "WWWWW", "WWWWW", "WWWWW", "WWWWW"]).grid)
    assert sheets.matches(g, [(0, 0, "R"), (0, 1, "W"), (0, 2, "B")])  # G under the white cell is fine
    g2 = rules.colour_string(with_grid(started(), ["RWBWW", "WWWWW", "WWWWW", "WWWWW", "WWWWW"]).grid)
    assert sheets.matches(g2, [(0, 0, "R"), (0, 1, "W"), (0, 2, "B")])
    # a white cell does not have to land on the grid: the red is in column 0
    g3 = rules.colour_string(with_grid(started(), ["WWWWW", "RWWWW", "WWWWW", "WWWWW", "WWWWW"]).grid)
    assert sheets.matches(g3, [(0, 0, "W"), (0, 1, "R")])
    assert not sheets.matches(g3, [(0, 0, "W"), (0, 1, "W")])  # nothing to match


def test_white_and_black_grid_cells_match_nothing():
    assert not sheets.matches("W" * 25, [(0, 0, "R"), (0, 1, "R")])
    assert not sheets.matches("K" * 25, [(0, 0, "R"), (0, 1, "R")])
    assert sheets.matches("R" * 25, [(0, 0, "R"), (0, 1, "R")])


def test_pattern_must_fit_in_bounds():
    # R B pattern: only a red in the last column, with nothing to its right
    g = rules.colour_string(with_grid(started(), ["WWWWR", "BWWWW", "WWWWW", "WWWWW", "WWWWW"]).grid)
    assert not sheets.matches(g, [(0, 0, "R"), (0, 1, "B")])  # no wrap from column 4 to column 0


# --------------------------------------------------------------------------
# auctions


TWO_RED = [(0, 0, "R"), (0, 1, "R")]          # n = 2
THREE = [(0, 0, "B"), (1, 0, "Y"), (1, 1, "G")]  # n = 3


def test_unique_highest_bid_pays_exactly_its_bid_and_takes_the_sheet():
    st = with_offer(started(), {1: TWO_RED, 2: THREE})
    st = play_round(st, {0: move({"1": 7}), 1: move({"1": 5, "2": 3}), 2: move({"1": 1})})
    assert st.tokens[:4] == (30 - 7 + 10, 30 - 3 + 10, 30 + 10, 30 + 10)
    assert [h.sheet for h in st.owned[0]] == [1]
    assert [h.sheet for h in st.owned[1]] == [2]
    assert st.owned[0][0].price == 7
    auction = {a["sheet"]: a for a in st.last["auction"]}
    assert auction[1]["winner"] == 0 and auction[1]["price"] == 7 and auction[1]["outcome"] == "sold"


def test_tie_at_the_top_discards_and_nobody_pays():
    st = with_offer(started(), {1: TWO_RED})
    st = play_round(st, {0: move({"1": 6}), 1: move({"1": 6}), 2: move({"1": 4})})
    assert st.tokens == (40, 40, 40, 40)
    assert all(not hs for hs in st.owned)
    a = st.last["auction"][0]
    assert a["outcome"] == "tie" and a["winner"] is None and a["tied"] == [0, 1]


def test_no_bids_discards_and_sheets_do_not_carry_over():
    st = with_offer(started(), {1: TWO_RED})
    st = play_round(st, {})
    assert st.last["auction"][0]["outcome"] == "no bids"
    st = next_round(st)
    assert 1 not in st.offer
    with pytest.raises(IllegalAction, match="not on offer"):
        rules.check(st, 0, move({"1": 1}))


def test_zero_bid_is_no_bid():
    st = with_offer(started(), {1: TWO_RED, 2: THREE})
    a = rules.check(st, 0, move({"1": 0, "2": 4}))
    assert a["bids"] == {"2": 4}
    # a 0 next to a real bid is not a tie
    st = play_round(st, {0: move({"1": 0}), 1: move({"1": 2})})
    assert [h.sheet for h in st.owned[1]] == [1]


def test_bought_sheet_value_is_cells_plus_round():
    st = with_offer(started(), {1: THREE})
    st = next_round(play_round(st, {}))  # round 2
    st = with_offer(st, {50: THREE})
    st = play_round(st, {0: move({"50": 1})})
    assert st.last["auction"][0]["value"] == 3 + 2


def test_overspent_bids_are_refused_not_trimmed():
    st = with_offer(started(), {1: TWO_RED, 2: THREE})
    with pytest.raises(IllegalAction, match="bids total 45 but you have 30 tokens"):
        rules.check(st, 0, move({"1": 20, "2": 25}))
    assert rules.check(st, 0, move({"1": 20, "2": 10}))["bids"] == {"1": 20, "2": 10}


def test_bids_on_sheets_not_on_offer_are_refused():
    st = with_offer(started(), {1: TWO_RED, 2: THREE})
    for key in ("3", "0", "-1", "01", " 1", "1.0", "one", 3, ""):
        with pytest.raises(IllegalAction, match="not on offer"):
            rules.check(st, 0, move({key: 1}))


def test_bids_normalised_to_str_keys_and_duplicates_refused():
    st = with_offer(started(), {1: TWO_RED, 2: THREE})
    assert rules.check(st, 0, move({2: 3, 1: 1}))["bids"] == {"1": 1, "2": 3}
    with pytest.raises(IllegalAction, match="two bids"):
        rules.check(st, 0, move({1: 1, "1": 2}))


# --------------------------------------------------------------------------
# splashes and mixing


def test_splash_colours_cell_and_orthogonal_neighbours():
    st = play_round(started(), {0: move(splash=[2, 2, "Y"])})
    assert grid_rows(st) == ["WWWWW", "WWYWW", "WYYYW", "WWYWW", "WWWWW"]


def test_corner_and_edge_splashes_do_not_wrap():
    st = play_round(started(), {0: move(splash=[0, 0, "R"]), 1: move(splash=[2, 4, "B"])})
    assert grid_rows(st) == ["RRWWW", "RWWWB", "WWWBB", "WWWWB", "WWWWW"]
    st = play_round(started(), {0: move(splash=[4, 4, "Y"])})
    assert grid_rows(st) == ["WWWWW", "WWWWW", "WWWWW", "WWWWY", "WWWYY"]


def test_same_colour_twice_in_a_round_counts_once():
    st = play_round(started(), {0: move(splash=[2, 2, "R"]), 1: move(splash=[2, 2, "R"]), 2: move(splash=[2, 3, "R"])})
    assert cell(st, 2, 2) == "R" and st.grid[2 * 5 + 2] == 1
    assert grid_rows(st) == ["WWWWW", "WWRRW", "WRRRR", "WWRRW", "WWWWW"]


def test_primary_already_present_changes_nothing():
    st = next_round(play_round(started(), {0: move(splash=[1, 1, "B"])}))
    st = play_round(st, {2: move(splash=[1, 1, "B"])})
    assert cell(st, 1, 1) == "B"


def test_two_primaries_make_a_secondary_in_one_round_or_across_rounds():
    st = play_round(started(), {0: move(splash=[2, 2, "R"]), 1: move(splash=[2, 3, "B"]), 2: move(splash=[0, 0, "Y"])})
    assert cell(st, 2, 2) == "P" and cell(st, 2, 3) == "P"
    st = next_round(st)
    st = play_round(st, {0: move(splash=[0, 1, "R"]), 1: move(splash=[3, 3, "Y"])})
    assert cell(st, 0, 0) == "O"       # Y then R
    assert cell(st, 3, 3) == "G"       # B (round 1) then Y
    assert cell(st, 2, 3, grid=st.last["grid"]) == "K"  # R+B then Y: three primaries
    assert cell(st, 2, 3) == "W"                           # ... and white once round 3 starts
    assert rules.MASK_COLOUR[COLOUR_MASK["P"]] == "P"


def test_three_primaries_black_for_the_round_then_white_in_clarified():
    st = started(edition="clarified")
    st = play_round(st, {0: move(splash=[2, 2, "R"]), 1: move(splash=[2, 2, "B"]), 2: move(splash=[2, 2, "Y"])})
    assert cell(st, 2, 2, grid=st.last["grid"]) == "K"  # how the round ended
    v = rules.view(st, None)
    assert v["last_round"]["grid"][2][2] == {"colour": "K", "primaries": "RBY"}
    # the next round starts with it white and its primaries cleared
    assert cell(st, 2, 2) == "W" and st.grid[12] == 0
    assert v["grid"][2][2] == {"colour": "W", "primaries": ""}
    st = play_round(next_round(st), {0: move(splash=[2, 2, "B"])})
    assert cell(st, 2, 2) == "B"


def test_black_cell_does_not_match_in_the_round_it_is_black():
    def run(splash):
        st = with_offer(started(edition="clarified"), {1: [(0, 0, "P"), (0, 1, "P")]})
        st = with_grid(st, ["WWWWW", "WWWWW", "WWPPW", "WWWWW", "WWWWW"])
        return play_round(st, {0: move({"1": 1}, splash=splash)})
    st = run([1, 2, "Y"])  # (2,2) gets R+B+Y: black, the P P pair is gone
    assert cell(st, 2, 2, grid=st.last["grid"]) == "K" and st.points[0] == 0
    assert run([4, 0, "Y"]).points[0] == 3  # control: untouched pair scores


def test_three_primaries_white_immediately_in_mm8():
    st = started(edition="mm8")
    st = play_round(st, {0: move(splash=[2, 2, "R"]), 1: move(splash=[2, 2, "B"]), 2: move(splash=[2, 2, "Y"])})
    assert cell(st, 2, 2, grid=st.last["grid"]) == "W"
    assert st.last["grid"][12] == 0 and st.grid[12] == 0


def test_black_stays_in_final_grid_after_last_round_clarified():
    st = started(rounds=1)
    st = play_round(st, {0: move(splash=[2, 2, "R"]), 1: move(splash=[2, 2, "B"]), 2: move(splash=[2, 2, "Y"])})
    assert rules.turn(st).kind == "over"
    assert cell(st, 2, 2) == "K"
    assert rules.view(st, None)["grid"][2][2]["colour"] == "K"


def test_mix_function_unions_primaries():
    g = rules.mix((0,) * 25, [[0, 0, "R"], [0, 0, "R"], [0, 0, "B"]], "round")
    assert g[0] == 3 and rules.MASK_COLOUR[g[0]] == "P"
    assert rules.mix(g, [[0, 0, "Y"]], "round")[0] == 7
    assert rules.mix(g, [[0, 0, "Y"]], "immediate")[0] == 0


# --------------------------------------------------------------------------
# scoring and decay


def test_sheet_bought_this_round_scores_this_round():
    st = with_offer(started(), {1: TWO_RED})
    st = play_round(st, {0: move({"1": 3}, splash=[2, 2, "R"])})
    assert st.points[0] == 2 + 1
    assert st.owned[0] == ()
    assert st.scored == ((1, 0, 1, 3),)
    assert st.last["scored"] == [{"sheet": 1, "seat": 0, "points": 3}]


def test_grid_already_showing_pattern_scores_on_purchase():
    st = with_offer(started(), {1: THREE})
    st = with_grid(st, ["WWWWW", "WWWWW", "WWWBW", "WWWYG", "WWWWW"])
    st = play_round(st, {3: move({"1": 1})})
    assert st.points[3] == 3 + 1


def test_sheet_matching_twice_scores_once_and_is_discarded():
    st = with_offer(started(), {1: [(0, 0, "R"), (0, 1, "B")]})
    st = with_grid(st, ["RBWWW", "WWWWW", "WWRBW", "WWWWW", "RBWWW"])
    st = play_round(st, {1: move({"1": 2})})
    assert st.points == (0, 3, 0, 0)
    assert st.owned[1] == () and len(st.scored) == 1
    st = play_round(next_round(st), {})
    assert st.points == (0, 3, 0, 0)  # discarded: never scores again


def test_unscored_sheets_decay_each_round_with_floor_one():
    st = with_offer(started(), {1: THREE})
    st = play_round(st, {0: move({"1": 1})})
    values = [st.owned[0][0].value]
    for _ in range(4):
        st = play_round(next_round(st), {})
        values.append(st.owned[0][0].value)
    # bought at 3+1 = 4; after rounds 1..5: 3, 2, 1, 1, 1
    assert values == [3, 2, 1, 1, 1]
    st = play_round(next_round(st), {})
    assert rules.turn(st).kind == "over"
    assert st.owned[0][0].value == 1


def test_decayed_value_is_what_scores():
    st = with_offer(started(), {1: THREE})
    st = play_round(st, {0: move({"1": 1})})      # value 4 -> 3
    st = play_round(next_round(st), {})            # 3 -> 2
    st = next_round(st)
    st = with_grid(st, ["WWWWW", "WWWWW", "WWWBW", "WWWYG", "WWWWW"])
    st = play_round(st, {})
    assert st.points[0] == 2


def test_no_decay_after_the_final_round():
    st = with_offer(started(rounds=1), {1: THREE})
    st = play_round(st, {0: move({"1": 1})})
    assert rules.turn(st).kind == "over" and st.owned[0][0].value == 4


def test_everyones_sheets_are_checked():
    st = with_offer(started(), {1: TWO_RED, 2: [(0, 0, "Y")] * 1 + [(1, 0, "Y")]})
    st = play_round(st, {0: move({"1": 1}, splash=[0, 0, "R"]), 1: move({"2": 1}, splash=[4, 4, "Y"])})
    assert st.points[:2] == (3, 3)


# --------------------------------------------------------------------------
# tokens, garnets, extra submission


def test_token_income_each_round_from_round_two():
    st = with_offer(started(), {1: THREE})
    assert st.tokens == (30,) * 4
    st = play_round(st, {0: move({"1": 12})})
    assert st.tokens == (28, 40, 40, 40)
    for r in range(2, 7):
        st = next_round(st)
        assert st.round == r
        before = st.tokens
        st = play_round(st, {})
        if r < 6:
            assert st.tokens == tuple(t + 10 for t in before)
    assert st.tokens == (68, 80, 80, 80)  # no income after the last round


def test_conversion_turns_garnets_into_tokens_before_the_auction():
    st = with_offer(started(starting_garnets=10), {1: THREE})
    with pytest.raises(IllegalAction, match="bids total 35 but you have 30 tokens"):
        rules.check(st, 0, move({"1": 35}))
    a = rules.check(st, 0, move({"1": 35}, convert=5))
    assert a["convert"] == 5
    st = play_round(st, {0: a, 1: move(convert=2)})
    assert st.garnets == (5, 8, 10, 10)
    assert st.tokens == (30 + 5 - 35 + 10, 30 + 2 + 10, 40, 40)


@pytest.mark.parametrize("edition, cost", [("clarified", 7), ("mm8", 5)])
def test_default_garnets_make_convert_and_extra_usable(edition, cost):
    """Decision 24: a default game starts every seat with 10 garnets, so converting and
    the extra splash are real choices from round 1 (both, or one and more of the other)."""
    cfg = GAME.configure({"edition": edition}, 4)
    assert cfg["starting_garnets"] == rules.STARTING_GARNETS == 10 == GAME.info.options["starting_garnets"]
    st = with_offer(rules.chance(rules.setup(cfg, 4, bytes(32)), E1), {1: THREE})
    assert st.garnets == (10,) * 4
    spare = 10 - cost
    both = rules.check(st, 0, move({"1": 30 + spare}, splash=[0, 0, "R"], extra=[4, 4, "B"], convert=spare))
    with pytest.raises(IllegalAction, match="garnets"):
        rules.check(st, 1, move(splash=[0, 0, "R"], extra=[4, 4, "B"], convert=spare + 1))
    all_in = rules.check(st, 1, move({"1": 40}, convert=10))
    with pytest.raises(IllegalAction, match="cannot convert 11 garnets: you have 10"):
        rules.check(st, 2, move(convert=11))
    st = play_round(st, {0: both, 1: all_in})
    assert st.garnets == (0, 0, 10, 10) and st.extra_used == (True, False, False, False)
    # seat 1 outbid seat 0 and paid 40; seat 0 keeps the tokens it converted
    assert st.tokens == (30 + spare + 10, 30 + 10 - 40 + 10, 40, 40)
    assert [a["winner"] for a in st.last["auction"]] == [1]


def test_conversion_refused_beyond_garnets_or_negative():
    st = started(starting_garnets=3)
    with pytest.raises(IllegalAction, match="cannot convert 4 garnets: you have 3"):
        rules.check(st, 0, move(convert=4))
    with pytest.raises(IllegalAction):
        rules.check(st, 0, move(convert=-1))


@pytest.mark.parametrize("edition, cost", [("clarified", 7), ("mm8", 5)])
def test_extra_submission_costs_garnets_and_is_a_second_splash(edition, cost):
    st = started(edition=edition, starting_garnets=cost)
    st = play_round(st, {0: move(splash=[0, 0, "R"], extra=[4, 4, "B"])})
    assert st.garnets[0] == 0 and st.extra_used == (True, False, False, False)
    assert cell(st, 0, 0) == "R" and cell(st, 4, 4) == "B" and cell(st, 3, 4) == "B"


@pytest.mark.parametrize("edition, cost", [("clarified", 7), ("mm8", 5)])
def test_extra_submission_refused_without_enough_garnets(edition, cost):
    st = started(edition=edition, starting_garnets=cost - 1)
    with pytest.raises(IllegalAction, match="costs %d garnets" % cost):
        rules.check(st, 0, move(splash=[0, 0, "R"], extra=[4, 4, "B"]))
    st = started(edition=edition, starting_garnets=cost + 1)
    with pytest.raises(IllegalAction, match="costs %d garnets and converting 2" % cost):
        rules.check(st, 0, move(splash=[0, 0, "R"], extra=[4, 4, "B"], convert=2))
    rules.check(st, 0, move(splash=[0, 0, "R"], extra=[4, 4, "B"], convert=1))


def test_extra_submission_only_once_per_game():
    st = started(starting_garnets=20)
    st = next_round(play_round(st, {0: move(splash=[0, 0, "R"], extra=[1, 1, "B"])}))
    with pytest.raises(IllegalAction, match="already used your extra"):
        rules.check(st, 0, move(splash=[0, 0, "R"], extra=[1, 1, "B"]))
    rules.check(st, 1, move(splash=[0, 0, "R"], extra=[1, 1, "B"]))  # others still may


def test_extra_submission_needs_a_main_splash():
    st = started(starting_garnets=20)
    with pytest.raises(IllegalAction, match="needs a main splash"):
        rules.check(st, 0, move(extra=[1, 1, "B"]))


def test_extra_same_cell_as_own_splash_mixes():
    st = started(starting_garnets=7)
    st = play_round(st, {0: move(splash=[2, 2, "R"], extra=[2, 2, "Y"])})
    assert cell(st, 2, 2) == "O"


# --------------------------------------------------------------------------
# check(): hostile input never raises anything but IllegalAction


HOSTILE = [
    None, 0, 1, -1, True, "bids", b"\x00", [], [1, 2], 1.5, object(),
    {1: 2}, {None: 1}, {"bids": 1}, {"bids": []}, {"bids": "1:5"}, {"bids": {"1": -1}},
    {"bids": {"1": 2**70}}, {"bids": {"1": -(2**70)}}, {"bids": {"1": True}}, {"bids": {"1": 1.5}},
    {"bids": {"1": "5"}}, {"bids": {"1": None}}, {"bids": {None: 1}}, {"bids": {(1,): 1}},
    {"bids": {1.0: 1}}, {"bids": {True: 1}}, {"bids": {b"1": 1}}, {"bids": {"9" * 5000: 1}},
    {"bids": {"1": [1]}}, {"bids": {"1": {"x": 1}}},
    {"splash": 1}, {"splash": "0,0,R"}, {"splash": [0, 0]}, {"splash": [0, 0, "R", 1]},
    {"splash": [5, 0, "R"]}, {"splash": [0, 5, "R"]}, {"splash": [-1, 0, "R"]}, {"splash": [0, 0, "P"]},
    {"splash": [0, 0, "r"]}, {"splash": [0, 0, "red"]}, {"splash": [True, 0, "R"]}, {"splash": [0, 0, 1]},
    {"splash": [0.0, 0, "R"]}, {"splash": [2**80, 0, "R"]}, {"splash": {"row": 0}}, {"splash": [None, None, None]},
    {"extra": [0, 0, "R"]}, {"splash": [0, 0, "R"], "extra": [0, 0, "R"]}, {"extra": "x"},
    {"convert": -1}, {"convert": "1"}, {"convert": True}, {"convert": 1.0}, {"convert": 2**70}, {"convert": [1]},
    {"foo": 1}, {"bids": {}, "splash": None, "extra": None, "convert": 0, "x": 1},
    {"bids": {"1": 31}}, {"bids": {"1": 16, "2": 15}},
    {"why": "x"}, {"why": []}, {"why": {"bids": "lazy"}}, {"why": {"x": "no tokens"}}, {"why": {None: 1}},
    {"why": {"bids": 1}}, {"why": {"splash": "no tokens"}},
    {"bids": {"1": 2}, "why": {"bids": "nothing in reach"}},
    {"splash": [0, 0, "R"], "why": {"splash": "would spoil its sheets"}},
    {"why": {"bids": "no tokens"}},   # the seat has 30 tokens: a false "no tokens" is refused
]


@pytest.mark.parametrize("raw", HOSTILE, ids=lambda x: repr(x)[:40])
def test_hostile_actions_give_illegal_action(raw):
    st = with_offer(started(starting_garnets=0), {1: TWO_RED, 2: THREE})
    with pytest.raises(IllegalAction) as info:
        GAME.check(st, 0, raw)
    assert isinstance(str(info.value), str) and len(str(info.value)) < 300
    with pytest.raises(IllegalAction):
        GAME.apply(st, 0, raw)
    assert isinstance(GAME.describe(st, 0, raw), str)


@pytest.mark.parametrize("seat", [-1, 4, 99, "0", None, True, 1.0, 2**70])
def test_bad_seats_give_illegal_action(seat):
    st = started()
    with pytest.raises(IllegalAction):
        GAME.check(st, seat, move())


def test_a_seat_moves_once_per_round():
    st = started()
    st = GAME.apply(st, 1, move())
    with pytest.raises(IllegalAction, match="already moved"):
        GAME.check(st, 1, move())


def test_no_moves_when_over():
    st = started(rounds=1)
    st = play_round(st, {})
    with pytest.raises(IllegalAction, match="over"):
        GAME.check(st, 0, move())


def test_missing_keys_and_nulls_mean_empty():
    st = started()
    empty = move()
    assert GAME.check(st, 0, {}) == empty
    assert GAME.check(st, 0, {"bids": None, "splash": None, "extra": None, "convert": None}) == empty
    assert GAME.check(st, 0, (GAME.default_action(st, 0))) == empty
    assert GAME.default_action(st, 2) == empty


def test_check_normalises_tuples_to_lists_and_is_idempotent():
    st = with_offer(started(), {1: TWO_RED})
    a = GAME.check(st, 0, {"splash": (1, 2, "B"), "bids": {"1": 3}})
    assert a == {"bids": {"1": 3}, "splash": [1, 2, "B"], "extra": None, "convert": 0}
    assert GAME.check(st, 0, a) == a
    assert decode(encode(a)) == a


# --------------------------------------------------------------------------
# purity


def test_apply_and_chance_never_mutate_their_input():
    st = with_offer(started(starting_garnets=9), {1: TWO_RED, 2: THREE})
    raws = {
        0: {"bids": {"1": 5}, "splash": [0, 0, "R"], "extra": [4, 4, "Y"], "convert": 1},
        1: {"bids": {"1": 5, "2": 2}, "splash": [0, 1, "B"]},
        2: {"bids": {"2": 1}},
        3: {},
    }
    for s in range(4):
        before = copy.deepcopy(st)
        before_view = encode(rules.view(st, s))
        raw_before = copy.deepcopy(raws[s])
        new = GAME.apply(st, s, raws[s])
        assert st == before and encode(rules.view(st, s)) == before_view
        assert raws[s] == raw_before
        assert new is not st
        st = new
    before = copy.deepcopy(st)
    GAME.chance(st, E2)
    assert st == before


def test_view_mutation_does_not_touch_state():
    st = with_offer(started(), {1: TWO_RED})
    st = GAME.apply(st, 0, move({"1": 2}, splash=[0, 0, "R"]))
    v = GAME.view(st, 0)
    v["my_move"]["bids"]["1"] = 99
    v["grid"][0][0]["colour"] = "X"
    v["tokens"][0] = -5
    assert GAME.view(st, 0)["my_move"]["bids"] == {"1": 2}
    assert GAME.view(st, 0)["grid"][0][0]["colour"] == "W"


# --------------------------------------------------------------------------
# views


def test_view_hides_other_seats_moves_until_resolved():
    st = with_offer(started(), {1: TWO_RED})
    before = GAME.view(st, 1)
    st = GAME.apply(st, 0, move({"1": 9}, splash=[3, 3, "Y"]))
    mine = GAME.view(st, 0)
    assert mine["my_move"] == {"bids": {"1": 9}, "splash": [3, 3, "Y"], "extra": None, "convert": 0}
    other = GAME.view(st, 1)
    public = GAME.view(st, None)
    assert other["my_move"] is None and "my_move" not in public
    assert other["moved"] == [0]
    other.pop("moved")
    before.pop("moved")
    assert other == before  # nothing of seat 0's move shows to seat 1
    assert b"\x09" not in encode(public["grid"])


def test_view_shape():
    st = with_offer(started(), {1: TWO_RED, 2: THREE})
    st = play_round(st, {0: move({"1": 4}), 1: move({"2": 2})})
    st = next_round(st)
    v = GAME.view(st, 2)
    assert v["round"] == 2 and v["phase"] == "play" and v["label"] == "round 2: bids and splash"
    assert len(v["grid"]) == 5 and all(len(row) == 5 for row in v["grid"])
    assert v["grid"][0][0] == {"colour": "W", "primaries": ""}
    assert len(v["offer"]) == 7 and {"id", "cells", "size", "value"} <= set(v["offer"][0])
    assert v["offer"][0]["value"] == v["offer"][0]["size"] + 2
    assert v["owned"][0][0]["id"] == 1 and v["owned"][0][0]["value"] == 2  # 2+1, decayed once
    assert v["owned"][1][0]["id"] == 2
    assert v["tokens"] == [36, 38, 40, 40]
    assert v["garnets"] == [10] * 4 and v["points"] == [0] * 4 and v["extra_used"] == [False] * 4
    assert v["last_round"]["round"] == 1
    assert {a["sheet"]: a["winner"] for a in v["last_round"]["auction"]} == {1: 0, 2: 1}
    assert v["rules"]["extra_cost"] == 7 and v["rules"]["black"] == "round" and v["rules"]["all_tied"] == "draw"
    assert decode(encode(v)) == v


def test_describe_is_one_line():
    st = with_offer(started(starting_garnets=7), {1: TWO_RED})
    a = GAME.check(st, 0, move({"1": 4}, splash=[1, 2, "R"], extra=[3, 3, "B"]))
    d = GAME.describe(st, 0, a)
    assert "\n" not in d and "4 on sheet 1" in d and "red at row 1, column 2" in d and "7 garnets" in d
    assert "does not splash" in GAME.describe(st, 1, GAME.default_action(st, 1))


def test_a_move_may_say_why_it_leaves_a_part_empty():
    """Decision 26: "why" names, from a fixed list, why the bids or the splash are empty;
    it is kept in the normalised move and shown in the log line."""
    st = with_offer(started(starting_garnets=0), {1: TWO_RED})
    a = GAME.check(st, 0, {"splash": None, "why": {"splash": "would spoil its sheets", "bids": "nothing in reach"}})
    assert a == {"bids": {}, "splash": None, "extra": None, "convert": 0,
                 "why": {"bids": "nothing in reach", "splash": "would spoil its sheets"}}
    assert GAME.check(st, 0, a) == a
    d = GAME.describe(st, 0, a)
    assert d == "seat 0 bids nothing (nothing in reach); does not splash (would spoil its sheets)"
    assert "why" not in GAME.check(st, 0, move(splash=[0, 0, "R"], extra=None))
    assert "why" not in GAME.check(st, 0, {"splash": [0, 0, "R"], "why": None})
    assert GAME.describe(st, 0, move()) == "seat 0 bids nothing; does not splash"
    # the notes are words from a fixed list, never free text, and only for an empty part
    assert set(rules.WHY) == {"bids", "splash"}
    with pytest.raises(IllegalAction, match="one of: no tokens, nothing in reach"):
        GAME.check(st, 0, {"why": {"bids": "\x1b[2Jhacked"}})
    with pytest.raises(IllegalAction, match="but it bids"):
        GAME.check(st, 0, {"bids": {"1": 3}, "why": {"bids": "nothing in reach"}})
    with pytest.raises(IllegalAction, match="but it splashes"):
        GAME.check(st, 0, {"splash": [1, 1, "Y"], "why": {"splash": "would spoil its sheets"}})
    # "no tokens" is a fact the rules can check
    with pytest.raises(IllegalAction, match="'no tokens' but the seat has 30"):
        GAME.check(st, 0, {"why": {"bids": "no tokens"}})
    broke = replace(st, tokens=(0, 30, 30, 30))
    a = GAME.check(broke, 0, {"splash": [2, 2, "B"], "why": {"bids": "no tokens"}})
    assert GAME.describe(broke, 0, a) == "seat 0 bids nothing (no tokens); splashes blue at row 2, column 2"
    # the note changes nothing in play and stays out of the other seats' sight
    st2 = play_round(st, {0: {"splash": [2, 2, "B"], "why": {"bids": "nothing in reach"}}})
    st3 = play_round(st, {0: {"splash": [2, 2, "B"]}})
    assert st2.grid == st3.grid and st2.tokens == st3.tokens and st2.last == st3.last
    half = GAME.apply(st, 0, {"why": {"bids": "nothing in reach"}})
    assert GAME.view(half, 0)["my_move"]["why"] == {"bids": "nothing in reach"}
    assert "my_move" not in GAME.view(half, None) and GAME.view(half, 1)["my_move"] is None


# --------------------------------------------------------------------------
# results


def over(points, tokens, edition="clarified", garnets=None):
    n = len(points)
    st = started(players=n, edition=edition)
    return replace(st, phase="over", points=tuple(points), tokens=tuple(tokens),
                   garnets=tuple(garnets or [0] * n))


def test_no_result_until_over():
    assert GAME.result(started()) is None


def test_result_sole_winner_two_tokens_of_life():
    res = GAME.result(over([30, 10, 50, 10], [5, 5, 0, 9]))
    assert res["draw"] is False and res["winners"] == [2] and res["tokens_of_life"] == {"2": 2}
    assert res["ranking"] == [2, 0, 3, 1]
    assert res["elimination_candidates"] == [1, 3] and res["ec_chosen_by"] == [2]
    assert res["garnets_earned"] == {"0": 1, "1": 0, "2": 2, "3": 0}
    assert res["points"] == {"0": 30, "1": 10, "2": 50, "3": 10}
    encode(res)


def test_result_tie_on_points_broken_by_tokens():
    res = GAME.result(over([40, 40, 10], [3, 8, 20]))
    assert res["winners"] == [1] and res["tokens_of_life"] == {"1": 2}
    assert res["ranking"] == [1, 0, 2] and res["elimination_candidates"] == [2] and res["ec_chosen_by"] == []


def test_result_two_way_full_tie_one_token_each():
    res = GAME.result(over([40, 40, 10, 40], [8, 8, 20, 3]))
    assert res["winners"] == [0, 1] and res["tokens_of_life"] == {"0": 1, "1": 1}


def test_result_three_way_full_tie_no_tokens_of_life():
    res = GAME.result(over([40, 40, 40, 5, 5], [8, 8, 8, 1, 2]))
    assert res["winners"] == [0, 1, 2] and res["tokens_of_life"] == {}
    assert res["elimination_candidates"] == [3, 4] and res["ec_chosen_by"] == [0, 1, 2]


def test_result_everyone_same_points_is_a_draw_regardless_of_tokens():
    res = GAME.result(over([26, 26, 26], [1, 9, 3]))
    assert res["draw"] is True
    assert res["winners"] == [] and res["tokens_of_life"] == {} and res["elimination_candidates"] == []
    assert res["garnets_earned"] == {"0": 0, "1": 0, "2": 0}
    assert res["ranking"] == [1, 2, 0]


def test_result_garnet_divisor_by_edition():
    assert GAME.result(over([49, 50, 0], [0, 0, 0]))["garnets_earned"] == {"0": 1, "1": 2, "2": 0}
    assert GAME.result(over([39, 40, 0], [0, 0, 0], edition="mm8"))["garnets_earned"] == {"0": 1, "1": 2, "2": 0}


def test_result_reports_garnets_left():
    res = GAME.result(over([1, 0], [0, 0], garnets=[4, 2]))
    assert res["garnets"] == {"0": 4, "1": 2}


def test_mm8_results_follow_the_same_rules():
    res = GAME.result(over([40, 40, 10, 10], [8, 8, 20, 3], edition="mm8"))
    assert res["draw"] is False
    assert res["winners"] == [0, 1] and res["tokens_of_life"] == {"0": 1, "1": 1}
    assert res["elimination_candidates"] == [2, 3] and res["ec_chosen_by"] == [0, 1]
    assert res["garnets_earned"] == {"0": 2, "1": 2, "2": 0, "3": 0}


def test_mm8_everyone_same_points_is_broken_by_tokens():
    """mm8 as written: "ties being broken by bidding tokens remaining" -- also when every
    seat is tied; the "a new match is played" edit belongs to the clarified text only."""
    assert GAME.view(over([7, 7], [0, 5], edition="mm8"), None)["rules"]["all_tied"] == "tokens"
    res = GAME.result(over([7, 7], [0, 5], edition="mm8"))
    assert res["draw"] is False and res["winners"] == [1] and res["tokens_of_life"] == {"1": 2}
    assert res["ranking"] == [1, 0]
    assert res["elimination_candidates"] == [0] and res["ec_chosen_by"] == []
    assert res["garnets_earned"] == {"0": 0, "1": 0}
    res = GAME.result(over([40, 40, 40, 40], [4, 9, 9, 1], edition="mm8"))
    assert res["draw"] is False and res["winners"] == [1, 2] and res["tokens_of_life"] == {"1": 1, "2": 1}
    # the winners are not candidates for elimination; they choose among the others
    assert res["elimination_candidates"] == [0, 3] and res["ec_chosen_by"] == [1, 2]
    assert res["garnets_earned"] == {str(s): 2 for s in range(4)}   # 40 // 20, no "no garnets" edit
    # tied on tokens too: every seat is a winner, more than two so no Token of Life
    res = GAME.result(over([5, 5, 5], [3, 3, 3], edition="mm8"))
    assert res["draw"] is False and res["winners"] == [0, 1, 2] and res["tokens_of_life"] == {}
    assert res["elimination_candidates"] == [0, 1, 2] and res["ec_chosen_by"] == [0, 1, 2]
    # the same tables in the clarified edition are draws whatever the tokens
    for pts, tok in (([7, 7], [0, 5]), ([40, 40, 40, 40], [4, 9, 9, 1]), ([5, 5, 5], [3, 3, 3])):
        res = GAME.result(over(pts, tok, edition="clarified"))
        assert res["draw"] is True and res["winners"] == [] and res["tokens_of_life"] == {}
        assert set(res["garnets_earned"].values()) == {0}


def test_splash_is_optional():
    st = play_round(started(), {0: move(splash=None), 1: {"bids": {}}})
    assert set(st.grid) == {0}
