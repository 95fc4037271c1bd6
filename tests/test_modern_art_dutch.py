"""A sixth auction type from a test: a Dutch auction (the price falls until a seat buys).

Issue 25: "a new auction type = auctions.py + RULES.md".  This module is that claim's proof: it
writes the type's record here (what auctions.py would hold: how it starts, its two steps with their
kinds and words), registers it with the cards that carry it (``auctions.register``: the fixed-price
cards of three artists become Dutch), and plays it with every bot level and through the screen (the
screen tests' harness), with no product code naming it.  Unregistered, the printed deck is back
(the standard game's bytes: tests/test_same_bytes.py).

The Dutch auction here: the auctioneer names a starting price (0 to 200, a ``price`` step); from its
left each seat that can pay is offered the painting at the price (a ``buy`` step) and the first to
buy takes it, paid to the auctioneer; when every seat has passed the price falls by a quarter of the
starting price (at least 1) and the offer goes round again; once it would fall below 1 the
auctioneer takes it free.

Issue 32: "a new kind of decision on the screen (a Dutch auction's 'take it at this price') is one
record plus one screen file".  The last part of this module writes that kind here (``TAKE``, an
``auctions.Kind`` record like ``buy``: the view shows the price, a bot's buy is sent as "take", a
person types "take"), puts it on the Dutch auction's falling step, and plays it with the rules, the
warnings, every bot level and the screen, with no product file naming it (it needs no screen file:
it is drawn like a buy).
"""

from __future__ import annotations

import hashlib
from typing import Mapping

import pytest

from cli.screens import CommandError, Send
from cli.screens.modern_art import ModernArtScreen, action_words, hand_order, reveal_beats
from core import games as registry
from core.engine import IllegalAction
from core.games.modern_art import auctions, bots, cards, rules, warnings
from core.games.modern_art.auctions import BUY, PRICE, Auction, Said, Step, Words
from core.games.modern_art.game import OFFLINE
from core.rng import Rng
from core.table import Table

from .netutil import Sim
from .test_modern_art_screen import CA, ME, SI, act, cid, ctx_for, play, pos, run, snap_for, start, text_of, with_money

START_MAX = 200


def _who(seat: int) -> str:
    return "seat %d" % seat


def _start(w) -> None:
    w.phase = "dutch_start"
    w.actor = w.auctioneer


def _start_check(state, seat: int, action: dict, money: int) -> dict:
    if action.get("do") != "price":
        raise IllegalAction("name the starting price: {\"do\": \"price\", \"amount\": n}")
    rules._keys(action, ("do", "amount"), "price")
    amount = rules._amount(action.get("amount"))
    if not 0 <= amount <= START_MAX:
        raise IllegalAction("the starting price is from 0 to %d, not %d" % (START_MAX, amount))
    return {"do": "price", "amount": amount}


def _start_apply(w, seat: int, a: Mapping) -> None:
    n = w.players
    w.price = w.high = a["amount"]          # high keeps the starting price: each fall is a quarter of it
    w.phase = "dutch"
    w.order = tuple((w.auctioneer + k) % n for k in range(1, n))
    w.idx = -1
    w.last = "%s starts the price at %d" % (_who(seat), w.price)
    _offer(w)


