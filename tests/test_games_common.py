"""core/games/common.py: the helpers the games share say what they said when each game wrote its own."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from core.engine import ConfigError, IllegalAction
from core.games.common import asked, entropy_from, option_map, play_locally, seed_bytes, short
from core.games.painting import rules as painting_rules
from core.games.painting.bots import RandomBot
from core.rng import Rng


class _Hostile:
    def __repr__(self) -> str:
        raise RuntimeError("no")


def test_short_cuts_long_values_and_survives_a_hostile_repr():
    assert short("ab") == "'ab'"
    long = short("x" * 100)
    assert len(long) == 40 and long.endswith("...")
    assert short(_Hostile()) == "<_Hostile>"


def test_seed_bytes_copies_buffers_and_refuses_the_rest():
    assert seed_bytes(bytearray(b"ab")) == b"ab" and type(seed_bytes(memoryview(b"ab"))) is bytes
    with pytest.raises(ConfigError, match="^seed must be bytes$"):
        seed_bytes("ab")
    assert seed_bytes(b"\0" * 32, 32) == b"\0" * 32
    with pytest.raises(ConfigError, match="^seed must be 32 bytes$"):
        seed_bytes(b"\0" * 31, 32)


def test_option_map():
    assert option_map(None) == {}
    assert option_map({"a": 1}) == {"a": 1}
    with pytest.raises(ConfigError, match="options must be a map"):
        option_map([("a", 1)])


def test_asked_checks_in_order():
    st = SimpleNamespace(phase="play", players=3)
    asked(st, 2, {"do": "x"}, "not a map: %s")
    with pytest.raises(IllegalAction, match="^there is no seat 3 at this table$"):
        asked(st, 3, {}, "not a map: %s")
    with pytest.raises(IllegalAction, match="^there is no seat True at this table$"):
        asked(st, True, {}, "not a map: %s")
    with pytest.raises(IllegalAction, match=r"^not a map: \[1\]$"):
        asked(st, 0, [1], "not a map: %s")
    with pytest.raises(IllegalAction, match="^the game is over$"):
        asked(SimpleNamespace(phase="over", players=3), 9, None, "%s")


def test_entropy_is_32_bytes_from_the_rng():
    a, b = Rng(b"\1" * 32, "t"), Rng(b"\1" * 32, "t")
    e = entropy_from(a)
    assert len(e) == 32 and e == entropy_from(b) and e != entropy_from(b)


def test_play_locally_plays_to_the_end_and_bounds_the_steps():
    seed = b"\2" * 32
    bots = [RandomBot(), RandomBot()]
    label = lambda state, s, k: Rng(seed, "t/%d/%d" % (s, k))  # noqa: E731
    state, result = play_locally(painting_rules, "painting", {}, 2, seed, bots, bot_rng=label, max_steps=None)
    assert result is not None and painting_rules.turn(state).kind == "over"
    again = play_locally(painting_rules, "painting", {}, 2, seed, bots, bot_rng=label, max_steps=None)
    assert again[1] == result                                  # deterministic from the seed
    with pytest.raises(RuntimeError, match="^game did not end within 3 steps$"):
        play_locally(painting_rules, "painting", {}, 2, seed, bots, bot_rng=label, max_steps=3)
