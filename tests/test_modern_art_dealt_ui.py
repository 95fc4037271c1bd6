"""Modern Art in the terminal UI on a REAL table: the trustless deal's state, not the bare rules.

A table's state is ``dealt.DState`` (the rules wrapped in the deal): a card
play is bound by its positions (the peer signs ``check``'s positions-only form
of the card the person chose; ``seal_action`` checks the claim against the
seat's own hand first) and shown by the peer's automatic open right after.
Three sans-IO peers (p2p.protocol.Peer) play over memory
through the whole deal (keys, shuffles, proofs, shares, hand checks: every
seat's automatic steps); the seats the test does not play move as small bots.

* a person auctions a card of its hand by typing ``play N`` / ``play CARD``
  through prompt-toolkit's pipe input: the UI checks the play as the peer will
  send it (sealed with the seat's secret), the decision resolves with an action
  the game accepts, and the peer sends its positions, then shows the card; a
  card not in the hand (or a forged play: another seat's position, a card
  that is not at the position) is refused with the game's reason;
* the reveal plays on the dealt state with a pace: when an auction resolves,
  "REVEAL" beats show (the sealed bids opening side by side, or the open
  auction's raise rounds), and a screen whose beats fail is logged once, not
  swallowed.

Every wait is bounded (LIMIT s); nothing touches the network.
"""

from __future__ import annotations

import logging
import random
import re
from contextlib import asynccontextmanager

import pytest
import trio
from prompt_toolkit.formatted_text import fragment_list_to_text as text_of
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from cli.screens import Screen
from cli.screens.modern_art import card_code, card_words, hand_order
from cli.shell import GameUI
from core.games.modern_art import dealt
from core.games.modern_art.cards import CARDS, N_CARDS, card_name

from p2p.node import decision_of

from .test_ui import flat, running, until
from .netutil import MemTable

ENTER = "\r"
CTRL_Q = "\x11"
LIMIT = 40              # seconds for any one test (the deal takes a few on a loaded machine)


class MANet(MemTable):
    """n sans-IO peers playing Modern Art (the table's game: the deal included), wired in memory."""

    GAME = "modern-art"

    def __init__(self, n: int = 3, seed: int = 7) -> None:
        super().__init__(n, None, seed)
        self.rng = random.Random(seed + 1)

    def table(self, seat: int):
        return self.peers[seat].table

    def secret(self, seat: int) -> bytes:
        return self.peers[seat].seat_secret

    def legal(self, seat: int) -> list:
        t = self.table(seat)
        return t.game.legal_actions(t.state, seat, self.secret(seat))

    def bot(self, seat: int, prefer=("sealed", "open")) -> dict:
        """A small bot: auctions a card (of a type in ``prefer`` if it can), bids at most 10."""
        legal = self.legal(seat)
        plays = [a for a in legal if a.get("do") == "play" and not a.get("double")]
        if plays:
            fits = [a for a in plays if CARDS[a["card"]].type in prefer]
            return (fits or plays)[0]
        cheap = [a for a in legal if a.get("do") != "bid" or a.get("amount", 0) <= 10]
        return self.rng.choice(cheap or legal)

    def bots(self, seats, until=lambda: False, limit: int = 200) -> None:
        """Let ``seats`` move (bots) until none of them can, or ``until()``."""
        for _ in range(limit):
            if until():
                return
            movers = [k for k in seats if self.peers[k].needs_decision()]
            if not movers:
                return
            for k in movers:
                if self.peers[k].needs_decision():
                    self.act(k, self.bot(k))


def auctioneer(net: MANet) -> int:
    t = net.table(0)
    assert t.state.stage == "play" and t.state.ms.phase == "play", t.state
    return t.step.seats[0]


@asynccontextmanager
async def deciding(ui, net: MANet, seat: int):
    """``ui.decide`` for ``seat`` runs in the background (as the node calls it: its peer's view, with the
    seat's own cards); ``got["action"]`` is what it returned."""
    got: dict = {}
    peer = net.peers[seat]

    async def decide():
        got["action"] = await ui.decide(decision_of(peer, seat, trio.current_time()))

    async with trio.open_nursery() as n:
        n.start_soon(decide)
        await until(lambda: ui.composer.asked is not None)
        yield got


# --------------------------------------------------------------------------- a card play on the dealt state


