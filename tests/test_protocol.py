"""The sans-IO peer protocol (p2p/protocol.py), on a deterministic in-memory network.

No sockets: ``tests.netutil.Sim`` keeps one queue of (src, dst, msg), a seeded
random.Random picks the delivery order and drops/duplicates messages, and
time is a fake clock passed to ``Peer.tick``.
"""

from __future__ import annotations

import random

import pytest

from core.encoding import decode, encode
from core.engine import IllegalAction
from core.events import vote_sign_msg, Event, Timeout, commitment, make_event, make_timeout, parse_entry
from core.hashing import dhash
from p2p.identity import Identity
from p2p.protocol import (
    Alert,
    Broadcast,
    Disconnect,
    Peer,
    Send,
    TruncateLog,
    WriteLog,
    WriteSecret,
    WriteSpool,
)

from .helpers import GAMES
from .netutil import DetRand, Disk, Sim, entry_raws, events_in, timeouts_in


# --------------------------------------------------------------------------- helpers
def blob_of(eff) -> bytes | None:
    """The bytes an effect sends or writes to a shared file (WriteSecret is private: None)."""
    if isinstance(eff, (Send, Broadcast)):
        return eff.msg
    if isinstance(eff, (WriteLog, WriteSpool)):
        return b"".join(eff.entries)
    return None


def assert_same_finished_logs(sim: Sim, seats=None) -> list[bytes]:
    seats = sim.live() if seats is None else seats
    logs = [sim.peers[k].log_entries for k in seats]
    for k, lg in zip(seats, logs):
        assert sim.peers[k].table.over, "seat %d did not finish" % k
        assert lg == logs[0], "seat %d's log differs from seat %d's" % (k, seats[0])
        # what the peer holds in memory is what its disk holds
        assert sim.disks[k].log == lg, "seat %d's disk log differs from its memory" % k
    assert sim.peers[seats[0]].table.result() is not None
    return logs[0]


def assert_nothing_sent_before_persisted(sim: Sim) -> int:
    """Replaying each peer's effects in order: every entry a Send/Broadcast carries is on disk."""
    disks = {k: Disk(log=[sim.genesis.raw]) for k in range(sim.n)}
    checked = 0
    for rec in sim.trace:
        d = disks[rec.seat]
        if isinstance(rec.eff, (Send, Broadcast)):
            for raw in entry_raws(rec.eff.msg):
                assert d.holds(raw), "seat %d sent an entry before it was on disk (effect %d)" % (rec.seat, rec.t)
                checked += 1
        d.apply(rec.eff)
    return checked


def assert_never_lost_from_disk(sim: Sim, seat: int) -> None:
    """Every entry a peer once wrote (log or spool) is still on its disk (log or spool)."""
    d = sim.disks[seat]
    for eff in sim.effects_of(seat, WriteLog) + sim.effects_of(seat, WriteSpool):
        for raw in eff.entries:
            assert d.holds(raw), "seat %d wrote an entry to disk that is no longer there" % seat


# --------------------------------------------------------------------------- full games under faults
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_full_game_under_drop_dup_reorder(n):
    sim = Sim(n, seed=100 + n, drop=0.3, dup=0.2, timeout=600.0)
    sim.start()
    sim.run_until(max_rounds=3000)
    log = assert_same_finished_logs(sim)
    # 2 seed steps + 6 rounds x (commit, reveal), every seat in every step, no time-out
    entries = sim.entries(0)
    assert not timeouts_in(entries)
    assert len(events_in(entries)) == n * 14
    assert len(log) == 1 + n * 14
    # faults really happened: far more deliveries than entries, duplicates were seen
    assert sim.delivered > len(log) * (n - 1)
    assert assert_nothing_sent_before_persisted(sim) > 0
    for k in range(n):
        assert not [e for e in sim.effects_of(k, Disconnect)], "an honest peer was disconnected"


def test_different_fault_seeds_same_outcome_for_same_events():
    """Arrival order never changes the log: same peers and randomness, different network seeds."""
    heads = set()
    for net_seed in (1, 2, 3):
        sim = Sim(3, seed=7, drop=0.3, dup=0.2, timeout=600.0)
        sim.rng = random.Random(net_seed)
        sim.start()
        sim.run_until(max_rounds=3000)
        assert_same_finished_logs(sim)
        heads.add(sim.peers[0].table.head)
    assert len(heads) == 1


