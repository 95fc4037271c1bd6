"""Hostile peers, floods and torn logs (issue 9): games against a misbehaving seat, the limits of
protocol.md §13.1, and a regression test for each of findings 1, 2, 3, 4 and 7."""

from __future__ import annotations

import logging
import random
import re
import socket
import tracemalloc
from pathlib import Path

import pytest
import trio

from core.audit import audit
from core.encoding import encode
from core.events import Event, make_event, parse_entry, vote_sign_msg
from p2p import limits as L
from p2p import protocol as P
from p2p import tls
from p2p.framing import ConnectionClosed, FrameError, FramedStream
from p2p.identity import Identity
from p2p.limits import Limits, RateLimitedLog
from p2p.node import GameNode
from p2p.protocol import Peer, WriteLog, WriteSpool
from p2p.repair import RemotePeer
from p2p.store import GameStore

from .helpers import GAMES
from .misbehave import TRICKS, HostileNet, caps, reconnect_loop, stall_mid_frame
from .netutil import DetRand, free_ports, identities
from .test_protocol_properties import Net, log_file, make_table, spool_file

ROOT = Path(__file__).resolve().parent.parent


# --------------------------------------------------------------------------- games against a misbehaving seat
def _audit_honest(net: HostileNet) -> dict:
    files = {}
    for k in net.honest():
        files["log%d" % k] = log_file(net.disks[k].log)
        files["spool%d" % k] = spool_file(net.disks[k].spool)
    return audit(files, GAMES)


def _check_caps(net: HostileNet) -> None:
    n = net.n
    vote_cap = (P.VOTES_AHEAD + P.VOTES_BEHIND + 1) * n * P.MAX_VOTES_PER_STEP_SEAT
    bad_key = net.keys[net.bad]
    for k in net.honest():
        p, c = net.peers[k], caps(net.peers[k])
        assert c["votes"] <= vote_cap, c
        assert c["buffered"] <= P.MAX_BUFFERED_PER_AUTHOR, c
        assert c["unplaced_ahead"] <= P.MAX_SEQ_AHEAD, c
        assert c["certs_per_phase"] <= P.MAX_CERTS_PER_PHASE, c
        assert c["remote_keys"] <= n, c
        # disk: nothing of the bad seat far ahead of its place in the log was written
        last = p.table.last_seq.get(bad_key, -1)
        for raw in net.disks[k].spool + net.disks[k].log[1:]:
            e = parse_entry(raw, keys=net.keys, verify=False)
            if isinstance(e, Event) and e.author == bad_key:
                assert e.seq <= last + P.MAX_SEQ_AHEAD, "a far-future event of the bad seat reached the disk"
        assert len(net.disks[k].spool) <= 2 * len(net.disks[k].log) + 8


CASES = [
    ("toy", ["equivocate"]),
    ("toy", ["withhold"]),
    ("toy", ["bad_reveal"]),
    ("toy", ["votes", "future_seq", "flood"]),
    ("painting", ["withhold", "votes", "future_seq"]),
    ("painting", ["equivocate", "bad_reveal", "flood"]),
    ("starving-artists", ["votes", "future_seq", "flood", "equivocate"]),
]


@pytest.mark.parametrize("game,tricks", CASES, ids=["%s-%s" % (g, "+".join(t)) for g, t in CASES])
def test_a_misbehaving_seat_cannot_stop_or_split_the_honest_peers(game, tricks):
    options = {"rounds": 2} if game == "toy" else {}
    net = HostileNet(3, 1, tricks, game=game, options=options, seed=len(tricks) + len(game))
    net.play(max_rounds=3000, wall=30.0)
    honest = net.honest()
    assert all(net.peers[k].table.over for k in honest)
    assert len({tuple(net.peers[k].log_entries) for k in honest}) == 1
    assert all(net.disks[k].log == net.peers[k].log_entries for k in honest)
    _check_caps(net)
    rep = _audit_honest(net)
    problems = " ".join(p["problem"] for p in rep["problems"])
    notes = " ".join(str(n) for n in rep["notes"])
    if "equivocate" in tricks:
        # signed twice under one seq: found in the honest peers' spools
        assert "equivocation" in problems and net.keys[1].hex()[:16] in problems, rep["problems"]
        assert any("equivocated" in a for k in honest for a in net.alerts[k])
    else:
        # a garbled reveal is not an equivocation (the bad seat signed one event per seq)
        assert "equivocat" not in problems and not any("equivocated" in a for k in honest for a in net.alerts[k])
        assert rep["valid"] and rep["complete"], rep["problems"]
    if "bad_reveal" in tricks:
        # named as what it is, for that seat: by the audit (from the spools) and by every honest peer
        bad = [n for n in rep["notes"] if "reveal does not match its commitment" in n["note"]]
        assert bad and all(n["seat"] == 1 and "timed out" in n["note"] for n in bad), rep["notes"]
        for k in honest:
            assert any("seat 1's reveal does not match its commitment" in a for a in net.alerts[k]), net.alerts[k]
    if tricks == ["withhold"] or tricks == ["bad_reveal"]:
        assert "timed out" in notes and "1" in notes, rep["notes"]
    if "votes" in tricks:
        assert any(net.peers[k].refused.get("VOTES_AHEAD") for k in honest)
    if "future_seq" in tricks:
        assert any(net.peers[k].refused.get("MAX_SEQ_AHEAD") for k in honest)


