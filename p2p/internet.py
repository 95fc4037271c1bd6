"""Beyond the LAN (protocol.md §9.10): Easel's TLS connections carried by py-libp2p streams.

A seat that plays over the internet runs one libp2p host.  Its libp2p key is *not* the seat key: it is
an Ed25519 key whose seed is ``dhash("libp2p-identity", seat seed)`` (``libp2p_seed``), so the engine's key
never signs anything of the game and the seat key never leaves Easel's own TLS.  The host

* listens on a concrete address (the one that routes to the relay) and a fixed port, so that a home
  router that keeps source ports lets the DCUtR hole punch predict our public address;
* connects to a circuit-relay-v2 relay (``easel relay``) and makes a reservation there, so that the
  other seats can reach us through it by our peer id;
* runs DCUtR: a relayed connection is upgraded to a direct one through both routers when the routers
  allow it (the relayed connection stays as a fallback; new streams prefer the direct one).

Easel's stream to a seat at virtual port P is a libp2p stream of protocol ``/easel/tls/1/P``; ``Stream``
makes it a ``trio.abc.Stream`` and p2p/tls.py runs its TLS 1.3 with the seat keys inside it unchanged
(``tls.use_route``): the relay and libp2p only ever see TLS records.  A game stream that runs over the
relay is closed once a direct connection to that peer exists: the mesh (p2p/links.py) dials again,
and the new stream takes the direct path.  Only the dialling side moves a stream (its reset ends the other side's); a lobby
stream, and a spectator's, are left where they are (``keep_relayed``: the ports the dialler keeps on the relay).

Every libp2p import is in this module and made on first use: the LAN game imports and plays without
the ``internet`` extra (``require``).
"""

from __future__ import annotations

import base64
import logging
import os
import socket
import struct
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, AsyncIterator, Awaitable, Callable

import trio

from core.hashing import dhash

log = logging.getLogger("easel.internet")

PROTOCOL = "/easel/tls/1/%d"      # the libp2p protocol id of Easel's stream at a virtual port
INVITE_PREFIX = "easel-"
INVITE_VERSION = 1
INTERNET_DIAL_TIMEOUT = 20.0               # s to reach a peer (relay circuit + stream negotiation)
RELAY_TIMEOUT = 20.0              # s to reach the relay and reserve
MOVE_EVERY = 0.5                  # s between looks for relayed game streams that can move to a direct path
RELAY_RETRY_FIRST = 0.5          # s: the relay's connection is looked at this often; a failed reconnect waits
RELAY_RETRY_MAX = 5.0            # ... twice as long each time, up to this
# a dial the relay refuses because the peer is not reserved there *now* (NO_RESERVATION, 204: its connection to the relay
# is being re-made) or because the relay could not reach it (CONNECTION_FAILED, 203) is tried again, within
# INTERNET_DIAL_TIMEOUT in all, after DIAL_RETRY_FIRST, twice as long each time up to DIAL_RETRY_MAX (protocol.md §9.10)
DIAL_RETRY_FIRST = 0.25
DIAL_RETRY_MAX = 2.0
TRANSIENT = {203: "the relay could not reach it", 204: "it is not reserved at the relay (not connected to it now)"}
PUNCH_DIAL_TIMEOUT = 3           # s for each dial of a hole punch (and of the direct try before it)
PUNCH_TRIES = 3                   # hole punches we drive at once on a new relayed connection
INSTALL = 'pip install -e ".[internet]"   (it installs py-libp2p 0.8.1)'

# The relay's limits (protocol.md §13.1): what `easel relay` spends on strangers.
RELAY_MAX_RESERVATIONS = 128      # peers holding a reservation at once
RELAY_MAX_CIRCUITS = 16         # relayed connections open at once to one reserved peer
RELAY_CIRCUIT_BYTES = 64 << 20    # bytes one relayed connection may carry
RELAY_CIRCUIT_SECONDS = 2 * 3600  # s one relayed connection may last
RELAY_RESERVATION_SECONDS = 3600  # s a reservation lasts (a seat refreshes it)
# the libp2p stream's own buffers (protocol.md §13.1): yamux only (mplex has no flow control), and a stream's
# receive window at most YAMUX_WINDOW (the engine's 16 MiB lowered; it starts at 256 KiB); a peer that sends past
# the window (the engine would only log it and buffer on) has its whole connection closed
YAMUX_WINDOW = 1 << 20            # bytes: the most one libp2p stream holds unread (and its largest data frame)
YAMUX_SLACK = 64 << 10            # bytes over the window tolerated before the connection is closed
# a libp2p message (a Noise message, or a yamux frame inside it) whose length arrived must be whole within this, and
# must decrypt: else the bytes are not this connection's (a relay or a path sending garbage, a length garbled into a
# long wait) and the connection is closed at once (the engine would wait for the bytes a garbled length names, or 60 s)
LIBP2P_FRAME_DEADLINE = 5.0


