"""An in-memory network of sans-IO peers: a whole game without sockets or clocks.

Used by tests and benchmarks to make real, complete, signed logs quickly.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Sequence

from core.rng import Rng

from .protocol import Broadcast, Peer, Send


def play_in_memory(
    genesis,
    signers: Sequence[Callable[[bytes], bytes]],
    bot: Any,
    seed: int = 1,
    shuffle: bool = True,
    max_deliveries: int = 1_000_000,
    games: Any = None,
) -> list[Peer]:
    """Every seat played by ``bot`` (``choose(view, seat, rng)``); messages delivered in a
    seeded random order (or first-in first-out).  ``games`` is the game registry (None: the
    default one).  Returns the peers when the game is over."""
    r = random.Random(seed)
    keys = list(genesis.doc["seats"])
    n = len(keys)
    peers = [Peer(genesis, keys[i], signers[i], lambda k: bytes(r.getrandbits(8) for _ in range(k)), games=games) for i in range(n)]
    q: list = []

    def run(i: int, effects: list) -> None:
        for e in effects:
            if isinstance(e, Send):
                q.append((i, keys.index(e.to), e.msg))
            elif isinstance(e, Broadcast):
                q.extend((i, j, e.msg) for j in range(n) if j != i)

    for i in range(n):
        for j in range(n):
            if i != j:
                run(i, peers[i].connected(keys[j]))
        run(i, peers[i].start())
    for _ in range(max_deliveries):
        for i, p in enumerate(peers):
            if p.needs_decision():
                rng = Rng(bytes(32), "b%d-%d-%d" % (seed, i, p.table.phase))
                run(i, p.act(bot.choose(p.table.view(p.seat), p.seat, rng)))
        if not q:
            if all(p.table.over for p in peers):
                break
            continue
        src, dst, m = q.pop(r.randrange(len(q)) if shuffle else 0)
        run(dst, peers[dst].receive(keys[src], m))
    return peers
