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

__all__ = ["encode", "decode", "CanonicalError", "MAX_DEPTH"]

MAX_DEPTH = 32
_INT_MIN = -(2**63)
_INT_MAX = 2**64 - 1


class CanonicalError(ValueError):
    """Raised for a value that has no canonical encoding, or bytes that are not canonical."""


def _normalise(obj: Any, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise CanonicalError("nesting deeper than %d" % MAX_DEPTH)
    if obj is None or isinstance(obj, (bool, str, bytes)):
        return obj
    if isinstance(obj, int):
        if not _INT_MIN <= obj <= _INT_MAX:
            raise CanonicalError("integer out of range: %d" % obj)
        return obj
    if isinstance(obj, (list, tuple)):
        return [_normalise(x, depth + 1) for x in obj]
    if isinstance(obj, dict):
        items = []
        for k, v in obj.items():
            if not isinstance(k, str):
                raise CanonicalError("map key is not a str: %r" % (k,))
            items.append((k.encode("utf-8"), k, _normalise(v, depth + 1)))
        items.sort(key=lambda t: t[0])
        return {k: v for _, k, v in items}
    if isinstance(obj, (bytearray, memoryview)):
        return bytes(obj)
    raise CanonicalError("type not allowed in canonical encoding: %s" % type(obj).__name__)


def encode(obj: Any) -> bytes:
    """Encode ``obj`` canonically. Raises CanonicalError for disallowed values."""
    return msgpack.packb(_normalise(obj, 0), use_bin_type=True, strict_types=False)


def _reject_ext(code: int, data: bytes) -> Any:
    raise CanonicalError("extension type %d not allowed" % code)


def decode(data: bytes) -> Any:
    """Decode canonical bytes; anything else raises CanonicalError.

    Maps come back as dicts, arrays as lists, bin as bytes, str as str.
    """
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
        again = encode(obj)
    except CanonicalError as exc:
        raise CanonicalError("value not allowed: %s" % exc) from None
    if again != data:
        raise CanonicalError("bytes are not in canonical form")
    return obj
