"""The reveal moment and the readable boards (cli/shell.py beats, cli/screens/painting/ and
cli/screens/starving_artists/), and the countdown from the first decision on.

Beats are checked two ways: from the screens directly (what each beat says and draws), and through
prompt-toolkit's pipe input on a running UI with a pace (the beats play, Space and Esc skip them;
pace 0, the default in tests, plays nothing).
"""

from __future__ import annotations

import re

import pytest
import trio
from prompt_toolkit.formatted_text import fragment_list_to_text as text_of
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from cli.screens import Beat, join
from cli.screens.painting import round_story
from cli.screens.starving_artists import new_events, night_beats
from cli.shell import GameUI, ReplayUI, default_pace, snapshot_of

from .test_painting_screen import grid_rows
from .test_starving_screen import SANet, pick
from .test_ui import ESC, Net, deciding, flat, running, until

ENTER = "\r"
CTRL_Q = "\x11"
LIMIT = 20


def plain(lines) -> str:
    return text_of(join(lines))


def round_beats(net: Net, moves: dict, seat: int = 0) -> tuple[GameUI, list[Beat]]:
    """A UI that saw the round open, then the round played with ``moves`` (seat -> action): its beats."""
    ui = GameUI(seat, output=DummyOutput())
    ui.update(net.table, [], "")
    before = ui._snap
    for s, action in moves.items():
        net.act(s, action)
    ui.update(net.table, [], "")
    return ui, ui.screen.beats(ui._ctx(), before)


# --------------------------------------------------------------------------- the painting round, beat by beat


def test_a_sealed_round_opens_beat_by_beat_bids_auction_splashes_matches():
    net = Net(3)
    offer = [sh["id"] for sh in net.table.view(0)["offer"]]
    a, b = offer[0], offer[1]
    ui, beats = round_beats(net, {
        0: {"bids": {str(a): 9, str(b): 4}, "splash": [2, 2, "R"]},
        1: {"bids": {str(a): 7, str(b): 4}, "splash": [2, 3, "B"]},
        2: {"bids": {}, "splash": None},
    })
    assert [type(x) for x in beats] == [Beat] * 5
    caps = [x.caption for x in beats]
    assert caps[0] == "Round 1: the sealed moves are opened - the bids, sheet by sheet"
    assert caps[1] == "Round 1: who took what, and what they paid"
    assert caps[2] == "you splash red at 2 2" and caps[3] == "seat 1 splashes blue at 2 3"
    assert caps[4].startswith("Matches: ") or caps[4] == "Round 1: no owned sheet matches the grid"
    # the bids side by side: a column per sheet, a row per seat
    bids = plain(beats[0].middle).splitlines()
    head = bids[0].split()
    assert head[0] == "sheet" and "#%d" % a in head and "#%d" % b in head
    col = head.index("#%d" % a) // 2 + 1            # "#N vV" is two words
    rows = {l.split()[0] if not l.startswith("seat") else " ".join(l.split()[:2]): l for l in bids[1:]}
    assert rows["you"].split()[col] == "9" and rows["seat 1"].split()[col + 1] == "7"
    assert rows["seat 2"].split()[2:] == ["-"] * len(offer)
    assert "goes to" not in plain(beats[0].middle)     # nothing said about the winners yet
    # who took what: the winning bid highlighted, the tie named
    auction = plain(beats[1].middle)
    assert "you take #%d for 9 (value %d)" % (a, net.table.view(0)["last_round"]["auction"][0]["value"]) in auction
    assert "#%d: you, seat 1 tied - discarded, nobody pays" % b in auction
    assert ("class:win", "9".rjust(8)) in [f for l in beats[1].middle for f in l]
    # each splash lands on the grid as it was, with its mixing
    g2 = plain(beats[2].board)
    assert grid_rows(g2)[2] == ("WRRRW", " [[[ ") and grid_rows(g2)[0] == ("WWWWW", "     ")
    assert "2 2: R on white" in plain(beats[2].middle)
    g3 = plain(beats[3].board)
    assert grid_rows(g3)[2] == ("WRPPB", "  [[[")            # blue lands on red: purple
    assert "2 2: R + B = P purple" in plain(beats[3].middle) and "2 3: R + B = P purple" in plain(beats[3].middle)
    # the last beat holds longer and shows the grid after the round
    assert beats[-1].hold == 2 and beats[0].hold == 1
    final = net.table.view(0)["last_round"]["grid"]
    assert [r[0] for r in grid_rows(plain(beats[-1].board))] == ["".join(c["colour"] for c in row) for row in final]
    # the board pane keeps its size: the beats' boards are as tall as the grid
    assert all(len(x.board) == 7 for x in beats)
    # no new round closed: no beats
    ui.update(net.table, [], "")
    assert ui.screen.beats(ui._ctx(), ui._snap) == []


