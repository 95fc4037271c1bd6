"""The peer protocol of a sealed table, as a pure state machine (sans-IO).

``Peer`` is fed connections, messages, local decisions and clock ticks and
returns a list of effects for the shell (p2p/node.py) to carry out *in
order*: every ``WriteSpool``/``WriteLog``/``WriteSecret`` comes before the
``Send``/``Broadcast`` that depends on it, so nothing is sent or acknowledged
before it is on disk (a ``Broadcast`` with ``own`` carries only our own new
event: it needs our secrets and spool on disk, not the log; protocol.md §8).  Randomness (salts, seed contributions) is injected as
``rand(n) -> bytes``; time only enters as ``now`` in ``tick``.

Messages (canonical msgpack arrays, one per frame):

    ["hello", 1, game_id, have, certs]   first message on every connection
    ["have", have, certs]                what we hold (on disk): ack and repair
    ["entry", raw]                       an event or a time-out certificate
    ["vote", phase, prev, seats, voter, sig]
    ["proof", raw_a, raw_b]              equivocation proof
    ["leaving", seat, phase, nonce, sig] a seat quits mid-game (p2p/leaving.py: kept, relayed, and its
                                         steps voted out at once until it is back)

Seat secrets (a game with ``info.secrets``, core/engine.py): the peer makes
64 random bytes (``rand(64)``) once, before it sends anything that depends
on them, and keeps them in the secrets file under the reserved phase
``SEAT_SECRET`` (-1) with an empty salt (``WriteSecret``), so a restarted peer
resumes with the same secret (and hand).  Automatic steps (purpose ``auto``)
are answered in ``_auto`` with ``game.auto_action``; a decided action goes
through ``game.seal_action`` before it is checked and signed; ``view()`` and
``table.view(seat)`` pass our secret.

``have`` is a list of [author key, highest contiguous seq held, first 8
bytes of that event's id]; ``certs`` a list of [phase, first 8 bytes of the
certificate's id] for every certificate we hold.  A peer answers a ``have``
by sending what the other lacks, so drops, duplicates, reordering and
reconnects all heal the same way.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Callable

from core.encoding import CanonicalError, decode, encode
from core.engine import IllegalAction
from core.events import (
    EntryError,
    Event,
    Genesis,
    Timeout,
    commitment,
    make_event,
    make_timeout,
    parse_entry,
    reveal_commitment,
    verify_many,
    verify_sig,
    vote_sign_msg,
)
from core.evidence import afterwards_words, chain_misfit, cut_words, seats_words, step_words
from core.events import seat_names
from core.table import IllegalMove, RuleError, Table

from .leaving import NONCE_BYTES, Departures, make_note, parse_note
from .limits import RateLimitedLog
from .showing import ShowGate
from .timeouts import MAX_VOTES_PER_STEP_SEAT, VOTE_RESEND, VOTES_AHEAD, VOTES_BEHIND, TimeoutVoter

log = logging.getLogger("easel.protocol")

PROTOCOL = 1
SEAT_SECRET = -1              # the secrets-file key of our seat secret (phases are >= 0)
SEAT_SECRET_BYTES = 64
# Limits (protocol.md §13.1; p2p/limits.py lists them all)
MAX_SEQ_AHEAD = 16            # an author's event with seq > its last seq in our log + this is refused (not stored)
MAX_BUFFERED_PER_AUTHOR = 16  # events above a gap held in memory, per author
MAX_SEND_PER_HAVE = 512
REPAIR_AFTER = 2              # consecutive stale 'have' reports before we resend
REPAIR_INTERVAL = 0.2         # s between two resends of one author's events to one peer (no amplification)
# MAX_VOTES_PER_STEP_SEAT, VOTES_AHEAD, VOTES_BEHIND: p2p/timeouts.py (the time-out policy's home)
MAX_CERTS_PER_PHASE = 4       # certificates held per phase (from the wire; more are ignored)
WATCHDOG_AFTER = 2.0          # s an open step may wait for nobody before we ask the peers again
RESYNC_WAIT = 10.0            # s we wait, after losing our log's tail, to hear our own events back before signing
KEEPALIVE = 4.0               # s between two 'have's when nothing changed and nothing is missing (event-driven, §9.5)
HAVE_GAP = 0.1                # s at least between two 'have's: changes are coalesced, a lagging peer asked this often
MAX_CUT_MOVES = 256           # signed moves cut by a certificate that we remember (and name) per game


# --------------------------------------------------------------------------- effects
@dataclass
class Send:
    to: bytes
    msg: bytes


@dataclass
class Broadcast:
    msg: bytes
    # the frame carries only our own new event: before it leaves, the shell makes our secrets
    # and spool durable (the event and the sealed value it commits to), not the log (§8)
    own: bool = False


@dataclass
class WriteSpool:
    entries: list


@dataclass
class WriteLog:
    entries: list


@dataclass
class TruncateLog:
    count: int


@dataclass
class WriteSecret:
    phase: int
    value: Any
    salt: bytes


@dataclass
class Disconnect:
    peer: bytes
    reason: str


@dataclass
class Changed:
    """The table advanced (or was rolled back): views and decisions may have changed."""


@dataclass
class Alert:
    text: str


@dataclass
class Resume:
    """Our own new event was sent before it was placed (``Peer.send_first``): once the frames
    are on their way, the shell calls ``Peer.resume()`` and runs what it returns."""


def msg_have(have, certs) -> bytes:
    return encode(["have", have, certs])


class ProtocolError(ValueError):
    pass


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
        self.events: dict[bytes, dict[int, Event]] = {k: {} for k in self.keys}
        self.have: dict[bytes, int] = {k: -1 for k in self.keys}
        self.buffer: dict[bytes, dict[int, Event]] = {k: {} for k in self.keys}
        self.certs: dict[int, list[Timeout]] = {}
        self.voter = TimeoutVoter(len(self.keys), self.seat, timeout)   # every rule of when to vote (§6.5)
        self.gate = ShowGate(len(self.keys), self.seat)   # bind before show: when we may show a secret (§6.5)
        self.departures = Departures(len(self.keys), self.seat)          # who said they left (§9.7)
        self.left_steps: dict[int, tuple] = {}      # phase -> seats a certificate timed out after they said they left
        self.secrets: dict[int, tuple] = dict(secrets or {})
        self.remote: dict[bytes, dict] = {}
        self.equivocators: dict[bytes, tuple] = {}
        self.log_entries: list[bytes] = [genesis.raw]
        self.on_sign: Callable[[Event], None] | None = None   # measurement hook (benchmarks)
        # a shell that runs ``Resume`` (p2p/node.py) sets this: our own new event is spooled and
        # sent first, then placed (placing runs the game's checks of the step it closes, which
        # may be long: Modern Art's shuffle-proof checks); a shell that does not keeps the order
        # place, then send (the bytes sent and the log are the same either way)
        self.send_first = False
        self._cand_key: tuple | None = None
        self._mine_key: tuple | None = None      # my_event_in_step's memo: (phase, prev, events of ours held)
        self._mine_ev: Event | None = None
        self._cands: dict[int, Event] = {}
        self._cand_checked: dict[int, int] = {}
        self._cand_seen: dict[int, int] = {}       # seat -> how many of its events the last look saw
        self._clock = clock                         # the shell's clock (the one ``tick`` is given), read at each input
        self._now = 0.0                             # the last tick's (or input's) clock
        self._first_tick: float | None = None
        self._resync = resync
        self._heard: set = set()                    # seats whose have we received (for resync)
        self._claim_since: float | None = None      # since when a peer claims an event of ours we lack
        self._progress_mark: tuple | None = None    # watchdog: (table position, since)
        self.watchdog_fired = 0
        self.refused: dict[str, int] = {}           # limit name -> times hit (tests, stats)
        self._rl = RateLimitedLog(log, clock=lambda: self._now)
        self._pending_cut: tuple | None = None
        self._bad_reveals: set = set()              # (author, phase) of reveals that do not open their commitment
        self._alerts: list = []                     # alerts found while choosing candidates, not yet returned
        # false time-outs seen (§6.5): (phase, seat) -> a signed move of that seat held here, fitting its
        # chain, for a step a certificate voted it out of; _cert_steps: phase -> (prev, T, voters, label, time)
        self.cut_moves: dict[tuple, dict] = {}
        # (phase, seat) -> a move a seat signed for a step it was voted out of whose seq does not fit
        # its chain (signed afterwards: not evidence, core.evidence.chain_misfit)
        self.signed_afterwards: dict[tuple, dict] = {}
        self._refused_ids: dict = {}                # id of a held event the rules refuse at its step -> (author, phase)
        self._cert_steps: dict[int, tuple] = {}
        # event-driven timers (``next_wakeup``): inputs since the last tick, the last 'have' sent
        self._inputs = 0
        self._inputs_seen = -1
        self._last_tick = float("-inf")
        self._have_at = float("-inf")
        self._have_sig: tuple | None = None
        self._behind = False                        # a peer reports holding events we lack
        self.table = self._new_table()
        for raw in (log_entries or [genesis.raw])[1:]:
            self.log_entries.append(raw)
            ent = parse_entry(raw, keys=self.keys, verify=False)
            self.table.append(ent)
            self._remember(ent)
        spooled = []
        for raw in spool or []:
            try:
                ent = parse_entry(raw, keys=self.keys)
            except EntryError:
                continue
            if isinstance(ent, Event):
                known = self.events.get(ent.author, {}).get(ent.seq)
                if known is not None and known.raw != ent.raw:
                    # kept evidence of an equivocation: the first event stays the candidate
                    self.equivocators.setdefault(ent.author, (known.raw, ent.raw))
                    continue
                if known is None:
                    spooled.append(ent)
                    continue
            self._remember(ent)
        for k in self.keys:
            self._advance_have(k)  # over the log's events (the buffer is still empty)
        # spooled events join an author's events only in seq order, as on the wire;
        # those above a gap (a crash can leave one) wait in the buffer like late arrivals
        for ev in sorted(spooled, key=lambda e: (e.author, e.seq)):
            first = self.events[ev.author].get(ev.seq) or self.buffer[ev.author].get(ev.seq)
            if first is not None:
                if first.raw != ev.raw:
                    self.equivocators.setdefault(ev.author, (first.raw, ev.raw))
                continue
            if ev.seq == self.have[ev.author] + 1:
                self.events[ev.author][ev.seq] = ev
                self.have[ev.author] = ev.seq
            else:
                self.buffer[ev.author].setdefault(ev.seq, ev)
        for k in self.keys:
            self._advance_have(k)
        # A torn log can end in the middle of a batch (its last records cut).  A batch
        # is only ever written whole, and a step's candidates are only the events not
        # placed yet, so such a log would never close its step again ("waiting for
        # nobody"): cut it back to where the step opened (the events stay held, and are
        # spooled first by ``start``) and place the whole batch again.
        st = self.table.step
        if st is not None and self.table.batch:
            count = self.table.starts[st.phase][0]
            cut = self.log_entries[count:]
            self.log_entries = self.log_entries[:count]
            self.table = self._replay(self.log_entries)
            self._pending_cut = (count, cut)
            log.warning("our log ends inside a batch (a torn tail): it is cut back to entry %d and the step placed again", count)
        self._scan_cuts()
        self._scan_shown()

    # ------------------------------------------------------------------ helpers
    def _new_table(self) -> Table:
        t = Table.start(self.genesis, self.games)
        secret = self.seat_secret
        if secret is not None and self.seat is not None:
            t.secrets[self.seat] = secret
        return t

    @property
    def uses_secrets(self) -> bool:
        """Does our seat make and keep a seat secret (the game's ``info.secrets``): nothing else in the
        peer depends on it, every game is called the same way (core/engine.py, "One calling convention")."""
        return self.seat is not None and self.table.game.info.secrets

    @property
    def seat_secret(self) -> bytes | None:
        """Our seat secret (None before it is made, or for a game without seat secrets)."""
        sec = self.secrets.get(SEAT_SECRET)
        if sec is None or not isinstance(sec[0], bytes) or len(sec[0]) != SEAT_SECRET_BYTES:
            return None
        return sec[0]

    def _ensure_seat_secret(self) -> list:
        """Make our seat secret if the game needs one and we have none yet: the WriteSecret
        comes first, so the secret is on disk before anything derived from it is sent."""
        if not self.uses_secrets or self.seat_secret is not None:
            return []
        value = self.rand(SEAT_SECRET_BYTES)
        if not isinstance(value, bytes) or len(value) != SEAT_SECRET_BYTES:
            raise ValueError("rand(%d) must give %d bytes" % (SEAT_SECRET_BYTES, SEAT_SECRET_BYTES))
        self.secrets[SEAT_SECRET] = (value, b"")
        self.table.secrets[self.seat] = value
        return [WriteSecret(SEAT_SECRET, value, b"")]

    def view(self, seat: int | None = None) -> Any:
        """The table's view for ``seat`` (default: ours), with our secret for our own seat."""
        seat = self.seat if seat is None else seat
        return self.table.view(seat, self.seat_secret if seat == self.seat and seat is not None else None)

    def _replay(self, entries: list) -> Table:
        """A table rebuilt from our own log (already verified when it was written)."""
        t = self._new_table()
        for raw in entries[1:]:
            t.append(parse_entry(raw, keys=self.keys, verify=False))
        return t

    def _remember(self, ent) -> None:
        if isinstance(ent, Event):
            self.events.setdefault(ent.author, {})[ent.seq] = ent
        elif isinstance(ent, Timeout):
            lst = self.certs.setdefault(ent.phase, [])
            if all(c.raw != ent.raw for c in lst):
                lst.append(ent)

    def _advance_have(self, author: bytes) -> list:
        """Advance ``have[author]`` over what we hold contiguously: events already known
        (a log can hold an author's later events while an earlier one is still missing)
        and buffered arrivals, which join the events.  Returns the events that joined."""
        joined = []
        evs, buf = self.events[author], self.buffer[author]
        while True:
            nxt = self.have[author] + 1
            if nxt in evs:
                buf.pop(nxt, None)
            elif nxt in buf:
                ev = buf.pop(nxt)
                evs[nxt] = ev
                joined.append(ev)
            else:
                return joined
            self.have[author] = nxt

    def have_vector(self) -> list:
        """[[author, highest contiguous seq, first 8 bytes of that event's id], ...].

        The id prefix lets two peers holding different events under one seq (an
        equivocation) notice it even when their seq numbers are equal."""
        out = []
        for k in self.keys:
            h = self.have[k]
            out.append([k, h, self.events[k][h].id[:8] if h >= 0 else b""])
        return out

    def cert_phases(self) -> list:
        """[[phase, id prefix], ...] of every certificate we hold (so a peer holding another
        certificate for the same phase still gets ours)."""
        return sorted([c.phase, c.id[:8]] for lst in self.certs.values() for c in lst)

    def hello(self) -> bytes:
        return encode(["hello", PROTOCOL, self.genesis.game_id, self.have_vector(), self.cert_phases()])

    @property
    def step(self):
        return self.table.step

    def next_seq(self) -> int:
        """The seq of the next event we sign: one above every seq we hold, except that a
        hole in our own seqs (an event of ours lost with our log's torn tail, which no
        peer reported holding: a torn record was never fsynced, so never sent) is filled
        first when it is above our last seq in the log, so the others' ``have`` of us can
        pass it (a hole nobody can fill would keep every later event of ours waiting)."""
        held = set(self.events.get(self.me) or ()) | set(self.buffer.get(self.me) or ())
        if not held:
            return 0
        gap = self.have[self.me] + 1
        if gap not in held and gap < max(held) and gap > self.table.last_seq.get(self.me, -1):
            return gap
        return max(held) + 1

    def _refuse(self, limit: str, who: str, fmt: str, *args) -> None:
        self.refused[limit] = self.refused.get(limit, 0) + 1
        self._rl.note(limit, who, fmt, *args)

    def _who(self, peer: bytes | None) -> str:
        return "seat %d" % self.keys.index(peer) if peer in self.keys else "a peer"

    def _own_claimed(self) -> bool:
        """A peer reports holding an event of ours above what we hold (we lost it)."""
        mine = self.have[self.me] if self.me in self.have else -1
        return any((st.get("have") or {}).get(self.me, -1) > mine for st in self.remote.values())

    def may_sign(self) -> bool:
        """Whether we may sign a new event now (False while we may have lost our own events)."""
        if self.seat is None:
            return False
        if self._resync or self.departures.gone:
            return False
        if self._own_claimed():
            return self._claim_since is not None and self._now >= self._claim_since + RESYNC_WAIT
        return True

    def my_event_in_step(self) -> Event | None:
        st = self.table.step
        if st is None or self.seat is None:
            return None
        mine = self.events[self.me]
        # asked after every input (our decider, _auto, the vote): remembered for the step and the
        # events we hold (an author's events are only ever added), not searched for again each time
        key = (st.phase, st.prev, len(mine))
        if self._mine_key == key:
            return self._mine_ev
        found = None
        for ev in mine.values():
            if ev.prev == st.prev and ev.body["phase"] == st.phase:
                found = ev
                break
        self._mine_key, self._mine_ev = key, found
        return found

    @property
    def votes(self) -> dict:
        """The votes held, (phase, prev, T) -> {voter: sig} (kept by the ``TimeoutVoter``)."""
        return self.voter.votes

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
        st = self.table.step
        if st is None:
            return ()
        have = self._candidates(st)
        return tuple(s for s in st.seats if s not in have)

    def sealed_events(self) -> list[bytes]:
        """The commitments we hold for the current step, not yet in the log (a commit step's events are
        placed only once all are in): raw signed events, seat order, for spectators (§9.8), who see
        from them which seats have sealed their move.  Empty unless the step is a commit step."""
        st = self.table.step
        if st is None or st.kind != "commit":
            return []
        have = self._candidates(st)
        return [have[s].raw for s in st.seats if s in have]

    def needs_decision(self) -> bool:
        """Our seat must choose a move now (a commit of a move, or an open move)."""
        st = self.table.step
        if st is None or self.seat is None or self.seat not in st.seats or st.purpose != "move":
            return False
        if st.kind == "reveal":
            return False
        return self.my_event_in_step() is None and self.may_sign()

    # ------------------------------------------------------------------ inputs
    def start(self) -> list:
        """Effects to run once the shell is up (automatic moves, placing spooled events)."""
        out: list = []
        if self._pending_cut is not None:
            count, cut = self._pending_cut
            self._pending_cut = None
            out += [WriteSpool(cut), TruncateLog(count)]
        out = self._ensure_seat_secret() + out
        return out + self._after_change([])

    def _input(self) -> None:
        """Every input: counted (``next_wakeup``), and the clock read when the shell gave one."""
        self._inputs += 1
        if self._clock is not None:
            self._now = self._clock()

    def connected(self, peer: bytes) -> list:
        """A new connection: our ``hello``; then the votes we hold for the steps still in our
        window, and a ``have`` after them, so that every vote we cast reaches the other before
        an acknowledgement of ours that it may read as "settled" (the show gate, §6.5)."""
        self._input()
        self.remote[peer] = {"have": None, "certs": []}
        out = [Send(peer, self.hello())]
        votes = [Send(peer, encode(["vote", ph, prev, list(seats), voter, sig]))
                 for (ph, prev, seats), vs in sorted(self.voter.votes.items()) for voter, sig in sorted(vs.items())]
        return out + votes + [Send(peer, msg_have(self.have_vector(), self.cert_phases()))] + self._notes_for(peer)

    def disconnected(self, peer: bytes) -> list:
        self.remote.pop(peer, None)
        return []

    def act(self, action: Any) -> list:
        """Our own move for the current step (checked exactly as a peer's would be)."""
        self._input()
        st = self.table.step
        if not self.needs_decision():
            raise IllegalAction("it is not your turn to move")
        game, state = self.table.game, self.table.state
        out = self._ensure_seat_secret()
        action = game.seal_action(state, self.seat, action, self.seat_secret)
        norm = game.check(state, self.seat, action)
        if st.kind == "commit":
            return self._clock_started(out + self._commit(st, norm))
        return self._clock_started(out + self._emit(st, "act", {"phase": st.phase, "action": norm}))

    def _clock_started(self, out: list) -> list:
        """With the shell's clock (``clock``): the step an input made current starts its clock at
        that input's time, as the next ``tick`` would have done a moment later, so that the shell
        need not wake up for it (one wake-up per step less; §9.5)."""
        if self._clock is not None:
            self.voter.observe(self.table.step, self._now)
        return out

    def receive(self, peer: bytes, data: bytes) -> list:
        self._input()
        try:
            msg = decode(data)
            if not isinstance(msg, list) or not msg or not isinstance(msg[0], str):
                raise ProtocolError("message is not an array starting with its type")
            return self._clock_started(self._dispatch(peer, msg))
        except (CanonicalError, ProtocolError) as exc:
            return [Disconnect(peer, "protocol violation: %s" % exc)]
        except (ValueError, TypeError, IndexError, KeyError) as exc:
            return [Disconnect(peer, "malformed message: %s" % exc)]

    def _have_signature(self) -> tuple:
        return (tuple(self.have.values()), sum(len(v) for v in self.certs.values()))

    def next_wakeup(self) -> float:
        """When ``tick`` next has something to do (on the clock ``tick`` is given), so a shell can
        sleep until then instead of ticking: a step clock to start, our vote (at the step's
        time, then whenever something arrived after it, and at the escalation), re-sending the
        votes held, a 'have' (soon after a change or while a peer holds what we lack, else a
        keep-alive every KEEPALIVE s), the resync gate, the watchdog.  An input (``receive``,
        ``act``, ``connected``) may bring it forward: ask again after each.  A moment already
        covered by a tick is never answered again (no busy loop)."""
        if self.departures.gone:
            return float("inf")                    # we left: nothing timed is ours to do any more
        self._feed_left()
        last = self._last_tick
        fresh = self._inputs != self._inputs_seen
        at = [self._have_at + (HAVE_GAP if self._behind or self._have_signature() != self._have_sig else KEEPALIVE)]

        def due(t: float | None) -> None:
            if t is not None and t > last:
                at.append(t)

        st = self.table.step
        if st is not None:
            if self.voter.clock is None or self.voter.clock[0] != (st.phase, st.prev):
                return self._now
            d = self.voter.due_at(st, self._held_if_left(st))     # at once if a seat it waits for left
            if d is not None and d <= last and fresh:
                at.append(self._now)               # past the step's time: what arrived may change our vote
            due(d)
            first = self.voter.first_vote.get((st.phase, st.prev))
            due(None if first is None else first + self.voter.step_time(st))    # escalation
            if self.voter.held_for(st.phase, st.prev):
                due(self.voter.resent_at + VOTE_RESEND)
            if st.shows and self.seat in st.seats and self.my_event_in_step() is None:
                bad = self._unsettled(st)
                if bad:
                    due(self._show_at(st, bad))    # the show gate goes all the same then
            if self._progress_mark is not None and (self._behind or not self.waiting()):
                due(self._progress_mark[1] + WATCHDOG_AFTER)
        if self._resync and self._first_tick is not None:
            due(self._first_tick + RESYNC_WAIT)
        if self._claim_since is not None:
            due(self._claim_since + RESYNC_WAIT)
        return min(at)

    def tick(self, now: float) -> list:
        """Timed work, whatever is due at ``now``: time-out votes, anti-entropy, the resync gate,
        the watchdog (``next_wakeup`` says when; calling it more often is harmless)."""
        out: list = []
        self._now = now
        self._last_tick = now
        self._inputs_seen = self._inputs
        if self.departures.gone:
            return []                               # we left: we say nothing more (§9.7)
        self._feed_left()
        if self._first_tick is None:
            self._first_tick = now
        self._prune_votes()
        could = self.may_sign()
        if self._resync:
            others = {s for s in range(len(self.keys)) if s != self.seat}
            if others <= self._heard or now >= self._first_tick + RESYNC_WAIT:
                self._resync = False
        claimed = self._own_claimed()
        if claimed and self._claim_since is None:
            self._claim_since = now
            self._refuse("RESYNC_WAIT", "own", "a peer holds events we signed and lost: waiting for them before signing again")
        elif not claimed:
            self._claim_since = None
        if self.may_sign() and not could:
            out += self._auto_loop() + [Changed()]
        out += self._watchdog(now)
        st = self.table.step
        if st is not None:
            self.voter.observe(st, now)
            out += self._gated_auto()
            if self.voter.vote_due(st, now, self._held_if_left(st)):
                out += self._maybe_vote(st, now)
            # re-send the votes held for this step (they are not part of any author's chain)
            held = self.voter.held_for(st.phase, st.prev)
            if held and self.voter.resend_due(now):
                for seats, voter, sig in held:
                    out.append(Broadcast(encode(["vote", st.phase, st.prev, list(seats), voter, sig])))
        sig = self._have_signature()
        gap = HAVE_GAP if self._behind or sig != self._have_sig else KEEPALIVE
        if now >= self._have_at + gap or now < self._have_at:   # the very sum next_wakeup gives
            self._have_at, self._have_sig = now, sig
            out.append(Broadcast(msg_have(self.have_vector(), self.cert_phases())))
        return out + self._take_alerts()

    def _watchdog(self, now: float) -> list:
        """An open step that has not moved for WATCHDOG_AFTER seconds while it waits for
        nobody (every expected event is held) or while a peer reports holding events we
        lack is never left to rest: re-check what we hold and ask every peer again
        (a ``hello``, which peers answer with everything we lack, §9.6)."""
        st = self.table.step
        if st is None:
            self._progress_mark = None
            return []
        pos = (self.table.count, self.table.head, tuple(self.have.values()))
        if self._progress_mark is None or self._progress_mark[0] != pos:
            self._progress_mark = (pos, now)
            return []
        if now < self._progress_mark[1] + WATCHDOG_AFTER:
            return []
        self._progress_mark = (pos, now)
        behind = any(
            (r.get("have") or {}).get(k, -1) > self.have[k] for r in self.remote.values() for k in self.keys
        )
        nobody = not self.waiting()
        if not (nobody or behind):
            return []
        self.watchdog_fired += 1
        self._refuse("WATCHDOG_AFTER", "step", "phase %d has not moved for %.1f s while waiting for %s: asking the peers again",
                     st.phase, WATCHDOG_AFTER, "nobody" if nobody else "events a peer holds")
        self._cand_key = None   # re-check every held event
        return self._after_change([]) + [Broadcast(self.hello())]

    def _prune_votes(self) -> None:
        """Forget votes (and our vote clocks) for phases more than VOTES_BEHIND below ours."""
        self.voter.prune(self.table.phase)

    # ------------------------------------------------------------------ dispatch
    def _dispatch(self, peer: bytes, msg: list) -> list:
        kind = msg[0]
        if self.departures.gone:
            return self._on_leaving(peer, msg) if kind == "leaving" else []    # we left: only the echoes of our note
        if kind == "hello":
            if len(msg) != 5 or type(msg[1]) is not int or msg[1] != PROTOCOL:
                raise ProtocolError("unsupported hello")
            if msg[2] != self.genesis.game_id:
                raise ProtocolError("peer is at another game")
            return self._seat_back(peer) + self._on_have(peer, msg[3], msg[4], pull=True)
        if kind == "leaving":
            return self._on_leaving(peer, msg)
        if kind == "have":
            if len(msg) != 3:
                raise ProtocolError("bad have")
            return self._on_have(peer, msg[1], msg[2]) + self._gated_auto()
        if kind == "entry":
            if len(msg) != 2 or not isinstance(msg[1], bytes):
                raise ProtocolError("bad entry message")
            return self._on_entry(peer, msg[1])
        if kind == "vote":
            if len(msg) != 6:
                raise ProtocolError("bad vote")
            return self._on_vote(peer, *msg[1:])
        if kind == "proof":
            if len(msg) != 3 or not all(isinstance(x, bytes) for x in msg[1:]):
                raise ProtocolError("bad proof")
            out: list = []
            for raw in msg[1:]:
                out += self._on_entry(peer, raw)
            return out
        raise ProtocolError("unknown message type %r" % kind)

    def _on_have(self, peer: bytes, have: Any, certs: Any, pull: bool = False) -> list:
        """Repair: send what the other lacks.

        Our own events are sent to a peer once (``sent``) and again only if its
        ``have`` stays behind for REPAIR_AFTER consecutive reports (lost on the way);
        other authors' events are relayed only in that case, so in the normal case
        each event crosses each link once, from its author.  A ``hello`` (``pull``) is
        a request: it gets everything the other lacks at once (at most once per
        WATCHDOG_AFTER seconds per peer, so it cannot be used to amplify a flood).
        """
        if not isinstance(have, list) or not isinstance(certs, list):
            raise ProtocolError("have must be lists")
        theirs: dict[bytes, int] = {}
        forks: list = []
        for item in have:
            if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], bytes) and isinstance(item[1], int) and isinstance(item[2], bytes)):
                raise ProtocolError("bad have item")
            if item[0] not in self.have:
                continue  # not a seat: nothing to keep about it
            theirs[item[0]] = max(-1, item[1])  # anything below -1 means "none" (and bounds our loops)
            mine = self.events.get(item[0], {}).get(item[1])
            if mine is not None and item[2] and mine.id[:8] != item[2] and item[0] not in self.equivocators:
                forks.append(mine)  # they hold another event under this seq: show them ours
        st = self.remote.setdefault(peer, {})
        if peer in self.keys:
            self._heard.add(self.keys.index(peer))
        if pull:
            last = st.get("pulled")
            if last is not None and self._now - last < WATCHDOG_AFTER and self._now >= last:
                pull = False
            else:
                st["pulled"] = self._now
        prev = st.get("have") or {}
        fork_sends = [Send(peer, encode(["entry", ev.raw])) for ev in forks]
        st["have"] = theirs
        if not pull:
            # an acknowledgement the show gate may count: a 'have', never the 'hello' that opens a
            # connection (the votes the other re-sends come after its hello, before its next have)
            # what a seat holds only grows: a 'have' overtaken by a newer one (a relay, a redial) never
            # takes an acknowledgement back
            old = st.get("ack") or {}
            st["ack"] = {k: max(v, old.get(k, -1)) for k, v in theirs.items()}
            st["ack_certs"] = {(c[0], c[1]) for c in certs if isinstance(c, list) and len(c) == 2
                               and type(c[0]) is int and isinstance(c[1], bytes)}
        self._behind = any((r.get("have") or {}).get(k, -1) > self.have[k] for r in self.remote.values() for k in self.keys)
        stale = st.setdefault("stale", {})
        sent = st.setdefault("sent", {})
        out: list = []
        budget = MAX_SEND_PER_HAVE
        for k in self.keys:
            h = theirs.get(k, -1)
            if h >= self.have[k]:
                stale[k] = 0
                continue
            stale[k] = stale.get(k, 0) + 1 if prev.get(k, -1) == h else 0
            resent = st.setdefault("resent", {})
            due = self._now - resent.get(k, float("-inf")) >= REPAIR_INTERVAL
            if (stale[k] >= REPAIR_AFTER and due) or pull:
                start = h
                stale[k] = 0
                resent[k] = self._now
            elif k == self.me:
                start = max(h, sent.get(k, -1))
            else:
                continue
            last = start
            for seq in range(start + 1, self.have[k] + 1):
                ev = self.events[k].get(seq)
                if ev is None:
                    continue
                out.append(Send(peer, encode(["entry", ev.raw])))
                last = seq
                budget -= 1
                if budget <= 0:
                    break
            sent[k] = max(sent.get(k, -1), last)  # only what actually went out
            if budget <= 0:
                return fork_sends + out
        if self._now - st.get("certs_at", float("-inf")) < REPAIR_INTERVAL and not pull:
            return fork_sends + out
        st["certs_at"] = self._now
        theirs_c = {(c[0], c[1]) for c in certs if isinstance(c, list) and len(c) == 2 and isinstance(c[0], int) and isinstance(c[1], bytes)}
        for phase in sorted(self.certs):
            for c in self.certs[phase]:
                if (phase, c.id[:8]) not in theirs_c:
                    out.append(Send(peer, encode(["entry", c.raw])))
        return fork_sends + out

    def _on_entry(self, peer: bytes | None, raw: bytes) -> list:
        # parsed once; its signature checks wait in ``sigs`` until we know it is not a duplicate
        sigs: list = []
        try:
            ent = parse_entry(raw, keys=self.keys, pending=sigs)
        except EntryError as exc:
            return [Disconnect(peer, "bad entry: %s" % exc)] if peer else [Alert("bad entry: %s" % exc)]
        if isinstance(ent, Event) and ent.author in self.events:
            known = self.events[ent.author].get(ent.seq)
            if known is not None and known.raw == ent.raw:
                return []  # a duplicate: no need to check its signature again
        if isinstance(ent, Timeout) and any(c.raw == ent.raw for c in self.certs.get(ent.phase, [])):
            return []
        bad = verify_many(sigs)
        if bad is not None:
            text = ("time-out: bad vote signature from seat %d" % ent.votes[bad][0]) if isinstance(ent, Timeout) \
                else "event: signature does not verify"
            return [Disconnect(peer, "bad entry: %s" % text)] if peer else [Alert("bad entry: %s" % text)]
        if isinstance(ent, Genesis):
            return []
        if ent.game_id != self.genesis.game_id:
            return [Disconnect(peer, "entry of another game")] if peer else []
        if isinstance(ent, Timeout):
            held = self.certs.get(ent.phase, [])
            if any(c.raw == ent.raw or (c.prev == ent.prev and c.seats == ent.seats) for c in held):
                return []
            start = self.table.starts.get(ent.phase)
            if ent.phase > self.table.phase or start is None or start[1] != ent.prev:
                # a certificate for a step that does not exist (yet) on our branch: not
                # kept; repair sends it again once we are there (§9.6 step 4)
                self._refuse("MAX_CERTS_PER_PHASE", self._who(peer), "ignored a time-out certificate for phase %d from %s: no such step here (yet)", ent.phase, self._who(peer))
                return []
            if len(held) >= MAX_CERTS_PER_PHASE:
                self._refuse("MAX_CERTS_PER_PHASE", self._who(peer), "ignored a time-out certificate from %s: %d already held for phase %d", self._who(peer), len(held), ent.phase)
                return []
            self._remember(ent)
            return [WriteSpool([ent.raw])] + self._after_change([Broadcast(encode(["entry", ent.raw]))])
        ev: Event = ent
        if ev.author not in self.events:
            return [Disconnect(peer, "event from a key that holds no seat")] if peer else []
        known = self.events[ev.author].get(ev.seq)
        if known is not None:
            if known.raw == ev.raw:
                return []
            return self._equivocation(known, ev)
        if ev.seq > self.table.last_seq.get(ev.author, -1) + MAX_SEQ_AHEAD:
            # the rules cannot need it yet: refused, neither kept nor acknowledged
            # (an honest peer that holds it sends it again once we have caught up)
            self._refuse("MAX_SEQ_AHEAD", self._who(peer), "refused an event of seat %d with sequence number %d: more than %d above its last in our log (%d), from %s",
                         self.keys.index(ev.author), ev.seq, MAX_SEQ_AHEAD, self.table.last_seq.get(ev.author, -1), self._who(peer))
            return []
        if ev.seq > self.have[ev.author] + 1:
            buf = self.buffer[ev.author]
            other = buf.get(ev.seq)
            if other is not None:
                return [] if other.raw == ev.raw else self._equivocation(other, ev)
            if len(buf) < MAX_BUFFERED_PER_AUTHOR:
                buf[ev.seq] = ev
            else:
                self._refuse("MAX_BUFFERED_PER_AUTHOR", self._who(peer), "dropped an out-of-order event of seat %d: %d already wait for a gap", self.keys.index(ev.author), len(buf))
            return []
        self.events[ev.author][ev.seq] = ev
        self.have[ev.author] = ev.seq
        accepted = [ev] + self._advance_have(ev.author)
        for e in accepted:
            self._event_arrived(e)
        return self._persist_and_progress([e.raw for e in accepted], [])

    def _equivocation(self, a: Event, b: Event) -> list:
        if a.author in self.equivocators:
            return []
        self.equivocators[a.author] = (a.raw, b.raw)
        seat = self.keys.index(a.author)
        return [
            WriteSpool([b.raw]),
            Alert("seat %d equivocated: two different events with sequence number %d (proof saved)" % (seat, a.seq)),
            Broadcast(encode(["proof", a.raw, b.raw])),
        ]

    def _on_vote(self, peer, phase, prev, seats, voter, sig) -> list:
        if not (isinstance(phase, int) and isinstance(prev, bytes) and isinstance(seats, list) and isinstance(voter, int) and isinstance(sig, bytes)):
            raise ProtocolError("bad vote fields")
        if not (0 <= voter < len(self.keys)) or not seats or seats != sorted(set(seats)) or voter in seats:
            raise ProtocolError("bad vote seats")
        if not all(isinstance(s, int) and 0 <= s < len(self.keys) for s in seats):
            raise ProtocolError("bad vote seats")
        key = (phase, prev, tuple(seats))
        if voter in self.voter.votes.get(key, {}):
            return []
        if not verify_sig(self.keys[voter], vote_sign_msg(self.genesis.game_id, phase, prev, seats), sig):
            return [Disconnect(peer, "bad vote signature")] if peer else []
        if not self._vote_step_exists(phase, prev):
            start = self.table.starts.get(phase)
            if start is not None and start[1] == prev:
                # an old step of our branch: not kept for a certificate, but the show gate counts it
                self.gate.vote(phase, prev, tuple(seats), voter)
            self._refuse("VOTES_AHEAD", self._who(peer), "ignored a vote of seat %d for phase %d from %s: no such step here (our phase is %d)",
                         voter, phase, self._who(peer), self.table.phase)
            return []
        self._hold_vote(key, voter, sig)
        return self._try_cert(key)

    def _acked(self) -> set:
        """The other seats whose last 'have' covers our whole log (every author's last seq in it)."""
        want = self.table.last_seq
        low, high = self.gate.base, self.table.phase
        mine = {(c.phase, c.id[:8]) for lst in self.certs.values() for c in lst}
        out = set()
        for key, r in self.remote.items():
            ack = r.get("ack")
            if ack is None or key not in self.keys or key == self.me:
                continue
            if not all(ack.get(a, -1) >= q for a, q in want.items()):
                continue
            # a seat holding a certificate we lack for a step since we last showed has not settled
            # it with us: it may roll that step back (repair brings it to us)
            if any(low <= p < high and (p, i) not in mine for p, i in r.get("ack_certs", ())):
                continue
            out.add(self.keys.index(key))
        return out

    def _show_blocked(self, st) -> bool:
        """The show gate (p2p/showing.py): may our event for showing step ``st`` go now?  If so the
        gate remembers that we showed in it; if not we wait (an acknowledgement, a vote or a
        certificate that arrives asks again, and ``tick`` at ``_show_at``)."""
        bad = self._unsettled(st)
        if bad:
            at = self._show_at(st, bad)
            if self._now < at:
                self._refuse("SHOW_GATE", "step", "our event for phase %d waits: phase %d may still be cut by a "
                             "time-out certificate (votes or acknowledgements missing)", st.phase, bad[0])
                return True
            self._refuse("SHOW_GATE", "step", "our event for phase %d goes all the same: phase %d is past its "
                         "time-out and still not known to be settled", st.phase, bad[0])
        self.gate.passed(st.phase, st.kind == "reveal")
        return False

    def _unsettled(self, st) -> list:
        steps = [(p, self.table.starts[p][1], self.table.timeouts.get(p))
                 for p in range(self.gate.base, st.phase) if p in self.table.starts]
        # a seat that said it left (§9.7) signs nothing after its note, which came after its votes
        return self.gate.unsettled(steps, self._acked() | set(self.departures.notes))

    def _show_at(self, st, phases: list) -> float:
        """When our showing event goes although ``phases`` are not known to be settled."""
        opened = self.voter.opened_at(st)
        base = self._now if opened is None else opened
        deadlines = [self.voter.deadline_of(p, self.table.starts[p][1]) for p in phases]
        if None in deadlines:
            # a step we never saw open on our clock (passed between two looks, or before a restart):
            # its time counted from our showing step's opening, an upper bound of the others' clocks
            deadlines.append(base + self.voter.step_time(st))
        return self.gate.show_at([base] + [d for d in deadlines if d is not None])

    def _scan_shown(self) -> None:
        """At start: the last step in which our seat signed an event that shows a secret (in our log,
        cut from it, or for the current step), so a restart never follows a certificate past it."""
        if self.seat is None:
            return
        st = self.table.step
        for ev in self.events[self.me].values():
            ph = ev.body.get("phase")
            if type(ph) is not int:
                continue
            start = self.table.starts.get(ph)
            if start is None or start[1] != ev.prev:
                continue
            if ph in self.table.showing:
                self.gate.passed(ph, self.table.showing[ph][1])
            elif st is not None and st.phase == ph and st.shows:
                self.gate.passed(ph, st.kind == "reveal")

    def _gated_auto(self) -> list:
        """An acknowledgement arrived: if our event for the current step waits at the show gate, try it."""
        st = self.table.step
        if st is None or not st.shows or self.seat not in st.seats or self.my_event_in_step() is not None:
            return []
        return self._auto_loop()

    def _vote_step_exists(self, phase: int, prev: bytes) -> bool:
        """A vote is kept only for a step that exists on our branch (the current one or one of
        the VOTES_BEHIND before it, with its prev) or for one of the VOTES_AHEAD next phases."""
        cur = self.table.phase
        if not TimeoutVoter.kept_for(phase, cur):
            return False
        if phase > cur:
            return True   # a step we have not reached: its prev is not known yet
        start = self.table.starts.get(phase)
        return start is not None and start[1] == prev

    def _hold_vote(self, key: tuple, voter: int, sig: bytes) -> None:
        self.gate.vote(key[0], key[1], key[2], voter)
        before = self.voter.evicted
        self.voter.hold(key, voter, sig)
        if self.voter.evicted > before:
            self._refuse("MAX_VOTES_PER_STEP_SEAT", "seat %d" % voter, "seat %d has more than %d votes for phase %d: the oldest is forgotten",
                         voter, MAX_VOTES_PER_STEP_SEAT, key[0])

    def _try_cert(self, key) -> list:
        phase, prev, seats = key
        votes = self.voter.complete(key)
        if votes is None:
            return []  # incomplete, or too few voters for that many seats (not a valid certificate)
        cert = make_timeout(self.genesis.game_id, phase, prev, seats, votes)
        if any(c.raw == cert.raw for c in self.certs.get(phase, [])):
            return []
        self._remember(cert)
        return [WriteSpool([cert.raw])] + self._after_change([Broadcast(encode(["entry", cert.raw]))])

    def _maybe_vote(self, st, now: float = 0.0) -> list:
        """Vote out the seats whose event for this step we lack (never one whose event we hold).

        A certificate needs a vote from every seat it does not time out, so a seat that
        died after its event reached us (we hold its event, it cannot vote) would block
        it for ever: if our vote has not become a certificate after another ``timeout``,
        we also name the seats from which no vote at all has come for this step."""
        if self.seat is None:
            return []
        mine_in = self.seat in st.seats and self.my_event_in_step() is not None
        missing = self.voter.choose(st, set(self._candidates(st)), now, mine_in)
        if missing is None:
            return []
        sig = self.sign(vote_sign_msg(self.genesis.game_id, st.phase, st.prev, list(missing)))
        key = (st.phase, st.prev, missing)
        self._hold_vote(key, self.seat, sig)
        out = [Broadcast(encode(["vote", st.phase, st.prev, list(missing), self.seat, sig]))]
        return out + self._try_cert(key)

    # ------------------------------------------------------------------ our own events
    def _commit(self, st, value) -> list:
        salt = self.rand(32)
        h = commitment(self.genesis.game_id, self.me, st.phase, value, salt)
        self.secrets[st.phase] = (value, salt)
        out: list = [WriteSecret(st.phase, value, salt)]
        return out + self._emit(st, "commit", {"phase": st.phase, "hash": h})

    def _emit(self, st, kind: str, body: dict) -> list:
        ev = make_event(self.sign, self.genesis.game_id, self.me, self.next_seq(), st.prev, kind, body)
        self.voter.own_sent(st.phase, st.prev, self._now)
        if self.on_sign is not None:
            self.on_sign(ev)
        self.events[self.me][ev.seq] = ev
        self._advance_have(self.me)
        for st_ in self.remote.values():
            st_.setdefault("sent", {})[self.me] = ev.seq
        if self.send_first:
            # spooled and sent as ``_persist_and_progress`` would (our own event always goes to the
            # spool, and its frame waits for the spool and secrets only, §8); placed on ``resume``
            return [WriteSpool([ev.raw]), Broadcast(encode(["entry", ev.raw]), own=True), Changed(), Resume()]
        return self._persist_and_progress([ev.raw], [Broadcast(encode(["entry", ev.raw]), own=True)], own=ev.raw)

    def resume(self) -> list:
        """After ``Resume``: place what can be placed (our own new event with it), and go on."""
        self._input()
        return self._after_change([])

    def _auto(self) -> list:
        """Moves that need no decision: seed commits, every reveal, and automatic steps."""
        st = self.table.step
        if st is None or self.seat is None or self.seat not in st.seats or self.my_event_in_step() is not None:
            return []
        if not self.may_sign():
            return []
        if st.kind == "commit" and st.purpose == "seed":
            return self._commit(st, self.rand(32))
        if st.shows and self._show_blocked(st):
            return []
        if st.kind == "reveal":
            sec = self.secrets.get(st.phase - 1)
            if sec is None:
                return [Alert("no secret for phase %d: cannot reveal (we will be timed out)" % (st.phase - 1))]
            value, salt = sec
            return self._emit(st, "reveal", {"phase": st.phase, "value": value, "salt": salt})
        if st.kind == "act" and st.purpose == "auto":
            out = self._ensure_seat_secret()
            secret = self.seat_secret
            if secret is None:
                return out + [Alert("no seat secret: cannot take part in an automatic step (we will be timed out)")]
            game, state = self.table.game, self.table.state
            try:
                action = game.check(state, self.seat, game.auto_action(state, self.seat, secret))
            except ValueError as exc:   # IllegalAction, or the deal refusing bad state bytes
                # e.g. our secret does not match the key we published (a lost secrets file)
                return out + [Alert("our automatic move for phase %d is refused by the rules: %s (we will be timed out)" % (st.phase, exc))]
            return out + self._emit(st, "act", {"phase": st.phase, "action": action})
        return []

    # ------------------------------------------------------------------ placing events in the log
    def _candidates(self, st) -> dict:
        """For each expected seat, its lowest-seq event that is valid for step ``st``.

        Cached per step: validity for a step depends only on the table at the
        step's opening, and an author's events arrive in seq order, so an event
        once checked never needs checking again in that step."""
        key = (st.phase, st.prev, self.table.count)
        if self._cand_key != key:
            self._cand_key = key
            self._cands = {}
            self._cand_checked = {}
            self._cand_seen = {}
        cands = self._cands
        seen = self._cand_seen
        for s in st.seats:
            if s in cands:
                continue
            author = self.keys[s]
            evs = self.events[author]
            # an author's events are only ever added: none new since the last look, nothing to check
            if seen.get(s) == len(evs):
                continue
            seen[s] = len(evs)
            done = self._cand_checked.get(s, -1)
            for seq in sorted(q for q in evs if q > done):
                ev = evs[seq]
                self._cand_checked[s] = seq
                if ev.prev != st.prev or ev.body["phase"] != st.phase:
                    continue
                try:
                    self.table.check_event(ev)
                except IllegalMove as exc:
                    self._note_refused(ev, st, s, exc)
                    continue
                except RuleError:
                    if ev.kind == "reveal" and st.kind == "reveal":
                        self._note_bad_reveal(ev, st, s)
                    continue
                cands[s] = ev
                break
        return dict(cands)

    def _note_bad_reveal(self, ev: Event, st, seat: int) -> None:
        """A held reveal for this step that the rules refuse: if it does not open the seat's
        commitment, say so once (it is never placed; the seat will be timed out, §6.2)."""
        want = self.table.commits.get(seat)
        if want is None or (ev.author, st.phase) in self._bad_reveals or reveal_commitment(ev, st.phase - 1) == want:
            return
        self._bad_reveals.add((ev.author, st.phase))
        self._refused_ids[ev.id] = (ev.author, st.phase)
        self._alerts.append(Alert("seat %d's reveal does not match its commitment (phase %d, sequence number %d): "
                                  "it is not placed and the seat will be timed out" % (seat, st.phase, ev.seq)))

    def _note_refused(self, ev: Event, st, seat: int, exc: IllegalMove) -> None:
        """A held, validly signed event for this step whose move the game's rules refuse: it is never
        placed (the seat will be timed out), but it stays in our spool (every event we receive is
        spooled unless it is placed, and compaction keeps what is not in the log) as evidence of its
        author's fault (§11); say so once."""
        if ev.id in self._refused_ids:
            return
        said = (ev.author, st.phase) in self._refused_ids.values()
        self._refused_ids[ev.id] = (ev.author, st.phase)
        # kept while a certificate of a step this near may still arrive (as _cert_steps)
        for k in [k for k, v in self._refused_ids.items() if v[1] < st.phase - 4 * VOTES_BEHIND - 64]:
            del self._refused_ids[k]
        if said:        # once per seat and step
            return
        self._alerts.append(Alert("seat %d signed a move the rules refuse for %s: %s; it is kept as evidence"
                                  % (seat, step_words(st.phase, st.label, "sequence number %d" % ev.seq), exc.reason)))

    # ------------------------------------------------------------------ false time-outs seen (§6.5)
    def _held_in_step(self, seat: int, phase: int, prev: bytes) -> Event | None:
        """The lowest-seq event of ``seat`` we hold (placed or not) made for step (phase, prev)."""
        author = self.keys[seat]
        found = [ev for pool in (self.events[author], self.buffer[author]) for ev in pool.values()
                 if ev.prev == prev and ev.body.get("phase") == phase]
        return min(found, key=lambda e: e.seq) if found else None

    def _cert_placed(self, cert: Timeout, label: str, limit: float | None = None) -> None:
        """A certificate closed step (cert.phase, cert.prev): remember it, and name every seat it
        timed out whose signed move for that step we hold."""
        voters = tuple(v for v, _ in cert.votes)
        self._note_left_step(cert)
        self._cert_steps[cert.phase] = (cert.prev, tuple(cert.seats), voters, label, limit)
        for ph in [p for p in self._cert_steps if p < cert.phase - 4 * VOTES_BEHIND - 64]:
            del self._cert_steps[ph]
        for s in cert.seats:
            ev = self._held_in_step(s, cert.phase, cert.prev)
            if ev is not None:
                self._cut(ev, s, cert.phase)

    def _event_arrived(self, ev: Event) -> None:
        """A newly held event for a step a certificate already closed without its author."""
        phase = ev.body.get("phase")
        known = self._cert_steps.get(phase) if type(phase) is int else None
        if known is None or known[0] != ev.prev:
            return
        seat = self.keys.index(ev.author)
        if seat in known[1]:
            self._cut(ev, seat, phase)

    def _cut(self, ev: Event, seat: int, phase: int) -> None:
        """A signed move of ``seat`` for a step a certificate voted it out of.  Evidence only if it
        fits the seat's chain (core.evidence.chain_misfit; else it was signed afterwards, and is
        named so), and in words that say only what is known: the voters did not have it when
        they voted, or voted anyway (§6.5)."""
        if (phase, seat) in self.cut_moves or (phase, seat) in self.signed_afterwards \
                or len(self.cut_moves) + len(self.signed_afterwards) >= MAX_CUT_MOVES or ev.id in self._refused_ids:
            return
        prev, _, voters, label, limit = self._cert_steps[phase]
        rec = self.table.certificates.get(phase)
        if rec is not None and rec.prev == prev:
            last, nxt = rec.last.get(seat, -1), rec.next.get(seat)
        else:       # cannot happen (the table recorded every certificate it placed); judge by the seq alone
            last, nxt = -1, None
        author = self.keys[seat]
        held = ()
        if nxt is None and ev.seq > last + 1:
            # none of the seat's events above ``last`` is in our log (``nxt`` would be its seq): every
            # one we hold there is held outside the log, signed (checked on arrival)
            held = {q for pool in (self.events[author], self.buffer[author]) for q in pool if last < q < ev.seq}
        why = chain_misfit(ev.seq, last, nxt, held)
        if why is not None:
            text = afterwards_words(seat, phase, label, why)
            self.signed_afterwards[(phase, seat)] = {"phase": phase, "seat": seat, "seq": ev.seq, "id": ev.id,
                                                     "label": label, "text": text}
            self._alerts.append(Alert(text))
            return
        after = self.voter.sent_after(phase, prev) if seat == self.seat else None
        said = cut_words(seat, phase, label, voters, ev.seq, me=self.seat,
                         sent=(after, limit) if after is not None and limit is not None else None)
        if seat == self.seat:
            text = "%s: the rules' default replaces it; your files keep it as evidence and `easel audit` lists it" % said
        elif seat in self.departures.notes and self.departures.notes[seat][0] <= phase:
            # it said it left (§9.7): the table went on without it, as it asked; no one is accused
            text = ("%s had left the table when %s closed %s without its move (sequence number %d): it counts as no move"
                    % (self._name(seat), seats_words(voters), step_words(phase, label), ev.seq))
        elif self.seat is not None and self.seat in voters:
            text = "%s; it reached us after we voted" % said
        else:
            text = "%s; we hold it" % said
        self.cut_moves[(phase, seat)] = {"phase": phase, "seat": seat, "seq": ev.seq, "id": ev.id, "voters": list(voters),
                                         "label": label, "after": after, "text": text}
        self._alerts.append(Alert(text))

    def _scan_cuts(self) -> None:
        """At start: every certificate in our log, against the moves we hold (our spool keeps ours)."""
        for phase, rec in sorted(self.table.certificates.items()):
            cert = next((c for c in self.certs.get(phase, []) if c.prev == rec.prev and tuple(c.seats) == rec.seats), None)
            if cert is None:
                continue
            self._cert_placed(cert, rec.label)

    def _take_alerts(self) -> list:
        out, self._alerts = self._alerts, []
        return out

    def _best_cert(self, phase: int, prev: bytes) -> Timeout | None:
        good = [c for c in self.certs.get(phase, []) if c.prev == prev]
        if not good:
            return None
        return min(good, key=lambda c: (len(c.seats), c.seats))

    def _rollback_if_needed(self) -> list:
        """A certificate for a step we closed differently wins: cut the log back to that step."""
        for phase in sorted(self.certs):
            if phase >= self.table.phase:
                continue
            start = self.table.starts.get(phase)
            if start is None:
                continue
            count, prev = start
            best = self._best_cert(phase, prev)
            if best is None:
                continue
            used = self.table.timeouts.get(phase)
            if used is not None and (len(used), used) <= (len(best.seats), best.seats):
                continue
            if not self.gate.follows(phase, tuple(best.seats)):
                # bind before show (§6.5): following it would put a secret we showed back in play
                if self.gate.refuse(phase, best.id):
                    self._alerts.append(Alert(self._unfollowed_text(phase, best)))
                continue
            log.warning("time-out certificate for phase %d wins: rolling back to entry %d", phase, count)
            # The cut entries were on disk and may have been sent (our own events
            # among them): keep them in the spool, written before the log is cut,
            # so a restart never forgets an event we signed (and never reuses its seq).
            cut = self.log_entries[count:]
            self.log_entries = self.log_entries[:count]
            self.table = self._replay(self.log_entries)
            return [WriteSpool(cut), TruncateLog(count), Alert("a time-out certificate for phase %d replaced our close of it" % phase)]
        return []

    def _unfollowed_text(self, phase: int, cert: Timeout) -> str:
        voters = [v for v, _ in cert.votes]
        return ("%s signed a time-out certificate for phase %d, which our log closed before we showed a "
                "secret in phase %d: following it would put what we showed back in play, so we keep our "
                "log; if the others follow it, this table has forked for us (the certificate is kept as "
                "evidence)" % (seats_words(voters), phase, self.gate.shown))

    @property
    def forked(self) -> dict:
        """Certificates we did not follow (phase -> certificate id), because we had shown a secret."""
        return dict(self.gate.refused)

    def _progress(self) -> list[bytes]:
        placed: list[bytes] = []
        while self.table.step is not None:
            st = self.table.step
            batch = self.table.assemble(self._candidates(st), self._best_cert(st.phase, st.prev))
            if batch is None:
                break
            try:
                for ent in batch:
                    self.table.append(ent)
            except RuleError as exc:  # cannot happen for checked candidates; never crash on it
                log.error("could not place a batch: %s", exc)
                self.table = self._replay(self.log_entries + placed)  # undo the half-applied batch
                break
            placed.extend(ent.raw for ent in batch)
            if isinstance(batch[-1], Timeout):
                self._cert_placed(batch[-1], st.label, self.voter.step_time(st))
        self.log_entries.extend(placed)
        return placed

    def _persist_and_progress(self, new_raw: list, sends: list, own: bytes | None = None) -> list:
        """Place what can be placed; persist new events (log if placed, else spool); then send.
        ``own``: our own new event, kept in the spool even when placed, so that sending it
        waits for the spool's fsync and never for the log's (§8; the spool is compacted at start)."""
        out: list = []
        before = len(self.log_entries)
        placed = self._progress()
        placed_set = set(placed)
        spool = [r for r in new_raw if r not in placed_set or r == own]
        if spool:
            out.append(WriteSpool(spool))
        if placed:
            out.append(WriteLog(placed))
        out += sends
        out += self._prompt_have(placed)   # after our own event: its frame waits for no log fsync (§8)
        if len(self.log_entries) != before:
            out.append(Changed())
        out += self._take_alerts()
        out += self._auto_loop()
        return out

    def _prompt_have(self, placed: list) -> list:
        """Right after placing the batch that opens a step showing a secret: our 'have' at once, as
        the acknowledgement the seats that show wait for (the show gate), not HAVE_GAP later."""
        st = self.table.step
        if not placed or st is None or not st.shows:
            return []
        self._have_at, self._have_sig = self._now, self._have_signature()
        return [Broadcast(msg_have(self.have_vector(), self.cert_phases()))]

    def _after_change(self, sends: list) -> list:
        out = self._rollback_if_needed()
        placed = self._progress()
        if placed:
            out.append(WriteLog(placed))
        out += sends
        out += self._prompt_have(placed)   # after our own event: its frame waits for no log fsync (§8)
        if placed or out:
            out.append(Changed())
        return out + self._take_alerts() + self._auto_loop()

    def _auto_loop(self) -> list:
        out: list = []
        for _ in range(8):
            more = self._auto()
            if not more:
                break
            out += more
        return out

    # ------------------------------------------------------------------ leaving is a signed word (§9.7, p2p/leaving.py)
    def _name(self, seat: int) -> str:
        names = getattr(self, "_names", None)
        if names is None:
            names = self._names = seat_names(self.genesis.doc)
        return names[seat]

    def left_seats(self) -> dict:
        """seat -> the phase of its note, for every seat that said it left and is not back (§9.7)."""
        return self.departures.left()

    def leave(self) -> list:
        """We quit in the middle of the game: sign a ``leaving`` note and send it to every connected
        seat.  From now on we sign nothing and answer nothing but the copies of our note each seat
        sends back (``told``); the shell waits for them, at most ``LEAVE_FLUSH``, then exits."""
        self._input()
        if self.seat is None or self.departures.gone or self.table.over:
            return []
        nonce = self.rand(NONCE_BYTES)
        if not isinstance(nonce, bytes) or len(nonce) != NONCE_BYTES:
            raise ValueError("rand(%d) must give %d bytes" % (NONCE_BYTES, NONCE_BYTES))
        # the step our log is at (or that of our newest event, if a roll-back took our log back before it:
        # a note older than a seat's newest event would be stale)
        phase = max(self.table.phase, self._newest_phase(self.seat))
        msg = make_note(self.sign, self.genesis.game_id, self.seat, self.me, phase, nonce)
        self.departures.leave(msg, nonce)
        return [Broadcast(msg)]

    def told(self) -> bool:
        """Every seat connected to us sent our leaving note back: it holds it."""
        return all(p in self.departures.acks for p in self.remote)

    def _held_if_left(self, st) -> set:
        """The expected seats whose event we hold, when it matters: only while some seat left."""
        return set(self._candidates(st)) if self.voter.left else set()

    def _newest_phase(self, seat: int) -> int:
        """The phase of the newest event we hold of ``seat`` (-1 if none)."""
        k = self.keys[seat]
        ev = self.events[k].get(self.have[k])
        ph = ev.body.get("phase") if ev is not None and isinstance(ev.body, dict) else None
        return ph if type(ph) is int else -1

    def left_words(self, seat: int) -> str:
        name = self._name(seat)
        return "%s left the table: their turns pass at once (the empty move) until they come back (easel resume)" % name

    def _back_words(self, seat: int) -> str:
        return "%s is back at the table" % self._name(seat)

    def _feed_left(self) -> None:
        """Seats whose newer events we now hold are back; the voter learns who is gone by their word."""
        d = self.departures
        if d.notes:
            for s in d.stale(self._newest_phase):
                self._alerts.append(Alert(self._back_words(s)))
        self.voter.left = frozenset(d.notes)

    def _notes_for(self, peer: bytes) -> list:
        """The notes we hold, for a seat that just connected (it may have missed them)."""
        return [Send(peer, note[2]) for s, note in sorted(self.departures.notes.items()) if self.keys[s] != peer]

    def _seat_back(self, peer: bytes) -> list:
        """A hello from a seat that said it left: it is back (only a running peer of its key sends one)."""
        if peer not in self.keys or not self.departures.back(self.keys.index(peer)):
            return []
        self._feed_left()
        return [Alert(self._back_words(self.keys.index(peer))), Changed()]

    def _on_leaving(self, peer: bytes | None, msg: list) -> list:
        seat, phase, nonce, sig = parse_note(msg, len(self.keys))
        d = self.departures
        if d.gone:
            return [Changed()] if d.ack(peer, seat, nonce) else []
        if seat == self.seat or d.seen(seat, nonce):
            return []
        if not d.verify(self.keys[seat], self.genesis.game_id, phase, nonce, sig):
            self._refuse("LEAVING", self._who(peer), "refused a leaving note of seat %d from %s: its signature does not verify",
                         seat, self._who(peer))
            return [Disconnect(peer, "bad leaving note signature")] if peer else []
        author = self.keys[seat]
        raw = encode(["leaving", seat, phase, nonce, sig])
        if not d.take(seat, phase, nonce, raw, newest_phase=self._newest_phase(seat), direct=peer == author,
                      author_connected=author in self.remote):
            return []
        self._feed_left()
        return [Broadcast(raw), Alert(self.left_words(seat)), Changed()]

    def _note_left_step(self, cert: Timeout) -> None:
        """A certificate closed a step: remember which of its seats had said they left (a leave, not a
        move made too late: the screens say so)."""
        notes = self.departures.notes
        gone = tuple(s for s in cert.seats if s in notes and notes[s][0] <= cert.phase)
        if gone:
            self.left_steps[cert.phase] = gone
        else:
            self.left_steps.pop(cert.phase, None)
