"""Past games: ``easel history``, ``last`` as a log, and the audit's words shared by audit, replay and show.

A game lives in ``<home>/games/<game id>/`` (its log, roster, spool and
secrets); ``easel history`` lists them newest first (date, game, seats,
result, the log file); ``last`` stands for the newest one's log wherever a
command takes a log file (replay, show, export, audit).

``audit_lines`` words an audit report as ``easel audit`` prints it; replay
and show print the same lines as a warning when a log is damaged or the game
is unfinished (``log_warning``), so no viewer shows a log audit would reject
without saying so.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .common import UsageError, jsonable, registry

LAST = "last"


# ----------------------------------------------------------------------------- the audit in words
def result_lines(game_name: str, result: Any, players: int, seat: int | None = None, width: int = 100) -> list[str]:
    """A finished game's result in the game screen's own words (its game-over table), plain text;
    JSON only when the screen cannot word it."""
    from .screens import Context, Snapshot, screen_for

    try:
        snap = Snapshot(seat=seat, players=players, view=None, phase=0, step_kind=None, step_purpose=None,
                        step_label="", step_seats=(), missing=(), over=True, result=result, log=(), moves=0,
                        entries=0, game_name=game_name)
        ctx = Context(seat=seat, snap=snap)
        lines = screen_for(game_name).game_over_lines(ctx, width)
        out = ["".join(t for _, t in line[:]).rstrip() for line in lines]
        out = [t for t in out if t and t.strip() != "GAME OVER"]
        if out:
            return out
    except Exception:
        pass
    return [json.dumps(jsonable(result), sort_keys=True)]


def audit_lines(rep: dict, players: int | None = None) -> list[str]:
    """The lines ``easel audit`` prints for report ``rep`` (core.audit's report)."""
    status = "VALID" if rep["valid"] else "INVALID"
    out = ["%s  game=%s  entries=%d  head=%s" % (status, rep["game"], rep["events"], rep["head"])]
    if rep.get("names"):
        out.append("  players: %s" % ", ".join("%d %s" % (i, n) for i, n in enumerate(rep["names"])))
    for p in rep["problems"]:
        where = "entry %s" % p["index"] if p.get("index") is not None else "-"
        out.append("  problem: %s %s: %s" % (p.get("file"), where, p["problem"]))
    if rep.get("cut_moves"):
        out.append("  DISPUTED: %d signed move(s) were cut by time-out certificates although they were made "
                   "(the notes name each, and who signed the certificate)" % len(rep["cut_moves"]))
    for p in rep["notes"]:
        out.append("  note: entry %s: %s" % (p["index"], p["note"]))
    if rep["valid"] and not rep["complete"]:
        out.append("  the log is valid so far but the game is not finished")
    if rep["complete"]:
        res = rep["results"]
        n = players or len((res or {}).get("ranking") or []) if isinstance(res, dict) else players or 0
        out.append("  result:")
        out += ["    " + t for t in result_lines(rep["game"] or "", res, n or 0)]
    return out


def audit_report(path: str, data: bytes) -> dict:
    from .auditing import audit_files

    return audit_files({path: data}, games=registry)


def log_warning(path: str, data: bytes) -> list[str]:
    """[] for a valid, finished log; else the audit's lines after a one-line warning."""
    rep = audit_report(path, data)
    if rep["valid"] and rep["complete"]:
        return []
    head = ("WARNING: this log is damaged (easel audit says INVALID): what is shown stops before the first bad entry"
            if not rep["valid"] else "WARNING: this game is not finished (easel audit: valid so far, unfinished)")
    return [head] + [ln for ln in audit_lines(rep) if not ln.startswith("  result:")]


# ----------------------------------------------------------------------------- past games
@dataclass
class PastGame:
    log: Path
    when: float                 # the log's last change (seconds since the epoch)
    game: str
    players: int
    seat: int | None            # our seat (this home's key), None if we did not play
    entries: int
    status: str                 # finished, unfinished, damaged
    result: str                 # in words

    def row(self) -> dict:
        return {"log": str(self.log), "date": time.strftime("%Y-%m-%d %H:%M", time.localtime(self.when)),
                "game": self.game, "players": self.players, "seat": self.seat, "entries": self.entries,
                "status": self.status, "result": self.result}


def games_dir() -> Path:
    from p2p.identity import data_dir

    return data_dir() / "games"


def _my_key() -> bytes | None:
    """This home's public key, if it has one (never creates one)."""
    from p2p.identity import IdentityError, key_path, load_or_create

    try:
        return load_or_create().public if key_path().exists() else None
    except (IdentityError, OSError, ValueError):
        return None


def _result_words(res: Any, seat: int | None) -> str:
    if not isinstance(res, dict):
        return "over"
    ranking = res.get("ranking")
    winners = res.get("winners")
    parts = []
    if isinstance(winners, list) and winners and isinstance(ranking, list) and len(ranking) > 1:
        parts.append("winner%s %s" % ("s" if len(winners) > 1 else "",
                                      ", ".join("you" if w == seat else "seat %d" % w for w in winners)))
    elif res.get("draw"):
        parts.append("a draw")
    if isinstance(ranking, list) and seat in ranking and len(ranking) > 1:
        places = res.get("places")
        place = places[seat] if isinstance(places, list) and seat < len(places) else ranking.index(seat) + 1
        from .screens import ordinal

        parts.append("you %s of %d" % (ordinal(place), len(ranking)))
    if isinstance(ranking, list) and len(ranking) == 1 and res.get("rating"):
        parts.append("solo rating %s" % res["rating"])
    return ", ".join(parts) or "over"


def read_past_game(log: Path, me: bytes | None) -> PastGame | None:
    from core.logfile import parse
    from core.table import RuleError, Table

    try:
        data = log.read_bytes()
        when = log.stat().st_mtime
    except OSError:
        return None
    parsed = parse(data)
    if parsed.kind != "log" or not parsed.entries:
        return None
    try:
        t = Table.start(parsed.entries[0], registry)
    except Exception:
        return PastGame(log, when, "?", 0, None, len(parsed.entries), "damaged", "not a valid genesis")
    seats = list(t.genesis.doc.get("seats") or [])
    seat = seats.index(me) if me is not None and me in seats else None
    status, words = "unfinished", ""
    for raw in parsed.entries[1:]:
        try:
            t.append(raw)
        except RuleError as exc:
            status, words = "damaged", "entry %d is invalid (%s)" % (t.count, str(exc)[:60])
            break
        except Exception as exc:
            status, words = "damaged", "entry %d is invalid (%s)" % (t.count, type(exc).__name__)
            break
    if parsed.problem and status != "damaged":
        status, words = "damaged", parsed.problem
    if status != "damaged":
        if t.over:
            status, words = "finished", _result_words(t.result(), seat)
        else:
            # (the row stays within 100 columns: the command is the whole explanation)
            words = "at entry %d: easel resume %s" % (t.count - 1, short_id(log.parent))
    return PastGame(log, when, t.genesis.doc.get("game", "?"), t.players, seat, len(parsed.entries), status, words)


def past_games() -> list[PastGame]:
    """Every game in this home, newest first."""
    root = games_dir()
    try:
        logs = [d / "log" for d in root.iterdir() if (d / "log").is_file()]
    except OSError:
        return []
    me = _my_key()
    out = [g for g in (read_past_game(p, me) for p in logs) if g is not None]
    out.sort(key=lambda g: g.when, reverse=True)
    return out


def last_log() -> Path:
    """The newest game's log in this home."""
    root = games_dir()
    try:
        logs = [d / "log" for d in root.iterdir() if (d / "log").is_file()]
    except OSError:
        logs = []
    if not logs:
        raise UsageError("no past games in %s (easel history lists them)" % root)
    return max(logs, key=lambda p: p.stat().st_mtime)


def resolve_log(arg: str) -> str:
    """A log file argument: ``last`` is the newest game's log; a game directory is its log; a game's short
    id (the first hex digits of its directory's name, as ``easel history`` and the exit lines print it) too."""
    if arg == LAST and not Path(arg).exists():
        return str(last_log())
    p = Path(arg)
    if p.is_dir() and (p / "log").is_file():
        return str(p / "log")
    if not p.exists():
        d = by_short_id(arg)
        if d is not None and (d / "log").is_file():
            return str(d / "log")
    return arg


# ----------------------------------------------------------------------------- a game by a short name
SHORT_ID = 8          # hex digits of a game id printed for it (more when two games of this home share them)
MIN_SHORT_ID = 4      # the fewest taken


def _game_dirs() -> list[Path]:
    try:
        return [d for d in games_dir().iterdir() if d.is_dir()]
    except OSError:
        return []


def by_short_id(text: str) -> Path | None:
    """The game directory of this home whose name starts with ``text`` (4 to 64 hex digits), or None;
    a UsageError when several do."""
    t = text.strip().lower()
    if not (MIN_SHORT_ID <= len(t) <= 64) or any(c not in "0123456789abcdef" for c in t):
        return None
    hits = [d for d in _game_dirs() if d.name.startswith(t)]
    if len(hits) > 1:
        raise UsageError("%s starts the ids of %d games here: give more of it (easel history lists them)" % (text, len(hits)))
    return hits[0] if hits else None


def short_id(d: Path) -> str:
    """How to name game directory ``d`` on a command line: its id's first SHORT_ID hex digits (more if another
    game of this home shares them), or its whole path if it is not one of this home's games."""
    d = Path(d)
    try:
        home = games_dir().resolve()
        inside = d.resolve().parent == home
    except OSError:
        inside = False
    if not inside:
        return str(d)
    others = [o.name for o in _game_dirs() if o.name != d.name]
    n = SHORT_ID
    while n < len(d.name) and any(o.startswith(d.name[:n]) for o in others):
        n += 1
    return d.name[:n]


_OVER: dict = {}      # (log path, mtime_ns, size) -> over: a log is replayed once per process (Modern Art's takes ~0.5 s)


def _over(d: Path) -> bool | None:
    """Is the game in ``d`` over (None: its log cannot be read or replayed)."""
    from core.logfile import parse
    from core.table import replay

    try:
        st = (d / "log").stat()
        key = (str(d / "log"), st.st_mtime_ns, st.st_size)
        if key not in _OVER:
            _OVER[key] = bool(replay(parse((d / "log").read_bytes()).entries, registry).over)
        return _OVER[key]
    except Exception:
        return None


def newest_game(over: bool | None = None, known: dict | None = None) -> Path | None:
    """This home's newest game directory (by its log's last change); ``over``: only a finished (True) or
    an unfinished (False) game's (``known``: directory -> over, for games the caller knows). None if none."""
    logs = []
    for d in _game_dirs():
        try:
            logs.append(((d / "log").stat().st_mtime, d))
        except OSError:
            continue
    known = {Path(k).resolve(): v for k, v in (known or {}).items()}
    for _, d in sorted(logs, reverse=True):
        if over is None:
            return d
        r = d.resolve()
        if (known[r] if r in known else _over(d)) is over:
            return d
    return None


def resolve_game_dir(arg: str, over: bool | None = None) -> Path:
    """A game directory argument (resume, again): a directory; a game's ``…/log`` (as easel history prints
    it); ``last``, this home's newest game that the command can take (``over``: finished for easel again,
    unfinished for easel resume); or a game's short id. Anything else is returned as a path (the caller
    says it is not a game directory)."""
    p = Path(arg)
    if p.is_dir():
        return p
    if p.name == "log" and p.is_file():
        return p.parent
    if arg == LAST:
        d = newest_game(over)
        if d is None:
            raise UsageError("no %sgame in %s (easel history lists the games of this home)" % (
                {True: "finished ", False: "unfinished "}.get(over, ""), games_dir()))
        return d
    return by_short_id(arg) or p


def resume_words(d: Path) -> str:
    """The command that continues the game in ``d``: ``easel resume last`` when that names it (and its
    short id beside, which names it for good), else ``easel resume SHORT_ID``."""
    short = short_id(d)
    try:
        last = newest_game(over=False, known={d: False})     # (a game left unfinished: not replayed to know it)
    except OSError:
        last = None
    if last is not None and Path(last).resolve() == Path(d).resolve():
        return "easel resume last (or easel resume %s)" % short
    return "easel resume %s" % short


def print_history(as_json: bool) -> int:
    games = past_games()
    if as_json:
        print(json.dumps([g.row() for g in games], sort_keys=True))
        return 0
    if not games:
        print("no past games in %s" % games_dir())
        return 0
    print("%-16s  %-16s  %-9s  %-10s  %s" % ("date", "game", "seats", "status", "result"))
    for g in games:
        r = g.row()
        seats = "%d%s" % (g.players, "" if g.seat is None else " (you %d)" % g.seat)
        print("%-16s  %-16s  %-9s  %-10s  %s" % (r["date"], g.game, seats, g.status, g.result))
        print("    %s" % g.log)
    print("(easel replay last, easel export last --html OUT: the newest game)")
    return 0
