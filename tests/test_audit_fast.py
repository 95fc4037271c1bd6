"""The audit's quick event parser (core.events.parse_event_fast) and the pooled audit of one big
file damaged where chunks meet.

parse_event_fast reads an event's fields where they stand in its bytes and sends only the body
through the canonical decoder; whatever it returns must be exactly what the strict path
(``parse_entry``) returns, and it must step aside (None) for anything the strict path refuses, so
the audit's verdicts and messages stay those of the strict decoder."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nacl.signing import SigningKey

import cli.auditing as auditing
from core.audit import audit
from core.encoding import MAX_DEPTH, encode
from core.events import EntryError, Event, make_event, parse_entry, parse_event_fast

from .helpers import GAMES, log_file, seat_keys, signer
from .test_audit_pipeline import _long_log, reference_audit

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
SKS = seat_keys(3)
KEYS = [sk.verify_key.encode() for sk in SKS]
GID = b"g" * 32
HEAD = b"h" * 32
SALT = b"s" * 32
FOREIGN = SigningKey(b"\x66" * 32)

BODIES = [
    ("commit", {"phase": 0, "hash": b"c" * 32}),
    ("reveal", {"phase": 1, "value": {"bids": {"3": 4}, "splash": [1, 2, "R"]}, "salt": SALT}),
    ("reveal", {"phase": 200, "value": None, "salt": SALT}),
    ("act", {"phase": 3, "action": [1, "x", b"y", True, -7, 2**64 - 1]}),
    ("act", {"phase": 2**63 - 1, "action": {"guess": 3}}),
]
SEQS = [0, 1, 127, 128, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**63 - 1]


def strict(raw: bytes):
    """What the audit's strict path makes of ``raw``: the entry, or None if it refuses it."""
    try:
        return parse_entry(raw, verify=False)
    except EntryError:
        return None


@pytest.mark.parametrize("seq", SEQS)
@pytest.mark.parametrize("kind,body", BODIES)
def test_fast_parse_is_the_strict_parse_of_every_kind_and_width(kind, body, seq):
    raw = make_event(signer(SKS[1]), GID, KEYS[1], seq, HEAD, kind, body).raw
    ev = parse_event_fast(raw)
    assert ev is not None and type(ev) is Event
    assert ev == strict(raw)
    assert (ev.seq, ev.kind, ev.body, ev.raw) == (seq, kind, body, raw)


def _event_fields(seq=5, kind="act", body=None):
    body = {"phase": 3, "action": {"guess": 2}} if body is None else body
    return ["easel-event", 1, GID, KEYS[0], seq, HEAD, kind, body, b"\x01" * 64]


def _with_body(body: bytes) -> bytes:
    """An event (sequence number 5, kind act) whose body is ``body``, bytes as given."""
    raw = encode(_event_fields())
    at = 14 + 68 + 1 + 34 + 4
    assert raw[at:-66] == encode(_event_fields()[7])
    return raw[:at] + body + raw[-66:]


def _nested(depth: int) -> bytes:
    """An act event whose action is a list nested ``depth`` deep (the entry is level 0, the body 1)."""
    return _with_body(b"\x82\xa6action" + b"\x91" * depth + b"\x00" + b"\xa5phase\x03")


def _wide_seq(raw: bytes, seq: int) -> bytes:
    """``raw`` with its sequence number (small: one byte) written as uint 8 (0xcc): not canonical."""
    at = 14 + 68
    assert raw[at] == seq
    return raw[:at] + b"\xcc" + bytes([seq]) + raw[at + 1 :]


