"""A step's own time (``Turn.time``): peers vote a late seat out after it when it is shorter than
the table's time-out.  Modern Art gives each raise round of an open auction ``open_round_seconds``
(a person has a short time per round, as at the table; bots answer at once)."""

from __future__ import annotations

import pytest

from core.encoding import decode
from core.engine import ConfigError, Turn
from core.games.modern_art import rules
from core.table import Step
from p2p.protocol import Broadcast
from p2p.timeouts import TimeoutVoter

from .netutil import Sim, timeouts_in


def test_turn_time_is_whole_seconds_for_decided_turns_only():
    assert Turn("sequential", (0,), time=5).time == 5
    for bad in (0, -1, 2.5, True, "5"):
        with pytest.raises(ValueError, match="whole number of seconds"):
            Turn("simultaneous", (0, 1), time=bad)
    with pytest.raises(ValueError, match="whole number of seconds"):
        Turn("chance", (0,), time=5)


def test_step_timeout_is_the_shorter_of_the_table_and_the_step():
    p = TimeoutVoter(3, 0, 60.0)   # the time-out policy's home (p2p/timeouts.py)
    assert p.step_time(Step(3, b"\0" * 32, "commit", "move", (0, 1), False, "x")) == 60.0
    assert p.step_time(Step(3, b"\0" * 32, "commit", "move", (0, 1), False, "x", 20)) == 20.0
    assert p.step_time(Step(3, b"\0" * 32, "commit", "move", (0, 1), False, "x", 600)) == 60.0


def test_open_auction_rounds_carry_the_option_as_their_time_and_other_phases_none():
    cfg = rules.configure({"open_round_seconds": 7}, 3)
    assert rules.configure({}, 3)["open_round_seconds"] == 20
    for bad in (4, 601, 7.5, "7", True):
        with pytest.raises(ConfigError, match="open_round_seconds must be a whole number from 5 to 600"):
            rules.configure({"open_round_seconds": bad}, 3)
    st = rules.setup(cfg, 3, b"\x05" * 32)
    assert rules.turn(st).time is None                      # the auctioneer picking a card
    seen = set()
    for seed in range(40):                                   # random legal play until each phase was met
        st = rules.setup(cfg, 3, bytes([seed]) * 32)
        for _ in range(60):
            t = rules.turn(st)
            if t.kind == "over":
                break
            seen.add(st.phase)
            assert t.time == (7 if st.phase == "open" else None), st.phase
            seat = t.seats[0]
            legal = rules.legal_actions(st, seat)
            st = rules.apply(st, seat, legal[(seed * 7 + len(seen)) % len(legal)])
    assert {"open", "sealed", "once_around", "play"} <= seen


class SlowInOpenAuctions(Sim):
    """Seat 2 plays at once except in an open auction's raise rounds, where it never answers."""

    slow = 2

    def decide(self, k: int) -> None:
        st = self.peers[k].table.state
        ms = getattr(st, "ms", None)
        if k == self.slow and getattr(st, "stage", None) == "play" and ms is not None and ms.phase == "open":
            return
        super().decide(k)


def test_a_seat_silent_in_open_auction_rounds_is_passed_after_the_rounds_time_not_the_tables():
    table_timeout, round_time = 600.0, 5
    sim = SlowInOpenAuctions(3, seed=5, timeout=table_timeout, game="modern-art", level="medium",
                             options={"open_round_seconds": round_time}, tick=0.25)
    sim.start()
    sim.run_until(max_rounds=40_000)
    logs = [p.log_entries for p in sim.peers]
    assert logs[0] == logs[1] == logs[2] and sim.peers[0].table.over
    certs = timeouts_in(sim.entries(0))
    assert certs, "no open auction in this game: choose another seed"
    assert all(c.seats == (2,) for c in certs)
    t = sim.peers[0].table
    for c in certs:
        assert "open auction" in t.notes[[n.phase for n in t.notes].index(c.phase)].text
    # every open round seat 2 missed cost about the round's time, never the table's
    assert sim.now < table_timeout
    votes_at = sorted(r.now for r in sim.trace if isinstance(r.eff, Broadcast) and decode(r.eff.msg)[0] == "vote")
    assert votes_at and votes_at[0] >= round_time


def test_the_decisions_deadline_estimate_uses_the_steps_own_time():
    """Before the peer's clock has seen a step, the Decision handed to the UI estimates its deadline
    from the peer's time-out for that step: an open auction's round shows its short time, not the table's.
    A real peer, read through its public API only (``table``, ``deadline``, ``step_timeout``)."""
    from p2p.node import decision_of

    sim = Sim(3, seed=5, timeout=300.0, game="modern-art", level="medium", options={"open_round_seconds": 20}, tick=0.25)
    sim.start()
    seen: dict = {}
    for _ in range(4000):
        if len(seen) == 3 or all(p.table.over for p in sim.peers):
            break
        for _ in range(len(sim.queue)):
            if not sim.queue:
                break
            sim.deliver_one()
            for k, p in enumerate(sim.peers):
                st = p.table.step
                if st is None or k not in st.seats or st.purpose != "move":
                    continue
                d = decision_of(p, k, 1000.0)
                assert d.seat == k and d.phase == p.table.phase and d.view == p.table.view(k)
                if p.deadline() is not None:          # once the clock has seen the step: its own deadline
                    assert d.deadline == p.deadline()
                    seen.setdefault("clock", d)
                else:                                 # before: now plus the step's time
                    seen.setdefault("round" if st.time is not None else "table", (st, d))
        sim.tick_all()
    assert set(seen) == {"round", "table", "clock"}, set(seen)
    st, d = seen["round"]
    assert "open auction" in st.label and d.deadline == 1020.0
    assert seen["table"][1].deadline == 1300.0
