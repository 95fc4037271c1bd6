"""Modern Art as an outsider replays it: RULES.md's "Replaying a game" recomputed, the auction records,
open auctions that drop a passing seat for good, and the results of unfinished games."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from core.games.modern_art import auctions, bots, dealt, rules
from core.games.modern_art.cards import ARTISTS, CARDS, TYPES, TYPE_NAMES
from core.games.modern_art.game import MODERN_ART

from .test_modern_art_dealt_ui import MANet
from .test_modern_art_rules import MELIM, PASS, batch, bid, cid, game, play, put

RULES_MD = (Path(__file__).resolve().parent.parent / "core/games/modern_art/RULES.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    start = RULES_MD.index(title)
    return RULES_MD[start:RULES_MD.index("\n## ", start + 1)]


def test_card_ids_by_type_in_rules_md_are_the_deck():
    rows = re.findall(r"^\| ([A-Z][a-z]+ [A-Z][a-z]+) \| (.+) \|$", _section("## Replaying a game"), re.M)
    assert [r[0] for r in rows] == list(ARTISTS)
    for a, (_, cells) in enumerate(rows):
        for t, cell in zip(TYPES, cells.split(" | ")):
            lo, hi = (int(x) for x in cell.split("-"))
            assert [c.id for c in CARDS if c.artist == a and c.type == t] == list(range(lo, hi + 1)), (a, t)


def test_first_auctioneer_vectors_in_rules_md_recompute():
    rows = re.findall(r"^\| ([0-9a-f]{64}) \| (\d) \| (\d) \| (\d) \|$", RULES_MD, re.M)
    assert len(rows) == 4
    for k, (hexseed, *firsts) in enumerate(rows):
        seed = bytes.fromhex(hexseed)
        assert seed == hashlib.sha256(b"modern-art first auctioneer %d" % k).digest()
        for n, first in zip((3, 4, 5), firsts):
            s = rules.setup({}, n, seed)
            assert s.phase == "play" and s.actor == int(first), (k, n)


def test_reason_texts_in_rules_md_are_what_the_rules_write():
    listed = _section("## Replaying a game")
    # the 5th card, alone and as a double's second card
    s = play(game(4, actor=1, played=(0, 0, 4, 0, 0)), 1, cid(MELIM, "open"))
    fifth = s.rounds[0][6]
    assert fifth == "seat 1 played the 5th Daniel Melim card"
    s = play(game(4, actor=1, played=(0, 0, 3, 0, 0)), 1, cid(MELIM, "double"), cid(MELIM, "sealed"))
    second = s.rounds[0][6]
    assert second == "seat 1 played the 5th Daniel Melim card as the second card of a double"
    # hands run out after an auction
    g = game(4, actor=1)
    g = put(g, hands=((), (g.hands[1][0],), (), ()))
    s = play(g, 1, cid(MELIM, "open"))
    s = batch(s, {seat: PASS for seat in rules.turn(s).seats})
    assert s.rounds[0][6] == "nobody has a card left to play"
    # time-outs all round
    s = game(4, actor=1)
    for _ in range(4):
        s = rules.apply_unchecked(s, s.actor, rules.default_action(s, s.actor))
    assert s.rounds[0][6] == "every seat with cards lost its turn in a row"
    for text in ("seat S played the 5th A card", "seat S played the 5th A card as the second card of a double",
                 "nobody has a card left to play", "nobody has a card to play",
                 "every seat with cards lost its turn in a row"):
        assert "`%s`" % text in " ".join(listed.split()), text


def test_a_pass_drops_a_seat_out_of_the_open_auction_for_good_and_a_round_closes_when_all_remaining_answered():
    # the plan, 1.3 A: "Ends when no player wants to bid higher"
    s = play(game(4, actor=0), 0, cid(MELIM, "open"))
    s = batch(s, {0: PASS, 1: bid(10), 2: bid(12), 3: PASS})
    assert s.out == (0, 3) and rules.view(s, 1)["auction"]["out"] == [0, 3]
    assert rules.turn(s).seats == (1,)                  # 0 and 3 never again; 2 holds the standing bid
    s = batch(s, {1: bid(30)})
    assert rules.turn(s).seats == (2,) and (s.high, s.high_bidder) == (30, 1)
    s = batch(s, {2: PASS})                             # nobody left to ask: sold at once, no empty round
    assert s.phase == "play" and s.sales[-1] == ((cid(MELIM, "open"),), 0, 1, 30, "open")
    # a time-out in a raise round is a pass: out too
    s = play(game(4, actor=0), 0, cid(MELIM, "open"))
    assert rules.default_action(s, 2) == PASS
    s = batch(s, {0: bid(5), 1: bid(6), 2: rules.default_action(s, 2), 3: bid(7)})
    assert 2 in s.out and 2 not in rules.turn(s).seats


def test_a_raise_round_closes_at_the_table_the_moment_every_seat_asked_has_answered():
    net = MANet(3, seed=9)
    t = net.table(0)
    net.bots(range(3), until=lambda: t.state.ms.phase == "open", limit=400)
    assert t.state.ms.phase == "open"
    rnd, sales = t.state.ms.open_round, len(t.state.ms.sales)
    asked = list(t.state.ms.asked)
    for seat in asked:                                  # every seat asked answers; nobody's clock moves
        net.act(seat, {"do": "pass"})
    ms = t.state.ms
    assert ms.open_round > rnd or len(ms.sales) > sales or ms.round > 1


def test_a_doubles_opener_is_not_asked_again_in_the_offer():
    s = play(game(4, actor=2), 2, cid(MELIM, "double"))
    assert s.phase == "double" and s.order == (3, 0, 1)
    seen = []
    while s.phase == "double":
        seen.append(s.actor)
        s = rules.apply(s, s.actor, PASS)
    assert seen == [3, 0, 1] and 2 not in seen
    assert s.bought[2] == (cid(MELIM, "double"),) and s.actor == 3


def test_every_auction_phase_is_one_record_the_rules_bots_and_screen_read():
    from cli.screens import modern_art as screen

    assert set(auctions.AUCTIONS) == set(TYPES)
    assert set(auctions.STEPS) == {"open", "once_around", "sealed", "price", "fixed_price", "double"}
    assert set(rules.PHASES) == {"play", "over"} | set(auctions.STEPS)
    for key, a in auctions.AUCTIONS.items():
        assert a.name == TYPE_NAMES[key]
        assert screen._word(key, "symbol") == a.symbol and screen._word(key) == a.word
        assert screen._word(key, "name") == a.name and "%s %s" % (a.symbol, a.word) in screen.legend()
        assert all(auctions.by_word(w) == key for w in a.aliases)
        assert all(st.kind in auctions.KINDS and st.words.keys and st.words.timeout[1] for st in a.steps)
        assert bots._pref(key) == a.prefer
        assert a.rule in " ".join(t for _, rows in screen.SCREEN().rules_help(_ctx()) for _, t in rows)
    # the rules ask the record of the phase for its label, default and time
    s = play(game(4, actor=0), 0, cid(MELIM, "open"))
    step = auctions.STEPS["open"]
    assert rules.turn(s).time == step.time(s) == 20 and rules.default_action(s, 1) == step.default(s, 1)
    assert rules.turn(s).label == "round 1: " + step.label(s)


def _ctx():
    from cli.screens import Context
    return Context(seat=0)


def test_an_abandoned_game_ranks_nobody_and_counts_no_round():
    st = MODERN_ART.setup({}, 3, hashlib.sha256(b"abandoned").digest())
    assert st.stage == "keys"
    for seat in range(3):
        st = MODERN_ART.apply(st, seat, MODERN_ART.default_action(st, seat))   # every key withheld: time-outs
    res = MODERN_ART.result(st)
    assert res["status"] == "abandoned" and res["rounds"] == 0
    assert res["ranking"] == [] and res["places"] == [None] * 3 and res["winners"] == []
    words = ("seat %d was timed out of its deal key (it did not come in time; it could have come back with easel resume): "
             "the deal cannot go on without it, no hand was dealt")
    assert res["named"] == [[s, words % s] for s in range(3)]
    assert "`%s`" % (words.replace("%d", "S")) in " ".join(RULES_MD.split())
    assert dealt.result(st) == res


def test_a_card_turn_timed_out_at_the_table_loses_the_turn():
    net = MANet(3, seed=7)
    t = net.table(0)
    ms = t.state.ms
    assert t.state.stage == "play" and ms.phase == "play"
    on_turn = ms.actor
    for now in (0.0, 10_000.0):                      # every clock past the time-out: the others vote it out
        for i, p in enumerate(net.peers):
            net._effects(i, p.tick(now))
        net.pump()
    ms = t.state.ms
    assert ms.phase == "play" and ms.actor == (on_turn + 1) % 3 and ms.skips == 1
    assert any(a == {"do": "skip"} and s == on_turn for _, _, s, a in t.moves)
    # the same skip sent as a seat's own move is refused
    assert MODERN_ART.problems(t.state, ms.actor, {"do": "skip"})
