"""The trio shell around p2p.protocol.Peer for one sealed table.

It only moves bytes and runs timers: a pinned-TLS listener, one dialer per
lower seat (seat i dials every seat j < i; the full mesh), a sender and a
receiver task per connection, a ticker, and a decision task that asks the
local player (UI or bot) for a move when the rules say it is our turn.
Every effect of the state machine is carried out in order, synchronously, so
the fsync of an event always happens before the send that depends on it
(our own new event: secrets and spool; anything else: every file).

Fault injection (tests): ``Faults(drop, dup, reorder, delay)`` applied to
every outbound frame, seeded, from the environment variable EASEL_FAULTS
("drop=0.1,dup=0.1,reorder=0.2,delay=0.05,seed=7").
"""

from __future__ import annotations

import functools
import gc
import json
import logging
import os
import time
import random
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable

import trio

import core.games
from core.encoding import CanonicalError, decode, encode
from core.events import Genesis, entry_id, parse_genesis
from core.memo import use_locks

from . import tls
from .framing import ConnectionClosed, FrameError, FrameTimeout, FramedStream
from .leaving import LEAVE_FLUSH
from .limits import DEFAULT as DEFAULT_LIMITS
from .limits import SPECTATOR_KEEPALIVE, Limits, RateLimitedLog, TokenBucket
from .protocol import (
    Alert,
    Broadcast,
    Changed,
    Disconnect,
    Peer,
    Resume,
    Send,
    TruncateLog,
    WriteLog,
    WriteSecret,
    WriteSpool,
)
from .store import GameStore, StoreError

log = logging.getLogger("easel.node")

Decider = Callable[[Any, int, Peer], Awaitable[Any]]


@dataclass(frozen=True)
class Decision:
    """What a decider needs to choose our seat's action, handed over instead of the whole Peer.

    ``view``: the game's view for ``seat`` (with our seat secret); ``phase``: the table step it is
    for; ``game`` and ``state``: the engine and its immutable state (for checks and legal actions);
    ``secret``: our seat's secret (None in games without one); ``deadline``: when the step times
    out on our clock (trio.current_time()), or, before our step clock has started, now plus the
    step's time (an estimate: the vote happens on the other seats' clocks)."""

    view: Any
    seat: int
    phase: int
    game: Any
    state: Any
    secret: bytes | None
    deadline: float | None


def decision_of(peer: Peer, seat: int, now: float) -> Decision:
    """The Decision for ``seat`` at the peer's open step."""
    t = peer.table
    secrets = getattr(t, "secrets", None)
    secret = secrets.get(seat) if isinstance(secrets, dict) else None
    at = peer.deadline()
    if at is None and t.step is not None:
        at = now + float(peer.step_timeout(t.step))
    return Decision(view=t.view(seat), seat=seat, phase=t.phase, game=t.game, state=t.state,
                    secret=secret if isinstance(secret, bytes) else None, deadline=at)


MIN_SLEEP = 0.002          # s: the ticker never wakes more often than this (a guard; the peer says when)
QUEUE = 4096
TRACE_FLUSH = 1.0         # s between appends of benchmark trace lines (EASEL_TRACE)
SWITCH_INTERVAL = 0.001   # s: how long a thinking bot thread may keep the GIL from the event loop
RESUME_CHECKPOINTS = 8        # checkpoints to let the senders take our own new event before we place it (Resume)
SEND_QUEUE_BYTES = 16 << 20   # bytes queued for one connection before it is dropped (redialled)
DIAL_TIMEOUT = 5.0            # s for the TLS handshake when we dial a seat (the listener allows HANDSHAKE_DEADLINE)


@dataclass
class Faults:
    drop: float = 0.0
    dup: float = 0.0
    reorder: float = 0.0
    delay: float = 0.0          # max extra delay in seconds for reordered frames
    seed: int = 0

    @classmethod
    def from_env(cls) -> "Faults | None":
        spec = os.environ.get("EASEL_FAULTS")
        if not spec:
            return None
        f = cls()
        for part in spec.split(","):
            k, _, v = part.partition("=")
            if k.strip() in ("drop", "dup", "reorder", "delay"):
                setattr(f, k.strip(), float(v))
            elif k.strip() == "seed":
                f.seed = int(v)
        return f


