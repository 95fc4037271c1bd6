"""Move latency with 6 peers (6 OS processes) on loopback TLS: from signing an event
to that event being applied (placed in the log, fsynced) at every peer.

For the event that completes a step (the last one signed), this is the pure
propagation + processing time; other events of a simultaneous step also wait
for the slower seats, reported separately.  Prints one JSON object.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from common import median, percentile

ROOT = Path(__file__).resolve().parent.parent


def run_once(players: int, seed: str, level: str) -> tuple[list[float], list[float], float]:
    with tempfile.TemporaryDirectory() as d:
        trace = Path(d) / "trace"
        env = dict(os.environ, EASEL_TRACE=str(trace))
        out = subprocess.run(
            [sys.executable, "-m", "cli", "demo", "--players", str(players), "--seed", seed, "--out", str(Path(d) / "out"), "--json", "--level", level],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
        )
        if out.returncode != 0:
            raise SystemExit("demo failed: %s" % out.stderr[-2000:])
        signed: dict[str, float] = {}
        applied: dict[str, list[float]] = {}
        batches: dict[tuple, None] = {}
        for f in trace.glob("seat-*.jsonl"):
            for line in f.read_text().splitlines():
                rec = json.loads(line)
                if rec["k"] == "sign":
                    signed[rec["e"][0]] = rec["t"]
                else:
                    batches[tuple(rec["e"])] = None
                    for e in rec["e"]:
                        applied.setdefault(e, []).append(rec["t"])
        all_lat, steps = [], []
        for e, ts in applied.items():
            if e in signed and len(ts) == players:
                all_lat.append((max(ts) - signed[e]) * 1000)
        for evs in batches:
            evs = [e for e in evs if e in signed and len(applied[e]) == players]
            if evs:
                last = max(evs, key=lambda e: signed[e])
                steps.append((signed[last], (max(applied[last]) - signed[last]) * 1000))
        steps.sort()
        # the table's first step (the shared seed) overlaps the peers dialling each other
        return all_lat, [lat for _, lat in steps[1:]], steps[0][1]


def main(runs: int = 5, players: int = 6, level: str = "random") -> None:
    all_lat, last_lat, opening = [], [], []
    for i in range(runs):
        a, b, o = run_once(players, "lat%d" % i, level)
        all_lat += a
        last_lat += b
        opening.append(o)
    print(json.dumps({
        "benchmark": "move_latency",
        "peers": players,
        "bots": level,
        "runs": runs,
        "steps": len(last_lat),
        "step_closing_event_ms": {"p50": round(median(last_lat), 2), "p90": round(percentile(last_lat, 90), 2), "p99": round(percentile(last_lat, 99), 2), "max": round(max(last_lat), 2)},
        "any_event_ms": {"p50": round(median(all_lat), 2), "p99": round(percentile(all_lat, 99), 2)},
        "opening_step_ms_median": round(median(opening), 2),
        "definition": "per step, the last event signed: signing -> placed in the log at every one of the peers (6 OS processes, loopback TLS, 2 cores); every step after the opening seed step, which overlaps connection set-up and is reported apart",
        "goal": "p99 < 20 ms",
    }))


if __name__ == "__main__":
    main(level=sys.argv[1] if len(sys.argv) > 1 else "random")
