"""Table talk (issue 30, protocol.md §9.11): ``say TEXT`` signs a ``say`` event on the author's own chain,
shown on arrival whoever is on turn, placed by the rules just before its author's next answer, every peer
the same way; the table refuses a line out of place or whose text fails the check, and a log that ends on a
line without its answer.

Sans-IO: the in-memory ``Sim`` of tests/netutil.py (real ``Peer``s, a simulated network).
"""

from __future__ import annotations

import random

import pytest

import core.games as registry
from core.audit import audit
from core.encoding import encode
from core.events import MAX_SAY_BYTES, EntryError, make_event, parse_entry, say_problem
from core.table import RuleError, replay
from p2p.protocol import MAX_SAY_PENDING, MAX_SEQ_AHEAD, Peer
from p2p.effects import Alert

from .helpers import log_file
from .netutil import Sim, events_in, placed_in_random_orders, timeouts_in

TABLE = 600.0


def _entries(sim: Sim, log: list) -> list:
    return [parse_entry(r, keys=sim.keys) for r in log[1:]]


def _finish(sim: Sim) -> list:
    sim.run_until(max_rounds=50000)
    return sim.peers[sim.live()[0]].log_entries


def _say(sim: Sim, seat: int, text: str) -> None:
    sim.tick_all()          # a second since any earlier line: SAY_GAP
    sim.tick_all()
    sim.tick_all()
    sim.tick_all()
    sim.run(seat, sim.peers[seat].say(text))


def _sim(seed: int, n: int = 3) -> Sim:
    sim = Sim(n, seed=seed, timeout=TABLE, tick=0.25, names=["Ann", "Bo", "Cy", "Di"][:n])
    sim.start()
    return sim


def _hostile(sim: Sim, seat: int, text, seq: int | None = None, phase: int | None = None) -> object:
    """A line signed by ``seat``'s key outside its peer (a hostile seat), with the next seq of its chain."""
    p = sim.peers[seat]
    t = p.table
    body = {"phase": t.phase if phase is None else phase, "text": text}
    ev = make_event(sim.ids[seat].sign, sim.genesis.game_id, sim.keys[seat], p.next_seq() if seq is None else seq,
                    t.step.prev if t.step else t.head, "say", body)
    p.replica.insert(ev)        # its own peer holds it (and repairs it like any event of its own)
    return ev


# --------------------------------------------------------------------------- the text check


