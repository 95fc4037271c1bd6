"""Offline audit speed against raw Ed25519 verification measured in the same run.  Prints one JSON object.

Every figure is {median, min, max, n, raw} over ``--repeats`` repetitions (default 5), the
audit and its baseline measured one right after the other in each repetition; ratios are
taken per repetition, then summarised.  The machine's load (os.getloadavg) before and after
is printed too: other work on the machine slows both, not always equally.

Baselines
  verify_one_core      libsodium crypto_sign_open (what the audit calls), one process, /s
  verify_openssl       OpenSSL's Ed25519 (the ``cryptography`` package, keys loaded once), one process, /s
  verify_pynacl_api    libsodium through nacl.signing.VerifyKey.verify (the old baseline), /s
  verify_all_cores     libsodium in ``cores`` worker processes (pool start-up excluded), /s
  Every ratio is taken against the faster of libsodium and OpenSSL in the same repetition
  (``fastest_one_core_verify``: libsodium on the machines measured so far).

Every rate is given per second of wall time and (``*_cpu_*``) per CPU-second of this process
and its worker processes: on a machine shared with other work the CPU figures are the steadier
ones; ``cores_used`` = CPU-seconds / wall seconds says how much of the machine a run got.

Figures (entries audited per second; a log entry carries one signature, a genesis one per seat)
  one_core             core.audit.audit, one file after the other in one process: 16 six-seat
                       Painting logs, and 16 four-seat Starving Artists logs.     Goal: >= 0.8 x verify_one_core
  one_large_file       ``easel audit`` (cli.auditing.audit_files) on one long toy log (31,001 entries):
                       signatures checked by worker processes while this process replays; the
                       curve: the same told to use 1, 2 and every core.   Goal on 2 cores: >= 1.6 x verify_one_core
                       With it: CPU microseconds an entry (this process, its workers, all) next to
                       one verify's, and cores x CPU efficiency: what the ratio would be with every
                       core free for the audit (the wall-clock ratio drops with other work's load).
  many_files           ``easel audit`` on 16, 256 and 4096 Painting logs (files in a process pool),
                       with the pool start-up measured alone.   Goal at 4096: >= 0.8 x cores x verify_one_core
  by_length            time and peak memory of one audit against log length (a child process per
                       measurement): a 6-round Painting log, toy logs of 60, 600 and 6000 steps.

Logs are made once (benchmarks/common.py make_log: one table, every seat a random legal-move
bot, every event signed) and cached under $TMPDIR/easel-bench-cache/<version>/, keyed by the
game's source files too.

    python benchmarks/bench_audit.py                # everything (a few minutes)
    python benchmarks/bench_audit.py --quick        # 16 and 256 logs, toy logs up to 600 steps, 3 repetitions
    python benchmarks/bench_audit.py --large-only   # the baselines, one core, the one large file and its curve
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from common import CACHE_VERSION, cache_dir, cached_logs, load, log_file, stats

import cli.auditing as auditing
from cli.auditing import audit_files, pool_startup
from core import games as registry
from core.audit import audit
from core.events import Event, Genesis, _event_sign_msg_from_raw, genesis_sign_msg, parse_entry, verify_many
from core.logfile import parse
from nacl.signing import VerifyKey

HERE = os.path.dirname(os.path.abspath(__file__))
CORES = os.cpu_count() or 1


def sig_jobs(files: dict) -> tuple[int, list]:
    """(entries, every signature check) of a set of log files."""
    jobs = []
    entries = 0
    for data in files.values():
        for raw in parse(data).entries:
            entries += 1
            ent = parse_entry(raw, verify=False)
            if isinstance(ent, Event):
                jobs.append((ent.author, _event_sign_msg_from_raw(ent.raw), ent.sig))
            elif isinstance(ent, Genesis):
                msg = genesis_sign_msg(ent.game_id)
                jobs.extend((key, msg, sig) for key, sig in zip(ent.doc["seats"], ent.sigs))
    return entries, jobs


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class Clock:
    """Wall time and CPU time (this process + its finished children) of a block."""

    def __enter__(self):
        self.w, self.c, self.k = time.perf_counter(), time.process_time(), _children_cpu()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.w
        self.parent_cpu = time.process_time() - self.c
        self.children_cpu = _children_cpu() - self.k
        self.cpu = self.parent_cpu + self.children_cpu


def verify_rate(jobs, cpu: list | None = None) -> float:
    with Clock() as c:
        assert verify_many(jobs) is None
    if cpu is not None:
        cpu.append(len(jobs) / c.cpu)
    return len(jobs) / c.wall


def openssl_rate(jobs) -> float:
    """Raw verification with OpenSSL's Ed25519 (``cryptography``), each key loaded once, /s."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    pks = {k: Ed25519PublicKey.from_public_bytes(k) for k, _, _ in jobs}
    t = time.perf_counter()
    for k, m, s in jobs:
        pks[k].verify(s, m)   # raises on a bad signature
    return len(jobs) / (time.perf_counter() - t)


