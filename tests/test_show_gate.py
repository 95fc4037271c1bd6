"""Bind before show (protocol.md §6.5 "Shown secrets"; p2p/showing.py).

A seat's event that shows a secret (a sealed move's reveal, a game's ``Turn.shows`` step) is
sent only once the choice it shows is bound in the log, and a peer never follows a time-out
certificate back past a step in which it showed one: a coalition that reads a revealed sealed
bid and then cuts the step before it cannot run the bid again with the value known.  Honest
peers do not fork over it: a seat shows only once the steps before are settled (a majority
acknowledged its log and no completable vote is held), so an honest late move is rolled back
before anything is shown.
"""

from __future__ import annotations

import pytest

from core import audit as audit_mod
from core import games as registry
from core.encoding import encode
from core.logfile import LOG_MAGIC, SPOOL_MAGIC, encode_record
from core.events import Event, make_timeout, parse_entry, vote_sign_msg
from p2p.protocol import Broadcast, Peer, TruncateLog
from p2p.showing import SHOW_MARGIN, ShowGate

from .netutil import Sim, entry_raws

# --------------------------------------------------------------------------- the part alone


def test_a_certificate_before_a_shown_secret_is_never_followed():
    g = ShowGate(4, seat=1)
    assert g.follows(3, (1,))
    g.signed(7, reveal=False)          # a game's showing step (a card's opening)
    assert not g.follows(6, (2,)) and not g.follows(0, (1,))
    assert g.follows(7, (1,)) and g.follows(9, (1,))   # cutting the showing step itself gives nothing back


def test_a_reveal_follows_a_certificate_for_its_own_commit_step_that_it_signed():
    g = ShowGate(4, seat=1)
    g.signed(9, reveal=True)
    # the commit step (8): a certificate we are outside of carries our own vote, so every commitment
    # it keeps reached us before our reveal: followed; one that times us out re-opens our move: not
    assert g.follows(8, (2,))
    assert not g.follows(8, (1,)) and not g.follows(8, (1, 2))
    assert not g.follows(7, (2,))


def test_a_step_is_settled_when_a_majority_acknowledged_and_no_vote_can_complete():
    g = ShowGate(5, seat=0)
    steps = [(4, b"p" * 32, None)]
    assert g.unsettled(steps, acked={1}) == [4]            # 2 of 5 known: a certificate naming them may form
    assert g.unsettled(steps, acked={1, 2}) == []          # 3 of 5 acknowledged, no vote held
    g.vote(4, b"p" * 32, (3,), voter=1)
    g.vote(4, b"p" * 32, (3,), voter=2)
    assert g.unsettled(steps, acked={1, 2}) == []          # we (0) did not vote {3}: it cannot form
    g.vote(4, b"p" * 32, (3,), voter=0)
    assert g.unsettled(steps, acked={1, 2}) == [4]         # every seat we know of voted {3}: it may
    assert g.unsettled([(4, b"p" * 32, (3,))], acked={1, 2}) == []   # ...and it is how the step closed
    assert g.unsettled([(4, b"q" * 32, None)], acked={1, 2}) == []   # votes for another branch's step
    assert ShowGate.show_at([3.0, 10.0]) == 10.0          # the latest of the times the time-out rule gave


def test_votes_are_kept_in_bounds():
    g = ShowGate(3, seat=0)
    for k in range(100):
        g.vote(5, b"p" * 32, (1 + k % 2,), voter=k % 3)
        g.vote(5 + k, b"p" * 32, (1,), voter=2)
    assert len(g.votes) <= 70
    assert all(len(order) <= 4 for order in g._per_voter.values())
    g.passed(50, reveal=False)
    assert all(p >= 50 for p, _ in g.votes)


