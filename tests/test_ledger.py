"""Our log and its table (p2p/ledger.py): placing a finished game's events and certificates from the
genesis gives its log, a log cut back is replayed, a torn tail inside a batch is cut back to where
its step opened, and a better certificate wins unless the show gate forbids it (named once)."""

from __future__ import annotations

from types import SimpleNamespace

from core import games as registry
from core.events import Event, Timeout, parse_entry
from p2p.effects import Alert, TruncateLog, WriteSpool
from p2p.ledger import Ledger

from .netutil import Sim


def finished(dead: int | None = 2):
    sim = Sim(3, seed=4, timeout=3.0, tick=0.25, tag="ledger")
    if dead is not None:
        sim.dead.add(dead)
    sim.start()
    sim.run_until(lambda: sim.peers[0].table.over, max_rounds=6000)
    return sim, list(sim.peers[0].log_entries)


def ledger(sim, entries=None) -> Ledger:
    lg = Ledger(sim.genesis, registry, sim.keys, lambda: None)
    lg.load(entries or [sim.genesis.raw])
    return lg


def test_placing_a_finished_games_events_and_certificates_gives_its_log():
    sim, log = finished()
    ents = [parse_entry(r, keys=sim.keys) for r in log[1:]]
    events = [e for e in ents if isinstance(e, Event)]
    certs = {(c.phase, c.prev): c for c in ents if isinstance(c, Timeout)}
    assert certs, "no certificate in this game: choose another seed"

    def candidates(st):
        return {sim.keys.index(e.author): e for e in events if e.prev == st.prev and e.body["phase"] == st.phase}

    heard = []
    lg = ledger(sim)
    placed = lg.place(candidates, lambda phase, prev: certs.get((phase, prev)), lambda c, st: heard.append(c.phase))
    assert placed == log[1:] and lg.entries == log and lg.table.over
    assert sorted(heard) == sorted(p for p, _ in certs)


def test_a_log_cut_back_is_replayed_and_a_torn_batch_is_cut_to_its_steps_opening():
    sim, log = finished(dead=None)
    full = ledger(sim, log)
    assert full.table.head == sim.peers[0].table.head and full.torn_batch() is None
    starts = sorted(full.table.starts.values())
    count = next(c for (c, _), (nxt, _) in zip(starts, starts[1:]) if nxt - c >= 2)    # a step closed by a batch
    cut = full.cut(count + 1)
    assert cut == log[count + 1:] and full.entries == log[:count + 1]
    assert full.table.head == full.replay(log[:count + 1]).head
    torn = ledger(sim, log[:count + 1])
    assert torn.torn_batch() == (count, [log[count]]) and torn.entries == log[:count]
    assert torn.take_torn() == [WriteSpool([log[count]]), TruncateLog(count)]   # spooled, then the file cut
    assert torn.take_torn() == [] and full.take_torn() == []                    # once


def test_a_better_certificate_wins_unless_we_showed_a_secret_after_its_step():
    sim, log = finished()
    phase, rec = next(iter(sorted(ledger(sim, log).table.certificates.items())))
    better = SimpleNamespace(seats=(), id=b"c" * 32, votes=((0, b""), (1, b"")))   # fewer seats timed out

    def best(p, prev):
        return better if p == phase else None

    said: list = []
    gate = SimpleNamespace(follows=lambda p, seats: False, refuse=lambda p, i: not said, shown=phase + 1)
    lg = ledger(sim, log)
    assert lg.follow([phase], best, gate, said.append) == [] and lg.entries == log
    assert len(said) == 1 and isinstance(said[0], Alert) and "forked for us" in said[0].text
    assert lg.follow([phase], best, gate, said.append) == [] and len(said) == 1     # named once
    gate.follows = lambda p, seats: True
    count = lg.table.starts[phase][0]
    assert lg.follow([phase], best, gate, said.append) == [
        WriteSpool(log[count:]), TruncateLog(count), Alert("a time-out certificate for phase %d replaced our close of it" % phase)]
    assert lg.entries == log[:count]
    worse = SimpleNamespace(seats=(0, 1), id=b"w" * 32, votes=())
    assert ledger(sim, log).follow([phase], lambda p, prev: worse, gate, said.append) == []
