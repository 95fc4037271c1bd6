"""Starving Artists: rules engine.

Everything here is pure: no I/O, no clock, no ``random``; randomness comes
only through ``core.rng.Rng`` from entropy the table supplies.  RULES.md next
to this file says what the code does, in plain words, with every decision.

The state is a frozen dataclass of tuples; ``apply`` and ``chance`` build a
new state (through a mutable scratch copy, ``_W``) and never touch the old one.

Cubes are counted per colour as 8-tuples in the order ``COLOURS`` =
"ROYGBPKW" (red orange yellow green blue purple black wild).  In actions and
views a multiset of cubes is a map colour letter -> positive count.

Randomness is batched: every bag draw and canvas flip is queued in
``State.pending`` (first in, first out) when the rules cause it, together with
the cubes that go back into the bag after it, and ``chance`` resolves the whole
queue in order.  ``turn`` asks for chance only when a decision needs a result
(see RULES.md, "Step order").

The rules are rooms of this folder; this module is the engine's side of them
(``turn``, ``chance``, ``check``, ``apply``, the defaults and legal actions, the
views and the result) and every name the others import from it:

* state.py  the constants, ``State`` and its scratch copy ``_W``, the cube
            arithmetic, the market's flips, the checks of a value;
* setup.py  ``INFO``, the options, ``configure`` and ``setup``;
* day.py    a turn: the main and free actions checked and applied, the trade
            offer's answers, the turn passed on;
* night.py  the announcements, the sales and the collection;
* dawn.py   between two days: the objectives, the solo end of the day and its
            diamonds, the game's end, the next day's start;
* words.py  an action in words (``describe``).
They import in that order (dawn before night before day): the flow of a day
calls forward (a turn ends in the night, the night in the dawn), never back.
"""

from __future__ import annotations

import weakref
from typing import Any, Mapping, Sequence

from ...engine import IllegalAction, OVER, Turn
from ...rng import Rng
from ..common import asked
from .cards import CARDS
from .dawn import (_close_day, _dusk, _solo_end_of_day, default_diamonds, diamond_outcomes, diamond_squares,
                   solo_returns)
from .day import _after_main, _check_free, _check_main, _do_free, _do_main, _end_turn, _resolve_offer
from .night import _after_announce, _collect_next, _do_take, _take_amount, take_options
from .setup import BOOL_OPTIONS, EDITIONS, INFO, OPTION_HELP, OPTIONS, SOLO_CANVASES, SOLO_ONLY, configure, setup
from .state import (BAG, CI, COLOUR_NAME, COLOURS, FREE, MAIN, MAX_NUTRITION, NAME, SOLO_RATINGS, START_CUBES,
                    START_NUTRITION, TARGETS, TRADE_RATES, WILD, ZERO, State, _W, _add, _card_id, _colour, _cubes,
                    _draw, _junior_overflow, _keys, _must_hold, _plural, _short, answerers, card_title, counts_of,
                    cube_words, cubes_map, is_complete, needs_of, order_from, solo_rating)
from .words import describe

__all__ = [
    "INFO", "OPTIONS", "OPTION_HELP", "COLOURS", "COLOUR_NAME", "BAG", "TARGETS",
    "State", "configure", "setup", "turn", "check", "apply", "apply_unchecked", "chance",
    "default_action", "view", "result", "describe", "legal_actions", "problems",
    "state_from_view", "determinize", "cubes_map", "counts_of", "needs_of", "is_complete", "take_options",
    "best_take", "least_needed", "answerers", "order_from", "solo_rating", "card_title", "incoming", "cube_words",
    "Checked", "MAIN", "FREE", "CI", "WILD", "ZERO",
    # defined in the other rooms, importable from here as before
    "NAME", "TRADE_RATES", "START_NUTRITION", "MAX_NUTRITION", "START_CUBES", "SOLO_RATINGS", "BOOL_OPTIONS",
    "SOLO_CANVASES", "SOLO_ONLY", "EDITIONS", "diamond_squares", "solo_returns", "default_diamonds",
    "diamond_outcomes",
]


# --------------------------------------------------------------------------
# turn


def _deciders(state: State) -> tuple[int, ...]:
    if state.step == "answer":
        return answerers(state)
    return (state.actor,)