def test_a_showing_event_waits_for_unsettled_steps_until_their_time_out_has_passed_by_the_margin():
    from types import SimpleNamespace

    from core.table import Step
    from p2p.timeouts import TimeoutVoter

    g = ShowGate(5, seat=0)
    st = Step(6, b"s" * 32, "act", "auto", (0, 1), True, "open a card", shows=True)
    table = SimpleNamespace(starts={4: (9, b"p" * 32), 5: (11, b"q" * 32)}, timeouts={})
    clock = TimeoutVoter(5, 0, 30.0)
    clock.observe(Step(4, b"p" * 32, "act", "move", (1,), True, "x"), 100.0)   # phase 4 due at 130 here
    clock.observe(st, 140.0)
    assert g.due(st, table, {1, 2}, clock, 150.0) == ([], None)                 # settled: nothing to wait for
    bad, at = g.due(st, table, {1}, clock, 150.0)
    # phase 5 never seen open here: its time counted from our step's opening (140 + 30)
    assert bad == [4, 5] and at == 140.0 + 30.0 + SHOW_MARGIN
    said: list = []
    assert g.blocks(st, bad, at, 150.0, lambda *a: said.append(a[0])) is True
    assert g.window(9) == range(0, 9)
    assert g.blocks(st, bad, at, at, lambda *a: said.append(a[0])) is False     # goes all the same, and is shown
    assert said == ["SHOW_GATE", "SHOW_GATE"] and g.window(9) == range(6, 9) and not g.follows(5, (1,))
    assert g.forked() == {} and g.refuse(5, b"c") and g.forked() == {5: b"c"}


def test_a_restarted_peer_knows_where_it_last_showed_from_its_own_events():
    from types import SimpleNamespace

    g = ShowGate(3, seat=0)
    mine = [SimpleNamespace(body={"phase": 3}, prev=b"a"), SimpleNamespace(body={"phase": 7}, prev=b"x"),
            SimpleNamespace(body={"phase": "junk"}, prev=b"b")]
    table = SimpleNamespace(step=None, starts={3: (5, b"a"), 7: (9, b"b")}, showing={3: ((0,), False), 7: ((0,), False)})
    g.scan(table, mine)                  # phase 7's event is for another branch's step: not ours there
    assert not g.follows(2, (1,)) and g.follows(3, (1,)) and g.window(5) == range(3, 5)


# --------------------------------------------------------------------------- with the real peers
def forge(sim: Sim, phase: int, prev: bytes, seats: list) -> bytes:
    gid = sim.genesis.game_id
    votes = [(k, sim.ids[k].sign(vote_sign_msg(gid, phase, prev, seats))) for k in range(sim.n) if k not in seats]
    return encode(["entry", make_timeout(gid, phase, prev, seats, votes).raw])


def revealed_by(sim: Sim, seat: int, holder: int) -> list[Event]:
    """The move reveals of ``seat`` that ``holder``'s peer holds (placed or not)."""
    p = sim.peers[holder]
    return [e for e in p.replica.events[sim.keys[seat]].values() if e.kind == "reveal" and e.body["phase"] > 1]


