"""The terminal UI shell (cli/shell.py), driven through prompt-toolkit's pipe input, at a Painting Game table
(the Painting screen's own tests: tests/test_painting_screen.py).

A real table comes from sans-IO peers (p2p.protocol.Peer) exchanging their
messages in memory; bots play the seats the test does not play itself.
"""

from __future__ import annotations

import io
import re
import time
from contextlib import asynccontextmanager

import pytest
import trio
from prompt_toolkit.data_structures import Size
from prompt_toolkit.formatted_text import fragment_list_to_text as text_of
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.output.vt100 import Vt100_Output

from cli.shell import GameUI, ReplayUI
from core.games.painting import HeuristicBot
from core.rng import Rng
from p2p.node import decision_of

from .netutil import MemTable, decision_for

ENTER = "\r"
CTRL_Q = "\x11"
RIGHT = "\x1b[C"
LEFT = "\x1b[D"
HOME = "\x1b[H"
END = "\x1b[F"
LIMIT = 20  # seconds for any one test


# --------------------------------------------------------------------------- an in-memory table


class Net(MemTable):
    """n sans-IO peers wired together in memory."""

    GAME = "painting"

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


async def settled(app, quiet: float = 0.5, limit: float = 10.0) -> int:
    """The render count once the screen has drawn nothing for ``quiet`` seconds (the redraws a change
    asked for are done; prompt-toolkit may draw twice for one change): a measurement of idleness
    starts there, not in the middle of them."""
    with trio.fail_after(limit):
        while True:
            n = app.render_counter
            await trio.sleep(quiet)
            if app.render_counter == n:
                return n


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


@asynccontextmanager
async def table_ui(net, seat: int = 0):
    """Seat ``seat``'s screen on ``net``'s table, running with typed input, for the block (bounded by LIMIT):
    yields the UI and its input pipe."""
    with trio.fail_after(LIMIT), create_pipe_input() as inp:
        ui = GameUI(seat, input=inp, output=DummyOutput())
        ui.update(net.table, [], "")
        async with running(ui):
            yield ui, inp


# --------------------------------------------------------------------------- rendering


def test_render_spectator_and_game_over():
    net = Net(2, {"rounds": 2})
    net.bots()
    assert net.table.over
    ui = GameUI(None, output=DummyOutput())
    ui.update(net.table, [], "")
    text = ui.render_text()
    assert "spectator" in text and "GAME OVER" in text and "\n 1. seat" in text
    assert "Game over - the final ranking" in text
    assert "Sheets on offer" not in text


# --------------------------------------------------------------------------- deciding


async def test_decide_returns_composed_move():
    net = Net(2)
    assert net.peers[0].needs_decision()
    async with table_ui(net) as (ui, inp):
        async with deciding(ui, net) as got:
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
        await until(lambda: "Sealed (round 1): seat 0 bids 12 on sheet 3" in ui.render_text())
        assert "waiting for seat 1" in ui.render_text()
        inp.send_text(CTRL_Q + CTRL_Q)      # mid-game: asks first
        await until(lambda: ui.closed)


async def test_decide_gives_up_when_the_step_closes_without_us():
    net = Net(2)
    with trio.fail_after(LIMIT):
        ui = GameUI(0, output=DummyOutput())
        ui.update(net.table, [], "")
        got = {}

        async def decide():
            got["action"] = await ui.decide(decision_of(net.peers[0], 0, trio.current_time()))

        async with trio.open_nursery() as n:
            n.start_soon(decide)
            await until(lambda: ui.composer.asked is not None)
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
            assert "Entry 0 of %d: the table opens (genesis): the Painting Game for 2 seats;" % (len(entries) - 1) in first
            assert "clarified edition, 2" in first and "{" not in first     # options in words, not a dict
            assert "GAME OVER" not in first
            async with running(ui):
                inp.send_text(RIGHT)
                await until(lambda: ui.pos == 1)
                assert "Entry 1 of" in ui.render_text() and "commits to its share" in ui.render_text()
                inp.send_text(END)
                await until(lambda: ui.pos == len(entries) - 1)
                last = ui.render_text()
                assert "GAME OVER" in last and "Game over - the final ranking" in last
                inp.send_text(LEFT)
                await until(lambda: ui.pos == len(entries) - 2)
                assert ui.render_text() != last and "GAME OVER" not in ui.render_text()
                inp.send_text(HOME)
                await until(lambda: ui.pos == 0)
                assert ui.render_text() == first
                inp.send_text("n")                          # to the end of round 1
                await until(lambda: ui.pos > 0)
                text = ui.render_text()
                assert "seat 1 reveals: bids" in text and "Round 1 results" in text
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


