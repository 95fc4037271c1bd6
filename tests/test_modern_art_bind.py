"""Modern Art binds a card before it shows it (issue 22, "Bind before you show").

At the table a card play is two steps: the seat's decided move names deck
positions only (the *choice*: ``{"do": "play", "pos", "double": null |
{"pos"}}`` or ``{"do": "add", "pos"}``), then its peer shows the cards in an
automatic step (the *open*, ``Turn.shows``: ``{"open": [[pos, card, share,
proof], ...]}``).  Cutting the choice shows nothing; cutting the open discards
the bound cards face down (they leave the hand unseen, count for no artist,
and the seat loses its turn, or passes in the double offer), so no time-out
can put a shown card back in the hand.  Here: the game object, locally (the
real peers are in tests/test_coalition.py).
"""

from __future__ import annotations

import pytest

from core.engine import IllegalAction, Turn
from core.games.modern_art import dealt
from core.games.modern_art.cards import CARDS, card_name
from core.games.modern_art.game import MODERN_ART as GAME, OFFLINE

from core.table import replay

from .test_private import GAMES, SEED, Net, drive, secret_of

SECRETS = [secret_of(s) for s in range(3)]
DISCARD = {"discard": True}


def playing(st) -> bool:
    return st.stage == "play" and st.ms.phase == "play"


def plays_of(st, seat: int) -> list:
    return [a for a in GAME.legal_actions(st, seat, SECRETS[seat]) if a.get("do") == "play"]


def at_play(pred=lambda st, plays: True, seed: bytes = SEED):
    """A state where the seat on turn may auction a card and ``pred(state, its card-id plays)`` holds."""
    st = drive(3, seed, SECRETS, stop=lambda s: playing(s) and pred(s, plays_of(s, s.ms.actor)))
    assert playing(st) and pred(st, plays_of(st, st.ms.actor)), "no such state in this game"
    return st


def offered_double(seed: bytes = SEED):
    """A state of the double offer where the seat asked can add a card: every seat auctions a double
    alone when it holds one, so the offer goes round."""
    def steer(state, seat, action):
        if playing(state) and state.stage == "play":
            alone = [a for a in plays_of(state, seat) if CARDS[a["card"]].type == "double" and not a["double"]]
            if alone:
                return GAME.seal_action(state, seat, alone[0], SECRETS[seat])
        return action

    def can_add(state) -> bool:
        if state.stage != "play" or state.ms.phase != "double":
            return False
        return any(a.get("do") == "add" for a in GAME.legal_actions(state, state.ms.actor, SECRETS[state.ms.actor]))

    st = drive(3, seed, SECRETS, stop=can_add, tamper=steer)
    assert can_add(st), "no double offer in this game"
    return st


def bind(st, seat: int, action: dict):
    """The choice sealed (a card-id choice becomes positions only), checked and applied: the state at the open."""
    choice = GAME.check(st, seat, GAME.seal_action(st, seat, action, SECRETS[seat]))
    return choice, GAME.apply(st, seat, choice)


def test_a_card_play_is_chosen_by_position_then_shown_by_the_peer_in_an_automatic_step():
    st = at_play(lambda s, plays: any(CARDS[a["card"]].type != "double" for a in plays))
    seat = st.ms.actor
    a = next(a for a in plays_of(st, seat) if CARDS[a["card"]].type != "double")
    pos, card = a["pos"], a["card"]
    # the screen's or the bot's card-id play is bound by its position: no card id, no share; the seat's
    # peer seals it into that form, and a choice naming its card is never signed nor logged (§7.1)
    choice = GAME.check(st, seat, GAME.seal_action(st, seat, a, SECRETS[seat]))
    assert choice == {"do": "play", "pos": pos, "double": None}
    with pytest.raises(IllegalAction, match="names its deck positions only, no card"):
        GAME.check(st, seat, a)
    assert GAME.check(st, seat, choice) == choice                       # what other peers receive checks the same
    assert GAME.describe(st, seat, choice) == "seat %d chooses a card to auction" % seat
    w = GAME.apply(st, seat, choice)
    # nothing is shown yet: the rules' state has not moved
    assert w.ms is st.ms and w.stage == "open" and pos in w.ms.hands[seat] and card not in w.ms.revealed
    t = GAME.turn(w)
    assert t == Turn("sequential", (seat,), auto=True, shows=True,
                     label="round %d: seat %d shows the card it auctions" % (st.ms.round, seat))
    v = GAME.view(w, (seat + 1) % 3)
    assert v["deal"]["open"] == {"seat": seat, "positions": [pos], "do": "play"} and v["waiting"] == [seat]
    assert GAME.legal_actions(w, seat) == []                           # the open's default is a time-out's only
    assert GAME.legal_actions(w, seat, SECRETS[seat]) == [GAME.auto_action(w, seat, SECRETS[seat])]
    # the open: the seat's peer shows the card with its share, and the play is applied as the rules say
    shown = GAME.check(w, seat, GAME.auto_action(w, seat, SECRETS[seat]))
    assert [i[:2] for i in shown["open"]] == [[pos, card]]
    assert GAME.describe(w, seat, shown) == "seat %d auctions %s" % (seat, card_name(card))
    after = GAME.apply(w, seat, shown)
    assert after.stage == "play" and after.ms.revealed[pos] == card and pos not in after.ms.hands[seat]
    assert after.ms.cards_up == (card,) and after.ms.auctioneer == seat
    assert after.ms == OFFLINE.apply(st.ms, seat, a)                        # exactly the bare rules' play