def test_a_coalition_that_reads_a_reveal_cannot_roll_the_honest_seat_back_past_it(tmp_path):
    """Painting, 3 seats, 1 and 2 collude: once seat 0's sealed bid is revealed to them they sign a
    certificate for its commit step, naming seat 0.  Seat 0 does not follow it: its log keeps its bid
    where it was bound, the table has forked, and seat 0 ends the game ``forked`` at once, handing its
    proof to the others; the others, holding seat 0's reveal, see the fork too and end the same way
    (same result); a restart ends it again."""
    sim = Sim(3, seed=5, timeout=600.0, tag="gate-coalition")
    sim.start()
    sim.run_until(lambda: bool(revealed_by(sim, 0, 1)), max_rounds=500)
    reveal = revealed_by(sim, 0, 1)[0]
    phase = reveal.body["phase"]
    commit_phase, commit_prev = phase - 1, sim.peers[1].table.starts[phase - 1][1]
    sim.run_until(lambda: sim.peers[0].table.phase > phase, max_rounds=500)
    before = list(sim.peers[0].log_entries)
    for k in range(3):
        sim.run(k, sim.peers[k].receive(sim.keys[1], forge(sim, commit_phase, commit_prev, [0])))
    assert sim.peers[0].log_entries[:len(before)] == before
    assert commit_phase in sim.peers[0].forked
    assert any("keep our log" in a and "phase %d" % commit_phase in a for a in sim.alerts(0))
    # seat 0 ended the game at once: forked, the certificate's signers and what it showed named
    res = sim.peers[0].table.result()
    assert sim.peers[0].table.over and res["status"] == "forked" and res["winners"] == [] and res["ranking"] == []
    assert res["fork"]["phase"] == commit_phase and res["fork"]["voters"] == [1, 2] and res["fork"]["seat"] == 0
    assert res["fork"]["shown"] == phase
    # what it shows: the standings the common prefix (the log up to the step the certificate is for) made public
    from core.table import replay
    prefix = replay(before[:sim.peers[0].table.starts[commit_phase][0]], registry)
    assert res["standings"] == prefix.standings() and set(res["standings"]) == {"points", "tokens"}
    # the colluders' own peers hold seat 0's reveal: they do not roll back past it either (seat 0 never
    # follows), they end the same way at once, on the same proof
    assert all(p.table.over for p in sim.peers)
    assert all(p.table.timeouts.get(commit_phase) is None for p in sim.peers)
    assert all(p.table.result() == res for p in sim.peers)
    # a certificate further back (the seed) changes nothing any more: the game is over
    seed_prev = sim.peers[0].table.starts[0][1]
    sim.run(0, sim.peers[0].receive(sim.keys[2], forge(sim, 0, seed_prev, [0])))
    assert sim.peers[0].log_entries[:len(before)] == before and sim.peers[0].table.result() == res
    # restarted from its files (log and spool, the proof included), it ends the same way again
    d = sim.disks[0]
    again = Peer(sim.genesis, sim.keys[0], sim.ids[0].sign, lambda k: bytes(k), log_entries=list(d.log),
                 spool=list(d.spool), secrets=dict(d.secrets), timeout=600.0, games=sim.peers[0].games)
    effects = again.start()
    assert not any(isinstance(e, TruncateLog) for e in effects)
    assert again.log_entries[:len(before)] == before and again.table.result() == res and again.next_wakeup() == float("inf")
    # and the audit of its files names the certificates it did not follow, signed by the coalition
    rep = audit_mod.audit({"log": LOG_MAGIC + b"".join(map(encode_record, d.log)),
                           "spool": SPOOL_MAGIC + b"".join(map(encode_record, d.spool))}, registry)
    assert rep["valid"] and [c["phase"] for c in rep["unfollowed"]] == [0, commit_phase]
    assert all(c["voters"] == [1, 2] and c["seats"] == [0] for c in rep["unfollowed"])
    assert any("does not follow" in n["note"] and "phase %d" % commit_phase in n["note"] for n in rep["notes"])


def late_commit_race(sim: Sim, gate_on: bool = True) -> tuple:
    """Seat 0's first sealed move reaches seats 1 and 2 only after both voted it out: an honest late
    move.  Returns (forked at seat 0, seat 0 sent a reveal on the branch the certificate cut)."""
    target: dict = {}

    def commit_phase_of(msg) -> int | None:
        for raw in entry_raws(msg):
            e = parse_entry(raw)
            if isinstance(e, Event) and e.kind == "commit" and e.body["phase"] > 1:
                return e.body["phase"]
        return None

    def block(src, dst, msg):
        ph = commit_phase_of(msg) if src == 0 and dst in (1, 2) else None
        if ph is None:
            return False
        target.setdefault("phase", ph)
        if ph != target["phase"]:
            return False
        voted = all(sim.peers[k].voter.mine.get(ph) for k in (1, 2))
        return not voted

    if not gate_on:
        for p in sim.peers:
            p.gate.unsettled = lambda steps, acked: []
    sim.block = block
    sim.start()
    sim.run_until(max_rounds=5000)
    ph = target["phase"]
    # the reveal step seat 0 opened on its own branch (all three commits) before the certificate
    sent = [e for r in sim.trace if r.seat == 0 and isinstance(r.eff, Broadcast)
            for e in map(parse_entry, entry_raws(r.eff.msg)) if isinstance(e, Event) and e.kind == "reveal"
            and e.body["phase"] == ph + 1]
    final_prev = sim.peers[1].table.starts[ph + 1][1]
    return bool(sim.peers[0].forked), [e for e in sent if e.prev != final_prev]


def test_an_honest_late_move_is_rolled_back_before_anything_is_shown():
    sim = Sim(3, seed=9, timeout=2.0, tag="gate-race")
    forked, shown_on_cut_branch = late_commit_race(sim)
    assert not forked and not shown_on_cut_branch
    logs = [sim.peers[k].log_entries for k in range(3)]
    assert logs[0] == logs[1] == logs[2] and sim.peers[0].table.over
    assert any(t == (0,) for t in sim.peers[0].table.timeouts.values())


