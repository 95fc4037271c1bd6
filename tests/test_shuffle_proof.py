"""The shuffle proof (Terelius-Wikstrom, docs/deal.md §2-§4): honest proofs verify; every forged
shuffle is refused (a duplicated card, a substituted card, a missing re-encryption, a proof for
another deck, seat or game, a tampered commitment or response, a non-canonical scalar, an invalid
point); the algebra holds on small decks (hypothesis); the test vector of docs/deal.md §2a is
recomputed; through the game a refused proof names the seat, and a shuffle step closed by a
time-out abandons the game with no hand dealt."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import deal as D
from core.engine import IllegalAction
from core.games.modern_art import dealt
from core.games.modern_art.cards import N_CARDS
from core.games.modern_art.game import MODERN_ART as GAME
from core.hashing import dhash

GID = dhash("test/shuffle-proof-game")
DOC = Path(__file__).resolve().parent.parent / "docs" / "deal.md"


def rand64(s: int, tag: str = "p") -> bytes:
    return hashlib.sha512(("%s-%d" % (tag, s)).encode()).digest()


class Deal:
    """n seats' keys, shuffles and proofs of an n_cards deck; ``decks[s]`` is seat s's input,
    ``decks[s+1]`` its output, ``proofs[s]`` its proof."""

    def __init__(self, n: int = 3, n_cards: int = 12, tag: str = "p", gid: bytes = GID) -> None:
        self.n, self.n_cards, self.gid = n, n_cards, gid
        self.secrets = [rand64(s, tag) for s in range(n)]
        self.publics = [D.keygen(self.secrets[s], gid, s)[1] for s in range(n)]
        self.joint = D.joint_key(self.publics)
        self.decks = [D.initial_deck(gid, n_cards)]
        self.proofs = []
        for s in range(n):
            out = D.shuffle(self.decks[s], self.secrets[s], self.joint, gid, s)
            self.proofs.append(D.prove_shuffle(self.decks[s], out, self.secrets[s], self.joint, gid, s))
            self.decks.append(out)

    def verify(self, s: int, out=None, proof=None, deck_in=None, seat=None, gid=None) -> str | None:
        return D.verify_shuffle_proof(self.decks[s] if deck_in is None else deck_in,
                                      self.decks[s + 1] if out is None else out,
                                      self.proofs[s] if proof is None else proof, self.joint,
                                      self.gid if gid is None else gid, s if seat is None else seat)

    def witness(self, s: int):
        return D._shuffle_plan(self.secrets[s], self.n_cards, self.gid, s)

    def forged(self, s: int, out: list, perm=None, rs=None) -> bytes:
        """The cheat's best proof of a wrong ``out``: the proof algebra run on a witness of its choice
        (by default its honest permutation and re-randomisers)."""
        p, r = self.witness(s)
        return D._tw_prove(self.decks[s], out, p if perm is None else perm, r if rs is None else rs,
                           self.joint, self.gid, s, self.secrets[s], D.Counter())


def copy_cheat(deck_out: list, joint: bytes, victim_pos: int, own_pos: int) -> list:
    """The peek: a re-randomised copy of the ciphertext at a victim's position over one's own."""
    out = list(deck_out)
    out[own_pos] = D._reencrypt(out[victim_pos], D._scalar("test/peek", victim_pos), joint, D.Counter())
    assert D.check_deck(out, len(out)) is None   # nothing visible at once without the proof
    return out


def substitute(deck_out: list, pos: int) -> list:
    """Position ``pos`` made to hold another point: C2 shifted by G (a card replaced by a non-card)."""
    out = list(deck_out)
    out[pos] = out[pos][:32] + D._add(out[pos][32:], D.G)
    return out


N = 12


@pytest.fixture(scope="module")
def d() -> Deal:
    return Deal(3, N)


def _scalars_at(n: int) -> dict:
    """Byte offsets of the proof's fields (docs/deal.md §2a)."""
    return {"c_0": 0, "chain_1": 32 * n, "challenge": 64 * n, "s1": 64 * n + 32, "s4": 64 * n + 128,
            "shat_1": 64 * n + 160, "sprime_1": 96 * n + 160, "sprime_N": 128 * n + 128}


