"""A spectator follows the table, not one seat (protocol.md §9.8, issue 29): when the seat it watches
through goes, it goes on through another seat of the table, from where it was (the other seat's log must
hold what it verified, byte for byte), says so, and gives up with a clear word once no seat answered for
its patience.  Real seats (GameNode) on loopback, and scripted seats (a TLS listener sending frames) for
the cases a real seat does not choose: a seat behind, a seat that lies, nobody answering."""

from __future__ import annotations

import logging
import os

import pytest
import trio

from cli.runner import bot_decider
from core.encoding import decode, encode
from core.events import EntryError, game_id_of, genesis_sign_msg, make_genesis
from core.table import replay
from p2p import tls
from p2p.framing import FramedStream
from p2p.identity import Identity
from p2p.node import GameNode
from p2p.spectators import Spectators
from p2p.store import GameStore
from p2p.watch import Watched, WatchError, answers, follow, take_addrs

from .netutil import free_ports, run_nodes
from .test_network import GAMES

NAMES = ("Ann", "Bo", "Cy")


def named_table(tmp_path, names=NAMES, rounds: int = 2):
    """(identities, genesis, roster on loopback ports, stores) of a painting table whose seats have names."""
    ids = [Identity.generate() for _ in names]
    doc = {"game": "painting", "config": GAMES.get("painting").configure({"rounds": rounds}, len(ids)),
           "seats": [i.public for i in ids], "names": list(names), "table": os.urandom(8), "timeout": 60}
    genesis = make_genesis(doc, [i.sign(genesis_sign_msg(game_id_of(doc))) for i in ids])
    roster = {"certs": [tls.make_certificate(i) for i in ids], "addrs": [["127.0.0.1", p] for p in free_ports(len(ids))]}
    stores = [GameStore(tmp_path / str(k)) for k in range(len(ids))]
    return ids, genesis, roster, stores