def test_without_the_gate_the_same_race_forks_the_late_seat():
    """The control: the same schedule with the gate switched off shows seat 0's bid on the branch the
    certificate then cuts, and seat 0 (which never follows past a shown secret) is left behind."""
    sim = Sim(3, seed=9, timeout=2.0, tag="gate-race")
    try:
        forked, shown_on_cut_branch = late_commit_race(sim, gate_on=False)
    except AssertionError:          # the table does not finish for seat 0: the fork itself
        forked, shown_on_cut_branch = bool(sim.peers[0].forked), True
    assert forked and shown_on_cut_branch


def test_two_logs_of_a_forked_table_and_the_proof_name_who_signed_what(tmp_path):
    """The coalition (1 and 2) runs its own software: it follows its certificate for seat 0's commit step
    after reading seat 0's reveal, and plays on.  Seat 0 ends forked on its proof.  ``easel audit`` of seat
    0's log and spool with a colluder's log names the proof (who signed the certificate, who had shown
    what) and, from the two logs together, the seats that signed entries on both branches; no blame."""
    sim = Sim(3, seed=5, timeout=600.0, tag="gate-coalition")
    for k in (1, 2):
        sim.peers[k].gate.follows = lambda phase, seats: True
        sim.peers[k]._refused_cert = lambda cert, follows: False
    sim.start()
    sim.run_until(lambda: bool(revealed_by(sim, 0, 1)), max_rounds=500)
    phase = revealed_by(sim, 0, 1)[0].body["phase"]
    sim.run_until(lambda: sim.peers[0].table.phase > phase + 1 and sim.peers[1].table.phase > phase + 1, max_rounds=500)
    commit_phase, commit_prev = phase - 1, sim.peers[1].table.starts[phase - 1][1]
    for k in range(3):
        sim.run(k, sim.peers[k].receive(sim.keys[1], forge(sim, commit_phase, commit_prev, [0])))
    assert sim.peers[0].table.result()["status"] == "forked"
    assert sim.peers[1].table.timeouts.get(commit_phase) == (0,)        # the coalition's own branch
    d0, d1 = sim.disks[0], sim.disks[1]
    files = {"seat0/log": LOG_MAGIC + b"".join(map(encode_record, d0.log)),
             "seat0/spool": SPOOL_MAGIC + b"".join(map(encode_record, d0.spool)),
             "seat1/log": LOG_MAGIC + b"".join(map(encode_record, d1.log))}
    rep = audit_mod.audit(files, registry)
    assert [(f["phase"], f["voters"], f["seats"], f["seat"], f["shown"]) for f in rep["forked"]] == [
        (commit_phase, [1, 2], [0], 0, phase)]
    fork_notes = [n["note"] for n in rep["notes"] if n["note"].startswith("the table forked")]
    assert fork_notes and "seats 1 and 2 signed a time-out certificate voting seat 0 out" in fork_notes[0]
    branch = [n["note"] for n in rep["notes"] if n["note"].startswith("the logs fork")]
    assert branch and "signed by seats 1 and 2 voting seat 0 out" in branch[0] and "seats 1 and 2 signed entries" in branch[0]
    assert not any(w in " ".join(fork_notes + branch) for w in ("cheat", "fault", "guilty"))
    # easel history of seat 0's game directory: forked, no winner
    from cli.history import spool_fork
    (tmp_path / "spool").write_bytes(files["seat0/spool"])
    info = spool_fork(tmp_path / "log", sim.genesis, registry)
    assert info is not None and info["phase"] == commit_phase and info["seat"] == 0


