"""TCP + mutual TLS 1.3, authenticated by Ed25519 identity keys (no PKI).

Every peer presents a self-signed X.509 certificate whose key *is* its
Ed25519 identity key (``make_certificate``).  Trust is pinning:

* sealed table (``pinned`` = list of the seats' certificates): both sides
  require a certificate, and only the pinned ones verify;
* lobby (``pinned=None``): the client does not verify and the server does not
  ask for a client certificate; the application authenticates the peer
  itself afterwards (TLS still proves the server holds the key in its
  certificate, so ``connect(..., expect_key=...)`` is meaningful).

On top of the X.509 check, ``connect`` and ``serve`` also require the peer's
*leaf* key to be one of the pinned keys (a pinned certificate is CA:TRUE, so
X.509 alone would also accept a certificate it signed), and ``connect``
checks ``expect_key`` (the key of the seat being dialled).

TLS 1.3 caveat: the client's handshake completes before the server has
checked the client's certificate.  A client the server refuses sees that
only on its first receive (a TLS alert -> ConnectionClosed / BrokenResourceError),
not in ``connect``.
"""

from __future__ import annotations

import datetime
import hashlib
import logging
import os
import shutil
import ssl
import sys
import tempfile
from contextvars import ContextVar
from typing import Any, Awaitable, Callable, Iterable

import trio
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from core.hashing import fingerprint

from .limits import DEFAULT as DEFAULT_LIMITS
from .limits import Limits, RateLimitedLog

__all__ = [
    "TLSError",
    "TLSPinError",
    "TLSHandshakeError",
    "HANDSHAKE_TIMEOUT",
    "make_certificate",
    "cert_public_key",
    "server_context",
    "client_context",
    "pinned_keys",
    "peer_public_key",
    "connect",
    "serve",
    "ListenerStats",
    "use_route",
    "route",
    "peer_host",
]

log = logging.getLogger(__name__)

HANDSHAKE_TIMEOUT = 10.0   # s: ``connect``'s default (the lobby joiner's; a game node dials with node.DIAL_TIMEOUT), protocol.md §9.2
_NOT_BEFORE = datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc)
_NOT_AFTER = datetime.datetime(9999, 12, 31, 23, 59, 59, tzinfo=datetime.timezone.utc)
# Attribute set on the contexts we build: frozenset of pinned raw public keys, or None.
_PIN_ATTR = "easel_pinned_keys"

# Where a connection goes when it is not plain TCP: an object with ``owns(host) -> bool``, ``await open(host, port)``
# (a trio Stream) and ``await serve(port, one, task_status)`` (p2p/internet.py's Node: a "host" that is a libp2p
# peer id is reached through libp2p, and our listeners serve libp2p streams).  A context variable: the tasks a
# command starts after ``use_route`` inherit it; nothing else changes.
_ROUTE: ContextVar[Any] = ContextVar("easel_route", default=None)


def use_route(node: Any) -> None:
    """From now on (in this task and the tasks it starts), dial and listen through ``node`` (None: plain TCP)."""
    _ROUTE.set(node)


def route() -> Any:
    """The route in force (p2p/internet.py's Node), or None for plain TCP."""
    return _ROUTE.get()


def peer_host(stream: Any) -> str | None:
    """Where the other end of a connection (a TLS stream, or its transport) is: an IP address for TCP, the
    libp2p peer id over the internet route; None if unknown."""
    t = getattr(stream, "transport_stream", stream)
    peer = getattr(t, "peer", None)
    if isinstance(peer, str):
        return peer
    try:
        return str(t.socket.getpeername()[0])
    except (OSError, AttributeError, IndexError):
        return None


class TLSError(Exception):
    """Base class for transport-security errors."""


class TLSPinError(TLSError):
    """The peer's key is not the one expected (or its certificate is not Ed25519)."""


class TLSHandshakeError(TLSError):
    """The TLS handshake failed or timed out (``__cause__`` has the details)."""


# --------------------------------------------------------------------------
# certificates


def _private_key(identity) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(identity.seed)


def make_certificate(identity) -> bytes:
    """The identity's self-signed certificate (DER), byte-for-byte deterministic."""
    key = _private_key(identity)
    pub = key.public_key()
    raw = pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    if raw != identity.public:
        raise ValueError("identity seed and public key disagree")
    # Positive, non-zero, at most 20 octets (RFC 5280 4.1.2.2).
    serial = int.from_bytes(hashlib.sha256(b"easel/1/cert-serial\x00" + raw).digest()[:16], "big")
    serial = (serial >> 1) | 1
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, fingerprint(raw))])
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(pub)
        .serial_number(serial)
        .not_valid_before(_NOT_BEFORE)
        .not_valid_after(_NOT_AFTER)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]),
            critical=False,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(pub), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(pub), critical=False)
    )
    cert = builder.sign(key, algorithm=None)  # Ed25519: no separate hash; signature is deterministic
    return cert.public_bytes(serialization.Encoding.DER)


