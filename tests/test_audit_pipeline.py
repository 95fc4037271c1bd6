"""The fast audit (parse all, replay while signatures are checked, merge) reports exactly what
checking the entries one after the other and stopping at the first bad one reports; the pooled
signature checks of ``easel audit`` too.  Reference: a plain one-by-one audit written here."""

from __future__ import annotations

import os
import random

import pytest
from nacl.signing import SigningKey

import cli.auditing as auditing
from core.audit import Summary, audit, combine
from core.events import (
    EntryError,
    Event,
    check_entry_signatures,
    commitment,
    parse_entry,
    parse_event,
    parse_genesis,
    reveal_commitment,
    verify_many,
    vote_sign_msg,
)
from core.logfile import parse
from core.table import RuleError, Table

from .helpers import GAMES, Builder, fix_crc, log_file, records_of, simulated

FOREIGN = SigningKey(b"\x77" * 32)


def reference_summary(name: str, data: bytes, games) -> Summary:
    """The audit of one file, entry after entry, as core/audit.py did it before it was made fast."""
    problems: list = []
    valid = True

    def problem(index, text):
        nonlocal valid
        valid = False
        problems.append({"file": name, "index": index, "problem": text})

    p = parse(data)
    if p.problem:
        problem(len(p.entries), p.problem)
    if p.torn:
        problem(len(p.entries), "torn record at the end of the file (offset %d)" % p.good)
    game = gid = head = results = None
    certificates: list = []
    complete = False
    done = []
    events = 0
    if p.kind == "spool":
        problem(None, "a spool file, not a log: it is only searched for equivocation")
    elif p.kind == "secrets":
        problem(None, "a secrets file (a peer's private sealed values), not a log")
    elif p.kind == "log":
        events = len(p.entries)
        if not p.entries:
            problem(0, "log has no genesis entry")
        else:
            try:
                table = Table.start(parse_genesis(p.entries[0]), games)
            except (EntryError, RuleError) as exc:
                text = str(exc)
                problem(0, text if text.startswith("genesis: ") else "genesis: %s" % text)
                table = None
            if table is not None:
                game, gid = table.genesis.doc["game"], table.game_id
                for i, raw in enumerate(p.entries[1:], start=1):
                    try:
                        ent = parse_entry(raw, keys=table.keys)
                        done.append((i, ent))
                        table.append(ent)
                    except (EntryError, RuleError) as exc:
                        problem(i, str(exc))
                        break
                    except Exception as exc:
                        problem(i, "internal error replaying this entry: %r" % (exc,))
                        break
                head = table.head
                complete = valid and table.over
                if complete:
                    results = table.result()
                for note in table.notes:
                    problems.append({"file": name, "index": note.index, "note": note.text, "seat": note.seat})
                certificates = [c.public() for c in table.certificates.values()]
    start = done[-1][0] + 1 if done else 0
    for i, raw in enumerate(p.entries[start:], start=start):
        try:
            done.append((i, parse_entry(raw, verify=False)))
        except EntryError:
            continue
    index = [(e.game_id, e.author, e.seq, i, e.id) for i, e in done if isinstance(e, Event)]
    return Summary(name, valid, complete, game, gid, events, head, results, problems, index, certificates)


def reference_audit(files: dict, games=GAMES) -> dict:
    return combine([reference_summary(n, d, games) for n, d in files.items()], files)


def pooled_audit(files: dict, games=GAMES, monkeypatch=None) -> dict:
    return auditing.audit_files(files, workers=2, games=games)


def tamperings(entries: list, rnd: random.Random, g, sks) -> list:
    """(label, entries) variants of a valid log, each broken in one way."""
    out = []
    n = len(entries)
    for _ in range(6):
        i = rnd.randrange(1, n)
        out.append(("drop %d" % i, entries[:i] + entries[i + 1 :]))
        j = rnd.randrange(1, n)
        e = list(entries)
        e[i], e[j] = e[j], e[i]
        out.append(("swap %d %d" % (i, j), e))
        raw = bytearray(entries[i])
        k = rnd.randrange(len(raw))
        raw[k] ^= 1 << rnd.randrange(8)
        out.append(("flip %d@%d" % (i, k), entries[:i] + [bytes(raw)] + entries[i + 1 :]))
        # the same event re-signed by a foreign key (a bad signature, rules otherwise fine)
        ev = parse_entry(entries[i], verify=False)
        if isinstance(ev, Event):
            bad = ev.raw[:-64] + FOREIGN.sign(b"x").signature
            out.append(("forged %d" % i, entries[:i] + [bad] + entries[i + 1 :]))
            # forged AND out of order at once: the signature wins at the same index
            later = entries[i + 1 :]
            out.append(("forged+dup %d" % i, entries[:i] + [bad, bad] + later))
        out.append(("cut %d" % i, entries[:i]))
        out.append(("repeat %d" % i, entries[: i + 1] + entries[i:]))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fast_audit_matches_the_one_by_one_audit(seed):
    rnd = random.Random(seed)
    g, sks, entries = simulated(3, seed, rounds=3)
    for label, variant in [("valid", entries)] + tamperings(entries, rnd, g, sks):
        files = {"game.log": fix_crc(log_file(variant))}
        want = reference_audit(files)
        assert audit(files, GAMES) == want, label


