"""The Starving Artists reveal: the night and the start of a day, one happening at a time (see
cli/screens/__init__.py, "The reveal moment")."""

from __future__ import annotations

import re
from typing import Any

from ..base import Beat
from ..text import Line
from .drawing import compact_event

def new_events(before: Any, after: Any) -> list[tuple[int, str]]:
    """The (day, text) events ``after``'s view has that ``before``'s had not (the rules keep a
    sliding window of this day's and the previous day's events: old ones drop off the front)."""
    if not isinstance(after, dict):
        return []
    new = list(zip(after.get("event_days") or [], after.get("events") or []))
    if not isinstance(before, dict):
        return []
    old = list(zip(before.get("event_days") or [], before.get("events") or []))
    for j in range(len(old) + 1):
        tail = old[j:]
        if new[:len(tail)] == tail:
            return new[len(tail):]
    return new


def _event_style(text: str) -> str:
    if " sells " in text or " collects " in text or "Last Supper" in text:
        return "class:done"
    if "starves" in text or "game over" in text:
        return "class:error"
    return ""

_REACHED = re.compile(r"Paint Market receives|game over")


def night_beats(before: Any, after: Any, me: int | None) -> list[Beat]:
    """The night and the start of a day, one happening at a time: announcements, each sale (food, cubes
    back, stars), each collection action, starving, the marker passing and the Paint Market's draw."""
    v, bv = after, before
    if not isinstance(v, dict) or not isinstance(bv, dict):
        return []
    if not ("night" in (v.get("phase"), bv.get("phase")) or v.get("day") != bv.get("day") or v.get("phase") == "over"):
        return []
    events = new_events(bv, v)
    if not events:
        return []
    texts = []
    for _, text in events:
        text = compact_event(text)
        if me is not None:
            text = re.sub(r"\bseat %d\b" % me, "seat %d (you)" % me, text)
        texts.append(text)
    if v.get("phase") == "night" or bv.get("phase") == "night" and v.get("day") == bv.get("day"):
        head = "Night %d" % bv.get("day", v.get("day", 0))
    elif v.get("phase") == "over":
        head = "The end"
    else:
        head = "Day %d begins" % v.get("day", 0)
    beats = []
    for k, text in enumerate(texts):
        middle: list[Line] = [[("class:header", head), ("class:label", " (one thing at a time)")]]
        for i, t in enumerate(texts[:k + 1]):
            if i < k:
                middle.append([("class:label", "    " + t)])
            else:
                middle.append([("bold", "  > "), (_event_style(t) or "bold", t)])
        # from the Paint Market's draw on (the night is over) the panes show the table after it
        beats.append(Beat(text, None, middle, hold=2 if k == len(texts) - 1 and len(texts) > 1 else 1,
                          after=_REACHED.search(text) is not None or (beats[-1].after if beats else False)))
    return beats
