"""``easel audit``: core.audit's checks, using every core.

* Many files (at least two per worker and ``MIN_PARALLEL_BYTES`` in all): each file's
  audit (core.audit.summarize) runs in a forked worker process; the cross-file checks
  (equivocation, agreement) run here on the summaries.
* A large file (``MIN_POOLED_BYTES`` or more) on a machine with more than one core: its
  signature checks go to ``workers - 1`` worker processes, forked before the file is
  parsed here (a task is two entry numbers, a byte offset and the seat keys: the worker
  reads the entries from the file's bytes it inherited), while this process parses and
  replays it; when the replay is done this process checks the chunks no worker has
  started yet, then joins (core.audit.audit_log merges the results exactly as a
  one-by-one audit would report them).
* Anything smaller: one file after the other, here (a process pool costs more than it saves).

In this process the cyclic garbage collector is paused while files are audited (see below).

The result is the same object core.audit.audit returns.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import struct
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import core.games
from core.audit import combine, summarize
from core.events import check_entry_signatures

MIN_PARALLEL_BYTES = 64 * 1024      # many files: below this in all, no pool
MIN_POOLED_BYTES = 512 * 1024       # one file: from this size on, its signatures are checked by a pool
CHUNK = 512                         # entries whose signatures one task checks
_U32 = struct.Struct(">I")          # a record's length (core.logfile)

_GAMES: Any = core.games   # the registry forked workers replay with (set before they fork)
_FILES: dict = {}          # the files forked workers audit (set before they fork: nothing is pickled)


def _fork() -> Any:
    return multiprocessing.get_context("fork")


def _summarize_name(name: str):
    return summarize(name, _FILES[name], _GAMES)


def _noop(_: Any = None) -> int:
    return os.getpid()


def _check_records(name: str, a: int, b: int, pos: int, keys: list):
    """In a forked worker: the signatures of entries a..b-1 of the file ``name``, read from the
    file's bytes (inherited at the fork), record a starting at byte ``pos`` (the records were
    parsed and their checksums checked by the parent: only their lengths are read here)."""
    data = _FILES[name]
    unpack = _U32.unpack_from
    ents: dict = {}
    for i in range(a, b):
        (n,) = unpack(data, pos)
        ents[i] = data[pos + 4 : pos + 4 + n]
        pos += n + 8
    return check_entry_signatures(ents, keys, a, b)


class PooledVerifier:
    """A by-entry core.audit verifier: the file's signatures are checked by the processes of
    ``pool``, forked before the file was parsed here (they inherit its bytes, ``_FILES[name]``,
    and none of the parsed entries), chunks of ``chunk`` entries taken from the front; a task
    is the chunk's first and last entry numbers, its first record's offset and the seat keys,
    and the worker reads the entries from the bytes itself, while this process parses and
    replays the file.  On join this process takes back and checks every chunk no worker has
    started yet (from the back), then waits for the rest.  A chunk whose worker failed (or
    that could not be sent) is checked here.  The answer is exactly
    core.events.check_entry_signatures's."""

    by_entry = True

    def __init__(self, pool: Any, name: str, chunk: int = CHUNK) -> None:
        self.pool = pool     # None: every chunk is checked here, on join
        self.name = name
        self.chunk = chunk

    def __call__(self, entries: list, keys: list, offsets: list) -> "_PooledSession":
        return _PooledSession(entries, keys, offsets, self.pool, self.name, self.chunk)


class _PooledSession:
    def __init__(self, entries: list, keys: list, offsets: list, pool: Any, name: str, chunk: int) -> None:
        self.entries, self.keys = entries, keys
        self.tasks: list = []   # (start, end, future or None: to check here)
        keys = list(keys)
        broken = pool is None
        for a in range(1, len(entries), chunk):
            b = min(a + chunk, len(entries))
            fut = None
            if not broken:
                try:
                    fut = pool.submit(_check_records, name, a, b, offsets[a], keys)
                except Exception:   # the pool broke (a worker killed): the rest is checked here
                    broken = True
            self.tasks.append((a, b, fut))

    def join(self, limit: int) -> tuple[int, str] | None:
        here: dict = {}
        for a, b, fut in reversed(self.tasks):
            if fut is not None and a >= limit:
                fut.cancel()
            elif a < limit and (fut is None or fut.cancel()):
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
        return combine(summaries, files, games)
    big = [name for name, data in files.items() if len(data) >= MIN_POOLED_BYTES] if workers >= 2 else []
    pool = None
    if big:
        # workers - 1 processes: this one is the other core's (it replays, then checks the
        # chunks no worker has started); forked now, before any file is parsed here, they
        # inherit the files' bytes and none of the parsed entries
        _FILES = files
        try:
            pool = ProcessPoolExecutor(max_workers=workers - 1, mp_context=_fork())
            list(pool.map(_noop, range(workers - 1)))   # every worker forked (and answering) now
        except Exception:   # no worker could start: every signature is checked here
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
            pool = None
        finally:
            _FILES = {}
    # the cyclic garbage collector would walk every parsed entry again and again as the
    # file's entries pile up (a third of the parse's time); an audit makes no cycles
    # worth collecting (everything is freed by reference counting), so it pauses meanwhile
    # in this process (the many-files workers above keep it: one worker audits many files)
    was = gc.isenabled()
    gc.disable()
    try:
        summaries = [summarize(name, data, games, PooledVerifier(pool, name) if name in big else None)
                     for name, data in files.items()]
    finally:
        if was:
            gc.enable()
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    return combine(summaries, files, games)
