"""Behaviour and bytes unchanged (issue 25): every game played from a fixed seed on the in-memory
network gives the log bytes, views, legal actions, warnings and offline result whose digests
tests/same_bytes.json holds.  The fixture was made with ``python -m tests.same_bytes`` on the code
before "one way to call a game" (one signature, one way to declare a hook); a change that means to
change a log's bytes or a view makes it again the same way and says so in its commit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import core.games

from . import same_bytes

FIXTURE = json.loads((Path(__file__).parent / "same_bytes.json").read_text())


@pytest.fixture(scope="module")
def now() -> dict:
    return same_bytes.digests()


def test_the_fixture_covers_every_registered_game():
    assert sorted(FIXTURE) == sorted(core.games.names())


@pytest.mark.parametrize("game", sorted(FIXTURE))
@pytest.mark.parametrize("part", ["log", "timeouts", "views", "offline"])
def test_a_fixed_seed_gives_the_same_bytes_as_before(now, game, part):
    assert now[game]["entries"] == FIXTURE[game]["entries"] and now[game]["timeout_entries"] == FIXTURE[game]["timeout_entries"]
    assert now[game][part] == FIXTURE[game][part], "%s: the %s digest changed" % (game, part)
