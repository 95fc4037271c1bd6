"""Rematch (easel again): the same seats, names, game and options; a new genesis naming the game before."""

from __future__ import annotations

import functools
import json
import os
import shutil

import pytest
import trio

from core.events import EntryError, check_genesis_doc, parse_genesis
from core.logfile import parse as parse_log
from p2p import tls
from p2p.identity import Identity
from p2p.lobby import HostedTable, LobbyError, join

from .netutil import easel


_FINISHED: dict = {}


def _one_finished_game(home):
    """Ann (a random bot of the host's own) plays one 1-round Painting game against one bot: its log, in
    ``home``. The game is played once per session (each test reads its game, none plays it): later calls get
    a copy of that home, the one place it names itself (local-bots.json, the bot's home) made theirs."""
    if "home" not in _FINISHED:
        r = easel("host", "--auto", "random", "--players", "2", "--bots", "1", "--bind", "127.0.0.1", "--no-advertise",
                  "--name", "Ann", "--option", "rounds=1", home=home, timeout=120)
        assert r.returncode == 0, r.stderr
        kept = home.parent / "finished-home"
        shutil.copytree(home, kept, symlinks=True)
        _FINISHED["home"] = kept
    else:
        kept = _FINISHED["home"]
        shutil.copytree(kept, home, symlinks=True)
        for f in home.glob("games/*/local-bots.json"):
            f.write_text(f.read_text().replace(json.dumps(str(kept))[1:-1], json.dumps(str(home))[1:-1]))
    (log,) = home.glob("games/*/log")
    return log


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
    # one round each: what is checked is the link between the games, not their length
    r = easel("host", "--auto", "random", "--players", "3", "--bots", "2", "--bind", "127.0.0.1", "--no-advertise",
              "--name", "Ann", "--option", "rounds=1", home=home, timeout=120)
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
    assert g[second].doc["config"] == g[first[0]].doc["config"] and g[second].doc["config"]["rounds"] == 1
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

    from cli.rematch import again_main, then_again
    from cli.shell import GameUI

    from .test_ui import LIMIT, Net, flat, running, until

    home = tmp_path / "home"
    log = _one_finished_game(home)
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


def _rematch(host, keys, names, previous, game="painting"):
    return HostedTable(host, game, len(keys), {}, 40201, "127.0.0.1", timeout=30, name=names[0], previous=previous,
                       order=list(keys), names=list(names))


async def _until(cond):
    while not cond():
        await trio.sleep(0.01)


async def test_a_seat_that_declines_is_left_out_and_the_others_are_renumbered_in_their_old_order():
    """Issue 19: "when all seats that want to play have said so ... a new table with the same seats"."""
    from p2p.lobby import decline, decline_msg

    host, a, b, c = (Identity.generate() for _ in range(4))
    prev = bytes(range(32))
    ht = _rematch(host, [host.public, a.public, b.public, c.public], ["Ann", "Bo", "Cy", "Di"], prev)
    seen = []
    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            port = await n.start(tls.serve, 0, tls.server_context(host, None), ht.handle, "127.0.0.1")
            # a no is signed by its own key and bound to this host and this game: nobody says no for another seat
            forged = ["decline", 1, b.public, a.sign(b"x" * 32)]
            with pytest.raises(LobbyError, match="not signed by its key"):
                ht._decline(forged)
            with pytest.raises(LobbyError, match="only the seats of the game before"):
                await decline("127.0.0.1", port, Identity.generate(), prev)
            with pytest.raises(LobbyError, match="not signed by its key"):
                await decline("127.0.0.1", port, b, bytes(32))           # a no for another game
            assert not ht.declined
            async with trio.open_nursery() as jn:
                jn.start_soon(functools.partial(join, "127.0.0.1", port, c, 40213, name="Di", previous=prev, about={},
                                                on_seats=seen.append))
                await _until(lambda: len(ht.seats) == 2)
                await decline("127.0.0.1", port, b, prev)                # Cy (seat 2) will not play again
                assert ht.declined == {b.public} and not ht.full.is_set()
                await _until(lambda: any(s[2]["kind"] == "out" for s in seen))
                # the no is taken back by coming to the table (before it starts)
                with pytest.raises(LobbyError, match="already back"):
                    ht._decline(["decline", 1, c.public, c.sign(decline_msg(host.public, prev, c.public))])
                jn.start_soon(functools.partial(join, "127.0.0.1", port, a, 40212, name="Bo", previous=prev))
                genesis, roster = await ht.seal()
            with pytest.raises(LobbyError, match="started without that seat"):
                await decline("127.0.0.1", port, b, prev)
            n.cancel_scope.cancel()
    from p2p.lobby import describe_seats

    shown = [s for s in seen if s[2]["kind"] == "out"][0]
    assert "Cy (will not play again)" in describe_seats(shown, 3) and "Bo (not back yet)" in describe_seats(shown, 3)
    assert genesis.doc["seats"] == [host.public, a.public, c.public]          # dense: Di is seat 2 now
    assert genesis.doc["names"] == ["Ann", "Bo", "Di"] and genesis.doc["previous"] == prev
    assert len(roster["certs"]) == 3 and ht.players == 3


