"""The Modern Art reveal (see cli/screens/__init__.py, "The reveal moment"): sealed bids side by side,
raise rounds "going once, going twice, sold", every sale and a round's end, replayed through the
game's own views (or told from two views); and the same happenings in words for the event log."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from core.games.modern_art import rules as _rules
from core.games.modern_art.auctions import ADD, AUCTIONS, PRICE, SEALED, base_kind, kind_of, step_of
from core.games.modern_art.cards import ARTISTS, N_CARDS

from ..base import Beat, Snapshot
from ..parts import amounts_row, replayed_views, you_in
from ..parts import seat_word as _sw
from ..text import Line, seat_name
from .notation import CODES, _word, card_code
from .panes import artist_chip, chips
from .view import _finished


BEATS_MAX = 24


# --------------------------------------------------------------------------- the reveal


def _sale_words(sale: tuple, me: int | None) -> tuple[str, Line]:
    cards, auct, winner, price, atype = sale
    names = " and ".join(card_code(c) for c in cards if isinstance(c, int) and 0 <= c < N_CARDS)
    if price == 0:
        cap = "%s take%s %s free" % (_sw(winner, me), "" if winner == me else "s", names)
        kinds = [base_kind(st.kind) for st in AUCTIONS[atype].steps] if atype in AUCTIONS else []
        if kinds[:1] == [ADD]:
            cap += " (nobody added a second card)"
        elif winner == auct and PRICE not in kinds:       # a price named is not "no bids"
            cap += " (no bids)"
    elif winner == auct:
        cap = "SOLD: %s buy%s %s for %d, paid to the bank" % (_sw(winner, me), "" if winner == me else "s", names, price)
    else:
        cap = "SOLD: %s buy%s %s for %d, paid to %s" % (_sw(winner, me), "" if winner == me else "s", names, price,
                                                       _sw(auct, me))
    mid: Line = [("", "  ")] + chips(list(cards)) + [("", "  %s by %s" % (_word(atype, "name"), _sw(auct, me)))]
    return cap, mid


def _round_beats(r: tuple, me: int | None, players: int) -> list[Beat]:
    rnd, played, tiles, values, pay, ender, reason, unsold, bought, sales = r
    beats: list[Beat] = []
    ranked = _rules.ranking_of(played)
    mid: list[Line] = []
    line: Line = [("class:label", "  cards played:")]
    for a in ranked:
        if played[a]:
            line += [("", "  ")] + artist_chip(a) + [("", " %d" % played[a])]
    if any(not played[a] for a in range(5)):
        line.append(("class:label", "  (%s: none)" % " ".join(CODES[a] for a in range(5) if not played[a])))
    mid.append(line)
    if unsold:
        mid.append([("class:label", "  not auctioned: ")] + chips(list(unsold)))
    beats.append(Beat("Round %d ends: %s" % (rnd, you_in(reason, me)), None, mid))
    mid = []
    for place, a in enumerate(ranked[:3]):
        if tiles[a]:
            mid.append([("", "  %d. " % (place + 1))] + artist_chip(a) +
                       [("", " %s gets the %d tile: a painting is worth " % (ARTISTS[a], tiles[a])),
                        ("class:tile", "%d" % values[a])])
    zero = [a for a in range(5) if not tiles[a]]
    if zero:
        mid.append([("class:label", "  worth 0 this round: %s" % ", ".join(ARTISTS[a] for a in zero))])
    beats.append(Beat("Round %d ranking: the top three get 30, 20 and 10" % rnd, None, mid))
    mid = []
    for s in range(players):
        k = len(bought[s]) if s < len(bought) else 0
        line = [("class:you" if s == me else "", "  %-13s +%d" % (seat_name(s, me), pay[s]))]
        if k:
            line.append(("class:label", "  for "))
            line += chips(list(bought[s]), " ")
        else:
            line.append(("class:label", "  (bought nothing)"))
        mid.append(line)
    beats.append(Beat("Round %d payouts: the bank buys every painting bought this round" % rnd, None, mid, hold=2))
    return beats


# what the deal adds to a view (dealt.py): every other key moves only with the rules
_DEAL_KEYS = ("label", "waiting", "deal", "result")


def _replay_beats(before_state: Any, game: Any, moves: Sequence[tuple], me: int | None) -> list[Beat] | None:
    """Replay ``moves`` from ``before_state`` with the game's own rules and tell what happened, from the
    public views it passes through: sealed bids opening side by side, open-auction raise rounds, sales,
    round ends.  None if it cannot."""
    try:
        steps = list(replayed_views(game, before_state, moves, _DEAL_KEYS))
    except Exception:
        return None
    beats: list[Beat] = []
    batch: dict[int, int] = {}
    b0: Mapping | None = None             # the view the round of sealed answers was asked in
    for seat, action, pv, v in steps:
        n = pv.get("players", 0)
        pa, a = pv.get("auction") or {}, v.get("auction") or {}
        step = step_of(pv.get("phase"))
        if step is not None and step.simultaneous:
            if b0 is None:
                b0 = pv
            do = action.get("do") if isinstance(action, Mapping) else None
            batch[seat] = action.get("amount", 0) if do == "bid" else 0
        new_rounds = (v.get("rounds") or [])[len(pv.get("rounds") or []):]
        sales_after = (new_rounds[0].get("sales") or []) if new_rounds else (v.get("sales") or [])
        new_sales = [_sale_tuple(x) for x in sales_after[len(pv.get("sales") or []):]]
        resolved = b0 is not None and (v.get("phase") != pv.get("phase") or a.get("open_round", 0)
                                       != pa.get("open_round", 0) or new_sales or new_rounds)
        if resolved:
            beats += _answers_beats(b0, batch, new_sales[:1], a.get("high_bidder"), me)
            new_sales = new_sales[1:]           # told with the answers
            batch, b0 = {}, None
        for sale in new_sales:
            cap, mid = _sale_words(sale, me)
            beats.append(Beat(cap, None, [mid]))
        for r in new_rounds:
            beats += _round_beats(_round_tuple(r), me, n)
    return beats


def _answers_beats(bv: Mapping, batch: Mapping[int, int], sale: list, leader: Any, me: int | None) -> list[Beat]:
    """A round of sealed answers opened (``bv``: the view it was asked in; ``batch``: seat -> amount, 0 for
    a pass; ``sale``: the sale it closed, if it did): sealed bids side by side, then the sale; or an open
    auction's raise round, "going once, going twice", sold."""
    b0 = bv.get("auction") or {}
    n = bv.get("players", 0)
    asked = list(b0.get("asked") or [])
    high, hb, auct = b0.get("high", 0), b0.get("high_bidder"), b0.get("auctioneer")
    head: Line = [("", "  ")] + chips(list(b0.get("cards") or [])) + [
        ("", "  %s by %s" % (_word(b0.get("type"), "name"), _sw(auct, me)))]
    beats: list[Beat] = []
    if kind_of(bv.get("phase")) == SEALED:
        winner = sale[0][2] if sale else None
        top = max([batch.get(s, 0) for s in asked] or [0])
        beats.append(Beat("The sealed bids open", None, [head, amounts_row(batch, asked, n, me, None, "no bid")]))
        if sale:
            cap, _ = _sale_words(sale[0], me)
            tied = [s for s in asked if top and batch.get(s, 0) == top]
            mid = [head, amounts_row(batch, asked, n, me, winner, "no bid")]
            if len(tied) > 1:
                mid.append([("class:label", "  a tie at %d: %s, as %s" % (
                    top, _sw(winner, me), "the auctioneer" if winner == auct
                    else "the nearest clockwise from the auctioneer"))])
            beats.append(Beat(cap, None, mid, hold=2))
        return beats
    raised = [s for s in asked if batch.get(s, 0) > high]
    stand = "standing bid %d by %s" % (high, _sw(hb, me)) if hb is not None else "no bid yet"
    title = "%s, raise round %d" % (_word(b0.get("type"), "name").capitalize(), b0.get("open_round", 0))
    if raised:
        top = max(batch[s] for s in raised)
        leader = sale[0][2] if sale else leader
        mid = [head, [("class:label", "  before the round: %s" % stand)], amounts_row(batch, asked, n, me, leader, "pass")]
        tied = [s for s in raised if batch.get(s, 0) == top]
        if len(tied) > 1:
            mid.append([("class:label", "  a tie at %d: %s leads, as %s" % (
                top, _sw(leader, me), "the auctioneer" if leader == auct
                else "the nearest clockwise from the auctioneer"))])
        beats.append(Beat("%s: %s leads with %d" % (title, _sw(leader, me), top), None, mid))
        if sale:
            cap, _ = _sale_words(sale[0], me)
            beats.append(Beat(cap, None, [head, [("class:label", "  nobody else has more money than %d" % top)]],
                              hold=2))
        return beats
    row = amounts_row(batch, asked, n, me, None, "pass")
    beats.append(Beat("%s: nobody raises - going once..." % title, None, [head, [("class:label", "  %s" % stand)], row]))
    beats.append(Beat("... going twice ...", None, [head, [("bold", "  %s" % stand)]]))
    if sale:
        cap, _ = _sale_words(sale[0], me)
        beats.append(Beat(cap, None, [head], hold=2))
    return beats


