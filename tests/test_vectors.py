"""protocol.md's test vectors, recomputed byte for byte.

Every line between ``<!-- vectors:begin -->`` and ``<!-- vectors:end -->`` in
protocol.md is ``name hex``; this file computes each from the inputs that
protocol.md describes and requires both sets to be identical.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path

from nacl.signing import SigningKey

from core.encoding import encode
from core.events import (
    ZERO32,
    commitment,
    entry_id,
    game_id_of,
    genesis_sign_msg,
    make_event,
    make_genesis,
    make_timeout,
    next_head,
    vote_sign_msg,
)
from core.engine import FullRulesGame
from core.games.painting import warnings as painting_warnings
from core.hashing import dhash, fingerprint
from core.logfile import LOG_MAGIC, encode_record
from core.rng import Rng
from core.table import Table
from p2p.leaving import leaving_sign_msg, make_note

SPEC = Path(__file__).resolve().parent.parent / "protocol.md"


def compute_vectors() -> dict[str, str]:
    v: dict[str, str] = {}
    # canonical encoding
    v["encode/int-0"] = encode(0).hex()
    v["encode/int-minus-1"] = encode(-1).hex()
    v["encode/int-128"] = encode(128).hex()
    v["encode/int-2^32"] = encode(2**32).hex()
    v["encode/str-e-acute"] = encode("é").hex()
    v["encode/bytes-0001"] = encode(b"\x00\x01").hex()
    v["encode/map-sorted"] = encode({"b": 1, "a": [True, None]}).hex()
    # hashing
    v["dhash/head-zero-zero"] = dhash("head", ZERO32, ZERO32).hex()
    # keys: seed 32 x 0x01 (seat 0) and 32 x 0x02 (seat 1)
    sk0, sk1 = SigningKey(b"\x01" * 32), SigningKey(b"\x02" * 32)
    pk0, pk1 = bytes(sk0.verify_key), bytes(sk1.verify_key)
    v["key/seat0-public"] = pk0.hex()
    v["key/seat0-fingerprint"] = fingerprint(pk0).encode().hex()
    # genesis
    doc = {"game": "painting", "config": {"edition": "clarified"}, "seats": [pk0, pk1], "table": b"\x00" * 8, "timeout": 60}
    gid = game_id_of(doc)
    v["genesis/game-id"] = gid.hex()
    sigs = [sk.sign(genesis_sign_msg(gid)).signature for sk in (sk0, sk1)]
    g = make_genesis(doc, sigs)
    v["genesis/entry"] = g.raw.hex()
    head1 = next_head(ZERO32, g.id)
    v["genesis/head"] = head1.hex()
    # a commitment and the event carrying it
    value, salt = b"\x03" * 32, b"\x02" * 32
    c = commitment(gid, pk0, 0, value, salt)
    v["commit/seat0-phase0"] = c.hex()
    ev = make_event(lambda m: sk0.sign(m).signature, gid, pk0, 0, head1, "commit", {"phase": 0, "hash": c})
    v["event/seat0-commit"] = ev.raw.hex()
    v["event/seat0-commit-id"] = ev.id.hex()
    v["head/after-commit"] = next_head(head1, ev.id).hex()
    # a time-out certificate: seat 1 timed out in phase 0, seat 0 votes
    vote = sk0.sign(vote_sign_msg(gid, 0, head1, [1])).signature
    cert = make_timeout(gid, 0, head1, [1], [(0, vote)])
    v["timeout/seat1-phase0"] = cert.raw.hex()
    # a leaving note (a wire message, §9.7): seat 0 leaves at phase 0 with nonce 16 x 04
    nonce = b"\x04" * 16
    v["leaving/seat0-sign-msg"] = leaving_sign_msg(gid, pk0, 0, nonce).hex()
    v["leaving/seat0-note"] = make_note(lambda m: sk0.sign(m).signature, gid, 0, pk0, 0, nonce).hex()
    # a fork record's form and its wire message (§6.5 rule 3, §8, §9.5): the certificate above, a branch of
    # one entry (the commit above) and the commit as the "shown" event: the bytes of the form only (a valid
    # proof needs a step that shows, after the certificate's)
    from core.fork import make_fork
    fork = make_fork(gid, cert.raw, [ev.raw], ev.raw)
    v["fork/record"] = fork.hex()
    v["fork/message"] = encode(["fork", fork]).hex()
    # seed from two 32-byte reveals (seat 1's empty: it timed out)
    v["seed/one-empty"] = dhash("seed", [value, b""]).hex()
    v["beacon/first"] = dhash("beacon", ZERO32, [salt, b""]).hex()
    # PRNG
    r = Rng(ZERO32, "test")
    v["rng/u64x2"] = (r.u64().to_bytes(8, "big") + r.u64().to_bytes(8, "big")).hex()
    r = Rng(ZERO32, "test")
    v["rng/below6x8"] = bytes(r.below(6) for _ in range(8)).hex()
    r = Rng(ZERO32, "test")
    items = list(range(10))
    r.shuffle(items)
    v["rng/shuffle10"] = bytes(items).hex()
    # file record
    v["file/log-head"] = (LOG_MAGIC + encode_record(b"\x90")).hex()
    # Modern Art's choices as a log holds them (positions only, never a card id: protocol.md §7.1)
    v.update(choice_vectors())
    # from the seed reveals through the beacon to a chance step's entropy
    v.update(chance_vectors(sk0, sk1, g))
    # beyond the LAN: the libp2p identity derived from a seat's seed, and an invitation (§9.10)
    v.update(internet_vectors())
    return v


def _peer_id_bytes(ed25519_seed: bytes) -> bytes:
    """A libp2p peer id by hand: the identity multihash (00, length 36) of the protobuf PublicKey {Type: Ed25519 (1),
    Data: the 32-byte key} (08 01 12 20 || key)."""
    import nacl.signing

    return bytes([0x00, 0x24, 0x08, 0x01, 0x12, 0x20]) + bytes(nacl.signing.SigningKey(ed25519_seed).verify_key)


def internet_vectors() -> dict[str, str]:
    """§9.10, computed without py-libp2p (so a second implementation can follow each byte); cross-checked against it
    in tests/test_internet.py."""
    import struct

    from p2p import internet

    seed0 = b"\x01" * 32
    lseed = internet.libp2p_seed(seed0)
    pid = _peer_id_bytes(lseed)
    rpid = _peer_id_bytes(internet.relay_seed(b"\x02" * 32))
    relay = bytes([0x04, 198, 18, 100, 10, 0x06]) + struct.pack(">H", 4001) + bytes([0xA5, 0x03, len(rpid)]) + rpid
    body = bytes([internet.INVITE_VERSION, len(pid)]) + pid + struct.pack(">HH", 40000, 40001) + relay
    raw = body + dhash("invitation", body)[:4]
    text = internet.INVITE_PREFIX + base64.b32encode(raw).decode("ascii").rstrip("=").lower()
    return {
        "internet/seat0-libp2p-seed": lseed.hex(),
        "internet/seat0-peer-id": pid.hex(),
        "internet/relay-seat1-peer-id": rpid.hex(),
        "internet/invitation-bytes": raw.hex(),
        "internet/invitation-text": text.encode("ascii").hex(),
    }


def choice_vectors() -> dict[str, str]:
    """The three choice forms, each checked to be what the table's Modern Art takes: the same map
    with a card id is refused (protocol.md §7.1, §12.4)."""
    from core.games.modern_art import dealt

    forms = {"modern-art/choice-play": {"do": "play", "pos": 5, "double": None},
             "modern-art/choice-double": {"do": "play", "pos": 5, "double": {"pos": 9}},
             "modern-art/choice-add": {"do": "add", "pos": 9}}
    for a in forms.values():
        assert not dealt._names_a_card(a)
        assert dealt._names_a_card(dict(a, card=3))
    return {name: encode(a).hex() for name, a in forms.items()}


class _SpyGame(FullRulesGame):
    """The Painting Game, recording what the table hands to ``setup`` and ``chance``."""

    def __init__(self, game) -> None:
        super().__init__(game.rules, game.bots, warnings=painting_warnings.warnings)
        self.seen: list = []

    def setup(self, config, players, seed):
        self.seen.append(("setup", seed))
        return super().setup(config, players, seed)

    def chance(self, state, entropy):
        self.seen.append(("chance", state.round, entropy))
        return super().chance(state, entropy)


def chance_vectors(sk0, sk1, g) -> dict[str, str]:
    """Replay the §15 table through the seed step and round 1 (both seats reveal every
    time) with the real Table, and check each value against the formulas of §6.3."""
    import core.games
    from core.games import Registry

    sks = (sk0, sk1)
    keys = [bytes(sk.verify_key) for sk in sks]
    gid = g.game_id
    spy = _SpyGame(core.games.get("painting"))
    t = Table.start(g, Registry([spy]))
    seq = [0, 0]

    def event(seat, kind, body):
        st = t.step
        ev = make_event(lambda m: sks[seat].sign(m).signature, gid, keys[seat], seq[seat], st.prev, kind, dict(body, phase=st.phase))
        seq[seat] += 1
        t.append(ev.raw)

    def sealed(values, salts, purpose):
        assert (t.step.kind, t.step.purpose, t.step.seats) == ("commit", purpose, (0, 1)), t.step
        for s in (0, 1):
            event(s, "commit", {"hash": commitment(gid, keys[s], t.step.phase, values[s], salts[s])})
        assert (t.step.kind, t.step.seats) == ("reveal", (0, 1)), t.step
        for s in (0, 1):
            event(s, "reveal", {"value": values[s], "salt": salts[s]})

    def first_words(entropy, r):
        rng = Rng(entropy, "painting/sheets/round-%d" % r)
        return rng.u64().to_bytes(8, "big") + rng.u64().to_bytes(8, "big")

    out: dict[str, str] = {}
    seed_values = [b"\xa0" * 32, b"\xa1" * 32]
    seed_salts = [b"\xb0" * 32, b"\xb1" * 32]
    sealed(seed_values, seed_salts, "seed")
    seed = dhash("seed", seed_values)
    beacon1 = dhash("beacon", ZERO32, seed_salts)
    assert t.seed == seed and t.beacon == beacon1
    assert spy.seen == [("setup", seed), ("chance", 1, beacon1)]   # the seed step's beacon is round 1's entropy
    assert (t.step.phase, t.step.purpose) == (2, "move")
    out["chance/seed"] = seed.hex()
    out["chance/beacon-after-seed"] = beacon1.hex()
    out["chance/round1-rng-u64x2"] = first_words(beacon1, 1).hex()
    out["chance/round1-sheet1"] = encode(t.state.catalogue[1].cells_list()).hex()
    empty = {"bids": {}, "convert": 0, "extra": None, "splash": None}
    move_salts = [b"\xc0" * 32, b"\xc1" * 32]
    sealed([empty, empty], move_salts, "move")
    beacon2 = dhash("beacon", beacon1, move_salts)
    assert t.beacon == beacon2
    assert spy.seen[2:] == [("chance", 2, beacon2)]   # round 1's move step's beacon is round 2's entropy
    assert (t.step.phase, t.step.purpose, t.state.round) == (4, "move", 2)
    out["chance/beacon-after-round1"] = beacon2.hex()
    out["chance/round2-rng-u64x2"] = first_words(beacon2, 2).hex()
    out["chance/round2-sheet11"] = encode(t.state.catalogue[11].cells_list()).hex()
    out["chance/head-after-round1"] = t.head.hex()
    # a leave (§6.1 "A leave"): in round 2's move commit (phase 4) seat 0 commits to the empty move with
    # salt 32 x d0, seat 1 signs its leave (seq 4, nonce 16 x 05, payload nil): placed as seat 1's answer
    # (after seat 0's commit, seat order); seat 0 reveals alone, seat 1 plays the empty move; round 3's
    # chance consumes the fresh beacon and its move commit (phase 6) expects seat 0 only
    at = t.count
    event(0, "commit", {"hash": commitment(gid, keys[0], 4, empty, b"\xd0" * 32)})
    st = t.step
    leave = make_event(lambda m: sks[1].sign(m).signature, gid, keys[1], seq[1], st.prev, "leave",
                       {"phase": 4, "nonce": b"\x05" * 16, "payload": None})
    t.append(leave.raw)
    assert t.gone == {1: (at + 1, 4, st.label)} and (t.step.kind, t.step.seats) == ("reveal", (0,))
    event(0, "reveal", {"value": empty, "salt": b"\xd0" * 32})
    assert t.beacon == dhash("beacon", beacon2, [b"\xd0" * 32, b""])
    assert (t.step.phase, t.step.kind, t.step.seats, t.state.round) == (6, "commit", (0,), 3)
    out["leave/seat1-event"] = leave.raw.hex()
    out["leave/head-after-round2"] = t.head.hex()
    # a talk line (§9.11): in round 3's move commit (phase 6, seat 0 alone) seat 0 says "good game" (seq 6,
    # prev = the step's prev, body {"phase": 6, "text": "good game"}), then commits to the empty move with salt
    # 32 x e0 (seq 7): the batch is the line, then the commit (the line just before its author's answer)
    st = t.step
    line = make_event(lambda m: sks[0].sign(m).signature, gid, keys[0], seq[0], st.prev, "say",
                      {"phase": 6, "text": "good game"})
    commit = make_event(lambda m: sks[0].sign(m).signature, gid, keys[0], seq[0] + 1, st.prev, "commit",
                        {"phase": 6, "hash": commitment(gid, keys[0], 6, empty, b"\xe0" * 32)})
    batch = t.assemble({0: commit}, None, lambda s, low, high: [line] if s == 0 and low < line.seq < high else [])
    assert batch == [line, commit]
    at = t.count
    for e in batch:
        t.append(e.raw)
    assert t.said == [{"index": at, "phase": 6, "seat": 0, "seq": 6, "text": "good game"}]
    assert (t.step.phase, t.step.kind, t.step.seats) == (7, "reveal", (0,))
    out["say/seat0-event"] = line.raw.hex()
    out["say/head-after-round3-commit"] = t.head.hex()
    return out


def spec_vectors() -> dict[str, str]:
    text = SPEC.read_text(encoding="utf-8")
    m = re.search(r"<!-- vectors:begin -->(.*?)<!-- vectors:end -->", text, re.S)
    assert m, "protocol.md has no vectors block"
    out = {}
    for line in m.group(1).splitlines():
        line = line.strip()
        if not line or line.startswith("```"):
            continue
        name, hexval = line.split()
        out[name] = hexval
    return out


def test_protocol_md_vectors_match_byte_for_byte():
    computed = compute_vectors()
    spec = spec_vectors()
    assert set(spec) == set(computed), "vector names differ: %s" % (set(spec) ^ set(computed))
    for name, hexval in computed.items():
        assert spec[name] == hexval, "vector %s: protocol.md says %s, code gives %s" % (name, spec[name], hexval)


if __name__ == "__main__":  # print the block for protocol.md
    for k, val in compute_vectors().items():
        print(k, val)
