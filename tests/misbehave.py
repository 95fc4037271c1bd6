"""A misbehaving seat for the tests (not shipped as a command).

``HostileNet(n, bad=seat, tricks=[...])`` plays a whole game of sans-IO
``p2p.protocol.Peer``s in memory (seeded random delivery, a fake clock, a
``Disk`` per seat) where one seat cheats.  The bad seat runs an honest
``Peer`` underneath (so it still plays and the table still needs it) and a
``Misbehaviour`` rewrites what it sends and adds junk every tick:

* ``equivocate``   after each of its events went out, sign another event with the
                   same seq (another body) and send it to one peer;
* ``withhold``     never send its reveals (it is timed out in the reveal step);
* ``bad_reveal``   sign, instead of each reveal, one whose value does not open its
                   commitment (the bad seat keeps it: one event per seq, no equivocation);
* ``votes``        validly signed votes for steps that do not exist (far phases,
                   random prevs, every seat set);
* ``flood``        many frames every tick (junk ``have``s, its events again, junk
                   certificates lists);
* ``future_seq``   validly signed events with sequence numbers far ahead;
* ``stall`` / ``reconnect``: transport tricks, see ``stall_mid_frame`` and
                   ``reconnect_loop`` (real loopback TLS against a GameNode).

``caps(peer)`` returns what an honest peer holds (votes, buffered events,
certificates, remote state) so tests can check it against the limits.
"""

from __future__ import annotations

import random
import time
from typing import Any

import trio

from core.encoding import decode, encode
from core.events import Event, make_event, parse_entry, vote_sign_msg
from core.hashing import dhash
from core.rng import Rng
from p2p.framing import FramedStream
from p2p.protocol import Alert, Broadcast, Disconnect, Peer, Send, TruncateLog, WriteLog, WriteSecret, WriteSpool

from .helpers import GAMES
from .netutil import DetRand, Disk, identities
from .test_protocol_properties import make_table

TRICKS = ("equivocate", "withhold", "bad_reveal", "votes", "flood", "future_seq")


