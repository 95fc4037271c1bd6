"""What the next step costs a seat if nothing changes (a pure hook: the seat's view in, sentences out).

The game's ``warnings`` hook (``ModernArtGame.warnings``, core/games/modern_art/game.py).  From RULES.md:
"The 5th card of an artist played in a round ends the round at once" (it is not
auctioned); a bid above the bidder's money is refused.  An auction step is told by what it asks (its kind,
auctions.py), never by its phase's name: a raise the seat cannot make, a price it cannot pay.
"""

from __future__ import annotations

from typing import Any, Mapping

from .auctions import BUY, RAISE, RAISE_OR_OUT, kind_of, step_of
from .cards import ARTISTS

__all__ = ["warnings"]

ROUND_ENDS_AT = 5


def warnings(view: Any, seat: int | None) -> list[str]:
    if not isinstance(view, Mapping) or seat is None or view.get("phase") == "over" or view.get("result"):
        return []
    out: list[str] = []
    try:
        money = view["money"][seat]
        played = list(view.get("played") or [])
    except (KeyError, IndexError, TypeError):
        return []
    auction = view.get("auction")
    step = step_of(view.get("phase"))
    if isinstance(auction, Mapping) and auction.get("auctioneer") != seat and step is not None:
        high = auction.get("high") or 0
        price = auction.get("price")
        kind = kind_of(view.get("phase"))
        if kind in (RAISE, RAISE_OR_OUT) and high >= money and auction.get("high_bidder") != seat or \
                kind == BUY and price is not None and price > money:
            out.append(step.words.cannot.format(high=high, price=price, money=money))
    choosing = (view.get("deal") or {}).get("stage") != "open"     # during the open the card is chosen already
    if view.get("phase") == "play" and view.get("actor") == seat and choosing:
        ending = [ARTISTS[a] for a, k in enumerate(played) if k == ROUND_ENDS_AT - 1 and a < len(ARTISTS)]
        if ending:
            out.append("A card of %s ends the round at once (4 played) and is not auctioned."
                       % " or ".join(ending))
    return out
