"""The Painting Game's screen (cli/screens/painting/) in the game-agnostic shell (cli/shell.py): its grid,
sheets and results as drawn, its commands and draft (parse, every problem at once, the second Enter
for a move without a splash, a sealed move), and its words at a new round and at game over.

The table is the in-memory Painting table of tests/test_ui.py (sans-IO peers, bots for the seats the
test does not play); what the shell does for every game is tested there.
"""

from __future__ import annotations

import re

import pytest
import trio
from prompt_toolkit.formatted_text import fragment_list_to_text as text_of
from prompt_toolkit.output import DummyOutput

from cli.screens.painting import new_round_words, parse_space
from cli.shell import CommandError, GameUI

from .test_ui import CTRL_Q, ENTER, Net, deciding, flat, table_ui, until


def grid_rows(text: str) -> list[tuple[str, str]]:
    """The grid as drawn in ``text``: 5 rows of (letters, marks), a mark per cell: " " plain, "[" changed
    in the last round (a "k" inside: black then, white now), "(" part of a matching sheet, "<" a splash."""
    lines = text.split("Grid (row col)\n", 1)[1].splitlines() if "Grid (row col)\n" in text else text.splitlines()
    rows = []
    for r in range(5):
        line = next(l for l in lines if l.startswith(" %d " % r))
        cells = re.findall(r"([ \[(<])([A-Zk])[ \])>]", line[3:18])
        assert len(cells) == 5, line
        rows.append(("".join(c for _, c in cells), "".join(m for m, _ in cells)))
    return rows



def test_render_text_shows_table_state():
    net = Net(2)
    ui = GameUI(0, input=None, output=DummyOutput())
    ui.update(net.table, ["seat 1 equivocated"], "2/2 peers connected")
    text = ui.render_text()
    assert "you are seat 0" in text and "round 1/6" in text
    assert " 0  W  W  W  W  W" in text                     # the white grid, row label 0
    assert "seat 0 (you)" in text and "30" in text          # tokens
    assert "Sheets on offer" in text and "#1 v" in text and "#10 v" in text
    assert "waiting for you, seat 1" in text
    assert "seat 1 equivocated" in text and "2/2 peers connected" in text
    # a peer's table lists every seat until the step closes; the node may say better
    ui.update(net.table, [], "", waiting=[1])
    assert "waiting for seat 1" in ui.render_text()

    net.bots(upto_round=3)
    ui.update(net.table, [], "")
    text = ui.render_text()
    v = net.table.view(0)
    for r, (letters, _) in enumerate(grid_rows(text)):
        assert letters.replace("k", "W") == "".join(c["colour"] for c in v["grid"][r])
    assert "round 3/6" in text and "Round 2 results" in text
    assert "r1  seat 0 (you) bids" in text and "r2  seat 1 bids" in text
    for s in range(2):
        assert "%4d" % v["tokens"][s] in text
    for s in range(2):
        for h in v["owned"][s]:
            assert "#%d v%d" % (h["id"], h["value"]) in text


def test_parse_space():
    assert parse_space(["2", "3", "R"]) == [2, 3, "R"]
    assert parse_space(["23r"]) == [2, 3, "R"]
    assert parse_space(["0,4,yellow"]) == [0, 4, "Y"]
    assert parse_space(["none"]) is None
    for bad in (["5", "1", "R"], ["1", "1", "G"], ["1", "R"], []):
        with pytest.raises(CommandError):
            parse_space(bad)


