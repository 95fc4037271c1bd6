"""The runner: our seat played to the end (run_node), what the screen is told meanwhile, and the words at the end.

Every live command that plays a seat (host, play, join, bot, resume, again) comes here once its
table is sealed: ``run_node`` opens the game's files, runs the p2p.node.GameNode with its
``decide`` (a person's screen, or ``bot_decider``), keeps the screen up to date (``ui_update``,
``silence_lines``), and ``report`` says how it ended (one JSON line for bots and demos, a sentence
for a person). The terminal closing while it runs is the person quitting (cli/hangup.py).
"""

from __future__ import annotations

import functools
import json
import logging
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import trio

from core.events import seat_names
from core.hashing import dhash
from core.rng import Rng
from p2p.identity import data_dir
from p2p.node import Faults, GameNode

from .bots import BOTS_FILE
from .common import EXIT_INTERRUPTED, EXIT_INVALID, EXIT_OK, UNSAFE_SEED_ALERT, check_level, game_or_exit, jsonable, registry
from .hangup import HangUp, detach_terminal
from .home import identity_or_exit, open_store
from .narrate import Narrator, narrate

log = logging.getLogger("easel.cli")


class DemoRand:
    """Deterministic 'randomness' for ``--seed`` runs (demos and tests only, never real play)."""

    def __init__(self, seed: str, who: bytes) -> None:
        self.base = dhash("demo", seed, who)
        self.n = 0

    def __call__(self, k: int) -> bytes:
        out = b""
        while len(out) < k:
            out += dhash("demo", self.base, self.n)
            self.n += 1
        return out[:k]


def bot_decider(game_name: str, level: str | None, seed: str | None):
    """A ``decide`` for GameNode that asks the game's bot ``level`` (None: the game's default level)."""
    game = game_or_exit(game_name)
    bot = game.bots[check_level(game, level)]()
    base = seed.encode() if seed is not None else os.urandom(32)

    async def decide(d):
        rng = Rng(dhash("bot", base, d.seat, d.phase), "bot")
        # think in a worker thread so the node keeps relaying and placing events meanwhile
        return await trio.to_thread.run_sync(bot.choose, d.view, d.seat, rng)

    decide.takes_decision = True     # GameNode hands it a p2p.node.Decision, not the Peer
    return decide


@dataclass
class SeatEnd:
    """How our seat's run ended, beyond its table: what ``report`` says besides the result."""

    told_leaving: bool | None = None   # we quit mid-game: the others were told (False: not all answered; None: nobody to tell)
    alone: list | None = None          # a resumed seat that no other seat answered gave up: the lines why
    bots_playing: list = field(default_factory=list)   # our bots (cli/bots.py LocalBot), left at a table with others


def watching(*tasks):
    """run_node's ``watch`` made of several tasks (None ones left out): each ``task(node)`` runs beside
    the game until the game is over; None if there is none."""
    tasks = [t for t in tasks if t is not None]
    if not tasks:
        return None

    async def watch(node: GameNode) -> None:
        async with trio.open_nursery() as n:
            for task in tasks:
                n.start_soon(task, node)
            await node.done.wait()
            n.cancel_scope.cancel()

    return watch


async def run_node(identity, genesis, roster, decide, *, timeout: float, seed: str | None, ui=None, bind: str | None = None,
                   watch=None, notes: tuple | list = (), dial_back: bool = False, spectators: bool = True,
                   end: SeatEnd | None = None) -> GameNode:
    """Play our seat until the game is over.  ``watch(node)``: an extra task (e.g. watching local bots);
    ``notes``: lines shown to the player as alerts from the start; ``end``: filled in with how it ended."""
    HangUp.arm()          # from here on, the terminal closing is the person quitting (as q)
    try:
        return await _run_node(identity, genesis, roster, decide, timeout=timeout, seed=seed, ui=ui, bind=bind, watch=watch,
                               notes=notes, dial_back=dial_back, spectators=spectators,
                               end=end if end is not None else SeatEnd())
    finally:
        HangUp.disarm()


