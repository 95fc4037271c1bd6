import struct

import pytest
import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.framing import (
    HEADER_SIZE,
    MAX_FRAME,
    ConnectionClosed,
    FrameDecoder,
    FramedStream,
    FrameError,
    encode_frame,
)

TIMEOUT = 10


def hdr(n: int) -> bytes:
    return struct.pack(">I", n)


# ---------------------------------------------------------------- sans-IO


def test_encode_layout():
    assert encode_frame(b"abc") == b"\x00\x00\x00\x03abc"
    assert MAX_FRAME == 1 << 20 and HEADER_SIZE == 4


def test_encode_rejects_zero_and_oversize():
    with pytest.raises(FrameError, match="zero-length"):
        encode_frame(b"")
    with pytest.raises(FrameError, match="oversize"):
        encode_frame(b"x" * (MAX_FRAME + 1))
    assert len(encode_frame(b"x" * MAX_FRAME)) == MAX_FRAME + 4
    with pytest.raises(TypeError):
        encode_frame("text")  # type: ignore[arg-type]


def test_decoder_rejects_zero_frame():
    d = FrameDecoder()
    with pytest.raises(FrameError, match="zero-length"):
        d.feed(hdr(0))


def test_decoder_rejects_oversize_at_header():
    d = FrameDecoder()
    # Only the header is fed: the error comes before any body is buffered.
    with pytest.raises(FrameError, match="oversize"):
        d.feed(hdr(MAX_FRAME + 1))
    # Header split over feeds, declared length 4 GiB - 1.
    d = FrameDecoder()
    assert d.feed(b"\xff\xff") == []
    with pytest.raises(FrameError, match="oversize"):
        d.feed(b"\xff\xff")
    # A dead decoder stays dead.
    with pytest.raises(FrameError):
        d.feed(encode_frame(b"ok"))


def test_decoder_accepts_max_frame():
    d = FrameDecoder()
    assert d.feed(encode_frame(b"y" * MAX_FRAME)) == [b"y" * MAX_FRAME]


def test_decoder_frames_split_across_feeds():
    d = FrameDecoder()
    data = encode_frame(b"hello") + encode_frame(b"world!")
    out = []
    for i in range(len(data)):
        out += d.feed(data[i : i + 1])
        if i < 8:
            assert out == []
    assert out == [b"hello", b"world!"]
    assert d.at_boundary and d.buffered == 0


def test_decoder_many_frames_in_one_feed():
    payloads = [bytes([i % 256]) * (i + 1) for i in range(500)]
    d = FrameDecoder()
    assert d.feed(b"".join(encode_frame(p) for p in payloads)) == payloads


def test_decoder_partial_then_rest():
    d = FrameDecoder()
    assert d.feed(encode_frame(b"one") + encode_frame(b"two")[:5]) == [b"one"]
    assert not d.at_boundary
    assert d.buffered == 5
    assert d.feed(b"wo") == [b"two"]
    assert d.at_boundary


def test_decoder_custom_limit():
    d = FrameDecoder(max_frame=10)
    assert d.feed(encode_frame(b"x" * 10)) == [b"x" * 10]
    with pytest.raises(FrameError, match="oversize"):
        d.feed(hdr(11))


@settings(max_examples=200, deadline=None)
@given(
    payloads=st.lists(st.binary(min_size=1, max_size=300), max_size=20),
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=30),
)
def test_decoder_any_split(payloads, cuts):
    data = b"".join(encode_frame(p) for p in payloads)
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    d = FrameDecoder()
    out = []
    for a, b in zip(points, points[1:]):
        out += d.feed(data[a:b])
    assert out == payloads
    assert d.at_boundary


# ---------------------------------------------------------------- FramedStream


async def test_framed_stream_roundtrip_and_clean_eof():
    with trio.fail_after(TIMEOUT):
        a, b = trio.testing.memory_stream_pair()
        fa, fb = FramedStream(a), FramedStream(b)
        await fa.send(b"ping")
        await fa.send(b"x" * 100_000)
        assert await fb.receive() == b"ping"
        assert await fb.receive() == b"x" * 100_000
        await fb.send(b"pong")
        assert await fa.receive() == b"pong"
        await fa.aclose()
        with pytest.raises(ConnectionClosed):
            await fb.receive()
        with pytest.raises(ConnectionClosed):  # and again
            await fb.receive()


async def test_framed_stream_truncated_eof():
    with trio.fail_after(TIMEOUT):
        a, b = trio.testing.memory_stream_pair()
        fb = FramedStream(b)
        await a.send_all(encode_frame(b"complete") + encode_frame(b"cut short")[:7])
        await a.aclose()
        assert await fb.receive() == b"complete"
        with pytest.raises(FrameError, match="truncated frame"):
            await fb.receive()


async def test_framed_stream_truncated_header():
    with trio.fail_after(TIMEOUT):
        a, b = trio.testing.memory_stream_pair()
        await a.send_all(b"\x00\x00")
        await a.aclose()
        with pytest.raises(FrameError, match="truncated frame"):
            await FramedStream(b).receive()


async def test_framed_stream_rejects_oversize_and_zero_from_peer():
    with trio.fail_after(TIMEOUT):
        a, b = trio.testing.memory_stream_pair()
        await a.send_all(hdr(MAX_FRAME + 1))  # no body follows; must not wait for it
        with pytest.raises(FrameError, match="oversize"):
            await FramedStream(b).receive()
        a, b = trio.testing.memory_stream_pair()
        await a.send_all(hdr(0))
        with pytest.raises(FrameError, match="zero-length"):
            await FramedStream(b).receive()


async def test_framed_stream_send_rejects_bad_payload():
    with trio.fail_after(TIMEOUT):
        a, _ = trio.testing.memory_stream_pair()
        fa = FramedStream(a)
        with pytest.raises(FrameError):
            await fa.send(b"")
        with pytest.raises(FrameError):
            await fa.send(b"z" * (MAX_FRAME + 1))


async def test_framed_stream_concurrent_senders():
    # lockstep streams block in send_all until the peer reads, and raise
    # BusyResourceError on overlapping send_all calls: the lock must serialize.
    with trio.fail_after(TIMEOUT):
        a, b = trio.testing.lockstep_stream_pair()
        fa, fb = FramedStream(a), FramedStream(b)
        n_tasks, per_task = 8, 25
        got = []

        async def sender(t):
            for i in range(per_task):
                await fa.send(f"{t}:{i}:".encode() + bytes([t]) * (1000 + 37 * i))

        async def receiver():
            for _ in range(n_tasks * per_task):
                got.append(await fb.receive())

        async with trio.open_nursery() as n:
            n.start_soon(receiver)
            for t in range(n_tasks):
                n.start_soon(sender, t)

        assert len(got) == n_tasks * per_task
        for t in range(n_tasks):
            mine = [g for g in got if g.startswith(f"{t}:".encode())]
            assert [int(g.split(b":")[1]) for g in mine] == list(range(per_task))
            for g in mine:
                i = int(g.split(b":")[1])
                assert g.endswith(bytes([t]) * (1000 + 37 * i))


async def test_framed_stream_broken_transport_is_connection_closed():
    with trio.fail_after(TIMEOUT):
        a, b = trio.testing.memory_stream_pair()
        fa = FramedStream(a)
        await b.aclose()
        await a.aclose()
        with pytest.raises(ConnectionClosed):
            await fa.send(b"after close")
        with pytest.raises(ConnectionClosed):
            await fa.receive()
