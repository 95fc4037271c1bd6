"""The outbox (cli/outbox.py): the one way a decided action goes from the UI thread to the node's trio
loop; an answer is taken for the question it answers, a withdrawn question gives None, a stale
answer is dropped, and posting to a node that is gone says so."""

from __future__ import annotations

import threading

import pytest
import trio

from cli.outbox import Decided, NodeStopped, Outbox


async def test_an_answer_posted_from_another_thread_is_taken_by_the_loop_that_listens():
    box, asked = Outbox(), object()
    box.listen()
    with trio.fail_after(10):
        await trio.to_thread.run_sync(box.post, Decided(asked, {"do": "bid", "amount": 12}))
        assert await box.take(asked) == {"do": "bid", "amount": 12}


async def test_a_stale_answer_is_dropped_and_a_withdrawn_question_gives_none():
    box, old, new = Outbox(), object(), object()
    box.listen()
    with trio.fail_after(10):
        box.post(Decided(old, {"do": "pass"}))         # answered after its step closed: nobody takes it
        box.post(Decided(new, {"do": "bid", "amount": 3}))
        box.post(Decided(new, {"do": "bid", "amount": 4}))   # twice: the first answer counts
        assert await box.take(new) == {"do": "bid", "amount": 3}
        later = object()
        box.withdraw(later)
        assert await box.take(later) is None


def test_posting_before_a_node_listens_or_after_its_loop_ended_says_the_node_is_gone():
    box = Outbox()
    with pytest.raises(NodeStopped):
        box.post(Decided(object(), {}))

    async def listen() -> None:
        box.listen()

    trio.run(listen)
    errors: list = []

    def post() -> None:
        try:
            box.post(Decided(object(), {}))
        except NodeStopped as exc:
            errors.append(exc)

    t = threading.Thread(target=post)
    t.start()
    t.join(10)
    assert len(errors) == 1


async def test_a_typed_move_reaches_the_node_through_the_outbox_once_and_decide_returns_it():
    """The shell's whole way from a key to the node: the move typed in the UI thread is checked, posted as
    one Decided, and the decide the node awaits returns it; the UI's thread never touches trio."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from cli.shell import GameUI
    from p2p.node import decision_of

    from .test_ui import Net, running, until

    net = Net(2)
    posted: list = []
    with trio.fail_after(20), create_pipe_input() as inp:
        ui = GameUI(0, input=inp, output=DummyOutput(), send_at_once=True)
        post = ui.outbox.post
        ui.outbox.post = lambda d: (posted.append((d, threading.current_thread())), post(d))[1]
        ui.update(net.table, [], "")
        got: dict = {}

        async def node() -> None:
            got["action"] = await ui.decide(decision_of(net.peers[0], 0, trio.current_time()))

        async with running(ui), trio.open_nursery() as n:
            n.start_soon(node)
            await until(lambda: ui.composer.deciding() is not None)
            inp.send_text("bid 3 12\r")
            inp.send_text("splash 1 2 b\r")
            inp.send_text("\r")                      # an empty line: submit
            await until(lambda: "action" in got)
        assert len(posted) == 1 and posted[0][1] is not threading.main_thread()
        decided = posted[0][0]
        assert got["action"] == decided.action and decided.asked.phase == net.table.phase
        assert ui.composer.sent.action == decided.action and ui.composer.asked is None
