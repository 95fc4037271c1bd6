"""A spectator: follow a live table read-only (protocol.md §9.8).

It connects to any seat's play address with TLS and no client certificate,
sends ``["watch", 1]``, and receives ``["genesis", entry]``, then
``["entry", entry]`` for every log entry in order, ``["sealed", [event, ...]]``
(the commitments the seat holds for the current commit step, not yet in the
log: who has sealed a move, never what) and ``["watching", n]`` now and
then. It checks every entry as a peer does (the genesis and every
signature, the chain and every rule: core.table.Table), and that the seat it
reached holds a seat of that genesis. It holds no key of the game and no seat
secret, so it sees exactly what the log makes public.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import trio

from core import games as registry
from core.encoding import CanonicalError, decode, encode
from core.events import EntryError, parse_event, parse_genesis
from core.table import RuleError, Table

from . import tls
from .framing import ConnectionClosed, FrameError, FramedStream
from .limits import FRAME_DEADLINE, SPECTATOR_IDLE


class WatchError(Exception):
    """The table cannot be watched (refused, unreachable, or it sent something invalid): one line."""


@dataclass
class Watched:
    table: Table | None = None
    entries: list = field(default_factory=list)
    first: int = 0              # entries received in the first batch (how far the game was when we came)
    watching: int = 0           # spectators the seat we follow serves (ourselves included)
    seat_key: bytes | None = None
    sealed: frozenset = frozenset()     # seats whose commitment for the step at ``sealed_at`` the seat holds
    sealed_at: int = -1                 # the log length (table.count) those commitments are for

    def waiting(self) -> list[int] | None:
        """The seats the current step still waits for, as public as it gets: a seat whose signed
        commitment the seat we follow has shown us is sealed (its event is placed in the log only once
        the step's last one is in).  None before the genesis."""
        t = self.table
        if t is None:
            return None
        sealed = self.sealed if self.sealed_at == t.count else frozenset()
        return [s for s in t.missing() if s not in sealed]


def take_sealed(w: Watched, items: Any) -> None:
    """A ``["sealed", [event, ...]]`` frame: each a signed commitment valid for the table's current
    step (signature, game, author's seat, step, kind: what a peer checks); EntryError or RuleError if not."""
    t = w.table
    if t is None or not isinstance(items, list) or len(items) > t.players:
        raise EntryError("a sealed list that does not fit the table")
    st = t.step
    seats = set()
    for raw in items:
        if not isinstance(raw, bytes):
            raise EntryError("a sealed item that is not an event")
        ev = parse_event(raw)                         # its signature
        if st is None or st.kind != "commit":
            raise RuleError("a sealed commitment while the table is not at a commit step")
        seats.add(t.check_event(ev))                  # this game, this step, a seat of it, a commit
    w.sealed, w.sealed_at = frozenset(seats), t.count


async def watch(host: str, port: int, on_change: Callable[[Watched], None] | None = None, games: Any = registry,
                idle: float = SPECTATOR_IDLE) -> Watched:
    """Follow the table at ``host:port`` (a seat's play address) until its game is over; WatchError if it fails."""
    try:
        stream = await tls.connect(host, port, tls.spectator_context(), None)
    except OSError as exc:
        raise WatchError("cannot reach %s:%d: %s" % (host, port, exc.strerror or exc)) from None
    except tls.TLSError as exc:
        raise WatchError("cannot watch %s:%d: %s" % (host, port, exc)) from None
    w = Watched(seat_key=tls.peer_public_key(stream))
    fs = FramedStream(stream)
    try:
        await fs.send(encode(["watch", 1]))
        while True:
            raw = await fs.receive(idle=idle, frame=FRAME_DEADLINE)
            msg = decode(raw)
            if not isinstance(msg, list) or not msg or not isinstance(msg[0], str):
                raise WatchError("the seat sent something that is not a message")
            kind = msg[0]
            if kind == "refused" and len(msg) == 2 and isinstance(msg[1], str):
                raise WatchError("the seat refused a spectator: %s" % msg[1][:200])
            if kind == "watching" and len(msg) == 2 and type(msg[1]) is int and 0 <= msg[1] < 2**16:
                w.watching = msg[1]
                if w.first == 0:
                    w.first = len(w.entries)
            elif kind == "genesis" and len(msg) == 2 and isinstance(msg[1], bytes) and w.table is None:
                g = parse_genesis(msg[1])             # every seat's signature
                if w.seat_key not in g.doc["seats"]:
                    raise WatchError("the peer at %s:%d holds no seat of the game it sent" % (host, port))
                w.table = Table.start(g, games)
                w.entries.append(msg[1])
            elif kind == "sealed" and len(msg) == 2 and w.table is not None:
                take_sealed(w, msg[1])
            elif kind == "entry" and len(msg) == 2 and isinstance(msg[1], bytes) and w.table is not None:
                w.table.append(msg[1])                # signature, chain and rules, as a peer checks them
                w.entries.append(msg[1])
            else:
                raise WatchError("the seat sent an unexpected %r message" % kind[:40])
            if on_change is not None and kind != "genesis":
                on_change(w)
            if w.table is not None and w.table.over and w.first:
                return w
    except (EntryError, RuleError) as exc:
        raise WatchError("the seat sent an invalid log entry (entry %d): %s" % (len(w.entries), exc)) from None
    except CanonicalError as exc:
        raise WatchError("the seat sent a malformed frame: %s" % exc) from None
    except (ConnectionClosed, FrameError, trio.BrokenResourceError, trio.ClosedResourceError):
        if w.table is not None and w.table.over:
            return w
        raise WatchError("the seat at %s:%d closed the connection%s" % (
            host, port, "" if w.table is not None else " (it may refuse spectators)")) from None
    finally:
        await trio.aclose_forcefully(stream)
