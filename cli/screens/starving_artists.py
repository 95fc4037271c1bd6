"""The Starving Artists screen (see cli/screens/__init__.py for the protocol).

What it shows: the day, the phase (morning / afternoon / night) and whose turn
it is (title, status line, seats table); your studio and the Paint Market as
coloured blocks with their letters and counts, in the rulebook's colour-blind
order R O Y G B P K W (board pane); every seat's nutrition (a 5-pip meter),
points, canvases sold, canvases, cubes and the first-player marker (seats
table); your canvases and the canvas market as small coloured grids (middle
pane): a painted square is a solid block with its cube's letter, an empty
square shows its number and the colour(s) it takes as coloured letters (a
diamond shows both); at night the announcements and the collection queue; the
day's happenings (draws, flips, every collection action) from the view's
events.

Numbers, as on the screen: canvases are numbered 1, 2, ... (yours, in the
order you bought them; ``#ID`` names a canvas by its card id); squares are
numbered 0, 1, 2, ... in reading order, as drawn on the grids and as the
rules engine words them; market slots are 1, 2, 3.

Commands (Enter runs them):

    work                                  work: 3 cubes from the bag
    buy SLOT [pay CUBES]                  buy a canvas; without pay a payment is suggested (Enter sends it)
    paint CANVAS SQUARE COLOUR ...        up to 4 cubes: paint 1 3 R 1 4 B (or paint 1 3 R 4 B)
    paint auto                            suggest the most squares you can fill (Enter sends it)
    trade GIVE for TAKE                   free action with the Paint Market: trade BB for R
    reset [pay CUBES]                     free action: new canvas market for 2 cubes
    study GIVE TAKE                       free action (Color Study): study B R
    offer GIVE for TAKE                   free action (Player trades): offer 2B for R
    MAIN then FREE                        work then trade BB for R
    sell N [N ...] | sell all | sell none   night: announce your sales (canvas numbers)
    supper N                              night (Last Supper): eat canvas N
    take CUBES | take best                night: a collection action
    accept | decline                      answer a trade offer
    clear                                 forget the suggested draft

CUBES are written ``2B 1R``, ``BBR``, ``B2 R`` or with colour words
(``2 blue red``).  Legality always comes from the game (ctx.check /
ctx.problems); the screen only parses and suggests.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from core.games.starving_artists.cards import CARDS, parse_rows

from . import (
    Beat,
    CommandError,
    Context,
    Line,
    Say,
    Screen,
    Send,
    Snapshot,
    layout_cards,
    place_words,
    plural,
    seat_name,
    who,
    with_names,
    wrap,
)

__all__ = ["StarvingArtistsScreen", "SCREEN", "parse_cubes", "parse_colour", "parse_paint", "cubes_text"]

COLOURS = "ROYGBPKW"
NAMES = {"R": "red", "O": "orange", "Y": "yellow", "G": "green", "B": "blue", "P": "purple",
         "K": "black", "W": "wild"}
_WORDS = {name: c for c, name in NAMES.items()}
_WORDS.update({"clear": "W", "reds": "R", "oranges": "O", "yellows": "Y", "greens": "G", "blues": "B",
               "purples": "P", "blacks": "K", "wilds": "W"})

# a painted square / a cube: solid block with its letter
CUBE_STYLE = {
    "R": "bg:#d70000 fg:#ffffff bold",
    "O": "bg:#ff8700 fg:#000000 bold",
    "Y": "bg:#ffd700 fg:#000000 bold",
    "G": "bg:#00af00 fg:#000000 bold",
    "B": "bg:#005fff fg:#ffffff bold",
    "P": "bg:#8700af fg:#ffffff bold",
    "K": "bg:#000000 fg:#ffffff bold",
    "W": "bg:#ffffff fg:#000000 bold",
}
# an empty square: the needed colour as a coloured letter (no block)
NEED_STYLE = {
    "R": "fg:#ff5f5f bold",
    "O": "fg:#ff8700 bold",
    "Y": "fg:#ffd700 bold",
    "G": "fg:#5fd700 bold",
    "B": "fg:#5f87ff bold",
    "P": "fg:#af5fff bold",
    "K": "fg:#a8a8a8 bold underline",
    "W": "fg:#ffffff bold",
}

CARD_W = 28          # width of a drawn card
CELL_W = 4           # width of one square (plus one space between squares)
NIGHT_STEPS = ("announce", "collect")

_KEY_TURN = [
    "work | buy SLOT [pay CUBES] | paint CANVAS SQUARE COLOUR.. | paint auto | trade GIVE for TAKE | reset | "
    "MAIN then FREE | Enter=send | help | q quit",
    "work | buy SLOT | paint C SQ COL.. | paint auto | trade GIVE for TAKE | reset | then | help | q",
    "work | buy SLOT | paint C SQ COL | paint auto | trade | help | q",
]
_KEY_NIGHT = [
    "sell N [N..] | sell all | sell none | supper N | take CUBES | take best | Enter=send | help | PgUp/PgDn | q quit",
    "sell N.. | sell none | take CUBES | take best | Enter=send | help | q",
]
_KEY_ANSWER = ["accept | decline | help | PgUp/PgDn scroll | q quit", "accept | decline | help | q"]

_COMMAND_HELP = [
    ("work", "main action: draw 3 cubes from the bag (they arrive after your turn: not paintable now)"),
    ("buy SLOT [pay CUBES]",
     "main action: buy the canvas in market slot 1-3 for its cost (%(costs)s): buy 2 pay OB. Without pay "
     "the screen suggests the cubes you need least; Enter sends the suggestion"),
    ("paint CANVAS SQUARE COLOUR ..",
     "main action: up to 4 cubes onto your canvases: paint 1 3 R 1 4 B (canvas 1, squares 3 and 4); "
     "paint 1 3 R 4 B says the same. CANVAS is your canvas number (1, 2, ..) or #ID; SQUARE is the "
     "number drawn on the empty square; COLOUR a letter or word"),
    ("paint auto", "suggest the most squares you can fill now (up to 4); Enter sends it, or type your own"),
    ("trade GIVE for TAKE",
     "free action: trade with the Paint Market, 2 for 1, 5 for 2, 9 for 3: trade BB for R; trade for R "
     "suggests what to give. Wilds may be given, never taken"),
    ("reset [pay CUBES]", "free action: pay 2 cubes for three new canvases in the market: reset pay RK "
                          "(without pay a payment is suggested)"),
    ("study GIVE TAKE", "free action (Color Study option): 4 cubes of colour GIVE to the Paint Market, "
                        "1 cube of colour TAKE from the bag: study B R"),
    ("offer GIVE for TAKE", "free action (Player trades option): offer 2B for R to every other artist"),
    ("MAIN then FREE", "a main action with the day's free action after it, sent together: "
                       "work then trade BB for R; paint 1 0 R then reset. A free action on its own "
                       "(trade, reset, ..) is sent first and your turn goes on"),
    ("sell N [N ..]", "night: announce the complete canvases you sell (your canvas numbers); sell all; "
                      "sell none. Announcements are final"),
    ("supper N", "night, Last Supper option, at nutrition 1: eat complete canvas N for its stars in food "
                 "(also: sell 1 supper 2)"),
    ("take CUBES", "night: your collection action, exactly the amount shown: take BBR; take best takes "
                   "the game's pick (the cubes your canvases need first); Enter takes the suggested pick"),
    ("accept / decline", "answer another artist's trade offer"),
    ("diamonds COLOUR ..", "solo end of day: the colour each diamond of the leaving slot-1 canvas takes "
                           "back from the Paint Market (diamonds R B, diamonds RB; diamonds auto = the "
                           "default, the more plentiful colour)"),
    ("clear", "forget the suggested draft"),
    ("submit / empty Enter", "send the suggested draft (buy or reset without pay, paint auto, take best)"),
    ("CUBES", "2B 1R, BBR, B2 R, or words: 2 blue red. Colours: R red, O orange, Y yellow, G green, B blue, "
              "P purple, K black, W wild (clear)"),
]


# --------------------------------------------------------------------------- parsing


def parse_colour(word: str) -> str:
    """A colour letter from a letter or a word ("r", "Red", "clear") ; CommandError if it is none."""
    w = str(word).strip().lower()
    if len(w) == 1 and w.upper() in COLOURS:
        return w.upper()
    if w in _WORDS:
        return _WORDS[w]
    raise CommandError("%r is not a colour: use R red, O orange, Y yellow, G green, B blue, P purple, "
                       "K black or W wild" % word)


def parse_cubes(words: Sequence[str], what: str = "cubes") -> dict:
    """``["2B", "1R"]`` / ``["BBR"]`` / ``["B2", "R"]`` / ``["2", "blue", "red"]`` -> {"B": 2, "R": 1}."""
    tokens = [t for w in words for t in re.split(r"[\s,+;]+", str(w)) if t]
    if not tokens:
        raise CommandError("say which %s, e.g. 2B 1R or BBR" % what)
    out: dict[str, int] = {}
    count: int | None = None
    for tok in tokens:
        if tok.isdigit():
            if count is not None:
                raise CommandError("%s: two numbers in a row (%s)" % (what, tok))
            count = int(tok)
            continue
        m = re.fullmatch(r"(\d+)([A-Za-z]+)", tok) or None
        n = None
        word = tok
        if m:
            n, word = int(m.group(1)), m.group(2)
        else:
            m = re.fullmatch(r"([A-Za-z])(\d+)", tok)
            if m:
                word, n = m.group(1), int(m.group(2))
        if n is not None and count is not None:
            raise CommandError("%s: two numbers for one colour (%s)" % (what, tok))
        if n is None:
            n, count = count, None
        if word.lower() in _WORDS:
            letters = [_WORDS[word.lower()]]
        elif all(ch in COLOURS for ch in word.upper()):
            letters = list(word.upper())
        else:
            raise CommandError("%s: %r is not a colour (R red, O orange, Y yellow, G green, B blue, P purple, "
                               "K black, W wild), e.g. 2B 1R or BBR" % (what, tok))
        if n is not None:
            if len(letters) != 1:
                raise CommandError("%s: %r - write a number before one colour, like 2B" % (what, tok))
            if n < 1:
                raise CommandError("%s: a count must be 1 or more, not %d" % (what, n))
            out[letters[0]] = out.get(letters[0], 0) + n
        else:
            for c in letters:
                out[c] = out.get(c, 0) + 1
    if count is not None:
        raise CommandError("%s: the number %d has no colour after it" % (what, count))
    return {c: out[c] for c in COLOURS if out.get(c)}


_PLACEMENT = re.compile(r"(\w) on square (\d+) of (.+)$", re.S)
_NEXT_PLACEMENT = re.compile(r"(?:, |; )(?=\w on square \d+ of )")


def compact_event(text: str) -> str:
    """An engine event or move in fewer words, the squares grouped per canvas:
    "paints G on square 0 of 'X', Y on square 5 of 'X'" (or "; " between them) ->
    "paints G on 0, Y on 5 of 'X'" (also after ", then "); the work draw's explanation dropped."""
    text = text.replace(" (3 cubes from the bag, arriving after the turn)", "")
    return ", then ".join(_compact_paints(part) for part in text.split(", then "))