class InternetError(Exception):
    """Something a person can fix: the engine is missing, a bad invitation or relay address, an unreachable relay."""


def require() -> None:
    """Raise InternetError (in words: why and how to install) unless py-libp2p can be imported."""
    try:
        import libp2p  # noqa: F401
        import multiaddr  # noqa: F401
    except ImportError as exc:
        raise InternetError("playing beyond the LAN needs py-libp2p, which is not installed (%s); install it with: %s"
                            % (exc, INSTALL)) from None


def preload() -> None:
    """Import the engine's modules a node uses (before a fork: our bots' zygote, cli/zygote.py); nothing if missing."""
    try:
        import libp2p  # noqa: F401
        from libp2p.relay.circuit_v2 import dcutr, protocol, transport  # noqa: F401
    except ImportError:
        pass


def quiet_engine() -> None:
    """libp2p logs a great deal (errors included, for every hole punch that fails): keep it off the screen, unless
    EASEL_LIBP2P_LOG names a level (DEBUG, INFO, ...) to see it on standard error."""
    level = os.environ.get("EASEL_LIBP2P_LOG", "").upper()
    logging.getLogger("libp2p").setLevel(getattr(logging, level, logging.CRITICAL) if level else logging.CRITICAL)


class OverWindow(ConnectionAbortedError):
    """A peer sent more on a libp2p stream than its receive window allows (the connection is closed)."""


class Garbled(ConnectionAbortedError):
    """A libp2p connection carried bytes that are not its framing: it is closed (the seats redial)."""


garbled_seen = 0        # connections closed so (tests read it)


class _Capped(bytearray):
    def extend(self, data) -> None:        # the engine's only way into a stream's buffer
        if len(self) + len(data) > YAMUX_WINDOW + YAMUX_SLACK:
            raise OverWindow("a peer sent %d bytes past a stream's window" % (len(self) + len(data) - YAMUX_WINDOW))
        super().extend(data)


class _Buffers(dict):
    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value if isinstance(value, _Capped) else _Capped(value))


def bound_engine() -> None:
    """Bound what a peer can make the engine's stream multiplexer hold (idempotent; only the internet path runs it):
    every stream's receive window is at most YAMUX_WINDOW, and a stream's unread buffer above YAMUX_WINDOW +
    YAMUX_SLACK (a peer ignoring flow control) raises OverWindow (an OSError) in the engine's reader, which closes
    that connection.  And bound how long a broken path holds a connection: a Noise message that does not decrypt,
    or that is not whole LIBP2P_FRAME_DEADLINE after its length came, closes its connection at once (``Garbled``),
    and so does a yamux frame body that does not come within it, or a frame we cannot send within it; a frame is
    never cut by a cancellation half-way (that would garble the connection for every stream over it)."""
    from libp2p.stream_muxer.yamux import yamux as ymod

    ymod.MAX_WINDOW_SIZE = YAMUX_WINDOW
    ymod._DEFAULT_DATA_FRAME_READ_TIMEOUT = LIBP2P_FRAME_DEADLINE     # (the engine's 60 s; its env variable wins)
    cls = ymod.Yamux
    if getattr(cls, "_easel_bounded", False):
        return
    _bound_noise()
    init = cls.__init__

    def __init__(self, *a, **kw) -> None:
        init(self, *a, **kw)
        self.stream_buffers = _Buffers(self.stream_buffers)

    cls.__init__ = __init__

    async def _write_frame(self, data: bytes) -> None:
        # a frame is written whole or its connection is closed: a write cancelled half-way (a stream closed while it
        # sends, a task cancelled) would leave half a Noise message on a connection every stream shares, and the
        # other end would read garbage from then on (NoiseInvalidMessage: the connection closed for every stream)
        async with self._write_lock:
            with trio.CancelScope(shield=True):
                with trio.move_on_after(LIBP2P_FRAME_DEADLINE) as late:
                    await self.secured_conn.write(data)
                if late.cancelled_caught:
                    with trio.move_on_after(1):
                        try:
                            await self.secured_conn.close()
                        except Exception:
                            pass
                    raise Garbled("a libp2p frame was not sent within %.0f s (limit LIBP2P_FRAME_DEADLINE)"
                                  % LIBP2P_FRAME_DEADLINE)
        await trio.lowlevel.checkpoint()

    cls._write_frame = _write_frame
    cls._easel_bounded = True