# --------------------------------------------------------------------------- secrecy
def test_nothing_secret_leaves_before_its_reveal():
    sim = Sim(4, seed=11, drop=0.3, dup=0.2, timeout=600.0)
    sim.start()
    sim.run_until(max_rounds=3000)
    final = assert_same_finished_logs(sim)
    final_entries = [parse_entry(r) for r in final[1:]]

    blobs = [(r.t, r.seat, blob_of(r.eff)) for r in sim.trace if blob_of(r.eff) is not None]
    secrets = [(r.seat, r.eff, r.t) for r in sim.trace if isinstance(r.eff, WriteSecret)]
    assert len(secrets) >= 4 * 14 // 2
    enc_count: dict[bytes, int] = {}
    for _, s, _ in secrets:
        enc_count[encode(s.value)] = enc_count.get(encode(s.value), 0) + 1

    values_checked = moves_checked = 0
    for seat, sec, t_secret in secrets:
        key = sim.keys[seat]
        # when the author first wrote its reveal of this secret (before any send of it)
        reveal_t = None
        for t, s, blob in blobs:
            if s != seat or sec.salt not in blob:
                continue
            rec = sim.trace[t].eff
            assert isinstance(rec, (WriteLog, WriteSpool)), "the salt's first appearance must be the author's own write"
            evs = [parse_entry(r) for r in rec.entries]
            assert any(isinstance(e, Event) and e.kind == "reveal" and e.author == key and e.body["salt"] == sec.salt for e in evs)
            reveal_t = t
            break
        assert reveal_t is not None, "seat %d never revealed phase %d" % (seat, sec.phase)
        assert t_secret < reveal_t
        check_value = enc_count[encode(sec.value)] == 1 and len(encode(sec.value)) >= 8
        for t, s, blob in blobs:
            if t >= reveal_t:
                break
            assert sec.salt not in blob, "salt of seat %d phase %d left before its reveal" % (seat, sec.phase)
            if check_value:
                assert encode(sec.value) not in blob, "value of seat %d phase %d left before its reveal" % (seat, sec.phase)
        values_checked += check_value
        moves_checked += check_value and isinstance(sec.value, dict)
        # the reveal is made only once every commitment of the step is in the author's log
        step_entries = [e for e in final_entries if (isinstance(e, Event) and e.body["phase"] == sec.phase) or (isinstance(e, Timeout) and e.phase == sec.phase)]
        assert step_entries
        for e in step_entries:
            first_logged = min(r.t for r in sim.trace if r.seat == seat and isinstance(r.eff, WriteLog) and e.raw in r.eff.entries)
            assert first_logged < reveal_t
    assert values_checked >= len(secrets) // 2
    assert moves_checked >= 4


# --------------------------------------------------------------------------- time-outs
def test_absent_seat_is_timed_out_and_game_finishes():
    timeout = 3.0
    sim = Sim(4, seed=21, timeout=timeout)
    sim.dead.add(2)  # never sends, receives or acts
    sim.start()
    sim.run_until(max_rounds=5000)
    assert_same_finished_logs(sim)
    votes = [r for r in sim.trace if isinstance(r.eff, Broadcast) and decode(r.eff.msg)[0] == "vote"]
    assert votes and min(r.now for r in votes) >= timeout, "a vote was cast before the step had been open for `timeout`"
    certs = timeouts_in(sim.entries(0))
    # every step of the game (seed commit + 6 move commits) times out seat 2; it never reaches a reveal
    assert len(certs) == 7
    for c in certs:
        assert c.seats == (2,)
        assert [v for v, _ in c.votes] == [0, 1, 3]
    t = sim.peers[0].table
    assert sum(1 for _, _, s, _ in t.moves if s == 2) == 6
    assert all(a == t.game.default_action(None, 2) for _, _, s, a in t.moves if s == 2)
    assert t.over and t.result() is not None
    assert sim.now < 7 * timeout + 10


