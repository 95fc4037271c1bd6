"""Names: a person's name, chosen once, carried by the lobby, signed into the genesis, shown everywhere.

Names are display only: the seat keys stay the identity; two seats with one name
are told apart by their key fingerprints.
"""

from __future__ import annotations

import functools
import io
import json

import pytest
import trio

from core.encoding import decode, encode
from core.events import EntryError, check_genesis_doc, clean_name, name_problem, seat_names
from core.hashing import fingerprint
from p2p import tls
from p2p.framing import FramedStream
from p2p.identity import Identity
from p2p.lobby import HostedTable, LobbyError, describe_seats, join, join_msg

from .helpers import genesis_for, seat_keys


# --------------------------------------------------------------------------- the genesis field
def _doc(**extra):
    keys = [bytes(sk.verify_key) for sk in seat_keys(3)]
    doc = {"game": "toy", "config": {}, "seats": keys, "table": b"t"}
    doc.update(extra)
    return doc


def test_a_genesis_may_name_every_seat_and_one_without_names_stays_valid():
    check_genesis_doc(_doc())
    check_genesis_doc(_doc(names=["Ann", "Bo", "Zoë 🎨"]))
    g = genesis_for(seat_keys(3), names=["Ann", "Bo", "Cy"])
    assert g.doc["names"] == ["Ann", "Bo", "Cy"]


@pytest.mark.parametrize("names, why", [
    (["Ann", "Bo"], "one name per seat"),
    ("Ann,Bo,Cy", "one name per seat"),
    (["Ann", "Bo", 3], "seat 2 is not a string"),
    (["Ann", "", "Cy"], "seat 1 is empty"),
    (["Ann", "x" * 49, "Cy"], "longer than 48 bytes"),
    (["Ann", "é" * 25, "Cy"], "longer than 48 bytes"),          # 25 characters, 50 bytes of UTF-8
    (["Ann", "Bo\x1b[2J", "Cy"], "not printable"),              # a terminal escape
    (["Ann", "Bo\u202e", "Cy"], "not printable"),                # a right-to-left override
    (["Ann", "Bo\n", "Cy"], "not printable"),
    ([" Ann", "Bo", "Cy"], "starts or ends with a space"),
])
def test_bad_names_make_the_genesis_invalid(names, why):
    with pytest.raises(EntryError, match=why):
        check_genesis_doc(_doc(names=names))


def test_names_are_covered_by_the_game_id():
    a = genesis_for(seat_keys(2), names=["Ann", "Bo"])
    b = genesis_for(seat_keys(2), names=["Ann", "Bob"])
    assert a.game_id != b.game_id


def test_two_seats_with_one_name_are_told_apart_by_their_key_fingerprints():
    doc = _doc(names=["Ann", "Ann", "Cy"])
    shown = seat_names(doc)
    assert shown[2] == "Cy"
    assert shown[0] == "Ann #" + fingerprint(doc["seats"][0]).split("-")[0]
    assert shown[1] == "Ann #" + fingerprint(doc["seats"][1]).split("-")[0]
    assert shown[0] != shown[1]
    assert seat_names(_doc()) == ("seat 0", "seat 1", "seat 2")


def test_clean_name_makes_any_text_a_valid_name():
    assert clean_name("  ro\x07ot ") == "root"
    assert clean_name("\x00\x01", "player") == "player"
    long = clean_name("é" * 40)
    assert not name_problem(long) and len(long.encode()) <= 48


# --------------------------------------------------------------------------- the lobby
async def _host(nursery, players=3, name="Ann", **kw):
    host = Identity.generate()
    ht = HostedTable(host, "painting", players, {}, 40101, "127.0.0.1", timeout=30, name=name, **kw)
    port = await nursery.start(tls.serve, 0, tls.server_context(host, None), ht.handle, "127.0.0.1")
    return ht, port


async def test_names_travel_in_the_lobby_and_are_signed_into_the_genesis_in_seat_order():
    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            ht, port = await _host(n)
            bo, cy = Identity.generate(), Identity.generate()
            got = {}

            async def one(who, ident, port_):
                got[who] = await join("127.0.0.1", port, ident, port_, name=who)

            async with trio.open_nursery() as jn:
                jn.start_soon(one, "Bo", bo, 40110)
                await trio.testing.wait_all_tasks_blocked()
                while ht.open_seats != 1:
                    await trio.sleep(0.01)
                jn.start_soon(one, "Cy", cy, 40111)
                genesis, _ = await ht.seal()
            n.cancel_scope.cancel()
    assert genesis.doc["names"] == ["Ann", "Bo", "Cy"]
    assert genesis.doc["seats"] == [ht.identity.public, bo.public, cy.public]
    assert got["Bo"][0].raw == got["Cy"][0].raw == genesis.raw