def _needs_chance(state: State, deciders: Sequence[int]) -> bool:
    if not state.pending:
        return False
    if state.step == "turn" and state.config["color_study"]:
        return True
    for op in state.pending:
        k = op[0]
        if k == "canvas" or k == "market":
            return True
        if k == "cubes" and op[1] in deciders:
            return True
    return False


def _chance_seats(state: State) -> tuple[int, ...]:
    seats = tuple(s for s in range(state.players) if state.alive[s])
    return seats or tuple(range(state.players))


def _label(state: State) -> str:
    d = state.day
    if state.phase == "over":
        return "game over"
    if state.step == "turn":
        return "day %d %s: seat %d's turn" % (d, state.phase, state.actor)
    if state.step == "answer":
        return "day %d: answer seat %d's trade offer" % (d, state.offer[0])
    if state.step == "announce":
        return "day %d night: seat %d announces sales" % (d, state.actor)
    if state.step == "collect":
        e = state.collection[state.coll_next]
        return "day %d night: seat %d collects (%s)" % (d, e[0], _plural(_take_amount(state, e), "cube"))
    if state.step == "dusk":
        return "day %d end: seat %d chooses the diamonds of %s" % (d, state.actor, card_title(state.market[0]))
    return "day %d %s" % (d, state.phase)


def turn(state: State) -> Turn:
    if state.phase == "over":
        return OVER
    deciders = _deciders(state)
    if _needs_chance(state, deciders):
        return Turn("chance", seats=_chance_seats(state),
                    label="day %d %s: shared randomness for the bag and the deck" % (state.day, state.phase))
    label = _label(state)
    if state.step == "answer":
        return Turn("simultaneous", seats=deciders, sealed=False, label=label)
    return Turn("sequential", (state.actor,), label=label)


# --------------------------------------------------------------------------
# chance


def chance(state: State, entropy: bytes) -> State:
    if isinstance(entropy, (bytearray, memoryview)):
        entropy = bytes(entropy)
    if not isinstance(entropy, bytes) or len(entropy) != 32:
        raise ValueError("entropy must be 32 bytes")
    if state.phase == "over" or not state.pending:
        raise ValueError("Starving Artists asks for no randomness now")
    w = _W(state)
    _resolve(w, Rng(entropy, NAME + "/chance"))
    if w.step == "dusk":
        _dusk(w)
    return w.freeze()


def _resolve(w: _W, rng: Rng) -> None:
    ops = w.pending
    w.pending = []
    for op in ops:
        kind = op[0]
        if kind == "cubes":
            got = _draw(w.bag, rng, op[2])
            _add(w.studios[op[1]], got)
            w.event("seat %d draws %s" % (op[1], cube_words(got)))
        elif kind == "market":
            got = _draw(w.bag, rng, op[1])
            _add(w.paint_market, got)
            w.event("the Paint Market receives %s" % cube_words(got))
            _junior_overflow(w)
        elif kind == "canvas":
            if w.deck:
                i = rng.below(len(w.deck))
                cid = w.deck[i]
                w.deck = w.deck[:i] + w.deck[i + 1:]
                slot = op[1]
                if w.market[slot - 1] != -1:  # pragma: no cover - flips only target empty slots
                    slot = w.market.index(-1) + 1
                w.market[slot - 1] = cid
                w.event("%s is turned over into slot %d" % (card_title(cid), slot))
        elif kind == "reset":
            gone = [c for c in w.market if c != -1]
            w.discarded.extend(gone)
            w.market = [-1, -1, -1]
            w.event("the canvas market is discarded: %s" % (", ".join(card_title(c) for c in gone) or "nothing"))
        elif kind == "return":
            _add(w.bag, op[1])
        elif kind == "studio":
            _add(w.bag, w.studios[op[1]])
            w.studios[op[1]] = [0] * 8


def incoming(state: State) -> list[int]:
    """Cubes each seat will receive from the pending queue (exact: counts do not depend on colours)."""
    out = [0] * state.players
    total = sum(state.bag)
    held = [sum(x) for x in state.studios]
    for op in state.pending:
        k = op[0]
        if k == "cubes":
            got = min(op[2], total)
            total -= got
            out[op[1]] += got
            held[op[1]] += got
        elif k == "market":
            total -= min(op[1], total)
        elif k == "return":
            total += sum(op[1])
        elif k == "studio":
            total += held[op[1]]
            held[op[1]] = 0
            out[op[1]] = 0
    return out


# --------------------------------------------------------------------------
# checking actions


