"""Our log and the table it replays to (protocol.md §6, §6.6), as a sans-IO part of ``Peer``.

The log is the list of entries we placed, genesis first; ``table`` (core/table.py) is that log
replayed.  This part places batches (``place``: each step closes with the table's own
``assemble`` of the candidates and the best certificate held), finds the certificates that beat
how our log closed a step (``beaten``: "certificates win", §6.6) and cuts the log back (``cut``,
the table replayed from what is left).  A log whose torn tail ends inside a batch is cut back to
where that step opened when we start (``torn_batch``), so the step is placed again whole.

Which events are candidates, and whether we follow a certificate past a shown secret, are
other parts' (p2p/replica.py, p2p/showing.py): ``Peer`` hands them in.  A cut is answered with
its effects (p2p/effects.py), in the order the shell carries them out: the entries cut to the
spool before the log file is truncated, so a restart never forgets an event we signed.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from core.events import Genesis, Timeout, parse_entry
from core.evidence import seats_words
from core.table import RuleError, Table

from .effects import Alert, TruncateLog, WriteSpool

log = logging.getLogger("easel.protocol")


class Ledger:
    """Our log (``entries``, genesis first) and its replay (``table``): both read by everyone."""

    def __init__(self, genesis: Genesis, games: Any, keys: list, secret: Callable[[], tuple | None]) -> None:
        self.genesis = genesis
        self.games = games
        self.keys = keys
        self._secret = secret            # () -> (our seat, our seat secret) for the table's views, or None
        self.entries: list[bytes] = [genesis.raw]
        self.table = self._new_table()
        self._torn: tuple | None = None      # (count, entries cut) by ``torn_batch``, until ``take_torn``

    def _new_table(self) -> Table:
        t = Table.start(self.genesis, self.games)
        secret = self._secret()
        if secret is not None:
            t.secrets[secret[0]] = secret[1]
        return t

    def replay(self, entries: list) -> Table:
        """A table rebuilt from our own log (already verified when it was written)."""
        t = self._new_table()
        for raw in entries[1:]:
            t.append(parse_entry(raw, keys=self.keys, verify=False))
        return t

    def load(self, entries: list) -> list:
        """Our log file's entries (genesis first): placed; returns them parsed."""
        out = []
        for raw in entries[1:]:
            self.entries.append(raw)
            ent = parse_entry(raw, keys=self.keys, verify=False)
            self.table.append(ent)
            out.append(ent)
        return out

    def cut(self, count: int) -> list:
        """Cut our log back to ``count`` entries and replay it; returns the entries cut."""
        cut = self.entries[count:]
        self.entries = self.entries[:count]
        self.table = self.replay(self.entries)
        return cut

    def torn_batch(self) -> tuple | None:
        """A log whose torn tail ends in the middle of a batch (its last records cut) would never close
        its step again (a step's candidates are only the events not placed yet): (count, entries cut)
        once it is cut back to where the step opened, else None (kept for ``take_torn`` too)."""
        st = self.table.step
        if st is None or not (self.table.batch or self.table.talking is not None):
            return None
        count = self.table.starts[st.phase][0]
        log.warning("our log ends inside a batch (a torn tail): it is cut back to entry %d and the step placed again", count)
        self._torn = (count, self.cut(count))
        return self._torn

    def take_torn(self) -> list:
        """What ``torn_batch`` cut, once: spooled (the events stay held), then the log file truncated."""
        torn, self._torn = self._torn, None
        return [WriteSpool(torn[1]), TruncateLog(torn[0])] if torn is not None else []

    def place(self, candidates: Callable, best_cert: Callable, cert_placed: Callable, talk: Callable | None = None) -> list[bytes]:
        """Close every step that can be closed now: ``candidates(st)`` the events valid for it,
        ``best_cert(phase, prev)`` the certificate that closes it if any; ``cert_placed(cert, st)``
        hears of each certificate placed; ``talk(seat, low, high)`` the talk lines held that go in
        before an answer (§9.11).  Returns the raw entries placed (now in ``entries``)."""
        placed: list[bytes] = []
        while self.table.step is not None:
            st = self.table.step
            batch = self.table.assemble(candidates(st), best_cert(st.phase, st.prev), talk)
            if batch is None:
                break
            try:
                for ent in batch:
                    self.table.append(ent)
            except RuleError as exc:  # cannot happen for checked candidates; never crash on it
                log.error("could not place a batch: %s", exc)
                self.table = self.replay(self.entries + placed)  # undo the half-applied batch
                break
            placed.extend(ent.raw for ent in batch)
            if isinstance(batch[-1], Timeout):
                cert_placed(batch[-1], st)
        self.entries.extend(placed)
        return placed

    def follow(self, phases: list, best_cert: Callable, gate, say: Callable, refused: Callable | None = None) -> list:
        """Certificates win (§6.6): the first step before ours, in ``phases`` order, that the best
        certificate we hold for it (``best_cert(phase, prev)``) closes better than our log did (fewer
        seats timed out, then the lower seats: §6.5) and that ``gate`` (p2p/showing.py) lets us follow:
        our log is cut back to where it opened.  Returns the effects of the cut (the entries cut were on
        disk and may have been sent, ours among them: spooled before the log is truncated, so a restart
        never forgets an event we signed, nor reuses its seq), or [].  A certificate the gate forbids
        (bind before show) is named once to ``say`` and handed to ``refused(best, False)``: the table has
        forked, and if ``refused`` answers True (it ended the game, p2p/forks.py) nothing more is
        followed.  A certificate the gate lets us follow is first handed to ``refused(best, True)``: if
        we hold a secret another seat showed past it, the table has forked too (that seat never
        follows), and an answer True (the game ended) cuts nothing."""
        for phase in phases:
            if phase >= self.table.phase:
                continue
            start = self.table.starts.get(phase)
            if start is None:
                continue
            count, prev = start
            best = best_cert(phase, prev)
            if best is None:
                continue
            used = self.table.timeouts.get(phase)
            if used is not None and (len(used), used) <= (len(best.seats), best.seats):
                continue
            if not gate.follows(phase, tuple(best.seats)):
                # bind before show (§6.5): following it would put a secret we showed back in play
                if gate.refuse(phase, best.id):
                    voters = [v for v, _ in best.votes]
                    say(Alert("%s signed a time-out certificate for phase %d, which our log closed before we showed a "
                              "secret in phase %d: following it would put what we showed back in play, so we keep our "
                              "log; if the others follow it, this table has forked for us (the certificate is kept as "
                              "evidence)" % (seats_words(voters), phase, gate.shown)))
                if refused is not None and refused(best, False):
                    return []
                continue
            if refused is not None and refused(best, True):
                return []   # it would re-open what a seat showed: the table forked (p2p/forks.py)
            log.warning("time-out certificate for phase %d wins: rolling back to entry %d", phase, count)
            return [WriteSpool(self.cut(count)), TruncateLog(count),
                    Alert("a time-out certificate for phase %d replaced our close of it" % phase)]
        return []
