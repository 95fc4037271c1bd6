"""Offline audit (core/audit.py, protocol.md §11): every tampering named with file and entry index."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nacl.signing import SigningKey

from core.audit import audit
from core.encoding import encode
from core.events import make_event, parse_entry, parse_event, Event
from core.logfile import LOG_MAGIC, SPOOL_MAGIC, encode_record
from core.table import replay

from .helpers import (
    GAMES,
    Builder,
    HandTable,
    log_file,
    records_of,
    salt_for,
    signer,
    simulate,
    simulated,
    spool_file,
)

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
FOREIGN = SigningKey(b"\x66" * 32)


def game(n=3, seed=1, rounds=2):
    return simulated(n, seed, rounds)


def problems(rep, name=None):
    out = [p for p in rep["problems"] if "problem" in p]
    if name is not None:
        out = [p for p in out if p["file"] == name]
    return out


def indexes(rep, name="game.log"):
    return sorted({p["index"] for p in problems(rep, name)})


def assert_named(rep, index, name="game.log"):
    assert rep["valid"] is False
    assert rep["complete"] is False
    assert problems(rep), rep
    assert indexes(rep, name) == [index], rep["problems"]


def step_bounds(entries):
    """[(first index, last index)] of every step's batch in a log."""
    t = replay(entries, GAMES)
    starts = sorted(c for c, _ in t.starts.values())
    bounds = []
    for a, b in zip(starts, starts[1:] + [len(entries)]):
        if b > a:
            bounds.append((a, b - 1))
    return bounds


def events_at(entries):
    return [i for i, raw in enumerate(entries) if i and isinstance(parse_entry(raw), Event)]


# --------------------------------------------------------------------------- valid logs


def test_valid_finished_log():
    g, sks, peers = simulate(3, 21)
    entries = peers[0].log_entries
    rep = audit({"game.log": log_file(entries)}, GAMES)
    assert rep["valid"] is True and rep["complete"] is True
    assert rep["problems"] == []
    assert rep["results"] == peers[0].table.result() is not None
    assert rep["game"] == "toy"
    assert rep["game_id"] == g.game_id.hex()
    assert rep["head"] == peers[0].table.head.hex()
    assert rep["events"] == len(entries)
    json.dumps(rep)  # the --json output is JSON-serialisable


def test_valid_finished_painting_log():
    """A real Painting Game log audits with the default registry (core.games) alone."""
    import core.games

    g, sks, peers = simulate(3, 21, config={"rounds": 2}, game="painting")
    entries = peers[0].log_entries
    rep = audit({"game.log": log_file(entries)}, core.games)
    assert rep["valid"] is True and rep["complete"] is True and rep["problems"] == []
    assert rep["game"] == "painting" and rep["head"] == peers[0].table.head.hex()
    assert rep["results"] == peers[0].table.result() is not None
    # a registry that does not know the game names it as the genesis problem
    from .toy_game import TOY_REGISTRY

    rep = audit({"game.log": log_file(entries)}, TOY_REGISTRY)
    assert rep["valid"] is False and rep["problems"][0]["index"] == 0
    assert "unknown game 'painting'" in rep["problems"][0]["problem"]


def test_illegal_sealed_toy_move_is_a_note_not_a_problem():
    h = HandTable(2, config={"rounds": 1}, game="toy")
    h.seed()
    h.sealed({0: {"guess": 9}, 1: {"guess": 3}})
    at = len(h.entries) - 1
    rep = audit({"hand.log": log_file(h.entries)}, GAMES)
    assert rep["valid"] is True and rep["complete"] is False
    assert [n["seat"] for n in rep["notes"] if n["index"] == at] == [0], rep["notes"]
    assert [m[3] for m in h.t.moves if m[2] == 0] == [{"guess": 1}]   # the default action


def test_valid_log_audited_with_every_peer_copy_and_spool():
    g, sks, peers = simulate(3, 22, config={"rounds": 2})
    files = {"p%d.log" % i: log_file(p.log_entries) for i, p in enumerate(peers)}
    files["p0.spool"] = spool_file(peers[0].log_entries[1:6])  # copies of logged events: no equivocation
    rep = audit(files, GAMES)
    assert rep["valid"] is True and rep["complete"] is True, rep["problems"]


