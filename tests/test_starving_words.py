"""An action in words from one place (core/games/starving_artists/words.py): the event log's third
person (``rules.describe``) and the draft line's second person (the screen's ``action_words``) come
from the same table of phrasings, each reader naming cubes and canvases its own way."""

from __future__ import annotations

from core.games.starving_artists import rules
from core.games.starving_artists.cards import CARDS
from core.games.starving_artists.words import PHRASES, LogNames, action_words

from cli.screens.starving_artists import action_words as draft_words

from .starving_util import base, full, with_canvases

SOLD, HALF = 3, 5                   # two canvases of seat 0: one complete, one not


def table():
    st = with_canvases(base(3, options={"color_study": True, "player_trades": True, "last_supper": True}),
                       {0: [(SOLD, full(SOLD)), (HALF, "." * CARDS[HALF].size)]})
    return st, rules.view(st, 0)


def title(cid: int) -> str:
    return "'%s'" % CARDS[cid].title


def short(cid: int) -> str:
    """The draft line's title: at most 24 characters, a cut one ending in ~."""
    t = CARDS[cid].title
    return "'%s'" % (t if len(t) <= 24 else t[:23].rstrip() + "~")


def test_each_action_in_the_log_and_on_the_draft_line():
    st, v = table()
    slot2 = st.market[1]
    cases = [
        ({"do": "work"}, "works: 3 cubes from the bag", "work (3 cubes from the bag)"),
        ({"do": "buy", "slot": 2, "pay": {"R": 1, "B": 2}},
         "buys %s from slot 2 for R, 2 B" % title(slot2), "buy slot 2 %s paying R B B" % short(slot2)),
        ({"do": "paint", "place": [[HALF, 0, "R"], [HALF, 2, "B"]]},
         "paints R on square 0 of %s; B on square 2 of %s" % (title(HALF), title(HALF)),
         "paint canvas 2 %s: R on 0, B on 2" % short(HALF)),
        ({"do": "trade", "give": {"B": 2}, "take": {"R": 1}},
         "trades 2 B for R with the Paint Market", "trade B B for R with the Paint Market"),
        ({"do": "reset", "pay": {"K": 2}}, "resets the canvas market for 2 K", "reset the canvas market paying K K"),
        ({"do": "study", "give": "B", "take": "R"}, "makes a colour study: 4 B for 1 R from the bag",
         "colour study: 4 B for 1 R"),
        ({"do": "offer", "give": {"G": 1}, "take": {"Y": 1}}, "offers G for Y to the other artists", "offer G for Y"),
        ({"do": "answer", "accept": True}, "accepts the offer", "accept the offer"),
        ({"do": "answer", "accept": False}, "declines the offer", "decline the offer"),
        ({"do": "sell", "canvases": [SOLD], "supper": None}, "sells %s" % title(SOLD), "sell 1 %s" % short(SOLD)),
        ({"do": "sell", "canvases": [], "supper": SOLD}, "sells nothing; Last Supper: %s" % title(SOLD),
         "sell nothing; Last Supper: %s" % short(SOLD)),
        ({"do": "take", "cubes": {"O": 3}}, "collects 3 O", "take O O O"),
        ({"do": "diamonds", "colours": ["R", "B"]}, "paints the diamonds of the slot-1 canvas R, B",
         "diamonds of the leaving canvas: R B"),
        ({"do": "work", "then": {"do": "trade", "give": {"B": 2}, "take": {"R": 1}}},
         "works: 3 cubes from the bag, then trades 2 B for R with the Paint Market",
         "work (3 cubes from the bag), then trade B B for R with the Paint Market"),
    ]
    for action, log, draft in cases:
        assert rules.describe(st, 1, action) == "seat 1 " + log, action
        assert draft_words(v, 0, action) == draft, action


def test_every_action_the_rules_know_is_worded_in_both_persons():
    st, v = table()
    kinds = set(rules.MAIN + rules.FREE) | {"answer", "sell", "take", "diamonds"}
    for do in sorted(kinds):
        log = action_words({"do": do}, False, LogNames(st))
        draft = draft_words(v, 0, {"do": do})
        assert not log.startswith("unknown action") and not draft.startswith("{"), do
        assert log != draft, do                          # the log's third person, the player's second
    assert all(len(pair) == 2 and pair[0] != pair[1] for pair in PHRASES.values())


def test_what_no_reader_can_name_is_said_as_such_and_never_raises():
    st, v = table()
    assert rules.describe(st, 2, {"do": "fly"}) == "seat 2 unknown action 'fly'"
    assert rules.describe(st, 2, {"do": "buy", "slot": "x", "pay": 3}) == "seat 2 buys a canvas from slot 'x' for ?"
    assert rules.describe(st, 2, {"do": "paint", "place": 7}) == "seat 2: unreadable action {'do': 'paint', 'place': 7}"
    assert rules.describe(st, 2, [1]) == "seat 2: unreadable action [1]"
    assert draft_words(v, 0, {"do": "buy", "slot": 9, "pay": {}}) == "buy slot 9  paying nothing"
    assert draft_words(v, 0, {"do": "sell", "canvases": [99]}) == "sell #99 ?"
