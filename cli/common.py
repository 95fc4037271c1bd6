"""What the offline (cli/main.py) and live (cli/live.py) commands share.

Nothing here names a game or an option: games, their options, editions and
bot levels all come from the registry (core.games) and each game's info.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Sequence

import core.games as registry
from core.engine import ConfigError

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2
EXIT_PIPE = 141   # like a process killed by SIGPIPE: the reader of our output closed the pipe early
EXIT_INTERRUPTED = 130   # like Ctrl-C: the player left a game before its end (easel resume continues it)

__all__ = [
    "EXIT_OK",
    "EXIT_INVALID",
    "EXIT_USAGE",
    "EXIT_PIPE",
    "EXIT_INTERRUPTED",
    "UsageError",
    "need_terminal",
    "isatty",
    "jsonable",
    "parse_hostport",
    "read_file",
    "registry",
    "default_game_name",
    "game_or_exit",
    "parse_option_value",
    "parse_options",
    "table_options",
    "configure_or_exit",
    "default_level",
    "check_level",
    "all_levels",
    "UNSAFE_SEED_ALERT",
    "check_seed",
    "easel_version",
]


class UsageError(Exception):
    pass


def easel_version() -> str:
    """The installed package's version (easel --version, the export's footer)."""
    try:
        from importlib.metadata import PackageNotFoundError, version

        return version("easel")
    except (ImportError, PackageNotFoundError):
        return "unknown (not installed)"


def need_terminal() -> None:
    import sys

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("the game UI needs a terminal (for a headless game use: easel demo, or easel bot)")


def isatty(stream) -> bool:
    """Is ``stream`` a terminal (False for anything that cannot say)?"""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def jsonable(obj: Any) -> Any:
    """Canonical values -> JSON values (bytes as hex)."""
    if isinstance(obj, bytes):
        return obj.hex()
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(x) for x in obj]
    return obj


def parse_hostport(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError("expected HOST:PORT, got %r" % text)
    return host.strip("[]"), int(port)


def read_file(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise UsageError("cannot read %s: %s" % (path, exc.strerror)) from None


# ----------------------------------------------------------------------------- games, options, bot levels
def default_game_name() -> str:
    """The game ``play``/``host``/``demo`` open without ``--game``: the registry's first (in listing order)."""
    names = registry.names()
    if not names:
        raise UsageError("no games are installed")
    return names[0]


def game_or_exit(name: str | None):
    try:
        return registry.get(default_game_name() if name is None else name)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


_INT = re.compile(r"[+-]?\d+\Z")
_TRUE = {"true", "yes", "on"}
_FALSE = {"false", "no", "off"}


def parse_option_value(text: str) -> Any:
    """``--option`` values: an integer -> int; true/yes/on, false/no/off -> bool; anything else -> str."""
    t = text.strip()
    if _INT.match(t):
        return int(t)
    if t.lower() in _TRUE:
        return True
    if t.lower() in _FALSE:
        return False
    return text


def parse_options(pairs: Sequence[str] | None) -> dict:
    """``["key=value", ...]`` (repeated ``--option``) -> ``{key: value}``; the last of a repeated key wins."""
    out: dict = {}
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UsageError("--option wants KEY=VALUE, got %r" % pair)
        out[key] = parse_option_value(value)
    return out


def table_options(args) -> dict:
    """The options a table is opened with: ``--option`` pairs, and ``--edition`` (a shorthand for option edition)."""
    opts = parse_options(getattr(args, "option", None))
    edition = getattr(args, "edition", None)
    if edition is not None:
        opts["edition"] = edition
    return opts


def configure_or_exit(game, options: dict, players: int) -> dict:
    """``game.configure`` with its refusal as one usage line."""
    try:
        return game.configure(options, players)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def default_level(game) -> str:
    """The bot level used without ``--level``: the game's second listed level if it lists two or more, else its first.

    Games list their levels from the weakest (random) up, so this is the
    first level above random play without being the slowest (search) one.
    """
    levels = list(game.bots)
    if not levels:
        raise UsageError("%s has no bots" % game.info.title)
    return levels[1] if len(levels) >= 2 else levels[0]


def check_level(game, level: str | None) -> str:
    """``--level`` for ``game`` (None: its default level), or a usage error naming the known levels."""
    if level is None:
        return default_level(game)
    if level not in game.bots:
        raise UsageError("unknown bot level %r for %s (known: %s)" % (level, game.info.name, ", ".join(game.bots)))
    return level


def level_about(factory) -> str:
    """What a bot level does, in one line: its ``summary``, else the first line of its docstring."""
    text = getattr(factory, "summary", None) or (getattr(factory, "__doc__", None) or "").strip().split("\n")[0]
    return " ".join(str(text).split()) or "-"


def all_levels() -> list[str]:
    """Every bot level some installed game has (for ``easel bot`` before it knows its table's game)."""
    seen: dict = {}
    for name in registry.names():
        for level in registry.get(name).bots:
            seen[level] = True
    return list(seen)


# ----------------------------------------------------------------------------- --seed
UNSAFE_SEED_ALERT = ("UNSAFE SEED: this seat's salts and random contributions come from --seed; "
                     "anyone who knows it can compute every sealed move (tests and demos only)")


def check_seed(args) -> bool:
    """``--seed`` on host/bot/resume: refused unless ``--unsafe-seed`` is given too.

    A seed makes a seat's salts and seed contributions a function of a text,
    so whoever knows (or guesses) the text can open every sealed move before
    its reveal.  Returns True when an accepted seed is in use (the UI then
    shows it as unsafe).
    """
    seed = getattr(args, "seed", None)
    if seed is None:
        return False
    if not getattr(args, "unsafe_seed", False):
        raise UsageError("--seed makes every sealed move computable by anyone who knows it; it is for demos and tests "
                         "(easel demo). Add --unsafe-seed to use it anyway")
    return True


# ----------------------------------------------------------------------------- patiences set by tests
def env_patience(var: str, defaults: tuple[float, ...]) -> tuple[float, ...]:
    """``defaults`` (seconds: how long this process waits for others at most, nothing it spends on them),
    or ``$var`` as as many comma-separated seconds, increasing, 0 < each <= 3600 (tests set a patience
    shorter instead of waiting it out: README "Tests"); anything else keeps the defaults, with a warning."""
    import logging
    import math
    import os

    text = os.environ.get(var, "").strip()
    if not text:
        return defaults
    try:
        values = tuple(float(x) for x in text.split(","))
    except ValueError:
        values = ()
    if (len(values) == len(defaults) and all(math.isfinite(v) and 0 < v <= 3600 for v in values)
            and all(a < b for a, b in zip(values, values[1:]))):
        return values
    logging.getLogger("easel.cli").warning(
        "%s=%r is not %d increasing number(s) of seconds in (0, 3600]: using %s", var, text, len(defaults),
        ",".join("%g" % d for d in defaults))
    return defaults


def leaves(group: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups; ``subgroup`` cannot say this, as it tests the groups too."""
    if isinstance(group, BaseExceptionGroup):
        return [leaf for e in group.exceptions for leaf in leaves(e)]
    return [group]
