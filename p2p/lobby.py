"""Lobby: from an open table to a sealed genesis signed by every seat.

The host only gathers people; once the genesis is signed it is a seat like
any other.  Over TLS (lobby mode: the host's certificate may be checked
against a fingerprint the joiner knows, the joiner proves its key by
signing), framed canonical msgpack messages:

    joiner -> host   ["join", 1, key, cert, play_port, name, sig]          (or with an 8th element,
                     sig = Ed25519 over dhash("sign/join", ...)             ``about``: see below)
    host -> joiner   ["seated", seat, players, game, table nonce]  or  ["refused", reason]
    host -> joiner   ["seats", [seat, ...]]   (only to a joiner that sent ``about``): who sits where
    host -> joiner   ["sign", doc, roster]   once every seat is taken
    joiner -> host   ["signature", sig]      over dhash("sign/genesis", game_id(doc))
    host -> joiner   ["genesis", raw, roster]

A rematch lobby (``previous`` set, §9.9) also takes, from an old seat that
will not play again, one frame instead of a join request:

    joiner -> host   ["decline", 1, key, sig]   sig = Ed25519 over dhash("sign/decline", host_key, previous, key)
    host -> joiner   ["declined"]  or  ["refused", reason]

and may end a lobby it cannot start: ``["refused", reason]`` to every seated
joiner instead of ``sign`` (too few old seats want to play again).  Its seats
are the old seats in their order; one that said no is shown as kind "out",
one not back yet as "free" with its old name.

``roster`` = {"certs": [DER per seat], "addrs": [[host, port] per seat]}:
how to reach and pin each seat; it is not part of the signed game.
Seats are given in join order; the host is seat 0.

``name`` is the seat's display name (core.events.name_problem says which are
valid); the genesis document carries every seat's name (``names``), signed by
every seat.  ``about`` = {"bot": level} for a bot, {"bot": level, "owner":
host fingerprint} for a bot the host started, {} for a person.  A seat as the
lobby shows it: {"name": str, "kind": "person" | "bot" | "free", "level": str,
"owner": str} (the last two for bots only).  Seats the host reserved for the
bots it started count as taken (``free`` leaves them out).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import Any

import trio

from core import games as registry
from core.encoding import CanonicalError, decode, encode
from core.engine import ConfigError
from core.events import EntryError, Genesis, game_id_of, genesis_sign_msg, make_genesis, name_problem
from core.hashing import dhash, fingerprint

from . import tls
from .framing import ConnectionClosed, FrameError, FramedStream
from .identity import verify
from .internet import looks_like_peer
from .limits import RateLimitedLog

log = logging.getLogger("easel.lobby")
_refusals = RateLimitedLog(log)
JOIN_TIMEOUT = 30.0


class LobbyError(Exception):
    pass


MIN_REMATCH_SEATS = 2   # a rematch is a table of at least two of the old seats (alone, it is easel play)


def join_msg(host_key: bytes, key: bytes, cert: bytes, port: int) -> bytes:
    """What a joiner signs: bound to the host's key (so it cannot be replayed to another host)."""
    return dhash("sign/join", host_key, key, cert, port)


def decline_msg(host_key: bytes, previous: bytes, key: bytes) -> bytes:
    """What an old seat signs to say no to a rematch: bound to the host and to the game it follows."""
    return dhash("sign/decline", host_key, previous, key)


@dataclass
class Seat:
    key: bytes
    cert: bytes
    addr: list
    name: str
    stream: FramedStream | None = None
    about: dict | None = None       # None: an old joiner (no ``about``, no seat updates)
    sending: trio.Lock = field(default_factory=trio.Lock)   # one frame at a time: seat updates, then the genesis

    def shown(self) -> dict:
        """This seat as the lobby shows it."""
        about = self.about or {}
        if "bot" in about:
            out = {"name": self.name, "kind": "bot", "level": about["bot"]}
            if "owner" in about:
                out["owner"] = about["owner"]
            return out
        return {"name": self.name, "kind": "person"}


MAX_LEVEL = 32   # characters of a bot level in ``about``


def check_about(about: Any) -> dict:
    """A join request's ``about`` map, checked (LobbyError if malformed)."""
    if not isinstance(about, dict) or not set(about) <= {"bot", "owner"} or ("owner" in about and "bot" not in about):
        raise LobbyError("malformed about")
    for k in ("bot", "owner"):
        if k in about and not (isinstance(about[k], str) and 1 <= len(about[k]) <= MAX_LEVEL and about[k].isprintable()):
            raise LobbyError("malformed about.%s" % k)
    return dict(about)


