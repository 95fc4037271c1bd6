"""Every speed goal the issues and README set, checked on one or more ``run_all.sh`` result files.

    python benchmarks/goals.py RUN1.json [RUN2.json RUN3.json ...]

For each goal: the figure of every run (each already the median of that run's repetitions),
then the median over the runs, and whether that median meets the goal ("median of three full
runs" is how the speed issue defines done).  A figure a run does not hold is shown as ``-``.
Exit status 0 whatever the verdicts: this reports, it does not judge a build.
"""

from __future__ import annotations

import json
import statistics
import sys
from typing import Any, Callable


def _one(items: list, **match) -> dict:
    for it in items:
        if all(it.get(k) == v for k, v in match.items()):
            return it
    raise KeyError(match)


def _latency(res: dict, bots: str, peers: int) -> dict:
    for k, v in res.items():
        if k.startswith("move_latency/") and v.get("bots") == bots and v.get("peers") == peers:
            return v
    raise KeyError("move_latency %s %d" % (bots, peers))


def _bench(res: dict, name: str) -> dict:
    """The result of benchmark ``name`` (compare.py keys it "name" or "name/<game>")."""
    for k, v in res.items():
        if k == name or k.startswith(name + "/"):
            return v
    raise KeyError(name)


def _large_on(audit: dict, cores: int) -> float:
    """The one large file's ratio on ``cores`` cores: its curve's point, or (runs from before
    the curve) the every-core ratio of a run on a machine of that many cores."""
    big = audit["one_large_file"]
    if "curve" in big:
        return _one(big["curve"], cores=cores)["ratio_to_one_core_verify"]["median"]
    if audit.get("cores") == cores:
        return big["ratio_to_one_core_verify"]["median"]
    raise KeyError("one_large_file on %d cores" % cores)


def _large_cpu_bound(audit: dict) -> float:
    """cores x (entries per CPU-second of the pooled audit and its workers / verifies per
    CPU-second): the wall-clock ratio the audit would reach with every core to itself."""
    big = audit["one_large_file"]
    if "bound_on_cores_x_cpu_efficiency" in big:
        return big["bound_on_cores_x_cpu_efficiency"]["median"]
    return audit["cores"] * big["pooled_entries_per_cpu_s"]["median"] / audit["baseline"]["verify_per_cpu_s"]["median"]


