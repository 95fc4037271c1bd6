"""Beyond the LAN (issue 30, protocol.md §9.10): py-libp2p carries Easel's own TLS between seats.

* the transport on loopback: a relay, two libp2p nodes, Easel's TLS with seat keys inside a libp2p stream
  (the same trust: a wrong seat key is refused as on the LAN), the path moving from relayed to direct;
* invitations: what a host prints is what a joiner reads, and a damaged one is refused in words;
* without the ``internet`` extra the LAN game imports and ``--internet`` says why and how to install;
* in network namespaces (root, ``ip netns``, ``iptables``): two homes behind address-translating routers that
  drop what they did not ask for, and an "internet" holding only ``easel relay``: a 3-seat game finishes with
  identical valid logs, hole-punched to a direct path where the routers keep ports, relayed where one router
  maps every destination to a new port (``--random-fully``); a host's bot is a peer of its own, and a seat killed
  mid-game resumes through the relay its game kept; a rematch of an internet game (loopback relay).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio
import trio.testing

from core.hashing import dhash
from p2p import internet, tls
from p2p.identity import Identity, load_or_create

from .netutil import loopback_relay

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
    # the host's line copied whole (seen between two homes: "expected HOST:PORT, got 'invite: easel-...'"), quoted
    # or not (unquoted, the shell makes its label a word of its own: "unrecognized arguments")
    assert internet.is_invitation("invite: " + text) and internet.parse_invitation("Invite:  %s\n" % text) == inv
    from cli.main import unlabel_invitation
    assert unlabel_invitation(["join", "invite:", text, "--name", "Bo"]) == ["join", text, "--name", "Bo"]
    assert unlabel_invitation(["join", "--name", "invite:"]) == ["join", "--name", "invite:"]     # a name is a name


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


def test_internet_needs_a_relay_and_says_why_libp2p_s_public_relays_are_not_used(tmp_path):
    env = dict(os.environ, EASEL_HOME=str(tmp_path / "home"))
    r = subprocess.run([sys.executable, "-m", "cli", "host", "--internet"], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and "--internet needs --relay ADDRESS" in r.stderr
    assert "public relays of libp2p's network are not used" in r.stderr and "2 minutes or 128 KiB" in r.stderr
    r = subprocess.run([sys.executable, "-m", "cli", "join", "easel-notaninvitation"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "invitation is damaged" in r.stderr and "Traceback" not in r.stderr


# ----------------------------------------------------------------------------- the transport on loopback


async def test_easel_tls_runs_inside_a_libp2p_stream_with_the_seat_keys(nursery):
    a, b, c = Identity(b"a" * 32), Identity(b"b" * 32), Identity(b"c" * 32)
    relay = await loopback_relay(nursery)
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


# ----------------------------------------------------------------------------- two homes behind NAT routers
from tests.lan import FULL, SLOW, _ip, _netns_list, _why_not, assert_same_logs, take_down, wait_for  # noqa: E402

NS_PREFIX = "eznat-"         # every namespace made here: eznat-<pid>-<random>-<role>
NAT_WALL = 60.0              # s: no game here may take longer


def _nat_why_not() -> str | None:
    return _why_not() or (None if shutil.which("iptables") else "iptables is not installed")


def _cleanup_nat_leftovers() -> None:
    for name in _netns_list():
        m = re.match(re.escape(NS_PREFIX) + r"(\d+)-", name)
        if m and not Path("/proc/%s" % m.group(1)).exists():
            _ip("netns", "del", name, check=False)


def _ipt(ns: str, *args: str) -> None:
    r = subprocess.run(["ip", "netns", "exec", ns, "iptables", "-w", *args], capture_output=True, text=True, timeout=20)
    if r.returncode != 0:
        raise RuntimeError("iptables %s: %s" % (" ".join(args), r.stderr.strip()))


class Homes:
    """An "internet" bridge holding only the relay (198.18.N.10), and two homes 198.19.N.0/26 (A) and
    198.19.N.64/26 (B), each behind a router (198.18.N.1, .2 on the bridge) that translates addresses
    (MASQUERADE; ``random_b``: router B gives every destination a new port) and drops what its home did not ask for."""

    def __init__(self, tmp: Path, random_b: bool = False) -> None:
        import random
        self.tag = "%s%d-%06x" % (NS_PREFIX, os.getpid(), random.getrandbits(24))
        self.n = random.randrange(1, 255)
        self.random_b = random_b
        self.ns = {r: "%s-%s" % (self.tag, r) for r in ("inet", "rA", "rB", "hA", "hB")}
        self.relay_ip = "198.18.%d.10" % self.n
        self.wan = {"A": "198.18.%d.1" % self.n, "B": "198.18.%d.2" % self.n}
        self.home = {"A": "198.19.%d.10" % self.n, "B": "198.19.%d.74" % self.n}
        self.gw = {"A": "198.19.%d.1" % self.n, "B": "198.19.%d.65" % self.n}
        self.tmp = tmp
        self.made: list[str] = []
        self.procs: list[subprocess.Popen] = []

    def up(self) -> "Homes":
        ns = self.ns
        for name in ns.values():
            _ip("netns", "add", name)
            self.made.append(name)
            _ip("-n", name, "link", "set", "lo", "up")
        _ip("-n", ns["inet"], "link", "add", "br0", "type", "bridge")
        _ip("-n", ns["inet"], "link", "set", "br0", "up")
        _ip("-n", ns["inet"], "addr", "add", self.relay_ip + "/24", "dev", "br0")
        for r in ("A", "B"):
            rns, hns = ns["r" + r], ns["h" + r]
            _ip("-n", ns["inet"], "link", "add", "w" + r, "type", "veth", "peer", "name", "wan", "netns", rns)
            _ip("-n", ns["inet"], "link", "set", "w" + r, "master", "br0")
            _ip("-n", ns["inet"], "link", "set", "w" + r, "up")
            _ip("-n", rns, "link", "add", "lan", "type", "veth", "peer", "name", "eth0", "netns", hns)
            _ip("-n", rns, "addr", "add", self.wan[r] + "/24", "dev", "wan")
            _ip("-n", rns, "addr", "add", self.gw[r] + "/26", "dev", "lan")
            _ip("-n", hns, "addr", "add", self.home[r] + "/26", "dev", "eth0")
            for dev_ns, dev in ((rns, "wan"), (rns, "lan"), (hns, "eth0")):
                _ip("-n", dev_ns, "link", "set", dev, "up")
            _ip("-n", hns, "route", "add", "default", "via", self.gw[r])
            subprocess.run(["ip", "netns", "exec", rns, "sysctl", "-qw", "net.ipv4.ip_forward=1"], check=True, timeout=10)
            masq = ["-t", "nat", "-A", "POSTROUTING", "-o", "wan", "-j", "MASQUERADE"]
            _ipt(rns, *(masq + (["--random-fully"] if r == "B" and self.random_b else [])))
            _ipt(rns, "-A", "FORWARD", "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "ACCEPT")
            _ipt(rns, "-A", "FORWARD", "-i", "lan", "-o", "wan", "-j", "ACCEPT")
            _ipt(rns, "-P", "FORWARD", "DROP")
            _ipt(rns, "-A", "INPUT", "-i", "wan", "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "ACCEPT")
            _ipt(rns, "-A", "INPUT", "-i", "wan", "-j", "DROP")
        return self

    def down(self) -> None:
        take_down(self.procs, self.made)

    def easel(self, where: str, who: str, *args, faults: str | None = None, home: str | None = None) -> subprocess.Popen:
        env = dict(os.environ, EASEL_HOME=str(self.tmp / (home or who)))
        env.pop("EASEL_FAULTS", None)
        if faults:
            env["EASEL_FAULTS"] = faults
        out = open(self.tmp / (who + ".out"), "wb")
        err = open(self.tmp / (who + ".err"), "wb")
        p = subprocess.Popen(["ip", "netns", "exec", self.ns[where], sys.executable, "-m", "cli", *map(str, args)],
                             cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        out.close()
        err.close()
        p.who = who
        self.procs.append(p)
        return p

    def text(self, who: str, stream: str = "err") -> str:
        try:
            return (self.tmp / ("%s.%s" % (who, stream))).read_text(errors="replace")
        except OSError:
            return ""

    def line(self, who: str, prefix: str, stream: str, timeout: float = 30) -> str:
        """The rest of the first line ``who`` printed that starts with ``prefix`` (waits for it, bounded)."""
        pat = re.compile("^" + re.escape(prefix) + r"(\S+)$", re.M)
        found = wait_for(lambda: pat.search(self.text(who, stream)) is not None, timeout, interval=0.05)
        assert found, "%s never printed %r: %s" % (who, prefix, self.text(who)[-2000:])
        return pat.search(self.text(who, stream)).group(1)

    def logs(self, who: str) -> list[Path]:
        return sorted((self.tmp / who).glob("games/*/log"))

    def tcp_peers(self, where: str) -> set[str]:
        """The remote addresses of the established TCP connections in a namespace (what went through its router)."""
        r = subprocess.run(["ip", "netns", "exec", self.ns[where], "ss", "-Htn", "state", "established"],
                           capture_output=True, text=True, timeout=10)
        return {line.split()[-1].rsplit(":", 1)[0] for line in r.stdout.splitlines() if line.split()}


@pytest.fixture
def homes(tmp_path, request):
    why = _nat_why_not()
    if why:
        pytest.skip(why)
    _cleanup_nat_leftovers()
    net = Homes(tmp_path, random_b=getattr(request, "param", False))
    try:
        net.up()
        yield net
    finally:
        net.down()
    assert not [n for n in _netns_list() if n.startswith(net.tag)], "namespaces left behind"


def _finish(net: Homes, procs: list[subprocess.Popen], timeout: float = NAT_WALL) -> None:
    deadline = time.monotonic() + timeout
    for p in procs:
        try:
            p.wait(timeout=max(0.5, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    for p in procs:
        err = net.text(p.who)
        assert p.returncode == 0, "%s: exit %r\n%s" % (p.who, p.returncode, err[-3000:])
        assert "Traceback" not in err, err[-3000:]
        import json
        assert json.loads(net.text(p.who, "out").strip().splitlines()[-1])["over"] is True


def _records(path: Path) -> int:
    from core.logfile import parse as parse_log

    try:
        return len(parse_log(path.read_bytes()).entries)
    except (OSError, ValueError):
        return 0


def _play(net: Homes, seed: int, mid=None, spectator: bool = False, game: str = "painting",
          wall: float = NAT_WALL) -> tuple[bool, float]:
    """host + a bot in home A, a bot in home B, through ``easel relay``: (a direct path between the homes was seen,
    seconds from home B's ``easel bot --join INVITATION`` to its seat in the sealed table).  ``game``: a Painting
    game (43 entries, frames a little late) or another game played at the link's own pace."""
    slow = (lambda k: SLOW % k) if game == "painting" else (lambda k: None)
    relay = net.easel("inet", "relay", "relay", "--listen", net.relay_ip, "--port", 4001)
    address = net.line("relay", "relay: ", "out")
    assert address.startswith("/ip4/%s/tcp/4001/p2p/12D3KooW" % net.relay_ip)
    host = net.easel("hA", "host", "-v", "host", "--game", game, "--players", 3, "--auto", "random", "--timeout", 60,
                     "--internet", "--relay", address, "--name", "Ann", faults=slow(seed))
    invite = net.line("host", "invite: ", "err")
    assert internet.parse_invitation(invite).relay == address
    assert net.home["A"] not in invite and net.wan["A"] not in invite
    a1 = net.easel("hA", "a1", "-v", "bot", "--join", invite, "--level", "random", "--name", "Bo", faults=slow(seed + 1))
    t0 = time.monotonic()
    b1 = net.easel("hB", "b1", "-v", "bot", "--join", invite, "--level", "random", "--name", "Cy", faults=slow(seed + 2))
    seated = wait_for(lambda: bool(net.logs("b1")), 30, interval=0.05)
    took = time.monotonic() - t0
    assert seated, net.text("b1")[-3000:]
    procs = [host, a1, b1]
    if spectator:     # in home B too, by the same invitation, once the game is under way: it follows the host's seat
        # (the host's log may be written a moment after Cy's: look for it each time, never assume it is there)
        assert wait_for(lambda: any(_records(p) >= 3 for p in net.logs("host")), 30, interval=0.05)
        # the game is held (Bo stopped: the table waits for Bo at its next step, well within --timeout) until the
        # spectator watches: on a busy machine its start and its dial through the relay take longer than the rest
        # of a game, which would be over (the host gone) before it arrives
        a1.send_signal(signal.SIGSTOP)
        try:
            procs.append(net.easel("hB", "w1", "watch", invite, "--json", "--log", net.tmp / "watched.log"))
            watching = wait_for(lambda: "watching through" in net.text("w1") or procs[-1].poll() is not None, 45,
                                interval=0.05)
        finally:
            a1.send_signal(signal.SIGCONT)
        assert watching and procs[-1].poll() is None, net.text("w1")[-2000:]
    if mid is not None:
        relay = mid(net, relay)
    direct = False
    while any(p.poll() is None for p in procs) and time.monotonic() - t0 < wall:
        # home A's processes hold a TCP connection to router B's public address: a direct path through both routers
        direct = direct or net.wan["B"] in net.tcp_peers("hA")
        time.sleep(0.1)
    _finish(net, procs, wall)
    relay.kill()
    logs = [net.logs(w)[0] for w in ("host", "a1", "b1")] + ([net.tmp / "watched.log"] if spectator else [])
    assert_same_logs(logs, FULL if game == "painting" else None)
    return direct, took


def test_two_homes_behind_nat_play_through_the_relay_and_go_direct(homes):
    """host + bot in home A, a bot and a spectator in home B, all by one invitation: the same log everywhere."""
    direct, took = _play(homes, 30, spectator=True)
    assert direct, "no direct path between the homes: %s" % homes.text("b1")[-3000:]
    print("seated %.2f s after easel bot --join INVITATION (direct path later)" % took)


def test_three_seats_of_modern_art_deal_and_finish_between_two_homes(homes):
    """A 3-seat Modern Art game between the two homes by one invitation, the deal included (every card dealt by all
    seats together, its shares and proofs through the relay, then the direct path): every seat finishes (its last
    line says over) with the same log, and the audit says VALID."""
    direct, took = _play(homes, 50, game="modern-art", wall=150)
    print("modern art: seated %.2f s after easel bot --join INVITATION; direct path: %s" % (took, direct))


@pytest.mark.parametrize("homes", [True], indirect=True)
def test_a_router_that_maps_every_destination_anew_the_game_finishes_relayed(homes):
    direct, took = _play(homes, 40)
    assert not direct
    assert homes.wan["B"] not in homes.tcp_peers("hA")
    print("seated %.2f s after easel bot --join INVITATION (relayed)" % took)


def test_the_spec_vectors_computed_by_hand_are_what_libp2p_makes():
    from libp2p.peer.id import ID

    from tests.test_vectors import _peer_id_bytes, internet_vectors

    v = internet_vectors()
    lseed = internet.libp2p_seed(b"\x01" * 32)
    assert ID.from_base58(internet.peer_id_of(lseed)).to_bytes().hex() == v["internet/seat0-peer-id"] == _peer_id_bytes(lseed).hex()
    text = bytes.fromhex(v["internet/invitation-text"]).decode()
    inv = internet.parse_invitation(text)
    relay_id = ID(bytes.fromhex(v["internet/relay-seat1-peer-id"])).to_base58()
    assert inv == internet.Invitation(ID(bytes.fromhex(v["internet/seat0-peer-id"])).to_base58(), 40000, 40001,
                                      "/ip4/198.18.100.10/tcp/4001/p2p/" + relay_id)
    assert internet.make_invitation(inv) == text


def _refusal(code: int) -> Exception:
    """What the engine raises when the relay refuses a dial: its RelayConnectionError wrapped in a ConnectionError."""
    from libp2p.relay.circuit_v2.exceptions import RelayConnectionError
    from libp2p.relay.circuit_v2.protocol_buffer import StatusCode

    try:
        raise RelayConnectionError("Relay connection failed with status %d" % code, status_code=StatusCode(code))
    except RelayConnectionError as e:
        try:
            raise ConnectionError("Failed to establish relay connection: %s" % e)
        except ConnectionError as wrapped:
            return wrapped


def test_a_dial_the_relay_refuses_for_no_reservation_is_tried_again_until_it_works():
    """NO_RESERVATION (204) twice, then the dial works: it is tried again after a back-off (the host's connection to
    the relay was being re-made), and CONNECTION_FAILED (203) likewise; the waits double from DIAL_RETRY_FIRST."""
    for code in (204, 203):
        tries: list[float] = []
        refused: list[int] = []

        async def dial():
            tries.append(trio.current_time())
            if len(tries) <= 2:
                raise _refusal(code)
            return "connected"

        async def main():
            with trio.fail_after(internet.INTERNET_DIAL_TIMEOUT):
                return await internet.dial_retrying(dial, refused)

        assert trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0)) == "connected"
        assert refused == [code, code] and len(tries) == 3
        gaps = [b - a for a, b in zip(tries, tries[1:])]
        assert gaps == [internet.DIAL_RETRY_FIRST, 2 * internet.DIAL_RETRY_FIRST]


