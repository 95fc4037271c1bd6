"""The Painting Game (Genius Game 4 Main Match).  ``GAME`` is a core.engine.RulesGame over the
functions of ``rules``; the hooks it has are its class's methods (core/engine.py, "One way to
declare a hook")."""

from __future__ import annotations

from typing import Any

from ...engine import RulesGame
from . import rules, warnings
from .bots import HeuristicBot, RandomBot, play_game

__all__ = ["GAME", "PaintingGame", "RandomBot", "HeuristicBot", "play_game"]


class PaintingGame(RulesGame):
    def legal_actions(self, state: rules.State, seat: int, secret: Any = None) -> list:
        return rules.legal_actions(state, seat)

    def problems(self, state: rules.State, seat: int, action: Any) -> list[str]:
        return rules.problems(state, seat, action)

    def determinize(self, state: rules.State, seat: int | None, rng: Any) -> rules.State:
        return rules.determinize(state, seat, rng)

    def warnings(self, view: Any, seat: int | None) -> list[str]:
        """What the next step costs a seat if nothing changes (warnings.py: a pure function of the view)."""
        return warnings.warnings(view, seat)


GAME = PaintingGame(rules, {"random": RandomBot, "heuristic": HeuristicBot})
