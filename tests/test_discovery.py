"""Tests for p2p.discovery.

Loopback only: every Zeroconf instance here is bound to 127.0.0.1 (an
autouse fixture asserts it), so nothing is multicast on a real interface.
Linux delivers IPv4 multicast on ``lo`` even though ``lo`` lacks the
MULTICAST flag, because IP_MULTICAST_LOOP hands the sender's host a copy.

Table ids are random per test and assertions only look at our own tables, so
other mDNS traffic on the loopback (e.g. a parallel CI job) cannot break them.
"""

from __future__ import annotations

import logging
import secrets
from functools import partial

import pytest
import trio
from zeroconf import InterfaceChoice, IPVersion, ServiceInfo, Zeroconf

from p2p import discovery
from p2p.discovery import (
    LOOPBACK_ONLY,
    SERVICE_TYPE,
    TableAd,
    advertise,
    browse,
    browse_live,
    parse_properties,
    resolve_interfaces,
)

LOOPBACK = ["127.0.0.1"]
FP = "1a2b-3c4d-5e6f-7a8b"
FP2 = "9f8e-7d6c-5b4a-3921"
# Answers to a query are held back ~1 s when the records were multicast in the
# last second (RFC 6762 s6), e.g. just after registering, so use 1.5 s windows.
WINDOW = 1.5


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch):
    """Force and check loopback for every Zeroconf made by p2p.discovery."""
    monkeypatch.setenv(discovery.ENV_INTERFACES, "127.0.0.1")
    real = discovery._new_zeroconf

    def checked(ifaces):
        assert ifaces == LOOPBACK, f"test tried to use interfaces {ifaces!r}"
        return real(ifaces)

    monkeypatch.setattr(discovery, "_new_zeroconf", checked)


def table_id() -> str:
    return secrets.token_hex(4)


def mine(tables: list[TableAd], *ids: str) -> dict[str, TableAd]:
    return {t.table: t for t in tables if t.table in ids}


async def browse_until(pred, attempts: int = 3) -> list[TableAd]:
    """Browse repeatedly (bounded) until pred(tables) holds; return last result."""
    with trio.fail_after(attempts * (WINDOW + 1.0)):
        for _ in range(attempts):
            tables = await browse(WINDOW, LOOPBACK)
            if pred(tables):
                return tables
    return tables


# ---------------------------------------------------------------- pure tests


def test_resolve_interfaces(monkeypatch):
    monkeypatch.delenv(discovery.ENV_INTERFACES, raising=False)
    assert resolve_interfaces() is InterfaceChoice.All
    assert resolve_interfaces(LOOPBACK_ONLY) == ["127.0.0.1"]
    assert resolve_interfaces(["127.0.0.1"]) == ["127.0.0.1"]
    monkeypatch.setenv(discovery.ENV_INTERFACES, " 127.0.0.1, 10.0.0.5 ,")
    assert resolve_interfaces() == ["127.0.0.1", "10.0.0.5"]
    # an explicit argument beats the environment
    assert resolve_interfaces(InterfaceChoice.All) is InterfaceChoice.All
    monkeypatch.setenv(discovery.ENV_INTERFACES, "all")
    assert resolve_interfaces() is InterfaceChoice.All
    monkeypatch.setenv(discovery.ENV_INTERFACES, "")
    assert resolve_interfaces() is InterfaceChoice.All
    for bad in ("eth0", "::1", " , "):
        with pytest.raises(ValueError):
            resolve_interfaces(bad)


GOOD = {b"game": b"painting", b"free": b"2", b"seats": b"4", b"fp": FP.encode(), b"v": b"1", b"table": b"ab12"}


def test_parse_good():
    ad = parse_properties(GOOD, host="10.0.0.2", port=4000, name="n")
    assert ad == TableAd("painting", 2, 4, FP, "ab12", "10.0.0.2", 4000, "n")


@pytest.mark.parametrize(
    "change",
    [
        {b"free": b"lots"},
        {b"free": b"-1"},
        {b"free": b" 2"},
        {b"free": b"+2"},
        {b"free": "\u0663".encode()},  # ARABIC-INDIC DIGIT THREE: int() accepts it
        {b"free": b"5"},  # more than seats
        {b"seats": b"0"},
        {b"seats": b"99999999999999999999"},
        {b"free": None},  # boolean attribute, no value
        {b"fp": b"not-a-fingerprint"},
        {b"game": b"\xff\xfe"},
        {b"game": b""},
        {b"table": b"XYZ"},
        {b"v": b"2"},
        {b"fp": "1a2b-3c4d-5e6f-7a8\u0431".encode()},
    ],
)
def test_parse_rejects_malformed(change):
    props = {**GOOD, **change}
    with pytest.raises(ValueError):
        parse_properties(props, host="10.0.0.2", port=4000, name="n")