def _bound_noise() -> None:
    """A Noise transport message must be whole within LIBP2P_FRAME_DEADLINE of its length, and must decrypt; else its
    connection is closed at once and the reader gets ``Garbled`` (the engine would wait for as many bytes as a garbled
    length names, 100 reads of them, with no deadline: a path that garbled a few bytes held a table ~30 s)."""
    from libp2p.io.utils import read_exactly
    from libp2p.security.noise import io as nio

    async def read_msg(self, prefix_encoded: bool = False) -> bytes:
        global garbled_seen
        rw = self.read_writer
        length = await rw.next_msg_len()
        data = None
        with trio.move_on_after(LIBP2P_FRAME_DEADLINE):
            data = await read_exactly(rw.read_write_closer, length)
        try:
            if data is None:
                raise Garbled("a libp2p message of %d bytes is not whole %.0f s after its length came (limit "
                              "LIBP2P_FRAME_DEADLINE)" % (length, LIBP2P_FRAME_DEADLINE))
            return self.decrypt(data[len(self.prefix):] if prefix_encoded else data)
        except Exception as exc:
            why = exc if isinstance(exc, Garbled) else Garbled("bytes that are not this libp2p connection's (%s)"
                                                               % (type(exc).__name__,))
        garbled_seen += 1
        log.info("closing a libp2p connection: %s", why)
        with trio.CancelScope(shield=True), trio.move_on_after(1):
            try:
                await rw.close()
            except Exception:
                pass
        raise why

    nio.NoiseTransportReadWriter.read_msg = read_msg


def _muxers() -> dict:
    """Yamux alone (flow-controlled); the engine's default would accept mplex, which has none."""
    from libp2p import create_yamux_muxer_option
    from libp2p.stream_muxer.yamux.yamux import PROTOCOL_ID

    return {k: v for k, v in create_yamux_muxer_option().items() if k == PROTOCOL_ID}


# ----------------------------------------------------------------------------- identity
def libp2p_seed(seat_seed: bytes) -> bytes:
    """The Ed25519 seed of a seat's libp2p key (protocol.md §9.10): never the seat key itself."""
    return dhash("libp2p-identity", bytes(seat_seed))


def relay_seed(seat_seed: bytes) -> bytes:
    """The Ed25519 seed of the key ``easel relay`` runs with (stable across restarts of one home)."""
    return dhash("libp2p-relay-identity", bytes(seat_seed))


def key_pair(seed: bytes):
    from libp2p.crypto.ed25519 import create_new_key_pair

    return create_new_key_pair(seed)


def peer_id_of(seed: bytes) -> str:
    """The libp2p peer id (base58 text) of the key with this Ed25519 seed."""
    from libp2p.peer.id import ID

    return ID.from_pubkey(key_pair(seed).public_key).to_base58()


def looks_like_peer(host: str) -> bool:
    """A roster "host" that is a libp2p peer id (base58, an Ed25519 identity multihash) rather than an IP address."""
    return isinstance(host, str) and host.startswith("12D3KooW") and ":" not in host and "." not in host


# ----------------------------------------------------------------------------- invitation
@dataclass(frozen=True)
class Invitation:
    peer: str          # the host's libp2p peer id
    lobby_port: int    # virtual ports on the host's libp2p node
    play_port: int
    relay: str         # the relay's multiaddr, ending /p2p/<relay peer id>


def _checksum(body: bytes) -> bytes:
    return dhash("invitation", body)[:4]


def make_invitation(inv: Invitation) -> str:
    """``easel-`` + lowercase unpadded base32 of: version (1 byte), length of the peer id (1 byte), the host's peer
    id (multihash bytes), lobby port, play port (2 bytes each, big-endian), the relay's binary multiaddr, then 4 bytes
    of ``dhash("invitation", everything before)`` (protocol.md §9.10)."""
    from libp2p.peer.id import ID
    from multiaddr import Multiaddr

    pid = ID.from_base58(inv.peer).to_bytes()
    body = bytes([INVITE_VERSION, len(pid)]) + pid + struct.pack(">HH", inv.lobby_port, inv.play_port) + Multiaddr(inv.relay).to_bytes()
    return INVITE_PREFIX + base64.b32encode(body + _checksum(body)).decode("ascii").rstrip("=").lower()


INVITE_LABEL = "invite:"          # what the host prints before it: a line copied whole starts with it


def _unlabelled(text: str) -> str:
    t = text.strip()
    return t[len(INVITE_LABEL):].strip() if t.lower().startswith(INVITE_LABEL) else t


def is_invitation(text: str) -> bool:
    return isinstance(text, str) and _unlabelled(text).lower().startswith(INVITE_PREFIX)


