"""Modern Art with the trustless deal (core/deal.py) as automatic steps: the table's game.

(About 1,150 lines, over the house's ~900: one job, the deal's steps and what
ends them -- keys, shuffles, shares, the bound card play and its opening, the
disclosure, the faults and time-outs of each, and what a seat that leaves
changes in each (RULES.md decision 28) -- which protocol.md §6.5 and
docs/deal.md §4 read as one table; the cryptography is in core/deal.py and
the game itself in rules.py. The leave could be a module of its own, but it
touches every step above: cut apart, each step would be read in two files.)

The rules (rules.py) know deck *positions* only; this layer wraps their state
with the deal's public record and runs the deal as automatic steps
(core/engine.py, "Private information"):

1. **keys** (simultaneous, every seat): ``{"key": Y_s, "proof"}``; ``Y_s`` is
   derived from the seat secret, so it is the public commitment to it.
2. **shuffles** (sequential, seat 0, 1, ...): ``{"deck": [64-byte ct] * 70,
   "proof": bytes}``, the deck with its Terelius-Wikstrom proof of a shuffle
   (``deal.prove_shuffle``, docs/deal.md §2a).  Its form is checked at once
   by every peer (``deal.check_deck``, ``deal.check_shuffle_form``: refused
   naming the seat); the next seat shuffles on from it; its proof
   (``deal.verify_shuffle_proof``) when the shuffle CHECK_LAG = 2 places later
   is applied, the rest with the last, so before any share: a failing one
   abandons the game naming the seat (docs/deal.md §3).  The proof's
   challenge is a hash of the whole statement (Fiat-Shamir), so no step of
   the table and no coalition can steer it.
3. **deal** (simultaneous, once per round that deals cards): every seat gives,
   in one message, its Chaum-Pedersen-proven decryption shares for every
   position just dealt to another seat: ``{"shares": [[pos, D, proof], ...]}``.
4. **hand check** (simultaneous, the seats that just got cards): each opens
   its new cards; ``{"fault": []}`` normally, or the owner's own proven shares
   for positions that open to no card / to a card it already holds / to a card
   already played (``{"fault": [[pos, D, proof], ...]}``): a proven *deck
   fault* stops the game and goes to the disclosure, where the shuffler that
   caused it is named.
5. the rules' steps.  A card play (and a double's second card, and an added
   card) is **bound before it is shown**: the seat's decided move names deck
   positions only (``{"do": "play", "pos": p, "double": null | {"pos": p2}}``,
   ``{"do": "add", "pos": p}``; ``seal_action`` takes the card-id form a screen
   or a bot chooses, checks its claim against the seat's own cards and by the
   rules and returns this form, which is what the peer signs; ``check`` refuses
   a choice that names a card, so no log ever holds one), and shows nothing.
6. **open** (sequential, the seat that chose; ``Turn.shows``): its peer opens
   the bound positions, ``{"open": [[pos, card, D, proof], ...]}`` (the owner's
   share for each, ``deal.verify_play``); ``check`` verifies every share and
   that the cards make a legal play under the rules, and ``apply`` applies the
   full play as the rules say.  A time-out here (its default ``{"discard":
   true}``, which only a time-out gives: ``check`` refuses it) **discards the
   bound cards face down**: they leave the hand unseen, count for no artist,
   and the seat loses its turn (in the double offer: it passes).  So cutting
   the open cannot put a shown card back in the hand, and cutting the choice
   shows nothing (docs/deal.md §4).
7. **disclosure** (simultaneous, every seat) after the rules' last step:
   ``{"secret": 64 bytes}``, checked against the seat's key at once; then every
   shuffle is redone from the secrets and a seat whose output differs is named.

Withholding (``{"withhold": True}``, the default of every deal step but the
hand check and the open: only that seat can give it; a seat that sends the
marker itself is treated exactly as if it had timed out).  The deal's privacy
rests on every seat's key and every seat's shuffle, so a missing key or
shuffle **abandons** the game: status "abandoned", nobody ranked, the reason
named ("seat N was timed out of its shuffle (…): the deal cannot go on without it,
no hand was dealt"), no share ever asked.  Missing shares abandon the game too
(nobody ranked: a time-out certificate can be signed by the other seats
against a seat that sent its shares, so it blames no one).  A missing
disclosure leaves the game ``not disclosed``: every money total is public by
then, so the ranking by money stands for every seat and the seat is named
without being ranked last (its shuffle was proven at the deal).  Only a seat
proven wrong by its own disclosed secret (``cheating``) is ranked last.
docs/deal.md §4 says, step by step, what a false time-out would give a
coalition and why it costs no honest seat's secrecy.

**Deck faults** (a card that opens to no card, a card held twice, a card whose
twin was already played) are never offered as moves (``legal_actions`` leaves
them out); the owner proves one with its own shares, in the hand check after
a deal or, for a twin played later, with ``{"do": "fault", "fault": [[pos,
D, proof], ...]}`` on its next turn; a proven fault stops the game and goes to
the disclosure, where the audit names the shuffler.  A claim that does not
prove a fault is refused like any illegal move (it never enters the log).

The Fiat-Shamir context of every proof ("game id" in docs/deal.md) is the
table's shared seed (32 bytes, fresh per game, known to every peer before the
first key step).
"""

from __future__ import annotations

import functools
from functools import lru_cache
from typing import Any, Mapping

from ... import deal
from ...engine import IllegalAction, OVER, Turn
from ... import memo
from ...memo import single_flight
from . import rules
from .cards import N_CARDS, card_name

__all__ = ["DState", "setup", "turn", "check", "apply", "apply_timeout", "apply_discard", "chance", "auto_action",
           "seal_action", "default_action", "timeout_only", "opened_action", "DISCARD", "LEFT",
           "leave_payload", "check_leave", "leave", "apply_left",
           "view", "result", "describe", "legal_actions", "known_cards", "dead_positions", "precompute"]

AUTO_STAGES = ("keys", "shuffle", "deal", "check", "open", "disclose")

# the open's time-out default (the bound cards are discarded face down): never a seat's own move
DISCARD = {"discard": True}
# what a seat that left the table plays where it has nothing of the rules to default to (its card turn, the
# deal's steps): never a seat's own move (``check`` refuses it); ``apply_left`` applies it
LEFT = {"left": True}


@lru_cache(maxsize=16)
def _table(gid: bytes) -> dict:
    """deal.card_table, from the initial deck's card points (computed once for both)."""
    return {ct[32:]: i for i, ct in enumerate(_initial(gid))}


@lru_cache(maxsize=16)
def _initial(gid: bytes) -> tuple:
    return tuple(deal.initial_deck(gid, N_CARDS))


@lru_cache(maxsize=16)
def _joint(keys: tuple) -> bytes:
    """The joint key of the seats in the deal (a seat that left before its key was placed is not: None)."""
    return deal.joint_key([k for k in keys if k is not None])