def _put(proof: bytes, off: int, x: bytes) -> bytes:
    return proof[:off] + x + proof[off + 32:]


# --------------------------------------------------------------------------- honest proofs


def test_honest_proofs_verify_for_every_seat_and_are_deterministic(d):
    for s in range(d.n):
        assert d.verify(s) is None
        assert len(d.proofs[s]) == D.proof_bytes(N) == 32 * (4 * N + 5)
    again = Deal(3, N)
    assert again.proofs == d.proofs and again.decks == d.decks


def test_costs_are_the_documented_counts(d):
    for s in range(d.n):
        pro, ver = D.Counter(), D.Counter()
        D.prove_shuffle(d.decks[s], d.decks[s + 1], d.secrets[s], d.joint, GID, s, pro)
        assert d.verify(s) is None
        assert D.verify_shuffle_proof(d.decks[s], d.decks[s + 1], d.proofs[s], d.joint, GID, s, ver) is None
        assert (pro.base, pro.var) == (3 * N + 4, 5 * N + 1)
        # seat 0's input is the initial deck (C1 = O): its N products u_i*O cost nothing; an
        # accepted proof's 2N points are checked by the multiplications themselves (no check twice)
        assert (ver.base, ver.var, ver.checks) == (N + 4, 8 * N + 7 if s else 7 * N + 6, 0)


def test_generators_are_hashed_to_the_curve_distinct_and_valid():
    gens = D.generators(N)
    assert len(gens) == N + 1 and len(set(gens)) == N + 1 and D.G not in gens
    assert all(D._is_point(h) for h in gens)
    assert gens[3] == D._nb.crypto_core_ed25519_from_uniform(dhash("deal/gen", 3))
    assert D.generators(N + 5)[:N + 1] == gens      # the same h_i whatever the deck size
    assert not set(gens) & set(D.card_points(GID, 70))
    with pytest.raises(D.DealError):
        D.generators(0)


# --------------------------------------------------------------------------- forged shuffles


def test_a_duplicated_card_is_refused(d):
    out = copy_cheat(d.decks[3], d.joint, 2, 7)
    assert d.verify(2, out=out) is not None                        # the honest proof is for another deck
    assert d.verify(2, out=out, proof=d.forged(2, out)) == \
        "the proof does not verify: the output is not proven a shuffle of the input"


def test_a_substituted_card_is_refused(d):
    out = substitute(d.decks[2], 4)
    assert D.check_deck(out, N) is None
    assert d.verify(1, out=out, proof=d.forged(1, out)) is not None
    assert d.verify(1, out=out) is not None


def test_a_missing_re_encryption_is_refused(d):
    # an output ciphertext equal to an input one (the rest an honest shuffle)
    perm, rs = d.witness(1)
    out = list(d.decks[2])
    out[5] = d.decks[1][perm[5]]
    assert D.check_deck(out, N) is None
    assert d.verify(1, out=out, proof=d.forged(1, out)) == "output position 5 keeps an input C1: not re-encrypted"
    # even with the witness r = 0 that makes it an algebraically valid "re-encryption"
    rs0 = list(rs)
    rs0[5] = bytes(32)
    assert d.verify(1, out=out, proof=d.forged(1, out, rs=rs0)) == "output position 5 keeps an input C1: not re-encrypted"
    # only C1 re-randomised (C2 passed on as it was)
    out = list(d.decks[2])
    ct = d.decks[1][perm[5]]
    out[5] = D._add(ct[:32], D._base(rs[5], D.Counter())) + ct[32:]
    assert d.verify(1, out=out, proof=d.forged(1, out)) == \
        "the proof does not verify: the output is not proven a shuffle of the input"
    # only C2 re-randomised (C1 kept)
    out = list(d.decks[2])
    out[5] = ct[:32] + D._add(ct[32:], D._mul(rs[5], d.joint, D.Counter()))
    assert d.verify(1, out=out, proof=d.forged(1, out)) == "output position 5 keeps an input C1: not re-encrypted"


