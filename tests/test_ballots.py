"""Time-out votes on the wire (p2p/ballots.py ``Ballots``): a vote that arrives is checked, kept or
refused, told to the show gate; ours is signed and kept as any; the certificate they complete."""

from __future__ import annotations

from types import SimpleNamespace

from core.events import parse_entry, vote_sign_msg
from core.table import Step
from p2p.ballots import Ballots
from p2p.messages import Vote, decode
from p2p.timeouts import MAX_VOTES_PER_STEP_SEAT, VOTES_AHEAD, VOTES_BEHIND, TimeoutVoter

from .netutil import identities

GID = b"g" * 32
PREV = b"\1" * 32
IDS = identities(4, "ballots")
KEYS = [i.public for i in IDS]
ST = Step(6, PREV, "commit", "move", (1, 2, 3), False, "x")
TABLE = SimpleNamespace(phase=6, starts={4: (10, b"\4" * 32), 5: (12, b"\5" * 32), 6: (14, PREV)})


class Gate:
    """Records what the show gate is told."""

    def __init__(self) -> None:
        self.seen: list = []

    def vote(self, phase, prev, seats, voter) -> None:
        self.seen.append((phase, prev, tuple(seats), voter))


def ballots(seat: int = 0):
    voter, gate = TimeoutVoter(4, seat, 10.0), Gate()
    return Ballots(KEYS, seat, GID, lambda m: IDS[seat].sign(m), voter, gate), voter, gate


def vote(voter: int, phase: int = 6, prev: bytes = PREV, seats: tuple = (3,), sig: bytes | None = None) -> Vote:
    sig = IDS[voter].sign(vote_sign_msg(GID, phase, prev, list(seats))) if sig is None else sig
    return Vote(phase, prev, seats, voter, sig)


def refusals():
    said: list = []
    return said, lambda limit, who, fmt, *args: said.append((limit, who, fmt % args))


def test_a_vote_is_checked_kept_told_to_the_gate_and_the_last_one_completes_the_certificate():
    b, voter, gate = ballots()
    said, refuse = refusals()
    assert b.heard(vote(1), TABLE, "seat 1", refuse) == (True, None)
    assert voter.has((6, PREV, (3,)), 1) and gate.seen == [(6, PREV, (3,), 1)]
    assert b.heard(vote(1), TABLE, "seat 1", refuse) == (True, None) and len(gate.seen) == 1   # held already
    assert b.heard(vote(0), TABLE, "seat 0", refuse) == (True, None)        # seat 2 has not voted
    ok, cert = b.heard(vote(2), TABLE, "seat 2", refuse)
    assert ok and cert.seats == (3,) and [v for v, _ in cert.votes] == [0, 1, 2]
    assert parse_entry(cert.raw, keys=KEYS).raw == cert.raw and said == []


def test_a_bad_signature_is_refused_before_anything_is_kept():
    b, voter, gate = ballots()
    _, refuse = refusals()
    assert b.heard(vote(1, sig=IDS[2].sign(vote_sign_msg(GID, 6, PREV, [3]))), TABLE, "seat 1", refuse) == (False, None)
    assert b.heard(vote(1, seats=(2,), sig=vote(1).sig), TABLE, "seat 1", refuse) == (False, None)   # signed another T
    assert voter.held() == {} and gate.seen == []


def test_a_vote_for_no_step_of_our_branch_is_refused_but_an_old_step_of_it_still_counts_at_the_gate():
    b, voter, gate = ballots()
    said, refuse = refusals()
    assert b.heard(vote(1, phase=6, prev=b"\0" * 32), TABLE, "seat 1", refuse) == (True, None)   # another branch
    assert b.heard(vote(1, phase=7 + VOTES_AHEAD, prev=b"x" * 32), TABLE, "seat 1", refuse) == (True, None)
    assert gate.seen == [] and voter.held() == {}
    old = 6 - VOTES_BEHIND - 1
    table = SimpleNamespace(phase=6, starts={**TABLE.starts, old: (8, b"\3" * 32)})
    assert b.heard(vote(1, phase=old, prev=b"\3" * 32), table, "seat 1", refuse) == (True, None)
    assert gate.seen == [(old, b"\3" * 32, (3,), 1)] and voter.held() == {}
    assert [s[0] for s in said] == ["VOTES_AHEAD"] * 3 and "no such step here" in said[0][2]


def test_too_many_votes_of_one_seat_for_a_phase_are_refused_oldest_first():
    b, voter, _ = ballots()
    said, refuse = refusals()
    for k in range(MAX_VOTES_PER_STEP_SEAT + 1):
        b.heard(vote(1, seats=(k % 4,) if k < 4 else (2, 3)), TABLE, "seat 1", refuse)
    assert [s[0] for s in said] == ["MAX_VOTES_PER_STEP_SEAT"] and not voter.has((6, PREV, (0,)), 1)


def test_our_vote_is_signed_kept_and_sent_and_may_complete_the_certificate():
    b, voter, gate = ballots(seat=0)
    _, refuse = refusals()
    voter.observe(ST, 100.0)
    assert b.cast(ST, {1, 2}, 105.0, True, refuse) is None                 # before the step's time
    b.heard(vote(1), TABLE, "seat 1", refuse)
    b.heard(vote(2), TABLE, "seat 2", refuse)
    msg, cert = b.cast(ST, {1, 2}, 110.0, True, refuse)
    ours = decode(msg, GID, 4)
    assert ours == vote(0) and gate.seen[-1] == (6, PREV, (3,), 0)
    assert cert is not None and [v for v, _ in cert.votes] == [0, 1, 2]
    assert b.cast(ST, {1, 2}, 111.0, True, refuse) is None                 # the same vote is not cast twice


def test_the_votes_held_are_given_to_a_peer_that_connects_and_re_sent_for_the_open_step():
    b, voter, _ = ballots()
    _, refuse = refusals()
    b.heard(vote(1), TABLE, "seat 1", refuse)
    b.heard(vote(2, phase=5, prev=b"\5" * 32, seats=(1,)), TABLE, "seat 2", refuse)
    assert [decode(m, GID, 4) for m in b.every_vote()] == [vote(2, phase=5, prev=b"\5" * 32, seats=(1,)), vote(1)]
    assert [decode(m, GID, 4) for m in b.resends(ST, 100.0)] == [vote(1)]
    assert b.resends(ST, 100.5) == []                                        # not yet again
