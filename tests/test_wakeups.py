"""When a peer wakes (p2p/wakeups.py, protocol.md §9.5): the clock as last seen, the 'have' timer, the
watchdog, and the earliest of every part's times, never a moment a tick already covered."""

from __future__ import annotations

from types import SimpleNamespace

from p2p.wakeups import HAVE_GAP, KEEPALIVE, WATCHDOG_AFTER, Wakeups


def test_a_have_goes_soon_after_a_change_or_while_lagging_else_as_a_keep_alive():
    w = Wakeups()
    assert w.have_due(5.0, ("a",), False)                     # never sent: due at once, and counted as sent
    assert w.have_next(("a",), False) == 5.0 + KEEPALIVE      # nothing changed: a keep-alive
    assert w.have_next(("b",), False) == 5.0 + HAVE_GAP       # what it says changed
    assert w.have_next(("a",), True) == 5.0 + HAVE_GAP        # a peer holds what we lack
    assert not w.have_due(5.0 + HAVE_GAP / 2, ("b",), False)
    assert w.have_due(5.0 + HAVE_GAP, ("b",), False)
    w.have_sent(9.0, ("c",))                                  # a prompt 'have' restarts the timer
    assert w.have_next(("c",), False) == 9.0 + KEEPALIVE
    assert w.have_due(1.0, ("c",), False)                     # a clock that went back: due (never stuck)


def test_the_earliest_time_skips_what_the_last_tick_covered_and_a_past_vote_waits_for_an_input():
    w = Wakeups()
    w.ticked(10.0)
    assert w.earliest(10.0, 14.0, None, [9.0, 12.0, None]) == 12.0
    assert w.earliest(10.0, 14.0, 8.0, []) == 14.0            # our vote was due before: done at that tick
    w.input()                                                 # something arrived since: it may change our vote
    assert w.earliest(10.5, 14.0, 8.0, []) == 10.5
    w.ticked(11.0)
    assert w.earliest(11.0, 14.0, 8.0, [11.0]) == 14.0


def test_the_clock_is_the_last_ticks_or_with_the_shells_clock_the_last_inputs():
    w = Wakeups()
    assert not w.clocked() and w.now() == 0.0
    w.input()
    assert w.now() == 0.0                                     # no shell clock: an input reads none
    w.ticked(3.0)
    assert w.now() == 3.0
    times = iter([5.0, 6.5])
    w = Wakeups(lambda: next(times))
    assert w.clocked() and w.now() == 0.0                     # read at an input, never at construction
    w.input()
    assert w.now() == 5.0
    w.ticked(5.5)
    assert w.now() == 5.5
    w.input()
    assert w.now() == 6.5


def test_the_watchdog_fires_once_the_table_has_not_moved_for_its_time_and_only_when_stuck():
    w = Wakeups()
    said: list = []
    stuck = (lambda: True, lambda: False)

    def watch(pos, now, behind=stuck[0], nobody=stuck[1]):
        table = SimpleNamespace(step=pos and "open", head=pos and pos[0], count=pos and pos[1], phase=7)
        return w.watchdog(table, {0: 3}, now, behind, nobody, lambda *a: said.append(a))

    assert not watch(("p", 1), 0.0) and w.watchdog_at() == WATCHDOG_AFTER
    assert not watch(("p", 1), WATCHDOG_AFTER - 0.1)
    assert watch(("p", 1), WATCHDOG_AFTER) and [a[0] for a in said] == ["WATCHDOG_AFTER"] and said[0][3] == 7
    assert w.watchdog_at() == 2 * WATCHDOG_AFTER                   # the wait starts again
    assert not watch(("p", 2), 2 * WATCHDOG_AFTER)                 # it moved
    assert not watch(("p", 2), 3 * WATCHDOG_AFTER, lambda: False, lambda: False)   # not stuck: waits for someone
    assert not watch(None, 9.0) and w.watchdog_at() is None        # no open step: nothing to watch
