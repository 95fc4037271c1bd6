"""The table: replaying a log (core/table.py, protocol.md §6).

Every table here plays the toy game (tests/toy_game.py: chance, sealed, sequential
and open simultaneous steps) or a fake game defined below; no test depends on a
real game's rules.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.encoding import encode
from core.engine import ConfigError, Game, GameInfo, IllegalAction, Turn, OVER
from core.events import ZERO32, make_event, next_head, parse_entry
from core.hashing import dhash
from core.table import RuleError, Table, replay

from .helpers import GAMES, Builder, HandTable, genesis_for, salt_for, seat_keys, signer, simulate, simulated
from .toy_game import TOY

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def snapshot(t: Table):
    return (t.head, t.count, t.phase, t.step, dict(t.batch), dict(t.last_seq), t.beacon, t.fresh, encode(t.view(None)) if t.state is not None else None)


def refused(t: Table, ent) -> str:
    """Append must raise RuleError and leave the table exactly as it was."""
    before = snapshot(t)
    with pytest.raises(RuleError) as exc:
        t.append(ent.raw if hasattr(ent, "raw") else ent)
    assert snapshot(t) == before
    return str(exc.value)


def seat_views(t: Table):
    return [encode(t.view(s)) for s in [None] + list(range(t.players))]


# --------------------------------------------------------------------------- replay = live


@pytest.mark.parametrize("n, seed, rounds", [(2, 1, None), (3, 2, None), (4, 3, 2), (5, 4, 1)])
def test_replay_of_simulated_log_equals_live_table(n, seed, rounds):
    g, sks, peers = simulate(n, seed, config={"rounds": rounds} if rounds else None)
    log = peers[0].log_entries
    assert all(p.log_entries == log for p in peers)
    t = replay(log, GAMES)
    assert t.over
    assert t.result() is not None
    for p in peers:
        live = p.table
        assert live.over
        assert t.head == live.head
        assert t.count == live.count == len(log)
        assert t.result() == live.result()
        assert seat_views(t) == seat_views(live)
        assert (t.seed, t.beacon) == (live.seed, live.beacon)
    # the head is the hash chain over the entries
    h = ZERO32
    for raw in log:
        h = next_head(h, dhash("entry-id", raw))
    assert t.head == h


def test_replay_is_deterministic():
    g, sks, peers = simulate(3, 11)
    log = peers[1].log_entries
    a, b = replay(log, GAMES), replay(list(log), GAMES)
    assert a.head == b.head
    assert seat_views(a) == seat_views(b)
    assert encode(a.result()) == encode(b.result())
    assert a.moves == b.moves
    # replaying from parsed entries gives the same as from bytes
    c = Table.start(log[0], GAMES)
    for raw in log[1:]:
        c.append(parse_entry(raw, keys=c.keys))
    assert c.head == a.head and seat_views(c) == seat_views(a)


def test_prefix_replay_matches_step_by_step():
    g, sks, peers = simulate(3, 5, config={"rounds": 2})
    log = peers[2].log_entries
    t = Table.start(log[0], GAMES)
    heads = [t.head]
    for raw in log[1:]:
        t.append(raw)
        heads.append(t.head)
    for k in (1, 4, len(log) // 2, len(log)):
        assert replay(log[:k], GAMES).head == heads[k - 1]


def test_replay_of_empty_log_refused():
    with pytest.raises(RuleError):
        replay([], GAMES)


@settings(max_examples=25, **SETTINGS)
@given(st.integers(0, 2**32), st.integers(2, 5))
def test_property_random_games_end_and_replay_equals_live(seed, n):
    g, sks, peers = simulate(n, seed, config={"rounds": 1 + seed % 6})
    logs = {tuple(p.log_entries) for p in peers}
    assert len(logs) == 1
    t = replay(peers[0].log_entries, GAMES)
    assert t.over
    for p in peers:
        assert p.table.over
        assert t.head == p.table.head
        assert encode(t.result()) == encode(p.table.result())


# --------------------------------------------------------------------------- genesis


def test_start_refuses_bad_genesis():
    sks = seat_keys(2)
    g = genesis_for(sks)
    bad = bytearray(g.raw)
    bad[-1] ^= 1
    with pytest.raises(RuleError):
        Table.start(bytes(bad), GAMES)
    for config in ({"edition": "nope"}, {"rounds": 0}, {"sudden_death": 1}, {"no such option": True}):
        with pytest.raises(RuleError):
            Table.start(genesis_for(sks, config=config), GAMES)
    with pytest.raises(RuleError):
        Table.start(genesis_for(sks, game="chess"), GAMES)
    with pytest.raises(RuleError):
        Table.start(genesis_for(seat_keys(9)), GAMES)  # the toy game takes 1..8 players
    assert Table.start(genesis_for(seat_keys(8)), GAMES).players == 8
    assert Table.start(genesis_for(sks[:1]), GAMES).step.seats == (0,)


def test_first_step_is_the_seed_commit():
    h = HandTable(3)
    st_ = h.t.step
    assert (st_.phase, st_.kind, st_.purpose, st_.seats) == (0, "commit", "seed", (0, 1, 2))
    assert st_.prev == next_head(ZERO32, h.g.id) == h.t.head
    assert h.t.state is None and h.t.view(0) is None and h.t.result() is None
    assert h.t.missing() == (0, 1, 2)


# --------------------------------------------------------------------------- refusals


def test_event_out_of_seat_order_refused():
    h = HandTable(3)
    st_ = h.t.step
    e1 = h.b.commit(1, 0, st_.prev, b"x" * 32, salt_for(1, 0))
    e0 = h.b.commit(0, 0, st_.prev, b"y" * 32, salt_for(0, 0))
    h.add(e1)
    assert "order" in refused(h.t, e0)
    e2 = h.b.commit(2, 0, st_.prev, b"z" * 32, salt_for(2, 0))
    h.add(e2)  # 1 then 2 is fine: seat 0 is simply missing
    assert h.t.missing() == (0,)


def test_second_event_from_same_seat_refused():
    h = HandTable(3)
    st_ = h.t.step
    h.add(h.b.commit(0, 0, st_.prev, b"x" * 32, salt_for(0, 0)))
    again = h.b.commit(0, 0, st_.prev, b"y" * 32, salt_for(0, 1))  # next seq, same step
    refused(h.t, again)
    same_bytes = parse_entry(h.entries[-1])
    refused(h.t, same_bytes)


def test_event_of_a_seat_not_expected_refused():
    h = HandTable(3)
    vals = {0: b"a" * 32, 1: b"b" * 32}
    h.commit_all(vals)  # seat 2 timed out in the commit step
    st_ = h.t.step
    assert (st_.kind, st_.seats) == ("reveal", (0, 1))
    stray = h.b.reveal(2, st_.phase, st_.prev, b"c" * 32, salt_for(2, 0))
    assert "not expected" in refused(h.t, stray)


def test_event_of_a_foreign_key_refused():
    h = HandTable(3)
    st_ = h.t.step
    foreign = seat_keys(1, base=0x50)[0]
    fk = bytes(foreign.verify_key)
    e = make_event(signer(foreign), h.g.game_id, fk, 0, st_.prev, "commit", {"phase": 0, "hash": bytes(32)})
    refused(h.t, e)


def test_event_of_another_game_refused():
    h = HandTable(3)
    other = HandTable(3, table=b"other")
    e = other.b.commit(0, 0, h.t.step.prev, b"x" * 32, salt_for(0, 0))
    refused(h.t, e)


def test_wrong_kind_refused():
    h = HandTable(3)
    st_ = h.t.step
    e = h.b.reveal(0, 0, st_.prev, b"x" * 32, salt_for(0, 0))
    refused(h.t, e)
    a = h.b.event(0, st_.prev, "act", {"phase": 0, "action": 1})
    refused(h.t, a)


def test_reveal_that_does_not_open_its_commitment_refused():
    h = HandTable(3)
    vals = {s: bytes([s + 1]) * 32 for s in range(3)}
    h.commit_all(vals)
    st_ = h.t.step
    assert st_.kind == "reveal" and st_.phase == 1
    salt0 = h.salts[(0, 0)]
    for value, salt in [
        (b"\xff" * 32, salt0),                  # other value
        (vals[0], salt_for(0, 0, b"other")),    # other salt
        (vals[1], h.salts[(0, 1)]),             # seat 1's opening
    ]:
        assert "commitment" in refused(h.t, h.b.reveal(0, 1, st_.prev, value, salt))
    # a commitment for the wrong phase number does not open it either
    h2 = HandTable(3)
    st0 = h2.t.step
    for s in range(3):
        c = h2.b.event(s, st0.prev, "commit", {"phase": 0, "hash": dhash("commit", h2.g.game_id, h2.keys[s], 1, vals[s], salt0)})
        h2.add(c)
    refused(h2.t, h2.b.reveal(0, 1, h2.t.step.prev, vals[0], salt0))
    # the right opening is accepted
    h.add(h.b.reveal(0, 1, st_.prev, vals[0], salt0))


def test_wrong_prev_or_phase_refused():
    h = HandTable(3)
    st_ = h.t.step
    refused(h.t, h.b.commit(0, 0, ZERO32, b"x" * 32, salt_for(0, 0)))
    refused(h.t, h.b.commit(0, 0, next_head(st_.prev, bytes(32)), b"x" * 32, salt_for(0, 0)))
    refused(h.t, h.b.event(0, st_.prev, "commit", {"phase": 1, "hash": bytes(32)}))
    h.seed()
    st2 = h.t.step
    assert st2.phase == 2
    # an event of the right phase but built on the previous step's prev
    refused(h.t, h.b.event(0, h.t.starts[1][1], "commit", {"phase": 2, "hash": bytes(32)}))
    # the right prev but an old phase number
    refused(h.t, h.b.event(0, st2.prev, "commit", {"phase": 0, "hash": bytes(32)}))
    h.add(h.b.event(0, st2.prev, "commit", {"phase": 2, "hash": bytes(32)}))


def test_seq_must_increase():
    h = HandTable(3)
    st_ = h.t.step
    vals = {s: bytes([s]) * 32 for s in range(3)}
    h.add(h.b.commit(0, 0, st_.prev, vals[0], salt_for(0, 0), seq=5))
    h.add(h.b.commit(1, 0, st_.prev, vals[1], salt_for(1, 0), seq=0))
    h.add(h.b.commit(2, 0, st_.prev, vals[2], salt_for(2, 0), seq=0))
    st1 = h.t.step
    for seq in (5, 4, 0):
        assert "sequence" in refused(h.t, h.b.reveal(0, 1, st1.prev, vals[0], salt_for(0, 0), seq=seq))
    h.add(h.b.reveal(0, 1, st1.prev, vals[0], salt_for(0, 0), seq=9))  # gaps are allowed
    assert h.t.last_seq[h.keys[0]] == 9


def test_entry_after_game_over_refused():
    g, sks, peers = simulate(2, 7, config={"rounds": 1})
    log = peers[0].log_entries
    t = replay(log, GAMES)
    assert t.over
    last = parse_entry(log[-1])
    b = Builder(g, sks)
    late = b.event(0, t.head, "commit", {"phase": t.phase, "hash": bytes(32)}, seq=10_000)
    assert "end" in refused(t, late)
    refused(t, last)
    with pytest.raises(RuleError):
        t.append(log[0])  # a second genesis


def test_timeout_refusals():
    h = HandTable(4)
    st_ = h.t.step
    h.add(h.b.commit(0, 0, st_.prev, b"a" * 32, salt_for(0, 0)))
    h.add(h.b.commit(3, 0, st_.prev, b"d" * 32, salt_for(3, 0)))
    # covering a seat whose event is in: refused
    refused(h.t, h.b.timeout(0, st_.prev, [0, 2], voters=[1, 3]))
    # covering only part of the missing seats: refused
    refused(h.t, h.b.timeout(0, st_.prev, [2]))
    # wrong phase / wrong prev
    refused(h.t, h.b.timeout(1, st_.prev, [1, 2]))
    refused(h.t, h.b.timeout(0, ZERO32, [1, 2]))
    # incomplete (not every seat outside T voted): refused
    refused(h.t, h.b.timeout(0, st_.prev, [1, 2], voters=[0]))
    h.add(h.b.timeout(0, st_.prev, [1, 2]))
    assert h.t.step.kind == "reveal" and h.t.step.seats == (0, 3)


def test_timeout_of_more_than_half_the_table_refused():
    # one seat cannot time out the two others: a certificate needs as many voters as it times out
    h = HandTable(3)
    st_ = h.t.step
    h.add(h.b.commit(0, 0, st_.prev, b"a" * 32, salt_for(0, 0)))
    refused(h.t, h.b.timeout(0, st_.prev, [1, 2]))
    assert h.t.step.phase == 0


def test_timeout_then_event_of_the_same_step_refused():
    h = HandTable(4)
    st_ = h.t.step
    h.add(h.b.commit(0, 0, st_.prev, b"a" * 32, salt_for(0, 0)))
    h.add(h.b.commit(3, 0, st_.prev, b"d" * 32, salt_for(3, 0)))
    h.add(h.b.timeout(0, st_.prev, [1, 2]))
    refused(h.t, h.b.commit(1, 0, st_.prev, b"b" * 32, salt_for(1, 0)))


def test_assemble_orders_batch_and_certificate_wins():
    h = HandTable(3)
    st_ = h.t.step
    ev = {s: h.b.commit(s, 0, st_.prev, bytes([s]) * 32, salt_for(s, 0)) for s in range(3)}
    assert h.t.assemble({2: ev[2], 0: ev[0], 1: ev[1]}) == [ev[0], ev[1], ev[2]]
    assert h.t.assemble({0: ev[0], 2: ev[2]}) is None
    cert = h.b.timeout(0, st_.prev, [2])
    assert h.t.assemble({0: ev[0], 1: ev[1], 2: ev[2]}, cert) == [ev[0], ev[1], cert]
    assert h.t.assemble({0: ev[0], 1: ev[1]}, cert) == [ev[0], ev[1], cert]
    stale = h.b.timeout(5, st_.prev, [2])
    assert h.t.assemble({0: ev[0], 1: ev[1]}, stale) is None
    for ent in h.t.assemble({0: ev[0], 1: ev[1]}, cert):
        h.add(ent)
    assert h.t.step.kind == "reveal" and h.t.step.seats == (0, 1)


# --------------------------------------------------------------------------- seed and beacon


def test_seed_and_beacon_derivation():
    """Seed and beacon from the seed step; a sealed step refreshes the beacon, an open move
    stales it; a fresh beacon at a chance turn is consumed at once (no seed step)."""
    h = HandTable(3, config={"rounds": 2, "sealed_bets": True})
    vals = h.seed()
    salts0 = [h.salts[(0, s)] for s in range(3)]
    assert h.t.seed == dhash("seed", [vals[0], vals[1], vals[2]])
    b1 = dhash("beacon", ZERO32, salts0)
    assert h.t.beacon == b1
    # the chance turn of round 1 consumed the fresh beacon
    assert h.t.fresh is False
    expected = TOY.chance(TOY.setup(h.t.config, 3, h.t.seed), b1)
    assert h.t.state == expected
    assert seat_views(h.t) == [encode(TOY.view(expected, s)) for s in [None, 0, 1, 2]]
    assert (h.t.step.phase, h.t.step.kind, h.t.step.purpose) == (2, "commit", "move")
    # the round's sealed guesses refresh the beacon: beacon = dhash(beacon, salts)
    guesses = {s: {"guess": 1 + s} for s in range(3)}
    h.sealed(guesses)
    b2 = dhash("beacon", b1, [h.salts[(2, s)] for s in range(3)])
    assert h.t.beacon == b2 and h.t.fresh is True
    state = expected
    for s in range(3):
        state = TOY.apply(state, s, guesses[s])
    # the leader's open target was made knowing that beacon: it is no longer fresh
    st_ = h.t.step
    assert (st_.kind, st_.seats, st_.sequential) == ("act", (0,), True)
    h.add(h.b.event(0, st_.prev, "act", {"phase": st_.phase, "action": {"target": 2}}))
    assert h.t.beacon == b2 and h.t.fresh is False
    state = TOY.apply(state, 0, {"target": 2})
    # the sealed bets end the round: round 2's chance consumes the beacon they refreshed
    st_ = h.t.step
    assert (st_.kind, st_.purpose, st_.seats) == ("commit", "move", (0, 1, 2))
    bets = {0: {"bet": 0}, 1: {"bet": 1}, 2: {"bet": 0}}
    h.sealed(bets)
    b3 = dhash("beacon", b2, [h.salts[(st_.phase, s)] for s in range(3)])
    assert h.t.beacon == b3 and h.t.fresh is False
    for s in range(3):
        state = TOY.apply(state, s, bets[s])
    assert (state.round, state.stage) == (2, "roll")
    assert h.t.state == TOY.chance(state, b3)
    assert h.t.state.round == 2 and h.t.state.stage == "guess"
    assert (h.t.step.kind, h.t.step.purpose) == ("commit", "move")     # no seed step in between
    assert h.t.seed == dhash("seed", [vals[0], vals[1], vals[2]])


def test_open_moves_make_the_next_chance_wait_for_a_seed_step():
    """Open bets end the round: the beacon is stale, so round 2's dice need a seed step of every
    seat still in; its beacon is their entropy, and the game is not set up again."""
    h = HandTable(3, config={"rounds": 2})
    h.seed()
    seed0 = h.t.seed
    toy_round(h)                                     # every seat bets 1 and wins
    state = h.t.state
    assert (state.round, state.stage, state.chips) == (2, "roll", (4, 4, 4))
    st_ = h.t.step
    assert (st_.kind, st_.purpose, st_.seats) == ("commit", "seed", (0, 1, 2))
    beacon = h.t.beacon
    h.seed()
    b = dhash("beacon", beacon, [h.salts[(st_.phase, s)] for s in range(3)])
    assert h.t.beacon == b and h.t.seed == seed0
    assert h.t.state == TOY.chance(state, b)


# --------------------------------------------------------------------------- moves, illegal reveals, time-outs


def test_illegal_reveal_is_the_empty_move():
    h = HandTable(3, config={"rounds": 2, "sealed_bets": True})
    h.seed()
    rolls = h.t.state.rolls
    values = {0: {"guess": 9}, 1: {"guess": 4}, 2: {"guess": 6}}    # a guess is 1..6: seat 0's is illegal
    commit_phase = h.t.step.phase
    h.commit_all(values)
    st_ = h.t.step
    n_before = len(h.t.notes)
    for s in range(3):  # every reveal opens its commitment: accepted, even seat 0's
        h.add(h.b.reveal(s, st_.phase, st_.prev, values[s], h.salts[(commit_phase, s)]))
    notes = h.t.notes[n_before:]
    assert [(n.seat, n.phase) for n in notes] == [(0, commit_phase)]
    assert "illegal" in notes[0].text and "guess must be a whole number from 1 to 6" in notes[0].text
    assert notes[0].index == len(h.entries) - 1
    state = h.t.state
    assert state.guesses == (1, 4, 6) and state.rolls == rolls and state.stage == "target"
    applied = {(p, s): a for _, p, s, a in h.t.moves}
    assert applied[(commit_phase, 0)] == {"guess": 1} == TOY.default_action(h.t.state_before(0), 0)
    assert applied[(commit_phase, 1)] == {"guess": 4}
    # a sealed bet above the seat's chips is illegal too: it bets nothing
    st_ = h.t.step
    h.add(h.b.event(0, st_.prev, "act", {"phase": st_.phase, "action": {"target": 3}}))
    bet_phase = h.t.step.phase
    n_before = len(h.t.notes)
    h.sealed({0: {"bet": 1000}, 1: {"bet": 2}, 2: {"bet": 3}})
    assert [(n.seat, n.phase) for n in h.t.notes[n_before:]] == [(0, bet_phase)]
    assert "bet must be a whole number from 0 to 3" in h.t.notes[-1].text
    last = h.t.state.last
    assert last["bets"] == [0, 2, 3] and last["guesses"] == [1, 4, 6]
    won = [(rolls[s] + last["guesses"][s] + 3) % 2 == 0 for s in range(3)]
    assert h.t.state.chips == tuple(3 + (b if w else -b) for b, w in zip((0, 2, 3), won))
    assert h.t.state.chips[0] == 3                  # seat 0 paid nothing


@pytest.mark.parametrize("bad", ["garbage", None, 7, {"guess": 9}, {"guess": 0}, {"bet": 99}, {"guess": True},
                                 {"guess": "2"}, {"guess": 2, "extra": 1}, [2]])
def test_unreadable_sealed_values_count_as_empty(bad):
    """The same unreadable value as a sealed guess and as a sealed bet: the default move each time."""
    h = HandTable(2, config={"rounds": 1, "sealed_bets": True})
    h.seed()
    rolls = h.t.state.rolls
    h.sealed({0: bad, 1: {"guess": 2}})
    assert h.t.state.guesses == (1, 2)
    st_ = h.t.step
    h.add(h.b.event(0, st_.prev, "act", {"phase": st_.phase, "action": {"target": 5}}))
    h.sealed({0: bad, 1: {"bet": 1}})
    assert h.t.over
    assert len([n for n in h.t.notes if n.seat == 0 and "illegal" in n.text]) == 2
    assert not [n for n in h.t.notes if n.seat == 1]
    last = h.t.state.last
    assert last["guesses"] == [1, 2] and last["bets"] == [0, 1] and last["target"] == 5
    assert h.t.state.chips[0] == 3
    assert h.t.state.chips[1] == (4 if (rolls[1] + 2 + 5) % 2 == 0 else 2)
    assert h.t.result() is not None


def test_timeout_in_commit_step_plays_default():
    h = HandTable(3, config={"rounds": 2})
    h.seed()
    opening = h.t.state
    phase = h.t.step.phase
    values = {0: {"guess": 3}, 1: {"guess": 4}}
    st_ = h.commit_all(values)           # seat 2 commits nothing: certificate
    assert h.t.timeouts[phase] == (2,)
    assert h.entries[-1] == h.b.timeout(phase, st_.prev, [2]).raw
    assert h.t.step.kind == "reveal" and h.t.step.seats == (0, 1)
    h.reveal_all(values)
    state = h.t.state
    assert state.guesses == (3, 4, 1) and state.stage == "target"
    assert not [n for n in h.t.notes if n.seat == 2]        # a timed-out seat is no illegal move
    applied = {(p, s): a for _, p, s, a in h.t.moves}
    assert applied[(phase, 2)] == TOY.default_action(opening, 2) == {"guess": 1}
    # the beacon got an empty contribution for seat 2
    assert h.t.beacon == dhash("beacon", dhash("beacon", ZERO32, [h.salts[(0, s)] for s in range(3)]), [h.salts[(phase, 0)], h.salts[(phase, 1)], b""])


def test_timeout_in_reveal_step_plays_default():
    h = HandTable(3, config={"rounds": 1, "sealed_bets": True})
    h.seed()
    phase = h.t.step.phase
    values = {0: {"guess": 2}, 1: {"guess": 5}, 2: {"guess": 6}}
    h.commit_all(values)
    rst = h.reveal_all(values, skip=(1,))  # seat 1 committed but never reveals
    assert h.t.timeouts[rst.phase] == (1,)
    assert h.t.state.guesses == (2, 1, 6)  # seat 1's guess never happened: the default
    applied = {(p, s): a for _, p, s, a in h.t.moves}
    assert applied[(phase, 1)] == {"guess": 1}
    st_ = h.t.step
    h.add(h.b.event(0, st_.prev, "act", {"phase": st_.phase, "action": {"target": 1}}))
    bets = {0: {"bet": 1}, 1: {"bet": 2}, 2: {"bet": 3}}
    bet_phase = h.t.step.phase
    h.commit_all(bets)
    rst = h.reveal_all(bets, skip=(2,))    # seat 2 withholds its bet: it bets nothing
    assert h.t.timeouts[rst.phase] == (2,)
    assert h.t.over
    assert h.t.state.last["bets"] == [1, 2, 0] and h.t.state.chips[2] == 3
    applied = {(p, s): a for _, p, s, a in h.t.moves}
    assert applied[(bet_phase, 2)] == {"bet": 0}


def test_hand_built_game_replays_and_matches():
    h = HandTable(3, config={"rounds": 2})
    h.seed()
    toy_round(h, losers=(1,))
    h.seed()                                              # round 2's dice: a seed step
    h.sealed({0: {"guess": 1}, 1: {"guess": 2}})          # seat 2 timed out
    st_ = h.t.step
    assert st_.seats == (1,)                              # round 2's leader
    h.add(h.b.event(1, st_.prev, "act", {"phase": st_.phase, "action": {"target": 6}}))
    st_ = h.t.step
    for s in (0, 2):
        h.add(h.b.event(s, st_.prev, "act", {"phase": st_.phase, "action": {"bet": 1}}))
    h.add(h.b.timeout(st_.phase, st_.prev, [1]))          # seat 1 never bets: it bets nothing
    assert h.t.over and len(h.t.timeouts) == 2
    assert h.t.state.last["bets"] == [1, 0, 1]
    t = replay(h.entries, GAMES)
    assert t.head == h.t.head and seat_views(t) == seat_views(h.t)
    assert t.result() == h.t.result() and t.timeouts == h.t.timeouts and t.moves == h.t.moves


# --------------------------------------------------------------------------- a fake game: act steps, stale beacon


class Tiny(Game):
    """Fake game: a chance turn, a sequential act by seat 0, an open simultaneous step, a chance, then over."""

    info = GameInfo(name="tiny", title="Tiny (tests only)", min_players=1, max_players=8, default_players=2,
                    editions=("plain",), information="perfect", simultaneous=True, sealed=True, chance=True)

    def configure(self, options, players):
        if options.get("bad"):
            raise ConfigError("bad option")
        return dict(options)

    def setup(self, config, players, seed):
        return {"stage": 0, "n": players, "seed": seed, "seen": [], "entropy": []}

    def turn(self, s):
        stage = s["stage"]
        if stage in (0, 3):
            return Turn("chance", label="chance")
        if stage == 1:
            return Turn("sequential", (0,), label="seat 0 plays")
        if stage == 2:
            return Turn("simultaneous", tuple(range(s["n"])), False, label="all play")
        return OVER

    def check(self, s, seat, action):
        if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action < 10:
            raise IllegalAction("0..9 only")
        if s["stage"] == 2 and action in [a for _, a in s["seen"]]:
            raise IllegalAction("%d is taken" % action)
        return action

    def apply(self, s, seat, action):
        s = dict(s, seen=s["seen"] + [[seat, action]])
        if s["stage"] == 1 or (s["stage"] == 2 and len(s["seen"]) == 1 + s["n"]):
            s["stage"] += 1
        return s

    def chance(self, s, entropy):
        return dict(s, stage=s["stage"] + 1, entropy=s["entropy"] + [entropy])

    def default_action(self, s, seat):
        return 0

    def view(self, s, seat, secret=None):
        return {"stage": s["stage"], "seen": s["seen"]}

    def result(self, s):
        return {"seen": s["seen"]} if s["stage"] == 4 else None

    def describe(self, s, seat, action):
        return str(action)


class TinyRegistry:
    def get(self, name):
        return Tiny()


def test_act_steps_and_stale_beacon_open_a_seed_step():
    sks = seat_keys(2)
    g = genesis_for(sks, game="tiny")
    b = Builder(g, sks)
    t = Table.start(g, TinyRegistry())
    entries = [g.raw]

    def add(e):
        t.append(e.raw)
        entries.append(e.raw)

    vals = [b"\x01" * 32, b"\x02" * 32]
    for s in range(2):
        add(b.commit(s, 0, t.step.prev, vals[s], salt_for(s, 0)))
    for s in range(2):
        add(b.reveal(s, 1, t.step.prev, vals[s], salt_for(s, 0)))
    b1 = dhash("beacon", ZERO32, [salt_for(0, 0), salt_for(1, 0)])
    assert t.state["entropy"] == [b1] and not t.fresh
    st_ = t.step
    assert (st_.kind, st_.seats, st_.sequential, st_.phase) == ("act", (0,), True, 2)
    refused(t, b.event(1, st_.prev, "act", {"phase": 2, "action": 1}))       # not seat 1's turn
    refused(t, b.event(0, st_.prev, "act", {"phase": 2, "action": 10}))      # illegal act: refused
    add(b.event(0, st_.prev, "act", {"phase": 2, "action": 9}))
    st_ = t.step
    assert (st_.kind, st_.seats, st_.sequential) == ("act", (0, 1), False)
    refused(t, b.event(1, st_.prev, "act", {"phase": 3, "action": 9}))       # 9 was taken before the step
    # both take 4: each is checked against the state at the step's opening, then applied in seat order
    add(b.event(0, st_.prev, "act", {"phase": 3, "action": 4}))
    add(b.event(1, st_.prev, "act", {"phase": 3, "action": 4}))
    assert t.state["seen"] == [[0, 9], [0, 4], [1, 4]]
    # a chance turn now: the beacon is stale (act steps do not refresh it) -> another seed step
    st_ = t.step
    assert (st_.kind, st_.purpose, st_.seats, st_.phase) == ("commit", "seed", (0, 1), 4)
    seed_before = t.seed
    for s in range(2):
        add(b.commit(s, 4, t.step.prev, vals[s], salt_for(s, 4)))
    for s in range(2):
        add(b.reveal(s, 5, t.step.prev, vals[s], salt_for(s, 4)))
    b2 = dhash("beacon", b1, [salt_for(0, 4), salt_for(1, 4)])
    assert t.state["entropy"] == [b1, b2]
    assert t.seed == seed_before  # a later seed step does not set the game up again
    assert t.over and t.result() == {"seen": [[0, 9], [0, 4], [1, 4]]}
    r = replay(entries, TinyRegistry())
    assert r.head == t.head


def test_open_simultaneous_step_timeout_plays_default():
    sks = seat_keys(3)
    g = genesis_for(sks, game="tiny")
    b = Builder(g, sks)
    t = Table.start(g, TinyRegistry())
    for s in range(3):
        t.append(b.commit(s, 0, t.step.prev, bytes(32), salt_for(s, 0)).raw)
    for s in range(3):
        t.append(b.reveal(s, 1, t.step.prev, bytes(32), salt_for(s, 0)).raw)
    t.append(b.event(0, t.step.prev, "act", {"phase": 2, "action": 1}).raw)
    st_ = t.step
    t.append(b.event(0, st_.prev, "act", {"phase": 3, "action": 5}).raw)
    t.append(b.event(1, st_.prev, "act", {"phase": 3, "action": 7}).raw)
    t.append(b.timeout(3, st_.prev, [2]).raw)
    assert t.state["seen"] == [[0, 1], [0, 5], [1, 7], [2, 0]]


def test_config_refused_by_the_game():
    sks = seat_keys(2)
    with pytest.raises(RuleError):
        Table.start(genesis_for(sks, game="tiny", config={"bad": True}), TinyRegistry())


class SealedThenAct(Tiny):
    """Fake game: a sealed simultaneous step, then seat 0 acts in the open, then a chance turn."""

    def turn(self, s):
        stage = s["stage"]
        if stage == 0:
            return Turn("simultaneous", tuple(range(s["n"])), True, label="sealed")
        if stage == 1:
            return Turn("sequential", (0,), label="seat 0 plays")
        if stage == 2:
            return Turn("chance", label="chance")
        return OVER

    def check(self, s, seat, action):
        if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action < 10:
            raise IllegalAction("0..9 only")
        return action

    def apply(self, s, seat, action):
        s = dict(s, seen=s["seen"] + [[seat, action]])
        if s["stage"] == 1 or (s["stage"] == 0 and len(s["seen"]) == s["n"]):
            s["stage"] += 1
        return s

    def result(self, s):
        return {"seen": s["seen"]} if s["stage"] == 3 else None


def test_an_open_move_after_a_sealed_step_makes_the_next_chance_draw_new_randomness():
    """Seat 0 moved knowing the beacon the sealed step produced, so the chance after its
    move must not use that beacon: the table opens a seed step instead."""

    class Reg:
        def get(self, name):
            return SealedThenAct()

    sks = seat_keys(2)
    g = genesis_for(sks, game="tiny")
    b = Builder(g, sks)
    t = Table.start(g, Reg())
    # opening seed step
    for s in range(2):
        t.append(b.commit(s, 0, t.step.prev, bytes([s]) * 32, salt_for(s, 0)).raw)
    for s in range(2):
        t.append(b.reveal(s, 1, t.step.prev, bytes([s]) * 32, salt_for(s, 0)).raw)
    # the game's sealed step: commit both, reveal both
    st = t.step
    assert (st.kind, st.purpose) == ("commit", "move")
    for s in range(2):
        t.append(b.commit(s, st.phase, st.prev, 3 + s, salt_for(s, st.phase)).raw)
    st2 = t.step
    for s in range(2):
        t.append(b.reveal(s, st2.phase, st2.prev, 3 + s, salt_for(s, st.phase)).raw)
    assert t.fresh  # the sealed step refreshed the beacon...
    st3 = t.step
    assert (st3.kind, st3.seats) == ("act", (0,))
    t.append(b.event(0, st3.prev, "act", {"phase": st3.phase, "action": 7}).raw)
    # ...but seat 0 has moved since, knowing it: the chance needs a new seed step
    assert not t.fresh
    assert (t.step.kind, t.step.purpose) == ("commit", "seed")
    assert t.state["entropy"] == []


# --------------------------------------------------------------------------- chance steps that name seats (toy game)


def toy_hand(n: int = 3, **options) -> HandTable:
    """A toy table (short edition, sudden death) past its seed step: round 1's dice are rolled."""
    config = {"edition": "short", "sudden_death": True, "rounds": 5}
    config.update(options)
    h = HandTable(n, config=config, table=b"toy")
    h.seed()
    assert h.t.state.stage == "guess"
    return h


