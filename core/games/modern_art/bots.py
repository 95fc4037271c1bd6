"""Bots for Modern Art.  A bot sees only its view: the public state, its own money (the others' stays
behind their screens until the game ends: a bot never reads it, nor counts it from the log) and its own
cards (``view["cards"]``, given by whoever holds its hand).  ``parse_view`` fills the hidden money with
the bot's own (a guess, used only inside the hard bot's rollouts).

Open auctions: a bot bids like a person in a room, jumping to a price it is willing to pay rather than
raising by 1; a pass drops it out of that auction (the rules), so it passes once its limit is reached.

* ``RandomBot``: a random legal action (never skips a card turn while it holds cards).
* ``EasyBot`` (the plan's "easy"): random card, random bids up to a naive fair value (the artist's
  tiles so far + 10), random fixed price, adds to a double half the time.
* ``MediumBot`` ("medium"): expected values by card counting: the unseen cards are dealt at random
  to the other hands many times, each time the hands' cards are played in random order until an
  artist's 5th card, giving an expected sale value per artist.  It bids up to a share of the lot's
  value (less as auctioneer, who is paid when someone else wins), names fixed prices at 60 %, adds
  to doubles when the artist is worth something, and plays the card that earns most (pushing artists
  it has bought, ending the round when that pays).  In an open auction it bids its limit at once.
* ``HardBot`` ("hard"): information-set Monte Carlo.  For its card play it samples deals consistent
  with everything it has seen (its own hand, every card played, hand sizes) and plays each candidate
  card out to the end of the round with a fast policy for every seat, keeping the one with the best
  average money lead.  Its bids and prices use the medium values with more samples, weighed by
  relative standing (see ``HardBot``): it pays up to 90 % of a lot's value to a rival auctioneer
  (another seat buying the lot gains the others as much), buys its own lot only below 57 %, bids
  70 % sealed, names fixed prices at 70 %; in an open auction it opens at 60 % and, outbid, jumps
  to its limit.  It never reads the others' money (its rollouts guess it as its own).

``play_game`` drives a whole game locally with an open deal, feeding each seat its own cards.

An auction step is answered by what it asks (its ``kind``, auctions.py), never by its phase's name: a sealed
amount, a raise (once, or in rounds where a pass is for good), a price to name, a price to take or leave, a
card to add.  So a new auction type plays with these bots as soon as its steps say their kinds; a new kind of
decision (an ``auctions.Kind`` record) is answered by the policy of the kind it is ``like``, in its own
action words (``auctions.answer_as``, applied to every ``choose``).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...rng import Rng
from ..common import entropy_from, play_locally
from . import rules
from .auctions import ADD, AUCTIONS, BUY, PRICE, RAISE, SEALED, answer_as, kind_of
from .cards import N_CARDS, artist_of, type_of

__all__ = [
    "RandomBot", "EasyBot", "MediumBot", "HardBot", "play_game", "parse_view", "sample_deal",
    "expected_values", "entropy_from",
]



def _pref(atype: str) -> int:
    """How much a bot likes to auction a card of this type (or add it to a double)."""
    return AUCTIONS[atype].prefer


def parse_view(view: Mapping[str, Any]) -> tuple[rules.State, dict[int, int]]:
    """(public state, own knowledge position -> card) from a view."""
    state = rules.state_from_view(view)
    known = {c["pos"]: c["id"] for c in view.get("cards", [])}
    return state, known


def _unseen(state: rules.State, known: Mapping[int, int]) -> list[int]:
    seen = set(state.revealed)
    seen.update(known.values())
    return [c for c in range(N_CARDS) if c not in seen]


def sample_deal(state: rules.State, known: Mapping[int, int], rng: Rng) -> list[int]:
    """A full position -> card map consistent with the public state and ``known``."""
    deal = list(state.revealed)
    for p, c in known.items():
        deal[p] = c
    pool = _unseen(state, known)
    rng.shuffle(pool)
    k = 0
    for p in range(N_CARDS):
        if deal[p] < 0:
            deal[p] = pool[k]
            k += 1
    return deal


def _held_artists(state: rules.State, deal: Sequence[int]) -> list[int]:
    return [artist_of(deal[p]) for h in state.hands for p in h]


def expected_values(state: rules.State, known: Mapping[int, int], rng: Rng, samples: int = 24) -> list[float]:
    """Expected end-of-round sale value per artist: cards still in hands (own known, others sampled)
    played in random order until some artist's 5th card."""
    tot = [0.0] * 5
    base = list(state.played)
    board, rnd = state.board, state.round
    hand_pos = [p for h in state.hands for p in h]
    pool_all = _unseen(state, known)
    for _ in range(samples):
        rng.shuffle(pool_all)
        k = 0
        arts = []
        for p in hand_pos:
            c = known.get(p)
            if c is None:
                c = pool_all[k]
                k += 1
            arts.append(artist_of(c))
        rng.shuffle(arts)
        counts = base[:]
        if max(counts) < 5:
            for a in arts:
                counts[a] += 1
                if counts[a] >= 5:
                    break
        vals = rules.values_of(board, rnd, rules.tiles_of(counts))
        for a in range(5):
            tot[a] += vals[a]
    return [t / samples for t in tot]