def _compact_paints(text: str) -> str:
    m = re.match(r"(.*?\bpaints )(.*)$", text, re.S)
    if not m:
        return text
    groups: dict[str, list[str]] = {}
    for part in _NEXT_PLACEMENT.split(m.group(2)):
        p = _PLACEMENT.match(part)
        if p is None:
            return text
        groups.setdefault(p.group(3), []).append("%s on %s" % (p.group(1), p.group(2)))
    return m.group(1) + "; ".join("%s of %s" % (", ".join(g), t) for t, g in groups.items())


def _ordered(cubes: Any) -> list[tuple[str, int]]:
    if not isinstance(cubes, Mapping):
        return []
    return [(c, cubes[c]) for c in COLOURS if isinstance(cubes.get(c), int) and cubes[c] > 0]


def cubes_text(cubes: Mapping[str, int] | None) -> str:
    """{"B": 2, "R": 1} -> "R B B" (colour order); "nothing" when empty."""
    parts = [c for c in COLOURS for _ in range((cubes or {}).get(c, 0))]
    return " ".join(parts) if parts else "nothing"


def _canvas_ref(word: str, mine: Sequence[dict]) -> int:
    """A canvas number as on the screen (1..n) or #ID -> the card id."""
    w = str(word).strip()
    if w.startswith("#"):
        try:
            cid = int(w[1:])
        except ValueError:
            raise CommandError("%r: #ID wants a card id, like #12" % word) from None
        if not any(c["id"] == cid for c in mine):
            raise CommandError("you have no canvas #%d%s" % (cid, _yours(mine)))
        return cid
    if not w.isdigit():
        raise CommandError("%r is not a canvas number%s" % (word, _yours(mine)))
    n = int(w)
    if not 1 <= n <= len(mine):
        if not mine:
            raise CommandError("you have no canvases yet: buy one from the market (buy SLOT)")
        raise CommandError("there is no canvas %d%s" % (n, _yours(mine)))
    return mine[n - 1]["id"]


def _yours(mine: Sequence[dict]) -> str:
    if not mine:
        return " (you have no canvases yet)"
    return " (yours: %s)" % ", ".join("%d %s" % (i + 1, _short_title(c["card"]["title"], 18)) for i, c in enumerate(mine))


def parse_paint(words: Sequence[str], mine: Sequence[dict]) -> list[list]:
    """``["1", "3", "R", "4", "B"]`` -> [[id, 3, "R"], [id, 4, "B"]] (canvas numbers as on screen)."""
    tokens = [t for w in words for t in re.split(r"[\s,;:/]+", str(w)) if t]
    if not tokens:
        raise CommandError("usage: paint CANVAS SQUARE COLOUR [...], e.g. paint 1 3 R (or paint auto)")
    out: list[list] = []
    cur: int | None = mine[0]["id"] if len(mine) == 1 else None
    i = 0
    while i < len(tokens):
        rest = tokens[i:]
        if len(rest) >= 3 and _numlike(rest[0]) and rest[1].isdigit() and _is_colour(rest[2]):
            cur = _canvas_ref(rest[0], mine)
            sq, col = int(rest[1]), parse_colour(rest[2])
            i += 3
        elif len(rest) >= 2 and rest[0].isdigit() and _is_colour(rest[1]):
            if cur is None:
                raise CommandError("say which canvas first: paint CANVAS SQUARE COLOUR, e.g. paint 1 %s %s"
                                   % (rest[0], rest[1]))
            sq, col = int(rest[0]), parse_colour(rest[1])
            i += 2
        else:
            bad = next((t for t in rest[:3] if not _numlike(t) and not _is_colour(t)), None)
            raise CommandError("cannot read %r%s: paint CANVAS SQUARE COLOUR [...], e.g. paint 1 3 R 1 4 B "
                               "(colours: R O Y G B P K W)" % (" ".join(rest), " (%r is neither a number nor a colour)"
                                                               % bad if bad else ""))
        out.append([cur, sq, col])
    if len(out) > 4:
        raise CommandError("a paint action places at most 4 cubes, not %d" % len(out))
    return out


def _is_colour(tok: str) -> bool:
    try:
        parse_colour(tok)
    except CommandError:
        return False
    return True


def _numlike(tok: str) -> bool:
    return tok.isdigit() or (tok.startswith("#") and tok[1:].isdigit())


# --------------------------------------------------------------------------- suggestions (not rules)


def _counts(cubes: Mapping[str, int] | None) -> list[int]:
    return [(cubes or {}).get(c, 0) for c in COLOURS]


def _want(view: dict, seat: int, extra_cards: Sequence[dict] = ()) -> list[int]:
    """Cubes per colour the seat's empty squares ask for (a diamond counts for both colours)."""
    want = [0] * 8
    for c in view["canvases"][seat]:
        for sq, f in zip(c["card"]["squares"], c["filled"]):
            if f is None:
                for ch in sq:
                    want[COLOURS.index(ch)] += 1
    for card in extra_cards:
        for sq in card["squares"]:
            for ch in sq:
                want[COLOURS.index(ch)] += 1
    return want


def suggest_pay(studio: Mapping[str, int], n: int, want: Sequence[int]) -> dict:
    """n cubes the seat needs least: colours no canvas asks for first, then the most surplus; wilds last.

    Fewer than n when the studio is short (the game then says why it cannot be paid)."""
    have = _counts(studio)
    out = [0] * 8
    for _ in range(n):
        best, pick = None, -1
        for i in range(8):
            if have[i] <= 0:
                continue
            key = (i == 7, want[i] > 0, -(have[i] - want[i]))
            if best is None or key < best:
                best, pick = key, i
        if pick < 0:
            break
        have[pick] -= 1
        out[pick] += 1
    return {COLOURS[i]: k for i, k in enumerate(out) if k}


def suggest_paint(view: dict, seat: int) -> list[list]:
    """Up to 4 placements: canvases closest to complete first, exact colours (a diamond takes the colour
    you have more of), and a wild only for the last square of a canvas that has no wild yet."""
    have = _counts(view["studios"][seat])
    out: list[list] = []
    canvases = sorted(view["canvases"][seat], key=lambda c: sum(1 for f in c["filled"] if f is None))
    for c in canvases:
        empty = [i for i, f in enumerate(c["filled"]) if f is None]
        squares = c["card"]["squares"]
        placed = 0
        for i in sorted(empty, key=lambda i: len(squares[i])):   # one-colour squares before diamonds
            if len(out) >= 4:
                return out
            opts = [ch for ch in squares[i] if have[COLOURS.index(ch)] > 0]
            if not opts:
                continue
            ch = max(opts, key=lambda x: have[COLOURS.index(x)])
            have[COLOURS.index(ch)] -= 1
            out.append([c["id"], i, ch])
            placed += 1
        left = [i for i in empty if not any(p[0] == c["id"] and p[1] == i for p in out)]
        if len(left) == 1 and "W" not in c["filled"] and have[7] > 0 and len(out) < 4:
            have[7] -= 1
            out.append([c["id"], left[0], "W"])
    return out


