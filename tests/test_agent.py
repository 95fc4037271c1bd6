"""Our seat's agent (p2p/agent.py): the seat secret made once and written before anything derived
from it, a sealed move's value and salt written before its commitment is signed, the automatic
events a step needs, and our events signed with our key."""

from __future__ import annotations

import pytest

from core import games as registry
from core.events import commitment, parse_entry
from core.table import Step, Table
from p2p.agent import SEAT_SECRET, SEAT_SECRET_BYTES, SeatAgent
from p2p.effects import Alert, WriteSecret

from .netutil import DetRand, identities, make_table

IDS = identities(3, "agent")


def agent_at(game: str, seat: int = 1, rand=None) -> tuple:
    genesis = make_table(IDS, game)
    table = Table.start(genesis, registry)
    return SeatAgent(genesis.game_id, IDS[seat].public, seat, IDS[seat].sign, rand or DetRand("agent", seat)), table


def test_the_seat_secret_is_made_once_written_first_and_given_to_the_table():
    a, table = agent_at("modern-art")
    out = a.ensure_secret(table)
    assert [type(e) for e in out] == [WriteSecret] and out[0].phase == SEAT_SECRET and out[0].salt == b""
    assert a.seat_secret == out[0].value and len(out[0].value) == SEAT_SECRET_BYTES
    assert table.secrets[1] == a.seat_secret and a.table_secret() == (1, a.seat_secret)
    assert a.ensure_secret(table) == []
    plain, painting = agent_at("painting")
    assert plain.ensure_secret(painting) == [] and plain.seat_secret is None and plain.table_secret() is None
    with pytest.raises(ValueError, match="must give 64 bytes"):
        agent_at("modern-art", rand=lambda n: b"short")[0].ensure_secret(table)


def test_a_commit_writes_value_and_salt_before_its_hash_and_the_reveal_opens_it():
    a, _ = agent_at("painting")
    commit = Step(4, b"\1" * 32, "commit", "move", (0, 1), False, "x")
    out, body = a.commit(commit, {"tile": 3})
    (w,) = out
    assert isinstance(w, WriteSecret) and w.phase == 4 and w.value == {"tile": 3}
    assert body == {"phase": 4, "hash": commitment(a.game_id, a.me, 4, {"tile": 3}, w.salt)}
    reveal = Step(5, b"\2" * 32, "reveal", "move", (0, 1), False, "x", shows=True)
    assert a.automatic(None, reveal) == ([], ("reveal", {"phase": 5, "value": {"tile": 3}, "salt": w.salt}))
    out, move = a.automatic(None, Step(9, b"\2" * 32, "reveal", "move", (1,), False, "x", shows=True))
    assert move is None and isinstance(out[0], Alert) and "no secret for phase 8" in out[0].text


def test_a_seed_commit_needs_no_decision_and_a_move_does():
    a, table = agent_at("painting")
    seed = table.step
    assert seed.purpose == "seed"
    out, (kind, body) = a.automatic(table, seed)
    assert kind == "commit" and isinstance(out[0], WriteSecret) and len(out[0].value) == 32
    assert a.automatic(table, Step(3, b"\1" * 32, "act", "move", (1,), True, "x")) == ([], None)


def test_our_events_are_signed_with_our_key():
    a, _ = agent_at("painting")
    st = Step(0, b"\3" * 32, "commit", "seed", (0, 1, 2), False, "x")
    ev = a.event(st, "commit", {"phase": 0, "hash": b"h" * 32}, 7)
    parsed = parse_entry(ev.raw, keys=[i.public for i in IDS])
    assert parsed.author == IDS[1].public and parsed.seq == 7 and parsed.prev == st.prev
