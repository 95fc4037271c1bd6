"""The Painting Game (Genius Game 4 Main Match).  ``GAME`` implements core.engine.Game
with the functions of ``rules`` (core.engine.RulesGame)."""

from __future__ import annotations

from ...engine import RulesGame
from . import rules
from .bots import HeuristicBot, RandomBot, play_game

__all__ = ["GAME", "RandomBot", "HeuristicBot", "play_game"]

GAME = RulesGame(rules, {"random": RandomBot, "heuristic": HeuristicBot})

# what the next step costs a seat if nothing changes: a pure hook on the seat's view (warnings.py)
from . import warnings as _warnings  # noqa: E402

GAME.warnings = _warnings.warnings
