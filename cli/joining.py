"""Joining a table (easel join, easel bot, a rematch's other seats): reach its lobby, wait to be seated, play.

``reach_table`` knocks at a lobby (p2p.lobby.join over TLS) until it answers, then waits as long
as the table takes to fill; ``Connecting`` says so on standard error meanwhile; ``join_main``
then plays our seat (cli/runner.py).
"""

from __future__ import annotations

import functools
import shutil
import ssl
import sys
import time

import trio

from p2p import tls
from p2p.lobby import LobbyError, describe_seats, join

from .bots import leave_when_alone
from .children import free_port
from .common import UsageError, isatty, registry
from .home import identity_or_exit
from .runner import SeatEnd, report, run_node

CONNECT_PATIENCE = 15.0   # seconds join keeps trying to reach a lobby before it gives up
RETRY_PAUSE = 0.2         # seconds between two attempts



class Connecting:
    """ "connecting to HOST:PORT..." on standard error, from the first second until the table is sealed.

    On a terminal the line is redrawn in place with the attempts and the
    seconds so far; elsewhere (a log file, a pipe) one line per change of
    state.  Either way it names the cancel key.
    """

    def __init__(self, where: str, stream=None, live: bool | None = None, rematch: bool = False) -> None:
        self.where = where
        self.rematch = rematch      # a rematch lobby (§9.9): its seat numbers are not the game's yet
        self.stream = stream if stream is not None else sys.stderr
        self.live = isatty(self.stream) if live is None else live
        self.attempts = 0
        self.seated: tuple | None = None
        self.t0 = time.monotonic()
        self._said = ""
        self._drawn = False
        self._seats = ""

    def text(self) -> str:
        took = time.monotonic() - self.t0
        if self.seated is None:
            return "connecting to %s... attempt %d, %.0f s (Ctrl-C cancels)" % (self.where, max(1, self.attempts), took)
        seat, players, game = self.seated
        if self.rematch:
            return "in the rematch lobby %s: waiting for the other seats... %.0f s (Ctrl-C cancels)" % (
                self.where, took)
        return "connected to %s: seat %s of %s at a %s table; waiting for the other seats... %.0f s (Ctrl-C cancels)" % (
            self.where, seat, players, game, took)

    def show(self) -> None:
        text = self.text()
        try:
            if self.live:
                # one terminal line at most: a wrapped line would be redrawn on its second row, piling up copies
                width = shutil.get_terminal_size((100, 30)).columns
                line = "easel: " + text
                if len(line) >= width:
                    line = line[:max(10, width - 2)] + "…"
                self.stream.write("\r\x1b[K" + line)
                self._drawn = True
            else:
                state = text.split("...", 1)[0]
                if state == self._said:
                    return
                self._said = state
                self.stream.write("easel: " + text + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass

    def on_seated(self, seat, players, game) -> None:
        self.seated = (seat, players, game)
        self.show()

    def on_seats(self, seats: list) -> None:
        """The lobby's seats changed: say who sits where (a line of its own, then the progress line again)."""
        me = self.seated[0] if self.seated else None
        text = describe_seats(seats, me if isinstance(me, int) and 0 <= me < len(seats) else None)
        if text == self._seats:
            return
        self._seats = text
        self.close()
        try:
            self.stream.write("easel: seats: %s\n" % text)
            self.stream.flush()
        except (OSError, ValueError):
            pass
        self.show()

    def close(self) -> None:
        """End the line (before the UI opens or an error is printed)."""
        if self._drawn:
            try:
                self.stream.write("\n")
                self.stream.flush()
            except (OSError, ValueError):
                pass
            self._drawn = False

    async def tick(self, every: float = 0.25) -> None:
        while True:
            self.show()
            await trio.sleep(every)


def _closed_without_tls(exc: BaseException) -> bool:
    """A handshake the lobby closed before TLS began: a busy listener refusing a connection over one of its
    limits (MAX_HANDSHAKES_PER_ADDR: a host's own bots all knock at once from 127.0.0.1), knocked at again
    like a refused connection; a TLS alert, a certificate or a pin that does not match is final."""
    cause = exc.__cause__
    return isinstance(cause, (ConnectionError, trio.BrokenResourceError)) and not isinstance(cause, ssl.SSLError)


async def reach_table(host: str, port: int, identity, play_port: int, *, name: str, expect_fp: str | None,
                      progress: Connecting | None, patience: float = CONNECT_PATIENCE, about: dict | None = None,
                      previous: bytes | None = None):
    """``p2p.lobby.join``, retried until the lobby answers (at most ``patience`` seconds), then waited on until
    the table is sealed (as long as it takes: the others may take their time to join)."""
    deadline = trio.current_time() + patience
    attempts = 0
    if tls.route() is not None:      # beyond the LAN: a lobby's stream stays on the path it came by (a rematch's too)
        tls.route().keep_relayed.add(port)
    while True:
        attempts += 1
        if progress is not None:
            progress.attempts = attempts
        seated = False

        def on_seated(seat, players, game):
            nonlocal seated
            seated = True
            scope.deadline = float("inf")   # in the lobby: wait for the table to fill, however long
            if progress is not None:
                progress.on_seated(seat, players, game)

        with trio.CancelScope(deadline=deadline) as scope:
            try:
                return await join(host, port, identity, play_port, name=name, expect_fingerprint=expect_fp,
                                  games=registry, on_seated=on_seated, about=about,
                                  on_seats=progress.on_seats if progress is not None else None, previous=previous)
            except (OSError, tls.TLSHandshakeError) as exc:
                if isinstance(exc, tls.TLSHandshakeError) and (seated or not _closed_without_tls(exc)):
                    raise UsageError(str(exc)) from None
                if trio.current_time() + RETRY_PAUSE > deadline:
                    raise UsageError("cannot reach %s:%d after %d attempt(s) in %.0f s: %s" % (
                        host, port, attempts, patience, exc.strerror or exc)) from None
                await trio.sleep(RETRY_PAUSE)
                continue
            except (LobbyError, tls.TLSError) as exc:
                if previous is not None and not seated and not str(exc).startswith("host refused") \
                        and trio.current_time() + RETRY_PAUSE <= deadline:
                    # a rematch: the old game may still hold that port for a moment (its seat 0 finishing):
                    # what answered is not the rematch lobby yet, so knock again (a lobby's refusal is final)
                    await trio.sleep(RETRY_PAUSE)
                    continue
                raise UsageError(str(exc)) from None
        if scope.cancelled_caught and not seated:
            raise UsageError("cannot reach %s:%d: no answer in %.0f s (%d attempt(s))" % (host, port, patience, attempts))


async def join_main(host: str, port: int, decide_factory, *, seed: str | None, name: str, ui_factory=None,
                    expect_fp: str | None = None, progress: bool | None = None, about: dict | None = None,
                    spectators: bool = True, previous: bytes | None = None, patience: float = CONNECT_PATIENCE,
                    where: list | None = None, bind: str | None = None, fellows: set | None = None) -> int:
    """Join a table; ``progress`` (default: for a person, or on a terminal) shows "connecting to ..." meanwhile.

    ``bind``: where our seat listens (default: loopback for a table on this machine, else every interface;
    a host's own bots listen where their host does). ``fellows``: we are a bot a host started, and these
    are the keys of all its bots: we leave once no other seat has been connected to us for a while
    (``leave_when_alone``)."""
    identity = identity_or_exit()
    loop = host in ("127.0.0.1", "localhost", "::1")
    if bind is None:
        bind = "127.0.0.1" if loop else "0.0.0.0"
    play_port = free_port(bind if bind != "0.0.0.0" else "")
    if progress is None:
        progress = ui_factory is not None or isatty(sys.stderr)
    # beyond the LAN the host is a libp2p peer id, no address to show a person: "the host (through the relay)"
    lobby = "the host (through the relay)" if tls.route() is not None and tls.route().owns(host) else "%s:%d" % (host, port)
    shown = Connecting(lobby, rematch=previous is not None) if progress else None
    try:
        async with trio.open_nursery() as nursery:
            if shown is not None:
                nursery.start_soon(shown.tick)
            genesis, roster = await reach_table(host, port, identity, play_port, name=name, expect_fp=expect_fp, progress=shown,
                                                about=about if about is not None else {}, previous=previous, patience=patience)
            nursery.cancel_scope.cancel()
    finally:
        if shown is not None:
            shown.close()
    # the host's own address is "" when it listens on every interface, and so are those of the bots it
    # started (they listen where it does): they are where we found it (protocol.md §9.3); our own stays
    # as it is, so that a resume listens where we do now
    seat = genesis.doc["seats"].index(identity.public)
    for i, a in enumerate(roster["addrs"]):
        if a[0] in ("", "0.0.0.0") and i != seat:
            a[0] = host
    ui = ui_factory(node_seat=seat) if ui_factory else None
    decide = decide_factory(genesis.doc["game"]) if decide_factory else ui.decide
    watch = functools.partial(leave_when_alone, fellows=fellows) if fellows else None
    end = SeatEnd()
    node = await run_node(identity, genesis, roster, decide, timeout=float(genesis.doc.get("timeout", 60)), seed=seed, ui=ui, bind=bind,
                          spectators=spectators, watch=watch, end=end)
    if where is not None and node.peer.table.over:
        where.append(node.store.dir)      # the finished game's directory (easel bot --again plays it again)
    return report(node, interactive=ui is not None, end=end)
