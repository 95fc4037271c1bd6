"""The terminal closing (SIGHUP): while a game runs, the person quitting (as q); anywhere else, Ctrl-C.

``catch_hangups()`` (cli/live.py, before a command that plays a seat) installs ``_hung_up``;
run_node (cli/runner.py) arms ``HangUp`` while it plays a seat and tells it how to leave.
"""

from __future__ import annotations

import os
import signal

import trio


class HangUp:
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


_TERMINAL_FDS: set[int] = set()     # our output descriptors that are a terminal (catch_hangups notes them)


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
    """SIGHUP: the terminal closed. While a game runs, the person quits as with q (``HangUp``); anywhere
    else (the lobby, a name asked, the way out) it is Ctrl-C, which trio delivers where Ctrl-C would go."""
    detach_terminal()
    if HangUp.armed:
        HangUp.heard = True
        if HangUp.leave is not None and HangUp.token is not None:
            try:
                HangUp.token.run_sync_soon(HangUp.leave)
            except trio.RunFinishedError:
                pass
        return
    os.kill(os.getpid(), signal.SIGINT)


def catch_hangups() -> None:
    """From now on a closed terminal is the person quitting: in a game, what q does (``HangUp``), elsewhere
    what Ctrl-C does; either way our way out runs (finish_bots: easel play's bots, in their own session,
    are stopped rather than left playing alone)."""
    if not hasattr(signal, "SIGHUP"):
        return
    _TERMINAL_FDS.clear()
    _TERMINAL_FDS.update(fd for fd in (1, 2) if _fd_isatty(fd))
    signal.signal(signal.SIGHUP, _hung_up)
