"""A coalition harness: any seats but the honest ones collude, with the real peers, in every game.

The colluders run real ``Peer`` code (tests/netutil.py ``Sim``, in memory) and share everything
they receive; on top of playing, they sign time-out certificates among themselves whenever their
strategy says so, and hand them to every peer (protocol.md §6.5: any half of a table can sign a
certificate against the other half, whether or not it moved).  The honest seats run unchanged.

Strategies (``Coalition(strategy=...)``):

* ``cut-before`` — cut every honest seat out of every step it is expected in, before its event
  reaches the coalition;
* ``cut-after`` — cut it out of the step once its event is in the coalition's hands (read);
* ``cut-every:<kind>`` — ``cut-after``, only for steps of one kind: ``commit``, ``reveal`` (a
  sealed move's), ``act`` (a decided open move), ``auto`` (an automatic step), ``shows`` (a step
  that shows a secret), ``seed`` (shared randomness), or a game's stage (Modern Art: ``keys``,
  ``shuffle``, ``deal``, ``check``, ``open``, ``disclose``; ``play`` is the card turn);
* ``rollback`` — once an honest event that shows a secret is read, certify the step before it
  (and then the seed step) against the honest seats: the roll-back of §6.6 that would put the
  shown choice back in play;
* ``withhold-deal`` — the coalition's own peers send the withhold marker instead of their deal
  shares (a signed ``{"withhold": true}``);
* ``cut-disclosure`` / ``cut-seed`` — ``cut-every:disclose`` / ``cut-every:seed``.

``outcome()`` measures, over the whole run, what the issue asks to be zero:

* ``read_in_hand`` — honest secrets the coalition read while they were still in play in any fork
  that goes on (every peer's table, the coalition's own included: a fork the honest seats do not
  follow is still one where the coalition may play on what it read; a fork whose game ended
  ``forked``, protocol.md §6.5 rule 3, plays on nothing): Modern Art cards it could open (its pooled
  seat secrets plus every share it received, cut events included) while they sat in an honest hand
  in some peer's table; for a sealed move, a revealed value whose commitment some peer's final log
  does not keep bound although that log went past the commit step (the step re-run, the coalition
  re-committing, after reading it);
* ``named_by_certificate`` — honest seats a result blames or ranks lower because of a
  certificate: named at fault (anything but "voted out"/"timed out" words), or placed otherwise
  than by its money (Modern Art) when a ranking is given;
and reports ``cuts`` (certificates forged), ``forks`` (honest peers that refused to follow a
certificate past a secret they showed), ``results``, ``statuses`` (each honest seat's result status,
None if it never ended) and ``ended_after`` (for each honest seat, seconds of the Sim's clock from the
first certificate the coalition handed out to the end of its game, None if it never ended).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.encoding import encode
from core.events import Event, make_timeout, vote_sign_msg

from .netutil import Sim

BLAME_OK = ("voted out", "timed out", "time-out", "did not come", "not disclosed", "was not disclosed")


@dataclass
class Outcome:
    cuts: int = 0
    read_in_hand: int = 0
    read_positions: set = field(default_factory=set)
    named_by_certificate: int = 0
    forks: int = 0
    results: list = field(default_factory=list)
    finished: int = 0
    notes: list = field(default_factory=list)
    statuses: list = field(default_factory=list)
    ended_after: list = field(default_factory=list)


class Coalition:
    def __init__(self, game: str, n: int, colluders: tuple, strategy: str, *, seed: int = 0,
                 options: dict | None = None, timeout: float = 600.0, max_cuts: int = 10_000) -> None:
        self.game = game
        self.n = n
        self.colluders = tuple(sorted(colluders))
        self.honest = tuple(k for k in range(n) if k not in self.colluders)
        assert 2 * len(self.honest) <= n, "a certificate can time out at most half the table"
        self.strategy = strategy
        self.sim = Sim(n, seed=seed, game=game, options=options, timeout=timeout,
                       tag="coalition-%s-%d-%s" % (game, n, strategy.replace(":", "-")))
        self.max_cuts = max_cuts
        self.cut_steps: set = set()       # (phase, prev) certified
        self.out = Outcome()
        self._seen_shares: dict = {}      # position -> {seat: share D} the coalition received
        self._read: dict = {}             # (card, position) read while in an honest hand -> peers whose table had it
        self._all: dict = {}              # event id -> every event some colluder holds
        self._fresh: list = []            # events gathered since the last look
        self._counts: dict = {}           # (colluder, author, pool) -> events seen there
        self._steps_held: dict = {}       # (phase, prev) -> events of that step the coalition holds
        self._rollbacks: list = []
        self._later: list = []            # honest events whose step the coalition will certify once it closed
        self._looked: dict = {}           # honest seat -> (hand, shared) when last measured
        self._opens: dict = {}            # (pos, givers) -> could the coalition open it
        self._first_cut: float | None = None   # the Sim's clock when the first certificate was handed out
        self._ended: dict = {}            # honest seat -> the Sim's clock when its game ended

    # ------------------------------------------------------------------ the coalition's eyes
    def _held(self) -> list[Event]:
        """Every event some colluder holds (placed or not, cut ones included), gathered incrementally."""
        for c in self.colluders:
            p = self.sim.peers[c]
            for author in self.sim.keys:
                for pool in (p.replica.events[author], p.replica.buffer[author]):
                    key = (c, author, id(pool))
                    if self._counts.get(key) == len(pool):
                        continue
                    self._counts[key] = len(pool)
                    for ev in list(pool.values()):
                        if ev.id not in self._all:
                            self._all[ev.id] = ev
                            self._fresh.append(ev)
        return list(self._all.values())

    def _take_fresh(self) -> list[Event]:
        self._held()
        out, self._fresh = self._fresh, []
        return out

    def _view_peer(self):
        return self.sim.peers[self.colluders[0]]

    def _kind_of(self, st, state) -> set:
        kinds = {st.kind}
        if st.purpose == "seed":
            kinds.add("seed")
        if st.purpose == "auto":
            kinds.add("auto")
        if st.shows:
            kinds.add("shows")
        if st.kind == "act" and st.purpose == "move":
            kinds.add("act")
        stage = getattr(state, "stage", None)
        if isinstance(stage, str):
            kinds.add(stage)
            ms = getattr(state, "ms", None)
            if stage == "play" and st.purpose == "move" and getattr(ms, "phase", None) in ("play", "double"):
                kinds.add("choice")       # Modern Art: a card play or an add (positions only)
        return kinds

    @staticmethod
    def _event_kinds(ev: Event) -> set:
        """The kinds an event's own content tells (for a step the coalition no longer sees open)."""
        a = ev.body.get("action") if ev.kind == "act" else None
        if not isinstance(a, dict):
            return set()
        if "open" in a:
            return {"open", "shows", "auto"}
        if "shares" in a:
            return {"deal", "shows", "auto"}
        if "secret" in a:
            return {"disclose", "shows", "auto"}
        if "key" in a:
            return {"keys", "auto"}
        if "deck" in a:
            return {"shuffle", "auto"}
        if "fault" in a and "do" not in a:
            return {"check", "auto"}
        if a.get("do") in ("play", "add") and "card" not in a:
            return {"choice", "act", "play"}
        return set()

    def _target_kind(self) -> str | None:
        s = self.strategy
        if s == "cut-disclosure":
            return "disclose"
        if s == "cut-seed":
            return "seed"
        if s.startswith("cut-every:"):
            return s.split(":", 1)[1]
        return None

    def _wanted(self, st, state) -> bool:
        if self.strategy in ("cut-before", "cut-after"):
            return True
        kind = self._target_kind()
        return kind is not None and kind in self._kind_of(st, state)

    # ------------------------------------------------------------------ forging
    def _forge(self, phase: int, prev: bytes, seats: list) -> bytes:
        sim = self.sim
        gid = sim.genesis.game_id
        votes = [(k, sim.ids[k].sign(vote_sign_msg(gid, phase, prev, seats))) for k in range(self.n) if k not in seats]
        return encode(["entry", make_timeout(gid, phase, prev, seats, votes).raw])

    def _hand_out(self, raw: bytes) -> None:
        if self._first_cut is None:
            self._first_cut = self.sim.now
        for k in range(self.n):
            self.sim.run(k, self.sim.peers[k].receive(self.sim.keys[self.colluders[0]], raw))
        self.out.cuts += 1

    def _cut(self, phase: int, prev: bytes, seats: list) -> None:
        if (phase, prev) in self.cut_steps or self.out.cuts >= self.max_cuts:
            return
        self.cut_steps.add((phase, prev))
        self._hand_out(self._forge(phase, prev, sorted(seats)))

    def look(self) -> None:
        """What the coalition does now (called before every delivery and after every tick)."""
        peer = self._view_peer()
        fresh = self._take_fresh()
        keys = self.sim.keys
        honest_keys = {keys[h] for h in self.honest}
        st = peer.table.step
        if self.strategy == "rollback":
            for ev in fresh:
                ph = ev.body.get("phase")
                if ev.author not in honest_keys or type(ph) is not int:
                    continue
                start = peer.table.starts.get(ph)
                shows = ph in peer.table.showing or (st is not None and st.phase == ph and st.shows) \
                    or "shows" in self._event_kinds(ev)
                if start is None or start[1] != ev.prev or not shows:
                    continue
                self._rollbacks.append((ph, ev.prev))
            for ph, prev in self._rollbacks:
                bstart = peer.table.starts.get(ph - 1)
                if bstart is not None and ph - 1 < peer.table.phase:
                    self._cut(ph - 1, bstart[1], list(self.honest))
                self._cut(0, peer.table.starts[0][1], list(self.honest))
            self._rollbacks = [r for r in self._rollbacks if (r[0] - 1, None) not in self.cut_steps][:0]
        else:
            if st is not None and self._wanted(st, peer.table.state):
                targets = [s for s in st.seats if s in self.honest]
                if targets:
                    if self.strategy == "cut-before":
                        self._cut(st.phase, st.prev, list(self.honest))
                    else:
                        mine = {keys.index(e.author) for e in self._steps_held.get((st.phase, st.prev), ())}
                        if all(s in mine for s in targets):
                            self._cut(st.phase, st.prev, list(self.honest))
            kind = self._target_kind()
            for ev in fresh:
                ph = ev.body.get("phase")
                if type(ph) is int:
                    self._steps_held.setdefault((ph, ev.prev), []).append(ev)
                # a step that closed before the coalition looked (a sequential move closes its step on
                # arrival): certified afterwards, by what the honest event itself shows it was
                if kind is not None and ev.author in honest_keys and type(ph) is int and kind in self._event_kinds(ev):
                    self._later.append(ev)
            keep = []
            for ev in self._later:
                ph = ev.body["phase"]
                start = peer.table.starts.get(ph)
                if start is not None and start[1] == ev.prev and ph < peer.table.phase:
                    self._cut(ph, ev.prev, list(self.honest))
                elif start is None or start[1] == ev.prev or ph >= peer.table.phase:
                    keep.append(ev)          # the coalition's own peer is not there yet: later
            self._later = keep
        self._measure(fresh)

    # ------------------------------------------------------------------ measuring
    def _measure(self, fresh) -> None:
        if self.game != "modern-art":
            return
        changed = _collect_shares(self, fresh)
        # every fork: an honest seat's hand in its own table, and every honest hand in a colluder's table once
        # its log left every honest seat's branch (a colluder that only lags behind is on their branch)
        for k in range(self.n):
            if k not in self.honest and not self._diverged(k):
                continue
            st = self.sim.peers[k].table.state
            if st is None or not hasattr(st, "ms") or not st.decks:
                continue
            for h in (k,) if k in self.honest else self.honest:   # an honest seat's own hand in its own table
                hand = tuple(p for p in st.ms.hands[h] if p < st.shared)
                mark = (hand, st.shared, st.deck[:1])
                if not changed and self._looked.get((k, h)) == mark:
                    continue
                self._looked[(k, h)] = mark
                for pos in hand:
                    key = (st.deck[pos], pos)
                    if k not in self._read.get(key, ()) and _coalition_opens(self, st, pos, h):
                        self._read.setdefault(key, set()).add(k)

    def _diverged(self, k: int) -> bool:
        """Peer ``k``'s log is on no honest seat's branch (neither a prefix of an honest log nor extended by
        one): a fork.  (Entries of a step sign its ``prev``: one entry in common at the shorter length is
        the same history up to that step.)"""
        mine = self.sim.peers[k].log_entries
        for h in self.honest:
            other = self.sim.peers[h].log_entries
            m = min(len(mine), len(other))
            if mine[m - 1] == other[m - 1]:
                return False
        return True

    def outcome(self) -> Outcome:
        o = self.out
        # a fork that ended (a proof of the fork, every seat's game over: §6.5 rule 3) leaves nothing in play
        goes_on = {k for k in range(self.n) if (self.sim.peers[k].table.result() or {}).get("status") != "forked"}
        o.read_positions = {key for key, ks in self._read.items() if ks & goes_on}
        o.read_in_hand = len(o.read_positions)
        if self.game != "modern-art":
            o.read_in_hand += _unbound_reveals(self)
        for h in self.honest:
            p = self.sim.peers[h]
            o.forks += bool(p.forked)
            res = p.table.result()
            o.results.append(res)
            o.statuses.append(None if res is None else res.get("status", "complete"))
            end = self._ended.get(h)
            o.ended_after.append(None if end is None else end - (self._first_cut or 0.0))
            if res is None:
                continue
            o.finished += 1
            o.named_by_certificate += _blamed(res, self.honest, p.table)
        return o

    # ------------------------------------------------------------------ running
    def run(self, max_rounds: int = 20_000, block=None) -> Outcome:
        sim = self.sim

        def before(src, dst, msg) -> bool:
            self.look()
            return bool(block(src, dst, msg)) if block is not None else False

        sim.block = before
        for c in self.colluders:
            # a colluder runs its own software: it follows its coalition's certificates whatever it showed
            # (an honest peer's rule never to roll back past a shown secret protects that peer's secrets,
            # and a coalition has none to keep from itself)
            sim.peers[c].gate.follows = lambda phase, seats: True
        if self.strategy == "withhold-deal":
            for c in self.colluders:
                _withhold_shares(sim.peers[c])
        sim.start()
        self.look()
        stall, last = 0, None
        for _ in range(max_rounds):
            for h in self.honest:
                if sim.peers[h].table.over and h not in self._ended:
                    self._ended[h] = sim.now
            honest_done = all(sim.peers[h].table.over for h in self.honest)
            colluders_done = all(sim.peers[c].table.over for c in self.colluders)
            if honest_done and colluders_done:
                break
            mark = tuple((p.table.count, p.table.head) for p in sim.peers)
            stall = stall + 1 if mark == last else 0
            last = mark
            if stall > 3000:
                self.out.notes.append("stalled")
                break
            sim.round()
            self.look()
        # what is still on the wire arrives (a proof of the fork an honest seat sent as it ended, §6.5 rule 3):
        # bounded, and each honest seat's end time stays the first one
        for _ in range(50):
            if not sim.queue:
                break
            sim.round()
            self.look()
        sim.block = None
        return self.outcome()


