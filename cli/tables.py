"""The tables on the LAN: ``easel join`` and ``easel watch`` without an address.

Each table is printed the moment it is found (p2p.discovery.browse_live), not
at the end of a window, with a number for the tables the command can use: the
open tables for ``join``, the tables in play for ``watch``.  A number, once
given, stays that table's for the whole listing (numbers go by the order the
tables were found).  Then:

* on a terminal (standard input and output), the person types a number and
  Enter (Enter alone: the first table still there; q quits at once, no Enter)
  while the listing goes on: the terminal is read key by key (``KeyLines``);
* ``--pick N`` picks table N as soon as it is listed (no question asked);
* otherwise (a pipe, a script) it lists for ``--wait`` seconds and exits.

A table in play is asked now and then whether its host still answers (``probing``): the record of a
host that was killed cannot be withdrawn (no goodbye), so a table whose play address does not answer a
spectator's TLS handshake ``PROBE_MISSES`` times in a row is said to be gone (and listed again, with
its number, if it answers later).  protocol.md §10.

Nothing here names a game: the lines come from what the advertisements say.
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass, field

import trio

from .common import UsageError, need_terminal

JOIN, WATCH = "join", "watch"
ENTER_HINT = {       # after "easel: looking for tables on the LAN; ": one line of 100 columns at most
    JOIN: "type a number and Enter to join (Enter: the first; q quits)",
    WATCH: "type a number and Enter to watch (Enter: the first; q quits)",
}

PICK_HINT = {
    JOIN: "(easel join --pick N joins table N; on a terminal, easel join asks for the number)",
    WATCH: "(easel watch --pick N watches table N; on a terminal, easel watch asks for the number)",
}


# a table in play is probed every PROBE_EVERY s (each probe at most PROBE_TIMEOUT s); PROBE_MISSES misses in a
# row and it is gone: a killed host's table leaves the listing within PROBE_MISSES * (PROBE_EVERY + PROBE_TIMEOUT)
PROBE_EVERY = 1.0
PROBE_TIMEOUT = 3.0
PROBE_MISSES = 2
PROBE_CONCURRENCY = 8      # probes at once (a LAN flooded with advertisements of tables in play makes rounds slower,
                           # not a flood of handshakes from us)


@dataclass
class Row:
    ad: object                  # p2p.discovery.TableAd, the latest seen
    number: int | None          # None: listed for information only (not what this command joins or watches)
    gone: bool = False          # its advertisement said goodbye (or expired)
    line: str = ""
    silent: bool = False        # a table in play whose host no longer answers (probed)
    misses: int = 0             # probes in a row it did not answer


def usable(kind: str, ad) -> bool:
    """Can ``kind`` (join or watch) use this table: an open table with a free seat, or a table in play."""
    return ad.play if kind == WATCH else (not ad.play and ad.free > 0)


def table_line(kind: str, ad, number: int | None) -> str:
    """One listed table: its number (if this command can use it), game, seats, host's name, and where."""
    num = "%3d " % number if number is not None else "    "
    where = "%s:%d" % (ad.host, ad.port)
    if ad.play:
        what, tail = "in play (%d seats)" % ad.seats, "watch: easel watch %s" % where
    elif ad.free == 0:
        what, tail = "full (%d seats)" % ad.seats, "at %s" % where
    else:
        what = "%d/%d free" % (ad.free, ad.seats)
        tail = ("join: easel join %s" if kind == WATCH else "at %s") % where
    return "%s %-12s %-18s host %s  %s" % (num, ad.game, what, ad.who, tail)


