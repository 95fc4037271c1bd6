"""The effects a ``Peer`` returns (p2p/protocol.py), for its shell (p2p/node.py) to carry out *in order*:
every ``WriteSpool``/``WriteLog``/``WriteSecret`` comes before the ``Send``/``Broadcast`` that depends on
it, so nothing is sent or acknowledged before it is on disk (protocol.md §8)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Send:
    to: bytes
    msg: bytes


@dataclass
class Broadcast:
    msg: bytes
    # the frame carries only our own new event: before it leaves, the shell makes our secrets
    # and spool durable (the event and the sealed value it commits to), not the log (§8)
    own: bool = False


@dataclass
class WriteSpool:
    entries: list


@dataclass
class WriteLog:
    entries: list


@dataclass
class TruncateLog:
    count: int


@dataclass
class WriteSecret:
    phase: int
    value: Any
    salt: bytes


@dataclass
class Disconnect:
    peer: bytes
    reason: str


@dataclass
class Changed:
    """The table advanced (or was rolled back): views and decisions may have changed."""


@dataclass
class Alert:
    text: str


@dataclass
class Resume:
    """Our own new event was sent before it was placed (``Peer.send_first``): once the frames
    are on their way, the shell calls ``Peer.resume()`` and runs what it returns."""