class Checked(dict):
    """An action as ``check`` returned it for one state (``apply`` skips checking it again there)."""

    __slots__ = ("_for",)


def _check(state: State, seat: Any, action: Any) -> dict:
    asked(state, seat, action, 'an action must be a map like {"do": "work"}, not %s')
    do = action.get("do")
    if type(do) is not str or do not in MAIN + FREE + ("answer", "sell", "take", "diamonds"):
        raise IllegalAction("unknown action %s (one of work, buy, paint, trade, reset, study, offer, "
                            "answer, sell, take, diamonds)" % _short(do))
    if not state.alive[seat]:
        raise IllegalAction("you starved: you are out of the game")
    t = turn(state)
    if t.kind == "chance":
        raise IllegalAction("no one acts now: waiting for shared randomness (draws from the bag or the deck)")
    if state.step == "answer":
        off = state.offer[0]
        if seat == off:
            raise IllegalAction("wait for the other artists to answer your trade offer")
        if state.answers[seat] is not None:
            raise IllegalAction("you already answered seat %d's trade offer" % off)
        if do != "answer":
            raise IllegalAction('answer seat %d\'s trade offer first: {"do": "answer", "accept": true or false}' % off)
        _keys(action, ("do", "accept"), "answer")
        acc = action.get("accept")
        if type(acc) is not bool:
            raise IllegalAction("accept must be true or false, not %s" % _short(acc))
        if acc:
            _must_hold(state.studios[seat], state.offer[2], "you cannot accept: you have")
        return {"do": "answer", "accept": acc}
    if seat != state.actor:
        raise IllegalAction("it is seat %d's turn, not yours" % state.actor)
    if state.step == "dusk":
        cid = state.market[0]
        ds = diamond_squares(cid)
        if do != "diamonds":
            raise IllegalAction('it is the end of the day: choose the colour of each diamond of %s, '
                                '{"do": "diamonds", "colours": [%d letters]}' % (card_title(cid), len(ds)))
        _keys(action, ("do", "colours"), "diamonds")
        cols = action.get("colours")
        if not isinstance(cols, list) or len(cols) != len(ds):
            raise IllegalAction("colours must be a list of %s, one per diamond of %s in square order, not %s"
                                % (_plural(len(ds), "colour letter"), card_title(cid), _short(cols)))
        out = []
        for i, raw in zip(ds, cols):
            col = _colour(raw, "the colour of diamond %d of %s" % (i, card_title(cid)))
            if COLOURS[col] not in CARDS[cid].squares[i]:
                raise IllegalAction("diamond %d of %s is %s, not %s" % (
                    i, card_title(cid), " or ".join(COLOUR_NAME[c] for c in CARDS[cid].squares[i]),
                    COLOUR_NAME[COLOURS[col]]))
            out.append(COLOURS[col])
        return {"do": "diamonds", "colours": out}
    if do == "diamonds":
        raise IllegalAction("diamonds are chosen at the solo end of the day only")
    if state.step == "turn":
        if do in ("answer", "sell", "take"):
            raise IllegalAction("it is your %s turn: work, buy or paint (and maybe one free action), not %s"
                                % (state.phase, do))
        if do in FREE:
            return _check_free(state, seat, action)
        main = _check_main(state, seat, action)
        then = action.get("then")
        if then is not None:
            if not isinstance(then, dict) or then.get("do") not in FREE:
                raise IllegalAction("then must be a free action (trade, reset, study or offer), not %s"
                                    % _short(then))
            if state.free_used[seat]:
                raise IllegalAction("you already used your free action today")
            after = _after_main(state, seat, main)
            main["then"] = _check_free(after, seat, then, after_main=True)
        return main
    if state.step == "announce":
        if do != "sell":
            raise IllegalAction('it is night: announce your sales, {"do": "sell", "canvases": [ids]} '
                                "(an empty list sells nothing)")
        _keys(action, ("do", "canvases", "supper"), "sell")
        ids = action.get("canvases", [])
        if ids is None:
            ids = []
        if not isinstance(ids, list):
            raise IllegalAction("canvases must be a list of canvas ids, not %s" % _short(ids))
        mine = {cid: f for cid, f in state.canvases[seat]}
        out = []
        for raw in ids:
            cid = _card_id(raw, "a canvas to sell")
            if cid not in mine:
                raise IllegalAction("canvas %d (%s) is not one of your canvases" % (cid, card_title(cid)))
            if cid in out:
                raise IllegalAction("canvas %s is listed twice" % card_title(cid))
            if not is_complete(mine[cid]):
                raise IllegalAction("canvas %s is not complete" % card_title(cid))
            out.append(cid)
        sup = action.get("supper")
        if sup is not None:
            if not state.config["last_supper"]:
                raise IllegalAction("the Last Supper option is off at this table")
            cid = _card_id(sup, "supper")
            if state.nutrition[seat] != 1:
                raise IllegalAction("the Last Supper is only for an artist at nutrition 1 (you have %d)"
                                    % state.nutrition[seat])
            if cid not in mine:
                raise IllegalAction("canvas %d (%s) is not one of your canvases" % (cid, card_title(cid)))
            if not is_complete(mine[cid]):
                raise IllegalAction("canvas %s is not complete" % card_title(cid))
            if cid in out:
                raise IllegalAction("canvas %s cannot be both sold and eaten" % card_title(cid))
            fed = sum(CARDS[c].food for c in out)
            if fed:
                raise IllegalAction("the Last Supper is for an artist who would otherwise starve: tonight's "
                                    "sales raise your nutrition to %d" % min(MAX_NUTRITION, 1 + fed))
        return {"do": "sell", "canvases": out, "supper": sup}
    # collect
    if do != "take":
        raise IllegalAction('it is your collection action: {"do": "take", "cubes": {...}}')
    _keys(action, ("do", "cubes"), "take")
    entry = state.collection[state.coll_next]
    k = _take_amount(state, entry)
    got = _cubes(action.get("cubes"), "the cubes you take for %s" % card_title(entry[1]), k, k)
    if got[WILD] > 1:
        raise IllegalAction("take at most one wild cube per collection action")
    _must_hold(state.paint_market, got, "the Paint Market has")
    return {"do": "take", "cubes": cubes_map(got)}