def test_a_forged_or_matching_reveal_in_a_spool_is_not_named():
    """The audit names a reveal that does not match its commitment only if its seat really
    signed it, and never a reveal that opens its commitment."""
    net = HostileNet(3, 1, ["bad_reveal"], game="toy", options={"rounds": 1}, seed=4)
    net.play(max_rounds=3000, wall=30.0)
    files = {"log0": log_file(net.disks[0].log), "spool0": spool_file(net.disks[0].spool)}
    assert any("does not match its commitment" in n["note"] for n in audit(files, GAMES)["notes"])
    forged = []
    for raw in net.disks[0].spool:
        e = parse_entry(raw, keys=net.keys, verify=False)
        if isinstance(e, Event) and e.kind == "reveal" and e.author == net.keys[1]:
            raw = raw[:-1] + bytes([raw[-1] ^ 1])          # its signature no longer verifies
        forged.append(raw)
    files["spool0"] = spool_file(forged)
    rep = audit(files, GAMES)
    assert not any("does not match its commitment" in n["note"] for n in rep["notes"]), rep["notes"]
    # an honest game's spools hold reveals too (received before they could be placed): none is named
    honest = HostileNet(3, 1, [], game="toy", options={"rounds": 1}, seed=4)
    honest.play(max_rounds=3000, wall=30.0)
    files = {"log%d" % k: log_file(honest.disks[k].log) for k in range(3)}
    files.update({"spool%d" % k: spool_file(honest.disks[k].spool) for k in range(3)})
    assert any(getattr(parse_entry(r, verify=False), "kind", None) == "reveal" for r in honest.disks[0].spool)
    rep = audit(files, GAMES)
    assert rep["valid"] and not any("commitment" in n["note"] for n in rep["notes"]), rep["notes"]


def test_tricks_really_misbehave():
    """The harness is not a no-op: each trick sends what it says."""
    net = HostileNet(3, 1, TRICKS, game="toy", options={"rounds": 1}, seed=9)
    net.play(max_rounds=3000, wall=30.0)
    assert net.mis.forged > 10 and net.mis.junk_frames > 100 and net.mis.sent_twins


# --------------------------------------------------------------------------- finding 3: votes and seqs
def _pair(n: int = 3):
    ids = identities(n, "f3")
    g = make_table(ids, "toy", {"rounds": 1}, timeout=60, nonce=b"f3f3f3f3")
    peers = [Peer(g, ids[k].public, ids[k].sign, DetRand("f3", k), games=GAMES) for k in range(n)]
    for p in peers:
        p.start()
    return ids, g, peers


def test_votes_for_steps_that_do_not_exist_are_not_stored():
    ids, g, peers = _pair()
    p = peers[0]
    r = random.Random(3)
    for i in range(600):
        phase = r.choice([r.randrange(10 ** 9), p.table.phase + 1 + r.randrange(3), p.table.phase])
        prev = r.randbytes(32) if i % 3 else p.table.step.prev
        seats = [0] if i % 2 else [0, 2]
        sig = ids[1].sign(vote_sign_msg(g.game_id, phase, prev, seats))
        out = p.receive(ids[1].public, encode(["vote", phase, prev, seats, 1, sig]))
        assert not [e for e in out if isinstance(e, (WriteSpool, WriteLog))]
    held = sum(len(v) for v in p.votes.values())
    assert held <= (P.VOTES_AHEAD + 1) * P.MAX_VOTES_PER_STEP_SEAT, held   # the old code kept ~600
    assert p.refused["VOTES_AHEAD"] > 100