def parse_invitation(text: str) -> Invitation:
    """The invitation a host printed (the line copied whole, ``invite: easel-...``, too); InternetError in words if
    it is not one (mistyped, cut short, another version)."""
    t = _unlabelled(text)
    if not is_invitation(t):
        raise InternetError("not an invitation (it starts with %r): %r" % (INVITE_PREFIX, text[:40]))
    require()
    from libp2p.peer.id import ID
    from multiaddr import Multiaddr

    b32 = "".join(t[len(INVITE_PREFIX):].split()).upper()
    try:
        raw = base64.b32decode(b32 + "=" * (-len(b32) % 8))
    except ValueError:
        raise InternetError("this invitation is damaged (a character that cannot be in one): paste it again, whole") from None
    if len(raw) < 2 + 4 + 4 or _checksum(raw[:-4]) != raw[-4:]:
        raise InternetError("this invitation is damaged or cut short (its checksum does not match): paste it again, whole")
    body = raw[:-4]
    if body[0] != INVITE_VERSION:
        raise InternetError("this invitation is of another version of Easel (%d; this one reads %d)" % (body[0], INVITE_VERSION))
    n = body[1]
    if len(body) < 2 + n + 4 + 1:
        raise InternetError("this invitation is damaged or cut short: paste it again, whole")
    try:
        peer = ID(body[2:2 + n]).to_base58()
        lobby, play = struct.unpack(">HH", body[2 + n:6 + n])
        relay = str(Multiaddr(body[6 + n:]))
    except Exception as exc:       # the engine's decoders raise many kinds
        raise InternetError("this invitation is damaged: %s" % exc) from None
    if not looks_like_peer(peer) or not (0 < lobby < 65536 and 0 < play < 65536) or "/p2p/" not in relay:
        raise InternetError("this invitation is damaged: it does not name a table")
    return Invitation(peer, lobby, play, relay)


def check_relay(address: str) -> str:
    """A relay address as ``easel relay`` printed it (a multiaddr ending /p2p/<peer id>); InternetError if not."""
    require()
    from multiaddr import Multiaddr

    try:
        ma = Multiaddr(address.strip())
        pid = ma.get_peer_id()
    except Exception as exc:
        raise InternetError("not a relay address (as easel relay prints it, /ip4/ADDRESS/tcp/PORT/p2p/ID): %s" % exc) from None
    if not pid or not str(ma).startswith(("/ip4/", "/ip6/", "/dns")):
        raise InternetError("not a relay address (as easel relay prints it, /ip4/ADDRESS/tcp/PORT/p2p/ID): %r" % address)
    return str(ma)


def _relay_ip_port(relay: str) -> tuple[str, int]:
    parts = relay.strip("/").split("/")
    return parts[1], int(parts[3])


def local_address_towards(relay: str) -> str:
    """The address of our interface that routes to the relay (no packet is sent): a concrete listen address."""
    ip, port = _relay_ip_port(relay)
    fam = socket.AF_INET6 if ":" in ip else socket.AF_INET
    with socket.socket(fam, socket.SOCK_DGRAM) as s:
        try:
            s.connect((ip, port))
            return s.getsockname()[0]
        except OSError as exc:
            raise InternetError("no route to the relay at %s: %s" % (ip, exc.strerror or exc)) from None


def _free_port(ip: str) -> int:
    fam = socket.AF_INET6 if ":" in ip else socket.AF_INET
    with socket.socket(fam, socket.SOCK_STREAM) as s:
        s.bind((ip, 0))
        return s.getsockname()[1]


# ----------------------------------------------------------------------------- the stream adapter
class Stream(trio.abc.Stream):
    """A libp2p stream as a ``trio.abc.Stream`` (what ``trio.SSLStream`` runs over).  ``peer``: the other end's
    libp2p peer id (authenticated by libp2p's Noise handshake: the address a roster keeps for that seat).
    ``aclose`` also ends a send or receive in progress (the engine's own read does not always wake on a reset)."""

    def __init__(self, raw: Any, peer: str, relayed: bool, on_close: Callable[["Stream"], None] | None = None) -> None:
        self._raw = raw
        self.peer = peer
        self.relayed = relayed
        self.closed = False
        self._on_close = on_close
        self._scopes: set[trio.CancelScope] = set()

    async def _io(self, op: Callable[[], Awaitable[Any]]) -> Any:
        if self.closed:
            raise trio.ClosedResourceError("stream closed")
        with trio.CancelScope() as cs:
            self._scopes.add(cs)
            try:
                return await op()
            finally:
                self._scopes.discard(cs)
        raise trio.BrokenResourceError("the stream was closed (moved to another path)")

    async def send_all(self, data) -> None:
        if not data:
            await trio.lowlevel.checkpoint()
            return
        try:
            await self._io(lambda: self._raw.write(bytes(data)))
        except (trio.Cancelled, trio.BrokenResourceError, trio.ClosedResourceError):
            raise
        except Exception as exc:
            raise trio.BrokenResourceError("libp2p stream: %s" % (exc or type(exc).__name__)) from exc

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        from libp2p.network.stream.exceptions import StreamEOF

        try:
            data = await self._io(lambda: self._raw.read(max_bytes or 65536))
        except StreamEOF:
            return b""
        except (trio.Cancelled, trio.BrokenResourceError, trio.ClosedResourceError):
            raise
        except Exception as exc:
            raise trio.BrokenResourceError("libp2p stream: %s" % (exc or type(exc).__name__)) from exc
        return bytes(data)

    async def aclose(self) -> None:
        if self.closed:
            await trio.lowlevel.checkpoint()
            return
        self.closed = True
        for cs in list(self._scopes):
            cs.cancel()
        if self._on_close is not None:
            self._on_close(self)
        with trio.CancelScope(shield=True):
            with trio.move_on_after(1):
                try:
                    await self._raw.reset()
                except Exception:
                    pass


