"""Text helpers for screens and the shell: lines of ``(style, text)`` fragments (width, joining, word
wrap, cards side by side), seat names and places in words, and a canonical value as indented text."""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Sequence

from functools import lru_cache

from wcwidth import wcwidth     # (declared in pyproject; prompt-toolkit's own dependency; imported alone, it is light)

from ..common import jsonable

__all__ = [
    "Frag", "Line", "text_width", "width_of", "cut_to", "cut_line", "join", "seat_name", "who", "with_names", "ordinal", "shared_places",
    "place_words", "plural", "plain_label", "wrap", "layout_cards", "side_by_side", "plain",
]

Frag = tuple  # (style, text)
Line = list   # list of fragments


@lru_cache(maxsize=4096)
def get_cwidth(ch: str) -> int:
    """The columns one character takes (0 for a combining mark; a control character, never shown, 0)."""
    return max(0, wcwidth(ch))


def text_width(text: str) -> int:
    """The columns ``text`` takes on a terminal: a wide (CJK) character or an emoji takes two, a combining
    mark none (a name or a talk line may hold any of them)."""
    return len(text) if text.isascii() else sum(get_cwidth(ch) for ch in text)


def width_of(line: Line) -> int:
    return sum(text_width(t) for _, t in line)


def cut_to(text: str, cols: int) -> str:
    """The longest start of ``text`` that takes at most ``cols`` columns (a wide character is never halved)."""
    if text.isascii():
        return text[:max(0, cols)]
    used = 0
    for i, ch in enumerate(text):
        used += get_cwidth(ch)
        if used > cols:
            return text[:i]
    return text


def join(lines: Sequence[Line]) -> list:
    """Lines -> one fragment list with newlines."""
    out: list = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.extend(line)
    return out


def seat_name(s: int, me: int | None, names: Sequence[str] = ()) -> str:
    """``seat 2`` or, when the genesis names the seats, the seat's name; ``(you)`` after our own."""
    name = names[s] if isinstance(s, int) and 0 <= s < len(names) else "seat %d" % s
    return "%s (you)" % name if s == me else name


def who(seats: Sequence[int], me: int | None, names: Sequence[str] = ()) -> str:
    return ", ".join("you" if s == me else seat_name(s, None, names) for s in seats)


# "seat N" (a column's padding after it), or "seats A, B and C" / "seats A and B" / "seats A, B"
# (core.evidence.seats_words, core.table's "seats 0, 2"), or "seats [A, B]" (core.table's time-out
# note): one pattern, so a name is never named again
_SEAT_WORD = re.compile(r"\b[Ss]eats \[(\d+(?:, \d+)*)\]|\b[Ss]eats (\d+(?:, \d+)*(?: and \d+)?)\b"
                        r"|\b[Ss]eat (\d+)\b( \(you\))?(  +|─+)?")
_NUMBER = re.compile(r"\d+")


def _names_of(seats: Sequence[int], names: Sequence[str]) -> str:
    """ "Ann", "Ann and Bo", "Ann, Bo and Cy"."""
    said = [names[s] for s in seats]
    return said[0] if len(said) == 1 else "%s and %s" % (", ".join(said[:-1]), said[-1])


def with_names(text: str, names: Sequence[str]) -> str:
    """A line of a screen or the log with every ``seat N`` (or ``Seat N``, a sentence's start) replaced by
    that seat's name (if the seats have names), and every ``seats A, B and C`` (or ``seats [A, B, C]``) by
    theirs (``Ann, Bo and Cy``; left as it is if one of them has no name).

    In a column (``seat N`` or ``seat N (you)`` followed by two spaces or more, or on a box's edge,
    followed by ``─``) the name keeps the column's width: it is padded, or takes spaces (or ``─``),
    leaving at least one, so the columns (and the box) after it stay put."""
    if not names:
        return text

    def name(m: re.Match) -> str:
        listed = m.group(1) or m.group(2)
        if listed is not None:              # seats [A, B] or seats A, B and C
            seats = [int(d) for d in _NUMBER.findall(listed)]
            if not seats or any(s >= len(names) for s in seats) or (m.group(2) is not None and len(seats) < 2):
                return m.group(0)           # (a list says two seats or more: "Seats 1" is no list of seats)
            if m.group(1) is not None:
                return _names_of(seats, names)
            return _NUMBER.sub(lambda d: names[int(d.group(0))], listed)
        s = int(m.group(3))
        if s >= len(names):
            return m.group(0)
        said = names[s] + (m.group(4) or "")
        pad = m.group(5)
        if not pad:
            return said
        return said + pad[0] * max(1, len(m.group(0)) - len(said))

    return _SEAT_WORD.sub(name, text)


def ordinal(n: int) -> str:
    return "%d%s" % (n, "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th"))


def shared_places(ranking: Sequence[int], key: Callable[[int], Any]) -> dict[int, int]:
    """Each seat's place in ``ranking`` (best first), seats with the same ``key`` sharing one:
    standard competition ranking (1, 2, 2, 4)."""
    places: dict[int, int] = {}
    for i, s in enumerate(ranking):
        prev = ranking[i - 1] if i else None
        places[s] = places[prev] if prev is not None and key(prev) == key(s) else i + 1
    return places