# --------------------------------------------------------------------------- drawing


def _short_title(text: str, n: int) -> str:
    return text if len(text) <= n else text[: max(1, n - 1)].rstrip() + "~"


def _cube_blocks(cubes: Mapping[str, int] | None, show_zero: bool = True) -> Line:
    """Coloured block + letter + count per colour, in the colour-blind order: [R]2 [O]0 ..."""
    line: Line = []
    for c in COLOURS:
        n = (cubes or {}).get(c, 0)
        if not n and not show_zero:
            continue
        if line:
            line.append(("", " "))
        if n:
            line += [("class:cube.%s" % c.lower(), c), ("", "%d" % n)]
        else:
            line += [("class:label", "%s0" % c)]
    if not line:
        line.append(("class:label", "none"))
    return line


def _grid(card: dict, filled: Sequence | None) -> list[Line]:
    """The card's squares as a grid: painted = solid block with the cube letter; empty = number + colour(s)."""
    try:
        squares, layout = parse_rows(card["rows"])
    except ValueError:
        return [[("class:label", "(unreadable squares)")]]
    out: list[Line] = []
    for row in layout:
        line: Line = []
        for j, idx in enumerate(row):
            if j:
                line.append(("", " "))
            if idx is None:
                line.append(("", " " * CELL_W))
                continue
            got = filled[idx] if filled is not None and idx < len(filled) else None
            if got:
                line.append(("class:cube.%s" % got.lower(), (" %s" % got).ljust(CELL_W)))
                continue
            cols = squares[idx]
            num = "%d" % idx
            line.append(("class:slot", num.rjust(CELL_W - len(cols))))
            for ch in cols:
                line.append(("class:slot class:need.%s" % ch.lower(), ch))
        out.append(line)
    return out


def _values(card: dict) -> str:
    return "★%d paint %d food %d" % (card["stars"], card["paint"], card["food"])


def _card_block(head: Line, card: dict, filled: Sequence | None, status: Line | None = None,
                title_line: bool = False) -> list[Line]:
    """A card: [head +] title, painter and year, values (+ status), then the grid of squares.

    ``title_line``: the head gets a line of its own (market cards: "slot 2  cost 2  8 squares")."""
    lines: list[Line] = []
    if title_line:
        lines.append(head + (status or []))
        lines.append([("bold", _short_title(card["title"], CARD_W))])
    else:
        room = CARD_W - sum(len(t) for _, t in head)
        lines.append(head + [("bold", _short_title(card["title"], max(4, room)))])
    year = ", %s" % card["year"]
    lines.append([("class:label", _short_title(card["painter"], CARD_W - len(year)) + year)])
    vals: Line = [("", _values(card))]
    if status and not title_line:
        vals += [("", "  ")] + status
    lines.append(vals)
    lines += _grid(card, filled)
    return lines


def _own_status(c: dict) -> Line:
    left = sum(1 for f in c["filled"] if f is None)
    if c.get("complete") or left == 0:
        return [("class:done", "COMPLETE")]
    return [("class:label", "%d to go" % left)]


# the step's label (rules._label) -> what a time-out does there (rules.default_action)
_TIMEOUT_WORDS = (
    ("'s turn", "the turn is spent working"),
    ("trade offer", "the offer is declined"),
    ("announces sales", "nothing is sold tonight"),
    ("collects", "the cubes are taken, needed colours first"),
    ("chooses the diamonds", "the rules choose the diamonds' colours"),
)


def _seat_word(s: int | None, me: int | None) -> str:
    if s is None:
        return "nobody"
    return "you" if s == me else "seat %d" % s


def _doing(v: dict, me: int | None, names: Sequence[str] = ()) -> str:
    """Whose decision it is, in a few words, the seats by name if ``names`` (the genesis's)."""
    return with_names(_doing_words(v, me), names)


def _names_of(ctx: Context) -> tuple:
    """The seats' names (the genesis's), () when it has none."""
    return tuple(ctx.snap.names) if ctx.snap is not None else ()


def _doing_words(v: dict, me: int | None) -> str:
    """Whose decision it is, in a few words: "your turn", "seat 2 collects"..."""
    step = v.get("step")
    t = v.get("turn")
    if v.get("phase") == "over":
        return "game over"
    if step == "answer":
        off = v["offer"]["seat"] if v.get("offer") else t
        waiting = [s for s in v.get("waiting", [])]
        return "answers to %s offer%s" % ("your" if off == me else "seat %d's" % off,
                                          " (%s)" % who(waiting, me) if waiting else "")
    if step == "announce":
        return "you announce sales" if t == me else "seat %d announces sales" % t
    if step == "collect":
        return "you collect" if t == me else "seat %d collects" % t
    if step == "turn":
        return "your turn" if t == me else "seat %d's turn" % t
    if step == "dusk":
        return "you choose the diamonds" if t == me else "seat %d chooses the diamonds" % t
    return ""


def action_words(v: dict, me: int, a: Mapping) -> str:
    """An action in a few words, with canvas numbers as on the screen (for the draft line)."""
    do = a.get("do")
    mine = v["canvases"][me] if v and me is not None else []
    num = {c["id"]: i + 1 for i, c in enumerate(mine)}

    def title(cid: int) -> str:
        return "'%s'" % _short_title(CARDS[cid].title, 24) if isinstance(cid, int) and 0 <= cid < len(CARDS) else "?"

    if do == "work":
        text = "work (3 cubes from the bag)"
    elif do == "buy":
        slot = a.get("slot")
        card = v["market"][slot - 1] if isinstance(slot, int) and 1 <= slot <= 3 else None
        text = "buy slot %s %s paying %s" % (slot, title(card["id"]) if card else "", cubes_text(a.get("pay")))
    elif do == "paint":
        groups: dict = {}
        for cid, sq, col in a.get("place") or []:
            groups.setdefault(cid, []).append("%s on %s" % (col, sq))
        text = "paint " + "; ".join("canvas %s %s: %s" % (num.get(cid, "#%s" % cid), title(cid), ", ".join(g))
                                     for cid, g in groups.items())
    elif do == "trade":
        text = "trade %s for %s with the Paint Market" % (cubes_text(a.get("give")), cubes_text(a.get("take")))
    elif do == "reset":
        text = "reset the canvas market paying %s" % cubes_text(a.get("pay"))
    elif do == "study":
        text = "colour study: 4 %s for 1 %s" % (a.get("give"), a.get("take"))
    elif do == "offer":
        text = "offer %s for %s" % (cubes_text(a.get("give")), cubes_text(a.get("take")))
    elif do == "sell":
        ids = a.get("canvases") or []
        text = "sell " + ", ".join("%s %s" % (num.get(c, "#%s" % c), title(c)) for c in ids) if ids else "sell nothing"
        if a.get("supper") is not None:
            text += "; Last Supper: %s" % title(a["supper"])
    elif do == "take":
        text = "take %s" % cubes_text(a.get("cubes"))
    elif do == "answer":
        text = "accept the offer" if a.get("accept") else "decline the offer"
    elif do == "diamonds":
        text = "diamonds of the leaving canvas: %s" % " ".join(str(c) for c in a.get("colours") or [])
    else:
        text = repr(dict(a))
    then = a.get("then")
    if isinstance(then, Mapping):
        text += ", then " + action_words(v, me, then)
    return text


