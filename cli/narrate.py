"""What a seat or a spectator without a screen says while the game runs (easel bot, host --auto, resume and
again --level, the demo's bots, easel watch --json).

* **Talk lines** (protocol.md §9.11), as they arrive and each once, as a JSON record on standard output:
  ``{"said": {"name": "Ann", "phase": 12, "seat": 0, "text": "hello"}}`` (a headless command's standard
  output is JSON lines, its report the last one). A line shown when it arrived is not shown again when the
  log places it with its author's next answer, nor when a roll-back places it again.
* **Whom the table waits for**, on standard error (``easel: ...``): the lines a screen shows about seats that
  are gone (cli/runner.py ``silence_lines``: who, since when, what the table does, e.g. "the game cannot pass
  the deal without Cy (seat 2): the table waits for Cy up to 180 s ..."), each time they change, without the
  screen's "you can wait, or quit (q)" (nobody to tell it to).
"""

from __future__ import annotations

import json
import sys
from typing import Any, Iterable

import trio

from core.events import seat_names


def said_record(names, d: dict) -> dict:
    """One talk line as the JSON record a headless seat prints."""
    seat = d["seat"]
    name = names[seat] if 0 <= seat < len(names) else "seat %d" % seat
    return {"said": {"seat": seat, "name": name, "phase": d.get("phase"), "text": d["text"]}}


class Narrator:
    """Prints each talk line once, and the wait words when they change."""

    def __init__(self, names, out: Any = None, err: Any = None) -> None:
        self.names = list(names)
        self.out = out
        self.err = err
        self.shown: set = set()       # (seat, seq) of the lines printed
        self.words: list = []         # the wait words last printed
        self.met: set = set()         # seats that have been connected to us (a seat not met yet is not "gone")

    def said(self, lines: Iterable[dict]) -> int:
        """Print the lines not printed yet (``Peer.talk_lines``, ``Table.said``, ``Watched.talk`` dicts)."""
        new = 0
        for d in lines:
            key = (d["seat"], d["seq"])
            if key in self.shown:
                continue
            self.shown.add(key)
            new += 1
            print(json.dumps(said_record(self.names, d), sort_keys=True), file=self.out or sys.stdout, flush=True)
        return new

    def node_changed(self, node) -> None:
        """Print what changed at a headless seat (``narrate``)."""
        self.said(node.peer.talk_lines())
        self.met |= {s for s, k in enumerate(node.keys) if k in node.conns}
        self.waits(wait_words(node, self.met))

    def waits(self, lines: list) -> list:
        """Print the wait words that are new since the last call (the same words are not repeated)."""
        new = [w for w in lines if w not in self.words]
        self.words = list(lines)
        for w in new:
            print("easel: %s" % w, file=self.err or sys.stderr, flush=True)
        return new


def wait_words(node, met=None) -> list:
    """A headless seat's words about the seats that are gone (cli/runner.py ``silence_lines``, as the screen
    says them, without the person's "you can wait, or quit"); ``met``: the seats that have been connected to
    us (None: all), so that the seats not connected yet as the game starts are not named as gone."""
    from .runner import _short_id, needed_step, silence_lines

    t = node.peer.table
    doc = node.genesis.doc
    left = node.peer.left_seats()
    silent = {s: at for s, at in node.silent_since.items() if met is None or s in met}
    gone = bool(silent or left) and not t.over
    return silence_lines(seat_names(doc), silent, node.seat, float(doc.get("timeout", 60)), t.over,
                         _short_id(node.store.dir) if gone else "", left=left, needed=needed_step(node.peer),
                         person=False)


async def narrate(node, narrator: Narrator) -> None:
    """Beside a headless seat's node until the game is over: print what changed, when its table or alerts
    change (``GameNode.changed``: an entry, a talk line, a note) or a connection drops (``GameNode.lost``). Not
    the node's ``on_change``: that would wake the node's ticker at every input, as for a screen."""
    while not node.done.is_set():
        changed, lost = node.changed, node.lost
        narrator.node_changed(node)
        async with trio.open_nursery() as either:
            for ev in (changed, lost):
                either.start_soon(_set_then_cancel, ev, either.cancel_scope)


async def _set_then_cancel(ev, scope) -> None:
    await ev.wait()
    scope.cancel()


def table_lines(table, unplaced: list) -> list:
    """A spectator's talk lines: those the log placed (``Table.said``) and those the seat it follows holds
    unplaced (``Watched.talk``)."""
    return list(getattr(table, "said", []) or []) + list(unplaced)
