"""Whose link is slow (protocol.md §13.1 "Slow links"), as a sans-IO part of ``GameNode``.

Measured with what seats already exchange, no message of its own: an event of ours goes to every connected
seat, which acknowledges it in its next ``have`` (§9.5, at most ``HAVE_GAP`` later); and an honest seat sends
something at least every ``KEEPALIVE``.  So, per connected seat:

* the **round trip** of our event: from when it went to that seat to the first ``have`` of that seat that
  holds it;
* an event of ours it has **not acknowledged** yet, and for how long;
* the time since its **last frame** of any kind.

A connected seat is *slow* while an event of ours waits for its acknowledgement more than ``SLOW_ROUND_TRIP``,
or nothing has come from it for more than ``SLOW_QUIET`` (a link that stalls while still connected), or its last
round trip was above ``SLOW_ROUND_TRIP`` and nothing newer says otherwise (a quicker round trip ends it at once;
without one it lasts ``SLOW_HOLD``, so a link that is slow at every step does not flicker).  The number said
is the longest of these waits, in seconds.  A seat not connected is not here: the table says it is gone, as
it always did (cli/runner.py ``silence_lines``).

Nothing here reads a clock: every time is an argument (the node's trio clock).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .wakeups import KEEPALIVE

SLOW_ROUND_TRIP = 1.5      # s: a round trip (or an acknowledgement waited for) above this is slow
SLOW_QUIET = 2 * KEEPALIVE  # s (8) without any frame from a connected seat (two keep-alives missed): its link stalls
SLOW_HOLD = 8.0            # s a slow round trip is still said without a newer one
MAX_PENDING = 64           # our events remembered per seat while they wait for an acknowledgement


@dataclass
class _Seat:
    heard: float                                   # its last frame (or when the connection opened)
    pending: dict = field(default_factory=dict)    # seq of ours -> when it went to the seat
    acked: int = -1                                # the highest seq of ours it said it holds
    rtt: float | None = None                       # its last round trip ...
    rtt_at: float = 0.0                            # ... measured then


class LinkWatch:
    """Round trips, unacknowledged events and silences of the seats connected to us."""

    def __init__(self) -> None:
        self._seats: dict[int, _Seat] = {}

    def opened(self, seat: int, now: float) -> None:
        """A connection to ``seat`` opened: measured afresh."""
        self._seats[seat] = _Seat(heard=now)

    def closed(self, seat: int) -> None:
        """Its connection closed: forgotten (a seat gone is said otherwise)."""
        self._seats.pop(seat, None)

    def heard(self, seat: int, now: float) -> None:
        """A frame came from ``seat``."""
        s = self._seats.get(seat)
        if s is not None:
            s.heard = max(s.heard, now)

    def sent(self, seq: int, now: float) -> None:
        """Our event ``seq`` went to every connected seat."""
        for s in self._seats.values():
            if seq > s.acked and seq not in s.pending and len(s.pending) < MAX_PENDING:
                s.pending[seq] = now

    def acked(self, seat: int, h: int, now: float) -> None:
        """``seat`` said (a ``have``) that it holds our events up to ``h``: each of them waited for is a round trip."""
        s = self._seats.get(seat)
        if s is None or h <= s.acked:
            return
        s.acked = h
        done = [q for q in s.pending if q <= h]
        if done:
            newest = max(done)
            s.rtt, s.rtt_at = max(0.0, now - s.pending[newest]), now
            for q in done:
                del s.pending[q]

    def wait_of(self, seat: int, now: float) -> float:
        """How slow ``seat``'s link is now, in seconds (0: not slow)."""
        s = self._seats.get(seat)
        if s is None:
            return 0.0
        worst = 0.0
        if s.pending:
            age = now - min(s.pending.values())
            if age > SLOW_ROUND_TRIP:
                worst = age
        quiet = now - s.heard
        if quiet > SLOW_QUIET:
            worst = max(worst, quiet)
        if s.rtt is not None and s.rtt > SLOW_ROUND_TRIP and now - s.rtt_at <= SLOW_HOLD:
            worst = max(worst, s.rtt)
        return worst

    def slow(self, now: float) -> dict[int, float]:
        """seat -> how slow (seconds), for every connected seat whose link is slow now."""
        out = {}
        for seat in self._seats:
            w = self.wait_of(seat, now)
            if w > 0:
                out[seat] = w
        return out

    def next_change(self, now: float) -> float | None:
        """The next time ``slow`` may change with no input (a wait crossing its threshold, a held round trip
        expiring); while a seat is slow, a second from now (its number grows).  None: nothing pending."""
        if self.slow(now):
            return now + 1.0
        at = []
        for s in self._seats.values():
            if s.pending:
                at.append(min(s.pending.values()) + SLOW_ROUND_TRIP)
            at.append(s.heard + SLOW_QUIET)
        later = [t for t in at if t > now]
        return min(later) + 0.01 if later else None


def words(names, slow: dict) -> list[str]:
    """What the table says of each slow link: "Bo's link is slow (2.1 s)"."""
    return ["%s's link is slow (%.1f s)" % (names[s], slow[s]) for s in sorted(slow)]
