"""The table: everything between a signed log and a game's rules.

A ``Table`` replays a canonical log one entry at a time.  It knows the seats
and their keys, the order the rules impose, commit-reveal, the shared seed
and entropy beacon, time-out certificates; it asks the game (core.engine)
only who must act and what an action does.

Steps.  The table walks through *steps*, numbered by ``phase`` (0, 1, 2...).
Each step expects one event from each of a set of seats, all with
``prev`` = the head when the step opened and ``body.phase`` = its number:

* ``commit`` (sealed): each seat sends ``{phase, hash}``;
* ``reveal``: each seat that committed sends ``{phase, value, salt}``;
* ``act``: open moves; sequential steps expect exactly one seat.

A step closes when every expected seat has its event or is covered by a
time-out certificate.  In the log a step's batch is its events in seat order,
followed by the certificate if there is one; so every peer writes the same
bytes whatever order the events arrived in.

Randomness.  The first step of every game is a sealed *seed* step: each seat
commits to 32 random bytes; seed = dhash("seed", values in seat order) goes
to ``game.setup``.  Every sealed step, when it closes, folds the reveals'
salts into the beacon: beacon = dhash("beacon", beacon, salts in seat order);
a game's chance turn consumes the beacon if it is fresh, and otherwise the
table opens another seed step first, for the seats the chance turn names
(every seat if it names none; the first seed step is always every seat's).
No seat can know a chance outcome before every seat that committed to it
has revealed.

Automatic steps and seat secrets (a game with ``info.secrets``, core/engine.py).
A ``Turn(..., auto=True)`` opens an ``act`` step whose purpose is ``"auto"``:
its events are the actions each expected seat's peer computed itself
(``game.auto_action``), checked and applied exactly like moves (the bytes of
the log are the same kind of ``act`` event).  ``Table.secrets`` (seat ->
seat secret) is local knowledge, never part of the log: the peer puts its own
seat's secret there so ``view(seat)`` shows that seat's hand; a table built
by the audit or a spectator knows none.

Games.  The table is given a registry (anything with ``get(name)``: a
core.games.Registry, or the module core.games itself); it imports none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from .engine import ConfigError, IllegalAction, Turn
from .events import (
    ZERO32,
    EntryError,
    Event,
    Genesis,
    Timeout,
    next_head,
    parse_entry,
    parse_genesis,
    reveal_commitment,
    say_problem,
)
from .hashing import dhash


MAX_SKIPPED = 100000  # turns in a row that name only seats that left, applied at once: a game that never moves on is an error
BEFORE_KEEP = 512   # states kept in Table.before: how far back a UI can word a move against its state


class RuleError(ValueError):
    """An entry that is well formed and signed but not allowed here by the rules."""


class IllegalMove(RuleError):
    """An open move the game's rules refuse at its step (``game.check`` raised IllegalAction):
    the event is in place (its step, its seat, its kind), only the move itself is illegal, so
    its signature makes it evidence of its author's fault (protocol.md §11).  ``reason`` is the
    game's own words."""

    def __init__(self, text: str, reason: str) -> None:
        super().__init__(text)
        self.reason = reason


@dataclass(frozen=True)
class Step:
    phase: int
    prev: bytes
    kind: str                   # "commit" | "reveal" | "act"
    purpose: str                # "seed" | "move" | "auto" (an automatic step: the peer computes it)
    seats: tuple[int, ...]      # expected seats, ascending
    sequential: bool
    label: str
    time: int | None = None     # the turn's own time (Turn.time): the step's time-out when shorter
    shows: bool = False         # its events show their authors' secrets: an automatic step the game marks
                                # (Turn.shows), or the reveal of a sealed move (protocol.md §6.5)
    needs: bool = False         # the game cannot pass it without each of its seats (Turn.needs): the peers
                                # wait longer for them (p2p/timeouts.py NEEDED_PATIENCE)
    absent: tuple = ()          # seats the turn names that left the table (never expected; they play
                                # game.default_action when the step closes, protocol.md §6.1)


@dataclass
class Note:
    """Something the table recorded while replaying: a time-out, an illegal reveal..."""

    index: int
    phase: int
    seat: int | None
    text: str