def _withhold_shares(peer) -> None:
    """A colluder's own peer that signs ``{"withhold": true}`` at every deal (shares) step."""
    auto = peer._auto

    def withholding() -> list:
        st = peer.table.step
        state = peer.table.state
        if (st is not None and st.purpose == "auto" and getattr(state, "stage", None) == "deal"
                and peer.seat in st.seats and peer.my_event_in_step() is None and peer.may_sign()):
            return peer._emit(st, "act", {"phase": st.phase, "action": {"withhold": True}})
        return auto()

    peer._auto = withholding


# --------------------------------------------------------------------------- game-specific knowledge
def _collect_shares(co: Coalition, held: list[Event]) -> bool:
    """Every decryption share the coalition holds, by position and giver: deal shares, card openings,
    fault proofs (from any event it holds, placed in a log or cut from it).  True if any is new."""
    changed = False
    for ev in held:
        a = ev.body.get("action")
        if not isinstance(a, dict):
            continue
        giver = co.sim.keys.index(ev.author)
        items = []
        for key in ("shares", "fault"):
            if isinstance(a.get(key), list):
                items += [(i[0], i[1]) for i in a[key] if isinstance(i, list) and len(i) >= 2]
        if isinstance(a.get("open"), list):      # a card's opening: [pos, card, share, proof]
            items += [(i[0], i[2]) for i in a["open"] if isinstance(i, list) and len(i) >= 3]
        for d in (a, a.get("double") if isinstance(a.get("double"), dict) else None):
            if isinstance(d, dict) and isinstance(d.get("reveal"), dict) and type(d.get("pos")) is int:
                items.append((d["pos"], d["reveal"].get("share")))
        for pos, share in items:
            if type(pos) is int and isinstance(share, bytes):
                got = co._seen_shares.setdefault(pos, {})
                if got.get(giver) != share:
                    got[giver] = share
                    changed = True
    return changed


