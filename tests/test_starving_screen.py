"""The Starving Artists screen (cli/screens/starving_artists/) in the game-agnostic shell (cli/shell.py).

Commands are checked two ways: against crafted engine states through a
``Context`` built exactly as the shell builds it (the game's own check /
problems / legal_actions), and end to end through prompt-toolkit's pipe input
on a real table of sans-IO peers exchanging messages in memory (bots play the
other seats).  A finished game's log is replayed through the shell's ReplayUI.
"""

from __future__ import annotations

import io
import re
from dataclasses import replace

import pytest
import trio
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.output.vt100 import Vt100_Output

import cli.shell as shell
from cli.screens import CommandError, Context, Say, Send, Snapshot, screen_for
from cli.screens.starving_artists import (
    StarvingArtistsScreen,
    cubes_text,
    parse_colour,
    parse_cubes,
    parse_paint,
)
from cli.shell import GameUI, ReplayUI
from core.games.starving_artists import GAME, rules
from core.games.starving_artists.cards import CARDS
from core.rng import Rng

from .test_ui import _screen, deciding, flat, running, until
from .netutil import MemTable

ENTER = "\r"
CTRL_Q = "\x11"
LIMIT = 20


# --------------------------------------------------------------------------- crafted states


def seed(k: int = 1) -> bytes:
    return b"sa-screen" + k.to_bytes(4, "big") + bytes(19)


def cubes(**kw: int) -> tuple:
    return rules.counts_of(kw)


def card_where(pred, avoid=()) -> int:
    for c in CARDS:
        if c.id not in avoid and pred(c):
            return c.id
    raise AssertionError("no card fits")


def state(players: int = 3, options: dict | None = None, **fields) -> rules.State:
    """A real setup state, seat 0 first and on turn, then ``fields`` replaced."""
    st = rules.setup(dict(options or {}), players, seed())
    st = replace(st, first=0, actor=0)
    return replace(st, **fields) if fields else st


def with_canvases(st: rules.State, seat: int, items: list) -> rules.State:
    ids = {cid for cid, _ in items}
    cv = list(st.canvases)
    cv[seat] = tuple(items)
    deck = [c for c in st.deck if c not in ids]
    market = list(st.market)
    for i, c in enumerate(market):
        if c in ids:
            market[i] = deck.pop(0)
    return replace(st, canvases=tuple(cv), deck=tuple(deck), market=tuple(market))


def at(tup, i, value) -> tuple:
    out = list(tup)
    out[i] = value
    return tuple(out)


def ctx_for(st: rules.State, seat: int | None, deciding: bool = True) -> Context:
    """A Context as GameUI._ctx builds it: legality from the game through the shell's helpers."""
    view = GAME.view(st, seat)
    t = rules.turn(st)
    snap = Snapshot(seat=seat, players=st.players, view=view, phase=1, step_kind="event", step_purpose="move",
                    step_label=t.label, step_seats=tuple(t.seats), missing=tuple(t.seats), over=st.phase == "over",
                    result=GAME.result(st), log=(), moves=0, entries=1, config=dict(st.config),
                    game_name="starving-artists", game_title="Starving Artists", game=GAME, state=st)
    return Context(seat=seat, snap=snap, view=view, game=GAME, state=st, deciding=deciding,
                   check=lambda a: shell.check(GAME, st, seat, a),
                   problems=lambda a: shell.problems(GAME, st, seat, a),
                   legal=lambda: shell.legal_actions(GAME, st, seat))


# a one-colour-squares-only card with a few squares, and one with a diamond
PLAIN = card_where(lambda c: all(len(sq) == 1 for sq in c.squares) and 3 <= c.size <= 6)
DIAMOND = card_where(lambda c: any(len(sq) == 2 for sq in c.squares) and c.size <= 8, avoid={PLAIN})


def turn_state(**kw) -> rules.State:
    """Seat 0 on turn with PLAIN (empty) and DIAMOND (empty) canvases and a known studio."""
    st = state(**kw)
    st = with_canvases(st, 0, [(PLAIN, "." * CARDS[PLAIN].size), (DIAMOND, "." * CARDS[DIAMOND].size)])
    need = rules.counts_of({})
    studio = list(need)
    for sq in CARDS[PLAIN].squares:
        studio[rules.CI[sq[0]]] += 1
    studio[rules.CI["W"]] += 2
    studio[rules.CI["K"]] += 2
    return replace(st, studios=at(st.studios, 0, tuple(studio)))


def run(screen, ctx, line: str):
    """What the shell does with a command line: the screen's command (name via its aliases)."""
    words = line.split()
    name = screen.commands[words[0].lower()]
    return screen.command(ctx, name, words[1:])


# --------------------------------------------------------------------------- parsing


def test_parse_cubes_colours_and_paint_words():
    assert parse_cubes(["2B", "1R"]) == {"R": 1, "B": 2}
    assert parse_cubes(["BBR"]) == {"R": 1, "B": 2}
    assert parse_cubes(["b2", "r"]) == {"R": 1, "B": 2}
    assert parse_cubes(["2", "blue", "red"]) == {"R": 1, "B": 2}
    assert parse_cubes(["W,K+k"]) == {"K": 2, "W": 1}
    for bad, words in ((["2"], "has no colour after it"), (["2BR"], "a number before one colour"),
                       (["Q"], "is not a colour"), ([], "say which"), (["0B"], "1 or more"),
                       (["2", "3B"], "two numbers")):
        with pytest.raises(CommandError, match=words):
            parse_cubes(bad)
    assert parse_colour("Red") == "R" and parse_colour("k") == "K" and parse_colour("clear") == "W"
    with pytest.raises(CommandError, match="not a colour"):
        parse_colour("X")
    assert cubes_text({"B": 2, "R": 1}) == "R B B" and cubes_text({}) == "nothing"
    mine = [{"id": 40, "card": {"title": "A"}}, {"id": 7, "card": {"title": "B"}}]
    assert parse_paint(["1", "3", "R", "4", "b", "2", "0", "K"], mine) == [[40, 3, "R"], [40, 4, "B"], [7, 0, "K"]]
    assert parse_paint(["#7", "1", "red"], mine) == [[7, 1, "R"]]
    with pytest.raises(CommandError, match="there is no canvas 3"):
        parse_paint(["3", "0", "R"], mine)
    with pytest.raises(CommandError, match="say which canvas first"):
        parse_paint(["0", "R"], mine)
    with pytest.raises(CommandError, match="at most 4 cubes"):
        parse_paint(["1", "0", "R", "1", "R", "2", "R", "3", "R", "4", "R"], mine)
    assert parse_paint(["0", "R"], mine[:1]) == [[40, 0, "R"]]       # one canvas: its number may be left out


