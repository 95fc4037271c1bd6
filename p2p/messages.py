"""The game messages two peers exchange (protocol.md §9.5), typed, with one encode and one decode.

Each message is a canonical msgpack array, one per frame, whose first element names its type:

    ["hello", 1, game_id, have, certs]   first message on every connection
    ["have", have, certs]                what we hold (on disk): ack and repair
    ["entry", raw]                       an event or a time-out certificate
    ["vote", phase, prev, seats, voter, sig]
    ["proof", raw_a, raw_b]              equivocation proof
    ["leaving", seat, phase, nonce, sig] a seat quits mid-game (p2p/leaving.py)
    ["fork", evidence]                   the table forked over a shown secret (core/fork.py)

``decode`` checks a message's shape (the checks of protocol.md §9.5's table that need no state:
counts, types, seat numbers, the game id of a ``hello``) and gives one of the classes below;
anything else raises ``ProtocolError`` ("protocol violation"), ``CanonicalError`` or another
``ValueError``/``TypeError`` ("malformed message"): the peer that sent it is disconnected.
What a message *means* (signatures, steps, repair) is ``Peer``'s business (p2p/protocol.py).

``have`` is a list of [author key, highest contiguous seq held, first 8 bytes of that event's
id]; ``certs`` a list of [phase, first 8 bytes of the certificate's id] for every certificate
held (its items are read leniently: one that is not such a pair is ignored).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from core.encoding import decode as decode_canonical
from core.encoding import encode

from .leaving import parse_note

PROTOCOL = 1


class ProtocolError(ValueError):
    pass


@dataclass(frozen=True)
class Hello:
    """The first message on every connection: what the sender holds (a ``have``), and a request."""

    KIND: ClassVar[str] = "hello"
    game_id: bytes
    have: list
    certs: list

    def encode(self) -> bytes:
        return encode(["hello", PROTOCOL, self.game_id, self.have, self.certs])


@dataclass(frozen=True)
class Have:
    KIND: ClassVar[str] = "have"
    have: list
    certs: list

    def encode(self) -> bytes:
        return encode(["have", self.have, self.certs])


@dataclass(frozen=True)
class Entry:
    KIND: ClassVar[str] = "entry"
    raw: bytes

    def encode(self) -> bytes:
        return encode(["entry", self.raw])


@dataclass(frozen=True)
class Vote:
    KIND: ClassVar[str] = "vote"
    phase: int
    prev: bytes
    seats: tuple
    voter: int
    sig: bytes

    def encode(self) -> bytes:
        return encode(["vote", self.phase, self.prev, list(self.seats), self.voter, self.sig])


@dataclass(frozen=True)
class Proof:
    KIND: ClassVar[str] = "proof"
    a: bytes
    b: bytes

    def encode(self) -> bytes:
        return encode(["proof", self.a, self.b])


@dataclass(frozen=True)
class Leaving:
    KIND: ClassVar[str] = "leaving"
    seat: int
    phase: int
    nonce: bytes
    sig: bytes

    def encode(self) -> bytes:
        return encode(["leaving", self.seat, self.phase, self.nonce, self.sig])


@dataclass(frozen=True)
class ForkMsg:
    """Fork evidence (core/fork.py, protocol.md §6.5 rule 3): checked by ``Peer`` against its log."""

    KIND: ClassVar[str] = "fork"
    raw: bytes

    def encode(self) -> bytes:
        return encode(["fork", self.raw])


Message = Hello | Have | Entry | Vote | Proof | Leaving | ForkMsg


def _have_items(have: Any, certs: Any) -> list:
    if not isinstance(have, list) or not isinstance(certs, list):
        raise ProtocolError("have must be lists")
    for item in have:
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], bytes) and isinstance(item[1], int)
                and isinstance(item[2], bytes)):
            raise ProtocolError("bad have item")
    return have


def _vote(msg: list, n: int) -> Vote:
    if len(msg) != 6:
        raise ProtocolError("bad vote")
    _, phase, prev, seats, voter, sig = msg
    if not (isinstance(phase, int) and isinstance(prev, bytes) and isinstance(seats, list) and isinstance(voter, int)
            and isinstance(sig, bytes)):
        raise ProtocolError("bad vote fields")
    if not (0 <= voter < n) or not seats or seats != sorted(set(seats)) or voter in seats:
        raise ProtocolError("bad vote seats")
    if not all(isinstance(s, int) and 0 <= s < n for s in seats):
        raise ProtocolError("bad vote seats")
    return Vote(phase, prev, tuple(seats), voter, sig)


def decode(data: bytes, game_id: bytes, n: int, only: tuple | None = None) -> Message | None:
    """The message in ``data`` for a table of ``n`` seats playing ``game_id``, its shape checked.
    ``only``: the types wanted (None: all); a message of another known-or-not type gives None unchecked."""
    msg = decode_canonical(data)
    if not isinstance(msg, list) or not msg or not isinstance(msg[0], str):
        raise ProtocolError("message is not an array starting with its type")
    kind = msg[0]
    if only is not None and kind not in only:
        return None
    if kind == "hello":
        if len(msg) != 5 or type(msg[1]) is not int or msg[1] != PROTOCOL:
            raise ProtocolError("unsupported hello")
        if msg[2] != game_id:
            raise ProtocolError("peer is at another game")
        return Hello(msg[2], _have_items(msg[3], msg[4]), msg[4])
    if kind == "leaving":
        return Leaving(*parse_note(msg, n))
    if kind == "have":
        if len(msg) != 3:
            raise ProtocolError("bad have")
        return Have(_have_items(msg[1], msg[2]), msg[2])
    if kind == "entry":
        if len(msg) != 2 or not isinstance(msg[1], bytes):
            raise ProtocolError("bad entry message")
        return Entry(msg[1])
    if kind == "vote":
        return _vote(msg, n)
    if kind == "proof":
        if len(msg) != 3 or not all(isinstance(x, bytes) for x in msg[1:]):
            raise ProtocolError("bad proof")
        return Proof(msg[1], msg[2])
    if kind == "fork":
        if len(msg) != 2 or not isinstance(msg[1], bytes):
            raise ProtocolError("bad fork message")
        return ForkMsg(msg[1])
    raise ProtocolError("unknown message type %r" % kind)
