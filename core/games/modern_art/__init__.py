"""Modern Art (Reiner Knizia): rules, cards, bots and the trustless deal.

``GAME`` is ``core.games.modern_art.game.MODERN_ART``: the rules (rules.py)
wrapped in the mental-poker deal (dealt.py, core/deal.py), so every hand is
dealt by all seats together and by no one.  ``game.OFFLINE`` is the rules
alone with an open deal (tests, previews), in no registry.
"""

from .game import MODERN_ART as GAME

__all__ = ["GAME"]