def pynacl_rate(jobs) -> float:
    vks = {k: VerifyKey(k) for k, _, _ in jobs}
    t = time.perf_counter()
    for k, m, s in jobs:
        vks[k].verify(m, s)
    return len(jobs) / (time.perf_counter() - t)


_JOBS: list = []


def _verify_part(i: int) -> None:
    assert verify_many(_JOBS[i::CORES]) is None


def all_cores_rate(jobs) -> float:
    """Raw verification in ``CORES`` forked processes, the pool already started."""
    global _JOBS
    _JOBS = jobs
    with ProcessPoolExecutor(max_workers=CORES, mp_context=auditing._fork()) as pool:
        list(pool.map(auditing._noop, range(CORES)))
        t = time.perf_counter()
        list(pool.map(_verify_part, range(CORES)))
        dt = time.perf_counter() - t
    return len(jobs) / dt


def one_core(files: dict, games, entries: int, cpu: list | None = None) -> float:
    with Clock() as c:
        for name, data in files.items():
            rep = audit({name: data}, games)
            assert rep["valid"] and rep["complete"], rep["problems"][:3]
    if cpu is not None:
        cpu.append(entries / c.cpu)
    return entries / c.wall


def easel_audit(files: dict, games, entries: int, cpu: list | None = None, workers: int | None = None) -> tuple[float, float]:
    """(entries/s, seconds) of ``easel audit`` (on ``workers`` cores: default all);
    appends (entries per CPU-second, cores used, CPU microseconds an entry in this process,
    the same in its worker processes) to ``cpu``."""
    with Clock() as c:
        rep = audit_files(files, games=games, workers=workers)
    assert rep["valid"] and rep["complete"], rep["problems"][:3]
    if cpu is not None:
        cpu.append((entries / c.cpu, c.cpu / c.wall, 1e6 * c.parent_cpu / entries, 1e6 * c.children_cpu / entries))
    return entries / c.wall, c.wall


