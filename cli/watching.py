"""Watching a table (easel watch): a spectator follows a live table read-only (protocol.md §9.8), through p2p.watch."""

from __future__ import annotations

import json
from pathlib import Path

import trio

from p2p.identity import IdentityError, load_or_create
from p2p.node import load_roster
from p2p.store import write_atomic

from .common import EXIT_INVALID, EXIT_OK, UsageError, jsonable, parse_hostport, registry
from .internet import invitation, is_invitation
from .options import LiveArgs


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
    if is_invitation(target):
        inv = invitation(target)
        return [(inv.peer, inv.play_port)]      # the host's seat, through our libp2p node (cli/internet.py)
    return [parse_hostport(target)]


async def watch_main(args: LiveArgs, ui_factory=None) -> int:
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

