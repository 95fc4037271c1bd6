"""Modern Art over the real network and through the CLI (issue 6 §5).

* five GameNodes over loopback TLS with the fault-injecting link (drop, dup,
  reorder, delay) play a whole game, trustless deal included, and finish with
  byte-identical logs that audit valid and complete (status "complete"), and
  nobody is ever timed out;
* a bot process SIGKILLed in the middle of a round is resumed with
  ``easel resume``: its seat secret survives (the secret it discloses at the
  end is the one in its store when it was killed), it plays cards of the hand
  it held when killed, and every peer finishes with the same, valid log;
* tampering with a finished 3-seat ``easel demo`` log is named by the audit
  with the entry's index: a flipped byte in a shuffle, a share changed and
  re-signed by its author, a card shown in an open whose card id is changed and
  re-signed (both named as an illegal move by that seat).

Every wait is bounded in time; only loopback addresses are used.
"""

from __future__ import annotations

import json
import shutil
import zlib
from pathlib import Path

import pytest

import core.games
from core.audit import audit
from core.engine import IllegalAction
from core.events import Event, Timeout, make_event, parse_entry
from core.games.modern_art import dealt
from core.games.modern_art.cards import N_CARDS
from core.logfile import parse as parse_log
from core.table import Table, replay
from cli.runner import bot_decider
from p2p.identity import load_or_create
from p2p.node import Faults, GameNode
from p2p.protocol import SEAT_SECRET
from p2p.store import GameStore

from .helpers import log_file
from .netutil import audit_names, build_table, easel, entries_of, finished_demo, run_nodes, sigkill_bot_and_resume

ROOT = Path(__file__).resolve().parent.parent
GAME = "modern-art"
DEMO_TIMEOUT = 90


# --------------------------------------------------------------------------- GameNodes over loopback TLS
async def test_five_nodes_with_faults_finish_with_identical_valid_complete_logs(tmp_path):
    n = 5
    ids, genesis, roster, stores = build_table(n, tmp_path, GAME)
    nodes = [
        GameNode(ids[k], genesis, roster, stores[k], bot_decider(GAME, "easy", "ma-net"), timeout=60,
                 faults=Faults(drop=0.05, dup=0.1, reorder=0.2, delay=0.02, seed=k), linger=5)
        for k in range(n)
    ]
    await run_nodes(nodes, stores, 110)
    for node in nodes:
        assert node.failed is None
        assert node.peer.table.over
    logs = [(tmp_path / str(k) / "log").read_bytes() for k in range(n)]
    assert all(lg == logs[0] for lg in logs)
    rep = audit({"log%d" % k: lg for k, lg in enumerate(logs)}, core.games)
    assert rep["valid"] and rep["complete"], rep["problems"]
    res = rep["results"]
    assert rep["game"] == GAME and res["status"] == "complete" and res["named"] == [] and res["rounds"] == 4
    assert sorted(res["ranking"]) == list(range(n))
    # nobody was timed out: every fault was healed by repair, not by a certificate
    ents = entries_of(logs[0])
    assert not [e for e in ents if isinstance(e, Timeout)]
    assert not [p for p in rep["notes"] if "timed out" in p.get("note", "")]
    # every seat shuffled, disclosed its secret and played cards over the lossy links
    final = replay(parse_log(logs[0]).entries, core.games)
    plays = [(s, a) for _, _, s, a in final.moves if isinstance(a, dict) and a.get("do") == "play"]
    assert {s for s, _ in plays} == set(range(n)), plays
    assert all(sec is not None for sec in final.state.secrets)
    # the money in the result is the rules' own (nobody's hidden money differs between peers)
    assert res["money"] == list(final.state.ms.money)


# --------------------------------------------------------------------------- SIGKILL and resume (processes)


def _secret_in_store(game_dir: Path, scratch: Path) -> bytes:
    """The seat secret in a game directory's secrets file (read from a copy: the real store is left alone)."""
    scratch.mkdir()
    shutil.copyfile(game_dir / "secrets", scratch / "secrets")
    st = GameStore(scratch)
    try:
        return st.secrets[SEAT_SECRET][0]
    finally:
        st.close()


def test_sigkill_a_bot_mid_round_and_resume_with_its_hand(tmp_path):
    homes = [tmp_path / ("h%d" % k) for k in range(3)]
    at_kill: dict = {}

    def look(t, game_dir) -> None:
        # a fast table can have moved on between the look and the kill: from round 2's play into the
        # next round's deal, whose new cards are not open yet
        assert t.state.stage in ("play", "deal", "check"), "killed at stage %s" % t.state.stage
        seat = t.genesis.doc["seats"].index(load_or_create(homes[1]).public)
        secret = _secret_in_store(game_dir, tmp_path / "copy")
        hand = dealt.known_cards(t.state, seat, secret)   # position -> card, what the victim held when killed
        held = {p for p in t.state.ms.hands[seat] if p < t.state.shared}
        assert hand and set(hand) == held
        assert all(0 <= c < N_CARDS for c in hand.values())
        at_kill.update(seat=seat, secret=secret, hand=hand)

    killed, final, _ = sigkill_bot_and_resume(
        GAME, "easy", "ma-kill", homes,
        lambda t: t.state.stage == "play" and t.state.ms.round >= 2 and sum(1 for c in t.state.ms.played if c) >= 1,
        what="round 2", reach_timeout=60, finish_timeout=90, at_kill=look)
    seat, secret, hand = at_kill["seat"], at_kill["secret"], at_kill["hand"]
    assert final.result()["status"] == "complete" and final.state.ms.round >= killed.state.ms.round
    # its secret survived the kill: the one it disclosed is the one in its store when it was killed
    assert final.state.secrets[seat] == secret
    # after the resume it played cards of the hand it held when killed, with the cards the deal gave it
    # (a card play is bound by its positions, then shown by the seat's peer: the open names the cards)
    later = [item[:2] for idx, _, s, a in final.moves if idx >= killed.count and s == seat and isinstance(a, dict)
             and "open" in a for item in a["open"]]
    played_after = [(pos, card) for pos, card in later if pos in hand]
    assert played_after, "the resumed seat played none of the cards it held"
    assert all(hand[pos] == card for pos, card in played_after)