async def test_after_the_wait_the_rematch_starts_with_who_is_here_and_never_seats_the_others():
    host, a, b = (Identity.generate() for _ in range(3))
    prev = bytes(range(1, 33))
    ht = _rematch(host, [host.public, a.public, b.public], ["Ann", "Bo", "Cy"], prev)
    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            port = await n.start(tls.serve, 0, tls.server_context(host, None), ht.handle, "127.0.0.1")
            async with trio.open_nursery() as jn:
                jn.start_soon(functools.partial(join, "127.0.0.1", port, b, 40211, name="Cy", previous=prev))
                await _until(lambda: len(ht.seats) == 2)
                jn.start_soon(ht.start_with_who_is_here, 0)              # Bo neither came back nor said no
                genesis, _ = await ht.seal()
            with pytest.raises(LobbyError, match="started without that seat"):
                await join("127.0.0.1", port, a, 40212, name="Bo", previous=prev)
            n.cancel_scope.cancel()
    assert genesis.doc["seats"] == [host.public, b.public] and genesis.doc["names"] == ["Ann", "Cy"]
    assert genesis.doc["previous"] == prev


async def test_a_rematch_too_small_for_the_game_ends_with_words_for_every_seat_present():
    """Modern Art is for 3 to 5 players: a 3-seat rematch where one says no cannot be played."""
    from p2p.lobby import decline

    host, a, b = (Identity.generate() for _ in range(3))
    prev = bytes(range(2, 34))
    ht = _rematch(host, [host.public, a.public, b.public], ["Ann", "Bo", "Cy"], prev, game="modern-art")
    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            port = await n.start(tls.serve, 0, tls.server_context(host, None), ht.handle, "127.0.0.1")
            errors = []

            async def bo():
                try:
                    await join("127.0.0.1", port, a, 40212, name="Bo", previous=prev)
                except LobbyError as exc:
                    errors.append(str(exc))

            async with trio.open_nursery() as jn:
                jn.start_soon(bo)
                await _until(lambda: len(ht.seats) == 2)
                await decline("127.0.0.1", port, b, prev)
                with pytest.raises(LobbyError, match="too few seats want to play again for this game"):
                    await ht.seal()
            n.cancel_scope.cancel()
    assert errors and "too few seats want to play again" in errors[0]
    assert ht.genesis is None


