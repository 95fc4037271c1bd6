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


@pytest.fixture(scope="module")
def baseline() -> dict:
    assert BASELINES, "no result file kept in benchmarks/baselines/"
    return json.loads(BASELINES[-1].read_text())


def test_every_goal_reads_a_figure_from_a_full_run(baseline):
    # a benchmark that renames a figure must not silently turn a goal into "-"
    rows = goals.verdicts([baseline])
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
    r = subprocess.run([sys.executable, str(BENCH / "goals.py"), str(BASELINES[-1]), str(p)],
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
