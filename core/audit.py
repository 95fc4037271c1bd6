"""Offline audit of one or more log files (pure: callers pass the file bytes).

For each log: the record format, the genesis and every seat's signature on
it, every entry's signature, canonical encoding, hash chain (``prev`` and the
running head), sequence numbers, seat order inside each step, commitments
against reveals, seed and beacon derivation and every rule of the game, by
replaying the log through the same code the peers run.  Across all files
given (logs and spools): equivocation, i.e. two different signed events from
one author with the same sequence number, and logs of one game that disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .events import EntryError, Event, parse_entry
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
    table: Table | None = None


def audit_log(name: str, data: bytes) -> LogReport:
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
        return rep
    entries = parsed.entries
    rep.events = len(entries)
    if not entries:
        problem(0, "log has no genesis entry")
        return rep
    try:
        table = Table.start(entries[0])
    except (EntryError, RuleError) as exc:
        problem(0, "genesis: %s" % exc)
        return rep
    rep.game = table.genesis.doc["game"]
    rep.game_id = table.game_id
    rep.table = table
    for i, raw in enumerate(entries[1:], start=1):
        try:
            table.append(raw)
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


def find_equivocations(files: dict[str, bytes]) -> list[dict]:
    """Every (author, seq) with two different valid signed events, across all files."""
    seen: dict[tuple[bytes, bytes, int], tuple[str, int, bytes]] = {}
    proofs = []
    for name, data in files.items():
        parsed = parse(data)
        for i, raw in enumerate(parsed.entries):
            try:
                ev = parse_entry(raw)
            except (EntryError, Exception):
                continue
            if not isinstance(ev, Event):
                continue
            key = (ev.game_id, ev.author, ev.seq)
            if key in seen and seen[key][2] != ev.raw:
                first = seen[key]
                proofs.append(
                    {
                        "author": ev.author.hex(),
                        "seq": ev.seq,
                        "first": {"file": first[0], "index": first[1]},
                        "second": {"file": name, "index": i},
                    }
                )
            else:
                seen.setdefault(key, (name, i, ev.raw))
    return proofs


def audit(files: dict[str, bytes]) -> dict:
    """Audit all files; returns the ``easel audit --json`` object (bytes as hex)."""
    reports = [audit_log(name, data) for name, data in files.items()]
    logs = [r for r in reports if r.table is not None or r.game is not None or r.problems]
    problems: list = []
    for r in reports:
        problems.extend(p for p in r.problems if "problem" in p and not p["problem"].startswith("a spool file"))
    for eq in find_equivocations(files):
        problems.append(
            {
                "file": eq["second"]["file"],
                "index": eq["second"]["index"],
                "problem": "equivocation: author %s signed two different events with sequence number %d (other one: %s entry %d)"
                % (eq["author"][:16], eq["seq"], eq["first"]["file"], eq["first"]["index"]),
            }
        )
    real_logs = [r for r in reports if r.game_id is not None]
    ids = {r.game_id for r in real_logs}
    if len(ids) > 1:
        problems.append({"file": None, "index": None, "problem": "the logs belong to different games"})
    elif len(real_logs) > 1:
        # logs of one game must agree: one must be a prefix of the other
        heads = {}
        for r in real_logs:
            heads.setdefault(r.events, set()).add(r.head)
        by_len = sorted(real_logs, key=lambda r: r.events)
        longest = parse(files[by_len[-1].name]).entries
        for r in by_len[:-1]:
            mine = parse(files[r.name]).entries
            if mine != longest[: len(mine)]:
                problems.append({"file": r.name, "index": None, "problem": "log disagrees with %s" % by_len[-1].name})
    main = max(real_logs, key=lambda r: r.events) if real_logs else None
    notes = [p for r in reports for p in r.problems if "note" in p]
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
    }
