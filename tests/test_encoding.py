"""Canonical msgpack (core/encoding.py, protocol.md §2)."""

from __future__ import annotations

import struct

import msgpack
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.encoding import MAX_DEPTH, CanonicalError, decode, encode

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])

INT_MIN, INT_MAX = -(2**63), 2**64 - 1

scalars = (
    st.integers(min_value=INT_MIN, max_value=INT_MAX)
    | st.binary(max_size=300)
    | st.text(max_size=300)
    | st.booleans()
    | st.none()
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=6)
    | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=8), inner, max_size=6),
    max_leaves=40,
)


def untuple(x):
    """What a value decodes to: tuples become lists."""
    if isinstance(x, (list, tuple)):
        return [untuple(v) for v in x]
    if isinstance(x, dict):
        return {k: untuple(v) for k, v in x.items()}
    return x


def same(a, b) -> bool:
    """Equality that also tells bool from int (True == 1 in Python)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


# --------------------------------------------------------------------------- round trip


@settings(max_examples=300, **SETTINGS)
@given(values)
def test_round_trip_and_deterministic(x):
    data = encode(x)
    assert encode(x) == data
    back = decode(data)
    assert same(back, untuple(x))
    assert encode(back) == data


@settings(max_examples=200, **SETTINGS)
@given(st.dictionaries(st.text(max_size=6), st.integers(0, 9), max_size=8), st.randoms())
def test_map_encoding_does_not_depend_on_insertion_order(d, rnd):
    items = list(d.items())
    rnd.shuffle(items)
    assert encode(dict(items)) == encode(d)


@settings(max_examples=200, **SETTINGS)
@given(st.dictionaries(st.text(max_size=6), st.integers(0, 9), min_size=2, max_size=8))
def test_map_keys_sorted_by_utf8_bytes(d):
    data = encode(d)
    # walk the map: header, then key/value pairs (values are fixints)
    keys = list(msgpack.unpackb(data, raw=True, strict_map_key=False).keys())
    assert keys == sorted(k.encode("utf-8") for k in d)


def test_utf8_order_not_python_order():
    # U+FFFF sorts before U+10000 both by code point and by UTF-8 bytes; "é" (c3 a9) after "z"
    d = {"é": 1, "z": 2, "\U00010000": 3, "\uffff": 4, "a": 5}
    keys = list(msgpack.unpackb(encode(d), raw=True, strict_map_key=False).keys())
    assert keys == sorted(k.encode() for k in d)
    assert keys[0] == b"a" and keys[1] == b"z"


@pytest.mark.parametrize(
    "value, hexbytes",
    [
        (0, "00"),
        (127, "7f"),
        (128, "cc80"),
        (255, "ccff"),
        (256, "cd0100"),
        (65536, "ce00010000"),
        (2**32, "cf0000000100000000"),
        (2**64 - 1, "cfffffffffffffffff"),
        (-1, "ff"),
        (-32, "e0"),
        (-33, "d0df"),
        (-129, "d1ff7f"),
        (-(2**63), "d38000000000000000"),
        (True, "c3"),
        (False, "c2"),
        (None, "c0"),
        (b"", "c400"),
        ("", "a0"),
        ("a" * 32, "d920" + "61" * 32),
        ([], "90"),
        ({}, "80"),
        ((1, 2), "920102"),
        (bytearray(b"\x01"), "c40101"),
    ],
)
def test_shortest_forms(value, hexbytes):
    assert encode(value).hex() == hexbytes
    back = decode(bytes.fromhex(hexbytes))
    assert encode(back) == bytes.fromhex(hexbytes)


# --------------------------------------------------------------------------- refusing values on encode


@pytest.mark.parametrize("value", [2**64, -(2**63) - 1, [2**70], {"a": -(2**64)}])
def test_int_out_of_range_on_encode(value):
    with pytest.raises(CanonicalError):
        encode(value)


@pytest.mark.parametrize("value", [1.5, 0.0, float("nan"), [1.0], {"x": 2.5}, {1, 2}, object(), 1j])
def test_disallowed_types_on_encode(value):
    with pytest.raises(CanonicalError):
        encode(value)


@pytest.mark.parametrize("value", [{1: "a"}, {b"k": 1}, {None: 1}, {("a",): 1}, [{"ok": {2: 3}}]])
def test_non_str_map_keys_on_encode(value):
    with pytest.raises(CanonicalError):
        encode(value)


@pytest.mark.parametrize("value", ["\ud800", {"\udfff": 1}])
def test_lone_surrogate_is_a_canonical_error(value):
    with pytest.raises(CanonicalError):
        encode(value)


def nested(depth: int, leaf=0):
    x = leaf
    for _ in range(depth):
        x = [x]
    return x


def test_depth_limit():
    # protocol.md: "nesting at most 32 deep"; where exactly the 33rd level starts
    # (counting the leaf or not) is left to test_encode_and_decode_agree_on_depth
    encode(nested(MAX_DEPTH))
    decode(encode(nested(MAX_DEPTH)))
    for depth in (MAX_DEPTH + 2, 40, 200):
        with pytest.raises(CanonicalError):
            encode(nested(depth))
        with pytest.raises(CanonicalError):
            encode(nested(depth - 1, []))
    deep_map = 0
    for _ in range(MAX_DEPTH + 2):
        deep_map = {"k": deep_map}
    with pytest.raises(CanonicalError):
        encode(deep_map)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 2, 40, 100, 5000])
def test_decode_refuses_too_deep(depth):
    data = b"\x91" * depth + b"\x00"
    with pytest.raises(CanonicalError):
        decode(data)
    data = b"\x81\xa1k" * depth + b"\x00"
    with pytest.raises(CanonicalError):
        decode(data)


@pytest.mark.parametrize("depth", range(MAX_DEPTH - 2, MAX_DEPTH + 4))
@pytest.mark.parametrize("leaf", [0, [], {}, "s"])
def test_encode_and_decode_agree_on_depth(depth, leaf):
    """Whatever the exact limit, a value is encodable iff its bytes decode."""
    data = b"\x91" * depth + msgpack.packb(leaf)
    try:
        enc = encode(nested(depth, leaf))
        ok = True
    except CanonicalError:
        ok = False
    if ok:
        assert enc == data
        assert decode(data) == nested(depth, leaf)
    else:
        with pytest.raises(CanonicalError):
            decode(data)


# --------------------------------------------------------------------------- refusing bytes on decode

NON_CANONICAL = {
    "uint8 for fixint": "cc01",
    "uint8 for 0": "cc00",
    "uint16 for uint8": "cd00ff",
    "uint32 for uint16": "ce0000ffff",
    "uint64 for uint32": "cf00000000ffffffff",
    "int8 for negative fixint": "d0ff",
    "int8 for positive": "d001",
    "int16 for int8": "d1ff80",
    "int64 for -1": "d3ffffffffffffffff",
    "str8 for fixstr": "d90161",
    "str16 for str8": "da000161",
    "bin16 for bin8": "c5000101",
    "bin32 for bin8": "c600000000",
    "array16 for fixarray": "dc000100",
    "map16 for fixmap": "de0001a16101",
    "unsorted keys": "82a16201a16102",
    "duplicate keys": "82a16101a16102",
    "duplicate keys, same value": "82a16101a16101",
    "float32": "ca3f800000",
    "float64": "cb3ff0000000000000",
    "float in array": "91ca00000000",
    "fixext1": "d40100",
    "ext8": "c7010100",
    "timestamp ext (-1)": "d6ff00000000",
    "trailing bytes": "0000",
    "trailing after map": "80c0",
    "truncated uint16": "cd01",
    "truncated str": "a3616263"[:-2],
    "truncated array": "92 01".replace(" ", ""),
    "truncated bin": "c40501",
    "empty input": "",
    "int key": "810101",
    "bin key": "81c4016101",
    "nil key": "81c001",
    "array key": "81900101"[:6] + "01",
    "old raw str8 for bin": "d901ff",  # invalid utf-8 as str
    "reserved 0xc1": "c1",
    "invalid utf-8 str": "a2c328",
    "str with lone surrogate bytes": "a3eda080",
}


@pytest.mark.parametrize("name", sorted(NON_CANONICAL))
def test_decode_refuses(name):
    with pytest.raises(CanonicalError):
        decode(bytes.fromhex(NON_CANONICAL[name]))


def test_decode_refuses_out_of_range_bytes_inputs():
    # uint64 max is fine; msgpack cannot express more, but a non-bytes input must be refused
    assert decode(bytes.fromhex("cfffffffffffffffff")) == 2**64 - 1
    for bad in ("00", 0, None, [0]):
        with pytest.raises(CanonicalError):
            decode(bad)  # type: ignore[arg-type]


def test_decode_accepts_bytearray_and_memoryview():
    data = encode({"a": [1, b"x"]})
    assert decode(bytearray(data)) == {"a": [1, b"x"]}
    assert decode(memoryview(data)) == {"a": [1, b"x"]}


def test_long_lengths_declared_but_missing():
    for hx in ("dbffffffff", "c6ffffffff", "ddffffffff", "dfffffffff"):
        with pytest.raises(CanonicalError):
            decode(bytes.fromhex(hx))


@settings(max_examples=1000, **SETTINGS)
@given(st.binary(max_size=64))
@example(b"\xcc\x01")
@example(b"\x81\x01\x01")
@example(b"\xc1")
@example(b"\x91" * 2000)
@example(b"\xdd\xff\xff\xff\xff")
def test_decode_random_bytes_never_crashes(data):
    try:
        x = decode(data)
    except CanonicalError:
        return
    assert encode(x) == data


@settings(max_examples=300, **SETTINGS)
@given(values, st.data())
def test_mutated_encodings_decode_canonically_or_not_at_all(x, data):
    enc = bytearray(encode(x))
    i = data.draw(st.integers(0, len(enc) - 1))
    enc[i] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(enc)))
    for blob in (bytes(enc), bytes(enc[:cut]), bytes(enc) + b"\x00"):
        try:
            y = decode(blob)
        except CanonicalError:
            continue
        assert encode(y) == blob


@settings(max_examples=200, **SETTINGS)
@given(st.integers(min_value=INT_MIN, max_value=INT_MAX))
def test_wider_int_forms_are_refused(n):
    canonical = encode(n)
    wider = []
    if n >= 0:
        for code, fmt, lim in ((0xCC, ">B", 2**8), (0xCD, ">H", 2**16), (0xCE, ">I", 2**32), (0xCF, ">Q", 2**64)):
            if n < lim:
                wider.append(bytes([code]) + struct.pack(fmt, n))
    else:
        for code, fmt, lim in ((0xD0, ">b", 2**7), (0xD1, ">h", 2**15), (0xD2, ">i", 2**31), (0xD3, ">q", 2**63)):
            if -lim <= n:
                wider.append(bytes([code]) + struct.pack(fmt, n))
    for w in wider:
        if w == canonical:
            assert decode(w) == n
        else:
            with pytest.raises(CanonicalError):
                decode(w)
