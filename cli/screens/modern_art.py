"""The Modern Art screen (see cli/screens/__init__.py for the protocol).

Why this module is over ~900 lines (issue 25): it is one game's whole UI, and every part left is
Modern Art's own: the card notation a person types and reads (artist letters and type symbols,
``parse_card``), the panes (the value board, the hand in the artists' colours, the auction under
way drawn by its step's kind, this round, the round summaries, the result), the reveal (sealed
bids side by side, raise rounds "going once, going twice, sold", sales and round ends, replayed
through the game's own views) and the screen protocol's calls.  What said nothing of Modern Art
went to cli/screens/parts.py and the auction types' words to their records
(core/games/modern_art/auctions.py); cutting the rest into files would make smaller files, not a
smaller job.

What it shows: the round and whose move (title, board pane, seats table); the
artist value board: every round's tiles (30/20/10), each artist's cumulative
value and how many of its cards were played this round (the 5th ends the round)
(board pane); each seat's hand size, purchases this round and its part in the
current auction, and YOUR money only - the others' money stays behind their
screens, as at the table (seats table); the current auction: its type, the
card(s), the auctioneer, the standing bid and bidder or the fixed price, who is
asked and in what order; your hand grouped by artist, each card a block in its
artist's colour with the artist's two letters and the auction-type symbol
(colour-blind players read the letters); this round's sales and purchases; the
last round's summary (ranking, tiles, values, payouts) (middle pane).

Artists (board order, also the ranking's tie-break): Ca Manuel Carvalho,
Th Sigrid Thaler, Me Daniel Melim, Ma Ramon Martins, Si Rafael Silveira.
Auction types: O open, 1 once around, S sealed, F fixed price, D double.
A card's short name is the two together: ``MeS`` is a Daniel Melim card for a
sealed auction.

Commands (Enter runs them):

    play N [M]            auction card N of your hand (the numbers drawn in front of the cards);
                          M: the second card of a double (same artist, not a double)
    play CARD [CARD]      the same by short name: play MeS, play MeD MeO, play melim sealed
    add N | add CARD      double offer: add a second card (you become the auctioneer)
    pass                  double offer, open / once-around bidding, fixed price: pass;
                          sealed: no bid
    bid N                 open / once around: a bid above the standing bid; sealed: your
                          bid (0 = no bid); bid +N raises the standing bid by N; bid all
    price N               fixed price: name the price (1 to your money)
    buy                   fixed price: buy at the price named
    upto N                open auction: raise for me round by round up to N (kept by this screen
                          only, never sent: the ceiling is private); no more questions in this auction

A pass in an open auction drops you out of that auction: you are not asked again in it.
Legality always comes from the game (ctx.check / ctx.problems); the screen
only reads commands and shows the table.

An auction step is shown by what it asks (its kind: core/games/modern_art/auctions.py,
``KINDS``) in its record's words (``Words``: key help, prompt, whose move, the action words
in the second person, what a time-out does), never by its phase's name; so a new auction
type (auctions.register) plays on this screen unchanged (tests/test_modern_art_dutch.py).
Parts that say nothing of Modern Art are in cli/screens/parts.py.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from core.games.modern_art import dealt as _dealt
from core.games.modern_art import rules as _rules
from core.games.modern_art.auctions import ADD, AUCTIONS, BUY, PRICE, RAISE, RAISE_OR_OUT, SEALED, STEPS
from core.games.modern_art.auctions import auction_key, by_word, kind_of, said, standing_action, step_of
from core.games.modern_art.cards import ARTISTS, N_CARDS, artist_of, type_of

from . import Beat, CommandError, Context, Line, Say, Screen, Send, Snapshot, layout_cards, place_words, seat_name
from . import who, width_of, with_names, wrap
from .parts import amount_of, amounts_row, answers, flow, latest_view, name_width, names_of, order_line
from .parts import mark_where, replayed_views, view_of, waiting_of, you_in
from .parts import seat_word as _sw

__all__ = ["ModernArtScreen", "SCREEN", "parse_card", "hand_order", "card_code", "action_words", "reveal_beats"]

CODES = ("Ca", "Th", "Me", "Ma", "Si")
SURNAMES = ("carvalho", "thaler", "melim", "martins", "silveira")
# artist colours: a block with dark/light letters; the two letters make them readable without colour
ARTIST_BG = (
    "bg:#f59e0b fg:#000000 bold",   # Manuel Carvalho: amber
    "bg:#0ea5e9 fg:#000000 bold",   # Sigrid Thaler: blue
    "bg:#d70000 fg:#ffffff bold",   # Daniel Melim: red
    "bg:#00af00 fg:#000000 bold",   # Ramon Martins: green
    "bg:#8700af fg:#ffffff bold",   # Rafael Silveira: purple
)
ARTIST_FG = (
    "fg:#f59e0b bold",
    "fg:#0ea5e9 bold",
    "fg:#ff5f5f bold",
    "fg:#5fd700 bold",
    "fg:#af5fff bold",
)
BOARD_W = 44
NAME_W = 15
PIP_ON, PIP_OFF = "●", "○"
WIDE = 140          # from this width, panels go side by side
BEATS_MAX = 24

# the key help of the card play and outside a decision (an auction step's is its record's: auctions.Words.keys)
_KEYS_PLAY = ["play N [M] | play CARD [CARD] (e.g. play MeS, play MeD MeO) | help | PgUp/PgDn scroll | q quit",
              "play N [M] | play CARD [CARD] | help | PgUp/PgDn | q quit",
              "play N [M] | play CARD | help | q"]
_KEYS_IDLE = ["play N | add N | bid N | pass | price N | buy | help | PgUp/PgDn scroll | q quit",
              "play N | add N | bid N | pass | price N | buy | help | q", "help | q"]
_KEYS_TAIL = (" | help | PgUp/PgDn scroll | q quit", " | help | q quit", " | help | q")   # longest, middle, last


_COMMAND_HELP = [
    ("play N [M]", "your turn as auctioneer: auction card N of your hand (the number in front of the card). "
                   "With a double card, M is the second card you add to it at once (same artist, not a double): "
                   "play 4 2. Without M the double goes round from your left"),
    ("play CARD [CARD]", "the same by short name: artist letters + type symbol, play MeS, play MeD MeO; or in "
                         "words, play melim sealed; an artist alone (play melim) when only one of its cards fits"),
    ("add N | add CARD", "when a double is offered to you: add a second card of that artist (not a double); you "
                         "become the auctioneer, are paid, and play goes on from your left"),
    ("pass", "double offer: add nothing; open auction: drop out of it (you are not asked again in it); "
             "once-around bidding: no bid; fixed price: do not buy; sealed: no bid (bid 0)"),
    ("upto N", "open auction: a standing order kept by this screen only (never sent: the others never see "
               "your ceiling): it raises for you each round, halfway from the standing bid to N, and passes "
               "once the standing bid reaches N; you are asked nothing more in this auction"),
    ("bid N", "open and once around: a bid above the standing bid, at most your money; sealed: your one "
              "bid (0 = no bid). bid +N = the standing bid + N; bid all = all your money"),
    ("price N", "fixed-price auction, as its auctioneer: name the price, 1 to your money. If every other seat "
                "passes you must buy it yourself (paid to the bank)"),
    ("buy", "fixed-price auction: buy at the price named (paid to the auctioneer)"),
    ("CARD", "Ca Manuel Carvalho, Th Sigrid Thaler, Me Daniel Melim, Ma Ramon Martins, Si Rafael Silveira; "
             "then %s: MeS, Th1, caD (case does not matter)"),
]


# --------------------------------------------------------------------------- the auction types' words


def _word(atype: Any, what: str = "word") -> str:
    """A word of an auction type's record (auctions.py): its ``word``, ``symbol`` or ``name``."""
    a = AUCTIONS.get(atype) if isinstance(atype, str) else None
    return getattr(a, what) if a is not None else str(atype)


