"""The terminal closing (SIGHUP): while a game runs, the person quitting (as q); anywhere else, Ctrl-C.

``catch_hangups()`` (cli/live.py, before a command that plays a seat) installs ``_hung_up``;
run_node (cli/runner.py) arms ``HangUp`` while it plays a seat and tells it how to leave;
the command's trio run is ``run`` (not ``trio.run``), which a hang-up outside a game ends.

Outside a game the hang-up never goes through SIGINT: a command started in the background of a
shell script (``easel host ... &``) inherits SIGINT ignored, so Python and trio leave Ctrl-C alone,
and a hang-up sent on as SIGINT went nowhere: such a host sat in its lobby for ever (seen once in
12 runs of test_the_bots_started_in_the_lobby_go_when_the_host_leaves_it under load).
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
    # outside a game: the terminal closed (the command ends as on Ctrl-C), and the run ``run`` runs (cancelled then)
    interrupted = False
    scope = None
    scope_token = None

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
    else (the lobby, the table starting, a name asked, the way out) the command ends as on Ctrl-C:
    in ``run`` its whole run is cancelled (every ``finally`` runs: the lobby's bots are stopped; a
    cancellation, unlike one KeyboardInterrupt, is raised again at every later checkpoint and never cuts
    a stop of our bots short), then KeyboardInterrupt (exit 130); with no event loop, KeyboardInterrupt
    at once. Whatever SIGINT's disposition: none of it goes through SIGINT."""
    detach_terminal()
    if HangUp.armed:
        HangUp.heard = True
        if HangUp.leave is not None and HangUp.token is not None:
            try:
                HangUp.token.run_sync_soon(HangUp.leave)
            except trio.RunFinishedError:
                pass
        return
    HangUp.interrupted = True
    scope, token = HangUp.scope, HangUp.scope_token
    if scope is not None and token is not None:
        try:
            token.run_sync_soon(scope.cancel)
            return
        except trio.RunFinishedError:
            pass
    if trio.lowlevel.in_trio_run():
        # ``run`` starting or ending (it looks at ``interrupted`` on both sides of its scope), or a run of
        # trio.run itself: Ctrl-C's way there, if trio catches Ctrl-C in it
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler) and handler is not signal.default_int_handler:
            handler(signal.SIGINT, frame)
        return
    raise KeyboardInterrupt


def run(async_fn, *args):
    """``trio.run(async_fn, *args)`` for a command whose terminal may close (``catch_hangups``): a hang-up
    outside a game cancels the whole run; it then ends in KeyboardInterrupt, as Ctrl-C would (``easel:
    interrupted``, exit 130)."""
    return trio.run(_interruptible, async_fn, args)


async def _interruptible(async_fn, args):
    with trio.CancelScope() as scope:
        HangUp.scope, HangUp.scope_token = scope, trio.lowlevel.current_trio_token()
        try:
            if HangUp.interrupted:        # before the run began (or in an earlier one): nothing to run
                scope.cancel()
            result = await async_fn(*args)
        finally:
            HangUp.scope = HangUp.scope_token = None
    if HangUp.interrupted:
        raise KeyboardInterrupt
    return result


def catch_hangups() -> None:
    """From now on a closed terminal is the person quitting: in a game, what q does (``HangUp``), elsewhere
    what Ctrl-C does; either way our way out runs (finish_bots: easel play's bots, in their own session,
    are stopped rather than left playing alone)."""
    if not hasattr(signal, "SIGHUP"):
        return
    HangUp.interrupted = False
    _TERMINAL_FDS.clear()
    _TERMINAL_FDS.update(fd for fd in (1, 2) if _fd_isatty(fd))
    signal.signal(signal.SIGHUP, _hung_up)