# A peer's worker thread computes a proof's verdict or the seat's shuffle preparation ahead
# (``precompute``) while the table's apply or the seat's shuffle may need the same value at once;
# the second caller waits for the first one's answer instead of computing it again (a proof check
# is ~50 ms of CPU, and the two copies would share the same cores): core.memo.single_flight, whose
# locks the threaded shell hands in.  Only who computes changes, never the answer.
_single_flight = single_flight


@lru_cache(maxsize=64)
def _cached_proof_problem(gid: bytes, seat: int, deck_in: tuple, deck_out: tuple, proof: bytes,
                          joint: bytes) -> str | None:
    return deal.verify_shuffle_proof(deck_in, deck_out, proof, joint, gid, seat)


_checked_once = _single_flight(_cached_proof_problem)


# Proofs this process just made with deal.prove_shuffle from these very inputs: they verify
# (completeness, tests/test_shuffle_proof.py), so the author does not verify its own proof again.
# A memo of the same pure function's value, keyed by all of its inputs; bounded.
_MADE: dict = {}
_MADE_MAX = 16


_MADE_SHARES: set = set()      # (gid, seat, key, pos, ct, D, proof): shares deal.share just made here with
                               # the secret behind the seat's key (so they verify: completeness)
_MADE_SHARES_MAX = 512


def _made_here(st: "DState", seat: int, a: dict) -> bool:
    """Is this shuffle the one ``auto_action`` just made here?  Then its deck passes check_deck and
    its proof check_shuffle_form (the author checks its own event before it signs it and again as
    it places it: ~10 ms of point checks each time, on the critical path of every shuffle)."""
    deck = a.get("deck")
    if not isinstance(deck, list) or type(a.get("proof")) is not bytes:
        return False
    try:
        return (st.gid, seat, st.deck, tuple(deck), a["proof"], _joint(st.keys)) in _MADE
    except (TypeError, deal.DealError):
        return False


def _shares_key(st: "DState", seat: int, items: list) -> tuple:
    """What a seat's deal message's shares are checked against: the arguments of every
    ``deal.verify_share`` it needs (the trust domain's board names them, core/memo.py ``vouched``)."""
    return (st.gid, seat, st.keys[seat], tuple((pos, st.deck[pos], D, proof) for pos, D, proof in items))


def _proof_problem(gid: bytes, seat: int, deck_in: tuple, deck_out: tuple, proof: Any,
                   joint: bytes) -> str | None:
    """deal.verify_shuffle_proof of ``seat``'s shuffle, remembered (~50 ms of CPU each).  Pure:
    the answer is a function of the arguments, which are the cache key; a peer may compute it
    ahead, in the background (``precompute``), and the table's apply then finds it (or waits
    for it, if the worker is computing it right then)."""
    if type(proof) is not bytes:
        return "the shuffle proof must be bytes"
    key = (gid, seat, deck_in, deck_out, proof, joint)
    if key in _MADE or memo.vouched("shuffle-proof", *key):
        return None
    bad = _checked_once(*key)
    if bad is None:
        memo.vouch("shuffle-proof", *key)
    return bad


# A shuffle's proof is checked when the shuffle CHECK_LAG places after it is applied, and every
# proof not checked yet when the last shuffle is (docs/deal.md §3): by then a peer's worker has
# mostly checked it already (``precompute``), and a replay (an audit) spreads the checks too.
CHECK_LAG = 2


def _shuffle_problems(w: "DState", seats) -> list:
    """The proofs of the shuffles of ``seats`` checked against their input decks: [(seat, problem)]."""
    joint = _joint(w.keys)
    out = []
    # newest first: a peer's worker checks the placed proofs oldest first (``precompute``), so the
    # one it may be busy with is found done here, not checked twice
    for s in sorted(seats, reverse=True):
        if w.proofs[s] is None:
            continue            # a seat that left before its shuffle: the deck passed it unchanged
        bad = _proof_problem(w.gid, s, w.decks[s], w.decks[s + 1], w.proofs[s], joint)
        if bad is not None:
            out.append((s, bad))
    return sorted(out)


class DState:
    """The rules' state plus the deal's public record.  Immutable by convention."""

    __slots__ = ("ms", "n", "gid", "stage", "pending", "keys", "decks", "shuffled", "shuffler", "proofs",
                 "shares", "owner", "shared", "lo", "hi", "secrets", "named", "status", "fault",
                 "choice", "discarded", "last", "gone")
    # choice: the positions-only card play or add bound in the play stage, shown in the open (None otherwise)
    # discarded: positions whose bound cards were discarded face down (a cut open), in that order: public
    # last: seats ranked last in the result (proven wrong by their own disclosed secret; never by a time-out)
    # gone: seats that left the table (their own signed leave, protocol.md §12.3), in the order they left

    def _replace(self, **kw: Any) -> "DState":
        w = DState.__new__(DState)
        for k in DState.__slots__:
            object.__setattr__(w, k, kw[k] if k in kw else getattr(self, k))
        return w

    def __repr__(self) -> str:
        return "DState(stage=%s, %r)" % (self.stage, self.ms)

    @property
    def deck(self) -> tuple:
        return self.decks[-1]


def setup(config: Mapping[str, Any], players: int, seed: bytes) -> DState:
    ms = rules.setup(config, players, seed)
    s = DState.__new__(DState)
    init = dict(ms=ms, n=players, gid=bytes(seed), stage="keys", pending=tuple(range(players)),
                keys=(None,) * players, decks=(), shuffled=(), shuffler=0, proofs=(),
                shares=((None,) * players,) * N_CARDS, owner=(-1,) * N_CARDS, shared=0, lo=0, hi=0,
                secrets=(None,) * players, named=(), status="", fault="", choice=None, discarded=(), last=(), gone=())
    for k, v in init.items():
        object.__setattr__(s, k, v)
    return s


# --------------------------------------------------------------------------- turn


def turn(st: DState) -> Turn:
    g = st.stage
    if g == "over":
        return OVER
    if g == "play":
        return rules.turn(st.ms)
    if g == "shuffle":
        # the last shuffle's step stays on the screen while every peer checks the proofs not
        # checked yet (as it places that shuffle, before the dealing opens): its label says so
        # (short: the Modern Art board shows 26 characters of it)
        what = ", then proofs" if st.shuffler == st.n - 1 else " (seat %d)" % st.shuffler
        return Turn("sequential", (st.shuffler,), auto=True, needs=True,
                    label="the deal: shuffle %d/%d%s" % (st.shuffler + 1, st.n, what))
    if g == "open":
        seat = st.pending[0]
        return Turn("sequential", (seat,), auto=True, shows=True, label=_open_label(st, seat))
    labels = {"keys": "the deal: keys",
              "deal": "the deal: dealing (positions %d-%d)" % (st.lo, st.hi - 1),
              "check": "the deal: new cards checked", "disclose": "the deal: seat secrets disclosed"}
    # the shares and the disclosure show their authors' secrets (the hand check's fault shares are only
    # for dead cards, the keys and the shuffles show none): the peer's rule for them, protocol.md §6.5
    # the keys, the shuffles and the shares: the deal cannot go on without each seat's (a time-out abandons
    # the game), so the peers wait longer for a silent seat there (Turn.needs, p2p/timeouts.py)
    return Turn("simultaneous", st.pending, auto=True, label=labels[g], shows=g in ("deal", "disclose"),
                needs=g in ("keys", "deal"))