def test_events_far_ahead_in_seq_are_refused_and_never_written():
    ids, g, peers = _pair()
    p = peers[0]
    prev = p.table.step.prev
    for seq in (P.MAX_SEQ_AHEAD, 10 ** 6, 2 ** 40):
        ev = make_event(ids[1].sign, g.game_id, ids[1].public, seq, prev, "commit", {"phase": 0, "hash": bytes(32)})
        out = p.receive(ids[1].public, encode(["entry", ev.raw]))
        assert out == [] and seq not in p.replica.events[ids[1].public] and seq not in p.replica.buffer[ids[1].public]
    # within the cap (last seq -1 + MAX_SEQ_AHEAD) it waits for the gap as before
    ev = make_event(ids[1].sign, g.game_id, ids[1].public, P.MAX_SEQ_AHEAD - 1, prev, "commit", {"phase": 0, "hash": bytes(32)})
    p.receive(ids[1].public, encode(["entry", ev.raw]))
    assert P.MAX_SEQ_AHEAD - 1 in p.replica.buffer[ids[1].public]
    # a contiguous chain of junk is accepted only up to the cap (each seq once, so disk stays bounded)
    written = 0
    for seq in range(0, 200):
        ev = make_event(ids[2].sign, g.game_id, ids[2].public, seq, bytes(32), "commit", {"phase": 10 ** 6 + seq, "hash": bytes(32)})
        written += sum(len(e.entries) for e in p.receive(ids[2].public, encode(["entry", ev.raw])) if isinstance(e, WriteSpool))
    assert written == P.MAX_SEQ_AHEAD


def test_certificates_for_steps_that_do_not_exist_are_not_kept():
    from core.events import make_timeout

    ids = identities(2, "cert")
    g = make_table(ids, "toy", {"rounds": 1}, timeout=60, nonce=b"certcert")
    p = Peer(g, ids[1].public, ids[1].sign, DetRand("c", 1), games=GAMES)
    p.start()
    r = random.Random(1)
    for i in range(50):   # in a 2-seat game seat 0 alone can sign a certificate timing seat 1 out
        phase, prev = r.randrange(1, 10 ** 6), r.randbytes(32)
        sig = ids[0].sign(vote_sign_msg(g.game_id, phase, prev, [1]))
        cert = make_timeout(g.game_id, phase, prev, [1], [(0, sig)])
        out = p.receive(ids[0].public, encode(["entry", cert.raw]))
        assert not [e for e in out if isinstance(e, WriteSpool)]
    assert not p.replica.certs


# --------------------------------------------------------------------------- finding 7: torn log, then resume
def _net_with_resync():
    class ResyncNet(Net):
        torn: set = set()

        def _boot(self, k):
            peer = super()._boot(k)
            if k in self.torn:
                peer.resync.lost_tail()
            return peer

    return ResyncNet


@pytest.mark.parametrize("game,n,cut_at,seat,records", [
    ("toy", 2, 7, 0, 1),      # the cut leaves half a batch in the log (the stall of finding 7)
    ("toy", 2, 7, 1, 1),      # the cut takes our own reveal while our next commit is spooled
    ("toy", 2, 14, 1, 1),
    ("toy", 3, 84, 2, 1),     # our own event, already held by the others, is cut
    ("painting", 3, 40, 1, 3),
])
def test_torn_log_then_resume_never_stalls(game, n, cut_at, seat, records):
    net = _net_with_resync()(n, 1, rounds=2, timeout=1e9, game=game)  # no time-outs: only repair can heal
    net.start()
    while net.steps < cut_at:
        net.round(iter(()))
    net.sync(seat)
    d = net.durable[seat]
    d.log = d.log[:max(1, len(d.log) - records)]
    net.disks[seat] = net._snapshot(d)
    net.torn = {seat}
    net.restart(seat, power=True)
    for r in range(1500):
        if net.settled():
            break
        net.round(iter(()))
    else:
        raise AssertionError("stalled after a torn log: phases %s waiting %s" % (
            [p.table.phase for p in net.peers], [p.waiting() for p in net.peers]))
    assert all(not a for a in net.alerts.values()), net.alerts   # nobody equivocated
    rep = audit({"log%d" % k: log_file(net.disks[k].log) for k in range(n)}, GAMES)
    assert rep["valid"] and rep["complete"], rep["problems"]


def test_torn_log_file_then_resume_with_a_real_store(tmp_path):
    """Finding 7 exactly: the last record of a real log file is cut (as by a crash); the peer
    rebuilt from the store (which reports the torn tail) finishes the game with the others."""
    net = _net_with_resync()(2, 2, rounds=2, timeout=1e9, game="toy")
    net.start()
    while net.steps < 7:
        net.round(iter(()))
    net.sync(0)
    store = GameStore(tmp_path / "g")
    store.log.append(net.durable[0].log)
    store.spool.append(net.durable[0].spool)
    for ph, (v, s) in net.durable[0].secrets.items():
        store.put_secret(ph, v, s)
    store.close()
    path = tmp_path / "g" / "log"
    path.write_bytes(path.read_bytes()[:-5])          # the last record torn
    store = GameStore(tmp_path / "g")
    assert store.repaired and len(store.log.records) == len(net.durable[0].log) - 1
    d = net.durable[0]
    d.log, d.spool, d.secrets = list(store.log.records), list(store.spool.records), dict(store.secrets)
    store.close()
    net.disks[0] = net._snapshot(d)
    net.torn = {0}
    net.restart(0, power=True)
    for r in range(1500):
        if net.settled():
            break
        net.round(iter(()))
    assert net.settled(), "the table stalled after the torn log: waiting %s" % [p.waiting() for p in net.peers]