def test_fast_audit_matches_on_two_logs_and_a_spool():
    g, sks, entries = simulated(3, 5, rounds=2)
    forged = list(entries)
    ev = parse_entry(entries[7], verify=False)
    forged[7] = ev.raw[:-64] + FOREIGN.sign(b"y").signature
    files = {"a.log": log_file(entries), "b.log": log_file(forged), "s.spool": log_file(entries[3:9], magic=b"EASEL-SPOOL/1\n")}
    assert audit(files, GAMES) == reference_audit(files)


def test_bad_signature_then_rule_break_reports_the_signature_and_the_head_before_it():
    g, sks, entries = simulated(3, 7, rounds=2)
    i = 5
    ev = parse_entry(entries[i], verify=False)
    variant = entries[:i] + [ev.raw[:-64] + FOREIGN.sign(b"z").signature] + entries[i + 2 :]
    files = {"game.log": log_file(variant)}
    rep = audit(files, GAMES)
    assert [(p["index"], p["problem"]) for p in rep["problems"]] == [(i, "event: signature does not verify")]
    t = Table.start(entries[0], GAMES)
    for raw in entries[1:i]:
        t.append(raw)
    assert rep["head"] == t.head.hex()
    assert rep == reference_audit(files)


def test_bad_timeout_vote_is_named_with_its_seat():
    from .helpers import HandTable

    h = HandTable(3, game="toy")
    h.sealed({0: bytes(32), 1: bytes(32)})   # seat 2 timed out in the seed step
    entries = list(h.entries)
    cert_i = next(i for i, raw in enumerate(entries) if i and not isinstance(parse_entry(raw, verify=False), Event))
    cert = parse_entry(entries[cert_i], verify=False)
    from core.events import make_timeout

    votes = [(v, s if v != cert.votes[-1][0] else FOREIGN.sign(vote_sign_msg(cert.game_id, cert.phase, cert.prev, list(cert.seats))).signature) for v, s in cert.votes]
    entries[cert_i] = make_timeout(cert.game_id, cert.phase, cert.prev, list(cert.seats), votes).raw
    files = {"game.log": log_file(entries)}
    rep = audit(files, GAMES)
    assert [(p["index"], p["problem"]) for p in rep["problems"] if "problem" in p] == [
        (cert_i, "time-out: bad vote signature from seat %d" % cert.votes[-1][0])
    ]
    assert rep == reference_audit(files)


def test_pooled_signature_checks_give_the_same_report(monkeypatch):
    monkeypatch.setattr(auditing, "MIN_POOLED_BYTES", 1)
    monkeypatch.setattr(auditing, "CHUNK", 7)
    monkeypatch.setattr(auditing.PooledVerifier.__init__, "__defaults__", (7,))
    rnd = random.Random(11)
    g, sks, entries = simulated(3, 11, rounds=3)
    cases = [("valid", entries)] + [c for c in tamperings(entries, rnd, g, sks) if c[0].startswith(("forged", "flip", "swap"))][:8]
    for label, variant in cases:
        files = {"game.log": fix_crc(log_file(variant))}
        assert auditing.audit_files(files, workers=2, games=GAMES) == reference_audit(files), label


def test_many_files_in_worker_processes_give_the_same_report(monkeypatch):
    monkeypatch.setattr(auditing, "MIN_PARALLEL_BYTES", 1)
    files = {}
    for s in range(1, 6):
        g, sks, entries = simulated(3, s, rounds=2)
        files["g%d.log" % s] = log_file(entries)
    ev = parse_entry(records_of(files["g3.log"])[4], verify=False)
    broken = records_of(files["g3.log"])
    broken[4] = ev.raw[:-64] + FOREIGN.sign(b"w").signature
    files["g3.log"] = log_file(broken)
    rep = auditing.audit_files(files, workers=2, games=GAMES)
    assert rep == reference_audit(files)
    assert [(p["file"], p["index"]) for p in rep["problems"]] == [("g3.log", 4)]