def test_a_dial_the_relay_always_refuses_ends_at_the_dial_deadline_in_words_and_other_refusals_at_once():
    tries: list[float] = []
    refused: list[int] = []

    async def never():
        tries.append(trio.current_time())
        raise _refusal(204)

    async def main():
        with pytest.raises(trio.TooSlowError):
            with trio.fail_after(internet.INTERNET_DIAL_TIMEOUT):
                await internet.dial_retrying(never, refused)

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    # bounded: never more than the deadline allows at DIAL_RETRY_MAX apart once the back-off is at its top
    assert 5 <= len(tries) <= internet.INTERNET_DIAL_TIMEOUT / internet.DIAL_RETRY_MAX + 5
    assert max(b - a for a, b in zip(tries, tries[1:])) == internet.DIAL_RETRY_MAX
    words = internet._too_slow("12D3KooWAbcdefgh", refused)
    assert "within %d s" % internet.INTERNET_DIAL_TIMEOUT in words and "not reserved at the relay" in words

    denied: list[int] = []

    async def refused_for_good():
        denied.append(1)
        raise _refusal(202)      # PERMISSION_DENIED: no use trying again

    async def once():
        with pytest.raises(ConnectionError):
            await internet.dial_retrying(refused_for_good)

    trio.run(once)
    assert denied == [1]


