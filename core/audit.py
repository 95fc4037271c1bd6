"""Offline audit of one or more log files (pure: callers pass the file bytes).

For each log: the record format, the genesis and every seat's signature on
it, every entry's signature, canonical encoding, hash chain (``prev`` and the
running head), sequence numbers, seat order inside each step, commitments
against reveals, seed and beacon derivation and every rule of the game, by
replaying the log through the same code the peers run.  Across all files
given (logs and spools): equivocation, i.e. two different signed events from
one author with the same sequence number, logs of one game that disagree,
(a note) a signed reveal kept in a spool that does not open its seat's
commitment in the log (the seat was timed out instead, ``find_bad_reveals``),
and the evidence beside the main log (``find_evidence``, protocol.md §11):
signed moves the rules refuse at their step, moves a certificate voted out
whose sequence number fits their seat's chain (a dispute), and moves signed
afterwards (not evidence).  Every certificate of the main log is listed.

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
from .engine import IllegalAction
from .evidence import afterwards_words, chain_misfit, cut_words, illegal_words, seats_words
from .logfile import LOG_MAGIC, parse
from .table import RuleError, Table
from .fork import ForkError, is_fork, parse_fork
from .fork import check as check_fork
from .fork import words as fork_words

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
    certificates: list = field(default_factory=list)   # Certificate.public() of each certificate replayed
    cert_index: list = field(default_factory=list)     # of a spool: (game_id, phase, entry index) of each certificate
    fork_index: list = field(default_factory=list)     # of a spool: entry index of each fork record (core/fork.py)
    left: list = field(default_factory=list)           # Table.departures(): every leave placed (§11 ``left``)
    said: list = field(default_factory=list)           # Table.talk(): every talk line placed (§11 ``said``)


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
        rep.cert_index = _cert_index(parsed_file.entries)
        rep.fork_index = [i for i, raw in enumerate(parsed_file.entries) if is_fork(raw)]
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
    if failed is None and bad is None and table.talking is not None:     # a line without its answer (§9.11)
        failed = (table.talk_at, "the log ends after a talk line of seat %d without its answer" % table.talking)

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
    rep.certificates = [c.public() for c in table.certificates.values() if c.index < cut]
    rep.left = [d for d in table.departures() if d["index"] < cut]
    rep.said = [d for d in table.talk() if d["index"] < cut]
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


def _cert_index(entries: Sequence[bytes]) -> list:
    """(game_id, phase, entry index) of every time-out certificate among ``entries`` (a spool's)."""
    out = []
    for i, raw in enumerate(entries):
        if not raw.startswith(b"\x97\xadeasel-timeout"):
            continue
        try:
            e = parse_entry(raw, verify=False)
        except Exception:
            continue
        if type(e) is Timeout:
            out.append((e.game_id, e.phase, i))
    return out


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
    certificates: list = field(default_factory=list)   # of a log: Certificate.public() of each one replayed
    cert_index: list = field(default_factory=list)     # of a spool: (game_id, phase, entry index) of its certificates
    fork_index: list = field(default_factory=list)     # of a spool: entry index of each fork record
    left: list = field(default_factory=list)           # of a log: every leave placed (Table.departures)
    said: list = field(default_factory=list)           # of a log: every talk line placed (Table.talk)


def summarize(name: str, data: bytes, games: Any, verifier: Verifier | None = None) -> Summary:
    rep = audit_log(name, data, games, verifier)
    return Summary(rep.name, rep.valid, rep.complete, rep.game, rep.game_id, rep.events, rep.head, rep.results,
                   rep.problems, rep.index, rep.certificates, rep.cert_index, rep.fork_index, rep.left, rep.said)


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


def find_evidence(summaries: list[Summary], files: dict[str, bytes], games: Any) -> dict:
    """What the files beside the main valid log of each game hold about its time-outs and moves
    (protocol.md §6.5 "False time-outs seen", §11): every signed event kept in a file given (a
    spool, another log) that is not in the main log, judged against the step it was made for
    (``evidence_in``), and every time-out certificate kept in a spool given that beats how the log
    closed its step.  ``{"cut_moves": [...], "signed_afterwards": [...], "illegal": [...],
    "unfollowed": [...]}``.  A main log with a problem of its own (its record format or its replay;
    the longest log of its game, as ``combine`` picks it) is not searched, not even its valid
    prefix: every list is empty for its game (protocol.md §11, "Evidence beside the main log").

    Cheap when there is nothing to find: nothing is parsed again unless a file holds an event of
    a main log's game that is not in that log."""
    out: dict = {"cut_moves": [], "signed_afterwards": [], "illegal": [], "unfollowed": []}
    mains: dict = {}
    for r in sorted((r for r in summaries if r.game_id is not None), key=lambda r: r.events):
        mains[r.game_id] = r
    # every event of a valid main log is its own game's and placed (the rules refuse an event of
    # another game): only the other files can hold candidates
    others = [s for s in summaries if not (s.valid and s.game_id is not None and mains.get(s.game_id) is s)]
    if not any(s.index or s.cert_index for s in others):
        return out
    placed = {eid for r in mains.values() for _, _, _, _, eid in r.index}
    by_game: dict = {}   # game id -> [(file name, entry index)] of events not in their game's main log
    seen: set = set()
    for s in others:
        for gid, _author, _seq, i, eid in s.index:
            main = mains.get(gid)
            if main is not None and main.valid and eid not in placed and eid not in seen:
                seen.add(eid)
                by_game.setdefault(gid, []).append((s.name, i))
        for gid, _phase, i in s.cert_index:
            main = mains.get(gid)
            if main is not None and main.valid:
                by_game.setdefault(gid, []).append((s.name, i))
    parsed: dict = {}
    for gid, where in by_game.items():
        cands = []
        for name, i in where:
            if name not in parsed:
                parsed[name] = parse(files[name]).entries
            try:
                ev = parse_entry(parsed[name][i], verify=False)
            except EntryError:
                continue
            if type(ev) in (Event, Timeout):
                cands.append((name, i, ev))
        main = mains[gid]
        found = evidence_in(main.name, parse(files[main.name]).entries, cands, games)
        for k in out:
            out[k] += found[k]
    # by phase, seat (null first), seq; then (two games given together) the file's place among the
    # files given and the entry index
    order = {s.name: k for k, s in enumerate(summaries)}
    for k in out:
        out[k].sort(key=lambda c: (c["phase"], -1 if c["seat"] is None else c["seat"], c.get("seq", -1),
                                   order.get(c["file"], len(order)), c["index"]))
    return out


def evidence_in(log_name: str, log_entries: Sequence[bytes], cands: list, games: Any) -> dict:
    """The evidence among ``cands`` — (file name, entry index, Event) of signed events not in the
    valid log ``log_entries``, signatures not yet checked — about that log, found by replaying it
    once (only when a candidate was made for one of its steps):

    * ``illegal``: an event of a seat expected in a step of the log (same ``prev`` and phase, the
      step's kind) whose open move the game's rules refuse there (``game.check``): the event
      never entered the log (the peers refused it on arrival), its signature makes it its
      author's fault.  One per seat and phase.
    * ``cut_moves``: an event of a seat that a certificate of the log voted out of that very
      step, whose ``seq`` fits the seat's chain (core.evidence.chain_misfit): the voters did not
      have it when they voted, or voted anyway.  One per seat and phase.  A refused event (an
      illegal move, a reveal that does not open its commitment) is no move and never one.
    * ``signed_afterwards``: such an event whose ``seq`` does not fit: signed after the fact, not
      evidence.  One per seat and phase.
    * ``unfollowed``: a time-out certificate for a step the log closed (same phase and prev) that
      names a seat that step expected, beats how the log closed it (§6.6: fewer seats, then the
      smaller list, or the step closed without one), is valid (§5.3) and that the log does not
      follow: its peer had shown a secret after that step (§6.5 "Shown secrets": a coalition trying
      to put a shown choice back in play, or an honest table split), or it came after the game
      ended.  One per phase: the best of them (§6.6's order), the first in ``cands`` of equals.

    Every event named has a valid signature (checked here), so a forged event frames no one."""
    out: dict = {"cut_moves": [], "signed_afterwards": [], "illegal": [], "unfollowed": []}
    if not cands or not log_entries:
        return out
    try:
        genesis = parse_genesis(log_entries[0], verify=False)
    except EntryError:
        return out
    keys = list(genesis.doc["seats"])
    seat_of = {k: i for i, k in reversed(list(enumerate(keys)))}
    by_step: dict = {}
    by_author: dict = {}
    certs = [c for c in cands if type(c[2]) is Timeout and c[2].game_id == genesis.game_id]
    # a leave is its seat's word for any step from its phase on, never a move a certificate cut (§6.1); a talk
    # line is no move either, but it takes a seq of its author's chain outside the log (§9.11): counted there
    talk = [c for c in cands if type(c[2]) is Event and c[2].kind == "say"]
    cands = [c for c in cands if type(c[2]) is Event and c[2].kind not in ("leave", "say")]
    for c in cands + talk:
        ev = c[2]
        phase = ev.body.get("phase")
        if ev.game_id != genesis.game_id or ev.author not in seat_of or type(phase) is not int:
            continue
        if ev.kind != "say":
            by_step.setdefault((phase, ev.prev), []).append(c)
        by_author.setdefault(ev.author, []).append(c)
    if not by_step and not certs:
        return out
    try:
        table = Table.start(genesis, games)
    except RuleError:
        return out
    signed: dict = {}

    def is_signed(c) -> bool:
        key = (c[0], c[1])
        if key not in signed:
            try:
                parse_entry(c[2].raw, keys=keys, verify=True)
                signed[key] = True
            except EntryError:
                signed[key] = False
        return signed[key]

    refused: set = set()        # (file, index) of candidates the rules refuse at their step
    illegal: dict = {}          # (seat, phase) -> the first one named
    expected: dict = {}         # phase -> the seats that step of the log expected
    looked = [-1]

    def look() -> None:
        st = table.step
        if st is None or st.phase == looked[0]:
            return
        looked[0] = st.phase
        expected[st.phase] = st.seats
        for c in by_step.get((st.phase, st.prev), ()):
            name, i, ev = c
            seat = seat_of[ev.author]
            if seat not in st.seats or ev.kind != st.kind:
                continue
            if st.kind == "reveal":
                want = table.commits.get(seat)
                if want is not None and reveal_commitment(ev, st.phase - 1) != want:
                    refused.add((name, i))      # find_bad_reveals names it
                continue
            if st.kind != "act":
                continue
            try:
                table.game.check(table.state, seat, ev.body.get("action"))
            except IllegalAction as exc:
                refused.add((name, i))
                if (seat, st.phase) not in illegal and is_signed(c):
                    reason = str(exc) or "illegal move"
                    illegal[(seat, st.phase)] = {
                        "file": name, "index": i, "seat": seat, "phase": st.phase, "label": st.label, "seq": ev.seq,
                        "kind": ev.kind, "reason": reason,
                        "note": "%s; the rules refuse it at that step, so it never entered the log" % illegal_words(
                            seat, st.phase, st.label, ev.seq, reason, "signed, kept in %s entry %d" % (name, i))}
            except Exception:   # a rules bug is not the seat's fault: it is not named
                continue

    for raw in log_entries[1:]:
        look()
        try:
            table.append(parse_entry(raw, keys=keys, verify=False))
        except Exception:       # the main log is valid; never crash on it anyway
            break
    look()
    out["illegal"] = list(illegal.values())

    cut: dict = {}
    after: dict = {}
    for c in cands:
        name, i, ev = c
        phase = ev.body.get("phase")
        cert = table.certificates.get(phase) if type(phase) is int else None
        if cert is None or cert.prev != ev.prev or (name, i) in refused:
            continue
        seat = seat_of.get(ev.author)
        if seat not in cert.seats or not is_signed(c):
            continue
        last, nxt = cert.last.get(seat, -1), cert.next.get(seat)
        held = ()
        if nxt is None and ev.seq > last + 1:
            held = {o[2].seq for o in by_author.get(ev.author, ()) if last < o[2].seq < ev.seq and is_signed(o)}
        why = chain_misfit(ev.seq, last, nxt, held)
        where = {"file": log_name, "index": cert.index}
        if why is None:
            if (seat, phase) in cut:
                continue
            cut[(seat, phase)] = {
                "file": name, "index": i, "seat": seat, "phase": phase, "label": cert.label, "seq": ev.seq,
                "kind": ev.kind, "voters": list(cert.voters), "certificate": where,
                "note": cut_words(seat, phase, cert.label, cert.voters, ev.seq, more="signed, kept in %s entry %d; the "
                                  "time-out certificate is %s entry %d" % (name, i, log_name, cert.index))}
        elif (seat, phase) not in after:
            after[(seat, phase)] = {
                "file": name, "index": i, "seat": seat, "phase": phase, "label": cert.label, "seq": ev.seq,
                "kind": ev.kind, "last": last, "next": nxt, "certificate": where,
                "note": afterwards_words(seat, phase, cert.label, why, "kept in %s entry %d; the time-out certificate "
                                         "is %s entry %d" % (name, i, log_name, cert.index))}
    out["cut_moves"] = list(cut.values())
    out["signed_afterwards"] = list(after.values())
    # per phase, the best certificate (§6.6: fewest seats, then the smaller list; the first held of
    # equals, in the order of the files given and their entries) among those for a step the log
    # closed (same phase and prev) that name a seat that step expected (§6.6: else ignored), beat
    # how the log closed it and are valid (§5.3)
    unfollowed: dict = {}
    best: dict = {}             # phase -> (len(T), T) of the one kept
    for name, i, cert in certs:
        start = table.starts.get(cert.phase)
        if start is None or start[1] != cert.prev or cert.phase >= table.phase:
            continue
        rank = (len(cert.seats), tuple(cert.seats))
        if cert.phase in best and best[cert.phase] <= rank:
            continue
        if not set(cert.seats) & set(expected.get(cert.phase, ())):
            continue
        used = table.timeouts.get(cert.phase)
        if used is not None and (len(used), tuple(used)) <= rank:
            continue
        try:
            parse_entry(cert.raw, keys=keys, verify=True)
        except EntryError:
            continue
        best[cert.phase] = rank
        voters = [v for v, _ in cert.votes]
        label = table.certificates[cert.phase].label if cert.phase in table.certificates else ""
        unfollowed[cert.phase] = {
            "file": name, "index": i, "seat": None, "phase": cert.phase, "label": label, "seats": list(cert.seats),
            "voters": voters,
            "note": "%s signed a time-out certificate voting %s out of phase %d that this log does not follow: it "
                    "beats how the log closed that step, so its peer had shown a secret after it (protocol.md "
                    "§6.5, \"Shown secrets\": the certificate would have put that choice back in play) or it came "
                    "after the game ended (kept in %s entry %d)" % (
                        seats_words(voters), seats_words(cert.seats), cert.phase, name, i)}
    out["unfollowed"] = sorted(unfollowed.values(), key=lambda c: c["phase"])
    return out


def find_forks(summaries: list[Summary], files: dict[str, bytes], games: Any) -> list[dict]:
    """The fork records (core/fork.py, protocol.md §6.5 rule 3) kept in the files given (a spool beside a
    log), each checked from the genesis of a log of its game given: what it proves, in neutral words —
    who signed the certificate, who had shown a secret on the branch it cuts; never who is to blame.
    One per certificate."""
    geneses = {r.game_id: _genesis_entry(files[r.name]) for r in summaries if r.game_id is not None}
    out: dict = {}
    for s in summaries:
        for i in s.fork_index:
            raw = parse(files[s.name]).entries[i]
            try:
                fk = parse_fork(raw)
                gen = geneses.get(fk.game_id)
                if gen is None:
                    continue
                info = check_fork(fk, parse_genesis(gen, verify=False), games)
            except (ForkError, EntryError):
                continue
            if info["cert_id"] in out:
                continue
            out[info["cert_id"]] = {
                "file": s.name, "index": i, "seat": info["seat"], "phase": info["phase"], "label": info["label"],
                "seats": info["seats"], "voters": info["voters"], "shown": info["shown"], "shown_label": info["shown_label"],
                "note": "%s (the proof: %s entry %d)" % (fork_words(info), s.name, i)}
    return sorted(out.values(), key=lambda c: (c["phase"], c["shown"], c["seat"]))


def branch_words(first: Sequence[bytes], second: Sequence[bytes], names: tuple, at: int) -> str:
    """Two logs of one game that part at entry ``at``: who signed what on each side, in neutral words (a
    certificate on one side, events on the other: the two logs together show every seat that signed both
    ways; a certificate alone blames no one)."""
    def signers(entries: Sequence[bytes]) -> tuple[set, list]:
        seats, certs = set(), []
        for raw in entries:
            try:
                e = parse_entry(raw, verify=False)
            except EntryError:
                continue
            if isinstance(e, Event):
                seats.add(e.author)
            elif isinstance(e, Timeout):
                certs.append(e)
                seats.update(("voter", v) for v, _ in e.votes)
        return seats, certs

    try:
        keys = list(parse_genesis(first[0], verify=False).doc["seats"])
    except (EntryError, KeyError, IndexError):
        return ""

    def seat_set(items: set) -> set:
        return {keys.index(x) if isinstance(x, bytes) and x in keys else x[1] for x in items
                if (isinstance(x, bytes) and x in keys) or isinstance(x, tuple)}

    a, ca = signers(first[at:])
    b, cb = signers(second[at:])
    both = sorted(seat_set(a) & seat_set(b))
    parts = []
    for nm, certs in ((names[0], ca), (names[1], cb)):
        for c in certs[:1]:
            parts.append("%s closes phase %d with a time-out certificate signed by %s voting %s out" % (
                nm, c.phase, seats_words([v for v, _ in c.votes]), seats_words(c.seats)))
    parts.append("after entry %d %s signed entries (events or votes) on both branches" % (at, seats_words(both)) if both
                 else "after entry %d no seat signed entries on both branches" % at)
    return "; ".join(parts)


def find_cut_moves(summaries: list[Summary], files: dict[str, bytes], games: Any) -> list[dict]:
    """The ``cut_moves`` of ``find_evidence``."""
    return find_evidence(summaries, files, games)["cut_moves"]


def _genesis_entry(data: bytes) -> bytes:
    """The first entry of a log file whose audit read its genesis: its first record is parsed
    (core.logfile.parse of the bytes up to that record's end), not the whole file."""
    at = len(LOG_MAGIC)
    end = at + 8 + int.from_bytes(data[at : at + 4], "big")
    return parse(data[:end]).entries[0]


def combine(summaries: list[Summary], files: dict[str, bytes], registry: Any = None) -> dict:
    """Cross-file checks and the ``easel audit --json`` object (bytes as hex).  ``registry``: the
    games the evidence beside a log is judged with (``find_evidence``; default: core.games)."""
    if registry is None:
        import core.games as registry
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
    branches: list = []
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
                words = branch_words(mine, longest, (r.name, by_len[-1].name), at)
                if words:   # the two logs together: who signed what on each branch (protocol.md §11)
                    branches.append({"file": r.name, "index": at, "seat": None, "note": "the logs fork: " + words})
    if not real_logs and not problems:
        problems.append({"file": None, "index": None, "problem": "no game log among the files (spool files are only searched for equivocation)"})
    # the main log is the longest; among equal lengths the last file given, i.e. the
    # same log the agreement check compares the others with (never one it names)
    main = sorted(real_logs, key=lambda r: r.events)[-1] if real_logs else None
    notes = [p for r in summaries for p in r.problems if "note" in p]
    notes += find_bad_reveals(summaries, files)
    found = find_evidence(summaries, files, registry)
    cut = found["cut_moves"]
    for kind in ("illegal", "cut_moves", "signed_afterwards", "unfollowed"):
        notes += [{k: c[k] for k in ("file", "index", "note", "seat")} for c in found[kind]]
    forks = find_forks(summaries, files, registry)
    notes += [{k: c[k] for k in ("file", "index", "note", "seat")} for c in forks] + branches
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
        "signed_afterwards": found["signed_afterwards"],
        "illegal": found["illegal"],
        "unfollowed": found["unfollowed"],
        "forked": forks,
        "certificates": list(main.certificates) if main else [],
        "left": list(main.left) if main else [],
        "said": list(main.said) if main else [],
        "logs": [
            {"file": r.name, "game_id": r.game_id.hex(), "valid": r.valid, "complete": r.complete, "events": r.events, "head": r.head.hex() if r.head else None}
            for r in real_logs
        ],
    }


def audit(files: dict[str, bytes], games: Any) -> dict:
    """Audit all files with the registry ``games`` (see the module docstring); one file after the other."""
    return combine([summarize(name, data, games) for name, data in files.items()], files, games)
