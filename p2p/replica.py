"""What a peer holds, as a sans-IO part of ``Peer``: every author's events, the certificates, what
waits above a gap, the equivocations seen, and which held events are candidates for a step.

An author's events join ``events`` only in seq order (``have[author]`` is the highest contiguous
seq held); one above a gap waits in ``buffer`` (at most MAX_BUFFERED_PER_AUTHOR per author), and
one more than MAX_SEQ_AHEAD above the author's last seq in our log is refused: the rules cannot
need it yet (protocol.md §9.5, §13.1).  Two different events under one seq are an equivocation
(§6.4): the first stays, the pair is kept as proof.  Certificates are kept per phase, at most
MAX_CERTS_PER_PHASE from the wire, and only for a step that exists on our branch.

Which held event is the candidate of a seat for a step (``candidates``) is decided with the
table's own check (core/table.py ``check_event``); a refused one is reported to the caller
(``refused``/``bad_reveal`` callbacks: the cut watch keeps it as evidence, p2p/cuts.py).

Nothing here does I/O or reads a clock; ``Peer`` persists and sends what these methods return.
"""

from __future__ import annotations

from typing import Callable

from core.events import EntryError, Event, Genesis, Timeout, parse_entry, verify_many
from core.table import IllegalMove, RuleError

from .limits import Refused
from .messages import Have, Hello

MAX_SEQ_AHEAD = 16            # an author's event with seq > its last seq in our log + this is refused (not stored)
MAX_BUFFERED_PER_AUTHOR = 16  # events above a gap held in memory, per author
MAX_CERTS_PER_PHASE = 4       # certificates held per phase (from the wire; more are ignored)


