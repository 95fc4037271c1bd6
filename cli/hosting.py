"""Hosting a table (easel host, easel play, a rematch's seat 0): the lobby until the table is sealed, then our seat.

``host_main`` opens the lobby (p2p.lobby.HostedTable behind TLS), starts our bots into it
(cli/bots.py), says on standard error how the seats fill (``seating_progress``, ``_say_seats``),
advertises the table on the LAN (p2p.discovery: with its free seats while it fills, in play once
sealed, where spectators come in), and once sealed plays our seat (cli/runner.py).
"""

from __future__ import annotations

import functools
import io
import logging
import os
import shutil
import sys

import trio

from core.engine import ConfigError
from core.events import name_problem
from p2p import tls
from p2p.identity import load_or_create
from p2p.lobby import HostedTable, LobbyError, describe_seats
from p2p.node import GameNode

from .bots import LocalBot, finish_bots, first_death, others_at_table, record_bots, spawn_bots, stop_bots, \
    stop_bots_unless_sealed, watch_bots
from .children import free_port
from .common import UsageError, isatty, registry
from .home import identity_or_exit
from .options import LiveArgs, check_host_args
from .runner import SeatEnd, bot_decider, report, run_node, watching

log = logging.getLogger("easel.cli")


async def host_main(args: LiveArgs, ui_factory=None) -> int:
    """Open a table; ``args`` went through ``resolve_table`` (game, players, options and level are set)."""
    identity = identity_or_exit()
    bind = args.bind or "0.0.0.0"
    game_name = args.game
    options = args.options
    play_port = free_port(bind if bind != "0.0.0.0" else "")
    check_host_args(args)
    args.timeout = int(args.timeout)  # whole seconds: it is signed into the genesis
    try:
        # beyond the LAN (cli/internet.py) every seat is where its libp2p peer id is: ours too
        play_host = tls.route().peer if tls.route() is not None else "" if bind == "0.0.0.0" else bind
        ht = HostedTable(identity, game_name, args.players, options, play_port, play_host,
                         timeout=args.timeout, games=registry, name=args.name or "host",
                         about={"bot": args.auto} if args.auto else {},
                         previous=args.previous, order=args.order, names=args.names,
                         spectators=not args.no_spectators)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    bots: list[LocalBot] = []
    failure = None
    async with trio.open_nursery() as n:
        lobby_port = await n.start(tls.serve, args.port, tls.server_context(identity, None), ht.handle, bind)
        invite = None
        if tls.route() is not None:
            tls.route().keep_relayed.add(lobby_port)      # a lobby's streams stay where they are
            invite = tls.route().invitation(lobby_port, play_port)
            print("invite: %s" % invite, file=sys.stderr, flush=True)
        if invite is not None:
            # beyond the LAN each of our bots is a peer of its own (protocol.md §9.10): its own libp2p node,
            # reserved at our relay, joining by the invitation like anyone else
            bots = spawn_bots(args.bots, None, args.level, args.seed, ht, join=invite)
        else:
            # our bots dial the lobby on this machine and listen where we do (every interface by default):
            # every seat must reach them, from any machine (protocol.md §9.3)
            bots = spawn_bots(args.bots, ("127.0.0.1" if bind == "0.0.0.0" else bind, lobby_port), args.level, args.seed, ht,
                              bind=bind)
        n.start_soon(stop_bots_unless_sealed, ht, bots)
        if ht.order is None and bots and len(bots) == args.players - 1 and args.quiet and args.no_advertise:
            # easel play (every other seat one of our bots, nobody else can come): bot 1 sits at seat 1,
            # bot 2 at seat 2, ..., not in the order their processes happen to start (seen at 6 players:
            # "Winner: seat 2" was bot 4)
            ht.order = [identity.public] + [load_or_create(b.home).public for b in bots]
        if not args.quiet:
            print(open_words(game_name, lobby_port, identity.fingerprint, ht.free, invite is not None), file=sys.stderr)
        if ht.previous is not None:
            # a rematch (§9.9): the old seats that neither come back nor say no are waited for this long
            wait = args.rematch_wait
            print("easel: rematch lobby open on port %d: waiting up to %d s for the old seats (one that says no "
                  "is not waited for; then it starts with who is here)" % (lobby_port, wait), file=sys.stderr)
            n.start_soon(ht.start_with_who_is_here, wait)
        if not args.no_advertise:
            n.start_soon(_advertise, ht, lobby_port)
        if not args.quiet:
            n.start_soon(_say_seats, ht)

        async def bots_alive():
            # a bot that dies before it took its seat would leave the table waiting for ever: say so, with its log
            nonlocal failure
            failure = await first_death(bots)
            n.cancel_scope.cancel()

        if bots:
            n.start_soon(bots_alive)
        if bots or ht.previous is not None:
            n.start_soon(seating_progress, ht, args.players, sys.stderr)
        try:
            genesis, roster = await ht.seal()
        except (LobbyError, trio.TooSlowError, ConnectionError, OSError) as exc:
            failure = "could not seal the table: %s" % exc
        n.cancel_scope.cancel()
    if failure is not None:
        stop_bots(bots)
        raise UsageError(failure)
    if bind == "0.0.0.0":
        # our bots are recorded with an empty host part (every joiner fills in where it found us):
        # from here that is this machine (our dial-back after a resume goes there)
        roster = dict(roster, addrs=[[a[0] or ("127.0.0.1" if i else ""), a[1]] for i, a in enumerate(roster["addrs"])])
    node = None
    if bots:
        record_bots(genesis, bots)
    in_play = not args.no_advertise and not args.no_spectators
    watch = watching(functools.partial(_advertise_in_play, ht) if in_play else None,
                     functools.partial(watch_bots, bots=bots) if bots else None)
    try:
        if args.auto:
            decide = bot_decider(game_name, args.auto, args.seed)
            node = await run_node(identity, genesis, roster, decide, timeout=args.timeout, seed=args.seed, bind=bind, watch=watch,
                                  spectators=not args.no_spectators)
            return report(node)
        ui = ui_factory(node_seat=0) if ui_factory else None
        decide = ui.decide if ui else None
        end = SeatEnd()
        node = await run_node(identity, genesis, roster, decide, timeout=args.timeout, seed=args.seed, ui=ui, bind=bind, watch=watch,
                              spectators=not args.no_spectators, end=end)
        if others_at_table(node, bots):
            end.bots_playing = bots
        return report(node, interactive=ui is not None, end=end)
    finally:
        finish_bots(node, bots)


