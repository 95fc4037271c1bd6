"""Table talk on the screen (issue 30, protocol.md §9.11): ``say TEXT`` typed in one seat's command line
shows on the other seat's screen at once (a real local table over loopback TLS: seat 0 a person's screen
through ``run_node``, seat 1 a GameNode whose screen ``ui_update`` keeps up to date); the " key types
``say`` for the player; a refused line says why in one line; a spectator is told it cannot talk.

Bounded in time (LIMIT s); only loopback addresses are used; nobody moves, nothing waits on a time-out.
"""

from __future__ import annotations

import trio
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from cli.runner import run_node, ui_update
from cli.shell import GameUI
from p2p import tls
from p2p.node import GameNode
from p2p.store import GameStore

from .netutil import DetRand, free_ports, identities, make_table
from .test_ui import Net, flat, running, until

LIMIT = 40
ENTER = "\r"


async def test_a_line_said_on_one_screen_shows_on_the_other_seats_screen(tmp_path, monkeypatch):
    monkeypatch.setenv("EASEL_HOME", str(tmp_path / "home"))
    ids = identities(2, "talk-ui")
    genesis = make_table(ids, "painting", None, timeout=300, nonce=b"talkui01", names=["Ann", "Bo"])
    roster = {"certs": [tls.make_certificate(i) for i in ids], "addrs": [["127.0.0.1", p] for p in free_ports(2)]}
    store = GameStore(tmp_path / "bo")
    with create_pipe_input() as inp:
        ann = GameUI(0, input=inp, output=DummyOutput())
        bo = GameUI(1, output=DummyOutput())
        never = trio.Event()

        async def thinks(*_a):          # Bo's person never moves: nothing here waits on a move
            await never.wait()

        node = GameNode(ids[1], genesis, roster, store, None, timeout=300, linger=1, rand=DetRand("talk-ui", 1),
                        on_change=lambda n: ui_update(bo, n))
        try:
            with trio.fail_after(LIMIT):
                async with trio.open_nursery() as nursery:
                    await nursery.start(node.run)
                    nursery.start_soon(lambda: run_node(ids[0], genesis, roster, ann.decide, timeout=300, seed="talk-ui", ui=ann))
                    await until(lambda: ann.on_say is not None and len(node.conns) == 1)
                    inp.send_text('"')                      # the key opens a line: "say " is typed for us
                    await until(lambda: ann._buffer.text == "say ")
                    inp.send_text("good luck, Bo!" + ENTER)
                    await until(lambda: "Ann: good luck, Bo!" in flat(bo))
                    assert "Ann (you): good luck, Bo!" in flat(ann)
                    inp.send_text("say" + ENTER)
                    await until(lambda: "say what?" in flat(ann))
                    inp.send_text("say " + "x" * 300 + ENTER)
                    await until(lambda: "not said: the line is too long" in flat(ann))
                    assert "x" * 300 not in flat(bo)
                    nursery.cancel_scope.cancel()
        except trio.TooSlowError:
            raise AssertionError("not done in %d s; Ann's screen:\n%s\nBo's screen:\n%s"
                                 % (LIMIT, ann.render_text(), bo.render_text())) from None
        finally:
            store.close()


async def test_a_spectator_who_types_say_is_told_it_cannot_talk():
    net = Net(2, {"rounds": 1})
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(None, input=inp, output=DummyOutput())
            ui.update(net.table, [], "")
            async with running(ui):
                inp.send_text("say hello" + ENTER)
                await until(lambda: "spectators cannot talk" in flat(ui))


async def test_a_spectator_sees_a_line_at_once_through_the_said_frame(tmp_path):
    """Real nodes on loopback (nobody moves): Bo says a line; a spectator watching through Ann gets it in a
    ``said`` frame (checked: a seat's signed line) before anything is placed."""
    from p2p.watch import watch

    from .netutil import build_table
    from .test_network import GAMES

    ids, genesis, roster, stores = build_table(2, tmp_path)
    nodes = [GameNode(ids[k], genesis, roster, stores[k], None, timeout=300) for k in range(2)]
    seen: list = []
    try:
        with trio.fail_after(LIMIT):
            async with trio.open_nursery() as n:
                for node in nodes:
                    await n.start(node.run)

                async def spectator():
                    await watch("127.0.0.1", roster["addrs"][0][1], lambda w: seen.append(w.talk()), games=GAMES)

                n.start_soon(spectator)
                try:
                    with trio.fail_after(15):
                        # the first move step: it waits for the persons, who never move (the log stays as it is)
                        await until(lambda: len(nodes[1].conns) == 1 and nodes[0].watching == 1
                                    and all(nd.peer.needs_decision() for nd in nodes) and seen)
                except trio.TooSlowError:
                    raise AssertionError("conns %d watching %d" % (len(nodes[1].conns), nodes[0].watching))
                count = nodes[0].peer.table.count
                assert nodes[1].say("hello, watchers") == ""
                assert nodes[1].say("again") == "one line a second: wait a moment"
                try:
                    with trio.fail_after(15):
                        await until(lambda: seen and [d["text"] for d in seen[-1]] == ["hello, watchers"])
                except trio.TooSlowError:
                    raise AssertionError("seen %r; ann holds %r" % (seen[-3:], nodes[0].peer.unplaced_talk()))
                assert nodes[0].peer.table.count == count           # shown, not placed: nobody moved
                n.cancel_scope.cancel()
    finally:
        for s in stores:
            s.close()
