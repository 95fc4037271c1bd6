"""Memoised pure values that more than one thread may ask for at once.

``core/`` starts no threads and holds no locks of its own: a shell that runs a
game's ``precompute`` calls in worker threads (p2p/node.py) hands this module
its lock type once, with ``use_locks``.  Until then (a replay, an audit, the
tests: one thread) the guard is a no-op.  Only who computes a value changes
with the locks, never the value.

Verdicts vouched for by the trust domain (``vouched`` / ``vouch``): the processes of one
``easel`` command on one machine (the person's seat and the bots it forked, cli/zygote.py) share
a board of digests, each saying "this pure check of these very arguments passed" (a proof one of
them made, so it verifies by completeness, or a check one of them ran).  The shell hands the
board's two functions in once (``use_vouched``, p2p/vouching.py); until then (a replay, an audit,
a seat of another machine, the tests) nothing is ever vouched for and every check is run.  A
vouched check skips a computation whose answer is known; it never changes an answer.

Why a process-global here, in the pure core (the house rule is "no globals that change what is
checked"), and not an argument of the checks that use it:
- It changes *who computes* a verdict, never *what* is checked or the verdict: a digest names the
  check and every one of its arguments, and is written only where that same pure function of those
  very arguments was found to pass (or its input was just made here and passes by completeness), by
  a process running the same code (forked from one command).  Any input gets the answer it gets
  without a board.  It is the memo that ``lru_cache`` and dealt.py's ``_MADE`` already are within a
  process, widened to the processes of one trust domain.
- Where a verdict must be independent (another machine's seat, a spectator, ``easel audit``, a
  replay) there is no board: only a seat's ``GameNode.run`` hands one in (p2p/node.py, through
  p2p/vouching.py ``install``), and only if its command made the board before forking its zygote;
  nothing a peer sends can write to it (only ``vouch``, after a pass, does).
- As an argument it would ride the one engine API of every game (``Table`` → ``Game.check``/``apply``
  → the deal's checks) to reach two call sites of one game (core/games/modern_art/dealt.py), and a
  replay would have to be told not to pass it: a cache threaded through every game's signature.
"""

from __future__ import annotations

import functools
import hashlib
from contextlib import nullcontext
from typing import Any, Callable

__all__ = ["single_flight", "use_locks", "use_vouched", "vouched", "vouch"]

_MAX = 64            # argument tuples with a lock at once (then the table is cleared)
_lock_type: Callable[[], Any] = nullcontext
_guard: Any = nullcontext()
_locks: dict = {}
_seen: Callable[[bytes], bool] | None = None      # is this digest on the trust domain's board?
_add: Callable[[bytes], None] | None = None       # put it there


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


def use_vouched(seen: Callable[[bytes], bool] | None, add: Callable[[bytes], None] | None) -> None:
    """From now on ``vouched`` asks ``seen`` and ``vouch`` tells ``add`` (the shell's board of the
    trust domain's passed checks); ``None, None``: nothing is vouched for any more."""
    global _seen, _add
    _seen, _add = seen, add


def _enc(x: Any, out: list) -> None:
    if type(x) is bytes:
        out.append(b"b%d:" % len(x))
        out.append(x)
    elif type(x) is int:
        out.append(b"i%d;" % x)
    elif type(x) is str:
        b = x.encode()
        out.append(b"s%d:" % len(b))
        out.append(b)
    elif type(x) in (tuple, list):
        out.append(b"t%d:" % len(x))
        for y in x:
            _enc(y, out)
    elif x is None:
        out.append(b"n")
    else:
        raise TypeError("cannot vouch for a %s" % type(x).__name__)


def digest(check: str, args: tuple) -> bytes:
    """The board's name for "``check`` of ``args`` passed": SHA-256 of an unambiguous encoding."""
    out: list = []
    _enc((check, args), out)
    return hashlib.sha256(b"easel/vouched\0" + b"".join(out)).digest()


def vouched(check: str, *args: Any) -> bool:
    """Has a process of this trust domain found that ``check`` of ``args`` passed?  (False without a board.)"""
    if _seen is None:
        return False
    try:
        return bool(_seen(digest(check, args)))
    except Exception:        # a board that cannot answer: the check is run
        return False


def vouch(check: str, *args: Any) -> None:
    """``check`` of ``args`` passed here: say so on the board (nothing without one)."""
    if _add is None:
        return
    try:
        _add(digest(check, args))
    except Exception:
        pass