def test_seat_that_commits_but_never_reveals_is_timed_out_in_the_reveal_step():
    timeout = 2.0
    sim = Sim(3, seed=22, timeout=timeout)
    late = 1

    def withhold_move_reveals(src, dst, msg):
        if src != late:
            return False
        for raw in entry_raws(msg):
            e = parse_entry(raw)
            if isinstance(e, Event) and e.kind == "reveal" and e.body["phase"] >= 3:
                return True
        return False

    sim.block = withhold_move_reveals
    sim.start()
    sim.run_until(max_rounds=5000)
    # all three agree, the withholding seat included (it rolls back to the others' certificates)
    assert_same_finished_logs(sim, [0, 1, 2])
    entries = sim.entries(0)
    first = timeouts_in(entries)[0]
    assert first.phase == 3 and first.seats == (late,)
    # seat 1's commit for phase 2 is in the log: it committed, then was timed out in the reveal
    assert any(e.kind == "commit" and e.body["phase"] == 2 and e.author == sim.keys[late] for e in events_in(entries))
    assert not any(e.kind == "reveal" and e.body["phase"] == 3 and e.author == sim.keys[late] for e in events_in(entries))
    notes = [n.text for n in sim.peers[0].table.notes]
    assert any("reveal" in n and "timed out seats [1]" in n for n in notes)
    assert any("replaced our close" in a for a in sim.alerts(late))
    assert_never_lost_from_disk(sim, late)
    assert_nothing_sent_before_persisted(sim)


# --------------------------------------------------------------------------- certificate dominance
def _own_commit(sim, seat, phase):
    def match(raw):
        e = parse_entry(raw)
        return isinstance(e, Event) and e.author == sim.keys[seat] and e.kind == "commit" and e.body["phase"] == phase
    return match


def test_certificate_wins_over_a_direct_close_and_log_is_cut_back():
    sim = Sim(3, seed=31, timeout=2.0)
    A, B, C = 0, 1, 2
    c_commit = _own_commit(sim, C, 0)

    def block(src, dst, msg):
        m = decode(msg)
        if src == C and dst != C and any(c_commit(r) for r in entry_raws(msg)):
            return True  # C's seed commitment never reaches A or B (for now)
        if dst == C and m[0] == "vote":
            return True  # C learns of the time-out only as a finished certificate
        return False

    sim.block = block
    sim.start()
    sim.run_until(lambda: any(isinstance(r.eff, TruncateLog) for r in sim.trace if r.seat == C), max_rounds=400)
    # before the certificate, C had closed phase 0 itself, with its own commitment in its log
    c_logged = [raw for eff in sim.effects_of(C, WriteLog) for raw in eff.entries]
    assert any(c_commit(r) for r in c_logged)
    trunc = sim.effects_of(C, TruncateLog)
    assert trunc[0].count == 1  # back to the genesis: phase 0 opened right after it
    assert any("replaced our close of it" in a for a in sim.alerts(C))
    # after the roll-back C's log is phase 0 as A and B have it: A, B and the certificate
    c_now = sim.peers[C].log_entries
    a_now = sim.peers[A].log_entries
    assert c_now[:4] == a_now[:4]
    assert isinstance(parse_entry(c_now[3]), Timeout) and parse_entry(c_now[3]).seats == (C,)
    assert not any(c_commit(r) for r in c_now)
    assert sim.disks[C].log == c_now
    # nothing C once wrote is lost from its disk: the cut events are kept in the spool
    assert_never_lost_from_disk(sim, C)
    # lift the block: the game runs to its end and all three logs are equal
    sim.block = None
    sim.run_until(max_rounds=5000)
    assert_same_finished_logs(sim, [A, B, C])
    assert_nothing_sent_before_persisted(sim)