@pytest.mark.parametrize(
    "label,raw",
    [
        ("sequence number not in its shortest form", _wide_seq(encode(_event_fields(seq=5)), 5)),
        ("sequence number 2**63", encode(_event_fields(seq=2**63))),
        ("negative sequence number", encode(_event_fields(seq=-1))),
        ("unknown kind", encode(_event_fields(kind="acts"))),
        ("body not a map", encode(_event_fields(body=[1, 2]))),
        ("act body without its action", encode(_event_fields(body={"phase": 3, "move": 1}))),
        ("commit hash of 31 bytes", encode(_event_fields(kind="commit", body={"phase": 1, "hash": b"x" * 31}))),
        ("reveal without a salt", encode(_event_fields(kind="reveal", body={"phase": 1, "value": 2}))),
        ("phase not a number", encode(_event_fields(body={"phase": "3", "action": 1}))),
        ("phase true", encode(_event_fields(body={"phase": True, "action": 1}))),
        ("body keys out of order", _with_body(b"\x82\xa5phase\x03\xa6action\x01")),
        ("a body key twice", _with_body(b"\x83\xa6action\x01\xa6action\x01\xa5phase\x03")),
        ("a float in the body", _with_body(b"\x82\xa6action\xcb" + bytes(8) + b"\xa5phase\x03")),
        ("a map key that is not a string", _with_body(b"\x83\x01\x01\xa6action\x01\xa5phase\x03")),
        ("an extension type in the body", _with_body(b"\x82\xa6action\xd4\x01\x00\xa5phase\x03")),
        ("a string that is not UTF-8", _with_body(b"\x82\xa6action\xa1\xff\xa5phase\x03")),
        ("the body's int not in its shortest form", _with_body(b"\x82\xa6action\xcc\x01\xa5phase\x03")),
        ("body nested deeper than the limit", _nested(MAX_DEPTH)),
        ("two values where the body stands", _with_body(b"\x82\xa6action\x01\xa5phase\x03\x00")),
        ("signature of 63 bytes", encode(_event_fields())[:-66] + encode(b"\x01" * 63)),
        ("bytes after the signature", encode(_event_fields()) + b"\x00"),
        ("game id as bin16", encode(_event_fields())[:14] + b"\xc5\x00\x20" + encode(_event_fields())[16:]),
    ],
)
def test_fast_parse_steps_aside_for_what_the_strict_parse_refuses(label, raw):
    """Each of these is refused by the strict decoder (the control); the quick parser returns
    None for it, so the strict path names the problem."""
    assert strict(raw) is None, label
    assert parse_event_fast(raw) is None, label


def test_fast_parse_takes_a_body_nested_right_up_to_the_limit():
    """The nesting limit counts from the entry (the body is one level in): the deepest body the
    strict decoder takes, the quick parser takes too, and one level more neither does."""
    ok, too_deep = _nested(MAX_DEPTH - 1), _nested(MAX_DEPTH)
    assert strict(ok) is not None and parse_event_fast(ok) == strict(ok)
    assert strict(too_deep) is None and parse_event_fast(too_deep) is None
    assert parse_event_fast(_with_body(b"\x82\xa6action\x01\xa5phase\x03")) == strict(_with_body(b"\x82\xa6action\x01\xa5phase\x03")) is not None


@settings(max_examples=400, **SETTINGS)
@given(st.sampled_from(BODIES), st.sampled_from(SEQS), st.data())
def test_fast_parse_of_damaged_bytes_is_the_strict_parse_or_none(kind_body, seq, data):
    """Any damage (bytes replaced, inserted, removed, cut, appended): the quick parser returns
    exactly the strict parse, or None (then the strict path judges the bytes)."""
    kind, body = kind_body
    raw = bytearray(make_event(signer(SKS[2]), GID, KEYS[2], seq, HEAD, kind, body).raw)
    for _ in range(data.draw(st.integers(1, 3))):
        what = data.draw(st.sampled_from(["set", "insert", "delete", "cut", "append"]))
        at = data.draw(st.integers(0, len(raw) - 1))
        if what == "set":
            raw[at] = data.draw(st.integers(0, 255))
        elif what == "insert":
            raw[at:at] = data.draw(st.binary(min_size=1, max_size=3))
        elif what == "delete":
            del raw[at]
        elif what == "cut":
            del raw[at:]
        else:
            raw += data.draw(st.binary(min_size=1, max_size=3))
        if not raw:
            break
    raw = bytes(raw)
    ev = parse_event_fast(raw)
    if ev is not None:
        assert ev == strict(raw)


# ----------------------------------------------------------------- one big file, pooled, damaged at the seams

