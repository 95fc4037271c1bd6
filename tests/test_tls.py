import datetime
import logging
import os
import socket
import ssl
import stat

import pytest
import trio
import trio.testing
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.x509.oid import NameOID

from core.hashing import fingerprint
from p2p.framing import ConnectionClosed, FramedStream, FrameError
from p2p.identity import Identity, IdentityError, data_dir, load_or_create, verify
from p2p.tls import (
    TLSError,
    TLSHandshakeError,
    TLSPinError,
    cert_public_key,
    client_context,
    connect,
    make_certificate,
    peer_public_key,
    serve,
    server_context,
)

TIMEOUT = 20
HOST = "127.0.0.1"


# ====================================================================== identity


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "easel-home"
    monkeypatch.setenv("EASEL_HOME", str(h))
    return h


def test_identity_sign_verify():
    a = Identity.generate()
    assert len(a.public) == 32 and len(a.seed) == 32
    assert a.fingerprint == fingerprint(a.public)
    sig = a.sign(b"msg")
    assert len(sig) == 64
    assert verify(a.public, b"msg", sig)
    assert not verify(a.public, b"msh", sig)
    assert not verify(Identity.generate().public, b"msg", sig)
    assert Identity(a.seed).public == a.public
    assert a.seed.hex() not in repr(a)


@pytest.mark.parametrize(
    "public,msg,sig",
    [
        (b"", b"m", b"\x00" * 64),
        (b"\x00" * 31, b"m", b"\x00" * 64),
        (b"\x00" * 32, b"m", b"\x00" * 63),
        (b"\xff" * 32, b"m", b"\xff" * 64),
        (None, b"m", b"\x00" * 64),
        (b"\x00" * 32, "m", b"\x00" * 64),
        ("x" * 32, b"m", b"\x00" * 64),
        (b"\x00" * 32, b"m", None),
    ],
)
def test_verify_never_raises(public, msg, sig):
    assert verify(public, msg, sig) is False


def test_data_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("EASEL_HOME", str(tmp_path / "eh"))
    assert data_dir() == tmp_path / "eh"
    monkeypatch.delenv("EASEL_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "xdg" / "easel"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert data_dir() == tmp_path / "h" / ".local" / "share" / "easel"


def test_create_then_load(home):
    a = load_or_create()
    f = home / "identity.key"
    assert f.is_file()
    assert stat.S_IMODE(f.stat().st_mode) == 0o600
    b = load_or_create()
    assert b.public == a.public and b.seed == a.seed
    # another name is another identity
    c = load_or_create(name="bot1")
    assert (home / "bot1.key").is_file() and c.public != a.public
    # no temp files left behind
    assert sorted(p.name for p in home.iterdir()) == ["bot1.key", "identity.key"]


def test_explicit_path(tmp_path):
    a = load_or_create(tmp_path / "dir")
    assert (tmp_path / "dir" / "identity.key").is_file()
    assert load_or_create(tmp_path / "dir" / "identity.key").public == a.public


def test_world_readable_refused(home):
    load_or_create()
    f = home / "identity.key"
    os.chmod(f, 0o644)
    with pytest.raises(IdentityError, match="chmod 600") as ei:
        load_or_create()
    assert str(f) in str(ei.value)
    os.chmod(f, 0o640)
    with pytest.raises(IdentityError, match="chmod 600"):
        load_or_create()
    os.chmod(f, 0o600)
    load_or_create()


@pytest.mark.parametrize("mutate", ["short", "empty", "long", "magic", "flip-seed"])
def test_corrupt_file(home, mutate):
    load_or_create()
    f = home / "identity.key"
    data = f.read_bytes()
    bad = {
        "short": data[:40],
        "empty": b"",
        "long": data + b"\x00",
        "magic": b"X" + data[1:],
        "flip-seed": data[:10] + bytes([data[10] ^ 1]) + data[11:],
    }[mutate]
    f.write_bytes(bad)
    os.chmod(f, 0o600)
    with pytest.raises(IdentityError) as ei:
        load_or_create()
    assert str(f) in str(ei.value)


def test_unreadable_path_is_identity_error(home):
    home.mkdir(parents=True)
    (home / "identity.key").mkdir()  # a directory where the key should be
    with pytest.raises(IdentityError):
        load_or_create()


# ====================================================================== certificates


def test_certificate_deterministic_and_key():
    a = Identity.generate()
    der = make_certificate(a)
    assert make_certificate(a) == der
    assert make_certificate(Identity(a.seed)) == der
    assert cert_public_key(der) == a.public
    cert = x509.load_der_x509_certificate(der)
    assert cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == a.fingerprint
    assert cert.issuer == cert.subject
    assert cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier)
    b = Identity.generate()
    assert make_certificate(b) != der and cert.serial_number != x509.load_der_x509_certificate(
        make_certificate(b)
    ).serial_number