def _bound(st: DState) -> list:
    """The positions the seat bound in its choice, in order (the card, then a double's second)."""
    a = st.choice or {}
    out = [a.get("pos")]
    if isinstance(a.get("double"), dict):
        out.append(a["double"]["pos"])
    return out


def _open_label(st: DState, seat: int) -> str:
    what = ("the card it adds to the double" if (st.choice or {}).get("do") == "add"
            else "the two cards it auctions" if len(_bound(st)) == 2 else "the card it auctions")
    return "round %d: seat %d shows %s" % (st.ms.round, seat, what)


def _sync(w: DState) -> DState:
    """After a transition of the rules: a deal step if cards were dealt, the disclosure at the end (also
    at the start of a card turn once fewer than two seats are left at the table: nobody to auction to)."""
    ms = w.ms
    if w.gone and ms.phase == "play" and w.n - len(w.gone) < 2:
        return w._replace(stage="disclose", pending=tuple(range(w.n)), choice=None)
    if ms.dealt > w.shared:
        lo, hi = w.shared, ms.dealt
        owner = list(w.owner)
        for pos in range(lo, hi):
            owner[pos] = next(s for s in range(w.n) if pos in ms.hands[s])
        asked = tuple(s for s in range(w.n) if any(owner[p] != s for p in range(lo, hi)))
        w = w._replace(stage="deal", lo=lo, hi=hi, owner=tuple(owner), pending=asked)
    elif ms.phase == "over":
        w = w._replace(stage="disclose", pending=tuple(range(w.n)))
    else:
        w = w._replace(stage="play", pending=())
    # a seat that left gets its cards as dealt (who holds which position is fixed by the rules), set aside
    # face down at once: out of play
    return w._replace(ms=rules.set_aside(w.ms, w.gone)) if w.gone else w


# --------------------------------------------------------------------------- checking


def _bytes(x: Any, n: int, what: str) -> bytes:
    if type(x) is not bytes or len(x) != n:
        raise IllegalAction("%s must be %d bytes" % (what, n))
    return x


def _exact(action: Any, keys: tuple, what: str) -> dict:
    if not isinstance(action, dict) or set(action) != set(keys):
        raise IllegalAction("%s is a map with exactly %s" % (what, ", ".join(keys)))
    return action


def _withhold(action: Any) -> bool:
    return isinstance(action, dict) and action == {"withhold": True}


def _share_list(raw: Any, what: str) -> list:
    if not isinstance(raw, list):
        raise IllegalAction("%s must be a list of [position, share, proof]" % what)
    out = []
    for item in raw:
        if not (isinstance(item, list) and len(item) == 3 and type(item[0]) is int):
            raise IllegalAction("%s must be a list of [position, share, proof]" % what)
        out.append([item[0], _bytes(item[1], 32, "a share"), _bytes(item[2], 64, "a share proof")])
    return out


def _others(st: DState, pos: int, owner: int) -> list:
    """The shares of the other seats in the deal for ``pos`` (a seat that left before its key is in no deal)."""
    return [st.shares[pos][s] for s in range(st.n) if s != owner and st.keys[s] is not None]


def _fault_problem(st: DState, seat: int, items: list) -> str | None:
    """None if the claimed fault is proven, else why not.  Every share is checked first (one that
    does not verify refuses the claim, whatever the other positions open to: protocol.md §7.1)."""
    for pos, D, proof in items:
        if not deal.verify_share(st.keys[seat], st.deck[pos], D, proof, st.gid, seat, pos):
            return "the share for position %d does not verify" % pos
    cards = []
    for pos, D, proof in items:
        ct = st.deck[pos]
        p = ct[32:]
        try:
            for d in [D] + _others(st, pos, seat):
                p = deal._sub(p, d)
        except Exception:
            return None  # cannot be opened at all: proven bad
        c = _table(st.gid).get(p)
        if c is None:
            return None
        cards.append(c)
    if len(set(cards)) < len(cards) or any(c in st.ms.revealed for c in cards):
        return None
    return "positions %s open to distinct cards not yet played: no fault" % [i[0] for i in items]


def _open_items(raw: Any) -> list:
    if not isinstance(raw, list) or not raw:
        raise IllegalAction("an open is a list of [position, card, share, proof]")
    out = []
    for item in raw:
        if not (isinstance(item, list) and len(item) == 4 and type(item[0]) is int and type(item[1]) is int):
            raise IllegalAction("an open is a list of [position, card, share, proof]")
        if not 0 <= item[1] < N_CARDS:
            raise IllegalAction("card %d does not exist (cards are 0 to %d)" % (item[1], N_CARDS - 1))
        out.append([item[0], item[1], _bytes(item[2], 32, "a share"), _bytes(item[3], 64, "a share proof")])
    return out


def opened_action(st: DState, seat: int, action: Any) -> dict | None:
    """The rules' full card-id action an open shows (``{"do": "play", "pos", "card", "double"}`` or
    ``{"do": "add", "pos", "card"}``), from the bound choice and the open's cards; None if ``action``
    is no well-formed open of the bound positions (nothing checked: ``check`` does that)."""
    if st.stage != "open" or not isinstance(action, dict) or not isinstance(action.get("open"), list):
        return None
    items = action["open"]
    if [i[0] if isinstance(i, list) and i else None for i in items] != _bound(st):
        return None
    cards = [i[1] if len(i) > 1 else None for i in items]
    if any(type(c) is not int for c in cards):
        return None
    a = st.choice
    if a["do"] == "add":
        return {"do": "add", "pos": a["pos"], "card": cards[0]}
    second = None if len(cards) == 1 else {"pos": a["double"]["pos"], "card": cards[1]}
    return {"do": "play", "pos": a["pos"], "card": cards[0], "double": second}


def _check_open(st: DState, seat: int, action: Any, verify: bool) -> dict:
    """The seat's peer shows the cards it bound: every share proven (``deal.verify_play``) and the
    cards a legal play under the rules (the full action ``rules.check`` takes)."""
    if seat != st.pending[0]:
        raise IllegalAction("it is seat %d's open, not seat %d's" % (st.pending[0], seat))
    if action == DISCARD:
        raise IllegalAction("a seat shows the cards it chose; only a time-out discards them face down")
    a = _exact(action, ("open",), "an open")
    items = _open_items(a["open"])
    want = _bound(st)
    if [i[0] for i in items] != want:
        raise IllegalAction("seat %d must show exactly the positions it chose, %s, in that order" % (seat, want))
    if verify:
        for pos, card, D, proof in items:
            bad = deal.verify_play(st.deck[pos], _others(st, pos, seat), st.keys[seat], D, proof,
                                   card, st.gid, seat, pos, _table(st.gid))
            if bad is not None:
                raise IllegalAction("seat %d's card play is not proven: %s" % (seat, bad))
    try:
        rules.check(st.ms, seat, opened_action(st, seat, {"open": items}))
    except IllegalAction as exc:
        raise IllegalAction("seat %d's shown cards make no legal play: %s" % (seat, exc)) from None
    return {"open": items}


