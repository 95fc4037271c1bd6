"""Leaving is a signed word (protocol.md §9.7, issues 23 and 29): a seat that quits signs a ``leave``
event (placed in the log as its answer to the next step that expects it: no certificate, never waited
for again) and a ``leaving`` note; the others relay the note, refuse a forged one, and a leave is for
good (a resumed leaver only watches).  Sans-IO: the in-memory ``Sim`` of tests/netutil.py."""

from __future__ import annotations

from core.encoding import decode, encode
from core.events import verify_sig
from core.hashing import dhash
from p2p.leaving import LEAVE_FLUSH, leaving_sign_msg, make_note
from core.events import parse_entry
from p2p.protocol import Alert, Broadcast, Disconnect, Peer, Send, WriteSpool
from p2p.timeouts import TimeoutVoter
from core.table import Step

from .netutil import DetRand, Sim, events_in, timeouts_in

TABLE = 600.0      # the table's time-out: nothing in these tests may come near it


def _votes(sim: Sim, seat: int | None = None) -> list:
    return [r for r in sim.trace if isinstance(r.eff, Broadcast) and decode(r.eff.msg)[0] == "vote"
            and (seat is None or r.seat == seat)]


def _deliver_all(sim: Sim, limit: int = 500) -> None:
    for _ in range(limit):
        if not sim.queue:
            return
        sim.deliver_one()
    raise AssertionError("messages kept coming")


def _leave(sim: Sim, seat: int) -> None:
    """``seat`` quits: it sends its leave event and its note, the others take them (the note sent back,
    the event acknowledged by a 'have'), then it is gone."""
    sim.run(seat, sim.peers[seat].leave())
    sim.run_until(lambda: sim.peers[seat].told(), max_rounds=100)
    sim.dead.add(seat)


def _leaves(sim: Sim, seat: int) -> list:
    """The leave events in ``seat``'s log."""
    return [e for e in events_in(sim.entries(seat)) if e.kind == "leave"]


def _both_over(sim: Sim, seats=(0, 1)):
    def cond() -> bool:
        logs = [sim.peers[k].log_entries for k in seats]
        return all(sim.peers[k].table.over for k in seats) and all(lg == logs[0] for lg in logs)
    return cond


def test_a_seat_that_left_is_recorded_in_the_log_and_never_waited_for_again():
    """Issue 29 (changed from issue 23's zero-time certificates): the leave event answers the next step
    that expects its seat, the log records it, and no later step expects the seat: no certificate."""
    sim = Sim(3, seed=3, timeout=TABLE, tick=0.25)
    sim.start()
    sim.run_until(lambda: sim.peers[0].table.phase >= 6)
    _leave(sim, 2)
    left_at = sim.now
    assert sim.peers[0].left_seats() == {2: sim.peers[2].table.phase} == sim.peers[1].left_seats()
    sim.run_until(_both_over(sim))
    [ev] = _leaves(sim, 0)
    assert ev.author == sim.keys[2] and ev.body["phase"] == sim.peers[2].table.phase and ev.body["payload"] is None
    t = sim.peers[0].table
    assert set(t.gone) == {2} and t.gone[2][1] >= ev.body["phase"]
    assert [c for c in timeouts_in(sim.entries(0)) if c.phase >= 6] == [] and _votes(sim) == []
    # the rest of a six-round game took a few seconds of the fake clock, not 600 s per step
    assert sim.now - left_at < 5.0
    for k in (0, 1):
        said = sim.alerts(k)
        assert "seat 2 left the table: their turns pass at once (the empty move)" in said
        assert not [a for a in said if "although" in a], said       # no accusation


def test_a_seat_that_vanishes_without_a_word_is_still_timed_out_after_the_steps_time():
    sim = Sim(3, seed=3, timeout=3.0, tick=0.25)
    sim.start()
    sim.run_until(lambda: sim.peers[0].table.phase >= 6)
    quiet_at = sim.now
    sim.dead.add(2)
    sim.run_until(_both_over(sim))
    assert sim.peers[0].left_seats() == {}
    assert min(r.now for r in _votes(sim)) >= quiet_at + 3.0 - 0.25