def test_parse_reads_the_hosts_name_and_an_ad_without_one_is_shown_by_its_key():
    ad = parse_properties({**GOOD, b"name": "Zoë".encode()}, host="10.0.0.2", port=4000, name="n")
    assert ad.host_name == "Zoë" and ad.who == "Zoë"
    old = parse_properties(GOOD, host="10.0.0.2", port=4000, name="n")     # an advertiser without TXT name
    assert old.host_name == "" and old.who == FP


@pytest.mark.parametrize(
    "bad",
    [
        b"",                          # empty
        None,                         # a bare "name" without "="
        b"\xff\xfeAnn",                # not UTF-8
        b"x" * 49,                    # longer than a seat name may be
        b"Ann\x1b[2J",                # a terminal escape: never printed
        "Ann\u202e".encode(),         # a bidi override (not printable)
        b" Ann",                      # a space at an end
    ],
)
def test_parse_rejects_a_malformed_name(bad):
    with pytest.raises(ValueError):
        parse_properties({**GOOD, b"name": bad}, host="10.0.0.2", port=4000, name="n")


@pytest.mark.parametrize("missing", sorted(GOOD))
def test_parse_rejects_missing(missing):
    props = {k: v for k, v in GOOD.items() if k != missing}
    with pytest.raises(ValueError):
        parse_properties(props, host="10.0.0.2", port=4000, name="n")


def test_advertise_validates_arguments():
    ok = dict(game="painting", free=1, seats=2, fingerprint=FP, table="ab", port=4000, interfaces=LOOPBACK)
    advertise(**ok)
    for bad in (
        {"free": 3},
        {"free": -1},
        {"seats": 0},
        {"port": 0},
        {"fingerprint": "nope"},
        {"table": "XY"},
        {"game": "Painting!"},
        {"host_name": "Ann\n"},
        {"host_name": "x" * 49},
    ):
        with pytest.raises(ValueError):
            advertise(**{**ok, **bad})
    assert advertise(**ok, host_name="Ann").ad.host_name == "Ann"


# -------------------------------------------------------------- network tests


async def test_advertised_table_is_found_and_updated():
    tid = table_id()
    async with advertise(
        game="painting", free=2, seats=4, fingerprint=FP, table=tid, port=40123, interfaces=LOOPBACK
    ) as adv:
        tables = await browse_until(lambda ts: tid in mine(ts, tid))
        assert mine(tables, tid)[tid] == TableAd(
            game="painting",
            free=2,
            seats=4,
            fingerprint=FP,
            table=tid,
            host="127.0.0.1",
            port=40123,
            name=f"painting-{tid} on {FP}",
        )
        assert adv.ad == mine(tables, tid)[tid]

        await adv.update(free=1)
        assert adv.ad.free == 1
        tables = await browse_until(lambda ts: tid in mine(ts, tid) and mine(ts, tid)[tid].free == 1)
        assert mine(tables, tid)[tid].free == 1
        assert mine(tables, tid)[tid].seats == 4

        with pytest.raises(ValueError):
            await adv.update(free=5)

    with pytest.raises(RuntimeError):
        await adv.update(free=0)


async def test_table_disappears_after_exit_and_after_cancel():
    normal, cancelled = table_id(), table_id()
    common = dict(game="painting", free=1, seats=2, fingerprint=FP, port=40124, interfaces=LOOPBACK)
    stop = trio.Event()

    async def hold(tid, task_status=trio.TASK_STATUS_IGNORED):
        async with advertise(table=tid, **common):
            task_status.started()
            await stop.wait()  # normal exit once stop is set, unless cancelled

    with trio.fail_after(10):
        async with trio.open_nursery() as keep:
            async with trio.open_nursery() as doomed:
                # register both concurrently (probing takes ~1.7 s each)
                async with trio.open_nursery() as starting:
                    starting.start_soon(keep.start, hold, normal)
                    starting.start_soon(doomed.start, hold, cancelled)
                tables = await browse_until(lambda ts: len(mine(ts, normal, cancelled)) == 2)
                assert set(mine(tables, normal, cancelled)) == {normal, cancelled}
                doomed.cancel_scope.cancel()  # leaves its advertiser by cancellation
            stop.set()  # the other leaves normally

    tables = await browse(WINDOW, LOOPBACK)
    assert mine(tables, normal, cancelled) == {}