def test_valid_but_unfinished_log():
    g, sks, entries = game()
    rep = audit({"game.log": log_file(entries[:-1])}, GAMES)
    assert rep["valid"] is True and rep["complete"] is False
    assert rep["results"] is None
    rep = audit({"game.log": log_file(entries[:1])}, GAMES)
    assert rep["valid"] is True and rep["complete"] is False


# --------------------------------------------------------------------------- tampering inside entries


def flip_entry(entries, k, pos, xor=0x01):
    out = list(entries)
    b = bytearray(out[k])
    b[pos % len(b)] ^= xor
    out[k] = bytes(b)
    return out


@pytest.mark.parametrize("k", [0, 1, 5, -1])
def test_flipped_byte_with_fixed_crc_named(k):
    g, sks, entries = game()
    k = k % len(entries)
    for pos in (0, 3, len(entries[k]) // 2, len(entries[k]) - 1):
        data = log_file(flip_entry(entries, k, pos))  # log_file writes correct CRCs
        assert_named(audit({"game.log": data}, GAMES), k)


@settings(max_examples=60, **SETTINGS)
@given(st.data())
def test_flipped_byte_property(data):
    g, sks, entries = game(3, 2)
    k = data.draw(st.integers(0, len(entries) - 1))
    pos = data.draw(st.integers(0, len(entries[k]) - 1))
    xor = data.draw(st.integers(1, 255))
    rep = audit({"game.log": log_file(flip_entry(entries, k, pos, xor))}, GAMES)
    assert_named(rep, k)


def record_offset(entries, k):
    return len(LOG_MAGIC) + sum(8 + len(e) for e in entries[:k])


@pytest.mark.parametrize("where", ["entry", "crc", "length"])
def test_corrupt_record_in_the_middle_only_crc_catches(where):
    g, sks, entries = game()
    k = 4
    data = bytearray(log_file(entries))
    off = record_offset(entries, k)
    if where == "entry":
        data[off + 4 + 10] ^= 0x40
    elif where == "crc":
        data[off + 4 + len(entries[k])] ^= 0x01
    else:
        data[off + 3] ^= 0x01  # the record's length: the CRC no longer lines up
    rep = audit({"game.log": bytes(data)}, GAMES)
    assert rep["valid"] is False
    assert indexes(rep)[0] == k
    assert all(p["index"] == k for p in problems(rep))


def test_corrupt_last_record_is_a_torn_tail():
    g, sks, entries = game()
    data = bytearray(log_file(entries))
    data[-1] ^= 0xFF
    rep = audit({"game.log": bytes(data)}, GAMES)
    assert_named(rep, len(entries) - 1)
    assert any("torn" in p["problem"] for p in problems(rep))


@pytest.mark.parametrize("cut", [1, 4, 5, 9, 30])
def test_truncated_file_reports_torn_tail(cut):
    g, sks, entries = game()
    data = log_file(entries)
    last = len(entries) - 1
    rep = audit({"game.log": data[:-cut]}, GAMES)
    assert rep["valid"] is False and rep["complete"] is False
    torn = [p for p in problems(rep) if "torn" in p["problem"]]
    assert torn and torn[0]["index"] == last


def test_truncated_in_the_middle():
    g, sks, entries = game()
    data = log_file(entries)
    off = record_offset(entries, 6)
    rep = audit({"game.log": data[: off + 7]}, GAMES)
    assert_named(rep, 6)


# --------------------------------------------------------------------------- dropped, swapped, re-signed events


def test_dropped_last_event_of_a_batch():
    g, sks, entries = game()
    for first, last in step_bounds(entries)[1:-1]:
        dropped = entries[:last] + entries[last + 1 :]
        assert_named(audit({"game.log": log_file(dropped)}, GAMES), last)


def test_dropped_event_anywhere():
    g, sks, entries = game()
    bounds = step_bounds(entries)
    for k in range(1, len(entries)):
        dropped = entries[:k] + entries[k + 1 :]
        rep = audit({"game.log": log_file(dropped)}, GAMES)
        step_end = next(b for a, b in bounds if a <= k <= b)
        if step_end == len(entries) - 1:
            # a move missing from the last step: what is left is a valid, unfinished log
            assert rep["valid"] is True and rep["complete"] is False, k
            continue
        assert rep["valid"] is False, k
        # the log goes wrong at the first entry that no longer fits: within what was k's step
        assert k <= indexes(rep)[0] <= step_end, (k, rep["problems"])


def test_dropped_record_from_the_file_bytes():
    g, sks, entries = game()
    data = log_file(entries)
    k = 3
    a, b = record_offset(entries, k), record_offset(entries, k + 1)
    rep = audit({"game.log": data[:a] + data[b:]}, GAMES)
    assert rep["valid"] is False


def test_swapped_events_in_a_batch():
    g, sks, entries = game()
    first, last = step_bounds(entries)[1]
    swapped = list(entries)
    swapped[first], swapped[first + 1] = swapped[first + 1], swapped[first]
    assert_named(audit({"game.log": log_file(swapped)}, GAMES), first + 1)


def test_swapped_events_across_steps():
    g, sks, entries = game()
    (a1, b1), (a2, b2) = step_bounds(entries)[1:3]
    swapped = list(entries)
    swapped[b1], swapped[a2] = swapped[a2], swapped[b1]
    assert_named(audit({"game.log": log_file(swapped)}, GAMES), b1)


def resign(raw, sk, author=None):
    e = parse_event(raw)
    return make_event(signer(sk), e.game_id, author if author is not None else e.author, e.seq, e.prev, e.kind, e.body).raw


def test_event_resigned_by_a_foreign_key():
    g, sks, entries = game()
    for k in events_at(entries)[2:8:2]:
        # the foreign key as author: holds no seat
        bad = list(entries)
        bad[k] = resign(entries[k], FOREIGN, author=bytes(FOREIGN.verify_key))
        assert_named(audit({"game.log": log_file(bad)}, GAMES), k)
        # the seat's key as author, signed by the foreign key
        bad[k] = resign(entries[k], FOREIGN)
        assert_named(audit({"game.log": log_file(bad)}, GAMES), k)


def test_event_signed_by_another_seats_key():
    g, sks, entries = game()
    keys = [bytes(sk.verify_key) for sk in sks]
    for k in events_at(entries)[1:9:3]:
        e = parse_event(entries[k])
        seat = keys.index(e.author)
        other = sks[(seat + 1) % len(sks)]
        bad = list(entries)
        bad[k] = resign(entries[k], other)                  # author unchanged, wrong signer
        assert_named(audit({"game.log": log_file(bad)}, GAMES), k)


def test_genesis_signature_by_a_foreign_key():
    g, sks, entries = game()
    from core.events import genesis_sign_msg

    sigs = list(g.sigs)
    sigs[1] = FOREIGN.sign(genesis_sign_msg(g.game_id)).signature
    raw = encode(["easel-genesis", 1, g.doc, sigs])
    rep = audit({"game.log": log_file([raw] + entries[1:])}, GAMES)
    assert_named(rep, 0)


def test_reordered_and_replayed_entry():
    g, sks, entries = game()
    dup = entries[:5] + [entries[3]] + entries[5:]
    assert_named(audit({"game.log": log_file(dup)}, GAMES), 5)


# --------------------------------------------------------------------------- equivocation


def alternative(raw, sk):
    """Another event by the same author with the same seq (a different body)."""
    e = parse_event(raw)
    body = dict(e.body)
    if e.kind == "commit":
        body["hash"] = bytes(b ^ 0xFF for b in body["hash"])
    elif e.kind == "reveal":
        body["salt"] = bytes(b ^ 0xFF for b in body["salt"])
    else:
        body["action"] = [body["action"]]
    return make_event(signer(sk), e.game_id, e.author, e.seq, e.prev, e.kind, body).raw


def key_seat(sks, raw):
    keys = [bytes(sk.verify_key) for sk in sks]
    return keys.index(parse_event(raw).author)


def test_equivocation_between_log_and_spool():
    g, sks, entries = game()
    k = events_at(entries)[4]
    alt = alternative(entries[k], sks[key_seat(sks, entries[k])])
    rep = audit({"game.log": log_file(entries), "peer.spool": spool_file([entries[2], alt])}, GAMES)
    assert rep["valid"] is False
    eq = [p for p in problems(rep) if "equivocation" in p["problem"]]
    assert len(eq) == 1
    assert eq[0]["file"] == "peer.spool" and eq[0]["index"] == 1
    assert "game.log" in eq[0]["problem"]


def test_equivocation_between_two_logs():
    g, sks, entries = game()
    k = events_at(entries)[0]  # seat 0's seed commit: an alternative is valid in its own log
    alt = alternative(entries[k], sks[key_seat(sks, entries[k])])
    other = entries[:k] + [alt]
    assert audit({"other.log": log_file(other)}, GAMES)["valid"] is True  # valid on its own
    rep = audit({"game.log": log_file(entries), "other.log": log_file(other)}, GAMES)
    assert rep["valid"] is False
    assert any("equivocation" in p["problem"] for p in problems(rep))


def test_equivocation_within_one_spool():
    g, sks, entries = game()
    k = events_at(entries)[3]
    alt = alternative(entries[k], sks[key_seat(sks, entries[k])])
    rep = audit({"game.log": log_file(entries[:2]), "a.spool": spool_file([entries[k], alt])}, GAMES)
    assert any("equivocation" in p["problem"] for p in problems(rep))


def test_forged_second_event_is_not_an_equivocation():
    g, sks, entries = game()
    k = events_at(entries)[4]
    seat = key_seat(sks, entries[k])
    forged = alternative(entries[k], sks[(seat + 1) % 3])  # the author's key, another's signature
    rep = audit({"game.log": log_file(entries), "x.spool": spool_file([forged])}, GAMES)
    assert not any("equivocation" in p["problem"] for p in problems(rep))
    assert rep["valid"] is True


def test_forged_event_seen_first_does_not_hide_an_equivocation():
    g, sks, entries = game()
    k = events_at(entries)[4]
    seat = key_seat(sks, entries[k])
    forged = alternative(entries[k], sks[(seat + 1) % 3])  # bad signature
    e = parse_event(entries[k])
    body = dict(e.body)
    key = "hash" if e.kind == "commit" else "salt"
    body[key] = b"\x5a" * 32
    alt = make_event(signer(sks[seat]), e.game_id, e.author, e.seq, e.prev, e.kind, body).raw
    assert alt != entries[k] and alt != forged
    rep = audit({"a.spool": spool_file([forged]), "game.log": log_file(entries), "b.spool": spool_file([alt])}, GAMES)
    assert any("equivocation" in p["problem"] for p in problems(rep)), rep["problems"]


# --------------------------------------------------------------------------- several logs


def test_two_logs_that_disagree():
    h = HandTable(3, game="toy")
    st_ = h.t.step
    a = h.b.commit(0, 0, st_.prev, b"\x01" * 32, salt_for(0, 0), seq=0)
    b = h.b.commit(0, 0, st_.prev, b"\x02" * 32, salt_for(0, 0), seq=1)  # no equivocation: other seq
    log_a = log_file([h.g.raw, a.raw])
    log_b = log_file([h.g.raw, b.raw])
    for one in (log_a, log_b):
        assert audit({"x.log": one}, GAMES)["valid"] is True
    rep = audit({"a.log": log_a, "b.log": log_b}, GAMES)
    assert rep["valid"] is False
    assert any("disagree" in p["problem"] for p in problems(rep))
    assert not any("equivocation" in p["problem"] for p in problems(rep))


def test_two_logs_one_a_prefix_agree():
    g, sks, entries = game()
    rep = audit({"a.log": log_file(entries), "b.log": log_file(entries[:7])}, GAMES)
    assert rep["valid"] is True
    assert not problems(rep)
    assert rep["events"] == len(entries)


def test_two_complete_logs_that_diverge_disagree():
    g, sks, entries = game()
    # a different, equally valid continuation: seat 0's seed commit replaced (other seq)
    k = events_at(entries)[0]
    e = parse_event(entries[k])
    alt = make_event(signer(sks[0]), e.game_id, e.author, e.seq + 100, e.prev, e.kind, {"phase": 0, "hash": b"\x33" * 32}).raw
    rep = audit({"a.log": log_file(entries), "b.log": log_file(entries[:k] + [alt])}, GAMES)
    assert rep["valid"] is False
    assert any("disagree" in p["problem"] for p in problems(rep))


def test_logs_of_different_games():
    g1, _, e1 = game(3, 1)
    g2, _, e2 = game(3, 2)
    rep = audit({"a.log": log_file(e1), "b.log": log_file(e2)}, GAMES)
    assert not any("disagree" in p["problem"] for p in problems(rep))
    if "logs" in rep:  # the audit reports every game it was given
        assert {l["game_id"] for l in rep["logs"]} == {g1.game_id.hex(), g2.game_id.hex()}
        assert rep["valid"] is True
    else:
        assert rep["valid"] is False
    # a tampered log of the second game is named, whatever the first
    bad = flip_entry(e2, 3, 10)
    rep = audit({"a.log": log_file(e1), "b.log": log_file(bad)}, GAMES)
    assert rep["valid"] is False
    assert indexes(rep, "b.log") == [3] and indexes(rep, "a.log") == []


# --------------------------------------------------------------------------- not logs at all


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"EASEL-LOG/1",
        LOG_MAGIC,
        b"EASEL-LOG/2\n" + encode_record(b"\x90"),
        b"not a log at all",
        b"\x00" * 100,
        LOG_MAGIC + encode_record(b"\x90"),
        LOG_MAGIC + encode_record(encode(["easel-event", 1])),
        LOG_MAGIC + b"\xff\xff\xff\xff" + b"x" * 20,
        LOG_MAGIC + b"\x00\x00\x00\x00" + b"x" * 20,
    ],
)
def test_not_a_valid_log_is_invalid_not_a_crash(data):
    rep = audit({"f": data}, GAMES)
    assert rep["valid"] is False
    assert rep["complete"] is False
    json.dumps(rep)