def peak_rss_kib() -> int:
    """This process's peak resident set (KiB): VmHWM where Linux gives it (ru_maxrss
    survives exec, so a child started by a big parent would report the parent's peak)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def child(path: str, toy: bool) -> None:
    """One audit of one file in a fresh process: its time and peak memory (printed as JSON)."""
    import resource
    import tracemalloc

    games = registry
    if toy:
        from toy import ALL_GAMES as games
    data = open(path, "rb").read()
    games.get(parse_entry(parse(data).entries[0], verify=False).doc["game"])   # its code imported before the clock starts
    rss0 = peak_rss_kib()
    t = time.perf_counter()
    rep = audit({"x": data}, games)
    dt = time.perf_counter() - t
    rss1 = peak_rss_kib()
    assert rep["valid"] and rep["complete"]
    tracemalloc.start()
    audit({"x": data}, games)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(json.dumps({"seconds": dt, "tracemalloc_peak_bytes": peak, "maxrss_kib": rss1, "maxrss_growth_kib": rss1 - rss0}))


def by_length(logs: list, repeats: int) -> list:
    rows = []
    for label, entries, toy, data in logs:
        path = cache_dir() / ("by-length-%s.log" % label.replace(" ", "-"))
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
        runs = []
        for _ in range(repeats):
            out = subprocess.run([sys.executable, os.path.join(HERE, "bench_audit.py"), "--child", str(path)] + (["--toy"] if toy else []),
                                 capture_output=True, text=True, check=True, timeout=600)
            runs.append(json.loads(out.stdout))
        secs = [r["seconds"] for r in runs]
        rows.append({
            "log": label,
            "entries": entries,
            "bytes": len(data),
            "audit_seconds": stats(secs, 4),
            "entries_per_s": stats([entries / s for s in secs], 0),
            "tracemalloc_peak_kib": stats([r["tracemalloc_peak_bytes"] / 1024 for r in runs], 0),
            "maxrss_kib": stats([r["maxrss_kib"] for r in runs], 0),
            "maxrss_growth_kib": stats([r["maxrss_growth_kib"] for r in runs], 0),
        })
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--large-only", action="store_true", help="the baselines, one core and the one large file only (16 logs, no by_length)")
    ap.add_argument("--child")
    ap.add_argument("--toy", action="store_true")
    a = ap.parse_args()
    if a.child:
        return child(a.child, a.toy)
    from toy import ALL_GAMES, toy_log

    repeats = a.repeats if not a.quick else min(a.repeats, 3)
    scales = (16,) if a.large_only else (16, 256) if a.quick else (16, 256, 4096)
    load_before = load()
    t_start = time.perf_counter()
    painting = cached_logs("painting", 6, range(1, max(scales) + 1))
    starving = cached_logs("starving-artists", 4, range(1, 17))
    p16 = dict(list(painting.items())[:16])
    p_entries, p_jobs = sig_jobs(p16)
    s_entries, _ = sig_jobs(starving)
    toy_rounds = (1000,) if a.large_only else (10, 100) if a.quick else (10, 100, 1000)
    toys = {r: log_file(toy_log(6, r)) for r in toy_rounds}
    big = toys[max(toy_rounds)]
    big_entries = len(parse(big).entries)

    base = {"one": [], "openssl": [], "fastest": [], "api": [], "all": [], "cpu": []}
    oc = {"painting": [], "starving": [], "painting_ratio": [], "starving_ratio": [], "pcpu": [], "scpu": [], "pcpu_ratio": [], "scpu_ratio": []}
    large = {"pooled": [], "one": [], "ratio": [], "ratio_cores": [], "cpu": [], "cores_used": [], "one_cpu": [],
             "cpu_eff": [], "parent_us": [], "workers_us": [], "us": [], "verify_us": []}
    curve_cores = sorted({1, 2, CORES}) if CORES >= 2 else [1]
    large_curve: dict = {w: [] for w in curve_cores}
    startup = []
    for _ in range(repeats):
        vcpu: list = []
        v = verify_rate(p_jobs, vcpu)
        base["one"].append(v)
        o = openssl_rate(p_jobs)
        base["openssl"].append(o)
        base["api"].append(pynacl_rate(p_jobs))
        base["all"].append(all_cores_rate(p_jobs))
        startup.append(pool_startup(CORES))
        pc: list = []
        sc: list = []
        p = one_core(p16, registry, p_entries, pc)
        s = one_core(starving, registry, s_entries, sc)
        v2 = verify_rate(p_jobs, vcpu)
        vv = max((v + v2) / 2, o)  # the baseline measured around the audit: the faster library's
        base["fastest"].append("libsodium" if vv > o else "openssl")
        vc = sum(vcpu) / 2
        base["cpu"].append(vc)
        oc["painting"].append(p)
        oc["starving"].append(s)
        oc["painting_ratio"].append(p / vv)
        oc["starving_ratio"].append(s / vv)
        oc["pcpu"].append(pc[0])
        oc["scpu"].append(sc[0])
        oc["pcpu_ratio"].append(pc[0] / vc)
        oc["scpu_ratio"].append(sc[0] / vc)
        lc: list = []
        oc1: list = []
        rate, _ = easel_audit({"big.log": big}, ALL_GAMES, big_entries, lc)
        one = one_core({"big.log": big}, ALL_GAMES, big_entries, oc1)
        large["pooled"].append(rate)
        large["one"].append(one)
        large["ratio"].append(rate / vv)
        large["ratio_cores"].append(rate / (CORES * vv))
        large["cpu"].append(lc[0][0])
        large["cores_used"].append(lc[0][1])
        large["one_cpu"].append(oc1[0])
        # CPU per entry of the pooled audit (this process + its workers) against one verify's:
        # ``cores`` x this efficiency is the ratio the audit would reach with every core to itself
        large["cpu_eff"].append(lc[0][0] / vc)
        large["us"].append(1e6 / lc[0][0])
        large["parent_us"].append(lc[0][2])
        large["workers_us"].append(lc[0][3])
        large["verify_us"].append(1e6 / vc)
        for w in curve_cores:   # `easel audit` told to use w cores (1: the serial audit)
            r_w, _ = easel_audit({"big.log": big}, ALL_GAMES, big_entries, None, workers=w)
            large_curve[w].append(r_w / vv)

    curve = []
    for n in scales:
        files = dict(list(painting.items())[:n])
        entries = sum(len(parse(d).entries) for d in files.values())
        rates, net, ratio, vs, cpu = [], [], [], [], []
        for _ in range(repeats):
            v = verify_rate(p_jobs)
            st = pool_startup(CORES)
            r, dt = easel_audit(files, registry, entries, cpu)
            v = (v + verify_rate(p_jobs)) / 2
            rates.append(r)
            net.append(entries / max(dt - st, 1e-9))
            ratio.append(r / (CORES * v))
            vs.append(v)
        curve.append({
            "logs": n,
            "entries": entries,
            "entries_per_s": stats(rates, 0),
            "entries_per_s_without_pool_startup": stats(net, 0),
            "ratio_to_cores_x_one_core_verify": stats(ratio),
            "verify_one_core_per_s": stats(vs, 0),
            "entries_per_cpu_s": stats([c[0] for c in cpu], 0),
            "cores_used": stats([c[1] for c in cpu], 2),
        })

    lengths = [("painting 6 rounds", p_entries // 16, False, next(iter(p16.values())))]
    lengths += [("toy %d steps" % (6 * r), len(parse(toys[r]).entries), True, toys[r]) for r in toy_rounds]
    lengths[0] = (lengths[0][0], len(parse(lengths[0][3]).entries), False, lengths[0][3])
    table = [] if a.large_only else by_length(lengths, repeats)

    one_core_ratio = stats(oc["painting_ratio"])["median"]
    scale_ratio = curve[-1]["ratio_to_cores_x_one_core_verify"]["median"]
    print(json.dumps({
        "benchmark": "audit",
        "cache_version": CACHE_VERSION,
        "cores": CORES,
        "repeats": repeats,
        "load_before": load_before,
        "load_after": load(),
        "seconds": round(time.perf_counter() - t_start, 1),
        "baseline": {
            "signatures": len(p_jobs),
            "verify_one_core_per_s": stats(base["one"], 0),
            "verify_openssl_one_core_per_s": stats(base["openssl"], 0),
            "fastest_one_core_verify": sorted(set(base["fastest"])),
            "verify_pynacl_api_per_s": stats(base["api"], 0),
            "verify_all_cores_per_s": stats(base["all"], 0),
            "cores_x_verify_one_core_per_s": stats([CORES * x for x in base["one"]], 0),
            "verify_per_cpu_s": stats(base["cpu"], 0),
        },
        "pool_startup_s": stats(startup, 4),
        "one_core": {
            "painting": {"logs": 16, "seats": 6, "entries": p_entries, "entries_per_s": stats(oc["painting"], 0), "ratio": stats(oc["painting_ratio"]),
                         "entries_per_cpu_s": stats(oc["pcpu"], 0), "cpu_ratio": stats(oc["pcpu_ratio"])},
            "starving_artists": {"logs": 16, "seats": 4, "entries": s_entries, "entries_per_s": stats(oc["starving"], 0), "ratio": stats(oc["starving_ratio"]),
                                 "entries_per_cpu_s": stats(oc["scpu"], 0), "cpu_ratio": stats(oc["scpu_ratio"])},
        },
        "one_large_file": {
            "log": "toy %d steps" % (6 * max(toy_rounds)),
            "entries": big_entries,
            "pooled_entries_per_s": stats(large["pooled"], 0),
            "one_core_entries_per_s": stats(large["one"], 0),
            "ratio_to_one_core_verify": stats(large["ratio"]),
            "ratio_to_cores_x_one_core_verify": stats(large["ratio_cores"]),
            "pooled_entries_per_cpu_s": stats(large["cpu"], 0),
            "one_core_entries_per_cpu_s": stats(large["one_cpu"], 0),
            "pooled_cores_used": stats(large["cores_used"], 2),
            "pooled_cpu_us_per_entry": stats(large["us"], 2),
            "pooled_cpu_us_per_entry_main_process": stats(large["parent_us"], 2),
            "pooled_cpu_us_per_entry_workers": stats(large["workers_us"], 2),
            "verify_cpu_us": stats(large["verify_us"], 2),
            "pooled_cpu_efficiency": stats(large["cpu_eff"]),
            "bound_on_cores_x_cpu_efficiency": stats([CORES * x for x in large["cpu_eff"]]),
            "curve": [{"cores": w, "ratio_to_one_core_verify": stats(large_curve[w])} for w in curve_cores],
            "goal": "on 2 cores: ratio_to_one_core_verify >= 1.6",
        },
        "many_files": curve,
        "by_length": table,
        "goals": {
            "one_core_ratio_ge_0.8": one_core_ratio >= 0.8,
            "many_files_at_%d_ratio_ge_0.8" % scales[-1]: scale_ratio >= 0.8,
            "one_large_file_ratio_ge_1.6": stats(large["ratio"])["median"] >= 1.6,
        },
        "definition": "ratio = entries audited per second / raw signature verifications per second (the faster of libsodium "
                      "crypto_sign_open and OpenSSL's Ed25519, one core; or cores x that), both measured in the same repetition; "
                      "cpu efficiency = entries per CPU-second of the audit and its workers / libsodium verifies per CPU-second; "
                      "every figure: median, min, max and raw list",
    }, sort_keys=False))


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    main()