def _view_sales(v: Mapping) -> tuple[int, list]:
    """(number of finished rounds, this round's sales) of a view."""
    return _finished(v), list(v.get("sales") or [])


def _sale_tuple(x: Mapping) -> tuple:
    return (tuple(x.get("cards") or ()), x.get("auctioneer"), x.get("winner"), x.get("price", 0), x.get("type", ""))


def _round_tuple(r: Mapping) -> tuple:
    return (r.get("round"), r.get("played"), r.get("tiles"), r.get("values"), r.get("payouts"), r.get("ender"),
            r.get("reason", ""), r.get("unsold") or [], r.get("bought") or [], [_sale_tuple(x) for x in r.get("sales") or []])


def _new_happenings(bv: Mapping, v: Mapping):
    """The sales and finished rounds from view ``bv`` to view ``v``, in order: ("sale", sale) and
    ("round", round record) pairs (the sales of a round that ended since are its record's)."""
    b_done, b_sales = _view_sales(bv)
    done, sales = _view_sales(v)
    if done > b_done:
        rounds = (v.get("rounds") or [])[b_done:done]
        first = (rounds[0].get("sales") or []) if rounds else []
        for x in first[len(b_sales):]:
            yield "sale", x
        for r in rounds:
            yield "round", r
        b_sales = []
    for x in sales[len(b_sales):]:
        yield "sale", x