def test_rollback_keeps_cut_events_on_disk_so_a_restart_never_reuses_a_seq():
    """The late seat's own reveal closes a step directly, then a certificate cuts it out.

    Its reveal was sent (it raced the last vote), so it must stay on disk: a
    peer restarted from its disk would otherwise sign a different event with
    the same sequence number (an equivocation by an honest peer).
    """
    sim = Sim(3, seed=32, timeout=2.0, options={"rounds": 2})
    A, B, C = 0, 1, 2
    held: list = []

    def kind_of(raw):
        e = parse_entry(raw)
        return (sim.keys.index(e.author), e.kind, e.body["phase"]) if isinstance(e, Event) else None

    def block(src, dst, msg):
        kinds = [kind_of(r) for r in entry_raws(msg)]
        if dst == C and src != C and any(k and k[1] == "commit" and k[2] == 2 for k in kinds):
            held.append((src, dst, msg))  # A's and B's round-1 commitments reach C late
            return True
        if src == C and dst != C and any(k and k[1] == "reveal" and k[2] == 3 for k in kinds):
            return True  # C's round-1 reveal loses the race against the time-out votes
        return dst == C and decode(msg)[0] == "vote"

    sim.block = block
    sim.silent = {A, B, C}
    sim.start()
    sim.run_until(lambda: all(p.needs_decision() for p in sim.peers), max_rounds=300)
    assert sim.peers[A].table.phase == 2
    sim.silent = {C}
    sim.decide_all()
    sim.silent = set()
    sim.decide(C)
    sim.silent = {C}  # C thinks for a long time about its round-2 move
    # A and B close phase 2 and reveal; their reveals wait in C's buffer
    sim.run_until(lambda: all(sim.peers[C].replica.buffer[sim.keys[k]].get(3) or sim.peers[C].replica.events[sim.keys[k]].get(3) for k in (A, B)), max_rounds=300)
    assert sim.peers[C].table.phase == 2
    for src, dst, msg in held:
        sim.deliver(src, dst, msg)
    t = sim.peers[C].table
    assert t.phase == 4, "C should have closed the reveal step itself"
    c_reveal = [raw for raw in sim.peers[C].log_entries if kind_of(raw) == (C, "reveal", 3)]
    # our own events always go to the spool too (sending one waits for the spool's fsync, not the log's)
    assert c_reveal and any(c_reveal[0] in eff.entries for eff in sim.effects_of(C, WriteSpool))
    sim.run_until(lambda: bool(sim.effects_of(C, TruncateLog)), max_rounds=300)
    assert c_reveal[0] not in sim.peers[C].log_entries
    assert_never_lost_from_disk(sim, C)
    d = sim.disks[C]
    again = Peer(sim.genesis, sim.keys[C], sim.ids[C].sign, DetRand("restart"), log_entries=d.log, spool=d.spool, secrets=d.secrets, timeout=2.0, games=GAMES)
    assert again.log_entries == sim.peers[C].log_entries
    assert again.next_seq() == sim.peers[C].next_seq() == 4
    # the game goes on to the end, every log equal
    sim.block = None
    sim.silent = set()
    sim.run_until(max_rounds=3000)
    assert_same_finished_logs(sim, [A, B, C])
    assert_nothing_sent_before_persisted(sim)


def test_smaller_certificate_wins():
    """Of two certificates for one step the one with fewer seats wins, whatever the arrival order."""
    sim = Sim(4, seed=33, timeout=2.0)
    g = sim.genesis
    from core.events import make_timeout, vote_sign_msg

    head0 = sim.peers[0].table.step.prev

    def cert(seats):
        voters = [k for k in range(4) if k not in seats]
        return make_timeout(g.game_id, 0, head0, seats, [(v, sim.ids[v].sign(vote_sign_msg(g.game_id, 0, head0, seats))) for v in voters])

    big, small = cert([2, 3]), cert([3])
    p = sim.peers[0]
    sim.links = {(a, b) for a in range(4) for b in range(4) if a != b}
    # seats 0, 1, 2 commit; nobody else hears of it; give seat 0 the other commits by hand
    sim.start()
    for k in (1, 2):
        ev = sim.peers[k].replica.events[sim.keys[k]][0]
        sim.run(0, p.receive(sim.keys[k], encode(["entry", ev.raw])))
    sim.run(0, p.receive(sim.keys[1], encode(["entry", big.raw])))
    assert p.table.timeouts.get(0) == (2, 3)
    sim.run(0, p.receive(sim.keys[1], encode(["entry", small.raw])))
    assert p.table.timeouts.get(0) == (3,)
    assert parse_entry(p.log_entries[4]).raw == small.raw
    assert any(isinstance(e, TruncateLog) for e in sim.effects_of(0, TruncateLog))
    assert_never_lost_from_disk(sim, 0)
    # the other arrival order: the small certificate first, the big one changes nothing
    q = sim.peers[1]
    for k in (0, 2):
        ev = sim.peers[k].replica.events[sim.keys[k]][0]
        sim.run(1, q.receive(sim.keys[k], encode(["entry", ev.raw])))
    sim.run(1, q.receive(sim.keys[0], encode(["entry", small.raw])))
    sim.run(1, q.receive(sim.keys[0], encode(["entry", big.raw])))
    assert q.table.timeouts.get(0) == (3,)
    assert not sim.effects_of(1, TruncateLog)
    assert q.log_entries == p.log_entries