def test_black_cells_show_during_the_reveal_and_stay_marked_after():
    net = Net(2, {"starting_garnets": 7})
    ui, beats = round_beats(net, {
        0: {"bids": {}, "splash": [2, 2, "R"], "extra": [2, 3, "B"]},
        1: {"bids": {}, "splash": [1, 2, "Y"]},
    })
    # seat 0's splash and extra land as one beat, then seat 1's yellow makes (2, 2) black
    assert beats[2].caption == "you splash red at 2 2 and blue at 2 3 (the second is the extra)"
    assert beats[3].caption == "seat 1 splashes yellow at 1 2"
    assert "2 2: P + Y = K black (all three)" in plain(beats[3].middle)
    last = plain(beats[-1].board)
    assert grid_rows(last)[2][0] == "WRKPB"
    assert "black at 2 2: all three primaries - it matches nothing and is white from the next round" in plain(beats[-1].middle)
    # settled: white again, drawn [k], with the legend; the cells the round changed in brackets
    board = plain(ui.screen.board_lines(ui._ctx()))
    assert grid_rows(board)[2] == ("WRkPB", " [[[[")
    assert "[k] black r1, now W" in board and "[X] changed in r1" in board
    assert all(len(l) <= ui.screen.board_width for l in board.splitlines())


def test_changed_cells_are_exactly_the_cells_the_round_changed():
    net = Net(2)
    net.act(0, {"bids": {}, "splash": [2, 2, "R"]})
    net.act(1, {"bids": {}, "splash": [0, 0, "B"]})
    ui = GameUI(0, output=DummyOutput())
    ui.update(net.table, [], "")        # round 2 opens; the UI never saw round 1 open: the splashed cells stand in
    rows = grid_rows(plain(ui.screen.board_lines(ui._ctx())))
    assert rows[2] == ("WRRRW", " [[[ ")
    assert rows[0] == ("BBWWW", "[[   ")
    # round 2: red again on red changes nothing; blue next to it does
    net.act(0, {"bids": {}, "splash": [2, 2, "R"]})
    net.act(1, {"bids": {}, "splash": [2, 3, "B"]})
    ui.update(net.table, [], "")
    story = round_story(ui._snap)
    assert story.before is not None and story.round == 2
    assert story.changed == {(2, 2), (2, 3), (1, 3), (3, 3), (2, 4)}
    rows = grid_rows(plain(ui.screen.board_lines(ui._ctx())))
    assert rows[1] == ("BWRBW", "   [ ") and rows[2] == ("WRPPB", "  [[[") and rows[3] == ("WWRBW", "   [ ")
    assert rows[0] == ("BBWWW", "     ")             # last round's marks are gone
    # the replay viewer chains its snapshots the same way
    rp = ReplayUI(list(net.peers[0].log_entries), 0, output=DummyOutput(), start=-1)
    assert grid_rows(rp.render_text())[2] == ("WRPPB", "  [[[")
    # and so does anyone taking snapshots in a row (snapshot_of(..., before=...))
    s1 = snapshot_of(net.table, 0)
    assert s1.prev_view is None and s1.moves_tail[-1][0] == s1.moves - 1


