"""Fork evidence: a table that forked over a shown secret ends, for every seat that holds the proof
(protocol.md §6.5 "Shown secrets", rule 3; §6.6; §11; the record form in §15).

A seat that showed a secret in step ``s`` never follows a time-out certificate for an earlier step
``p`` (bind before show): the choice it showed would be in play again.  Any seat that holds the
certificate does follow it (certificates win, §6.6).  So once such a certificate exists, the seat
that showed and every seat that follows the certificate are on two branches for good: waiting
would be for ever.  The seat that refuses ends the game ``forked`` and hands every seat the proof,
which any seat checks against its own log alone (no clock, no trust):

    ["easel-fork", 1, game_id, certificate, [entry, ...], shown]

* ``certificate``: the valid time-out certificate for step ``p`` (its ``phase``, its ``prev``);
* ``entries``: the entries of the shower's log after the genesis up to where step ``s`` opened (the
  common prefix up to step ``p``, then the branch the certificate cuts: step ``p`` closed on it
  without that certificate, or with a worse one, §6.6);
* ``shown``: the shower's signed event for step ``s``, a step that shows a secret (§6.5).

It is valid (``check``) when the certificate is valid, the entries replay from the genesis by the
rules (every signature checked) through step ``p``, opened with the certificate's ``prev``, to a
step ``s > p`` that shows, whose ``prev`` and phase the shown event signs
and in which its author is expected, the certificate beats how the branch closed ``p``, and it is
not the one certificate the shower follows (a sealed move's own commit step ``s − 1`` certified
without the shower, §6.5 rule 1).  Everything it proves is who signed what: a certificate alone
blames no one, and the words say so.

Every seat that holds valid evidence ends the game ``forked`` and hands the evidence on; a seat
that holds two keeps the least by ``key`` (lowest ``p``, then lowest ``s``, then the lowest seat,
then the certificate's id), so two honest seats that can reach each other end with the same words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from .encoding import CanonicalError, decode, encode
from .events import Event, EntryError, Timeout, parse_entry
from .evidence import seats_words, step_words
from .table import RuleError, Table

TAG_FORK = "easel-fork"
MAX_FORK = (1 << 20) - 1024     # bytes of a fork record: one frame (p2p/framing.py MAX_FRAME) and one spool record


class ForkError(ValueError):
    """Evidence that proves no fork (the message says why)."""


@dataclass(frozen=True)
class Fork:
    game_id: bytes
    cert: bytes
    entries: tuple
    shown: bytes
    raw: bytes


def make_fork(game_id: bytes, cert: bytes, entries: Sequence[bytes], shown: bytes) -> bytes:
    return encode([TAG_FORK, 1, game_id, cert, list(entries), shown])


def is_fork(raw: bytes) -> bool:
    """Cheap: does a record start like a fork record (a spool holds entries and these)?"""
    return raw[:1] == b"\x96" and raw[1:12] == b"\xaa" + TAG_FORK.encode()


def parse_fork(raw: bytes) -> Fork:
    """Shape only (no signature, no rule): raises ForkError."""
    if not isinstance(raw, (bytes, bytearray)) or len(raw) > MAX_FORK:
        raise ForkError("fork evidence must be bytes of at most %d" % MAX_FORK)
    try:
        obj = decode(bytes(raw))
    except CanonicalError as exc:
        raise ForkError("fork evidence is not canonical msgpack: %s" % exc) from None
    if not (isinstance(obj, list) and len(obj) == 6 and obj[0] == TAG_FORK):
        raise ForkError("not fork evidence")
    _, ver, gid, cert, entries, shown = obj
    if type(ver) is not int or ver != 1:
        raise ForkError("unsupported fork evidence version %r" % (ver,))
    if not (isinstance(gid, bytes) and len(gid) == 32 and isinstance(cert, bytes) and isinstance(shown, bytes)
            and isinstance(entries, list) and all(isinstance(e, bytes) for e in entries)):
        raise ForkError("fork evidence: malformed fields")
    return Fork(gid, cert, tuple(entries), shown, bytes(raw))


def key(info: dict) -> tuple:
    """Which of two valid pieces of evidence a seat keeps (the least): the same at every seat."""
    return (info["phase"], info["shown"], info["seat"], info["cert_id"])


def check(fork: Fork, genesis: Any, games: Any) -> dict:
    """What valid evidence proves (``info``), or ForkError.  Needs nothing but the game's genesis and
    the rules (``games``): every seat of the table judges the same bytes the same way, wherever its
    own log is (that is what makes two honest seats end alike)."""
    if fork.game_id != genesis.game_id:
        raise ForkError("fork evidence of another game")
    keys = list(genesis.doc["seats"])
    try:
        cert = parse_entry(fork.cert, keys=keys)
    except EntryError as exc:
        raise ForkError("fork evidence: the certificate is not valid: %s" % exc) from None
    if not isinstance(cert, Timeout) or cert.game_id != fork.game_id:
        raise ForkError("fork evidence: not a time-out certificate of this game")
    try:
        table = Table.start(genesis, games)
    except RuleError as exc:
        raise ForkError(str(exc)) from None
    at: dict = {}
    try:
        for raw in fork.entries:
            st = table.step
            if st is None:
                raise ForkError("fork evidence: an entry after the end of the game")
            if st.phase == cert.phase and not at:
                at = {"label": st.label, "seats": st.seats, "prev": st.prev, "count": table.count,
                      "standings": table.standings()}
            table.append(parse_entry(raw, keys=keys))
    except (EntryError, RuleError) as exc:
        raise ForkError("fork evidence: the branch does not replay: %s" % exc) from None
    except Exception as exc:     # a rules bug on a peer's bytes is no proof, and never a crash
        raise ForkError("fork evidence: the branch does not replay (%s)" % type(exc).__name__) from None
    if not at or at["prev"] != cert.prev:
        raise ForkError("fork evidence: the certificate is for no step of the branch")
    if not any(s in at["seats"] for s in cert.seats):
        raise ForkError("fork evidence: the certificate names no seat its step expects (it is ignored, §6.6)")
    used = table.timeouts.get(cert.phase)
    if used is not None and (len(used), tuple(used)) <= (len(cert.seats), tuple(cert.seats)):
        raise ForkError("fork evidence: the certificate does not beat how the branch closed its step")
    try:
        shown = parse_entry(fork.shown, keys=keys)
    except EntryError as exc:
        raise ForkError("fork evidence: the shown event is not valid: %s" % exc) from None
    st = table.step
    if not isinstance(shown, Event) or st is None or shown.game_id != fork.game_id:
        raise ForkError("fork evidence: no shown event at an open step")
    seat = table.seat_of(shown.author)
    if (shown.body.get("phase"), shown.prev) != (st.phase, st.prev) or seat not in st.seats or shown.kind != st.kind:
        raise ForkError("fork evidence: the shown event is not an event of the step the branch reached")
    if not st.shows or st.phase <= cert.phase:
        raise ForkError("fork evidence: the step the branch reached shows no secret after the certificate's")
    if st.kind == "reveal" and cert.phase == st.phase - 1 and seat not in cert.seats:
        raise ForkError("fork evidence: a sealed move's own commit step, certified without the seat that "
                        "revealed: that seat follows it (§6.5)")
    voters = [v for v, _ in cert.votes]
    return {"phase": cert.phase, "prev": cert.prev, "label": at["label"], "seats": list(cert.seats),
            "voters": voters, "shown": st.phase, "shown_label": st.label, "seat": seat, "count": at["count"],
            "cert_id": cert.id, "entries": len(fork.entries), "standings": at["standings"]}


def words(info: dict, me: int | None = None) -> str:
    """The neutral words for a fork: who signed what, no one blamed."""
    return ("the table forked: %s signed a time-out certificate voting %s out of %s, and %s showed "
            "a secret in %s on the branch it cuts; a seat that showed never follows such a certificate "
            "(what it showed would be in play again) and every other seat does, so the game ends here, "
            "unfinished, for every seat" % (
                seats_words(info["voters"], me), seats_words(info["seats"], me), step_words(info["phase"], info["label"]),
                seats_words([info["seat"]], me), step_words(info["shown"], info["shown_label"])))


def result(info: dict, n: int, standings: Any) -> dict:
    """The result of a forked game: no ranking, no winner; what the common prefix made public
    (``standings``: the game's ``standings`` hook at the step the certificate is for, or None)."""
    return {"status": "forked", "ranking": [], "places": [None] * n, "winners": [], "named": [],
            "fork": {k: info[k] for k in ("phase", "label", "seats", "voters", "shown", "shown_label", "seat")},
            "standings": standings, "why": words(info)}
