"""The lobby: open table -> seats -> a genesis signed by every seat (real loopback TLS)."""

from __future__ import annotations

import pytest
import trio

from core.encoding import encode
from core.events import parse_genesis
from p2p import tls
from p2p.framing import FramedStream
from p2p.identity import Identity
from p2p.lobby import HostedTable, LobbyError, join


async def _host(nursery, players=3):
    host = Identity.generate()
    ht = HostedTable(host, "painting", players, {}, 40001, "127.0.0.1", timeout=30)
    port = await nursery.start(tls.serve, 0, tls.server_context(host, None), ht.handle, "127.0.0.1")
    return ht, port


async def test_three_seats_sign_one_genesis():
    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            ht, port = await _host(n)
            joiners = [Identity.generate(), Identity.generate()]
            got = {}

            async def one(i, ident):
                got[i] = await join("127.0.0.1", port, ident, 40010 + i, name="p%d" % i, expect_fingerprint=ht.identity.fingerprint)

            async with trio.open_nursery() as jn:
                for i, ident in enumerate(joiners):
                    jn.start_soon(one, i, ident)
                genesis, roster = await ht.seal()
            n.cancel_scope.cancel()
    g0, r0 = got[0]
    g1, _ = got[1]
    assert g0.raw == g1.raw == genesis.raw
    assert parse_genesis(genesis.raw).seats[0] == ht.identity.public  # every signature verified by parse
    assert set(genesis.doc["seats"][1:]) == {j.public for j in joiners}
    assert genesis.doc["game"] == "painting" and genesis.doc["config"]["edition"] == "clarified"
    assert [a[1] for a in r0["addrs"]][0] == 40001
    assert [tls.cert_public_key(c) for c in r0["certs"]] == genesis.doc["seats"]


async def test_seat_freed_when_joiner_leaves_before_full():
    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            ht, port = await _host(n, players=3)
            from p2p.lobby import join_msg

            quitter = Identity.generate()
            stream = await tls.connect("127.0.0.1", port, tls.client_context(quitter, None), None)
            fs = FramedStream(stream)
            cert = tls.make_certificate(quitter)
            sig = quitter.sign(join_msg(ht.identity.public, quitter.public, cert, 40020))
            await fs.send(encode(["join", 1, quitter.public, cert, 40020, "q", sig]))
            await fs.receive()
            assert ht.free == 1
            await trio.aclose_forcefully(stream)
            for _ in range(100):
                if ht.free == 2:
                    break
                await trio.sleep(0.02)
            assert ht.free == 2
            n.cancel_scope.cancel()


async def test_bad_join_requests_are_refused_and_the_host_survives():
    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            ht, port = await _host(n, players=2)
            bad = Identity.generate()
            # garbage, then a join signed for another host
            for payload in (b"\x00\x01garbage", None):
                stream = await tls.connect("127.0.0.1", port, tls.client_context(bad, None), None)
                fs = FramedStream(stream)
                if payload is None:
                    cert = tls.make_certificate(bad)
                    from p2p.lobby import join_msg

                    sig = bad.sign(join_msg(b"\x00" * 32, bad.public, cert, 40030))  # bound to another host
                    payload = encode(["join", 1, bad.public, cert, 40030, "b", sig])
                await fs.send(payload)
                from core.encoding import decode

                reply = decode(await fs.receive())
                assert reply[0] == "refused"
                await trio.aclose_forcefully(stream)
            assert ht.free == 1
            # a proper joiner still gets the last seat, and then the table refuses more
            good = Identity.generate()
            async with trio.open_nursery() as jn:
                jn.start_soon(join, "127.0.0.1", port, good, 40031)
                await ht.seal()
            late = Identity.generate()
            with pytest.raises(LobbyError, match="full"):
                await join("127.0.0.1", port, late, 40032)
            n.cancel_scope.cancel()


async def test_a_joiner_whose_seat_moved_up_still_signs_and_plays():
    """A leaves the lobby early, so B (told seat 2) ends up in seat 1: B finds itself by key.
    (A table of 4: host, A, B; A leaves; C and D fill it.)"""
    from p2p.lobby import join_msg

    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            ht, port = await _host(n, players=4)
            a = Identity.generate()
            stream = await tls.connect("127.0.0.1", port, tls.client_context(a, None), None)
            fs = FramedStream(stream)
            cert = tls.make_certificate(a)
            await fs.send(encode(["join", 1, a.public, cert, 40040, "a", a.sign(join_msg(ht.identity.public, a.public, cert, 40040))]))
            await fs.receive()
            got = {}
            b, c, d = Identity.generate(), Identity.generate(), Identity.generate()

            async def joiner(name, ident, port_):
                got[name] = await join("127.0.0.1", port, ident, port_)

            async with trio.open_nursery() as jn:
                jn.start_soon(joiner, "b", b, 40041)
                for _ in range(100):
                    if ht.free == 1:
                        break
                    await trio.sleep(0.02)
                await trio.aclose_forcefully(stream)  # A goes away: B moves up to seat 1
                for _ in range(100):
                    if ht.free == 2:
                        break
                    await trio.sleep(0.02)
                assert ht.free == 2
                jn.start_soon(joiner, "c", c, 40042)
                jn.start_soon(joiner, "d", d, 40043)
                genesis, _ = await ht.seal()
            n.cancel_scope.cancel()
    assert genesis.doc["seats"][:2] == [ht.identity.public, b.public]
    assert set(genesis.doc["seats"][2:]) == {c.public, d.public}
    assert got["b"][0].raw == got["c"][0].raw == got["d"][0].raw == genesis.raw


