"""Modern Art (Reiner Knizia): rules, cards, bots and the trustless deal.

``GAME`` is ``core.games.modern_art.game.MODERN_ART``: the rules (rules.py)
wrapped in the mental-poker deal (dealt.py, core/deal.py), so every hand is
dealt by all seats together and by no one.
"""

from .game import MODERN_ART as GAME

__all__ = ["GAME"]

# what the next step costs a seat if nothing changes: a pure hook on the seat's view (warnings.py)
from . import warnings as _warnings  # noqa: E402

GAME.warnings = _warnings.warnings