def test_a_wrong_permutation_witness_does_not_help(d):
    out = copy_cheat(d.decks[2], d.joint, 0, 1)
    perm, rs = d.witness(1)
    for p in ([perm[1]] + perm[1:], list(range(N)), perm[::-1]):   # not a permutation; others
        assert d.verify(1, out=out, proof=d.forged(1, out, perm=p)) is not None


def test_a_proof_for_another_deck_seat_or_game_is_refused(d):
    bad = "the proof does not verify: the output is not proven a shuffle of the input"
    # another input deck (seat 1's proof presented against seat 0's input)
    assert d.verify(1, deck_in=d.decks[0]) is not None
    # another output deck: seat 2's proof with seat 1's output
    assert d.verify(1, proof=d.proofs[2]) == bad
    # another seat: seat 1's shuffle and proof claimed for seat 2
    assert d.verify(1, seat=2) == bad
    # another game id
    assert d.verify(1, gid=dhash("test/another-game")) == bad
    # another joint key
    assert D.verify_shuffle_proof(d.decks[1], d.decks[2], d.proofs[1], d.publics[0], GID, 1) == bad


@pytest.mark.parametrize("field", ["c_0", "chain_1", "challenge", "s1", "s4", "shat_1", "sprime_1", "sprime_N"])
def test_a_tampered_commitment_or_response_is_refused(d, field):
    off = _scalars_at(N)[field]
    proof = d.proofs[1]
    if off < 64 * N:     # a point: another valid point
        other = D._add(proof[off:off + 32], D.G)
    else:                # a scalar: another canonical scalar
        other = D._sadd(proof[off:off + 32], D._ONE)
    assert d.verify(1, proof=_put(proof, off, other)) == \
        "the proof does not verify: the output is not proven a shuffle of the input"


def test_a_non_canonical_scalar_is_refused(d):
    proof = d.proofs[0]
    off = _scalars_at(N)["s1"]
    s = int.from_bytes(proof[off:off + 32], "little")
    if s + D.L >= 2 ** 256:     # pragma: no cover (s < 2^252 always leaves room)
        pytest.skip("no room")
    assert d.verify(0, proof=_put(proof, off, (s + D.L).to_bytes(32, "little"))) == \
        "scalar 1 of the proof is not canonical"
    off = _scalars_at(N)["challenge"]
    assert d.verify(0, proof=_put(proof, off, b"\xff" * 32)) == "scalar 0 of the proof is not canonical"


def test_an_invalid_point_is_refused(d):
    proof = d.proofs[0]
    small = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")  # order 8
    for off, what in ((0, "commitment 0"), (32 * N + 32, "chain link 1")):
        for bad in (D.IDENTITY, small, b"\xff" * 32, bytes(32)):
            assert d.verify(0, proof=_put(proof, off, bad)) == "%s of the proof is not a valid point" % what


def test_every_invalid_point_at_every_place_of_the_proof_is_named_as_before(d):
    """The verifier leaves the proof's point checks to its multiplications on an accepted proof
    (docs/deal.md §2a, step 5): every invalid point, at every place, is still refused with the
    name of the first one, whatever else is wrong, and never accepted."""
    small = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")  # order 8
    off_curve = next(bytes([k]) + bytes(31) for k in range(2, 255)
                     if not D._nb.crypto_core_ed25519_is_valid_point(bytes([k]) + bytes(31)))
    # a point of the curve with a small-order component: valid point + small-order point
    mixed = D._nb.crypto_core_ed25519_add(D.G, small)
    for s in range(d.n):
        proof = d.proofs[s]
        for i in range(2 * N):
            what = "commitment %d" % i if i < N else "chain link %d" % (i - N)
            for bad in (D.IDENTITY, small, off_curve, mixed, b"\xff" * 32, bytes(32)):
                assert d.verify(s, proof=_put(proof, 32 * i, bad)) == "%s of the proof is not a valid point" % what
        # the first invalid point is named even when the challenge is zero (no chain link multiplied)
        zero_c = _put(_put(proof, 32 * (N + 1), small), _scalars_at(N)["challenge"], bytes(32))
        assert d.verify(s, proof=zero_c) == "chain link 1 of the proof is not a valid point"
        assert d.verify(s, proof=_put(proof, 32 * 1, mixed)) != d.verify(s)


