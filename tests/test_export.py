"""``easel export LOG --html FILE``: one self-contained page that replays a game, with its audit.

The page is checked as a reader's browser would take it apart (html.parser):
one document, nothing fetched from anywhere, every log entry a frame, the
verdict and every seat key's fingerprint, the step navigation script.  If a
headless chromium is installed, its DOM after the script ran is checked too.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

import core.games

from . import browser, netutil
from core.events import parse_genesis
from core.hashing import fingerprint
from core.logfile import parse as parse_log

ROOT = Path(__file__).resolve().parent.parent
DEMO_TIMEOUT = 120
GAMES = core.games.names()


easel = functools.partial(netutil.easel, timeout=60)


def run_demo(game: str, tmp_path_factory) -> tuple[Path, list[Path]]:
    """A finished 3-seat demo of ``game`` (run once per session, netutil.finished_demo: test_modern_art_network
    reads the same Modern Art one): a copy of its log alone in a directory, and every peer's own log in its
    game directory (beside its ``secrets`` file)."""
    out, r = netutil.finished_demo(tmp_path_factory, game, 3, "export", timeout=DEMO_TIMEOUT)
    logs = [Path(p) for p in json.loads(r.stdout)["logs"]]
    copy = out / "game.log"
    if not copy.exists():
        copy.write_bytes(logs[0].read_bytes())
    return copy, logs


@pytest.fixture(scope="module", params=GAMES)
def demo_log(request, tmp_path_factory) -> Path:
    """A finished 3-seat demo log of each game (a copy: no secrets file beside it)."""
    return run_demo(request.param, tmp_path_factory)[0]


@pytest.fixture(scope="module")
def public_page(demo_log, tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path, str]:
    """``easel export DEMO_LOG --html DIR/game.html`` (the public view), run once per game: the tests that read
    the public page (in a parser, in the browser) read this one file; none writes beside it or changes it."""
    out = tmp_path_factory.mktemp("page") / "game.html"
    r, text = export(demo_log, out)
    return r, out, text


class Page(HTMLParser):
    """Every start tag with its attributes, the text of each element by id, and the scripts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text_by_id: dict[str, str] = {}
        self.scripts: list[tuple[dict, str]] = []
        self.styles: list[str] = []
        self._open: list[tuple[str, str | None]] = []
        self._buf: dict[str, list[str]] = {}
        self._script: tuple[dict, list[str]] | None = None
        self._style: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "script":
            self._script = (a, [])
        if tag == "style":
            self._style = []
        if tag in ("meta", "link", "input", "br", "img", "hr"):
            return
        self._open.append((tag, a.get("id")))
        if a.get("id"):
            self._buf[a["id"]] = []

    def handle_endtag(self, tag):
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script[0], "".join(self._script[1])))
            self._script = None
        if tag == "style" and self._style is not None:
            self.styles.append("".join(self._style))
            self._style = None
        while self._open:
            t, ident = self._open.pop()
            if ident:
                self.text_by_id[ident] = "".join(self._buf.pop(ident))
            if t == tag:
                break

    def handle_data(self, data):
        if self._script is not None:
            self._script[1].append(data)
        if self._style is not None:
            self._style.append(data)
        for ident in self._buf:
            self._buf[ident].append(data)


def export(log: Path, out: Path, *extra) -> tuple[subprocess.CompletedProcess, str]:
    r = easel("export", log, "--html", out, *extra, home=out.parent / "home")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    return r, out.read_text(encoding="utf-8")


def parsed(text: str) -> tuple[Page, dict]:
    p = Page()
    p.feed(text)
    p.close()
    data = [body for attrs, body in p.scripts if attrs.get("id") == "easel-data"]
    assert len(data) == 1, "the page holds its frames in one JSON script"
    return p, json.loads(data[0])


def frame_text(doc: dict, ix: int) -> str:
    flat = doc["lines"][ix]
    return "".join(flat[i + 1] for i in range(0, len(flat), 2))