# --------------------------------------------------------------------------- equivocation
def test_equivocation_is_detected_reported_and_kept_out_of_the_logs():
    sim = Sim(3, seed=41, timeout=600.0)
    A, B, C = 0, 1, 2
    sim.dead.add(C)  # C is played by hand: it equivocates
    sim.start()
    g = sim.genesis
    prev = sim.peers[A].table.step.prev
    sign = sim.ids[C].sign
    ev1 = make_event(sign, g.game_id, sim.keys[C], 0, prev, "commit", {"phase": 0, "hash": dhash("x", 1)})
    ev2 = make_event(sign, g.game_id, sim.keys[C], 0, prev, "commit", {"phase": 0, "hash": dhash("x", 2)})
    assert ev1.raw != ev2.raw
    sim.deliver(C, A, encode(["entry", ev1.raw]))
    sim.deliver(C, B, encode(["entry", ev2.raw]))
    assert not sim.alerts(A) and not sim.alerts(B)
    # A passes its copy on to B (as a relay does)
    out = sim.deliver(A, B, encode(["entry", ev1.raw]))
    texts = [e.text for e in out if isinstance(e, Alert)]
    assert texts and "equivocat" in texts[0] and "seat 2" in texts[0]
    proofs = [decode(e.msg) for e in out if isinstance(e, Broadcast) and decode(e.msg)[0] == "proof"]
    assert proofs == [["proof", ev2.raw, ev1.raw]]
    spooled = [e for e in out if isinstance(e, WriteSpool)]
    assert spooled and ev1.raw in spooled[0].entries
    # the spool write comes before the proof is broadcast
    assert out.index(spooled[0]) < min(i for i, e in enumerate(out) if isinstance(e, Broadcast))
    assert not [e for e in out if isinstance(e, Disconnect)], "the relaying peer is honest: no disconnect"
    # the proof reaches A, which also learns of it; a second proof changes nothing
    for _ in range(5):
        sim.round()
    assert any("equivocat" in a for a in sim.alerts(A))
    assert ev2.raw in sim.disks[A].spool
    n_alerts = len(sim.alerts(B))
    sim.deliver(A, B, encode(["proof", ev1.raw, ev2.raw]))
    assert len(sim.alerts(B)) == n_alerts
    for k in (A, B):
        lg = sim.peers[k].log_entries
        assert not (ev1.raw in lg and ev2.raw in lg)
        assert sim.peers[k].replica.events[sim.keys[C]][0].raw == (ev1.raw if k == A else ev2.raw)


def test_a_lone_seat_cannot_vote_the_others_out():
    """Seat 2 alone votes seats 0 and 1 out: every seat outside T voted, but the quorum
    rule (voters >= timed-out seats) makes it no certificate: nothing placed, nothing raised."""
    sim = Sim(3, seed=44, timeout=600.0)
    sim.dead.add(2)
    sim.start()
    st = sim.peers[0].table.step
    seats = [0, 1]
    sig = sim.ids[2].sign(vote_sign_msg(sim.genesis.game_id, st.phase, st.prev, seats))
    before = list(sim.peers[0].log_entries)
    out = sim.deliver(2, 0, encode(["vote", st.phase, st.prev, seats, 2, sig]))
    assert not [e for e in out if isinstance(e, (WriteSpool, WriteLog))]
    assert sim.peers[0].replica.certs == {} and sim.peers[0].log_entries == before


def test_equivocation_found_by_have_exchange_alone():
    """Two honest peers each hold a different event under one seq: equal seq numbers in
    their `have`, but the id prefixes differ, so they show each other their copy."""
    sim = Sim(3, seed=43, timeout=600.0)
    A, B, C = 0, 1, 2
    sim.dead.add(C)
    sim.start()
    g = sim.genesis
    prev = sim.peers[A].table.step.prev
    sign = sim.ids[C].sign
    ev1 = make_event(sign, g.game_id, sim.keys[C], 0, prev, "commit", {"phase": 0, "hash": dhash("x", 1)})
    ev2 = make_event(sign, g.game_id, sim.keys[C], 0, prev, "commit", {"phase": 0, "hash": dhash("x", 2)})
    sim.deliver(C, A, encode(["entry", ev1.raw]))
    sim.deliver(C, B, encode(["entry", ev2.raw]))
    assert sim.peers[A].replica.have[sim.keys[C]] == sim.peers[B].replica.have[sim.keys[C]] == 0
    out = sim.deliver(A, B, encode(["have", sim.peers[A].have_vector(), []]))
    sent = [decode(e.msg) for e in out if isinstance(e, Send)]
    assert ["entry", ev2.raw] in sent, "B shows A its own copy"
    out = sim.deliver(B, A, encode(["entry", ev2.raw]))
    assert any(isinstance(e, Alert) and "equivocat" in e.text for e in out)


# --------------------------------------------------------------------------- garbage
def _fresh_pair():
    sim = Sim(3, seed=51, timeout=600.0)
    sim.start()
    for _ in range(3):
        sim.round()
    return sim


