"""Helpers for the protocol, network and CLI tests.

* ``Sim``: a deterministic in-memory network of sans-IO ``p2p.protocol.Peer``s.
  Messages wait in one queue of (src, dst, msg); a seeded ``random.Random``
  picks the delivery order and optionally drops or duplicates them.  Time is
  a fake clock advanced by ``tick_all``.  Every effect is recorded, and each
  peer has a ``Disk`` model that carries out WriteLog/WriteSpool/TruncateLog/
  WriteSecret so tests can check what is on "disk" at any moment.
* table/identity builders, free ports, small polling helpers.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Callable

import trio

from cli.children import free_port, free_ports  # noqa: F401 (re-exported for the tests)
from core import games as registry
from core.encoding import decode, encode
from core.events import Event, Timeout, game_id_of, genesis_sign_msg, make_genesis, parse_entry
from core.hashing import dhash
from core.rng import Rng
from p2p.identity import Identity
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

WALL_LIMIT = 60.0  # no simulation may run longer than this (seconds of real time)


# --------------------------------------------------------------------------- building tables
def identities(n: int, tag: str = "sim") -> list[Identity]:
    return [Identity(dhash("test-identity", tag, k)) for k in range(n)]


def make_table(ids: list[Identity], game: str = "painting", options: dict | None = None, timeout: int = 60, nonce: bytes = b"testtabl",
               names: list | None = None, previous: bytes | None = None):
    """A genesis every seat signed; ``names`` (§5.1) and ``previous`` (§9.9) only when given."""
    doc = {
        "game": game,
        "config": registry.get(game).configure(options or {}, len(ids)),
        "seats": [i.public for i in ids],
        "table": nonce,
        "timeout": timeout,
    }
    if names is not None:
        doc["names"] = list(names)
    if previous is not None:
        doc["previous"] = previous
    gid = game_id_of(doc)
    return make_genesis(doc, [i.sign(genesis_sign_msg(gid)) for i in ids])


def build_table(n: int, tmp_path, game: str = "painting", options: dict | None = None, timeout: int = 60):
    """(identities, genesis, roster on loopback ports, one GameStore per seat) of a fresh n-seat table."""
    import os

    from p2p import tls
    from p2p.store import GameStore

    ids = [Identity.generate() for _ in range(n)]
    genesis = make_table(ids, game=game, options=options, timeout=timeout, nonce=os.urandom(8))
    roster = {"certs": [tls.make_certificate(i) for i in ids], "addrs": [["127.0.0.1", p] for p in free_ports(n)]}
    stores = [GameStore(tmp_path / str(k)) for k in range(n)]
    return ids, genesis, roster, stores


async def run_nodes(nodes, stores, limit: float) -> None:
    """Run GameNodes in one nursery until every one is done (at most ``limit`` s), then close the stores."""
    import trio

    try:
        with trio.fail_after(limit):
            async with trio.open_nursery() as n:
                for node in nodes:
                    await n.start(node.run)
    finally:
        for s in stores:
            s.close()


class DetRand:
    """A deterministic rand(n) for one peer (tests only)."""

    def __init__(self, *parts: Any) -> None:
        self.base = dhash("test-rand", list(parts))
        self.n = 0

    def __call__(self, k: int) -> bytes:
        out = b""
        while len(out) < k:
            out += dhash("test-rand", self.base, self.n)
            self.n += 1
        return out[:k]


def entry_raws(msg: bytes) -> list[bytes]:
    """The log entries carried by a wire message ("entry" / "proof"), else []."""
    try:
        m = decode(msg)
    except Exception:
        return []
    if isinstance(m, list) and m and m[0] == "entry" and len(m) == 2:
        return [m[1]]
    if isinstance(m, list) and m and m[0] == "proof":
        return list(m[1:])
    return []


# --------------------------------------------------------------------------- disk model
@dataclass
class Disk:
    """What a GameStore would hold after carrying out a peer's effects in order."""

    log: list = field(default_factory=list)
    spool: list = field(default_factory=list)
    secrets: dict = field(default_factory=dict)

    def apply(self, eff) -> None:
        if isinstance(eff, WriteLog):
            self.log.extend(eff.entries)
        elif isinstance(eff, WriteSpool):
            self.spool.extend(eff.entries)
        elif isinstance(eff, TruncateLog):
            del self.log[eff.count:]
        elif isinstance(eff, WriteSecret):
            self.secrets[eff.phase] = (eff.value, eff.salt)

    def holds(self, raw: bytes) -> bool:
        return raw in self.log or raw in self.spool