NAMES_A_CARD = ("a card play or an add names its deck positions only, no card: the card is shown in the next step "
                "(the open), never in the choice")


def _names_a_card(action: Any) -> bool:
    """A play or an add in its card-id form (a ``card`` key, or a double's second card with one)."""
    return isinstance(action, dict) and action.get("do") in ("play", "add") and (
        "card" in action or (isinstance(action.get("double"), dict) and "card" in action["double"]))


def _check_play_fault(st: DState, seat: int, action: Any, verify: bool) -> dict:
    """A deck fault proven during play: a card of the seat's hand whose twin was played (or that it
    holds twice, or that opens to no card), shown with the owner's own shares, on its own turn."""
    t = rules.turn(st.ms)
    if seat not in t.seats or t.sealed:
        raise IllegalAction("a deck fault is shown on one's own turn to play, bid in the open or pass")
    a = _exact(action, ("do", "fault"), "a deck fault")
    items = _share_list(a["fault"], "fault")
    poss = [i[0] for i in items]
    if not items or poss != sorted(set(poss)) or any(p not in st.ms.hands[seat] or p >= st.shared for p in poss):
        raise IllegalAction("a deck fault names distinct positions of your own dealt hand, ascending")
    if verify:
        bad = _fault_problem(st, seat, items)
        if bad is not None:
            raise IllegalAction("seat %d's deck fault is not proven: %s" % (seat, bad))
    return {"do": "fault", "fault": items}


def check(st: DState, seat: Any, action: Any, verify: bool = True) -> Any:
    """The action made canonical, or IllegalAction.  ``verify=False`` skips the proofs (apply)."""
    try:
        return _check(st, seat, action, verify)
    except deal.DealError as exc:
        raise IllegalAction(str(exc)) from None


def _check(st: DState, seat: Any, action: Any, verify: bool) -> Any:
    g = st.stage
    if g == "over":
        raise IllegalAction("the game is over")
    if type(seat) is not int or not 0 <= seat < st.n:
        raise IllegalAction("there is no seat %r at this table" % (seat,))
    if g == "play":
        if isinstance(action, dict) and action.get("do") == "fault":
            return _check_play_fault(st, seat, action, verify)
        # a card play or an add is bound by its positions only: a choice that names a card (the
        # card-id form a screen or a bot chooses) is never signed nor logged, since it would show the
        # card before its open (protocol.md §7.1, §12.4); ``seal_action`` turns it into positions.
        # The rules judge it first, so an illegal one gets the rules' reason.
        a = rules.check_choice(st.ms, seat, action)
        if _names_a_card(action):
            raise IllegalAction(NAMES_A_CARD)
        return a
    if g == "open":
        return _check_open(st, seat, action, verify)
    if g == "shuffle":
        if seat != st.shuffler:
            raise IllegalAction("it is seat %d's shuffle, not seat %d's" % (st.shuffler, seat))
    elif seat not in st.pending:
        raise IllegalAction("seat %d is not asked in this step of the deal" % seat)
    if g in ("keys", "shuffle", "deal", "disclose") and _withhold(action):
        return {"withhold": True}
    if g == "keys":
        a = _exact(action, ("key", "proof"), "a key")
        key, proof = _bytes(a["key"], 32, "the key"), _bytes(a["proof"], 64, "the key proof")
        if verify and not deal.verify_key(key, proof, st.gid, seat):
            raise IllegalAction("seat %d's key proof does not verify" % seat)
        return {"key": key, "proof": proof}
    if g == "shuffle":
        a = _exact(action, ("deck", "proof"), "a shuffle")
        if type(a["proof"]) is not bytes or len(a["proof"]) != deal.proof_bytes(N_CARDS):
            raise IllegalAction("seat %d's shuffle proof must be %d bytes" % (seat, deal.proof_bytes(N_CARDS)))
        if verify and not _made_here(st, seat, a):
            # the deck and the proof's form at once (no multiplication); the proof itself when the
            # shuffle CHECK_LAG later or the last is applied, before any share (``_after_shuffle``, docs/deal.md §3)
            bad = deal.check_deck(a["deck"], N_CARDS)
            if bad is None:
                bad = deal.check_shuffle_form(st.deck, a["deck"], a["proof"], _joint(st.keys), st.gid, seat)
            if bad is not None:
                raise IllegalAction("seat %d's shuffled deck is refused: %s" % (seat, bad))
        elif not isinstance(a["deck"], list):
            raise IllegalAction("a deck is a list")
        return {"deck": list(a["deck"]), "proof": a["proof"]}
    if g == "deal":
        a = _exact(action, ("shares",), "a deal message")
        items = _share_list(a["shares"], "shares")
        want = [p for p in range(st.lo, st.hi) if st.owner[p] != seat]
        if [i[0] for i in items] != want:
            raise IllegalAction("seat %d must give shares for exactly positions %s" % (seat, want))
        if verify and not memo.vouched("shares", *_shares_key(st, seat, items)):
            for pos, D, proof in items:
                if (st.gid, seat, st.keys[seat], pos, st.deck[pos], D, proof) in _MADE_SHARES:
                    continue        # made by this very module here: it verifies (see _MADE)
                if not deal.verify_share(st.keys[seat], st.deck[pos], D, proof, st.gid, seat, pos):
                    raise IllegalAction("seat %d's share for position %d does not verify" % (seat, pos))
        return {"shares": items}
    if g == "check":
        a = _exact(action, ("fault",), "a hand check")
        items = _share_list(a["fault"], "fault")
        poss = [i[0] for i in items]
        if poss != sorted(set(poss)) or any(p not in st.ms.hands[seat] or p >= st.shared for p in poss):
            raise IllegalAction("a deck fault names distinct positions of your own dealt hand, ascending")
        if items and verify:
            bad = _fault_problem(st, seat, items)
            if bad is not None:
                raise IllegalAction("seat %d's deck fault is not proven: %s" % (seat, bad))
        return {"fault": items}
    # disclose
    a = _exact(action, ("secret",), "a disclosure")
    secret = _bytes(a["secret"], deal.SECRET_BYTES, "the seat secret")
    if verify and not deal.verify_disclosure(st.keys[seat], secret, st.gid, seat):
        raise IllegalAction("seat %d's disclosed secret does not match its key" % seat)
    return {"secret": secret}


# --------------------------------------------------------------------------- applying


def _done(w: DState, seat: int) -> DState:
    return w._replace(pending=tuple(s for s in w.pending if s != seat))


