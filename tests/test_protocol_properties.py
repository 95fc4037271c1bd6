"""Property-based tests of the peer protocol (protocol.md §5, §6, §9; p2p/protocol.py).

The sans-IO ``Peer``s run on ``Net``, an in-memory network driven by a
*fault schedule* that hypothesis draws: for every delivery, deliver / drop /
duplicate / delay (reorder); plus temporary partitions (a set of directed
links that lose everything for K deliveries), connection resets, and peer
restarts; and talk lines (protocol.md §9.11: a seat says a line at a drawn
moment).  Time is a fake clock passed to ``tick``.

Restarts rebuild a ``Peer`` from what its shell would have on disk.  Each
peer's effects are carried out in order as p2p/node.py does (group commit):
WriteLog/WriteSpool/WriteSecret are written unsynced; the shell fsyncs right
before every Send (on an open connection) and every Broadcast, and around a
TruncateLog (a Broadcast of our own new event fsyncs the secrets and spool
only: a power loss may then cut the log back behind events we sent).  A restart is one of

* a process crash between two batches of effects (everything written so far
  survives: the OS has it),
* a process crash *inside* a batch (only the effects before the crash point
  were carried out: later writes and sends never happened),
* a power loss (either of the above, and every write since the last fsync
  is lost).

Every send is also checked against the durable state: an entry that leaves a
peer must already be fsynced (log or spool).

Every property runs on the toy game (tests/toy_game.py): sealed, sequential
and open simultaneous steps, and chance steps that name only the seats still
in, so the protocol is tested on every kind of step the table supports without
depending on a real game's rules.

Properties:

1. convergence under arbitrary fault schedules (no time-outs): every peer
   finishes, all logs byte-identical, the audit of every log and spool
   together is valid and complete (no honest peer ever equivocates, even
   across restarts), and every talk line held anywhere is placed just before
   its author's next answer, or still pending if its author answered nothing
   after it (``check_talk``; also with time-outs, below);
2. with time-outs: fewer than half of the seats die forever at a random
   point; the others finish with identical logs, the audit is valid, and the
   dead seats are covered by certificates in every step that opened after
   they died;
3. robustness: ``Peer.receive`` with junk (random bytes, canonical arrays
   with a message type and junk fields, entries with random fields, signed
   entries that cannot belong to the log, valid entries of another game)
   never raises, returns effects, and never changes the log;
4. replay equals live: ``core.table.replay(log)`` has the same head, result
   and views (byte for byte, canonical encoding) as every live peer's table
   and as a peer rebuilt from its disk.

Bugs found (each kept as a strict xfail with its minimal counterexample
pinned; see the comments above those tests):

* a process killed between the WriteSpool and the WriteLog of one batch
  leaves a gap in an author's seqs in the spool; after the restart the peer
  never gets past it (``have`` stuck, stale ``_candidates`` cache): stall;
* liveness with two of five seats dead: a seat that dies after sending its
  event for a step, before voting, can be neither voted out nor vote, so a
  step that also misses an earlier-dead seat never closes;
* a ``have`` claiming seq -2**63 for some author makes the receiver loop
  ~2**63 times on the third identical report (denial of service).
"""

from __future__ import annotations

import random
import signal
import time
from collections import Counter
from functools import lru_cache

from hypothesis import HealthCheck, Phase, event, example, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from core.audit import audit
from core.encoding import encode
from core.events import Event, Timeout, make_event, make_timeout, parse_entry, vote_sign_msg
from core.hashing import dhash
from core.logfile import LOG_MAGIC, SPOOL_MAGIC, encode_record
from core.rng import Rng
from core.table import Table, replay
from p2p.protocol import (
    Alert,
    Broadcast,
    Changed,
    Disconnect,
    Peer,
    Send,
    TruncateLog,
    WriteLog,
    WriteSecret,
    WriteSpool,
)

from .helpers import GAMES
from core.events import game_id_of, genesis_sign_msg, make_genesis

from .netutil import DetRand, Disk, entry_raws, identities

SETTINGS = dict(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
    print_blob=True,
)
WALL = 20.0            # seconds of real time one simulated game may take (a guard, never reached)
MAX_ROUNDS = 3000      # rounds (one tick each) one simulated game may take
STALL_ROUNDS = 300     # rounds (30 s of fake time) with the network whole and no peer's log changing: stalled
DRAIN_ROUNDS = 6       # rounds without network faults after everyone finished: late votes/certificates land
EFFECTS = (Send, Broadcast, WriteSpool, WriteLog, TruncateLog, WriteSecret, Disconnect, Changed, Alert)
OK = ("ok",)
CONTROL = ("partition", "reset", "restart", "tick", "lossy", "say")
MAX_LINES = 6          # talk lines a schedule may hold (protocol.md §9.11): a seat says one at a drawn moment


# --------------------------------------------------------------------------- the network
def make_table(ids, game: str, options: dict, timeout: int, nonce: bytes):
    """A sealed genesis for ``game`` from the test registry (the toy game included)."""
    doc = {
        "game": game,
        "config": GAMES.get(game).configure(options, len(ids)),
        "seats": [i.public for i in ids],
        "table": nonce,
        "timeout": timeout,
    }
    gid = game_id_of(doc)
    return make_genesis(doc, [i.sign(genesis_sign_msg(gid)) for i in ids])