@dataclass
class Certificate:
    """A time-out certificate placed in the log, as the table recorded it (protocol.md §6.5, §11):
    where it is, which step it closed, whom it voted out and who signed it; and, for each seat it
    voted out, the sequence numbers between which a move of that seat for that step fits its chain
    (``last``: its last seq in the log before the step, -1 if none; ``next``: the seq of its next
    event in the log, filled in as the log goes on, absent while there is none)."""

    index: int                  # the certificate's entry index in the log
    phase: int
    prev: bytes
    label: str                  # the step's label
    seats: tuple                # the seats it voted out (T)
    voters: tuple               # the seats that signed it
    last: dict = field(default_factory=dict)
    next: dict = field(default_factory=dict)

    def public(self) -> dict:
        """What the audit and history report of it (protocol.md §11 ``certificates``)."""
        return {"index": self.index, "phase": self.phase, "label": self.label, "seats": list(self.seats),
                "voters": list(self.voters)}


@dataclass
class Table:
    genesis: Genesis
    game: Any
    config: dict
    keys: list[bytes]
    head: bytes
    count: int = 1                              # entries applied, genesis included
    phase: int = 0
    step: Step | None = None
    state: Any = None                           # game state (None before the seed)
    seed: bytes | None = None
    beacon: bytes = ZERO32
    fresh: bool = False
    last_seq: dict = field(default_factory=dict)   # author key -> last seq in log
    batch: dict = field(default_factory=dict)      # seat -> Event (current step)
    commits: dict = field(default_factory=dict)    # seat -> commitment (pending reveal)
    commit_step: Step | None = None                # the commit step the reveals answer
    notes: list = field(default_factory=list)
    moves: list = field(default_factory=list)      # (index, phase, seat, action) applied moves
    starts: dict = field(default_factory=dict)     # phase -> (entry count when it opened, prev)
    timeouts: dict = field(default_factory=dict)   # phase -> seats a certificate timed out
    certificates: dict = field(default_factory=dict)   # phase -> Certificate (every certificate placed)
    # phase of a step that shows secrets -> (seats whose events it placed, whether it is a sealed move's reveal)
    showing: dict = field(default_factory=dict)
    # seat -> its open move as game.check returned it on arrival (current act step), so
    # closing the step does not check it again: same state, same move, same answer
    checked: dict = field(default_factory=dict, repr=False, compare=False)
    # event id -> its open move as game.check returned it (current act step): a peer checks an
    # event when it arrives and again when it places it; the second time is this lookup
    verdicts: dict = field(default_factory=dict, repr=False, compare=False)
    # the result of a game that ended before its log did (a fork, core/fork.py): not a replay of the
    # log alone, so never compared; set by ``end``
    ended: dict | None = field(default=None, repr=False, compare=False)
    # seat -> seat secret known locally (a peer's own seat): used by view(); never in the log
    secrets: dict = field(default_factory=dict, repr=False, compare=False)
    # move number k (index into moves) -> the game state moves[k] was applied to, for the
    # last BEFORE_KEEP moves: a log line says "buys 'Mona Lisa' for 2" about the market as it
    # was, not as it is now (states are immutable values, so this shares their structure)
    before: dict = field(default_factory=dict, repr=False, compare=False)
    # the seats whose events made the step that closed last (None: only the genesis so far)
    last_made: tuple | None = field(default=None, repr=False, compare=False)
    # seat -> (entry index of its placed leave event, the phase of the step it answered, its label): the seats that
    # left the table for good (protocol.md §6.1 "A leave"); no later step expects them
    gone: dict = field(default_factory=dict)
    # seat -> (the normalised payload, the entry index) of its leave event in the current step's batch
    leaving: dict = field(default_factory=dict, repr=False, compare=False)
    # author key -> body.phase of its last event in the log (a talk line's phase may not go below it)
    last_phase: dict = field(default_factory=dict)
    # every talk line placed, in log order: {"index", "phase", "seat", "seq", "text"} (protocol.md §9.11)
    said: list = field(default_factory=list)
    # the seat whose talk lines were just placed and whose answer must come next (None: none pending)
    talking: int | None = None
    talk_at: int = 0                # the entry index of the first of those lines
    # seat key -> seat number (a cache of keys.index)
    _seats: dict = field(default_factory=dict, repr=False, compare=False)
    # author key -> the certificates that voted it out and still wait for its next event in the log
    _awaiting: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._seats = {k: i for i, k in reversed(list(enumerate(self.keys)))}

    # ------------------------------------------------------------------ creation
    @classmethod
    def start(cls, genesis: Genesis | bytes, games: Any) -> "Table":
        """Open a table from its genesis; ``games`` is the game registry (``get(name) -> Game``)."""
        try:
            if isinstance(genesis, (bytes, bytearray)):
                genesis = parse_genesis(bytes(genesis))
        except EntryError as exc:
            raise RuleError(str(exc)) from None
        doc = genesis.doc
        try:
            game = games.get(doc["game"])
            config = game.configure(doc["config"], len(doc["seats"]))
        except ConfigError as exc:
            raise RuleError("genesis: %s" % exc) from None
        t = cls(
            genesis=genesis,
            game=game,
            config=config,
            keys=list(doc["seats"]),
            head=next_head(ZERO32, genesis.id),
        )
        t._open("commit", "seed", tuple(range(len(t.keys))), False, "shared seed: commit")
        return t

    @property
    def game_id(self) -> bytes:
        return self.genesis.game_id

    @property
    def players(self) -> int:
        return len(self.keys)

    @property
    def over(self) -> bool:
        return self.step is None

    def seat_of(self, key: bytes) -> int | None:
        try:
            return self.keys.index(key)
        except ValueError:
            return None

    # ------------------------------------------------------------------ queries
    def turn(self) -> Turn:
        return self.game.turn(self.state) if self.state is not None else Turn("simultaneous", tuple(range(self.players)), True, "shared seed")

    def view(self, seat: int | None, secret: bytes | None = None) -> Any:
        """``game.view`` for ``seat`` with ``secret`` (default: the secret this table knows for that
        seat, if any: a game with seat secrets then shows the seat its own hand; a game without
        ignores it)."""
        if self.state is None:
            return None
        if secret is None and seat is not None:
            secret = self.secrets.get(seat)
        return self.game.view(self.state, seat, secret)

    def state_before(self, k: int) -> Any:
        """The game state move ``moves[k]`` was applied to (``None`` once it is older than
        the last ``BEFORE_KEEP`` moves, or for a move number that does not exist)."""
        return self.before.get(k)

    def result(self) -> dict | None:
        if self.ended is not None:
            return self.ended
        return self.game.result(self.state) if self.state is not None and self.over else None

    def end(self, result: dict) -> None:
        """The game ends here without its log's end (a fork proven, core/fork.py): no step is open any
        more, nothing is appended, and ``result`` is what the table says."""
        self.ended = result
        self.step = None

    def standings(self) -> Any:
        """What the log has made public of the seats' standing so far (the game's ``standings`` hook),
        for a game that ends before its end: never a ranking or a winner."""
        return None if self.state is None else self.game.standings(self.state)

    def finish(self) -> None:
        """The log ends here: a talk line not followed by its author's answer makes it invalid (§9.11)."""
        if self.talking is not None:
            raise RuleError("the log ends after a talk line of seat %d (entry %d) without its answer" % (self.talking, self.talk_at))

    def talk(self) -> list:
        """Every talk line placed, in log order (§11 ``said``): index, phase, seat, seq, text."""
        return [dict(d) for d in self.said]

    def departures(self) -> list:
        """Every leave placed in the log, in log order: what the audit and history report of it (§11 ``left``)."""
        return [{"index": at, "phase": phase, "label": label, "seat": s}
                for s, (at, phase, label) in sorted(self.gone.items(), key=lambda x: x[1][0])]

    def missing(self) -> tuple[int, ...]:
        """Seats the current step still waits for (in the log's view)."""
        if self.step is None:
            return ()
        return tuple(s for s in self.step.seats if s not in self.batch)

    # ------------------------------------------------------------------ checking one event
    def check_event(self, ev: Event) -> int:
        """Is ``ev`` a valid event for the current step?  Returns its seat or raises RuleError.

        Does not look at other events of the step (order, duplicates): see ``append``.
        """
        return self._check_event(ev)[0]

    def _check_event(self, ev: Event) -> tuple[int, Any]:
        """``check_event``, also returning an open move as ``game.check`` normalised it."""
        st = self.step
        if st is None:
            raise RuleError("the game is over")
        if ev.game_id != self.genesis.game_id:
            raise RuleError("event belongs to another game")
        seat = self._seats.get(ev.author)
        if seat is None or seat >= len(self.keys) or self.keys[seat] != ev.author:   # keys is a public list: a stale map is not trusted
            seat = self.seat_of(ev.author)
            if seat is None:
                raise RuleError("author holds no seat at this table")
        if ev.seq <= self.last_seq.get(ev.author, -1):
            raise RuleError("sequence number %d not above the author's last (%d)" % (ev.seq, self.last_seq[ev.author]))
        if ev.kind == "leave":
            return seat, self._check_leave(ev, seat, st)
        if ev.kind == "say":
            self._check_say(ev, seat, st)
            return seat, None
        if ev.body["phase"] != st.phase:
            raise RuleError("event is for phase %d, the table is at phase %d" % (ev.body["phase"], st.phase))
        if ev.prev != st.prev:
            raise RuleError(
                "seat %d signed this event after another history than this log's: an entry before it was "
                "altered, added or removed (the step before it was made by %s)" % (seat, self._last_makers()))
        if seat not in st.seats:
            if seat in self.gone:
                raise RuleError("seat %d left the table (entry %d): no step expects it any more" % (seat, self.gone[seat][0]))
            raise RuleError("seat %d is not expected to act now (%s)" % (seat, st.label))
        if ev.kind != st.kind:
            raise RuleError("a %s event where the step expects %s" % (ev.kind, st.kind))
        if st.kind == "reveal":
            want = self.commits[seat]
            if reveal_commitment(ev, st.phase - 1) != want:
                raise RuleError("reveal does not match seat %d's commitment" % seat)
        elif st.kind == "act":
            if ev.id in self.verdicts:
                return seat, self.verdicts[ev.id]
            try:
                action = self.game.check(self.state, seat, ev.body["action"])
            except IllegalAction as exc:
                raise IllegalMove("illegal move by seat %d: %s" % (seat, exc), str(exc)) from None
            self.verdicts[ev.id] = action
            return seat, action
        return seat, None

    def _check_leave(self, ev: Event, seat: int, st: Step) -> Any:
        """A ``leave`` event (protocol.md §6.1 "A leave"): a candidate of its author for any step from its
        ``phase`` on that expects the author (its ``prev`` is not checked), once the game is set up, if
        the game takes its payload (``game.check_leave``; returns the payload normalised)."""
        if ev.body["phase"] > st.phase:
            raise RuleError("leave is for phase %d or later, the table is at phase %d" % (ev.body["phase"], st.phase))
        if seat not in st.seats:
            if seat in self.gone:
                raise RuleError("seat %d left the table (entry %d): no step expects it any more" % (seat, self.gone[seat][0]))
            raise RuleError("seat %d is not expected now (%s): its leave waits for a step that expects it" % (seat, st.label))
        if self.state is None:
            raise RuleError("a leave is placed only once the game is set up (after the shared seed)")
        if ev.id in self.verdicts:
            return self.verdicts[ev.id]
        try:
            payload = self.game.check_leave(self.state, seat, ev.body["payload"])
        except IllegalAction as exc:
            raise IllegalMove("seat %d's leave is refused: %s" % (seat, exc), str(exc)) from None
        self.verdicts[ev.id] = payload
        return payload

    def _check_say(self, ev: Event, seat: int, st: Step) -> None:
        """A ``say`` event, a talk line (protocol.md §9.11): placed only just before its author's answer to the
        open step, so its seat must be one the step expects that has not answered in this batch, after
        every seat that has (seat order); its phase at most the step's and at least that of its author's
        last event in the log (its ``prev`` is not checked); its text must pass ``say_problem``."""
        if seat not in st.seats:
            if seat in self.gone:
                raise RuleError("seat %d left the table (entry %d): no step expects it any more" % (seat, self.gone[seat][0]))
            raise RuleError("seat %d is not expected now (%s): its talk line waits for its next answer" % (seat, st.label))
        if seat in self.batch:
            raise RuleError("seat %d already answered phase %d: its talk line waits for its next answer" % (seat, st.phase))
        if self.batch and seat < next(reversed(self.batch)):
            raise RuleError("events of a step must be in seat order")
        phase = ev.body["phase"]
        if phase > st.phase:
            raise RuleError("talk line is for phase %d or later, the table is at phase %d" % (phase, st.phase))
        low = self.last_phase.get(ev.author, 0)
        if phase < low:
            raise RuleError("talk line of seat %d is for phase %d, before its last event in the log (phase %d)" % (seat, phase, low))
        why = say_problem(ev.body["text"])
        if why:
            raise RuleError("talk line of seat %d refused: %s" % (seat, why))

    def say_fits(self, ev: Event, low_phase: int) -> bool:
        """Would ``ev`` (a ``say``) pass as a talk line of its seat now, its author's last phase being
        ``low_phase``?  (For ``assemble``: the seat, order and pending checks hold by construction.)"""
        st = self.step
        return st is not None and low_phase <= ev.body["phase"] <= st.phase and not say_problem(ev.body["text"])

    # ------------------------------------------------------------------ the log
    def append(self, entry: Any) -> None:
        """Apply one log entry (raw bytes or a parsed entry) at the current position."""
        if isinstance(entry, (bytes, bytearray)):
            try:
                entry = parse_entry(bytes(entry), keys=self.keys)
            except EntryError as exc:
                raise RuleError(str(exc)) from None
        st = self.step
        if st is None:
            raise RuleError("entry after the end of the game")
        if isinstance(entry, Event) and entry.kind == "say":
            seat, _ = self._check_event(entry)
            if self.talking is not None and self.talking != seat:
                raise RuleError("seat %d's talk lines must be followed by its answer, not by a line of seat %d" % (self.talking, seat))
            if self.talking is None:
                self.talk_at = self.count
            self.talking = seat
            self.last_seq[entry.author] = entry.seq
            self.last_phase[entry.author] = entry.body["phase"]
            self.said.append({"index": self.count, "phase": entry.body["phase"], "seat": seat, "seq": entry.seq,
                              "text": entry.body["text"]})
            self._advance_head(entry.id)
            return
        if self.talking is not None:
            s = self.talking
            if not (isinstance(entry, Event) and self._seats.get(entry.author) == s):
                raise RuleError("seat %d's talk lines must be followed by its answer to phase %d" % (s, st.phase))
        if isinstance(entry, Event):
            seat, action = self._check_event(entry)
            self.talking = None
            if seat in self.batch:
                raise RuleError("seat %d already acted in phase %d" % (seat, st.phase))
            # the batch holds seats in ascending order (checked here): its last is its largest
            if self.batch and seat < next(reversed(self.batch)):
                raise RuleError("events of a step must be in seat order")
            self.batch[seat] = entry
            if entry.kind == "leave":
                self.leaving[seat] = (action, self.count)
            elif st.kind == "act":
                self.checked[seat] = action
            self.last_seq[entry.author] = entry.seq
            self.last_phase[entry.author] = entry.body["phase"]
            if self._awaiting:
                waiting = self._awaiting.pop(entry.author, None)
                for c in waiting or ():
                    c.next[seat] = entry.seq
            self._advance_head(entry.id)
            if len(self.batch) == len(st.seats):
                self._close()
        elif isinstance(entry, Timeout):
            if entry.game_id != self.game_id:
                raise RuleError("time-out belongs to another game")
            if entry.phase != st.phase or entry.prev != st.prev:
                raise RuleError("time-out is for phase %d, the table is at phase %d" % (entry.phase, st.phase))
            if len(entry.votes) + len(entry.seats) != self.players:
                raise RuleError("time-out must be signed by every seat it does not time out")
            if tuple(x for x in entry.seats if x in st.seats) != self.missing():
                # it may also name seats the step does not expect (absent seats that could not vote)
                raise RuleError("time-out must cover exactly the seats still missing %s" % (list(self.missing()),))
            voters = tuple(v for v, _ in entry.votes)
            rec = Certificate(self.count, st.phase, st.prev, st.label, tuple(entry.seats), voters,
                              {s: self.last_seq.get(self.keys[s], -1) for s in entry.seats})
            self.certificates[st.phase] = rec
            for s in entry.seats:
                self._awaiting.setdefault(self.keys[s], []).append(rec)
            self._advance_head(entry.id)
            self.timeouts[st.phase] = tuple(entry.seats)
            self.notes.append(Note(self.count - 1, st.phase, None, "timed out seats %s (%s)" % (list(entry.seats), st.label)))
            self._close()
        else:
            raise RuleError("a second genesis entry")

    def _advance_head(self, eid: bytes) -> None:
        self.head = next_head(self.head, eid)
        self.count += 1

    # ------------------------------------------------------------------ step machinery
    def _open(self, kind: str, purpose: str, seats: tuple[int, ...], sequential: bool, label: str,
              time: int | None = None, shows: bool = False, needs: bool = False, absent: tuple = ()) -> None:
        if kind == "reveal" and purpose == "move":
            shows = True      # a sealed move's value: bound by its commitment, shown here
        self.step = Step(self.phase, self.head, kind, purpose, tuple(sorted(seats)), sequential, label, time, shows,
                         needs, tuple(sorted(absent)))
        self.starts[self.phase] = (self.count, self.head)
        self.batch = {}
        self.checked = {}
        self.verdicts = {}
        self.leaving = {}

    def _last_makers(self) -> str:
        """Who made the step that closed last, in words (for a broken chain: those entries are the
        first suspects)."""
        seats = self.last_made
        if seats is None:
            return "the genesis"
        return ("seat %d" % seats[0]) if len(seats) == 1 else ("seats %s" % ", ".join(map(str, seats))) if seats else "a time-out"

    def _close(self) -> None:
        st = self.step
        assert st is not None
        self.last_made = tuple(sorted(self.batch))
        if st.shows:
            # (seats empty when a certificate closed it alone)
            self.showing[st.phase] = (self.last_made, st.kind == "reveal")
        idx = self.count - 1
        self.phase += 1
        if self.leaving:
            self._left(idx, st)
        if st.kind == "commit":
            self.commits = {s: e.body["hash"] for s, e in self.batch.items() if e.kind == "commit"}
            self.commit_step = st
            if self.commits:
                self._open("reveal", st.purpose, tuple(self.commits), False, st.label.replace("commit", "reveal") if "commit" in st.label else st.label + " (reveal)")
                return
            reveals: dict = {}
        elif st.kind == "reveal":
            reveals = {s: e.body for s, e in self.batch.items() if e.kind == "reveal"}
        else:
            reveals = {}
        if st.kind in ("commit", "reveal"):
            cst = self.commit_step
            self.commits = {}
            salts = [reveals[s]["salt"] if s in reveals else b"" for s in range(self.players)]
            self.beacon = dhash("beacon", self.beacon, salts)
            # fresh only if someone revealed: with no salt the new beacon is predictable
            self.fresh = bool(reveals)
            if cst.purpose == "seed":
                values = []
                for s in range(self.players):
                    v = reveals.get(s, {}).get("value")
                    if not (isinstance(v, bytes) and len(v) == 32):
                        if s in reveals:
                            self.notes.append(Note(idx, cst.phase, s, "seed reveal is not 32 bytes: counted as empty"))
                        v = b""
                    values.append(v)
                if self.state is None:
                    self.seed = dhash("seed", values)
                    self.state = self.game.setup(self.config, self.players, self.seed)
            else:
                self._apply_moves(cst.seats + cst.absent, {s: r["value"] for s, r in reveals.items()}, idx, cst.phase)
        else:
            self._apply_moves(st.seats + st.absent, {s: e.body["action"] for s, e in self.batch.items() if e.kind == "act"},
                              idx, st.phase, checked=True, prechecked=self.checked)
            # open moves were made knowing the beacon: a later chance needs new randomness
            self.fresh = False
        self._next()

    def _left(self, idx: int, st: Step) -> None:
        """The leaves placed in step ``st`` (closing at entry ``idx``): each seat, ascending, leaves the
        game (``game.leave``) before the step's moves are applied; it plays its default in this step
        and in every later turn that names it, and no step expects it again (protocol.md §6.1)."""
        for s in sorted(self.leaving):
            payload, at = self.leaving[s]
            self.state = self.game.leave(self.state, s, payload)
            self.gone[s] = (at, st.phase, st.label)
            self.notes.append(Note(at, st.phase, s, "seat %d left the table (%s)" % (s, st.label)))
        self.leaving = {}

    def _apply_moves(self, seats, raw_moves: dict, idx: int, phase: int, checked: bool = False, prechecked: dict | None = None) -> None:
        """Apply one action per expected seat, in seat order; missing or illegal = the default action.

        Every action is checked against the state as the step opened, before any is applied
        (``prechecked``: seat -> the action game.check already returned for that state).
        """
        base = self.state
        seats = sorted(seats)
        actions = {}
        for s in seats:
            if prechecked and s in prechecked:
                actions[s] = prechecked[s]
                continue
            if s in raw_moves:
                try:
                    actions[s] = self.game.check(base, s, raw_moves[s])
                    continue
                except IllegalAction as exc:
                    if checked:  # unsealed moves were checked on arrival
                        raise RuleError("illegal move by seat %d: %s" % (s, exc)) from None
                    self.notes.append(Note(idx, phase, s, "illegal sealed move, counted as empty: %s" % exc))
            actions[s] = self.game.default_action(base, s)
        state = base
        for s in seats:
            self.before[len(self.moves)] = state
            state = self.game.apply(state, s, actions[s])
            self.moves.append((idx, phase, s, actions[s]))
            self.before.pop(len(self.moves) - 1 - BEFORE_KEEP, None)
        self.state = state

    def _next(self) -> None:
        for _ in range(MAX_SKIPPED):
            t: Turn = self.game.turn(self.state)
            if t.kind == "over":
                self.step = None
                return
            if self.gone and len(self.gone) >= self.players:
                self.step = None        # every seat left: the table stops, the game unfinished
                return
            absent = tuple(s for s in t.seats if s in self.gone) if self.gone else ()
            if t.kind == "chance":
                seats = self._chance_seats(t)
                if self.gone:
                    seats = tuple(s for s in seats if s not in self.gone) or \
                        tuple(s for s in range(self.players) if s not in self.gone)
                if self.fresh:
                    self.state = self.game.chance(self.state, self.beacon)
                    self.fresh = False
                    continue
                self._open("commit", "seed", seats, False, "shared randomness: commit")
                return
            seats = tuple(s for s in t.seats if s not in absent)
            if absent and not seats:
                # a turn that names only seats that left: their defaults, at once, no step
                self._apply_moves(absent, {}, self.count - 1, self.phase)
                continue
            if t.auto:
                self._open("act", "auto", seats, t.kind == "sequential", t.label, shows=t.shows, needs=t.needs,
                           absent=absent)
            elif t.kind == "sequential":
                self._open("act", "move", seats, True, t.label, t.time, absent=absent)
            elif t.sealed:
                self._open("commit", "move", seats, False, (t.label + ": commit") if t.label else "commit", t.time,
                           absent=absent)
            else:
                self._open("act", "move", seats, False, t.label, t.time, absent=absent)
            return
        raise RuleError("the game named only seats that left for %d turns in a row" % MAX_SKIPPED)


    def _chance_seats(self, t: Turn) -> tuple[int, ...]:
        """Who gives entropy for a chance turn: the seats it names, else every seat."""
        if not t.seats:
            return tuple(range(self.players))
        if any(type(s) is not int or not 0 <= s < self.players for s in t.seats):
            raise RuleError("the game named seats %r for a chance turn at a %d-seat table" % (list(t.seats), self.players))
        return tuple(sorted(set(t.seats)))

    # ------------------------------------------------------------------ assembling a batch
    def assemble(self, candidates: dict, cert: Timeout | None = None, talk: Any = None) -> list | None:
        """The canonical batch that closes the current step, or None if it cannot close yet.

        ``candidates`` maps seat -> an Event that passed ``check_event``; ``cert`` is a
        complete, verified time-out certificate for this step.  A certificate wins over
        moves of the seats it times out (they are left out), so every peer that holds
        the certificate writes the same batch.

        ``talk(seat, low, high)``: the ``say`` events of ``seat`` held with ``low < seq < high``,
        ascending (a peer holds an author's events in contiguous seq order, so whoever holds an
        answer holds the same ones).  Just before each answer go its author's talk lines between
        its last seq in the log and the answer's, those that fit in seq order (protocol.md §9.11).
        """
        st = self.step
        if st is None:
            return None
        out_seats = set(cert.seats) if cert is not None else set()
        if cert is not None and (cert.phase != st.phase or cert.prev != st.prev or not out_seats & set(st.seats)):
            cert = None
            out_seats = set()
        batch = []
        for s in st.seats:
            if s in out_seats:
                continue
            if s not in candidates:
                return None
            ev = candidates[s]
            if talk is not None:
                author = self.keys[s]
                low = self.last_phase.get(author, 0)
                for line in talk(s, self.last_seq.get(author, -1), ev.seq):
                    if self.say_fits(line, low):
                        batch.append(line)
                        low = line.body["phase"]
            batch.append(ev)
        if cert is not None:
            batch.append(cert)
        return batch


def replay(entries: Sequence[bytes], games: Any, whole: bool = True) -> Table:
    """Replay a whole canonical log with the game registry ``games`` (RuleError at the first bad entry;
    also, unless ``whole`` is False (a prefix of a log still being received), when it ends on a talk
    line without its answer)."""
    if not entries:
        raise RuleError("empty log")
    t = Table.start(entries[0], games)
    for raw in entries[1:]:
        t.append(raw)
    if whole:
        t.finish()
    return t