def cert_public_key(der: bytes) -> bytes:
    """Raw 32-byte Ed25519 public key of a DER certificate; TLSPinError otherwise."""
    try:
        cert = x509.load_der_x509_certificate(bytes(der))
        pub = cert.public_key()
    except Exception as e:  # ValueError, TypeError, UnsupportedAlgorithm, ...
        raise TLSPinError(f"not a usable X.509 certificate: {e}") from None
    if not isinstance(pub, Ed25519PublicKey):
        raise TLSPinError(f"certificate key is {type(pub).__name__}, not Ed25519")
    return pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


# --------------------------------------------------------------------------
# contexts


def _load_own_chain(ctx: ssl.SSLContext, identity) -> None:
    """Load our certificate + key into ``ctx``.

    The stdlib (through 3.13) can only load a certificate chain from files.
    We write one PEM (certificate + key) to an anonymous in-memory file
    (memfd, read back through /proc/self/fd) where the OS has it, else to a
    0600 file in a private 0700 temporary directory that is removed at once.
    Either way the key is additionally encrypted under a one-time random
    password, so the bytes that touch a file are useless on their own.
    """
    password = os.urandom(32).hex().encode()
    pem = make_certificate_pem(identity) + _private_key(identity).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(password),
    )

    if hasattr(os, "memfd_create") and sys.platform.startswith("linux"):
        try:
            fd = os.memfd_create("easel-tls", getattr(os, "MFD_CLOEXEC", 0))
        except OSError:
            fd = -1
        if fd >= 0:
            try:
                os.write(fd, pem)
                path = f"/proc/self/fd/{fd}"
                if os.path.exists(path):
                    ctx.load_cert_chain(path, password=password)
                    return
            finally:
                os.close(fd)

    d = tempfile.mkdtemp(prefix="easel-tls-")  # mode 0700
    try:
        path = os.path.join(d, "chain.pem")
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        try:
            os.write(fd, pem)
        finally:
            os.close(fd)
        ctx.load_cert_chain(path, password=password)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def make_certificate_pem(identity) -> bytes:
    return ssl.DER_cert_to_PEM_cert(make_certificate(identity)).encode("ascii")


def _pin(ctx: ssl.SSLContext, pinned: Iterable[bytes] | None) -> None:
    if pinned is None:
        setattr(ctx, _PIN_ATTR, None)
        return
    certs = [bytes(c) for c in pinned]
    if not certs:
        raise ValueError("pinned must list at least one certificate (or be None for lobby mode)")
    keys = frozenset(cert_public_key(c) for c in certs)  # TLSPinError for a non-Ed25519 pin
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_verify_locations(cadata=b"".join(certs))
    setattr(ctx, _PIN_ATTR, keys)


def _base_context(protocol: int, identity) -> ssl.SSLContext:
    ctx = ssl.SSLContext(protocol)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.maximum_version = ssl.TLSVersion.TLSv1_3
    ctx.check_hostname = False
    _load_own_chain(ctx, identity)
    return ctx


_ANON_ATTR = "_easel_anonymous"


def server_context(identity, pinned: list[bytes] | None, spectators: bool = False) -> ssl.SSLContext:
    """Server side.  ``pinned``: the client certificates (DER) to accept; None = lobby.

    ``spectators`` (game mode): a client that sends no certificate at all is let
    through too (``peer_public_key`` is then None: a spectator, protocol.md §9.8);
    a client certificate, if sent, must still be pinned."""
    ctx = _base_context(ssl.PROTOCOL_TLS_SERVER, identity)
    ctx.num_tickets = 0  # we never resume sessions
    ctx.verify_mode = ssl.CERT_NONE  # lobby: do not ask for a client certificate
    _pin(ctx, pinned)
    if spectators and pinned is not None:
        ctx.verify_mode = ssl.CERT_OPTIONAL
        setattr(ctx, _ANON_ATTR, True)
    return ctx