def check(state: State, seat: int, action: Any) -> dict:
    """Validate a raw action; return it normalised or raise IllegalAction with a sentence."""
    try:
        out = Checked(_check(state, seat, action))
    except IllegalAction:
        raise
    except Exception as exc:  # a hostile value we did not foresee: refuse it, never crash
        raise IllegalAction("malformed action (%s)" % type(exc).__name__) from None
    out._for = weakref.ref(state)
    return out


def problems(state: State, seat: int, action: Any) -> list[str]:
    """What ``check`` would refuse, as sentences (empty = legal)."""
    try:
        check(state, seat, action)
    except IllegalAction as exc:
        return [str(exc)]
    return []


# --------------------------------------------------------------------------
# applying actions


def apply(state: State, seat: int, action: Any) -> State:
    ref = getattr(action, "_for", None) if type(action) is Checked else None
    if ref is None or ref() is not state:
        action = check(state, seat, action)
    return apply_unchecked(state, seat, action)


def apply_unchecked(state: State, seat: int, action: Mapping) -> State:
    """Apply a normalised action known to be legal in ``state`` (from ``check`` or
    ``legal_actions`` of this very state).  For bots' search; the table uses ``apply``."""
    w = _W(state)
    do = action["do"]
    if do in MAIN:
        _do_main(w, seat, action)
        then = action.get("then")
        if then is not None:
            _do_free(w, seat, then, ends_turn=True)
        if then is None or then["do"] != "offer":
            _end_turn(w)
    elif do in FREE:
        _do_free(w, seat, action, ends_turn=False)
    elif do == "answer":
        w.answers[seat] = action["accept"]
        if all(w.answers[s] is not None for s in answerers(state)):
            _resolve_offer(w)
    elif do == "sell":
        sup = action.get("supper")
        w.announced.append((seat, tuple(action["canvases"]), -1 if sup is None else sup))
        if action["canvases"] or sup is not None:
            w.event("seat %d announces %s%s" % (
                seat, " and ".join(card_title(c) for c in action["canvases"]) or "no sale",
                "; Last Supper: %s" % card_title(sup) if sup is not None else ""))
        else:
            w.event("seat %d sells nothing tonight" % seat)
        _after_announce(w, seat)
    elif do == "take":
        _do_take(w, w.coll_next, counts_of(action["cubes"]))
        _collect_next(w)
    elif do == "diamonds":
        w.event("seat %d paints the diamonds of %s %s" % (seat, card_title(w.market[0]), ", ".join(action["colours"])))
        _solo_end_of_day(w, action["colours"])
        _close_day(w)
    else:  # pragma: no cover - check refuses it
        raise IllegalAction("unknown action")
    return w.freeze()