def _ec_cert() -> bytes:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "ec")])
    now = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.DER)


def test_cert_public_key_rejects_garbage_and_non_ed25519():
    with pytest.raises(TLSPinError):
        cert_public_key(b"not a certificate")
    with pytest.raises(TLSPinError):
        cert_public_key(b"")
    with pytest.raises(TLSPinError, match="Ed25519"):
        cert_public_key(_ec_cert())
    with pytest.raises(TLSPinError):
        server_context(Identity.generate(), [_ec_cert()])


def test_contexts_are_tls13_only():
    a = Identity.generate()
    for ctx in (client_context(a, None), server_context(a, [make_certificate(a)])):
        assert ctx.minimum_version == ssl.TLSVersion.TLSv1_3
        assert ctx.maximum_version == ssl.TLSVersion.TLSv1_3
        assert ctx.check_hostname is False
    assert client_context(a, [make_certificate(a)]).verify_mode == ssl.CERT_REQUIRED
    assert server_context(a, [make_certificate(a)]).verify_mode == ssl.CERT_REQUIRED
    assert client_context(a, None).verify_mode == ssl.CERT_NONE
    assert server_context(a, None).verify_mode == ssl.CERT_NONE


# ====================================================================== TLS over loopback


@pytest.fixture
def ids():
    return [Identity.generate() for _ in range(3)]


async def echo_handler(stream):
    f = FramedStream(stream)
    while True:
        try:
            m = await f.receive()
        except (ConnectionClosed, FrameError):
            return
        await f.send(b"echo:" + m)


async def _expect_refused_client(port, ctx, expect_key):
    """A client the server refuses: in TLS 1.3 the client's handshake may
    complete before the server has checked its certificate, so the error can
    show up in connect() or at the first receive."""
    try:
        s = await connect(HOST, port, ctx, expect_key)
    except TLSHandshakeError:
        return
    f = FramedStream(s)
    try:
        with pytest.raises((ConnectionClosed, FrameError)):
            await f.send(b"let me in")
            await f.receive()
    finally:
        await f.aclose()


async def test_pinned_peers_exchange_frames(ids):
    a, b, _ = ids
    seen = {}

    async def handler(stream):
        seen["version"] = stream.version()
        seen["client_key"] = peer_public_key(stream)
        f = FramedStream(stream)
        await f.send(b"hello from server")
        assert await f.receive() == b"hello from client"
        await f.send(b"bye")

    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as n:
            port = await n.start(serve, 0, server_context(a, [make_certificate(b)]), handler)
            assert isinstance(port, int) and port > 0
            s = await connect(HOST, port, client_context(b, [make_certificate(a)]), a.public)
            assert s.version() == "TLSv1.3"
            assert peer_public_key(s) == a.public
            f = FramedStream(s)
            assert await f.receive() == b"hello from server"
            await f.send(b"hello from client")
            assert await f.receive() == b"bye"
            with pytest.raises(ConnectionClosed):  # server closed gracefully
                await f.receive()
            await f.aclose()
            n.cancel_scope.cancel()
    assert seen == {"version": "TLSv1.3", "client_key": b.public}


async def test_table_with_several_pins(ids):
    a, b, c = ids
    certs = [make_certificate(x) for x in ids]
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as n:
            port = await n.start(serve, 0, server_context(a, certs), echo_handler)
            for me in (b, c, a):
                s = await connect(HOST, port, client_context(me, certs), a.public)
                f = FramedStream(s)
                await f.send(me.public)
                assert await f.receive() == b"echo:" + me.public
                await f.aclose()
            n.cancel_scope.cancel()


async def test_client_not_pinned_by_server_is_refused(ids, caplog):
    a, b, c = ids
    caplog.set_level(logging.WARNING, logger="p2p.tls")
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as n:
            port = await n.start(serve, 0, server_context(a, [make_certificate(b)]), echo_handler)
            # c trusts a, but a only accepts b.
            await _expect_refused_client(port, client_context(c, [make_certificate(a)]), a.public)
            # The server is still fine for b.
            s = await connect(HOST, port, client_context(b, [make_certificate(a)]), a.public)
            f = FramedStream(s)
            await f.send(b"x")
            assert await f.receive() == b"echo:x"
            await f.aclose()
            n.cancel_scope.cancel()
    assert any("handshake" in r.getMessage() and "failed" in r.getMessage() for r in caplog.records)


async def test_client_without_certificate_is_refused_by_pinned_server(ids):
    a, b, _ = ids
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as n:
            port = await n.start(serve, 0, server_context(a, [make_certificate(b)]), echo_handler)
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # no client certificate at all
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            await _expect_refused_client(port, ctx, a.public)
            n.cancel_scope.cancel()


