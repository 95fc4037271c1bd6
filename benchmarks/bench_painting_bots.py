"""Painting Game bots: how lively a table of bots is, and how strong the heuristic is.  Prints one JSON object.

Two measurements, ``--games`` games each (default 200):

* **table**: six heuristic bots, the default config.  Per seat: tokens left at the
  end (tokens given over a default game: 30 + 5 x 10 = 80), garnets left, points.
  Per game: empty moves (a move with no bid and no splash, over all six seats and
  all rounds: 36 moves in a default game), moves that bid nothing, moves that do not
  splash, conversions and extra submissions.  Reported as median, p10, p90, min,
  max and mean.  When the bot says why it left a part of its move empty (its
  ``reason`` after ``choose``), the words are tallied.
* **strength** (the old figure): four seats (``--strength-players``: any even
  number, half heuristic and half random), two heuristic and two random bots in
  six arrangements taken in turn (at 6 seats: the 20 ways to seat 3 + 3).  A game's (heuristic, random) seat pairs are the
  four pairs of a heuristic seat and a random seat; the figure is the share of
  those pairs where the heuristic seat finishes ahead: more points, or equal
  points and more tokens left (the rules' tie-break).  Reported overall with a
  95 % interval treating games as clusters, and as the median and spread (min,
  max) of the share over batches of 20 games.

* **levels** (``--levels``, instead of the two above): every pair of levels that the
  goals name — heuristic vs random, hard vs random, hard vs heuristic — at 4 seats (2 + 2,
  the six arrangements) and at 6 seats (3 + 3, the 20 arrangements in turn), ``--games``
  games each; the share of (A, B) seat pairs where the A seat finishes ahead, with a 95 %
  interval treating games as clusters, the share of A seats that end on no points, the
  tokens each level keeps, and why the pairs A did not win were lost (``lost``: A scored but
  B as much or more; A on no points and B scored; both on none, B with as many tokens or
  more).  Run it twice with other ``--seed`` bases to see
  the figure reproduce.  ``--pairs hard:heuristic,hard:random`` picks pairings, ``--seats 6``
  one table size.
* **timing** (``--timing N``): the hard bot's decision time on N views taken from six-seat
  games, six processes deciding at once (the hard bot measured in one, five more bots of
  ``--timing-others`` in the others, as at a table of bots on this machine): wall time per
  decision (median, p90, p99, max) and the CPU time it used (the machine may be shared).
* **demo** (``--demo N``): N six-bot ``easel demo --level hard`` games (real processes and
  network): wall time each.

``--bots FILE`` measures another copy of ``core/games/painting/bots.py`` (e.g. the
one before a change: ``git show HEAD:core/games/painting/bots.py > /tmp/b.py``);
``--option k=v`` changes the game config (e.g. ``--option starting_garnets=0``).

    python benchmarks/bench_painting_bots.py                      # 200 + 200 games, 2 processes
    python benchmarks/bench_painting_bots.py --games 20           # a quick run
    python benchmarks/bench_painting_bots.py --levels --games 100 --seed 1 --timing 60 --demo 1
    python benchmarks/bench_painting_bots.py --levels --games 100 --seed 2     # the same, other games
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import core.games.painting  # noqa: E402,F401  (the package a --bots file's relative imports need)
from core.games.painting import rules  # noqa: E402
from itertools import combinations  # noqa: E402

from common import clustered, percentile, seed_base, wilson  # noqa: E402

ARRANGEMENTS = ("HRHR", "RHRH", "HHRR", "RHHR", "RRHH", "HRRH")
BATCH = 20
_BOTS = None  # the bots module measured (set in each worker)


def load_bots(path: str | None):
    if not path:
        from core.games.painting import bots

        return bots
    spec = importlib.util.spec_from_file_location("core.games.painting._bench_bots", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _init(path: str | None) -> None:
    global _BOTS
    _BOTS = load_bots(path)


class Watched:
    """Wraps a bot; records every move it makes (and its stated reason, if it gives one)."""

    def __init__(self, bot) -> None:
        self.bot = bot
        self.moves: list[dict] = []
        self.reasons: list[str] = []

    def choose(self, view, seat, rng):
        action = self.bot.choose(view, seat, rng)
        self.moves.append(action)
        why = getattr(self.bot, "reason", None)
        if why:
            self.reasons.append(why if isinstance(why, str) else " / ".join("%s: %s" % kv for kv in sorted(why.items())))
        return action


def _bids(m: dict) -> bool:
    return any(isinstance(v, int) and v > 0 for v in (m.get("bids") or {}).values())


def _seed(kind: int, k: int, base: int) -> bytes:
    return (base * 1_000_003 + kind * 10_007 + k).to_bytes(8, "big") + bytes(24)


def play_table(spec: tuple) -> dict:
    k, base, config, players = spec
    line = [Watched(_BOTS.HeuristicBot()) for _ in range(players)]
    state, res = _BOTS.play_game(config, players, _seed(1, k, base), line)
    moves = [m for w in line for m in w.moves]
    return {
        "tokens": list(state.tokens),
        "garnets": list(state.garnets),
        "points": list(state.points),
        "empty": sum(1 for m in moves if not _bids(m) and m.get("splash") is None),
        "no_bid": sum(1 for m in moves if not _bids(m)),
        "no_splash": sum(1 for m in moves if m.get("splash") is None),
        "converts": sum(1 for m in moves if (m.get("convert") or 0) > 0),
        "garnets_converted": sum(m.get("convert") or 0 for m in moves),
        "extras": sum(1 for m in moves if m.get("extra") is not None),
        "moves": len(moves),
        "reasons": [r for w in line for r in w.reasons],
        "draw": bool(res.get("draw")),
    }


def arrangements(players: int) -> tuple[str, ...]:
    """Half heuristic (H), half random (R) seats: at 4 seats the six historical arrangements, at
    other even sizes every way of choosing the H seats (e.g. 20 at 6 seats)."""
    if players == 4:
        return ARRANGEMENTS
    return tuple("".join("H" if s in hs else "R" for s in range(players))
                 for hs in combinations(range(players), players // 2))


def play_mixed(spec: tuple) -> dict:
    k, base, config, players = spec
    arrs = arrangements(players)
    arr = arrs[k % len(arrs)]
    line = [Watched(_BOTS.HeuristicBot() if ch == "H" else _BOTS.RandomBot()) for ch in arr]
    state, _ = _BOTS.play_game(config, players, _seed(2 + (players != 4) * players, k, base), line)
    key = [(state.points[s], state.tokens[s]) for s in range(players)]
    ahead = behind = tied = 0
    for i, a in enumerate(arr):
        for j, b in enumerate(arr):
            if a == "H" and b == "R":
                if key[i] > key[j]:
                    ahead += 1
                elif key[i] < key[j]:
                    behind += 1
                else:
                    tied += 1
    h = [s for s, ch in enumerate(arr) if ch == "H"]
    r = [s for s, ch in enumerate(arr) if ch == "R"]
    return {"k": k, "ahead": ahead, "behind": behind, "tied": tied,
            "h_points": [state.points[s] for s in h], "r_points": [state.points[s] for s in r],
            "h_tokens": [state.tokens[s] for s in h],
            "h_empty": sum(1 for s in h for m in line[s].moves if not _bids(m) and m.get("splash") is None)}


LEVELS = {"R": "RandomBot", "H": "HeuristicBot", "X": "HardBot"}
LETTER = {"random": "R", "heuristic": "H", "hard": "X"}
PAIRS = ("heuristic:random", "hard:random", "hard:heuristic")
#: why an (A, B) pair was not won by A: A scored but B scored as much or more; A ended on no
#: points and B scored; both on no points and B kept as many tokens or more (the tie-break)
LOST = ("a_scored_b_as_much", "a_zero_b_scored", "both_zero_b_tokens")


def play_levels(spec: tuple) -> dict:
    """One game of level A against level B, half the seats each (arrangement k in turn)."""
    k, base, config, players, a, b = spec
    arrs = arrangements(players)
    arr = arrs[k % len(arrs)]
    line = [getattr(_BOTS, LEVELS[LETTER[a] if ch == "H" else LETTER[b]])() for ch in arr]
    salt = 100 + 10 * players + 3 * "RHX".index(LETTER[a]) + "RHX".index(LETTER[b])
    state, _ = _BOTS.play_game(config, players, _seed(salt, k, base), line)
    key = [(state.points[s], state.tokens[s]) for s in range(players)]
    ahead = behind = tied = 0
    lost = dict.fromkeys(LOST, 0)
    for i, x in enumerate(arr):
        for j, y in enumerate(arr):
            if x == "H" and y == "R":
                ahead += key[i] > key[j]
                behind += key[i] < key[j]
                tied += key[i] == key[j]
                if key[i] <= key[j]:
                    lost[LOST[0] if key[i][0] > 0 else LOST[1] if key[j][0] > 0 else LOST[2]] += 1
    return {"k": k, "ahead": ahead, "behind": behind, "tied": tied, "lost": lost,
            "a_points": [state.points[s] for s, ch in enumerate(arr) if ch == "H"],
            "b_points": [state.points[s] for s, ch in enumerate(arr) if ch == "R"],
            "a_tokens": [state.tokens[s] for s, ch in enumerate(arr) if ch == "H"],
            "b_tokens": [state.tokens[s] for s, ch in enumerate(arr) if ch == "R"]}


def levels(pool, args, options: dict) -> dict:
    out = {}
    for seats in args.seats:
        for pair in args.pairs:
            a, b = pair.split(":")
            games = sorted(pool.imap_unordered(play_levels, [(k, args.seed, options, seats, a, b) for k in range(args.games)],
                                               chunksize=2), key=lambda x: x["k"])
            ahead = sum(x["ahead"] for x in games)
            pairs = sum(x["ahead"] + x["behind"] + x["tied"] for x in games)
            out["%s_vs_%s_at_%d" % (a, b, seats)] = {
                "seats": seats, "a": a, "b": b, "games": len(games), "arrangements": len(arrangements(seats)),
                "pairs": pairs, "ahead": ahead, "tied": sum(x["tied"] for x in games),
                "ahead_share": round(ahead / pairs, 4), "ci95": clustered(games),
                "a_points": dist([p for x in games for p in x["a_points"]]),
                "b_points": dist([p for x in games for p in x["b_points"]]),
                "a_zero_share": round(sum(p == 0 for x in games for p in x["a_points"]) / max(1, sum(len(x["a_points"]) for x in games)), 4),
                "a_tokens": dist([t for x in games for t in x["a_tokens"]]),
                "b_tokens": dist([t for x in games for t in x["b_tokens"]]),
                "lost": {w: sum(x["lost"][w] for x in games) for w in LOST},
            }
    return out


def _views(n: int, base: int) -> list:
    """n (view, seat) decisions from six-seat games of heuristic and random bots (in order)."""
    out = []

    class Keep:
        def __init__(self, bot) -> None:
            self.bot = bot

        def choose(self, view, seat, rng):
            out.append((view, seat))
            return self.bot.choose(view, seat, rng)

    k = 0
    while len(out) < n:
        line = [Keep(_BOTS.HeuristicBot() if s % 2 else _BOTS.RandomBot()) for s in range(6)]
        _BOTS.play_game({}, 6, _seed(9, k, base), line)
        k += 1
    return out[:n]


def time_decisions(spec: tuple) -> list:
    """Decide on every view with a bot of ``level``; (wall s, cpu s) per decision."""
    n, base, level, shift = spec
    from core.rng import Rng

    views = _views(n, base)
    views = views[shift:] + views[:shift]
    bot = getattr(_BOTS, LEVELS[LETTER[level]])()
    times = []
    for i, (view, seat) in enumerate(views):
        w, c = time.perf_counter(), time.process_time()
        bot.choose(view, seat, Rng(_seed(10, i, base), "timing"))
        times.append((time.perf_counter() - w, time.process_time() - c))
    return times


def timing(args) -> dict:
    from multiprocessing import get_context

    ctx = get_context("fork")
    with ctx.Pool(6, initializer=_init, initargs=(args.bots,)) as pool:
        specs = [(args.timing, args.seed, "hard", 0)] + [(args.timing, args.seed, args.timing_others, 7 * i) for i in range(1, 6)]
        res = pool.map(time_decisions, specs, chunksize=1)
    walls = [w for w, _ in res[0]]
    cpus = [c for _, c in res[0]]

    def ms(xs: list[float]) -> dict:
        return {"median": round(percentile(xs, 50) * 1000, 1), "p90": round(percentile(xs, 90) * 1000, 1),
                "p99": round(percentile(xs, 99) * 1000, 1), "max": round(max(xs) * 1000, 1), "n": len(xs)}

    return {"decisions": len(walls), "other_processes": "5 x %s" % args.timing_others,
            "wall_ms": ms(walls), "cpu_ms": ms(cpus), "goal_p99_wall_ms": 1000,
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()]}


def demo(runs: int) -> dict:
    import subprocess
    import tempfile

    root = Path(__file__).resolve().parent.parent
    walls, ok = [], 0
    for i in range(runs):
        with tempfile.TemporaryDirectory() as d:
            t = time.perf_counter()
            out = subprocess.run([sys.executable, "-m", "cli", "demo", "--players", "6", "--level", "hard", "--seed",
                                  "bench-hard-%d" % i, "--out", d, "--json"], cwd=root, capture_output=True, text=True, timeout=600)
            walls.append(round(time.perf_counter() - t, 2))
            ok += out.returncode == 0
    return {"runs": runs, "completed": ok, "wall_s": walls, "goal_s": 30}


def dist(xs: list[float]) -> dict:
    xs = sorted(xs)
    if not xs:
        return {}

    def q(p: float):
        return xs[min(len(xs) - 1, max(0, int(round(p / 100 * (len(xs) - 1)))))]

    return {"median": q(50), "p10": q(10), "p90": q(90), "min": xs[0], "max": xs[-1],
            "mean": round(sum(xs) / len(xs), 2), "n": len(xs)}


def _option(text: str) -> tuple[str, object]:
    if "=" not in text:
        raise argparse.ArgumentTypeError("--option takes KEY=VALUE, not %r" % text)
    k, v = text.split("=", 1)
    try:
        return k, int(v)
    except ValueError:
        return k, v


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200, help="games per measurement (table, strength); at least 2")
    ap.add_argument("--procs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--seed", default="1",
                    help="seed base (default 1), or 'auto' for a fresh one (printed in the JSON); vary it "
                         "between runs so each run plays other games")
    ap.add_argument("--strength-players", type=int, default=4,
                    help="seats at the strength tables, half heuristic and half random (even, 4 by default)")
    ap.add_argument("--players", type=int, default=6, help="seats at the all-heuristic table (default 6)")
    ap.add_argument("--bots", default=None, help="a bots.py file to measure instead of the current one")
    ap.add_argument("--option", type=_option, action="append", default=[], metavar="KEY=VALUE",
                    help="a game option for every game (repeatable)")
    ap.add_argument("--levels", action="store_true",
                    help="measure the level pairings (%s) at 4 and 6 seats instead of the table and strength runs" % ", ".join(PAIRS))
    ap.add_argument("--pairs", type=lambda t: t.split(","), default=list(PAIRS), help="pairings A:B for --levels (comma-separated)")
    ap.add_argument("--seats", type=lambda t: [int(x) for x in t.split(",")], default=[4, 6], help="table sizes for --levels (even)")
    ap.add_argument("--timing", type=int, default=0, metavar="N", help="time the hard bot on N decisions, six processes at once")
    ap.add_argument("--timing-others", default="hard", choices=sorted(LETTER), help="the level of the five other processes")
    ap.add_argument("--demo", type=int, default=0, metavar="N", help="N six-bot 'easel demo --level hard' games, wall time each")
    args = ap.parse_args(argv)
    for pair in args.pairs:
        if len(pair.split(":")) != 2 or not all(x in LETTER for x in pair.split(":")):
            raise SystemExit("--pairs takes A:B with levels %s, not %r" % (", ".join(LETTER), pair))
    if any(x < 2 or x % 2 for x in args.seats):
        raise SystemExit("--seats takes even table sizes")
    if args.levels or args.timing or args.demo:
        args.seed = seed_base(args.seed)
        out = {"benchmark": "painting_bot_levels", "bots": args.bots or "core/games/painting/bots.py",
               "seed": args.seed, "games": args.games,
               "measure": "share of (A, B) seat pairs where the A seat finishes ahead (more points, or equal points "
                          "and more tokens left); half the seats each level, arrangements taken in turn; ci95: games as clusters"}
        t0 = time.perf_counter()
        if args.levels:
            with Pool(args.procs, initializer=_init, initargs=(args.bots,)) as pool:
                out["levels"] = levels(pool, args, dict(args.option))
        if args.timing:
            out["timing"] = timing(args)
        if args.demo:
            out["demo"] = demo(args.demo)
        out["wall_s"] = round(time.perf_counter() - t0, 1)
        out["procs"] = args.procs
        print(json.dumps(out))
        return out
    if args.games < 2:
        raise SystemExit("--games must be at least 2")
    if args.strength_players < 2 or args.strength_players % 2:
        raise SystemExit("--strength-players must be an even number from 2")
    args.seed = seed_base(args.seed)
    options = dict(args.option)
    try:
        config = rules.configure(options, args.players)
        rules.configure(options, args.strength_players)
    except Exception as exc:
        raise SystemExit("bad --option/--players: %s" % exc)
    t0 = time.perf_counter()
    with Pool(args.procs, initializer=_init, initargs=(args.bots,)) as pool:
        table = list(pool.imap_unordered(play_table, [(k, args.seed, options, args.players) for k in range(args.games)], chunksize=4))
        mixed = list(pool.imap_unordered(play_mixed, [(k, args.seed, options, args.strength_players)
                                                      for k in range(args.games)], chunksize=4))
    wall = time.perf_counter() - t0
    mixed.sort(key=lambda x: x["k"])
    given = config["starting_tokens"] + (config["rounds"] - 1) * config["tokens_per_round"]
    reasons: dict[str, int] = {}
    for g in table:
        for r in g["reasons"]:
            reasons[r] = reasons.get(r, 0) + 1
    ahead = sum(x["ahead"] for x in mixed)
    behind = sum(x["behind"] for x in mixed)
    tied = sum(x["tied"] for x in mixed)
    pairs = ahead + behind + tied
    batches = []
    for i in range(0, len(mixed) - BATCH + 1, BATCH):
        sub = mixed[i : i + BATCH]
        n = sum(x["ahead"] + x["behind"] + x["tied"] for x in sub)
        batches.append(round(sum(x["ahead"] for x in sub) / n, 4))
    out = {
        "benchmark": "painting_bots",
        "bots": args.bots or "core/games/painting/bots.py",
        "config": config,
        "games": args.games,
        "seed": args.seed,
        "table": {
            "players": args.players,
            "tokens_given_per_seat": given,
            "tokens_left_per_seat": dist([t for g in table for t in g["tokens"]]),
            "seats_ending_with_over_20_tokens": sum(1 for g in table for t in g["tokens"] if t > 20),
            "garnets_left_per_seat": dist([t for g in table for t in g["garnets"]]),
            "points_per_seat": dist([t for g in table for t in g["points"]]),
            "moves_per_game": table[0]["moves"],
            "empty_moves_per_game": dist([g["empty"] for g in table]),
            "no_bid_moves_per_game": dist([g["no_bid"] for g in table]),
            "no_splash_moves_per_game": dist([g["no_splash"] for g in table]),
            "converting_moves_per_game": dist([g["converts"] for g in table]),
            "garnets_converted_per_game": dist([g["garnets_converted"] for g in table]),
            "extras_per_game": dist([g["extras"] for g in table]),
            "draws": sum(g["draw"] for g in table),
            "reasons": dict(sorted(reasons.items(), key=lambda kv: -kv[1])),
        },
        "strength": {
            "measure": "share of (heuristic, random) seat pairs at %d-seat tables (%d + %d, %d arrangements) "
                       "where the heuristic seat finishes ahead (more points, or equal points and more tokens); "
                       "a pair equal on both is tied, counted apart (not ahead)"
                       % (args.strength_players, args.strength_players // 2, args.strength_players // 2,
                          len(arrangements(args.strength_players))),
            "players": args.strength_players,
            "pairs": pairs,
            "ahead": ahead,
            "behind": behind,
            "tied": tied,
            "ahead_share": round(ahead / pairs, 4) if pairs else None,
            "ahead_share_of_untied": round(ahead / (ahead + behind), 4) if ahead + behind else None,
            "ci95": clustered(mixed),
            "ci95_wilson_pairs": wilson(ahead, pairs),
            "per_%d_games" % BATCH: {"median": dist(batches).get("median"), "min": min(batches, default=None),
                                     "max": max(batches, default=None), "batches": batches},
            "heuristic_points": dist([p for x in mixed for p in x["h_points"]]),
            "random_points": dist([p for x in mixed for p in x["r_points"]]),
            "heuristic_tokens_left": dist([t for x in mixed for t in x["h_tokens"]]),
            "heuristic_empty_moves_per_game": dist([x["h_empty"] for x in mixed]),
        },
        "wall_s": round(wall, 1),
        "procs": args.procs,
    }
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
