"""Time-out votes on the wire (protocol.md §6.5, §9.5), as a sans-IO part of ``Peer``.

``TimeoutVoter`` (p2p/timeouts.py) decides when to vote and whom, and keeps the votes and
the certificate they make; ``ShowGate`` (p2p/showing.py) counts every vote seen for the
steps before a showing one.  This part is the vote *messages* between them and the wire:

* a ``vote`` that arrives: nothing if we hold it already; its signature checked against
  its voter's key (a bad one: the connection that sent it is dropped); kept only for a step
  of our branch in the voter's window (``TimeoutVoter.keeps``, refused as ``VOTES_AHEAD``
  otherwise; a vote for an older step of our branch is still counted by the show gate);
* a vote kept (ours or received): counted by the show gate, held by the voter (the oldest of
  a seat's votes for a phase forgotten past ``MAX_VOTES_PER_STEP_SEAT``), and the certificate
  it completes, if any;
* our own vote: the seats ``TimeoutVoter.choose`` names, signed, kept as any vote;
* the votes a peer that just connected is given, and the ones re-sent for the open step.

Its state is the voter and the gate it tells (it keeps no vote of its own) and what it signs
with; ``Peer`` places the certificate it answers.  Refusals are reported through
``refuse(limit, who, format, *args)``.
"""

from __future__ import annotations

from typing import Any, Callable

from core.events import verify_sig, vote_sign_msg

from .messages import Vote
from .timeouts import MAX_VOTES_PER_STEP_SEAT


class Ballots:
    """The votes one peer receives, signs and sends (held by its ``TimeoutVoter``, counted by its ``ShowGate``)."""

    def __init__(self, keys: list, seat: int | None, game_id: bytes, sign: Callable[[bytes], bytes], voter, gate) -> None:
        self.keys = keys
        self.seat = seat
        self.game_id = game_id
        self.sign = sign
        self.voter = voter
        self.gate = gate

    def heard(self, v: Vote, table, who: str, refuse: Callable) -> tuple[bool, Any]:
        """A ``vote`` from a peer (``who``, for the log), our log at ``table``: (False, None) if its
        signature does not verify (drop the peer), else (True, the certificate it completes or None)."""
        key = (v.phase, v.prev, v.seats)
        if self.voter.has(key, v.voter):
            return True, None
        if not verify_sig(self.keys[v.voter], vote_sign_msg(self.game_id, v.phase, v.prev, v.seats), v.sig):
            return False, None
        if not self.voter.keeps(v.phase, v.prev, table.phase, table.starts):
            start = table.starts.get(v.phase)
            if start is not None and start[1] == v.prev:
                # an old step of our branch: not kept for a certificate, but the show gate counts it
                self.gate.vote(v.phase, v.prev, v.seats, v.voter)
            refuse("VOTES_AHEAD", who, "ignored a vote of seat %d for phase %d from %s: no such step here (our phase is %d)",
                   v.voter, v.phase, who, table.phase)
            return True, None
        return True, self.hold(key, v.voter, v.sig, refuse)

    def hold(self, key: tuple, voter: int, sig: bytes, refuse: Callable) -> Any:
        """Keep a verified vote (the show gate counts it too); the certificate it completes, or None."""
        self.gate.vote(key[0], key[1], key[2], voter)
        if self.voter.hold(key, voter, sig):
            refuse("MAX_VOTES_PER_STEP_SEAT", "seat %d" % voter, "seat %d has more than %d votes for phase %d: the oldest is forgotten",
                   voter, MAX_VOTES_PER_STEP_SEAT, key[0])
        return self.voter.certificate(key, self.game_id)

    def cast(self, st, held: set, now: float, mine_in: bool, refuse: Callable) -> tuple[bytes, Any] | None:
        """Our vote on step ``st`` now (``TimeoutVoter.choose``: ``held``, the expected seats whose event we
        hold; ``mine_in``, we hold ours): None, or (the ``vote`` message, the certificate it completes or None)."""
        missing = self.voter.choose(st, held, now, mine_in)
        if missing is None:
            return None
        sig = self.sign(vote_sign_msg(self.game_id, st.phase, st.prev, list(missing)))
        cert = self.hold((st.phase, st.prev, missing), self.seat, sig, refuse)
        return Vote(st.phase, st.prev, missing, self.seat, sig).encode(), cert

    def every_vote(self) -> list[bytes]:
        """The ``vote`` messages of every vote held, in order (for a peer that just connected)."""
        return [Vote(ph, prev, seats, voter, sig).encode() for (ph, prev, seats), voter, sig in self.voter.every_vote()]

    def resends(self, st, now: float) -> list[bytes]:
        """The ``vote`` messages held for the open step ``st`` when it is time to send them again, else []."""
        return [Vote(st.phase, st.prev, seats, voter, sig).encode() for seats, voter, sig in self.voter.resends(st, now)]
