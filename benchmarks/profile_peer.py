"""Where a peer's CPU goes during a game: one seat of an ``easel demo``-like table (real CLI peers,
loopback TLS) run under cProfile with a CPU-time clock (time.process_time: waiting for fsync or
the network costs nothing), the others as usual.  Prints the top entries as text (this is a
profile, not a benchmark: its figures come from one game).

    python benchmarks/profile_peer.py [--game painting] [--players 6] [--level random] [--top 30]
                                      [--filter REGEX] [--out FILE.prof] [--option rounds=20] [--tasks]

``--tasks``: no cProfile (its cost per call hides where a step's time goes) but the CPU time of
each trio task step of the profiled seat, summed per task (the connection readers, the senders,
the ticker, the decider...), and how many times each task ran, from the seat's first received
frame on, per step of the game: what a step costs in passes through the scheduler; and the
frames the seat received and sent a step, by message type.

``--filter`` keeps the functions whose file matches (default: easel's own packages, core/ p2p/
cli/); start-up (imports, key and certificate set-up) is in the profile too: compare the step's
functions, not the total.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import pstats
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHILD = r"""
import cProfile, runpy, sys, time
out = sys.argv[1]
sys.argv = ["easel"] + sys.argv[2:]
pr = cProfile.Profile(time.process_time)
pr.enable()
try:
    runpy.run_module("cli", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
finally:
    pr.disable()
    pr.dump_stats(out)
"""


TASKS_CHILD = r"""
import json, runpy, sys, time
out = sys.argv[1]
sys.argv = ["easel"] + sys.argv[2:]
import trio
import p2p.node as N
import p2p.protocol as P
from core.encoding import decode
acc, first, nodes = {}, [None], []

class Steps(trio.abc.Instrument):
    def before_task_step(self, task):
        self.t = time.process_time()
    def after_task_step(self, task):
        if first[0] is not None:
            d = acc.setdefault(task.name.rsplit(".", 1)[-1], [0, 0.0])
            d[0] += 1
            d[1] += time.process_time() - self.t

_run = trio.run
def run(*a, **k):
    k["instruments"] = list(k.get("instruments", ())) + [Steps()]
    return _run(*a, **k)
trio.run = run
_receive = P.Peer.receive
def receive(self, *a, **k):
    if first[0] is None:
        first[0] = time.process_time()
    return _receive(self, *a, **k)
P.Peer.receive = receive
frames = {"in": {}, "out": {}}
def kind(msg):
    try:
        return str(decode(msg)[0])
    except Exception:
        return "?"
_decode = P.decode      # Peer.receive decodes each frame once, then routes it (Peer._ROUTES)
def decode_counted(*a, **k):
    msg = _decode(*a, **k)
    if first[0] is not None and msg is not None:
        kd = msg.KIND; frames["in"][kd] = frames["in"].get(kd, 0) + 1
    return msg
P.decode = decode_counted
_enqueue = N.GameNode._enqueue
def enqueue(self, c, msg):
    if first[0] is not None:
        k = kind(msg); frames["out"][k] = frames["out"].get(k, 0) + 1
    return _enqueue(self, c, msg)
N.GameNode._enqueue = enqueue
_init = N.GameNode.__init__
def init(self, *a, **k):
    _init(self, *a, **k)
    nodes.append(self)
N.GameNode.__init__ = init
try:
    runpy.run_module("cli", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
node = nodes[-1] if nodes else None
json.dump({"tasks": acc, "cpu": time.process_time() - (first[0] or 0), "steps": len(node.peer.table.starts) if node else 0,
           "inputs": getattr(node, "inputs", None), "pokes": getattr(node, "pokes", None), "frames": frames}, open(out, "w"))
"""


def print_tasks(path: str) -> None:
    r = json.loads(Path(path).read_text())
    steps = max(r["steps"], 1)
    print("CPU of the profiled seat from its first received frame on: %.1f ms over %d steps, %.3f ms a step" % (r["cpu"] * 1000, steps, r["cpu"] * 1000 / steps)
          + ("; inputs %d, of which %d woke the ticker" % (r["inputs"], r["pokes"]) if r["inputs"] is not None else ""))
    print("trio task runs a step: %.1f" % (sum(n for n, _ in r["tasks"].values()) / steps))
    for way, what in (("in", "received"), ("out", "sent (one per connection)")):
        kinds = r["frames"][way]
        print("frames %s a step: %.1f (%s)" % (what, sum(kinds.values()) / steps,
                                             ", ".join("%s %.1f" % (k, n / steps) for k, n in sorted(kinds.items()))))
    print("%-28s %8s %10s %12s %12s" % ("task", "runs", "runs/step", "ms/step", "us/run"))
    for name, (n, t) in sorted(r["tasks"].items(), key=lambda x: -x[1][1]):
        print("%-28s %8d %10.1f %12.3f %12.1f" % (name[:28], n, n / steps, t * 1000 / steps, t * 1e6 / max(n, 1)))


def main() -> None:
    from cli.children import easel_command, easel_env, free_port

    ap = argparse.ArgumentParser()
    ap.add_argument("--game", default="painting")
    ap.add_argument("--players", type=int, default=6)
    ap.add_argument("--level", default="random")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--filter", default=r"/(core|p2p|cli)/")
    ap.add_argument("--sort", default="tottime")
    ap.add_argument("--out", default=None)
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a table option (e.g. rounds=20: a longer game)")
    ap.add_argument("--tasks", action="store_true", help="CPU per trio task of the profiled seat (no cProfile)")
    a = ap.parse_args()
    out = a.out or os.path.join(tempfile.gettempdir(), "easel-peer-%d.%s" % (os.getpid(), "json" if a.tasks else "prof"))
    with tempfile.TemporaryDirectory() as d:
        port = free_port()
        procs = []
        for k in range(a.players):
            env = easel_env()
            env["EASEL_HOME"] = str(Path(d) / ("peer-%d" % k))
            env.pop("EASEL_FAULTS", None)
            if k == 0:
                cmd = easel_command("host", "--game", a.game, "--players", str(a.players), "--port", str(port), "--auto", a.level,
                                    "--seed", "profile", "--unsafe-seed", "--bind", "127.0.0.1", "--no-advertise")
                for opt in a.option:
                    cmd += ["--option", opt]
            else:
                cmd = easel_command("bot", "--join", "127.0.0.1:%d" % port, "--level", a.level, "--seed", "profile", "--unsafe-seed")
                if k == 1:   # the profiled seat: a bot, like most of the table
                    cmd = [sys.executable, "-c", TASKS_CHILD if a.tasks else CHILD, out] + cmd[cmd.index("bot"):]
            procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL))
        for p in procs:
            _, err = p.communicate(timeout=600)
            if p.returncode:
                raise SystemExit("a peer failed: %s" % err.decode(errors="replace")[-1500:])
    if a.tasks:
        print_tasks(out)
        return
    s = io.StringIO()
    st = pstats.Stats(out, stream=s)
    print("profile: %s (CPU seconds in the profiled seat: %.3f)" % (out, st.total_tt))
    st.sort_stats(a.sort).print_stats(a.filter, a.top)
    text = s.getvalue()
    print(text[text.index("ncalls") - 1:] if "ncalls" in text else text)


if __name__ == "__main__":
    main()
