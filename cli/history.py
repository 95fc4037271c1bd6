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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core import fork as forkcore
from core.events import Event, Timeout, seat_names
from core.evidence import certificate_words, step_words

from .common import UsageError, jsonable, registry

LAST = "last"


# ----------------------------------------------------------------------------- the audit in words
def result_lines(game_name: str, result: Any, players: int, seat: int | None = None, width: int = 100,
                 names: Any = ()) -> list[str]:
    """A finished game's result in the game screen's own words (its game-over table), plain text;
    JSON only when the screen cannot word it. ``names``: every seat's display name (§5.1), as the
    live screens put them in place of "seat N"."""
    from .screens import Context, Snapshot, screen_for, with_names

    names = tuple(names or ())
    try:
        snap = Snapshot(seat=seat, players=players, view=None, phase=0, step_kind=None, step_purpose=None,
                        step_label="", step_seats=(), missing=(), over=True, result=result, log=(), moves=0,
                        entries=0, game_name=game_name, names=names)
        ctx = Context(seat=seat, snap=snap)
        lines = screen_for(game_name).game_over_lines(ctx, width)
        out = [with_names("".join(t for _, t in line[:]), names).rstrip() for line in lines]
        out = [t for t in out if t and t.strip() != "GAME OVER"]
        if out:
            return out
    except Exception:
        pass
    return [json.dumps(jsonable(result), sort_keys=True)]


def status_lines(res: Any, names: Any = ()) -> list[str]:
    """A result's status and named seats (a result that is not a normal finish: abandoned, withheld,
    cheating, not disclosed...), plain text; [] for a normal result.  Any game's result may carry
    them: ``status`` (a word) and ``named`` ([[seat, reason], ...]).  ``names``: every seat's display
    name (core.events.seat_names; () says ``seat N``), in the seat and in the reason."""
    from .screens import seat_name, with_names

    names = tuple(names or ())
    if not isinstance(res, dict):
        return []
    out = []
    status = res.get("status")
    named = res.get("named")
    if isinstance(status, str) and status and status != "complete":
        out.append("status: %s" % status)
    if isinstance(named, list):
        for item in named:
            if isinstance(item, (list, tuple)) and len(item) == 2 and type(item[0]) is int:
                out.append("%s named: %s" % (seat_name(item[0], None, names), with_names(str(item[1]), names)))
    return out


def certificate_seats(seats) -> str:
    from core.evidence import seats_words

    return seats_words(seats)


def certificate_words_of(c: dict, names: Any = ()) -> str:
    """One certificate of an audit report (``certificates``) in words, every seat by its name (``names``:
    core.events.seat_names; () says ``seat N``)."""
    from .screens import with_names

    return "entry %s: %s" % (c.get("index"), with_names(certificate_words(c["phase"], c.get("label") or "", c["seats"],
                                                                          c["voters"]), tuple(names or ())))