async def test_malformed_advertisements_are_skipped(caplog):
    caplog.set_level(logging.DEBUG, logger="p2p.discovery")
    tag = table_id()
    good = {"game": "painting", "free": "1", "seats": "2", "fp": FP2, "v": "1", "table": tag}
    variants = [
        {"free": "lots"},
        {"free": "9"},
        {"fp": None},
        {"game": b"\xff\xfe\xfd"},
        {"v": "2"},
        {"seats": "\u0663", "free": "\u0661"},
        {"name": "Ann\x1b[2J"},
        {"name": b"\xff\xfe"},
    ]
    infos = []
    for i, change in enumerate(variants):
        props = {k: v for k, v in {**good, **change}.items() if v is not None}
        infos.append(
            ServiceInfo(
                SERVICE_TYPE,
                f"evil-{i}-{tag}.{SERVICE_TYPE}",
                port=40200 + i,
                properties=props,
                server=f"evil-{i}-{tag}.local.",
                parsed_addresses=["127.0.0.1"],
            )
        )
    # A well-formed one from the same hostile responder is still listed.
    infos.append(
        ServiceInfo(
            SERVICE_TYPE,
            f"painting-{tag} on {FP2}.{SERVICE_TYPE}",
            port=40199,
            properties=good,
            server=f"fine-{tag}.local.",
            parsed_addresses=["127.0.0.1"],
        )
    )

    zc = await trio.to_thread.run_sync(
        lambda: Zeroconf(interfaces=LOOPBACK, ip_version=IPVersion.V4Only, use_asyncio=False)
    )
    try:
        with trio.fail_after(5):
            async with trio.open_nursery() as nursery:
                for info in infos:
                    nursery.start_soon(
                        trio.to_thread.run_sync,
                        partial(zc.register_service, info, cooperating_responders=True),
                    )

        tables = await browse_until(lambda ts: any(t.table == tag for t in ts))
        ours = [t for t in tables if tag in t.name or t.table == tag]
        assert ours == [
            TableAd("painting", 1, 2, FP2, tag, "127.0.0.1", 40199, f"painting-{tag} on {FP2}")
        ]
        skipped = [r.getMessage() for r in caplog.records if "skipping" in r.getMessage()]
        for i in range(len(variants)):
            assert any(f"evil-{i}-{tag}" in m for m in skipped), (i, skipped)
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(zc.close)


async def test_browse_live_tells_of_a_table_found_updated_and_gone_with_its_hosts_name():
    """Each table is reported the moment it is resolved (not at the end of a window), then its changes."""
    tid = table_id()
    seen: list = []
    changed = trio.Event()

    def on_change(kind, ad):
        if ad.table == tid:
            seen.append((kind, ad.free, ad.host_name))
            changed.set()

    async def until(pred):
        nonlocal changed
        with trio.fail_after(15):
            while not pred():
                await changed.wait()
                changed = trio.Event()

    with trio.fail_after(40):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(partial(browse_live, on_change, None, LOOPBACK))
            async with advertise(game="painting", free=2, seats=3, fingerprint=FP, table=tid, port=40125,
                                 interfaces=LOOPBACK, host_name="Ann"):
                await until(lambda: seen)
                assert seen[0] == ("found", 2, "Ann")
                async with advertise(game="painting", free=2, seats=3, fingerprint=FP2, table=tid, port=40126,
                                     interfaces=LOOPBACK):
                    pass       # (another host's table, no name: it comes and goes; ours stays)
            await until(lambda: seen[-1][0] == "gone")
            nursery.cancel_scope.cancel()
    kinds = [k for k, _, name in seen if name == "Ann"]
    assert kinds[0] == "found" and kinds[-1] == "gone", seen


async def test_a_legacy_unicast_query_is_answered_at_once_into_the_cache():
    """The fast path alone (no multicast browser): the PTR query from a port of our own is answered by unicast
    with the table's SRV, TXT and A records, which land in the browsing zeroconf's cache."""
    tid = table_id()
    name = f"painting-{tid} on {FP}.{SERVICE_TYPE}"
    async with advertise(game="painting", free=1, seats=2, fingerprint=FP, table=tid, port=40127, interfaces=LOOPBACK,
                         host_name="Bo"):
        # a zeroconf that hears no multicast (unicast mode: ephemeral ports only), so what reaches its cache
        # came through the legacy query's own socket
        zc = await trio.to_thread.run_sync(
            lambda: Zeroconf(interfaces=LOOPBACK, ip_version=IPVersion.V4Only, unicast=True, use_asyncio=False))
        try:
            with trio.fail_after(10):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(discovery._ask_by_unicast, zc, LOOPBACK)
                    info = ServiceInfo(SERVICE_TYPE, name)
                    while not info.load_from_cache(zc):
                        await trio.sleep(0.02)
                    nursery.cancel_scope.cancel()
            ad = discovery._ad_from_info(info)
            assert (ad.table, ad.port, ad.host_name, ad.host) == (tid, 40127, "Bo", "127.0.0.1")
        finally:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(zc.close)