def save_roster(store: GameStore, genesis: Genesis, roster: dict, replace: bool = False) -> None:
    """Write the game's roster file once (or again, with ``replace``: a seat's new address)."""
    path = store.dir / "roster"
    if replace or not path.exists():
        tmp = store.dir / "roster.tmp"
        with open(tmp, "wb") as f:
            f.write(encode({"genesis": genesis.raw, "roster": roster}))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)


def load_roster(directory: Path) -> tuple[Genesis, dict]:
    obj = decode((Path(directory) / "roster").read_bytes())
    return parse_genesis(obj["genesis"]), obj["roster"]


async def _set_then_cancel(event: trio.Event, scope: trio.CancelScope) -> None:
    """Wait for ``event``, then cancel ``scope`` (waiting for the first of several events)."""
    await event.wait()
    scope.cancel()


def _quiet_gc() -> None:
    """Once per process: move everything alive now (modules, the genesis, the replayed log)
    out of the cyclic collector's reach.  A full collection over it took 20-80 ms on the
    benchmark machine: a pause in the middle of a step, that every peer waits for."""
    global _GC_FROZEN
    if _GC_FROZEN:
        return
    _GC_FROZEN = True
    gc.collect()
    gc.freeze()


_GC_FROZEN = False


class Conn:
    queued = 0   # bytes in send_ch (class default: tests build bare Conns)

    def __init__(self, key: bytes, stream: FramedStream) -> None:
        self.key = key
        self.stream = stream
        self.send_ch, self.recv_ch = trio.open_memory_channel(QUEUE)
        self.closed = False
        self.queued = 0          # bytes in send_ch


