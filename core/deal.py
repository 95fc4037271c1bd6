"""A trustless deal: ElGamal over the prime-order group of edwards25519, with
Schnorr and Chaum-Pedersen (DLEQ) proofs made non-interactive with ``dhash``.

Pure functions, bytes in and bytes out; nothing here draws randomness (the
64-byte seat secret is passed in) or keeps state.  docs/deal.md is the design
and the message formats; this docstring is the short version.  (Over the
house's ~900 lines: one job, the deal's cryptography, and about half of it is
the Terelius-Wikstrom shuffle proof, which reads best beside the ElGamal and
Chaum-Pedersen pieces it is built from; split, a reader would hold two files
to check one proof against docs/deal.md §2a.)

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

Shuffle proof (Terelius-Wikstrom, as the pseudo-code of Haenni, Locher,
Koenig, Dubuis, FC 2017): with its output a seat publishes a proof that the
output is a permutation and re-encryption of its input: a Pedersen commitment
to the permutation (generators h, h_1..h_N hashed to the curve, nobody knows a
discrete log between them), a chain of commitments to the permuted challenges,
and a Sigma-protocol made non-interactive by Fiat-Shamir over the whole
statement (game id, seat, joint key, both decks, the generators, the prover's
commitments).  A wrong shuffle passes with probability about (N+2)/L per hash
query (docs/deal.md §4: < 2^-245 at N = 70); every peer checks it before it
gives any share; the disclosure at the end redoes every shuffle exactly.

Dealing position j to seat k: every other seat s publishes D_s = y_s*C1_j with
a DLEQ proof log_G(Y_s) = log_C1(D_s); the owner gets P = C2 - sum D_s - y_k*C1
and looks it up.  Playing it: the owner publishes its own share + proof, and
everyone recomputes P and the card.

Every function that multiplies takes an optional ``ops`` (a Counter) and
counts what it does there; nothing else is counted or kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
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
    "shuffle", "shuffle_prep", "ShufflePrep", "shuffle_offline", "ShuffleOffline", "verify_shuffle_disclosed", "audit_shuffles",
    "generators", "proof_bytes", "prove_shuffle", "check_shuffle_form", "verify_shuffle_proof", "SOUNDNESS_BITS",
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
    # the shuffle proof (Terelius-Wikstrom, docs/deal.md §3)
    "deal/gen",           # i -> 32 bytes for from_uniform: generator h (i = 0) and h_1..h_N (i = 1..N)
    "deal/gen-set",       # N, h || h_1 || .. || h_N -> the generators' context (in the statement)
    "deal/pi-stmt",       # game_id, seat, joint, N, gen-set, deck_in, deck_out, commitments -> statement hash
    "deal/pi-u",          # (0|1), statement, i -> challenge u_i (one per input position)
    "deal/pi-challenge",  # (0|1), statement, chain, t1, t2, t3, t41, t42, t^ -> challenge c
    "deal/pi-nonce",      # (0|1), secret, game_id, seat, [statement,] what, i -> the prover's randomness
)

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
            ops: Counter | None = None, prep: "ShufflePrep | None" = None) -> list[bytes]:
    """Seat ``seat``'s shuffle: out[j] = re-encryption of deck[perm[j]] with r_j.

    perm and the r_j come from the seat secret (so they are disclosed with it).
    Deterministic: the same inputs give the same bytes.
    """
    ops = ops or _NULL
    _check_shuffle_args(deck, joint)
    if prep is not None:
        _check_prep(prep, secret, len(deck), joint, game_id, seat)
        return [_add(deck[i][:32], rg) + _add(deck[i][32:], ry) for i, rg, ry in zip(prep.perm, prep.rG, prep.rY)]
    perm, rs = _shuffle_plan(secret, len(deck), game_id, seat)
    return _permute(deck, perm, rs, joint, ops)


@dataclass(frozen=True)
class ShufflePrep:
    """Everything of a seat's shuffle and shuffle proof that does not depend on the input deck
    (``shuffle_prep``): computed while the seat waits for the previous deck."""

    secret: bytes
    n: int
    joint: bytes
    game_id: bytes
    seat: int
    perm: tuple            # output j takes input perm[j]
    rs: tuple              # re-randomisers r_j
    rG: tuple              # r_j*G
    rY: tuple              # r_j*Y
    cr: tuple              # the permutation commitment's randomness cr_i ("deal/pi-nonce", "r", i)
    coms: tuple            # the permutation commitment c_i = cr_i*G + h_{perm^-1(i)}


@dataclass(frozen=True)
class ShuffleOffline:
    """The part of ``ShufflePrep`` that needs neither the deck nor the other seats' keys
    (``shuffle_offline``): computed as soon as the game id is known, while the keys come."""

    secret: bytes
    n: int
    game_id: bytes
    seat: int
    perm: tuple
    rs: tuple
    rG: tuple
    cr: tuple
    coms: tuple


def shuffle_offline(secret: bytes, n: int, game_id: bytes, seat: int, ops: Counter | None = None) -> ShuffleOffline:
    """The seat's permutation and re-randomisers with r_j*G, and its permutation commitment:
    everything of its shuffle and proof that depends on its own secret only (pure).  Costs 2N
    fixed-base multiplications."""
    ops = ops or _NULL
    if type(n) is not int or not 1 <= n <= _MAX_N:
        raise DealError("number of cards must be 1..%d" % _MAX_N)
    perm, rs = _shuffle_plan(secret, n, game_id, seat)
    hs = _generators(n)[0][1:]
    cr = [_scalar("deal/pi-nonce", secret, game_id, seat, "r", i) for i in range(n)]
    coms: list[bytes] = [b""] * n
    for j in range(n):
        i = perm[j]
        coms[i] = _add(_base(cr[i], ops), hs[j])
    return ShuffleOffline(secret, n, game_id, seat, tuple(perm), tuple(rs), tuple(_base(r, ops) for r in rs),
                          tuple(cr), tuple(coms))


def shuffle_prep(secret: bytes, n: int, joint: bytes, game_id: bytes, seat: int,
                 ops: Counter | None = None, offline: ShuffleOffline | None = None) -> ShufflePrep:
    """The deck-independent part of ``shuffle`` and ``prove_shuffle`` (pure; pass it to both as
    ``prep``, same bytes out): the permutation, the re-randomisers with r_j*G and r_j*Y, and the
    permutation commitment.  Costs 2N fixed-base and N variable-base multiplications, or the N
    variable-base ones r_j*Y alone given ``offline`` (``shuffle_offline`` of the same seat)."""
    ops = ops or _NULL
    if not _is_point(joint):
        raise DealError("joint key is not a valid point")
    if offline is None:
        offline = shuffle_offline(secret, n, game_id, seat, ops)
    elif not isinstance(offline, ShuffleOffline) or (offline.secret, offline.n, offline.game_id, offline.seat) != \
            (secret, n, game_id, seat):
        raise DealError("the shuffle's offline part is for another seat, game or deck size")
    o = offline
    return ShufflePrep(secret, n, joint, game_id, seat, o.perm, o.rs, o.rG,
                       tuple(_mul(r, joint, ops) for r in o.rs), o.cr, o.coms)


def _check_prep(prep: Any, secret: bytes, n: int, joint: bytes, game_id: bytes, seat: int) -> None:
    if not isinstance(prep, ShufflePrep) or (prep.secret, prep.n, prep.joint, prep.game_id, prep.seat) != \
            (secret, n, joint, game_id, seat):
        raise DealError("the shuffle's preparation is for another seat, game, key or deck size")


# --------------------------------------------------------------------------- the shuffle proof
#
# Terelius-Wikstrom proof of a shuffle, following GenShuffleProof / CheckShuffleProof of
# Haenni, Locher, Koenig, Dubuis, "Pseudo-code algorithms for verifiable re-encryption
# mix-nets" (FC 2017), written additively over the prime-order subgroup of edwards25519.
# Their ciphertext (a, b) = (m*pk^r, g^r) is our (C2, C1); their psi is our perm (output j
# takes input perm[j]); their r~_j our r_j.  The proof is sent in the compact form
# (challenge, responses): the verifier recomputes every t-value and then the challenge,
# which is equivalent to Haenni's check "t = t'" (the same hash of the same values) and
# sends and checks N + 4 points fewer.  docs/deal.md §2-§4 has the bytes and the argument.

# The soundness error of one proof for a prover that cannot compute discrete logs in the
# group: (N + 2)/L per hash query (docs/deal.md §4); at N = 70, log2(L / 72) > 245.
SOUNDNESS_BITS = 245
_MAX_N = 4096


def _mul0(k: bytes, p: bytes, ops: Counter) -> bytes:
    """k*p allowing k = 0 or p = O (their product is O); libsodium refuses both."""
    if k == _ZERO or p == IDENTITY:
        return IDENTITY
    return _mul(k, p, ops)


def _base0(k: bytes, ops: Counter) -> bytes:
    return IDENTITY if k == _ZERO else _base(k, ops)


def _msum(pairs: Any, ops: Counter, start: bytes = IDENTITY) -> bytes:
    """start + sum of k*p over (k, p) pairs (one variable-base multiplication each)."""
    acc = start
    for k, p in pairs:
        acc = _add(acc, _mul0(k, p, ops))
    return acc


@lru_cache(maxsize=8)
def _generators(n: int) -> tuple[tuple[bytes, ...], bytes]:
    gens = tuple(_nb.crypto_core_ed25519_from_uniform(dhash("deal/gen", i)) for i in range(n + 1))
    if len(set(gens)) != n + 1 or G in gens or not all(_is_point(p) for p in gens):  # pragma: no cover
        raise DealError("generators collide")
    return gens, dhash("deal/gen-set", n, b"".join(gens))


@lru_cache(maxsize=8)
def _hsum(n: int) -> bytes:
    """h_1 + .. + h_N (a constant of N, for the verifier's c-bar)."""
    acc = IDENTITY
    for p in _generators(n)[0][1:]:
        acc = _add(acc, p)
    return acc


def generators(n: int) -> list[bytes]:
    """[h, h_1, .., h_N]: h_i = from_uniform(dhash("deal/gen", i)); hashed to the curve, so nobody
    knows a discrete log of one to another or to G (docs/deal.md §2)."""
    if type(n) is not int or not 1 <= n <= _MAX_N:
        raise DealError("number of cards must be 1..%d" % _MAX_N)
    return list(_generators(n)[0])


def proof_bytes(n: int) -> int:
    """Length of a shuffle proof of n ciphertexts: 2n points and 2n + 5 scalars."""
    return 32 * (4 * n + 5)


def _statement(deck_in: Sequence[bytes], deck_out: Sequence[bytes], coms: Sequence[bytes], joint: bytes,
               game_id: bytes, seat: int) -> bytes:
    n = len(deck_in)
    return dhash("deal/pi-stmt", game_id, seat, joint, n, _generators(n)[1], b"".join(deck_in),
                 b"".join(deck_out), b"".join(coms))


def _challenge(stmt: bytes, chain: Sequence[bytes], t1: bytes, t2: bytes, t3: bytes, t41: bytes, t42: bytes,
               that: Sequence[bytes]) -> bytes:
    return _scalar("deal/pi-challenge", stmt, b"".join(chain), t1, t2, t3, t41, t42, b"".join(that))


def _tw_prove(deck_in: Sequence[bytes], deck_out: Sequence[bytes], perm: Sequence[int], rs: Sequence[bytes],
              joint: bytes, game_id: bytes, seat: int, key: bytes, ops: Counter,
              commitment: tuple | None = None) -> bytes:
    """GenShuffleProof for the witness (perm, rs): out[j] = in[perm[j]] + rs[j]*(G, Y).

    ``key`` is the prover's secret from which its randomness is derived (deterministic, as
    EdDSA nonces: the statement is hashed in).  Kept separate from prove_shuffle so tests can
    prove a forged witness (which must fail)."""
    n = len(deck_in)
    gens, _ = _generators(n)
    h, hs = gens[0], gens[1:]
    nonce = lambda *parts: _scalar("deal/pi-nonce", key, game_id, seat, *parts)  # noqa: E731
    # permutation commitment: c_{perm[j]} = cr_{perm[j]}*G + h_j
    if commitment is not None:      # shuffle_prep's cr and coms, computed ahead (the same values)
        cr, coms = list(commitment[0]), list(commitment[1])
    else:
        cr = [nonce("r", i) for i in range(n)]
        coms = [b""] * n
        for j in range(n):
            i = perm[j]
            coms[i] = _add(_base(cr[i], ops), hs[j])
    stmt = _statement(deck_in, deck_out, coms, joint, game_id, seat)
    u = [_scalar("deal/pi-u", stmt, i) for i in range(n)]
    up = [u[perm[j]] for j in range(n)]
    # commitment chain: chat_0 = h, chat_j = rh_j*G + u'_j*chat_{j-1}
    rh = [nonce(stmt, "rhat", j) for j in range(n)]
    chain = []
    prev = h
    for j in range(n):
        prev = _add(_base(rh[j], ops), _mul(up[j], prev, ops))
        chain.append(prev)
    # rbar = sum cr; rhat = sum rh_j v_j (v_{n-1} = 1, v_{j-1} = u'_j v_j); rtil = sum cr_i u_i; rp = sum r_j u'_j
    rbar = _ZERO
    rtil = _ZERO
    for i in range(n):
        rbar = _sadd(rbar, cr[i])
        rtil = _sadd(rtil, _smul(cr[i], u[i]))
    rhat = _ZERO
    v = _ONE
    for j in range(n - 1, -1, -1):
        rhat = _sadd(rhat, _smul(rh[j], v))
        v = _smul(up[j], v)
    rp = _ZERO
    for j in range(n):
        rp = _sadd(rp, _smul(rs[j], up[j]))
    w1, w2, w3, w4 = (nonce(stmt, "w", i) for i in range(1, 5))
    wh = [nonce(stmt, "what", j) for j in range(n)]
    wp = [nonce(stmt, "wprime", j) for j in range(n)]
    nw4 = _nb.crypto_core_ed25519_scalar_negate(w4)
    t1 = _base(w1, ops)
    t2 = _base(w2, ops)
    t3 = _msum(zip(wp, hs), ops, _base(w3, ops))
    t41 = _msum(zip(wp, (ct[32:] for ct in deck_out)), ops, _mul(nw4, joint, ops))
    t42 = _msum(zip(wp, (ct[:32] for ct in deck_out)), ops, _base(nw4, ops))
    that = []
    prev = h
    for j in range(n):
        that.append(_add(_base(wh[j], ops), _mul(wp[j], prev, ops)))
        prev = chain[j]
    c = _challenge(stmt, chain, t1, t2, t3, t41, t42, that)
    resp = [_sadd(w1, _smul(c, rbar)), _sadd(w2, _smul(c, rhat)), _sadd(w3, _smul(c, rtil)), _sadd(w4, _smul(c, rp))]
    sh = [_sadd(wh[j], _smul(c, rh[j])) for j in range(n)]
    sp = [_sadd(wp[j], _smul(c, up[j])) for j in range(n)]
    return b"".join(coms) + b"".join(chain) + c + b"".join(resp) + b"".join(sh) + b"".join(sp)


def prove_shuffle(deck_in: Sequence[bytes], deck_out: Sequence[bytes], secret: bytes, joint: bytes,
                  game_id: bytes, seat: int, ops: Counter | None = None, prep: ShufflePrep | None = None) -> bytes:
    """The seat's proof that ``deck_out`` (= shuffle(deck_in, secret, ...)) is a shuffle of ``deck_in``.

    Permutation and re-randomisers come from the seat secret (as in ``shuffle``), the proof's
    randomness from it too (``"deal/pi-nonce"``), so the same inputs give the same bytes.
    Costs 3N + 4 fixed-base and 5N + 1 variable-base multiplications."""
    ops = ops or _NULL
    _check_shuffle_args(deck_in, joint)
    n = len(deck_in)
    if not 1 <= n <= _MAX_N or not isinstance(deck_out, list) and not isinstance(deck_out, tuple) \
            or len(deck_out) != n:
        raise DealError("the decks must have the same size, 1..%d" % _MAX_N)
    if prep is not None:
        _check_prep(prep, secret, n, joint, game_id, seat)
        return _tw_prove(deck_in, deck_out, prep.perm, prep.rs, joint, game_id, seat, secret, ops, (prep.cr, prep.coms))
    perm, rs = _shuffle_plan(secret, n, game_id, seat)
    return _tw_prove(deck_in, deck_out, perm, rs, joint, game_id, seat, secret, ops)


def check_shuffle_form(deck_in: Sequence[bytes], deck_out: Sequence[bytes], proof: Any, joint: bytes,
                       game_id: bytes, seat: int, ops: Counter | None = None) -> str | None:
    """The cheap part of ``verify_shuffle_proof`` (no multiplication, no point check): None if the
    proof is well formed for these decks, else the problem.  Its length; no output C1 equal to an
    input C1 (a ciphertext passed on without re-encryption); every scalar canonical.  ``deck_out``
    must have passed ``check_deck``.  Never raises on peer bytes."""
    ops = ops or _NULL
    _check_ctx(game_id, seat)
    n = len(deck_in)
    if not 1 <= n <= _MAX_N:
        return "the input deck must hold 1..%d ciphertexts" % _MAX_N
    if not isinstance(deck_out, (list, tuple)) or len(deck_out) != n:
        return "the shuffled deck has the wrong size"
    if not _is_point(joint):
        return "the joint key is not a valid point"
    if type(proof) is not bytes or len(proof) != proof_bytes(n):
        return "the shuffle proof must be %d bytes (%d ciphertexts)" % (proof_bytes(n), n)
    ins = set()
    for j, ct in enumerate(deck_in):
        if type(ct) is not bytes or len(ct) != CT_BYTES:
            return "input position %d is not a ciphertext" % j
        ins.add(ct[:32])
    for j, ct in enumerate(deck_out):
        if type(ct) is not bytes or len(ct) != CT_BYTES:
            return "output position %d is not a ciphertext" % j
        if ct[:32] in ins:
            return "output position %d keeps an input C1: not re-encrypted" % j
    for i in range(2 * n, 4 * n + 5):
        if not _is_scalar(proof[32 * i:32 * i + 32]):
            return "scalar %d of the proof is not canonical" % (i - 2 * n)
    return None


def verify_shuffle_proof(deck_in: Sequence[bytes], deck_out: Sequence[bytes], proof: Any, joint: bytes,
                         game_id: bytes, seat: int, ops: Counter | None = None) -> str | None:
    """CheckShuffleProof: None if ``proof`` shows ``deck_out`` a permutation and re-encryption of ``deck_in``.

    ``deck_in`` is the initial deck (C1 = O) or a deck that passed ``check_deck``; ``deck_out``
    must have passed ``check_deck`` (every half a valid point).  The checks, in this order
    (docs/deal.md §3): ``check_shuffle_form`` (the proof's length; no output C1 equal to an input
    C1; every scalar canonical); every point of the proof valid; then the recomputed challenge
    equal to the proof's.  Never raises on peer bytes.
    Costs 8N + 7 variable-base (N + 1 fewer on the initial deck, whose C1 are O) and N + 4 fixed-base
    multiplications; the 2N point checks of the proof's points are made by the multiplications
    themselves on an accepted proof (``_proof_points_problem``: the same answer, 2N checks fewer).
    """
    ops = ops or _NULL
    bad = check_shuffle_form(deck_in, deck_out, proof, joint, game_id, seat, ops)
    if bad is not None:
        return bad
    n = len(deck_in)
    w = [proof[32 * i:32 * i + 32] for i in range(4 * n + 5)]
    if IDENTITY in w[:2 * n]:       # the one invalid encoding a multiplication below would not see
        return _proof_points_problem(w, n, ops)
    bad = _tw_check(deck_in, deck_out, w, joint, game_id, seat, ops)
    if bad is not None:
        # refused: say why in the order of the checks, the proof's points first (each one was
        # either refused by a multiplication or is valid and the proof fails on its own)
        return _proof_points_problem(w, n, ops) or bad
    return None


def _proof_points_problem(w: Sequence[bytes], n: int, ops: Counter) -> str | None:
    """The first of the proof's 2N points (commitments, then chain links) that is not valid."""
    for i in range(2 * n):
        ops.checks += 1
        if not _is_point(w[i]):
            return "%s %d of the proof is not a valid point" % (("commitment", i) if i < n else ("chain link", i - n))
    return None


def _tw_check(deck_in: Sequence[bytes], deck_out: Sequence[bytes], w: Sequence[bytes], joint: bytes,
              game_id: bytes, seat: int, ops: Counter) -> str | None:
    """CheckShuffleProof's equations on a well-formed proof ``w`` (its 32-byte fields) whose
    points have not been checked: None if the recomputed challenge is the proof's.

    Why the point checks are not needed before: every commitment c_i enters a multiplication
    u_i*c_i (u_i != 0) and every chain link ĉ_j one e'*ĉ_j with e' = -e, which libsodium refuses
    (CryptoError) unless the point is canonical, on the curve, of prime order and not O (the very
    test of ``crypto_core_ed25519_is_valid_point``); O itself is refused by the caller.  A proof
    accepted here has e equal to a recomputed challenge, never 0, so every point went through
    such a multiplication: accepted means every point is valid, as with the checks first."""
    n = len(deck_in)
    coms, chain = w[:n], w[n:2 * n]
    c, s1, s2, s3, s4 = w[2 * n:2 * n + 5]
    sh, sp = w[2 * n + 5:3 * n + 5], w[3 * n + 5:]
    gens, _ = _generators(n)
    h, hs = gens[0], gens[1:]
    stmt = _statement(deck_in, deck_out, coms, joint, game_id, seat)
    u = [_scalar("deal/pi-u", stmt, i) for i in range(n)]
    neg = _nb.crypto_core_ed25519_scalar_negate
    nc = neg(c)
    try:
        cbar = IDENTITY
        for i in range(n):
            cbar = _add(cbar, coms[i])
        cbar = _sub(cbar, _hsum(n))
        uprod = _ONE
        for x in u:
            uprod = _smul(uprod, x)
        chat = _sub(chain[-1], _mul(uprod, h, ops))
        ctil = _msum(zip(u, coms), ops)
        a1 = _msum(zip(u, (ct[32:] for ct in deck_in)), ops)
        b1 = _msum(zip(u, (ct[:32] for ct in deck_in)), ops)
        t1 = _add(_mul0(nc, cbar, ops), _base0(s1, ops))
        t2 = _add(_mul0(nc, chat, ops), _base0(s2, ops))
        t3 = _msum(zip(sp, hs), ops, _add(_mul0(nc, ctil, ops), _base0(s3, ops)))
        ns4 = neg(s4)
        t41 = _msum(zip(sp, (ct[32:] for ct in deck_out)), ops, _add(_mul0(nc, a1, ops), _mul0(ns4, joint, ops)))
        t42 = _msum(zip(sp, (ct[:32] for ct in deck_out)), ops, _add(_mul0(nc, b1, ops), _base0(ns4, ops)))
        that = []
        prev = h
        for j in range(n):
            that.append(_add(_add(_mul0(nc, chain[j], ops), _base0(sh[j], ops)), _mul0(sp[j], prev, ops)))
            prev = chain[j]
    except (_CryptoError, TypeError, ValueError):
        return "the decks cannot be used (an input ciphertext is not a pair of valid points)"
    if _challenge(stmt, chain, t1, t2, t3, t41, t42, that) != c:
        return "the proof does not verify: the output is not proven a shuffle of the input"
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

    ``proofs[s]`` (optional) is seat s's shuffle proof (bytes).  It is checked
    only for a seat whose secret is missing or wrong: a disclosed secret redoes
    the shuffle exactly, which proves more (so with every secret disclosed the
    audit costs one shuffle per seat).
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
            bad = verify_shuffle_proof(deck, decks[s], proofs[s], joint, game_id, s, ops)
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


def share_of(secret: bytes, ct: bytes, game_id: bytes, seat: int, ops: Counter | None = None) -> bytes:
    """The decryption share D = y*C1 alone (no proof), from a seat secret every peer knows: the secret a
    seat published when it left the table (protocol.md §12.3), checked against its key, so D is right by
    construction and every peer and the audit compute the same bytes."""
    y = _secret_scalar(secret, game_id, seat)
    c1, _ = _split(ct)
    if not _is_point(c1):
        raise DealError("C1 is not a valid point")
    return _mul(y, c1, ops or _NULL)


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
    if not (_is_scalar(c) and _is_scalar(s)) or type(D) is not bytes or len(D) != POINT_BYTES:
        return False
    c1 = ct[:32]
    try:
        # D is checked by the multiplication c*D: libsodium refuses c = 0 and any D that is not
        # canonical, on the curve, of prime order and not O (crypto_core_ed25519_is_valid_point's
        # test), so a separate check of D would be the same check twice
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