def _alive(conn: Any) -> bool:
    """A libp2p connection (the swarm's) that is neither closed nor shutting down (a broken one may be the latter a
    while: a new stream over it fails, so it does not count as a path)."""
    try:
        if conn.is_closed:
            return False
        muxed = getattr(conn, "muxed_conn", None)
        return not (muxed is not None and muxed.event_shutting_down.is_set())
    except Exception:
        return False


def _conn_gone(raw: Any) -> bool:
    try:
        conn = raw.muxed_conn
        return bool(conn.is_closed or conn.event_shutting_down.is_set())
    except Exception:
        return False


def _is_relayed(conn: Any) -> bool:
    try:
        return any("/p2p-circuit" in str(a) for a in conn.get_transport_addresses())
    except Exception:
        return True


# ----------------------------------------------------------------------------- the node
def _status(exc: BaseException) -> int | None:
    """The circuit-relay status (an int) a refused relay dial carries, if any: the engine wraps its
    RelayConnectionError (which has ``status_code``) in a plain ConnectionError, so the chain is looked through."""
    seen = 0
    e: BaseException | None = exc
    while e is not None and seen < 8:
        code = getattr(e, "status_code", None)
        if code is not None:
            try:
                return int(code)
            except (TypeError, ValueError):
                return None
        e = e.__cause__ or e.__context__
        seen += 1
    return None


async def dial_retrying(dial: Callable[[], Awaitable[Any]], refused: list[int] | None = None) -> Any:
    """``await dial()``; a refusal that is a passing state (``TRANSIENT``: 203 CONNECTION_FAILED, 204 NO_RESERVATION)
    is tried again after DIAL_RETRY_FIRST, doubling up to DIAL_RETRY_MAX, until the caller's deadline cancels it
    (``Node.open``: INTERNET_DIAL_TIMEOUT); every other failure is raised at once.  ``refused`` gets each status seen
    (to say why in words if the deadline comes)."""
    wait = DIAL_RETRY_FIRST
    while True:
        try:
            return await dial()
        except Exception as exc:
            code = _status(exc)
            if code not in TRANSIENT:
                raise
            if refused is not None:
                refused.append(code)
            log.info("the relay refused a dial (status %d: %s): trying again in %.2f s", code, TRANSIENT[code], wait)
        await trio.sleep(wait)
        wait = min(wait * 2, DIAL_RETRY_MAX)


def _too_slow(peer: str, refused: list[int]) -> str:
    why = ""
    if refused:
        why = ": the relay refused %d time%s, last because %s (status %d)" % (
            len(refused), "" if len(refused) == 1 else "s", TRANSIENT[refused[-1]], refused[-1])
    return "cannot reach %s through the relay within %d s%s" % (peer[-8:], INTERNET_DIAL_TIMEOUT, why)


