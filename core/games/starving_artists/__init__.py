"""Starving Artists (Mike Wokasch).  ``GAME`` implements core.engine.Game."""

from __future__ import annotations

from typing import Any, Mapping

from ...engine import GameInfo, Turn
from . import rules
from .ai import HeuristicBot, SearchBot
from .bots import RandomBot, play_game

__all__ = ["GAME", "StarvingArtistsGame", "RandomBot", "HeuristicBot", "SearchBot", "play_game"]


class StarvingArtistsGame:
    info: GameInfo = rules.INFO
    bots: Mapping[str, Any] = {"random": RandomBot, "heuristic": HeuristicBot, "search": SearchBot}

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

    def view(self, state: rules.State, seat: int | None) -> dict:
        return rules.view(state, seat)

    def result(self, state: rules.State) -> dict | None:
        return rules.result(state)

    def describe(self, state: rules.State, seat: int, action: Any) -> str:
        return rules.describe(state, seat, action)

    def legal_actions(self, state: rules.State, seat: int) -> list:
        return rules.legal_actions(state, seat)

    def problems(self, state: rules.State, seat: int, action: Any) -> list:
        return rules.problems(state, seat, action)

    def determinize(self, state: rules.State, seat: int | None, rng: Any) -> rules.State:
        return rules.determinize(state, seat, rng)


GAME = StarvingArtistsGame()