async def test_illegal_move_is_refused_and_can_be_fixed():
    net = Net(2)
    async with table_ui(net) as (ui, inp):
        async with deciding(ui, net) as got:
            inp.send_text("bid 1 20 2 15" + ENTER)
            inp.send_text("extra 0 0 R" + ENTER)
            inp.send_text(ENTER)
            await until(lambda: "illegal move" in ui.render_text())
            text = ui.render_text()
            assert "extra submission needs a main splash" in text
            inp.send_text("extra none" + ENTER + ENTER)
            await until(lambda: "bids total 35 but you have 30 tokens" in ui.render_text())
            await trio.sleep(0.2)
            assert "action" not in got and ui.composer.asked is not None
            inp.send_text("bid 7 3" + ENTER)
            inp.send_text("bid 11 3" + ENTER)           # not on offer: refused at once
            await until(lambda: "sheet 11 is not on offer" in ui.render_text())
            inp.send_text("bid 2 0" + ENTER + ENTER)
            await until(lambda: "Press Enter again" in ui.render_text())   # no splash: confirm
            inp.send_text(ENTER)
        assert got["action"] == {"bids": {"1": 20, "7": 3}, "splash": None, "extra": None, "convert": 0}
        inp.send_text("qq")                             # q on an empty line quits (asks first mid-game)
        await until(lambda: ui.closed)


async def test_draft_lists_every_problem_at_once_and_the_move_waits():
    net = Net(2, {"starting_garnets": 0})
    async with table_ui(net) as (ui, inp):
        async with deciding(ui, net) as got:
            inp.send_text("convert 3" + ENTER + "bid 1 20 2 15" + ENTER + "extra 0 0 R" + ENTER)
            await until(lambda: "extra: red at row 0, column 0" in flat(ui))
            text = flat(ui)
            assert "the draft cannot be sent yet" in text
            assert "to fix: the extra splash needs a main splash too" in text
            assert "convert 3 + the extra (7) need 10 garnets, you have 0" in text
            assert "bids total 35, more than your 30 tokens" in text
            inp.send_text(ENTER)
            await until(lambda: "illegal move" in flat(ui))
            await trio.sleep(0.1)
            assert "action" not in got and ui.composer.asked is not None
            inp.send_text("convert 0" + ENTER + "extra none" + ENTER + "bid 2 0" + ENTER)
            await until(lambda: "bids: #1=20" in flat(ui))
            assert "to fix" not in flat(ui)
            inp.send_text("s 22y" + ENTER + ENTER)
        assert got["action"] == {"bids": {"1": 20}, "splash": [2, 2, "Y"], "extra": None, "convert": 0}
        inp.send_text(CTRL_Q + CTRL_Q)      # mid-game: asks first
        await until(lambda: ui.closed)


async def test_a_move_without_a_splash_needs_a_second_enter():
    net = Net(2)
    async with table_ui(net) as (ui, inp):
        async with deciding(ui, net) as got:
            inp.send_text(ENTER)                       # an empty line on an empty draft
            await until(lambda: "no bids and no splash. Press Enter again" in flat(ui))
            await trio.sleep(0.1)
            assert "action" not in got
            inp.send_text("bid 1 5" + ENTER + ENTER)   # the draft changed: ask again
            await until(lambda: "Your move has no splash. Press Enter again" in flat(ui))
            await trio.sleep(0.1)
            assert "action" not in got
            inp.send_text(ENTER)
        assert got["action"] == {"bids": {"1": 5}, "splash": None, "extra": None, "convert": 0}
        inp.send_text(CTRL_Q + CTRL_Q)      # mid-game: asks first
        await until(lambda: ui.closed)


async def test_sealed_move_cannot_be_edited_and_the_next_round_says_what_happened():
    net = Net(2)
    async with table_ui(net) as (ui, inp):
        async with deciding(ui, net) as got:
            await until(lambda: "Round 1 of 6: your move" in flat(ui))
            inp.send_text("bid 1 10 2 4" + ENTER + "splash 2 2 r" + ENTER + ENTER)
        net.act(0, got["action"])
        ui.update(net.table, [], "")
        await until(lambda: "Round 1 move sealed and sent: seat 0 bids 10 on sheet 1" in flat(ui))
        inp.send_text("bid 3 3" + ENTER)
        await until(lambda: "sealed and cannot be changed; waiting for seat 1" in flat(ui))
        assert "Sealed (round 1): seat 0 bids 10 on sheet 1" in flat(ui)
        assert ui.screen.draft.bids == {1: 10, 2: 4}
        net.bots(seats=[1])
        ui.update(net.table, [], "")
        lr = net.table.view(0)["last_round"]
        async with deciding(ui, net) as got:
            await until(lambda: "Round 2 of 6: your move. Round 1:" in flat(ui))
            text = flat(ui)
            for a in lr["auction"][:2]:
                if a["outcome"] == "sold" and a["winner"] == 0:
                    assert "you took #%d for %d (value %d)" % (a["sheet"], a["price"], a["value"]) in text
                elif a["outcome"] == "sold":
                    assert "#%d went to seat 1 for %d (you bid" % (a["sheet"], a["price"]) in text
                else:
                    assert "you tied for #%d with seat 1: discarded, nobody paid" % a["sheet"] in text
            assert "Draft: bids none" in text                  # a fresh draft for the new round
            inp.send_text("bid 11 1" + ENTER + "splash none" + ENTER + ENTER + ENTER)
        assert got["action"]["bids"] == {"11": 1}
        inp.send_text(CTRL_Q + CTRL_Q)      # mid-game: asks first
        await until(lambda: ui.closed)