def test_the_relay_limits_in_protocol_md_are_the_code_s():
    text = (ROOT / "protocol.md").read_text(encoding="utf-8")
    rows = {k: v.strip() for k, v in re.findall(r"^\| `(RELAY_[A-Z_]+)` \| ([^|]+) \|", text, re.M)}
    assert rows == {
        "RELAY_MAX_RESERVATIONS": "%d" % internet.RELAY_MAX_RESERVATIONS,
        "RELAY_MAX_CIRCUITS": "%d" % internet.RELAY_MAX_CIRCUITS,
        "RELAY_CIRCUIT_BYTES": "%d MiB" % (internet.RELAY_CIRCUIT_BYTES >> 20),
        "RELAY_CIRCUIT_SECONDS": "%d h" % (internet.RELAY_CIRCUIT_SECONDS // 3600),
        "RELAY_RESERVATION_SECONDS": "%d h" % (internet.RELAY_RESERVATION_SECONDS // 3600),
    }
    assert "/easel/tls/1/" in text and internet.PROTOCOL == "/easel/tls/1/%d"


@pytest.mark.parametrize("homes", [True], indirect=True)
def test_the_relay_killed_mid_game_and_started_again_the_game_goes_on(homes):
    """Relayed (router B maps every destination anew), the relay dies mid-game and is started again from the same
    home (so at the same address): every seat reserves there again, redials, and the game finishes, every step kept."""
    killed_at = []

    def kill_and_restart(net: Homes, relay: subprocess.Popen) -> subprocess.Popen:
        assert wait_for(lambda: any(_records(p) >= 8 for p in net.logs("host")), 30, interval=0.05)
        relay.kill()
        relay.wait(timeout=10)
        killed_at.append(_records(net.logs("host")[0]))
        (net.tmp / "relay.out").rename(net.tmp / "relay-1.out")
        again = net.easel("inet", "relay", "relay", "--listen", net.relay_ip, "--port", 4001)
        net.line("relay", "relay: ", "out")
        return again

    direct, _ = _play(homes, 50, mid=kill_and_restart)
    assert not direct
    assert killed_at and killed_at[0] < FULL, "the game was over before the relay died"
    said = homes.text("host") + homes.text("a1") + homes.text("b1")
    assert "is back: reserved there again" in said


async def test_a_relayed_stream_moves_to_the_direct_path_once_there_is_one(nursery):
    """On loopback the punch's direct try succeeds at once: the dialler's relayed stream is closed (a read in progress
    ends, it does not hang), and the stream dialled again runs over the direct connection; a lobby's stays."""
    relay = await loopback_relay(nursery)
    async with internet.open_node(b"x" * 32, relay) as nx, internet.open_node(b"y" * 32, relay) as ny:
        async def echo(s):
            while True:
                data = await s.receive_some(100)
                if not data:
                    return
                await s.send_all(data)

        game = await nursery.start(nx.serve, 0, echo)
        lobby = await nursery.start(nx.serve, 0, echo)
        ny.keep_relayed.add(lobby)
        s = await ny.open(nx.peer, game)
        kept = await ny.open(nx.peer, lobby)
        assert s.relayed and kept.relayed
        with trio.fail_after(20):
            with pytest.raises(trio.BrokenResourceError):
                while True:
                    await s.receive_some(100)      # ends when the mover closes it
        assert ny.has_direct(nx.peer) and nx.peer in ny.direct_peers
        again = await ny.open(nx.peer, game)
        assert not again.relayed
        await again.send_all(b"ping")
        assert await again.receive_some(100) == b"ping"
        await kept.send_all(b"still")                 # the lobby's stream was left on the relay, and works
        assert await kept.receive_some(100) == b"still" and kept.relayed and not kept.closed
        for x in (again, kept):
            await x.aclose()


def test_an_unreachable_relay_and_a_relay_that_cannot_listen_are_said_in_words(tmp_path):
    env = dict(os.environ, EASEL_HOME=str(tmp_path / "home"))
    port = internet._free_port("127.0.0.1")        # nobody listens there
    dead = "/ip4/127.0.0.1/tcp/%d/p2p/%s" % (port, internet.peer_id_of(b"r" * 32))
    inv = internet.make_invitation(internet.Invitation(internet.peer_id_of(b"h" * 32), 4000, 4001, dead))
    for args in (["bot", "--join", inv], ["host", "--game", "painting", "--auto", "random", "--internet", "--relay", dead]):
        r = subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=60, stdin=subprocess.DEVNULL)
        assert r.returncode == 2 and "cannot reach the relay" in r.stderr and "Traceback" not in r.stderr, r.stderr[-2000:]
    r = subprocess.run([sys.executable, "-m", "cli", "relay", "--listen", "192.0.2.7"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "cannot listen on 192.0.2.7" in r.stderr and "relay: " not in r.stdout


def _kill_bots(home: Path) -> None:
    """The bot processes a host started (their pids in its games' local-bots.json): killed if a test failed early."""
    import json
    import signal

    for f in home.glob("games/*/local-bots.json"):
        try:
            for b in json.loads(f.read_text())["bots"]:
                if b.get("pid") and internet_started(b["pid"]) == b.get("started"):
                    os.kill(b["pid"], signal.SIGKILL)
        except (OSError, ValueError, KeyError):
            pass


def internet_started(pid: int):
    from cli.zygote import started_at

    return started_at(pid)


def test_a_host_s_bot_beyond_the_lan_and_a_seat_killed_then_resumed_through_the_game_s_relay(homes):
    """``easel host --internet --bots 1`` in home A (the bot is a libp2p peer of its own, joining by the invitation),
    a bot by invitation in home B; home B's seat is SIGKILLed mid-game and ``easel resume``d with no address and no
    --relay (the game's directory keeps the relay): the game finishes with one log at every seat."""
    net = homes
    try:
        net.easel("inet", "relay", "relay", "--listen", net.relay_ip, "--port", 4001)
        address = net.line("relay", "relay: ", "out")
        host = net.easel("hA", "host", "-v", "host", "--game", "painting", "--players", 3, "--bots", 1, "--auto", "random",
                         "--timeout", 60, "--internet", "--relay", address, "--name", "Ann", faults=SLOW % 60)
        invite = net.line("host", "invite: ", "err")
        b1 = net.easel("hB", "b1", "-v", "bot", "--join", invite, "--level", "random", "--name", "Cy", faults=SLOW % 61)
        assert wait_for(lambda: any(_records(p) >= 8 for p in net.logs("b1")), 40, interval=0.05), net.text("b1")[-3000:]
        b1.kill()
        b1.wait(timeout=10)
        game = net.logs("b1")[0].parent
        killed_at = _records(game / "log")
        assert killed_at < FULL, "the game was over before the seat died"
        assert (game / "relay").read_text().strip() == address          # protocol.md §8: kept with the game
        resumed = net.easel("hB", "b1-resumed", "-v", "resume", game, "--level", "random", home="b1", faults=SLOW % 62)
        _finish(net, [host, resumed])
        bot_logs = sorted((net.tmp / "host" / "bots" / "bot-1").glob("games/*/log"))
        assert len(bot_logs) == 1, "the host's bot kept no log"
        assert_same_logs([net.logs("host")[0], bot_logs[0], game / "log"], FULL)
        import json
        records = json.loads((net.logs("host")[0].parent / "local-bots.json").read_text())["bots"]
        assert [b["seat"] for b in records] == [1]           # the host's bot sat at seat 1 (its own peer id)
        from p2p.node import load_roster
        addrs = load_roster(game)[1]["addrs"]                 # and the other home dials it there, not at the host's
        assert addrs[1][0] == internet.peer_id_of(internet.libp2p_seed(load_or_create(net.tmp / "host" / "bots" / "bot-1").seed))
        assert addrs[1][0] != addrs[0][0]
        assert "Traceback" not in net.text("b1")
    finally:
        _kill_bots(net.tmp / "host")


def test_a_rematch_of_an_internet_game_is_hosted_at_an_invitation_and_linked_to_the_game_before(tmp_path):
    """On loopback through ``easel relay``: a host with one of its bots and a bot by invitation finish a game; then
    ``easel again`` at both (no address, no --relay: the game keeps its relay): the host prints the rematch lobby's
    invitation (its peer id, its old play port) and restarts its bot into it by that invitation, the other seat finds
    the lobby through the relay; the second game names the first as ``previous``, every seat holds the same two logs."""
    import json

    from p2p.node import load_roster

    procs: list[subprocess.Popen] = []

    def easel(who: str, *args) -> subprocess.Popen:
        env = dict(os.environ, EASEL_HOME=str(tmp_path / who))
        env.pop("EASEL_FAULTS", None)
        with open(tmp_path / (who + ".out"), "ab") as out, open(tmp_path / (who + ".err"), "ab") as err:
            p = subprocess.Popen([sys.executable, "-m", "cli", *map(str, args)], cwd=ROOT, env=env,
                                 stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        procs.append(p)
        return p

    def said(who: str, stream: str = "err") -> str:
        try:
            return (tmp_path / ("%s.%s" % (who, stream))).read_text(errors="replace")
        except OSError:
            return ""

    def line(who: str, prefix: str, stream: str, nth: int = 0) -> str:
        pat = re.compile("^" + re.escape(prefix) + r"(\S+)$", re.M)
        assert wait_for(lambda: len(pat.findall(said(who, stream))) > nth, 30, interval=0.05), said(who)[-2000:]
        return pat.findall(said(who, stream))[nth]

    def logs(who: str) -> list[Path]:
        return sorted((tmp_path / who).glob("games/*/log"), key=lambda p: p.stat().st_mtime)

    try:
        easel("relay", "relay", "--listen", "127.0.0.1", "--port", internet._free_port("127.0.0.1"))
        address = line("relay", "relay: ", "out")
        host = easel("host", "host", "--game", "painting", "--players", 3, "--bots", 1, "--auto", "random", "--timeout", 60,
                     "--internet", "--relay", address, "--name", "Ann")
        invite = line("host", "invite: ", "err")
        cy = easel("cy", "bot", "--join", invite, "--level", "random", "--name", "Cy")
        assert host.wait(timeout=NAT_WALL) == 0, said("host")[-3000:]
        assert cy.wait(timeout=NAT_WALL) == 0, said("cy")[-3000:]
        first = logs("host")[0].parent
        genesis, roster = load_roster(first)
        again = easel("host", "again", first, "--level", "random")
        cy = easel("cy", "again", logs("cy")[0].parent, "--level", "random")     # finds the lobby through the relay
        rematch = internet.parse_invitation(line("host", "invite: ", "err", nth=1))
        assert rematch.peer == roster["addrs"][0][0] == internet.parse_invitation(invite).peer
        assert rematch.lobby_port == roster["addrs"][0][1] and rematch.relay == address
        assert again.wait(timeout=NAT_WALL) == 0, said("host")[-3000:]
        assert cy.wait(timeout=NAT_WALL) == 0, said("cy")[-3000:]
        for who in ("host", "cy"):
            assert "Traceback" not in said(who)
        bot_home = tmp_path / "host" / "bots" / "bot-1"
        pairs = [logs("host"), logs("cy"), sorted(bot_home.glob("games/*/log"), key=lambda p: p.stat().st_mtime)]
        assert all(len(p) == 2 for p in pairs), pairs
        for k in (0, 1):
            assert_same_logs([p[k] for p in pairs], FULL)
        assert load_roster(pairs[0][1].parent)[0].doc["previous"] == genesis.game_id
        assert json.loads(said("cy", "out").strip().splitlines()[-1])["over"] is True
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait(timeout=10)
        _kill_bots(tmp_path / "host")


def test_what_the_relay_says_under_its_address_fits_100_columns_and_says_what_to_do_with_it():
    """Seen at 100 columns: the one line of limits wrapped, and nothing said what the address is for."""
    from cli.internet import relay_words

    lines = relay_words()
    assert all(len(line) < 100 for line in lines)
    assert "easel host --internet --relay ADDRESS" in lines[0]
    assert "at most %d peers" % internet.RELAY_MAX_RESERVATIONS in lines[1] and "Ctrl-C stops" in lines[1]