# --------------------------------------------------------------------------- honest timing never forks a table
def timed_table(n: int, seed: int, *, longer: int | None = None, slow_link: tuple | None = None,
                gate_on: bool = True, T: float = 2.0) -> Sim:
    """Painting, ``n`` seats, every link in order (a connection), the last seat deciding at 0.7-1.4 step
    times (its moves race the others' votes).  ``longer``: a per-seat time-out rule (p2p/timeouts.py
    ``seat_time``: that seat's peer waits twice the step time before it votes), the same code at every
    peer; ``slow_link``: (a, b, delay) both ways.  Played to the end of the game or a fork, and until
    nothing is on the wire."""
    import random

    from p2p.timeouts import TimeoutVoter

    sim = Sim(n, seed=seed, timeout=T, tag="timing", fifo=True, options={"rounds": 2})
    if longer is not None:
        for p in sim.peers:
            base = p.voter.seat_time
            p.voter.seat_time = (lambda st, seat, base=base: (2 if seat == longer else 1) * base(st, seat))
            assert isinstance(p.voter, TimeoutVoter)
    if not gate_on:
        for p in sim.peers:
            p.gate.unsettled = lambda steps, acked: []
    held: list = []
    if slow_link is not None:
        a, b, delay = slow_link

        def block(src, dst, msg) -> bool:
            if {src, dst} == {a, b}:
                held.append((sim.now + delay, src, dst, msg))
                return True
            return False

        sim.block = block
        tick = sim.tick_all

        def tick_and_release() -> None:
            tick()
            for h in [h for h in held if h[0] <= sim.now]:
                held.remove(h)
                sim.deliver(h[1], h[2], h[3])       # in the order they were sent
                sim.decide(h[2])

        sim.tick_all = tick_and_release
    rng, late, when = random.Random(seed), n - 1, {}
    decide = sim.decide

    def late_decider(k: int) -> None:
        st = sim.peers[k].table.step
        if k == late and st is not None:
            at = when.setdefault((st.phase, st.prev), sim.now + rng.uniform(0.7, 1.4) * T)
            if sim.now < at:
                return
        decide(k)

    sim.decide = late_decider
    sim.start()
    # to the end of the game at every seat, and on until what was on the wire then has arrived (a late
    # certificate still in flight is followed after the end too)
    sim.run_until(lambda: all(p.table.over for p in sim.peers), max_rounds=20_000)
    for _ in range(int(3 * T / sim.tick_len) + 50):   # what was on the wire (the slow link too) arrives
        sim.round()
    return sim


TIMED = [(n, seed) for n in (3, 4, 5) for seed in (3, 7)]


@pytest.mark.parametrize("n,seed", TIMED)
def test_a_longer_time_out_for_one_seat_and_a_link_slow_by_twice_the_step_time_never_fork_the_table(n, seed):
    certs = 0
    for kw in ({"longer": n - 1}, {"longer": 0}, {"slow_link": (0, n - 1, 4.0)}, {"slow_link": (0, 1, 4.0), "longer": 1}):
        sim = timed_table(n, seed, **kw)
        logs = [p.log_entries for p in sim.peers]
        assert all(p.table.over and not p.forked and p.fork is None for p in sim.peers), kw
        assert all(lg == logs[0] for lg in logs), kw
        certs += len(sim.peers[0].table.timeouts)
    assert certs, "no move raced a vote: the test would prove nothing"


def test_without_the_gate_the_same_timing_forks_the_table_and_every_seat_ends_forked_alike():
    """The control: the same schedules with the show gate off fork the table (a seat shows a bid its step
    is then cut past); every seat then ends forked, alike, at once (§6.5 rule 3), none waits."""
    forked = 0
    for n, seed in TIMED:
        sim = timed_table(n, seed, longer=n - 1, gate_on=False)
        if any(p.fork for p in sim.peers):
            forked += 1
            res = [p.table.result() for p in sim.peers]
            assert all(r is not None and r["status"] == "forked" and r == res[0] for r in res)
    assert forked


# --------------------------------------------------------------------------- a proof handed to one seat only
def test_a_proof_handed_to_one_honest_seat_ends_both_honest_seats_alike_and_bad_ones_are_refused():
    """4 seats, 0 and 2 collude.  They make a valid proof of their own (seat 0's reveal, and a certificate
    they sign for the seed step that times the honest seats out) and hand it to seat 1 alone: seat 1 ends forked
    and hands it on, so seat 3 ends the same way.  A malformed or false record is refused with a word,
    never a crash, and a seat checks at most MAX_FORK_CHECKS records from one sender."""
    from core.fork import make_fork
    from p2p.forks import MAX_FORK_CHECKS
    from p2p.messages import ForkMsg

    sim = Sim(4, seed=7, timeout=600.0, tag="gate-proof", fifo=True)
    sim.start()
    sim.run_until(lambda: bool(revealed_by(sim, 0, 1)), max_rounds=500)
    reveal = revealed_by(sim, 0, 1)[0]
    phase = reveal.body["phase"]
    p0 = sim.peers[0]
    count, prev = p0.table.starts[phase]
    seed_prev = p0.table.starts[0][1]
    gid = sim.genesis.game_id
    # at 4 seats the coalition alone can time the two honest seats out of the seed step, after seat 0 showed
    votes = [(k, sim.ids[k].sign(vote_sign_msg(gid, 0, seed_prev, [1, 3]))) for k in (0, 2)]
    cert = make_timeout(gid, 0, seed_prev, [1, 3], votes)
    record = make_fork(gid, cert.raw, p0.log_entries[1:count], reveal.raw)
    # a false record and a malformed one first: refused, counted, no crash, no end
    false = make_fork(gid, cert.raw, p0.log_entries[1:count - 1], reveal.raw)
    for bad in (b"\x92\xa4fork\xc4\x03abc", ForkMsg(false).encode()):
        effects = sim.peers[1].receive(sim.keys[0], bad)
        assert not sim.peers[1].table.over
    assert sim.peers[1].refused.get("FORK") == 2
    sim.run(1, sim.peers[1].receive(sim.keys[0], ForkMsg(record).encode()))
    res = sim.peers[1].table.result()
    assert res["status"] == "forked" and res["fork"]["seat"] == 0 and res["fork"]["voters"] == [0, 2]
    sim.run_until(lambda: sim.peers[3].table.over, max_rounds=200)
    assert sim.peers[3].table.result() == res
    # a sender's records beyond MAX_FORK_CHECKS are not checked at all
    other = Sim(4, seed=7, timeout=600.0, tag="gate-proof", fifo=True)
    for _ in range(MAX_FORK_CHECKS + 2):
        other.peers[1].receive(sim.keys[2], ForkMsg(false).encode())
    assert other.peers[1].refused.get("FORK") == MAX_FORK_CHECKS and other.peers[1].refused.get("MAX_FORK_CHECKS") == 2