@dataclass
class Listing:
    """The tables found so far, as printed; ``changed`` is set (and replaced) at every change."""

    kind: str
    out: object = None
    rows: dict = field(default_factory=dict)       # service name -> Row
    numbered: list = field(default_factory=list)   # Row by number - 1
    changed: trio.Event = field(default_factory=trio.Event)

    def say(self, text: str) -> None:
        out = self.out if self.out is not None else sys.stdout
        print(text, file=out, flush=True)

    def _gone_words(self, row: Row, why: str) -> str:
        if row.number is not None:
            return "     table %d has gone (%s, host %s): %s" % (row.number, row.ad.game, row.ad.who, why)
        return "     the table in play of %s (%s) has gone: %s" % (row.ad.who, row.ad.game, why)

    def probed(self) -> list:
        """The tables to probe now: in play, listed, not said goodbye."""
        return [row for row in self.rows.values() if row.ad.play and not row.gone]

    def answered(self, row: Row, ok: bool) -> None:
        """A probe of ``row``'s play address answered (``ok``) or not."""
        if ok:
            row.misses = 0
            if row.silent:
                row.silent = False
                row.line = table_line(self.kind, row.ad, row.number)
                self.say(row.line + "  (its host answers again)")
            else:
                return
        else:
            row.misses += 1
            if row.silent or row.misses < PROBE_MISSES:
                return
            row.silent = True
            self.say(self._gone_words(row, "its host no longer answers"))
        self.changed.set()
        self.changed = trio.Event()

    def on_change(self, what: str, ad) -> None:
        row = self.rows.get(ad.name)
        if what == "gone":
            if row is not None and not row.gone:
                row.gone = True
                if row.number is not None and not row.silent:
                    self.say(self._gone_words(row, "its game is over" if ad.play else
                                              "its game started, or its host closed it"))
        else:
            if row is None or row.gone:
                number = None
                if row is not None and row.number is not None:
                    number = row.number            # back again: the same number
                elif usable(self.kind, ad):
                    number = len(self.numbered) + 1
                row = Row(ad, number)       # (a table back after a goodbye is probed afresh)
                if number is not None and number > len(self.numbered):
                    self.numbered.append(row)
                elif number is not None:
                    self.numbered[number - 1] = row
                self.rows[ad.name] = row
            row.ad = ad
            line = table_line(self.kind, ad, row.number)
            if line != row.line:
                row.line = line
                self.say(line)
        self.changed.set()
        self.changed = trio.Event()

    def number(self, n: int):
        """Table ``n`` if it is listed and still usable, else a UsageError saying why not (None: not listed yet)."""
        if not 1 <= n <= len(self.numbered):
            return None
        row = self.numbered[n - 1]
        if row.gone or row.silent:
            raise UsageError("table %d has gone" % n)
        if not usable(self.kind, row.ad):
            raise UsageError("table %d is full" % n)
        return row.ad

    def first(self):
        for row in self.numbered:
            if not row.gone and not row.silent and usable(self.kind, row.ad):
                return row.ad
        return None


def answer(listing: Listing, text: str):
    """What a typed line asks for: ("pick", ad), ("quit", None) or ("say", words)."""
    text = text.strip()
    if text.lower() in ("q", "quit", "exit"):
        return "quit", None
    if not text:
        ad = listing.first()
        if ad is None:
            return "say", "no table to %s yet: still looking (q quits)" % listing.kind
        return "pick", ad
    if not text.isdigit() or not text.isascii():
        return "say", "type a table's number, Enter alone for the first one, or q"
    n = int(text)
    try:
        ad = listing.number(n)
    except UsageError as exc:
        return "say", "%s: type another number (q quits)" % exc
    if ad is None:
        listed = len(listing.numbered)
        return "say", ("no table %d: %s" % (n, "the tables listed are numbered 1 to %d" % listed if listed
                                                 else "none is listed yet"))
    return "pick", ad


async def answers(host: str, port: int, timeout: float) -> bool:
    """p2p.watch.answers, imported at the first probe (not before the listing starts: it imports the games)."""
    from p2p.watch import answers as ask

    return await ask(host, port, timeout)