def audit_lines(rep: dict, players: int | None = None) -> list[str]:
    """The lines ``easel audit`` prints for report ``rep`` (core.audit's report)."""
    from .screens import with_names

    status = "VALID" if rep["valid"] else "INVALID"
    out = ["%s  game=%s  entries=%d  head=%s" % (status, rep["game"], rep["events"], rep["head"])]
    # every seat by its name (§5.1), as the screens say it; a genesis without names keeps "seat N"
    names = tuple(rep.get("seat_names") or ()) if rep.get("names") else ()
    if rep.get("names"):
        out.append("  players: %s" % ", ".join("%d %s" % (i, n) for i, n in enumerate(names or rep["names"])))
    if rep.get("previous"):
        out.append("  a rematch: it follows game %s (its genesis names it: previous)" % rep["previous"])
    for p in rep["problems"]:
        where = "entry %s" % p["index"] if p.get("index") is not None else "-"
        out.append("  problem: %s %s: %s" % (p.get("file"), where, with_names(p["problem"], names)))
    if rep.get("cut_moves"):
        out.append("  DISPUTED: %d signed move(s) were voted out by time-out certificates: each did not reach the "
                   "certificate's signers before they voted, or they voted anyway (the notes name each, and who "
                   "signed the certificate)" % len(rep["cut_moves"]))
    if rep.get("forked"):
        f = rep["forked"][0]
        out.append("  FORKED: the table forked at phase %d: %s signed a time-out certificate for it, and seat %d showed "
                   "a secret in phase %d on the branch it cuts; the game ended there for every seat, no winner "
                   "(the notes say who signed what; a certificate alone blames no one)" % (
                       f["phase"], certificate_seats(f["voters"]), f["seat"], f["shown"]))
    if rep.get("illegal"):
        out.append("  FAULT: %d signed move(s) the rules refuse are kept beside the log: each is its author's fault "
                   "(the notes name each)" % len(rep["illegal"]))
    if rep.get("signed_afterwards"):
        out.append("  NOT EVIDENCE: %d move(s) were signed afterwards for steps their seats were voted out of: their "
                   "sequence numbers do not fit the seats' chains (the notes name each)" % len(rep["signed_afterwards"]))
    for p in rep["notes"]:
        out.append("  note: %s entry %s: %s" % (p.get("file"), p["index"], with_names(p["note"], names)))
    if rep["valid"] and not rep["complete"]:
        out.append("  the log is valid so far but the game is not finished")
    if rep["complete"]:
        res = rep["results"]
        n = players or len((res or {}).get("ranking") or []) if isinstance(res, dict) else players or 0
        out.append("  result:")
        said = status_lines(res, names)
        whys = tuple(": " + t.split(" named: ", 1)[1] for t in said if " named: " in t)
        out += ["    " + t for t in said]
        # the game's own words, less its lines for the status and named seats just said
        out += ["    " + t for t in result_lines(rep["game"] or "", res, n or 0, names=names)
                if t.strip() not in said and not (whys and t.endswith(whys))]
    for d in rep.get("left") or []:
        # a leave is its seat's own signed word, never a time-out (protocol.md §6.1, §11)
        out.append("  " + with_names("left: seat %d left the table at entry %s (%s): its own signed leave" % (
            d["seat"], d["index"], step_words(d["phase"], d.get("label") or "")), names))
    talk = rep.get("said") or []
    if talk:
        # a person's own words (protocol.md §9.11): the seat by its name, the text never rewritten
        out.append("  table talk (%d line%s, each at its place in the log):" % (len(talk), "" if len(talk) == 1 else "s"))
        out += ["    entry %s: %s: %s" % (d["index"], names[d["seat"]] if names and d["seat"] < len(names) else
                                          "seat %d" % d["seat"], d["text"]) for d in talk]
    certs = rep.get("certificates") or []
    if certs:
        out.append("  time-out certificates (%d): each says only that its signers voted the seats it names out of "
                   "one step; it blames and ranks no one by itself" % len(certs))
        out += ["    " + certificate_words_of(c, names) for c in certs]
    return out


def game_dir_of(arg: str) -> Path | None:
    """The game directory an ``easel audit`` argument names: a directory holding a ``log``, or
    ``last`` (the newest game's directory); None for anything else (a file)."""
    if arg == LAST and not Path(arg).exists():
        return last_log().parent
    p = Path(arg)
    if p.is_dir() and (p / "log").is_file():
        return p
    return None


def audit_targets(args: list[str]) -> tuple[list[str], set[str]]:
    """The files ``easel audit ARGS`` reads, and those of them that are spools read beside their log.

    A game directory (or ``last``) stands for its ``log`` and the ``spool`` beside it (protocol.md
    §11: the spool is where the evidence is, a seat's own signed moves and those it received, cut
    or refused); its ``secrets`` file is never read.  A file is read as given."""
    names: list[str] = []
    beside: set[str] = set()
    for arg in args:
        d = game_dir_of(arg)
        if d is None:
            names.append(arg)
            continue
        names.append(str(d / "log"))
        spool = d / "spool"
        if spool.is_file():
            names.append(str(spool))
            beside.add(str(spool))
    return names, beside