def test_spool_alone_is_not_a_valid_log():
    g, sks, entries = game()
    rep = audit({"s": spool_file(entries[1:])}, GAMES)
    assert rep["valid"] is False


def test_nothing_to_audit():
    rep = audit({}, GAMES)
    assert rep["valid"] is False


def test_log_whose_first_entry_is_an_event():
    g, sks, entries = game()
    assert_named(audit({"game.log": log_file(entries[1:])}, GAMES), 0)


def test_entry_after_the_end():
    g, sks, entries = game()
    assert_named(audit({"game.log": log_file(entries + [entries[-1]])}, GAMES), len(entries))


# --------------------------------------------------------------------------- what protocol.md §11 says of indexes, events and ties


def _diverging_logs():
    """Two valid logs of one game with the same number of records that differ at entry k."""
    g, sks, entries = game()
    k = events_at(entries)[0]
    e = parse_event(entries[k])
    alt = make_event(signer(sks[0]), e.game_id, e.author, e.seq + 100, e.prev, e.kind, {"phase": 0, "hash": b"\x33" * 32}).raw
    return entries[: k + 1], entries[:k] + [alt], k


def test_equal_length_logs_that_disagree_name_the_first_given_and_report_the_last_as_main():
    a, b, k = _diverging_logs()
    assert len(a) == len(b)
    heads = {"a.log": replay(a, GAMES).head.hex(), "b.log": replay(b, GAMES).head.hex()}
    for first, last in (("a.log", "b.log"), ("b.log", "a.log")):
        files = {first: log_file(a if first == "a.log" else b), last: log_file(a if last == "a.log" else b)}
        rep = audit(files, GAMES)
        assert rep["valid"] is False
        # the reference is the last file given: the first one gets the problem ...
        assert problems(rep) == [{"file": first, "index": k, "problem": "log disagrees with %s from this entry on" % last}]
        # ... and the main log (head, events) is that reference, never the file named
        assert rep["head"] == heads[last] and rep["events"] == len(a)
        # each log's own entry in "logs" keeps its single-file verdict, in the order given
        assert [(l["file"], l["valid"], l["head"]) for l in rep["logs"]] == [(first, True, heads[first]), (last, True, heads[last])]


