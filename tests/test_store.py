"""Durable storage (p2p/store.py, protocol.md §8): fsync'd appends, torn tails, corruption, disk full."""

from __future__ import annotations

import errno
import io
import os
import stat
import types

import pytest

import p2p.store as store_mod
from core.encoding import encode
from core.logfile import LOG_MAGIC, SPOOL_MAGIC, encode_record
from p2p.store import GameStore, RecordFile, StoreError

from .helpers import raw_record, simulated

RECS = [b"\x91\x01", encode(["easel-event", "x" * 40]), b"\xc4\x03abc", encode({"k": list(range(20))})]


def file_of(records, magic=LOG_MAGIC) -> bytes:
    return magic + b"".join(encode_record(r) for r in records)


def make(path, records, magic=LOG_MAGIC):
    path.write_bytes(file_of(records, magic))


def reopen(path, magic=LOG_MAGIC) -> RecordFile:
    rf = RecordFile(path, magic)
    rf.close()
    return rf


# --------------------------------------------------------------------------- basics


def test_new_file_has_magic_and_no_records(tmp_path):
    rf = RecordFile(tmp_path / "log", LOG_MAGIC)
    assert rf.records == [] and not rf.repaired
    rf.close()
    assert (tmp_path / "log").read_bytes() == LOG_MAGIC


def test_append_and_reopen(tmp_path):
    p = tmp_path / "log"
    rf = RecordFile(p, LOG_MAGIC)
    rf.append(RECS[:2])
    rf.append([])
    rf.append(RECS[2:])
    assert rf.records == RECS
    rf.close()
    assert p.read_bytes() == file_of(RECS)
    again = RecordFile(p, LOG_MAGIC)
    assert again.records == RECS and not again.repaired
    again.append([b"\x90"])
    again.close()
    assert reopen(p).records == RECS + [b"\x90"]


def test_real_log_round_trip(tmp_path):
    g, sks, entries = simulated(3, 1)
    s = GameStore(tmp_path / "g")
    s.log.append(entries[:5])
    s.log.append(entries[5:])
    s.spool.append(entries[3:4])
    s.close()
    s2 = GameStore(tmp_path / "g")
    assert s2.log.records == entries
    assert s2.spool.records == entries[3:4]
    assert not s2.repaired
    s2.close()
    assert (tmp_path / "g" / "log").read_bytes().startswith(LOG_MAGIC)
    assert (tmp_path / "g" / "spool").read_bytes().startswith(SPOOL_MAGIC)


def test_offsets_track_records(tmp_path):
    p = tmp_path / "log"
    rf = RecordFile(p, LOG_MAGIC)
    rf.append(RECS)
    data = p.read_bytes()
    for off, r in zip(rf.offsets, rf.records):
        assert data[off : off + 8 + len(r)] == encode_record(r)
    rf.close()
    assert reopen(p).offsets == rf.offsets


# --------------------------------------------------------------------------- torn tails


TORN = {
    "partial record": lambda good: good + encode_record(b"\x92\x01\x02")[:-3],
    "partial record body": lambda good: good + encode_record(b"x" * 50)[:20],
    "truncated header": lambda good: good + b"\x00\x00",
    "one header byte": lambda good: good + b"\x00",
    "header only": lambda good: good + b"\x00\x00\x00\x05",
    "bad crc on last record": lambda good: good + raw_record(b"\x93\x01\x02\x03", crc=12345),
    "crc cut short": lambda good: good + encode_record(b"\x90")[:-1],
}


@pytest.mark.parametrize("name", sorted(TORN))
def test_torn_tail_cut_on_open(tmp_path, name):
    p = tmp_path / "log"
    good = file_of(RECS[:3])
    p.write_bytes(TORN[name](good))
    rf = RecordFile(p, LOG_MAGIC)
    assert rf.repaired is True
    assert rf.records == RECS[:3]
    assert p.read_bytes() == good
    rf.append([RECS[3]])
    rf.close()
    again = reopen(p)
    assert again.records == RECS
    assert again.repaired is False


@pytest.mark.parametrize("data", [b"", b"EASEL-", b"EASEL-LOG/1"])
def test_torn_magic_repaired(tmp_path, data):
    p = tmp_path / "log"
    p.write_bytes(data)
    rf = RecordFile(p, LOG_MAGIC)
    assert rf.records == []
    assert rf.repaired is True
    rf.append([b"\x90"])
    rf.close()
    assert p.read_bytes() == file_of([b"\x90"])