def place_words(place: int, of: int, shared: bool = False) -> str:
    """ "2nd of 3", "joint 2nd of 3" (a place shared with another seat)."""
    return "%s%s of %d" % ("joint " if shared else "", ordinal(place), of)


def plural(n: int, word: str, many: str | None = None) -> str:
    """ "1 token", "2 tokens" ("1 canvas", "2 canvases" with ``many``)."""
    return "%d %s" % (n, word if n == 1 else (many or word + "s"))


def plain_label(label: str) -> str:
    """A step label without the commit/reveal plumbing: "round 2: bids and splash: commit" -> "round 2: bids and splash"."""
    for suffix in (": commit", ": reveal", " (reveal)"):
        if label.endswith(suffix):
            return label[: -len(suffix)]
    return label


def cut_line(line: Line, cols: int, more: str = " ...") -> Line:
    """``line`` on one row of ``cols`` columns: as it is if it fits, else cut (by columns, the text's end
    spaces dropped) with ``more`` after it."""
    if width_of(line) <= cols:
        return list(line)
    room = max(0, cols - text_width(more))
    out: Line = []
    for st, text in line:
        piece = cut_to(text, room)
        room -= text_width(piece)
        if piece:
            out.append((st, piece))
        if len(piece) < len(text):
            break
    if out:
        out[-1] = (out[-1][0], out[-1][1].rstrip())
    return out + [(out[-1][0] if out else "", more)]


def wrap(line: Line, width: int, indent: str = "  ") -> list[Line]:
    """Word-wrap one line of fragments to ``width`` columns (as the terminal counts them: ``text_width``);
    a word longer than a row, or text without spaces (CJK), is cut where the row ends."""
    chars = [(st, ch, 1 if ch.isascii() else get_cwidth(ch)) for st, text in line for ch in text]
    if sum(w for _, _, w in chars) <= width or width < 10:
        return [line]
    out: list[Line] = []
    first = True
    while chars:
        room = width if first else width - text_width(indent)
        k, used = 0, 0
        while k < len(chars) and used + chars[k][2] <= room:
            used += chars[k][2]
            k += 1
        cut = max(1, k)
        if k < len(chars):
            for i in range(k, 0, -1):
                if chars[i][1] == " ":
                    cut = i
                    break
        piece, chars = chars[:cut], chars[cut:]
        while chars and chars[0][1] == " ":
            chars = chars[1:]
        frags: Line = [] if first else [("", indent)]
        for st, ch, _ in piece:
            if frags and frags[-1][0] == st:
                frags[-1] = (st, frags[-1][1] + ch)
            else:
                frags.append((st, ch))
        out.append(frags)
        first = False
    return out


def layout_cards(cards: Sequence[list[Line]], width: int, gap: int = 3) -> list[Line]:
    """Put cards (lists of lines) side by side, wrapping to ``width``."""
    rows: list[list] = []
    cur: list = []
    used = 0
    for card in cards:
        w = max((width_of(l) for l in card), default=0)
        need = w if not cur else used + gap + w
        if cur and need > width:
            rows.append(cur)
            cur, need = [], w
        cur.append((w, card))
        used = need
    if cur:
        rows.append(cur)
    out: list[Line] = []
    for row in rows:
        height = max(len(card) for _, card in row)
        for i in range(height):
            line: Line = []
            for j, (w, card) in enumerate(row):
                frags = card[i] if i < len(card) else []
                if j:
                    line.append(("", " " * gap))
                line.extend(frags)
                pad = w - width_of(frags)
                if pad and j < len(row) - 1:
                    line.append(("", " " * pad))
            out.append(line)
    return out


def side_by_side(left: Sequence[Line], right: Sequence[Line], left_width: int, gap: int = 3) -> list[Line]:
    """Two columns of lines as one (a wide terminal): ``left`` padded to ``left_width``, then ``right``."""
    out: list[Line] = []
    for k in range(max(len(left), len(right))):
        a = list(left[k]) if k < len(left) else []
        b = list(right[k]) if k < len(right) else []
        pad = max(0, left_width - width_of(a)) + gap
        out.append(a + [("", " " * pad)] + b if b else a)
    return out


def plain(value: Any, indent: str = "") -> list[str]:
    """A canonical value as indented text lines (bytes as hex), for the generic screen.

    Maps are one ``key: value`` line per key; a list or map too long for one
    line is spread over several, indented.
    """
    if not isinstance(value, (dict, list, tuple)) or not value:
        return [indent + (_short(value) or "")]
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            s = _short(v) if not isinstance(v, dict) or not v else None
            if s is not None:
                out.append("%s%s: %s" % (indent, k, s))
            else:
                out.append("%s%s:" % (indent, k))
                out += plain(v, indent + "  ")
        return out
    s = _short(value)
    if s is not None:
        return [indent + s]
    for v in value:
        s = _short(v)
        if s is not None:
            out.append("%s- %s" % (indent, s))
        else:
            out.append("%s-" % indent)
            out += plain(v, indent + "  ")
    return out


def _short(value: Any) -> str | None:
    """One-line text of a value, or None if it is too big for one line."""
    try:
        text = json.dumps(jsonable(value), separators=(", ", ": "), sort_keys=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 70 or not isinstance(value, (list, tuple, dict)) else None
