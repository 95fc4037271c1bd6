"""Live commands: play, host, join, bot, resume, demo (the effects live here and in p2p/)."""

from __future__ import annotations

import functools
import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from core.engine import ConfigError
from core.events import clean_name, name_problem, seat_names
from core.hashing import dhash
from core.rng import Rng
from p2p import tls
from p2p.identity import IdentityError, data_dir, load_or_create
from p2p.lobby import HostedTable, LobbyError, decline, describe_seats, join
from p2p.node import Faults, GameNode, load_roster, save_roster
from p2p.store import GameStore, StoreError, describe_os_error, remove_temp_files, write_atomic

from . import zygote
from .common import (
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_OK,
    EXIT_USAGE,
    UNSAFE_SEED_ALERT,
    UsageError,
    all_levels,
    check_level,
    check_seed,
    configure_or_exit,
    game_or_exit,
    jsonable,
    need_terminal,
    parse_hostport,
    registry,
    table_options,
)

log = logging.getLogger("easel.cli")


# ----------------------------------------------------------------------------- child easel processes
# The directory this easel's packages (cli, core, p2p) are imported from.
_CODE_ROOT = Path(__file__).resolve().parent.parent


def _site_dirs() -> set[str]:
    import site

    dirs = list(getattr(site, "getsitepackages", lambda: [])())
    try:
        dirs.append(site.getusersitepackages())
    except AttributeError:
        pass
    return {os.path.normcase(os.path.realpath(d)) for d in dirs}


def easel_command(*args: str) -> list[str]:
    """The command line of a child easel (a bot, a demo peer): ``python -P -m cli ARGS``.

    ``-P`` keeps the current directory off the child's ``sys.path``, so a
    ``cli.py``, ``core.py`` or ``p2p/`` lying in the directory easel was started
    from cannot stand in for easel's own packages. Use it with easel_env()."""
    return [sys.executable, "-P", "-m", "cli", *args]


def easel_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: ours) for a child made by easel_command(): it imports the very
    code this process runs. A source checkout run without installing, or a
    development install, puts its directory first on PYTHONPATH; an ordinary
    install in site-packages needs nothing (the child finds it there)."""
    env = dict(os.environ if env is None else env)
    root = str(_CODE_ROOT)
    if os.path.normcase(os.path.realpath(root)) not in _site_dirs():
        rest = env.get("PYTHONPATH", "")
        env["PYTHONPATH"] = root + (os.pathsep + rest if rest else "")
    return env


def free_ports(n: int, host: str = "127.0.0.1") -> list[int]:
    """``n`` distinct TCP ports free on ``host`` right now (all held open until every one is chosen)."""
    socks, ports = [], []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            socks.append(s)
            s.bind((host, 0))
            ports.append(s.getsockname()[1])
    finally:
        for s in socks:
            s.close()
    return ports


def free_port(host: str = "127.0.0.1") -> int:
    return free_ports(1, host)[0]


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


PROFILE_FILE = "profile.json"   # in the Easel home: {"name": the player's name at the table}


def saved_name() -> str | None:
    """The name kept in the Easel home's profile, or None (none yet, or unreadable)."""
    try:
        name = json.loads((data_dir() / PROFILE_FILE).read_text()).get("name")
    except (OSError, ValueError, AttributeError):
        return None
    return name if isinstance(name, str) and not name_problem(name) else None


def save_name(name: str) -> None:
    path = data_dir() / PROFILE_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, (json.dumps({"name": name}, ensure_ascii=False) + "\n").encode())
    except OSError as exc:
        log.warning("cannot keep your name in %s: %s", path, exc.strerror or exc)


def default_name() -> str:
    return clean_name(os.environ.get("USER") or os.environ.get("USERNAME") or "", "player")


def player_name(given: str | None, interactive: bool, ask=input, out=None) -> str:
    """The name a person plays under: ``--name`` (checked, not kept), else the one kept in the profile,
    else (asked once on a terminal, then kept) the user name or "player"."""
    if given is not None:
        why = name_problem(given)
        if why:
            raise UsageError("--name %r %s (1 to 48 bytes of printable text)" % (given, why))
        return given
    name = saved_name()
    if name is not None:
        return name
    name = default_name()
    if interactive:
        out = out if out is not None else sys.stderr
        for _ in range(3):
            try:
                out.write("easel: your name at the table (shown to the others; Enter for %s): " % name)
                out.flush()
                text = ask().strip(" ")
            except (EOFError, OSError):
                break
            if not text:
                break
            why = name_problem(text)
            if not why:
                name = text
                break
            out.write("easel: that name %s; try again\n" % why)
        save_name(name)
    return name


def identity_or_exit():
    try:
        return load_or_create()
    except IdentityError as exc:
        raise UsageError(str(exc)) from None


def game_dir(genesis) -> Path:
    return data_dir() / "games" / genesis.game_id.hex()


def open_store(genesis, roster) -> GameStore:
    """The game's directory, opened, with its roster written: a StoreError (one line) on failure.

    A failure at any point (a full disk, an I/O error) leaves no temp file
    behind, so the next start begins from a clean directory.
    """
    store = GameStore(game_dir(genesis))
    try:
        save_roster(store, genesis, roster)
    except OSError as exc:
        store.close()
        remove_temp_files(store.dir)
        raise StoreError(describe_os_error(store.dir / "roster", exc)) from None
    except BaseException:
        store.close()
        remove_temp_files(store.dir)
        raise
    return store


async def run_node(identity, genesis, roster, decide, *, timeout: float, seed: str | None, ui=None, bind: str | None = None,
                   watch=None, notes: tuple | list = (), dial_back: bool = False, spectators: bool = True) -> GameNode:
    """Play our seat until the game is over.  ``watch(node)``: an extra task (e.g. watching local bots);
    ``notes``: lines shown to the player as alerts from the start."""
    _HangUp.arm()          # from here on, the terminal closing is the person quitting (as q)
    try:
        return await _run_node(identity, genesis, roster, decide, timeout=timeout, seed=seed, ui=ui, bind=bind, watch=watch,
                               notes=notes, dial_back=dial_back, spectators=spectators)
    finally:
        _HangUp.disarm()


async def _run_node(identity, genesis, roster, decide, *, timeout: float, seed: str | None, ui, bind: str | None,
                    watch, notes, dial_back: bool, spectators: bool) -> GameNode:
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
                node.quit_table = functools.partial(leave_seat, None, nursery.cancel_scope)
                _HangUp.ready(node.quit_table)
                if watch is not None:
                    nursery.start_soon(watch, node)
                await node.run()
                nursery.cancel_scope.cancel()
        else:
            async with trio.open_nursery() as nursery:
                await nursery.start(node.run)
                node.quit_table = functools.partial(leave_seat, ui, nursery.cancel_scope)
                _HangUp.ready(node.quit_table)
                if watch is not None:
                    nursery.start_soon(watch, node)
                ui_update(ui, node)

                async def watch_ui():
                    try:
                        await ui.run()          # until the person quits (q, Ctrl-C; or leave_seat asked the screen)
                    except* OSError:
                        detach_terminal()       # the terminal went away under the screen: the person left
                    finally:            # also when the screen died with its terminal
                        await leave_table(node)      # quitting mid-game is a signed word (protocol.md §9.7)
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


def leave_seat(ui, scope: trio.CancelScope) -> None:
    """The one way our seat leaves a table before we are done with it, whoever asks: the terminal
    closing (SIGHUP, ``_hung_up``), a host's bot with nobody left (``leave_when_alone``). With a
    screen it asks the screen to quit, exactly as q or Ctrl-C does (its ``run`` returns and run_node goes
    on from there, as after q); without one it ends run_node the same way: ``scope`` is run_node's."""
    if ui is not None and not getattr(ui, "closed", False):
        ui.exit()
    else:
        scope.cancel()


