"""The ``easel`` command.

    easel play [--game G] [--players N] [--option K=V ...]   a local table: you and bot peers over loopback
    easel host [--game G] [--players N] [--bots K] [--port P] [--option K=V ...]
    easel join [HOST:PORT] [--pick N]   list tables on the LAN (zeroconf) and pick one by number, or join HOST:PORT
    easel bot --join HOST:PORT [--level L]
    easel relay [--listen IP] [--port PORT]   relay tables beyond the LAN; host --internet --relay ADDRESS prints an invitation
    easel resume GAME [--level L]       continue a game (after a crash or a quit); GAME: last, a short id, a directory
    easel demo [--game G] [--players N] --seed S --out DIR [--json]
                                        (a demo is deterministic: its sealed moves are NOT secret)
    easel games [--json]                the games, their editions, options and bot levels
    easel audit FILE|DIR... [--json]    exit 0 valid and finished, 1 invalid, 2 usage (DIR: a game's log and spool)
    easel history [--json]              past games: date, game, seats, result, the log file
    easel replay FILE [--as SEAT]       (FILE 'last': the newest game's log, here and below)
    easel show FILE [--at N] [--as SEAT] --json
    easel export FILE --html OUT [--as SEAT]   one self-contained HTML page replaying the game
    easel --version

Every game comes from the registry (core.games): ``--game`` picks one (the
default is the registry's first), ``--option KEY=VALUE`` sets its options
(checked by the game's ``configure``), ``--level`` one of its ``bots``.

Exit status: 0 done, 1 invalid or failed, 2 usage error (argparse prints the
subcommand's usage), 130 interrupted, 141 when whoever reads our output
closed the pipe early (``easel games | head -1``: no traceback, no message).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys

from .common import (  # noqa: F401 - re-exported: older callers import them from here
    EXIT_INVALID,
    EXIT_OK,
    EXIT_PIPE,
    EXIT_USAGE,
    UsageError,
    all_levels,
    default_level,
    easel_version,
    jsonable,
    leaves,
    level_about,
    parse_hostport,
    read_file,
    registry,
)


# ----------------------------------------------------------------------------- offline commands
def cmd_audit(args) -> int:
    from pathlib import Path

    from core.logfile import SPOOL_MAGIC

    from .history import audit_lines, audit_targets, audit_with_spools

    names, beside = audit_targets(args.files)
    files = {f: read_file(f) for f in names}
    for f in beside:        # a spool that holds nothing (empty, or torn in its magic) is left out
        if SPOOL_MAGIC.startswith(files[f]):
            del files[f]
    rep = audit_with_spools(files, beside)
    if args.json:
        print(json.dumps(jsonable(rep), indent=None, sort_keys=True))
    else:
        lines = audit_lines(rep)
        given = {Path(f).resolve() for f in names}
        for f in names:     # a game's log given alone: say where its evidence is
            p = Path(f)
            if p.name == "log" and (p.parent / "spool").is_file() and (p.parent / "spool").resolve() not in given:
                lines.append("  (the spool beside %s was not read: `easel audit %s` reads the game directory, its "
                             "log and spool)" % (f, p.parent))
        print("\n".join(lines))
    return EXIT_OK if rep["valid"] and rep["complete"] else EXIT_INVALID


def cmd_history(args) -> int:
    from .history import print_history

    return print_history(args.json)


def load_log_entries(path: str) -> list[bytes]:
    from core.logfile import parse

    parsed = parse(read_file(path))
    if parsed.kind != "log":
        raise UsageError("%s is not an Easel log file" % path)
    if not parsed.entries:
        raise UsageError("%s holds no entries" % path)
    return parsed.entries


def table_at(entries: list[bytes], at: int | None):
    from core.table import RuleError, Table

    n = len(entries) - 1 if at is None else at
    if not 0 <= n < len(entries):
        raise UsageError("--at must be between 0 and %d" % (len(entries) - 1))
    try:
        t = Table.start(entries[0], registry)
    except RuleError as exc:
        raise UsageError("entry 0 is not a valid genesis (%s): run easel audit" % exc) from None
    for raw in entries[1 : n + 1]:
        try:
            t.append(raw)
        except RuleError as exc:
            raise UsageError("entry %d is invalid (%s): run easel audit" % (t.count, exc)) from None
    return t, n


def check_seat(seat: int, players: int) -> None:
    if not 0 <= seat < players:
        raise UsageError("--as must be a seat between 0 and %d (this game has %d seats)" % (players - 1, players))


SHOW_FIELDS = """\
A damaged or unfinished log gets the warning easel audit gives, on standard error.