def test_longer_log_is_the_reference_and_the_main_log_whatever_the_order():
    a, b, k = _diverging_logs()
    longer = b + [b"\x90"]   # one more record (it does not replay: the file is invalid on its own too)
    for files in ({"a.log": log_file(a), "b.log": log_file(longer)}, {"b.log": log_file(longer), "a.log": log_file(a)}):
        rep = audit(files, GAMES)
        assert [p for p in problems(rep) if "disagrees" in p["problem"]] == [
            {"file": "a.log", "index": k, "problem": "log disagrees with b.log from this entry on"}
        ]
        assert rep["events"] == len(longer) and rep["head"] == replay(b, GAMES).head.hex()


def test_format_problem_index_is_the_count_of_good_records_and_events_counts_them():
    g, sks, entries = game()
    k = 5
    # torn tail after k good records
    rep = audit({"game.log": log_file(entries[: k + 1])[:-3]}, GAMES)
    assert problems(rep) == [
        {"file": "game.log", "index": k, "problem": "torn record at the end of the file (offset %d)" % record_offset(entries, k)}
    ]
    assert rep["events"] == k and rep["head"] == replay(entries[:k], GAMES).head.hex()
    # corruption at record k with good records after it: they are ignored
    data = bytearray(log_file(entries))
    data[record_offset(entries, k) + 4 + len(entries[k])] ^= 0x01   # record k's CRC
    rep = audit({"game.log": bytes(data)}, GAMES)
    assert problems(rep) == [{"file": "game.log", "index": k, "problem": "record %d: checksum mismatch" % k}]
    assert rep["events"] == k and rep["logs"][0]["events"] == k
    # a bad magic: index 0 and nothing more
    rep = audit({"game.log": b"EASEL-LOG/2\n" + log_file(entries)[len(LOG_MAGIC):]}, GAMES)
    assert problems(rep) == [{"file": "game.log", "index": 0, "problem": "not an Easel log file (bad magic)"}]
    assert rep["events"] == 0 and rep["head"] is None and rep["logs"] == []


