"""The documents stay true: protocol.md mirrors the game's rules decisions, and every
test a decision names exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


GAME_DIRS = sorted(d.name for d in (ROOT / "core/games").iterdir() if (d / "RULES.md").is_file())


def _decisions_in_rules(folder: str = "painting") -> str:
    text = (ROOT / "core/games" / folder / "RULES.md").read_text(encoding="utf-8")
    return text[text.index("## Rules decisions") + len("## Rules decisions") :].strip()


def test_every_game_folder_has_rules_decisions():
    assert "painting" in GAME_DIRS and "starving_artists" in GAME_DIRS
    for folder in GAME_DIRS:
        assert "## Rules decisions" in (ROOT / "core/games" / folder / "RULES.md").read_text(encoding="utf-8"), folder


@pytest.mark.parametrize("folder", GAME_DIRS)
def test_protocol_md_mirrors_each_games_rules_decisions(folder):
    spec = (ROOT / "protocol.md").read_text(encoding="utf-8")
    tag = folder.replace("_", "-")
    m = re.search(r"<!-- %s-decisions:begin -->\n(.*?)\n<!-- %s-decisions:end -->" % (tag, tag), spec, re.S)
    assert m, "protocol.md has no %s-decisions block" % tag
    assert m.group(1).strip() == _decisions_in_rules(folder)


@pytest.mark.parametrize("folder", GAME_DIRS)
def test_every_test_a_decision_names_exists(folder):
    names = set(re.findall(r"`(test_[a-z0-9_]+)`", _decisions_in_rules(folder)))
    assert len(names) >= 20
    defined = set()
    for f in (ROOT / "tests").glob("test_*.py"):
        defined |= set(re.findall(r"^(?:async )?def (test_[a-z0-9_]+)", f.read_text(encoding="utf-8"), re.M))
    missing = sorted(names - defined)
    assert not missing, "decisions name tests that do not exist: %s" % missing


# --------------------------------------------------------------------------- step order and options


def _section(path: str, heading: str) -> str:
    text = (ROOT / path).read_text(encoding="utf-8")
    start = text.index(heading)
    nxt = text.find("\n## ", start + len(heading))
    return text[start : nxt if nxt >= 0 else len(text)]


def test_protocol_md_points_to_every_game_step_order():
    """protocol.md sends a verifier to each registered game's RULES.md, which has a step order."""
    import core.games

    spec = (ROOT / "protocol.md").read_text(encoding="utf-8")
    import importlib

    folder_of = {}
    for d in (ROOT / "core/games").iterdir():
        if (d / "__init__.py").is_file():
            game = getattr(importlib.import_module("core.games.%s" % d.name), "GAME", None)
            if game is not None:
                folder_of[game.info.name] = d.name
    for name in core.games.names():
        folder = folder_of[name]
        path = "core/games/%s/RULES.md" % folder
        assert path in spec, "protocol.md does not reference %s" % path
        assert re.search(r"^## Step order", (ROOT / path).read_text(encoding="utf-8"), re.M), path


def test_painting_options_table_is_what_configure_accepts():
    from core.engine import ConfigError
    from core.games.painting import rules

    import pytest

    rows = re.findall(r"^\| `(\w+)` \| (str|int) \| (.+?) \| `?(\w+)`? \|$", _section("core/games/painting/RULES.md", "## Step order and options"), re.M)
    assert {r[0] for r in rows} == set(rules.INFO.options)
    for key, typ, allowed, default in rows:
        if typ == "int":
            lo, hi = (int(x) for x in allowed.split(" … "))
            assert rules.INFO.options[key] == int(default)
            for ok in (lo, hi):
                assert rules.configure({key: ok}, 2)[key] == ok
            for bad in (lo - 1, hi + 1, True, str(lo)):
                with pytest.raises(ConfigError):
                    rules.configure({key: bad}, 2)
        else:
            values = re.findall(r"`(\w+)`", allowed)
            assert rules.INFO.options[key] == default and set(values) == set(rules.EDITIONS)
            for ok in values:
                assert rules.configure({key: ok}, 2)[key] == ok
            with pytest.raises(ConfigError):
                rules.configure({key: "other"}, 2)
    assert rules.configure({}, 2) == dict(rules.INFO.options)
    for players, ok in ((1, False), (2, True), (8, True), (9, False)):
        if ok:
            rules.configure({}, players)
        else:
            with pytest.raises(ConfigError):
                rules.configure({}, players)
    with pytest.raises(ConfigError):
        rules.configure({"unknown": 1}, 2)


def _steps_of(h):
    st = h.t.step
    return None if st is None else (st.phase, st.kind, st.purpose, st.seats)