async def _run_node(identity, genesis, roster, decide, *, timeout: float, seed: str | None, ui, bind: str | None,
                    watch, notes, dial_back: bool, spectators: bool, end: SeatEnd) -> GameNode:
    store = open_store(genesis, roster)
    try:
        seat = genesis.doc["seats"].index(identity.public)
        # demo randomness also depends on how many secrets we already hold, so a resumed peer never reuses a salt
        rand = DemoRand(seed, seat.to_bytes(1, "big") + len(store.secrets).to_bytes(4, "big")) if seed is not None else os.urandom
        node = GameNode(
            identity,
            genesis,
            roster,
            store,
            decide,
            timeout=timeout,
            faults=Faults.from_env(),
            rand=rand,
            bind_host=bind,
            on_change=(lambda n: ui_update(ui, n)) if ui else None,
            games=registry,
            dial_back=dial_back,
            spectators=spectators,
        )
        if seed is not None:
            log.warning("seat %d: %s", seat, UNSAFE_SEED_ALERT)
            node.alerts.append(UNSAFE_SEED_ALERT)
        node.alerts.extend(notes)
        if ui is None:
            async with trio.open_nursery() as nursery:
                scope = nursery.cancel_scope

                async def leave_then_stop() -> None:
                    await leave_table(node, end)     # a signed word, as with a screen (protocol.md §9.7)
                    scope.cancel()

                # without a screen, quitting (the terminal closing, a host's bot left alone) says so first
                node.quit_table = functools.partial(nursery.start_soon, leave_then_stop)
                HangUp.ready(node.quit_table)
                if watch is not None:
                    nursery.start_soon(watch, node)
                narrator = Narrator(seat_names(genesis.doc))      # talk lines and whom it waits for (cli/narrate.py)
                nursery.start_soon(narrate, node, narrator)
                await node.run()
                narrator.said(node.peer.talk_lines())            # the last lines, said as the game ended
                nursery.cancel_scope.cancel()
        else:
            async with trio.open_nursery() as nursery:
                await nursery.start(node.run)
                if hasattr(ui, "on_say"):
                    ui.on_say = talker(node, trio.lowlevel.current_trio_token())
                node.quit_table = functools.partial(leave_seat, ui, nursery.cancel_scope)
                HangUp.ready(node.quit_table)
                if watch is not None:
                    nursery.start_soon(watch, node)
                ui_update(ui, node)

                async def watch_ui():
                    try:
                        await ui.run()          # until the person quits (q, Ctrl-C; or leave_seat asked the screen)
                    except* OSError:
                        detach_terminal()       # the terminal went away under the screen: the person left
                    finally:            # also when the screen died with its terminal
                        await leave_table(node, end)      # quitting mid-game is a signed word (protocol.md §9.7)
                    nursery.cancel_scope.cancel()

                nursery.start_soon(watch_ui)
                await node.done.wait()
                ui.game_dir = store.dir      # what a rematch (the UI's a key) starts from
                ui.update(node.peer.table, node.alerts, GAME_OVER_STATUS, waiting=[])
                # keep the UI open until the player quits
                await trio.sleep_forever()
    finally:
        store.close()
    return node


def talker(node: GameNode, token):
    """The screen's ``on_say`` (UI thread): the line handed to the node on its trio loop (protocol.md §9.11);
    "" once said, else why not."""
    def say(text: str) -> str:
        try:
            return trio.from_thread.run_sync(node.say, text, trio_token=token)
        except trio.RunFinishedError:
            return "the table has closed: nobody hears you now"
    return say


def leave_seat(ui, scope: trio.CancelScope) -> None:
    """The one way our seat leaves a table before we are done with it, whoever asks: the terminal
    closing (SIGHUP, cli/hangup.py), a host's bot with nobody left (``leave_when_alone``). With a
    screen it asks the screen to quit, exactly as q or Ctrl-C does (its ``run`` returns and run_node goes
    on from there, as after q); without one it ends run_node the same way: ``scope`` is run_node's."""
    if ui is not None and not getattr(ui, "closed", False):
        ui.exit()
    else:
        scope.cancel()


GAME_OVER_STATUS = "a plays again, n says no, q quits"   # the status once the game is over (peers that leave do not matter now)


async def leave_table(node: GameNode, end: SeatEnd) -> None:
    """The person quit (q, Ctrl-C, the terminal closing take this path) before the game ended: tell the
    other seats with a signed leaving note, so the table moves on at once without waiting out each step
    (protocol.md §9.7); bounded by LEAVE_FLUSH."""
    if not node.peer.table.over and not node.done.is_set():
        anyone = bool(node.conns)
        told = await node.leave()
        if anyone:
            end.told_leaving = told


def relayed_words(node, names) -> str:
    """Beyond the LAN (protocol.md §9.10): the seats we reach only through the relay, by name (a direct path is
    the usual case and says nothing): " (via relay: Bo)", short enough for the title row at 120 columns (seen: "(Ann,
    bot 1 through the …" cut); "" on the LAN or when every path is direct."""
    relayed = []
    for key, conn in list(getattr(node, "conns", {}).items()):
        transport = getattr(getattr(getattr(conn, "stream", None), "stream", None), "transport_stream", None)
        if getattr(transport, "relayed", False) is True and key in node.keys:
            relayed.append(node.keys.index(key))
    if not relayed:
        return ""
    return " (via relay: %s)" % ", ".join(names[s] for s in sorted(relayed))