# --------------------------------------------------------------------------- the simulated network
@dataclass
class Rec:
    """One recorded effect: global order, the peer that produced it, the effect."""

    t: int
    seat: int
    eff: Any
    now: float = 0.0


class Sim:
    def __init__(
        self,
        n: int,
        seed: int = 0,
        *,
        drop: float = 0.0,
        dup: float = 0.0,
        timeout: float = 60.0,
        tick: float = 0.1,
        level: str = "random",
        game: str = "painting",
        options: dict | None = None,
        tag: str = "sim",
        clock: bool = False,
        names: list | None = None,
        fifo: bool = False,
    ) -> None:
        """``clock``: each peer is given the shell's clock (``Sim.now``), read at every input (as GameNode does);
        ``names``: the seats' names in the genesis (§5.1), none by default.
        ``fifo``: every link delivers in the order it was sent, as a connection does (protocol.md §9.4; the
        show gate, §6.5 rule 2, relies on it); by default any queued message may come first."""
        self.n = n
        self.seed = seed
        self.rng = random.Random(seed)
        self.drop = drop
        self.dup = dup
        self.tick_len = tick
        self.ids = identities(n, tag)
        self.keys = [i.public for i in self.ids]
        self.genesis = make_table(self.ids, game, options, int(timeout), names=names)
        self.game = registry.get(game)
        self.disks = [Disk(log=[self.genesis.raw]) for _ in range(n)]
        self.peers = [
            Peer(self.genesis, self.ids[k].public, self.ids[k].sign, DetRand(tag, seed, k), timeout=timeout, games=registry,
                 clock=(lambda: self.now) if clock else None)
            for k in range(n)
        ]
        self.bots = [self.game.bots[level]() for _ in range(n)]
        self.queue: list[tuple[int, int, bytes]] = []
        self.now = 0.0
        self.dead: set[int] = set()        # neither send, receive, tick nor act
        self.silent: set[int] = set()      # never decide a move (automatic steps still run)
        self.block: Callable[[int, int, bytes], bool] | None = None   # True: lose this message
        self.links: set[tuple[int, int]] = set()
        self.trace: list[Rec] = []
        self.batches: list[tuple[int, list]] = []   # (seat, effects) as returned, in order
        self.delivered = 0
        self.decisions: dict[int, Callable] = {}    # seat -> f(view, seat, peer) override
        self.fifo = fifo

    # ---------------------------------------------------------------- effects
    def run(self, k: int, effects: list) -> list:
        self.batches.append((k, list(effects)))
        for eff in effects:
            self.trace.append(Rec(len(self.trace), k, eff, self.now))
            self.disks[k].apply(eff)
            if isinstance(eff, Send):
                j = self.keys.index(eff.to)
                if (k, j) in self.links:
                    self.queue.append((k, j, eff.msg))
            elif isinstance(eff, Broadcast):
                for j in range(self.n):
                    if (k, j) in self.links:
                        self.queue.append((k, j, eff.msg))
            elif isinstance(eff, Disconnect):
                j = self.keys.index(eff.peer) if eff.peer in self.keys else None
                if j is not None:
                    self.links.discard((k, j))
                    self.links.discard((j, k))
        return effects

    def connect_all(self) -> None:
        for a in range(self.n):
            for b in range(self.n):
                if a != b:
                    self.links.add((a, b))
        for a in range(self.n):
            for b in range(self.n):
                if a != b and a not in self.dead:
                    self.run(a, self.peers[a].connected(self.keys[b]))

    def start(self) -> None:
        for k in range(self.n):
            if k not in self.dead:
                self.run(k, self.peers[k].start())
        self.connect_all()
        self.decide_all()

    # ---------------------------------------------------------------- moving messages
    def deliver(self, src: int, dst: int, msg: bytes) -> list:
        self.delivered += 1
        return self.run(dst, self.peers[dst].receive(self.keys[src], msg))

    def deliver_one(self) -> None:
        i = self.rng.randrange(len(self.queue))
        if self.fifo:   # the oldest message of the link picked (links interleave at random, each in order)
            link = self.queue[i][:2]
            i = next(j for j, q in enumerate(self.queue) if q[:2] == link)
        src, dst, msg = self.queue.pop(i)
        if src in self.dead or dst in self.dead:
            return
        if self.block is not None and self.block(src, dst, msg):
            return
        if self.drop and self.rng.random() < self.drop:
            return
        if self.dup and self.rng.random() < self.dup and not self.fifo:
            self.queue.insert(self.rng.randrange(len(self.queue) + 1), (src, dst, msg))
        self.deliver(src, dst, msg)
        self.decide(dst)

    def decide(self, k: int) -> None:
        if k in self.dead or k in self.silent:
            return
        p = self.peers[k]
        for _ in range(4):
            if not p.needs_decision():
                return
            f = self.decisions.get(k)
            if f is not None:
                action = f(p.table.view(k), k, p)
            else:
                rng = Rng(dhash("bot", str(self.seed), k, p.table.phase), "bot")
                action = self.bots[k].choose(p.table.view(k), k, rng)
            self.run(k, p.act(action))

    def decide_all(self) -> None:
        for k in range(self.n):
            self.decide(k)

    def tick_all(self) -> None:
        self.now += self.tick_len
        for k in range(self.n):
            if k not in self.dead:
                self.run(k, self.peers[k].tick(self.now))
        self.decide_all()

    def round(self) -> None:
        """Deliver as many messages as were queued (in random order, new ones mixed in), then tick."""
        for _ in range(len(self.queue)):
            if not self.queue:
                break
            self.deliver_one()
        self.tick_all()

    # ---------------------------------------------------------------- running
    def live(self) -> list[int]:
        return [k for k in range(self.n) if k not in self.dead]

    def settled(self) -> bool:
        live = self.live()
        if not all(self.peers[k].table.over for k in live):
            return False
        first = self.peers[live[0]].log_entries
        return all(self.peers[k].log_entries == first for k in live)

    def run_until(self, cond: Callable[[], bool] | None = None, max_rounds: int = 5000, wall: float = WALL_LIMIT) -> int:
        cond = cond or self.settled
        t0 = time.monotonic()
        for r in range(max_rounds):
            if cond():
                return r
            if time.monotonic() - t0 > wall:
                raise AssertionError("simulation exceeded %.0f s of wall time after %d rounds" % (wall, r))
            self.round()
        if cond():
            return max_rounds
        raise AssertionError("simulation did not reach its goal in %d rounds" % max_rounds)

    def effects_of(self, seat: int, kind: type) -> list:
        return [r.eff for r in self.trace if r.seat == seat and isinstance(r.eff, kind)]

    def alerts(self, seat: int) -> list[str]:
        return [e.text for e in self.effects_of(seat, Alert)]

    def entries(self, seat: int) -> list:
        return [parse_entry(r, keys=self.keys) for r in self.peers[seat].log_entries[1:]]


