"""What a person types and reads on the Modern Art screen: the card notation (artist letters and
auction-type symbols, ``card_code``, ``parse_card``), the hand's order and numbers, the commands'
help and key help, our own actions in the second person (``action_words``) and the table's steps
in plain words (what a time-out does, the deal's words)."""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from core.games.modern_art.auctions import AUCTIONS, by_word, said
from core.games.modern_art.cards import ARTISTS, N_CARDS, artist_of, type_of

from ..base import CommandError


CODES = ("Ca", "Th", "Me", "Ma", "Si")
SURNAMES = ("carvalho", "thaler", "melim", "martins", "silveira")

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


# --------------------------------------------------------------------------- our actions and the steps in words


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
