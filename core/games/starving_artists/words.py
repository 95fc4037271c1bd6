"""Starving Artists: an action in words, from one place.

The same action is said twice: in the event log, in the third person ("seat 2 buys 'Irises' from slot 1
for 2 B, R": ``describe``), and on the player's own draft line, in the second person ("buy slot 1
'Irises' paying R B B": the screen, cli/screens/starving_artists/).  ``action_words`` is the one
place that knows what each action says, with its two phrasings side by side in ``PHRASES``; how a
reader names the things an action names (its cubes, a market slot and the canvas in it, the squares
painted, the canvases sold, the diamonds' colours) is a ``Namer``: the log's is ``LogNames`` (the
card's whole title, the cubes as "2 B, R"), the screen keeps its own (its canvas numbers, short titles).
"""

from __future__ import annotations

from typing import Any, Mapping, Protocol, Sequence

from .cards import CARDS
from .state import COLOURS, State, _short, card_title

__all__ = ["PHRASES", "Namer", "LogNames", "action_words", "describe"]

# what an action says -> (the player's own words, the event log's): the second person and the third
PHRASES = {
    "work": ("work (3 cubes from the bag)", "works: 3 cubes from the bag"),
    "buy": ("buy slot {slot} {canvas} paying {pay}", "buys {canvas} from slot {slot} for {pay}"),
    "paint": ("paint {place}", "paints {place}"),
    "trade": ("trade {give} for {take} with the Paint Market", "trades {give} for {take} with the Paint Market"),
    "reset": ("reset the canvas market paying {pay}", "resets the canvas market for {pay}"),
    "study": ("colour study: 4 {give} for 1 {take}", "makes a colour study: 4 {give} for 1 {take} from the bag"),
    "offer": ("offer {give} for {take}", "offers {give} for {take} to the other artists"),
    "accept": ("accept the offer", "accepts the offer"),
    "decline": ("decline the offer", "declines the offer"),
    "sell": ("sell {canvases}", "sells {canvases}"),
    "sell nothing": ("sell nothing", "sells nothing"),
    "take": ("take {cubes}", "collects {cubes}"),
    "diamonds": ("diamonds of the leaving canvas: {colours}", "paints the diamonds of the slot-1 canvas {colours}"),
}


class Namer(Protocol):
    """How one reader names what an action names (each method gets the action's raw value)."""

    def cubes(self, cubes: Any) -> str: ...

    def slot(self, slot: Any) -> str: ...

    def in_slot(self, slot: Any) -> str: ...

    def placements(self, place: Sequence) -> str: ...

    def sold(self, ids: Sequence) -> str: ...

    def canvas(self, cid: Any) -> str: ...

    def colours(self, colours: Sequence) -> str: ...

    def unknown(self, action: Mapping) -> str: ...


def action_words(a: Mapping, you: bool, names: Namer) -> str:
    """The action ``a`` in words: the player's own (``you``) or the log's, a main action's free one after
    ", then "; an action whose ``do`` it does not know: ``names.unknown``."""
    do = a.get("do")
    said = do
    fields: dict[str, str] = {}
    if do == "buy":
        fields = {"slot": names.slot(a.get("slot")), "canvas": names.in_slot(a.get("slot")),
                  "pay": names.cubes(a.get("pay"))}
    elif do == "paint":
        fields = {"place": names.placements(a.get("place") or [])}
    elif do in ("trade", "offer"):
        fields = {"give": names.cubes(a.get("give")), "take": names.cubes(a.get("take"))}
    elif do == "reset":
        fields = {"pay": names.cubes(a.get("pay"))}
    elif do == "study":
        fields = {"give": str(a.get("give")), "take": str(a.get("take"))}
    elif do == "answer":
        said = "accept" if a.get("accept") is True else "decline"
    elif do == "sell":
        ids = a.get("canvases") or []
        said = "sell" if ids else "sell nothing"
        fields = {"canvases": names.sold(ids)} if ids else {}
    elif do == "take":
        fields = {"cubes": names.cubes(a.get("cubes"))}
    elif do == "diamonds":
        fields = {"colours": names.colours(a.get("colours") or [])}
    elif do != "work":
        return names.unknown(a)
    text = PHRASES[said][0 if you else 1].format(**fields)
    if do == "sell" and a.get("supper") is not None:
        text += "; Last Supper: " + names.canvas(a.get("supper"))
    then = a.get("then")
    if isinstance(then, Mapping):
        text += ", then " + action_words(then, you, names)
    return text


class LogNames:
    """The event log's names: a canvas by its card's whole title, cubes as "2 B, R", the slot as given."""

    def __init__(self, state: State) -> None:
        self.state = state

    def cubes(self, cubes: Any) -> str:
        if not isinstance(cubes, dict):
            return "?"
        try:
            parts = []
            for c in COLOURS:
                k = cubes.get(c, 0)
                if type(k) is int and k > 0:
                    parts.append("%d %s" % (k, c) if k > 1 else c)
            return ", ".join(parts) or "nothing"
        except Exception:
            return "?"

    def slot(self, slot: Any) -> str:
        return _short(slot)

    def in_slot(self, slot: Any) -> str:
        cid = self.state.market[slot - 1] if type(slot) is int and 1 <= slot <= 3 else -1
        return self.canvas(cid) if cid != -1 else "a canvas"

    def placements(self, place: Sequence) -> str:
        return "; ".join("%s on square %s of %s" % (p[2], p[1], self.canvas(p[0])) for p in place)

    def sold(self, ids: Sequence) -> str:
        return " and ".join(self.canvas(c) for c in ids)

    def canvas(self, cid: Any) -> str:
        if type(cid) is int and 0 <= cid < len(CARDS):
            return card_title(cid)
        return "canvas %s" % _short(cid)

    def colours(self, colours: Sequence) -> str:
        return ", ".join(str(c) for c in colours)

    def unknown(self, action: Mapping) -> str:
        return "unknown action %s" % _short(action.get("do"))


def describe(state: State, seat: int, action: Any) -> str:
    """The event log's words for ``seat``'s ``action`` in ``state`` ("seat 2 works: ..."); never raises."""
    who = "seat %s" % _short(seat)
    if not isinstance(action, dict):
        return "%s: unreadable action %s" % (who, _short(action))
    try:
        return who + " " + action_words(action, False, LogNames(state))
    except Exception:
        return "%s: unreadable action %s" % (who, _short(action))
