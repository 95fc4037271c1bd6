"""How long ``easel play`` makes a person wait for their first decision.  Prints one JSON object.

For each game, ``--reps`` times (default 5; a fresh Easel home each): ``python -P -m cli play --game G``
is started in a pseudo-terminal of 100x30 (the real command, its real screen and its real bots), and
the time is taken from just before the process is started to the first moment its screen shows the
person a decision: the status line's " YOUR MOVE" (cli/shell.py ``_pane_status``, drawn only while the
UI's ``decide`` waits for the person), found in the bytes the terminal receives as they come (a stream
is read whole, so nothing drawn can be missed; no screen snapshot is polled).  Then the terminal is
closed (the person's terminal hangs up: SIGHUP) and the run waits for the command and every bot it
started (their pids from the game's ``local-bots.json``) to be gone; a process still there after
``--grace`` seconds is counted as an orphan (and killed).

The floor, measured in the same run, interleaved with the games (one floor sample before each
``easel play``): one CLI process start, ``--version``-style, that imports the whole CLI (what
``easel play`` must import and build before it can do anything: its commands and their parser, the
games, the live code, the screen): ``python -P -c "import cli.live, cli.shell; from cli.main import
main; main(['--version'])"``; and, for reference, the plain ``python -P -m cli --version`` (which
imports neither the live code nor the screen).  Every figure: median, min, max and the raw list; the ratio is each
game's median over the CLI floor's median.  Goal (issue 23): every game <= 2.5x the floor.

    python benchmarks/bench_first_decision.py [--reps 5] [--games painting,starving-artists,modern-art]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import load, read_until, spawn_in_pty, stats  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GOAL_RATIO = 2.5
MARK = b"YOUR MOVE"
TIMEOUT = 120.0     # s for one table to reach its first decision
GAMES = ("painting", "starving-artists", "modern-art")
FLOOR_CLI = ["-c", "import cli.live, cli.shell; from cli.main import main; main(['--version'])"]


def child_env(home: Path) -> dict:
    from cli.children import easel_env

    env = easel_env()
    env["EASEL_HOME"] = str(home)
    env["TERM"] = "xterm-256color"
    for k in ("EASEL_TRACE", "EASEL_FAULTS", "EASEL_PACE", "COLUMNS", "LINES"):
        env.pop(k, None)
    return env


def floor_once(code: list[str]) -> float:
    env = child_env(Path(tempfile.gettempdir()))
    t0 = time.monotonic()
    subprocess.run([sys.executable, "-P", *code], env=env, check=True, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    return time.monotonic() - t0


def alive(pid: int, started: str | None) -> bool:
    """Is the process ``pid`` that started at ``started`` (field 22 of /proc/PID/stat) still there (not a zombie)?"""
    try:
        stat = Path("/proc/%d/stat" % pid).read_text()
    except OSError:
        return False
    fields = stat.rsplit(")", 1)[1].split()
    return fields[0] != "Z" and (started is None or fields[19] == started)


def play_once(game: str, grace: float) -> dict:
    """One ``easel play``: seconds to the first decision on its screen, and the processes left after its terminal closed."""
    with tempfile.TemporaryDirectory(prefix="easel-first-") as tmp:
        home = Path(tmp)
        env = child_env(home)
        cmd = [sys.executable, "-P", "-m", "cli", "play", "--game", game, "--name", "Ann"]
        t0 = time.monotonic()
        pid, fd = spawn_in_pty(cmd, env, ROOT)
        first, seen = None, b""
        try:
            first, seen = read_until(fd, MARK, t0, t0 + TIMEOUT)
            bots = []
            for f in home.glob("games/*/local-bots.json"):
                bots += [(b["pid"], b.get("started")) for b in json.loads(f.read_text())["bots"] if b.get("pid")]
        finally:
            os.close(fd)          # the terminal closes: the foreground process group gets SIGHUP
        t_close = time.monotonic()
        rc = None
        while time.monotonic() < t_close + grace:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                rc = os.waitstatus_to_exitcode(status)
                break
            time.sleep(0.02)
        gone_s = None
        while time.monotonic() < t_close + grace:
            if rc is not None and not any(alive(p, s) for p, s in bots):
                gone_s = time.monotonic() - t_close
                break
            time.sleep(0.02)
        left = [p for p, s in bots if alive(p, s)] + ([pid] if rc is None else [])
        for p in left:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if rc is None:
            os.waitpid(pid, 0)
        if first is None:
            raise SystemExit("%s: no decision on the screen within %d s; the screen's last bytes: %r" % (game, TIMEOUT, seen[-400:]))
        return {"first": first, "bots": len(bots), "left": len(left), "gone_s": gone_s}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--grace", type=float, default=20.0, help="s after the terminal closes for every process to be gone")
    args = ap.parse_args()
    games = [g for g in args.games.split(",") if g]
    cli_floor: list[float] = []
    version_floor: list[float] = []
    firsts: dict = {g: [] for g in games}
    gone: dict = {g: [] for g in games}
    orphans = 0
    load_before = load()
    # warm the byte-code caches and the disk cache once (not measured)
    floor_once(FLOOR_CLI)
    for _ in range(args.reps):
        for g in games:
            cli_floor.append(floor_once(FLOOR_CLI))
            version_floor.append(floor_once(["-m", "cli", "--version"]))
            r = play_once(g, args.grace)
            firsts[g].append(r["first"])
            if r["gone_s"] is not None:
                gone[g].append(r["gone_s"])
            orphans += r["left"]
    floor_med = stats(cli_floor)["median"]
    out = {
        "benchmark": "first_decision",
        "reps": args.reps,
        "load_before": load_before,
        "load_after": load(),
        "floor_cli_import_s": stats(cli_floor),
        "floor_version_s": stats(version_floor),
        "games": {g: {"first_decision_s": stats(firsts[g]), "ratio_to_floor": round(stats(firsts[g])["median"] / floor_med, 2),
                      "all_gone_after_hangup_s": stats(gone[g]) if gone[g] else None} for g in games},
        "processes_left_after_hangup": orphans,
        "goal_ratio": GOAL_RATIO,
    }
    out["met"] = all(v["ratio_to_floor"] <= GOAL_RATIO for v in out["games"].values()) and orphans == 0
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