async def play_out(tmp, ids, genesis, certs, seed: str) -> list:
    """Real nodes play the table of ``genesis`` to its end (bots seeded ``seed``): its log."""
    roster = {"certs": certs, "addrs": [["127.0.0.1", p] for p in free_ports(len(ids))]}
    stores = [GameStore(tmp / ("%s%d" % (seed, k))) for k in range(len(ids))]
    nodes = [GameNode(ids[k], genesis, roster, stores[k], bot_decider("painting", "random", "%s%d" % (seed, k)),
                      timeout=60, linger=0.5) for k in range(len(ids))]

    await run_nodes(nodes, stores, 60)
    entries = list(nodes[0].peer.log_entries)
    assert replay(entries, GAMES).over and entries == list(nodes[1].peer.log_entries)
    return entries


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A whole game of three named seats (played by real nodes once): ids, genesis, certs, its log."""
    tmp = tmp_path_factory.mktemp("finished")
    ids, genesis, roster, stores = named_table(tmp)
    for s in stores:
        s.close()
    return ids, genesis, roster["certs"], trio.run(play_out, tmp, ids, genesis, roster["certs"], "f")


# --------------------------------------------------------------------------- real seats
async def test_the_seat_watched_leaves_and_the_spectator_goes_on_through_another_from_where_it_was(tmp_path):
    ids, genesis, roster, stores = named_table(tmp_path)
    nodes = [GameNode(ids[k], genesis, roster, stores[k], bot_decider("painting", "random", "l%d" % k), timeout=60,
                      linger=1) for k in range(3)]
    notes: list = []
    counts: list = []                 # the table's length at every change shown, in order
    midway = trio.Event()
    got: list = []

    def changed(w: Watched) -> None:
        counts.append(w.table.count)
        if w.table.count >= 8:
            midway.set()

    async def spectator():
        got.append(await follow([("127.0.0.1", roster["addrs"][0][1])], changed, notes.append, games=GAMES,
                                patience=20))

    try:
        with trio.fail_after(60):
            async with trio.open_nursery() as n:
                scopes = []
                for node in nodes:
                    scope = trio.CancelScope()
                    scopes.append(scope)

                    async def run(node=node, scope=scope, task_status=trio.TASK_STATUS_IGNORED):
                        with scope:
                            await node.run(task_status=task_status)

                    await n.start(run)
                n.start_soon(spectator)
                await midway.wait()
                assert nodes[0].watching == 1
                await nodes[0].leave()          # Ann quits mid-game: her note, then her node stops
                scopes[0].cancel()
                at_leave = counts[-1]
    finally:
        for s in stores:
            s.close()
    (w,) = got
    assert not nodes[0].peer.table.over, "the game ended before Ann left"
    assert w.table.over and w.entries == list(nodes[1].peer.log_entries) == list(nodes[2].peer.log_entries)
    assert notes == ["watching through Ann", "Ann's seat closed; looking for another seat of the table",
                     "Ann's seat closed; now watching through Bo"]
    # it went on from where it was: never shown a shorter log again, nothing shown twice
    assert counts == sorted(counts) and counts[-1] == len(w.entries) and at_leave <= counts[-1]
    assert w.seat_key == ids[1].public


async def test_a_probe_of_a_play_address_counts_no_spectator_and_warns_nobody(tmp_path, caplog):
    ids, genesis, roster, stores = named_table(tmp_path, NAMES[:2])
    node = GameNode(ids[0], genesis, roster, stores[0], None, timeout=60)
    closed = free_ports(1)[0]
    caplog.set_level(logging.INFO)
    try:
        with trio.fail_after(30):
            async with trio.open_nursery() as n:
                await n.start(node.run)
                seen = []
                for _ in range(4):
                    seen.append(await answers("127.0.0.1", roster["addrs"][0][1], 3.0))
                    seen.append(node.watching)
                assert not await answers("127.0.0.1", closed, 3.0)
                n.cancel_scope.cancel()
    finally:
        for s in stores:
            s.close()
    assert seen == [True, 0] * 4
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], [r.getMessage() for r in caplog.records]


# --------------------------------------------------------------------------- scripted seats
class Scripted:
    """A seat's play address that serves spectators from a given log: ``upto`` entries (the genesis
    included), then ``then``: "close", or an event to wait for before the rest and the end."""

    def __init__(self, identity, certs, entries, upto: int, then="close", addrs=None, tamper: int | None = None,
                 once: bool = False):
        self.identity, self.certs = identity, certs
        self.entries = list(entries)
        if tamper is not None:
            raw = bytearray(self.entries[tamper])
            raw[-3] ^= 1
            self.entries[tamper] = bytes(raw)
        self.upto, self.then, self.addrs = upto, then, addrs
        self.port = None
        self.served = 0
        self.paused = trio.Event()
        self.once = once            # its listener closes after the first spectator (a process that ended)
        self.scope = trio.CancelScope()

    async def handler(self, stream) -> None:
        fs = FramedStream(stream)
        if decode(await fs.receive()) != ["watch", 1]:
            return
        self.served += 1
        feed = Spectators(True).feed(0.0)

        async def send_upto(k: int) -> None:
            while feed._sent < k and (f := feed.entry(self.entries)) is not None:
                await fs.send(f)
            if self.addrs is not None and (f := feed.addrs(self.addrs)) is not None:
                await fs.send(f)
            await fs.send(feed.watching(1, 0.0) or encode(["watching", 1]))

        await send_upto(self.upto)
        if self.then == "close":
            if self.once:
                self.scope.cancel()
            return
        self.paused.set()
        await self.then.wait()
        await send_upto(len(self.entries))

    async def start(self, nursery) -> None:
        ctx = tls.server_context(self.identity, self.certs, spectators=True)

        async def serve(task_status=trio.TASK_STATUS_IGNORED):
            with self.scope:
                await tls.serve(0, ctx, self.handler, task_status=task_status)

        self.port = await nursery.start(serve)


def addrs_of(seats) -> list:
    return [["", s.port] if s is not None else ["127.0.0.1", free_ports(1)[0]] for s in seats]


async def test_a_seat_behind_is_waited_for_and_its_log_must_hold_what_was_verified(finished):
    ids, genesis, certs, entries = finished
    go = trio.Event()
    ann = Scripted(ids[0], certs, entries, upto=12)
    bo = Scripted(ids[1], certs, entries, upto=5, then=go)
    notes, counts, got = [], [], []
    with trio.fail_after(30):
        async with trio.open_nursery() as n:
            await ann.start(n)
            await bo.start(n)
            ann.addrs = bo.addrs = [["", ann.port], ["127.0.0.1", bo.port], ["127.0.0.1", free_ports(1)[0]]]

            async def spectator():
                got.append(await follow([("127.0.0.1", ann.port)], lambda w: counts.append(w.table.count), notes.append,
                                        games=GAMES, patience=10))

            n.start_soon(spectator)
            await bo.paused.wait()
            # Bo has sent 5 entries of the 12 it holds: nothing was shown again, nothing shown shorter
            assert counts[-1] == 12 and notes[-1] == "Ann's seat closed; now watching through Bo"
            go.set()
            while not got:
                await trio.sleep(0.01)
            n.cancel_scope.cancel()
    (w,) = got
    assert w.entries == entries and w.table.over
    assert counts == sorted(counts) and counts[-1] == len(entries)
    assert ann.served == 1 and bo.served == 1


async def test_a_seat_whose_log_differs_from_what_was_verified_is_never_followed_again(finished):
    ids, genesis, certs, entries = finished
    ann = Scripted(ids[0], certs, entries, upto=12)
    bo = Scripted(ids[1], certs, entries, upto=len(entries), tamper=4)        # a forged entry 4
    cy = Scripted(ids[2], certs, entries, upto=len(entries))
    notes, got, counts = [], [], []
    with trio.fail_after(30):
        async with trio.open_nursery() as n:
            for s in (ann, bo, cy):
                await s.start(n)
            ann.addrs = [["", ann.port], ["127.0.0.1", bo.port], ["127.0.0.1", cy.port]]
            got.append(await follow([("127.0.0.1", ann.port)], lambda w: counts.append(w.table.count), notes.append,
                                    games=GAMES, patience=10))
            n.cancel_scope.cancel()
    (w,) = got
    assert w.entries == entries
    assert notes[0] == "watching through Ann"
    assert notes[1] == "Ann's seat closed; looking for another seat of the table"
    assert notes[2] == "Ann's seat closed; now watching through Bo"           # it answered, with the genesis
    assert notes[3].startswith("Bo: the seat sent an invalid log entry") and notes[3].endswith("not followed again")
    assert notes[4] == "Bo's log was refused; now watching through Cy"
    assert bo.served == 1 and cy.served == 1
    assert counts == sorted(counts)         # Bo's forged entry cost nothing of what was verified


async def test_a_peer_of_another_table_is_not_followed(finished, tmp_path):
    ids, genesis, certs, entries = finished
    other_ids, other_genesis, other_roster, stores = named_table(tmp_path)
    for s in stores:
        s.close()
    ann = Scripted(ids[0], certs, entries, upto=12)
    # Bo's address leads to a seat of another table (its own log: another genesis)
    stranger = Scripted(other_ids[1], other_roster["certs"], [other_genesis.raw], upto=1, then=trio.Event())
    cy = Scripted(ids[2], certs, entries, upto=len(entries))
    notes, got = [], []
    with trio.fail_after(30):
        async with trio.open_nursery() as n:
            for s in (ann, stranger, cy):
                await s.start(n)
            ann.addrs = [["", ann.port], ["127.0.0.1", stranger.port], ["127.0.0.1", cy.port]]
            got.append(await follow([("127.0.0.1", ann.port)], None, notes.append, games=GAMES, patience=10))
            n.cancel_scope.cancel()
    assert got[0].entries == entries
    assert any("is at another table" in t and "not followed again" in t for t in notes), notes
    assert notes[-1] == "Ann's seat closed; now watching through Cy", notes


async def test_when_no_seat_answers_it_keeps_knocking_for_its_patience_then_says_so(finished):
    ids, genesis, certs, entries = finished
    ann = Scripted(ids[0], certs, entries, upto=12, once=True)
    notes = []
    with trio.fail_after(30):
        async with trio.open_nursery() as n:
            await ann.start(n)
            dead = free_ports(2)
            ann.addrs = [["", ann.port], ["127.0.0.1", dead[0]], ["127.0.0.1", dead[1]]]
            t0 = trio.current_time()
            with pytest.raises(WatchError) as err:
                await follow([("127.0.0.1", ann.port)], None, notes.append, games=GAMES, patience=1.0,
                             retry=(0.05, 0.2))
            waited = trio.current_time() - t0
            n.cancel_scope.cancel()
    assert 1.0 <= waited < 10
    assert str(err.value).startswith("no seat of the table answered for 1 s (")
    assert "cannot reach 127.0.0.1:%d" % dead[0] in str(err.value)
    assert notes[:3] == ["watching through Ann", "Ann's seat closed; looking for another seat of the table",
                         "no seat of the table answers; trying again for up to 1 s"]
    assert ann.served == 1


async def test_before_the_table_is_reached_each_address_is_tried_once():
    dead = free_ports(2)
    with trio.fail_after(10):
        with pytest.raises(WatchError) as err:
            await follow([("127.0.0.1", p) for p in dead], None, None, games=GAMES, patience=30)
    assert str(err.value).count("cannot reach") == 2


def test_the_addresses_a_seat_tells_fill_in_the_host_the_spectator_reached(finished):
    ids, genesis, certs, entries = finished
    w = Watched(table=replay(entries[:1], GAMES))
    take_addrs(w, [["", 1], ["0.0.0.0", 2], ["198.18.0.12", 3]], "198.18.0.10")
    assert w.addrs == [("198.18.0.10", 1), ("198.18.0.10", 2), ("198.18.0.12", 3)]
    # a loopback address is the machine of the seat reached, unless we reached it at a loopback one
    take_addrs(w, [["127.0.0.1", 1], ["", 2], ["10.0.0.3", 3]], "198.18.0.10")
    assert w.addrs[0] == ("198.18.0.10", 1)
    take_addrs(w, [["127.0.0.1", 1], ["", 2], ["10.0.0.3", 3]], "127.0.0.1")
    assert w.addrs[:2] == [("127.0.0.1", 1), ("127.0.0.1", 2)]
    for bad in ([["", 1]] * 2, [["", 1]] * 4, [["", 0]] * 3, [["", 1, 2]] * 3, [[b"", 1]] * 3, [["x" * 300, 1]] * 3,
                "nope", [["", True]] * 3):
        with pytest.raises(EntryError):
            take_addrs(w, bad, "127.0.0.1")


async def test_the_watch_screen_says_whom_it_watches_through_and_each_change(finished):
    """easel watch with a screen (cli/watching.py): the status line names the seat watched through, and a
    change of seat is an alert on the screen until the next one."""
    from cli.options import LiveArgs
    from cli.watching import watch_main

    ids, genesis, certs, entries = finished
    ann = Scripted(ids[0], certs, entries, upto=12, once=True)
    bo = Scripted(ids[1], certs, entries, upto=len(entries))
    shown = []

    class Screen:
        def __init__(self, node_seat=None):
            self.done = trio.Event()

        def update(self, table, alerts, status, waiting=None, talk=None):
            shown.append((table.count, list(alerts), status))
            if status.startswith("game over"):
                self.done.set()

        async def run(self):
            await self.done.wait()

    with trio.fail_after(30):
        async with trio.open_nursery() as n:
            for s in (ann, bo):
                await s.start(n)
            ann.addrs = [["", ann.port], ["127.0.0.1", bo.port], ["127.0.0.1", free_ports(1)[0]]]
            args = LiveArgs(cmd="watch", target="127.0.0.1:%d" % ann.port, watch_patience=10)
            assert await watch_main(args, Screen) == 0
            n.cancel_scope.cancel()
    before = [s for s in shown if s[1] == [] and s[2].startswith("through Ann, ")]
    after = [s for s in shown if s[1] == ["Ann's seat closed; now watching through Bo"] and s[2].startswith("through Bo, ")]
    assert before and max(c for c, _, _ in before) == 12
    assert after and after[-1][0] == len(entries)
    assert ("Ann's seat closed; looking for another seat of the table" in
            [a for _, alerts, _ in shown for a in alerts])
    assert shown[-1] == (len(entries), [], "game over - q quits")


async def test_a_seat_that_answers_and_goes_again_with_nothing_new_does_not_renew_the_patience(finished):
    ids, genesis, certs, entries = finished
    ann = Scripted(ids[0], certs, entries, upto=12)           # answers each time, sends the same 12, closes
    notes = []
    with trio.fail_after(30):
        async with trio.open_nursery() as n:
            await ann.start(n)
            dead = free_ports(2)
            ann.addrs = [["", ann.port], ["127.0.0.1", dead[0]], ["127.0.0.1", dead[1]]]
            with pytest.raises(WatchError, match="no seat of the table answered for 1 s"):
                await follow([("127.0.0.1", ann.port)], None, notes.append, games=GAMES, patience=1.0,
                             retry=(0.05, 0.2))
            n.cancel_scope.cancel()
    assert "Ann's seat is back; watching through it again" in notes
    assert 2 <= ann.served <= 2 + 1.0 / 0.05             # knocked at again, a bounded number of times


async def test_a_seat_whose_valid_log_parts_from_the_one_watched_is_followed_from_where_they_part(finished, tmp_path):
    """A roll-back (§6.6) as a spectator sees it: the next seat's log, valid, differs from the one watched
    from some entry on (here: the same table played again with other moves). The view steps back to
    where the two part, says so, and every entry from there is checked as always."""
    ids, genesis, certs, entries = finished
    other = await play_out(tmp_path, ids, genesis, certs, "g")
    part = next(i for i, (a, b) in enumerate(zip(entries, other)) if a != b)
    assert 0 < part < 12
    ann = Scripted(ids[0], certs, entries, upto=12, once=True)
    bo = Scripted(ids[1], certs, other, upto=len(other))
    notes, counts, got = [], [], []
    with trio.fail_after(30):
        async with trio.open_nursery() as n:
            for s in (ann, bo):
                await s.start(n)
            ann.addrs = [["", ann.port], ["127.0.0.1", bo.port], ["127.0.0.1", free_ports(1)[0]]]
            got.append(await follow([("127.0.0.1", ann.port)], lambda w: counts.append(w.table.count), notes.append,
                                    games=GAMES, patience=10))
            n.cancel_scope.cancel()
    (w,) = got
    assert w.entries == other and w.table.over
    assert notes[-1] == ("Bo's log differs from the one watched from entry %d on: following it (a roll-back, or a "
                         "fork the seats will name)" % part)
    assert part + 1 in counts[counts.index(12):]            # shown stepping back to the common prefix, then on


def test_easel_watch_takes_its_patience_and_checks_it(tmp_path):
    from cli.main import build_parser, parse
    from cli.options import LiveArgs
    from p2p.limits import SPECTATOR_PATIENCE

    assert LiveArgs().watch_patience == SPECTATOR_PATIENCE
    assert LiveArgs.of(parse(build_parser(), ["watch", "10.0.0.1:4000"])).watch_patience == SPECTATOR_PATIENCE
    assert LiveArgs.of(parse(build_parser(), ["watch", "10.0.0.1:4000", "--patience", "5"])).watch_patience == 5
    from .netutil import easel

    r = easel("watch", "127.0.0.1:9", "--json", "--patience", "-1", home=tmp_path)
    assert r.returncode == 2 and "--patience must be 0 to 3600 seconds, not -1" in r.stderr, r.stderr