def _lot_value(state: rules.State, values: Sequence[float]) -> float:
    return sum(values[artist_of(c)] for c in state.cards_up)


def _bid_for(state: rules.State, seat: int, value: float, rng: Rng, hard: bool) -> dict:
    """Medium/hard bidding on the current auction."""
    n = state.players
    money = state.money[seat]
    own = seat == state.auctioneer
    share = 0.5 if own else min(0.8, 0.55 + 0.05 * n)
    lim = min(money, int(value * share))
    kind = kind_of(state.phase)
    if kind == SEALED and hard and not own:
        return {"do": "bid", "amount": max(0, min(lim, int(value * (0.45 + 0.05 * n))))}
    return _up_to(state, kind, lim, own, sealed=0.75, raise_=0.8)


def _up_to(state: rules.State, kind: str, lim: int, own: bool, sealed: float, raise_: float) -> dict:
    """Every bot level's answer to an auction step once it knows what the lot is worth to it (``lim``):
    a sealed bid of ``sealed`` x lim; buy at a price up to lim; pass once the standing bid reaches lim;
    once around, one more than the standing bid as the auctioneer, else at least ``raise_`` x lim; an
    open raise round (raise or drop out): straight to lim."""
    if kind == SEALED:
        return {"do": "bid", "amount": max(0, int(lim * sealed))}
    if kind == BUY:
        return {"do": "buy"} if state.price <= lim else {"do": "pass"}
    if state.high >= lim:
        return {"do": "pass"}
    if kind == RAISE:
        return {"do": "bid", "amount": state.high + 1 if own else max(state.high + 1, int(lim * raise_))}
    return {"do": "bid", "amount": lim}


def _price_for(state: rules.State, seat: int, value: float, hard: bool) -> dict:
    money = state.money[seat]
    if money == 0:
        return {"do": "price", "amount": 0}
    p = int(value * 0.6)
    return {"do": "price", "amount": max(1, min(money, p))}


def _add_for(state: rules.State, seat: int, known: Mapping[int, int], values: Sequence[float], threshold: float) -> dict:
    first = state.cards_up[0]
    best = None
    for p in state.hands[seat]:
        c = known.get(p)
        if c is None or artist_of(c) != artist_of(first) or type_of(c) == "double":
            continue
        key = (_pref(type_of(c)), -c)
        if best is None or key > best[0]:
            best = (key, p, c)
    if best is None or values[artist_of(first)] < threshold:
        return {"do": "pass"}
    return {"do": "add", "pos": best[1], "card": best[2]}


def _play_options(state: rules.State, seat: int, known: Mapping[int, int]) -> list[dict]:
    opts = [a for a in rules.legal_actions(state, seat, known) if a["do"] == "play"]
    return opts


