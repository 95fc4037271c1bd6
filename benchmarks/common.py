"""Shared benchmark helpers: real signed logs, a disk cache for them, and honest statistics.

* ``simulate`` plays a game between in-memory sans-IO peers (p2p.memnet): the logs real
  peers write, but slow (every peer replays every event).
* ``make_log`` writes the same kind of log from one table: every seat's bot decides from
  its own view, sealed moves are committed then revealed with fresh salts, every event is
  signed by its seat's key and checked by the table as it is appended.  Ten times faster:
  what the audit benchmark's thousands of logs are made with.
* ``cached_logs`` keeps made logs under ``$TMPDIR/easel-bench-cache/<version>/`` so they
  are made once; bump ``CACHE_VERSION`` when the log format or a game changes.
* ``stats`` turns repeated measurements into {median, min, max, raw}.
"""

from __future__ import annotations

import math

import hashlib
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nacl.signing import SigningKey  # noqa: E402

from core.events import commitment, game_id_of, genesis_sign_msg, make_event, make_genesis  # noqa: E402
from core.logfile import LOG_MAGIC, encode_record  # noqa: E402
from core.rng import Rng  # noqa: E402

CACHE_VERSION = "logs-v1"


def simulate(n: int = 6, seed: int = 1, rounds: int = 6) -> list[bytes]:
    """Play one full Painting game between n in-memory peers; return the canonical log entries."""
    from core.games.painting import HeuristicBot
    from p2p.memnet import play_in_memory

    sks = [SigningKey(bytes([seed % 250 + 1, i + 1]) * 16) for i in range(n)]
    keys = [bytes(sk.verify_key) for sk in sks]
    doc = {"game": "painting", "config": {"rounds": rounds}, "seats": keys, "table": seed.to_bytes(8, "big")}
    gid = game_id_of(doc)
    g = make_genesis(doc, [sk.sign(genesis_sign_msg(gid)).signature for sk in sks])
    signers = [(lambda sk: lambda m: sk.sign(m).signature)(sk) for sk in sks]
    peers = play_in_memory(g, signers, HeuristicBot(), seed=seed, shuffle=False)
    assert all(p.table.over for p in peers)
    return peers[0].log_entries


def make_log(game: str, n: int, seed: int, config: dict | None = None, registry: Any = None, bot: Any = None) -> list[bytes]:
    """One complete game of ``game`` at an n-seat table, written from one table; the entries.

    ``bot``: a bot level of the game (default: "heuristic" if it has one, else "random"),
    or any object with ``choose(view, seat, rng)``."""
    from core.table import Table

    if registry is None:
        import core.games as registry
    g_impl = registry.get(game)
    bots = getattr(g_impl, "bots", {})
    if bot is None or isinstance(bot, str):
        player = bots[bot if bot is not None else ("heuristic" if "heuristic" in bots else "random")]()
    else:
        player = bot
    sks = [SigningKey(hashlib.sha256(b"bench-seat/%s/%d/%d" % (game.encode(), seed, i)).digest()) for i in range(n)]
    keys = [bytes(sk.verify_key) for sk in sks]
    doc = {"game": game, "config": dict(config or {}), "seats": keys, "table": b"bench/%d" % seed}
    gid = game_id_of(doc)
    g = make_genesis(doc, [sk.sign(genesis_sign_msg(gid)).signature for sk in sks])
    signers = [(lambda sk: lambda m: sk.sign(m).signature)(sk) for sk in sks]
    t = Table.start(g, registry)
    out = [g.raw]
    seq = [0] * n
    sealed: dict = {}

    def put(seat: int, kind: str, body: dict):
        ev = make_event(signers[seat], gid, keys[seat], seq[seat], t.step.prev, kind, body)
        seq[seat] += 1
        return ev

    def random32(tag: str, seat: int) -> bytes:
        return hashlib.sha256(b"%s/%d/%d/%d/%s" % (game.encode(), seed, seat, t.phase, tag.encode())).digest()

    for _ in range(1_000_000):
        st = t.step
        if st is None:
            break
        batch = []
        for s in st.seats:
            if st.kind == "reveal":
                value, salt = sealed.pop(s)
                batch.append(put(s, "reveal", {"phase": st.phase, "value": value, "salt": salt}))
                continue
            if st.purpose == "seed":
                value = random32("seed", s)
            else:
                value = player.choose(t.view(s), s, Rng(random32("bot", s), "bench/bot"))
            if st.kind == "commit":
                salt = random32("salt", s)
                sealed[s] = (value, salt)
                batch.append(put(s, "commit", {"phase": st.phase, "hash": commitment(gid, keys[s], st.phase, value, salt)}))
            else:
                batch.append(put(s, "act", {"phase": st.phase, "action": value}))
        for ev in batch:
            t.append(ev)
            out.append(ev.raw)
    assert t.over, "bench game did not finish"
    return out


def log_file(entries: list[bytes]) -> bytes:
    return LOG_MAGIC + b"".join(encode_record(e) for e in entries)


