"""Offline audit of one or more log files (pure: callers pass the file bytes).

For each log: the record format, the genesis and every seat's signature on
it, every entry's signature, canonical encoding, hash chain (``prev`` and the
running head), sequence numbers, seat order inside each step, commitments
against reveals, seed and beacon derivation and every rule of the game, by
replaying the log through the same code the peers run.  Across all files
given (logs and spools): equivocation, i.e. two different signed events from
one author with the same sequence number, and logs of one game that disagree.

Every function takes the game registry (``games``: a core.games.Registry or
the module core.games) that the logs are replayed with.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .events import EntryError, Event, parse_entry, parse_genesis
from .logfile import parse
from .table import RuleError, Table


@dataclass
class LogReport:
    name: str
    valid: bool = True
    complete: bool = False
    game: str | None = None
    game_id: bytes | None = None
    events: int = 0
    head: bytes | None = None
    results: Any = None
    problems: list = field(default_factory=list)
    parsed: list = field(default_factory=list)   # (index, entry) parsed and verified during the replay


def audit_log(name: str, data: bytes, games: Any) -> LogReport:
    """Replay one file with the registry ``games`` and report on it."""
    rep = LogReport(name)

    def problem(index: int | None, text: str) -> None:
        rep.valid = False
        rep.problems.append({"file": name, "index": index, "problem": text})

    parsed = parse(data)
    if parsed.problem:
        problem(len(parsed.entries), parsed.problem)
    if parsed.torn:
        problem(len(parsed.entries), "torn record at the end of the file (offset %d)" % parsed.good)
    if parsed.kind != "log":
        if parsed.kind == "spool":
            problem(None, "a spool file, not a log: it is only searched for equivocation")
        elif parsed.kind == "secrets":
            problem(None, "a secrets file (a peer's private sealed values), not a log")
        return rep
    entries = parsed.entries
    rep.events = len(entries)
    if not entries:
        problem(0, "log has no genesis entry")
        return rep
    try:
        table = Table.start(parse_genesis(entries[0]), games)
    except (EntryError, RuleError) as exc:
        text = str(exc)
        problem(0, text if text.startswith("genesis: ") else "genesis: %s" % text)
        return rep
    rep.game = table.genesis.doc["game"]
    rep.game_id = table.game_id
    for i, raw in enumerate(entries[1:], start=1):
        try:
            ent = parse_entry(raw, keys=table.keys)
            rep.parsed.append((i, ent))
            table.append(ent)
        except (EntryError, RuleError) as exc:
            problem(i, str(exc))
            break
        except Exception as exc:  # a rules bug must be reported, never hidden
            problem(i, "internal error replaying this entry: %r" % (exc,))
            break
    rep.head = table.head
    rep.complete = rep.valid and table.over
    if rep.complete:
        rep.results = table.result()
    for note in table.notes:
        rep.problems.append({"file": name, "index": note.index, "note": note.text, "seat": note.seat})
    return rep


@dataclass
class Summary:
    """What the cross-file checks need from one file's audit (small and picklable)."""

    name: str
    valid: bool
    complete: bool
    game: str | None
    game_id: bytes | None
    events: int
    head: bytes | None
    results: Any
    problems: list
    index: list   # (game_id, author, seq, entry index, entry id) of every event in the file


def summarize(name: str, data: bytes, games: Any) -> Summary:
    rep = audit_log(name, data, games)
    parsed = list(rep.parsed)
    start = parsed[-1][0] + 1 if parsed else 0
    for i, raw in enumerate(parse(data).entries[start:], start=start):
        try:
            parsed.append((i, parse_entry(raw, verify=False)))
        except EntryError:
            continue
    index = [(e.game_id, e.author, e.seq, i, e.id) for i, e in parsed if isinstance(e, Event)]
    return Summary(rep.name, rep.valid, rep.complete, rep.game, rep.game_id, rep.events, rep.head, rep.results, rep.problems, index)


