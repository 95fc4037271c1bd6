"""The benchmark tools that turn run_all.sh output into verdicts (benchmarks/goals.py) and
ratios (benchmarks/compare.py), on the result file kept in benchmarks/baselines/."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
sys.path.insert(0, str(BENCH))

import compare  # noqa: E402
import goals  # noqa: E402

BASELINES = sorted((BENCH / "baselines").glob("*.json"))
FULL = [p for p in BASELINES if "partial" not in p.name]   # whole run_all.sh runs


@pytest.fixture(scope="module")
def baseline() -> dict:
    assert FULL, "no full run kept in benchmarks/baselines/"
    return json.loads(FULL[-1].read_text())


def merged_baselines() -> dict:
    """Every kept result file's benchmarks, a later file's over an earlier's (a partial run,
    e.g. of benchmarks added since the last full run, adds to the full one before it)."""
    out: dict = {"results": {}}
    for path in BASELINES:
        out["results"].update(json.loads(path.read_text())["results"])
    return out


def test_every_goal_reads_a_figure_from_a_full_run():
    # a benchmark that renames a figure must not silently turn a goal into "-"
    rows = goals.verdicts([merged_baselines()])
    assert [r["goal"] for r in rows if r["median"] is None] == []
    assert all(r["met"] in (True, False) for r in rows)


def test_verdicts_take_the_median_of_the_runs(baseline):
    import copy

    runs = [copy.deepcopy(baseline) for _ in range(3)]
    for doc, v in zip(runs, (0.5, 0.9, 0.85)):
        doc["results"]["audit"]["one_core"]["painting"]["ratio"]["median"] = v
    row = goals.verdicts(runs)[0]
    assert row["runs"] == [0.5, 0.9, 0.85] and row["median"] == 0.85 and row["met"] is True
    for doc, v in zip(runs, (0.5, 0.9, 0.7)):
        doc["results"]["audit"]["one_core"]["painting"]["ratio"]["median"] = v
    assert goals.verdicts(runs)[0]["met"] is False      # median 0.7 < 0.8, though one run made it


def test_a_run_without_a_figure_is_shown_as_missing(baseline, tmp_path):
    part = {"results": {"deal": baseline["results"]["deal"]}}
    p = tmp_path / "part.json"
    p.write_text(json.dumps(part))
    r = subprocess.run([sys.executable, str(BENCH / "goals.py"), str(FULL[-1]), str(p)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    audit_line = next(line for line in r.stdout.splitlines() if line.startswith("audit, one Painting"))
    run1, run2, median, met = audit_line.split()[-4:]
    assert run2 == "-" and median == run1      # the median of the runs that have it
    assert met == "NO"                         # the one run that has it is below 0.8


def test_goals_says_what_it_cannot_read(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    r = subprocess.run([sys.executable, str(BENCH / "goals.py"), str(bad)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "cannot read" in r.stderr and "Traceback" not in r.stderr


def test_compare_names_figures_by_their_identifying_key_and_gives_ratios():
    old = {"results": {"audit": {"many_files": [{"logs": 16, "rate": {"median": 10.0, "raw": [9, 10, 11]}}]}}}
    new = {"results": {"audit": {"many_files": [{"logs": 16, "rate": {"median": 12.0, "raw": [12, 12, 12]}}]}}}
    paths = dict(compare.figures(new["results"]))
    assert paths == {"audit.many_files[logs=16].logs": 16, "audit.many_files[logs=16].rate.median": 12.0}
    rows = {p: ratio for p, _, _, ratio in compare.compare(old, new, out=open("/dev/null", "w"))}
    assert rows["audit.many_files[logs=16].rate.median"] == pytest.approx(1.2)


def test_goals_find_a_benchmark_keyed_with_its_game():
    # compare.py keys a result "idle/painting" when the object names its game
    res = {"idle/painting": {"cpu_pct_of_one_core": {"total": {"median": 1.5}}}, "deal_start/modern-art": {"x": 1}}
    assert goals._bench(res, "idle")["cpu_pct_of_one_core"]["total"]["median"] == 1.5
    assert goals._bench(res, "deal_start") == {"x": 1}
    with pytest.raises(KeyError):
        goals._bench(res, "idl")
    row = next(r for r in goals.verdicts([{"results": res}]) if r["goal"].startswith("idle table, 6 peers"))
    assert row["median"] == 1.5 and row["met"] is True


def test_idle_bench_attributes_bytes_to_the_peer_at_the_other_end():
    import bench_idle

    # pid 10 and 20 talk over one connection (each end a socket), 30 joins later
    a = {"socks": {("127.0.0.1:5000", "127.0.0.1:6000"): (10, 1000), ("127.0.0.1:6000", "127.0.0.1:5000"): (20, 400)}}
    b = {"socks": {("127.0.0.1:5000", "127.0.0.1:6000"): (10, 1600), ("127.0.0.1:6000", "127.0.0.1:5000"): (20, 500),
                   ("127.0.0.1:7000", "127.0.0.1:5001"): (30, 50), ("127.0.0.1:5001", "127.0.0.1:7000"): (10, 70)}}
    assert bench_idle.pair_bytes(a, b) == {(10, 20): 600, (20, 10): 100, (30, 10): 50, (10, 30): 70}