async def test_a_person_auctions_a_card_of_its_hand_on_a_dealt_table():
    net = MANet(3)
    me = auctioneer(net)
    t = net.table(me)
    assert isinstance(t.state, dealt.DState)
    secret = net.secret(me)
    known = dealt.known_cards(t.state, me, secret)          # position -> card: my hand, opened with my secret
    assert known and set(known) == {p for p in t.state.ms.hands[me] if p < t.state.shared}
    hand = hand_order([{"pos": p, "id": c} for p, c in known.items()])
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(me, input=inp, output=DummyOutput(), send_at_once=True)  # these tests are about the moves, not the draft
            ui.update(t, [], "")
            async with running(ui):
                async with deciding(ui, net, me) as got:
                    await until(lambda: "YOUR MOVE" in ui.render_text())
                    assert "Your hand" in flat(ui) and card_code(hand[0]["id"]) in flat(ui)
                    # a card number not in the hand: refused, nothing sent
                    inp.send_text("play %d" % (len(hand) + 1) + ENTER)
                    await until(lambda: "there is no card %d in your hand" % (len(hand) + 1) in flat(ui))
                    # forged plays (what the screen never composes) get the game's own reason
                    ctx = ui._ctx()
                    theirs = next(p for p in t.state.ms.hands[(me + 1) % 3] if p < t.state.shared)
                    other = next(c for c in range(N_CARDS) if c not in known.values())
                    assert ctx.problems({"do": "play", "pos": theirs, "card": other, "double": None})
                    wrong = ctx.problems({"do": "play", "pos": hand[0]["pos"], "card": other, "double": None})
                    assert wrong == ["deck position %d holds %s, not %s" % (
                        hand[0]["pos"], card_name(hand[0]["id"]), card_name(other))]
                    assert "action" not in got
                    # the first card of the hand (not a double: it would wait for a second card)
                    k = next(i for i, c in enumerate(hand) if CARDS[c["id"]].type != "double")
                    card = hand[k]
                    assert ctx.problems({"do": "play", "pos": card["pos"], "card": card["id"], "double": None}) == []
                    inp.send_text("play %d" % (k + 1) + ENTER)
                    await until(lambda: "action" in got)
                action = got["action"]
                # the decision resolved with what the peer binds (the game's check of the card the person
                # chose): its position only, no card id, no share
                assert action == {"do": "play", "pos": card["pos"], "double": None}
                sealed = t.game.seal_action(t.state, me, action, secret)
                assert t.game.check(t.state, me, sealed) == action
                assert "cannot do that" not in flat(ui)
                assert "Sent: you auction %s" % card_words(card["id"]) in flat(ui)
                net.act(me, action)
                # the choice, then the peer's automatic open: the card is shown and auctioned
                bound, shown = [a for (_i, _ph, s, a) in t.moves[-2:]]
                assert bound == {"do": "play", "pos": card["pos"], "double": None}
                assert [i[:2] for i in shown["open"]] == [[card["pos"], card["id"]]]
                assert t.state.ms.cards_up == (card["id"],) or list(t.state.ms.cards_up) == [card["id"]]
                inp.send_text(CTRL_Q + CTRL_Q)
                await until(lambda: ui.closed)


async def test_a_short_card_name_plays_too_and_the_legal_list_holds_the_seats_own_cards():
    net = MANet(3, seed=11)
    me = auctioneer(net)
    t = net.table(me)
    known = dealt.known_cards(t.state, me, net.secret(me))
    hand = hand_order([{"pos": p, "id": c} for p, c in known.items()])
    card = next(c for c in hand if CARDS[c["id"]].type != "double")
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(me, input=inp, output=DummyOutput(), send_at_once=True)  # these tests are about the moves, not the draft
            ui.update(t, [], "")
            async with running(ui):
                async with deciding(ui, net, me) as got:
                    legal = ui._ctx().legal()
                    plays = [a for a in legal if a.get("do") == "play"]
                    # the game's list for this seat: its own cards (the peer binds their positions)
                    assert plays and all(known[a["pos"]] == a["card"] and "reveal" not in a for a in plays)
                    inp.send_text("play %s" % card_code(card["id"]) + ENTER)
                    await until(lambda: "action" in got)
                sent = CARDS[known[got["action"]["pos"]]]      # the card at the position it binds
                assert (sent.artist, sent.type) == (CARDS[card["id"]].artist, CARDS[card["id"]].type)
                assert t.game.check(t.state, me, got["action"]) == got["action"]      # bound as is
                inp.send_text(CTRL_Q + CTRL_Q)
                await until(lambda: ui.closed)


# --------------------------------------------------------------------------- the reveal on the dealt state