class _HangUp:
    """Where the terminal closing (SIGHUP, ``_hung_up``) goes. While run_node plays a seat (``armed``,
    from before its files are opened), it is the person quitting: ``leave`` (the node's ``quit_table``)
    runs in trio's thread, at once, or as soon as run_node has a node to leave if it came before.
    Otherwise (a lobby, a name being asked, the way out) it is Ctrl-C."""

    armed = False
    heard = False
    leave = None
    token = None

    @classmethod
    def arm(cls) -> None:
        cls.armed, cls.heard, cls.leave, cls.token = True, False, None, None

    @classmethod
    def ready(cls, leave) -> None:
        """run_node can leave now: if the terminal already closed, leave at once."""
        cls.leave, cls.token = leave, trio.lowlevel.current_trio_token()
        if cls.heard:
            cls.token.run_sync_soon(leave)

    @classmethod
    def disarm(cls) -> None:
        cls.armed, cls.leave, cls.token = False, None, None


_TERMINAL_FDS: set[int] = set()     # our output descriptors that are a terminal (dispatch notes them)


def detach_terminal() -> None:
    """The terminal hung up: what we still print (the last words, a report) goes to /dev/null instead
    of failing on a terminal that is gone. Output to a file or a pipe is left alone."""
    fds = _TERMINAL_FDS or {fd for fd in (1, 2) if _fd_isatty(fd)}
    try:
        null = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        for fd in fds:
            try:
                os.dup2(null, fd)
            except OSError:
                pass
    finally:
        os.close(null)


