"""Lines and words any game's screen may use, beside the protocol in cli/screens/__init__.py.

Moved out of the Modern Art screen, where they were written for its auctions but say nothing of
that game: a seat as "you" / "seat 2", items packed into lines, the seats asked in turn, who has
answered a round of sealed answers, amounts side by side, an amount typed as ``N``, ``+N`` or
``all``, and the views a game's own rules pass through when a screen replays moves (to tell what
happened without reaching into a state).  A module of its own (not cli/screens/__init__.py)
because another room edits that one; nothing here names a game.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterator, Mapping, Sequence

from . import CommandError, Context, Line, seat_name, width_of, wrap

__all__ = ["view_of", "latest_view", "names_of", "seat_word", "you_in", "flow", "order_line", "waiting_of", "answers", "name_width", "amounts_row",
           "amount_of", "replayed_views", "mark_where"]


def view_of(ctx: Context) -> dict | None:
    """The view to read a command against: the open decision's, else the latest snapshot's."""
    v = ctx.view if ctx.deciding else (ctx.snap.view if ctx.snap and ctx.snap.view is not None else ctx.view)
    return v if isinstance(v, dict) else None


def latest_view(ctx: Context) -> dict | None:
    """The view to draw: the latest snapshot's (else the context's)."""
    v = ctx.snap.view if ctx.snap and ctx.snap.view is not None else ctx.view
    return v if isinstance(v, dict) else None


def names_of(ctx: Context) -> tuple:
    """The seats' names (the genesis's), () when it has none."""
    return tuple(ctx.snap.names) if ctx.snap is not None else ()


def seat_word(s: Any, me: int | None) -> str:
    """ "you" / "seat 2" / "nobody"."""
    if not isinstance(s, int) or s < 0:
        return "nobody"
    return "you" if s == me else "seat %d" % s


def you_in(text: Any, me: int | None) -> str:
    """ "seat 2 played the 5th ..." -> "you played the 5th ..." for our own seat."""
    return re.sub(r"\bseat %d\b" % me, "you", str(text)) if me is not None else str(text)


def flow(head: Line, items: Sequence[Line], width: int, indent: str = "    ", gap: str = "  ") -> list[Line]:
    """``head`` then the items, packed into lines of ``width`` without breaking an item."""
    lines: list[Line] = []
    cur: Line = list(head)
    at_start = not head
    for item in items:
        if not at_start and width_of(cur) + len(gap) + width_of(item) > width:
            lines.append(cur)
            cur, at_start = [("", indent)], True
        if not at_start:
            cur.append(("", gap))
        cur += list(item)
        at_start = False
    lines.append(cur)
    return [l for line in lines for l in (wrap(line, width, indent) if width_of(line) > width else [line])]


def order_line(order: Sequence[int], idx: int, me: int | None, last_note: str = "") -> Line:
    """ "seat 2 > you (now) > seat 0": who is asked in turn, the one asked now marked."""
    out: Line = []
    for i, s in enumerate(order):
        if i:
            out.append(("class:label", " > "))
        if i == idx:
            out.append(("class:yourmove" if s == me else "class:waiting", "%s (now)" % seat_word(s, me)))
        elif i < idx:
            out.append(("class:label", seat_word(s, me)))
        else:
            out.append(("", seat_word(s, me)))
    if last_note:
        out.append(("class:label", last_note))
    return out


def waiting_of(ctx: Context) -> tuple | None:
    """The seats whose answer to the open move has not come in (none once the step reveals: every
    answer is in), or None when the snapshot does not say (no table, or not a seat's move now)."""
    snap = ctx.snap
    if snap is None or snap.step_purpose != "move":
        return None
    return () if snap.step_kind == "reveal" else tuple(snap.missing)


def answers(asked: Sequence[int], answered: Sequence[int], waiting: Sequence[int] | None) -> tuple[list, list]:
    """(seats still to answer, seats that answered) of a round of sealed answers asked of ``asked``:
    ``waiting`` (``waiting_of``) when known, else what the view says was ``answered``."""
    if waiting is None:
        return list(asked), [s for s in answered if s in asked]
    todo = [s for s in asked if s in waiting]
    return todo, [s for s in asked if s not in todo]


def name_width(n: int, me: int | None, names: Sequence[str]) -> int:
    """The width of a column of seat names: 13, wider (up to 24) for long names."""
    return max([13] + [min(24, len(seat_name(s, me, names))) for s in range(n)])


def amounts_row(amounts: Mapping[int, int], asked: Sequence[int], players: int, me: int | None,
                winner: int | None, nothing: str) -> Line:
    """Every seat's amount side by side ("seat 1: 12"; ``nothing`` for 0, "-" for a seat not asked)."""
    out: Line = [("", " ")]
    for s in range(players):
        out.append(("", "  "))
        name = seat_word(s, me)
        if s not in asked:
            out.append(("class:label", "%s: -" % name))
            continue
        amt = amounts.get(s, 0)
        style = "class:win" if s == winner else ("class:you" if s == me else "")
        if amt:
            out.append((style, "%s: %d" % (name, amt)))
        else:
            out.append(("class:label" if s != winner else style, "%s: %s" % (name, nothing)))
    return out


def amount_of(word: str, what: str, standing: int, money: int | None) -> int:
    """An amount as typed: ``N``, ``+N`` (the standing amount + N) or ``all`` (all our money)."""
    w = word.strip().lower()
    if w in ("all", "max", "allin", "all-in") and money is not None:
        return money
    if w.startswith("+") and w[1:].isdigit():
        return standing + int(w[1:])
    if re.fullmatch(r"-?\d+", w):
        return int(w)
    raise CommandError("%s wants a whole number, not %r" % (what, word))


def replayed_views(game: Any, state: Any, moves: Sequence[tuple], same: Sequence[str] = ()) -> Iterator[tuple]:
    """Replay ``moves`` ((number, seat, action), ...) from ``state`` with the game's own rules: for each
    move that changed the public view, (seat, action, the public view before, the view after).  A move
    that changes only the view's keys ``same`` (e.g. an automatic step's bookkeeping) is passed over.
    Raises whatever the game raises (a screen then tells what changed from the views alone)."""
    before = game.view(state, None)
    for _, seat, action in moves:
        state = game.apply(state, seat, action)
        after = game.view(state, None)
        if not isinstance(before, Mapping) or not isinstance(after, Mapping):
            raise ValueError("a view that is not a map")
        if any(after.get(k) != before.get(k) for k in set(after) | set(before) if k not in same):
            yield seat, action, before, after
        before = after


def mark_where(before: Any, after: Any, key: Callable[[Mapping], Any]) -> bool:
    """A screen's ``is_mark`` between two snapshots when a mark is where ``key`` of the view changes:
    never without a view after, always where there was none before."""
    a, b = before.view, after.view
    if not isinstance(b, Mapping):
        return False
    if not isinstance(a, Mapping):
        return True
    return key(a) != key(b)
