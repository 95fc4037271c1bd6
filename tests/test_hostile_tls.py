"""Hostile seats and strangers on the wire (issue 9), over real loopback pinned TLS.

* Games: three honest GameNodes and a fourth seat, a ``WireHostileNode`` (a GameNode whose
  moves are honest but whose transport is not), play the toy game; the fourth seat stalls
  mid-frame or goes silent, reconnects in a loop and sends junk frames, or floods valid frames
  as fast as TCP takes them.  The honest peers must finish with identical logs that audit VALID
  (a time-out may only name the hostile seat), and while they play each one stays within the
  caps of protocol.md §13.1: connections held, bytes buffered per connection, bytes read from
  the hostile seat (the byte budget), what the sans-IO peer holds, log lines, disk.
* A flood of unauthenticated TCP/TLS connections (silent, half a ClientHello, garbage, a full
  handshake with an unpinned certificate, a reset), 800 held at once from 40 loopback addresses,
  three times, against a listener in its own process: its RSS (process memory, OpenSSL's
  included, not only the Python heap) comes back near its baseline.
* A seat holding authenticated connections open meets MAX_CONNS_PER_ADDR, then MAX_CONNS.

Every loop is bounded in count and time (GAME_LIMIT, ATTACK_FOR, fail_after everywhere).
"""

from __future__ import annotations

import json
import logging
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import trio

from core.audit import audit
from core.encoding import encode
from core.events import Timeout, parse_entry
from core.hashing import dhash
from core.logfile import parse as parse_log
from core.rng import Rng
from p2p import protocol as P
from p2p import tls
from p2p.framing import HEADER_SIZE, MAX_FRAME, ConnectionClosed, FramedStream
from p2p.limits import Limits
from p2p.node import SEND_QUEUE_BYTES, GameNode

from .helpers import GAMES
from .misbehave import caps, reconnect_loop, stall_mid_frame
from .netutil import free_ports

ROOT = Path(__file__).resolve().parent.parent
BAD = 3                       # the hostile seat (the highest: it dials everyone, nobody dials it)
N = 4
GAME_LIMIT = 60.0             # s of wall time per game, at most (a loaded machine takes 20 s)
ROUNDS = 12                   # of the toy game
THINK = 0.10                  # s each move "thinks"
ATTACK_FOR = 4.0              # s: the stall and reconnect attacks stop after this (then the seat plays honestly)
FLOOD_CAP = 20.0              # s: the flood stops at the latest after this (it stops once each peer's budget held it back)
# shrunk limits, so a test sees each of them fire within seconds
LIM = Limits(frame_deadline=0.5, idle_timeout=2.0, handshake_deadline=3.0,
             bytes_per_second=512 << 10, burst_bytes=1 << 20)


def rss_kb(pid: int | str = "self", field: str = "VmRSS") -> int:
    for line in Path("/proc/%s/status" % pid).read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError("no %s in /proc/%s/status" % (field, pid))


def toy_table(tmp_path, rounds: int = None):
    """(identities, genesis, roster on loopback ports, one GameStore per seat) of an N-seat toy table."""
    from core.events import game_id_of, genesis_sign_msg, make_genesis
    from p2p.identity import Identity
    from p2p.store import GameStore

    ids = [Identity.generate() for _ in range(N)]
    doc = {"game": "toy", "config": GAMES.get("toy").configure({"rounds": rounds or ROUNDS}, N), "seats": [i.public for i in ids],
           "table": os.urandom(8), "timeout": 2}
    gid = game_id_of(doc)
    genesis = make_genesis(doc, [i.sign(genesis_sign_msg(gid)) for i in ids])
    roster = {"certs": [tls.make_certificate(i) for i in ids], "addrs": [["127.0.0.1", p] for p in free_ports(N)]}
    return ids, genesis, roster, [GameStore(tmp_path / str(k)) for k in range(N)]