# --------------------------------------------------------------------------- play-test fixes

ESC = "\x1b"


def flat(ui) -> str:
    """render_text() with runs of whitespace (word wraps included) as one space."""
    return " ".join(ui.render_text().split())


def tick_until_timeout(net: Net) -> None:
    """Advance every peer's clock past its time-out so the seats still missing get timed out."""
    for now in (0.0, 10_000.0):
        for i, p in enumerate(net.peers):
            net._effects(i, p.tick(now))
        net.pump()


@asynccontextmanager
async def deciding(ui, net, seat: int = 0, peer=None, deadline: float | None = None):
    """``ui.decide`` runs in the background for the block; ``got["action"]`` is what it returned. With ``peer``
    (True) the Decision's ``deadline`` is the one given (None: the peer does not say), else the real peer's."""
    got: dict = {}

    async def decide():
        got["action"] = await ui.decide(decision_for(net.table, seat, deadline) if peer is not None
                                          else decision_of(net.peers[seat], seat, trio.current_time()))

    async with trio.open_nursery() as n:
        n.start_soon(decide)
        await until(lambda: ui.composer.asked is not None)
        yield got


async def test_help_page_replaces_the_middle_pane_and_explains_the_rules():
    net = Net(2)
    async with table_ui(net) as (ui, inp):
        inp.send_text("help" + ENTER)
        await until(lambda: "The Painting Game in short" in flat(ui))
        text = flat(ui)
        assert "Sheets on offer" not in text
        for words in ("bid SHEET N", "splash ROW COL R|B|Y", "convert N", "Tokens of Life",
                      "loses 1 point of value", "R+B = P purple", "nobody pays and the sheet is discarded",
                      "gain 10 each round", "costs 7 garnets", "1 garnet per 25 points", "0 0 is the top-left"):
            assert words in text, words
        inp.send_text("?")                                   # ? on an empty line closes it
        await until(lambda: "Sheets on offer" in flat(ui))
        inp.send_text("?")
        await until(lambda: "The Painting Game in short" in flat(ui))
        inp.send_text(ESC)                                   # so does Esc
        await until(lambda: "Sheets on offer" in flat(ui))
        inp.send_text("help" + ENTER + "bid 1 3" + ENTER)   # any move command closes it too
        await until(lambda: "bids: #1=3" in flat(ui))
        assert "Sheets on offer" in flat(ui)
        inp.send_text(CTRL_Q + CTRL_Q)      # mid-game: asks first
        await until(lambda: ui.closed)


async def test_a_command_typed_right_after_esc_keeps_its_first_letter():
    """Esc then "bid 1 3" at once: the b is not eaten as Meta-b (measured: "unknown command 'id'")."""
    net = Net(2)
    async with table_ui(net) as (ui, inp):
        async with deciding(ui, net):
            inp.send_text(ESC + "bid 1 3" + ENTER)
            await until(lambda: "bids: #1=3" in flat(ui) or "unknown command" in flat(ui))
            assert "unknown command" not in flat(ui)
            inp.send_text("help" + ENTER)
            await until(lambda: "The Painting Game in short" in flat(ui))
            inp.send_text(ESC + "bid 2 4" + ENTER)   # Esc closes the help, the command goes through
            await until(lambda: "#2=4" in flat(ui) or "unknown command" in flat(ui))
            assert "unknown command" not in flat(ui) and "Sheets on offer" in flat(ui)
            inp.send_text(CTRL_Q + CTRL_Q)
            await until(lambda: ui.closed)
            ui.outbox.withdraw(ui.composer.asked)


