"""False time-outs seen and refused moves (p2p/cuts.py, protocol.md §6.5, §11): a held move of a seat
a certificate voted out is named (cut, or signed afterwards when it does not fit its chain, or a
leave when the seat said it left), a move the rules refuse or a reveal that opens nothing is named
once per seat and step."""

from __future__ import annotations

from types import SimpleNamespace

from core.events import make_event, make_timeout, vote_sign_msg
from core.table import Step
from p2p.cuts import CutWatch
from p2p.leaving import Departures
from p2p.replica import Replica
from p2p.timeouts import TimeoutVoter

from .netutil import identities

GID = b"g" * 32
PREV = b"\1" * 32
IDS = identities(3, "cuts")
KEYS = [i.public for i in IDS]
STEP = Step(4, PREV, "act", "move", (0, 1, 2), True, "card play")


def watch(me: int = 0):
    said: list = []
    replica, departures = Replica(KEYS, KEYS[me]), Departures(3, me, ["Ann", "Bob", "Cy"])
    return CutWatch(KEYS, me, replica, departures, TimeoutVoter(3, me, 60.0), lambda a: said.append(a.text)), said


def move(seat: int, seq: int, phase: int = 4, prev: bytes = PREV, x: int = 0):
    return make_event(IDS[seat].sign, GID, KEYS[seat], seq, prev, "act", {"phase": phase, "action": {"x": x}})


def cert(seats, voters, phase=4):
    return make_timeout(GID, phase, PREV, seats, [(v, IDS[v].sign(vote_sign_msg(GID, phase, PREV, seats))) for v in voters])


def table(last: dict, nxt: dict | None = None):
    rec = SimpleNamespace(prev=PREV, last=last, next=nxt or {})
    return SimpleNamespace(certificates={4: rec})


def test_a_held_move_of_a_seat_voted_out_is_named_with_who_voted():
    w, said = watch()
    w.replica.insert(move(2, 0))
    w.cert_placed(table({2: -1}), cert([2], [0, 1]), "card play", 60.0)
    assert list(w.moves_cut()) == [(4, 2)] and w.moves_cut()[(4, 2)]["voters"] == [0, 1]
    assert len(said) == 1 and said[0] == w.moves_cut()[(4, 2)]["text"] and "it reached us after we voted" in said[0]
    assert w.steps_left() == {}
    w.arrived(table({2: -1}), move(2, 0))              # the same step and seat: named once
    assert len(said) == 1


def test_a_move_that_arrives_after_the_certificate_is_named_then():
    w, said = watch()
    w.cert_placed(table({1: -1}), cert([1], [0, 2]), "card play")
    assert said == []
    w.arrived(table({1: -1}), move(1, 0))
    assert list(w.moves_cut()) == [(4, 1)] and len(said) == 1
    w.arrived(table({1: -1}), move(1, 0, phase=5))     # another step: nothing to say
    assert len(said) == 1


def test_a_move_that_does_not_fit_its_chain_was_signed_afterwards_and_accuses_no_one():
    w, said = watch()
    w.replica.insert(move(2, 0))
    w.cert_placed(table({2: 3}), cert([2], [0, 1]), "card play")     # its last event in the log has seq 3
    assert w.moves_cut() == {} and list(w.moves_afterwards()) == [(4, 2)] and len(said) == 1


def test_a_seat_that_said_it_left_is_a_leave_not_a_late_move():
    w, said = watch()
    w.departures.take(2, 3, b"n" * 16, b"note", newest_phase=-1, direct=True, author_connected=True)
    w.replica.insert(move(2, 0))
    w.cert_placed(table({2: -1}), cert([2], [0, 1]), "card play")
    assert w.steps_left() == {4: (2,)} and "Cy had left the table" in said[0]


def test_a_refused_move_is_named_once_per_seat_and_step():
    w, said = watch()
    exc = SimpleNamespace(reason="not your card")
    w.refused(move(1, 0), STEP, 1, exc)
    w.refused(move(1, 0), STEP, 1, exc)
    w.refused(move(1, 1, x=1), STEP, 1, exc)
    assert said == ["seat 1 signed a move the rules refuse for phase 4 (card play; sequence number 0): not your card; "
                    "it is kept as evidence"]
    w.replica.insert(move(1, 0))
    w.cert_placed(table({1: -1}), cert([1], [0, 2]), "card play")   # refused: evidence of a fault, not a cut move
    assert w.moves_cut() == {}


def test_a_reveal_that_opens_nothing_is_named_once():
    w, said = watch()
    reveal = make_event(IDS[1].sign, GID, KEYS[1], 0, PREV, "reveal", {"phase": 5, "value": 3, "salt": b"s" * 32})
    st = Step(5, PREV, "reveal", "move", (0, 1), False, "x", shows=True)
    w.bad_reveal(reveal, st, 1, None)                                # no commitment to open: not ours to say
    w.bad_reveal(reveal, st, 1, b"c" * 32)
    w.bad_reveal(reveal, st, 1, b"c" * 32)
    assert len(said) == 1 and "does not match its commitment" in said[0]
