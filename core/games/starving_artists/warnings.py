"""What the next step costs a seat if nothing changes (a pure hook: the seat's view in, sentences out).

The game's ``warnings`` hook (``GAME.warnings``, core/games/starving_artists/__init__.py);
the shell shows the first sentence in one line above the prompt.  From RULES.md,
"A day", step 1: at the start of every day but the first, "every seat still in
loses 1 nutrition; a seat below 1 is out", and step 3: a sale at night adds
its food value to nutrition.  So a seat at nutrition 1 starves at the start
of the next day unless it sells a painting tonight.
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["warnings"]


def _missing(canvas: Mapping[str, Any]) -> list[str]:
    """The colours (a diamond: its two) still wanted on ``canvas``'s empty squares."""
    squares = canvas["card"]["squares"]
    return [squares[i] for i, f in enumerate(canvas["filled"]) if f is None and i < len(squares)]


def _coverable(need: list[str], studio: Mapping[str, int], wild_left: bool) -> list[str]:
    """The wanted squares ``studio`` cannot fill (greedily, a wild for the first one left over)."""
    have = dict(studio)
    short = []
    for sq in sorted(need, key=len):
        colour = next((c for c in sq if have.get(c, 0) > 0), None)
        if colour is not None:
            have[colour] -= 1
        else:
            short.append(sq)
    if short and wild_left and have.get("W", 0) > 0:
        short = short[1:]
    return short


def warnings(view: Any, seat: int | None) -> list[str]:
    """Sentences, most urgent first, saying what this seat loses at the next step if nothing changes."""
    if not isinstance(view, Mapping) or seat is None or view.get("phase") == "over":
        return []
    try:
        if not view["alive"][seat]:
            return []
        nutrition = view["nutrition"][seat]
        mine = view["canvases"][seat]
        studio = view["studios"][seat]
        market = view.get("paint_market") or {}
    except (KeyError, IndexError, TypeError):
        return []
    out: list[str] = []
    day = view.get("day", 0)
    if nutrition <= 1:
        complete = [c for c in mine if c.get("complete")]
        announced = [a for a in view.get("announced") or [] if a.get("seat") == seat]
        selling = announced and announced[0].get("canvases")
        if selling:
            pass
        elif announced:
            out.append("You starve at the start of day %d: nutrition %d and you sell nothing tonight."
                       % (day + 1, nutrition))
        elif complete:
            out.append("Nutrition %d: sell a complete canvas tonight (%s) or you starve at the start of day %d."
                       % (nutrition, ", ".join(c["card"]["title"] for c in complete[:2]), day + 1))
        else:
            best = None
            for c in mine:
                need = _missing(c)
                wild_left = "W" not in [f for f in c["filled"] if f]
                short = _coverable(need, studio, wild_left)
                if best is None or (len(short), len(need)) < (len(best[1]), len(best[2])):
                    best = (c, short, need)
            if best is None:
                out.append("You starve at the start of day %d unless you sell a painting tonight: nutrition %d "
                           "and no canvas to finish (buy one and paint it today)." % (day + 1, nutrition))
            else:
                c, short, need = best
                words = "You starve at the start of day %d unless you sell a painting tonight: nutrition %d; " % (
                    day + 1, nutrition)
                if not short:
                    words += "'%s' needs %d more cube%s and your studio has them: paint it today." % (
                        c["card"]["title"], len(need), "" if len(need) == 1 else "s")
                else:
                    colours = sorted({ch for sq in short for ch in sq})
                    in_market = [ch for ch in colours if market.get(ch, 0) > 0]
                    words += "'%s' still lacks %s in your studio%s." % (
                        c["card"]["title"], "/".join(colours),
                        "" if in_market else " and the Paint Market has none")
                out.append(words)
    starve_day = view.get("starve_day")
    if starve_day and not out:
        out.append("Last day: someone starved on day %d, so the game ends after tonight." % starve_day)
    return out