class Replica:
    """Events, certificates, the buffer above gaps and equivocations held by one peer."""

    def __init__(self, keys: list, me: bytes) -> None:
        self.keys = keys
        self.me = me
        self.events: dict[bytes, dict[int, Event]] = {k: {} for k in keys}
        self.have: dict[bytes, int] = {k: -1 for k in keys}
        self.buffer: dict[bytes, dict[int, Event]] = {k: {} for k in keys}
        self.certs: dict[int, list[Timeout]] = {}
        self.equivocators: dict[bytes, tuple] = {}
        self._mine_key: tuple | None = None      # mine_in_step's memo: (phase, prev, events of ours held)
        self._mine_ev: Event | None = None
        self._cand_key: tuple | None = None      # candidates' memo, per step and log length
        self._cands: dict[int, Event] = {}
        self._cand_checked: dict[int, int] = {}
        self._cand_seen: dict[int, int] = {}     # seat -> how many of its events the last look saw
        self._leaves: dict = {}                  # leave_of's memo: author -> (events held, its leave event)
        self._refused: Callable = lambda ev, st, seat, exc: None            # who hears of refused events
        self._bad_reveal: Callable = lambda ev, st, seat, want: None

    # ------------------------------------------------------------------ loading our files
    def remember(self, ent) -> None:
        """An entry of our log (or a certificate of our spool): held, no questions asked."""
        if isinstance(ent, Event):
            self.events.setdefault(ent.author, {})[ent.seq] = ent
        elif isinstance(ent, Timeout):
            lst = self.certs.setdefault(ent.phase, [])
            if all(c.raw != ent.raw for c in lst):
                lst.append(ent)

    def load_spool(self, spool: list) -> None:
        """After the log's entries: our spool's (events we signed or received and did not place,
        certificates), a second copy of one seq kept as an equivocation's proof."""
        spooled = []
        for raw in spool:
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
            self.remember(ent)
        for k in self.keys:
            self.advance_have(k)  # over the log's events (the buffer is still empty)
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
            self.advance_have(k)

    # ------------------------------------------------------------------ what we hold
    def advance_have(self, author: bytes) -> list:
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

    def insert(self, ev: Event) -> None:
        """An event held from now on (our own new one): at its seq, ``have`` advanced over it."""
        self.events[ev.author][ev.seq] = ev
        self.advance_have(ev.author)

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

    def hello(self, game_id: bytes) -> bytes:
        """Our ``hello`` (p2p/messages.py): what we hold, for a new connection or to ask every peer again."""
        return Hello(game_id, self.have_vector(), self.cert_phases()).encode()

    def have_msg(self) -> bytes:
        """Our ``have``: what we hold (§9.5)."""
        return Have(self.have_vector(), self.cert_phases()).encode()

    def cert_ids(self) -> set:
        """{(phase, id prefix)} of every certificate we hold."""
        return {(c.phase, c.id[:8]) for lst in self.certs.values() for c in lst}

    def signature(self) -> tuple:
        """What a 'have' of ours says, in short: it changed when this did."""
        return (tuple(self.have.values()), sum(len(v) for v in self.certs.values()))

    def seq_of(self, author: bytes) -> int:
        """The highest contiguous seq we hold of ``author`` (-1: none, or not a seat)."""
        return self.have.get(author, -1)

    def last_held(self) -> dict:
        """author -> the highest contiguous seq we hold."""
        return dict(self.have)

    def next_seq(self, last_in_log: int) -> int:
        """The seq of the next event we sign: one above every seq we hold, except that a
        hole in our own seqs (an event of ours lost with our log's torn tail, which no
        peer reported holding: a torn record was never fsynced, so never sent) is filled
        first when it is above our last seq in the log (``last_in_log``), so the others'
        ``have`` of us can pass it (a hole nobody can fill would keep every later event of
        ours waiting)."""
        held = set(self.events.get(self.me) or ()) | set(self.buffer.get(self.me) or ())
        if not held:
            return 0
        gap = self.have[self.me] + 1
        if gap not in held and gap < max(held) and gap > last_in_log:
            return gap
        return max(held) + 1

    def held_in_step(self, seat: int, phase: int, prev: bytes) -> Event | None:
        """The lowest-seq event of ``seat`` we hold (placed or not) made for step (phase, prev)."""
        author = self.keys[seat]
        found = [ev for pool in (self.events[author], self.buffer[author]) for ev in pool.values()
                 if ev.prev == prev and ev.body.get("phase") == phase and ev.kind != "say"]
        return min(found, key=lambda e: e.seq) if found else None

    def leave_of(self, seat: int) -> Event | None:
        """The lowest-seq ``leave`` event of ``seat`` we hold (placed or not), if any (§9.7: a leave is for good)."""
        author = self.keys[seat]
        evs = self.events[author]
        memo = self._leaves.get(author)
        if memo is not None and memo[0] == len(evs):       # an author's events are only ever added
            return memo[1]
        found = [ev for ev in evs.values() if ev.kind == "leave"]
        best = min(found, key=lambda e: e.seq) if found else None
        self._leaves[author] = (len(evs), best)
        return best

    def seqs_between(self, seat: int, low: int, high: int) -> set:
        """The seqs of ``seat``'s events we hold (placed, held or waiting above a gap) strictly between."""
        author = self.keys[seat]
        return {q for pool in (self.events[author], self.buffer[author]) for q in pool if low < q < high}

    def says_between(self, seat: int, low: int, high: int) -> list:
        """The ``say`` events of ``seat`` we hold contiguously with ``low < seq < high``, ascending: the talk
        lines that go in just before its answer at ``high`` (§9.11)."""
        evs = self.events[self.keys[seat]]
        if high - low > 4 * len(evs) + 1:
            found = [ev for q, ev in evs.items() if low < q < high and ev.kind == "say"]
            return sorted(found, key=lambda e: e.seq)
        return [ev for q in range(low + 1, high) if (ev := evs.get(q)) is not None and ev.kind == "say"]

    def talk(self) -> list:
        """Every ``say`` event we hold contiguously, every author, in (author seat, seq) order."""
        return [ev for k in self.keys for q, ev in sorted(self.events[k].items()) if ev.kind == "say"]

    def newest_phase(self, seat: int) -> int:
        """The phase of the newest event we hold of ``seat`` (-1 if none)."""
        k = self.keys[seat]
        ev = self.events[k].get(self.have[k])
        ph = ev.body.get("phase") if ev is not None and isinstance(ev.body, dict) else None
        return ph if type(ph) is int else -1

    def own_events(self) -> list:
        """Every event of ours we hold contiguously (placed or not)."""
        return list(self.events.get(self.me, {}).values())

    def mine_in_step(self, st) -> Event | None:
        """Our own event for step ``st`` (None: no step), if we hold one (and have a seat)."""
        if st is None or self.me not in self.events:
            return None
        mine = self.events[self.me]
        # asked after every input (our decider, the automatic moves, the vote): remembered for the step
        # and the events we hold (an author's events are only ever added), not searched for again each time
        key = (st.phase, st.prev, len(mine))
        if self._mine_key == key:
            return self._mine_ev
        found = None
        for ev in mine.values():
            if ev.prev == st.prev and ev.body["phase"] == st.phase and ev.kind != "say":
                found = ev
                break
        self._mine_key, self._mine_ev = key, found
        return found

    def fork_of(self, author: bytes, seq: int, id8: bytes) -> Event | None:
        """Our event of ``author`` at ``seq`` if another's report names a different one there (not
        for an author already known to equivocate): show them ours."""
        mine = self.events.get(author, {}).get(seq)
        if mine is not None and id8 and mine.id[:8] != id8 and author not in self.equivocators:
            return mine
        return None

    def range_of(self, author: bytes, start: int):
        """(seq, event) of ``author`` we hold, from ``start`` + 1 up to ``have``, in seq order."""
        evs = self.events[author]
        for seq in range(start + 1, self.have[author] + 1):
            ev = evs.get(seq)
            if ev is not None:
                yield seq, ev

    def cert_phase_list(self) -> list:
        """The phases we hold a certificate for, in order."""
        return sorted(self.certs)

    def all_certs(self) -> list:
        """Every certificate held, phase order."""
        return [c for phase in sorted(self.certs) for c in self.certs[phase]]

    # ------------------------------------------------------------------ arrivals
    def receive(self, raw: bytes, game_id: bytes, table, who: str) -> tuple[str | None, object, list]:
        """A raw entry from the wire (from ``who``, for the log), our log at ``table``, in one go: checked
        (``arrival``), then taken (``take_cert``/``take_event``).  Returns (what, detail, refused):
        ("bad", (why, alert)) refused (``arrival``: drop its sender); ("cert", the certificate) held
        from now on; ("event", [events]) held, with the waiting ones it let join; ("fork", (the event
        held, the one that came)) an equivocation, kept as its proof the first time (``equivocation``);
        (None, None) nothing to do.  ``refused``: the limits hit on the way (``Refused``, in order)."""
        said: list = []
        ent, why = self.arrival(raw, game_id)
        if why is not None or ent is None:
            return ("bad" if why is not None else None), why, said
        note = lambda limit, who, fmt, *args: said.append(Refused(limit, who, fmt, args))   # noqa: E731
        if isinstance(ent, Timeout):
            return ("cert" if self.take_cert(ent, table.starts, table.phase, who, note) else None), ent, said
        what, detail = self.take_event(ent, table.last_seq.get(ent.author, -1), who, note)
        if what == "fork":
            return ("fork" if self.equivocation(detail, ent) else None), (detail, ent), said
        return ("event" if what == "joined" else None), detail, said

    def arrival(self, raw: bytes, game_id: bytes) -> tuple:
        """A raw entry from the wire, parsed once, its signatures checked only if we do not hold it
        already: (the entry, None) to take; (None, None) nothing to do (held already, a genesis);
        (None, (why, alert)) refused (the sender is disconnected; ``alert``: say so if none sent it)."""
        sigs: list = []     # its signature checks wait here until we know it is not a duplicate
        try:
            ent = parse_entry(raw, keys=self.keys, pending=sigs)
        except EntryError as exc:
            return None, ("bad entry: %s" % exc, True)
        if self.holds(ent):
            return None, None  # a duplicate: no need to check its signature again
        bad = verify_many(sigs)
        if bad is not None:
            text = ("time-out: bad vote signature from seat %d" % ent.votes[bad][0]) if isinstance(ent, Timeout) \
                else "event: signature does not verify"
            return None, ("bad entry: %s" % text, True)
        if isinstance(ent, Genesis):
            return None, None
        if ent.game_id != game_id:
            return None, ("entry of another game", False)
        if isinstance(ent, Event) and ent.author not in self.events:
            return None, ("event from a key that holds no seat", False)
        return ent, None

    def holds(self, ent) -> bool:
        """Do we hold these very bytes already (an event or a certificate)?"""
        if isinstance(ent, Event) and ent.author in self.events:
            known = self.events[ent.author].get(ent.seq)
            return known is not None and known.raw == ent.raw
        return isinstance(ent, Timeout) and any(c.raw == ent.raw for c in self.certs.get(ent.phase, []))

    def take_cert(self, cert: Timeout, starts: dict, phase: int, who: str, refuse: Callable) -> bool:
        """A verified certificate from the wire (from ``who``), our table at ``phase`` with steps
        ``starts``: True if kept.  A certificate held (or one with its prev and T) is ignored; one
        for a step that does not exist (yet) on our branch, or over MAX_CERTS_PER_PHASE, is refused
        (``refuse(limit, who, format, *args)``): repair sends it again once we are there (§9.6 step 4)."""
        held = self.certs.get(cert.phase, [])
        if any(c.raw == cert.raw or (c.prev == cert.prev and c.seats == cert.seats) for c in held):
            return False
        start = starts.get(cert.phase)
        if cert.phase > phase or start is None or start[1] != cert.prev:
            refuse("MAX_CERTS_PER_PHASE", who, "ignored a time-out certificate for phase %d from %s: no such step here (yet)", cert.phase, who)
            return False
        if len(held) >= MAX_CERTS_PER_PHASE:
            refuse("MAX_CERTS_PER_PHASE", who, "ignored a time-out certificate from %s: %d already held for phase %d", who, len(held), cert.phase)
            return False
        self.remember(cert)
        return True

    def add_cert(self, cert: Timeout) -> bool:
        """A certificate we formed from votes: kept unless held (True if new)."""
        if any(c.raw == cert.raw for c in self.certs.get(cert.phase, [])):
            return False
        self.remember(cert)
        return True

    def take_event(self, ev: Event, last_in_log: int, who: str, refuse: Callable) -> tuple[str | None, object]:
        """A verified event from the wire (from ``who``; ``last_in_log``: its author's last seq in our
        log): ("fork", the event held under its seq) an equivocation; ("joined", [events]) held, with
        the waiting ones it let join; (None, None) held already, kept above a gap, or refused
        (``refuse(limit, who, format, *args)``: too far ahead, or the buffer is full)."""
        seat = self.keys.index(ev.author)
        known = self.events[ev.author].get(ev.seq)
        if known is not None:
            return (None, None) if known.raw == ev.raw else ("fork", known)
        if ev.seq > last_in_log + MAX_SEQ_AHEAD:
            # the rules cannot need it yet: refused, neither kept nor acknowledged
            # (an honest peer that holds it sends it again once we have caught up)
            refuse("MAX_SEQ_AHEAD", who, "refused an event of seat %d with sequence number %d: more than %d above its last in our log (%d), from %s",
                   seat, ev.seq, MAX_SEQ_AHEAD, last_in_log, who)
            return None, None
        if ev.seq > self.have[ev.author] + 1:
            buf = self.buffer[ev.author]
            other = buf.get(ev.seq)
            if other is not None:
                return (None, None) if other.raw == ev.raw else ("fork", other)
            if len(buf) < MAX_BUFFERED_PER_AUTHOR:
                buf[ev.seq] = ev
            else:
                refuse("MAX_BUFFERED_PER_AUTHOR", who, "dropped an out-of-order event of seat %d: %d already wait for a gap", seat, len(buf))
            return None, None
        self.events[ev.author][ev.seq] = ev
        self.have[ev.author] = ev.seq
        return "joined", [ev] + self.advance_have(ev.author)

    def equivocation(self, a: Event, b: Event) -> bool:
        """Two events of one author under one seq: kept as its proof (True the first time)."""
        if a.author in self.equivocators:
            return False
        self.equivocators[a.author] = (a.raw, b.raw)
        return True

    # ------------------------------------------------------------------ candidates for a step
    def best_cert(self, phase: int, prev: bytes) -> Timeout | None:
        good = [c for c in self.certs.get(phase, []) if c.prev == prev]
        if not good:
            return None
        return min(good, key=lambda c: (len(c.seats), c.seats))

    def cert_for(self, phase: int, prev: bytes, seats: tuple) -> Timeout | None:
        """The certificate we hold for step (phase, prev) timing out ``seats``."""
        return next((c for c in self.certs.get(phase, []) if c.prev == prev and tuple(c.seats) == seats), None)

    def recheck(self) -> None:
        """Forget what ``candidates`` remembers: every held event is checked again."""
        self._cand_key = None

    def listen(self, refused: Callable, bad_reveal: Callable) -> None:
        """Who hears of a held event the rules refuse at its step, ``refused(ev, st, seat, exc)``, and of a
        reveal that does not fit, ``bad_reveal(ev, st, seat, the commitment it should open)``."""
        self._refused, self._bad_reveal = refused, bad_reveal

    def waiting(self, table) -> tuple:
        """The seats whose event for ``table``'s current step has not reached us yet."""
        st = table.step
        if st is None:
            return ()
        have = self.candidates(table, st)
        return tuple(s for s in st.seats if s not in have)

    def sealed(self, table) -> list:
        """The raw commitments we hold for ``table``'s current step if it is a commit step, seat order."""
        st = table.step
        if st is None or st.kind != "commit":
            return []
        have = self.candidates(table, st)
        return [have[s].raw for s in st.seats if s in have and have[s].kind == "commit"]   # a leave is no commitment

    def candidates(self, table, st) -> dict:
        """For each expected seat, its lowest-seq event that is valid for step ``st`` of ``table``.

        Cached per step: validity for a step depends only on the table at the
        step's opening, and an author's events arrive in seq order, so an event
        once checked never needs checking again in that step (``listen``: who hears
        of the events refused)."""
        key = (st.phase, st.prev, table.count)
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
                if ev.kind == "say":
                    continue            # a talk line is no answer: it goes in with its author's next one (§9.11)
                if ev.kind == "leave":
                    if ev.body["phase"] > st.phase:
                        continue        # a leave answers any step from its phase on that expects its author (§6.6)
                elif ev.prev != st.prev or ev.body["phase"] != st.phase:
                    continue
                try:
                    table.check_event(ev)
                except IllegalMove as exc:
                    self._refused(ev, st, s, exc)
                    continue
                except RuleError:
                    if ev.kind == "reveal" and st.kind == "reveal":
                        self._bad_reveal(ev, st, s, table.commits.get(s))
                    continue
                cands[s] = ev
                break
        return dict(cands)