def test_verify_many_names_the_first_bad_triple():
    sk = SigningKey(b"\x05" * 32)
    key = bytes(sk.verify_key)
    jobs = [(key, bytes([i]) * 32, sk.sign(bytes([i]) * 32).signature) for i in range(10)]
    assert verify_many(jobs) is None
    jobs[6] = (key, jobs[6][1], jobs[5][2])
    jobs[8] = (bytes(32), jobs[8][1], jobs[8][2])
    assert verify_many(jobs) == 6
    assert verify_many(jobs, 7) == 8
    assert verify_many(jobs, 0, 6) is None
    assert verify_many([(key, b"m" * 300, sk.sign(b"m" * 300).signature)]) is None   # a long message too


def test_reveal_commitment_is_the_commitment_for_big_numbers():
    """The value is hashed from the event's own bytes: equal to commitment() whatever the widths."""
    from .helpers import simulate
    from .toy_game import ToyBot

    class Steady(ToyBot):   # bets 0: nobody goes out, the game lasts every round
        def choose(self, view, seat, rng):
            return {"bet": 0} if view["stage"] == "bet" else super().choose(view, seat, rng)

    g, sks, peers = simulate(2, 3, config={"rounds": 60}, bot=Steady())   # phases, seqs past 255
    entries = peers[0].log_entries
    seen = 0
    for raw in entries[1:]:
        ev = parse_entry(raw, verify=False)
        if isinstance(ev, Event) and ev.kind == "reveal":
            for phase in (0, ev.body["phase"] - 1, 127, 128, 255, 256, 65535, 65536, 2**32, 2**40):
                assert reveal_commitment(ev, phase) == commitment(ev.game_id, ev.author, phase, ev.body["value"], ev.body["salt"])
            seen += 1
    assert seen > 60 and max(parse_entry(r, verify=False).seq for r in entries[1:]) > 255


_PARENT = os.getpid()


def _check_failing_in_workers(entries, keys, start, stop):
    if os.getpid() != _PARENT:
        raise RuntimeError("worker lost")
    return check_entry_signatures(entries, keys, start, stop)


def test_pooled_signature_checks_survive_failing_workers(monkeypatch):
    """A chunk whose worker fails is checked here: the report is still exact."""
    monkeypatch.setattr(auditing, "MIN_POOLED_BYTES", 1)
    monkeypatch.setattr(auditing.PooledVerifier.__init__, "__defaults__", (5,))
    monkeypatch.setattr(auditing, "check_entry_signatures", _check_failing_in_workers)
    g, sks, entries = simulated(3, 12, rounds=3)
    forged = list(entries)
    ev = parse_entry(entries[-3], verify=False)
    forged[-3] = ev.raw[:-64] + FOREIGN.sign(b"v").signature
    for variant in (entries, forged):
        files = {"game.log": log_file(variant)}
        assert auditing.audit_files(files, workers=2, games=GAMES) == reference_audit(files)


# ----------------------------------------------------------------------------- one big file on every core
def _long_log(rounds: int = 40):
    """A long toy log (every seat bets 0: the game lasts every round) and its signing keys."""
    from .helpers import simulate
    from .toy_game import ToyBot

    class Steady(ToyBot):
        def choose(self, view, seat, rng):
            return {"bet": 0} if view["stage"] == "bet" else super().choose(view, seat, rng)

    g, sks, peers = simulate(3, 5, config={"rounds": rounds}, bot=Steady())
    return g, sks, list(peers[0].log_entries)


@pytest.fixture(scope="module")
def long_log():
    return _long_log()