class Net:
    """n peers, one message pool, a fault schedule, disks with group commit, a fake clock."""

    TICK = 0.1

    def __init__(self, n: int, seed: int, *, rounds: int, timeout: float, tag: str = "prop", game: str = "toy",
                 options: dict | None = None) -> None:
        self.n = n
        self.seed = seed
        self.timeout = timeout
        self.rng = random.Random(seed)
        self.ids = identities(n, tag)
        self.keys = [i.public for i in self.ids]
        # the genesis holds whole seconds (at most a day); the peers use ``timeout`` itself
        self.game = game
        self.genesis = make_table(self.ids, game, dict(options or {}, rounds=rounds), timeout=max(1, min(int(timeout), 86400)), nonce=b"prop-%d" % seed)
        self.disks = [Disk(log=[self.genesis.raw]) for _ in range(n)]
        self.durable = [self._snapshot(d) for d in self.disks]
        self.dirty = [False] * n
        self.boots = [0] * n
        self.peers = [self._boot(k) for k in range(n)]
        self.bot = GAMES.get(game).bots["random"]()
        self.epoch: dict[frozenset, int] = {}
        self.open: set[tuple[int, int]] = set()
        self.queue: list[tuple[int, int, int, bytes]] = []
        self.held: list[tuple[int, tuple]] = []
        self.down: dict[tuple[int, int], int] = {}      # link -> lost until this delivery count
        self.dead: set[int] = set()
        self.deaths: dict[int, int] = {}                 # seat -> dies at this delivery count
        self.death_phase: dict[int, int] = {}
        self.crash: dict[int, tuple[int, bool]] = {}     # seat -> (cut, power loss) at its next writing batch
        self.lossy = (0, 0, 0, 0)                        # (until delivery count, drop %, dup %, delay %)
        self.now = 0.0
        self.steps = 0
        self.stats: Counter = Counter()
        self.disconnects: list = []
        self.alerts: dict[int, list[str]] = {k: [] for k in range(n)}
        self.lines = 0                                   # talk lines said (protocol.md §9.11)

    # ---------------------------------------------------------------- disks and boots
    @staticmethod
    def _snapshot(d: Disk) -> Disk:
        return Disk(log=list(d.log), spool=list(d.spool), secrets=dict(d.secrets))

    def _boot(self, k: int) -> Peer:
        d = self.disks[k]
        self.boots[k] += 1
        return Peer(
            self.genesis,
            self.keys[k],
            self.ids[k].sign,
            DetRand("prop", self.seed, k, self.boots[k]),
            log_entries=list(d.log),
            spool=list(d.spool),
            secrets=dict(d.secrets),
            timeout=self.timeout,
            games=GAMES,
        )

    def sync(self, k: int, own: bool = False) -> None:
        """fsync everything, or with ``own`` (a frame carrying only our own new event) the
        secrets and spool alone: the log may then lag, and a power loss cuts it back."""
        if own:
            d, disk = self.durable[k], self.disks[k]
            self.durable[k] = Disk(log=list(d.log), spool=list(disk.spool), secrets=dict(disk.secrets))
            return
        if self.dirty[k]:
            self.durable[k] = self._snapshot(self.disks[k])
            self.dirty[k] = False

    def _check_durable(self, k: int, msg: bytes) -> None:
        raws = entry_raws(msg)
        if raws:
            d = self.durable[k]
            held = set(d.log) | set(d.spool)
            for raw in raws:
                assert raw in held, "seat %d sent an entry that was not fsynced yet" % k

    # ---------------------------------------------------------------- effects
    def run(self, k: int, effects: list) -> None:
        assert isinstance(effects, list)
        cut = len(effects)
        crash = None
        if k in self.crash and any(isinstance(e, (WriteLog, WriteSpool, WriteSecret, TruncateLog)) for e in effects):
            crash = self.crash.pop(k)
            cut = crash[0] % (len(effects) + 1)
        for eff in effects[:cut]:
            self._carry(k, eff)
        if crash is not None:
            self.stats["crash-in-batch"] += 1
            self.restart(k, crash[1])

    def _carry(self, k: int, eff) -> None:
        assert isinstance(eff, EFFECTS), eff
        if isinstance(eff, (WriteLog, WriteSpool, WriteSecret)):
            self.disks[k].apply(eff)
            self.dirty[k] = True
        elif isinstance(eff, TruncateLog):
            self.sync(k)
            self.disks[k].apply(eff)
            self.dirty[k] = True
            self.sync(k)
            self.stats["truncate"] += 1
        elif isinstance(eff, Send):
            j = self.keys.index(eff.to)
            if (k, j) in self.open:
                self.sync(k)
                self._check_durable(k, eff.msg)
                self._enqueue(k, j, eff.msg)
        elif isinstance(eff, Broadcast):
            self.sync(k, own=eff.own)
            self._check_durable(k, eff.msg)
            for j in range(self.n):
                if (k, j) in self.open:
                    self._enqueue(k, j, eff.msg)
        elif isinstance(eff, Disconnect):
            self.disconnects.append((k, eff.reason))
            if eff.peer in self.keys:
                j = self.keys.index(eff.peer)
                self._close(k, j)
                self._connect(k, j)
        elif isinstance(eff, Alert):
            self.alerts[k].append(eff.text)

    def _enqueue(self, a: int, b: int, msg: bytes) -> None:
        self.queue.append((a, b, self.epoch[frozenset((a, b))], msg))

    # ---------------------------------------------------------------- connections
    def _connect(self, a: int, b: int) -> None:
        if a in self.dead or b in self.dead or (a, b) in self.open:
            return
        pair = frozenset((a, b))
        self.epoch[pair] = self.epoch.get(pair, -1) + 1
        self.open |= {(a, b), (b, a)}
        self.run(a, self.peers[a].connected(self.keys[b]))
        self.run(b, self.peers[b].connected(self.keys[a]))

    def _close(self, a: int, b: int) -> None:
        """The connection breaks: frames still on it are lost, both shells tell their peer."""
        if (a, b) not in self.open:
            return
        pair = frozenset((a, b))
        self.epoch[pair] += 1
        self.open -= {(a, b), (b, a)}
        for x, y in ((a, b), (b, a)):
            if x not in self.dead:
                self.run(x, self.peers[x].disconnected(self.keys[y]))

    def restart(self, k: int, power: bool) -> None:
        if k in self.dead:
            return
        self.stats["restart-power" if power else "restart"] += 1
        if not power:
            self.sync(k)  # a process crash: the OS has every write
        self.disks[k] = self._snapshot(self.durable[k])
        self.dirty[k] = False
        self.crash.pop(k, None)
        for j in range(self.n):
            if j != k:
                self._close(k, j)
        self.peers[k] = self._boot(k)
        self.run(k, self.peers[k].start())
        for j in range(self.n):
            if j != k:
                self._connect(k, j)
        self.decide(k)

    def kill(self, k: int) -> None:
        """Seat k dies silently: it never sends, receives, ticks or decides again.  Its phase at death: its
        log's, or its own last event's if later (a power loss may have cut its log back behind events it had
        sent: found by hypothesis, 5 seats, seat 0 loses power just before it dies)."""
        p = self.peers[k]
        own = [e.body.get("phase", 0) for e in p.replica.events.get(self.keys[k], {}).values() if e.kind != "say"]
        self.death_phase[k] = max([p.table.phase] + own)
        self.dead.add(k)
        self.crash.pop(k, None)

    # ---------------------------------------------------------------- moving
    def decide(self, k: int) -> None:
        for _ in range(4):
            if k in self.dead:
                return
            p = self.peers[k]
            if not p.needs_decision():
                return
            rng = Rng(dhash("bot", str(self.seed), k, p.table.phase), "bot")
            self.run(k, p.act(self.bot.choose(p.table.view(k), k, rng)))

    def decide_all(self) -> None:
        for k in range(self.n):
            self.decide(k)

    def tick_all(self) -> None:
        self.now += self.TICK
        for k in range(self.n):
            if k not in self.dead:
                self.run(k, self.peers[k].tick(self.now))
        self.decide_all()

    def _check_deaths(self) -> None:
        for k, at in self.deaths.items():
            if k not in self.dead and self.steps >= at:
                self.kill(k)

    def deliver_one(self, op: tuple) -> None:
        item = self.queue.pop(self.rng.randrange(len(self.queue)))
        src, dst, ep, msg = item
        self.steps += 1
        self._check_deaths()
        if dst in self.dead or self.epoch[frozenset((src, dst))] != ep:
            self.stats["lost-closed"] += 1
            return
        if self.down.get((src, dst), 0) > self.steps:
            self.stats["lost-partition"] += 1
            return
        kind = op[0]
        if kind == "ok" and self.lossy[0] > self.steps:
            x = self.rng.randrange(100)
            _, p_drop, p_dup, p_delay = self.lossy
            if x < p_drop:
                kind = "drop"
            elif x < p_drop + p_dup:
                kind = "dup"
            elif x < p_drop + p_dup + p_delay:
                kind, op = "delay", ("delay", 1 + self.rng.randrange(60))
        if kind == "drop":
            self.stats["drop"] += 1
            return
        if kind == "delay":
            self.stats["delay"] += 1
            self.held.append((self.steps + op[1], item))
            return
        if kind == "dup":
            self.stats["dup"] += 1
            self.queue.insert(self.rng.randrange(len(self.queue) + 1), item)
        self.stats["delivered"] += 1
        self.run(dst, self.peers[dst].receive(self.keys[src], msg))
        self.decide(dst)

    def control(self, op: tuple) -> None:
        kind = op[0]
        if kind == "partition":
            for link in op[1]:
                self.down[link] = max(self.down.get(link, 0), self.steps + op[2])
            self.stats["partition"] += 1
        elif kind == "reset":
            a, b = op[1], op[2]
            if a not in self.dead and b not in self.dead:
                self.stats["reset"] += 1
                self._close(a, b)
                self._connect(a, b)
        elif kind == "restart":
            _, k, cut, power, mid = op
            if k not in self.dead:
                if mid:
                    self.crash[k] = (cut, power)
                else:
                    self.restart(k, power)
        elif kind == "tick":
            self.tick_all()
        elif kind == "lossy":
            self.lossy = (self.steps + op[1], op[2], op[3], op[4])
            self.stats["lossy"] += 1
        elif kind == "say":
            self.say(op[1])

    def say(self, k: int) -> None:
        """Seat k's person says a talk line now (protocol.md §9.11), if its peer lets it (not dead, not
        catching up, not more than one a second or MAX_SAY_PENDING waiting: then the line is not said)."""
        if k in self.dead:
            return
        p = self.peers[k]
        text = "line %d of seat %d" % (self.lines, k)
        if p.say_refused(text):
            self.stats["say-refused"] += 1
            return
        self.lines += 1
        self.stats["say"] += 1
        self.run(k, p.say(text))

    def round(self, ops) -> None:
        """As many schedule steps as there are frames in flight, then a tick."""
        for _ in range(max(len(self.queue), 1)):
            op = next(ops, OK)
            if op[0] in CONTROL:
                self.control(op)
            elif self.queue:
                self.deliver_one(op)
            else:
                # nothing in flight: the slot passes all the same.  Partitions and lossy periods
                # last a number of slots, and event-driven peers are quiet while they wait (a
                # keep-alive every few seconds): counted in deliveries only, a partition of a
                # quiet network would never end
                self.steps += 1
        keep = []
        for at, item in self.held:
            if at <= self.steps or not self.queue:
                self.queue.insert(self.rng.randrange(len(self.queue) + 1), item)
            else:
                keep.append((at, item))
        self.held = keep
        self._check_deaths()
        self.tick_all()

    # ---------------------------------------------------------------- running a whole game
    def broken(self) -> bool:
        """A link is partitioned or a lossy period runs at this delivery count."""
        return self.lossy[0] > self.steps or any(until > self.steps for until in self.down.values())

    def live(self) -> list[int]:
        return [k for k in range(self.n) if k not in self.dead]

    def settled(self) -> bool:
        live = self.live()
        first = self.peers[live[0]].log_entries
        if all(self.peers[k].table.over and self.peers[k].log_entries == first for k in live):
            return True
        return all(self.peers[k].table.over for k in live) and (split_groups(self) is not None or forked_alike(self) is not None)

    def start(self) -> None:
        for k in range(self.n):
            self.run(k, self.peers[k].start())
        for a in range(self.n):
            for b in range(a + 1, self.n):
                self._connect(a, b)
        self.decide_all()

    def play(self, schedule=(), deaths: dict | None = None) -> int:
        self.deaths = dict(deaths or {})
        self.start()
        ops = iter(schedule)
        t0 = time.monotonic()
        progress, since = None, 0
        for r in range(MAX_ROUNDS):
            if self.settled():
                break
            assert time.monotonic() - t0 < WALL, "simulation took more than %.0f s (%d rounds, %s)" % (WALL, r, dict(self.stats))
            now = tuple((self.peers[k].table.head, len(self.peers[k].replica.events[self.keys[k]])) for k in self.live())
            # the stall clock runs only while the network is whole: a schedule may chain
            # partitions of one link for longer than STALL_ROUNDS, and nobody can get past that
            if now != progress or self.broken():
                progress, since = now, r
            assert r - since < STALL_ROUNDS, "stalled: no progress for %d rounds (%.0f s of fake time), phases %s, waiting for %s, dead %s at phases %s, stats %s" % (
                STALL_ROUNDS, STALL_ROUNDS * self.TICK, [self.peers[k].table.phase for k in self.live()],
                [self.peers[k].waiting() for k in self.live()], sorted(self.dead), self.death_phase, dict(self.stats))
            self.round(ops)
        else:
            raise AssertionError("the game did not finish in %d rounds: phases %s, stats %s" % (
                MAX_ROUNDS, [self.peers[k].table.phase for k in self.live()], dict(self.stats)))
        # a few rounds without network faults (a pending crash may still fire): whatever is
        # still in flight lands (late votes, certificates), and the outcome must not change
        self.down.clear()
        self.lossy = (0, 0, 0, 0)
        for _ in range(DRAIN_ROUNDS):
            self.round(iter(()))
        self.queue += [item for _, item in self.held]
        self.held = []
        for _ in range(DRAIN_ROUNDS):
            self.round(iter(()))
        assert self.settled(), "the live peers no longer agree after the drain"
        return r