def toy_round(h: HandTable, losers=(), target: int = 1) -> None:
    """Play one toy round by hand: every seat in bets 1 and the ``losers`` guess so they lose."""
    rolls = h.t.state.rolls
    ins = [s for s in range(h.t.players) if h.t.state.alive[s]]
    # a seat wins when roll + guess + target is even
    guesses = {s: {"guess": (1 if (rolls[s] + target) % 2 == 0 else 2) if s in losers else (2 if (rolls[s] + target) % 2 == 0 else 1)} for s in ins}
    h.sealed(guesses)
    st_ = h.t.step
    assert st_.sequential
    h.add(h.b.event(st_.seats[0], st_.prev, "act", {"phase": st_.phase, "action": {"target": target}}))
    st_ = h.t.step
    assert st_.seats == tuple(ins)
    for s in ins:
        h.add(h.b.event(s, st_.prev, "act", {"phase": st_.phase, "action": {"bet": 1}}))


def test_chance_step_asks_only_the_seats_the_game_names():
    h = toy_hand(3)
    toy_round(h, losers=(2,))
    assert h.t.state.alive == (True, True, False) and h.t.state.stage == "roll"
    assert h.t.game.turn(h.t.state).seats == (0, 1)
    st_ = h.t.step
    # the beacon is stale (open moves since): a seed step for the seats still in, not seat 2
    assert (st_.kind, st_.purpose, st_.seats) == ("commit", "seed", (0, 1))
    assert h.t.missing() == (0, 1)
    assert "not expected" in refused(h.t, h.b.commit(2, st_.phase, st_.prev, bytes(32), salt_for(2, st_.phase)))
    beacon = h.t.beacon
    vals = {0: b"\x10" * 32, 1: b"\x11" * 32}
    h.commit_all(vals)
    rst = h.t.step
    assert (rst.kind, rst.seats) == ("reveal", (0, 1))
    h.reveal_all(vals)
    # no certificate was needed: seat 2's silence never stalls the draw
    assert st_.phase not in h.t.timeouts and rst.phase not in h.t.timeouts
    assert h.t.beacon == dhash("beacon", beacon, [salt_for(0, st_.phase), salt_for(1, st_.phase), b""])
    assert h.t.state.stage == "guess" and h.t.state.round == 2
    assert h.t.state.rolls[2] is None and all(1 <= r <= 6 for r in h.t.state.rolls[:2])
    nxt = h.t.step
    assert (nxt.kind, nxt.purpose, nxt.seats) == ("commit", "move", (0, 1))
    t = replay(h.entries, GAMES)
    assert t.head == h.t.head and seat_views(t) == seat_views(h.t)