def test_a_sheet_that_just_matched_is_framed_and_its_cells_marked():
    net = Net(3)
    ui = GameUI(0, output=DummyOutput())
    ui.update(net.table, [], "")
    found = None
    for rnd in range(2, 7):                         # bounded: the game has 6 rounds
        before = ui._snap
        net.bots(upto_round=rnd)
        ui.update(net.table, [], "")
        beats = ui.screen.beats(ui._ctx(), before)
        if net.table.view(0)["last_round"]["scored"]:
            found = beats
            break
    assert found, "the seed should give a match within the game"
    lr = net.table.view(0)["last_round"]
    e = lr["scored"][0]
    assert found[-1].caption.startswith("Matches: ") and "#%d +%d" % (e["sheet"], e["points"]) in found[-1].caption
    assert "(" in "".join(m for _, m in grid_rows(plain(found[-1].board)))
    assert "MATCH" in plain(found[-1].middle) and "#%d +%d" % (e["sheet"], e["points"]) in plain(found[-1].middle)
    text = ui.render_text()
    assert "Just matched in round %d" % lr["round"] in text
    assert re.search(r"┌#%d \+%d─*┐" % (e["sheet"], e["points"]), text)


def test_sheets_on_offer_and_owned_sheets_each_in_a_frame_with_number_value_owner():
    net = Net(2)
    v = net.table.view(0)
    ui = GameUI(0, output=DummyOutput())
    ui.update(net.table, [], "")
    ui._execute("bid %d 5" % v["offer"][0]["id"])
    text = ui.render_text()
    for sh in v["offer"]:
        assert re.search(r"┌#%d v%d─*┐" % (sh["id"], sh["value"]), text), sh["id"]
    assert re.search(r"└bid 5─*┘", text)
    net.bots()
    ui.update(net.table, [], "")
    text = ui.render_text()
    v = net.table.view(0)
    for s in range(2):
        for h in v["owned"][s]:
            assert re.search(r"┌#%d v%d─*┐" % (h["id"], h["value"]), text)
    feet = re.findall(r"└(you|seat 1)─*┘", text)
    assert len(feet) == sum(len(v["owned"][s]) for s in range(2))


# --------------------------------------------------------------------------- played by the shell


def test_pace_is_zero_in_tests_and_off_a_terminal():
    assert default_pace(None, DummyOutput()) == 0.0
    assert GameUI(0, output=DummyOutput()).pace == 0.0
    assert GameUI(0, output=DummyOutput(), pace=0.7).pace == 0.7
    net = Net(2)
    ui = GameUI(0, output=DummyOutput())
    ui.update(net.table, [], "")
    net.bots(upto_round=2)
    ui.update(net.table, [], "")
    assert not ui.revealing and "REVEAL" not in ui.render_text()


async def test_the_reveal_plays_through_the_ui_and_space_or_esc_skip_it():
    net = Net(2)
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(0, input=inp, output=DummyOutput(), pace=5.0)
            ui.update(net.table, [], "")
            async with running(ui):
                async with deciding(ui, net) as got:
                    inp.send_text("bid 1 5" + ENTER + "splash 2 2 r" + ENTER + ENTER)
                net.act(0, got["action"])
                net.bots(seats=[1])
                ui.update(net.table, [], "")
                assert ui.revealing
                text = flat(ui)
                assert "REVEAL 1/" in text and "the sealed moves are opened - the bids, sheet by sheet" in text
                assert "(Space or Esc skips)" in text and "you 5" in text
                assert " r1 bids open" in text                     # the board pane shows the round's grid
                inp.send_text(" ")
                await until(lambda: not ui.revealing)
                assert "REVEAL" not in flat(ui) and "Grid (row col)" in flat(ui)
                # the next round: Esc skips too, and a decision stays open under the reveal
                async with deciding(ui, net) as got:
                    inp.send_text("splash 0 0 y" + ENTER + ENTER)
                net.act(0, got["action"])
                net.bots(seats=[1])
                ui.update(net.table, [], "")
                assert "REVEAL 1/" in flat(ui) and "Round 2: the sealed moves are opened" in flat(ui)
                inp.send_text(ESC)
                await until(lambda: not ui.revealing)
                inp.send_text(CTRL_Q + CTRL_Q)
                await until(lambda: ui.closed)