# --------------------------------------------------------------------------- checks
def describe(net: Net) -> None:
    """Statistics for --hypothesis-show-statistics: which faults an example really injected."""
    try:
        event("seats=%d" % net.n)
    except InvalidArgument:
        return  # not inside a hypothesis test
    for kind in ("drop", "dup", "delay", "partition", "lost-partition", "reset", "restart", "restart-power", "crash-in-batch", "truncate"):
        c = net.stats[kind]
        event("%s: %s" % (kind, "0" if not c else "1-4" if c < 5 else "5+"))
    event("dead: %d" % len(net.dead))
    event("talk lines said: %s" % ("0" if not net.stats["say"] else "1-2" if net.stats["say"] < 3 else "3+"))


def log_file(entries) -> bytes:
    return LOG_MAGIC + b"".join(encode_record(e) for e in entries)


def spool_file(entries) -> bytes:
    return SPOOL_MAGIC + b"".join(encode_record(e) for e in entries)


def split_groups(net: Net) -> list[list[int]] | None:
    """The live seats grouped by their logs, when an even split explains why the logs differ
    (protocol.md §6.5, "what is left"): at a table of even size two halves certified each other out
    (a certificate timing out n/2 seats in one group's log, one timing out the other n/2 in the
    other's), and the seats of a group that does not follow the other's certificate had shown a
    secret past it (``Peer.forked``).  None if the logs differ for any other reason."""
    live = net.live()
    groups: dict = {}
    for k in live:
        groups.setdefault(tuple(net.peers[k].log_entries), []).append(k)
    if len(groups) != 2 or net.n % 2:
        return None
    halves = []
    for log, seats in groups.items():
        ts = {tuple(e.seats) for e in map(parse_entry, log[1:]) if isinstance(e, Timeout) and 2 * len(e.seats) == net.n}
        halves.append(ts)
    if not any(not set(a) & set(b) for a in halves[0] for b in halves[1]):
        return None
    if not any(net.peers[k].forked for seats in groups.values() for k in seats):
        return None
    return [sorted(seats) for seats in groups.values()]


def forked_alike(net: Net) -> dict | None:
    """The result every live seat ended on, when the table forked over a shown secret and every live seat
    ended ``forked`` on the same proof (protocol.md §6.5 rule 3), else None."""
    results = [net.peers[k].table.result() for k in net.live()]
    if not all(r is not None and r.get("status") == "forked" for r in results):
        return None
    return results[0] if all(r == results[0] for r in results) else None


def check_forked(net: Net, res: dict) -> None:
    """A forked table: every live seat ends the same way, also rebuilt from its disk (the proof is in its
    spool), and the audit of its log and spool names the proof."""
    for k in net.live():
        d = net.durable[k]
        again = Peer(net.genesis, net.keys[k], net.ids[k].sign, DetRand("again", k), log_entries=list(d.log),
                     spool=list(d.spool), secrets=dict(d.secrets), timeout=net.timeout, games=GAMES)
        assert again.table.result() == res, "seat %d rebuilt from disk ends otherwise" % k
        rep = audit({"log": log_file(d.log), "spool": spool_file(d.spool)}, GAMES)
        assert rep["valid"] and any(f["phase"] == res["fork"]["phase"] for f in rep["forked"]), (k, rep["forked"])


def check_finished_and_identical(net: Net, seats: list | None = None) -> list[bytes]:
    live = net.live() if seats is None else seats
    log = net.peers[live[0]].log_entries
    for k in live:
        p = net.peers[k]
        assert p.table.over, "seat %d did not finish" % k
        assert p.log_entries == log, "seat %d's log differs from seat %d's" % (k, live[0])
        net.sync(k)
        assert net.disks[k].log == log, "seat %d's disk log differs from its memory" % k
        assert net.durable[k].log == log, "seat %d's durable log differs from its memory" % k
    assert net.peers[live[0]].table.result() is not None
    return list(log)