def test_subset_seed_step_times_out_a_missing_named_seat():
    h = toy_hand(4)
    toy_round(h, losers=(3,))
    st_ = h.t.step
    assert st_.seats == (0, 1, 2)
    for s in (0, 2):
        h.add(h.b.commit(s, st_.phase, st_.prev, bytes([s]) * 32, salt_for(s, st_.phase)))
        h.salts[(st_.phase, s)] = salt_for(s, st_.phase)
    # a certificate must cover exactly the missing named seats: naming seat 0 (present) is refused
    assert "exactly the seats still missing" in refused(h.t, h.b.timeout(st_.phase, st_.prev, [0, 1]))
    # seat 1 is timed out, voted by seats 0, 2 and the eliminated seat 3
    h.add(h.b.timeout(st_.phase, st_.prev, [1]))
    assert h.t.timeouts[st_.phase] == (1,)
    rst = h.t.step
    assert (rst.kind, rst.seats) == ("reveal", (0, 2))
    h.reveal_all({0: bytes(32), 2: bytes([2]) * 32})
    assert h.t.state.stage == "guess" and h.t.step.seats == (0, 1, 2)
    assert replay(h.entries, GAMES).head == h.t.head


def test_subset_seed_step_certificate_may_also_name_an_absent_unexpected_seat():
    h = toy_hand(4)
    toy_round(h, losers=(3,))
    st_ = h.t.step
    for s in (0, 2):
        h.add(h.b.commit(s, st_.phase, st_.prev, bytes([s]) * 32, salt_for(s, st_.phase)))
    h.add(h.b.timeout(st_.phase, st_.prev, [1, 3]))   # escalation: the gone seat 3 could not vote
    assert h.t.timeouts[st_.phase] == (1, 3)
    assert h.t.step.kind == "reveal" and h.t.step.seats == (0, 2)