def _play_score(state: rules.State, seat: int, a: Mapping, values: Sequence[float]) -> float:
    """Medium's estimate of what a card play earns ``seat`` relative to the others."""
    card = a["card"]
    art = artist_of(card)
    n = state.players
    if state.played[art] >= 4:  # ends the round now: compare paintings at today's values with expectations
        counts = list(state.played)
        counts[art] += 1
        now = rules.values_of(state.board, state.round, rules.tiles_of(counts))
        gain = [sum(now[artist_of(c)] - values[artist_of(c)] for c in state.bought[s]) for s in range(n)]
        return gain[seat] - sum(gain[s] for s in range(n) if s != seat) / (n - 1)
    mine = sum(1 for c in state.bought[seat] if artist_of(c) == art)
    v = values[art]
    if type_of(card) == "double":
        if a.get("double"):
            return 1.2 * v + 2 * mine + _pref(type_of(a["double"]["card"]))
        return 0.3 * v + 2 * mine
    return 0.6 * v + 2 * mine + _pref(type_of(card))


def _medium_choice(state: rules.State, seat: int, known: Mapping[int, int], rng: Rng,
                   values: Sequence[float], hard: bool = False) -> dict:
    if state.phase == "play":
        opts = _play_options(state, seat, known)
        if not opts:
            return {"do": "skip"}
        return max(opts, key=lambda a: (_play_score(state, seat, a, values), -a["card"]))
    kind = kind_of(state.phase)
    if kind == ADD:
        return _add_for(state, seat, known, values, 8.0)
    value = _lot_value(state, values)
    if kind == PRICE:
        return _price_for(state, seat, value, hard)
    return _bid_for(state, seat, value, rng, hard)


# --------------------------------------------------------------------------
# the bots


def _in_own_words(choose):
    """A bot's answer, decided by its step's ``kind_of`` policy, said in the step's own kind's words
    (auctions.answer_as: a Kind record like BUY may call its buy "take")."""
    def answer(self, view: Mapping[str, Any], seat: int, rng: Rng) -> dict:
        return answer_as(view.get("phase"), choose(self, view, seat, rng))
    answer.__doc__ = choose.__doc__
    return answer


class RandomBot:
    @_in_own_words
    def choose(self, view: Mapping[str, Any], seat: int, rng: Rng) -> dict:
        state, known = parse_view(view)
        acts = rules.legal_actions(state, seat, known)
        plays = [a for a in acts if a["do"] != "skip"]
        acts = plays or acts
        return acts[rng.below(len(acts))]


def _naive_values(state: rules.State) -> list[int]:
    return [sum(state.board[r][a] for r in range(state.round - 1)) + 10 for a in range(5)]


class EasyBot:
    """Random decisions within a naive fair value."""

    @_in_own_words
    def choose(self, view: Mapping[str, Any], seat: int, rng: Rng) -> dict:
        state, known = parse_view(view)
        kind = kind_of(state.phase)
        money = state.money[seat]
        if state.phase == "play":
            opts = _play_options(state, seat, known)
            return opts[rng.below(len(opts))] if opts else {"do": "skip"}
        if kind == ADD:
            a = _add_for(state, seat, known, [10] * 5, 0)
            return a if a["do"] == "pass" or rng.below(2) else {"do": "pass"}
        fair = min(money, sum(_naive_values(state)[artist_of(c)] for c in state.cards_up))
        if kind == PRICE:
            return {"do": "price", "amount": 0 if money == 0 else 1 + rng.below(max(1, min(money, fair)))}
        if kind == BUY:
            return {"do": "buy"} if state.price <= fair and rng.below(2) else {"do": "pass"}
        if kind == SEALED:
            return {"do": "bid", "amount": rng.below(fair + 1)}
        if state.high + 1 > fair or rng.below(3) == 0:
            return {"do": "pass"}
        return {"do": "bid", "amount": state.high + 1 + rng.below(fair - state.high)}


class MediumBot:
    samples = 24

    @_in_own_words
    def choose(self, view: Mapping[str, Any], seat: int, rng: Rng) -> dict:
        state, known = parse_view(view)
        values = expected_values(state, known, rng, self.samples)
        return _medium_choice(state, seat, known, rng, values)


# --------------------------------------------------------------------------
# hard: information-set Monte Carlo over the card play