def check_audit(net: Net, log: list[bytes], seats: list | None = None) -> dict:
    """The audit of every live peer's log and every peer's spool together: valid and complete."""
    files = {}
    live = net.live() if seats is None else seats
    for k in live:
        files["seat%d.log" % k] = log_file(net.durable[k].log)
    for k in range(net.n):
        if net.durable[k].spool:
            files["seat%d.spool" % k] = spool_file(net.durable[k].spool)
    rep = audit(files, GAMES)
    problems = [p for p in rep["problems"] if "problem" in p]
    assert rep["valid"] and not problems, problems[:5]
    assert rep["complete"], rep
    assert rep["game"] == net.game
    assert rep["head"] == net.peers[live[0]].table.head.hex()
    assert rep["events"] == len(log)
    return rep


def check_talk(net: Net, log: list[bytes]) -> int:
    """Every talk line any peer holds (protocol.md §9.11) is placed in ``log`` if its author answered after
    it (its seq is below the author's last one in the log: a line goes in with its author's next answer),
    else still pending (not in the log); the log holds no other line. Returns how many are placed."""
    events = [e for e in map(parse_entry, log[1:]) if isinstance(e, Event)]
    placed = {e.id for e in events if e.kind == "say"}
    last_seq: dict = {}
    for e in events:
        last_seq[e.author] = max(e.seq, last_seq.get(e.author, -1))
    held = {}
    for k in range(net.n):
        for evs in net.peers[k].replica.events.values():
            held.update((e.id, e) for e in evs.values() if e.kind == "say")
        for raw in net.durable[k].spool:
            e = parse_entry(raw)
            if isinstance(e, Event) and e.kind == "say":
                held[e.id] = e
    assert placed <= set(held), "the log holds a line no peer holds"
    for e in held.values():
        last = last_seq.get(e.author, -1)
        if e.seq < last:
            assert e.id in placed, "seat %d's line %r (seq %d) is not placed, though its author answered after it" % (
                net.keys.index(e.author), e.body["text"], e.seq)
        else:
            assert e.id not in placed, "seat %d's line %r is placed with no answer of its author after it" % (
                net.keys.index(e.author), e.body["text"])
    try:
        event("talk lines placed: %s" % ("0" if not placed else "1-2" if len(placed) < 3 else "3+"))
    except InvalidArgument:
        pass
    return len(placed)


def check_replay_equals_live(net: Net, log: list[bytes], group: list | None = None) -> None:
    """replay(log) == every live table == a table rebuilt from the peer's durable disk."""
    t = replay(log, GAMES)
    assert t.over
    seats = list(range(net.n)) + [None]
    want_views = [encode(t.view(s)) for s in seats]
    tables = []
    for k in (net.live() if group is None else group):
        tables.append(("live seat %d" % k, net.peers[k].table))
        d = net.durable[k]
        again = Peer(net.genesis, net.keys[k], net.ids[k].sign, DetRand("again", k), log_entries=list(d.log),
                     spool=list(d.spool), secrets=dict(d.secrets), timeout=net.timeout, games=GAMES)
        assert again.log_entries == log
        tables.append(("seat %d rebuilt from disk" % k, again.table))
    for name, live in tables:
        assert live.head == t.head, name
        assert live.count == t.count == len(log), name
        assert live.result() == t.result(), name
        assert live.seed == t.seed and live.beacon == t.beacon, name
        for s, want in zip(seats, want_views):
            assert encode(live.view(s)) == want, "%s: view of seat %r differs from the replay's" % (name, s)


def steps_of(genesis, log: list[bytes]) -> list[tuple[int, tuple, set, tuple]]:
    """(phase, expected seats, seats with an event, seats a certificate timed out) per step."""
    t = Table.start(genesis, GAMES)
    steps: dict[int, list] = {}
    for raw in log[1:]:
        st_ = t.step
        rec = steps.setdefault(st_.phase, [st_.phase, st_.seats, set(), ()])
        ent = parse_entry(raw, keys=t.keys)
        if isinstance(ent, Event):
            rec[2].add(t.keys.index(ent.author))
        elif isinstance(ent, Timeout):
            rec[3] = tuple(ent.seats)
        t.append(ent)
    return [tuple(r) for _, r in sorted(steps.items())]


# --------------------------------------------------------------------------- strategies
@st.composite
def fault_op(draw, n: int, restarts: bool = True, kill_mid_batch: bool = True):
    """One fault (shrinks towards a single dropped frame).

    Without ``kill_mid_batch`` a crash inside a batch is always a power loss (the
    disk goes back to the last fsync, a consistent state): see the BUG below."""
    r = draw(st.integers(0, 99))
    if r < 20:
        return ("drop",)
    if r < 32:
        return ("dup",)
    if r < 45:
        return ("delay", draw(st.integers(1, 80)))
    links = [(a, b) for a in range(n) for b in range(n) if a != b]
    if r < 60:
        down = draw(st.lists(st.sampled_from(links), min_size=1, max_size=len(links), unique=True))
        return ("partition", tuple(sorted(down)), draw(st.integers(1, 200)))
    if r < 68:
        a, b = draw(st.sampled_from(links))
        return ("reset", a, b)
    if r < 80 and restarts:
        seat, cut, power, mid = draw(st.integers(0, n - 1)), draw(st.integers(0, 12)), draw(st.booleans()), draw(st.booleans())
        return ("restart", seat, cut, power or (mid and not kill_mid_batch), mid)
    if r < 92:  # a lossy period: each of the next K deliveries is dropped / duplicated / delayed with these odds (%)
        return ("lossy", draw(st.integers(1, 400)), draw(st.integers(0, 60)), draw(st.integers(0, 40)), draw(st.integers(0, 40)))
    return ("tick",)


HORIZON = 1500  # schedule steps that may hold a fault (a 5-seat, 2-round game takes ~600-2000)


@st.composite
def fault_schedule(draw, n: int, max_faults: int, restarts: bool = True, kill_mid_batch: bool = True) -> list:
    """A list of schedule steps: mostly plain deliveries, faults at drawn positions, and up to MAX_LINES
    talk lines, each said by a drawn seat at a drawn moment (inserted: a line takes no delivery's place)."""
    count = draw(st.integers(0, max_faults), label="faults")
    faults = draw(st.lists(st.tuples(st.integers(0, HORIZON), fault_op(n, restarts, kill_mid_batch)), min_size=count, max_size=count))
    lines = draw(st.lists(st.tuples(st.integers(0, HORIZON), st.integers(0, n - 1)), max_size=MAX_LINES), label="talk")
    if not faults and not lines:
        return []
    schedule = [OK] * (max(pos for pos, _ in faults) + 1 if faults else 0)
    for pos, op in faults:
        schedule[pos] = op
    for pos, seat in sorted(lines, reverse=True):
        schedule.insert(min(pos, len(schedule)), ("say", seat))
    return schedule


@st.composite
def faulty_game(draw, min_n: int = 2, max_n: int = 5, max_faults: int = 40, restarts: bool = True, kill_mid_batch: bool = True):
    n = draw(st.integers(min_n, max_n), label="seats")
    seed = draw(st.integers(0, 2**32 - 1), label="seed")
    rounds = draw(st.integers(1, 2), label="rounds")
    return n, seed, rounds, draw(fault_schedule(n, max_faults, restarts, kill_mid_batch), label="schedule")


# --------------------------------------------------------------------------- 1. convergence
def check_convergence(game, name: str = "toy", options: dict | None = None) -> Net:
    n, seed, rounds, schedule = game
    net = Net(n, seed, rounds=rounds, timeout=10**6, game=name, options=options)
    net.play(schedule)
    describe(net)
    log = check_finished_and_identical(net)
    # no time-outs, no roll-backs, nobody disconnected an honest peer, nothing to alert about
    assert not any(isinstance(parse_entry(r), Timeout) for r in log[1:])
    assert net.stats["truncate"] == 0
    assert not net.disconnects, net.disconnects[:3]
    assert not any(net.alerts.values()), net.alerts
    # every expected seat has an event in every step, and the log holds nothing else
    # (and the talk lines placed with their authors' answers: check_talk)
    steps = steps_of(net.genesis, log)
    assert all(set(seats) == with_event for _, seats, with_event, _ in steps)
    assert len(log) == 1 + sum(len(seats) for _, seats, _, _ in steps) + check_talk(net, log)
    check_audit(net, log)
    check_replay_equals_live(net, log)
    return net