def test_subset_seed_step_without_reveals_opens_another():
    h = toy_hand(4)
    toy_round(h, losers=(2, 3))
    st_ = h.t.step
    vals = {0: b"\x10" * 32, 1: b"\x11" * 32}
    h.commit_all(vals)
    rst = h.t.step
    h.add(h.b.timeout(rst.phase, rst.prev, [0, 1], voters=[2, 3]))   # nobody revealed: the beacon is predictable
    assert not h.t.fresh and h.t.state.stage == "roll"
    again = h.t.step
    assert (again.kind, again.purpose, again.seats, again.phase) == ("commit", "seed", (0, 1), rst.phase + 1)


def test_first_seed_step_is_every_seat_even_for_a_toy_game():
    h = HandTable(3, config={"rounds": 1}, table=b"toy")
    assert h.t.step.seats == (0, 1, 2) and h.t.step.purpose == "seed"


def test_chance_turn_naming_a_seat_outside_the_table_is_a_rule_error():
    class BadChance(Tiny):
        def turn(self, s):
            return Turn("chance", seats=(0, 7)) if s["stage"] == 0 else OVER

    class Reg:
        def get(self, name):
            return BadChance()

    sks = seat_keys(2)
    g = genesis_for(sks, game="tiny")
    b = Builder(g, sks)
    t = Table.start(g, Reg())
    t.append(b.commit(0, 0, t.step.prev, bytes(32), salt_for(0, 0)).raw)
    t.append(b.commit(1, 0, t.step.prev, bytes(32), salt_for(1, 0)).raw)
    t.append(b.reveal(0, 1, t.step.prev, bytes(32), salt_for(0, 0)).raw)
    with pytest.raises(RuleError, match="chance turn"):
        t.append(b.reveal(1, 1, t.step.prev, bytes(32), salt_for(1, 0)).raw)