async def test_the_beats_follow_each_other_at_the_pace_and_end():
    net = Net(2)
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(0, input=inp, output=DummyOutput(), pace=0.15)
            ui.update(net.table, [], "")
            async with running(ui):
                net.bots()                                  # the whole game, with several round closes
                ui.update(net.table, [], "")
                seen = set()

                def note() -> bool:
                    m = re.search(r"REVEAL (\d+)/(\d+)", flat(ui))
                    if m:
                        seen.add(int(m.group(1)))
                    return m is None

                await until(note)
                assert len(seen) >= 3 and 1 in seen          # several beats were shown, then it ended
                assert not ui.revealing and "GAME OVER" in flat(ui)
                inp.send_text("q")
                await until(lambda: ui.closed)


# --------------------------------------------------------------------------- Starving Artists: the night


def test_starving_artists_night_sales_and_collections_are_beats():
    net = SANet(3)
    ui = GameUI(0, output=DummyOutput())
    ui.update(net.table, [], "")
    caps: list[str] = []
    nights = 0
    for _ in range(400):                            # bounded: a whole game of bot turns
        if net.table.over or nights >= 2:
            break
        movers = [k for k in range(3) if net.peers[k].needs_decision()]
        if not movers:
            break
        before = ui._snap
        for k in movers:
            net.act(k, pick(net.peers[k].table.state, k))
        ui.update(net.table, [], "")
        beats = ui.screen.beats(ui._ctx(), before)
        if before.view and before.view["phase"] not in ("night",) and ui._snap.view["phase"] not in ("night",) \
                and before.view["day"] == ui._snap.view["day"] and ui._snap.view["phase"] != "over":
            assert beats == []                      # daytime turns are not replayed
        for b in beats:
            caps.append(b.caption)
            assert b.board is None and b.middle[0][0][1] in ("Night %d" % before.view["day"],
                                                             "Day %d begins" % ui._snap.view["day"], "The end")
        if any(" sells " in c for c in caps) and any(" collects " in c for c in caps):
            nights += 1
    assert any(" sells " in c for c in caps) and any(" collects " in c for c in caps)
    assert any("announces" in c for c in caps) and any("the Paint Market receives" in c for c in caps)
    assert any("seat 0 (you)" in c for c in caps)


def test_new_events_and_night_beats_one_thing_at_a_time():
    before = {"day": 3, "phase": "night", "event_days": [2, 3, 3], "events": ["a", "b", "c"]}
    after = {"day": 3, "phase": "night", "event_days": [3, 3, 3, 3], "events": ["b", "c", "seat 1 sells 'X': 2 stars, 1 food",
                                                                          "seat 1 collects B, B for 'X'"]}
    assert new_events(before, after) == [(3, "seat 1 sells 'X': 2 stars, 1 food"), (3, "seat 1 collects B, B for 'X'")]
    beats = night_beats(before, after, 1)
    assert [b.caption for b in beats] == ["seat 1 (you) sells 'X': 2 stars, 1 food", "seat 1 (you) collects B, B for 'X'"]
    assert plain(beats[1].middle).splitlines() == ["Night 3 (one thing at a time)",
                                                    "    seat 1 (you) sells 'X': 2 stars, 1 food",
                                                    "  > seat 1 (you) collects B, B for 'X'"]
    assert beats[-1].hold == 2
    morning = dict(after, phase="morning")
    assert night_beats(dict(before, phase="morning"), morning, 1) == []      # a day's turn: nothing to replay
    assert night_beats(None, after, 1) == []


