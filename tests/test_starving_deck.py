"""The Starving Artists deck (core/games/starving_artists/cards.json) against the required figures.

The deck is a stand-in built as data (the rulebooks give no card list); these tests pin the
distribution it must match: 92 canvases, stars mostly 1-4 (mean 2.1), food 0-4 (mean 2.3),
paint value 3-15 (mean 9.4), squares 3-16 (mean 7.6), about one two-colour diamond per card,
a few zero-star comic books, and colour demand proportional to the bag's non-wild cubes.

The file is read and parsed here on purpose (json + the cell grammar), independently of the
game's own loader, so the deck is checked even if the loader gets it wrong.
"""

from __future__ import annotations

import json
import re
import statistics
from fractions import Fraction
from pathlib import Path

import pytest

DECK_PATH = Path(__file__).resolve().parents[1] / "core" / "games" / "starving_artists" / "cards.json"

# The bag without the 10 wild cubes (rulebook component list).
BAG = {"R": 15, "O": 20, "Y": 20, "G": 20, "B": 30, "P": 15, "K": 20}
SQUARE_COLOURS = "ROYGBPK"
FIELDS = {"id": int, "title": str, "painter": str, "year": int, "stars": int, "paint": int,
          "food": int, "rows": list}

_CELL = re.compile(r"\(([A-Z])([A-Z])\)|([A-Z])|(\.)")


def parse_row(row: str) -> list[str | tuple[str, ...] | None]:
    """One row string -> cells: a colour letter, a sorted-as-written pair (diamond) or None (gap).

    Raises ValueError for anything outside the grammar: unknown letters, W, a diamond of one
    colour twice, unbalanced brackets, lower case, spaces.
    """
    cells: list[str | tuple[str, ...] | None] = []
    pos = 0
    while pos < len(row):
        m = _CELL.match(row, pos)
        if m is None:
            raise ValueError(f"bad cell at {pos} in {row!r}")
        a, b, single, gap = m.groups()
        if gap:
            cells.append(None)
        elif single:
            if single not in SQUARE_COLOURS:
                raise ValueError(f"bad colour {single!r} in {row!r}")
            cells.append(single)
        else:
            if a not in SQUARE_COLOURS or b not in SQUARE_COLOURS or a == b:
                raise ValueError(f"bad diamond ({a}{b}) in {row!r}")
            cells.append((a, b))
        pos = m.end()
    return cells


def squares(card: dict) -> list[str | tuple[str, ...]]:
    """The card's squares in reading order, gaps skipped."""
    return [c for row in card["rows"] for c in parse_row(row) if c is not None]


