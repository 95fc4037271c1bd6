"""The trustless deal (core/deal.py): each required property of issue 6 §2 as a test."""

from __future__ import annotations

import itertools

import nacl.bindings as nb
import pytest

from core import deal as D
from core.encoding import encode
from core.hashing import dhash

GID = dhash("test/deal-game", 1)


def rand64(tag, s):
    return dhash("test/deal-rand", tag, s) + dhash("test/deal-rand", tag, s, 1)


class Table:
    """A whole deal played in one process; every message a seat publishes is kept, encoded."""

    def __init__(self, n, n_cards, tag="t", cheat=None):
        self.n, self.n_cards = n, n_cards
        self.published: list[tuple[str, int, bytes]] = []  # (what, seat, encoded message)
        self.keys = [D.keygen(rand64(tag, s), GID, s) for s in range(n)]
        for s, (_, pub, proof) in enumerate(self.keys):
            self.publish("key", s, {"key": pub, "proof": proof})
            assert D.verify_key(pub, proof, GID, s)
        self.publics = [k[1] for k in self.keys]
        self.joint = D.joint_key(self.publics)
        self.table = D.card_table(GID, n_cards)
        deck = D.initial_deck(GID, n_cards)
        self.decks = []
        self.proofs = []
        for s in range(n):
            out = D.shuffle(deck, self.secret(s), self.joint, GID, s)
            if cheat is not None and cheat[0] == s:
                out = cheat[1](self, deck, out)
            # the shuffle proof goes with the deck (a cheat's best: its honest witness for the wrong deck)
            perm, rs = D._shuffle_plan(self.secret(s), n_cards, GID, s)
            proof = D._tw_prove(deck, out, perm, rs, self.joint, GID, s, self.secret(s), D.Counter())
            self.publish("shuffle", s, {"deck": out, "proof": proof})
            bad = D.verify_shuffle_proof(deck, out, proof, self.joint, GID, s)
            assert (bad is None) == (cheat is None or cheat[0] != s), bad
            self.proofs.append(proof)
            self.decks.append(out)
            deck = out
        self.deck = deck
        self.next_pos = 0
        self.owner: dict[int, int] = {}
        self.shares: dict[int, dict[int, bytes]] = {}  # pos -> seat -> D (verified)
        self.hands: dict[int, list[int]] = {s: [] for s in range(n)}
        self.hand_pos: dict[int, list[int]] = {s: [] for s in range(n)}

    def secret(self, s):
        return self.keys[s][0]

    def publish(self, what, seat, msg):
        self.published.append((what, seat, encode(msg)))

    def deal(self, counts):
        assigned, self.next_pos = D.assign_positions(self.next_pos, counts)
        for pos, own in assigned:
            self.owner[pos] = own
        # every seat publishes, in one message, its shares for the positions dealt to the others
        for s in range(self.n):
            batch = []
            for pos, own in assigned:
                if own != s:
                    d, proof = D.share(self.secret(s), self.deck[pos], GID, s, pos)
                    batch.append([pos, d, proof])
            self.publish("shares", s, {"shares": batch})
            for pos, d, proof in batch:
                assert D.verify_share(self.publics[s], self.deck[pos], d, proof, GID, s, pos)
                self.shares.setdefault(pos, {})[s] = d
        for pos, own in assigned:
            card = D.open_card(self.deck[pos], self.others(pos), self.secret(own), GID, own, self.table)
            self.hands[own].append(card)
            self.hand_pos[own].append(pos)
        return assigned

    def others(self, pos):
        return [d for s, d in sorted(self.shares[pos].items()) if s != self.owner[pos]]

    def play(self, seat, pos):
        d, proof = D.share(self.secret(seat), self.deck[pos], GID, seat, pos)
        card = D.open_card(self.deck[pos], self.others(pos), self.secret(seat), GID, seat, self.table)
        msg = {"pos": pos, "card": card, "share": d, "proof": proof}
        self.publish("play", seat, msg)
        return msg


# --------------------------------------------------------------------------- full deals


