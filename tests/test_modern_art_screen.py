"""The Modern Art screen (cli/screens/modern_art.py), without a table.

Modern Art is in the game registry with its trustless deal (a live table deals
hidden hands that only a seat's own secret opens), so to choose each seat's
hand these tests build the shell's ``Context``/``Snapshot`` themselves from
states of a local game without the deal: ``rules.setup`` with a chosen open
deal (so a seat's hand is known to the test), driven by
``rules.check_open``/``apply``, with each seat's view from
``rules.view(state, seat, its own cards)`` - what the table's view for a seat
with its secret is built from (plus the deal's status).  The Context's and
Snapshot's game is the offline one (``game.OFFLINE``: the rules alone, whose
seat secret is the seat's own cards); legality comes from it through the
shell's own helpers, exactly as ``GameUI._ctx`` builds it.  The full-screen test runs the real ``GameUI``
(prompt-toolkit on a pipe input) with a hand-made snapshot and decision.  A
person playing through the UI at a live table, deal included:
tests/test_modern_art_live_ui.py.
"""

from __future__ import annotations

import io
import re
from dataclasses import replace

import pytest
import trio
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

import cli.shell as shell
from cli.screens import CommandError, Context, Say, Send, Snapshot, screen_for
from cli.screens.modern_art import ModernArtScreen, card_code, hand_order, parse_card
from cli.shell import GameUI
from core.games.modern_art import bots, rules
from core.games.modern_art.cards import ARTISTS, CARDS, N_CARDS
from core.games.modern_art.game import MODERN_ART as GAME, OFFLINE
from core.rng import Rng

from .test_ui import _screen, running, until

ENTER = "\r"
LIMIT = 20
CA, TH, ME, MA, SI = range(5)


# --------------------------------------------------------------------------- a chosen deal


def cid(artist: int, atype: str, k: int = 0) -> int:
    """The k-th card id of this artist and auction type."""
    ids = [c.id for c in CARDS if c.artist == artist and c.type == atype]
    return ids[k]


# seat 0's round-1 hand (positions 0..8 with 4 players), seat 1's (9..17)
SEAT0 = [cid(ME, "double"), cid(ME, "sealed"), cid(ME, "open"), cid(ME, "double", 1), cid(CA, "fixed_price"),
         cid(TH, "once_around"), cid(SI, "open"), cid(ME, "fixed_price"), cid(MA, "sealed")]
SEAT1 = [cid(ME, "fixed_price", 1), cid(ME, "double", 2), cid(CA, "open"), cid(TH, "sealed"), cid(SI, "sealed"),
         cid(MA, "open"), cid(MA, "once_around"), cid(TH, "open"), cid(SI, "double")]


def chosen_deal() -> tuple:
    rest = [c for c in range(N_CARDS) if c not in SEAT0 + SEAT1]
    return tuple(SEAT0 + SEAT1 + rest)


DEAL = chosen_deal()


def seed_with_first(seat: int, players: int = 4) -> bytes:
    for k in range(200):
        s = b"ma-screen" + k.to_bytes(4, "big") + bytes(19)
        if rules.setup({}, players, s).actor == seat:
            return s
    raise AssertionError("no seed found")


SEED = seed_with_first(0)


def start() -> rules.State:
    st = rules.setup({}, 4, SEED)
    assert st.actor == 0 and st.hands[0] == tuple(range(9))
    return st


def act(st: rules.State, seat: int, action: dict) -> rules.State:
    return rules.apply(st, seat, rules.check_open(st, seat, action, DEAL))


def play(st: rules.State, seat: int, card: int, second: int | None = None) -> rules.State:
    pos = DEAL.index(card)
    dbl = None if second is None else {"pos": DEAL.index(second), "card": second}
    return act(st, seat, {"do": "play", "pos": pos, "card": card, "double": dbl})


def snap_for(st: rules.State, seat: int | None, deal=DEAL, moves=(), phase: int = 5, known: bool = True) -> Snapshot:
    view = rules.view(st, seat, rules.known_for(st, seat, deal) if known and seat is not None else None)
    t = rules.turn(st)
    return Snapshot(seat=seat, players=st.players, view=view, phase=phase,
                    step_kind="commit" if t.kind == "simultaneous" else "event", step_purpose="move",
                    step_label=t.label, step_seats=tuple(t.seats), missing=tuple(t.seats), over=st.phase == "over",
                    result=rules.result(st), log=(), moves=len(moves), entries=1 + len(moves), config=dict(st.config),
                    game_name="modern-art", game_title="Modern Art", game=OFFLINE, state=st,
                    moves_tail=tuple(moves[-64:]))


def ctx_for(st: rules.State, seat: int | None, deciding: bool = True, deal=DEAL, known: bool = True,
            sent=None) -> Context:
    """A Context as GameUI._ctx builds it: legality from the game through the shell's helpers."""
    snap = snap_for(st, seat, deal, known=known)
    return Context(seat=seat, snap=snap, view=snap.view, game=OFFLINE, state=st, deciding=deciding, sent=sent,
                   check=lambda a: shell.check(OFFLINE, st, seat, a),
                   problems=lambda a: shell.problems(OFFLINE, st, seat, a),
                   legal=lambda: shell.legal_actions(OFFLINE, st, seat))


def run(screen, ctx, line: str):
    """What the shell does with a command line: the screen's command (name via its aliases)."""
    words = line.split()
    name = screen.commands[words[0].lower()]
    return screen.command(ctx, name, words[1:])


def text_of(lines) -> str:
    return "\n".join("".join(t for _, t in l) for l in lines)


def number_of(st: rules.State, seat: int, card: int) -> int:
    """The number the screen draws in front of ``card`` in ``seat``'s hand."""
    v = rules.view(st, seat, rules.known_for(st, seat, DEAL))
    return [c["id"] for c in hand_order(v["cards"])].index(card) + 1


def with_money(st: rules.State, money: tuple) -> rules.State:
    """``st`` with other money (through a view: the rules' own way to rebuild a state)."""
    v = rules.view(st, None)
    v["money"] = list(money)
    return rules.state_from_view(v)


def pos(card: int) -> int:
    return DEAL.index(card)


# --------------------------------------------------------------------------- every command -> the engine's action