def _fast_values(state: rules.State, deal: Sequence[int]) -> list[int]:
    """Full-information projection for rollouts: counts so far + half of every artist's cards in hands."""
    counts = list(state.played)
    extra = [0] * 5
    for a in _held_artists(state, deal):
        extra[a] += 1
    proj = [counts[a] * 2 + extra[a] for a in range(5)]
    return list(rules.values_of(state.board, state.round, rules.tiles_of(proj)))


def _rollout_action(state: rules.State, seat: int, deal: Sequence[int], vals: Sequence[int], rng: Rng) -> dict:
    kind = kind_of(state.phase)
    if state.phase == "play":
        best, best_key = None, None
        hand = state.hands[seat]
        for p in hand:
            c = deal[p]
            art = artist_of(c)
            key = vals[art] + 5 * sum(1 for b in state.bought[seat] if artist_of(b) == art) + rng.below(8)
            if state.played[art] >= 4:
                key -= 20
            if best_key is None or key > best_key:
                best, best_key = (p, c), key
        p, c = best
        a: dict = {"do": "play", "pos": p, "card": c, "double": None}
        if type_of(c) == "double" and state.played[artist_of(c)] < 4:
            for p2 in hand:
                c2 = deal[p2]
                if p2 != p and artist_of(c2) == artist_of(c) and type_of(c2) != "double":
                    a["double"] = {"pos": p2, "card": c2}
                    break
        return a
    if kind == ADD:
        first = state.cards_up[0]
        if vals[artist_of(first)] >= 10:
            for p in state.hands[seat]:
                c = deal[p]
                if artist_of(c) == artist_of(first) and type_of(c) != "double":
                    return {"do": "add", "pos": p, "card": c}
        return {"do": "pass"}
    value = _lot_value(state, vals)
    if kind == PRICE:
        return _price_for(state, seat, value, False)
    money = state.money[seat]
    own = seat == state.auctioneer
    lim = min(money, int(value * (0.5 if own else 0.7)))
    return _up_to(state, kind, lim, own, sealed=0.8, raise_=0.85)


def _rollout_round(state: rules.State, deal: Sequence[int], rng: Rng, max_steps: int = 400) -> rules.State:
    """Play ``state`` to the end of its round (or the game) with the fast policy for every seat."""
    n_rounds = len(state.rounds)
    vals = None
    key = None
    for _ in range(max_steps):
        if state.phase == "over" or len(state.rounds) > n_rounds:
            return state
        k = (state.played, state.phase == "play")
        if k != key:
            vals = _fast_values(state, deal)
            key = k
        t = rules.turn(state)
        moves = [(s, _rollout_action(state, s, deal, vals, rng)) for s in t.seats]
        for s, a in moves:
            state = rules.apply_unchecked(state, s, a)
    return state


