"""The connections of a node to the other seats (protocol.md §9.2-9.4; p2p/links.py): the policy
(``Mesh``, ``Backoff``) alone, and the send queues of ``Links`` with no socket (the dialers and
readers run over TLS in tests/test_network.py, test_hostile_tls.py and test_lan.py)."""

from __future__ import annotations

import logging

import trio

from p2p.faults import Faults, Injector
from p2p.limits import DEFAULT, RateLimitedLog
from p2p.links import BACKOFF_FIRST, BACKOFF_MAX, SEND_QUEUE_BYTES, Backoff, Conn, Links, Mesh

KEYS = [bytes([k]) * 32 for k in range(4)]


def test_a_seat_dials_the_seats_before_it_and_a_resumed_seat_every_other():
    assert Mesh(KEYS, 0, False, 0.0).dials() == []
    assert Mesh(KEYS, 2, False, 0.0).dials() == [0, 1]
    assert Mesh(KEYS, 2, True, 0.0).dials() == [0, 1, 3]     # dial-back (§9.4)


def test_an_incoming_connection_is_kept_only_from_a_seat_and_never_over_ours():
    m = Mesh(KEYS, 2, False, 0.0)
    for key in (None, b"x" * 32, KEYS[2]):
        assert m.incoming(key, connected=False) == Mesh.STRANGER
    assert m.incoming(KEYS[3], connected=False) == Mesh.ACCEPT
    assert m.incoming(KEYS[3], connected=True) == Mesh.ACCEPT       # a seat after ours redials: its new one wins
    assert m.incoming(KEYS[0], connected=False) == Mesh.BACK        # a resumed seat before ours dialling back
    assert m.incoming(KEYS[0], connected=True) == Mesh.IGNORE       # ... while ours is up: ours wins


def test_a_dial_back_that_crossed_the_other_seats_dial_is_dropped():
    m = Mesh(KEYS, 2, True, 0.0)
    assert m.keep_dialled(0, connected=True) and m.keep_dialled(0, connected=False)
    assert m.keep_dialled(3, connected=False)
    assert not m.keep_dialled(3, connected=True)


def test_every_other_seat_is_silent_until_connected_and_again_once_dropped():
    m = Mesh(KEYS, 1, False, 10.0)
    assert m.silent_since == {0: 10.0, 2: 10.0, 3: 10.0}
    m.opened(0)
    m.opened(0)
    assert m.silent_since == {2: 10.0, 3: 10.0}
    m.closed(0, 25.0)
    assert m.silent_since == {0: 25.0, 2: 10.0, 3: 10.0}
    assert m.seat_of(KEYS[3]) == 3 and m.key_of(3) == KEYS[3] and m.me == 1


def test_the_dial_back_off_doubles_to_its_cap_and_starts_over_after_a_dial():
    b = Backoff()
    waits = [b.failed() for _ in range(8)]
    assert waits[:3] == [BACKOFF_FIRST, 2 * BACKOFF_FIRST, 4 * BACKOFF_FIRST]
    assert max(waits) == BACKOFF_MAX and waits[-1] == BACKOFF_MAX
    b.reset()
    assert b.failed() == BACKOFF_FIRST


def _links(mesh: Mesh, closed: list, faults: Faults | None = None) -> Links:
    return Links(mesh, {"addrs": [["127.0.0.1", 1]] * len(KEYS)}, None, limits=lambda: DEFAULT,
                 rl=RateLimitedLog(logging.getLogger("test")), faults=Injector(faults, mesh.me), wall=lambda: 77.0,
                 on_open=lambda key: None, on_frame=lambda key, frame: None, on_close=closed.append, on_moved=lambda: None)


async def test_a_seat_that_does_not_read_is_dropped_at_the_queue_bound_and_marked_silent():
    closed: list = []
    mesh = Mesh(KEYS, 1, False, 0.0)
    links = _links(mesh, closed)
    c = Conn(KEYS[0], None)
    links.conns[KEYS[0]] = c
    mesh.opened(0)
    lost = links.lost
    frame = b"x" * (1 << 20)
    for _ in range(SEND_QUEUE_BYTES // len(frame)):
        links.enqueue(c, frame)
    assert not c.closed and c.queued == SEND_QUEUE_BYTES and not links.drained()
    links.enqueue(c, b"y")                             # one byte over the bound
    assert c.closed and KEYS[0] not in links.conns and closed == [KEYS[0]]
    assert mesh.silent_since[0] == 77.0                    # the wall clock it was given
    assert lost.is_set() and not links.lost.is_set()   # a new event for the next drop
    links.enqueue(c, b"z")                             # a closed connection takes nothing more
    links.drop(c)
    assert closed == [KEYS[0]]


async def test_a_replaced_connection_dropped_late_does_not_touch_its_successor():
    closed: list = []
    links = _links(Mesh(KEYS, 1, False, 0.0), closed)
    old, new = Conn(KEYS[0], None), Conn(KEYS[0], None)
    links.conns[KEYS[0]] = new
    links.drop(old)
    assert old.closed and links.conns[KEYS[0]] is new and closed == []


async def test_faults_hold_a_frame_back_and_send_it_later():
    links = _links(Mesh(KEYS, 0, False, 0.0), [], Faults(reorder=1.0, delay=0.01))   # seat 0 dials nobody
    c = Conn(KEYS[1], None)
    links.conns[KEYS[1]] = c
    async with trio.open_nursery() as n:
        links.start(n, trio.Event())
        links.enqueue(c, b"late")
        assert c.queued == 0
    assert c.queued == 4 and c.recv_ch.receive_nowait() == b"late"
