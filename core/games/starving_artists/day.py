"""Starving Artists: a turn of the day.  The main action (work, buy, paint) and the free one (trade,
reset, colour study, a trade offer to the others) checked and applied, the offer's answers
resolved, and the turn passed on (to the next artist, the afternoon, or the night)."""

from __future__ import annotations

from typing import Mapping

from ...engine import IllegalAction
from .cards import CARDS
from .night import _start_night
from .state import (CI, COLOUR_NAME, COLOURS, TRADE_RATES, WILD, State, _W, _add, _card_id, _colour, _cubes,
                    _int, _junior_overflow, _keys, _must_hold, _next_alive, _pay, _pending_flips, _plural,
                    _queue_flip, _shift_market, _short, _sub, card_title, counts_of, cube_words, cubes_map)

def _end_turn(w: _W) -> None:
    nxt = _next_alive(w.actor, w.alive)
    if nxt != w.first:
        w.actor = nxt
        w.step = "turn"
        return
    if w.phase == "morning":
        w.phase = "afternoon"
        w.actor = w.first
        w.step = "turn"
        return
    _start_night(w)


# --------------------------------------------------------------------------
# checking a turn's actions


def _check_main(s: State | _W, seat: int, action: dict) -> dict:
    do = action["do"]
    studio = s.studios[seat]
    if do == "work":
        _keys(action, ("do", "then"), "work")
        return {"do": "work"}
    if do == "buy":
        _keys(action, ("do", "slot", "pay", "then"), "buy")
        slot = _int(action.get("slot"), "slot", 1, 3)
        cid = s.market[slot - 1]
        if cid == -1:
            raise IllegalAction("slot %d of the canvas market is empty" % slot)
        cost = 1 if s.config["edition"] == "junior" else slot
        if "pay" not in action:
            raise IllegalAction("say which cubes pay for %s: pay = %s, e.g. {\"R\": %d}"
                                % (card_title(cid), _plural(cost, "cube"), cost))
        pay = _cubes(action["pay"], "pay for %s (slot %d)" % (card_title(cid), slot), cost, cost)
        _must_hold(studio, pay)
        return {"do": "buy", "slot": slot, "pay": cubes_map(pay)}
    # paint
    _keys(action, ("do", "place", "then"), "paint")
    place = action.get("place")
    if not isinstance(place, list) or not 1 <= len(place) <= 4:
        raise IllegalAction("place must be a list of 1 to 4 placements [canvas id, square, colour], not %s"
                            % _short(place))
    mine = {cid: f for cid, f in s.canvases[seat]}
    used = [0] * 8
    seen = set()
    new_wild: dict[int, int] = {}
    out = []
    for p in place:
        if not isinstance(p, list) or len(p) != 3:
            raise IllegalAction("a placement is [canvas id, square, colour], not %s" % _short(p))
        cid = _card_id(p[0], "a placement's canvas")
        if cid not in mine:
            raise IllegalAction("canvas %d (%s) is not one of your canvases" % (cid, card_title(cid)))
        card = CARDS[cid]
        sq = p[1]
        if type(sq) is not int or not 0 <= sq < card.size:
            raise IllegalAction("%s has squares 0 to %d, not %s" % (card_title(cid), card.size - 1, _short(sq)))
        col = _colour(p[2], "the colour of square %d of %s" % (sq, card_title(cid)))
        if (cid, sq) in seen:
            raise IllegalAction("square %d of %s is painted twice in one action" % (sq, card_title(cid)))
        seen.add((cid, sq))
        if mine[cid][sq] != ".":
            raise IllegalAction("square %d of %s already holds a %s cube"
                                % (sq, card_title(cid), COLOUR_NAME[mine[cid][sq]]))
        if col == WILD:
            new_wild[cid] = new_wild.get(cid, 0) + 1
            if new_wild[cid] + (1 if "W" in mine[cid] else 0) > 1:
                raise IllegalAction("a canvas holds at most one wild cube (%s)" % card_title(cid))
        elif not card.masks[sq] >> col & 1:
            raise IllegalAction("square %d of %s takes %s, not %s" % (
                sq, card_title(cid), " or ".join(COLOUR_NAME[c] for c in card.squares[sq]),
                COLOUR_NAME[COLOURS[col]]))
        used[col] += 1
        out.append([cid, sq, COLOURS[col]])
    _must_hold(studio, used)
    return {"do": "paint", "place": out}