@pytest.mark.parametrize("n,counts", [(3, [10, 6, 6, 0]), (5, [8, 3, 3, 0])])
def test_full_deal_each_seat_opens_exactly_its_own_cards(n, counts):
    n_cards = n * sum(counts) if n == 5 else 70
    t = Table(n, n_cards)
    for k in counts:
        t.deal([k] * n)
    every = [c for s in range(n) for c in t.hands[s]]
    assert None not in every
    assert len(every) == len(set(every)) == n * sum(counts)  # no card twice
    assert set(every) <= set(range(n_cards))
    for s in range(n):
        assert len(t.hands[s]) == sum(counts)
    # a seat cannot open a position dealt to another seat with everything it has
    for pos, own in t.owner.items():
        for s in range(n):
            if s != own:
                known = [d for q, d in t.shares[pos].items() if q != s and q != own]
                assert D.open_card(t.deck[pos], known, t.secret(s), GID, s, t.table) is None
    # and every played card is the one the owner holds, checked by everyone
    for s in range(n):
        for pos, card in zip(t.hand_pos[s], t.hands[s]):
            m = t.play(s, pos)
            assert m["card"] == card
            assert D.verify_play(t.deck[pos], t.others(pos), t.publics[s], m["share"], m["proof"],
                                 m["card"], GID, s, pos, t.table) is None
    assert D.audit_shuffles(GID, n_cards, t.publics, t.decks, [t.secret(s) for s in range(n)]) == []