def spectator_context() -> ssl.SSLContext:
    """Client side for a spectator: TLS 1.3, no client certificate, the server's key checked by the
    caller (it must be a seat of the genesis the server sends)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.maximum_version = ssl.TLSVersion.TLSv1_3
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    setattr(ctx, _PIN_ATTR, None)
    return ctx


def client_context(identity, pinned: list[bytes] | None) -> ssl.SSLContext:
    """Client side.  ``pinned``: the server certificates (DER) to accept; None = lobby."""
    ctx = _base_context(ssl.PROTOCOL_TLS_CLIENT, identity)
    ctx.verify_mode = ssl.CERT_NONE  # lobby: the application checks the key itself
    _pin(ctx, pinned)
    return ctx


def pinned_keys(ctx: ssl.SSLContext) -> frozenset[bytes] | None:
    """The raw keys pinned in a context made here (None: lobby / foreign context)."""
    return getattr(ctx, _PIN_ATTR, None)


# --------------------------------------------------------------------------
# streams


def peer_public_key(stream: trio.SSLStream) -> bytes | None:
    """The peer's Ed25519 key (from its leaf certificate), or None if it sent none.

    Call after the handshake.  TLSPinError if the certificate is not Ed25519.
    """
    try:
        der = stream.getpeercert(binary_form=True)
    except trio.NeedHandshakeError:
        raise TLSError("peer_public_key() called before the TLS handshake") from None
    if not der:
        return None
    return cert_public_key(der)


def _check_peer(stream: trio.SSLStream, ctx: ssl.SSLContext, expect_key: bytes | None) -> bytes | None:
    key = peer_public_key(stream)
    keys = pinned_keys(ctx)
    if key is None and getattr(ctx, _ANON_ATTR, False):
        return None     # a spectator (server_context(spectators=True))
    if keys is not None and key not in keys:
        raise TLSPinError(
            f"peer key {fingerprint(key) if key else '(none)'} is not one of the pinned keys"
        )
    if expect_key is not None and key != bytes(expect_key):
        raise TLSPinError(
            f"peer key {fingerprint(key) if key else '(none)'} is not the expected "
            f"{fingerprint(bytes(expect_key))}"
        )
    return key


def _reason(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    if cause is not None and str(cause):
        return f"{type(cause).__name__}: {cause}"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


class _HandshakeLate(TLSHandshakeError):
    """The TLS handshake took longer than its deadline."""


async def _handshake(stream: trio.SSLStream, timeout: float, who: str) -> None:
    """Run ``stream``'s TLS handshake within ``timeout`` s (the dialler's and the listener's alike);
    ``who`` ("with HOST:PORT", "from HOST:PORT") names the other end in the error:
    ``TLSHandshakeError`` if it fails (``__cause__`` has the details), ``_HandshakeLate`` if it is late."""
    with trio.move_on_after(timeout) as scope:
        try:
            await stream.do_handshake()
        except (trio.BrokenResourceError, ssl.SSLError, OSError) as e:
            raise TLSHandshakeError(f"TLS handshake {who} failed: {_reason(e)}") from e
    if scope.cancelled_caught:
        raise _HandshakeLate(f"TLS handshake {who} timed out after {timeout} s")


async def connect(
    host: str,
    port: int,
    ctx: ssl.SSLContext,
    expect_key: bytes | None,
    *,
    timeout: float = HANDSHAKE_TIMEOUT,
) -> trio.SSLStream:
    """Dial, run the TLS handshake, and check the server's key.

    Raises OSError if the TCP connection fails, TLSHandshakeError if the
    handshake fails or takes longer than ``timeout``, TLSPinError if the
    server's key is not pinned / not ``expect_key``.
    """
    r = _ROUTE.get()
    if r is not None and r.owns(host):
        tcp = await r.open(host, port)
    else:
        tcp = await trio.open_tcp_stream(host, port)
    stream = trio.SSLStream(tcp, ctx, server_side=False)
    ok = False
    try:
        await _handshake(stream, timeout, f"with {host}:{port}")
        _check_peer(stream, ctx, expect_key)
        ok = True
        return stream
    finally:
        if not ok:
            await trio.aclose_forcefully(stream)


async def _close_gracefully(stream: trio.SSLStream, timeout: float = 2.0) -> None:
    """Send close_notify (so the peer sees a clean EOF), but never hang or raise."""
    with trio.move_on_after(timeout):
        try:
            await stream.aclose()
            return
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
    await trio.aclose_forcefully(stream)


Handler = Callable[[trio.SSLStream], Awaitable[object]]


class ListenerStats:
    """What a listener holds right now (for limits and tests): no entry outlives its connection."""

    def __init__(self) -> None:
        self.handshaking = 0
        self.open = 0
        self.peak_handshaking = 0
        self.peak_open = 0
        self.accepted = 0
        self.refused = 0           # closed at once: over a connection/handshake limit
        self.failed = 0            # handshake failed or timed out, or key refused
        self.by_addr: dict[str, int] = {}        # open connections per IP address
        self.hs_by_addr: dict[str, int] = {}     # handshakes in progress per IP address


def _dec(d: dict, k: str) -> None:
    n = d.get(k, 0) - 1
    if n > 0:
        d[k] = n
    else:
        d.pop(k, None)


async def serve(
    port: int,
    ctx: ssl.SSLContext,
    handler: Handler,
    host: str = "127.0.0.1",
    task_status=trio.TASK_STATUS_IGNORED,
    *,
    handshake_timeout: float | None = None,
    limits: Limits | None = None,
    stats: ListenerStats | None = None,
) -> None:
    """Accept TLS connections forever, calling ``await handler(stream)`` for each.

    ``task_status.started(port)`` reports the bound port (use port=0 for any).
    Limits (``limits``, default p2p.limits.DEFAULT; protocol.md §13.1): a connection
    over MAX_CONNS / MAX_CONNS_PER_ADDR open connections, or over MAX_HANDSHAKES /
    MAX_HANDSHAKES_PER_ADDR handshakes in progress, is closed at once without TLS;
    each handshake gets HANDSHAKE_DEADLINE seconds.  Refusals and failed handshakes
    are logged (logger ``p2p.tls``) at most once per limit and address every 10 s,
    with a count of the lines suppressed.  An exception escaping ``handler`` is
    logged too and only closes that connection: nothing but cancellation ever
    leaves ``serve``.  The stream is closed when ``handler`` returns.
    """
    lim = limits or DEFAULT_LIMITS
    if handshake_timeout is None:
        handshake_timeout = lim.handshake_deadline
    st = stats if stats is not None else ListenerStats()
    rl = RateLimitedLog(log)
    r = _ROUTE.get()

    async def one(tcp: trio.abc.Stream) -> None:
        if isinstance(getattr(tcp, "peer", None), str):
            addr = where = tcp.peer     # a libp2p stream: its peer id
        else:
            try:
                peer = tcp.socket.getpeername()
                addr, where = str(peer[0]), f"{peer[0]}:{peer[1]}"
            except OSError:
                addr = where = "?"
        st.accepted += 1
        over = None
        if st.open >= lim.max_conns:
            over = ("MAX_CONNS", "%d connections open" % st.open)
        elif st.by_addr.get(addr, 0) >= lim.max_conns_per_addr:
            over = ("MAX_CONNS_PER_ADDR", "%d connections open from %s" % (st.by_addr[addr], addr))
        elif st.handshaking >= lim.max_handshakes:
            over = ("MAX_HANDSHAKES", "%d TLS handshakes in progress" % st.handshaking)
        elif st.hs_by_addr.get(addr, 0) >= lim.max_handshakes_per_addr:
            over = ("MAX_HANDSHAKES_PER_ADDR", "%d TLS handshakes in progress from %s" % (st.hs_by_addr[addr], addr))
        if over is not None:
            st.refused += 1
            rl.note(over[0], addr, "refused a connection from %s: %s", where, over[1])
            await trio.aclose_forcefully(tcp)
            return
        st.open += 1
        st.by_addr[addr] = st.by_addr.get(addr, 0) + 1
        st.peak_open = max(st.peak_open, st.open)
        st.handshaking += 1
        st.hs_by_addr[addr] = st.hs_by_addr.get(addr, 0) + 1
        st.peak_handshaking = max(st.peak_handshaking, st.handshaking)
        handshaking = True
        stream = trio.SSLStream(tcp, ctx, server_side=True)
        graceful = False
        try:
            try:
                await _handshake(stream, handshake_timeout, f"from {where}")
            except TLSHandshakeError as e:
                st.failed += 1
                rl.note("HANDSHAKE_DEADLINE" if isinstance(e, _HandshakeLate) else "HANDSHAKE_FAILED", addr, "%s", e)
                return
            try:
                _check_peer(stream, ctx, None)
            except TLSError as e:
                st.failed += 1
                rl.note("HANDSHAKE_FAILED", addr, "refused TLS peer %s: %s", where, e)
                return
            handshaking = False
            st.handshaking -= 1
            _dec(st.hs_by_addr, addr)
            try:
                await handler(stream)
                graceful = True
            except Exception:
                log.exception("connection handler for %s raised", where)
        finally:
            if handshaking:
                st.handshaking -= 1
                _dec(st.hs_by_addr, addr)
            st.open -= 1
            _dec(st.by_addr, addr)
            if graceful:
                await _close_gracefully(stream)
            else:
                await trio.aclose_forcefully(stream)
            del stream, tcp

    if r is not None:
        await r.serve(port, one, task_status=task_status)
        return
    listeners = await trio.open_tcp_listeners(port, host=host)
    task_status.started(listeners[0].socket.getsockname()[1])
    await trio.serve_listeners(one, listeners)