def test_watchdog_asks_again_when_a_step_waits_for_nobody(caplog):
    """Every event of the open step is held, so the step waits for nobody, yet it did not close
    (its batch is missing from the log) and no peer holds anything we lack: only the watchdog's
    "waiting for nobody" branch gets the table going again (re-check what we hold, ask again).

    No code path is known to leave a peer in this state today (finding 7's half batch is cut
    back on load); the watchdog is the net under any that remains, so the state is built by
    hand: the last step's events are handed to the peer without placing them."""
    from p2p.protocol import Broadcast
    from core.encoding import decode

    done = HostileNet(2, 1, [], game="toy", options={"rounds": 1}, seed=21)
    done.play(max_rounds=3000, wall=30.0)
    full = done.peers[0].log_entries
    count = done.peers[0].table.starts[max(done.peers[0].table.starts)][0]   # where the last step opened
    last = [parse_entry(raw, keys=done.keys, verify=False) for raw in full[count:]]
    assert len(last) == 2 and all(isinstance(e, Event) for e in last)   # one event of each seat, no time-out
    a = Peer(done.genesis, done.keys[0], done.ids[0].sign, DetRand("wd", 0), log_entries=full[:count],
             secrets=dict(done.disks[0].secrets), timeout=1e9, games=GAMES)
    b = Peer(done.genesis, done.keys[1], done.ids[1].sign, DetRand("wd", 1), log_entries=full,
             secrets=dict(done.disks[1].secrets), timeout=1e9, games=GAMES)
    a.start()
    b.start()
    for ev in last:                       # held, contiguous, acknowledged; never placed
        a.replica.insert(ev)
    assert a.waiting() == () and a.table.step is not None and not a.table.over
    peers, queue, hellos = [a, b], [], []

    def run(k, effects):
        for eff in effects:
            if isinstance(eff, Broadcast):
                queue.append((k, 1 - k, eff.msg))
                if k == 0 and decode(eff.msg)[0] == "hello":
                    hellos.append(now)
            elif hasattr(eff, "msg"):
                queue.append((k, 1 - k, eff.msg))

    now = 0.0
    caplog.set_level(logging.WARNING, logger="easel.protocol")
    run(0, a.connected(done.keys[1]))
    run(1, b.connected(done.keys[0]))
    for _ in range(int(3 * P.WATCHDOG_AFTER / 0.1)):
        while queue:
            src, dst, msg = queue.pop(0)
            run(dst, peers[dst].receive(done.keys[src], msg))
        if a.table.over:
            break
        # nothing else would move it: it waits for nobody and the other holds nothing it lacks
        assert a.waiting() == () and not a.remote.ahead_of(a.replica.last_held())
        now += 0.1
        for k in (0, 1):
            run(k, peers[k].tick(now))
    assert a.table.over and a.log_entries == full, "the step that waited for nobody never closed"
    assert a.watchdog_fired >= 1 and now >= P.WATCHDOG_AFTER
    assert [h for h in hellos if h > 0], "the watchdog did not ask the peers again"
    lines = [r.getMessage() for r in caplog.records if "WATCHDOG_AFTER" in r.getMessage()]
    assert lines and "waiting for nobody" in lines[0], lines


def test_watchdog_asks_again_when_a_peer_holds_events_we_lack():
    """A lost frame that no stale-report repair would resend soon: the watchdog re-asks."""
    net = Net(2, 4, rounds=1, timeout=1e9, game="toy")
    net.start()
    for _ in range(3):
        net.round(iter(()))
    p = net.peers[0]
    # forget that we sent anything to peer 1 and make it look as if peer 1 holds more than us
    fired = p.watchdog_fired
    for _ in range(int(P.WATCHDOG_AFTER / net.TICK) + 5):
        p.remote.setdefault(net.keys[1], RemotePeer()).have = {k: 10 ** 3 for k in net.keys}
        net.run(0, p.tick(net.now + 100))
        net.now += net.TICK
    assert p.watchdog_fired > fired


# --------------------------------------------------------------------------- findings 1 and 4: floods of strangers
async def _flood(port: int, count: int, payload: bytes | None) -> None:
    socks = []
    try:
        for _ in range(count):
            s = trio.socket.socket()
            try:
                await s.connect(("127.0.0.1", port))
                if payload:
                    await s.send(payload)
            except OSError:
                s.close()
                continue
            socks.append(s)
            await trio.sleep(0)
        await trio.sleep(0.3)
    finally:
        for s in socks:
            s.close()


