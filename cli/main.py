"""The ``easel`` command.

    easel play [--game G] [--players N] [--option K=V ...]   a local table: you and bot peers over loopback
    easel host [--game G] [--players N] [--bots K] [--port P] [--option K=V ...]
    easel join [HOST:PORT]              list tables on the LAN (zeroconf) or join one
    easel bot --join HOST:PORT [--level L]
    easel resume DIR [--level L]        continue a game from its directory (after a crash)
    easel demo [--game G] [--players N] --seed S --out DIR [--json]
                                        (a demo is deterministic: its sealed moves are NOT secret)
    easel games [--json]                the games, their editions, options and bot levels
    easel audit FILE... [--json]        exit 0 valid and finished, 1 invalid, 2 usage
    easel replay FILE [--as SEAT]
    easel show FILE [--at N] [--as SEAT] --json

Every game comes from the registry (core.games): ``--game`` picks one (the
default is the registry's first), ``--option KEY=VALUE`` sets its options
(checked by the game's ``configure``), ``--level`` one of its ``bots``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys

from .common import (  # noqa: F401 - re-exported: older callers import them from here
    EXIT_INVALID,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    jsonable,
    parse_hostport,
    read_file,
    registry,
)


# ----------------------------------------------------------------------------- offline commands
def cmd_audit(args) -> int:
    from .auditing import audit_files

    files = {f: read_file(f) for f in args.files}
    rep = audit_files(files, games=registry)
    if args.json:
        print(json.dumps(jsonable(rep), indent=None, sort_keys=True))
    else:
        status = "VALID" if rep["valid"] else "INVALID"
        print("%s  game=%s  entries=%d  head=%s" % (status, rep["game"], rep["events"], rep["head"]))
        for p in rep["problems"]:
            where = "entry %s" % p["index"] if p.get("index") is not None else "-"
            print("  problem: %s %s: %s" % (p.get("file"), where, p["problem"]))
        for p in rep["notes"]:
            print("  note: entry %s: %s" % (p["index"], p["note"]))
        if rep["valid"] and not rep["complete"]:
            print("  the log is valid so far but the game is not finished")
        if rep["complete"]:
            print("  result: %s" % json.dumps(jsonable(rep["results"]), sort_keys=True))
    return EXIT_OK if rep["valid"] and rep["complete"] else EXIT_INVALID


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


def cmd_show(args) -> int:
    entries = load_log_entries(args.file)
    t, n = table_at(entries, args.at)
    if args.as_seat is not None and not 0 <= args.as_seat < t.players:
        raise UsageError("--as must be a seat between 0 and %d" % (t.players - 1))
    st = t.step
    out = {
        "entry": n,
        "entries": len(entries),
        "game": t.genesis.doc["game"],
        "seat": args.as_seat,
        "phase": t.phase,
        "step": None if st is None else {"phase": st.phase, "kind": st.kind, "purpose": st.purpose, "label": st.label, "seats": list(st.seats), "missing": list(t.missing())},
        "head": t.head,
        "view": t.view(args.as_seat),
        "result": t.result(),
    }
    print(json.dumps(jsonable(out), sort_keys=True))
    return EXIT_OK


def cmd_replay(args) -> int:
    import trio

    from .shell import ReplayUI

    entries = load_log_entries(args.file)
    if args.as_seat is not None:
        t, _ = table_at(entries, 0)
        if not 0 <= args.as_seat < t.players:
            raise UsageError("--as must be a seat between 0 and %d" % (t.players - 1))
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("replay needs a terminal (use: easel show FILE --at N --json)")
    try:
        ui = ReplayUI(entries, args.as_seat)
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
        print("  bot levels: %s" % (", ".join(g["bots"]) or "-"))
        print("  options (--option NAME=VALUE):" if g["options"] else "  options: none")
        for o in g["options"]:
            default = json.dumps(jsonable(o["default"])) if not isinstance(o["default"], str) else o["default"]
            print("    %-20s default %-10s %s" % (o["name"], default, o["help"]))
    return EXIT_OK


# ----------------------------------------------------------------------------- live commands
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="easel", description="Art board games, peer to peer, no server.")
    ap.add_argument("-v", "--verbose", action="store_true", help="log more")
    sub = ap.add_subparsers(dest="cmd")

    def seed_flags(p) -> None:
        p.add_argument("--seed", default=None, metavar="TEXT",
                       help="UNSAFE, for tests only: derive every salt and random contribution from TEXT, so anyone "
                            "who knows TEXT can compute every sealed bid; refused unless --unsafe-seed is given too")
        p.add_argument("--unsafe-seed", action="store_true",
                       help="accept --seed although it makes this seat's sealed moves computable (tests and demos)")

    def table_flags(p, timeout: float) -> None:
        p.add_argument("--game", default=None, help="the game (easel games lists them; default: the first listed)")
        p.add_argument("--players", type=int, default=None, help="seats at the table (default: the game's)")
        p.add_argument("--edition", default=None, help="the game's rules edition (easel games lists them)")
        p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                       help="a game option (repeatable; easel games lists them)")
        p.add_argument("--level", default=None, help="bot level (default: the game's second listed level)")
        p.add_argument("--timeout", type=float, default=timeout)

    p = sub.add_parser("play", help="a local table: you and bot peers")
    table_flags(p, 300.0)

    p = sub.add_parser("host", help="open a table on the LAN")
    table_flags(p, 300.0)
    p.add_argument("--bots", type=int, default=0)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--auto", default=None, help=argparse.SUPPRESS)        # host seat played by a bot
    seed_flags(p)
    p.add_argument("--bind", default=None, help=argparse.SUPPRESS)
    p.add_argument("--no-advertise", action="store_true", help=argparse.SUPPRESS)

    p = sub.add_parser("join", help="list open tables, or join HOST:PORT")
    p.add_argument("address", nargs="?")
    p.add_argument("--wait", type=float, default=3.0, help="seconds to browse the LAN")

    p = sub.add_parser("bot", help="a bot peer that joins a table")
    p.add_argument("--join", required=True, metavar="HOST:PORT")
    p.add_argument("--level", default=None, help="bot level (default: the table's game's default level)")
    seed_flags(p)
    p.add_argument("--name", default="bot")

    p = sub.add_parser("resume", help="continue a game from its directory")
    p.add_argument("dir")
    p.add_argument("--level", default=None, help="play the seat with this bot (default: you, in the UI)")
    seed_flags(p)

    p = sub.add_parser("demo", help="a headless game: every seat a bot in its own process")
    table_flags(p, 60.0)
    p.add_argument("--seed", required=True,
                   help="makes the demo repeatable; every salt and random draw comes from it, so nothing sealed is secret")
    p.add_argument("--out", required=True)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("games", help="the games you can play, with their editions, options and bot levels")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("audit", help="check log files offline")
    p.add_argument("files", nargs="+")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("replay", help="step through a game")
    p.add_argument("file")
    p.add_argument("--as", dest="as_seat", type=int, default=None)

    p = sub.add_parser("show", help="the state after entry N as JSON")
    p.add_argument("file")
    p.add_argument("--at", type=int, default=None)
    p.add_argument("--as", dest="as_seat", type=int, default=None)
    p.add_argument("--json", action="store_true", help="(the output is always JSON)")

    try:
        args = ap.parse_args(argv)
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
        if args.cmd == "audit":
            return cmd_audit(args)
        if args.cmd == "show":
            return cmd_show(args)
        if args.cmd == "replay":
            return cmd_replay(args)
        if args.cmd == "games":
            return cmd_games(args)
        from . import live

        return live.dispatch(args)
    except UsageError as exc:
        print("easel: %s" % exc, file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("easel: interrupted", file=sys.stderr)
        return 130
    except BaseExceptionGroup as group:  # trio nurseries wrap what their tasks raise
        usage = group.subgroup(lambda e: isinstance(e, (UsageError, KeyboardInterrupt)))
        if usage is None or group.subgroup(lambda e: not isinstance(e, (UsageError, KeyboardInterrupt))) is not None:
            raise
        first = usage.exceptions[0]
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        if isinstance(first, KeyboardInterrupt):
            print("easel: interrupted", file=sys.stderr)
            return 130
        print("easel: %s" % first, file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