def test_a_double_with_its_second_card_is_bound_and_shown_together():
    st = at_play(lambda s, plays: any(a["double"] for a in plays))
    seat = st.ms.actor
    a = next(a for a in plays_of(st, seat) if a["double"])
    choice, w = bind(st, seat, a)
    assert choice == {"do": "play", "pos": a["pos"], "double": {"pos": a["double"]["pos"]}}
    assert GAME.describe(st, seat, choice) == "seat %d chooses two cards (a double and its second card) to auction" % seat
    assert GAME.turn(w).label.endswith("seat %d shows the two cards it auctions" % seat)
    shown = GAME.check(w, seat, GAME.auto_action(w, seat, SECRETS[seat]))
    assert [i[:2] for i in shown["open"]] == [[a["pos"], a["card"]], [a["double"]["pos"], a["double"]["card"]]]
    assert GAME.apply(w, seat, shown).ms == OFFLINE.apply(st.ms, seat, a)


def test_an_add_to_the_double_is_bound_then_shown():
    st = offered_double()
    seat = st.ms.actor
    a = next(a for a in GAME.legal_actions(st, seat, SECRETS[seat]) if a.get("do") == "add")
    choice, w = bind(st, seat, a)
    assert choice == {"do": "add", "pos": a["pos"]}
    assert GAME.describe(st, seat, choice) == "seat %d chooses a card to add to the double" % seat
    assert GAME.turn(w).label.endswith("seat %d shows the card it adds to the double" % seat)
    shown = GAME.check(w, seat, GAME.auto_action(w, seat, SECRETS[seat]))
    assert GAME.describe(w, seat, shown).startswith("seat %d adds %s to the double" % (seat, card_name(a["card"])))
    assert GAME.apply(w, seat, shown).ms == OFFLINE.apply(st.ms, seat, a)


def test_the_choice_is_checked_for_public_facts_and_a_card_id_choice_by_the_rules():
    st = at_play(lambda s, plays: len(s.ms.hands[s.ms.actor]) >= 2)
    seat = st.ms.actor
    hand = st.ms.hands[seat]
    other = st.ms.hands[(seat + 1) % 3][0]
    bad = [
        ({"do": "play", "pos": other, "double": None}, "not in your hand"),
        ({"do": "play", "pos": hand[0], "double": {"pos": hand[0]}}, "another position of your hand"),
        ({"do": "play", "pos": hand[0], "double": {"pos": other}}, "not in your hand"),
        # the two forms mixed: positions only, or cards throughout
        ({"do": "play", "pos": hand[0], "double": {"pos": hand[1], "card": 3}}, "takes only pos; unknown: card"),
        ({"do": "play", "pos": hand[0], "double": None, "share": b"x"}, "unknown: share"),
        ({"do": "play", "pos": "1", "double": None}, "whole number"),
        ({"do": "add", "pos": hand[0]}, "auction a painting"),                                 # no double offered
    ]
    for action, words in bad:
        with pytest.raises(IllegalAction, match=words):
            GAME.check(st, seat, action)
        assert GAME.problems(st, seat, action)                          # the screen's reason is the same
    with pytest.raises(IllegalAction, match="it is seat %d's turn" % seat):
        GAME.check(st, (seat + 1) % 3, {"do": "play", "pos": other, "double": None})
    # a card-id choice is checked by the rules in full (what a screen explains to a person)
    known = dealt.known_cards(st, seat, SECRETS[seat])
    p1, p2 = hand[0], hand[1]
    a = {"do": "play", "pos": p1, "card": known[p1], "double": {"pos": p2, "card": known[p2]}}
    if CARDS[known[p1]].type != "double":
        with pytest.raises(IllegalAction, match="only a double auction card can take a second card"):
            GAME.check(st, seat, a)
        with pytest.raises(IllegalAction, match="only a double auction card can take a second card"):
            GAME.seal_action(st, seat, a, SECRETS[seat])
    # a choice is never shown before its open: a skip (a time-out's) or any rules move stays what it was
    with pytest.raises(IllegalAction, match="only when it times out"):
        GAME.check(st, seat, {"do": "skip"})


