"""The command line's state between the keys and the node, sans-IO: the ``Composer``.

No prompt-toolkit, no trio, no clock: the shell (cli/shell.py ``GameUI``) feeds it what happened
(a decision asked, a command's move, the table's snapshot) and carries out what it answers (the
``Decided`` it hands to ``post``, cli/outbox.py; the words it keeps for the message pane).  It holds:

* the decision open now (``asked``: an ``Asked``, made from the node's ``p2p.node.Decision``), and
  whether our answer to it has gone (``Asked.submitted``; ``deciding`` is the open, unanswered one);
* the draft the shell holds (``held``: a complete move a screen's command composed, checked as it
  will be sent; Enter on an empty line sends it) and the last move sent (``sent``);
* ``send``: the legality check and seal (cli/legality.py ``check``) of a move against the decision
  asked, then the one ``Decided`` handed to ``post`` (the outbox);
* the words under the board: the message, a notice on its own line (a time-out), words held back
  until a reveal ends, and the quit question (asked once mid-game; the next q quits, typing stays):
  while it is up, whatever else is said waits under it and shows once it is answered.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

from core.engine import IllegalAction

from .legality import check, legal_actions, problems
from .outbox import Decided, NodeStopped
from .screens import CommandError, Context, Sent, Snapshot, plain_label, who
from .snapshot import _without_seat

__all__ = ["Asked", "Composer", "Held"]


@dataclass(eq=False)
class Asked:
    """One decision the node asked of our seat (what ``GameUI.decide`` got): matched by identity."""

    seat: int
    view: Any
    game: Any
    state: Any
    phase: int
    submitted: bool = False         # our answer has gone to the node


@dataclass(frozen=True)
class Held:
    """A complete move held as the draft: the decision it answers, the action, its words."""

    asked: Asked
    action: Any
    text: str


class Composer:
    """See the module's doc.  ``seat``: ours (None: spectating); ``snap``: reads the latest snapshot."""

    def __init__(self, seat: int | None, snap: Callable[[], Snapshot | None]) -> None:
        self.seat = seat
        self._snap = snap
        self.asked: Asked | None = None
        self.held: Held | None = None
        self.sent: Sent | None = None              # the last action we sent
        self.sent_phase = -1                       # table phase our last answer went for
        self.message: tuple[str, str] = ("", "")   # (style, text)
        self.message_at: int | None = None         # moves applied when the message was said (see expire)
        self.after_reveal: tuple | None = None     # (style, text, moves) held back until the reveal ends
        self.notice: tuple[str, str] | None = None  # a line of its own above the message (a time-out)
        self.notice_at = -1                        # moves applied when the notice went up
        self.typed_in = -1                         # the reveal during which a command was last typed
        self.timeout_words = ""                    # our last time-out, until the next prompt shows it
        self.question: tuple | None = None         # the quit question on the screen (see quit_armed)
        self.after_quit: tuple | None = None       # (style, text, moves) said while it was: shown once it goes
        self._armed = False
        self._seen_timeouts: set | None = None     # phases whose time-out we already reported

    def _moves(self) -> int:
        snap = self._snap()
        return snap.moves if snap is not None else -1

    # -- the decision, the draft, the send ----------------------------------------------------------
    def open(self, asked: Asked) -> None:
        self.asked = asked

    def close(self, asked: Asked) -> None:
        if self.asked is asked:
            self.asked = None

    def deciding(self) -> Asked | None:
        """The decision open now that we have not answered yet."""
        a = self.asked
        return a if a is not None and not a.submitted else None

    def not_your_turn(self) -> CommandError:
        snap = self._snap()
        return CommandError("it is not your turn to move yet%s" % (
            " (waiting for %s)" % who(snap.missing, self.seat) if snap and snap.missing else ""))

    def checked(self, action: Any, secret: bytes | None) -> tuple[Asked, Any]:
        """(the decision asked, ``action`` as the game normalises and seals it), or a CommandError."""
        a = self.deciding()
        if a is None:
            raise self.not_your_turn()
        if a.game is not None:
            try:
                action = check(a.game, a.state, a.seat, action, secret)
            except IllegalAction as exc:
                raise CommandError("illegal move: %s - fix it and try again" % exc) from None
        return a, action

    @staticmethod
    def _words(describe: Callable, a: Asked, action: Any) -> str:
        try:
            return describe(a.game, a.state, a.seat, action) if a.game is not None else repr(action)
        except Exception:
            return repr(action)

    def hold(self, action: Any, secret: bytes | None, describe: Callable) -> Held:
        """Keep ``action`` as the draft (checked now, as it will be sent); Enter on an empty line sends it."""
        a, action = self.checked(action, secret)
        self.held = Held(a, action, _without_seat(self._words(describe, a, action), a.seat))
        return self.held

    def held_now(self) -> Held | None:
        held = self.held
        if held is not None and held.asked is not self.deciding():
            self.held = held = None        # its step is gone (sent, timed out, closed)
        return held

    def send(self, action: Any, secret: bytes | None, describe: Callable,
             post: Callable[[Decided], None]) -> Sent:
        """Check and seal ``action`` against the decision asked and ``post`` it (the outbox): the one way
        a move leaves the screen.  A CommandError if it is not legal now or the node is gone."""
        a, action = self.checked(action, secret)
        text = self._words(describe, a, action)
        a.submitted = True
        try:
            post(Decided(a, action))
        except NodeStopped:
            a.submitted = False
            raise CommandError("the game node has stopped; the move was not sent") from None
        self.sent = Sent(a.phase, action, text)
        return self.sent

    def answered(self, asked: Asked) -> None:
        """The node took our answer to ``asked``: the step no longer waits for us (``mine_done``)."""
        self.sent_phase = asked.phase

    def mine_done(self, snap: Snapshot) -> Snapshot:
        """Once we have sent our action for a step, the step no longer waits for us."""
        if snap.phase == self.sent_phase and self.seat in snap.missing:
            return replace(snap, missing=tuple(s for s in snap.missing if s != self.seat))
        return snap

    def draft_line(self, snap: Snapshot | None, reveal_first: bool, screens: Callable[[], list]) -> tuple[list, bool]:
        """The draft pane's fragments, and whether they are shown as they are (True) or wrapped:
        our held move, else the screen's own draft (``screens()``); ``reveal_first``: our move is open
        while a reveal plays that we have not typed under (the draft would tell what it shows)."""
        if self.seat is None:
            return [("class:label", "Spectating.")], True
        if snap is not None and snap.over:
            return [("class:label", "The game is over - a plays again with the same seats, n says no "
                                    "to a rematch, q quits.")], True
        if reveal_first:
            return [("class:label", "Your move is open: the reveal plays first (Space or Esc skips "
                                    "it), or type a command to start now.")], False
        held = self.held_now()
        if held is not None:
            return [("bold", "Draft: "), ("", held.text),
                    ("class:label", " (Enter on an empty line sends it; another command replaces it)")], False
        return screens(), False

    def context(self, snap: Snapshot | None, secret: bytes | None) -> Context:
        """What a screen's command reads: the decision open now (else the table as the snapshot has it),
        with the game's checks bound to our seat and ``secret`` (checked as our peer will send it:
        sealed with our seat's secret first, in a game with seat secrets)."""
        p, seat = self.deciding(), self.seat
        if p is not None:
            view, game, state = p.view, p.game, p.state
        else:
            view = snap.view if snap else None
            game = snap.game if snap else None
            state = snap.state if snap else None

        def _check(action: Any) -> Any:
            return action if game is None else check(game, state, seat, action, secret)

        def _problems(action: Any) -> list[str]:
            return [] if game is None or seat is None else problems(game, state, seat, action, secret)

        def _legal() -> list | None:
            return None if game is None or seat is None else legal_actions(game, state, seat, secret)

        return Context(seat=seat, snap=snap, view=view, game=game, state=state, deciding=p is not None,
                       sent=self.sent, check=_check, problems=_problems, legal=_legal)

    # -- the words under the board ------------------------------------------------------------------
    @property
    def quit_armed(self) -> bool:
        """q was pressed once mid-game, and its question stays on the screen until it is answered: the next
        q quits, typing or a command stays. What the table says meanwhile (a step closing, the next prompt)
        waits under it (``after_quit``), so the question the second q answers is always the one shown."""
        return self._armed

    @quit_armed.setter
    def quit_armed(self, armed: bool) -> None:
        was, self._armed = self._armed, armed
        if armed and not was:
            self.question = None                   # the next thing said is the question (GameUI._quit_key)
        elif was and not armed:
            self.question = None
            held, self.after_quit = self.after_quit, None
            if held is not None and (held[2] >= self._moves() or held[1] == self.timeout_words):
                self.message, self.message_at = (held[0], held[1]), held[2]    # still about the table as it is

    def say(self, text: str, style: str = "class:info") -> None:
        moves = self._moves()
        if self._armed:
            if self.question is not None:          # the question stays up; this shows once it is answered
                self.after_quit = (style, text, moves)
                return
            self.question = (style, text)
        self.message = (style, text)
        self.message_at = moves

    def say_after_reveal(self, text: str, style: str, revealing: bool) -> None:
        """Say ``text`` now, or once the reveal playing now ends (a prompt for the next round that tells
        how the round went would give away what the beats are about to show)."""
        if revealing:
            self.after_reveal = (style, text, self._moves())
        else:
            self.say(text, style)

    def set_notice(self, text: str, style: str = "class:error") -> None:
        """``text`` on a line of its own above the message, until the step open now closes (the
        message no longer says it too)."""
        self.notice = (style, text)
        self.notice_at = self._moves()
        if self.message[1] == text:
            self.message = ("", "")

    def expire(self) -> None:
        """Words said about a step are dropped once the table applied moves after them (the step
        closed): a "Sent: your bid" must not stay on through later auctions. Our own time-out stays
        until the next prompt takes it over (its own line, above the prompt), and so does the quit question
        while it is armed; nothing expires at game over."""
        snap = self._snap()
        if snap is None or snap.over:
            return
        if self.notice is not None and snap.moves > self.notice_at:
            self.notice = None
        at = self.message_at
        # a quit asked for stays asked (q q across a step that closes between them quits): only typing,
        # a command or the next q ends it
        if self.message[1] and at is not None and snap.moves > at and self.message[1] != self.timeout_words \
                and not self._armed:
            self.message = ("", "")
        held = self.after_reveal
        if held is not None and snap.moves > held[2]:
            self.after_reveal = None

    def shown(self, revealing: bool) -> list[tuple[str, str]]:
        """The lines the message pane shows now (the notice, the message), once words held back until
        the reveal's end are let through (or put under the quit question)."""
        held = self.after_reveal
        if held is not None and not revealing and self._armed and self.question is not None:
            self.after_reveal = None              # the quit question stays up: it shows once it is answered
            self.after_quit = held
        elif held is not None and not revealing:
            self.message, self.after_reveal = (held[0], held[1]), None
            self.message_at = held[2]
        return [w for w in (self.notice, self.message) if w is not None and w[1]]

    def timeouts(self, table: Any, cut: dict, effect: Callable[[str], str]) -> list[str]:
        """What to say, once each, when a time-out certificate voted our seat out: "Voted out: ..." when our
        peer holds our signed move for that step (it did not reach the voters in time, or they voted
        anyway: protocol.md §6.5), "Time ran out" only when we signed none.  ``effect(label)``: the
        screen's words for what no move costs (cli/snapshot.py ``_effect``)."""
        timeouts = getattr(table, "timeouts", None) or {}
        if self._seen_timeouts is None:        # what happened before we were watching is old news
            self._seen_timeouts = set(timeouts)
            return []
        said = []
        for phase in sorted(set(timeouts) - self._seen_timeouts):
            self._seen_timeouts.add(phase)
            if self.seat is None or self.seat not in timeouts[phase]:
                continue
            mine = cut.get((phase, self.seat))
            if mine is not None:       # we did move: the others voted us out all the same
                said.append("Voted out: %s." % mine["text"])
                continue
            label = ""
            for note in getattr(table, "notes", []):
                if note.phase == phase and "(" in note.text:
                    label = plain_label(note.text[note.text.find("(") + 1:-1])
            said.append("Time ran out%s: your move was not sent in time and counts as no move%s."
                        % (" for %s" % label if label else "", effect(label)))
        return said