@dataclass
class HostedTable:
    identity: Any
    game: str
    players: int
    options: dict
    play_port: int
    play_host: str
    timeout: float = 60.0
    table: bytes = field(default_factory=lambda: os.urandom(8))
    seats: list = field(default_factory=list)
    full: trio.Event = field(default_factory=trio.Event)
    sealed: trio.Event = field(default_factory=trio.Event)
    genesis: Genesis | None = None
    roster: dict | None = None
    on_update: Any = None
    games: Any = registry           # the game registry (core.games.Registry or the module)
    name: str = "host"              # the host's own seat name
    about: dict = field(default_factory=dict)   # the host's own seat: {} a person, {"bot": level} a bot
    reserved: dict = field(default_factory=dict)  # key -> level: bots this host started, their seats held for them
    spectators: bool = True         # False: the whole table refuses spectators (genesis ``spectators``: false)
    previous: bytes | None = None   # a rematch: the game id it follows (genesis ``previous``) ...
    order: list | None = None       # ... and its seat keys in order: only they may join, and keep their seats' order
    names: list | None = None       # ... and their old names (how the lobby shows a seat not back yet)
    declined: set = field(default_factory=set)   # a rematch: old seat keys that said they will not play again
    ended: str | None = None        # a rematch that cannot start: why (every joiner is told, seal raises)
    version: int = 0                                 # counts changes of the seats (for the ``seats`` messages)
    changed: trio.Event = field(default_factory=trio.Event)

    def __post_init__(self) -> None:
        game = self.games.get(self.game)  # UnknownGame is a ConfigError: the CLI reports it
        self.config = game.configure(self.options, self.players)
        why = name_problem(self.name)
        if why:
            raise ConfigError("your name %s" % why)
        cert = tls.make_certificate(self.identity)
        self.seats.append(Seat(self.identity.public, cert, [self.play_host, self.play_port], self.name, about=dict(self.about)))
        if self.open_seats == 0:  # a one-seat table (a solo game) is full from the start
            self.full.set()

    @property
    def open_seats(self) -> int:
        """Seats nobody holds yet (the host's own bots may take the reserved ones)."""
        return self.players - len(self.seats)

    @property
    def free(self) -> int:
        """Seats free for anyone: the reserved seats of bots this host started count as taken."""
        return max(0, self.open_seats - self.starting)

    @property
    def starting(self) -> int:
        """Seats held for bots this host started that have not sat down yet."""
        return sum(1 for k in self.reserved if not any(s.key == k for s in self.seats))

    def reserve_bot(self, key: bytes, level: str) -> None:
        """Hold a seat for a bot this host started (its key is known before it joins)."""
        self.reserved[key] = level
        self._changed()

    def shown(self) -> list[dict]:
        """Every seat as the lobby shows it: taken seats in order, then reserved bots, then free seats
        (a rematch: the old seats in their order, each back, starting, said no, or not back yet)."""
        if self.previous is not None and self.order is not None:
            return self._shown_rematch()
        out = [s.shown() for s in self.seats]
        fp = self.identity.fingerprint
        for key, level in self.reserved.items():
            if not any(s.key == key for s in self.seats) and len(out) < self.players:
                out.append({"name": "(starting)", "kind": "bot", "level": level, "owner": fp})
        while len(out) < self.players:
            out.append({"name": "", "kind": "free"})
        return out

    def _shown_rematch(self) -> list[dict]:
        by_key = {s.key: s for s in self.seats}
        fp = self.identity.fingerprint
        out = []
        for i, key in enumerate(self.order):
            name = self.names[i] if isinstance(self.names, list) and i < len(self.names) else ""
            if key in by_key:
                out.append(by_key[key].shown())
            elif key in self.reserved:
                out.append({"name": name or "(starting)", "kind": "bot", "level": self.reserved[key], "owner": fp})
            elif key in self.declined:
                out.append({"name": name, "kind": "out"})
            else:
                out.append({"name": name, "kind": "free"})
        return out

    def _changed(self) -> None:
        if self.on_update:
            self.on_update(self)
        self.version += 1
        self.changed.set()
        self.changed = trio.Event()

    async def handle(self, stream: trio.SSLStream) -> None:
        """One joiner's lobby connection (run by tls.serve)."""
        fs = FramedStream(stream)
        try:
            with trio.fail_after(JOIN_TIMEOUT):
                msg = decode(await fs.receive())
            if isinstance(msg, list) and msg and msg[0] == "decline":
                self._decline(msg)
                with trio.move_on_after(JOIN_TIMEOUT):
                    try:
                        await fs.send(encode(["declined"]))
                    except (trio.BrokenResourceError, trio.ClosedResourceError):
                        pass    # it said no and left: the no stands
                return
            seat = self._admit(msg, stream)
        except (CanonicalError, FrameError, ConnectionClosed, trio.TooSlowError, LobbyError, ValueError, TypeError) as exc:
            addr = tls.peer_host(stream) or "?"
            _refusals.note("JOIN_REFUSED", addr, "lobby: refused a joiner from %s: %s", addr, exc)
            try:
                await fs.send(encode(["refused", str(exc)]))
            except Exception:
                pass
            return
        seat.stream = fs
        idx = len(self.seats) - 1
        try:
            await fs.send(encode(["seated", idx, self.players, self.game, self.table]))
        except (ConnectionClosed, FrameError):
            self._leave(seat)
            return
        self._changed()
        self._check_full()
        if not self.full.is_set():
            # until the table is full, a joiner that goes away gives its seat back
            # (it sends nothing before it is asked to sign, so any input means it left)
            lost = False
            async with trio.open_nursery() as n:

                async def watch() -> None:
                    nonlocal lost
                    try:
                        await fs.receive()
                    except Exception:
                        pass
                    lost = True
                    n.cancel_scope.cancel()

                n.start_soon(watch)
                if seat.about is not None:
                    n.start_soon(self._tell_seats, fs)
                await self.full.wait()
                n.cancel_scope.cancel()
            if lost and not self.full.is_set():
                self._leave(seat)
                return
        if self.ended is not None:
            try:
                with trio.move_on_after(JOIN_TIMEOUT):
                    async with seat.sending:
                        await fs.send(encode(["refused", self.ended]))
            except (ConnectionClosed, FrameError, trio.BrokenResourceError, trio.ClosedResourceError):
                pass    # it left meanwhile: nothing to tell it
            return
        await self.sealed.wait()

    async def _tell_seats(self, fs: FramedStream) -> None:
        """While the lobby fills: send a joiner that asked for it (``about``) every seat as it changes."""
        last = -1
        seat = next((s for s in self.seats if s.stream is fs), None)
        if seat is None:
            return
        try:
            while not self.full.is_set():
                # the event to wait on is taken before sending: a change while the frame goes out (a bot
                # sitting down then) sets it, so it is sent next, not after the following change
                changed = self.changed
                if self.version != last:
                    last = self.version
                    async with seat.sending:
                        # never cut a frame in half when the table fills meanwhile (that would break the stream)
                        with trio.CancelScope(shield=True):
                            with trio.move_on_after(JOIN_TIMEOUT):
                                await fs.send(encode(["seats", self.shown()]))
                await changed.wait()
        except (ConnectionClosed, FrameError, trio.BrokenResourceError, trio.ClosedResourceError):
            return

    def _check_full(self) -> None:
        """Set ``full`` once the seats are all taken; in a rematch, once every old seat is back or said no
        (then with the old seats that came back, if the game can be played by that many)."""
        if self.full.is_set():
            return
        if self.previous is None or self.order is None:
            if self.open_seats == 0:
                self.full.set()
            return
        here = {s.key for s in self.seats}
        if all(k in here or k in self.declined for k in self.order):
            self._start_with_who_is_here()

    def _start_with_who_is_here(self) -> None:
        """A rematch: seal with the old seats in the lobby now (the others did not come back or said no),
        or end the lobby if the game cannot be played by that many."""
        if self.full.is_set():
            return
        n = len(self.seats)
        why = None
        if n < MIN_REMATCH_SEATS:
            why = "too few seats want to play again (%d of %d)" % (n, len(self.order or ()))
        else:
            try:
                self.config = self.games.get(self.game).configure(self.options, n)
            except ConfigError as exc:
                why = "too few seats want to play again for this game (%d of %d: %s)" % (n, len(self.order or ()), exc)
        if why is not None:
            self.ended = why
            log.info("lobby: %s", why)
        else:
            self.players = n
        self.full.set()
        self._changed()

    async def start_with_who_is_here(self, after: float) -> None:
        """A rematch: wait ``after`` seconds for the old seats that neither came back nor said no, then start
        with those in the lobby (``_start_with_who_is_here``)."""
        await trio.sleep(after)
        self._start_with_who_is_here()

    def _decline(self, msg: Any) -> None:
        """An old seat says it will not play again (a rematch lobby only)."""
        if not (isinstance(msg, list) and len(msg) == 4 and type(msg[1]) is int and msg[1] == 1
                and isinstance(msg[2], bytes) and isinstance(msg[3], bytes)):
            raise LobbyError("malformed decline")
        if self.previous is None or self.order is None:
            raise LobbyError("this table is not a rematch: there is nothing to decline")
        key = msg[2]
        if key not in self.order:
            raise LobbyError("this table is a rematch: only the seats of the game before may answer")
        if not verify(key, decline_msg(self.identity.public, self.previous, key), msg[3]):
            raise LobbyError("decline not signed by its key")
        if any(s.key == key for s in self.seats):
            raise LobbyError("that seat is already back at the table")
        if self.full.is_set():
            raise LobbyError("the rematch has started without that seat")
        if key not in self.declined:
            self.declined.add(key)
            log.info("lobby: seat %d will not play again", self.order.index(key))
            self._changed()
        self._check_full()

    def _leave(self, seat: Seat) -> None:
        if seat in self.seats and not self.full.is_set():
            self.seats.remove(seat)
            log.info("lobby: %s left before the table was full", seat.name or "a joiner")
            self._changed()

    def _admit(self, msg: Any, stream: trio.SSLStream) -> Seat:
        if not (isinstance(msg, list) and len(msg) in (7, 8) and msg[0] == "join" and type(msg[1]) is int and msg[1] == 1):
            raise LobbyError("not a join request")
        _, _, key, cert, port, name, sig = msg[:7]
        about = check_about(msg[7]) if len(msg) == 8 else None
        if not (isinstance(key, bytes) and isinstance(cert, bytes) and isinstance(port, int) and isinstance(name, str) and isinstance(sig, bytes)):
            raise LobbyError("malformed join request")
        if not 0 < port < 65536:
            raise LobbyError("bad port")
        why = name_problem(name)
        if why:
            raise LobbyError("the name %s" % why)
        if about is not None and about.get("owner") == self.identity.fingerprint and key not in self.reserved:
            raise LobbyError("this host did not start that bot")
        try:
            if tls.cert_public_key(cert) != key:
                raise LobbyError("certificate does not hold the joiner's key")
        except tls.TLSError as exc:
            raise LobbyError("bad certificate: %s" % exc) from None
        if not verify(key, join_msg(self.identity.public, key, cert, port), sig):
            raise LobbyError("join request not signed by its key")
        if any(s.key == key for s in self.seats):
            raise LobbyError("that key already holds a seat")
        if self.order is not None and key not in self.order:
            raise LobbyError("this table is a rematch: only the seats of the game before may join")
        if self.full.is_set():
            raise LobbyError("the table is full" if self.previous is None else "the rematch has started without that seat")
        self.declined.discard(key)      # it changed its mind before the rematch started: welcome back
        if (self.open_seats if key in self.reserved else self.free) <= 0:
            raise LobbyError("the table is full")
        peer_ip = tls.peer_host(stream) or "?"   # an IP address, or over the internet the joiner's libp2p peer id
        if key in self.reserved:   # one of our own bots: shown as ours, whatever it says
            about = {"bot": self.reserved[key], "owner": self.identity.fingerprint}
            # it runs on our machine and listens where we do: it is recorded as we are (every interface: an
            # empty host part, that every joiner fills in with where it reached us, §9.3), never at the
            # loopback address it dialled us from, which only this machine can reach. Beyond the LAN (§9.10)
            # each of our bots is a libp2p peer of its own: it is recorded at its own peer id (recorded at ours,
            # the other seats dialled our peer at the bot's port and never reached it)
            if not looks_like_peer(peer_ip):
                peer_ip = self.play_host
        seat = Seat(key, cert, [peer_ip, port], name, about=about)
        self.seats.append(seat)
        return seat

    async def seal(self) -> tuple[Genesis, dict]:
        """Once full: collect every seat's signature on the genesis document."""
        await self.full.wait()
        if self.ended is not None:
            raise LobbyError(self.ended)
        if self.order is not None:
            # a rematch: the seats of the game before, in its order (the host stays first)
            self.seats[1:] = sorted(self.seats[1:], key=lambda s: self.order.index(s.key))
        doc = {
            "game": self.game,
            "config": self.config,
            "seats": [s.key for s in self.seats],
            "table": self.table,
            "timeout": int(self.timeout),
            "names": [s.name for s in self.seats],
        }
        if self.previous is not None:
            doc["previous"] = self.previous
        if not self.spectators:
            doc["spectators"] = False
        roster = {"certs": [s.cert for s in self.seats], "addrs": [s.addr for s in self.seats]}
        gid = game_id_of(doc)
        sigs = [self.identity.sign(genesis_sign_msg(gid))]
        for i, s in enumerate(self.seats[1:], start=1):
            try:
                async with s.sending:
                    await s.stream.send(encode(["sign", doc, roster]))
                with trio.fail_after(JOIN_TIMEOUT):
                    reply = decode(await s.stream.receive())
            except (ConnectionClosed, FrameError, CanonicalError, trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError) as exc:
                raise LobbyError("seat %d (%s) did not sign the genesis: %s" % (i, s.name, type(exc).__name__)) from None
            if not (isinstance(reply, list) and len(reply) == 2 and reply[0] == "signature" and isinstance(reply[1], bytes)):
                raise LobbyError("seat %d did not sign the genesis" % i)
            if not verify(s.key, genesis_sign_msg(gid), reply[1]):
                raise LobbyError("seat %d's genesis signature does not verify" % i)
            sigs.append(reply[1])
        genesis = make_genesis(doc, sigs)
        for s in self.seats[1:]:
            try:
                await s.stream.send(encode(["genesis", genesis.raw, roster]))
            except (ConnectionClosed, FrameError, trio.BrokenResourceError, trio.ClosedResourceError):
                # it signed, but never got the genesis and roster: the others will time it out
                log.warning("lobby: %s left before receiving the genesis", s.name)
        self.genesis, self.roster = genesis, roster
        self.sealed.set()
        return genesis, roster