# --------------------------------------------------------------------------
# defaults, legal actions


def _need_counts(state: State, seat: int) -> list[int]:
    """Cubes per colour the seat's canvases still need beyond its studio (diamonds count for both)."""
    need = [0] * 8
    for cid, f in state.canvases[seat]:
        for sq in needs_of(CARDS[cid], f):
            for c in sq:
                need[CI[c]] += 1
    have = state.studios[seat]
    return [max(0, need[i] - have[i]) for i in range(8)]


def best_take(market: Sequence[int], k: int, need: Sequence[int]) -> tuple[int, ...]:
    """A deterministic good pick of k cubes: needed colours first (COLOURS order), then one wild,
    then the most plentiful colours."""
    m = list(market)
    deficit = list(need)
    got = [0] * 8
    for _ in range(k):
        pick = -1
        for i in range(WILD):
            if deficit[i] > 0 and m[i] > 0:
                pick = i
                break
        if pick < 0 and got[WILD] == 0 and m[WILD] > 0:
            pick = WILD
        if pick < 0:
            best = 0
            for i in range(WILD):
                if m[i] > best:
                    best, pick = m[i], i
        if pick < 0:
            break
        m[pick] -= 1
        got[pick] += 1
        if pick != WILD:
            deficit[pick] -= 1
    return tuple(got)


def default_action(state: State, seat: int) -> dict:
    if state.step == "dusk":
        return {"do": "diamonds", "colours": default_diamonds(state.paint_market, state.market[0])}
    if state.step == "answer":
        return {"do": "answer", "accept": False}
    if state.step == "announce":
        return {"do": "sell", "canvases": [], "supper": None}
    if state.step == "collect":
        e = state.collection[state.coll_next]
        k = _take_amount(state, e)
        return {"do": "take", "cubes": cubes_map(best_take(state.paint_market, k, _need_counts(state, seat)))}
    return {"do": "work"}


def least_needed(studio: Sequence[int], n: int, keep: Sequence[int]) -> list[int]:
    """Up to ``n`` cubes from ``studio`` (8 colour counts), the least useful first: colours ``keep`` (8
    counts: what the seat's canvases ask for) does not ask for, then the most plentiful beyond it; wilds
    last.  Fewer than ``n`` when the studio runs out.  The rules' payments (``_spend``) and the screen's
    suggested payment both choose so."""
    s = list(studio)
    out = [0] * 8
    for _ in range(n):
        best, pick = None, -1
        for i in range(8):
            if s[i] <= 0:
                continue
            key = (i == WILD, keep[i] > 0, -(s[i] - keep[i]))
            if best is None or key < best:
                best, pick = key, i
        if pick < 0:
            break
        s[pick] -= 1
        out[pick] += 1
    return out


def _spend(studio: Sequence[int], n: int, keep: Sequence[int]) -> tuple[int, ...] | None:
    """n cubes to pay, least useful first (``least_needed``); None when the studio holds fewer."""
    out = least_needed(studio, n, keep)
    return tuple(out) if sum(out) == n else None


def _greedy_paint(state: State, seat: int, only: int | None = None) -> list[list]:
    """Up to 4 placements from the studio, canvases nearest completion first."""
    studio = list(state.studios[seat])
    cs = sorted(state.canvases[seat], key=lambda cf: cf[1].count("."))
    out: list[list] = []
    for cid, f in cs:
        if only is not None and cid != only:
            continue
        card = CARDS[cid]
        wild = "W" in f
        for sq, ch in enumerate(f):
            if len(out) >= 4:
                return out
            if ch != ".":
                continue
            for c in card.squares[sq]:
                if studio[CI[c]] > 0:
                    studio[CI[c]] -= 1
                    out.append([cid, sq, c])
                    break
            else:
                if not wild and studio[WILD] > 0:
                    studio[WILD] -= 1
                    wild = True
                    out.append([cid, sq, "W"])
    return out