def test_play_commands_by_number_and_by_short_name():
    st = start()
    sc = ModernArtScreen()
    ctx = ctx_for(st, 0)
    mes, meo, med = cid(ME, "sealed"), cid(ME, "open"), cid(ME, "double")
    # the hand is numbered by artist (board order), then type: Ca F, Th 1, Me O S F D D, Ma S, Si O
    order = [c["id"] for c in hand_order(ctx.view["cards"])]
    assert order == [cid(CA, "fixed_price"), cid(TH, "once_around"), meo, mes, cid(ME, "fixed_price"), med,
                     cid(ME, "double", 1), cid(MA, "sealed"), cid(SI, "open")]
    assert run(sc, ctx, "play 4") == Send({"do": "play", "pos": pos(mes), "card": mes, "double": None})
    assert run(sc, ctx, "play MeS") == Send({"do": "play", "pos": pos(mes), "card": mes, "double": None})
    assert run(sc, ctx, "p mes") == Send({"do": "play", "pos": pos(mes), "card": mes, "double": None})
    assert run(sc, ctx, "play melim sealed") == Send({"do": "play", "pos": pos(mes), "card": mes, "double": None})
    assert run(sc, ctx, "play me-s") == Send({"do": "play", "pos": pos(mes), "card": mes, "double": None})
    assert run(sc, ctx, "play silveira") == Send(
        {"do": "play", "pos": pos(cid(SI, "open")), "card": cid(SI, "open"), "double": None})
    # a double with its second card: by numbers, by names, an artist alone picks its one fitting type
    want = {"do": "play", "pos": pos(med), "card": med, "double": {"pos": pos(meo), "card": meo}}
    assert run(sc, ctx, "play 6 3") == Send(want)
    assert run(sc, ctx, "play MeD MeO") == Send(want)
    assert run(sc, ctx, "play MeD with meo") == Send(want)
    # a double alone goes round
    assert run(sc, ctx, "play MeD") == Send({"do": "play", "pos": pos(med), "card": med, "double": None})
    # two cards of the same kind: the second is another one
    med2 = cid(ME, "double", 1)
    got = parse_card(["MeD"], hand_order(ctx.view["cards"]), taken=[pos(med)])
    assert got[0]["id"] == med2


def test_double_offer_add_and_pass():
    st = play(start(), 0, cid(ME, "double"))
    assert st.phase == "double" and st.actor == 1
    sc = ModernArtScreen()
    ctx = ctx_for(st, 1)
    mef = cid(ME, "fixed_price", 1)
    n = number_of(st, 1, mef)
    assert run(sc, ctx, "add %d" % n) == Send({"do": "add", "pos": pos(mef), "card": mef})
    assert run(sc, ctx, "add MeF") == Send({"do": "add", "pos": pos(mef), "card": mef})
    assert run(sc, ctx, "add melim") == Send({"do": "add", "pos": pos(mef), "card": mef})   # its one non-double
    assert run(sc, ctx, "play %d" % n) == Send({"do": "add", "pos": pos(mef), "card": mef})  # play = add here
    assert run(sc, ctx, "pass") == Send({"do": "pass"})
    text = text_of(sc.middle_lines(ctx, 100))
    assert "A second Daniel Melim card (not a double) is wanted" in text
    assert "You can add:  %d  MeF" % n in text
    assert re.search(r"Offer in turn: you \(now\) > seat 2 > seat 3; nobody adds: it goes free to seat 0", text)   # ("you takes" never)
    assert sc.decision_label(ctx) == "add a second Daniel Melim to the double, or pass"   # not "a second Me"


def test_bidding_price_and_buy_commands():
    sc = ModernArtScreen()
    # sealed: bid N, pass = no bid (bid 0), bid all
    st = play(start(), 0, cid(ME, "sealed"))
    assert st.phase == "sealed"
    ctx = ctx_for(st, 2)
    assert run(sc, ctx, "bid 30") == Send({"do": "bid", "amount": 30})
    assert run(sc, ctx, "b 0") == Send({"do": "bid", "amount": 0})
    assert run(sc, ctx, "pass") == Send({"do": "bid", "amount": 0})
    assert run(sc, ctx, "bid all") == Send({"do": "bid", "amount": 100})
    assert sc.decision_label(ctx) == "sealed bid, 0 = no bid"          # no brackets in "YOUR MOVE (...)"
    said = sc.on_sent(ctx, {"do": "bid", "amount": 30}, "seat 2 bids 30")
    assert said.text == "Sent: your bid: 30 (sealed until every bid is in)"
    assert sc.on_decision(ctx).text.startswith("Sealed auction for MeS (Daniel Melim, sealed), auctioneer seat 0: "
                                               "one sealed bid, bid N (0 to 100; 0 = no bid)")
    # open: a raise round; bid +N raises the standing bid
    st = play(start(), 0, cid(ME, "open"))
    st = act(act(act(act(st, 0, {"do": "pass"}), 1, {"do": "bid", "amount": 10}), 2, {"do": "bid", "amount": 4}),
             3, {"do": "pass"})
    assert st.phase == "open" and st.high == 10 and st.high_bidder == 1 and st.open_round == 2
    assert rules.turn(st).seats == (2,)          # seats 0 and 3 passed: out of this auction
    ctx = ctx_for(st, 2)
    assert run(sc, ctx, "bid 15") == Send({"do": "bid", "amount": 15})
    assert run(sc, ctx, "bid +5") == Send({"do": "bid", "amount": 15})
    assert run(sc, ctx, "raise 11") == Send({"do": "bid", "amount": 11})
    assert run(sc, ctx, "pass") == Send({"do": "pass"})
    assert sc.decision_label(ctx) == "open auction round 2: bid above 10 or pass"
    # once around
    st = play(start(), 0, cid(TH, "once_around"))
    assert st.phase == "once_around" and st.actor == 1
    ctx = ctx_for(st, 1)
    assert run(sc, ctx, "bid 7") == Send({"do": "bid", "amount": 7})
    assert run(sc, ctx, "pass") == Send({"do": "pass"})
    # fixed price: the auctioneer names it, then buyers buy or pass
    st = play(start(), 0, cid(CA, "fixed_price"))
    assert st.phase == "price" and st.actor == 0
    ctx = ctx_for(st, 0)
    assert run(sc, ctx, "price 20") == Send({"do": "price", "amount": 20})
    st = act(st, 0, {"do": "price", "amount": 20})
    ctx = ctx_for(st, 1)
    assert run(sc, ctx, "buy") == Send({"do": "buy"})
    assert run(sc, ctx, "pass") == Send({"do": "pass"})
    assert sc.decision_label(ctx) == "buy for 20 or pass"
    assert "Price 20" in text_of(sc.middle_lines(ctx, 100))


def test_there_is_no_skip_a_seat_on_turn_auctions_a_card():
    st = start()
    sc = ModernArtScreen()
    ctx = ctx_for(st, 0)
    assert "skip" not in sc.commands
    assert ctx.problems({"do": "skip"}) and "must auction a painting" in ctx.problems({"do": "skip"})[0]
    with pytest.raises(CommandError, match="nothing to send yet: type play N or play CARD"):
        sc.submit(ctx)