def audit_with_spools(files: dict[str, bytes], beside: set[str] = frozenset()) -> dict:
    """``easel audit``'s report of ``files``.  A spool read beside its log (``beside``) whose last
    record is torn (a crash cuts the write in flight; the peer cuts it when it next starts) is not a
    problem but a note: the records before it are read (corruption stays a problem)."""
    from .auditing import audit_files

    rep = audit_files(files, games=registry)
    torn = [p for p in rep["problems"] if p.get("file") in beside and p["problem"].startswith("torn record at the end")]
    if torn:
        rep["problems"] = [p for p in rep["problems"] if p not in torn]
        rep["notes"] = [{"file": p["file"], "index": p["index"], "seat": None,
                         "note": "the spool beside the log ends in a torn record (%s), as a crash leaves it: the "
                                 "records before it are read" % p["problem"][p["problem"].find("(") + 1:-1]}
                        for p in torn] + rep["notes"]
        rep["valid"] = not rep["problems"] and bool(rep["logs"])
        rep["complete"] = rep["valid"] and all(lg["complete"] for lg in rep["logs"])
    return rep


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
    # what the log and the spool beside it say beyond the result (protocol.md §11): every
    # certificate (core.table.Certificate.public()), the result's status and named seats in words,
    # and the evidence found in the spool (core.audit.evidence_in: its records, with their notes)
    certificates: list = field(default_factory=list)
    named: list = field(default_factory=list)
    cut_moves: list = field(default_factory=list)
    illegal: list = field(default_factory=list)
    signed_afterwards: list = field(default_factory=list)
    unfollowed: list = field(default_factory=list)
    # every seat's display name (core.events.seat_names), () for a genesis without names ("seat N")
    names: tuple = ()
    game_id: str = ""            # hex
    previous: str | None = None  # hex: the game this one is a rematch of (its genesis's previous, §9.9)
    played_again: list = field(default_factory=list)   # hex: this home's games whose previous names this one
    links: list = field(default_factory=list)          # the two above in words (link_words)
    talk: list = field(default_factory=list)           # the talk lines placed (Table.talk, protocol.md §9.11)

    @property
    def disputed(self) -> bool:
        return bool(self.cut_moves)

    def said(self, text: str) -> str:
        """``text`` with every seat by its name (as the screens say it)."""
        from .screens import with_names

        return with_names(text, self.names)

    def row(self) -> dict:
        return {"log": str(self.log), "date": time.strftime("%Y-%m-%d %H:%M", time.localtime(self.when)),
                "game": self.game, "players": self.players, "seat": self.seat, "entries": self.entries,
                "status": self.status, "result": self.result, "disputed": self.disputed,
                "certificates": self.certificates, "named": self.named,
                "names": list(self.names) or None, "game_id": self.game_id, "previous": self.previous,
                "played_again": self.played_again,
                "cut_moves": [self.said(c["note"]) for c in self.cut_moves],
                "illegal": [self.said(c["note"]) for c in self.illegal],
                "signed_afterwards": [self.said(c["note"]) for c in self.signed_afterwards],
                "unfollowed": [self.said(c["note"]) for c in self.unfollowed],
                "said": [{"seat": d["seat"], "index": d["index"], "text": d["text"]} for d in self.talk]}

    def details(self, shown: int = 3) -> list[str]:
        """The lines under the game's line (after its log file): the rematch it is and the rematches
        it had, the dispute, the faults, each certificate (the first ``shown``; ``easel audit DIR``
        lists every one) and the seats the result names, every seat by its name."""
        out = list(self.links)
        out += ["DISPUTED: " + self.said(c["note"]) for c in self.cut_moves]
        out += ["fault: " + self.said(c["note"]) for c in self.illegal]
        out += ["not evidence: " + self.said(c["note"]) for c in self.signed_afterwards]
        out += ["not followed: " + self.said(c["note"]) for c in self.unfollowed]
        out += self.named
        for c in self.certificates[:shown]:
            out.append("time-out: " + self.said(certificate_words(c["phase"], c["label"], c["seats"], c["voters"], self.seat)))
        if len(self.certificates) > shown:
            out.append("... and %d more time-outs (easel audit %s lists each)" % (len(self.certificates) - shown, self.log.parent))
        names = seat_names_or(self.names, self.players)
        for d in self.talk[:shown]:          # a person's own words: the seat by its name, the text as said
            out.append("said: %s: %s (entry %d)" % (names[d["seat"]], d["text"], d["index"]))
        if len(self.talk) > shown:
            out.append("... and %d more lines said (easel audit %s lists each)" % (len(self.talk) - shown, self.log.parent))
        return out