def cache_dir() -> Path:
    d = Path(os.environ.get("EASEL_BENCH_CACHE") or Path(tempfile.gettempdir()) / "easel-bench-cache") / CACHE_VERSION
    d.mkdir(parents=True, exist_ok=True)
    return d


def _make_one(args) -> tuple[str, bytes]:
    key, game, n, seed, config, bot = args
    return key, log_file(make_log(game, n, seed, config, bot=bot))


def game_source_hash(game: str, registry: Any = None) -> str:
    """A hash of the game's own source files: logs made by other rules may not replay."""
    import inspect

    if registry is None:
        import core.games as registry
    mod = inspect.getmodule(type(registry.get(game)))
    folder = Path(inspect.getfile(mod)).parent
    files = sorted(folder.glob("*.py")) + sorted(folder.glob("*.json")) if folder.name != "tests" else [Path(inspect.getfile(mod))]
    h = hashlib.sha256()
    for f in files:
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:10]


def cached_logs(game: str, n: int, seeds: range, config: dict | None = None, workers: int | None = None, bot: str = "random") -> dict[str, bytes]:
    """{file name: log file bytes} for one game per seed, made once and kept in cache_dir()
    (keyed by CACHE_VERSION, the game's source files, the seat count, the config and the bot
    level; the random bots are the default: thousands of games are made in minutes)."""
    cfg = ",".join("%s=%s" % kv for kv in sorted((config or {}).items()))
    key = hashlib.sha256(("%s|%s|%s" % (cfg, game_source_hash(game), bot)).encode()).hexdigest()[:10]
    sub = cache_dir() / ("%s-%d-%s-%s" % (game, n, bot, key))
    sub.mkdir(exist_ok=True)
    want = {("%s-%05d.log" % (game, s)): s for s in seeds}
    missing = [(k, game, n, s, config, bot) for k, s in want.items() if not (sub / k).exists()]
    if missing:
        import multiprocessing

        w = workers or os.cpu_count() or 1
        if w > 1 and len(missing) > 8:
            with multiprocessing.get_context("fork").Pool(w) as pool:
                made = pool.imap_unordered(_make_one, missing, chunksize=8)
                for k, data in made:
                    _write(sub / k, data)
        else:
            for m in missing:
                k, data = _make_one(m)
                _write(sub / k, data)
    return {k: (sub / k).read_bytes() for k in want}


def _write(path: Path, data: bytes) -> None:
    tmp = path.with_suffix(".tmp%d" % os.getpid())
    tmp.write_bytes(data)
    os.replace(tmp, path)



def spawn_in_pty(argv: list, env: dict, cwd, rows: int = 30, cols: int = 100) -> tuple[int, int]:
    """Start ``argv`` (its first item a path) in ``cwd`` on a new pty of ``rows`` x ``cols``, its
    controlling terminal as a person's: the child's pid and the pty's master end."""
    import fcntl
    import pty
    import struct
    import termios

    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.chdir(cwd)
            os.execvpe(argv[0], argv, env)
        finally:
            os._exit(127)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    return pid, fd


def read_until(fd: int, mark: bytes, t0: float, deadline: float) -> tuple[float | None, bytes]:
    """Read a pty's master end ``fd`` (so the screen never blocks) until ``mark`` shows: the seconds since
    ``t0`` then, or None at ``deadline`` (time.monotonic()) or when the terminal closes; and the last bytes read."""
    import select
    import time

    seen = b""
    while time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not r:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:
            return None, seen
        if not data:
            return None, seen
        seen = (seen + data)[-4096:]
        if mark in seen:
            return time.monotonic() - t0, seen
    return None, seen


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def percentile(xs, p):
    xs = sorted(xs)
    if not xs:
        return None
    k = min(len(xs) - 1, max(0, int(round(p / 100 * (len(xs) - 1)))))
    return xs[k]


def stats(xs, digits: int = 3) -> dict:
    """{median, min, max, raw} of repeated measurements (raw in the order measured)."""
    r = (lambda x: round(x, digits)) if digits is not None else (lambda x: x)
    return {"median": r(median(xs)), "min": r(min(xs)), "max": r(max(xs)), "n": len(xs), "raw": [r(x) for x in xs]}


def load() -> list[float]:
    """The machine's load averages (1, 5, 15 min) now: other work competing for the cores."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover
        return []


def repeat(fn: Callable[[], float], times: int) -> list[float]:
    return [fn() for _ in range(times)]


# --------------------------------------------------------------------------- bot strength: intervals
def seed_base(text: str) -> int:
    """A benchmark's --seed: a whole number >= 0, or "auto" for a fresh one from os.urandom."""
    import os

    if str(text).lower() == "auto":
        return int.from_bytes(os.urandom(4), "big")
    try:
        value = int(text)
    except ValueError:
        raise SystemExit("--seed takes a whole number or 'auto', not %r" % text) from None
    if value < 0:
        raise SystemExit("--seed must be 0 or more")
    return value


