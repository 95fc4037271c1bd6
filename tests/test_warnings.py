"""Warnings that come first: each game's pure warnings hook (core/games/<game>/warnings.py) names what
the next step costs a seat if nothing changes, and the shell shows it in one line above the prompt.

Measured before: at one food with no red in the market nothing warned the player; the next screen
said "starved".
"""

from __future__ import annotations

import time
from dataclasses import replace

import core.games as registry
from cli.shell import GameUI
from core.games.modern_art import warnings as ma_warnings
from core.games.painting import warnings as painting_warnings
from core.games.starving_artists import GAME as SA, rules as sa_rules
from core.games.starving_artists.cards import CARDS
from prompt_toolkit.output import DummyOutput

from .test_starving_screen import SANet, state
from .test_ui import Net


def _lacking(colour: str):
    """A card that has a square of ``colour`` only (not a diamond), its other squares anything."""
    for c in CARDS:
        if any(sq == (colour,) for sq in c.squares):
            return c
    raise AssertionError("no card with a plain %s square" % colour)


def test_every_game_declares_a_warnings_hook_that_is_pure_on_views():
    from core.engine import Game

    for name in registry.names():
        game = registry.get(name)
        assert type(game).warnings is not Game.warnings, "%s keeps the default (no warnings)" % name
        assert game.warnings(None, 0) == [] and game.warnings({}, None) == []


def test_starving_artists_warns_at_nutrition_1_that_the_seat_starves_tomorrow_and_why():
    """RULES.md, A day, 1: "every seat still in loses 1 nutrition; a seat below 1 is out"."""
    card = _lacking("R")
    i = card.squares.index(("R",))
    filled = "".join("." if k == i else card.squares[k][0] for k in range(len(card.squares)))
    st = state(nutrition=(1, 5, 5))
    st = replace(st, canvases=((( card.id, filled),),) + st.canvases[1:],
                 studios=(sa_rules.counts_of({"B": 2}),) + st.studios[1:],
                 paint_market=sa_rules.counts_of({"B": 2, "G": 2}))
    words = SA.warnings(SA.view(st, 0), 0)
    assert words and words[0].startswith("You starve at the start of day 2 unless you sell a painting tonight")
    assert "lacks R in your studio and the Paint Market has none" in words[0]
    assert SA.warnings(SA.view(st, 1), 1) == []                    # seat 1 at nutrition 5: nothing to say
    # with a red cube in the studio: paint it today
    fed = replace(st, studios=(sa_rules.counts_of({"R": 1}),) + st.studios[1:])
    assert "your studio has them: paint it today" in SA.warnings(SA.view(fed, 0), 0)[0]
    # the shell shows it above the prompt (wrapped to two lines at most: never cut at 100 columns)
    net = SANet(3)
    ui = GameUI(0, output=DummyOutput())
    ui.update(net.table, [], "")
    ui._snap = replace(ui._snap, view=SA.view(st, 0), state=st)
    lines = ui.render_text().splitlines()
    warn = [k for k, ln in enumerate(lines) if ln.startswith("!! You starve at the start of day 2")]
    assert warn and warn[0] in (len(lines) - 2, len(lines) - 3)     # just above the key help (the prompt's line)
    assert all(ln.startswith("   ") for ln in lines[warn[0] + 1:-1])  # its second line, indented


def test_painting_warns_that_unscored_sheets_lose_value_and_score_nothing_after_the_last_round():
    """RULES.md, a round, 5: "Every owned sheet still unscored loses 1 point of value, but never goes below 1"."""
    v = {"round": 2, "rules": {"rounds": 6}, "phase": 1,
         "owned": [[{"id": 3, "value": 7}, {"id": 5, "value": 1}], []]}
    assert painting_warnings.warnings(v, 0) == ["Unmatched after this round, your sheet #3 (7) loses 1 point of value."]
    two = dict(v, owned=[[{"id": 3, "value": 7}, {"id": 4, "value": 2}, {"id": 5, "value": 1}]])
    assert painting_warnings.warnings(two, 0) == ["Unmatched after this round, your sheets #3 (7), #4 (2) lose 1 point of value each."]
    assert painting_warnings.warnings(v, 1) == []
    last = dict(v, round=6)
    assert painting_warnings.warnings(last, 0)[0].startswith("Last round: your unscored sheets #3 (7), #5 (1) score nothing")
    only_ones = dict(v, owned=[[{"id": 5, "value": 1}]])
    assert painting_warnings.warnings(only_ones, 0) == []


def test_modern_art_warns_of_a_bid_it_cannot_pay_and_of_a_card_that_ends_the_round():
    """RULES.md: "The 5th card of an artist played in a round ends the round at once"."""
    v = {"phase": "open", "money": [10, 50, 50], "played": [4, 0, 0, 0, 0], "actor": None,
         "auction": {"type": "open", "auctioneer": 1, "high": 12, "high_bidder": 2}}
    assert ma_warnings.warnings(v, 0) == ["You cannot outbid the standing 12: you have 10 money."]
    assert ma_warnings.warnings(v, 2) == []
    play = {"phase": "play", "money": [10, 50, 50], "played": [4, 1, 0, 4, 0], "actor": 0, "auction": None}
    assert ma_warnings.warnings(play, 0)[0].startswith("A card of Manuel Carvalho or Ramon Martins ends the round")
    assert ma_warnings.warnings(play, 1) == []


def test_a_time_out_close_at_hand_is_the_warning_line():
    net = Net(2)
    ui = GameUI(0, output=DummyOutput())
    ui.update(net.table, [], "")
    from cli.composer import Asked

    st = net.table.state
    ui.composer.asked = Asked(seat=0, view=net.table.view(0), game=net.table.game, state=st, phase=net.table.phase)
    ui.countdown.deadline = time.monotonic() + 60
    assert "Time-out" not in ui.render_text()
    ui.countdown.deadline = time.monotonic() + 8.5
    assert "!! Time-out in 8 s: send your move now, or it counts as no move" in ui.render_text()


def test_the_hooks_say_only_sentences_over_a_whole_game_of_every_seat():
    net = SANet(3)
    for _ in range(400):                       # bounded: a whole game, one bot move at a time
        if net.table.over:
            break
        for s in range(3):
            out = SA.warnings(net.table.view(s), s)
            assert isinstance(out, list) and all(isinstance(x, str) and x for x in out)
        net.bots([0, 1, 2], limit=1)
    assert net.table.over
    pnet = Net(3)
    pnet.bots()
    game = registry.get("painting")
    for s in range(3):
        assert game.warnings(pnet.table.view(s), s) == []          # the game is over: nothing to lose
