"""What a step costs a peer (issue 17): no pass through the scheduler, no wake-up, that the step
does not need.  Six peers share two cores in the latency benchmark, so every needless trip of a
task through trio's run loop (tens of microseconds each, several per frame) is latency."""

from __future__ import annotations

import trio
import trio.testing

from cli.runner import bot_decider
from p2p.framing import FramedStream, encode_frame
from p2p.node import GameNode

from .netutil import Sim, build_table, run_nodes


class _Steps(trio.abc.Instrument):
    """Counts the times one task is run by the scheduler (once, plus once per pass it makes)."""

    def __init__(self, task) -> None:
        self.task = task
        self.n = 0

    def before_task_step(self, task) -> None:
        if task is self.task:
            self.n += 1


async def _passes(fn) -> int:
    """How many times the calling task goes back through the scheduler while ``await fn()`` runs."""
    ins = _Steps(trio.lowlevel.current_task())
    trio.lowlevel.add_instrument(ins)
    try:
        await fn()
    finally:
        trio.lowlevel.remove_instrument(ins)
    return ins.n


async def test_a_frame_adds_no_pass_through_the_scheduler_to_its_stream_s_own():
    """FramedStream's locks (frames stay whole) cost nothing while free: receiving or sending a
    frame goes through the scheduler exactly as often as the stream's own receive_some / send_all."""
    a, b = trio.testing.memory_stream_pair()
    fa, fb = FramedStream(a), FramedStream(b)
    await a.send_all(encode_frame(b"one"))
    bare_receive = await _passes(lambda: b.receive_some(1 << 16))
    await a.send_all(encode_frame(b"two"))
    got = []

    async def receive() -> None:
        got.append(await fb.receive(idle=5.0, frame=5.0))

    assert await _passes(receive) == bare_receive
    assert got == [b"two"]
    bare_send = await _passes(lambda: a.send_all(encode_frame(b"three")))
    assert await _passes(lambda: fa.send(b"four")) == bare_send
    assert await fb.receive() == b"three" and await fb.receive() == b"four"


async def test_frames_read_together_are_still_handed_out_one_pass_each():
    """Frames decoded from one read are returned without I/O, but each still lets the other tasks
    run (a burst of frames never holds the event loop for itself)."""
    a, b = trio.testing.memory_stream_pair()
    fb = FramedStream(b)
    await a.send_all(b"".join(encode_frame(b"f%d" % k) for k in range(5)))
    assert await fb.receive() == b"f0"
    for k in range(1, 5):
        got = []

        async def receive() -> None:
            got.append(await fb.receive())

        assert await _passes(receive) == 1      # one pass through the scheduler, no I/O
        assert got == [b"f%d" % k]


async def test_inputs_wake_the_ticker_only_when_they_bring_its_wake_up_forward(tmp_path):
    """Every frame used to wake each peer's ticker, which then found nothing due; now an input
    wakes it only when ``Peer.next_wakeup`` moved before the moment it sleeps until (a new step's
    clock, a due vote or 'have'), and the game still ends the same at every seat."""
    ids, genesis, roster, stores = build_table(6, tmp_path)
    nodes = [GameNode(ids[k], genesis, roster, stores[k], bot_decider("painting", "random", "seed"), timeout=60, linger=5)
             for k in range(6)]
    await run_nodes(nodes, stores, 60)
    for node in nodes:
        assert node.failed is None and node.peer.table.over
        assert node.inputs > 50
        # each step still wakes it (its clock starts), and so do the 'have' timer and the end of the game
        assert node.pokes < 0.7 * node.inputs, (node.pokes, node.inputs)
    logs = [(tmp_path / str(k) / "log").read_bytes() for k in range(6)]
    assert all(lg == logs[0] for lg in logs)


def test_a_step_an_input_makes_current_starts_its_clock_at_that_input_without_a_tick():
    """protocol.md §9.5: a step's clock starts when the step becomes current.  With the shell's
    clock that is the input that opened it (no tick, so no wake-up, is needed for it): its
    deadline is known at once, the input's time plus the step's time."""
    sim = Sim(3, seed=3, game="painting", timeout=30.0, tag="clock", clock=True)   # the clock a shell gives (GameNode)
    sim.now = 5.0
    sim.start()
    opened = 0
    for _ in range(20_000):
        if not sim.queue:
            break
        src, dst, msg = sim.queue.pop(0)
        p = sim.peers[dst]
        phase = p.table.phase
        sim.now += 0.25
        sim.deliver(src, dst, msg)
        st = p.table.step
        if p.table.phase != phase and st is not None:
            opened += 1
            assert p.deadline() == sim.now + p.step_timeout(st)      # no tick has run since the input
        sim.decide(dst)
    assert opened >= 10