# --------------------------------------------------------------------------- every command -> the engine's action


def test_turn_commands_parse_into_the_engines_actions():
    st = turn_state(options={"color_study": True, "player_trades": True})
    sc = StarvingArtistsScreen()
    ctx = ctx_for(st, 0)
    plain = CARDS[PLAIN]
    assert run(sc, ctx, "work") == Send({"do": "work"})
    assert run(sc, ctx, "w") == Send({"do": "work"})
    c0 = plain.squares[0][0]
    c1 = plain.squares[1][0]
    assert run(sc, ctx, "buy 2 pay %s%s" % (c0, c1)) == Send({"do": "buy", "slot": 2, "pay": parse_cubes([c0 + c1])})
    assert run(sc, ctx, "buy 1 W") == Send({"do": "buy", "slot": 1, "pay": {"W": 1}})
    # paint: canvas numbers as on screen, squares as drawn, several triples and the short form
    got = run(sc, ctx, "paint 1 0 %s 1 %s" % (c0, c1))
    assert got == Send({"do": "paint", "place": [[PLAIN, 0, c0], [PLAIN, 1, c1]]})
    assert run(sc, ctx, "paint 2 0 W 1 0 %s" % c0) == Send({"do": "paint", "place": [[DIAMOND, 0, "W"], [PLAIN, 0, c0]]})
    # free actions
    pm = st.paint_market
    takeable = next(rules.COLOURS[i] for i in range(7) if pm[i])
    assert run(sc, ctx, "trade KK for %s" % takeable) == Send({"do": "trade", "give": {"K": 2}, "take": {takeable: 1}})
    assert run(sc, ctx, "reset pay K W") == Send({"do": "reset", "pay": {"K": 1, "W": 1}})
    study_st = replace(st, studios=at(st.studios, 0, cubes(K=4, R=1)))
    assert run(sc, ctx_for(study_st, 0), "study K blue") == Send({"do": "study", "give": "K", "take": "B"})
    assert run(sc, ctx, "offer 2K for R") == Send({"do": "offer", "give": {"K": 2}, "take": {"R": 1}})
    # a main action with the day's free action after it
    assert run(sc, ctx, "work then trade KK for %s" % takeable) == Send(
        {"do": "work", "then": {"do": "trade", "give": {"K": 2}, "take": {takeable: 1}}})
    assert run(sc, ctx, "paint 1 0 %s then reset pay KW" % c0) == Send(
        {"do": "paint", "place": [[PLAIN, 0, c0]], "then": {"do": "reset", "pay": {"K": 1, "W": 1}}})
    assert sc.draft is None


def test_suggestions_go_to_the_draft_and_enter_sends_them():
    st = turn_state()
    sc = StarvingArtistsScreen()
    ctx = ctx_for(st, 0)
    # buy without pay: the cubes needed least (the two spare blacks are asked for by no canvas here
    # unless a card wants black; wilds go last)
    said = run(sc, ctx, "buy 2")
    assert isinstance(said, Say) and said.text.startswith("Suggested (the cubes you need least): buy slot 2")
    assert sc.draft["do"] == "buy" and sc.draft["slot"] == 2 and sum(sc.draft["pay"].values()) == 2
    assert "W" not in sc.draft["pay"]
    line = "".join(t for _, t in sc.draft_line(ctx))
    assert line.startswith("Draft: buy slot 2") and "Enter sends it" in line
    draft = sc.draft
    assert sc.submit(ctx) == Send(draft) and sc.draft is None
    # paint auto: every square of PLAIN (all its colours are in the studio), at most 4 cubes
    said = run(sc, ctx, "paint auto")
    place = sc.draft["place"]
    assert len(place) == min(4, CARDS[PLAIN].size) and all(p[2] != "W" for p in place)
    assert not ctx.problems(sc.draft)
    assert sc.submit(ctx) == Send({"do": "paint", "place": place})
    # a complete-able canvas with one square left: auto uses a wild only to finish it
    one_left = "".join(sq[0] for sq in CARDS[DIAMOND].squares[:-1]) + "."
    st2 = with_canvases(state(), 0, [(DIAMOND, one_left)])
    st2 = replace(st2, studios=at(st2.studios, 0, cubes(W=1)))
    run(sc, ctx_for(st2, 0), "paint auto")
    assert sc.draft == {"do": "paint", "place": [[DIAMOND, CARDS[DIAMOND].size - 1, "W"]]}
    # reset and trade without the cubes to give: suggested
    run(sc, ctx, "reset")
    assert sc.draft["do"] == "reset" and sum(sc.draft["pay"].values()) == 2
    takeable = next(rules.COLOURS[i] for i in range(7) if st.paint_market[i])
    run(sc, ctx, "trade for %s" % takeable)
    assert sc.draft["do"] == "trade" and sum(sc.draft["give"].values()) == 2 and sc.draft["take"] == {takeable: 1}
    run(sc, ctx, "clear")
    assert sc.draft is None
    with pytest.raises(CommandError, match="nothing to send yet: type work, buy SLOT"):
        sc.submit(ctx)


def night_state(**kw) -> rules.State:
    """Night: seat 0 announces, holding a complete PLAIN and an unfinished DIAMOND."""
    st = state(**kw)
    full = "".join(sq[0] for sq in CARDS[PLAIN].squares)
    st = with_canvases(st, 0, [(PLAIN, full), (DIAMOND, "." * CARDS[DIAMOND].size)])
    return replace(st, phase="night", step="announce", actor=0, announced=())


def test_night_commands_sell_none_all_and_supper():
    st = night_state(options={"last_supper": True})
    sc = StarvingArtistsScreen()
    ctx = ctx_for(st, 0)
    assert run(sc, ctx, "sell 1") == Send({"do": "sell", "canvases": [PLAIN], "supper": None})
    assert run(sc, ctx, "sell none") == Send({"do": "sell", "canvases": [], "supper": None})
    assert run(sc, ctx, "sell all") == Send({"do": "sell", "canvases": [PLAIN], "supper": None})
    hungry = replace(st, nutrition=at(st.nutrition, 0, 1))
    assert run(sc, ctx_for(hungry, 0), "supper 1") == Send({"do": "sell", "canvases": [], "supper": PLAIN})
    with pytest.raises(CommandError, match="not complete"):
        run(sc, ctx, "sell 2")                                   # selling an unfinished canvas
    with pytest.raises(CommandError, match="only for an artist at nutrition 1"):
        run(sc, ctx, "supper 1")
    text = "".join(t for _, t in sc.draft_line(ctx))
    assert text.startswith("Announce: sell N")
    said = sc.on_decision(ctx)
    assert "Complete: 1 " in said.text and CARDS[PLAIN].title[:10] in said.text