def test_malformed_proofs_and_decks_get_a_reason_never_an_exception(d):
    for junk in (None, b"", d.proofs[0][:-1], d.proofs[0] + b"\x00", "text", [d.proofs[0]]):
        assert D.verify_shuffle_proof(d.decks[0], d.decks[1], junk, d.joint, GID, 0) == "the shuffle proof must be %d bytes (%d ciphertexts)" % (D.proof_bytes(N), N)
    assert d.verify(0, out=d.decks[1][:-1]) == "the shuffled deck has the wrong size"
    assert d.verify(0, out=d.decks[1][:-1] + [b"x"]) == "output position %d is not a ciphertext" % (N - 1)
    assert D.verify_shuffle_proof([], [], b"", d.joint, GID, 0) == "the input deck must hold 1..4096 ciphertexts"
    assert D.verify_shuffle_proof(d.decks[0], d.decks[1], d.proofs[0], D.IDENTITY, GID, 0) == \
        "the joint key is not a valid point"


def test_the_audit_checks_the_proof_of_a_seat_whose_secret_is_missing(d):
    decks = d.decks[1:]
    missing = [d.secrets[0], None, d.secrets[2]]
    assert D.audit_shuffles(GID, N, d.publics, decks, missing, proofs=d.proofs) == [(1, "seat secret not disclosed")]
    wrong = [d.proofs[0], d.proofs[2], d.proofs[2]]
    got = D.audit_shuffles(GID, N, d.publics, decks, missing, proofs=wrong)
    assert got == [(1, "seat secret not disclosed"),
                   (1, "shuffle proof fails: the proof does not verify: the output is not proven a shuffle of the input")]
    assert D.audit_shuffles(GID, N, d.publics, decks, missing, proofs=[None, "junk", None])[1][1].startswith(
        "shuffle proof fails: the shuffle proof must be")
    # with every secret disclosed the proofs are not needed (the shuffles are redone exactly)
    ops = D.Counter()
    assert D.audit_shuffles(GID, N, d.publics, decks, d.secrets, ops, proofs=wrong) == []
    assert ops.mults < 3 * N * 2 + 10


# --------------------------------------------------------------------------- the algebra, small decks


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 6), seat=st.integers(0, 3), key=st.binary(min_size=64, max_size=64),
       where=st.integers(0, 5), how=st.sampled_from(["shift-c2", "shift-c1", "copy", "swap-in"]))
def test_honest_proofs_verify_and_any_single_element_change_fails(n, seat, key, where, how):
    gid = dhash("test/shuffle-proof-property", key)
    secrets = [dhash("x", key, s) + dhash("y", key, s) for s in range(4)]
    publics = [D.keygen(secrets[s], gid, s)[1] for s in range(4)]
    joint = D.joint_key(publics)
    deck = D.initial_deck(gid, n)
    for s in range(seat):          # the input: the initial deck or earlier seats' output
        deck = D.shuffle(deck, secrets[s], joint, gid, s)
    out = D.shuffle(deck, secrets[seat], joint, gid, seat)
    proof = D.prove_shuffle(deck, out, secrets[seat], joint, gid, seat)
    assert D.verify_shuffle_proof(deck, out, proof, joint, gid, seat) is None
    j = where % n
    bad = list(out)
    if how == "shift-c2":
        bad[j] = out[j][:32] + D._add(out[j][32:], D.G)
    elif how == "shift-c1":
        bad[j] = D._add(out[j][:32], D.G) + out[j][32:]
    elif how == "copy":            # another position's card, re-randomised (n = 1: its own, shifted)
        src = out[(j + 1) % n] if n > 1 else out[j][:32] + D._add(out[j][32:], D.G)
        bad[j] = D._reencrypt(src, D._scalar("test/copy", key), joint, D.Counter())
    else:                          # an input ciphertext of a fresh deck put in (a card from outside)
        alien = D.shuffle(D.initial_deck(dhash("test/alien", key), n), secrets[0], joint, gid, 0)
        bad[j] = alien[j]
    perm, rs = D._shuffle_plan(secrets[seat], n, gid, seat)
    forged = D._tw_prove(deck, bad, perm, rs, joint, gid, seat, secrets[seat], D.Counter())
    assert D.verify_shuffle_proof(deck, bad, forged, joint, gid, seat) is not None
    assert D.verify_shuffle_proof(deck, bad, proof, joint, gid, seat) is not None


