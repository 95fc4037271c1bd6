"""Bind before show (protocol.md §6.5, "Shown secrets"), as a sans-IO part of ``Peer``.

Some events show a secret of their author: a sealed move's reveal, and the automatic steps a
game marks with ``Turn.shows`` (Modern Art: a card's opening, the decryption shares of a deal,
the disclosure of the seat secrets).  The rules bind the choice such an event shows in an
earlier step (the commitment of a sealed move; the position of a played card), so cutting the
showing step itself with a time-out certificate cannot give the secret back: the sealed move
becomes the empty move, the opened card is discarded face down, the deal is abandoned.

What is left is the roll-back of §6.6 ("certificates win"): a certificate for a step *before*
the one that showed the secret would put the choice back in play after everyone saw what it
was (the card back in the hand, the sealed auction run again).  A coalition of every seat but
one can always sign such a certificate.  So this part keeps two rules, and nothing else:

1. **Never follow a certificate past a shown secret.**  Once our seat has signed an event that
   shows a secret for step ``s``, we never roll back to a step before ``s`` (``follows``; one
   exception, a sealed move's own commit step re-placed by a certificate we signed ourselves,
   re-opens no choice and is followed).  Such a certificate is kept (the spool holds it, as
   every certificate) and named; our log keeps the step as it closed.  The table has forked: the
   game ends ``forked`` for every seat, with the proof (p2p/forks.py, protocol.md §6.5 rule 3);
   nothing we showed goes back into play, whatever the others sign, and nobody waits for ever.

2. **Show only once the steps before are settled** (``may_show``), so that honest peers never
   fork over rule 1: a certificate for an earlier step can only still form from honest votes if
   every seat outside its ``T`` voted for it.  A seat whose ``have`` covering our whole log has
   arrived on its connection has sent us, before that ``have``, every vote it cast for those
   steps (an honest peer votes only for its current step, and a connection delivers in order;
   a peer also re-sends the votes it holds when a connection opens, before its ``have``).  So
   with ``C`` = our seat and the seats that acknowledged our log, a certificate ``T`` for step
   ``p`` is still possible only if ``2·|T| ≤ n`` and every seat of ``C`` outside ``T`` voted
   ``T`` for ``p``: either ``T ⊇ C`` (needs ``2·|C| ≤ n``), or ``T`` is one of the votes held.
   We show when no step since we last showed has such a ``T`` (one no better than how the step
   closed in our log changes nothing and is ignored) — or once every step that is not known to be
   settled is past the slowest seat's time-out for it by SHOW_MARGIN (``show_at``; the time-out rule's,
   p2p/timeouts.py ``show_after``): honest peers vote only at a step's
   time, and re-send their votes every second while it is open, so by then an honest certificate
   has formed and reached us, or is very unlikely to.  A seat that is gone (dead, or cut off) never
   acknowledges and votes are not kept across a crash, so waiting for ever would stall a table
   whose every seat waits; the rare honest race left is rule 1's business (we keep our log),
   never a secret's.

A game whose steps show nothing (the Painting Game's seed steps, Starving Artists) never meets
this part.  Everything else about time-outs lives in ``p2p/timeouts.py``.
"""

from __future__ import annotations

from typing import Callable, Iterable

from .timeouts import SHOW_MARGIN   # noqa: F401 (the time-out rule's: p2p/timeouts.py ``show_after``)

MAX_VOTE_KEYS = 4      # vote keys (T) remembered per (phase, voter), as TimeoutVoter keeps
KEEP_PHASES = 64       # steps below the newest we remember votes for (older ones cannot matter here)


