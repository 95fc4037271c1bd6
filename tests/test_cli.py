"""The ``easel`` command as a user runs it: ``python -m cli ...`` in subprocesses."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

import core.games

from .netutil import easel
from core.logfile import parse as parse_log
from core.table import replay

ROOT = Path(__file__).resolve().parent.parent
DEMO_TIMEOUT = 90


def run_demo(out: Path, seed: str = "1", players: int = 3) -> tuple[subprocess.CompletedProcess, dict]:
    r = easel("demo", "--players", players, "--seed", seed, "--out", out, "--json", home=out / "home", timeout=DEMO_TIMEOUT)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
    assert len(lines) == 1, "demo --json must print exactly one line: %r" % r.stdout
    return r, json.loads(lines[0])


@pytest.fixture(scope="module")
def demo1(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo1")
    r, obj = run_demo(out)
    return out, r, obj


@pytest.fixture
def good_log(demo1, tmp_path) -> Path:
    """A private copy of a finished demo log."""
    p = tmp_path / "game.log"
    p.write_bytes(Path(demo1[2]["logs"][0]).read_bytes())
    return p


def head_of(path: Path) -> str:
    return replay(parse_log(Path(path).read_bytes()).entries, core.games).head.hex()


def no_traceback(r: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout, r.stderr


# --------------------------------------------------------------------------- demo
def test_demo_json(demo1):
    out, r, obj = demo1
    assert {"logs", "head", "results", "seconds"} <= set(obj)
    assert len(obj["logs"]) == 3
    assert isinstance(obj["head"], str) and len(obj["head"]) == 64
    for lp in obj["logs"]:
        assert Path(lp).exists()
        assert head_of(lp) == obj["head"]
    datas = [Path(lp).read_bytes() for lp in obj["logs"]]
    assert datas[0] == datas[1] == datas[2]
    assert obj["results"] and obj["results"]["ranking"]
    assert isinstance(obj["seconds"], (int, float)) and obj["seconds"] > 0
    no_traceback(r)


def test_demo_same_seed_same_results_even_in_a_used_out_dir(demo1):
    out, _, first = demo1
    r, again = run_demo(out)  # the same --out: earlier games' logs are still there
    assert again["head"] is not None, "a demo into a used --out directory must still report its own game"
    assert again["results"] == first["results"]
    assert set(again["logs"]).isdisjoint(first["logs"])  # a new table (new game id), same outcome
    assert again["head"] != first["head"]
    for lp in again["logs"]:
        assert head_of(lp) == again["head"]


def test_demo_bad_player_count_is_usage_error(tmp_path):
    r = easel("demo", "--players", "1", "--seed", "1", "--out", tmp_path / "o", home=tmp_path)
    assert r.returncode == 2 and "players" in r.stderr
    no_traceback(r)


# --------------------------------------------------------------------------- audit
def test_audit_good_log(good_log):
    r = easel("audit", good_log)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("VALID")
    no_traceback(r)


def test_audit_json_keys(good_log):
    r = easel("audit", "--json", good_log)
    assert r.returncode == 0, r.stdout + r.stderr
    rep = json.loads(r.stdout)
    assert {"valid", "complete", "game", "events", "head", "results", "problems"} <= set(rep)
    assert rep["valid"] is True and rep["complete"] is True and rep["game"] == "painting"
    assert rep["events"] == 43 and rep["head"] == head_of(good_log)
    assert rep["problems"] == [] and rep["results"]["ranking"]


def _entry_span(data: bytes, i: int) -> tuple[int, int]:
    p = parse_log(data)
    start = p.offsets[i] + 4
    return start, start + len(p.entries[i])


@pytest.mark.parametrize("index", [0, 7, 20])
def test_audit_flipped_byte_names_the_entry(good_log, index):
    data = bytearray(good_log.read_bytes())
    a, b = _entry_span(bytes(data), index)
    data[(a + b) // 2] ^= 0x01
    good_log.write_bytes(bytes(data))
    r = easel("audit", "--json", good_log)
    assert r.returncode == 1, r.stdout + r.stderr
    rep = json.loads(r.stdout)
    assert rep["valid"] is False
    assert any(p.get("index") == index for p in rep["problems"]), rep["problems"]
    r = easel("audit", good_log)
    assert r.returncode == 1 and "entry %d" % index in r.stdout
    no_traceback(r)


@pytest.mark.parametrize("index", [5, 30, 42])
def test_audit_bad_signature_with_good_checksum_names_the_entry(good_log, index):
    data = bytearray(good_log.read_bytes())
    a, b = _entry_span(bytes(data), index)
    data[b - 1] ^= 0x01  # last byte of an event is in its signature
    data[b : b + 4] = zlib.crc32(bytes(data[a:b])).to_bytes(4, "big")
    good_log.write_bytes(bytes(data))
    r = easel("audit", "--json", good_log)
    assert r.returncode == 1, r.stdout + r.stderr
    rep = json.loads(r.stdout)
    assert rep["valid"] is False and rep["complete"] is False
    hits = [p for p in rep["problems"] if p.get("index") == index]
    assert hits and "signature" in hits[0]["problem"], rep["problems"]


def test_audit_truncated_log_is_valid_but_unfinished(good_log):
    data = good_log.read_bytes()
    p = parse_log(data)
    good_log.write_bytes(data[: p.offsets[10]])
    r = easel("audit", "--json", good_log)
    assert r.returncode == 1
    rep = json.loads(r.stdout)
    assert rep["valid"] is True and rep["complete"] is False and rep["events"] == 10


def test_audit_several_logs(demo1, tmp_path):
    from core.logfile import LOG_MAGIC, encode_record

    from .netutil import Sim

    a = Path(demo1[2]["logs"][0])
    r = easel("audit", "--json", a, demo1[2]["logs"][1])
    assert r.returncode == 0 and json.loads(r.stdout)["valid"] is True
    # a prefix of the same game agrees with it
    prefix = tmp_path / "prefix.log"
    data = a.read_bytes()
    prefix.write_bytes(data[: parse_log(data).offsets[5]])
    r = easel("audit", "--json", a, prefix)
    assert json.loads(r.stdout)["valid"] is True
    # two finished logs of one game (same genesis, same keys) whose moves differ: they disagree
    paths = []
    for bot_seed in (3, 4):
        sim = Sim(2, seed=3)
        sim.seed = bot_seed  # other bot choices, same table
        sim.start()
        sim.run_until(max_rounds=2000)
        p = tmp_path / ("fork%d.log" % bot_seed)
        p.write_bytes(LOG_MAGIC + b"".join(encode_record(e) for e in sim.peers[0].log_entries))
        assert easel("audit", p).returncode == 0
        paths.append(p)
    assert parse_log(paths[0].read_bytes()).entries[0] == parse_log(paths[1].read_bytes()).entries[0]
    r = easel("audit", "--json", *paths)
    assert r.returncode == 1
    rep = json.loads(r.stdout)
    assert rep["valid"] is False
    assert any("disagree" in p["problem"] or "equivocat" in p["problem"] for p in rep["problems"])
    no_traceback(r)


@pytest.mark.parametrize("args", [["audit", "/nonexistent/easel.log"], ["audit"], ["audit", "--json"]])
def test_audit_usage_errors(args, tmp_path):
    r = easel(*args, home=tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip()
    no_traceback(r)


def test_audit_not_a_log(tmp_path):
    f = tmp_path / "junk"
    f.write_bytes(b"hello, not a log\n" * 10)
    r = easel("audit", f)
    assert r.returncode == 1
    no_traceback(r)


# --------------------------------------------------------------------------- show
def test_show_final_state(good_log):
    r = easel("show", good_log, "--json")
    assert r.returncode == 0, r.stderr
    obj = json.loads(r.stdout)
    assert obj["entry"] == 42 and obj["entries"] == 43 and obj["game"] == "painting"
    assert obj["table_step"] is None and obj["result"]["ranking"]
    assert obj["head"] == head_of(good_log)
    assert obj["view"] is not None


def test_show_at_entry_as_seat(good_log):
    r = easel("show", good_log, "--at", "5", "--as", "0", "--json")
    assert r.returncode == 0, r.stderr
    obj = json.loads(r.stdout)
    assert obj["entry"] == 5 and obj["seat"] == 0 and obj["result"] is None
    assert obj["table_step"]["purpose"] == "seed" and obj["table_step"]["kind"] == "reveal"
    r0 = json.loads(easel("show", good_log, "--at", "0", "--json").stdout)
    assert r0["entry"] == 0 and r0["view"] is None and r0["table_step"]["kind"] == "commit"
    # a seat's view mid-game differs from the public view only in what that seat may see
    mid = json.loads(easel("show", good_log, "--at", "20", "--as", "1", "--json").stdout)
    assert mid["view"] is not None and mid["seat"] == 1


@pytest.mark.parametrize("extra,needle", [(["--at", "43"], "--at"), (["--at", "-1"], "--at"), (["--at", "1000"], "--at"), (["--as", "3"], "--as")])
def test_show_out_of_range(good_log, extra, needle):
    r = easel("show", good_log, *extra, "--json")
    assert r.returncode == 2
    assert needle in r.stderr
    assert r.stdout == ""
    no_traceback(r)


def test_show_errors(tmp_path, good_log):
    junk = tmp_path / "junk"
    junk.write_bytes(b"\x00" * 100)
    for args in (["show", junk, "--json"], ["show", tmp_path / "missing", "--json"], ["show", good_log, "--at", "x", "--json"]):
        r = easel(*args, home=tmp_path)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert r.stderr.strip()
        no_traceback(r)
    # JSON is show's only output: --json may be left out
    r = easel("show", good_log, home=tmp_path)
    assert r.returncode == 0 and json.loads(r.stdout)["entry"] >= 1


# --------------------------------------------------------------------------- live commands: errors
def test_host_unknown_game_in_a_terminal(tmp_path):
    master, slave = pty.openpty()
    env = dict(os.environ, EASEL_HOME=str(tmp_path))
    try:
        r = subprocess.run([sys.executable, "-m", "cli", "host", "--game", "chess"], cwd=ROOT, env=env,
                           stdin=slave, stdout=slave, stderr=subprocess.PIPE, timeout=30)
    finally:
        os.close(slave)
        os.close(master)
    err = r.stderr.decode()
    assert r.returncode == 2
    assert "unknown game" in err
    assert "Traceback" not in err


def test_host_unknown_game_headless(tmp_path):
    r = easel("host", "--game", "chess", "--auto", "random", "--bind", "127.0.0.1", "--no-advertise", home=tmp_path)
    assert r.returncode == 2 and "unknown game" in r.stderr
    no_traceback(r)


def test_host_unknown_game_without_terminal_names_the_game(tmp_path):
    r = easel("host", "--game", "chess", home=tmp_path)
    assert r.returncode == 2
    assert "unknown game" in r.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["host", "--game", "chess"],
        ["host", "--players", "1", "--auto", "random", "--bind", "127.0.0.1", "--no-advertise"],
        ["bot", "--join", "nonsense"],
        ["bot", "--join", "127.0.0.1:0"],
        ["bot", "--join", "127.0.0.1:99999"],
        ["bot", "--join", "127.0.0.1:5000", "--level", "genius"],
        ["bot"],
        ["resume", "/nonexistent/game", "--level", "random"],
        ["demo", "--players", "3", "--out", "x"],
        ["frobnicate"],
        ["show"],
    ],
)
def test_error_paths_exit_2_without_traceback(args, tmp_path):
    r = easel(*args, home=tmp_path)
    assert r.returncode == 2, (args, r.stdout, r.stderr)
    assert r.stderr.strip()
    no_traceback(r)


def test_resume_a_directory_that_is_not_a_game(tmp_path):
    d = tmp_path / "notagame"
    d.mkdir()
    (d / "roster").write_bytes(b"\xc1garbage")
    r = easel("resume", d, "--level", "random", home=tmp_path / "home")
    assert r.returncode == 2 and "not a game directory" in r.stderr
    no_traceback(r)


# --------------------------------------------------------------------------- games, options, bot levels
def test_games_lists_every_game_with_its_options_text_and_json():
    r = easel("games")
    assert r.returncode == 0, r.stderr
    for name in core.games.names():
        g = core.games.get(name)
        assert "%s - %s" % (name, g.info.title) in r.stdout
        assert "players: %d-%d (default %d)" % (g.info.min_players, g.info.max_players, g.info.default_players) in r.stdout
        assert "editions: %s" % ", ".join(g.info.editions) in r.stdout
        for option, default in g.info.options.items():
            assert "    %-20s default " % option in r.stdout
            helps = getattr(g.info, "option_help", {}) or {}
            if helps.get(option):
                assert helps[option] in r.stdout
    no_traceback(r)
    r = easel("games", "--json")
    assert r.returncode == 0, r.stderr
    games = json.loads(r.stdout)
    assert [g["name"] for g in games] == core.games.names()
    for g in games:
        info = core.games.get(g["name"]).info
        assert g["title"] == info.title and g["editions"] == list(info.editions)
        assert (g["min_players"], g["max_players"], g["default_players"]) == (info.min_players, info.max_players, info.default_players)
        assert {o["name"]: o["default"] for o in g["options"]} == dict(info.options)
        assert g["bots"] == list(core.games.get(g["name"]).bots)
        assert [lv["name"] for lv in g["bot_levels"]] == g["bots"] and all(lv["about"] for lv in g["bot_levels"])
        assert g["default_level"] in g["bots"]
    painting = next(g for g in games if g["name"] == "painting")
    assert painting["bots"] == ["random", "heuristic", "hard"] and painting["default_level"] == "heuristic"
    r = easel("games")
    assert "bot levels: random, heuristic, hard (default heuristic)" in r.stdout
    assert "hard " in r.stdout and "guesses the others' sealed bids" in r.stdout


def test_option_values_are_parsed_as_int_bool_or_text():
    from cli.common import UsageError, parse_option_value, parse_options

    assert parse_option_value("12") == 12 and parse_option_value("-3") == -3 and parse_option_value("+4") == 4
    for word in ("true", "Yes", "ON"):
        assert parse_option_value(word) is True
    for word in ("false", "no", "Off"):
        assert parse_option_value(word) is False
    assert parse_option_value("mm8") == "mm8" and parse_option_value("1.5") == "1.5"
    assert parse_options(["a=1", "b=x=y", "a=2", "c="]) == {"a": 2, "b": "x=y", "c": ""}
    for bad in (["novalue"], ["=3"]):
        with pytest.raises(UsageError, match="--option wants KEY=VALUE"):
            parse_options(bad)


def test_table_defaults_come_from_the_game():
    import argparse

    from cli.common import UsageError, check_level, default_level
    from cli.options import LiveArgs, resolve_table

    args = LiveArgs(cmd="play", option=["rounds=2"])
    resolve_table(args)
    game = core.games.get(core.games.names()[0])
    assert args.game == game.info.name and args.players == game.info.default_players
    assert args.options == {"rounds": 2}
    levels = list(game.bots)
    assert args.level == (levels[1] if len(levels) > 1 else levels[0]) == default_level(game)
    fake = argparse.Namespace(bots={"only": None}, info=game.info)
    assert default_level(fake) == "only"
    fake = argparse.Namespace(bots={"a": None, "b": None, "c": None}, info=game.info)
    assert default_level(fake) == "b" and check_level(fake, "c") == "c"
    with pytest.raises(UsageError, match=r"unknown bot level 'z' for .* \(known: a, b, c\)"):
        check_level(fake, "z")
    args = LiveArgs(cmd="play", option=["nope=1"])
    with pytest.raises(UsageError, match="unknown option 'nope'"):
        resolve_table(args)


@pytest.mark.parametrize(
    "extra,needle",
    [
        (["--option", "no_such_option=1"], "unknown option 'no_such_option'"),
        (["--option", "rounds=lots"], "rounds"),
        (["--option", "rounds"], "--option wants KEY=VALUE"),
        (["--edition", "nope"], "nope"),
        (["--level", "genius"], "unknown bot level 'genius'"),
        (["--game", "chess"], "unknown game 'chess'"),
    ],
)
def test_bad_options_and_levels_are_one_line_usage_errors(tmp_path, extra, needle):
    for cmd in (["demo", "--seed", "1", "--out", tmp_path / "o"], ["host", "--auto", "random", "--no-advertise"], ["play"]):
        r = easel(*cmd, *extra, home=tmp_path)
        assert r.returncode == 2, (cmd, extra, r.stdout, r.stderr)
        assert needle in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
        no_traceback(r)


def test_demo_with_options_opens_the_table_with_them(tmp_path):
    game = core.games.names()[0]
    option = "rounds"
    if option not in core.games.get(game).info.options:
        pytest.skip("the default game has no rounds option")
    r = easel("demo", "--game", game, "--players", 2, "--option", "%s=1" % option, "--seed", "7", "--out", tmp_path,
              "--json", home=tmp_path / "home", timeout=DEMO_TIMEOUT)
    assert r.returncode == 0, r.stdout + r.stderr
    obj = json.loads(r.stdout)
    t = replay(parse_log(Path(obj["logs"][0]).read_bytes()).entries, core.games)
    assert t.genesis.doc["game"] == game and t.genesis.doc["config"][option] == 1 and t.over


def _junk_dir(d: Path) -> Path:
    """A directory holding a ``cli.py``, ``core.py`` and ``p2p.py`` that are not easel's."""
    d.mkdir(parents=True, exist_ok=True)
    for name in ("cli", "core", "p2p"):
        (d / ("%s.py" % name)).write_text("raise SystemExit('the junk %s.py in the current directory ran')\n" % name)
    return d


