"""LAN discovery of open Easel tables over mDNS / DNS-SD (zeroconf).

A host advertises each open table as a ``_easel._tcp.local.`` service whose
TXT record carries::

    game   game id, e.g. "painting"
    free   free seats (decimal)
    seats  total seats (decimal)
    fp     host key fingerprint, "1a2b-3c4d-5e6f-7a8b"
    v      discovery protocol version, "1"
    table  short table id (lowercase hex)
    name   the host's name at the table (UTF-8, a valid seat name); optional

The instance name is ``"<game>-<table> on <fp>"``, unique per table.

Everything that touches the network comes from other machines on the LAN and
is untrusted: :func:`browse` validates every field and silently (debug log)
drops services that are malformed.  Nothing here is authenticated -- the
fingerprint is a hint; the connecting client must verify the host key itself.

Speed: :func:`browse_live` reports each table as soon as it is resolved (not at
the end of a window), and besides the ordinary multicast browser it asks once
more with a *legacy unicast* query (RFC 6762 §6.7: sent from an ephemeral
port), which responders answer at once, by unicast, with the PTR and its SRV,
TXT and A records -- a multicast answer may be held back up to a second (RFC
6762 §6 and §14), e.g. right after the host announced its table.

Threading model: :class:`zeroconf.Zeroconf` runs its own asyncio loop in a
background thread.  Every blocking zeroconf call is pushed to a worker thread
with :func:`trio.to_thread.run_sync`, and zeroconf callbacks are handed back to
trio with :meth:`trio.lowlevel.TrioToken.run_sync_soon`, so the trio loop is
never blocked.

Interfaces: ``interfaces`` arguments are passed to ``Zeroconf(interfaces=...)``
(IPv4 only).  Resolution order: explicit argument, then the environment
variable ``EASEL_ZEROCONF_INTERFACES`` (comma-separated IPv4 addresses, or
``all`` / ``default``), then all interfaces.  Pass :data:`LOOPBACK_ONLY` (or
set ``EASEL_ZEROCONF_INTERFACES=127.0.0.1``) to keep traffic on loopback.
"""

from __future__ import annotations

import inspect
import ipaddress
import logging
import math
import os
import re
import socket
import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Union

import trio
from zeroconf import (
    DNSIncoming,
    DNSQuestionType,
    InterfaceChoice,
    IPVersion,
    ServiceBrowser,
    ServiceInfo,
    ServiceListener,
    Zeroconf,
)

log = logging.getLogger(__name__)

__all__ = [
    "ENV_INTERFACES",
    "LOOPBACK_ONLY",
    "PROTOCOL_VERSION",
    "SERVICE_TYPE",
    "Advertiser",
    "TableAd",
    "advertise",
    "browse",
    "browse_live",
    "instance_name",
    "parse_properties",
    "resolve_interfaces",
]

SERVICE_TYPE = "_easel._tcp.local."
PROTOCOL_VERSION = "1"
ENV_INTERFACES = "EASEL_ZEROCONF_INTERFACES"
LOOPBACK_ONLY: tuple[str, ...] = ("127.0.0.1",)

#: Anything accepted as an ``interfaces`` argument.
InterfacesArg = Union[InterfaceChoice, str, Iterable[str], None]

# Field syntax.  ASCII-only on purpose: str.isdigit()/int() accept Unicode
# digits, whitespace, "+", "_" which we do not want from strangers.
_GAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}", re.ASCII)
_TABLE_RE = re.compile(r"[0-9a-f]{1,32}", re.ASCII)
_FP_RE = re.compile(r"[0-9a-f]{4}(?:-[0-9a-f]{4}){3}", re.ASCII)
_COUNT_RE = re.compile(r"[0-9]{1,3}", re.ASCII)
MAX_SEATS = 64

