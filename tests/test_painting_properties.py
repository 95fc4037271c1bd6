"""Property tests: random legal play, encodability, determinism, hostile input."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.encoding import decode, encode
from core.engine import IllegalAction
from core.games.painting import GAME
from core.games.painting import rules
from core.games.painting.bots import HeuristicBot, RandomBot, play_game
from core.rng import Rng

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])

seeds = st.binary(min_size=32, max_size=32)
player_counts = st.integers(min_value=2, max_value=8)
editions = st.sampled_from(["clarified", "mm8"])


def roundtrip(value):
    data = encode(value)
    back = decode(data)
    assert back == value
    assert encode(back) == data
    return data


def run_game(seed: bytes, players: int, edition: str, garnets: int, timeouts: int, check_purity: bool = False):
    """Random legal play; returns the list of encoded views/results seen along the way."""
    config = GAME.configure({"edition": edition, "starting_garnets": garnets}, players)
    state = GAME.setup(config, players, seed)
    chance_rng = Rng(seed, "test/chance")
    bot = RandomBot()
    trace = []
    rounds_played = 0
    steps = 0
    while True:
        steps += 1
        assert steps < 1000
        turn = GAME.turn(state)
        for seat in [None] + list(range(players)):
            trace.append(roundtrip(GAME.view(state, seat)))
        if turn.kind == "over":
            res = GAME.result(state)
            trace.append(roundtrip(res))
            return state, res, trace, rounds_played
        assert GAME.result(state) is None
        if turn.kind == "chance":
            state = GAME.chance(state, bytes(chance_rng.below(256) for _ in range(32)))
            continue
        assert turn.kind == "simultaneous" and turn.sealed and turn.seats == tuple(range(players))
        actions = []
        for s in turn.seats:
            if (timeouts >> s) & 1 and state.round % 2 == 0:
                a = GAME.default_action(state, s)
            else:
                a = bot.choose(GAME.view(state, s), s, Rng(seed, "test/bot/%d/%d" % (s, state.round)))
            a = GAME.check(state, s, a)
            roundtrip(a)
            assert isinstance(GAME.describe(state, s, a), str)
            actions.append(a)
        for s, a in zip(turn.seats, actions):
            if check_purity:
                before = copy.deepcopy(state)
                new = GAME.apply(state, s, a)
                assert state == before
                state = new
            else:
                state = GAME.apply(state, s, a)
        rounds_played += 1
        # invariants
        assert all(t >= 0 for t in state.tokens)
        assert all(g >= 0 for g in state.garnets)
        for s in range(players):
            assert state.points[s] == sum(p for _, who, _, p in state.scored if who == s)
            assert all(h.value >= 1 for h in state.owned[s])


@settings(max_examples=25, **SETTINGS)
@given(seed=seeds, players=player_counts, edition=editions, garnets=st.sampled_from([0, 6, 30]),
       timeouts=st.integers(0, 255))
def test_random_legal_play_terminates_after_six_rounds(seed, players, edition, garnets, timeouts):
    state, res, trace, rounds_played = run_game(seed, players, edition, garnets, timeouts, check_purity=True)
    assert rounds_played == 6 and state.round == 6
    assert GAME.turn(state).kind == "over"
    assert sorted(res["ranking"]) == list(range(players))
    assert set(res["points"]) == {str(s) for s in range(players)}
    if res["draw"]:
        assert res["tokens_of_life"] == {} and len(set(state.points)) == 1
    else:
        assert 1 <= len(res["winners"]) and res["ranking"][0] in res["winners"]
        assert sum(res["tokens_of_life"].values()) in (0, 2)
    # no sheet is scored twice; ids are unique
    ids = [sid for sid, _, _, _ in state.scored]
    assert len(ids) == len(set(ids))


@settings(max_examples=12, **SETTINGS)
@given(seed=seeds, players=player_counts, edition=editions)
def test_determinism_same_seed_same_actions_same_views(seed, players, edition):
    a = run_game(seed, players, edition, 10, 0)
    b = run_game(seed, players, edition, 10, 0)
    assert a[2] == b[2]
    assert encode(a[1]) == encode(b[1])


@settings(max_examples=10, **SETTINGS)
@given(seed=seeds, players=player_counts)
def test_replaying_recorded_actions_gives_identical_views(seed, players):
    """Record the actions of one game, replay them on a fresh state: identical views at every step."""
    config = GAME.configure({}, players)
    state = GAME.setup(config, players, seed)
    log = []
    rng = Rng(seed, "test/replay")
    bot = RandomBot()
    while GAME.turn(state).kind != "over":
        t = GAME.turn(state)
        if t.kind == "chance":
            e = bytes(rng.below(256) for _ in range(32))
            log.append(("chance", e))
            state = GAME.chance(state, e)
        else:
            acts = [GAME.check(state, s, bot.choose(GAME.view(state, s), s, rng)) for s in t.seats]
            for s, a in zip(t.seats, acts):
                # through the wire form, as a peer would send it
                a = decode(encode(a))
                log.append(("move", s, a))
                state = GAME.apply(state, s, a)
    first = encode(GAME.view(state, None))
    again = GAME.setup(config, players, seed)
    for entry in log:
        again = GAME.chance(again, entry[1]) if entry[0] == "chance" else GAME.apply(again, entry[1], entry[2])
    assert encode(GAME.view(again, None)) == first
    assert encode(GAME.result(again)) == encode(GAME.result(state))


# anything a hostile peer could send, after decoding (and some things it could not)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70), st.text(max_size=6),
    st.binary(max_size=4), st.floats(allow_nan=True), st.sampled_from(["R", "B", "Y", "P", "1", "2", "bids", "splash"]),
    st.integers(min_value=-2, max_value=12),
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.text(max_size=6), st.sampled_from(["1", "2", "3", "11"])), children, max_size=4),
    ),
    max_leaves=12,
)
actions = st.one_of(
    values,
    st.fixed_dictionaries(
        {},
        optional={
            "bids": st.one_of(values, st.dictionaries(st.sampled_from(["1", "2", "3", "10", "11", "x"]),
                                                      st.one_of(st.integers(-5, 40), values), max_size=4)),
            "splash": st.one_of(values, st.lists(st.one_of(st.integers(-1, 5), st.sampled_from(["R", "B", "Y", "G"])),
                                                 min_size=3, max_size=3)),
            "extra": st.one_of(values, st.lists(st.one_of(st.integers(-1, 5), st.sampled_from(["R", "B", "Y"])),
                                                min_size=3, max_size=3)),
            "convert": st.one_of(st.integers(-3, 12), values),
            "why": st.one_of(values, st.dictionaries(
                st.sampled_from(["bids", "splash", "x"]),
                st.one_of(st.sampled_from(["no tokens", "nothing in reach", "would spoil its sheets"]), values),
                max_size=2)),
        },
    ),
)


@settings(max_examples=400, **SETTINGS)
@given(raw=actions, seat=st.one_of(st.integers(-2, 5), values), garnets=st.sampled_from([0, 5, 9]))
def test_check_only_ever_raises_illegal_action(raw, seat, garnets):
    state = GAME.chance(GAME.setup(GAME.configure({"starting_garnets": garnets}, 4), 4, bytes(32)), bytes(32))
    before = copy.deepcopy(state)
    try:
        a = GAME.check(state, seat, raw)
    except IllegalAction as exc:
        assert str(exc)
    else:
        # a legal action is canonical, normalised and stable
        roundtrip(a)
        assert GAME.check(state, seat, a) == a
        assert all(type(v) is int and v > 0 for v in a["bids"].values())
        new = GAME.apply(state, seat, a)
        assert new.moves[seat] == a
    assert state == before
    assert isinstance(GAME.describe(state, 0, raw), str)


class _Watch:
    def __init__(self, bot) -> None:
        self.bot = bot
        self.moves: list = []

    def choose(self, view, seat, rng):
        a = self.bot.choose(view, seat, rng)
        self.moves.append((view, a, self.bot.reason))
        return a


@settings(max_examples=10, **SETTINGS)
@given(seed=seeds, players=player_counts, edition=editions, garnets=st.sampled_from([0, 10, 30]))
def test_heuristic_bids_and_splashes_or_says_why(seed, players, edition, garnets):
    """Every heuristic move (all legal: play_game checks them) bids unless it says why, and
    splashes unless it says why; the reason in the move is the one the bot exposes."""
    line = [_Watch(HeuristicBot()) if s % 2 == 0 else RandomBot() for s in range(players)]
    state, res = play_game({"edition": edition, "starting_garnets": garnets}, players, seed, line)
    assert res is not None
    for w in line[::2]:
        assert len(w.moves) == 6
        for view, a, reason in w.moves:
            why = a.get("why") or {}
            assert (reason or {}) == why
            assert bool(a["bids"]) != ("bids" in why)
            assert (a["splash"] is not None) != ("splash" in why)
            if why.get("bids") == "no tokens":
                assert view["tokens"][view["seat"]] == 0
            assert set(why) <= set(rules.WHY) and all(why[k] in rules.WHY[k] for k in why)


# --------------------------------------------------------------------------- sheet matching
def _shifts_by_hand(grid: str, cells, size: int) -> list:
    """Every (dr, dc) at which the coloured cells sit on their letters, the slow way."""
    coloured = [(r, c, col) for r, c, col in cells if col != "W"]
    if not coloured:
        return []
    out = []
    for dr in range(-size, size + 1):
        for dc in range(-size, size + 1):
            spots = [(r + dr, c + dc, col) for r, c, col in coloured]
            if all(0 <= r < size and 0 <= c < size and grid[r * size + c] == col for r, c, col in spots):
                out.append((dr, dc))
    return out


@settings(max_examples=400, deadline=None)
@given(size=st.integers(3, 6), data=st.data())
def test_sheet_shifts_match_a_brute_force_search(size, data):
    from core.games.painting import sheets

    grid = data.draw(st.text(alphabet="RBYWPOGK", min_size=size * size, max_size=size * size))
    cells = data.draw(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.sampled_from("RBYWPOG")), max_size=6))
    want = _shifts_by_hand(grid, cells, size)
    assert sheets.match_offsets(grid, cells, size) == want
    assert sheets.match_offsets(grid, [list(c) for c in cells], size) == want   # a view's lists
    assert sheets.matches(grid, cells, size) == bool(want)