def seat_names_or(names, players: int) -> list:
    """Every seat's name, ``seat N`` where the genesis names none."""
    return [names[s] if s < len(names or ()) else "seat %d" % s for s in range(players)]


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


def _result_words(res: Any, seat: int | None, names: Any = ()) -> str:
    """ "winner Zoe, you 2nd of 4": ``names`` every seat's display name (§5.1; "seat N" without)."""
    if not isinstance(res, dict):
        return "over"
    ranking = res.get("ranking")
    winners = res.get("winners")
    names = tuple(names or ())

    def name(w: Any) -> str:
        return names[w] if isinstance(w, int) and 0 <= w < len(names) else "seat %s" % w

    parts = []
    status = res.get("status")
    if isinstance(status, str) and status and status != "complete":
        parts.append(status + ("" if winners else ", no winner"))
    if isinstance(winners, list) and winners and isinstance(ranking, list) and len(ranking) > 1:
        parts.append("winner%s %s" % ("s" if len(winners) > 1 else "",
                                      ", ".join("you" if w == seat else name(w) for w in winners)))
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
    doc = t.genesis.doc
    g = PastGame(log, when, doc.get("game", "?"), t.players, seat, len(parsed.entries), status, words)
    g.talk = t.talk()
    g.names = seat_names(doc) if "names" in doc else ()
    g.game_id = t.genesis.game_id.hex()
    prev = doc.get("previous")
    g.previous = prev.hex() if isinstance(prev, bytes) and prev else None
    if status == "damaged":
        return g
    if t.over:
        g.status, res = "finished", t.result()
        g.result = _result_words(res, seat, seat_names(doc))
        g.named = status_lines(res, g.names)
    else:
        # (the row stays within 100 columns: the command is the whole explanation)
        g.result = "at entry %d: easel resume %s" % (t.count - 1, short_id(log.parent))
    g.certificates = [c.public() for c in t.certificates.values()]
    fork = spool_fork(log, t.genesis, registry)
    if fork is not None:   # the table forked (protocol.md §6.5 rule 3): the game ended there, for every seat
        g.status = "forked"
        g.result = "forked at phase %d: no winner (the notes say who signed what)" % fork["phase"]
        g.named = [forkcore.words(fork)]
    found = spool_evidence(log, parsed.entries[:t.count])
    g.cut_moves, g.illegal, g.signed_afterwards = found["cut_moves"], found["illegal"], found["signed_afterwards"]
    g.unfollowed = found["unfollowed"]
    if g.cut_moves:
        g.result += " - DISPUTED: %d signed move%s voted out (below)" % (len(g.cut_moves), "" if len(g.cut_moves) == 1 else "s")
    if g.unfollowed:
        g.result += " - %d time-out certificate%s not followed (below)" % (len(g.unfollowed), "" if len(g.unfollowed) == 1 else "s")
    if g.illegal:
        g.result += " - %d illegal signed move%s (below)" % (len(g.illegal), "" if len(g.illegal) == 1 else "s")
    return g


def spool_fork(log: Path, genesis, registry) -> dict | None:
    """What the least fork proof in the spool beside ``log`` proves (core/fork.py), or None."""
    from core.logfile import parse

    try:
        sp = parse((log.parent / "spool").read_bytes())
    except OSError:
        return None
    best = None
    for raw in sp.entries if sp.kind == "spool" else ():
        if not forkcore.is_fork(raw):
            continue
        try:
            info = forkcore.check(forkcore.parse_fork(raw), genesis, registry)
        except forkcore.ForkError:
            continue
        if best is None or forkcore.key(info) < forkcore.key(best):
            best = info
    return best