class ShowGate:
    """When our seat may show a secret, and which certificates it must never follow."""

    def __init__(self, n: int, seat: int | None) -> None:
        self.n = n
        self.seat = seat
        self.shown_auto = -1                 # highest phase of a game's showing step we signed an event for
        self.shown_reveal = -1               # highest phase of a sealed move's reveal we signed
        self.base = 0                        # steps below were settled when we last showed
        self.votes: dict[tuple, dict] = {}   # (phase, prev) -> {T: set of voters}
        self._per_voter: dict[tuple, list] = {}   # (phase, voter) -> vote keys, oldest first
        self.refused: dict[int, bytes] = {}  # phase -> id of the certificate we did not follow

    @property
    def shown(self) -> int:
        return max(self.shown_auto, self.shown_reveal)

    # ------------------------------------------------------------------ rule 1
    def signed(self, phase: int, reveal: bool) -> None:
        """We signed an event for a showing step of phase ``phase`` (``reveal``: a sealed move's)."""
        if reveal:
            self.shown_reveal = max(self.shown_reveal, phase)
        else:
            self.shown_auto = max(self.shown_auto, phase)

    def follows(self, phase: int, seats: tuple) -> bool:
        """May a certificate for step ``phase`` timing out ``seats`` roll our log back?

        Not to a step before one in which we showed a secret: the choice it showed would be in
        play again.  One exception keeps honest peers together: a sealed move is bound by its
        commit step, the step just before its reveal; a certificate for that commit step that
        does not time us out carries our own vote (every seat outside ``T`` signs it), so every
        commitment it keeps reached us before we left that step, i.e. before our reveal: it
        re-opens no choice, ours or another's, and we follow it."""
        if phase < self.shown_auto or phase < self.shown_reveal - 1:
            return False
        if phase == self.shown_reveal - 1 and self.seat in seats:
            return False
        return True

    def refuse(self, phase: int, cert_id: bytes) -> bool:
        """Remember a certificate we do not follow; True the first time (to name it once)."""
        if phase in self.refused:
            return False
        self.refused[phase] = cert_id
        return True

    # ------------------------------------------------------------------ votes seen
    def vote(self, phase: int, prev: bytes, seats: tuple, voter: int) -> None:
        """A verified vote (ours or received) for step (phase, prev) naming ``seats``."""
        if phase < self.base:
            return
        order = self._per_voter.setdefault((phase, voter), [])
        key = (prev, tuple(seats))
        if key in order:
            return
        while len(order) >= MAX_VOTE_KEYS:
            old_prev, old_t = order.pop(0)
            vs = self.votes.get((phase, old_prev), {})
            if old_t in vs:
                vs[old_t].discard(voter)
        order.append(key)
        self.votes.setdefault((phase, prev), {}).setdefault(tuple(seats), set()).add(voter)
        newest = max(p for p, _ in self.votes)
        for k in [k for k in self.votes if k[0] < newest - KEEP_PHASES]:
            del self.votes[k]
        for k in [k for k in self._per_voter if k[0] < newest - KEEP_PHASES]:
            del self._per_voter[k]

    # ------------------------------------------------------------------ rule 2
    @staticmethod
    def show_at(deadlines: Iterable[float]) -> float:
        """When a showing event goes although the steps before it are not known to be settled: the latest
        of the times the time-out rule gives them (p2p/timeouts.py ``show_after``: SHOW_MARGIN past the
        slowest seat's time, on our clock)."""
        return max(deadlines)

    def unsettled(self, steps: Iterable[tuple], acked: set) -> list:
        """The steps that a certificate may still roll back ([] when every one is settled).

        ``steps``: (phase, prev, closed_by) for every closed step from ``base`` on, ``closed_by``
        the seats the certificate that closed it timed out (None: closed by events).  ``acked``:
        the other seats whose ``have`` covers our whole log."""
        if self.seat is None:
            return []
        certain = set(acked) | {self.seat}
        out = []
        for phase, prev, closed_by in steps:
            if 2 * len(certain) <= self.n:
                out.append(phase)            # a certificate naming every seat we know of could form
                continue
            for t, voters in self.votes.get((phase, prev), {}).items():
                if not t or 2 * len(t) > self.n:
                    continue
                if closed_by is not None and (len(t), t) >= (len(closed_by), tuple(closed_by)):
                    continue                 # no better than how it closed: it would change nothing
                if all(s in voters for s in certain if s not in t):
                    out.append(phase)
                    break
        return out

    def due(self, st, table, acked: set, clock, now: float) -> tuple[list, float | None]:
        """Before our event for showing step ``st`` goes: (the steps that are not known to be settled,
        ``unsettled``; when it goes all the same, ``show_at``: SHOW_MARGIN after their time-outs on our
        clock).  ``table``: our table; ``acked``: as for ``unsettled``; ``clock``: the time-out policy
        (p2p/timeouts.py: when a step opened here, when it was due, its time)."""
        steps = [(p, table.starts[p][1], table.timeouts.get(p)) for p in self.window(st.phase) if p in table.starts]
        bad = self.unsettled(steps, acked)
        if not bad:
            return bad, None
        opened = clock.opened_at(st)
        base = now if opened is None else opened
        deadlines = [clock.show_after(p, table.starts[p][1]) for p in bad]
        if None in deadlines:
            # a step we never saw open on our clock (passed between two looks, or before a restart):
            # its time counted from our showing step's opening, an upper bound of the others' clocks
            deadlines.append(base + clock.slowest(st) + SHOW_MARGIN)
        return bad, self.show_at([base] + [d for d in deadlines if d is not None])

    def blocks(self, st, bad: list, at: float | None, now: float, refuse: Callable) -> bool:
        """Must our event for showing step ``st`` wait at ``now`` (``bad``, ``at``: as ``due`` said)?  If
        not, we show in it from now on (``passed``).  ``refuse(limit, who, format, *args)`` says why."""
        if bad:
            if now < at:
                refuse("SHOW_GATE", "step", "our event for phase %d waits: phase %d may still be cut by a "
                       "time-out certificate (votes or acknowledgements missing)", st.phase, bad[0])
                return True
            refuse("SHOW_GATE", "step", "our event for phase %d goes all the same: phase %d is past its "
                   "time-out and still not known to be settled", st.phase, bad[0])
        self.passed(st.phase, st.kind == "reveal")
        return False

    def window(self, phase: int) -> range:
        """The steps from the one we last showed in up to (not including) ``phase``: those ``unsettled``
        looks at (and an acknowledgement naming a certificate we lack for one of them does not count)."""
        return range(self.base, phase)

    def scan(self, table, mine: list) -> None:
        """At start: the last step in which our seat signed an event that shows a secret (in our log,
        cut from it, or for the current step), so a restart never follows a certificate past it.
        ``table``: our table (core/table.py); ``mine``: every event of ours we hold."""
        if self.seat is None:
            return
        st = table.step
        for ev in mine:
            ph = ev.body.get("phase")
            if type(ph) is not int or getattr(ev, "kind", None) == "say":     # a talk line shows nothing
                continue
            start = table.starts.get(ph)
            if start is None or start[1] != ev.prev:
                continue
            if ph in table.showing:
                self.passed(ph, table.showing[ph][1])
            elif st is not None and st.phase == ph and st.shows:
                self.passed(ph, st.kind == "reveal")

    def forked(self) -> dict:
        """The certificates we did not follow (phase -> certificate id), because we had shown a secret."""
        return dict(self.refused)

    def passed(self, phase: int, reveal: bool) -> None:
        """We show in step ``phase``: every step before it was settled (or waited for long enough)."""
        self.signed(phase, reveal)
        if phase > self.base:
            self.base = phase
            for k in [k for k in self.votes if k[0] < phase]:
                del self.votes[k]
            for k in [k for k in self._per_voter if k[0] < phase]:
                del self._per_voter[k]
