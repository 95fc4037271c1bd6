"""Resuming a game (easel resume): our seat back at its table from its files, our bots with it.

``resume_main`` reads the game's directory (``game_dir_of``: also what easel again reads),
restarts the bots of ours that stopped (cli/bots.py), listens where the table knows us
(``resume_bind``), and plays our seat again (cli/runner.py); a resumed seat that no other
seat answers says so and gives up (``alone_watch``, protocol.md §9.7).
"""

from __future__ import annotations

import functools
import logging
import socket
import sys
from pathlib import Path

import trio

from core.events import seat_names
from p2p.internet import looks_like_peer
from p2p.node import GameNode, load_roster

from .bots import finish_bots, leave_when_alone, others_at_table, restart_bots, watch_bots
from .common import UsageError, check_level, env_patience, game_or_exit
from .home import identity_or_exit
from .internet import routed_game
from .hosting import resumed_in_play
from .options import LiveArgs, parse_fellows
from .runner import SeatEnd, bot_decider, report, run_node, watching

log = logging.getLogger("easel.cli")


def game_dir_of(args: LiveArgs, over: bool | None = None):
    """(identity, directory, genesis, roster) of ``args.dir``, or a usage error: a game's directory, its log,
    a game's short id, or ``last`` (this home's newest game, finished if ``over``, unfinished if not ``over``)."""
    from .history import resolve_game_dir

    identity = identity_or_exit()
    d = resolve_game_dir(args.dir, over)
    try:
        genesis, roster = load_roster(d)
    except (OSError, ValueError, KeyError) as exc:
        raise UsageError("%s is not a game directory: %s" % (d, exc)) from None
    return identity, d, genesis, roster


def check_resume(args: LiveArgs):
    """``easel resume``'s arguments: (identity, directory, genesis, roster), or a usage error."""
    identity, d, genesis, roster = game_dir_of(args, over=False)
    if identity.public not in genesis.doc["seats"]:
        raise UsageError("this identity holds no seat in that game")
    if args.level:
        check_level(game_or_exit(genesis.doc["game"]), args.level)
    return identity, d, genesis, roster


async def resume_main(args: LiveArgs, ui_factory=None) -> int:
    """Our seat back at its table; a game beyond the LAN through the relay it was played with (or ``--relay``)."""
    _, d, _, _ = check_resume(args)
    return await routed_game(d, args.relay, _resume_main, args, ui_factory)


async def _resume_main(args: LiveArgs, ui_factory=None) -> int:
    identity, d, genesis, roster = check_resume(args)
    seat = genesis.doc["seats"].index(identity.public)
    # the seats our own bots played (easel play): they were our child processes, so they come back with us
    bots, notes = restart_bots(d, genesis, args.seed)
    for line in notes:
        print("easel: %s" % line, file=sys.stderr)
    node = None
    try:
        ui = None if args.level else (ui_factory(node_seat=seat) if ui_factory else None)
        if ui is not None and hasattr(ui, "step_open_hint"):
            try:        # the step open at the crash began about when the log last grew: the countdown goes on
                ui.step_open_hint((d / "log").stat().st_mtime)
            except OSError:
                pass
        decide = bot_decider(genesis.doc["game"], args.level, args.seed) if args.level else ui.decide
        bind = resume_bind(roster["addrs"][seat][0])
        # the host's seat advertises its table in play again, as before it left (protocol.md §10)
        advert = resumed_in_play(genesis, seat, bind, spectators=not args.no_spectators)
        fellows = parse_fellows(args.fellows)      # one of a host's bots, restarted by its host's resume
        end = SeatEnd()
        say, give_up = alone_patience()
        watch = watching(advert, functools.partial(leave_when_alone, fellows=fellows) if fellows else None,
                         functools.partial(watch_bots, bots=bots) if bots else None,
                         functools.partial(alone_watch, ui=ui, game_dir=d, end=end, say=say, give_up=give_up))
        node = await run_node(identity, genesis, roster, decide, timeout=float(genesis.doc.get("timeout", 60)), seed=args.seed,
                              ui=ui, bind=bind, watch=watch, notes=notes, dial_back=True,
                              spectators=not args.no_spectators, end=end)
        for line in end.alone or ():
            print("easel: %s" % line, file=sys.stderr)
        if others_at_table(node, bots):
            end.bots_playing = bots
        return report(node, interactive=ui is not None, end=end)
    finally:
        finish_bots(node, bots)


