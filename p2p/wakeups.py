"""When a peer wakes (protocol.md §9.5, "When a peer wakes"), as a sans-IO part of ``Peer``.

A shell sleeps until ``Peer.next_wakeup()`` instead of ticking on a timer.  This part keeps what
that answer needs of its own: the inputs counted since the last tick (a vote past its time is
re-evaluated after every input), the last tick's time (a moment already covered is never
answered again: no busy loop), the 'have' timer, and the watchdog; and the peer's clock as last
seen (``now``: the last tick's, or the last input's when the shell gives ``Peer`` its clock).  The other parts say when they
have timed work (``TimeoutVoter``: the vote, the escalation, re-sending the votes; the show gate;
the resync and claim gates) and ``Wakeups.earliest`` takes the soonest.

* **The 'have' timer**: a ``have`` goes HAVE_GAP after the last one when what it says changed
  (its ``signature``) or while a peer holds what we lack (changes are coalesced, a lagging peer is
  asked this often), else every KEEPALIVE as a keep-alive.
* **The watchdog** (§13.1 ``WATCHDOG_AFTER``): an open step that has not moved for WATCHDOG_AFTER
  seconds while it waits for nobody, or while a peer reports holding events we lack, is never
  left to rest: the peer re-checks what it holds and asks every peer again (a ``hello``).

Clocks are the caller's (``now`` arguments, and the shell's ``clock``, read at each input only).
"""

from __future__ import annotations

from typing import Callable

WATCHDOG_AFTER = 2.0          # s an open step may wait for nobody before we ask the peers again
KEEPALIVE = 4.0               # s between two 'have's when nothing changed and nothing is missing (event-driven, §9.5)
HAVE_GAP = 0.1                # s at least between two 'have's: changes are coalesced, a lagging peer asked this often


class Wakeups:
    """Inputs since the last tick, the 'have' timer and the watchdog, for one peer."""

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        self._clock = clock                  # the shell's clock (the one ``tick`` is given), read at each input
        self._now = 0.0                      # the last tick's (or input's) clock
        self._inputs = 0
        self._inputs_seen = -1
        self._last_tick = float("-inf")
        self._have_at = float("-inf")
        self._have_sig: tuple | None = None
        self._mark: tuple | None = None      # watchdog: (table position, since)

    # ------------------------------------------------------------------ inputs and ticks
    def input(self) -> None:
        """An input arrived (``receive``, ``act``, ``connected``...): it may change what is due; the
        clock is read when the shell gave one."""
        self._inputs += 1
        if self._clock is not None:
            self._now = self._clock()

    def clocked(self) -> bool:
        """Did the shell give its clock (read at each input)?"""
        return self._clock is not None

    def now(self) -> float:
        """The clock as last seen: the last tick's, or the last input's (``clocked``)."""
        return self._now

    def ticked(self, now: float) -> None:
        """A tick at ``now``: what was due until now is done, every input so far seen."""
        self._now = now
        self._last_tick = now
        self._inputs_seen = self._inputs

    def earliest(self, now: float, have_next: float, vote_at: float | None, times: list) -> float:
        """The next wake-up: ``have_next`` (the 'have' timer, ``have_next`` below), our vote at
        ``vote_at`` (and at ``now`` if it is past and an input arrived since the last tick: it
        may change our vote), and every one of ``times`` (None: nothing) after the last tick."""
        last = self._last_tick
        at = [have_next]
        if vote_at is not None and vote_at <= last and self._inputs != self._inputs_seen:
            at.append(now)
        at += [t for t in [vote_at] + times if t is not None and t > last]
        return min(at)

    # ------------------------------------------------------------------ the 'have' timer
    def _have_gap(self, sig: tuple, lagging: bool) -> float:
        return HAVE_GAP if lagging or sig != self._have_sig else KEEPALIVE

    def have_next(self, sig: tuple, lagging: bool) -> float:
        """When our next 'have' is due (``sig``: what it would say, ``lagging``: a peer holds what we lack)."""
        return self._have_at + self._have_gap(sig, lagging)

    def have_due(self, now: float, sig: tuple, lagging: bool) -> bool:
        """Is our 'have' due at ``now``?  If so it counts as sent."""
        if now >= self._have_at + self._have_gap(sig, lagging) or now < self._have_at:   # the very sum have_next gives
            self.have_sent(now, sig)
            return True
        return False

    def have_sent(self, now: float, sig: tuple) -> None:
        """A 'have' saying ``sig`` went at ``now`` (the timer starts again)."""
        self._have_at, self._have_sig = now, sig

    # ------------------------------------------------------------------ the watchdog
    def watch(self, pos: tuple | None, now: float) -> bool:
        """The table is at ``pos`` (None: no open step) at ``now``: has it not moved for
        WATCHDOG_AFTER seconds?  (If so the wait starts again from now.)"""
        if pos is None:
            self._mark = None
            return False
        if self._mark is None or self._mark[0] != pos:
            self._mark = (pos, now)
            return False
        if now < self._mark[1] + WATCHDOG_AFTER:
            return False
        self._mark = (pos, now)
        return True

    def watchdog(self, table, held: dict, now: float, behind: Callable[[], bool], nobody: Callable[[], bool],
                 refuse: Callable) -> bool:
        """Does the watchdog fire at ``now`` (our log at ``table``, ``held``: the last seq held of each author)?
        When its open step has not moved (nor what we hold) for WATCHDOG_AFTER seconds and a peer holds events
        we lack (``behind()``) or it waits for nobody (``nobody()``); ``refuse(limit, who, format, *args)`` says so."""
        pos = None if table.step is None else (table.count, table.head, tuple(held.values()))
        phase = table.phase
        if not self.watch(pos, now):
            return False
        lacking = behind()
        idle = nobody()
        if not (idle or lacking):
            return False
        refuse("WATCHDOG_AFTER", "step", "phase %d has not moved for %.1f s while waiting for %s: asking the peers again",
               phase, WATCHDOG_AFTER, "nobody" if idle else "events a peer holds")
        return True

    def watchdog_at(self) -> float | None:
        """When the watchdog looks again (None: it watches no step)."""
        return None if self._mark is None else self._mark[1] + WATCHDOG_AFTER
