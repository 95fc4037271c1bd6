"""Past games: easel history, 'last' as a log file, and replay/show warning as audit would.

Measured before: past games were folders named by 64 hex digits with no way to list them; audit's
human output dumped the result as JSON; replay showed "Entry 41 of 41" on a log with one flipped
bit while audit said INVALID.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest
from prompt_toolkit.output import DummyOutput

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
    assert "final ranking" in r.stdout and " pts " in r.stdout
    # every seat by the name its genesis signs (the demo's seats are "bot K"), never "seat N" (issue 23)
    result = r.stdout.split("result:", 1)[1]
    assert "bot 0" in result and not re.search(r"\bseat \d", result), result


def test_history_replay_and_audit_say_the_seats_names(played):
    """Seen on the LAN: audit and history said "winner seat 1, you 4th of 4", replay "seat 3 reveals"."""
    from cli.history import _result_words

    home, log = played
    g = read_past_game(log, None)
    assert g is not None and g.status == "finished" and "winner bot " in g.result and "seat" not in g.result
    names = ("Ann", "Zoe", "Bo", "Cy")
    res = {"ranking": [1, 0, 2, 3], "winners": [1], "places": [2, 1, 3, 4]}
    assert _result_words(res, 3, names) == "winner Zoe, you 4th of 4"
    assert _result_words(res, 3) == "winner seat 1, you 4th of 4"             # a genesis without names
    from core.logfile import parse

    ui = ReplayUI(parse(log.read_bytes()).entries, None, output=DummyOutput())
    ui.goto(ui.last)
    said = "\n".join(ui._descs)
    assert re.search(r"\bbot \d reveals", said) and not re.search(r"\bseat \d", said), said


def test_a_rematch_says_in_audit_and_replay_which_game_it_follows(tmp_path):
    """Seen on the LAN: a rematch's audit and replay never mentioned the game it follows (its genesis's
    ``previous``); twins are told apart as every screen does (Ann #3f2a)."""
    import core.games as registry
    from core.events import game_id_of, genesis_sign_msg, make_genesis
    from core.logfile import LOG_MAGIC, encode_record
    from p2p.identity import Identity

    ids = [Identity.generate() for _ in range(3)]
    prev = bytes(range(32))
    doc = {"game": "painting", "config": registry.get("painting").configure({}, 3), "seats": [i.public for i in ids],
           "table": b"rematch1", "timeout": 60, "names": ["Zoe", "Ann", "Ann"], "previous": prev}
    gid = game_id_of(doc)
    raw = make_genesis(doc, [i.sign(genesis_sign_msg(gid)) for i in ids]).raw
    path = tmp_path / "log"
    path.write_bytes(LOG_MAGIC + encode_record(raw))
    r = easel("audit", path)
    assert r.returncode == 1 and "not finished" in r.stdout
    assert "a rematch: it follows game %s" % prev.hex() in r.stdout
    players = next(ln for ln in r.stdout.splitlines() if "players:" in ln)
    assert re.fullmatch(r"  players: 0 Zoe, 1 Ann #[0-9a-f]{4}, 2 Ann #[0-9a-f]{4}", players), players
    rep = json.loads(easel("audit", "--json", path).stdout)
    assert rep["previous"] == prev.hex() and rep["names"] == ["Zoe", "Ann", "Ann"]
    assert rep["seat_names"][0] == "Zoe" and rep["seat_names"][1].startswith("Ann #")
    ui = ReplayUI([raw], 0, output=DummyOutput())
    assert "a rematch: it follows game %s" % prev.hex() in ui._descs[0]
    assert "Entry 0 of 0: the table opens (genesis): " in ui.render_text() and "a rematch" in ui.render_text()


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
