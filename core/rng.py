"""A PRNG of our own, so a log replays the same on any Python version.

Blocks are ``dhash("rng", seed, domain, counter)`` (SHA-256 in counter mode).
Integers in a range come from rejection sampling on 64-bit words; shuffles are
Fisher-Yates from the last index down.  Nothing here touches ``random``.
"""

from __future__ import annotations

from typing import Any, Sequence, TypeVar

from .hashing import dhash

T = TypeVar("T")


class Rng:
    __slots__ = ("_seed", "_domain", "_counter", "_buf")

    def __init__(self, seed: bytes, domain: str) -> None:
        if not isinstance(seed, bytes) or len(seed) != 32:
            raise ValueError("seed must be 32 bytes")
        self._seed = seed
        self._domain = domain
        self._counter = 0
        self._buf = b""

    def _bytes(self, n: int) -> bytes:
        while len(self._buf) < n:
            self._buf += dhash("rng", self._seed, self._domain, self._counter)
            self._counter += 1
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def u64(self) -> int:
        return int.from_bytes(self._bytes(8), "big")

    def below(self, n: int) -> int:
        """Uniform integer in [0, n)."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = (2**64 // n) * n
        while True:
            x = self.u64()
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
