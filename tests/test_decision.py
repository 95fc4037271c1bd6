"""The node hands a decider a typed Decision (view, seat, phase, game, state, secret, deadline), not the Peer."""

from __future__ import annotations

import trio

from cli.runner import bot_decider
from core.audit import audit
from p2p.node import Decision, GameNode

from .netutil import build_table, run_nodes
from .test_network import GAMES


async def test_a_decider_gets_a_decision_with_what_it_needs_and_the_game_finishes(tmp_path):
    ids, genesis, roster, stores = build_table(2, tmp_path, timeout=60)
    bot = bot_decider("painting", "random", "d")
    seen = []

    async def recorder(d):
        assert isinstance(d, Decision)
        seen.append((d, trio.current_time()))
        return await bot(d)

    recorder.takes_decision = True
    nodes = [GameNode(ids[0], genesis, roster, stores[0], recorder, timeout=60, linger=3),
             GameNode(ids[1], genesis, roster, stores[1], bot, timeout=60, linger=3)]
    await run_nodes(nodes, stores, 60)
    assert nodes[0].peer.table.over and nodes[1].peer.table.over
    assert len(seen) >= 6
    phases = [d.phase for d, _ in seen]
    assert phases == sorted(phases)
    for d, now in seen:
        assert d.seat == 0 and d.game is not None and d.state is not None and d.secret is None   # no seat secret in this game
        assert d.view == d.game.view(d.state, 0)            # the seat's own view of that state
        assert d.deadline is not None and now < d.deadline <= now + 60 + 1   # when the step times out (our clock)
    rep = audit({"log": (tmp_path / "0" / "log").read_bytes()}, GAMES)
    assert rep["valid"] and rep["complete"]
