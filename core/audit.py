"""Offline audit of one or more log files (pure: callers pass the file bytes).

For each log: the record format, the genesis and every seat's signature on
it, every entry's signature, canonical encoding, hash chain (``prev`` and the
running head), sequence numbers, seat order inside each step, commitments
against reveals, seed and beacon derivation and every rule of the game, by
replaying the log through the same code the peers run.  Across all files
given (logs and spools): equivocation, i.e. two different signed events from
one author with the same sequence number, logs of one game that disagree, and
(a note) a signed reveal kept in a spool that does not open its seat's
commitment in the log (the seat was timed out instead, ``find_bad_reveals``).

Every function takes the game registry (``games``: a core.games.Registry or
the module core.games) that the logs are replayed with.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from .events import (
    EVENT_PREFIX,
    EntryError,
    Event,
    _event_sign_msg_from_raw,
    Timeout,
    check_entry_signatures,
    parse_entry,
    parse_event_fast,
    parse_genesis,
    reveal_commitment,
    seat_names,
    verify_many,
)
from .logfile import LOG_MAGIC, parse
from .table import RuleError, Table

# A signature checker.  ``verifier(jobs)`` is called with the (still empty) list the audit
# fills with (public key, message, signature) triples and returns a session:
#   session.ready(n)    jobs[:n] are final: they may be checked from now on (elsewhere);
#   session.join(stop)  the index of the first triple among jobs[:stop] that does not
#                       verify, or None (jobs[:stop] were all made ready before).
#
# A verifier may instead check whole entries (``verifier.by_entry`` true): ``verifier(entries,
# keys, offsets)`` is called with every entry of the file (the genesis first) and the file
# offset of each one's record (core.logfile.Parsed.offsets) before they are parsed here, and
# returns a session whose ``join(limit)`` is the first (index, text) among entries
# 1 .. limit - 1 whose signatures do not verify (core.events.check_entry_signatures), or None.
# The entries are then parsed here without their signatures (nothing is hashed for them).
Verifier = Callable[..., Any]


class VerifyHere:
    """The default verifier session: checks the triples in this process, when joined."""

    def __init__(self, jobs: list) -> None:
        self.jobs = jobs

    def ready(self, n: int) -> None:
        pass

    def join(self, stop: int) -> int | None:
        return verify_many(self.jobs, 0, stop)


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
    index: list = field(default_factory=list)   # (game_id, author, seq, entry index, entry id) of every event


def audit_log(name: str, data: bytes, games: Any, verifier: Verifier | None = None) -> LogReport:
    """Replay one file with the registry ``games`` and report on it.

    The report is that of checking the entries one after the other and stopping at the
    first bad one (parse, then signature, then rules).  To get there faster every entry
    is parsed first (canonical form, types, every check that needs no signature), its
    signature checks are handed to ``verifier`` (default: checked here, after the replay),
    the log is replayed meanwhile, then the three are merged: the first failing entry
    wins (at one entry: parse, then signature, then rules) and nothing the replay
    recorded past it is kept.
    """
    rep = LogReport(name)

    def problem(index: int | None, text: str) -> None:
        rep.valid = False
        rep.problems.append({"file": name, "index": index, "problem": text})

    parsed_file = parse(data)
    if parsed_file.problem:
        problem(len(parsed_file.entries), parsed_file.problem)
    if parsed_file.torn:
        problem(len(parsed_file.entries), "torn record at the end of the file (offset %d)" % parsed_file.good)
    if parsed_file.kind != "log":
        if parsed_file.kind == "spool":
            problem(None, "a spool file, not a log: it is only searched for equivocation")
        elif parsed_file.kind == "secrets":
            problem(None, "a secrets file (a peer's private sealed values), not a log")
        rep.index = _index(parsed_file.entries, 0)
        return rep
    entries = parsed_file.entries
    rep.events = len(entries)
    if not entries:
        problem(0, "log has no genesis entry")
        return rep
    try:
        table = Table.start(parse_genesis(entries[0]), games)
    except (EntryError, RuleError) as exc:
        text = str(exc)
        problem(0, text if text.startswith("genesis: ") else "genesis: %s" % text)
        rep.index = _index(entries, 0)
        return rep
    rep.game = table.genesis.doc["game"]
    rep.game_id = table.game_id
    keys = table.keys

    # 1. parse every entry; its signature checks go to ``jobs`` (entry i owns jobs[first[k]:first[k+1]])
    #    or, with a by-entry verifier, to the verifier's session straight from the entries' bytes
    by_entry = bool(getattr(verifier, "by_entry", False))
    jobs: list = []
    if by_entry:
        session = verifier(entries, keys, parsed_file.offsets)
        scratch: list = []   # a time-out's votes: checked by the session
    else:
        session = (verifier or VerifyHere)(jobs)
    handed = 0                   # jobs[:handed] were handed to the session
    parsed: list = []            # (i, entry) of the entries before the first that does not parse
    first: list = []
    bad: tuple | None = None     # (i, text): the first entry that does not parse
    index = rep.index
    n_prefix = len(EVENT_PREFIX)
    fast = parse_event_fast   # an event in its usual form, read from its bytes (None: parse_entry judges it)
    for i in range(1, len(entries)):
        raw = entries[i]
        try:
            if bad is None:
                n0 = len(jobs)
                ent = fast(raw)
                if ent is not None:
                    if not by_entry:
                        jobs.append((ent.author, _event_sign_msg_from_raw(raw), ent.sig))
                elif not by_entry:
                    ent = parse_entry(raw, keys=keys, pending=jobs)
                elif raw[:n_prefix] == EVENT_PREFIX:
                    ent = parse_entry(raw, verify=False)
                else:
                    ent = parse_entry(raw, keys=keys, pending=scratch)
                    scratch.clear()
                parsed.append((i, ent))
                first.append(n0)
            else:
                ent = fast(raw) or parse_entry(raw, verify=False)
        except EntryError as exc:
            if bad is None:
                bad = (i, str(exc))
            continue
        except Exception as exc:  # a bug must be reported, never hidden
            if bad is None:
                bad = (i, "internal error replaying this entry: %r" % (exc,))
            continue
        if type(ent) is Event:
            index.append((ent.game_id, ent.author, ent.seq, i, ent.id))
        if len(jobs) - handed >= 256:
            handed = len(jobs)
            session.ready(handed)
    if not by_entry:
        session.ready(len(jobs))

    # 2. replay, keeping the head after each entry (32 bytes each, one buffer)
    heads = bytearray(table.head)
    failed: tuple | None = None  # (i, text): the first entry the rules refuse
    for i, ent in parsed:
        try:
            table.append(ent)
        except RuleError as exc:
            failed = (i, str(exc))
            break
        except Exception as exc:  # a rules bug must be reported, never hidden
            failed = (i, "internal error replaying this entry: %r" % (exc,))
            break
        heads += table.head

    # 3. signatures of every entry up to the one where the replay or the parse stopped
    # (parsed[k] is entry k + 1: the jobs of entries 1..stop are jobs[:first[stop]])
    stop = min(x[0] for x in (failed, bad, (len(entries), "")) if x is not None)
    unsigned: tuple | None = None
    if by_entry:
        # entries 1..stop (the one the rules refused is judged on its signature first), none
        # from the first that does not parse on
        limit = min(stop + 1, len(entries), bad[0] if bad is not None else len(entries))
        unsigned = session.join(limit)
    else:
        j = session.join(first[stop] if stop < len(parsed) else len(jobs))
        if j is not None:
            k = _owner(first, j)
            i, ent = parsed[k]
            if isinstance(ent, Timeout):
                unsigned = (i, "time-out: bad vote signature from seat %d" % ent.votes[j - first[k]][0])
            else:
                unsigned = (i, "event: signature does not verify")

    # 4. the first failure wins (a bad signature before the rules at the same entry)
    first_bad = min((x for x in (unsigned, bad, failed) if x is not None), key=lambda x: x[0], default=None)
    if first_bad is None:
        rep.head = table.head
    else:
        at, text = first_bad
        if first_bad is failed and "another history" in text:
            text += _altered_commit(table, parsed, at)
        problem(at, text)
        rep.head = table.head if first_bad is failed else bytes(heads[32 * (at - 1) : 32 * at])
    rep.complete = rep.valid and table.over
    if rep.complete:
        rep.results = table.result()
    # notes of entries never applied one by one are dropped (those of the entry the rules
    # refused are kept: appending it had begun)
    cut = len(entries) if first_bad is None else first_bad[0] + (1 if first_bad is failed else 0)
    for note in table.notes:
        if note.index < cut:
            rep.problems.append({"file": name, "index": note.index, "note": note.text, "seat": note.seat})
    return rep


def _altered_commit(table: Table, parsed: list, at: int) -> str:
    """Words naming the author of an altered, re-signed commitment, when the chain broke at a
    reveal step (entry ``at``): a seat whose own reveal, further on in the log, does not open
    the commitment logged for it signed another commitment first (the others' events were
    signed after that one).  '' when no reveal names anyone."""
    st = table.step
    if st is None or st.kind != "reveal" or not table.commits:
        return ""
    keys = table.keys
    commit_at: dict = {}
    named: list = []
    for i, ent in parsed:
        if type(ent) is not Event or ent.author not in keys:
            continue
        seat = keys.index(ent.author)
        phase = ent.body.get("phase")
        if i < at and ent.kind == "commit" and phase == st.phase - 1:
            commit_at[seat] = i
        if i >= at and ent.kind == "reveal" and phase == st.phase and seat in table.commits \
                and seat not in [x[0] for x in named]:
            if reveal_commitment(ent, st.phase - 1) != table.commits[seat]:
                named.append((seat, i))
    if not named:
        return ""
    return "; " + "; ".join(
        "seat %d altered its commitment and signed it again: its own reveal (entry %d) does not open the "
        "commitment logged for it%s" % (seat, i, " at entry %d" % commit_at[seat] if seat in commit_at else "")
        for seat, i in named)


class VerifyEntriesHere:
    """A by-entry verifier that checks the entries' signatures in this process, when joined
    (what a pool falls back to; tests compare the two)."""

    by_entry = True

    def __init__(self, entries: Sequence[bytes], keys: Sequence[bytes], offsets: Sequence[int] = ()) -> None:
        self.entries, self.keys = entries, keys

    def join(self, limit: int) -> tuple[int, str] | None:
        return check_entry_signatures(self.entries, self.keys, 1, limit)


def _owner(first: list, j: int) -> int:
    """The k with first[k] <= j < first[k + 1] (the parsed entry that owns job j)."""
    lo, hi = 0, len(first) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if first[mid] <= j:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _index(entries: Sequence[bytes], start: int) -> list:
    out = []
    for i in range(start, len(entries)):
        try:
            e = parse_entry(entries[i], verify=False)
        except Exception:
            continue
        if type(e) is Event:
            out.append((e.game_id, e.author, e.seq, i, e.id))
    return out


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


def summarize(name: str, data: bytes, games: Any, verifier: Verifier | None = None) -> Summary:
    rep = audit_log(name, data, games, verifier)
    return Summary(rep.name, rep.valid, rep.complete, rep.game, rep.game_id, rep.events, rep.head, rep.results, rep.problems, rep.index)


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
            others = seen.get(key)
            if others is None:   # the first event with this key (what the lines below do for it)
                seen[key] = [(s.name, i, eid)]
                continue
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


def find_bad_reveals(summaries: list[Summary], files: dict[str, bytes]) -> list[dict]:
    """Notes for the signed reveals kept in spool files that do not open their seat's
    commitment in the main (longest) valid log of their game, for a step of that log
    (same phase and ``prev``): the peers never place such a reveal (§6.2), so the log
    only shows the seat timed out; the spool shows why.  One note per (seat, phase).

    Cheap when there is nothing to find: the main log is parsed again only if a spool
    holds a reveal that is not in it; a candidate's signature is checked before it is
    named, so a forged reveal cannot frame a seat."""
    mains: dict = {}
    for r in sorted((r for r in summaries if r.game_id is not None), key=lambda r: r.events):
        mains[r.game_id] = r
    cands: list = []   # (spool name, index, event) of reveals not in their game's main log
    for s in summaries:
        if s.game_id is not None or not s.index:
            continue
        entries = None
        for gid, author, seq, i, eid in s.index:
            main = mains.get(gid)
            if main is None or not main.valid:
                continue
            if entries is None:
                entries = parse(files[s.name]).entries
            try:
                ev = parse_entry(entries[i], verify=False)
            except EntryError:
                continue
            if type(ev) is Event and ev.kind == "reveal":
                cands.append((s.name, i, ev))
    if not cands:
        return []
    placed = {eid for r in mains.values() for _, _, _, _, eid in r.index}
    cands = [c for c in cands if c[2].id not in placed]
    views: dict = {}   # game id -> (keys, {phase: step prev}, {(author, phase): commitment}, {phase: timed-out seats})
    notes: list = []
    seen: set = set()
    for name, i, ev in cands:
        gid = ev.game_id
        if gid not in views:
            ents = parse(files[mains[gid].name]).entries
            keys = parse_genesis(ents[0]).doc["seats"]
            prevs: dict = {}
            commits: dict = {}
            timed: dict = {}
            for raw in ents[1:]:
                try:
                    e = parse_entry(raw, keys=keys, verify=False)
                except EntryError:
                    break
                if type(e) is Event:
                    prevs.setdefault(e.body["phase"], e.prev)
                    if e.kind == "commit":
                        commits[(e.author, e.body["phase"])] = e.body["hash"]
                elif type(e) is Timeout:
                    prevs.setdefault(e.phase, e.prev)
                    timed[e.phase] = tuple(e.seats)
            views[gid] = (keys, prevs, commits, timed)
        keys, prevs, commits, timed = views[gid]
        phase = ev.body["phase"]
        key = (gid, ev.author, phase)
        want = commits.get((ev.author, phase - 1))
        if key in seen or want is None or prevs.get(phase) != ev.prev or ev.author not in keys:
            continue
        if reveal_commitment(ev, phase - 1) == want:
            continue
        try:
            parse_entry(ev.raw, keys=keys, verify=True)
        except EntryError:
            continue
        seen.add(key)
        seat = list(keys).index(ev.author)
        notes.append({
            "file": name,
            "index": i,
            "note": "seat %d's reveal does not match its commitment (phase %d, sequence number %d; signed, kept in %s entry %d)%s"
            % (seat, phase, ev.seq, name, i, ": it was timed out" if seat in timed.get(phase, ()) else ""),
            "seat": seat,
        })
    return notes


def find_cut_moves(summaries: list[Summary], files: dict[str, bytes]) -> list[dict]:
    """Every signed move, kept in any file given (a seat's spool keeps its own), that a time-out
    certificate of the main valid log cut: the event was made for the step the certificate
    closed (same phase and ``prev``) by a seat the certificate times out (protocol.md §6.5,
    "False time-outs seen").  The certificate's voters claimed that seat did not move; its
    signed move says it did (the audit cannot tell when it was sent).  One record per
    (game, seat, phase), its signature checked so a forged event cannot frame the voters."""
    mains: dict = {}
    for r in sorted((r for r in summaries if r.game_id is not None), key=lambda r: r.events):
        mains[r.game_id] = r
    # every event of a valid main log is its own game's and placed (the rules refuse an event of
    # another game): only the other files can hold candidates
    others = [s for s in summaries if not (s.valid and s.game_id is not None and mains.get(s.game_id) is s)]
    if not any(s.index for s in others):
        return []
    placed = {eid for r in mains.values() for _, _, _, _, eid in r.index}
    cands: list = []   # (file name, entry index) of events not in their game's main log
    for s in others:
        for gid, _author, _seq, i, eid in s.index:
            main = mains.get(gid)
            if main is not None and main.valid and eid not in placed:
                cands.append((s.name, i, gid))
    if not cands:
        return []
    views: dict = {}   # game id -> (keys, {phase: (prev, seats, voters, entry index)})
    out: list = []
    seen: set = set()
    parsed: dict = {}
    for name, i, gid in cands:
        if gid not in views:
            ents = parse(files[mains[gid].name]).entries
            keys = parse_genesis(ents[0]).doc["seats"]
            certs: dict = {}
            for j, raw in enumerate(ents[1:], 1):
                try:
                    e = parse_entry(raw, keys=keys, verify=False)
                except EntryError:
                    break
                if type(e) is Timeout:
                    certs[e.phase] = (e.prev, tuple(e.seats), [v for v, _ in e.votes], j)
            views[gid] = (keys, certs)
        keys, certs = views[gid]
        if not certs:
            continue
        if name not in parsed:
            parsed[name] = parse(files[name]).entries
        try:
            ev = parse_entry(parsed[name][i], verify=False)
        except EntryError:
            continue
        if type(ev) is not Event or ev.author not in keys:
            continue
        phase = ev.body.get("phase")
        cert = certs.get(phase) if type(phase) is int else None
        seat = list(keys).index(ev.author)
        if cert is None or cert[0] != ev.prev or seat not in cert[1] or (gid, seat, phase) in seen:
            continue
        try:
            parse_entry(ev.raw, keys=keys, verify=True)
        except EntryError:
            continue
        seen.add((gid, seat, phase))
        voters = cert[2]
        out.append({
            "file": name, "index": i, "seat": seat, "phase": phase, "seq": ev.seq, "kind": ev.kind,
            "voters": voters, "certificate": {"file": mains[gid].name, "index": cert[3]},
            "note": "seat %d's signed move for phase %d (sequence number %d, kept in %s entry %d) was cut by the "
                    "time-out certificate at %s entry %d, signed by seat%s %s: they voted it out although it moved"
                    % (seat, phase, ev.seq, name, i, mains[gid].name, cert[3], "s" if len(voters) > 1 else "",
                       ", ".join(str(v) for v in voters)),
        })
    return sorted(out, key=lambda c: (c["phase"], c["seat"]))


def _genesis_entry(data: bytes) -> bytes:
    """The first entry of a log file whose audit read its genesis: its first record is parsed
    (core.logfile.parse of the bytes up to that record's end), not the whole file."""
    at = len(LOG_MAGIC)
    end = at + 8 + int.from_bytes(data[at : at + 4], "big")
    return parse(data[:end]).entries[0]


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
        if len(by_len) < 2:
            continue
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
    notes += find_bad_reveals(summaries, files)
    cut = find_cut_moves(summaries, files)
    notes += [{k: c[k] for k in ("file", "index", "note", "seat")} for c in cut]
    valid = not problems and bool(real_logs)
    names = shown = previous = None
    if main is not None:   # the seats' names as the genesis signs them (protocol.md §5.1), None if it has none
        doc = parse_genesis(_genesis_entry(files[main.name]), verify=False).doc
        names = doc.get("names")
        shown = list(seat_names(doc))       # as every screen shows them: twins told apart, "seat i" without names
        previous = doc.get("previous")      # a rematch: the game it follows (§9.9)
    return {
        "names": list(names) if isinstance(names, list) else None,
        "seat_names": shown,
        "previous": previous.hex() if isinstance(previous, bytes) else None,
        "valid": valid,
        "complete": valid and all(r.complete for r in real_logs),
        "game": main.game if main else None,
        "game_id": main.game_id.hex() if main and main.game_id else None,
        "events": main.events if main else 0,
        "head": main.head.hex() if main and main.head else None,
        "results": main.results if main else None,
        "problems": problems,
        "notes": notes,
        "cut_moves": cut,
        "logs": [
            {"file": r.name, "game_id": r.game_id.hex(), "valid": r.valid, "complete": r.complete, "events": r.events, "head": r.head.hex() if r.head else None}
            for r in real_logs
        ],
    }


def audit(files: dict[str, bytes], games: Any) -> dict:
    """Audit all files with the registry ``games`` (see the module docstring); one file after the other."""
    return combine([summarize(name, data, games) for name, data in files.items()], files)