# Bounds on what a browse will do for hostile / flooded networks (protocol.md §13.1).
DEFAULT_MAX_SERVICES = 256    # distinct service names considered per browse; more are ignored (debug log)
RESOLVE_CONCURRENCY = 8       # services resolved at once (worker threads)
EVENT_BUFFER = 1024           # browser events waiting to be read; more are dropped
# trio < 0.23 calls abandon_on_cancel "cancellable".
_ABANDON_KW = (
    "abandon_on_cancel"
    if "abandon_on_cancel" in inspect.signature(trio.to_thread.run_sync).parameters
    else "cancellable"
)
# Upper bound on how long cleanup (goodbye packets, closing sockets) may take.
_CLEANUP_TIMEOUT = 5.0


@dataclass(frozen=True)
class TableAd:
    """One open table as seen on the LAN (or as advertised by us)."""

    game: str
    free: int
    seats: int
    fingerprint: str
    table: str
    host: str  # IPv4 address to connect to
    port: int
    name: str  # instance name, "<game>-<table> on <fp>" (service type stripped)
    play: bool = False  # a table in play (TXT play=1): the port is the host's play port, for spectators
    host_name: str = ""  # the host's name at the table (TXT name), "" if the advertisement has none

    @property
    def who(self) -> str:
        """The host as a person reads it: its name, else (an advertisement without one) its key's fingerprint."""
        return self.host_name or self.fingerprint


# --------------------------------------------------------------------------
# interfaces
# --------------------------------------------------------------------------


def _parse_interface_list(items: Iterable[str]) -> list[str]:
    out: list[str] = []
    for raw in items:
        item = str(raw).strip()
        if not item:
            continue
        try:
            addr = ipaddress.IPv4Address(item)
        except ValueError:
            raise ValueError(f"not an IPv4 interface address: {item!r}") from None
        if str(addr) not in out:
            out.append(str(addr))
    if not out:
        raise ValueError("empty interface list")
    return out


def resolve_interfaces(interfaces: InterfacesArg = None) -> InterfaceChoice | list[str]:
    """Turn an ``interfaces`` argument into what ``Zeroconf(interfaces=)`` takes.

    ``None`` means: use ``$EASEL_ZEROCONF_INTERFACES`` if set and non-empty,
    else all interfaces.  A string is parsed like the environment variable
    (comma-separated IPv4 addresses, or ``all`` / ``default``).
    """
    if interfaces is None:
        env = os.environ.get(ENV_INTERFACES, "").strip()
        if not env:
            return InterfaceChoice.All
        interfaces = env
    if isinstance(interfaces, InterfaceChoice):
        return interfaces
    if isinstance(interfaces, str):
        word = interfaces.strip().lower()
        if word in ("all", "*"):
            return InterfaceChoice.All
        if word == "default":
            return InterfaceChoice.Default
        return _parse_interface_list(interfaces.split(","))
    return _parse_interface_list(interfaces)


def _local_ipv4_addresses() -> list[str]:
    """Non-loopback IPv4 addresses of this machine (loopback if none)."""
    try:
        import ifaddr  # dependency of zeroconf

        addrs = [
            ip.ip
            for adapter in ifaddr.get_adapters()
            for ip in adapter.ips
            if isinstance(ip.ip, str)
        ]
    except Exception:  # pragma: no cover - platform specific
        log.debug("could not enumerate local addresses", exc_info=True)
        addrs = []
    good = [a for a in addrs if not ipaddress.IPv4Address(a).is_loopback]
    return sorted(set(good)) or ["127.0.0.1"]


def _advertised_addresses(ifaces: InterfaceChoice | list[str]) -> list[str]:
    if isinstance(ifaces, list):
        explicit = [a for a in ifaces if a != "0.0.0.0"]
        if explicit:
            return explicit
    return _local_ipv4_addresses()


def _new_zeroconf(ifaces: InterfaceChoice | list[str]) -> Zeroconf:
    # use_asyncio=False: always run zeroconf's own loop thread, never try to
    # attach to whatever loop the calling thread might have.
    return Zeroconf(interfaces=ifaces, ip_version=IPVersion.V4Only, use_asyncio=False)


async def _close_zeroconf(zc: Zeroconf) -> None:
    with trio.move_on_after(_CLEANUP_TIMEOUT) as scope:
        scope.shield = True
        try:
            await trio.to_thread.run_sync(zc.close)
        except Exception:
            log.debug("error closing zeroconf", exc_info=True)


