"""False time-outs seen, and moves the rules refuse (protocol.md §6.5 "False time-outs seen", §11),
as a sans-IO part of ``Peer``.

A certificate closes a step without the seats it times out.  If we hold a signed move of such a
seat for that step (it reached us late, or the voters voted anyway), it is evidence — but only if
it fits the seat's chain (core.evidence.chain_misfit: a move signed *after* the step closed, to
accuse the voters, does not fit, and is named so).  This part watches for both cases, when a
certificate is placed (``cert_placed``; ``scan`` at start, over our log) and when an event arrives
for a step a certificate already closed (``arrived``), and keeps, per game, at most MAX_CUT_MOVES:

* ``cut_moves``: (phase, seat) -> the fitting move, who voted and what the alert said;
* ``signed_afterwards``: (phase, seat) -> the move that does not fit its chain;
* ``left_steps``: phase -> the seats a certificate timed out after they said they left (§9.7: a
  leave, not a late move, the screens say so).

It also names, once per seat and step, a held and validly signed event the rules refuse
(``refused``: it is kept in our spool as evidence of its author's fault) and a reveal that does
not open its commitment (``bad_reveal``).  Every alert goes to ``say`` as it is found, in order.
The words are core/evidence.py's.
"""

from __future__ import annotations

from typing import Callable

from core.events import Event, Timeout, reveal_commitment
from core.evidence import afterwards_words, chain_misfit, cut_words, seats_words, step_words

from .effects import Alert
from .timeouts import VOTES_BEHIND

MAX_CUT_MOVES = 256           # signed moves cut by a certificate that we remember (and name) per game
KEEP_STEPS = 4 * VOTES_BEHIND + 64   # steps below a certificate's we remember (a certificate this near may still come)


