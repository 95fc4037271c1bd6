"""What the Modern Art screen draws: cards as blocks in their artists' colours, the value board, your
hand, the auction under way (drawn by its step's kind, in its record's words), this round, the round
summaries and the result."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from core.games.modern_art import rules as _rules
from core.games.modern_art.auctions import ADD, BUY, PRICE, RAISE, RAISE_OR_OUT, SEALED, kind_of, step_of
from core.games.modern_art.cards import ARTISTS, N_CARDS, artist_of, type_of

from ..parts import answers, flow, name_width, order_line, you_in
from ..parts import seat_word as _sw
from ..text import Line, seat_name, who, width_of, wrap
from .notation import CODES, _word, card_code, hand_order, legend
from .view import _cumulative, _dealing, _doing, _fields, _finished, _money_of, _purchases, _worth_now


BOARD_W = 44
NAME_W = 15
PIP_ON, PIP_OFF = "●", "○"


def chip(card: Any) -> Line:
    """A card as a block in its artist's colour with its short name: [(class:art.2, " MeS ")]."""
    if not isinstance(card, int) or not 0 <= card < N_CARDS:
        return [("class:label", " ?? ")]
    return [("class:art.%d" % artist_of(card), " %s " % card_code(card))]


def artist_chip(a: int) -> Line:
    return [("class:art.%d" % a, " %s " % CODES[a])]


def chips(cards: Sequence[int], sep: str = "+") -> Line:
    out: Line = []
    for i, c in enumerate(cards):
        if i:
            out.append(("", sep))
        out += chip(c)
    return out


# --------------------------------------------------------------------------- drawing


def _tile_text(t: int) -> str:
    return "%d" % t if t else "·"


def board_pane(v: Mapping | None, me: int | None, names: Sequence[str] = ()) -> list[Line]:
    """The value board: each artist's tiles per round, cumulative value, cards played this round."""
    if not isinstance(v, Mapping):
        return [[("class:header", "Modern Art")], [("class:label", "waiting for the table...")]]
    over = v.get("phase") == "over"
    rnd = v.get("round", 1)
    done = _finished(v)
    if over:
        head: Line = [("class:phase", " GAME OVER "), ("", " after round %d" % done)]
    else:
        head = [("class:phase", " ROUND %d/%d " % (rnd, _rules.ROUNDS)), ("", " ")]
        doing = _doing(v, me, names)
        step = step_of(v.get("phase"))
        mine = v.get("actor") == me and me is not None or (
            me is not None and step is not None and step.simultaneous and me in (v.get("waiting") or []))
        head.append(("class:yourmove" if mine else "class:waiting", doing[: BOARD_W - width_of(head)]))
    lines: list[Line] = [head]
    hdr: Line = [("class:label", "%-*s" % (4 + 1 + NAME_W, "Artist (board order)"))]
    for r in range(1, _rules.ROUNDS + 1):
        hdr.append(("class:now" if r == rnd and not over else "class:label", "%3s" % ("r%d" % r)))
    hdr.append(("class:label", "  sum  now"))
    lines.append(hdr)
    board = v.get("board") or [[0] * 5] * _rules.ROUNDS
    cum = _cumulative(v)
    played = v.get("played") or [0] * 5
    for a in range(5):
        line: Line = artist_chip(a) + [("", " "), ("class:artfg.%d" % a, ARTISTS[a][:NAME_W].ljust(NAME_W))]
        for r in range(_rules.ROUNDS):
            if r < done:
                t = board[r][a]
                line.append(("class:tile" if t else "class:label", "%3s" % _tile_text(t)))
            else:
                line.append(("", "   "))
        line.append(("bold", " %4d " % cum[a]))
        k = max(0, min(5, played[a] if not over else 0))
        line.append(("class:warn" if k >= 4 else "", PIP_ON * k + PIP_OFF * (5 - k)))
        lines.append(line)
    money = _money_of(v, me)
    if me is None and over:
        tail = "spectating: all money revealed (below)"
    elif me is None:
        tail = "spectating: money stays behind the screens"
    elif over:
        tail = "final money: %d (all revealed below)" % money
    else:
        tail = "your money: %d  (others' behind screens)" % money
    lines.append([("class:money" if me is not None else "class:label", tail[:BOARD_W])])
    return lines