def test_the_others_keep_the_steps_whole_time_while_one_seat_left():
    """Seat 3 left, seat 2 is only slow: seat 2 keeps the step's whole time (seat 3's leave brings nothing
    forward for it), then both are named at once (seat 3 cannot vote)."""
    sim = Sim(4, seed=8, timeout=4.0, tick=0.25)
    sim.start()
    sim.run_until(lambda: sim.peers[0].table.phase >= 4 and sim.peers[0].table.step.kind == "commit")
    sim.silent.add(2)
    _leave(sim, 3)
    t0 = sim.now
    sim.run_until(lambda: any(c.seats == (2, 3) for c in timeouts_in(sim.entries(0))) and _leaves(sim, 0), max_rounds=2000)
    # nothing is voted before the step's time (seat 3's leave answers for it); then seat 2 is voted out and
    # with it seat 3, which left and so cannot vote (its leave goes to the next step that expects it)
    votes = _votes(sim)
    assert votes and min(r.now for r in votes) >= t0 + 4.0 - 0.5
    assert all(decode(r.eff.msg)[3] == [2, 3] for r in votes if r.now < t0 + 8.0 - 0.5)


def test_a_forged_note_is_refused_and_the_sender_dropped():
    sim = Sim(3, seed=4, timeout=TABLE)
    sim.start()
    p, gid = sim.peers[0], sim.genesis.game_id
    phase = p.table.phase
    nonce = b"\x07" * 16
    bad_sig = encode(["leaving", 2, phase, nonce, b"\x00" * 64])
    other_game = make_note(sim.ids[2].sign, dhash("game-id", {"another": "game"}), 2, sim.keys[2], phase, nonce)
    wrong_key = encode(["leaving", 2, phase, nonce, sim.ids[1].sign(leaving_sign_msg(gid, sim.keys[2], phase, nonce))])
    for name, msg in {"bad signature": bad_sig, "another game's": other_game, "another seat's key": wrong_key}.items():
        out = p.receive(sim.keys[1], msg)
        assert [e.reason for e in out if isinstance(e, Disconnect)] == ["bad leaving note signature"], name
        assert not [e for e in out if isinstance(e, (Broadcast, Send, Alert))], name
    malformed = {
        "short": ["leaving", 2, phase, nonce],
        "seat out of range": ["leaving", 3, phase, nonce, b"\x00" * 64],
        "negative phase": ["leaving", 2, -1, nonce, b"\x00" * 64],
        "short nonce": ["leaving", 2, phase, b"\x07", b"\x00" * 64],
        "sig not bytes": ["leaving", 2, phase, nonce, "x"],
    }
    for name, m in malformed.items():
        out = p.receive(sim.keys[1], encode(m))
        assert [e for e in out if isinstance(e, Disconnect) and "malformed" in e.reason], name
    assert p.left_seats() == {} and p.voter.left == frozenset()
    # our own note, sent back to us by someone (e.g. after we came back), never makes us leave
    mine = make_note(sim.ids[0].sign, gid, 0, sim.keys[0], phase, nonce)
    assert p.receive(sim.keys[1], mine) == [] and p.left_seats() == {}