def _fd_isatty(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def _hung_up(signum, frame) -> None:
    """SIGHUP: the terminal closed. While a game runs, the person quits as with q (``_HangUp``); anywhere
    else (the lobby, a name asked, the way out) it is Ctrl-C, which trio delivers where Ctrl-C would go."""
    detach_terminal()
    if _HangUp.armed:
        _HangUp.heard = True
        if _HangUp.leave is not None and _HangUp.token is not None:
            try:
                _HangUp.token.run_sync_soon(_HangUp.leave)
            except trio.RunFinishedError:
                pass
        return
    os.kill(os.getpid(), signal.SIGINT)


GAME_OVER_STATUS = "a plays again, n says no, q quits"   # the status once the game is over (peers that leave do not matter now)


async def leave_table(node: GameNode) -> None:
    """The person quit (q, Ctrl-C, the terminal closing take this path) before the game ended: tell the
    other seats with a signed leaving note, so the table moves on at once without waiting out each step
    (protocol.md §9.7); bounded by LEAVE_FLUSH."""
    if not node.peer.table.over and not node.done.is_set():
        anyone = bool(node.conns)
        told = await node.leave()
        if anyone:
            node.told_leaving = told


def ui_update(ui, node: GameNode) -> None:
    t = node.peer.table
    doc = node.genesis.doc
    silence = silence_lines(seat_names(doc), dict(node.silent_since), node.seat, float(doc.get("timeout", 60)), t.over,
                            _short_dir(node) if (node.silent_since or node.peer.left_seats()) and not t.over else "",
                            left=node.peer.left_seats())
    watching = ", %d watching" % node.watching if getattr(node, "watching", 0) else ""
    status = GAME_OVER_STATUS if t.over else "%d/%d peers connected%s" % (len(node.conns) + 1, len(node.keys), watching)
    # the line of a seat still gone by its word says it with the time: its alert is not repeated
    said = {node.peer.left_words(s) for s in node.peer.left_seats()}
    ui.update(t, [a for a in node.alerts if a not in said] + silence, status,
              waiting=list(node.peer.waiting()), cut=node.peer.cut_moves, left=node.peer.left_steps)


def _short_dir(node: GameNode) -> str:
    """The game's short id (what easel resume takes), worked out once per node."""
    short = getattr(node, "_short_dir", None)
    if short is None:
        from .history import short_id

        short = node._short_dir = short_id(node.store.dir)
    return short


def silence_lines(names, silent: dict, me: int, timeout: float, over: bool, game_dir: str, left=()) -> list[str]:
    """What every screen says while seats are not connected to us: who, since when, what the table
    will do about it and what the player can do. ``silent``: seat -> time.time() it went silent;
    ``left``: the seats that said they left (a signed note, protocol.md §9.7): their turns pass at once."""
    gone = sorted(s for s in set(silent) | set(left) if s != me)
    if over or not gone:
        return []
    n = len(names)
    lines = left_lines(names, silent, [s for s in gone if s in left], moves_on=2 * len(gone) <= n)
    quiet = [s for s in gone if s not in left]
    if quiet:
        who = ", ".join("%s (seat %d) since %s" % (names[s], s, time.strftime("%H:%M:%S", time.localtime(silent[s])))
                        for s in quiet)
        lines.append("not connected: %s" % who)
    them = "them" if len(gone) > 1 else "them" if names[gone[0]].startswith("seat ") else names[gone[0]]
    if 2 * len(gone) <= n:
        if quiet:
            them = "them" if len(quiet) > 1 or names[quiet[0]].startswith("seat ") else names[quiet[0]]
            lines.append("the table times %s out of every step not made within %d s (the empty move is played for %s); "
                         "it goes on without %s" % (them, timeout, them, them))
    else:
        lines.append("%d of %d seats are gone: more than half the table, which can never time them out (a time-out "
                     "needs at least as many voters as seats timed out): the table waits for %s" % (len(gone), n, them))
    lines.append("they can come back with easel resume on their machine; you can wait, or quit (q) and come back "
                 "later with: easel resume %s" % game_dir)
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


def log_to_file(path: Path) -> None:
    """While the full-screen UI runs, log lines would garble it: send them to a file."""
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    path.parent.mkdir(parents=True, exist_ok=True)
    h = logging.FileHandler(path)
    h.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    root.addHandler(h)


def report(node: GameNode, interactive: bool = False) -> int:
    """Bots and demos print one JSON line; a person gets a sentence."""
    t = node.peer.table
    if node.failed:
        print("easel: %s" % node.failed, file=sys.stderr)
        return EXIT_INVALID
    if interactive:
        if t.over:
            print(game_over_line(node.store.dir))
            return EXIT_OK
        from .history import resume_words

        print("easel: you left an unfinished game: %s continues it" % resume_words(node.store.dir))
        if (node.store.dir / BOTS_FILE).exists():
            print("easel: (and restarts its bots that stopped)")
        if getattr(node, "told_leaving", None) is not None:
            print("easel: the other seats were told you left: your turns pass at once until you come back"
                  if node.told_leaving else "easel: the other seats were told you left (not every one answered in time)")
        playing = [b for b in getattr(node, "local_bots", []) if b.proc is not None and b.proc.poll() is None]
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


# ----------------------------------------------------------------------------- local bots (easel play / host --bots)
BOTS_FILE = "local-bots.json"   # in the game directory: the seats our own bot processes play, to restart them on resume
BOT_EXIT_GRACE = 5.0            # seconds a bot that exited cleanly gets before we call the game unfinished for it


@dataclass
class LocalBot:
    """A bot process this command started: its own EASEL_HOME, level, and the file its output goes to."""

    index: int
    home: Path
    level: str
    name: str
    log: Path
    seat: int | None = None
    proc: subprocess.Popen | None = None
    exited_at: float | None = None
    reported: bool = False
    pid: int | None = None          # a process not ours (an earlier easel's): its pid and start time
    started: str | None = None


def bot_link_name(seat: int) -> str:
    """The bot's log in the game directory, named by the seat it plays (bot-seat-5.log plays seat 5)."""
    return "bot-seat-%d.log" % seat


def bot_log_path(number: int) -> Path:
    """The log of our bot named ``bot NUMBER`` (its home is ``bots/bot-NUMBER`` beside it)."""
    return data_dir() / "bots" / ("bot-%d.log" % number)


def _start_bot(bot: LocalBot, cmd: list[str], *, fresh: bool) -> None:
    """Start ``cmd`` as ``bot``'s process; its stdout and stderr go to ``bot.log``.

    ``fresh``: a new file (a hard link made for an earlier game keeps that
    game's text); otherwise append (a resumed bot continues its log)."""
    env = easel_env()
    env["EASEL_HOME"] = str(bot.home)
    out = None
    try:
        bot.log.parent.mkdir(parents=True, exist_ok=True)
        if fresh and bot.log.exists():
            bot.log.unlink()
        out = open(bot.log, "ab")
        out.write(("--- easel: %s started %s ---\n" % (bot.name, time.strftime("%Y-%m-%d %H:%M:%S"))).encode())
        out.flush()
    except OSError as exc:
        log.warning("cannot open %s (%s): %s's messages are lost", bot.log, exc.strerror or exc, bot.name)
        if out is not None:
            out.close()
        out = None
    z = zygote.current()
    if z is not None and cmd[:4] == easel_command():
        # forked from our zygote, which imported everything before trio ran: no second Python start
        if out is not None:
            out.close()
        try:
            bot.proc = z.spawn(cmd[4:], {"EASEL_HOME": str(bot.home)}, bot.log if out is not None else None,
                               "easel " + " ".join(cmd[4:]))
            return
        except OSError as exc:
            log.warning("%s: starting %s as a new process instead", exc, bot.name)
        out = None
        try:
            out = open(bot.log, "ab")
        except OSError:
            out = None
    try:
        sink = out if out is not None else subprocess.DEVNULL
        # its own session: the bot belongs to the table, not to our terminal (Ctrl-C, a closed
        # terminal or our exit do not take it down; finish_bots stops it when we must)
        bot.proc = subprocess.Popen(cmd, env=env, stdout=sink, stderr=sink, stdin=subprocess.DEVNULL, start_new_session=True)
    finally:
        if out is not None:
            out.close()


def spawn_bots(k: int, lobby: tuple[str, int], level: str, seed: str | None, table: HostedTable | None = None,
               bind: str | None = None) -> list[LocalBot]:
    """Start ``k`` bot processes that join ``lobby``; with ``table`` (ours), hold a seat for each
    (its key is made here, before it starts), so the lobby shows it as a bot, never as a free seat,
    and tell each one every key our bots hold (``--fellows``: it leaves once no other seat is left,
    leave_when_alone). ``bind``: where they listen (ours: every seat must reach them, protocol.md §9.3)."""
    # "bot 1" lives in bots/bot-1 and writes bots/bot-1.log: the files say the name the table shows
    bots = [LocalBot(index=i, home=data_dir() / "bots" / ("bot-%d" % (i + 1)), level=level, name="bot %d" % (i + 1),
                     log=bot_log_path(i + 1)) for i in range(k)]
    keys = []
    if table is not None:
        for bot in bots:
            try:
                keys.append(load_or_create(bot.home).public)
            except (IdentityError, OSError) as exc:
                raise UsageError("cannot make %s's key in %s: %s" % (bot.name, bot.home, exc)) from None
        for key in keys:
            table.reserve_bot(key, level)
    for i, bot in enumerate(bots):
        cmd = easel_command("bot", "--join", "%s:%d" % lobby, "--level", level, "--name", bot.name)
        if bind is not None:
            cmd += ["--bind", bind]
        if keys:
            cmd += ["--fellows", ",".join(k.hex() for k in keys)]
        if seed is not None:
            cmd += ["--seed", "%s/bot%d" % (seed, i), "--unsafe-seed"]
        _start_bot(bot, cmd, fresh=True)
    return bots


def record_bots(genesis, bots: list[LocalBot]) -> None:
    """Once the table is sealed: which seat each local bot holds, written to the game directory
    (``local-bots.json``), and each bot's log linked there as ``bot-N.log``."""
    gdir = game_dir(genesis)
    seats = genesis.doc["seats"]
    try:
        gdir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        log.warning("cannot record the local bots: %s", exc)
        return
    for bot in bots:
        try:
            key = load_or_create(bot.home).public
        except (IdentityError, OSError, ValueError):
            continue
        bot.seat = seats.index(key) if key in seats else None
        if bot.seat is None:
            continue
        link = gdir / bot_link_name(bot.seat)       # named by the seat it plays, as the screen shows it
        try:
            if link.exists():
                link.unlink()
            os.link(bot.log, link)   # the same file the bot writes to, now also in the game directory
            bot.log = link
        except OSError:
            pass  # it stays where it is; the alerts name that path
    write_bots_file(gdir, bots)


def _started(pid: int) -> str | None:
    """A process's start time (field 22 of /proc/PID/stat), to tell it from a later one with its pid; None if gone
    (a zombie too: dead, only not reaped yet)."""
    return zygote.started_at(pid)


def write_bots_file(gdir: Path, bots: list[LocalBot]) -> None:
    """``local-bots.json``: each bot's seat, home, level, name, and its process (pid and start time),
    so a resume does not start a second copy of a bot that still plays."""
    doc = {"version": 1, "bots": [
        dict({"index": b.index, "seat": b.seat, "home": str(b.home), "level": b.level, "name": b.name},
             **({"pid": b.proc.pid, "started": _started(b.proc.pid)} if b.proc is not None
                else {"pid": b.pid, "started": b.started} if b.pid is not None else {}))
        for b in bots if b.seat is not None
    ]}
    try:
        write_atomic(gdir / BOTS_FILE, (json.dumps(doc, sort_keys=True, indent=1) + "\n").encode())
    except OSError as exc:
        log.warning("cannot record the local bots (easel resume will not restart them): %s", describe_os_error(gdir / BOTS_FILE, exc))


def read_bots_file(d: Path) -> list[dict]:
    """The local bots recorded in game directory ``d`` (none if there is no such file); malformed entries are skipped."""
    path = d / BOTS_FILE
    if not path.exists():
        return []
    try:
        doc = json.loads(path.read_text())
        items = doc["bots"]
        if not isinstance(items, list):
            raise TypeError("bots is not a list")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("ignoring %s: %s", path, exc)
        return []
    good = []
    for item in items:
        if (isinstance(item, dict) and isinstance(item.get("index"), int) and isinstance(item.get("seat"), int)
                and isinstance(item.get("home"), str) and isinstance(item.get("level"), str) and isinstance(item.get("name"), str)):
            good.append(item)
        else:
            log.warning("ignoring a malformed entry of %s: %r", path, item)
    return good


def restart_bots(d: Path, genesis, seed: str | None) -> tuple[list[LocalBot], list[str]]:
    """``easel resume`` of a game whose seats were played by our own bots: restart each from its own game files.

    Returns the bots started and the lines that tell the player what happened."""
    records = read_bots_file(d)
    bots: list[LocalBot] = []
    notes: list[str] = []
    started = []
    seats = genesis.doc["seats"]
    fellows = [seats[r["seat"]] for r in records if 0 <= r["seat"] < len(seats)]    # the keys our bots hold
    for rec in records:
        home = Path(rec["home"])
        by_seat = d / bot_link_name(rec["seat"])
        bot = LocalBot(index=rec["index"], home=home, level=rec["level"], name=rec["name"], seat=rec["seat"],
                       log=by_seat if by_seat.exists() or not (d / ("bot-%d.log" % rec["index"])).exists()
                       else d / ("bot-%d.log" % rec["index"]))      # (games recorded before: by index)
        bdir = home / "games" / genesis.game_id.hex()
        pid = rec.get("pid")
        if isinstance(pid, int) and pid > 0 and rec.get("started") is not None and _started(pid) == rec.get("started"):
            notes.append("%s (seat %d) still plays (process %d, started when the table was): not started again"
                         % (bot.name, bot.seat, pid))
            # still ours: watched, and stopped with the others when we leave a table with nobody else
            bot.proc, bot.pid, bot.started = zygote.BotProcess(pid, rec["started"]), pid, rec["started"]
            bots.append(bot)
            continue
        if not (bdir / "roster").is_file():
            notes.append("%s (seat %d) cannot be restarted: its game files %s are missing; the table waits for it "
                         "until the time-out" % (bot.name, bot.seat, bdir))
            continue
        cmd = easel_command("resume", str(bdir), "--level", bot.level)
        if fellows:
            cmd += ["--fellows", ",".join(k.hex() for k in fellows)]
        if seed is not None:
            cmd += ["--seed", "%s/bot%d" % (seed, bot.index), "--unsafe-seed"]
        _start_bot(bot, cmd, fresh=False)
        bots.append(bot)
        started.append(bot)
    if started:
        write_bots_file(d, started + [LocalBot(index=r["index"], home=Path(r["home"]), level=r["level"], name=r["name"],
                                               seat=r["seat"], log=d / ("bot-%d.log" % r["index"]),
                                               pid=r.get("pid"), started=r.get("started"))
                                      for r in records if r["index"] not in {b.index for b in started}])
        notes.insert(0, "restarted %d bot(s) of this game from their own game files: %s; logs in %s" % (
            len(started), ", ".join("%s at seat %d" % (b.name, b.seat) for b in started), d))
    for line in notes:
        log.warning(line)
    return bots, notes


def bot_died_text(bot: LocalBot, rc: int) -> str:
    if getattr(bot.proc, "status_unknown", False):
        how = "stopped"           # a process we found running (easel resume): its exit status is not ours to know
    else:
        how = "was killed by signal %d" % -rc if rc < 0 else "exited with code %d" % rc
    seat = "" if bot.seat is None else " (seat %d)" % bot.seat
    return "%s%s %s before the game ended; its log: %s" % (bot.name, seat, how, bot.log)


async def watch_bots(node: GameNode, bots: list[LocalBot], interval: float = 1.0) -> None:
    """Tell the player (an alert naming its log) when one of our bots dies before the game is over."""
    while not node.done.is_set():
        await trio.sleep(interval)
        now = trio.current_time()
        for bot in bots:
            if bot.reported or bot.proc is None:
                continue
            rc = bot.proc.poll()
            if rc is None:
                continue
            if bot.exited_at is None:
                bot.exited_at = now
            if node.peer.table.over:
                bot.reported = True
                continue
            if rc == 0 and now - bot.exited_at < BOT_EXIT_GRACE:
                continue  # a bot that finished cleanly: the game's last entries are on their way to us
            bot.reported = True
            text = bot_died_text(bot, rc)
            log.warning(text)
            node.alert(text)


BOT_ALONE = 15.0    # s a host's bot stays at a table where no other seat (a person, its host included) is connected to it


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


async def leave_when_alone(node: GameNode, fellows: set, after: float | None = None) -> None:
    """A bot its host started (``fellows``: the keys of all that host's bots, ours included) leaves the
    table once no other seat, a person or its host, has been connected to it for ``after`` seconds
    (BOT_ALONE; protocol.md §9.7): its people are gone, and nobody is left to play for. It leaves as
    a person quitting does (``node.quit_table``): its log stays valid and unfinished. A table of nothing but
    that host's bots has no one to wait for: they play it out."""
    after = BOT_ALONE if after is None else after
    people = [s for s, k in enumerate(node.keys) if k not in fellows and s != node.seat]
    if not people:
        return
    while not node.done.is_set():
        silent = node.silent_since
        if any(s not in silent for s in people):
            await node.lost.wait()            # someone is connected: look again when a connection drops
            continue
        left = max(silent[s] for s in people) + after - time.time()
        if left <= 0:
            names = seat_names(node.genesis.doc)
            text = ("nobody but bots has been connected to this seat for %d s (%s gone): leaving the table; "
                    "the log stays valid and unfinished (easel resume %s continues it)"
                    % (after, ", ".join(names[s] for s in people), node.store.dir))
            log.warning(text)
            print("easel: bot: %s" % text, file=sys.stderr, flush=True)
            node.quit_table()
            return
        await trio.sleep(min(left, 1.0))


def finish_bots(node: GameNode | None, bots: list[LocalBot]) -> None:
    """On our way out: bots of a finished game leave by themselves. A game we leave unfinished: if
    other people sit at the table, our bots play on without us (they are the table's, and their own
    peers); if only we and our bots do (easel play), the game is abandoned: stop them."""
    procs = [b.proc for b in bots if b.proc is not None]
    if node is not None and not node.peer.table.over and others_at_table(node, bots):
        alive = [b for b in bots if b.proc is not None and b.proc.poll() is None]
        if alive:
            log.warning("leaving %d bot(s) playing on at the table: %s", len(alive), ", ".join(b.name for b in alive))
        return
    if node is not None and node.peer.table.over:
        for p in procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    else:
        _stop(procs)


# ----------------------------------------------------------------------------- host


def check_host_args(args) -> None:
    """host/play: the numbers on the command line, checked before anything starts (and before the terminal check)."""
    if not 1 <= args.timeout <= 86400:
        raise UsageError("--timeout must be 1..86400 seconds, not %g" % args.timeout)
    bots = getattr(args, "bots", 0)
    if not 0 <= bots < args.players:
        raise UsageError("--bots must be between 0 and %d (players-1), not %d" % (args.players - 1, bots))
    port = getattr(args, "port", 0)
    if not 0 <= port <= 65535:
        raise UsageError("--port must be 0 (any free port) to 65535, not %d" % port)


async def host_main(args, ui_factory=None) -> int:
    """Open a table; ``args`` went through ``resolve_table`` (game, players, options and level are set)."""
    identity = identity_or_exit()
    bind = args.bind or "0.0.0.0"
    game_name = args.game
    options = args.options
    play_port = free_port(bind if bind != "0.0.0.0" else "")
    check_host_args(args)
    args.timeout = int(args.timeout)  # whole seconds: it is signed into the genesis
    try:
        ht = HostedTable(identity, game_name, args.players, options, play_port, "" if bind == "0.0.0.0" else bind,
                         timeout=args.timeout, games=registry, name=getattr(args, "name", None) or "host",
                         about={"bot": args.auto} if getattr(args, "auto", None) else {},
                         previous=getattr(args, "previous", None), order=getattr(args, "order", None),
                         names=getattr(args, "names", None),
                         spectators=not getattr(args, "no_spectators", False))
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    bots: list[LocalBot] = []
    failure = None
    async with trio.open_nursery() as n:
        lobby_port = await n.start(tls.serve, args.port, tls.server_context(identity, None), ht.handle, bind)
        # our bots dial the lobby on this machine and listen where we do (every interface by default):
        # every seat must reach them, from any machine (protocol.md §9.3)
        bots = spawn_bots(args.bots, ("127.0.0.1" if bind == "0.0.0.0" else bind, lobby_port), args.level, args.seed, ht,
                          bind=bind)
        n.start_soon(_stop_bots_unless_sealed, ht, bots)
        if ht.order is None and bots and len(bots) == args.players - 1 and getattr(args, "quiet", False) \
                and args.no_advertise:
            # easel play (every other seat one of our bots, nobody else can come): bot 1 sits at seat 1,
            # bot 2 at seat 2, ..., not in the order their processes happen to start (seen at 6 players:
            # "Winner: seat 2" was bot 4)
            ht.order = [identity.public] + [load_or_create(b.home).public for b in bots]
        if not getattr(args, "quiet", False):
            print("easel: %s table open on port %d (host %s); %d seat(s) free" % (game_name, lobby_port, identity.fingerprint, ht.free), file=sys.stderr)
        if ht.previous is not None:
            # a rematch (§9.9): the old seats that neither come back nor say no are waited for this long
            wait = getattr(args, "rematch_wait", REMATCH_WAIT)
            print("easel: rematch lobby open on port %d: waiting up to %d s for the old seats (one that says no "
                  "is not waited for; then it starts with who is here)" % (lobby_port, wait), file=sys.stderr)
            n.start_soon(ht.start_with_who_is_here, wait)
        if not args.no_advertise:
            n.start_soon(_advertise, ht, lobby_port)
        if not getattr(args, "quiet", False):
            n.start_soon(_say_seats, ht)

        async def bots_alive():
            # a bot that dies before it took its seat would leave the table waiting for ever: say so, with its log
            nonlocal failure
            while True:
                await trio.sleep(0.2)
                for bot in bots:
                    rc = bot.proc.poll() if bot.proc is not None else None
                    if rc is not None:
                        how = "was killed by signal %d" % -rc if rc < 0 else "exited with code %d" % rc
                        failure = "%s %s before the table was full; its log: %s" % (bot.name, how, bot.log)
                        n.cancel_scope.cancel()
                        return

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
        _stop([b.proc for b in bots if b.proc is not None])
        raise UsageError(failure)
    if bind == "0.0.0.0":
        # our bots are recorded with an empty host part (every joiner fills in where it found us):
        # from here that is this machine (our dial-back after a resume goes there)
        roster = dict(roster, addrs=[[a[0] or ("127.0.0.1" if i else ""), a[1]] for i, a in enumerate(roster["addrs"])])
    node = None
    watch = None
    if bots:
        record_bots(genesis, bots)
    in_play = not args.no_advertise and not getattr(args, "no_spectators", False)
    if bots or in_play:

        async def watch(node):
            async with trio.open_nursery() as n:
                if in_play:
                    n.start_soon(_advertise_in_play, ht, node)
                if bots:
                    await watch_bots(node, bots)
                await node.done.wait()
                n.cancel_scope.cancel()
    try:
        if args.auto:
            decide = bot_decider(game_name, args.auto, args.seed)
            node = await run_node(identity, genesis, roster, decide, timeout=args.timeout, seed=args.seed, bind=bind, watch=watch,
                                  spectators=not getattr(args, "no_spectators", False))
            return report(node)
        ui = ui_factory(node_seat=0) if ui_factory else None
        decide = ui.decide if ui else None
        node = await run_node(identity, genesis, roster, decide, timeout=args.timeout, seed=args.seed, ui=ui, bind=bind, watch=watch,
                              spectators=not getattr(args, "no_spectators", False))
        if others_at_table(node, bots):
            node.local_bots = bots
        return report(node, interactive=ui is not None)
    finally:
        finish_bots(node, bots)


async def _stop_bots_unless_sealed(ht: HostedTable, bots: list[LocalBot]) -> None:
    """In host_main's lobby: if we leave it before the table is sealed (Ctrl-C, or the terminal closing,
    which is Ctrl-C there; or the lobby failed), the bots we started there go with us: none is left
    knocking or waiting."""
    try:
        await trio.sleep_forever()
    finally:
        if not ht.sealed.is_set() and ht.ended is None:
            _stop([b.proc for b in bots if b.proc is not None])


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


async def seating_progress(ht, players: int, out, interval: float = 0.5) -> None:
    """Until cancelled (the table is sealed): one line, rewritten in place on a terminal, saying how
    many seats are taken, so the screen is never blank while bots start (a pipe gets it once)."""
    start = trio.current_time()
    rematch = getattr(ht, "previous", None) is not None
    tty = False
    try:
        tty = out.isatty()
    except (AttributeError, ValueError):
        pass
    try:
        if not tty:
            print(seating_text(ht.free, players, 0, rematch, getattr(ht, "starting", 0)), file=out)
            return
        while True:
            out.write("\r" + seating_text(ht.free, players, trio.current_time() - start, rematch,
                                          getattr(ht, "starting", 0)) + "\x1b[K")
            out.flush()
            await trio.sleep(interval)
    finally:
        if tty:
            out.write("\r\x1b[K")
            out.flush()
def others_at_table(node: GameNode, bots: list[LocalBot]) -> bool:
    """Does a seat belong to neither us nor one of our bots (someone else plays at this table)?"""
    ours = {node.seat} | {b.seat for b in bots if b.seat is not None}
    return any(s not in ours for s in range(len(node.keys)))


def _stop(procs: list) -> None:
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


async def _say_seats(ht: HostedTable) -> None:
    """``easel host`` before the table is full: one line on standard error each time the seats change."""
    last = None
    # on a terminal, the table-filling line (seating_progress) is rewritten in place: clear it first
    clear = "\r\x1b[K" if _isatty(sys.stderr) else ""
    while True:
        text = describe_seats(ht.shown(), 0)
        if text != last and ht.ended is None:
            last = text
            print("%seasel: seats: %s" % (clear, text), file=sys.stderr)
        if ht.full.is_set():      # the seats as they sealed (a rematch: who said no) said once more
            return
        await ht.changed.wait()


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


# ----------------------------------------------------------------------------- join / bot
CONNECT_PATIENCE = 15.0   # seconds join keeps trying to reach a lobby before it gives up
RETRY_PAUSE = 0.2         # seconds between two attempts


class Connecting:
    """ "connecting to HOST:PORT..." on standard error, from the first second until the table is sealed.

    On a terminal the line is redrawn in place with the attempts and the
    seconds so far; elsewhere (a log file, a pipe) one line per change of
    state.  Either way it names the cancel key.
    """

    def __init__(self, where: str, stream=None, live: bool | None = None, rematch: bool = False) -> None:
        self.where = where
        self.rematch = rematch      # a rematch lobby (§9.9): its seat numbers are not the game's yet
        self.stream = stream if stream is not None else sys.stderr
        try:
            self.live = self.stream.isatty() if live is None else live
        except (AttributeError, ValueError):
            self.live = False
        self.attempts = 0
        self.seated: tuple | None = None
        self.t0 = time.monotonic()
        self._said = ""
        self._drawn = False
        self._seats = ""

    def text(self) -> str:
        took = time.monotonic() - self.t0
        if self.seated is None:
            return "connecting to %s... attempt %d, %.0f s (Ctrl-C cancels)" % (self.where, max(1, self.attempts), took)
        seat, players, game = self.seated
        if self.rematch:
            return "in the rematch lobby %s: waiting for the other seats... %.0f s (Ctrl-C cancels)" % (
                self.where, took)
        return "connected to %s: seat %s of %s at a %s table; waiting for the other seats... %.0f s (Ctrl-C cancels)" % (
            self.where, seat, players, game, took)

    def show(self) -> None:
        text = self.text()
        try:
            if self.live:
                # one terminal line at most: a wrapped line would be redrawn on its second row, piling up copies
                width = shutil.get_terminal_size((100, 30)).columns
                line = "easel: " + text
                if len(line) >= width:
                    line = line[:max(10, width - 2)] + "…"
                self.stream.write("\r\x1b[K" + line)
                self._drawn = True
            else:
                state = text.split("...", 1)[0]
                if state == self._said:
                    return
                self._said = state
                self.stream.write("easel: " + text + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass

    def on_seated(self, seat, players, game) -> None:
        self.seated = (seat, players, game)
        self.show()

    def on_seats(self, seats: list) -> None:
        """The lobby's seats changed: say who sits where (a line of its own, then the progress line again)."""
        me = self.seated[0] if self.seated else None
        text = describe_seats(seats, me if isinstance(me, int) and 0 <= me < len(seats) else None)
        if text == self._seats:
            return
        self._seats = text
        self.close()
        try:
            self.stream.write("easel: seats: %s\n" % text)
            self.stream.flush()
        except (OSError, ValueError):
            pass
        self.show()

    def close(self) -> None:
        """End the line (before the UI opens or an error is printed)."""
        if self._drawn:
            try:
                self.stream.write("\n")
                self.stream.flush()
            except (OSError, ValueError):
                pass
            self._drawn = False

    async def tick(self, every: float = 0.25) -> None:
        while True:
            self.show()
            await trio.sleep(every)


async def reach_table(host: str, port: int, identity, play_port: int, *, name: str, expect_fp: str | None,
                      progress: Connecting | None, patience: float = CONNECT_PATIENCE, about: dict | None = None,
                      previous: bytes | None = None):
    """``p2p.lobby.join``, retried until the lobby answers (at most ``patience`` seconds), then waited on until
    the table is sealed (as long as it takes: the others may take their time to join)."""
    deadline = trio.current_time() + patience
    attempts = 0
    while True:
        attempts += 1
        if progress is not None:
            progress.attempts = attempts
        seated = False

        def on_seated(seat, players, game):
            nonlocal seated
            seated = True
            scope.deadline = float("inf")   # in the lobby: wait for the table to fill, however long
            if progress is not None:
                progress.on_seated(seat, players, game)

        with trio.CancelScope(deadline=deadline) as scope:
            try:
                return await join(host, port, identity, play_port, name=name, expect_fingerprint=expect_fp,
                                  games=registry, on_seated=on_seated, about=about,
                                  on_seats=progress.on_seats if progress is not None else None, previous=previous)
            except OSError as exc:
                if trio.current_time() + RETRY_PAUSE > deadline:
                    raise UsageError("cannot reach %s:%d after %d attempt(s) in %.0f s: %s" % (
                        host, port, attempts, patience, exc.strerror or exc)) from None
                await trio.sleep(RETRY_PAUSE)
                continue
            except (LobbyError, tls.TLSError) as exc:
                if previous is not None and not seated and not str(exc).startswith("host refused") \
                        and trio.current_time() + RETRY_PAUSE <= deadline:
                    # a rematch: the old game may still hold that port for a moment (its seat 0 finishing):
                    # what answered is not the rematch lobby yet, so knock again (a lobby's refusal is final)
                    await trio.sleep(RETRY_PAUSE)
                    continue
                raise UsageError(str(exc)) from None
        if scope.cancelled_caught and not seated:
            raise UsageError("cannot reach %s:%d: no answer in %.0f s (%d attempt(s))" % (host, port, patience, attempts))


async def join_main(host: str, port: int, decide_factory, *, seed: str | None, name: str, ui_factory=None,
                    expect_fp: str | None = None, progress: bool | None = None, about: dict | None = None,
                    spectators: bool = True, previous: bytes | None = None, patience: float = CONNECT_PATIENCE,
                    where: list | None = None, bind: str | None = None, fellows: set | None = None) -> int:
    """Join a table; ``progress`` (default: for a person, or on a terminal) shows "connecting to ..." meanwhile.

    ``bind``: where our seat listens (default: loopback for a table on this machine, else every interface;
    a host's own bots listen where their host does). ``fellows``: we are a bot a host started, and these
    are the keys of all its bots: we leave once no other seat has been connected to us for a while
    (``leave_when_alone``)."""
    identity = identity_or_exit()
    loop = host in ("127.0.0.1", "localhost", "::1")
    if bind is None:
        bind = "127.0.0.1" if loop else "0.0.0.0"
    play_port = free_port(bind if bind != "0.0.0.0" else "")
    if progress is None:
        progress = ui_factory is not None or _isatty(sys.stderr)
    shown = Connecting("%s:%d" % (host, port), rematch=previous is not None) if progress else None
    try:
        async with trio.open_nursery() as nursery:
            if shown is not None:
                nursery.start_soon(shown.tick)
            genesis, roster = await reach_table(host, port, identity, play_port, name=name, expect_fp=expect_fp, progress=shown,
                                                about=about if about is not None else {}, previous=previous, patience=patience)
            nursery.cancel_scope.cancel()
    finally:
        if shown is not None:
            shown.close()
    # the host's own address is "" when it listens on every interface, and so are those of the bots it
    # started (they listen where it does): they are where we found it (protocol.md §9.3); our own stays
    # as it is, so that a resume listens where we do now
    seat = genesis.doc["seats"].index(identity.public)
    for i, a in enumerate(roster["addrs"]):
        if a[0] in ("", "0.0.0.0") and i != seat:
            a[0] = host
    ui = ui_factory(node_seat=seat) if ui_factory else None
    decide = decide_factory(genesis.doc["game"]) if decide_factory else ui.decide
    watch = functools.partial(leave_when_alone, fellows=fellows) if fellows else None
    node = await run_node(identity, genesis, roster, decide, timeout=float(genesis.doc.get("timeout", 60)), seed=seed, ui=ui, bind=bind,
                          spectators=spectators, watch=watch)
    if where is not None and node.peer.table.over:
        where.append(node.store.dir)      # the finished game's directory (easel bot --again plays it again)
    return report(node, interactive=ui is not None)


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def game_dir_of(args, over: bool | None = None):
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


def check_resume(args):
    """``easel resume``'s arguments: (identity, directory, genesis, roster), or a usage error."""
    identity, d, genesis, roster = game_dir_of(args, over=False)
    if identity.public not in genesis.doc["seats"]:
        raise UsageError("this identity holds no seat in that game")
    if args.level:
        check_level(game_or_exit(genesis.doc["game"]), args.level)
    return identity, d, genesis, roster


async def resume_main(args, ui_factory=None) -> int:
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
        advert = resumed_in_play(genesis, seat, bind, spectators=not getattr(args, "no_spectators", False))

        fellows = parse_fellows(getattr(args, "fellows", None))

        async def watch(node):
            async with trio.open_nursery() as n:
                if advert is not None:
                    n.start_soon(advert, node)
                if fellows:     # one of a host's bots, restarted by its host's resume
                    n.start_soon(leave_when_alone, node, fellows)
                if bots:
                    n.start_soon(watch_bots, node, bots)
                n.start_soon(alone_watch, node, ui, d)
                await node.done.wait()
                n.cancel_scope.cancel()

        node = await run_node(identity, genesis, roster, decide, timeout=float(genesis.doc.get("timeout", 60)), seed=args.seed,
                              ui=ui, bind=bind, watch=watch, notes=notes, dial_back=True,
                              spectators=not getattr(args, "no_spectators", False))
        if getattr(node, "alone", None):
            print("easel: %s" % node.alone, file=sys.stderr)
        if others_at_table(node, bots):
            node.local_bots = bots
        return report(node, interactive=ui is not None)
    finally:
        finish_bots(node, bots)


ALONE_SAY = 5.0        # s a resumed seat waits for any other seat to connect before it says where it stands
ALONE_GIVE_UP = 30.0   # s after which a resumed seat that no seat ever answered exits (protocol.md §13.1)


def alone_words(node: GameNode, game_dir: Path, waited: float, give_up: float | None) -> str:
    """What a resumed seat that no other seat answered says: whom it waits for, that they may have
    finished, how to get their log, and when it gives up (``give_up``: None once it has)."""
    from .screens import plain_label

    names = seat_names(node.genesis.doc)
    others = [s for s in range(len(node.keys)) if s != node.seat]
    step = node.peer.waiting()
    t = node.peer.table
    what = ""
    if t.step is not None and [s for s in step if s != node.seat]:
        what = " (the step open in your log, %s, waits for %s)" % (
            plain_label(t.step.label) or "phase %d" % t.step.phase, ", ".join(names[s] for s in step if s != node.seat))
    head = ("no other seat has answered for %d s: you are alone at this table, waiting for %s%s. They may have "
            "finished the game and left (a peer leaves once the game is over for it and every seat it reaches "
            "holds everything; yours was away), or be away too. Your log stops after %d entries, unfinished."
            % (waited, ", ".join(names[s] for s in others), what, len(node.peer.log_entries)))
    how = (" To see the rest of the game: if one of them still plays, `easel watch %s` follows the table through "
           "them; if they finished, ask one of them for their log (<their easel home>/games/%s/log): easel audit, "
           "show and replay read it." % (game_dir, game_dir.name))
    if give_up is not None:
        end = " This seat gives up in %d s if nobody answers (its log stays valid and unfinished); " \
              "`easel resume %s` tries again." % (give_up, game_dir)
    else:
        end = " Gave up (its log stays valid and unfinished); `easel resume %s` tries again." % game_dir
    return head + how + end


async def alone_watch(node: GameNode, ui, game_dir: Path, say: float = ALONE_SAY, give_up: float = ALONE_GIVE_UP) -> None:
    """A resumed seat that no other seat connects to (they finished and left, or are all away) says so
    after ``say`` seconds and exits after ``give_up``: the person's quit path with a screen, the end of
    the node without one. Any connection to another seat ends the watch."""
    with trio.move_on_after(say):
        await node.met.wait()
        return
    words = alone_words(node, game_dir, say, give_up - say)
    log.warning(words)
    if ui is None:
        print("easel: %s" % words, file=sys.stderr, flush=True)
    else:
        node.alert(words)
        if hasattr(ui, "tell"):
            ui.tell("No other seat has answered for %d s: you are alone at this table; the others may have finished "
                    "and left (the event log says how to see the rest). This seat gives up in %d s unless someone "
                    "answers." % (say, give_up - say))
    with trio.move_on_after(give_up - say):
        await node.met.wait()
        return
    node.alone = alone_words(node, game_dir, give_up, None)
    if ui is not None:
        ui.exit()
    else:
        node.done.set()


def resume_bind(addr_host: str) -> str:
    """Where a resumed seat listens: the address the table knows for it, or every interface if this
    machine no longer has that address (it moved to another network or got a new lease)."""
    if addr_host in ("", "0.0.0.0"):
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


def check_pick(args) -> None:
    from .tables import check_pick as check

    check(args)


def find_table_or_list(args):
    """``easel join``/``watch`` without an address: the tables on the LAN, listed as they are found (cli/tables.py);
    the one picked (``--pick N``, or typed on a terminal), or None."""
    from .tables import pick_from_lan

    return pick_from_lan(args)


# ----------------------------------------------------------------------------- again (a rematch)
AGAIN_PATIENCE = 120.0   # s a seat keeps knocking at the old host's door for the rematch lobby
REMATCH_WAIT = 120.0     # s the rematch lobby waits for old seats that neither come back nor say no


def again_args(args):
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


async def again_main(args, ui_factory=None) -> int:
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
        ns = argparse_namespace(
            game=doc["game"], players=len(seats), options=dict(doc["config"]), level=args.level or (levels.pop() if len(levels) == 1 else None),
            auto=args.level, timeout=int(doc.get("timeout", 60)), seed=None, unsafe_seed=False,
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
                           patience=getattr(args, "patience", AGAIN_PATIENCE),
                           about={"bot": args.level} if getattr(args, "bot", False) else None, where=getattr(args, "where", None))


async def bot_main(args) -> int:
    """``easel bot --join HOST:PORT``; with ``--again`` it stays for the rematches: at each game over it knocks at the
    old seat 0's rematch lobby (up to AGAIN_PATIENCE) and plays the rematch if one opens, else it exits."""
    host, port = parse_hostport(args.join)
    where: list = []
    rc = await join_main(host, port, lambda g: bot_decider(g, args.level, args.seed), seed=args.seed, name=args.name,
                         about={"bot": args.level or "default"}, spectators=not args.no_spectators, where=where,
                         bind=getattr(args, "bind", None), fellows=parse_fellows(getattr(args, "fellows", None)))
    while getattr(args, "again", False) and rc == EXIT_OK and where:
        d = where.pop()
        ns = argparse_namespace(dir=str(d), level=args.level, no_spectators=args.no_spectators, bot=True, where=where,
                                patience=getattr(args, "patience", AGAIN_PATIENCE))
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


async def decline_main(args) -> int:
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
    patience = getattr(args, "patience", AGAIN_PATIENCE)
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


def argparse_namespace(**kw):
    import argparse

    return argparse.Namespace(**kw)


# ----------------------------------------------------------------------------- watch
def watch_targets(target: str) -> list[tuple[str, int]]:
    """``easel watch``'s target: HOST:PORT (a seat's play address), or a game directory (a game we
    played, or left): every other seat's address from its roster."""
    d = Path(target)
    if d.is_dir():
        try:
            genesis, roster = load_roster(d)
        except (OSError, ValueError, KeyError) as exc:
            raise UsageError("%s is not a game directory: %s" % (d, exc)) from None
        try:
            me = load_or_create().public
        except (IdentityError, OSError):
            me = None
        out = [(a[0] or "127.0.0.1", int(a[1])) for k, a in zip(genesis.doc["seats"], roster["addrs"]) if k != me]
        if not out:
            raise UsageError("that game has no other seat to watch through")
        return out
    return [parse_hostport(target)]


async def watch_main(args, ui_factory=None) -> int:
    """Follow a live table read-only: with the game's screen (a terminal), or headless (``--json``)."""
    from p2p.watch import WatchError, watch

    targets = watch_targets(args.target)
    ui = ui_factory(node_seat=None) if ui_factory else None
    got = None
    errors = []
    first_view: list = []

    def changed(w) -> None:
        if w.first and not first_view:
            first_view.append((w.first, w.table.view(None)))
        if ui is not None and w.table is not None:
            ui.update(w.table, [], "%d watching" % max(1, w.watching), waiting=w.waiting())

    async def follow() -> None:
        nonlocal got
        for host, port in targets:
            try:
                got = await watch(host, port, changed, games=registry)
                return
            except WatchError as exc:
                errors.append(str(exc))
        raise UsageError("; ".join(errors))

    if ui is None:
        await follow()
    else:
        async with trio.open_nursery() as n:
            async def watch_ui():
                await ui.run()
                n.cancel_scope.cancel()

            n.start_soon(watch_ui)
            await follow()
            ui.update(got.table, [], "game over - q quits", waiting=[])
            await trio.sleep_forever()
    t = got.table
    if args.log:
        from core.logfile import LOG_MAGIC, encode_record

        try:
            Path(args.log).parent.mkdir(parents=True, exist_ok=True)
            write_atomic(Path(args.log), LOG_MAGIC + b"".join(encode_record(e) for e in got.entries))
        except OSError as exc:
            raise UsageError("cannot write %s: %s" % (args.log, exc.strerror or exc)) from None
    if args.json:
        first, view = first_view[0] if first_view else (got.first, None)
        print(json.dumps(jsonable({"entries": len(got.entries), "first": first, "first_view": view, "head": t.head,
                                   "over": t.over, "view": t.view(None), "result": t.result(), "watching": got.watching,
                                   "names": t.genesis.doc.get("names")}), sort_keys=True))
    return EXIT_OK if t.over else EXIT_INVALID


# ----------------------------------------------------------------------------- demo
def demo(args) -> int:
    t0 = time.monotonic()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    port = free_port()
    procs = []
    base = easel_command()
    for k in range(args.players):
        env = easel_env()
        env["EASEL_HOME"] = str(out / ("peer-%d" % k))
        if k == 0:
            cmd = base + ["host", "--game", args.game, "--players", str(args.players), "--port", str(port), "--auto", args.level,
                          "--seed", args.seed, "--unsafe-seed", "--bind", "127.0.0.1", "--no-advertise", "--timeout", str(args.timeout),
                          "--name", "bot 0"]
            for key, value in args.options.items():
                cmd += ["--option", "%s=%s" % (key, _option_text(value))]
        else:
            cmd = base + ["bot", "--join", "127.0.0.1:%d" % port, "--level", args.level, "--seed", args.seed, "--unsafe-seed",
                          "--name", "bot %d" % k]
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL))
    outputs = []
    deadline = time.monotonic() + 600
    for p in procs:
        try:
            so, se = p.communicate(timeout=max(1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            so, se = p.communicate()
        outputs.append((p.returncode, so.decode(errors="replace"), se.decode(errors="replace")))
    from core.audit import audit

    # the logs of *this* game: each peer reports its log's path (an --out used
    # before also holds the logs of earlier games)
    logs = []
    for _, so, _ in outputs:
        try:
            logs.append(json.loads(so.strip().splitlines()[-1])["log"])
        except (ValueError, IndexError, KeyError, TypeError):
            pass
    heads, results = [], None
    for lp in logs:
        rep = audit({lp: Path(lp).read_bytes()}, registry)
        heads.append(rep["head"])
        if rep["complete"]:
            results = rep["results"]
    same = len(logs) == args.players and len(set(heads)) == 1 and all(rc == 0 for rc, _, _ in outputs)
    seconds = round(time.monotonic() - t0, 3)
    if args.json:
        print(json.dumps({"logs": logs, "head": heads[0] if same else None, "heads": heads, "results": jsonable(results), "seconds": seconds}, sort_keys=True))
    else:
        for i, (rc, so, se) in enumerate(outputs):
            if rc != 0:
                print("peer %d exited %d: %s" % (i, rc, se.strip()[-2000:]), file=sys.stderr)
        print("%s: %d peers, head %s, %.1f s" % ("OK" if same else "FAILED", len(logs), heads[0] if heads else None, seconds))
        if results:
            print(json.dumps(jsonable(results), sort_keys=True))
    return EXIT_OK if same else EXIT_INVALID


def _option_text(value: Any) -> str:
    """An option value as ``--option`` reads it back (parse_option_value)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# ----------------------------------------------------------------------------- dispatch
def resolve_table(args) -> None:
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
    if getattr(args, "auto", None) is not None:
        args.auto = check_level(game, args.auto)


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


def then_again(rc: int, make, run=None) -> int:
    """After a game's UI closed: while its player pressed ``a`` (again) at game over, do what
    ``easel again GAME_DIR`` does for this seat, in this process and terminal (the old host opens the
    rematch lobby on its old port and restarts its bots; the others find it there); the rematch's own
    game over may ask again. Returns the exit code of the last game. ``run``: trio.run (tests)."""
    run = run or trio.run
    while True:
        ui = getattr(make, "last", None)
        if ui is not None and getattr(ui, "decline", False) and getattr(ui, "game_dir", None) is not None:
            make.last = None
            args = argparse_namespace(dir=str(ui.game_dir), level=None, no_spectators=False)
            try:
                again_args(args)
            except UsageError as exc:
                print("easel: %s" % exc, file=sys.stderr)
                return EXIT_USAGE
            run(decline_main, args)
            return rc
        if ui is None or not getattr(ui, "again", False) or getattr(ui, "game_dir", None) is None:
            return rc
        make.last = None
        args = argparse_namespace(dir=str(ui.game_dir), level=None, no_spectators=False)
        from .history import short_id

        print("easel: again: a rematch of game %s (as easel again %s)" % (short_id(ui.game_dir), short_id(ui.game_dir)),
              flush=True)
        try:
            again_args(args)
        except UsageError as exc:
            print("easel: %s" % exc, file=sys.stderr)
            return EXIT_USAGE
        rc = run(again_main, args, make)


def dispatch(args) -> int:
    at_once = True if getattr(args, "send_at_once", False) else None
    if args.cmd in ("play", "host", "resume", "again", "join") and hasattr(signal, "SIGHUP"):
        # a closed terminal is the person quitting: in a game, what q does (_HangUp), elsewhere what
        # Ctrl-C does; either way our way out runs (finish_bots: easel play's bots, in their own session,
        # are stopped rather than left playing alone)
        _TERMINAL_FDS.clear()
        _TERMINAL_FDS.update(fd for fd in (1, 2) if _fd_isatty(fd))
        signal.signal(signal.SIGHUP, _hung_up)
    try:
        # say what is wrong with the arguments before anything else (the terminal check included)
        if args.cmd in ("play", "host", "demo"):
            resolve_table(args)
        if args.cmd in ("play", "host"):
            check_host_args(args)
        if args.cmd == "demo" and not 1 <= args.timeout <= 86400:
            raise UsageError("--timeout must be 1..86400 seconds, not %g" % args.timeout)
        unsafe = check_seed(args) if args.cmd in ("host", "bot", "resume") else False
        if args.cmd == "join" and args.address:
            parse_hostport(args.address)
        if args.cmd in ("join", "watch"):
            check_pick(args)
        if args.cmd in ("join", "watch") and getattr(args, "picked", None) is None and not (
                args.address if args.cmd == "join" else args.target):
            args.picked = find_table_or_list(args)        # (cli/main.py lists before it imports this module)
            if args.picked is None:
                return EXIT_OK
        if args.cmd == "bot":
            parse_hostport(args.join)
            if args.bind is not None:
                check_bind(args.bind)
        if args.cmd in ("bot", "resume"):
            parse_fellows(args.fellows)
        if args.cmd == "resume":
            check_resume(args)
        if args.cmd == "demo":
            return demo(args)
        if args.cmd in ("host", "play", "join") and not getattr(args, "auto", None) and not (
                args.cmd == "join" and not args.address and args.pick is None):
            need_terminal()
        if args.cmd == "resume" and not args.level:
            need_terminal()
        if args.cmd in ("play", "host", "resume", "again"):
            start_zygote(args)
        if args.cmd == "host":
            args.name = player_name(args.name, interactive=not args.auto and _isatty(sys.stdin))
            make = None if args.auto else ui_factory_for(unsafe=unsafe, send_at_once=at_once)
            return then_again(trio.run(host_main, args, make), make)
        if args.cmd == "play":
            args.name = player_name(args.name, interactive=True)
            make = ui_factory_for(send_at_once=at_once)
            return then_again(trio.run(host_main, _play_args(args), make), make)
        if args.cmd == "bot":
            host, port = parse_hostport(args.join)
            if args.level is not None and args.level not in all_levels():
                raise UsageError("unknown bot level %r (known: %s)" % (args.level, ", ".join(all_levels())))
            why = name_problem(args.name)
            if why:
                raise UsageError("--name %r %s (1 to 48 bytes of printable text)" % (args.name, why))
            return trio.run(bot_main, args)
        if args.cmd == "join":
            expect_fp = None
            if not args.address:
                ad = args.picked
                host, port, expect_fp = ad.host, ad.port, ad.fingerprint     # the host's key is checked (TLS)
            else:
                host, port = parse_hostport(args.address)
            name = player_name(args.name, interactive=True)
            make = ui_factory_for(send_at_once=at_once)
            return then_again(trio.run(lambda: join_main(host, port, None, seed=None, name=name, ui_factory=make,
                                                         spectators=not args.no_spectators, expect_fp=expect_fp)), make)
        if args.cmd == "resume":
            make = ui_factory_for(unsafe=unsafe, send_at_once=at_once)
            return then_again(trio.run(resume_main, args, make), make)
        if args.cmd == "again" and args.decline:
            again_args(args)
            return trio.run(decline_main, args)
        if args.cmd == "again":
            again_args(args)
            if not args.level:
                need_terminal()
            make = None if args.level else ui_factory_for(send_at_once=at_once)
            return then_again(trio.run(again_main, args, make), make)
        if args.cmd == "watch" and not args.target:
            args.target = "%s:%d" % (args.picked.host, args.picked.port)
        if args.cmd == "watch":
            watch_targets(args.target)
            if not args.json:
                need_terminal()
            return trio.run(watch_main, args, None if args.json else ui_factory_for("Easel - watching"))
    except StoreError as exc:
        print("easel: %s" % exc, file=sys.stderr)
        return EXIT_INVALID
    raise UsageError("unknown command %r" % args.cmd)


def start_zygote(args) -> None:
    """Before trio runs: fork the zygote our bots will be forked from (cli/zygote.py), if this command may
    start bots (easel play, host --bots, or the resume or rematch of a game our bots played), with
    everything a bot and our own screen import already imported."""
    if args.cmd == "host" and not args.bots:
        return
    if args.cmd in ("resume", "again"):
        try:
            if not read_bots_file(Path(args.dir)):
                return
        except OSError:
            return
    person = args.cmd == "play" or (args.cmd == "host" and not args.auto) or (args.cmd in ("resume", "again") and not args.level)
    if person:
        from . import shell  # noqa: F401 - our screen needs it: loaded here, before the bots start, not once the table is full
    zygote.start()


def _play_args(args):
    import argparse

    return argparse.Namespace(
        game=args.game, players=args.players, bots=args.players - 1, port=0, options=args.options, level=args.level,
        auto=None, timeout=args.timeout, seed=None, unsafe_seed=False, bind="127.0.0.1", no_advertise=True, quiet=True,
        name=args.name, no_spectators=args.no_spectators,
    )