@pytest.mark.parametrize("text, why", [
    ("", "empty"),
    (" hi", "space"),
    ("hi\u3000", "space"),
    ("a\x1b[2Jb", "control"),
    ("a\nb", "control"),
    ("a\x85b", "control"),
    ("a\x7fb", "control"),
    ("evil\u202egnp.exe", "direction"),
    ("a\u2066b", "direction"),
    ("a\u200fb", "direction"),
    ("a\u2028b", "control or direction"),
    ("x" * (MAX_SAY_BYTES + 1), "too long"),
    ("é" * (MAX_SAY_BYTES // 2 + 1), "too long"),
    (b"bytes", "not text"),
])
def test_the_text_check_refuses(text, why):
    assert why in say_problem(text)


@pytest.mark.parametrize("text", ["hi", "good game, Bo!", "é" * (MAX_SAY_BYTES // 2), "x" * MAX_SAY_BYTES, "a b",
                                  "日本語 ok", "🙂"])
def test_the_text_check_accepts(text):
    assert say_problem(text) == ""


def test_a_say_body_is_phase_and_text_only():
    sim = Sim(2, seed=1, timeout=TABLE)
    t = sim.peers[0].table
    for body in ({"phase": 0}, {"phase": 0, "text": 5}, {"phase": 0, "text": "x", "more": 1}, {"phase": -1, "text": "x"}):
        with pytest.raises(EntryError):
            make_event(sim.ids[0].sign, sim.genesis.game_id, sim.keys[0], 0, t.head, "say", body)


# --------------------------------------------------------------------------- placement


def test_a_line_is_shown_at_once_and_placed_just_before_its_authors_next_answer():
    sim = _sim(31)
    sim.run_until(lambda: sim.peers[0].table.phase >= 4)
    _say(sim, 1, "hello there")
    # delivered alone: seat 2 shows it before anything else happens, whoever is on turn
    msgs = [q for q in sim.queue if q[0] == 1 and q[1] == 2]
    sim.queue = [q for q in sim.queue if q not in msgs]
    for src, dst, msg in msgs:
        sim.deliver(src, dst, msg)
    assert [(d["seat"], d["text"]) for d in sim.peers[2].talk_lines()] == [(1, "hello there")]
    log = _finish(sim)
    ents = _entries(sim, log)
    [i] = [k for k, e in enumerate(ents) if getattr(e, "kind", None) == "say"]
    line, answer = ents[i], ents[i + 1]
    assert answer.author == line.author and answer.kind != "say" and answer.seq > line.seq
    t = replay(log, registry)
    assert [(d["seat"], d["text"], d["index"]) for d in t.said] == [(1, "hello there", i + 1)]
    report = audit({"log": log_file(log)}, registry)
    assert report["valid"] and [d["text"] for d in report["said"]] == ["hello there"]
    assert all(d["placed"] for d in sim.peers[0].talk_lines())


def test_two_peers_fed_in_different_orders_write_the_same_log_with_talk():
    sim = _sim(32)
    sim.run_until(lambda: sim.peers[0].table.phase >= 3)
    _say(sim, 0, "hi all")
    _say(sim, 2, "hello")
    _say(sim, 0, "ready?")
    sim.run_until(lambda: sim.peers[0].table.phase >= 8)
    _say(sim, 1, "yes")
    log = _finish(sim)
    ents = _entries(sim, log)
    assert sorted(e.body["text"] for e in events_in(ents) if e.kind == "say") == ["hello", "hi all", "ready?", "yes"]
    logs = placed_in_random_orders(sim, ents, (1, 2, 3), TABLE)
    assert logs[0] == logs[1] == logs[2] == log


def test_a_line_of_a_seat_timed_out_waits_for_its_next_answer():
    """A step closed by a certificate that times the author out places none of its lines: they go in with
    its next answer (here, after a roll-back-free time-out of a silent seat that then moves again)."""
    sim = Sim(3, seed=33, timeout=2.0, tick=0.25)
    sim.start()
    sim.run_until(lambda: sim.peers[0].table.phase >= 4 and sim.peers[0].table.step.kind == "commit"
                  and sim.peers[0].table.step.purpose == "move")
    sim.silent.add(2)
    _say(sim, 2, "brb")
    sim.run_until(lambda: timeouts_in(_entries(sim, sim.peers[0].log_entries)))
    ents = _entries(sim, sim.peers[0].log_entries)
    assert not [e for e in events_in(ents) if e.kind == "say"]       # not placed with the time-out
    sim.silent.discard(2)
    log = _finish(sim)
    ents = _entries(sim, log)
    [i] = [k for k, e in enumerate(ents) if getattr(e, "kind", None) == "say"]
    assert ents[i + 1].author == sim.keys[2] and ents[i + 1].kind != "say"
    assert audit({"log": log_file(log)}, registry)["valid"]


def test_a_leavers_lines_go_in_with_its_leave():
    sim = _sim(34)
    sim.run_until(lambda: sim.peers[0].table.phase >= 4)
    _say(sim, 1, "sorry, I must go")
    sim.run(1, sim.peers[1].leave())
    sim.run_until(lambda: sim.peers[1].told(), max_rounds=200)
    sim.dead.add(1)
    for k in sim.live():
        sim.links -= {(k, 1), (1, k)}
        sim.run(k, sim.peers[k].disconnected(sim.keys[1]))
    log = _finish(sim)
    ents = _entries(sim, log)
    [i] = [k for k, e in enumerate(ents) if getattr(e, "kind", None) == "say"]
    assert ents[i + 1].kind == "leave" and ents[i + 1].author == sim.keys[1]


# --------------------------------------------------------------------------- the table refuses


def _log_with_line(seed: int = 35):
    sim = _sim(seed)
    sim.run_until(lambda: sim.peers[0].table.phase >= 4)
    _say(sim, 1, "placed line")
    log = _finish(sim)
    ents = _entries(sim, log)
    [i] = [k for k, e in enumerate(ents) if getattr(e, "kind", None) == "say"]
    return sim, log, i + 1          # the line's entry index


def test_a_log_ending_on_a_line_without_its_answer_is_invalid():
    sim, log, at = _log_with_line()
    with pytest.raises(RuleError, match="without its answer"):
        replay(log[:at + 1], registry)
    report = audit({"log": log_file(log[:at + 1])}, registry)
    assert not report["valid"] and "without its answer" in report["problems"][0]["problem"]


def test_a_line_followed_by_another_seats_entry_is_refused():
    sim, log, at = _log_with_line()
    from core.table import Table
    t = Table.start(log[0], registry)
    for raw in log[1:at + 1]:
        t.append(raw)
    nxt = parse_entry(log[at + 1], keys=sim.keys)
    others = [parse_entry(r, keys=sim.keys) for r in log[at + 1:] if getattr(parse_entry(r, keys=sim.keys), "author", nxt.author) != nxt.author]
    with pytest.raises(RuleError, match="followed by its answer"):
        t.append(others[0])


def test_lines_out_of_place_are_refused_by_the_table():
    sim = _sim(36)
    sim.run_until(lambda: sim.peers[0].table.phase >= 4)
    p = sim.peers[0]
    t = p.table
    st = t.step
    notexp = next((s for s in range(3) if s not in st.seats), None)
    seat = st.seats[0]

    def line(s, text="hi", phase=None):
        return make_event(sim.ids[s].sign, sim.genesis.game_id, sim.keys[s], t.last_seq.get(sim.keys[s], -1) + 1,
                          st.prev, "say", {"phase": st.phase if phase is None else phase, "text": text})

    t.check_event(line(seat))              # fits
    with pytest.raises(RuleError, match="phase"):
        t.check_event(line(seat, phase=st.phase + 1))
    with pytest.raises(RuleError, match="before its last event"):
        t.check_event(line(seat, phase=0))
    with pytest.raises(RuleError, match="control"):
        t.check_event(line(seat, "a\x1bb"))
    with pytest.raises(RuleError, match="too long"):
        t.check_event(line(seat, "x" * (MAX_SAY_BYTES + 1)))
    if notexp is not None:
        with pytest.raises(RuleError, match="not expected"):
            t.check_event(line(notexp))


# --------------------------------------------------------------------------- hostile seats, floods


def test_a_hostile_line_is_refused_in_words_and_the_game_goes_on():
    sim = _sim(37)
    sim.run_until(lambda: sim.peers[0].table.phase >= 4)
    bad = [_hostile(sim, 1, "x" * (MAX_SAY_BYTES + 1))]
    bad.append(_hostile(sim, 1, "clear\x1b[2J"))
    bad += [_hostile(sim, 1, "\u202eflood %d" % i) for i in range(5)]
    bad.append(_hostile(sim, 1, "ok line"))
    for ev in bad:
        for k in (0, 2):
            sim.run(k, sim.peers[k].receive(sim.keys[1], encode(["entry", ev.raw])))
    for k in (0, 2):
        texts = [d["text"] for d in sim.peers[k].talk_lines()]
        assert texts == ["ok line"]
        said = [a for a in sim.alerts(k) if "talk line the rules refuse" in a]
        assert len(said) == 3 and "too long" in said[0] and "U+001B" in said[1] and said[2].endswith("not named")
        assert all("\x1b" not in a for a in sim.alerts(k))
    log = _finish(sim)
    says = [e for e in events_in(_entries(sim, log)) if e.kind == "say"]
    assert [e.body["text"] for e in says] == ["ok line"]
    assert audit({"log": log_file(log)}, registry)["valid"]


def test_a_flood_of_lines_is_bounded():
    sim = _sim(38)
    sim.run_until(lambda: sim.peers[0].table.phase >= 4)
    p1 = sim.peers[1]
    base = p1.next_seq()
    flood = [_hostile(sim, 1, "spam %d" % i, seq=base + i) for i in range(3 * MAX_SEQ_AHEAD)]
    for ev in flood:
        sim.run(0, sim.peers[0].receive(sim.keys[1], encode(["entry", ev.raw])))
    held = [d for d in sim.peers[0].talk_lines() if d["seat"] == 1]
    assert len(held) <= MAX_SEQ_AHEAD
    assert sim.peers[0].refused.get("MAX_SEQ_AHEAD")
    # an honest seat's own peer stops its person well before that: MAX_SAY_PENDING lines waiting for its
    # next move, and one line a second
    sim2 = _sim(39)
    sim2.run_until(lambda: sim2.peers[0].table.phase >= 4)
    sim2.silent.add(2)          # its person thinks: its lines wait for its next move
    p2 = sim2.peers[2]
    for i in range(MAX_SAY_PENDING):
        _say(sim2, 2, "line %d" % i)
        if i == 0:
            assert p2.say_refused("at once") == "one line a second: wait a moment"
    for _ in range(4):
        sim2.tick_all()
    assert p2.say_refused("one more") == "your lines go in the log with your next move; say more after it"
    with pytest.raises(ValueError, match="next move"):
        p2.say("one more")


def test_an_equivocated_line_is_proven_like_any_event():
    sim = _sim(40)
    sim.run_until(lambda: sim.peers[0].table.phase >= 4)
    seq = sim.peers[1].next_seq()
    a = _hostile(sim, 1, "I bid 5", seq=seq)
    b = make_event(sim.ids[1].sign, sim.genesis.game_id, sim.keys[1], seq, a.prev, "say",
                   {"phase": a.body["phase"], "text": "I bid 9"})
    out = sim.peers[0].receive(sim.keys[1], encode(["entry", a.raw]))
    out += sim.peers[0].receive(sim.keys[2], encode(["entry", b.raw]))
    assert any(isinstance(e, Alert) and "equivocated" in e.text for e in out)
    assert any(type(e).__name__ == "Broadcast" and e.msg[:1] and b"proof" in e.msg for e in out)


def test_spectators_and_seats_that_left_cannot_talk():
    sim = _sim(41)
    outsider = Peer(sim.genesis, b"\x99" * 32, lambda m: b"\0" * 64, lambda n: b"\0" * n, timeout=TABLE, games=registry)
    assert "watching" in outsider.say_refused("hi")
    with pytest.raises(ValueError, match="only the seats"):
        outsider.say("hi")
    sim.run_until(lambda: sim.peers[0].table.phase >= 4)
    sim.run(1, sim.peers[1].leave())
    assert "left the table" in sim.peers[1].say_refused("hi")


# --------------------------------------------------------------------------- the records: audit, export, show


def test_the_audit_the_page_and_history_name_each_line_and_the_page_lists_lines_said_after_the_game(tmp_path):
    import json

    from cli.export import build_page, talk_after
    from cli.history import audit_lines
    from core.audit import audit as audit_all

    sim = _sim(42)
    sim.run_until(lambda: sim.peers[0].table.phase >= 4)
    _say(sim, 2, "<b>nice</b> & fair")
    log = _finish(sim)
    _say(sim, 0, "good game")           # after its last answer: never placed
    gd = tmp_path / "game"
    gd.mkdir()
    (gd / "log").write_bytes(log_file(log))
    from .helpers import spool_file
    mine = [e.raw for e in sim.peers[0].replica.own_events() if e.kind == "say"]
    (gd / "spool").write_bytes(spool_file(mine))
    rep = audit_all({"log": log_file(log)}, registry)
    lines = audit_lines(rep, 3)
    assert any(line.strip().endswith("Cy: <b>nice</b> & fair") for line in lines), lines
    assert talk_after(str(gd / "log"), log) == [{"seat": 0, "seq": parse_entry(mine[0]).seq, "text": "good game"}]
    page = build_page(str(gd / "log"), (gd / "log").read_bytes(), None)
    assert "Table talk (1)" in page and "Cy: &lt;b&gt;nice&lt;/b&gt; &amp; fair" in page
    assert "Said after its last move (not in the log) (1)" in page and "Ann: good game" in page
    assert "<b>nice</b> & fair" not in page.split("<script")[0].replace("\\u003c", "<")
    from .netutil import easel
    shown = easel("show", gd / "log", home=tmp_path / "home")
    assert shown.returncode == 0, shown.stderr
    assert [(d["seat"], d["text"]) for d in json.loads(shown.stdout)["said"]] == [(2, "<b>nice</b> & fair")]
    from cli.history import read_past_game
    g = read_past_game(gd / "log", None)
    assert any(line.startswith("said: Cy: <b>nice</b> & fair (entry ") for line in g.details())
    assert g.row()["said"][0]["text"] == "<b>nice</b> & fair"


def test_a_roll_back_cuts_a_line_to_the_spool_and_places_it_again_with_its_authors_next_answer():
    """Seat 1 commits in phase 2, says a line, then its reveal (phase 3) reaches nobody: its own log places
    [line, reveal] in phase 3, the others time it out there; the certificate rolls seat 1's log back, and
    every log places the line just before seat 1's next answer (its commit in phase 4; its reveal, which
    reaches the others once seat 1 has rolled back, stays out of the log as before)."""
    from core.events import Event, Timeout
    from p2p.effects import TruncateLog, WriteLog

    from .netutil import entry_raws

    sim = Sim(3, seed=22, timeout=2.0)
    late = 1

    def withhold(src, dst, msg):      # until seat 1 has rolled back (then repair brings its reveal: an orphan)
        return src == late and not sim.effects_of(late, TruncateLog) and any(isinstance(e := parse_entry(r), Event) and e.kind == "reveal" and e.body["phase"] == 3
                                   for r in entry_raws(msg))

    sim.block = withhold
    sim.start()
    p = sim.peers[late]
    for _ in range(20000):          # one message at a time: the moment lasts only part of a round
        if p.table.phase == 2 and p.my_event_in_step() is not None:
            break
        sim.deliver_one() if sim.queue else sim.tick_all()
    assert p.table.phase == 2 and p.my_event_in_step() is not None
    sim.run(late, p.say("one moment"))
    sim.run_until(max_rounds=5000)
    # seat 1 placed the line with its reveal first, then rolled back
    first = [parse_entry(r) for eff in sim.effects_of(late, WriteLog) for r in eff.entries]
    k = next(i for i, e in enumerate(first) if isinstance(e, Event) and e.kind == "say")
    assert first[k + 1].kind == "reveal" and first[k + 1].body["phase"] == 3 and first[k + 1].author == sim.keys[late]
    assert sim.effects_of(late, TruncateLog)
    logs = [sim.peers[k].log_entries for k in range(3)]
    assert logs[0] == logs[1] == logs[2] and sim.peers[0].table.over
    ents = _entries(sim, logs[0])
    cert = next(e for e in ents if isinstance(e, Timeout))
    assert cert.phase == 3 and cert.seats == (late,)
    [i] = [j for j, e in enumerate(ents) if getattr(e, "kind", None) == "say"]
    nxt = ents[i + 1]
    assert nxt.author == sim.keys[late] and nxt.kind == "commit" and nxt.body["phase"] == 4
    assert audit({"log": log_file(logs[0])}, registry)["valid"]


def test_a_spectator_is_sent_the_lines_not_placed_yet_and_checks_each():
    """The ``said`` frame (§9.8): a seat's feed sends the lines it holds that its log has not placed, once on
    each change; the spectator shows them by name beside the placed ones, and stops at a line it must refuse."""
    from core.encoding import decode
    from p2p.spectators import MAX_SAID, Feed
    from p2p.watch import Watched, take_said
    from core.table import Table

    sim = _sim(43)
    sim.run_until(lambda: sim.peers[0].table.phase >= 4)
    sim.silent.add(2)
    _say(sim, 2, "thinking...")
    for src, dst, msg in [q for q in sim.queue if q[:2] == (2, 0)]:
        sim.deliver(src, dst, msg)
    p0 = sim.peers[0]
    feed = Feed(0.0)
    while feed.entry(p0.log_entries) is not None:
        pass
    frame = feed.said(p0.unplaced_talk())
    assert frame is not None and feed.said(p0.unplaced_talk()) is None      # once, then only on a change
    kind, items = decode(frame)
    w = Watched(table=Table.start(p0.log_entries[0], registry), entries=[p0.log_entries[0]])
    for raw in p0.log_entries[1:]:
        w.table.append(raw)
    take_said(w, items)
    assert kind == "said" and [(d["seat"], d["text"]) for d in w.talk()] == [(2, "thinking...")]
    bad = make_event(sim.ids[1].sign, sim.genesis.game_id, sim.keys[1], 50, w.table.head, "say", {"phase": 4, "text": "a\x1b"})
    with pytest.raises(EntryError, match="refuse"):
        take_said(w, [bad.raw])
    with pytest.raises(EntryError):
        take_said(w, [items[0]] * (MAX_SAID + 1))
    # a spectator's screen shows it by name
    from cli.snapshot import snapshot_of
    snap = snapshot_of(w.table, None, talk=w.talk())
    assert any("Cy: thinking..." in text for _, text in snap.log)


@pytest.mark.parametrize("seed", range(5))
def test_peers_under_lost_duplicated_and_reordered_frames_write_one_log_with_talk(seed):
    """A property over seeds: seats say lines at random moments while frames are lost, duplicated and
    reordered; every peer finishes with the same bytes, the audit of the log is valid, and every line
    said before its author's last answer is in it."""
    sim = Sim(3, seed=100 + seed, timeout=TABLE, tick=0.25, drop=0.1, dup=0.1, names=["Ann", "Bo", "Cy"])
    sim.start()
    rng = random.Random(seed)
    said = []
    for r in range(4000):
        if sim.settled():
            break
        if rng.random() < 0.5:
            k = rng.randrange(3)
            text = "line %d of %s" % (r, "ABC"[k])
            if not sim.peers[k].table.over and sim.peers[k].say_refused(text) == "":
                sim.run(k, sim.peers[k].say(text))
                said.append((k, text))
        sim.round()
    assert sim.settled()
    log = sim.peers[0].log_entries
    report = audit({"log": log_file(log)}, registry)
    assert report["valid"] and report["complete"]
    placed = [(d["seat"], d["text"]) for d in report["said"]]
    assert placed and set(placed) <= set(said)
    t = replay(log, registry)
    assert all(sim.peers[k].table.over for k in range(3))
    # a line is missing from the log only if its author answered nothing after it
    for k, text in said:
        if (k, text) not in placed:
            ev = next(e for e in sim.peers[k].replica.own_events() if e.kind == "say" and e.body["text"] == text)
            assert ev.seq > t.last_seq[sim.keys[k]], (k, text)


def test_a_move_cut_after_a_line_is_still_evidence_live_and_in_the_audit():
    """Seat 2 says a line, then its move commit for phase 2 reaches nobody before the others vote it out:
    the line goes in with its next answer (phase 4), and its cut move, one seq above the line, fits its
    chain (a certificate's ``next`` counts the seat's next answer, not its lines): named a cut move by its
    own peer and by the audit of its files, never "signed afterwards"."""
    from core.audit import audit as audit_all
    from core.events import Event
    from p2p.effects import TruncateLog

    from .helpers import spool_file
    from .netutil import entry_raws

    sim = Sim(3, seed=22, timeout=2.0)
    late = 2

    def withhold(src, dst, msg):
        return src == late and not sim.effects_of(late, TruncateLog) and any(
            isinstance(e := parse_entry(r), Event) and e.kind == "commit" and e.body["phase"] == 2 for r in entry_raws(msg))

    sim.block = withhold
    sim.silent.add(late)
    sim.start()
    p = sim.peers[late]
    for _ in range(20000):
        if p.table.phase == 2 and p.table.step.kind == "commit":
            break
        sim.deliver_one() if sim.queue else sim.tick_all()
    sim.run(late, p.say("my move is coming"))
    sim.silent.discard(late)
    sim.decide(late)
    sim.run_until(max_rounds=5000)
    logs = [sim.peers[k].log_entries for k in range(3)]
    assert logs[0] == logs[1] == logs[2]
    ents = _entries(sim, logs[0])
    [i] = [j for j, e in enumerate(ents) if getattr(e, "kind", None) == "say"]
    assert ents[i + 1].author == sim.keys[late] and ents[i + 1].body["phase"] == 4
    assert (2, late) in p.cut_moves and (2, late) not in p.signed_afterwards
    rep = audit_all({"log": log_file(logs[0]), "spool": spool_file([e.raw for e in p.replica.own_events()])}, registry)
    assert rep["valid"] and [(c["phase"], c["seat"]) for c in rep["cut_moves"]] == [(2, late)]
    assert not rep["signed_afterwards"]
