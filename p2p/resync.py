"""May we sign? The resync and claim gates (protocol.md §9.6, "Holes after a crash"), as a sans-IO
part of ``Peer``.

An event we signed and lost (our files' torn tail) must never be signed again differently: the
others may hold it, and two events under one seq are an equivocation (§6.4).  So:

* **the resync gate**: after our files lost their tail (``lost``), we sign nothing new until every
  other seat has reported what it holds (``heard``) or RESYNC_WAIT seconds have passed since our
  first tick; an event of ours that reached them then comes back by repair;
* **the claim gate**: while a peer reports holding an event of ours above what we hold, we sign
  nothing, for at most RESYNC_WAIT seconds from when we first saw the claim (a lying peer cannot
  stop us for ever).

``Peer`` adds its own two reasons not to sign (no seat; we left, p2p/leaving.py).  Clocks are
the caller's (``now`` arguments).
"""

from __future__ import annotations

from typing import Callable

RESYNC_WAIT = 10.0            # s we wait, after losing our log's tail, to hear our own events back before signing


class ResyncGate:
    """The resync gate and the claim gate of one peer."""

    def __init__(self, n: int, seat: int | None, lost: bool = False) -> None:
        self._others = {s for s in range(n) if s != seat}   # the seats we wait to hear from
        self._resync = lost
        self._heard: set = set()                    # seats whose have we received
        self._first_tick: float | None = None
        self._claim_since: float | None = None      # since when a peer claims an event of ours we lack

    def lost_tail(self) -> None:
        """Our files lost their tail: events we signed may be held by the others and not by us."""
        self._resync = True

    def heard(self, seat: int) -> None:
        """``seat`` reported what it holds (a hello or a have)."""
        self._heard.add(seat)

    def allows(self, now: float, claimed: Callable[[], bool]) -> bool:
        """May we sign at ``now``?  ``claimed()``: does a peer report holding an event of ours we lack?"""
        if self._resync:
            return False
        if claimed():
            return self._claim_since is not None and now >= self._claim_since + RESYNC_WAIT
        return True

    def tick(self, now: float, claimed: bool) -> bool:
        """A tick at ``now`` (``claimed``: as for ``allows``): the gates open when their time comes.
        True when a claim is first seen (the caller says so)."""
        if self._first_tick is None:
            self._first_tick = now
        if self._resync and (self._others <= self._heard or now >= self._first_tick + RESYNC_WAIT):
            self._resync = False
        if claimed and self._claim_since is None:
            self._claim_since = now
            return True
        if not claimed:
            self._claim_since = None
        return False

    def times(self) -> list:
        """When a gate may open by its time (None: it cannot, or waits for no time)."""
        return [self._first_tick + RESYNC_WAIT if self._resync and self._first_tick is not None else None,
                None if self._claim_since is None else self._claim_since + RESYNC_WAIT]
