"""Real loopback TLS between GameNodes (trio, pytest-trio), and the CLI processes under SIGKILL."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import trio

from cli.runner import bot_decider
from core.audit import audit
from core.encoding import encode
from core.events import make_event
from core.logfile import parse as parse_log
from p2p import tls
from p2p.framing import ConnectionClosed, FrameError, FramedStream
from p2p.identity import Identity
from p2p.node import Conn, Faults, GameNode
from p2p.protocol import Disconnect, TruncateLog
from p2p.store import GameStore

from .helpers import GAMES
from .netutil import Sim, build_table, entry_raws, free_ports, run_nodes, wait_for
from .netutil import finish_procs as _finish, logs_under as _logs_under, spawn_easel as _spawn

ROOT = Path(__file__).resolve().parent.parent


# --------------------------------------------------------------------------- six nodes, faults
async def test_six_nodes_with_faults_finish_with_identical_logs(tmp_path):
    ids, genesis, roster, stores = build_table(6, tmp_path)
    nodes = [
        GameNode(
            ids[k], genesis, roster, stores[k], bot_decider("painting", "random", "seed"),
            timeout=60, faults=Faults(drop=0.1, dup=0.1, reorder=0.2, delay=0.05, seed=k), linger=5,
        )
        for k in range(6)
    ]
    await run_nodes(nodes, stores, 60)
    for node in nodes:
        assert node.failed is None
        assert node.peer.table.over
    logs = [(tmp_path / str(k) / "log").read_bytes() for k in range(6)]
    assert all(lg == logs[0] for lg in logs)
    rep = audit({"log%d" % k: lg for k, lg in enumerate(logs)}, GAMES)
    assert rep["valid"] and rep["complete"], rep["problems"]
    assert rep["events"] == 1 + 6 * 14  # nobody was timed out: faults were healed by repair


# --------------------------------------------------------------------------- outsiders
async def test_key_without_a_seat_cannot_connect_or_inject(tmp_path):
    ids, genesis, roster, stores = build_table(2, tmp_path)
    outsider = Identity.generate()
    nodes = [GameNode(ids[k], genesis, roster, stores[k], bot_decider("painting", "random", "x"), timeout=60, linger=3) for k in range(2)]
    outcomes = []

    async def intrude(port: int, expect: bytes):
        # pins the real seats (so it trusts the node) but presents its own certificate
        ctx = tls.client_context(outsider, roster["certs"] + [tls.make_certificate(outsider)])
        try:
            stream = await tls.connect("127.0.0.1", port, ctx, expect, timeout=5)
        except (OSError, tls.TLSError) as exc:
            outcomes.append(("connect refused", repr(exc)))
            return
        fs = FramedStream(stream)
        ev = make_event(outsider.sign, genesis.game_id, outsider.public, 0, bytes(32), "commit", {"phase": 0, "hash": bytes(32)})
        try:
            with trio.fail_after(5):
                await fs.send(encode(["hello", 1, genesis.game_id, [], []]))
                await fs.send(encode(["entry", ev.raw]))
                got = await fs.receive()
            outcomes.append(("got data", got))
        except (ConnectionClosed, FrameError, trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            outcomes.append(("closed", repr(exc)))
        finally:
            await trio.aclose_forcefully(stream)

    try:
        with trio.fail_after(40):
            async with trio.open_nursery() as n:
                await n.start(nodes[0].run)
                for _ in range(3):
                    await intrude(roster["addrs"][0][1], ids[0].public)
                await n.start(nodes[1].run)
                await intrude(roster["addrs"][1][1], ids[1].public)
    finally:
        for s in stores:
            s.close()
    assert len(outcomes) == 4
    assert all(kind in ("connect refused", "closed") for kind, _ in outcomes), outcomes
    # the game was not disturbed, and nothing of the outsider is anywhere
    logs = [(tmp_path / str(k) / "log").read_bytes() for k in range(2)]
    assert logs[0] == logs[1] and nodes[0].peer.table.over
    for k in range(2):
        for f in ("log", "spool"):
            assert outsider.public not in (tmp_path / str(k) / f).read_bytes()
        assert outsider.public not in nodes[k].peer.remote
    # even if it could send, its event would be refused with a disconnect
    ev = make_event(outsider.sign, genesis.game_id, outsider.public, 0, bytes(32), "commit", {"phase": 0, "hash": bytes(32)})
    for as_who in (outsider.public, ids[1].public):
        out = nodes[0].peer.receive(as_who, encode(["entry", ev.raw]))
        assert [e for e in out if isinstance(e, Disconnect)] and len(out) == 1


# --------------------------------------------------------------------------- persistence before send (shell)
class Recorder:
    def __init__(self) -> None:
        self.order: list[tuple[str, object]] = []


class FakeFile:
    def __init__(self, rec: Recorder, name: str) -> None:
        self.rec, self.name = rec, name

    def append(self, entries, sync: bool = True) -> None:
        self.rec.order.append((self.name, list(entries)))
        if sync:
            self.rec.order.append(("sync-" + self.name, None))

    def truncate(self, count) -> None:
        self.rec.order.append(("truncate", count))  # RecordFile.truncate fsyncs the log

    def sync(self) -> None:
        self.rec.order.append(("sync-" + self.name, None))


class FakeStore:
    """Records, in order, what GameNode.run_effects asks of a GameStore (plain or group-committed)."""

    def __init__(self, rec: Recorder) -> None:
        self.log = FakeFile(rec, "log")
        self.spool = FakeFile(rec, "spool")
        self.rec = rec

    def put_secret(self, phase, value, salt, sync: bool = True) -> None:
        self.rec.order.append(("secret", phase))

    def sync(self) -> None:
        self.rec.order.append(("sync-log", None))
        self.rec.order.append(("sync-spool", None))

    def sync_own(self) -> None:   # our own new event: the spool (and secrets), not the log
        self.rec.order.append(("sync-spool", None))


class FakeChannel:
    def __init__(self, rec: Recorder, key: bytes) -> None:
        self.rec, self.key = rec, key

    def send_nowait(self, msg) -> None:
        self.rec.order.append(("send", msg))

    def close(self) -> None:
        pass


class DurableModel:
    """Which entries are written, and which are durable (fsynced), after each store call."""

    def __init__(self, genesis_raw: bytes) -> None:
        self.written = {"log": [genesis_raw], "spool": []}
        self.durable = {"log": [genesis_raw], "spool": []}

    def holds(self, raw: bytes) -> bool:
        return raw in self.durable["log"] or raw in self.durable["spool"]

    def apply(self, what: str, arg) -> None:
        if what in ("log", "spool"):
            self.written[what].extend(arg)
        elif what.startswith("sync-"):
            f = what[5:]
            self.durable[f] = list(self.written[f])
        elif what == "truncate":
            cut = self.written["log"][arg:]
            for raw in cut:  # what the log loses must already be durable in the spool
                assert raw in self.durable["spool"], "an entry cut from the log is not durably in the spool"
            del self.written["log"][arg:]
            self.durable["log"] = list(self.written["log"])


def _withholding_sim() -> Sim:
    """3 seats; seat 1's move reveals never arrive: time-outs, votes, certificates and roll-backs."""
    from core.events import Event, parse_entry

    sim = Sim(3, seed=5, timeout=2.0, drop=0.2, dup=0.1)

    def block(src, dst, msg):
        return src == 1 and any(
            isinstance(e, Event) and e.kind == "reveal" and e.body["phase"] >= 3
            for e in (parse_entry(r) for r in entry_raws(msg))
        )

    sim.block = block
    sim.start()
    sim.run_until(max_rounds=5000)
    return sim