def test_demo_from_a_directory_holding_a_cli_py_and_a_core_py(tmp_path):
    """``easel demo`` started in a directory that holds a stray ``cli.py`` / ``core.py``:
    every peer it spawns still runs easel (they used to run ``python -m cli``, which
    picks up ``./cli.py`` first: "FAILED: 0 peers")."""
    junk = _junk_dir(tmp_path / "cwd")
    env = dict(os.environ)
    env["EASEL_HOME"] = str(tmp_path / "home")
    env.pop("EASEL_FAULTS", None)
    env.pop("PYTHONPATH", None)
    # as the installed ``easel`` script starts: its own directory (here: the project's) first on sys.path, not the cwd
    start = "import sys; sys.path[0] = %r; from cli.main import main; sys.exit(main())" % str(ROOT)
    r = subprocess.run([sys.executable, "-c", start, "demo", "--game", "painting", "--players", "2", "--option", "rounds=1",
                        "--seed", "7", "--out", str(tmp_path / "out"), "--json"], cwd=junk, env=env, capture_output=True,
                       text=True, timeout=DEMO_TIMEOUT, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "junk" not in r.stdout + r.stderr
    obj = json.loads(r.stdout)
    assert len(obj["logs"]) == 2 and obj["head"] is not None and len(set(obj["heads"])) == 1
    assert replay(parse_log(Path(obj["logs"][0]).read_bytes()).entries, core.games).over


def test_every_child_easel_is_started_immune_to_the_current_directory(tmp_path, monkeypatch):
    """Bots of ``play``/``resume`` and demo peers are all started by easel_command + easel_env:
    ``python -P`` (no cwd on sys.path) importing the code this process runs."""
    from cli import bots, children

    started = []

    class FakePopen:
        def __init__(self, cmd, env=None, **kw):
            started.append((cmd, env))

    with monkeypatch.context() as m:
        m.setattr(bots.subprocess, "Popen", FakePopen)
        bots.spawn_bots(1, ("127.0.0.1", 9), "random", None)
    assert started and started[0][0][:4] == [sys.executable, "-P", "-m", "cli"]
    assert started[0][1]["PYTHONPATH"].split(os.pathsep)[0] == str(ROOT)
    # and such a child, started in a directory of junk, is easel
    r = subprocess.run(children.easel_command("--version"), env=children.easel_env(), cwd=_junk_dir(tmp_path / "cwd"),
                       capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert r.returncode == 0 and r.stdout.startswith("easel "), r.stdout + r.stderr


# --------------------------------------------------------------------------- the CLI as people expect it
def test_version():
    from cli.main import _version

    r = easel("--version")
    assert r.returncode == 0 and r.stdout.strip() == "easel %s" % _version()
    assert _version()[0].isdigit()


def _subparsers():
    import argparse

    from cli.main import build_parser

    ap = build_parser()
    subs = [a for a in ap._actions if isinstance(a, argparse._SubParsersAction)][0]
    return ap, subs.choices


def test_every_option_of_every_command_is_described_with_units_and_choices():
    import argparse

    ap, subs = _subparsers()
    assert {"play", "host", "join", "bot", "resume", "demo", "games", "audit", "replay", "show", "export"} <= set(subs)
    for name, p in [("easel", ap), *subs.items()]:
        for a in p._actions:
            if a.help == argparse.SUPPRESS or isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            assert a.help and len(a.help) >= 12, (name, a.option_strings or a.dest)
            if a.type in (int, float) or a.dest in ("timeout", "wait"):
                text = a.help.lower()
                # a number says its unit or its range
                assert any(w in text for w in ("seconds", " to ", "-65535", "players-1", "allowed")), (name, a.dest, a.help)
        text = p.format_help()
        assert "help" in text
    for cmd in ("play", "host", "demo"):
        h = subs[cmd].format_help().replace("\n", " ")
        h = " ".join(h.split())
        for game in core.games.names():
            g = core.games.get(game)
            assert game in h
            for edition in g.info.editions:
                assert edition in h
            for level in g.bots:
                assert level in h
        assert "SECONDS" in h and "seconds" in h
    r = easel("show", "--help")
    assert r.returncode == 0 and "table_phase" in r.stdout and "missing" in r.stdout


@pytest.mark.parametrize(
    "args,usage",
    [
        (["play", "--port", "3"], "usage: easel play"),
        (["show", "--at", "x", "f.log"], "usage: easel show"),
        (["audit", "--bogus", "f.log"], "usage: easel audit"),
        (["export", "f.log"], "usage: easel export"),
        (["host", "--players", "many"], "usage: easel host"),
        (["join", "a", "b"], "usage: easel join"),
    ],
)
def test_a_usage_error_shows_the_commands_usage(args, usage, tmp_path):
    r = easel(*args, home=tmp_path)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith(usage), r.stderr
    assert "easel %s: error:" % args[0] in r.stderr
    no_traceback(r)


@pytest.mark.parametrize(
    "args,needle",
    [
        (["play", "--players", "99"], "players, not 99"),
        (["play", "--timeout", "0"], "--timeout must be 1..86400"),
        (["host", "--bots", "9"], "--bots must be between 0 and"),
        (["host", "--port", "70000"], "--port must be"),
        (["join", "nonsense"], "expected HOST:PORT"),
        (["resume", "/nonexistent/game"], "not a game directory"),
    ],
)
def test_argument_errors_come_before_the_terminal_check(args, needle, tmp_path):
    r = easel(*args, home=tmp_path)   # stdin and stdout are not a terminal
    assert r.returncode == 2
    assert needle in r.stderr and "terminal" not in r.stderr, r.stderr
    no_traceback(r)


def _closed_port() -> int:
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_join_says_connecting_with_progress_and_ctrl_c_cancels(tmp_path):
    import fcntl
    import select
    import termios
    import time

    port = _closed_port()
    master, slave = pty.openpty()

    def controlling_tty():
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    env = dict(os.environ, EASEL_HOME=str(tmp_path))
    env.pop("EASEL_FAULTS", None)
    p = subprocess.Popen([sys.executable, "-m", "cli", "join", "127.0.0.1:%d" % port, "--name", "Ann"], cwd=ROOT, env=env,
                         stdin=slave, stdout=slave, stderr=slave, preexec_fn=controlling_tty)
    os.close(slave)
    out = b""

    def read_for(seconds: float) -> None:
        nonlocal out
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    return
                if not chunk:
                    return
                out += chunk

    try:
        t0 = time.monotonic()
        while b"attempt 2," not in out and time.monotonic() - t0 < 10:
            read_for(0.1)
        text = out.decode(errors="replace")
        assert "connecting to 127.0.0.1:%d" % port in text, text
        assert "Ctrl-C cancels" in text and "attempt 2," in text
        # it says so from the first second (interpreter start-up included)
        assert time.monotonic() - t0 < 8
        os.write(master, b"\x03")
        rc = p.wait(timeout=10)
        read_for(0.3)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        os.close(master)
    text = out.decode(errors="replace")
    assert rc == 130, text
    assert "interrupted" in text and "Traceback" not in text


def test_join_gives_up_on_an_address_that_never_answers(tmp_path):
    import trio

    from cli.common import UsageError
    from cli.joining import Connecting, reach_table

    port = _closed_port()
    shown = Connecting("127.0.0.1:%d" % port, stream=open(os.devnull, "w"), live=False)

    async def go():
        from p2p.identity import load_or_create

        ident = load_or_create(tmp_path / "id")
        await reach_table("127.0.0.1", port, ident, 1, name="x", expect_fp=None, progress=shown, patience=0.8)

    with pytest.raises(UsageError, match=r"cannot reach 127\.0\.0\.1:%d" % port):
        trio.run(go)
    assert shown.attempts >= 2


@pytest.mark.parametrize("cmd", [["games"], ["games", "--json"], ["show", None], ["audit", "--json", None], ["export", None, "--html", "-"]])
def test_no_traceback_when_the_reader_closes_the_pipe(cmd, good_log, tmp_path):
    args = [str(good_log) if a is None else a for a in cmd]
    env = dict(os.environ, EASEL_HOME=str(tmp_path))
    p = subprocess.Popen([sys.executable, "-m", "cli", *args], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()   # like `| head -c 0`: the reader is gone before we write
    err = p.stderr.read().decode()
    rc = p.wait(timeout=60)
    assert rc == 141, err
    assert err == "", err


_SIMULATED: dict = {}


def simulated_log(game: str) -> tuple[bytes, bytes | None]:
    """A finished 3-seat game played in memory (once per game): seat 1's log file and its seat secret (if any)."""
    from .helpers import log_file, simulate

    if game not in _SIMULATED:
        _, _, peers = simulate(3, 1, game=game)
        secret = peers[1].seat_secret if core.games.get(game).info.secrets else None
        _SIMULATED[game] = (log_file(peers[1].log_entries), secret)
    return _SIMULATED[game]


def show_json(capsys, *args) -> dict:
    """``easel show ARGS --json`` run in this process (many calls: no interpreter start for each)."""
    from cli.main import main

    rc = main(["show", *map(str, args), "--json"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    return json.loads(out.out)


# top-level fields a game's view may also have: the same meaning, the same value (show --help says so)
SAME_IN_VIEW = {"game", "seat", "result"}


@pytest.mark.parametrize("game", core.games.names())
def test_show_json_has_one_meaning_per_field(game, tmp_path, capsys):
    from cli.main import SHOW_FIELDS

    log = tmp_path / "game.log"
    log.write_bytes(simulated_log(game)[0])
    n = len(parse_log(log.read_bytes()).entries)
    for at in sorted({0, 1, n // 4, n // 2, 3 * n // 4, n - 1}):
        for seat in (None, 0):
            obj = show_json(capsys, log, "--at", at, *([] if seat is None else ["--as", seat]))
            # the table's fields are table_*: "phase" and "step" alone are left to the game's view
            assert "phase" not in obj and "step" not in obj and isinstance(obj["table_phase"], int)
            step = obj["table_step"]
            if step is not None:
                assert set(step) == {"table_phase", "kind", "purpose", "label", "seats", "missing"}
                assert step["table_phase"] == obj["table_phase"]
            for key in obj:
                assert "\n  %s " % key in SHOW_FIELDS, "show --help documents %s" % key
            view = obj["view"]
            if isinstance(view, dict):
                shared = set(view) & set(obj)
                assert shared <= SAME_IN_VIEW, (game, at, shared - SAME_IN_VIEW)
                for key in shared:
                    assert view[key] == obj[key], (game, at, key, view[key], obj[key])
                # "phase", where it appears, is the game's own (inside its view)
                assert isinstance(view.get("phase", ""), str)


@pytest.mark.skipif("modern-art" not in core.games.names(), reason="Modern Art is not installed")
def test_show_as_a_seat_includes_its_own_hand_and_no_one_elses(tmp_path, capsys):
    from core.encoding import encode
    from core.logfile import SECRETS_MAGIC

    from .helpers import log_file

    data, secret = simulated_log("modern-art")
    peer = tmp_path / "peer-1"                      # a peer's game directory: its log beside its secrets file
    peer.mkdir()
    (peer / "log").write_bytes(data)
    (peer / "secrets").write_bytes(log_file([encode([-1, secret, b""])], SECRETS_MAGIC))
    copy = tmp_path / "copy.log"                    # the log alone: the secrets disclosed at the end
    copy.write_bytes(data)
    mid = len(parse_log(data).entries) // 2

    own = show_json(capsys, peer / "log", "--at", mid, "--as", 1)
    assert own["secret_source"] == "secrets file"
    cards = own["view"]["cards"]
    assert cards and {c["pos"] for c in cards} <= set(own["view"]["hands"][1])
    later = show_json(capsys, copy, "--at", mid, "--as", 1)
    assert later["secret_source"] == "disclosure" and later["view"] == own["view"]
    # seat 0, from seat 1's directory: seat 1's secrets file is not seat 0's; seat 0's own hand only
    other = show_json(capsys, peer / "log", "--at", mid, "--as", 0)
    assert other["secret_source"] == "disclosure"
    assert other["view"]["cards"] and {c["pos"] for c in other["view"]["cards"]} <= set(other["view"]["hands"][0])
    public = show_json(capsys, peer / "log", "--at", mid)
    assert public["secret_source"] is None and "cards" not in public["view"]


@pytest.mark.skipif("modern-art" not in core.games.names(), reason="Modern Art is not installed")
def test_replay_as_a_seat_shows_its_own_hand_from_its_secret(tmp_path):
    """easel replay --as SEAT finds the seat's secret as export and show do (cli.export.find_seat_secret)
    and hands it to the replay viewer: the seat's hand is on screen; the public replay shows none."""
    from prompt_toolkit.output import DummyOutput

    from cli.export import find_seat_secret
    from cli.shell import ReplayUI

    data, secret = simulated_log("modern-art")
    copy = tmp_path / "copy.log"
    copy.write_bytes(data)
    entries = parse_log(data).entries
    mid = len(entries) // 2
    own = find_seat_secret(entries, 1, copy)
    assert own.secret == secret and own.source == "disclosure"
    seen = ReplayUI(entries, 1, output=DummyOutput(), start=mid, secret=own.secret, secret_words=own.words)
    assert seen._snap.view["cards"] and "has not shown this screen your cards" not in seen.render_text()
    assert own.words in " ".join(seen.render_text().split())      # under the title (wrapped)
    blind = ReplayUI(entries, 1, output=DummyOutput(), start=mid)
    assert "cards" not in blind._snap.view and "has not shown this screen your cards" in blind.render_text()


@pytest.mark.parametrize("raised, rc, said", [
    (BaseExceptionGroup("nursery", [KeyboardInterrupt()]), 130, "easel: interrupted"),
    # Ctrl-C during a retry pause: the interrupt is nested, with a failed connect as its context
    (BaseExceptionGroup("nursery", [BaseExceptionGroup("inner", [KeyboardInterrupt()])]), 130, "easel: interrupted"),
    (BaseExceptionGroup("nursery", [BrokenPipeError()]), 141, ""),
])
def test_exception_groups_from_nurseries_end_quietly(monkeypatch, capsys, raised, rc, said):
    from cli import live, main

    def dispatch(args):
        raise raised

    monkeypatch.setattr(live, "dispatch", dispatch)
    monkeypatch.setattr(main, "_pipe_closed", lambda: main.EXIT_PIPE)
    assert main.main(["join", "127.0.0.1:9"]) == rc
    assert capsys.readouterr().err.strip() == said


def test_an_unexpected_error_inside_a_group_is_not_swallowed(monkeypatch):
    from cli import live, main

    def dispatch(args):
        raise BaseExceptionGroup("nursery", [KeyboardInterrupt(), RuntimeError("bug")])

    monkeypatch.setattr(live, "dispatch", dispatch)
    with pytest.raises(BaseExceptionGroup):
        main.main(["join", "127.0.0.1:9"])


def test_join_knocks_again_when_a_busy_lobby_closes_the_connection_before_tls(tmp_path, monkeypatch):
    """A listener over MAX_HANDSHAKES_PER_ADDR closes a connection without TLS (p2p/tls.py ``serve``): a host's
    five bots knocking at once from 127.0.0.1 met it, and one bot gave up ("exited with code 2 before the
    table was full"). Such a close is knocked at again within the patience; a TLS failure is final."""
    import functools
    import ssl

    import trio

    import cli.joining as joining
    from cli.common import UsageError
    from p2p import tls
    from p2p.identity import load_or_create

    ident = load_or_create(tmp_path / "id")

    async def closed_before_tls() -> BaseException:
        """What tls.connect raises against a real listener that closes at once, as serve does over a limit."""
        async def close_at_once(stream):
            await stream.aclose()

        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(functools.partial(trio.serve_tcp, close_at_once, 0, host="127.0.0.1"))
            port = listeners[0].socket.getsockname()[1]
            try:
                await tls.connect("127.0.0.1", port, tls.client_context(ident, None), None, timeout=5)
            except tls.TLSHandshakeError as exc:
                nursery.cancel_scope.cancel()
                return exc
        raise AssertionError("the handshake did not fail")

    refused = trio.run(closed_before_tls)
    assert joining._closed_without_tls(refused), repr(refused.__cause__)

    def lobby(fails: list):
        calls = []

        async def join(*args, **kw):
            calls.append(1)
            if fails:
                raise fails.pop(0)
            return "seated"
        return join, calls

    fake, calls = lobby([refused, refused])
    monkeypatch.setattr(joining, "join", fake)
    got = trio.run(lambda: joining.reach_table("127.0.0.1", 1, ident, 1, name="x", expect_fp=None, progress=None,
                                               patience=10))
    assert got == "seated" and len(calls) == 3

    tls_alert = tls.TLSHandshakeError("TLS handshake with 127.0.0.1:1 failed: certificate verify failed")
    tls_alert.__cause__ = ssl.SSLError(1, "certificate verify failed")
    for final in (tls_alert, tls.TLSPinError("the table's key is not the one expected")):
        fake, calls = lobby([final])
        monkeypatch.setattr(joining, "join", fake)
        with pytest.raises(UsageError):
            trio.run(lambda: joining.reach_table("127.0.0.1", 1, ident, 1, name="x", expect_fp=None, progress=None,
                                                 patience=10))
        assert len(calls) == 1
