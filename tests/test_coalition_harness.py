"""The coalition harness (tests/coalition.py) against the Painting Game and Starving Artists.

Modern Art's cases (cut every card play, the deal, the disclosure) are in test_coalition.py."""

from __future__ import annotations

import pytest

from .coalition import Coalition

STRATEGIES = ["cut-before", "cut-after", "cut-every:reveal", "cut-every:commit", "cut-seed", "rollback"]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("n,colluders", [(3, (1, 2)), (4, (0, 2)), (5, (1, 2, 4))])
def test_painting_coalition_reads_no_sealed_value_before_it_is_bound_and_blames_no_one(strategy, n, colluders):
    co = Coalition("painting", n, colluders, strategy, seed=3, options={"rounds": 3})
    o = co.run()
    assert o.read_in_hand == 0, o
    assert o.named_by_certificate == 0, o
    assert o.cuts > 0, "the strategy never fired: the test would prove nothing"
    # every honest seat ends (no hang), all with the same status; a roll-back past a shown secret ends
    # the game forked for every seat within one step time of the coalition's certificate (§6.5 rule 3)
    assert o.finished == len(co.honest) and len(set(o.statuses)) == 1, o
    if strategy != "rollback":
        assert o.forks == 0 and o.statuses[0] == "complete", o
    else:
        assert o.statuses[0] == "forked" and all(t is not None and t <= co.sim.peers[0].timeout for t in o.ended_after), o
        assert len({repr(r) for r in o.results}) == 1, o.results     # the same words at every honest seat


def test_the_harness_counts_a_read_in_the_coalitions_own_fork():
    """The control: with the fork end switched off (a refused certificate kept, nothing ended, as before),
    the coalition's roll-back re-opens an honest bid's commit step in the coalition's own fork after
    reading it, the harness counts it, and the honest seats never finish."""
    co = Coalition("painting", 4, (0, 2), "rollback", seed=3, options={"rounds": 3})
    for p in co.sim.peers:
        p._refused_cert = lambda cert, follows: False
    o = co.run(max_rounds=4000)
    assert o.read_in_hand >= 1 and o.finished == 0 and "stalled" in o.notes, o


@pytest.mark.parametrize("strategy", ["cut-before", "cut-after", "cut-seed"])
def test_starving_artists_coalition_blames_no_one(strategy):
    co = Coalition("starving-artists", 3, (0, 2), strategy, seed=4)
    o = co.run(max_rounds=40_000)
    assert o.named_by_certificate == 0 and o.read_in_hand == 0, o
    assert o.cuts > 0
