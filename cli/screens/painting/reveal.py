"""The Painting Game's reveal: a closed round replayed beat by beat (the bids side by side, who took
what, each seat's splash landing with its mixing, the matches); see cli/screens/__init__.py, "The
reveal moment"."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from core.games.painting import rules as _rules
from core.games.painting import sheets as _sheets

from ..base import Beat
from ..text import Line, layout_cards, who
from .board import _grid_lines, _masks, _matched_cards, _plus, _primaries, _splashes, _unmask, round_story

# --------------------------------------------------------------------------- the reveal


BEAT_WIDTH = 96     # the reveal's tables are laid out for a 100-column terminal (the shell wraps them if narrower)
_NAMES = {"R": "red", "B": "blue", "Y": "yellow", "P": "purple", "O": "orange", "G": "green", "W": "white", "K": "black"}


def _who(s: int, me: int | None) -> str:
    return "you" if s == me else "seat %d" % s


def _bids_table(offer: Sequence[Mapping], moves: dict, players: int, me: int | None, auction: Sequence[Mapping] | None,
                width: int) -> list[Line]:
    """Bids per sheet side by side: a column per sheet, a row per seat (the winning bid highlighted),
    and, once ``auction`` is given, a row saying who took it."""
    out_by = {a["sheet"]: a for a in auction or []}
    name_w = 9
    col_w = 8
    per_row = max(1, (width - name_w) // col_w)
    lines: list[Line] = []
    for k in range(0, len(offer), per_row):
        chunk = offer[k:k + per_row]
        head: Line = [("class:label", "%-*s" % (name_w, "sheet"))]
        for sh in chunk:
            head.append(("bold", ("#%d v%d" % (sh["id"], sh["value"])).rjust(col_w)))
        lines.append(head)
        for s in range(players):
            row: Line = [("class:you" if s == me else "", "%-*s" % (name_w, _who(s, me)))]
            for sh in chunk:
                bid = (moves.get(s) or {}).get("bids", {}).get(str(sh["id"]), 0) if moves else 0
                a = out_by.get(sh["id"])
                style = ""
                if a is not None and bid:
                    if a["outcome"] == "sold" and a["winner"] == s:
                        style = "class:win"
                    elif a["outcome"] == "tie" and s in (a.get("tied") or []):
                        style = "class:tie"
                    else:
                        style = "class:label"
                row.append((style, ("%d" % bid if bid else "-").rjust(col_w)))
            lines.append(row)
        if auction is not None:
            row = [("class:label", "%-*s" % (name_w, "goes to"))]
            for sh in chunk:
                a = out_by.get(sh["id"])
                if a is None:
                    row.append(("", "?".rjust(col_w)))
                elif a["outcome"] == "sold":
                    w = _who(a["winner"], me)       # "seat N" (named by the shell) when it fits the column
                    row.append(("class:win", (w if len(w) < col_w else w.replace("seat ", "s")).rjust(col_w)))
                elif a["outcome"] == "tie":
                    row.append(("class:tie", "tie".rjust(col_w)))
                else:
                    row.append(("class:label", "-".rjust(col_w)))
            lines.append(row)
        if k + per_row < len(offer):
            lines.append([])
    return lines


def _auction_words(lr: Mapping, me: int | None) -> list[str]:
    out = []
    for a in lr["auction"]:
        if a["outcome"] == "sold":
            out.append("%s take%s #%d for %d (value %d)" % (_who(a["winner"], me), "" if a["winner"] == me else "s",
                                                            a["sheet"], a["price"], a["value"]))
        elif a["outcome"] == "tie":
            out.append("#%d: %s tied - discarded, nobody pays" % (a["sheet"], who(a.get("tied") or [], me)))
    unsold = [a["sheet"] for a in lr["auction"] if a["outcome"] not in ("sold", "tie")]
    if unsold:
        out.append("no bids on %s" % ", ".join("#%d" % i for i in unsold))
    return out or ["no sheet changed hands"]


def _mix_words(before: list[list[str]], after: list[list[str]], added: dict) -> list[str]:
    """ "2 2: R + Y = O orange" for each cell a splash changed."""
    out = []
    for (r, c) in sorted(added):
        b, a = before[r][c], after[r][c]
        if a == b:
            continue
        add = "+".join(sorted(added[(r, c)] - set(_primaries(b))))
        if not add:
            continue
        text = "%d %d: %s" % (r, c, "%s on white" % add if b == "W" else "%s + %s" % (b, add))
        if a == "K":
            text += " = K black (all three)"
        elif a == "W":
            text += " = W (all three: white)"
        elif a != add:
            text += " = %s %s" % (a, _NAMES.get(a, a))
        out.append(text)
    return out


def reveal_beats(snap: Any, before: Any, me: int | None) -> list[Beat]:
    """The round that just closed, step by step: bids, who took what, each seat's splash landing with its
    mixing, then the matches.  [] when the transition closed no round."""
    view = snap.view if snap is not None else None
    bview = before.view if before is not None else None
    if not isinstance(view, dict) or not view.get("last_round"):
        return []
    lr = view["last_round"]
    blr = bview.get("last_round") if isinstance(bview, dict) else None
    if blr and blr.get("round", 0) >= lr["round"]:
        return []
    story = round_story(snap)
    if story is None:
        return []
    r = lr["round"]
    n = view["players"]
    offer = list(bview["offer"]) if isinstance(bview, dict) and bview.get("round") == r and bview.get("offer") else []
    if not offer:      # the sold sheets at least (their values are known)
        offer = [{"id": a["sheet"], "value": a.get("value", 0), "cells": []} for a in lr["auction"]]
    moves = story.moves
    before_grid = story.before or story.after
    beats: list[Beat] = []

    def board(letters, marks=None, note="") -> list[Line]:
        head: Line = [("class:reveal", " r%d " % r), ("class:label", " %s" % note[:15])]
        return _grid_lines(letters, marks, head)

    # 1. the bids, side by side
    if moves is not None:
        extras = []
        for s in range(n):
            m = moves.get(s) or {}
            if m.get("convert"):
                extras.append("%s convert%s %d garnet%s" % (_who(s, me), "" if s == me else "s", m["convert"],
                                                          "" if m["convert"] == 1 else "s"))
        mid = _bids_table(offer, moves, n, me, None, BEAT_WIDTH)
        if extras:
            mid.append([("class:label", "; ".join(extras))])
        beats.append(Beat("Round %d: the sealed moves are opened - the bids, sheet by sheet" % r,
                          board(before_grid, None, "bids open"), mid))
    # 2. who took what
    mid = (_bids_table(offer, moves, n, me, lr["auction"], BEAT_WIDTH) if moves is not None else [])
    mid += [[("", "  " + w)] for w in _auction_words(lr, me)]
    beats.append(Beat("Round %d: who took what, and what they paid" % r, board(before_grid, None, "auction"), mid))
    # 3. each seat's splash landing
    if moves is not None and story.before is not None:
        grid = _masks(story.before)
        black = (view.get("rules") or {}).get("black", "round")
        landed: list = []
        any_splash = False
        for s in range(n):
            spl = _splashes(moves.get(s) or {})
            if not spl:
                continue
            any_splash = True
            prev = _unmask(_rules.mix(grid, landed, black))
            landed += spl
            now = _unmask(_rules.mix(grid, landed, black))
            added: dict = {}
            for row, col, colour in spl:
                for rc in _plus(row, col):
                    added.setdefault(rc, set()).add(colour)
            marks = {rc: "new" for rc in added if prev[rc[0]][rc[1]] != now[rc[0]][rc[1]]}
            for row, col, _ in spl:
                marks[(row, col)] = "splash" if (row, col) not in marks else marks[(row, col)]
            what = " and ".join("%s at %d %d" % (_NAMES[c], row, col) for row, col, c in spl)
            words = _mix_words(prev, now, added) or ["nothing changes: those colours were already there"]
            cap = "%s splash%s %s%s" % (_who(s, me), "" if s == me else "es", what,
                                       " (the second is the extra)" if len(spl) > 1 else "")
            beats.append(Beat(cap, board(now, marks, "splashes"), [[("", "  " + w)] for w in words]))
        if not any_splash:
            beats.append(Beat("Round %d: nobody splashed" % r, board(story.before, None, "no splash"), []))
    elif moves is not None:
        spl = ["%s: %s" % (_who(s, me), ", ".join("%s %d %d" % (c, row, col) for row, col, c in _splashes(moves[s])) or "none")
               for s in range(n)]
        beats.append(Beat("Round %d: the splashes land together" % r,
                          board(story.after, {rc: "new" for rc in story.changed}, "splashes"),
                          [[("", "  " + "; ".join(spl))]]))
    # 4. matches
    marks: dict = {rc: "new" for rc in story.changed}
    colours = "".join("".join(row) for row in story.after)
    for e in view.get("scored") or []:
        if e.get("round") == r and e.get("cells"):
            try:
                offsets = _sheets.match_offsets(colours, e["cells"])
            except Exception:
                offsets = []
            if offsets:
                dr, dc = offsets[0]
                for cr, cc, col in e["cells"]:
                    if col != "W":
                        marks[(cr + dr, cc + dc)] = "match"
    scored = lr.get("scored") or []
    if scored:
        cap = "Matches: " + ", ".join("%s #%d +%d" % (_who(e["seat"], me), e["sheet"], e["points"]) for e in scored)
    else:
        cap = "Round %d: no owned sheet matches the grid" % r
    mid = []
    cards = _matched_cards(view, me, r)
    if cards:
        mid += layout_cards(cards, BEAT_WIDTH, gap=1)
    if story.black:
        cells = ", ".join("%d %d" % rc for rc in sorted(story.black))
        if (view.get("rules") or {}).get("black") == "immediate":
            mid.append([("class:cell.w", " W "), ("", " all three primaries at %s: white at once (this edition)" % cells)])
        else:
            mid.append([("class:cell.k", " K "), ("", " black at %s: all three primaries - it matches nothing%s" % (
                cells, "" if view.get("phase") == "over" else " and is white from the next round"))])
    # the last beat has reached the round's result: the panes (seats' points and tokens) show it too
    beats.append(Beat(cap, board(story.after, marks, "matches"), mid, hold=2, after=True))
    return beats