async def test_time_out_is_told_to_the_player():
    net = Net(2)
    with trio.fail_after(LIMIT):
        ui = GameUI(0, output=DummyOutput())
        ui.update(net.table, [], "")
        async with deciding(ui, net) as got:
            net.bots(seats=[1])
            tick_until_timeout(net)
            assert net.table.timeouts
            ui.update(net.table, [], "")
        assert got["action"] is None
        text = flat(ui)
        assert "Time ran out for round 1: bids and splash: your move was not sent in time" in text
        # our peer signed nothing for that step: it did not move, and says who voted it out
        assert "time-out: you did not move in time for round 1: bids and splash; seat 1 voted you out" in text
        assert "timed out seats [" not in text
        async with deciding(ui, net) as got:         # the next round's prompt keeps saying it
            text = flat(ui)
            assert "Time ran out for round 1: bids and splash" in text and "Round 2 of 6: your move." in text
            net.act(0, {"bids": {}, "splash": None})
            net.bots(seats=[1])
            ui.update(net.table, [], "")
        ui._say("")
        ui.update(net.table, [], "")                 # said once, not again on every update
        assert "Time ran out" not in flat(ui)


async def test_a_time_out_stands_on_its_own_line_above_the_next_prompt_and_words_of_a_closed_step_go():
    """Seen on the LAN after a resume: "Time ran out for round 1 ..." glued in front of the next,
    unrelated prompt; and "Sent: your bid: 11" stayed on through later auctions."""
    net = Net(2)
    with trio.fail_after(LIMIT):
        ui = GameUI(0, output=DummyOutput())
        ui.update(net.table, [], "")
        async with deciding(ui, net) as got:
            net.bots(seats=[1])
            tick_until_timeout(net)
            ui.update(net.table, [], "")
        assert got["action"] is None
        async with deciding(ui, net) as got:
            lines = ui.render_text().splitlines()
            out = [l for l in lines if l.startswith("Time ran out for round 1: bids and splash")]
            assert out and not any("Round 2 of 6" in l for l in out)            # the time-out: a line of its own
            assert any(l.startswith("Round 2 of 6: your move.") for l in lines)   # the prompt starts its own
            ui._send({"bids": {}, "splash": None})
            await until(lambda: got.get("action") is not None)
        assert "sent" in flat(ui).lower()           # said while the round is open
        net.act(0, {"bids": {}, "splash": None})
        net.bots(seats=[1])
        ui.update(net.table, [], "")                 # round 2 is applied: its words and the time-out are gone
        text = flat(ui)
        assert "Time ran out" not in text and "sealed and sent" not in text


def test_time_out_in_the_last_round_is_told_with_the_result():
    net = Net(2, {"rounds": 1})
    ui = GameUI(0, output=DummyOutput())
    ui.update(net.table, [], "")
    net.bots(seats=[1])
    tick_until_timeout(net)
    assert net.table.over
    ui.update(net.table, [], "game over - q quits", waiting=[])
    text = flat(ui)
    assert "Time ran out for round 1: bids and splash" in text and "Game over: you finished" in text


async def test_time_left_on_our_move_is_shown():
    net = Net(2)
    with trio.fail_after(LIMIT):
        ui = GameUI(0, output=DummyOutput())
        ui.update(net.table, [], "")
        async with deciding(ui, net, peer=True, deadline=trio.current_time() + 300.0) as got:
            assert re.search(r"YOUR MOVE \(round 1\)  about [45] min left", ui.render_text())
            net.act(0, {"bids": {}, "splash": None})   # sent by other means: the decision goes away
            net.bots(seats=[1])
            ui.update(net.table, [], "")
        assert got["action"] is None
        ui2 = GameUI(0, output=DummyOutput())
        net2 = Net(2)
        ui2.update(net2.table, [], "")
        async with deciding(ui2, net2, peer=True, deadline=trio.current_time() + 10.0) as got:
            assert re.search(r"about 0:(0\d|10) left", flat(ui2))
            net2.act(0, {"bids": {}, "splash": None})
            net2.bots(seats=[1])
            ui2.update(net2.table, [], "")
        # a peer that does not say: no clock at all
        ui3 = GameUI(0, output=DummyOutput())
        net3 = Net(2)
        ui3.update(net3.table, [], "")
        async with deciding(ui3, net3, peer=True, deadline=None):
            assert "YOUR MOVE (round 1)" in ui3.render_text() and "left" not in ui3.render_text().split("YOUR MOVE")[1].split("\n")[0]
            net3.act(0, {"bids": {}, "splash": None})
            net3.bots(seats=[1])
            ui3.update(net3.table, [], "")