# --------------------------------------------------------------------------- tampering with a 3-seat demo log
@pytest.fixture(scope="module")
def demo3(tmp_path_factory):
    # the 3-seat demo test_export reads too (run once per session; neither changes its files)
    out, r = finished_demo(tmp_path_factory, GAME, 3, "export", timeout=DEMO_TIMEOUT)
    obj = json.loads(r.stdout.strip().splitlines()[-1])
    assert obj["results"]["status"] == "complete"
    data = Path(obj["logs"][0]).read_bytes()
    entries = parse_log(data).entries
    keys = {}
    for home in sorted((out / "o").glob("peer-*")):
        ident = load_or_create(home)
        keys[ident.public] = ident
    # (index, event, dealt state before it) of every act, by the deal stage it answers
    steps: dict[str, list] = {}
    t = Table.start(entries[0], core.games)
    for i, raw in enumerate(entries[1:], start=1):
        ev = parse_entry(raw)
        if isinstance(ev, Event) and ev.kind == "act" and t.state is not None:
            st = t.state
            stage = st.stage if st.stage != "play" else "play:" + st.ms.phase
            steps.setdefault(stage, []).append((i, ev, st))
        t.append(raw)
    assert t.over
    return data, entries, keys, steps


def _spans(data: bytes) -> list[tuple[int, int]]:
    p = parse_log(data)
    return [(p.offsets[i] + 4, p.offsets[i] + 4 + len(e)) for i, e in enumerate(p.entries)]


def _resign(keys, ev: Event, action) -> bytes:
    forged = make_event(keys[ev.author].sign, ev.game_id, ev.author, ev.seq, ev.prev, "act", dict(ev.body, action=action))
    assert parse_entry(forged.raw).author == ev.author   # a well-signed event of the right author
    return forged.raw


def test_the_untouched_demo_log_audits_valid(demo3, tmp_path):
    data, _, _, steps = demo3
    assert {"keys", "shuffle", "deal", "check", "open", "disclose", "play:play"} <= set(steps)
    rep = audit({"d.log": data}, core.games)
    assert rep["valid"] and rep["complete"] and rep["results"]["status"] == "complete"


def test_flipped_byte_in_a_shuffle_is_named(demo3, tmp_path):
    data, _, _, steps = demo3
    i, ev, _ = steps["shuffle"][1]
    a, b = _spans(data)[i]
    ct = ev.body["action"]["deck"][7]
    at = data.index(ct, a, b) + 40              # inside a ciphertext's second point
    buf = bytearray(data)
    buf[at] ^= 0x01
    path = tmp_path / "t.log"
    path.write_bytes(bytes(buf))
    audit_names(path, i)                        # the record's checksum catches it
    buf[b:b + 4] = zlib.crc32(bytes(buf[a:b])).to_bytes(4, "big")
    path.write_bytes(bytes(buf))
    audit_names(path, i, "signature")           # with a good checksum, the signature does


def test_a_share_changed_and_resigned_by_its_author_is_named(demo3, tmp_path):
    _, entries, keys, steps = demo3
    i, ev, state = steps["deal"][0]
    seat = Table.start(entries[0], core.games).genesis.doc["seats"].index(ev.author)
    shares = [list(x) for x in ev.body["action"]["shares"]]
    assert len(shares) >= 2
    shares[0][1] = shares[1][1]                  # another position's (valid) share
    action = dict(ev.body["action"], shares=shares)
    with pytest.raises(IllegalAction):
        core.games.get(GAME).check(state, seat, action)
    path = tmp_path / "t.log"
    path.write_bytes(log_file(entries[:i] + [_resign(keys, ev, action)] + entries[i + 1:]))
    hits = audit_names(path, i, "illegal move by seat %d" % seat)
    assert "share" in hits[0]["problem"]


def test_a_card_play_with_its_card_id_changed_and_resigned_is_named(demo3, tmp_path):
    _, entries, keys, steps = demo3
    seats = Table.start(entries[0], core.games).genesis.doc["seats"]
    # the card is shown in the open that follows the choice (the choice names positions only)
    i, ev, state = steps["open"][len(steps["open"]) // 2]
    seat = seats.index(ev.author)
    items = [list(x) for x in ev.body["action"]["open"]]
    items[0][1] = (items[0][1] + 1) % N_CARDS         # a card the deal did not put at that position
    action = {"open": items}
    with pytest.raises(IllegalAction):
        core.games.get(GAME).check(state, seat, action)
    path = tmp_path / "t.log"
    path.write_bytes(log_file(entries[:i] + [_resign(keys, ev, action)] + entries[i + 1:]))
    audit_names(path, i, "illegal move by seat %d" % seat)