def _hand_lines(v: Mapping, me: int | None, width: int, highlight: Sequence[int] = ()) -> list[Line]:
    """Your hand, one line per artist, each card numbered as the commands take it."""
    if me is None:
        return []
    sizes = v.get("hand_sizes") or []
    size = sizes[me] if me < len(sizes) else 0
    over = v.get("phase") == "over"
    head: Line = [("class:header", "Your hand"), ("class:label", " %d card%s" % (size, "" if size == 1 else "s"))]
    if "cards" not in v:
        return [head, [("class:label", "  the deal has not shown this screen your cards yet")]]
    hand = hand_order(v["cards"])
    dealing = _dealing(v) and len(hand) < size
    if hand and not over and not dealing:
        head.append(("class:label", " (play N, or a short name: play %s)" % card_code(hand[0]["id"])))
    lines: list[Line] = [head]
    if dealing and not hand:
        # the positions are dealt, the cards open only once every seat gave its shares: not "no cards"
        return lines + [[("class:label", "  being dealt: your cards show once the deal is done")]]
    if not hand:
        lines.append([("class:label", "  no cards" + ("" if over else " - you still bid; you are skipped as auctioneer"))])
        return lines
    wide = width >= 90
    played = v.get("played") or [0] * 5
    num = {c["pos"]: i + 1 for i, c in enumerate(hand)}
    for a in range(5):
        mine = [c for c in hand if artist_of(c["id"]) == a]
        if not mine:
            continue
        head: Line = [("", "  ")] + artist_chip(a) + [("", " "), ("class:artfg.%d" % a, ARTISTS[a].ljust(NAME_W))]
        items: list[Line] = []
        for c in mine:
            mark = c["pos"] in highlight
            item: Line = [("class:yourmove" if mark else "bold", "%d" % num[c["pos"]]), ("", " ")] + chip(c["id"])
            if wide:
                item.append(("class:label", " " + _word(type_of(c["id"]))))
            items.append(item)
        if not over and played[a] >= 4:
            items.append([("class:warn", "(5th ends round)")])
        # a card, its number and its type stay on one line
        lines += flow(head, items, width, " " * (4 + 4 + 1 + NAME_W))
    if dealing:
        new = size - len(hand)
        lines.append([("class:label", "  + %d new card%s being dealt: shown once the deal is done" % (
            new, "" if new == 1 else "s"))])
    lines += wrap([("class:label", "  " + legend())], width, "    ")
    return lines


def auction_lines(v: Mapping, me: int | None, width: int, waiting: Sequence[int] | None = None) -> list[Line]:
    """The current auction (or whose turn it is to auction), in full.

    ``waiting``: the seats whose answer to the step open now has not come in (the table's, with our
    own seat left out once we sent ours), or None when unknown: a sealed round then lists only those
    still to answer (the view itself never says who answered: a round's answers are applied at once)."""
    ph = v.get("phase")
    a = v.get("auction")
    money = _money_of(v, me)
    worth = _worth_now(v)
    lines: list[Line] = []
    if ph == "over":
        return lines
    if ph == "play" or not isinstance(a, Mapping):
        actor = v.get("actor")
        lines.append([("class:header", "Round %d: card play" % v.get("round", 1))])
        if _dealing(v):
            lines.append([("", "  the cards are being dealt; then %s" % (
                "you auction first" if actor == me and me is not None else "%s auctions first" % _sw(actor, me)))])
        elif actor == me and me is not None:
            example = card_code(hand_order(v["cards"])[0]["id"]) if v.get("cards") else "MeS"
            lines.append([("class:yourmove", " Your turn to auction "),
                          ("", " play a card from your hand: play N, or play CARD (e.g. play %s)" % example)])
        else:
            lines.append([("", "  %s chooses a card to auction" % _sw(actor, me).capitalize())])
        lines += _worth_lines(v, worth)
        return [l for line in lines for l in wrap(line, width, "    ")]
    atype = a.get("type")
    cards = list(a.get("cards") or [])
    auct = a.get("auctioneer")
    head: Line = [("class:header", "Auction"), ("", "  ")] + chips(cards) + [("", "  ")]
    head.append(("bold", _word(atype, "name")))
    head.append(("", "  by %s" % _sw(auct, me)))
    if a.get("opener") is not None and a.get("opener") != auct:
        head.append(("class:label", " (opened by %s)" % _sw(a["opener"], me)))
    lines.append(head)
    lot = sum(worth[artist_of(c)] for c in cards if isinstance(c, int) and 0 <= c < N_CARDS)
    high, hb = a.get("high", 0), a.get("high_bidder")
    step = step_of(ph)
    kind = kind_of(ph)
    words = step.words if step is not None else None
    f = _fields(v, me)
    about = words.about[0 if v.get("actor") == me and me is not None else 1].format(**f) if words else ""
    in_turn = [("class:label", "  " + words.turns)] + order_line(
        a.get("order") or [], a.get("idx", 0), me, words.turns_note.format(**f)) if words else []
    if kind in (ADD, PRICE, SEALED):
        lines.append([("", about)])
    if kind == ADD:
        lines.append(in_turn)
        if v.get("actor") == me and me is not None and "cards" in v:
            line = [("class:yourmove", " You can add: ")]
            for i, c in _addable(v):
                line += [("", " %d " % i)] + chip(c["id"])
            if len(line) == 1:
                line.append(("", " nothing (no %s card that is not a double) - pass" % f["artist"]))
            lines.append(line)
    elif kind == BUY:
        lines += [[("bold", "  Price %d" % f["price"]), ("", about)], in_turn]
    elif kind in (RAISE, RAISE_OR_OUT):
        line: Line = [("", "  Standing bid: ")]
        line.append(("bold", "none yet") if hb is None else ("class:bid", "%d by %s" % (high, _sw(hb, me))))
        if about:
            line.append(("class:label", about))
        lines.append(line)
    if step is not None and step.simultaneous:
        # the view never says who answered a sealed round; an open auction's raise round keeps it
        todo, done = answers(a.get("asked") or [], a.get("answered") or [] if kind == RAISE_OR_OUT else [], waiting)
        line = [("class:label", "  " + words.turns), ("", who(todo, me) or "nobody")]
        if done:
            line.append(("class:label", " (%s: %s)" % (words.answered, who(done, me))))
        lines.append(line)
    elif kind == RAISE:
        lines.append(in_turn)
    if me is not None and money is not None:
        lines.append(_money_tail(a, me, money, kind, step is not None and step.simultaneous, cards, lot))
    return [l for line in lines for l in wrap(line, width, "    ")]