def test_a_note_is_relayed_to_a_seat_its_author_is_not_connected_to():
    sim = Sim(3, seed=5, timeout=TABLE, tick=0.25)
    sim.start()
    sim.run_until(lambda: sim.peers[0].table.phase >= 4)
    # seat 2 reaches seat 0 only
    for a, b in ((1, 2), (2, 1)):
        sim.links.discard((a, b))
        sim.peers[a].disconnected(sim.keys[b])
    sim.queue = [q for q in sim.queue if {q[0], q[1]} != {1, 2}]     # the broken link's frames are lost
    sim.run(2, sim.peers[2].leave())
    _deliver_all(sim)
    assert sim.peers[2].told()                       # its only peer, seat 0, sent the note back
    relayed = [r for r in sim.trace if r.seat == 0 and isinstance(r.eff, Broadcast) and decode(r.eff.msg)[0] == "leaving"]
    assert len(relayed) == 1
    assert 2 in sim.peers[1].left_seats()            # it reached seat 1 through seat 0
    sim.dead.add(2)
    t0 = sim.now
    sim.run_until(_both_over(sim))
    assert sim.now - t0 < 5.0
    # a seat that connects later is given the notes held (it may have missed them)
    late = sim.peers[0].connected(sim.keys[1])
    sent = [decode(e.msg)[0] for e in late if isinstance(e, Send)]
    assert sent[0] == "hello" and sent[-1] == "leaving" and sent.count("leaving") == 1


def test_a_relayed_copy_does_not_count_while_its_author_is_connected_to_us():
    sim = Sim(3, seed=6, timeout=TABLE)
    sim.start()
    p = sim.peers[0]
    note = make_note(sim.ids[2].sign, sim.genesis.game_id, 2, sim.keys[2], p.table.phase, b"\x01" * 16)
    assert p.receive(sim.keys[1], note) == [] and p.left_seats() == {}      # seat 2 is connected to us
    out = p.receive(sim.keys[2], note)                                        # its own copy counts
    assert [e for e in out if isinstance(e, Broadcast) and e.msg == note] and 2 in p.left_seats()
    assert p.receive(sim.keys[2], note) == []                                # a copy: nothing more


def test_a_leave_is_for_good_a_resumed_leaver_only_watches():
    """Issue 29 (changed from "coming back"): a seat that signed its leave is never expected again; its
    peer resumed from its files signs nothing (its own leave is among them), is not 'back', and follows
    the table to the same log."""
    sim = Sim(3, seed=7, timeout=TABLE, tick=0.25)
    sim.start()
    sim.run_until(lambda: sim.peers[0].table.phase >= 4)
    sim.run(2, sim.peers[2].leave())
    old_note = sim.peers[2].departures.mine[1]
    sim.run_until(lambda: sim.peers[2].told(), max_rounds=100)
    sim.dead.add(2)
    sim.run_until(lambda: 2 in sim.peers[0].table.gone and sim.peers[0].log_entries == sim.peers[1].log_entries)
    # easel resume: a new peer from seat 2's files, a fresh hello on a new connection
    disk = sim.disks[2]
    sim.peers[2] = Peer(sim.genesis, sim.keys[2], sim.ids[2].sign, DetRand("back", 7),
                        log_entries=list(disk.log), spool=list(disk.spool), secrets=dict(disk.secrets), timeout=TABLE,
                        games=sim.peers[0].games)
    sim.dead.discard(2)
    sim.run(2, sim.peers[2].start())
    for k in (0, 1):
        sim.links |= {(k, 2), (2, k)}
        sim.run(k, sim.peers[k].connected(sim.keys[2]))
        sim.run(2, sim.peers[2].connected(sim.keys[k]))
    assert not sim.peers[2].may_sign() and not sim.peers[2].needs_decision()
    for k in (0, 1):
        assert 2 in sim.peers[k].left_seats() and "seat 2 is back at the table" not in sim.alerts(k)
    # a copy of the old note (relayed late, or replayed) changes nothing
    assert sim.peers[0].receive(sim.keys[1], old_note) == []
    sim.run_until(lambda: all(sim.peers[k].table.over for k in range(3)) and
                  sim.peers[0].log_entries == sim.peers[1].log_entries == sim.peers[2].log_entries)
    assert timeouts_in(sim.entries(0)) == [] and len(_leaves(sim, 0)) == 1
    assert not [e for e in events_in(sim.entries(0)) if e.author == sim.keys[2] and e.seq > _leaves(sim, 0)[0].seq]