class HardBot:
    samples = 48          # value samples for bids and prices
    rollouts = 16         # rollouts per candidate card play
    candidates = 8        # candidate plays searched (best by the medium score)
    # Bids weigh relative standing, not profit alone.  Buying a lot worth V for P from a rival moves
    # my lead over the average other seat by V - P - P/(n-1); letting another seat buy it moves it by
    # -V/(n-1) whatever the price (the buyer and the auctioneer share V between them).  So against a
    # rival auctioneer buying pays up to about V, not the 55-80 % a profit-only bidder stops at;
    # buying my own lot (paid to the bank) beats selling it at P only below about n/(2n-1) V.
    # Measured (4 seats, two hard against two medium, 100 games each, share of pairs ahead): paying
    # rivals up to 0.6 V (sealed 0.5 V) ~6 %, up to 0.75 V (the first setting) ~58 %, 0.9-0.95 V
    # ~75 %, 1.0 V with sealed, once-around and fixed prices raised too ~67 %; these settings
    # 76.6 % over 200 games (benchmarks/bench_modern_art.py).  Open auctions: it opens at
    # ``open_share`` of the value and then jumps to its limit (a pass drops it out), so an auction
    # takes a few raise rounds, not one per +V/10 (README, the auction figures).
    rival_share = 0.9     # bid up to this share of a lot's value when a rival auctioneer is paid
    own_share = 0.57      # buy its own lot (paying the bank) up to this share
    sealed_share = 0.7    # sealed bid on a rival's lot, share of the value (one shot: no overbidding)
    once_share = 0.75     # once around, not the auctioneer: the one bid, share of the value
    price_share = 0.7     # fixed price named: the lot goes to the first taker, or to itself at that price
    open_share = 0.6      # open auction: the first bid, share of the value; outbid, it jumps to its limit

    @_in_own_words
    def choose(self, view: Mapping[str, Any], seat: int, rng: Rng) -> dict:
        state, known = parse_view(view)
        values = expected_values(state, known, rng, self.samples)
        if kind_of(state.phase) == ADD:
            return _add_for(state, seat, known, values, 8.0)
        if state.phase != "play":
            return self._auction(state, seat, _lot_value(state, values))
        opts = _play_options(state, seat, known)
        if not opts:
            return {"do": "skip"}
        if len(opts) == 1:
            return opts[0]
        opts.sort(key=lambda a: (-_play_score(state, seat, a, values), a["card"]))
        opts = opts[: self.candidates]
        n = state.players
        scores = [0.0] * len(opts)
        for r in range(self.rollouts):
            deal = sample_deal(state, known, rng)   # the same sampled world for every candidate
            sub = Rng(rng.u64().to_bytes(8, "big") * 4, "modern-art/hard/rollout")
            for i, a in enumerate(opts):
                end = _rollout_round(rules.apply_unchecked(state, seat, a), deal, sub)
                m = end.money
                scores[i] += m[seat] - sum(m[s] for s in range(n) if s != seat) / (n - 1)
        best = max(range(len(opts)), key=lambda i: (scores[i], -i))
        return opts[best]

    def _auction(self, state: rules.State, seat: int, value: float) -> dict:
        """Bids, fixed prices and buys on a lot worth ``value`` (ints only, never above its money)."""
        kind = kind_of(state.phase)
        money = state.money[seat]
        own = seat == state.auctioneer
        if kind == PRICE:
            if money == 0:
                return {"do": "price", "amount": 0}
            return {"do": "price", "amount": max(1, min(money, int(value * self.price_share)))}
        lim = min(money, int(value * (self.own_share if own else self.rival_share)))
        if kind == BUY:
            return {"do": "buy"} if state.price <= lim else {"do": "pass"}
        if kind == SEALED:
            x = lim if own else min(lim, int(value * self.sealed_share))
            return {"do": "bid", "amount": max(0, x)}
        if state.high >= lim:
            return {"do": "pass"}
        if kind == RAISE:
            if own:
                return {"do": "bid", "amount": state.high + 1}
            return {"do": "bid", "amount": max(state.high + 1, min(lim, int(value * self.once_share)))}
        first = int(value * self.open_share)
        return {"do": "bid", "amount": min(lim, first) if state.high < first else lim}


# --------------------------------------------------------------------------
# local driver


def play_game(
    config: Mapping[str, Any],
    players: int,
    seed: bytes,
    bots_by_seat: Sequence[Any] | Mapping[int, Any],
    max_steps: int = 5000,
    deal: Sequence[int] | None = None,
) -> tuple[rules.State, dict]:
    """Play a whole game locally with an open deal (``rules.deal_open(seed)`` unless given).

    Each seat's bot sees ``rules.view(state, seat, its own cards)``; every action goes through
    ``rules.check_open`` (the rules plus the deal's truth).  A simultaneous step: every seat chooses
    from the same state, then the actions are applied in seat order (as the table does).  The bot
    deciding at step k gets ``Rng(seed, "modern-art/play/bot/<seat>/<k>")``.
    """
    config = rules.configure(config, players)     # before the deal, as a bad option is the first thing to say
    deal = tuple(deal) if deal is not None else rules.deal_open(seed)
    return play_locally(rules, rules.NAME, config, players, seed, bots_by_seat, max_steps=max_steps,
                        bot_rng=lambda state, s, k: Rng(seed, "%s/play/bot/%d/%d" % (rules.NAME, s, k)),
                        view=lambda state, s: rules.view(state, s, rules.known_for(state, s, deal)),
                        check=lambda state, s, raw: rules.check_open(state, s, raw, deal),
                        apply=rules.apply_unchecked)