def _screen(ui, rows: int, cols: int) -> list[str]:
    scr = ui._app.renderer._last_screen
    if scr is None:
        return []
    return ["".join(scr.data_buffer[r][c].char for c in range(cols)).rstrip() for r in range(rows)]


@pytest.mark.parametrize("players", [2, 6])
async def test_full_screen_at_100x30_keeps_every_part_on_screen(players):
    net = Net(players)
    net.bots(upto_round=4)
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            out = Vt100_Output(io.StringIO(), lambda: Size(rows=30, columns=100), term="xterm")
            ui = GameUI(0, input=inp, output=out)
            ui.update(net.table, [], "%d/%d peers connected" % (players, players))
            async with running(ui):
                async with deciding(ui, net) as got:
                    inp.send_text("bid 99 1" + ENTER)
                    await until(lambda: any("sheet 99 is not on offer" in l for l in _screen(ui, 30, 100)))
                    lines = _screen(ui, 30, 100)
                    assert lines[0].startswith(" Easel") and "round 4/6" in lines[0]
                    assert lines[1].startswith("Grid (row col)") and "Seats" in lines[1]
                    assert any(re.match(r" 4 [ \[(<]", l) for l in lines[2:10])            # the whole grid
                    for s in range(players):                                              # every seat
                        assert any(re.match(r"[> ] seat %d\b" % s, l[22:]) for l in lines[2:3 + players]), s
                    assert any("YOUR MOVE (round 4)" in l for l in lines)
                    assert any(l.startswith("Draft: bids none") for l in lines)
                    assert any(l.startswith(">") for l in lines)
                    assert lines[29].startswith("bid ID N | splash ROW COL R/B/Y")
                    middle = "\n".join(lines)
                    assert "Round 3 results" in middle and "Sheets on offer" in middle
                    inp.send_text("help" + ENTER)
                    await until(lambda: any("Help - " in l for l in _screen(ui, 30, 100)))
                    assert lines[29] == _screen(ui, 30, 100)[29]
                    inp.send_text("?" + "splash 1 1 y" + ENTER + ENTER)
                assert got["action"]["splash"] == [1, 1, "Y"]
                inp.send_text(CTRL_Q + CTRL_Q)      # mid-game: asks first
                await until(lambda: ui.closed)


def test_replay_shows_the_log_entries_and_help_and_survives_a_bad_seat():
    net = Net(2, {"rounds": 1})
    net.bots(seats=[1])
    tick_until_timeout(net)                      # seat 0 never moves in round 1: the game ends on a time-out
    assert net.table.over
    entries = list(net.peers[1].log_entries)
    ui = ReplayUI(entries, 0, output=DummyOutput(), start=-1)
    text = ui.render_text()
    # a replay knows the log only: it says who voted whom out, never that a seat did not move
    assert "seat 1 voted you out of round 1: bids and splash" in text
    assert "did not move in time" not in text
    # the event log lists the entries, newest first
    log = text.split("Event log (newest first)")[1]
    assert log.index("  %d  " % ui.pos) < log.index("   0  the table opens (genesis)")
    ui._toggle_help()
    text = ui.render_text()
    assert "Replay keys" in text and "Tokens of Life" in text and "Sheets never scored" not in text
    ui2 = ReplayUI(entries, 7, output=DummyOutput())
    assert ui2.seat is None
    assert "there is no seat 7 in this 2-seat game: watching as a spectator" in flat(ui2)
    assert "spectator" in ui2.render_text().splitlines()[0]


async def test_replay_question_mark_toggles_help():
    net = Net(2, {"rounds": 1})
    net.bots()
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = ReplayUI(list(net.peers[0].log_entries), None, input=inp, output=DummyOutput())
            async with running(ui):
                inp.send_text("?")
                await until(lambda: "Replay keys" in flat(ui))
                inp.send_text(ESC)
                await until(lambda: "Replay keys" not in flat(ui))
                inp.send_text("q")
                await until(lambda: ui.closed)