def test_the_open_refuses_other_positions_an_own_discard_and_an_illegal_combination():
    st = at_play(lambda s, plays: any(CARDS[a["card"]].type != "double" for a in plays)
                 and len(s.ms.hands[s.ms.actor]) >= 2)
    seat = st.ms.actor
    single = next(a for a in plays_of(st, seat) if CARDS[a["card"]].type != "double")
    _, w = bind(st, seat, single)
    good = GAME.auto_action(w, seat, SECRETS[seat])
    other = next(p for p in st.ms.hands[seat] if p != single["pos"])
    D, proof = dealt.deal.share(SECRETS[seat], w.deck[other], w.gid, seat, other)
    known = dealt.known_cards(w, seat, SECRETS[seat])
    for action, words in [
        ({"open": [[other, known[other], D, proof]]}, "exactly the positions it chose, \\[%d\\]" % single["pos"]),
        ({"open": good["open"] + [[other, known[other], D, proof]]}, "exactly the positions"),
        ({"open": []}, "list of \\[position, card, share, proof\\]"),
        ({"open": [good["open"][0][:3]]}, "list of \\[position, card, share, proof\\]"),
        (DISCARD, "only a time-out discards them"),
        ({"withhold": True}, "an open is a map with exactly open"),
    ]:
        with pytest.raises(IllegalAction, match=words):
            GAME.check(w, seat, action)
        assert GAME.problems(w, seat, action)
    with pytest.raises(IllegalAction, match="it is seat %d's open, not seat %d's" % (seat, (seat + 1) % 3)):
        GAME.check(w, (seat + 1) % 3, good)
    assert GAME.timeout_only(DISCARD) and GAME.default_action(w, seat) == DISCARD
    # an illegal combination: a peer that binds a "double" whose first card is not a double (the public
    # check cannot know) cannot show a legal play: its own open is refused, only a time-out is left
    choice = GAME.check(st, seat, {"do": "play", "pos": single["pos"], "double": {"pos": other}})
    w2 = GAME.apply(st, seat, choice)
    honest_open = GAME.auto_action(w2, seat, SECRETS[seat])
    with pytest.raises(IllegalAction, match="seat %d's shown cards make no legal play: only a double auction card "
                                            "can take a second card" % seat):
        GAME.check(w2, seat, honest_open)
    cut = GAME.apply(w2, seat, GAME.default_action(w2, seat))
    assert single["pos"] not in cut.ms.hands[seat] and other not in cut.ms.hands[seat]
    assert cut.discarded == (single["pos"], other) and cut.ms.revealed == st.ms.revealed


def test_a_cut_open_discards_the_bound_cards_face_down_and_the_turn_moves_on():
    st = at_play(lambda s, plays: any(CARDS[a["card"]].type != "double" for a in plays))
    seat = st.ms.actor
    a = next(a for a in plays_of(st, seat) if CARDS[a["card"]].type != "double")
    _, w = bind(st, seat, a)
    cut = GAME.apply(w, seat, GAME.default_action(w, seat))     # what a time-out certificate applies
    ms = cut.ms
    assert a["pos"] not in ms.hands[seat] and len(ms.hands[seat]) == len(st.ms.hands[seat]) - 1
    # never shown: not revealed, counted for no artist, nothing on offer
    assert ms.revealed == st.ms.revealed and ms.played == st.ms.played and ms.sales == st.ms.sales
    assert ms.skips == st.ms.skips + 1 and ms.phase == "play" and ms.actor == (seat + 1) % 3
    assert cut.stage == "play" and cut.discarded == (a["pos"],) and cut.choice is None
    for s in (None, 0, 1, 2):
        v = GAME.view(cut, s)
        assert v["deal"]["discarded"] == [[a["pos"], seat]] and [a["pos"], a["card"]] not in v["revealed"]
    assert a["pos"] not in [c["pos"] for c in GAME.view(cut, seat, SECRETS[seat])["cards"]]
    assert GAME.describe(w, seat, DISCARD) == "seat %d loses the chosen card, discarded face down and never shown " \
        "(the open was cut by a time-out): the turn to auction is lost" % seat
    assert ms.last == "seat %d loses the chosen card, discarded face down (never shown): the turn to auction is lost" % seat
    # a choice that is itself timed out shows nothing and costs only the turn (the rules' skip)
    default = GAME.default_action(st, seat)
    assert default == {"do": "skip"}
    skipped = GAME.apply(st, seat, default)
    assert skipped.stage == "play" and skipped.ms.hands == st.ms.hands and skipped.discarded == ()
    assert skipped.ms.actor == (seat + 1) % 3 and skipped.ms.skips == st.ms.skips + 1