async def join(
    host: str,
    port: int,
    identity,
    play_port: int,
    name: str = "player",
    expect_fingerprint: str | None = None,
    on_seated=None,
    games: Any = registry,
    about: dict | None = None,
    on_seats=None,
    previous: bytes | None = None,
) -> tuple[Genesis, dict]:
    """Join a hosted table and return (genesis, roster) once it is sealed.

    ``about`` ({} for a person, {"bot": level} for a bot) asks the host for
    the lobby's seats as they change: ``on_seats(list of seat maps)``."""
    why = name_problem(name)
    if why:
        raise LobbyError("your name %s" % why)
    ctx = tls.client_context(identity, None)
    stream = await tls.connect(host, port, ctx, None)
    if expect_fingerprint is not None:
        key = tls.peer_public_key(stream)
        if key is None or fingerprint(key) != expect_fingerprint:
            await trio.aclose_forcefully(stream)
            raise LobbyError("the host's key does not match the advertised fingerprint")
    fs = FramedStream(stream)
    try:
        cert = tls.make_certificate(identity)
        sig = identity.sign(join_msg(tls.peer_public_key(stream) or b"", identity.public, cert, play_port))
        req = ["join", 1, identity.public, cert, play_port, name, sig]
        if about is not None:
            req.append(check_about(about))
        await fs.send(encode(req))
        seated = decode(await fs.receive())
        if not isinstance(seated, list) or not seated:
            raise LobbyError("unexpected reply from host")
        if seated[0] == "refused":
            raise LobbyError("host refused: %s" % (seated[1] if len(seated) > 1 else "?"))
        if seated[0] != "seated" or len(seated) != 5:
            raise LobbyError("unexpected reply from host")
        _, seat, players, game, table = seated
        if on_seated:
            on_seated(seat, players, game)
        while True:
            msg = decode(await fs.receive())
            if isinstance(msg, list) and len(msg) == 2 and msg[0] == "seats" and about is not None:
                seats = _check_seats(msg[1], players)
                if on_seats:
                    on_seats(seats)
            elif isinstance(msg, list) and len(msg) == 2 and msg[0] == "refused" and previous is not None:
                raise LobbyError("host refused: %s" % str(msg[1])[:200])
            elif isinstance(msg, list) and msg and msg[0] == "sign" and len(msg) == 3:
                doc, roster = msg[1], msg[2]
                _check_doc(doc, roster, identity, seat, game, table, games, name)
                if previous is not None and doc.get("previous") != previous:
                    raise LobbyError("this table is not the rematch of our game")
                await fs.send(encode(["signature", identity.sign(genesis_sign_msg(game_id_of(doc)))]))
            elif isinstance(msg, list) and msg and msg[0] == "genesis" and len(msg) == 3:
                from core.events import parse_genesis

                g = parse_genesis(msg[1])
                _check_doc(g.doc, msg[2], identity, seat, game, table, games, name)
                return g, msg[2]
            else:
                raise LobbyError("unexpected message from host")
    except (CanonicalError, FrameError, EntryError, ValueError, TypeError) as exc:
        raise LobbyError("lobby failed: %s" % exc) from None
    except ConnectionClosed:
        raise LobbyError("the host closed the lobby connection") from None
    finally:
        await trio.aclose_forcefully(stream)