def test_torn_spool_and_secrets_repaired_in_game_store(tmp_path):
    d = tmp_path / "g"
    s = GameStore(d)
    s.spool.append([b"\x90", b"\x91\x00"])
    s.put_secret(2, {"bids": {}}, b"s" * 32)
    s.close()
    with open(d / "spool", "ab") as f:
        f.write(b"\x00\x00\x00\x09abc")
    with open(d / "secrets", "ab") as f:
        f.write(b"\x00\x00")
    s2 = GameStore(d)
    assert s2.repaired
    assert s2.spool.records == [b"\x90", b"\x91\x00"]
    assert s2.secrets == {2: ({"bids": {}}, b"s" * 32)}
    s2.close()


# --------------------------------------------------------------------------- corruption


CORRUPT = {
    "bad crc then more records": lambda: file_of(RECS[:1]) + raw_record(RECS[1], crc=1) + encode_record(RECS[2]),
    "bad crc on first record": lambda: LOG_MAGIC + raw_record(RECS[0], crc=0) + encode_record(RECS[1]),
    "flipped byte in a middle record": lambda: (lambda b: bytes(b[:30]) + bytes([b[30] ^ 1]) + bytes(b[31:]))(file_of(RECS)),
    "zero length then data": lambda: file_of(RECS[:1]) + b"\x00\x00\x00\x00" + encode_record(RECS[1]),
    "huge length then data": lambda: file_of(RECS[:1]) + b"\x7f\xff\xff\xff" + b"z" * 40,
    "wrong magic": lambda: b"EASEL-LOG/9\n" + encode_record(RECS[0]),
    "spool magic in log": lambda: file_of(RECS, SPOOL_MAGIC),
    "not ours": lambda: b"#!/bin/sh\necho hello\n",
}


@pytest.mark.parametrize("name", sorted(CORRUPT))
def test_corruption_refused_and_file_untouched(tmp_path, name):
    p = tmp_path / "log"
    data = CORRUPT[name]()
    p.write_bytes(data)
    mtime = p.stat().st_mtime_ns
    with pytest.raises(StoreError):
        RecordFile(p, LOG_MAGIC)
    assert p.read_bytes() == data
    assert p.stat().st_mtime_ns == mtime


def test_corrupt_length_in_the_middle_is_not_cut(tmp_path):
    p = tmp_path / "log"
    recs = [bytes([i]) * 40 for i in range(6)]
    data = bytearray(file_of(recs))
    off = len(LOG_MAGIC) + 48 * 2
    data[off + 2] ^= 0x10  # record 2 now claims 4096 more bytes than the file holds
    p.write_bytes(bytes(data))
    try:
        rf = RecordFile(p, LOG_MAGIC)
        rf.close()
        kept = rf.records
    except StoreError:
        kept = None
    assert p.read_bytes() == bytes(data), "four valid, fsync'd records were cut"
    assert kept is None


def test_corruption_in_game_store(tmp_path):
    d = tmp_path / "g"
    GameStore(d).close()
    bad = file_of(RECS[:1]) + raw_record(RECS[1], crc=7) + encode_record(RECS[2])
    (d / "log").write_bytes(bad)
    with pytest.raises(StoreError):
        GameStore(d)
    assert (d / "log").read_bytes() == bad


def test_malformed_secret_refused(tmp_path):
    d = tmp_path / "g"
    s = GameStore(d)
    s.secrets_file.append([encode([1, 2])])  # not [phase, value, salt]
    s.close()
    with pytest.raises(StoreError):
        GameStore(d)


# --------------------------------------------------------------------------- truncate and rewrite


def test_truncate(tmp_path):
    p = tmp_path / "log"
    rf = RecordFile(p, LOG_MAGIC)
    rf.append(RECS)
    rf.truncate(10)  # past the end: nothing happens
    assert rf.records == RECS
    rf.truncate(2)
    assert rf.records == RECS[:2]
    assert p.read_bytes() == file_of(RECS[:2])
    rf.append([b"\x90"])
    assert p.read_bytes() == file_of(RECS[:2] + [b"\x90"])
    rf.truncate(0)
    assert p.read_bytes() == LOG_MAGIC and rf.records == [] and rf.offsets == []
    rf.append(RECS[3:])
    rf.close()
    assert reopen(p).records == RECS[3:]


def test_rewrite(tmp_path):
    p = tmp_path / "log"
    rf = RecordFile(p, LOG_MAGIC)
    rf.append(RECS)
    rf.rewrite([b"\x90", b"\x91\x02"])
    assert rf.records == [b"\x90", b"\x91\x02"]
    assert p.read_bytes() == file_of([b"\x90", b"\x91\x02"])
    rf.append([b"\xc0"])
    rf.close()
    assert reopen(p).records == [b"\x90", b"\x91\x02", b"\xc0"]
    assert sorted(x.name for x in tmp_path.iterdir()) == ["log"]  # no temporary file left


