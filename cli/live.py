"""The live commands (play, host, join, bot, resume, again, watch, demo): each one's checks, then its room.

cli/main.py parses the command line and, for a command that needs the network, calls ``dispatch``
(after listing the LAN's tables for join/watch without an address: that needs none of this code).
``dispatch`` types what argparse parsed once (cli/options.py ``LiveArgs``) and runs the command's
function below: its arguments checked in order, each refusal one line (exit 2) before anything
starts, then the room that does the work:

| room | what |
| --- | --- |
| `hosting.py` | a table's lobby and its seat 0 (host, play, a rematch's host), its lines and adverts |
| `joining.py` | reaching a lobby and playing a seat there (join, bot, a rematch's other seats) |
| `resuming.py` | a game continued from its directory (resume) |
| `rematch.py` | again, its no, bot --again, and a or n at game over (``then_again``) |
| `watching.py` | a spectator (watch) |
| `demo.py` | a headless game of bot processes (demo) |
| `runner.py` | our seat played to its end (``run_node``), the screen kept up to date, the last words |
| `bots.py` | our own bot processes: started, recorded, watched, restarted, stopped |
| `children.py` | child easel processes: command line, environment, ports, stopping them |
| `home.py` | this home's key, the player's name, a game's directory |
| `hangup.py` | the terminal closing |

Importing this module imports every room, so that the zygote forked before trio runs
(cli/zygote.py, ``start_zygote``) holds all that a bot runs.
"""

from __future__ import annotations

import sys
from typing import Callable

import trio

from p2p.store import StoreError

from . import zygote
from .bots import read_bots_file
from .common import (
    EXIT_INVALID,
    EXIT_OK,
    UsageError,
    all_levels,
    check_seed,
    isatty,
    need_terminal,
    parse_hostport,
)
from .demo import demo
from .hangup import catch_hangups, run
from .home import check_name, player_name, read_relay
from .hosting import host_main
from .internet import check_internet, invitation, is_invitation, routed
from .joining import join_main
from .options import LiveArgs, check_bind, check_host_args, check_internet_timeout, check_timeout, parse_fellows, resolve_table
from .rematch import again_args, again_main, bot_main, decline_main, then_again
from .resuming import check_resume, resume_main
from .runner import ui_factory_for
from .watching import watch_main, watch_targets


def dispatch(parsed) -> int:
    """Run the live command argparse parsed (``parsed.cmd``); its exit status."""
    args = LiveArgs.of(parsed)
    command = COMMANDS.get(args.cmd)
    if command is None:
        raise UsageError("unknown command %r" % args.cmd)
    if args.cmd in ("play", "host", "resume", "again", "join"):
        catch_hangups()       # a closed terminal is the person quitting (cli/hangup.py)
    try:
        return command(args)
    except StoreError as exc:
        print("easel: %s" % exc, file=sys.stderr)
        return EXIT_INVALID


def _send_at_once(args: LiveArgs) -> bool | None:
    return True if args.send_at_once else None       # None: EASEL_SEND_AT_ONCE decides


def play(args: LiveArgs) -> int:
    resolve_table(args)
    check_host_args(args)
    need_terminal()
    start_zygote(args.entry, person=True, game=args.game)
    args.name = player_name(args.name, interactive=True)
    make = ui_factory_for(send_at_once=_send_at_once(args))
    return then_again(run(host_main, play_args(args), make), make)


def play_args(args: LiveArgs) -> LiveArgs:
    """easel play is easel host with every other seat one of our bots, on loopback, unadvertised and quiet."""
    return LiveArgs(
        cmd="play", game=args.game, players=args.players, bots=args.players - 1, port=0, options=args.options,
        level=args.level, timeout=args.timeout, bind="127.0.0.1", no_advertise=True, quiet=True, name=args.name,
        no_spectators=args.no_spectators,
    )


def host(args: LiveArgs) -> int:
    resolve_table(args)
    check_host_args(args)
    unsafe = check_seed(args)
    if args.internet or args.relay:
        args.relay = check_internet(args.relay)
        args.internet = True
        check_internet_timeout(args.timeout)
        args.no_advertise = True       # its lobby is reached through the relay, not on the LAN
    if not args.auto:
        need_terminal()
    start_zygote(args.entry, person=not args.auto, bots=args.bots > 0, game=args.game, internet=bool(args.internet))
    args.name = player_name(args.name, interactive=not args.auto and isatty(sys.stdin))
    make = None if args.auto else ui_factory_for(unsafe=unsafe, send_at_once=_send_at_once(args))
    if args.internet:
        return then_again(run(lambda: routed(args.relay, host_main, args, make)), make)
    return then_again(run(host_main, args, make), make)


def demo_command(args: LiveArgs) -> int:
    resolve_table(args)
    check_timeout(args.timeout)
    return demo(args)


def bot(args: LiveArgs) -> int:
    check_seed(args)
    inv = invitation(args.join) if is_invitation(args.join) else None
    if inv is None:
        parse_hostport(args.join)
        if args.bind is not None:
            check_bind(args.bind)
    parse_fellows(args.fellows)
    if args.level is not None and args.level not in all_levels():
        raise UsageError("unknown bot level %r (known: %s)" % (args.level, ", ".join(all_levels())))
    check_name(args.name)
    if inv is not None:      # --bind is the LAN's: beyond it our libp2p node listens where it reaches the relay
        args.bind = None
        return trio.run(lambda: routed(inv.relay, bot_main, args, lobby_port=inv.lobby_port))
    return trio.run(bot_main, args)


