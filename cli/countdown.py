"""The countdown on our decision, in words: what the status line says of the time left
(``countdown_words``), when that changes (``next_change``: the UI's clock sleeps until then), and a
Decision's deadline on the clock the UI reads (``on_monotonic``).  Times come in as arguments, except
where a deadline moves from trio's clock to time.monotonic()."""

from __future__ import annotations

import time

import trio

__all__ = ["COARSE_FROM", "WARN_TIMEOUT", "countdown_words", "next_change", "on_monotonic"]

WARN_TIMEOUT = 10       # seconds left on our decision from which the warning line says so
COARSE_FROM = 60        # seconds left from which the countdown says whole minutes (it changes once a minute)


def countdown_words(left: float) -> str:
    """The time left on our decision as the status line says it: whole minutes while a minute or more
    is left ("about 4 min left": the screen redraws for it once a minute), then seconds ("about
    0:42 left", once a second)."""
    left = max(0, int(left))
    if left >= COARSE_FROM:
        return "about %d min left" % (left // 60)
    return "about %d:%02d left" % (left // 60, left % 60)


def next_change(left: float) -> float | None:
    """Seconds until ``countdown_words`` (and the warning's "Time-out in N s") change, None once at 0."""
    whole = int(left)
    if whole <= 0:
        return None                                  # "0:00" until the table closes the step
    step = 60 if whole >= COARSE_FROM else 1
    return left - step * (whole // step) + 0.01      # when the whole minutes (or seconds) shown drop by one


def on_monotonic(deadline: float | None) -> float | None:
    """A Decision's ``deadline`` (on the trio clock) as a time.monotonic() value; None stays None."""
    if not isinstance(deadline, (int, float)) or isinstance(deadline, bool):
        return None
    return time.monotonic() + max(0.0, deadline - trio.current_time())