class StarvingArtistsScreen(Screen):
    """Studio, canvases as coloured grids, the two markets, nutrition and fame; many actions a day."""

    board_width = 40
    styles = {
        **{"cube.%s" % k.lower(): v for k, v in CUBE_STYLE.items()},
        **{"need.%s" % k.lower(): v for k, v in NEED_STYLE.items()},
        "done": "bold fg:ansigreen",
        "slot": "bg:#303030 fg:#9e9e9e",
        "phase": "bold reverse",
        "marker": "bold fg:ansiyellow",
    }
    commands = {
        "work": "work", "w": "work",
        "buy": "buy", "b": "buy",
        "paint": "paint", "p": "paint",
        "trade": "trade", "t": "trade",
        "reset": "reset",
        "study": "study",
        "offer": "offer",
        "sell": "sell",
        "supper": "supper",
        "take": "take",
        "accept": "accept",
        "decline": "decline",
        "diamonds": "diamonds",
        "clear": "clear",
    }
    names_in_middle = True     # its middle says "seat N" in sentences; the studios' column takes the names itself
    timeout_effect = ("the rules' default: a turn works, an announcement sells nothing, "
                      "a collection takes the needed cubes first, an answer declines")
    chance_words = "drawing cubes from the bag / turning canvases over"
    mark_words = ("day/phase", "starts a new day or phase (morning, afternoon, night)")

    def timeout_effect_for(self, label: str) -> str:
        """Only the step that timed out: the rules' default for it (rules.default_action)."""
        for words, effect in _TIMEOUT_WORDS:
            if words in label:
                return effect
        return self.timeout_effect if not label else "the rules' default for that step"

    def __init__(self) -> None:
        self.draft: dict | None = None      # a suggested action waiting for Enter
        self.draft_why = ""                 # what the suggestion is ("suggested payment", ...)
        self._free_note = ""                # said after a free action sent on its own
        self._events: list = []             # the view's (day, event) list at our last decision

    # -- helpers -----------------------------------------------------------------
    @staticmethod
    def _view(ctx: Context) -> dict | None:
        v = ctx.view if ctx.deciding else (ctx.snap.view if ctx.snap and ctx.snap.view is not None else ctx.view)
        return v if isinstance(v, dict) else None

    @staticmethod
    def _latest(ctx: Context) -> dict | None:
        v = ctx.snap.view if ctx.snap and ctx.snap.view is not None else ctx.view
        return v if isinstance(v, dict) else None

    def _describe(self, ctx: Context, action: dict) -> str:
        text = ""
        if ctx.game is not None and ctx.state is not None and ctx.seat is not None:
            try:
                text = ctx.game.describe(ctx.state, ctx.seat, action)
            except Exception:
                text = ""
        if not text:
            return repr(action)
        prefix = "seat %d " % ctx.seat
        return text[len(prefix):] if text.startswith(prefix) else text

    # -- title, board, seats ---------------------------------------------------
    def title_parts(self, ctx: Context) -> list[str]:
        v = self._latest(ctx)
        if not v:
            return []
        parts = []
        if v["phase"] == "over":
            parts.append("after day %d" % v["day"])
        else:
            doing = _doing(v, ctx.seat, _names_of(ctx))
            parts.append("day %d %s%s" % (v["day"], v["phase"], ": " + doing if doing else ""))
        if v.get("edition") == "junior":
            parts.append("junior")
        if v.get("players") == 1:
            parts.append("solo")
        return parts

    def board_lines(self, ctx: Context) -> list[Line]:
        v = self._latest(ctx)
        if not v:
            return [[("class:header", "Starving Artists")], [("class:label", "waiting for the table...")]]
        me = ctx.seat
        if v["phase"] == "over":
            head: Line = [("class:phase", " GAME OVER "), ("", " after day %d" % v["day"])]
        else:
            head = [("class:phase", " DAY %d %s " % (v["day"], v["phase"].upper())), ("", " ")]
            doing = _doing(v, me, _names_of(ctx))
            head.append(("class:yourmove" if v.get("turn") == me and v.get("step") != "answer"
                         else "class:waiting", doing[: 40 - sum(len(t) for _, t in head)]))
        lines: list[Line] = [head]
        who_studio = me if me is not None else v.get("turn")
        if who_studio is not None and 0 <= who_studio < v["players"]:
            studio = v["studios"][who_studio]
            total = sum(studio.values())
            inc = v["incoming"][who_studio]
            names = _names_of(ctx)
            label = "Your studio" if who_studio == me else (
                "%s's studio" % seat_name(who_studio, None, names)[:24] if names else "Seat %d's studio" % who_studio)
            lines.append([("class:header", label), ("class:label", "  %d cube%s%s" % (
                total, "" if total == 1 else "s", ", +%d coming" % inc if inc else ""))])
            lines.append(_cube_blocks(studio))
        else:
            lines += [[("class:header", "Studio")], [("class:label", "-")]]
        pm = v["paint_market"]
        pm_n = sum(pm.values())
        lines.append([("class:header", "Paint Market"), ("class:label", "  %d cube%s" % (pm_n, "" if pm_n == 1 else "s"))])
        lines.append(_cube_blocks(pm))
        bag = sum(v["bag"].values())
        tail = "bag %d, deck %d" % (bag, v["deck"])
        if me is not None and v["phase"] != "over":
            tail += ", free action: %s" % ("used" if v["free_used"][me] else "unused")
        lines.append([("class:label", tail[:40])])
        return lines

    def seat_columns(self, ctx: Context) -> list[tuple[str, int]]:
        return [("food", 5), ("pts", 5), ("sold", 4), ("canv", 5), ("cubes", 5), ("1st", 3)]

    def seat_cells(self, ctx: Context, s: int) -> list[str]:
        v = self._latest(ctx)
        if not v:
            return ["-"] * 6
        n_sold, n_pts = (v["targets"] or [None, None])
        if not v["alive"][s]:
            food = "out"
        else:
            k = max(0, min(5, v["nutrition"][s]))
            food = "●" * k + "○" * (5 - k)
        pts = "%d/%d" % (v["score"][s], n_pts) if n_pts else "%d" % v["score"][s]
        sold = "%d/%d" % (v["sold"][s], n_sold) if n_sold else "%d" % v["sold"][s]
        cs = v["canvases"][s]
        done = sum(1 for c in cs if c["complete"])
        canv = "%d" % len(cs) + ("/%d✓" % done if done else "")
        cubes = sum(v["studios"][s].values())
        inc = v["incoming"][s]
        cube_s = "%d+%d" % (cubes, inc) if inc else "%d" % cubes
        first = "◆" if v["first"] == s and v["phase"] != "over" else ""
        return [food, pts, sold, canv, cube_s, first]

    # -- the middle pane ---------------------------------------------------------
    def middle_lines(self, ctx: Context, width: int) -> list[Line]:
        v = self._latest(ctx)
        if not v:
            return [[("class:label", "Waiting for the shared seed...")]]
        me = ctx.seat
        lines: list[Line] = []
        night = v["phase"] == "night"
        if v.get("offer"):
            lines += self._offer_lines(v, me, width) + [[]]
        if night:
            lines += self._night_lines(v, me, width) + [[]]
        lines += self._cards_lines(v, me, width)
        lines.append([])
        lines += self._studios_lines(v, me, width, _names_of(ctx))
        lines.append([])
        lines += self._today_lines(v, me, width)
        lines.append([])
        return lines

    def _cards_lines(self, v: dict, me: int | None, width: int) -> list[Line]:
        over = v["phase"] == "over"
        whose = me if me is not None else v.get("turn")
        own: list[Line] = []
        if whose is not None and 0 <= whose < v["players"]:
            mine = v["canvases"][whose]
            head: Line = [("class:header", "Your canvases" if whose == me else "Seat %d's canvases" % whose)]
            if mine and not over and whose == me:
                head.append(("class:label", " (paint CANVAS SQUARE COLOUR)"))
            own.append(head)
            if not mine:
                own.append([("class:label", "  none yet - buy one: buy SLOT" if whose == me and not over else "  none")])
            cards = [_card_block([("bold", "%d " % (i + 1))], c["card"], c["filled"], _own_status(c))
                     for i, c in enumerate(mine)]
            own += layout_cards(cards, width)
        market: list[Line] = []
        if not over:
            costs = v["market_costs"]
            market.append([("class:header", "Canvas market"),
                           ("class:label", " (buy SLOT; deck %d)" % v["deck"])])
            cards = []
            for slot, card in enumerate(v["market"], start=1):
                head = [("bold", "slot %d" % slot), ("", "  "), ("class:marker", "cost %d" % costs[slot - 1])]
                if card is None:
                    cards.append([head, [("class:label", "(empty)")]])
                else:
                    cards.append(_card_block(head, card, None,
                                             [("class:label", "  %d squares" % len(card["squares"]))], title_line=True))
            market += layout_cards(cards, width)
        if not market:
            return own
        w_own = max((sum(len(t) for _, t in l) for l in own), default=0)
        w_mkt = max((sum(len(t) for _, t in l) for l in market), default=0)
        if own and w_own + 4 + w_mkt <= width:
            return layout_cards([own, market], width, gap=4)
        return own + [[]] + market

    def _studios_lines(self, v: dict, me: int | None, width: int, names: Sequence[str] = ()) -> list[Line]:
        """Every seat's cubes; ``names``: the seats' names (the genesis's), () says "seat N"."""
        lines: list[Line] = [[("class:header", "Studios"), ("class:label", " (cubes by colour; +N = drawn, arriving)")]]
        said = ["you" if s == me else seat_name(s, None, names)[:24] for s in range(v["players"])]
        nw = max([7] + [len(t) for t in said])
        for s in range(v["players"]):
            line: Line = [("class:you" if s == me else "", "  %-*s " % (nw, said[s]))]
            if not v["alive"][s]:
                line.append(("class:label", "starved - out of the game"))
            else:
                line += _cube_blocks(v["studios"][s], show_zero=False)
                if v["incoming"][s]:
                    line.append(("class:label", " +%d" % v["incoming"][s]))
                gallery = v["gallery"][s]
                if gallery:
                    line.append(("class:label", "  sold %d" % len(gallery)))
            lines += wrap(line, width, " " * (nw + 5))
        return lines

    def _offer_lines(self, v: dict, me: int | None, width: int) -> list[Line]:
        off = v["offer"]
        s = off["seat"]
        line: Line = [("class:header", "Trade offer"), ("", ": %s give%s %s for %s" % (
            "you" if s == me else "seat %d" % s, "" if s == me else "s",
            cubes_text(off["give"]), cubes_text(off["take"])))]
        answers = []
        for o, a in enumerate(off["answers"]):
            if o == s or not v["alive"][o]:
                continue
            answers.append("%s %s" % (_seat_word(o, me), "?" if a is None else ("accepts" if a else "declines")))
        if answers:
            line.append(("class:label", " - " + ", ".join(answers)))
        return wrap(line, width)

    def _night_lines(self, v: dict, me: int | None, width: int) -> list[Line]:
        lines: list[Line] = [[("class:header", "Tonight"),
                              ("class:label", " (announced clockwise from the first player; paid in paint-value order)")]]
        if not v["announced"] and v["step"] == "announce":
            lines.append([("class:label", "  no announcements yet")])
        for a in v["announced"]:
            s = a["seat"]
            ids = a["canvases"]
            text = "  %s: " % _seat_word(s, me)
            if ids:
                text += "sell%s " % ("" if s == me else "s") + ", ".join(self._card_name(v, cid) for cid in ids)
            else:
                text += "sell%s nothing" % ("" if s == me else "s")
            if a.get("supper") is not None:
                text += "; Last Supper: %s" % self._card_name(v, a["supper"])
            lines += wrap([("", text)], width, "      ")
        col = v["collection"]
        queue = col["queue"]
        if queue:
            lines.append([("bold", "  Getting paid"),
                          ("class:label", " (4 / 2 / 1 cubes per collection action by paint value)")])
            for i, e in enumerate(queue):
                nxt = col["next"] == i
                text = "%s %s: %s, paint %d, %d a time, %d still owed" % (
                    " >" if nxt else "  ", _seat_word(e["seat"], me), self._card_name(v, e["canvas"]),
                    e["paint"], e["per"], e["owed"])
                if nxt and col.get("amount") is not None:
                    text += " - takes %d now" % col["amount"]
                lines += wrap([("class:waiting" if nxt else "", text)], width, "      ")
        return lines

    @staticmethod
    def _card_name(v: dict, cid: int) -> str:
        if isinstance(cid, int) and 0 <= cid < len(CARDS):
            return "'%s'" % _short_title(CARDS[cid].title, 30)
        return "#%s" % cid

    def _today_lines(self, v: dict, me: int | None, width: int) -> list[Line]:
        events = list(v.get("events") or [])
        days = list(v.get("event_days") or [v["day"]] * len(events))
        today = [(d, e) for d, e in zip(days, events) if d == v["day"]]
        if not today:
            return []
        lines: list[Line] = [[("class:header", "Day %d so far" % v["day"]),
                              ("class:label", " (draws, flips, sales and collections; newest first)")]]
        # the latest 14, and any older one that decides the game (a seat starving) is never hidden
        shown = [k for k in range(len(today)) if k >= len(today) - 14 or _PINNED.search(today[k][1])]
        for k in reversed(shown):
            text = compact_event(today[k][1])
            if me is not None:
                text = re.sub(r"\bseat %d\b" % me, "seat %d (you)" % me, text)
            style = "class:log.mine" if me is not None and "seat %d" % me in text else ""
            if _PINNED.search(text):
                style = "class:error"
            lines += wrap([(style, "  " + text)], width, "      ")
        if len(today) > len(shown):
            lines.append([("class:label", "  ... %d earlier today (the first ones)" % (len(today) - len(shown)))])
        return lines

    # -- game over ---------------------------------------------------------------
    def game_over_lines(self, ctx: Context, width: int) -> list[Line]:
        res = ctx.result
        if not isinstance(res, dict) or "ranking" not in res:
            return super().game_over_lines(ctx, width)
        me = ctx.seat
        lines: list[Line] = [[("class:over", "GAME OVER"), ("class:label", " after day %s - %s" % (
            res.get("days", "?"), res.get("reason") or "the game ended"))]]
        lines.append([("class:label", "     %-14s %6s %5s %5s %6s" % ("", "points", "sold", "food", "cubes"))])
        places = res.get("places") or []
        solo = len(res["ranking"]) == 1
        winners = set(res.get("winners") or []) if not solo else set()   # a solo game has a rating, no winner
        for s in res["ranking"]:
            place = places[s] if s < len(places) else res["ranking"].index(s) + 1
            tied = sum(1 for o in res["ranking"] if (places[o] if o < len(places) else 0) == place) > 1
            notes = []
            if s in winners:
                notes.append("winner")
            if (res.get("starved") or [False] * (s + 1))[s]:
                notes.append("starved")
            row = "%s %-14s %6d %5d %5d %6d  %s" % (
                "    " if solo else "%3d%s" % (place, "=" if tied else "."), seat_name(s, me), res["points"][s],
                res["sold"][s], res["food"][s], res["cubes"][s], ", ".join(notes))
            lines.append([("class:you" if s == me else "", row.rstrip())])
        if res.get("rating"):
            lines.append([("bold", "Solo rating: %s" % res["rating"]),
                          ("class:label", " (0-9 Keep trying, 10-19 Surviving, 20-24 Expert, 25+ Professional)")])
        if res.get("decided_by") == "objective":
            lines.append([("class:label", "Only one artist met an objective that night and wins; the others by "
                                          "points, then canvases sold, then food earned, then unused cubes.")])
        elif res.get("decided_by") == "tie":
            lines.append([("class:label", "Several artists met an objective the same night: a tie, decided among "
                                          "them by points, then canvases sold, then food earned, then unused "
                                          "cubes; the others after them.")])
        else:
            lines.append([("class:label", "Ties: points, then canvases sold, then food earned, then unused cubes.")])
        out: list[Line] = []
        for line in lines:
            out += wrap(line, width, "     ")
        return out

    def final_words(self, ctx: Context) -> str:
        res = ctx.result
        if not isinstance(res, dict) or "ranking" not in res or ctx.seat not in res["ranking"]:
            return "The game is over."
        s = ctx.seat
        places = res.get("places") or []
        place = places[s] if s < len(places) else res["ranking"].index(s) + 1
        pts = res["points"][s]
        n = len(res["ranking"])
        if n == 1:          # a solo game: no place to finish in, a rating
            text = "Game over after day %s: you scored %s with %s sold%s." % (
                res.get("days", "?"), plural(pts, "point"), plural(res["sold"][s], "canvas", "canvases"),
                " (you starved)" if (res.get("starved") or [False] * (s + 1))[s] else "")
            if res.get("rating"):
                text += " Solo rating: %s." % res["rating"]
            return text
        shared = sum(1 for o in res["ranking"] if (places[o] if o < len(places) else 0) == place) > 1
        text = "Game over after day %s: you finished %s with %s and %s sold." % (
            res.get("days", "?"), place_words(place, n, shared), plural(pts, "point"),
            plural(res["sold"][s], "canvas", "canvases"))
        if res.get("rating"):
            text += " Solo rating: %s." % res["rating"]
        elif s in (res.get("winners") or []):
            text += " You win!" if len(res["winners"]) == 1 else " You share the win."
        elif res.get("winners"):
            text += " Winner: %s." % who(res["winners"], s)
        return text

    # -- the event log -----------------------------------------------------------
    # -- deciding ----------------------------------------------------------------
    def decision_label(self, ctx: Context) -> str:
        v = self._view(ctx)
        if not v:
            return ""
        step = v["step"]
        if step == "turn":
            return "day %d %s" % (v["day"], v["phase"])
        if step == "announce":
            return "night: announce sales"
        if step == "collect":
            amount = v["collection"].get("amount")
            return "night: collect %s cube%s" % (amount, "" if amount == 1 else "s")
        if step == "answer":
            return "answer seat %d's offer" % v["offer"]["seat"] if v.get("offer") else "answer the offer"
        if step == "dusk":
            return "end of day: diamonds"
        return ""

    def on_decision(self, ctx: Context) -> Say | None:
        v = self._view(ctx)
        self.draft, self.draft_why = None, ""
        if not v or ctx.seat is None:
            return None
        me = ctx.seat
        news = self._news(v, me)
        step = v["step"]
        if step == "turn":
            if self._free_note:
                text = "%s Now your main action: work, buy or paint." % self._free_note
            else:
                text = "Day %d %s: your turn." % (v["day"], v["phase"])
            self._free_note = ""
            return Say(text + news)
        self._free_note = ""
        if step == "announce":
            done = [(i + 1, c) for i, c in enumerate(v["canvases"][me]) if c["complete"]]
            names = ", ".join("%d %s" % (i, _short_title(c["card"]["title"], 24)) for i, c in done)
            return Say("Night: announce your sales (final). Complete: %s. sell N.. | sell all | sell none.%s"
                       % (names, news))
        if step == "collect":
            best = self._best_take(ctx)
            col = v["collection"]
            e = col["queue"][col["next"]] if col.get("next") is not None else None
            what = " for %s" % self._card_name(v, e["canvas"]) if e else ""
            amount = col.get("amount")
            if best is not None:
                self.draft, self.draft_why = best, "the game's best pick"
                return Say("Collect %s cube%s%s from the Paint Market: Enter takes %s, or take CUBES.%s" % (
                    amount, "" if amount == 1 else "s", what, cubes_text(best["cubes"]), news))
            return Say("Collect %s cubes%s: take CUBES.%s" % (amount, what, news))
        if step == "answer" and v.get("offer"):
            off = v["offer"]
            return Say("Seat %d offers %s for your %s: accept or decline.%s" % (
                off["seat"], cubes_text(off["give"]), cubes_text(off["take"]), news))
        if step == "dusk" and v.get("dusk"):
            d = v["dusk"]
            self.draft = {"do": "diamonds", "colours": list(d["default"])}
            self.draft_why = "keeps the scarcer colour in the Paint Market"
            return Say("End of day: %s leaves the market. Choose each diamond's colour (what goes back to the "
                       "bag): %s. Enter sends %s, or diamonds COLOUR...%s" % (
                           self._card_name(v, d["canvas"]), "; ".join(
                               "%s: %s" % (k, cubes_text(r)) for k, r in d["returns"].items()),
                           " ".join(d["default"]), news))
        return None

    NEWS_CHARS = 160

    def _news(self, v: dict, me: int) -> str:
        """What happened since our last decision (the view's events: moves, draws, flips, sales,
        collections); when it is long the oldest news goes first, ours last. Remembers what it told."""
        cur = list(zip(v.get("event_days") or [v["day"]] * len(v.get("events") or []), v.get("events") or []))
        old = self._events
        self._events = cur
        new = cur
        for drop in range(len(old) + 1):            # events are only appended, and trimmed at the front
            rest = old[drop:]
            if cur[:len(rest)] == rest:
                new = cur[len(rest):]
                break
        if not new:
            return ""
        own = re.compile(r"seat %d (works|buys|paints|trades|pays|studies|offers)\b" % me)
        texts: list[str] = []
        flips: list[str] = []
        for _, t in new:
            m = re.match(r"('.*') is turned over into slot (\d)$", t)
            if m:
                flips.append("%s (%s)" % (_short_title(m.group(1), 30), m.group(2)))
                continue
            if flips:
                texts.append("turned over: " + ", ".join(flips))
                flips = []
            if not own.match(t):
                texts.append(re.sub(r"\bseat %d\b" % me, "seat %d (you)" % me, compact_event(t)))
        if flips:
            texts.append("turned over: " + ", ".join(flips))
        if not texts:
            return ""
        mine = "seat %d (you)" % me

        def level(t: str) -> int:
            if mine in t:
                return 3
            if t.startswith("day ") or " sells " in t or " starves" in t or " collects " in t or "offer" in t:
                return 2
            if t.startswith("turned over") or t.startswith("the Paint Market"):
                return 0
            return 1

        keep = list(range(len(texts)))

        def size() -> int:
            return sum(len(texts[i]) + 2 for i in keep)

        for lv in range(4):                  # the least telling news goes first, oldest first
            for i in list(keep):
                if size() <= self.NEWS_CHARS or len(keep) == 1:
                    break
                if level(texts[i]) == lv:
                    keep.remove(i)
        out = [texts[i] for i in keep]
        # news left out is said in words (a lone "..." read as a placeholder: "So far: ...; ...")
        more = " (%d more in the event log)" % (len(texts) - len(keep)) if len(keep) < len(texts) else ""
        return (" Since your last move%s: " if old else " So far%s: ") % more + "; ".join(out) + "."

    def _best_take(self, ctx: Context) -> dict | None:
        if ctx.game is None or ctx.state is None or ctx.seat is None:
            return None
        try:
            action = ctx.game.default_action(ctx.state, ctx.seat)
        except Exception:
            return None
        return dict(action) if isinstance(action, dict) and action.get("do") == "take" else None

    def draft_line(self, ctx: Context) -> list:
        v = self._view(ctx)
        if not v or ctx.seat is None:
            return []
        me = ctx.seat
        if not v["alive"][me] and v["phase"] != "over":
            return [("class:label", "You starved and are out of the game; you can still watch (and win on points).")]
        if self.draft is not None and ctx.deciding:
            out: list = [("bold", "Draft: "), ("", action_words(v, me, self.draft)),
                         ("class:label", " (%s; Enter sends it)" % self.draft_why)]
            probs = ctx.problems(self.draft)
            if probs:
                out.append(("class:error", " | cannot send: " + "; ".join(probs)))
            return out
        if ctx.deciding:
            step = v["step"]
            if step == "turn":
                opts = v.get("options") or {}
                frees = ["trade", "reset"] + (["study"] if opts.get("color_study") else []) + \
                    (["offer"] if opts.get("player_trades") else [])
                free = "used today" if v["free_used"][me] else "unused: " + ", ".join(frees)
                return [("bold", "Your turn: "), ("", "work | buy SLOT | paint C SQ COLOUR.. | paint auto"),
                        ("class:label", " | free action %s" % free)]
            if step == "announce":
                return [("bold", "Announce: "), ("", "sell N [N..] | sell all | sell none"),
                        ("class:label", " (your canvas numbers; final once sent)")]
            if step == "collect":
                return [("bold", "Collect: "), ("", "take CUBES | take best")]
            if step == "answer":
                return [("bold", "Answer: "), ("", "accept | decline")]
            if step == "dusk":
                return [("bold", "End of day: "), ("", "diamonds COLOUR.. (one per diamond of the leaving canvas)")]
        if v["phase"] == "over":
            return []
        what = "drawing cubes / turning canvases over" if v.get("chance") else _doing(v, me, _names_of(ctx))
        out = [("class:label", "Waiting: %s." % what)]
        if v["step"] == "turn" and v["phase"] != "night":
            out.append(("class:label", " Your free action today: %s." % ("used" if v["free_used"][me] else "unused")))
        return out

    # -- commands ----------------------------------------------------------------
    def command(self, ctx: Context, name: str, args: list[str]) -> Say | Send | None:
        if name == "clear":
            self.draft, self.draft_why = None, ""
            return Say("draft cleared")
        v = self._view(ctx)
        if v is None or ctx.seat is None:
            raise CommandError("the table has not started yet")
        action, why = self._parse(ctx, v, name, args)
        if not ctx.deciding:
            probs = ctx.problems(action)
            reason = probs[0] if probs else "it is not your move yet - wait for YOUR MOVE"
            if v.get("step") == "answer" and v.get("offer") and v["offer"]["seat"] == ctx.seat:
                reason = "the others are answering your trade offer; your turn goes on after that"
            raise CommandError("%s - nothing sent" % reason)
        probs = ctx.problems(action)
        if probs:
            raise CommandError("cannot do that: %s - nothing sent" % "; ".join(probs))
        if why:
            self.draft, self.draft_why = action, why
            return Say("Suggested (%s): %s. Enter sends it, or type another command." % (
                why, action_words(v, ctx.seat, action)))
        self.draft, self.draft_why = None, ""
        return Send(action)

    def _parse(self, ctx: Context, v: dict, name: str, args: list[str]) -> tuple[dict, str]:
        """(action, why) - ``why`` is non-empty when the screen chose part of it (a suggestion)."""
        me = ctx.seat
        low = [a.lower() for a in args]
        if name in ("work", "buy", "paint", "trade", "reset", "study", "offer") and "then" in low:
            k = low.index("then")
            main_args, free_args = args[:k], args[k + 1:]
            if name not in ("work", "buy", "paint"):
                raise CommandError("'%s then ...': only a main action (work, buy, paint) takes a free action "
                                   "after it; send %s on its own first, then your main action" % (name, name))
            if not free_args:
                raise CommandError("then what? e.g. work then trade BB for R")
            fname = self.commands.get(free_args[0].lower())
            if fname not in ("trade", "reset", "study", "offer"):
                raise CommandError("after 'then' comes a free action: trade, reset, study or offer - not %r"
                                   % free_args[0])
            main, why1 = self._parse_one(ctx, v, me, name, main_args)
            free, why2 = self._parse_one(ctx, v, me, fname, free_args[1:])
            main = dict(main, then=free)
            return main, " and ".join(w for w in (why1, why2) if w)
        return self._parse_one(ctx, v, me, name, args)

    def _parse_one(self, ctx: Context, v: dict, me: int, name: str, args: list[str]) -> tuple[dict, str]:
        low = [a.lower() for a in args]
        mine = v["canvases"][me]
        if name == "work":
            if args:
                raise CommandError("work takes no arguments (it draws 3 cubes from the bag)")
            return {"do": "work"}, ""
        if name == "buy":
            if not args or not args[0].isdigit():
                raise CommandError("usage: buy SLOT [pay CUBES], e.g. buy 2 pay OB (slots 1, 2, 3)")
            slot = int(args[0])
            if not 1 <= slot <= 3:
                raise CommandError("the canvas market has slots 1, 2 and 3, not %d" % slot)
            rest = args[1:]
            if rest and rest[0].lower() == "pay":
                rest = rest[1:]
                if not rest:
                    raise CommandError("pay what? e.g. buy %d pay %s" % (slot, "B" * v["market_costs"][slot - 1]))
            if rest:
                return {"do": "buy", "slot": slot, "pay": parse_cubes(rest, "pay")}, ""
            card = v["market"][slot - 1]
            cost = v["market_costs"][slot - 1]
            pay = suggest_pay(v["studios"][me], cost, _want(v, me, [card] if card else []))
            return {"do": "buy", "slot": slot, "pay": pay}, "the cubes you need least"
        if name == "paint":
            if low in (["auto"], ["a"], ["best"]):
                place = self._auto_paint(ctx, v, me)
                if not place:
                    raise CommandError("nothing to paint: none of your cubes fits an empty square of your canvases")
                return {"do": "paint", "place": place}, "the most squares you can fill"
            return {"do": "paint", "place": parse_paint(args, mine)}, ""
        if name in ("trade", "offer"):
            if "for" not in low:
                raise CommandError("usage: %s GIVE for TAKE, e.g. %s BB for R" % (name, name))
            k = low.index("for")
            take = parse_cubes(args[k + 1:], "take")
            if k == 0 and name == "trade":
                n = sum(take.values())
                give_n = {1: 2, 2: 5, 3: 9}.get(n)
                if give_n is None:
                    raise CommandError("the Paint Market gives 1, 2 or 3 cubes (for 2, 5 or 9), not %d" % n)
                give = suggest_pay(v["studios"][me], give_n, _want(v, me))
                return {"do": "trade", "give": give, "take": take}, "the cubes you need least"
            give = parse_cubes(args[:k], "give")
            return {"do": name, "give": give, "take": take}, ""
        if name == "reset":
            rest = args[1:] if args and low[0] == "pay" else args
            if rest:
                return {"do": "reset", "pay": parse_cubes(rest, "pay")}, ""
            if args:
                raise CommandError("pay what? e.g. reset pay BK")
            return {"do": "reset", "pay": suggest_pay(v["studios"][me], 2, _want(v, me))}, \
                "the cubes you need least"
        if name == "study":
            if len(args) != 2:
                raise CommandError("usage: study GIVE TAKE - 4 cubes of colour GIVE for 1 of colour TAKE: study B R")
            return {"do": "study", "give": parse_colour(args[0]), "take": parse_colour(args[1])}, ""
        if name in ("sell", "supper"):
            return self._parse_sell(v, me, name, args), ""
        if name == "take":
            if low in (["best"], ["auto"]):
                best = self._best_take(ctx)
                if best is None:
                    raise CommandError("there is nothing to collect now")
                return best, ""
            return {"do": "take", "cubes": parse_cubes(args, "take")}, ""
        if name in ("accept", "decline"):
            if args:
                raise CommandError("%s takes no arguments" % name)
            return {"do": "answer", "accept": name == "accept"}, ""
        if name == "diamonds":
            if not v.get("dusk"):
                raise CommandError("diamonds are chosen at the end of a solo day only")
            if not args or low in (["auto"], ["default"]):
                return {"do": "diamonds", "colours": list(v["dusk"]["default"])}, ""
            one = len(args) == 1 and len(args[0]) > 1 and args[0].lower() not in _WORDS
            cols = [parse_colour(a) for a in (list(args[0]) if one else args)]
            return {"do": "diamonds", "colours": cols}, ""
        raise CommandError("unknown command %r" % name)

    def _auto_paint(self, ctx: Context, v: dict, me: int) -> list[list]:
        """The best of the screen's suggestion and the game's own paint actions (most cubes, most completions)."""
        cands = [suggest_paint(v, me)]
        legal = ctx.legal() if ctx.deciding else None
        for a in legal or []:
            if isinstance(a, dict) and a.get("do") == "paint" and "then" not in a:
                cands.append([list(p) for p in a["place"]])
        empties = {c["id"]: sum(1 for f in c["filled"] if f is None) for c in mine_of(v, me)}

        def score(place: list) -> tuple:
            per: dict[int, int] = {}
            for cid, _, _ in place:
                per[cid] = per.get(cid, 0) + 1
            completes = sum(1 for cid, n in per.items() if empties.get(cid) == n)
            wilds = sum(1 for p in place if p[2] == "W")
            return (len(place), completes, -wilds)

        good = [p for p in cands if p and not ctx.problems({"do": "paint", "place": p})]
        if not good:
            return cands[0]
        return max(good, key=score)

    def _parse_sell(self, v: dict, me: int, name: str, args: list[str]) -> dict:
        mine = v["canvases"][me]
        low = [a.lower() for a in args]
        supper = None
        if name == "supper":
            if len(args) != 1:
                raise CommandError("usage: supper N - eat your complete canvas N (Last Supper)")
            return {"do": "sell", "canvases": [], "supper": _canvas_ref(args[0], mine)}
        if "supper" in low:
            k = low.index("supper")
            if len(args) != k + 2:
                raise CommandError("usage: sell N [N..] supper M")
            supper = _canvas_ref(args[k + 1], mine)
            args, low = args[:k], low[:k]
        if not args:
            if supper is not None:
                return {"do": "sell", "canvases": [], "supper": supper}
            raise CommandError("usage: sell N [N ..] (your canvas numbers), sell all, or sell none")
        if low in (["none"], ["nothing"], ["no"], ["0"]):
            ids: list[int] = []
        elif low == ["all"]:
            ids = [c["id"] for c in mine if c["complete"] and c["id"] != supper]
        else:
            ids = [_canvas_ref(a, mine) for a in args]
        return {"do": "sell", "canvases": ids, "supper": supper}

    def submit(self, ctx: Context) -> Say | Send | None:
        if not ctx.deciding:
            return None
        v = self._view(ctx)
        if self.draft is None:
            step = v["step"] if v else ""
            hint = {
                "turn": "type work, buy SLOT, paint CANVAS SQUARE COLOUR (or paint auto), or a free action",
                "announce": "type sell N [N..], sell all or sell none",
                "collect": "type take CUBES or take best",
                "answer": "type accept or decline",
                "dusk": "type diamonds COLOUR.. or diamonds auto",
            }.get(step, "type a command (help lists them)")
            raise CommandError("nothing to send yet: %s" % hint)
        probs = ctx.problems(self.draft)
        if probs:
            raise CommandError("cannot send the draft: %s - change it or type another command" % "; ".join(probs))
        action = self.draft
        self.draft, self.draft_why = None, ""
        return Send(action)

    def on_sent(self, ctx: Context, action: Any, text: str) -> Say:
        self.draft, self.draft_why = None, ""
        do = action.get("do") if isinstance(action, dict) else None
        if do in ("trade", "reset", "study", "offer"):
            self._free_note = "Sent: %s." % text
            return Say("Sent: %s. Your turn goes on: work, buy or paint next." % text, "class:sent")
        extra = ""
        if do == "work":
            extra = " (they arrive after your turn)"
        v = self._view(ctx)
        if do == "buy" and v:
            slot = action.get("slot")
            card = v["market"][slot - 1] if isinstance(slot, int) and 1 <= slot <= 3 else None
            if card:
                extra = ": %s" % _short_title(card["title"], 40)
        return Say("Sent: %s%s" % (text, extra), "class:sent")

    # -- help --------------------------------------------------------------------
    def key_help(self, ctx: Context) -> list[str]:
        v = self._view(ctx)
        step = v.get("step") if v else None
        if step in NIGHT_STEPS:
            return _KEY_NIGHT
        if step == "answer" and ctx.deciding:
            return _KEY_ANSWER
        return _KEY_TURN

    def command_help(self, ctx: Context) -> list[tuple[str, str]]:
        v = self._latest(ctx)
        junior = (v or {}).get("edition") == "junior" or (ctx.config or {}).get("edition") == "junior"
        values = {"costs": "every slot costs 1 (junior)" if junior else "slot 1 costs 1, slot 2 costs 2, slot 3 costs 3"}
        return [(k, text % values if "%(" in text else text) for k, text in _COMMAND_HELP]

    def rules_help(self, ctx: Context) -> list[tuple[str, list[tuple[str, str]]]]:
        v = self._latest(ctx)
        cfg = dict((v or {}).get("options") or ctx.config or {})
        players = (v or {}).get("players") or ctx.players or 4
        junior = cfg.get("edition") == "junior"
        rows = [
            ("A day", "Start of day (from day 2): the first-player marker ◆ passes clockwise, 4 cubes go from the "
                      "bag to the Paint Market, everyone's nutrition drops by 1 (below 1: you starve and are out; "
                      "the others get exactly one more day). Then morning and afternoon: each artist, clockwise "
                      "from the first player, takes one action. Then night: sales."),
            ("Actions", "work: 3 cubes from the bag (not paintable this turn). buy: pay the slot's cost (%s) in any "
                        "cubes to the Paint Market; the row slides toward slot 1 and a new canvas is turned over "
                        "into slot 3. paint: up to 4 cubes onto your canvases - the square's colour, either colour "
                        "of a diamond, or a wild (at most one wild per canvas)."
                        % ("1 each, junior" if junior else "1, 2, 3")),
            ("Free action", "once a day, in one of your turns, before or after your action: trade with the Paint "
                            "Market 2 for 1, 5 for 2 or 9 for 3 (wilds may be given, never taken), or reset the "
                            "canvas market for 2 cubes (three new canvases; you may still buy one)%s%s."
                            % ("; or a Color Study: 4 cubes of one colour for any 1 from the bag" if cfg.get("color_study") else "",
                               "; or one trade offer to all the others (the first accepting seat clockwise from you "
                               "trades)" if cfg.get("player_trades") else "")),
            ("Night", "clockwise from the first player, artists with a complete canvas announce what they sell "
                      "(final). Each sale: food value to nutrition (above 5: 4 cubes from the bag per extra food), "
                      "the canvas's cubes back to the bag, stars to your points.%s"
                      % (" Last Supper: at nutrition 1 you may eat a complete canvas for its stars in food."
                         if cfg.get("last_supper") else "")),
            ("Getting paid", "draw the paint value from the bag (junior)." if junior else
             "in paint-value order the canvases sold tonight collect from the Paint Market, in rounds of "
             "collection actions: the highest paint value takes 4 cubes an action, the second highest 2, all "
             "others 1, until each has its paint value or the market is empty; equal values take the same amount, "
             "in order from the first player; at most one wild per action. Enter takes the suggested pick."),
        ]
        if players == 1:
            end = ("solo: at the end of each day the slot 1 canvas leaves the game (matching Paint Market cubes go "
                   "back to the bag; you choose each diamond's colour); the game ends when you starve or the canvas "
                   "market is empty. Rating: 0-9 "
                   "Keep trying, 10-19 Surviving, 20-24 Expert, 25+ Professional.")
        else:
            targets = {2: (7, 16), 3: (6, 14), 4: (5, 12)}.get(players)
            end = ("after a night in which an artist has sold %d canvases or has %d points (%d players), or the "
                   "night of the day after someone starves. The night's sales count together: an artist who alone "
                   "meets an objective wins; several who meet one the same night are a tie, decided among them "
                   "by points, then canvases sold, then food earned, then unused cubes; if none is met, points "
                   "decide among all (the same order after points) and a starved artist can still win." % (targets + (players,))
                   if targets else "see RULES.md")
        rows.append(("End", end))
        rows.append(("Screen", "canvases are numbered 1, 2, .. (yours) and squares 0, 1, .. in reading order; a "
                               "painted square is a solid block with its cube's letter, an empty one shows its number "
                               "and the colour letter(s) it takes (two letters: a diamond, either colour). Colours in "
                               "the rulebook's order: R red, O orange, Y yellow, G green, B blue, P purple, K black, "
                               "W wild. Seats: food = nutrition (5 pips), pts = points/target, sold = canvases "
                               "sold/target, canv = canvases (/N✓ complete), cubes (+N arriving), ◆ first player."))
        return [("Starving Artists in short", rows)]

    # -- replay ------------------------------------------------------------------
    def describe_table(self, ctx: Context, config: Mapping[str, Any], players: int) -> str:
        cfg = dict(config)
        parts = ["%s rules" % cfg.get("edition", "standard")]
        names = {"color_study": "Color Study", "player_trades": "Player trades", "last_supper": "Last Supper"}
        on = [label for key, label in names.items() if cfg.get(key)]
        parts.append("options: %s" % (", ".join(on) if on else "none"))
        if players == 1:
            parts.append("solo, %s canvases%s" % (cfg.get("solo_canvases", 35),
                                                  ", no comic books" if cfg.get("remove_comics") else ""))
        return "Starving Artists for %d seat%s; %s" % (players, "" if players == 1 else "s", "; ".join(parts))

    # -- the event log -----------------------------------------------------------
    def describe(self, game: Any, state: Any, seat: int, action: Any) -> str:
        """The game's words, a painting's squares grouped per canvas (the title once, not per square)."""
        return compact_event(game.describe(state, seat, action))

    # -- the reveal moment -------------------------------------------------------
    def beats(self, ctx: Context, before: Snapshot) -> list[Beat]:
        """At night and as a day starts: each announcement, sale, collection and draw as a beat."""
        return night_beats(before.view if before is not None else None, ctx.snap.view if ctx.snap else None,
                           ctx.seat)

    def happenings(self, before: Any, view: Any) -> list[str]:
        """A seat starving (and the game's end), which no move names, for the event log."""
        return [compact_event(text) for _, text in new_events(before, view) if _PINNED.search(text)]

    def is_mark(self, before: Snapshot, after: Snapshot) -> bool:
        a, b = before.view, after.view
        if not isinstance(b, dict):
            return False
        if not isinstance(a, dict):
            return True
        return (a.get("day"), a.get("phase")) != (b.get("day"), b.get("phase"))


