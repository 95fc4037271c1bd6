"""Log entries: genesis, events, time-out certificates (core/events.py, protocol.md §5)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nacl.signing import SigningKey

from core.encoding import encode
from core.events import (
    MAX_ENTRY,
    VERSION,
    ZERO32,
    EntryError,
    Event,
    Genesis,
    Timeout,
    commitment,
    entry_id,
    equivocation,
    event_sign_msg,
    game_id_of,
    genesis_sign_msg,
    make_event,
    make_genesis,
    make_timeout,
    next_head,
    parse_entry,
    parse_event,
    parse_genesis,
    parse_timeout,
    vote_sign_msg,
)
from core.hashing import dhash

from .helpers import genesis_for, seat_keys, signer

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

SKS = seat_keys(3)
KEYS = [bytes(sk.verify_key) for sk in SKS]
FOREIGN = SigningKey(b"\x77" * 32)
G = genesis_for(SKS)
GID = G.game_id
HEAD = next_head(ZERO32, G.id)
SALT = bytes(range(32))


def ev(seat=0, seq=0, prev=HEAD, kind="commit", body=None, sk=None, author=None, gid=GID) -> Event:
    if body is None:
        body = {"phase": 0, "hash": commitment(gid, KEYS[seat], 0, b"v" * 32, SALT)}
    return make_event(signer(sk or SKS[seat]), gid, author or KEYS[seat], seq, prev, kind, body)


_SIGN = object()


def raw_event(gid=GID, author=None, seq=0, prev=HEAD, kind="commit", body=None, sk=None, version=VERSION, tag="easel-event", sig=_SIGN, extra=()):
    """An event's bytes built by hand, correctly signed over whatever fields it holds."""
    author = KEYS[0] if author is None else author
    if body is None:
        body = {"phase": 0, "hash": bytes(32)}
    if sig is _SIGN:
        msg = dhash("sign/event", version, gid, author, seq, prev, kind, body)
        sig = (sk or SKS[0]).sign(msg).signature
    return encode([tag, version, gid, author, seq, prev, kind, body, sig, *extra])


def cert(phase=0, prev=HEAD, seats=(2,), voters=(0, 1), gid=GID, signers=None) -> Timeout:
    msg = vote_sign_msg(gid, phase, prev, list(seats))
    votes = [(v, (signers or SKS)[v].sign(msg).signature) for v in voters]
    return make_timeout(gid, phase, prev, list(seats), votes)


def raw_cert(phase=0, prev=HEAD, seats=(2,), votes=None, gid=GID, version=VERSION):
    if votes is None:
        msg = vote_sign_msg(gid, phase, prev, list(seats))
        votes = [[v, SKS[v].sign(msg).signature] for v in range(3) if v not in seats]
    return encode(["easel-timeout", version, gid, phase, prev, list(seats), votes])


