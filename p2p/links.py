"""The connections of one seat's node to the other seats (protocol.md §9.2-9.4), a part of ``GameNode``.

Two layers, as elsewhere in p2p/:

* ``Mesh`` (sans-IO) is the policy: whom we dial (every seat before ours, the full mesh; a
  resumed seat also dials the seats after it, §9.4, as it may be back at an address they do not
  know), which incoming connection we keep (a key that holds no seat is refused; a dial-back
  from a seat before ours never replaces the connection we have: ours wins; one after ours
  never replaces its own), the dial back-off (0.05 s doubling to 1 s, reset by a handshake
  that succeeds), and since when each seat has been silent (no connection; times come in as
  arguments).
* ``Links`` (trio) moves the bytes: a dialer per seat ``Mesh`` names, the listener's incoming
  connections, and per connection a reader (each frame read within the limits, a byte budget
  that reads a flooding peer later instead of dropping it) and a sender fed by a bounded queue
  (``SEND_QUEUE_BYTES``: a peer that does not read is dropped and redialled); a seat before ours
  that dials us is where it dialled from: its address is kept in the roster file.  Fault
  injection for tests (p2p/faults.py) decides the fate of every outbound frame.

What arrives and what a connection opening or closing means is the peer's business
(p2p/protocol.py): ``Links`` hands each of them to the callbacks it is given.
"""

from __future__ import annotations

import logging
from typing import Any, Awaitable, Callable

import trio

from . import tls
from .faults import Injector
from .framing import ConnectionClosed, FrameError, FrameTimeout, FramedStream
from .limits import Limits, RateLimitedLog, TokenBucket

log = logging.getLogger("easel.node")

QUEUE = 4096                  # frames queued for one connection
SEND_QUEUE_BYTES = 16 << 20   # bytes queued for one connection before it is dropped (redialled)
DIAL_TIMEOUT = 5.0            # s for the TLS handshake when we dial a seat (the listener allows HANDSHAKE_DEADLINE)
BACKOFF_FIRST = 0.05          # s before the first redial after a failed dial
BACKOFF_MAX = 1.0             # s: the back-off doubles up to this


class Backoff:
    """How long to wait before dialling a seat again after a failed dial."""

    def __init__(self) -> None:
        self._wait = BACKOFF_FIRST

    def failed(self) -> float:
        """A dial failed: wait this long (the next failure waits twice as long, up to BACKOFF_MAX)."""
        wait = self._wait
        self._wait = min(wait * 2, BACKOFF_MAX)
        return wait

    def reset(self) -> None:
        """A dial succeeded."""
        self._wait = BACKOFF_FIRST


class Mesh:
    """Who connects to whom at one table, and since when each seat has been out of reach."""

    STRANGER, IGNORE, BACK, ACCEPT = "stranger", "ignore", "back", "accept"

    def __init__(self, keys: list, seat: int, dial_back: bool, now: float) -> None:
        self._keys = list(keys)
        self._seat = seat
        self._dial_back = dial_back
        # seat -> wall-clock time since when we have no connection to it (every other seat at first)
        self._silent: dict[int, float] = {s: now for s in range(len(keys)) if s != seat}

    @property
    def me(self) -> int:
        return self._seat

    def seat_of(self, key: bytes) -> int:
        return self._keys.index(key)

    def key_of(self, seat: int) -> bytes:
        return self._keys[seat]

    def dials(self) -> list[int]:
        """The seats we dial: those before ours (the full mesh), every other one after a resume."""
        seats = range(len(self._keys)) if self._dial_back else range(self._seat)
        return [s for s in seats if s != self._seat]

    def incoming(self, key: bytes | None, connected: bool) -> str:
        """What to do with a connection that reached our listener from ``key`` (its certificate's):
        STRANGER (refuse: no seat of ours), IGNORE (a dial-back while ours is up), BACK (a dial-back:
        keep it, and learn where that seat is now), ACCEPT."""
        if key is None or key not in self._keys or key == self._keys[self._seat]:
            return self.STRANGER
        if self._keys.index(key) < self._seat:
            return self.IGNORE if connected else self.BACK
        return self.ACCEPT

    def keep_dialled(self, seat: int, connected: bool) -> bool:
        """A dial to ``seat`` just succeeded: False if it crossed that seat's own dial to us (a
        dial-back to a seat after ours): the other seat's connection wins."""
        return not (seat > self._seat and connected)

    def opened(self, seat: int) -> None:
        self._silent.pop(seat, None)

    def closed(self, seat: int, now: float) -> None:
        self._silent[seat] = now

    @property
    def silent_since(self) -> dict[int, float]:
        """seat -> since when (wall clock) we have had no connection to it (the live dict)."""
        return self._silent