output: one JSON object (byte strings as hex):
  entry        the entry shown (0 is the genesis)
  entries      how many entries the log holds
  game         the game's name
  seat         the seat whose view is shown (null: the public view)
  names        every seat's name as the genesis signs it (null: a genesis
               without names)
  table_phase  the table's step counter after that entry (one number per
               step: a seed, commit, reveal or move step)
  table_step   the step the table waits for, null once the game is over:
               table_phase, kind (commit, reveal or act), purpose (seed,
               move or auto), label (in words), seats (who acts in it),
               missing (who has not acted yet)
  head         the hash of entry N (hex): the log's head at that point
  view         the game's view for that seat; its fields are the game's
               own (e.g. a game's own "phase" or "step": where a round or
               day is), except game, seat and result, which mean the same
               as here when a view has them
  secret_source  for a game with seat secrets (Modern Art's hand) and
               --as SEAT: where the seat's own secret came from, so its
               view shows its hand: "secrets file" (the one beside the
               log, a peer's game directory) or "disclosure" (the one the
               seat disclosed at the game's end, which shows its hand at
               every entry as it saw it then); null: the view lacks it
  result       the game's result once it is over, else null
  said         the talk lines placed up to that entry (protocol.md §9.11):
               index, phase, seat, seq and text of each, in log order
"""


def cmd_export(args) -> int:
    from .export import export
    from .history import resolve_log

    export(resolve_log(args.file), args.html, args.as_seat)
    return EXIT_OK


def cmd_show(args) -> int:
    from .history import log_warning, resolve_log

    args.file = resolve_log(args.file)
    entries = load_log_entries(args.file)
    for line in log_warning(args.file, read_file(args.file)):     # as easel audit would say it
        print(line, file=sys.stderr)
    t, n = table_at(entries, args.at)
    if args.as_seat is not None:
        check_seat(args.as_seat, t.players)
    st = t.step
    own = None
    if args.as_seat is not None:
        from .export import find_seat_secret

        own = find_seat_secret(entries, args.as_seat, args.file, registry)
    out = {
        "entry": n,
        "entries": len(entries),
        "game": t.genesis.doc["game"],
        "seat": args.as_seat,
        "names": t.genesis.doc.get("names"),
        # the table's step counter; "phase" alone is left to the game (a view's own field)
        "table_phase": t.phase,
        # the table's step; "step" alone is left to the game (Starving Artists' view has its own)
        "table_step": None if st is None else {"table_phase": st.phase, "kind": st.kind, "purpose": st.purpose,
                                               "label": st.label, "seats": list(st.seats), "missing": list(t.missing())},
        "head": t.head,
        # a seat's own secret (known after the fact) shows its hand as it saw it at that entry
        "view": t.view(args.as_seat, own.secret if own is not None else None),
        "secret_source": own.source if own is not None else None,
        "result": t.result(),
        # the talk lines placed up to that entry (protocol.md §9.11): index, phase, seat, seq, text
        "said": t.talk(),
    }
    print(json.dumps(jsonable(out), sort_keys=True))
    return EXIT_OK


def cmd_replay(args) -> int:
    import trio

    from .history import log_warning, resolve_log
    from .shell import ReplayUI

    args.file = resolve_log(args.file)
    entries = load_log_entries(args.file)
    if args.as_seat is not None:
        t, _ = table_at(entries, 0)
        check_seat(args.as_seat, t.players)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("replay needs a terminal (use: easel show FILE --at N --json)")
    from .export import find_seat_secret

    own = find_seat_secret(entries, args.as_seat, args.file, registry)
    try:
        ui = ReplayUI(entries, args.as_seat, secret=own.secret, secret_words=own.words,
                      warning=log_warning(args.file, read_file(args.file)))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    trio.run(ui.run)
    return EXIT_OK


def cmd_games(args) -> int:
    games = []
    for name in registry.names():
        g = registry.get(name)
        info = g.info
        helps = dict(getattr(info, "option_help", None) or {})
        games.append({
            "name": info.name,
            "title": info.title,
            "min_players": info.min_players,
            "max_players": info.max_players,
            "default_players": info.default_players,
            "editions": list(info.editions),
            "options": [{"name": k, "default": v, "help": helps.get(k, "")} for k, v in info.options.items()],
            "bots": list(g.bots),
            "bot_levels": [{"name": k, "about": level_about(f)} for k, f in g.bots.items()],
            "default_level": default_level(g) if g.bots else None,
        })
    if args.json:
        print(json.dumps(jsonable(games), sort_keys=True))
        return EXIT_OK
    for i, g in enumerate(games):
        if i:
            print()
        print("%s - %s" % (g["name"], g["title"]))
        print("  players: %d-%d (default %d)" % (g["min_players"], g["max_players"], g["default_players"]))
        print("  editions: %s (default %s)" % (", ".join(g["editions"]) or "-", g["editions"][0] if g["editions"] else "-"))
        print("  bot levels: %s%s" % (", ".join(g["bots"]) or "-", " (default %s)" % g["default_level"] if g["default_level"] else ""))
        for lv in g["bot_levels"]:
            print("    %-20s %s" % (lv["name"], lv["about"]))
        print("  options (--option NAME=VALUE):" if g["options"] else "  options: none")
        for o in g["options"]:
            default = json.dumps(jsonable(o["default"])) if not isinstance(o["default"], str) else o["default"]
            print("    %-20s default %-10s %s" % (o["name"], default, o["help"]))
    return EXIT_OK


OFFLINE = {"audit": cmd_audit, "show": cmd_show, "replay": cmd_replay, "games": cmd_games, "export": cmd_export,
           "history": cmd_history}


# ----------------------------------------------------------------------------- the parser
_version = easel_version     # its old name here (tests/test_cli.py)


def _by_game(what) -> str:
    """ "name: a, b; name2: c" over every installed game."""
    return "; ".join("%s: %s" % (n, what(registry.get(n))) for n in registry.names())


def build_parser() -> argparse.ArgumentParser:
    raw = argparse.RawDescriptionHelpFormatter
    ap = argparse.ArgumentParser(
        prog="easel", formatter_class=raw,
        description="Art board games, peer to peer, no server. Without a command: easel play.",
        epilog="Run easel COMMAND --help for a command's options.\n"
               "Exit status: 0 done, 1 invalid or failed, 2 usage error, 130 interrupted or a game left\n"
               "before its end (easel resume continues it),\n"
               "141 the reader of our output closed the pipe early.")
    ap.add_argument("--version", action="version", version="easel %s" % _version(),
                    help="print easel's version and exit")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="log progress and network details to standard error (while the full-screen UI runs, "
                         "to <home>/easel.log instead)")
    sub = ap.add_subparsers(dest="cmd", metavar="COMMAND")
    names = registry.names()
    game_names = ", ".join(names)
    first = names[0] if names else "-"

    def seed_flags(p) -> None:
        p.add_argument("--seed", default=None, metavar="TEXT",
                       help="UNSAFE, for tests only: derive every salt and random contribution from TEXT, so anyone "
                            "who knows TEXT can compute every sealed bid; refused unless --unsafe-seed is given too")
        p.add_argument("--unsafe-seed", action="store_true",
                       help="accept --seed although it makes this seat's sealed moves computable (tests and demos)")

    def table_flags(p, timeout: float, who: str) -> None:
        p.add_argument("--game", default=None, metavar="NAME",
                       help="the game, one of: %s (default: %s; easel games describes them)" % (game_names, first))
        p.add_argument("--players", type=int, default=None, metavar="N",
                       help="seats at the table, %s (allowed: %s; default: %s)" % (
                           who, _by_game(lambda g: "%d-%d" % (g.info.min_players, g.info.max_players)),
                           _by_game(lambda g: str(g.info.default_players))))
        p.add_argument("--edition", default=None, metavar="NAME",
                       help="the game's rules edition, the same as --option edition=NAME (%s; default: each game's "
                            "first)" % _by_game(lambda g: ", ".join(g.info.editions) or "none"))
        p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                       help="a game option; repeat it for several; VALUE is a whole number, true/false or a word "
                            "(easel games lists each game's options with their ranges and defaults)")
        p.add_argument("--level", default=None, metavar="LEVEL",
                       help="how the bots play (%s; default: the game's second listed level)" % _by_game(lambda g: ", ".join(g.bots)))
        p.add_argument("--timeout", type=float, default=timeout, metavar="SECONDS",
                       help="seconds each seat has for each step before the others vote it out of that step "
                            "(it then plays the empty move); whole seconds, 1 to 86400 (default: %d)" % timeout)

    def relay_flag(p) -> None:
        """resume, again: the relay of a game beyond the LAN (default: the one it was played through, kept with it)."""
        p.add_argument("--relay", default=None, metavar="ADDRESS",
                       help="a game beyond the LAN: reach the others through this relay (the line `relay: ADDRESS` "
                            "easel relay printed; default: the relay the game was played through, kept in its directory)")
    def send_flag(p) -> None:
        p.add_argument("--send-at-once", action="store_true",
                       help="send a complete move as soon as it is typed (by default every command edits the draft "
                            "shown under the board and Enter on an empty line sends it; also EASEL_SEND_AT_ONCE=1)")
    def seat_level_flag(p) -> None:
        p.add_argument("--level", default=None, metavar="LEVEL",
                       help="play our seat with this bot level instead of you in the UI (one of: %s)" % ", ".join(all_levels()))
    def name_flag(p) -> None:
        p.add_argument("--name", default=None, metavar="TEXT",
                       help="your name at the table, shown to everyone and signed into the game's log, 1 to 48 bytes "
                            "of printable text (default: the one you gave the first time, kept in <home>/profile.json; "
                            "asked once on a terminal, else your user name)")

    def spectator_flag(p, table: bool = False) -> None:
        p.add_argument("--no-spectators", action="store_true",
                       help="no spectators at this table: signed into its genesis, so every seat refuses them"
                       if table else
                       "refuse spectators at this seat (easel watch through another seat still works, unless "
                       "the host opened the table with --no-spectators)")

    def lan_target(p, dest: str, metavar: str, help: str, verb: str, listed: str) -> None:
        """The target of join and watch, and --wait and --pick: without it the command lists the LAN's tables."""
        p.add_argument(dest, nargs="?", metavar=metavar, help=help)
        p.add_argument("--wait", type=float, default=3.0, metavar="SECONDS",
                       help="without %s and a terminal: seconds to list the LAN's tables, each shown as soon as it is "
                            "found (with --pick: the longest to wait for table N) (default: 3)" % metavar)
        p.add_argument("--pick", type=int, default=None, metavar="N",
                       help="%s table N (1 to the number of %s) as soon as it is listed, without asking (on a "
                            "terminal easel %s asks for the number)" % (verb, listed, verb))

    def add(name: str, help: str, description: str | None = None, epilog: str | None = None):
        return sub.add_parser(name, help=help, description=description or help[:1].upper() + help[1:] + ".",
                              epilog=epilog, formatter_class=raw)

    p = add("play", "a local table: you and bot peers over loopback (the default command)",
            epilog="The other seats are bot processes on this machine; it needs a terminal.")
    table_flags(p, 300.0, "you included")
    send_flag(p)
    name_flag(p)
    spectator_flag(p)

    p = add("host", "open a table on the LAN for people (easel join) and bots (easel bot --join)",
            epilog="It prints the lobby's port; the others join with easel join HOST:PORT (or find it on the LAN).")
    table_flags(p, 300.0, "you included")
    send_flag(p)
    p.add_argument("--bots", type=int, default=0, metavar="K",
                   help="seats taken by bot processes started on this machine, 0 to players-1 (default: 0)")
    p.add_argument("--port", type=int, default=0, metavar="PORT",
                   help="TCP port of the lobby, 1-65535 (default: 0, any free port; it is printed)")
    p.add_argument("--auto", default=None, help=argparse.SUPPRESS)        # host seat played by a bot
    seed_flags(p)
    p.add_argument("--bind", default=None, help=argparse.SUPPRESS)
    p.add_argument("--no-advertise", action="store_true", help=argparse.SUPPRESS)
    name_flag(p)
    spectator_flag(p, table=True)
    p.add_argument("--internet", action="store_true",
                   help="open the table beyond the LAN, through --relay: prints a line `invite: TEXT` for the others "
                        "to paste into easel join (needs the internet extra: pip install -e \".[internet]\")")
    p.add_argument("--relay", default=None, metavar="ADDRESS",
                   help="with --internet: the relay to meet at, the line `relay: ADDRESS` easel relay printed")

    p = add("join", "list the tables open on the LAN and pick one by number, or join HOST:PORT",
            epilog="Without HOST:PORT, each table on the LAN is listed as soon as it is found, the open ones numbered;\n"
                   "on a terminal, type a number and Enter to join that table (Enter alone: the first; q quits).\n"
                   "Joining shows \"connecting to HOST:PORT...\" with the attempts and the time so far until the "
                   "table is full;\nCtrl-C cancels.")
    lan_target(p, "address", "HOST:PORT", "the table's lobby address, as its host printed it, or its invitation "
               "(easel-..., a table beyond the LAN: easel host --internet) (omit it to list open tables)", "join", "tables listed")
    send_flag(p)
    name_flag(p)
    spectator_flag(p)

    p = add("relay", "relay the seats of tables beyond the LAN (run it where they can all reach it)",
            epilog="It prints one line `relay: ADDRESS`, that easel host --internet --relay ADDRESS takes. It sees only\n"
                   "encrypted bytes, and relays within limits (protocol.md §13.1). Needs the internet extra.")
    p.add_argument("--listen", default="0.0.0.0", metavar="IP",
                   help="the address to listen on (default: 0.0.0.0, every interface)")
    p.add_argument("--port", type=int, default=4001, metavar="PORT", help="the TCP port to listen on (default: 4001)")
    p.add_argument("--announce", default=None, metavar="IP",
                   help="the address others reach the relay at, printed in ADDRESS (default: the --listen address, "
                        "or this machine's address on its default route)")

    p = add("bot", "a bot peer that joins a table and plays one seat")
    p.add_argument("--join", required=True, metavar="HOST:PORT",
                   help="the table's lobby address, or its invitation (easel-...) (required)")
    p.add_argument("--level", default=None, metavar="LEVEL",
                   help="how the bot plays, one of: %s (default: the table's game's default level)" % ", ".join(all_levels()))
    seed_flags(p)
    p.add_argument("--name", default="bot", metavar="TEXT",
                   help="the bot's name at the table, 1 to 48 bytes of printable text (default: bot)")
    p.add_argument("--again", action="store_true",
                   help="at game over, stay for a rematch: wait up to 120 s for the old host's rematch lobby and play "
                        "it (every rematch, until none opens)")
    spectator_flag(p)
    # a host's own bots (cli/bots.py spawn_bots): where to listen (the host's bind), and the keys of all its bots
    p.add_argument("--bind", default=None, help=argparse.SUPPRESS)
    p.add_argument("--fellows", default=None, help=argparse.SUPPRESS)

    p = add("resume", "continue a game from its directory (after a crash or a quit)",
            epilog="It also restarts the bots easel play started for that game.")
    p.add_argument("dir", metavar="GAME",
                   help="the game: last (your newest unfinished game), its short id (the first hex digits of its id, "
                        "as easel history prints it), or its directory <home>/games/<game id> (or its log)")
    seat_level_flag(p)
    send_flag(p)
    spectator_flag(p)
    seed_flags(p)
    p.add_argument("--fellows", default=None, help=argparse.SUPPRESS)     # a host's bot restarted by its resume
    relay_flag(p)

    p = add("again", "play again with the same seats, names, game and options once a game is over (a rematch)",
            epilog="Every seat that wants to play again runs it on its finished game's directory. The old host (seat 0)\n"
                   "opens the rematch on its old play port and restarts its bots; the others find it there. The new\n"
                   "game's genesis names the game before (previous). In the game's screen, the key a at game over\n"
                   "does the same at once, in the same terminal; n (or --decline) says no, so the rematch does not\n"
                   "wait for you. The rematch starts once every old seat is back or said no, or after 120 s with\n"
                   "the old seats that came back (at least two, as many as the game allows), renumbered in order.")
    p.add_argument("dir", metavar="GAME",
                   help="the finished game: last (your newest finished game), its short id (as easel history prints "
                        "it), or its directory <home>/games/<game id> (or its log)")
    seat_level_flag(p)
    p.add_argument("--decline", action="store_true",
                   help="say no: tell the rematch lobby this seat will not play again (so it does not wait for it)")
    spectator_flag(p)
    send_flag(p)
    relay_flag(p)

    p = add("watch", "follow a live table read-only, as a spectator (no hand, no sealed move, no vote)",
            epilog="TARGET is a seat's play address HOST:PORT (a seat's screen shows it), or a game you played or\n"
                   "left (its short id, last, or its directory): it then follows the table through the other seats.\n"
                   "Without TARGET, the tables on the LAN are listed as they are found, those in play numbered; on a\n"
                   "terminal, type a number and Enter to watch that table. If the seat it watches through goes, it\n"
                   "goes on through another seat of the table (it says so), for up to --patience seconds without one.")
    lan_target(p, "target", "TARGET", "HOST:PORT of a seat, a table's invitation (easel-...: through its host's seat), "
               "or a game's short id or directory (omit it to list the tables on the "
               "LAN, those in play with the address to watch)", "watch", "tables in play listed")
    p.add_argument("--json", action="store_true",
                   help="no screen: follow to the end, then print one JSON line (entries, first, first_view, head, "
                        "over, view, result, watching, names)")
    p.add_argument("--log", default=None, metavar="FILE",
                   help="also write the verified log received to FILE (easel audit/show/replay read it)")
    from p2p.limits import SPECTATOR_PATIENCE

    p.add_argument("--patience", dest="watch_patience", type=float, default=SPECTATOR_PATIENCE, metavar="SECONDS",
                   help="when the seat watched through goes, how long to keep knocking at the table's other seats "
                        "before giving up (default %(default)g)")

    p = add("demo", "a headless game: every seat a bot in its own process",
            epilog="A demo is repeatable: every salt and random draw comes from --seed, so nothing sealed is secret.")
    table_flags(p, 60.0, "all bots")
    p.add_argument("--seed", required=True, metavar="TEXT",
                   help="makes the demo repeatable: every salt and random draw comes from it, so nothing sealed is secret (required)")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="directory for the peers' homes and logs (made if missing; reusable) (required)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON line: logs (paths), head, heads, results, seconds (wall time)")

    p = add("games", "the games you can play, with their editions, options and bot levels")
    p.add_argument("--json", action="store_true",
                   help="print them as one JSON list: name, title, min/max/default_players, editions, options, bots")

    p = add("audit", "check log files offline: signatures, chain, commitments, seed and every rule",
            epilog="Exit status: 0 valid and finished, 1 invalid or unfinished, 2 usage error.")
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="log files (<home>/games/<game id>/log) or game directories (<home>/games/<game id>, 'last': "
                        "the newest game), whose log and spool are read (the evidence of disputed time-outs and "
                        "refused moves); several copies of one game are also checked against each other")
    p.add_argument("--json", action="store_true",
                   help="print the report as one JSON object: valid, complete, game, events, head, results, problems, "
                        "notes, cut_moves, signed_afterwards, illegal, certificates")

    p = add("history", "the games played from this home: date, game, seats, result and the log file",
            epilog="Newest first. Wherever a command takes a log FILE, 'last' is the newest game's log.")
    p.add_argument("--json", action="store_true",
                   help="print one JSON list: log, date, game, players, seat (ours), entries, status, result")

    p = add("replay", "step through a game in the terminal (Left/Right, Up/Down, Home/End)",
            epilog="A damaged or unfinished log is replayed as far as it goes, under the warning easel audit gives.")
    p.add_argument("file", metavar="FILE", help="a game's log file ('last': the newest game, see easel history)")
    p.add_argument("--as", dest="as_seat", type=int, default=None, metavar="SEAT",
                   help="see the game as seat SEAT saw it, 0 to players-1 (default: the public view)")

    p = add("show", "the table after entry N, as JSON", epilog=SHOW_FIELDS)
    p.add_argument("file", metavar="FILE", help="a game's log file ('last': the newest game)")
    p.add_argument("--at", type=int, default=None, metavar="N",
                   help="the entry after which to show the table, 0 (the genesis) to entries-1 (default: the last)")
    p.add_argument("--as", dest="as_seat", type=int, default=None, metavar="SEAT",
                   help="show seat SEAT's view, 0 to players-1, its own secrets included when they are known "
                        "(see secret_source below) (default: the public view)")
    p.add_argument("--json", action="store_true", help="accepted for clarity: the output is always JSON")

    p = add("export", "write one self-contained HTML page that replays a game, with its audit",
            epilog="The page needs no network: open it in any browser, step with the buttons, the slider or the\n"
                   "arrow keys (Left/Right one entry, Up/Down one step, Home/End). It shows the audit's verdict\n"
                   "and every seat key's fingerprint.")
    p.add_argument("file", metavar="FILE", help="a game's log file ('last': the newest game)")
    p.add_argument("--html", required=True, metavar="OUT",
                   help="the HTML file to write (- for standard output) (required)")
    p.add_argument("--as", dest="as_seat", type=int, default=None, metavar="SEAT",
                   help="what seat SEAT saw, its own secrets included, 0 to players-1 (default: the public view)")
    ap.set_defaults(_commands=sub.choices)
    return ap


