"""Our own bot processes (easel play, host --bots): started, recorded, watched, restarted, stopped.

A host's bots are its child processes, each with its own Easel home (``bots/bot-N``) and log
(``bots/bot-N.log``), forked from the zygote when there is one (cli/zygote.py), else started as
``easel bot`` (cli/children.py). Once the table is sealed, ``local-bots.json`` in the game's
directory says which seat each plays, so that ``easel resume`` restarts those that stopped
(``restart_bots``) and not those still playing. ``watch_bots`` tells the player when one dies,
``leave_when_alone`` is the bot's side (it leaves a table with nobody but bots, protocol.md §9.7),
and ``finish_bots`` decides, on our way out, whether they play on or are stopped.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import trio

from core.events import seat_names
from p2p.identity import IdentityError, data_dir, load_or_create
from p2p.store import describe_os_error, write_atomic

from . import zygote
from .children import easel_command, easel_env, exit_words, stop_processes
from .common import UsageError, env_patience
from .home import game_dir

log = logging.getLogger("easel.cli")

BOTS_FILE = "local-bots.json"   # in the game directory: the seats our own bot processes play, to restart them on resume
BOT_EXIT_GRACE = 5.0            # seconds a bot that exited cleanly gets before we call the game unfinished for it
BOT_ALONE = 15.0    # s a host's bot stays at a table where no other seat (a person, its host included) is connected to it
BOT_ALONE_ENV = "EASEL_BOT_ALONE"   # seconds, for tests (README "Tests"): only how long the bot waits


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


def spawn_bots(k: int, lobby: tuple[str, int] | None, level: str, seed: str | None, table=None,
               bind: str | None = None, join: str | None = None) -> list[LocalBot]:
    """Start ``k`` bot processes that join ``lobby``; with ``table`` (ours, a p2p.lobby.HostedTable), hold a
    seat for each (its key is made here, before it starts), so the lobby shows it as a bot, never as a free seat,
    and tell each one every key our bots hold (``--fellows``: it leaves once no other seat is left,
    leave_when_alone). ``bind``: where they listen (ours: every seat must reach them, protocol.md §9.3).
    ``join``: what they join instead of ``lobby`` (an internet table's invitation: each bot is its own libp2p peer)."""
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
        cmd = easel_command("bot", "--join", join or "%s:%d" % lobby, "--level", level, "--name", bot.name)
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
        how = exit_words(rc)
    seat = "" if bot.seat is None else " (seat %d)" % bot.seat
    return "%s%s %s before the game ended; its log: %s" % (bot.name, seat, how, bot.log)


async def watch_bots(node, bots: list[LocalBot], interval: float = 1.0) -> None:
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


async def first_death(bots: list[LocalBot], interval: float = 0.2) -> str:
    """In the lobby: wait until one of ``bots`` ends (a bot that dies before it took its seat would leave the
    table waiting for ever), and say which, with its log."""
    while True:
        await trio.sleep(interval)
        for bot in bots:
            rc = bot.proc.poll() if bot.proc is not None else None
            if rc is not None:
                return "%s %s before the table was full; its log: %s" % (bot.name, exit_words(rc), bot.log)


async def stop_bots_unless_sealed(table, bots: list[LocalBot]) -> None:
    """In host_main's lobby (``table``, a p2p.lobby.HostedTable): if we leave it before the table is sealed
    (Ctrl-C, or the terminal closing, which is Ctrl-C there; or the lobby failed), the bots we started there
    go with us: none is left knocking or waiting."""
    try:
        await trio.sleep_forever()
    finally:
        if not table.sealed.is_set() and table.ended is None:
            stop_bots(bots)


def stop_bots(bots: list[LocalBot]) -> None:
    """Stop our bots' processes now (SIGTERM, then SIGKILL after 5 s)."""
    stop_processes([b.proc for b in bots if b.proc is not None])


async def leave_when_alone(node, fellows: set, after: float | None = None) -> None:
    """A bot its host started (``fellows``: the keys of all that host's bots, ours included) leaves the
    table once no other seat, a person or its host, has been connected to it for ``after`` seconds
    (BOT_ALONE, or $EASEL_BOT_ALONE for tests; protocol.md §9.7): its people are gone, and nobody is left to
    play for. It leaves as a person quitting does (``node.quit_table``): its log stays valid and unfinished.
    A table of nothing but that host's bots has no one to wait for: they play it out."""
    after = env_patience(BOT_ALONE_ENV, (BOT_ALONE,))[0] if after is None else after
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


def others_at_table(node, bots: list[LocalBot]) -> bool:
    """Does a seat belong to neither us nor one of our bots (someone else plays at this table)?"""
    ours = {node.seat} | {b.seat for b in bots if b.seat is not None}
    return any(s not in ours for s in range(len(node.keys)))


def finish_bots(node, bots: list[LocalBot]) -> None:
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
        stop_processes(procs, terminate=False, grace=15)     # they leave by themselves: reap them
    else:
        stop_processes(procs)
