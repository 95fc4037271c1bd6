"""The Painting Game (Genius Game 4 Main Match): rules engine.

Everything here is pure: no I/O, no clock, no ``random``; randomness comes
only through ``core.rng.Rng`` from entropy the table supplies.  See RULES.md
next to this file for the rules as implemented, in plain words.

State is a frozen dataclass of tuples (and one dict of sheets that is only
ever replaced, never changed in place); ``apply`` and ``chance`` build a new
state and never touch the old one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping, Sequence

from ...engine import ConfigError, GameInfo, IllegalAction, OVER, Turn
from ..common import option_map, seed_bytes, short as _short
from . import sheets as _sheets
from .sheets import Sheet

__all__ = [
    "INFO",
    "EDITIONS",
    "State",
    "Holding",
    "configure",
    "setup",
    "turn",
    "check",
    "apply",
    "chance",
    "default_action",
    "view",
    "result",
    "describe",
    "legal_actions",
    "edition_rules",
    "mix",
    "colour_string",
    "masks_from_view_grid",
    "plus_cells",
    "SIZE",
    "PRIMARY_BIT",
    "COLOUR_MASK",
    "MASK_COLOUR",
]

SIZE = 5

# A grid cell is a bitmask of the primaries on it.
PRIMARY_BIT = {"R": 1, "B": 2, "Y": 4}
MASK_COLOUR = ("W", "R", "B", "P", "Y", "O", "G", "K")  # index = mask
COLOUR_MASK = {c: i for i, c in enumerate(MASK_COLOUR)}
COLOUR_NAME = {"R": "red", "B": "blue", "Y": "yellow", "P": "purple", "O": "orange",
               "G": "green", "W": "white", "K": "black"}
ALL_PRIMARIES = 7

EDITIONS = {
    # extra_cost: garnets for the extra submission; garnet_divisor: points per
    # garnet earned; black: "round" = a three-primary cell shows black until
    # the next round starts, "immediate" = it turns white at once; all_tied:
    # what happens when every seat ends on the same points: "draw" = a new
    # match is played (the clarified text's edit), "tokens" = tokens left break
    # the tie like any other tie at the top (the mm8 text as written).
    "clarified": {"extra_cost": 7, "garnet_divisor": 25, "black": "round", "all_tied": "draw"},
    "mm8": {"extra_cost": 5, "garnet_divisor": 20, "black": "immediate", "all_tied": "tokens"},
}

# Garnets each seat holds when the match starts (RULES.md, decision 24): both
# texts spend garnets during the match ("at any time") but only hand them out
# at its end, so players bring them from earlier matches.  10 pays for the
# extra submission (7, mm8 5) with a few to spare, or one round's income.
STARTING_GARNETS = 10

OPTIONS = {
    "edition": "clarified",
    "rounds": 6,
    "starting_tokens": 30,
    "tokens_per_round": 10,
    "starting_garnets": STARTING_GARNETS,
    "first_round_sheets": 10,
    "sheets_per_round": 7,
}

# (min, max) for every int option
OPTION_RANGES = {
    "rounds": (1, 20),
    "starting_tokens": (0, 10_000),
    "tokens_per_round": (0, 10_000),
    "starting_garnets": (0, 10_000),
    "first_round_sheets": (1, 50),
    "sheets_per_round": (1, 50),
}

INFO = GameInfo(
    name="painting",
    title="The Painting Game",
    min_players=2,
    max_players=8,
    default_players=6,
    editions=("clarified", "mm8"),
    information="imperfect",
    simultaneous=True,
    sealed=True,
    chance=True,
    options=dict(OPTIONS),
    option_help={
        "edition": "rule edition: clarified (default) or mm8",
        "rounds": "number of rounds, 1 to 20 (default 6)",
        "starting_tokens": "tokens each seat starts with, 0 to 10000 (default 30)",
        "tokens_per_round": "tokens each seat gets every round after the first, 0 to 10000 (default 10)",
        "starting_garnets": "garnets each seat brings to the match, 0 to 10000 (default %d): "
                            "1 converts to 1 token, %d (mm8 %d) buy the once-per-game extra splash"
                            % (STARTING_GARNETS, EDITIONS["clarified"]["extra_cost"], EDITIONS["mm8"]["extra_cost"]),
        "first_round_sheets": "sheets on offer in round 1, 1 to 50 (default 10)",
        "sheets_per_round": "sheets on offer in later rounds, 1 to 50 (default 7)",
    },
    listing=0,
)

ACTION_KEYS = ("bids", "splash", "extra", "convert", "why")

# The words a move may give for a part it leaves empty ("why": {part: word}):
# shown in the log line, so a person sees why a seat bid nothing or did not
# splash.  A note, not a rule: only "no tokens" is checked against the state.
WHY = {
    "bids": ("no tokens", "nothing in reach"),
    "splash": ("would spoil its sheets",),
}


# --------------------------------------------------------------------------
# state


@dataclass(frozen=True, slots=True)
class Holding:
    """An owned, not yet scored sheet."""

    sheet: int      # sheet id
    value: int      # current score value
    bought: int     # round bought
    price: int      # tokens paid


@dataclass(frozen=True, slots=True)
class State:
    config: Mapping[str, Any]            # full config (never changed)
    players: int
    seed: bytes                          # the table's start seed (kept, unused)
    round: int                           # 1..rounds
    phase: str                           # "chance" | "play" | "over"
    grid: tuple[int, ...]                # 25 primary bitmasks, row by row
    tokens: tuple[int, ...]
    garnets: tuple[int, ...]
    points: tuple[int, ...]
    extra_used: tuple[bool, ...]
    catalogue: Mapping[int, Sheet]       # every sheet generated so far, by id
    next_id: int                         # id of the next sheet to generate
    offer: tuple[int, ...]               # sheet ids on offer this round
    owned: tuple[tuple[Holding, ...], ...]   # per seat
    scored: tuple[tuple[int, int, int, int], ...]  # (sheet, seat, round, points)
    moves: tuple[Any, ...]               # per seat: normalised action or None
    last: Any = None                     # summary of the last resolved round (dict) or None


def edition_rules(config_or_edition: Any) -> dict:
    if isinstance(config_or_edition, str):
        return EDITIONS[config_or_edition]
    return EDITIONS[config_or_edition["edition"]]


def configure(options: Mapping[str, Any], players: int) -> dict:
    options = option_map(options)
    if type(players) is not int or not INFO.min_players <= players <= INFO.max_players:
        raise ConfigError(
            "the Painting Game takes %d to %d players, not %r"
            % (INFO.min_players, INFO.max_players, players)
        )
    config = dict(OPTIONS)
    for key, value in options.items():
        if not isinstance(key, str) or key not in OPTIONS:
            raise ConfigError(
                "unknown option %r (known: %s)" % (key, ", ".join(sorted(OPTIONS)))
            )
        if key == "edition":
            if not isinstance(value, str) or value not in EDITIONS:
                raise ConfigError(
                    "unknown edition %r (known: %s)" % (value, ", ".join(INFO.editions))
                )
        else:
            lo, hi = OPTION_RANGES[key]
            if type(value) is not int or not lo <= value <= hi:
                raise ConfigError("option %s must be an integer from %d to %d, not %r" % (key, lo, hi, value))
        config[key] = value
    return config


def setup(config: Mapping[str, Any], players: int, seed: bytes) -> State:
    config = configure(config, players)
    seed = seed_bytes(seed)
    n = players
    return State(
        config=config,
        players=n,
        seed=seed,
        round=1,
        phase="chance",
        grid=(0,) * (SIZE * SIZE),
        tokens=(config["starting_tokens"],) * n,
        garnets=(config["starting_garnets"],) * n,
        points=(0,) * n,
        extra_used=(False,) * n,
        catalogue={},
        next_id=1,
        offer=(),
        owned=((),) * n,
        scored=(),
        moves=(None,) * n,
        last=None,
    )


def turn(state: State) -> Turn:
    if state.phase == "over":
        return OVER
    if state.phase == "chance":
        return Turn("chance", label="round %d: new sheets" % state.round)
    return Turn(
        "simultaneous",
        seats=tuple(range(state.players)),
        sealed=True,
        label="round %d: bids and splash" % state.round,
    )


# --------------------------------------------------------------------------
# grid helpers (also used by the bots)


def plus_cells(row: int, col: int) -> list[int]:
    """Indices of the cell and its orthogonal neighbours (no wrap)."""
    out = [row * SIZE + col]
    if row > 0:
        out.append((row - 1) * SIZE + col)
    if row < SIZE - 1:
        out.append((row + 1) * SIZE + col)
    if col > 0:
        out.append(row * SIZE + col - 1)
    if col < SIZE - 1:
        out.append(row * SIZE + col + 1)
    return out


_PLUS = [plus_cells(i // SIZE, i % SIZE) for i in range(SIZE * SIZE)]


def mix(grid: Sequence[int], splashes: Iterable[Sequence], black: str) -> tuple[int, ...]:
    """Add every splash ``(row, col, primary)`` of one round to ``grid``.

    Primaries added in one round are unioned with each other and with those
    already on a cell.  A cell that ends with all three primaries is kept as
    mask 7 (shown black) when ``black == "round"`` and becomes white (0) at
    once when ``black == "immediate"``.
    """
    adds = [0] * (SIZE * SIZE)
    any_add = False
    for row, col, colour in splashes:
        bit = PRIMARY_BIT[colour]
        for i in _PLUS[row * SIZE + col]:
            adds[i] |= bit
        any_add = True
    if not any_add:
        return tuple(grid)
    out = [m | a for m, a in zip(grid, adds)]
    if black == "immediate":
        out = [0 if m == ALL_PRIMARIES else m for m in out]
    return tuple(out)


def colour_string(grid: Sequence[int]) -> str:
    """The grid as 25 colour letters (W R B Y P O G K), row by row."""
    return "".join(MASK_COLOUR[m] for m in grid)


def masks_from_view_grid(vgrid: Sequence[Sequence[Mapping]]) -> tuple[int, ...]:
    """Back from a view's grid (5 lists of cell dicts) to primary bitmasks."""
    out = []
    for row in vgrid:
        for cell in row:
            m = 0
            for p in cell["primaries"]:
                m |= PRIMARY_BIT[p]
            out.append(m)
    return tuple(out)


