"""The Painting Game (Genius Game 4 Main Match).  ``GAME`` is a core.engine.FullRulesGame over the
functions of ``rules``, its warnings those of ``warnings`` (core/engine.py, "One way to declare
a hook")."""

from __future__ import annotations

from ...engine import FullRulesGame
from . import rules, warnings
from .bots import HardBot, HeuristicBot, RandomBot, play_game

__all__ = ["GAME", "RandomBot", "HeuristicBot", "HardBot", "play_game"]


GAME = FullRulesGame(rules, {"random": RandomBot, "heuristic": HeuristicBot, "hard": HardBot}, warnings=warnings.warnings)