def legal_actions(state: State, seat: int) -> list[dict]:
    """A representative list of legal actions for ``seat`` (every kind that is legal appears;
    paint, trade, take may be a sample).  Empty if the seat has nothing to decide."""
    t = turn(state)
    if t.kind in ("over", "chance") or seat not in t.seats:
        return []
    if state.step == "answer":
        out = [{"do": "answer", "accept": False}]
        if all(state.studios[seat][i] >= state.offer[2][i] for i in range(8)):
            out.append({"do": "answer", "accept": True})
        return out
    if state.step == "collect":
        e = state.collection[state.coll_next]
        k = _take_amount(state, e)
        return [{"do": "take", "cubes": cubes_map(o)} for o in take_options(state.paint_market, k)]
    if state.step == "dusk":
        return [{"do": "diamonds", "colours": c} for c in diamond_outcomes(state.paint_market, state.market[0]).values()]
    if state.step == "announce":
        done = [cid for cid, f in state.canvases[seat] if is_complete(f)]
        opts = [[], done] + ([[c] for c in done] if len(done) > 1 else [])
        out = [{"do": "sell", "canvases": list(o), "supper": None} for o in opts]
        if state.config["last_supper"] and state.nutrition[seat] == 1:
            for c in done:
                out.append({"do": "sell", "canvases": [], "supper": c})
                rest = [d for d in done if d != c]
                if rest:
                    out.append({"do": "sell", "canvases": rest, "supper": c})
        return out
    # a turn
    studio = state.studios[seat]
    need = _need_counts(state, seat)
    out: list[dict] = [{"do": "work"}]
    cost_of = (lambda slot: 1) if state.config["edition"] == "junior" else (lambda slot: slot)
    for slot in (1, 2, 3):
        if state.market[slot - 1] != -1:
            pay = _spend(studio, cost_of(slot), need)
            if pay is not None:
                out.append({"do": "buy", "slot": slot, "pay": cubes_map(pay)})
    paints = []
    allp = _greedy_paint(state, seat)
    if allp:
        paints.append(allp)
    for cid, _ in state.canvases[seat]:
        p = _greedy_paint(state, seat, only=cid)
        if p and p != allp:
            paints.append(p)
        if p:
            paints.append(p[:1])
    seen = set()
    for p in paints:
        key = repr(p)
        if key not in seen:
            seen.add(key)
            out.append({"do": "paint", "place": [list(x) for x in p]})
    if not state.free_used[seat]:
        pm = state.paint_market
        total = sum(studio)
        for give_n, take_n in TRADE_RATES.items():
            if total >= give_n and sum(pm[:WILD]) >= take_n:
                give = _spend(studio, give_n, need)
                take = best_take([pm[i] if i != WILD else 0 for i in range(8)], take_n, need)
                if give is not None and sum(take) == take_n:
                    out.append({"do": "trade", "give": cubes_map(give), "take": cubes_map(take)})
        if total >= 2 and state.deck:
            out.append({"do": "reset", "pay": cubes_map(_spend(studio, 2, need))})
        if state.config["color_study"]:
            gs = [i for i in range(8) if studio[i] >= 4]
            if gs:
                ts = [i for i in range(8) if state.bag[i] > 0 and need[i] > 0] or \
                     [i for i in range(8) if state.bag[i] > 0]
                if ts:
                    out.append({"do": "study", "give": COLOURS[gs[0]], "take": COLOURS[ts[0]]})
        if state.config["player_trades"] and total >= 1 and any(
                state.alive[o] for o in range(state.players) if o != seat):
            give = _spend(studio, 1, need)
            want = [i for i in range(WILD) if need[i] > 0] or [CI["B"]]
            out.append({"do": "offer", "give": cubes_map(give), "take": {COLOURS[want[0]]: 1}})
        # a main action carrying its free action in "then"
        frees = [a for a in out if a["do"] in FREE]
        mains = [a for a in out if a["do"] in MAIN]
        for f in frees:
            for m in (mains[0], mains[-1]):
                cand = dict(m, then=f)
                try:
                    out.append(dict(_check(state, seat, cand)))
                    break
                except IllegalAction:
                    continue
    return out


# --------------------------------------------------------------------------
# views and results


def _canvas_view(cid: int, filled: str) -> dict:
    return {"id": cid, "card": CARDS[cid].to_view(),
            "filled": [None if ch == "." else ch for ch in filled], "complete": is_complete(filled)}


def _pending_view(op: tuple) -> dict:
    k = op[0]
    if k == "cubes":
        return {"kind": "cubes", "seat": op[1], "n": op[2]}
    if k == "market":
        return {"kind": "market", "n": op[1]}
    if k == "canvas":
        return {"kind": "canvas", "slot": op[1]}
    if k == "return":
        return {"kind": "return", "cubes": cubes_map(op[1])}
    if k == "reset":
        return {"kind": "reset"}
    return {"kind": "studio", "seat": op[1]}