async def test_server_not_pinned_by_client_is_refused(ids, caplog):
    a, b, c = ids
    caplog.set_level(logging.WARNING, logger="p2p.tls")
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as n:
            # Server a accepts b, but b only trusts c.
            port = await n.start(serve, 0, server_context(a, [make_certificate(b)]), echo_handler)
            with pytest.raises(TLSHandshakeError, match="certificate verify failed"):
                await connect(HOST, port, client_context(b, [make_certificate(c)]), None)
            n.cancel_scope.cancel()


async def test_wrong_expect_key(ids):
    a, b, c = ids
    certs = [make_certificate(x) for x in ids]
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as n:
            port = await n.start(serve, 0, server_context(a, certs), echo_handler)
            # a is pinned (so TLS succeeds), but we dialled expecting seat c.
            with pytest.raises(TLSPinError, match="not the expected"):
                await connect(HOST, port, client_context(b, certs), c.public)
            n.cancel_scope.cancel()


async def test_lobby_mode(ids):
    a, b, c = ids
    seen = {}

    async def handler(stream):
        seen["client_key"] = peer_public_key(stream)
        await echo_handler(stream)

    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as n:
            port = await n.start(serve, 0, server_context(a, None), handler)
            s = await connect(HOST, port, client_context(b, None), a.public)
            assert peer_public_key(s) == a.public
            assert s.version() == "TLSv1.3"
            f = FramedStream(s)
            await f.send(b"hi")
            assert await f.receive() == b"echo:hi"
            await f.aclose()
            # lobby: no client cert requested
            assert seen["client_key"] is None
            # expect_key still enforced without pins
            with pytest.raises(TLSPinError):
                await connect(HOST, port, client_context(b, None), c.public)
            n.cancel_scope.cancel()


def _issued_by(issuer: Identity, subject_key: Ed25519PrivateKey) -> bytes:
    """A certificate for ``subject_key`` signed by ``issuer``'s (CA:TRUE) certificate."""
    issuer_cert = x509.load_der_x509_certificate(make_certificate(issuer))
    issuer_key = Ed25519PrivateKey.from_private_bytes(issuer.seed)
    pub = subject_key.public_key()
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "mallory")]))
        .issuer_name(issuer_cert.subject)
        .public_key(pub)
        .serial_number(12345)
        .not_valid_before(datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc))
        .not_valid_after(datetime.datetime(9999, 1, 1, tzinfo=datetime.timezone.utc))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()),
            critical=False,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(pub), critical=False)
        .sign(issuer_key, None)
    )
    return cert.public_bytes(serialization.Encoding.DER)