def _garbage_messages(sim):
    g = sim.genesis
    p = sim.peers[0]
    outsider = Identity(dhash("outsider", 1))
    prev = p.table.step.prev if p.table.step else p.table.head
    good = sim.peers[1].replica.events[sim.keys[1]][0]
    bad_sig = good.raw[:-1] + bytes([good.raw[-1] ^ 1])
    foreign = make_event(outsider.sign, g.game_id, outsider.public, 0, prev, "commit", {"phase": 0, "hash": bytes(32)})
    have_ok = encode(["have", [], []])
    # a certificate timing seat 2 out: seat 0's vote is real, seat 1's is not its signature
    vmsg = vote_sign_msg(g.game_id, 0, prev, [2])
    forged_vote = make_timeout(g.game_id, 0, prev, [2], [(0, sim.ids[0].sign(vmsg)), (1, sim.ids[0].sign(vmsg))])
    noncanon = b"\xdc\x00\x03" + have_ok[1:]  # array16 header where a fixarray is the canonical form
    return {
        "not msgpack": b"\xc1\xc1\xc1",
        "trailing bytes": have_ok + b"\x00",
        "non-canonical": noncanon,
        "float": b"\x92\xa4have\xcb" + b"\x00" * 8,
        "not an array": encode({"have": 1}),
        "empty array": encode([]),
        "unknown type": encode(["gossip", 1, 2]),
        "bad hello version": encode(["hello", 2, g.game_id, [], []]),
        "hello of another game": encode(["hello", 1, bytes(32), [], []]),
        "bad have": encode(["have", "x", []]),
        "bad have item": encode(["have", [[1, 2]], []]),
        "entry not bytes": encode(["entry", 5]),
        "entry garbage": encode(["entry", b"\x01\x02"]),
        "entry bad signature": encode(["entry", bad_sig]),
        "certificate with a forged vote": encode(["entry", forged_vote.raw]),
        "event from no seat": encode(["entry", foreign.raw]),
        "bad vote": encode(["vote", 0, prev, [1], 0, b"x" * 64]),
        "vote bad seats": encode(["vote", 0, prev, [0], 0, b"x" * 64]),
        "vote too short": encode(["vote", 0]),
        "proof of junk": encode(["proof", b"a", b"b"]),
    }


def test_garbage_disconnects_with_a_reason_never_raises():
    sim = _fresh_pair()
    p = sim.peers[0]
    before = list(p.log_entries)
    for name, msg in _garbage_messages(sim).items():
        out = p.receive(sim.keys[1], msg)
        ds = [e for e in out if isinstance(e, Disconnect)]
        assert ds, "no disconnect for %s" % name
        assert ds[0].peer == sim.keys[1] and ds[0].reason, name
        assert not [e for e in out if isinstance(e, (WriteLog, WriteSpool, Send, Broadcast))], name
    assert p.log_entries == before


def test_specific_disconnect_reasons():
    sim = _fresh_pair()
    p = sim.peers[0]
    msgs = _garbage_messages(sim)
    reason = lambda name: [e for e in p.receive(sim.keys[1], msgs[name]) if isinstance(e, Disconnect)][0].reason
    assert reason("entry bad signature") == "bad entry: event: signature does not verify"
    assert reason("certificate with a forged vote") == "bad entry: time-out: bad vote signature from seat 1"
    assert "holds no seat" in reason("event from no seat")
    assert "unknown message type" in reason("unknown type")
    assert "protocol violation" in reason("non-canonical")
    assert "vote signature" in reason("bad vote")


def test_random_bytes_and_mutations_never_raise():
    sim = _fresh_pair()
    p = sim.peers[0]
    rng = random.Random(5)
    samples = [m for _, _, m in sim.queue[:50]] + [e.raw for e in sim.peers[1].replica.events[sim.keys[1]].values()]
    assert samples
    for i in range(600):
        base = rng.choice(samples)
        kind = i % 4
        if kind == 0:
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 40)))
        elif kind == 1:
            b = bytearray(base)
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
            data = bytes(b)
        elif kind == 2:
            data = base[: rng.randrange(len(base))]
        else:
            b = bytearray(encode(["entry", base]))
            b[rng.randrange(len(b))] = rng.randrange(256)
            data = bytes(b)
        out = p.receive(sim.keys[1 + i % 2], data)  # must not raise
        assert isinstance(out, list)
    # the peer still works: the game can go on to the end
    sim.run_until(max_rounds=3000)
    assert_same_finished_logs(sim)


