"""A fork ends the game, for every seat, with the evidence (protocol.md §6.5 "Shown secrets" rule 3), as
a sans-IO part of ``Peer``.

The show gate (p2p/showing.py) never follows a certificate past a secret our seat showed; any seat
that holds that certificate follows it (§6.6).  From then on the two never meet again, so this
part ends the game rather than wait: it builds the proof (core/fork.py: the certificate, our log
from the step it is for up to the step we showed in, and our signed showing event), ends our table
``forked`` and hands the proof to every seat (``ForkMsg``, on every new connection too).  A seat
that receives a proof checks it against its own log and ends the same way, and hands it on; of two
proofs a seat keeps the least (``core.fork.key``), so the seats that can reach each other end with
the same words.  A proof for a step our log has not reached yet waits (``MAX_PENDING``) until it
has.  A restart finds the proof in the spool (its record is the evidence itself, §8) and ends again.
"""

from __future__ import annotations

import logging
from typing import Callable

from core import fork as forkcore
from core.events import Event, Timeout

log = logging.getLogger("easel.protocol")

MAX_PENDING = 2     # proofs held for a step our log has not reached yet (a newer one evicts the oldest)


class Forks:
    """The proof our table ended on (``raw``, ``info``), and proofs waiting for our log."""

    def __init__(self, n: int, seat: int | None, keys: list) -> None:
        self.n = n
        self.seat = seat
        self.keys = keys
        self.raw: bytes | None = None      # the proof we ended on (the least held)
        self.info: dict | None = None
        self.pending: list[bytes] = []
        self.bad = 0                        # proofs refused (ForkError)

    @property
    def over(self) -> bool:
        return self.info is not None

    def build(self, table, entries: list, own: list, cert: Timeout) -> bytes | None:
        """Our proof for certificate ``cert`` our show gate refused: the earliest step after its
        step in which our seat showed on our log (placed, or the current step with our event held;
        not a sealed move's commit step certified without us, which we follow), ``entries`` our log,
        ``own`` every event of ours we hold.  None if we hold no such event (then we end alone)."""
        st = table.step
        steps = sorted(q for q, (seats, _) in table.showing.items() if q > cert.phase and self.seat in seats)
        if st is not None and st.shows and st.phase > cert.phase:
            steps.append(st.phase)
        for q in steps:
            count, prev = table.starts[q]
            reveal = table.showing[q][1] if q in table.showing else st.kind == "reveal"
            if reveal and q - 1 == cert.phase and self.seat not in cert.seats:
                continue
            ev = next((e for e in own if isinstance(e, Event) and e.body.get("phase") == q and e.prev == prev), None)
            if ev is None:
                continue
            start = table.starts[cert.phase][0]
            raw = forkcore.make_fork(table.game_id, cert.raw, entries[start:count], ev.raw)
            if len(raw) <= forkcore.MAX_FORK:
                return raw
        return None

    def heard(self, raw: bytes, table_at: Callable) -> tuple[str, dict | None]:
        """A proof (ours, received, or from the spool): ("taken", info) if we now end on it (it is the
        least we hold), ("known", None) if it changes nothing, ("pending", None) if our log has not
        reached its step, ("bad", why) if it proves no fork."""
        if raw == self.raw:
            return "known", None
        try:
            info = forkcore.check(forkcore.parse_fork(raw), self.keys, table_at)
        except forkcore.ForkError as exc:
            self.bad += 1
            return "bad", {"why": str(exc)}
        if info is None:
            if raw not in self.pending:
                self.pending = (self.pending + [raw])[-MAX_PENDING:]
            return "pending", None
        if raw in self.pending:
            self.pending.remove(raw)
        if self.info is not None and forkcore.key(self.info) <= forkcore.key(info):
            return "known", None
        self.raw, self.info = raw, info
        return "taken", info

    def retry(self, table_at: Callable) -> list:
        """The pending proofs our log now reaches: [(raw, info)] of one taken, if any."""
        out = []
        for raw in list(self.pending):
            what, info = self.heard(raw, table_at)
            if what == "taken":
                out.append((raw, info))
            elif what != "pending" and raw in self.pending:
                self.pending.remove(raw)
        return out[-1:]

    def result(self, info: dict) -> dict:
        return forkcore.result(info, self.n, info.get("standings"))
