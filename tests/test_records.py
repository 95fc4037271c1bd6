"""The records say who, and link the rematch (issue 29 item 4).

Measured before: with a genesis naming its seats Zoe, Ann and Ann, ``easel audit``, ``easel
history``, the exported page and the replay said "seats 0 and 2 voted Ann #7499 out" (a list of
seats was never named), the audit's note "timed out seats [1]", history's dispute and time-out
lines "seat 1's signed move ... did not reach seats 0 and 2" and "seats 0 and 2 voted seat 1 out",
the abandoned result "seat 2 named: seat 2 was timed out of its shuffle", and the page's notes,
certificates and game-over pane "seat N" throughout; no record said that a game was a rematch of
another or had been played again.

Here, with real peers in memory (tests/netutil.py ``Sim``) and the real ``easel`` command, every
certificate and result line names the seats as the screens do ("Zoe", "Ann #7499" for twins),
"seat N" without names; history and the exported page (also in headless Chromium) link a rematch
both ways.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest
from prompt_toolkit.output import DummyOutput

from cli.export import build_page
from cli.history import PastGame, audit_lines, status_lines
from cli.screens import plain_label, with_names
from cli.shell import ReplayUI
from core.events import seat_names
from core.evidence import afterwards_words, certificate_words
from core.logfile import LOG_MAGIC, encode_record, parse

from . import browser, netutil
from .test_evidence import cut_victim, forged_shuffle_game, game_dir
from .test_false_timeouts import VICTIM

easel = netutil.easel

NAMES = ["Zoe", "Ann", "Ann"]          # seats 1 and 2 are twins: "Ann #xxxx" each
SEAT_WORD = re.compile(r"\b[Ss]eats? \[?\d")


# --------------------------------------------------------------------------- the naming helper
def test_with_names_names_a_seat_a_list_of_seats_and_a_bracketed_list():
    names = ("Zoe", "Ann #3f2a", "Ann #9c01")
    assert with_names("phase 4 (x): seats 0 and 2 voted seat 1 out", names) == "phase 4 (x): Zoe and Ann #9c01 voted Ann #3f2a out"
    assert with_names("seats 0, 1 and 2; Seats 0, 2", names) == "Zoe, Ann #3f2a and Ann #9c01; Zoe, Ann #9c01"
    assert with_names("timed out seats [1] (x)", names) == "timed out Ann #3f2a (x)"
    assert with_names("timed out seats [0, 2] (x)", names) == "timed out Zoe and Ann #9c01 (x)"
    assert with_names("seat 1's move; you and seat 2", names) == "Ann #3f2a's move; you and Ann #9c01"
    # a seat the names do not cover, and a genesis without names, stay as they are
    assert with_names("seats 0 and 7 voted seat 9 out", names) == "seats 0 and 7 voted seat 9 out"
    assert with_names("seats 0 and 2 voted seat 1 out", ()) == "seats 0 and 2 voted seat 1 out"
    # a column keeps its width
    assert with_names("seat 0    12 pts", names) == "Zoe       12 pts"


# --------------------------------------------------------------------------- a dispute, with and without names
@pytest.fixture(scope="module", params=["names", "no names"])
def disputed(request, tmp_path_factory) -> dict:
    """A 3-seat Painting game in which seats 0 and 2 cut seat 1's move with a forged certificate,
    in a home of its own (seat 1's files); the words each seat is said with."""
    names = NAMES if request.param == "names" else None
    sim, st, mine = cut_victim(names=names)
    home = tmp_path_factory.mktemp("records") / "home"
    d = game_dir(home, sim, VICTIM)
    shown = seat_names(sim.genesis.doc)
    if names:
        assert shown[0] == "Zoe" and re.fullmatch(r"Ann #[0-9a-f]{4}", shown[1]) and re.fullmatch(r"Ann #[0-9a-f]{4}", shown[2])
        assert shown[1] != shown[2]
        voters, victim = "%s and %s" % (shown[0], shown[2]), shown[1]
    else:
        voters, victim = "seats 0 and 2", "seat 1"
    return {"named": bool(names), "sim": sim, "st": st, "home": home, "dir": d, "voters": voters, "victim": victim,
            "cert": "%s voted %s out" % (voters, victim),
            "cut": "%s's signed move for phase %d" % (victim, st.phase),
            "reach": "did not reach %s before they voted it out, or they voted anyway" % voters}


def no_seat_numbers(text: str, named: bool) -> None:
    if named:
        assert not SEAT_WORD.search(text), SEAT_WORD.search(text).group(0) + " in: " + text


def test_the_audit_text_names_the_certificate_the_dispute_and_the_time_out(disputed):
    r = easel("audit", disputed["dir"], home=disputed["home"])
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert "time-out certificates (1)" in out and ": %s\n" % disputed["cert"] in out + "\n", out
    assert disputed["cut"] in out and disputed["reach"] in out
    assert "timed out %s (" % (disputed["victim"] if disputed["named"] else "seats [1]") in out
    result = out.split("  result:", 1)[1]
    no_seat_numbers(out, disputed["named"])
    if disputed["named"]:
        assert "Zoe" in result and "Ann #" in result
    # the JSON keeps the seat numbers (machines read it) and adds the names
    rep = json.loads(easel("audit", "--json", disputed["dir"], home=disputed["home"]).stdout)
    assert [(c["seats"], c["voters"]) for c in rep["certificates"]] == [([1], [0, 2])]
    assert rep["cut_moves"][0]["seat"] == VICTIM and rep["cut_moves"][0]["note"].startswith("seat 1's signed move")
    assert rep["seat_names"] == list(seat_names(disputed["sim"].genesis.doc))


def test_history_names_the_winner_the_dispute_and_the_time_out(disputed):
    r = easel("history", home=disputed["home"])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    row = next(i for i, ln in enumerate(lines) if "painting" in ln)
    winners = disputed["sim"].peers[0].table.result()["winners"]
    shown = seat_names(disputed["sim"].genesis.doc)
    assert "winner%s %s" % ("s" if len(winners) > 1 else "", ", ".join(shown[w] for w in winners)) in lines[row]
    below = "\n".join(lines[row + 1:row + 5])
    assert "DISPUTED: %s (" % disputed["cut"] in below and disputed["reach"] in below
    assert "time-out: phase %d (%s): %s" % (disputed["st"].phase, disputed["st"].label, disputed["cert"]) in below
    no_seat_numbers("\n".join(lines[row:row + 5]), disputed["named"])
    rows = json.loads(easel("history", "--json", home=disputed["home"]).stdout)
    assert rows[0]["cut_moves"][0].startswith(disputed["cut"])
    assert rows[0]["names"] == (list(shown) if disputed["named"] else None)
    assert rows[0]["certificates"][0]["seats"] == [1]                          # numbers stay numbers


def test_replay_names_the_certificate_in_its_log_and_beside_the_result(disputed):
    entries = parse((disputed["dir"] / "log").read_bytes()).entries
    ui = ReplayUI(entries, None, output=DummyOutput())
    ui.goto(ui.last)
    said = [d for d in ui._descs if d.startswith("time-out certificate")]
    assert said == ["time-out certificate: %s of %s" % (disputed["cert"], plain_label(disputed["st"].label))], said
    text = ui.render_text()
    over = text[text.index("Time-out certificates (1)"):]
    assert over.splitlines()[1].strip() == "phase %d (%s): %s" % (
        disputed["st"].phase, plain_label(disputed["st"].label), disputed["cert"])
    ranking = text[text.index("GAME OVER"):text.index("Time-out certificates (1)")]
    no_seat_numbers(ranking + over.splitlines()[1], disputed["named"])
    # the seat's own view says so too
    ui = ReplayUI(entries, 0, output=DummyOutput())
    ui.goto(ui.last)
    mine = disputed["cert"].replace(disputed["voters"], "you and %s" % disputed["voters"].split(" and ")[-1]) \
        if disputed["named"] else "you and seat 2 voted seat 1 out"
    assert mine in ui.render_text()


def test_the_exported_page_names_the_certificate_the_dispute_and_the_seats(disputed):
    log = disputed["dir"] / "log"
    page = html.unescape(build_page(str(log), log.read_bytes(), None))
    certs = page[page.index('id="certificates"'):]
    certs = certs[:certs.index("</div>")]
    assert ": %s</li>" % disputed["cert"] in certs, certs
    cut = page[page.index('id="cut-moves"'):]
    assert disputed["cut"] in cut[:cut.index("</div>")] and disputed["reach"] in cut[:cut.index("</div>")]
    keys = page[page.index('<table id="keys">'):]
    keys = keys[:keys.index("</table>")]
    shown = seat_names(disputed["sim"].genesis.doc)
    for s in range(3):
        assert ("seat %d %s" % (s, shown[s]) if disputed["named"] else "<td>seat %d</td>" % s) in keys, keys
    # the last frame's middle pane: the game over table and the certificate, named
    raw = build_page(str(log), log.read_bytes(), None)
    data = json.loads(re.search(r'<script type="application/json" id="easel-data">(.*?)</script>', raw, re.S).group(1))
    lines = data["lines"]
    last = data["frames"][-1]
    middle = "\n".join("".join(lines[i][k + 1] for k in range(0, len(lines[i]), 2)) for i in last[3])
    cert_line = "phase %d (%s): %s" % (disputed["st"].phase, plain_label(disputed["st"].label), disputed["cert"])
    assert cert_line in middle, middle
    over = middle[middle.index("GAME OVER"):middle.index("Time-out certificates")]
    no_seat_numbers(over, disputed["named"])
    # the view of a seat says whose it is
    page = html.unescape(build_page(str(log), log.read_bytes(), 2))
    sub = re.search(r'<p class="sub" id="sub">(.*?)</p>', page).group(1)
    assert ("%s's view (seat 2; " % shown[2] if disputed["named"] else "seat 2's view (") in sub, sub


def test_an_abandoned_game_names_the_cheat_in_every_record(tmp_path):
    """Modern Art: seat 2 (Cy) signs a shuffle the rules refuse; the result is abandoned and names it."""
    sim, st = forged_shuffle_game(names=["Ann", "Bo", "Cy"])
    res = sim.peers[0].table.result()
    assert res["status"] == "abandoned" and res["named"][0][0] == 2
    home = tmp_path / "home"
    d = game_dir(home, sim, 0)
    r = easel("audit", d, home=home)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "    Cy named: Cy was timed out of its shuffle" in r.stdout, r.stdout
    assert "Cy signed an illegal move for phase %d" % st.phase in r.stdout and "Cy's shuffled deck is refused" in r.stdout
    assert ": Ann and Bo voted Cy out" in r.stdout
    no_seat_numbers(r.stdout, True)
    r = easel("history", home=home)
    lines = r.stdout.splitlines()
    row = next(i for i, ln in enumerate(lines) if "modern-art" in ln)
    below = "\n".join(lines[row + 1:])
    assert "Cy named: Cy was timed out of its shuffle" in below and "fault: Cy signed an illegal move" in below
    assert ": Ann and Bo voted Cy out" in below
    no_seat_numbers("\n".join(lines[row:]).split("(easel replay last")[0], True)
    page = html.unescape(build_page(str(d / "log"), (d / "log").read_bytes(), None))
    status = re.search(r'<div id="status"><b>Result</b>: (.*?)</div>', page).group(1)
    assert status.startswith("status: abandoned; Cy named: Cy was timed out of its shuffle"), status
    illegal = page[page.index('id="illegal"'):]
    assert "Cy signed an illegal move" in illegal[:illegal.index("</div>")]
    ui = ReplayUI(parse((d / "log").read_bytes()).entries, None, output=DummyOutput())
    ui.goto(ui.last)
    text = ui.render_text()
    assert "Bo voted Cy out" in text and "Cy: " in text and "timed out of its shuffle" in text


def test_history_names_signed_afterwards_unfollowed_and_named_seats():
    names = ("Zoe", "Ann #3f2a", "Ann #9c01")
    g = PastGame(Path("x") / "log", 0.0, "painting", 3, None, 9, "finished", "winner Zoe", names=names)
    g.signed_afterwards = [{"note": afterwards_words(1, 4, "round 2: commit", "sequence number 500; its next logged event has 7")}]
    g.unfollowed = [{"note": "seats 0 and 2 signed a time-out certificate voting seat 1 out of phase 4 that this log "
                             "does not follow"}]
    g.named = status_lines({"status": "withheld", "named": [[2, "seat 2 withheld its share"]]}, names)
    g.certificates = [{"phase": 4, "label": "round 2: commit", "seats": [1], "voters": [0, 2]}]
    text = "\n".join(g.details())
    assert "not evidence: a move Ann #3f2a signed afterwards for phase 4" in text
    assert "not followed: Zoe and Ann #9c01 signed a time-out certificate voting Ann #3f2a out" in text
    assert "Ann #9c01 named: Ann #9c01 withheld its share" in text
    assert "time-out: %s" % with_names(certificate_words(4, "round 2: commit", [1], [0, 2]), names) in text
    assert "time-out: phase 4 (round 2: commit): Zoe and Ann #9c01 voted Ann #3f2a out" in text
    no_seat_numbers(text, True)
    # without names: seat numbers
    g.names, g.named = (), status_lines({"status": "withheld", "named": [[2, "seat 2 withheld its share"]]})
    text = "\n".join(g.details())
    assert "seat 2 named: seat 2 withheld its share" in text and "seats 0 and 2 voted seat 1 out" in text
    # the audit's text: the same words
    rep = {"valid": True, "complete": True, "game": "painting", "events": 9, "head": "00", "names": ["Zoe", "Ann", "Ann"],
           "seat_names": list(names), "problems": [], "results": None,
           "notes": [{"file": "spool", "index": 3, "seat": 1, "note": g.signed_afterwards[0]["note"]}],
           "signed_afterwards": g.signed_afterwards, "certificates": [dict(g.certificates[0], index=5)]}
    rep["complete"] = False
    text = "\n".join(audit_lines(rep))
    assert "a move Ann #3f2a signed afterwards" in text and "entry 5: phase 4 (round 2: commit): Zoe and Ann #9c01 voted Ann #3f2a out" in text


# --------------------------------------------------------------------------- the rematch link
def genesis_only(home: Path, genesis) -> Path:
    d = home / "games" / genesis.game_id.hex()
    d.mkdir(parents=True)
    (d / "log").write_bytes(LOG_MAGIC + encode_record(genesis.raw))
    return d


@pytest.fixture(scope="module")
def rematched(tmp_path_factory) -> dict:
    """A home with a finished game (A), its rematch (B: genesis previous = A, newer) and a rematch of a
    game this home does not have (C)."""
    sim, _, _ = cut_victim(names=NAMES)
    home = tmp_path_factory.mktemp("rematch") / "home"
    a = game_dir(home, sim, VICTIM)
    gb = netutil.make_table(sim.ids, names=NAMES, previous=sim.genesis.game_id, nonce=b"again-b")
    b = genesis_only(home, gb)
    gc = netutil.make_table(sim.ids, names=NAMES, previous=bytes([0xAB]) * 32, nonce=b"again-c")
    c = genesis_only(home, gc)
    now = time.time()
    for k, d in enumerate((a, b, c)):
        os.utime(d / "log", (now - 30 + k, now - 30 + k))
    return {"home": home, "a": a, "b": b, "c": c}


def test_history_links_a_rematch_both_ways(rematched):
    a, b, c = (rematched[k].name for k in "abc")
    r = easel("history", home=rematched["home"])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()

    def below(d: str) -> list[str]:
        i = next(i for i, ln in enumerate(lines) if ln.strip().endswith("%s/log" % d))
        return [ln.strip() for ln in lines[i + 1:i + 3]]

    assert below(b)[0] == "rematch of %s" % a[:8]
    assert below(a)[0] == "played again: %s" % b[:8]
    assert below(c)[0] == "rematch of %s (not in this home)" % ("ab" * 4)
    rows = {Path(r["log"]).parent.name: r for r in json.loads(easel("history", "--json", home=rematched["home"]).stdout)}
    assert rows[b]["previous"] == a and rows[a]["played_again"] == [b] and rows[a]["previous"] is None
    assert rows[c]["previous"] == "ab" * 32 and rows[c]["played_again"] == [] and rows[b]["played_again"] == []
    # the short id names the game on a command line
    for short, entries in ((a[:8], len(parse((rematched["a"] / "log").read_bytes()).entries)), (b[:8], 1)):
        r = easel("show", short, home=rematched["home"])
        assert r.returncode == 0 and json.loads(r.stdout)["entries"] == entries, r.stderr


def test_the_exported_page_links_a_rematch_both_ways(rematched):
    a, b = rematched["a"], rematched["b"]
    page = build_page(str(a / "log"), (a / "log").read_bytes(), None)
    assert '<p class="sub" id="links">played again: %s</p>' % b.name[:8] in page
    page = build_page(str(b / "log"), (b / "log").read_bytes(), None)
    assert '<p class="sub" id="links">rematch of %s</p>' % a.name[:8] in page
    # a log outside its home's games: the genesis still says what it follows
    lone = a.parent.parent.parent / "lone.log"
    shutil.copy(b / "log", lone)
    page = build_page(str(lone), lone.read_bytes(), None)
    assert '<p class="sub" id="links">rematch of %s</p>' % a.name[:8] in page
    page = build_page(str(a.parent.parent.parent / "x.log"), (a / "log").read_bytes(), None)
    assert 'id="links"' not in page


def test_in_a_browser_the_page_names_the_seats_and_links_the_rematch(rematched, tmp_path):
    """Headless Chromium: the page of the first game shows its rematch and, at its last entry, the
    certificate and the ranking with the seats' names."""
    assert browser.CHROMIUM is not None, "no chromium on PATH: .ci/run installs it (apt-get install chromium)"
    a, b = rematched["a"], rematched["b"]
    out = tmp_path / "a.html"
    r = easel("export", a / "log", "--html", out, home=rematched["home"])
    assert r.returncode == 0, r.stderr
    with browser.Browser(1200, 900) as br:
        tab = br.open(out.as_uri())
        assert tab.text("links") == "played again: %s" % b.name[:8]
        tab.key("End", keycode=35)
        middle = tab.text("t-middle")
        assert re.search(r"Zoe and Ann #[0-9a-f]{4} voted Ann #[0-9a-f]{4} out", middle), middle
        over = middle[middle.index("GAME OVER"):middle.index("Time-out certificates")]
        assert "Zoe" in over and not SEAT_WORD.search(over), over
        certs = tab.text("certificates")
        assert re.search(r"Zoe and Ann #[0-9a-f]{4} voted Ann #[0-9a-f]{4} out", certs) and not SEAT_WORD.search(certs), certs
        assert tab.errors() == []
