"""A tiny toy game for the table, protocol, audit and conformance tests.

It is registered only through test registries (``TOY_REGISTRY``, ``ALL_GAMES``),
never in core.games.  It uses every kind of step the table supports:

* round r: a **chance** turn rolls a die for each seat still in (round 1 names
  no seats, i.e. every seat; later rounds name the seats still in, so an
  eliminated seat is never asked for entropy);
* a **sealed simultaneous** turn: each seat still in guesses 1..6;
* a **sequential** turn: the round's leader sets a target 1..6;
* a **simultaneous** turn: each seat still in bets 0..its chips, in the open
  (or sealed, with ``sealed_bets``: then the round ends on a sealed step and the
  next round's chance consumes the beacon it refreshed, with no seed step);
* resolution: a seat whose roll + guess + target is even wins its bet, else
  loses it; a seat with no chips left is out (with ``sudden_death`` any lost
  bet puts it out).  Over after ``rounds`` rounds, or when at most one seat is
  in (no seat at a one-seat table).

Rolls are hidden in views (only the seat's own roll is shown) until the
round resolves; pending guesses are hidden until every guess is in.  (This is
a view property only: the rolls come from the public beacon.)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from core.engine import ConfigError, Game, GameInfo, IllegalAction, OVER, Turn
from core.games import Registry
from core.rng import Rng

__all__ = ["TOY", "ToyGame", "ToyBot", "TOY_REGISTRY", "ALL_GAMES", "State"]

EDITIONS = {"classic": 3, "short": 1}    # edition -> starting chips
OPTIONS = {"edition": "classic", "rounds": 3, "sudden_death": False, "sealed_bets": False}
KEY = {"guess": "guess", "target": "target", "bet": "bet"}

INFO = GameInfo(
    name="toy",
    title="Toy dice (tests only)",
    min_players=1,
    max_players=8,
    default_players=3,
    editions=("classic", "short"),
    information="imperfect",
    simultaneous=True,
    sealed=True,
    chance=True,
    options=dict(OPTIONS),
    option_help={
        "edition": "classic (3 chips each) or short (1 chip each)",
        "rounds": "number of rounds, 1 to 1000 (default 3)",
        "sudden_death": "true: losing any bet puts a seat out (default false)",
        "sealed_bets": "true: the bets are sealed (commit-reveal) too (default false)",
    },
)


@dataclass(frozen=True)
class State:
    config: Mapping[str, Any]
    players: int
    round: int
    stage: str                       # "roll" | "guess" | "target" | "bet" | "over"
    chips: tuple[int, ...]
    alive: tuple[bool, ...]
    rolls: tuple[Any, ...]           # int or None per seat (None: out, or not rolled yet)
    guesses: tuple[Any, ...]
    target: Any
    bets: tuple[Any, ...]
    last: Any = None                 # the last resolved round (public)


def _in(state: State) -> tuple[int, ...]:
    return tuple(s for s in range(state.players) if state.alive[s])


def _leader(state: State) -> int:
    ins = _in(state)
    return ins[(state.round - 1) % len(ins)]


def _int(x: Any) -> bool:
    return type(x) is int


class ToyGame(Game):
    info = INFO

    def __init__(self) -> None:
        self.bots = {"random": ToyBot}

    # ---------------------------------------------------------------- set-up
    def configure(self, options: Mapping[str, Any], players: int) -> dict:
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            raise ConfigError("options must be a map")
        if not _int(players) or not INFO.min_players <= players <= INFO.max_players:
            raise ConfigError("the toy game takes 1 to 8 players, not %r" % (players,))
        config = dict(OPTIONS)
        for k, v in options.items():
            if k not in OPTIONS:
                raise ConfigError("unknown option %r (known: %s)" % (k, ", ".join(sorted(OPTIONS))))
            if k == "edition" and (not isinstance(v, str) or v not in EDITIONS):
                raise ConfigError("unknown edition %r" % (v,))
            if k == "rounds" and (not _int(v) or not 1 <= v <= 1000):
                raise ConfigError("option rounds must be an integer from 1 to 1000, not %r" % (v,))
            if k in ("sudden_death", "sealed_bets") and type(v) is not bool:
                raise ConfigError("option %s must be true or false" % k)
            config[k] = v
        return config

    def setup(self, config: Mapping[str, Any], players: int, seed: bytes) -> State:
        config = self.configure(config, players)
        n = players
        none = (None,) * n
        return State(config, n, 1, "roll", (EDITIONS[config["edition"]],) * n, (True,) * n, none, none, None, none)

    # ---------------------------------------------------------------- turns
    def turn(self, state: State) -> Turn:
        r = "round %d" % state.round
        if state.stage == "over":
            return OVER
        if state.stage == "roll":
            seats = () if all(state.alive) else _in(state)
            return Turn("chance", seats=seats, label=r + ": dice")
        if state.stage == "guess":
            return Turn("simultaneous", _in(state), sealed=True, label=r + ": guesses")
        if state.stage == "target":
            return Turn("sequential", (_leader(state),), label=r + ": target")
        return Turn("simultaneous", _in(state), sealed=state.config["sealed_bets"], label=r + ": bets")

    def _expected(self, state: State, seat: Any) -> bool:
        if not _int(seat) or not 0 <= seat < state.players:
            return False
        if state.stage in ("guess", "bet"):
            done = state.guesses if state.stage == "guess" else state.bets
            return state.alive[seat] and done[seat] is None
        return state.stage == "target" and seat == _leader(state)

    def check(self, state: State, seat: int, action: Any) -> dict:
        if state.stage not in KEY:
            raise IllegalAction("no moves now (%s)" % state.stage)
        if not self._expected(state, seat):
            raise IllegalAction("seat %r is not to move now" % (seat,))
        key = KEY[state.stage]
        if not isinstance(action, dict) or list(action) != [key]:
            raise IllegalAction("a move now is {%r: number}" % key)
        v = action[key]
        hi = state.chips[seat] if key == "bet" else 6
        lo = 0 if key == "bet" else 1
        if not _int(v) or not lo <= v <= hi:
            raise IllegalAction("%s must be a whole number from %d to %d" % (key, lo, hi))
        return {key: v}

    def apply(self, state: State, seat: int, action: Any) -> State:
        action = self.check(state, seat, action)
        if state.stage == "guess":
            g = list(state.guesses)
            g[seat] = action["guess"]
            state = replace(state, guesses=tuple(g))
            if all(g[s] is not None for s in _in(state)):
                state = replace(state, stage="target")
            return state
        if state.stage == "target":
            return replace(state, target=action["target"], stage="bet")
        b = list(state.bets)
        b[seat] = action["bet"]
        state = replace(state, bets=tuple(b))
        if all(b[s] is not None for s in _in(state)):
            return self._resolve(state)
        return state

    def _resolve(self, state: State) -> State:
        chips, alive = list(state.chips), list(state.alive)
        won = {}
        for s in _in(state):
            win = (state.rolls[s] + state.guesses[s] + state.target) % 2 == 0
            won[str(s)] = win
            chips[s] += state.bets[s] if win else -state.bets[s]
            if chips[s] <= 0 or (state.config["sudden_death"] and not win and state.bets[s] > 0):
                alive[s] = False
        last = {
            "round": state.round,
            "rolls": list(state.rolls),
            "guesses": list(state.guesses),
            "target": state.target,
            "bets": list(state.bets),
            "won": won,
        }
        left = sum(alive)
        over = state.round >= state.config["rounds"] or left == 0 or (state.players > 1 and left <= 1)
        none = (None,) * state.players
        return replace(state, chips=tuple(chips), alive=tuple(alive), last=last, round=state.round + (0 if over else 1),
                       stage="over" if over else "roll", rolls=none, guesses=none, target=None, bets=none)

    def chance(self, state: State, entropy: bytes) -> State:
        if state.stage != "roll":
            raise ValueError("the toy game asks for no randomness now")
        rng = Rng(entropy, "toy/roll/%d" % state.round)
        rolls = tuple(rng.between(1, 6) if state.alive[s] else None for s in range(state.players))
        return replace(state, rolls=rolls, stage="guess")

    def default_action(self, state: State, seat: int) -> dict:
        return {KEY.get(state.stage, "bet"): 0 if state.stage == "bet" else 1}

    # ---------------------------------------------------------------- hooks (``problems``: core.engine.Game's default)
    def legal_actions(self, state: State, seat: int, secret: Any = None) -> list:
        if state.stage not in KEY or not self._expected(state, seat):
            return []
        key = KEY[state.stage]
        values = range(state.chips[seat] + 1) if key == "bet" else range(1, 7)
        return [{key: v} for v in values]

    def determinize(self, state: State, seat: int, rng: Rng) -> State:
        """Other seats' rolls and (until all are in) their guesses are hidden: resample them."""
        rolls = tuple(r if (r is None or s == seat) else rng.between(1, 6) for s, r in enumerate(state.rolls))
        guesses = state.guesses
        if not all(guesses[s] is not None for s in _in(state)):
            guesses = tuple(g if (g is None or s == seat) else rng.between(1, 6) for s, g in enumerate(guesses))
        return replace(state, rolls=rolls, guesses=guesses)

    # ---------------------------------------------------------------- views
    def view(self, state: State, seat: int | None, secret: Any = None) -> dict:
        mine = _int(seat) and 0 <= seat < state.players
        all_in = all(state.guesses[s] is not None for s in _in(state))
        v = {
            "game": "toy",
            "seat": seat,
            "players": state.players,
            "round": state.round,
            "rounds": state.config["rounds"],
            "stage": state.stage,
            "label": self.turn(state).label or "game over",
            "chips": list(state.chips),
            "in": list(state.alive),
            "target": state.target,
            "bets": list(state.bets),
            "guessed": [s for s, g in enumerate(state.guesses) if g is not None],
            "guesses": list(state.guesses) if all_in and state.stage in ("target", "bet") else None,
            "my_roll": state.rolls[seat] if mine else None,
            "my_guess": state.guesses[seat] if mine else None,
            "last": state.last,
        }
        res = self.result(state)
        if res is not None:
            v["result"] = res
        return v

    def result(self, state: State) -> dict | None:
        if state.stage != "over":
            return None
        n = state.players
        ranking = sorted(range(n), key=lambda s: (-state.chips[s], s))
        top = max(state.chips)
        return {
            "chips": {str(s): state.chips[s] for s in range(n)},
            "ranking": ranking,
            "winners": [s for s in range(n) if state.chips[s] == top and top > 0],
        }

    def describe(self, state: State, seat: int, action: Any) -> str:
        if not isinstance(action, dict) or len(action) != 1:
            return "seat %r: unreadable move" % (seat,)
        (k, v), = action.items()
        if k == "guess":
            return "seat %r guesses %r" % (seat, v)
        if k == "target":
            return "seat %r sets the target to %r" % (seat, v)
        return "seat %r bets %r" % (seat, v)


class ToyBot:
    """A random legal move from the seat's view alone."""

    def choose(self, view: Mapping[str, Any], seat: int, rng: Rng) -> dict:
        stage = view["stage"]
        if stage == "bet":
            return {"bet": rng.between(0, view["chips"][seat])}
        return {stage: rng.between(1, 6)}


TOY = ToyGame()
TOY_REGISTRY = Registry([TOY])


def all_games() -> Registry:
    """Every registered game plus the toy game."""
    import core.games

    return Registry(list(core.games.default()) + [TOY])


ALL_GAMES = all_games()
