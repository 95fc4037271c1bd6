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

from core.logfile import parse as parse_log
from core.table import replay

ROOT = Path(__file__).resolve().parent.parent
DEMO_TIMEOUT = 90


def easel(*args, home: Path | None = None, timeout: float = 30, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if home is not None:
        env["EASEL_HOME"] = str(home)
    env.pop("EASEL_FAULTS", None)
    return subprocess.run(
        [sys.executable, "-m", "cli", *map(str, args)], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, **kw,
    )


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
    return replay(parse_log(Path(path).read_bytes()).entries).head.hex()


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
    assert obj["step"] is None and obj["result"]["ranking"]
    assert obj["head"] == head_of(good_log)
    assert obj["view"] is not None


def test_show_at_entry_as_seat(good_log):
    r = easel("show", good_log, "--at", "5", "--as", "0", "--json")
    assert r.returncode == 0, r.stderr
    obj = json.loads(r.stdout)
    assert obj["entry"] == 5 and obj["seat"] == 0 and obj["result"] is None
    assert obj["step"]["purpose"] == "seed" and obj["step"]["kind"] == "reveal"
    r0 = json.loads(easel("show", good_log, "--at", "0", "--json").stdout)
    assert r0["entry"] == 0 and r0["view"] is None and r0["step"]["kind"] == "commit"
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
