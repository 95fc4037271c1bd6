"""The Painting Game's board as the screen draws it: the 5x5 grid (coloured blocks with their letters,
the cells the last round changed marked), what the last round did (``round_story``), the sheets in
their frames (on offer, owned, scored, just matched), the round's results and the final ranking."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from core.games.painting import rules as _rules

from ..text import Line, layout_cards, plural, seat_name, shared_places, who, width_of, wrap

SIZE = 5


# --------------------------------------------------------------------------- the grid


def _letters(vgrid: Any) -> list[list[str]] | None:
    """A view's grid (5 rows of cell dicts) -> 5 rows of colour letters; None if it is not one."""
    try:
        return [[str(cell["colour"]) for cell in row] for row in vgrid][:SIZE]
    except (TypeError, KeyError):
        return None


def _cell_frag(colour: str, mark: str | None) -> tuple:
    """One grid cell: a coloured block with its letter; a changed cell in brackets, a cell that was black
    last round (white now) as [k], the cells of a matching sheet in (..)."""
    style = "class:cell.%s" % colour.lower()
    if mark == "new":
        return (style + " class:changed", "[%s]" % colour)
    if mark == "was-black":
        return ("class:cell.wasblack class:changed", "[k]")
    if mark == "match":
        return (style + " class:matchcell", "(%s)" % colour)
    if mark == "splash":
        return (style + " class:changed", "<%s>" % colour)
    return (style, " %s " % colour)


def _grid_lines(letters: list[list[str]] | None, marks: Mapping | None = None,
                head: Line | None = None, legend: Sequence[Line] = ()) -> list[Line]:
    """The 5x5 grid, 18 columns wide: row and column numbers, then a coloured block per cell (its letter
    kept for colour-blind players); ``marks`` (row, col) -> "new" / "was-black" / "match" / "splash"."""
    marks = marks or {}
    lines: list[Line] = [head or [("class:header", "Grid"), ("class:label", " (row col)")]]
    lines.append([("class:label", "   " + "".join(" %d " % c for c in range(SIZE)))])
    for r in range(SIZE):
        line: Line = [("class:label", " %d " % r)]
        for c in range(SIZE):
            colour = letters[r][c] if letters else "W"
            line.append(_cell_frag(colour, marks.get((r, c))))
        lines.append(line)
    return lines + list(legend)


def _masks(letters: list[list[str]]) -> tuple:
    return tuple(_rules.COLOUR_MASK.get(ch, 0) for row in letters for ch in row)


def _primaries(letter: str) -> list[str]:
    mask = _rules.COLOUR_MASK.get(letter, 0)
    return [p for p, bit in _rules.PRIMARY_BIT.items() if mask & bit]


def _unmask(grid: Sequence[int]) -> list[list[str]]:
    text = _rules.colour_string(grid)
    return [list(text[r * SIZE:(r + 1) * SIZE]) for r in range(SIZE)]


def _round_moves(snap: Any, lr: Mapping) -> dict | None:
    """seat -> the move it made in the round ``lr`` summarises: from the view when the rules give them
    (``last_round["moves"]``), else the snapshot's last moves (a round applies one move per seat, all at
    once, so they are the table's last ``players`` moves); None when neither says."""
    given = lr.get("moves")
    if isinstance(given, list) and given and all(isinstance(m, dict) for m in given):
        return {s: m for s, m in enumerate(given)}
    view = snap.view
    n = view.get("players", 0)
    tail = list(getattr(snap, "moves_tail", ()) or ())
    if n <= 0 or len(tail) < n or getattr(snap, "moves", 0) < n * lr["round"]:
        return None
    last = tail[-n:]
    seats = [t[1] for t in last]
    if sorted(seats) != list(range(n)) or not all(isinstance(t[2], Mapping) for t in last):
        return None
    return {t[1]: t[2] for t in last}


def _splashes(move: Mapping) -> list:
    out = []
    for key in ("splash", "extra"):
        sp = move.get(key)
        if isinstance(sp, (list, tuple)) and len(sp) == 3:
            out.append([int(sp[0]), int(sp[1]), str(sp[2])])
    return out


def _plus(r: int, c: int) -> list[tuple[int, int]]:
    return [(r + dr, c + dc) for dr, dc in ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE]