def collect_state() -> rules.State:
    """The rulebook's example: A 7, B 9, C 6 with 15 cubes in the market (seats 0, 1, 2)."""
    c7 = card_where(lambda c: c.paint == 7)
    c9 = card_where(lambda c: c.paint == 9)
    c6 = card_where(lambda c: c.paint == 6)
    st = state()
    for s, cid in ((0, c7), (1, c9), (2, c6)):
        st = with_canvases(st, s, [(cid, "".join(sq[0] for sq in CARDS[cid].squares))])
    st = replace(st, phase="night", step="announce", actor=0, announced=(),
                 paint_market=cubes(R=2, O=2, Y=2, G=2, B=3, P=2, K=1, W=1))
    for s, cid in ((0, c7), (1, c9), (2, c6)):
        st = rules.apply(st, s, {"do": "sell", "canvases": [cid]})
    if rules.turn(st).kind == "chance":
        st = rules.chance(st, bytes(32))
    return st


def test_collection_commands_take_and_take_best_and_the_night_is_shown():
    st = collect_state()
    assert st.step == "collect" and st.actor == 1               # B's 9 collects first, 4 a time
    sc = StarvingArtistsScreen()
    ctx = ctx_for(st, 1)
    said = sc.on_decision(ctx)
    best = GAME.default_action(st, 1)
    assert "Collect 4 cubes" in said.text and "Enter takes %s" % cubes_text(best["cubes"]) in said.text
    assert sc.submit(ctx) == Send(best)                         # Enter takes the game's pick
    assert run(sc, ctx, "take best") == Send(best)
    assert run(sc, ctx, "take RROY") == Send({"do": "take", "cubes": {"R": 2, "O": 1, "Y": 1}})
    with pytest.raises(CommandError, match="exactly 4 cubes"):
        run(sc, ctx, "take RR")
    text = "\n".join("".join(t for _, t in l) for l in sc.middle_lines(ctx, 100))
    assert "Tonight" in text and "Getting paid" in text
    assert re.search(r"> seat 1 \(you\): '.*', paint 9, 4 a time, 9 still owed - takes 4 now", text) or \
        re.search(r"> you: '.*', paint 9, 4 a time, 9 still owed - takes 4 now", text)
    assert "paint 7, 2 a time" in text and "paint 6, 1 a time" in text
    assert sc.decision_label(ctx) == "night: collect 4 cubes"
    # each collection action appears as it happens (from the view's events)
    st2 = rules.apply(st, 1, best)
    text = "\n".join("".join(t for _, t in l) for l in sc.middle_lines(ctx_for(st2, 0), 100))
    assert "seat 1 collects %s for" % rules.cube_words(rules.counts_of(best["cubes"])) in text
    assert "seat 1 sells" in text


def test_trade_offer_answers_accept_and_decline():
    st = turn_state(options={"player_trades": True})
    st = rules.apply(st, 0, {"do": "offer", "give": {"K": 1}, "take": {st_col(st, 1): 1}})
    assert st.step == "answer"
    sc = StarvingArtistsScreen()
    ctx = ctx_for(st, 1)
    assert run(sc, ctx, "accept") == Send({"do": "answer", "accept": True})
    assert run(sc, ctx, "decline") == Send({"do": "answer", "accept": False})
    assert "Seat 0 offers K for your" in sc.on_decision(ctx).text
    text = "\n".join("".join(t for _, t in l) for l in sc.middle_lines(ctx, 100))
    assert "Trade offer: seat 0 gives K for" in text
    with pytest.raises(CommandError, match="answering your trade offer"):
        run(sc, ctx_for(st, 0, deciding=False), "work")


def st_col(st: rules.State, seat: int) -> str:
    """A colour seat ``seat`` holds."""
    return next(rules.COLOURS[i] for i in range(7) if st.studios[seat][i])


# --------------------------------------------------------------------------- bad input: a clear message, nothing sent


def test_bad_input_is_refused_with_the_games_reason():
    st = turn_state()
    sc = StarvingArtistsScreen()
    ctx = ctx_for(st, 0)
    plain = CARDS[PLAIN]
    wrong = next(c for c in "ROYGBPK" if c != plain.squares[0][0] and st.studios[0][rules.CI[c]])
    cases = [
        ("paint 1 0 %s" % wrong, "square 0 of '.*' takes"),                               # wrong colour
        ("paint 1 0 W 1 1 W", "at most one wild"),                                        # a second wild
        ("buy 3 pay RRR", "you have (no|only)"),                                            # without the cubes
        ("trade KK for W", "cannot take a wild"),                                         # a wild in a trade
        ("paint 9 0 R", "there is no canvas 9"),
        ("buy nine", "usage: buy SLOT"),
        ("buy 5", "slots 1, 2 and 3"),
        ("trade KK R", "usage: trade GIVE for TAKE"),
        ("paint 1 zero R", "cannot read"),
        ("take 2Q", "not a colour"),
        ("work now", "work takes no arguments"),
        ("trade KK for R then work", "only a main action"),
        ("work then dance", "after 'then' comes a free action"),
        ("sell 1", "it is your morning turn"),
    ]
    for line, words in cases:
        with pytest.raises(CommandError, match=words):
            run(sc, ctx, line)
        assert sc.draft is None, line
    # buying with too few cubes in the studio, pay left to the screen: the game says why
    poor = replace(st, studios=at(st.studios, 0, cubes(R=1)))
    with pytest.raises(CommandError, match="exactly 3 cubes, not 1"):
        run(sc, ctx_for(poor, 0), "buy 3")
    # a second free action in a day
    used = replace(st, free_used=at(st.free_used, 0, True))
    with pytest.raises(CommandError, match="already used your free action today"):
        run(sc, ctx_for(used, 0), "reset pay KK")
    with pytest.raises(CommandError, match="already used your free action today"):
        run(sc, ctx_for(used, 0), "work then trade KK for B")
    # acting out of turn: seat 1 while seat 0 is on turn
    with pytest.raises(CommandError, match="it is seat 0's turn, not yours - nothing sent"):
        run(sc, ctx_for(st, 1, deciding=False), "work")
    assert sc.submit(ctx_for(st, 1, deciding=False)) is None   # the shell then says "not your turn"


