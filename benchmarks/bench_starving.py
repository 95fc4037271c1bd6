"""Starving Artists: demo wall time, network round trips per day, audit throughput.  Prints one JSON object.

1. ``easel demo --game starving-artists --players 4`` (4 OS processes over
   loopback TLS, the game's default bot level): wall time of ``--runs`` runs
   with different seeds (goal < 15 s).  Baseline from the same run: the wall
   time of one ``python -m cli games --json`` (a CLI process start).
2. Round trips per day, counted from finished logs by replaying them: every
   step of the table is one network round trip (everyone expected sends one
   event, everyone else waits for it).  By type: ``turn`` (a main action),
   ``free`` (a free action taken as a step of its own), ``answer`` (answers to
   a player trade offer), ``announce`` and ``collect`` (night), ``chance``
   (shared randomness: a commit step and a reveal step, so 2 per chance step).
   The opening shared seed (2 steps) is reported apart.  Counted on the demo
   logs and on the audit corpus below (heuristic bots, which sell and collect).
3. Audit throughput: ``--logs`` complete 4-seat logs made once by in-memory
   peers (p2p.memnet.play_in_memory, the heuristic bot if there is one, else the
   random bot); entries/s of ``cli.auditing.audit_files`` over all files
   (parallel worker processes) and of core.audit one file at a time on one
   core, as ratios to raw single-thread Ed25519 verification (PyNaCl) of the
   same signatures, measured in the same run (goal: ratio >= 0.7 with parallel
   files).

Every figure: median, min, max and the raw list of >= 5 repetitions.

    python benchmarks/bench_starving.py                   # 5 demos, 16 logs, 5 repetitions
    python benchmarks/bench_starving.py --runs 5 --logs 16 --repeats 7
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nacl.signing import SigningKey  # noqa: E402

import core.events  # noqa: E402
import core.games as registry  # noqa: E402
from cli.auditing import audit_files  # noqa: E402
from cli.common import default_level  # noqa: E402
from core.audit import audit  # noqa: E402
from core.events import Event, game_id_of, genesis_sign_msg, make_genesis, parse_entry  # noqa: E402
from core.logfile import parse  # noqa: E402
from core.table import Table  # noqa: E402
from common import demo_runs as common_demo_runs, log_file, signatures, stats  # noqa: E402
from p2p.memnet import play_in_memory  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GAME = "starving-artists"
MAIN_ACTIONS = ("work", "buy", "paint")
TYPES = ("turn", "free", "answer", "announce", "collect", "chance")


# --------------------------------------------------------------------------- 1. demo wall time
def demo_runs(runs: int) -> tuple[dict, list[bytes]]:
    times, logs, objs = common_demo_runs(GAME, 4, runs, "bench-sa")
    results = [{"days": o["results"]["days"], "reason": o["results"]["reason"], "points": o["results"]["points"]} for o in objs]
    return {
        "players": 4,
        "bots": default_level(registry.get(GAME)),
        "runs": runs,
        **times,
        "games": results,
        "goal": "wall < 15 s",
        "goal_met": times["wall_s"]["median"] < 15,
    }, logs


# --------------------------------------------------------------------------- 2. round trips per day
def step_profile(entries: list[bytes]) -> dict:
    """Replay a finished log; each step of the table (one round trip) by day and type."""
    t = Table.start(entries[0], registry)
    per_day: dict[int, Counter] = {}
    entries_per_day: Counter = Counter()
    setup = 0
    phase = None
    for raw in entries[1:]:
        st = t.step
        day = t.state.day if t.state is not None else 0
        if st.phase != phase:
            phase = st.phase
            if st.purpose == "seed":
                kind = "chance" if t.state is not None else None
            elif t.state.step == "turn":
                ev = parse_entry(raw, verify=False)
                act = ev.body["action"] if isinstance(ev, Event) else {"do": "work"}
                kind = "turn" if act.get("do") in MAIN_ACTIONS else "free"
            else:
                kind = t.state.step
            if kind is None:
                setup += 1
            else:
                per_day.setdefault(day, Counter())[kind] += 1
        if t.state is not None:
            entries_per_day[day] += 1
        t.append(raw)
    assert t.over, "the log is not a finished game"
    days = len(per_day)  # days with at least one step (a game can end at the start of a day, before any step)
    totals = Counter()
    for c in per_day.values():
        totals.update(c)
    return {"days": days, "setup_steps": setup, "totals": totals, "entries": sum(entries_per_day.values()),
            "per_day": {d: dict(c) for d, c in sorted(per_day.items())}}


def round_trips(logs: list[bytes]) -> dict:
    profiles = [step_profile(parse(data).entries) for data in logs]
    days = sum(p["days"] for p in profiles)
    totals = Counter()
    for p in profiles:
        totals.update(p["totals"])
    return {
        "games": len(profiles),
        "days": stats([p["days"] for p in profiles], 1),
        "round_trips_per_day": stats([sum(p["totals"].values()) / p["days"] for p in profiles], 2),
        "by_type_per_day": {k: round(totals[k] / days, 2) for k in TYPES},
        "chance_steps_per_day": round(totals["chance"] / 2 / days, 2),
        "entries_per_day": stats([p["entries"] / p["days"] for p in profiles], 1),
        "opening_seed_round_trips": profiles[0]["setup_steps"],
        "example_game_by_day": {str(d): c for d, c in profiles[0]["per_day"].items()},
    }


# --------------------------------------------------------------------------- 3. audit throughput
def corpus_bot():
    bots = registry.get(GAME).bots
    if "heuristic" in bots:
        return "heuristic", bots["heuristic"]()
    try:
        from core.games.starving_artists.ai import HeuristicBot
    except ImportError:
        return "random", bots["random"]()
    return "heuristic (core.games.starving_artists.ai)", HeuristicBot()


def make_log(seed: int, bot) -> bytes:
    sks = [SigningKey(bytes([seed % 250 + 1, i + 1]) * 16) for i in range(4)]
    keys = [bytes(sk.verify_key) for sk in sks]
    doc = {"game": GAME, "config": registry.get(GAME).configure({}, 4), "seats": keys, "table": seed.to_bytes(8, "big"), "timeout": 60}
    gid = game_id_of(doc)
    g = make_genesis(doc, [sk.sign(genesis_sign_msg(gid)).signature for sk in sks])
    signers = [(lambda sk: lambda m: sk.sign(m).signature)(sk) for sk in sks]
    peers = play_in_memory(g, signers, bot, seed=seed, shuffle=False, games=registry)
    assert all(p.table.over for p in peers)
    assert all(p.log_entries == peers[0].log_entries for p in peers)
    return log_file(peers[0].log_entries)


def audit_throughput(n_logs: int, repeats: int) -> tuple[dict, dict]:
    level, bot = corpus_bot()
    t = time.perf_counter()
    files = {"sa%02d.log" % s: make_log(s, bot) for s in range(1, n_logs + 1)}
    build = time.perf_counter() - t
    entries, sigs = signatures(files)
    cores = os.cpu_count() or 1
    verify_many = getattr(core.events, "verify_many", None)   # libsodium without PyNaCl's per-call wrapping, if core has it
    par, seq, ver, fast = [], [], [], []
    for _ in range(repeats):
        t = time.perf_counter()
        rep = audit_files(files, games=registry)
        par.append(entries / (time.perf_counter() - t))
        assert rep["valid"] and rep["complete"], rep["problems"]
        t = time.perf_counter()
        for name, data in files.items():
            rep = audit({name: data}, registry)
            assert rep["valid"] and rep["complete"], rep["problems"]
        seq.append(entries / (time.perf_counter() - t))
        t = time.perf_counter()
        for vk, msg, sig in sigs:
            vk.verify(msg, sig)
        ver.append(len(sigs) / (time.perf_counter() - t))
    # ratios per repetition (audit and verify measured back to back), then their spread
        if verify_many is not None:
            jobs = [(bytes(vk), msg, sig) for vk, msg, sig in sigs]
            t = time.perf_counter()
            assert verify_many(jobs) is None
            fast.append(len(jobs) / (time.perf_counter() - t))
    ratio = [p / v for p, v in zip(par, ver)]
    ratio1 = [q / v for q, v in zip(seq, ver)]
    out = {
        "logs": n_logs,
        "corpus_bot": level,
        "corpus_build_s": round(build, 2),
        "entries": entries,
        "bytes": sum(len(d) for d in files.values()),
        "signatures": len(sigs),
        "cores": cores,
        "repeats": repeats,
        "parallel_audit_entries_per_s": stats(par, 0),
        "one_core_one_file_at_a_time_entries_per_s": stats(seq, 0),
        "baseline_ed25519_verify_per_s": stats(ver, 0),
        "ratio_parallel": stats(ratio),
        "ratio_one_core": stats(ratio1),
        "ratio_parallel_to_cores_x_verify": round(sorted(ratio)[len(ratio) // 2] / cores, 3),
        "baseline_libsodium_verify_many_per_s": stats(fast, 0) if fast else None,
        "ratio_parallel_to_verify_many": stats([p / f for p, f in zip(par, fast)]) if fast else None,
        "ratio_one_core_to_verify_many": stats([q / f for q, f in zip(seq, fast)]) if fast else None,
        "definition": "entries audited per second / single-thread PyNaCl Ed25519 verifications per second of the same signatures, "
                      "each repetition measured back to back; parallel = cli.auditing.audit_files over every file (one worker process per core, "
                      "pool start-up included); one core = core.audit.audit one file after the other",
        "goal": "ratio_parallel >= 0.7",
        "goal_met": sorted(ratio)[len(ratio) // 2] >= 0.7,
    }
    return out, files


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="demo runs (different seeds)")
    ap.add_argument("--logs", type=int, default=16, help="logs in the audit corpus")
    ap.add_argument("--repeats", type=int, default=5, help="repetitions of each audit figure")
    args = ap.parse_args(argv)
    if args.runs < 1 or args.logs < 2 or args.repeats < 1:
        raise SystemExit("--runs >= 1, --logs >= 2, --repeats >= 1")
    demo, demo_logs = demo_runs(args.runs)
    aud, files = audit_throughput(args.logs, args.repeats)
    out = {
        "benchmark": "starving_artists",
        "demo_wall_time": demo,
        "round_trips": {
            "definition": "one round trip per table step (a commit step and a reveal step count one each: a chance step costs 2); "
                          "per day = steps of the game after the opening seed / days with at least one step",
            "demo_logs": dict(round_trips(demo_logs), bots=demo["bots"]),
            "corpus_logs": dict(round_trips(list(files.values())), bots=aud["corpus_bot"]),
        },
        "audit_throughput": aud,
    }
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
