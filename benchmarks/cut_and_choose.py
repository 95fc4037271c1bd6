"""The PREVIOUS shuffle proof of core/deal.py, kept only so benchmarks/bench_deal.py can measure it
beside the Terelius-Wikstrom proof that replaced it (docs/deal.md §8).  Not used by the game.

Cut and choose with SHADOWS shadow shuffles (Sako-Kilian): a wrong shuffle passes with probability
2^-SHADOWS (2^-12).  Its dhash tags ("deal/shadow", "deal/shadow-perm", "deal/shadow-rerand",
"deal/shadow-deck", "deal/challenge") are retired from core/hashing.TAGS and protocol.md §3.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.deal import (  # noqa: E402
    _NULL, _ZERO, SECRET_BYTES, Counter, DealError, _CryptoError, _base, _check_ctx, _check_shuffle_args, _is_scalar,
    _mul, _permute, _plan, _shuffle_plan, _ssub, _sub,
)
from core.hashing import dhash  # noqa: E402

SHADOWS = 12


def _shadow_plan(seed: bytes, n: int, game_id: bytes, seat: int) -> tuple[list[int], list[bytes]]:
    """Shadow shuffle's permutation and re-randomisers: the real shuffle's code on seed_i."""
    if type(seed) is not bytes or len(seed) != 32:
        raise DealError("a shadow seed must be 32 bytes")
    _check_ctx(game_id, seat)
    return _plan(seed, n, game_id, seat, "deal/shadow-perm", "deal/shadow-rerand")

# --------------------------------------------------------------------------- the shuffle proof
#
# Cut and choose with shadow shuffles (Sako-Kilian).  With its output the shuffler
# publishes H_i = dhash("deal/shadow-deck", game_id, seat, i, shadow_i) for k shadow
# shuffles of its *input* deck.  After a challenge it cannot know (the table's
# beacon, drawn after every shuffle is in), it opens each shadow one way: bit 0,
# input -> shadow (the seed the shadow comes from); bit 1, shadow -> output (the
# permutation and re-randomisers that take shadow_i to the output).  Both openings
# of one shadow would prove the output a shuffle of the input, so a wrong output
# survives each bit with probability 1/2 at most.  An opening reveals nothing of
# the real shuffle: bit 0 is independent of it, bit 1 is masked by the shadow.


def shadow_seed(secret: bytes, game_id: bytes, seat: int, i: int) -> bytes:
    """seed_i = dhash("deal/shadow", secret, game_id, seat, i): shadow i of the seat's shuffle."""
    if type(secret) is not bytes or len(secret) != SECRET_BYTES:
        raise DealError("seat secret must be %d bytes" % SECRET_BYTES)
    _check_ctx(game_id, seat)
    return dhash("deal/shadow", secret, game_id, seat, i)


def shadow_deck(deck_in: Sequence[bytes], seed: bytes, joint: bytes, game_id: bytes, seat: int,
                ops: Counter | None = None) -> list[bytes]:
    """The shadow shuffle of ``deck_in`` that ``seed`` gives (the real shuffle's code, other tags)."""
    ops = ops or _NULL
    _check_shuffle_args(deck_in, joint)
    perm, rs = _shadow_plan(seed, len(deck_in), game_id, seat)
    return _permute(deck_in, perm, rs, joint, ops)


def _shadow_hash(game_id: bytes, seat: int, i: int, deck: Sequence[bytes]) -> bytes:
    return dhash("deal/shadow-deck", game_id, seat, i, b"".join(deck))


def shuffle_commit(deck_in: Sequence[bytes], secret: bytes, joint: bytes, game_id: bytes, seat: int,
                   k: int = SHADOWS, ops: Counter | None = None) -> list[bytes]:
    """[H_0 .. H_{k-1}]: the commitments to the seat's k shadow shuffles of its input deck."""
    ops = ops or _NULL
    return [_shadow_hash(game_id, seat, i,
                         shadow_deck(deck_in, shadow_seed(secret, game_id, seat, i), joint, game_id, seat, ops))
            for i in range(k)]


def challenge_bits(entropy: Any, game_id: bytes, k: int = SHADOWS) -> list[int]:
    """Bit i of dhash("deal/challenge", entropy, game_id), i < k (bit i: byte i // 8, bit i % 8, LSB first)."""
    if type(entropy) is not bytes or len(entropy) != 32:
        raise DealError("challenge entropy must be 32 bytes")
    _check_ctx(game_id, 0)
    if type(k) is not int or not 1 <= k <= 256:
        raise DealError("number of shadows must be 1..256")
    h = dhash("deal/challenge", entropy, game_id)
    return [(h[i >> 3] >> (i & 7)) & 1 for i in range(k)]


