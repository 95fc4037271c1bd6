"""Domain-separated hashing.

Every hash in Easel is ``dhash(tag, *parts)``:

    SHA-256( b"easel/1/" || tag || 0x00 || encode([part, ...]) )

where ``tag`` is an ASCII name (no NUL) saying what is being hashed and
``encode`` is the canonical msgpack of core.encoding.  A hash made for one
purpose can therefore never be mistaken for a hash made for another.
"""

from __future__ import annotations

import hashlib
from typing import Any

from .encoding import encode

PREFIX = b"easel/1/"

# Every tag in use, so protocol.md and the tests can list them.
TAGS = (
    "game-id",      # genesis document -> game id
    "entry-id",     # encoded log entry -> entry id
    "head",         # previous head, entry id -> new head
    "sign/event",   # what an author signs for an event
    "sign/genesis", # what each seat signs to seal a table
    "sign/vote",    # what a seat signs to time out another seat in a phase
    "sign/join",    # what a joiner signs to ask a host for a seat
    "sign/decline", # what an old seat signs to tell a rematch lobby it will not play again
    "sign/leaving", # what a seat signs when it quits a game in the middle (a wire note, never in a log)
    "commit",       # sealed-move commitment
    "seed",         # shared seed from the seed reveals
    "beacon",       # running entropy beacon
    "rng",          # PRNG block
    "fingerprint",  # short key fingerprint
    "bot",          # bot decision seeds (never in a log)
    "demo",         # demo-only deterministic randomness (never in a log)
    # the trustless deal (core/deal.py, docs/deal.md)
    "deal/card",         # card index -> a point of the prime-order group
    "deal/key",          # seat secret -> the seat's key scalar
    "deal/key-nonce",    # Schnorr proof-of-knowledge nonce (from the key)
    "deal/key-proof",    # Schnorr proof-of-knowledge challenge
    "deal/perm",         # a seat's shuffle permutation, from its seat secret
    "deal/rerand",       # a seat's re-randomisers, from its seat secret
    "deal/share-nonce",  # Chaum-Pedersen nonce for a decryption share
    "deal/share-proof",  # Chaum-Pedersen challenge for a decryption share
    "deal/gen",           # the shuffle proof's generators h, h_1..h_N (hashed to the curve)
    "deal/gen-set",       # the generators' context, in the shuffle proof's statement
    "deal/pi-stmt",       # the shuffle proof's statement hash
    "deal/pi-u",          # the shuffle proof's per-position challenges u_i
    "deal/pi-challenge",  # the shuffle proof's Fiat-Shamir challenge
    "deal/pi-nonce",      # the shuffle prover's randomness (from its seat secret)
)


def dhash(tag: str, *parts: Any) -> bytes:
    t = tag.encode("ascii")
    if b"\x00" in t:
        raise ValueError("hash tag may not contain NUL")
    h = hashlib.sha256()
    h.update(PREFIX)
    h.update(t)
    h.update(b"\x00")
    h.update(encode(list(parts)))
    return h.digest()


def fingerprint(public_key: bytes) -> str:
    """Short human fingerprint of a public key: 4 groups of 4 hex digits."""
    d = dhash("fingerprint", public_key).hex()[:16]
    return "-".join(d[i : i + 4] for i in range(0, 16, 4))