def fake_os(**overrides):
    ns = types.SimpleNamespace(**{k: getattr(os, k) for k in dir(os) if not k.startswith("__")})
    for k, v in overrides.items():
        setattr(ns, k, v)
    return ns


def enospc(*a, **k):
    raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("broken", ["write", "fsync", "replace"])
def test_rewrite_failure_leaves_the_old_file(tmp_path, monkeypatch, broken):
    p = tmp_path / "log"
    rf = RecordFile(p, LOG_MAGIC)
    rf.append(RECS)
    before = p.read_bytes()
    monkeypatch.setattr(store_mod, "os", fake_os(**{broken: enospc}))
    with pytest.raises((StoreError, OSError)):
        rf.rewrite([b"\x90"])
    monkeypatch.setattr(store_mod, "os", os)
    assert p.read_bytes() == before
    assert rf.records == RECS
    rf.append([b"\x90"])
    rf.close()
    assert reopen(p).records == RECS + [b"\x90"]


def test_rewrite_short_write_never_replaces_the_log_with_less(tmp_path, monkeypatch):
    p = tmp_path / "log"
    rf = RecordFile(p, LOG_MAGIC)
    rf.append(RECS)
    before = p.read_bytes()
    new = [b"\x90" * 1, b"\xc4\x40" + b"n" * 64, b"\xc4\x40" + b"m" * 64]

    def short_write(fd, data):
        return os.write(fd, data[: max(1, len(data) // 2)])

    monkeypatch.setattr(store_mod, "os", fake_os(write=short_write))
    try:
        rf.rewrite(new)
        failed = False
    except StoreError:
        failed = True
    monkeypatch.setattr(store_mod, "os", os)
    rf.close()
    if failed:
        assert p.read_bytes() == before
    else:
        assert reopen(p).records == new


# --------------------------------------------------------------------------- write failures


def test_fsync_failure_is_disk_full_and_file_unchanged(tmp_path, monkeypatch):
    p = tmp_path / "log"
    rf = RecordFile(p, LOG_MAGIC)
    rf.append(RECS[:2])
    before = p.read_bytes()
    real_fsync = os.fsync
    target = rf._f.fileno()

    def fsync(fd):
        if fd == target:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(StoreError, match="disk full"):
        rf.append([RECS[2], RECS[3]])
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert p.read_bytes() == before
    assert rf.records == RECS[:2]
    assert reopen(p).records == RECS[:2]
    rf.append([RECS[3]])
    rf.close()
    assert reopen(p).records == [RECS[0], RECS[1], RECS[3]]


def test_group_commit_sync_failure_rolls_back(tmp_path, monkeypatch):
    if not hasattr(RecordFile, "sync"):
        pytest.skip("no group commit in this version of the store")
    p = tmp_path / "log"
    rf = RecordFile(p, LOG_MAGIC)
    rf.append(RECS[:1])
    before = p.read_bytes()
    rf.append(RECS[1:2], sync=False)
    rf.append(RECS[2:3], sync=False)
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", enospc)
    with pytest.raises(StoreError, match="disk full"):
        rf.sync()
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert p.read_bytes() == before
    assert rf.records == RECS[:1]
    rf.sync()  # nothing left to sync
    rf.append(RECS[3:])
    rf.close()
    assert reopen(p).records == [RECS[0], RECS[3]]


def test_group_commit_sync_keeps_records(tmp_path):
    if not hasattr(RecordFile, "sync"):
        pytest.skip("no group commit in this version of the store")
    p = tmp_path / "log"
    rf = RecordFile(p, LOG_MAGIC)
    rf.append(RECS[:2], sync=False)
    rf.append(RECS[2:], sync=False)
    rf.sync()
    rf.close()
    assert reopen(p).records == RECS


def test_other_io_error_is_reported_not_as_disk_full(tmp_path, monkeypatch):
    p = tmp_path / "log"
    rf = RecordFile(p, LOG_MAGIC)
    before = p.read_bytes()
    real_fsync = os.fsync

    def fsync(fd):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(StoreError) as exc:
        rf.append([RECS[0]])
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert "disk full" not in str(exc.value)
    assert p.read_bytes() == before
    rf.close()


class FullDisk(io.FileIO):
    """A raw file whose writes fail with ENOSPC while ``full`` is set (what a full disk does)."""

    full = False

    def write(self, b):
        if self.full:
            raise OSError(errno.ENOSPC, "No space left on device")
        return super().write(b)


def with_full_disk(rf: RecordFile) -> FullDisk:
    rf._f.close()
    raw = FullDisk(str(rf.path), "r+")
    rf._f = raw  # RecordFile writes unbuffered, so a failed write leaves nothing behind
    return raw


def test_write_failure_is_disk_full_and_file_unchanged(tmp_path):
    p = tmp_path / "log"
    rf = RecordFile(p, LOG_MAGIC)
    rf.append(RECS[:2])
    before = p.read_bytes()
    raw = with_full_disk(rf)
    raw.full = True
    with pytest.raises(StoreError, match="disk full"):
        rf.append([RECS[2], b"y" * 3000])
    assert p.read_bytes() == before
    assert rf.records == RECS[:2]
    assert reopen(p).records == RECS[:2]
    rf.close()  # nothing of the failed write is left to flush
    assert reopen(p).records == RECS[:2]


def test_append_after_disk_full_recovers(tmp_path):
    p = tmp_path / "log"
    rf = RecordFile(p, LOG_MAGIC)
    rf.append(RECS[:2])
    raw = with_full_disk(rf)
    raw.full = True
    with pytest.raises(StoreError, match="disk full"):
        rf.append([b"y" * 300])
    raw.full = False  # space freed: the peer carries on
    rf.append([b"\x90"])
    rf.close()
    assert p.read_bytes() == file_of(RECS[:2] + [b"\x90"])
    assert reopen(p).records == RECS[:2] + [b"\x90"]


def test_put_secret_failure_keeps_secrets_unchanged(tmp_path, monkeypatch):
    d = tmp_path / "g"
    s = GameStore(d)
    s.put_secret(0, b"v" * 32, b"s" * 32)
    before = (d / "secrets").read_bytes()
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", enospc)
    with pytest.raises(StoreError, match="disk full"):
        s.put_secret(2, {"bids": {"1": 3}}, b"t" * 32)
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert (d / "secrets").read_bytes() == before
    assert 2 not in s.secrets
    s.close()
    s2 = GameStore(d)
    assert s2.secrets == {0: (b"v" * 32, b"s" * 32)}
    s2.close()


# --------------------------------------------------------------------------- secrets


def test_secrets_file_mode_0600(tmp_path):
    old = os.umask(0)
    try:
        s = GameStore(tmp_path / "g")
    finally:
        os.umask(old)
    mode = stat.S_IMODE((tmp_path / "g" / "secrets").stat().st_mode)
    assert mode == 0o600
    s.put_secret(4, [1, 2], b"\x07" * 32)
    assert stat.S_IMODE((tmp_path / "g" / "secrets").stat().st_mode) == 0o600
    s.close()


def test_secrets_persist(tmp_path):
    d = tmp_path / "g"
    s = GameStore(d)
    s.put_secret(0, b"\x01" * 32, b"\x02" * 32)
    s.put_secret(2, {"bids": {"3": 4}, "splash": [1, 2, "R"], "extra": None, "convert": 0}, b"\x03" * 32)
    s.close()
    s2 = GameStore(d)
    assert s2.secrets == {
        0: (b"\x01" * 32, b"\x02" * 32),
        2: ({"bids": {"3": 4}, "splash": [1, 2, "R"], "extra": None, "convert": 0}, b"\x03" * 32),
    }
    s2.close()


def test_sync_own_makes_the_secrets_and_spool_durable_but_not_the_log(tmp_path, monkeypatch):
    """Sending our own new event waits for the secrets and spool fsyncs only (protocol.md §8)."""
    s = GameStore(tmp_path / "g")
    s.log.append([b"placed"], sync=False)
    s.spool.append([b"ours"], sync=False)
    s.put_secret(3, b"move", bytes(32), sync=False)
    synced = []
    real = os.fsync
    monkeypatch.setattr(store_mod.os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
    s.sync_own()
    assert sorted(synced) == sorted([s.secrets_file._f.fileno(), s.spool._f.fileno()])
    assert s.log.unsynced is not None and s.spool.unsynced is None and s.secrets_file.unsynced is None
    synced.clear()
    s.sync()   # an acknowledgement: every file
    assert synced == [s.log._f.fileno()] and s.log.unsynced is None
    synced.clear()
    s.log.sync()
    assert synced == []            # nothing of ours unsynced: no fsync ...
    s.log.sync(force=True)
    assert synced == [s.log._f.fileno()]   # ... unless asked (what an earlier process left in the cache)
    s.close()