def _types_words() -> str:
    """ "O open, 1 once around, S sealed, F fixed price, D double"."""
    return ", ".join("%s %s" % (a.symbol, a.word) for a in AUCTIONS.values())


def legend() -> str:
    return "types: " + "  ".join("%s %s" % (a.symbol, a.word) for a in AUCTIONS.values())


def _type_rank(atype: str) -> int:
    """The auction types in the records' order (the hand's order within an artist)."""
    return list(AUCTIONS).index(atype) if atype in AUCTIONS else len(AUCTIONS)


# --------------------------------------------------------------------------- cards and names


def card_code(card: int) -> str:
    """ "MeS": the artist's two letters and the auction type's symbol."""
    return CODES[artist_of(card)] + _word(type_of(card), "symbol")


def card_words(card: int) -> str:
    """ "Daniel Melim sealed (MeS)"."""
    return "%s %s (%s)" % (ARTISTS[artist_of(card)], _word(type_of(card)), card_code(card))


def lot_words(cards: Sequence[int]) -> str:
    """ "MeS (Daniel Melim, sealed)" / "ThD+ThS (Sigrid Thaler, double with sealed)"."""
    ok = [c for c in cards if isinstance(c, int) and 0 <= c < N_CARDS]
    if not ok:
        return "the painting"
    code = "+".join(card_code(c) for c in ok)
    kinds = " with ".join(_word(type_of(c)) for c in ok)
    return "%s (%s, %s)" % (code, ARTISTS[artist_of(ok[0])], kinds)


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


def hand_order(cards: Sequence[Mapping]) -> list[dict]:
    """The seat's cards as numbered on screen: by artist (board order), then type, then deck position."""
    good = [dict(c) for c in cards if isinstance(c, Mapping) and isinstance(c.get("id"), int)
            and 0 <= c["id"] < N_CARDS and isinstance(c.get("pos"), int)]
    return sorted(good, key=lambda c: (artist_of(c["id"]), _type_rank(type_of(c["id"])), c["pos"]))


