"""Whose link is slow (p2p/linkwatch.py, protocol.md §13.1 "Slow links"): the sans-IO part fed with timestamps.

Properties: a link within the thresholds (every round trip at most SLOW_ROUND_TRIP, a frame at least every
SLOW_QUIET) is never said slow; a link that stalls (nothing comes, nothing is acknowledged) is said slow within one
threshold of the stall; and the word goes when the link is quick again.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.linkwatch import SLOW_HOLD, SLOW_QUIET, SLOW_ROUND_TRIP, LinkWatch, words


def test_a_round_trip_above_the_threshold_is_said_with_its_length_and_a_quick_one_ends_it():
    w = LinkWatch()
    w.opened(1, 0.0)
    w.sent(0, 10.0)
    w.heard(1, 10.5)
    assert w.slow(11.0) == {}
    assert abs(w.slow(11.6)[1] - 1.6) < 1e-9                                               # waited for: slow
    w.acked(1, 0, 12.1)
    w.heard(1, 12.1)
    assert abs(w.slow(12.2)[1] - 2.1) < 1e-9                                               # its round trip, held
    assert words(["Ann", "Bo"], w.slow(12.2)) == ["Bo's link is slow (2.1 s)"]
    w.sent(1, 13.0)
    w.acked(1, 1, 13.2)                                                                    # quick again
    assert w.slow(13.3) == {}
    # without a newer round trip the word lasts SLOW_HOLD
    w.sent(2, 20.0)
    w.acked(1, 2, 22.0)
    for t in (22.0, 22.0 + SLOW_HOLD - 0.5):
        w.heard(1, t)
        assert 1 in w.slow(t)
    w.heard(1, 22.0 + SLOW_HOLD + 0.5)
    assert w.slow(22.0 + SLOW_HOLD + 0.5) == {}


def test_a_connected_seat_that_sends_nothing_is_slow_after_SLOW_QUIET_and_quick_at_its_next_frame():
    w = LinkWatch()
    w.opened(2, 0.0)
    assert w.slow(SLOW_QUIET - 0.1) == {}
    assert w.next_change(1.0) > SLOW_QUIET
    assert 2 in w.slow(SLOW_QUIET + 0.1)
    w.heard(2, SLOW_QUIET + 0.2)
    assert w.slow(SLOW_QUIET + 0.3) == {}
    w.closed(2)                                         # gone: said otherwise, never as slow
    assert w.slow(100.0) == {}
    w.heard(2, 101.0)
    w.acked(2, 5, 101.0)
    assert w.slow(200.0) == {}


@st.composite
def _healthy(draw):
    """A link within the thresholds: events acknowledged within SLOW_ROUND_TRIP, a frame at least every SLOW_QUIET."""
    steps = draw(st.lists(st.tuples(st.floats(0.0, SLOW_QUIET - 0.001), st.booleans(), st.floats(0.0, SLOW_ROUND_TRIP - 0.001)),
                          min_size=1, max_size=40))
    return steps


@settings(max_examples=200, deadline=None)
@given(_healthy())
def test_a_link_within_the_thresholds_is_never_said_slow(steps):
    w = LinkWatch()
    now, seq = 0.0, -1
    w.opened(1, now)
    for gap, send, rtt in steps:
        # the next frame comes within SLOW_QUIET of the last; look at every instant that matters on the way
        for t in (now + gap / 2, now + gap):
            assert w.slow(t) == {}, (t, steps)
        now += gap
        w.heard(1, now)
        if send:
            seq += 1
            w.sent(seq, now)
            for t in (now + rtt / 2, now + rtt):
                assert w.slow(t) == {}, (t, steps)
            now += rtt
            w.heard(1, now)
            w.acked(1, seq, now)
        assert w.slow(now) == {}, (now, steps)


@settings(max_examples=200, deadline=None)
@given(st.floats(0.0, 100.0), st.booleans(), st.floats(0.0, 5.0), st.floats(0.0, SLOW_ROUND_TRIP - 0.001))
def test_a_stalled_link_is_said_slow_within_one_threshold_and_the_word_goes_once_it_is_quick_again(start, sending,
                                                                                                     last, rtt):
    w = LinkWatch()
    w.opened(1, 0.0)
    w.heard(1, start)                        # its last frame before the stall ...
    stall = start + last                      # ... which begins a little after it
    if sending:
        w.sent(0, stall)                      # an event of ours goes into the stall
        bound = stall + SLOW_ROUND_TRIP
    else:
        bound = start + SLOW_QUIET            # nothing of ours waits: its silence says it
    assert 1 in w.slow(bound + 0.01)
    # woken in time: next_change is never later than the moment it turns slow
    assert w.next_change(stall) is None or w.next_change(stall) <= bound + 0.02
    # the stall ends: its frames come, our event is acknowledged, and a quick round trip follows
    end = bound + 10.0
    w.heard(1, end)
    if sending:
        w.acked(1, 0, end)
        w.sent(1, end)
        w.acked(1, 1, end + rtt)
        w.heard(1, end + rtt)
    assert w.slow(end + rtt) == {}
