"""Shared test helpers: keys, genesis, a signed-event factory and an in-memory game.

``simulate(n, seed)`` runs n sans-IO ``Peer``s exchanging messages in memory
(random delivery order) until the game is over and returns the genesis, the
signing keys and the peers; ``peers[i].log_entries`` is a complete, valid
canonical log.  It plays the toy game (tests/toy_game.py) unless told
otherwise, as do ``genesis_for`` and ``HandTable``; ``GAMES`` (every
registered game plus the toy) is the registry tests replay and audit with.  ``log_file(entries)`` turns entries into
log-file bytes.
"""

from __future__ import annotations

import random
import struct
import zlib
from functools import lru_cache
from typing import Any, Sequence

from nacl.signing import SigningKey

from core.events import (
    Genesis,
    commitment,
    game_id_of,
    genesis_sign_msg,
    make_event,
    make_genesis,
    make_timeout,
    next_head,
    vote_sign_msg,
    ZERO32,
)
from core.logfile import LOG_MAGIC, SPOOL_MAGIC, encode_record
from core.rng import Rng

from .toy_game import ALL_GAMES as GAMES

__all__ = [
    "seat_keys",
    "signer",
    "genesis_for",
    "simulate",
    "simulated",
    "log_file",
    "spool_file",
    "records_of",
    "raw_record",
    "fix_crc",
    "Builder",
    "GAMES",
    "play_in_memory",
]


def seat_keys(n: int, base: int = 1) -> list[SigningKey]:
    """Deterministic signing keys: seat i has seed bytes([base + i]) * 32."""
    return [SigningKey(bytes([base + i]) * 32) for i in range(n)]


def signer(sk: SigningKey):
    return lambda m: sk.sign(m).signature


def genesis_for(
    sks: Sequence[SigningKey],
    config: dict | None = None,
    table: bytes = b"t1",
    game: str = "toy",
    **extra: Any,
) -> Genesis:
    """A genesis signed by every seat (the toy game unless told otherwise)."""
    keys = [bytes(sk.verify_key) for sk in sks]
    doc = {"game": game, "config": dict(config or {}), "seats": keys, "table": table}
    doc.update(extra)
    gid = game_id_of(doc)
    return make_genesis(doc, [sk.sign(genesis_sign_msg(gid)).signature for sk in sks])


def play_in_memory(genesis, signers, bot: Any, games: Any = GAMES, seed: int = 1, shuffle: bool = True, max_deliveries: int = 100_000):
    """p2p.memnet.play_in_memory with the toy registry by default."""
    from p2p import memnet

    return memnet.play_in_memory(genesis, signers, bot, seed=seed, shuffle=shuffle, max_deliveries=max_deliveries, games=games)


def simulate(n: int = 3, seed: int = 1, config: dict | None = None, bot: Any = None, game: str = "toy", games: Any = GAMES):
    """n peers playing a whole game (the toy game by default) in memory; returns (genesis, signing keys, peers)."""
    sks = seat_keys(n)
    g = genesis_for(sks, config=config, table=b"t%d" % seed, game=game)
    peers = play_in_memory(g, [signer(sk) for sk in sks], bot or games.get(game).bots["random"](), games=games, seed=seed)
    assert all(p.table.over for p in peers), "simulated game did not finish"
    return g, sks, peers


@lru_cache(maxsize=None)
def _simulated(n: int, seed: int, rounds: int | None, game: str):
    config = {"rounds": rounds} if rounds is not None else None
    g, sks, peers = simulate(n, seed, config=config, game=game)
    return g, tuple(sks), tuple(tuple(p.log_entries) for p in peers)


def simulated(n: int = 3, seed: int = 1, rounds: int | None = 2, game: str = "toy"):
    """Cached (genesis, signing keys, list of entries of seat 0's log) for a finished game.

    Defaults to a 2-round toy game to keep tests fast.  Returns a fresh list each call.
    """
    g, sks, logs = _simulated(n, seed, rounds, game)
    return g, list(sks), list(logs[0])


def log_file(entries: Sequence[bytes], magic: bytes = LOG_MAGIC) -> bytes:
    return magic + b"".join(encode_record(e) for e in entries)


def spool_file(entries: Sequence[bytes]) -> bytes:
    return log_file(entries, SPOOL_MAGIC)


def raw_record(entry: bytes, crc: int | None = None) -> bytes:
    """A record with an arbitrary CRC (default: the right one)."""
    if crc is None:
        crc = zlib.crc32(entry)
    return struct.pack(">I", len(entry)) + entry + struct.pack(">I", crc & 0xFFFFFFFF)


def records_of(data: bytes, magic: bytes = LOG_MAGIC) -> list[bytes]:
    """Split file bytes into entries without checking CRCs (test-side parser)."""
    assert data.startswith(magic)
    pos, out = len(magic), []
    while pos < len(data):
        (length,) = struct.unpack_from(">I", data, pos)
        out.append(data[pos + 4 : pos + 4 + length])
        pos += 8 + length
    return out


