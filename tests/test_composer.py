"""The shell's composer, without prompt-toolkit or trio (cli/composer.py): the decision asked, the draft
held, the send (checked and sealed as the peer will send it, posted as one Decided), what the step owes
us, the words under the board and the quit question."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from cli.composer import Asked, Composer
from cli.outbox import Decided, NodeStopped
from cli.screens import CommandError
from core.engine import IllegalAction


class Bids:
    """A game of one rule: a bid of 1..money; a secret seals a bid with a tag only it can give."""

    def check(self, state, seat, action):
        if not isinstance(action, dict) or not 1 <= action.get("bid", 0) <= state["money"]:
            raise IllegalAction("you have only %d" % state["money"])
        return dict(action)

    def seal_action(self, state, seat, action, secret):
        return dict(action, sealed=secret.hex())

    def problems(self, state, seat, action):
        try:
            self.check(state, seat, action)
            return []
        except IllegalAction as exc:
            return [str(exc)]

    def legal_actions(self, state, seat, secret=None):
        return [{"bid": n} for n in range(1, state["money"] + 1)]


@dataclass
class Snap:
    moves: int = 0
    over: bool = False
    missing: tuple = ()
    phase: int = 3
    names: tuple = ()
    view: object = None
    game: object = None
    state: object = None


def describe(game, state, seat, action):
    return "seat %d bids %d" % (seat, action["bid"])


def composer(seat=1):
    table = {"snap": Snap()}
    c = Composer(seat, lambda: table["snap"])
    return c, table


def asked(phase=3, money=10):
    return Asked(seat=1, view={}, game=Bids(), state={"money": money}, phase=phase)


def test_a_move_is_sent_checked_and_sealed_as_one_decided_and_only_while_asked():
    c, _ = composer()
    posted: list = []
    with pytest.raises(CommandError, match="not your turn"):
        c.send({"bid": 3}, b"\x07", describe, posted.append)
    a = asked()
    c.open(a)
    with pytest.raises(CommandError, match="illegal move: you have only 10"):
        c.send({"bid": 11}, b"\x07", describe, posted.append)
    assert posted == [] and c.deciding() is a
    sent = c.send({"bid": 3}, b"\x07", describe, posted.append)
    assert posted == [Decided(a, {"bid": 3, "sealed": "07"})]
    assert (sent.phase, sent.action, sent.text) == (3, {"bid": 3, "sealed": "07"}, "seat 1 bids 3")
    assert a.submitted and c.deciding() is None and c.asked is a      # answered: no second send
    with pytest.raises(CommandError, match="not your turn"):
        c.send({"bid": 4}, b"\x07", describe, posted.append)
    c.close(a)
    assert c.asked is None


def test_a_node_gone_keeps_the_decision_open_and_says_so():
    c, _ = composer()
    a = asked()
    c.open(a)

    def gone(decided):
        raise NodeStopped("the game node has stopped")

    with pytest.raises(CommandError, match="the game node has stopped; the move was not sent"):
        c.send({"bid": 3}, None, describe, gone)
    assert c.deciding() is a and c.sent is None


def test_the_draft_is_held_checked_and_dropped_when_its_decision_is_answered_or_gone():
    c, table = composer()
    a = asked()
    c.open(a)
    with pytest.raises(CommandError, match="illegal"):
        c.hold({"bid": 0}, None, describe)
    held = c.hold({"bid": 2}, None, describe)
    assert held.text == "bids 2" and c.held_now() is held       # "seat 1: " is ours: not said
    assert c.draft_line(table["snap"], False, lambda: [("", "screen's own")]) == (
        [("bold", "Draft: "), ("", "bids 2"),
         ("class:label", " (Enter on an empty line sends it; another command replaces it)")], False)
    c.close(a)
    c.open(asked(phase=4))
    assert c.held_now() is None and c.held is None               # the step it was for is gone
    assert c.draft_line(table["snap"], False, lambda: [("", "screen's own")]) == ([("", "screen's own")], False)
    assert c.draft_line(table["snap"], True, list)[0][0][1].startswith("Your move is open: the reveal plays first")
    table["snap"] = Snap(over=True)
    assert c.draft_line(table["snap"], False, list)[1] is True
    assert Composer(None, lambda: None).draft_line(None, False, list) == ([("class:label", "Spectating.")], True)


def test_once_sent_the_step_no_longer_waits_for_us():
    c, _ = composer()
    a = asked(phase=3)
    c.open(a)
    c.send({"bid": 1}, None, describe, lambda d: None)
    snap = Snap(phase=3, missing=(0, 1))
    assert c.mine_done(snap).missing == (0, 1)     # not yet taken by the node
    c.answered(a)
    assert c.mine_done(snap).missing == (0,)
    assert c.mine_done(Snap(phase=4, missing=(1,))).missing == (1,)


def test_not_your_turn_names_who_the_step_waits_for():
    c, table = composer()
    table["snap"] = Snap(missing=(0, 2))
    assert "waiting for" in str(c.not_your_turn())
    table["snap"] = Snap()
    assert str(c.not_your_turn()) == "it is not your turn to move yet"


def test_the_context_reads_the_open_decision_with_our_secret():
    c, table = composer()
    ctx = c.context(table["snap"], b"\x01")
    assert not ctx.deciding and ctx.game is None and ctx.check({"x": 1}) == {"x": 1}
    c.open(asked(money=2))
    ctx = c.context(table["snap"], b"\x01")
    assert ctx.deciding and ctx.check({"bid": 2}) == {"bid": 2, "sealed": "01"}
    assert ctx.problems({"bid": 3}) == ["you have only 2"] and len(ctx.legal()) == 2


def test_the_quit_question_stays_up_and_what_was_said_meanwhile_shows_once_it_is_answered():
    c, table = composer()
    c.say("Sent: bids 3")
    c.quit_armed = True
    c.say("Quit in the middle of the game?", "class:error")
    c.say("Round 2: your bid")                       # the table went on meanwhile
    assert c.shown(False) == [("class:error", "Quit in the middle of the game?")]
    table["snap"] = Snap(moves=5)
    c.expire()
    assert c.message[1].startswith("Quit")             # a question asked stays asked
    c.quit_armed = False                                # typing: stay
    assert "Round 2" not in c.message[1]               # said about a step that has closed since: not brought back
    c.quit_armed = True
    c.say("Quit in the middle of the game?", "class:error")
    c.say("later words")
    c.quit_armed = False
    assert c.shown(False) == [("class:info", "later words")]


def test_words_about_a_step_expire_with_it_and_a_time_out_stays_on_its_own_line():
    c, table = composer()
    c.say("Sent: bids 3")
    table["snap"] = Snap(moves=1)
    c.expire()
    assert c.shown(False) == []
    c.timeout_words = "Time ran out: your move was not sent in time and counts as no move."
    c.say(c.timeout_words, "class:error")
    table["snap"] = Snap(moves=2)
    c.expire()
    assert c.shown(False) == [("class:error", c.timeout_words)]     # stays until the next prompt
    c.set_notice(c.timeout_words)
    c.say("Your bid?")
    assert [t for _, t in c.shown(False)] == [c.timeout_words, "Your bid?"]
    table["snap"] = Snap(moves=3)
    c.expire()
    assert [t for _, t in c.shown(False)] == []


def test_a_prompt_said_during_a_reveal_waits_for_its_end():
    c, table = composer()
    c.say_after_reveal("Round 2: bid", "class:info", True)
    assert c.shown(True) == []
    assert c.shown(False) == [("class:info", "Round 2: bid")]
    c.say_after_reveal("Round 3: bid", "class:info", True)
    table["snap"] = Snap(moves=9)
    c.expire()                                          # the step they were about closed under the reveal
    assert c.shown(False) == []                         # neither is shown: both speak of a closed step


def test_time_outs_are_said_once_each_and_only_for_our_seat():
    @dataclass
    class Note:
        phase: int
        text: str

    @dataclass
    class Table:
        timeouts: dict
        notes: list

    c, _ = composer(seat=1)
    assert c.timeouts(Table({1: {1}}, []), {}, lambda label: "") == []      # before we watched: old news
    t = Table({1: {1}, 2: {0}, 3: {1}, 4: {1}}, [Note(3, "time-out (sealed auction)")])
    said = c.timeouts(t, {(4, 1): {"text": "your bid 5 reached them late"}}, lambda label: " (no bid)")
    assert said == ["Time ran out for sealed auction: your move was not sent in time and counts as no move (no bid).",
                    "Voted out: your bid 5 reached them late."]
    assert c.timeouts(t, {}, lambda label: "") == []