def parse(ap: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """``ap.parse_args``, except that an unknown option is reported with its subcommand's usage (exit 2)."""
    args, extra = ap.parse_known_args(argv)
    if extra:
        sub = getattr(args, "_commands", {}).get(args.cmd) if args.cmd else None
        (sub or ap).error("unrecognized arguments: %s" % " ".join(extra))
    return args


# ----------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    """Run one command; a reader that closes our output early ends it quietly (exit 141)."""
    try:
        rc = _main(argv)
        sys.stdout.flush()
        return rc
    except BrokenPipeError:
        return _pipe_closed()
    except BaseExceptionGroup as group:
        if all(isinstance(e, BrokenPipeError) for e in leaves(group)):
            return _pipe_closed()
        raise


def _pipe_closed() -> int:
    # the rest of what we print goes nowhere, and so does the interpreter's last flush
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
    return EXIT_PIPE


def _stderr_back() -> None:
    """Standard error on the terminal again before a last word (the full-screen UI may have held it)."""
    shell = sys.modules.get("cli.shell")
    if shell is not None:
        shell.restore_stderr()


def unlabel_invitation(argv: list[str]) -> list[str]:
    """``easel join invite: easel-...``: the host's line pasted whole, unquoted, puts its label in a word of its
    own before the invitation (seen between two homes: "unrecognized arguments"); that word is dropped."""
    return [a for i, a in enumerate(argv)
            if not (a.strip().lower() == "invite:" and i + 1 < len(argv) and argv[i + 1].lower().startswith("easel-"))]


def _main(argv: list[str] | None) -> int:
    ap = build_parser()
    try:
        args = parse(ap, unlabel_invitation(list(sys.argv[1:] if argv is None else argv)))
    except SystemExit as exc:
        return int(exc.code or 0) if exc.code in (0, None) else EXIT_USAGE
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        stream=sys.stderr,
    )
    if args.cmd is None:
        args = ap.parse_args(["play"])
    try:
        offline = OFFLINE.get(args.cmd)       # the commands that need no network (the rest: cli/live.py)
        if offline is not None:
            return offline(args)
        if args.cmd == "relay":
            from .internet import relay_command

            return relay_command(args)
        if args.cmd in ("join", "watch") and not (args.address if args.cmd == "join" else args.target):
            from .tables import pick_from_lan       # listing first: the peers' code is imported once a table is picked

            args.picked = pick_from_lan(args)
            if args.picked is None:
                return EXIT_OK
        from . import live

        args.entry = main          # what a bot forked from our zygote runs (cli/zygote.py)
        return live.dispatch(args)
    except UsageError as exc:
        _stderr_back()
        print("easel: %s" % exc, file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        _stderr_back()
        print("easel: interrupted", file=sys.stderr)
        return 130
    except BaseExceptionGroup as group:  # trio nurseries wrap what their tasks raise
        _stderr_back()
        inner = leaves(group)
        if not all(isinstance(e, (UsageError, KeyboardInterrupt)) for e in inner):
            raise
        first = inner[0]
        if any(isinstance(e, KeyboardInterrupt) for e in inner):
            print("easel: interrupted", file=sys.stderr)
            return 130
        print("easel: %s" % first, file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
