"""A PRNG of our own, so a log replays the same on any Python version.

Blocks are ``dhash("rng", seed, domain, counter)`` (SHA-256 in counter mode).
Integers in a range come from rejection sampling on 64-bit words; shuffles are
Fisher-Yates from the last index down.  Nothing here touches ``random``.
"""

from __future__ import annotations

from typing import Any, Sequence, TypeVar

import hashlib
import struct

import msgpack

from .encoding import encode
from .hashing import PREFIX

T = TypeVar("T")
_FOUR = struct.Struct(">4Q")
_LIMITS: dict[int, int] = {}


class Rng:
    __slots__ = ("_seed", "_domain", "_counter", "_words", "_base")

    def __init__(self, seed: bytes, domain: str) -> None:
        if not isinstance(seed, bytes) or len(seed) != 32:
            raise ValueError("seed must be 32 bytes")
        self._seed = seed
        self._domain = domain
        self._counter = 0
        self._words: list[int] = []
        # block i = dhash("rng", seed, domain, i); the hash state up to the counter is shared
        self._base = hashlib.sha256(PREFIX + b"rng\x00" + b"\x93" + encode(seed) + encode(domain))

    def u64(self) -> int:
        """The next 8 bytes of the stream, big-endian.  Each 32-byte block is 4 words."""
        if not self._words:
            h = self._base.copy()
            h.update(msgpack.packb(self._counter))
            self._counter += 1
            self._words.extend(_FOUR.unpack(h.digest())[::-1])
        return self._words.pop()

    def below(self, n: int) -> int:
        """Uniform integer in [0, n): 64-bit words below floor(2**64/n)*n, mod n."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = _LIMITS.get(n)
        if limit is None:
            limit = (2**64 // n) * n
            if n < 4096:
                _LIMITS[n] = limit
        words = self._words
        while True:
            x = words.pop() if words else self.u64()
            if x < limit:
                return x % n

    def between(self, lo: int, hi: int) -> int:
        """Uniform integer in [lo, hi] (inclusive)."""
        return lo + self.below(hi - lo + 1)

    def choice(self, seq: Sequence[T]) -> T:
        return seq[self.below(len(seq))]

    def shuffle(self, items: list[Any]) -> None:
        """Fisher-Yates in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