def test_a_newer_event_of_a_seat_that_left_says_it_is_back():
    """Seat 2 left and came back talking to seat 1 only: seat 0 learns it from seat 2's newer events."""
    sim = Sim(3, seed=9, timeout=TABLE, tick=0.25)
    sim.start()
    sim.run_until(lambda: sim.peers[0].table.phase >= 4)
    p = sim.peers[0]
    note = make_note(sim.ids[2].sign, sim.genesis.game_id, 2, sim.keys[2], 1, b"\x02" * 16)
    p.disconnected(sim.keys[2])                      # not connected to us: a relayed note counts
    out = p.receive(sim.keys[1], note)
    # its newest event is for a later phase than the note's: a stale note, never taken
    assert out == [] and p.left_seats() == {}
    note = make_note(sim.ids[2].sign, sim.genesis.game_id, 2, sim.keys[2], p.table.phase, b"\x03" * 16)
    p.receive(sim.keys[1], note)
    assert 2 in p.left_seats() and 2 in p.voter.left
    sim.run_until(lambda: p.replica.newest_phase(2) > p.left_seats().get(2, 10 ** 9) or 2 not in p.left_seats(), max_rounds=200)
    sim.tick_all()
    assert p.left_seats() == {} and "seat 2 is back at the table" in sim.alerts(0)


def test_the_leaver_signs_nothing_more_and_answers_only_the_copies_of_its_note():
    sim = Sim(3, seed=10, timeout=TABLE)
    sim.start()
    p = sim.peers[1]
    out = p.leave()
    # its leave event, spooled before it is sent, then the note
    assert isinstance(out[0], WriteSpool) and decode(out[1].msg) == ["entry", out[0].entries[0]]
    ev = parse_entry(out[0].entries[0], keys=sim.keys)
    assert ev.kind == "leave" and ev.author == sim.keys[1] and ev.body["payload"] is None and len(ev.body["nonce"]) == 16
    note = decode(out[-1].msg)
    assert note[:3] == ["leaving", 1, p.table.phase] and len(note[3]) == 16 and len(note[4]) == 64
    # it verifies with the seat's key over dhash("sign/leaving", game_id, key, phase, nonce)
    assert verify_sig(sim.keys[1], leaving_sign_msg(sim.genesis.game_id, sim.keys[1], note[2], note[3]), note[4])
    assert p.leave() == [] and not p.may_sign() and not p.needs_decision()
    assert p.tick(sim.now + 1000.0) == [] and p.next_wakeup() == float("inf")
    assert not [e for e in p.receive(sim.keys[0], p.hello()) if isinstance(e, (Send, Broadcast))]
    assert p.receive(sim.keys[0], encode(["vote", 1, b"x" * 32, [2], 0, b"s" * 64])) == []    # nothing else is answered
    assert not p.told()
    assert p.receive(sim.keys[0], out[-1].msg) and p.receive(sim.keys[2], out[-1].msg)
    assert not p.told()          # the note came back; the event is not acknowledged yet
    for k in (0, 2):
        for ev in sorted(p.replica.own_events(), key=lambda e: e.seq):     # its events, the leave last
            sim.peers[k].receive(sim.keys[1], encode(["entry", ev.raw]))
        p.receive(sim.keys[k], sim.peers[k].replica.have_msg())
    assert p.told() and LEAVE_FLUSH <= 2.0