def test_upto_is_a_private_standing_order_that_answers_every_later_round_of_that_auction():
    sc = ModernArtScreen()
    st = play(start(), 0, cid(ME, "open"))
    ctx = ctx_for(st, 2)
    assert "pass = out of this auction" in "".join(t for _, t in sc.draft_line(ctx))
    # the first answer goes at once: halfway to the ceiling
    assert run(sc, ctx, "upto 40") == Send({"do": "bid", "amount": 20})
    assert "standing order: up to 40" in sc.on_sent(ctx, {"do": "bid", "amount": 20}, "").text
    st = act(act(act(act(st, 0, {"do": "pass"}), 1, {"do": "bid", "amount": 30}), 2, {"do": "bid", "amount": 20}),
             3, {"do": "pass"})
    assert rules.turn(st).seats == (2,)
    # asked again in the same auction: the order answers (the shell sends it without a prompt)
    assert sc.standing(ctx_for(st, 2)) == Send({"do": "bid", "amount": 35})
    st = act(st, 2, {"do": "bid", "amount": 35})
    st = act(st, 1, {"do": "bid", "amount": 40})
    assert sc.standing(ctx_for(st, 2)) == Send({"do": "pass"})         # the ceiling is reached: out
    assert sc.standing(ctx_for(st, 1)) is None                          # another seat: its own screen's business
    # the next auction is not covered by it
    nxt = play(start(), 0, cid(ME, "sealed"))
    assert sc.standing(ctx_for(nxt, 2)) is None
    with pytest.raises(CommandError, match="for an open auction"):
        run(sc, ctx_for(nxt, 2), "upto 30")
    # the order is never in anything sent: only the bids are
    assert all("upto" not in str(a) for a in (Send({"do": "bid", "amount": 35}).action,))


# --------------------------------------------------------------------------- bad input


def test_bad_input_is_refused_with_a_clear_reason():
    sc = ModernArtScreen()
    st0 = start()
    ctx = ctx_for(st0, 0)
    cases = [
        ("play 0", "no card 0 in your hand: your cards are numbered 1 to 9"),
        ("play 12", "no card 12"),
        ("play XyZ", "'XyZ' is not a card"),
        ("play m", "could be Daniel Melim or Ramon Martins"),
        ("play ThS", "you have no Sigrid Thaler sealed card"),
        ("play melim", "which Daniel Melim card\\? you have MeO, MeS, MeF, MeD"),
        ("play", "usage: play N"),
        ("play MeD CaF", "the second card of a double must be by Daniel Melim, not Manuel Carvalho"),   # another artist
        ("play MeD MeD", "the second card of a double cannot be another double"),                      # a second double
        ("play MeS MeO", "only a double auction card can take a second card"),
        ("play 6 3 1", "too much after the cards"),
        ("bid 10", "it is your turn to auction a painting"),
        ("buy now", "buy takes no arguments"),
        ("pass", "it is your turn to auction a painting"),
    ]
    for line, words in cases:
        with pytest.raises(CommandError, match=words):
            run(sc, ctx, line)
    # bids above your money / not above the standing bid / junk
    st = play(start(), 0, cid(ME, "open"))
    st = act(act(act(act(st, 0, {"do": "bid", "amount": 6}), 1, {"do": "bid", "amount": 10}), 2, {"do": "bid", "amount": 4}),
             3, {"do": "bid", "amount": 5})
    ctx = ctx_for(st, 2)
    for line, words in [("bid 150", "you have only 100; you cannot bid 150"),
                        ("bid 10", "your bid must be above the standing bid of 10 \\(by seat 1\\)"),
                        ("bid 4", "above the standing bid of 10"),
                        ("bid ten", "bid wants a whole number, not 'ten'"),
                        ("bid", "usage: bid N"),
                        ("bid -3", "a bid cannot be negative"),
                        ("price 5", "bid an amount or pass")]:
        with pytest.raises(CommandError, match=words):
            run(sc, ctx, line)
    # a fixed price above your money
    st = play(start(), 0, cid(CA, "fixed_price"))
    with pytest.raises(CommandError, match="the fixed price must be at most your money \\(100\\), not 500"):
        run(sc, ctx_for(st, 0), "price 500")
    with pytest.raises(CommandError, match="at least 1"):
        run(sc, ctx_for(st, 0), "price 0")
    with pytest.raises(CommandError, match="cannot do that: name the fixed price first: price N - nothing sent"):
        run(sc, ctx_for(st, 0), "pass")
    # the double offer: a card of another artist, a second double
    st = play(start(), 0, cid(ME, "double"))
    ctx = ctx_for(st, 1)
    with pytest.raises(CommandError, match="must be by Daniel Melim, not Manuel Carvalho"):
        run(sc, ctx, "add CaO")
    with pytest.raises(CommandError, match="cannot be another double"):
        run(sc, ctx, "add MeD")
    # acting out of turn: seat 2 while seat 1 is asked
    with pytest.raises(CommandError, match="it is seat 1's turn, not yours.* - nothing sent"):
        run(sc, ctx_for(st, 2, deciding=False), "pass")
    assert sc.submit(ctx_for(st, 2, deciding=False)) is None      # the shell then says "not your turn"
    # a sealed step already answered: the state still lists us, the screen says we sent
    st = play(start(), 0, cid(ME, "sealed"))
    sent = shell.Sent(5, {"do": "bid", "amount": 12}, "seat 2 bids 12")
    with pytest.raises(CommandError, match=r"you already sent your move for this step \(bids 12\) - waiting for "
                                           r"seat 0, seat 1, seat 3; nothing sent"):
        run(sc, ctx_for(st, 2, deciding=False, sent=sent), "bid 20")
    # the draft line says it is in and whom the step waits for; what was sent is said once (the message line)
    drafted = "".join(t for _, t in sc.draft_line(ctx_for(st, 2, deciding=False, sent=sent)))
    assert drafted == "Your move is in - waiting for seat 0, seat 1, seat 3." and "bids 12" not in drafted
    # the game over / no cards known
    with pytest.raises(CommandError, match="does not know your cards yet"):
        run(sc, ctx_for(start(), 0, known=False), "play 1")


# --------------------------------------------------------------------------- what the screen shows