def test_a_torn_spool_makes_the_audit_invalid():
    g, sks, entries = game()
    rep = audit({"game.log": log_file(entries), "p.spool": spool_file(entries[1:4])[:-2]}, GAMES)
    assert rep["valid"] is False
    assert problems(rep) == [{"file": "p.spool", "index": 2, "problem": "torn record at the end of the file (offset %d)" % (len(SPOOL_MAGIC) + 8 + len(entries[1]) + 8 + len(entries[2]))}]
    assert [l["valid"] for l in rep["logs"]] == [True]


@pytest.mark.parametrize(
    "data, torn",
    [(b"", False), (LOG_MAGIC, False), (b"E", True), (b"EASEL-LOG/1", True), (b"EASEL-SP", True), (b"EASEL-SECRETS/1", True)],
)
def test_empty_file_vs_torn_magic(data, torn):
    rep = audit({"f": data}, GAMES)
    want = [{"file": "f", "index": 0, "problem": "log has no genesis entry"}]
    if torn:
        want.insert(0, {"file": "f", "index": 0, "problem": "torn record at the end of the file (offset 0)"})
    assert problems(rep) == want
    assert rep["valid"] is False and rep["events"] == 0 and rep["head"] is None and rep["logs"] == []


def test_replay_failure_head_stops_but_events_counts_every_record():
    g, sks, entries = game()
    i = 6
    bad = entries[:i] + [entries[i - 1]] + entries[i + 1 :]   # entry i replays an earlier event
    rep = audit({"game.log": log_file(bad)}, GAMES)
    assert indexes(rep) == [i]
    assert rep["events"] == len(bad) and rep["head"] == replay(entries[:i], GAMES).head.hex()
    # entry 1 failing: the head is the genesis head
    rep = audit({"game.log": log_file([entries[0], entries[0]] + entries[2:])}, GAMES)   # a second genesis
    assert indexes(rep) == [1] and rep["head"] == replay(entries[:1], GAMES).head.hex()