def ui_update(ui, node: GameNode) -> None:
    t = node.peer.table
    doc = node.genesis.doc
    silence = silence_lines(seat_names(doc), dict(node.silent_since), node.seat, float(doc.get("timeout", 60)), t.over,
                            _short_id(node.store.dir) if (node.silent_since or node.peer.left_seats()) and not t.over else "",
                            left=node.peer.left_seats(), needed=needed_step(node.peer))
    watching = ", %d watching" % node.watching if node.watching else ""
    status = GAME_OVER_STATUS if t.over else "%d/%d peers connected%s%s" % (
        len(node.conns) + 1, len(node.keys), relayed_words(node, seat_names(doc)), watching)
    slow = [] if t.over else getattr(node, "slow_lines", list)()     # "Bo's link is slow (2.1 s)" (p2p/linkwatch.py)
    if slow:
        status += "; " + "; ".join(slow)
    # the line of a seat still gone by its word says it with the time: its alert is not repeated
    said = {node.peer.left_words(s) for s in node.peer.left_seats()}
    ui.update(t, [a for a in node.alerts if a not in said] + silence, status,
              waiting=list(node.peer.waiting()), cut=node.peer.cut_moves, left=node.peer.left_steps,
              talk=node.peer.talk_lines())


@functools.lru_cache(maxsize=16)
def _short_id(game_dir: Path) -> str:
    """The game's short id (what easel resume takes), worked out once per game."""
    from .history import short_id

    return short_id(game_dir)


def needed_step(peer) -> tuple | None:
    """(the step's label, its seats, how long the table waits at it) when the current step is one the game
    cannot pass without each of its seats (Turn.needs, p2p/timeouts.py NEEDED_PATIENCE), else None."""
    st = peer.table.step
    if st is None or not st.needs:
        return None
    return st.label, tuple(st.seats), peer.step_timeout(st)


def silence_lines(names, silent: dict, me: int, timeout: float, over: bool, game_dir: str, left=(),
                  needed: tuple | None = None, person: bool = True) -> list[str]:
    """What every screen says while seats are not connected to us: who, since when, what the table
    will do about it and what the player can do. ``silent``: seat -> time.time() it went silent;
    ``left``: the seats that said they left (a signed note, protocol.md §9.7): their turns pass at once;
    ``needed``: ``needed_step``'s (label, seats, patience) when the game cannot pass the current step
    without each of its seats: the table waits for a silent one by name, that long, then ends abandoned;
    ``person``: a person at a screen (else a headless seat, cli/narrate.py: no "you can wait, or quit")."""
    gone = sorted(s for s in set(silent) | set(left) if s != me)
    if over or not gone:
        return []
    n = len(names)
    lines = left_lines(names, silent, [s for s in gone if s in left], moves_on=2 * len(gone) <= n)
    quiet = [s for s in gone if s not in left]
    if quiet:
        who = ", ".join("%s (seat %d) since %s" % (names[s], s, time.strftime("%H:%M:%S", time.localtime(silent[s])))
                        for s in quiet)
        # with what they can do: the line the top of a short middle pane shows with the two below
        lines.append("not connected: %s; they can come back with easel resume" % who)
    them = "them" if len(gone) > 1 else "them" if names[gone[0]].startswith("seat ") else names[gone[0]]
    waited = [s for s in quiet if needed is not None and s in needed[1]]
    if waited and 2 * len(gone) <= n:
        lines.append("the game cannot pass %s without %s: the table waits for %s up to %d s (%d s per step "
                     "otherwise); then the game ends abandoned, nobody ranked, with the standings the log already shows" % (
                         needed[0], " and ".join("%s (seat %d)" % (names[s], s) for s in waited),
                         "them" if len(waited) > 1 else names[waited[0]], needed[2], timeout))
    elif 2 * len(gone) <= n:
        if quiet:
            them = "them" if len(quiet) > 1 or names[quiet[0]].startswith("seat ") else names[quiet[0]]
            lines.append("the table times %s out of every step not made within %d s (empty move) and goes on"
                         % (them, timeout))
    else:
        lines.append("%d of %d seats are gone: the table can never time them out (too few voters), it waits for %s"
                     % (len(gone), n, them))
    # each line fits a 100-column screen beside its "!!  " (a game's short id: 8 characters or a few more)
    if not quiet:
        # a leave is for good (protocol.md §9.7): their easel resume only follows the game to its end. By name:
        # the event log shows its newest line first, and a "they" at the top of it named nobody
        lines.append("%s left for good: easel resume on %s only follows the game now" % (
            " and ".join(names[s] for s in gone), "their machine" if len(gone) == 1 else "their machines"))
    # what the person can do, when the table waits for someone (not when the only seats gone left by their
    # word and the table goes on without them: then nothing is waited for)
    if person and (quiet or 2 * len(gone) > n):
        lines.append("you can wait, or quit (q) and come back later with: easel resume %s" % game_dir)
    return lines


