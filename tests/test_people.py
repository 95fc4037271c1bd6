"""Paper cuts found by playing every game as a new user (each measured before the fix)."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

from cli.common import EXIT_INTERRUPTED, EXIT_OK
from cli.runner import report


def _node(tmp_path: Path, over: bool):
    table = SimpleNamespace(over=over, head=b"", result=lambda: None)
    return SimpleNamespace(peer=SimpleNamespace(table=table), failed=None, store=SimpleNamespace(dir=tmp_path), seat=0)


def test_leaving_an_unfinished_game_exits_130_as_the_help_says(tmp_path, capsys):
    """Measured: quitting an unfinished game exited 0 although easel --help says 130 interrupted."""
    assert report(_node(tmp_path, over=False), interactive=True) == EXIT_INTERRUPTED == 130
    assert "easel resume %s" % tmp_path in capsys.readouterr().out
    assert report(_node(tmp_path, over=True), interactive=True) == EXIT_OK


# --------------------------------------------------------------------------- one way to play every game
import trio  # noqa: E402
from prompt_toolkit.input import create_pipe_input  # noqa: E402
from prompt_toolkit.output import DummyOutput  # noqa: E402

from cli.shell import GameUI  # noqa: E402

from .test_starving_screen import SANet  # noqa: E402
from .test_ui import deciding, flat, running, until  # noqa: E402

ENTER = "\r"
CTRL_Q = "\x11"
LIMIT = 20


async def test_starving_artists_commands_edit_the_draft_and_enter_sends_it():
    """Measured: in Starving Artists a valid command went out at once ('paint 1 5 blue' while 'paint
    auto' was suggesting 3 cubes), in the Painting Game commands edit a draft. Now every command
    edits the draft shown under the board and Enter on an empty line sends it, in every game."""
    net = SANet(3)
    net.bots([1, 2])
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(0, input=inp, output=DummyOutput())
            ui.update(net.table, [], "")
            assert not ui.send_at_once
            async with running(ui):
                async with deciding(ui, net) as got:
                    await until(lambda: "YOUR MOVE" in flat(ui))
                    inp.send_text("work" + ENTER)
                    await until(lambda: "Draft: works" in flat(ui))
                    await trio.sleep(0.05)
                    assert "action" not in got and ui.composer.asked is not None        # not sent: a draft
                    assert "Enter on an empty line sends it" in flat(ui)
                    inp.send_text("send" + ENTER)                                # 'send' (or Enter) sends it
                assert got["action"] == {"do": "work"}
                inp.send_text(CTRL_Q + CTRL_Q)
                await until(lambda: ui.closed)


async def test_a_newer_command_replaces_the_draft_and_send_at_once_sends_a_complete_move(monkeypatch):
    net = SANet(3)
    net.bots([1, 2])
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(0, input=inp, output=DummyOutput())
            ui.update(net.table, [], "")
            async with running(ui):
                async with deciding(ui, net) as got:
                    await until(lambda: "YOUR MOVE" in flat(ui))
                    inp.send_text("work" + ENTER)
                    await until(lambda: "Draft: works" in flat(ui))
                    inp.send_text("help" + ENTER)                               # help is no command: the draft stays
                    await until(lambda: ui._help_shown)
                    inp.send_text("help" + ENTER)
                    await until(lambda: not ui._help_shown)
                    assert "Draft: works" in flat(ui)
                    inp.send_text(ENTER)
                assert got["action"] == {"do": "work"}
                inp.send_text(CTRL_Q + CTRL_Q)
                await until(lambda: ui.closed)
    monkeypatch.setenv("EASEL_SEND_AT_ONCE", "1")
    net = SANet(3)
    net.bots([1, 2])
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(0, input=inp, output=DummyOutput())
            assert ui.send_at_once
            ui.update(net.table, [], "")
            async with running(ui):
                async with deciding(ui, net) as got:
                    await until(lambda: "YOUR MOVE" in flat(ui))
                    inp.send_text("work" + ENTER)
                assert got["action"] == {"do": "work"}
                inp.send_text(CTRL_Q + CTRL_Q)
                await until(lambda: ui.closed)


def test_the_day_summary_never_hides_a_seat_starving_behind_earlier_lines():
    """Measured: the day summary hid "seat 0 starves" behind "... 4 earlier (see the event log)", and the
    event log lists actions only."""
    from dataclasses import replace

    from cli.screens.starving_artists import StarvingArtistsScreen

    from .test_starving_screen import ctx_for, state

    st = state()
    events = ((1, "seat 0 starves and is out of the game"),) + tuple((1, "the Paint Market receives R%d" % k) for k in range(18))
    st = replace(st, events=events)
    text = "\n".join("".join(t for _, t in line) for line in StarvingArtistsScreen().middle_lines(ctx_for(st, 1), 100))
    assert "seat 0 starves and is out of the game" in text
    assert "... 4 earlier today" in text


async def test_a_resumed_seats_countdown_goes_on_from_when_the_step_opened():
    """Measured: after a resume the turn countdown restarted (4:54 against the host's 4:39): the
    peer's step clock starts at the resume. The step opened about when the log last grew."""
    from .netutil import decision_for
    from .test_ui import Net

    net = Net(2)
    ui = GameUI(0, output=DummyOutput())
    ui.step_open_hint(time.time() - 21)            # the log last grew 21 s ago
    ui.update(net.table, [], "")
    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as n:
            # the peer's clock has not seen the step yet: the Decision says now plus the step's time
            d = decision_for(net.table, 0, trio.current_time() + 300.0)
            n.start_soon(ui.decide, d)
            await until(lambda: ui.composer.asked is not None)
            left = ui.countdown.deadline - time.monotonic()
            assert 277 <= left <= 279.5, left
            assert "about 4 min left" in flat(ui)
            # a later step (another phase) gets the whole time again
            ui.countdown.open_hint = (net.table.phase + 1, time.time() - 21)
            assert ui.countdown.hinted(None, d) is None
            at = time.monotonic() + 300.0
            assert ui.countdown.hinted(at, d) == at
            n.cancel_scope.cancel()


async def test_the_screen_says_how_the_table_fills_while_the_bots_start():
    """Measured: under load the screen stayed blank 3-10 s at the start with no progress."""
    import io

    from cli.hosting import seating_progress, seating_text

    assert seating_text(0, 3, 4.6, starting=2) == "easel: starting the table: 1 of 3 seats taken (4 s) - the bots are starting"
    out = io.StringIO()
    await seating_progress(SimpleNamespace(free=0, starting=2), 3, out)          # not a terminal: once, then done
    assert out.getvalue() == "easel: starting the table: 1 of 3 seats taken (0 s) - the bots are starting\n"

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty = Tty()
    ht = SimpleNamespace(free=2)
    with trio.move_on_after(0.3):
        async with trio.open_nursery() as n:
            n.start_soon(seating_progress, ht, 3, tty, 0.05)
            await trio.sleep(0.12)
            ht.free = 0
            await trio.sleep(0.1)
    text = tty.getvalue()
    assert "1 of 3 seats taken" in text and "3 of 3 seats taken" in text and text.endswith("\r\x1b[K")


def test_the_painting_boards_legend_fits_the_board_pane_at_any_terminal_width():
    """Measured: "K  black (3 primari" cut at 100, 160 and 200 columns: the board pane is 20 wide."""
    from cli.screens import width_of
    from cli.screens.painting import PaintingScreen, RoundStory, _board_marks

    grid = [["K"] * 5 for _ in range(5)]
    for black, rule in (({(0, 0)}, "round"), ({(0, 0)}, "immediate")):
        for now in ("K", "W"):
            view = {"grid": [[now] * 5 for _ in range(5)], "rules": {"black": rule}}
            story = RoundStory(2, None, grid, None, {(0, 0), (1, 1)}, black)
            _, legend = _board_marks(view, story)
            for line in legend:
                assert width_of(line) <= PaintingScreen.board_width, line


def test_a_seat_starving_goes_into_the_event_log():
    """Measured: the event log listed actions only, not the starvation."""
    from dataclasses import replace

    from cli.screens.starving_artists import StarvingArtistsScreen
    from cli.shell import snapshot_of
    from core.games.starving_artists import GAME as SA

    from .test_starving_screen import state
    from .test_ui import Net

    st = state()
    after = replace(st, events=st.events + ((2, "seat 1 starves and is out of the game"), (2, "seat 0 works")))
    sc = StarvingArtistsScreen()
    assert sc.happenings(SA.view(st, 0), SA.view(after, 0)) == ["seat 1 starves and is out of the game"]
    assert sc.happenings(SA.view(after, 0), SA.view(after, 0)) == []

    # the shell puts a screen's happenings into the log where they happened, and keeps them
    class Starving(type(sc)):
        said = ["seat 1 starves and is out of the game"]

        def happenings(self, before, view):
            out, self.said = self.said, []
            return out

    net = Net(2)
    screen = Starving()
    first = snapshot_of(net.table, 0, screen=screen)
    net.bots(upto_round=2)
    second = snapshot_of(net.table, 0, screen=screen, before=first)
    lines = [text for _, text in second.log]
    assert "*   seat 1 starves and is out of the game" in lines
    net.bots(upto_round=3)
    third = snapshot_of(net.table, 0, screen=screen, before=second)
    assert "*   seat 1 starves and is out of the game" in [text for _, text in third.log]
    assert [text for _, text in third.log].index("*   seat 1 starves and is out of the game") < len(third.log) - 1


def test_the_painting_reveal_shows_the_results_in_every_pane_once_it_reaches_them(monkeypatch):
    """Measured: the panes stayed frozen at the state before the step while the reveal text told the
    results. Before the matches beat they show the round as it opened; from it on, the new table."""
    from types import SimpleNamespace

    import cli.reveal as reveal_mod

    from .test_ui import Net

    clock = [100.0]
    monkeypatch.setattr(reveal_mod, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    net = Net(3)
    ui = GameUI(0, output=DummyOutput(), pace=1.0)
    ui.update(net.table, [], "")
    before = ui._snap
    net.bots(upto_round=2)
    ui.update(net.table, [], "")
    reel = ui.reel.items
    assert reel and [it.reached for it in reel] == [False] * (len(reel) - 1) + [True]
    assert reel[-1].beat.caption.startswith(("Matches", "Round 1: no owned sheet"))
    clock[0] = reel[0].start + 0.01
    assert ui._shown() is before and "round 1/" in ui.render_text().splitlines()[0]
    clock[0] = reel[-1].start + 0.01
    assert ui._shown() is ui._snap and "round 2/" in ui.render_text().splitlines()[0]


def test_a_wide_terminal_puts_the_painting_sheets_side_by_side():
    """Measured: at 160x50 the Painting screen used about two thirds of the width."""
    from cli.screens import width_of

    from .test_ui import Net

    net = Net(3)
    net.bots(upto_round=3)
    ui = GameUI(0, output=DummyOutput())
    ui.update(net.table, [], "")
    wide = ui.screen.middle_lines(ui._ctx(), 160)
    text = ["".join(t for _, t in line) for line in wide]
    assert any("Sheets on offer" in t and "Owned sheets" in t for t in text)
    assert all(width_of(line) <= 160 for line in wide)
    narrow = ["".join(t for _, t in line) for line in ui.screen.middle_lines(ui._ctx(), 100)]
    assert not any("Sheets on offer" in t and "Owned sheets" in t for t in narrow)


def test_a_bots_home_and_log_are_named_as_the_table_names_the_bot(tmp_path, monkeypatch):
    """Seen: bots/bot-0.log held "bot 1"."""
    import cli.bots as live_bots

    monkeypatch.setenv("EASEL_HOME", str(tmp_path))
    started = []
    monkeypatch.setattr(live_bots, "_start_bot", lambda bot, cmd, fresh: started.append((bot, cmd)))
    bots = live_bots.spawn_bots(2, ("127.0.0.1", 1), "random", None)
    for k, (bot, cmd) in enumerate(started, start=1):
        assert bot.name == "bot %d" % k and cmd[cmd.index("--name") + 1] == bot.name
        assert bot.log == tmp_path / "bots" / ("bot-%d.log" % k) and bot.home == tmp_path / "bots" / ("bot-%d" % k)
    assert len(bots) == 2


async def test_the_line_that_says_how_the_table_fills_stays_on_one_line_at_100_columns(monkeypatch):
    """Seen between two homes at 100 columns: "easel: starting the table: 2 of 3 seats taken (19 s) - waiting for 1
    more person to join (easel join" wrapped, and each rewrite (\\r) scrolled a new copy, thirty a minute."""
    import io

    from cli.hosting import fit_line, seating_progress, seating_text

    long = seating_text(1, 3, 19.0)
    assert len(long) > 99
    assert fit_line(long, 100) == "easel: starting the table: 2 of 3 seats taken (19 s) - waiting for 1 more person to join"
    assert fit_line(long, 200) == long
    assert len(fit_line(long, 40)) == 39 and fit_line(long, 40).endswith("…")

    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setenv("COLUMNS", "60")
    tty = Tty()
    with trio.move_on_after(0.2):
        await seating_progress(SimpleNamespace(free=1), 3, tty, 0.05)
    shown = [part.replace("\x1b[K", "") for part in tty.getvalue().split("\r") if part.replace("\x1b[K", "")]
    assert shown and all(len(line) <= 59 for line in shown), shown


def test_the_open_table_line_names_a_port_on_the_lan_and_the_invite_line_beyond_it():
    """Seen between two homes: "painting table open on port 52579 (host ...); 1 seat(s) free" under the invite line,
    a port nobody beyond the LAN can use."""
    from cli.hosting import open_words

    lan = open_words("painting", 52579, "578d-d6e5-6c0d-a0fb", 1)
    assert lan == "easel: painting table open on port 52579 (host 578d-d6e5-6c0d-a0fb); 1 seat free"
    far = open_words("starving-artists", 52579, "578d-d6e5-6c0d-a0fb", 2, internet=True)
    assert "52579" not in far and "invite line" in far and "; 2 seats free" in far and len(far) < 100