def _check_free(s: State | _W, seat: int, action: dict, after_main: bool = False) -> dict:
    do = action["do"]
    cfg = s.config
    if "then" in action:
        raise IllegalAction("only a main action (work, buy, paint) can carry a free action in 'then'")
    if s.free_used[seat]:
        raise IllegalAction("you already used your free action today")
    studio = s.studios[seat]
    pm = s.paint_market
    if do == "trade":
        _keys(action, ("do", "give", "take"), "trade")
        give = _cubes(action.get("give"), "give", 1, 150)
        take = _cubes(action.get("take"), "take", 0, 150)
        ng = sum(give)
        if ng not in TRADE_RATES:
            raise IllegalAction("the Paint Market trades 2 cubes for 1, 5 for 2 or 9 for 3; you gave %d" % ng)
        if sum(take) != TRADE_RATES[ng]:
            raise IllegalAction("giving %d cubes takes exactly %s from the Paint Market, not %d"
                                % (ng, _plural(TRADE_RATES[ng], "cube"), sum(take)))
        if take[WILD]:
            raise IllegalAction("you cannot take a wild cube from the Paint Market")
        _must_hold(studio, give)
        _must_hold(pm, take, "the Paint Market has")
        return {"do": "trade", "give": cubes_map(give), "take": cubes_map(take)}
    if do == "reset":
        _keys(action, ("do", "pay"), "reset")
        if len(s.deck) <= _pending_flips(s.pending):
            raise IllegalAction("the deck is empty: a reset would turn over no new canvases")
        pay = _cubes(action.get("pay"), "pay for the reset", 2, 2)
        _must_hold(studio, pay)
        return {"do": "reset", "pay": cubes_map(pay)}
    if do == "study":
        _keys(action, ("do", "give", "take"), "study")
        if not cfg["color_study"]:
            raise IllegalAction("the Color Study option is off at this table")
        g = _colour(action.get("give"), "give (the colour of the 4 cubes)")
        t = _colour(action.get("take"), "take (the colour you take from the bag)")
        if studio[g] < 4:
            raise IllegalAction("a colour study needs 4 %s cubes; you have %d" % (COLOUR_NAME[COLOURS[g]], studio[g]))
        if any(op[0] != "canvas" for op in s.pending):
            raise IllegalAction("a colour study reads the bag, which still owes this turn's draws: "
                                "study before you work, or on a later turn")
        if s.bag[t] < 1:
            raise IllegalAction("the bag has no %s cube" % COLOUR_NAME[COLOURS[t]])
        return {"do": "study", "give": COLOURS[g], "take": COLOURS[t]}
    # offer
    _keys(action, ("do", "give", "take"), "offer")
    if not cfg["player_trades"]:
        raise IllegalAction("the Player trades option is off at this table")
    if not any(s.alive[o] for o in range(s.players) if o != seat):
        raise IllegalAction("there is no other artist to trade with")
    give = _cubes(action.get("give"), "give", 1, 9)
    take = _cubes(action.get("take"), "take", 1, 9)
    _must_hold(studio, give)
    return {"do": "offer", "give": cubes_map(give), "take": cubes_map(take)}


class _After(_W):
    """The scratch state after a main action, to check its ``then``."""

    __slots__ = ()


def _after_main(state: State, seat: int, main: dict) -> _After:
    a = _After(state)
    _do_main(a, seat, main)
    return a


# --------------------------------------------------------------------------
# applying them


