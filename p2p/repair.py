"""Repair and acknowledgement with each remote peer (protocol.md §9.6), as a sans-IO part of ``Peer``.

What we keep per connected peer is a ``RemotePeer``; ``Remotes`` maps each peer's key to it and
answers every question ``Peer`` asks about the others: what to send in answer to a ``hello`` or
a ``have`` (``heard``: the repair rules below), whether some peer holds what we lack (``lagging``,
``ahead_of``: the 'have' timer and the watchdog), whether one holds an event of ours we lost
(``claims``: the claim gate, p2p/resync.py), which seats acknowledged our whole log (``acked``:
the show gate, p2p/showing.py) and whether every one holds all we hold (``hold_all``: leaving at
the end of the game).

The repair rules (§9.6), on each ``hello``/``have`` of a peer:

1. *Forks*: an item naming an event we hold under another id gets ours (an equivocation is
   found even between peers whose seq numbers are equal).
2. Our own events are sent to a peer once (``sent``) and again only if its ``have`` stays
   behind for REPAIR_AFTER consecutive reports (lost on the way); other authors' events are
   relayed only in that case, so in the normal case each event crosses each link once, from
   its author.  One author's events are re-sent to one peer at most every REPAIR_INTERVAL.
3. At most MAX_SEND_PER_HAVE events per report.
4. Our certificates it does not report (at most every REPAIR_INTERVAL).

A ``hello`` (``pull``) is a request: it gets everything the other lacks at once (at most once
per WATCHDOG_AFTER seconds per peer, so it cannot be used to amplify a flood).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .wakeups import WATCHDOG_AFTER

MAX_SEND_PER_HAVE = 512
REPAIR_AFTER = 2              # consecutive stale 'have' reports before we resend
REPAIR_INTERVAL = 0.2         # s between two resends of one author's events to one peer (no amplification)


@dataclass
class RemotePeer:
    """What we know of one connected peer."""

    have: dict | None = None        # author -> highest contiguous seq, as its last hello or have said
    ack: dict | None = None         # author -> highest seq its 'have's ever said (never a hello's): acknowledged
    ack_certs: set = field(default_factory=set)   # (phase, id8) of the certificates its last 'have' named
    sent: dict = field(default_factory=dict)      # author -> highest seq we sent it
    stale: dict = field(default_factory=dict)     # author -> consecutive reports that stayed behind us
    resent: dict = field(default_factory=dict)    # author -> when we last re-sent it that author's events
    pulled: float | None = None     # when we last answered its hello as a request
    certs_at: float = float("-inf")  # when we last sent it our certificates


class Remotes(dict):
    """key -> RemotePeer for every connected peer (a dict: ``in``, ``get``, ``values`` read it)."""

    def __init__(self, keys: list, me: bytes) -> None:
        super().__init__()
        self.keys = keys
        self.me = me
        self._lagging = False       # as the last report found: a peer holds events we lack

    def connect(self, peer: bytes) -> None:
        self[peer] = RemotePeer()

    def drop(self, peer: bytes) -> None:
        self.pop(peer, None)

    def own_sent(self, seq: int) -> None:
        """Our new event ``seq`` goes to every connected peer (its frame is a broadcast)."""
        for r in self.values():
            r.sent[self.me] = seq

    # ------------------------------------------------------------------ a report arrives
    def heard(self, peer: bytes, items: list, certs: list, pull: bool, now: float, replica) -> list:
        """A ``have`` (or, ``pull``, a ``hello``) of ``peer``, its items checked (p2p/messages.py):
        remembered, and the raw entries to send it in answer, in order (repair, above)."""
        theirs: dict[bytes, int] = {}
        forks: list = []
        for author, seq, id8 in items:
            if author not in self.keys:
                continue  # not a seat: nothing to keep about it
            theirs[author] = max(-1, seq)  # anything below -1 means "none" (and bounds our loops)
            mine = replica.fork_of(author, seq, id8)
            if mine is not None:
                forks.append(mine.raw)  # they hold another event under this seq: show them ours
        r = self.setdefault(peer, RemotePeer())
        if pull:
            if r.pulled is not None and now - r.pulled < WATCHDOG_AFTER and now >= r.pulled:
                pull = False
            else:
                r.pulled = now
        prev = r.have or {}
        r.have = theirs
        if not pull:
            # an acknowledgement the show gate may count: a 'have', never the 'hello' that opens a
            # connection (the votes the other re-sends come after its hello, before its next have)
            # what a seat holds only grows: a 'have' overtaken by a newer one (a relay, a redial) never
            # takes an acknowledgement back
            old = r.ack or {}
            r.ack = {k: max(v, old.get(k, -1)) for k, v in theirs.items()}
            r.ack_certs = {(c[0], c[1]) for c in certs if isinstance(c, list) and len(c) == 2
                           and type(c[0]) is int and isinstance(c[1], bytes)}
        self._lagging = self.ahead_of(replica.last_held())
        return forks + self._repair(r, theirs, prev, certs, pull, now, replica)

    def _repair(self, r: RemotePeer, theirs: dict, prev: dict, certs: list, pull: bool, now: float, replica) -> list:
        out: list = []
        budget = MAX_SEND_PER_HAVE
        for k in self.keys:
            h = theirs.get(k, -1)
            if h >= replica.seq_of(k):
                r.stale[k] = 0
                continue
            r.stale[k] = r.stale.get(k, 0) + 1 if prev.get(k, -1) == h else 0
            due = now - r.resent.get(k, float("-inf")) >= REPAIR_INTERVAL
            if (r.stale[k] >= REPAIR_AFTER and due) or pull:
                start = h
                r.stale[k] = 0
                r.resent[k] = now
            elif k == self.me:
                start = max(h, r.sent.get(k, -1))
            else:
                continue
            last = start
            for seq, ev in replica.range_of(k, start):
                out.append(ev.raw)
                last = seq
                budget -= 1
                if budget <= 0:
                    break
            r.sent[k] = max(r.sent.get(k, -1), last)  # only what actually went out
            if budget <= 0:
                return out
        if now - r.certs_at < REPAIR_INTERVAL and not pull:
            return out
        r.certs_at = now
        theirs_c = {(c[0], c[1]) for c in certs if isinstance(c, list) and len(c) == 2 and isinstance(c[0], int) and isinstance(c[1], bytes)}
        for c in replica.all_certs():
            if (c.phase, c.id[:8]) not in theirs_c:
                out.append(c.raw)
        return out

    # ------------------------------------------------------------------ questions about the others
    def lagging(self) -> bool:
        """Did the last report we received find a peer holding events we lack?"""
        return self._lagging

    def ahead_of(self, have: dict) -> bool:
        """Does a peer report holding an event we lack (``have``: author -> our highest seq)?"""
        return any((r.have or {}).get(k, -1) > have[k] for r in self.values() for k in self.keys)

    def claims(self, mine: int) -> bool:
        """Does a peer report holding an event of ours above ``mine``, what we hold?"""
        return any((r.have or {}).get(self.me, -1) > mine for r in self.values())

    def acked(self, want: dict, unknown_cert) -> set:
        """The other seats whose 'have's cover ``want`` (author -> last seq in our log) and name no
        certificate ``unknown_cert(phase, id8)`` says may still roll a step back."""
        out = set()
        for key, r in self.items():
            ack = r.ack
            if ack is None or key not in self.keys or key == self.me:
                continue
            if not all(ack.get(a, -1) >= q for a, q in want.items()):
                continue
            # a seat holding a certificate we lack for a step since we last showed has not settled
            # it with us: it may roll that step back (repair brings it to us)
            if any(unknown_cert(p, i) for p, i in r.ack_certs):
                continue
            out.add(self.keys.index(key))
        return out

    def hold_all(self, mine: dict) -> bool:
        """Has every other connected seat reported holding all we hold (``mine``: author -> seq)?"""
        for k in self.keys:
            if k == self.me:
                continue
            r = self.get(k)
            if r is None:
                continue  # it left after the end (it only leaves once it holds everything)
            if not r.have:
                return False
            if any(r.have.get(a, -1) < s for a, s in mine.items()):
                return False
        return True