async def test_handshake_flood_is_capped_and_leaves_nothing_behind(nursery):
    ident = Identity.generate()
    stats = tls.ListenerStats()
    lim = Limits(max_handshakes=6, max_handshakes_per_addr=3, handshake_deadline=1.0)

    async def handler(stream):
        await trio.sleep(0)

    tracemalloc.start()
    try:
        port = await nursery.start(lambda task_status: tls.serve(0, tls.server_context(ident, None), handler, "127.0.0.1",
                                                                 task_status=task_status, limits=lim, stats=stats))
        await trio.sleep(0.1)
        base = tracemalloc.get_traced_memory()[0]
        with trio.fail_after(20):
            await _flood(port, 400, None)             # connect and say nothing (handshakes stall)
            await _flood(port, 200, b"\x16\x03\x01" + b"\x00" * 50)   # garbage ClientHellos
            while stats.open:
                await trio.sleep(0.05)
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert stats.peak_handshaking <= 6                   # the old listener had hundreds at once
    assert stats.refused > 300
    assert stats.open == 0 and stats.handshaking == 0 and not stats.by_addr and not stats.hs_by_addr
    assert after - base < 2_000_000, (base, after)       # memory back near its baseline
    # an honest client still gets in after the flood
    with trio.fail_after(5):
        s = await tls.connect("127.0.0.1", port, tls.client_context(Identity.generate(), None), None)
        await trio.aclose_forcefully(s)


async def test_failed_handshakes_do_not_each_log_a_warning(nursery, caplog):
    ident = Identity.generate()
    lim = Limits(max_handshakes=64, max_handshakes_per_addr=64, max_conns_per_addr=64, handshake_deadline=1.0)
    stats = tls.ListenerStats()
    port = await nursery.start(lambda task_status: tls.serve(0, tls.server_context(ident, None), lambda s: trio.sleep(0), "127.0.0.1",
                                                             task_status=task_status, limits=lim, stats=stats))
    caplog.set_level(logging.INFO, logger="p2p.tls")
    with trio.fail_after(20):
        for _ in range(5):
            await _flood(port, 10, b"GET / HTTP/1.0\r\n\r\n")
        while stats.open:
            await trio.sleep(0.05)
    assert stats.failed >= 40
    warnings = [r for r in caplog.records if r.name == "p2p.tls" and r.levelno >= logging.WARNING]
    assert 1 <= len(warnings) <= 2, [r.getMessage() for r in warnings]   # the old listener: one per handshake


def test_rate_limited_log_counts_what_it_suppressed(caplog):
    now = [0.0]
    rl = RateLimitedLog(logging.getLogger("test.rl"), every=10.0, burst=3, clock=lambda: now[0])
    caplog.set_level(logging.INFO, logger="test.rl")
    for i in range(100):
        rl.note("X", "1.2.3.4", "refused %d", i)
    for i in range(10):
        rl.note("X", "addr%d" % i, "refused other %d", i)
    now[0] = 11.0
    rl.note("X", "1.2.3.4", "refused again")
    lines = [r.getMessage() for r in caplog.records if r.name == "test.rl"]
    assert len(lines) == 4, lines                          # 1 + 2 more addresses (burst 3) + 1 after the window
    assert "99 similar lines suppressed" in lines[1], lines     # the first address's repeats
    assert "8 similar lines suppressed" in lines[-1], lines     # the addresses over the burst