# The property as specified, with every kind of restart.  Counterexample
# (found and shrunk by hypothesis, pinned below): 2 seats A=0, B=1, seed 0, 1
# round, no network fault; A's process dies inside one batch of effects, right
# after the first effect.  That batch answered B's seed commitment (seq 0),
# which reached A after B's reveal (seq 1, waiting in A's buffer):
#     [WriteSpool[B s1 reveal p1], WriteLog[A s0 commit p0, B s0 commit p0], ...]
# so A's disk keeps B's seq 1 in the spool and B's seq 0 nowhere.
# Peer.__init__ loads every spooled event into ``events``, gap or not, and
# the rest of Peer assumes an author's events are contiguous:
#   (a) ``have[B]`` stays -1; when B's seq 0 arrives again (repair) it is
#       accepted (have 0) but the drain loop only looks in ``buffer``, so
#       have never reaches 1; re-sent copies of seq 1 are dropped as
#       duplicates, and every later event of B waits in the buffer for ever;
#   (b) the first _candidates() pass for phase 0 after the restart scanned
#       B's seqs, found only seq 1 (a phase-1 reveal) and cached B as
#       "checked up to seq 1" (key: phase, prev, table.count), so the seq 0
#       that fills the gap is never considered: phase 0 never closes at A.
# A never finishes, and B waits for A's reveal for ever (with time-outs B
# would go on alone with certificates).  A crash between those two writes is
# a SIGKILL/OOM inside node.run_effects, or a StoreError (disk full) on the
# log append after the spool append succeeded.  Power losses are immune (the
# fsync is global: the disk goes back to a consistent state), hence the
# passing variant below.  Checked: loading spooled events above a gap into
# ``buffer`` instead makes this property (and the next xfail) pass.
@settings(max_examples=20, **SETTINGS)       # (30 before talk lines)
@example(game=(2, 0, 1, [("restart", 0, 1, False, True)]))
@given(game=faulty_game())
def test_convergence_under_arbitrary_fault_schedules(game):
    check_convergence(game)


def placed(length: int, faults: dict) -> list:
    """A schedule of ``length`` plain deliveries with ``faults`` ({position: op}) in place."""
    return [faults.get(i, OK) for i in range(length)]


# Found by hypothesis (derandomized): partitions of the one link 0->1 chained back to
# back kept it down for ~300 rounds, and the harness called that a stall.  No protocol
# can get past a link that loses everything; the stall clock now runs only while the
# network is whole, and this schedule must then finish.
@settings(max_examples=90, **SETTINGS)       # (150 before schedules held talk lines: the same run time)
@example(game=(2, 0, 1, placed(646, {0: ("partition", ((0, 1),), 164), 165: ("partition", ((0, 1),), 147),
                                     312: ("partition", ((0, 1),), 49), 317: ("lossy", 283, 30, 0, 0),
                                     362: ("partition", ((0, 1), (1, 0)), 86), 454: ("partition", ((0, 1),), 191),
                                     645: ("partition", ((0, 1),), 72)})))
# Found by hypothesis once the peers became event-driven: a partition of both links counted in
# deliveries never ended while the quiet peers had nothing in flight (the harness now lets a
# slot pass when nothing is in flight, as time does)
@example(game=(2, 0, 1, placed(378, {0: ("partition", ((0, 1), (1, 0)), 23), 377: ("partition", ((0, 1), (1, 0)), 129)})))
# Found by hypothesis once schedules held talk lines: seat 1 loses power inside a batch (its log goes back to the
# genesis, its spool keeps its seed commit and reveal, phases 0 and 1) and then says a line; the line's phase was
# its log's (0), below its own last event's (1), so the table could never place it (§6.1: phase >= last_phase)
# and its next answer went in without it. A line now takes its own last event's phase if that is later (§9.11).
@example(game=(2, 1, 1, [("drop",), ("restart", 1, 6, True, True)] + [OK] * 6 + [("say", 1), ("drop",)]))
@given(faulty_game(kill_mid_batch=False))
def test_convergence_under_fault_schedules_without_kills_inside_a_batch(game):
    """The same property; restarts between batches (crash or power loss) and power losses inside a batch."""
    check_convergence(game)


def test_restart_with_a_gap_in_the_spool_closes_the_step_when_the_event_arrives():
    """Minimal form of the BUG above, without the network: seat A restarts from
    log = [genesis], spool = [A's seed commit, B's reveal (seq 1)]; B's seed
    commit (seq 0) then arrives.  A holds every event of phase 0 and must close it."""
    net = Net(2, 0, rounds=1, timeout=10**6)
    A, B = net.peers
    net.run(0, A.start())
    net.run(1, B.start())
    a0 = A.replica.events[net.keys[0]][0]
    b0 = B.replica.events[net.keys[1]][0]
    B.receive(net.keys[0], encode(["entry", a0.raw]))  # B closes phase 0 and reveals
    b1 = B.replica.events[net.keys[1]][1]
    assert b1.kind == "reveal"
    again = Peer(net.genesis, net.keys[0], net.ids[0].sign, DetRand("gap"), log_entries=[net.genesis.raw],
                 spool=[a0.raw, b1.raw], secrets=dict(A.agent.secrets), timeout=10**6, games=GAMES)
    again.start()
    again.connected(net.keys[1])
    again.receive(net.keys[1], encode(["entry", b0.raw]))
    assert again.replica.have[net.keys[1]] == 1, "the have for seat 1 must cover seq 1 once seq 0 filled the gap"
    assert again.table.phase >= 1, "phase 0 never closes although the peer holds all its events"


def test_convergence_harness_really_injects_faults():
    """A fixed, fault-heavy schedule: the harness exercises every kind of fault."""
    r = random.Random(5)
    n = 4
    links = [(a, b) for a in range(n) for b in range(n) if a != b]
    schedule = []
    for i in range(600):
        x = r.randrange(100)
        if x < 15:
            schedule.append(("drop",))
        elif x < 25:
            schedule.append(("dup",))
        elif x < 35:
            schedule.append(("delay", r.randrange(1, 60)))
        elif x < 38:
            schedule.append(("partition", tuple(r.sample(links, 3)), r.randrange(1, 100)))
        elif x < 40:
            schedule.append(("reset",) + r.choice(links))
        elif x < 44:
            mid = r.random() < 0.5  # a crash inside a batch: power loss only (see the BUG above)
            schedule.append(("restart", r.randrange(n), r.randrange(8), mid or r.random() < 0.5, mid))
        elif x < 47:
            schedule.append(("say", r.randrange(n)))
        else:
            schedule.append(OK)
    net = Net(n, 99, rounds=2, timeout=10**6)
    net.play(schedule)
    log = check_finished_and_identical(net)
    for kind in ("drop", "dup", "delay", "partition", "reset", "restart", "restart-power", "crash-in-batch", "lost-partition", "lost-closed", "say"):
        assert net.stats[kind] > 0, (kind, dict(net.stats))
    assert not net.disconnects and not any(net.alerts.values())
    assert check_talk(net, log) > 0
    check_audit(net, log)
    check_replay_equals_live(net, log)


# --------------------------------------------------------------------------- 2. time-outs
@st.composite
def game_with_deaths(draw, max_dead: int = 2, kill_mid_batch: bool = True):
    n, seed, rounds, schedule = draw(faulty_game(min_n=3, max_n=5, max_faults=25, kill_mid_batch=kill_mid_batch))
    most = min(max_dead, (n - 1) // 2)  # fewer than half the seats
    dead = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=most, unique=True), label="dead")
    at = {k: draw(st.integers(0, 60 * n * n), label="dies at") for k in dead}
    return n, seed, rounds, schedule, at


