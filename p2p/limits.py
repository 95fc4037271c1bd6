"""Every resource limit a peer enforces against strangers and seated peers (protocol.md §13.1).

The values are the defaults; ``tls.serve`` and ``GameNode`` take a ``Limits``
so tests can shrink the time-outs.  The protocol-level caps (votes held,
sequence numbers ahead, certificates per phase) are constants of the parts of
p2p/protocol.py's ``Peer`` that keep them (replica.py, repair.py, timeouts.py,
wakeups.py, resync.py, cuts.py), re-exported by p2p/protocol.py and listed here
(``protocol_limits``) so this module names them all.

``RateLimitedLog`` keeps a refused flood from flooding the log: at most one
line per limit and per address every ``LOG_EVERY`` seconds (and at most
``LOG_BURST`` lines per limit in all addresses together), each later line saying
how many were suppressed since.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Callable

# ---- listeners (lobby and game), p2p/tls.py ---------------------------------------
MAX_HANDSHAKES = 32            # TLS handshakes in progress at once, per listener
MAX_HANDSHAKES_PER_ADDR = 8    # of them from one IP address (a host and its five bots on one machine knock at once)
MAX_CONNS_PER_ADDR = 16        # open connections (handshaking or established) from one IP address
MAX_CONNS = 128                # open connections in all, per listener
HANDSHAKE_DEADLINE = 10.0      # s for a TLS handshake (listener side)

# ---- framed connections, p2p/framing.py + p2p/links.py ----------------------------
FRAME_DEADLINE = 10.0          # s to receive the rest of a frame once its first byte came
IDLE_TIMEOUT = 30.0            # s without any frame on a seated connection (peers send 'have' every 0.1 s)
BYTES_PER_SECOND = 2 << 20     # token bucket refill, per seated connection (bytes/s)
BURST_BYTES = 3 << 20          # bucket size (> one maximal frame, 1 MiB)
FRAME_COST = 256               # every frame costs at least this many bytes of budget

# ---- spectators, p2p/spectators.py + p2p/node.py + p2p/watch.py --------------------
MAX_SPECTATORS = 8             # spectators one seat serves at once (more are refused)
SPECTATOR_KEEPALIVE = 10.0     # s: a seat sends a spectator ["watching", n] at least this often
SPECTATOR_IDLE = 30.0          # s without any frame from the seat before a spectator gives up
SPECTATOR_PATIENCE = 60.0      # s a spectator keeps knocking at the table's seats once the one it followed went
SPECTATOR_RETRY = 0.25        # s between the first two rounds of knocking at every seat, then doubling ...
SPECTATOR_RETRY_MAX = 2.0     # s ... up to this
SPECTATOR_DIAL = 5.0           # s for a spectator's TCP connect and TLS handshake to one seat

# ---- log lines ---------------------------------------------------------------------
LOG_EVERY = 10.0               # s: one line per limit and address
LOG_BURST = 8                  # lines per limit per LOG_EVERY over all addresses


@dataclass
class Limits:
    max_handshakes: int = MAX_HANDSHAKES
    max_handshakes_per_addr: int = MAX_HANDSHAKES_PER_ADDR
    max_conns_per_addr: int = MAX_CONNS_PER_ADDR
    max_conns: int = MAX_CONNS
    handshake_deadline: float = HANDSHAKE_DEADLINE
    frame_deadline: float = FRAME_DEADLINE
    idle_timeout: float = IDLE_TIMEOUT
    bytes_per_second: float = BYTES_PER_SECOND
    burst_bytes: float = BURST_BYTES
    frame_cost: int = FRAME_COST
    max_spectators: int = MAX_SPECTATORS


DEFAULT = Limits()


class RateLimitedLog:
    """``note(limit, addr, fmt, *args)``: log at most one line per (limit, addr) per ``every`` s
    and ``burst`` lines per limit per ``every`` s; the next line logged says how many were
    suppressed.  Memory: one small entry per (limit, addr) seen in the current window
    (windows are forgotten once they are over)."""

    def __init__(self, logger: logging.Logger, every: float = LOG_EVERY, burst: int = LOG_BURST,
                 clock: Callable[[], float] = time.monotonic, level: int = logging.WARNING) -> None:
        self.logger = logger
        self.every = every
        self.burst = burst
        self.clock = clock
        self.level = level
        self._last: dict[tuple, float] = {}       # (limit, addr) -> when last logged
        self._window: dict[str, list] = {}        # limit -> [window start, lines logged]
        self.suppressed: dict[str, int] = {}      # limit -> lines suppressed since its last line
        self.counts: dict[str, int] = {}          # limit -> times hit in all (for tests and stats)

    def note(self, limit: str, addr: str, fmt: str, *args) -> bool:
        now = self.clock()
        self.counts[limit] = self.counts.get(limit, 0) + 1
        if len(self._last) > 4096:   # forget old windows (bounded memory under a flood from many addresses)
            self._last = {k: t for k, t in self._last.items() if now - t < self.every}
        win = self._window.setdefault(limit, [now, 0])
        if now - win[0] >= self.every:
            win[0], win[1] = now, 0
        last = self._last.get((limit, addr))
        if (last is not None and now - last < self.every) or win[1] >= self.burst:
            self.suppressed[limit] = self.suppressed.get(limit, 0) + 1
            return False
        self._last[(limit, addr)] = now
        win[1] += 1
        sup = self.suppressed.pop(limit, 0)
        tail = " (limit %s; %d similar lines suppressed in the last %.0f s)" % (limit, sup, self.every) if sup else " (limit %s)" % limit
        self.logger.log(self.level, fmt + tail, *args)
        return True

    def note_all(self, refused: list) -> None:
        """``note`` each of the ``Refused`` limits a part answered with, in order."""
        for r in refused:
            self.note(r.limit, r.who, r.fmt, *r.args)


@dataclass(frozen=True)
class Refused:
    """A limit a part hit on the way, as a value (``RateLimitedLog.note_all`` counts and logs it)."""
    limit: str
    who: str
    fmt: str
    args: tuple = ()


class TokenBucket:
    """Bytes a peer may send us: ``rate`` per second, at most ``burst`` saved up."""

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.at = now

    def take(self, n: float, now: float) -> float:
        """Spend ``n``; return how long to wait (s) before the next read so the budget holds."""
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        self.tokens -= n
        return 0.0 if self.tokens >= 0 else -self.tokens / self.rate


def protocol_limits() -> dict:
    """The caps enforced by the sans-IO peer (p2p/protocol.py's ``Peer``), by name, each read from the part
    that keeps it (imported here, not at the top: the parts are the peer's, not every listener's): its fork
    proofs (p2p/forks.py, core/fork.py) and the patience of a step that needs every seat (p2p/timeouts.py)
    among them."""
    from core import fork

    from . import cuts, forks, leaving, repair, replica, resync, showing, spectators, talk, timeouts, wakeups

    return dict(
        MAX_SEQ_AHEAD=replica.MAX_SEQ_AHEAD, MAX_BUFFERED_PER_AUTHOR=replica.MAX_BUFFERED_PER_AUTHOR,
        MAX_CERTS_PER_PHASE=replica.MAX_CERTS_PER_PHASE,
        MAX_VOTES_PER_STEP_SEAT=timeouts.MAX_VOTES_PER_STEP_SEAT, VOTES_AHEAD=timeouts.VOTES_AHEAD,
        VOTES_BEHIND=timeouts.VOTES_BEHIND, VOTE_RESEND=timeouts.VOTE_RESEND,
        MAX_SEND_PER_HAVE=repair.MAX_SEND_PER_HAVE, REPAIR_INTERVAL=repair.REPAIR_INTERVAL,
        WATCHDOG_AFTER=wakeups.WATCHDOG_AFTER, KEEPALIVE=wakeups.KEEPALIVE, HAVE_GAP=wakeups.HAVE_GAP,
        RESYNC_WAIT=resync.RESYNC_WAIT, MAX_CUT_MOVES=cuts.MAX_CUT_MOVES,
        LEAVE_FLUSH=leaving.LEAVE_FLUSH, MAX_NONCES_KEPT=leaving.MAX_NONCES_KEPT,
        SHOW_MARGIN=timeouts.SHOW_MARGIN, MAX_VOTE_KEYS=showing.MAX_VOTE_KEYS, KEEP_PHASES=showing.KEEP_PHASES,
        MAX_FORK_CHECKS=forks.MAX_FORK_CHECKS, MAX_FORK=fork.MAX_FORK, NEEDED_PATIENCE=timeouts.NEEDED_PATIENCE,
        MAX_SAY_BYTES=talk.MAX_SAY_BYTES, MAX_SAY_PENDING=talk.MAX_SAY_PENDING, SAY_GAP=talk.SAY_GAP,
        MAX_TALK_KEPT=talk.MAX_TALK_KEPT, NAMED_REFUSED=talk.NAMED_REFUSED, MAX_SAID=spectators.MAX_SAID,
    )