# --------------------------------------------------------------------------- the test vector (docs/deal.md §2a)


def vector() -> dict:
    gid = bytes(range(32))
    secrets = [bytes([s]) * 64 for s in range(2)]
    publics = [D.keygen(secrets[s], gid, s)[1] for s in range(2)]
    joint = D.joint_key(publics)
    deck = D.initial_deck(gid, 3)
    out = D.shuffle(deck, secrets[0], joint, gid, 0)
    proof = D.prove_shuffle(deck, out, secrets[0], joint, gid, 0)
    perm, _ = D._shuffle_plan(secrets[0], 3, gid, 0)
    coms = [proof[32 * i:32 * i + 32] for i in range(3)]
    return {"joint": joint, "h": D.generators(3)[0], "h_1": D.generators(3)[1], "perm": perm,
            "statement": D._statement(deck, out, coms, joint, gid, 0), "out_0": out[0], "proof": proof,
            "challenge": proof[64 * 3:64 * 3 + 32], "sha256(proof)": hashlib.sha256(proof).digest()}


def test_the_vector_of_the_spec_is_recomputed():
    text = DOC.read_text()
    block = text[text.index("<!-- shuffle-proof-vector:begin -->"):text.index("<!-- shuffle-proof-vector:end -->")]
    want = dict(re.findall(r"^([\w()_0-9]+) += ([0-9a-f\[\], ]+)$", block, re.M))
    got = vector()
    assert set(want) == set(got) - {"proof"}
    for k, v in got.items():
        if k == "proof":
            continue
        shown = str(v).replace(" ", "") if k == "perm" else v.hex()
        assert want[k].replace(" ", "") == shown, k
    proof_hex = "".join(re.findall(r"^    ([0-9a-f]{64})$", block, re.M))
    assert proof_hex == got["proof"].hex()
    assert D.verify_shuffle_proof(D.initial_deck(bytes(range(32)), 3),
                                  D.shuffle(D.initial_deck(bytes(range(32)), 3), bytes(64), got["joint"],
                                            bytes(range(32)), 0), got["proof"], got["joint"], bytes(range(32)), 0) is None


# --------------------------------------------------------------------------- through the game

SEED = bytes(range(32))
SECRETS = [rand64(s, "game") for s in range(3)]


def _to_shuffle(seat: int):
    st0 = GAME.setup(GAME.configure({}, 3), 3, SEED)
    for s in range(3):
        st0 = GAME.apply(st0, s, GAME.auto_action(st0, s, SECRETS[s]))
    for s in range(seat):
        st0 = GAME.apply(st0, s, GAME.check(st0, s, GAME.auto_action(st0, s, SECRETS[s])))
    assert st0.stage == "shuffle" and st0.shuffler == seat
    return st0


def _refused(st, seat: int, action) -> list:
    """What the game says of a shuffle that is well formed but whose proof fails: it is placed, and
    applying it (the last shuffle) abandons the game naming the seat, before any share."""
    assert GAME.check(st, seat, action) == action      # the form passes: placed; the next seat may go on
    end = GAME.apply(st, seat, action)
    res = GAME.result(end)
    assert res["status"] == "abandoned" and res["ranking"] == [] and end.shared == 0
    assert all(row == (None,) * 3 for row in end.shares) and GAME.turn(end).kind == "over"
    return res["named"]


