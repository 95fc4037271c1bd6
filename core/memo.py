"""Memoised pure values that more than one thread may ask for at once.

``core/`` starts no threads and holds no locks of its own: a shell that runs a
game's ``precompute`` calls in worker threads (p2p/node.py) hands this module
its lock type once, with ``use_locks``.  Until then (a replay, an audit, the
tests: one thread) the guard is a no-op.  Only who computes a value changes
with the locks, never the value.
"""

from __future__ import annotations

import functools
from contextlib import nullcontext
from typing import Any, Callable

__all__ = ["single_flight", "use_locks"]

_MAX = 64            # argument tuples with a lock at once (then the table is cleared)
_lock_type: Callable[[], Any] = nullcontext
_guard: Any = nullcontext()
_locks: dict = {}


def use_locks(lock_type: Callable[[], Any]) -> None:
    """From now on ``single_flight`` functions run one caller at a time per argument tuple,
    with locks made by ``lock_type`` (e.g. ``threading.Lock``).  Idempotent."""
    global _lock_type, _guard
    if _lock_type is not lock_type:
        _lock_type, _guard = lock_type, lock_type()
        _locks.clear()


def single_flight(fn: Callable) -> Callable:
    """``fn`` (pure, remembered with lru_cache) computed by one thread at a time per argument
    tuple: a caller that finds it being computed waits, then finds it remembered."""
    @functools.wraps(fn)
    def call(*args):
        with _guard:
            if len(_locks) >= _MAX:
                _locks.clear()
            lock = _locks.get((fn.__name__, args))
            if lock is None:
                lock = _locks[(fn.__name__, args)] = _lock_type()
        with lock:
            return fn(*args)
    return call