def _do_main(w: _W, seat: int, a: Mapping) -> None:
    do = a["do"]
    if do == "work":
        w.pending.append(("cubes", seat, 3))
        w.event("seat %d works (3 cubes from the bag, arriving after the turn)" % seat)
    elif do == "buy":
        slot = a["slot"]
        pay = counts_of(a["pay"])
        cid = w.market[slot - 1]
        _sub(w.studios[seat], pay)
        _pay(w, pay)            # the payment first, then the flip into slot 3 (decision 23, both editions)
        w.canvases[seat].append((cid, "." * CARDS[cid].size))
        w.market[slot - 1] = -1
        w.event("seat %d buys %s from slot %d for %s" % (seat, card_title(cid), slot, cube_words(pay)))
        _shift_market(w)
    else:
        cs = w.canvases[seat]
        idx = {cid: i for i, (cid, _) in enumerate(cs)}
        studio = w.studios[seat]
        for cid, sq, col in a["place"]:
            i = idx[cid]
            f = cs[i][1]
            cs[i] = (cid, f[:sq] + col + f[sq + 1:])
            studio[CI[col]] -= 1
        w.event("seat %d paints %s" % (seat, ", ".join("%s on square %d of %s" % (col, sq, card_title(cid))
                                                       for cid, sq, col in a["place"])))


def _do_free(w: _W, seat: int, a: Mapping, ends_turn: bool) -> None:
    do = a["do"]
    w.free_used[seat] = True
    if do == "trade":
        give, take = counts_of(a["give"]), counts_of(a["take"])
        _sub(w.studios[seat], give)
        _add(w.studios[seat], take)
        _sub(w.paint_market, take)
        _add(w.paint_market, give)
        w.event("seat %d trades %s for %s with the Paint Market" % (seat, cube_words(give), cube_words(take)))
        _junior_overflow(w)
    elif do == "reset":
        pay = counts_of(a["pay"])
        _sub(w.studios[seat], pay)
        _pay(w, pay)
        if _pending_flips(w.pending):
            # after a buy in the same move: its new card is turned over first, then discarded with the rest
            w.pending.append(("reset",))
        else:
            gone = [c for c in w.market if c != -1]
            w.discarded.extend(gone)
            w.market = [-1, -1, -1]
        for slot in (1, 2, 3):
            _queue_flip(w, slot)
        w.event("seat %d pays %s to reset the canvas market" % (seat, cube_words(pay)))
    elif do == "study":
        g, t = CI[a["give"]], CI[a["take"]]
        w.studios[seat][g] -= 4
        w.paint_market[g] += 4
        w.bag[t] -= 1
        w.studios[seat][t] += 1
        w.event("seat %d studies colour: 4 %s to the Paint Market, 1 %s from the bag"
                % (seat, a["give"], a["take"]))
        _junior_overflow(w)
    else:
        give, take = counts_of(a["give"]), counts_of(a["take"])
        w.offer = (seat, give, take, ends_turn)
        w.answers = [None] * w.players
        w.step = "answer"
        w.event("seat %d offers %s for %s to the other artists" % (seat, cube_words(give), cube_words(take)))


def _resolve_offer(w: _W) -> None:
    off, give, take, ends_turn = w.offer
    n = w.players
    partner = -1
    for k in range(1, n):
        s = (off + k) % n
        if w.alive[s] and w.answers[s] and all(w.studios[s][i] >= take[i] for i in range(8)):
            partner = s
            break
    if partner >= 0:
        _sub(w.studios[off], give)
        _add(w.studios[partner], give)
        _sub(w.studios[partner], take)
        _add(w.studios[off], take)
        w.event("seat %d accepts seat %d's offer: %s for %s" % (partner, off, cube_words(give), cube_words(take)))
    else:
        w.event("no one accepts seat %d's offer" % off)
    w.offer = None
    w.answers = [None] * n
    w.step = "turn"
    w.actor = off
    if ends_turn:
        _end_turn(w)
