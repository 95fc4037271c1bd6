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
* ``withhold-deal`` — the coalition's own peers never send their deal shares;
* ``cut-disclosure`` / ``cut-seed`` — ``cut-every:disclose`` / ``cut-every:seed``.

``outcome()`` measures, over the whole run, what the issue asks to be zero:

* ``read_in_hand`` — honest secrets the coalition read while they were still in play at an honest
  peer: Modern Art cards it could open (its pooled seat secrets plus every share it received,
  cut events included) while they sat in an honest hand in that honest peer's table; for a sealed
  move, a revealed value whose commitment the honest peer's final log does not keep bound;
* ``named_by_certificate`` — honest seats a result blames or ranks lower because of a
  certificate: named at fault (anything but "voted out"/"timed out" words), or placed otherwise
  than by its money (Modern Art) when a ranking is given;
and reports ``cuts`` (certificates forged), ``forks`` (honest peers that refused to follow a
certificate past a secret they showed), ``results``.
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
        self._read: set = set()           # honest positions read while in an honest hand

    # ------------------------------------------------------------------ the coalition's eyes
    def _held(self) -> list[Event]:
        """Every event some colluder holds (placed or not, cut ones included)."""
        seen: dict = {}
        for c in self.colluders:
            p = self.sim.peers[c]
            for evs in list(p.events.values()) + list(p.buffer.values()):
                for ev in evs.values():
                    seen[ev.id] = ev
        return list(seen.values())

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
        return kinds

    def _wanted(self, st, state) -> bool:
        s = self.strategy
        if s in ("cut-before", "cut-after"):
            return True
        if s == "cut-disclosure":
            return "disclose" in self._kind_of(st, state)
        if s == "cut-seed":
            return "seed" in self._kind_of(st, state)
        if s.startswith("cut-every:"):
            return s.split(":", 1)[1] in self._kind_of(st, state)
        return False

    # ------------------------------------------------------------------ forging
    def _forge(self, phase: int, prev: bytes, seats: list) -> bytes:
        sim = self.sim
        gid = sim.genesis.game_id
        votes = [(k, sim.ids[k].sign(vote_sign_msg(gid, phase, prev, seats))) for k in range(self.n) if k not in seats]
        return encode(["entry", make_timeout(gid, phase, prev, seats, votes).raw])

    def _hand_out(self, raw: bytes) -> None:
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
        st = peer.table.step
        held = None
        if self.strategy == "rollback":
            held = self._held()
            for ev in held:
                seat = self.sim.keys.index(ev.author)
                ph = ev.body.get("phase")
                if seat not in self.honest or type(ph) is not int:
                    continue
                start = peer.table.starts.get(ph)
                showing = peer.table.showing.get(ph)
                if start is None or start[1] != ev.prev or showing is None and not (st and st.phase == ph and st.shows):
                    continue
                back = ph - 1
                bstart = peer.table.starts.get(back)
                if bstart is not None:
                    self._cut(back, bstart[1], list(self.honest))
                self._cut(0, peer.table.starts[0][1], list(self.honest))
        elif st is not None and self._wanted(st, peer.table.state):
            targets = [s for s in st.seats if s in self.honest]
            if targets:
                if self.strategy == "cut-before":
                    self._cut(st.phase, st.prev, list(self.honest))
                else:
                    held = self._held() if held is None else held
                    mine = {self.sim.keys.index(e.author) for e in held
                            if e.prev == st.prev and e.body.get("phase") == st.phase}
                    if all(s in mine for s in targets):
                        self._cut(st.phase, st.prev, list(self.honest))
        self._measure(held)

    # ------------------------------------------------------------------ measuring
    def _measure(self, held) -> None:
        if self.game != "modern-art":
            return
        held = self._held() if held is None else held
        _collect_shares(self, held)
        for h in self.honest:
            st = self.sim.peers[h].table.state
            if st is None or not hasattr(st, "ms") or not st.decks:
                continue
            for pos in st.ms.hands[h]:
                if pos < st.shared and pos not in self._read and _coalition_opens(self, st, pos, h):
                    self._read.add(pos)

    def outcome(self) -> Outcome:
        o = self.out
        o.read_positions = set(self._read)
        o.read_in_hand = len(self._read)
        if self.game != "modern-art":
            o.read_in_hand += _unbound_reveals(self)
        for h in self.honest:
            p = self.sim.peers[h]
            o.forks += bool(p.forked)
            res = p.table.result()
            o.results.append(res)
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
        sim.start()
        self.look()
        stall, last = 0, None
        for _ in range(max_rounds):
            honest_done = all(sim.peers[h].table.over or sim.peers[h].forked for h in self.honest)
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
        sim.block = None
        return self.outcome()


# --------------------------------------------------------------------------- game-specific knowledge
def _collect_shares(co: Coalition, held: list[Event]) -> None:
    """Every decryption share the coalition holds, by position and giver: deal shares, card openings,
    fault proofs (from any event it holds, placed in a log or cut from it)."""
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
                co._seen_shares.setdefault(pos, {})[giver] = share


def _coalition_opens(co: Coalition, st: Any, pos: int, owner: int) -> bool:
    """Can the coalition open position ``pos`` of ``owner``'s hand (its seat secrets + shares seen)?"""
    from core import deal
    from core.games.modern_art.cards import N_CARDS

    table = deal.card_table(st.gid, N_CARDS)
    c1, c2 = st.deck[pos][:32], st.deck[pos][32:]
    acc = c2
    seen = co._seen_shares.get(pos, {})
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
    """Honest sealed values the coalition saw revealed whose commitment the honest seat's final log
    does not keep (the choice re-opened after it was shown)."""
    from core.events import parse_entry, reveal_commitment

    count = 0
    held = co._held()
    for h in co.honest:
        p = co.sim.peers[h]
        key = co.sim.keys[h]
        kept = set()
        for raw in p.log_entries[1:]:
            e = parse_entry(raw, keys=co.sim.keys, verify=False)
            if isinstance(e, Event) and e.author == key and e.kind == "commit":
                kept.add((e.body["phase"], e.body["hash"]))
        for ev in held:
            if ev.author != key or ev.kind != "reveal":
                continue
            value = ev.body.get("value")
            if isinstance(value, bytes) and len(value) == 32:
                continue        # a seed step's contribution (fresh random bytes, no one's secret)
            ph = ev.body.get("phase")
            if (ph - 1, reveal_commitment(ev, ph - 1)) not in kept:
                count += 1
    return count


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
