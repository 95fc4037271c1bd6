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