def left_lines(names, silent: dict, left, moves_on: bool = True) -> list[str]:
    """One line per seat that said it left (protocol.md §9.7): the table does not wait for it (unless more
    than half the table is gone: ``moves_on`` False, and the next line says why it waits)."""
    out = []
    for s in left:
        at = silent.get(s)
        when = " at %s" % time.strftime("%H:%M:%S", time.localtime(at)) if at is not None else ""
        out.append("%s (seat %d) left the table%s%s" % (names[s], s, when, ": their turns pass at once (the empty move); "
                                                        "the table goes on without them" if moves_on else ""))
    return out


def report(node: GameNode, interactive: bool = False, end: SeatEnd | None = None) -> int:
    """Bots and demos print one JSON line; a person gets a sentence."""
    t = node.peer.table
    end = end if end is not None else SeatEnd()
    if node.failed:
        print("easel: %s" % node.failed, file=sys.stderr)
        return EXIT_INVALID
    if interactive:
        if t.over:
            print(game_over_line(node.store.dir))
            return EXIT_OK
        from .history import resume_words

        if getattr(node.peer, "left_for_good", bool)():     # (a stand-in peer of a test may lack it)
            # our leave is signed: it is for good (protocol.md §9.7)
            print("easel: you left the table for good: the others play on without you (your hand set aside, your "
                  "turns pass); %s follows the game to its end" % resume_words(node.store.dir))
        else:
            print("easel: you left an unfinished game: %s continues it" % resume_words(node.store.dir))
        if (node.store.dir / BOTS_FILE).exists():
            print("easel: (and restarts its bots that stopped)")
        if end.told_leaving is not None:
            print("easel: the other seats were told you left"
                  if end.told_leaving else "easel: the other seats were told you left (not every one answered in time)")
        playing = [b for b in end.bots_playing if b.proc is not None and b.proc.poll() is None]
        if playing:
            print("easel: your bots play on at the table without you: %s" % ", ".join(
                "%s (seat %s)" % (b.name, b.seat) for b in playing))
        return EXIT_INTERRUPTED     # the help's "130 interrupted": the game did not end
    print(json.dumps(jsonable({"seat": node.seat, "head": t.head, "over": t.over, "result": t.result(), "log": str(node.store.dir / "log")}), sort_keys=True))
    return EXIT_OK if t.over else EXIT_INVALID


def game_over_line(d: Path) -> str:
    """The exit line of a finished game: the commands that show, check and replay it, by a name short enough to
    type (``last`` while it is this home's newest game, else its short id), never a 64-hex path."""
    from .history import newest_game, short_id

    try:
        newest = newest_game()
        name = "last" if newest is not None and newest.resolve() == Path(d).resolve() else short_id(d)
    except OSError:
        name = short_id(d)
    return "easel: game over: easel replay %s, easel audit %s; easel again %s plays it again" % (name, name, name)


# ----------------------------------------------------------------------------- the person's screen
def log_to_file(path: Path) -> None:
    """While the full-screen UI runs, log lines would garble it: send them to a file."""
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    path.parent.mkdir(parents=True, exist_ok=True)
    h = logging.FileHandler(path)
    h.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    root.addHandler(h)


UNSAFE_TITLE = "Easel - UNSAFE SEED: sealed moves are not secret"


def ui_factory_for(title: str = "Easel", unsafe: bool = False, send_at_once: bool | None = None):
    """The game UI's factory; ``unsafe`` (an accepted ``--seed``) puts UNSAFE SEED in its title;
    ``send_at_once`` (--send-at-once; None: EASEL_SEND_AT_ONCE) sends a complete move as soon as it is typed."""
    if unsafe:
        title = UNSAFE_TITLE

    def make(node_seat: int):
        from .shell import GameUI

        log_to_file(data_dir() / "easel.log")
        if unsafe:
            log.warning("UNSAFE SEED in use: %s", UNSAFE_SEED_ALERT)
        # the player's identity, as a short fingerprint, stays in the title bar; the game's title follows the table
        make.last = GameUI(node_seat, title=title, key=identity_or_exit().fingerprint, send_at_once=send_at_once)
        make.last.stderr_to = data_dir() / "easel.log"   # a stray line on the terminal garbles the screen
        return make.last

    make.last = None           # the last UI made: its ``again`` asks the runner for a rematch (then_again)
    return make
