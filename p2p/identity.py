"""A player's long-term identity: one Ed25519 key pair, kept in a 0600 file.

The key file (``<data_dir>/<name>.key``) is 72 bytes::

    b"EASELID1" || seed (32) || public key (32)

The public key is stored next to the seed so that a damaged file is caught
(the public key derived from the seed must match the stored one) instead of
silently turning into a different identity.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import nacl.exceptions
import nacl.signing

from core.hashing import fingerprint

from .fsutil import fsync_dir

__all__ = [
    "Identity",
    "IdentityError",
    "data_dir",
    "key_path",
    "load_or_create",
    "verify",
    "SEED_SIZE",
    "PUBLIC_SIZE",
    "SIGNATURE_SIZE",
]

SEED_SIZE = 32
PUBLIC_SIZE = 32
SIGNATURE_SIZE = 64
_MAGIC = b"EASELID1"
_FILE_SIZE = len(_MAGIC) + SEED_SIZE + PUBLIC_SIZE


class IdentityError(Exception):
    """The identity key file is missing, unreadable, damaged or unsafe."""


class Identity:
    """An Ed25519 signing identity."""

    __slots__ = ("_signing_key", "_seed", "public", "fingerprint")

    def __init__(self, seed: bytes) -> None:
        if not isinstance(seed, (bytes, bytearray)) or len(seed) != SEED_SIZE:
            raise ValueError(f"an Ed25519 seed is {SEED_SIZE} bytes")
        self._seed = bytes(seed)
        self._signing_key = nacl.signing.SigningKey(self._seed)
        self.public: bytes = bytes(self._signing_key.verify_key)
        self.fingerprint: str = fingerprint(self.public)

    @classmethod
    def generate(cls) -> "Identity":
        return cls(os.urandom(SEED_SIZE))

    @property
    def seed(self) -> bytes:
        """The 32-byte private seed.  Keep it secret."""
        return self._seed

    @property
    def signing_key(self) -> nacl.signing.SigningKey:
        return self._signing_key

    def sign(self, msg: bytes) -> bytes:
        """64-byte detached Ed25519 signature of ``msg``."""
        return self._signing_key.sign(bytes(msg)).signature

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Identity) and other.public == self.public

    def __hash__(self) -> int:
        return hash(self.public)

    def __repr__(self) -> str:  # never show the seed
        return f"Identity({self.fingerprint})"


def verify(public: bytes, msg: bytes, sig: bytes) -> bool:
    """True iff ``sig`` is a valid Ed25519 signature of ``msg`` by ``public``.

    Never raises: wrong types or lengths, or a public key that is not a valid
    curve point, give False.
    """
    try:
        if not isinstance(public, (bytes, bytearray, memoryview)):
            return False
        if not isinstance(sig, (bytes, bytearray, memoryview)):
            return False
        if not isinstance(msg, (bytes, bytearray, memoryview)):
            return False
        public, sig, msg = bytes(public), bytes(sig), bytes(msg)
        if len(public) != PUBLIC_SIZE or len(sig) != SIGNATURE_SIZE:
            return False
        nacl.signing.VerifyKey(public).verify(msg, sig)
        return True
    except (nacl.exceptions.BadSignatureError, nacl.exceptions.CryptoError,
            ValueError, TypeError):
        return False


def data_dir() -> Path:
    """Where Easel keeps its files: ``$EASEL_HOME``, else the XDG data dir."""
    home = os.environ.get("EASEL_HOME")
    if home:
        return Path(home).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    if xdg and os.path.isabs(xdg):  # the XDG spec says relative values are ignored
        return Path(xdg) / "easel"
    return Path.home() / ".local" / "share" / "easel"


def key_path(path: Path | str | None = None, name: str = "identity") -> Path:
    """The key file ``load_or_create(path, name)`` uses.

    ``path`` is a directory (default: ``data_dir()``) holding ``<name>.key``;
    a ``path`` that itself ends in ``.key`` is taken as the key file.
    """
    if path is None:
        return data_dir() / f"{name}.key"
    p = Path(path).expanduser()
    if p.suffix == ".key":
        return p
    return p / f"{name}.key"


def _write_new(file: Path, data: bytes) -> None:
    fd = os.open(file, os.O_CREAT | os.O_EXCL | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        os.fsync(fd)
    finally:
        os.close(fd)


def _create(file: Path) -> Identity | None:
    """Write a fresh key to ``file``; None if another process got there first.

    The key is written and fsynced under a temporary name, then hard-linked to
    its final name, so nobody can ever read a half-written key file; link()
    fails if the name exists, so two first runs racing never overwrite.
    """
    ident = Identity.generate()
    data = _MAGIC + ident.seed + ident.public
    d = file.parent
    d.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = d / f".{file.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    _write_new(tmp, data)
    try:
        try:
            os.link(tmp, file)
        except FileExistsError:
            return None
        except OSError:
            # Filesystem without hard links: create the final name directly.
            try:
                _write_new(file, data)
            except FileExistsError:
                return None
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    fsync_dir(d)
    return ident


def _load(file: Path) -> Identity:
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise IdentityError(f"cannot open identity key file {file}: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise IdentityError(f"identity key file {file} is not a regular file")
        if os.name == "posix" and st.st_mode & 0o077:
            raise IdentityError(
                f"identity key file {file} is accessible by group/others "
                f"(mode {stat.S_IMODE(st.st_mode):04o}); refusing to use it. "
                f"Run: chmod 600 '{file}'"
            )
        chunks = []
        total = 0
        while total <= _FILE_SIZE:
            b = os.read(fd, _FILE_SIZE + 1 - total)
            if not b:
                break
            chunks.append(b)
            total += len(b)
        data = b"".join(chunks)
    except OSError as e:
        raise IdentityError(f"cannot read identity key file {file}: {e.strerror or e}") from None
    finally:
        os.close(fd)

    if len(data) != _FILE_SIZE:
        raise IdentityError(
            f"identity key file {file} is damaged: {len(data)} bytes, expected {_FILE_SIZE}"
        )
    if not data.startswith(_MAGIC):
        raise IdentityError(f"identity key file {file} is not an Easel key file (bad header)")
    seed = data[len(_MAGIC) : len(_MAGIC) + SEED_SIZE]
    public = data[len(_MAGIC) + SEED_SIZE :]
    ident = Identity(seed)
    if ident.public != public:
        raise IdentityError(
            f"identity key file {file} is damaged: the stored public key does not match the seed"
        )
    return ident


def load_or_create(path: Path | str | None = None, name: str = "identity") -> Identity:
    """Load ``<dir>/<name>.key`` (see ``key_path``), creating it on first run.

    Raises IdentityError (naming the file) if it exists but is damaged,
    unreadable or accessible by group/others.
    """
    if not name or "/" in name or "\\" in name or name in (".", ".."):
        raise ValueError(f"bad identity name {name!r}")
    file = key_path(path, name)
    if not os.path.lexists(file):
        try:
            ident = _create(file)
        except OSError as e:
            raise IdentityError(f"cannot create identity key file {file}: {e.strerror or e}") from None
        if ident is not None:
            return ident
    return _load(file)
