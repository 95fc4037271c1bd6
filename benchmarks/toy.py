"""The conformance suite's toy game (tests/toy_game.py) for benchmarks: long artificial logs."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.toy_game import ALL_GAMES, ToyBot  # noqa: E402


class SteadyBot(ToyBot):
    """Random guesses and targets, bets 0: no seat ever goes out, so the game lasts every round."""

    def choose(self, view, seat, rng):
        if view["stage"] == "bet":
            return {"bet": 0}
        return super().choose(view, seat, rng)


def toy_log(seats: int, rounds: int, seed: int = 1) -> list[bytes]:
    from common import make_log

    return make_log("toy", seats, seed, {"rounds": rounds}, registry=ALL_GAMES, bot=SteadyBot())