def test_board_seats_and_middle_show_the_table_and_hide_others_money():
    st = play(start(), 0, cid(ME, "open"))
    st = act(act(act(act(st, 0, {"do": "bid", "amount": 6}), 1, {"do": "bid", "amount": 10}), 2, {"do": "bid", "amount": 4}),
             3, {"do": "bid", "amount": 5})
    st = with_money(st, (100, 90, 111, 95))
    sc = ModernArtScreen()
    ctx = ctx_for(st, 2)
    board = [("".join(t for _, t in l)) for l in sc.board_lines(ctx)]
    assert board[0].startswith(" ROUND 1/4 ") and "open auction, raise round 2" in board[0]
    assert "r1 r2 r3 r4  sum  now" in board[1]
    for a in range(5):
        assert board[2 + a].startswith(" %s  %s" % (("Ca", "Th", "Me", "Ma", "Si")[a], ARTISTS[a]))
    assert board[4].endswith("●○○○○")                       # one Melim card played this round
    assert board[7].startswith("your money: 111")
    assert all(len(l) <= sc.board_width for l in board)
    # money behind screens: only your own
    cells = [sc.seat_cells(ctx, s) for s in range(4)]
    assert [c[0] for c in cells] == ["?", "?", "111", "?"]
    assert [c[1] for c in cells] == ["8", "9", "9", "9"]     # hand sizes
    assert cells[0][3] == "A" and cells[1][3] == "high"
    assert all(len(c) <= w for row in cells for c, (_, w) in zip(row, sc.seat_columns(ctx)))
    assert [c[0] for c in (sc.seat_cells(ctx_for(st, None), s) for s in range(4))] == ["?"] * 4
    text = text_of(sc.middle_lines(ctx, 100))
    assert "Auction   MeO   open auction  by seat 0" in text
    assert "Standing bid: 10 by seat 1" in text and "raise round 2" in text
    assert "Raise or pass now: seat 0, you, seat 3" in text
    assert "You: 111 money - bid 11 to 111, or pass" in text
    assert "You: 90 money - not asked this round (you hold the standing bid)" in text_of(sc.middle_lines(ctx_for(st, 1), 100))
    assert "Your hand 9 cards" in text and "types: O open  1 once around  S sealed  F fixed price  D double" in text
    assert "Round 1 so far" in text
    for m in ("100", "90", "95"):                            # no one else's money anywhere
        assert "money: %s" % m not in text and "You: %s" % m not in text
    assert sc.title_parts(ctx) == ["round 1/4: open auction, raise round 2"]
    # the hand: cards as coloured chips with their short names, grouped by artist, numbered
    frags = [f for l in sc.middle_lines(ctx, 100) for f in l]
    code = card_code(hand_order(ctx.view["cards"])[0]["id"])
    assert ("class:art.%d" % CARDS[hand_order(ctx.view["cards"])[0]["id"]].artist, " %s " % code) in frags
    assert sc.styles["art.2"].startswith("bg:") and "fg:" in sc.styles["art.2"]


def test_round_summary_values_payouts_and_game_over():
    # a whole quick game; after round 1 the summary is on screen, at the end the money is revealed
    deal = rules.deal_open(SEED)
    st = rules.setup({}, 4, SEED)
    easy = bots.EasyBot()
    seen_summary = False
    sc = ModernArtScreen()
    for k in range(3000):
        t = rules.turn(st)
        if t.kind == "over":
            break
        for s in t.seats:
            a = easy.choose(rules.view(st, s, rules.known_for(st, s, deal)), s, Rng(SEED, "t/%d/%d" % (s, k)))
            st = rules.apply(st, s, rules.check_open(st, s, a, deal))
        if st.rounds and not seen_summary and st.phase != "over":
            seen_summary = True
            ctx = ctx_for(st, 1, deciding=False, deal=deal)
            text = text_of(sc.middle_lines(ctx, 100))
            r = st.rounds[0]
            assert "Round 1 summary - " in text and "Ranking:" in text and "Paid by the bank:" in text
            top = rules.ranking_of(r[1])[0]
            assert "1. %s  %d played, tile 30, worth %d" % (("Ca", "Th", "Me", "Ma", "Si")[top], r[1][top], r[3][top]) in text
            assert "you +%d" % r[4][1] in text
            board = text_of(sc.board_lines(ctx))
            assert re.search(r"%s\s+30\s" % ARTISTS[top], board)
    assert st.phase == "over"
    res = rules.result(st)
    ctx = ctx_for(st, 0, deciding=False, deal=deal)
    over = text_of(sc.game_over_lines(ctx, 100))
    assert over.startswith("GAME OVER - the screens are lifted")
    first = res["ranking"][0]
    assert re.search(r"1\. seat %d( \(you\))?\s+%d money\s+winner" % (first, res["money"][first]), over)
    assert [sc.seat_cells(ctx, s)[0] for s in range(4)] == [str(m) for m in res["money"]]   # screens lifted
    words = sc.final_words(ctx)
    place = res["places"][0]
    assert words.startswith("Game over after round 4: you finished %s of 4 with %d money." % (
        ("1st", "2nd", "3rd", "4th")[place - 1], res["money"][0]))
    text = text_of(sc.middle_lines(ctx, 100))
    assert all("Round %d summary" % r in text for r in (1, 2, 3, 4))
    # a spectator at game over reads that the money is out, not that it stays behind the screens (issue 23)
    watching = text_of(sc.board_lines(ctx_for(st, None, deciding=False, deal=deal)))
    assert "behind the screens" not in watching and "spectating: all money revealed (below)" in watching
    assert "behind the screens" in text_of(sc.board_lines(ctx_for(start(), None, deciding=False)))


def test_the_bought_column_counts_paintings_per_artist_unlike_a_cards_short_name():
    """Seen on the LAN: "Me1 Ma2" in the seats' bought column read like the card short name "Me1"."""
    from cli.screens.modern_art import _bought_cell

    v = {"bought": [[cid(ME, "open"), cid(ME, "sealed"), cid(MA, "open")], []]}
    assert _bought_cell(v, 0, 10) == "Me×2 Ma×1" and _bought_cell(v, 1, 10) == "-"
    many = {"bought": [[cid(a, "open") for a in (CA, TH, ME, MA)]]}
    assert _bought_cell(many, 0, 11) == "4 paintings" and _bought_cell(many, 0, 10) == "4 paint."


@pytest.mark.parametrize("players", [3, 5])
def test_every_state_of_a_game_renders_within_the_width(players):
    """A whole bot game: every seat's (and a spectator's) screen at each step, at 100 and 160 columns."""
    seed = b"ma-every" + bytes([players]) * 24
    deal = rules.deal_open(seed)
    st = rules.setup({}, players, seed)
    bs = [bots.RandomBot() if s % 2 else bots.EasyBot() for s in range(players)]
    sc = ModernArtScreen()
    phases = set()
    for k in range(2000):
        t = rules.turn(st)
        phases.add(st.phase)
        for s in list(range(players)) + [None]:
            ctx = ctx_for(st, s, deciding=s in t.seats, deal=deal)
            if s in t.seats:
                assert isinstance(sc.on_decision(ctx), Say)
            for width in (100, 160):
                for l in sc.middle_lines(ctx, width) + sc.game_over_lines(ctx, width):
                    assert sum(len(x) for _, x in l) <= width, (k, s, l)
            for l in sc.board_lines(ctx):
                assert sum(len(x) for _, x in l) <= sc.board_width, (k, s, l)
            cells = sc.seat_cells(ctx, 0)
            assert all(len(c) <= w for c, (_, w) in zip(cells, sc.seat_columns(ctx)))
            sc.title_parts(ctx), sc.draft_line(ctx), sc.decision_label(ctx), sc.key_help(ctx)
        if t.kind == "over":
            break
        prev = st
        for s in t.seats:
            a = rules.check_open(prev, s, bs[s].choose(rules.view(prev, s, rules.known_for(prev, s, deal)), s,
                                                        Rng(seed, "b/%d/%d" % (s, k))), deal)
            assert sc.describe(OFFLINE, st, s, a).startswith("seat %d " % s)
            st = rules.apply(st, s, a)
    assert st.phase == "over"
    assert {"play", "open", "sealed", "once_around", "price", "fixed_price"} <= phases