def open_words(game_name: str, port: int, fingerprint: str, free: int, internet: bool = False) -> str:
    """The line saying the table is open. Beyond the LAN a port means nothing to anyone (the friends join by the
    invite line): seen between two homes, "open on port 52579" under the invite line."""
    seats = "%d seat%s free" % (free, "" if free == 1 else "s")
    if internet:
        return "easel: %s table open (host %s); %s: share the invite line" % (game_name, fingerprint, seats)
    return "easel: %s table open on port %d (host %s); %s" % (game_name, port, fingerprint, seats)


# ----------------------------------------------------------------------------- while the seats fill
def seating_text(free: int, players: int, elapsed: float, rematch: bool = False, starting: int = 0) -> str:
    """The line shown while the table fills (bots take seconds to start on a loaded machine).

    ``free``: seats nobody holds (for people to join); ``starting``: seats held for our own bots
    that have not sat down yet. Only those make "the bots are starting"; a table whose bots sat down
    waits for people."""
    if rematch:
        return "easel: rematch: %d of %d old seats back (%d s)%s" % (
            players - free, players, int(elapsed), " - waiting for the others to press a (or n)" if free else " - dealing in")
    if starting:
        why = " - the bots are starting" if starting > 1 else " - a bot is starting"
    elif free:
        why = " - waiting for %d more %s to join (easel join)" % (free, "person" if free == 1 else "people")
    else:
        why = " - dealing in"
    return "easel: starting the table: %d of %d seats taken (%d s)%s" % (
        players - free - starting, players, int(elapsed), why)


def columns_of(out) -> int:
    """The width of the terminal ``out`` writes to (COLUMNS, else 80, when it cannot say)."""
    try:
        return os.get_terminal_size(out.fileno()).columns
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return shutil.get_terminal_size((80, 24)).columns


def fit_line(text: str, cols: int) -> str:
    """A line rewritten in place (``\r``) must stay on one line: past the terminal's width it wraps and every
    rewrite scrolls a new copy (seen at 100 columns: "... 1 more person to join (easel join" thirty times).
    The hint in brackets goes first, then the end is cut with "…"."""
    room = max(10, cols - 1)
    if len(text) > room and text.endswith(")") and " (" in text:
        text = text[:text.rindex(" (")]
    return text if len(text) <= room else text[:room - 1] + "…"