class Node:
    """One libp2p host: dials seats by peer id (directly if connected, else through the relay) and serves
    Easel's virtual ports.  Made by ``open_node``; p2p/tls.py routes peer-id addresses to it (``tls.use_route``)."""

    def __init__(self, host: Any, transport: Any, dcutr: Any, relay: str, nursery: trio.Nursery) -> None:
        self._host = host
        self._transport = transport
        self._dcutr = dcutr
        self.relay = relay
        self._nursery = nursery
        self.peer = host.get_id().to_base58()
        from libp2p.peer.peerinfo import info_from_p2p_addr
        from multiaddr import Multiaddr

        self._relay_id = info_from_p2p_addr(Multiaddr(relay)).peer_id
        self.keep_relayed: set[int] = set()     # virtual ports whose streams are never moved (lobbies)
        self.dial_timeout = INTERNET_DIAL_TIMEOUT   # what open() may take (a spectator's dial waits as long)
        self._streams: set[tuple[Stream, int]] = set()
        self._live: set[Stream] = set()         # every stream open here: ended when its connection is gone
        self.direct_peers: set[str] = set()     # peers we have had a direct connection to (tests, the screen)
        self._punching: set[str] = set()

    def _unblock(self, peer_id: Any) -> None:
        """Forget that dials to this peer failed: the engine refuses to dial a peer whose addresses all failed for a
        minute after (its negative cache), and a relay that restarts is back well before."""
        try:
            self._host.get_network().unblock_peer(peer_id)
        except Exception:
            pass

    # --- routing (p2p/tls.py)
    def owns(self, host: str) -> bool:
        return looks_like_peer(host)

    def has_direct(self, peer: str) -> bool:
        from libp2p.peer.id import ID

        conns = self._host.get_network().get_connections(ID.from_base58(peer))
        return any(not _is_relayed(c) and _alive(c) for c in conns)

    def _track(self, s: Stream, port: int) -> None:
        if s.relayed and port not in self.keep_relayed:
            self._streams.add((s, port))
            s._on_close = lambda st: self._streams.discard((st, port))

    async def open(self, peer: str, port: int) -> Stream:
        """A stream to ``peer``'s virtual ``port`` (OSError if it cannot be reached within INTERNET_DIAL_TIMEOUT)."""
        from libp2p.peer.id import ID
        from multiaddr import Multiaddr

        try:
            pid = ID.from_base58(peer)
        except Exception:
            raise OSError("not a peer id: %r" % peer) from None
        async def through_relay() -> None:
            self._unblock(self._relay_id)
            await self._transport.dial(Multiaddr("%s/p2p-circuit/p2p/%s" % (self.relay, peer)))

        refused: list[int] = []
        try:
            with trio.fail_after(INTERNET_DIAL_TIMEOUT):
                live = [c for c in self._host.get_network().get_connections(pid) if _alive(c)]
                if not live:
                    await dial_retrying(through_relay, refused)
                raw = await self._host.new_stream(pid, [PROTOCOL % port])
        except trio.TooSlowError:
            raise OSError(_too_slow(peer, refused)) from None
        except OSError:
            raise
        except Exception as exc:
            raise OSError("cannot reach %s: %s" % (peer[-8:], exc or type(exc).__name__)) from None
        s = Stream(raw, peer, _is_relayed(raw.muxed_conn))
        self._live.add(s)
        self._track(s, port)
        if s.relayed:
            self._punch_soon(peer)
        else:
            self.direct_peers.add(peer)
        return s

    def _punch_soon(self, peer: str) -> None:
        if peer not in self._punching:
            self._punching.add(peer)
            self._nursery.start_soon(self._punch, peer)

    async def _punch(self, peer: str) -> None:
        """Drive the hole punch at once on a new relayed connection (the engine's own loop waits 2 s between tries)."""
        from libp2p.peer.id import ID

        try:
            for i in range(PUNCH_TRIES):
                if self.has_direct(peer):
                    break
                await trio.sleep(0.3 if i == 0 else 1.0)    # let identify tell the peer where we are seen from
                with trio.move_on_after(INTERNET_DIAL_TIMEOUT):
                    await self._dcutr.initiate_hole_punch(ID.from_base58(peer))
        except trio.Cancelled:
            raise
        except Exception as exc:
            log.debug("hole punch to %s: %s", peer, exc)
        finally:
            self._punching.discard(peer)

    async def _mover(self) -> None:
        """Close the relayed game streams of a peer we now reach directly: the mesh dials again, directly.  And end
        every stream whose libp2p connection is gone (a relay that sent garbage, a reset): the engine does not
        always wake a read in progress, which would otherwise wait for IDLE_TIMEOUT."""
        while True:
            await trio.sleep(MOVE_EVERY)
            for s in list(self._live):
                if s.closed:
                    self._live.discard(s)
                elif _conn_gone(s._raw):
                    self._live.discard(s)
                    await s.aclose()
            for s, port in list(self._streams):
                if s.closed:
                    self._streams.discard((s, port))
                elif self.has_direct(s.peer):
                    if s.peer not in self.direct_peers:
                        log.info("a direct path to %s is open: the game moves to it", s.peer[-8:])
                    self.direct_peers.add(s.peer)
                    self._streams.discard((s, port))
                    await s.aclose()

    async def serve(self, port: int, one: Callable[[Stream], Awaitable[None]], task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Serve virtual ``port`` (0: pick one) until cancelled: ``await one(stream)`` for each incoming stream,
        in our own nursery (the engine's handler task waits until that returns)."""
        if port == 0:
            port = _free_port("127.0.0.1")
        proto = PROTOCOL % port
        send, recv = trio.open_memory_channel(0)

        async def handler(raw) -> None:
            done = trio.Event()
            try:
                peer = raw.muxed_conn.peer_id.to_base58()
                relayed = _is_relayed(raw.muxed_conn)
                await send.send((raw, peer, relayed, done))
            except (trio.ClosedResourceError, trio.BrokenResourceError):
                await raw.reset()
                return
            await done.wait()

        async def run(item) -> None:
            raw, peer, relayed, done = item
            s = Stream(raw, peer, relayed)      # never moved from here: its dialler moves it (a spectator's stays)
            self._live.add(s)
            if relayed:
                self._punch_soon(peer)
            else:
                self.direct_peers.add(peer)
            try:
                await one(s)
            finally:
                done.set()
                await s.aclose()

        self._host.set_stream_handler(proto, handler)
        try:
            async with trio.open_nursery() as n:
                task_status.started(port)
                async for item in recv:
                    n.start_soon(run, item)
        finally:
            try:
                self._host.remove_stream_handler(proto)
            except Exception:
                pass
            send.close()

    async def _keep_relay(self) -> None:
        """Be reachable through the relay whenever we are connected to it: a reservation is only good while the
        connection it was made on lives (the relay forgets it when a restart, or our connection closing, drops that
        connection).  So once no connection to the relay we reserved on is alive (it is gone, or another one was
        made in its place: by the engine for a dial, after a garbled frame closed the old one), connect if need be
        and reserve again, with a back-off (RELAY_RETRY_FIRST doubling to RELAY_RETRY_MAX), until it answers."""
        relay_id = self._relay_id
        network = self._host.get_network()
        reserved_on = [c for c in network.get_connections(relay_id) if _alive(c)]   # open_node reserved on these
        wait = RELAY_RETRY_FIRST
        while True:
            await trio.sleep(wait)
            live = [c for c in network.get_connections(relay_id) if _alive(c)]
            if any(c is r for c in live for r in reserved_on):
                wait = RELAY_RETRY_FIRST
                continue
            self._unblock(relay_id)
            try:
                await _reserve(self._host, self._transport, self.relay, self._nursery)
            except InternetError as exc:
                log.info("the relay is out of reach: %s (trying again in %.1f s)", exc, wait)
                wait = min(wait * 2, RELAY_RETRY_MAX)
                continue
            reserved_on = [c for c in network.get_connections(relay_id) if _alive(c)]
            log.info("%s: reserved there again", "a new connection to the relay at %s" % self.relay if live
                     else "the relay at %s is back" % self.relay)
            wait = RELAY_RETRY_FIRST

    def invitation(self, lobby_port: int, play_port: int) -> str:
        return make_invitation(Invitation(self.peer, lobby_port, play_port, self.relay))


async def _reserve(host: Any, transport: Any, relay: str, nursery: trio.Nursery) -> None:
    from libp2p.peer.peerinfo import info_from_p2p_addr
    from libp2p.relay.circuit_v2.protocol import PROTOCOL_ID
    from multiaddr import Multiaddr

    info = info_from_p2p_addr(Multiaddr(relay))
    try:
        with trio.fail_after(RELAY_TIMEOUT):
            await host.connect(info)
            st = await host.new_stream(info.peer_id, [PROTOCOL_ID])
            ok = await transport.reserve(st, info.peer_id, nursery)
    except trio.TooSlowError:
        raise InternetError("the relay at %s did not answer within %d s" % (relay, RELAY_TIMEOUT)) from None
    except InternetError:
        raise
    except Exception as exc:
        raise InternetError("cannot reach the relay at %s: %s" % (relay, exc or type(exc).__name__)) from None
    if not ok:
        raise InternetError("the relay at %s refused a reservation (it may be full)" % relay)


def _client_limits():
    from libp2p.relay.circuit_v2.resources import RelayLimits

    return RelayLimits(duration=RELAY_CIRCUIT_SECONDS, data=RELAY_CIRCUIT_BYTES, max_circuit_conns=RELAY_MAX_CIRCUITS,
                       max_reservations=RELAY_MAX_RESERVATIONS, reservation_ttl=RELAY_RESERVATION_SECONDS)


@asynccontextmanager
async def open_node(seat_seed: bytes, relay: str, listen: str | None = None, port: int = 0) -> AsyncIterator[Node]:
    """Our libp2p host for the seat with this seed, reserved at ``relay``, until the block ends (then all of it stops)."""
    require()
    quiet_engine()
    from libp2p import new_host
    from libp2p.relay.circuit_v2.config import RelayConfig, RelayRole
    from libp2p.relay.circuit_v2.dcutr import DCUtRProtocol
    from libp2p.relay.circuit_v2.protocol import PROTOCOL_ID, STOP_PROTOCOL_ID, CircuitV2Protocol
    from libp2p.relay.circuit_v2.transport import CircuitV2Transport
    from libp2p.tools.anyio_service import background_trio_service
    from multiaddr import Multiaddr

    relay = check_relay(relay)
    ip = listen or local_address_towards(relay)
    port = port or _free_port(ip)
    bound_engine()
    host = new_host(key_pair=key_pair(libp2p_seed(seat_seed)), muxer_opt=_muxers())
    limits = _client_limits()
    protocol = CircuitV2Protocol(host, limits=limits, allow_hop=False)
    # a dial to an address that drops what it did not ask for hangs until this time-out: the unilateral try at a
    # peer's private addresses (step 0 of DCUtR) would hold the hole punch back for the engine's 10 s default
    dcutr = DCUtRProtocol(host, dial_timeout=PUNCH_DIAL_TIMEOUT)
    # the relayed connection stays up as the fallback of the direct one (our own streams move: Node._mover)
    dcutr._schedule_relay_close = lambda peer_id: None
    fam = "ip6" if ":" in ip else "ip4"
    try:
        async with host.run(listen_addrs=[Multiaddr("/%s/%s/tcp/%d" % (fam, ip, port))]):
            if not host.get_addrs():
                raise InternetError("cannot listen on %s port %d (the port is taken?)" % (ip, port))
            host.set_stream_handler(PROTOCOL_ID, protocol._handle_hop_stream)
            host.set_stream_handler(STOP_PROTOCOL_ID, protocol._handle_stop_stream)
            async with background_trio_service(protocol):
                transport = CircuitV2Transport(host, protocol, RelayConfig(roles=RelayRole.STOP | RelayRole.CLIENT, limits=limits))
                async with background_trio_service(dcutr):
                    async with trio.open_nursery() as n:
                        await _reserve(host, transport, relay, n)
                        node = Node(host, transport, dcutr, relay, n)
                        n.start_soon(node._mover)
                        n.start_soon(node._keep_relay)
                        log.info("libp2p node %s on /%s/%s/tcp/%d, reserved at %s", node.peer, fam, ip, port, relay)
                        try:
                            yield node
                        finally:
                            n.cancel_scope.cancel()
    except OSError as exc:
        raise InternetError("cannot listen on %s port %d: %s" % (ip, port, exc.strerror or exc)) from None


# ----------------------------------------------------------------------------- the relay
async def run_relay(seed: bytes, listen: str, port: int, announce: str | None, ready: Callable[[str], None]) -> None:
    """``easel relay``: a circuit-relay-v2 hop with the limits above, until cancelled; ``ready(address)`` once it listens."""
    require()
    quiet_engine()
    from libp2p import new_host
    from libp2p.relay.circuit_v2.protocol import PROTOCOL_ID, STOP_PROTOCOL_ID, CircuitV2Protocol
    from libp2p.tools.anyio_service import background_trio_service
    from multiaddr import Multiaddr

    bound_engine()
    host = new_host(key_pair=key_pair(relay_seed(seed)), muxer_opt=_muxers())
    protocol = CircuitV2Protocol(host, limits=_client_limits(), allow_hop=True)
    fam = "ip6" if ":" in listen else "ip4"
    try:
        async with host.run(listen_addrs=[Multiaddr("/%s/%s/tcp/%d" % (fam, listen, port))]):
            host.set_stream_handler(PROTOCOL_ID, protocol._handle_hop_stream)
            host.set_stream_handler(STOP_PROTOCOL_ID, protocol._handle_stop_stream)
            if not host.get_addrs():
                raise InternetError("cannot listen on %s port %d (not an address of this machine, or the port is taken)"
                                    % (listen, port))
            async with background_trio_service(protocol):
                shown = announce or listen
                if shown in ("0.0.0.0", "::"):
                    shown = _default_address()
                sfam = "ip6" if ":" in shown else "ip4"
                ready("/%s/%s/tcp/%d/p2p/%s" % (sfam, shown, port, host.get_id().to_base58()))
                await trio.sleep_forever()
    except OSError as exc:
        raise InternetError("cannot listen on %s port %d: %s" % (listen, port, exc.strerror or exc)) from None


def _default_address() -> str:
    """Our address on the default route (what others most likely reach us at); loopback if there is none."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))     # TEST-NET-1: no packet is sent, only the route is looked up
            return s.getsockname()[0]
        except OSError:
            return "127.0.0.1"
