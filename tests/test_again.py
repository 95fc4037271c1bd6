"""Rematch (easel again): the same seats, names, game and options; a new genesis naming the game before."""

from __future__ import annotations

import functools
import json
import os

import pytest
import trio

from core.events import EntryError, check_genesis_doc, parse_genesis
from core.logfile import parse as parse_log
from p2p import tls
from p2p.identity import Identity
from p2p.lobby import HostedTable, LobbyError, join

from .netutil import easel


def test_previous_must_be_a_game_id():
    doc = {"game": "toy", "config": {}, "seats": [bytes(32)], "table": b"t"}
    check_genesis_doc(dict(doc, previous=bytes(range(32))))
    for bad in (b"x", "ab" * 32, 5):
        with pytest.raises(EntryError, match="previous"):
            check_genesis_doc(dict(doc, previous=bad))


async def test_a_rematch_lobby_admits_only_the_old_seats_and_keeps_their_order():
    host, a, b, stranger = (Identity.generate() for _ in range(4))
    prev = bytes(range(32))
    ht = HostedTable(host, "painting", 3, {}, 40201, "127.0.0.1", timeout=30, name="Ann", previous=prev,
                     order=[host.public, a.public, b.public])
    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            port = await n.start(tls.serve, 0, tls.server_context(host, None), ht.handle, "127.0.0.1")
            with pytest.raises(LobbyError, match="only the seats of the game before"):
                await join("127.0.0.1", port, stranger, 40210, name="Eve")
            async with trio.open_nursery() as jn:
                # b comes back first, a second: the rematch still seats a before b, as before
                jn.start_soon(functools.partial(join, "127.0.0.1", port, b, 40211, name="Cy", previous=prev))
                while ht.open_seats != 1:
                    await trio.sleep(0.01)
                jn.start_soon(functools.partial(join, "127.0.0.1", port, a, 40212, name="Bo", previous=prev))
                genesis, _ = await ht.seal()
            n.cancel_scope.cancel()
    assert genesis.doc["seats"] == [host.public, a.public, b.public]
    assert genesis.doc["names"] == ["Ann", "Bo", "Cy"] and genesis.doc["previous"] == prev


def test_again_with_the_hosts_own_bots_plays_a_second_linked_game(tmp_path):
    home = tmp_path / "home"
    r = easel("host", "--auto", "random", "--players", "3", "--bots", "2", "--bind", "127.0.0.1", "--no-advertise",
              "--name", "Ann", home=home, timeout=120)
    assert r.returncode == 0, r.stderr
    first = sorted(home.glob("games/*/log"))
    assert len(first) == 1
    r = easel("again", first[0].parent, "--level", "random", home=home, timeout=120)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    logs = sorted(home.glob("games/*/log"))
    assert len(logs) == 2
    g = {p: parse_genesis(parse_log(p.read_bytes()).entries[0]) for p in logs}
    (second,) = [p for p in logs if p != first[0]]
    assert g[second].doc["previous"] == g[first[0]].game_id
    assert g[second].doc["seats"] == g[first[0]].doc["seats"] and g[second].doc["names"] == g[first[0]].doc["names"]
    audit = easel("audit", "--json", second, home=home)
    rep = json.loads(audit.stdout)
    assert rep["valid"] and rep["complete"] and rep["names"][0] == "Ann"
    # a game that is not over cannot be played again (it is resumed)
    r = easel("again", tmp_path, home=home)
    assert r.returncode == 2 and "not a game directory" in r.stderr
    os.truncate(second, 200)
    r = easel("again", second.parent, "--level", "random", home=home)
    assert r.returncode == 2 and "not over" in r.stderr and "Traceback" not in r.stderr


async def test_a_at_game_over_asks_the_runner_for_the_rematch(tmp_path, monkeypatch):
    """At game over a seat presses a (through the UI's pipe input, as a player would): the UI closes
    with ``again`` set, and the runner (then_again) does what ``easel again GAME_DIR`` does for that
    game, in the same process; its exit code is the rematch's. Before the end, or for a spectator,
    ``again`` is refused with words."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from cli.live import again_main, then_again
    from cli.shell import GameUI

    from .test_ui import LIMIT, Net, flat, running, until

    home = tmp_path / "home"
    r = easel("host", "--auto", "random", "--players", "2", "--bots", "1", "--bind", "127.0.0.1", "--no-advertise",
              "--name", "Ann", "--option", "rounds=1", home=home, timeout=120)
    assert r.returncode == 0, r.stderr
    (log,) = home.glob("games/*/log")
    monkeypatch.setenv("EASEL_HOME", str(home))

    mid, over = Net(2, {"rounds": 1}), Net(2, {"rounds": 1})
    over.bots()
    assert over.table.over and not mid.table.over
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:             # mid-game: no rematch yet, the UI stays
            ui = GameUI(0, input=inp, output=DummyOutput())
            ui.update(mid.table, [], "")
            async with running(ui):
                inp.send_text("again\r")
                await until(lambda: "the game is not over yet" in flat(ui))
                assert not ui.closed and not ui.again
        with create_pipe_input() as inp:             # a spectator cannot ask
            ui = GameUI(None, input=inp, output=DummyOutput())
            ui.update(over.table, [], "")
            async with running(ui):
                inp.send_text("again\r")
                await until(lambda: "only the seats can play again" in flat(ui))
                assert not ui.again
        with create_pipe_input() as inp:
            ui = GameUI(0, input=inp, output=DummyOutput())
            ui.update(over.table, [], "game over")
            assert "a again (rematch)" in ui.render_text() and "a plays again with the same seats" in flat(ui)
            async with running(ui):
                inp.send_text("a")
                await until(lambda: ui.closed)
    assert ui.again
    calls = []

    def make(node_seat):
        raise AssertionError("the fake run makes no UI")

    def run(fn, args, factory):
        calls.append((fn, args.dir, args.level, factory))
        return 7

    make.last = ui
    assert then_again(0, make, run=run) == 0 and not calls      # no game directory given: nothing to rematch
    ui.game_dir = log.parent                                     # as run_node sets it at game over
    assert then_again(0, make, run=run) == 7                     # the rematch's own exit code
    assert calls == [(again_main, str(log.parent), None, make)] and make.last is None
    make.last = ui
    ui.game_dir = tmp_path                                       # not a game: refused as easel again refuses it
    assert then_again(0, make, run=run) == 2 and len(calls) == 1
