"""``easel audit``: core.audit's checks, using every core.

* Many files (at least two per worker and ``MIN_PARALLEL_BYTES`` in all): each file's
  audit (core.audit.summarize) runs in a forked worker process; the cross-file checks
  (equivocation, agreement) run here on the summaries.
* A large file (``MIN_POOLED_BYTES`` or more) on a machine with more than one core: its
  signature checks go to forked worker processes as the log is parsed, while this
  process parses and replays it; when the replay is done this process checks the chunks
  no worker has started yet, then joins (core.audit.audit_log merges the results exactly
  as a one-by-one audit would report them).
* Anything smaller: one file after the other, here (a process pool costs more than it saves).

The result is the same object core.audit.audit returns.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import core.games
from core.audit import audit, combine, summarize
from core.events import check_entry_signatures

MIN_PARALLEL_BYTES = 64 * 1024      # many files: below this in all, no pool
MIN_POOLED_BYTES = 512 * 1024       # one file: from this size on, its signatures are checked by a pool
CHUNK = 512                         # entries whose signatures one task checks

_GAMES: Any = core.games   # the registry forked workers replay with (set before they fork)
_FILES: dict = {}          # the files forked workers audit (set before they fork: nothing is pickled)


def _fork() -> Any:
    return multiprocessing.get_context("fork")


def _summarize_name(name: str):
    return summarize(name, _FILES[name], _GAMES)


def _noop(_: Any = None) -> int:
    return os.getpid()


def _check_range(a: int, b: int):
    """In a forked worker: the signatures of entries a..b-1 of the file being audited."""
    return check_entry_signatures(_ENTRIES, _KEYS, a, b)


_ENTRIES: list = []   # the entries of the file a PooledVerifier's workers check (set before they fork)
_KEYS: list = []


class PooledVerifier:
    """A by-entry core.audit verifier: the file's signatures are checked by ``workers`` forked
    processes, chunks of ``chunk`` entries taken from the front, straight from the entries'
    bytes (inherited at the fork: nothing is pickled but two numbers a chunk), while this
    process parses and replays the file; on join this process takes back and checks every
    chunk no worker has started yet (from the back), then waits for the rest.  A chunk whose
    worker failed is checked here.  The answer is exactly core.events.check_entry_signatures's."""

    by_entry = True

    def __init__(self, workers: int, chunk: int = CHUNK) -> None:
        self.workers = workers
        self.chunk = chunk

    def __call__(self, entries: list, keys: list) -> "_PooledSession":
        return _PooledSession(entries, keys, self.workers, self.chunk)


class _PooledSession:
    def __init__(self, entries: list, keys: list, workers: int, chunk: int) -> None:
        global _ENTRIES, _KEYS
        self.entries, self.keys = entries, keys
        self.tasks: list = []   # (start, end, future)
        _ENTRIES, _KEYS = entries, keys   # the workers fork at the first submit and inherit both
        try:
            self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=_fork())
            for a in range(1, len(entries), chunk):
                b = min(a + chunk, len(entries))
                self.tasks.append((a, b, self.pool.submit(_check_range, a, b)))
        finally:
            _ENTRIES, _KEYS = [], []

    def join(self, limit: int) -> tuple[int, str] | None:
        try:
            here: dict = {}
            for a, b, fut in reversed(self.tasks):
                if a >= limit:
                    fut.cancel()
                elif fut.cancel():
                    here[a] = check_entry_signatures(self.entries, self.keys, a, min(b, limit))
            for a, b, fut in self.tasks:
                if a >= limit:
                    break
                if a in here:
                    bad = here[a]
                else:
                    try:
                        bad = fut.result()
                    except Exception:  # a worker died (killed, out of memory): check the chunk here
                        bad = check_entry_signatures(self.entries, self.keys, a, min(b, limit))
                if bad is not None and bad[0] < limit:
                    return bad
            return None
        finally:
            self.pool.shutdown(wait=True, cancel_futures=True)


def pool_startup(workers: int) -> float:
    """Seconds to fork ``workers`` processes and have each answer once (the price of a pool)."""
    import time

    t = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers, mp_context=_fork()) as pool:
        list(pool.map(_noop, range(workers)))
    return time.perf_counter() - t


def audit_files(files: dict[str, bytes], workers: int | None = None, games: Any = None) -> dict:
    """Audit with ``games`` (default: the registry of every game, ``core.games``)."""
    global _GAMES, _FILES
    games = core.games if games is None else games
    workers = workers or os.cpu_count() or 1
    total = sum(len(d) for d in files.values())
    if "fork" not in multiprocessing.get_all_start_methods():
        workers = 1   # the pools below rely on forked workers inheriting the data
    if workers >= 2 and len(files) >= 2 * workers and total >= MIN_PARALLEL_BYTES:
        _GAMES, _FILES = games, files   # workers are forked: they inherit both, nothing is pickled
        try:
            with ProcessPoolExecutor(max_workers=min(workers, len(files)), mp_context=_fork()) as pool:
                chunksize = max(1, len(files) // (workers * 16))
                summaries = list(pool.map(_summarize_name, list(files), chunksize=chunksize))
        except BrokenProcessPool:  # a worker died (killed, out of memory): do it here
            summaries = [summarize(name, data, games) for name, data in files.items()]
        finally:
            _GAMES, _FILES = core.games, {}
        return combine(summaries, files)
    if workers >= 2 and any(len(d) >= MIN_POOLED_BYTES for d in files.values()):
        pooled = PooledVerifier(workers)
        # the cyclic garbage collector would walk every parsed entry again and again as the
        # file's entries pile up (a third of the parse's time); an audit makes no cycles
        # worth collecting (everything is freed by reference counting), so it pauses meanwhile
        was = gc.isenabled()
        gc.disable()
        try:
            summaries = [summarize(name, data, games, pooled if len(data) >= MIN_POOLED_BYTES else None) for name, data in files.items()]
        finally:
            if was:
                gc.enable()
        return combine(summaries, files)
    return audit(files, games)