def _artist_of_word(word: str) -> int | None:
    """An artist from its two letters or a prefix of its surname ("me", "melim", "mar"); None if none;
    CommandError if ambiguous."""
    w = word.lower()
    for a, code in enumerate(CODES):
        if w == code.lower():
            return a
    hits = [a for a, name in enumerate(SURNAMES) if name.startswith(w)] if len(w) >= 1 else []
    if len(hits) > 1:
        raise CommandError("%r could be %s: write more letters (%s)" % (
            word, " or ".join(ARTISTS[a] for a in hits), ", ".join(CODES[a] for a in hits)))
    return hits[0] if hits else None


def _split_card_word(word: str) -> tuple[int, str | None] | None:
    """ "MeS" -> (2, "sealed"); "melim" -> (2, None); "melim-sealed", "me:s" -> (2, "sealed"); None if not a card."""
    w = word.strip().lower()
    m = re.fullmatch(r"([a-z]+)[-:/._]([a-z0-9_-]+)", w)
    if m:
        a = _artist_of_word(m.group(1))
        t = by_word(m.group(2))
        if a is not None and t is not None:
            return a, t
        return None
    if len(w) >= 3 and w[:2] in [c.lower() for c in CODES] and by_word(w[2:]) is not None:
        return [c.lower() for c in CODES].index(w[:2]), by_word(w[2:])
    a = _artist_of_word(w)
    return None if a is None else (a, None)


def parse_card(tokens: Sequence[str], hand: Sequence[Mapping], taken: Sequence[int] = (),
               prefer_second: int | None = None) -> tuple[dict, int]:
    """Read one card of ``hand`` (as numbered by ``hand_order``) from the front of ``tokens``.

    Returns (card dict, tokens used).  ``taken``: positions already chosen (a second card
    is never the first one again).  ``prefer_second``: the artist of a double's first
    card - then an artist alone means its one non-double card.  CommandError when the
    words name no card of the hand (or several different ones).
    """
    if not tokens:
        raise CommandError("which card? a number from your hand or a short name like MeS")
    tok = tokens[0]
    if not hand:
        raise CommandError("you have no cards in your hand")
    if tok.isdigit():
        n = int(tok)
        if not 1 <= n <= len(hand):
            raise CommandError("there is no card %d in your hand: your cards are numbered 1 to %d" % (n, len(hand)))
        card = hand[n - 1]
        if card["pos"] in taken:
            raise CommandError("card %d is already the first card: name another one for the second" % n)
        return card, 1
    got = _split_card_word(tok)
    if got is None:
        raise CommandError("%r is not a card: write its number (1 to %d) or a short name like MeS "
                           "(artist: Ca Th Me Ma Si, type: O 1 S F D)" % (tok, len(hand)))
    artist, atype = got
    used = 1
    if atype is None and len(tokens) > 1 and by_word(tokens[1]) is not None:
        atype = by_word(tokens[1])
        used = 2
    free = [c for c in hand if c["pos"] not in taken and artist_of(c["id"]) == artist]
    if atype is not None:
        fits = [c for c in free if type_of(c["id"]) == atype]
        if not fits:
            have = ", ".join(sorted({card_code(c["id"]) for c in free})) or "none"
            raise CommandError("you have no %s %s card%s (your %s cards: %s)" % (
                ARTISTS[artist], _word(atype), " left" if taken else "", CODES[artist], have))
        return fits[0], used
    if prefer_second == artist:
        nondouble = [c for c in free if type_of(c["id"]) != "double"]
        if len({type_of(c["id"]) for c in nondouble}) == 1:
            return nondouble[0], used
        free = nondouble or free
    kinds = sorted({type_of(c["id"]) for c in free}, key=_type_rank)
    if not free:
        raise CommandError("you have no %s card%s" % (ARTISTS[artist], " left" if taken else ""))
    if len(kinds) > 1:
        raise CommandError("which %s card? you have %s" % (
            ARTISTS[artist], ", ".join(card_code(next(c["id"] for c in free if type_of(c["id"]) == k))
                                       for k in kinds)))
    return free[0], used


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
    kind = step.kind if step is not None else None
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


# --------------------------------------------------------------------------- the reveal


def _sale_words(sale: tuple, me: int | None) -> tuple[str, Line]:
    cards, auct, winner, price, atype = sale
    names = " and ".join(card_code(c) for c in cards if isinstance(c, int) and 0 <= c < N_CARDS)
    if price == 0:
        cap = "%s take%s %s free" % (_sw(winner, me), "" if winner == me else "s", names)
        kinds = [st.kind for st in AUCTIONS[atype].steps] if atype in AUCTIONS else []
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


def _with_cards(a: Mapping, v: Mapping | None) -> Mapping:
    """A card play or an add as the table binds it (positions only) with our own cards put back from
    our view's hand (``cards``: pos -> id); unchanged if it names its cards or a position is not ours."""
    if a.get("do") not in ("play", "add") or "card" in a or not isinstance(v, Mapping):
        return a
    mine = {c.get("pos"): c.get("id") for c in v.get("cards") or [] if isinstance(c, Mapping)}
    if a.get("pos") not in mine:
        return a
    out = dict(a, card=mine[a["pos"]])
    sec = a.get("double")
    if isinstance(sec, Mapping):
        if sec.get("pos") not in mine:
            return a
        out["double"] = dict(sec, card=mine[sec["pos"]])
    return out