class Conn:
    queued = 0   # bytes in send_ch (class default: tests build bare Conns)

    def __init__(self, key: bytes, stream: FramedStream) -> None:
        self.key = key
        self.stream = stream
        self.send_ch, self.recv_ch = trio.open_memory_channel(QUEUE)
        self.closed = False
        self.queued = 0          # bytes in send_ch


class Links:
    """The open connections to the other seats, their dialers and their queues."""

    def __init__(
        self,
        mesh: Mesh,
        roster: dict,
        client_ctx: Any,
        *,
        limits: Callable[[], Limits],
        rl: RateLimitedLog,
        faults: Injector,
        wall: Callable[[], float],
        on_open: Callable[[bytes], None],
        on_frame: Callable[[bytes, bytes], None],
        on_close: Callable[[bytes], None],
        on_moved: Callable[[], None],
        serve: Callable[[bytes, FramedStream], Awaitable[None]] | None = None,
    ) -> None:
        """``on_open(key)``/``on_close(key)``: a connection to a seat opened/closed; ``on_frame(key,
        frame)``: a frame it sent; ``on_moved()``: ``roster``'s addresses changed (save it);
        ``limits()``: the limits in force (read as each connection opens);
        ``wall()``: the wall clock (the time since when a seat is silent); ``serve(key, stream)``:
        runs a connection to a seat that our dialer or listener opened (default ``run_conn``; the
        node's ``_run_conn``, that tests wrap to misbehave on the wire)."""
        self._mesh = mesh
        self._roster = roster
        self._client_ctx = client_ctx
        self._limits = limits
        self._rl = rl
        self._faults = faults
        self._wall = wall
        self._on_open = on_open
        self._on_frame = on_frame
        self._on_close = on_close
        self._on_moved = on_moved
        self._serve = serve or self.run_conn
        self._conns: dict[bytes, Conn] = {}
        self._nursery: trio.Nursery | None = None
        self._lost = trio.Event()                 # set (and replaced) whenever a connection drops
        self._met = trio.Event()                  # set at our first connection to another seat
        self._budget_waits = 0                    # reads put off by the byte budget

    @property
    def conns(self) -> dict[bytes, Conn]:
        """key -> open connection (the live dict)."""
        return self._conns

    @property
    def lost(self) -> trio.Event:
        """An event set (then replaced) when a connection to a seat drops."""
        return self._lost

    @property
    def met(self) -> trio.Event:
        """An event set at our first connection to another seat."""
        return self._met

    @property
    def budget_waits(self) -> int:
        """How many times a read was put off by a peer's byte budget."""
        return self._budget_waits

    def start(self, nursery: trio.Nursery, done: trio.Event) -> None:
        """Dial the seats ``Mesh`` names, in ``nursery`` (also where held-back frames wait), until ``done``."""
        self._nursery = nursery
        for s in self._mesh.dials():
            nursery.start_soon(self._dialer, s, done)

    # ------------------------------------------------------------------ sending
    def enqueue(self, c: Conn, msg: bytes) -> None:
        if c.closed:
            return
        copies, delay = self._faults.fate()
        if delay is not None:
            self._nursery.start_soon(self._delayed, c, msg, delay)
        for _ in range(copies):
            if c.queued + len(msg) > SEND_QUEUE_BYTES:
                who = self._mesh.seat_of(c.key)
                self._rl.note("SEND_QUEUE_BYTES", "seat %d" % who, "seat %d: seat %d does not read what we send: dropping the connection", self._mesh.me, who)
                self.drop(c)
                return
            try:
                c.send_ch.send_nowait(msg)
                c.queued += len(msg)
            except trio.WouldBlock:
                self.drop(c)
                return
            except (trio.ClosedResourceError, trio.BrokenResourceError):
                return

    async def _delayed(self, c: Conn, msg: bytes, delay: float) -> None:
        await trio.sleep(delay)
        if not c.closed:
            try:
                c.send_ch.send_nowait(msg)
                c.queued += len(msg)
            except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
                pass

    def drop(self, c: Conn) -> None:
        if c.closed:
            return
        c.closed = True
        c.send_ch.close()
        if self._conns.get(c.key) is c:
            del self._conns[c.key]
            self._mesh.closed(self._mesh.seat_of(c.key), self._wall())
            self._on_close(c.key)
            self._lost.set()
            self._lost = trio.Event()

    def drained(self) -> bool:
        """Every send queue is empty (the senders took what was queued)."""
        return all(c.queued == 0 for c in self._conns.values())

    async def _sender(self, c: Conn) -> None:
        try:
            async for msg in c.recv_ch:
                c.queued -= len(msg)
                await c.stream.send(msg)
        except (ConnectionClosed, FrameError, trio.BrokenResourceError, trio.ClosedResourceError):
            self.drop(c)

    # ------------------------------------------------------------------ connections
    async def run_conn(self, key: bytes, stream: FramedStream) -> None:
        old = self._conns.get(key)
        if old is not None:
            self.drop(old)
        c = Conn(key, stream)
        self._conns[key] = c
        self._met.set()
        self._mesh.opened(self._mesh.seat_of(key))
        self._on_open(key)
        lim = self._limits()
        bucket = TokenBucket(lim.bytes_per_second, lim.burst_bytes, trio.current_time())
        who = "seat %d" % self._mesh.seat_of(key)
        try:
            async with trio.open_nursery() as n:
                n.start_soon(self._sender, c)
                try:
                    while not c.closed:
                        frame = await stream.receive(idle=lim.idle_timeout, frame=lim.frame_deadline)
                        self._on_frame(key, frame)
                        # byte budget: a peer over it is not dropped, its frames are read later
                        # (TCP then slows it down); the deadlines above do not run meanwhile
                        wait = bucket.take(len(frame) + lim.frame_cost, trio.current_time())
                        if wait > 0:
                            self._budget_waits += 1
                            self._rl.note("BYTES_PER_SECOND", who, "seat %d: %s sends more than %d bytes/s: reading it %.2f s later",
                                          self._mesh.me, who, lim.bytes_per_second, wait)
                            await trio.sleep(wait)
                except (ConnectionClosed, FrameError, trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                    if isinstance(exc, FrameTimeout):
                        self._rl.note("FRAME_DEADLINE", who, "seat %d: dropping the connection of %s: %s", self._mesh.me, who, exc)
                    elif not isinstance(exc, ConnectionClosed):
                        log.info("seat %d: connection to %s lost: %s", self._mesh.me, who, exc)
                finally:
                    self.drop(c)
                    n.cancel_scope.cancel()
        finally:
            with trio.CancelScope(shield=True):
                with trio.move_on_after(1):
                    try:
                        await stream.aclose()
                    except Exception:
                        pass

    async def incoming(self, stream: trio.SSLStream, spectator: Callable[[FramedStream], Any] | None) -> None:
        """A TLS connection our listener accepted: a seat's, or (no certificate, and ``spectator``
        given) a spectator's, served by ``spectator``."""
        key = tls.peer_public_key(stream)
        if key is None and spectator is not None:
            await spectator(FramedStream(stream))
            return
        verdict = self._mesh.incoming(key, key in self._conns)
        if verdict == Mesh.STRANGER:
            self._rl.note("SEAT_KEY", "key", "seat %d: refused a connection from a key that holds no seat", self._mesh.me)
            return
        if verdict == Mesh.IGNORE:
            return
        if verdict == Mesh.BACK:
            self._learn_address(self._mesh.seat_of(key), stream)
        await self._serve(key, FramedStream(stream))

    def _learn_address(self, seat: int, stream) -> None:
        """A seat before ours dialled us: it is where it dialled from (at its roster port). Keep that in
        our roster file, so that our own later resume dials it there."""
        ip = tls.peer_host(stream)
        if ip is None:
            return
        addr = self._roster["addrs"][seat]
        if addr[0] == ip:
            return
        log.info("seat %d: seat %d is now at %s (it was at %s)", self._mesh.me, seat, ip, addr[0] or "the lobby's address")
        self._roster["addrs"][seat] = [ip, addr[1]]
        try:
            self._on_moved()
        except OSError as exc:
            log.warning("seat %d: cannot record seat %d's new address: %s", self._mesh.me, seat, exc)

    async def _dialer(self, seat: int, done: trio.Event) -> None:
        key = self._mesh.key_of(seat)
        host, port = self._roster["addrs"][seat]
        backoff = Backoff()
        while not done.is_set():
            if key in self._conns:
                await self._lost.wait()     # redial when a connection drops, not on a timer
                continue
            try:
                stream = await tls.connect(host, port, self._client_ctx, key, timeout=DIAL_TIMEOUT)
            except (OSError, tls.TLSError) as exc:
                log.debug("seat %d: dial seat %d failed: %s", self._mesh.me, seat, exc)
                await trio.sleep(backoff.failed())
                continue
            backoff.reset()
            if not self._mesh.keep_dialled(seat, key in self._conns):
                # a dial-back that crossed the other seat's own dial: the other seat's connection wins
                await trio.aclose_forcefully(stream)
                continue
            await self._serve(key, FramedStream(stream))