def fix_crc(data: bytes, magic: bytes = LOG_MAGIC) -> bytes:
    """Recompute every record's CRC (so a tampered entry passes the record check)."""
    return magic + b"".join(raw_record(e) for e in records_of(data, magic))


class Builder:
    """Hand-built events for a table: keeps every author's next seq number."""

    def __init__(self, genesis: Genesis, sks: Sequence[SigningKey]) -> None:
        self.g = genesis
        self.sks = list(sks)
        self.keys = [bytes(sk.verify_key) for sk in sks]
        self.seq = {k: 0 for k in self.keys}

    @property
    def gid(self) -> bytes:
        return self.g.game_id

    def event(self, seat: int, prev: bytes, kind: str, body: dict, seq: int | None = None, sk: SigningKey | None = None, author: bytes | None = None):
        author = author if author is not None else self.keys[seat]
        sk = sk if sk is not None else self.sks[seat]
        if seq is None:
            seq = self.seq.get(author, 0)
        self.seq[author] = max(self.seq.get(author, 0), seq + 1)
        return make_event(signer(sk), self.gid, author, seq, prev, kind, body)

    def commit(self, seat: int, phase: int, prev: bytes, value: Any, salt: bytes, **kw):
        h = commitment(self.gid, self.keys[seat], phase, value, salt)
        return self.event(seat, prev, "commit", {"phase": phase, "hash": h}, **kw)

    def reveal(self, seat: int, phase: int, prev: bytes, value: Any, salt: bytes, **kw):
        return self.event(seat, prev, "reveal", {"phase": phase, "value": value, "salt": salt}, **kw)

    def timeout(self, phase: int, prev: bytes, seats: Sequence[int], voters: Sequence[int] | None = None):
        if voters is None:
            voters = [v for v in range(len(self.keys)) if v not in seats]
        msg = vote_sign_msg(self.gid, phase, prev, list(seats))
        return make_timeout(self.gid, phase, prev, list(seats), [(v, self.sks[v].sign(msg).signature) for v in voters])


def genesis_head(g: Genesis) -> bytes:
    return next_head(ZERO32, g.id)


def salt_for(seat: int, phase: int, tag: bytes = b"salt") -> bytes:
    import hashlib

    return hashlib.sha256(tag + bytes([seat, phase % 256])).digest()


class HandTable:
    """A fresh ``core.table.Table`` from a genesis, fed with hand-built entries.

    The toy game (tests/toy_game.py) unless told otherwise: a test about a real
    game's behaviour names that game at its call site.

    ``sealed(values)`` plays one sealed step pair (commit then reveal) with the
    given ``{seat: value}``; seats left out are timed out by a certificate.
    Every applied entry is kept in ``entries`` (a complete canonical log).
    """

    def __init__(self, n: int = 3, config: dict | None = None, table: bytes = b"hand", game: str = "toy", games: Any = GAMES) -> None:
        from core.table import Table

        self.sks = seat_keys(n)
        self.keys = [bytes(sk.verify_key) for sk in self.sks]
        self.g = genesis_for(self.sks, config=config, table=table, game=game)
        self.b = Builder(self.g, self.sks)
        self.t = Table.start(self.g, games)
        self.entries: list[bytes] = [self.g.raw]
        self.salts: dict = {}

    def add(self, ent):
        self.t.append(ent.raw)
        self.entries.append(ent.raw)
        return ent

    def commit_all(self, values: dict, skip=(), timeout: bool = True):
        st = self.t.step
        assert st is not None and st.kind == "commit", st
        for s in st.seats:
            if s in values and s not in skip:
                salt = salt_for(s, st.phase)
                self.salts[(st.phase, s)] = salt
                self.add(self.b.commit(s, st.phase, st.prev, values[s], salt))
        missing = self.t.missing() if self.t.step is not None and self.t.step.phase == st.phase else ()
        if missing and timeout:
            self.add(self.b.timeout(st.phase, st.prev, missing))
        return st

    def reveal_all(self, values: dict, skip=(), timeout: bool = True):
        st = self.t.step
        assert st is not None and st.kind == "reveal", st
        for s in st.seats:
            if s not in skip:
                self.add(self.b.reveal(s, st.phase, st.prev, values[s], self.salts[(st.phase - 1, s)]))
        missing = self.t.missing() if self.t.step is not None and self.t.step.phase == st.phase else ()
        if missing and timeout:
            self.add(self.b.timeout(st.phase, st.prev, missing))
        return st

    def sealed(self, values: dict, no_reveal=()):
        self.commit_all(values)
        self.reveal_all(values, skip=no_reveal)

    def seed(self, n: int | None = None):
        n = n if n is not None else len(self.keys)
        vals = {s: bytes([0xA0 + s]) * 32 for s in range(n)}
        self.sealed(vals)
        return vals