def _money_tail(a: Mapping, me: int, money: int, kind: str | None, simultaneous: bool, cards: list, lot: int) -> Line:
    """ "You: 80 money - bid 13 to 80, or pass;  worth 30 at the bank if the round ended now"."""
    high, hb = a.get("high", 0), a.get("high_bidder")
    tail: Line = [("class:money", "  You: %d money" % money)]
    if kind == RAISE_OR_OUT and me in (a.get("out") or []):
        tail.append(("", " - you passed: out of this auction"))
    elif simultaneous and me not in (a.get("asked") or []):
        tail.append(("", " - not asked this round (%s)" % (
            "you hold the standing bid" if hb == me else "no money" if kind == SEALED else "you cannot bid higher")))
    elif kind in (RAISE, RAISE_OR_OUT):
        lo = high + 1
        tail.append(("", " - bid %d to %d, or pass" % (lo, money) if money >= lo else " - you cannot bid higher"))
    elif kind == SEALED:
        tail.append(("", " - bid 0 to %d" % money))
    elif kind == BUY:
        price = a.get("price") or high
        tail.append(("", " - you can pay it" if money >= price else " - not enough to buy"))
    if cards and lot:
        tail.append(("class:label", ";  worth %d at the bank if the round ended now" % lot))
    elif cards:
        tail.append(("class:label", ";  worth 0 if the round ended now (not in the top three)"))
    return tail


def _addable(v: Mapping) -> list[tuple[int, dict]]:
    """The cards of our hand (number, card) that may join the lot on offer: a double's second card is
    of its artist and not a double (the rules say which in ``check``; this only lights them up)."""
    first = ((v.get("auction") or {}).get("cards") or [None])[0]
    if not isinstance(first, int) or not 0 <= first < N_CARDS or "cards" not in v:
        return []
    return [(i + 1, c) for i, c in enumerate(hand_order(v["cards"]))
            if artist_of(c["id"]) == artist_of(first) and type_of(c["id"]) != "double"]


def _worth_lines(v: Mapping, worth: Sequence[int]) -> list[Line]:
    ranked = [a for a in _rules.ranking_of(v.get("played") or [0] * 5)]
    line: Line = [("class:label", "  If the round ended now, a painting sells for:")]
    any_ = False
    for a in ranked:
        if worth[a]:
            any_ = True
            line += [("", " ")] + artist_chip(a) + [("", " %d" % worth[a])]
    if not any_:
        line.append(("class:label", " nothing (no card played yet)"))
    else:
        line.append(("class:label", "  others 0"))
    return [line]


def round_lines(v: Mapping, me: int | None, width: int, names: Sequence[str] = ()) -> list[Line]:
    """This round: every seat's hand size and purchases (with prices), and what was sold to whom.
    ``names``: the seats' names (the genesis's), said in their column; () says "seat N"."""
    n = v.get("players", 0)
    nw = name_width(n, me, names)
    over = v.get("phase") == "over"
    if over:
        return []
    lines: list[Line] = wrap([("class:header", "Round %d so far" % v.get("round", 1)),
                              ("class:label", " (cards in hand; paintings bought, price paid)")], width, "    ")
    sizes = v.get("hand_sizes") or [0] * n
    for s in range(n):
        line: Line = [("class:you" if s == me else "", "  %-*s" % (nw, seat_name(s, me, names)[:24])),
                      ("", " hand %2d  " % (sizes[s] if s < len(sizes) else 0))]
        buys = _purchases(v, s)
        if not buys:
            line.append(("class:label", "bought nothing"))
        for i, (cards, price) in enumerate(buys):
            if i:
                line.append(("", "  "))
            line += chips(cards)
            line.append(("", " %s" % ("free" if not price else price)))
        lines += wrap(line, width, " " * (nw + 13))
    return lines


