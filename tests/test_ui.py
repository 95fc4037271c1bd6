"""The terminal UI (cli/ui.py), driven through prompt-toolkit's pipe input.

A real table comes from sans-IO peers (p2p.protocol.Peer) exchanging their
messages in memory; bots play the seats the test does not play itself.
"""

from __future__ import annotations

import random
from collections import deque
from contextlib import asynccontextmanager

import pytest
import trio
from nacl.signing import SigningKey
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from cli.ui import CommandError, GameUI, ReplayUI, parse_space
from core.events import game_id_of, genesis_sign_msg, make_genesis
from core.games.painting import HeuristicBot
from core.rng import Rng
from p2p.protocol import Broadcast, Peer, Send

ENTER = "\r"
CTRL_Q = "\x11"
RIGHT = "\x1b[C"
LEFT = "\x1b[D"
HOME = "\x1b[H"
END = "\x1b[F"
LIMIT = 20  # seconds for any one test


# --------------------------------------------------------------------------- an in-memory table


class Net:
    """n sans-IO peers wired together in memory."""

    def __init__(self, n: int = 2, config: dict | None = None, seed: int = 7) -> None:
        sks = [SigningKey(bytes([seed, i + 1]) * 16) for i in range(n)]
        self.pubs = [k.verify_key.encode() for k in sks]
        doc = {"game": "painting", "config": config or {}, "seats": self.pubs, "table": b"t"}
        gid = game_id_of(doc)
        self.genesis = make_genesis(doc, [k.sign(genesis_sign_msg(gid)).signature for k in sks])
        rng = random.Random(seed)
        self.peers = [
            Peer(self.genesis, self.pubs[i], (lambda m, k=k: k.sign(m).signature), rng.randbytes)
            for i, k in enumerate(sks)
        ]
        self.queue: deque = deque()
        for i, p in enumerate(self.peers):
            for j in range(n):
                if i != j:
                    self._effects(i, p.connected(self.pubs[j]))
        for i, p in enumerate(self.peers):
            self._effects(i, p.start())
        self.pump()

    def _effects(self, i: int, effects: list) -> None:
        for e in effects:
            if isinstance(e, Send):
                self.queue.append((self.pubs.index(e.to), self.pubs[i], e.msg))
            elif isinstance(e, Broadcast):
                for j in range(len(self.peers)):
                    if j != i:
                        self.queue.append((j, self.pubs[i], e.msg))

    def pump(self) -> None:
        budget = 200_000
        while self.queue and budget:
            budget -= 1
            j, frm, msg = self.queue.popleft()
            self._effects(j, self.peers[j].receive(frm, msg))

    def act(self, seat: int, action: dict) -> None:
        self._effects(seat, self.peers[seat].act(action))
        self.pump()

    def bots(self, seats=None, upto_round: int | None = None) -> None:
        """Let bots move for ``seats`` (all by default) until nobody of them can, or ``upto_round`` starts."""
        while True:
            t = self.peers[0].table
            if t.over or (upto_round is not None and t.state is not None and t.state.round >= upto_round
                          and t.state.moves == (None,) * t.players):
                return
            moved = False
            for i, p in enumerate(self.peers):
                if (seats is None or i in seats) and p.needs_decision():
                    v = p.table.view(i)
                    self.act(i, HeuristicBot().choose(v, i, Rng(bytes(32), "bot/%d/%d" % (i, v["round"]))))
                    moved = True
            if not moved:
                return

    @property
    def table(self):
        return self.peers[0].table


async def until(pred, interval: float = 0.01) -> None:
    while not pred():
        await trio.sleep(interval)


@asynccontextmanager
async def running(ui):
    """Run ``ui`` in its thread for the block; make sure the thread has stopped afterwards."""
    async with trio.open_nursery() as n:
        n.start_soon(ui.run)
        try:
            yield n
        finally:
            ui.exit()
    assert ui.closed


# --------------------------------------------------------------------------- rendering