# --------------------------------------------------------------------------- rendering


def test_render_text_shows_the_table():
    st = turn_state()
    st = replace(st, nutrition=(3, 5, 1), score=(4, 0, 2), sold=((3,), (), ()))
    sc = StarvingArtistsScreen()
    ctx = ctx_for(st, 0)
    board = ["".join(t for _, t in l) for l in sc.board_lines(ctx)]
    assert board[0].startswith(" DAY 1 MORNING ") and "your turn" in board[0]
    assert board[1].startswith("Your studio") and "%d cubes" % sum(st.studios[0]) in board[1]
    studio = " ".join("%s%d" % (c, st.studios[0][i]) for i, c in enumerate(rules.COLOURS))
    assert board[2] == studio                                   # letters beside colours, colour-blind order
    assert board[3].startswith("Paint Market") and board[4].startswith("R%d O%d" % st.paint_market[:2])
    assert all(len(l) <= sc.board_width for l in board)
    assert sc.seat_cells(ctx, 0)[:3] == ["●●●○○", "4/14", "1/6"] and sc.seat_cells(ctx, 0)[5] == "◆"
    assert sc.seat_cells(ctx, 2)[0] == "●○○○○" and sc.seat_cells(ctx, 1)[5] == ""
    assert sc.title_parts(ctx) == ["day 1 morning: your turn"]
    assert sc.decision_label(ctx) == "day 1 morning"
    text = "\n".join("".join(t for _, t in l) for l in sc.middle_lines(ctx, 100))
    assert "Your canvases" in text and "Canvas market" in text
    assert "slot 1  cost 1" in text and "slot 2  cost 2" in text and "slot 3  cost 3" in text
    assert CARDS[PLAIN].painter in text and "★%d paint %d food %d" % (CARDS[PLAIN].stars, CARDS[PLAIN].paint, CARDS[PLAIN].food) in text
    assert "%d to go" % CARDS[PLAIN].size in text
    for l in sc.middle_lines(ctx, 100):
        assert sum(len(t) for _, t in l) <= 100
    # painted squares: solid blocks with the cube letter; empty squares: number + colour(s)
    half = "".join(sq[0] for sq in CARDS[DIAMOND].squares[:2]) + "." * (CARDS[DIAMOND].size - 2)
    st2 = with_canvases(st, 0, [(DIAMOND, half)])
    frags = [f for l in sc.middle_lines(ctx_for(st2, 0), 160) for f in l]
    sq0 = CARDS[DIAMOND].squares[0][0]
    assert ("class:cube.%s" % sq0.lower(), " %s  " % sq0) in frags
    dia = next(i for i, sq in enumerate(CARDS[DIAMOND].squares) if len(sq) == 2)
    if dia >= 2:
        a, b = CARDS[DIAMOND].squares[dia]
        i = frags.index(("class:slot class:need.%s" % a.lower(), a))
        assert frags[i + 1] == ("class:slot class:need.%s" % b.lower(), b) and frags[i - 1][1].strip() == str(dia)
    # junior: every slot costs 1
    jr = ctx_for(state(options={"edition": "junior"}), 0)
    text = "\n".join("".join(t for _, t in l) for l in sc.middle_lines(jr, 100))
    assert "slot 3  cost 1" in text and "junior" in sc.title_parts(jr)


def test_game_over_lines_final_words_and_solo_rating():
    st = replace(state(), phase="over", step="", actor=-1, score=(9, 14, 3), sold=((1, 2), (3, 4, 5), ()),
                 food_earned=(4, 6, 0), alive=(True, True, False), end_reason="an artist reached 6 paintings or 14 points")
    sc = StarvingArtistsScreen()
    ctx = ctx_for(st, 0, deciding=False)
    text = "\n".join("".join(t for _, t in l) for l in sc.game_over_lines(ctx, 100))
    assert "GAME OVER after day 1 - an artist reached 6 paintings or 14 points" in text
    assert re.search(r"1\. seat 1\s+14\s+3\s+6\s+\d+\s+winner", text)
    assert re.search(r"2\. seat 0 \(you\)\s+9\s+2\s+4", text) and re.search(r"3\. seat 2 .*starved", text)
    assert sc.final_words(ctx).startswith("Game over after day 1: you finished 2nd of 3 with 9 points and 2 canvases sold. Winner: seat 1.")
    solo = replace(rules.setup({}, 1, seed()), phase="over", step="", actor=-1, score=(21,), end_reason="the artist starved")
    sctx = ctx_for(solo, 0, deciding=False)
    assert "Solo rating: Expert" in "\n".join("".join(t for _, t in l) for l in sc.game_over_lines(sctx, 100))
    assert sc.final_words(sctx).endswith("Solo rating: Expert.")
    # measured: a solo game ended "1. seat 0 (you) ... winner, starved" and "you finished 1st of 1"
    starved = replace(solo, alive=(False,), score=(3,))
    octx = ctx_for(starved, 0, deciding=False)
    text = "\n".join("".join(t for _, t in l) for l in sc.game_over_lines(octx, 100))
    assert "winner" not in text and "1. seat" not in text and re.search(r"seat 0 \(you\)\s+3 .*starved", text)
    words = sc.final_words(octx)
    assert "1st of 1" not in words and words.startswith("Game over after day 1: you scored 3 points with 0 canvases sold (you starved).")


@pytest.mark.parametrize("met,how,words", [
    (((1, "points", 1),), "objective", "Only one artist met an objective that night and wins"),
    (((0, "paintings", 1), (1, "points", 1)), "tie", "Several artists met an objective the same night: a tie"),
    ((), "points", "Ties: points, then canvases sold"),
])
def test_game_over_words_say_how_the_winner_was_decided(met, how, words):
    """The game-over note follows the result's decided_by (decision 27): one artist alone meeting an
    objective, several in the same night (a tie among them), or none (points among all)."""
    st = replace(state(), phase="over", step="", actor=-1, score=(12, 14, 13), sold=((1, 2, 3, 4, 5, 6), (7,), ()),
                 met=met, end_reason="x")
    assert rules.result(st)["decided_by"] == how
    ctx = ctx_for(st, 0, deciding=False)
    text = " ".join("".join(t for _, t in l).strip() for l in StarvingArtistsScreen().game_over_lines(ctx, 100))
    assert words in text, text
    assert ("first to an objective" not in text) and ("announce" not in text)
    winner = {"objective": 1, "tie": 1, "points": 1}[how]
    assert re.search(r"1\. seat %d\s+14 .*winner" % winner, text), text
    if how == "tie":
        assert re.search(r"2\. seat 0 \(you\)\s+12", text) and re.search(r"3\. seat 2\s+13", text), text


