"""A delaying TCP forwarder on loopback: the user-space stand-in for a long link (there is no netem here).

``await nursery.start(forwarder, delay, (host, port), link)`` listens on 127.0.0.1 and pipes every connection to
``(host, port)``; each chunk leaves ``delay`` seconds after it came in, in order, both ways.  ``link.stall(seconds)``
holds every byte of every connection for that long (a link that stalls), then lets it all through in order; ``link.garble(n)`` sends the next n chunks as random bytes (a relay
that sends garbage).
Used by tests/test_internet_hostile.py and benchmarks/bench_internet.py.
"""

from __future__ import annotations

import os

import trio


class Link:
    def __init__(self) -> None:
        self.until = 0.0          # trio time before which nothing leaves
        self.conns = 0
        self.garbled = 0          # chunks still to garble
        self.garbled_sent = 0
        self.garbled_log: list = []   # (trio time, way, length) of each garbled chunk: way "out" (towards target) or "back"

    def stall(self, seconds: float) -> None:
        self.until = trio.current_time() + seconds

    def garble(self, chunks: int = 1) -> None:
        """The next ``chunks`` chunks to leave (either way) leave as random bytes of the same length."""
        self.garbled += chunks


async def forwarder(delay: float, target: tuple[str, int], link: Link | None = None,
                    task_status=trio.TASK_STATUS_IGNORED) -> None:
    link = link or Link()

    async def pump(src, dst, way: str) -> None:
        send, recv = trio.open_memory_channel(4096)

        async def writer() -> None:
            async for due, data in recv:
                wait = max(due, link.until) - trio.current_time()
                if wait > 0:
                    await trio.sleep(wait)
                while link.until > trio.current_time():          # a stall that began while we slept
                    await trio.sleep(link.until - trio.current_time())
                if link.garbled > 0:
                    link.garbled -= 1
                    link.garbled_sent += 1
                    data = os.urandom(len(data))
                    link.garbled_log.append((trio.current_time(), way, len(data)))
                await dst.send_all(data)

        async with trio.open_nursery() as n:
            n.start_soon(writer)
            try:
                while data := await src.receive_some(65536):
                    await send.send((trio.current_time() + delay, data))
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass
            await send.aclose()

    async def one(client) -> None:
        try:
            server = await trio.open_tcp_stream(*target)
        except OSError:
            await client.aclose()
            return
        link.conns += 1
        try:
            async with trio.open_nursery() as n:
                async def one_way(src, dst, way) -> None:
                    await pump(src, dst, way)
                    n.cancel_scope.cancel()         # one end closed: so is the link
                n.start_soon(one_way, client, server, "out")
                n.start_soon(one_way, server, client, "back")
        except Exception:
            pass
        finally:
            await trio.aclose_forcefully(client)
            await trio.aclose_forcefully(server)

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    task_status.started(listeners[0].socket.getsockname()[1])
    await trio.serve_listeners(one, listeners)
