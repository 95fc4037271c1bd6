"""Beyond the LAN (issue 30): a step's latency over a direct and a relayed libp2p path with 50/150/300 ms added
per hop, against the link's own round trip measured in the same run.  One process, loopback, no netem: every hop
is a **delaying TCP forwarder** (tests/delaylink.py: each chunk leaves it DELAY after it came in, in order, both
ways):

* relayed: seat A -> forwarder -> ``easel relay`` <- forwarder <- seat B (two hops: the seats dial the relay
  through its forwarder; hole punching and the engine's own dials are off, so the game stays on the circuit);
* direct: seat A -> forwarder -> seat B's libp2p listener (one hop: A's only connection to B goes through it).

Per path and delay, REPS repetitions of:

* ``rtt_ms``: the link's own round trip, a 64-byte echo on a libp2p stream of the same connection, no TLS
  (median of 10 echoes);
* ``step_ms``: a 2-seat toy game (tests/toy_game.py, bots that answer at once) over Easel's TLS inside the same
  path: (wall time from the third step opening at seat 0 to the game over at both seats) / (steps in between);
* ``step_per_rtt``: step_ms / rtt_ms.

**The goal** (issue 30): on the direct path a step takes <= 1.5 x (the message round trips the step needs) x (the
link's round trip).  A toy step is one seat's event (sequential steps; the commit-reveal steps of the opening are
left out): the event goes out (half a round trip) and, before the next step's event is shown, the show gate
(protocol.md §6.5 "Shown secrets") waits for the `have` that settles the step -- one round trip in all, so the
goal is step_ms <= 1.5 x rtt_ms ("goal_met").

    python benchmarks/bench_internet.py [--reps 5] [--delays 50,150,300] [--rounds 4]

Prints one JSON object per (path, delay) and a summary object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import load, stats  # noqa: E402

from core.events import game_id_of, genesis_sign_msg, make_genesis  # noqa: E402
from p2p import internet, tls  # noqa: E402
from p2p.identity import Identity  # noqa: E402
from p2p.node import GameNode  # noqa: E402
from p2p.store import GameStore  # noqa: E402
from tests.delaylink import forwarder  # noqa: E402
from tests.toy_game import ALL_GAMES as GAMES  # noqa: E402

NEEDED_ROUND_TRIPS = 1.0      # a toy step: its event out, the `have` that settles it back (see above)
GOAL = 1.5
GAME_LIMIT = 240.0            # s per game at most
OPENING = 3                   # steps left out at the start (the shared seed's commit and reveal, the first move)


def no_shortcuts(node: internet.Node) -> None:
    """No hole punch and no dial of the engine's own: the path we built is the only one."""
    async def nothing(*a) -> bool:
        await trio.lowlevel.checkpoint()
        return False

    node._punch_soon = lambda peer: None
    node._dcutr.initiate_hole_punch = nothing
    node._host.get_network().auto_connector.maybe_connect = nothing


async def relay_at(nursery) -> tuple[str, int]:
    got = []
    ev = trio.Event()
    port = internet._free_port("127.0.0.1")
    nursery.start_soon(internet.run_relay, b"r" * 32, "127.0.0.1", port, None, lambda a: (got.append(a), ev.set()))
    with trio.fail_after(30):
        await ev.wait()
    return got[0], port


async def rtt(a: internet.Node, b: internet.Node, port: int) -> float:
    s = await a.open(b.peer, port)
    times = []
    for _ in range(11):
        t0 = time.perf_counter()
        await s.send_all(b"x" * 64)
        got = b""
        while len(got) < 64:
            got += await s.receive_some(64 - len(got))
        times.append(time.perf_counter() - t0)
    await s.aclose()
    return statistics.median(times[1:]) * 1000


async def echo(s) -> None:
    while data := await s.receive_some(1024):
        await s.send_all(data)