def test_the_voters_policy_a_left_seats_step_time_is_zero():
    v = TimeoutVoter(4, 0, 60.0)
    st = Step(5, b"\1" * 32, "commit", "move", (1, 2, 3), False, "x")
    v.observe(st, 100.0)
    assert v.due_at(st, set()) == 160.0 and v.choose(st, set(), 100.0, True) is None
    v.left = frozenset({3})
    assert v.due_at(st, set()) == 100.0 and v.vote_due(st, 100.0, set())
    assert v.due_at(st, {3}) == 160.0                       # its event is here: nothing to vote on
    assert v.choose(st, set(), 100.0, True) == (3,)         # the left seat only, before the step's time
    assert v.choose(st, set(), 100.5, True) is None         # once
    assert v.choose(st, {1}, 160.0, True) == (2, 3)         # at the step's time: every seat we lack
    # the escalation still waits a whole step's time after the deadline, as without a note
    v2 = TimeoutVoter(5, 0, 60.0)
    st2 = Step(5, b"\1" * 32, "commit", "move", (1, 2, 3, 4), False, "x")
    v2.left = frozenset({4})
    v2.observe(st2, 0.0)
    for voter in (1, 2):
        v2.hold((5, b"\1" * 32, (4,)), voter, b"sig")
    assert v2.choose(st2, {1, 2, 3}, 0.0, True) == (4,)
    assert v2.choose(st2, {1, 2, 3}, 61.0, True) is None        # same T; the escalation counts from the deadline
    assert v2.choose(st2, {1, 2, 3}, 120.0, True) == (3, 4)     # then seat 3, which never voted, is named too


def test_the_screens_say_who_left_and_never_that_they_were_late():
    import time

    from cli.runner import silence_lines
    from cli.snapshot import snapshot_of
    from cli.screens.painting import PaintingScreen

    sim = Sim(3, seed=3, timeout=TABLE, tick=0.25)
    sim.start()
    sim.run_until(lambda: sim.peers[0].table.phase >= 6)
    _leave(sim, 2)
    sim.run_until(_both_over(sim))
    p = sim.peers[0]
    assert not p.left_steps          # no certificate was needed: the log says it (issue 29)
    screen = PaintingScreen()
    told = snapshot_of(p.table, 0, screen=screen, left_steps=p.left_steps)
    plain = snapshot_of(p.table, 0, screen=screen)
    text = lambda snap: "\n".join(line for _, line in snap.log)
    for snap in (told, plain):       # the live peer and a replay say the same: the leave is in the log
        assert "seat 2 left the table: no step waits for them any more" in text(snap)
        assert "did not move in time" not in text(snap) and "voted seat 2 out" not in text(snap)
    # the line that stays on the screen while a seat is gone by its word (with when it left)
    names = ("Ann", "Bo", "Cy")
    t = time.mktime((2026, 11, 26, 21, 4, 10, 0, 0, -1))
    lines = silence_lines(names, {2: t}, 0, 60, False, "/g", left={2: 7})
    assert lines[0] == ("Cy (seat 2) left the table at 21:04:10: their turns pass at once (the empty move); "
                        "the table goes on without them")
    assert not [ln for ln in lines if "not connected" in ln or "times" in ln]
    # a leave is for good: no "they can come back" (their resume only follows the game, as their quit question said),
    # said by name (the newest line shows first), and, as the table goes on without them, no "you can wait"
    assert lines[-1] == "Cy left for good: easel resume on their machine only follows the game now"
    assert not [ln for ln in lines if "come back" in ln or "wait" in ln]
    # one left, one silent: each told apart
    lines = silence_lines(names + ("Di",), {1: t, 2: t}, 0, 60, False, "/g", left={2: 7})
    assert lines[0].startswith("Cy (seat 2) left the table") and lines[1].startswith("not connected: Bo (seat 1) since 21:04:10")
    assert "the table times Bo out of every step not made within 60 s" in lines[2]
    # more than half the table gone, one of them by its word: nothing says the table goes on
    lines = silence_lines(names, {1: t, 2: t}, 0, 60, False, "/g", left={2: 7})
    assert lines[0] == "Cy (seat 2) left the table at 21:04:10" and "2 of 3 seats are gone" in lines[2]
    assert lines[-1].endswith("easel resume /g")        # the table waits: the player may too, and come back later
    # every one gone left by its word, but too many to go on without: named, and the table waits
    lines = silence_lines(names, {1: t, 2: t}, 0, 60, False, "/g", left={1: 5, 2: 7})
    assert "Bo and Cy left for good: easel resume on their machines only follows the game now" in lines
    assert lines[-1].endswith("easel resume /g")
    assert not [ln for ln in lines if "goes on" in ln]


