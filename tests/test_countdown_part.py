"""The shell's countdown part (cli/countdown.py ``Countdown``): the deadline from a Decision, shortened
at a resume by when the step opened, its words, and a clock that repaints only when the words change."""

from __future__ import annotations

import time
from dataclasses import dataclass

import trio

from cli.countdown import Countdown


@dataclass
class Decision:
    phase: int
    deadline: float | None


async def test_a_decisions_deadline_counts_down_and_stops():
    c = Countdown()
    c.start(Decision(3, trio.current_time() + 125))
    assert 120 < c.left() <= 125
    assert c.words(True) == "about 2 min left" and c.words(False) == ""
    c.stop()
    assert c.left() is None and c.words(True) == ""
    c.start(Decision(3, None))
    assert c.left() is None


async def test_at_a_resume_the_countdown_goes_on_from_when_the_step_opened():
    c = Countdown()
    c.hint(time.time() - 21)
    c.seen(4)
    c.start(Decision(4, trio.current_time() + 60))
    assert 35 < c.left() <= 39.5                        # 60 s, less the 21 s the step was open before
    c.start(Decision(5, trio.current_time() + 60))     # a later step: its own whole time
    assert c.left() > 59


async def test_the_clock_repaints_when_the_words_shown_change_and_sleeps_when_nothing_counts():
    c = Countdown()
    painted: list = []
    opened = [True]
    c.deadline = time.monotonic() + 30.5                # "0:30 left": changes within a second
    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            n.start_soon(c.run, lambda: opened[0], lambda: painted.append(c.words(opened[0])))
            while not painted:
                await trio.sleep(0.05)
            assert painted[0].startswith("about 0:") and painted[0] != "about 0:30 left"
            opened[0] = False
            c.wake()                                    # the decision is answered: the words go at once
            while painted[-1] != "":
                await trio.sleep(0.05)
            n.cancel_scope.cancel()
