"""The table says when someone's link is slow (issue 30 "Time that fits a real link", protocol.md §13.1 "Slow links").

Three seats on loopback; seat 2's connection to seat 0 runs through tests/delaylink.py's forwarder.  Mid-game that
link stalls (every byte held, the connection still up): seats 0 and 2 each say the other's link is slow, on the
screen's status line ("seat 2's link is slow (1.6 s)") and in a log line, within one threshold; once the link flows
again the word goes.  Every wait is on the nodes' change events, bounded.
"""

from __future__ import annotations

import copy
import logging
import os

import trio

from core.events import game_id_of, genesis_sign_msg, make_genesis
from p2p import tls
from p2p.identity import Identity
from p2p.linkwatch import SLOW_ROUND_TRIP
from p2p.node import GameNode
from p2p.store import GameStore
from tests.delaylink import Link, forwarder
from tests.netutil import free_ports
from tests.toy_game import ALL_GAMES as GAMES

STALL = 5.0         # s the link holds every byte (within IDLE_TIMEOUT: the connection stays up)


class _Screen:
    """What cli/runner.py ``ui_update`` shows: the status line."""

    status = ""

    def update(self, table, alerts, status, **kw) -> None:
        self.status = status


async def _until(node: GameNode, ok, limit: float, what: str) -> None:
    with trio.fail_after(limit):
        while not ok():
            await node.changed.wait()


async def test_a_stalled_link_is_said_slow_on_both_sides_and_the_word_goes_when_it_flows_again(tmp_path, caplog):
    from cli.runner import ui_update

    caplog.set_level(logging.WARNING, logger="easel.node")
    ids = [Identity.generate() for _ in range(3)]
    doc = {"game": "toy", "config": GAMES.get("toy").configure({"rounds": 1000}, 3), "seats": [i.public for i in ids],
           "table": os.urandom(8), "timeout": 60}
    genesis = make_genesis(doc, [i.sign(genesis_sign_msg(game_id_of(doc))) for i in ids])
    roster = {"certs": [tls.make_certificate(i) for i in ids], "addrs": [["127.0.0.1", p] for p in free_ports(3)]}
    stores = [GameStore(tmp_path / str(k)) for k in range(3)]
    link = Link()

    async def decide(view, seat, peer):
        await trio.sleep(0.05)           # a bot's pace (the game goes on all along, a step every few tenths)
        if view["stage"] == "bet":
            return {"bet": 0}
        return {view["stage"]: 1 + (peer.table.phase + seat) % 6}

    try:
        async with trio.open_nursery() as n:
            port = await n.start(forwarder, 0.0, ("127.0.0.1", roster["addrs"][0][1]), link)
            rosters = [copy.deepcopy(roster) for _ in range(3)]
            rosters[2]["addrs"][0] = ["127.0.0.1", port]          # seat 2 dials seat 0 through the link
            nodes = [GameNode(ids[k], genesis, rosters[k], stores[k], decide, timeout=60, games=GAMES,
                              on_change=lambda node: None) for k in range(3)]
            for g in nodes:
                await n.start(g.run)
            a, c = nodes[0], nodes[2]
            await _until(a, lambda: a.peer.table.phase >= 6 and len(a.conns) == 2 and len(c.conns) == 2, 30, "mid-game")
            assert not a.slow_links() and not c.slow_links()
            link.stall(STALL)
            t0 = trio.current_time()
            # both ends say it, within one threshold (plus a loaded machine's margin), while the link is held
            await _until(a, lambda: 2 in a.slow_links(), SLOW_ROUND_TRIP + 2.0, "seat 0 says seat 2 is slow")
            await _until(c, lambda: 0 in c.slow_links(), SLOW_ROUND_TRIP + 2.0, "seat 2 says seat 0 is slow")
            assert trio.current_time() - t0 < STALL                   # the link is still held
            assert len(a.conns) == 2 and len(c.conns) == 2            # still connected: slow, not gone
            screen = _Screen()
            ui_update(screen, a)
            assert "seat 2's link is slow (" in screen.status, screen.status
            assert "seat 1's link" not in screen.status, screen.status
            # the link flows again: the word goes (a quick round trip of the next step ends it)
            await _until(a, lambda: 2 not in a.slow_links(), STALL + 10.0, "seat 0: seat 2 quick again")
            await _until(c, lambda: 0 not in c.slow_links(), 10.0, "seat 2: seat 0 quick again")
            assert trio.current_time() - t0 >= STALL - 0.5
            ui_update(screen, a)
            assert "slow" not in screen.status, screen.status
            n.cancel_scope.cancel()
    finally:
        for s in stores:
            s.close()
    said = [r.getMessage() for r in caplog.records if r.name == "easel.node"]
    assert any(m.startswith("seat 0: seat 2's link is slow (") for m in said), said
    assert any(m == "seat 0: seat 2's link is quick again" for m in said), said
