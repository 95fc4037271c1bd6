"""A connection flood against a seat in play, on loopback only, bounded in count and time.

Each repetition:
  * two peers, each its own OS process running a GameNode, play a long game (the tests' toy dice
    game, 1000 rounds, everybody always bets 0 so nobody drops out; each move "thinks" --think-ms);
  * after --warmup seconds, a third process floods seat 0's game port (the port any stranger on the
    LAN can reach) for --seconds: a tight loop of TCP connects, one in three closed at once with a
    reset, one in three held open silent, one in three held open after half a TLS ClientHello (a
    record header announcing 512 bytes, then 40 of them); at most --max-held held at once (the oldest
    is dropped to make room);
  * measured: connection attempts per second as the flooder saw them (connected, refused, timed
    out, closed by the host while held); what the victim's listener did with them, from its own
    ``ListenerStats`` (each peer writes them, with its VmRSS/VmHWM, to host-stats-SEAT.json every
    STATS_EVERY s): connections accepted, refused at once (over MAX_CONNS / MAX_HANDSHAKES / ...)
    and handshakes failed or timed out, per second of flood, and its peak handshakes and
    connections in progress; the longest accept queue of its listening socket (/proc/net/tcp:
    connections the kernel completed that the host had not accepted yet); the victim's RSS before,
    at its peak during and --settle seconds after the flood (VmRSS from /proc/PID/status, process
    memory: OpenSSL's included), the lines its log gained during the flood, and a move's latency
    (signed by one seat -> applied at both) before and during the flood, with the moves completed
    per second.
Prints one JSON object: per-metric median/min/max and the raw per-repetition lists.

    python benchmarks/bench_flood.py [--reps 5] [--seconds 3] [--max-held 2000]
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import resource
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HOST = "127.0.0.1"
START_WAIT = 20.0          # seconds for the two peers to start playing
STATS_EVERY = 0.1          # s between two writes of a peer's listener statistics
PAUSE_AFTER_REP = 0.5
HALF_HELLO = b"\x16\x03\x01\x02\x00" + b"\x01\x00\x01\xfc\x03\x03" + b"\x42" * 29   # announces 512 bytes, sends 40


# ----------------------------------------------------------------------------- helpers
def median(xs):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def summary(xs) -> dict:
    vals = [x for x in xs if x is not None]
    r = lambda v: None if v is None else round(v, 3)  # noqa: E731
    return {"median": r(median(vals)), "min": r(min(vals)) if vals else None, "max": r(max(vals)) if vals else None,
            "raw": [r(x) for x in xs]}


def accept_queue(port: int) -> int | None:
    """Connections waiting in the accept queue of the socket listening on ``port`` (loopback, IPv4)."""
    try:
        with open("/proc/net/tcp") as f:
            next(f)
            for line in f:
                parts = line.split()
                if parts[3] == "0A" and int(parts[1].rsplit(":", 1)[1], 16) == port:   # 0A: LISTEN
                    return int(parts[4].split(":")[1], 16)                              # rx_queue
    except (OSError, ValueError, IndexError, StopIteration):
        return None
    return None


def read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def rss_mb(pid: int, field: str = "VmRSS") -> float | None:
    try:
        for line in Path("/proc/%d/status" % pid).read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    except (OSError, ValueError, IndexError):
        return None
    return None


# ----------------------------------------------------------------------------- a peer (child process)
def run_node(config_path: str, seat: int) -> None:
    import logging

    import trio

    from core.events import parse_genesis
    from core.rng import Rng
    from core.hashing import dhash
    from p2p.identity import Identity
    from p2p.node import GameNode
    from p2p.store import GameStore
    from tests.toy_game import TOY_REGISTRY

    cfg = json.loads(Path(config_path).read_text())
    base = Path(cfg["dir"])
    logging.basicConfig(level=logging.WARNING, filename=str(base / ("node-%d.log" % seat)),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    ident = Identity(bytes.fromhex(cfg["seeds"][seat]))
    genesis = parse_genesis(bytes.fromhex(cfg["genesis"]))
    roster = {"certs": [bytes.fromhex(c) for c in cfg["certs"]], "addrs": cfg["addrs"]}
    store = GameStore(base / ("seat-%d" % seat))
    think = cfg["think_ms"] / 1000.0

    async def decide(view, s, peer):
        await trio.sleep(think)
        if view["stage"] == "bet":
            return {"bet": 0}        # nobody ever runs out of chips: the game lasts
        rng = Rng(dhash("bench", s, peer.table.phase), "bot")
        return {view["stage"]: rng.between(1, 6)}

    node = GameNode(ident, genesis, roster, store, decide, timeout=60, games=TOY_REGISTRY, linger=1)
    stats_path = base / ("host-stats-%d.json" % seat)

    def report() -> None:
        # the listener's own counters (the flooder cannot see what the host refused), and our memory
        st = node.listener_stats
        doc = {"t": time.monotonic(), "rss_mb": rss_mb(os.getpid()), "hwm_mb": rss_mb(os.getpid(), "VmHWM"),
               "listener": {k: v for k, v in vars(st).items() if isinstance(v, int)},
               "addrs_held": len(st.by_addr) + len(st.hs_by_addr), "budget_waits": node.budget_waits}
        tmp = stats_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(doc))
        os.replace(tmp, stats_path)

    async def main() -> None:
        async def reporter() -> None:
            while True:
                report()
                await trio.sleep(STATS_EVERY)

        async with trio.open_nursery() as n:
            n.start_soon(reporter)
            await node.run()
            n.cancel_scope.cancel()
        report()

    try:
        trio.run(main)
    finally:
        store.close()


# ----------------------------------------------------------------------------- the flood (child process)
def flood(host: str, port: int, seconds: float, max_held: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, max_held + 256))
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    counts = {"attempts": 0, "connected": 0, "refused": 0, "timed_out": 0, "other_errors": 0,
              "reset_at_once": 0, "held_silent": 0, "held_half_hello": 0, "closed_by_host": 0, "dropped_oldest": 0}
    held: dict[int, socket.socket] = {}
    order: list[int] = []
    poller = select.poll()
    peak = 0

    def forget(fd: int) -> None:
        s = held.pop(fd, None)
        if s is not None:
            try:
                poller.unregister(fd)
            except (KeyError, ValueError):
                pass
            s.close()

    def reap() -> None:
        for fd, ev in poller.poll(0):
            s = held.get(fd)
            if s is None:
                continue
            closed = bool(ev & (select.POLLHUP | select.POLLERR))
            if not closed and ev & select.POLLIN:
                try:
                    closed = s.recv(4096, socket.MSG_DONTWAIT) == b""
                except BlockingIOError:
                    pass
                except OSError:
                    closed = True
            if closed:
                counts["closed_by_host"] += 1
                forget(fd)

    t0 = time.monotonic()
    last_reap = t0
    i = 0
    while time.monotonic() - t0 < seconds:
        i += 1
        counts["attempts"] += 1
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(0.2)
        try:
            s.connect((host, port))
        except ConnectionRefusedError:
            counts["refused"] += 1
            s.close()
            continue
        except (socket.timeout, TimeoutError):
            counts["timed_out"] += 1
            s.close()
            continue
        except OSError as exc:
            counts["other_errors"] += 1
            s.close()
            if exc.errno in (errno.EMFILE, errno.ENFILE, errno.EADDRNOTAVAIL):
                time.sleep(0.01)
            continue
        counts["connected"] += 1
        kind = i % 3
        if kind == 0:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            s.close()
            counts["reset_at_once"] += 1
        else:
            try:
                if kind == 2:
                    s.sendall(HALF_HELLO)
            except OSError:
                counts["closed_by_host"] += 1
                s.close()
                continue
            counts["held_half_hello" if kind == 2 else "held_silent"] += 1
            s.setblocking(False)
            fd = s.fileno()
            held[fd] = s
            order.append(fd)
            poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
            while len(held) > max_held and order:
                old = order.pop(0)
                if old in held:
                    counts["dropped_oldest"] += 1
                    forget(old)
            peak = max(peak, len(held))
        now = time.monotonic()
        if now - last_reap > 0.25:
            reap()
            order = [fd for fd in order if fd in held]
            last_reap = now
    reap()
    elapsed = time.monotonic() - t0
    still_open = len(held)
    for fd in list(held):
        forget(fd)
    out = dict(counts)
    out.update({"seconds": round(elapsed, 3), "held_peak": peak, "still_open_at_end": still_open})
    for k in ("attempts", "connected", "refused", "timed_out", "closed_by_host"):
        out[k + "_per_s"] = round(counts[k] / elapsed, 1) if elapsed > 0 else None
    print(json.dumps(out, sort_keys=True))


# ----------------------------------------------------------------------------- one repetition
def make_config(d: Path, think_ms: int) -> dict:
    from core.events import game_id_of, genesis_sign_msg, make_genesis
    from p2p import tls
    from p2p.identity import Identity
    from tests.toy_game import TOY

    seeds = [os.urandom(32) for _ in range(2)]
    ids = [Identity(s) for s in seeds]
    doc = {"game": "toy", "config": TOY.configure({"rounds": 1000}, 2), "seats": [i.public for i in ids],
           "table": os.urandom(8), "timeout": 60}
    gid = game_id_of(doc)
    genesis = make_genesis(doc, [i.sign(genesis_sign_msg(gid)) for i in ids])
    from cli.children import free_ports

    ports = free_ports(2, HOST)
    return {"dir": str(d), "seeds": [s.hex() for s in seeds], "genesis": genesis.raw.hex(),
            "certs": [tls.make_certificate(i).hex() for i in ids], "addrs": [[HOST, p] for p in ports],
            "think_ms": think_ms}


def read_trace(trace: Path) -> tuple[dict, dict]:
    signed: dict[str, float] = {}
    applied: dict[str, list[float]] = {}
    for f in trace.glob("seat-*.jsonl"):
        for line in f.read_text().splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue   # a line cut when the process was stopped
            if rec["k"] == "sign":
                signed[rec["e"][0]] = rec["t"]
            else:
                for e in rec["e"]:
                    applied.setdefault(e, []).append(rec["t"])
    return signed, applied


def latencies(signed: dict, applied: dict, t0: float, t1: float) -> list[float]:
    out = []
    for e, ts in signed.items():
        if t0 <= ts < t1 and len(applied.get(e, ())) == 2:
            out.append((max(applied[e]) - ts) * 1000)
    return out


def log_lines(path: Path) -> int:
    try:
        with open(path, "rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


def one_rep(args) -> dict:
    with tempfile.TemporaryDirectory(prefix="easel-flood-") as tmp:
        d = Path(tmp)
        cfg = make_config(d, args.think_ms)
        (d / "config.json").write_text(json.dumps(cfg))
        env = dict(os.environ, EASEL_TRACE=str(d / "trace"))
        env.pop("EASEL_FAULTS", None)
        nodes = [subprocess.Popen([sys.executable, __file__, "--node", str(d / "config.json"), str(k)], cwd=ROOT, env=env,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for k in (0, 1)]
        flooder = None
        try:
            victim = nodes[0].pid
            deadline = time.monotonic() + START_WAIT
            while time.monotonic() < deadline:
                s, a = read_trace(d / "trace")
                if len(latencies(s, a, 0, float("inf"))) >= 4:
                    break
                if any(p.poll() is not None for p in nodes):
                    raise SystemExit("a peer died: %s" % b"".join(p.stderr.read() for p in nodes if p.poll() is not None).decode()[-2000:])
                time.sleep(0.05)
            else:
                raise SystemExit("the two peers did not start playing within %.0f s" % START_WAIT)
            time.sleep(args.warmup)
            rss_before = rss_mb(victim)
            lines_before = log_lines(d / "node-0.log")
            host_path = d / "host-stats-0.json"
            host_before = read_json(host_path)
            port = cfg["addrs"][0][1]
            queue_peak = accept_queue(port) or 0
            t_start = time.monotonic()
            flooder = subprocess.Popen([sys.executable, __file__, "--flood", HOST, str(cfg["addrs"][0][1]), str(args.seconds),
                                        str(args.max_held)], cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE)
            peak = rss_before or 0.0
            limit = time.monotonic() + args.seconds + 15
            while flooder.poll() is None and time.monotonic() < limit:
                r = rss_mb(victim)
                if r is not None:
                    peak = max(peak, r)
                q = accept_queue(port)
                if q is not None:
                    queue_peak = max(queue_peak, q)
                time.sleep(0.05)
            if flooder.poll() is None:
                flooder.kill()
            so, se = flooder.communicate(timeout=10)
            t_end = time.monotonic()
            time.sleep(2 * STATS_EVERY)
            host_end = read_json(host_path)
            fl = json.loads(so.decode().strip().splitlines()[-1]) if so.strip() else {"error": se.decode()[-500:]}
            lines_during = log_lines(d / "node-0.log") - lines_before
            # after the flood: does the memory come back down?
            settle_end = time.monotonic() + args.settle
            while time.monotonic() < settle_end:
                r = rss_mb(victim)
                if r is not None:
                    peak = max(peak, r)
                time.sleep(0.05)
            rss_after = rss_mb(victim)
            host_after = read_json(host_path)
            alive = nodes[0].poll() is None
            t_after = time.monotonic()
        finally:
            for p in nodes + ([flooder] if flooder else []):
                if p.poll() is None:
                    p.send_signal(signal.SIGKILL)
            for p in nodes + ([flooder] if flooder else []):
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    pass
        signed, applied = read_trace(d / "trace")
        before = latencies(signed, applied, t_start - args.warmup, t_start)
        during = latencies(signed, applied, t_start, t_end)
        after = latencies(signed, applied, t_end, t_after)
        secs = fl.get("seconds") or max(t_end - t_start, 1e-3)

        def listener(a: dict, b: dict, rates: bool) -> dict:
            la, lb = a.get("listener") or {}, b.get("listener") or {}
            out = {k: lb.get(k, 0) - la.get(k, 0) for k in ("accepted", "refused", "failed")}
            if rates:
                out.update({k + "_per_s": round(out[k] / secs, 1) for k in ("accepted", "refused", "failed")})
            return out

        host = {
            "during_flood": listener(host_before, host_end, True),     # until the flooder exited, per s of flood
            # + the --settle seconds after: the host still accepts what the kernel queued (the accept queue)
            "with_settle": listener(host_before, host_after, False),
            "peak_handshaking": (host_after.get("listener") or {}).get("peak_handshaking"),
            "peak_open": (host_after.get("listener") or {}).get("peak_open"),
            "open_after": (host_after.get("listener") or {}).get("open"),
            "addrs_held_after": host_after.get("addrs_held"),
            "accept_queue_peak": queue_peak,
            "hwm_mb": host_after.get("hwm_mb"),
        }
        return {
            "flood": fl,
            "host": host,
            "rss_mb": {"before": rss_before, "peak": peak, "after": rss_after},
            "victim_alive_after": alive,
            "victim_log_lines_during_flood": lines_during,
            "moves": {"before_per_s": round(len(before) / args.warmup, 2), "during_per_s": round(len(during) / max(t_end - t_start, 1e-3), 2),
                      "after_per_s": round(len(after) / max(t_after - t_end, 1e-3), 2)},
            "latency_ms": {"before_median": median(before), "during_median": median(during), "during_max": max(during) if during else None,
                           "during_count": len(during), "after_median": median(after)},
        }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=3.0, help="flood length (0.5..30)")
    ap.add_argument("--max-held", type=int, default=2000, help="connections held open at once (1..10000)")
    ap.add_argument("--think-ms", type=int, default=20, help="each move's thinking time in ms")
    ap.add_argument("--warmup", type=float, default=1.5)
    ap.add_argument("--settle", type=float, default=3.0, help="seconds after the flood before 'after' memory")
    ap.add_argument("--node", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--flood", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.node:
        return run_node(args.node[0], int(args.node[1]))
    if args.flood:
        h, p, sec, mh = args.flood
        return flood(h, int(p), float(sec), int(mh))
    if not 1 <= args.reps <= 20 or not 0.5 <= args.seconds <= 30 or not 1 <= args.max_held <= 10000:
        ap.error("--reps 1..20, --seconds 0.5..30, --max-held 1..10000")
    t0 = time.monotonic()
    reps = []
    for _ in range(args.reps):
        reps.append(one_rep(args))
        time.sleep(PAUSE_AFTER_REP)

    def col(f):
        return [f(r) for r in reps]

    out = {
        "benchmark": "flood",
        "setup": {"reps": args.reps, "flood_seconds": args.seconds, "max_held": args.max_held, "think_ms": args.think_ms,
                  "warmup_s": args.warmup, "settle_s": args.settle, "target": "seat 0's game port (TLS, pinned seat keys), loopback",
                  "cpus": os.cpu_count()},
        # as the flooder saw them
        "attempts_per_s": summary(col(lambda r: r["flood"].get("attempts_per_s"))),
        "connected_per_s": summary(col(lambda r: r["flood"].get("connected_per_s"))),
        "flooder_econnrefused_per_s": summary(col(lambda r: r["flood"].get("refused_per_s"))),
        "timed_out_per_s": summary(col(lambda r: r["flood"].get("timed_out_per_s"))),
        "flooder_saw_closed_per_s": summary(col(lambda r: r["flood"].get("closed_by_host_per_s"))),
        "held_peak": summary(col(lambda r: r["flood"].get("held_peak"))),
        "still_open_at_end": summary(col(lambda r: r["flood"].get("still_open_at_end"))),
        # what the host's listener did (its ListenerStats), per second of flood
        "host_accepted_per_s": summary(col(lambda r: r["host"]["during_flood"]["accepted_per_s"])),
        "refused_per_s": summary(col(lambda r: r["host"]["during_flood"]["refused_per_s"])),
        "host_failed_handshakes_per_s": summary(col(lambda r: r["host"]["during_flood"]["failed_per_s"])),
        "host_refused_total": summary(col(lambda r: r["host"]["with_settle"]["refused"])),
        "host_failed_total": summary(col(lambda r: r["host"]["with_settle"]["failed"])),
        "host_peak_handshaking": summary(col(lambda r: r["host"]["peak_handshaking"])),
        "host_peak_open": summary(col(lambda r: r["host"]["peak_open"])),
        "host_open_after": summary(col(lambda r: r["host"]["open_after"])),
        "host_accept_queue_peak": summary(col(lambda r: r["host"]["accept_queue_peak"])),
        "host_hwm_mb": summary(col(lambda r: r["host"]["hwm_mb"])),
        "rss_before_mb": summary(col(lambda r: r["rss_mb"]["before"])),
        "rss_peak_mb": summary(col(lambda r: r["rss_mb"]["peak"])),
        "rss_after_mb": summary(col(lambda r: r["rss_mb"]["after"])),
        "victim_log_lines_during_flood": summary(col(lambda r: r["victim_log_lines_during_flood"])),
        "move_latency_before_ms": summary(col(lambda r: r["latency_ms"]["before_median"])),
        "move_latency_during_ms": summary(col(lambda r: r["latency_ms"]["during_median"])),
        "move_latency_during_max_ms": summary(col(lambda r: r["latency_ms"]["during_max"])),
        "moves_per_s_before": summary(col(lambda r: r["moves"]["before_per_s"])),
        "moves_per_s_during": summary(col(lambda r: r["moves"]["during_per_s"])),
        "moves_per_s_after": summary(col(lambda r: r["moves"]["after_per_s"])),
        "victim_alive_after": col(lambda r: r["victim_alive_after"]),
        "raw": reps,
        "seconds": round(time.monotonic() - t0, 1),
    }
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