def view(state: State, seat: int | None) -> dict:
    n = state.players
    cfg = state.config
    t = turn(state)
    cost = [1, 1, 1] if cfg["edition"] == "junior" else [1, 2, 3]
    v: dict[str, Any] = {
        "game": NAME,
        "edition": cfg["edition"],
        "options": dict(cfg),
        "players": n,
        "me": seat if type(seat) is int and 0 <= seat < n else None,
        "day": state.day,
        "phase": state.phase,
        "step": state.step,
        "label": t.label if t.kind != "over" else "game over",
        "waiting": list(t.seats) if t.kind in ("sequential", "simultaneous") else [],
        "chance": t.kind == "chance",
        "first": state.first,
        "turn": state.actor if state.actor >= 0 else None,
        "alive": list(state.alive),
        "nutrition": list(state.nutrition),
        "score": list(state.score),
        "food_earned": list(state.food_earned),
        "sold": [len(x) for x in state.sold],
        "gallery": [list(x) for x in state.sold],
        "studios": [cubes_map(x) for x in state.studios],
        "incoming": incoming(state),
        "canvases": [[_canvas_view(cid, f) for cid, f in cs] for cs in state.canvases],
        "market": [None if c == -1 else CARDS[c].to_view() for c in state.market],
        "market_costs": cost,
        "paint_market": cubes_map(state.paint_market),
        "bag": cubes_map(state.bag),
        "pending": [_pending_view(op) for op in state.pending],
        "deck": len(state.deck),
        "discarded": list(state.discarded),
        "free_used": list(state.free_used),
        "offer": None if state.offer is None else {
            "seat": state.offer[0], "give": cubes_map(state.offer[1]), "take": cubes_map(state.offer[2]),
            "ends_turn": state.offer[3],
            "answers": [a for a in state.answers],
        },
        "announced": [{"seat": s, "canvases": list(ids), "supper": None if sup == -1 else sup}
                      for s, ids, sup in state.announced],
        "collection": {
            "queue": [{"seat": e[0], "canvas": e[1], "paint": CARDS[e[1]].paint, "owed": e[2], "per": e[3]}
                      for e in state.collection],
            "next": state.coll_next if state.step == "collect" else None,
            "amount": _take_amount(state, state.collection[state.coll_next]) if state.step == "collect" else None,
        },
        "targets": list(TARGETS[n]) if n in TARGETS else None,
        "dusk": None if state.step != "dusk" or state.market[0] == -1 else {
            "canvas": state.market[0], "diamonds": diamond_squares(state.market[0]),
            "default": default_diamonds(state.paint_market, state.market[0]),
            "returns": {"".join(c): cubes_map(r) for r, c in diamond_outcomes(state.paint_market, state.market[0]).items()},
        },
        "starve_day": state.starve_day or None,
        "end_reason": state.end_reason or None,
        "objectives": [{"seat": s, "objective": o, "day": d} for s, o, d in state.met],
        "events": [text for _, text in state.events],
        "event_days": [d for d, _ in state.events],
    }
    res = result(state)
    if res is not None:
        v["result"] = res
    return v