def test_every_seat_with_cards_losing_its_open_in_a_row_ends_the_round():
    st = at_play()
    rnd, skips, holders = st.ms.round, st.ms.skips, sum(1 for h in st.ms.hands if h)
    assert skips == 0 and holders == 3
    cut = 0
    while st.ms.round == rnd:
        assert playing(st) and cut < 3
        seat = st.ms.actor
        a = plays_of(st, seat)[0]
        assert a["double"] is None          # one card each
        _, w = bind(st, seat, a)
        st = GAME.apply(w, seat, DISCARD)
        cut += 1
    # every seat holding cards lost its turn in a row (a seat that discarded its last card holds none)
    assert st.ms.rounds[-1][6] == "every seat with cards lost its turn in a row"
    assert len(st.discarded) == cut and not any(st.ms.played) and st.ms.rounds[-1][1] == (0, 0, 0, 0, 0)


def test_a_cut_add_is_a_pass_in_the_double_offer():
    st = offered_double()
    seat = st.ms.actor
    a = next(a for a in GAME.legal_actions(st, seat, SECRETS[seat]) if a.get("do") == "add")
    _, w = bind(st, seat, a)
    cut = GAME.apply(w, seat, GAME.default_action(w, seat))
    passed = GAME.apply(st, seat, {"do": "pass"})
    assert a["pos"] not in cut.ms.hands[seat] and cut.discarded == (a["pos"],)
    assert cut.ms.revealed == st.ms.revealed and cut.ms.played == st.ms.played
    # the offer goes on exactly as after a pass (the next seat is asked, or the opener takes the double free)
    assert (cut.ms.phase, cut.ms.actor, cut.ms.idx, cut.ms.money, cut.ms.sales) == \
        (passed.ms.phase, passed.ms.actor, passed.ms.idx, passed.ms.money, passed.ms.sales)
    assert GAME.describe(w, seat, DISCARD).endswith("discarded face down and never shown (the open was cut by a "
                                                    "time-out): nothing added to the double")


def test_the_bare_rules_have_no_open_and_refuse_a_discard():
    st = at_play()
    with pytest.raises(IllegalAction, match="only a card shown at the table"):
        OFFLINE.apply(st.ms, st.ms.actor, DISCARD)
    with pytest.raises(IllegalAction, match="only the seat showing its chosen cards"):
        GAME.apply(st, st.ms.actor, DISCARD)                # nothing is being shown now


def test_at_the_table_only_the_open_the_shares_and_the_disclosure_show_secrets():
    """``Turn.shows`` marks the automatic steps whose events show their authors' secrets (the peer's
    rule for them is protocol.md §6.5's); the choice, the keys, the shuffles and the hand check show none."""
    net = Net(3, seed=5)
    net.until(lambda: all(p.table.over for p in net.peers))
    log = net.peers[0].log_entries
    t = replay(log[:1], GAMES)
    kinds: dict = {}
    opens: dict = {}
    for raw in log[1:]:
        st, state = t.step, t.state
        if st is not None and state is not None and st.kind == "act":
            what = state.stage if state.stage != "play" else "choice" if st.purpose == "move" and \
                state.ms.phase in ("play", "double") else "rules"
            kinds.setdefault(what, set()).add(st.shows)
            if what == "open":
                opens[st.phase] = st.seats
        t.append(raw)
    assert kinds["open"] == {True} and kinds["deal"] == {True} and kinds["disclose"] == {True}
    assert kinds["choice"] == kinds["rules"] == kinds["keys"] == kinds["shuffle"] == kinds["check"] == {False}
    # the table records who showed in which step: each open, its one author
    assert opens and {ph: t.showing.get(ph)[0] for ph in opens} == opens


# --------------------------------------------------------------------------- what a person sees


