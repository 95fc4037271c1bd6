"""What the Modern Art screen reads from a view: money, rounds, values, whose move it is and an
auction step's words filled in (``_say``), this round's purchases; and whether a card play ends the
round (for the event log)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from core.games.modern_art import rules as _rules
from core.games.modern_art.auctions import step_of
from core.games.modern_art.cards import ARTISTS, N_CARDS, artist_of

from ..parts import seat_word as _sw
from ..text import with_names
from .notation import CODES, lot_words


# --------------------------------------------------------------------------- reading the view


def _money_of(v: Mapping, me: int | None) -> int | None:
    if me is None or not isinstance(v.get("money"), list) or not 0 <= me < len(v["money"]):
        return None
    return v["money"][me]


def _finished(v: Mapping) -> int:
    return len(v.get("rounds") or [])


def _cumulative(v: Mapping) -> list[int]:
    """Each artist's tiles over the finished rounds."""
    board = v.get("board") or []
    done = min(_finished(v), len(board))
    return [sum(board[r][a] for r in range(done)) for a in range(5)]


def _worth_now(v: Mapping) -> list[int]:
    """What a painting of each artist would sell for if the round ended now (the rules' own arithmetic)."""
    if v.get("phase") == "over":
        return [0] * 5
    try:
        tiles = _rules.tiles_of(v["played"])
        return list(_rules.values_of(v["board"], v["round"], tiles))
    except Exception:
        return [0] * 5


def _fields(v: Mapping, me: int | None) -> dict:
    """What an auction step's words name in braces (auctions.Words), from the view."""
    a = v.get("auction") or {}
    cards = list(a.get("cards") or [])
    first = cards[0] if cards else None
    high, hb = a.get("high", 0), a.get("high_bidder")
    seats = {"actor": _sw(v.get("actor"), me), "auctioneer": _sw(a.get("auctioneer"), me),
             "opener": _sw(a.get("opener"), me)}
    return dict(seats, **{k.capitalize(): w.capitalize() for k, w in seats.items()},
                money=_money_of(v, me), high=high, low=high + 1, price=a.get("price") or high,
                round=a.get("open_round", "?"), lot=lot_words(cards),
                artist=ARTISTS[artist_of(first)] if isinstance(first, int) and 0 <= first < N_CARDS else "card",
                stand="standing bid %d by %s" % (high, _sw(hb, me)) if hb is not None else "no bid yet",
                bid="bid above %d or pass" % high if hb is not None else "bid or pass")


def _say(v: Mapping, me: int | None, words: str) -> str:
    return words.format(**_fields(v, me))


_DEAL_STEPS = ("keys", "shuffle", "deal", "check")   # the deal's automatic steps: its label shows its progress


def _dealing(v: Mapping) -> bool:
    """The deal's automatic steps are under way: hands are counted, their new cards not known yet, and
    nobody plays a card before they are (the auctioneer drawn already only waits)."""
    return (v.get("deal") or {}).get("stage") in _DEAL_STEPS


def _doing(v: Mapping, me: int | None, names: Sequence[str] = ()) -> str:
    """Whose decision it is, in a few words, the seats by name if ``names`` (the genesis's)."""
    return with_names(_doing_words(v, me), names)


def _doing_words(v: Mapping, me: int | None) -> str:
    """Whose decision it is, in a few words (during the deal: how far it is, the table's label)."""
    if _dealing(v) and v.get("label"):
        return str(v["label"]).replace("the deal: ", "deal: ", 1)
    shown = (v.get("deal") or {}).get("open")
    if isinstance(shown, Mapping):
        # the card play is bound; the seat's peer shows the card(s) now (an automatic step)
        k = len(shown.get("positions") or [])
        if shown.get("seat") == me:
            return "showing your card%s" % ("s" if k > 1 else "")
        return "%s shows the card%s" % (_sw(shown.get("seat"), me), "s" if k > 1 else "")
    ph = v.get("phase")
    actor = v.get("actor")
    step = step_of(ph)
    if ph == "over":
        return "game over"
    if ph == "play":
        return "your turn to auction" if actor == me else "%s auctions" % _sw(actor, me)
    return _say(v, me, step.words.doing[0 if actor == me else 1]) if step is not None else ""


def _purchases(v: Mapping, s: int) -> list[tuple[list[int], int]]:
    """Seat ``s``'s purchases this round: (cards, price) from this round's sales."""
    out = []
    for x in v.get("sales") or []:
        if x.get("winner") == s:
            out.append((list(x.get("cards") or []), x.get("price", 0)))
    return out


def _bought_cell(v: Mapping, s: int, w: int) -> str:
    cards = (v.get("bought") or [[]] * (s + 1))[s]
    if not cards:
        return "-"
    counts = [0] * 5
    for c in cards:
        if isinstance(c, int) and 0 <= c < N_CARDS:
            counts[artist_of(c)] += 1
    # "Ma×2": two Ramon Martins paintings (the ×: never read as a card's short name, "Ma1" once around)
    text = " ".join("%s×%d" % (CODES[a], k) for a, k in enumerate(counts) if k)
    if len(text) <= w:
        return text
    text = "%d paintings" % len(cards)
    return text if len(text) <= w else "%d paint." % len(cards)


def _ends_round(game: Any, state: Any, cards: Sequence[int]) -> int | None:
    """The artist whose 5th card this round is among ``cards`` (played in ``state``, by its view), else None."""
    try:
        played = game.view(state, None).get("played")
    except Exception:
        return None
    if not isinstance(played, (tuple, list)) or len(played) != 5:
        return None
    count = list(played)
    for c in cards:
        a = artist_of(c)
        count[a] += 1
        if count[a] >= 5:
            return a
    return None