def test_a_shared_win_after_a_same_night_tie_is_worded_as_shared():
    st = replace(state(players=2), phase="over", step="", actor=-1, score=(14, 14), sold=((1,), (2,)),
                 food_earned=(3, 3), studios=(cubes(R=2), cubes(B=2)), met=((0, "points", 1), (1, "points", 1)),
                 end_reason="an artist reached 7 paintings or 16 points")
    ctx = ctx_for(st, 1, deciding=False)
    text = "\n".join("".join(t for _, t in l) for l in StarvingArtistsScreen().game_over_lines(ctx, 100))
    assert re.search(r"1= seat 0\s+14.*winner", text) and re.search(r"1= seat 1 \(you\)\s+14.*winner", text), text
    assert StarvingArtistsScreen().final_words(ctx).endswith("You share the win.")


def test_seats_tied_on_every_tie_break_share_a_place():
    sc = StarvingArtistsScreen()
    ctx = ctx_for(state(), 2, deciding=False)
    res = {"ranking": [1, 0, 2], "places": [2, 1, 2], "winners": [1], "points": [9, 14, 9], "sold": [2, 3, 2],
           "food": [4, 6, 4], "cubes": [3, 0, 3], "starved": [False, False, False], "days": 5, "reason": "x"}
    ctx = replace(ctx, snap=replace(ctx.snap, result=res))
    text = "\n".join("".join(t for _, t in l) for l in sc.game_over_lines(ctx, 100))
    assert re.search(r"2= seat 0\s+9", text) and re.search(r"2= seat 2 \(you\)\s+9", text), text
    assert re.search(r"1\. seat 1\s+14", text)
    assert "you finished joint 2nd of 3 with 9 points" in sc.final_words(ctx)


def test_help_rules_table_description_and_marks():
    sc = StarvingArtistsScreen()
    ctx = ctx_for(state(players=2), 0)
    helptext = " ".join("%s %s" % kv for kv in sc.command_help(ctx))
    for words in ("work", "buy SLOT [pay CUBES]", "paint CANVAS SQUARE COLOUR", "paint auto", "trade GIVE for TAKE",
                  "reset [pay CUBES]", "study GIVE TAKE", "offer GIVE for TAKE", "MAIN then FREE", "sell N",
                  "supper N", "take CUBES", "take best", "accept / decline", "slot 2 costs 2"):
        assert words in helptext, words
    rules_text = " ".join("%s %s" % kv for _, rows in sc.rules_help(ctx) for kv in rows)
    for words in ("2 for 1, 5 for 2 or 9 for 3", "reset the canvas market for 2 cubes", "takes 4 cubes an action",
                  "sold 7 canvases or has 16 points (2 players)", "the day after someone starves",
                  "R red, O orange, Y yellow, G green, B blue, P purple, K black, W wild"):
        assert words in rules_text, words
    solo = " ".join("%s %s" % kv for _, rows in sc.rules_help(ctx_for(rules.setup({}, 1, seed()), 0)) for kv in rows)
    assert "25+ Professional" in solo
    assert sc.describe_table(ctx, {"edition": "standard", "last_supper": True}, 3) == \
        "Starving Artists for 3 seats; standard rules; options: Last Supper"
    assert "solo, 35 canvases" in sc.describe_table(ctx, {"edition": "standard", "solo_canvases": 35}, 1)
    mk = lambda day, phase: Snapshot(seat=0, players=2, view={"day": day, "phase": phase}, phase=0, step_kind=None,  # noqa: E731
                                      step_purpose=None, step_label="", step_seats=(), missing=(), over=False,
                                      result=None, log=(), moves=0, entries=0)
    assert sc.is_mark(mk(1, "morning"), mk(1, "afternoon")) and sc.is_mark(mk(1, "night"), mk(2, "morning"))
    assert not sc.is_mark(mk(1, "morning"), mk(1, "morning"))
    assert type(screen_for("starving-artists")) is StarvingArtistsScreen
    assert "a turn works" in sc.timeout_effect and "an announcement sells nothing" in sc.timeout_effect


# --------------------------------------------------------------------------- a real table in memory


class SANet(MemTable):
    """n sans-IO peers playing Starving Artists, wired together in memory."""

    GAME = "starving-artists"

    def bots(self, seats, stop=lambda st: False, limit: int = 500) -> None:
        """Bots move for ``seats`` until none of them has to, or ``stop(state)``."""
        for _ in range(limit):
            st = self.table.state
            if self.table.over or stop(st):
                return
            movers = [i for i in seats if self.peers[i].needs_decision()]
            if not movers:
                return
            for i in movers:
                self.act(i, pick(self.peers[i].table.state, i))

    @property
    def table(self):
        return self.peers[0].table


def pick(st: rules.State, seat: int) -> dict:
    """A plain test bot: sells everything, takes the game's pick, paints the most, buys while it has < 2 canvases."""
    if st.step in ("collect", "answer", "dusk"):
        return rules.default_action(st, seat)
    legal = rules.legal_actions(st, seat)
    if st.step == "announce":
        return max(legal, key=lambda a: len(a["canvases"]))
    paints = [a for a in legal if a["do"] == "paint" and "then" not in a]
    best = max(paints, key=lambda a: len(a["place"])) if paints else None
    if best and len(best["place"]) >= 2:
        return best
    buys = [a for a in legal if a["do"] == "buy" and "then" not in a]
    if buys and len(st.canvases[seat]) < 2:
        return buys[0]
    return best or {"do": "work"}


class PickBot:
    def choose(self, view, seat, rng):
        return pick(rules.state_from_view(view, rng), seat)


async def play_turn(ui, net, inp, lines: list[str], seat: int = 0) -> dict:
    """Open our decision, type ``lines``, return what was sent; the table applies it."""
    async with deciding(ui, net, seat) as got:
        await until(lambda: "YOUR MOVE" in flat(ui))
        for line in lines:
            inp.send_text(line + ENTER)
    assert got.get("action") is not None, lines
    net.act(seat, got["action"])
    ui.update(net.table, [], "")
    return got["action"]