def action_words(a: Mapping, v: Mapping | None = None) -> str:
    """Our own action in the second person: "you auction Daniel Melim sealed (MeS)", "your bid: 12"."""
    do = a.get("do")
    a = _with_cards(a, v)

    def name(x: Mapping) -> str:
        c = x.get("card")
        if "card" not in x:      # bound by its position, and not a card of our view's hand
            return "the card at deck position %s" % (x.get("pos"),)
        return card_words(c) if isinstance(c, int) and 0 <= c < N_CARDS else "card %r" % (c,)

    if do == "play":
        text = "you auction %s" % name(a)
        sec = a.get("double")
        if isinstance(sec, Mapping):
            text += " with %s" % name(sec)
        return text
    if do == "skip":      # only ever a time-out's default: it says nothing of whether we moved
        return "your turn as auctioneer was voted out"
    price = ((v or {}).get("auction") or {}).get("price")
    text = said((v or {}).get("phase"), a, True, amount=a.get("amount"), price=None if price is None else str(price),
                card=name(a) if do == "add" else "")       # the auction step's words (auctions.Words.said)
    return text if text is not None else repr(dict(a))


# the step's label (rules._label, dealt.py's) -> what a time-out does there; an auction step's are its
# record's (auctions.Words.timeout), after these
_TIMEOUT_WORDS = (
    # the open (dealt.py): the chosen card(s) leave the hand unseen
    ("shows the card it adds", "the chosen card is discarded face down: nothing added to the double"),
    ("shows the two cards", "the chosen cards are discarded face down: the turn to auction is lost"),
    ("shows the card", "the chosen card is discarded face down: the turn to auction is lost"),
    ("auctions a painting", "the turn to auction is lost"),
)

# the deal's words (core/games/modern_art/dealt.py) with "its" for a seat: said without a pronoun,
# which reads for "bot 2" and for "Zoe (you)" alike
_DEAL_WORDS = (
    ("finds its new cards in order", "checks the new cards: all in order"),
    ("with its proof", "with a proof"),
    ("publishes its deal key", "publishes a deal key"),
    ("discloses its seat secret", "discloses the seat secret"),
    ("withholds its ", "withholds the "),
)


# --------------------------------------------------------------------------- the screen


