"""Move latency on loopback TLS, one OS process per seat, against the network floor measured
in the same run.

A game: ``easel demo`` (Painting by default, every seat a bot of LEVEL) with EASEL_TRACE set:
every peer records when it signs an event and when it places entries in its log (p2p/node.py, p2p/trace.py).

* step-closing event: per step, the last event signed; signing -> placed in the log at every
  peer.  The pure propagation + processing time of one move.
* any event: every event of a step, signing -> placed at every peer.  An event of a
  simultaneous step also waits for the slower seats to sign theirs: what a player feels.
* the opening (the shared seed's commit and reveal, every game's first two steps) overlaps the
  peers dialling each other: reported apart ("opening_ms"), as the floor leaves out its first
  two rounds.  "any_event_ms_every_step_but_the_first" keeps the older definition.
* sign spread: per step, its first signature to its last; an early event waits that long
  before its step can close (any event ~ spread + closing).
* CPU per step per peer (user + system, after the opening; the floor's per round): six peers on
  two cores cannot close a step faster than six times that over two.
* peak memory per peer: ru_maxrss of each peer process (the largest of the table's peers).

The floor (benchmarks/bench_floor.py): the same mesh (same processes, TLS, framing, fsync
before send) passing signed 200-byte frames in rounds, with no game and no protocol.  Floor
and game runs alternate (floor, game, floor, game, ...) so both meet the same machine.

    python benchmarks/bench_latency.py [LEVEL] [--seats 2,4,6,8] [--reps 5] [--game painting] [--option rounds=20]

prints one JSON object per seat count ("move_latency"), then, with several seat counts, one
object with the curve ("latency_curve").  Every figure: median, min, max and the raw list of
the repetitions (each repetition: one game and one floor run); "pooled" percentiles are over
every step of every repetition.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_floor import run_floor  # noqa: E402
from common import load, percentile, stats  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CORES = os.cpu_count() or 1
DEMO_TIMEOUT = 180   # s for one demo game (a healthy 8-seat game takes under 10 s)
# the opening: the shared seed's commit and reveal, the first two steps of every game (protocol.md
# §6.1).  Its events are signed while the peers are still dialling each other, so the reveal step
# opens at the last-connected peer tens of ms after the first: reported apart, as the floor
# leaves out its first two rounds (bench_floor.run_floor's ``skip``)
OPENING = 2


def run_game(players: int, seed: str, level: str, game: str = "painting", options: tuple = ()) -> dict:
    """One demo game; {closing: [ms per step], any: [ms per event], opening: ms, maxrss_kb: [per peer]}."""
    with tempfile.TemporaryDirectory() as d:
        trace = Path(d) / "trace"
        env = dict(os.environ, EASEL_TRACE=str(trace))
        # its own session: a demo that stalls is stopped with every peer it started
        proc = subprocess.Popen(
            [sys.executable, "-m", "cli", "demo", "--game", game, "--players", str(players), "--seed", seed,
             "--out", str(Path(d) / "out"), "--json", "--level", level] + [x for o in options for x in ("--option", o)],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        )
        try:
            _, err = proc.communicate(timeout=DEMO_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise SystemExit("demo (%d seats, seed %s) did not finish in %d s: stopped" % (players, seed, DEMO_TIMEOUT)) from None
        if proc.returncode != 0:
            raise SystemExit("demo failed: %s" % err[-2000:])
        signed: dict[str, float] = {}
        applied: dict[str, list[float]] = {}
        batches: dict[tuple, None] = {}
        rss: list[int] = []
        cpu_at: dict[int, list] = {}    # seat -> [(entries placed, CPU seconds then)] in order
        for f in sorted(trace.glob("seat-*.jsonl")):
            seat = int(f.stem.split("-")[1])
            for line in f.read_text().splitlines():
                rec = json.loads(line)
                if rec["k"] == "sign":
                    signed[rec["e"][0]] = rec["t"]
                elif rec["k"] == "apply":
                    batches[tuple(rec["e"])] = None
                    for e in rec["e"]:
                        applied.setdefault(e, []).append(rec["t"])
                    cpu_at.setdefault(seat, []).append((rec["e"], rec["c"]))
                elif rec["k"] == "mem" and rec.get("maxrss_kb"):
                    rss.append(rec["maxrss_kb"])
    steps = []
    for evs in batches:
        evs = [e for e in evs if e in signed and len(applied[e]) == players]
        if evs:
            lats = [(max(applied[e]) - signed[e]) * 1000 for e in evs]
            last = max(evs, key=lambda e: signed[e])
            spread = (signed[last] - min(signed[e] for e in evs)) * 1000
            steps.append((signed[last], (max(applied[last]) - signed[last]) * 1000, lats, spread, evs))
    steps.sort(key=lambda s: s[0])
    if len(steps) < OPENING + 2:
        raise SystemExit("the demo's trace holds %d steps: nothing to measure" % len(steps))
    # CPU a peer spends per step after the opening: from placing the opening's last step to its last placement
    opened = set(steps[OPENING - 1][4])
    cpu = []
    for seat, recs in cpu_at.items():
        k = next((i for i, (es, _) in enumerate(recs) if opened & set(es)), None)
        if k is not None and len(steps) > OPENING:
            cpu.append((recs[-1][1] - recs[k][1]) * 1000 / (len(steps) - OPENING))
    body = steps[OPENING:]
    return {"closing": [s[1] for s in body], "any": [x for s in body for x in s[2]], "spread": [s[3] for s in body],
            "opening": [s[1] for s in steps[:OPENING]], "opening_any": [x for s in steps[:OPENING] for x in s[2]],
            "any_after_first": [x for s in steps[1:] for x in s[2]],
            "maxrss_kb": rss, "cpu_ms_per_step": cpu}


def _r(x, d: int = 2):
    return None if x is None else round(x, d)


def measure(players: int, level: str, reps: int, game: str, floor_rounds: int, options: tuple = ()) -> dict:
    load_start = load()
    games, floors = [], []
    for i in range(reps):
        floors.append(run_floor(players, floor_rounds))
        games.append(run_game(players, "lat%d" % i, level, game, options))
    load_end = load()

    def per_run(runs, key, p):
        return stats([percentile(r[key], p) for r in runs], 2)

    def pooled(runs, key):
        xs = [x for r in runs for x in r[key]]
        return {"p50": _r(percentile(xs, 50)), "p90": _r(percentile(xs, 90)), "p99": _r(percentile(xs, 99)),
                "max": _r(max(xs)), "n": len(xs)}

    g_close, g_any = pooled(games, "closing"), pooled(games, "any")
    f_close, f_any = pooled(floors, "closing"), pooled(floors, "any")
    floor_p99 = f_close["p99"]
    ratios_close = [percentile(g["closing"], 99) / percentile(f["closing"], 99) for g, f in zip(games, floors)]
    ratios_any = [percentile(g["any"], 99) / percentile(f["closing"], 99) for g, f in zip(games, floors)]
    out = {
        "benchmark": "move_latency",
        "game": game,
        "peers": players,
        "bots": level,
        "reps": reps,
        "step_closing_event_ms": {"pooled": g_close, "p50_per_run": per_run(games, "closing", 50),
                                  "p99_per_run": per_run(games, "closing", 99)},
        "any_event_ms": {"pooled": g_any, "p50_per_run": per_run(games, "any", 50),
                         "p99_per_run": per_run(games, "any", 99)},
        "sign_spread_ms": {"pooled": pooled(games, "spread"), "p99_per_run": per_run(games, "spread", 99),
                           "what": "per step, its first signature to its last: what an early event waits for before its step can close"},
        "opening_step_ms": stats([g["opening"][0] for g in games], 2),
        "opening_ms": {"closing": pooled(games, "opening"), "any": pooled(games, "opening_any")},
        "any_event_ms_every_step_but_the_first": {"pooled": pooled(games, "any_after_first"),
                                                 "what": "the definition before 2026-11-25 (the seed's reveal step counted)"},
        "cpu_ms_per_step_per_peer": {"game": stats([statistics.median(g["cpu_ms_per_step"]) for g in games], 3),
                                     "floor": stats([statistics.median(f["cpu_ms_per_step"]) for f in floors], 3),
                                     "ratio": stats([statistics.median(g["cpu_ms_per_step"]) / statistics.median(f["cpu_ms_per_step"])
                                                     for g, f in zip(games, floors)], 2),
                                     "cpu_ms_per_step_all_peers_over_cores": stats([statistics.median(g["cpu_ms_per_step"]) * players / CORES
                                                                                   for g in games], 2),
                                     "what": "CPU time (user + system) a peer process spends per step after the opening "
                                             "(median over the peers of a run); floor: per round"},
        "peak_rss_mb_per_peer": stats([max(g["maxrss_kb"]) / 1024 for g in games], 1) if all(g["maxrss_kb"] for g in games) else None,
        "floor": {
            "rounds_per_run": floor_rounds,
            "closing_ms": {"pooled": f_close, "p50_per_run": per_run(floors, "closing", 50),
                           "p99_per_run": per_run(floors, "closing", 99)},
            "any_ms": {"pooled": f_any, "p99_per_run": per_run(floors, "any", 99)},
            "peak_rss_mb_per_peer": stats([max(f["maxrss_kb"]) / 1024 for f in floors], 1),
        },
        "vs_floor": {
            "step_closing_p99_ratio": {"pooled": _r(g_close["p99"] / floor_p99), "per_run": stats(ratios_close, 2), "goal": 1.5},
            "any_event_p99_ratio": {"pooled": _r(g_any["p99"] / floor_p99), "per_run": stats(ratios_any, 2), "goal": 2.0},
        },
        "load_start": load_start,
        "load_end": load_end,
        "definition": "step-closing: per step the last event signed, signing -> placed in the log at every peer; "
                      "any event: every event, same; one OS process per seat, loopback TLS; every step after the "
                      "opening (the shared seed's commit and reveal steps; the floor leaves out its first two rounds); floor: the same mesh passing signed 200-byte frames (fsync before send) "
                      "in rounds, no game; ratios: game p99 / floor step-closing p99",
    }
    if options:
        out["options"] = list(options)    # the demo games' table options (a longer game: more steps a run)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("level", nargs="?", default="random")
    ap.add_argument("--seats", default=None, help="comma-separated seat counts (default: 2,4,6,8 for random bots, else 6)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--game", default="painting")
    ap.add_argument("--floor-rounds", type=int, default=40)
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="a table option for the demo games (e.g. rounds=20: 42 steps a game, steadier CPU figures)")
    a = ap.parse_args()
    if a.reps < 1:
        raise SystemExit("--reps must be at least 1")
    seats = [int(s) for s in (a.seats or ("2,4,6,8" if a.level == "random" else "6")).split(",")]
    # the 6-seat table first: the headline figure, measured on the freshest machine
    order = sorted(seats, key=lambda n: (n != 6, n))
    results = {}
    for n in order:
        results[n] = measure(n, a.level, a.reps, a.game, a.floor_rounds, tuple(a.option))
        print(json.dumps(results[n]), flush=True)
    if len(seats) > 1:
        rows = []
        for n in sorted(results):
            r = results[n]
            rows.append({
                "seats": n,
                "closing_p50_ms": r["step_closing_event_ms"]["p50_per_run"]["median"],
                "closing_p99_ms": r["step_closing_event_ms"]["pooled"]["p99"],
                "any_p50_ms": r["any_event_ms"]["p50_per_run"]["median"],
                "any_p99_ms": r["any_event_ms"]["pooled"]["p99"],
                "floor_closing_p50_ms": r["floor"]["closing_ms"]["p50_per_run"]["median"],
                "floor_closing_p99_ms": r["floor"]["closing_ms"]["pooled"]["p99"],
                "peak_rss_mb_per_peer": (r["peak_rss_mb_per_peer"] or {}).get("median"),
                "floor_peak_rss_mb_per_peer": r["floor"]["peak_rss_mb_per_peer"]["median"],
            })
        print(json.dumps({"benchmark": "latency_curve", "game": a.game, "bots": a.level, "reps": a.reps,
                          "rows": rows, "load_end": load()}))


if __name__ == "__main__":
    main()