def toy_decider(tag: str, think: float = THINK):
    """Random guesses and targets, every bet 0 (nobody drops out: the game lasts ROUNDS rounds)."""

    async def decide(view, seat, peer):
        await trio.sleep(think)
        if view["stage"] == "bet":
            return {"bet": 0}
        return {view["stage"]: Rng(dhash("wire-bot", tag, seat, peer.table.phase), "bot").between(1, 6)}

    return decide


# --------------------------------------------------------------------------- the hostile seat
class WireHostileNode(GameNode):
    """Seat BAD: plays honest moves, misbehaves on every connection it opens (``mode``):

    * ``stall``: its first STALLS connections to each peer stop dead after a moment, alternately
      in the middle of a frame (a header announcing 1 MiB, then 1000 bytes) and between frames;
    * ``reconnect``: it drops its connections at random moments (``RECONNECTS`` times), opens and
      drops bare TLS connections in a loop, and sends junk (random bytes, an oversize header,
      a message of an unknown type), each of which gets it disconnected;
    * ``flood``: it sends big valid ``have`` frames (its real have vector padded with junk items)
      and bursts of small ones, as fast as TCP takes them, to each peer until ``flood_enough(key)``
      says that peer's byte budget held it back (an event, not a time: on a loaded machine the flood
      is slower, and a flood that stopped after a fixed time never reached the budget), FLOOD_CAP
      seconds at most.
    """

    STALLS = 3
    RECONNECTS = 30
    BARE = 15
    FLOOD_FRAME = 256 << 10

    def __init__(self, *a, mode: str, **kw) -> None:
        super().__init__(*a, **kw)
        self.mode = mode
        self.rng = random.Random(mode)
        self.opened: dict[bytes, int] = {}         # connections opened per peer key
        self.stalls: list[tuple[str, float]] = []  # (kind, seconds until the peer dropped us)
        self.reconnects = 0
        self.junk = 0
        self.flood_bytes: dict[bytes, int] = {}
        self.bare = 0
        self.t0: float | None = None
        self.flood_enough = lambda key: False      # set by the test: has this peer's budget held the flood back

    def attacking(self) -> bool:
        return self.t0 is not None and trio.current_time() - self.t0 < ATTACK_FOR

    async def _run_conn(self, key: bytes, stream: FramedStream) -> None:
        if self.t0 is None:
            self.t0 = trio.current_time()
        i = self.opened[key] = self.opened.get(key, 0) + 1
        stalled: list = []
        async with trio.open_nursery() as n:
            n.start_soon(self._attack_quietly, key, stream, i, stalled)
            try:
                await GameNode._run_conn(self, key, stream)
            finally:
                if stalled:
                    self.stalls.append((stalled[0], trio.current_time() - stalled[1]))
                n.cancel_scope.cancel()

    async def _attack_quietly(self, *args) -> None:
        try:
            await self._attack(*args)
        except (ConnectionClosed, trio.BrokenResourceError, trio.ClosedResourceError):
            pass      # the peer hung up on us: what the attack is after

    async def _attack(self, key: bytes, fs: FramedStream, i: int, stalled: list) -> None:
        if self.mode == "stall" and i <= self.STALLS and self.attacking():
            await trio.sleep(self.rng.uniform(0.1, 0.3))
            async with fs._send_lock:            # our honest sender now waits for ever
                kind = "mid-frame" if i % 2 else "idle"
                if kind == "mid-frame":
                    await stall_mid_frame(fs.stream, MAX_FRAME, 1000)
                stalled[:] = [kind, trio.current_time()]
                await trio.sleep_forever()
        elif self.mode == "reconnect" and self.reconnects < self.RECONNECTS and self.attacking():
            await trio.sleep(self.rng.uniform(0.0, 0.2))
            self.reconnects += 1
            how = self.reconnects % 4
            if how == 0:
                await trio.aclose_forcefully(fs.stream)
                return
            self.junk += 1
            if how == 1:
                await fs.send(os.urandom(self.rng.randrange(1, 300)))     # not canonical CBOR
            elif how == 2:
                async with fs._send_lock:
                    await fs.stream.send_all((MAX_FRAME + 1).to_bytes(4, "big") + b"\x00" * 64)   # oversize
            else:
                await fs.send(encode(["nonsense", self.rng.randrange(10 ** 6)]))    # unknown type
        elif self.mode == "flood":
            rng = random.Random(i)
            pad = [[rng.randbytes(32), rng.randrange(10 ** 9), rng.randbytes(8)] for _ in range(self.FLOOD_FRAME // 56)]
            made = (None, b"", b"")        # (have vector, big frame, small frame): encoded again only when it changes
            while not self.flood_enough(key) and trio.current_time() - self.t0 < FLOOD_CAP:
                have = [[k, s, b""] for k, s, _ in self.peer.have_vector()]
                if have != made[0]:
                    made = (have, encode(["have", have + pad, []]), encode(["have", have, []]))
                if rng.random() < 0.8:
                    frames = [made[1]]                                   # one big frame
                else:
                    frames = [made[2]] * 50                              # a burst of small ones
                for f in frames:
                    await fs.send(f)
                    self.flood_bytes[key] = self.flood_bytes.get(key, 0) + len(f) + HEADER_SIZE

    async def bare_loop(self) -> None:
        """Open and drop bare TLS connections to every peer (each replaces our connection there)."""
        if self.mode != "reconnect":
            return
        for seat in range(self.seat):
            host, port = self.roster["addrs"][seat]
            self.bare += await reconnect_loop(
                lambda: tls.connect(host, port, self.client_ctx, self.keys[seat], timeout=3), self.BARE, pause=0.02)


# --------------------------------------------------------------------------- one game
class Watch:
    """Samples what each honest node holds while the game runs (the peaks)."""

    def __init__(self, nodes, honest) -> None:
        self.nodes, self.honest = nodes, honest
        self.peak: dict[int, dict] = {k: {} for k in honest}
        self.rss0 = rss_kb()
        self.rss_peak = self.rss0
        self.samples = 0

    def sample(self) -> None:
        self.samples += 1
        self.rss_peak = max(self.rss_peak, rss_kb())
        for k in self.honest:
            node = self.nodes[k]
            st = node.listener_stats
            now = {
                "conns": len(node.conns),
                "open": st.open,
                "open_from_loopback": st.by_addr.get("127.0.0.1", 0),
                "open_from_one": max(st.by_addr.values(), default=0),
                "handshaking": st.handshaking,
                "queued": max((c.queued for c in node.conns.values()), default=0),
                "partial_frame": max((c.stream._decoder.buffered for c in node.conns.values()), default=0),
                "decoded_waiting": max((sum(map(len, c.stream._frames)) for c in node.conns.values()), default=0),
            }
            now.update(caps(node.peer))
            pk = self.peak[k]
            for name, v in now.items():
                pk[name] = max(pk.get(name, 0), v)

    async def run(self) -> None:
        while True:
            self.sample()
            await trio.sleep(0.05)


async def play_against(tmp_path, mode: str, caplog, routes=None, timeout: float = 1.5, lim: Limits = None,
                       rounds: int | None = None) -> dict:
    """``routes``: None (loopback TCP), or one libp2p node per seat (p2p/internet.py's Node) that seat dials and
    listens through (tls.use_route), its roster address its peer id (tests/test_internet_hostile.py); ``timeout``:
    the table's step time-out, ``lim`` the limits, ``rounds`` the toy game's (a relayed flood on a loaded machine
    delays honest frames past 1.5 s, and honest connections past the 2 s IDLE_TIMEOUT the stall mode needs, and a
    relayed step takes ~0.5 s: 12 rounds then take most of GAME_LIMIT)."""
    lim = lim or LIM
    caplog.set_level(logging.INFO)
    ids, genesis, roster, stores = toy_table(tmp_path, rounds)
    if routes is not None:
        roster["addrs"] = [[r.peer, port] for r, (_, port) in zip(routes, roster["addrs"])]
    else:
        routes = [None] * N
    honest = [k for k in range(N) if k != BAD]
    nodes = []
    for k in range(N):
        cls = WireHostileNode if k == BAD else GameNode
        kw = {"mode": mode} if k == BAD else {}
        nodes.append(cls(ids[k], genesis, roster, stores[k], toy_decider(mode), timeout=timeout, linger=3,
                         games=GAMES, limits=lim, **kw))
    bad = nodes[BAD]
    # the flood goes on to each peer until that peer's budget held it back, and it sent twice the burst there
    by_key = {ids[k].public: nodes[k] for k in honest}
    bad.flood_enough = lambda key: (by_key[key].budget_waits > 0
                                    and bad.flood_bytes.get(key, 0) >= 2 * lim.burst_bytes)
    # bytes of frames each honest node read from the hostile seat (what the byte budget lets through)
    read_from_bad = {k: 0 for k in honest}
    for k in honest:
        def counting(key, data, _k=k, _orig=nodes[k].peer.receive):
            if key == ids[BAD].public:
                read_from_bad[_k] += len(data) + HEADER_SIZE
            return _orig(key, data)
        nodes[k].peer.receive = counting
    watch = Watch(nodes, honest)
    t0 = time.monotonic()
    try:
        with trio.fail_after(GAME_LIMIT):
            async with trio.open_nursery() as outer:
                outer.start_soon(watch.run)
                async with trio.open_nursery() as n:
                    for k, node in enumerate(nodes):
                        tls.use_route(routes[k])       # the node's tasks inherit it
                        await n.start(node.run)
                    tls.use_route(None)
                    n.start_soon(bad.bare_loop)
                outer.cancel_scope.cancel()
    finally:
        for s in stores:
            s.close()
    elapsed = time.monotonic() - t0
    watch.sample()

    # ---- the honest peers finished with identical logs, and the audit is VALID
    for k in honest:
        assert nodes[k].failed is None and nodes[k].peer.table.over, (k, nodes[k].failed, nodes[k].peer.waiting())
    logs = {k: (tmp_path / str(k) / "log").read_bytes() for k in honest}
    assert len(set(logs.values())) == 1, ("the honest peers' logs differ",
                                          {k: len(parse_log(v).entries) for k, v in logs.items()})
    files = {"log%d" % k: logs[k] for k in honest}
    files.update({"spool%d" % k: (tmp_path / str(k) / "spool").read_bytes() for k in honest})
    rep = audit(files, GAMES)
    assert rep["valid"] and rep["complete"], rep["problems"]
    entries = [parse_entry(raw) for raw in parse_log(logs[honest[0]]).entries[1:]]
    timeouts = [e for e in entries if isinstance(e, Timeout)]
    assert all(set(t.seats) == {BAD} for t in timeouts), [t.seats for t in timeouts]   # only the hostile seat
    if timeouts:
        assert any("timed out seats [%d]" % BAD in str(note) for note in rep["notes"]), rep["notes"]

    # ---- each honest peer stayed within the caps while it played (protocol.md §13.1)
    vote_cap = (P.VOTES_AHEAD + P.VOTES_BEHIND + 1) * N * P.MAX_VOTES_PER_STEP_SEAT
    for k in honest:
        pk = watch.peak[k]
        assert pk["conns"] <= N - 1, pk                               # one connection per other seat
        assert pk["open_from_loopback"] <= lim.max_conns_per_addr, pk
        assert pk["open_from_one"] <= lim.max_conns_per_addr, pk      # an IP address, or a libp2p peer id
        assert pk["open"] <= lim.max_conns and pk["handshaking"] <= lim.max_handshakes_per_addr, pk
        assert pk["queued"] <= SEND_QUEUE_BYTES, pk
        assert pk["partial_frame"] <= MAX_FRAME + HEADER_SIZE, pk     # a stalled frame is at most one frame
        assert pk["decoded_waiting"] <= MAX_FRAME + (64 << 10), pk
        assert pk["votes"] <= vote_cap and pk["buffered"] <= P.MAX_BUFFERED_PER_AUTHOR, pk
        assert pk["unplaced_ahead"] <= P.MAX_SEQ_AHEAD and pk["certs_per_phase"] <= P.MAX_CERTS_PER_PHASE, pk
        assert pk["remote_keys"] <= N, pk
        st = nodes[k].listener_stats
        assert st.open == 0 and not st.by_addr and not st.hs_by_addr, vars(st)   # nothing outlives its connection
        # disk: the spool holds no more than the game's own events (the attack is not written)
        spool = parse_log((tmp_path / str(k) / "spool").read_bytes()).entries
        assert len(spool) <= 2 * len(parse_log(logs[k]).entries) + 8
        # bytes read from the hostile seat: at most the budget (a fresh burst per connection, plus the
        # frame that overdraws it) -- also in the modes that are not a flood
        conns = max(1, bad.opened.get(ids[k].public, 0) + (bad.bare if mode == "reconnect" else 0))
        allowed = conns * (lim.burst_bytes + MAX_FRAME + HEADER_SIZE) + lim.bytes_per_second * elapsed
        assert read_from_bad[k] <= allowed, (k, read_from_bad[k], allowed)
    # process memory (the three honest peers, the hostile one and pytest share this process)
    assert watch.rss_peak - watch.rss0 < 64 * 1024, (watch.rss0, watch.rss_peak)
    # log output: rate-limited, not a line per refused frame or connection
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING and r.name in ("easel.node", "p2p.tls")]
    assert len(warnings) <= 60, [r.getMessage() for r in warnings][:20]
    print("%s: %.1f s, %d time-outs of seat %d, read from it %s bytes, peaks %s, rss +%.1f MB, %d warnings, "
          "hostile: opened %s stalls %s reconnects %d junk %d bare %d flood %s" % (
              mode, elapsed, len(timeouts), BAD, read_from_bad, watch.peak[honest[0]], (watch.rss_peak - watch.rss0) / 1024,
              len(warnings), list(bad.opened.values()), [(k, round(t, 2)) for k, t in bad.stalls], bad.reconnects, bad.junk,
              bad.bare, list(bad.flood_bytes.values())))
    return {"nodes": nodes, "bad": bad, "honest": honest, "read_from_bad": read_from_bad, "elapsed": elapsed,
            "timeouts": timeouts, "watch": watch, "warnings": warnings}


async def test_a_seat_stalling_mid_frame_or_going_silent_is_dropped_and_the_game_goes_on(tmp_path, caplog):
    r = await play_against(tmp_path, "stall", caplog)
    bad = r["bad"]
    kinds = {kind for kind, _ in bad.stalls}
    assert kinds == {"mid-frame", "idle"}, bad.stalls
    for kind, secs in bad.stalls:
        if kind == "mid-frame":      # dropped after FRAME_DEADLINE (0.5 s), not held for ever
            assert secs < LIM.frame_deadline + 2.5, bad.stalls
        else:                        # dropped after IDLE_TIMEOUT (2 s)
            assert LIM.idle_timeout - 0.6 < secs < LIM.idle_timeout + 2.5, bad.stalls
    assert len(bad.stalls) >= 2 * (N - 1)
    for k in r["honest"]:
        assert r["nodes"][k]._rl.counts.get("FRAME_DEADLINE", 0) >= 2, r["nodes"][k]._rl.counts


async def test_a_seat_reconnecting_in_a_loop_and_sending_junk_cannot_stop_the_game(tmp_path, caplog):
    r = await play_against(tmp_path, "reconnect", caplog)
    bad = r["bad"]
    assert bad.reconnects >= 10 and bad.junk >= 5 and bad.bare >= 10, (bad.reconnects, bad.junk, bad.bare)
    for k in r["honest"]:
        node = r["nodes"][k]
        assert node.listener_stats.accepted >= 10, vars(node.listener_stats)
        assert node.listener_stats.peak_open <= LIM.max_conns_per_addr
    # the junk got the hostile seat disconnected (a protocol violation), once per junk frame at most
    assert sum(r["nodes"][k]._rl.counts.get("DISCONNECT", 0) for k in r["honest"]) >= 1


async def test_a_seat_flooding_frames_is_read_at_the_byte_budget_and_the_game_goes_on(tmp_path, caplog):
    r = await play_against(tmp_path, "flood", caplog)
    bad = r["bad"]
    for k in r["honest"]:
        node = r["nodes"][k]
        assert node.budget_waits > 0                       # the budget held the flood back
        # the flood really used the budget: its whole burst was read before the budget held it back
        # (the upper bound, at most the budget, is checked for every mode in play_against)
        assert r["read_from_bad"][k] > LIM.burst_bytes, r["read_from_bad"]
    assert sum(bad.flood_bytes.values()) >= 3 * 2 * LIM.burst_bytes


# --------------------------------------------------------------------------- memory after a flood of strangers
LISTENER = r"""
import json, logging, os, sys, time
sys.path.insert(0, sys.argv[1])
import trio
from p2p import tls
from p2p.identity import Identity

status, seed = sys.argv[2], bytes.fromhex(sys.argv[3])
ident, seat = Identity(seed), Identity(bytes.fromhex(sys.argv[4]))
ctx = tls.server_context(ident, [tls.make_certificate(ident), tls.make_certificate(seat)])
counts = {}

class Count(logging.Handler):
    def emit(self, rec):
        msg = rec.getMessage()
        counts["lines"] = counts.get("lines", 0) + 1
        if "(limit " in msg:
            name = msg.split("(limit ", 1)[1].split(")")[0].split(";")[0]
            counts[name] = counts.get(name, 0) + 1

logging.getLogger("p2p.tls").addHandler(Count())
logging.getLogger("p2p.tls").setLevel(logging.INFO)
logging.getLogger("p2p.tls").propagate = False

def mem(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])

async def handler(stream):
    try:
        while await stream.receive_some(4096):
            pass
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass

async def main():
    stats = tls.ListenerStats() if hasattr(tls, "ListenerStats") else None
    kw = {"stats": stats} if stats is not None else {}
    async with trio.open_nursery() as n:
        port = await n.start(lambda task_status: tls.serve(0, ctx, handler, "127.0.0.1", task_status=task_status, **kw))
        t_end = time.monotonic() + float(sys.argv[5])
        while time.monotonic() < t_end:
            st = {k: v for k, v in vars(stats).items() if not isinstance(v, dict)} if stats else {}
            if stats:
                st["addrs"] = len(stats.by_addr) + len(stats.hs_by_addr)
            doc = {"port": port, "rss_kb": mem("VmRSS"), "hwm_kb": mem("VmHWM"), "stats": st, "log": dict(counts)}
            with open(status + ".tmp", "w") as f:
                json.dump(doc, f)
            os.replace(status + ".tmp", status)
            await trio.sleep(0.05)
        n.cancel_scope.cancel()

trio.run(main)
"""

HALF_HELLO = b"\x16\x03\x01\x02\x00" + b"\x01\x00\x01\xfc\x03\x03" + b"\x42" * 29   # announces 512 bytes, sends 40
FLOOD_ADDRS = ["127.0.0.%d" % i for i in range(2, 42)]    # 40 source addresses (all of 127/8 is loopback)


class Listener:
    """The listener process: its status file, read on demand."""

    def __init__(self, tmp_path, root: Path = ROOT, life: float = 50.0) -> None:
        self.server, self.seat, self.stranger = (tls_identity(i) for i in range(3))
        self.status = tmp_path / "listener.json"
        if self.status.exists():
            self.status.unlink()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", LISTENER, str(root), str(self.status), self.server.seed.hex(), self.seat.seed.hex(), str(life)],
            cwd=str(tmp_path), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def read(self) -> dict:
        try:
            return json.loads(self.status.read_text())
        except (OSError, ValueError):
            return {}

    async def wait(self, pred, limit: float) -> dict:
        with trio.move_on_after(limit):
            while True:
                doc = self.read()
                if doc and pred(doc):
                    return doc
                assert self.proc.poll() is None, self.proc.stderr.read().decode()[-2000:]
                await trio.sleep(0.05)
        return self.read()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)