class CutWatch:
    """Cut moves, moves signed afterwards and refused moves seen by one peer.

    ``replica`` (p2p/replica.py) says what we hold, ``departures`` (p2p/leaving.py) who said they
    left (and their names), ``voter`` (p2p/timeouts.py) when we sent our own event."""

    def __init__(self, keys: list, seat: int | None, replica, departures, voter, say: Callable[[Alert], None]) -> None:
        self.keys = keys
        self.seat = seat
        self.replica = replica
        self.departures = departures
        self.voter = voter
        self.say = say
        self.cut_moves: dict[tuple, dict] = {}
        self.signed_afterwards: dict[tuple, dict] = {}
        self.left_steps: dict[int, tuple] = {}
        self._steps: dict[int, tuple] = {}          # phase -> (prev, T, voters, label, time) of its certificate
        self._refused_ids: dict = {}                # id of a held event the rules refuse at its step -> (author, phase)
        self._bad_reveals: set = set()              # (author, phase) of reveals that do not open their commitment

    def moves_cut(self) -> dict:
        """(phase, seat) -> a signed move of that seat held here for a step a certificate voted it out of."""
        return self.cut_moves

    def moves_afterwards(self) -> dict:
        """(phase, seat) -> a move signed for such a step that does not fit its seat's chain."""
        return self.signed_afterwards

    def steps_left(self) -> dict:
        """phase -> seats a certificate timed out after they said they left (§9.7)."""
        return self.left_steps

    # ------------------------------------------------------------------ refused moves
    def bad_reveal(self, ev: Event, st, seat: int, want: bytes | None) -> None:
        """A held reveal for this step that the rules refuse: if it does not open the seat's
        commitment ``want``, say so once (it is never placed; the seat will be timed out, §6.2)."""
        if want is None or (ev.author, st.phase) in self._bad_reveals or reveal_commitment(ev, st.phase - 1) == want:
            return
        self._bad_reveals.add((ev.author, st.phase))
        self._refused_ids[ev.id] = (ev.author, st.phase)
        self.say(Alert("seat %d's reveal does not match its commitment (phase %d, sequence number %d): "
                       "it is not placed and the seat will be timed out" % (seat, st.phase, ev.seq)))

    def refused(self, ev: Event, st, seat: int, exc) -> None:
        """A held, validly signed event for this step whose move the game's rules refuse: it is never
        placed (the seat will be timed out), but it stays in our spool (every event we receive is
        spooled unless it is placed, and compaction keeps what is not in the log) as evidence of its
        author's fault (§11); say so once."""
        if ev.id in self._refused_ids:
            return
        said = (ev.author, st.phase) in self._refused_ids.values()
        self._refused_ids[ev.id] = (ev.author, st.phase)
        # kept while a certificate of a step this near may still arrive (as _steps)
        for k in [k for k, v in self._refused_ids.items() if v[1] < st.phase - KEEP_STEPS]:
            del self._refused_ids[k]
        if said:        # once per seat and step
            return
        self.say(Alert("seat %d signed a move the rules refuse for %s: %s; it is kept as evidence"
                       % (seat, step_words(st.phase, st.label, "sequence number %d" % ev.seq), exc.reason)))

    # ------------------------------------------------------------------ cut moves
    def cert_placed(self, table, cert: Timeout, label: str, limit: float | None = None) -> None:
        """A certificate closed step (cert.phase, cert.prev) (``limit``: the step's time here):
        remember it, and name every seat it timed out whose signed move for that step we hold."""
        voters = tuple(v for v, _ in cert.votes)
        gone = tuple(s for s in cert.seats if self.departures.left_by(s, cert.phase))
        if gone:
            self.left_steps[cert.phase] = gone
        else:
            self.left_steps.pop(cert.phase, None)
        self._steps[cert.phase] = (cert.prev, tuple(cert.seats), voters, label, limit)
        for ph in [p for p in self._steps if p < cert.phase - KEEP_STEPS]:
            del self._steps[ph]
        for s in cert.seats:
            ev = self.replica.held_in_step(s, cert.phase, cert.prev)
            if ev is not None:
                self._cut(table, ev, s, cert.phase)

    def scan(self, table) -> None:
        """At start: every certificate in our log, against the moves we hold (our spool keeps ours)."""
        for phase, rec in sorted(table.certificates.items()):
            cert = self.replica.cert_for(phase, rec.prev, rec.seats)
            if cert is None:
                continue
            self.cert_placed(table, cert, rec.label)

    def arrived(self, table, ev: Event) -> None:
        """A newly held event: is it for a step a certificate already closed without its author?"""
        if ev.kind in ("leave", "say"):
            return      # a leave answers any step from its phase on, a talk line none: no certificate cuts them (§6.1, §9.11)
        phase = ev.body.get("phase")
        known = self._steps.get(phase) if type(phase) is int else None
        if known is None or known[0] != ev.prev:
            return
        seat = self.keys.index(ev.author)
        if seat in known[1]:
            self._cut(table, ev, seat, phase)

    def _cut(self, table, ev: Event, seat: int, phase: int) -> None:
        """A signed move of ``seat`` for a step a certificate voted it out of.  Evidence only if it
        fits the seat's chain (core.evidence.chain_misfit; else it was signed afterwards, and is
        named so), and in words that say only what is known: the voters did not have it when
        they voted, or voted anyway (§6.5)."""
        if ev.kind in ("leave", "say"):
            return      # never a cut move: it answers the next step that expects its seat, or it is talk
        if (phase, seat) in self.cut_moves or (phase, seat) in self.signed_afterwards \
                or len(self.cut_moves) + len(self.signed_afterwards) >= MAX_CUT_MOVES or ev.id in self._refused_ids:
            return
        prev, _, voters, label, limit = self._steps[phase]
        rec = table.certificates.get(phase)
        if rec is not None and rec.prev == prev:
            last, nxt = rec.last.get(seat, -1), rec.next.get(seat)
        else:       # cannot happen (the table recorded every certificate it placed); judge by the seq alone
            last, nxt = -1, None
        held = ()
        if nxt is None and ev.seq > last + 1:
            # none of the seat's events above ``last`` is in our log (``nxt`` would be its seq): every
            # one we hold there is held outside the log, signed (checked on arrival)
            held = self.replica.seqs_between(seat, last, ev.seq)
        why = chain_misfit(ev.seq, last, nxt, held)
        if why is not None:
            text = afterwards_words(seat, phase, label, why)
            self.signed_afterwards[(phase, seat)] = {"phase": phase, "seat": seat, "seq": ev.seq, "id": ev.id,
                                                     "label": label, "text": text}
            self.say(Alert(text))
            return
        after = self.voter.sent_after(phase, prev) if seat == self.seat else None
        said = cut_words(seat, phase, label, voters, ev.seq, me=self.seat,
                         sent=(after, limit) if after is not None and limit is not None else None)
        if seat == self.seat:
            text = "%s: the rules' default replaces it; your files keep it as evidence and `easel audit` lists it" % said
        elif self.departures.left_by(seat, phase):
            # it said it left (§9.7): the table went on without it, as it asked; no one is accused
            text = ("%s had left the table when %s closed %s without its move (sequence number %d): it counts as no move"
                    % (self.departures.name(seat), seats_words(voters), step_words(phase, label), ev.seq))
        elif self.seat is not None and self.seat in voters:
            text = "%s; it reached us after we voted" % said
        else:
            text = "%s; we hold it" % said
        self.cut_moves[(phase, seat)] = {"phase": phase, "seat": seat, "seq": ev.seq, "id": ev.id, "voters": list(voters),
                                         "label": label, "after": after, "text": text}
        self.say(Alert(text))
