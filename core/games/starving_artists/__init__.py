"""Starving Artists (Mike Wokasch).  ``GAME`` is a core.engine.FullRulesGame over the functions of
``rules``, its warnings those of ``warnings`` (core/engine.py, "One way to declare a hook")."""

from __future__ import annotations

from ...engine import FullRulesGame
from . import rules, warnings
from .ai import HeuristicBot, SearchBot
from .bots import RandomBot, play_game

__all__ = ["GAME", "RandomBot", "HeuristicBot", "SearchBot", "play_game"]


GAME = FullRulesGame(rules, {"random": RandomBot, "heuristic": HeuristicBot, "search": SearchBot},
                     warnings=warnings.warnings)
