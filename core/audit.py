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
from typing import Any, Callable

from .events import (
    EntryError,
    Event,
    Genesis,
    Timeout,
    _event_sign_msg_from_raw,
    genesis_sign_msg,
    parse_entry,
    parse_genesis,
    vote_sign_msg,
)
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
    parsed: list = field(default_factory=list)   # (index, entry) parsed and verified during replay


def audit_log(name: str, data: bytes, check_sigs: bool = True) -> LogReport:
    """Replay one file.  With ``check_sigs=False`` signatures are taken as checked
    elsewhere (see ``signature_jobs`` and ``audit(..., sig_failures=...)``)."""
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
        table = Table.start(parse_genesis(entries[0], verify=check_sigs))
    except (EntryError, RuleError) as exc:
        problem(0, "genesis: %s" % exc)
        return rep
    rep.game = table.genesis.doc["game"]
    rep.game_id = table.game_id
    rep.table = table
    for i, raw in enumerate(entries[1:], start=1):
        try:
            ent = parse_entry(raw, keys=table.keys, verify=check_sigs)
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


def find_equivocations(files: dict[str, bytes], known: dict | None = None) -> list[dict]:
    """Every (author, seq) with two different validly signed events, across all files.

    Entries are first read without checking signatures (cheap); only the two
    events of a suspected pair are verified, so a forged event cannot frame an author.
    """
    seen: dict[tuple[bytes, bytes, int], tuple[str, int, Event]] = {}
    proofs = []
    reported = set()
    for name, data in files.items():
        for i, ev in _entries_of(name, data, known or {}):
            if not isinstance(ev, Event):
                continue
            key = (ev.game_id, ev.author, ev.seq)
            first = seen.get(key)
            if first is None:
                seen[key] = (name, i, ev)
                continue
            if first[2].raw == ev.raw or key in reported:
                continue
            if not (_signed(first[2]) and _signed(ev)):
                continue
            reported.add(key)
            proofs.append(
                {
                    "author": ev.author.hex(),
                    "seq": ev.seq,
                    "first": {"file": first[0], "index": first[1]},
                    "second": {"file": name, "index": i},
                }
            )
    return proofs


def _entries_of(name: str, data: bytes, known: dict):
    """(index, entry) pairs of a file: those the replay already parsed, then the rest unverified."""
    done = known.get(name, [])
    yield from done
    start = done[-1][0] + 1 if done else 0
    for i, raw in enumerate(parse(data).entries[start:], start=start):
        try:
            yield i, parse_entry(raw, verify=False)
        except EntryError:
            continue


def _signed(ev: Event) -> bool:
    try:
        parse_entry(ev.raw, verify=True)
        return True
    except EntryError:
        return False


def signature_jobs(data: bytes) -> list[tuple[int, bytes, bytes, bytes]]:
    """Every signature a log file holds, as (entry index, key, signed message, signature).

    Entries that do not even parse are skipped (the replay reports them)."""
    jobs = []
    entries = parse(data).entries
    keys: list = []
    for i, raw in enumerate(entries):
        try:
            ent = parse_entry(raw, keys=None, verify=False)
        except EntryError:
            continue
        if isinstance(ent, Genesis):
            if i == 0:
                keys = list(ent.doc["seats"])
                msg = genesis_sign_msg(ent.game_id)
                jobs.extend((i, k, msg, sig) for k, sig in zip(keys, ent.sigs))
        elif isinstance(ent, Event):
            jobs.append((i, ent.author, _event_sign_msg_from_raw(ent.raw), ent.sig))
        elif isinstance(ent, Timeout):
            msg = vote_sign_msg(ent.game_id, ent.phase, ent.prev, list(ent.seats))
            for v, sig in ent.votes:
                if v < len(keys):
                    jobs.append((i, keys[v], msg, sig))
    return jobs


def _apply_sig_failures(rep: LogReport, bad: list[int]) -> None:
    """Merge out-of-band signature results into a replay made without them."""
    if not bad:
        return
    b = min(bad)
    rule = [p for p in rep.problems if p.get("index") is not None and "problem" in p]
    if rule and min(p["index"] for p in rule) < b:
        return  # the replay already stopped earlier, at its own problem
    rep.problems = [p for p in rep.problems if p.get("index") is None or p["index"] < b]
    rep.problems.append({"file": rep.name, "index": b, "problem": "signature does not verify" if b else "genesis: bad signature"})
    rep.valid = False
    rep.complete = False
    rep.results = None


def audit(files: dict[str, bytes], sig_failures: Callable[[], dict] | None = None) -> dict:
    """Audit all files; returns the ``easel audit --json`` object (bytes as hex).

    By default signatures are checked inline.  A caller that checks them
    elsewhere (e.g. on other cores, while this replays) passes ``sig_failures``:
    called after the replay, it returns {file name: [entry indexes whose
    signature failed]}; the result is the same report as the inline audit's.
    """
    reports = [audit_log(name, data, check_sigs=sig_failures is None) for name, data in files.items()]
    if sig_failures is not None:
        failures = sig_failures()
        for r in reports:
            _apply_sig_failures(r, failures.get(r.name, []))
    logs = [r for r in reports if r.table is not None or r.game is not None or r.problems]
    problems: list = []
    for r in reports:
        problems.extend(p for p in r.problems if "problem" in p and not p["problem"].startswith("a spool file"))
    for eq in find_equivocations(files, {r.name: r.parsed for r in reports}):
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
