"""Registry of games.  Each game lives in its own package below this one."""

from __future__ import annotations

from ..engine import ConfigError, Game


class UnknownGame(ConfigError):
    pass


def _load() -> dict[str, Game]:
    from .painting import GAME as painting

    return {painting.info.name: painting}


def names() -> list[str]:
    return sorted(_load())


def get(name: str) -> Game:
    games = _load()
    if not isinstance(name, str) or name not in games:
        raise UnknownGame("unknown game %r (known: %s)" % (name, ", ".join(sorted(games))))
    return games[name]
