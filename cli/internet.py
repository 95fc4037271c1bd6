"""Beyond the LAN (issue 30, protocol.md §9.10): ``easel relay``, ``host --internet``, and invitations where
HOST:PORT is taken (join, watch, bot --join).

p2p/internet.py does the networking (py-libp2p, an optional extra); this room checks what a person typed and runs
a command's trio main with our libp2p node as the route of every TLS connection (``tls.use_route``).  Without the
extra, every refusal here says why and how to install it, and nothing else of Easel changes.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

import trio

from p2p import internet, tls

from .common import UsageError, leaves
from .home import identity_or_exit


def _usage(exc: Exception) -> UsageError:
    return UsageError(str(exc))


@contextmanager
def _in_words():
    """Our InternetError, also wrapped in the engine's nurseries' exception groups when that is all there is
    in them, as a UsageError: one line of words, no traceback."""
    try:
        yield
    except internet.InternetError as exc:
        raise _usage(exc) from None
    except BaseExceptionGroup as group:
        inner = leaves(group)
        ours = [e for e in inner if isinstance(e, internet.InternetError)]
        if not (ours and all(isinstance(e, (internet.InternetError, UsageError)) for e in inner)):
            raise
        raise _usage(ours[0]) from None


def check_internet(relay: str | None) -> str:
    """``--internet``: a relay address is needed (libp2p's public relays are not used, protocol.md §9.10), and the
    engine installed."""
    if not relay:
        raise UsageError("--internet needs --relay ADDRESS: the line `relay: ADDRESS` that easel relay prints "
                         "(run it where the other seats can reach it: a friend with a public address, or a forwarded port); "
                         "the public relays of libp2p's network are not used: they cut a connection after 2 minutes or 128 KiB")
    try:
        internet.require()
        return internet.check_relay(relay)
    except internet.InternetError as exc:
        raise _usage(exc) from None


def is_invitation(text: str | None) -> bool:
    return bool(text) and internet.is_invitation(text)


def invitation(text: str) -> internet.Invitation:
    try:
        return internet.parse_invitation(text)
    except internet.InternetError as exc:
        raise _usage(exc) from None


async def routed(relay: str, main, *args, lobby_port: int | None = None, **kwargs):
    """Run ``await main(*args, **kwargs)`` with every connection through our libp2p node reserved at ``relay``;
    ``lobby_port``: the lobby we join, or the seat a spectator watches (its stream stays where it is: it is never
    moved to a direct path)."""
    identity = identity_or_exit()
    with _in_words():
        async with internet.open_node(identity.seed, relay) as node:
            if lobby_port is not None:
                node.keep_relayed.add(lobby_port)
            tls.use_route(node)
            return await main(*args, **kwargs)


async def routed_game(d, relay: str | None, main, *args, **kwargs):
    """``await main(*args, **kwargs)`` for the game in directory ``d`` (resume, again, its no): through the relay the
    game was played with (the file ``relay``, cli/home.py) or ``relay`` (--relay, overriding it) if no route is in force
    yet and the game is an internet one; else as on the LAN."""
    from .home import read_relay

    if tls.route() is None:
        relay = relay or read_relay(d)
        if relay:
            return await routed(check_internet(relay), main, *args, **kwargs)
    return await main(*args, **kwargs)


def relay_words() -> list[str]:
    """What ``easel relay`` says under its address: what to do with it, and its limits (each line fits 100 columns:
    seen at 100, the one line of limits wrapped)."""
    return ["easel: the host of a game starts it with: easel host --internet --relay ADDRESS (the address above)",
            "easel: relaying (at most %d peers, %d connections to each, %d MiB and %d min each); Ctrl-C stops" % (
                internet.RELAY_MAX_RESERVATIONS, internet.RELAY_MAX_CIRCUITS, internet.RELAY_CIRCUIT_BYTES >> 20,
                internet.RELAY_CIRCUIT_SECONDS // 60)]


def relay_command(args) -> int:
    """``easel relay``: a relay anyone may run; prints ``relay: ADDRESS`` and relays until Ctrl-C."""
    try:
        internet.require()
    except internet.InternetError as exc:
        raise _usage(exc) from None
    if not 0 < args.port < 65536:
        raise UsageError("--port must be 1..65535, not %d" % args.port)
    identity = identity_or_exit()

    def ready(address: str) -> None:
        print("relay: %s" % address, flush=True)
        print("\n".join(relay_words()), file=sys.stderr, flush=True)

    with _in_words():
        trio.run(internet.run_relay, identity.seed, args.listen, args.port, args.announce, ready)
    return 0