def test_render_text_shows_table_state():
    net = Net(2)
    ui = GameUI(0, input=None, output=DummyOutput())
    ui.update(net.table, ["seat 1 equivocated"], "2/2 peers connected")
    text = ui.render_text()
    assert "you are seat 0" in text and "round 1/6" in text
    assert " 0  W  W  W  W  W" in text                     # the white grid, row label 0
    assert "seat 0 (you)" in text and "30" in text          # tokens
    assert "Sheets on offer" in text and "#1 v" in text and "#10 v" in text
    assert "waiting for you, seat 1" in text
    assert "seat 1 equivocated" in text and "2/2 peers connected" in text
    # a peer's table lists every seat until the step closes; the node may say better
    ui.update(net.table, [], "", waiting=[1])
    assert "waiting for seat 1" in ui.render_text()

    net.bots(upto_round=3)
    ui.update(net.table, [], "")
    text = ui.render_text()
    v = net.table.view(0)
    for r in range(5):
        assert " %d  %s" % (r, "  ".join(c["colour"] for c in v["grid"][r])) in text
    assert "round 3/6" in text and "Round 2 results" in text
    assert "r1  seat 0 (you) bids" in text and "r2  seat 1 bids" in text
    for s in range(2):
        assert "%4d" % v["tokens"][s] in text
    for s in range(2):
        for h in v["owned"][s]:
            assert "#%d v%d" % (h["id"], h["value"]) in text


def test_render_spectator_and_game_over():
    net = Net(2, {"rounds": 2})
    net.bots()
    assert net.table.over
    ui = GameUI(None, output=DummyOutput())
    ui.update(net.table, [], "")
    text = ui.render_text()
    assert "spectator" in text and "GAME OVER" in text and "Ranking: 1. seat" in text
    assert "Game over." in text
    assert "Sheets on offer" not in text


def test_parse_space():
    assert parse_space(["2", "3", "R"]) == [2, 3, "R"]
    assert parse_space(["23r"]) == [2, 3, "R"]
    assert parse_space(["0,4,yellow"]) == [0, 4, "Y"]
    assert parse_space(["none"]) is None
    for bad in (["5", "1", "R"], ["1", "1", "G"], ["1", "R"], []):
        with pytest.raises(CommandError):
            parse_space(bad)


# --------------------------------------------------------------------------- deciding


async def test_decide_returns_composed_move():
    net = Net(2)
    assert net.peers[0].needs_decision()
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(0, input=inp, output=DummyOutput())
            ui.update(net.table, [], "")
            async with running(ui):
                got = {}

                async def decide():
                    got["action"] = await ui.decide(net.table.view(0), 0, net.peers[0])

                async with trio.open_nursery() as n:
                    n.start_soon(decide)
                    await until(lambda: ui._pending is not None)
                    await until(lambda: "YOUR MOVE" in ui.render_text())
                    inp.send_text("bid 3 12" + ENTER)
                    inp.send_text("b 5 4" + ENTER)
                    await until(lambda: "#3=12, #5=4" in ui.render_text())
                    assert "(16 of 30 tokens)" in ui.render_text()
                    inp.send_text("splash 1 2 b" + ENTER)
                    inp.send_text("bid 5 0" + ENTER)       # removes the bid on 5
                    inp.send_text(ENTER)                   # empty line = submit
                action = got["action"]
                assert action == {"bids": {"3": 12}, "splash": [1, 2, "B"], "extra": None, "convert": 0}
                # the node would now send it: the peer accepts it as is
                net.act(0, action)
                assert not net.peers[0].needs_decision()
                ui.update(net.table, [], "")
                await until(lambda: "Sealed: seat 0 bids 12 on sheet 3" in ui.render_text())
                assert "waiting for seat 1" in ui.render_text()
                inp.send_text(CTRL_Q)
                await until(lambda: ui.closed)


