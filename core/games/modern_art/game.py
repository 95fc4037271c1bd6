"""The Modern Art game object (core.engine.Game): ``MODERN_ART``.

Not exposed as ``GAME`` in the package yet (see __init__.py).
"""

from __future__ import annotations

from typing import Any, Mapping

from ...engine import GameInfo, Turn
from . import rules

__all__ = ["ModernArtGame", "MODERN_ART"]


def _bots() -> dict:
    from . import bots as _b
    return {"easy": _b.EasyBot, "medium": _b.MediumBot, "hard": _b.HardBot, "random": _b.RandomBot}


class ModernArtGame:
    info: GameInfo = rules.INFO

    @property
    def bots(self) -> Mapping[str, Any]:
        return _bots()

    def configure(self, options: Mapping[str, Any], players: int) -> dict:
        return rules.configure(options, players)

    def setup(self, config: Mapping[str, Any], players: int, seed: bytes) -> rules.State:
        return rules.setup(config, players, seed)

    def turn(self, state: rules.State) -> Turn:
        return rules.turn(state)

    def check(self, state: rules.State, seat: int, action: Any) -> dict:
        return rules.check(state, seat, action)

    def apply(self, state: rules.State, seat: int, action: Any) -> rules.State:
        return rules.apply(state, seat, action)

    def chance(self, state: rules.State, entropy: bytes) -> rules.State:
        return rules.chance(state, entropy)

    def default_action(self, state: rules.State, seat: int) -> dict:
        return rules.default_action(state, seat)

    def view(self, state: rules.State, seat: int | None, known: Mapping[int, int] | None = None) -> dict:
        return rules.view(state, seat, known)

    def result(self, state: rules.State) -> dict | None:
        return rules.result(state)

    def describe(self, state: rules.State, seat: int, action: Any) -> str:
        return rules.describe(state, seat, action)

    def legal_actions(self, state: rules.State, seat: int, known: Mapping[int, int] | None = None) -> list:
        return rules.legal_actions(state, seat, known)

    def problems(self, state: rules.State, seat: int, action: Any) -> list:
        return rules.problems(state, seat, action)

    def determinize(self, state: rules.State, seat: int | None, rng: Any) -> rules.State:
        return rules.determinize(state, seat, rng)


MODERN_ART = ModernArtGame()