async def probing(listing: Listing, probe) -> None:
    """Every PROBE_EVERY s, ask each table in play listed whether its host answers (``probe(host, port,
    timeout)``, PROBE_CONCURRENCY at once, each bounded); runs until cancelled (the listing's end)."""
    limiter = trio.CapacityLimiter(PROBE_CONCURRENCY)
    while True:
        await trio.sleep(PROBE_EVERY)
        rows = listing.probed()

        async def one(row: Row) -> None:
            ad = row.ad
            ok = False
            async with limiter:
                with trio.move_on_after(PROBE_TIMEOUT):
                    ok = await probe(ad.host, ad.port, PROBE_TIMEOUT)
            if row.ad is ad and not row.gone:
                listing.answered(row, ok)

        async with trio.open_nursery() as n:
            for row in rows:
                n.start_soon(one, row)


async def find_table(kind: str, wait: float, pick: int | None = None, interactive: bool = False, *,
                     out=None, read_line=None, interfaces=None, probe=None):
    """List the tables on the LAN as they are found; return the one picked (``pick``, or typed on a terminal
    when ``interactive``), or None (listed and done, or the person quit).  ``probe``: how a table in play is
    asked whether its host answers (default p2p.watch.answers)."""
    from p2p.discovery import browse_live

    if probe is None:
        probe = answers

    listing = Listing(kind, out)
    if read_line is None:
        read_line = sys.stdin.readline
    none_found = ("no open tables found (a manual HOST:PORT always works: easel join HOST:PORT)" if kind == JOIN else
                  "no tables in play found (a seat's play address always works: easel watch HOST:PORT)")
    picked = failure = None
    async with trio.open_nursery() as nursery:
        async def browsing() -> None:
            nonlocal failure
            try:
                await browse_live(listing.on_change, None, interfaces)
            except Exception as exc:       # discovery failed: say so, never a traceback
                failure = "cannot browse the LAN: %s (easel %s HOST:PORT always works)" % (exc, kind)
                nursery.cancel_scope.cancel()

        nursery.start_soon(browsing)
        nursery.start_soon(probing, listing, probe)
        if pick is not None:
            with trio.move_on_after(wait):
                while picked is None:
                    try:
                        picked = listing.number(pick)
                    except UsageError as exc:       # listed, but gone or full
                        failure = str(exc)
                        break
                    if picked is None:
                        await listing.changed.wait()
            if picked is None and failure is None:
                failure = "no table %d found on the LAN in %g s (%d listed; --wait waits longer)" % (
                    pick, wait, len(listing.numbered))
        elif interactive:
            listing.say("easel: looking for tables on the LAN; %s" % ENTER_HINT[kind])

            async def nothing_yet() -> None:
                await trio.sleep(wait)
                if not listing.numbered:
                    listing.say("%s; still looking" % none_found)

            nursery.start_soon(nothing_yet)
            while True:
                # a worker thread reads the line; it is only left behind by an interrupt (the process then ends)
                text = await trio.to_thread.run_sync(read_line, abandon_on_cancel=True)
                if text == "":             # end of input (Ctrl-D)
                    break
                what, value = answer(listing, text)
                if what == "quit":
                    break
                if what == "pick":
                    picked = value
                    break
                listing.say("easel: %s" % value)
        else:
            await trio.sleep(wait)
            listing.say(PICK_HINT[kind] if listing.numbered else none_found)
        nursery.cancel_scope.cancel()
    if failure is not None:
        raise UsageError(failure)
    if picked is not None:
        n = next(r.number for r in listing.numbered if r.ad is picked)
        listing.say("easel: %s table %d: %s, host %s, at %s:%d" % (
            "joining" if kind == JOIN else "watching", n, picked.game, picked.who, picked.host, picked.port))
    return picked