async def test_node_persists_every_entry_before_sending_it(tmp_path):
    sim = _withholding_sim()
    assert sim.effects_of(1, TruncateLog), "the scenario should include roll-backs"
    roster = {"certs": [tls.make_certificate(i) for i in sim.ids], "addrs": [["127.0.0.1", p] for p in free_ports(3)]}
    for seat in range(3):
        store = GameStore(tmp_path / ("s%d" % seat))
        node = GameNode(sim.ids[seat], sim.genesis, roster, store, None)
        store.close()
        rec = Recorder()
        node.store = FakeStore(rec)
        for k in range(3):
            if k != seat:
                c = Conn.__new__(Conn)
                c.key, c.stream, c.closed = sim.keys[k], None, False
                c.send_ch = FakeChannel(rec, sim.keys[k])
                node.conns[sim.keys[k]] = c
        batches = [effs for k, effs in sim.batches if k == seat]
        assert batches
        for effs in batches:
            node.run_effects(effs)
            for c in list(node.conns.values()):
                c.closed = False  # the scenario never disconnects honest peers; keep every link
        disk = DurableModel(sim.genesis.raw)
        sent = acks = 0
        for what, arg in rec.order:
            if what == "send":
                raws = entry_raws(arg)
                for raw in raws:
                    assert disk.holds(raw), "seat %d: an entry was sent before it was durably written" % seat
                    sent += 1
                if not raws:   # a have, vote or hello speaks for everything we hold: all of it is durable
                    assert disk.durable == disk.written, "seat %d: acknowledged what is not durable yet" % seat
                    acks += 1
            else:
                disk.apply(what, arg)
        assert sent > 10 and acks > 0
        assert disk.written["log"] == sim.peers[seat].log_entries