@pytest.mark.parametrize("kind", ["sealed", "open"])
async def test_an_auction_resolving_on_the_dealt_table_plays_its_reveal(kind, caplog):
    net = MANet(3, seed={"sealed": 7, "open": 9}[kind])
    me = 0
    t = net.table(me)
    caplog.set_level(logging.WARNING, logger="easel.ui")
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(me, input=inp, output=DummyOutput(), pace=5.0)
            ui.update(t, [], "")
            async with running(ui):
                # every seat moves as a bot (seat 0 too, so the test does not wait for a person) until the
                # first auction of the wanted kind has been played and is open for bids
                seen = {}

                def started() -> bool:
                    a = t.state.ms
                    if a.phase == kind and a.atype == kind:
                        seen["sales"] = len(a.sales)
                        return True
                    return False

                net.bots(range(3), until=started, limit=400)
                assert seen, "no %s auction came up" % kind
                ui.update(t, [], "")
                ui.skip_beats()                             # earlier auctions' reveal, if any
                sales = seen["sales"]
                net.bots(range(3), until=lambda: len(t.state.ms.sales) > sales or t.state.ms.round > 1)
                ui.update(t, [], "")
                assert ui.revealing, "no reveal on the dealt table"
                text = flat(ui)
                assert re.search(r"REVEAL( \d+/\d+)? ", text) and "(Space or Esc skips)" in text
                if kind == "sealed":
                    assert "The sealed bids open" in text
                else:
                    assert "Open auction, raise round" in text
                inp.send_text(" ")
                await until(lambda: not ui.revealing)
                assert "REVEAL" not in flat(ui)
                inp.send_text(CTRL_Q + CTRL_Q)
                await until(lambda: ui.closed)
    assert not [r for r in caplog.records if "reveal failed" in r.getMessage()]


class _Broken(Screen):
    def beats(self, ctx, before):
        raise AttributeError("'DState' object has no attribute 'players'")


def test_a_screen_whose_beats_fail_is_logged_once(caplog):
    net = MANet(3)
    t = net.table(0)
    caplog.set_level(logging.WARNING, logger="easel.ui")
    ui = GameUI(0, output=DummyOutput(), pace=1.0, screen=_Broken())
    ui.update(t, [], "")
    for _ in range(2):
        net.bots(range(3), limit=1)
        ui.update(t, [], "")
    failed = [r for r in caplog.records if "reveal failed" in r.getMessage()]
    assert len(failed) == 1 and failed[0].exc_info is not None
    assert "_Broken" in failed[0].getMessage() and not ui.revealing


# --------------------------------------------------------------------------- the deal on the screen


class SteppedNet(MANet):
    """MANet whose messages are delivered until ``stop()`` (so the deal's steps can be looked at)."""

    def __init__(self, n: int = 3, seed: int = 7, stop=lambda net: False) -> None:
        self.stop = stop
        super().__init__(n, seed)

    def pump(self) -> None:
        budget = 200_000
        while self.queue and budget and not self.stop(self):
            budget -= 1
            j, frm, msg = self.queue.popleft()
            self._effects(j, self.peers[j].receive(frm, msg))

    def go(self, stop) -> None:
        self.stop = stop
        self.pump()


DEALING = ("keys", "shuffle", "deal", "check")


def _watch_the_deal(net: SteppedNet, uis: list, seen: dict, rnd: int) -> None:
    """Deliver the messages one at a time while round ``rnd``'s deal runs; draw each seat's screen at
    each change of its table and keep what it said (seat -> list of (stage, screen text, title))."""
    counts = [-1] * len(uis)

    def look(net) -> bool:
        for s, ui in enumerate(uis):
            t = net.table(s)
            if t.count != counts[s]:
                counts[s] = t.count
                ui.update(t, [], "3/3 peers connected")
                if t.state is not None and t.state.stage in DEALING and t.state.ms.round == rnd:
                    titles = {}
                    for cols in (99, 119, 149):               # 100, 120 and 150 columns
                        ui._cols = lambda cols=cols: cols
                        titles[cols + 1] = text_of(ui._pane_title())
                    seen.setdefault(s, []).append((t.state.stage, flat(ui), titles))
        t = net.table(0)
        done = t.state is not None and t.state.ms.round == rnd and t.state.stage not in DEALING + ("open",)
        return done and all(c == net.table(s).count for s, c in enumerate(counts))

    while not look(net) and net.queue:
        j, frm, msg = net.queue.popleft()
        net._effects(j, net.peers[j].receive(frm, msg))