async def test_a_whole_day_played_through_the_ui_with_bots_at_the_other_seats():
    net = SANet(3)
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(0, input=inp, output=DummyOutput(), send_at_once=True)  # these tests are about the moves, not the draft
            ui.update(net.table, [], "3/3 peers connected")
            assert isinstance(ui.screen, StarvingArtistsScreen)
            async with running(ui):
                sent = []
                # acting out of turn (if another seat is first): a clear message, nothing sent
                net.bots([1, 2])
                ui.update(net.table, [], "")
                st = net.table.state
                assert st.actor == 0 and st.phase == "morning"
                # morning: a bad command first (nothing is sent, the decision stays open), then work
                async with deciding(ui, net) as got:
                    await until(lambda: "YOUR MOVE (day 1 morning)" in flat(ui))
                    assert "Day 1 morning: your turn." in flat(ui)
                    inp.send_text("trade KK for W" + ENTER)
                    await until(lambda: "nothing sent" in flat(ui))
                    await trio.sleep(0.05)
                    assert "action" not in got and ui.composer.asked is not None
                    inp.send_text("work" + ENTER)
                assert got["action"] == {"do": "work"}
                # said while its step is open; once the table applied it the log says it (issue 23: words
                # about a closed step do not stay)
                await until(lambda: "Sent: works: 3 cubes from the bag" in flat(ui) or "Sent: seat 0 works" in flat(ui))
                net.act(0, got["action"])
                ui.update(net.table, [], "")
                await until(lambda: "seat 0 (you) works" in flat(ui))
                sent.append(got["action"])
                inp.send_text("work" + ENTER)                          # out of turn now
                await until(lambda: "nothing sent" in flat(ui))
                net.bots([1, 2])
                ui.update(net.table, [], "")
                assert net.table.state.phase == "afternoon" and net.table.state.actor == 0
                # afternoon: buy slot 1 with the suggested payment (Enter sends it)
                async with deciding(ui, net) as got:
                    await until(lambda: "YOUR MOVE (day 1 afternoon)" in flat(ui))
                    inp.send_text("buy 1" + ENTER)
                    await until(lambda: "Draft: buy slot 1" in flat(ui))
                    inp.send_text(ENTER)
                assert got["action"]["do"] == "buy" and got["action"]["slot"] == 1
                net.act(0, got["action"])
                ui.update(net.table, [], "")
                sent.append(got["action"])
                # the rest of the day and its night, then day 2 begins
                net.bots([1, 2], stop=lambda s: s.day > 1)
                for _ in range(10):
                    if net.table.state.day > 1 or not net.peers[0].needs_decision():
                        break
                    await play_turn(ui, net, inp, ["sell none" if net.table.state.step == "announce" else "take best"])
                    net.bots([1, 2], stop=lambda s: s.day > 1)
                ui.update(net.table, [], "")
                st = net.table.state
                assert st.day == 2 and st.first == 1                   # the marker passed clockwise
                text = flat(ui)
                assert "day 2 morning" in text.split("\n")[0] or "day 2 morning" in text
                assert len(st.canvases[0]) == 1 and sum(st.studios[0]) >= 6
                assert "seat 0 (you) works" in text and "seat 0 (you) buys" in text
                inp.send_text(CTRL_Q + CTRL_Q)
                await until(lambda: ui.closed)


def _decides(seat: int, step: str):
    """``stop`` for SANet.bots: ``seat`` is to decide (no chance step first) in the night's ``step``."""
    return lambda st: st.phase == "night" and st.step == step and st.actor == seat and rules.turn(st).kind == "sequential"


def night_with_a_sale(seat: int = 0) -> tuple[SANet, list[int]]:
    """A fresh 3-seat table (plain test bots everywhere) stopped where ``seat`` announces its night
    sales, for the first table seed at which selling every complete canvas then gives ``seat`` at
    least two collection actions to choose (found on a throw-away copy: every table is deterministic)."""
    others = [s for s in range(3) if s != seat]
    for k in range(1, 30):
        probe = SANet(3, seed=k)
        probe.bots(range(3), stop=_decides(seat, "announce"), limit=2000)
        st = probe.table.state
        if not _decides(seat, "announce")(st):
            continue
        sold = [c for c, f in st.canvases[seat] if rules.is_complete(f)]
        probe.act(seat, {"do": "sell", "canvases": sold, "supper": None})
        choices = []
        while True:
            probe.bots(others, stop=lambda s: _decides(seat, "collect")(s) or s.phase != "night")
            if not _decides(seat, "collect")(probe.table.state):
                break
            choices.append(len(rules.legal_actions(probe.table.state, seat)))
            probe.act(seat, rules.default_action(probe.table.state, seat))
        if len(choices) >= 2 and choices[0] > 1:
            net = SANet(3, seed=k)
            net.bots(range(3), stop=_decides(seat, "announce"), limit=2000)
            assert net.table.state == st
            return net, sold
    raise AssertionError("no table seed gives seat %d a night with a sale and a collection to choose" % seat)


async def test_a_night_with_a_sale_and_collections_typed_through_the_ui():
    """The night's commands through prompt-toolkit: ``sell all`` announces, ``take LETTERS`` takes
    cubes of our choice, ``take best`` the game's pick; the sale and the cubes land on the table."""
    net, sold = night_with_a_sale(0)
    before = net.table.state
    assert sold and before.day >= 1
    others = [1, 2]
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(0, input=inp, output=DummyOutput(), send_at_once=True)  # these tests are about the moves, not the draft
            ui.update(net.table, [], "3/3 peers connected")
            async with running(ui):
                # the announcement
                async with deciding(ui, net) as got:
                    await until(lambda: "YOUR MOVE (night: announce sales)" in flat(ui))
                    assert "Night: announce your sales (final). Complete: " in flat(ui)
                    inp.send_text("sell all" + ENTER)
                assert got["action"] == {"do": "sell", "canvases": sold, "supper": None}
                net.act(0, got["action"])
                ui.update(net.table, [], "")
                await until(lambda: "seat 0 (you) sells" in flat(ui))
                # the other sellers announce; then our first collection action, cubes of our choice
                net.bots(others, stop=_decides(0, "collect"))
                ui.update(net.table, [], "")
                st = net.table.state
                assert _decides(0, "collect")(st)
                best = rules.default_action(st, 0)
                mine = next(a for a in rules.legal_actions(st, 0) if a != best)
                letters = "".join(c * n for c, n in mine["cubes"].items())
                async with deciding(ui, net) as got:
                    n = sum(mine["cubes"].values())
                    await until(lambda: "YOUR MOVE (night: collect %d cube" % n in flat(ui))
                    inp.send_text("take " + letters + ENTER)
                assert got["action"] == mine
                net.act(0, mine)
                ui.update(net.table, [], "")
                after = net.table.state
                assert after.studios[0] == tuple(a + b for a, b in zip(st.studios[0], rules.counts_of(mine["cubes"])))
                assert after.paint_market == tuple(a - b for a, b in zip(st.paint_market, rules.counts_of(mine["cubes"])))
                await until(lambda: "seat 0 (you) collects %s" % rules.cube_words(rules.counts_of(mine["cubes"])) in flat(ui))
                # the rest of the night: "take best" whenever we are asked
                takes = 0
                for _ in range(40):
                    net.bots(others, stop=lambda s: _decides(0, "collect")(s) or s.phase != "night")
                    if net.table.state.phase != "night":
                        break
                    pick_ = rules.default_action(net.table.state, 0)
                    assert await play_turn(ui, net, inp, ["take best"]) == pick_
                    takes += 1
                ui.update(net.table, [], "")
                end = net.table.state
                assert end.phase != "night" and (end.day == before.day + 1 or end.phase == "over")
                assert end.sold[0] == before.sold[0] + tuple(sold)
                assert end.score[0] == before.score[0] + sum(CARDS[c].stars for c in sold)
                assert all(c not in [cid for cid, _ in end.canvases[0]] for c in sold)
                assert takes >= 1
                inp.send_text(CTRL_Q + CTRL_Q)
                await until(lambda: ui.closed)


