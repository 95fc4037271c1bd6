"""Bots: always legal, and the heuristic plainly beats random."""

from __future__ import annotations

import pytest

from core.engine import IllegalAction
from core.games.painting import GAME, rules
from core.games.painting.bots import HeuristicBot, RandomBot, play_game
from core.rng import Rng


def test_bot_registry():
    assert GAME.bots["random"] is RandomBot and GAME.bots["heuristic"] is HeuristicBot
    for factory in GAME.bots.values():
        assert hasattr(factory(), "choose")


def _seed(k: int) -> bytes:
    return k.to_bytes(4, "big") + bytes(28)


def test_heuristic_beats_random():
    totals = {"heuristic": [], "random": []}
    for g in range(20):
        line = [HeuristicBot(), HeuristicBot(), RandomBot(), RandomBot()]
        k = g % 4
        line = line[k:] + line[:k]  # rotate seats so seat order does not decide
        state, res = play_game({}, 4, _seed(g), line)
        assert res is not None
        for s, bot in enumerate(line):
            totals["heuristic" if isinstance(bot, HeuristicBot) else "random"].append(state.points[s])
    h = sum(totals["heuristic"]) / len(totals["heuristic"])
    r = sum(totals["random"]) / len(totals["random"])
    assert h >= 2 * r and h - r >= 4, (h, r)


def test_heuristic_wins_most_games_against_random():
    wins = 0
    for g in range(12):
        line = [HeuristicBot(), RandomBot(), RandomBot(), RandomBot()]
        k = g % 4
        line = line[k:] + line[:k]
        _, res = play_game({}, 4, _seed(1000 + g), line)
        if not res["draw"] and any(isinstance(line[w], HeuristicBot) for w in res["winners"]):
            wins += 1
    assert wins >= 6, wins  # chance alone would give about 3 in 12


@pytest.mark.parametrize("edition", ["clarified", "mm8"])
@pytest.mark.parametrize("players", [2, 5, 8])
def test_bots_never_produce_illegal_actions(edition, players):
    """play_game passes every bot action through check(), which raises on an illegal one."""
    for g in range(3):
        line = [HeuristicBot() if s % 2 else RandomBot() for s in range(players)]
        # garnets so that conversion and the extra submission are exercised
        state, res = play_game({"edition": edition, "starting_garnets": 12}, players, _seed(50 + g), line)
        assert GAME.turn(state).kind == "over"


def test_random_bot_uses_every_kind_of_move():
    cfg = rules.configure({"starting_garnets": 20}, 3)
    state = rules.chance(rules.setup(cfg, 3, bytes(32)), bytes(range(32)))
    seen = {"bids": 0, "splash": 0, "extra": 0, "convert": 0, "none": 0}
    for k in range(200):
        a = RandomBot().choose(rules.view(state, 1), 1, Rng(_seed(k), "t"))
        a = rules.check(state, 1, a)
        seen["bids"] += bool(a["bids"])
        seen["splash"] += a["splash"] is not None
        seen["none"] += a["splash"] is None
        seen["extra"] += a["extra"] is not None
        seen["convert"] += a["convert"] > 0
    assert all(v > 0 for v in seen.values()), seen


def test_heuristic_splash_completes_an_owned_sheet():
    """Owning P B with a red at (2,2), it splashes blue at (2,3): P B in one move."""
    cfg = rules.configure({}, 2)
    state = rules.chance(rules.setup(cfg, 2, bytes(32)), bytes(range(32)))
    from core.games.painting.sheets import Sheet
    from dataclasses import replace
    cat = dict(state.catalogue)
    cat[99] = Sheet(99, ((0, 0, "P"), (0, 1, "B")))
    state = replace(state, catalogue=cat,
                    owned=((rules.Holding(99, 5, 1, 1),), ()),
                    grid=tuple(1 if i == 12 else 0 for i in range(25)))  # a red at (2,2)
    a = rules.check(state, 0, HeuristicBot().choose(rules.view(state, 0), 0, Rng(bytes(32), "t")))
    g = rules.mix(state.grid, [a["splash"]], "round")
    from core.games.painting.sheets import matches
    assert matches(rules.colour_string(g), [(0, 0, "P"), (0, 1, "B")])


def test_play_game_is_deterministic():
    a = play_game({}, 4, _seed(7), [HeuristicBot(), RandomBot(), HeuristicBot(), RandomBot()])
    b = play_game({}, 4, _seed(7), [HeuristicBot(), RandomBot(), HeuristicBot(), RandomBot()])
    assert a[0] == b[0] and a[1] == b[1]


def test_play_game_refuses_an_illegal_bot():
    class Cheat:
        def choose(self, view, seat, rng):
            return {"bids": {str(view["offer"][0]["id"]): view["tokens"][seat] + 1}}

    with pytest.raises(IllegalAction):
        play_game({}, 2, _seed(1), [Cheat(), RandomBot()])