def prove_shuffle(n_cards: int, secret: bytes, game_id: bytes, seat: int, bits: Sequence[int]) -> list[Any]:
    """The seat's openings for challenge ``bits`` (no multiplication: seeds and scalar arithmetic).

    Bit 0: the 32-byte seed_i.  Bit 1: ``{"perm": p, "r": rs}`` with
    output[j] = re-encryption of shadow_i[p[j]] by rs[j]: p = sigma^-1 . pi and
    rs[j] = r_j - s_{p[j]} (pi, r the real shuffle's; sigma, s the shadow's).
    """
    perm, rs = _shuffle_plan(secret, n_cards, game_id, seat)
    out: list[Any] = []
    for i, b in enumerate(bits):
        seed = shadow_seed(secret, game_id, seat, i)
        if b == 0:
            out.append(seed)
            continue
        sperm, srs = _shadow_plan(seed, n_cards, game_id, seat)
        inv = [0] * n_cards
        for m, x in enumerate(sperm):
            inv[x] = m
        p = [inv[perm[j]] for j in range(n_cards)]
        out.append({"perm": p, "r": [_ssub(rs[j], srs[p[j]]) for j in range(n_cards)]})
    return out


def _unshuffle(deck_out: Sequence[bytes], p: list[int], rs: list[bytes], joint: bytes, ops: Counter) -> list[bytes]:
    """The deck S with S[p[j]] = deck_out[j] - rs[j]*(G, Y) (p a permutation, rs canonical)."""
    sh: list[bytes] = [b""] * len(deck_out)
    for j, ct in enumerate(deck_out):
        r = rs[j]
        if r == _ZERO:
            sh[p[j]] = ct
        else:
            sh[p[j]] = _sub(ct[:32], _base(r, ops)) + _sub(ct[32:], _mul(r, joint, ops))
    return sh


def verify_shuffle_proof(deck_in: Sequence[bytes], deck_out: Sequence[bytes], commit: Any, bits: Sequence[int],
                         openings: Any, joint: bytes, game_id: bytes, seat: int,
                         ops: Counter | None = None) -> str | None:
    """Check a seat's shuffle proof: None if every shadow opens to its commitment, else the problem.

    ``deck_in`` is the seat's input deck and ``deck_out`` its output, which must
    already have passed ``check_deck`` (so the subtraction below works on valid
    points); ``commit`` the published [H_i], ``bits`` the challenge.  Never
    raises on peer bytes: a malformed opening is a problem naming the shadow.
    """
    ops = ops or _NULL
    _check_ctx(game_id, seat)
    n = len(deck_in)
    k = len(bits)
    if not isinstance(commit, list) or len(commit) != k or any(type(h) is not bytes or len(h) != 32 for h in commit):
        return "the commitment must be a list of %d 32-byte hashes" % k
    if not isinstance(openings, list) or len(openings) != k:
        return "the proof must be a list of %d openings" % k
    if not isinstance(deck_out, list) or len(deck_out) != n:
        return "the shuffled deck has the wrong size"
    for i, (b, o) in enumerate(zip(bits, openings)):
        if b == 0:
            if type(o) is not bytes or len(o) != 32:
                return "shadow %d: challenge bit 0 is opened by its 32-byte seed" % i
            try:
                sh = shadow_deck(deck_in, o, joint, game_id, seat, ops)
            except (DealError, _CryptoError):
                return "shadow %d: the input deck cannot be shuffled" % i
            if _shadow_hash(game_id, seat, i, sh) != commit[i]:
                return "shadow %d: the seed does not give the committed shadow of the input deck" % i
            continue
        if not isinstance(o, dict) or set(o) != {"perm", "r"}:
            return "shadow %d: challenge bit 1 is opened by a map with exactly perm and r" % i
        p, rs = o["perm"], o["r"]
        if not isinstance(p, list) or len(p) != n or any(type(x) is not int for x in p) or sorted(p) != list(range(n)):
            return "shadow %d: perm is not a permutation of 0..%d" % (i, n - 1)
        if not isinstance(rs, list) or len(rs) != n:
            return "shadow %d: r must be a list of %d scalars" % (i, n)
        for j, r in enumerate(rs):
            if not _is_scalar(r):
                return "shadow %d: r[%d] is not a canonical 32-byte scalar" % (i, j)
        try:
            sh = _unshuffle(deck_out, p, rs, joint, ops)
        except _CryptoError:  # pragma: no cover (deck_out was checked: valid points)
            return "shadow %d: the output deck cannot be opened" % i
        if _shadow_hash(game_id, seat, i, sh) != commit[i]:
            return "shadow %d: the output is not the committed shadow re-shuffled by perm and r" % i
    return None