def state_from_view(v: Mapping[str, Any], rng: Rng) -> State:
    """A full State consistent with a view: the unseen deck is drawn at random from the cards no one
    has seen (so every state a seat cannot tell apart from the real one is possible).  Pending draws
    stay pending (nothing is known about them); ``chance`` resolves them with any entropy."""
    n = v["players"]
    cfg = dict(v["options"])
    seen = set()
    for c in v["market"]:
        if c is not None:
            seen.add(c["id"])
    for cs in v["canvases"]:
        for c in cs:
            seen.add(c["id"])
    for g in v["gallery"]:
        seen.update(g)
    seen.update(v["discarded"])
    pool = [c.id for c in CARDS if c.id not in seen and not (n == 1 and cfg["remove_comics"] and c.stars == 0)]
    rng.shuffle(pool)
    deck = tuple(sorted(pool[: v["deck"]]))
    pend = []
    for p in v["pending"]:
        k = p["kind"]
        if k == "cubes":
            pend.append(("cubes", p["seat"], p["n"]))
        elif k == "market":
            pend.append(("market", p["n"]))
        elif k == "canvas":
            pend.append(("canvas", p["slot"]))
        elif k == "return":
            pend.append(("return", counts_of(p["cubes"])))
        elif k == "reset":
            pend.append(("reset",))
        else:
            pend.append(("studio", p["seat"]))
    off = v["offer"]
    coll = v["collection"]
    phase = v["phase"]
    step = v["step"]
    return State(
        config=cfg, players=n, day=v["day"], phase=phase, step=step, first=v["first"],
        actor=-1 if v["turn"] is None else v["turn"], alive=tuple(v["alive"]),
        nutrition=tuple(v["nutrition"]), score=tuple(v["score"]), food_earned=tuple(v["food_earned"]),
        sold=tuple(tuple(g) for g in v["gallery"]),
        studios=tuple(counts_of(m) for m in v["studios"]),
        canvases=tuple(tuple((c["id"], "".join("." if x is None else x for x in c["filled"])) for c in cs)
                       for cs in v["canvases"]),
        market=tuple(-1 if c is None else c["id"] for c in v["market"]),
        paint_market=counts_of(v["paint_market"]), bag=counts_of(v["bag"]), deck=deck,
        discarded=tuple(v["discarded"]), pending=tuple(pend), free_used=tuple(v["free_used"]),
        offer=None if off is None else (off["seat"], counts_of(off["give"]), counts_of(off["take"]), off["ends_turn"]),
        answers=tuple(off["answers"]) if off is not None else (None,) * n,
        announced=tuple((a["seat"], tuple(a["canvases"]), -1 if a["supper"] is None else a["supper"])
                        for a in v["announced"]),
        collection=tuple((e["seat"], e["canvas"], e["owed"], e["per"]) for e in coll["queue"]),
        coll_next=coll["next"] if coll["next"] is not None else 0,
        starve_day=v["starve_day"] or 0, end_reason=v["end_reason"] or "",
        events=tuple(zip(v.get("event_days") or [v["day"]] * len(v["events"]), v["events"])),
        met=tuple((m["seat"], m["objective"], m["day"]) for m in v.get("objectives") or ()),
    )


def determinize(state: State, seat: int | None, rng: Rng) -> State:
    """A state ``seat`` cannot tell from ``state``: the deck's cards resampled from the unseen ones."""
    return state_from_view(view(state, seat), rng)


def decided_by(state: State) -> str:
    """How the winner is chosen (rulebook "End of the Game", decision 27): "objective" when one seat
    alone met an objective (it wins, even with fewer points), "tie" when two or more seats met one
    in the same night (points decide among them, then paintings sold, food earned, unused cubes),
    "points" when none was met (every seat by points, ...), "solo" for the solo game."""
    if state.players == 1:
        return "solo"
    seats = {s for s, _, _ in state.met}
    if not seats:
        return "points"
    return "objective" if len(seats) == 1 else "tie"


def standings(state) -> dict:
    """What the log has made public of each seat's standing (every view shows it): the score, for a game
    that ends before its end (forked, protocol.md §6.5 rule 3): standings, not a ranking."""
    return {"score": list(state.score)}


def result(state: State) -> dict | None:
    if state.phase != "over":
        return None
    n = state.players
    inc = incoming(state)
    cubes = [sum(state.studios[s]) + inc[s] if state.alive[s] else 0 for s in range(n)]
    sold = [len(x) for x in state.sold]
    how = decided_by(state)
    met = {s for s, _, _ in state.met}
    # the seats that met an objective come first (all seats when none did), then the others; within
    # each group: points, paintings sold, food earned, unused cubes (more is better); equal on all
    # four shares the place
    keys = [(0 if (s in met or not met) else -1, state.score[s], sold[s], state.food_earned[s], cubes[s])
            for s in range(n)]
    ranking = sorted(range(n), key=lambda s: (tuple(-x for x in keys[s]), s))
    places = [1 + sum(1 for o in range(n) if keys[o] > keys[s]) for s in range(n)]
    out: dict[str, Any] = {
        "ranking": ranking,
        "places": places,
        "points": list(state.score),
        "sold": sold,
        "food": list(state.food_earned),
        "cubes": cubes,
        "starved": [not a for a in state.alive],
        "winners": [s for s in ranking if places[s] == 1],
        "reason": state.end_reason,
        "days": state.day,
        "objectives": [{"seat": s, "objective": o, "day": d} for s, o, d in state.met],
        "decided_by": how,
    }
    if n == 1:
        out["rating"] = solo_rating(state.score[0])
    return out