def flip(raw: bytes, bit: int) -> bytes:
    b = bytearray(raw)
    b[bit // 8] ^= 1 << (bit % 8)
    return bytes(b)


# --------------------------------------------------------------------------- events


@pytest.mark.parametrize(
    "kind, body",
    [
        ("commit", {"phase": 0, "hash": b"h" * 32}),
        ("reveal", {"phase": 1, "value": {"bids": {"3": 4}, "splash": [1, 2, "R"]}, "salt": SALT}),
        ("reveal", {"phase": 7, "value": None, "salt": SALT}),
        ("act", {"phase": 3, "action": [1, "x", b"y", True]}),
    ],
)
def test_make_parse_round_trip(kind, body):
    e = make_event(signer(SKS[1]), GID, KEYS[1], 5, HEAD, kind, body)
    p = parse_event(e.raw)
    assert p == e
    assert (p.game_id, p.author, p.seq, p.prev, p.kind, p.body) == (GID, KEYS[1], 5, HEAD, kind, body)
    assert p.phase == body["phase"]
    assert p.id == entry_id(e.raw) == dhash("entry-id", e.raw)
    assert parse_entry(e.raw) == e
    # the signature is over the documented message
    from nacl.signing import VerifyKey

    VerifyKey(KEYS[1]).verify(event_sign_msg(GID, KEYS[1], 5, HEAD, kind, body), p.sig)


def test_event_bytes_layout():
    e = ev()
    assert e.raw == encode(["easel-event", 1, GID, KEYS[0], 0, HEAD, "commit", e.body, e.sig])
    assert len(e.sig) == 64


@pytest.mark.parametrize("kind", ["commit", "reveal", "act"])
def test_every_bit_flip_of_an_event_is_refused(kind):
    body = {
        "commit": {"phase": 2, "hash": b"\x11" * 32},
        "reveal": {"phase": 3, "value": {"bids": {"1": 2}, "splash": None}, "salt": SALT},
        "act": {"phase": 4, "action": {"x": [1, 2]}},
    }[kind]
    raw = make_event(signer(SKS[2]), GID, KEYS[2], 9, HEAD, kind, body).raw
    for bit in range(len(raw) * 8):
        with pytest.raises(EntryError):
            parse_event(flip(raw, bit))
        with pytest.raises(EntryError):
            parse_entry(flip(raw, bit), keys=KEYS)


@settings(max_examples=300, **SETTINGS)
@given(
    st.sampled_from([0, 1, 2]),
    st.integers(0, 2**40),
    st.binary(min_size=32, max_size=32),
    st.data(),
)
def test_flipped_bit_refused_property(seat, seq, salt, data):
    body = {"phase": seq % 50, "value": data.draw(st.lists(st.integers(-5, 300) | st.text(max_size=5), max_size=4)), "salt": salt}
    raw = make_event(signer(SKS[seat]), GID, KEYS[seat], seq, HEAD, "reveal", body).raw
    assert parse_event(raw).raw == raw
    bit = data.draw(st.integers(0, len(raw) * 8 - 1))
    with pytest.raises(EntryError):
        parse_entry(flip(raw, bit), keys=KEYS)


@settings(max_examples=200, **SETTINGS)
@given(st.data())
def test_truncated_or_extended_event_refused(data):
    raw = ev(seq=3).raw
    cut = data.draw(st.integers(0, len(raw) - 1))
    with pytest.raises(EntryError):
        parse_entry(raw[:cut], keys=KEYS)
    tail = data.draw(st.binary(min_size=1, max_size=4))
    with pytest.raises(EntryError):
        parse_entry(raw + tail, keys=KEYS)


def test_hand_built_raw_event_is_accepted():
    # the control for the refusals below: the builder makes valid events
    e = parse_event(raw_event())
    assert e.author == KEYS[0]


@pytest.mark.parametrize(
    "why, kwargs",
    [
        ("version 2", dict(version=2)),
        ("version 0", dict(version=0)),
        ("version as str", dict(version="1")),
        ("wrong tag", dict(tag="easel-evnt")),
        ("timeout tag", dict(tag="easel-timeout")),
        ("extra element", dict(extra=(0,))),
        ("game id 31 bytes", dict(gid=GID[:31])),
        ("game id str", dict(gid=GID.hex())),
        ("author 33 bytes", dict(author=KEYS[0] + b"\x00")),
        ("author str", dict(author="seat0")),
        ("prev 31 bytes", dict(prev=HEAD[:31])),
        ("prev None", dict(prev=None)),
        ("seq negative", dict(seq=-1)),
        ("seq bool", dict(seq=True)),
        ("seq 2**63", dict(seq=2**63)),
        ("seq str", dict(seq="0")),
        ("kind bytes", dict(kind=b"commit")),
        ("unknown kind", dict(kind="move", body={"phase": 0, "action": 1})),
        ("kind capitalised", dict(kind="Commit")),
        ("body list", dict(body=[0, bytes(32)])),
        ("body without phase", dict(body={"hash": bytes(32)})),
        ("phase negative", dict(body={"phase": -1, "hash": bytes(32)})),
        ("phase bool", dict(body={"phase": False, "hash": bytes(32)})),
        ("phase str", dict(body={"phase": "0", "hash": bytes(32)})),
        ("commit hash 31", dict(body={"phase": 0, "hash": bytes(31)})),
        ("commit hash 33", dict(body={"phase": 0, "hash": bytes(33)})),
        ("commit hash str", dict(body={"phase": 0, "hash": "0" * 32})),
        ("commit without hash", dict(body={"phase": 0})),
        ("commit extra key", dict(body={"phase": 0, "hash": bytes(32), "note": 1})),
        ("commit with value", dict(body={"phase": 0, "hash": bytes(32), "value": 1})),
        ("reveal salt 31", dict(kind="reveal", body={"phase": 0, "value": 1, "salt": bytes(31)})),
        ("reveal without value", dict(kind="reveal", body={"phase": 0, "salt": bytes(32)})),
        ("reveal without salt", dict(kind="reveal", body={"phase": 0, "value": 1})),
        ("reveal extra key", dict(kind="reveal", body={"phase": 0, "value": 1, "salt": bytes(32), "x": 0})),
        ("act without action", dict(kind="act", body={"phase": 0})),
        ("act extra key", dict(kind="act", body={"phase": 0, "action": 1, "seat": 0})),
        ("act with hash", dict(kind="act", body={"phase": 0, "action": 1, "hash": bytes(32)})),
    ],
)
def test_malformed_events_refused(why, kwargs):
    raw = raw_event(**kwargs)
    with pytest.raises(EntryError):
        parse_event(raw)
    with pytest.raises(EntryError):
        parse_entry(raw, keys=KEYS)


@pytest.mark.parametrize("sig", [bytes(64), b"\x01" * 63, b"\x01" * 65, "sig", None, b""])
def test_bad_signature_values_refused(sig):
    with pytest.raises(EntryError):
        parse_event(raw_event(sig=sig))


def test_make_event_refuses_bad_bodies():
    with pytest.raises(EntryError):
        make_event(signer(SKS[0]), GID, KEYS[0], 0, HEAD, "commit", {"phase": 0, "hash": b"x"})
    with pytest.raises(EntryError):
        make_event(signer(SKS[0]), GID, KEYS[0], 0, HEAD, "vote", {"phase": 0})


def test_signature_by_another_key_refused():
    for sk in (SKS[1], FOREIGN):
        e = make_event(signer(sk), GID, KEYS[0], 0, HEAD, "commit", {"phase": 0, "hash": bytes(32)})
        with pytest.raises(EntryError):
            parse_event(e.raw)
        # without verification it parses (the audit/protocol rely on verify=True)
        assert parse_event(e.raw, verify=False).author == KEYS[0]


def test_signature_is_bound_to_every_field():
    good = ev(seq=4)
    for field, value in [
        ("gid", b"\x01" * 32),
        ("author", KEYS[1]),
        ("seq", 5),
        ("prev", ZERO32),
        ("kind", "reveal"),
    ]:
        kw = dict(gid=GID, author=KEYS[0], seq=4, prev=HEAD, kind="commit", body=good.body, sig=good.sig)
        kw[field] = value
        if field == "kind":
            kw["body"] = {"phase": 0, "value": good.body["hash"], "salt": SALT}
        with pytest.raises(EntryError):
            parse_event(raw_event(**kw))
    with pytest.raises(EntryError):
        parse_event(raw_event(body={"phase": 1, "hash": good.body["hash"]}, sig=good.sig, seq=4))


def test_signature_for_another_purpose_refused():
    # a genesis signature (same key, other tag) is not an event signature
    body = {"phase": 0, "hash": bytes(32)}
    sig = SKS[0].sign(genesis_sign_msg(GID)).signature
    with pytest.raises(EntryError):
        parse_event(raw_event(body=body, sig=sig))


def test_oversize_entry_refused():
    big = make_event(signer(SKS[0]), GID, KEYS[0], 0, HEAD, "act", {"phase": 0, "action": b"x" * (MAX_ENTRY + 10)})
    with pytest.raises(EntryError):
        parse_entry(big.raw)


@pytest.mark.parametrize("raw", [b"", b"\x90", encode("easel-event"), encode([1, 2]), encode(["nope", 1]), encode({"a": 1}), b"\xc1"])
def test_garbage_entries_refused(raw):
    with pytest.raises(EntryError):
        parse_entry(raw, keys=KEYS)


def test_parse_entry_rejects_non_bytes():
    with pytest.raises(EntryError):
        parse_entry("easel")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- genesis


def test_genesis_round_trip_and_id():
    doc = G.doc
    assert G.game_id == game_id_of(doc) == dhash("game-id", doc)
    assert G.raw == encode(["easel-genesis", 1, doc, list(G.sigs)])
    assert G.id == entry_id(G.raw)
    assert parse_genesis(G.raw) == G
    assert parse_entry(G.raw) == G
    assert G.seats == KEYS


def test_genesis_every_bit_flip_refused():
    for bit in range(len(G.raw) * 8):
        with pytest.raises(EntryError):
            parse_genesis(flip(G.raw, bit))


def doc_of(keys=None, **kw):
    d = {"game": "painting", "config": {}, "seats": list(keys or KEYS), "table": b"t1"}
    d.update(kw)
    return d


def sigs_for(doc, sks):
    gid = game_id_of(doc)
    return [sk.sign(genesis_sign_msg(gid)).signature for sk in sks]


def test_genesis_missing_signature():
    doc = doc_of()
    with pytest.raises(EntryError):
        make_genesis(doc, sigs_for(doc, SKS)[:2])
    with pytest.raises(EntryError):
        make_genesis(doc, sigs_for(doc, SKS) + [bytes(64)])


@pytest.mark.parametrize("which", [0, 1, 2])
def test_genesis_bad_seat_signature(which):
    doc = doc_of()
    sigs = sigs_for(doc, SKS)
    bad = list(sigs)
    bad[which] = FOREIGN.sign(genesis_sign_msg(game_id_of(doc))).signature
    with pytest.raises(EntryError):
        make_genesis(doc, bad)
    bad[which] = bytes(64)
    with pytest.raises(EntryError):
        make_genesis(doc, bad)
    bad[which] = sigs[which][:63]
    with pytest.raises(EntryError):
        make_genesis(doc, bad)
    # signature of another game
    other = doc_of(table=b"t2")
    bad[which] = SKS[which].sign(genesis_sign_msg(game_id_of(other))).signature
    with pytest.raises(EntryError):
        make_genesis(doc, bad)


def test_genesis_signatures_in_wrong_order():
    doc = doc_of()
    sigs = sigs_for(doc, SKS)
    with pytest.raises(EntryError):
        make_genesis(doc, [sigs[1], sigs[0], sigs[2]])


def test_genesis_duplicate_seat_keys():
    sks = [SKS[0], SKS[1], SKS[0]]
    doc = doc_of(keys=[bytes(sk.verify_key) for sk in sks])
    with pytest.raises(EntryError):
        make_genesis(doc, sigs_for(doc, sks))
    raw = encode(["easel-genesis", 1, doc, sigs_for(doc, sks)])
    with pytest.raises(EntryError):
        parse_genesis(raw)


@pytest.mark.parametrize(
    "change",
    [
        dict(game=1),
        dict(config=[]),
        dict(seats=[]),
        dict(seats=[b"k" * 31]),
        dict(seats="k"),
        dict(table=b""),
        dict(table=b"x" * 33),
        dict(table="t1"),
    ],
)
def test_genesis_bad_document(change):
    doc = doc_of(**change)
    sks = SKS if isinstance(doc["seats"], list) and len(doc["seats"]) == 3 else SKS[:1]
    raw = encode(["easel-genesis", 1, doc, sigs_for(doc, sks)])
    with pytest.raises(EntryError):
        parse_genesis(raw)


def test_genesis_missing_document_keys():
    for key in ("game", "config", "seats", "table"):
        doc = doc_of()
        del doc[key]
        raw = encode(["easel-genesis", 1, doc, sigs_for(doc, SKS)])
        with pytest.raises(EntryError):
            parse_genesis(raw)


def test_genesis_wrong_version_or_shape():
    doc = doc_of()
    sigs = sigs_for(doc, SKS)
    for raw in (
        encode(["easel-genesis", 2, doc, sigs]),
        encode(["easel-genesis", 1, doc, sigs, 0]),
        encode(["easel-genesis", 1, doc]),
        encode(["easel-event", 1, doc, sigs]),
        encode(["easel-genesis", 1, doc, sigs[0]]),
    ):
        with pytest.raises(EntryError):
            parse_genesis(raw)


# --------------------------------------------------------------------------- time-out certificates


def test_timeout_round_trip():
    c = cert()
    assert isinstance(c, Timeout)
    p = parse_timeout(c.raw, keys=KEYS)
    assert p == c
    assert (p.game_id, p.phase, p.prev, p.seats) == (GID, 0, HEAD, (2,))
    assert [v for v, _ in p.votes] == [0, 1]
    assert parse_entry(c.raw, keys=KEYS) == c
    assert c.id == entry_id(c.raw)


def test_timeout_several_seats_needs_as_many_voters():
    # at most half the table can be timed out: 2 seats out, 1 voter is refused
    c = cert(phase=4, seats=(0, 2), voters=(1,))
    with pytest.raises(EntryError, match="fewer voters"):
        parse_timeout(c.raw, keys=KEYS)
    # without keys (structure only) it still parses
    assert parse_timeout(c.raw, keys=None).seats == (0, 2)
    # one out, two voters is fine
    assert parse_timeout(cert(phase=4, seats=(2,), voters=(0, 1)).raw, keys=KEYS).seats == (2,)


def test_timeout_every_bit_flip_refused_with_keys():
    raw = cert(phase=3).raw
    for bit in range(len(raw) * 8):
        with pytest.raises(EntryError):
            parse_entry(flip(raw, bit), keys=KEYS)


def test_timeout_missing_voter():
    c = cert(seats=(2,), voters=(0,))
    with pytest.raises(EntryError):
        parse_timeout(c.raw, keys=KEYS)
    with pytest.raises(EntryError):
        parse_entry(c.raw, keys=KEYS)


def test_timeout_timed_out_seat_votes():
    msg = vote_sign_msg(GID, 0, HEAD, [2])
    votes = [[v, SKS[v].sign(msg).signature] for v in (0, 1, 2)]
    with pytest.raises(EntryError):
        parse_timeout(raw_cert(votes=votes), keys=KEYS)
    with pytest.raises(EntryError):
        parse_timeout(raw_cert(votes=votes), keys=None)


def test_timeout_unsorted_or_duplicate_seats():
    for seats in ([2, 0], [0, 0], [1, 0]):
        msg = vote_sign_msg(GID, 0, HEAD, seats)
        voters = [v for v in range(3) if v not in seats]
        votes = [[v, SKS[v].sign(msg).signature] for v in voters]
        with pytest.raises(EntryError):
            parse_timeout(raw_cert(seats=seats, votes=votes), keys=KEYS)


def test_timeout_unsorted_or_duplicate_votes():
    msg = vote_sign_msg(GID, 0, HEAD, [2])
    s0, s1 = SKS[0].sign(msg).signature, SKS[1].sign(msg).signature
    for votes in ([[1, s1], [0, s0]], [[0, s0], [0, s0], [1, s1]]):
        with pytest.raises(EntryError):
            parse_timeout(raw_cert(votes=votes), keys=KEYS)


def test_timeout_bad_signature():
    # vote signed by the wrong key, over another phase, over another seat set
    other = cert(signers=[SKS[0], FOREIGN, SKS[2]])
    with pytest.raises(EntryError):
        parse_timeout(other.raw, keys=KEYS)
    msg = vote_sign_msg(GID, 1, HEAD, [2])
    votes = [[v, SKS[v].sign(msg).signature] for v in (0, 1)]
    with pytest.raises(EntryError):
        parse_timeout(raw_cert(phase=0, votes=votes), keys=KEYS)
    msg = vote_sign_msg(GID, 0, HEAD, [1, 2])
    votes = [[0, SKS[0].sign(msg).signature], [1, SKS[1].sign(msg).signature]]
    with pytest.raises(EntryError):
        parse_timeout(raw_cert(votes=votes), keys=KEYS)
    votes = [[0, bytes(64)], [1, SKS[1].sign(vote_sign_msg(GID, 0, HEAD, [2])).signature]]
    with pytest.raises(EntryError):
        parse_timeout(raw_cert(votes=votes), keys=KEYS)


def test_timeout_zero_votes():
    with pytest.raises(EntryError):
        parse_timeout(raw_cert(votes=[]), keys=None)
    with pytest.raises(EntryError):
        parse_timeout(raw_cert(votes=[]), keys=KEYS)
    with pytest.raises(EntryError):
        make_timeout(GID, 0, HEAD, [2], [])


def test_timeout_empty_seats():
    with pytest.raises(EntryError):
        parse_timeout(raw_cert(seats=[], votes=[[0, bytes(64)]]), keys=None)


def test_timeout_seat_out_of_range():
    msg = vote_sign_msg(GID, 0, HEAD, [3])
    votes = [[v, SKS[v].sign(msg).signature] for v in range(3)]
    with pytest.raises(EntryError):
        parse_timeout(raw_cert(seats=[3], votes=votes), keys=KEYS)
    msg = vote_sign_msg(GID, 0, HEAD, [2])
    votes = [[v, SKS[v].sign(msg).signature] for v in range(2)] + [[5, bytes(64)]]
    with pytest.raises(EntryError):
        parse_timeout(raw_cert(votes=votes), keys=KEYS)


@pytest.mark.parametrize(
    "raw",
    [
        raw_cert(version=2),
        raw_cert(phase=-1),
        raw_cert(phase=True),
        raw_cert(prev=HEAD[:31]),
        raw_cert(gid=GID + b"\x00"),
        raw_cert(seats=["2"]),
        raw_cert(votes=[[0, b"s" * 63], [1, b"s" * 64]]),
        raw_cert(votes=[[0, b"s" * 64, 1], [1, b"s" * 64]]),
        raw_cert(votes=[0, 1]),
        encode(["easel-timeout", 1, GID, 0, HEAD, [2]]),
    ],
)
def test_timeout_malformed(raw):
    with pytest.raises(EntryError):
        parse_timeout(raw, keys=KEYS)


# --------------------------------------------------------------------------- equivocation, commitments, heads


def test_equivocation():
    a = ev(seat=0, seq=3, body={"phase": 0, "hash": b"a" * 32})
    b = ev(seat=0, seq=3, body={"phase": 0, "hash": b"b" * 32})
    assert equivocation(a, b) and equivocation(b, a)
    assert not equivocation(a, a)
    assert not equivocation(a, parse_event(a.raw))           # same bytes
    c = ev(seat=0, seq=4, body={"phase": 0, "hash": b"b" * 32})
    assert not equivocation(a, c)                            # other seq
    d = ev(seat=1, seq=3, body={"phase": 0, "hash": b"b" * 32})
    assert not equivocation(a, d)                            # other author
    other_gid = b"\x42" * 32
    e = ev(seat=0, seq=3, body={"phase": 0, "hash": b"b" * 32}, gid=other_gid)
    assert not equivocation(a, e)                            # other game
    f = ev(seat=0, seq=3, prev=ZERO32, body={"phase": 0, "hash": b"a" * 32})
    assert equivocation(a, f)                                # same body, other prev


def test_commitment_binds_every_input():
    base = dict(game_id=GID, seat_key=KEYS[0], phase=2, value={"bids": {"1": 3}}, salt=SALT)
    c = commitment(**base)
    assert c == dhash("commit", GID, KEYS[0], 2, {"bids": {"1": 3}}, SALT)
    assert len(c) == 32
    changes = dict(
        game_id=b"\x00" * 32,
        seat_key=KEYS[1],
        phase=3,
        value={"bids": {"1": 4}},
        salt=bytes(reversed(SALT)),
    )
    seen = {c}
    for k, v in changes.items():
        other = commitment(**{**base, k: v})
        assert other != c, k
        seen.add(other)
    assert len(seen) == 1 + len(changes)
    # value types matter: 1 vs True vs "1" vs b"1"
    vals = {commitment(GID, KEYS[0], 0, v, SALT) for v in (1, True, "1", b"1", [1], None)}
    assert len(vals) == 6


@pytest.mark.parametrize("salt", [b"", bytes(31), bytes(33), "s" * 32, None])
def test_commitment_needs_32_byte_salt(salt):
    with pytest.raises(ValueError):
        commitment(GID, KEYS[0], 0, 1, salt)


def test_head_chain():
    e1, e2 = ev(seq=0), ev(seat=1, seq=0)
    h1 = next_head(HEAD, e1.id)
    assert h1 == dhash("head", HEAD, e1.id)
    assert next_head(h1, e2.id) != next_head(next_head(HEAD, e2.id), e1.id)


ED25519_L = 2**252 + 27742317777372353535851937790883648493


def test_malleated_signature_refused():
    """S + L verifies under a lax verifier; accepting it would let anyone forge an 'equivocation'."""
    e = ev(seq=1)
    r, s = e.sig[:32], int.from_bytes(e.sig[32:], "little")
    mall = r + (s + ED25519_L).to_bytes(32, "little")
    raw = raw_event(seq=1, body=e.body, sig=mall)
    assert raw != e.raw
    with pytest.raises(EntryError):
        parse_event(raw)


def test_version_true_is_not_version_1():
    """msgpack `true` is another byte form than the integer 1: refused everywhere."""
    from core.encoding import decode as _dec, encode as _enc

    ev = make_event(lambda m: SKS[0].sign(m).signature, GID, KEYS[0], 0, HEAD, "commit", {"phase": 0, "hash": bytes(32)})
    obj = _dec(ev.raw)
    obj[1] = True
    with pytest.raises(EntryError, match="version"):
        parse_entry(_enc(obj), keys=KEYS, verify=False)


@pytest.mark.parametrize("timeout", [0, -5, 1.5, "60", True, 86401])
def test_genesis_timeout_must_be_whole_seconds(timeout):
    from core.events import check_genesis_doc

    doc = {"game": "painting", "config": {}, "seats": KEYS, "table": b"t", "timeout": timeout}
    with pytest.raises(EntryError, match="timeout"):
        check_genesis_doc(doc)
    check_genesis_doc(dict(doc, timeout=60))
