"""Shared benchmark helpers: build real logs with in-memory sans-IO peers."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nacl.signing import SigningKey  # noqa: E402

from core.events import game_id_of, genesis_sign_msg, make_genesis  # noqa: E402
from core.games.painting import HeuristicBot  # noqa: E402
from core.logfile import LOG_MAGIC, encode_record  # noqa: E402
from p2p.memnet import play_in_memory  # noqa: E402


def simulate(n: int = 6, seed: int = 1, rounds: int = 6) -> list[bytes]:
    """Play one full game between n in-memory peers; return the canonical log entries."""
    sks = [SigningKey(bytes([seed % 250 + 1, i + 1]) * 16) for i in range(n)]
    keys = [bytes(sk.verify_key) for sk in sks]
    doc = {"game": "painting", "config": {"rounds": rounds}, "seats": keys, "table": seed.to_bytes(8, "big")}
    gid = game_id_of(doc)
    g = make_genesis(doc, [sk.sign(genesis_sign_msg(gid)).signature for sk in sks])
    signers = [(lambda sk: lambda m: sk.sign(m).signature)(sk) for sk in sks]
    peers = play_in_memory(g, signers, HeuristicBot(), seed=seed, shuffle=False)
    assert all(p.table.over for p in peers)
    return peers[0].log_entries


def log_file(entries: list[bytes]) -> bytes:
    return LOG_MAGIC + b"".join(encode_record(e) for e in entries)


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def percentile(xs, p):
    xs = sorted(xs)
    if not xs:
        return None
    k = min(len(xs) - 1, max(0, int(round(p / 100 * (len(xs) - 1)))))
    return xs[k]
