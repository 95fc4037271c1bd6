"""The one home of time-out policy (protocol.md §6.5), as a sans-IO part of ``Peer``.

Everything that decides *when* a seat is voted out of a step, and *whom* a vote
names, lives here, as h11's ``ConnectionState`` holds every rule of its state
machine; ``Peer`` only feeds it the facts (the current step, the candidates it
holds, the votes that arrive, the clock) and carries out what it answers.

What a time-out *does* is decided elsewhere, and each place is named here so a
reader finds the whole policy from this file:

* the step's own time: ``Turn.time`` (core/engine.py), a pure function of the
  game state, carried as ``Step.time`` (core/table.py); ``step_time`` below
  takes ``min(table time-out, Step.time)``;
* the validity of a certificate (quorum ``|voters| >= |T|``, the voters exactly
  the seats outside ``T``): ``core/events.parse_timeout`` — the same rule
  ``quorum_ok`` states for a vote that is about to be cast;
* what a timed-out seat plays: the game's ``default_action`` (core/engine.py),
  applied by ``Table`` when it places the certificate.  A game whose secrecy
  rests on a seat's step (Modern Art's deal: keys, shuffles) ends the game as
  abandoned instead of going on without that seat (docs/deal.md, protocol.md
  §6.5 "What a false time-out gives away");
* the time left a person sees: ``deadline`` below (the shell shows it);
* a step the game cannot pass without each of its seats (``Turn.needs``, core/engine.py: a time-out
  there abandons the game): ``seat_time`` gives it NEEDED_PATIENCE table time-outs, and the
  screens name the seat waited for and how it comes back (cli/runner.py ``silence_lines``);
* the seats that said they left (a signed ``leaving`` note, protocol.md §9.7): ``Peer`` keeps
  the notes (p2p/leaving.py) and hands the seats here (``left``); a left seat's step time is 0,
  so it is voted out of every step that expects it as soon as the step is current (``due_at``,
  ``choose``), while the others keep the step's whole time; and, since it cannot vote, a vote at a
  step's time also names it (``choose``).  Its signed ``leave`` event (core/table.py) usually
  answers its steps first: then no vote names it before the step's time;
* the show gate (p2p/showing.py, protocol.md §6.5 "Shown secrets" rule 2): a seat shows a secret
  only once the steps before are settled, or, when one stays unsettled, ``show_after`` it: past
  the time at which the *slowest* seat's rule votes (``seat_time`` of every seat, ``slowest``)
  by ``SHOW_MARGIN``.  A rule that gives one seat more time than the others is a rule of
  ``seat_time`` here, and the gate waits for that seat too: a seat that showed before an honest
  certificate could still form would fork the table (§6.5 rule 3).

What ``Peer`` feeds it, and all a new rule may read: the current step (``observe``, with the
record of which seats each certificate in our log timed out, kept as ``history``), the clock, the
votes that arrive (``hold``), the seats whose event it holds (``choose``, ``due_at``) and the
seats that left (``set_left``); what ``Peer`` asks: when to vote and whom (``vote_due``,
``choose``), when it has timed work (``due_at``, ``timers``, ``resends``), which votes to keep
(``keeps``) and the certificate they make (``certificate``), the deadline a person sees
(``deadline``, ``step_time``).  So a new rule is an edit of this file (and of protocol.md §6.5):
"a seat that timed out before gets twice the step's time", tried, was five hunks here (a seat in
``step_time``, a per-seat deadline used by ``due_at``, ``timers`` and ``choose``), nothing else.

Clocks are the caller's (``now`` arguments, seconds on one monotonic clock).
Nothing here signs: ``Peer`` signs the vote ``choose`` names.
"""

from __future__ import annotations

from typing import Any

from core.events import make_timeout

MAX_VOTES_PER_STEP_SEAT = 4   # votes held per (phase, voter): a newer one evicts the oldest
VOTES_AHEAD = 2               # votes for phases above ours + this are ignored
VOTES_BEHIND = 2              # votes for phases below ours - this are ignored and forgotten
VOTE_RESEND = 1.0             # s between two re-broadcasts of the votes held for the open step
SHOW_MARGIN = 2.0             # s past the slowest seat's time of an unsettled step before a showing event goes all the same
NEEDED_PATIENCE = 3           # a step the game cannot pass without each of its seats (Turn.needs) waits this many table time-outs


def quorum_ok(n: int, seats: tuple) -> bool:
    """A certificate timing out ``seats`` of an ``n``-seat table can be valid: at least as many
    voters (the seats outside it) as seats it times out (core/events.parse_timeout, rule 5)."""
    return bool(seats) and 2 * len(seats) <= n