def test_a_proof_too_long_to_send_still_ends_the_refusing_seat(monkeypatch):
    """MAX_FORK (§13.1) made tiny: the seat that refuses cannot hand its proof on, and ends alone (it
    never waits for ever); the others, which follow the certificate, are not told (the limit named)."""
    import core.fork as forkcore

    monkeypatch.setattr(forkcore, "MAX_FORK", 200)
    sim = Sim(3, seed=5, timeout=600.0, tag="gate-coalition")
    sim.start()
    sim.run_until(lambda: bool(revealed_by(sim, 0, 1)), max_rounds=500)
    phase = revealed_by(sim, 0, 1)[0].body["phase"]
    sim.run_until(lambda: sim.peers[0].table.phase > phase, max_rounds=500)
    sim.run(0, sim.peers[0].receive(sim.keys[1], forge(sim, phase - 1, sim.peers[0].table.starts[phase - 1][1], [0])))
    res = sim.peers[0].table.result()
    assert sim.peers[0].table.over and res["status"] == "forked" and res["fork"]["seat"] == 0
    assert any("too long to send" in a for a in sim.alerts(0))
    assert sim.peers[0].forks.raw is None and sim.peers[0].next_wakeup() == float("inf")


def test_easel_audit_and_history_of_a_forked_game_directory(tmp_path):
    """The real commands on seat 0's game directory (its log and spool, the proof in it): ``easel audit``
    says FORKED and names who signed what; ``easel history`` shows the game forked, no winner."""
    import json

    from . import netutil
    from .test_evidence import game_dir

    sim = Sim(3, seed=5, timeout=600.0, tag="gate-coalition")
    sim.start()
    sim.run_until(lambda: bool(revealed_by(sim, 0, 1)), max_rounds=500)
    phase = revealed_by(sim, 0, 1)[0].body["phase"]
    sim.run_until(lambda: sim.peers[0].table.phase > phase, max_rounds=500)
    sim.run(0, sim.peers[0].receive(sim.keys[1], forge(sim, phase - 1, sim.peers[0].table.starts[phase - 1][1], [0])))
    assert sim.peers[0].table.result()["status"] == "forked"
    home = tmp_path / "home"
    d = game_dir(home, sim, 0)
    r = netutil.easel("audit", d, home=home)
    assert r.stdout.startswith("VALID") and "\n  FORKED: the table forked at phase %d: seats 1 and 2" % (phase - 1) in r.stdout, r.stdout
    assert "seat 0 showed a secret in phase %d" % phase in r.stdout
    rep = json.loads(netutil.easel("audit", "--json", d, home=home).stdout)
    assert [(f["phase"], f["voters"], f["seat"]) for f in rep["forked"]] == [(phase - 1, [1, 2], 0)]
    r = netutil.easel("history", home=home)
    assert r.returncode == 0, r.stderr
    row = next(ln for ln in r.stdout.splitlines() if "painting" in ln)
    assert "forked at phase %d: no winner" % (phase - 1) in row, r.stdout