async def test_a_join_with_a_bad_name_is_refused_with_the_reason():
    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            ht, port = await _host(n, players=2)
            bad = Identity.generate()
            stream = await tls.connect("127.0.0.1", port, tls.client_context(bad, None), None)
            fs = FramedStream(stream)
            cert = tls.make_certificate(bad)
            sig = bad.sign(join_msg(ht.identity.public, bad.public, cert, 40120))
            await fs.send(encode(["join", 1, bad.public, cert, 40120, "evil\x1b[2J", sig]))
            reply = decode(await fs.receive())
            assert reply[0] == "refused" and "not printable" in reply[1]
            await trio.aclose_forcefully(stream)
            assert ht.free == 1
            with pytest.raises(LobbyError, match="your name is empty"):
                await join("127.0.0.1", port, bad, 40121, name="")
            n.cancel_scope.cancel()


async def test_a_joiner_refuses_a_genesis_that_signs_it_in_under_another_name():
    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            ht, port = await _host(n, players=2)
            real_seal = ht.seal

            async def renaming_seal():
                await ht.full.wait()
                ht.seats[1].name = "Mallory"      # the host lies about the joiner's name
                return await real_seal()

            bo = Identity.generate()
            failed = []

            async def joiner():
                try:
                    await join("127.0.0.1", port, bo, 40130, name="Bo")
                except LobbyError as exc:
                    failed.append(str(exc))

            host_failed = []
            async with trio.open_nursery() as jn:
                jn.start_soon(joiner)
                try:
                    await renaming_seal()
                except LobbyError as exc:
                    host_failed.append(str(exc))
            n.cancel_scope.cancel()
    assert failed and "another name" in failed[0]
    assert host_failed and "did not sign" in host_failed[0]


# --------------------------------------------------------------------------- seats as they are
async def test_the_lobby_shows_people_bots_and_free_seats_and_free_counts_the_hosts_bots_as_taken():
    with trio.fail_after(20):
        async with trio.open_nursery() as n:
            ht, port = await _host(n, players=4)
            bot = Identity.generate()
            ht.reserve_bot(bot.public, "random")
            assert ht.free == 2 and ht.open_seats == 3
            assert [s["kind"] for s in ht.shown()] == ["person", "bot", "free", "free"]
            seen = []
            bo = Identity.generate()
            cy = Identity.generate()
            stranger = Identity.generate()

            async def person():
                await join("127.0.0.1", port, bo, 40140, name="Bo", about={}, on_seats=seen.append)

            async with trio.open_nursery() as jn:
                jn.start_soon(person)
                while ht.free != 1:
                    await trio.sleep(0.01)
                jn.start_soon(join, "127.0.0.1", port, cy, 40141, "Cy")
                while ht.free != 0:
                    await trio.sleep(0.01)
                # the last open seat is the bot's: a stranger is refused, the bot gets it
                with pytest.raises(LobbyError, match="full"):
                    await join("127.0.0.1", port, stranger, 40142, name="Eve")
                # a bot may not pass itself off as the host's own
                with pytest.raises(LobbyError, match="did not start that bot"):
                    await join("127.0.0.1", port, stranger, 40143, name="Eve",
                               about={"bot": "random", "owner": ht.identity.fingerprint})
                jn.start_soon(functools.partial(join, "127.0.0.1", port, bot, 40144, name="bot 1", about={"bot": "random"}))
                genesis, _ = await ht.seal()
            n.cancel_scope.cancel()
    assert genesis.doc["names"] == ["Ann", "Bo", "Cy", "bot 1"]
    assert seen, "a joiner that sent about got the seats"
    first = seen[0]
    assert first[0] == {"name": "Ann", "kind": "person"}
    assert any(s["kind"] == "bot" and s["level"] == "random" and s["owner"] == ht.identity.fingerprint for s in first)
    assert describe_seats(first, 1).startswith("Ann, Bo (you), ")
    assert "a bot starting (random, Ann's)" in describe_seats(first)     # held for the host's bot, not sat yet


def test_describe_seats_in_words():
    seats = [{"name": "Ann", "kind": "person"}, {"name": "bot 1", "kind": "bot", "level": "random", "owner": "x"},
             {"name": "", "kind": "free"}]
    assert describe_seats(seats, 0) == "Ann (you), bot 1 (bot, random, Ann's), free"


# --------------------------------------------------------------------------- choosing a name
def test_a_name_is_asked_once_on_a_terminal_and_kept(tmp_path, monkeypatch):
    from cli.home import player_name

    monkeypatch.setenv("EASEL_HOME", str(tmp_path))
    monkeypatch.setenv("USER", "root")
    answers = iter(["bad\x07name", "Zoë"])
    out = io.StringIO()
    assert player_name(None, interactive=True, ask=lambda: next(answers), out=out) == "Zoë"
    assert "not printable" in out.getvalue() and "Enter for root" in out.getvalue()
    assert json.loads((tmp_path / "profile.json").read_text()) == {"name": "Zoë"}
    # kept: not asked again; --name overrides it for one game without changing it
    assert player_name(None, interactive=True, ask=lambda: pytest.fail("asked again")) == "Zoë"
    assert player_name("Zed", interactive=True) == "Zed"
    assert player_name(None, interactive=False) == "Zoë"