def summary_lines(r: Mapping, me: int | None, width: int, players: int) -> list[Line]:
    """A finished round: why it ended, the ranking with tiles and values, each seat's payout."""
    lines: list[Line] = wrap([("class:header", "Round %d summary" % r.get("round", 0)),
                              ("class:label", " - %s" % you_in(r.get("reason", ""), me))], width, "    ")
    played = r.get("played") or [0] * 5
    tiles = r.get("tiles") or [0] * 5
    values = r.get("values") or [0] * 5
    ranked = _rules.ranking_of(played)
    items: list[Line] = []
    for place, a in enumerate(ranked):
        if tiles[a]:
            items.append([("", "%d." % (place + 1))] + artist_chip(a) +
                         [("", " %d played, tile %d, worth " % (played[a], tiles[a])), ("class:tile", "%d" % values[a])])
    rest = [a for a in ranked if not tiles[a]]
    if rest:
        items.append([("class:label", "no tile (worth 0): %s" % ", ".join("%s %d" % (CODES[a], played[a]) for a in rest))])
    lines += flow([("class:label", "  Ranking:")], items, width)
    pay = r.get("payouts") or [0] * players
    bought = r.get("bought") or [[]] * players
    items = []
    for s in range(min(players, len(pay))):
        k = len(bought[s]) if s < len(bought) else 0
        items.append([("class:you" if s == me else "", "%s +%d" % (_sw(s, me), pay[s])),
                      ("class:label", " (%d painting%s)" % (k, "" if k == 1 else "s"))])
    lines += flow([("class:label", "  Paid by the bank:")], items, width)
    unsold = r.get("unsold") or []
    if unsold:
        lines += wrap([("class:label", "  Not auctioned (ended the round, counted for the ranking): ")] + chips(unsold),
                      width, "    ")
    return lines


def result_lines(res: Mapping | None, me: int | None, width: int, names: Sequence[str] = ()) -> list[Line]:
    if not isinstance(res, Mapping) or "ranking" not in res:
        return []
    status = res.get("status")
    named = [n for n in (res.get("named") or []) if isinstance(n, (list, tuple)) and len(n) == 2]
    if status in ("abandoned", "forked"):   # nobody ranked: say so, whom the log names, and the money it shows
        why = (" - abandoned: the deal could not go on, nobody is ranked, nobody wins" if status == "abandoned" else
               " - the table forked: the game ends unfinished, nobody is ranked, nobody wins")
        lines: list[Line] = [[("class:over", "GAME OVER"), ("class:label", why)]]
        if status == "forked" and isinstance(res.get("why"), str):
            lines.append([("class:warn", "  " + res["why"])])
        for s, why in named:
            lines.append([("class:warn", "  %s: %s" % (seat_name(s, me, names) if type(s) is int else s, why))])
        money = (res.get("standings") or {}).get("money") if isinstance(res.get("standings"), Mapping) else None
        if isinstance(money, list) and money:
            # standings, not a ranking: the money the public auctions left each seat, in seat order
            lines.append([("class:label", "  standings (the money the auctions so far left each seat; not a ranking):")])
            nw = name_width(len(money), me, names) + 1
            for s, m in enumerate(money):
                lines.append([("class:you" if s == me else "", "     %-*s %5s money" % (nw, seat_name(s, me, names)[:24], m))])
        return [l for line in lines for l in wrap(line, width, "     ")]
    else:
        lines = [[("class:over", "GAME OVER"),
                  ("class:label", " - the screens are lifted: most money wins, equal money shares the place")]]
        if isinstance(status, str) and status not in ("", "complete"):
            lines.append([("class:label", "  status: %s" % status)])
    for s, why in named:
        lines.append([("class:warn", "  %s: %s" % (seat_name(s, me, names) if type(s) is int else s, why))])
    nw = name_width(len(res["ranking"]), me, names) + 1
    money = res.get("money") or []
    places = res.get("places") or []
    winners = set(res.get("winners") or [])
    for s in res["ranking"]:
        place = places[s] if s < len(places) else res["ranking"].index(s) + 1
        row = "%3d. %-*s %5s money%s" % (place, nw, seat_name(s, me, names)[:24], money[s] if s < len(money) else "?",
                                          "   winner" if s in winners else "")
        lines.append([("class:you" if s == me else "", row)])
    return [l for line in lines for l in wrap(line, width, "     ")]