def join(args: LiveArgs) -> int:
    if is_invitation(args.address):
        inv = invitation(args.address)
        need_terminal()
        name = player_name(args.name, interactive=True)
        make = ui_factory_for(send_at_once=_send_at_once(args))
        return then_again(run(lambda: routed(inv.relay, join_main, inv.peer, inv.lobby_port, None, seed=None, name=name,
                                                  ui_factory=make, spectators=not args.no_spectators,
                                                  lobby_port=inv.lobby_port)), make)
    if args.address:
        parse_hostport(args.address)
    if not find_table(args):
        return EXIT_OK
    if args.address or args.pick is not None:
        need_terminal()
    expect_fp = None
    if not args.address:
        ad = args.picked
        host, port, expect_fp = ad.host, ad.port, ad.fingerprint     # the host's key is checked (TLS)
    else:
        host, port = parse_hostport(args.address)
    name = player_name(args.name, interactive=True)
    make = ui_factory_for(send_at_once=_send_at_once(args))
    return then_again(run(lambda: join_main(host, port, None, seed=None, name=name, ui_factory=make,
                                                 spectators=not args.no_spectators, expect_fp=expect_fp)), make)


def resume(args: LiveArgs) -> int:
    unsafe = check_seed(args)
    parse_fellows(args.fellows)
    _, d, _, _ = check_resume(args)
    _check_game_relay(args, d)
    if not args.level:
        need_terminal()
    start_zygote(args.entry, person=not args.level, bots=bool(read_bots_file(d)), internet=bool(args.relay or read_relay(d)))
    make = ui_factory_for(unsafe=unsafe, send_at_once=_send_at_once(args))
    return then_again(run(resume_main, args, make), make)


def _check_game_relay(args: LiveArgs, d) -> None:
    """resume, again of a game beyond the LAN: its relay (``--relay``, else the one kept with it) and the engine checked
    in words before anything starts."""
    relay = args.relay or read_relay(d)
    if relay:
        checked = check_internet(relay)
        if args.relay:
            args.relay = checked


def again(args: LiveArgs) -> int:
    _, d, _, _ = again_args(args)
    _check_game_relay(args, d)
    if args.decline:
        return run(decline_main, args)
    if not args.level:
        need_terminal()
    start_zygote(args.entry, person=not args.level, bots=bool(read_bots_file(d)), internet=bool(args.relay or read_relay(d)))
    make = None if args.level else ui_factory_for(send_at_once=_send_at_once(args))
    return then_again(run(again_main, args, make), make)


def watch(args: LiveArgs) -> int:
    if not find_table(args):
        return EXIT_OK
    if not args.target:
        args.target = "%s:%d" % (args.picked.host, args.picked.port)
    if is_invitation(args.target):
        inv = invitation(args.target)
        if not args.json:
            need_terminal()
        return trio.run(lambda: routed(inv.relay, watch_main, args, None if args.json else ui_factory_for("Easel - watching"),
                                       lobby_port=inv.play_port))
    watch_targets(args.target)
    if not 0 <= args.watch_patience <= 3600:
        raise UsageError("--patience must be 0 to 3600 seconds, not %g" % args.watch_patience)
    if not args.json:
        need_terminal()
    return trio.run(watch_main, args, None if args.json else ui_factory_for("Easel - watching"))


COMMANDS = {"play": play, "host": host, "demo": demo_command, "bot": bot, "join": join, "resume": resume,
            "again": again, "watch": watch}


def find_table(args: LiveArgs) -> bool:
    """join/watch: ``--pick`` checked; without an address, the table picked from the LAN's list (cli/tables.py;
    cli/main.py lists before it imports this module) in ``args.picked``. False: none was picked."""
    from .tables import check_pick, pick_from_lan

    check_pick(args)
    if args.picked is None and not (args.address if args.cmd == "join" else args.target):
        args.picked = pick_from_lan(args)
        return args.picked is not None
    return True


def start_zygote(entry: Callable[[list[str]], int] | None, person: bool, bots: bool = True, game: str | None = None,
                 internet: bool = False) -> None:
    """Before trio runs: fork the zygote our bots will be forked from (cli/zygote.py), each running
    ``entry(argv)`` (cli/main.py's ``main``, handed down in ``LiveArgs.entry``; None: no zygote), if this
    command may start ``bots`` (easel play, host --bots, or the resume or rematch of a game our bots played), with
    everything a bot and our own screen (``person``: a person plays our seat) import already imported —
    the ``game``'s bots too, and what its ``precompute`` hook says a table computes before its set-up
    (the same for every table), so that no bot does it again at once, all together, on the table's
    critical path."""
    if not bots or entry is None:
        return
    if person:
        from . import shell  # noqa: F401 - our screen needs it: loaded here, before the bots start, not once the table is full
    if game is not None:
        try:
            from .common import registry

            g = registry.get(game)
            dict(g.bots)           # imports the game's bots module
            for call in g.precompute(None, None):   # what every table's first steps compute alike
                call()
        except Exception:          # a help only: never a reason not to start
            pass
    if internet:                   # each bot of an internet table runs its own libp2p node (no thread is started)
        from p2p.internet import preload

        preload()
    zygote.start(entry)