def wilson(k: int, n: int, z: float = 1.96) -> list[float]:
    if n == 0:
        return [0.0, 1.0]
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return [round(max(0.0, c - h), 4), round(min(1.0, c + h), 4)]


def clustered(games: list[dict], z: float = 1.96) -> list[float]:
    """95 % interval of sum(ahead)/sum(pairs) with games as clusters."""
    g = len(games)
    a = [x["ahead"] for x in games]
    n = [x["ahead"] + x["behind"] + x["tied"] for x in games]
    tot = sum(n)
    if g < 2 or tot == 0:
        return [0.0, 1.0]
    p = sum(a) / tot
    nbar = tot / g
    var = sum((ai - p * ni) ** 2 for ai, ni in zip(a, n)) / (g * (g - 1) * nbar * nbar)
    h = z * math.sqrt(var)
    return [round(max(0.0, p - h), 4), round(min(1.0, p + h), 4)]


def signatures(files: dict[str, bytes]) -> tuple[int, list]:
    """(entries, [(VerifyKey, message, signature)] of every signature) in a set of log files:
    events, the genesis's seat signatures and time-out votes."""
    from nacl.signing import VerifyKey

    from core.events import Event, Genesis, Timeout, event_sign_msg, genesis_sign_msg, parse_entry, vote_sign_msg
    from core.logfile import parse

    sigs, entries = [], 0
    for data in files.values():
        keys = None
        for raw in parse(data).entries:
            entries += 1
            ent = parse_entry(raw, verify=False)
            if isinstance(ent, Event):
                sigs.append((VerifyKey(ent.author), event_sign_msg(ent.game_id, ent.author, ent.seq, ent.prev, ent.kind, ent.body), ent.sig))
            elif isinstance(ent, Genesis):
                keys = ent.doc["seats"]
                for key, sig in zip(keys, ent.sigs):
                    sigs.append((VerifyKey(key), genesis_sign_msg(ent.game_id), sig))
            elif isinstance(ent, Timeout):
                msg = vote_sign_msg(ent.game_id, ent.phase, ent.prev, list(ent.seats))
                for v, sig in ent.votes:
                    sigs.append((VerifyKey(keys[v]), msg, sig))
    return entries, sigs


def demo_runs(game: str, players: int, runs: int, seed_prefix: str) -> tuple[dict, list[bytes], list[dict]]:
    """``runs`` full ``easel demo --game GAME --players N --json`` games, each with its own seed and
    home: ({wall_s, demo_reported_s, baseline_cli_process_start_s}, the first peer's log of each,
    the demo's JSON of each).  The baseline is one ``easel games --json``: a CLI process start."""
    import json
    import subprocess
    import time

    root = Path(__file__).resolve().parent.parent
    walls, inner, starts, logs, objs = [], [], [], [], []
    env = dict(os.environ)
    env.pop("EASEL_FAULTS", None)
    for i in range(runs):
        t = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "cli", "games", "--json"], cwd=root, env=env, capture_output=True, timeout=60)
        starts.append(time.perf_counter() - t)
        if r.returncode != 0:
            raise SystemExit("easel games failed: %s" % r.stderr.decode(errors="replace")[-2000:])
        with tempfile.TemporaryDirectory() as d:
            env["EASEL_HOME"] = str(Path(d) / "home")
            t = time.perf_counter()
            out = subprocess.run(
                [sys.executable, "-m", "cli", "demo", "--game", game, "--players", str(players), "--seed", "%s-%d" % (seed_prefix, i),
                 "--out", str(Path(d) / "out"), "--json"],
                cwd=root, env=env, capture_output=True, text=True, timeout=600,
            )
            walls.append(time.perf_counter() - t)
            if out.returncode != 0:
                raise SystemExit("demo failed: %s" % (out.stdout[-1000:] + out.stderr[-2000:]))
            obj = json.loads(out.stdout.strip().splitlines()[-1])
            if obj["head"] is None:
                raise SystemExit("demo peers disagree: %r" % obj["heads"])
            inner.append(obj["seconds"])
            logs.append(Path(obj["logs"][0]).read_bytes())
            objs.append(obj)
    return {"wall_s": stats(walls), "demo_reported_s": stats(inner), "baseline_cli_process_start_s": stats(starts)}, logs, objs


def peer_env(home: Path) -> dict:
    """The environment of one spawned CLI peer of a benchmark table: the CLI's own (``easel_env``),
    its own ``EASEL_HOME``, and no trace or injected faults inherited from the caller."""
    from cli.children import easel_env

    env = easel_env()
    env["EASEL_HOME"] = str(home)
    env.pop("EASEL_TRACE", None)
    env.pop("EASEL_FAULTS", None)
    return env


def stop_groups(procs: list, sig: int, grace: float | None = None) -> None:
    """Send ``sig`` to each spawned peer's process group (a peer's bots included), then reap them:
    after ``grace`` seconds a group still running is killed."""
    import signal
    import subprocess

    for p in procs:
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            pass
    for p in procs:
        try:
            p.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
