"""Fault injection for tests, as a sans-IO part of ``GameNode``'s connections.

``Faults(drop, dup, reorder, delay, seed)`` is applied to every outbound frame of a node, seeded
per seat, and read from the environment variable EASEL_FAULTS
("drop=0.1,dup=0.1,reorder=0.2,delay=0.05,seed=7").  ``Injector.fate`` says what becomes of one
frame (dropped, sent once or twice, and whether one copy is held back for a while); the node's
connections (p2p/links.py) carry it out.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass


@dataclass
class Faults:
    drop: float = 0.0
    dup: float = 0.0
    reorder: float = 0.0
    delay: float = 0.0          # max extra delay in seconds for reordered frames
    seed: int = 0

    @classmethod
    def from_env(cls) -> "Faults | None":
        spec = os.environ.get("EASEL_FAULTS")
        if not spec:
            return None
        f = cls()
        for part in spec.split(","):
            k, _, v = part.partition("=")
            if k.strip() in ("drop", "dup", "reorder", "delay"):
                setattr(f, k.strip(), float(v))
            elif k.strip() == "seed":
                f.seed = int(v)
        return f


class Injector:
    """The seeded fate of each outbound frame of one seat (no faults: every frame goes once, now)."""

    def __init__(self, faults: Faults | None, seat: int) -> None:
        self._faults = faults
        self._rng = random.Random(faults.seed * 1000 + seat if faults else 0)

    def fate(self) -> tuple[int, float | None]:
        """(copies to send now, delay of one more copy sent later or None)."""
        f = self._faults
        if f is None:
            return 1, None
        if self._rng.random() < f.drop:
            return 0, None
        copies = 2 if self._rng.random() < f.dup else 1
        if self._rng.random() < f.reorder:
            return copies - 1, self._rng.random() * max(f.delay, 0.001)
        return copies, None
