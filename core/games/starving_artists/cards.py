"""The Starving Artists canvas deck: ``cards.json`` next to this file, loaded once at import.

A card's ``rows`` are its squares drawn as a small grid, one string per row,
read left to right.  A cell is one colour letter (``R``), a two-colour
"diamond" written ``(RB)`` (either colour fills it), or ``.`` for no square.
Squares are numbered 0, 1, 2, ... in reading order, gaps skipped.

Reading package data at import is the only I/O in this package.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

__all__ = ["Card", "CARDS", "SQUARE_COLOURS", "parse_rows", "load_cards", "card"]

SQUARE_COLOURS = "ROYGBPK"      # colours a square may ask for (never wild)
_ORDER = {c: i for i, c in enumerate("ROYGBPKW")}


@dataclass(frozen=True, slots=True)
class Card:
    id: int
    title: str
    painter: str
    year: int
    stars: int                                 # points when sold
    paint: int                                 # most cubes collected when sold
    food: int                                  # nutrition when sold
    rows: tuple[str, ...]                      # as in cards.json
    squares: tuple[tuple[str, ...], ...]       # per square: the colours that fill it
    layout: tuple[tuple[int | None, ...], ...]  # per row: square index per cell, None = gap
    masks: tuple[int, ...]                     # per square: bit i set = colour "ROYGBPKW"[i] fills it

    @property
    def size(self) -> int:
        return len(self.squares)

    def to_view(self) -> dict:
        """A canonical (encodable) description: squares as strings of their colours."""
        return {
            "id": self.id,
            "title": self.title,
            "painter": self.painter,
            "year": self.year,
            "stars": self.stars,
            "paint": self.paint,
            "food": self.food,
            "rows": list(self.rows),
            "squares": ["".join(sq) for sq in self.squares],
        }


def parse_rows(rows: Sequence[str]) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[int | None, ...], ...]]:
    """Squares and layout from a card's ``rows``; ValueError names what is wrong."""
    if not isinstance(rows, (list, tuple)) or not rows:
        raise ValueError("rows must be a non-empty list of strings")
    squares: list[tuple[str, ...]] = []
    layout: list[tuple[int | None, ...]] = []
    for r, row in enumerate(rows):
        if not isinstance(row, str) or not row:
            raise ValueError("row %d must be a non-empty string" % r)
        cells: list[int | None] = []
        i = 0
        while i < len(row):
            ch = row[i]
            if ch == ".":
                cells.append(None)
                i += 1
            elif ch in SQUARE_COLOURS:
                cells.append(len(squares))
                squares.append((ch,))
                i += 1
            elif ch == "(":
                end = row.find(")", i)
                inner = row[i + 1:end] if end > 0 else ""
                if (len(inner) != 2 or inner[0] == inner[1]
                        or any(c not in SQUARE_COLOURS for c in inner)):
                    raise ValueError(
                        "row %d: a diamond is two different colours of %s in brackets, like (RB)"
                        % (r, SQUARE_COLOURS))
                cells.append(len(squares))
                squares.append(tuple(sorted(inner, key=_ORDER.__getitem__)))
                i = end + 1
            else:
                raise ValueError("row %d: %r is not a colour letter of %s, a diamond (XY) or a gap ."
                                 % (r, ch, SQUARE_COLOURS))
        layout.append(tuple(cells))
    if not squares:
        raise ValueError("a card needs at least one square")
    return tuple(squares), tuple(layout)


def _int(obj: dict, key: str, lo: int, hi: int) -> int:
    v = obj.get(key)
    if type(v) is not int or not lo <= v <= hi:
        raise ValueError("%s must be a whole number from %d to %d, not %r" % (key, lo, hi, v))
    return v


def load_cards(data: Any) -> tuple[Card, ...]:
    """Cards from the decoded JSON list; card i must have id i."""
    if not isinstance(data, list) or not data:
        raise ValueError("the deck must be a non-empty JSON list of cards")
    out = []
    for i, obj in enumerate(data):
        try:
            if not isinstance(obj, dict):
                raise ValueError("a card must be a JSON object")
            if obj.get("id") != i or type(obj.get("id")) is not int:
                raise ValueError("id must be %d (its place in the list)" % i)
            for key in ("title", "painter"):
                if not isinstance(obj.get(key), str) or not obj[key]:
                    raise ValueError("%s must be a non-empty string" % key)
            year = _int(obj, "year", -3000, 3000)
            stars = _int(obj, "stars", 0, 20)
            paint = _int(obj, "paint", 0, 40)
            food = _int(obj, "food", 0, 10)
            rows = tuple(obj.get("rows") or ())
            squares, layout = parse_rows(rows)
        except ValueError as exc:
            raise ValueError("card %d: %s" % (i, exc)) from None
        masks = tuple(sum(1 << _ORDER[c] for c in sq) for sq in squares)
        out.append(Card(i, obj["title"], obj["painter"], year, stars, paint, food,
                        rows, squares, layout, masks))
    return tuple(out)


def _load() -> tuple[Card, ...]:
    here = Path(__file__).resolve().parent
    path = here / "cards.json"
    return load_cards(json.loads(path.read_text(encoding="utf-8")))


CARDS: tuple[Card, ...] = _load()


def card(card_id: int) -> Card:
    return CARDS[card_id]