class TimeoutVoter:
    """Step clocks, votes held, our own votes and the escalation rule, for one peer."""

    def __init__(self, n: int, seat: int | None, timeout: float) -> None:
        self.n = n
        self.seat = seat
        self.timeout = timeout
        self.votes: dict[tuple, dict[int, bytes]] = {}     # (phase, prev, T) -> {voter: sig}
        self.mine: dict[int, tuple] = {}                   # phase -> (prev, T) we last voted
        self.first_vote: dict[tuple, float] = {}           # (phase, prev) -> when we first voted there
        self.clock: tuple | None = None                    # ((phase, prev), when the step opened here)
        self.sent: dict[tuple, float] = {}                 # (phase, prev) -> when we signed our own event
        self.opened: dict[tuple, float] = {}               # (phase, prev) -> when the step opened here
        self.times: dict[tuple, float] = {}                # (phase, prev) -> its step time (step_time)
        self.slowest_times: dict[tuple, float] = {}        # (phase, prev) -> the slowest seat's time there (slowest)
        self.resent_at: float = float("-inf")
        self._order: dict[tuple, list] = {}                # (phase, voter) -> vote keys, oldest first
        self.evicted = 0                                   # votes forgotten by MAX_VOTES_PER_STEP_SEAT
        self.left: frozenset = frozenset()                 # seats gone by their own word (Peer feeds it, §9.7)
        self.history: dict = {}                            # phase -> seats timed out, as our log says (``observe``)

    # ------------------------------------------------------------------ time
    def seat_time(self, st: Any, seat: int | None) -> float:
        """How long step ``st`` waits at ``seat``'s peer before it votes a late seat out: the table's
        time-out, or the step's own shorter time (``Step.time``); the same for every seat today.  A
        per-seat rule (one seat given longer) is an edit here: our own votes (``step_time``) and the
        show gate's patience (``slowest``) both follow it.

        A step the game cannot pass without each of its seats (``Step.needs``: Modern Art's deal keys,
        shuffles and shares, whose time-out abandons the game) waits NEEDED_PATIENCE times the table's
        time-out: a seat whose program stopped has that long to come back (``easel resume``) before
        the game ends for everyone.  (A seat that said it left, §9.7, still has a step time of 0.)"""
        if getattr(st, "needs", False):
            return self.timeout * NEEDED_PATIENCE
        t = getattr(st, "time", None)
        return self.timeout if t is None else min(self.timeout, float(t))

    def step_time(self, st: Any) -> float:
        """How long a step may wait for a seat before this peer votes it out (``seat_time`` of our seat)."""
        return self.seat_time(st, self.seat)

    def slowest(self, st: Any) -> float:
        """The longest any seat's peer waits at step ``st`` before it votes (``seat_time`` of every seat)."""
        return max(self.seat_time(st, s) for s in range(self.n))

    def show_after(self, phase: int, prev: bytes) -> float | None:
        """When a showing event goes all the same although step (phase, prev) is not known to be settled
        (the show gate, p2p/showing.py): ``SHOW_MARGIN`` past the slowest seat's time for it, counted from
        when it opened here (None if we never saw it open).  Honest votes are cast at a seat's time and
        re-sent every VOTE_RESEND, so by then an honest certificate has formed and reached us, or is very
        unlikely to."""
        ident = (phase, prev)
        if ident not in self.opened:
            return None
        return self.opened[ident] + self.slowest_times.get(ident, self.timeout) + SHOW_MARGIN

    def observe(self, st: Any, now: float, timeouts: dict | None = None) -> None:
        """The step ``st`` is current at ``now``: its clock starts the first time it is seen.
        ``timeouts``: phase -> the seats a certificate timed out, for every step our log closed so
        far (``Table.timeouts``, kept as ``history``): the record a rule may weigh (a seat's past
        time-outs...); none does today."""
        if timeouts is not None:
            self.history = timeouts
        if st is None:
            return
        ident = (st.phase, st.prev)
        if self.clock is None or self.clock[0] != ident:
            self.clock = (ident, now)
            self.opened[ident] = now
            self.times[ident] = self.step_time(st)
            self.slowest_times[ident] = self.slowest(st)
            for k in [k for k in self.opened if k[0] < st.phase - VOTES_BEHIND - 64]:
                del self.opened[k]
                self.times.pop(k, None)
                self.slowest_times.pop(k, None)

    def own_sent(self, phase: int, prev: bytes, now: float) -> None:
        """We signed our own event for step (phase, prev) at ``now`` (for the words of a false time-out)."""
        self.sent.setdefault((phase, prev), now)
        for k in [k for k in self.sent if k[0] < phase - 64]:
            del self.sent[k]

    def sent_after(self, phase: int, prev: bytes) -> float | None:
        """Seconds between a step's opening here and our own event for it (None if unknown)."""
        a, b = self.opened.get((phase, prev)), self.sent.get((phase, prev))
        return None if a is None or b is None else max(0.0, b - a)

    def deadline_of(self, phase: int, prev: bytes) -> float | None:
        """When this peer's clock said step (phase, prev) was due (opened + its time), if it saw it
        (a closed step too: the show gate waits past the deadlines of the steps before it)."""
        ident = (phase, prev)
        if ident not in self.opened:
            return None
        return self.opened[ident] + self.times.get(ident, self.timeout)

    def opened_at(self, st: Any) -> float | None:
        """When the step ``st``'s clock started here (None before it was first seen)."""
        if st is None or self.clock is None or self.clock[0] != (st.phase, st.prev):
            return None
        return self.clock[1]

    def deadline(self, st: Any) -> float | None:
        """When this peer starts voting the step's late seats out (None before its clock started)."""
        if st is None or self.clock is None or self.clock[0] != (st.phase, st.prev):
            return None
        return self.clock[1] + self.step_time(st)

    def leavers(self, st: Any, held: set) -> tuple:
        """The expected seats of ``st`` that left (``left``) and whose event we do not hold: their step
        time is 0."""
        return tuple(s for s in st.seats if s in self.left and s not in held and s != self.seat)

    def due_at(self, st: Any, held: set) -> float | None:
        """When our vote on step ``st`` is due: at once (when its clock started) if a seat it waits for
        left, else at its ``deadline`` (None before its clock started)."""
        d = self.deadline(st)
        if d is not None and self.left and self.leavers(st, held):
            return self.clock[1]
        return d

    def vote_due(self, st: Any, now: float, held: set | None = None) -> bool:
        d = self.due_at(st, held or set()) if held is not None else self.deadline(st)
        return d is not None and now >= d

    def resend_due(self, now: float) -> bool:
        if now >= self.resent_at + VOTE_RESEND:   # the very sum ``timers`` gives
            self.resent_at = now
            return True
        return False

    def resends(self, st: Any, now: float) -> list:
        """[(T, voter, sig), ...] of the votes held for the open step ``st`` when it is time to send them
        again (every VOTE_RESEND), else []."""
        held = self.held_for(st.phase, st.prev)
        return held if held and self.resend_due(now) else []

    def timers(self, st: Any) -> list:
        """When, besides ``due_at``, the voter has timed work on the open step ``st`` (None: none):
        the escalation (our first vote a step's time old) and re-sending the votes held."""
        first = self.first_vote.get((st.phase, st.prev))
        return [None if first is None else first + self.step_time(st),
                self.resent_at + VOTE_RESEND if self.held_for(st.phase, st.prev) else None]

    def set_left(self, seats) -> None:
        """The seats gone by their own word now (p2p/leaving.py): their step time is 0."""
        self.left = frozenset(seats)

    def needs_held(self) -> bool:
        """Do ``due_at``/``vote_due`` need the seats whose event we hold (only while a seat left)?"""
        return bool(self.left)

    # ------------------------------------------------------------------ whom to vote out
    def choose(self, st: Any, held: set, now: float, mine_in: bool) -> tuple | None:
        """The seats we vote out of step ``st`` now, or None.

        ``held``: the expected seats whose valid event we hold; ``mine_in``: we hold our own
        event for the step (a late seat never votes others out).  We never vote against a
        seat whose event we hold; once our first vote is a step's time old without a
        certificate, we also name every seat from which no vote at all came (escalation: a
        seat that died after its event reached us would block the step for ever)."""
        if self.seat is None:
            return None
        if self.seat in st.seats and not mine_in:
            return None
        missing = tuple(s for s in st.seats if s not in held and s != self.seat)
        d = self.deadline(st)
        if d is None or now < d:
            missing = tuple(s for s in missing if s in self.left)   # before the step's time: only who left
        first = self.first_vote.get((st.phase, st.prev))
        if first is not None and d is not None:
            first = max(first, d)       # a vote on a seat that left does not bring the escalation forward
        if missing and self.left and d is not None and now >= d:
            # a seat that left cannot vote: at the step's time, a vote on a late seat also names the seats that
            # left and cast no vote here, even when their leave answers the step (it is placed at the next
            # step that expects them), or no certificate could form before the escalation (§6.5, §9.7)
            voted = {v for (phase, prev, _), vs in self.votes.items() if phase == st.phase and prev == st.prev for v in vs}
            missing = tuple(sorted(set(missing) | {s for s in self.left if s != self.seat and s not in voted}))
        if missing and first is not None and now >= first + self.step_time(st):
            voted = {v for (phase, prev, _), vs in self.votes.items() if phase == st.phase and prev == st.prev for v in vs}
            silent = {s for s in range(self.n) if s != self.seat and s not in voted}
            missing = tuple(sorted(set(missing) | silent))
        if not missing or self.mine.get(st.phase) == (st.prev, missing):
            return None
        if not quorum_ok(self.n, missing):
            return None
        self.mine[st.phase] = (st.prev, missing)
        self.first_vote.setdefault((st.phase, st.prev), now)
        return missing

    # ------------------------------------------------------------------ votes held
    def hold(self, key: tuple, voter: int, sig: bytes) -> int:
        """Keep a verified vote.  At most MAX_VOTES_PER_STEP_SEAT keys per (phase, voter): a newer
        one evicts the oldest.  Returns how many votes it evicted (0 too if it was held already)."""
        if voter in self.votes.get(key, {}):
            return 0
        before = self.evicted
        order = self._order.setdefault((key[0], voter), [])
        while len(order) >= MAX_VOTES_PER_STEP_SEAT:
            old = order.pop(0)
            vs = self.votes.get(old)
            if vs is not None:
                vs.pop(voter, None)
                if not vs:
                    del self.votes[old]
            self.evicted += 1
        order.append(key)
        self.votes.setdefault(key, {})[voter] = sig
        return self.evicted - before

    def has(self, key: tuple, voter: int) -> bool:
        """Do we hold ``voter``'s vote for ``key`` (phase, prev, T)?"""
        return voter in self.votes.get(key, {})

    def held(self) -> dict:
        """Every vote held, (phase, prev, T) -> {voter: sig} (read only)."""
        return self.votes

    def every_vote(self) -> list:
        """[(key, voter, sig), ...] of every vote held, in order (for a peer that just connected)."""
        return [(key, voter, sig) for key, vs in sorted(self.votes.items()) for voter, sig in sorted(vs.items())]

    def complete(self, key: tuple) -> list | None:
        """The votes of a certificate for ``key`` if they make a valid one, else None."""
        phase, prev, seats = key
        vs = self.votes.get(key, {})
        if set(vs) != set(range(self.n)) - set(seats) or len(vs) < len(seats):
            return None
        return sorted(vs.items())

    def held_for(self, phase: int, prev: bytes) -> list:
        """[(T, voter, sig), ...] of every vote held for step (phase, prev)."""
        return [(seats, voter, sig) for (p, pv, seats), vs in self.votes.items() if p == phase and pv == prev
                for voter, sig in vs.items()]

    def keeps(self, phase: int, prev: bytes, cur: int, starts: dict) -> bool:
        """Is a vote for step (phase, prev) kept, our table at phase ``cur`` with steps ``starts``
        (phase -> (count, prev))?  Only for a step that exists on our branch (the current one or
        one of the VOTES_BEHIND before it, with its prev) or for one of the VOTES_AHEAD next phases."""
        if not self.kept_for(phase, cur):
            return False
        if phase > cur:
            return True   # a step we have not reached: its prev is not known yet
        start = starts.get(phase)
        return start is not None and start[1] == prev

    def certificate(self, key: tuple, game_id: bytes) -> Any:
        """The certificate the votes held for ``key`` (phase, prev, T) make, or None (incomplete, or
        too few voters for that many seats: not a valid one)."""
        votes = self.complete(key)
        return None if votes is None else make_timeout(game_id, key[0], key[1], key[2], votes)

    @staticmethod
    def kept_for(phase: int, cur: int) -> bool:
        """A vote for ``phase`` is kept when we are at phase ``cur`` (VOTES_AHEAD/BEHIND)."""
        return cur - VOTES_BEHIND <= phase <= cur + VOTES_AHEAD

    def prune(self, cur: int) -> None:
        """Forget votes, our vote clocks and our votes for phases more than VOTES_BEHIND below ``cur``."""
        low = cur - VOTES_BEHIND
        for key in [k for k in self.votes if k[0] < low]:
            del self.votes[key]
        for key in [k for k in self._order if k[0] < low]:
            del self._order[key]
        for key in [k for k in self.first_vote if k[0] < low]:
            del self.first_vote[key]
        for ph in [p for p in self.mine if p < low]:
            del self.mine[ph]
