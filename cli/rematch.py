"""The rematch (easel again, a and n at game over, easel bot --again): the same seats play again (protocol.md §9.9).

The old game's seat 0 hosts the rematch lobby on its old play port (cli/hosting.py, with the
old seats, names and options) and restarts its own bots into it; every other seat knocks there
(cli/joining.py) for up to AGAIN_PATIENCE, or says no (``decline_main``). ``then_again`` is what
runs after a game's screen closed on a or n.
"""

from __future__ import annotations

import sys

import trio

from p2p import tls
from p2p.lobby import LobbyError, decline

from .bots import read_bots_file
from .internet import invitation, is_invitation, routed_game
from .common import EXIT_OK, EXIT_USAGE, UsageError, check_level, game_or_exit, parse_hostport, registry
from .home import identity_or_exit, player_name
from .hosting import host_main
from .joining import RETRY_PAUSE, join_main
from .options import AGAIN_PATIENCE, REMATCH_WAIT, LiveArgs, parse_fellows  # noqa: F401 - the rematch's waits, here too
from .resuming import game_dir_of, resume_bind
from .runner import bot_decider



def again_args(args: LiveArgs):
    """``easel again GAME_DIR``: what the rematch needs from the finished game (checked before anything starts)."""
    identity, d, genesis, roster = game_dir_of(args, over=True)
    seats = genesis.doc["seats"]
    if identity.public not in seats:
        raise UsageError("this identity holds no seat in that game")
    try:
        from core.logfile import parse as parse_log

        from core.table import replay

        over = replay(parse_log((d / "log").read_bytes()).entries, registry).over
    except Exception:
        over = False
    if not over:
        from .history import resume_words

        raise UsageError("that game is not over (%s continues it)" % resume_words(d))
    if args.level:
        check_level(game_or_exit(genesis.doc["game"]), args.level)
    return identity, d, genesis, roster


async def again_main(args: LiveArgs, ui_factory=None) -> int:
    """``_again_main`` through the relay an internet game was played with (or ``--relay``), else as on the LAN."""
    _, d, _, _ = again_args(args)
    return await routed_game(d, args.relay, _again_main, args, ui_factory)


async def _again_main(args: LiveArgs, ui_factory=None) -> int:
    """A rematch: the same seats, names, game and options, a new genesis whose ``previous`` is the game before.

    The old game's seat 0 hosts the rematch lobby on its old play port and restarts its own bots into it;
    every other seat dials it there (nobody types an address) and is let in only with its old key."""
    identity, d, genesis, roster = again_args(args)
    doc = genesis.doc
    seats = doc["seats"]
    seat = seats.index(identity.public)
    names = doc.get("names")
    name = names[seat] if isinstance(names, list) else player_name(None, interactive=False)
    if seat == 0:
        records = read_bots_file(d)
        levels = {r["level"] for r in records}
        ns = LiveArgs(
            cmd="host", game=doc["game"], players=len(seats), options=dict(doc["config"]), level=args.level or (levels.pop() if len(levels) == 1 else None),
            auto=args.level, timeout=int(doc.get("timeout", 60)),
            bind=resume_bind(roster["addrs"][0][0]), no_advertise=True, quiet=False, name=name,
            no_spectators=args.no_spectators or doc.get("spectators") is False, bots=len(records), port=int(roster["addrs"][0][1]),
            previous=genesis.game_id, order=list(seats), names=list(names) if isinstance(names, list) else None)
        if ns.level is None:
            ns.level = check_level(game_or_exit(doc["game"]), None)
        return await host_main(ns, None if args.level else ui_factory)
    host, port = roster["addrs"][0]
    ui = None if args.level else ui_factory
    return await join_main(host or "127.0.0.1", int(port), (lambda g: bot_decider(g, args.level, None)) if args.level else None,
                           seed=None, name=name, ui_factory=ui, spectators=not args.no_spectators, previous=genesis.game_id,
                           patience=args.patience, about={"bot": args.level} if args.bot else None, where=args.where)


