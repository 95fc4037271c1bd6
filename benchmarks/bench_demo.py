"""Wall time of a full 6-bot `easel demo` (6 OS processes over loopback TLS). Prints JSON.

Goal: < 10 s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import median

ROOT = Path(__file__).resolve().parent.parent


def main(runs: int = 5, players: int = 6, level: str = "heuristic") -> None:
    walls, inner = [], []
    for i in range(runs):
        with tempfile.TemporaryDirectory() as d:
            t = time.perf_counter()
            out = subprocess.run(
                [sys.executable, "-m", "cli", "demo", "--players", str(players), "--seed", "bench%d" % i, "--out", d, "--json", "--level", level],
                cwd=ROOT, capture_output=True, text=True, timeout=300,
            )
            walls.append(time.perf_counter() - t)
            if out.returncode != 0:
                raise SystemExit("demo failed: %s" % out.stderr[-2000:])
            inner.append(json.loads(out.stdout)["seconds"])
    print(json.dumps({
        "benchmark": "demo_wall_time",
        "players": players,
        "bots": level,
        "runs": runs,
        "wall_s": {"median": round(median(walls), 3), "min": round(min(walls), 3), "max": round(max(walls), 3), "raw": [round(w, 3) for w in walls]},
        "demo_reported_s": {"median": round(median(inner), 3), "min": round(min(inner), 3), "max": round(max(inner), 3), "raw": inner},
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "goal": "< 10 s",
    }))


if __name__ == "__main__":
    main()