def test_invalid_genesis_is_not_a_game_log():
    g, sks, entries = game()
    from core.events import genesis_sign_msg

    sigs = list(g.sigs)
    sigs[1] = FOREIGN.sign(genesis_sign_msg(g.game_id)).signature
    forged = encode(["easel-genesis", 1, g.doc, sigs])
    rep = audit({"bad.log": log_file([forged] + entries[1:])}, GAMES)
    assert [(p["index"], p["problem"].startswith("genesis: ")) for p in problems(rep)] == [(0, True)]
    assert rep["logs"] == [] and rep["events"] == 0
    assert rep["game"] is None and rep["game_id"] is None and rep["head"] is None and rep["results"] is None
    # beside a valid log: that one is the main log, and the bad file is in no agreement group
    rep = audit({"bad.log": log_file([forged] + entries[1:]), "good.log": log_file(entries[:4])}, GAMES)
    assert [l["file"] for l in rep["logs"]] == ["good.log"] and rep["events"] == 4
    assert [p["file"] for p in problems(rep)] == ["bad.log"]
    # its events are still searched for equivocation
    k = events_at(entries)[2]
    alt = alternative(entries[k], sks[key_seat(sks, entries[k])])
    rep = audit({"good.log": log_file(entries), "bad.log": log_file([forged, alt])}, GAMES)
    eq = [p for p in problems(rep) if "equivocation" in p["problem"]]
    assert [(p["file"], p["index"]) for p in eq] == [("bad.log", 1)]