def check_deaths_covered(net: Net, log: list[bytes]) -> None:
    """Every step is closed by its expected seats' events and a certificate for the rest; a dead seat
    is timed out of every step that opened after it died, and never moves again."""
    steps = steps_of(net.genesis, log)
    for phase, seats, with_event, timed_out in steps:
        # a certificate may also name seats the step does not expect (absent seats that
        # could not vote, protocol.md §6.5 escalation): only the expected ones matter here
        out = set(timed_out) & set(seats)
        assert set(seats) == with_event | out and not with_event & out
        for d in net.dead:
            if d in seats and phase > net.death_phase[d]:
                assert d in timed_out, "dead seat %d not covered by a certificate in phase %d (died at phase %d)" % (
                    d, phase, net.death_phase[d])
    for d in net.dead:
        # from its death on, once a dead seat is timed out it never has an event again
        mine = [(phase, d in timed_out) for phase, seats, _, timed_out in steps if d in seats and phase >= net.death_phase[d]]
        flags = [f for _, f in mine]
        assert flags == sorted(flags), "dead seat %d has an event after a time-out: %s" % (d, mine)


def check_game_with_deaths(game, name: str = "toy", options: dict | None = None) -> Net:
    """The live seats finish alike; a dead seat is timed out in every step that opened after it died."""
    n, seed, rounds, schedule, deaths = game
    net = Net(n, seed, rounds=rounds, timeout=2.0, game=name, options=options)
    net.play(schedule, deaths=deaths)
    describe(net)
    # (a seat whose death point came after the end of the game never died: still a fine example)
    assert len(net.live()) * 2 > n
    forked = forked_alike(net)
    if forked is not None:
        # the table forked over a shown secret: every live seat ended so, alike (§6.5 rule 3)
        check_forked(net, forked)
        assert not net.disconnects, net.disconnects[:3]
        return net
    # an even split (two halves certifying each other out, and a seat that showed a secret on one side
    # refusing the other's certificate) leaves two logs, each checked as a whole (protocol.md §6.5)
    for group in split_groups(net) or [None]:
        log = check_finished_and_identical(net, group)
        check_audit(net, log, group)
        check_replay_equals_live(net, log, group)
        check_deaths_covered(net, log)
        if group is None:
            check_talk(net, log)
    assert not net.disconnects, net.disconnects[:3]
    return net


@settings(max_examples=28, **SETTINGS)       # (40 before talk lines)
@given(game_with_deaths(max_dead=1, kill_mid_batch=False))
def test_one_dead_seat_is_timed_out_and_the_others_finish(game):
    check_game_with_deaths(game)


# The property as specified (one or two seats die).  Counterexample, pinned
# below: 5 seats, no network fault; seat 1 dies before sending anything, seat 3
# dies right after its seed commitment reached the others (before the step has
# been open `timeout`).  Seats 0, 2, 4 hold seat 3's commitment, so (§6.5) none
# may vote against it: each votes T = {1}; but a certificate for T = {1} needs
# the vote of every seat outside T (§5.3), seat 3's included, and seat 3 is
# dead.  Phase 0 never closes: the table is stuck for ever although only 2 of
# 5 seats are gone.  The same happens at any later step in which one seat is
# already gone and a second one dies between sending its event and voting.
@settings(max_examples=14, **SETTINGS)       # (20 before talk lines)
@example(game=(5, 7, 1, [], {1: 0, 3: 4}))
@given(game=game_with_deaths(max_dead=2))
def test_dead_seats_are_timed_out_and_the_others_finish(game):
    check_game_with_deaths(game)


def _runs(*ops) -> list:
    """A schedule written with runs: ("ok", k) stands for k plain deliveries."""
    out: list = []
    for op in ops:
        out += [OK] * op[1] if op[0] == "ok" and len(op) == 2 else [op]
    return out


# Found by hypothesis: 4 seats, the network splits 2 | 2 for a long while, each half certifies the other
# half out (2 voters for 2 seats: the quorum of §5.3 allows it at an even table) and plays on, and when
# the network heals the seats that showed a secret on one side (a sealed bet revealed) refuse the other
# side's better certificate (protocol.md §6.5 "Shown secrets", rule 1).  This is the limit §6.5 names
# ("what is left"); before rule 1 the side with the worse certificate rolled back and played its revealed
# bets again, and before rule 3 the two sides finished apart, each with a complete log and its own winner.
# Now the table has forked and every live seat ends ``forked``, alike, on the same proof.
SPLIT_GAME = (4, 4084, 2, _runs(
    ("partition", ((0, 1), (0, 2)), 1), ("ok", 46), ("partition", ((0, 1), (0, 2)), 1), ("ok", 20), ("reset", 2, 1),
    ("ok", 31), ("dup",), ("ok", 121), ("partition", ((1, 2),), 112), ("ok", 7), ("restart", 2, 12, True, True),
    ("ok", 45), ("delay", 15), ("ok", 56), ("lossy", 6, 23, 33, 4), ("ok", 14),
    ("partition", ((0, 1), (0, 2), (1, 0), (1, 2), (1, 3), (2, 0), (2, 1), (2, 3), (3, 0), (3, 1), (3, 2)), 188),
    ("ok", 51), ("dup",), ("ok", 111), ("drop",), ("ok", 84), ("dup",), ("ok", 413), ("dup",), ("ok", 219),
    ("drop",), ("ok", 251), ("drop",), ("ok", 16), ("partition", ((0, 1), (0, 2)), 47)), {0: 864})


def test_an_even_split_that_certifies_both_halves_out_ends_forked_for_every_seat_alike():
    net = check_game_with_deaths(SPLIT_GAME)
    res = forked_alike(net)
    assert res is not None and res["winners"] == [] and res["ranking"] == []
    assert any(net.peers[k].forked for k in net.live())


def test_two_dead_seats_that_die_together_are_timed_out():
    """Two of five seats die before sending anything: the three others finish on certificates."""
    net = check_game_with_deaths((5, 7, 1, [("drop",), OK, ("dup",)] * 30, {1: 0, 3: 0}))
    assert net.dead == {1, 3}
    log = net.peers[0].log_entries
    certs = [e for e in map(parse_entry, log[1:]) if isinstance(e, Timeout)]
    # the seed commit, the sealed guesses' commit and the open bets: the steps that expect every seat
    # (the reveals expect only the seats that committed; the target is seat 0's)
    assert len(certs) == 3 and all(c.seats == (1, 3) for c in certs)
    steps = steps_of(net.genesis, log)
    assert [(seats, timed_out) for _, seats, _, timed_out in steps] == [
        ((0, 1, 2, 3, 4), (1, 3)), ((0, 2, 4), ()), ((0, 1, 2, 3, 4), (1, 3)), ((0, 2, 4), ()), ((0,), ()),
        ((0, 1, 2, 3, 4), (1, 3))]
    assert net.now >= 3 * 2.0


# The same properties with the toy game's other step shapes: sealed bets (a round ends on a
# sealed step, so the next round's chance consumes its beacon with no seed step between) and
# one chip each with sudden death (seats go out every round).
TOY_VARIANT = {"sealed_bets": True, "sudden_death": True, "edition": "short"}


@settings(max_examples=10, **SETTINGS)       # (15 before talk lines)
@given(faulty_game(min_n=2, max_n=5, max_faults=30))
def test_toy_game_with_sealed_bets_and_sudden_death_converges_under_faults(game):
    check_convergence(game, options=TOY_VARIANT)


@settings(max_examples=7, **SETTINGS)        # (10 before talk lines)
@given(game=game_with_deaths(max_dead=2))
def test_toy_game_with_sealed_bets_dead_seats_are_timed_out_and_the_others_finish(game):
    check_game_with_deaths(game, options=TOY_VARIANT)


