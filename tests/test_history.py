"""Past games: easel history, 'last' as a log file, and replay/show warning as audit would.

Measured before: past games were folders named by 64 hex digits with no way to list them; audit's
human output dumped the result as JSON; replay showed "Entry 41 of 41" on a log with one flipped
bit while audit said INVALID.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from cli.history import log_warning, read_past_game
from cli.shell import ReplayUI

from . import netutil
from .test_cli import no_traceback

easel = netutil.easel


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> tuple[Path, Path]:
    """A finished 3-seat Painting demo: (peer 0's home, its log)."""
    out = tmp_path_factory.mktemp("history")
    r = easel("demo", "--game", "painting", "--players", 3, "--seed", "history", "--out", out, "--json",
              home=out / "home", timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    log = Path(json.loads(r.stdout)["logs"][0])
    return log.parents[2], log


def flipped(log: Path, to: Path) -> Path:
    data = bytearray(log.read_bytes())
    data[len(data) // 2] ^= 1
    to.write_bytes(bytes(data))
    return to


def test_history_lists_each_past_game_newest_first_with_its_result_and_file(played, tmp_path):
    home, log = played
    # an unfinished second game, newer: its first two thirds
    other = home / "games" / ("0" * 64)
    other.mkdir(exist_ok=True)
    data = log.read_bytes()
    from core.logfile import parse

    parsed = parse(data)
    (other / "log").write_bytes(data[:parsed.offsets[len(parsed.entries) * 2 // 3]])
    t = time.time() + 5
    os.utime(other / "log", (t, t))
    try:
        r = easel("history", home=home)
        assert r.returncode == 0, r.stderr
        no_traceback(r)
        lines = r.stdout.splitlines()
        assert lines[0].split() == ["date", "game", "seats", "status", "result"]
        first = lines.index(next(ln for ln in lines if "unfinished" in ln))
        done = lines.index(next(ln for ln in lines if "finished " in ln and "unfinished" not in ln))
        assert first < done                                 # newest first
        assert "painting" in lines[done] and "3 (you 0)" in lines[done]
        assert "winner" in lines[done] and " of 3" in lines[done]
        assert lines[done + 1].strip() == str(log) and lines[first + 1].strip() == str(other / "log")
        assert "easel resume" in lines[first]
        rows = json.loads(easel("history", "--json", home=home).stdout)
        assert [r["status"] for r in rows] == ["unfinished", "finished"] and rows[1]["log"] == str(log)
        assert rows[1]["players"] == 3 and rows[1]["seat"] == 0 and rows[1]["game"] == "painting"
        # 'last' is the newest game's log, for show (with audit's warning), export and audit
        r = easel("show", "last", home=home)
        assert r.returncode == 0 and json.loads(r.stdout)["entries"] == len(parsed.entries) * 2 // 3
        assert "WARNING: this game is not finished" in r.stderr
    finally:
        (other / "log").unlink()
        other.rmdir()
    r = easel("show", "last", home=home)
    assert r.returncode == 0 and json.loads(r.stdout)["entries"] == len(parsed.entries) and r.stderr == ""
    out = tmp_path / "page.html"
    r = easel("export", "last", "--html", out, home=home)
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 1000
    r = easel("audit", "last", home=home)
    assert r.returncode == 0 and r.stdout.startswith("VALID")


def test_history_in_an_empty_home_and_last_without_games_are_clear(tmp_path):
    r = easel("history", home=tmp_path)
    assert r.returncode == 0 and "no past games" in r.stdout
    r = easel("replay", "last", home=tmp_path)
    assert r.returncode == 2 and "no past games" in r.stderr and "easel history" in r.stderr
    no_traceback(r)


def test_audit_words_the_result_with_the_game_screen_not_json(played):
    _, log = played
    r = easel("audit", log)
    assert r.returncode == 0
    assert "{" not in r.stdout and "result:" in r.stdout
    assert "final ranking" in r.stdout and " pts " in r.stdout and "seat 0" in r.stdout


def test_show_and_replay_warn_on_a_damaged_log_exactly_as_audit(played, tmp_path):
    _, log = played
    bad = flipped(log, tmp_path / "bad.log")
    audit = easel("audit", bad)
    assert audit.returncode == 1 and audit.stdout.startswith("INVALID")
    r = easel("show", bad)
    assert r.returncode == 0
    warning = r.stderr.splitlines()
    assert warning[0].startswith("WARNING: this log is damaged")
    assert warning[1:] == audit.stdout.splitlines()          # the audit's own lines, word for word
    # the replay viewer shows the same warning at every entry, not a quiet "Entry 41 of 41"
    from core.logfile import parse

    words = log_warning(str(bad), bad.read_bytes())
    ui = ReplayUI(parse(bad.read_bytes()).entries, None, warning=words)
    ui.goto(ui.last)
    text = ui.render_text()
    assert "WARNING: this log is damaged" in text and "INVALID" in text
    ui.goto(0)
    assert "WARNING: this log is damaged" in ui.render_text()
    assert log_warning(str(log), log.read_bytes()) == []
    g = read_past_game(bad, None)
    assert g is not None and g.status == "damaged"