def test_the_part_hears_a_note_signs_ours_and_says_who_left_by_name():
    from p2p.leaving import Departures

    sim = Sim(3, seed=3, timeout=TABLE)
    gid, keys = sim.genesis.game_id, sim.keys
    d = Departures(3, 0, ["Ann", "Bob", "Cy"])
    note = make_note(sim.ids[2].sign, gid, 2, keys[2], 4, b"n" * 16)
    _, seat, phase, nonce, sig = decode(note)

    def hear(msg_sig, peer=keys[2], newest=-1, connected=True):
        return d.hear(peer, seat, phase, nonce, msg_sig, note, key=keys[2], game_id=gid, newest_phase=lambda: newest,
                      author_connected=connected)

    assert hear(b"x" * 64) == "bad"
    assert hear(sig, newest=5) is None                      # it moved on since: stale
    assert hear(sig, peer=keys[1]) is None                  # relayed while its author is connected to us
    assert hear(sig) == "taken" and d.left() == {2: 4} and d.left_by(2, 4) and not d.left_by(2, 3)
    assert hear(sig) is None                                # a copy of a note taken
    assert d.held_notes() == [(2, note)] and d.left_words(2).startswith("Cy left the table") and d.back_words(2) == "Cy is back at the table"
    mine = d.sign_leave(sim.ids[0].sign, DetRand("leave"), gid, keys[0], 6)
    assert d.gone and decode(mine)[:3] == ["leaving", 0, 6]
    assert not d.told([keys[1]])
    _, s0, _, n0, _ = decode(mine)
    assert d.hear(keys[1], s0, 6, n0, b"", mine, key=keys[0], game_id=gid, newest_phase=lambda: -1,
                  author_connected=True) == "ack" and d.told([keys[1]])


def test_the_part_answers_a_note_in_effects():
    from p2p.effects import Changed
    from p2p.leaving import Departures

    d = Departures(3, 0, ["Ann", "Bob", "Cy"])
    said: list = []

    def refuse(limit, who, fmt, *args):
        said.append((limit, who, fmt % args))

    assert d.answer("taken", b"k2", 2, b"note", "seat 2", refuse) == [Broadcast(b"note"), Alert(d.left_words(2)), Changed()]
    assert d.answer("ack", b"k1", 0, b"mine", "seat 1", refuse) == [Changed()]     # a copy of ours came back
    assert d.answer(None, b"k1", 2, b"note", "seat 1", refuse) == [] and said == []
    assert d.answer("bad", b"k1", 2, b"note", "seat 1", refuse) == [Disconnect(b"k1", "bad leaving note signature")]
    assert said == [("LEAVING", "seat 1", "refused a leaving note of seat 2 from seat 1: its signature does not verify")]
    assert d.answer("bad", None, 2, b"note", "a peer", refuse) == []               # no connection to drop



def test_a_malformed_hello_from_a_seat_that_left_changes_nothing():
    """protocol.md §12.4: a message is checked whole before anything it says is taken; only a
    well-formed hello of a seat that left says it is back."""
    sim = Sim(3, seed=3, timeout=TABLE, tick=0.25)
    sim.start()
    sim.run_until(lambda: sim.peers[0].table.phase >= 6)
    _leave(sim, 2)
    p = sim.peers[0]
    assert 2 in p.left_seats()
    bad = encode(["hello", 1, sim.genesis.game_id, [[sim.keys[0], "one", b""]], []])
    out = p.receive(sim.keys[2], bad)
    assert out == [Disconnect(sim.keys[2], "protocol violation: bad have item")]
    assert 2 in p.left_seats() and 2 in p.voter.left
    out = p.receive(sim.keys[2], sim.peers[2].hello())
    # a leave is for good (issue 29): a hello of the seat that signed it does not make it back
    assert 2 in p.left_seats() and Alert("seat 2 is back at the table") not in out