def test_during_the_deal_the_screen_says_the_cards_are_being_dealt_and_the_title_keeps_its_key():
    """Seen at 120x40 (issue 29): during Modern Art's deal the screen said "Your turn to auction" (the
    first auctioneer is drawn before the cards are open) and "no cards" under "Your hand 9 cards"; the
    title's key came and went as the deal's step names grew and shrank; a step all of whose moves were in
    said "waiting for nobody"."""
    from dataclasses import replace

    from cli.snapshot import step_status
    net = SteppedNet(3, seed=7, stop=lambda net: True)          # nothing delivered yet
    uis = [GameUI(s, output=DummyOutput(), key="9d33-24e4-0d2e-35f4") for s in range(3)]
    seen: dict = {}
    _watch_the_deal(net, uis, seen, 1)
    actor = net.table(0).state.ms.actor
    assert set(seen) == {0, 1, 2}
    for s, looks in seen.items():
        assert {stage for stage, _, _ in looks} >= {"keys", "shuffle", "deal"}, s
        for stage, text, title in looks:
            assert "Your turn to auction" not in text and "no cards" not in text, (s, stage, text)
            if stage != "check":              # then every card is open: the seats check the hands
                assert "being dealt: your cards show once the deal is done" in text, (s, stage, text)
            assert "the cards are being dealt; then %s" % ("you auction first" if s == actor else
                                                          "seat %d auctions first" % actor) in text, (s, text)
            assert "waiting for nobody" not in text
            # the key by the width alone: at 150 columns always, at 100 and 120 never (the step and the
            # status matter more), whatever the step's words
            assert "key 9d33-24e4-0d2e-35f4" in title[150] and len(title[150]) <= 150 and "…" not in title[150], title
            assert "key 9d33" not in title[100] + title[120], title
        # "Easel - " before the game's name, once dropped for room at a width, stays dropped there
        plain = [not title[100].startswith(" Easel - ") for _, _, title in looks]
        assert plain == sorted(plain), [title[100] for _, _, title in looks]
    # once dealt: the hand, and the auctioneer's turn
    uis[actor].update(net.table(actor), [], "")
    text = flat(uis[actor])
    assert "Your turn to auction" in text and "being dealt" not in text and "(play N, or a short name" in text
    # nobody missing: the step closes as its moves are placed
    snap = uis[actor]._snap
    assert step_status(replace(snap, missing=()), uis[actor]._screen())[1].endswith(" - every move is in")
    # round 2's deal: the cards kept show, the new ones are being dealt
    net.stop = lambda net: net.table(0).state.ms.round == 2 and net.table(0).state.stage in DEALING
    net.bots(range(3), until=lambda: net.table(0).state.ms.round == 2, limit=400)
    assert net.table(0).state.ms.round == 2, "round 1 did not end"
    seen2: dict = {}
    _watch_the_deal(net, uis, seen2, 2)
    assert set(seen2) == {0, 1, 2}
    for s, looks in seen2.items():
        for stage, text, title in looks:
            if stage != "check":
                assert re.search(r"\+ \d+ new cards? being dealt: shown once the deal is done", text), (s, stage, text)
            assert "no cards" not in text and "Your turn to auction" not in text
            assert "key 9d33-24e4-0d2e-35f4" in title[150] and "key 9d33" not in title[120]


def test_what_others_see_while_a_seat_is_gone_is_read_whole_at_100_and_120_columns():
    """Seen at 120x40 (issue 29): the resume hint at the top of the middle pane was cut ("come back later
    with: ease ..."). Each line of it fits beside its "!!" at 100 columns, and an alert there is wrapped,
    never cut."""
    import time

    from cli.runner import silence_lines

    net = MANet(3)
    ui = GameUI(0, output=DummyOutput())
    t0 = time.time() - 30
    for alerts in (silence_lines(("Ann", "Bo", "Cy"), {2: t0}, 0, 300, False, "1a2b3c4d"),
                   silence_lines(("Ann", "Bartholomew the Bold", "Cy"), {1: t0}, 0, 300, False, "1a2b3c4d5e")):
        ui.update(net.table(0), alerts, "2/3 peers connected")
        for width in (99, 119):
            lines = [text_of(line) for line in ui._middle_lines(width, height=14)]
            latest = lines[lines.index("Latest (the event log is below: PgDn)") + 1:]
            latest = "\n".join(latest[:latest.index("")])
            assert all(len(line) <= width for line in latest.splitlines()), latest
            assert " ..." not in latest and "!!  you can wait, or quit (q)" in latest, latest
            joined = " ".join(latest.split())
            assert "come back later with: easel resume %s" % alerts[-1].rsplit(" ", 1)[1] in joined, latest
            if alerts[0].startswith("not connected: Bo"):       # short names: one row each
                assert latest.count("!!") == len(latest.splitlines()) == 3, latest
