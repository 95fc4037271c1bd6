"""The peer protocol of a sealed table, as a pure state machine (sans-IO).

``Peer`` is fed connections, messages, local decisions and clock ticks and
returns a list of effects (p2p/effects.py) for the shell (p2p/node.py) to carry
out *in order*: every ``WriteSpool``/``WriteLog``/``WriteSecret`` comes before the
``Send``/``Broadcast`` that depends on it, so nothing is sent or acknowledged
before it is on disk (a ``Broadcast`` with ``own`` carries only our own new
event: it needs our secrets and spool on disk, not the log; protocol.md §8).
Randomness (salts, seed contributions) is injected as ``rand(n) -> bytes``; time
only enters as ``now`` in ``tick`` (and as the shell's ``clock``, read at each input).

``Peer`` wires parts that each have one job and their own state, in the shape of
h11's ``Connection`` holding its ``ConnectionState``; it calls their methods and
reads none of their insides:

* ``messages`` (p2p/messages.py): the typed messages, one encode and one decode;
* ``replica`` (p2p/replica.py ``Replica``): the events, certificates and equivocations we
  hold, and which held event is a seat's candidate for a step;
* ``ledger`` (p2p/ledger.py ``Ledger``): our log and its table (``table``, ``log_entries``):
  placing batches, certificates win (§6.6), a torn batch cut back;
* ``remote`` (p2p/repair.py ``Remotes``): a ``RemotePeer`` per connected peer, repair and
  acknowledgements (§9.6);
* ``voter`` (p2p/timeouts.py ``TimeoutVoter``): every rule of when to vote a seat out (§6.5);
* ``ballots`` (p2p/ballots.py ``Ballots``): the votes on the wire: checked, kept, ours signed (§6.5);
* ``gate`` (p2p/showing.py ``ShowGate``): bind before show (§6.5, "Shown secrets");
* ``forks`` (p2p/forks.py ``Forks``): a fork over a shown secret ends the game, with its proof (§6.5 rule 3);
* ``departures`` (p2p/leaving.py ``Departures``): who said they left (§9.7);
* ``cuts`` (p2p/cuts.py ``CutWatch``): false time-outs seen, refused moves (§6.5, §11);
* ``agent`` (p2p/agent.py ``SeatAgent``): our seat secret, sealed moves, automatic moves;
* ``resync`` (p2p/resync.py ``ResyncGate``): may we sign after losing our files' tail (§9.6);
* ``wakeups`` (p2p/wakeups.py ``Wakeups``): the clock, the 'have' timer, the watchdog, when to wake (§9.5).

What stays here is the wiring: a message or an input in, the parts asked in order, and the
effects out in the order they must be carried out; and the public API the shell, the UI and the
tests read (each a question to a part).  The receive path runs one way: ``receive`` decodes once
(``messages``), ``_ROUTES`` hands the message to the part that owns it (an entry to
``Replica.receive``, which checks and takes it in one call and hands back what happened, the
limits it hit among it, as values), and the effects come back up.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any, Callable

from core.encoding import CanonicalError
from core.engine import IllegalAction
from core.events import Event, Genesis, Timeout, seat_names
from core import fork as forkcore
from core.table import Table

from .agent import SEAT_SECRET, SEAT_SECRET_BYTES, SeatAgent
from .ballots import Ballots
from .cuts import MAX_CUT_MOVES, CutWatch
from .effects import Alert, Broadcast, Changed, Disconnect, Resume, Send, TruncateLog, WriteLog, WriteSecret, WriteSpool
from .forks import MAX_FORK_CHECKS, Forks
from .ledger import Ledger
from .leaving import Departures
from .limits import RateLimitedLog
from .messages import PROTOCOL, Entry, ForkMsg, Have, Hello, Leaving, Proof, ProtocolError, Vote, decode
from .repair import MAX_SEND_PER_HAVE, REPAIR_AFTER, REPAIR_INTERVAL, Remotes
from .replica import MAX_BUFFERED_PER_AUTHOR, MAX_CERTS_PER_PHASE, MAX_SEQ_AHEAD, Replica
from .resync import RESYNC_WAIT, ResyncGate
from .showing import ShowGate
from .timeouts import MAX_VOTES_PER_STEP_SEAT, VOTE_RESEND, VOTES_AHEAD, VOTES_BEHIND, TimeoutVoter
from .wakeups import HAVE_GAP, KEEPALIVE, WATCHDOG_AFTER, Wakeups
from .talk import MAX_SAY_PENDING, SAY_GAP, Talk

log = logging.getLogger("easel.protocol")

# What callers import from here: the peer, its effects (p2p/effects.py), the secrets file's seat-secret
# record (p2p/agent.py), and the limits (protocol.md §13.1; p2p/limits.py lists them all), each kept by
# the part it bounds.
__all__ = [
    "Peer", "ProtocolError", "PROTOCOL", "SEAT_SECRET", "SEAT_SECRET_BYTES",
    "Alert", "Broadcast", "Changed", "Disconnect", "Resume", "Send", "TruncateLog", "WriteLog", "WriteSecret", "WriteSpool",
    "MAX_SEQ_AHEAD", "MAX_BUFFERED_PER_AUTHOR", "MAX_CERTS_PER_PHASE", "MAX_SEND_PER_HAVE", "REPAIR_AFTER",
    "REPAIR_INTERVAL", "MAX_VOTES_PER_STEP_SEAT", "VOTES_AHEAD", "VOTES_BEHIND", "VOTE_RESEND", "WATCHDOG_AFTER",
    "KEEPALIVE", "HAVE_GAP", "RESYNC_WAIT", "MAX_CUT_MOVES", "MAX_FORK_CHECKS", "MAX_SAY_PENDING", "SAY_GAP",
]


class Peer:
    def __init__(
        self,
        genesis: Genesis,
        me: bytes,
        sign: Callable[[bytes], bytes],
        rand: Callable[[int], bytes],
        log_entries: list | None = None,
        spool: list | None = None,
        secrets: dict | None = None,
        timeout: float = 60.0,
        games: Any = None,
        resync: bool = False,
        clock: Callable[[], float] | None = None,
    ) -> None:
        """``games``: the game registry the table replays with (core.games.Registry or the
        module core.games).  Every caller should pass it; None (kept only for callers not
        updated yet) means the default registry, core.games.

        ``resync``: our files lost their tail (a torn record was cut): events we signed
        may be held by the others and not by us, so we sign nothing new until every other
        seat has reported what it holds (or RESYNC_WAIT seconds have passed) and none of
        them holds an event of ours that we lack (§9.6)."""
        self.genesis = genesis
        self.me = me
        self.sign = sign
        self.rand = rand
        self.timeout = timeout
        if games is None:
            import core.games as games
        self.games = games
        self.keys = list(genesis.doc["seats"])
        self.seat = self.keys.index(me) if me in self.keys else None
        n = len(self.keys)
        self._alerts: list = []                     # alerts found on the way (the parts' too), not yet returned
        self.replica = Replica(self.keys, me)       # what we hold
        self.remote = Remotes(self.keys, me)            # what each connected peer holds: repair, acknowledgements (§9.6)
        self.voter = TimeoutVoter(n, self.seat, timeout)   # every rule of when to vote (§6.5)
        self.gate = ShowGate(n, self.seat)          # bind before show: when we may show a secret (§6.5)
        self.forks = Forks(n, self.seat, self.keys)  # a fork ends the game, with its proof (§6.5 rule 3)
        self._fork_out: list = []                   # effects of a fork found on the way, not yet returned
        self.ballots = Ballots(self.keys, self.seat, genesis.game_id, sign, self.voter, self.gate)   # votes on the wire
        self.departures = Departures(n, self.seat, seat_names(genesis.doc))   # who said they left (§9.7)
        self.cuts = CutWatch(self.keys, self.seat, self.replica, self.departures, self.voter,
                             self._alerts.append)   # false time-outs seen, refused moves (§6.5)
        self.replica.listen(self.cuts.refused, self.cuts.bad_reveal)
        self.agent = SeatAgent(genesis.game_id, me, self.seat, sign, rand, secrets)   # our secrets, our events' bodies
        self.resync = ResyncGate(n, self.seat, resync)            # may we sign after a torn tail, or a claim (§9.6)
        self.wakeups = Wakeups(clock)               # the clock, the 'have' timer, the watchdog (§9.5)
        self.ledger = Ledger(genesis, games, self.keys, self.agent.table_secret)   # our log and its table
        self.talk = Talk(self.keys, self.seat, seat_names(genesis.doc), self._alerts.append)   # table talk (§9.11)
        self.on_sign: Callable[[Event], None] | None = None   # measurement hook (benchmarks)
        # a shell that runs ``Resume`` (p2p/node.py) sets this: our own new event is spooled and
        # sent first, then placed (placing runs the game's checks of the step it closes, which
        # may be long: Modern Art's shuffle-proof checks); a shell that does not keeps the order
        # place, then send (the bytes sent and the log are the same either way)
        self.send_first = False
        self.watchdog_fired = 0
        self._leave_seq: int | None = None     # the seq of our leave event once we signed it (§9.7)
        self._rl = RateLimitedLog(log, clock=self.wakeups.now)
        self._refuse = self._rl.note                # a limit hit: counted (``refused``) and logged, rate-limited
        for ent in self.ledger.load(log_entries or [genesis.raw]):
            self.replica.remember(ent)
        self.replica.load_spool(spool or [])
        self.talk.load(self.replica.talk())
        self.ledger.torn_batch()      # a torn tail inside a batch: cut back to where its step opened
        self.cuts.scan(self.table)
        self.gate.scan(self.table, self.replica.own_events())
        for raw in spool or ():       # a fork proven before a restart: the game ends again (p2p/forks.py)
            if forkcore.is_fork(raw):
                self._on_fork(None, raw, kept=True)
        self._fork_out.clear()

    # ------------------------------------------------------------------ reading the table
    @property
    def table(self) -> Table:
        """Our log replayed (p2p/ledger.py)."""
        return self.ledger.table

    @property
    def log_entries(self) -> list:
        """Our log's entries, genesis first (p2p/ledger.py)."""
        return self.ledger.entries

    @property
    def seat_secret(self) -> bytes | None:
        """Our seat secret (None before it is made, or for a game without seat secrets)."""
        return self.agent.seat_secret

    @property
    def votes(self) -> dict:
        """The votes held, (phase, prev, T) -> {voter: sig} (kept by the ``TimeoutVoter``)."""
        return self.voter.held()

    @property
    def forked(self) -> dict:
        """Certificates we did not follow (phase -> certificate id), because we had shown a secret."""
        return self.gate.forked()

    @property
    def refused(self) -> dict:
        """limit name -> times hit (tests, stats; p2p/limits.py ``RateLimitedLog``)."""
        return self._rl.counts

    @property
    def cut_moves(self) -> dict:
        """(phase, seat) -> a signed move of that seat held here for a step a certificate voted it out of."""
        return self.cuts.moves_cut()

    @property
    def signed_afterwards(self) -> dict:
        """(phase, seat) -> a move signed for such a step that does not fit its seat's chain."""
        return self.cuts.moves_afterwards()

    @property
    def left_steps(self) -> dict:
        """phase -> seats a certificate timed out after they said they left (§9.7)."""
        return self.cuts.steps_left()

    def view(self, seat: int | None = None) -> Any:
        """The table's view for ``seat`` (default: ours), with our secret for our own seat."""
        seat = self.seat if seat is None else seat
        return self.table.view(seat, self.seat_secret if seat == self.seat and seat is not None else None)

    def have_vector(self) -> list:
        """What we hold, as a 'have' says it (p2p/replica.py)."""
        return self.replica.have_vector()

    def hello(self) -> bytes:
        return self.replica.hello(self.genesis.game_id)

    def next_seq(self) -> int:
        """The seq of the next event we sign (p2p/replica.py ``next_seq``)."""
        return self.replica.next_seq(self.table.last_seq.get(self.me, -1))

    def my_event_in_step(self) -> Event | None:
        return self.replica.mine_in_step(self.table.step)

    def everyone_holds_all(self) -> bool:
        """Every other connected seat reported holding everything we hold (the end of a game)."""
        return self.remote.hold_all({k: s for k, s, _ in self.have_vector()})

    def may_sign(self) -> bool:
        """Whether we may sign a new event now (False while we may have lost our own events, and for good
        once we signed our leave: §9.7)."""
        if self.seat is None or self.departures.gone or self.replica.leave_of(self.seat) is not None:
            return False
        return self.resync.allows(self.wakeups.now(), self._own_claimed)

    def _own_claimed(self) -> bool:
        """A peer reports holding an event of ours above what we hold (we lost it)."""
        return self.remote.claims(self.replica.seq_of(self.me))

    def deadline(self) -> float | None:
        """When (on the ``tick`` clock) this peer starts voting the current step's late seats
        out; None before the step was first seen by a tick.  Other peers vote on their own
        clocks, so for a player this is an estimate of the time left."""
        return self.voter.deadline(self.table.step)

    def step_timeout(self, st) -> float:
        """How long a step may wait for a seat before this peer votes it out (``TimeoutVoter.step_time``)."""
        return self.voter.step_time(st)

    def waiting(self) -> tuple[int, ...]:
        """Seats whose event for the current step has not reached us yet."""
        return self.replica.waiting(self.table)

    def sealed_events(self) -> list[bytes]:
        """The commitments we hold for the current step, not yet in the log (a commit step's events are
        placed only once all are in): raw signed events, seat order, for spectators (§9.8), who see
        from them which seats have sealed their move.  Empty unless the step is a commit step."""
        return self.replica.sealed(self.table)

    def needs_decision(self) -> bool:
        """Our seat must choose a move now (a commit of a move, or an open move)."""
        st = self.table.step
        if st is None or self.seat is None or self.seat not in st.seats or st.purpose != "move":
            return False
        if st.kind == "reveal":
            return False
        return self.my_event_in_step() is None and self.may_sign()

    def _who(self, peer: bytes | None) -> str:
        return "seat %d" % self.keys.index(peer) if peer in self.keys else "a peer"

    def _take_alerts(self) -> list:
        out = list(self._alerts)
        self._alerts.clear()
        return out

    # ------------------------------------------------------------------ inputs
    def start(self) -> list:
        """Effects to run once the shell is up (automatic moves, placing spooled events)."""
        # a torn batch (``Ledger.torn_batch``) spooled first (the events stay held), then placed again whole
        return self.agent.ensure_secret(self.table) + self.ledger.take_torn() + self._after_change([])

    def _clock_started(self, out: list) -> list:
        """With the shell's clock (``clock``): the step an input made current starts its clock at
        that input's time, as the next ``tick`` would have done a moment later, so that the shell
        need not wake up for it (one wake-up per step less; §9.5)."""
        if self.wakeups.clocked():
            self.voter.observe(self.table.step, self.wakeups.now(), self.table.timeouts)
        return out

    def connected(self, peer: bytes) -> list:
        """A new connection: our ``hello``; then the votes we hold for the steps still in our
        window, and a ``have`` after them, so that every vote we cast reaches the other before
        an acknowledgement of ours that it may read as "settled" (the show gate, §6.5)."""
        self.wakeups.input()
        self.remote.connect(peer)
        votes = [Send(peer, msg) for msg in self.ballots.every_vote()]
        notes = [Send(peer, msg) for s, msg in self.departures.held_notes() if self.keys[s] != peer]
        fork = [Send(peer, ForkMsg(self.forks.raw).encode())] if self.forks.raw is not None else []
        return [Send(peer, self.hello())] + votes + [Send(peer, self.replica.have_msg())] + notes + fork

    def disconnected(self, peer: bytes) -> list:
        self.remote.drop(peer)
        return []

    def act(self, action: Any) -> list:
        """Our own move for the current step (checked exactly as a peer's would be)."""
        self.wakeups.input()
        st = self.table.step
        if not self.needs_decision():
            raise IllegalAction("it is not your turn to move")
        out, move = self.agent.decided(self.table, st, action)
        return self._clock_started(out + self._emit(st, *move))

    def receive(self, peer: bytes, data: bytes) -> list:
        self.wakeups.input()
        try:
            # once we left we answer nothing but the copies of our leaving note and the reports of what each seat
            # holds, to the repair alone (its acknowledgement of our leave event, the repair of our own events) (§9.7)
            gone = self.departures.gone
            msg = decode(data, self.genesis.game_id, len(self.keys), ("leaving", "have", "hello") if gone else None)
            if msg is None:
                out = []
            elif gone and not isinstance(msg, Leaving):
                out = self._on_have(peer, msg)
            else:
                out = self._ROUTES[type(msg)](self, peer, msg)   # each message to the part that owns it
            return self._clock_started(out)
        except (CanonicalError, ProtocolError) as exc:
            return [Disconnect(peer, "protocol violation: %s" % exc)]
        except (ValueError, TypeError, IndexError, KeyError) as exc:
            return [Disconnect(peer, "malformed message: %s" % exc)]

    def resume(self) -> list:
        """After ``Resume``: place what can be placed (our own new event with it), and go on."""
        self.wakeups.input()
        return self._after_change([])

    # ------------------------------------------------------------------ time
    def next_wakeup(self) -> float:
        """When ``tick`` next has something to do (on its clock), so a shell can sleep until then: a
        step clock to start, or the earliest time a part has work (p2p/wakeups.py).  An input may bring
        it forward: ask again after each.  A moment a tick covered is never answered again."""
        if self.departures.gone or self.forks.over:
            return float("inf")                    # we left, or the table forked: nothing timed is ours to do any more
        self._feed_left()
        lagging = self.remote.lagging()
        have_next = self.wakeups.have_next(self.replica.signature(), lagging)
        st = self.table.step
        vote_at, times = None, []
        if st is not None:
            if self.voter.opened_at(st) is None:
                return self.wakeups.now()          # its clock starts at the next tick
            vote_at = self.voter.due_at(st, self._held_if_left(st))     # at once if a seat it waits for left
            times += self.voter.timers(st)         # the escalation, re-sending the votes
            if st.shows and self.seat in st.seats and self.my_event_in_step() is None:
                times.append(self._show_due(st)[1])    # the show gate goes all the same then
            watch = self.wakeups.watchdog_at()
            if watch is not None and (lagging or not self.waiting()):
                times.append(watch)
        return self.wakeups.earliest(self.wakeups.now(), have_next, vote_at, times + self.resync.times())

    def tick(self, now: float) -> list:
        """Timed work, whatever is due at ``now``: time-out votes, anti-entropy, the resync gate,
        the watchdog (``next_wakeup`` says when; calling it more often is harmless)."""
        out: list = []
        self.wakeups.ticked(now)
        if self.departures.gone or self.forks.over:
            return []                               # we left: we say nothing more (§9.7); the table forked (§6.5)
        self._feed_left()
        self.voter.prune(self.table.phase)          # votes (and our vote clocks) of steps long gone
        could = self.may_sign()
        if self.resync.tick(now, self._own_claimed()):
            self._refuse("RESYNC_WAIT", "own", "a peer holds events we signed and lost: waiting for them before signing again")
        if self.may_sign() and not could:
            out += self._auto_loop() + [Changed()]
        out += self._watchdog(now)
        st = self.table.step
        if st is not None:
            self.voter.observe(st, now, self.table.timeouts)
            out += self._auto_loop(gated=True)
            if self.voter.vote_due(st, now, self._held_if_left(st)):
                out += self._maybe_vote(st, now)
            # re-send the votes held for this step (they are not part of any author's chain)
            out += [Broadcast(msg) for msg in self.ballots.resends(st, now)]
        if self.wakeups.have_due(now, self.replica.signature(), self.remote.lagging()):
            out.append(Broadcast(self.replica.have_msg()))
        return out + self._take_alerts()

    def _watchdog(self, now: float) -> list:
        """When the watchdog fires (p2p/wakeups.py): re-check what we hold and ask every peer again
        (a ``hello``, which peers answer with everything we lack, §9.6)."""
        held = self.replica.last_held()
        if not self.wakeups.watchdog(self.table, held, now, lambda: self.remote.ahead_of(held), lambda: not self.waiting(), self._refuse):
            return []
        self.watchdog_fired += 1
        self.replica.recheck()   # re-check every held event
        return self._after_change([]) + [Broadcast(self.hello())]

    # ------------------------------------------------------------------ messages: each to the part that owns it (``_ROUTES``)
    def _on_have(self, peer: bytes, msg) -> list:
        """What ``peer`` holds (a ``have``, or a ``hello``, which asks for everything): send what it lacks
        (p2p/repair.py); once we left, redraw (§9.7); else our event waiting at the show gate may go."""
        pull, now, gone = isinstance(msg, Hello), self.wakeups.now(), self.departures.gone
        if peer in self.keys:
            self.resync.heard(self.keys.index(peer))
        sends = [Send(peer, Entry(raw).encode()) for raw in self.remote.heard(peer, msg.have, msg.certs, pull, now, self.replica)]
        if gone:
            return sends + [Changed()]
        return sends if pull else sends + self._auto_loop(gated=True)

    def _on_hello(self, peer: bytes, msg: Hello) -> list:
        """A hello: from a seat that said it left, it is back (only a running peer of its key sends one) --
        unless it signed a leave event: a leave is for good (§9.7); then what it holds, as a have."""
        s = self.keys.index(peer) if peer in self.keys else None
        if s is None or self.replica.leave_of(s) is not None or not self.departures.back(s):
            return self._on_have(peer, msg)
        self._feed_left()
        return [Alert(self.departures.back_words(s)), Changed()] + self._on_have(peer, msg)

    def _on_entry(self, peer: bytes | None, raw: bytes) -> list:
        """An entry: checked and taken by the replica (p2p/replica.py ``receive``), its effects back."""
        t = self.table
        what, detail, refused = self.replica.receive(raw, self.genesis.game_id, t, self._who(peer))
        if refused:
            self._rl.note_all(refused)
        if what == "bad":
            return [Disconnect(peer, detail[0])] if peer else [Alert(detail[0])] if detail[1] else []
        if what == "cert":
            return self._new_cert(detail, True)
        if what == "fork":
            a, b = detail
            said = "seat %d equivocated: two different events with sequence number %d (proof saved)" % (self.keys.index(a.author), a.seq)
            return [WriteSpool([b.raw]), Alert(said), Broadcast(Proof(a.raw, b.raw).encode())]
        if what != "event":
            return []
        for e in detail:
            self.cuts.arrived(t, e)
        out = self._after_change([], [e.raw for e in detail])
        if self.talk.arrived(detail) and not any(isinstance(e, Changed) for e in out):
            out.append(Changed())       # a talk line is shown at once, whoever is on turn (§9.11)
        return out

    # ------------------------------------------------------------------ votes and certificates (§6.5, p2p/ballots.py)
    def _on_vote(self, peer, v: Vote) -> list:
        ok, cert = self.ballots.heard(v, self.table, self._who(peer), self._refuse)
        if not ok:
            return [Disconnect(peer, "bad vote signature")] if peer else []
        return self._new_cert(cert)

    def _new_cert(self, cert: Timeout | None, held: bool | None = None) -> list:
        """A certificate completed by votes (None: none; held if new) or received (``held``: the replica
        took it): spooled, placed if it can be, sent on."""
        if cert is None or not (self.replica.add_cert(cert) if held is None else held):
            return []
        return [WriteSpool([cert.raw])] + self._after_change([Broadcast(Entry(cert.raw).encode())])

    def _maybe_vote(self, st, now: float = 0.0) -> list:
        """Vote out the seats ``TimeoutVoter.choose`` names (never one whose event we hold)."""
        if self.seat is None:
            return []
        mine_in = self.seat in st.seats and self.my_event_in_step() is not None
        cast = self.ballots.cast(st, set(self.replica.candidates(self.table, st)), now, mine_in, self._refuse)
        if cast is None:
            return []
        msg, cert = cast
        return [Broadcast(msg)] + self._new_cert(cert)

    def _held_if_left(self, st) -> set:
        """The expected seats whose event we hold, when it matters: only while some seat left."""
        return set(self.replica.candidates(self.table, st)) if self.voter.needs_held() else set()

    # ------------------------------------------------------------------ the show gate (p2p/showing.py)
    def _show_due(self, st) -> tuple[list, float | None]:
        """(steps not known to be settled, when our showing event goes all the same) (p2p/showing.py)."""
        t = self.table
        # the other seats whose 'have' covers our whole log (every author's last seq in it), and a seat
        # that said it left (§9.7): it signs nothing after its note, which came after its votes
        window, mine = self.gate.window(t.phase), self.replica.cert_ids()
        acked = self.remote.acked(t.last_seq, lambda p, i: p in window and (p, i) not in mine)
        return self.gate.due(st, t, acked | set(self.departures.left()), self.voter, self.wakeups.now())

    # ------------------------------------------------------------------ our own events (p2p/agent.py)
    def _emit(self, st, kind: str, body: dict) -> list:
        ev = self.agent.event(st, kind, body, self.next_seq())
        self.voter.own_sent(st.phase, st.prev, self.wakeups.now())
        if self.on_sign is not None:
            self.on_sign(ev)
        self.replica.insert(ev)
        self.remote.own_sent(ev.seq)
        frame = Broadcast(Entry(ev.raw).encode(), own=True)
        if self.send_first:
            # spooled and sent as ``_after_change`` would (our own event always goes to the
            # spool, and its frame waits for the spool and secrets only, §8); placed on ``resume``
            return [WriteSpool([ev.raw]), frame, Changed(), Resume()]
        return self._after_change([frame], [ev.raw], ev.raw)

    def _auto(self) -> list:
        """Moves that need no decision: seed commits, every reveal, and automatic steps."""
        st = self.table.step
        if st is None or self.seat is None or self.seat not in st.seats or self.my_event_in_step() is not None:
            return []
        if not self.may_sign():
            return []
        # bind before show (p2p/showing.py ``blocks``; a seed commit shows nothing): an acknowledgement,
        # a vote or a certificate that arrives asks again, and ``tick`` when it goes all the same
        if st.shows and self.gate.blocks(st, *self._show_due(st), self.wakeups.now(), self._refuse):
            return []
        out, move = self.agent.automatic(self.table, st)
        return out if move is None else out + self._emit(st, *move)

    def _auto_loop(self, gated: bool = False) -> list:
        """Our moves that need no decision, one after the other.  ``gated``: only if our event for the
        current step waits at the show gate (an acknowledgement, or a tick, may let it go)."""
        st = self.table.step
        if gated and (st is None or not st.shows or self.seat not in st.seats or self.my_event_in_step() is not None):
            return []
        out: list = []
        for _ in range(8):
            more = self._auto()
            if not more:
                break
            out += more
        return out

    # ------------------------------------------------------------------ placing events in the log
    def _cert_placed(self, cert: Timeout, st) -> None:
        self.cuts.cert_placed(self.table, cert, st.label, self.voter.step_time(st))

    def _after_change(self, sends: list, new: list | None = None, own: bytes | None = None) -> list:
        """Place what can be placed (after the roll-back a certificate may win, unless ``new`` events
        came), then, in order: the ``new`` events to the spool unless placed (``own``, our own new event,
        always: its frame waits for the spool's fsync, never the log's, §8; the spool is compacted at
        start), the log, ``sends``, a prompt 'have', Changed, the alerts, our automatic moves."""
        if self.forks.over:
            # the table forked (p2p/forks.py): nothing is placed or followed any more; what arrives is kept
            spool = [r for r in new or ()]
            return ([WriteSpool(spool)] if spool else []) + sends + self._take_fork() + self._take_alerts()
        # a certificate for a step we closed differently wins (p2p/ledger.py ``follow``): its cut, unless ``new`` events came
        out = self.ledger.follow(self.replica.cert_phase_list(), self.replica.best_cert, self.gate,
                                 self._alerts.append, self._refused_cert) if new is None else []
        placed = self.ledger.place(lambda st: self.replica.candidates(self.table, st), self.replica.best_cert,
                                   self._cert_placed, self.replica.says_between) if not self.forks.over else []
        placed_set = set(placed)
        spool = [r for r in new or () if r not in placed_set or r == own]
        if spool:
            out.append(WriteSpool(spool))
        if placed:
            out.append(WriteLog(placed))
        out += sends
        if self.forks.over:
            return out + self._take_fork() + self._take_alerts()
        st = self.table.step
        if placed and st is not None and st.shows:
            # the batch that opens a step showing a secret: our 'have' at once (after our own event: its frame
            # waits for no log fsync), the acknowledgement the seats that show wait for, not HAVE_GAP later
            self.wakeups.have_sent(self.wakeups.now(), self.replica.signature())
            out.append(Broadcast(self.replica.have_msg()))
        if placed or (out and new is None):
            out.append(Changed())
        return out + self._take_alerts() + self._auto_loop()

    # ------------------------------------------------------------------ a fork ends the game (§6.5 rule 3, p2p/forks.py)
    @property
    def fork(self) -> dict | None:
        """What the proof our table ended on shows (core/fork.py ``check``), or None."""
        return self.forks.info

    def _refused_cert(self, cert: Timeout, follows: bool) -> bool:
        """A certificate that beats how our log closed its step (p2p/ledger.py ``follow``): refused by our
        show gate (``follows`` False), or about to roll our log back (True).  If it re-opens a secret a seat
        showed, the table has forked and the game ends with the proof (p2p/forks.py).  True once it has."""
        held = self.replica.own_events() if not follows else [e for a in self.keys for e in self.replica.events[a].values()]
        what, raw, info = self.forks.cut(self.table, self.log_entries, held, cert, None if follows else self.seat,
                                         self.genesis, self.games)
        if what == "taken":
            self._end_fork(raw, info)
        elif what == "alone":   # a proof longer than MAX_FORK (§13.1): we end alone, we cannot hand it on
            self.table.end(self.forks.result(info))
            self._fork_out += [Alert(forkcore.words(info, self.seat) + " (the proof is too long to send)"), Changed()]
        elif not follows:
            log.warning("a refused certificate for phase %d, but no event of ours that showed after it: no proof", cert.phase)
        return self.forks.over

    def _end_fork(self, raw: bytes, info: dict, kept: bool = False) -> None:
        """End our table ``forked`` on proof ``raw`` (kept in the spool: from there, unless ``kept``) and
        hand it to every seat."""
        self.table.end(self.forks.result(info))
        said = Alert(forkcore.words(info, self.seat))
        self._fork_out += ([] if kept else [WriteSpool([raw])]) + [Broadcast(ForkMsg(raw).encode()), said, Changed()]

    def _take_fork(self) -> list:
        out, self._fork_out = self._fork_out, []
        return out

    def _on_fork(self, peer: bytes | None, raw: bytes, kept: bool = False) -> list:
        """A fork proof from ``peer`` (or our spool, ``kept``): checked against our log (p2p/forks.py)."""
        what, info = self.forks.heard(raw, self.genesis, self.games, None if kept else (peer or b""))
        if what == "taken":
            self._end_fork(raw, info, kept)
            return self._take_fork()
        if what == "bad":
            self._refuse("FORK", "peer", "fork evidence from %s refused: %s", self._who(peer), info["why"])
        elif what == "limit":
            self._refuse("MAX_FORK_CHECKS", "peer", "fork evidence from %s ignored: it sent %d already", self._who(peer),
                         MAX_FORK_CHECKS)
        return []

    # ------------------------------------------------------------------ table talk (§9.11, p2p/talk.py)
    def talk_lines(self) -> list:
        """Every talk line held, in the order it reached us: dicts seat, seq, text, placed (in our log)."""
        return self.talk.lines(self.table)

    def unplaced_talk(self) -> list:
        """The raw ``say`` events we hold that our log has not placed (for spectators: the ``said`` frame, §9.8)."""
        return self.talk.unplaced(self.table)

    def say_refused(self, text: Any) -> str:
        """Why we may not say ``text`` now, in one line ("" if we may)."""
        t = self.table
        if self.seat is None:
            return "you are watching: only the seats can talk"
        if self.forks.over:
            return "the table forked: nothing more is signed"
        if not self.may_sign():
            return ("you left the table: you can no longer talk" if self.left_for_good() or self.departures.gone
                    else "not now: your seat is catching up on what it signed before")
        mine = self.replica.events.get(self.me, {})
        last = t.last_seq.get(self.me, -1)
        return self.talk.refused(text, sum(1 for q in mine if q > last), t.over, self.wakeups.now())

    def say(self, text: str) -> list:
        """Our talk line: a signed ``say`` event (§9.11) on our own chain, spooled before it is sent to every
        connected seat, shown at once; it goes in the log just before our next answer.  ValueError (its
        words) if it may not go now (``say_refused``)."""
        self.wakeups.input()
        why = self.say_refused(text)
        if why:
            raise ValueError(why)
        from core.events import make_event
        t = self.table
        prev = t.step.prev if t.step is not None else t.head
        # the step our log is at, or our own last event's if that is later (our log was cut back behind
        # events we had sent, §8): a line said below it could never be placed (§6.1: phase >= last_phase)
        mine = self.replica.events.get(self.me, {})
        last = mine[max(mine)].body.get("phase", 0) if mine else 0
        ev = make_event(self.sign, self.genesis.game_id, self.me, self.next_seq(), prev, "say",
                        {"phase": max(t.phase, last if isinstance(last, int) else 0), "text": text})
        self.replica.insert(ev)
        self.remote.own_sent(ev.seq)
        self.talk.said(ev, self.wakeups.now())
        return [WriteSpool([ev.raw]), Broadcast(Entry(ev.raw).encode(), own=True), Changed()]

    # ------------------------------------------------------------------ leaving is a signed word (§9.7, p2p/leaving.py)
    def left_seats(self) -> dict:
        """seat -> the phase of its note, for every seat that said it left and is not back (§9.7)."""
        return self.departures.left()

    def leave(self) -> list:
        """We quit in the middle of the game: sign our ``leave`` event (its payload the game's, so that nobody
        needs us again: protocol.md §6.1 "A leave") and a ``leaving`` note, and send both to every connected
        seat.  From now on we sign nothing and answer nothing but the copies of our note each seat sends
        back and the reports of what it holds (``told``: both came from every connected seat); the shell
        waits for them, at most ``LEAVE_FLUSH``, then exits."""
        self.wakeups.input()
        if self.seat is None or self.departures.gone or self.table.over:
            return []
        # the step our log is at (or that of our newest event, if a roll-back took our log back before it:
        # a note older than a seat's newest event would be stale)
        phase = max(self.table.phase, self.replica.newest_phase(self.seat))
        out: list = []
        # a leave is for good: signed only when some seat hears it now (a peer alone -- a resumed seat that
        # nobody answers, a broken network -- quits as a seat that vanished, and may resume: §9.7)
        heard = any(k in self.remote for k in self.keys if k != self.me)
        if heard and self.may_sign() and self.replica.leave_of(self.seat) is None:
            out = self._sign_leave(phase)
        note = self.departures.sign_leave(self.sign, self.rand, self.genesis.game_id, self.me, phase)
        return out + [Broadcast(note)]

    def _sign_leave(self, phase: int) -> list:
        """Our leave event (spooled before it is sent, like every event of ours, §8)."""
        t = self.table
        try:
            payload = t.game.leave_payload(t.state, self.seat, self.seat_secret)
        except ValueError as exc:       # a game that cannot say what it needs: the note alone, as before
            log.warning("no leave event: %s", exc)
            return []
        from core.events import LEAVE_NONCE, make_event
        body = {"phase": phase, "nonce": self.rand(LEAVE_NONCE), "payload": payload}
        prev = t.step.prev if t.step is not None else t.head
        ev = make_event(self.sign, self.genesis.game_id, self.me, self.next_seq(), prev, "leave", body)
        self.replica.insert(ev)
        self.remote.own_sent(ev.seq)
        self._leave_seq = ev.seq
        return [WriteSpool([ev.raw]), Broadcast(Entry(ev.raw).encode(), own=True)]

    def left_for_good(self) -> bool:
        """We signed our leave (§9.7): we sign nothing more in this game, and only watch it."""
        return self.seat is not None and self.replica.leave_of(self.seat) is not None

    def told(self) -> bool:
        """Every seat connected to us sent our leaving note back, and reported holding our leave event."""
        seq = self._leave_seq
        return self.departures.told(self.remote) and (seq is None or self.remote.hold_all({self.me: seq}))

    def left_words(self, seat: int) -> str:
        return self.departures.left_words(seat)

    def _feed_left(self) -> None:
        """Seats whose newer events we now hold are back; the voter learns who is gone by their word."""
        for s in self.departures.stale(self.replica.newest_phase):
            self._alerts.append(Alert(self.departures.back_words(s)))
        self.voter.set_left(self.departures.left())

    def _on_leaving(self, peer: bytes | None, note: Leaving) -> list:
        """A leaving note: heard and answered by the departures (p2p/leaving.py); one taken tells the voter."""
        key, raw, who = self.keys[note.seat], note.encode(), self._who(peer)
        connected, newest = key in self.remote, partial(self.replica.newest_phase, note.seat)
        what = self.departures.hear(peer, note.seat, note.phase, note.nonce, note.sig, raw, key=key, game_id=self.genesis.game_id,
                                    newest_phase=newest, author_connected=connected)
        out = self.departures.answer(what, peer, note.seat, raw, who, self._refuse)
        if what == "taken":
            self._feed_left()
        return out

    # the receive path (``receive``): a message's type -> the method that hands it to the part that owns it
    _ROUTES = {
        Hello: _on_hello,
        Have: _on_have,
        Leaving: _on_leaving,
        Entry: lambda self, peer, m: self._on_entry(peer, m.raw),
        Proof: lambda self, peer, m: self._on_entry(peer, m.a) + self._on_entry(peer, m.b),
        Vote: _on_vote,
        ForkMsg: lambda self, peer, m: self._on_fork(peer, m.raw),
    }