async def seating_progress(ht, players: int, out, interval: float = 0.5) -> None:
    """Until cancelled (the table is sealed): one line, rewritten in place on a terminal, saying how
    many seats are taken, so the screen is never blank while bots start (a pipe gets it once)."""
    start = trio.current_time()
    rematch = getattr(ht, "previous", None) is not None
    tty = isatty(out)
    try:
        if not tty:
            print(seating_text(ht.free, players, 0, rematch, getattr(ht, "starting", 0)), file=out)
            return
        while True:
            out.write("\r" + fit_line(seating_text(ht.free, players, trio.current_time() - start, rematch,
                                                   getattr(ht, "starting", 0)), columns_of(out)) + "\x1b[K")
            out.flush()
            await trio.sleep(interval)
    finally:
        if tty:
            out.write("\r\x1b[K")
            out.flush()


async def _say_seats(ht: HostedTable) -> None:
    """``easel host`` before the table is full: one line on standard error each time the seats change."""
    last = None
    # on a terminal, the table-filling line (seating_progress) is rewritten in place: clear it first
    clear = "\r\x1b[K" if isatty(sys.stderr) else ""
    while True:
        text = describe_seats(ht.shown(), 0)
        if text != last and ht.ended is None:
            last = text
            print("%seasel: seats: %s" % (clear, text), file=sys.stderr)
        if ht.full.is_set():      # the seats as they sealed (a rematch: who said no) said once more
            return
        await ht.changed.wait()


# ----------------------------------------------------------------------------- the table on the LAN (zeroconf)
async def _advertise(ht: HostedTable, port: int) -> None:
    try:
        from p2p.discovery import advertise

        async with advertise(game=ht.game, free=ht.free, seats=ht.players, fingerprint=ht.identity.fingerprint, table=ht.table.hex(), port=port,
                             host_name=ht.name) as adv:

            last = ht.free
            while True:
                await trio.sleep(0.5)
                if ht.free != last:
                    last = ht.free
                    await adv.update(free=last)
    except Exception as exc:  # discovery is a convenience: never fatal
        log.warning("zeroconf advertising failed: %s", exc)
        await trio.sleep_forever()


async def _advertise_in_play(ht: HostedTable, node: GameNode) -> None:
    """Once the table is sealed, while the game is on: advertise it with no free seat at the host's play
    port, where spectators come in (protocol.md §10; easel watch lists it)."""
    await advertise_play(node, ht.game, ht.players, ht.identity.fingerprint, ht.table.hex(), ht.name)


async def advertise_play(node: GameNode, game: str, seats: int, fingerprint: str, table: str, name: str,
                         addresses: list | None = None) -> None:
    """Advertise ``node``'s table as in play (TXT play=1) at its play port until its game is over."""
    try:
        from p2p.discovery import advertise

        async with advertise(game=game, free=0, seats=seats, fingerprint=fingerprint, table=table, port=node.port,
                             play=True, host_name=name, addresses=addresses):
            await node.done.wait()
    except Exception as exc:  # discovery is a convenience: never fatal
        log.warning("zeroconf advertising failed: %s", exc)


def resumed_in_play(genesis, seat: int, bind: str, spectators: bool):
    """What a resumed seat advertises (protocol.md §10): the host's seat (seat 0, the one that advertised
    its table in play before) admitting spectators, listening beyond loopback, advertises it again;
    the task that does it, or None."""
    doc = genesis.doc
    if seat != 0 or not spectators or doc.get("spectators", True) is False or bind.startswith("127.") \
            or bind in ("localhost", "::1"):
        return None
    from core.hashing import fingerprint

    names = doc.get("names")
    name = names[0] if isinstance(names, list) and names and isinstance(names[0], str) and not name_problem(names[0]) else ""
    table = bytes(doc.get("table") or b"").hex()[:32] or genesis.game_id.hex()[:16]
    addresses = None if bind in ("", "0.0.0.0") else [bind]

    async def advertise_again(node: GameNode) -> None:
        await advertise_play(node, doc["game"], len(doc["seats"]), fingerprint(doc["seats"][0]), table, name, addresses)

    return advertise_again