async def test_starving_artists_reveal_plays_in_the_ui():
    net = SANet(3)
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(0, input=inp, output=DummyOutput(), pace=5.0)
            ui.update(net.table, [], "")
            async with running(ui):
                for _ in range(400):
                    if net.table.over or ui.revealing:
                        break
                    movers = [k for k in range(3) if net.peers[k].needs_decision()]
                    if not movers:
                        break
                    for k in movers:
                        net.act(k, pick(net.peers[k].table.state, k))
                    ui.update(net.table, [], "")
                assert ui.revealing
                text = flat(ui)
                assert re.search(r"REVEAL (\d+/\d+ )?.*\(Space or Esc skips\)", text)
                assert "(one thing at a time)" in text
                inp.send_text(" ")
                await until(lambda: not ui.revealing)
                assert "REVEAL" not in flat(ui)
                inp.send_text(CTRL_Q + CTRL_Q)
                await until(lambda: ui.closed)


# --------------------------------------------------------------------------- the countdown from round 1


async def test_the_countdown_shows_in_round_1_before_the_peer_clock_has_seen_the_step():
    """The UI counts down from the Decision's deadline: the peer's own, or, before its clock has seen
    the step, the step's time from now (GameNode.decision_of); the next round counts anew."""
    net = Net(2)
    peer = net.peers[0]                              # a real peer: its step clock starts at its first tick
    assert peer.deadline() is None                   # ... which has not come yet: the step just opened
    with trio.fail_after(LIMIT):
        ui = GameUI(0, output=DummyOutput())
        ui.update(net.table, [], "")
        async with deciding(ui, net) as got:         # the Decision the node builds from this peer
            assert re.search(r"YOUR MOVE \(round 1\)  about (1 min|0:59) left", ui.render_text())
            net.act(0, {"bids": {}, "splash": None})
            net.bots(seats=[1])
            ui.update(net.table, [], "")
        assert got["action"] is None
        # round 2: the peer's clock says 10 s are left (it saw the step 50 s ago): the countdown follows it
        async with deciding(ui, net, peer=True, deadline=trio.current_time() + 10) as got:
            assert re.search(r"YOUR MOVE \(round 2\)  about 0:(10|09) left", ui.render_text()), ui.render_text()
            net.act(0, {"bids": {}, "splash": None})
            net.bots(seats=[1])
            ui.update(net.table, [], "")


# --------------------------------------------------------------------------- the reveal is not spoiled


def _seat_row(ui, seat: int) -> list[str]:
    """The seats table's cells of ``seat`` (tok garn pts extra own ...)."""
    for line in ui.render_text().splitlines():
        m = re.match(r"^[> ] seat %d(?: \(you\))?\s+(.*)$" % seat, line)
        if m:
            return m.group(1).split()
    raise AssertionError("no row for seat %d" % seat)