async def test_quitting_mid_game_asks_first():
    net = Net(2)
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(0, input=inp, output=DummyOutput())
            ui.update(net.table, [], "")
            async with running(ui):
                inp.send_text("q")
                await until(lambda: "Quit in the middle of the game?" in flat(ui))
                await trio.sleep(0.1)
                assert not ui.closed
                inp.send_text("bid 1 2" + ENTER)             # any command: we stay
                await until(lambda: "bids: #1=2" in flat(ui))
                inp.send_text(CTRL_Q)
                await until(lambda: "Quit in the middle of the game?" in flat(ui))
                inp.send_text("x")                           # typing disarms it too
                await trio.sleep(0.1)
                inp.send_text("\x08" + "q")                  # Backspace, then q on the empty line again asks
                await trio.sleep(0.2)
                assert not ui.closed
                inp.send_text("q")
                await until(lambda: ui.closed)
    net.bots()
    ui = GameUI(0, output=DummyOutput())             # once the game is over, q quits at once
    ui.update(net.table, [], "")
    ui._quit_key()
    assert ui._quit


async def test_q_then_q_quits_even_when_a_step_closes_between_them():
    """Seen live (issue 29): q, then q 0.4 s later, did not quit when the step closed in between: the
    step's close took the question off the screen and disarmed it, so the second q only asked again."""
    net = Net(2)
    async with table_ui(net) as (ui, inp):
        inp.send_text("q")
        await until(lambda: "Quit in the middle of the game?" in flat(ui))
        net.act(0, {"bids": {}, "splash": None})
        net.bots(seats=[1])
        ui.update(net.table, [], "")                     # the step closes: moves applied after the question
        assert "Quit in the middle of the game?" in flat(ui) and not ui.closed
        async with trio.open_nursery() as n:            # ... and the next one asks: its prompt waits under it
            n.start_soon(ui.decide, decision_of(net.peers[0], 0, trio.current_time()))
            await until(lambda: ui.composer.asked is not None)
            assert "Quit in the middle of the game?" in flat(ui) and "Round 2" not in text_of(ui._pane_message())
            inp.send_text("x")                           # typing: we stay, and the prompt shows
            await until(lambda: not ui._quit_armed)
            assert "Quit in the middle" not in flat(ui) and "Round 2" in text_of(ui._pane_message())
            inp.send_text("\x08" + "q")
            await until(lambda: "Quit in the middle of the game?" in flat(ui))
            ui.tell("no other seat answers")            # said while it is asked: it waits too
            assert "Quit in the middle of the game?" in flat(ui) and "no other seat" not in flat(ui)
            inp.send_text("q")
            await until(lambda: ui.closed)
            n.cancel_scope.cancel()                      # (the node would stop asking)


async def test_a_space_after_a_reveal_is_not_typed_so_q_and_a_still_act():
    """Seen live (issue 29): a Space pressed once more as a reveal ended went into the prompt, and then q,
    a and n were typed as text until Enter. Space on an empty line skips a reveal and is never typed."""
    net = Net(2, {"rounds": 2})
    with trio.fail_after(LIMIT), create_pipe_input() as inp:
        ui = GameUI(0, input=inp, output=DummyOutput(), pace=5.0)
        ui.update(net.table, [], "")
        async with running(ui):
            async with deciding(ui, net) as got:
                inp.send_text("bid 1 5" + ENTER + "splash 2 2 r" + ENTER + ENTER)
            net.act(0, got["action"])
            net.bots(seats=[1])
            ui.update(net.table, [], "")
            assert ui.revealing
            inp.send_text("  ")                          # one skips the reveal, the other is not typed
            await until(lambda: not ui.revealing)
            inp.send_text("q")
            await until(lambda: "Quit in the middle of the game?" in flat(ui))
            assert ui._buffer.text == "" and not ui.closed
            inp.send_text("x" + "\x08")                  # stay (typing disarms), then an empty line again
            await until(lambda: not ui._quit_armed)
            net.bots()                                   # to the game over, a reveal of the last step playing
            ui.update(net.table, [], "")
            assert net.table.over and ui.revealing
            inp.send_text("   a")
            await until(lambda: ui.closed)
            assert ui.again and ui._buffer.text == ""


