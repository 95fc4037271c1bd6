"""Modern Art: how long open auctions take (raise rounds) and the bots' strength.  Prints one JSON object.

1. Open auctions: ``--games`` bot games at each of 3, 4 and 5 seats (seats take the levels easy,
   medium, hard in turn, rotated by the game's number), played with the local driver
   (``bots.play_game``'s loop: an open deal, each seat its own view).  For every open auction: its
   raise rounds (``State.open_round`` when it sold), and how often each seat was asked in it.
   Figures per table size: median, 95th percentile, max of raise rounds, and the spread of the
   per-game medians over ``--reps`` slices of the games (>= 5).  Goal: median <= 3, p95 <= 6.
2. Bot strength (as ``bench_modern_art.py``): ``--strength-games`` games per pairing (medium vs
   easy, hard vs medium) at 4-seat tables, two seats of each level, six arrangements in turn; the
   share of (stronger, weaker) seat pairs where the stronger seat ends with strictly more money,
   ties counted apart.  Goals: medium >= 80 % over easy, hard >= 60 % over medium.

Seeds: ``--seed`` (default: drawn from the clock, printed in the output) varies every game of a run.

    python benchmarks/bench_ma_auctions.py                              # 200 games a size, 200 a pairing
    python benchmarks/bench_ma_auctions.py --games 20 --strength-games 0 --seed 7   # a quick run
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.games.modern_art import rules  # noqa: E402
from core.games.modern_art.bots import EasyBot, HardBot, MediumBot  # noqa: E402
from core.rng import Rng  # noqa: E402

from common import clustered, load, percentile, stats, wilson  # noqa: E402

LEVELS = {"easy": EasyBot, "medium": MediumBot, "hard": HardBot}
ORDER = ("easy", "medium", "hard")
PAIRINGS = (("medium", "easy"), ("hard", "medium"))
FOUR_SEAT = ("SWSW", "WSWS", "SSWW", "WSSW", "WWSS", "SWWS")
GOALS = {"medium/easy": 0.8, "hard/medium": 0.6}


def _seed(base: int, *parts: int) -> bytes:
    x = base
    for p in parts:
        x = (x * 1_000_003 + p) % (1 << 64)
    return x.to_bytes(8, "big") + bytes(24)


def run_game(players: int, seed: bytes, line: list) -> tuple[rules.State, list[dict]]:
    """``bots.play_game``'s loop, watching every open auction: [{"rounds", "asked": {seat: times}}]."""
    deal = rules.deal_open(seed)
    state = rules.setup({}, players, seed)
    auctions: list[dict] = []
    cur = None
    for k in range(5000):
        t = rules.turn(state)
        if t.kind == "over":
            return state, auctions
        if state.phase == "open":
            if cur is None:
                cur = {"rounds": 0, "asked": {}}
                auctions.append(cur)
            cur["rounds"] = state.open_round
            for s in t.seats:
                cur["asked"][s] = cur["asked"].get(s, 0) + 1
        else:
            cur = None
        actions = []
        for s in t.seats:
            rng = Rng(seed, "%s/play/bot/%d/%d" % (rules.NAME, s, k))
            raw = line[s].choose(rules.view(state, s, rules.known_for(state, s, deal)), s, rng)
            actions.append(rules.check_open(state, s, raw, deal))
        before = state
        for s, a in zip(t.seats, actions):
            state = rules.apply_unchecked(state, s, a)
        if before.phase == "open" and state.phase == "open" and state.open_round == 1:
            cur = None      # (never: a new open auction always passes through another phase first)
    raise RuntimeError("game did not end")


def auction_game(spec: tuple) -> dict:
    players, g, base = spec
    line = [LEVELS[ORDER[(g + s) % 3]]() for s in range(players)]
    t0 = time.perf_counter()
    _, auctions = run_game(players, _seed(base, players, g), line)
    return {"players": players, "rounds": [a["rounds"] for a in auctions],
            "asked_max": [max(a["asked"].values()) if a["asked"] else 0 for a in auctions],
            "wall": time.perf_counter() - t0}