def timeouts_in(entries: list) -> list[Timeout]:
    return [e for e in entries if isinstance(e, Timeout)]


def events_in(entries: list) -> list[Event]:
    return [e for e in entries if isinstance(e, Event)]


def placed_in_random_orders(sim: "Sim", entries: list, seeds, timeout: float) -> list[list[bytes]]:
    """The log a peer that holds no seat writes from ``entries`` (parsed, the genesis left out) received each
    author in its own order but the authors interleaved at random (one order per seed), the certificates
    last: one log per seed (a placement rule that depends on arrival order makes them differ)."""
    outsider = b"\x99" * 32            # a peer that holds no seat: it only places what it is given
    logs = []
    for seed in seeds:
        rng = random.Random(seed)
        per = {k: [e for e in entries if getattr(e, "author", None) == k] for k in sim.keys}
        certs = [e for e in entries if not hasattr(e, "author")]
        p = Peer(sim.genesis, outsider, lambda m: b"\0" * 64, lambda n: b"\0" * n, timeout=timeout, games=registry)
        while any(per.values()):
            k = rng.choice([k for k in per if per[k]])
            p.receive(k, encode(["entry", per[k].pop(0).raw]))
        for c in certs:
            p.receive(sim.keys[0], encode(["entry", c.raw]))
        logs.append(p.log_entries)
    return logs


