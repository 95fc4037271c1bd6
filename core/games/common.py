"""What the games' own modules share (pure): the helpers more than one game wrote alike.

Not a game (the registry takes only subpackages) and naming none: a game imports from here,
never the other way round.

* ``short(x)``: a value for an error message, ``repr`` cut to 40 characters, safe on a hostile
  ``__repr__``.
* ``asked(state, seat, action, not_a_map)``: the checks every action starts with.
* ``option_map(options)``: a game's options as given to ``configure`` (None: none), a map or
  ``ConfigError``.
* ``seed_bytes(seed, size=None)``: the setup seed as ``bytes`` (a ``bytearray`` or
  ``memoryview`` copied), else ``ConfigError``.
* ``entropy_from(rng)``: 32 bytes from an ``Rng``, a chance step's entropy in local play.
* ``play_locally(...)``: a whole game played locally by bots (each game's ``play_game``).
"""

from __future__ import annotations

import itertools
from typing import Any, Callable, Mapping, Sequence

from ..engine import ConfigError, IllegalAction
from ..rng import Rng

__all__ = ["short", "asked", "option_map", "seed_bytes", "entropy_from", "play_locally"]


def short(x: Any) -> str:
    try:
        s = repr(x)
    except Exception:  # pragma: no cover - hostile __repr__
        s = "<%s>" % type(x).__name__
    return s if len(s) <= 40 else s[:37] + "..."


def asked(state: Any, seat: Any, action: Any, not_a_map: str) -> None:
    """The checks every action starts with, ``IllegalAction`` if one fails: the game goes on
    (``state.phase``), the seat is at the table (``state.players``), the action is a map (else
    ``not_a_map % short(action)``)."""
    if state.phase == "over":
        raise IllegalAction("the game is over")
    if type(seat) is not int or not 0 <= seat < state.players:
        raise IllegalAction("there is no seat %s at this table" % short(seat))
    if not isinstance(action, dict):
        raise IllegalAction(not_a_map % short(action))


def option_map(options: Any) -> Mapping[str, Any]:
    """``options`` as a map (None: the empty one), or ``ConfigError``."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ConfigError("options must be a map of option name -> value")
    return options


def seed_bytes(seed: Any, size: int | None = None) -> bytes:
    """``seed`` as bytes (of ``size`` bytes when given), or ``ConfigError`` saying what it must be."""
    if isinstance(seed, (bytearray, memoryview)):
        seed = bytes(seed)
    if size is None:
        if not isinstance(seed, bytes):
            raise ConfigError("seed must be bytes")
    elif not isinstance(seed, bytes) or len(seed) != size:
        raise ConfigError("seed must be %d bytes" % size)
    return seed


def entropy_from(rng: Rng) -> bytes:
    return b"".join(rng.u64().to_bytes(8, "big") for _ in range(4))


def play_locally(
    rules: Any,
    name: str,
    config: Mapping[str, Any],
    players: int,
    seed: bytes,
    bots_by_seat: Sequence[Any] | Mapping[int, Any],
    *,
    bot_rng: Callable[[Any, int, int], Rng],
    max_steps: int | None,
    view: Callable[[Any, int], Any] | None = None,
    check: Callable[[Any, int, Any], Any] | None = None,
    apply: Callable[[Any, int, Any], Any] | None = None,
) -> tuple[Any, dict]:
    """Play a whole game locally with ``rules`` (a rules module: ``configure``, ``setup``, ``turn``,
    ``chance``, ``result``); every bot action goes through ``check``.

    Chance steps get entropy from ``Rng(seed, name + "/play/chance")``; the bot of seat s
    deciding at step k (k counts the steps from 0) gets ``bot_rng(state, s, k)``.  In a
    simultaneous step every seat chooses from the same state, then the actions are applied in
    seat order (as the table does).  ``view``, ``check`` and ``apply`` default to the rules
    module's (``view(state, seat)``); ``max_steps`` None plays until the game is over.
    """
    view = view or rules.view
    check = check or rules.check
    apply = apply or rules.apply
    config = rules.configure(config, players)
    state = rules.setup(config, players, seed)
    chance_rng = Rng(seed, name + "/play/chance")
    for k in itertools.count() if max_steps is None else range(max_steps):
        t = rules.turn(state)
        if t.kind == "over":
            return state, rules.result(state)
        if t.kind == "chance":
            state = rules.chance(state, entropy_from(chance_rng))
            continue
        actions = []
        for s in t.seats:
            raw = bots_by_seat[s].choose(view(state, s), s, bot_rng(state, s, k))
            actions.append(check(state, s, raw))
        for s, a in zip(t.seats, actions):
            state = apply(state, s, a)
    raise RuntimeError("game did not end within %d steps" % max_steps)
