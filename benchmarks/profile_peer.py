"""Where a peer's CPU goes during a game: one seat of an ``easel demo``-like table (real CLI peers,
loopback TLS) run under cProfile with a CPU-time clock (time.process_time: waiting for fsync or
the network costs nothing), the others as usual.  Prints the top entries as text (this is a
profile, not a benchmark: its figures come from one game).

    python benchmarks/profile_peer.py [--game painting] [--players 6] [--level random] [--top 30]
                                      [--filter REGEX] [--out FILE.prof] [--option rounds=20]

``--filter`` keeps the functions whose file matches (default: easel's own packages, core/ p2p/
cli/); start-up (imports, key and certificate set-up) is in the profile too: compare the step's
functions, not the total.
"""

from __future__ import annotations

import argparse
import io
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


def main() -> None:
    from cli.live import easel_command, easel_env, free_port

    ap = argparse.ArgumentParser()
    ap.add_argument("--game", default="painting")
    ap.add_argument("--players", type=int, default=6)
    ap.add_argument("--level", default="random")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--filter", default=r"/(core|p2p|cli)/")
    ap.add_argument("--sort", default="tottime")
    ap.add_argument("--out", default=None)
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a table option (e.g. rounds=20: a longer game)")
    a = ap.parse_args()
    out = a.out or os.path.join(tempfile.gettempdir(), "easel-peer-%d.prof" % os.getpid())
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
                    cmd = [sys.executable, "-c", CHILD, out] + cmd[cmd.index("bot"):]
            procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL))
        for p in procs:
            _, err = p.communicate(timeout=600)
            if p.returncode:
                raise SystemExit("a peer failed: %s" % err.decode(errors="replace")[-1500:])
    s = io.StringIO()
    st = pstats.Stats(out, stream=s)
    print("profile: %s (CPU seconds in the profiled seat: %.3f)" % (out, st.total_tt))
    st.sort_stats(a.sort).print_stats(a.filter, a.top)
    text = s.getvalue()
    print(text[text.index("ncalls") - 1:] if "ncalls" in text else text)


if __name__ == "__main__":
    main()