# --------------------------------------------------------------------------- the byte budget per seated peer
async def test_a_seat_over_its_byte_budget_is_read_later_and_the_others_are_not(tmp_path, caplog):
    """A seated peer flooding valid frames is read at BYTES_PER_SECOND (after BURST_BYTES), with one
    rate-limited log line, and kept connected (protocol.md §13.1: read later, not dropped); a seat
    sending a little, on its own connection, is read at once and never named."""
    from .netutil import make_table as mk

    ids = [Identity.generate() for _ in range(3)]
    genesis = mk(ids, timeout=60, nonce=b"budget-1")
    roster = {"certs": [tls.make_certificate(i) for i in ids], "addrs": [["127.0.0.1", p] for p in free_ports(3)]}
    store = GameStore(tmp_path / "0")
    rate, burst, cost = 50_000, 60_000, 256
    node = GameNode(ids[0], genesis, roster, store, None, limits=Limits(bytes_per_second=rate, burst_bytes=burst, frame_cost=cost))
    got: dict = {1: [], 2: []}                     # seat -> [(when read, frame bytes)]
    receive = node.peer.receive

    def counting(key, data):
        got[node.keys.index(key)].append((trio.current_time(), len(data)))
        return receive(key, data)

    node.peer.receive = counting
    caplog.set_level(logging.INFO, logger="easel.node")
    rnd = random.Random(5)
    # a valid 'have' (its authors hold no seat, so it is ignored) of about 16 KB
    big = encode(["have", [[rnd.randbytes(32), 5, b"x" * 8] for _ in range(350)], []])
    small = encode(["have", [], []])
    flood_for, sent = 2.0, {1: 0, 2: 0}

    async def seat(k: int, payload: bytes, pause: float) -> None:
        stream = await tls.connect("127.0.0.1", roster["addrs"][0][1], tls.client_context(ids[k], roster["certs"]), ids[0].public, timeout=5)
        fs = FramedStream(stream)
        async with trio.open_nursery() as n:
            async def drain():
                try:
                    while True:
                        await fs.receive()
                except (ConnectionClosed, FrameError):
                    pass   # our own send was cut by the deadline below
            n.start_soon(drain)
            with trio.move_on_after(flood_for):
                while True:
                    await fs.send(payload)
                    sent[k] += 1
                    await trio.sleep(pause)
            await trio.sleep(0.5)                   # let the node read what the small seat sent
            n.cancel_scope.cancel()
        await trio.aclose_forcefully(stream)

    try:
        with trio.fail_after(20):
            async with trio.open_nursery() as n:
                await n.start(node.run)
                async with trio.open_nursery() as clients:
                    clients.start_soon(seat, 1, big, 0)
                    clients.start_soon(seat, 2, small, 0.1)
                    await trio.sleep(flood_for - 0.2)
                    still_seated = ids[1].public in node.conns
                n.cancel_scope.cancel()
    finally:
        store.close()
    flood, honest = got[1], got[2]
    assert still_seated, "the seat over its budget was dropped (protocol.md: it is read later)"
    # the token bucket holds: never more than the burst plus the rate over the time read, plus the frame in hand
    span = flood[-1][0] - flood[0][0]
    taken = sum(n + cost for _, n in flood)
    assert taken <= burst + rate * span + len(big) + cost, (taken, span)
    assert taken >= rate * span * 0.5, (taken, span)      # read later, not cut off
    assert node.budget_waits >= 3 and len(flood) < sent[1]
    lines = [r.getMessage() for r in caplog.records if "(limit BYTES_PER_SECOND" in r.getMessage()]
    assert len(lines) == 1 and "seat 1 sends more than %d bytes/s" % rate in lines[0], lines   # not one per wait
    assert node._rl.counts["BYTES_PER_SECOND"] == node.budget_waits
    # the seat within its budget: every frame read, none held back
    assert len(honest) >= sent[2] - 1 and sent[2] >= 10, (len(honest), sent[2])
    gaps = [b[0] - a[0] for a, b in zip(honest, honest[1:])]
    assert max(gaps) < 0.5, gaps


# --------------------------------------------------------------------------- MAX_CONNS and MAX_CONNS_PER_ADDR
async def _hold_listener(nursery, lim: Limits):
    """A lobby-mode listener whose handler holds every connection until ``gate[0]`` is set."""
    stats = tls.ListenerStats()
    gate = [trio.Event()]

    async def handler(stream):
        await gate[0].wait()

    port = await nursery.start(lambda task_status: tls.serve(0, tls.server_context(Identity.generate(), None), handler, "127.0.0.1",
                                                             task_status=task_status, limits=lim, stats=stats))
    return port, stats, gate


async def _dial(port: int, source: str = "127.0.0.1"):
    """A TLS client from ``source``: its stream, or None if the listener closed it before TLS."""
    tcp = await trio.open_tcp_stream("127.0.0.1", port, local_address=source)
    stream = trio.SSLStream(tcp, tls.client_context(Identity.generate(), None), server_side=False)
    try:
        with trio.fail_after(5):
            await stream.do_handshake()
    except (trio.BrokenResourceError, OSError):
        await trio.aclose_forcefully(stream)
        return None
    return stream


def _refusals(caplog, limit: str) -> list:
    return [r.getMessage() for r in caplog.records if r.name == "p2p.tls" and re.search(r"\(limit %s[;)]" % limit, r.getMessage())]


async def _close_all(streams, stats, gate) -> None:
    """Close every held connection (both ends) and wait until the listener holds none."""
    for s in streams:
        await trio.aclose_forcefully(s)
    gate[0].set()
    with trio.fail_after(5):
        while stats.open or stats.by_addr:
            await trio.sleep(0.02)
    gate[0] = trio.Event()


async def test_max_conns_refuses_the_excess_with_one_log_line_and_frees_the_slots(nursery, caplog):
    caplog.set_level(logging.INFO, logger="p2p.tls")
    port, stats, gate = await _hold_listener(nursery, Limits(max_conns=4, max_conns_per_addr=16))
    held = [await _dial(port) for _ in range(4)]
    assert all(held) and stats.open == 4 and stats.refused == 0
    for source in ("127.0.0.1", "127.0.0.2"):        # whatever the address: the listener is full
        for _ in range(6):
            assert await _dial(port, source) is None
    assert stats.refused == 12 and stats.open == 4 and stats.peak_open == 4
    lines = _refusals(caplog, "MAX_CONNS")
    assert len(lines) == 2 and all("4 connections open" in x for x in lines), lines   # one per address, not 12
    await _close_all(held, stats, gate)
    assert not stats.by_addr and not stats.hs_by_addr
    again = [await _dial(port, "127.0.0.2") for _ in range(4)]   # the slots are free again
    assert all(again) and stats.open == 4 and stats.refused == 12
    await _close_all(again, stats, gate)