def tls_identity(i: int):
    from p2p.identity import Identity

    return Identity(dhash("hostile-tls-listener", i))


async def flood_listener(port: int, stranger, count: int, hold: float, concurrency: int = 150) -> dict:
    """``count`` connections from FLOOD_ADDRS, five kinds in turn: silent, half a ClientHello,
    garbage, a full TLS handshake with a certificate the listener does not pin, a reset at once.
    Each is held ``hold`` s (unless the listener closes it first)."""
    ctx = tls.client_context(stranger, None)
    out = {"connected": 0, "connect_failed": 0, "full_handshakes": 0}
    limit = trio.CapacityLimiter(concurrency)

    async def one(i: int) -> None:
        async with limit:
            s = trio.socket.socket()
            try:
                await s.bind((FLOOD_ADDRS[i % len(FLOOD_ADDRS)], 0))
                with trio.fail_after(3):
                    await s.connect(("127.0.0.1", port))
            except (OSError, trio.TooSlowError):
                s.close()
                out["connect_failed"] += 1
                return
            out["connected"] += 1
            stream = trio.SocketStream(s)
            kind = i % 5
            try:
                with trio.move_on_after(hold):
                    if kind == 1:
                        await stream.send_all(HALF_HELLO)
                    elif kind == 2:
                        await stream.send_all(os.urandom(200))
                    elif kind == 3:
                        ssl_stream = trio.SSLStream(stream, ctx, server_side=False)
                        await ssl_stream.do_handshake()
                        out["full_handshakes"] += 1
                        stream = ssl_stream
                    elif kind == 4:
                        s.setsockopt(trio.socket.SOL_SOCKET, trio.socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                        return
                    await trio.sleep(hold)
            except Exception:   # reset, refused, a failed handshake: all expected
                pass
            finally:
                await trio.aclose_forcefully(stream)

    with trio.fail_after(60):
        async with trio.open_nursery() as n:
            for i in range(count):
                n.start_soon(one, i)
                if i % 20 == 19:
                    await trio.sleep(0.01)
    return out


async def honest_handshakes(port: int, ident, server, times: int) -> int:
    ok = 0
    ctx = tls.client_context(ident, [tls.make_certificate(server), tls.make_certificate(ident)])
    for _ in range(times):
        with trio.move_on_after(5):
            s = await tls.connect("127.0.0.1", port, ctx, server.public, timeout=5)
            await s.send_all(b"x")
            ok += 1
            await trio.aclose_forcefully(s)
    return ok


# 3 rounds of 800 connections held at once (1 s each).  Measured on the 2-core test machine: the
# listener before the fix (3cb26b0^) grew by 41-43 MB and stayed there, this one grows by 5-6 MB.
FLOOD_ROUNDS, FLOOD_PER_ROUND = 3, 800
RSS_BOUND_KB = 20 * 1024


async def test_a_flood_of_strangers_leaves_the_listener_process_memory_near_its_baseline(tmp_path):
    lst = Listener(tmp_path)
    try:
        doc = await lst.wait(lambda d: "port" in d, 20)
        port = doc["port"]
        # warm up what every TLS server allocates once (OpenSSL tables, the first handshakes)
        assert await honest_handshakes(port, lst.seat, lst.server, 10) == 10
        await trio.sleep(0.5)
        base = (await lst.wait(lambda d: d["stats"].get("open") == 0, 10))["rss_kb"]
        flood = {}
        for rnd in range(FLOOD_ROUNDS):
            got = await flood_listener(port, lst.stranger, FLOOD_PER_ROUND, hold=1.0, concurrency=FLOOD_PER_ROUND)
            flood = {k: flood.get(k, 0) + v for k, v in got.items()}
        during = lst.read()
        after = await lst.wait(lambda d: d["stats"].get("open") == 0 and d["stats"].get("handshaking") == 0, 15)
        await trio.sleep(0.5)
        after = lst.read()
        # an honest seat still gets in after the flood
        assert await honest_handshakes(port, lst.seat, lst.server, 3) == 3
    finally:
        lst.close()
    st = after["stats"]
    print("listener flood: rss base %.1f MB, peak %.1f MB, after %.1f MB; %s; flood %s; log %s" % (
        base / 1024, after["hwm_kb"] / 1024, after["rss_kb"] / 1024, st, flood, after["log"]))
    assert flood["connected"] >= 2000, flood
    assert st["accepted"] >= 2000 and st["refused"] >= 1000 and st["failed"] >= 50, st
    assert st["peak_handshaking"] <= 32 and st["peak_open"] <= 128, st      # MAX_HANDSHAKES, MAX_CONNS
    assert st["open"] == 0 and st["handshaking"] == 0 and st["addrs"] == 0, st
    assert after["log"].get("MAX_HANDSHAKES_PER_ADDR", 0) + after["log"].get("MAX_HANDSHAKES", 0) >= 1, after["log"]
    assert after["log"].get("lines", 0) <= 120, after["log"]     # rate-limited: not a line per connection
    # process memory (VmRSS: OpenSSL's too), not only the Python heap: the old listener held an
    # SSL object per connection and stayed at 202 MB after 3000 of them
    assert after["rss_kb"] - base < RSS_BOUND_KB, (base, after["rss_kb"], during.get("rss_kb"))


# --------------------------------------------------------------------------- MAX_CONNS_PER_ADDR and MAX_CONNS
async def test_established_connections_over_the_per_address_and_total_caps_are_closed_before_tls(nursery, caplog):
    """A seat (a pinned key) holding connections open: the listener keeps at most
    MAX_CONNS_PER_ADDR of them per address and MAX_CONNS in all, and closes the next at once."""
    server, seat = tls_identity(0), tls_identity(1)
    certs = [tls.make_certificate(server), tls.make_certificate(seat)]
    lim = Limits(max_conns=12, max_conns_per_addr=5)
    stats = tls.ListenerStats()
    release = trio.Event()

    async def handler(stream):
        await release.wait()          # hold every authenticated connection until the end

    caplog.set_level(logging.INFO, logger="p2p.tls")
    port = await nursery.start(lambda task_status: tls.serve(0, tls.server_context(server, certs), handler, "127.0.0.1",
                                                             task_status=task_status, limits=lim, stats=stats))
    ctx = tls.client_context(seat, certs)
    held, outcome = [], []

    async def dial(src: str) -> bool:
        s = trio.socket.socket()
        await s.bind((src, 0))
        await s.connect(("127.0.0.1", port))
        stream = trio.SSLStream(trio.SocketStream(s), ctx, server_side=False)
        try:
            await stream.do_handshake()
            await stream.send_all(b"x")
            with trio.move_on_after(0.2):       # a refused connection was closed before TLS
                await stream.receive_some(1)
                raise trio.BrokenResourceError("closed by the listener")
        except (trio.BrokenResourceError, OSError):
            await trio.aclose_forcefully(stream)
            return False
        held.append(stream)
        return True

    with trio.fail_after(30):
        for src in ["127.0.0.1"] * 8 + ["127.0.0.2"] * 6 + ["127.0.0.3"] * 4:
            outcome.append((src, await dial(src)))
        assert stats.open == 12 and stats.by_addr == {"127.0.0.1": 5, "127.0.0.2": 5, "127.0.0.3": 2}, vars(stats)
        assert stats.refused == 6 and stats.peak_open == 12, vars(stats)
        release.set()
        for s in held:
            await trio.aclose_forcefully(s)
        while stats.open:
            await trio.sleep(0.05)
    assert [ok for _, ok in outcome] == [True] * 5 + [False] * 3 + [True] * 5 + [False] + [True] * 2 + [False] * 2, outcome
    assert not stats.by_addr and not stats.hs_by_addr
    text = " ".join(r.getMessage() for r in caplog.records if r.name == "p2p.tls")
    assert "(limit MAX_CONNS_PER_ADDR" in text, text
    assert "(limit MAX_CONNS)" in text or "(limit MAX_CONNS;" in text, text
