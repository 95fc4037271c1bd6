"""A seat that goes silent where the game cannot pass without it (issue 29; protocol.md §6.5, §13.1).

Modern Art's deal needs every seat's key, shuffle and shares (``Turn.needs``): a time-out there abandons
the game.  So the table waits for a silent seat longer than its step time (p2p/timeouts.py
``NEEDED_PATIENCE`` table time-outs), the screens name the seat and how it comes back (``easel
resume``), and then the game ends abandoned with the standings the log already made public — the money
the auctions left each seat — never a ranking or a winner; the silent seat is named in neutral words.
"""

from __future__ import annotations

from cli.runner import needed_step, silence_lines
from cli.screens.modern_art import result_lines
from p2p.timeouts import NEEDED_PATIENCE

from .netutil import Sim

T = 2.0


def test_a_seat_silent_at_a_later_deal_is_waited_for_then_the_game_ends_abandoned_with_the_money_as_standings():
    sim = Sim(3, seed=31, game="modern-art", timeout=T, tag="silent-deal", fifo=True)
    sim.start()

    def second_deal() -> bool:
        st = sim.peers[0].table.state
        return st is not None and st.stage == "deal" and st.ms.round >= 2 and sim.peers[0].table.step is not None

    sim.run_until(second_deal, max_rounds=60_000)
    table = sim.peers[0].table
    money = list(table.state.ms.money)
    assert sorted(money) != [100, 100, 100] or table.state.ms.sales, "no auction before the second deal"
    step = table.step
    assert step.needs and 2 in step.seats
    # seat 2's program stops (no leaving note): the others wait for it by name, for the stated patience
    sim.dead.add(2)
    opened = sim.now
    assert sim.peers[0].step_timeout(step) == NEEDED_PATIENCE * T
    label, seats, patience = needed_step(sim.peers[0])
    words = silence_lines(["ann", "bob", "cyd"], {2: 0.0}, 0, T, False, "g1", needed=(label, seats, patience))
    assert any("cannot pass" in w and "cyd (seat 2)" in w and "up to %d s" % patience in w for w in words), words
    assert any("easel resume" in w for w in words)
    # not voted out at the table's step time: still waiting past it
    sim.run_until(lambda: sim.now >= opened + 1.5 * T, max_rounds=1000)
    assert not sim.peers[0].table.over and sim.peers[0].table.step == step
    sim.run_until(lambda: all(sim.peers[k].table.over for k in (0, 1)), max_rounds=5000)
    assert sim.now >= opened + NEEDED_PATIENCE * T
    res = [sim.peers[k].table.result() for k in (0, 1)]
    assert res[0] == res[1]
    r = res[0]
    # abandoned: nobody ranked, nobody wins; the money the public auctions left stands, as standings
    assert r["status"] == "abandoned" and r["ranking"] == [] and r["winners"] == [] and r["places"] == [None] * 3
    assert r["standings"] == {"money": money} and r["money"] == money
    assert [s for s, _ in r["named"]] == [2] and "did not come" in r["named"][0][1]
    assert not any(w in r["named"][0][1] for w in ("cheat", "fault", "guilty"))
    # the screen shows standings, not a win
    text = "\n".join("".join(t for _, t in line) for line in result_lines(r, 0, 100, ["ann", "bob", "cyd"]))
    assert "abandoned" in text and "not a ranking" in text and "winner" not in text.replace("nobody wins", "")
    assert all(str(m) in text for m in money)
