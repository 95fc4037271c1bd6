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


def test_a_real_seat_killed_at_a_later_deal_is_waited_for_then_the_others_end_abandoned_with_the_money(tmp_path):
    """The same with real processes on loopback and a short table time-out: Cy's program is killed (SIGKILL:
    no leaving note) in round 2; its turns and bids time out, and at the next deal Ann and Bo wait
    NEEDED_PATIENCE table time-outs for its shares, then both end abandoned with the money as standings, Cy
    named in neutral words, with identical valid logs. (What the screens say meanwhile: the test above, on the same functions.)"""
    import json
    import signal
    import time

    from .lan import host_port, paced
    from .netutil import LogFollower, easel, finish_procs, logs_under, spawn_easel, wait_for

    homes = {name: tmp_path / name for name in ("ann", "bo", "cy")}
    host = spawn_easel(["host", "--game", "modern-art", "--players", "3", "--auto", "random", "--timeout", str(int(T)),
                        "--bind", "127.0.0.1", "--port", "0", "--no-advertise", "--name", "Ann"], homes["ann"])
    procs = [host]
    try:
        port = host_port(host)
        bo = spawn_easel(["bot", "--join", "127.0.0.1:%d" % port, "--level", "random", "--name", "Bo"], homes["bo"])
        cy = spawn_easel(["bot", "--join", "127.0.0.1:%d" % port, "--level", "random", "--name", "Cy"], homes["cy"])
        procs += [bo, cy]
        ann = LogFollower(homes["ann"])
        # Cy paces the game while we read Ann's log (stopped while we look: it cannot run past round 2 unseen);
        # once round 2 is in play, Cy's program is killed: silent from there on, no leaving note
        t = paced(cy, ann, lambda t: getattr(t.state, "stage", None) == "play" and t.state.ms.round >= 2, wall=120,
                  ended=lambda: host.poll() is not None)
        assert t is not None, finish_procs(procs, 1)
        cyd = t.genesis.doc["names"].index("Cy")
        cy.send_signal(signal.SIGKILL)
        seen: dict = {}

        def watch() -> bool:
            """Ann's log as it grows: when each step opened (as seen here), until the game is over."""
            t = ann.poll()
            st = t.step if t is not None else None
            if st is not None:
                key = (ann.n, st.label)
                seen.setdefault("opened", {}).setdefault(key, time.monotonic())
                seen["last"] = key
            if t is not None and t.over:
                seen["over"] = time.monotonic()
                return True
            return False

        # Cy's turns and bids time out (T each), then the next deal waits NEEDED_PATIENCE x T for its shares
        assert wait_for(watch, timeout=150, interval=0.05), (seen, finish_procs(procs, 1))
        t = ann.table
        # the game ended at a step it cannot pass without Cy, after waiting for it longer than a table time-out
        # (NEEDED_PATIENCE x T; as seen here, the step opened no later than we saw it: one T of slack for our reading)
        assert t.genesis.doc["timeout"] == T
        assert seen["last"][1].startswith("the deal: dealing"), seen
        assert seen["over"] - seen["opened"][seen["last"]] >= (NEEDED_PATIENCE - 1) * T, seen
        results = finish_procs([host, bo], 60)
        for rc, so, se in results:
            assert rc == 0 and "Traceback" not in se, se[-3000:]
            assert json.loads(so.strip().splitlines()[-1])["over"] is True
            # headless seats (host --auto, bot) say whom the deal waits for, as the screen does (cli/narrate.py)
            assert "easel: the game cannot pass the deal" in se and "without Cy (seat %d)" % cyd in se, se[-3000:]
        logs = [logs_under(homes[n])[0] for n in ("ann", "bo")]
        assert logs[0].read_bytes() == logs[1].read_bytes()
        r = t.result()
        assert r["status"] == "abandoned" and r["ranking"] == [] and r["winners"] == [], r
        assert r["standings"] == {"money": list(t.state.ms.money)} and [s for s, _ in r["named"]] == [cyd], r
        assert "did not come" in r["named"][0][1] and not any(w in r["named"][0][1] for w in ("cheat", "fault", "guilty")), r
        a = easel("audit", "--json", *logs, home=homes["ann"])
        rep = json.loads(a.stdout)
        assert rep["valid"] and rep["results"]["status"] == "abandoned" and rep["left"] == [], a.stdout[-2000:]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=10)
