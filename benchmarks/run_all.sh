#!/usr/bin/env bash
# Run every benchmark; each prints one JSON object on one line.  Everything the benchmarks
# print is also collected into ONE JSON file: benchmarks/results/<date>.json, or --out FILE.
#   benchmarks/run_all.sh [--out FILE] [--compare OLD.json]
# --compare prints new/old for every numeric figure (benchmarks/compare.py), so a
# regression shows in one command.  Benchmark lines go at the end of this file: any line
# added there is collected too (the collection runs when the script exits).
set -euo pipefail
cd "$(dirname "$0")"
OUT="results/$(date +%Y-%m-%dT%H%M%S).json"
OLD=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT="$2"; shift 2 ;;
    --compare) OLD="$2"; shift 2 ;;
    *) echo "usage: $0 [--out FILE] [--compare OLD.json]" >&2; exit 2 ;;
  esac
done
case "$OUT" in /*) ;; *) OUT="$PWD/$OUT" ;; esac
if [ -n "$OLD" ]; then
  case "$OLD" in /*) ;; *) OLD="$OLDPWD/$OLD" ;; esac
  [ -f "$OLD" ] || { [ -f "${OLD#$OLDPWD/}" ] && OLD="$PWD/${OLD#$OLDPWD/}"; } || true
  [ -f "$OLD" ] || { echo "no such file: $OLD" >&2; exit 2; }
fi
RAW="$(mktemp)"
LOAD_BEFORE="$(python -c 'import os, json; print(json.dumps(list(os.getloadavg())))')"
exec 3>&1
exec > >(tee "$RAW")
TEE=$!
finish() {
  status=$?
  exec >&3
  wait "$TEE" 2>/dev/null || true
  python compare.py collect "$RAW" "$OUT" "{\"load_before\": $LOAD_BEFORE, \"exit_status\": $status}" >&2
  if [ -n "$OLD" ]; then
    python compare.py "$OLD" "$OUT"
  fi
  rm -f "$RAW"
  exit "$status"
}
trap finish EXIT
python bench_audit.py
python bench_latency.py random
python bench_latency.py heuristic
python bench_demo.py
python bench_starving.py
python bench_deal.py
python bench_flood.py
python bench_modern_art.py --games 50
python bench_deal_start.py
python bench_idle.py
python bench_leave.py
python bench_join.py
python bench_first_decision.py