# --------------------------------------------------------------------------
# TXT record encoding / validation
# --------------------------------------------------------------------------


def instance_name(game: str, table: str, fingerprint: str) -> str:
    return f"{game}-{table} on {fingerprint}"


def _server_name(table: str, fingerprint: str, play: bool = False) -> str:
    return f"easel-{table}{'p' if play else ''}-{fingerprint}.local."


def _name_problem(name: str) -> str:
    from core.events import name_problem

    return name_problem(name)


def _check_fields(game: str, free: int, seats: int, fingerprint: str, table: str, port: int, host_name: str = "") -> None:
    if host_name and _name_problem(host_name):
        raise ValueError(f"bad host name {host_name!r}: {_name_problem(host_name)}")
    if not _GAME_RE.fullmatch(game):
        raise ValueError(f"bad game id {game!r}")
    if not _TABLE_RE.fullmatch(table):
        raise ValueError(f"bad table id {table!r} (want 1-32 lowercase hex digits)")
    if not _FP_RE.fullmatch(fingerprint):
        raise ValueError(f"bad fingerprint {fingerprint!r}")
    for label, value in (("free", free), ("seats", seats), ("port", port)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{label} must be an int, got {value!r}")
    if not 1 <= seats <= MAX_SEATS:
        raise ValueError(f"seats must be in 1..{MAX_SEATS}, got {seats}")
    if not 0 <= free <= seats:
        raise ValueError(f"free must be in 0..{seats}, got {free}")
    if not 1 <= port <= 65535:
        raise ValueError(f"bad port {port}")


def _txt(game: str, free: int, seats: int, fingerprint: str, table: str, play: bool = False,
         host_name: str = "") -> dict[str, str]:
    txt = {
        "game": game,
        "free": str(free),
        "seats": str(seats),
        "fp": fingerprint,
        "v": PROTOCOL_VERSION,
        "table": table,
    }
    if play:
        txt["play"] = "1"
    if host_name:
        txt["name"] = host_name
    return txt


class _Malformed(ValueError):
    pass


def _text_field(props: Mapping[bytes, bytes | None], key: bytes) -> str:
    value = props.get(key)
    if value is None:
        raise _Malformed(f"missing {key.decode()}")
    try:
        return value.decode("ascii")
    except UnicodeDecodeError:
        raise _Malformed(f"non-ascii {key.decode()}") from None


def parse_properties(
    props: Mapping[bytes, bytes | None], *, host: str, port: int, name: str
) -> TableAd:
    """Validate a raw TXT property dict; raise ``ValueError`` if unusable."""
    version = _text_field(props, b"v")
    if version != PROTOCOL_VERSION:
        raise _Malformed(f"unsupported version {version!r}")
    game = _text_field(props, b"game")
    if not _GAME_RE.fullmatch(game):
        raise _Malformed(f"bad game {game!r}")
    table = _text_field(props, b"table")
    if not _TABLE_RE.fullmatch(table):
        raise _Malformed(f"bad table {table!r}")
    fingerprint = _text_field(props, b"fp")
    if not _FP_RE.fullmatch(fingerprint):
        raise _Malformed(f"bad fp {fingerprint!r}")
    counts = {}
    for key in (b"free", b"seats"):
        text = _text_field(props, key)
        if not _COUNT_RE.fullmatch(text):
            raise _Malformed(f"bad {key.decode()} {text!r}")
        counts[key] = int(text)
    free, seats = counts[b"free"], counts[b"seats"]
    if not 1 <= seats <= MAX_SEATS or not 0 <= free <= seats:
        raise _Malformed(f"bad seat counts free={free} seats={seats}")
    if not isinstance(port, int) or not 1 <= port <= 65535:
        raise _Malformed(f"bad port {port!r}")
    host_name = ""
    if b"name" in props:      # optional; present, it must be a valid seat name (printable: it is shown)
        raw = props[b"name"]
        try:
            host_name = (raw or b"").decode("utf-8")
        except UnicodeDecodeError:
            raise _Malformed("name is not UTF-8") from None
        why = _name_problem(host_name)
        if why:
            raise _Malformed(f"bad name {host_name!r}: {why}")
    return TableAd(
        game=game,
        free=free,
        seats=seats,
        fingerprint=fingerprint,
        table=table,
        host=host,
        port=port,
        name=name,
        play=props.get(b"play") == b"1" and free == 0,
        host_name=host_name,
    )


def _ad_from_info(info: ServiceInfo) -> TableAd:
    addresses = info.parsed_addresses(IPVersion.V4Only)
    if not addresses:
        raise _Malformed("no IPv4 address")
    # Prefer ordinary LAN addresses over link-local / loopback ones.
    addresses.sort(key=lambda a: (ipaddress.IPv4Address(a).is_loopback, ipaddress.IPv4Address(a).is_link_local))
    if info.port is None:
        raise _Malformed("no port")
    return parse_properties(info.properties, host=addresses[0], port=info.port, name=info.get_name())


# --------------------------------------------------------------------------
# advertising
# --------------------------------------------------------------------------


class Advertiser:
    """Advertise one open table while inside ``async with``.

    Registration (with mDNS probing for name conflicts) happens on entry;
    goodbye packets are sent and the sockets closed on exit, including exit by
    cancellation or error.  ``advertise`` is this class: ``async with advertise(...) as adv:``.

    ``addresses`` are the IPv4 addresses put in the A records; by default the
    explicit ``interfaces`` addresses, or all non-loopback local addresses.
    ``host_name``: the host's name at the table (TXT ``name``), shown by browsers instead of its key.
    """

    def __init__(
        self,
        *,
        game: str,
        free: int,
        seats: int,
        fingerprint: str,
        table: str,
        port: int,
        interfaces: InterfacesArg = None,
        addresses: Sequence[str] | None = None,
        play: bool = False,
        host_name: str = "",
    ) -> None:
        _check_fields(game, free, seats, fingerprint, table, port, host_name)
        if play and free != 0:
            raise ValueError("a table in play has no free seat")
        self._play = play
        self._ifaces = resolve_interfaces(interfaces)
        if addresses is not None:
            self._addresses = _parse_interface_list(addresses)
        else:
            self._addresses = _advertised_addresses(self._ifaces)
        self._game = game
        self._free = free
        self._seats = seats
        self._fingerprint = fingerprint
        self._table = table
        self._port = port
        self._host_name = host_name
        # a table in play has its own instance name (the lobby's may linger in caches after its goodbye)
        self.name = instance_name(game, table + ("p" if play else ""), fingerprint)
        if len(self.name.encode()) > 63:
            raise ValueError(f"instance name too long for DNS: {self.name!r}")
        self._zc: Zeroconf | None = None
        self._info: ServiceInfo | None = None
        self._lock = trio.Lock()

    @property
    def ad(self) -> TableAd:
        """What we currently advertise (``host`` is the first address)."""
        return TableAd(
            game=self._game,
            free=self._free,
            seats=self._seats,
            fingerprint=self._fingerprint,
            table=self._table,
            host=self._addresses[0],
            port=self._port,
            name=self.name,
            play=self._play,
            host_name=self._host_name,
        )

    @property
    def service_name(self) -> str:
        return f"{self.name}.{SERVICE_TYPE}"

    def _make_info(self) -> ServiceInfo:
        return ServiceInfo(
            SERVICE_TYPE,
            self.service_name,
            port=self._port,
            properties=_txt(self._game, self._free, self._seats, self._fingerprint, self._table, self._play,
                            self._host_name),
            server=_server_name(self._table, self._fingerprint, self._play),
            parsed_addresses=list(self._addresses),
        )

    async def __aenter__(self) -> Advertiser:
        if self._zc is not None:
            raise RuntimeError("Advertiser already entered")
        info = self._make_info()
        zc: Zeroconf | None = None
        try:
            zc = await trio.to_thread.run_sync(_new_zeroconf, self._ifaces)
            self._zc = zc
            # Not abandonable: if we are cancelled meanwhile, the thread still
            # finishes and the cleanup below withdraws the registration.
            await trio.to_thread.run_sync(zc.register_service, info)
            self._info = info
            await trio.lowlevel.checkpoint_if_cancelled()
        except BaseException:
            await self._shutdown()
            raise
        log.debug("advertising %r on %s port %d", self.name, self._addresses, self._port)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._shutdown()

    async def _shutdown(self) -> None:
        zc, info = self._zc, self._info
        self._zc = self._info = None
        if zc is None:
            return
        with trio.move_on_after(_CLEANUP_TIMEOUT) as scope:
            scope.shield = True
            if info is not None:
                try:
                    await trio.to_thread.run_sync(zc.unregister_service, info)
                except Exception:
                    log.debug("error unregistering %r", self.name, exc_info=True)
        await _close_zeroconf(zc)
        log.debug("withdrew %r", self.name)

    async def update(self, *, free: int | None = None, seats: int | None = None) -> None:
        """Change the advertised seat counts and re-announce the TXT record."""
        async with self._lock:
            new_free = self._free if free is None else free
            new_seats = self._seats if seats is None else seats
            _check_fields(self._game, new_free, new_seats, self._fingerprint, self._table, self._port)
            if self._zc is None or self._info is None:
                raise RuntimeError("Advertiser is not active")
            old = (self._free, self._seats)
            self._free, self._seats = new_free, new_seats
            info = self._make_info()
            try:
                await trio.to_thread.run_sync(self._zc.update_service, info)
            except BaseException:
                # zeroconf may or may not have taken it; keep our view in sync
                # with the last update we know completed.
                self._free, self._seats = old
                raise
            self._info = info


# ``async with advertise(...) as adv:`` -- advertise a table while inside (the class itself: its keywords are
# the advertisement's fields).
advertise = Advertiser


# --------------------------------------------------------------------------
# browsing
# --------------------------------------------------------------------------


class _Collector(ServiceListener):
    """Forwards browser events (zeroconf thread) into a trio channel."""

    def __init__(self, token: trio.lowlevel.TrioToken, send: trio.MemorySendChannel) -> None:
        self._token = token
        self._send = send

    def _deliver(self, event: tuple[str, str]) -> None:  # runs in trio
        try:
            self._send.send_nowait(event)
        except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
            pass

    def _post(self, kind: str, name: str) -> None:  # runs in zeroconf thread
        try:
            self._token.run_sync_soon(self._deliver, (kind, name))
        except trio.RunFinishedError:
            pass

    def add_service(self, zc: Zeroconf, type_: str, name: str) -> None:
        self._post("add", name)

    def update_service(self, zc: Zeroconf, type_: str, name: str) -> None:
        self._post("update", name)

    def remove_service(self, zc: Zeroconf, type_: str, name: str) -> None:
        self._post("remove", name)


def _resolve(zc: Zeroconf, name: str, timeout_ms: float) -> ServiceInfo | None:
    """SRV/TXT/A of ``name``: from zc's cache if it holds them (a PTR answer carries them), else asked for
    (answers land in the cache); None if they did not all come within ``timeout_ms``."""
    info = ServiceInfo(SERVICE_TYPE, name)
    try:
        if info.request(zc, timeout_ms, question_type=DNSQuestionType.QM):
            return info
    except Exception:
        log.debug("resolving %r failed", name, exc_info=True)
    return None


# --------------------------------------------------------------------------
# the legacy unicast query (the fast first answer)
# --------------------------------------------------------------------------

MDNS_GROUP = ("224.0.0.251", 5353)
UNICAST_ASKS = (0.0, 0.5, 1.5)   # s after a browse starts: when the legacy unicast query is sent (a lost datagram is asked again)
UNICAST_MAX_ANSWERS = 256        # datagrams read per socket and browse, at most (a flood costs nothing more)
RESOLVE_TIMEOUT = 3.0            # s a service may take to resolve in a browse without an end (asked again on its next update)


def _ptr_query(qid: int) -> bytes:
    """A DNS query for the PTR records of our service type (one question, no flags)."""
    qname = b"".join(bytes([len(label)]) + label for label in SERVICE_TYPE.rstrip(".").encode().split(b".")) + b"\0"
    return struct.pack(">6H", qid, 0, 1, 0, 0, 0) + qname + struct.pack(">2H", 12, 1)   # type PTR, class IN


def _query_addresses(ifaces: InterfaceChoice | list[str]) -> list[str]:
    """The local IPv4 addresses the unicast query leaves from (one socket each)."""
    if isinstance(ifaces, list):
        return list(ifaces)
    if ifaces is InterfaceChoice.Default:
        return ["0.0.0.0"]
    try:
        import ifaddr  # dependency of zeroconf

        addrs = sorted({ip.ip for adapter in ifaddr.get_adapters() for ip in adapter.ips if isinstance(ip.ip, str)})
    except Exception:  # pragma: no cover - platform specific
        addrs = []
    return addrs or ["0.0.0.0"]


def _take_answer(zc: Zeroconf, data: bytes) -> None:
    """Hand a unicast answer to zc as if it had come by multicast: its records go to the cache and the
    browser sees the service at once."""
    msg = DNSIncoming(data)
    if not msg.valid or msg.is_query():
        return
    zc.loop.call_soon_threadsafe(zc.record_manager.async_updates_from_response, msg)


async def _ask_by_unicast(zc: Zeroconf, ifaces: InterfaceChoice | list[str]) -> None:
    """RFC 6762 §6.7: a query from an ephemeral port is answered at once, by unicast, by every responder
    (no random delay, no hold-back of records multicast in the last second); runs until cancelled."""
    if getattr(zc, "record_manager", None) is None or getattr(zc, "loop", None) is None:  # pragma: no cover
        return
    start = trio.current_time()
    socks = []
    try:
        for addr in _query_addresses(ifaces):
            sock = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            try:
                await sock.bind((addr, 0))
                if addr != "0.0.0.0":
                    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(addr))
                sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
                sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
            except OSError as exc:
                log.debug("no unicast query from %s: %s", addr, exc)
                sock.close()
                continue
            socks.append(sock)

        asked: set[bytes] = set()     # the query ids sent: an answer repeats its query's id (RFC 6762 §6.7)

        async def read(sock) -> None:
            for _ in range(UNICAST_MAX_ANSWERS):
                try:
                    data, source = await sock.recvfrom(9000)
                    if source[1] != MDNS_GROUP[1] or data[:2] not in asked:
                        continue          # not a responder's answer to one of our queries: a stray datagram
                    _take_answer(zc, data)
                except OSError:
                    return
                except Exception:
                    log.debug("ignoring a malformed unicast answer", exc_info=True)

        async with trio.open_nursery() as nursery:
            for sock in socks:
                nursery.start_soon(read, sock)
            for when in UNICAST_ASKS:
                await trio.sleep_until(start + when)
                qid = os.urandom(2)
                asked.add(qid)
                for sock in socks:
                    try:
                        await sock.sendto(_ptr_query(int.from_bytes(qid, "big")), MDNS_GROUP)
                    except OSError as exc:
                        log.debug("unicast query failed: %s", exc)
            await trio.sleep_forever()
    finally:
        for sock in socks:
            sock.close()