def seed_steps_with_seats_in(entries) -> list:
    """(seed commit step, seats still in when it opened) for every seed step after the first."""
    t = Table.start(entries[0], GAMES)
    out, last = [], t.step
    for raw in entries[1:]:
        t.append(raw)
        st_ = t.step
        if st_ is not None and st_ is not last and st_.purpose == "seed" and st_.kind == "commit":
            out.append((st_, tuple(s for s in range(t.players) if t.state.alive[s])))
        last = st_
    return out


def test_peers_play_toy_games_with_eliminations_and_subset_chance():
    subsets = 0
    for seed in (3, 4, 5, 6):
        g, sks, peers = simulate(5, seed, config={"rounds": 6, "edition": "short"})
        log = peers[0].log_entries
        assert all(p.log_entries == log for p in peers)
        t = replay(log, GAMES)
        assert t.over and t.head == peers[0].table.head
        for st_, ins in seed_steps_with_seats_in(log):
            assert st_.seats == ins      # exactly the seats still in: an eliminated seat is never asked
            subsets += len(ins) < 5
        assert not t.timeouts            # nobody was ever waited for in vain
    assert subsets > 0


def test_an_open_move_checked_on_arrival_is_not_checked_again_when_placed(monkeypatch):
    """A peer checks an event when it arrives (check_event) and when it places it (append):
    the rules see it once; a different event of the same seat is still checked."""
    h = HandTable(2, config={"rounds": 1})
    h.seed()
    h.sealed({0: {"guess": 2}, 1: {"guess": 3}})
    st = h.t.step
    assert st.kind == "act" and len(st.seats) == 1       # the leader sets the target
    calls = []

    class Counting:   # the table's view of the game: its check calls counted
        def __getattr__(self, name):
            return getattr(TOY, name)

        def check(self, state, seat, action):
            calls.append(action)
            return TOY.check(state, seat, action)

    monkeypatch.setattr(h.t, "game", Counting())
    seat = st.seats[0]
    bad = h.b.event(seat, st.prev, "act", {"phase": st.phase, "action": {"target": 9}})
    with pytest.raises(RuleError, match="illegal move"):
        h.t.check_event(bad)
    with pytest.raises(RuleError, match="illegal move"):   # a refused move is asked again
        h.t.check_event(bad)
    ev = h.b.event(seat, st.prev, "act", {"phase": st.phase, "action": {"target": 4}})
    assert h.t.check_event(ev) == seat
    assert len(calls) == 3
    h.add(ev)
    assert len(calls) == 3, "placing the checked event asked the rules again"
    assert h.t.moves[-1][2:] == (seat, {"target": 4})


