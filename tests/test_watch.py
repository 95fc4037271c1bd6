"""Spectators (protocol.md §9.8): any seat sends the signed log to an anonymous TLS client that asked to
watch; it verifies every entry, never votes, is capped, and a seat may refuse spectators."""

from __future__ import annotations

import trio

from cli.runner import bot_decider
from core.audit import audit
from core.encoding import decode, encode
from p2p import tls
from p2p.framing import FramedStream
from p2p.limits import Limits
from p2p.node import GameNode
from p2p.watch import WatchError, watch

from .netutil import build_table, run_nodes
from .test_network import GAMES


def _nodes(ids, genesis, roster, stores, **kw):
    return [GameNode(ids[k], genesis, roster, stores[k], bot_decider("painting", "random", "w%d" % k), timeout=60, linger=3,
                     **(kw if k == 0 else {}))
            for k in range(len(ids))]


async def test_a_spectator_follows_the_whole_log_verified_and_the_seat_counts_it(tmp_path):
    ids, genesis, roster, stores = build_table(3, tmp_path)
    nodes = _nodes(ids, genesis, roster, stores)
    seen = []
    counts = []

    async def spectator():
        w = await watch("127.0.0.1", roster["addrs"][1][1], lambda w: counts.append(nodes[1].watching), games=GAMES)
        seen.append(w)

    with trio.fail_after(60):
        async with trio.open_nursery() as n:
            n.start_soon(run_nodes, nodes, stores, 60)
            await trio.sleep(0)
            # it may come in at any time: the seat sends the log from the genesis on
            while nodes[1].peer.table.count < 5:
                await trio.sleep(0.01)
            n.start_soon(spectator)
    (w,) = seen
    assert w.table.over and w.seat_key == ids[1].public
    log = (tmp_path / "1" / "log").read_bytes()
    from core.logfile import parse

    assert w.entries == parse(log).entries          # the table's log, byte for byte, each entry checked as it came
    assert w.first >= 5 and w.watching >= 1 and max(counts) == 1
    assert nodes[1].watching == 0                   # it left with the game's end
    rep = audit({"log": log}, GAMES)
    assert rep["valid"] and rep["complete"] and rep["events"] == 1 + 3 * 14   # nobody was timed out: it slowed no one


async def test_a_seat_may_refuse_spectators_and_caps_how_many_it_serves(tmp_path):
    ids, genesis, roster, stores = build_table(2, tmp_path)
    # nobody decides: the table stays open while we knock
    nodes = [GameNode(ids[k], genesis, roster, stores[k], None, timeout=60, spectators=k != 0) for k in range(2)]
    nodes[1].limits = Limits(max_spectators=0)
    errors = []

    async def try_watch(seat):
        try:
            await watch("127.0.0.1", roster["addrs"][seat][1], games=GAMES)
        except WatchError as exc:
            errors.append((seat, str(exc)))

    async def garbage():
        # a spectator that sends anything but ["watch", 1] gets nothing
        stream = await tls.connect("127.0.0.1", roster["addrs"][1][1], tls.spectator_context(), None)
        fs = FramedStream(stream)
        await fs.send(encode(["hello", 1, genesis.game_id, [], []]))
        try:
            with trio.fail_after(15):
                got = await fs.receive()
            errors.append((9, "got %r" % decode(got)))
        except Exception:
            errors.append((9, "closed"))
        await trio.aclose_forcefully(stream)

    try:
        with trio.fail_after(60):
            async with trio.open_nursery() as n:
                for node in nodes:
                    await n.start(node.run)
                async with trio.open_nursery() as m:
                    m.start_soon(try_watch, 0)
                    m.start_soon(try_watch, 1)
                    m.start_soon(garbage)
                n.cancel_scope.cancel()
    finally:
        for s in stores:
            s.close()
    got = dict(errors)
    assert "closed the connection" in got[0] and "refuse spectators" in got[0]      # seat 0 refuses spectators
    assert "refused a spectator: this seat already has 0 spectators" in got[1]     # seat 1's cap
    assert got[9] == "closed"
    assert nodes[0].watching == nodes[1].watching == 0


