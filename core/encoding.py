"""Canonical msgpack: the only byte form Easel signs, hashes, stores or sends.

msgpack itself promises no canonical form (an int may be packed in several
widths, a map's keys in any order), so we keep one ourselves:

* allowed values: int (-2**63 .. 2**64-1), bytes, str, bool, None, lists
  (tuples encode as lists) and maps whose keys are all str, sorted by their
  UTF-8 bytes, with no duplicates;
* no floats, no extension types, no non-str map keys;
* every value in the shortest msgpack form (what msgpack-python emits with
  ``use_bin_type=True``);
* ``decode`` rejects any input whose re-encoding is not byte-identical.
"""

from __future__ import annotations

from typing import Any

import msgpack

__all__ = ["encode", "decode", "decode_at", "CanonicalError", "MAX_DEPTH"]

MAX_DEPTH = 32
_INT_MIN = -(2**63)
_INT_MAX = 2**64 - 1


class CanonicalError(ValueError):
    """Raised for a value that has no canonical encoding, or bytes that are not canonical."""


_SCALARS = (str, bytes, bool, type(None))


def _normalise(obj: Any, depth: int) -> Any:
    """Check ``obj`` is encodable and return it with maps sorted and tuples as lists."""
    t = type(obj)
    if t in _SCALARS:
        return obj
    if t is int:
        if not _INT_MIN <= obj <= _INT_MAX:
            raise CanonicalError("integer out of range: %d" % obj)
        return obj
    if depth > MAX_DEPTH:
        raise CanonicalError("nesting deeper than %d" % MAX_DEPTH)
    if t is list or t is tuple:
        return [x if type(x) in _SCALARS else _normalise(x, depth + 1) for x in obj]
    if t is dict:
        keys = list(obj)
        for k in keys:
            if type(k) is not str:
                raise CanonicalError("map key is not a str: %r" % (k,))
        ordered = sorted(keys, key=_key_bytes)
        return {k: _normalise(obj[k], depth + 1) for k in ordered}
    if isinstance(obj, bool):
        return obj
    if isinstance(obj, int):
        return _normalise(int(obj), depth)
    if isinstance(obj, (str, bytes)):
        return t.__base__(obj) if t.__base__ in (str, bytes) else obj
    if isinstance(obj, (bytearray, memoryview)):
        return bytes(obj)
    if isinstance(obj, (list, tuple)):
        return _normalise(list(obj), depth)
    if isinstance(obj, dict):
        return _normalise(dict(obj), depth)
    raise CanonicalError("type not allowed in canonical encoding: %s" % type(obj).__name__)


def _key_bytes(k: str) -> bytes:
    return k.encode("utf-8")


# what msgpack decodes that needs no further look: an int it decodes always fits
# -2**63 .. 2**64-1 (msgpack has no wider int), the other scalars are allowed as they are
_DECODED_SCALARS = frozenset((str, bytes, bool, type(None), int))


def _check_decoded(obj: Any, depth: int) -> None:
    """A decoded value is canonical only if maps are sorted and every type is allowed."""
    t = type(obj)
    if t in _DECODED_SCALARS:
        if t is int and not _INT_MIN <= obj <= _INT_MAX:   # never from msgpack; kept for callers
            raise CanonicalError("integer out of range")
        return
    if depth > MAX_DEPTH:
        raise CanonicalError("nesting deeper than %d" % MAX_DEPTH)
    ok = _DECODED_SCALARS
    if t is list:
        for x in obj:
            if type(x) not in ok:
                _check_decoded(x, depth + 1)
        return
    if t is dict:
        prev = None
        for k, v in obj.items():
            if type(k) is not str:
                raise CanonicalError("map key is not a str")
            kb = k.encode("utf-8")
            if prev is not None and kb <= prev:
                raise CanonicalError("bytes are not in canonical form")
            prev = kb
            if type(v) not in ok:
                _check_decoded(v, depth + 1)
        return
    raise CanonicalError("type not allowed in canonical encoding: %s" % t.__name__)


def _PACK(obj: Any) -> bytes:
    # msgpack.packb makes a packer a call; a shared one would need per-thread state, and
    # core/ keeps none (the ~1 us it would save per encoding is not worth the threading import)
    return msgpack.packb(obj, use_bin_type=True)


def encode(obj: Any) -> bytes:
    """Encode ``obj`` canonically. Raises CanonicalError for disallowed values."""
    try:
        return _PACK(_normalise(obj, 0))
    except UnicodeEncodeError:
        raise CanonicalError("string is not valid UTF-8 (lone surrogate)") from None


def _reject_ext(code: int, data: bytes) -> Any:
    raise CanonicalError("extension type %d not allowed" % code)


def decode(data: bytes) -> Any:
    """Decode canonical bytes; anything else raises CanonicalError.

    Maps come back as dicts, arrays as lists, bin as bytes, str as str.
    """
    return decode_at(data, 0)


def decode_at(data: bytes, depth: int) -> Any:
    """``decode`` of a value that stands ``depth`` levels deep in a larger canonical value
    (the nesting limit counts from the outer value): what decoding the outer value checks
    of this part of it."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise CanonicalError("expected bytes")
    data = bytes(data)
    try:
        obj = msgpack.unpackb(
            data,
            raw=False,
            use_list=True,
            strict_map_key=True,
            ext_hook=_reject_ext,
        )
    except CanonicalError:
        raise
    except Exception as exc:  # msgpack raises a zoo of types: name them all one way
        raise CanonicalError("not valid msgpack: %s" % (exc.__class__.__name__,)) from None
    try:
        _check_decoded(obj, depth)
    except CanonicalError as exc:
        raise CanonicalError("value not allowed: %s" % exc) from None
    if _PACK(obj) != data:
        raise CanonicalError("bytes are not in canonical form")
    return obj