def strength_game(spec: tuple) -> dict:
    strong, weak, k, base = spec
    arr = FOUR_SEAT[k % len(FOUR_SEAT)]
    line = [LEVELS[strong if ch == "S" else weak]() for ch in arr]
    state, _ = run_game(4, _seed(base, 99, PAIRINGS.index((strong, weak)), k), line)
    money = list(state.money)
    ahead = behind = tied = 0
    for i, a in enumerate(arr):
        for j, b in enumerate(arr):
            if a == "S" and b == "W":
                ahead += money[i] > money[j]
                behind += money[i] < money[j]
                tied += money[i] == money[j]
    return {"pairing": "%s/%s" % (strong, weak), "ahead": ahead, "behind": behind, "tied": tied}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200, help="bot games at each of 3, 4, 5 seats (0 skips them)")
    ap.add_argument("--strength-games", type=int, default=200, help="games per strength pairing (0 skips)")
    ap.add_argument("--reps", type=int, default=5, help="slices of the games for the spread of the medians")
    ap.add_argument("--procs", type=int, default=2, help="worker processes")
    ap.add_argument("--seed", type=int, default=None, help="seed base (default: from the clock; printed)")
    args = ap.parse_args(argv)
    if args.games < 0 or args.strength_games < 0 or args.procs < 1 or args.reps < 1:
        raise SystemExit("--games >= 1, --strength-games >= 0, --procs >= 1, --reps >= 1")
    base = args.seed if args.seed is not None else time.time_ns() % (1 << 48)
    out: dict = {"benchmark": "ma_auctions", "seed": base, "load_avg_at_start": load()}
    specs = [(p, g, base) for p in (3, 4, 5) for g in range(args.games)]
    specs.sort(key=lambda s: -s[0])          # the slow 5-seat games first, so the pool's tail is short
    t0 = time.perf_counter()
    with Pool(args.procs) as pool:
        games = list(pool.imap_unordered(auction_game, specs, chunksize=2))
        out["open_auctions"] = {}
        for p in (3, 4, 5) if args.games else ():
            sub = [x for x in games if x["players"] == p]
            rounds = sorted(r for x in sub for r in x["rounds"])
            asked = sorted(r for x in sub for r in x["asked_max"])
            chunk = max(1, len(sub) // args.reps)
            slices = [sorted(r for x in sub[i * chunk:(i + 1) * chunk] for r in x["rounds"]) for i in range(args.reps)]
            slices = [s for s in slices if s]
            med, p95 = percentile(rounds, 50), percentile(rounds, 95)
            out["open_auctions"]["%d seats" % p] = {
                "games": len(sub), "open_auctions": len(rounds),
                "raise_rounds": {"median": med, "p95": p95, "max": rounds[-1] if rounds else None,
                                 "mean": round(sum(rounds) / len(rounds), 2) if rounds else None,
                                 "median_per_slice": stats([percentile(s, 50) for s in slices]),
                                 "p95_per_slice": stats([percentile(s, 95) for s in slices])},
                "times_one_seat_asked": {"median": percentile(asked, 50), "p95": percentile(asked, 95),
                                         "max": asked[-1] if asked else None},
                "game_wall_s": stats([x["wall"] for x in sub]),
                "goal": "median <= 3 and p95 <= 6 raise rounds",
                "goal_met": med is not None and med <= 3 and p95 <= 6,
            }
        print(json.dumps({"partial": "open_auctions", "seed": base, "open_auctions": out["open_auctions"]}),
              file=sys.stderr, flush=True)
        if args.strength_games:
            specs2 = [(s, w, k, base) for s, w in PAIRINGS for k in range(args.strength_games)]
            specs2.sort(key=lambda s: s[0] != "hard")
            res = list(pool.imap_unordered(strength_game, specs2, chunksize=1))
            out["strength"] = {"table": "4 seats, 2 of each level, six arrangements in turn",
                               "measure": "share of (stronger, weaker) seat pairs where the stronger ends with "
                                          "strictly more money; ties counted apart", "pairings": {}}
            for s, w in PAIRINGS:
                key = "%s/%s" % (s, w)
                sub = [x for x in res if x["pairing"] == key]
                ahead, behind, tied = (sum(x[k] for x in sub) for k in ("ahead", "behind", "tied"))
                pairs = ahead + behind + tied
                out["strength"]["pairings"][key] = {
                    "games": len(sub), "pairs": pairs, "ahead": ahead, "behind": behind, "tied": tied,
                    "ahead_share": round(ahead / pairs, 4), "ci95": clustered(sub), "ci95_wilson_pairs": wilson(ahead, pairs),
                    "goal": GOALS[key], "goal_met": ahead / pairs >= GOALS[key]}
    out["wall_s"] = round(time.perf_counter() - t0, 1)
    out["load_avg_at_end"] = load()
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
