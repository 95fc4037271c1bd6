"""Quiet when waiting (protocol.md §9.5): a table that waits for a person wakes each peer only
when something is due (``Peer.next_wakeup``): no periodic tick, 'have's only after a change or
as a keep-alive, votes re-sent only while a step has them.  Measured here on sans-IO peers with
a clock that jumps from one wake-up to the next (benchmarks/bench_idle.py measures real peers)."""

from __future__ import annotations

from core.encoding import decode
from p2p.protocol import KEEPALIVE, Broadcast
from p2p.timeouts import VOTE_RESEND

from .netutil import Sim

WINDOW = 60.0
FRAME = 4          # the length prefix of every frame (§9.1)


def settle(sim: Sim) -> None:
    """Run until nothing is queued and every peer waits for seat 0 (the person)."""
    def quiet() -> bool:
        return not sim.queue and all(p.waiting() == (0,) for p in sim.peers)
    sim.run_until(quiet, max_rounds=5_000)


def idle_window(sim: Sim, seconds: float) -> tuple[list[int], dict]:
    """Let the clock jump to each next wake-up for ``seconds``; deliver every message at once.
    Returns the ticks per peer and the bytes sent from each peer to each other."""
    end = sim.now + seconds
    wakes = [0] * sim.n
    sent: dict = {}
    for _ in range(100_000):
        while sim.queue:
            src, dst, msg = sim.queue.pop(0)
            sent[(src, dst)] = sent.get((src, dst), 0) + len(msg) + FRAME
            sim.deliver(src, dst, msg)
        nxt = min(p.next_wakeup() for p in sim.peers)
        if nxt > end:
            return wakes, sent
        sim.now = max(sim.now, nxt)
        for k, p in enumerate(sim.peers):
            if p.next_wakeup() <= sim.now:
                wakes[k] += 1
                sim.run(k, p.tick(sim.now))
    raise AssertionError("the peers never went quiet")


def test_a_table_waiting_for_a_person_wakes_each_peer_at_most_twice_a_second_and_sends_little():
    sim = Sim(6, seed=2, game="painting", timeout=600.0, tag="idle")
    sim.silent.add(0)
    sim.start()
    settle(sim)
    wakes, sent = idle_window(sim, WINDOW)
    assert all(p.waiting() == (0,) for p in sim.peers)          # still waiting: nothing timed out
    for k, w in enumerate(wakes):
        assert w / WINDOW <= 2.0, (k, wakes)
        assert w >= WINDOW / KEEPALIVE - 2, (k, wakes)          # but alive: a keep-alive each KEEPALIVE s
    for (src, dst), b in sent.items():
        assert b / WINDOW <= 200, (src, dst, b)


def test_an_event_wakes_the_peers_at_once_and_the_table_goes_on():
    """After a quiet spell the person's move is placed by every peer without waiting for a tick."""
    sim = Sim(3, seed=5, game="painting", timeout=600.0, tag="idle-move")
    sim.silent.add(0)
    sim.start()
    settle(sim)
    idle_window(sim, 10.0)
    phase = sim.peers[1].table.phase
    sim.silent.discard(0)
    sim.decide(0)
    while sim.queue:                                             # no tick at all: only deliveries
        src, dst, msg = sim.queue.pop(0)
        sim.deliver(src, dst, msg)
        sim.decide(dst)
    assert all(p.table.phase > phase for p in sim.peers)


def test_votes_are_resent_only_while_a_step_has_them_and_a_time_out_still_forms():
    sim = Sim(3, seed=7, game="painting", timeout=5.0, tag="idle-vote")
    sim.silent.add(0)
    sim.start()
    settle(sim)
    wakes, _ = idle_window(sim, 12.0)
    assert sim.peers[1].table.timeouts, "seat 0 was never timed out"
    logs = [p.log_entries for p in sim.peers]
    assert logs[0] == logs[1] == logs[2]
    assert max(wakes) <= 2.0 * 12.0 + 4
    votes = [m for k in range(3) for e in sim.effects_of(k, Broadcast) for m in [decode(e.msg)] if m[0] == "vote"]
    assert votes, "no vote was sent"
    # re-sent about once per VOTE_RESEND while the step had them, not on every wake-up
    assert len(votes) <= 3 * (12.0 / VOTE_RESEND + 2), len(votes)