def apply(st: DState, seat: int, action: Any, checked: bool = False) -> DState:
    a = action if checked else check(st, seat, action, verify=False)
    g = st.stage
    if g == "play":
        if a.get("do") == "fault":
            return st._replace(stage="disclose", pending=tuple(range(st.n)),
                               fault="seat %d proved a deck fault at position(s) %s" % (seat, [i[0] for i in a["fault"]]))
        if a["do"] in ("play", "add"):
            # bound, not shown: the seat's own peer shows the cards in the next step (the open)
            return st._replace(stage="open", choice=a, pending=(seat,))
        ms = rules.apply_unchecked(st.ms, seat, a)
        return _sync(st._replace(ms=ms))
    if g == "open":
        ms = rules.apply_unchecked(st.ms, seat, rules.check(st.ms, seat, opened_action(st, seat, a)))
        return _sync(st._replace(ms=ms, choice=None, pending=()))
    if g == "keys":
        keys = list(st.keys)
        keys[seat] = None if "withhold" in a else a["key"]
        w = _done(st._replace(keys=tuple(keys)), seat)
        if w.pending:
            return w
        return _keys_done(w)
    if g == "shuffle":
        if "withhold" in a:
            return st._replace(stage="over", status="abandoned", named=((seat, _gone(seat, "shuffle")),), pending=())
        w = st._replace(decks=st.decks + (tuple(a["deck"]),), shuffled=st.shuffled + (True,),
                        proofs=st.proofs + (a["proof"],), shuffler=st.shuffler + 1)
        return _after_shuffle(w)
    if g == "deal":
        w = _done(st, seat)
        if "withhold" in a:
            w = w._replace(named=w.named + ((seat, _no_shares(seat, st.ms.round)),))
        else:
            shares = list(w.shares)
            for pos, D, _proof in a["shares"]:
                row = list(shares[pos])
                row[seat] = D
                shares[pos] = tuple(row)
            w = w._replace(shares=tuple(shares))
        if w.pending:
            return w
        return _deal_done(w)
    if g == "check":
        w = _done(st, seat)
        if a["fault"] and not w.fault:
            w = w._replace(fault="seat %d proved a deck fault at position(s) %s" % (seat, [i[0] for i in a["fault"]]))
        if w.pending:
            return w
        if w.fault:
            return w._replace(stage="disclose", pending=tuple(range(w.n)))
        return _sync(w)
    # disclose
    secrets = list(st.secrets)
    secrets[seat] = None if "withhold" in a else a["secret"]
    w = _done(st._replace(secrets=tuple(secrets)), seat)
    if w.pending:
        return w
    return _audit(w)


def _keys_done(w: DState) -> DState:
    """Every key step answered: the shuffles, or the game abandoned for a missing key (a seat that left
    before placing its key is simply not in the deal)."""
    missing = [s for s in range(w.n) if w.keys[s] is None and s not in w.gone]
    if missing:
        return w._replace(stage="over", status="abandoned", named=tuple((s, _gone(s, "deal key")) for s in missing))
    return w._replace(stage="shuffle", shuffler=0, decks=(_initial(w.gid),))


def _deal_done(w: DState) -> DState:
    """Every deal message in: the hand check, or the game abandoned for missing shares."""
    if w.named:
        # a time-out certificate may be signed against a seat that sent its shares: it blames and
        # ranks nobody; the deal cannot go on, so the game is abandoned (docs/deal.md §4)
        return w._replace(stage="over", status="abandoned")
    owners = tuple(s for s in range(w.n) if any(w.owner[p] == s for p in range(w.lo, w.hi)))
    return w._replace(shared=w.hi, stage="check", pending=owners)


def _after_shuffle(w: DState) -> DState:
    """A shuffle is placed (``w.shuffler`` of them): the proof of the one CHECK_LAG before it is
    checked, and when it is the last, every proof not checked yet (by every peer, as it applies
    this entry, so before any share); a proof that fails abandons the game naming its seat."""
    placed = w.shuffler
    if placed < w.n:
        seats = [placed - 1 - CHECK_LAG] if placed - 1 - CHECK_LAG >= 0 else []
    else:
        seats = range(max(0, w.n - 1 - CHECK_LAG), w.n)
    bad = _shuffle_problems(w, seats)
    if bad:
        return w._replace(stage="over", status="abandoned", pending=(), named=tuple(
            (s, "seat %d's shuffle is refused: %s: the deal cannot go on, no hand was dealt" % (s, why))
            for s, why in bad))
    return w if placed < w.n else _sync(w)


def _gone(seat: int, what: str) -> str:
    return ("seat %d was timed out of its %s (it did not come in time; it could have come back with easel resume): "
            "the deal cannot go on without it, no hand was dealt" % (seat, what))


def _no_shares(seat: int, rnd: int) -> str:
    return ("seat %d's shares for round %d's deal did not come (timed out or withheld; a time-out can be signed "
            "by the other seats although they were sent): the deal cannot go on, nobody is ranked; the money "
            "stands as the auctions so far left it" % (seat, rnd))


def timeout_only(action: Any) -> bool:
    """The open's time-out default (``DISCARD``): ``check`` refuses it, ``apply_discard`` applies it; and a
    left seat's ``LEFT`` (``apply_left``)."""
    return action == DISCARD or action == LEFT


# --------------------------------------------------------------------------- a seat that leaves (protocol.md §12.3)


def leave_payload(st: Any, seat: int, secret: bytes | None) -> Any:
    """What a leaving seat publishes so that nobody ever needs it again: its seat secret (its hand, out of
    play from then on, is the only thing of its that this shows: RULES.md "A seat that leaves")."""
    if type(secret) is not bytes or len(secret) != deal.SECRET_BYTES:
        raise IllegalAction("no seat secret to leave with")
    return {"secret": secret}


def check_leave(st: DState, seat: int, payload: Any) -> dict:
    """A leave's payload: ``{"secret": 64 bytes}``, the secret behind the seat's placed key (a seat whose
    key is not placed yet is in no deal: its secret is not checked, and never used)."""
    if not isinstance(st, DState) or st.stage == "over":
        raise IllegalAction("the game is over")
    a = _exact(payload, ("secret",), "a leave's payload")
    secret = _bytes(a["secret"], deal.SECRET_BYTES, "the seat secret")
    if st.keys[seat] is not None and not deal.verify_disclosure(st.keys[seat], secret, st.gid, seat):
        raise IllegalAction("seat %d's secret does not match its key" % seat)
    return {"secret": secret}


def leave(st: DState, seat: int, payload: dict) -> DState:
    """``seat`` left for good: its secret is public (so its shares and its disclosure come from it), its
    hand is set aside face down (the cards it bound in an open are discarded by the open's default), and
    from now on it holds no card and its turns pass."""
    secrets = list(st.secrets)
    if st.keys[seat] is not None:
        secrets[seat] = payload["secret"]
    keep = tuple(_bound(st)) if st.stage == "open" and st.pending and st.pending[0] == seat else ()
    # positions dealt but not shared yet stay until the deal's owners are known (``_sync`` sets them aside)
    keep += tuple(p for p in st.ms.hands[seat] if p >= st.shared)
    ms = rules.set_aside(st.ms, (seat,), keep)
    return st._replace(ms=ms, secrets=tuple(secrets), gone=st.gone + (seat,))


