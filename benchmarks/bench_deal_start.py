"""How long a Modern Art table makes people wait before the first auction.  Prints one JSON object.

A 5-seat Modern Art table through the real CLI peers, one OS process per seat, as ``easel demo``
starts them (seat 0 ``easel host --auto``, seats 1-4 ``easel bot --join``).  This script only
watches the files the peers write, polled every ``--poll`` seconds (default 0.01):

* start: the table is sealed, i.e. the last seat has joined and the genesis is signed; taken as
  the first moment any peer's game directory holds its ``roster`` (written as a peer's node
  starts, right after the seal; the lobby's signing round before it takes a few ms on loopback);
* ready: the first step a person decides (a step of purpose "move": the first auction's
  "offer a card") is open at every peer, i.e. every peer's log holds the entry that opened it.
  Found by replaying the longest log with core.table (the shared seed, the deal and any other
  automatic or chance step come before it); nothing of the deal's format is read;
* first card: the first card offered for auction is in every peer's log (ready + the first
  player's bot's thinking + one step).

While the table runs, this script only reads the logs' entry counts (and when each count was
first seen at every peer); it replays a log (which checks the deal's proofs: ~0.25 s of CPU at
5 seats) only once every peer's log holds 8 entries per seat (past the deal and into the first
auction, so the replay's CPU never competes with the peers inside the measured window), and
then reads the times from that record; if the first move and the entry after it are not among
the entries yet, it waits for ``--settle`` more.  (Before 2026-11-26 it replayed as the entries
came, inside the window: its proof checks took a share of the 2 cores the peers were using.)

Goal: start -> ready <= 1.5 s (median of the repetitions).  Every figure: median, min, max and
the raw list over ``--reps`` repetitions (default 5), a fresh table each.

    python benchmarks/bench_deal_start.py [--reps 5] [--players 5] [--level random]
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

from common import load, peer_env, stats, stop_groups  # noqa: E402

GAME = "modern-art"
GOAL_S = 1.5
TIMEOUT = 180.0   # s for one table to reach its first auction


class LogWatch:
    """One peer's log file, re-read only when its size changes: its entry count."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.path: Path | None = None
        self.size = -1
        self.entries: list = []

    def poll(self) -> int:
        from core.logfile import parse

        if self.path is None:
            found = list(self.home.glob("games/*/log"))
            if not found:
                return 0
            self.path = found[0]
        try:
            size = self.path.stat().st_size
        except OSError:
            return len(self.entries)
        if size != self.size:
            self.size = size
            self.entries = parse(self.path.read_bytes()).entries
        return len(self.entries)


class FirstMove:
    """Replays entries as they come; ``index``: the entry that opened the first "move" step."""

    def __init__(self) -> None:
        self.table = None
        self.done = 0
        self.index: int | None = None

    def feed(self, entries: list) -> None:
        import core.games as registry
        from core.events import parse_entry, parse_genesis
        from core.table import Table

        if self.index is not None or not entries:
            return
        if self.table is None:
            self.table = Table.start(parse_genesis(entries[0]), registry)
            self.done = 1
        t = self.table
        while self.done < len(entries):
            t.append(parse_entry(entries[self.done], keys=t.keys, verify=False))
            self.done += 1
            if t.step is not None and t.step.purpose == "move":
                self.index = self.done - 1
                return


def _first_all(history: list, index: int) -> float | None:
    """The first time every peer's log held more than ``index`` entries (history: (t, min count))."""
    for t, low in history:
        if low > index:
            return t
    return None


def run_once(players: int, level: str | None, seed: str, poll: float, settle: int = 8) -> dict:
    from cli.children import easel_command, free_port

    with tempfile.TemporaryDirectory() as d:
        port = free_port()
        homes = [Path(d) / ("peer-%d" % k) for k in range(players)]
        procs = []
        lv = ["--level", level] if level else []
        try:
            for k in range(players):
                env = peer_env(homes[k])
                if k == 0:
                    cmd = easel_command("host", "--game", GAME, "--players", str(players), "--port", str(port),
                                        "--auto", level or "random", "--seed", seed, "--unsafe-seed", "--bind", "127.0.0.1",
                                        "--no-advertise", "--timeout", "600")
                else:
                    cmd = easel_command("bot", "--join", "127.0.0.1:%d" % port, "--seed", seed, "--unsafe-seed", *lv)
                procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                              stdin=subprocess.DEVNULL, start_new_session=True))
            watches = [LogWatch(h) for h in homes]
            first = FirstMove()
            start = ready = card = None
            history: list = []            # (time, the fewest entries any peer's log holds), as it grows
            # 8 entries per seat: past the seed (2n), the deal's keys, shuffles, shares and checks (4n)
            # and a first auction step; only when every log holds them is the longest one replayed
            # (no replay inside the window; a first move further on is waited for)
            replay_at = 8 * players
            deadline = time.monotonic() + TIMEOUT
            while card is None:
                now = time.monotonic()
                if now > deadline:
                    raise SystemExit("the table did not reach its first auction in %.0f s" % TIMEOUT)
                dead = [p for p in procs if p.poll() is not None]
                if dead and card is None:
                    raise SystemExit("a peer exited before the first auction: %s" % dead[0].stderr.read().decode(errors="replace")[-1500:])
                if start is None and any(any(h.glob("games/*/roster")) for h in homes):
                    start = now
                if start is not None:
                    low = min(w.poll() for w in watches)
                    if not history or low > history[-1][1]:
                        history.append((now, low))
                    if low >= replay_at:
                        longest = max(watches, key=lambda w: len(w.entries))
                        first.feed(longest.entries)
                        if first.index is None or low <= first.index + 1:
                            replay_at = low + settle      # not there yet: wait for more entries
                        else:
                            ready = _first_all(history, first.index)
                            card = _first_all(history, first.index + 1)
                time.sleep(poll)
        finally:
            stop_groups(procs, signal.SIGKILL)
    return {"ready_s": ready - start, "first_card_s": card - start, "entries_before_first_move": first.index}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--level", default=None, help="the bots' level (default: the game's default; the host seat: random)")
    ap.add_argument("--poll", type=float, default=0.01)
    ap.add_argument("--settle", type=int, default=8, help="when the first move is not among the entries replayed yet: "
                                                           "how many more every log must hold before the next replay")
    a = ap.parse_args()
    if a.reps < 1:
        raise SystemExit("--reps must be at least 1")
    load_before = load()
    runs = [run_once(a.players, a.level, "deal-start-%d" % i, a.poll, a.settle) for i in range(a.reps)]
    ready = stats([r["ready_s"] for r in runs], 3)
    print(json.dumps({
        "benchmark": "deal_start",
        "game": GAME,
        "seats": a.players,
        "reps": a.reps,
        "seal_to_first_auction_s": ready,
        "seal_to_first_card_placed_s": stats([r["first_card_s"] for r in runs], 3),
        "entries_before_first_move": [r["entries_before_first_move"] for r in runs],
        "goal_s": GOAL_S,
        "goal_met": ready["median"] <= GOAL_S,
        "poll_s": a.poll,
        "load_before": load_before,
        "load_after": load(),
        "definition": "real CLI peers on loopback; start: the first peer's roster file appears (the table sealed: the last "
                      "seat joined); ready: every peer's log holds the entry that opens the first step a person decides "
                      "(the first auction's offer); first card: the first offer in every log; the peers' files polled "
                      "(entry counts only: the longest log is replayed after the window, not in it)",
    }))


if __name__ == "__main__":
    main()
