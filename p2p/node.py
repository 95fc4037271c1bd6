"""The trio shell around p2p.protocol.Peer for one sealed table: ``GameNode``, a composition of parts.

It only moves bytes and runs timers: a pinned-TLS listener, a ticker, a decision task that asks
the local player (UI or bot) for a move when the rules say it is our turn, and a precompute task.
Every effect of the state machine is carried out in order, synchronously (``run_effects``), so
the fsync of an event always happens before the send that depends on it (our own new event:
secrets and spool; anything else: every file).  Each other job is a part with its own state and
tests, that the node wires and calls:

* ``Peer`` (p2p/protocol.py): the state machine of the table;
* the connections to the other seats: ``Mesh`` (whom we dial, which connection we keep, since when
  a seat is silent) and ``Links`` (dialers, readers, senders, send queues; p2p/links.py), with
  fault injection for tests (``Faults``, EASEL_FAULTS: p2p/faults.py);
* the ticker's wake-ups and the end of the linger: ``Alarm`` (p2p/alarm.py);
* spectators, who is admitted and what each is sent: ``Spectators`` and ``Feed`` (p2p/spectators.py);
* the benchmark trace (EASEL_TRACE): ``Trace`` (p2p/trace.py);
* whose link is slow (round trips of our events, silences): ``LinkWatch`` (p2p/linkwatch.py).
"""

from __future__ import annotations

import functools
import gc
import logging
import os
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable

import trio

import core.games
from core.encoding import CanonicalError, decode, encode
from core.events import Genesis, entry_id, parse_genesis, seat_names
from core.memo import use_locks

from . import tls, vouching
from .faults import Faults, Injector
from .framing import ConnectionClosed, FrameError, FramedStream
from .leaving import LEAVE_FLUSH
from .limits import DEFAULT as DEFAULT_LIMITS
from .limits import SPECTATOR_KEEPALIVE, Limits, RateLimitedLog
from .links import DIAL_TIMEOUT, SEND_QUEUE_BYTES, Conn, Links, Mesh
from .linkwatch import LinkWatch, words as slow_words

SLOW_LOG_EVERY = 10.0     # s: a seat's slow link is logged at most this often (the screen says it all along)
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
from .spectators import Spectators
from .store import GameStore, StoreError
from .trace import Trace
from .alarm import Alarm

# the connections' names, still importable from here (tests, cli/live.py, benchmarks)
__all__ = ["Conn", "DIAL_TIMEOUT", "Decision", "Faults", "GameNode", "SEND_QUEUE_BYTES", "decision_of",
           "load_roster", "save_roster"]

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


SWITCH_INTERVAL = 0.001   # s: how long a thinking bot thread may keep the GIL from the event loop
RESUME_CHECKPOINTS = 8        # checkpoints to let the senders take our own new event before we place it (Resume)


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


def compact_spool(store: GameStore) -> None:
    """What reached the log need not stay in the spool (evidence stays).  The log is fsynced
    first: the last process may have left its tail in the OS's cache only (our own events are
    fsynced in the spool when sent, the log when we acknowledge)."""
    placed = set(store.log.records)
    if store.spool.records and placed & set(store.spool.records):
        store.log.sync(force=True)
    keep = [r for r in store.spool.records if r not in placed]
    if len(keep) < len(store.spool.records):
        store.spool.rewrite(keep)


def _peak_kb() -> int | None:
    """This process's peak resident memory, KiB (Linux), for the trace's last line."""
    try:
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    except (ImportError, OSError):  # pragma: no cover - not a POSIX system
        return None


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


def _told_by(part: str, name: str, doc: str) -> property:
    """A read-only attribute of the node that one of its parts answers (its public ``name``)."""
    return property(lambda self: getattr(getattr(self, part), name), doc=doc)