def test_help_lists_every_command_and_the_rules():
    sc = ModernArtScreen()
    ctx = ctx_for(start(), 0)
    helptext = " ".join("%s %s" % kv for kv in sc.command_help(ctx))
    for words in ("play N [M]", "play CARD [CARD]", "add N | add CARD", "pass", "bid N", "bid +N", "bid all",
                  "price N", "buy", "upto N", "sealed: no bid", "MeS"):
        assert words in helptext, words
    rules_text = " ".join("%s %s" % kv for _, rows in sc.rules_help(ctx) for kv in rows)
    for words in ("O open", "1 once around", "S sealed", "F fixed price", "D double", "the 5th card of one artist",
                  "tiles 30, 20, 10", "9/4/4/0", "money is behind screens", "Me Daniel Melim (red)"):
        assert words in rules_text, words
    for ph, first in (("play", "play N [M]"), ("sealed", "bid N (0 = no bid)"), ("price", "price N")):
        assert sc.key_help(replace(ctx, view=dict(ctx.view, phase=ph)))[0].startswith(first)
    assert sc.describe_table(ctx, {"edition": "standard"}, 4) == \
        "Modern Art for 4 seats; standard edition; 100 money each, 4 rounds"
    assert type(screen_for("modern-art")) is ModernArtScreen
    # the log words a past move in the state it was made in (the shell passes Table.state_before)
    later = start()
    priced = rules._clone(later)
    priced.price = 17
    assert sc.describe(OFFLINE, priced, 2, {"do": "buy"}) == "seat 2 buys at the fixed price 17"
    assert sc.describe(OFFLINE, later, 2, {"do": "bid", "amount": 0}) == "seat 2 hands in no bid"
    assert sc.describe(OFFLINE, later, 2, {"do": "bid", "amount": 14}) == "seat 2 bids 14"
    assert sc.describe(OFFLINE, later, 2, {"do": "pass"}) == "seat 2 passes"
    med, meo = cid(ME, "double"), cid(ME, "open")
    assert sc.describe(OFFLINE, later, 0, {"do": "play", "pos": 0, "card": med, "double": {"pos": 2, "card": meo}}) == \
        "seat 0 auctions Daniel Melim double (MeD) with Daniel Melim open (MeO)"
    assert sc.describe(OFFLINE, later, 1, {"do": "add", "pos": 9, "card": meo}) == \
        "seat 1 adds Daniel Melim open (MeO) to the double and becomes the auctioneer"


def test_a_view_without_cards_still_renders():
    sc = ModernArtScreen()
    ctx = ctx_for(start(), 0, known=False)
    text = text_of(sc.middle_lines(ctx, 100))
    assert "Your hand 9 cards" in text and "the deal has not shown this screen your cards yet" in text
    assert "does not know your cards" in sc.on_decision(ctx).text


# --------------------------------------------------------------------------- the reveal


def beats_between(before_st, moves_before, steps, seat=0):
    """Apply ``steps`` [(seat, action)] to ``before_st``; the beats seat ``seat`` gets, and the after-state."""
    moves = list(moves_before)
    st = before_st
    for s, a in steps:
        st = act(st, s, a)
        moves.append((len(moves), s, a))
    before = snap_for(before_st, seat, moves=list(moves_before))
    after = snap_for(st, seat, moves=moves)
    sc = ModernArtScreen()
    ctx = Context(seat=seat, snap=after, view=after.view, game=OFFLINE, state=st)
    return sc.beats(ctx, before), st, before, after


def beat_text(b) -> str:
    return b.caption + "\n" + text_of(b.middle)


def test_beats_open_a_sealed_auction_side_by_side():
    st = play(start(), 0, cid(ME, "sealed"))
    prior = [(0, 0, {"do": "play"})]
    bids = [(0, {"do": "bid", "amount": 20}), (1, {"do": "bid", "amount": 12}), (2, {"do": "bid", "amount": 0}),
            (3, {"do": "bid", "amount": 25})]
    beats, after, _, _ = beats_between(st, prior, bids, seat=1)
    assert after.phase == "play" and after.money == (125, 100, 100, 75)
    assert [b.caption for b in beats] == ["The sealed bids open", "SOLD: seat 3 buys MeS for 25, paid to seat 0"]
    row = "seat 0: 20  you: 12  seat 2: no bid  seat 3: 25"
    assert row in beat_text(beats[0]) and row in beat_text(beats[1])
    assert "MeS   sealed auction by seat 0" in beat_text(beats[0])
    assert beats[1].hold == 2
    win = [f for l in beats[1].middle for f in l if f[0] == "class:win"]
    assert win == [("class:win", "seat 3: 25")]
    # a tie with the auctioneer: it wins and pays the bank
    tie = [(0, {"do": "bid", "amount": 25}), (1, {"do": "pass"}), (2, {"do": "bid", "amount": 0}),
           (3, {"do": "bid", "amount": 25})]
    beats, after, _, _ = beats_between(st, prior, tie, seat=0)
    assert beats[1].caption == "SOLD: you buy MeS for 25, paid to the bank"
    assert "a tie at 25: you, as the auctioneer" in beat_text(beats[1])
    # no moves to replay (the snapshot's tail does not reach back): the sale alone, from the views
    before = snap_for(st, 0, moves=prior)
    after_snap = replace(snap_for(after, 0, moves=prior + [(1 + i, s, a) for i, (s, a) in enumerate(tie)]), moves_tail=())
    beats = ModernArtScreen().beats(Context(seat=0, snap=after_snap, view=after_snap.view), before)
    assert [b.caption for b in beats] == ["SOLD: you buy MeS for 25, paid to the bank"]


