"""A leave in the log (issue 29, protocol.md §6.1 "A leave", §9.7, §12.3): a seat that quits signs a
``leave`` event; it is placed as that seat's answer to the next step that expects it, every peer the
same way, and from then on no step expects the seat.  Modern Art goes on without the seat: its leave
carries its seat secret, so its shares, its shuffle's pass and its disclosure come from it.

Sans-IO: the in-memory ``Sim`` of tests/netutil.py (real ``Peer``s, a simulated network).
"""

from __future__ import annotations


import pytest

import core.games as registry
from core.audit import audit
from core.encoding import encode
from core.events import EntryError, make_event, parse_entry
from core.table import IllegalMove, RuleError, replay

from .helpers import log_file
from .netutil import Sim, events_in, placed_in_random_orders, timeouts_in

TABLE = 600.0      # the table's time-out: nothing here may come near it


def _run_to(sim: Sim, cond, limit: int = 20000) -> None:
    """Deliver one message at a time (a tick when none is queued) until ``cond()``: a state that lasts
    only part of a round (an auction's phase) is not skipped."""
    for _ in range(limit):
        if cond():
            return
        if sim.queue:
            sim.deliver_one()
        else:
            sim.tick_all()
    raise AssertionError("the simulation did not reach its goal")


def _leave(sim: Sim, seat: int) -> None:
    sim.run(seat, sim.peers[seat].leave())
    sim.run_until(lambda: sim.peers[seat].told(), max_rounds=200)
    sim.dead.add(seat)
    for k in sim.live():        # its process exits: its connections close
        sim.links -= {(k, seat), (seat, k)}
        sim.run(k, sim.peers[k].disconnected(sim.keys[seat]))


def _finish(sim: Sim) -> list:
    live = sim.live()

    def done() -> bool:
        logs = [sim.peers[k].log_entries for k in live]
        return all(sim.peers[k].table.over for k in live) and all(lg == logs[0] for lg in logs)

    sim.run_until(done, max_rounds=50000)
    return sim.peers[live[0]].log_entries


def _leaves(log: list, keys: list) -> list:
    return [e for e in events_in([parse_entry(r, keys=keys) for r in log[1:]]) if e.kind == "leave"]


def _state(sim: Sim):
    return sim.peers[0].table.state


# --------------------------------------------------------------------------- placement


def test_every_order_of_arrival_writes_the_same_log():
    """The leave is placed by the rules, never by arrival: a peer fed the whole game in two different
    orders (each author's events in seq order, the authors interleaved at random) writes the same log."""
    sim = Sim(3, seed=21, timeout=TABLE, tick=0.25, dup=0.1)
    sim.start()
    sim.run_until(lambda: sim.peers[0].table.phase >= 5)
    _leave(sim, 1)
    log = _finish(sim)
    assert len(_leaves(log, sim.keys)) == 1
    entries = [parse_entry(r, keys=sim.keys) for r in log[1:]]
    logs = placed_in_random_orders(sim, entries, (1, 2), TABLE)
    assert logs[0] == logs[1] == log


def test_a_leave_answers_the_first_step_from_its_phase_that_expects_its_seat_and_no_later_one():
    sim = Sim(4, seed=22, timeout=TABLE, tick=0.25)
    sim.start()
    sim.run_until(lambda: sim.peers[0].table.phase >= 4)
    _leave(sim, 3)
    log = _finish(sim)
    [ev] = _leaves(log, sim.keys)
    t = replay(log, registry)
    at, phase, _label = t.gone[3]
    assert parse_entry(log[at], keys=sim.keys).id == ev.id and phase >= ev.body["phase"]
    # nothing of seat 3 after its leave, and no certificate was needed for it
    assert not [e for e in events_in([parse_entry(r, keys=sim.keys) for r in log[at + 1:]]) if e.author == sim.keys[3]]
    assert timeouts_in([parse_entry(r, keys=sim.keys) for r in log[1:]]) == []
    assert ("seat 3 left the table" in n.text for n in t.notes)