def _coalition_opens(co: Coalition, st: Any, pos: int, owner: int) -> bool:
    """Can the coalition open position ``pos`` of ``owner``'s hand (its seat secrets + shares seen)?"""
    from core import deal
    from core.games.modern_art.cards import N_CARDS

    seen = co._seen_shares.get(pos, {})
    memo = (st.gid, pos, st.deck[pos], tuple(sorted(seen.items())))
    if memo in co._opens:
        return co._opens[memo]
    co._opens[memo] = out = _opens_now(co, st, pos, seen, deal, N_CARDS)
    return out


def _opens_now(co, st, pos, seen, deal, N_CARDS) -> bool:
    table = deal.card_table(st.gid, N_CARDS)
    c1, c2 = st.deck[pos][:32], st.deck[pos][32:]
    acc = c2
    for s in range(st.n):
        if s in co.colluders:
            secret = co.sim.peers[s].seat_secret
            if secret is None:
                return False
            d = deal._mul(deal._secret_scalar(secret, st.gid, s), c1, deal.Counter())
        elif s in seen:
            d = seen[s]
        else:
            return False
        try:
            acc = deal._nb.crypto_core_ed25519_sub(acc, d)
        except Exception:
            return False
    return acc in table


def _unbound_reveals(co: Coalition) -> int:
    """Honest sealed values the coalition saw revealed and some fork then re-opened unbound: a peer's
    log (any peer's: the coalition's own fork counts) in which the value's commit step opened again
    after another history (another ``prev``) and which does not keep its commitment (the choice open
    again, the others free to commit anew, after it was shown)."""
    from core.events import parse_entry, reveal_commitment

    held = co._held()
    keys = co.sim.keys
    commits = {(keys.index(e.author), e.body.get("phase"), e.body.get("hash")): e.prev for e in held if e.kind == "commit"}
    reveals = []
    for h in co.honest:
        for ev in held:
            if ev.author != keys[h] or ev.kind != "reveal":
                continue
            value = ev.body.get("value")
            if isinstance(value, bytes) and len(value) == 32:
                continue        # a seed step's contribution (fresh random bytes, no one's secret)
            ph = ev.body.get("phase")
            want = reveal_commitment(ev, ph - 1)
            reveals.append((h, ph - 1, want, commits.get((h, ph - 1, want))))
    read = set()
    for p in co.sim.peers:
        if (p.table.result() or {}).get("status") == "forked":
            continue        # a fork that ended (§6.5 rule 3): nothing in it is in play any more
        kept = set()
        for raw in p.log_entries[1:]:
            e = parse_entry(raw, keys=keys, verify=False)
            if isinstance(e, Event) and e.kind == "commit":
                kept.add((keys.index(e.author), e.body["phase"], e.body["hash"]))
        for h, c, want, prev in reveals:
            start = p.table.starts.get(c)
            if (h, c, want) not in kept and start is not None and start[1] != prev:
                read.add((h, c, want))
    return len(read)


def _blamed(res: dict, honest: tuple, table: Any) -> int:
    """Honest seats a result blames or ranks lower because of a certificate."""
    count = 0
    for item in res.get("named") or []:
        seat, text = item[0], str(item[1]).lower()
        if seat in honest and not any(w in text for w in BLAME_OK):
            count += 1
    money, places = res.get("money"), res.get("places")
    if res.get("status") == "abandoned":
        if res.get("ranking") or res.get("winners"):
            count += 1
    elif isinstance(money, list) and isinstance(places, list) and res.get("status") in ("complete", "not disclosed"):
        for h in honest:
            want = 1 + sum(1 for m in money if m > money[h])
            if places[h] != want:
                count += 1
    return count