def test_an_entry_its_own_author_altered_and_resigned_breaks_the_chain_at_the_next_step_naming_its_maker():
    """A seat that re-signs one of its own events with other content (its key, a valid signature)
    cannot re-sign the others' later events: the audit stops at the first of those, says the chain
    was broken before it, and names the seat(s) that made the step before as the suspects."""
    g, sks, entries = game()
    for k in events_at(entries)[2:]:
        e = parse_entry(entries[k])
        nxt = k + 1
        while nxt < len(entries) and parse_entry(entries[nxt]).prev == e.prev:
            nxt += 1
        if nxt >= len(entries) or not isinstance(parse_entry(entries[nxt]), Event):
            continue
        step_seats = sorted(key_seat(sks, entries[i]) for i in range(k, nxt))
        if len(step_seats) != 1 or e.kind != "act":
            continue            # a one-seat open move: its author alone made the step
        seat = key_seat(sks, entries[k])
        action = e.body["action"]
        if not (isinstance(action, dict) and "target" in action):
            continue
        body = dict(e.body, action={"target": action["target"] % 6 + 1})     # another legal target
        bad = list(entries)
        bad[k] = make_event(signer(sks[seat]), e.game_id, e.author, e.seq, e.prev, e.kind, body).raw
        rep = audit({"game.log": log_file(bad)}, GAMES)
        probs = problems(rep)
        assert rep["valid"] is False and len(probs) == 1, probs
        text = probs[0]["problem"]
        assert probs[0]["index"] == nxt
        assert "another history" in text and "altered, added or removed" in text, text
        assert "made by seat %d" % seat in text, text
        assert "seat %d signed" % key_seat(sks, entries[nxt]) in text
        return
    pytest.fail("no leader's target step followed by an event in the toy log")


def test_a_commitment_its_own_author_altered_and_resigned_is_named_by_its_own_reveal():
    """A seat that signs another commitment after the others saw its first one breaks the chain
    at the reveal step (the others' reveals were signed after the first): the audit stops there
    and names the seat whose own reveal does not open the commitment logged for it."""
    g, sks, entries = game()
    for k in events_at(entries):
        e = parse_entry(entries[k])
        if e.kind != "commit":
            continue
        seat = key_seat(sks, entries[k])
        bad = list(entries)
        bad[k] = make_event(signer(sks[seat]), e.game_id, e.author, e.seq, e.prev, e.kind,
                            dict(e.body, hash=bytes(32))).raw
        rep = audit({"game.log": log_file(bad)}, GAMES)
        probs = problems(rep)
        assert rep["valid"] is False and len(probs) == 1, probs
        text = probs[0]["problem"]
        assert "another history" in text, text
        assert "seat %d altered its commitment and signed it again" % seat in text, text
        assert "commitment logged for it at entry %d" % k in text, text
        return
    pytest.fail("no commit in the toy log")