@pytest.mark.parametrize("rows,cols", [(30, 100), (50, 160)])
async def test_full_screen_keeps_every_part_on_screen(rows, cols):
    net = SANet(4, seed=3)
    net.bots([1, 2, 3])
    for _ in range(3):                         # a few turns in, so there are canvases to draw
        if net.peers[0].needs_decision():
            st = net.peers[0].table.state
            net.act(0, pick(st, 0))
        net.bots([1, 2, 3])
    assert net.peers[0].needs_decision()
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            out = Vt100_Output(io.StringIO(), lambda: Size(rows=rows, columns=cols), term="xterm")
            ui = GameUI(0, input=inp, output=out, send_at_once=True)  # these tests are about the moves, not the draft
            ui.update(net.table, [], "4/4 peers connected")
            async with running(ui):
                async with deciding(ui, net) as got:
                    inp.send_text("paint 9 0 R" + ENTER)
                    await until(lambda: any("no canvas 9" in l for l in _screen(ui, rows, cols)))
                    lines = _screen(ui, rows, cols)
                    v = net.table.view(0)
                    assert lines[0].startswith(" Easel - Starving Artists") and "day %d %s" % (v["day"], v["phase"]) in lines[0]
                    assert lines[1].startswith(" DAY %d %s " % (v["day"], v["phase"].upper()))
                    assert "your turn" in lines[1] and "Seats" in lines[1]
                    studio = " ".join("%s%d" % (c, v["studios"][0].get(c, 0)) for c in rules.COLOURS)
                    assert any(l.startswith(studio) for l in lines[2:7]), studio
                    assert any(l.startswith("Paint Market") for l in lines[2:7])
                    for s in range(4):
                        row = next(l for l in lines[2:8] if re.search(r"[> ] seat %d\b" % s, l))
                        meter = "●" * v["nutrition"][s] + "○" * (5 - v["nutrition"][s])
                        assert meter in row, (s, row)
                    assert any("YOUR MOVE (day %d %s)" % (v["day"], v["phase"]) in l for l in lines)
                    assert any(l.startswith("Your turn: work | buy SLOT") for l in lines)
                    assert any(l.startswith(">") for l in lines)
                    assert lines[rows - 1].startswith("work | buy SLOT")
                    middle = "\n".join(lines)
                    assert "Your canvases" in middle and "cost 1" in middle
                    if rows <= 30:      # a short terminal: the newest log lines at the top, no PgDn needed
                        assert any(l.startswith("Latest (the event log is below: PgDn)") for l in lines)
                        assert "seat 3" in middle.split("Latest", 1)[1].split("\n\n", 1)[0]
                    if cols >= 160:
                        assert "cost 3" in middle and "Studios" in middle
                    inp.send_text("help" + ENTER)
                    await until(lambda: any("Help - " in l for l in _screen(ui, rows, cols)))
                    assert any("buy SLOT [pay CUBES]" in l for l in _screen(ui, rows, cols))
                    inp.send_text("?" + "work" + ENTER)
                assert got["action"] == {"do": "work"}
                inp.send_text(CTRL_Q + CTRL_Q)
                await until(lambda: ui.closed)
    # the plain text render fits 100 columns too
    ui = GameUI(0, output=DummyOutput())
    ui.update(net.table, [], "")
    for line in ui.render_text().splitlines():
        assert len(line) <= 100, line


# --------------------------------------------------------------------------- replay


def test_replay_of_a_finished_game_renders_every_entry():
    from .helpers import GAMES, simulate

    _, _, peers = simulate(3, seed=11, game="starving-artists", bot=PickBot(), games=GAMES)
    entries = list(peers[0].log_entries)
    ui = ReplayUI(entries, 0, output=DummyOutput(), games=GAMES)
    assert isinstance(ui.screen, StarvingArtistsScreen)
    assert "the table opens (genesis): Starving Artists for 3 seats; standard rules; options: none" in flat(ui)
    sold = False
    for i in range(len(entries)):
        ui.goto(i)
        assert ui.pos == i
        text = ui.render_text()
        assert "Starving Artists" in text.splitlines()[0]
        sold = sold or "Getting paid" in text
    assert ui._error is None
    text = flat(ui)
    assert "GAME OVER after day" in text and "points sold food cubes" in text
    assert sold and any(peers[0].table.result()["sold"])
    # marks: each day and phase change
    ui.goto(0)
    ui.next_mark()
    first = ui.pos
    v0, v1 = ui._snaps[first - 1].view, ui._snaps[first].view
    assert v0 is None or (v0["day"], v0["phase"]) != (v1["day"], v1["phase"])
    ui.next_mark()
    assert ui.pos > first and ui._snaps[ui.pos].view["phase"] != ui._snaps[ui.pos - 1].view["phase"]
    ui._toggle_help(True)
    assert "starts a new day or phase" in flat(ui) and "Starving Artists in short" in flat(ui)


@pytest.mark.parametrize("players,options", [(1, {}), (2, {"edition": "junior"}),
                                             (4, {"color_study": True, "player_trades": True, "last_supper": True})])