def apply_left(st: DState, seat: int, action: Any) -> DState:
    """``LEFT`` for a seat that left: its card turn passes (no lost turn counted), a deal step takes what
    it needs from the secret it published (its shares; its disclosure is already known), its shuffle
    leaves the deck as it is (the others' shuffles hide it), its key stays out of the deal if it left
    before placing one."""
    if action != LEFT or seat not in st.gone:
        raise IllegalAction("only a seat that left the table plays that")
    g = st.stage
    if g == "play":
        return _sync(st._replace(ms=rules.pass_turn(st.ms, seat)))
    if g == "shuffle":
        if seat != st.shuffler:
            raise IllegalAction("it is seat %d's shuffle" % st.shuffler)
        w = st._replace(decks=st.decks + (st.deck,), shuffled=st.shuffled + (False,), proofs=st.proofs + (None,),
                        shuffler=st.shuffler + 1)
        return _after_shuffle(w)
    if g == "deal" and seat in st.pending and st.keys[seat] is not None:
        secret = st.secrets[seat]
        items = [[p, deal.share_of(secret, st.deck[p], st.gid, seat), None]
                 for p in range(st.lo, st.hi) if st.owner[p] != seat]
        return apply(st, seat, {"shares": items}, checked=True)
    if g == "check":
        return apply(st, seat, {"fault": []}, checked=True)
    if g in ("keys", "deal", "disclose") and seat in st.pending:
        w = _done(st, seat)
        if w.pending:
            return w
        return _keys_done(w) if g == "keys" else _deal_done(w) if g == "deal" else _audit(w)
    return st


def apply_discard(st: DState, seat: int, action: Any) -> DState:
    """A cut open (a time-out certificate; never a seat's own move): the bound positions leave the
    seat's hand face down, never revealed, counted for no artist (kept in ``discarded``, public), and
    the seat loses what it chose to do: its card turn, or its chance to add to the double."""
    if st.stage != "open" or action != DISCARD or seat != st.pending[0]:
        raise IllegalAction("only the seat showing its chosen cards has them discarded, and only by timing out")
    bound = tuple(_bound(st))
    ms = rules.discard_unchecked(st.ms, seat, bound)
    return _sync(st._replace(ms=ms, choice=None, pending=(), discarded=st.discarded + bound))


def apply_timeout(st: DState, seat: int, action: Any) -> DState:
    """A timed-out card turn's default (the skip ``check`` refuses as a seat's choice), applied as
    a rules transition like ``apply`` does after ``check``; the caller (game.py) checked it is one."""
    return _sync(st._replace(ms=rules.apply_unchecked(st.ms, seat, action)))


def chance(st: DState, entropy: bytes) -> DState:
    """The deal never asks for shared randomness (its shuffle proofs are non-interactive)."""
    raise IllegalAction("the deal asks for no shared randomness")


# a disclosure that did not come (a time-out, or the seat's own withhold marker: the game cannot tell
# them apart): named, not ranked last (every money total is public by then; the seat's shuffle was
# proven by its proof before any share, so nothing of the deal is left unproven but the exact redo)
NOT_DISCLOSED = ("seat secret not disclosed (timed out or withheld): its shuffle is not redone; "
                 "it was proven at the deal")


def _audit(w: DState) -> DState:
    """Every secret against its key, every shuffle redone; the seats at fault named."""
    named = []
    joint = _joint(w.keys)
    cheats = []
    for s in range(w.n):
        sec = w.secrets[s]
        if w.keys[s] is None:
            continue            # left before its key: in no deal, nothing to redo
        if sec is None:
            named.append((s, NOT_DISCLOSED))
            continue
        if s < len(w.decks) - 1 and w.proofs[s] is not None:
            bad = deal.verify_shuffle_disclosed(list(w.decks[s]), list(w.decks[s + 1]), sec, joint, w.gid, s)
            if bad is not None:
                named.append((s, "shuffle is wrong: %s" % bad))
                cheats.append(s)
    w = w._replace(last=tuple(cheats))     # proven by its own secret: ranked last; a time-out ranks no one
    left = [(s, LEFT_WORDS) for s in w.gone]
    if cheats:
        status = "cheating"
    elif named:
        status = "not disclosed"
    elif w.fault:
        status = "deck fault"   # every shuffle redone and right, yet a fault was proven: cannot happen
    else:
        status = "complete"
    return w._replace(stage="over", status=status, named=tuple(sorted(named + left)), pending=())


LEFT_WORDS = "left the table (its own signed leave): its hand set aside, its turns passed; ranked after the seats that stayed"


# --------------------------------------------------------------------------- automatic steps, sealing


@lru_cache(maxsize=256)
def _open_card(ct: bytes, shares: tuple, secret: bytes, gid: bytes, seat: int) -> int | None:
    """deal.open_card, remembered: a seat's view opens its whole hand each time it is shown
    (a scalar multiplication per card), while a card opens to the same answer all game."""
    return deal.open_card(ct, list(shares), secret, gid, seat, _table(gid))


def known_cards(st: DState, seat: int, secret: bytes | None) -> dict:
    """Position -> card of ``seat``'s dealt hand, opened with its secret ({} without one)."""
    if secret is None or st.keys[seat] is None or not st.decks or type(secret) is not bytes:
        return {}
    out = {}
    for pos in st.ms.hands[seat]:
        if pos >= st.shared:
            continue
        try:
            c = _open_card(st.deck[pos], tuple(_others(st, pos, seat)), secret, st.gid, seat)
        except deal.DealError:
            return {}
        if c is not None:
            out[pos] = c
    return out


def auto_action(st: DState, seat: int, secret: bytes) -> Any:
    g = st.stage
    if g == "keys":
        _, pub, proof = deal.keygen(secret, st.gid, seat)
        return {"key": pub, "proof": proof}
    if g == "shuffle":
        joint = _joint(st.keys)
        prep = _prep(secret, joint, st.gid, seat)
        out = deal.shuffle(list(st.deck), secret, joint, st.gid, seat, prep=prep)
        proof = deal.prove_shuffle(list(st.deck), out, secret, joint, st.gid, seat, prep=prep)
        if len(_MADE) >= _MADE_MAX:
            _MADE.clear()
        _MADE[(st.gid, seat, st.deck, tuple(out), proof, joint)] = None
        memo.vouch("shuffle-proof", st.gid, seat, st.deck, tuple(out), proof, joint)
        return {"deck": out, "proof": proof}
    if g == "deal":
        items = []
        if len(_MADE_SHARES) >= _MADE_SHARES_MAX:
            _MADE_SHARES.clear()
        ours = deal.public_of(secret, st.gid, seat) == st.keys[seat]   # a share verifies with its own key only
        for pos in range(st.lo, st.hi):
            if st.owner[pos] != seat:
                D, proof = deal.share(secret, st.deck[pos], st.gid, seat, pos)
                items.append([pos, D, proof])
                if ours:
                    _MADE_SHARES.add((st.gid, seat, st.keys[seat], pos, st.deck[pos], D, proof))
        if ours:
            memo.vouch("shares", *_shares_key(st, seat, items))
        return {"shares": items}
    if g == "check":
        opened = {}
        for pos in st.ms.hands[seat]:
            if pos < st.shared:
                opened[pos] = deal.open_card(st.deck[pos], _others(st, pos, seat), secret, st.gid, seat, _table(st.gid))
        bad = {p for p, c in opened.items() if c is None or c in st.ms.revealed}
        for c in set(c for c in opened.values() if c is not None):
            same = [p for p, x in opened.items() if x == c]
            if len(same) > 1:
                bad.update(same)
        items = []
        for pos in sorted(bad):
            D, proof = deal.share(secret, st.deck[pos], st.gid, seat, pos)
            items.append([pos, D, proof])
        return {"fault": items}
    if g == "open":
        items = []
        for pos in _bound(st):
            card = _open_card(st.deck[pos], tuple(_others(st, pos, seat)), secret, st.gid, seat) \
                if type(pos) is int and 0 <= pos < st.shared else None
            if card is None:
                # a position that opens to no card is never offered (a deck fault): nothing to show
                raise IllegalAction("deck position %s opens to no card with seat %d's secret" % (pos, seat))
            D, proof = deal.share(secret, st.deck[pos], st.gid, seat, pos)
            items.append([pos, card, D, proof])
        return {"open": items}
    if g == "disclose":
        return {"secret": secret}
    raise IllegalAction("no automatic step now")


