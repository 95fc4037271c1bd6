"""A fork ends the game, for every seat, with the evidence (protocol.md §6.5 "Shown secrets" rule 3), as
a sans-IO part of ``Peer``.

The show gate (p2p/showing.py) never follows a certificate past a secret our seat showed; any seat
that holds that certificate follows it (§6.6).  From then on the two never meet again, so this
part ends the game rather than wait: it builds the proof (core/fork.py: the certificate, our log
from the step it is for up to the step we showed in, and our signed showing event), ends our table
``forked`` and hands the proof to every seat (``ForkMsg``, on every new connection too).  A seat
that receives a proof checks it against its own log and ends the same way, and hands it on; of two
proofs a seat keeps the least (``core.fork.key``), so the seats that can reach each other end with
the same words.  A proof is checked from the genesis (core/fork.py), wherever our own log is: a seat
that followed the certificate, or another one further back, ends all the same.  A restart finds the proof in the spool (its record is the evidence itself, §8) and ends again.
"""

from __future__ import annotations

import logging
from typing import Any

from core import fork as forkcore
from core.events import Event, Timeout

log = logging.getLogger("easel.protocol")

MAX_FORK_CHECKS = 4   # fork records checked per sending seat and game (each is a replay from the genesis); more are ignored


class Forks:
    """The proof our table ended on (``raw``, ``info``), and proofs waiting for our log."""

    def __init__(self, n: int, seat: int | None, keys: list) -> None:
        self.n = n
        self.seat = seat
        self.keys = keys
        self.raw: bytes | None = None      # the proof we ended on (the least held)
        self.info: dict | None = None
        self.bad = 0                        # proofs refused (ForkError)
        self.checked: dict = {}             # who sent it -> records checked (MAX_FORK_CHECKS)
        self.oversize: dict | None = None   # what a proof too long to send would have proven (``end_alone``)

    @property
    def over(self) -> bool:
        return self.info is not None

    def build(self, table, entries: list, held: list, cert: Timeout, seat: int | None = None) -> bytes | None:
        """A proof for certificate ``cert``: the earliest step after its step, on our log (placed, or the
        current step), for which we hold a signed event that shows a secret, of seat ``seat`` (None: of
        any seat) — not a sealed move's commit step certified without that seat, which it follows.
        ``entries``: our log; ``held``: the events we hold.  None if there is none (the certificate
        re-opens nothing anyone showed)."""
        self.oversize = None
        st = table.step
        steps = sorted(q for q in table.showing if q > cert.phase)
        if st is not None and st.shows and st.phase > cert.phase:
            steps.append(st.phase)
        for q in steps:
            count, prev = table.starts[q]
            reveal = table.showing[q][1] if q in table.showing else st.kind == "reveal"
            for ev in held:
                if not isinstance(ev, Event) or ev.kind == "say" or ev.body.get("phase") != q or ev.prev != prev:
                    continue
                who = table.seat_of(ev.author)
                if who is None or (seat is not None and who != seat):
                    continue
                if reveal and q - 1 == cert.phase and who not in cert.seats:
                    continue
                raw = forkcore.make_fork(table.game_id, cert.raw, entries[1:count], ev.raw)
                if len(raw) <= forkcore.MAX_FORK:
                    return raw
                # too long to hand on (§13.1 MAX_FORK): what it would prove, for ending alone
                self.oversize = {"phase": cert.phase, "prev": cert.prev, "label": "", "seats": list(cert.seats),
                                 "voters": [v for v, _ in cert.votes], "shown": q, "shown_label": "",
                                 "seat": who, "count": table.starts[cert.phase][0], "cert_id": cert.id,
                                 "entries": count - 1, "standings": None}
        return None

    def end_alone(self) -> dict | None:
        """After ``build`` found only a proof longer than MAX_FORK: we end on what it would prove, with no
        proof to hand on (a limit, protocol.md §13.1); None if there was none."""
        info, self.oversize = self.oversize, None
        if info is not None and self.info is None:
            self.info = info
        return info

    def heard(self, raw: bytes, genesis: Any, games: Any, sender: Any = None) -> tuple[str, dict | None]:
        """A proof (ours, received from ``sender``, or from the spool): ("taken", info) if we now end on it
        (it is the least we hold), ("known", None) if it changes nothing, ("bad", {"why": ...}) if it proves
        no fork, ("limit", None) once ``sender`` sent MAX_FORK_CHECKS records (each costs a replay)."""
        if raw == self.raw:
            return "known", None
        if sender is not None:
            if self.checked.get(sender, 0) >= MAX_FORK_CHECKS:
                return "limit", None
            self.checked[sender] = self.checked.get(sender, 0) + 1
        try:
            info = forkcore.check(forkcore.parse_fork(raw), genesis, games)
        except forkcore.ForkError as exc:
            self.bad += 1
            return "bad", {"why": str(exc)}
        if self.info is not None and forkcore.key(self.info) <= forkcore.key(info):
            return "known", None
        self.raw, self.info = raw, info
        return "taken", info

    def cut(self, table, entries: list, held: list, cert: Timeout, seat: int | None, genesis: Any,
            games: Any) -> tuple[str | None, bytes | None, dict | None]:
        """A certificate that beats how our log closed its step: refused by our show gate (``seat`` ours:
        our own showing events), or about to roll our log back (``seat`` None: any seat's showing events
        ``held``).  ("taken", proof, info) if it re-opens a secret shown and we now end on that proof;
        ("alone", None, info) if our refused certificate's proof is too long to send (we end alone);
        (None, None, None) if it re-opens nothing shown."""
        raw = self.build(table, entries, held, cert, seat)
        if raw is None:
            alone = self.end_alone() if seat is not None else None
            return ("alone", None, alone) if alone is not None else (None, None, None)
        what, info = self.heard(raw, genesis, games)
        if what == "bad":
            # e.g. a certificate naming no seat its step expects: ignored by every seat (§6.6), no fork
            log.info("no fork proof for the certificate for phase %d: %s", cert.phase, info["why"])
        return (what, raw, info) if what == "taken" else (None, None, None)

    def result(self, info: dict) -> dict:
        return forkcore.result(info, self.n, info.get("standings"))
