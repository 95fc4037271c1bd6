"""A spectator: follow a live table read-only (protocol.md §9.8).

It connects to any seat's play address with TLS and no client certificate,
sends ``["watch", 1]``, and receives ``["genesis", entry]``, then
``["entry", entry]`` for every log entry in order, ``["sealed", [event, ...]]``
(the commitments the seat holds for the current commit step, not yet in the
log: who has sealed a move, never what) and ``["watching", n]`` now and
then, ``["addrs", [[host, port], ...]]`` (every seat's address), and ``["said", [event, ...]]`` (the
talk lines the seat holds that its log has not placed yet, §9.11). It checks every
entry as a peer does (the genesis and every signature, the chain and every rule:
core.table.Table), and that the seat it reached holds a seat of that genesis. It
holds no key of the game and no seat secret, so it sees exactly what the log makes
public.

**Following the table** (``follow``): when the seat it follows goes (its connection
closed, dropped or refused, or it ends before the game is over), the spectator knocks
at the other seats (their addresses from the ``addrs`` frame, or those it was given)
and goes on through the first that answers: that seat's log must hold, byte for byte,
every entry already verified (it is read, compared and not shown again while it
catches up; an entry that differs is a roll-back, §6.6: the view steps back to the
common prefix and goes on from there, every new entry checked as before). No seat
answering for ``SPECTATOR_PATIENCE`` s ends it with a clear word.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import trio

from core import games as registry
from core.encoding import CanonicalError, decode, encode
from core.events import EntryError, parse_event, parse_genesis, say_problem, seat_names
from core.table import RuleError, Table, replay

from . import tls
from .framing import ConnectionClosed, FrameError, FramedStream
from .limits import (FRAME_DEADLINE, SPECTATOR_DIAL, SPECTATOR_IDLE, SPECTATOR_PATIENCE, SPECTATOR_RETRY,
                     SPECTATOR_RETRY_MAX)


class WatchError(Exception):
    """The table cannot be watched (refused, unreachable, or it sent something invalid): one line."""


class Invalid(WatchError):
    """The seat sent something invalid (or is not at this table): never followed again."""


@dataclass
class Watched:
    table: Table | None = None
    entries: list = field(default_factory=list)
    first: int = 0              # entries received in the first batch (how far the game was when we came)
    watching: int = 0           # spectators the seat we follow serves (ourselves included)
    seat_key: bytes | None = None
    sealed: frozenset = frozenset()     # seats whose commitment for the step at ``sealed_at`` the seat holds
    sealed_at: int = -1                 # the log length (table.count) those commitments are for
    addrs: list = field(default_factory=list)   # every seat's (host, port), seat order, as the seat we follow told
    through: int | None = None          # the seat we follow now (None: not connected)
    last_seat: int | None = None        # the seat reached by the last connection (None: none was)
    said: list = field(default_factory=list)    # talk lines the seat holds not placed yet: (seat, seq, text, phase), arrival order

    def talk(self) -> list:
        """The talk lines to show beside the log's (``Table.said``): those not placed yet, as
        ``Peer.talk_lines`` gives them (placed False)."""
        placed = {(d["seat"], d["seq"]) for d in self.table.said} if self.table is not None else set()
        return [{"seat": s, "seq": q, "phase": ph, "text": text, "placed": False}
                for s, q, text, ph in self.said if (s, q) not in placed]

    def name(self, seat: int | None) -> str:
        """A seat as people read it: its name in the genesis (else "seat N")."""
        if seat is None or self.table is None:
            return "the seat"
        return seat_names(self.table.genesis.doc)[seat]

    def waiting(self) -> list[int] | None:
        """The seats the current step still waits for, as public as it gets: a seat whose signed
        commitment the seat we follow has shown us is sealed (its event is placed in the log only once
        the step's last one is in).  None before the genesis."""
        t = self.table
        if t is None:
            return None
        sealed = self.sealed if self.sealed_at == t.count else frozenset()
        return [s for s in t.missing() if s not in sealed]


def take_sealed(w: Watched, items: Any) -> None:
    """A ``["sealed", [event, ...]]`` frame: each a signed commitment valid for the table's current
    step (signature, game, author's seat, step, kind: what a peer checks); EntryError or RuleError if not."""
    t = w.table
    if t is None or not isinstance(items, list) or len(items) > t.players:
        raise EntryError("a sealed list that does not fit the table")
    st = t.step
    seats = set()
    for raw in items:
        if not isinstance(raw, bytes):
            raise EntryError("a sealed item that is not an event")
        ev = parse_event(raw)                         # its signature
        if st is None or st.kind != "commit":
            raise RuleError("a sealed commitment while the table is not at a commit step")
        seats.add(t.check_event(ev))                  # this game, this step, a seat of it, a commit
    w.sealed, w.sealed_at = frozenset(seats), t.count


def take_said(w: Watched, items: Any) -> None:
    """A ``["said", [event, ...]]`` frame (§9.8): at most MAX_SAID talk lines, each a ``say`` event signed by
    a seat of this game whose text passes the check (§9.11); EntryError if not."""
    from .spectators import MAX_SAID

    t = w.table
    if t is None or not isinstance(items, list) or len(items) > MAX_SAID:
        raise EntryError("a said list that does not fit the table")
    out = []
    for raw in items:
        if not isinstance(raw, bytes):
            raise EntryError("a said item that is not an event")
        ev = parse_event(raw)                         # its signature
        seat = t.seat_of(ev.author)
        if ev.game_id != t.game_id or seat is None or ev.kind != "say":
            raise EntryError("a said item that is not a talk line of this table")
        why = say_problem(ev.body["text"])
        if why:
            raise EntryError("a talk line the rules refuse: %s" % why)
        out.append((seat, ev.seq, ev.body["text"], ev.body.get("phase")))
    w.said = out


MAX_HOST = 255      # bytes of a host part in an ``addrs`` frame


def take_addrs(w: Watched, items: Any, dialled: str) -> None:
    """An ``["addrs", [[host, port], ...]]`` frame: one address per seat; an empty or ``0.0.0.0`` host part
    (a seat listening on every interface: the one we reached, or a host's own bot) is the host we dialled,
    and so is a loopback one when we did not dial a loopback address (that seat runs on the machine we
    reached).  EntryError if it does not fit the table."""
    import ipaddress

    t = w.table
    if t is None or not isinstance(items, list) or len(items) != t.players:
        raise EntryError("an address list that does not fit the table")
    out = []
    for item in items:
        if (not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str)
                or len(item[0].encode()) > MAX_HOST or type(item[1]) is not int or not 0 < item[1] < 65536):
            raise EntryError("a malformed seat address")
        host = item[0]
        try:
            loop = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loop = False
        try:
            dialled_loop = ipaddress.ip_address(dialled).is_loopback
        except ValueError:
            dialled_loop = dialled == "localhost"
        if host in ("", "0.0.0.0") or (loop and not dialled_loop):
            host = dialled
        out.append((host, item[1]))
    w.addrs = out


