#!/usr/bin/env bash
# Run every benchmark once; each prints one JSON object.
set -euo pipefail
cd "$(dirname "$0")"
python bench_audit.py
python bench_latency.py random
python bench_latency.py heuristic
python bench_demo.py