def load() -> list[dict]:
    with DECK_PATH.open(encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def deck() -> list[dict]:
    return load()


def demand_shares(deck: list[dict]) -> dict[str, Fraction]:
    """Each colour's share of all squares; a diamond counts half to each of its colours."""
    demand = {c: Fraction(0) for c in SQUARE_COLOURS}
    for card in deck:
        for sq in squares(card):
            if isinstance(sq, tuple):
                for c in sq:
                    demand[c] += Fraction(1, 2)
            else:
                demand[sq] += 1
    total = sum(demand.values())
    return {c: demand[c] / total for c in SQUARE_COLOURS}


# ---------------------------------------------------------------------------- the grammar itself


@pytest.mark.parametrize("row, expected", [
    ("RB.", ["R", "B", None]),
    ("(RB)K", [("R", "B"), "K"]),
    (".(YP).", [None, ("Y", "P"), None]),
])
def test_grammar_accepts(row, expected):
    assert parse_row(row) == expected


@pytest.mark.parametrize("row", ["RW", "(RR)", "(RB", "RB)", "r", "R B", "(RBY)", "X", "(R.)"])
def test_grammar_rejects(row):
    with pytest.raises(ValueError):
        parse_row(row)


# ---------------------------------------------------------------------------- shape of the file


def test_ninety_two_cards_with_ids_equal_to_index(deck):
    assert len(deck) == 92
    assert [c["id"] for c in deck] == list(range(92))


def test_one_card_per_line_for_readable_diffs():
    lines = DECK_PATH.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "[" and lines[-1] == "]"
    body = lines[1:-1]
    assert len(body) == 92
    for i, line in enumerate(body):
        card = json.loads(line[:-1] if line.endswith(",") else line)
        assert card["id"] == i
        assert line.endswith(",") == (i < 91)


def test_fields_present_and_typed(deck):
    for card in deck:
        assert set(card) == set(FIELDS), card
        for name, typ in FIELDS.items():
            # bool is an int subclass: refuse it explicitly; no floats anywhere
            assert type(card[name]) is typ, (card["id"], name)
        assert card["title"].strip() == card["title"] and card["title"]
        assert card["painter"].strip() == card["painter"] and card["painter"]
        assert all(type(r) is str for r in card["rows"])


def test_titles_unique(deck):
    titles = [c["title"] for c in deck]
    assert len(set(titles)) == len(titles)


def test_years_are_public_domain_era(deck):
    # real works, all before 1930 (their painters died before 1950)
    for card in deck:
        assert 1400 <= card["year"] < 1930, card


# ---------------------------------------------------------------------------- squares


def test_rows_follow_the_grammar(deck):
    for card in deck:
        rows = card["rows"]
        assert 1 <= len(rows) <= 6, card["id"]
        parsed = [parse_row(r) for r in rows]  # raises on any bad cell
        assert 2 <= max(len(r) for r in parsed) <= 5, card["id"]
        for r in parsed:
            assert 1 <= len(r) <= 5, card["id"]
            assert any(c is not None for c in r), f"card {card['id']}: a row of gaps only"
        assert "W" not in "".join(rows)


def test_square_counts(deck):
    counts = [len(squares(c)) for c in deck]
    assert min(counts) >= 3 and max(counts) <= 16
    assert statistics.mean(counts) == pytest.approx(7.6, abs=0.3)


def test_about_one_diamond_per_card(deck):
    per_card = [sum(isinstance(s, tuple) for s in squares(c)) for c in deck]
    assert 80 <= sum(per_card) <= 104
    assert max(per_card) <= 3
    # "about one per card": most cards carry at least one
    assert sum(1 for d in per_card if d >= 1) >= 70


def test_colour_demand_follows_the_bag(deck):
    shares = demand_shares(deck)
    total = sum(BAG.values())
    for colour, n in BAG.items():
        assert abs(shares[colour] - Fraction(n, total)) <= Fraction(3, 100), colour


# ---------------------------------------------------------------------------- values


def test_stars(deck):
    stars = [c["stars"] for c in deck]
    assert all(0 <= s <= 5 for s in stars)
    assert sum(1 for s in stars if 1 <= s <= 4) >= 0.85 * len(stars)  # mostly 1-4
    assert statistics.mean(stars) == pytest.approx(2.1, abs=0.15)


def test_food(deck):
    food = [c["food"] for c in deck]
    assert all(0 <= f <= 4 for f in food)
    assert statistics.mean(food) == pytest.approx(2.3, abs=0.15)


def test_paint_value(deck):
    paint = [c["paint"] for c in deck]
    assert all(3 <= p <= 15 for p in paint)
    assert statistics.mean(paint) == pytest.approx(9.4, abs=0.3)


def test_comic_books(deck):
    comics = [c for c in deck if c["stars"] == 0]
    assert 4 <= len(comics) <= 6
    rest = [c for c in deck if c["stars"] > 0]
    for c in comics:
        # small pay, decent food: a comic is worth less paint than any real painting
        assert c["paint"] < min(r["paint"] for r in rest), c
        assert c["food"] >= 2, c


def test_values_are_coherent(deck):
    # bigger canvases are worth more; food roughly falls as stars rise
    n = [len(squares(c)) for c in deck]
    stars = [c["stars"] for c in deck]
    paint = [c["paint"] for c in deck]
    food = [c["food"] for c in deck]
    assert statistics.correlation(n, paint) >= 0.7
    assert statistics.correlation(n, stars) >= 0.7
    assert statistics.correlation(stars, food) <= -0.3
    # and no card is wildly off the trend: a tiny canvas is not a masterpiece
    for c, k in zip(deck, n):
        assert c["stars"] <= 1 + k // 3, c
        assert k - 2 <= c["paint"] <= k + 5, c