@_single_flight
@lru_cache(maxsize=4)
def _offline(secret: bytes, gid: bytes, seat: int) -> deal.ShuffleOffline:
    """deal.shuffle_offline, remembered: the part of the seat's shuffle and proof that needs
    neither a deck nor the other seats' keys (computed while the keys come)."""
    return deal.shuffle_offline(secret, N_CARDS, gid, seat)


@_single_flight
@lru_cache(maxsize=4)
def _prep(secret: bytes, joint: bytes, gid: bytes, seat: int) -> deal.ShufflePrep:
    """deal.shuffle_prep, remembered: the part of the seat's shuffle and proof that needs no deck."""
    return deal.shuffle_prep(secret, N_CARDS, joint, gid, seat, offline=_offline(secret, gid, seat))


def precompute(st: DState, seat: int | None, secret: bytes | None = None) -> list:
    """Work a peer may do ahead, in the background, while it waits: zero-argument pure calls whose
    results this module remembers (running them or not changes no result, only when the work is
    done).  Here: before the table's setup, the proof's generators; during the keys step, the
    card points and initial deck and the seat's own part of its shuffle that needs no other seat
    (``deal.shuffle_offline``); while the seats before it shuffle, the rest of the part of its
    shuffle and proof that needs no deck (``deal.shuffle_prep``); and the proof of every shuffle placed so far whose
    verdict is not known yet, so that when it is needed (``_after_shuffle``) the
    checks are mostly done."""
    if not isinstance(st, DState):
        # before the table's setup (the seed step, right after the lobby): the proof's generators,
        # the same for every game, which every shuffle and every check needs
        return [functools.partial(deal.generators, N_CARDS)]
    if st.stage == "keys":
        # while the keys come: the card points and the initial deck, and the seat's own part of
        # its shuffle that needs no other seat (``deal.shuffle_offline``)
        out = [functools.partial(_initial, st.gid), functools.partial(_table, st.gid),
               functools.partial(deal.generators, N_CARDS)]
        if type(seat) is int and 0 <= seat < st.n and type(secret) is bytes and len(secret) == deal.SECRET_BYTES:
            out.append(functools.partial(_offline, secret, st.gid, seat))
        return out
    if st.stage != "shuffle":
        return []
    joint = _joint(st.keys)
    out = []
    if type(seat) is int and 0 <= seat < st.n and st.shuffler <= seat and type(secret) is bytes \
            and len(secret) == deal.SECRET_BYTES:
        out.append(functools.partial(_prep, secret, joint, st.gid, seat))
    for s in range(len(st.decks) - 1):
        key = (st.gid, s, st.decks[s], st.decks[s + 1], st.proofs[s], joint)
        if key in _MADE or type(st.proofs[s]) is not bytes:
            continue
        out.append(functools.partial(_proof_problem, *key))
    return out


def seal_action(st: DState, seat: int, action: Any, secret: bytes) -> Any:
    """Nothing is attached to a card play any more (it is bound by its positions; its cards are shown
    in the open).  With the seat's own secret, a card-id play or add is checked against the seat's
    hand before anything is signed: a claimed card that is not the one at its position, or a position
    that proves a deck fault, is refused here (IllegalAction) — no other peer could tell, since only
    the positions are sent, and the open would show another card than the person chose.  A card-id
    play or add that passes is returned as the peer signs it, positions only (``rules.check_choice``:
    ``check`` refuses a choice that names a card, protocol.md §7.1).  Anything else is returned
    unchanged for ``check``."""
    if st.stage != "play" or not isinstance(action, dict) or action.get("do") not in ("play", "add") \
            or "card" not in action or type(seat) is not int or not 0 <= seat < st.n:
        return action
    claims = [(action.get("pos"), action.get("card"))]
    if isinstance(action.get("double"), dict):
        claims.append((action["double"].get("pos"), action["double"].get("card")))
    if not all(type(p) is int and p in st.ms.hands[seat] for p, _ in claims):
        return action            # check says what is wrong with it
    try:
        known = known_cards(st, seat, secret)
    except deal.DealError:
        return action
    dead = dead_positions(st, seat, known)
    for pos, card in claims:
        if pos in dead:
            raise IllegalAction("deck position %d is a deck fault (its card is no card, held twice or already "
                                "played): it is never played; prove the fault instead" % pos)
        if type(card) is int and known.get(pos) != card:
            raise IllegalAction("deck position %d holds %s, not %s" % (
                pos, card_name(known[pos]), card_name(card) if 0 <= card < N_CARDS else "card %d" % card))
    # the rules judge the card-id form in full (IllegalAction says why not); the peer signs its
    # positions only (``check`` refuses a choice that names a card)
    return rules.check_choice(st.ms, seat, action)


def default_action(st: DState, seat: int) -> Any:
    g = st.stage
    if seat in st.gone:
        # a seat that left: the rules' default where a turn of the rules names it (pass, bid 0, the lowest
        # price), the cut open's discard; its own card turn passes, and a deal step needs nothing more of it
        # (its shares come from the secret it published when it left)
        if g == "play" and not (st.ms.phase == "play" and st.ms.actor == seat):
            return rules.default_action(st.ms, seat)
        if g == "open":
            return dict(DISCARD)
        return dict(LEFT)
    if g in ("keys", "shuffle", "deal", "disclose"):
        return {"withhold": True}
    if g == "check":
        return {"fault": []}
    if g == "open":
        return dict(DISCARD)
    return rules.default_action(st.ms, seat)