def test_a_rematch_where_one_seat_says_no_and_a_bot_of_another_machine_comes_back(tmp_path):
    """Issue 19's done-means on loopback: Ann hosts with her own bot; Bo is a bot another machine started
    with ``easel bot --again``, Cy one started without it. After game over Cy says no (easel again
    --decline); Ann's easel again restarts her bot and Bo comes back by itself: the rematch is Ann, her
    bot and Bo in their old order (Cy's seat gone), a second valid log whose genesis names the first."""
    import signal
    import time

    from core.table import replay
    from core import games as registry

    from .netutil import finish_procs, free_ports, logs_under, spawn_easel

    ann, bo, cy = (tmp_path / h for h in ("ann", "bo", "cy"))
    port = free_ports(1)[0]
    host = spawn_easel(["host", "--auto", "random", "--players", "4", "--bots", "1", "--port", str(port), "--bind",
                        "127.0.0.1", "--no-advertise", "--name", "Ann", "--option", "rounds=1"], ann)
    target = "127.0.0.1:%d" % port
    bo_p = spawn_easel(["bot", "--join", target, "--level", "random", "--name", "Bo", "--again"], bo)
    cy_p = spawn_easel(["bot", "--join", target, "--level", "random", "--name", "Cy"], cy)
    try:
        (rh, _, eh), (rc_, _, ec) = finish_procs([host, cy_p], 180)
        assert rh == 0 and rc_ == 0, (eh, ec)
        (first,) = logs_under(ann)
        (cy_first,) = logs_under(cy)
        g1 = parse_genesis(parse_log(first.read_bytes()).entries[0])
        cy_key = g1.doc["seats"][g1.doc["names"].index("Cy")]
        no = spawn_easel(["again", "--decline", str(cy_first.parent)], cy)     # knocks until the lobby opens
        r = easel("again", first.parent, "--level", "random", home=ann, timeout=240)
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
        assert "rematch lobby open on port" in r.stderr and "waiting up to 120 s for the old seats" in r.stderr
        assert "Cy (will not play again)" in r.stderr        # the host's seats line once Cy said no
        ((rn, out_no, err_no),) = finish_procs([no], 60)
        assert rn == 0 and "the rematch goes on without you" in out_no, (out_no, err_no)
        second = [p for p in logs_under(ann) if p != first]
        assert len(second) == 1
        g2 = parse_genesis(parse_log(second[0].read_bytes()).entries[0])
        assert g2.doc["previous"] == g1.game_id
        assert g2.doc["seats"] == [k for k in g1.doc["seats"] if k != cy_key]          # old order, Cy's seat gone
        assert g2.doc["names"] == [n for n in g1.doc["names"] if n != "Cy"] and "Bo" in g2.doc["names"]
        audit = easel("audit", "--json", second[0], home=ann)
        rep = json.loads(audit.stdout)
        assert audit.returncode == 0 and rep["valid"] and rep["complete"] and len(rep["names"]) == 3
        # Bo (another machine's bot) played the rematch by itself: its own copy of the second game, over
        deadline = time.monotonic() + 120
        while True:
            mine = [p for p in logs_under(bo) if p.parent.name == g2.game_id.hex()]
            try:
                if mine and replay(parse_log(mine[0].read_bytes()).entries, registry).over:
                    break
            except Exception:           # read while an entry is being appended: look again
                pass
            assert time.monotonic() < deadline and bo_p.poll() is None, "Bo did not play the rematch"
            time.sleep(0.2)
        assert not any(p.parent.name == g2.game_id.hex() for p in logs_under(cy))    # Cy was not pulled in
    finally:
        for p in (host, bo_p, cy_p):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        finish_procs([bo_p], 30)