def test_the_screen_words_for_the_choice_the_open_and_a_discard():
    from cli.screens import Context
    from cli.screens.modern_art import ModernArtScreen, action_words, card_words, hand_order

    st = at_play(lambda s, plays: any(CARDS[a["card"]].type != "double" for a in plays))
    seat = st.ms.actor
    me, other = seat, (seat + 1) % 3
    a = next(a for a in plays_of(st, seat) if CARDS[a["card"]].type != "double")
    v = GAME.view(st, me, SECRETS[me])
    sc, theirs = ModernArtScreen(), ModernArtScreen()
    # the person composes a card play: the screen keeps its cards; the peer binds its position only
    number = next(i + 1 for i, c in enumerate(hand_order(v["cards"])) if c["pos"] == a["pos"])
    sent = sc.command(Context(seat=me, view=v, game=GAME, state=st, deciding=True), "play", [str(number)])
    assert sent.action == a
    choice = GAME.check(st, seat, GAME.seal_action(st, seat, a, SECRETS[seat]))
    assert action_words(choice, v) == "you auction %s" % card_words(a["card"])          # "Sent: ..." words
    assert sc.describe(GAME, st, seat, choice) == "seat %d chooses %s to auction" % (seat, card_words(a["card"]))
    # another seat's screen knows nothing of the card
    assert theirs.describe(GAME, st, seat, choice) == "seat %d chooses a card to auction" % seat
    w = GAME.apply(st, seat, choice)
    # during the open: its author reads that its card is being shown, the others who shows it
    for screen, who, words in ((sc, me, "showing your card"), (theirs, other, "seat %d shows the card" % seat)):
        title = screen.title_parts(Context(seat=who, view=GAME.view(w, who, SECRETS[who]), game=GAME, state=w))
        assert title == ["round %d/4: %s" % (w.ms.round, words)]
    shown = GAME.check(w, seat, GAME.auto_action(w, seat, SECRETS[seat]))
    for screen in (sc, theirs):
        assert screen.describe(GAME, w, seat, shown) == "seat %d auctions %s" % (seat, card_words(a["card"]))
    # a cut open: what the time-out does there, and the event log's words
    label = GAME.turn(w).label
    assert theirs.timeout_effect_for(label) == "the chosen card is discarded face down: the turn to auction is lost"
    assert theirs.describe(GAME, w, seat, DISCARD) == "seat %d loses the chosen card, discarded face down and never " \
        "shown (the open was cut by a time-out): the turn to auction is lost" % seat


def test_a_card_play_of_an_earlier_build_is_refused_with_the_documented_reason():
    """protocol.md §7.1 / §12.4: a Modern Art log written before bind-before-show does not replay;
    its first card play (the card id with the owner's share in ``reveal``) is refused, saying why."""
    st = at_play()
    seat = st.ms.actor
    pos, card = sorted(dealt.known_cards(st, seat, SECRETS[seat]).items())[0]
    D, proof = dealt.deal.share(SECRETS[seat], st.deck[pos], st.gid, seat, pos)
    old = {"do": "play", "pos": pos, "card": card, "double": None, "reveal": {"share": D, "proof": proof}}
    with pytest.raises(IllegalAction, match="^play takes only do, pos, card, double; unknown: reveal$"):
        GAME.check(st, seat, old)


def test_sent_words_name_our_own_card_from_the_positions_the_table_binds():
    from cli.screens import Context
    from cli.screens.modern_art import ModernArtScreen, card_words

    v = {"phase": "play", "cards": [{"pos": 5, "id": 10}, {"pos": 9, "id": 3}]}     # 10: a Carvalho double
    ctx = Context(seat=0, view=v, deciding=True)
    said = ModernArtScreen().on_sent(ctx, {"do": "play", "pos": 5, "double": None}, "")
    assert said.text == "Sent: you auction %s - the double now goes round for a second card" % card_words(10)
    said = ModernArtScreen().on_sent(ctx, {"do": "play", "pos": 5, "double": {"pos": 9}}, "")
    assert said.text == "Sent: you auction %s with %s" % (card_words(10), card_words(3))


def test_no_round_end_warning_once_the_card_is_chosen():
    from core.games.modern_art.warnings import warnings

    v = {"phase": "play", "actor": 0, "money": [100, None, None], "played": [4, 0, 0, 0, 0], "deal": {"stage": "play"}}
    assert warnings(v, 0) == ["A card of Manuel Carvalho ends the round at once (4 played) and is not auctioned."]
    assert warnings(dict(v, deal={"stage": "open"}), 0) == []
