"""Watching a table (easel watch): a spectator follows a live table read-only (protocol.md §9.8), through p2p.watch."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import trio

from core.events import seat_names
from p2p.identity import IdentityError, load_or_create
from p2p.node import load_roster
from p2p.store import write_atomic

from .common import EXIT_INVALID, EXIT_OK, UsageError, jsonable, parse_hostport, registry
from .internet import invitation, is_invitation
from .narrate import Narrator, table_lines
from .options import LiveArgs


def watch_targets(target: str) -> list[tuple[str, int]]:
    """``easel watch``'s target: HOST:PORT (a seat's play address), or a game we played or left (its
    directory, its short id or ``last``, as easel resume takes them): every other seat's address from its roster."""
    from .history import resolve_game_dir

    d = Path(target) if ":" in target else resolve_game_dir(target)
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
    if is_invitation(target):
        inv = invitation(target)
        return [(inv.peer, inv.play_port)]      # the host's seat, through our libp2p node (cli/internet.py)
    return [parse_hostport(target)]


async def watch_main(args: LiveArgs, ui_factory=None) -> int:
    """Follow a live table read-only: with the game's screen (a terminal), or headless (``--json``)."""
    from p2p.watch import WatchError, follow

    targets = watch_targets(args.target)
    ui = ui_factory(node_seat=None) if ui_factory else None
    got = None
    first_view: list = []
    notes: list = []            # what changed in whom we watch through (shown until the next change)
    current = [None]
    narrator: list = [None]     # headless: the talk lines printed (cli/narrate.py)

    def status(w) -> str:
        through = "through %s, " % w.name(w.through) if w.through is not None else ""
        return "%s%d watching" % (through, max(1, w.watching))

    def changed(w) -> None:
        current[0] = w
        if w.first and not first_view:
            first_view.append((w.first, w.table.view(None)))
        if ui is None and w.table is not None:
            if narrator[0] is None:
                narrator[0] = Narrator(seat_names(w.table.genesis.doc))
            narrator[0].said(table_lines(w.table, w.talk()))     # each talk line once, as it arrives (§9.11)
        if ui is not None and w.table is not None:
            ui.update(w.table, notes[-1:], status(w), waiting=w.waiting(), talk=w.talk())

    def note(text: str) -> None:
        if ui is None:
            print("easel: %s" % text, file=sys.stderr, flush=True)
            return
        if notes or not text.startswith("watching through "):    # the first seat: the status line says it
            notes.append(text)
        if current[0] is not None and current[0].table is not None:
            w = current[0]
            ui.update(w.table, notes[-1:], status(w), waiting=w.waiting(), talk=w.talk())

    async def following() -> None:
        nonlocal got
        try:
            got = await follow(targets, changed, note, games=registry, patience=args.watch_patience)
        except WatchError as exc:
            raise UsageError(str(exc)) from None

    if ui is None:
        await following()
    else:
        async with trio.open_nursery() as n:
            async def watch_ui():
                await ui.run()
                n.cancel_scope.cancel()

            n.start_soon(watch_ui)
            await following()
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