class GameNode:
    def __init__(
        self,
        identity,
        genesis: Genesis,
        roster: dict,
        store: GameStore,
        decide: Decider | None,
        *,
        timeout: float = 60.0,
        faults: Faults | None = None,
        on_change: Callable[["GameNode"], None] | None = None,
        linger: float = 10.0,
        rand: Callable[[int], bytes] = os.urandom,
        bind_host: str | None = None,
        games: Any = core.games,
        limits: Limits | None = None,
        dial_back: bool = False,
        spectators: bool = True,
    ) -> None:
        self.identity = identity
        # a resumed seat also dials the seats after it (protocol.md §9.4): it may have come back at an
        # address the others do not know, and they only dial the seats before them
        self.dial_back = dial_back
        self.genesis = genesis
        self.roster = roster
        self.store = store
        self.decide = decide
        self.faults = faults
        self.on_change = on_change
        self.linger = linger
        self.keys = list(genesis.doc["seats"])
        self.seat = self.keys.index(identity.public)
        self.limits = limits or DEFAULT_LIMITS
        self.listener_stats = tls.ListenerStats()
        self._rl = RateLimitedLog(log)
        self.peer = Peer(
            genesis,
            identity.public,
            identity.sign,
            rand,
            log_entries=list(store.log.records) or [genesis.raw],
            spool=list(store.spool.records),
            secrets=dict(store.secrets),
            timeout=timeout,
            games=games,
            clock=trio.current_time,
            # our files lost a torn tail: we may have signed events we no longer hold
            resync=bool(getattr(store, "repaired", False)),
        )
        self.peer.send_first = True     # our own events leave before we place them (``_resume``)
        if not store.log.records:
            store.log.append([genesis.raw])
        # compact the spool: what reached the log need not stay there (evidence stays).  The
        # log is fsynced first: the last process may have left its tail in the OS's cache only
        # (our own events are fsynced in the spool when sent, the log when we acknowledge)
        placed = set(store.log.records)
        if store.spool.records and placed & set(store.spool.records):
            store.log.sync(force=True)
        keep = [r for r in store.spool.records if r not in placed]
        if len(keep) < len(store.spool.records):
            store.spool.rewrite(keep)
        self._trace: list | None = None
        self._trace_path: Path | None = None
        self._trace_flushed = 0.0
        if os.environ.get("EASEL_TRACE"):
            # benchmarks: one JSON line per event we sign and per entry we place in the log,
            # kept in memory while we play (no write on the hot path) and written at the end
            # with our peak memory (``run``)
            tdir = Path(os.environ["EASEL_TRACE"])
            tdir.mkdir(parents=True, exist_ok=True)
            self._trace_path = tdir / ("seat-%d.jsonl" % self.seat)
            self._trace = []
            # each line carries this process's CPU seconds too (what a step costs a peer)
            self.peer.on_sign = lambda ev: self._trace.append(("sign", [ev.id], time.monotonic(), time.process_time()))
        self.conns: dict[bytes, Conn] = {}
        # seat -> wall-clock time (time.time()) since when we have no connection to it (every other seat at first)
        self.silent_since: dict[int, float] = {s: time.time() for s in range(len(self.keys)) if s != self.seat}
        self.alerts: list[str] = []
        self.done = trio.Event()
        self.met = trio.Event()                    # set at our first connection to another seat
        self.changed = trio.Event()
        self.failed: str | None = None
        self._last_waiting: tuple = ()
        self._poke = trio.Event()
        self._sleep_until: float | None = None     # when the sleeping ticker wakes by itself (None: not asleep)
        self.inputs = 0           # inputs and ticks handled (``apply``), and how many of them woke the ticker
        self.pokes = 0
        self._lost = trio.Event()                  # set (and replaced) whenever a connection drops
        self.budget_waits = 0
        self._rng = random.Random(faults.seed * 1000 + self.seat if faults else 0)
        addr = roster["addrs"][self.seat]
        self.host = bind_host or addr[0]
        self.port = addr[1]
        certs = list(roster["certs"])
        # spectators (protocol.md §9.8): anonymous TLS clients that follow the log read-only
        self.spectators = spectators and genesis.doc.get("spectators", True) is not False
        self.watching = 0
        self._log_grew = trio.Event()
        self.server_ctx = tls.server_context(identity, certs, spectators=self.spectators)
        self.client_ctx = tls.client_context(identity, certs)

    # ------------------------------------------------------------------ effects
    def run_effects(self, effects: list) -> None:
        """Carry out effects in order.  Writes are group-committed: the fsync of
        everything written so far happens right before the next send, so nothing
        leaves this process (an event, an acknowledgement) before it is durable; a
        frame carrying only our own new event waits for the secrets and spool only
        (the log's new entries are other seats' events, durable at their authors)."""
        for eff in effects:
            if isinstance(eff, Send):
                c = self.conns.get(eff.to)
                if c is not None:
                    self.store.sync()
                    self._enqueue(c, eff.msg)
            elif isinstance(eff, Broadcast):
                # our own new event needs only itself and its sealed value on disk (one or two
                # fsyncs, not three, on every step's critical path); anything else, everything
                if eff.own:
                    self.store.sync_own()
                else:
                    self.store.sync()
                for c in list(self.conns.values()):
                    self._enqueue(c, eff.msg)
            elif isinstance(eff, WriteSpool):
                self.store.spool.append(eff.entries, sync=False)
            elif isinstance(eff, WriteLog):
                self.store.log.append(eff.entries, sync=False)
                self._log_grew.set()
                self._log_grew = trio.Event()
                if self._trace is not None:
                    self._trace.append(("apply", [entry_id(raw) for raw in eff.entries], time.monotonic(), time.process_time()))
            elif isinstance(eff, TruncateLog):
                # the cut entries were just re-spooled (unsynced): make that durable first
                self.store.sync()
                self.store.log.truncate(eff.count)
                self._log_grew.set()
                self._log_grew = trio.Event()
            elif isinstance(eff, WriteSecret):
                self.store.put_secret(eff.phase, eff.value, eff.salt, sync=False)
            elif isinstance(eff, Disconnect):
                who = "seat %d" % self.keys.index(eff.peer) if eff.peer in self.keys else "a peer"
                self._rl.note("DISCONNECT", who, "seat %d: disconnecting %s: %s", self.seat, who, eff.reason)
                c = self.conns.get(eff.peer)
                if c is not None:
                    self._drop(c)
            elif isinstance(eff, Alert):
                log.warning("seat %d: %s", self.seat, eff.text)
                self.alerts.append(eff.text)
            elif isinstance(eff, Changed):
                self._changed()
            elif isinstance(eff, Resume):
                self._nursery.start_soon(self._resume)

    async def _resume(self) -> None:
        """Place our own event sent just before (``Peer.send_first``) once its frames have left:
        the senders take them at the next checkpoints (a bounded wait: then it is placed anyway)."""
        for _ in range(RESUME_CHECKPOINTS):
            await trio.sleep(0)
            if all(c.queued == 0 for c in self.conns.values()):
                break
        self.apply(self.peer.resume())

    def _write_trace(self, final: bool = True) -> None:
        """Append the trace lines gathered so far (the ticker flushes them about once a
        second, off the hot path, so a benchmark can watch a game live); ``final`` adds
        our peak memory."""
        if self._trace is None or self._trace_path is None:
            return
        lines = [json.dumps({"k": k, "e": [e.hex() for e in ids], "t": t, "c": c}) for k, ids, t, c in self._trace]
        self._trace.clear()
        if final:
            try:
                import resource
                peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss   # KiB on Linux
            except (ImportError, OSError):  # pragma: no cover - not a POSIX system
                peak_kb = None
            lines.append(json.dumps({"k": "mem", "e": [], "t": time.monotonic(), "maxrss_kb": peak_kb}))
        if not lines:
            return
        try:
            with open(self._trace_path, "a") as f:
                f.write("\n".join(lines) + "\n")
        except OSError as exc:
            log.warning("seat %d: could not write the trace: %s", self.seat, exc)

    @property
    def lost(self) -> trio.Event:
        """An event set (then replaced) when a connection to a seat drops: wait on it to hear of the next."""
        return self._lost

    def alert(self, text: str) -> None:
        """An alert from outside the peer (e.g. a bot of ours died): kept and shown at once."""
        self.alerts.append(text)
        self._changed()

    def _changed(self) -> None:
        self.changed.set()
        self.changed = trio.Event()
        if self.on_change is not None:
            try:
                self.on_change(self)
            except Exception:
                log.exception("on_change callback failed")

    def _enqueue(self, c: Conn, msg: bytes) -> None:
        if c.closed:
            return
        f = self.faults
        copies = 1
        if f is not None:
            r = self._rng.random()
            if r < f.drop:
                return
            if self._rng.random() < f.dup:
                copies = 2
            if self._rng.random() < f.reorder:
                delay = self._rng.random() * max(f.delay, 0.001)
                self._nursery.start_soon(self._delayed, c, msg, delay)
                copies -= 1
        for _ in range(copies):
            if c.queued + len(msg) > SEND_QUEUE_BYTES:
                self._rl.note("SEND_QUEUE_BYTES", "seat %d" % self.keys.index(c.key), "seat %d: seat %d does not read what we send: dropping the connection", self.seat, self.keys.index(c.key))
                self._drop(c)
                return
            try:
                c.send_ch.send_nowait(msg)
                c.queued += len(msg)
            except trio.WouldBlock:
                self._drop(c)
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

    def _drop(self, c: Conn) -> None:
        if c.closed:
            return
        c.closed = True
        c.send_ch.close()
        if self.conns.get(c.key) is c:
            del self.conns[c.key]
            self.silent_since[self.keys.index(c.key)] = time.time()
            self.peer.disconnected(c.key)
            self._lost.set()
            self._lost = trio.Event()

    def apply(self, effects: list) -> None:
        try:
            self.run_effects(effects)
        except StoreError as exc:
            # Nothing that failed to persist was sent: stop cleanly.
            self.failed = str(exc)
            log.error("seat %d: %s", self.seat, exc)
            self._nursery.cancel_scope.cancel()
        self._maybe_poke()

    def _maybe_poke(self) -> None:
        """An input (or a tick) may bring the peer's next wake-up forward: wake the ticker if it
        does (or if a wake has work of its own: a screen to update, the end of the game).  The
        test costs ~10 us; a needless wake of the ticker ~60 us, about once per frame."""
        self.inputs += 1
        until = self._sleep_until
        if (until is None or self.on_change is not None or self.peer.table.over
                or self.peer.next_wakeup() < until):
            self.pokes += 1
            self._poke.set()

    async def leave(self, wait: float = LEAVE_FLUSH) -> bool:
        """We quit in the middle of the game (q, Ctrl-C, the terminal closing): sign a ``leaving`` note,
        send it to every connected seat and wait, at most ``wait`` seconds, until each has sent it back
        (protocol.md §9.7), so the note is read before our connections close.  The caller then stops
        the node.  True if every connected seat holds it (or the game is over: nothing to say)."""
        if self.peer.table.over or self.done.is_set():
            return True
        self.apply(self.peer.leave())
        with trio.move_on_after(wait):
            while not self.peer.told():
                await self.changed.wait()
        return self.peer.told()

    # ------------------------------------------------------------------ connections
    async def _run_conn(self, key: bytes, stream: FramedStream) -> None:
        old = self.conns.get(key)
        if old is not None:
            self._drop(old)
        c = Conn(key, stream)
        self.conns[key] = c
        self.met.set()
        self.silent_since.pop(self.keys.index(key), None)
        self.apply(self.peer.connected(key))
        lim = self.limits
        bucket = TokenBucket(lim.bytes_per_second, lim.burst_bytes, trio.current_time())
        who = "seat %d" % self.keys.index(key)
        try:
            async with trio.open_nursery() as n:
                n.start_soon(self._sender, c)
                try:
                    while not c.closed:
                        frame = await stream.receive(idle=lim.idle_timeout, frame=lim.frame_deadline)
                        self.apply(self.peer.receive(key, frame))
                        # byte budget: a peer over it is not dropped, its frames are read later
                        # (TCP then slows it down); the deadlines above do not run meanwhile
                        wait = bucket.take(len(frame) + lim.frame_cost, trio.current_time())
                        if wait > 0:
                            self.budget_waits += 1
                            self._rl.note("BYTES_PER_SECOND", who, "seat %d: %s sends more than %d bytes/s: reading it %.2f s later",
                                          self.seat, who, lim.bytes_per_second, wait)
                            await trio.sleep(wait)
                except (ConnectionClosed, FrameError, trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                    if isinstance(exc, FrameTimeout):
                        self._rl.note("FRAME_DEADLINE", who, "seat %d: dropping the connection of %s: %s", self.seat, who, exc)
                    elif not isinstance(exc, ConnectionClosed):
                        log.info("seat %d: connection to seat %d lost: %s", self.seat, self.keys.index(key), exc)
                finally:
                    self._drop(c)
                    n.cancel_scope.cancel()
        finally:
            with trio.CancelScope(shield=True):
                with trio.move_on_after(1):
                    try:
                        await stream.aclose()
                    except Exception:
                        pass

    async def _sender(self, c: Conn) -> None:
        try:
            async for msg in c.recv_ch:
                c.queued -= len(msg)
                await c.stream.send(msg)
        except (ConnectionClosed, FrameError, trio.BrokenResourceError, trio.ClosedResourceError):
            self._drop(c)

    async def _handle_incoming(self, stream: trio.SSLStream) -> None:
        key = tls.peer_public_key(stream)
        if key is None and self.spectators:
            await self._serve_spectator(FramedStream(stream))
            return
        if key is None or key not in self.keys or key == self.identity.public:
            self._rl.note("SEAT_KEY", "key", "seat %d: refused a connection from a key that holds no seat", self.seat)
            return
        seat = self.keys.index(key)
        if seat < self.seat:
            # a dial-back from a resumed seat: it never replaces a connection we have (ours wins)
            if key in self.conns:
                return
            self._learn_address(seat, stream)
        await self._run_conn(key, FramedStream(stream))

    async def _serve_spectator(self, fs: FramedStream) -> None:
        """A spectator (protocol.md §9.8): after its ["watch", 1], send it our log from the genesis on and
        every entry we place, and ["watching", n] at least every SPECTATOR_KEEPALIVE s. It sends nothing
        more; it never slows us: a frame it does not take within FRAME_DEADLINE drops it."""
        lim = self.limits
        try:
            with trio.fail_after(lim.frame_deadline):
                msg = decode(await fs.receive(idle=lim.frame_deadline, frame=lim.frame_deadline))
        except (ConnectionClosed, FrameError, CanonicalError, trio.TooSlowError, trio.BrokenResourceError, trio.ClosedResourceError):
            return
        if not (isinstance(msg, list) and len(msg) == 2 and msg[0] == "watch" and type(msg[1]) is int and msg[1] == 1):
            self._rl.note("SPECTATOR", "spectator", "seat %d: refused a spectator: not a watch request", self.seat)
            return
        if self.watching >= lim.max_spectators:
            self._rl.note("MAX_SPECTATORS", "spectator", "seat %d: refused a spectator: %d watch already", self.seat, self.watching)
            with trio.move_on_after(lim.frame_deadline):
                try:
                    await fs.send(encode(["refused", "this seat already has %d spectators" % self.watching]))
                except Exception:
                    pass
            return
        self.watching += 1
        self._changed()
        try:
            async with trio.open_nursery() as n:

                async def silent() -> None:
                    # a spectator sends nothing after its request: any frame (or its leaving) ends it
                    try:
                        await fs.receive()
                    except Exception:
                        pass
                    n.cancel_scope.cancel()

                n.start_soon(silent)
                sent = 0
                told = -1
                sealed: list = []
                last = trio.current_time()
                while True:
                    entries = self.peer.log_entries
                    if len(entries) < sent:
                        break           # our log was cut back (a repair): the spectator starts again
                    grew, changed = self._log_grew, self.changed
                    with trio.fail_after(lim.frame_deadline):
                        while sent < len(self.peer.log_entries):
                            await fs.send(encode(["genesis" if sent == 0 else "entry", self.peer.log_entries[sent]]))
                            sent += 1
                        # taken with no wait since the last entry sent: the commitments of the step
                        # the spectator's log is at
                        now_sealed = self.peer.sealed_events() if sent == len(self.peer.log_entries) else sealed
                        if now_sealed != sealed:
                            sealed = now_sealed
                            await fs.send(encode(["sealed", sealed]))
                        now = trio.current_time()
                        if told != self.watching or now - last >= SPECTATOR_KEEPALIVE:
                            told, last = self.watching, now
                            await fs.send(encode(["watching", self.watching]))
                    if self.done.is_set() and sent >= len(self.peer.log_entries):
                        break
                    with trio.move_on_after(SPECTATOR_KEEPALIVE):
                        async with trio.open_nursery() as either:       # a new entry, or a new commitment
                            for ev in (grew, changed):
                                either.start_soon(_set_then_cancel, ev, either.cancel_scope)
                n.cancel_scope.cancel()
        except (ConnectionClosed, FrameError, trio.TooSlowError, trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            self.watching -= 1
            self._changed()

    def _learn_address(self, seat: int, stream) -> None:
        """A seat before ours dialled us: it is where it dialled from (at its roster port). Keep that in
        our roster file, so that our own later resume dials it there."""
        try:
            ip = str(stream.transport_stream.socket.getpeername()[0])
        except (OSError, AttributeError):
            return
        addr = self.roster["addrs"][seat]
        if addr[0] == ip:
            return
        log.info("seat %d: seat %d is now at %s (it was at %s)", self.seat, seat, ip, addr[0] or "the lobby's address")
        self.roster["addrs"][seat] = [ip, addr[1]]
        try:
            save_roster(self.store, self.genesis, self.roster, replace=True)
        except OSError as exc:
            log.warning("seat %d: cannot record seat %d's new address: %s", self.seat, seat, exc)

    async def _dialer(self, seat: int) -> None:
        key = self.keys[seat]
        host, port = self.roster["addrs"][seat]
        backoff = 0.05
        while not self.done.is_set():
            if key in self.conns:
                await self._lost.wait()     # redial when a connection drops, not on a timer
                continue
            try:
                stream = await tls.connect(host, port, self.client_ctx, key, timeout=DIAL_TIMEOUT)
            except (OSError, tls.TLSError) as exc:
                log.debug("seat %d: dial seat %d failed: %s", self.seat, seat, exc)
                await trio.sleep(backoff)
                backoff = min(backoff * 2, 1.0)
                continue
            backoff = 0.05
            if seat > self.seat and key in self.conns:
                # a dial-back that crossed the other seat's own dial: the other seat's connection wins
                await trio.aclose_forcefully(stream)
                continue
            await self._run_conn(key, FramedStream(stream))

    # ------------------------------------------------------------------ timers and decisions
    async def _ticker(self) -> None:
        """Sleep until the peer has something to do (``Peer.next_wakeup``) or an input may have
        changed that; no periodic wake-up while a table waits for a person (protocol.md §9.5)."""
        over_since = None
        while True:
            now = trio.current_time()
            at = self.peer.next_wakeup()
            if self._trace is not None:
                at = min(at, self._trace_flushed + TRACE_FLUSH)
            if over_since is not None:
                at = min(at, over_since + self.linger)
            if at > now:
                self._poke = trio.Event()
                self._sleep_until = max(at, now + MIN_SLEEP)
                try:
                    with trio.move_on_at(self._sleep_until):
                        await self._poke.wait()
                finally:
                    self._sleep_until = None
                now = trio.current_time()
                if now < at and self.peer.next_wakeup() > now:
                    self._after_wake(now)           # an input: nothing timed is due yet
                    over_since = self._over(now, over_since)
                    if over_since == -1.0:
                        return
                    continue
            self.apply(self.peer.tick(now))
            self._after_wake(now)
            over_since = self._over(now, over_since)
            if over_since == -1.0:
                return
            await trio.sleep(0)    # let the inputs queued meanwhile in

    def _after_wake(self, now: float) -> None:
        if self._trace and now - self._trace_flushed >= TRACE_FLUSH:
            self._trace_flushed = now
            self._write_trace(final=False)
        if self.on_change is not None or self.watching:     # a spectator is told who has sealed (§9.8)
            w = (self.peer.table.phase, self.peer.waiting(), len(self.conns), len(self.alerts))
            if w != self._last_waiting:
                self._last_waiting = w
                self._changed()

    def _over(self, now: float, over_since: float | None) -> float | None:
        """Game over: leave once every peer holds everything, or after the linger (-1.0: done)."""
        if not self.peer.table.over:
            return None
        if over_since is None:
            over_since = now
        if self._everyone_has_all() or now - over_since > self.linger:
            self.done.set()
            return -1.0
        return over_since

    def _everyone_has_all(self) -> bool:
        return self.peer.everyone_holds_all()

    async def _decider(self) -> None:
        while True:
            if self.peer.needs_decision() and self.decide is not None:
                phase = self.peer.table.phase
                if getattr(self.decide, "takes_decision", False):
                    # a decider that takes a Decision gets what it needs, not the Peer to probe
                    action = await self.decide(decision_of(self.peer, self.seat, trio.current_time()))
                else:
                    view = self.peer.table.view(self.seat)
                    action = await self.decide(view, self.seat, self.peer)
                if self.peer.needs_decision() and self.peer.table.phase == phase and action is not None:
                    try:
                        self.apply(self.peer.act(action))
                    except Exception as exc:  # an illegal action from the UI: tell and ask again
                        self.alerts.append("move refused: %s" % exc)
                        log.warning("seat %d: move refused: %s", self.seat, exc)
                        self._changed()
                continue
            await self.changed.wait()

    async def _precomputer(self) -> None:
        """Run the game's ``precompute`` calls (pure, memoised by the game: e.g. the proofs of the
        shuffles placed so far) in a worker thread while the event loop goes on, one at a time,
        after each change; their results only make a later check find its answer ready.  (A game
        with nothing to run ahead gives no calls: the hook's default, core/engine.py.)"""
        while not self.peer.table.over:
            changed = self.changed
            try:
                calls = self.peer.table.game.precompute(self.peer.table.state, self.seat, self.peer.seat_secret)
            except Exception as exc:   # never let a helper stop the peer (the step itself will say)
                log.warning("seat %d: precompute failed: %s", self.seat, exc)
                calls = []
            for call in calls:
                try:
                    await trio.to_thread.run_sync(call)
                except Exception as exc:
                    log.warning("seat %d: precompute failed: %s", self.seat, exc)
            if changed is self.changed:
                await changed.wait()

    async def run(self, task_status=trio.TASK_STATUS_IGNORED) -> None:
        _quiet_gc()
        use_locks(threading.Lock)   # worker threads (precompute, bots) may ask core for one value at once
        # a bot thinks in a worker thread: let the event loop take the GIL back within
        # 1 ms (not the default 5) so frames are relayed and placed while it thinks
        switch = sys.getswitchinterval()
        sys.setswitchinterval(min(switch, SWITCH_INTERVAL))
        try:
            await self._run(task_status)
        finally:
            sys.setswitchinterval(switch)
            self._write_trace()

    async def _run(self, task_status) -> None:
        async with trio.open_nursery() as n:
            self._nursery = n
            await n.start(functools.partial(tls.serve, limits=self.limits, stats=self.listener_stats),
                          self.port, self.server_ctx, self._handle_incoming, self.host)
            for s in range(len(self.keys)) if self.dial_back else range(self.seat):
                if s != self.seat:
                    n.start_soon(self._dialer, s)
            self.apply(self.peer.start())
            n.start_soon(self._ticker)
            n.start_soon(self._decider)
            n.start_soon(self._precomputer)
            task_status.started()
            await self.done.wait()
            self.store.sync()
            # let last frames drain
            await trio.sleep(0.2)
            n.cancel_scope.cancel()