def new_events(before: Any, after: Any) -> list[tuple[int, str]]:
    """The (day, text) events ``after``'s view has that ``before``'s had not (the rules keep a
    sliding window of this day's and the previous day's events: old ones drop off the front)."""
    if not isinstance(after, dict):
        return []
    new = list(zip(after.get("event_days") or [], after.get("events") or []))
    if not isinstance(before, dict):
        return []
    old = list(zip(before.get("event_days") or [], before.get("events") or []))
    for j in range(len(old) + 1):
        tail = old[j:]
        if new[:len(tail)] == tail:
            return new[len(tail):]
    return new


def _event_style(text: str) -> str:
    if " sells " in text or " collects " in text or "Last Supper" in text:
        return "class:done"
    if "starves" in text or "game over" in text:
        return "class:error"
    return ""


_PINNED = re.compile(r"\bstarves\b|\bstarved\b|game over|\bout of the game\b")
_REACHED = re.compile(r"Paint Market receives|game over")


def night_beats(before: Any, after: Any, me: int | None) -> list[Beat]:
    """The night and the start of a day, one happening at a time: announcements, each sale (food, cubes
    back, stars), each collection action, starving, the marker passing and the Paint Market's draw."""
    v, bv = after, before
    if not isinstance(v, dict) or not isinstance(bv, dict):
        return []
    if not ("night" in (v.get("phase"), bv.get("phase")) or v.get("day") != bv.get("day") or v.get("phase") == "over"):
        return []
    events = new_events(bv, v)
    if not events:
        return []
    texts = []
    for _, text in events:
        text = compact_event(text)
        if me is not None:
            text = re.sub(r"\bseat %d\b" % me, "seat %d (you)" % me, text)
        texts.append(text)
    if v.get("phase") == "night" or bv.get("phase") == "night" and v.get("day") == bv.get("day"):
        head = "Night %d" % bv.get("day", v.get("day", 0))
    elif v.get("phase") == "over":
        head = "The end"
    else:
        head = "Day %d begins" % v.get("day", 0)
    beats = []
    for k, text in enumerate(texts):
        middle: list[Line] = [[("class:header", head), ("class:label", " (one thing at a time)")]]
        for i, t in enumerate(texts[:k + 1]):
            if i < k:
                middle.append([("class:label", "    " + t)])
            else:
                middle.append([("bold", "  > "), (_event_style(t) or "bold", t)])
        # from the Paint Market's draw on (the night is over) the panes show the table after it
        beats.append(Beat(text, None, middle, hold=2 if k == len(texts) - 1 and len(texts) > 1 else 1,
                          after=_REACHED.search(text) is not None or (beats[-1].after if beats else False)))
    return beats


def mine_of(v: dict, me: int) -> list[dict]:
    return v["canvases"][me]


SCREEN = StarvingArtistsScreen
