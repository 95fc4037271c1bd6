"""When a node's ticker wakes and when the node is done (protocol.md §9.5; p2p/alarm.py), the part alone."""

from __future__ import annotations

import pytest

from p2p.alarm import MIN_SLEEP, Alarm


def _never() -> float:
    raise AssertionError("the peer's next wake-up was asked for although the answer was known")


def test_the_ticker_wakes_at_the_first_of_the_peer_the_trace_and_the_linger():
    a = Alarm(linger=10.0)
    assert a.wake_at(50.0) == 50.0
    assert a.wake_at(50.0, flush_at=20.0) == 20.0
    assert a.wake_at(5.0, flush_at=20.0) == 5.0
    assert not a.done(now=30.0, over=True, everyone_has_all=lambda: False)    # the game ended at 30: the linger runs
    assert a.wake_at(float("inf")) == 40.0
    assert a.wake_at(35.0) == 35.0


def test_a_sleep_is_never_shorter_than_the_guard():
    a = Alarm(linger=10.0)
    assert a.sleep(at=100.0, now=99.0) == 100.0
    assert a.sleep(at=100.0, now=100.0) == pytest.approx(100.0 + MIN_SLEEP)


def test_an_input_wakes_the_ticker_only_if_it_is_awake_eager_or_the_peer_is_due_sooner():
    a = Alarm(linger=10.0)
    assert a.input(eager=False, next_wakeup=_never)          # awake: every input counts as a poke
    a.sleep(at=100.0, now=0.0)
    assert a.input(eager=True, next_wakeup=_never)           # a screen to update
    assert not a.input(eager=False, next_wakeup=lambda: 100.0)
    assert not a.input(eager=False, next_wakeup=lambda: 150.0)
    assert a.input(eager=False, next_wakeup=lambda: 50.0)    # the input brought a wake-up forward
    a.woke()
    assert a.input(eager=False, next_wakeup=_never)
    assert (a.inputs, a.pokes) == (6, 4)


def test_a_finished_game_ends_once_everyone_holds_everything_or_after_the_linger():
    a = Alarm(linger=10.0)
    assert not a.done(now=1.0, over=False, everyone_has_all=lambda: True)   # not over: asked nothing
    assert a.done(now=2.0, over=True, everyone_has_all=lambda: True)
    b = Alarm(linger=10.0)
    assert not b.done(now=2.0, over=True, everyone_has_all=lambda: False)
    assert not b.done(now=12.0, over=True, everyone_has_all=lambda: False)
    assert b.done(now=12.5, over=True, everyone_has_all=lambda: False)


def test_a_game_no_longer_over_starts_its_linger_again():
    # a roll-back can re-open a game that looked over: its linger counts from when it is over again
    a = Alarm(linger=10.0)
    assert not a.done(now=0.0, over=True, everyone_has_all=lambda: False)
    assert not a.done(now=5.0, over=False, everyone_has_all=lambda: False)
    assert a.wake_at(float("inf")) == float("inf")
    assert not a.done(now=6.0, over=True, everyone_has_all=lambda: False)
    assert not a.done(now=15.0, over=True, everyone_has_all=lambda: False)
    assert a.done(now=16.5, over=True, everyone_has_all=lambda: False)
