"""The network floor under the move-latency benchmark: the same mesh with no game in it.

N OS processes (one per seat) connect as the game does (seat i dials every seat
j < i, mutual TLS 1.3 pinned to the seats' certificates: p2p.tls, frames:
p2p.framing) and then play rounds: in each round every seat signs a 200-byte
frame (Ed25519), appends it to its file and fsyncs (the game's discipline:
durable before it is sent), and sends it to every other seat; a seat opens the
next round as soon as it holds every frame of this one (as a game step opens
once its batch is placed).  A received frame is verified and appended (no
fsync: the next send fsyncs it, as in the game).  No game, no protocol state,
no timers: whatever the game's latency adds on top of this is ours.

    python benchmarks/bench_floor.py [--peers 6] [--rounds 40] [--reps 5]

prints one JSON object.  ``run_floor`` is also used by bench_latency.py, which
interleaves floor and game runs so both see the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

FRAME_BYTES = 200
SIG = 64
_HEAD = struct.Struct(">IHH")       # round, seat, 0
PAD = FRAME_BYTES - SIG - _HEAD.size


# ----------------------------------------------------------------------------- one seat
def peer_main(spec_path: str, seat: int) -> None:
    import trio
    from nacl.signing import VerifyKey

    from p2p import tls
    from p2p.framing import ConnectionClosed, FrameError, FramedStream
    from p2p.identity import Identity

    spec = json.loads(Path(spec_path).read_text())
    n, rounds = spec["peers"], spec["rounds"]
    seeds = [bytes.fromhex(s) for s in spec["seeds"]]
    me = Identity(seeds[seat])
    ids = [Identity(s) for s in seeds]
    keys = [i.public for i in ids]
    vkeys = [VerifyKey(k) for k in keys]
    certs = [tls.make_certificate(i) for i in ids]
    sctx = tls.server_context(me, certs)
    cctx = tls.client_context(me, certs)
    ports = spec["ports"]
    out = Path(spec["dir"])
    fd = os.open(out / ("seat-%d.log" % seat), os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o644)
    signed: list[tuple[int, float]] = []          # (round, t)
    got: list[tuple[int, int, float]] = []         # (round, author, t)
    pad = bytes(PAD)
    conns: dict[int, FramedStream] = {}
    have: dict[int, int] = {}                      # round -> frames held (own included)
    state = {"round": -1}

    async def run() -> None:
        all_in = trio.Event()
        done = trio.Event()

        def maybe_all() -> None:
            if len(conns) == n - 1:
                all_in.set()

        async def open_round(r: int) -> None:
            state["round"] = r
            body = _HEAD.pack(r, seat, 0) + pad
            t = time.monotonic()
            frame = body + me.sign(body)
            signed.append((r, t, time.process_time()))
            os.write(fd, frame)
            os.fsync(fd)
            have[r] = have.get(r, 0) + 1
            for s in sorted(conns):
                await conns[s].send(frame)

        async def reader(s: int, fs: FramedStream) -> None:
            while True:
                try:
                    frame = await fs.receive()
                except (ConnectionClosed, FrameError):
                    return   # a seat that finished left
                body, sig = frame[:-SIG], frame[-SIG:]
                vkeys[s].verify(body, sig)
                r, author, _ = _HEAD.unpack_from(body)
                os.write(fd, frame)
                got.append((r, author, time.monotonic()))
                have[r] = have.get(r, 0) + 1
                cur = state["round"]
                while have.get(cur, 0) == n and cur + 1 < rounds:
                    await open_round(cur + 1)
                    cur = state["round"]
                if have.get(rounds - 1, 0) == n:
                    done.set()

        async def conn(s: int, fs: FramedStream, nursery) -> None:
            conns[s] = fs
            maybe_all()
            nursery.start_soon(reader, s, fs)

        async with trio.open_nursery() as nursery:
            async def incoming(stream) -> None:
                key = tls.peer_public_key(stream)
                s = keys.index(key)
                fs = FramedStream(stream)
                conns[s] = fs
                maybe_all()
                await reader(s, fs)

            await nursery.start(tls.serve, ports[seat], sctx, incoming, "127.0.0.1")
            for s in range(seat):
                for _ in range(200):
                    try:
                        st = await tls.connect("127.0.0.1", ports[s], cctx, keys[s], timeout=5)
                        break
                    except (OSError, tls.TLSError):
                        await trio.sleep(0.05)
                else:
                    raise SystemExit("seat %d could not reach seat %d" % (seat, s))
                await conn(s, FramedStream(st), nursery)
            await all_in.wait()
            await trio.sleep(spec.get("settle", 0.3))   # every seat connected to every other
            if state["round"] < 0:
                await open_round(0)
            with trio.move_on_after(60):
                await done.wait()
            await trio.sleep(0.2)                          # the last frames reach the others
            nursery.cancel_scope.cancel()

    trio.run(run)
    os.close(fd)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    (out / ("trace-%d.json" % seat)).write_text(json.dumps({"signed": signed, "got": got, "maxrss_kb": rss}))


# ----------------------------------------------------------------------------- the mesh
def run_floor(peers: int = 6, rounds: int = 40, skip: int = 2) -> dict:
    """One floor run: per-round closing latency (the round's last frame signed -> held by
    every seat) and per-frame latency (any frame signed -> held by every other seat), ms."""
    from cli.children import free_ports   # here, not at the top: the floor's peer processes stay free of the game

    with tempfile.TemporaryDirectory() as d:
        spec = {"peers": peers, "rounds": rounds, "seeds": [os.urandom(32).hex() for _ in range(peers)],
                "ports": free_ports(peers), "dir": d}
        sp = Path(d) / "spec.json"
        sp.write_text(json.dumps(spec))
        procs = [subprocess.Popen([sys.executable, __file__, "--worker", str(sp), str(s)], cwd=ROOT,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE) for s in range(peers)]
        for p in procs:
            try:
                _, err = p.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                p.kill()
                _, err = p.communicate()
            if p.returncode != 0:
                raise SystemExit("floor peer failed: %s" % err.decode(errors="replace")[-2000:])
        traces = [json.loads((Path(d) / ("trace-%d.json" % s)).read_text()) for s in range(peers)]
    sign_t: dict[tuple, float] = {}
    held: dict[tuple, list[float]] = {}
    cpu = []   # per seat: CPU ms per round, from its round ``skip`` to its last (as the game's cpu_ms_per_step)
    for s, tr in enumerate(traces):
        for r, t, _ in tr["signed"]:
            sign_t[(r, s)] = t
        opened = [(r, c) for r, _, c in tr["signed"] if r >= skip]
        if len(opened) >= 2:
            cpu.append((opened[-1][1] - opened[0][1]) * 1000 / (opened[-1][0] - opened[0][0]))
        for r, a, t in tr["got"]:
            held.setdefault((r, a), []).append(t)
    closing, anyf = [], []
    for r in range(skip, rounds):
        frames = [(sign_t[(r, s)], s) for s in range(peers) if (r, s) in sign_t]
        lat = {}
        for t, s in frames:
            ts = held.get((r, s), [])
            if len(ts) == peers - 1:
                lat[s] = (max(ts) - t) * 1000
        if len(lat) != peers:
            continue
        anyf += lat.values()
        last = max(frames)[1]
        closing.append(lat[last])
    return {"closing": closing, "any": anyf, "maxrss_kb": [tr["maxrss_kb"] for tr in traces], "cpu_ms_per_step": cpu}


def main() -> None:
    from common import load, percentile, stats

    ap = argparse.ArgumentParser()
    ap.add_argument("--peers", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    load0 = load()
    runs = [run_floor(a.peers, a.rounds) for _ in range(a.reps)]
    print(json.dumps({
        "benchmark": "network_floor",
        "peers": a.peers,
        "rounds": a.rounds,
        "reps": a.reps,
        "closing_p50_ms": stats([percentile(r["closing"], 50) for r in runs]),
        "closing_p99_ms": stats([percentile(r["closing"], 99) for r in runs]),
        "any_p50_ms": stats([percentile(r["any"], 50) for r in runs]),
        "any_p99_ms": stats([percentile(r["any"], 99) for r in runs]),
        "peak_rss_mb_per_peer": stats([max(r["maxrss_kb"]) / 1024 for r in runs]),
        "cpu_ms_per_round_per_peer": stats([sorted(r["cpu_ms_per_step"])[len(r["cpu_ms_per_step"]) // 2] for r in runs], 3),
        "load_start": load0,
        "load_end": load(),
    }))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        peer_main(sys.argv[2], int(sys.argv[3]))
    else:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        main()