async def test_while_the_reveal_plays_the_results_wait_for_it():
    net = Net(2)
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(0, input=inp, output=DummyOutput(), pace=5.0)
            ui.update(net.table, [], "")
            async with running(ui):
                offer = [sh["id"] for sh in net.table.view(0)["offer"]]
                async with deciding(ui, net) as got:
                    inp.send_text("bid %d 5" % offer[0] + ENTER + "splash 2 2 r" + ENTER + ENTER)
                net.act(0, got["action"])
                before = net.table.view(0)
                net.act(1, {"bids": {str(offer[1]): 3}, "splash": [0, 0, "B"]})
                after = net.table.view(0)
                assert after["round"] == 2 and after["tokens"][0] != before["tokens"][0]
                ui.update(net.table, [], "")
                async with deciding(ui, net) as got:       # round 2 is open under the reveal
                    await until(lambda: "YOUR MOVE" in ui.render_text())
                    assert ui.revealing
                    text, title = flat(ui), ui.render_text().splitlines()[0]
                    assert "REVEAL 1/" in text and "the bids, sheet by sheet" in text
                    # nothing of the round's outcome shows under the beats: no results line, no summary
                    # on the message line, the seats as they were, the title still in round 1
                    assert "Round 1 results" not in text and "Round 1: you took" not in text
                    assert "Round 2 of 6: your move" not in text
                    assert "round 1/6" in title and "round 2/6" not in title
                    assert _seat_row(ui, 0)[:3] == [str(before["tokens"][0]), str(before["garnets"][0]),
                                                    str(before["points"][0])]
                    assert _seat_row(ui, 1)[2] == str(before["points"][1])
                    assert "Your move is open: the reveal plays first" in text and "tokens)" not in text
                    assert "seat 1 bids 3 on sheet" not in text           # the event log as it was too
                    inp.send_text(" ")                                     # skipped: the results show
                    await until(lambda: not ui.revealing)
                    text, title = flat(ui), ui.render_text().splitlines()[0]
                    assert "Round 1 results" in text and "Round 2 of 6: your move. Round 1: you took #%d" % offer[0] in text
                    assert "round 2/6" in title
                    assert _seat_row(ui, 0)[0] == str(after["tokens"][0])
                    assert "(0 of %d tokens)" % after["tokens"][0] in text and "seat 1 bids 3 on sheet" in text
                    inp.send_text("splash 1 1 y" + ENTER + ENTER)
                inp.send_text(CTRL_Q + CTRL_Q)
                await until(lambda: ui.closed)


async def test_a_command_typed_during_the_reveal_shows_the_live_draft():
    net = Net(2)
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(0, input=inp, output=DummyOutput(), pace=5.0)
            ui.update(net.table, [], "")
            async with running(ui):
                net.act(0, {"bids": {}, "splash": [2, 2, "R"]})
                net.act(1, {"bids": {}, "splash": [0, 0, "B"]})
                ui.update(net.table, [], "")
                async with deciding(ui, net) as got:
                    await until(lambda: "Your move is open" in flat(ui))
                    inp.send_text("splash 1 1 y" + ENTER)
                    await until(lambda: "splash 1 1 Y" in flat(ui))
                    assert ui.revealing and "Your move is open" not in flat(ui)
                    inp.send_text(ENTER)
                assert got["action"]["splash"] == [1, 1, "Y"]
                inp.send_text(CTRL_Q + CTRL_Q)
                await until(lambda: ui.closed)


# --------------------------------------------------------------------------- the reveal keeps up with the table