def test_every_state_of_a_game_renders_within_the_width(players, options):
    """A whole bot game: every seat's (and a spectator's) screen at each step, at 100 and 160 columns."""
    from core.games.starving_artists.bots import RandomBot

    st = rules.setup(rules.configure(options, players), players, seed(players))
    bots = [PickBot() if s % 2 == 0 else RandomBot() for s in range(players)]
    sc = StarvingArtistsScreen()
    rng = Rng(seed(9), "screen-test")
    for k in range(400):
        t = rules.turn(st)
        for s in list(range(players)) + [None]:
            ctx = ctx_for(st, s, deciding=s in t.seats)
            if s in t.seats:
                sc.on_decision(ctx)
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
        if t.kind == "chance":
            st = rules.chance(st, bytes([k % 256]) * 32)
            continue
        acts = [(s, rules.check(st, s, bots[s].choose(rules.view(st, s), s, rng))) for s in t.seats]
        for s, a in acts:
            assert sc.describe(GAME, st, s, a).startswith("seat %d " % s)
            st = rules.apply(st, s, a)
    assert st.phase == "over" or k == 399
    if st.phase == "over":
        assert sc.final_words(ctx_for(st, 0, deciding=False)).startswith("Game over after day")


def test_the_event_log_names_each_canvas_once_per_painting_move():
    from cli.screens.starving_artists import compact_event
    # the game's own words, squares separated by "; " (a move) or ", " (an event), and after ", then "
    assert compact_event("seat 1 paints B on square 0 of 'The Lady of Shalott'; R on square 1 of 'The Lady of "
                         "Shalott'; Y on square 2 of 'Monet's Garden, a view'") == \
        "seat 1 paints B on 0, R on 1 of 'The Lady of Shalott'; Y on 2 of 'Monet's Garden, a view'"
    assert compact_event("seat 2 paints G on square 0 of 'X', P on square 4 of 'X'") == "seat 2 paints G on 0, P on 4 of 'X'"
    assert compact_event("seat 0 trades 2 B for 1 R with the Paint Market, then paints B on square 3 of 'A'; "
                         "R on square 1 of 'A'") == \
        "seat 0 trades 2 B for 1 R with the Paint Market, then paints B on 3, R on 1 of 'A'"
    # the live event log: every painting move names its canvas once
    net = SANet(3)
    ui = GameUI(0, output=DummyOutput())
    ui.update(net.table, [], "")
    seen = []
    for _ in range(400):                            # bounded: bot turns until a move paints 2+ squares of a canvas
        if net.table.over or seen:
            break
        movers = [k for k in range(3) if net.peers[k].needs_decision()]
        if not movers:
            break
        for k in movers:
            a = pick(net.peers[k].table.state, k)
            net.act(k, a)
            if a.get("do") == "paint" and len({p[0] for p in a["place"]}) < len(a["place"]):
                seen.append((k, a))
        ui.update(net.table, [], "")
    assert seen, "a bot should paint two squares of one canvas"
    log = [text for _, text in ui._snap.log]
    paints = [t for t in log if " paints " in t]
    assert paints and not [t for t in paints if "on square" in t]
    k, a = seen[0]
    title = "'%s'" % CARDS[a["place"][0][0]].title
    squares = ", ".join("%s on %d" % (p[2], p[1]) for p in a["place"] if p[0] == a["place"][0][0])
    assert any(("%s of %s" % (squares, title)) in t and t.count(title) == 1 for t in paints), (squares, title, paints)


# --------------------------------------------------------------------------- names (issue 19)


def test_with_names_in_the_genesis_the_screen_says_names_and_keeps_the_studios_column():
    from core.events import seat_names

    from .helpers import seat_keys

    st = turn_state(options={"player_trades": True})
    st = rules.apply(st, 0, {"do": "offer", "give": {"K": 1}, "take": {st_col(st, 1): 1}})
    names = seat_names({"seats": [bytes(k.verify_key) for k in seat_keys(3)], "names": ["Maximilian", "Zoe", "Bo"]})
    sc = StarvingArtistsScreen()
    ctx = ctx_for(st, 1)
    ctx = replace(ctx, snap=replace(ctx.snap, names=names))
    ui = GameUI(1, output=DummyOutput(), screen=sc)
    ui._snap = ctx.snap
    said = sc.on_decision(ctx)
    ui._say(said.text, said.style)
    text = ui.render_text()
    assert "you are Zoe (seat 1)" in text and "answers to Maximilian's offer" in text          # title
    assert "Trade offer: Maximilian gives K for" in text
    assert "Maximilian offers K for your" in text                                             # the prompt's words
    assert not re.search(r"\b[Ss]eat [0-9]\b", text.replace("(seat 1)", "")), text
    rows = text.splitlines()
    at = next(i for i, l in enumerate(rows) if l.startswith("Studios ("))
    studios = rows[at + 1:at + 4]
    assert [l.split()[0] for l in studios] == ["Maximilian", "you", "Bo"]
    # the cubes start in one column, after the longest name
    assert {re.match(r"  \S+ +", l).end() for l in studios} == {len("  Maximilian ")}, studios
    # a time-out says what it does in that step only
    assert sc.timeout_effect_for(rules.turn(st).label) == "the offer is declined"
    assert sc.timeout_effect_for(rules.turn(turn_state()).label) == "the turn is spent working"
    # without names: as before
    plain = GameUI(1, output=DummyOutput(), screen=StarvingArtistsScreen())
    plain._snap = ctx_for(st, 1).snap
    assert "Trade offer: seat 0 gives K for" in plain.render_text()


def test_news_cut_short_says_how_much_more_is_in_the_log_never_a_placeholder():
    """Seen on the LAN: "So far: ...;" and "Since your last move: ...;" - a lone "..." for the news left out."""
    from cli.screens.starving_artists import StarvingArtistsScreen

    sc = StarvingArtistsScreen()
    events = ["seat 1 buys 'A Rather Long Title Of A Painting %d' from slot 2 for 3 paint" % k for k in range(12)]
    first = sc._news({"day": 1, "events": events, "event_days": [1] * 12}, 0)
    assert first.startswith(" So far (") and "more in the event log): " in first and "..." not in first
    more = events + ["seat 2 works and draws 3 cubes %d" % k for k in range(12)]
    later = sc._news({"day": 1, "events": more, "event_days": [1] * 24}, 0)
    assert later.startswith(" Since your last move (") and "..." not in later
    n = int(re.search(r"\((\d+) more in the event log\)", later).group(1))
    assert n + later.count("; ") + 1 == 12
    short = StarvingArtistsScreen()._news({"day": 1, "events": events[:1], "event_days": [1]}, 0)
    assert short.startswith(" So far: ") and "more in" not in short