def test_beats_for_an_open_auction_going_once_going_twice_sold():
    st = play(start(), 0, cid(ME, "open"))
    prior = [(0, 0, {"do": "play"})]
    r1 = [(0, {"do": "bid", "amount": 3}), (1, {"do": "bid", "amount": 10}), (2, {"do": "bid", "amount": 8}),
          (3, {"do": "bid", "amount": 2})]
    beats, st2, _, _ = beats_between(st, prior, r1, seat=2)
    assert [b.caption for b in beats] == ["Open auction, raise round 1: seat 1 leads with 10"]
    assert "seat 0: 3  seat 1: 10  you: 8  seat 3: 2" in beat_text(beats[0])
    r2 = [(0, {"do": "pass"}), (2, {"do": "pass"}), (3, {"do": "pass"})]
    beats, st3, _, _ = beats_between(st2, prior + [(1 + i, s, a) for i, (s, a) in enumerate(r1)], r2, seat=2)
    assert [b.caption for b in beats] == ["Open auction, raise round 2: nobody raises - going once...",
                                          "... going twice ...", "SOLD: seat 1 buys MeO for 10, paid to seat 0"]
    assert "seat 0: pass  seat 1: -  you: pass  seat 3: pass" in beat_text(beats[0])
    assert "standing bid 10 by seat 1" in beat_text(beats[1])


def test_beats_for_a_fixed_price_sale_and_a_free_double():
    st = act(play(start(), 0, cid(CA, "fixed_price")), 0, {"do": "price", "amount": 20})
    beats, after, _, _ = beats_between(st, [(0, 0, {}), (1, 0, {})], [(1, {"do": "pass"}), (2, {"do": "buy"})], seat=2)
    assert [b.caption for b in beats] == ["SOLD: you buy CaF for 20, paid to seat 0"]
    assert "CaF   fixed-price auction by seat 0" in beat_text(beats[0])
    st = play(start(), 0, cid(ME, "double"))
    beats, after, _, _ = beats_between(st, [(0, 0, {})], [(1, {"do": "pass"}), (2, {"do": "pass"}), (3, {"do": "pass"})])
    assert [b.caption for b in beats] == ["you take MeD free (nobody added a second card)"]


def test_beats_at_a_round_end_rank_and_pay():
    # Melim cards 1-4 sold, the 5th (a double's first card) ends the round at once
    st = start()
    moves: list = []

    def step(seat, action):
        nonlocal st
        st = act(st, seat, action)
        moves.append((len(moves), seat, action))

    for card in [cid(ME, "sealed"), cid(ME, "open"), cid(ME, "fixed_price")]:
        assert st.actor == 0
        step(0, {"do": "play", "pos": pos(card), "card": card, "double": None})
        while st.phase in ("sealed", "open"):
            for s in list(rules.turn(st).seats):
                step(s, {"do": "bid", "amount": 5 + s} if st.phase == "sealed" else {"do": "pass"})
        if st.phase == "price":
            step(0, {"do": "price", "amount": 10})
        while st.phase == "fixed_price":
            step(st.actor, {"do": "buy"})
        while st.actor != 0:                         # the others time out (lose their turns) until seat 0 again
            seat = st.actor
            st = rules.apply_unchecked(st, seat, rules.default_action(st, seat))
            moves.append((len(moves), seat, {"do": "skip"}))
    # seat 0 plays its Melim double (the 4th); seat 1 adds the 5th: the round ends, both unsold
    assert st.played[ME] == 3 and st.actor == 0
    before_st, before_moves = st, list(moves)
    med = cid(ME, "double")
    beats, after, _, _ = beats_between(before_st, before_moves,
                                       [(0, {"do": "play", "pos": pos(med), "card": med, "double": None})], seat=0)
    assert after.phase == "double" and beats == []
    beats, after, _, _ = beats_between(after, before_moves + [(len(before_moves), 0, {})],
                                       [(1, {"do": "add", "pos": pos(cid(ME, "fixed_price", 1)),
                                             "card": cid(ME, "fixed_price", 1)})], seat=0)
    assert len(after.rounds) == 1 and after.round == 2
    caps = [b.caption for b in beats]
    assert caps == ["Round 1 ends: seat 1 played the 5th Daniel Melim card as the second card of a double",
                    "Round 1 ranking: the top three get 30, 20 and 10",
                    "Round 1 payouts: the bank buys every painting bought this round"]
    assert "cards played:   Me  5" in beat_text(beats[0]) and "not auctioned:  MeD + MeF" in beat_text(beats[0])
    assert "1.  Me  Daniel Melim gets the 30 tile: a painting is worth 30" in beat_text(beats[1])
    pay = beat_text(beats[2])
    r = after.rounds[0]
    for s in range(4):
        assert re.search(r"%s\s+\+%d" % (re.escape("seat %d%s" % (s, " (you)" if s == 0 else "")), r[4][s]), pay)
    assert beats[2].hold == 2
    # the replay marks: a sale or a round end
    sc = ModernArtScreen()
    assert sc.is_mark(snap_for(before_st, 0), snap_for(after, 0))
    assert not sc.is_mark(snap_for(before_st, 0), snap_for(before_st, 0))


# --------------------------------------------------------------------------- the full screen


async def _full_screen(st: rules.State, seat: int, rows: int, cols: int, lines_in: list[str], names: tuple = ()):
    """The real GameUI on a pipe: our decision open on ``st``; type ``lines_in``; the screen and what was sent.
    ``names``: the seats' names as the genesis gives them (core.events.seat_names)."""
    snap = replace(snap_for(st, seat), names=tuple(names))
    with create_pipe_input() as inp:
        out = Vt100_Output(io.StringIO(), lambda: Size(rows=rows, columns=cols), term="xterm")
        ui = GameUI(seat, input=inp, output=out, screen=ModernArtScreen(), send_at_once=True)  # these tests are about the moves, not the draft
        ui._snap = snap
        from cli.composer import Asked
        pending = Asked(seat=seat, view=snap.view, game=OFFLINE, state=st, phase=snap.phase)
        ui.composer.asked = pending
        ui.outbox.listen()          # this trio loop takes what is sent (the node's, in a game)
        said = ui.screen.on_decision(ui._ctx())
        ui._say(said.text, said.style)
        shots = []
        async with running(ui):
            await until(lambda: len(_screen(ui, rows, cols)) == rows and "YOUR MOVE" in "\n".join(_screen(ui, rows, cols)))
            shots.append(_screen(ui, rows, cols))
            for line in lines_in:
                inp.send_text(line + ENTER)
                # the line taken (in the history: after its command ran), then what it said on the screen
                await until(lambda: line in ui._buffer.history.get_strings())
                said = "".join(t for _, t in ui._pane_message(cols - 1)).split("\n")[0][:30]
                await until(lambda: said in "\n".join(_screen(ui, rows, cols)))
                shots.append(_screen(ui, rows, cols))
            ui.exit()
        return shots, ui.composer.sent


