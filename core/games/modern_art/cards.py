"""The 70 Modern Art painting cards, as data.

Card ids are 0..69, artist by artist in board order, and within an artist by
auction type in the order of ``TYPES``.  ``CARDS[i]`` is ``(artist index,
auction type)``; the board order is also the tie-break order of the round
ranking (the leftmost artist wins a tie).

Counts per artist: Manuel Carvalho 12, Sigrid Thaler 13, Daniel Melim 15,
Ramon Martins 15, Rafael Silveira 15 (the implementation plan's counts, which
the issue adopts; the printed 2017 rulebook lists 12/13/14/15/16).  Auction
types per artist, as the issue gives them for the classic deck (no printed
card list was found to contradict it):

    12 cards: open 3, once around 3, sealed 2, fixed price 2, double 2
    13 cards: open 3, once around 2, sealed 3, fixed price 3, double 2
    15 cards: 3 of each type
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = [
    "ARTISTS", "ARTIST_KEYS", "TYPES", "TYPE_NAMES", "SPLIT", "Card", "CARDS", "N_CARDS",
    "artist_of", "type_of", "card_view", "card_name", "COUNT_BY_ARTIST", "retype",
]

ARTISTS = ("Manuel Carvalho", "Sigrid Thaler", "Daniel Melim", "Ramon Martins", "Rafael Silveira")
ARTIST_KEYS = ("carvalho", "thaler", "melim", "martins", "silveira")
TYPES = ("open", "once_around", "sealed", "fixed_price", "double")
TYPE_NAMES = {
    "open": "open auction",
    "once_around": "once-around auction",
    "sealed": "sealed auction",
    "fixed_price": "fixed-price auction",
    "double": "double auction",
}
# per artist (board order): count of each type in TYPES order
SPLIT = (
    (3, 3, 2, 2, 2),
    (3, 2, 3, 3, 2),
    (3, 3, 3, 3, 3),
    (3, 3, 3, 3, 3),
    (3, 3, 3, 3, 3),
)


class Card(NamedTuple):
    id: int
    artist: int      # 0..4, board order
    type: str        # one of TYPES


def _build() -> tuple[Card, ...]:
    out = []
    for a, counts in enumerate(SPLIT):
        for t, k in zip(TYPES, counts):
            for _ in range(k):
                out.append(Card(len(out), a, t))
    return tuple(out)


_PRINTED: tuple[Card, ...] = _build()
CARDS: tuple[Card, ...] = _PRINTED
N_CARDS = len(CARDS)
COUNT_BY_ARTIST = tuple(sum(c) for c in SPLIT)
_ARTIST = tuple(c.artist for c in CARDS)
_TYPE = tuple(c.type for c in CARDS)

assert N_CARDS == 70 and COUNT_BY_ARTIST == (12, 13, 15, 15, 15)


def retype(types: dict[int, str]) -> None:
    """The deck with other auction types on some cards (card id -> type; {}: the printed deck).  Only
    ``auctions.register`` calls it (a test's or a variant's new auction type); read a card's type with
    ``type_of``/``card_view``/``cards.CARDS`` (a name imported before this is the printed deck)."""
    global CARDS, _TYPE
    CARDS = tuple(c._replace(type=types.get(c.id, c.type)) for c in _PRINTED)
    _TYPE = tuple(c.type for c in CARDS)


def artist_of(card: int) -> int:
    return _ARTIST[card]


def type_of(card: int) -> str:
    return _TYPE[card]


def card_view(card: int) -> dict:
    c = CARDS[card]
    return {"id": c.id, "artist": c.artist, "artist_name": ARTISTS[c.artist], "type": c.type}


def card_name(card: int) -> str:
    c = CARDS[card]
    return "%s (%s, card %d)" % (ARTISTS[c.artist], TYPE_NAMES[c.type], c.id)