class ModernArtScreen(Screen):
    """The value board, your hand in the artists' colours, the auction under way, your money only."""

    board_width = BOARD_W
    styles = {
        **{"art.%d" % a: ARTIST_BG[a] for a in range(5)},
        **{"artfg.%d" % a: ARTIST_FG[a] for a in range(5)},
        "phase": "bold reverse",
        "tile": "bold fg:ansiyellow",
        "now": "reverse",
        "warn": "bold fg:ansired",
        "money": "bold fg:ansigreen",
        "bid": "bold fg:ansimagenta",
        "win": "bold reverse fg:ansigreen",
    }
    commands = {
        "play": "play", "p": "play", "auction": "play",
        "add": "add", "a": "add",
        "pass": "pass", "no": "pass",
        "bid": "bid", "b": "bid", "raise": "bid",
        "price": "price",
        "buy": "buy", "yes": "buy",
        "upto": "upto", "max": "upto", "ceiling": "upto",
    }
    timeout_effect = ("a card turn is lost, a bid or a buyer passes (open: out of that auction; sealed: no bid), "
                      "a fixed price is the lowest, 1")
    names_in_middle = True     # its middle says "seat N" only in text and in columns with_names keeps
    chance_words = "drawing the shared seed"
    mark_words = ("sale", "ends an auction (a sale) or a round")

    def __init__(self) -> None:
        self._order: dict | None = None      # our standing order in an open auction (private: never sent)
        # the card play or add we composed last, with its cards (the table binds its positions only,
        # so our own event log and draft can still name the cards: never sent)
        self._chosen: dict | None = None

    def timeout_effect_for(self, label: str) -> str:
        """Only the step that timed out: the rules' default for it (auctions.py's ``default``)."""
        for words, effect in _TIMEOUT_WORDS + tuple(st.words.timeout for st in STEPS.values()):
            if words in label:
                return effect
        return self.timeout_effect if not label else "the rules' default for that step"

    def standing(self, ctx: Context) -> Send | None:
        """The move our standing order makes for us now (an open auction with "upto N"), else None."""
        v = view_of(ctx)
        if not ctx.deciding or v is None or ctx.seat is None:
            return None
        action = standing_action(v, ctx.seat, self._order)
        return Send(action) if action is not None else None

    # -- title, board, seats ---------------------------------------------------
    def title_parts(self, ctx: Context) -> list[str]:
        v = latest_view(ctx)
        if not v:
            return []
        if v.get("phase") == "over":
            return ["after round %d" % _finished(v)]
        return ["round %d/%d: %s" % (v.get("round", 1), _rules.ROUNDS, _doing(v, ctx.seat, names_of(ctx)))]

    def board_lines(self, ctx: Context) -> list[Line]:
        return board_pane(latest_view(ctx), ctx.seat, names_of(ctx))

    def seat_columns(self, ctx: Context) -> list[tuple[str, int]]:
        return [("money", 5), ("hand", 4), ("bought", 10), ("role", 6)]

    def seat_cells(self, ctx: Context, s: int) -> list[str]:
        v = latest_view(ctx)
        if not v:
            return ["-"] * 4
        over = v.get("phase") == "over"
        money = v.get("money") or []
        if (s == ctx.seat or over) and s < len(money):
            m = str(money[s])
        else:
            m = "?"
        sizes = v.get("hand_sizes") or []
        hand = str(sizes[s]) if s < len(sizes) else "-"
        bought = _bought_cell(v, s, 10)
        a = v.get("auction") or {}
        role = []
        if not over and a and a.get("auctioneer") == s:
            role.append("A")
        if not over and a and a.get("high_bidder") == s and kind_of(v.get("phase")) in (RAISE, RAISE_OR_OUT):
            role.append("high")
        if not over and v.get("phase") == "play" and v.get("actor") == s:
            role.append("A")
        return [m, hand, bought, " ".join(role)[:6]]

    # -- the middle pane ---------------------------------------------------------
    def middle_lines(self, ctx: Context, width: int) -> list[Line]:
        v = latest_view(ctx)
        if not v:
            return [[("class:label", "Waiting for the shared seed...")]]
        me = ctx.seat
        over = v.get("phase") == "over"
        highlight: list[int] = []
        if kind_of(v.get("phase")) == ADD and v.get("actor") == me:
            highlight = [c["pos"] for _, c in _addable(v)]
        wide = width >= WIDE
        half = (width - 4) // 2 if wide else width
        top = auction_lines(v, me, half, waiting_of(ctx))
        hand = _hand_lines(v, me, half, highlight)
        lines: list[Line] = []
        if wide and top and hand:
            lines += layout_cards([top, hand], width, gap=4)
        else:
            lines += top + ([[]] if top and hand else []) + hand
        lines.append([])
        names = names_of(ctx)
        now = round_lines(v, me, half, names)
        rounds = v.get("rounds") or []
        last = summary_lines(rounds[-1], me, half, v.get("players", 0)) if rounds and not over else []
        if wide and now and last:
            lines += layout_cards([now, last], width, gap=4)
            lines.append([])
        else:
            for part in (now, last):
                if part:
                    lines += part + [[]]
        if over:
            for r in rounds:
                lines += summary_lines(r, me, width, v.get("players", 0)) + [[]]
        return [l for line in lines for l in (wrap(line, width, "    ") if width_of(line) > width else [line])]

    def game_over_lines(self, ctx: Context, width: int) -> list[Line]:
        lines = result_lines(ctx.result, ctx.seat, width, names_of(ctx))
        return lines or super().game_over_lines(ctx, width)

    def final_words(self, ctx: Context) -> str:
        res = ctx.result
        if isinstance(res, Mapping) and res.get("status") == "abandoned":
            return "The game is abandoned: the deal could not go on; nobody is ranked."
        if not isinstance(res, Mapping) or ctx.seat not in (res.get("ranking") or []):
            return "The game is over."
        s = ctx.seat
        places = res.get("places") or []
        place = places[s] if s < len(places) else res["ranking"].index(s) + 1
        money = (res.get("money") or [0] * (s + 1))[s]
        shared = sum(1 for o in res["ranking"] if (places[o] if o < len(places) else 0) == place) > 1
        text = "Game over after round %d: you finished %s with %d money." % (
            res.get("rounds", _rules.ROUNDS), place_words(place, len(res["ranking"]), shared), money)
        winners = list(res.get("winners") or [])
        if s in winners:
            text += " You win!" if len(winners) == 1 else " You share the win."
        elif winners:
            text += " Winner: %s." % who(winners, s)
        return text

    # -- the event log -----------------------------------------------------------
    def describe(self, game: Any, state: Any, seat: int, action: Any) -> str:
        """The game's words (the shell gives the state the move was made in), except that a bid
        says its amount (0: no bid): in the log a sealed bid is already open."""
        if isinstance(action, dict) and "open" in action:
            # the open shows the cards the seat bound: told as the card play it is
            full = _dealt.opened_action(state, seat, action) if isinstance(state, _dealt.DState) else None
            if full is not None:
                action = full
        elif isinstance(action, dict) and action.get("do") in ("play", "add") and "card" not in action:
            # a choice binds positions only; on our own screen we know what we chose
            mine = self._chosen
            if mine is not None and mine.get("do") == action.get("do") and mine.get("pos") == action.get("pos") \
                    and (mine.get("double") or {}).get("pos") == (action.get("double") or {}).get("pos"):
                cards = [mine["card"]] + ([mine["double"]["card"]] if mine.get("double") else [])
                what = " and ".join(card_words(c) for c in cards if isinstance(c, int) and 0 <= c < N_CARDS)
                return "seat %s chooses %s to %s" % (
                    seat, what, "add to the double" if mine["do"] == "add" else "auction")
        if isinstance(action, dict):
            do = action.get("do")
            if do == "skip":    # a time-out's default, never a chosen move: no word of whether the seat moved
                return "seat %s loses the turn to auction: voted out (a time-out)" % seat
            if do == "bid" and isinstance(action.get("amount"), int):
                amt = action["amount"]
                return "seat %s %s" % (seat, "bids %d" % amt if amt else "hands in no bid")
            card = action.get("card")
            if do in ("play", "add") and isinstance(card, int) and 0 <= card < N_CARDS:
                if do == "add":
                    return "seat %s %s" % (seat, said(None, action, False, card=card_words(card)))
                sec = action.get("double")
                sec_card = sec.get("card") if isinstance(sec, Mapping) else None
                if not (isinstance(sec_card, int) and 0 <= sec_card < N_CARDS):
                    sec_card = None
                ending = _ends_round(game, state, [card] + ([sec_card] if sec_card is not None else []))
                if ending is not None:       # the 5th card of its artist is not auctioned: the round ends
                    return "seat %s plays %s, the 5th %s card: the round ends, nothing is auctioned" % (
                        seat, " and ".join(card_words(c) for c in [card, sec_card] if c is not None), ARTISTS[ending])
                text = "seat %s auctions %s" % (seat, card_words(card))
                if sec_card is not None:
                    text += " with %s" % card_words(sec_card)
                return text
        text = game.describe(state, seat, action)
        for deal_words, plain_words in _DEAL_WORDS:
            text = text.replace(deal_words, plain_words)
        return text

    def log_tag(self, step: int) -> str:
        return "%d" % step

    # -- deciding ----------------------------------------------------------------
    def decision_label(self, ctx: Context) -> str:
        v = view_of(ctx)
        if not v:
            return ""
        step = step_of(v.get("phase"))
        if v.get("phase") == "play":
            return "round %d: auction a card" % v.get("round", 1)
        return _say(v, ctx.seat, step.words.asks) if step is not None else ""

    def on_decision(self, ctx: Context) -> Say | None:
        v = view_of(ctx)
        me = ctx.seat
        if not v or me is None:
            return None
        step = step_of(v.get("phase"))
        if v.get("phase") == "play":
            if "cards" not in v:
                return Say("Your turn to auction, but this screen does not know your cards yet.")
            return Say("Your turn to auction: play N (the number in front of a card) or play CARD (e.g. play %s); "
                       "a double with its second card: play N M." % (
                           card_code(hand_order(v["cards"])[0]["id"]) if v["cards"] else "MeS"))
        return Say(_say(v, me, step.words.tells)) if step is not None else None

    def draft_line(self, ctx: Context) -> list:
        v = view_of(ctx)
        me = ctx.seat
        if not v or me is None or v.get("phase") == "over":
            return []
        if not ctx.deciding:
            sent = ctx.sent
            if sent is not None and ctx.snap is not None and sent.phase == ctx.snap.phase:
                # what was sent is said once, on the message line under this one (on_sent): here only
                # that it is in, and whom the step still waits for
                others = [s for s in ctx.missing if s != me]
                return [("class:sent", "Your move is in"), ("class:label", " - waiting for %s." % (
                    who(others, me, names_of(ctx)) if others else "the others"))]
            return [("class:label", "Waiting: %s." % _doing(v, me, names_of(ctx)))]
        step = step_of(v.get("phase"))
        if v.get("phase") == "play":
            return [("bold", "Your turn: "), ("", "play N [M] | play CARD [CARD]"),
                    ("class:label", " (M / second CARD: the second card of a double)")]
        if step is None:
            return []
        head, commands, note = step.words.prompt
        return [("bold", _say(v, me, head)), ("", commands), ("class:label", _say(v, me, note))]

    # -- commands ----------------------------------------------------------------
    def command(self, ctx: Context, name: str, args: list[str]) -> Say | Send | None:
        v = view_of(ctx)
        if v is None or ctx.seat is None:
            raise CommandError("the table has not started yet")
        if v.get("phase") == "over":
            raise CommandError("the game is over")
        if name == "upto":
            return self._upto(ctx, v, args)
        action = self._parse(ctx, v, name, args)
        if not ctx.deciding:
            sent = ctx.sent
            if sent is not None and ctx.snap is not None and sent.phase == ctx.snap.phase:
                raise CommandError("you already sent your move for this step (%s) - waiting for %s; nothing sent" % (
                    re.sub(r"^seat %d " % ctx.seat, "", sent.text),
                    who([s for s in ctx.missing if s != ctx.seat], ctx.seat) or "the others"))
            probs = ctx.problems(action)
            reason = self._words(v, ctx.seat, probs[0]) if probs else "it is not your move yet - wait for YOUR MOVE"
            raise CommandError("%s - nothing sent" % reason)
        probs = ctx.problems(action)
        if probs:
            raise CommandError("cannot do that: %s - nothing sent" % "; ".join(self._words(v, ctx.seat, p) for p in probs))
        return Send(action)

    @staticmethod
    def _words(v: Mapping, me: int, problem: str) -> str:
        """The game's reason in a player's words: our seat as "you", a hint instead of an action format."""
        if '{"' in problem:
            step = step_of(v.get("phase"))
            hint = "play a card: play N or play CARD" if v.get("phase") == "play" else \
                step.words.refused if step is not None else ""
            if hint:
                return hint
        return problem.replace("not seat %d's" % me, "not yours")

    def _hand(self, v: Mapping) -> list[dict]:
        if "cards" not in v:
            raise CommandError("this screen does not know your cards yet (the deal has not shown them)")
        hand = hand_order(v["cards"])
        if not hand:
            raise CommandError("you have no cards in your hand")
        return hand

    def _parse(self, ctx: Context, v: dict, name: str, args: list[str]) -> dict:
        me = ctx.seat
        kind = kind_of(v.get("phase"))
        a = v.get("auction") or {}
        money = _money_of(v, me)
        if name == "play" and kind == ADD and a:
            name = "add"                      # "play N" when a double is offered to you means add
        if name == "play":
            if not args:
                raise CommandError("usage: play N [M] or play CARD [CARD], e.g. play 3 or play MeS "
                                   "(M: the second card of a double)")
            hand = self._hand(v)
            first, used = parse_card(args, hand)
            rest = args[used:]
            if rest and rest[0].lower() in ("with", "and", "+"):
                rest = rest[1:]
            second = None
            if rest:
                c2, used2 = parse_card(rest, hand, taken=[first["pos"]], prefer_second=artist_of(first["id"]))
                if rest[used2:]:
                    raise CommandError("too much after the cards: %r - play N [M] takes one card, or two for a double"
                                       % " ".join(rest[used2:]))
                second = {"pos": c2["pos"], "card": c2["id"]}
            self._chosen = {"do": "play", "pos": first["pos"], "card": first["id"], "double": second}
            return dict(self._chosen)
        if name == "add":
            if not args:
                raise CommandError("usage: add N or add CARD - the second card of the double (same artist, not a double)")
            hand = self._hand(v)
            first = (a.get("cards") or [None])[0] if kind == ADD else None
            art = artist_of(first) if isinstance(first, int) and 0 <= first < N_CARDS else None
            card, used = parse_card(args, hand, prefer_second=art)
            if args[used:]:
                raise CommandError("add takes one card, not %r" % " ".join(args))
            self._chosen = {"do": "add", "pos": card["pos"], "card": card["id"]}
            return dict(self._chosen)
        if name == "pass":
            if args:
                raise CommandError("pass takes no arguments")
            if kind == SEALED:
                return {"do": "bid", "amount": 0}
            return {"do": "pass"}
        if name == "bid":
            if len(args) != 1:
                raise CommandError("usage: bid N (a whole number), bid +N (the standing bid + N) or bid all")
            return {"do": "bid", "amount": amount_of(args[0], "bid", a.get("high", 0) if a else 0, money)}
        if name == "price":
            if len(args) != 1:
                raise CommandError("usage: price N - the fixed price, 1 to your money")
            return {"do": "price", "amount": amount_of(args[0], "price", 0, money)}
        if name == "buy":
            if args:
                raise CommandError("buy takes no arguments (it buys at the price named)")
            return {"do": "buy"}
        raise CommandError("unknown command %r" % name)

    def submit(self, ctx: Context) -> Say | Send | None:
        if not ctx.deciding:
            return None
        v = view_of(ctx)
        ph = (v or {}).get("phase", "")
        step = step_of(ph)
        hint = "play N or play CARD" if ph == "play" else (step.words.hint if step else "a command (help lists them)")
        raise CommandError("nothing to send yet: type %s" % hint)

    def _upto(self, ctx: Context, v: dict, args: list[str]) -> Say | Send:
        """``upto N``: our standing order for this open auction (kept here, never sent)."""
        me = ctx.seat
        a = v.get("auction") or {}
        if kind_of(v.get("phase")) != RAISE_OR_OUT or not a:
            raise CommandError("upto N is for an open auction (while one is under way)")
        if me in (a.get("out") or []):
            raise CommandError("you passed: you are out of this auction")
        if len(args) != 1:
            raise CommandError("usage: upto N - raise for me each round up to N, then drop out")
        money = _money_of(v, me)
        n = amount_of(args[0], "ceiling", a.get("high", 0), money)
        if n <= a.get("high", 0):
            raise CommandError("the standing bid is already %d: a ceiling must be above it (or pass)" % a.get("high", 0))
        self._order = {"auction": auction_key(v), "upto": n}
        if ctx.deciding:
            action = standing_action(v, me, self._order)
            if action is not None:
                return Send(action)
        return Say("Standing order: up to %d in this auction (only on your screen); you will not be asked again "
                   "in it." % n, "class:sent")

    def on_sent(self, ctx: Context, action: Any, text: str) -> Say:
        v = view_of(ctx)
        words = action_words(action, v) if isinstance(action, dict) else str(text)
        extra = ""
        if isinstance(action, dict) and v:
            kind = kind_of(v.get("phase"))
            if kind == SEALED:
                extra = " (sealed until every bid is in)"
            elif kind == RAISE_OR_OUT:
                order = self._order if self._order and self._order.get("auction") == auction_key(v) else None
                if order is not None and action.get("do") == "pass":
                    extra = " - the standing bid reached your ceiling (up to %d): you are out of this auction" \
                        % order["upto"]
                elif order is not None:
                    extra = " (standing order: up to %d, raised for you each round; nothing more to answer)" % order["upto"]
                elif action.get("do") == "pass":
                    extra = " - you are out of this auction"
                else:
                    extra = " (sealed until this raise round closes)"
            else:
                card = _with_cards(action, v).get("card")      # the table binds positions: our hand names it
                if action.get("do") == "play" and action.get("double") is None and isinstance(card, int) and \
                        0 <= card < N_CARDS and type_of(card) == "double":
                    extra = " - the double now goes round for a second card"
        return Say("Sent: %s%s" % (words, extra), "class:sent")

    # -- help --------------------------------------------------------------------
    def key_help(self, ctx: Context) -> list[str]:
        v = view_of(ctx)
        ph = (v or {}).get("phase", "")
        step = step_of(ph)
        if not ctx.deciding or ph != "play" and step is None:
            return list(_KEYS_IDLE)
        if ph == "play":
            return list(_KEYS_PLAY)
        keys = step.words.keys          # the first gets the long tail, the last the short one
        return [k + _KEYS_TAIL[0 if i == 0 else 2 if i == len(keys) - 1 else 1] for i, k in enumerate(keys)]

    def command_help(self, ctx: Context) -> list[tuple[str, str]]:
        return [(k, t % _types_words() if k == "CARD" else t) for k, t in _COMMAND_HELP]

    def rules_help(self, ctx: Context) -> list[tuple[str, list[tuple[str, str]]]]:
        v = latest_view(ctx)
        players = (v or {}).get("players") or ctx.players or 4
        deal = _rules.DEAL.get(players, _rules.DEAL[4])
        rows = [
            ("A turn", "the auctioneer plays a card from its hand; the auction is the card's type. Payment goes to "
                       "the auctioneer, or to the bank when the auctioneer buys its own painting. Nobody bids more "
                       "than its money. No bid: the auctioneer takes the painting free. Then the turn passes to the "
                       "next seat on the left holding cards (a seat without cards still bids)."),
        ] + [("%s %s" % (x.symbol, x.word), x.rule) for x in AUCTIONS.values()] + [
            ("Round end", "the 5th card of one artist ends the round at once (it is not auctioned, but counts); "
                          "also when nobody has cards left. Artists ranked by cards played this round (ties: board "
                          "order Ca Th Me Ma Si): tiles 30, 20, 10 to the top three. A painting of a top-three artist "
                          "sells to the bank for all its tiles so far; any other for 0. Hands carry over."),
            ("The game", "4 rounds; each seat starts with 100 money; %d players are dealt %s cards in rounds 1-4. "
                         "Most money at the end wins; equal money shares the place."
                         % (players, "/".join(str(k) for k in deal))),
            ("Screens", "money is behind screens: the game shows each seat only its own money (others: ?) until "
                        "the game ends; every payment is public (the sales), so you may count, but nothing counts "
                        "for you."),
            ("Screen", "cards: a block in the artist's colour with its letters and the type symbol, e.g. MeS = "
                       "Daniel Melim, sealed. Artists: Ca Manuel Carvalho (amber), Th Sigrid Thaler (blue), Me Daniel "
                       "Melim (red), Ma Ramon Martins (green), Si Rafael Silveira (purple). Types: %s. Board: r1-r4 the tiles each round, sum = tiles so "
                       "far, now = cards played this round (●, the 5th ends it). Seats: bought = paintings bought "
                       "this round by artist; role A = auctioneer, high = standing bidder." % _types_words()),
        ]
        return [("Modern Art in short", rows)]

    # -- the reveal and replay ---------------------------------------------------
    def beats(self, ctx: Context, before: Snapshot) -> list[Beat]:
        """Sealed bids opening side by side, open-auction raise rounds ("going once, going twice, sold"),
        every sale, and a round's end: ranking, tiles and payouts."""
        return reveal_beats(ctx.snap, before, ctx.seat)

    def describe_table(self, ctx: Context, config: Mapping[str, Any], players: int) -> str:
        return "Modern Art for %d seats; %s edition; 100 money each, 4 rounds" % (
            players, dict(config).get("edition", "standard"))

    def happenings(self, before: Any, view: Any) -> list[str]:
        """Every sale and every round's end between two views, for the event log: the moves say who bid,
        only the rules say who bought, for how much, and what the bank paid (the reveal shows it too,
        but it may be skipped)."""
        if not isinstance(before, Mapping) or not isinstance(view, Mapping):
            return []
        return happening_words(before, view)

    def is_mark(self, before: Snapshot, after: Snapshot) -> bool:
        return mark_where(before, after, lambda v: (_finished(v), len(v.get("sales") or [])))


SCREEN = ModernArtScreen