async def test_a_table_opened_without_spectators_makes_every_seat_refuse_them(tmp_path):
    import os

    import pytest

    from core.events import EntryError, check_genesis_doc, game_id_of, genesis_sign_msg, make_genesis
    from p2p.identity import Identity
    from p2p.store import GameStore

    from .netutil import free_ports

    ids = [Identity.generate() for _ in range(2)]
    doc = {"game": "painting", "config": GAMES.get("painting").configure({}, 2), "seats": [i.public for i in ids],
           "table": os.urandom(8), "timeout": 60, "spectators": False}
    genesis = make_genesis(doc, [i.sign(genesis_sign_msg(game_id_of(doc))) for i in ids])
    roster = {"certs": [tls.make_certificate(i) for i in ids], "addrs": [["127.0.0.1", p] for p in free_ports(2)]}
    store = GameStore(tmp_path / "s")
    try:
        node = GameNode(ids[1], genesis, roster, store, None, timeout=60, spectators=True)
        assert node.spectators is False and tls.pinned_keys(node.server_ctx) is not None
    finally:
        store.close()
    for bad in (0, "no", None):
        with pytest.raises(EntryError, match="spectators"):
            check_genesis_doc(dict(doc, spectators=bad))


async def test_a_spectator_sees_a_seat_that_committed_as_sealed_as_the_players_do(tmp_path):
    """Issue 19: a commit step's events enter the log only once all are in, so a spectator that had the
    log alone showed every seat "choosing" while the players' screens showed "sealed". The seat it
    follows now shows it the signed commitments it holds (never a move): sealed for everyone."""
    import pytest

    from cli.snapshot import seat_status, snapshot_of
    from core.events import EntryError
    from p2p.watch import Watched, take_sealed

    ids, genesis, roster, stores = build_table(3, tmp_path)
    # seats 0 and 1 play (bots), seat 2 never decides: the first move's commit step stays open on seat 2
    nodes = [GameNode(ids[k], genesis, roster, stores[k], bot_decider("painting", "random", "s%d" % k) if k < 2 else None,
                      timeout=60) for k in range(3)]
    shown = trio.Event()
    got = []

    def on_change(w) -> None:
        t = w.table
        st = t.step if t is not None else None
        if st is not None and st.purpose == "move" and st.kind == "commit" and w.waiting() == [2] and not shown.is_set():
            snap = snapshot_of(t, None, waiting=w.waiting())
            got.append(([seat_status(snap, s) for s in range(3)], list(t.missing()), w))
            shown.set()

    async def spectator():
        try:
            await watch("127.0.0.1", roster["addrs"][1][1], on_change, games=GAMES)
        except WatchError:
            pass

    try:
        with trio.fail_after(45):
            async with trio.open_nursery() as n:
                for node in nodes:
                    await n.start(node.run)
                n.start_soon(spectator)
                await shown.wait()
                # the players' own view of the same step, for comparison
                players_waiting = list(nodes[0].peer.waiting())
                n.cancel_scope.cancel()
    finally:
        for s in stores:
            s.close()
    (statuses, log_missing, w) = got[0]
    assert statuses == ["sealed", "sealed", "choosing"]
    assert log_missing == [0, 1, 2]                 # the log alone still waits for everyone: the old bug
    assert players_waiting == [2]
    # a forged or foreign commitment is refused, and a stale one is ignored once the log moves on
    sealed_before = w.sealed
    with pytest.raises(EntryError):
        take_sealed(w, [b"\x00" * 40])
    with pytest.raises(EntryError):
        take_sealed(w, [b"x"] * 9)
    assert w.sealed == sealed_before
    stale = Watched(table=w.table, sealed=frozenset({0, 1}), sealed_at=w.table.count - 1)
    assert stale.waiting() == [0, 1, 2]