def test_black_cells_legend_and_extra_column():
    net = Net(2, {"starting_garnets": 7})
    # (2, 2) gets red (seat 0), blue (seat 0's extra next door) and yellow (seat 1 above): black
    net.act(0, {"bids": {}, "splash": [2, 2, "R"], "extra": [2, 3, "B"]})
    net.act(1, {"bids": {}, "splash": [1, 2, "Y"]})
    ui = GameUI(0, output=DummyOutput())
    ui.update(net.table, [], "")
    text = ui.render_text()
    assert "Round 1 results: nothing sold" in text
    assert "black (all three primaries; white again now) at 2 2" in flat(ui)
    assert grid_rows(text)[2] == ("WRkPB", " [[[[")            # white again in round 2, marked [k]
    assert "[X] changed in r1" in text and "[k] black r1, now W" in text
    assert "Colours:  W  white  R  red" in text and "K  R+B+Y black" in text
    assert "> seat 0 (you)    40    0    0   used" in text
    assert "  seat 1          40    7    0 unused" in text
    assert "free" not in text


def test_seats_tied_on_points_and_tokens_share_a_place_and_one_token_is_singular():
    """Measured: "2. seat 0 ... 80 tokens", "3. seat 2 ... 80 tokens", then "you finished 3rd of 3"."""
    from cli.screens.painting import _final_words, _result_lines

    res = {"ranking": [1, 0, 2], "points": {"0": 12, "1": 20, "2": 12}, "tokens": {"0": 80, "1": 1, "2": 80},
           "garnets_earned": {"0": 0, "1": 1, "2": 0}, "winners": [1], "tokens_of_life": {"1": 2},
           "elimination_candidates": [0, 2], "draw": False}
    text = "\n".join(text_of(line) for line in _result_lines(res, 3, 2))
    assert re.search(r" 1\. seat 1\s+20 pts\s+1 token  ", text), text
    assert re.search(r" 2= seat 0\s+12 pts\s+80 tokens", text) and re.search(r" 2= seat 2 \(you\)\s+12 pts", text)
    assert " 3" not in text.split("\n", 1)[1][:4]
    assert _final_words(res, 2).startswith("Game over: you finished joint 2nd of 3 with 12 points.")
    assert _final_words(res, 1).startswith("Game over: you finished 1st of 3 with 20 points.")


def test_game_over_shows_a_ranking_table_and_the_player_result():
    net = Net(3, {"rounds": 2})
    net.bots()
    res = net.table.result()
    ui = GameUI(1, output=DummyOutput())
    ui.update(net.table, [], "game over - q quits", waiting=[])
    text = ui.render_text()
    assert "GAME OVER - final ranking (points, then tokens left)" in text
    def key(s):
        return res["points"][str(s)], res["tokens"][str(s)]

    places = {s: 1 + sum(1 for o in res["ranking"] if key(o) > key(s)) for s in res["ranking"]}
    for s in res["ranking"]:
        name = "seat %d (you)" % s if s == 1 else "seat %d" % s
        tied = sum(1 for o in places if places[o] == places[s]) > 1
        assert re.search(r"\n %d%s %s\s+%d pts\s+%d tokens?  \+%d garnets?" % (
            places[s], "=" if tied else r"\.", re.escape(name), res["points"][str(s)], res["tokens"][str(s)],
            res["garnets_earned"][str(s)]), text)
    place = places[1]
    shared = sum(1 for o in places if places[o] == place) > 1
    assert "Game over: you finished %s%s of 3 with %d point" % (
        "joint " if shared else "", {1: "1st", 2: "2nd", 3: "3rd"}[place], res["points"]["1"]) in text
    if not res["draw"]:
        assert "winner" in text and "Token" in text and "elimination candidate" in text
    assert "game over | a again (rematch) | n no rematch | help | PgUp/PgDn scroll | q quit" in text
    assert "Sheets on offer" not in text
    with pytest.raises(CommandError, match="the game is over"):
        ui._execute("bid 1 1")
    with pytest.raises(CommandError, match="the game is over"):
        ui._execute("")