# --------------------------------------------------------------------------- 3. robustness of receive
class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def receive_bounded(p: Peer, key: bytes, data: bytes, limit: float = 2.0) -> list:
    """p.receive(key, data), failing (instead of hanging the suite) if it takes more than ``limit`` s."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return p.receive(key, data)
    except Hang:
        raise AssertionError("Peer.receive did not return within %.1f s" % limit) from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@lru_cache(maxsize=None)
def target():
    """A mid-game peer's disk (seat 0 of 3), and material to attack it with."""
    net = Net(3, 4242, rounds=2, timeout=10**6)
    net.start()
    for _ in range(200):
        if net.peers[0].table.phase >= 4 and net.queue:
            break
        net.round(iter(()))
    p = net.peers[0]
    assert not p.table.over and p.table.phase >= 4
    d = net.durable[0]
    # another game of the same players (same keys, another table) and one of other players
    same_keys = Net(3, 4243, rounds=1, timeout=10**6)
    same_keys.play()
    strangers = Net(3, 4244, rounds=1, timeout=10**6, tag="strangers")
    strangers.play()
    heads = set()
    t = Table.start(net.genesis, GAMES)
    heads.add(t.head)
    for raw in d.log[1:]:
        t.append(raw)
        heads.add(t.head)
    return {
        "net": net,
        "log": tuple(d.log),
        "spool": tuple(d.spool),
        "secrets": dict(d.secrets),
        "heads": frozenset(heads),
        "messages": tuple(m for _, _, _, m in net.queue[:40]),
        "own": tuple(e.raw for k in range(3) for e in net.peers[k].replica.events[net.keys[k]].values()),
        "other": same_keys,
        "other_log": tuple(same_keys.peers[0].log_entries),
        "strangers_log": tuple(strangers.peers[0].log_entries),
    }


def fresh_target() -> Peer:
    tg = target()
    net = tg["net"]
    p = Peer(net.genesis, net.keys[0], net.ids[0].sign, DetRand("target"), log_entries=list(tg["log"]),
             spool=list(tg["spool"]), secrets=dict(tg["secrets"]), timeout=10**6, games=GAMES)
    p.start()
    for k in (1, 2):
        p.connected(net.keys[k])
    return p


def interesting_bytes():
    tg = target()
    net = tg["net"]
    other = tg["other"]
    return st.sampled_from(
        [net.genesis.game_id, other.genesis.game_id, bytes(32), bytes(64)]
        + list(net.keys)
        + sorted(tg["heads"])
        + [net.genesis.raw, other.genesis.raw]
    )


def _canonical_values():
    base = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**63), 2**64 - 1),
        st.integers(-3, 70),
        st.binary(max_size=40),
        st.text(max_size=8),
        st.deferred(interesting_bytes),
    )
    return st.recursive(base, lambda ch: st.lists(ch, max_size=4) | st.dictionaries(st.text(max_size=6), ch, max_size=4), max_leaves=10)


CANON = _canonical_values()


def canonical_values():
    return CANON


SEQS = st.one_of(st.integers(-1000, 2**64 - 1), st.sampled_from([-1, 0, 1, 2**63 - 1, 2**63, 2**64 - 1]))
KEYS = st.one_of(st.deferred(lambda: st.sampled_from(target()["net"].keys)), st.binary(min_size=32, max_size=32), st.binary(max_size=40))
KINDS = st.sampled_from(["commit", "reveal", "act"]) | st.text(max_size=7)
TYPES = st.sampled_from(["hello", "have", "entry", "vote", "proof"]) | st.text(max_size=7)


@st.composite
def bodies(draw):
    """Event bodies: the right shape with random values, or junk."""
    if draw(st.booleans()):
        return draw(canonical_values())
    body = {"phase": draw(st.integers(-2, 2**63) | st.integers(0, 8))}
    which = draw(st.sampled_from(["commit", "reveal", "act", "extra"]))
    if which == "commit":
        body["hash"] = draw(st.binary(min_size=31, max_size=33))
    elif which == "reveal":
        body["value"] = draw(canonical_values())
        body["salt"] = draw(st.binary(min_size=31, max_size=33))
    elif which == "act":
        body["action"] = draw(canonical_values())
    else:
        body.update(draw(st.dictionaries(st.text(max_size=6), canonical_values(), max_size=3)))
    return body


def _not_a_head(b: bytes) -> bool:
    return b not in target()["heads"]


@st.composite
def junk_entries(draw):
    """Entry bytes with random fields: unsigned/badly signed, or signed but unable to join the log."""
    tg = target()
    net = tg["net"]
    choice = draw(st.integers(0, 7))
    if choice == 0:  # an event with random fields and a random signature
        fields = ["easel-event", draw(st.sampled_from([1, 0, 2]) | canonical_values()), draw(canonical_values()),
                  draw(KEYS), draw(SEQS | canonical_values()), draw(canonical_values()), draw(KINDS), draw(bodies()),
                  draw(st.binary(min_size=63, max_size=65))]
        return encode(fields[: draw(st.integers(1, 10))])
    if choice == 1:  # a well-formed time-out with random fields and signatures
        seats = draw(st.lists(st.integers(0, 4), max_size=4))
        votes = draw(st.lists(st.tuples(st.integers(0, 4), st.binary(min_size=64, max_size=64)), max_size=4))
        return encode(["easel-timeout", 1, draw(st.deferred(interesting_bytes) | st.binary(max_size=33)), draw(SEQS),
                       draw(st.deferred(interesting_bytes) | st.binary(max_size=33)), seats, [list(v) for v in votes]])
    if choice == 2:  # a genesis with junk
        return encode(["easel-genesis", draw(st.integers(0, 2)), draw(canonical_values()), draw(canonical_values())])
    if choice == 3:  # an event *signed by a seat*, of this game, on a prev that is no head of this game
        k = draw(st.integers(0, 2))
        kind = draw(st.sampled_from(["commit", "reveal", "act"]))
        body = {"commit": lambda: {"phase": draw(st.integers(0, 20)), "hash": draw(st.binary(min_size=32, max_size=32))},
                "reveal": lambda: {"phase": draw(st.integers(0, 20)), "value": draw(canonical_values()), "salt": draw(st.binary(min_size=32, max_size=32))},
                "act": lambda: {"phase": draw(st.integers(0, 20)), "action": draw(canonical_values())}}[kind]()
        prev = draw(st.binary(min_size=32, max_size=32).filter(_not_a_head))
        ev = make_event(net.ids[k].sign, net.genesis.game_id, net.keys[k], draw(st.integers(0, 2**63 - 1) | st.integers(0, 30)), prev, kind, body)
        return ev.raw
    if choice == 4:  # a complete, signed certificate of this game, on a prev that is no head
        seats = draw(st.lists(st.integers(0, 2), min_size=1, max_size=1))
        phase = draw(st.integers(0, 20))
        prev = draw(st.binary(min_size=32, max_size=32).filter(_not_a_head))
        gid = net.genesis.game_id
        votes = [(v, net.ids[v].sign(vote_sign_msg(gid, phase, prev, seats))) for v in range(3) if v not in seats]
        return make_timeout(gid, phase, prev, seats, votes).raw
    if choice == 5:  # an event signed by a seat's key for another game
        k = draw(st.integers(0, 2))
        gid = draw(st.binary(min_size=32, max_size=32))
        return make_event(net.ids[k].sign, gid, net.keys[k], draw(st.integers(0, 30)), draw(st.deferred(interesting_bytes).filter(lambda b: len(b) == 32)),
                          "commit", {"phase": draw(st.integers(0, 20)), "hash": bytes(32)}).raw
    if choice == 6:  # a real entry of another game (same players, or other players)
        return draw(st.sampled_from(tg["other_log"] + tg["strangers_log"]))
    b = bytearray(draw(st.sampled_from(tg["own"] + tg["other_log"])))  # a mutated real entry
    for _ in range(draw(st.integers(1, 3))):
        b[draw(st.integers(0, len(b) - 1))] = draw(st.integers(0, 255))
    return bytes(b)


# the certificates a peer reports holding: [[phase, first 8 bytes of the id], ...], or junk
CERTS = st.one_of(
    st.lists(st.tuples(SEQS, st.binary(max_size=9)).map(list), max_size=4),
    st.lists(SEQS | st.deferred(canonical_values), max_size=4),
    st.deferred(canonical_values),
)