async def test_narrow_terminal_gets_shorter_status_and_key_help():
    net = Net(2)
    with trio.fail_after(LIMIT):
        ui = GameUI(0, output=DummyOutput())
        ui.update(net.table, [], "")
        async with deciding(ui, net, peer=True, deadline=trio.current_time() + 300.0):
            for width in (80, 100, 150):
                status = text_of(ui._pane_status(width))
                keys = text_of(ui._pane_help(width))
                assert "\n" not in status and len(status) <= width, (width, status)
                assert len(keys) <= width and "help" in keys and "Enter=submit" in keys, (width, keys)
            assert text_of(ui._pane_help(150)).startswith("bid SHEET N [SHEET N..] | splash ROW COL R/B/Y | extra")
            net.act(0, {"bids": {}, "splash": None})
            net.bots(seats=[1])
            ui.update(net.table, [], "")


def test_commands_keep_the_middle_scrolled_where_it_was():
    net = Net(2)
    ui = GameUI(0, output=DummyOutput())
    ui.update(net.table, [], "")
    ui._scroll = 5
    ui._execute("bid 1 3")
    assert ui._scroll == 5
    ui._execute("help")
    assert ui._help_shown and ui._scroll == 0
    ui._execute("help")
    assert not ui._help_shown


def test_names_keep_the_columns_they_replace_seat_numbers_in():
    """Seen at 100x30: with names, the final ranking's "Zoe (you)" row was 3 columns left of the others,
    and the reveal's bids table named nobody. A name in a column keeps its width; prose just reads it."""
    from cli.screens import with_names

    names = ["Zoe", "Bartholomew the Bold", "bot 4"]
    assert with_names(" 4= seat 0 (you)     0 pts", names) == " 4= Zoe (you)        0 pts"
    assert with_names(" 1. seat 2           5 pts", names) == " 1. bot 4            5 pts"
    assert with_names("seat 1         25       -", names) == "Bartholomew the Bold 25       -"   # a longer one takes spaces, keeps one
    assert with_names("Winner: seat 2. seat 1 bids 5", names) == "Winner: bot 4. Bartholomew the Bold bids 5"
    assert with_names("seat 7  x", names) == "seat 7  x"


def test_a_long_title_drops_easel_then_shows_its_cut():
    net = Net(6)
    ui = GameUI(0, output=DummyOutput(), key="abcd1234")
    ui.update(net.table, [], "6/6 peers connected, 2 watching")
    ui._cols = lambda: 99
    title = text_of(ui._pane_title())
    assert len(title) <= 100 and "abcd1234" not in title
    assert title.startswith(" The Painting Game | you are seat 0")
    assert "6/6 peers connected" in title or title.endswith("…")
    ui._cols = lambda: 60
    title = text_of(ui._pane_title())
    assert len(title) == 61 and title.endswith("…")


def test_a_name_on_a_cards_edge_keeps_the_box_whole():
    from cli.screens import with_names

    assert with_names("└seat 1──┘ └MATCH seat 2─┘", ["Zoe", "bot 4", "Ann"]) == "└bot 4───┘ └MATCH Ann────┘"


async def test_a_decision_asked_before_the_first_update_waits_for_the_table():
    """The node's decider may ask before the node first told the UI its table (seen once under load:
    the decision opened on the generic screen, which knew none of the game's commands)."""
    from trio.testing import wait_all_tasks_blocked

    net = Net(2)
    ui = GameUI(0, output=DummyOutput())
    got = {}

    async def decide():
        got["action"] = await ui.decide(decision_of(net.peers[0], 0, trio.current_time()))

    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as n:
            n.start_soon(decide)
            await wait_all_tasks_blocked()
            assert ui.composer.asked is None                      # waits for the table
            ui.update(net.table, [], "")
            await until(lambda: ui.composer.asked is not None)
            assert "YOUR MOVE (round 1)" in ui.render_text() and "bid ID N" in ui.render_text()
            net.act(0, {"bids": {}, "splash": None})        # sent by other means: the decision goes away
            net.bots(seats=[1])
            ui.update(net.table, [], "")
    assert got["action"] is None