def test_state_before_is_the_state_each_move_was_applied_to(monkeypatch):
    """Table.state_before(k) is the state moves[k] was applied to: the first move of a step is
    applied to the state the table held before the step closed, each next one to the result of
    the one before; only the last BEFORE_KEEP moves are kept."""
    import core.table as table_mod

    g, sks, log = simulated(3, 7, rounds=3)
    game = GAMES.get("toy")
    t = Table.start(log[0], GAMES)
    steps = 0
    for ent in log[1:]:
        base, first = t.state, len(t.moves)
        t.append(parse_entry(ent))
        if len(t.moves) > first:
            steps += 1
            assert t.state_before(first) is base
            for k in range(first + 1, len(t.moves)):
                _, _, seat, action = t.moves[k - 1]
                assert t.state_before(k) == game.apply(t.state_before(k - 1), seat, action)
    n = len(t.moves)
    assert steps > 3 and n > steps and sorted(t.before) == list(range(n))
    assert t.state_before(n) is None and t.state_before(-1) is None
    # a small window keeps only the newest moves
    monkeypatch.setattr(table_mod, "BEFORE_KEEP", 4)
    t2 = Table.start(log[0], GAMES)
    for ent in log[1:]:
        t2.append(parse_entry(ent))
    assert sorted(t2.before) == list(range(n - 4, n))
    assert t2.state_before(n - 1) == t.state_before(n - 1) and t2.state_before(0) is None