async def test_n_at_game_over_says_no_to_the_rematch_through_the_runner(tmp_path, monkeypatch):
    """At game over a seat presses n: the UI closes with ``decline`` set (not ``again``) and the runner
    does what ``easel again --decline GAME_DIR`` does; mid-game n is an ordinary word for the screen."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from cli.rematch import decline_main, then_again
    from cli.shell import HELP_GAME_OVER, GameUI

    from .test_ui import LIMIT, Net, flat, running, until

    home = tmp_path / "home"
    log = _one_finished_game(home)
    monkeypatch.setenv("EASEL_HOME", str(home))
    over = Net(2, {"rounds": 1})
    over.bots()
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:             # a spectator is not asked
            ui = GameUI(None, input=inp, output=DummyOutput())
            ui.update(over.table, [], "")
            async with running(ui):
                inp.send_text("no\r")
                await until(lambda: "only the seats are asked for a rematch" in flat(ui))
                assert not ui.decline and not ui.closed
        with create_pipe_input() as inp:
            ui = GameUI(1, input=inp, output=DummyOutput())
            ui.update(over.table, [], "game over")
            assert "n no rematch" in HELP_GAME_OVER and "n says no to a rematch" in flat(ui)
            async with running(ui):
                inp.send_text("n")
                await until(lambda: ui.closed)
    assert ui.decline and not ui.again
    calls = []

    def run(fn, args, *rest):
        calls.append((fn, args.dir))
        return 0

    def make(node_seat):
        raise AssertionError("no UI after a no")

    make.last = ui
    ui.game_dir = log.parent
    assert then_again(5, make, run=run) == 5                    # the game's own exit code stays
    assert calls == [(decline_main, str(log.parent))] and make.last is None


def test_easel_again_decline_from_seat_0_or_with_no_lobby_says_so_in_words(tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    log = _one_finished_game(home)
    r = easel("again", "--decline", log.parent, home=home)
    assert r.returncode == 0 and "you were seat 0, the rematch's host" in r.stdout, r.stdout + r.stderr
    # the bot's seat (its own home): no lobby opens; it knocks, then gives up in words (patience shortened)
    (bot_log,) = (home / "bots" / "bot-1").glob("games/*/log")
    from cli.options import LiveArgs
    from cli.rematch import decline_main

    args = LiveArgs(cmd="again", dir=str(bot_log.parent), decline=True, patience=0.5)
    monkeypatch.setenv("EASEL_HOME", str(home / "bots" / "bot-1"))
    assert trio.run(decline_main, args) == 0
    assert "no rematch lobby opened at 127.0.0.1:" in capsys.readouterr().out


def test_the_rematch_joiners_waiting_line_says_what_it_waits_for_on_one_terminal_line(monkeypatch):
    """Seen in tmux at 100x30: the joiner's waiting line was longer than the terminal, so each redraw
    (\\r on its wrapped second row) left a copy; a rematch's seat number is not the game's yet either."""
    import io

    from cli.joining import Connecting

    monkeypatch.setenv("COLUMNS", "100")
    out = io.StringIO()
    c = Connecting("127.0.0.1:38893", stream=out, live=True, rematch=True)
    c.on_seated(1, 3, "painting")
    drawn = out.getvalue().split("\r\x1b[K")[-1]
    assert drawn.startswith("easel: in the rematch lobby 127.0.0.1:38893: waiting for the other seats... ")
    assert len(drawn) < 100 and "seat 1 of 3" not in drawn
    c.t0 -= 119.6                                   # two minutes later: still one line at 100 columns
    c.show()
    assert "120 s (Ctrl-C cancels)" in out.getvalue().split("\r\x1b[K")[-1]


async def test_a_rematch_knock_that_reaches_the_old_game_still_on_the_port_knocks_again():
    """Seen under load: a seat knocked while the old seat 0's finished game still held its play port;
    what answered there closed the connection, and the seat gave up for good. A rematch joiner that
    is not seated yet knocks again until its patience ends (a lobby's own refusal stays final)."""
    from cli.common import UsageError
    from cli.joining import reach_table

    host, a = Identity.generate(), Identity.generate()
    prev = bytes(range(3, 35))
    hit = trio.Event()

    async def old_game(stream):           # not a lobby: takes the frame and hangs up
        hit.set()
        await trio.aclose_forcefully(stream)

    got = []
    with trio.fail_after(30):
        async with trio.open_nursery() as n:
            old = trio.CancelScope()

            async def serve_old(task_status=trio.TASK_STATUS_IGNORED):
                with old:
                    await tls.serve(0, tls.server_context(host, None), old_game, "127.0.0.1", task_status=task_status)

            port = await n.start(serve_old)

            async def knock():
                got.append(await reach_table("127.0.0.1", port, a, 40215, name="Bo", expect_fp=None, progress=None,
                                             patience=20, about={}, previous=prev))

            n.start_soon(knock)
            await hit.wait()
            old.cancel()                                              # the old game ends and frees the port
            ht = _rematch(host, [host.public, a.public], ["Ann", "Bo"], prev)
            await n.start(tls.serve, port, tls.server_context(host, None), ht.handle, "127.0.0.1")
            genesis, _ = await ht.seal()
            while not got:
                await trio.sleep(0.01)
            n.cancel_scope.cancel()
    assert got[0][0].game_id == genesis.game_id and genesis.doc["previous"] == prev
    # a lobby's refusal is final: a stranger to the old game is not let in however long it knocks
    ht2 = _rematch(host, [host.public, a.public], ["Ann", "Bo"], prev)
    with trio.fail_after(30):
        async with trio.open_nursery() as n:
            port = await n.start(tls.serve, 0, tls.server_context(host, None), ht2.handle, "127.0.0.1")
            with pytest.raises(UsageError, match="only the seats of the game before"):
                await reach_table("127.0.0.1", port, Identity.generate(), 40216, name="Eve", expect_fp=None, progress=None,
                                  patience=20, about={}, previous=prev)
            n.cancel_scope.cancel()
