"""No one to trust, not even a majority (protocol.md §6.5 "What a false time-out gives away").

The attack measured on an earlier main: at a Modern Art table, a coalition of seats that does
nothing but sign a time-out certificate against the honest seats as soon as an honest seat's
deal step opens got the honest seats' own signed shuffles rolled back (certificates win over
events already received, §6.6), so the deck was shuffled by the coalition alone and, pooling
its seat secrets, it knew every honest card before any was played.

Here the same coalition plays with the real peers (in memory) at 3 of 5, 2 of 4 and 2 of 3
seats, forging certificates against the honest seats' keys or shuffles.  The deal cannot go on
without those steps: the game ends abandoned, naming the timed-out seat and step, before any
hand is dealt, and the coalition's pooled secrets open none of the honest seats' cards.  The
honest seats' cut moves are named (the false time-out is seen).  And without a forged
certificate the coalition, pooling its secrets, opens none of the honest seats' cards either.
"""

from __future__ import annotations

import pytest

from core import deal
from core.encoding import encode
from core.events import make_timeout, vote_sign_msg
from core.games.modern_art.cards import N_CARDS

from .netutil import Sim

CASES = [(5, (1, 4)), (4, (1, 3)), (3, (1,))]      # (seats, honest seats): every other seat colludes


def forge(sim: Sim, honest: tuple, st) -> bytes:
    """The coalition (every seat but ``honest``) times ``honest`` out of step ``st``."""
    gid = sim.genesis.game_id
    votes = [(k, sim.ids[k].sign(vote_sign_msg(gid, st.phase, st.prev, list(honest))))
             for k in range(sim.n) if k not in honest]
    return encode(["entry", make_timeout(gid, st.phase, st.prev, list(honest), votes).raw])


def cards_opened(sim: Sim, owners: tuple, knowers: tuple) -> int:
    """Positions dealt to ``owners`` whose card the seats ``knowers`` can open from everything
    public (the log's deck and shares) and their own pooled seat secrets."""
    st = sim.peers[0].table.state
    table = deal.card_table(st.gid, N_CARDS)
    ys = {k: deal._secret_scalar(sim.peers[k].seat_secret, st.gid, k) for k in knowers}
    opened = 0
    for pos in range(st.shared):
        if st.owner[pos] not in owners:
            continue
        c1, c2 = st.deck[pos][:32], st.deck[pos][32:]
        acc = c2
        for s in range(sim.n):
            d = ys.get(s)
            share = deal._mul(d, c1, deal.Counter()) if d is not None else st.shares[pos][s]
            if share is None:
                break
            acc = deal._nb.crypto_core_ed25519_sub(acc, share)
        else:
            opened += acc in table
    return opened


@pytest.mark.parametrize("n,honest", CASES)
@pytest.mark.parametrize("target", ["keys", "shuffle"])
def test_a_coalition_forging_time_outs_against_honest_deal_steps_learns_no_card(n, honest, target):
    sim = Sim(n, seed=11, game="modern-art", timeout=600.0, tag="coalition-%d-%s" % (n, target))
    sim.start()
    forged: list = []

    def attack() -> bool:
        st = sim.peers[0].table.step
        if forged:
            return True
        if st is None or st.purpose != "auto":
            return False
        stage = sim.peers[0].table.state.stage
        if stage == target and set(st.seats) & set(honest):
            raw = forge(sim, honest, st)
            forged.append(st)
            for k in range(n):          # the coalition hands its certificate to every peer
                sim.run(k, sim.peers[k].receive(sim.keys[0 if k else 2], raw))
        return bool(forged)

    sim.block = lambda src, dst, msg: attack() and False     # the coalition looks before every delivery
    sim.run_until(attack, max_rounds=20_000)
    sim.block = None
    sim.run_until(max_rounds=50_000)
    logs = [p.log_entries for p in sim.peers]
    assert all(lg == logs[0] for lg in logs)
    st = sim.peers[0].table.state
    res = sim.peers[0].table.result()
    assert res["status"] == "abandoned" and res["ranking"] == [] and res["winners"] == []
    assert any(s in honest and "timed out of its %s" % ("deal key" if target == "keys" else "shuffle") in text
               and "no hand was dealt" in text for s, text in st.named), st.named
    assert st.shared == 0 and all(o == -1 for o in st.owner)          # no hand was ever dealt
    coalition = tuple(k for k in range(n) if k not in honest)
    assert cards_opened(sim, honest, coalition) == 0
    # the honest seats moved (their automatic steps are instant): each sees it was voted out anyway
    cut = [c for k in honest for c in sim.peers[k].cut_moves.values() if c["seat"] == k]
    assert cut and all(c["phase"] == forged[0].phase for c in cut), [sim.peers[k].cut_moves for k in honest]


@pytest.mark.parametrize("n,honest", CASES[:1])
def test_without_a_forged_certificate_the_pooled_coalition_opens_no_honest_card(n, honest):
    sim = Sim(n, seed=12, game="modern-art", timeout=600.0, tag="coalition-honest")
    sim.start()
    def dealt() -> bool:
        st = sim.peers[0].table.state
        return st is not None and st.stage == "play" and st.shared > 0
    sim.run_until(dealt, max_rounds=20_000)
    st = sim.peers[0].table.state
    dealt = sum(1 for p in range(st.shared) if st.owner[p] in honest)
    assert dealt > 0
    coalition = tuple(k for k in range(n) if k not in honest)
    assert cards_opened(sim, honest, coalition) == 0
    # the check can see a card: with the honest seats' secrets too, every honest card opens
    assert cards_opened(sim, honest, tuple(range(n))) == dealt