async def browse_live(
    on_change: Callable[[str, TableAd], None],
    timeout: float | None = None,
    interfaces: InterfacesArg = None,
    *,
    game: str | None = None,
    max_services: int = DEFAULT_MAX_SERVICES,
) -> dict[str, TableAd]:
    """Browse the LAN for ``timeout`` seconds (None: until cancelled), telling ``on_change(kind, ad)``
    (called in this trio run) about each table as soon as it is known: ``"found"`` once resolved,
    ``"updated"`` when its records change, ``"gone"`` at its goodbye (or when its records expire).

    Returns the tables known at the end, by lower-cased service name.  Malformed services are
    skipped (debug log); at most ``max_services`` distinct names are considered; ``game`` keeps
    only that game's tables.
    """
    ifaces = resolve_interfaces(interfaces)
    if timeout is not None and (not math.isfinite(timeout) or timeout < 0):
        raise ValueError(f"bad timeout {timeout!r}")
    deadline = math.inf if timeout is None else trio.current_time() + timeout
    send, recv = trio.open_memory_channel(EVENT_BUFFER)
    collector = _Collector(trio.lowlevel.current_trio_token(), send)
    live: dict[str, str] = {}        # lower-cased name -> name as announced
    gen: dict[str, int] = {}         # lower-cased name -> its latest add/update (a resolve of an older one is dropped)
    shown: dict[str, TableAd] = {}   # what on_change was told
    limiter = trio.CapacityLimiter(RESOLVE_CONCURRENCY)

    zc = await trio.to_thread.run_sync(_new_zeroconf, ifaces)
    try:
        browser: ServiceBrowser | None = None
        try:
            # QM (multicast) questions: QU answers are unicast to port 5353,
            # which several mDNS stacks on one host share via SO_REUSEPORT, so
            # the kernel may hand the answer to the wrong one (the legacy
            # unicast query comes from a port of our own).
            browser = await trio.to_thread.run_sync(
                lambda: ServiceBrowser(
                    zc, SERVICE_TYPE, listener=collector, question_type=DNSQuestionType.QM
                )
            )

            async def resolve(key: str, name: str, mine: int) -> None:
                remaining = min(deadline - trio.current_time(), RESOLVE_TIMEOUT if timeout is None else math.inf)
                if remaining <= 0:
                    return
                info = await trio.to_thread.run_sync(
                    _resolve, zc, name, remaining * 1000, limiter=limiter, **{_ABANDON_KW: True}
                )
                if gen.get(key) != mine or key not in live:
                    return      # gone, or a newer event resolves it again
                if info is None:
                    log.debug("skipping %r: not resolved in time", name)
                    return
                try:
                    ad = _ad_from_info(info)
                except Exception as e:
                    log.debug("skipping malformed service %r: %s", name, e)
                    return
                if game is not None and ad.game != game:
                    return
                before = shown.get(key)
                if before != ad:
                    shown[key] = ad
                    on_change("updated" if before is not None else "found", ad)

            async with trio.open_nursery() as nursery:
                nursery.cancel_scope.deadline = deadline
                nursery.start_soon(_ask_by_unicast, zc, ifaces)
                async with recv:
                    async for kind, name in recv:
                        key = name.lower()
                        if kind == "remove":
                            live.pop(key, None)
                            gen.pop(key, None)
                            gone = shown.pop(key, None)
                            if gone is not None:
                                on_change("gone", gone)
                            continue
                        if key not in live:
                            if len(live) >= max_services:
                                log.debug("ignoring %r: more than %d services", name, max_services)
                                continue
                            live[key] = name
                        gen[key] = gen.get(key, 0) + 1
                        nursery.start_soon(resolve, key, name, gen[key])
        finally:
            if browser is not None:
                b = browser
                with trio.move_on_after(_CLEANUP_TIMEOUT) as scope:
                    scope.shield = True
                    await trio.to_thread.run_sync(b.cancel)
    finally:
        await _close_zeroconf(zc)
    return dict(shown)


async def browse(
    timeout: float = 2.0,
    interfaces: InterfacesArg = None,
    *,
    game: str | None = None,
    max_services: int = DEFAULT_MAX_SERVICES,
) -> list[TableAd]:
    """Return the tables seen within ``timeout`` seconds (:func:`browse_live` to the end of the window):
    the latest records of each, de-duplicated by service name, optionally filtered by ``game``, sorted
    by (game, fingerprint, table, name)."""
    if not math.isfinite(timeout) or timeout < 0:
        raise ValueError(f"bad timeout {timeout!r}")
    tables = await browse_live(lambda kind, ad: None, timeout, interfaces, game=game, max_services=max_services)
    return sorted(tables.values(), key=lambda a: (a.game, a.fingerprint, a.table, a.name))
