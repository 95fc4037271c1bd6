"""The benchmark trace (EASEL_TRACE), as a sans-IO part of ``GameNode``.

With EASEL_TRACE=DIR a node writes DIR/seat-N.jsonl: one JSON line per event it signs
(``{"k": "sign", "e": [id hex], "t": monotonic s, "c": process CPU s}``) and per batch of entries
it places in its log (``"k": "apply"``, every entry's id), and at the end one line with its peak
memory (``{"k": "mem", "e": [], "t": ..., "maxrss_kb": ...}``).  The lines are kept in memory while
the game is played (no write on the hot path) and handed to the node about once every
``TRACE_FLUSH`` s, off the hot path (the ticker wakes for it), so that a benchmark can watch a game
live.  Times, CPU seconds and the peak memory come in as arguments; the node appends the lines.
"""

from __future__ import annotations

import json

TRACE_FLUSH = 1.0         # s between appends of benchmark trace lines


class Trace:
    """The trace lines not yet written."""

    def __init__(self) -> None:
        self._records: list[tuple] = []
        self._flushed = 0.0        # when the lines were last taken (the node's trio clock)

    def note(self, kind: str, ids: list[bytes], t: float, cpu: float) -> None:
        """We signed (``"sign"``) or placed (``"apply"``) the entries ``ids`` at ``t`` (CPU ``cpu`` s)."""
        self._records.append((kind, ids, t, cpu))

    def flush_at(self) -> float:
        """When the lines gathered are next due to be written."""
        return self._flushed + TRACE_FLUSH

    def due(self, now: float) -> bool:
        """The last flush is TRACE_FLUSH old: take the lines now (``take``), even none, so that the
        next flush is TRACE_FLUSH later (a flush time left in the past woke the ticker again at once,
        for as long as nothing was traced: a peer waiting for a person spun)."""
        return now - self._flushed >= TRACE_FLUSH

    def take(self, now: float | None = None, mem: tuple[float, int | None] | None = None) -> list[str]:
        """The lines gathered so far (then forgotten); ``now``: the time of this flush; ``mem`` =
        (monotonic s, peak memory in KiB or None): the last line, at the end."""
        if now is not None:
            self._flushed = now
        lines = [json.dumps({"k": k, "e": [e.hex() for e in ids], "t": t, "c": c}) for k, ids, t, c in self._records]
        self._records.clear()
        if mem is not None:
            lines.append(json.dumps({"k": "mem", "e": [], "t": mem[0], "maxrss_kb": mem[1]}))
        return lines