def test_later_rounds_come_from_the_same_shuffled_deck_positions_in_order():
    t = Table(5, 70)
    seen = []
    for k in (8, 3, 3, 0):
        assigned = t.deal([k] * 5)
        seen.extend(p for p, _ in assigned)
    assert seen == list(range(70))  # positions used in order, none twice, one deck
    assert sorted(c for s in range(5) for c in t.hands[s]) == list(range(70))
    # the second round starts where the first stopped
    assert D.assign_positions(40, [3] * 5) == ([(40 + i, i // 3) for i in range(15)], 55)
    with pytest.raises(D.DealError):
        D.assign_positions(0, [1, -1])


# --------------------------------------------------------------------------- no identity before the deal


def test_no_card_identity_in_any_published_byte_before_it_is_dealt_or_played():
    n, n_cards = 4, 40
    t = Table(n, n_cards)
    t.deal([5] * n)
    t.deal([3] * n)
    points = D.card_points(GID, n_cards)
    preimages = [dhash("deal/card", GID, i) for i in range(n_cards)]
    blob = b"".join(raw for _, _, raw in t.published)
    assert len(blob) > 64 * n_cards * n  # the scan saw the decks, keys, shuffle proofs and shares
    assert sum(1 for what, _, m in t.published if what == "shuffle" and b"proof" in m) == n   # each with its proof
    for i in range(n_cards):
        assert points[i] not in blob
        assert preimages[i] not in blob
    for what, _, raw in t.published:
        assert b"card" not in raw  # no message before a play names a card
    for deck in t.decks:
        for ct in deck:
            assert ct[:32] not in t.table and ct[32:] not in t.table
    # a share of the owner itself is never published before a play
    for pos, own in t.owner.items():
        assert own not in t.shares[pos]
        own_d = D.share(t.secret(own), t.deck[pos], GID, own, pos)[0]
        assert own_d not in blob
    # once played, the card is public (the play names it)
    s = 0
    m = t.play(s, t.hand_pos[s][0])
    assert encode(m["card"]) in t.published[-1][2]


def test_coalition_of_all_seats_but_one_cannot_read_the_honest_hand():
    n, n_cards = 4, 32
    for honest in range(n):  # honest seat shuffling first, in the middle and last
        t = Table(n, n_cards, tag="coal%d" % honest)
        t.deal([4] * n)
        t.deal([2] * n)
        known = {s: D._secret_scalar(t.secret(s), GID, s) for s in range(n) if s != honest}
        blob = b"".join(raw for _, _, raw in t.published)
        for pos in t.hand_pos[honest]:
            c1, c2 = t.deck[pos][:32], t.deck[pos][32:]
            parts = [nb.crypto_scalarmult_ed25519_noclamp(y, c1) for y in known.values()]
            # decrypting with every subset of the known secrets (shares included) gives no card
            for k in range(len(parts) + 1):
                for sub in itertools.combinations(parts, k):
                    p = c2
                    for d in sub:
                        p = nb.crypto_core_ed25519_sub(p, d)
                    assert p not in t.table
            # nor does undoing their own shuffles: the deck before the honest shuffle is
            # under the joint key too
            if honest > 0:
                for ct in t.decks[honest - 1]:
                    p = ct[32:]
                    for y in known.values():
                        p = nb.crypto_core_ed25519_sub(p, nb.crypto_scalarmult_ed25519_noclamp(y, ct[:32]))
                    assert p not in t.table
        # the honest hand is right, and none of it is in anything published
        assert None not in t.hands[honest]
        for c in t.hands[honest]:
            assert D.card_points(GID, n_cards)[c] not in blob


# --------------------------------------------------------------------------- cheating shufflers


def _dup(t, deck_in, out):
    """Copy position 0's ciphertext, re-randomised, over position 5: a duplicated card."""
    out = list(out)
    r = D._scalar("test/cheat", 1)
    out[5] = D._reencrypt(out[0], r, t.joint, D.Counter())
    return out


def _subst(t, deck_in, out):
    """Replace position 3 by a fresh encryption of card 0: a substituted card."""
    out = list(out)
    r = D._scalar("test/cheat", 2)
    out[3] = D._reencrypt(D.initial_deck(GID, t.n_cards)[0], r, t.joint, D.Counter())
    return out


def _alien(t, deck_in, out):
    """Replace position 7 by an encryption of a point that is no card."""
    out = list(out)
    r = D._scalar("test/cheat", 3)
    alien = D.IDENTITY + nb.crypto_core_ed25519_from_uniform(dhash("not a card"))
    out[7] = D._reencrypt(alien, r, t.joint, D.Counter())
    return out


@pytest.mark.parametrize("cheater", [0, 2, 3])
@pytest.mark.parametrize("how,words", [(_dup, "duplicated card"), (_subst, "duplicated card"),
                                       (_alien, "hold no card")])
def test_duplicated_or_substituted_card_is_named_with_the_seat(cheater, how, words):
    n, n_cards = 4, 20
    t = Table(n, n_cards, cheat=(cheater, how))
    for deck in t.decks:  # a re-randomised copy passes the at-once check...
        assert D.check_deck(deck, n_cards) is None
    secrets = [t.secret(s) for s in range(n)]
    problems = D.audit_shuffles(GID, n_cards, t.publics, t.decks, secrets)
    assert [s for s, _ in problems] == [cheater]  # ...the disclosure names the seat that did it
    assert words in problems[0][1]
    # verify_shuffle_disclosed alone names the position
    bad = D.verify_shuffle_disclosed(t.decks[cheater - 1] if cheater else D.initial_deck(GID, n_cards),
                                     t.decks[cheater], secrets[cheater], t.joint, GID, cheater)
    assert bad is not None and "position" in bad
    # and the honest shuffles check
    for s in range(n):
        if s != cheater:
            deck_in = t.decks[s - 1] if s else D.initial_deck(GID, n_cards)
            assert D.verify_shuffle_disclosed(deck_in, t.decks[s], secrets[s], t.joint, GID, s) is None


def test_duplicate_shows_at_once_when_both_copies_are_opened():
    # seat 3 (last shuffler) copies position 0 over position 5; both are dealt: the cards repeat
    t = Table(4, 20, cheat=(3, _dup))
    t.deal([3] * 4)  # positions 0..2 -> seat 0, 3..5 -> seat 1
    assert t.hands[0][0] == t.hands[1][2]  # the same card in two hands: visible when both are played


def test_check_deck_refuses_at_once_what_it_can_see():
    t = Table(3, 10)
    deck = t.decks[0]
    assert D.check_deck(deck, 10) is None
    assert "list of 10" in D.check_deck(deck[:9], 10)
    assert "64 bytes" in D.check_deck(deck[:9] + [deck[9][:63]], 10)
    copy = list(deck)
    copy[4] = copy[2]
    assert "repeats" in D.check_deck(copy, 10)
    bad = list(deck)
    bad[1] = D.IDENTITY + deck[1][32:]
    assert "valid points" in D.check_deck(bad, 10)


def test_disclosure_must_match_the_key_and_withholding_is_named():
    t = Table(3, 10)
    secrets = [t.secret(s) for s in range(3)]
    assert D.verify_disclosure(t.publics[1], secrets[1], GID, 1)
    assert not D.verify_disclosure(t.publics[1], secrets[2], GID, 1)
    assert not D.verify_disclosure(t.publics[1], b"short", GID, 1)
    lying = list(secrets)
    lying[1] = rand64("other", 1)
    assert D.audit_shuffles(GID, 10, t.publics, t.decks, lying) == [(1, "disclosed secret does not match the seat's key")]
    withheld = [secrets[0], secrets[1], None]
    assert D.audit_shuffles(GID, 10, t.publics, t.decks, withheld) == [(2, "seat secret not disclosed")]


# --------------------------------------------------------------------------- shares and plays


def test_wrong_share_fails_verify_share_at_once():
    t = Table(3, 12)
    t.deal([2, 2, 2])
    pos, seat = 0, 1  # position 0 is seat 0's; seat 1 gives a share
    ct = t.deck[pos]
    d, proof = D.share(t.secret(seat), ct, GID, seat, pos)
    assert D.verify_share(t.publics[seat], ct, d, proof, GID, seat, pos)
    # a share made with another secret, for another position, claimed by another seat
    d2, proof2 = D.share(t.secret(2), ct, GID, 2, pos)
    assert not D.verify_share(t.publics[seat], ct, d2, proof2, GID, seat, pos)
    assert not D.verify_share(t.publics[seat], ct, d2, proof, GID, seat, pos)
    assert not D.verify_share(t.publics[seat], ct, d, proof, GID, seat, pos + 1)
    assert not D.verify_share(t.publics[seat], t.deck[1], d, proof, GID, seat, pos)
    assert not D.verify_share(t.publics[seat], ct, d, proof, dhash("other game"), seat, pos)
    # a wrong point with the right proof, and a random point
    wrong = nb.crypto_core_ed25519_add(d, D.G)
    assert not D.verify_share(t.publics[seat], ct, wrong, proof, GID, seat, pos)
    # a wrong share opens the card wrongly: that is why it must be caught before use
    others = [wrong if s == seat else dd for s, dd in sorted(t.shares[pos].items())]
    assert D.open_card(ct, others, t.secret(0), GID, 0, t.table) is None


def test_tampered_proofs_fail():
    t = Table(3, 12)
    sec, pub, kproof = t.keys[0]
    d, sproof = D.share(sec, t.deck[0], GID, 0, 0)
    for i in (0, 31, 32, 63):
        for bit in (1, 128):
            k2 = bytearray(kproof)
            k2[i] ^= bit
            assert not D.verify_key(pub, bytes(k2), GID, 0)
            s2 = bytearray(sproof)
            s2[i] ^= bit
            assert not D.verify_share(pub, t.deck[0], d, bytes(s2), GID, 0, 0)
    assert not D.verify_key(pub, kproof[:63], GID, 0)
    assert not D.verify_share(pub, t.deck[0], d, sproof + b"\0", GID, 0, 0)
    # a key proof is bound to its seat and game: copying another seat's key fails
    assert not D.verify_key(pub, kproof, GID, 1)
    assert not D.verify_key(pub, kproof, dhash("other game"), 0)
    # a rogue key (chosen to cancel the others) has no proof: borrowing one fails
    rogue = nb.crypto_core_ed25519_sub(D.G, nb.crypto_core_ed25519_add(t.publics[1], t.publics[2]))
    assert not D.verify_key(rogue, kproof, GID, 0)


def _noncanonical(scalar: bytes) -> bytes:
    return (int.from_bytes(scalar, "little") + D.L).to_bytes(32, "little")


def test_non_canonical_points_and_scalars_are_refused():
    t = Table(3, 12)
    sec, pub, kproof = t.keys[0]
    ct = t.deck[0]
    d, sproof = D.share(sec, ct, GID, 0, 0)
    # s + L is the same scalar, non-canonical: refused (no malleable proofs)
    assert not D.verify_key(pub, kproof[:32] + _noncanonical(kproof[32:]), GID, 0)
    assert not D.verify_share(pub, ct, d, sproof[:32] + _noncanonical(sproof[32:]), GID, 0, 0)
    assert not D.verify_key(pub, _noncanonical(kproof[:32]) + kproof[32:], GID, 0)
    # points: the identity (and its non-canonical forms), a small-order point, a point with a
    # small-order component, a non-canonical y >= p, bytes off the curve
    p = 2**255 - 19
    identity_nc = (p + 1).to_bytes(32, "little")
    minus_zero = (1 | 1 << 255).to_bytes(32, "little")
    order2 = (p - 1).to_bytes(32, "little")  # (0, -1)
    mixed = nb.crypto_core_ed25519_add(pub, order2)
    bad_points = [D.IDENTITY, identity_nc, minus_zero, order2, mixed, b"\xff" * 32, pub[:31]]
    for bp in bad_points:
        assert not D.verify_key(bp, kproof, GID, 0)
        assert not D.verify_share(pub, ct, bp, sproof, GID, 0, 0)
        with pytest.raises(D.DealError):
            D.joint_key([pub, bp])
        deck = list(t.deck)
        deck[3] = (bp + ct[32:]) if len(bp) == 32 else ct
        if len(bp) == 32:
            assert "valid points" in D.check_deck(deck, 12)
            deck[3] = ct[:32] + bp
            assert "valid points" in D.check_deck(deck, 12)
    # a share asked for a ciphertext whose C1 is not a valid point is refused
    with pytest.raises(D.DealError):
        D.share(sec, mixed + ct[32:], GID, 0, 0)
    with pytest.raises(D.DealError):
        D.shuffle(t.deck, sec, mixed, GID, 0)
    # malformed inputs: clear errors
    with pytest.raises(D.DealError):
        D.keygen(b"x" * 32, GID, 0)
    with pytest.raises(D.DealError):
        D.keygen(rand64("a", 0), b"short", 0)
    with pytest.raises(D.DealError):
        D.shuffle([b"x" * 10], sec, t.joint, GID, 0)


def test_card_played_that_was_not_dealt_fails():
    t = Table(3, 18)
    t.deal([3, 3, 3])  # seat 0: 0..2, seat 1: 3..5, seat 2: 6..8
    good = t.play(0, 1)
    ok = D.verify_play(t.deck[1], t.others(1), t.publics[0], good["share"], good["proof"], good["card"],
                       GID, 0, 1, t.table)
    assert ok is None
    # claiming another card than the one at its position
    other = (good["card"] + 1) % 18
    bad = D.verify_play(t.deck[1], t.others(1), t.publics[0], good["share"], good["proof"], other,
                        GID, 0, 1, t.table)
    assert bad is not None and "holds card" in bad
    # playing seat 1's position 4 as seat 0: with the shares given at the deal (seat 0's and seat 2's)
    d, proof = D.share(t.secret(0), t.deck[4], GID, 0, 4)
    shares_given = [t.shares[4][2]]  # the other seats' shares apart from the claimed player
    res = D.verify_play(t.deck[4], shares_given, t.publics[0], d, proof, t.hands[1][1], GID, 0, 4, t.table)
    assert res is not None and "no card" in res
    # a position never dealt (no shares): opens to nothing
    d, proof = D.share(t.secret(0), t.deck[12], GID, 0, 12)
    res = D.verify_play(t.deck[12], [], t.publics[0], d, proof, 0, GID, 0, 12, t.table)
    assert res is not None and "no card" in res
    # a forged share for the play is refused before anything is opened
    res = D.verify_play(t.deck[1], t.others(1), t.publics[0], t.shares[1][1], good["proof"], good["card"],
                        GID, 0, 1, t.table)
    assert res is not None and "does not verify" in res


# --------------------------------------------------------------------------- determinism and counting


def test_determinism_same_inputs_same_bytes():
    a, b = Table(3, 15, tag="same"), Table(3, 15, tag="same")
    a.deal([2, 2, 2])
    b.deal([2, 2, 2])
    assert [r for _, _, r in a.published] == [r for _, _, r in b.published]
    assert a.hands == b.hands
    c = Table(3, 15, tag="different")
    assert c.decks[-1] != a.decks[-1]
    # the same secret in another seat or another game gives another key and shuffle
    s = rand64("same", 0)
    assert D.keygen(s, GID, 0)[1] != D.keygen(s, GID, 1)[1]
    assert D.keygen(s, GID, 0)[1] != D.keygen(s, dhash("g2"), 0)[1]
    d0 = D.initial_deck(GID, 15)
    assert D.shuffle(d0, s, a.joint, GID, 0) == D.shuffle(d0, s, a.joint, GID, 0)
    assert D.shuffle(d0, s, a.joint, GID, 0) != D.shuffle(d0, s, a.joint, GID, 1)


def test_counter_counts_scalar_multiplications():
    t = Table(3, 10)
    ops = D.Counter()
    D.shuffle(t.deck, t.secret(0), t.joint, GID, 0, ops)
    assert (ops.base, ops.var) == (10, 10)
    ops = D.Counter()
    d, proof = D.share(t.secret(1), t.deck[0], GID, 1, 0, ops)
    assert (ops.base, ops.var) == (2, 2)
    ops = D.Counter()
    assert D.verify_share(t.publics[1], t.deck[0], d, proof, GID, 1, 0, ops)
    assert (ops.base, ops.var, ops.checks) == (1, 3, 0)    # D is checked by the multiplication c*D
    assert ops.as_dict()["mults"] == 4


def test_a_share_that_is_no_valid_point_is_refused_without_a_separate_check():
    """verify_share leaves the check of D to the multiplication c*D (libsodium refuses O, a point
    of small order, one off the curve or not canonical, and c = 0): every such D is refused."""
    t = Table(3, 10)
    d, proof = D.share(t.secret(1), t.deck[0], GID, 1, 0)
    small = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")  # order 8
    mixed = D._nb.crypto_core_ed25519_add(d, small)          # the right D plus a point of order 8
    off_curve = next(bytes([k]) + bytes(31) for k in range(2, 255)
                     if not D._nb.crypto_core_ed25519_is_valid_point(bytes([k]) + bytes(31)))
    for bad in (D.IDENTITY, small, mixed, off_curve, b"\xff" * 32, bytes(32), d[:31], None):
        assert not D.verify_share(t.publics[1], t.deck[0], bad, proof, GID, 1, 0)
    assert not D.verify_share(t.publics[1], t.deck[0], d, bytes(32) + proof[32:], GID, 1, 0)   # c = 0
    assert D.verify_share(t.publics[1], t.deck[0], d, proof, GID, 1, 0)


def test_initial_deck_is_the_card_table_in_order():
    pts = D.card_points(GID, 70)
    assert len(set(pts)) == 70
    assert D.initial_deck(GID, 70) == [D.IDENTITY + p for p in pts]
    assert D.card_table(GID, 70)[pts[42]] == 42
    assert D.card_points(dhash("g2"), 3) != pts[:3]
    with pytest.raises(D.DealError):
        D.card_points(GID, 0)


def test_audit_of_a_forged_log_names_the_seat_without_a_traceback():
    t = Table(3, 10)
    secrets = [t.secret(s) for s in range(3)]
    decks = list(t.decks)
    decks[1] = decks[1][:9] + [b"\xff" * 64]  # a deck the peers would have refused at once
    problems = D.audit_shuffles(GID, 10, t.publics, decks, secrets)
    assert problems == [(1, "published deck is malformed: position 9: not a pair of valid points")]
    decks[1] = "not a deck"
    assert D.audit_shuffles(GID, 10, t.publics, decks, secrets)[0][0] == 1
    assert "malformed" in D.verify_shuffle_disclosed([None] * 10, t.decks[0], secrets[0], t.joint, GID, 0)
    assert "disclosed secret unusable" in D.verify_shuffle_disclosed(t.decks[0], t.decks[1], b"x", t.joint, GID, 1)
    assert "ciphertexts" in D.verify_shuffle_disclosed(t.decks[0], t.decks[1][:3], secrets[1], t.joint, GID, 1)
    # a seat that lies about its secret is named for that, and no made-up card details follow
    lying = [secrets[0], rand64("liar", 1), secrets[2]]
    assert D.audit_shuffles(GID, 10, t.publics, t.decks, lying) == [(1, "disclosed secret does not match the seat's key")]