class KeyLines:
    """The listing's question read key by key from a terminal (``fd``), echoed by us: a number and Enter
    picks; ``q`` on an empty line answers at once, no Enter (a line-buffered terminal would hold it until
    Enter); Backspace and Ctrl-U erase; arrow keys and other escape sequences are dropped; Ctrl-D on an
    empty line is the end of input; Ctrl-C still interrupts (signals stay on).  A context manager: the
    terminal's own mode comes back on leaving, in the thread that entered (the reads run in a worker)."""

    QUIT = "qQ"

    def __init__(self, fd: int, out=None) -> None:
        self.fd = fd
        self.out = out
        self._saved = None

    def __enter__(self) -> "KeyLines":
        import termios

        saved = termios.tcgetattr(self.fd)
        mode = list(saved)
        mode[3] &= ~(termios.ICANON | termios.ECHO)       # lflag: key by key, no echo (ours instead); ISIG stays
        mode[6] = list(mode[6])
        mode[6][termios.VMIN], mode[6][termios.VTIME] = 1, 0
        termios.tcsetattr(self.fd, termios.TCSANOW, mode)
        self._saved = saved
        return self

    def __exit__(self, *exc) -> None:
        import termios

        if self._saved is not None:
            try:
                termios.tcsetattr(self.fd, termios.TCSANOW, self._saved)
            except termios.error:
                pass
            self._saved = None

    def _echo(self, text: str) -> None:
        out = self.out if self.out is not None else sys.stdout
        try:
            out.write(text)
            out.flush()
        except (OSError, ValueError):
            pass

    def read_line(self) -> str:
        """One answer: the line typed and a newline, "q\n" as soon as q is pressed on an empty line, or ""
        at the end of input."""
        line = ""
        escape = 0                     # 1: after Esc; 2: inside a CSI/SS3 sequence (up to its final byte)
        while True:
            try:
                b = os.read(self.fd, 1)
            except InterruptedError:
                continue
            if not b:
                return ""
            c = b[0]
            if escape == 1:
                escape = 2 if c in b"[O" else 0
                continue
            if escape == 2:
                if 0x40 <= c <= 0x7E:
                    escape = 0
                continue
            if c == 0x1B:
                escape = 1
            elif c in (0x0A, 0x0D):
                self._echo("\n")
                return line + "\n"
            elif c == 0x04:            # Ctrl-D
                if not line:
                    self._echo("\n")
                    return ""
            elif c in (0x7F, 0x08):    # Backspace
                if line:
                    line = line[:-1]
                    self._echo("\b \b")
            elif c == 0x15:            # Ctrl-U
                self._echo("\b \b" * len(line))
                line = ""
            elif chr(c) in self.QUIT and not line.strip():
                self._echo(chr(c) + "\n")
                return "q\n"
            elif 0x20 <= c < 0x7F:
                line += chr(c)
                self._echo(chr(c))


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def check_pick(args) -> None:
    """join/watch: ``--pick N`` picks from the listing (no address with it), N from 1; ``--wait`` a sane time."""
    pick = getattr(args, "pick", None)
    if pick is not None and (args.address if args.cmd == JOIN else args.target):
        raise UsageError("--pick N picks table N of the LAN's listing: give it without an address")
    if pick is not None and pick < 1:
        raise UsageError("--pick takes a table's number as listed, 1 or more, not %d" % pick)
    if not 0 <= args.wait <= 3600:
        raise UsageError("--wait must be 0 to 3600 seconds, not %g" % args.wait)


def pick_from_lan(args):
    """``easel join``/``watch`` without an address (cli/main.py calls it before it imports the game and the
    peers' code, so the listing starts as soon as Python does): the arguments checked, the tables listed as
    they are found, the one picked returned (None: listed, or the person quit)."""
    check_pick(args)
    if args.pick is not None and (args.cmd == JOIN or not getattr(args, "json", False)):
        need_terminal()              # what is picked opens the game's screen: say so before looking
    interactive = args.pick is None and _isatty(sys.stdin) and _isatty(sys.stdout)
    if interactive:
        import termios

        keys = KeyLines(sys.stdin.fileno())
        try:
            keys.__enter__()
        except (termios.error, OSError, ValueError):
            keys = None                # a terminal that cannot be read key by key: line by line (q and Enter)
        if keys is not None:
            try:
                return trio.run(functools.partial(find_table, args.cmd, args.wait, None, True,
                                                  read_line=keys.read_line))
            finally:
                keys.__exit__()
    return trio.run(find_table, args.cmd, args.wait, args.pick, interactive)
