"""Repair and acknowledgements with each remote peer (p2p/repair.py, protocol.md §9.6): our own
events cross each link once, anything else only after REPAIR_AFTER stale reports, a hello is a
request answered at once (but not more often than WATCHDOG_AFTER), one answer sends at most
MAX_SEND_PER_HAVE events, and an acknowledgement only ever grows."""

from __future__ import annotations

from core.events import make_event, make_timeout, vote_sign_msg
from p2p.repair import MAX_SEND_PER_HAVE, REPAIR_INTERVAL, Remotes
from p2p.replica import Replica
from p2p.wakeups import WATCHDOG_AFTER

from .netutil import identities

GID = b"g" * 32
PREV = b"\0" * 32
IDS = identities(3, "repair")
KEYS = [i.public for i in IDS]
ME, THEM, OTHER = KEYS


def ev(seat: int, seq: int, tag: bytes = b"h"):
    return make_event(IDS[seat].sign, GID, KEYS[seat], seq, PREV, "commit", {"phase": 0, "hash": tag * 32})


def holding(events: dict) -> Replica:
    """Our replica, holding ``events[seat]`` events of each seat."""
    r = Replica(KEYS, ME)
    for seat, count in events.items():
        for q in range(count):
            r.insert(ev(seat, q))
    return r


def report(have: dict) -> list:
    return [[k, have.get(k, -1), b""] for k in KEYS]


def test_our_own_events_go_once_and_others_only_after_stale_reports():
    r = holding({0: 3, 2: 2})
    rem = Remotes(KEYS, ME)
    rem.connect(THEM)
    sent = rem.heard(THEM, report({}), [], False, 0.0, r)
    assert sent == [ev(0, q).raw for q in range(3)]          # ours, once: not the other author's
    # its next report still lacks them (REPAIR_AFTER identical reports, none before counting as -1):
    # everything it lacks, whoever wrote it
    again = rem.heard(THEM, report({}), [], False, 0.05, r)
    assert set(again) == {ev(0, q).raw for q in range(3)} | {ev(2, q).raw for q in range(2)}
    assert rem.heard(THEM, report({}), [], False, 0.1, r) == []            # counted again from 0
    assert rem.heard(THEM, report({}), [], False, 0.1 + REPAIR_INTERVAL / 4, r) == []   # not due yet
    assert rem.heard(THEM, report({}), [], False, 0.05 + REPAIR_INTERVAL, r) != []      # stale and due
    assert rem.heard(THEM, report({ME: 2, OTHER: 1}), [], False, 1.0, r) == []          # it holds all


def test_a_hello_is_a_request_answered_at_once_but_not_more_often_than_the_watchdog():
    r = holding({2: 2})
    rem = Remotes(KEYS, ME)
    assert rem.heard(THEM, report({}), [], True, 10.0, r) == [ev(2, 0).raw, ev(2, 1).raw]
    assert rem.heard(THEM, report({}), [], True, 10.0 + WATCHDOG_AFTER / 2, r) == []
    assert rem.heard(THEM, report({}), [], True, 10.0 + WATCHDOG_AFTER, r) != []


def test_one_answer_sends_at_most_its_budget_and_certificates_after_events():
    r = holding({0: MAX_SEND_PER_HAVE + 5})
    rem = Remotes(KEYS, ME)
    assert len(rem.heard(THEM, report({}), [], True, 0.0, r)) == MAX_SEND_PER_HAVE
    seats = [2]
    cert = make_timeout(GID, 0, PREV, seats, [(v, IDS[v].sign(vote_sign_msg(GID, 0, PREV, seats))) for v in (0, 1)])
    r2 = holding({})
    r2.add_cert(cert)
    assert Remotes(KEYS, ME).heard(THEM, report({}), [], False, 0.0, r2) == [cert.raw]
    assert Remotes(KEYS, ME).heard(THEM, report({}), [[0, cert.id[:8]]], False, 0.0, r2) == []


def test_a_report_naming_another_event_under_a_seq_we_hold_gets_ours():
    r = holding({2: 1})
    sent = Remotes(KEYS, ME).heard(THEM, [[OTHER, 0, ev(2, 0, tag=b"z").id[:8]]], [], False, 0.0, r)
    assert sent[0] == ev(2, 0).raw


def test_acknowledgements_grow_count_only_haves_and_say_who_holds_our_log():
    r = holding({0: 2})
    rem = Remotes(KEYS, ME)
    want = {ME: 1}
    rem.heard(THEM, report({ME: 1}), [], True, 0.0, r)            # a hello: not an acknowledgement
    assert rem.acked(want, lambda p, i: False) == set()
    rem.heard(THEM, report({ME: 1}), [[3, b"c" * 8]], False, 0.1, r)
    assert rem.acked(want, lambda p, i: False) == {1}
    assert rem.acked(want, lambda p, i: p == 3) == set()          # it holds a certificate that may roll a step back
    assert rem.claims(1) is False and rem.claims(0) is True       # it holds our seq 1: lost by us if we hold only 0
    rem.heard(THEM, report({ME: 0}), [], False, 0.2, r)           # an older report overtaking: never taken back
    assert rem.acked(want, lambda p, i: False) == {1}
    assert not rem.hold_all({ME: 1, THEM: 0}) and rem.ahead_of({ME: -1, THEM: -1, OTHER: -1}) and not rem.ahead_of({ME: 0, THEM: -1, OTHER: -1})
    rem.heard(THEM, report({ME: 1, THEM: 0}), [], False, 0.3, r)
    assert rem.hold_all({ME: 1, THEM: 0})
    rem.drop(THEM)
    assert THEM not in rem and rem.hold_all({ME: 5})