# --------------------------------------------------------------------------- act()
def test_act_out_of_turn_and_overspent_bid():
    sim = Sim(3, seed=61, timeout=600.0)
    sim.silent = {0, 1, 2}
    sim.start()
    p = sim.peers[0]
    # the seed step needs no decision: acting now is out of turn
    with pytest.raises(IllegalAction):
        p.act({"bids": {}, "splash": None, "extra": None, "convert": 0})
    sim.run_until(lambda: all(q.needs_decision() for q in sim.peers), max_rounds=200)
    st = p.table.step
    assert st.kind == "commit" and st.purpose == "move"
    state = p.table.state
    tokens = state.tokens[0]
    sheet = str(state.offer[0])
    n_trace, n_events, secrets = len(sim.trace), dict(p.replica.events[p.me]), dict(p.agent.secrets)
    with pytest.raises(IllegalAction, match="bids total"):
        p.act({"bids": {sheet: tokens + 1}, "splash": None, "extra": None, "convert": 0})
    with pytest.raises(IllegalAction):
        p.act("not a move")
    assert len(sim.trace) == n_trace and p.replica.events[p.me] == n_events and p.agent.secrets == secrets
    assert p.needs_decision()
    # a legal move is accepted; a second one in the same step is out of turn
    eff = p.act({"bids": {sheet: tokens}, "splash": [0, 0, "R"], "extra": None, "convert": 0})
    sim.run(0, eff)
    kinds = [type(e).__name__ for e in eff]
    assert kinds.index("WriteSecret") < kinds.index("WriteSpool") < kinds.index("Broadcast")
    with pytest.raises(IllegalAction):
        p.act({"bids": {}, "splash": None, "extra": None, "convert": 0})
    # a peer without a seat can never act
    outsider = Identity(dhash("outsider", 2))
    watcher = Peer(sim.genesis, outsider.public, outsider.sign, DetRand("w"), games=GAMES)
    assert watcher.seat is None and not watcher.needs_decision()
    with pytest.raises(IllegalAction):
        watcher.act({"bids": {}})


def test_commitment_in_log_opens_to_the_revealed_move():
    sim = Sim(2, seed=71, timeout=600.0)
    sim.start()
    sim.run_until(max_rounds=3000)
    entries = events_in(sim.entries(0))
    commits = {(e.author, e.body["phase"]): e.body["hash"] for e in entries if e.kind == "commit"}
    reveals = [e for e in entries if e.kind == "reveal"]
    assert len(reveals) == 14
    for r in reveals:
        assert commitment(sim.genesis.game_id, r.author, r.body["phase"] - 1, r.body["value"], r.body["salt"]) == commits[(r.author, r.body["phase"] - 1)]


def test_restart_keeps_the_first_event_and_remembers_the_equivocation():
    """A peer restarted with one event in its log and a conflicting one (same author, same
    seq) kept in its spool as evidence: the logged one stays, the author is known to equivocate."""
    sim = Sim(3, seed=45, timeout=600.0)
    sim.dead.add(2)
    sim.start()
    g = sim.genesis
    prev = sim.peers[0].table.step.prev
    sign = sim.ids[2].sign
    ev1 = make_event(sign, g.game_id, sim.keys[2], 0, prev, "commit", {"phase": 0, "hash": dhash("x", 1)})
    ev2 = make_event(sign, g.game_id, sim.keys[2], 0, prev, "commit", {"phase": 0, "hash": dhash("x", 2)})
    p = Peer(g, sim.keys[0], sim.ids[0].sign, DetRand(b"r"), log_entries=[g.raw], spool=[ev1.raw, ev2.raw], timeout=600.0, games=GAMES)
    assert p.replica.events[sim.keys[2]][0].raw == ev1.raw
    assert sim.keys[2] in p.replica.equivocators


def test_a_second_certificate_for_a_phase_reaches_a_peer_holding_another():
    """`have` names certificates by phase and id prefix, so a peer holding a different
    certificate for the same phase is still sent ours."""
    sim = Sim(5, seed=46, timeout=600.0)
    sim.start()
    st = sim.peers[0].table.step
    from core.events import make_timeout

    def cert(out, voters):
        msg = vote_sign_msg(sim.genesis.game_id, st.phase, st.prev, out)
        return make_timeout(sim.genesis.game_id, st.phase, st.prev, out, [(v, sim.ids[v].sign(msg)) for v in voters])

    c_small = cert([4], [0, 1, 2, 3])
    c_big = cert([3, 4], [0, 1, 2])
    sim.deliver(1, 0, encode(["entry", c_small.raw]))
    out = sim.deliver(1, 0, encode(["have", sim.peers[1].have_vector(), [[st.phase, c_big.id[:8]]]]))
    sent = [decode(e.msg) for e in out if isinstance(e, Send)]
    assert ["entry", c_small.raw] in sent