class Misbehaviour:
    def __init__(self, peer: Peer, sign, tricks, seed: int = 0, n: int = 0) -> None:
        self.peer = peer
        self.sign = sign
        self.tricks = set(tricks)
        self.rng = random.Random(seed)
        self.n = n
        self.sent_twins: set = set()
        self.forged = 0          # junk events signed (future seqs, twins, bad reveals)
        self.junk_frames = 0
        if "bad_reveal" in self.tricks:
            # the bad seat itself signs (and keeps) the garbled reveal: it holds one event
            # per seq, as a real cheater would, so what the honest peers see is a reveal
            # that does not open its commitment, not an equivocation (rewriting the reveal
            # on the wire only would leave the honest one in its own log, and its own
            # equivocation proof would carry that one to the others)
            emit = peer._emit

            def garbled_emit(st, kind, body, _emit=emit):
                if kind == "reveal":
                    body = dict(body)
                    body["salt"] = dhash("not-the-salt", body["salt"])
                    self.forged += 1
                return _emit(st, kind, body)

            peer._emit = garbled_emit

    def _event(self, raw: bytes) -> Event | None:
        try:
            m = decode(raw)
        except Exception:
            return None
        if isinstance(m, list) and len(m) == 2 and m[0] == "entry":
            e = parse_entry(m[1], keys=self.peer.keys, verify=False)
            if isinstance(e, Event) and e.author == self.peer.me:
                return e
        return None

    def outgoing(self, msg: bytes) -> tuple[list, list]:
        """(messages to send in place of ``msg``, extra (seat, msg) pairs to single peers)."""
        ev = self._event(msg)
        if ev is None:
            return [msg], []
        if ev.kind == "reveal" and "withhold" in self.tricks:
            return [], []
        extra = []
        if "equivocate" in self.tricks and ev.kind in ("commit", "act") and ev.seq not in self.sent_twins:
            self.sent_twins.add(ev.seq)
            body = dict(ev.body)
            if ev.kind == "commit":
                body["hash"] = dhash("twin", ev.body["hash"])
            else:
                body["action"] = {"twin": ev.seq}
            twin = make_event(self.sign, ev.game_id, ev.author, ev.seq, ev.prev, ev.kind, body)
            self.forged += 1
            target = self.rng.choice([s for s in range(self.n) if s != self.peer.seat])
            extra.append((target, encode(["entry", twin.raw])))
        return [msg], extra

    def junk(self) -> list:
        """Extra messages broadcast every tick."""
        p = self.peer
        gid = p.genesis.game_id
        out = []
        if "votes" in self.tricks:
            for _ in range(6):
                phase = self.rng.choice([p.table.phase + self.rng.randrange(3, 10 ** 6), self.rng.randrange(0, 10 ** 9), p.table.phase + 1])
                prev = self.rng.randbytes(32)
                others = [s for s in range(self.n) if s != p.seat]
                seats = sorted(self.rng.sample(others, self.rng.randrange(1, len(others) + 1)))
                sig = self.sign(vote_sign_msg(gid, phase, prev, seats))
                out.append(encode(["vote", phase, prev, seats, p.seat, sig]))
        if "future_seq" in self.tricks:
            for _ in range(3):
                seq = p.next_seq() + 17 + self.rng.randrange(10 ** 9)
                ev = make_event(self.sign, gid, p.me, seq, bytes(32), "commit", {"phase": self.rng.randrange(10 ** 6), "hash": bytes(32)})
                self.forged += 1
                out.append(encode(["entry", ev.raw]))
        if "flood" in self.tricks:
            for _ in range(10):
                junk_have = [[self.rng.randbytes(32), self.rng.randrange(10 ** 6), b"x" * 8] for _ in range(20)]
                out.append(encode(["have", junk_have, [[self.rng.randrange(10 ** 6), b"12345678"] for _ in range(20)]]))
            for ev in list(p.replica.events[p.me].values())[-5:]:
                if ev.kind != "reveal":   # its reveals go out only through the other tricks
                    out.append(encode(["entry", ev.raw]))
        self.junk_frames += len(out)
        return out