async def bot_main(args: LiveArgs) -> int:
    """``easel bot --join HOST:PORT``; with ``--again`` it stays for the rematches: at each game over it knocks at the
    old seat 0's rematch lobby (up to AGAIN_PATIENCE) and plays the rematch if one opens, else it exits."""
    if is_invitation(args.join):
        inv = invitation(args.join)
        host, port = inv.peer, inv.lobby_port
    else:
        host, port = parse_hostport(args.join)
    where: list = []
    rc = await join_main(host, port, lambda g: bot_decider(g, args.level, args.seed), seed=args.seed, name=args.name,
                         about={"bot": args.level or "default"}, spectators=not args.no_spectators, where=where,
                         bind=args.bind, fellows=parse_fellows(args.fellows))
    while args.again and rc == EXIT_OK and where:
        d = where.pop()
        ns = LiveArgs(cmd="again", dir=str(d), level=args.level, no_spectators=args.no_spectators, bot=True, where=where,
                      patience=args.patience)
        try:
            _, _, genesis, _ = again_args(ns)
            if genesis.doc["seats"].index(identity_or_exit().public) == 0:
                return rc
            ns.level = check_level(game_or_exit(genesis.doc["game"]), args.level)
            print("easel: bot: waiting up to %d s for a rematch of %s" % (ns.patience, d), file=sys.stderr, flush=True)
            rc = await again_main(ns)
        except UsageError as exc:
            print("easel: bot: no rematch: %s" % exc, file=sys.stderr)
            return EXIT_OK
    return rc


async def decline_main(args: LiveArgs) -> int:
    """``_decline_main``, through the relay of an internet game (as ``again_main``)."""
    _, d, _, _ = again_args(args)
    return await routed_game(d, args.relay, _decline_main, args)


async def _decline_main(args: LiveArgs) -> int:
    """``easel again --decline GAME_DIR`` (and n at game over): tell the old seat 0's rematch lobby that this
    seat will not play again, so it does not wait for us (knocking up to AGAIN_PATIENCE for it to open)."""
    identity, d, genesis, roster = again_args(args)
    seats = genesis.doc["seats"]
    if seats.index(identity.public) == 0:
        print("easel: no rematch: you were seat 0, the rematch's host (the others' easel again gives up in %d s)"
              % AGAIN_PATIENCE)
        return EXIT_OK
    host, port = roster["addrs"][0]
    host, port = host or "127.0.0.1", int(port)
    if tls.route() is not None:      # beyond the LAN: the lobby's stream stays where it came (§9.10)
        tls.route().keep_relayed.add(port)
    patience = args.patience
    print("easel: telling the rematch lobby at %s:%d that you will not play again (up to %d s for it to open; "
          "Ctrl-C stops)" % (host, port, patience), flush=True)
    deadline = trio.current_time() + patience
    while True:
        try:
            with trio.move_on_at(deadline):
                await decline(host, port, identity, genesis.game_id)
                print("easel: done: the rematch goes on without you")
                return EXIT_OK
            print("easel: no rematch lobby opened at %s:%d in %d s: nothing to say no to" % (host, port, patience))
            return EXIT_OK
        except (OSError, LobbyError, tls.TLSError) as exc:
            if isinstance(exc, LobbyError) and str(exc).startswith("host refused"):
                print("easel: %s" % exc, file=sys.stderr)       # the rematch lobby's answer: final
                return EXIT_USAGE
            # nobody listens yet, or the old game still holds that port for a moment: knock again
            if trio.current_time() + RETRY_PAUSE > deadline:
                print("easel: no rematch lobby opened at %s:%d in %d s: nothing to say no to" % (host, port, patience))
                return EXIT_OK
            await trio.sleep(RETRY_PAUSE)


def then_again(rc: int, make, run=None) -> int:
    """After a game's UI closed: while its player pressed ``a`` (again) at game over, do what
    ``easel again GAME_DIR`` does for this seat, in this process and terminal (the old host opens the
    rematch lobby on its old port and restarts its bots; the others find it there); the rematch's own
    game over may ask again; ``n`` (decline) does what ``easel again --decline GAME_DIR`` does. Returns the
    exit code of the last game. ``make``: the UI factory (runner.ui_factory_for; None: no UI); ``run``: hangup.run, trio.run
    that a closed terminal ends (tests: another)."""
    if run is None:
        from .hangup import run
    while True:
        ui = make.last if make is not None else None
        if ui is None or ui.game_dir is None or not (ui.decline or ui.again):
            return rc
        make.last = None
        args = LiveArgs(cmd="again", dir=str(ui.game_dir), decline=ui.decline)
        if not args.decline:
            from .history import short_id

            print("easel: again: a rematch of game %s (as easel again %s)" % (short_id(ui.game_dir), short_id(ui.game_dir)),
                  flush=True)
        try:
            again_args(args)
        except UsageError as exc:
            print("easel: %s" % exc, file=sys.stderr)
            return EXIT_USAGE
        if args.decline:
            run(decline_main, args)
            return rc
        rc = run(again_main, args, make)