@st.composite
def have_vectors(draw):
    return [[draw(KEYS), draw(SEQS), draw(st.binary(max_size=9))] for _ in range(draw(st.integers(0, 4)))] \
        if draw(st.integers(0, 4)) else draw(canonical_values())


@st.composite
def junk_messages(draw):
    tg = target()
    choice = draw(st.integers(0, 9))
    if choice == 0:
        return draw(st.binary(max_size=300))
    if choice == 1:  # a canonical array with a message type and junk fields
        return encode([draw(TYPES)] + draw(st.lists(canonical_values(), max_size=7)))
    if choice == 2:
        return encode(["hello", draw(st.sampled_from([1, True, 0, 2]) | canonical_values()),
                       draw(st.deferred(interesting_bytes) | canonical_values()), draw(have_vectors()),
                       draw(CERTS)])
    if choice == 3:
        return encode(["have", draw(have_vectors()), draw(CERTS)])
    if choice == 4:
        return encode(["vote", draw(SEQS | canonical_values()), draw(st.deferred(interesting_bytes) | canonical_values()),
                       draw(st.lists(st.integers(-1, 5) | canonical_values(), max_size=4) | canonical_values()),
                       draw(st.integers(-1, 5) | st.booleans() | canonical_values()),
                       draw(st.binary(min_size=63, max_size=65) | canonical_values())])
    if choice == 5:
        return encode(["entry", draw(junk_entries())])
    if choice == 6:
        return encode(["proof", draw(junk_entries()), draw(junk_entries())])
    if choice == 7:  # real messages of another game: its hello and its votes
        other = tg["other"]
        o = other.peers[1]
        gid = other.genesis.game_id
        phase = draw(st.integers(0, 6))
        prev = draw(st.sampled_from(sorted(tg["heads"])))
        seats = [draw(st.integers(0, 2))]
        voter = draw(st.integers(0, 2))
        sig = other.ids[voter].sign(vote_sign_msg(gid, phase, prev, seats))
        return draw(st.sampled_from([o.hello(), encode(["vote", phase, prev, seats, voter, sig])]))
    if choice == 8:  # a real message of this game with bytes changed
        b = bytearray(draw(st.sampled_from(tg["messages"])))
        for _ in range(draw(st.integers(1, 3))):
            b[draw(st.integers(0, len(b) - 1))] = draw(st.integers(0, 255))
        return bytes(b)
    fields = draw(st.lists(canonical_values(), max_size=6))  # a message type in a wrong place / wrong arity
    return encode(fields + [draw(TYPES)])


@settings(max_examples=250, **SETTINGS)
@given(st.lists(st.tuples(junk_messages(), st.integers(1, 3), st.integers(1, 2)), min_size=1, max_size=5))
def test_receive_junk_never_raises_and_never_changes_the_log(msgs):
    p = fresh_target()
    net = target()["net"]
    before = list(p.log_entries)
    head, phase = p.table.head, p.table.phase
    for data, repeat, sender in msgs:
        for _ in range(repeat):
            out = receive_bounded(p, net.keys[sender], data)
            assert isinstance(out, list)
            event("outcome: " + ("disconnect" if any(isinstance(e, Disconnect) for e in out) else
                                 "spooled" if any(isinstance(e, WriteSpool) for e in out) else
                                 "answered" if out else "ignored"))
            for eff in out:
                assert isinstance(eff, EFFECTS), eff
                assert not isinstance(eff, (WriteLog, TruncateLog, WriteSecret)), eff
                if isinstance(eff, Disconnect):
                    assert eff.peer == net.keys[sender] and eff.reason
            assert p.log_entries == before
    assert p.table.head == head and p.table.phase == phase and p.table.count == len(before)


def test_receive_junk_peer_still_finishes_the_game():
    """After a burst of damaged frames from both other seats, the attacked peer still finishes the game."""
    tg = target()
    net = Net(3, 4242, rounds=2, timeout=10**6)
    net.start()
    for _ in range(200):
        if net.peers[0].table.phase >= 4:
            break
        net.round(iter(()))
    p = net.peers[0]
    before = list(p.log_entries)
    r = random.Random(1)
    msgs = [m for _, _, _, m in net.queue] + list(tg["other_log"])
    for i in range(300):
        b = bytearray(encode(["entry", r.choice(msgs)]) if i % 2 else r.choice(msgs))
        b[r.randrange(len(b))] = r.randrange(256)
        net.run(0, receive_bounded(p, net.keys[1 + i % 2], bytes(b)))
        assert p.log_entries == before
    assert net.disconnects, "damaged frames must make the receiver disconnect"
    net.disconnects.clear()
    for _ in range(MAX_ROUNDS):
        if net.settled():
            break
        net.round(iter(()))
    log = check_finished_and_identical(net)
    check_audit(net, log)
    assert not net.disconnects


# A "have" that claims a very negative sequence number for some author: after
# REPAIR_AFTER identical reports the peer "repairs" from that seq, looping over
# range(seq + 1, have + 1) one (missing) seq at a time; missing seqs are skipped
# without using the per-have send budget, so the loop runs ~2**63 times.
@settings(max_examples=3, phases=[Phase.explicit, Phase.generate], **SETTINGS)
@example(seq=-(2**63), author=2, sender=1)
@given(seq=st.integers(-(2**63), -(2**40)), author=st.integers(0, 2), sender=st.integers(1, 2))
def test_have_with_a_huge_negative_seq_is_answered_quickly(seq, author, sender):
    p = fresh_target()
    net = target()["net"]
    msg = encode(["have", [[net.keys[author], seq, b""]], []])
    for _ in range(3):
        out = receive_bounded(p, net.keys[sender], msg, limit=0.5)
        assert isinstance(out, list)


# --------------------------------------------------------------------------- 4. replay equals live
@settings(max_examples=30, **SETTINGS)       # (40 before talk lines)
@given(faulty_game(min_n=2, max_n=5, max_faults=20, kill_mid_batch=False), st.integers(1, 3))
def test_replay_equals_live(game, rounds):
    n, seed, _, schedule = game
    net = Net(n, seed, rounds=rounds, timeout=10**6)
    net.play(schedule)
    log = check_finished_and_identical(net)
    check_replay_equals_live(net, log)
    # and the replay from the log *file* as the audit reads it
    rep = audit({"x.log": log_file(log)}, GAMES)
    assert rep["valid"] and rep["complete"] and rep["head"] == replay(log, GAMES).head.hex()
    assert rep["results"] == replay(log, GAMES).result()


# --------------------------------------------------------------------------- honest timing never forks a table
# (protocol.md §6.5 "Shown secrets" rule 2; issue 29): the show gate's patience is part of the time-out rule
# (p2p/timeouts.py ``seat_time``, ``slowest``, ``show_after``), so one seat given a longer time-out than the
# others (a per-seat rule, the same code at every peer) and one link slower than the others by up to twice the
# step time finish the game with identical logs.  Every link delivers in order, as a connection does.
@settings(max_examples=12, **SETTINGS)
@given(n=st.integers(3, 5), seed=st.integers(0, 10_000), longer=st.one_of(st.none(), st.integers(0, 4)),
       slow=st.one_of(st.none(), st.tuples(st.integers(0, 4), st.integers(0, 4), st.floats(0.5, 4.0))))
def test_a_per_seat_time_out_rule_and_a_slow_link_finish_with_identical_logs(n, seed, longer, slow):
    from .test_show_gate import timed_table

    if longer is not None and longer >= n:
        longer = None
    if slow is not None and (slow[0] >= n or slow[1] >= n or slow[0] == slow[1]):
        slow = None
    sim = timed_table(n, seed, longer=longer, slow_link=slow)
    logs = [p.log_entries for p in sim.peers]
    assert all(p.table.over and p.fork is None and not p.forked for p in sim.peers)
    assert all(lg == logs[0] for lg in logs)
    event("certificates: %d" % min(len(sim.peers[0].table.timeouts), 3))
