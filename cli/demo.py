"""easel demo: a headless game, every seat a bot in its own process (cli/children.py), checked by the audit."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .children import easel_command, easel_env, free_port
from .common import EXIT_INVALID, EXIT_OK, jsonable, registry
from .options import LiveArgs


def demo(args: LiveArgs) -> int:
    t0 = time.monotonic()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    port = free_port()
    procs = []
    base = easel_command()
    for k in range(args.players):
        env = easel_env()
        env["EASEL_HOME"] = str(out / ("peer-%d" % k))
        if k == 0:
            cmd = base + ["host", "--game", args.game, "--players", str(args.players), "--port", str(port), "--auto", args.level,
                          "--seed", args.seed, "--unsafe-seed", "--bind", "127.0.0.1", "--no-advertise", "--timeout", str(args.timeout),
                          "--name", "bot 0"]
            for key, value in args.options.items():
                cmd += ["--option", "%s=%s" % (key, _option_text(value))]
        else:
            cmd = base + ["bot", "--join", "127.0.0.1:%d" % port, "--level", args.level, "--seed", args.seed, "--unsafe-seed",
                          "--name", "bot %d" % k]
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL))
    outputs = []
    deadline = time.monotonic() + 600
    for p in procs:
        try:
            so, se = p.communicate(timeout=max(1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            so, se = p.communicate()
        outputs.append((p.returncode, so.decode(errors="replace"), se.decode(errors="replace")))
    from core.audit import audit

    # the logs of *this* game: each peer reports its log's path (an --out used
    # before also holds the logs of earlier games)
    logs = []
    for _, so, _ in outputs:
        try:
            logs.append(json.loads(so.strip().splitlines()[-1])["log"])
        except (ValueError, IndexError, KeyError, TypeError):
            pass
    heads, results = [], None
    for lp in logs:
        rep = audit({lp: Path(lp).read_bytes()}, registry)
        heads.append(rep["head"])
        if rep["complete"]:
            results = rep["results"]
    same = len(logs) == args.players and len(set(heads)) == 1 and all(rc == 0 for rc, _, _ in outputs)
    seconds = round(time.monotonic() - t0, 3)
    if args.json:
        print(json.dumps({"logs": logs, "head": heads[0] if same else None, "heads": heads, "results": jsonable(results), "seconds": seconds}, sort_keys=True))
    else:
        for i, (rc, so, se) in enumerate(outputs):
            if rc != 0:
                print("peer %d exited %d: %s" % (i, rc, se.strip()[-2000:]), file=sys.stderr)
        print("%s: %d peers, head %s, %.1f s" % ("OK" if same else "FAILED", len(logs), heads[0] if heads else None, seconds))
        if results:
            print(json.dumps(jsonable(results), sort_keys=True))
    return EXIT_OK if same else EXIT_INVALID


def _option_text(value: Any) -> str:
    """An option value as ``--option`` reads it back (parse_option_value)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)