def spool_evidence(log: Path, entries: list) -> dict:
    """The evidence in the spool beside ``log`` about the valid log ``entries`` (core.audit.evidence_in:
    cut moves, illegal moves, moves signed afterwards, certificates not followed); nothing if there is
    no readable spool.
    Only the events of the spool that are not in the log are looked at (the log is replayed again
    only if one of them was made for one of its steps)."""
    from core.audit import evidence_in
    from core.events import EntryError, parse_entry
    from core.logfile import parse

    none: dict = {"cut_moves": [], "illegal": [], "signed_afterwards": [], "unfollowed": []}
    try:
        data = (log.parent / "spool").read_bytes()
    except OSError:
        return none
    sp = parse(data)
    if sp.kind != "spool" or not sp.entries:
        return none
    placed = set(entries)
    cands = []
    for i, raw in enumerate(sp.entries):
        if raw in placed:
            continue
        try:
            ev = parse_entry(raw, verify=False)
        except EntryError:
            continue
        if isinstance(ev, (Event, Timeout)):
            cands.append(("spool", i, ev))
    if not cands:
        return none
    return evidence_in("log", entries, cands, registry)


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
    dirs = [p.parent.name for p in logs]
    for g in out:
        g.played_again = [h.game_id for h in reversed(out) if g.game_id and h.previous == g.game_id]
        g.links = link_words(g.previous, g.played_again, dirs)
    return out


# ----------------------------------------------------------------------------- rematches (§9.9)
def short_among(name: str, others: Any) -> str:
    """A game id's first SHORT_ID hex digits, more while another of ``others`` (game directory names)
    starts with them too."""
    others = [o for o in others if o != name]
    n = SHORT_ID
    while n < len(name) and any(o.startswith(name[:n]) for o in others):
        n += 1
    return name[:n]


def link_words(previous: str | None, later: Any, dirs: Any) -> list[str]:
    """A game's rematch links in words, for ``easel history`` and the exported page: ``rematch of
    SHORT`` (its genesis's ``previous``; ``(not in this home)`` when no game of ``dirs``, the game
    directories beside it, is that one) and ``played again: SHORT[, SHORT]`` (the games of ``dirs``
    whose ``previous`` names it, ``later``); each SHORT is what names that game on a command line."""
    dirs = list(dirs)
    out = []
    if previous:
        out.append("rematch of %s%s" % (short_among(previous, dirs), "" if previous in dirs else " (not in this home)"))
    if later:
        out.append("played again: %s" % ", ".join(short_among(h, dirs) for h in later))
    return out


def genesis_doc_at(log: Path) -> dict | None:
    """The genesis document of the log file ``log`` (its first record only, signatures not checked),
    or None if it has none that parses."""
    from core.events import EntryError, parse_genesis
    from core.logfile import LOG_MAGIC, parse

    try:
        with open(log, "rb") as f:
            head = f.read(len(LOG_MAGIC) + 4)
            if len(head) < len(LOG_MAGIC) + 4 or not head.startswith(LOG_MAGIC):
                return None
            n = int.from_bytes(head[len(LOG_MAGIC):], "big")
            if n > 1 << 20:
                return None
            data = head + f.read(n + 4)
        entries = parse(data).entries
        return parse_genesis(entries[0], verify=False).doc if entries else None
    except (OSError, EntryError, ValueError, TypeError, KeyError):
        return None


def links_beside(log: Path, game_id: bytes, previous: Any) -> list[str]:
    """The rematch links (``link_words``) of the game whose log is ``log``, from the game directories
    beside its own (its home's games): [] for a log that is not in a directory named by its game id
    (then only the genesis's ``previous`` is said)."""
    here = game_id.hex()
    prev = previous.hex() if isinstance(previous, bytes) and previous else None
    d = Path(log).parent
    if d.name != here:
        return ["rematch of %s" % prev[:SHORT_ID]] if prev else []
    try:
        dirs = [o for o in d.parent.iterdir() if o.is_dir() and (o / "log").is_file()]
    except OSError:
        dirs = []
    later = []
    for o in dirs:
        doc = genesis_doc_at(o / "log") if o.name != here else None
        if doc is not None and doc.get("previous") == game_id:
            try:
                later.append(((o / "log").stat().st_mtime, o.name))
            except OSError:     # gone meanwhile
                continue
    return link_words(prev, [h for _, h in sorted(later)], [o.name for o in dirs])


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
    return short_among(d.name, [o.name for o in _game_dirs()])


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
        for line in g.details():
            print("      %s" % line)
    print("(easel replay last, easel export last --html OUT: the newest game)")
    return 0
