"""The time-out policy's home (p2p/timeouts.py ``TimeoutVoter``), through the methods ``Peer`` asks:
when its timed work is due (the escalation, re-sending the votes), which votes it keeps, the
certificate the votes make, and the record of past time-outs a rule may weigh."""

from __future__ import annotations

from core.events import parse_entry, vote_sign_msg
from core.table import Step
from p2p.timeouts import MAX_VOTES_PER_STEP_SEAT, VOTE_RESEND, VOTES_AHEAD, VOTES_BEHIND, TimeoutVoter

from .netutil import identities

GID = b"g" * 32
PREV = b"\1" * 32
IDS = identities(4, "timeouts")
ST = Step(6, PREV, "commit", "move", (1, 2, 3), False, "x")


def test_the_escalation_and_the_resends_are_timed_from_our_first_vote_and_last_resend():
    v = TimeoutVoter(4, 0, 10.0)
    v.observe(ST, 100.0, {2: (3,)})
    assert v.history == {2: (3,)}                         # the record of our log's time-outs, for a rule to weigh
    assert v.timers(ST) == [None, None]                   # no vote yet, nothing held to re-send
    assert v.choose(ST, {1, 2}, 110.0, True) == (3,)
    v.hold((6, PREV, (3,)), 0, b"sig")
    assert v.timers(ST) == [110.0 + 10.0, float("-inf") + VOTE_RESEND]
    assert v.resends(ST, 110.0) == [((3,), 0, b"sig")] and v.timers(ST)[1] == 110.0 + VOTE_RESEND
    assert v.resends(ST, 110.5) == [] and v.resends(ST, 110.0 + VOTE_RESEND) != []


def test_votes_are_kept_for_steps_of_our_branch_only_and_a_few_per_voter():
    v = TimeoutVoter(4, 0, 10.0)
    starts = {4: (10, b"\4" * 32), 5: (12, b"\5" * 32), 6: (14, PREV)}
    assert v.keeps(6, PREV, 6, starts) and not v.keeps(6, b"\0" * 32, 6, starts)
    assert v.keeps(6 - VOTES_BEHIND, b"\4" * 32, 6, starts) and not v.keeps(6 - VOTES_BEHIND - 1, b"", 6, starts)
    assert v.keeps(6 + VOTES_AHEAD, b"any", 6, starts) and not v.keeps(7 + VOTES_AHEAD, b"any", 6, starts)
    evicted = [v.hold((6, PREV, (k,)), 1, b"s") for k in range(MAX_VOTES_PER_STEP_SEAT + 1)]
    assert evicted == [0] * MAX_VOTES_PER_STEP_SEAT + [1]
    assert not v.has((6, PREV, (0,)), 1) and v.has((6, PREV, (MAX_VOTES_PER_STEP_SEAT,)), 1)
    assert v.hold((6, PREV, (MAX_VOTES_PER_STEP_SEAT,)), 1, b"s") == 0     # held already
    assert [key for key, _, _ in v.every_vote()] == sorted(v.held())


def test_the_votes_of_every_seat_outside_t_make_a_valid_certificate():
    v = TimeoutVoter(4, 0, 10.0)
    key = (6, PREV, (3,))
    for voter in (0, 1):
        v.hold(key, voter, IDS[voter].sign(vote_sign_msg(GID, 6, PREV, [3])))
    assert v.certificate(key, GID) is None                # seat 2 has not voted
    v.hold(key, 2, IDS[2].sign(vote_sign_msg(GID, 6, PREV, [3])))
    cert = v.certificate(key, GID)
    assert cert.seats == (3,) and parse_entry(cert.raw, keys=[i.public for i in IDS]).raw == cert.raw


def test_a_seat_that_left_is_known_by_what_peer_feeds():
    v = TimeoutVoter(4, 0, 10.0)
    assert not v.needs_held()
    v.set_left({3: 5})
    assert v.needs_held() and v.left == frozenset({3})