def test_a_forged_shuffle_through_the_game_is_refused_naming_the_seat_before_any_share():
    st0 = _to_shuffle(2)
    good = GAME.auto_action(st0, 2, SECRETS[2])
    assert GAME.check(st0, 2, good) == good and set(good) == {"deck", "proof"}
    cheat = dict(good, deck=copy_cheat(good["deck"], dealt._joint(st0.keys), 3, 25))
    assert _refused(st0, 2, cheat) == [[2, "seat 2's shuffle is refused: the proof does not verify: the output is "
                                           "not proven a shuffle of the input: the deal cannot go on, no hand was dealt"]]
    with pytest.raises(IllegalAction, match="seat 2's shuffle proof must be %d bytes" % D.proof_bytes(N_CARDS)):
        GAME.check(st0, 2, dict(good, proof=good["proof"][1:]))
    with pytest.raises(IllegalAction, match="exactly deck, proof"):
        GAME.check(st0, 2, {"deck": good["deck"]})
    with pytest.raises(IllegalAction, match="exactly deck, proof"):
        GAME.check(st0, 2, {"deck": None})     # passing the deck on is no longer a move
    # a deck passed on without re-encryption is refused at once (its form)
    with pytest.raises(IllegalAction, match="seat 2's shuffled deck is refused: output position 0 keeps an input C1"):
        GAME.check(st0, 2, dict(good, deck=list(st0.deck)))
    # another seat's shuffle and proof are not this seat's (here seat 1's again: its own input's C1)
    st1 = _to_shuffle(1)
    with pytest.raises(IllegalAction, match="seat 2's shuffled deck is refused"):
        GAME.check(st0, 2, GAME.auto_action(st1, 1, SECRETS[1]))
    # seat 0's proof of seat 2's deck: well formed, so placed; its proof fails
    forged = dict(good, proof=GAME.auto_action(_to_shuffle(0), 0, SECRETS[0])["proof"])
    assert [s for s, _ in _refused(st0, 2, forged)] == [2]
    # an earlier seat's bad proof is named too, when the last shuffle is applied
    cheat1 = dict(GAME.auto_action(st1, 1, SECRETS[1]))
    cheat1["deck"] = copy_cheat(cheat1["deck"], dealt._joint(st1.keys), 3, 25)
    st2 = GAME.apply(st1, 1, GAME.check(st1, 1, cheat1))
    assert st2.stage == "shuffle" and st2.shuffler == 2      # seat 2 shuffles on from the unchecked deck
    assert [s for s, _ in _refused(st2, 2, GAME.auto_action(st2, 2, SECRETS[2]))] == [1]
    assert st0.stage == "shuffle" and not GAME.problems(st0, 2, cheat)
    after = GAME.apply(st0, 2, good)
    assert after.stage == "deal" and len(after.proofs) == 3 and after.proofs[2] == good["proof"]


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_a_timed_out_shuffle_abandons_the_game_before_any_hand_is_dealt(seat):
    st0 = _to_shuffle(seat)
    default = GAME.default_action(st0, seat)
    assert default == {"withhold": True} and GAME.check(st0, seat, default) == default
    end = GAME.apply(st0, seat, default)
    res = GAME.result(end)
    assert res["status"] == "abandoned" and res["ranking"] == [] and res["winners"] == []
    assert res["named"] == [[seat, "seat %d was timed out of its shuffle (it did not come in time; it could have come "
                                   "back with easel resume): the deal cannot go on without it, no hand was dealt" % seat]]
    assert end.shared == 0 and all(row == (None,) * 3 for row in end.shares) and GAME.turn(end).kind == "over"


def test_a_timed_out_key_abandons_the_game():
    st0 = GAME.setup(GAME.configure({}, 3), 3, SEED)
    for s in range(3):
        st0 = GAME.apply(st0, s, GAME.default_action(st0, s) if s == 1 else GAME.auto_action(st0, s, SECRETS[s]))
    res = GAME.result(st0)
    assert res["status"] == "abandoned" and res["named"] == [
        [1, "seat 1 was timed out of its deal key (it did not come in time; it could have come back with easel "
            "resume): the deal cannot go on without it, no hand was dealt"]]


def test_the_deal_asks_for_no_shared_randomness():
    assert GAME.info.chance is False
    st0 = _to_shuffle(0)
    with pytest.raises(IllegalAction, match="no shared randomness"):
        GAME.chance(st0, bytes(32))