def test_a_new_reveal_replaces_a_stale_one_and_the_panes_follow_it(monkeypatch):
    """Starving Artists at quick play: a night's beats are still playing when the next night comes.
    The new night's reveal replaces the old one at once (the stale beats are dropped, the first new
    beat says how many), it counts from 1 over its own beats only (never 'REVEAL 5/9' across two
    nights), and the panes show the table before the newest night, then after it from the Paint
    Market's draw on, then the table as it is."""
    import cli.reveal as reveal_mod
    from types import SimpleNamespace

    clock = [1000.0]
    monkeypatch.setattr(reveal_mod, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    pace = 1.0
    net = SANet(3)
    ui = GameUI(0, output=DummyOutput(), pace=pace)
    ui.update(net.table, [], "")

    def title() -> str:
        return ui.render_text().splitlines()[0]

    batches = 0
    first: list = []
    for _ in range(600):                            # bounded: a whole game of bot turns
        if net.table.over:
            break
        movers = [k for k in range(3) if net.peers[k].needs_decision()]
        if not movers:
            break
        prev = ui._snap
        for k in movers:
            net.act(k, pick(net.peers[k].table.state, k))
        ui.update(net.table, [], "")
        new = [it for it in ui.reel.items if it.before is prev]
        if not new:
            continue                                # a daytime turn: nothing to reveal, the clock stands still
        batches += 1
        if batches == 1:
            first = list(ui.reel.items)
            assert len(first) >= 3, [it.beat.caption for it in first]
            assert [(it.k, it.n) for it in first] == [(i + 1, len(first)) for i in range(len(first))]
            assert "REVEAL 1/%d " % len(first) in ui.render_text()
            assert "day %d" % prev.view["day"] in title()          # the night being revealed, not the new day
            clock[0] += pace + 0.01                                 # one beat later: beat 2 shows
            assert "REVEAL 2/%d " % len(first) in ui.render_text()
            continue
        # a newer night while the first is still at its beat 2: it replaces it at once
        reel = ui.reel.items
        dropped = len(first) - 1                    # beat 2 (showing) and the ones after it
        assert list(reel) == new and [(it.k, it.n) for it in new] == [(k, len(new)) for k in range(1, len(new) + 1)]
        assert new[0].note == "%d beat%s of an earlier step skipped: the table moved on" % (
            dropped, "" if dropped == 1 else "s")
        assert all(not it.note for it in new[1:])
        text = " ".join(ui.render_text().split())
        assert "REVEAL 1/%d " % len(new) in text and "(%s)" % new[0].note in text
        assert ui._shown() is prev                                     # the table just before the newest night
        if isinstance(prev.view, dict) and prev.view.get("phase") != "over":
            assert "day %d" % prev.view["day"] in title()
        drawn = [i for i, it in enumerate(new) if "Paint Market receives" in it.beat.caption]
        if drawn:                                  # from the market's draw on, the panes show the new day
            assert all(it.reached for it in new[drawn[0]:]) and not any(it.reached for it in new[:drawn[0]])
            clock[0] = new[drawn[0]].start + 0.01
            assert ui._shown() is ui._snap
        clock[0] = new[-1].end + 0.01                                  # the reveal ends: the table as it is now
        assert not ui.revealing and "REVEAL" not in ui.render_text()
        v = ui._snap.view
        if v.get("phase") != "over":
            assert "day %d %s" % (v["day"], v["phase"]) in title()
        break
    assert batches == 2, "the game should bring a second reveal"


def test_nothing_of_an_earlier_step_plays_after_the_last_one(monkeypatch):
    """Three steps revealed in quick succession (as after a resume or under load): only the last
    step's beats are on the reel, numbered over that step alone."""
    import cli.reveal as reveal_mod
    from types import SimpleNamespace

    clock = [10.0]
    monkeypatch.setattr(reveal_mod, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    ui = GameUI(0, output=DummyOutput(), pace=1.0)
    for r in range(3):
        ui._queue_beats([Beat("round %d beat %d" % (r, i)) for i in range(15)])
        clock[0] += 0.5
    assert [it.beat.caption for it in ui.reel.items] == ["round 2 beat %d" % i for i in range(15)]
    assert (ui.reel.items[0].k, ui.reel.items[-1].k, ui.reel.items[-1].n) == (1, 15, 15)
    assert ui.skip_beats() and not ui.revealing and ui.reel.items == ()


def test_a_new_reveal_after_the_last_one_ended_counts_from_1(monkeypatch):
    import cli.reveal as reveal_mod
    from types import SimpleNamespace

    clock = [50.0]
    monkeypatch.setattr(reveal_mod, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    ui = GameUI(0, output=DummyOutput(), pace=1.0)
    ui._queue_beats([Beat("a"), Beat("b", hold=2)])
    assert [(it.k, it.n, it.end - it.start) for it in ui.reel.items] == [(1, 2, 1.0), (2, 2, 2.0)]
    clock[0] += 3.5                                      # over
    assert not ui.revealing
    ui._queue_beats([Beat("c"), Beat("d"), Beat("e")])
    assert [(it.k, it.n, it.note) for it in ui.reel.items] == [(1, 3, ""), (2, 3, ""), (3, 3, "")]
    ui._queue_beats([])                                  # nothing new: the reel stays as it is
    assert [it.beat.caption for it in ui.reel.items] == ["c", "d", "e"]