@pytest.mark.parametrize("rows,cols", [(30, 100), (50, 160)])
async def test_full_screen_keeps_every_part_on_screen(rows, cols):
    st = play(start(), 0, cid(ME, "open"))
    st = act(act(act(act(st, 0, {"do": "bid", "amount": 6}), 1, {"do": "bid", "amount": 10}), 2, {"do": "bid", "amount": 4}),
             3, {"do": "bid", "amount": 5})
    with trio.fail_after(LIMIT):
        shots, sent = await _full_screen(st, 2, rows, cols, ["bid 500", "bid 12"])
    lines = shots[0]
    assert lines[0].startswith(" Easel - Modern Art") and "round 1/4: open auction, raise round 2" in lines[0]
    assert lines[1].startswith(" ROUND 1/4 ") and "Seats" in lines[1]
    assert "money hand" in lines[2] and "bought" in lines[2]
    for a in range(5):
        assert any(ARTISTS[a] in l for l in lines[3:8]), a
    assert any(l.startswith("your money: 100") for l in lines[2:10])
    for s in range(4):
        row = next(l for l in lines[2:9] if re.search(r"[> ] seat %d\b" % s, l))
        assert (" 100 " in row) == (s == 2), row                     # only our own money
    middle = "\n".join(lines)
    assert "Auction   MeO   open auction  by seat 0" in middle and "Standing bid: 10 by seat 1" in middle
    assert "Your hand 9 cards" in middle
    assert any("YOUR MOVE (open auction round 2: bid above 10 or pass)" in l for l in lines)
    assert lines[rows - 1].startswith("bid N | bid +N | bid all | upto N | pass")
    if cols >= 160:
        assert "Round 1 so far" in middle
        assert any("Auction" in l and "Your hand" in l for l in lines)      # side by side
    bad = "\n".join(shots[1])
    assert "you have only 100; you cannot bid 500 - nothing sent" in bad
    assert sent.action == {"do": "bid", "amount": 12}


def test_the_title_and_board_show_how_far_the_deal_is():
    """While the deal runs (automatic steps, nobody decides) the screen says which step, so a
    person sees it move: the keys, each seat's shuffle in turn, then the dealing."""
    from core.games.modern_art import dealt
    secrets = [bytes([s + 1]) * 64 for s in range(3)]
    st = GAME.setup(GAME.configure({}, 3), 3, SEED)
    seen = []
    sc = ModernArtScreen()
    while st.stage in ("keys", "shuffle", "deal"):
        v = GAME.view(st, 0, secrets[0])
        title = sc.title_parts(Context(seat=0, view=v, game=GAME, state=st))
        seen.append(title[0])
        assert title[0].split(": ", 1)[1] in text_of(sc.board_lines(Context(seat=0, view=v, game=GAME, state=st)))
        seat = GAME.turn(st).seats[0]
        st = GAME.apply(st, seat, GAME.check(st, seat, dealt.auto_action(st, seat, secrets[seat])))
    assert seen[0] == "round 1/4: deal: keys"
    assert "round 1/4: deal: shuffle 1/3 (seat 0)" in seen
    # the last shuffle's step stays shown while every peer checks the proofs: it says so
    assert "round 1/4: deal: shuffle 3/3, then proofs" in seen
    assert seen[-1].startswith("round 1/4: deal: dealing (positions 0-")


# --------------------------------------------------------------------------- names and words (issue 19)


def _names(*given: str) -> tuple:
    """The seats' names as the shell gets them from a genesis with ``names`` (two equal names told apart)."""
    from core.events import seat_names

    from .helpers import seat_keys

    return seat_names({"seats": [bytes(k.verify_key) for k in seat_keys(len(given))], "names": list(given)})


@pytest.mark.parametrize("rows,cols", [(30, 100), (50, 160)])
async def test_with_names_in_the_genesis_the_middle_pane_says_names_not_seat_numbers(rows, cols):
    st = play(start(), 0, cid(ME, "open"))
    st = act(act(act(act(st, 0, {"do": "bid", "amount": 6}), 1, {"do": "bid", "amount": 10}), 2, {"do": "bid", "amount": 4}),
             3, {"do": "bid", "amount": 5})
    names = _names("Ann", "Bo", "Zoe", "Ann")
    assert names[0].startswith("Ann #") and names[3].startswith("Ann #") and names[0] != names[3]
    with trio.fail_after(LIMIT):
        shots, _ = await _full_screen(st, 2, rows, cols, [], names=names)
    lines = shots[0]
    text = "\n".join(lines)
    assert "you are Zoe (seat 2)" in lines[0]
    assert "Auction   MeO   open auction  by %s" % names[0] in text
    assert "Standing bid: 10 by Bo" in text
    assert "Raise or pass now: %s, you, %s" % (names[0], names[3]) in text
    assert "standing bid 10 by Bo" in text                         # the prompt under the panes too
    assert not re.search(r"\b[Ss]eat [0-9]\b", text.replace("(seat 2)", "")), text
    if cols >= 160:                                                # the round so far: names in an even column
        rows_ = [l for l in lines if re.search(r"  (Ann #\S+|Bo|Zoe \(you\))\s+hand", l)]
        assert len(rows_) == 4 and len({l.index(" hand ") for l in rows_}) == 1, rows_


def test_without_names_the_middle_pane_keeps_seat_numbers_and_round_columns_take_long_names():
    from cli.screens.modern_art import result_lines, round_lines

    st = play(start(), 0, cid(ME, "open"))
    v = rules.view(st, 1, rules.known_for(st, 1, DEAL))
    plain = text_of(round_lines(v, 1, 100))
    assert "  seat 0        hand" in plain and "  seat 1 (you)  hand" in plain
    long = _names("Maximilian Longname", "Bo", "Cy", "Di")
    named = text_of(round_lines(v, 1, 100, long)).splitlines()[1:]
    assert named[0].startswith("  Maximilian Longname hand") and len({l.index(" hand ") for l in named}) == 1
    res = {"ranking": [2, 0, 1, 3], "money": [90, 80, 120, 70], "places": [2, 3, 1, 4], "winners": [2]}
    over = text_of(result_lines(res, 1, 100, long)).splitlines()[1:]
    assert over[0].startswith("  1. Cy ") and over[0].endswith("120 money   winner")
    assert len({l.index(" money") for l in over}) == 1


