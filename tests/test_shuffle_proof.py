"""The shuffle proof (cut-and-choose shadow shuffles, docs/deal.md §3-4): honest proofs verify for
every challenge; the copy cheat of a last shuffler is caught at once, naming the seat and the shadow;
a cheat ready for one challenge fails every other; malformed openings are refused with a clear
reason and nothing applied."""

from __future__ import annotations

import hashlib

import pytest

from core import deal as D
from core.engine import IllegalAction
from core.games.modern_art import dealt
from core.games.modern_art.cards import N_CARDS
from core.games.modern_art.game import MODERN_ART as GAME
from core.hashing import dhash

GID = dhash("test/shuffle-proof-game")
K = D.SHADOWS


def rand64(s: int, tag: str = "p") -> bytes:
    return hashlib.sha512(("%s-%d" % (tag, s)).encode()).digest()


class Deal:
    """n seats' keys and shuffles of an n_cards deck; ``decks[s]`` is seat s's input, ``decks[s+1]`` its output."""

    def __init__(self, n: int = 4, n_cards: int = 24, tag: str = "p") -> None:
        self.n, self.n_cards = n, n_cards
        self.secrets = [rand64(s, tag) for s in range(n)]
        self.publics = [D.keygen(self.secrets[s], GID, s)[1] for s in range(n)]
        self.joint = D.joint_key(self.publics)
        self.decks = [D.initial_deck(GID, n_cards)]
        self.commits = []
        for s in range(n):
            self.commits.append(D.shuffle_commit(self.decks[s], self.secrets[s], self.joint, GID, s))
            self.decks.append(D.shuffle(self.decks[s], self.secrets[s], self.joint, GID, s))

    def verify(self, s: int, bits, openings, out=None, commit=None) -> str | None:
        return D.verify_shuffle_proof(self.decks[s], self.decks[s + 1] if out is None else out,
                                      self.commits[s] if commit is None else commit, bits, openings,
                                      self.joint, GID, s)


def copy_cheat(deck_out: list, joint: bytes, victim_pos: int, own_pos: int) -> list:
    """The peek: a re-randomised copy of the ciphertext at a victim's position over one's own."""
    out = list(deck_out)
    out[own_pos] = D._reencrypt(out[victim_pos], D._scalar("test/peek", victim_pos), joint, D.Counter())
    assert D.check_deck(out, len(out)) is None   # nothing visible at once without the proof
    return out


def forge(deck_in: list, deck_out: list, secret: bytes, joint: bytes, gid: bytes, seat: int, bits) -> tuple:
    """The best a cheat can do: shadows that open for the challenge ``bits`` it guesses.

    Bit 0: an honest shadow of the input (opened by its seed); bit 1: a shadow made backwards from
    the (wrong) output with a permutation and re-randomisers of its choice (opened by them).
    Returns (commit, openings)."""
    n = len(deck_in)
    commit, openings = [], []
    for i, b in enumerate(bits):
        if b == 0:
            seed = D.shadow_seed(secret, gid, seat, i)
            sh = D.shadow_deck(deck_in, seed, joint, gid, seat)
            openings.append(seed)
        else:
            perm = list(range(n))
            perm = perm[i % n:] + perm[:i % n]
            rs = [D._scalar("test/forge", seat, i, j) for j in range(n)]
            sh = D._unshuffle(deck_out, perm, rs, joint, D.Counter())
            openings.append({"perm": perm, "r": rs})
        commit.append(D._shadow_hash(gid, seat, i, sh))
    return commit, openings


ALL0, ALL1 = [0] * K, [1] * K
MIXED = [int(i % 3 == 1) for i in range(K)]


# --------------------------------------------------------------------------- honest proofs