def test_the_prepared_shuffle_and_proof_are_the_same_bytes_and_cost_less_once_the_deck_arrives():
    """shuffle_prep is the part of a seat's shuffle and proof that needs no deck (done while the
    seat waits, docs/deal.md §3): with it, shuffle and prove_shuffle give exactly the same bytes."""
    st = _to_shuffle(1)
    joint = dealt._joint(st.keys)
    plain, prepped, ahead = D.Counter(), D.Counter(), D.Counter()
    out = D.shuffle(list(st.deck), SECRETS[1], joint, SEED, 1, plain)
    proof = D.prove_shuffle(list(st.deck), out, SECRETS[1], joint, SEED, 1, plain)
    prep = D.shuffle_prep(SECRETS[1], N_CARDS, joint, SEED, 1, ahead)
    assert D.shuffle(list(st.deck), SECRETS[1], joint, SEED, 1, prepped, prep=prep) == out
    assert D.prove_shuffle(list(st.deck), out, SECRETS[1], joint, SEED, 1, prepped, prep=prep) == proof
    assert ahead.as_dict() == {"base": 2 * N_CARDS, "var": N_CARDS, "checks": 0, "mults": 3 * N_CARDS}
    assert prepped.mults == plain.mults - 3 * N_CARDS
    with pytest.raises(D.DealError, match="preparation is for another seat"):
        D.shuffle(list(st.deck), SECRETS[2], joint, SEED, 2, prep=prep)
    # its offline part (no other seat's key needed: done while the keys come) gives the same prep
    offline, online = D.Counter(), D.Counter()
    off = D.shuffle_offline(SECRETS[1], N_CARDS, SEED, 1, offline)
    assert D.shuffle_prep(SECRETS[1], N_CARDS, joint, SEED, 1, online, offline=off) == prep
    assert (offline.base, offline.var, online.base, online.var) == (2 * N_CARDS, 0, 0, N_CARDS)
    with pytest.raises(D.DealError, match="offline part is for another seat"):
        D.shuffle_prep(SECRETS[2], N_CARDS, joint, SEED, 2, offline=off)


def test_precompute_warms_the_verdicts_and_the_outcome_is_the_same_without_it():
    """The game's precompute calls are pure and memoised: running them ahead (a peer's worker
    thread) or not gives the same states; they cover the seat's own preparation while it waits
    and every placed shuffle not made here."""
    st = _to_shuffle(2)
    assert [c.func.__name__ for c in GAME.precompute(st, 2, SECRETS[2])] == ["_prep"]   # both made here
    dealt._MADE.clear()     # as at another peer: the shuffles placed were made elsewhere
    calls = GAME.precompute(st, 2, SECRETS[2])
    assert [c.func.__name__ for c in calls] == ["_prep", "_proof_problem", "_proof_problem"]
    assert all(c() is None for c in calls[1:])
    assert GAME.precompute(st, 0, SECRETS[0])[0].func.__name__ == "_proof_problem"   # seat 0 has shuffled
    assert GAME.precompute(_to_shuffle(0), None) == []
    keys = GAME.precompute(GAME.setup(GAME.configure({}, 3), 3, SEED), 0, SECRETS[0])
    assert [c.func.__name__ for c in keys] == ["_initial", "_table", "generators", "_offline"]
    assert keys[1]() == D.card_table(SEED, N_CARDS) and keys[2]() == D.generators(N_CARDS)
    assert keys[3]() == D.shuffle_offline(SECRETS[0], N_CARDS, SEED, 0)
    # a spectator (no seat, no secret) warms the public values only
    assert [c.func.__name__ for c in GAME.precompute(GAME.setup(GAME.configure({}, 3), 3, SEED), None)] == \
        ["_initial", "_table", "generators"]
    a = GAME.apply(st, 2, GAME.check(st, 2, GAME.auto_action(st, 2, SECRETS[2])))
    dealt._cached_proof_problem.cache_clear()
    dealt._MADE.clear()
    b = GAME.apply(st, 2, GAME.check(st, 2, GAME.auto_action(st, 2, SECRETS[2])))
    assert a.stage == b.stage == "deal" and a.decks == b.decks