def test_the_deal_log_lines_read_for_you_and_for_others_and_sales_reach_the_log():
    from core.games.modern_art import dealt

    sc = ModernArtScreen()
    secrets = [bytes([s + 1]) * 64 for s in range(3)]
    st = GAME.setup(GAME.configure({}, 3), 3, SEED)
    said = []
    for _ in range(200):
        if st.stage not in ("keys", "shuffle", "deal", "check"):
            break
        seat = GAME.turn(st).seats[0]
        action = GAME.check(st, seat, dealt.auto_action(st, seat, secrets[seat]))
        said.append(sc.describe(GAME, st, seat, action))
        st = GAME.apply(st, seat, action)
    assert "seat 0 publishes a deal key" in said
    assert "seat 1 masks and shuffles the deck, with a proof" in said
    assert "seat 2 checks the new cards: all in order" in said
    assert not any(" its " in t for t in said), said
    # a sale, which no move names, is in the log (the reveal that shows it may be skipped)
    before = rules.view(start(), None)
    st = play(start(), 0, cid(ME, "sealed"))
    for s in range(4):
        st = act(st, s, {"do": "bid", "amount": 10 if s == 1 else 0})
    assert sc.happenings(before, rules.view(st, None)) == ["SOLD: seat 1 buys MeS for 10, paid to seat 0"]
    assert sc.happenings(rules.view(st, None), rules.view(st, None)) == []


def test_a_time_out_says_only_what_it_does_in_the_step_that_timed_out():
    sc = ModernArtScreen()
    st = play(start(), 0, cid(ME, "sealed"))
    label = rules.turn(st).label
    assert sc.timeout_effect_for(label) == "no bid"
    assert sc.timeout_effect_for(rules.turn(start()).label) == "the turn to auction is lost"
    st = play(start(), 0, cid(ME, "open"))
    assert sc.timeout_effect_for(rules.turn(st).label) == "a pass: out of this auction"
    st = play(start(), 0, cid(CA, "fixed_price"))
    assert sc.timeout_effect_for(rules.turn(st).label) == "the price is the lowest, 1"
    st = act(st, 0, {"do": "price", "amount": 20})
    assert sc.timeout_effect_for(rules.turn(st).label) == "a pass: no purchase"
    st = play(start(), 0, cid(ME, "double"))
    assert sc.timeout_effect_for(rules.turn(st).label) == "a pass: nothing added to the double"
    # the whole list only where the step is unknown; a step the screen does not know gets no list either
    assert sc.timeout_effect_for("") == sc.timeout_effect
    assert sc.timeout_effect_for("the deal: keys") == "the rules' default for that step"


def test_the_log_says_a_fifth_card_ends_the_round_instead_of_auctioning_it():
    """Rules (modern-art-implementation-plan.md): "5th card | Ends round, counts for ranking, not
    auctioned"; "Double 5th | As first: immediate end. As second: both unsold". The log said
    "auctions" for it."""

    def with_played(st, played):
        v = rules.view(st, None)
        v["played"] = list(played)
        return rules.state_from_view(v)

    sc = ModernArtScreen()
    st = start()
    med = cid(ME, "double")
    assert sc.describe(OFFLINE, st, 0, {"do": "play", "pos": pos(med), "card": med, "double": None}) == \
        "seat 0 auctions Daniel Melim double (MeD)"
    four = with_played(st, (0, 0, 4, 0, 0))
    assert sc.describe(OFFLINE, four, 0, {"do": "play", "pos": pos(med), "card": med, "double": None}) == \
        "seat 0 plays Daniel Melim double (MeD), the 5th Daniel Melim card: the round ends, nothing is auctioned"
    mes = cid(ME, "sealed")
    three = with_played(st, (0, 0, 3, 0, 0))
    said = sc.describe(OFFLINE, three, 0, {"do": "play", "pos": pos(med), "card": med, "double": {"pos": pos(mes), "card": mes}})
    assert said.startswith("seat 0 plays Daniel Melim double (MeD) and Daniel Melim sealed (MeS), the 5th Daniel Melim card")


# --------------------------------------------------------------------------- the words of an open auction (issue 23)


def test_an_open_auction_says_who_passed_and_who_is_still_to_answer():
    """Seen on the LAN: a player who passed with 102 money read "not asked this round (you cannot bid
    higher)"; after its answer went out the screen still listed "Raise or pass now: you"."""
    from cli.screens.modern_art import auction_lines

    sc = ModernArtScreen()
    st = with_money(play(start(), 0, cid(ME, "open")), (100, 100, 102, 100))
    st = act(act(act(act(st, 0, {"do": "bid", "amount": 6}), 1, {"do": "bid", "amount": 10}), 2, {"do": "pass"}),
             3, {"do": "bid", "amount": 5})
    v = rules.view(st, 2, rules.known_for(st, 2, DEAL))
    asked = v["auction"]["asked"]
    assert 2 not in asked and 2 in v["auction"]["out"]
    text = text_of(auction_lines(v, 2, 100))
    assert "You: 102 money - you passed: out of this auction" in text and "not asked" not in text
    # the round's answers as the table has them: seat 0 answered, seat 3 not yet
    assert asked == [0, 3]
    text = text_of(auction_lines(rules.view(st, 0, rules.known_for(st, 0, DEAL)), 0, 100, waiting=(3,)))
    assert "Raise or pass now: seat 3 (answered: you)" in text
    ctx = ctx_for(st, 0, deciding=False)
    ctx = replace(ctx, snap=replace(ctx.snap, missing=(3,), step_kind="commit"))
    assert "Raise or pass now: seat 3 (answered: you)" in text_of(sc.middle_lines(ctx, 100))
    ctx = replace(ctx, snap=replace(ctx.snap, missing=(0, 3), step_kind="reveal"))   # every answer is in
    assert "Raise or pass now: nobody (answered: you, seat 3)" in text_of(sc.middle_lines(ctx, 100))


def test_a_standing_order_that_passes_says_the_ceiling_was_reached_once():
    """Seen on the LAN: after upto 15 the screen said both "Sent: passes" and "Sent: you pass (standing
    order: ... raised for you each round ...)"."""
    sc = ModernArtScreen()
    st = play(start(), 0, cid(ME, "open"))
    assert run(sc, ctx_for(st, 2), "upto 15") == Send({"do": "bid", "amount": 8})
    st = act(act(act(act(st, 0, {"do": "bid", "amount": 16}), 1, {"do": "pass"}), 2, {"do": "bid", "amount": 8}),
             3, {"do": "pass"})
    ctx = ctx_for(st, 2)
    assert sc.standing(ctx) == Send({"do": "pass"})
    said = sc.on_sent(ctx, {"do": "pass"}, "seat 2 passes").text
    assert said == "Sent: you pass - the standing bid reached your ceiling (up to 15): you are out of this auction"
    sent = shell.Sent(5, {"do": "pass"}, "seat 2 passes")
    after = replace(ctx_for(st, 2, deciding=False, sent=sent))
    after = replace(after, snap=replace(after.snap, missing=(0,)))
    drafted = "".join(t for _, t in sc.draft_line(after))
    assert drafted == "Your move is in - waiting for seat 0." and "pass" not in drafted
