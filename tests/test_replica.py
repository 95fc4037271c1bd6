"""What a peer holds (p2p/replica.py): an author's events join in seq order, a gap waits in the
buffer, a second event under one seq is an equivocation, the limits refuse what the rules cannot
need yet, our next seq fills a hole only where the others can pass it, and the 'have' says it all."""

from __future__ import annotations

from core.events import Event, make_event, make_timeout, vote_sign_msg
from p2p.replica import MAX_BUFFERED_PER_AUTHOR, MAX_CERTS_PER_PHASE, MAX_SEQ_AHEAD, Replica

from .netutil import identities

GID = b"g" * 32
PREV = b"\0" * 32
IDS = identities(3, "replica")
KEYS = [i.public for i in IDS]


def ev(seat: int, seq: int, phase: int = 0, tag: bytes = b"h") -> Event:
    return make_event(IDS[seat].sign, GID, KEYS[seat], seq, PREV, "commit", {"phase": phase, "hash": tag * 32})


def take(r: Replica, e: Event, last: int = -1) -> tuple:
    said: list = []
    out = r.take_event(e, last, "seat 9", lambda limit, who, fmt, *args: said.append((limit, fmt % args)))
    return out, said


def test_events_join_in_seq_order_and_a_gap_waits_until_it_is_filled():
    r = Replica(KEYS, KEYS[0])
    assert take(r, ev(1, 1)) == ((None, None), [])                 # above a gap: waits
    assert r.have[KEYS[1]] == -1 and 1 in r.buffer[KEYS[1]]
    (what, joined), _ = take(r, ev(1, 0))
    assert what == "joined" and [e.seq for e in joined] == [0, 1]    # the gap filled: both join
    assert r.have[KEYS[1]] == 1 and not r.buffer[KEYS[1]]
    assert r.have_vector()[1] == [KEYS[1], 1, ev(1, 1).id[:8]] and r.have_vector()[2] == [KEYS[2], -1, b""]
    assert take(r, ev(1, 1)) == ((None, None), [])                 # the same bytes again: nothing


def test_a_second_event_under_one_seq_is_an_equivocation_kept_once():
    r = Replica(KEYS, KEYS[0])
    first, second = ev(2, 0, tag=b"a"), ev(2, 0, tag=b"b")
    take(r, first)
    (what, other), _ = take(r, second)
    assert what == "fork" and other == first
    assert r.equivocation(other, second) and not r.equivocation(other, second)
    assert r.equivocators[KEYS[2]] == (first.raw, second.raw)
    # another peer's 'have' naming the other event under that seq: an author known to equivocate is left alone
    assert r.fork_of(KEYS[2], 0, second.id[:8]) is None
    assert Replica(KEYS, KEYS[0]).fork_of(KEYS[2], 0, b"x") is None


def test_the_limits_refuse_what_the_rules_cannot_need_yet():
    r = Replica(KEYS, KEYS[0])
    out, said = take(r, ev(1, MAX_SEQ_AHEAD + 3), last=2)
    assert out == (None, None) and said[0][0] == "MAX_SEQ_AHEAD" and "from seat 9" in said[0][1]
    assert not r.buffer[KEYS[1]]
    for q in range(1, MAX_BUFFERED_PER_AUTHOR + 1):
        take(r, ev(1, q), last=100)
    out, said = take(r, ev(1, MAX_BUFFERED_PER_AUTHOR + 1), last=100)
    assert said == [("MAX_BUFFERED_PER_AUTHOR", "dropped an out-of-order event of seat 1: %d already wait for a gap"
                     % MAX_BUFFERED_PER_AUTHOR)]


def test_a_certificate_is_kept_only_for_a_step_of_our_branch_and_only_a_few_per_phase():
    r = Replica(KEYS, KEYS[0])
    said: list = []

    def refuse(limit, who, fmt, *args):
        said.append(limit)

    def cert(seats, voters):
        return make_timeout(GID, 1, PREV, seats, [(v, IDS[v].sign(vote_sign_msg(GID, 1, PREV, seats))) for v in voters])

    c = cert([2], [0, 1])
    assert not r.take_cert(c, {}, 1, "a peer", refuse) and said == ["MAX_CERTS_PER_PHASE"]     # no such step yet
    assert r.take_cert(c, {1: (5, PREV)}, 1, "a peer", refuse) and r.cert_phases() == [[1, c.id[:8]]]
    assert not r.take_cert(c, {1: (5, PREV)}, 1, "a peer", refuse) and len(said) == 1         # held: no word
    assert r.best_cert(1, PREV) == c and r.best_cert(1, b"\1" * 32) is None
    r.certs[1] += [c] * (MAX_CERTS_PER_PHASE - 1)
    assert not r.take_cert(cert([1], [0, 2]), {1: (5, PREV)}, 1, "a peer", refuse) and said[-1] == "MAX_CERTS_PER_PHASE"


def test_our_next_seq_fills_a_lost_hole_only_above_our_last_in_the_log():
    r = Replica(KEYS, KEYS[0])
    assert r.next_seq(-1) == 0
    r.insert(ev(0, 0))
    r.buffer[KEYS[0]][2] = ev(0, 2)          # seq 1 lost with a torn tail, seq 2 spooled
    assert r.next_seq(0) == 1                # above the log's last: fill it, so others can pass it
    assert r.next_seq(1) == 3                # not above it: never sign that seq again


def test_a_spool_with_a_gap_and_a_twin_loads_as_the_wire_would_have_left_it():
    r = Replica(KEYS, KEYS[0])
    r.remember(ev(1, 0))                     # the log
    r.load_spool([ev(1, 2).raw, ev(1, 0, tag=b"z").raw, b"junk"])
    assert r.have[KEYS[1]] == 0 and 2 in r.buffer[KEYS[1]]
    assert KEYS[1] in r.equivocators


def test_our_event_in_a_step_is_found_once_held():
    r = Replica(KEYS, KEYS[0])

    class St:
        phase, prev = 0, PREV

    assert r.mine_in_step(St) is None and r.mine_in_step(None) is None
    mine = ev(0, 0)
    r.insert(mine)
    assert r.mine_in_step(St) == mine
    assert Replica(KEYS, b"spectator").mine_in_step(St) is None