def _diff_beats(bv: Mapping, v: Mapping, me: int | None) -> list[Beat]:
    """Without the moves: the new sales and finished rounds, from two views."""
    beats: list[Beat] = []
    n = v.get("players", 0)
    for kind, x in _new_happenings(bv, v):
        if kind == "sale":
            cap, mid = _sale_words(_sale_tuple(x), me)
            beats.append(Beat(cap, None, [mid]))
        else:
            beats += _round_beats(_round_tuple(x), me, n)
    return beats


def happening_words(bv: Mapping, v: Mapping) -> list[str]:
    """The sales and round ends from ``bv`` to ``v`` in words for the event log ("seat N": the shell
    says the names, and "(you)")."""
    out: list[str] = []
    n = v.get("players", 0)
    for kind, x in _new_happenings(bv, v):
        if kind == "sale":
            out.append(_sale_words(_sale_tuple(x), None)[0])
        else:
            pay = list(x.get("payouts") or [])
            out.append("round %s ends: %s; the bank pays %s" % (
                x.get("round", "?"), x.get("reason", ""),
                ", ".join("seat %d +%d" % (s, pay[s]) for s in range(min(n, len(pay)))) or "nothing"))
    return out


def reveal_beats(snap: Snapshot | None, before: Snapshot | None, me: int | None) -> list[Beat]:
    """What happened between ``before`` and ``snap``, beat by beat."""
    if snap is None or before is None or not isinstance(snap.view, Mapping) or not isinstance(before.view, Mapping):
        return []
    moves = [m for m in snap.moves_tail if m[0] >= before.moves]
    beats = None
    if moves and moves[0][0] == before.moves and snap.game is not None and before.state is not None:
        beats = _replay_beats(before.state, snap.game, moves, me)
    if beats is None:
        beats = _diff_beats(before.view, snap.view, me)
    return beats[-BEATS_MAX:]