async def test_illegal_move_is_refused_and_can_be_fixed():
    net = Net(2)
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(0, input=inp, output=DummyOutput())
            ui.update(net.table, [], "")
            async with running(ui):
                got = {}

                async def decide():
                    got["action"] = await ui.decide(net.table.view(0), 0, net.peers[0])

                async with trio.open_nursery() as n:
                    n.start_soon(decide)
                    await until(lambda: ui._pending is not None)
                    inp.send_text("bid 1 20 2 15" + ENTER)
                    inp.send_text("extra 0 0 R" + ENTER)
                    inp.send_text(ENTER)
                    await until(lambda: "illegal move" in ui.render_text())
                    text = ui.render_text()
                    assert "extra submission needs a main splash" in text
                    inp.send_text("extra none" + ENTER + ENTER)
                    await until(lambda: "bids total 35 but you have 30 tokens" in ui.render_text())
                    await trio.sleep(0.2)
                    assert "action" not in got and ui._pending is not None
                    inp.send_text("bid 7 3" + ENTER)
                    inp.send_text("bid 11 3" + ENTER)           # not on offer: refused at once
                    await until(lambda: "sheet 11 is not on offer" in ui.render_text())
                    inp.send_text("bid 2 0" + ENTER + ENTER)
                assert got["action"] == {"bids": {"1": 20, "7": 3}, "splash": None, "extra": None, "convert": 0}
                inp.send_text("q")                              # q on an empty line quits
                await until(lambda: ui.closed)


async def test_decide_gives_up_when_the_step_closes_without_us():
    net = Net(2)
    with trio.fail_after(LIMIT):
        ui = GameUI(0, output=DummyOutput())
        ui.update(net.table, [], "")
        got = {}

        async def decide():
            got["action"] = await ui.decide(net.table.view(0), 0, net.peers[0])

        async with trio.open_nursery() as n:
            n.start_soon(decide)
            await until(lambda: ui._pending is not None)
            net.act(0, {"bids": {}, "splash": None})       # sent by other means; phase moves on
            net.bots(seats=[1])
            ui.update(net.table, [], "")
        assert got["action"] is None


async def test_spectator_cannot_move_and_q_quits():
    net = Net(2)
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(None, input=inp, output=DummyOutput())
            ui.update(net.table, [], "")
            async with running(ui):
                inp.send_text("bid 1 1" + ENTER)
                await until(lambda: "you are spectating" in ui.render_text())
                inp.send_text("q")
                await until(lambda: ui.closed)


async def test_cancelling_run_stops_the_ui_thread():
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(0, input=inp, output=DummyOutput())
            with trio.move_on_after(0.3):
                await ui.run()
            assert ui.closed


# --------------------------------------------------------------------------- replay


async def test_replay_steps_forward_and_back():
    net = Net(2, {"rounds": 2})
    net.bots()
    entries = list(net.peers[0].log_entries)
    assert net.table.over and len(entries) > 8
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = ReplayUI(entries, 0, input=inp, output=DummyOutput())
            first = ui.render_text()
            assert "Entry 0 of %d: genesis" % (len(entries) - 1) in first
            assert "GAME OVER" not in first
            async with running(ui):
                inp.send_text(RIGHT)
                await until(lambda: ui.pos == 1)
                assert "Entry 1 of" in ui.render_text() and "commits to its share" in ui.render_text()
                inp.send_text(END)
                await until(lambda: ui.pos == len(entries) - 1)
                last = ui.render_text()
                assert "GAME OVER" in last and "Game over." in last
                inp.send_text(LEFT)
                await until(lambda: ui.pos == len(entries) - 2)
                assert ui.render_text() != last and "GAME OVER" not in ui.render_text()
                inp.send_text(HOME)
                await until(lambda: ui.pos == 0)
                assert ui.render_text() == first
                inp.send_text("n")                          # to the end of round 1
                await until(lambda: ui.pos > 0)
                text = ui.render_text()
                assert "reveals: seat 1 bids" in text and "Round 1 results" in text
                inp.send_text("q")
                await until(lambda: ui.closed)


def test_replay_stops_at_a_bad_entry():
    net = Net(2, {"rounds": 1})
    net.bots()
    entries = list(net.peers[0].log_entries)
    bad = entries[:6] + [entries[5]] + entries[6:]     # entry 5 twice
    ui = ReplayUI(bad, None, output=DummyOutput(), start=-1)
    assert ui.pos == 5
    text = ui.render_text()
    assert "Entry 5 of %d" % (len(bad) - 1) in text and "entry 6 is invalid" in text
