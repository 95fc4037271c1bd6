"""The reveal reel: a step's beats played one after the other (no threads, no trio; a clock is read).

A screen turns a step that applied moves into beats (``Screen.beats``); the
reel plays them at the UI's pace.  The rules of the reel:

* **A new reveal replaces a stale one.**  When the table moves on while a
  reveal still plays, the beats not yet played belong to a step that is
  already history: they are dropped, the beat showing stops at once, and
  the new step's beats play from 1 (the first says how many were skipped).
  Only the latest step is ever queued, so nothing from an earlier round
  plays after a later one, or after the game is over.
* **The panes follow the reveal.**  While a beat plays, the panes show the
  table as it was before the step (``before``) so no result shows before its
  beat; from the first beat marked ``Beat.after`` on (e.g. the Paint Market's
  draw at the end of a Starving Artists night) they show the table after it.

``Reel.now()`` is what shows; ``Reel.shown()`` the snapshot the panes draw.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, NamedTuple, Sequence

from .screens import Beat, Line, Snapshot, wrap

BEATS_KEEP = 40         # beats of one step played at most (the last ones)
PACE = 0.8              # seconds a reveal beat shows, on a terminal (EASEL_PACE overrides; 0 = instant)


class Reeled(NamedTuple):
    """One beat on the reel (times on time.monotonic())."""

    start: float
    end: float
    beat: Beat
    k: int                      # its number in the reveal (1-based) ...
    n: int                      # ... of this many (the beats of the step it reveals)
    before: Snapshot | None     # the table as it was before the step it reveals (shown meanwhile)
    note: str = ""              # a line under its caption (e.g. earlier beats skipped)
    after: Snapshot | None = None   # the table after the step (shown from a beat marked ``after`` on)
    reached: bool = False       # this beat or an earlier one of its step is marked ``after``


class Reel:
    """The beats to play, one after the other (read from any thread: ``items`` is swapped whole)."""

    def __init__(self) -> None:
        self.items: tuple[Reeled, ...] = ()
        self.reveals = 0            # reveals begun so far

    def now(self) -> Reeled | None:
        """The beat showing now, or None."""
        items = self.items
        if not items:
            return None
        t = time.monotonic()
        for item in items:
            if item.start <= t < item.end:
                return item
        return None

    def shown(self, latest: Snapshot | None) -> Snapshot | None:
        """The snapshot the panes draw: the table before the step while its beats play (after it once
        a beat marked ``after`` has shown), else ``latest``."""
        now = self.now()
        if now is None:
            return latest
        if now.reached:
            return now.after or latest
        return now.before if now.before is not None else latest

    def queue(self, beats: Sequence[Beat], pace: float, before: Snapshot | None = None,
              after: Snapshot | None = None) -> bool:
        """Play ``beats`` (what the step after ``before`` revealed, leading to ``after``) from now,
        instead of whatever still plays (see the module docstring).  False if nothing was queued."""
        beats = [b for b in beats if isinstance(b, Beat)][-BEATS_KEEP:]
        if not beats or pace <= 0:
            return False
        t = time.monotonic()
        current = self.now()
        skipped = sum(1 for it in self.items if it.end > t)
        self.reveals += 1
        note = ("%d beat%s of an earlier step skipped: the table moved on" % (skipped, "" if skipped == 1 else "s")
                if skipped and current is not None else "")
        reel: list[Reeled] = []
        n = len(beats)
        reached = False
        for i, b in enumerate(beats):
            reached = reached or bool(getattr(b, "after", False))
            end = t + pace * max(1, min(4, int(b.hold or 1)))
            reel.append(Reeled(t, end, b, i + 1, n, before, note if i == 0 else "", after, reached))
            t = end
        self.items = tuple(reel)
        return True

    def skip(self) -> bool:
        """Stop the reveal; True if one was playing."""
        playing = self.now() is not None
        self.items = ()
        return playing

    def times(self) -> list[float]:
        """The starts and ends still to come (when to repaint)."""
        t = time.monotonic()
        return [x for it in self.items for x in (it.start, it.end) if x > t]

    def tidy(self) -> None:
        """Forget a reel that has played out."""
        items = self.items
        if items and items[-1].end <= time.monotonic():
            self.items = ()

    def lines(self, width: int) -> list[Line]:
        """The caption of the beat showing (with its number and note) and its middle lines."""
        now = self.now()
        if now is None:
            return []
        beat = now.beat
        head = [("class:reveal", " REVEAL %d/%d " % (now.k, now.n) if now.n > 1 else " REVEAL "),
                ("class:reveal.caption", " " + beat.caption),
                ("class:label", "  (Space or Esc skips)")]
        lines = wrap(head, width, "  ")
        if now.note:
            lines += wrap([("class:label", "  (%s)" % now.note)], width, "  ")
        for line in beat.middle or []:
            lines += wrap(list(line), width, "  ")
        return lines + [[]]


def default_pace(input: Any = None, output: Any = None) -> float:
    """Seconds a reveal beat shows: 0 (instant) unless the UI runs on the real terminal (not given an
    input or output, as tests are, and stdin and stdout are TTYs); there EASEL_PACE if set (0 turns
    the reveal off, at most 10), else PACE."""
    if input is not None or output is not None:
        return 0.0
    try:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            return 0.0
    except (AttributeError, ValueError):
        return 0.0
    env = os.environ.get("EASEL_PACE")
    if env is None:
        return PACE
    try:
        return max(0.0, min(10.0, float(env)))
    except ValueError:
        return PACE
