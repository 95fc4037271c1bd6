"""The one way a decided action goes from the person's screen to the node: the ``Outbox``.

The node runs in trio on the main thread; the full-screen UI (prompt-toolkit, asyncio) runs in a
worker thread (cli/panes.py ``BaseUI.run``).  A decided action crosses between them here, and
nowhere else:

* UI thread: the composer (cli/composer.py ``Composer.send``) has checked and sealed the action
  against the decision asked; the shell posts its ``Decided`` here (``Outbox.post``).  The one
  thread hop is inside ``post``: ``run_sync_soon`` onto the node's trio loop, non-blocking, which
  puts the ``Decided`` on a trio memory channel.
* trio thread: the node's decider loop (p2p/node.py ``GameNode._decider``) awaits
  ``GameUI.decide``, which ``listen``s and awaits ``Outbox.take(asked)``: the action decided for that question, or
  None once the shell ``withdraw``s it (its step closed without us).  The node then hands the
  action to ``Peer.act``.

An answer to an older question (posted twice, or after its step closed) is dropped by ``take``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import trio

__all__ = ["Decided", "NodeStopped", "Outbox"]


@dataclass(frozen=True)
class Decided:
    """An answer to one decision: ``asked`` (cli/composer.py ``Asked``, matched by identity) and the
    ``action`` decided, checked and sealed as the peer will send it; None: withdrawn (no move)."""

    asked: Any
    action: Any


class NodeStopped(Exception):
    """The node's trio loop is gone (or never asked anything): nothing can be posted to it."""


class Outbox:
    """A trio memory channel the node's loop awaits, fed from the UI thread (see the module's doc)."""

    def __init__(self) -> None:
        self._send, self._receive = trio.open_memory_channel(math.inf)
        self._token: Any = None          # the trio loop that takes from here (set by listen)

    def listen(self) -> None:
        """The trio loop calling this (the node's) is the one ``post`` hands answers to (trio thread)."""
        self._token = trio.lowlevel.current_trio_token()

    def post(self, decided: Decided) -> None:
        """Hand ``decided`` to the node (any thread, non-blocking); NodeStopped if its loop is gone."""
        token = self._token
        if token is None:
            raise NodeStopped("no game node is waiting for a move")
        try:
            token.run_sync_soon(self._send.send_nowait, decided)
        except trio.RunFinishedError:
            raise NodeStopped("the game node has stopped") from None

    def withdraw(self, asked: Any) -> None:
        """The step ``asked`` was for closed without our answer: its ``take`` returns None (trio thread)."""
        self._send.send_nowait(Decided(asked, None))

    async def take(self, asked: Any) -> Any:
        """The action decided for ``asked`` (trio thread), or None if it was withdrawn first."""
        while True:
            decided = await self._receive.receive()
            if decided.asked is asked:
                return decided.action