async def game(nodes: list[internet.Node], tmp: Path, rounds: int) -> dict:
    ids = [Identity.generate() for _ in nodes]
    doc = {"game": "toy", "config": GAMES.get("toy").configure({"rounds": rounds}, len(ids)),
           "seats": [i.public for i in ids], "table": os.urandom(8), "timeout": 60}
    gid = game_id_of(doc)
    genesis = make_genesis(doc, [i.sign(genesis_sign_msg(gid)) for i in ids])
    ports = [internet._free_port("127.0.0.1") for _ in nodes]
    roster = {"certs": [tls.make_certificate(i) for i in ids], "addrs": [[n.peer, p] for n, p in zip(nodes, ports)]}
    stores = [GameStore(tmp / str(k)) for k in range(len(nodes))]

    async def decide(view, seat, peer):
        await trio.lowlevel.checkpoint()
        if view["stage"] == "bet":
            return {"bet": 0}
        return {view["stage"]: 1 + (peer.table.phase + seat) % 6}

    gs = [GameNode(ids[k], genesis, roster, stores[k], decide, timeout=60, linger=1, games=GAMES)
          for k in range(len(nodes))]
    opened: dict[int, float] = {}
    over: dict[int, float] = {}

    async def watch() -> None:
        while len(over) < len(gs):
            for k, g in enumerate(gs):
                if k == 0 and g.peer.table.phase >= OPENING and "t0" not in opened:
                    opened["t0"] = time.perf_counter()
                    opened["phase"] = g.peer.table.phase
                if g.peer.table.over and k not in over:
                    over[k] = time.perf_counter()
            await trio.sleep(0.002)

    try:
        with trio.fail_after(GAME_LIMIT):
            async with trio.open_nursery() as n:
                n.start_soon(watch)
                for k, g in enumerate(gs):
                    tls.use_route(nodes[k])
                    await n.start(g.run)
                tls.use_route(None)
    finally:
        for s in stores:
            s.close()
    steps = gs[0].peer.table.phase - opened["phase"]
    return {"step_ms": (max(over.values()) - opened["t0"]) * 1000 / max(1, steps), "steps": steps,
            "timeouts": sum(1 for g in gs for _ in getattr(g.peer, "timeouts", []) or [])}


async def one(path: str, delay_ms: int, rounds: int) -> dict:
    d = delay_ms / 1000
    async with trio.open_nursery() as nursery, AsyncExitStack() as stack:
        relay, relay_port = await relay_at(nursery)
        relay_id = relay.rsplit("/p2p/", 1)[1]
        if path == "relayed":
            fport = await nursery.start(forwarder, d, ("127.0.0.1", relay_port))
            via = "/ip4/127.0.0.1/tcp/%d/p2p/%s" % (fport, relay_id)
            a = await stack.enter_async_context(internet.open_node(os.urandom(32), via))
            b = await stack.enter_async_context(internet.open_node(os.urandom(32), via))
            no_shortcuts(a), no_shortcuts(b)
        else:
            a = await stack.enter_async_context(internet.open_node(os.urandom(32), relay))
            b = await stack.enter_async_context(internet.open_node(os.urandom(32), relay))
            no_shortcuts(a), no_shortcuts(b)
            from libp2p.peer.id import ID
            from libp2p.peer.peerinfo import PeerInfo
            from multiaddr import Multiaddr

            b_port = int(str(b._host.get_addrs()[0]).split("/tcp/")[1].split("/")[0])
            fport = await nursery.start(forwarder, d, ("127.0.0.1", b_port))
            await a._host.connect(PeerInfo(ID.from_base58(b.peer), [Multiaddr("/ip4/127.0.0.1/tcp/%d" % fport)]))
            # b's connection to a is this one (b never dials: the roster's lower seat is dialled, §9.4)
        ep = await nursery.start(b.serve, 0, echo)
        link = await rtt(a, b, ep)
        with tempfile.TemporaryDirectory() as tmp:
            g = await game([a, b], Path(tmp), rounds)
        assert a.has_direct(b.peer) == (path == "direct"), path
        nursery.cancel_scope.cancel()
    g["rtt_ms"] = link
    return g


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--delays", default="50,150,300")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--paths", default="direct,relayed")
    args = ap.parse_args()
    internet.quiet_engine()
    summary = {"bench": "internet_summary", "goal": "direct step_ms <= %.1f x %g round trip(s) x rtt_ms" % (GOAL, NEEDED_ROUND_TRIPS),
               "rows": []}
    for path in args.paths.split(","):
        for delay in [int(x) for x in args.delays.split(",")]:
            runs = [trio.run(one, path, delay, args.rounds) for _ in range(args.reps)]
            ratio = [r["step_ms"] / r["rtt_ms"] for r in runs]
            row = {"bench": "internet_step", "path": path, "delay_per_hop_ms": delay, "hops": 1 if path == "direct" else 2,
                   "rtt_ms": stats([r["rtt_ms"] for r in runs], 1), "step_ms": stats([r["step_ms"] for r in runs], 1),
                   "step_per_rtt": stats(ratio, 2), "steps": runs[0]["steps"], "load": load()}
            if path == "direct":
                row["goal_met"] = row["step_per_rtt"]["median"] <= GOAL * NEEDED_ROUND_TRIPS
            print(json.dumps(row), flush=True)
            summary["rows"].append({k: row[k] for k in ("path", "delay_per_hop_ms")} | {
                "rtt_ms": row["rtt_ms"]["median"], "step_ms": row["step_ms"]["median"],
                "step_per_rtt": row["step_per_rtt"]["median"], "goal_met": row.get("goal_met")})
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
