"""Registry of games.  Each game lives in its own package below this one.

A ``Registry`` is built from Game objects (subclasses of core.engine.Game, so
every optional hook is there with its default) and looks them up by their
wire name (``info.name``, the genesis ``game`` string)::

    reg = Registry([game_a, game_b])
    reg.get("name")      # the Game, or UnknownGame (a ConfigError) naming the known games
    reg.names()          # wire names, in listing order (info.listing, then name)
    for game in reg: ... # every game, in the same order

The default registry is discovered, never listed: every subpackage of this
package that exposes ``GAME`` is a game (``default()``, cached).  The
module-level ``get`` and ``names`` use it, so this module itself can be passed
wherever a registry is expected (``core.table.Table.start(genesis, core.games)``).
Tests build their own registries (e.g. with a toy game).
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from typing import Iterable, Iterator

from ..engine import ConfigError, Game

__all__ = ["Registry", "UnknownGame", "default", "get", "names"]


class UnknownGame(ConfigError):
    pass


class Registry:
    """Games by wire name; immutable once built."""

    def __init__(self, games: Iterable[Game]) -> None:
        by_name: dict[str, Game] = {}
        for g in games:
            if not isinstance(g, Game):
                raise TypeError("%r is not a core.engine.Game (the base class holds every hook's default)" % (g,))
            name = g.info.name
            if name in by_name and by_name[name] is not g:
                raise ValueError("two games named %r in one registry" % name)
            by_name[name] = g
        self._games = dict(sorted(by_name.items(), key=lambda kv: (kv[1].info.listing, kv[0])))

    def get(self, name: str) -> Game:
        if not isinstance(name, str) or name not in self._games:
            raise UnknownGame("unknown game %r (known: %s)" % (name, ", ".join(self._games) or "none"))
        return self._games[name]

    def names(self) -> list[str]:
        return list(self._games)

    def __iter__(self) -> Iterator[Game]:
        return iter(list(self._games.values()))

    def __len__(self) -> int:
        return len(self._games)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._games

    def __repr__(self) -> str:
        return "Registry(%s)" % ", ".join(self._games)


@lru_cache(maxsize=None)
def default() -> Registry:
    """Every game below this package: each subpackage exposing ``GAME`` (import errors propagate)."""
    found = []
    for mod in pkgutil.iter_modules(__path__):
        if not mod.ispkg or mod.name.startswith("_"):
            continue
        pkg = importlib.import_module("%s.%s" % (__name__, mod.name))
        game = getattr(pkg, "GAME", None)
        if game is not None:
            found.append(game)
    return Registry(found)


def names() -> list[str]:
    return default().names()


def get(name: str) -> Game:
    return default().get(name)
