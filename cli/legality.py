"""Legality and warnings, from the game: the one way the UI asks a game's hooks about an action
(``problems``, ``check``, ``legal_actions``; an action checked as our peer will send it, sealed first
with our seat's secret: ``seal``) and what the next step costs a seat (``first_warning``).  A failing
hook never crashes the UI: it says what it could not check, or nothing."""

from __future__ import annotations

import logging
from typing import Any

from core.engine import IllegalAction

__all__ = ["seal", "problems", "check", "legal_actions", "secret_of", "first_warning"]

log = logging.getLogger("easel.ui")


def seal(game: Any, state: Any, seat: int | None, action: Any, secret: bytes | None) -> Any:
    """``action`` as our peer will send it: through the game's ``seal_action`` with our seat's secret
    (a game with seat secrets attaches there what only that seat can give, e.g. the proof that a
    played card is the one at its deck position).  Unchanged without a secret, for a game whose hook
    keeps it (the default), or when the hook fails (then the game's check says what is wrong);
    an IllegalAction from the hook (what only our secret can tell: Modern Art's claimed card that is
    not at its position) goes to the caller, as the peer's ``act`` would raise it."""
    if secret is None or game is None or seat is None:
        return action
    try:
        return game.seal_action(state, seat, action, secret)
    except IllegalAction:
        raise
    except Exception:
        return action


def problems(game: Any, state: Any, seat: int, action: Any, secret: bytes | None = None) -> list[str]:
    """Every problem the game finds with ``action`` for ``seat`` ([] = legal).

    The one place the UI asks about legality: the game's ``problems`` hook
    (core/engine.py; by default ``check``'s reason).  With ``secret`` (our
    seat's secret, a game with seat secrets) the action is checked as the
    peer will send it: sealed first (``seal``).
    """
    try:
        action = seal(game, state, seat, action, secret)
        return [str(p) for p in game.problems(state, seat, action)]
    except IllegalAction as exc:
        return [str(exc)]
    except Exception as exc:  # never let a rules hook crash the UI
        return ["cannot check this action (%s)" % type(exc).__name__]


def check(game: Any, state: Any, seat: int, action: Any, secret: bytes | None = None) -> Any:
    """The normalised action (sealed first with ``secret``, see ``problems``), or IllegalAction saying why not."""
    try:
        action = seal(game, state, seat, action, secret)
        return game.check(state, seat, action)
    except IllegalAction:
        raise
    except Exception as exc:
        raise IllegalAction("malformed action (%s)" % type(exc).__name__) from None


def legal_actions(game: Any, state: Any, seat: int, secret: bytes | None = None) -> list | None:
    """The game's legal actions for ``seat`` (with our seat's ``secret``: as the game lists them for
    that seat), or None if the game's hook fails."""
    try:
        out = game.legal_actions(state, seat, secret)
    except Exception:
        return None
    return None if out is None else list(out)


def secret_of(table: Any, seat: int | None) -> bytes | None:
    """Our seat's secret as the local peer keeps it for its table (``Table.secrets``), or None."""
    secrets = getattr(table, "secrets", None)
    if seat is None or not isinstance(secrets, dict):
        return None
    sec = secrets.get(seat)
    return sec if isinstance(sec, bytes) else None


def first_warning(game: Any, view: Any, seat: int | None) -> str:
    """The first sentence of the game's ``warnings(view, seat)`` hook (core/games/<game>/warnings.py),
    "" without a game, a view or a seat; a failing hook says nothing (a warning is a help, never a crash)."""
    if game is None or view is None or seat is None:
        return ""
    try:
        out = game.warnings(view, seat)
    except Exception:
        log.debug("the game's warnings hook failed", exc_info=True)
        return ""
    return str(out[0]) if out else ""
