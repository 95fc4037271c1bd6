"""What the next step costs a seat if nothing changes (a pure hook: the seat's view in, sentences out).

The game's ``warnings`` hook (``GAME.warnings``, core/games/painting/__init__.py).
From RULES.md, a round, step 5: "Every owned sheet still unscored loses 1 point of value, but
never goes below 1" (skipped after the last round, when an unscored sheet
scores nothing).
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["warnings"]


def warnings(view: Any, seat: int | None) -> list[str]:
    if not isinstance(view, Mapping) or seat is None or view.get("phase") == "over" or view.get("result"):
        return []
    try:
        owned = view["owned"][seat]
        rnd = view["round"]
        rounds = view["rules"]["rounds"]
    except (KeyError, IndexError, TypeError):
        return []
    if not owned:
        return []
    def names(sheets: list) -> str:
        return ", ".join("#%d (%d)" % (h["id"], h["value"]) for h in sheets[:4]) + (" ..." if len(sheets) > 4 else "")

    if rnd >= rounds:
        total = sum(h["value"] for h in owned)
        return ["Last round: your unscored sheet%s %s score%s nothing unless matched now (%d point%s at stake)."
                % ("" if len(owned) == 1 else "s", names(owned), "s" if len(owned) == 1 else "", total,
                   "" if total == 1 else "s")]
    losing = [h for h in owned if h["value"] > 1]      # "never goes below 1"
    if not losing:
        return []
    if len(losing) == 1:
        return ["Unmatched after this round, your sheet %s loses 1 point of value." % names(losing)]
    return ["Unmatched after this round, your sheets %s lose 1 point of value each." % names(losing)]
