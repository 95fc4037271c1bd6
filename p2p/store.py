"""Durable storage of one game: the canonical log, the spool and our sealed secrets.

Every write is followed by fsync before the caller may send or acknowledge
what it wrote.  A torn tail (crash mid-write) is detected on open and cut;
corruption anywhere else is refused with StoreError, never silently accepted.
A failed write (disk full, I/O error) is rolled back to the previous length
and reported as StoreError; the caller then must not send the event.

Layout: ``<dir>/log`` (canonical entries), ``<dir>/spool`` (events received or
made but not yet placed in the log), ``<dir>/secrets`` (our commitments'
values and salts, mode 0600, never sent before the reveal); the genesis is
the log's first entry and ``<dir>/roster`` says how to reach every seat.
"""

from __future__ import annotations

import errno
import logging
import os
from pathlib import Path

from core.encoding import CanonicalError, decode, encode
from core.logfile import LOG_MAGIC, SECRETS_MAGIC, SPOOL_MAGIC, encode_record, parse

from .fsutil import fsync_dir

log = logging.getLogger("easel.store")


class StoreError(Exception):
    pass


TEMP_SUFFIX = ".tmp"


def temp_path(path: Path) -> Path:
    """Where ``write_atomic(path)`` writes before the rename (``<name>.tmp``)."""
    return path.with_name(path.name + TEMP_SUFFIX) if path.suffix else path.with_suffix(TEMP_SUFFIX)


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _write_fd(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if not n:
            raise OSError(errno.EIO, "short write")
        view = view[n:]


def _write_durably(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` and fsync it; ``fd`` is closed whatever happens."""
    try:
        _write_fd(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Replace ``path`` with ``data`` all at once: write ``<name>.tmp``, fsync, rename, fsync the directory.

    On any failure (disk full, I/O error) the temp file is removed and the
    OSError re-raised: ``path`` keeps its old content (or stays absent) and
    nothing is left behind.
    """
    path = Path(path)
    tmp = temp_path(path)
    try:
        fd = os.open(tmp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, mode)
    except OSError:
        _unlink_quietly(tmp)
        raise
    try:
        _write_durably(fd, data)
        os.replace(tmp, path)
    except BaseException:
        _unlink_quietly(tmp)
        raise
    fsync_dir(path.parent)


def remove_temp_files(directory: Path) -> list[Path]:
    """Delete the ``*.tmp`` files an interrupted ``write_atomic`` (crash, disk full) left in ``directory``.

    They never hold anything the game needs: a temp file is only renamed into
    place once it is complete and durable.  Returns what was removed.
    """
    removed = []
    try:
        leftovers = sorted(Path(directory).glob("*" + TEMP_SUFFIX))
    except OSError:
        return removed
    for p in leftovers:
        try:
            if p.is_file():
                os.unlink(p)
                removed.append(p)
        except OSError:
            pass
    if removed:
        log.info("removed stale temp files: %s", ", ".join(p.name for p in removed))
    return removed


def describe_os_error(path: Path, exc: OSError) -> str:
    """One line for a failed write: 'disk full: could not write X' or 'could not write X: why'."""
    if exc.errno == errno.ENOSPC:
        return "disk full: could not write %s" % path
    return "could not write %s: %s" % (path, exc.strerror or exc)


def _create_record_file(path: Path, magic: bytes, mode: int) -> None:
    """Create a record file holding only its magic, durably; on failure leave no file behind."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, mode)
    except OSError as exc:
        raise StoreError(describe_os_error(path, exc)) from None
    try:
        _write_durably(fd, magic)
    except OSError as exc:
        _unlink_quietly(path)   # a half-made file would only be "repaired" at the next start
        raise StoreError(describe_os_error(path, exc)) from None
    fsync_dir(path.parent)


class RecordFile:
    """An append-only file of records with fsync and torn-tail repair."""

    def __init__(self, path: Path, magic: bytes, mode: int = 0o644) -> None:
        self.path = path
        self.magic = magic
        self.records: list[bytes] = []
        self.offsets: list[int] = []
        self.repaired = False
        self.unsynced: tuple[int, int] | None = None   # (offset, record count) of the first unsynced append
        if not path.exists():
            _create_record_file(path, magic, mode)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise StoreError("cannot read %s: %s" % (path, exc.strerror or exc)) from None
        parsed = parse(data)
        if parsed.problem:
            raise StoreError("%s is corrupt: %s" % (path, parsed.problem))
        if parsed.kind != "?" and data[: len(magic)] != magic and len(data) >= len(magic):
            raise StoreError("%s is not a %r file" % (path, magic))
        self.records = parsed.entries
        self.offsets = parsed.offsets
        self.size = parsed.good if parsed.good else len(magic)
        if parsed.torn or len(data) < len(magic):
            log.warning("%s: torn tail after %d records cut (crash mid-write)", path, len(self.records))
            self.repaired = True
            try:
                with open(path, "r+b") as f:
                    if len(data) < len(magic):
                        f.seek(0)
                        f.write(magic)
                        self.size = len(magic)
                    f.truncate(self.size)
                    f.flush()
                    os.fsync(f.fileno())
            except OSError as exc:
                self._fail(exc)
        try:
            self._f = open(path, "r+b", buffering=0)  # unbuffered: a failed write leaves nothing behind
        except OSError as exc:
            raise StoreError("cannot open %s: %s" % (path, exc.strerror or exc)) from None

    def _write_all(self, data: bytes, offset: int) -> None:
        self._f.seek(offset)
        view = memoryview(data)
        while view:
            n = self._f.write(view)
            if not n:
                raise OSError(errno.EIO, "short write")
            view = view[n:]

    def append(self, items: list[bytes], sync: bool = True) -> None:
        """Append records.  With ``sync=False`` the caller must call ``sync()`` before
        anything that depends on them leaves the process (group commit)."""
        if not items:
            return
        blob = b"".join(encode_record(r) for r in items)
        start = self.size
        try:
            self._write_all(blob, start)
            if sync:
                os.fsync(self._f.fileno())
        except OSError as exc:
            self._undo(start)
            self._fail(exc)
        if not sync and self.unsynced is None:
            self.unsynced = (start, len(self.records))
        pos = start
        for r in items:
            self.offsets.append(pos)
            pos += 8 + len(r)
            self.records.append(r)
        self.size = pos

    def sync(self, force: bool = False) -> None:
        """fsync what ``append(..., sync=False)`` wrote; on failure forget it and raise.
        ``force``: fsync even if this process wrote nothing (what an earlier process
        wrote may still be only in the OS's cache)."""
        if self.unsynced is None:
            if force:
                try:
                    os.fsync(self._f.fileno())
                except OSError as exc:
                    self._fail(exc)
            return
        start, count = self.unsynced
        try:
            os.fsync(self._f.fileno())
        except OSError as exc:
            self._undo(start)
            del self.records[count:]
            del self.offsets[count:]
            self.size = start
            self.unsynced = None
            self._fail(exc)
        self.unsynced = None

    def _fail(self, exc: OSError):
        raise StoreError(describe_os_error(self.path, exc)) from None

    def _undo(self, start: int) -> None:
        try:
            self._f.truncate(start)
            os.fsync(self._f.fileno())
        except OSError:
            pass

    def truncate(self, count: int) -> None:
        """Keep only the first ``count`` records (used when a time-out certificate wins)."""
        if count >= len(self.records):
            return
        size = self.offsets[count]
        self._f.truncate(size)
        os.fsync(self._f.fileno())
        del self.records[count:]
        del self.offsets[count:]
        self.size = size
        self.unsynced = None  # the fsync above covered whatever was left

    def rewrite(self, items: list[bytes]) -> None:
        """Atomically replace the whole file (write a temp file, fsync, rename, fsync dir)."""
        data = self.magic + b"".join(encode_record(r) for r in items)
        try:
            write_atomic(self.path, data, 0o600)
        except OSError as exc:
            self._fail(exc)
        self._f.close()
        try:
            self._f = open(self.path, "r+b", buffering=0)
        except OSError as exc:
            raise StoreError("cannot open %s: %s" % (self.path, exc.strerror or exc)) from None
        self.records = list(items)
        self.offsets = []
        pos = len(self.magic)
        for r in items:
            self.offsets.append(pos)
            pos += 8 + len(r)
        self.size = pos
        self.unsynced = None

    def close(self) -> None:
        try:
            self._f.close()
        except Exception:
            pass


class GameStore:
    def __init__(self, directory: Path) -> None:
        self.dir = Path(directory)
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError("cannot create the game directory %s: %s" % (self.dir, exc.strerror or exc)) from None
        # what a crash or a full disk left half-written: never needed, always safe to drop
        remove_temp_files(self.dir)
        opened: list[RecordFile] = []
        try:
            self.log = RecordFile(self.dir / "log", LOG_MAGIC)
            opened.append(self.log)
            self.spool = RecordFile(self.dir / "spool", SPOOL_MAGIC)
            opened.append(self.spool)
            self.secrets_file = RecordFile(self.dir / "secrets", SECRETS_MAGIC, mode=0o600)
            opened.append(self.secrets_file)
            self.secrets: dict[int, tuple] = {}
            for r in self.secrets_file.records:
                try:
                    phase, value, salt = decode(r)
                    self.secrets[phase] = (value, salt)
                except (CanonicalError, ValueError, TypeError):
                    raise StoreError("%s holds a malformed secret" % self.secrets_file.path) from None
        except BaseException:
            for f in opened:
                f.close()
            raise

    @property
    def repaired(self) -> bool:
        return self.log.repaired or self.spool.repaired or self.secrets_file.repaired

    def put_secret(self, phase: int, value, salt: bytes, sync: bool = True) -> None:
        self.secrets_file.append([encode([phase, value, salt])], sync=sync)
        self.secrets[phase] = (value, salt)

    def sync(self) -> None:
        """Group commit: make everything appended so far durable."""
        for f in (self.secrets_file, self.spool, self.log):
            f.sync()

    def sync_own(self) -> None:
        """Make our own signed events and sealed values durable (secrets, then spool): what
        must be on disk before a frame carrying only our own new event leaves (protocol.md §8)."""
        for f in (self.secrets_file, self.spool):
            f.sync()

    def close(self) -> None:
        for f in (self.log, self.spool, self.secrets_file):
            f.close()