# --------------------------------------------------------------------------- structure
def test_one_self_contained_file_with_every_step_the_verdict_and_the_keys(demo_log, public_page):
    data = demo_log.read_bytes()
    entries = parse_log(data).entries
    genesis = parse_genesis(entries[0])
    r, out, text = public_page
    assert "wrote %s" % out in r.stderr
    assert list(out.parent.glob("*.html")) == [out], "one file, nothing beside it"
    assert out.read_text(encoding="utf-8") == text
    page, doc = parsed(text)

    # one document
    names = [t for t, _ in page.tags]
    assert names.count("html") == 1 and names.count("head") == 1 and names.count("body") == 1
    # nothing from the network: no address anywhere, no external src/href, no CSS import or url()
    assert not re.search(r"https?://|//[a-z0-9.-]+\.[a-z]{2,}/", text, re.I)
    for tag, attrs in page.tags:
        for key in ("src", "href", "action", "srcset", "poster", "data"):
            value = attrs.get(key)
            assert value is None or value.startswith(("#", "data:")), (tag, key, value)
        assert tag not in ("iframe", "object", "embed", "img", "base"), tag
    for css in page.styles:
        assert "@import" not in css and "url(" not in css
    assert all("src" not in attrs for attrs, _ in page.scripts), "scripts are inline"
    csp = [a.get("content", "") for t, a in page.tags if t == "meta" and a.get("http-equiv", "").lower() == "content-security-policy"]
    assert csp and "default-src 'none'" in csp[0]

    # every log entry is a step of the replay, in order, each drawn with its own lines
    assert doc["entries"] == len(entries) == len(doc["frames"])
    for n, frame in enumerate(doc["frames"]):
        title, board, seats, middle, log, entry, status, mark = frame
        assert frame_text(doc, entry).startswith("Entry %d of %d: " % (n, len(entries) - 1))
        assert frame_text(doc, status).startswith("Table now: ")
        for ix in [title, entry, status, *board, *seats, *middle, *log]:
            assert 0 <= ix < len(doc["lines"])
        assert len(seats) == 2 + doc["players"]
    assert doc["players"] == len(genesis.doc["seats"])
    first = frame_text(doc, doc["frames"][0][5])
    assert "genesis" in first
    last = doc["frames"][-1]
    assert any("GAME OVER" in frame_text(doc, ix) for ix in last[3]) or "Game over" in frame_text(doc, last[6])
    assert sum(f[7] for f in doc["frames"]) >= 1, "the steps (marks) the screen names are flagged"
    # boards are drawn with colours: style classes from the shell's sheet and the screen's own
    assert doc["styles"] > 3 and re.search(r"\.s\d+\{[^}]*background:#", text)
    if doc["board_width"]:
        assert any(f[1] for f in doc["frames"]), "the board pane is drawn"

    # the audit's verdict, the head, every seat key's fingerprint
    rep = json.loads(easel("audit", "--json", demo_log).stdout)
    assert rep["valid"] and rep["complete"]
    assert page.text_by_id["verdict"].startswith("VALID - ")
    assert rep["head"] in text and doc["audit"]["head"] == rep["head"]
    keys_text = page.text_by_id["keys"]
    for s, key in enumerate(genesis.doc["seats"]):
        assert fingerprint(key) in keys_text
        assert doc["fingerprints"][s] == fingerprint(key)
    assert "1st" in keys_text

    # the step navigation: buttons, a slider over every entry, arrow keys
    ids = {a.get("id") for _, a in page.tags}
    assert {"b-first", "b-prev", "b-next", "b-last", "b-play", "slider"} <= ids
    slider = [a for t, a in page.tags if a.get("id") == "slider"][0]
    assert slider["type"] == "range" and slider["min"] == "0" and slider["max"] == str(len(entries) - 1)
    script = "".join(body for attrs, body in page.scripts if not attrs.get("type"))
    for needle in ("keydown", "ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "easel-data"):
        assert needle in script

    # without JavaScript the first move's frame is there already (where the script opens the page too)
    start = doc["start"]
    assert 0 < start < len(entries) - 1 and slider["value"] == str(start)
    assert page.text_by_id["t-entry"].startswith("Entry %d of %d" % (start, len(entries) - 1))

    # the signed log travels with the page, byte for byte
    assert base64.b64decode(doc["log_b64"]) == data


def test_identical_lines_are_stored_once(public_page):
    _, _, text = public_page
    _, doc = parsed(text)
    refs = sum(len(f[1]) + len(f[2]) + len(f[3]) + len(f[4]) + 3 for f in doc["frames"])
    assert len(doc["lines"]) < refs / 3, "frames share their lines"
    assert len({json.dumps(line) for line in doc["lines"]}) == len(doc["lines"])
    # a sane size: well under 10 KB a log entry (the log itself included)
    assert len(text.encode()) < 10_000 * doc["entries"]


def test_a_seat_view(demo_log, public_page, tmp_path):
    _, _, public = public_page
    _, text = export(demo_log, tmp_path / "seat1.html", "--as", 1)
    page, doc = parsed(text)
    assert doc["seat"] == 1
    # seat 1 by its name, signed into the genesis (the demo's bots are named)
    name = parse_genesis(parse_log(Path(demo_log).read_bytes()).entries[0]).doc["names"][1]
    assert "%s's view (seat 1)" % name in frame_text(doc, doc["frames"][-1][0])
    assert any("%s (you)" % name in frame_text(doc, ix) for f in doc["frames"] for ix in f[2])
    assert "seat 1 %s" % name in page.text_by_id["keys"]
    _, pub = parsed(public)
    assert pub["seat"] is None and "public view" in frame_text(pub, pub["frames"][-1][0])
    assert not any("(you)" in frame_text(pub, ix) for f in pub["frames"] for ix in f[2])
    assert "(this view)" in page.text_by_id["keys"]


# --------------------------------------------------------------------------- a seat's own secrets (Modern Art's hand)
MA = "modern-art"
needs_ma = pytest.mark.skipif(MA not in GAMES, reason="Modern Art is not installed")


@pytest.fixture(scope="module")
def ma_demo(tmp_path_factory) -> tuple[Path, list[Path]]:
    """The Modern Art demo: (a copy of the log alone, every peer's log beside its secrets file),
    the logs in seat order (seats follow join order, which the demo's peers race for: peer k
    need not hold seat k; its secrets file says which seat it holds)."""
    from cli.export import stored_seat_secret

    copy, logs = run_demo(MA, tmp_path_factory)
    entries = parse_log(copy.read_bytes()).entries
    by_seat = []
    for seat in range(len(logs)):
        want = disclosed(entries, seat)
        by_seat.append(next(p for p in logs if stored_seat_secret(p) == want))
    return copy, by_seat


def hand_blocks(doc: dict) -> list[str | None]:
    """Per frame, the text of the "Your hand" block of the middle pane (None: the frame has none)."""
    out: list[str | None] = []
    for f in doc["frames"]:
        lines = [frame_text(doc, ix) for ix in f[3]]
        start = next((i for i, t in enumerate(lines) if t.startswith("Your hand")), None)
        if start is None:
            out.append(None)
            continue
        end = next((i for i in range(start + 1, len(lines)) if not lines[i].strip()), len(lines))
        out.append("\n".join(lines[start:end]))
    return out


def hands_seen(entries: list[bytes], seat: int, secret: bytes | None) -> list[list[str]]:
    """Per entry, the card codes of ``seat``'s hand as the game's view with ``secret`` gives them."""
    from cli.screens.modern_art import card_code
    from core.table import Table

    t = Table.start(entries[0], core.games)
    out = [[]]
    for raw in entries[1:]:
        t.append(raw)
        v = t.view(seat, secret) or {}
        out.append([card_code(c["id"]) for c in v.get("cards") or []])
    return out


def disclosed(entries: list[bytes], seat: int) -> bytes:
    from core.table import replay

    return replay(entries, core.games).state.secrets[seat]


@needs_ma
def test_a_seat_view_shows_its_own_hand_at_every_entry(ma_demo, tmp_path):
    copy, logs = ma_demo
    entries = parse_log(copy.read_bytes()).entries
    secret1 = disclosed(entries, 1)
    want1 = hands_seen(entries, 1, secret1)
    assert sum(1 for h in want1 if h) > len(entries) // 3, "seat 1 holds cards for most of the game"

    # peer 1's own game directory: the seat secret comes from its secrets file
    _, text = export(logs[1], tmp_path / "seat1-dir.html", "--as", 1)
    page, doc = parsed(text)
    assert doc["seat"] == 1 and doc["secret_source"] == "secrets file"
    sub = page.text_by_id["sub"]
    assert "its own secrets included" in sub and "secrets file beside the log" in sub
    blocks = hand_blocks(doc)
    assert len(blocks) == len(entries)
    for n, (want, block) in enumerate(zip(want1, blocks)):
        if want:
            assert block is not None and "has not shown" not in block, (n, block)
            for code in want:
                assert code in block, (n, code, block)
    # a copy of the log alone: the secret seat 1 disclosed at the end gives the same page, frame for frame
    _, text = export(copy, tmp_path / "seat1-copy.html", "--as", 1)
    page2, doc2 = parsed(text)
    assert doc2["secret_source"] == "disclosure"
    assert "disclosed at the game's end" in page2.text_by_id["sub"] and "as it saw it" in page2.text_by_id["sub"]
    assert doc2["lines"] == doc["lines"] and doc2["frames"] == doc["frames"]

    # the public view shows nobody's hand
    _, text = export(logs[1], tmp_path / "public.html")
    page, pub = parsed(text)
    assert pub["secret_source"] is None and all(b is None for b in hand_blocks(pub))
    assert "public view" in page.text_by_id["sub"]

    # seat 0 from peer 1's directory: seat 1's secrets file is refused, seat 0's own disclosure is used
    _, text = export(logs[1], tmp_path / "seat0-dir.html", "--as", 0)
    page, doc0 = parsed(text)
    assert doc0["secret_source"] == "disclosure" and "another seat's" in page.text_by_id["sub"]
    want0 = hands_seen(entries, 0, disclosed(entries, 0))
    blocks0 = hand_blocks(doc0)
    for n, (want, block) in enumerate(zip(want0, blocks0)):
        if want:
            assert block is not None and all(code in block for code in want), (n, block)
    assert any(a != b for a, b in zip(blocks0, blocks) if a and b), "seat 0's page shows seat 0's hand, not seat 1's"
    # seat 1 by its name, signed into the genesis (the demo's bots are named)
    name = parse_genesis(entries[0]).doc["names"][1]
    assert any("%s (you)" % name in frame_text(doc, ix) for f in doc["frames"] for ix in f[2])
    assert not any("%s (you)" % name in frame_text(doc0, ix) for f in doc0["frames"] for ix in f[2])


@needs_ma
def test_an_unfinished_game_shows_a_hand_only_with_that_seats_secrets_file(ma_demo, tmp_path):
    from cli.export import find_seat_secret

    from .helpers import log_file

    copy, logs = ma_demo
    entries = parse_log(copy.read_bytes()).entries
    cut = entries[: len(entries) * 2 // 3]          # mid-game: nothing disclosed yet
    alone = tmp_path / "alone" / "log"
    beside = tmp_path / "beside" / "log"
    for f in (alone, beside):
        f.parent.mkdir()
        f.write_bytes(log_file(cut))
    secrets = logs[1].parent / "secrets"
    (beside.parent / "secrets").write_bytes(secrets.read_bytes())

    # in-process: whose secret, from where (no other seat's, ever)
    assert find_seat_secret(cut, 1, alone).secret is None
    found = find_seat_secret(cut, 1, beside)
    assert found.source == "secrets file" and found.secret == disclosed(entries, 1)
    for seat in (0, 2):
        other = find_seat_secret(cut, seat, beside)
        assert other.secret is None and other.source is None and "another seat's" in other.words
    assert find_seat_secret(cut, None, beside).secret is None

    want = hands_seen(cut, 1, found.secret)
    _, text = export(beside, tmp_path / "beside.html", "--as", 1)
    page, doc = parsed(text)
    assert doc["secret_source"] == "secrets file" and "not over" in page.text_by_id["sub"]
    blocks = hand_blocks(doc)
    assert any(w for w in want)
    for w, block in zip(want, blocks):
        if w:
            assert block is not None and all(code in block for code in w)
    _, text = export(alone, tmp_path / "alone.html", "--as", 1)
    page, doc = parsed(text)
    assert doc["secret_source"] is None and "without its own secrets" in page.text_by_id["sub"]
    assert all(b is None or "has not shown" in b for b in hand_blocks(doc))
    assert any(b for b in hand_blocks(doc))


def test_a_tampered_log_exports_with_an_invalid_verdict(demo_log, tmp_path):
    data = bytearray(demo_log.read_bytes())
    p = parse_log(bytes(data))
    k = len(p.entries) // 2
    start = p.offsets[k] + 4
    data[start + len(p.entries[k]) // 2] ^= 0x01
    bad = tmp_path / "bad.log"
    bad.write_bytes(bytes(data))
    _, text = export(bad, tmp_path / "bad.html")
    page, doc = parsed(text)
    assert page.text_by_id["verdict"].startswith("INVALID")
    assert doc["audit"]["valid"] is False and doc["audit"]["problems"]
    assert "entry %d" % k in text
    assert 1 <= len(doc["frames"]) <= k + 1


def _usage_errors(cases, home: Path) -> None:
    for args, needle in cases:
        r = easel(*args, home=home)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert needle in r.stderr, (args, r.stderr)
        assert "Traceback" not in r.stderr


def test_export_errors_are_one_line_usage_errors(demo_log, tmp_path):
    _usage_errors([
        (["export", demo_log, "--html", tmp_path / "x.html", "--as", 9], "--as must be a seat"),
        (["export", demo_log, "--html", demo_log], "overwrite the log"),
        (["export", demo_log, "--html", tmp_path / "no" / "such" / "dir.html"], "cannot write"),
        (["export", demo_log], "usage: easel export"),
    ], tmp_path)
    assert parse_log(demo_log.read_bytes()).entries, "the log is untouched"


def test_export_errors_without_a_log_are_one_line_usage_errors(tmp_path):
    """The cases that read no game's log (no file, not a log), once rather than once per game."""
    junk = tmp_path / "junk.log"
    junk.write_bytes(b"not a log at all\n" * 4)
    _usage_errors([
        (["export", tmp_path / "missing.log", "--html", tmp_path / "x.html"], "cannot read"),
        (["export", junk, "--html", tmp_path / "x.html"], "not an Easel log"),
    ], tmp_path)


def test_export_to_standard_output(demo_log, tmp_path):
    r = easel("export", demo_log, "--html", "-", home=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("<!DOCTYPE html>") and r.stdout.rstrip().endswith("</html>")
    _, doc = parsed(r.stdout)
    assert len(doc["frames"]) == len(parse_log(demo_log.read_bytes()).entries)


# --------------------------------------------------------------------------- in a real browser
# (.ci/run installs Chromium from Debian's packages when it is missing: these tests never skip)
CHROMIUM = browser.CHROMIUM
DOC_SHOTS = os.environ.get("EASEL_DOC_SHOTS")     # a directory: save each game's screenshot there (README)


def need_chromium() -> str:
    assert CHROMIUM is not None, "no chromium on PATH: .ci/run installs it (apt-get install chromium)"
    return CHROMIUM


def test_the_script_draws_the_step_in_the_address(public_page):
    _, out, text = public_page
    _, doc = parsed(text)
    n = len(doc["frames"]) // 2
    r = subprocess.run([need_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                        "%s#%d" % (out.as_uri(), n)], capture_output=True, text=True, timeout=90)
    assert r.returncode == 0, r.stderr[-2000:]
    dom = Page()
    dom.feed(r.stdout)
    assert dom.text_by_id["t-entry"].startswith("Entry %d of %d" % (n, len(doc["frames"]) - 1))
    assert dom.text_by_id["pos"].startswith("entry %d of" % n)
    assert frame_text(doc, doc["frames"][n][6]) == dom.text_by_id["t-status"]


def test_each_game_page_in_a_browser_opens_at_the_first_move_steps_and_shows_its_verdict(public_page):
    """Measured: the exported page opened at entry 0, the genesis's empty board. In headless Chromium:
    the page opens at the first entry that applied a move, steps forward and back with the keys,
    goes to the end, shows the audit's verdict; the screenshot's board holds a drawn board (many
    colours), the verdict box is green (VALID); the page logs no error."""
    need_chromium()
    _, out, text = public_page
    _, doc = parsed(text)
    frames, last = doc["frames"], len(doc["frames"]) - 1
    start = doc["start"]
    assert 0 < start < last

    def entry_text(n: int) -> str:
        return frame_text(doc, frames[n][5])

    with browser.Browser(1200, 900) as b:
        tab = b.open(out.as_uri())
        assert tab.text("pos") == "entry %d of %d" % (start, last)
        assert tab.text("t-entry") == entry_text(start)
        assert "opens (genesis)" not in tab.text("t-entry")
        tab.key("ArrowRight", keycode=39)
        assert tab.text("pos") == "entry %d of %d" % (start + 1, last) and tab.text("t-entry") == entry_text(start + 1)
        tab.key("ArrowLeft", keycode=37)
        tab.key("ArrowLeft", keycode=37)
        assert tab.text("pos") == "entry %d of %d" % (start - 1, last) and tab.text("t-entry") == entry_text(start - 1)
        tab.key("End", keycode=35)
        assert tab.text("pos") == "entry %d of %d" % (last, last)
        assert tab.eval("location.hash") == "#%d" % last
        tab.key("Home", keycode=36)
        assert tab.text("pos") == "entry 0 of %d" % last
        tab.key("ArrowDown", keycode=40)                           # the next mark
        assert tab.text("pos") != "entry 0 of %d" % last
        tab.key("End", keycode=35)
        verdict = tab.text("verdict")
        assert verdict.startswith("VALID"), verdict
        shot = tab.screenshot()
        w, h, rows = browser.png_pixels(shot)
        assert (w, h) == (1200, 900)
        board = tab.rect("t-board") if tab.rect("t-board")[2] > 40 else tab.rect("t-middle")
        colours, _ = browser.region_stats(rows, board)
        assert colours > 20, "the board region is (nearly) blank: %d colours in %r" % (colours, board)
        vbox = tab.rect("verdict")
        assert vbox[1] + vbox[3] <= h, "the verdict is below the window"
        _, (r, g, bl) = browser.region_stats(rows, vbox)
        assert g > r + 40 and g > bl + 20, "the verdict box is not green: %r" % ((r, g, bl),)
        assert tab.errors() == []
        if DOC_SHOTS:
            tab.key("Home", keycode=36)
            for _ in range(3):
                tab.key("ArrowDown", keycode=40)
            Path(DOC_SHOTS, "export-%s.png" % doc["game"]).write_bytes(tab.screenshot(scale=0.6))