async def test_a_seat_change_while_the_seats_go_out_is_sent_next_not_after_the_following_change():
    """Seen on the LAN: a joiner read "(starting) (bot, medium, Ann's)" 25 s after the host's bot sat
    down: the bot sat while the joiner's seats frame was on its way, and the lobby then waited for the
    next change (the next person) before it sent the seats again."""
    from p2p.lobby import Seat, describe_seats

    host = Identity.generate()
    ht = HostedTable(host, "painting", 4, {}, 40011, "127.0.0.1", timeout=30, name="Ann")
    bot = Identity.generate()
    ht.reserve_bot(bot.public, "medium")
    sent: list = []
    sending = trio.Event()
    go_on = trio.Event()

    class Slow:
        """A joiner's stream: the first frame takes until the test lets it through."""

        async def send(self, data: bytes) -> None:
            from core.encoding import decode

            sent.append(decode(data)[1])
            if len(sent) == 1:
                sending.set()
                await go_on.wait()

    joiner = Seat(Identity.generate().public, b"", ["127.0.0.1", 1], "Bo", stream=Slow(), about={})
    ht.seats.append(joiner)
    with trio.fail_after(10):
        async with trio.open_nursery() as n:
            n.start_soon(ht._tell_seats, joiner.stream)
            await sending.wait()
            ht.seats.append(Seat(bot.public, b"", ["127.0.0.1", 2], "bot 1", about={"bot": "medium", "owner": host.fingerprint}))
            ht._changed()                  # the bot sits down while the first frame is on its way
            go_on.set()
            while len(sent) < 2:
                await trio.sleep(0.01)
            n.cancel_scope.cancel()
    assert "(starting)" in describe_seats(sent[0]) or "starting" in describe_seats(sent[0])
    assert describe_seats(sent[1], 1) == "Ann, Bo (you), bot 1 (bot, medium, Ann's), free"


def test_the_host_says_a_bot_is_starting_only_while_one_is():
    """Seen on the LAN: "the bots are starting" 25 s after the host's bot sat down, while the table
    waited for people; a held seat whose bot has not sat yet reads as a bot starting."""
    from cli.hosting import seating_text
    from p2p.lobby import describe_seats

    host, bot = Identity.generate(), Identity.generate()
    ht = HostedTable(host, "painting", 4, {}, 40012, "127.0.0.1", timeout=30, name="Ann")
    ht.reserve_bot(bot.public, "medium")
    assert (ht.free, ht.starting) == (2, 1)
    assert seating_text(ht.free, 4, 3.2, starting=ht.starting) == \
        "easel: starting the table: 1 of 4 seats taken (3 s) - a bot is starting"
    assert describe_seats(ht.shown(), 0) == "Ann (you), a bot starting (medium, Ann's), free, free"
    from p2p.lobby import Seat

    ht.seats.append(Seat(bot.public, b"", ["127.0.0.1", 2], "bot 1", about={"bot": "medium", "owner": host.fingerprint}))
    assert (ht.free, ht.starting) == (2, 0)
    assert seating_text(ht.free, 4, 25.0, starting=ht.starting) == \
        "easel: starting the table: 2 of 4 seats taken (25 s) - waiting for 2 more people to join (easel join)"
    assert describe_seats(ht.shown(), 0) == "Ann (you), bot 1 (bot, medium, Ann's), free, free"
    assert seating_text(0, 4, 30.0) == "easel: starting the table: 4 of 4 seats taken (30 s) - dealing in"


class _From:
    """A stream as the lobby sees it: only where it came from (tls.peer_host reads ``peer``)."""

    def __init__(self, peer: str) -> None:
        self.peer = peer


def _join_request(ht: HostedTable, who: Identity, port: int, name: str) -> list:
    from p2p.lobby import join_msg

    cert = tls.make_certificate(who)
    return ["join", 1, who.public, cert, port, name, who.sign(join_msg(ht.identity.public, who.public, cert, port))]


def test_a_host_s_own_bot_is_recorded_where_it_listens_on_the_lan_as_the_host_beyond_it_at_its_own_peer():
    """Seen between two homes: the host's ``--bots 1`` bot (a libp2p peer of its own, §9.10) was recorded at the
    host's peer id, so the joiner in the other home dialled the host at the bot's port and never reached the bot
    ("not connected: bot 1" all game long). On the LAN it is still recorded as the host is (it dialled from loopback)."""
    from p2p.internet import peer_id_of

    ann_peer, bot_peer = peer_id_of(b"a" * 32), peer_id_of(b"b" * 32)
    for play_host, came_from, recorded in ((ann_peer, bot_peer, bot_peer),      # beyond the LAN: its own peer
                                           ("", "127.0.0.1", ""),               # LAN, every interface
                                           ("198.18.0.5", "127.0.0.1", "198.18.0.5")):
        ht = HostedTable(Identity.generate(), "painting", 3, {}, 40001, play_host, timeout=30)
        bot = Identity.generate()
        ht.reserve_bot(bot.public, "heuristic")
        seat = ht._admit(_join_request(ht, bot, 40050, "bot 1"), _From(came_from))
        assert seat.addr == [recorded, 40050]
        assert seat.about["owner"] == ht.identity.fingerprint
        other = Identity.generate()         # anyone else: where the lobby saw it come from
        assert ht._admit(_join_request(ht, other, 40051, "Bo"), _From(came_from)).addr == [came_from, 40051]
