"""The trust domain's board of passed checks (core/memo.py ``vouched``), in memory shared by the
processes of one ``easel`` command on one machine: the person's seat and the bots its zygote forks.

Why it is safe to share a verdict there (docs/deal.md §3, "One machine, one check"): the board is
an anonymous shared mapping (``mmap(-1, ..., MAP_SHARED)``) made by the command just before it
forks its zygote (cli/zygote.py ``start``), so only that command and the processes forked from it
(its own bots: the same person, the same machine, the same code) map it; no file, no socket names
it, so no other machine can reach it.  Another process of the same user (or root) can: through
``/proc/PID/mem`` or ``ptrace`` it may read and write any of our memory, this board included —
but such a process can as well read the seat's key and secrets files (0600, the same user's) or
change the seat's own code, so the board gives it nothing it could not already take: it is
inside the trust domain whatever we do.  A digest there says "this pure check
of these very arguments passed in one of us": a proof or a share one of us made (it verifies by
completeness) or a check one of us ran.  Seats of another machine, spectators and ``easel audit``
have no board and check everything themselves, so what a log proves does not change; a seat of
ours skips only a computation whose answer another of ours already knows.

The board: a header (the next slot, 8 bytes) and ``SLOTS`` slots of 32 bytes, a ring.  Writers
do not lock: two that take the same slot at once, or a reader that meets a half-written slot,
lose a record or see bytes that are no digest — never a digest that was not written whole (the
chance that a torn mix of two digests is a third one's is 2^-256).  A lost record means the check
is run, as without a board.
"""

from __future__ import annotations

import mmap
import struct

SLOT = 32
SLOTS = 4096
_HEAD = 8
_EMPTY = bytes(SLOT)


class Board:
    def __init__(self) -> None:
        self.mm = mmap.mmap(-1, _HEAD + SLOT * SLOTS, flags=mmap.MAP_SHARED)

    def seen(self, d: bytes) -> bool:
        if len(d) != SLOT or d == _EMPTY:        # an empty slot is no record
            return False
        mm = self.mm
        at = mm.find(d, _HEAD)
        while at >= 0:
            if (at - _HEAD) % SLOT == 0:
                return True
            at = mm.find(d, at + 1)
        return False

    def add(self, d: bytes) -> None:
        if len(d) != SLOT or self.seen(d):
            return
        n = struct.unpack_from("<Q", self.mm, 0)[0]
        struct.pack_into("<Q", self.mm, 0, n + 1)
        at = _HEAD + SLOT * (n % SLOTS)
        self.mm[at:at + SLOT] = d


BOARD: Board | None = None


def make() -> Board | None:
    """The command's board, made before it forks its zygote (so every bot maps the same one); None where
    shared memory cannot be had (then nothing is vouched for: every check is run)."""
    global BOARD
    if BOARD is None:
        try:
            BOARD = Board()
        except (OSError, ValueError, AttributeError):
            BOARD = None
    return BOARD


def install() -> None:
    """A peer of this process starts: core's checks consult the board, if this process has one."""
    from core import memo

    if BOARD is not None:
        memo.use_vouched(BOARD.seen, BOARD.add)