async def decline(host: str, port: int, identity, previous: bytes) -> None:
    """Tell a rematch lobby (the old seat 0's, §9.9) that this old seat will not play again.
    Returns once the host took it; LobbyError if it refused (OSError if nobody listens there)."""
    ctx = tls.client_context(identity, None)
    stream = await tls.connect(host, port, ctx, None)
    fs = FramedStream(stream)
    try:
        host_key = tls.peer_public_key(stream) or b""
        await fs.send(encode(["decline", 1, identity.public, identity.sign(decline_msg(host_key, previous, identity.public))]))
        with trio.fail_after(JOIN_TIMEOUT):
            reply = decode(await fs.receive())
        if isinstance(reply, list) and len(reply) == 2 and reply[0] == "refused":
            raise LobbyError("host refused: %s" % str(reply[1])[:200])
        if reply != ["declined"]:
            raise LobbyError("unexpected reply from host")
    except (CanonicalError, FrameError, ValueError, TypeError, trio.TooSlowError) as exc:
        raise LobbyError("decline failed: %s" % (exc or type(exc).__name__)) from None
    except ConnectionClosed:
        raise LobbyError("the host closed the lobby connection") from None
    finally:
        await trio.aclose_forcefully(stream)


def _check_seats(seats: Any, players: int) -> list[dict]:
    """A ``seats`` message's list, checked (LobbyError if malformed)."""
    if not isinstance(seats, list) or len(seats) != players:
        raise LobbyError("malformed seats message")
    for s in seats:
        if not (isinstance(s, dict) and s.get("kind") in ("person", "bot", "free", "out") and isinstance(s.get("name"), str)
                and len(s["name"]) <= 64 and all(isinstance(v, str) and len(v) <= 64 for v in s.values())):
            raise LobbyError("malformed seats message")
    return seats