def test_without_a_terminal_the_name_is_the_user_name(tmp_path, monkeypatch):
    from cli.common import UsageError
    from cli.home import player_name

    monkeypatch.setenv("EASEL_HOME", str(tmp_path))
    monkeypatch.setenv("USER", "ro\tot")
    assert player_name(None, interactive=False) == "root"
    monkeypatch.delenv("USER")
    monkeypatch.delenv("USERNAME", raising=False)
    assert player_name(None, interactive=False) == "player"
    assert not (tmp_path / "profile.json").exists()
    with pytest.raises(UsageError, match="--name"):
        player_name(" x", interactive=False)


# --------------------------------------------------------------------------- on the screen
def test_the_screen_says_who_by_name_seats_pane_title_log_waiting_and_ranking():
    from types import SimpleNamespace

    from cli.screens import Context, GenericScreen
    from cli.shell import _seats_lines, _title_text, snapshot_of, step_status

    from .test_shell import CountScreen, FakeTable

    class Said(CountScreen):
        def describe(self, game, state, seat, action):
            return "seat %d adds %d" % (seat, action["add"])

    table = FakeTable()
    table.genesis = SimpleNamespace(doc={"game": "fake-multi", "seats": [b"a" * 32, b"b" * 32], "names": ["Ann", "Bo"]})
    table.act(0, {"add": 2})
    screen = Said()
    snap = snapshot_of(table, 1, screen=screen)
    assert snap.names == ("Ann", "Bo")
    assert [t.split("  ", 1)[1] for _, t in snap.log] == ["Ann adds 2"]
    ctx = Context(seat=1, snap=snap)
    rows = ["".join(t for _, t in line) for line in _seats_lines(snap, screen, ctx)]
    assert any(r.startswith("  Ann ") for r in rows) and any(r.startswith("> Bo (you)") for r in rows)
    assert "you are Bo (seat 1)" in _title_text("Easel", snap, screen, ctx)
    assert step_status(snap, screen)[1].endswith("waiting for Ann")
    over = snapshot_of(table, 1, screen=screen)
    over = type(over)(**{**over.__dict__, "over": True, "result": {"ranking": [1, 0]}})
    lines = ["".join(t for _, t in line) for line in GenericScreen().game_over_lines(Context(seat=1, snap=over), 60)]
    assert " 1. Bo (you)" in lines and " 2. Ann" in lines
    # a genesis without names: as before
    plain = FakeTable()
    plain.act(0, {"add": 2})
    snap = snapshot_of(plain, 1, screen=screen)
    assert snap.names == () and [t.split("  ", 1)[1] for _, t in snap.log] == ["seat 0 adds 2"]
    assert "you are seat 1" in _title_text("Easel", snap, screen, Context(seat=1, snap=snap))


def test_with_names_says_a_name_for_seat_n_mid_sentence_at_its_start_and_in_a_column():
    from cli.screens import with_names

    names = ("Ann", "Bo", "Maximilian")
    assert with_names("Seat 0 offers K for your R; seat 1's turn", names) == "Ann offers K for your R; Bo's turn"
    assert with_names("  seat 1 (you)  hand 9", names) == "  Bo (you)      hand 9"      # the column stays put
    assert with_names("seat 2  9", names) == "Maximilian 9"                              # at least one space
    assert with_names("seat 7 and Seats 1", names) == "seat 7 and Seats 1"              # no such seat; a header
    assert with_names("Seat 0 offers", ()) == "Seat 0 offers"                           # no names: as before


def test_a_happening_says_you_wherever_it_names_our_seat():
    """"SOLD: ... paid to seat 0" said (you) only where a space followed: now at a line's end too."""
    from cli.screens.starving_artists import StarvingArtistsScreen
    from cli.shell import snapshot_of

    from .test_ui import Net

    class Sales(StarvingArtistsScreen):
        said = ["SOLD: seat 1 buys MeS for 10, paid to seat 0"]

        def happenings(self, before, view):
            out, self.said = self.said, []
            return out

    net = Net(2)
    screen = Sales()
    first = snapshot_of(net.table, 0, screen=screen)
    net.bots(upto_round=2)
    second = snapshot_of(net.table, 0, screen=screen, before=first)
    assert "*   SOLD: seat 1 buys MeS for 10, paid to seat 0 (you)" in [text for _, text in second.log]