async def test_leaf_issued_by_pinned_cert_is_refused(ids, tmp_path, caplog):
    """Pinned certs are CA:TRUE, so X.509 verification alone would accept a
    leaf that a pinned key signed for some other key; serve() refuses it."""
    a, b, _ = ids
    caplog.set_level(logging.WARNING, logger="p2p.tls")
    other = Ed25519PrivateKey.generate()
    leaf = _issued_by(b, other)
    pem = tmp_path / "m.pem"
    pem.write_bytes(
        ssl.DER_cert_to_PEM_cert(leaf).encode()
        + other.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.load_cert_chain(str(pem))
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as n:
            port = await n.start(serve, 0, server_context(a, [make_certificate(b)]), echo_handler)
            await _expect_refused_client(port, ctx, a.public)
            n.cancel_scope.cancel()
    assert any("not one of the pinned keys" in r.getMessage() for r in caplog.records)


async def test_strict_x509_verification_still_accepts_our_certs(ids):
    # Python 3.13's create_default_context() turns on VERIFY_X509_STRICT;
    # make sure our certificates satisfy it.
    a, b, _ = ids
    sctx = server_context(a, [make_certificate(b)])
    cctx = client_context(b, [make_certificate(a)])
    for ctx in (sctx, cctx):
        ctx.verify_flags |= ssl.VERIFY_X509_STRICT
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as n:
            port = await n.start(serve, 0, sctx, echo_handler)
            s = await connect(HOST, port, cctx, a.public)
            f = FramedStream(s)
            await f.send(b"strict")
            assert await f.receive() == b"echo:strict"
            await f.aclose()
            n.cancel_scope.cancel()


async def test_tls12_client_refused(ids):
    a, b, _ = ids
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as n:
            port = await n.start(serve, 0, server_context(a, None), echo_handler)
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            ctx.maximum_version = ssl.TLSVersion.TLSv1_2
            with pytest.raises(TLSHandshakeError):
                await connect(HOST, port, ctx, None)
            n.cancel_scope.cancel()


async def _raw(port):
    return await trio.open_tcp_stream(HOST, port)


async def test_server_survives_garbage(ids, caplog):
    a, b, _ = ids
    caplog.set_level(logging.WARNING, logger="p2p.tls")
    certs = [make_certificate(a), make_certificate(b)]
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as n:
            port = await n.start(
                lambda task_status: serve(
                    0, server_context(a, certs), echo_handler, task_status=task_status,
                    handshake_timeout=0.5,
                )
            )
            # 1. random bytes
            s = await _raw(port)
            await s.send_all(os.urandom(2000))
            with trio.move_on_after(5):
                try:
                    while await s.receive_some(1000):
                        pass
                except trio.BrokenResourceError:
                    pass
            await s.aclose()
            # 2. a plausible TLS record header, then hang up mid-handshake
            s = await _raw(port)
            await s.send_all(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")
            await s.aclose()
            # 3. connect and close at once
            s = await _raw(port)
            await s.aclose()
            # 4. a TCP reset
            sock = socket.create_connection((HOST, port))
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            sock.close()
            # 5. say nothing (handshake timeout)
            silent = await _raw(port)
            await trio.sleep(1.0)
            # 6. a real TLS client that aborts in the middle of the handshake
            s = await _raw(port)
            c = trio.SSLStream(s, client_context(b, certs), server_side=False)
            with trio.move_on_after(0.001):
                await c.do_handshake()
            await trio.aclose_forcefully(c)

            # A proper client still gets through, several times.
            for i in range(3):
                conn = await connect(HOST, port, client_context(b, certs), a.public)
                f = FramedStream(conn)
                await f.send(b"still alive %d" % i)
                assert await f.receive() == b"echo:still alive %d" % i
                await f.aclose()
            await silent.aclose()
            n.cancel_scope.cancel()
    msgs = [r.getMessage() for r in caplog.records]
    assert any("timed out" in m for m in msgs)
    assert sum("failed" in m for m in msgs) >= 2


async def test_handler_exception_does_not_kill_server(ids, caplog):
    a, b, _ = ids
    caplog.set_level(logging.WARNING, logger="p2p.tls")
    certs = [make_certificate(a), make_certificate(b)]
    calls = []

    async def handler(stream):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("boom")
        await echo_handler(stream)

    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as n:
            port = await n.start(serve, 0, server_context(a, certs), handler)
            s = await connect(HOST, port, client_context(b, certs), a.public)
            with pytest.raises(ConnectionClosed):
                await FramedStream(s).receive()
            await s.aclose()
            s = await connect(HOST, port, client_context(b, certs), a.public)
            f = FramedStream(s)
            await f.send(b"ok")
            assert await f.receive() == b"echo:ok"
            await f.aclose()
            n.cancel_scope.cancel()
    assert any("boom" in (r.exc_text or "") or r.exc_info for r in caplog.records)


async def test_concurrent_senders_over_tls(ids):
    a, b, _ = ids
    certs = [make_certificate(a), make_certificate(b)]
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as n:
            port = await n.start(serve, 0, server_context(a, certs), echo_handler)
            s = await connect(HOST, port, client_context(b, certs), a.public)
            f = FramedStream(s)
            payloads = {bytes([t]) * (50_000 + t) for t in range(1, 11)}

            async def send(p):
                await f.send(p)

            async with trio.open_nursery() as senders:
                for p in payloads:
                    senders.start_soon(send, p)
                got = {await f.receive() for _ in payloads}
            assert got == {b"echo:" + p for p in payloads}
            await f.aclose()
            n.cancel_scope.cancel()


async def test_peer_public_key_before_handshake(ids):
    a, _, _ = ids
    x, _y = trio.testing.memory_stream_pair()
    s = trio.SSLStream(x, client_context(a, None), server_side=False)
    with pytest.raises(TLSError):
        peer_public_key(s)


async def test_connect_refused_port():
    with trio.fail_after(TIMEOUT):
        # bind then close to find a (very likely) free port
        sock = socket.socket()
        sock.bind((HOST, 0))
        port = sock.getsockname()[1]
        sock.close()
        with pytest.raises(OSError):
            await connect(HOST, port, client_context(Identity.generate(), None), None)


def test_context_without_memfd_uses_private_tempdir_and_cleans_up(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.delattr(os, "memfd_create", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    a = Identity.generate()
    ctx = server_context(a, [make_certificate(a)])
    assert ctx.verify_mode == ssl.CERT_REQUIRED
    assert list(tmp_path.iterdir()) == []


def test_racing_first_runs_agree(home):
    import threading

    results = []
    barrier = threading.Barrier(8)

    def run():
        barrier.wait()
        results.append(load_or_create().public)

    threads = [threading.Thread(target=run) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(results) == 8 and len(set(results)) == 1
    assert [p.name for p in home.iterdir()] == ["identity.key"]