def find_equivocations(summaries: list[Summary], files: dict[str, bytes]) -> list[dict]:
    """Every (author, seq) with two different validly signed events, across all files.

    The index holds unverified entries (spools are not replayed); only the two
    events of a suspected pair are verified, so a forged event cannot frame an author.
    """
    seen: dict[tuple, list] = {}       # key -> distinct (name, index, entry id) seen so far
    valid: dict[tuple, bool] = {}      # (name, index) -> signature verifies
    proofs = []
    reported = set()
    entries: dict[str, list] = {}

    def signed(name: str, i: int) -> bool:
        if (name, i) not in valid:
            if name not in entries:
                entries[name] = parse(files[name]).entries
            try:
                parse_entry(entries[name][i], verify=True)
                valid[(name, i)] = True
            except EntryError:
                valid[(name, i)] = False
        return valid[(name, i)]

    for s in summaries:
        for gid, author, seq, i, eid in s.index:
            key = (gid, author, seq)
            others = seen.setdefault(key, [])
            if key in reported or any(o[2] == eid for o in others):
                continue
            others.append((s.name, i, eid))
            if len(others) == 1 or not signed(s.name, i):
                continue
            first = next((o for o in others[:-1] if signed(o[0], o[1])), None)
            if first is None:
                continue
            reported.add(key)
            proofs.append(
                {
                    "author": author.hex(),
                    "seq": seq,
                    "first": {"file": first[0], "index": first[1]},
                    "second": {"file": s.name, "index": i},
                }
            )
    return proofs


def combine(summaries: list[Summary], files: dict[str, bytes]) -> dict:
    """Cross-file checks and the ``easel audit --json`` object (bytes as hex)."""
    problems: list = []
    for r in summaries:
        problems.extend(p for p in r.problems if "problem" in p and not p["problem"].startswith("a spool file"))
    for eq in find_equivocations(summaries, files):
        problems.append(
            {
                "file": eq["second"]["file"],
                "index": eq["second"]["index"],
                "problem": "equivocation: author %s signed two different events with sequence number %d (other one: %s entry %d)"
                % (eq["author"][:16], eq["seq"], eq["first"]["file"], eq["first"]["index"]),
            }
        )
    real_logs = [r for r in summaries if r.game_id is not None]
    games: dict[bytes, list[Summary]] = {}
    for r in real_logs:
        games.setdefault(r.game_id, []).append(r)
    for same in games.values():
        # logs of one game must agree: each must be a prefix of the longest
        by_len = sorted(same, key=lambda r: r.events)
        longest = parse(files[by_len[-1].name]).entries
        for r in by_len[:-1]:
            mine = parse(files[r.name]).entries
            if mine != longest[: len(mine)]:
                at = next(i for i, (a, b) in enumerate(zip(mine, longest)) if a != b)
                problems.append({"file": r.name, "index": at, "problem": "log disagrees with %s from this entry on" % by_len[-1].name})
    if not real_logs and not problems:
        problems.append({"file": None, "index": None, "problem": "no game log among the files (spool files are only searched for equivocation)"})
    # the main log is the longest; among equal lengths the last file given, i.e. the
    # same log the agreement check compares the others with (never one it names)
    main = sorted(real_logs, key=lambda r: r.events)[-1] if real_logs else None
    notes = [p for r in summaries for p in r.problems if "note" in p]
    valid = not problems and bool(real_logs)
    return {
        "valid": valid,
        "complete": valid and all(r.complete for r in real_logs),
        "game": main.game if main else None,
        "game_id": main.game_id.hex() if main and main.game_id else None,
        "events": main.events if main else 0,
        "head": main.head.hex() if main and main.head else None,
        "results": main.results if main else None,
        "problems": problems,
        "notes": notes,
        "logs": [
            {"file": r.name, "game_id": r.game_id.hex(), "valid": r.valid, "complete": r.complete, "events": r.events, "head": r.head.hex() if r.head else None}
            for r in real_logs
        ],
    }


def audit(files: dict[str, bytes], games: Any) -> dict:
    """Audit all files with the registry ``games`` (see the module docstring); one file after the other."""
    return combine([summarize(name, data, games) for name, data in files.items()], files)