def _offer(w) -> None:
    """The next seat in order that can pay; past the last one the price falls and the offer goes round
    again; below 1 the auctioneer takes it free."""
    while True:
        i = w.idx + 1
        while i < len(w.order) and w.money[w.order[i]] < w.price:
            i += 1
        if i < len(w.order):
            w.idx, w.actor = i, w.order[i]
            return
        w.price -= max(1, w.high // 4)
        if w.price < 1:
            rules._sold(w, -1, 0)
            return
        w.idx = -1
        w.last = "nobody buys: the price falls to %d" % w.price


def _dutch_apply(w, seat: int, a: Mapping) -> None:
    if a["do"] == "buy":
        rules._sold(w, seat, w.price)
    else:
        _offer(w)


DUTCH = Auction(
    key="dutch", name="Dutch auction", symbol="U", word="Dutch", aliases=("u", "dutch"),
    rule="the auctioneer names a starting price (0 to 200); from its left each seat buys at the price or "
         "passes; when all pass the price falls by a quarter of the start and the offer goes round again; "
         "below 1 the auctioneer takes it free.",
    prefer=1, start=_start,
    steps=(Step("dutch_start", PRICE, False, _start_check, _start_apply, lambda s, seat: {"do": "price", "amount": 1},
                lambda s, seat: [{"do": "price", "amount": x} for x in rules._amounts(0, START_MAX)],
                lambda s: "%s names a starting price" % _who(s.actor),
                Words(keys=("price N (the starting price, 0 to 200)", "price N"),
                      prompt=("Starting price: ", "price N", " (0 to 200; it falls until someone buys)"),
                      asks="name the starting price",
                      tells="Name the starting price for {lot}: price N (0 to 200). It falls until someone buys.",
                      doing=("you name a starting price", "{actor} names a starting price"), hint="price N",
                      about=("  You name the starting price: price N; it falls until someone buys.",
                             "  {Auctioneer} names the starting price"),
                      refused="name the starting price first: price N",
                      timeout=("starting price", "the starting price is 1"),
                      said={"price": Said("your starting price: {amount}", "starts the price at {amount}")})),
           Step("dutch", BUY, False, auctions._buy_check, _dutch_apply, auctions._pass, auctions._buy_legal,
                lambda s: "%s is offered it at %d, falling" % (_who(s.actor), s.price),
                Words(keys=("buy | pass (the price falls when all pass)", "buy | pass"),
                      prompt=("Falling price {price}: ", "buy | pass", " (you have {money})"),
                      asks="buy at {price} or let it fall",
                      tells="{Auctioneer} offers {lot} at {price}, falling: buy or pass (you have {money}).",
                      doing=("you may buy as it falls", "{actor} may take it as it falls"), hint="buy or pass",
                      about=(" - the first to buy takes it, paid to {auctioneer}; when all pass, the price falls",) * 2,
                      turns="Offered in turn: ", refused="buy or pass",
                      timeout=("falling", "a pass: the price may fall"),
                      cannot="You cannot buy at the falling price {price}: you have {money} money.",
                      said={"pass": Said("you pass", "passes"),
                            "buy": Said("you buy for {price}", "buys at the falling price {price}", "you buy",
                                        key="price")}))),
)

# the fixed-price cards of Carvalho, Melim and Silveira carry the Dutch auction
DUTCH_CARDS = [c.id for c in cards.CARDS if c.type == "fixed_price" and c.artist in (CA, ME, SI)]


@pytest.fixture
def dutch():
    with auctions.registered(DUTCH, DUTCH_CARDS):
        yield DUTCH


# --------------------------------------------------------------------------- the bots


@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_bot_level_plays_whole_games_with_dutch_auctions(dutch, players):
    levels = [bots.RandomBot, bots.EasyBot, bots.MediumBot, bots.HardBot]
    dutch_sales = []
    for k in range(2):
        seed = hashlib.sha256(b"dutch %d %d" % (players, k)).digest()
        seats = [levels[(i + k) % len(levels)]() for i in range(players)]
        st, res = bots.play_game({}, players, seed, seats)
        assert st.phase == "over" and res["rounds"] == 4
        sales = [x for r in st.rounds for x in r[9]]
        dutch_sales += [x for x in sales if x[4] == "dutch"]
        assert {x[4] for x in sales} <= set(auctions.AUCTIONS)
    assert dutch_sales, "no Dutch auction in six games"
    for cards_up, auct, winner, price, _ in dutch_sales:
        assert cards.type_of(cards_up[-1]) == "dutch" and 0 <= price <= START_MAX
        assert winner != auct or price == 0           # the auctioneer only ever takes it free


def test_the_rules_run_the_falling_price_through_the_record(dutch):
    st = play(start(), 0, cid(CA, "fixed_price"))            # a Dutch card now
    assert st.phase == "dutch_start" and st.actor == 0 and st.atype == "dutch"
    assert rules.turn(st).label == "round 1: seat 0 names a starting price"
    assert rules.default_action(st, 0) == {"do": "price", "amount": 1}
    with pytest.raises(IllegalAction, match="from 0 to 200"):
        rules.check(st, 0, {"do": "price", "amount": 201})
    st = act(st, 0, {"do": "price", "amount": 40})
    assert st.phase == "dutch" and st.actor == 1 and st.price == 40
    v = rules.view(st, 1)
    assert v["auction"]["price"] == 40 and v["auction"]["type"] == "dutch"      # a buy step shows its price
    assert rules.describe(st, 1, {"do": "buy"}) == "seat 1 buys at the falling price 40"
    for seat in (1, 2, 3):
        st = act(st, seat, {"do": "pass"})
    assert st.phase == "dutch" and st.price == 30 and st.actor == 1 and "falls to 30" in st.last
    st = act(st, 1, {"do": "buy"})
    assert st.phase == "play" and st.money[1] == 70 and st.money[0] == 130
    assert st.sales[-1] == ((cid(CA, "fixed_price"),), 0, 1, 30, "dutch")


def test_the_warnings_say_a_falling_price_a_seat_cannot_pay(dutch):
    st = with_money(play(start(), 0, cid(CA, "fixed_price")), (100, 100, 20, 100))
    st = act(st, 0, {"do": "price", "amount": 40})
    assert st.actor == 1 and st.order == (1, 2, 3)     # seat 2 cannot pay: it is passed over while the price is 40
    assert warnings.warnings(rules.view(st, 2), 2) == ["You cannot buy at the falling price 40: you have 20 money."]
    assert warnings.warnings(rules.view(st, 3), 3) == []


@pytest.mark.parametrize("silent", [False, True])
def test_a_table_deals_and_plays_dutch_auctions_and_its_log_replays(dutch, silent):
    """At the table (the trustless deal, commits, time-outs) on the in-memory network: every peer ends
    with the same log, which replays to the end with Dutch auctions among its sales; also with a seat
    that never decides (its time-outs take each step's default)."""
    sim = Sim(4, seed=0, game="modern-art", level="easy", tag="dutch", timeout=5.0 if silent else 600.0)
    if silent:
        sim.silent.add(1)
    sim.start()
    sim.run_until(max_rounds=400_000, wall=120.0)
    logs = {tuple(p.log_entries) for p in sim.peers}
    assert len(logs) == 1
    t = Table.start(sim.peers[0].log_entries[0], registry)
    for raw in sim.peers[0].log_entries[1:]:
        t.append(raw)
    assert t.over
    types = [x["type"] for r in t.view(None)["rounds"] for x in r["sales"]]
    assert "dutch" in types and set(types) <= set(auctions.AUCTIONS)


# --------------------------------------------------------------------------- the screen


def test_a_dutch_auction_plays_through_the_screen(dutch):
    sc = ModernArtScreen()
    st = start()
    ctx = ctx_for(st, 0)
    card = cid(CA, "fixed_price")                                        # a Dutch card now
    assert card in [c["id"] for c in hand_order(ctx.view["cards"])]
    text = text_of(sc.middle_lines(ctx, 100))
    assert "U Dutch" in text and " CaU  Dutch" in text                   # the legend and the hand know the type
    sent = run(sc, ctx, "play CaU")                                      # its short name: artist + its symbol
    assert sent == Send({"do": "play", "pos": pos(card), "card": card, "double": None})
    assert run(sc, ctx, "play carvalho dutch") == sent
    moves = []
    before = snap_for(st, 1)
    st = act(st, 0, sent.action)
    moves.append((0, 0, sent.action))

    # the auctioneer names the starting price: its step's words, its kind's pane
    ctx = ctx_for(st, 0)
    assert sc.decision_label(ctx) == "name the starting price"
    assert sc.key_help(ctx)[0] == "price N (the starting price, 0 to 200) | help | PgUp/PgDn scroll | q quit"
    assert "".join(t for _, t in sc.draft_line(ctx)) == "Starting price: price N (0 to 200; it falls until someone buys)"
    assert sc.on_decision(ctx).text.startswith("Name the starting price for CaU (Manuel Carvalho, Dutch)")
    text = text_of(sc.middle_lines(ctx, 100))
    assert "Dutch auction" in text and "You name the starting price: price N" in text
    assert "Seat 0 names the starting price" in text_of(sc.middle_lines(ctx_for(st, 1), 100))
    assert sc.title_parts(ctx_for(st, 1)) == ["round 1/4: seat 0 names a starting price"]
    with pytest.raises(CommandError, match="name the starting price first: price N"):
        run(sc, ctx, "buy")
    with pytest.raises(CommandError, match="from 0 to 200"):
        run(sc, ctx, "price 300")
    sent = run(sc, ctx, "price 40")
    assert sent == Send({"do": "price", "amount": 40})
    assert sc.on_sent(ctx, sent.action, "").text == "Sent: your starting price: 40"
    assert sc.describe(OFFLINE, st, 0, sent.action) == "seat 0 starts the price at 40"
    st = act(st, 0, sent.action)
    moves.append((1, 0, sent.action))

    # the offer goes round; everyone passes once, the price falls, seat 1 buys
    for seat in (1, 2, 3):
        ctx = ctx_for(st, seat)
        assert sc.decision_label(ctx) == "buy at 40 or let it fall"
        assert "".join(t for _, t in sc.draft_line(ctx)) == "Falling price 40: buy | pass (you have 100)"
        assert run(sc, ctx, "pass") == Send({"do": "pass"})
        st = act(st, seat, {"do": "pass"})
        moves.append((len(moves), seat, {"do": "pass"}))
    ctx = ctx_for(st, 1)
    assert sc.decision_label(ctx) == "buy at 30 or let it fall"
    text = text_of(sc.middle_lines(ctx, 100))
    assert "Price 30 - the first to buy takes it, paid to seat 0; when all pass, the price falls" in text
    assert "Offered in turn: you (now) > seat 2 > seat 3" in text and "You: 100 money - you can pay it" in text
    assert sc.title_parts(ctx_for(st, 2)) == ["round 1/4: seat 1 may take it as it falls"]
    assert sc.timeout_effect_for(rules.turn(st).label) == "a pass: the price may fall"
    sent = run(sc, ctx, "buy")
    assert sent == Send({"do": "buy"})
    assert action_words(sent.action, ctx.view) == "you buy for 30"
    assert sc.describe(OFFLINE, st, 1, sent.action) == "seat 1 buys at the falling price 30"
    st = act(st, 1, sent.action)
    moves.append((len(moves), 1, sent.action))

    # the reveal tells the sale; the round's pane lists it
    after = snap_for(st, 1, moves=moves)
    beats = reveal_beats(after, before, 1)
    assert [b.caption for b in beats] == ["SOLD: you buy CaU for 30, paid to seat 0"]
    assert "Dutch auction by seat 0" in text_of(beats[0].middle)
    assert "CaU  30" in text_of(sc.middle_lines(ctx_for(st, 1), 100))      # this round's purchases


def test_dutch_auctions_render_within_every_width_in_bot_games(dutch):
    """Every step of a bot game with Dutch auctions, at three widths, for every seat and a spectator."""
    players = 4
    seed = hashlib.sha256(b"dutch screen").digest()
    deal = rules.deal_open(seed)
    st = rules.setup({}, players, seed)
    players_bots = [bots.EasyBot() for _ in range(players)]
    sc = ModernArtScreen()
    seen = set()
    for k in range(2000):
        t = rules.turn(st)
        if t.kind == "over":
            break
        seen.add(st.phase)
        for seat in list(range(players)) + [None]:
            ctx = ctx_for(st, seat, deciding=seat in t.seats, deal=deal)
            for width in (60, 100, 160):
                for line in sc.middle_lines(ctx, width):
                    assert sum(len(x) for _, x in line) <= width
            sc.board_lines(ctx), sc.title_parts(ctx), sc.draft_line(ctx), sc.key_help(ctx)
            if seat in t.seats:
                assert sc.decision_label(ctx) and sc.on_decision(ctx) is not None
        actions = [(s, rules.check_open(st, s, players_bots[s].choose(
            rules.view(st, s, rules.known_for(st, s, deal)), s, Rng(seed, "dutch/%d/%d" % (s, k))), deal))
            for s in t.seats]
        for s, a in actions:
            st = rules.apply(st, s, a)
    assert st.phase == "over" and {"dutch_start", "dutch"} <= seen


# --------------------------------------------------------------------------- registering


def test_registering_wants_new_names_and_unregistering_brings_the_printed_deck_back():
    printed = cards.CARDS
    with auctions.registered(DUTCH, DUTCH_CARDS):
        assert cards.type_of(DUTCH_CARDS[0]) == "dutch" and cards.CARDS[DUTCH_CARDS[0]].type == "dutch"
        assert cards.card_name(DUTCH_CARDS[0]) == "Manuel Carvalho (Dutch auction, card %d)" % DUTCH_CARDS[0]
        assert auctions.kind_of("dutch") == BUY and auctions.by_word("U") == "dutch"
        with pytest.raises(ValueError, match="registered already"):
            auctions.register(DUTCH)
    with pytest.raises(ValueError, match="must be new"):
        auctions.register(Auction(**dict(DUTCH.__dict__, key="dutch2", steps=auctions.AUCTIONS["open"].steps)))
    with pytest.raises(ValueError, match="card ids"):
        auctions.register(DUTCH, [70])
    with pytest.raises(ValueError, match="not a registered"):
        auctions.unregister("open")
    assert cards.CARDS == printed and cards.type_of(DUTCH_CARDS[0]) == "fixed_price"
    assert list(auctions.AUCTIONS) == list(cards.TYPES) and set(auctions.STEPS) == set(rules.PHASES) - {"play", "over"}
    assert "dutch" not in cards.TYPE_NAMES


# --------------------------------------------------------------------------- a new kind of decision


def _take_parse(args: list, view: Mapping) -> dict:
    if args:
        raise ValueError("take takes no arguments (it takes the painting at the price shown)")
    return {"do": "take"}


# "take it at this price": a kind of decision no product file names.  Its record says all the rules, the
# bots, the warnings and the screen ask of it: it is answered, warned and drawn like ``buy``, the view shows
# the price, a bot's "buy" is sent as "take", and a person types "take".
TAKE = auctions.Kind("take", like=BUY, shows=("price",), answers={"buy": "take"}, verbs={"take": _take_parse})


def _take_check(state, seat: int, action: dict, money: int) -> dict:
    if action.get("do") == "pass":
        rules._keys(action, ("do",), "pass")
        return {"do": "pass"}
    if action.get("do") != "take":
        raise IllegalAction("take it at %d or pass" % state.price)
    rules._keys(action, ("do",), "take")
    if money < state.price:
        raise IllegalAction("you have only %d; you cannot take it at %d" % (money, state.price))
    return {"do": "take"}


def _take_apply(w, seat: int, a: Mapping) -> None:
    if a["do"] == "take":
        rules._sold(w, seat, w.price)
    else:
        _offer(w)


TAKE_STEP = Step("dutch", TAKE, False, _take_check, _take_apply, auctions._pass,
                 lambda s, seat: [{"do": "pass"}] + ([{"do": "take"}] if s.money[seat] >= s.price else []),
                 lambda s: "%s may take it at %d" % (_who(s.actor), s.price),
                 Words(keys=("take | pass (the price falls when all pass)", "take | pass"),
                       prompt=("Take it at {price}: ", "take | pass", " (you have {money})"),
                       asks="take it at {price} or let it fall",
                       tells="{Auctioneer} offers {lot} at {price}: take it or pass (you have {money}).",
                       doing=("you may take it", "{actor} may take it"), hint="take or pass",
                       about=(" - the first to take it pays {auctioneer}; when all pass, the price falls",) * 2,
                       turns="Offered in turn: ", refused="take or pass",
                       timeout=("may take it", "a pass: the price may fall"),
                       cannot="You cannot take it at {price}: you have {money} money.",
                       said={"pass": Said("you pass", "passes"),
                             "take": Said("you take it at {price}", "takes it at {price}", key="price")}))
TAKE_IT = Auction(**dict(DUTCH.__dict__, steps=(DUTCH.steps[0], TAKE_STEP)))


@pytest.fixture
def take_it():
    with auctions.registered(TAKE_IT, DUTCH_CARDS):
        yield TAKE_IT


def test_a_new_kind_is_its_record_the_rules_and_warnings_read_it(take_it):
    assert "take" not in auctions.KINDS and auctions.kind_of("dutch") == BUY
    st = with_money(play(start(), 0, cid(CA, "fixed_price")), (100, 100, 20, 100))
    st = act(st, 0, {"do": "price", "amount": 40})
    assert st.phase == "dutch" and st.actor == 1
    assert rules.view(st, 1)["auction"]["price"] == 40                 # the record's ``shows``
    assert rules.legal_actions(st, 1) == [{"do": "pass"}, {"do": "take"}]
    with pytest.raises(IllegalAction, match="take it at 40 or pass"):
        rules.check(st, 1, {"do": "buy"})
    assert rules.describe(st, 1, {"do": "take"}) == "seat 1 takes it at 40"
    assert warnings.warnings(rules.view(st, 2), 2) == ["You cannot take it at 40: you have 20 money."]
    st = act(st, 1, {"do": "take"})
    assert st.phase == "play" and st.money[1] == 60 and st.sales[-1][2:4] == (1, 40)


def test_every_bot_level_answers_a_new_kind_by_its_record(take_it):
    """Whole games with every bot level at the table: on the new kind's step each answers by the policy of
    the kind it is like (buy), in the kind's own word (take); the log's checks accept every answer."""
    levels = [bots.RandomBot, bots.EasyBot, bots.MediumBot, bots.HardBot]
    answers = {level.__name__: set() for level in levels}
    for g in range(3):
        seed = hashlib.sha256(b"take it %d" % g).digest()
        st = rules.setup({}, 4, seed)
        players = [levels[(i + g) % 4]() for i in range(4)]
        deal = rules.deal_open(seed)
        for k in range(3000):
            t = rules.turn(st)
            if t.kind == "over":
                break
            for s in t.seats:
                a = players[s].choose(rules.view(st, s, rules.known_for(st, s, deal)), s, Rng(seed, "take/%d/%d" % (s, k)))
                if st.phase == "dutch":
                    answers[type(players[s]).__name__].add(a["do"])
                st = rules.apply(st, s, rules.check_open(st, s, a, deal))
        assert st.phase == "over"
    assert all(answers.values()) and set().union(*answers.values()) == {"take", "pass"}, answers


def test_a_new_kind_plays_through_the_screen(take_it):
    sc = ModernArtScreen()
    assert "take" in sc.commands
    st = act(play(start(), 0, cid(CA, "fixed_price")), 0, {"do": "price", "amount": 40})
    ctx = ctx_for(st, 1)
    assert sc.decision_label(ctx) == "take it at 40 or let it fall"
    assert sc.key_help(ctx)[0].startswith("take | pass (the price falls when all pass)")
    assert "".join(t for _, t in sc.draft_line(ctx)) == "Take it at 40: take | pass (you have 100)"
    text = text_of(sc.middle_lines(ctx, 100))
    assert "Price 40 - the first to take it pays seat 0; when all pass, the price falls" in text   # drawn like buy
    assert "Offered in turn: you (now) > seat 2 > seat 3" in text and "You: 100 money - you can pay it" in text
    with pytest.raises(CommandError, match="take takes no arguments"):
        run(sc, ctx, "take 3")
    with pytest.raises(CommandError, match="take it at 40 or pass"):
        run(sc, ctx, "buy")
    sent = run(sc, ctx, "take")
    assert sent == Send({"do": "take"})
    assert action_words(sent.action, ctx.view) == "you take it at 40"
    assert sc.on_sent(ctx, sent.action, "").text == "Sent: you take it at 40"
    st = act(st, 1, sent.action)
    assert st.phase == "play" and st.sales[-1][2:4] == (1, 40)


def test_an_unregistered_kind_leaves_no_word_behind():
    assert "take" not in ModernArtScreen().commands
    with auctions.registered(TAKE_IT, DUTCH_CARDS):
        assert "take" in ModernArtScreen().commands
    assert "take" not in ModernArtScreen().commands and auctions.verbs() == {}
