"""One machine, one check (docs/deal.md §3, p2p/vouching.py): the seats one easel command runs share
the verdicts of their proof and share checks on a board only they map; without the board (another
machine, an audit) every check is run, and a wrong proof or share is refused either way."""

from __future__ import annotations

import os

import pytest

from core import deal, memo
from core.engine import IllegalAction
from core.games.modern_art import dealt
from core.games.modern_art.game import MODERN_ART as GAME
from p2p.vouching import SLOT, Board

from .test_private import SEED, drive, secret_of
from .test_shuffle_proof import copy_cheat


@pytest.fixture
def board():
    b = Board()
    memo.use_vouched(b.seen, b.add)
    yield b
    memo.use_vouched(None, None)


def _forget_here() -> None:
    """What one process remembers of its own work, forgotten: as if another process of the trust domain asked."""
    dealt._MADE.clear()
    dealt._MADE_SHARES.clear()
    dealt._cached_proof_problem.cache_clear()


@pytest.fixture
def counted(monkeypatch):
    calls = {"proof": 0, "share": 0}
    real_proof, real_share = deal.verify_shuffle_proof, deal.verify_share

    def proof(*a, **k):
        calls["proof"] += 1
        return real_proof(*a, **k)

    def share(*a, **k):
        calls["share"] += 1
        return real_share(*a, **k)

    monkeypatch.setattr(deal, "verify_shuffle_proof", proof)
    monkeypatch.setattr(deal, "verify_share", share)
    yield calls
    _forget_here()


def test_the_board_is_shared_with_a_forked_process_and_names_whole_aligned_digests_only():
    b = Board()
    d = bytes(range(32))
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:          # a bot forked after the board was made: what it writes, its host reads
        try:
            b.add(d)
            os.write(w, b"k")
        finally:
            os._exit(0)
    os.close(w)
    assert os.read(r, 1) == b"k"
    os.waitpid(pid, 0)
    assert b.seen(d)
    assert not b.seen(bytes(range(1, 33)))          # straddling two halves of what is there: not a record
    assert not b.seen(b"\0" * 32)                   # an empty slot is not mistaken for a record of zeros
    # a digest found only across two slots is no record
    e = bytes(range(100, 132))
    b2 = Board()
    b2.add(e[16:] + bytes(16))
    b2.add(e[:16] + e[16:])
    assert b2.seen(e)
    b3 = Board()
    b3.add(bytes(16) + e[:16])
    b3.add(e[16:] + bytes(16))
    assert not b3.seen(e)


def test_a_proof_made_in_the_trust_domain_is_not_checked_again_by_its_other_seats(board, counted):
    secrets = [secret_of(s) for s in range(3)]
    st = drive(3, SEED, secrets, stop=lambda s: s.stage == "shuffle" and s.shuffler == 1)
    a = GAME.auto_action(st, 1, secrets[1])          # seat 1 makes its shuffle: on the board
    _forget_here()                                   # seat 2, another process of ours
    key = (st.gid, 1, st.deck, tuple(a["deck"]), a["proof"], dealt._joint(st.keys))
    assert dealt._proof_problem(*key) is None
    assert counted["proof"] == 0
    memo.use_vouched(None, None)                     # a seat of another machine: no board, it checks
    assert dealt._proof_problem(*key) is None
    assert counted["proof"] == 1


def test_a_wrong_proof_is_never_vouched_for_and_is_refused_with_the_board(board, counted):
    secrets = [secret_of(s) for s in range(3)]
    st = drive(3, SEED, secrets, stop=lambda s: s.stage == "shuffle" and s.shuffler == 1)
    a = GAME.auto_action(st, 1, secrets[1])
    cheat = copy_cheat(a["deck"], dealt._joint(st.keys), 20, 0)
    _forget_here()
    key = (st.gid, 1, st.deck, tuple(cheat), a["proof"], dealt._joint(st.keys))
    assert dealt._proof_problem(*key) == "the proof does not verify: the output is not proven a shuffle of the input"
    assert counted["proof"] == 1
    _forget_here()
    assert dealt._proof_problem(*key) is not None     # still not on the board: checked again, refused again
    assert counted["proof"] == 2


def test_shares_made_in_the_trust_domain_are_not_checked_again_and_others_are(board, counted):
    secrets = [secret_of(s) for s in range(3)]
    st = drive(3, SEED, secrets, stop=lambda s: s.stage == "deal")
    good = GAME.auto_action(st, 1, secrets[1])
    _forget_here()
    GAME.check(st, 1, good)
    assert counted["share"] == 0
    bad = {"shares": [list(x) for x in good["shares"]]}
    bad["shares"][0][1] = good["shares"][1][1]
    with pytest.raises(IllegalAction, match="does not verify"):
        GAME.check(st, 1, bad)
    assert counted["share"] >= 1
    memo.use_vouched(None, None)
    n = counted["share"]
    GAME.check(st, 1, good)                          # no board: every share checked
    assert counted["share"] == n + len(good["shares"])


def test_the_same_game_is_played_alike_with_and_without_the_board(board):
    secrets = [secret_of(s) for s in range(3)]
    with_board = drive(3, SEED, secrets, stop=lambda s: s.stage == "play")
    memo.use_vouched(None, None)
    _forget_here()
    without = drive(3, SEED, secrets, stop=lambda s: s.stage == "play")
    assert with_board.deck == without.deck and with_board.shares == without.shares
    assert GAME.view(with_board, 0, secrets[0]) == GAME.view(without, 0, secrets[0])