class GameNode:
    """One seat of a sealed table on this machine: its ``Peer`` and the parts around it (see the
    module's docstring), the tasks that run them, and what the CLI and tests read of them."""

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
        self.genesis = genesis
        self.roster = roster
        self.store = store
        self.decide = decide
        self.on_change = on_change
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
        compact_spool(store)
        self._trace: Trace | None = None
        self._trace_path: Path | None = None
        if os.environ.get("EASEL_TRACE"):
            # benchmarks (p2p/trace.py); each line carries this process's CPU seconds too (what a step costs a peer)
            tdir = Path(os.environ["EASEL_TRACE"])
            tdir.mkdir(parents=True, exist_ok=True)
            self._trace_path = tdir / ("seat-%d.jsonl" % self.seat)
            self._trace = Trace()
        # whose link is slow (p2p/linkwatch.py): our events' round trips and each seat's silences, on the trio clock
        self._watch = LinkWatch()
        self._slow_said: dict[int, float] = {}     # seat -> seconds, as the last wake found
        self._slow_logged: dict[int, float] = {}   # seat -> when we last logged its link slow
        self._slow_told: set[int] = set()          # seats whose slow link we logged and not yet as quick again

        def signed(ev) -> None:
            self._watch.sent(ev.seq, trio.current_time())
            if self._trace is not None:
                self._trace.note("sign", [ev.id], time.monotonic(), time.process_time())
        self.peer.on_sign = signed
        self.alerts: list[str] = []
        self.done = trio.Event()
        self.changed = trio.Event()
        self.failed: str | None = None
        self._last_waiting: tuple = ()
        self._poke = trio.Event()
        self._alarm = Alarm(linger)
        self._log_grew = trio.Event()
        addr = roster["addrs"][self.seat]
        self.host = bind_host or addr[0]
        self.port = addr[1]
        certs = list(roster["certs"])
        # spectators (protocol.md §9.8): anonymous TLS clients that follow the log read-only
        self._audience = Spectators(spectators and genesis.doc.get("spectators", True) is not False)
        self.server_ctx = tls.server_context(identity, certs, spectators=self.spectators)
        # a resumed seat also dials the seats after it (``dial_back``, protocol.md §9.4)
        self.client_ctx = tls.client_context(identity, certs)
        self._mesh = Mesh(self.keys, self.seat, dial_back, time.time())
        self._links = Links(
            self._mesh, roster, self.client_ctx,
            limits=lambda: self.limits, rl=self._rl, faults=Injector(faults, self.seat), wall=time.time,
            on_open=self._opened,
            on_frame=self._frame,
            on_close=self._closed,
            on_moved=lambda: save_roster(self.store, self.genesis, self.roster, replace=True),
            serve=self._run_conn)

    # ------------------------------------------------------------------ what the parts tell
    conns = _told_by("_links", "conns", "key -> open connection to that seat (the live dict).")
    silent_since = _told_by("_mesh", "silent_since", "seat -> wall-clock time (time.time()) since when we have no "
                            "connection to it (every other seat at first).")
    met = _told_by("_links", "met", "Set at our first connection to another seat.")
    lost = _told_by("_links", "lost", "An event set (then replaced) when a connection to a seat drops: wait on it "
                    "to hear of the next.")
    budget_waits = _told_by("_links", "budget_waits", "Reads put off by a seat's byte budget.")
    inputs = _told_by("_alarm", "inputs", "Inputs and ticks handled (``apply``).")
    pokes = _told_by("_alarm", "pokes", "How many of the inputs woke the ticker.")
    spectators = _told_by("_audience", "enabled", "This seat serves spectators (§9.8).")
    watching = _told_by("_audience", "count", "Spectators this seat serves now.")

    # ------------------------------------------------------------------ connections (p2p/links.py) and their speed
    def _opened(self, key: bytes) -> None:
        self._watch.opened(self.keys.index(key), trio.current_time())
        self.apply(self.peer.connected(key))

    def _frame(self, key: bytes, frame: bytes) -> None:
        now = trio.current_time()
        seat = self.keys.index(key)
        self._watch.heard(seat, now)
        self.apply(self.peer.receive(key, frame))
        r = self.peer.remote.get(key)
        if r is not None and r.ack:
            self._watch.acked(seat, r.ack.get(self.identity.public, -1), now)

    def _closed(self, key: bytes) -> None:
        self._watch.closed(self.keys.index(key))
        self.peer.disconnected(key)

    def slow_links(self, now: float | None = None) -> dict[int, float]:
        """seat -> seconds, for each connected seat whose link is slow now (p2p/linkwatch.py; protocol.md §13.1)."""
        return self._watch.slow(trio.current_time() if now is None else now)

    def slow_lines(self, now: float | None = None) -> list[str]:
        """"Bo's link is slow (2.1 s)", one per slow link."""
        return slow_words(seat_names(self.genesis.doc), self.slow_links(now))

    def _say_slow(self, now: float) -> None:
        """Log each link that became slow, and then once it is quick again: at most one pair of lines per seat
        every SLOW_LOG_EVERY (a link slow at every other step does not fill a bot's log)."""
        slow = self._watch.slow(now)
        names = seat_names(self.genesis.doc)
        for s in sorted(set(slow) - set(self._slow_said)):
            if now - self._slow_logged.get(s, float("-inf")) >= SLOW_LOG_EVERY:
                self._slow_logged[s] = now
                self._slow_told.add(s)
                log.warning("seat %d: %s", self.seat, slow_words(names, {s: slow[s]})[0])
        for s in sorted(self._slow_told - set(slow)):
            self._slow_told.discard(s)
            if any(self.keys.index(k) == s for k in self.conns):
                log.warning("seat %d: %s's link is quick again", self.seat, names[s])
        self._slow_said = slow

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
                self._grew()
                if self._trace is not None:
                    self._trace.note("apply", [entry_id(raw) for raw in eff.entries], time.monotonic(), time.process_time())
            elif isinstance(eff, TruncateLog):
                # the cut entries were just re-spooled (unsynced): make that durable first
                self.store.sync()
                self.store.log.truncate(eff.count)
                self._grew()
            elif isinstance(eff, WriteSecret):
                self.store.put_secret(eff.phase, eff.value, eff.salt, sync=False)
            elif isinstance(eff, Disconnect):
                who = "seat %d" % self.keys.index(eff.peer) if eff.peer in self.keys else "a peer"
                self._rl.note("DISCONNECT", who, "seat %d: disconnecting %s: %s", self.seat, who, eff.reason)
                c = self.conns.get(eff.peer)
                if c is not None:
                    self._links.drop(c)
            elif isinstance(eff, Alert):
                log.warning("seat %d: %s", self.seat, eff.text)
                self.alerts.append(eff.text)
            elif isinstance(eff, Changed):
                self._changed()
            elif isinstance(eff, Resume):
                self._nursery.start_soon(self._resume)

    def _enqueue(self, c: Conn, msg: bytes) -> None:
        """Queue ``msg`` on connection ``c`` (p2p/links.py; benchmarks/profile_peer.py counts frames here)."""
        self._links.enqueue(c, msg)

    def _grew(self) -> None:
        """Our log changed (an entry placed, or a cut): wake the spectators' feeds."""
        self._log_grew.set()
        self._log_grew = trio.Event()

    async def _resume(self) -> None:
        """Place our own event sent just before (``Peer.send_first``) once its frames have left:
        the senders take them at the next checkpoints (a bounded wait: then it is placed anyway)."""
        for _ in range(RESUME_CHECKPOINTS):
            await trio.sleep(0)
            if self._links.drained():
                break
        self.apply(self.peer.resume())

    def _write_trace(self, now: float | None = None, final: bool = True) -> None:
        """Append the trace lines gathered so far (``now``: the ticker's flush, about once a
        second, off the hot path, so a benchmark can watch a game live); ``final`` adds our peak memory."""
        if self._trace is None or self._trace_path is None:
            return
        lines = self._trace.take(now, (time.monotonic(), _peak_kb()) if final else None)
        if not lines:
            return
        try:
            with open(self._trace_path, "a") as f:
                f.write("\n".join(lines) + "\n")
        except OSError as exc:
            log.warning("seat %d: could not write the trace: %s", self.seat, exc)

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

    def apply(self, effects: list) -> None:
        try:
            self.run_effects(effects)
        except StoreError as exc:
            # Nothing that failed to persist was sent: stop cleanly.
            self.failed = str(exc)
            log.error("seat %d: %s", self.seat, exc)
            self._nursery.cancel_scope.cancel()
        # an input (or a tick) may bring the peer's next wake-up forward: wake the ticker if it does
        # (or if a wake has work of its own: a screen to update, the end of the game)
        if self._alarm.input(self.on_change is not None or self.peer.table.over, self.peer.next_wakeup):
            self._poke.set()

    def say(self, text: str) -> str:
        """Our person's talk line (protocol.md §9.11; trio thread): "" once signed, spooled and sent, else
        why not, in one line."""
        if self.done.is_set():
            return "the table has closed: nobody hears you now"
        why = self.peer.say_refused(text)
        if why:
            return why
        self.apply(self.peer.say(text))
        return ""

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

    # ------------------------------------------------------------------ spectators
    async def _serve_spectator(self, fs: FramedStream) -> None:
        """A spectator (protocol.md §9.8; who is admitted and what it is sent: p2p/spectators.py): read
        its request within FRAME_DEADLINE, then send what its ``Feed`` says, each batch within
        FRAME_DEADLINE (it never slows us: a frame it does not take in time drops it), waking on a new
        entry, a new commitment or the keep-alive.  Any frame of its own (or its leaving) ends it."""
        lim = self.limits
        try:
            with trio.fail_after(lim.frame_deadline):
                msg = decode(await fs.receive(idle=lim.frame_deadline, frame=lim.frame_deadline))
        except (ConnectionClosed, FrameError, CanonicalError, trio.TooSlowError, trio.BrokenResourceError, trio.ClosedResourceError):
            return
        refused = self._audience.admit(msg, lim.max_spectators)
        if refused is not None:
            self._rl.note(refused.limit, "spectator", "seat %d: refused a spectator: %s", self.seat, refused.why)
            if refused.reply is not None:
                with trio.move_on_after(lim.frame_deadline):
                    try:
                        await fs.send(refused.reply)
                    except Exception:
                        pass
            return
        self._changed()
        feed = self._audience.feed(trio.current_time())
        try:
            async with trio.open_nursery() as n:

                async def silent() -> None:
                    try:
                        await fs.receive()
                    except Exception:
                        pass
                    n.cancel_scope.cancel()

                n.start_soon(silent)
                while not feed.cut(self.peer.log_entries):     # cut back (a repair): the spectator starts again
                    grew, changed = self._log_grew, self.changed
                    with trio.fail_after(lim.frame_deadline):
                        while (frame := feed.entry(self.peer.log_entries)) is not None:
                            await fs.send(frame)
                        # taken with no wait since the last entry sent: the commitments of the step its log is at
                        if (frame := feed.sealed(self.peer.sealed_events())) is not None:
                            await fs.send(frame)
                        if (frame := feed.watching(self._audience.count, trio.current_time())) is not None:
                            await fs.send(frame)
                        if (frame := feed.addrs(self.roster["addrs"])) is not None:
                            await fs.send(frame)
                        if (frame := feed.said(self.peer.unplaced_talk())) is not None:     # table talk (§9.11)
                            await fs.send(frame)
                    if feed.finished(self.peer.log_entries, self.done.is_set()):
                        break
                    with trio.move_on_after(SPECTATOR_KEEPALIVE):
                        async with trio.open_nursery() as either:       # a new entry, or a new commitment
                            for ev in (grew, changed):
                                either.start_soon(_set_then_cancel, ev, either.cancel_scope)
                n.cancel_scope.cancel()
        except (ConnectionClosed, FrameError, trio.TooSlowError, trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            self._audience.left()
            self._changed()

    async def _run_conn(self, key: bytes, stream: FramedStream) -> None:
        """Run a connection to the seat of ``key`` until it closes (p2p/links.py; tests wrap this)."""
        await self._links.run_conn(key, stream)

    async def _handle_incoming(self, stream: trio.SSLStream) -> None:
        await self._links.incoming(stream, self._serve_spectator if self.spectators else None)

    # ------------------------------------------------------------------ timers and decisions
    async def _ticker(self) -> None:
        """Sleep until the peer has something to do (``Peer.next_wakeup``) or an input may have
        changed that; no periodic wake-up while a table waits for a person (protocol.md §9.5;
        when to wake: p2p/alarm.py)."""
        alarm = self._alarm
        while True:
            now = trio.current_time()
            base = alarm.wake_at(self.peer.next_wakeup(), self._trace.flush_at() if self._trace is not None else None)
            watch_at = self._watch.next_change(now)      # a link may turn slow (or quick) then: say it
            at = base if watch_at is None else min(base, watch_at)
            if at > now:
                self._poke = trio.Event()
                try:
                    with trio.move_on_at(alarm.sleep(at, now)):
                        await self._poke.wait()
                finally:
                    alarm.woke()
                now = trio.current_time()
                if now < base and self.peer.next_wakeup() > now:
                    if self._after_wake(now):           # an input, or a link's speed to say: nothing timed is due yet
                        return
                    continue
            self.apply(self.peer.tick(now))
            if self._after_wake(now):
                return
            await trio.sleep(0)    # let the inputs queued meanwhile in

    def _after_wake(self, now: float) -> bool:
        """What every wake of the ticker does besides ticking; True once the node is done."""
        if self._trace is not None and self._trace.due(now):
            self._write_trace(now, final=False)
        self._say_slow(now)
        if self.on_change is not None or self.watching:     # a spectator is told who has sealed (§9.8)
            w = (self.peer.table.phase, self.peer.waiting(), len(self.conns), len(self.alerts),
                 tuple(sorted((s, round(v)) for s, v in self._slow_said.items())))
            if w != self._last_waiting:
                self._last_waiting = w
                self._changed()
        # game over: leave once every peer holds everything, or after the linger
        if self._alarm.done(now, self.peer.table.over, self._everyone_has_all):
            self.done.set()
            return True
        return False

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
        vouching.install()          # the checks our own processes passed, shared (p2p/vouching.py)
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
            self._links.start(n, self.done)
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
