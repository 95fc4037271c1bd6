"""Beyond the LAN (issue 30, protocol.md §9.10): py-libp2p carries Easel's own TLS between seats.

* the transport on loopback: a relay, two libp2p nodes, Easel's TLS with seat keys inside a libp2p stream
  (the same trust: a wrong seat key is refused as on the LAN), the path moving from relayed to direct;
* invitations: what a host prints is what a joiner reads, and a damaged one is refused in words;
* without the ``internet`` extra the LAN game imports and ``--internet`` says why and how to install;
* in network namespaces (root, ``ip netns``, ``iptables``): two homes behind address-translating routers that
  drop what they did not ask for, and an "internet" holding only ``easel relay``: a 3-seat game finishes with
  identical valid logs, hole-punched to a direct path where the routers keep ports, relayed where one router
  maps every destination to a new port (``--random-fully``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio

from core.hashing import dhash
from p2p import internet, tls
from p2p.identity import Identity

ROOT = Path(__file__).resolve().parent.parent

libp2p = pytest.importorskip("libp2p", reason="the internet extra (py-libp2p) is not installed")


# ----------------------------------------------------------------------------- identity and invitation
def test_libp2p_identity_is_derived_from_the_seat_seed_never_the_seat_key():
    seed = bytes(range(32))
    derived = internet.libp2p_seed(seed)
    assert derived == dhash("libp2p-identity", seed) and derived != seed
    assert internet.libp2p_seed(seed) == derived                        # stable: a resumed seat is the same peer
    assert internet.libp2p_seed(bytes(32)) != derived
    assert internet.relay_seed(seed) not in (derived, seed)             # a relay run from the same home differs
    kp = internet.key_pair(derived)
    assert kp.public_key.to_bytes() != Identity(seed).public            # not the seat's public key either
    assert internet.looks_like_peer(internet.peer_id_of(derived))


def _inv() -> internet.Invitation:
    host = internet.peer_id_of(internet.libp2p_seed(b"h" * 32))
    relay = "/ip4/198.18.100.10/tcp/4001/p2p/" + internet.peer_id_of(internet.relay_seed(b"r" * 32))
    return internet.Invitation(host, 40123, 40124, relay)


def test_an_invitation_reads_back_and_names_no_ip_but_the_relays():
    inv = _inv()
    text = internet.make_invitation(inv)
    assert text.startswith("easel-") and len(text) < 200 and text == text.lower()
    assert internet.parse_invitation(text) == inv
    assert internet.parse_invitation("  %s\n" % text.upper().replace("EASEL-", "easel-")) == inv   # as pasted


@pytest.mark.parametrize("damage", ["flip", "cut", "junk", "version"])
def test_a_damaged_invitation_is_refused_in_words(damage):
    text = internet.make_invitation(_inv())
    if damage == "flip":
        i = 20
        bad = text[:i] + ("a" if text[i] != "a" else "b") + text[i + 1:]
        words = "damaged"
    elif damage == "cut":
        bad, words = text[:-10], "damaged or cut short"
    elif damage == "junk":
        bad, words = text[:30] + "!!" + text[32:], "damaged"
    else:
        import base64
        raw = bytearray(internet.base64.b32decode((text[6:] + "=" * (-len(text[6:]) % 8)).upper()))
        raw[0] = 9
        body = bytes(raw[:-4])
        raw[-4:] = dhash("invitation", body)[:4]
        bad, words = "easel-" + base64.b32encode(bytes(raw)).decode().rstrip("=").lower(), "another version"
    with pytest.raises(internet.InternetError, match=words):
        internet.parse_invitation(bad)


def test_a_relay_address_must_name_the_relay():
    with pytest.raises(internet.InternetError, match="relay address"):
        internet.check_relay("/ip4/198.18.100.10/tcp/4001")
    with pytest.raises(internet.InternetError, match="relay address"):
        internet.check_relay("198.18.100.10:4001")


# ----------------------------------------------------------------------------- without the extra
BLOCK = ("import sys\n"
         "class B:\n"
         "    def find_spec(self, name, path=None, target=None):\n"
         "        if name.split('.')[0] in ('libp2p', 'multiaddr'):\n"
         "            raise ImportError('No module named %r (blocked by the test)' % name)\n"
         "sys.meta_path.insert(0, B())\n")


def _without_libp2p(tmp_path, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "sitecustomize.py").write_text(BLOCK)
    env = dict(os.environ, EASEL_HOME=str(tmp_path / "home"), PYTHONPATH=str(tmp_path))
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)


def test_without_the_extra_the_lan_game_plays_and_internet_says_how_to_install(tmp_path):
    r = _without_libp2p(tmp_path, "demo", "--game", "painting", "--players", "3", "--seed", "x", "--out", str(tmp_path / "d"),
                        "--json")
    assert r.returncode == 0, r.stderr[-2000:]
    for args in (["host", "--internet", "--relay", "/ip4/198.18.100.10/tcp/4001/p2p/x"],
                 ["join", internet.make_invitation(_inv())],
                 ["relay"]):
        r = _without_libp2p(tmp_path, *args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert "needs py-libp2p, which is not installed" in r.stderr and 'pip install -e ".[internet]"' in r.stderr
        assert "Traceback" not in r.stderr


def test_internet_needs_a_relay_and_refuses_bots_it_cannot_place(tmp_path):
    env = dict(os.environ, EASEL_HOME=str(tmp_path / "home"))
    r = subprocess.run([sys.executable, "-m", "cli", "host", "--internet"], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and "--internet needs --relay ADDRESS" in r.stderr
    r = subprocess.run([sys.executable, "-m", "cli", "join", "easel-notaninvitation"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "invitation is damaged" in r.stderr and "Traceback" not in r.stderr


# ----------------------------------------------------------------------------- the transport on loopback
async def _relay(nursery) -> str:
    got: list[str] = []
    ev = trio.Event()

    def ready(a: str) -> None:
        got.append(a)
        ev.set()

    port = internet._free_port("127.0.0.1")
    nursery.start_soon(internet.run_relay, b"r" * 32, "127.0.0.1", port, None, ready)
    with trio.fail_after(20):
        await ev.wait()
    return got[0]


async def test_easel_tls_runs_inside_a_libp2p_stream_with_the_seat_keys(nursery):
    a, b, c = Identity(b"a" * 32), Identity(b"b" * 32), Identity(b"c" * 32)
    relay = await _relay(nursery)
    async with internet.open_node(a.seed, relay) as na, internet.open_node(b.seed, relay) as nb:
        assert na.peer == internet.peer_id_of(internet.libp2p_seed(a.seed))
        certs = [tls.make_certificate(x) for x in (a, b)]
        seen: list = []

        async def handler(stream):
            seen.append((tls.peer_public_key(stream), tls.peer_host(stream)))
            await stream.send_all(b"from a")

        tls.use_route(na)
        port = await nursery.start(tls.serve, 0, tls.server_context(a, certs), handler)
        tls.use_route(nb)
        s = await tls.connect(na.peer, port, tls.client_context(b, certs), a.public)
        assert await s.receive_some(100) == b"from a"
        assert seen == [(b.public, nb.peer)]          # the seat key inside, the libp2p peer id as its address
        assert isinstance(s.transport_stream, internet.Stream)
        await s.aclose()
        # the same trust as on the LAN: dialling a seat whose key is not the one expected is refused
        with pytest.raises(tls.TLSPinError):
            await tls.connect(na.peer, port, tls.client_context(b, certs), c.public)
        # and a seat key that is not pinned cannot take a seat through the relay either
        s = await tls.connect(na.peer, port, tls.client_context(c, certs), a.public)
        with pytest.raises((trio.BrokenResourceError, OSError)):
            await s.receive_some(100)
        tls.use_route(None)
