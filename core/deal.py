"""A trustless deal: ElGamal over the prime-order group of edwards25519, with
Schnorr and Chaum-Pedersen (DLEQ) proofs made non-interactive with ``dhash``.

Pure functions, bytes in and bytes out; nothing here draws randomness (the
64-byte seat secret is passed in) or keeps state.  docs/deal.md is the design
and the message formats; this docstring is the short version.

Group.  PyNaCl 1.6.2 exposes no ristretto255 functions, so the group is the
prime-order subgroup (order ``L``) of edwards25519 through libsodium's
``crypto_core_ed25519_*`` / ``crypto_scalarmult_ed25519_*_noclamp``.  Every
point a peer receives must pass ``crypto_core_ed25519_is_valid_point``
(canonical encoding, in the prime-order subgroup, not of small order, so not
the identity); every scalar must be canonical (``< L``).  ``G`` is the
standard base point.

Seat s: secret scalar y_s from its 64-byte seat secret, public Y_s = y_s*G with
a Schnorr proof of knowledge; joint key Y = sum of Y_s.  Card i is the point
P_i = from_uniform(dhash("deal/card", game_id, i)).  A ciphertext is the 64
bytes C1 || C2 with C1 = r*G, C2 = P + r*Y.

Deck: the initial deck is (O, P_i) for i in 0..n-1 (O the identity, r = 0; it
is computed, never sent).  Seat 0, 1, ... in turn permute and re-randomise
every ciphertext (C1 + r*G, C2 + r*Y), permutation and r's derived from the
seat secret, so disclosing the secret at the end lets anyone redo the shuffle.

Shuffle proof (cut and choose, Sako-Kilian): with its output a seat commits to
SHADOWS shadow shuffles of its input (hashes only); after a challenge drawn
from the table's beacon once every shuffle is in, it opens each shadow either
to the input (its seed) or to the output (permutation and re-randomisers);
every peer checks before giving any share.  A wrong shuffle passes with
probability 2^-SHADOWS; the disclosure at the end catches it always.

Dealing position j to seat k: every other seat s publishes D_s = y_s*C1_j with
a DLEQ proof log_G(Y_s) = log_C1(D_s); the owner gets P = C2 - sum D_s - y_k*C1
and looks it up.  Playing it: the owner publishes its own share + proof, and
everyone recomputes P and the card.

Every function that multiplies takes an optional ``ops`` (a Counter) and
counts what it does there; nothing else is counted or kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import nacl.bindings as _nb
from nacl.exceptions import CryptoError as _CryptoError

from .hashing import dhash
from .rng import Rng

__all__ = [
    "L", "POINT_BYTES", "SCALAR_BYTES", "SECRET_BYTES", "CT_BYTES", "PROOF_BYTES", "TAGS",
    "DealError", "Counter",
    "keygen", "public_of", "verify_key", "joint_key", "verify_disclosure",
    "card_points", "card_table", "initial_deck", "check_deck",
    "shuffle", "verify_shuffle_disclosed", "audit_shuffles",
    "SHADOWS", "shadow_seed", "shadow_deck", "shuffle_commit", "challenge_bits", "prove_shuffle",
    "verify_shuffle_proof",
    "share", "verify_share", "open_card", "verify_play", "assign_positions",
]

L = 2**252 + 27742317777372353535851937790883648493  # order of the prime-order subgroup
POINT_BYTES = 32
SCALAR_BYTES = 32
SECRET_BYTES = 64
CT_BYTES = 64
PROOF_BYTES = 64  # challenge c || response s, both canonical scalars

# Every dhash tag used here (to be listed with core/hashing.TAGS and protocol.md §3).
TAGS = (
    "deal/card",         # game_id, i -> 32 bytes for from_uniform: card point P_i
    "deal/key",          # (0|1), secret, game_id, seat -> 64 bytes -> y_s
    "deal/key-nonce",    # (0|1), y, game_id, seat, Y -> Schnorr nonce
    "deal/key-proof",    # (0|1), game_id, seat, Y, R -> Schnorr challenge
    "deal/perm",         # secret, game_id, seat -> PRNG seed of the seat's permutation
    "deal/rerand",       # (0|1), secret, game_id, seat, i, try -> r for output position i
    "deal/share-nonce",  # (0|1), y, game_id, seat, pos, C1 -> DLEQ nonce
    "deal/share-proof",  # (0|1), game_id, seat, pos, Y_s, C1, D, A, B -> DLEQ challenge
    # the shuffle proof (cut-and-choose shadow shuffles, docs/deal.md §3)
    "deal/shadow",        # secret, game_id, seat, i -> seed_i of shadow shuffle i (32 bytes)
    "deal/shadow-perm",   # seed_i, game_id, seat -> PRNG seed of shadow i's permutation
    "deal/shadow-rerand", # (0|1), seed_i, game_id, seat, j, try -> shadow i's r for output position j
    "deal/shadow-deck",   # game_id, seat, i, shadow deck bytes -> commitment H_i
    "deal/challenge",     # beacon entropy, game_id -> the challenge bits
)

# Shadow shuffles per shuffle proof.  A shuffle that is not a permutation and
# re-encryption of its input passes the proof only if every challenge bit is the
# one its shadows were prepared for: probability 2^-SHADOWS (docs/deal.md §4
# argues the number and gives its cost; the disclosure catches it always).
SHADOWS = 12

IDENTITY = b"\x01" + bytes(31)  # canonical encoding of the neutral element (never sent)
_ONE = (1).to_bytes(32, "little")
_ZERO = bytes(32)


class DealError(ValueError):
    """A malformed input (wrong length, non-canonical point or scalar, ...); the message says which."""


@dataclass
class Counter:
    """What the deal functions cost: scalar multiplications and point checks.

    ``base``: fixed-base multiplications k*G; ``var``: variable-base k*P;
    ``checks``: received points validated (each one subgroup check).
    """

    base: int = 0
    var: int = 0
    checks: int = 0

    @property
    def mults(self) -> int:
        return self.base + self.var

    def as_dict(self) -> dict:
        return {"base": self.base, "var": self.var, "checks": self.checks, "mults": self.mults}


_NULL = Counter()  # a sink when the caller passes none (its figures are never read)


# --------------------------------------------------------------------------- group helpers


G = _nb.crypto_scalarmult_ed25519_base_noclamp(_ONE)


def _is_point(p: Any) -> bool:
    return type(p) is bytes and len(p) == POINT_BYTES and _nb.crypto_core_ed25519_is_valid_point(p)


def _is_scalar(s: Any) -> bool:
    """Canonical scalar: 32 bytes, little-endian, < L (checked with libsodium's reduction)."""
    return type(s) is bytes and len(s) == SCALAR_BYTES and _nb.crypto_core_ed25519_scalar_reduce(s + _ZERO) == s


def _wide(tag: str, *parts: Any) -> bytes:
    """64 bytes from two domain-separated hashes (the input of a scalar reduction)."""
    return dhash(tag, 0, *parts) + dhash(tag, 1, *parts)


def _scalar(tag: str, *parts: Any) -> bytes:
    """A uniform non-zero scalar from a hash (zero has probability 1/L: try again)."""
    t = 0
    while True:
        s = _nb.crypto_core_ed25519_scalar_reduce(_wide(tag, *parts, t) if t else _wide(tag, *parts))
        if s != _ZERO:
            return s
        t += 1  # pragma: no cover


def _base(k: bytes, ops: Counter) -> bytes:
    ops.base += 1
    return _nb.crypto_scalarmult_ed25519_base_noclamp(k)


def _mul(k: bytes, p: bytes, ops: Counter) -> bytes:
    """k*p; libsodium refuses a point outside the subgroup and a result that is the identity."""
    ops.var += 1
    return _nb.crypto_scalarmult_ed25519_noclamp(k, p)


_add = _nb.crypto_core_ed25519_add
_sub = _nb.crypto_core_ed25519_sub
_smul = _nb.crypto_core_ed25519_scalar_mul
_sadd = _nb.crypto_core_ed25519_scalar_add
_ssub = _nb.crypto_core_ed25519_scalar_sub


def _check_ctx(game_id: Any, seat: Any) -> None:
    if type(game_id) is not bytes or len(game_id) != 32:
        raise DealError("game id must be 32 bytes")
    if type(seat) is not int or not 0 <= seat < 2**16:
        raise DealError("seat must be a non-negative integer")


def _secret_scalar(secret: Any, game_id: bytes, seat: int) -> bytes:
    if type(secret) is not bytes or len(secret) != SECRET_BYTES:
        raise DealError("seat secret must be %d bytes" % SECRET_BYTES)
    _check_ctx(game_id, seat)
    return _scalar("deal/key", secret, game_id, seat)


def _split(ct: Any) -> tuple[bytes, bytes]:
    if type(ct) is not bytes or len(ct) != CT_BYTES:
        raise DealError("a ciphertext must be %d bytes" % CT_BYTES)
    return ct[:32], ct[32:]


# --------------------------------------------------------------------------- keys


def keygen(rand64: bytes, game_id: bytes, seat: int, ops: Counter | None = None) -> tuple[bytes, bytes, bytes]:
    """Seat key from 64 random bytes: (secret, public, proof).

    ``secret`` is the seat secret itself (the 64 bytes, kept private until the
    disclosure at the end); ``public`` = y*G; ``proof`` a Schnorr proof of
    knowledge of y bound to (game_id, seat), so no seat can choose its key as a
    function of another's (rogue key) or copy another seat's key.
    """
    ops = ops or _NULL
    y = _secret_scalar(rand64, game_id, seat)
    Y = _base(y, ops)
    k = _scalar("deal/key-nonce", y, game_id, seat, Y)
    R = _base(k, ops)
    c = _scalar("deal/key-proof", game_id, seat, Y, R)
    s = _sadd(k, _smul(c, y))
    return rand64, Y, c + s


def public_of(secret: bytes, game_id: bytes, seat: int, ops: Counter | None = None) -> bytes:
    """The public key a seat secret gives (for checking a disclosure)."""
    return _base(_secret_scalar(secret, game_id, seat), ops or _NULL)


def verify_key(public: Any, proof: Any, game_id: bytes, seat: int, ops: Counter | None = None) -> bool:
    """A published key and its proof of knowledge, for this game and seat."""
    ops = ops or _NULL
    _check_ctx(game_id, seat)
    if type(proof) is not bytes or len(proof) != PROOF_BYTES:
        return False
    ops.checks += 1
    if not _is_point(public):
        return False
    c, s = proof[:32], proof[32:]
    if not (_is_scalar(c) and _is_scalar(s)):
        return False
    try:
        R = _sub(_base(s, ops), _mul(c, public, ops))  # s*G - c*Y
    except _CryptoError:
        return False
    return _scalar("deal/key-proof", game_id, seat, public, R) == c


def joint_key(publics: Sequence[bytes]) -> bytes:
    """Y = sum of the seats' public keys (each must be a valid point)."""
    if not publics:
        raise DealError("no public keys")
    for i, p in enumerate(publics):
        if not _is_point(p):
            raise DealError("public key %d is not a valid point" % i)
    Y = publics[0]
    for p in publics[1:]:
        Y = _add(Y, p)
    if not _is_point(Y):  # the identity: only if the keys cancel, which the proofs rule out
        raise DealError("joint key is the identity")
    return Y


def verify_disclosure(public: bytes, secret: Any, game_id: bytes, seat: int, ops: Counter | None = None) -> bool:
    """A seat secret disclosed at the end is the one behind the seat's key."""
    try:
        return public_of(secret, game_id, seat, ops) == public
    except DealError:
        return False


# --------------------------------------------------------------------------- cards and decks


def card_points(game_id: bytes, n_cards: int) -> list[bytes]:
    """P_i = from_uniform(dhash("deal/card", game_id, i)) for i < n_cards (distinct, checked)."""
    _check_ctx(game_id, 0)
    if type(n_cards) is not int or not 1 <= n_cards <= 4096:
        raise DealError("number of cards must be 1..4096")
    pts = [_nb.crypto_core_ed25519_from_uniform(dhash("deal/card", game_id, i)) for i in range(n_cards)]
    if len(set(pts)) != n_cards or not all(_is_point(p) for p in pts):  # pragma: no cover (2^-250)
        raise DealError("card points collide")
    return pts


def card_table(game_id: bytes, n_cards: int) -> dict[bytes, int]:
    """Card point -> card id, for looking up an opened card."""
    return {p: i for i, p in enumerate(card_points(game_id, n_cards))}


def initial_deck(game_id: bytes, n_cards: int) -> list[bytes]:
    """The deck before any shuffle: card i at position i as (O, P_i), i.e. r = 0.

    Everyone computes it; it is never sent (the identity O is not a valid point
    on the wire).  The first shuffle's re-randomisation makes every C1 = r*G.
    """
    return [IDENTITY + p for p in card_points(game_id, n_cards)]


def check_deck(deck: Any, n_cards: int, ops: Counter | None = None) -> str | None:
    """What every peer checks at once on a shuffled deck it receives: None if fine, else the problem.

    n_cards ciphertexts of 64 bytes, every half a valid point, no C1 used twice
    (a copied ciphertext that was not re-randomised).  A re-randomised copy or
    a substitution cannot be seen here: the disclosure at the end finds it.
    """
    ops = ops or _NULL
    if not isinstance(deck, list) or len(deck) != n_cards:
        return "deck must be a list of %d ciphertexts" % n_cards
    seen: set[bytes] = set()
    for j, ct in enumerate(deck):
        if type(ct) is not bytes or len(ct) != CT_BYTES:
            return "position %d: a ciphertext must be %d bytes" % (j, CT_BYTES)
        ops.checks += 2
        if not (_is_point(ct[:32]) and _is_point(ct[32:])):
            return "position %d: not a pair of valid points" % j
        if ct[:32] in seen:
            return "position %d: repeats another position's C1" % j
        seen.add(ct[:32])
    return None


def _plan(key: bytes, n: int, game_id: bytes, seat: int, perm_tag: str, rerand_tag: str) -> tuple[list[int], list[bytes]]:
    """A permutation (output j takes input perm[j]) and re-randomisers r_j, derived from ``key``."""
    perm = list(range(n))
    Rng(dhash(perm_tag, key, game_id, seat), perm_tag).shuffle(perm)
    rs = [_scalar(rerand_tag, key, game_id, seat, j) for j in range(n)]
    return perm, rs


def _shuffle_plan(secret: bytes, n: int, game_id: bytes, seat: int) -> tuple[list[int], list[bytes]]:
    """The seat's permutation (output j takes input perm[j]) and re-randomisers r_j."""
    if type(secret) is not bytes or len(secret) != SECRET_BYTES:
        raise DealError("seat secret must be %d bytes" % SECRET_BYTES)
    _check_ctx(game_id, seat)
    return _plan(secret, n, game_id, seat, "deal/perm", "deal/rerand")


def _shadow_plan(seed: bytes, n: int, game_id: bytes, seat: int) -> tuple[list[int], list[bytes]]:
    """Shadow shuffle's permutation and re-randomisers: the real shuffle's code on seed_i."""
    if type(seed) is not bytes or len(seed) != 32:
        raise DealError("a shadow seed must be 32 bytes")
    _check_ctx(game_id, seat)
    return _plan(seed, n, game_id, seat, "deal/shadow-perm", "deal/shadow-rerand")


def _reencrypt(ct: bytes, r: bytes, joint: bytes, ops: Counter) -> bytes:
    c1, c2 = ct[:32], ct[32:]
    return _add(c1, _base(r, ops)) + _add(c2, _mul(r, joint, ops))


def _permute(deck: Sequence[bytes], perm: list[int], rs: list[bytes], joint: bytes, ops: Counter) -> list[bytes]:
    return [_reencrypt(deck[perm[j]], rs[j], joint, ops) for j in range(len(deck))]


def _check_shuffle_args(deck: Sequence[bytes], joint: bytes) -> None:
    if not _is_point(joint):
        raise DealError("joint key is not a valid point")
    for ct in deck:
        _split(ct)


def shuffle(deck: Sequence[bytes], secret: bytes, joint: bytes, game_id: bytes, seat: int,
            ops: Counter | None = None) -> list[bytes]:
    """Seat ``seat``'s shuffle: out[j] = re-encryption of deck[perm[j]] with r_j.

    perm and the r_j come from the seat secret (so they are disclosed with it).
    Deterministic: the same inputs give the same bytes.
    """
    ops = ops or _NULL
    _check_shuffle_args(deck, joint)
    perm, rs = _shuffle_plan(secret, len(deck), game_id, seat)
    return _permute(deck, perm, rs, joint, ops)


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


def verify_shuffle_disclosed(deck_in: Sequence[bytes], deck_out: Any, secret: bytes, joint: bytes,
                             game_id: bytes, seat: int, ops: Counter | None = None) -> str | None:
    """Redo a seat's shuffle from its disclosed secret: None if deck_out is exactly it, else the problem."""
    ops = ops or _NULL
    if not isinstance(deck_out, list) or len(deck_out) != len(deck_in):
        return "the shuffled deck has %s ciphertexts, not %d" % (
            len(deck_out) if isinstance(deck_out, list) else "no", len(deck_in))
    try:
        perm, rs = _shuffle_plan(secret, len(deck_in), game_id, seat)
    except DealError as exc:
        return "disclosed secret unusable: %s" % exc
    for j in range(len(deck_in)):
        try:
            want = _reencrypt(deck_in[perm[j]], rs[j], joint, ops)
        except (_CryptoError, TypeError):
            return "the input deck is malformed at position %d" % perm[j]
        if deck_out[j] != want:
            return "position %d is not the re-encryption of input position %d" % (j, perm[j])
    return None


def _decrypt_all(ct: bytes, ys: Sequence[bytes], ops: Counter) -> bytes:
    c1, c2 = ct[:32], ct[32:]
    p = c2
    for y in ys:
        p = _sub(p, _mul(y, c1, ops))
    return p


def audit_shuffles(game_id: bytes, n_cards: int, publics: Sequence[bytes], decks: Sequence[Any],
                   secrets: Sequence[Any], ops: Counter | None = None,
                   proofs: Sequence[Any] | None = None) -> list[tuple[int, str]]:
    """The end-of-game check of the whole deal: [(seat, problem), ...], empty if all is well.

    ``decks[s]`` is seat s's published shuffle output (seats shuffle in order
    0, 1, ...); ``secrets[s]`` its disclosed seat secret (None if withheld).
    Each seat is named for a secret that does not match its key, or a shuffle
    output that is not exactly the one its secret gives (or a deck the peers
    would have refused at once); when every secret checks, a wrong output is
    decrypted and its duplicated / missing / non-card positions are listed.

    ``proofs[s]`` (optional) is seat s's shuffle proof ``(commit, bits,
    openings)``.  It is checked only for a seat whose secret is missing or
    wrong: a disclosed secret redoes the shuffle exactly, which proves more
    (so with every secret disclosed the audit costs one shuffle per seat).
    """
    ops = ops or _NULL
    n = len(publics)
    if len(decks) != n or len(secrets) != n or (proofs is not None and len(proofs) != n):
        raise DealError("need one deck and one secret (or None) per seat (and one proof or None)")
    problems: list[tuple[int, str]] = []
    joint = joint_key(publics)
    table = card_table(game_id, n_cards)
    deck = initial_deck(game_id, n_cards)
    ys: list[bytes | None] = []
    for s in range(n):
        sec = secrets[s]
        if sec is None:
            problems.append((s, "seat secret not disclosed"))
            ys.append(None)
        elif not verify_disclosure(publics[s], sec, game_id, s, ops):
            problems.append((s, "disclosed secret does not match the seat's key"))
            ys.append(None)
        else:
            ys.append(_secret_scalar(sec, game_id, s))
    everyone = None not in ys
    for s in range(n):
        malformed = check_deck(decks[s], n_cards, ops)
        if malformed is not None:
            # the peers refuse such a deck at once, so only a forged log holds one; the later
            # shuffles were not built on a valid deck and are not checked
            problems.append((s, "published deck is malformed: " + malformed))
            break
        if ys[s] is None and proofs is not None and proofs[s] is not None:
            try:
                commit, bits, openings = proofs[s]
                bad = verify_shuffle_proof(deck, decks[s], commit, bits, openings, joint, game_id, s, ops)
            except (TypeError, ValueError):
                bad = "the proof is not (commit, bits, openings)"
            if bad is not None:
                problems.append((s, "shuffle proof fails: " + bad))
        if ys[s] is not None:
            bad = verify_shuffle_disclosed(deck, decks[s], secrets[s], joint, game_id, s, ops)
            if bad is not None:
                detail = ""
                if everyone:
                    got = [table.get(_decrypt_all(ct, ys, ops)) for ct in decks[s]]
                    dup = sorted({c for c in got if c is not None and got.count(c) > 1})
                    missing = sorted(set(range(n_cards)) - set(got))
                    alien = [j for j, c in enumerate(got) if c is None]
                    if dup:
                        detail += "; duplicated card(s) %s" % dup
                    if missing:
                        detail += "; missing card(s) %s" % missing
                    if alien:
                        detail += "; position(s) %s hold no card" % alien
                problems.append((s, "shuffle is wrong: " + bad + detail))
        deck = decks[s]
    return problems


# --------------------------------------------------------------------------- shares and plays


def _dleq_challenge(game_id: bytes, seat: int, pos: int, Y: bytes, c1: bytes, D: bytes, A: bytes, B: bytes) -> bytes:
    return _scalar("deal/share-proof", game_id, seat, pos, Y, c1, D, A, B)


def share(secret: bytes, ct: bytes, game_id: bytes, seat: int, pos: int,
          ops: Counter | None = None) -> tuple[bytes, bytes]:
    """Seat ``seat``'s decryption share for the ciphertext at position ``pos``: (D, proof).

    D = y*C1; proof = (c, s), a Chaum-Pedersen proof that log_G(Y) = log_C1(D),
    bound to (game_id, seat, pos).  The nonce is derived from y and the message
    (deterministic, as in EdDSA).  The same function makes the owner's share
    when it plays the card.
    """
    ops = ops or _NULL
    y = _secret_scalar(secret, game_id, seat)
    if type(pos) is not int or not 0 <= pos < 2**16:
        raise DealError("position must be a non-negative integer")
    c1, _ = _split(ct)
    if not _is_point(c1):
        raise DealError("C1 is not a valid point")
    Y = _base(y, ops)
    D = _mul(y, c1, ops)
    k = _scalar("deal/share-nonce", y, game_id, seat, pos, c1)
    A = _base(k, ops)
    B = _mul(k, c1, ops)
    c = _dleq_challenge(game_id, seat, pos, Y, c1, D, A, B)
    s = _sadd(k, _smul(c, y))
    return D, c + s


def verify_share(public: bytes, ct: bytes, D: Any, proof: Any, game_id: bytes, seat: int, pos: int,
                 ops: Counter | None = None) -> bool:
    """Check seat ``seat``'s share D for the ciphertext at ``pos`` against its key ``public``."""
    ops = ops or _NULL
    _check_ctx(game_id, seat)
    if type(pos) is not int or pos < 0:
        return False
    if type(proof) is not bytes or len(proof) != PROOF_BYTES or type(ct) is not bytes or len(ct) != CT_BYTES:
        return False
    c, s = proof[:32], proof[32:]
    if not (_is_scalar(c) and _is_scalar(s)):
        return False
    ops.checks += 1
    if not _is_point(D):
        return False
    c1 = ct[:32]
    try:
        A = _sub(_base(s, ops), _mul(c, public, ops))   # s*G - c*Y = k*G
        B = _sub(_mul(s, c1, ops), _mul(c, D, ops))     # s*C1 - c*D = k*C1
    except _CryptoError:
        return False
    return _dleq_challenge(game_id, seat, pos, public, c1, D, A, B) == c


def open_card(ct: bytes, shares_of_others: Sequence[bytes], secret: bytes, game_id: bytes, seat: int,
              table: dict[bytes, int], ops: Counter | None = None) -> int | None:
    """The owner's view of its card: C2 - sum(others' D) - y*C1, looked up; None if it is no card.

    The shares must already have passed verify_share.  None means the deck was
    tampered with (a substituted card): the owner cannot say by whom until the
    secrets are disclosed.
    """
    ops = ops or _NULL
    y = _secret_scalar(secret, game_id, seat)
    c1, c2 = _split(ct)
    try:
        p = _sub(c2, _mul(y, c1, ops))
        for d in shares_of_others:
            p = _sub(p, d)
    except _CryptoError:
        return None
    return table.get(p)


def verify_play(ct: bytes, shares_of_others: Sequence[bytes], owner_public: bytes, D: Any, proof: Any,
                card: Any, game_id: bytes, owner: int, pos: int, table: dict[bytes, int],
                ops: Counter | None = None) -> str | None:
    """Check a card play: the owner's share opens position ``pos`` to ``card``.  None if fine.

    ``shares_of_others`` are the (already verified) shares the other seats gave
    when the position was dealt; that the position was dealt to ``owner`` is
    the caller's check (see assign_positions).
    """
    ops = ops or _NULL
    if not verify_share(owner_public, ct, D, proof, game_id, owner, pos, ops):
        return "the player's decryption share for position %d does not verify" % pos
    p = ct[32:]
    try:
        for d in (D, *shares_of_others):
            p = _sub(p, d)
    except _CryptoError:
        return "position %d cannot be opened" % pos
    got = table.get(p)
    if got is None:
        return "position %d opens to no card (the deck was tampered with)" % pos
    if got != card:
        return "position %d holds card %d, not card %r" % (pos, got, card)
    return None


def assign_positions(next_pos: int, counts: Sequence[int]) -> tuple[list[tuple[int, int]], int]:
    """Deal ``counts[s]`` cards to each seat s from the shuffled deck, positions in order.

    Seat 0 takes the next counts[0] positions, then seat 1, ...; returns
    ([(position, seat), ...], the next unused position).  Later rounds continue
    from where the previous one stopped, so every card comes from the one deck.
    """
    out: list[tuple[int, int]] = []
    pos = next_pos
    for s, k in enumerate(counts):
        if type(k) is not int or k < 0:
            raise DealError("card counts must be non-negative integers")
        out.extend((pos + i, s) for i in range(k))
        pos += k
    return out, pos
