"""The peer protocol of a sealed table, as a pure state machine (sans-IO).

``Peer`` is fed connections, messages, local decisions and clock ticks and
returns a list of effects for the shell (p2p/node.py) to carry out *in
order*: every ``WriteSpool``/``WriteLog``/``WriteSecret`` comes before the
``Send``/``Broadcast`` that depends on it, so nothing is sent or acknowledged
before it is on disk.  Randomness (salts, seed contributions) is injected as
``rand(n) -> bytes``; time only enters as ``now`` in ``tick``.

Messages (canonical msgpack arrays, one per frame):

    ["hello", 1, game_id, have, certs]   first message on every connection
    ["have", have, certs]                what we hold (on disk): ack and repair
    ["entry", raw]                       an event or a time-out certificate
    ["vote", phase, prev, seats, voter, sig]
    ["proof", raw_a, raw_b]              equivocation proof

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
    verify_sig,
    vote_sign_msg,
)
from core.table import RuleError, Table

log = logging.getLogger("easel.protocol")

PROTOCOL = 1
MAX_BUFFERED_PER_AUTHOR = 64
MAX_SEND_PER_HAVE = 512
REPAIR_AFTER = 2  # consecutive stale 'have' reports before we resend


# --------------------------------------------------------------------------- effects
@dataclass
class Send:
    to: bytes
    msg: bytes


@dataclass
class Broadcast:
    msg: bytes


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
    ) -> None:
        """``games``: the game registry the table replays with (core.games.Registry or the
        module core.games).  Every caller should pass it; None (kept only for callers not
        updated yet) means the default registry, core.games."""
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
        self.votes: dict[tuple, dict[int, bytes]] = {}
        self.my_votes: dict[int, tuple] = {}
        self.vote_clock: dict[tuple, float] = {}   # (phase, prev) -> when we first voted there
        self.secrets: dict[int, tuple] = dict(secrets or {})
        self.remote: dict[bytes, dict] = {}
        self.equivocators: dict[bytes, tuple] = {}
        self.log_entries: list[bytes] = [genesis.raw]
        self.step_clock: tuple | None = None
        self.on_sign: Callable[[Event], None] | None = None   # measurement hook (benchmarks)
        self._cand_key: tuple | None = None
        self._cands: dict[int, Event] = {}
        self._cand_checked: dict[int, int] = {}
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

    # ------------------------------------------------------------------ helpers
    def _new_table(self) -> Table:
        return Table.start(self.genesis, self.games)

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
        return max(self.events[self.me]) + 1 if self.events.get(self.me) else 0

    def my_event_in_step(self) -> Event | None:
        st = self.table.step
        if st is None or self.seat is None:
            return None
        for ev in self.events[self.me].values():
            if ev.prev == st.prev and ev.body["phase"] == st.phase:
                return ev
        return None

    def deadline(self) -> float | None:
        """When (on the ``tick`` clock) this peer starts voting the current step's late seats
        out; None before the step was first seen by a tick.  Other peers vote on their own
        clocks, so for a player this is an estimate of the time left."""
        st = self.table.step
        if st is None or self.step_clock is None or self.step_clock[0] != (st.phase, st.prev):
            return None
        return self.step_clock[1] + self.timeout

    def waiting(self) -> tuple[int, ...]:
        """Seats whose event for the current step has not reached us yet."""
        st = self.table.step
        if st is None:
            return ()
        have = self._candidates(st)
        return tuple(s for s in st.seats if s not in have)

    def needs_decision(self) -> bool:
        """Our seat must choose a move now (a commit of a move, or an open move)."""
        st = self.table.step
        if st is None or self.seat is None or self.seat not in st.seats or st.purpose != "move":
            return False
        if st.kind == "reveal":
            return False
        return self.my_event_in_step() is None

    # ------------------------------------------------------------------ inputs
    def start(self) -> list:
        """Effects to run once the shell is up (automatic moves, placing spooled events)."""
        return self._after_change([])

    def connected(self, peer: bytes) -> list:
        self.remote[peer] = {"have": None, "certs": []}
        return [Send(peer, self.hello())]

    def disconnected(self, peer: bytes) -> list:
        self.remote.pop(peer, None)
        return []

    def act(self, action: Any) -> list:
        """Our own move for the current step (checked exactly as a peer's would be)."""
        st = self.table.step
        if not self.needs_decision():
            raise IllegalAction("it is not your turn to move")
        norm = self.table.game.check(self.table.state, self.seat, action)
        if st.kind == "commit":
            return self._commit(st, norm)
        return self._emit(st, "act", {"phase": st.phase, "action": norm})

    def receive(self, peer: bytes, data: bytes) -> list:
        try:
            msg = decode(data)
            if not isinstance(msg, list) or not msg or not isinstance(msg[0], str):
                raise ProtocolError("message is not an array starting with its type")
            return self._dispatch(peer, msg)
        except (CanonicalError, ProtocolError) as exc:
            return [Disconnect(peer, "protocol violation: %s" % exc)]
        except (ValueError, TypeError, IndexError, KeyError) as exc:
            return [Disconnect(peer, "malformed message: %s" % exc)]

    def tick(self, now: float) -> list:
        """Periodic work: time-out votes, anti-entropy."""
        out: list = []
        st = self.table.step
        if st is not None:
            ident = (st.phase, st.prev)
            if self.step_clock is None or self.step_clock[0] != ident:
                self.step_clock = (ident, now)
            elif now - self.step_clock[1] >= self.timeout:
                out += self._maybe_vote(st, now)
            # re-send current votes (they are not part of any author's chain)
            for (phase, prev, seats), vs in self.votes.items():
                if phase == st.phase and prev == st.prev:
                    for voter, sig in vs.items():
                        out.append(Broadcast(encode(["vote", phase, prev, list(seats), voter, sig])))
        out.append(Broadcast(msg_have(self.have_vector(), self.cert_phases())))
        return out

    # ------------------------------------------------------------------ dispatch
    def _dispatch(self, peer: bytes, msg: list) -> list:
        kind = msg[0]
        if kind == "hello":
            if len(msg) != 5 or type(msg[1]) is not int or msg[1] != PROTOCOL:
                raise ProtocolError("unsupported hello")
            if msg[2] != self.genesis.game_id:
                raise ProtocolError("peer is at another game")
            return self._on_have(peer, msg[3], msg[4])
        if kind == "have":
            if len(msg) != 3:
                raise ProtocolError("bad have")
            return self._on_have(peer, msg[1], msg[2])
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

    def _on_have(self, peer: bytes, have: Any, certs: Any) -> list:
        """Repair: send what the other lacks.

        Our own events are sent to a peer once (``sent``) and again only if its
        ``have`` stays behind for REPAIR_AFTER consecutive reports (lost on the way);
        other authors' events are relayed only in that case, so in the normal case
        each event crosses each link once, from its author.
        """
        if not isinstance(have, list) or not isinstance(certs, list):
            raise ProtocolError("have must be lists")
        theirs: dict[bytes, int] = {}
        forks: list = []
        for item in have:
            if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], bytes) and isinstance(item[1], int) and isinstance(item[2], bytes)):
                raise ProtocolError("bad have item")
            theirs[item[0]] = max(-1, item[1])  # anything below -1 means "none" (and bounds our loops)
            mine = self.events.get(item[0], {}).get(item[1])
            if mine is not None and item[2] and mine.id[:8] != item[2] and item[0] not in self.equivocators:
                forks.append(mine)  # they hold another event under this seq: show them ours
        st = self.remote.setdefault(peer, {})
        prev = st.get("have") or {}
        fork_sends = [Send(peer, encode(["entry", ev.raw])) for ev in forks]
        st["have"] = theirs
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
            if stale[k] >= REPAIR_AFTER:
                start = h
                stale[k] = 0
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
        theirs_c = {(c[0], c[1]) for c in certs if isinstance(c, list) and len(c) == 2 and isinstance(c[0], int) and isinstance(c[1], bytes)}
        for phase in sorted(self.certs):
            for c in self.certs[phase]:
                if (phase, c.id[:8]) not in theirs_c:
                    out.append(Send(peer, encode(["entry", c.raw])))
        return fork_sends + out

    def _on_entry(self, peer: bytes | None, raw: bytes) -> list:
        try:
            quick = parse_entry(raw, keys=self.keys, verify=False)
        except EntryError as exc:
            return [Disconnect(peer, "bad entry: %s" % exc)] if peer else [Alert("bad entry: %s" % exc)]
        if isinstance(quick, Event) and quick.author in self.events:
            known = self.events[quick.author].get(quick.seq)
            if known is not None and known.raw == quick.raw:
                return []  # a duplicate: no need to check its signature again
        try:
            ent = parse_entry(raw, keys=self.keys)
        except EntryError as exc:
            return [Disconnect(peer, "bad entry: %s" % exc)] if peer else [Alert("bad entry: %s" % exc)]
        if isinstance(ent, Genesis):
            return []
        if ent.game_id != self.genesis.game_id:
            return [Disconnect(peer, "entry of another game")] if peer else []
        if isinstance(ent, Timeout):
            if any(c.raw == ent.raw for c in self.certs.get(ent.phase, [])):
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
        if ev.seq > self.have[ev.author] + 1:
            buf = self.buffer[ev.author]
            other = buf.get(ev.seq)
            if other is not None:
                return [] if other.raw == ev.raw else self._equivocation(other, ev)
            if len(buf) < MAX_BUFFERED_PER_AUTHOR:
                buf[ev.seq] = ev
            return []
        self.events[ev.author][ev.seq] = ev
        self.have[ev.author] = ev.seq
        accepted = [ev] + self._advance_have(ev.author)
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
        if voter in self.votes.get(key, {}):
            return []
        if not verify_sig(self.keys[voter], vote_sign_msg(self.genesis.game_id, phase, prev, seats), sig):
            return [Disconnect(peer, "bad vote signature")] if peer else []
        self.votes.setdefault(key, {})[voter] = sig
        return self._try_cert(key)

    def _try_cert(self, key) -> list:
        phase, prev, seats = key
        vs = self.votes[key]
        if set(vs) != set(range(len(self.keys))) - set(seats) or len(vs) < len(seats):
            return []  # incomplete, or too few voters for that many seats (not a valid certificate)
        cert = make_timeout(self.genesis.game_id, phase, prev, seats, list(vs.items()))
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
        if self.seat in st.seats and self.my_event_in_step() is None:
            return []  # we are late ourselves: no voting others out
        cands = self._candidates(st)
        missing = tuple(s for s in st.seats if s not in cands and s != self.seat)
        first = self.vote_clock.get((st.phase, st.prev))  # when we first voted in this step
        if missing and first is not None and now - first >= self.timeout:
            voted = {v for (phase, prev, _), vs in self.votes.items() if phase == st.phase and prev == st.prev for v in vs}
            silent = {s for s in range(len(self.keys)) if s != self.seat and s not in voted}
            missing = tuple(sorted(set(missing) | silent))
        if not missing or self.my_votes.get(st.phase) == (st.prev, missing):
            return []
        if 2 * len(missing) > len(self.keys):
            return []  # a certificate needs at least as many voters as seats it times out
        self.my_votes[st.phase] = (st.prev, missing)
        self.vote_clock.setdefault((st.phase, st.prev), now)
        sig = self.sign(vote_sign_msg(self.genesis.game_id, st.phase, st.prev, list(missing)))
        key = (st.phase, st.prev, missing)
        self.votes.setdefault(key, {})[self.seat] = sig
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
        if self.on_sign is not None:
            self.on_sign(ev)
        self.events[self.me][ev.seq] = ev
        self.have[self.me] = max(self.have[self.me], ev.seq)
        for st_ in self.remote.values():
            st_.setdefault("sent", {})[self.me] = ev.seq
        return self._persist_and_progress([ev.raw], [Broadcast(encode(["entry", ev.raw]))])

    def _auto(self) -> list:
        """Moves that need no decision: seed commits and every reveal."""
        st = self.table.step
        if st is None or self.seat is None or self.seat not in st.seats or self.my_event_in_step() is not None:
            return []
        if st.kind == "commit" and st.purpose == "seed":
            return self._commit(st, self.rand(32))
        if st.kind == "reveal":
            sec = self.secrets.get(st.phase - 1)
            if sec is None:
                return [Alert("no secret for phase %d: cannot reveal (we will be timed out)" % (st.phase - 1))]
            value, salt = sec
            return self._emit(st, "reveal", {"phase": st.phase, "value": value, "salt": salt})
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
        cands = self._cands
        for s in st.seats:
            if s in cands:
                continue
            author = self.keys[s]
            evs = self.events[author]
            done = self._cand_checked.get(s, -1)
            for seq in sorted(q for q in evs if q > done):
                ev = evs[seq]
                self._cand_checked[s] = seq
                if ev.prev != st.prev or ev.body["phase"] != st.phase:
                    continue
                try:
                    self.table.check_event(ev)
                except RuleError:
                    continue
                cands[s] = ev
                break
        return dict(cands)

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
            log.warning("time-out certificate for phase %d wins: rolling back to entry %d", phase, count)
            # The cut entries were on disk and may have been sent (our own events
            # among them): keep them in the spool, written before the log is cut,
            # so a restart never forgets an event we signed (and never reuses its seq).
            cut = self.log_entries[count:]
            self.log_entries = self.log_entries[:count]
            self.table = self._replay(self.log_entries)
            return [WriteSpool(cut), TruncateLog(count), Alert("a time-out certificate for phase %d replaced our close of it" % phase)]
        return []

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
        self.log_entries.extend(placed)
        return placed

    def _persist_and_progress(self, new_raw: list, sends: list) -> list:
        """Place what can be placed; persist new events (log if placed, else spool); then send."""
        out: list = []
        before = len(self.log_entries)
        placed = self._progress()
        placed_set = set(placed)
        spool = [r for r in new_raw if r not in placed_set]
        if spool:
            out.append(WriteSpool(spool))
        if placed:
            out.append(WriteLog(placed))
        out += sends
        if len(self.log_entries) != before:
            out.append(Changed())
        out += self._auto_loop()
        return out

    def _after_change(self, sends: list) -> list:
        out = self._rollback_if_needed()
        placed = self._progress()
        if placed:
            out.append(WriteLog(placed))
        out += sends
        if placed or out:
            out.append(Changed())
        return out + self._auto_loop()

    def _auto_loop(self) -> list:
        out: list = []
        for _ in range(8):
            more = self._auto()
            if not more:
                break
            out += more
        return out
