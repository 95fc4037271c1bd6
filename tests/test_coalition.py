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

Bind before you show (issue 22): a coalition that cuts every honest card open after reading it
reads only cards that leave the honest hand face down; one that cuts every honest choice reads no
card once the peer's show gate is there; one that cuts the honest shares at a deal ends the game
abandoned, ranking and blaming no one; one that cuts the honest disclosure changes no place.
"""

from __future__ import annotations

import pytest

from core import deal
from core.encoding import encode
from core.events import make_timeout, vote_sign_msg
from core.games.modern_art.cards import N_CARDS

from .coalition import Coalition
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


# --------------------------------------------------------------------------- bind before you show (issue 22)
#
# A card play is bound by its positions (the choice, a decided move) and shown by the seat's peer in
# the next, automatic step (the open).  A coalition that signs a certificate against an honest seat's
# open after reading it gets a card that has left the honest hand (discarded face down, never to be
# played); one that cuts the choice gets positions only.  Measured with the real peers: every card
# id of an honest open that reached a coalition peer is classified by the agreed log at the end.


# --------------------------------------------------------------------------- bind before you show
# The coalition harness (tests/coalition.py): real peers, the coalition certifying the honest seats out
# of every step of a kind once it has read their events (or before), or certifying the step before an
# honest event that showed a secret (the roll-back of §6.6).  What it reads is measured at the honest
# peers: a card the coalition can open (its pooled seat secrets and every share it received, cut
# events included) while it sits in an honest hand in an honest peer's own table.

CUT_CASES = [(3, (0, 2), 21), (4, (0, 2), 22), (5, (0, 2, 4), 23)]      # (seats, colluders, seed)


@pytest.mark.parametrize("n,colluders,seed", CUT_CASES)
def test_a_coalition_cutting_every_honest_open_reads_no_card_still_in_the_hand(n, colluders, seed):
    co = Coalition("modern-art", n, colluders, "cut-every:open", seed=seed)
    o = co.run(max_rounds=60_000)
    assert o.cuts > 0 and o.read_in_hand == 0, o
    assert o.named_by_certificate == 0 and o.finished == len(co.honest) and len(set(o.statuses)) == 1, o
    st = co.sim.peers[co.honest[0]].table.state
    # every cut open left the honest hand face down, never shown in the log; no honest card was auctioned
    assert st.discarded and all(st.owner[p] in co.honest and st.ms.revealed[p] == -1 for p in st.discarded)
    assert not any(st.owner[p] in co.honest for p, card in enumerate(st.ms.revealed) if card >= 0)
    res = co.sim.peers[co.honest[0]].table.result()
    if res["status"] == "forked":
        # a cut that came after a seat had shown a secret in a later step (here the coalition's own peer
        # ran ahead: an honest seat in its place would never follow the cut): the table forked, and every
        # seat ended so, with the same words, within one step time (§6.5 rule 3)
        assert all(r == res for r in o.results) and res["ranking"] == [] and res["winners"] == [], o
        assert all(t is not None and t <= co.sim.peers[0].timeout for t in o.ended_after), o
    else:
        assert o.forks == 0 and res["status"] == "complete" and sorted(res["ranking"]) == list(range(n))


@pytest.mark.parametrize("n,colluders,seed", CUT_CASES)
@pytest.mark.parametrize("strategy", ["cut-every:choice", "cut-before", "rollback"])
def test_a_coalition_cutting_honest_choices_or_rolling_back_reads_no_card_in_the_hand(n, colluders, seed, strategy):
    """Cutting a choice (positions only) shows nothing; certifying the step before an open (or before
    a share, or the seed) after reading it is never followed by the honest seat that showed: it keeps
    its log (the table forks for it), and no card it still holds is ever open to the coalition."""
    co = Coalition("modern-art", n, colluders, strategy, seed=seed)
    o = co.run(max_rounds=60_000)
    assert o.cuts > 0, "the strategy never fired"
    assert o.read_in_hand == 0, o
    assert o.named_by_certificate == 0, o
    # no honest seat waits for ever, and all end alike: a roll-back past a shown secret ends the game
    # forked for every seat within one step time of the certificate, with the same words (§6.5 rule 3)
    assert o.finished == len(co.honest) and len({repr(r) for r in o.results}) == 1, o
    assert all(t is not None and t <= co.sim.peers[0].timeout for t in o.ended_after), o
    if strategy == "rollback":
        assert o.statuses[0] == "forked" and o.results[0]["winners"] == [] and o.results[0]["ranking"] == [], o
    for ev in co._held():
        a = ev.body.get("action") if ev.kind == "act" and ev.author in [co.sim.keys[h] for h in co.honest] else None
        if isinstance(a, dict) and a.get("do") in ("play", "add"):
            # a choice names positions only: no card id, no share
            assert set(a) <= {"do", "pos", "double"} and (a.get("double") is None or set(a["double"]) == {"pos"})


@pytest.mark.parametrize("n,colluders,seed", CUT_CASES)
def test_a_coalition_cutting_the_honest_shares_blames_and_ranks_no_one(n, colluders, seed):
    co = Coalition("modern-art", n, colluders, "cut-every:deal", seed=seed)
    o = co.run(max_rounds=60_000)
    assert o.cuts >= 1 and o.named_by_certificate == 0 and o.read_in_hand == 0, o
    res = co.sim.peers[co.honest[0]].table.result()
    assert res["status"] == "abandoned" and res["ranking"] == [] and res["winners"] == []
    assert res["places"] == [None] * n
    assert sorted(s for s, _ in res["named"]) == sorted(co.honest)
    assert all("did not come" in text and "nobody is ranked" in text and "withheld its share" not in text
               for _s, text in res["named"])


def test_a_coalition_withholding_its_own_shares_ends_the_deal_naming_only_itself():
    co = Coalition("modern-art", 3, (0, 2), "withhold-deal", seed=25)
    o = co.run(max_rounds=60_000)
    assert o.named_by_certificate == 0 and o.read_in_hand == 0, o
    res = co.sim.peers[co.honest[0]].table.result()
    assert res["status"] == "abandoned" and res["ranking"] == [] and res["winners"] == []
    assert {s for s, _ in res["named"]} <= set(co.colluders)


@pytest.mark.parametrize("n,colluders,seed", CUT_CASES[:2])
def test_a_coalition_cutting_the_honest_disclosure_changes_no_place(n, colluders, seed):
    co = Coalition("modern-art", n, colluders, "cut-disclosure", seed=seed)
    o = co.run(max_rounds=60_000)
    assert o.cuts >= 1 and o.named_by_certificate == 0, o
    res = co.sim.peers[co.honest[0]].table.result()
    assert res["status"] == "not disclosed"
    money = res["money"]
    assert res["ranking"] == sorted(range(n), key=lambda s: (-money[s], s))      # by money, every seat
    assert res["places"] == [1 + sum(1 for o in range(n) if money[o] > money[s]) for s in range(n)]
    assert sorted(s for s, _ in res["named"]) == sorted(co.honest)


@pytest.mark.parametrize("strategy", ["cut-every:keys", "cut-every:shuffle", "cut-seed", "cut-every:check"])
def test_a_coalition_cutting_the_deal_or_the_seed_reads_no_card_and_blames_no_one(strategy):
    co = Coalition("modern-art", 3, (0, 2), strategy, seed=26)
    o = co.run(max_rounds=60_000)
    assert o.cuts >= 1 and o.read_in_hand == 0 and o.named_by_certificate == 0, o