def _cell_view(mask: int) -> dict:
    return {
        "colour": MASK_COLOUR[mask],
        "primaries": "".join(p for p in "RBY" if mask & PRIMARY_BIT[p]),
    }


_CELL_VIEWS = [_cell_view(m) for m in range(8)]


def _grid_view(grid: Sequence[int]) -> list[list[dict]]:
    return [
        [dict(_CELL_VIEWS[grid[r * SIZE + c]]) for c in range(SIZE)] for r in range(SIZE)
    ]


# --------------------------------------------------------------------------
# actions


def default_action(state: State, seat: int) -> dict:
    return {"bids": {}, "splash": None, "extra": None, "convert": 0}


def legal_actions(state: State, seat: int) -> list[dict]:
    """A sample of every kind of legal move (the full space is huge): the empty move (also
    with its reasons), every single splash, one token and every token on each sheet on
    offer, converting every garnet, and an extra submission when affordable.  [] when the
    seat may not move."""
    if state.phase != "play" or not _is_int(seat) or not 0 <= seat < state.players or state.moves[seat] is not None:
        return []
    out = [default_action(state, seat)]
    for cell in range(SIZE * SIZE):
        for colour in "RBY":
            out.append({"bids": {}, "splash": [cell // SIZE, cell % SIZE, colour], "extra": None, "convert": 0})
    tokens, garnets = state.tokens[seat], state.garnets[seat]
    for sid in state.offer:
        for amount in sorted({1, tokens}):
            if 0 < amount <= tokens:
                out.append({"bids": {str(sid): amount}, "splash": None, "extra": None, "convert": 0})
    out.append({"bids": {}, "splash": None, "extra": None, "convert": 0,
                "why": {"bids": "no tokens" if tokens == 0 else "nothing in reach", "splash": "would spoil its sheets"}})
    if garnets > 0:
        out.append({"bids": {}, "splash": None, "extra": None, "convert": garnets})
    cost = EDITIONS[state.config["edition"]]["extra_cost"]
    if not state.extra_used[seat] and garnets >= cost:
        out.append({"bids": {}, "splash": [0, 0, "R"], "extra": [4, 4, "B"], "convert": 0})
    return out


def _is_int(x: Any) -> bool:
    return type(x) is int


def _check_space(raw: Any, what: str) -> list | None:
    if raw is None:
        return None
    if not isinstance(raw, (list, tuple)) or len(raw) != 3:
        raise IllegalAction(
            "%s must be [row, col, colour] with row and col 0-4 and colour R, B or Y, not %s"
            % (what, _short(raw))
        )
    row, col, colour = raw[0], raw[1], raw[2]
    if not _is_int(row) or not 0 <= row < SIZE:
        raise IllegalAction("%s row must be a whole number from 0 to 4, not %s" % (what, _short(row)))
    if not _is_int(col) or not 0 <= col < SIZE:
        raise IllegalAction("%s column must be a whole number from 0 to 4, not %s" % (what, _short(col)))
    if type(colour) is not str or colour not in PRIMARY_BIT:
        raise IllegalAction(
            "%s colour must be a primary: R (red), B (blue) or Y (yellow), not %s"
            % (what, _short(colour))
        )
    return [row, col, colour]


def _check(state: State, seat: Any, action: Any) -> dict:
    if state.phase != "play":
        raise IllegalAction(
            "no moves are taken now: %s" % ("the game is over" if state.phase == "over" else "waiting for the round's sheets")
        )
    if not _is_int(seat) or not 0 <= seat < state.players:
        raise IllegalAction("there is no seat %s at this table" % _short(seat))
    if state.moves[seat] is not None:
        raise IllegalAction("seat %d already moved in round %d" % (seat, state.round))
    if not isinstance(action, dict):
        raise IllegalAction(
            "a move must be a map with keys bids, splash, extra, convert (and why), not %s" % _short(action)
        )
    for key in action:
        if type(key) is not str or key not in ACTION_KEYS:
            raise IllegalAction(
                "unknown key %s in the move (allowed: bids, splash, extra, convert, why)" % _short(key)
            )
    ed = EDITIONS[state.config["edition"]]
    tokens = state.tokens[seat]
    garnets = state.garnets[seat]

    convert = action.get("convert", 0)
    if convert is None:
        convert = 0
    if not _is_int(convert) or convert < 0:
        raise IllegalAction("convert must be a whole number of garnets, 0 or more, not %s" % _short(convert))

    splash = _check_space(action.get("splash"), "splash")
    extra = _check_space(action.get("extra"), "extra submission")
    cost = 0
    if extra is not None:
        if state.extra_used[seat]:
            raise IllegalAction("you already used your extra submission in this game (once per game)")
        if splash is None:
            raise IllegalAction("an extra submission needs a main splash too; put it in splash instead")
        cost = ed["extra_cost"]
    if convert + cost > garnets:
        if extra is not None and convert:
            raise IllegalAction(
                "the extra submission costs %d garnets and converting %s needs %s more, but you have %d garnets"
                % (cost, _short(convert), _short(convert), garnets)
            )
        if extra is not None:
            raise IllegalAction(
                "the extra submission costs %d garnets but you have %d" % (cost, garnets)
            )
        raise IllegalAction("cannot convert %s garnets: you have %d" % (_short(convert), garnets))

    why = _check_why(action.get("why"))

    raw_bids = action.get("bids", {})
    if raw_bids is None:
        raw_bids = {}
    if not isinstance(raw_bids, dict):
        raise IllegalAction("bids must be a map of sheet id -> tokens, not %s" % _short(raw_bids))
    on_offer = {str(i): i for i in state.offer}
    bids: dict[int, int] = {}
    seen: set[int] = set()
    total = 0
    for key, amount in raw_bids.items():
        if type(key) is str:
            sid = on_offer.get(key)
        elif _is_int(key):
            sid = key if key in state.offer else None
        else:
            sid = None
        if sid is None:
            raise IllegalAction(
                "sheet %s is not on offer this round (on offer: %s)"
                % (_short(key), ", ".join(str(i) for i in state.offer) or "none")
            )
        if not _is_int(amount):
            raise IllegalAction("the bid on sheet %d must be a whole number of tokens, not %s" % (sid, _short(amount)))
        if amount < 0:
            raise IllegalAction("the bid on sheet %d is negative (%s)" % (sid, _short(amount)))
        if sid in seen:
            raise IllegalAction("two bids on sheet %d" % sid)
        seen.add(sid)
        if amount > 0:
            bids[sid] = amount
            total += amount
    have = tokens + convert
    if total > have:
        if convert:
            raise IllegalAction(
                "bids total %s but you have %s tokens (%d tokens + %s converted garnets)"
                % (_short(total), _short(have), tokens, _short(convert))
            )
        raise IllegalAction("bids total %s but you have %d tokens" % (_short(total), tokens))
    if why:
        if "bids" in why and bids:
            raise IllegalAction("the move explains why it bids nothing (%r) but it bids" % why["bids"])
        if "splash" in why and splash is not None:
            raise IllegalAction("the move explains why it does not splash (%r) but it splashes" % why["splash"])
        if why.get("bids") == "no tokens" and tokens > 0:
            raise IllegalAction("the move says 'no tokens' but the seat has %d" % tokens)
    out = {
        "bids": {str(i): bids[i] for i in sorted(bids)},
        "splash": splash,
        "extra": extra,
        "convert": convert,
    }
    if why:
        out["why"] = why
    return out


def _check_why(raw: Any) -> dict:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise IllegalAction("why must be a map of part (bids, splash) -> reason, not %s" % _short(raw))
    out = {}
    for part, word in raw.items():
        if type(part) is not str or part not in WHY:
            raise IllegalAction("why names an unknown part %s (allowed: bids, splash)" % _short(part))
        if type(word) is not str or word not in WHY[part]:
            raise IllegalAction("why %s must be one of: %s; not %s" % (part, ", ".join(WHY[part]), _short(word)))
        out[part] = word
    return {k: out[k] for k in sorted(out)}


def problems(state: State, seat: int, action: Any) -> list[str]:
    """Everything the rules refuse in ``action``, all at once ([] = legal), for a person
    editing a move; ``check`` stays the judge and stops at the first problem."""
    try:
        _check(state, seat, action)
        return []
    except IllegalAction as exc:
        first = str(exc)
    if state.phase != "play" or not _is_int(seat) or not 0 <= seat < state.players or not isinstance(action, dict):
        return [first]
    convert = action.get("convert") or 0
    bids = action.get("bids") or {}
    if not _is_int(convert) or convert < 0 or not isinstance(bids, dict) or not all(_is_int(v) for v in bids.values()):
        return [first]
    probs = []
    tokens, garnets = state.tokens[seat], state.garnets[seat]
    cost = EDITIONS[state.config["edition"]]["extra_cost"]
    extra = action.get("extra") is not None
    used = state.extra_used[seat]
    if extra:
        if used:
            probs.append("you have already used your extra submission")
        elif action.get("splash") is None:
            probs.append("the extra splash needs a main splash too")
    need = convert + (cost if extra and not used else 0)
    if need > garnets:
        what = []
        if convert:
            what.append("convert %d" % convert)
        if extra and not used:
            what.append("the extra (%d)" % cost)
        probs.append("%s need%s %d garnet%s, you have %d" % (
            " + ".join(what), "s" if len(what) == 1 and not convert else "", need, "" if need == 1 else "s", garnets))
    total = sum(v for v in bids.values() if v > 0)
    converted = min(convert, garnets)
    if total > tokens + converted:
        probs.append("bids total %d, more than your %d tokens%s" % (
            total, tokens, " + %d converted" % converted if converted else ""))
    offer = {str(i) for i in state.offer}
    gone = sorted((k for k in bids if str(k) not in offer), key=str)
    if gone:
        probs.append("sheet%s %s no longer on offer" % ("s" if len(gone) > 1 else "", " ".join(map(str, gone))))
    return probs or [first]


class Checked(dict):
    """A move as ``check`` returned it: normalised and legal in that round, so
    ``apply`` need not validate it a second time (the table always checks first)."""

    __slots__ = ()


def check(state: State, seat: int, action: Any) -> dict:
    """Validate a raw move; return it normalised or raise IllegalAction."""
    try:
        return Checked(_check(state, seat, action))
    except IllegalAction:
        raise
    except Exception as exc:  # a hostile value we did not foresee: refuse it, never crash
        raise IllegalAction("malformed move (%s)" % type(exc).__name__) from None


def apply(state: State, seat: int, action: Any) -> State:
    if not (type(action) is Checked and state.phase == "play" and _is_int(seat) and 0 <= seat < state.players and state.moves[seat] is None):
        action = check(state, seat, action)
    moves = list(state.moves)
    moves[seat] = action
    if any(m is None for m in moves):
        return replace(state, moves=tuple(moves))
    return _resolve(state, moves)


def _resolve(state: State, moves: list[dict]) -> State:
    config = state.config
    ed = EDITIONS[config["edition"]]
    n = state.players
    r = state.round
    tokens = list(state.tokens)
    garnets = list(state.garnets)
    points = list(state.points)
    extra_used = list(state.extra_used)
    owned = [list(h) for h in state.owned]

    # 1. garnet conversion and the extra submission's cost
    for s, m in enumerate(moves):
        tokens[s] += m["convert"]
        garnets[s] -= m["convert"]
        if m["extra"] is not None:
            garnets[s] -= ed["extra_cost"]
            extra_used[s] = True

    # 3. auctions
    auction = []
    for sid in state.offer:
        key = str(sid)
        best = 0
        who: list[int] = []
        for s, m in enumerate(moves):
            b = m["bids"].get(key, 0)
            if b > best:
                best, who = b, [s]
            elif b == best and b > 0:
                who.append(s)
        if not who:
            auction.append({"sheet": sid, "outcome": "no bids", "winner": None, "price": 0})
        elif len(who) > 1:
            auction.append({"sheet": sid, "outcome": "tie", "winner": None, "price": 0, "tied": who})
        else:
            s = who[0]
            tokens[s] -= best
            value = state.catalogue[sid].size + r
            owned[s].append(Holding(sid, value, r, best))
            auction.append({"sheet": sid, "outcome": "sold", "winner": s, "price": best, "value": value})

    # 4. splashes
    splashes = []
    for m in moves:
        if m["splash"] is not None:
            splashes.append(m["splash"])
        if m["extra"] is not None:
            splashes.append(m["extra"])
    grid = mix(state.grid, splashes, ed["black"])
    colours = colour_string(grid)

    # 5. matching, 6. decay
    last_round = r >= config["rounds"]
    scored = list(state.scored)
    scored_now = []
    for s in range(n):
        keep = []
        for h in owned[s]:
            if _sheets.matches(colours, state.catalogue[h.sheet].cells):
                points[s] += h.value
                scored.append((h.sheet, s, r, h.value))
                scored_now.append({"sheet": h.sheet, "seat": s, "points": h.value})
            elif last_round or h.value <= 1:
                keep.append(h)
            else:
                keep.append(Holding(h.sheet, h.value - 1, h.bought, h.price))
        owned[s] = keep

    last = {
        "round": r,
        "auction": auction,
        "scored": scored_now,
        "grid": grid,
    }
    common = dict(
        tokens=tuple(tokens),
        garnets=tuple(garnets),
        points=tuple(points),
        extra_used=tuple(extra_used),
        owned=tuple(tuple(h) for h in owned),
        scored=tuple(scored),
        moves=(None,) * n,
        offer=(),
        last=last,
    )
    if last_round:
        return replace(state, phase="over", grid=grid, **common)
    # 7. next round: income; clarified black cells turn white
    if ed["black"] == "round":
        grid = tuple(0 if m == ALL_PRIMARIES else m for m in grid)
    common["tokens"] = tuple(t + config["tokens_per_round"] for t in tokens)
    return replace(state, phase="chance", round=r + 1, grid=grid, **common)


def chance(state: State, entropy: bytes) -> State:
    if state.phase != "chance":
        raise ValueError("the Painting Game asks for no randomness now")
    if isinstance(entropy, (bytearray, memoryview)):
        entropy = bytes(entropy)
    if not isinstance(entropy, bytes) or len(entropy) != 32:
        raise ValueError("entropy must be 32 bytes")
    count = state.config["first_round_sheets"] if state.round == 1 else state.config["sheets_per_round"]
    new = _sheets.generate_round(entropy, state.round, count, state.next_id)
    catalogue = dict(state.catalogue)
    for sh in new:
        catalogue[sh.id] = sh
    return replace(
        state,
        phase="play",
        catalogue=catalogue,
        next_id=state.next_id + count,
        offer=tuple(sh.id for sh in new),
        moves=(None,) * state.players,
    )


# --------------------------------------------------------------------------
# views and results


def _holding_view(state: State, h: Holding) -> dict:
    sh = state.catalogue[h.sheet]
    return {"id": h.sheet, "cells": sh.cells_list(), "size": sh.size, "value": h.value,
            "bought": h.bought, "price": h.price}


def view(state: State, seat: int | None) -> dict:
    config = state.config
    ed = EDITIONS[config["edition"]]
    r = state.round
    v: dict[str, Any] = {
        "game": "painting",
        "edition": config["edition"],
        "rules": {
            "rounds": config["rounds"],
            "tokens_per_round": config["tokens_per_round"],
            "extra_cost": ed["extra_cost"],
            "garnet_divisor": ed["garnet_divisor"],
            "black": ed["black"],
            "all_tied": ed["all_tied"],
        },
        "players": state.players,
        "seat": seat,
        "round": r,
        "phase": state.phase,
        "label": turn(state).label or "game over",
        "grid": _grid_view(state.grid),
        "offer": [
            {"id": sid, "cells": state.catalogue[sid].cells_list(),
             "size": state.catalogue[sid].size, "value": state.catalogue[sid].size + r}
            for sid in state.offer
        ],
        "owned": [[_holding_view(state, h) for h in hs] for hs in state.owned],
        "scored": [
            {"id": sid, "seat": s, "round": rr, "points": p, "cells": state.catalogue[sid].cells_list()}
            for sid, s, rr, p in state.scored
        ],
        "tokens": list(state.tokens),
        "garnets": list(state.garnets),
        "points": list(state.points),
        "extra_used": list(state.extra_used),
        "moved": [s for s, m in enumerate(state.moves) if m is not None],
        "last_round": None,
    }
    if state.last is not None:
        last = state.last
        v["last_round"] = {
            "round": last["round"],
            "auction": [dict(a, tied=list(a["tied"])) if "tied" in a else dict(a) for a in last["auction"]],
            "scored": [dict(e) for e in last["scored"]],
            "grid": _grid_view(last["grid"]),
        }
    if seat is not None and _is_int(seat) and 0 <= seat < state.players:
        m = state.moves[seat]
        v["my_move"] = None if m is None else _copy_action(m)
    res = result(state)
    if res is not None:
        v["result"] = res
    return v


def _copy_action(m: dict) -> dict:
    out = {
        "bids": dict(m["bids"]),
        "splash": None if m["splash"] is None else list(m["splash"]),
        "extra": None if m["extra"] is None else list(m["extra"]),
        "convert": m["convert"],
    }
    if m.get("why"):
        out["why"] = dict(m["why"])
    return out


def standings(state: State) -> dict:
    """What the log has made public of each seat's standing (every view shows it): points and tokens, for a
    game that ends before its end (forked, protocol.md §6.5 rule 3): standings, not a ranking."""
    return {"points": list(state.points), "tokens": list(state.tokens)}


def result(state: State) -> dict | None:
    if state.phase != "over":
        return None
    n = state.players
    ed = EDITIONS[state.config["edition"]]
    pts = state.points
    tok = state.tokens
    ranking = sorted(range(n), key=lambda s: (-pts[s], -tok[s], s))
    out: dict[str, Any] = {
        "points": {str(s): pts[s] for s in range(n)},
        "tokens": {str(s): tok[s] for s in range(n)},
        "garnets": {str(s): state.garnets[s] for s in range(n)},
        "ranking": ranking,
    }
    if len(set(pts)) == 1 and ed["all_tied"] == "draw":
        out.update(
            draw=True,
            winners=[],
            tokens_of_life={},
            elimination_candidates=[],
            ec_chosen_by=[],
            garnets_earned={str(s): 0 for s in range(n)},
        )
        return out
    top = max(pts)
    leaders = [s for s in range(n) if pts[s] == top]
    most = max(tok[s] for s in leaders)
    winners = [s for s in leaders if tok[s] == most]
    if len(winners) == 1:
        tol = {str(winners[0]): 2}
    elif len(winners) == 2:
        tol = {str(s): 1 for s in winners}
    else:
        tol = {}
    low = min(pts)
    candidates = [s for s in range(n) if pts[s] == low]
    if low == top:
        # every seat on the same points (mm8): the winners, picked by tokens,
        # are not candidates for elimination unless every seat is a winner
        candidates = [s for s in candidates if s not in winners] or candidates
    out.update(
        draw=False,
        winners=winners,
        tokens_of_life=tol,
        elimination_candidates=candidates,
        ec_chosen_by=list(winners) if len(candidates) > 1 else [],
        garnets_earned={str(s): pts[s] // ed["garnet_divisor"] for s in range(n)},
    )
    return out


def _space_words(sp: Any) -> str:
    try:
        row, col, colour = sp
        return "%s at row %s, column %s" % (COLOUR_NAME.get(colour, str(colour)), row, col)
    except Exception:
        return "?"


def describe(state: State, seat: int, action: Any) -> str:
    who = "seat %s" % _short(seat)
    if not isinstance(action, dict):
        return "%s: unreadable move %s" % (who, _short(action))
    parts = []
    why = action.get("why")
    if not isinstance(why, dict):
        why = {}

    def because(part: str) -> str:
        word = why.get(part)
        return " (%s)" % word if isinstance(word, str) and word in WHY.get(part, ()) else ""

    bids = action.get("bids") or {}
    if isinstance(bids, dict):
        bb = []
        for k, v in bids.items():
            if isinstance(v, int) and not isinstance(v, bool) and v > 0:
                bb.append("%s on sheet %s" % (v, k))
        parts.append("bids " + ", ".join(bb) if bb else "bids nothing" + because("bids"))
    conv = action.get("convert") or 0
    if isinstance(conv, int) and not isinstance(conv, bool) and conv > 0:
        parts.insert(0, "converts %d garnet%s to tokens" % (conv, "" if conv == 1 else "s"))
    sp = action.get("splash")
    parts.append("splashes " + _space_words(sp) if sp is not None else "does not splash" + because("splash"))
    ex = action.get("extra")
    if ex is not None:
        cost = EDITIONS.get(getattr(state, "config", {}).get("edition", ""), {}).get("extra_cost")
        parts.append("extra splash %s%s" % (_space_words(ex), " for %d garnets" % cost if cost else ""))
    return "%s %s" % (who, "; ".join(parts))


def determinize(state: State, seat: int | None, rng: Any) -> State:
    """The state with every hidden part resampled from ``rng``, as ``seat`` may know it.

    The only hidden part of a Painting Game state is a round's moves already applied for
    other seats while the table applies the revealed moves one by one (a seat sees that
    they moved, never what): each is replaced by a legal move drawn from ``rng``
    (``legal_actions``).  Everything else is public.  Between steps no move is pending,
    and the state is returned as it is."""
    if state.phase != "play" or all(m is None or s == seat for s, m in enumerate(state.moves)):
        return state
    moves = list(state.moves)
    for s, m in enumerate(state.moves):
        if m is not None and s != seat:
            free = replace(state, moves=tuple(None if i == s else x for i, x in enumerate(moves)))
            options = legal_actions(free, s)
            moves[s] = Checked(_check(free, s, options[rng.below(len(options))]))
    return replace(state, moves=tuple(moves))