class HostileNet:
    """n seats, seat ``bad`` misbehaves; seeded random delivery, fake clock, disks."""

    TICK = 0.1

    def __init__(self, n: int, bad: int, tricks, *, game: str = "toy", options: dict | None = None,
                 seed: int = 0, timeout: float = 2.0) -> None:
        self.n, self.bad, self.seed = n, bad, seed
        self.rng = random.Random(seed)
        self.ids = identities(n, "hostile-%d" % seed)
        self.keys = [i.public for i in self.ids]
        self.genesis = make_table(self.ids, game, options or {}, timeout=max(1, int(timeout)), nonce=b"host%04d" % seed)
        self.disks = [Disk(log=[self.genesis.raw]) for _ in range(n)]
        self.peers = [
            Peer(self.genesis, self.keys[k], self.ids[k].sign, DetRand("hostile", seed, k), timeout=timeout, games=GAMES)
            for k in range(n)
        ]
        self.bots = [GAMES.get(game).bots["random"]() for _ in range(n)]
        self.mis = Misbehaviour(self.peers[bad], self.ids[bad].sign, tricks, seed, n)
        self.queue: list = []
        self.now = 0.0
        self.alerts: dict[int, list] = {k: [] for k in range(n)}
        self.disconnects: list = []
        self.max_queue = 0
        self.later: list = []

    def run(self, k: int, effects: list) -> None:
        for eff in effects:
            self.disks[k].apply(eff)
            if isinstance(eff, (Send, Broadcast)):
                dests = [self.keys.index(eff.to)] if isinstance(eff, Send) else [j for j in range(self.n) if j != k]
                msgs, extra = self.mis.outgoing(eff.msg) if k == self.bad else ([eff.msg], [])
                for m in msgs:
                    self.queue.extend((k, j, m) for j in dests)
                # the second event of an equivocation goes out a few ticks later, once the
                # first has reached everyone (an equivocation that reaches two honest peers
                # first splits them: a known limit, protocol.md §13)
                self.later.extend((self.now + 0.5, (k, j, m)) for j, m in extra)
            elif isinstance(eff, Alert):
                self.alerts[k].append(eff.text)
            elif isinstance(eff, Disconnect):
                self.disconnects.append((k, eff.reason))
        self.max_queue = max(self.max_queue, len(self.queue))

    def decide(self, k: int) -> None:
        p = self.peers[k]
        for _ in range(4):
            if not p.needs_decision():
                return
            rng = Rng(dhash("bot", str(self.seed), k, p.table.phase), "bot")
            self.run(k, p.act(self.bots[k].choose(p.table.view(k), k, rng)))

    def honest(self) -> list[int]:
        return [k for k in range(self.n) if k != self.bad]

    def settled(self) -> bool:
        h = self.honest()
        first = self.peers[h[0]].log_entries
        return all(self.peers[k].table.over and self.peers[k].log_entries == first for k in h)

    def play(self, max_rounds: int = 4000, wall: float = 40.0) -> int:
        for k in range(self.n):
            self.run(k, self.peers[k].start())
        for a in range(self.n):
            for b in range(self.n):
                if a != b:
                    self.run(a, self.peers[a].connected(self.keys[b]))
        t0 = time.monotonic()
        for r in range(max_rounds):
            if self.settled():
                return r
            assert time.monotonic() - t0 < wall, "hostile game exceeded %.0f s of wall time" % wall
            for k in range(self.n):
                self.decide(k)
            for _ in range(len(self.queue)):
                if not self.queue:
                    break
                src, dst, msg = self.queue.pop(self.rng.randrange(len(self.queue)))
                self.run(dst, self.peers[dst].receive(self.keys[src], msg))
                self.decide(dst)
            self.now += self.TICK
            self.queue.extend(item for at, item in self.later if at <= self.now)
            self.later = [(at, item) for at, item in self.later if at > self.now]
            for k in range(self.n):
                self.run(k, self.peers[k].tick(self.now))
            for m in self.mis.junk():
                self.queue.extend((self.bad, j, m) for j in range(self.n) if j != self.bad)
        raise AssertionError("hostile game did not finish in %d rounds: phases %s, waiting %s" % (
            max_rounds, [p.table.phase for p in self.peers], [p.waiting() for p in self.peers]))


def caps(p: Peer) -> dict:
    """What an honest peer holds that a hostile seat could try to grow."""
    return {
        "votes": sum(len(v) for v in p.votes.values()),
        "vote_keys": len(p.votes),
        "buffered": max(len(b) for b in p.replica.buffer.values()),
        "certs_per_phase": max((len(c) for c in p.replica.certs.values()), default=0),
        "remote_keys": max((len(r.have or {}) for r in p.remote.values()), default=0),
        "unplaced_ahead": max(
            sum(1 for s in evs if s > p.table.last_seq.get(a, -1)) for a, evs in p.replica.events.items()
        ),
    }


# --------------------------------------------------------------------------- transport tricks (real TLS)
async def stall_mid_frame(stream, payload_size: int = 1 << 20, sent: int = 1000) -> None:
    """Announce a frame of ``payload_size`` bytes, send ``sent`` of them, then nothing."""
    await stream.send_all(payload_size.to_bytes(4, "big") + b"\x00" * sent)


async def reconnect_loop(connect, times: int, pause: float = 0.0) -> int:
    """Open and drop a connection ``times`` times (``connect()`` returns a stream); returns how many opened."""
    opened = 0
    for _ in range(times):
        try:
            s = await connect()
        except Exception:
            continue
        opened += 1
        await trio.aclose_forcefully(s)
        if pause:
            await trio.sleep(pause)
    return opened
