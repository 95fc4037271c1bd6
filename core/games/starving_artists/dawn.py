"""Starving Artists: between two days.  The objectives a night's sales reached, the solo end of the
day (the slot-1 canvas leaves, its diamonds' colours chosen), the game's end, and the next day's
start (the marker passes, the Paint Market refills, nutrition drops and an artist may starve)."""

from __future__ import annotations

from typing import Sequence

from .cards import CARDS, Card
from .state import (CI, COLOURS, TARGETS, _W, _filled_counts, _next_alive, _pending_flips, _plural,
                    _shift_market, _sub, _to_bag, card_title, cube_words)

def _note_objectives(w: _W) -> None:
    """Record each objective a seat has reached (2-4 seats), judged at the end of the night's sales
    over all of them together (a night is one moment, decision 27): seat by seat from seat 0, a
    seat's paintings before its points. The announce order plays no part."""
    if w.players not in TARGETS:
        return
    need_sold, need_points = TARGETS[w.players]
    have = {(s, o) for s, o, _ in w.met}
    for seat in range(w.players):
        for obj, reached in (("paintings", len(w.sold[seat]) >= need_sold),
                             ("points", w.score[seat] >= need_points)):
            if reached and (seat, obj) not in have:
                w.met.append((seat, obj, w.day))
                w.event("seat %d meets the %s objective (%s)" % (
                    seat, obj, _plural(need_sold, "painting") if obj == "paintings" else _plural(need_points, "point")))


def _dusk(w: _W) -> None:
    """Solo end of day, the slot-1 canvas face up: ask the artist which colour each diamond uses
    when that choice changes what goes back to the bag; else remove it at once."""
    if w.market[0] != -1 and len(diamond_outcomes(w.paint_market, w.market[0])) > 1:
        return
    _solo_end_of_day(w, None)
    _close_day(w)


def _close_day(w: _W) -> None:
    w.step = ""
    w.actor = -1
    n = w.players
    if n == 1:
        if all(c == -1 for c in w.market) and not _pending_flips(w.pending):
            return _game_over(w, "the canvas market is empty")
    else:
        need_sold, need_points = TARGETS[n]
        _note_objectives(w)     # a state built by hand: no night's sales judged it
        if w.met:
            return _game_over(w, "an artist reached %d paintings or %d points" % (need_sold, need_points))
        if w.starve_day and w.starve_day <= w.day:
            return _game_over(w, "the day after a starvation is over")
    _start_day(w)


def diamond_squares(cid: int) -> list[int]:
    """The diamond (two-colour) squares of a card, in square order."""
    return [i for i, sq in enumerate(CARDS[cid].squares) if len(sq) == 2]


def solo_returns(pm: Sequence[int], cid: int, colours: Sequence[str] | None) -> tuple[int, ...]:
    """The cubes the solo end of day sends from the Paint Market ``pm`` back to the bag for card
    ``cid``: each one-colour square takes one cube of its colour if one is left; then each diamond,
    in square order, one cube of the colour chosen for it (``colours``, one letter per diamond) if one
    is left.  ``colours`` None = the default choice (``default_diamonds``)."""
    card = CARDS[cid]
    back = [0] * 8
    for sq in card.squares:
        if len(sq) == 1:
            i = CI[sq[0]]
            if pm[i] - back[i] > 0:
                back[i] += 1
    if colours is None:
        colours = _default_diamonds(pm, card, back)
    for sq, col in zip([sq for sq in card.squares if len(sq) == 2], colours):
        i = CI[col]
        if pm[i] - back[i] > 0:
            back[i] += 1
    return tuple(back)


def _default_diamonds(pm: Sequence[int], card: Card, back: list[int]) -> list[str]:
    left = [pm[i] - back[i] for i in range(8)]
    out = []
    for sq in card.squares:
        if len(sq) != 2:
            continue
        a, b = CI[sq[0]], CI[sq[1]]
        if left[a] == 0 or left[b] == 0:     # name the missing colour: nothing goes back
            col = a if left[a] == 0 else b
        else:                                # both there: the more plentiful (a tie: the first listed)
            col = a if left[a] >= left[b] else b
            left[col] -= 1
        out.append(COLOURS[col])
    return out


def default_diamonds(pm: Sequence[int], cid: int) -> list[str]:
    """The default colour of each diamond of card ``cid`` at the solo end of day (decision 12)."""
    card = CARDS[cid]
    back = [0] * 8
    for sq in card.squares:
        if len(sq) == 1 and pm[CI[sq[0]]] - back[CI[sq[0]]] > 0:
            back[CI[sq[0]]] += 1
    return _default_diamonds(pm, card, back)


def diamond_outcomes(pm: Sequence[int], cid: int) -> dict[tuple[int, ...], list[str]]:
    """Each distinct return the artist can choose for card ``cid`` -> the first colour list giving it
    (every combination, square order; a card has at most a few diamonds)."""
    out: dict[tuple[int, ...], list[str]] = {}
    combos: list[list[str]] = [[]]
    for i in diamond_squares(cid):
        combos = [c + [x] for c in combos for x in CARDS[cid].squares[i]]
    for c in combos:
        out.setdefault(solo_returns(pm, cid, c), c)
    return out


def _solo_end_of_day(w: _W, colours: Sequence[str] | None) -> None:
    cid = w.market[0]
    if cid == -1:
        return
    pm = w.paint_market
    back = list(solo_returns(pm, cid, colours))
    _sub(pm, back)
    _to_bag(w, back)
    w.discarded.append(cid)
    w.market[0] = -1
    w.event("end of day: %s leaves the canvas market; %s from the Paint Market go back to the bag"
            % (card_title(cid), cube_words(back)))
    _shift_market(w)


def _game_over(w: _W, reason: str) -> None:
    w.phase = "over"
    w.step = ""
    w.actor = -1
    w.offer = None
    w.end_reason = reason
    w.event("game over: %s" % reason)


def _start_day(w: _W) -> None:
    w.day += 1
    d = w.day
    w.events = [e for e in w.events if e[0] >= d - 1][-80:]
    n = w.players
    w.free_used = [False] * n
    w.offer = None
    w.answers = [None] * n
    w.announced = []
    w.first = _next_alive(w.first, w.alive)
    w.event("day %d: seat %d has the first-player marker" % (d, w.first))
    w.pending.append(("market", 4))
    starved = []
    for s in range(n):
        if not w.alive[s]:
            continue
        w.nutrition[s] -= 1
        if w.nutrition[s] < 1:
            w.nutrition[s] = 0
            starved.append(s)
    for s in starved:
        w.alive[s] = False
        w.pending.append(("studio", s))
        for cid, filled in w.canvases[s]:
            _to_bag(w, _filled_counts(filled))
            w.discarded.append(cid)
        w.canvases[s] = []
        w.event("seat %d starves and is out of the game" % s)
    if starved and not w.starve_day:
        w.starve_day = d
    if n == 1 and starved:
        return _game_over(w, "the artist starved")
    if not any(w.alive):
        return _game_over(w, "every artist starved")
    if not w.alive[w.first]:
        w.first = _next_alive(w.first, w.alive)
        w.event("the first-player marker passes to seat %d" % w.first)
    w.phase = "morning"
    w.step = "turn"
    w.actor = w.first