ALONE_SAY = 5.0        # s a resumed seat waits for any other seat to connect before it says where it stands
ALONE_GIVE_UP = 30.0   # s after which a resumed seat that no seat ever answered exits (protocol.md §13.1)
ALONE_ENV = "EASEL_ALONE_PATIENCE"   # "SAY,GIVE_UP" in seconds, for tests (README "Tests"): only this seat's patience


def alone_patience() -> tuple[float, float]:
    """(say, give up) for ``alone_watch``: ALONE_SAY and ALONE_GIVE_UP, or ``$EASEL_ALONE_PATIENCE`` as
    "SAY,GIVE_UP" (0 < SAY < GIVE_UP <= 3600), which tests set to wait seconds, not half a minute."""
    say, give_up = env_patience(ALONE_ENV, (ALONE_SAY, ALONE_GIVE_UP))
    return say, give_up


def alone_lines(node: GameNode, game_dir: Path, waited: float, give_up: float | None, again: bool = True) -> list[str]:
    """What a resumed seat that no other seat answered says, in four lines short enough for a 100-column
    terminal after "easel: ": whom it waits for, that they may have finished, how to see the rest, and when it
    gives up (``give_up``: None once it has) with the command that tries again (``again``: else the exit line
    says it); the game by its short id (what watch, replay and resume take), never a path."""
    from .history import short_id
    from .screens import plain_label

    names = seat_names(node.genesis.doc)
    others = [s for s in range(len(node.keys)) if s != node.seat]
    game = short_id(game_dir)
    step = node.peer.waiting()
    t = node.peer.table
    what = ""
    if t.step is not None and [s for s in step if s != node.seat]:
        what = " (%s)" % (plain_label(t.step.label) or "phase %d" % t.step.phase)
    n = len(node.peer.log_entries)
    return [
        "no other seat has answered for %d s: alone at this table, waiting for %s%s"
        % (waited, ", ".join(names[s] for s in others), what),
        "they may have finished and left, or be away; your log stops unfinished after %d entr%s"
        % (n, "y" if n == 1 else "ies"),
        "to see the rest: easel watch %s while one plays, or easel replay %s on theirs"
        % (game, game),
        "this seat gives up in %d s unless someone answers; easel resume %s tries again" % (give_up, game)
        if give_up is not None else "gave up: your log stays valid and unfinished" + (
            "; easel resume %s tries again" % game if again else ""),
    ]


async def alone_watch(node: GameNode, ui, game_dir: Path, end: SeatEnd, say: float = ALONE_SAY,
                      give_up: float = ALONE_GIVE_UP) -> None:
    """A resumed seat that no other seat connects to (they finished and left, or are all away) says so
    after ``say`` seconds and exits after ``give_up`` (``end.alone``: why, in lines; both from
    ``alone_patience``): the person's quit path with a screen, the end of the node without one. Any
    connection to another seat ends the watch."""
    with trio.move_on_after(say):
        await node.met.wait()
        return
    lines = alone_lines(node, game_dir, say, give_up - say)
    log.warning(" ".join(lines))
    if ui is None:
        for line in lines:
            print("easel: %s" % line, file=sys.stderr, flush=True)
    else:
        # the screen says who is gone and the resume command already (runner.silence_lines): what is new here
        from .history import short_id

        node.alert("alone here: they may have finished and left; easel watch %s shows the rest while one plays"
                   % short_id(game_dir))
        if hasattr(ui, "tell"):
            ui.tell("No other seat has answered for %d s: you are alone at this table. This seat gives up in "
                    "%d s unless someone answers." % (say, give_up - say))
    with trio.move_on_after(give_up - say):
        await node.met.wait()
        return
    end.alone = alone_lines(node, game_dir, give_up, None, again=ui is None)   # a screen's exit line says how
    if ui is not None:
        ui.exit()
    else:
        node.done.set()


def resume_bind(addr_host: str) -> str:
    """Where a resumed seat listens: the address the table knows for it, or every interface if this
    machine no longer has that address (it moved to another network or got a new lease)."""
    if addr_host in ("", "0.0.0.0") or looks_like_peer(addr_host):     # a peer id: the route listens (§9.10)
        return "0.0.0.0"
    try:
        family = socket.AF_INET6 if ":" in addr_host else socket.AF_INET
        s = socket.socket(family, socket.SOCK_STREAM)
        try:
            s.bind((addr_host, 0))
        finally:
            s.close()
    except OSError:
        log.warning("this machine no longer has the address %s it had at this table: listening on every interface; "
                    "the other seats reach it when it dials them", addr_host)
        return "0.0.0.0"
    return addr_host