# --------------------------------------------------------------------------- SIGKILL and resume (processes)
def _records(path: Path) -> int:
    try:
        return len(parse_log(path.read_bytes()).entries)
    except OSError:
        return 0


def test_sigkill_a_bot_and_resume(tmp_path):
    homes = [tmp_path / ("h%d" % k) for k in range(3)]
    port = free_ports(1)[0]
    seed = "kill"
    host = _spawn(["host", "--game", "painting", "--players", "3", "--port", str(port), "--auto", "random", "--seed", seed, "--unsafe-seed",
                   "--bind", "127.0.0.1", "--no-advertise", "--timeout", "60"], homes[0])
    bots = [_spawn(["bot", "--join", "127.0.0.1:%d" % port, "--level", "random", "--seed", seed, "--unsafe-seed"], homes[k]) for k in (1, 2)]
    procs = [host] + bots
    try:
        victim = bots[0]
        # kill the bot once its log holds more than the genesis (but long before the end: 43 records)
        grown = wait_for(lambda: any(_records(p) > 2 for p in _logs_under(homes[1])), timeout=30, interval=0.002)
        assert grown, "bot 1's log never grew: %r" % (_finish(procs, 1),)
        victim.send_signal(signal.SIGKILL)
        victim.wait(timeout=10)
        assert victim.returncode == -signal.SIGKILL
        killed_at = _records(_logs_under(homes[1])[0])
        assert killed_at < 43, "the bot had already finished when it was killed"
        time.sleep(0.3)
        game_dir = _logs_under(homes[1])[0].parent
        resumed = _spawn(["resume", str(game_dir), "--level", "random", "--seed", seed, "--unsafe-seed"], homes[1])
        results = _finish([host, bots[1], resumed], timeout=45)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for rc, so, se in results:
        assert rc == 0, "exit %r\nstdout: %s\nstderr: %s" % (rc, so[-1000:], se[-3000:])
        assert "Traceback" not in se
    logs = [_logs_under(h) for h in homes]
    assert all(len(lg) == 1 for lg in logs)
    data = [lg[0].read_bytes() for lg in logs]
    assert data[0] == data[1] == data[2]
    assert _records(logs[0][0]) == 43  # 3 seats x 14 steps: the killed seat was never timed out
    r = subprocess.run([sys.executable, "-m", "cli", "audit", *[str(lg[0]) for lg in logs]], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("VALID")


async def test_a_roll_back_past_a_shown_bid_ends_every_real_node_forked_alike(tmp_path):
    """Real nodes (loopback TLS).  After seat 0's round-1 bid is revealed, a certificate of seats 1 and 2
    for round 1's commit step, naming seat 0, is handed to every node (a coalition's roll-back): seat 0
    never follows it, the others hold its reveal, so the table has forked; every node ends ``forked``
    with the same result and stops (no node waits for ever), the proof in seat 0's spool."""
    from core.events import make_timeout, vote_sign_msg
    from core.fork import is_fork
    from core.logfile import parse as parse_file

    ids, genesis, roster, stores = build_table(3, tmp_path, options={"rounds": 2})
    injected = trio.Event()
    base = bot_decider("painting", "random", "fork")

    async def held_at_round_2(d):
        if d.phase >= 4:                      # round 2's sealed move waits until the certificate is handed out
            await injected.wait()
        return await base(d)

    held_at_round_2.takes_decision = True
    nodes = [GameNode(ids[k], genesis, roster, stores[k], held_at_round_2 if k == 2 else base, timeout=60, linger=2)
             for k in range(3)]

    async def coalition() -> None:
        while not all(n.peer.table.phase >= 4 for n in nodes):      # every node at round 2: seat 0's bid shown
            await trio.sleep(0.02)
        p0 = nodes[0].peer
        prev = p0.table.starts[2][1]
        gid = genesis.game_id
        votes = [(k, ids[k].sign(vote_sign_msg(gid, 2, prev, [0]))) for k in (1, 2)]
        raw = encode(["entry", make_timeout(gid, 2, prev, [0], votes).raw])
        for n in nodes:
            n.apply(n.peer.receive(ids[1].public, raw))
        injected.set()

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(coalition)
            await run_nodes(nodes, stores, 55)
    results = [n.peer.table.result() for n in nodes]
    assert all(n.failed is None and n.peer.table.over for n in nodes)
    assert results[0]["status"] == "forked" and all(r == results[0] for r in results), results
    assert results[0]["fork"]["seat"] == 0 and results[0]["fork"]["voters"] == [1, 2] and results[0]["winners"] == []
    spool = parse_file((tmp_path / "0" / "spool").read_bytes()).entries
    assert any(is_fork(raw) for raw in spool)
