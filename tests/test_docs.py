"""The documents stay true: protocol.md mirrors the game's rules decisions, and every
test a decision names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _decisions_in_rules() -> str:
    text = (ROOT / "core/games/painting/RULES.md").read_text(encoding="utf-8")
    return text[text.index("## Rules decisions") + len("## Rules decisions") :].strip()


def test_protocol_md_mirrors_the_painting_rules_decisions():
    spec = (ROOT / "protocol.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- painting-decisions:begin -->\n(.*?)\n<!-- painting-decisions:end -->", spec, re.S)
    assert m, "protocol.md has no painting-decisions block"
    assert m.group(1).strip() == _decisions_in_rules()


def test_every_test_a_decision_names_exists():
    names = set(re.findall(r"`(test_[a-z0-9_]+)`", _decisions_in_rules()))
    assert len(names) >= 20
    defined = set()
    for f in (ROOT / "tests").glob("test_*.py"):
        defined |= set(re.findall(r"^(?:async )?def (test_[a-z0-9_]+)", f.read_text(encoding="utf-8"), re.M))
    missing = sorted(names - defined)
    assert not missing, "decisions name tests that do not exist: %s" % missing