def _check_doc(doc, roster, identity, seat, game, table, games, name=None) -> None:
    if not isinstance(doc, dict) or doc.get("game") != game or doc.get("table") != table:
        raise LobbyError("genesis document is not for the table we joined")
    seats = doc.get("seats")
    # our seat is where our key is: seats shift when someone leaves the lobby early
    if not isinstance(seats, list) or seats.count(identity.public) != 1:
        raise LobbyError("genesis document does not give us a seat")
    names = doc.get("names")
    if name is not None and names is not None:
        # the host may not sign us in under another name (a genesis without names is an old host's: allowed)
        if not isinstance(names, list) or len(names) != len(seats) or names[seats.index(identity.public)] != name:
            raise LobbyError("genesis document gives us another name")
    if not isinstance(roster, dict) or len(roster.get("certs", [])) != len(seats) or len(roster.get("addrs", [])) != len(seats):
        raise LobbyError("roster does not match the seats")
    try:
        games.get(doc["game"]).configure(doc["config"], len(seats))
    except ConfigError as exc:
        raise LobbyError("genesis document has a bad configuration: %s" % exc) from None


def describe_seats(seats: list[dict], me: int | None = None) -> str:
    """The lobby's seats in words: ``Ann (you), bot 1 (bot, random, Ann's), free``.

    ``owner`` (the host's fingerprint: only the host's own bots have one) makes
    the bot the host's, named after seat 0."""
    parts = []
    for i, s in enumerate(seats):
        kind = s.get("kind")
        if kind == "free":
            parts.append("%s (not back yet)" % s["name"] if s.get("name") else "free")
            continue
        if kind == "out":
            parts.append("%s (will not play again)" % (s.get("name") or "?"))
            continue
        text = s.get("name") or "?"
        if kind == "bot":
            whose = ", %s's" % (seats[0].get("name") or "the host") if s.get("owner") else ""
            if text == "(starting)":    # a seat held for the host's bot that has not sat down yet
                text = "a bot starting (%s%s)" % (s.get("level") or "?", whose)
            else:
                text += " (bot, %s%s)" % (s.get("level") or "?", whose)
        if i == me:
            text += " (you)"
        parts.append(text)
    return ", ".join(parts)
