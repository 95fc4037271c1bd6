"""What a live command was given, in one typed place, and the checks of it that need no network.

``LiveArgs.of(namespace)`` turns what argparse parsed (cli/main.py) into a ``LiveArgs`` once, in
``cli/live.py``'s dispatch: every live command (play, host, join, bot, resume, again, watch, demo)
reads its options as attributes of it, and an option a command does not take has its default here
(no probing for it). The commands that start others (a rematch's host, ``easel play``'s table, a
bot's rematch) build a ``LiveArgs`` themselves.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass, field, fields
from typing import Any, Callable

from .common import UsageError, check_level, configure_or_exit, game_or_exit, table_options

# the rematch's two waits (protocol.md §9.9, §13.1), the defaults of LiveArgs.rematch_wait and .patience
REMATCH_WAIT = 120.0     # s the rematch lobby waits for old seats that neither come back nor say no
AGAIN_PATIENCE = 120.0   # s a seat keeps knocking at the old host's door for the rematch lobby


@dataclass
class LiveArgs:
    """Every option of the live commands (the help of cli/main.py's parser says what each means)."""

    cmd: str = ""
    # a table (play, host, demo)
    game: str | None = None
    players: int | None = None
    edition: str | None = None
    option: list = field(default_factory=list)       # --option KEY=VALUE, as typed
    options: dict = field(default_factory=dict)      # the game's options, once resolve_table checked them
    level: str | None = None                         # the bots' level (resume, again, bot: our seat's)
    timeout: float = 300.0
    # host
    bots: int = 0
    port: int = 0
    auto: str | None = None            # our own seat played by a bot of this level
    bind: str | None = None
    no_advertise: bool = False
    internet: bool = False             # beyond the LAN (cli/internet.py): through ...
    relay: str | None = None           # ... this relay
    quiet: bool = False                # easel play: no lobby lines (its seats are all ours)
    previous: bytes | None = None      # a rematch's host: the game before (§9.9) ...
    order: list | None = None          # ... its seats, in order
    names: list | None = None          # ... and their names
    rematch_wait: float = REMATCH_WAIT
    # our seat
    name: str | None = None
    seed: str | None = None
    unsafe_seed: bool = False
    no_spectators: bool = False
    send_at_once: bool = False
    # join, watch
    address: str | None = None
    target: str | None = None
    pick: int | None = None
    wait: float = 3.0
    picked: Any = None                 # the table picked from the LAN's list (cli/tables.py)
    watch_patience: float = 60.0       # watch --patience: how long a spectator knocks at the seats once its seat went
                                       # (p2p.limits.SPECTATOR_PATIENCE, the parser's default)
    json: bool = False
    log: str | None = None
    # bot
    join: str | None = None
    again: bool = False
    fellows: str | None = None         # a host's own bot: the keys of all that host's bots (parse_fellows)
    # resume, again
    dir: str | None = None
    decline: bool = False
    patience: float = AGAIN_PATIENCE   # how long a rematch's seat knocks at the old host's door
    bot: bool = False                  # again: we are a bot (said to the rematch lobby)
    where: list | None = None          # again: where a finished rematch's directory is put (bot --again)
    # demo
    out: str | None = None
    # what a bot forked from our zygote runs (cli/zygote.py): cli/main.py's ``main(argv)``, handed down by it
    # (None: no zygote, bots are started as processes of their own)
    entry: Callable[[list[str]], int] | None = None

    @classmethod
    def of(cls, parsed) -> "LiveArgs":
        """The options argparse parsed (an ``argparse.Namespace``), typed: those the command does not take keep
        their defaults; what argparse keeps for itself (``verbose``, the subparsers) is left out."""
        given = vars(parsed)
        return cls(**{f.name: given[f.name] for f in fields(cls) if f.name in given})


def resolve_table(args: LiveArgs) -> None:
    """play/host/demo: fill in the game, its player count, options and bot level, and check them with the game.

    Every refusal is a UsageError (one line, exit 2) before anything starts.
    """
    game = game_or_exit(args.game)
    args.game = game.info.name
    if args.players is None:
        args.players = game.info.default_players
    args.options = table_options(args)
    configure_or_exit(game, args.options, args.players)
    args.level = check_level(game, args.level)
    if args.auto is not None:
        args.auto = check_level(game, args.auto)


# (protocol.md §9.10 "Time") the shortest --timeout of a table beyond the LAN: a real link may stall 5-20 s, and a
# seat that lost its stream then dials again through the relay (INTERNET_DIAL_TIMEOUT, 20 s) before the repair
# (§9.6) brings it up to date; a shorter time-out would vote out seats whose link only stalled
INTERNET_MIN_TIMEOUT = 60.0


def check_timeout(timeout: float) -> None:
    if not 1 <= timeout <= 86400:
        raise UsageError("--timeout must be 1..86400 seconds, not %g" % timeout)


def check_internet_timeout(timeout: float) -> None:
    if timeout < INTERNET_MIN_TIMEOUT:
        raise UsageError("--timeout at a table beyond the LAN must be at least %d seconds, not %g: a link through home "
                         "routers may stall for 20 s and then take 20 s to dial again" % (INTERNET_MIN_TIMEOUT, timeout))


def check_host_args(args: LiveArgs) -> None:
    """host/play: the numbers on the command line, checked before anything starts (and before the terminal check)."""
    check_timeout(args.timeout)
    if not 0 <= args.bots < args.players:
        raise UsageError("--bots must be between 0 and %d (players-1), not %d" % (args.players - 1, args.bots))
    if not 0 <= args.port <= 65535:
        raise UsageError("--port must be 0 (any free port) to 65535, not %d" % args.port)


def check_bind(addr: str) -> None:
    try:
        socket.inet_pton(socket.AF_INET6 if ":" in addr else socket.AF_INET, addr)
    except (OSError, ValueError):
        raise UsageError("--bind takes an IP address, not %r" % addr) from None


def parse_fellows(text: str | None) -> set[bytes] | None:
    """``--fellows HEX,HEX,...``: the keys of every bot a host started (given to each of them by that host)."""
    if not text:
        return None
    try:
        keys = {bytes.fromhex(k) for k in text.split(",")}
    except ValueError:
        raise UsageError("--fellows takes seat keys in hex, separated by commas") from None
    if any(len(k) != 32 for k in keys):
        raise UsageError("--fellows takes 32-byte seat keys in hex, separated by commas")
    return keys