async def test_max_conns_per_addr_refuses_one_address_only_and_frees_its_slots(nursery, caplog):
    caplog.set_level(logging.INFO, logger="p2p.tls")
    port, stats, gate = await _hold_listener(nursery, Limits(max_conns=128, max_conns_per_addr=3))
    held = [await _dial(port) for _ in range(3)]
    assert all(held) and stats.by_addr == {"127.0.0.1": 3}
    refused = [await _dial(port) for _ in range(10)]
    assert refused == [None] * 10 and stats.refused == 10
    # another address still gets in
    other = [await _dial(port, "127.0.0.2") for _ in range(3)]
    assert all(other) and stats.by_addr == {"127.0.0.1": 3, "127.0.0.2": 3}
    lines = _refusals(caplog, "MAX_CONNS_PER_ADDR")
    assert len(lines) == 1 and "3 connections open from 127.0.0.1" in lines[0], lines   # one line for 10 refusals
    await _close_all(held + other, stats, gate)
    assert not stats.by_addr and not stats.hs_by_addr
    held = [await _dial(port) for _ in range(3)]   # the address's slots were freed
    assert all(held) and stats.by_addr == {"127.0.0.1": 3} and stats.refused == 10
    await _close_all(held, stats, gate)


# --------------------------------------------------------------------------- finding 2: a seated peer stalls mid-frame
async def test_seated_peer_stalling_mid_frame_or_idle_is_dropped(tmp_path):
    ids = [Identity.generate() for _ in range(2)]
    from .netutil import make_table as mk

    genesis = mk(ids, timeout=60, nonce=b"stall-f2")
    roster = {"certs": [tls.make_certificate(i) for i in ids], "addrs": [["127.0.0.1", p] for p in free_ports(2)]}
    store = GameStore(tmp_path / "0")
    node = GameNode(ids[0], genesis, roster, store, None, limits=Limits(frame_deadline=0.5, idle_timeout=1.5))
    ctx = tls.client_context(ids[1], roster["certs"])
    results = {}
    try:
        with trio.fail_after(20):
            async with trio.open_nursery() as n:
                await n.start(node.run)
                for mode in ("mid-frame", "idle"):
                    stream = await tls.connect("127.0.0.1", roster["addrs"][0][1], ctx, ids[0].public, timeout=5)
                    t0 = trio.current_time()
                    if mode == "mid-frame":
                        await stall_mid_frame(stream)
                    try:
                        while True:   # read what the node sends until it hangs up
                            if not await stream.receive_some(65536):
                                break
                    except (trio.BrokenResourceError, trio.ClosedResourceError):
                        pass
                    results[mode] = trio.current_time() - t0
                    await trio.aclose_forcefully(stream)
                # a seat reconnecting in a loop leaves no connection state behind
                opened = await reconnect_loop(lambda: tls.connect("127.0.0.1", roster["addrs"][0][1], ctx, ids[0].public, timeout=5), 20)
                assert opened == 20
                await trio.sleep(0.3)
                assert node.listener_stats.open == 0 and not node.listener_stats.by_addr
                assert ids[1].public not in node.conns
                n.cancel_scope.cancel()
    finally:
        store.close()
    assert results["mid-frame"] < 3.0, results     # dropped after FRAME_DEADLINE (0.5 s), not held for ever
    assert 1.0 < results["idle"] < 4.0, results    # dropped after IDLE_TIMEOUT (1.5 s)


