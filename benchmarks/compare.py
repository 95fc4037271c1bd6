"""Collect benchmark output into one JSON file, and compare two such files.

    python compare.py collect RAW.txt OUT.json     every line of RAW.txt that is a JSON object
                                                   (one per benchmark) -> OUT.json
    python compare.py OLD.json NEW.json            new/old ratio of every numeric figure

A figure is any number in the benchmarks' objects, named by its path (``audit.many_files
[logs=4096].entries_per_s.median``); list items with an identifying key (logs, log, seats,
players, level, bots, game) are named by it, others by position; ``raw`` lists (single
repetitions) are left out.  Ratios more than 10 % away from 1 are marked ``*``: whether up
is good depends on the figure (entries/s: up; latency: down).
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from typing import Any, Iterator

IDS = ("logs", "log", "seats", "players", "level", "bots", "game", "name")
DISAMBIGUATE = ("level", "bots", "mode", "game", "players")


def collect(raw_path: str, out_path: str, meta: dict | None = None) -> dict:
    results: dict = {}
    failed = []
    with open(raw_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                failed.append(line[:200])
                continue
            if not isinstance(obj, dict):
                continue
            key = str(obj.get("benchmark", "benchmark"))
            for f_ in DISAMBIGUATE:   # e.g. one latency benchmark run with two bot levels
                if f_ in obj and not isinstance(obj[f_], (dict, list)):
                    key = "%s/%s" % (key, obj[f_])
                    break
            base, k = key, 2
            while key in results:
                key, k = "%s#%d" % (base, k), k + 1
            results[key] = obj
    doc = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "host": platform.node(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "cores": os.cpu_count(),
        "load_after": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        **(meta or {}),
        "results": results,
    }
    if failed:
        doc["unreadable_lines"] = failed
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    return doc


def figures(obj: Any, path: str = "") -> Iterator[tuple[str, float]]:
    if isinstance(obj, bool) or obj is None:
        return
    if isinstance(obj, (int, float)):
        yield path, obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if k == "raw":
                continue
            yield from figures(v, "%s.%s" % (path, k) if path else str(k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            name = str(i)
            if isinstance(v, dict):
                for idk in IDS:
                    if idk in v and isinstance(v[idk], (str, int)) and not isinstance(v[idk], bool):
                        name = "%s=%s" % (idk, v[idk])
                        break
            yield from figures(v, "%s[%s]" % (path, name))


def compare(old: dict, new: dict, out=sys.stdout) -> list[tuple]:
    a = dict(figures(old.get("results", old)))
    b = dict(figures(new.get("results", new)))
    rows = []
    for path in b:
        if path in a:
            o, n = a[path], b[path]
            ratio = (n / o) if o else (1.0 if n == o else float("inf"))
            rows.append((path, o, n, ratio))
    width = max((len(r[0]) for r in rows), default=10)
    print("%-*s %14s %14s %8s" % (width, "figure", "old", "new", "new/old"), file=out)
    for path, o, n, ratio in rows:
        mark = " *" if abs(ratio - 1) > 0.10 else ""
        print("%-*s %14.6g %14.6g %8.3f%s" % (width, path, o, n, ratio, mark), file=out)
    only_old = [p for p in a if p not in b]
    only_new = [p for p in b if p not in a]
    if only_old:
        print("only in the old file: %d figures (e.g. %s)" % (len(only_old), ", ".join(only_old[:3])), file=out)
    if only_new:
        print("only in the new file: %d figures (e.g. %s)" % (len(only_new), ", ".join(only_new[:3])), file=out)
    return rows


def main(argv: list[str]) -> int:
    if len(argv) >= 3 and argv[0] == "collect":
        meta = json.loads(argv[3]) if len(argv) > 3 else None
        doc = collect(argv[1], argv[2], meta)
        print("wrote %s (%d benchmarks)" % (argv[2], len(doc["results"])))
        return 0
    if len(argv) == 2:
        with open(argv[0], encoding="utf-8") as f:
            old = json.load(f)
        with open(argv[1], encoding="utf-8") as f:
            new = json.load(f)
        compare(old, new)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:  # the reader stopped early (``| head``): nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
