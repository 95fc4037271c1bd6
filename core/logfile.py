"""The byte format of log and spool files (pure: parsing and encoding only).

    file    = magic record*
    magic   = b"EASEL-LOG/1\\n"    (a game's canonical log)
            | b"EASEL-SPOOL/1\\n"  (events received but not yet placed in the log)
            | b"EASEL-SECRETS/1\\n" (a peer's own sealed values; private, never audited)
    record  = u32-be length  entry-bytes  u32-be crc32(entry-bytes)

A record that runs past the end of the file, or whose checksum fails when
nothing valid follows it, is a *torn tail* (a crash mid-write): the reader
reports where the good prefix ends so the writer can cut it.  A bad record
followed by more data is corruption, reported as such, never cut silently.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

LOG_MAGIC = b"EASEL-LOG/1\n"
SPOOL_MAGIC = b"EASEL-SPOOL/1\n"
SECRETS_MAGIC = b"EASEL-SECRETS/1\n"
MAX_RECORD = 1 << 20
_U32 = struct.Struct(">I")


@dataclass
class Parsed:
    kind: str               # "log" | "spool"
    entries: list[bytes]
    offsets: list[int]      # file offset of each record
    good: int               # length of the valid prefix
    torn: bool              # the file ends in a torn record (cut at ``good``)
    problem: str | None     # corruption that is not a torn tail


def encode_record(entry: bytes) -> bytes:
    if len(entry) > MAX_RECORD:
        raise ValueError("entry too large for a record")
    return _U32.pack(len(entry)) + entry + _U32.pack(zlib.crc32(entry))


def parse(data: bytes) -> Parsed:
    if data.startswith(LOG_MAGIC):
        kind, pos = "log", len(LOG_MAGIC)
    elif data.startswith(SPOOL_MAGIC):
        kind, pos = "spool", len(SPOOL_MAGIC)
    elif data.startswith(SECRETS_MAGIC):
        kind, pos = "secrets", len(SECRETS_MAGIC)
    else:
        if LOG_MAGIC.startswith(data) or SPOOL_MAGIC.startswith(data) or SECRETS_MAGIC.startswith(data):
            return Parsed("log", [], [], 0, bool(data), None)  # torn while writing the magic
        return Parsed("?", [], [], 0, False, "not an Easel log file (bad magic)")
    entries: list[bytes] = []
    offsets: list[int] = []
    n = len(data)
    while pos < n:
        if pos + 4 > n:
            return Parsed(kind, entries, offsets, pos, True, None)
        (length,) = _U32.unpack_from(data, pos)
        end = pos + 4 + length + 4
        if length == 0 or length > MAX_RECORD:
            return _bad(kind, entries, offsets, pos, data, "record %d: impossible length %d" % (len(entries), length))
        if end > n:
            if _records_follow(data, pos):
                return Parsed(kind, entries, offsets, pos, False, "record %d: length runs past the end of the file" % len(entries))
            return Parsed(kind, entries, offsets, pos, True, None)
        body = data[pos + 4 : pos + 4 + length]
        (crc,) = _U32.unpack_from(data, pos + 4 + length)
        if zlib.crc32(body) != crc:
            return _bad(kind, entries, offsets, pos, data, "record %d: checksum mismatch" % len(entries), end)
        entries.append(bytes(body))
        offsets.append(pos)
        pos = end
    return Parsed(kind, entries, offsets, pos, False, None)


def _bad(kind, entries, offsets, pos, data, why, end=None) -> Parsed:
    # A bad record is a torn tail only if nothing valid follows it: a crash can
    # only tear the last write, so valid records after it mean corruption.
    if _records_follow(data, pos):
        return Parsed(kind, entries, offsets, pos, False, why)
    if end is not None and end >= len(data):
        return Parsed(kind, entries, offsets, pos, True, None)
    if end is None and len(data) - pos <= 8:
        return Parsed(kind, entries, offsets, pos, True, None)
    return Parsed(kind, entries, offsets, pos, False, why)


def _records_follow(data: bytes, pos: int, window: int = 4 * MAX_RECORD) -> bool:
    """Is there, after ``pos``, a chain of CRC-valid records that ends exactly at EOF?"""
    n = len(data)
    for q in range(pos + 1, min(n - 8, pos + window) + 1):
        p = q
        ok = False
        while p + 8 <= n:
            (length,) = _U32.unpack_from(data, p)
            end = p + 8 + length
            if length == 0 or length > MAX_RECORD or end > n:
                break
            (crc,) = _U32.unpack_from(data, p + 4 + length)
            if zlib.crc32(data[p + 4 : p + 4 + length]) != crc:
                break
            p = end
            ok = True
        if ok and p == n:
            return True
    return False