CHUNK = 7   # entries a worker's task checks in the test below: chunks are entries 1-7, 8-14, ...


@pytest.fixture(scope="module")
def long_log():
    return _long_log(12)


def _events(entries: list) -> list:
    return [i for i in range(1, len(entries)) if isinstance(parse_entry(entries[i], verify=False), Event)]


def _places(entries: list) -> dict:
    """Where to damage the log: the first entry, a chunk's first, middle and last entries,
    the entries either side of a later seam, the middle and the last entry (events only)."""
    evs = _events(entries)
    n = len(entries)

    def ev_at_or_after(i):
        return next(j for j in evs if j >= i)

    return {
        "first entry": ev_at_or_after(1),
        "first of a chunk": next(j for j in evs if j > CHUNK and j % CHUNK == 1),
        "middle of a chunk": ev_at_or_after(3 * CHUNK + 4),
        "last of a chunk": next(j for j in evs if j >= 4 * CHUNK and j % CHUNK == 0),
        "first after a late seam": next(j for j in evs if j >= n // 2 and j % CHUNK == 1),
        "middle of the file": evs[len(evs) // 2],
        "last entry": evs[-1],
    }


def _damage(raw: bytes, how: str) -> bytes:
    if how == "prev altered":          # still parses; its signature no longer verifies
        at = 14 + 68 + (1 if raw[82] < 0x80 else 3 if raw[82] == 0xCD else 2) + 2
        return raw[:at] + bytes([raw[at] ^ 1]) + raw[at + 1 :]
    if how == "re-signed by another key":
        return raw[:-64] + FOREIGN.sign(b"x").signature
    if how == "not canonical":         # the sequence number re-encoded wider: does not parse
        seq = raw[82]
        assert seq < 0x80
        return raw[:82] + b"\xcc" + bytes([seq]) + raw[83:]
    raise AssertionError(how)


@pytest.mark.parametrize("how,problem", [
    ("prev altered", "event: signature does not verify"),
    ("re-signed by another key", "event: signature does not verify"),
    ("not canonical", "entry is not canonical msgpack"),
])
def test_an_entry_altered_anywhere_is_named_by_its_record_number(monkeypatch, long_log, how, problem):
    """An entry altered at the first entry, at either side of a seam between two workers' chunks,
    in the middle of a chunk or of the file, or at the end: the pooled audit (chunks of 7, two
    workers) names that record, with the serial audit's and the one-by-one audit's words."""
    monkeypatch.setattr(auditing, "MIN_POOLED_BYTES", 1)
    monkeypatch.setattr(auditing.PooledVerifier.__init__, "__defaults__", (CHUNK,))
    g, sks, entries = long_log
    places = _places(entries)
    assert len(set(places.values())) == len(places), places
    for where, i in places.items():
        if how == "not canonical" and entries[i][82] >= 0x80:
            continue
        damaged = list(entries)
        damaged[i] = _damage(entries[i], how)
        files = {"game.log": log_file(damaged)}
        pooled = auditing.audit_files(files, workers=2, games=GAMES)
        assert pooled == audit(files, GAMES) == reference_audit(files), (where, how)
        assert not pooled["valid"]
        first = pooled["problems"][0]
        assert (first["index"], first["problem"][: len(problem)]) == (i, problem), (where, how, first)


def test_a_pooled_verifier_without_a_pool_checks_every_chunk_itself(long_log):
    """No worker could be started (pool None): every chunk is checked by the main process on
    join, and the report is the serial audit's, valid or not."""
    from core.audit import audit_log

    g, sks, entries = long_log
    forged = list(entries)
    last = _events(entries)[-1]
    forged[last] = _damage(entries[last], "re-signed by another key")
    for variant in (entries, forged):
        data = log_file(variant)
        here = audit_log("f", data, GAMES, auditing.PooledVerifier(None, "f", CHUNK))
        serial = audit_log("f", data, GAMES)
        assert (here.valid, here.head, here.problems, here.index) == (serial.valid, serial.head, serial.problems, serial.index)
    assert not here.valid and here.problems[0]["index"] == last