def _damaged(entries: list) -> list:
    """(label, file bytes): a valid long log and the same log damaged where a pool could miss it."""
    n = len(entries)
    events = [i for i in range(1, n) if isinstance(parse_entry(entries[i], verify=False), Event)]
    out = [("valid", log_file(entries))]
    for label, i in (("bad signature, early", events[1]), ("bad signature, late", events[-2]),
                     ("bad signature, last entry", events[-1]), ("bad signature, mid", events[len(events) // 2])):
        e = list(entries)
        e[i] = e[i][:-64] + FOREIGN.sign(b"late").signature
        out.append((label, log_file(e)))
    e = list(entries)   # two bad signatures: the first is named
    for i in (events[len(events) // 3], events[2 * len(events) // 3]):
        e[i] = e[i][:-64] + FOREIGN.sign(b"two").signature
    out.append(("two bad signatures", log_file(e)))
    whole = log_file(entries)
    out.append(("truncated mid-record", whole[: len(whole) - 37]))
    out.append(("truncated at a record", log_file(entries[: n // 2])))
    e = list(entries)   # a bad signature after a rules failure: the rules failure is named
    e[n // 3], e[n // 3 + 1] = e[n // 3 + 1], e[n // 3]
    j = events[-3]
    e[j] = e[j][:-64] + FOREIGN.sign(b"after").signature
    out.append(("swap then bad signature", fix_crc(log_file(e))))
    e = list(entries)   # an entry that does not parse, a bad signature after it
    e[n // 2] = e[n // 2][:-1]
    e[-2] = e[-2][:-64] + FOREIGN.sign(b"after parse").signature
    out.append(("unparsable then bad signature", log_file(e)))
    return out


@pytest.mark.parametrize("chunk", [1, 7, 64])
def test_one_big_file_on_every_core_matches_the_serial_audit(monkeypatch, long_log, chunk):
    """`easel audit` of one big file with its signatures checked by worker processes (by
    entries, straight from their bytes) reports exactly what the serial audit reports, on a
    valid log and on logs damaged early, late, twice, truncated, or broken before a bad signature."""
    monkeypatch.setattr(auditing, "MIN_POOLED_BYTES", 1)
    monkeypatch.setattr(auditing.PooledVerifier.__init__, "__defaults__", (chunk,))
    g, sks, entries = long_log
    assert len(entries) > 400
    for label, data in _damaged(entries):
        files = {"game.log": data}
        serial = audit(files, GAMES)
        assert auditing.audit_files(files, workers=2, games=GAMES) == serial == reference_audit(files), label
        if label == "valid":
            assert serial["valid"] and serial["complete"]
        elif label == "truncated at a record":   # a valid prefix: an unfinished game
            assert serial["valid"] and not serial["complete"]
        else:
            assert not serial["valid"], label


def test_by_entry_verifier_here_matches_the_job_verifier(long_log):
    from core.audit import VerifyEntriesHere, audit_log

    g, sks, entries = long_log
    for label, data in _damaged(entries):
        a = audit_log("f", data, GAMES)
        b = audit_log("f", data, GAMES, VerifyEntriesHere)
        assert (a.valid, a.head, a.problems, a.index, a.results) == (b.valid, b.head, b.problems, b.index, b.results), label


def test_check_entry_signatures_reads_events_from_their_bytes(long_log):
    g, sks, entries = long_log
    keys = parse_genesis(entries[0]).doc["seats"]
    assert check_entry_signatures(entries, keys, 1, len(entries)) is None
    i = len(entries) // 2
    while not isinstance(parse_entry(entries[i], verify=False), Event):
        i += 1
    bad = list(entries)
    bad[i] = bad[i][:-64] + FOREIGN.sign(b"b").signature
    assert check_entry_signatures(bad, keys, 1, len(bad)) == (i, "event: signature does not verify")
    assert check_entry_signatures(bad, keys, 1, i) is None and check_entry_signatures(bad, keys, i + 1, len(bad)) is None
    bad[i] = b"\x99not an event"            # does not parse: not judged here
    assert check_entry_signatures(bad, keys, 1, len(bad)) is None


def test_big_files_use_every_core_by_default(monkeypatch, long_log):
    """``easel audit`` pools the signature checks of a file of MIN_POOLED_BYTES or more, and only then."""
    g, sks, entries = long_log
    data = log_file(entries)
    made = []
    real = auditing._PooledSession.__init__

    def spy(self, *a):
        made.append(len(a[0]))
        real(self, *a)

    monkeypatch.setattr(auditing._PooledSession, "__init__", spy)
    monkeypatch.setattr(auditing, "MIN_POOLED_BYTES", len(data) + 1)
    auditing.audit_files({"a.log": data}, workers=2, games=GAMES)
    assert made == []
    monkeypatch.setattr(auditing, "MIN_POOLED_BYTES", len(data))
    rep = auditing.audit_files({"a.log": data}, workers=2, games=GAMES)
    assert made == [len(entries)] and rep["valid"] and rep["complete"]