def test_a_coalition_cannot_sign_an_honest_seats_leave():
    sim = Sim(3, seed=23, timeout=TABLE, tick=0.25)
    sim.start()
    sim.run_until(lambda: sim.peers[0].table.phase >= 4)
    t = sim.peers[0].table
    body = {"phase": t.phase, "nonce": b"\x05" * 16, "payload": None}
    # seats 1 and 2 sign a leave that says it is seat 0's: only seat 0's key signs seat 0's events
    forged = make_event(sim.ids[1].sign, sim.genesis.game_id, sim.keys[0], 99, t.step.prev, "leave", body)
    with pytest.raises(EntryError):
        parse_entry(forged.raw, keys=sim.keys)
    with pytest.raises(RuleError):
        replay(sim.peers[0].log_entries + [forged.raw], registry)
    out = sim.peers[2].receive(sim.keys[1], encode(["entry", forged.raw]))
    assert [e for e in out if type(e).__name__ == "Disconnect"], out
    assert 0 not in sim.peers[2].table.gone


def test_a_leave_is_well_formed_or_refused():
    sim = Sim(3, seed=24, timeout=TABLE)
    t = sim.peers[0].table
    for body, why in (({"phase": 0, "nonce": b"\x01" * 15, "payload": None}, "16 bytes"),
                      ({"phase": 0, "nonce": b"\x01" * 16}, "payload"),
                      ({"phase": -1, "nonce": b"\x01" * 16, "payload": None}, "phase")):
        with pytest.raises(EntryError):
            make_event(sim.ids[1].sign, sim.genesis.game_id, sim.keys[1], 0, t.head, "leave", body)
    # before the game is set up (the first shared seed) a leave is not placed: it waits
    ev = make_event(sim.ids[1].sign, sim.genesis.game_id, sim.keys[1], 0, t.head, "leave",
                    {"phase": 0, "nonce": b"\x01" * 16, "payload": None})
    with pytest.raises(RuleError, match="set up"):
        t.check_event(ev)


# --------------------------------------------------------------------------- Modern Art goes on


def _ma(n: int, seed: int) -> Sim:
    sim = Sim(n, seed=seed, timeout=TABLE, tick=0.25, game="modern-art", level="easy")
    sim.start()
    return sim


def _check_finished(sim: Sim, log: list, leavers: list, certs: bool = False) -> dict:
    """Every seat that stayed holds the same log; it replays and audits VALID and complete; every leave
    is named, the leavers ranked after the seats that stayed."""
    t = replay(log, registry)
    assert t.over and sorted(t.gone) == sorted(leavers)
    res = t.result()
    assert res["status"] == "complete", res
    stayed = [s for s in range(sim.n) if s not in leavers]
    assert sorted(res["ranking"][:len(stayed)]) == stayed and sorted(res["ranking"][len(stayed):]) == sorted(leavers)
    assert res["left"] == [s for s in res["left"] if s in leavers] and sorted(res["left"]) == sorted(leavers)
    assert all(any(s == x and "left the table" in why for x, why in res["named"]) for s in leavers)
    assert min(res["places"][s] for s in leavers) > max(res["places"][s] for s in stayed)
    rep = audit({"log": log_file(log)}, registry)
    assert rep["valid"] and rep["complete"], rep["problems"]
    assert sorted(d["seat"] for d in rep["left"]) == sorted(leavers)
    # no certificate: a leave is never voted out (but in the first shared seed, before it can be placed)
    assert certs or timeouts_in([parse_entry(r, keys=sim.keys) for r in log[1:]]) == []
    return res


# (n, seed, where, who): where the leaver quits; who: a seat number, or a role read from the state then
STAGES = [
    (3, 31, "shuffle", "last"),       # its key is in, its shuffle to come: the deck passes it unchanged
    (4, 32, "deal", 2),               # its shares for round 1's deal come from its secret
    (5, 33, "check", 1),
    (3, 34, "play", "actor"),         # on turn to auction
    (4, 35, "open", "actor"),         # it bound a card and leaves before showing it: discarded face down
    (5, 36, "open", "other"),
    (3, 37, "round2", 0),             # holding cards, at round 2's deal
    (4, 38, "auction:open", "auctioneer"),
    (5, 39, "auction:open", "bidder"),
    (3, 40, "auction:once_around", "bidder"),
    (4, 41, "auction:sealed", "auctioneer"),
    (3, 42, "auction:price", "auctioneer"),
    (5, 43, "auction:fixed_price", "bidder"),
    (4, 44, "auction:double", "bidder"),
]


