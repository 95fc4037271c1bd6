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
