"""What the Starving Artists screen draws and says: cubes as coloured blocks, canvases as small grids of
squares, the board pane, the seats' cells, the middle pane's parts (your canvases and the canvas
market, the studios, a trade offer, tonight's announcements and collection, the day so far), the
final ranking, and an action in the player's own words (the draft line)."""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from core.games.starving_artists.cards import CARDS, parse_rows
from core.games.starving_artists.words import action_words as _action_words

from ..base import Context
from ..text import Line, layout_cards, seat_name, who, with_names, wrap

COLOURS = "ROYGBPKW"
CARD_W = 28          # width of a drawn card
CELL_W = 4           # width of one square (plus one space between squares)
_PINNED = re.compile(r"\bstarves\b|\bstarved\b|game over|\bout of the game\b")


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


def cubes_text(cubes: Mapping[str, int] | None) -> str:
    """{"B": 2, "R": 1} -> "R B B" (colour order); "nothing" when empty."""
    parts = [c for c in COLOURS for _ in range((cubes or {}).get(c, 0))]
    return " ".join(parts) if parts else "nothing"


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


class DraftNames:
    """The draft line's names (core/games/starving_artists/words.py ``Namer``): a canvas by its number on
    the screen (``#ID`` when it is not ours) and its short title, cubes as "R B B"."""

    def __init__(self, v: dict, me: int) -> None:
        self.v = v
        mine = v["canvases"][me] if v and me is not None else []
        self.num = {c["id"]: i + 1 for i, c in enumerate(mine)}

    def cubes(self, cubes: Any) -> str:
        return cubes_text(cubes)

    def slot(self, slot: Any) -> str:
        return "%s" % (slot,)

    def in_slot(self, slot: Any) -> str:
        card = self.v["market"][slot - 1] if isinstance(slot, int) and 1 <= slot <= 3 else None
        return self.canvas(card["id"]) if card else ""

    def placements(self, place: Sequence) -> str:
        groups: dict = {}
        for cid, sq, col in place:
            groups.setdefault(cid, []).append("%s on %s" % (col, sq))
        return "; ".join("canvas %s %s: %s" % (self.num.get(cid, "#%s" % cid), self.canvas(cid), ", ".join(g))
                         for cid, g in groups.items())

    def sold(self, ids: Sequence) -> str:
        return ", ".join("%s %s" % (self.num.get(c, "#%s" % c), self.canvas(c)) for c in ids)

    def canvas(self, cid: Any) -> str:
        return "'%s'" % _short_title(CARDS[cid].title, 24) if isinstance(cid, int) and 0 <= cid < len(CARDS) else "?"

    def colours(self, colours: Sequence) -> str:
        return " ".join(str(c) for c in colours)

    def unknown(self, action: Mapping) -> str:
        return repr(dict(action))


def action_words(v: dict, me: int, a: Mapping) -> str:
    """An action in the player's own words, with canvas numbers as on the screen (for the draft line);
    the words are the game's (core/games/starving_artists/words.py), in the second person."""
    return _action_words(a, True, DraftNames(v, me))


def board_lines(v: dict | None, me: int | None, names: Sequence[str]) -> list[Line]:
    """The board pane: the day and whose move, the studio (ours, or the seat on turn's), the Paint Market,
    the bag and the deck; ``names``: the seats' names (the genesis's), () says "seat N"."""
    if not v:
        return [[("class:header", "Starving Artists")], [("class:label", "waiting for the table...")]]
    if v["phase"] == "over":
        head: Line = [("class:phase", " GAME OVER "), ("", " after day %d" % v["day"])]
    else:
        head = [("class:phase", " DAY %d %s " % (v["day"], v["phase"].upper())), ("", " ")]
        doing = _doing(v, me, names)
        head.append(("class:yourmove" if v.get("turn") == me and v.get("step") != "answer"
                     else "class:waiting", doing[: 40 - sum(len(t) for _, t in head)]))
    lines: list[Line] = [head]
    who_studio = me if me is not None else v.get("turn")
    if who_studio is not None and 0 <= who_studio < v["players"]:
        studio = v["studios"][who_studio]
        total = sum(studio.values())
        inc = v["incoming"][who_studio]
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


def seat_cells(v: dict | None, s: int) -> list[str]:
    """A seat's row in the seats table: food (5 pips), points, sold, canvases, cubes, the first-player mark."""
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


def cards_lines(v: dict, me: int | None, width: int) -> list[Line]:
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


def studios_lines(v: dict, me: int | None, width: int, names: Sequence[str] = ()) -> list[Line]:
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


def trade_offer_lines(v: dict, me: int | None, width: int) -> list[Line]:
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


def night_lines(v: dict, me: int | None, width: int) -> list[Line]:
    lines: list[Line] = [[("class:header", "Tonight"),
                          ("class:label", " (announced clockwise from the first player; paid in paint-value order)")]]
    if not v["announced"] and v["step"] == "announce":
        lines.append([("class:label", "  no announcements yet")])
    for a in v["announced"]:
        s = a["seat"]
        ids = a["canvases"]
        text = "  %s: " % _seat_word(s, me)
        if ids:
            text += "sell%s " % ("" if s == me else "s") + ", ".join(card_name(v, cid) for cid in ids)
        else:
            text += "sell%s nothing" % ("" if s == me else "s")
        if a.get("supper") is not None:
            text += "; Last Supper: %s" % card_name(v, a["supper"])
        lines += wrap([("", text)], width, "      ")
    col = v["collection"]
    queue = col["queue"]
    if queue:
        lines.append([("bold", "  Getting paid"),
                      ("class:label", " (4 / 2 / 1 cubes per collection action by paint value)")])
        for i, e in enumerate(queue):
            nxt = col["next"] == i
            text = "%s %s: %s, paint %d, %d a time, %d still owed" % (
                " >" if nxt else "  ", _seat_word(e["seat"], me), card_name(v, e["canvas"]),
                e["paint"], e["per"], e["owed"])
            if nxt and col.get("amount") is not None:
                text += " - takes %d now" % col["amount"]
            lines += wrap([("class:waiting" if nxt else "", text)], width, "      ")
    return lines


def card_name(v: dict, cid: int) -> str:
    if isinstance(cid, int) and 0 <= cid < len(CARDS):
        return "'%s'" % _short_title(CARDS[cid].title, 30)
    return "#%s" % cid


def today_lines(v: dict, me: int | None, width: int) -> list[Line]:
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


def game_over_lines(res: dict, me: int | None, width: int) -> list[Line]:
    """The final ranking table, the solo rating and how ties were decided."""
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