def test_a_proof_with_an_invalid_point_passes_the_form_and_is_refused_by_the_proof():
    st = _to_shuffle(2)
    good = GAME.auto_action(st, 2, SECRETS[2])
    bad = dict(good, proof=bytes(32) + good["proof"][32:])     # commitment 0: not a point
    joint = dealt._joint(st.keys)
    assert D.check_shuffle_form(st.deck, bad["deck"], bad["proof"], joint, SEED, 2) is None
    assert D.verify_shuffle_proof(st.deck, bad["deck"], bad["proof"], joint, SEED, 2) == \
        "commitment 0 of the proof is not a valid point"
    assert _refused(st, 2, bad) == [[2, "seat 2's shuffle is refused: commitment 0 of the proof is not a valid point: "
                                        "the deal cannot go on, no hand was dealt"]]


def test_precompute_before_the_tables_setup_asks_for_the_generators_only():
    """A peer's worker may ask before the seed step has set the game up (no state yet): the proof's
    generators are the same for every game, nothing else is known yet."""
    for calls in (GAME.precompute(None, 0, SECRETS[0]), GAME.precompute(None, None)):
        assert [c.func.__name__ for c in calls] == ["generators"] and calls[0]() == D.generators(N_CARDS)


def test_a_verdict_being_computed_is_waited_for_not_computed_twice(monkeypatch):
    """A peer's worker thread may be checking a proof (``precompute``) when the table's apply
    needs the same verdict: the second caller waits for the first one's answer (one check, not
    two).  The first check is held until the second caller is known to be blocked on it or done;
    the second one cannot finish while the first is held unless it computed the verdict itself."""
    import threading

    from core.memo import use_locks
    use_locks(threading.Lock)        # as p2p/node.py does before its worker threads start
    st = _to_shuffle(2)
    dealt._MADE.clear()
    dealt._cached_proof_problem.cache_clear()
    key = (st.gid, 0, st.decks[0], st.decks[1], st.proofs[0], dealt._joint(st.keys))
    calls, entered, release = [], threading.Event(), threading.Event()
    real = D.verify_shuffle_proof

    def slow(*a):
        calls.append(a)
        if len(calls) == 1:
            entered.set()
            assert release.wait(30)
        return real(*a)

    monkeypatch.setattr(D, "verify_shuffle_proof", slow)
    got = {}
    first = threading.Thread(target=lambda: got.setdefault("worker", dealt._proof_problem(*key)))
    first.start()
    assert entered.wait(30)
    second = threading.Thread(target=lambda: got.setdefault("apply", dealt._proof_problem(*key)))
    second.start()
    second.join(0.5)                 # with the lock it is still waiting (without it: done at once)
    assert second.is_alive() and len(calls) == 1
    release.set()
    first.join(30)
    second.join(30)
    assert not first.is_alive() and not second.is_alive()
    assert got == {"worker": None, "apply": None} and len(calls) == 1


def test_at_five_seats_a_bad_proof_stops_the_deal_two_shuffles_later_and_no_share_is_asked():
    """docs/deal.md §3: a shuffle's proof is checked when the shuffle two places after it is
    applied (CHECK_LAG), the last ones with the last shuffle: seat 0's forged shuffle stops the deal
    when seat 2's is applied; seats 3 and 4 are never asked to shuffle."""
    secrets = [rand64(s, "five") for s in range(5)]
    st = GAME.setup(GAME.configure({}, 5), 5, SEED)
    for s in range(5):
        st = GAME.apply(st, s, GAME.auto_action(st, s, secrets[s]))
    asked = []
    while st.stage == "shuffle":
        s = st.shuffler
        asked.append(s)
        a = GAME.auto_action(st, s, secrets[s])
        if s == 0:
            a = dict(a, deck=copy_cheat(a["deck"], dealt._joint(st.keys), 3, 25))
        st = GAME.apply(st, s, GAME.check(st, s, a))
    assert dealt.CHECK_LAG == 2 and asked == [0, 1, 2]
    res = GAME.result(st)
    assert res["status"] == "abandoned" and [s for s, _ in res["named"]] == [0] and st.shared == 0
