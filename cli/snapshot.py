"""Snapshots: what the UI shows of a table, copied out of it (pure; no I/O, no clock).

``snapshot_of`` copies what the panes need out of a ``Table`` in the thread
that owns it (the UI thread then only reads immutable snapshots); the rest
words a snapshot or a log entry for the panes (the step status line, the
seats, the title) and is shared by the live shell, the replay viewer and the
export.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from core.events import Event, Genesis, Timeout, seat_names
from core.evidence import certificate_words, seats_words
from core.table import Table

from .screens import (
    Context,
    GenericScreen,
    Line,
    Screen,
    Snapshot,
    plain_label,
    seat_name,
    who,
    with_names,
    wrap,
)

LOG_KEEP = 300          # event-log lines kept in a snapshot
MOVES_KEEP = 64         # raw moves kept in a snapshot (moves_tail), for the screens' reveal beats
ALERTS_SHOWN = 5

_PLACEHOLDER = GenericScreen()   # until the first table tells which game it is


# --------------------------------------------------------------------------- snapshots


def _round_of_phase(moves: Sequence) -> dict:
    phases = sorted({m[1] for m in moves})
    return {ph: i + 1 for i, ph in enumerate(phases)}


def snapshot_of(table: Table, seat: int | None, alerts: Sequence[str] = (), status: str = "",
                waiting: Sequence[int] | None = None, screen: Screen | None = None,
                before: Snapshot | None = None, cut: Any = None, left_steps: Any = None,
                talk: Sequence[dict] | None = None) -> Snapshot:
    """Copy what the UI needs out of ``table`` (call it in the thread that owns the table).

    ``before``: the previous snapshot of the same table and seat, if any: the
    new one's ``prev_view`` is then the view before the latest step that
    applied moves (what a screen compares with to show what changed).

    ``waiting``: the seats the current step still waits for, if the caller
    knows better than ``table.missing()`` (a peer places a step's events in
    the log only once all of them are in, so its table's ``missing()`` lists
    every seat of the step until it closes).

    ``cut``: what the live peer knows of the time-outs (its ``cut_moves``, (phase, seat) -> a
    signed move of that seat a certificate voted out), or None when nothing beyond the log is
    known (a replay, an export): a time-out then says who voted whom out, never that a seat did
    not move (protocol.md §6.5).  With ``cut``, a seat of ours voted out with no move of ours held
    did not move; one with a cut move held had its signed move voted out.
    ``left_steps``: phase -> the seats a certificate timed out of it after they said they left
    (the peer's ``left_steps``, protocol.md §9.7): such a time-out is told as a leave, not as a
    move not made in time.
    ``talk``: the talk lines the live peer holds (``Peer.talk_lines``, protocol.md §9.11): those not in the
    log yet are shown as the newest lines of the event log; the placed ones are shown where the log has
    them (``Table.said``), with or without ``talk``.  A line's text is shown as it is, never rewritten.
    """
    screen = screen or _PLACEHOLDER
    step = table.step
    missing = tuple(table.missing())
    if waiting is not None:
        missing = tuple(s for s in missing if s in set(waiting))
    view = table.view(seat)
    steps = _round_of_phase(table.moves)
    items: list = []
    start = max(0, len(table.moves) - LOG_KEEP)
    for k, (idx, ph, s, action) in enumerate(table.moves[start:], start):
        # each move in the words of the state it was made in (the market, the standing
        # bid as they were then), the current state once that has been let go
        was = table.state_before(k)
        try:
            text = screen.describe(table.game, table.state if was is None else was, s, action)
        except Exception:  # describe is total, but never crash the UI
            text = "seat %s moved" % s
        if s == seat:
            text = text.replace("seat %d " % s, "seat %d (you) " % s, 1)
        items.append((idx, 1, "class:log.mine" if s == seat else "", "%s  %s" % (screen.log_tag(steps.get(ph, 0)), text)))
    for note in table.notes[-LOG_KEEP:]:
        items.append((note.index, 0, "class:log.note", "!   " + _note_text(table, note, seat, screen, cut, left_steps)))
    # the game's own events no move names (a seat starving), found between the last snapshot and this one
    happened = tuple(before.happenings) if before is not None and before.seat == seat else ()
    if before is not None and before.seat == seat and table.count > before.entries:
        try:
            new = [str(t) for t in screen.happenings(before.view, view)]
        except Exception:
            new = []
        if seat is not None:
            mine = re.compile(r"\bseat %d\b(?! \(you\))" % seat)
            new = [mine.sub("seat %d (you)" % seat, t) for t in new]
        happened = (happened + tuple((table.count - 1, t) for t in new))[-LOG_KEEP:]
    for idx, text in happened:
        items.append((idx, 2, "class:log.note", "*   " + text))
    doc = table.genesis.doc
    for d in talk_items(table, seat, talk):
        items.append(d)
    items.sort(key=lambda it: (it[0], it[1]))
    names = seat_names(doc) if "names" in doc else ()
    # a talk line (order 3) is the person's own words: never rewritten
    log = tuple((style, text if order == 3 else with_names(text, names)) for _, order, style, text in items[-LOG_KEEP:])
    info = table.game.info
    first = max(0, len(table.moves) - MOVES_KEEP)
    tail = tuple((first + i, s, action) for i, (_, _, s, action) in enumerate(table.moves[first:]))
    prev_view = None
    if before is not None and before.seat == seat:
        prev_view = before.view if len(table.moves) > before.moves else before.prev_view
    return Snapshot(
        seat=seat,
        players=table.players,
        view=view,
        phase=table.phase,
        step_kind=None if step is None else step.kind,
        step_purpose=None if step is None else step.purpose,
        step_label="" if step is None else step.label,
        step_seats=() if step is None else tuple(step.seats),
        missing=missing,
        over=table.over,
        result=table.result(),
        log=log,
        moves=len(table.moves),
        entries=table.count,
        alerts=tuple(alerts[-ALERTS_SHOWN:]) if alerts else (),
        status=status or "",
        config=dict(table.config) if isinstance(getattr(table, "config", None), dict) else None,
        game_name=info.name or table.genesis.doc.get("game", ""),
        game_title=info.title,
        game=table.game,
        state=table.state,
        moves_tail=tail,
        prev_view=prev_view,
        names=names,
        happenings=happened,
        certificates=tuple((c.phase, c.label, tuple(c.seats), tuple(c.voters))
                           for c in (getattr(table, "certificates", None) or {}).values()),
    )


def _effect(screen: Screen, label: str = "") -> str:
    """ " (what the rules did instead)" for a time-out in the step labelled ``label`` ("" if none)."""
    try:
        words = screen.timeout_effect_for(label) if hasattr(screen, "timeout_effect_for") else screen.timeout_effect
    except Exception:  # a screen's words never crash the UI
        words = screen.timeout_effect
    return " (%s)" % words if words else ""


def _note_text(table: Table, note: Any, me: int | None, screen: Screen, cut: Any = None, left_steps: Any = None) -> str:
    """A table note in players' words (time-outs name the seats, "you" included)."""
    timed_out = table.timeouts.get(note.phase) if note.seat is None else None
    if timed_out is not None and note.text.startswith("timed out"):
        cert = (getattr(table, "certificates", None) or {}).get(note.phase)
        label = cert.label if cert is not None else (note.text[note.text.find("(") + 1:-1] if "(" in note.text else "")
        gone = (left_steps or {}).get(note.phase) or ()
        if gone and set(timed_out) <= set(gone):      # they said they left (§9.7): no one is late
            return "%s left the table: no move%s%s" % (
                who(timed_out, me), " for %s" % plain_label(label) if label else "", _effect(screen, label))
        voters = cert.voters if cert is not None else ()
        return "time-out: %s%s" % (timeout_words(note.phase, label, timed_out, voters, me, cut), _effect(screen, label))
    if note.seat is not None and note.text.startswith("seat %d left the table" % note.seat):
        # a placed leave: its seat's own signed word (protocol.md §6.1), never a time-out
        return "%s left the table: no step waits for %s any more (the empty move)" % (
            "you" if note.seat == me else seat_name(note.seat, me), "you" if note.seat == me else "them")
    prefix = "" if note.seat is None else "%s: " % seat_name(note.seat, me)
    return prefix + note.text


def timeout_words(phase: int, label: str, seats: Sequence[int], voters: Sequence[int], me: int | None,
                  cut: Any = None) -> str:
    """A certificate's time-out in words that say only what is known (protocol.md §6.5): who voted
    whom out of which step; for a seat whose signed move the live peer holds (``cut``), that its
    move did not reach the voters before they voted, or they voted anyway; "did not move in
    time" only for our own seat when the live peer knows we signed nothing for the step."""
    step = plain_label(label) if label else "phase %d" % phase
    by = seats_words(voters, me) if voters else "the others"
    parts = []
    rest = []
    for s in seats:
        if cut is not None and (phase, s) in cut:
            parts.append("%s signed move for %s did not reach %s before they voted it out, or they voted anyway"
                         % ("your" if s == me else "seat %d's" % s, step, by))
        elif cut is not None and s == me:
            parts.append("you did not move in time for %s; %s voted you out" % (step, by))
        else:
            rest.append(s)
    if rest:
        parts.append("%s voted %s out of %s" % (by, seats_words(rest, me), step))
    return "; ".join(parts)


def certificate_lines(snap: Snapshot | None, width: int) -> list[Line]:
    """With a result: every time-out certificate in the log, each with its step, whom it voted out and
    who signed it (a certificate alone blames and ranks no one: protocol.md §6.5).  [] if none."""
    if snap is None or not snap.certificates:
        return []
    me = snap.seat
    lines: list[Line] = [[("class:header", "Time-out certificates"),
                          ("class:label", " (%d): each says only that its signers voted the seats it names out of one "
                                          "step" % len(snap.certificates))]]
    for phase, label, seats, voters in snap.certificates:
        said = with_names(certificate_words(phase, plain_label(label), seats, voters, me), snap.names)   # named before wrapping
        lines += wrap([("class:label", "  " + said)], width, "      ")
    return lines


def _without_seat(text: str, seat: int | None) -> str:
    """ "seat 3 bids ..." -> "bids ..." (when the line already says who)."""
    prefix = "seat %s " % seat
    return text[len(prefix):] if text.startswith(prefix) else text


def step_status(snap: Snapshot, screen: Screen) -> tuple[str, str]:
    """(style, text) for the line that says what the table waits for."""
    me = snap.seat
    if snap.over:
        return "class:over", "Game over - the final ranking is at the top of the middle pane."
    # nobody missing: every move of the step is in and it closes as they are placed (never "waiting for nobody")
    whom = "waiting for %s" % who(snap.missing, me, snap.names) if snap.missing else "every move is in"
    if snap.view is None:
        return "class:waiting", "Drawing the shared seed - %s" % whom
    if snap.step_purpose == "seed":
        what = "%s (%s)" % (screen.chance_words,
                            "peers seal their random shares" if snap.step_kind == "commit" else "peers open their random shares")
    else:
        what = plain_label(snap.step_label)
        if snap.step_kind == "commit":
            what += " (seats choose their sealed moves)"
        elif snap.step_kind == "reveal":
            what += " (the sealed moves are being opened)"
    return "class:waiting", "%s - %s" % (with_names(what, snap.names), whom)


def seat_status(snap: Snapshot, s: int) -> str:
    if snap.over or s not in snap.step_seats:
        return ""
    waiting = s in snap.missing
    if snap.step_purpose == "seed":
        return "seed.." if waiting else "seed ok"
    if snap.step_kind == "commit":
        return "choosing" if waiting else "sealed"
    if snap.step_kind == "reveal":
        return "opening" if waiting else "opened"
    return "to move" if waiting else "moved"


def _named(lines: list[Line], names: Sequence[str]) -> list[Line]:
    """A screen's lines with every ``seat N`` said by name (when the genesis names the seats)."""
    if not names:
        return lines
    return [[(style, with_names(text, names)) for style, text in line] for line in lines]


def _label_width(snap: Snapshot) -> int:
    """The Seats pane's name column: 13 wide, wider (up to 24) for long names."""
    return max([13] + [min(24, len(seat_name(s, snap.seat, snap.names))) for s in range(snap.players)])


def _seats_lines(snap: Snapshot, screen: Screen, ctx: Context) -> list[Line]:
    me = snap.seat
    cols = screen.seat_columns(ctx)
    lines: list[Line] = [[("class:header", "Seats")]]
    lines.append([("class:label", "%s %-*s" % (" ", _label_width(snap), "") + "".join(" %*s" % (w, h) for h, w in cols) + "  now")])
    for s in range(snap.players):
        mark = ">" if s == me else " "
        cells = screen.seat_cells(ctx, s) if cols else []
        row = "%s %-*s" % (mark, _label_width(snap), seat_name(s, me, snap.names)[:24]) + "".join(" %*s" % (w, c) for (_, w), c in zip(cols, cells)) + "  "
        st = seat_status(snap, s)
        style = "class:you" if s == me else ""
        lines.append([(style, row), ("class:waiting" if st in ("choosing", "opening", "to move", "seed..") else "class:label", st)])
    return lines


def _title_text(title: str, snap: Snapshot | None, screen: Screen, ctx: Context, key: str | None = None,
                extra: str = "") -> str:
    head = title
    if snap is not None and snap.game_title and snap.game_title.lower() not in title.lower():
        head = "%s - %s" % (title, snap.game_title)
    parts = [head]
    if key:
        parts.append("key %s" % key)
    if snap is not None:
        if snap.seat is None:
            parts.append("spectator")
        elif snap.names:
            parts.append("you are %s (seat %d)" % (snap.names[snap.seat], snap.seat))
        else:
            parts.append("you are seat %d" % snap.seat)
        if snap.over:
            parts.append("game over")
        parts += screen.title_parts(ctx)
        if snap.status:
            parts.append(snap.status)
    if extra:
        parts.append(extra)
    return " " + " | ".join(parts)


def talk_line(names: Sequence[str], seat: int, me: int | None, text: str) -> str:
    """A talk line as the screens show it: ``Ann: text`` (``Ann (you): text`` for our own)."""
    who = names[seat] if 0 <= seat < len(names) else "seat %d" % seat
    return '%s%s: %s' % (who, " (you)" if seat == me else "", text)


def talk_items(table: Table, me: int | None, talk: Sequence[dict] | None = None) -> list:
    """The event log's talk lines, (entry index, 3, style, text): each placed line at its place in the
    log, then each line held but not placed yet (``talk``, arrival order) as the newest."""
    names = seat_names(table.genesis.doc)
    out = [(d["index"], 3, "class:log.talk", ">   " + talk_line(names, d["seat"], me, d["text"])) for d in getattr(table, "said", ())[-LOG_KEEP:]]
    for d in talk or ():
        if not d["placed"]:
            out.append((table.count, 3, "class:log.talk", ">   " + talk_line(names, d["seat"], me, d["text"])))
    return out


def genesis_words(doc: dict) -> str:
    """What the genesis says beyond the game: a rematch names the game it follows (§9.9)."""
    prev = doc.get("previous")
    if isinstance(prev, bytes) and prev:
        return " - a rematch: it follows game %s (easel history lists it by its folder)" % prev.hex()
    return ""


def describe_entry(table: Table, ent: Any, me: int | None, screen: Screen) -> str:
    """One log entry in words, before it is applied to ``table`` (the replay viewer, the export);
    every seat by its name when the genesis names the seats (§5.1)."""
    doc = table.genesis.doc
    if isinstance(ent, Event) and ent.kind == "say":     # a person's own words: never rewritten
        return talk_line(seat_names(doc), table.seat_of(ent.author), me, ent.body["text"])
    return with_names(_describe_entry(table, ent, me, screen), seat_names(doc) if "names" in doc else ())


def _describe_entry(table: Table, ent: Any, me: int | None, screen: Screen) -> str:
    if isinstance(ent, Timeout):
        label = table.step.label if table.step else ""
        return "time-out certificate: %s" % timeout_words(ent.phase, label, list(ent.seats), [v for v, _ in ent.votes], me)
    if isinstance(ent, Genesis):
        return "a second genesis"
    ev: Event = ent
    seat = table.seat_of(ev.author)
    st = table.step
    name = "seat %s" % seat if seat != me else "seat %s (you)" % seat
    purpose = st.purpose if st is not None else "move"
    if ev.kind == "leave":
        return "%s leaves the table (its own signed leave: the others play on without it)" % name
    if ev.kind == "commit":
        label = plain_label(st.label) if st is not None else ""
        return "%s commits to %s" % (name, "its share of the shared randomness" if purpose == "seed" else "a sealed move (%s)" % label)
    if ev.kind == "reveal":
        if purpose == "seed":
            return "%s reveals its share of the shared randomness" % name
        try:
            return "%s reveals: %s" % (name, _without_seat(screen.describe(table.game, table.state, seat, ev.body["value"]), seat))
        except Exception:
            return "%s reveals its move" % name
    try:
        return "%s plays: %s" % (name, _without_seat(screen.describe(table.game, table.state, seat, ev.body["action"]), seat))
    except Exception:
        return "%s moves" % name
