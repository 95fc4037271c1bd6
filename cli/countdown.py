"""The countdown on our decision, in words: what the status line says of the time left
(``countdown_words``), when that changes (``next_change``: the UI's clock sleeps until then), and a
Decision's deadline on the clock the UI reads (``on_monotonic``).  Times come in as arguments, except
where a deadline moves from trio's clock to time.monotonic().  ``Countdown``: the shell's part that
holds our decision's deadline and repaints the screen when the time left, as shown, changes."""

from __future__ import annotations

import time

import trio

__all__ = ["COARSE_FROM", "Countdown", "WARN_TIMEOUT", "countdown_words", "next_change", "on_monotonic"]

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


class Countdown:
    """The time left on our open decision, as the screen shows it: the deadline on time.monotonic()
    (``start``, from a ``p2p.node.Decision``; shortened at a resume, ``hint``), its words
    (``words``) and a trio clock (``run``) that repaints when those words change, asleep while
    nothing counts down (``wake``: a new deadline, or none)."""

    def __init__(self) -> None:
        self.deadline: float | None = None         # time.monotonic() when our decision times out (estimate)
        self.open_hint: tuple[int | None, float] | None = None   # (table phase, wall time) a step opened
        self._wake = trio.Event()

    def hint(self, wall: float) -> None:
        """At a resume: the step open when the table is first seen began about ``wall`` (time.time(), e.g.
        the log's last change), so the countdown goes on from there instead of starting over (the
        peer's own step clock only starts at the resume; the others' began with the step)."""
        self.open_hint = (None, float(wall))

    def seen(self, phase: int) -> None:
        """The table was seen at ``phase``: a hint given before it is for that step."""
        if self.open_hint is not None and self.open_hint[0] is None:
            self.open_hint = (phase, self.open_hint[1])

    def hinted(self, at: float | None, d) -> float | None:
        """At a resume (``hint``), the step began before our peer's clock saw it: end the
        countdown that much earlier (the Decision's deadline is then now plus the step's time)."""
        h = self.open_hint
        if h is None or at is None or h[0] != d.phase:
            return at
        timeout = at - time.monotonic()          # the step's whole time: our clock only starts now
        hinted = time.monotonic() + (h[1] + timeout - time.time())
        return min(at, hinted)

    def start(self, d) -> None:
        """A decision ``d`` (a p2p.node.Decision) opened: count down to its deadline (trio thread)."""
        self.deadline = self.hinted(on_monotonic(d.deadline), d)

    def stop(self) -> None:
        self.deadline = None

    def left(self) -> float | None:
        """Seconds left on our decision, None when nothing counts down."""
        return None if self.deadline is None else self.deadline - time.monotonic()

    def words(self, open_: bool) -> str:
        """What the clock alone changes on the screen: the time left on our open decision, as shown."""
        left = self.left()
        return "" if left is None or not open_ else countdown_words(left)

    def wake(self) -> None:
        """The deadline or the decision may have changed (trio thread): the clock looks again."""
        self._wake.set()

    async def run(self, open_, repaint) -> None:
        """Call ``repaint()`` when the words shown change; ``open_()``: a decision is open (trio)."""
        shown = self.words(open_())
        while True:
            self._wake = trio.Event()
            left = self.left()
            wait = next_change(left) if left is not None and open_() else None
            with trio.move_on_after(wait if wait is not None else float("inf")):
                await self._wake.wait()
            now = self.words(open_())
            if now != shown:
                shown = now
                repaint()