# --------------------------------------------------------------------------- the limits are documented
def _limits_in_code() -> dict:
    """Every limit of protocol.md §13.1, by name, with its value in the code."""
    from cli import bots, joining, options, rematch, resuming, tables
    from p2p import discovery, internet, linkwatch, lobby, node

    out = {n: getattr(L, n) for n in dir(L) if n.isupper() and not n.startswith("_") and n != "DEFAULT"}
    out.update(L.protocol_limits())
    out.update(REPAIR_AFTER=P.REPAIR_AFTER, SEND_QUEUE_BYTES=node.SEND_QUEUE_BYTES, DIAL_TIMEOUT=node.DIAL_TIMEOUT,
               JOIN_TIMEOUT=lobby.JOIN_TIMEOUT, HANDSHAKE_TIMEOUT=tls.HANDSHAKE_TIMEOUT,
               DEFAULT_MAX_SERVICES=discovery.DEFAULT_MAX_SERVICES, RESOLVE_CONCURRENCY=discovery.RESOLVE_CONCURRENCY,
               EVENT_BUFFER=discovery.EVENT_BUFFER, MAX_SEATS=discovery.MAX_SEATS,
               MIN_REMATCH_SEATS=lobby.MIN_REMATCH_SEATS, REMATCH_WAIT=rematch.REMATCH_WAIT,
               AGAIN_PATIENCE=rematch.AGAIN_PATIENCE, ALONE_SAY=resuming.ALONE_SAY, ALONE_GIVE_UP=resuming.ALONE_GIVE_UP,
               BOT_ALONE=bots.BOT_ALONE, CONNECT_PATIENCE=joining.CONNECT_PATIENCE, RESOLVE_TIMEOUT=discovery.RESOLVE_TIMEOUT,
               UNICAST_MAX_ANSWERS=discovery.UNICAST_MAX_ANSWERS, PROBE_EVERY=tables.PROBE_EVERY,
               PROBE_TIMEOUT=tables.PROBE_TIMEOUT, PROBE_MISSES=tables.PROBE_MISSES,
               PROBE_CONCURRENCY=tables.PROBE_CONCURRENCY, INTERNET_DIAL_TIMEOUT=internet.INTERNET_DIAL_TIMEOUT,
               DIAL_RETRY_FIRST=internet.DIAL_RETRY_FIRST, DIAL_RETRY_MAX=internet.DIAL_RETRY_MAX,
               INTERNET_MIN_TIMEOUT=options.INTERNET_MIN_TIMEOUT,
               **{n: getattr(internet, n) for n in ("RELAY_MAX_RESERVATIONS", "RELAY_MAX_CIRCUITS", "RELAY_CIRCUIT_BYTES",
                                                    "RELAY_CIRCUIT_SECONDS", "RELAY_RESERVATION_SECONDS",
                                                    "YAMUX_WINDOW", "YAMUX_SLACK", "LIBP2P_FRAME_DEADLINE")},
               **{n: getattr(linkwatch, n) for n in ("SLOW_ROUND_TRIP", "SLOW_QUIET", "SLOW_HOLD", "MAX_PENDING")})
    return out


_UNITS = {"": 1, "s": 1, "h": 3600, "bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "MiB/s": 1 << 20}


def _doc_value(text: str) -> float:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(\S*)", text.strip())
    assert m and m.group(2) in _UNITS, "cannot read the value %r" % text
    return float(m.group(1)) * _UNITS[m.group(2)]


def _limits_in_doc() -> dict:
    """name -> value of every row of the table in protocol.md §13.1 (a row may name several
    limits, "`A` / `B` | 2 / 2")."""
    text = (ROOT / "protocol.md").read_text()
    section = text[text.index("### 13.1"):text.index("\n## 14.")]
    out = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        names = re.findall(r"`([A-Z][A-Z0-9_]*)`", cells[0])
        values = [v.strip() for v in cells[1].split(" / ")]
        assert len(names) == len(values), "row %r: %d names, %d values" % (cells[0], len(names), len(values))
        for name, value in zip(names, values):
            assert name not in out, "%s is in two rows of §13.1" % name
            out[name] = _doc_value(value)
    return out


def test_every_limit_is_in_protocol_md():
    """Every limit of the code is a row of protocol.md §13.1, and the row gives its value."""
    code, doc = _limits_in_code(), _limits_in_doc()
    assert len(code) >= 30
    missing = sorted(set(code) - set(doc))
    assert not missing, "not in the table of protocol.md §13.1: %s" % missing
    wrong = {n: (doc[n], code[n]) for n in code if doc[n] != code[n]}
    assert not wrong, "protocol.md §13.1 says (doc, code): %s" % wrong
    # and nothing in the table that the code does not have
    assert not sorted(set(doc) - set(code)), sorted(set(doc) - set(code))


def test_the_dial_timeouts_of_section_9_2_are_those_of_the_code():
    from p2p import node

    text = (ROOT / "protocol.md").read_text()
    sec = " ".join(text[text.index("### 9.2"):text.index("### 9.3")].split())
    m = re.search(r"Handshakes time out after (\d+) s \(listener\) / (\d+) s \(a game peer dialling a seat\) / (\d+) s \(a lobby joiner dialling the host\)", sec)
    assert m, "§9.2 does not give the three handshake time-outs"
    assert tuple(float(x) for x in m.groups()) == (L.HANDSHAKE_DEADLINE, node.DIAL_TIMEOUT, tls.HANDSHAKE_TIMEOUT)
    # the lobby joiner dials with tls.connect's default
    import inspect
    from p2p import lobby

    assert "tls.connect(host, port, ctx, None)" in inspect.getsource(lobby.join)
    assert inspect.signature(tls.connect).parameters["timeout"].default == tls.HANDSHAKE_TIMEOUT