def _reached(sim: Sim, where: str):
    def cond() -> bool:
        st = _state(sim)
        if st is None or not hasattr(st, "stage"):
            return False
        if where == "round2":
            return st.ms.round == 2 and st.stage == "deal"
        if where.startswith("auction:"):
            return st.stage == "play" and st.ms.phase == where.split(":")[1]
        return st.stage == where
    return cond


def _who(sim: Sim, who):
    st = _state(sim)
    ms = st.ms
    if type(who) is int:
        return who
    if who == "last":
        return sim.n - 1
    if who == "actor":
        return st.pending[0] if st.stage == "open" else ms.actor
    if who == "auctioneer":
        return ms.auctioneer
    if who == "other":
        return next(s for s in range(sim.n) if s != st.pending[0])
    # a bidder: the seat asked now (not the auctioneer), else any seat asked
    if ms.actor >= 0 and ms.actor != ms.auctioneer:
        return ms.actor
    asked = [s for s in ms.asked if s != ms.auctioneer] or [s for s in ms.order if s != ms.auctioneer]
    return asked[0]


@pytest.mark.parametrize("n, seed, where, who", STAGES, ids=["%d-%s-%s" % (n, w, who) for n, _, w, who in STAGES])
def test_modern_art_goes_on_after_a_seat_leaves(n, seed, where, who):
    sim = _ma(n, seed)
    _run_to(sim, _reached(sim, where))      # (each seed is one whose game reaches that stage)
    leaver = _who(sim, who)
    _leave(sim, leaver)
    log = _finish(sim)
    _check_finished(sim, log, [leaver])


def test_a_seat_that_leaves_before_its_key_is_in_no_deal():
    sim = _ma(3, 45)
    _leave(sim, 2)          # during the first shared seed: its note votes it out of it, its leave waits for the keys
    log = _finish(sim)
    res = _check_finished(sim, log, [2], certs=True)
    assert all(c.phase <= 1 and c.seats == (2,) for c in timeouts_in([parse_entry(r, keys=sim.keys) for r in log[1:]]))
    t = replay(log, registry)
    assert t.state.keys[2] is None and t.state.gone == (2,)
    assert res["money"][2] == 100


def test_two_seats_leave_a_five_seat_table_and_three_play_on():
    sim = _ma(5, 46)
    _run_to(sim, _reached(sim, "play"))
    _leave(sim, 1)
    _run_to(sim, lambda: _state(sim).ms.round >= 2)
    _leave(sim, 3)
    log = _finish(sim)
    _check_finished(sim, log, [1, 3])


def test_with_one_seat_left_the_game_ends_at_the_next_card_turn():
    sim = _ma(3, 47)
    _run_to(sim, _reached(sim, "play"))
    _leave(sim, 0)
    _leave(sim, 1)
    log = _finish(sim)
    res = _check_finished(sim, log, [0, 1])
    assert res["ranking"][0] == 2 and res["winners"] == [2]


def test_a_leave_whose_secret_lies_is_refused_and_named():
    sim = _ma(3, 48)
    _run_to(sim, _reached(sim, "play"))
    sim.silent = {0, 1, 2}          # nobody decides: every peer comes to the same card turn and waits there
    sim.run_until(lambda: not sim.queue and len({tuple(q.log_entries) for q in sim.peers}) == 1
                  and len({q.replica.seq_of(k) for q in sim.peers for k in sim.keys}) >= 1, max_rounds=200)
    sim.run_until(lambda: len({tuple(q.have_vector()[i][1] for i in range(3)) for q in sim.peers}) == 1, max_rounds=200)
    p = sim.peers[0]
    t = p.table
    st = t.step
    liar = p.waiting()[0]           # expected, and no move of it held: its leave is checked for this step
    other = (liar + 1) % 3
    bad = {"phase": t.phase, "nonce": b"\x09" * 16, "payload": {"secret": sim.peers[other].seat_secret}}
    ev = make_event(sim.ids[liar].sign, sim.genesis.game_id, sim.keys[liar],
                    sim.peers[liar].replica.seq_of(sim.keys[liar]) + 1, st.prev, "leave", bad)
    with pytest.raises(IllegalMove, match="secret does not match its key"):
        t.check_event(ev)
    for payload, why in (({"secret": b"\x01" * 63}, "64 bytes"), (None, "exactly secret"), ({"secret": 5}, "64 bytes")):
        ev2 = make_event(sim.ids[liar].sign, sim.genesis.game_id, sim.keys[liar], ev.seq, st.prev, "leave",
                         dict(bad, payload=payload))
        with pytest.raises(IllegalMove, match=why):
            t.check_event(ev2)
    # a peer that receives it names it and never places it; the audit refuses a log that holds it
    sim.peers[liar].replica.insert(ev)          # (so the liar's own repair would send it too)
    for k in (0, 1, 2):
        if k != liar:
            sim.run(k, sim.peers[k].receive(sim.keys[liar], encode(["entry", ev.raw])))
    k = other
    said = sim.alerts(k)
    assert any("rules refuse" in a and "secret does not match its key" in a for a in said), said
    assert liar not in sim.peers[k].table.gone
    with pytest.raises(RuleError, match="secret does not match"):
        replay(sim.peers[k].log_entries + [ev.raw], registry)
    rep = audit({"log": log_file(sim.peers[k].log_entries + [ev.raw])}, registry)
    bad = [q for q in rep["problems"] if q["index"] == len(sim.peers[k].log_entries)]
    assert not rep["valid"] and bad and "seat %d's leave is refused" % liar in bad[0]["problem"], rep["problems"]