@dataclass
class RoundStory:
    """What one round did, as far as the view (and the snapshot) tell it."""

    round: int
    before: list[list[str]] | None     # the grid as the round opened
    after: list[list[str]]             # the grid after the splashes (black cells still black)
    moves: dict | None                 # seat -> its opened move
    changed: set                       # cells whose colour the round changed
    black: set                         # cells that got all three primaries


def round_story(snap: Any) -> RoundStory | None:
    """The latest resolved round of the snapshot's view (None before the first)."""
    view = snap.view if snap is not None else None
    if not isinstance(view, dict) or not view.get("last_round"):
        return None
    lr = view["last_round"]
    after = _letters(lr.get("grid"))
    if after is None:
        return None
    before = _letters(lr.get("before")) if lr.get("before") is not None else None
    prev = getattr(snap, "prev_view", None)
    if before is None and isinstance(prev, dict) and prev.get("round") == lr["round"] and prev.get("phase") == "play":
        before = _letters(prev.get("grid"))
    moves = _round_moves(snap, lr)
    black = {(r, c) for r in range(SIZE) for c in range(SIZE) if after[r][c] == "K"}
    if before is not None:
        changed = {(r, c) for r in range(SIZE) for c in range(SIZE) if before[r][c] != after[r][c]}
        if moves is not None:     # the edition where black turns white at once: find it from the splashes
            spl = [sp for s in sorted(moves) for sp in _splashes(moves[s])]
            try:
                full = _rules.mix(_masks(before), spl, "round")
                black |= {(i // SIZE, i % SIZE) for i, m in enumerate(full) if m == _rules.ALL_PRIMARIES}
            except Exception:
                pass
    elif moves is not None:       # no grid from before the round: the splashed cells stand in
        changed = {rc for s in moves for sp in _splashes(moves[s]) for rc in _plus(sp[0], sp[1])}
    else:
        changed = set()
    return RoundStory(lr["round"], before, after, moves, changed, black)


def _board_marks(view: dict, story: RoundStory | None) -> tuple[dict, list[Line]]:
    """Marks and legend for the settled grid: the cells the last round changed, the black ones."""
    if story is None:
        return {}, []
    now = _letters(view.get("grid")) or story.after
    marks: dict = {}
    for rc in story.changed:
        marks[rc] = "new"
    cleared = {rc for rc in story.black if now[rc[0]][rc[1]] != "K"}
    for rc in cleared:
        marks[rc] = "was-black"
    legend: list[Line] = []
    if story.changed - cleared:
        legend.append([("class:cell.w class:changed", "[X]"), ("class:label", " changed in r%d" % story.round)])
    if cleared and (view.get("rules") or {}).get("black") == "immediate":
        legend.append([("class:cell.wasblack class:changed", "[k]"), ("class:label", " R+B+Y->W in r%d" % story.round)])
    elif cleared:
        legend.append([("class:cell.wasblack class:changed", "[k]"), ("class:label", " black r%d, now W" % story.round)])
    elif story.black:
        legend.append([("class:cell.k", " K "), ("class:label", " R+B+Y black")])   # fits board_width
    return marks, legend


# --------------------------------------------------------------------------- sheets, framed


def _sheet_drawing(cells: Sequence[Sequence]) -> list[Line]:
    if not cells:
        return [[("", "(empty)")]]
    rows = max(c[0] for c in cells) + 1
    cols = max(c[1] for c in cells) + 1
    at = {(c[0], c[1]): c[2] for c in cells}
    out = []
    for r in range(rows):
        line: Line = []
        for c in range(cols):
            col = at.get((r, c))
            line.append(("class:cell.%s" % col.lower(), "%s " % col) if col else ("", "  "))
        out.append(line)
    return out


def framed(title: Line, body: Sequence[Line], foot: Line = (), style: str = "class:frame") -> list[Line]:
    """A box around ``body``: ``title`` in the top border, ``foot`` in the bottom one."""
    title, foot = list(title), list(foot)
    inner = max([width_of(l) + 2 for l in body] + [width_of(title) + 1, width_of(foot) + 1, 6])
    out: list[Line] = [[(style, "┌")] + title + [(style, "─" * (inner - width_of(title)) + "┐")]]
    for line in body:
        out.append([(style, "│"), ("", " ")] + list(line) + [("", " " * (inner - 1 - width_of(line))), (style, "│")])
    out.append([(style, "└")] + foot + [(style, "─" * (inner - width_of(foot)) + "┘")])
    return out


def sheet_card(sheet: Mapping, value: int | None = None, foot: Line = (), style: str = "class:frame",
               title: Line | None = None) -> list[Line]:
    """One sheet in its own frame: number and value on top, ``foot`` (owner, bid, ...) below."""
    head = title if title is not None else [("bold", "#%d" % sheet["id"]),
                                            ("", " v%d" % (sheet["value"] if value is None else value))]
    return framed(head, _sheet_drawing(sheet["cells"]), foot, style)


def _offer_lines(view: dict | None, bids: dict, width: int) -> list[Line]:
    if not view:
        return [[("class:header", "Sheets on offer")], [("class:label", "  (none yet)")]]
    head: Line = [("class:header", "Sheets on offer"),
                  ("class:label", " (round %d; v = value if bought now = cells + round)" % view["round"])]
    if not view["offer"]:
        return [head, [("class:label", "  (none this moment)")]]
    cards = []
    for sh in view["offer"]:
        amt = bids.get(sh["id"])
        foot: Line = [("class:bid", "bid %d" % amt)] if amt else []
        cards.append(sheet_card(sh, foot=foot, style="class:bid" if amt else "class:frame"))
    return [head] + layout_cards(cards, width, gap=1)


def _owner(s: int, me: int | None) -> Line:
    return [("class:you" if s == me else "class:label", "you" if s == me else "seat %d" % s)]


def _owned_lines(view: dict | None, me: int | None, width: int) -> list[Line]:
    if view and view.get("phase") == "over":
        head: Line = [("class:header", "Sheets never scored"), ("class:label", " (they score nothing; v = value at the end)")]
    else:
        head = [("class:header", "Owned sheets"),
                ("class:label", " (v = value now; an unscored sheet loses 1 each round, never below 1)")]
        if width_of(head) > width:     # a side column (a wide terminal): the same, shorter, on one line
            head = [("class:header", "Owned sheets"), ("class:label", " (v = value now; unscored: -1 a round, min 1)")]
    if not view:
        return [head, [("class:label", "  (none)")]]
    order = sorted(range(view["players"]), key=lambda s: (s != me, s))
    cards = []
    for s in order:
        for h in view["owned"][s]:
            cards.append(sheet_card(h, foot=_owner(s, me), style="class:you" if s == me else "class:frame"))
    if not cards:
        return [head, [("class:label", "  (none)")]]
    bought = ["#%d %s for %d in round %d" % (h["id"], "you" if s == me else "seat %d" % s, h["price"], h["bought"])
              for s in order for h in view["owned"][s] if "price" in h and "bought" in h]
    lines = [head] + layout_cards(cards, width, gap=1)
    if bought:
        lines += wrap([("class:label", "Bought: "), ("", ", ".join(bought))], width)
    return lines


def _matched_cards(view: dict, me: int | None, rnd: int | None) -> list[list[Line]]:
    """The sheets that matched in round ``rnd``, framed and highlighted."""
    cards = []
    for e in view.get("scored") or []:
        if rnd is not None and e.get("round") == rnd and e.get("cells"):
            title: Line = [("class:matched", "#%d +%d" % (e["id"], e["points"]))]
            foot = [("class:matched", "MATCH ")] + _owner(e["seat"], me)
            cards.append(sheet_card(e, foot=foot, style="class:matched", title=title))
    return cards


def _scored_lines(view: dict | None, me: int | None, width: int = 100) -> list[Line]:
    if not view or not view["scored"]:
        return [[("class:header", "Scored"), ("", ": none yet")]]
    parts = ["#%d %s +%d (round %d)" % (e["id"], "you" if e["seat"] == me else "seat %d" % e["seat"], e["points"], e["round"])
             for e in view["scored"]]
    lines = wrap([("class:header", "Scored"), ("", ": " + ", ".join(parts))], width)
    lr = view.get("last_round")
    cards = _matched_cards(view, me, lr["round"] if lr else None)
    if cards:
        lines.append([("class:matched", "Just matched"), ("class:label", " in round %d (scored and discarded)" % lr["round"])])
        lines += layout_cards(cards, width, gap=1)
    return lines


def _legend_line(view: dict) -> Line:
    keys = [("W", "white"), ("R", "red"), ("B", "blue"), ("Y", "yellow"), ("P", "R+B"), ("O", "R+Y"), ("G", "B+Y")]
    if view["rules"].get("black") == "round":
        keys.append(("K", "R+B+Y black"))
    else:
        keys[0] = ("W", "white (also R+B+Y)")
    line: Line = [("class:label", "Colours:")]
    for colour, words in keys:
        line += [("class:label", " "), ("class:cell.%s" % colour.lower(), " %s " % colour), ("class:label", " %s" % words)]
    line[-1] = ("class:label", line[-1][1].rstrip())
    return line


def _last_round_lines(view: dict | None, me: int | None) -> list[Line]:
    if not view or not view.get("last_round"):
        return []
    lr = view["last_round"]
    sold, ties, unsold = [], [], []
    for a in lr["auction"]:
        if a["outcome"] == "sold":
            sold.append("#%d to %s for %d (v%d)" % (a["sheet"], "you" if a["winner"] == me else "seat %d" % a["winner"], a["price"], a["value"]))
        elif a["outcome"] == "tie":
            ties.append("#%d (%s)" % (a["sheet"], who(a.get("tied", []), me)))
        else:
            unsold.append("#%d" % a["sheet"])
    parts = []
    parts.append("sold " + ", ".join(sold) if sold else "nothing sold")
    if ties:
        parts.append("tied, discarded: " + ", ".join(ties))
    if unsold:
        parts.append("no bids: " + " ".join(unsold))
    scored = ["%s #%d +%d" % ("you" if e["seat"] == me else "seat %d" % e["seat"], e["sheet"], e["points"]) for e in lr["scored"]]
    parts.append("scored: " + (", ".join(scored) if scored else "nothing"))
    black = [(r, c) for r, row in enumerate(lr.get("grid") or []) for c, cell in enumerate(row) if cell.get("colour") == "K"]
    if black:
        over = view.get("phase") == "over"
        parts.append("black (all three primaries%s) at %s" % (
            "" if over else "; white again now",
            ", ".join("%d %d" % rc for rc in black)))
    return [[("class:header", "Round %d results" % lr["round"]), ("", ": " + "; ".join(parts))]]


def _result_lines(res: dict | None, players: int, me: int | None) -> list[Line]:
    if not res:
        return []
    lines: list[Line] = [[("class:over", "GAME OVER"), ("class:label", " - final ranking (points, then tokens left)")]]
    tol = res.get("tokens_of_life", {})
    earned = res.get("garnets_earned", {})
    winners = set(res.get("winners", []))
    ecs = set(res.get("elimination_candidates", []))
    places = _places(res)
    for s in res["ranking"]:
        notes = []
        if s in winners:
            notes.append("winner")
        n_tol = tol.get(str(s), 0)
        if n_tol:
            notes.append("%d Token%s of Life" % (n_tol, "" if n_tol == 1 else "s"))
        if s in ecs:
            notes.append("elimination candidate")
        g = earned.get(str(s), 0)
        tied = sum(1 for p in places.values() if p == places[s]) > 1
        row = "%2d%s %-13s %4d pts %12s  +%d garnet%s  %s" % (
            places[s], "=" if tied else ".", seat_name(s, me), res["points"][str(s)],
            plural(res["tokens"][str(s)], "token"), g, "" if g == 1 else "s", ", ".join(notes))
        lines.append([("class:you" if s == me else "", row.rstrip())])
    if res.get("draw"):
        lines.append([("", "Draw: every seat has the same points - no winner, no Tokens of Life, no elimination "
                           "candidate; a new match is played.")])
    else:
        if len(winners) > 2:
            lines.append([("", "%s are still tied after tokens: nobody gets a Token of Life." % who(res["winners"], me).capitalize())])
        if res.get("ec_chosen_by"):
            by = res["ec_chosen_by"]
            verb = "chooses" if len(by) == 1 and by[0] != me else "choose"
            lines.append([("", "Several elimination candidates: %s %s one of %s." % (
                who(by, me), verb, who(res["elimination_candidates"], me)))])
    return lines


def _places(res: dict) -> dict[int, int]:
    """Each seat's place: seats with the same points and tokens left share one (the ranking's order)."""
    return shared_places(res["ranking"], lambda s: (res["points"].get(str(s)), res["tokens"].get(str(s))))