# (what, figure from a run's "results", ">=" or "<=", target)
GOALS: list[tuple[str, Callable[[dict], float], str, float]] = [
    ("audit, one Painting file after another on one core / raw verify (one core)",
     lambda r: r["audit"]["one_core"]["painting"]["ratio"]["median"], ">=", 0.8),
    ("audit, 4,096 Painting files on every core / (cores x raw verify)",
     lambda r: _one(r["audit"]["many_files"], logs=4096)["ratio_to_cores_x_one_core_verify"]["median"], ">=", 0.8),
    ("audit, one 31,001-entry file on 2 cores / raw verify (one core, the faster library)",
     lambda r: _large_on(r["audit"], 2), ">=", 1.6),
    ("audit, that file: cores x CPU efficiency (its ratio on 2 cores with both free)",
     lambda r: _large_cpu_bound(r["audit"]), ">=", 1.6),
    ("idle table, 6 peers waiting for a person: CPU of all peers (% of one core)",
     lambda r: _bench(r, "idle")["cpu_pct_of_one_core"]["total"]["median"], "<=", 2.0),
    ("idle table: CPU of the busiest peer (% of one core)",
     lambda r: _bench(r, "idle")["cpu_pct_of_one_core"]["worst_peer"]["median"], "<=", 0.3),
    ("idle table: wake-ups per second of the busiest peer",
     lambda r: _bench(r, "idle")["wakeups_per_s_per_peer"]["worst_peer"]["median"], "<=", 2.0),
    ("idle table: bytes per second, busiest peer to one other",
     lambda r: _bench(r, "idle")["bytes_per_s_to_each_peer"]["worst_pair"]["median"], "<=", 200.0),
    ("easel play -> first decision on the screen / one CLI process start, Painting",
     lambda r: _bench(r, "first_decision")["games"]["painting"]["ratio_to_floor"], "<=", 2.5),
    ("easel play -> first decision on the screen / one CLI process start, Starving Artists",
     lambda r: _bench(r, "first_decision")["games"]["starving-artists"]["ratio_to_floor"], "<=", 2.5),
    ("easel play -> first decision on the screen / one CLI process start, Modern Art",
     lambda r: _bench(r, "first_decision")["games"]["modern-art"]["ratio_to_floor"], "<=", 2.5),
    ("easel play's processes left 20 s after its terminal closed (every game, every repetition)",
     lambda r: _bench(r, "first_decision")["processes_left_after_hangup"], "<=", 0),
    ("Modern Art, 5 seats: table sealed -> first auction open (s)",
     lambda r: _bench(r, "deal_start")["seal_to_first_auction_s"]["median"], "<=", 1.5),
    ("latency, 6 seats, random bots: step-closing p99 / floor p99",
     lambda r: _latency(r, "random", 6)["vs_floor"]["step_closing_p99_ratio"]["per_run"]["median"], "<=", 1.5),
    ("latency, 6 seats, random bots: any-event p99 / floor p99",
     lambda r: _latency(r, "random", 6)["vs_floor"]["any_event_p99_ratio"]["per_run"]["median"], "<=", 2.0),
    ("latency, 6 seats, random bots: step-closing p99 (ms)",
     lambda r: _latency(r, "random", 6)["step_closing_event_ms"]["p99_per_run"]["median"], "<=", 20.0),
    ("Painting 6-bot demo, wall (s)",
     lambda r: r["demo_wall_time/heuristic"]["wall_s"]["median"], "<=", 10.0),
    ("Starving Artists 4-bot demo, wall (s)",
     lambda r: r["starving_artists"]["demo_wall_time"]["wall_s"]["median"], "<=", 15.0),
    ("Modern Art 5-bot demo, wall (s)",
     lambda r: r["modern_art"]["demo_wall_time"]["wall_s"]["median"], "<=", 20.0),
    ("Modern Art deal, crypto per seat (s)",
     lambda r: r["deal"]["crypto_s_per_seat"]["median"], "<=", 1.0),
    ("Starving Artists audit, 16 files in parallel / raw verify (one core)",
     lambda r: r["starving_artists"]["audit_throughput"]["ratio_parallel"]["median"], ">=", 0.7),
    ("Modern Art audit, files in parallel / raw verify (one core), as issue 6 words it",
     lambda r: r["modern_art"]["audit_throughput"]["ratio_parallel"]["median"], ">=", 0.7),
    ("Modern Art audit / its own cryptography, one core",
     lambda r: r["modern_art"]["audit_throughput"]["ratio_one_file_to_its_crypto"]["median"], ">=", 0.7),
    ("a seat that quit (a leaving note): the slowest step it cost the table (s)",
     lambda r: _bench(r, "leave")["leave_step_s"]["max"], "<=", 2.0),
    ("easel join: host announced -> its table listed, join started then (s)",
     lambda r: _bench(r, "join_listing")["announce_to_listed_join_started_then_s"]["median"], "<=", 1.0),
]


def figure(doc: dict, get: Callable[[dict], float]) -> float | None:
    try:
        v = get(doc.get("results", doc))
    except (KeyError, TypeError, IndexError):
        return None
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def verdicts(docs: list[dict]) -> list[dict[str, Any]]:
    rows = []
    for what, get, op, target in GOALS:
        vals = [figure(d, get) for d in docs]
        held = [v for v in vals if v is not None]
        med = statistics.median(held) if held else None
        met = None if med is None else (med >= target if op == ">=" else med <= target)
        rows.append({"goal": what, "target": "%s %g" % (op, target), "runs": vals, "median": med, "met": met})
    return rows


def main(argv: list[str]) -> int:
    if not argv or any(a in ("-h", "--help") for a in argv):
        print(__doc__.strip())
        return 0 if argv else 2
    docs = []
    for path in argv:
        try:
            with open(path, encoding="utf-8") as f:
                docs.append(json.load(f))
        except (OSError, ValueError) as exc:
            print("cannot read %s: %s" % (path, exc), file=sys.stderr)
            return 2
    rows = verdicts(docs)
    width = max(len(r["goal"]) for r in rows)
    print("%-*s %-8s %s %8s  %s" % (width, "goal", "target", " ".join("%8s" % ("run %d" % (i + 1)) for i in range(len(docs))), "median", "met"))
    for r in rows:
        cells = " ".join("%8s" % ("-" if v is None else "%.3g" % v) for v in r["runs"])
        med = "-" if r["median"] is None else "%.3g" % r["median"]
        met = {True: "yes", False: "NO", None: "-"}[r["met"]]
        print("%-*s %-8s %s %8s  %s" % (width, r["goal"], r["target"], cells, med, met))
    print("loads: " + "; ".join("%s .. %s" % (tuple(round(x, 1) for x in d.get("load_before") or []),
                                           tuple(round(x, 1) for x in d.get("load_after") or [])) for d in docs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
