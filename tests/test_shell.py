"""The game-agnostic UI shell (cli/shell.py) and the screen protocol (cli/screens/).

A fake table whose seat acts several times in one round shows the shell
makes no one-decision-per-round assumption; the toy game (tests/toy_game.py,
which has no screen module) shows a new game is playable and replayable at
once through the generic screen.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import trio
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from cli.screens import CommandError, GenericScreen, Say, Screen, Send, screen_for
from cli.shell import GameUI, ReplayUI, snapshot_of
from core.engine import Game, GameInfo, IllegalAction, Turn

from .netutil import decision_for

ENTER = "\r"
LIMIT = 20
ROOT = Path(__file__).resolve().parent.parent


async def until(pred, interval: float = 0.01) -> None:
    while not pred():
        await trio.sleep(interval)


def flat(ui) -> str:
    return " ".join(ui.render_text().split())


@asynccontextmanager
async def running(ui):
    async with trio.open_nursery() as n:
        n.start_soon(ui.run)
        try:
            yield n
        finally:
            ui.exit()
    assert ui.closed


# --------------------------------------------------------------------------- screen_for


def test_screen_for_picks_the_game_module_or_falls_back_to_the_generic_screen():
    from cli.screens.painting import PaintingScreen

    assert isinstance(screen_for("painting"), PaintingScreen)
    a, b = screen_for("painting"), screen_for("painting")
    assert a is not b                                   # one stateful screen per UI
    for name in ("no-such-game", "toy", "../etc", "", "Painting", None, "os"):
        assert type(screen_for(name)) is GenericScreen, name


def test_no_game_name_is_written_in_the_shell_or_the_cli():
    """Game names and option names live in core/games/<game>/ and cli/screens/<game>.py (or the folder
    cli/screens/<game>/) only:
    no quoted game name or option name of any registered game (the way code would single a
    game out) in the rest of cli/, in core/*.py or in p2p/.  Only the code's string literals
    are read: prose (comments and docstrings, "e.g. "painting"") is fine.  ``edition`` is the
    engine's own option (``GameInfo.editions``, ``--edition``), not a game's.  A game's
    screen may use another game's option name only as a key of its own game's views (Modern
    Art's view has "rounds", the Painting Game's option)."""
    import ast
    import itertools

    import core.games

    games = list(core.games.default())
    names = [g.info.name for g in games]
    assert names
    options = {}                                    # option name -> the games that have it
    for g in games:
        for opt in g.info.options:
            options.setdefault(opt, set()).add(g.info.name)
    assert options and all(g.info.options for g in games)
    generic = {"edition"}
    assert all("edition" in g.info.options for g in games)

    def view_keys(game) -> set:
        """Every map key in the game's views of a fresh table (its own vocabulary)."""
        info = game.info
        state = game.setup(game.configure({}, info.default_players), info.default_players, bytes(32))
        keys, todo = set(), [game.view(state, s) for s in (None, 0)]
        while todo:
            v = todo.pop()
            if isinstance(v, dict):
                keys |= {k for k in v if isinstance(k, str)}
                todo.extend(v.values())
            elif isinstance(v, (list, tuple)):
                todo.extend(v)
        return keys

    def literals(path) -> list[str]:
        """The file's string literals outside docstrings, lower-cased."""
        tree = ast.parse(path.read_text(encoding="utf-8"))
        prose = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
        return [n.value.lower() for n in ast.walk(tree)
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in prose]

    def spellings(word: str) -> set:
        return {word, word.replace("-", "_"), word.replace("-", " "), word.replace("_", "-"), word.replace("_", " ")}

    def named(texts: list[str], word: str) -> bool:
        """``word`` as a whole literal, or quoted inside one (code built from strings)."""
        return any(t == sp or q + sp + q in t for t in texts for sp in spellings(word) for q in "\"'")

    screen_of = {name.replace("-", "_"): g for name, g in zip(names, games)}
    screens = ROOT / "cli" / "screens"
    files = sorted(itertools.chain((ROOT / "cli").rglob("*.py"), (ROOT / "core").glob("*.py"), (ROOT / "p2p").rglob("*.py")))
    assert any(p.parent.name == "p2p" for p in files) and any(p.parent.name == "core" for p in files)
    assert any(p.parent.parent == screens for p in files)      # a screen that is a folder is read too

    def own_screen(path):
        """The game whose screen ``path`` is: cli/screens/<game>.py, or a file in cli/screens/<game>/."""
        if path.parent == screens:
            return screen_of.get(path.stem)
        if path.parent.parent == screens:
            return screen_of.get(path.parent.name)
        return None

    for path in files:
        texts = literals(path)
        where = path.relative_to(ROOT)
        own = own_screen(path)
        for name in names:
            if own is not None and own.info.name == name:
                continue
            assert not named(texts, name), "%s names the game %r" % (where, name)
        allowed = generic | (set(own.info.options) | view_keys(own) if own is not None else set())
        for opt, owners in sorted(options.items()):
            if opt in allowed:
                continue
            assert not named(texts, opt), "%s names the option %r of %s" % (where, opt, ", ".join(sorted(owners)))


# --------------------------------------------------------------------------- a seat acting several times a round

INFO = GameInfo(name="fake-multi", title="Fake Multi", min_players=2, max_players=2, default_players=2,
                editions=("plain",), information="perfect", simultaneous=False, sealed=False, chance=False)


class MultiGame(Game):
    """Seat 0 adds numbers three times, then seat 1 once; a round is four actions."""

    info = INFO
    bots: dict = {}

    def configure(self, options, players):
        return dict(options)

    def setup(self, config, players, seed):
        return {"round": 1, "total": 0, "left": 3}

    def turn(self, state):
        return Turn("sequential", (0,))

    def apply(self, state, seat, action):
        return dict(state, total=state["total"] + action["add"], left=state["left"] - 1)

    def default_action(self, state, seat):
        return {"add": 1}

    def result(self, state):
        return None

    def view(self, state, seat, secret=None):
        return {"round": state["round"], "total": state["total"], "left": state["left"]}

    def check(self, state, seat, action):
        if not isinstance(action, dict) or not isinstance(action.get("add"), int) or isinstance(action.get("add"), bool):
            raise IllegalAction("an action is {\"add\": N}")
        if not 1 <= action["add"] <= 5:
            raise IllegalAction("add 1 to 5, not %d" % action["add"])
        return {"add": action["add"]}

    def legal_actions(self, state, seat, secret=None):
        return [{"add": n} for n in range(1, 6)]

    def describe(self, state, seat, action):
        return "seat %d adds %d" % (seat, action["add"])


@dataclass
class FakeTable:
    """Just what the shell reads from a core.table.Table."""

    game: Any = field(default_factory=MultiGame)
    players: int = 2
    phase: int = 0
    count: int = 1
    state: dict = field(default_factory=lambda: {"round": 1, "total": 0, "left": 3})
    moves: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    timeouts: dict = field(default_factory=dict)
    over: bool = False
    config: dict = field(default_factory=dict)
    genesis: Any = field(default_factory=lambda: SimpleNamespace(doc={"game": "fake-multi", "seats": [b"a", b"b"]}))

    @property
    def step(self):
        return SimpleNamespace(kind="event", purpose="move", label="round %d: seat 0 adds" % self.state["round"], seats=(0,))

    def missing(self):
        return [0]

    def view(self, seat):
        return self.game.view(self.state, seat)

    def result(self):
        return None

    before: dict = field(default_factory=dict)

    def state_before(self, k):
        return self.before.get(k)

    def act(self, seat, action):
        """Apply one action: the same seat stays to act while it has actions left this round."""
        self.before[len(self.moves)] = self.state
        self.moves.append((self.count, self.phase, seat, action))
        self.state = dict(self.state, total=self.state["total"] + action["add"], left=self.state["left"] - 1)
        self.phase += 1
        self.count += 1


class CountScreen(Screen):
    """A screen with a draft kept across decisions: a running note of what was sent."""

    commands = {"add": "add", "note": "note"}

    def __init__(self):
        self.decisions = 0
        self.note = ""

    def on_decision(self, ctx):
        self.decisions += 1
        return Say("decision %d of round %d: %d action(s) left" % (self.decisions, ctx.view["round"], ctx.view["left"]))

    def decision_label(self, ctx):
        return "round %d, %d left" % (ctx.view["round"], ctx.view["left"])

    def draft_line(self, ctx):
        return [("", "Note: %s | total %d" % (self.note or "-", ctx.view["total"] if ctx.view else 0))]

    def command(self, ctx, name, args):
        if name == "note":
            self.note = " ".join(args)
            return Say("noted")
        if len(args) != 1 or not args[0].isdigit():
            raise CommandError("usage: add N")
        probs = ctx.problems({"add": int(args[0])})
        if probs:
            raise CommandError("; ".join(probs))
        return Send({"add": int(args[0])})


async def test_decide_is_called_several_times_in_one_round():
    table = FakeTable()
    screen = CountScreen()
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(0, input=inp, output=DummyOutput(), screen=screen, send_at_once=True)  # these tests are about the moves, not the draft
            ui.update(table, [], "")
            async with running(ui):
                got = []
                for n, typed in enumerate(["add 2", "add 9", "add 3"]):
                    async def decide():
                        got.append(await ui.decide(decision_for(table, 0)))

                    before = len(got)
                    async with trio.open_nursery() as nursery:
                        nursery.start_soon(decide)
                        await until(lambda: ui.composer.asked is not None and "YOUR MOVE" in ui.render_text())
                        text = flat(ui)
                        assert "YOUR MOVE (round 1, %d left)" % table.state["left"] in text
                        if n == 0:
                            assert "decision 1 of round 1: 3 action(s) left" in text
                            inp.send_text("note keep me" + ENTER)
                            await until(lambda: "Note: keep me" in flat(ui))
                        inp.send_text(typed + ENTER)
                        if typed == "add 9":           # the game refuses it: nothing is sent, the decision stays open
                            await until(lambda: "add 1 to 5, not 9" in flat(ui))
                            await trio.sleep(0.05)
                            assert len(got) == before
                            inp.send_text("add 4" + ENTER)
                    assert got[-1] in ({"add": 2}, {"add": 4}, {"add": 3})
                    table.act(0, got[-1])                  # the node applies it; the same seat acts again
                    await until(lambda: "sent: seat 0 adds %d" % got[-1]["add"] in flat(ui))   # while its step is open
                    ui.update(table, [], "")
                    # once applied, the log says it; the message about the step it closed is gone (issue 23)
                    await until(lambda: "seat 0 (you) adds %d" % got[-1]["add"] in flat(ui))
                    assert "sent: seat 0 adds" not in flat(ui)
                    assert "Note: keep me" in flat(ui)     # the shell never resets the screen's draft
                assert got == [{"add": 2}, {"add": 4}, {"add": 3}]
                assert screen.decisions == 3 and table.state["total"] == 9
                assert "round 1" in flat(ui) and "seat 0 (you) adds 4" in flat(ui)
                inp.send_text("\x11\x11")
                await until(lambda: ui.closed)


def test_the_live_log_words_each_past_move_against_the_state_it_was_made_in():
    """A log line describes a move with the state it was applied to (Table.state_before), not the
    latest one: "adds 4 to 2", not "adds 4 to 9" once the total has moved on."""

    class TotalScreen(CountScreen):
        def describe(self, game, state, seat, action):
            return "seat %d adds %d to %d" % (seat, action["add"], state["total"])

    table = FakeTable()
    for n in (2, 4, 3):
        table.act(0, {"add": n})
    lines = [text for _, text in snapshot_of(table, 1, screen=TotalScreen()).log]
    assert [line.split("  ", 1)[1] for line in lines] == ["seat 0 adds 2 to 0", "seat 0 adds 4 to 2", "seat 0 adds 3 to 6"]
    table.before.clear()                 # let go (older than the table keeps): the latest state is used
    lines = [text for _, text in snapshot_of(table, 1, screen=TotalScreen()).log]
    assert [line.split("  ", 1)[1] for line in lines] == ["seat 0 adds %d to 9" % n for n in (2, 4, 3)]


async def test_generic_screen_sends_json_and_picks_from_the_legal_actions():
    table = FakeTable()
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(0, input=inp, output=DummyOutput(), send_at_once=True)  # these tests are about the moves, not the draft
            ui.update(table, [], "")
            assert type(ui.screen) is GenericScreen       # no cli/screens/fake_multi.py
            async with running(ui):
                got = []

                async def decide():
                    got.append(await ui.decide(decision_for(table, 0)))

                async with trio.open_nursery() as nursery:
                    nursery.start_soon(decide)
                    await until(lambda: "Legal actions" in flat(ui))
                    assert '0 {"add": 1}' in flat(ui) and "total: 0" in flat(ui)
                    inp.send_text('act {"add": 7}' + ENTER)
                    await until(lambda: "to fix: add 1 to 5, not 7" in flat(ui))
                    inp.send_text("act {nonsense" + ENTER)
                    await until(lambda: "act wants the action as JSON" in flat(ui))
                    inp.send_text('act {"add": 5}' + ENTER + ENTER)
                assert got == [{"add": 5}]
                table.act(0, got[0])
                ui.update(table, [], "")
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(decide)
                    await until(lambda: ui.composer.asked is not None and "Legal actions" in flat(ui))
                    inp.send_text("pick 9" + ENTER)
                    await until(lambda: "usage: pick N, with N from 0 to 4" in flat(ui))
                    inp.send_text("pick 1" + ENTER)
                assert got == [{"add": 5}, {"add": 2}]
                inp.send_text("\x11\x11")
                await until(lambda: ui.closed)


def test_shell_commands_and_errors_without_a_decision():
    table = FakeTable()
    ui = GameUI(0, output=DummyOutput(), screen=CountScreen())
    ui.update(table, [], "")
    with pytest.raises(CommandError, match="unknown command 'frob'; commands: add, note, submit, help"):
        ui._execute("frob")
    with pytest.raises(CommandError, match="it is not your turn to move yet"):
        ui._execute("")
    ui._execute("help")
    assert "Commands" in flat(ui) and "q, Ctrl-Q" in flat(ui)
    spectator = GameUI(None, output=DummyOutput(), screen=CountScreen())
    spectator.update(table, [], "")
    with pytest.raises(CommandError, match="you are spectating"):
        spectator._execute("add 1")


# --------------------------------------------------------------------------- a game with no screen module, replayed


def test_replay_of_a_game_without_a_screen_uses_the_generic_screen():
    from .helpers import GAMES, simulate

    _, _, peers = simulate(2, seed=5, config={"rounds": 2})
    entries = list(peers[0].log_entries)
    ui = ReplayUI(entries, 0, output=DummyOutput(), games=GAMES, start=-1)
    assert type(ui.screen) is GenericScreen
    text = flat(ui)
    assert "Toy dice" in text.split("Grid")[0] and "GAME OVER" in text and "Table (your view)" in text
    ui.goto(0)
    assert "the table opens (genesis): Toy dice (tests only) for 2 seats; edition classic, rounds 2" in flat(ui)
    ui.next_mark()
    first = ui.pos
    assert first > 0 and ui._snaps[first].moves > ui._snaps[first - 1].moves
    ui.next_mark()
    assert ui.pos > first
    ui.prev_mark()
    assert ui.pos == first
    ui._toggle_help(True)
    assert "to the next / previous entry that applied moves" in flat(ui)