def test_have_advances_over_events_the_log_already_holds_beyond_a_gap():
    """An author's seq 1 is not in the log (it was never placed: an orphan), seq 2 is.
    On restart `have` stops at 0; once seq 1 arrives it must pass over seq 2 (already
    held, from the log) — else the peer reports a stale `have` and waits for ever."""
    from .helpers import Builder, salt_for, seat_keys, genesis_for, signer
    from core.table import Table

    sks = seat_keys(2)
    g = genesis_for(sks)
    b = Builder(g, sks)
    t = Table.start(g, GAMES)
    log = [g.raw]

    def add(ev):
        t.append(ev.raw)
        log.append(ev.raw)

    st = t.step
    add(b.commit(0, 0, st.prev, b"\x01" * 32, salt_for(0, 0)))            # seat 0 seq 0
    add(b.commit(1, 0, st.prev, b"\x02" * 32, salt_for(1, 0)))            # seat 1 seq 0
    orphan = b.event(0, b"\x07" * 32, "act", {"phase": 9, "action": 0})   # seat 0 seq 1: never placed
    st = t.step
    add(b.reveal(0, 1, st.prev, b"\x01" * 32, salt_for(0, 0)))            # seat 0 seq 2
    add(b.reveal(1, 1, st.prev, b"\x02" * 32, salt_for(1, 0)))            # seat 1 seq 1
    keys = [bytes(sk.verify_key) for sk in sks]
    p = Peer(g, keys[1], signer(sks[1]), DetRand(b"gap"), log_entries=log, timeout=600.0, games=GAMES)
    assert p.replica.have[keys[0]] == 0
    p.connected(keys[0])
    p.receive(keys[0], encode(["entry", orphan.raw]))
    assert p.replica.have[keys[0]] == 2


# --------------------------------------------------------------------------- send first, then place
class SendFirstSim(Sim):
    """A Sim whose peers send their own new events before placing them (``Peer.send_first``, as
    p2p/node.py does): ``Resume`` is run as the node runs it, after the frame is queued."""

    def __init__(self, *a, **kw) -> None:
        super().__init__(*a, **kw)
        for p in self.peers:
            p.send_first = True

    def run(self, k: int, effects: list) -> list:
        from p2p.protocol import Resume
        super().run(k, effects)
        for eff in effects:
            if isinstance(eff, Resume):
                self.run(k, self.peers[k].resume())
        return effects


def test_sending_our_event_before_placing_it_changes_no_log_and_sends_nothing_unpersisted():
    """A peer that sends its own event first and places it on ``Resume`` (so a long check of the
    step it closes, e.g. Modern Art's shuffle proofs, runs after the event is on its way) ends
    with the very logs of a peer that places first; its own event is in its spool before the
    frame leaves, and it reaches the log after the frame."""
    from p2p.protocol import Resume
    plain = Sim(3, seed=11, timeout=600.0)
    plain.start()
    plain.run_until(max_rounds=3000)
    first = SendFirstSim(3, seed=11, timeout=600.0)
    first.start()
    first.run_until(max_rounds=3000)
    assert assert_same_finished_logs(first) == assert_same_finished_logs(plain)
    assert assert_nothing_sent_before_persisted(first) > 0
    resumes = 0
    closed_at_once = 0              # the plain peer places an own event that closes a step before sending it
    for sim in (plain, first):
        for k in range(3):
            sent_at, logged_at = {}, {}
            for rec in sim.trace:
                if rec.seat != k:
                    continue
                if isinstance(rec.eff, Broadcast):
                    for raw in entry_raws(rec.eff.msg):
                        sent_at.setdefault(raw, rec.t)
                elif isinstance(rec.eff, WriteLog):
                    for raw in rec.eff.entries:
                        logged_at.setdefault(raw, rec.t)
                elif isinstance(rec.eff, Resume):
                    resumes += 1
            own = [raw for raw in sent_at if getattr(parse_entry(raw), "author", None) == sim.keys[k]]
            assert own
            if sim is first:
                assert all(sent_at[raw] < logged_at[raw] for raw in own)
            else:
                closed_at_once += sum(1 for raw in own if logged_at[raw] < sent_at[raw])
    assert resumes > 0 and closed_at_once > 0