def test_painting_step_order_as_documented():
    import core.games

    from .helpers import HandTable

    empty = {"bids": {}, "splash": None, "extra": None, "convert": 0}
    n, rounds = 2, 3
    h = HandTable(n, config={"rounds": rounds}, game="painting", games=core.games)
    every = tuple(range(n))
    assert _steps_of(h) == (0, "commit", "seed", every)
    h.commit_all({s: bytes([s]) * 32 for s in every})
    assert _steps_of(h) == (1, "reveal", "seed", every)
    h.reveal_all({s: bytes([s]) * 32 for s in every})
    for r in range(1, rounds + 1):
        # the round's chance consumed the fresh beacon: straight to the sealed move of every seat
        assert _steps_of(h) == (2 * r, "commit", "move", every) and h.t.state.round == r
        assert len(h.t.state.offer) == (10 if r == 1 else 7)
        h.sealed({s: empty for s in every})
    assert h.t.over and h.t.result() is not None
    assert len(h.entries) == 1 + 2 * n * (rounds + 1)

    # a move step with no reveal (exactly half the seats committed, all timed out at reveal):
    # the next chance first opens a seed step for every seat
    n = 4
    every = tuple(range(n))
    h = HandTable(n, config={"rounds": 2}, game="painting", games=core.games)
    h.seed()
    assert _steps_of(h) == (2, "commit", "move", every)
    h.commit_all({0: empty, 1: empty})                 # seats 2, 3 timed out
    assert _steps_of(h) == (3, "reveal", "move", (0, 1))
    h.reveal_all({}, skip=(0, 1))                      # seats 0, 1 timed out
    assert _steps_of(h) == (4, "commit", "seed", every) and h.t.state.round == 2 and h.t.state.phase == "chance"
    h.seed()
    assert _steps_of(h) == (6, "commit", "move", every) and h.t.state.phase == "play"


def test_painting_sheet_draws_as_documented():
    """The draw order written in RULES.md, reimplemented from the text, gives the code's sheets."""
    from core.games.painting import sheets
    from core.hashing import dhash
    from core.rng import Rng

    def from_text(rng):
        n = 2 + rng.below(5)
        row = rng.below(4)
        col = rng.below(4)
        shape = {(row, col)}
        while len(shape) < n:
            near = sorted(
                {(r + dr, c + dc) for r, c in shape for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                 if 0 <= r + dr < 4 and 0 <= c + dc < 4} - shape
            )
            shape.add(near[rng.below(len(near))])
        cells = [(r, c, "RBYPOG"[rng.below(6)]) for r, c in sorted(shape)]
        r0, c0 = min(r for r, _, _ in cells), min(c for _, c, _ in cells)
        return sorted([r - r0, c - c0, col] for r, c, col in cells)

    for i in range(20):
        entropy = dhash("test", i)
        r = 1 + i % 6
        rng = Rng(entropy, "painting/sheets/round-%d" % r)
        mine = [from_text(rng) for _ in range(7)]
        theirs = [s.cells_list() for s in sheets.generate_round(entropy, r, 7, 1)]
        assert mine == theirs


# --------------------------------------------------------------------------- the README's first two lines


def _readme_lines() -> tuple[str, str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text[text.index("```sh\n") + len("```sh\n") :]
    lines = [ln.split("  #")[0].strip() for ln in block[: block.index("```")].splitlines()]
    return lines[0], lines[1]


def test_readme_first_lines_enter_a_virtual_environment_and_ci_runs_the_second_verbatim():
    """Debian's Python refuses pip outside a virtual environment and has no `python`: both lines make
    (or reuse) .venv with python3 and enter it before pip, so either works alone in a fresh terminal or
    after the other; .ci/run runs the second line's test part, character for character, in a fresh one."""
    play, tests = _readme_lines()
    enter = "python3 -m venv .venv && . .venv/bin/activate && "
    # the first line installs what --internet needs on this machine kind too (issue 30: the internet extra)
    assert play.startswith(enter) and play.endswith('pip install -e ".[internet]" && easel play'), play
    assert tests.startswith(enter) and "python -m pytest -q" in tests, tests
    assert not any(ln.lstrip().startswith(("pip ", "python ")) for ln in (play, tests))
    ci = (ROOT / ".ci/run").read_text(encoding="utf-8").splitlines()
    marker = ci.index("# --- the README's test command, verbatim ---")
    assert ci[marker + 1] == tests[len(enter) :]
    before = "\n".join(ci[:marker])
    assert "python3 -m venv .venv-ci" in before and ". .venv-ci/bin/activate" in before
    assert before.index("rm -rf .venv-ci") < before.index("python3 -m venv .venv-ci") < before.index(". .venv-ci/bin/activate")