@pytest.mark.parametrize("bits", [ALL0, ALL1, MIXED], ids=["all-0", "all-1", "mixed"])
def test_honest_shuffles_and_proofs_verify_for_every_challenge_pattern(bits):
    d = Deal()
    for s in range(d.n):
        openings = D.prove_shuffle(d.n_cards, d.secrets[s], GID, s, bits)
        assert len(openings) == K
        for b, o in zip(bits, openings):
            assert (type(o) is bytes) == (b == 0)
        assert d.verify(s, bits, openings) is None
        # and the proof is bound to its output (a bit 1 looks at it), seat and commitment
        if any(bits):
            assert d.verify(s, bits, openings, out=d.decks[s]) is not None
        assert D.verify_shuffle_proof(d.decks[s], d.decks[s + 1], d.commits[s], bits, openings, d.joint, GID,
                                      (s + 1) % d.n) is not None
        other = list(d.commits[s])
        other[K - 1] = d.commits[(s + 1) % d.n][K - 1]
        assert d.verify(s, bits, openings, commit=other) == "shadow %d: %s" % (
            K - 1, "the seed does not give the committed shadow of the input deck" if bits[K - 1] == 0
            else "the output is not the committed shadow re-shuffled by perm and r")


def test_challenge_bits_come_from_the_entropy_and_the_game():
    e = dhash("test/beacon")
    bits = D.challenge_bits(e, GID)
    h = dhash("deal/challenge", e, GID)
    assert bits == [(h[i // 8] >> (i % 8)) & 1 for i in range(K)] and set(bits) == {0, 1}
    assert D.challenge_bits(dhash("test/beacon2"), GID) != bits
    assert D.challenge_bits(e, dhash("another game")) != bits
    with pytest.raises(D.DealError):
        D.challenge_bits(b"short", GID)


def test_openings_reveal_neither_the_real_permutation_nor_the_re_randomisers():
    d = Deal(3, 20)
    s = 2
    perm, rs = D._shuffle_plan(d.secrets[s], d.n_cards, GID, s)
    openings = D.prove_shuffle(d.n_cards, d.secrets[s], GID, s, ALL1)
    for i, o in enumerate(openings):
        assert o["perm"] != perm and not set(o["r"]) & set(rs)
        # the opening is the real shuffle composed with the (unopened) shadow: together they give it
        sperm, srs = D._shadow_plan(D.shadow_seed(d.secrets[s], GID, s, i), d.n_cards, GID, s)
        assert [sperm[o["perm"][j]] for j in range(d.n_cards)] == perm
    # the seeds of bit 0 are not the secret, nor derived the way the real plan is
    seeds = D.prove_shuffle(d.n_cards, d.secrets[s], GID, s, ALL0)
    assert len(set(seeds)) == K and all(x not in d.secrets[s] for x in seeds)


def test_verifying_costs_one_shuffle_per_shadow_and_proving_costs_nothing():
    d = Deal(3, 20)
    ops = D.Counter()
    D.shuffle_commit(d.decks[0], d.secrets[0], d.joint, GID, 0, K, ops)
    assert (ops.base, ops.var) == (K * 20, K * 20)
    ops = D.Counter()
    assert d.verify(1, MIXED, D.prove_shuffle(20, d.secrets[1], GID, 1, MIXED)) is None
    assert D.verify_shuffle_proof(d.decks[1], d.decks[2], d.commits[1], MIXED,
                                  D.prove_shuffle(20, d.secrets[1], GID, 1, MIXED), d.joint, GID, 1, ops) is None
    assert (ops.base, ops.var) == (K * 20, K * 20)


# --------------------------------------------------------------------------- cheats


def test_the_copy_cheat_of_the_last_shuffler_is_caught_by_any_challenge_with_a_one_bit():
    n, n_cards = 3, 30
    d = Deal(n, n_cards)
    last = n - 1
    # round 1 deals 10 positions per seat in order: 0-9 seat 0 (the victim), 20-29 the cheat's own
    cheat = copy_cheat(d.decks[last + 1], d.joint, victim_pos=3, own_pos=25)
    # honest-looking shadows: its real commitments, and the openings its secret gives
    for bits in (ALL1, MIXED, [0] * (K - 1) + [1]):
        openings = D.prove_shuffle(n_cards, d.secrets[last], GID, last, bits)
        bad = d.verify(last, bits, openings, out=cheat)
        first = bits.index(1)
        assert bad == "shadow %d: the output is not the committed shadow re-shuffled by perm and r" % first
    # only the challenge with no bit 1 lets it through: probability 2^-K with a fresh beacon
    assert d.verify(last, ALL0, D.prove_shuffle(n_cards, d.secrets[last], GID, last, ALL0), out=cheat) is None
    # and the audit then names it anyway, with certainty
    decks = d.decks[1:last + 1] + [cheat]
    problems = D.audit_shuffles(GID, n_cards, d.publics, decks, d.secrets)
    assert [s for s, _ in problems] == [last] and "duplicated card" in problems[0][1]


def test_a_cheat_prepared_for_one_challenge_fails_every_other():
    n, n_cards = 3, 30
    d = Deal(n, n_cards)
    last = n - 1
    cheat = copy_cheat(d.decks[last + 1], d.joint, victim_pos=3, own_pos=25)
    guess = MIXED
    commit, openings = forge(d.decks[last], cheat, d.secrets[last], d.joint, GID, last, guess)
    # the guessed challenge: the forged proof passes (this is the 2^-K the proof leaves)
    assert d.verify(last, guess, openings, out=cheat, commit=commit) is None
    # each challenge that differs in one bit i fails at shadow i, whatever it opens there
    for i in range(K):
        bits = list(guess)
        bits[i] ^= 1
        honest = D.prove_shuffle(n_cards, d.secrets[last], GID, last, bits)
        for attempt in (honest[i], openings[i]):
            o = list(openings)
            o[i] = attempt
            bad = d.verify(last, bits, o, out=cheat, commit=commit)
            assert bad is not None and bad.startswith("shadow %d: " % i), (i, bad)
    # a shuffle that is right passes every challenge with its honest openings (above); a wrong one
    # passes exactly one challenge out of 2^K with any prepared shadows: one per shadow is fixed


def test_the_proof_also_catches_a_substituted_or_alien_card():
    d = Deal(3, 20)
    out = list(d.decks[2])   # seat 1's output
    out[4] = d.decks[2][4][:32] + D._add(d.decks[2][4][32:], D.G)     # opens to no card
    assert D.check_deck(out, 20) is None
    bad = d.verify(1, ALL1, D.prove_shuffle(20, d.secrets[1], GID, 1, ALL1), out=out)
    assert bad is not None and bad.startswith("shadow 0:")


# --------------------------------------------------------------------------- malformed openings


def _noncanonical(x: bytes) -> bytes:
    return (int.from_bytes(x, "little") + D.L).to_bytes(32, "little")


def test_tampered_openings_are_refused_with_the_reason_and_the_shadow():
    d = Deal(3, 20)
    s, bits = 1, MIXED
    good = D.prove_shuffle(20, d.secrets[s], GID, s, bits)
    assert d.verify(s, bits, good) is None
    i0, i1 = bits.index(0), bits.index(1)

    def with_(i, o):
        out = list(good)
        out[i] = o
        return out

    p, r = good[i1]["perm"], good[i1]["r"]
    cases = [
        (with_(i0, dhash("wrong seed")), "shadow %d: the seed does not give" % i0),
        (with_(i0, good[i0][:31]), "shadow %d: challenge bit 0 is opened by its 32-byte seed" % i0),
        (with_(i0, good[i1]), "shadow %d: challenge bit 0" % i0),
        (with_(i1, good[i0]), "shadow %d: challenge bit 1 is opened by a map" % i1),
        (with_(i1, {"perm": p}), "shadow %d: challenge bit 1 is opened by a map" % i1),
        (with_(i1, {"perm": p[:1] + p[:-1], "r": r}), "shadow %d: perm is not a permutation" % i1),
        (with_(i1, {"perm": p[:-1], "r": r}), "shadow %d: perm is not a permutation" % i1),
        (with_(i1, {"perm": p[:-1] + [20], "r": r}), "shadow %d: perm is not a permutation" % i1),
        (with_(i1, {"perm": [bool(x) if x == 1 else x for x in p], "r": r}), "shadow %d: perm is not a permutation" % i1),
        (with_(i1, {"perm": p, "r": r[:-1]}), "shadow %d: r must be a list of 20 scalars" % i1),
        (with_(i1, {"perm": p, "r": r[:5] + [_noncanonical(r[5])] + r[6:]}), "shadow %d: r[5] is not a canonical" % i1),
        (with_(i1, {"perm": p, "r": r[:5] + [r[5][:31]] + r[6:]}), "shadow %d: r[5] is not a canonical" % i1),
        (with_(i1, {"perm": p[1:] + p[:1], "r": r}), "shadow %d: the output is not the committed shadow" % i1),
        (with_(i1, {"perm": p, "r": r[1:] + r[:1]}), "shadow %d: the output is not the committed shadow" % i1),
        (good[:-1], "the proof must be a list of %d openings" % K),
        (good + [good[0]], "the proof must be a list of %d openings" % K),
        ("not a list", "the proof must be a list"),
    ]
    for openings, words in cases:
        bad = d.verify(s, bits, openings)
        assert bad is not None and bad.startswith(words), (words, bad)
    assert d.verify(s, bits, good, commit=d.commits[s][:-1]).startswith("the commitment must be a list")


# --------------------------------------------------------------------------- through the game object


SECRETS = [rand64(s, "game") for s in range(3)]
SEED = dhash("test/shuffle-proof-seed")


def _to_proofs(tamper=None):
    """Keys and shuffles (``tamper(state, seat, action)`` may change a shuffle), then the challenge."""
    st = GAME.setup(GAME.configure({}, 3), 3, SEED)
    while st.stage in ("keys", "shuffle"):
        t = GAME.turn(st)
        acts = []
        for s in t.seats:
            a = GAME.auto_action(st, s, SECRETS[s])
            if tamper is not None:
                a = tamper(st, s, a)
            acts.append((s, GAME.check(st, s, a)))
        for s, a in acts:
            st = GAME.apply(st, s, a)
    assert st.stage == "challenge" and GAME.turn(st).kind == "chance" and GAME.turn(st).seats == (0, 1, 2)
    with pytest.raises(IllegalAction, match="nobody moves now"):
        GAME.check(st, 0, {"openings": []})
    st = GAME.chance(st, dhash("test/beacon", 7))
    assert st.stage == "proofs" and 1 in st.challenge and 0 in st.challenge
    return st


def test_a_tampered_opening_through_the_game_is_refused_naming_the_seat_and_nothing_applied():
    st = _to_proofs()
    good = GAME.auto_action(st, 2, SECRETS[2])
    assert GAME.check(st, 2, good) == good
    i1 = st.challenge.index(1)
    bad = {"openings": list(good["openings"])}
    bad["openings"][i1] = {"perm": good["openings"][i1]["perm"],
                           "r": [_noncanonical(good["openings"][i1]["r"][0])] + good["openings"][i1]["r"][1:]}
    with pytest.raises(IllegalAction, match=r"seat 2's shuffle proof is refused: shadow %d: r\[0\] is not a canonical" % i1):
        GAME.check(st, 2, bad)
    with pytest.raises(IllegalAction, match="seat 2's shuffle proof must open %d shadows" % K):
        GAME.check(st, 2, {"openings": good["openings"][1:]})
    with pytest.raises(IllegalAction, match="exactly openings"):
        GAME.check(st, 2, {"openings": good["openings"], "extra": 1})
    # another seat's openings do not prove this seat's shuffle
    with pytest.raises(IllegalAction, match="seat 2's shuffle proof is refused: shadow"):
        GAME.check(st, 2, GAME.auto_action(st, 1, SECRETS[1]))
    # refusing changed nothing: the step still waits for every shuffler
    assert st.stage == "proofs" and st.pending == (0, 1, 2) and GAME.problems(st, 2, bad)
    after = st
    for s in (0, 1, 2):
        after = GAME.apply(after, s, GAME.auto_action(st, s, SECRETS[s]))
    assert after.stage == "deal"


def test_a_copy_cheat_through_the_game_is_refused_before_any_share():
    def tamper(state, seat, action):
        if state.stage == "shuffle" and seat == 2:
            return dict(action, deck=copy_cheat(action["deck"], dealt._joint(state.keys), 3, 25))
        return action

    st = _to_proofs(tamper)
    assert st.ms.dealt > 0 and all(x == (None,) * 3 for x in st.shares)   # positions dealt, no share given
    for s in (0, 1):
        GAME.check(st, s, GAME.auto_action(st, s, SECRETS[s]))
    i1 = st.challenge.index(1)
    with pytest.raises(IllegalAction, match="seat 2's shuffle proof is refused: shadow %d: the output is not" % i1):
        GAME.check(st, 2, GAME.auto_action(st, 2, SECRETS[2]))
    # it can only stay silent: timed out, its proof is withheld and the game ends, the cheat last
    for s in (0, 1):
        st = GAME.apply(st, s, GAME.auto_action(st, s, SECRETS[s]))
    st = GAME.apply(st, 2, GAME.default_action(st, 2))
    res = GAME.result(st)
    assert res["status"] == "withheld" and res["named"] == [[2, "withheld its shuffle proof"]]
    assert res["ranking"][-1] == 2 and 2 not in res["winners"]
    assert all(x == (None,) * 3 for x in st.shares)    # no share was ever given


def test_a_pass_needs_no_proof_and_a_shuffle_must_commit():
    def tamper(state, seat, action):
        return {"deck": None} if state.stage == "shuffle" and seat == 1 else action

    st = _to_proofs(tamper)
    assert st.pending == (0, 2) and st.commits[1] is None
    with pytest.raises(IllegalAction, match="not asked"):
        GAME.check(st, 1, {"openings": []})
    st0 = GAME.setup(GAME.configure({}, 3), 3, SEED)
    for s in range(3):
        st0 = GAME.apply(st0, s, GAME.auto_action(st0, s, SECRETS[s]))
    a = GAME.auto_action(st0, 0, SECRETS[0])
    assert len(a["commit"]) == K
    with pytest.raises(IllegalAction, match="commit to %d shadow shuffles" % K):
        GAME.check(st0, 0, dict(a, commit=a["commit"][1:]))
    with pytest.raises(IllegalAction, match="exactly deck, commit"):
        GAME.check(st0, 0, {"deck": a["deck"]})
    with pytest.raises(IllegalAction, match="shadow commitment must be 32 bytes"):
        GAME.check(st0, 0, dict(a, commit=[b"x"] * K))


def test_the_audit_checks_the_proof_of_a_seat_whose_secret_is_missing():
    d = Deal(3, 20)
    bits = MIXED
    proofs = [(d.commits[s], bits, D.prove_shuffle(20, d.secrets[s], GID, s, bits)) for s in range(3)]
    decks = d.decks[1:]
    missing = [d.secrets[0], None, d.secrets[2]]
    assert D.audit_shuffles(GID, 20, d.publics, decks, missing, proofs=proofs) == [(1, "seat secret not disclosed")]
    # a wrong proof for the undisclosed shuffle is named
    wrong = list(proofs)
    wrong[1] = (d.commits[1], bits, proofs[2][2])
    got = D.audit_shuffles(GID, 20, d.publics, decks, missing, proofs=wrong)
    assert got[0] == (1, "seat secret not disclosed") and got[1][0] == 1 and got[1][1].startswith("shuffle proof fails: shadow")
    # with every secret disclosed the proofs are not needed (the shuffles are redone exactly)
    ops = D.Counter()
    assert D.audit_shuffles(GID, 20, d.publics, decks, d.secrets, ops, proofs=wrong) == []
    assert ops.mults < 3 * 20 * 2 + 10
    assert D.audit_shuffles(GID, 20, d.publics, decks, missing, proofs=[None, "junk", None])[1][1] == \
        "shuffle proof fails: the proof is not (commit, bits, openings)"


def test_state_records_the_commitments_and_the_challenge():
    st = _to_proofs()
    assert [len(c) for c in st.commits] == [K] * 3 and len(st.challenge) == K
    assert st.challenge == tuple(D.challenge_bits(dhash("test/beacon", 7), SEED))
    assert len(st.decks) == 4 and len(st.decks[0]) == N_CARDS