def test_render_text_lines_fit_100_columns():
    net = Net(6, {"starting_garnets": 3})
    ui = GameUI(0, output=DummyOutput())
    ui.update(net.table, ["a rather long alert about a peer that did something odd " * 3], "6/6 peers connected")
    texts = [ui.render_text()]
    ui.screen.draft.round = 1
    ui.screen.draft.bids = {1: 20, 2: 20, 3: 20}
    ui.screen.draft.extra = [0, 0, "R"]
    ui.screen.draft.convert = 9
    texts.append(ui.render_text())
    ui._toggle_help(True)
    texts.append(ui.render_text())
    ui._toggle_help(False)
    net.bots()
    ui.update(net.table, [], "game over - q quits")
    texts.append(ui.render_text())
    for text in texts:
        for line in text.splitlines():
            assert len(line) <= 100, line


def test_new_round_words_tell_each_outcome_of_our_bids():
    view = {"round": 3, "rules": {"rounds": 6}, "last_round": {
        "round": 2,
        "auction": [
            {"sheet": 11, "outcome": "sold", "winner": 0, "price": 9, "value": 7},
            {"sheet": 12, "outcome": "sold", "winner": 2, "price": 15, "value": 6},
            {"sheet": 13, "outcome": "tie", "winner": None, "price": 0, "tied": [0, 3]},
            {"sheet": 14, "outcome": "tie", "winner": None, "price": 0, "tied": [1, 2]},
            {"sheet": 15, "outcome": "no bids", "winner": None, "price": 0},
        ],
        "scored": [{"sheet": 11, "seat": 0, "points": 7}, {"sheet": 12, "seat": 2, "points": 6}],
    }}
    sent = (2, {"bids": {"11": 9, "12": 10, "13": 5, "14": 1}})
    text = new_round_words(view, 0, sent)
    assert text == ("Round 3 of 6: your move. Round 2: you took #11 for 9 (value 7); #12 went to seat 2 for 15 "
                    "(you bid 10); you tied for #13 with seat 3: discarded, nobody paid; #14: higher bids tied, "
                    "discarded; you scored #11 for 7 points.")
    assert new_round_words(view, 5, None).endswith("Round 2: you took nothing and scored nothing.")
    assert "Bid, splash, then Enter" in new_round_words(dict(view, last_round=None, round=1), 0, None)


def test_owned_sheets_say_who_paid_what_and_scored_sheets_their_round():
    net = Net(3)
    net.bots(upto_round=4)
    v = net.table.view(0)
    ui = GameUI(0, output=DummyOutput())
    ui.update(net.table, [], "")
    text = flat(ui)
    owned = [(s, h) for s in range(3) for h in v["owned"][s]]
    assert owned and v["scored"], "the seed should give both owned and scored sheets"
    for s, h in owned:
        assert "#%d %s for %d in round %d" % (h["id"], "you" if s == 0 else "seat %d" % s, h["price"], h["bought"]) in text
    for e in v["scored"]:
        assert "#%d %s +%d (round %d)" % (e["id"], "you" if e["seat"] == 0 else "seat %d" % e["seat"], e["points"], e["round"]) in text
    assert "an unscored sheet loses 1 each round, never below 1" in text
    assert "v = value if bought now = cells + round" in text
