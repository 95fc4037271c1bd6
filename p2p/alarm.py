"""When the node's ticker wakes, and when the node is done (protocol.md §9.5), as a sans-IO part of ``GameNode``.

A node does not tick on a period, so a table that waits for a person costs nothing.  Its ticker
sleeps until the first of:

* the peer's next wake-up (``Peer.next_wakeup``: a step clock to start, a vote, a ``have``, the
  watchdog ...);
* the next flush of the benchmark trace, when there is one (p2p/trace.py);
* the end of the linger once the game is over;

or until an input (a frame, our own move, a tick's effects) brings the peer's next wake-up
forward: ``Alarm.input`` says whether it does (the node then pokes the ticker).  The test costs
~10 us; a needless wake of the ticker ~60 us, about once per frame; both are counted
(``inputs``, ``pokes``: tests and benchmarks read them).

Once the game is over the node leaves when every other seat holds everything we hold, or after
the linger (``Alarm.done``).  Times come in as arguments (the node's trio clock).
"""

from __future__ import annotations

from typing import Callable

MIN_SLEEP = 0.002          # s: the ticker never wakes more often than this (a guard; the peer says when)


class Alarm:
    """The ticker's next wake-up, whether an input must wake it, and the end of the linger."""

    def __init__(self, linger: float) -> None:
        self._linger = linger
        self._until: float | None = None       # when the sleeping ticker wakes by itself (None: not asleep)
        self._over_since: float | None = None  # when we first saw the game over
        self._inputs = 0                       # inputs and ticks handled
        self._pokes = 0                        # ... and how many of them woke the ticker

    @property
    def inputs(self) -> int:
        return self._inputs

    @property
    def pokes(self) -> int:
        return self._pokes

    def wake_at(self, peer_at: float, flush_at: float | None = None) -> float:
        """When the ticker must next run: the peer's wake-up ``peer_at``, the trace's ``flush_at``,
        the end of the linger."""
        at = peer_at
        if flush_at is not None:
            at = min(at, flush_at)
        if self._over_since is not None:
            at = min(at, self._over_since + self._linger)
        return at

    def sleep(self, at: float, now: float) -> float:
        """The ticker goes to sleep at ``now`` until ``at``: when it wakes by itself."""
        self._until = max(at, now + MIN_SLEEP)
        return self._until

    def woke(self) -> None:
        self._until = None

    def input(self, eager: bool, next_wakeup: Callable[[], float]) -> bool:
        """An input (or a tick) was handled: True if the ticker must wake now, because it is
        awake, or ``eager`` (a wake has work of its own: a screen to update, the end of the game),
        or the peer's wake-up (``next_wakeup()``, asked only then) came before its own."""
        self._inputs += 1
        until = self._until
        if until is None or eager or next_wakeup() < until:
            self._pokes += 1
            return True
        return False

    def done(self, now: float, over: bool, everyone_has_all: Callable[[], bool]) -> bool:
        """After a wake at ``now``: True once the game is ``over`` and every seat holds everything
        (``everyone_has_all()``, asked only then) or the linger since we first saw it over ran out."""
        if not over:
            self._over_since = None
            return False
        if self._over_since is None:
            self._over_since = now
        return everyone_has_all() or now - self._over_since > self._linger
