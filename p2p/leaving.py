"""Leaving is a signed word (protocol.md §9.7), as a sans-IO part of ``Peer``.

A seat that quits in the middle of a game (q, Ctrl-C, its terminal closing) signs a short
note before it goes and sends it to every seat it is connected to:

    ["leaving", seat, phase, nonce, sig]
    sig = Ed25519_{key of seat}( dhash("sign/leaving", game_id, key, phase, nonce) )

``phase`` is the step its log was at, ``nonce`` 16 fresh random bytes (two notes of one seat
are never the same bytes, so a copy seen before is told from a new leave).  The note is a
wire message, never a log entry.  With it the seat signs its ``leave`` event (``Peer.leave``,
protocol.md §6.1 "A leave"), which the log records as its answer to the next step that expects
it: from then on no step expects the seat, and the leave is for good.  The note tells every
peer at once, covers a step the leave cannot answer (the first shared seed) and lets the show
gate count the seat as settled.

What a peer does with a note is here (``Departures``, answering in effects: p2p/effects.py);
``Peer`` only feeds it the facts (a note that arrived, a ``hello``, the newest event it holds of a
seat, who is connected) and hands the seats that left to its ``TimeoutVoter`` (p2p/timeouts.py),
which votes a seat that left out of every step that expects it at once instead of after the
step's time.

* A note is **taken** (the seat counts as gone by its word) when its signature verifies,
  its seat is not ours, it is not a copy of a note taken before (same nonce), the seat is
  not already held as gone, it is not stale (we hold no event of that seat made for a later
  phase than the note's), and it came from its author itself or, if relayed by another
  seat, the author is not connected to us (a seat that is connected to us says its own
  goodbye on that connection; a relayed copy of an old note must not outvote it).
* A note taken is **relayed** once to every connected seat, the one it came from included:
  for its author that copy is the acknowledgement it waits for before it exits.  A peer
  also gives each seat that connects the notes it holds (a seat connected to only some
  still learns who left).
* A seat is **back** (its note is dropped) at its first ``hello`` after the note (only a
  running peer of that key can send one, on a new connection: the leaver sends nothing
  after its note), or once we hold an event of it made for a later phase than its note's --
  unless it signed a leave event: that is for good (``Peer._on_hello``).
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable

from core.encoding import encode
from core.events import verify_sig
from core.hashing import dhash

from .effects import Alert, Broadcast, Changed, Disconnect

NONCE_BYTES = 16
MAX_NONCES_KEPT = 8      # nonces of notes taken, remembered per seat (copies of older ones are stale by phase)
LEAVE_FLUSH = 1.0        # s the leaver waits for every connected seat to send its note back before it exits


def leaving_sign_msg(game_id: bytes, key: bytes, phase: int, nonce: bytes) -> bytes:
    """What a seat signs when it leaves (protocol.md §3, §9.7)."""
    return dhash("sign/leaving", game_id, key, phase, nonce)


def make_note(sign: Callable[[bytes], bytes], game_id: bytes, seat: int, key: bytes, phase: int, nonce: bytes) -> bytes:
    """The encoded ``leaving`` message of ``seat`` (key ``key``) leaving at ``phase``."""
    return encode(["leaving", seat, phase, nonce, sign(leaving_sign_msg(game_id, key, phase, nonce))])


class NoteError(ValueError):
    """A malformed note (the connection that sent it is dropped, like any malformed message)."""


def parse_note(msg: list, n: int) -> tuple[int, int, bytes, bytes]:
    """(seat, phase, nonce, sig) of a decoded ``leaving`` message, its shape checked (not its signature)."""
    if len(msg) != 5:
        raise NoteError("bad leaving note: %d elements, not 5" % len(msg))
    _, seat, phase, nonce, sig = msg
    if type(seat) is not int or not 0 <= seat < n:
        raise NoteError("bad leaving note: seat")
    if type(phase) is not int or phase < 0:
        raise NoteError("bad leaving note: phase")
    if not isinstance(nonce, bytes) or len(nonce) != NONCE_BYTES:
        raise NoteError("bad leaving note: nonce")
    if not isinstance(sig, bytes) or len(sig) != 64:
        raise NoteError("bad leaving note: signature")
    return seat, phase, nonce, sig


class Departures:
    """The seats that said they left and have not come back, for one peer; our own note once we leave."""

    def __init__(self, n: int, seat: int | None, names: Any = None) -> None:
        self.n = n
        self.seat = seat
        self.names = list(names) if names is not None else ["seat %d" % s for s in range(n)]   # for the words
        self.notes: dict[int, tuple[int, bytes, bytes]] = {}   # seat -> (phase, nonce, message) while it is gone
        self.nonces: dict[int, deque] = {}                     # seat -> nonces of the notes taken (bounded)
        self.mine: tuple[bytes, bytes] | None = None           # (nonce, message) once we left
        self.acks: set = set()                                 # peers that sent our own note back

    @property
    def gone(self) -> bool:
        """We left: we sign nothing more and answer nothing (protocol.md §9.7)."""
        return self.mine is not None

    def left(self) -> dict[int, int]:
        """seat -> phase of its note, for every seat gone by its word."""
        return {s: note[0] for s, note in self.notes.items()}

    def name(self, seat: int) -> str:
        return self.names[seat]

    def left_words(self, seat: int) -> str:
        """What the others are told when ``seat`` left."""
        return "%s left the table: their turns pass at once (the empty move)" % self.names[seat]

    def back_words(self, seat: int) -> str:
        return "%s is back at the table" % self.names[seat]

    def left_by(self, seat: int, phase: int) -> bool:
        """Did ``seat`` say it left at ``phase`` or before (and is not back)?"""
        return seat in self.notes and self.notes[seat][0] <= phase

    def held_notes(self) -> list:
        """[(seat, message), ...] of every note held, seat order (for a seat that just connected)."""
        return [(s, note[2]) for s, note in sorted(self.notes.items())]

    def told(self, peers) -> bool:
        """Has every one of ``peers`` sent our own note back (it holds it)?"""
        return all(p in self.acks for p in peers)

    def seen(self, seat: int, nonce: bytes) -> bool:
        return nonce in self.nonces.get(seat, ())

    def take(self, seat: int, phase: int, nonce: bytes, msg: bytes, *, newest_phase: int, direct: bool,
             author_connected: bool) -> bool:
        """A note whose signature verified: True if it is taken (then relay it), False if ignored."""
        if seat == self.seat or self.seen(seat, nonce) or seat in self.notes:
            return False
        if newest_phase > phase:
            return False        # stale: the seat has moved since (it came back)
        if not direct and author_connected:
            return False        # the author is connected to us: its own copy is the one that counts
        kept = self.nonces.setdefault(seat, deque(maxlen=MAX_NONCES_KEPT))
        kept.append(nonce)
        self.notes[seat] = (phase, nonce, msg)
        return True

    def back(self, seat: int) -> bool:
        """The seat is back (a hello, or a newer event): True if it was held as gone."""
        return self.notes.pop(seat, None) is not None

    def stale(self, newest: Callable[[int], int]) -> list[int]:
        """Seats held as gone of which we now hold an event for a later phase than their note's:
        they are back (dropped here); ``newest(seat)`` is the phase of the newest event held of it."""
        back = [s for s, (phase, _, _) in self.notes.items() if newest(s) > phase]
        for s in back:
            del self.notes[s]
        return back

    def hear(self, peer: Any, seat: int, phase: int, nonce: bytes, sig: bytes, msg: bytes, *, key: bytes, game_id: bytes,
             newest_phase: Callable[[], int], author_connected: bool) -> str | None:
        """A note from ``peer`` (its shape checked; ``key``: its seat's key, ``msg``: its bytes): "ack" (a
        copy of our own came back, once we left), "bad" (its signature does not verify: drop ``peer``),
        "taken" (relay it) or None (ignored).  ``newest_phase()``: of the newest event held of the seat."""
        if self.gone:
            return "ack" if self.ack(peer, seat, nonce) else None
        if seat == self.seat or self.seen(seat, nonce):
            return None
        if not self.verify(key, game_id, phase, nonce, sig):
            return "bad"
        taken = self.take(seat, phase, nonce, msg, newest_phase=newest_phase(), direct=peer == key,
                          author_connected=author_connected)
        return "taken" if taken else None

    def answer(self, what: str | None, peer: Any, seat: int, msg: bytes, who: str, refuse: Callable) -> list:
        """The effects of ``hear``'s answer ``what`` to ``seat``'s note ``msg`` from ``peer`` (``who``, for the
        log): a note taken relayed to every connected seat and said, a copy of ours back redrawn, a bad
        signature refused (``refuse(limit, who, format, *args)``) and its connection dropped; else nothing."""
        if what == "bad":
            refuse("LEAVING", who, "refused a leaving note of seat %d from %s: its signature does not verify", seat, who)
            return [Disconnect(peer, "bad leaving note signature")] if peer else []
        if what != "taken":
            return [Changed()] if what == "ack" else []
        return [Broadcast(msg), Alert(self.left_words(seat)), Changed()]

    def sign_leave(self, sign: Callable[[bytes], bytes], rand: Callable[[int], bytes], game_id: bytes, key: bytes,
                   phase: int) -> bytes:
        """We leave at ``phase``: our note (a fresh nonce from ``rand``, signed with ``sign``), kept to
        know its copies when they come back."""
        nonce = rand(NONCE_BYTES)
        if not isinstance(nonce, bytes) or len(nonce) != NONCE_BYTES:
            raise ValueError("rand(%d) must give %d bytes" % (NONCE_BYTES, NONCE_BYTES))
        msg = make_note(sign, game_id, self.seat, key, phase, nonce)
        self.leave(msg, nonce)
        return msg

    def leave(self, msg: bytes, nonce: bytes) -> None:
        self.mine = (nonce, msg)
        self.acks = set()

    def ack(self, peer: Any, seat: int, nonce: bytes) -> bool:
        """A copy of our own note came back from ``peer``: it holds it."""
        if self.mine is None or seat != self.seat or nonce != self.mine[0]:
            return False
        self.acks.add(peer)
        return True

    def verify(self, key: bytes, game_id: bytes, phase: int, nonce: bytes, sig: bytes) -> bool:
        return verify_sig(key, leaving_sign_msg(game_id, key, phase, nonce), sig)