def dead_positions(st: DState, seat: int, known: dict) -> set:
    """Positions of ``seat``'s dealt hand that prove a deck fault: a card already played (its twin),
    a card the hand holds twice, a position that opens to no card.  Never offered as a play."""
    dead = {p for p in st.ms.hands[seat] if p < st.shared and p not in known}
    seen: dict = {}
    for p, c in known.items():
        if c in st.ms.revealed:
            dead.add(p)
        seen.setdefault(c, []).append(p)
    for ps in seen.values():
        if len(ps) > 1:
            dead.update(ps)
    return dead


def legal_actions(st: DState, seat: int, secret: bytes | None = None) -> list:
    t = turn(st)
    if t.kind in ("over", "chance") or seat not in t.seats:
        return []
    if st.stage in AUTO_STAGES:
        out = [auto_action(st, seat, secret)] if secret is not None else []
        default = default_action(st, seat)
        return out + ([] if timeout_only(default) else [default])
    if secret is not None:
        known = known_cards(st, seat, secret)
        dead = dead_positions(st, seat, known)
        live = {p: c for p, c in known.items() if p not in dead}
        # card plays in the card-id form (``check`` binds them by their positions)
        out = rules.legal_actions(st.ms, seat, live)
        if dead and out and not turn(st).sealed:
            items = []
            for pos in sorted(dead):
                D, proof = deal.share(secret, st.deck[pos], st.gid, seat, pos)
                items.append([pos, D, proof])
            out.append({"do": "fault", "fault": items})
        return out
    return [a for a in rules.legal_actions(st.ms, seat) if a["do"] not in ("play", "add")]


# --------------------------------------------------------------------------- views, result


def view(st: DState, seat: int | None, secret: bytes | None = None) -> dict:
    me = seat if type(seat) is int and 0 <= seat < st.n else None
    known = known_cards(st, me, secret) if me is not None and secret is not None else None
    dead = dead_positions(st, me, known) if known is not None else set()
    v = rules.view(st.ms, seat, None if known is None else {p: c for p, c in known.items() if p not in dead})
    t = turn(st)
    if st.stage in AUTO_STAGES or st.stage == "over":
        v["label"] = t.label if t.kind != "over" else "game over"
        v["waiting"] = list(t.seats) if t.kind != "over" else []
    v["deal"] = {
        "stage": st.stage,
        "keys": sum(1 for k in st.keys if k is not None),
        "shuffled": list(st.shuffled),
        "shared": st.shared,
        "status": st.status,
        "fault": st.fault,
        "named": [[s, text] for s, text in st.named],
        # positions discarded face down (cut opens), each [position, the seat that held it]: never shown
        "discarded": [[p, st.owner[p]] for p in st.discarded],
    }
    if st.gone:   # seats that left the table, in the order they left: never waited for
        v["deal"]["left"] = list(st.gone)
        v["waiting"] = [s for s in v.get("waiting") or [] if s not in st.gone]
    if st.stage == "open":   # the seat shows the cards it bound: which positions, for what
        v["deal"]["open"] = {"seat": st.pending[0], "positions": _bound(st), "do": st.choice["do"]}
    if dead:   # own view only: positions that prove a deck fault, never offered as plays
        v["deal"]["dead"] = [[p, known.get(p)] for p in sorted(dead)]
    v.pop("result", None)
    res = result(st)
    if res is not None:
        v["result"] = res
    return v


def standings(st: DState) -> dict:
    """What the log has made public of each seat's standing (the engine's ``standings`` hook): the money,
    which follows from the public auctions (every price and who paid whom is in the log)."""
    return {"money": list(st.ms.money)}


def result(st: DState) -> dict | None:
    if st.stage != "over":
        return None
    n = st.n
    money = list(st.ms.money)
    named = sorted(set(st.last))      # ranked last: proven wrong by their own secret (never by a time-out)
    base = {"status": st.status, "named": [[s, text] for s, text in st.named], "money": money,
            "rounds": len(st.ms.rounds)}
    if st.status == "abandoned":
        # nobody ranked, nobody wins; what the log already made public stays: the money the auctions so far
        # left each seat (protocol.md §12.3), shown as standings
        return dict(base, ranking=[], places=[None] * n, winners=[], standings=standings(st))
    left = [s for s in st.gone if s not in named]
    good = [s for s in range(n) if s not in named and s not in left]
    ranking = sorted(good, key=lambda s: (-money[s], s)) + sorted(left, key=lambda s: (-money[s], s)) + named
    places = [0] * n
    for s in good:
        places[s] = 1 + sum(1 for o in good if money[o] > money[s])
    for s in left:      # after every seat that stayed, among themselves by money (RULES.md "A seat that leaves")
        places[s] = len(good) + 1 + sum(1 for o in left if money[o] > money[s])
    for s in named:
        places[s] = len(good) + len(left) + 1
    out = dict(base, ranking=ranking, places=places, winners=[s for s in good if places[s] == 1])
    if st.gone:
        out["left"] = list(st.gone)
    return out


def describe(st: DState, seat: int, action: Any) -> str:
    g = st.stage
    who = "seat %s" % (seat,)
    if g == "play":
        if isinstance(action, dict) and action.get("do") == "fault":
            return "seat %s proves a deck fault at position(s) %s" % (seat, [i[0] for i in action.get("fault") or []])
        if isinstance(action, dict) and action.get("do") in ("play", "add") and "card" not in action:
            if action["do"] == "add":
                return "%s chooses a card to add to the double" % who
            two = isinstance(action.get("double"), dict)
            return "%s chooses %s to auction" % (who, "two cards (a double and its second card)" if two else "a card")
        return rules.describe(st.ms, seat, action)
    if g == "open":
        if action == DISCARD:
            k = len(_bound(st))
            return "%s loses the chosen card%s, discarded face down and never shown (the open was cut by a " \
                   "time-out): %s" % (who, "" if k == 1 else "s", "nothing added to the double"
                                      if (st.choice or {}).get("do") == "add" else "the turn to auction is lost")
        full = opened_action(st, seat, action)
        return rules.describe(st.ms, seat, full) if full is not None else "%s: unreadable open" % who
    if action == LEFT:
        return "%s has left the table: %s" % (who, "its turn passes" if g == "play" else
                                               "its deck passes unshuffled" if g == "shuffle" else
                                               "its part comes from the secret it published")
    if _withhold(action):
        return "%s withholds its %s" % (who, {"keys": "deal key", "shuffle": "shuffle", "deal": "shares",
                                              "disclose": "seat secret"}.get(g, "move"))
    if not isinstance(action, dict):
        return "%s: unreadable action" % who
    if g == "keys":
        return "%s publishes its deal key" % who
    if g == "shuffle":
        return "%s masks and shuffles the deck, with its proof" % who
    if g == "deal":
        n = len(action.get("shares") or [])
        return "%s gives %d decryption share%s" % (who, n, "" if n == 1 else "s")
    if g == "check":
        f = action.get("fault") or []
        return "%s %s" % (who, "proves a deck fault" if f else "finds its new cards in order")
    if g == "disclose":
        return "%s discloses its seat secret" % who
    return "%s acts" % who


def card_label(c: int) -> str:
    return card_name(c)