def test_at_100_columns_the_game_over_title_and_a_long_warning_are_read_whole():
    """Seen on the LAN at 100 columns: the title cut at "a plays again, n says n…" and the Painting
    warning naming four sheets cut at the edge."""
    from cli.runner import GAME_OVER_STATUS

    net = Net(6)
    ui = GameUI(0, output=DummyOutput())
    ui.update(net.table, [], "6/6 peers connected")
    long = ("Last round: your unscored sheets #13 (5), #17 (4), #21 (6), #24 (3) ... score nothing unless "
            "matched now (18 points at stake).")
    ui.warning = lambda: long
    lines = text_of(ui._pane_warning(100)).splitlines()
    assert len(lines) == 2 and all(len(l) <= 100 for l in lines) and "…" not in "".join(lines)
    assert " ".join(" ".join(lines).split()) == "!! " + long
    ui.warning = lambda: long * 3                        # past two lines: cut, and it shows
    lines = text_of(ui._pane_warning(100)).splitlines()
    assert len(lines) == 2 and lines[1].endswith("…") and len(lines[1]) <= 100
    net.bots()
    ui.update(net.table, [], GAME_OVER_STATUS)
    title = text_of(ui._pane_title())
    assert len(title) <= 100 and "…" not in title and "game over" in title, title


def test_the_countdown_says_minutes_then_seconds_and_when_that_changes():
    from cli.shell import countdown_words, next_change

    assert countdown_words(299.7) == "about 4 min left" and countdown_words(60.0) == "about 1 min left"
    assert countdown_words(59.9) == "about 0:59 left" and countdown_words(-3) == "about 0:00 left"
    assert abs(next_change(299.7) - 59.71) < 1e-6           # the shown minutes drop at 240 s left
    assert abs(next_change(61.5) - 1.51) < 1e-6             # ... then seconds, from 59
    assert abs(next_change(42.25) - 0.26) < 1e-6 and next_change(0.4) is None and next_change(-2) is None
    for left in (300.0, 125.3, 60.2, 59.99, 10.5, 1.4):     # at the time it gives, the words have changed
        assert countdown_words(left - next_change(left)) != countdown_words(left), left


async def test_an_idle_screen_is_drawn_only_when_what_it_shows_changes():
    """Measured: an idle easel play screen cost 2.1 % of a core (issue 23): it redrew every second
    while nothing changed. Now: not at all while nothing changes, once a minute while minutes count
    down, once a second in the last minute."""
    net = Net(2)
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            out = Vt100_Output(io.StringIO(), lambda: Size(rows=30, columns=100), term="xterm")
            ui = GameUI(0, input=inp, output=out)
            ui.update(net.table, [], "2/2 peers connected")
            async with running(ui):
                app = ui._app
                await until(lambda: app.render_counter > 0)
                async with deciding(ui, net, peer=True, deadline=trio.current_time() + 300.0):
                    await until(lambda: "about 4 min left" in "\n".join(_screen(ui, 30, 100)))
                    drawn = await settled(app)              # the redraws the decision itself asked for are done
                    await trio.sleep(2.5)                   # minutes count down: nothing to redraw yet
                    assert app.render_counter == drawn
                    ui.countdown.deadline = time.monotonic() + 4.0   # the last seconds: the screen follows them
                    ui.countdown.wake()
                    await until(lambda: "about 0:0" in "\n".join(_screen(ui, 30, 100)))
                    seen = {l for l in _screen(ui, 30, 100) if "left" in l}
                    await until(lambda: {l for l in _screen(ui, 30, 100) if "left" in l} != seen)
                    net.act(0, {"bids": {}, "splash": None})
                    net.bots(seats=[1])
                    ui.update(net.table, [], "2/2 peers connected")
                await until(lambda: "YOUR MOVE" not in "\n".join(_screen(ui, 30, 100)))
                drawn = await settled(app)
                await trio.sleep(1.5)                       # waiting for the others: no clock on screen
                assert app.render_counter == drawn