def wait_for(pred: Callable[[], bool], timeout: float, interval: float = 0.02) -> bool:
    """Poll ``pred`` until it holds or ``timeout`` seconds pass (bounded)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(interval)
    return pred()


__all__ = [
    "Alert", "Broadcast", "Changed", "Disconnect", "Disk", "DetRand", "Rec", "Send", "Sim",
    "TruncateLog", "WriteLog", "WriteSecret", "WriteSpool", "entry_raws", "events_in", "free_port",
    "free_ports", "identities", "make_table", "timeouts_in", "wait_for", "encode",
]


# --------------------------------------------------------------------------- easel CLI processes (SIGKILL / resume tests)
ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent


def descendants(pid: int) -> list[int]:
    """Every descendant of ``pid`` (a command's bots; their own children too), from /proc."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            kids = [int(x) for x in Path("/proc/%d/task/%d/children" % (p, p)).read_text().split()]
        except OSError:
            kids = []
        out += kids
        todo += kids
    return out


def logs_under(home) -> list:
    """The game logs under one peer's EASEL_HOME."""
    return sorted(home.glob("games/*/log"))


def easel(*args, home=None, timeout: float = 30, **kw):
    """Run ``python -m cli ARGS`` to the end (no fault injection; EASEL_HOME if ``home``): the CompletedProcess."""
    import os
    import subprocess
    import sys

    env = dict(os.environ)
    if home is not None:
        env["EASEL_HOME"] = str(home)
    env.pop("EASEL_FAULTS", None)
    return subprocess.run([sys.executable, "-m", "cli", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, **kw)


_DEMOS: dict = {}


def finished_demo(tmp_path_factory, game: str, players: int, seed: str, timeout: float = 120):
    """``easel demo --game GAME --players N --seed SEED --json`` run once per test session (modules that
    read the same demo share it; none may change its files): (its directory, the CompletedProcess). The
    demo's peers are under DIR/o (peer-K), its JSON line is the last of stdout."""
    key = (game, players, seed)
    if key not in _DEMOS:
        out = tmp_path_factory.mktemp("demo-%s-%d-%s" % key)
        r = easel("demo", "--game", game, "--players", players, "--seed", seed, "--out", out / "o", "--json",
                  home=out / "home", timeout=timeout)
        assert r.returncode == 0, r.stdout + r.stderr
        _DEMOS[key] = (out, r)
    return _DEMOS[key]


def entries_of(data: bytes) -> list:
    """The parsed entries of a log file after its genesis."""
    from core.logfile import parse as parse_log

    return [parse_entry(raw) for raw in parse_log(data).entries[1:]]


def spawn_easel(args, home):
    """``python -m cli ARGS`` with its own EASEL_HOME, no fault injection, pipes for its output."""
    import os
    import subprocess
    import sys

    env = dict(os.environ)
    env["EASEL_HOME"] = str(home)
    env.pop("EASEL_FAULTS", None)
    return subprocess.Popen([sys.executable, "-m", "cli", *args], cwd=ROOT, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish_procs(procs, timeout: float) -> list:
    """(returncode, stdout, stderr) of each process, all within ``timeout`` seconds (the rest killed: returncode None)."""
    import subprocess

    deadline = time.monotonic() + timeout
    out = []
    for p in procs:
        try:
            so, se = p.communicate(timeout=max(0.5, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            for q in procs:
                if q.poll() is None:
                    q.kill()
            so, se = p.communicate()
            out.append((None, so.decode(errors="replace"), se.decode(errors="replace")))
            continue
        out.append((p.returncode, so.decode(errors="replace"), se.decode(errors="replace")))
    return out


class LogFollower:
    """Replays a peer's growing log file incrementally (a torn last record is simply not read yet)."""

    def __init__(self, home) -> None:
        self.home = home
        self.table = None
        self.n = 0

    def poll(self):
        from core.logfile import parse as parse_log
        from core.table import Table

        logs = logs_under(self.home)
        if not logs:
            return None
        try:
            entries = parse_log(logs[0].read_bytes()).entries
            if not entries:
                return None
            if self.table is None:
                self.table, self.n = Table.start(entries[0], registry), 1
            for raw in entries[self.n:]:
                self.table.append(raw)
                self.n += 1
        except Exception:  # a log rolled back under us: start again
            self.table, self.n = None, 0
        return self.table


def finished_identical(results, homes) -> tuple[list, list]:
    """Every CLI peer exited 0 without a traceback, its game over, and each home holds one
    log, byte-identical to the others: (log paths per home, log bytes per home)."""
    import json

    for rc, so, se in results:
        assert rc == 0, "exit %r\nstdout: %s\nstderr: %s" % (rc, so[-1000:], se[-3000:])
        assert "Traceback" not in se
        assert json.loads(so.strip().splitlines()[-1])["over"] is True
    logs = [logs_under(h) for h in homes]
    assert all(len(lg) == 1 for lg in logs)
    data = [lg[0].read_bytes() for lg in logs]
    assert all(d == data[0] for d in data)
    return logs, data


def sigkill_bot_and_resume(game: str, level: str, seed: str, homes, reached, *, what: str, reach_timeout: float,
                           finish_timeout: float, at_kill=None):
    """A 3-seat table of CLI peers (a host with ``--auto LEVEL``, two bots).  Once bot 1's log
    shows ``reached(table)``, SIGKILL it; ``at_kill(table, game_dir)`` looks at what it left;
    then ``easel resume`` it and let the game finish.  The log ends with no time-out (the seat
    was resumed, not voted out), replays to the end and audits VALID.
    Returns (the table at the kill, the final replayed table, the log bytes per home)."""
    import signal

    from core.table import replay
    from core.logfile import parse as parse_log

    port = free_ports(1)[0]
    common = ["--seed", seed, "--unsafe-seed"]
    host = spawn_easel(["host", "--game", game, "--players", "3", "--port", str(port), "--auto", level, *common,
                        "--bind", "127.0.0.1", "--no-advertise", "--timeout", "60"], homes[0])
    bots = [spawn_easel(["bot", "--join", "127.0.0.1:%d" % port, "--level", level, *common], homes[k]) for k in (1, 2)]
    procs = [host] + bots
    try:
        follow = LogFollower(homes[1])
        victim = bots[0]

        def log_size() -> int:
            logs = logs_under(homes[1])
            try:
                return logs[0].stat().st_size if logs else 0
            except OSError:
                return 0

        def gone() -> bool:
            return any(p.poll() is not None for p in procs)

        # The game must not run past the point we watch for while we look (under load the replay
        # used to fall behind and the game finished first). So once the victim's log exists it is
        # stepped: SIGSTOP, replay what its log holds and test ``reached``; if not yet, SIGCONT until
        # its log grows (an event, not a guess), SIGSTOP again. While it is stopped the others cannot
        # get past the victim's next move, and a window lets only a few entries through.
        deadline = time.monotonic() + reach_timeout
        ok = wait_for(lambda: gone() or log_size() > 0, timeout=reach_timeout, interval=0.005)
        t = None
        while ok and not gone() and time.monotonic() < deadline:
            victim.send_signal(signal.SIGSTOP)
            t = follow.poll()
            if t is not None and t.state is not None and not t.over and reached(t):
                break
            size = log_size()
            victim.send_signal(signal.SIGCONT)
            wait_for(lambda: gone() or log_size() != size, timeout=max(0.0, deadline - time.monotonic()),
                     interval=0.002)
        else:
            t = None
        reached_it = t is not None and not gone()
        assert reached_it, "bot 1 never reached %s: %r" % (what, finish_procs(procs, 1))
        victim.send_signal(signal.SIGKILL)
        victim.wait(timeout=10)
        assert victim.returncode == -signal.SIGKILL
        killed = LogFollower(homes[1]).poll()
        assert not killed.over, "the bot had already finished when it was killed"
        game_dir = logs_under(homes[1])[0].parent
        if at_kill is not None:
            at_kill(killed, game_dir)
        time.sleep(0.3)
        procs.append(spawn_easel(["resume", str(game_dir), "--level", level, *common], homes[1]))
        results = finish_procs([host, bots[1], procs[-1]], timeout=finish_timeout)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=10)
    logs, data = finished_identical(results, homes)
    ents = entries_of(data[0])
    assert len(ents) + 1 > killed.count
    assert not [e for e in ents if isinstance(e, Timeout)], "the killed seat was timed out instead of resumed"
    final = replay(parse_log(data[0]).entries, registry)
    assert final.over
    r = easel("audit", *[lg[0] for lg in logs])
    assert r.returncode == 0 and r.stdout.startswith("VALID"), r.stdout + r.stderr
    return killed, final, data


class MemTable:
    """n sans-IO peers of one game wired together in memory (deterministic keys, randomness and
    delivery order): the table the UI tests feed to a screen.  Subclasses add their game's bots."""

    GAME = "painting"

    def __init__(self, n: int = 2, config: dict | None = None, seed: int = 7) -> None:
        from collections import deque

        from nacl.signing import SigningKey

        sks = [SigningKey(bytes([seed, i + 1]) * 16) for i in range(n)]
        self.pubs = [k.verify_key.encode() for k in sks]
        doc = {"game": self.GAME, "config": config or {}, "seats": self.pubs, "table": b"t"}
        gid = game_id_of(doc)
        self.genesis = make_genesis(doc, [k.sign(genesis_sign_msg(gid)).signature for k in sks])
        rng = random.Random(seed)
        self.peers = [Peer(self.genesis, self.pubs[i], (lambda m, k=k: k.sign(m).signature), rng.randbytes)
                      for i, k in enumerate(sks)]
        self.queue = deque()
        for i, p in enumerate(self.peers):
            for j in range(n):
                if i != j:
                    self._effects(i, p.connected(self.pubs[j]))
        for i, p in enumerate(self.peers):
            self._effects(i, p.start())
        self.pump()

    def _effects(self, i: int, effects: list) -> None:
        for e in effects:
            if isinstance(e, Send):
                self.queue.append((self.pubs.index(e.to), self.pubs[i], e.msg))
            elif isinstance(e, Broadcast):
                for j in range(len(self.peers)):
                    if j != i:
                        self.queue.append((j, self.pubs[i], e.msg))

    def pump(self) -> None:
        budget = 200_000
        while self.queue and budget:
            budget -= 1
            j, frm, msg = self.queue.popleft()
            self._effects(j, self.peers[j].receive(frm, msg))

    def act(self, seat: int, action: dict) -> None:
        self._effects(seat, self.peers[seat].act(action))
        self.pump()


def audit_names(path, index: int, needle: str = "") -> list[dict]:
    """``easel audit`` of a tampered log: invalid, its first problem at entry ``index`` (containing
    ``needle``), said in the text output too, and no traceback; returns the problems at ``index``."""
    import json

    r = easel("audit", "--json", path)
    assert r.returncode == 1, r.stdout + r.stderr
    rep = json.loads(r.stdout)
    assert rep["valid"] is False and rep["complete"] is False
    probs = [p for p in rep["problems"] if "problem" in p]
    assert probs and min(p["index"] for p in probs if p["index"] is not None) == index, probs
    hits = [p for p in probs if p["index"] == index]
    assert hits and needle in hits[0]["problem"], probs
    r = easel("audit", path)
    assert r.returncode == 1 and "entry %d" % index in r.stdout and r.stdout.startswith("INVALID")
    assert "Traceback" not in r.stderr, r.stderr
    return hits


def decision_for(table, seat: int, deadline: float | None = None):
    """The ``p2p.node.Decision`` GameNode hands a UI for ``seat`` at ``table``'s open step
    (``deadline`` on the trio clock; None: the peer does not say)."""
    from p2p.node import Decision

    return Decision(view=table.view(seat), seat=seat, phase=table.phase, game=table.game, state=table.state,
                    secret=None, deadline=deadline)


async def loopback_relay(nursery) -> str:
    """An ``easel relay`` (p2p/internet.py run_relay) on 127.0.0.1, started in ``nursery``: its address."""
    from p2p import internet

    got: list[str] = []
    ev = trio.Event()

    def ready(a: str) -> None:
        got.append(a)
        ev.set()

    port = internet._free_port("127.0.0.1")
    nursery.start_soon(internet.run_relay, b"r" * 32, "127.0.0.1", port, None, ready)
    with trio.fail_after(20):
        await ev.wait()
    return got[0]