async def _session(host: str, port: int, w: Watched, on_change: Callable[[Watched], None] | None, games: Any,
                   idle: float, on_through: Callable[[Watched], None] | None = None,
                   on_note: Callable[[str], None] | None = None) -> Watched:
    """One connection to the seat at ``host:port``, adding to ``w`` (empty, or a verified prefix of the
    table's log) until the game is over.  WatchError if the seat goes first; Invalid if it sent
    something invalid or is not at this table (or not at the table of ``w``)."""
    # a seat reached by its libp2p peer id (an invitation) is first reached through the relay, which may take the
    # route's own dial time (p2p/internet.py: a refusal that is a passing state is tried again within it)
    r = tls.route()
    dial = SPECTATOR_DIAL + (getattr(r, "dial_timeout", 0.0) if r is not None and r.owns(host) else 0.0)
    try:
        with trio.fail_after(dial):
            stream = await tls.connect(host, port, tls.spectator_context(), None, timeout=SPECTATOR_DIAL)
    except trio.TooSlowError:
        raise WatchError("no answer from %s:%d in %g s" % (host, port, dial)) from None
    except OSError as exc:
        raise WatchError("cannot reach %s:%d: %s" % (host, port, exc.strerror or exc)) from None
    except tls.TLSError as exc:
        raise WatchError("cannot watch %s:%d: %s" % (host, port, exc)) from None
    key = tls.peer_public_key(stream)
    fs = FramedStream(stream)
    got = 0                   # entries this seat sent (the genesis included)
    held = len(w.entries)     # entries verified before this connection (its log must hold them, byte for byte)
    w.through = w.last_seat = None
    try:
        await fs.send(encode(["watch", 1]))
        while True:
            raw = await fs.receive(idle=idle, frame=FRAME_DEADLINE)
            msg = decode(raw)
            if not isinstance(msg, list) or not msg or not isinstance(msg[0], str):
                raise Invalid("the seat sent something that is not a message")
            kind = msg[0]
            if kind == "refused" and len(msg) == 2 and isinstance(msg[1], str):
                raise WatchError("the seat refused a spectator: %s" % msg[1][:200])
            if kind == "watching" and len(msg) == 2 and type(msg[1]) is int and 0 <= msg[1] < 2**16:
                w.watching = msg[1]
                if w.first == 0:
                    w.first = len(w.entries)
            elif kind == "genesis" and len(msg) == 2 and isinstance(msg[1], bytes) and got == 0:
                if held:
                    if msg[1] != w.entries[0]:
                        raise Invalid("the peer at %s:%d is at another table" % (host, port))
                    g = w.table.genesis
                else:
                    g = parse_genesis(msg[1])             # every seat's signature
                if key not in g.doc["seats"]:
                    raise Invalid("the peer at %s:%d holds no seat of the game it sent" % (host, port))
                if not held:
                    w.table = Table.start(g, games)
                    w.entries.append(msg[1])
                got = 1
                w.seat_key = key
                w.through = w.last_seat = g.doc["seats"].index(key)
                if on_through is not None:
                    on_through(w)
            elif kind == "sealed" and len(msg) == 2 and got:
                if got < len(w.entries):
                    continue                              # for a step of its log, behind ours: stale for us
                take_sealed(w, msg[1])
            elif kind == "said" and len(msg) == 2 and got:
                take_said(w, msg[1])
            elif kind == "addrs" and len(msg) == 2 and got:
                take_addrs(w, msg[1], host)
                continue
            elif kind == "entry" and len(msg) == 2 and isinstance(msg[1], bytes) and got:
                got += 1
                if got <= len(w.entries):
                    if msg[1] == w.entries[got - 1]:
                        continue                          # it catches up with what we verified: nothing new
                    # its log differs from ours there: a roll-back (§6.6). Its entry is checked on the common
                    # prefix before anything we verified is let go (an invalid one costs us nothing)
                    t = replay(w.entries[:got - 1], games, whole=False)
                    t.append(msg[1])
                    if on_note is not None:
                        on_note("%s's log differs from the one watched from entry %d on: following it (a "
                                "roll-back, or a fork the seats will name)" % (w.name(w.through), got - 1))
                    w.table, w.entries = t, w.entries[:got - 1] + [msg[1]]
                else:
                    w.table.append(msg[1])            # signature, chain and rules, as a peer checks them
                    w.entries.append(msg[1])
            else:
                raise Invalid("the seat sent an unexpected %r message" % kind[:40])
            if on_change is not None and kind != "genesis":
                on_change(w)
            if w.table is not None and w.table.over and w.first:
                return w
    except (EntryError, RuleError) as exc:
        raise Invalid("the seat sent an invalid log entry (entry %d): %s" % (len(w.entries), exc)) from None
    except CanonicalError as exc:
        raise Invalid("the seat sent a malformed frame: %s" % exc) from None
    except (ConnectionClosed, FrameError, trio.BrokenResourceError, trio.ClosedResourceError):
        if w.table is not None and w.table.over and got >= len(w.entries):
            return w
        raise WatchError("the seat at %s:%d closed the connection%s" % (
            host, port, "" if got else " (it may refuse spectators)")) from None
    finally:
        w.through = None
        await trio.aclose_forcefully(stream)