@pytest.mark.parametrize("n, seed", [(3, 49), (5, 50)])
def test_a_seat_that_leaves_at_the_disclosure_is_ranked_after_the_others_its_secret_from_its_leave(n, seed):
    sim = _ma(n, seed)
    leaver = 1
    p = sim.peers[leaver]
    # the leaver's own peer at the disclosure, its secret not sent yet (it waits for the acknowledgements)
    _run_to(sim, lambda: p.table.state is not None and getattr(p.table.state, "stage", "") == "disclose"
            and p.my_event_in_step() is None, limit=200000)
    _leave(sim, leaver)
    log = _finish(sim)
    _check_finished(sim, log, [leaver])
    t = replay(log, registry)
    assert t.gone[leaver][2] == "the deal: seat secrets disclosed" and t.state.secrets[leaver] == p.seat_secret


def test_a_move_signed_before_the_leave_answers_its_step_and_the_leave_the_next_one():
    """The lowest-seq rule (§6.6): a seat that moved in the open step, then quit, has that move placed
    there; its leave answers the next step that expects it."""
    sim = Sim(3, seed=25, timeout=TABLE, tick=0.25)
    sim.start()
    sim.silent = {0}                # seat 0 holds the step open
    p = sim.peers[2]
    _run_to(sim, lambda: p.table.phase >= 4 and p.table.step is not None and 0 in p.table.step.seats
            and p.table.step.purpose == "move" and p.my_event_in_step() is not None)
    moved = p.my_event_in_step()
    _leave(sim, 2)
    sim.silent = set()
    log = _finish(sim)
    t = replay(log, registry)
    placed = {parse_entry(r, keys=sim.keys).id for r in log[1:]}
    assert moved.id in placed
    [ev] = _leaves(log, sim.keys)
    assert ev.seq > moved.seq and t.gone[2][1] > moved.body["phase"]


def test_a_leave_in_a_reveal_step_gives_the_sealed_move_its_default_and_an_empty_salt():
    """§6.1 "A leave": placed in a reveal step (its seat committed, then quit before revealing), the leave
    is its answer: no reveal, so its sealed move is the game's default and its salt counts as empty."""
    sim = Sim(3, seed=26, timeout=TABLE, tick=0.25)
    sim.start()
    p = sim.peers[2]
    _run_to(sim, lambda: p.table.phase >= 4 and p.table.step is not None and p.table.step.kind == "reveal"
            and p.table.step.purpose == "move" and 2 in p.table.step.seats and p.my_event_in_step() is None)
    reveal_phase = p.table.step.phase
    _leave(sim, 2)
    log = _finish(sim)
    t = replay(log, registry)
    assert t.gone[2][1] == reveal_phase
    [ev] = _leaves(log, sim.keys)
    assert parse_entry(log[t.gone[2][0]], keys=sim.keys).id == ev.id
    # its move in that sealed step is the default, applied with the others' revealed moves
    [k] = [k for k, (_, ph, s, _) in enumerate(t.moves) if ph == reveal_phase - 1 and s == 2]
    before = t.state_before(k)
    assert before is not None and t.moves[k][3] == t.game.default_action(before, 2)
    assert [s for _, ph, s, _ in t.moves if ph == reveal_phase - 1] == [0, 1, 2]
