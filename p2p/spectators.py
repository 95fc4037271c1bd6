"""Spectators (protocol.md §9.8), as a sans-IO part of ``GameNode``.

A spectator is an anonymous TLS client of a seat's play address that follows the log read-only.
What a seat does with one is here, and nothing else is:

* **Admitted or refused** (``Spectators.admit``): its one request must be ``["watch", 1]``
  (anything else closes the connection, with no answer); a seat already serving
  ``MAX_SPECTATORS`` answers ``["refused", reason]`` and closes it.  A seat that refuses
  spectators altogether (``enabled`` false: ``--no-spectators``, or a genesis that says
  ``"spectators": false``) never gets here: its TLS context requires a certificate
  (p2p/tls.py ``server_context``).
* **What it is sent** (``Feed``, one per spectator): ``["genesis", entry]``, then
  ``["entry", entry]`` for every further log entry in order, each one as it is placed; once
  its log has caught up with ours, ``["sealed", [event, ...]]`` whenever the commitments held
  for the open step changed; ``["watching", n]`` after the first batch, whenever ``n`` changed
  and at least every ``SPECTATOR_KEEPALIVE`` s; ``["addrs", [[host, port], ...]]`` (every seat's
  address as our roster has it, so that it can follow the table through another seat if we go)
  after the first batch and whenever our roster changed.
* **When it ends**: our log was cut back below what it was sent (a repair, §9.6: it must start
  again), or the game is over and it holds every entry (``Feed.finished``).

The node (p2p/node.py) moves the bytes: it reads the request within ``FRAME_DEADLINE``, sends what
a ``Feed`` answers (a batch within ``FRAME_DEADLINE`` or the spectator is dropped), and waits for a
new entry, a new commitment or the keep-alive.  Times come in as arguments.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from core.encoding import encode

from .limits import SPECTATOR_KEEPALIVE

MAX_SAID = 64        # talk lines not placed yet sent to a spectator in one ``said`` frame, the newest (§9.8, §13.1)


class Refusal(NamedTuple):
    """Why a spectator is turned away: the limit it hit (``RateLimitedLog`` key), words for our
    log, and the frame to send it before closing (None: close without a word)."""

    limit: str
    why: str
    reply: bytes | None


def is_request(msg: Any) -> bool:
    """A spectator's request: exactly ``["watch", 1]``."""
    return isinstance(msg, list) and len(msg) == 2 and msg[0] == "watch" and type(msg[1]) is int and msg[1] == 1


class Spectators:
    """Whether this seat serves spectators, and how many it serves now."""

    def __init__(self, enabled: bool) -> None:
        self._enabled = enabled
        self._count = 0

    @property
    def enabled(self) -> bool:
        return self._enabled

    @property
    def count(self) -> int:
        """Spectators served now (each of them is told this number)."""
        return self._count

    def admit(self, msg: Any, limit: int) -> Refusal | None:
        """A spectator's first frame (decoded), with at most ``limit`` served at once (MAX_SPECTATORS):
        None if it is admitted (counted until ``left``), else why not."""
        if not is_request(msg):
            return Refusal("SPECTATOR", "not a watch request", None)
        if self._count >= limit:
            return Refusal("MAX_SPECTATORS", "%d watch already" % self._count,
                           encode(["refused", "this seat already has %d spectators" % self._count]))
        self._count += 1
        return None

    def left(self) -> None:
        """An admitted spectator is gone."""
        self._count -= 1

    def feed(self, now: float) -> "Feed":
        """What to send a spectator just admitted at ``now``."""
        return Feed(now)


class Feed:
    """The frames one spectator is owed, given our log, the commitments held and the count."""

    def __init__(self, now: float) -> None:
        self._sent = 0             # log entries sent
        self._told = -1            # the spectator count it was last told
        self._sealed: list = []    # the commitments it was last sent
        self._last = now           # when it was last told the count
        self._addrs: list = []     # the seats' addresses it was last sent
        self._said: list = []      # the talk lines not placed it was last sent

    def cut(self, entries: list) -> bool:
        """Our log is now shorter than what it was sent (a repair): it must start again."""
        return len(entries) < self._sent

    def entry(self, entries: list) -> bytes | None:
        """The next log entry to send (the genesis first), or None once it has them all."""
        if self._sent >= len(entries):
            return None
        frame = encode(["genesis" if self._sent == 0 else "entry", entries[self._sent]])
        self._sent += 1
        return frame

    def sealed(self, sealed: list) -> bytes | None:
        """The commitments held for the step its log is at (taken with no wait since its last
        entry), if they are not the ones it was last sent."""
        if sealed == self._sealed:
            return None
        self._sealed = sealed
        return encode(["sealed", sealed])

    def said(self, said: list) -> bytes | None:
        """The talk lines held that our log has not placed (raw ``say`` events, arrival order, the newest
        MAX_SAID), once it holds the genesis and whenever they changed (§9.8, §9.11)."""
        said = list(said[-MAX_SAID:])
        if self._sent == 0 or said == self._said:
            return None
        self._said = said
        return encode(["said", said])

    def addrs(self, addrs: list) -> bytes | None:
        """Every seat's address (our roster's ``addrs``, seat order), once it holds the genesis and
        whenever they changed (a seat came back at a new address)."""
        addrs = [[str(h), int(p)] for h, p in addrs]
        if self._sent == 0 or addrs == self._addrs:
            return None
        self._addrs = addrs
        return encode(["addrs", addrs])

    def watching(self, count: int, now: float) -> bytes | None:
        """The spectator count, if it changed or the keep-alive is due."""
        if self._told == count and now - self._last < SPECTATOR_KEEPALIVE:
            return None
        self._told, self._last = count, now
        return encode(["watching", count])

    def finished(self, entries: list, over: bool) -> bool:
        """The game is over and it holds every entry: nothing more will come."""
        return over and self._sent >= len(entries)
