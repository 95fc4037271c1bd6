"""This Easel home (p2p.identity.data_dir): its key (the identity), the name its player sits under
(kept in profile.json), and the directory it keeps each game in."""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path

from core.events import clean_name, name_problem
from p2p.identity import IdentityError, data_dir, load_or_create
from p2p.node import save_roster
from p2p.store import GameStore, StoreError, describe_os_error, remove_temp_files, write_atomic

from .common import UsageError

log = logging.getLogger("easel.cli")

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


def check_name(name: str) -> None:
    """``--name``: 1 to 48 bytes of printable text, or a usage error."""
    why = name_problem(name)
    if why:
        raise UsageError("--name %r %s (1 to 48 bytes of printable text)" % (name, why))


def player_name(given: str | None, interactive: bool, ask=input, out=None) -> str:
    """The name a person plays under: ``--name`` (checked, not kept), else the one kept in the profile,
    else (asked once on a terminal, then kept) the user name or "player"."""
    if given is not None:
        check_name(given)
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


RELAY_FILE = "relay"     # in a game's directory: the relay an internet game was last played through (protocol.md §8)


def save_relay(d: Path) -> None:
    """At a table beyond the LAN (a route in force, cli/internet.py): keep the relay's address with the game, so that
    easel resume and easel again reach the others through it with no argument (only rewritten when it changed)."""
    from p2p import tls

    relay = getattr(tls.route(), "relay", None)
    if not relay:
        return
    data = (relay + "\n").encode()
    try:
        if (d / RELAY_FILE).read_bytes() == data:
            return
    except OSError:
        pass
    write_atomic(d / RELAY_FILE, data)


def read_relay(d: Path) -> str | None:
    """The relay kept with the game in directory ``d`` (save_relay), or None: a LAN game."""
    try:
        text = (d / RELAY_FILE).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text or None


def open_store(genesis, roster) -> GameStore:
    """The game's directory, opened, with its roster written: a StoreError (one line) on failure.

    A failure at any point (a full disk, an I/O error) leaves no temp file
    behind, so the next start begins from a clean directory.
    """
    store = GameStore(game_dir(genesis))
    try:
        save_roster(store, genesis, roster)
        save_relay(store.dir)
    except OSError as exc:
        store.close()
        remove_temp_files(store.dir)
        raise StoreError(describe_os_error(store.dir / "roster", exc)) from None
    except BaseException:
        store.close()
        remove_temp_files(store.dir)
        raise
    return store