async def watch(host: str, port: int, on_change: Callable[[Watched], None] | None = None, games: Any = registry,
                idle: float = SPECTATOR_IDLE) -> Watched:
    """Follow the table at ``host:port`` (a seat's play address) through that seat alone until its game is
    over; WatchError if it fails."""
    return await _session(host, port, Watched(), on_change, games, idle)


def candidates(w: Watched, targets: list, bad: set, last: int | None) -> list:
    """Where to knock next, as (seat or None, (host, port)): every seat of the table from the one after
    ``last`` (the seat that went: it comes last, it may be back), else the ``targets`` given; never an
    address that sent something invalid."""
    if w.addrs:
        n = len(w.addrs)
        start = 0 if last is None else last + 1
        order = [(start + i) % n for i in range(n)]
        out = [(s, tuple(w.addrs[s])) for s in order]
        out += [(None, tuple(t)) for t in targets if tuple(t) not in {a for _, a in out}]
    else:
        out = [(None, tuple(t)) for t in targets]
    return [(s, a) for s, a in out if a not in bad]


async def follow(targets: list, on_change: Callable[[Watched], None] | None = None,
                 on_note: Callable[[str], None] | None = None, *, games: Any = registry, idle: float = SPECTATOR_IDLE,
                 patience: float = SPECTATOR_PATIENCE, retry: tuple = (SPECTATOR_RETRY, SPECTATOR_RETRY_MAX)) -> Watched:
    """Follow a table to its end through any of its seats (module docstring): ``targets`` are the addresses
    to try first, (host, port) each.  Until a seat has answered each target is tried once (a wrong address
    fails at once); once following, a seat that goes is followed by the next that answers, for at most
    ``patience`` s without any seat.  ``on_note`` is told, in words, each change of seat and each wait.
    WatchError when it cannot go on (the last words of each seat tried)."""
    w = Watched()
    bad: set = set()
    errors: dict = {}
    say = on_note or (lambda text: None)
    lost: int | None = None          # the seat that went, while we look for another
    lost_words = ""                  # how it went, as said
    lost_at = 0.0                    # since when no seat has served us anything new (patience runs from there)
    last_gone, mark = -1e9, -1       # when a seat last went, and the entries we held then
    pause = retry[0]
    told_waiting = False
    first = True
    fresh = True                     # the last seat that went started a fresh patience

    def through(w: Watched) -> None:
        nonlocal lost, told_waiting, first
        if first:
            say("watching through %s" % w.name(w.through))
            first = False
        elif lost is not None:
            say("%s; now watching through %s" % (lost_words, w.name(w.through)) if lost != w.through
                else "%s's seat is back; watching through it again" % w.name(lost))
        lost, told_waiting = None, False

    def gone(words: str | None) -> bool:
        """The seat we followed went: True if that starts a fresh patience."""
        nonlocal lost, lost_words, lost_at, last_gone, mark, pause
        now = trio.current_time()
        lost = w.last_seat if w.last_seat is not None else _seat_of(w)
        # a fresh patience, unless the seat went again without having given us anything new soon after
        # the last one went (a seat that answers and closes again and again is no seat to follow)
        fresh = len(w.entries) > mark or now - last_gone > patience
        if fresh:
            lost_at, pause = now, retry[0]
        last_gone, mark = now, len(w.entries)
        lost_words = words or "%s's seat closed" % w.name(lost)
        if words is None:
            say("%s; looking for another seat of the table" % lost_words)
        return fresh

    while True:
        for seat, (host, port) in candidates(w, targets, bad, lost):
            if lost is not None and trio.current_time() - lost_at > patience:
                break
            try:
                return await _session(host, port, w, on_change, games, idle, through, on_note)
            except Invalid as exc:
                bad.add((host, port))
                errors[(host, port)] = str(exc)
                who = (w.name(w.last_seat) if w.last_seat is not None else
                       w.name(seat) if seat is not None else "%s:%d" % (host, port))
                if w.table is not None:
                    say("%s: %s; not followed again" % (who, exc))
                if w.table is not None and lost is None:      # the seat we had gone on through lied
                    fresh = gone("%s's log was refused" % who)
                    break
                continue
            except WatchError as exc:
                errors[(host, port)] = str(exc)
            if w.table is not None and lost is None:          # the seat we followed went: look for another
                fresh = gone(None)
                break                                         # knock again from the seat after it
        else:
            if w.table is None:                               # never reached the table: each target once
                raise WatchError("; ".join(errors.values()) or "nothing to watch")
            if lost is not None:
                waited = trio.current_time() - lost_at
                if waited > patience:
                    raise WatchError("no seat of the table answered for %.0f s (%s)" % (
                        waited, "; ".join(errors.values())))
                if not told_waiting:
                    say("no seat of the table answers; trying again for up to %.0f s" % patience)
                    told_waiting = True
                await trio.sleep(min(pause, max(0.0, patience - waited)))
                pause = min(pause * 2, retry[1])
            continue
        if lost is not None and trio.current_time() - lost_at > patience:
            raise WatchError("no seat of the table answered for %.0f s (%s)" % (
                trio.current_time() - lost_at, "; ".join(errors.values())))
        if not fresh:                                         # it went again with nothing new: not at once
            await trio.sleep(min(pause, max(0.0, patience - (trio.current_time() - lost_at))))
            pause = min(pause * 2, retry[1])


def _seat_of(w: Watched) -> int | None:
    """The seat whose key we last followed through."""
    if w.table is None or w.seat_key is None:
        return None
    return w.table.genesis.doc["seats"].index(w.seat_key)


async def answers(host: str, port: int, timeout: float) -> bool:
    """Does a seat's play address answer at all: a spectator's TLS handshake completes within ``timeout``
    (then closed without a request: the seat drops it without a word, counts no spectator and sends
    nothing).  What a listing of the tables in play asks of each now and then (cli/tables.py, §10)."""
    try:
        with trio.fail_after(timeout):
            stream = await tls.connect(host, port, tls.spectator_context(), None, timeout=timeout)
    except (trio.TooSlowError, OSError, tls.TLSError):
        return False
    await trio.aclose_forcefully(stream)
    return True
