"""May we sign? (p2p/resync.py, protocol.md §9.6): after a torn tail, not before every other seat
reported or RESYNC_WAIT passed; while a peer claims an event of ours we lack, not for RESYNC_WAIT."""

from __future__ import annotations

from p2p.resync import RESYNC_WAIT, ResyncGate


def test_a_lost_tail_waits_for_every_other_seat_or_for_the_wait():
    g = ResyncGate(3, 0, lost=True)
    assert not g.allows(0.0, lambda: False)
    g.tick(1.0, False)
    assert g.times() == [1.0 + RESYNC_WAIT, None]
    g.heard(1)
    g.tick(2.0, False)
    assert not g.allows(2.0, lambda: False)
    g.heard(2)
    g.tick(2.5, False)
    assert g.allows(2.5, lambda: False) and g.times() == [None, None]
    late = ResyncGate(3, 0, lost=True)
    late.tick(1.0, False)
    late.tick(1.0 + RESYNC_WAIT, False)                       # nobody reported: it opens all the same
    assert late.allows(1.0 + RESYNC_WAIT, lambda: False)


def test_a_claim_blocks_signing_for_at_most_its_wait_and_is_said_once():
    g = ResyncGate(2, 0)
    assert g.allows(0.0, lambda: True) is False               # claimed, never seen by a tick: wait
    assert g.tick(3.0, True) is True and g.tick(3.5, True) is False
    assert g.times() == [None, 3.0 + RESYNC_WAIT]
    assert not g.allows(3.0 + RESYNC_WAIT - 0.1, lambda: True)
    assert g.allows(3.0 + RESYNC_WAIT, lambda: True)
    g.tick(4.0, False)                                        # the claim is gone: the clock resets
    assert g.times() == [None, None] and g.allows(4.0, lambda: False)
    g.lost_tail()
    assert not g.allows(5.0, lambda: False)
