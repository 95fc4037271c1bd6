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
    if strategy != "rollback":
        assert o.finished == len(co.honest) and o.forks == 0, o


@pytest.mark.parametrize("strategy", ["cut-before", "cut-after", "cut-seed"])
def test_starving_artists_coalition_blames_no_one(strategy):
    co = Coalition("starving-artists", 3, (0, 2), strategy, seed=4)
    o = co.run(max_rounds=40_000)
    assert o.named_by_certificate == 0 and o.read_in_hand == 0, o
    assert o.cuts > 0
