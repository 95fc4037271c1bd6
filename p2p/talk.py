"""Table talk, as a sans-IO part of ``Peer``: the talk lines (``say`` events, protocol.md §9.11) a peer
holds, in the order they reached it, what its person may say now, and the lines the rules refuse.

A talk line is a signed event on its author's own ``seq`` chain: it travels, is repaired and is proven
equivocated like any event (p2p/replica.py holds it).  It is shown the moment it is held, whoever is on
turn, and placed in the log by the rules just before its author's next answer (core/table.py
``assemble``).  This part only keeps what a screen shows: each line once, in arrival order (at most
``MAX_TALK_KEPT`` of them), the refused ones never shown and named once each (the first
``NAMED_REFUSED`` of a seat); and it answers whether our own
person may say one more (``refused``): at most ``MAX_SAY_PENDING`` of our own events may wait above our
last one in the log (so that ``MAX_SEQ_AHEAD`` always leaves room for our moves) and one line per
``SAY_GAP`` seconds.
"""

from __future__ import annotations

from typing import Callable, Sequence

from core.events import MAX_SAY_BYTES, Event, say_problem

from .effects import Alert

MAX_SAY_PENDING = 8      # our own events above our last one in the log before a new line is refused (§13.1)
SAY_GAP = 1.0            # seconds between two lines of ours (§13.1)
MAX_TALK_KEPT = 512      # lines kept for the screen, newest (a seat's events are bounded by MAX_SEQ_AHEAD anyway)
NAMED_REFUSED = 3        # refused lines named per seat (a hostile seat cannot flood its screen with our words)

__all__ = ["MAX_SAY_BYTES", "MAX_SAY_PENDING", "SAY_GAP", "MAX_TALK_KEPT", "Talk"]


class Talk:
    """The talk lines held, in arrival order; who may say what."""

    def __init__(self, keys: list, seat: int | None, names: Sequence[str], say: Callable) -> None:
        self.keys = keys
        self.seat = seat
        self.names = list(names)
        self._say = say                  # an Alert for the peer's person
        self._seen: set = set()          # event ids shown or refused
        self._lines: list = []           # (seat, seq, text, event), arrival order
        self._last: float | None = None  # when we last said a line
        self._refused: dict = {}         # seat -> refused lines seen (the first NAMED_REFUSED are named)

    def _name(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < len(self.names) else "seat %d" % seat

    def load(self, events: list) -> None:
        """At start: the talk lines held in our files (log and spool), shown as if just arrived."""
        self.arrived(events, quiet=True)

    def arrived(self, events: list, quiet: bool = False) -> int:
        """Newly held events: each talk line among them is shown, or named once if the rules refuse its text.
        Returns how many (shown or named): the screens have something new."""
        new = 0
        for ev in events:
            if ev.kind != "say" or ev.id in self._seen:
                continue
            self._seen.add(ev.id)
            new += 1
            seat = self.keys.index(ev.author)
            why = say_problem(ev.body.get("text"))
            if why:
                n = self._refused[seat] = self._refused.get(seat, 0) + 1
                if not quiet and n <= NAMED_REFUSED:
                    more = "; further ones are not named" if n == NAMED_REFUSED else ""
                    self._say(Alert("%s sent a talk line the rules refuse (%s): not shown, never placed%s"
                                    % (self._name(seat), why, more)))
                continue
            self._lines.append((seat, ev.seq, ev.body["text"], ev))
            del self._lines[:-MAX_TALK_KEPT]
        return new

    def said(self, ev: Event, now: float) -> None:
        """Our own line, signed now."""
        self._last = now
        self.arrived([ev], quiet=True)

    def lines(self, table) -> list:
        """Every line held, arrival order: {"seat", "seq", "phase", "text", "placed"} (placed: in our log;
        phase: the step its author's log was at when it signed, §5.2)."""
        placed = {(d["seat"], d["seq"]) for d in table.said}
        return [{"seat": s, "seq": q, "phase": ev.body.get("phase"), "text": text, "placed": (s, q) in placed}
                for s, q, text, ev in self._lines]

    def unplaced(self, table) -> list:
        """The raw lines held that our log has not placed, arrival order (a spectator's ``said`` frame)."""
        placed = {(d["seat"], d["seq"]) for d in table.said}
        return [ev.raw for s, q, _, ev in self._lines if (s, q) not in placed]

    def refused(self, text, waiting: int, over: bool, now: float) -> str:
        """Why our person may not say ``text`` now ("" if it may): its text, how many of our events wait
        above our last one in the log (``waiting``), and the time since our last line."""
        why = say_problem(text)
        if why:
            return why
        if waiting >= MAX_SAY_PENDING:
            if over:
                return "the game is over and %d lines of yours already wait: no more talk here" % waiting
            return "your lines go in the log with your next move; say more after it"
        if self._last is not None and now - self._last < SAY_GAP:
            return "one line a second: wait a moment"
        return ""
