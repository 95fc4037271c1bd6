"""``easel audit``: core.audit's checks, with several files audited in parallel.

Each file's replay is independent (core.audit.summarize); with more than one
file and more than one core the files are replayed in worker processes and
the cross-file checks (equivocation, agreement) run here on the summaries.
The result is the same object core.audit.audit returns.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import core.games
from core.audit import audit, combine, summarize

MIN_PARALLEL_BYTES = 64 * 1024
_GAMES: Any = core.games   # the registry forked workers replay with (set by audit_files)


def _summarize(item):
    name, data = item
    return summarize(name, data, _GAMES)


def audit_files(files: dict[str, bytes], workers: int | None = None, games: Any = None) -> dict:
    """Audit with ``games`` (default: the registry of every game, ``core.games``)."""
    global _GAMES
    games = core.games if games is None else games
    workers = workers or os.cpu_count() or 1
    if workers < 2 or len(files) < 2 or sum(len(d) for d in files.values()) < MIN_PARALLEL_BYTES:
        return audit(files, games)
    _GAMES = games  # workers are forked: they inherit it, nothing is pickled
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=min(workers, len(files)), mp_context=ctx) as pool:
        summaries = list(pool.map(_summarize, files.items(), chunksize=max(1, len(files) // (2 * workers))))
    return combine(summaries, files)
