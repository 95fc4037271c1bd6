"""The game-agnostic terminal UI shell (prompt-toolkit, full screen): the live table, ``GameUI``.

Everything here serves every game; what one game shows and understands is
its *screen* (cli/screens/, protocol in cli/screens/__init__.py).

The shell's parts, one job each (this module is ``GameUI``: the parts put
together, ``decide`` and the bottom panes; the names below stay importable
from here):

* cli/panes.py      ``BaseUI``: the panes every UI shows (title, board, seats,
                    middle, scroll bar), the style sheet and the worker-thread runner;
* cli/replay.py     ``ReplayUI``, the replay viewer;
* cli/commands.py   the command line read (``read_line``): the shell's words, the screen's;
* cli/reveal.py     the reveal reel and its pace (``default_pace``);
* cli/composer.py   ``Composer``, sans-IO: the decision asked, the draft (a held move), the
                    send (legality check and seal), what we sent, the words under the board
                    and the quit question;
* cli/outbox.py     ``Outbox``: the one way a decided action goes from the UI to the node;
* cli/countdown.py  ``Countdown``: the time left on our decision, in words, and when those change;
* cli/legality.py   asking the game about an action (``problems``, ``check``, ``seal``) and
                    for its warning;
* cli/terminal.py   standard error kept off the terminal while the UI runs;
* cli/snapshot.py   the immutable ``Snapshot`` of the table the panes draw.

The network node runs in trio on the main thread; prompt-toolkit is asyncio
based, so each UI runs its ``Application`` in a worker thread with its own
asyncio loop (``trio.to_thread.run_sync`` -> ``asyncio.run``).  The two sides
only meet in a few places:

* trio -> UI: ``GameUI.update`` builds an immutable ``Snapshot`` of the table
  (in the trio thread, where the table lives), swaps it in with one attribute
  store and calls ``app.invalidate()``, which is thread safe.  The UI thread
  only ever reads snapshots and immutable game states.
* UI -> trio: a decided action goes through the ``Outbox`` and only there
  (cli/outbox.py): ``Composer.send`` checks and seals it and posts a typed
  ``Decided`` (the one thread hop, ``run_sync_soon`` onto a trio memory
  channel, inside ``Outbox.post``); ``GameUI.decide``, awaited by the node's
  decider loop, awaits ``Outbox.take`` and returns the action to the node,
  which hands it to ``Peer.act``.

The walk of a move: a key -> ``_on_accept`` -> ``_execute`` -> the screen's
``command`` (or ``submit``) -> ``_outcome`` (held as the draft, or sent) ->
``_send`` -> ``Composer.send`` (cli/legality.py ``check``/``seal``) ->
``Outbox.post`` -> ``Outbox.take`` in ``decide`` -> p2p/node.py
``GameNode._decider`` -> ``Peer.act`` -> ``GameNode.apply`` (the log) ->
cli/runner.py ``ui_update`` -> ``update`` (a ``Snapshot``) -> the panes.
* quitting from trio (cancellation, ``exit()``): ``loop.call_soon_threadsafe``
  into the UI loop.

``decide(decision)`` (a ``p2p.node.Decision``) is called by the node each time our seat must
act: once a round in one game, many times a day in another.  Every call is
one action; the shell never assumes one decision per round and never resets
the screen's draft (the screen does, when its game needs it).

One way to play every game: each command edits the draft shown under the
board (a screen's own draft, or a complete move a command composed, which the
shell holds), and Enter on an empty line (or ``send``) sends it; with
``send_at_once`` (``--send-at-once``, ``EASEL_SEND_AT_ONCE=1``) a complete move
goes out as soon as it is typed.

Shell commands (the screen adds its own, see its help page):

    submit, send  (or Enter on an empty line)    send the draft
    help  (or ? on an empty line)          the help page in the middle pane
Keys: q (on an empty line), Ctrl-Q or Ctrl-C quit (mid-game they ask once more);
at game over a seat's ``a`` (on an empty line, or the command ``again``) asks for
a rematch: the UI closes with ``again`` set and ``game_dir`` (given by the
node's runner) naming the finished game, and the runner (cli/live.py) then does
what ``easel again GAME_DIR`` does, the new game opening in the same terminal;
its ``n`` (or ``no``) says no to the rematch instead: the UI closes with
``decline`` set and the runner tells the rematch lobby (``easel again --decline``);
Esc closes the help; Space (on an empty line, where it is never typed) or Esc skips a reveal; PgUp/PgDn scroll the middle pane; Up/Down recall earlier commands.
Esc is bound eagerly: it is never read as the start of a Meta key, which
would swallow the next letter typed within a second.

Warnings: one line above the prompt says what the next step costs our seat
if nothing changes, from the game's own pure ``warnings(view, seat)`` hook
(core/games/<game>/warnings.py, set on the game object), or that our
decision times out in 10 s or less.

The status line shows an estimate of the time left on our decision: the node
hands ``decide`` a typed ``p2p.node.Decision`` whose ``deadline`` is the peer's
step clock (or, before that clock has seen the step, now plus the step's own
time); the shell never probes the peer itself.

The reveal: when moves are applied, the screen's ``beats`` are played at the
UI's pace (a trio timer repaints at each beat); Space on an empty line or Esc
skips them.  Pace 0 (tests, pipes) plays nothing.  While they play, the title,
board, seats, middle pane and event log show the table as it was before the
step they reveal (its results show once the beats end or are skipped, or
from a beat marked ``Beat.after`` on); a prompt that tells how the step went
waits for the end too, and an open decision's draft shows once the player
types.  A newer step's reveal replaces one still playing (cli/reveal.py: the
reel and its rules), so nothing of an earlier step plays after a later one.

Legality: a game with seat secrets (core/engine.py, "Private information")
may need what only our peer can add before an action is legal (Modern Art: a
card play's proof).  The UI knows our seat's secret from the table
(``Table.secrets``, where the peer keeps it) and checks every action as the
peer will send it: through the game's ``seal_action`` first (``seal``).

The replay viewer and its keys: cli/replay.py.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Sequence

import trio
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import BufferControl, HSplit, Layout, Window
from prompt_toolkit.layout.dimension import Dimension as D
from prompt_toolkit.layout.processors import BeforeInput

from core.table import Table

from .commands import LONG_HELP, SAY_KEY, SHELL_HELP, read_line
from .composer import Asked, Composer
from .countdown import WARN_TIMEOUT, Countdown, countdown_words, next_change, on_monotonic  # noqa: F401
from .legality import check, first_warning, legal_actions, problems, seal, secret_of
from .outbox import Outbox
from .panes import STYLE, TEXT_WIDTH, BaseUI, ftc
from .replay import ReplayUI
from .reveal import PACE, default_pace
from .screens import CommandError, Context, Say, Screen, Send, Sent, Snapshot, join, width_of, with_names, wrap
from .snapshot import (  # noqa: F401 - re-exported: callers import them from here
    LOG_KEEP,
    _PLACEHOLDER,
    _effect,
    _named,
    _without_seat,
    certificate_lines,
    _seats_lines,
    _title_text,
    describe_entry,
    genesis_words,
    seat_status,
    snapshot_of,
    step_status,
)
from .terminal import restore_stderr, stderr_into

__all__ = [
    "GameUI",
    "ReplayUI",
    "Snapshot",
    "snapshot_of",
    "CommandError",
    "problems",
    "check",
    "legal_actions",
    "seal",
    "HELP_SPECTATOR",
    "HELP_GAME_OVER",
    # moved out of this module, importable from here as before
    "Sent",
    "STYLE",
    "PACE",
    "default_pace",
    "countdown_words",
    "next_change",
    "first_warning",
    "secret_of",
    "stderr_into",
    "restore_stderr",
]

WARN_LINES = 2          # lines the warning may take (wrapped) before it is cut

HELP_GAME_OVER = "game over | a again (rematch) | n no rematch | help | PgUp/PgDn scroll | q quit"
HELP_SPECTATOR = "spectating | help | PgUp/PgDn scroll | q / Ctrl-Q quit"

log = logging.getLogger("easel.ui")


class GameUI(BaseUI):
    """The live table: panes, the screen's draft, a command line; ``decide`` asks for one action.

    Its parts: ``composer`` (cli/composer.py: the decision asked, the draft, the send, the words
    under the board), ``countdown`` (cli/countdown.py), ``outbox`` (cli/outbox.py: the one way a
    decided action goes to the node) and the panes (cli/panes.py ``BaseUI``).

    ``screen``: the game's screen; by default chosen from the first table's
    game name (``screen_for``).  ``key``: our key's fingerprint, for the title.
    ``pace``: seconds each beat of a reveal shows (see ``Screen.beats``); by
    default ``default_pace``: PACE (or ``EASEL_PACE``) on a real terminal, 0
    (no reveal: instant) when given an input or output or not on a TTY (tests).
    """

    def __init__(self, seat: int | None, *, title: str = "Easel", input=None, output=None,
                 screen: Screen | None = None, key: str | None = None, pace: float | None = None,
                 send_at_once: bool | None = None) -> None:
        super().__init__(seat, title, screen, key)
        self.pace = default_pace(input, output) if pace is None else max(0.0, min(10.0, float(pace)))
        # one way to play every game: a command edits the draft, Enter on an empty line sends it;
        # send_at_once (--send-at-once, EASEL_SEND_AT_ONCE=1) sends a complete move as soon as it is typed
        self.send_at_once = default_send_at_once() if send_at_once is None else bool(send_at_once)
        self.composer = Composer(seat, lambda: self._snap)
        self.countdown = Countdown()
        self.outbox = Outbox()
        self._status = ""
        self._alerts: list[str] = []
        self._table: Table | None = None           # trio thread only (the UI thread reads just our seat's
                                                   # secret from it, set once and never changed: secret_of)
        self._over_said = False
        self._cut: dict = {}                       # the peer's cut_moves: our signed moves a certificate cut
        self._left_steps: dict = {}                # the peer's left_steps: time-outs of seats that said they left
        self.again = False                         # the player asked for a rematch at game over (a)
        self.decline = False                       # the player said no to the rematch at game over (n)
        self._first_table: Any = None              # trio.Event a decision waits on until the first update
        self.game_dir = None                       # the game's directory, set by the runner (for the rematch)
        # the runner's way to say a talk line (protocol.md §9.11): text -> "" once signed and sent, else why not
        # (called from the UI thread; the runner hops to the node's trio loop); None: nobody to talk to
        self.on_say = None
        self._talk: list = []                      # the peer's talk lines (Peer.talk_lines), trio thread
        self._buffer = Buffer(multiline=False, accept_handler=self._on_accept, history=InMemoryHistory())
        self._buffer.on_text_changed += self._typing
        self._input_window = Window(
            BufferControl(self._buffer, input_processors=[BeforeInput([("class:prompt", "> ")])]),
            height=1,
            # scrolled sideways only as far as the cursor needs: once a long line (a talk line) is sent,
            # the empty line shows its "> " again (prompt-toolkit would keep the old scroll)
            get_horizontal_scroll=lambda _w: 0,
        )
        bottom = [
            Window(ftc(self._pane_status), dont_extend_height=True, wrap_lines=True, height=D(min=1)),
            Window(ftc(self._pane_draft), dont_extend_height=True, wrap_lines=True, height=D(min=1)),
            Window(ftc(self._pane_message), dont_extend_height=True, wrap_lines=True, height=D(min=1)),
            Window(ftc(self._pane_warning), dont_extend_height=True, wrap_lines=False,
                   height=D(min=0, max=WARN_LINES)),
            self._input_window,
            Window(ftc(self._pane_help), height=1, wrap_lines=False, style="class:help"),
        ]
        layout = Layout(HSplit(self._main_windows() + bottom), focused_element=self._input_window)
        # no refresh timer: the screen is drawn when something shown changes (update, a key), and
        # the countdown clock repaints when the time left, as shown, changes (once a minute, then a second)
        self._app = self._make_app(layout, game_keys(self), input, output)

    # -- trio side -------------------------------------------------------------
    def update(self, table: Table, alerts: list[str], status: str, *, waiting: Sequence[int] | None = None,
               cut: Any = None, left: Any = None, talk: Any = None) -> None:
        """The game advanced (trio thread): take a snapshot and repaint.

        ``waiting`` (optional): the seats whose event for the current step has
        not arrived yet, when the caller knows (see ``snapshot_of``).  ``cut``
        (optional): the peer's ``cut_moves``, (phase, seat) -> a signed move of that seat, fitting
        its chain, for a step a time-out certificate voted it out of (protocol.md §6.5).
        """
        if cut is not None:
            self._cut = dict(cut)
        if left is not None:
            self._left_steps = dict(left)         # (optional) the peer's left_steps (protocol.md §9.7)
        if talk is not None:
            self._talk = list(talk)               # (optional) the talk lines held (protocol.md §9.11)
        self._use_screen_for(table.genesis.doc.get("game", ""))
        self.countdown.seen(table.phase)
        self._alerts = list(alerts or [])
        self._status = status or ""
        self._table = table
        if self._first_table is not None:
            self._first_table.set()     # a decision asked before the first update goes on (decide)
        before, c = self._snap, self.composer
        self._snap = c.mine_done(snapshot_of(table, self.seat, self._alerts, self._status, waiting,
                                             self._screen(), before=before, cut=self._cut, left_steps=self._left_steps,
                                             talk=self._talk))
        if self.pace > 0 and before is not None and self._snap.entries > before.entries:
            try:
                beats = self._screen().beats(self._ctx(), before)
            except Exception:   # a reveal is a nicety: never let it break the table (but say so, once)
                beats = []
                if not self._beats_failed:
                    self._beats_failed = True
                    log.warning("the %s screen's reveal failed; no reveal is shown for it (further failures "
                                "are not logged)", type(self._screen()).__name__, exc_info=True)
            self._queue_beats(beats or [], before, self._snap)
        c.expire()
        for words in c.timeouts(table, self._cut, lambda label: _effect(self._screen(), label)):
            self.countdown.stop()
            c.timeout_words = words
            self._say(words, "class:error")
        asked = c.asked
        if asked is not None and table.phase != asked.phase:
            self.outbox.withdraw(asked)    # the step we were asked about is gone (time-out, rollback)
        if self._snap.over and not self._over_said and self.seat is not None:
            self._over_said = True
            words = self._screen().final_words(self._ctx())
            if c.timeout_words:        # on a line of its own, not glued to the final words
                c.set_notice(c.timeout_words)
            c.say_after_reveal(words, "class:over", self.revealing)
            c.timeout_words = ""
        self.countdown.wake()
        self._invalidate()

    def tell(self, text: str) -> None:
        """A message from the runner for the bottom pane (trio thread), e.g. that no other seat answers:
        it stays until the player types or the next prompt replaces it."""
        self._say(text, "class:error")
        self._invalidate()

    async def _countdown_clock(self) -> None:
        await self.countdown.run(lambda: self.composer.deciding() is not None, self._invalidate)

    def step_open_hint(self, wall: float) -> None:
        """At a resume: when the step open then began (time.time()), see ``Countdown.hint``."""
        self.countdown.hint(wall)

    async def decide(self, d: Any) -> Any:
        """Our seat must act (trio thread): let the player compose one action; return it once submitted.

        ``d`` is the node's ``Decision`` (view, seat, phase, game, state, secret, deadline): what
        the player's choice needs, never the Peer.  Called again for every action the seat takes
        (several in one round are fine).  Returns None if the step closes without us (the node
        then asks again if needed).  Once the user has quit, waits until cancelled.  The answer
        comes through the outbox: the composer's ``send`` posts it (UI thread), ``take`` awaits it here.
        """
        if self._table is None:
            # the node may ask before it first told us the table (its decider starts with it): the
            # screen (and so the words and commands) comes from the table, so wait for it
            if self._first_table is None:
                self._first_table = trio.Event()
            await self._first_table.wait()
        if self._snap is None or self._snap.phase != self._table.phase:
            self.update(self._table, self._alerts, self._status)   # our snapshot is stale
        while self._closed or self._quit:
            await trio.sleep_forever()
        c = self.composer
        asked = Asked(seat=d.seat, view=d.view, game=d.game, state=d.state, phase=d.phase)
        self.outbox.listen()
        self.countdown.start(d)
        c.open(asked)
        standing = self._screen().standing(self._ctx())    # the player's standing order answers: no prompt
        if standing is not None:
            try:
                self._send(standing.action)
            except CommandError as exc:
                self._say(str(exc), "class:error")
        prompt = None if asked.submitted else self._screen().on_decision(self._ctx())
        if c.timeout_words:            # do not let the prompt hide that we timed out: a line of its own
            c.set_notice(c.timeout_words)
        if prompt is not None:
            c.say_after_reveal(prompt.text, prompt.style, self.revealing)   # it may tell what the reveal shows
        c.timeout_words = ""
        self.countdown.wake()
        self._invalidate()
        try:
            action = await self.outbox.take(asked)
            if action is not None:
                c.answered(asked)
                if self._snap is not None:
                    self._snap = c.mine_done(self._snap)
            return action
        finally:
            c.close(asked)
            self.countdown.wake()          # no decision, no countdown: at once, not at the clock's next tick
            self._invalidate()

    decide.takes_decision = True   # GameNode hands it a p2p.node.Decision, not the Peer

    # -- UI side ---------------------------------------------------------------
    def _ctx(self) -> Context:
        return self.composer.context(self._snap, secret_of(self._table, self.seat))   # our seat's secret, from our peer

    def _past_ctx(self, snap: Snapshot) -> Context:
        return Context(seat=self.seat, snap=snap, view=snap.view, game=snap.game, state=snap.state,
                       sent=self.composer.sent, reveal=True)

    def _shell_help(self) -> list:
        send = ("Enter, send", "send your draft (Enter on an empty line): every command only edits the draft, "
                "in every game" if not self.send_at_once else
                "send your draft (Enter on an empty line); with --send-at-once a complete move goes out as soon "
                "as it is typed")
        return [send] + list(SHELL_HELP)

    @property
    def _quit_armed(self) -> bool:
        """q was pressed once mid-game (``Composer.quit_armed``: its question stays until answered)."""
        return self.composer.quit_armed

    @_quit_armed.setter
    def _quit_armed(self, armed: bool) -> None:
        self.composer.quit_armed = armed

    def _say(self, text: str, style: str = "class:info") -> None:
        self.composer.say(text, style)

    def _on_accept(self, buff: Buffer) -> bool:
        during = self.revealing
        if during:
            self.composer.typed_in = self.reel.reveals
        try:
            self._execute(buff.text)
        except CommandError as exc:
            self._say(str(exc), "class:error")
        except Exception as exc:  # never let a typo kill the UI thread
            self._say("error: %s" % exc, "class:error")
        if during:
            self.composer.after_reveal = None   # the player went on under the reveal: its answer stays, not the old prompt
        return False

    def _execute(self, text: str) -> None:
        screen = self._screen()
        line = read_line(text, screen.commands, self._snap is not None and self._snap.over)    # cli/commands.py
        first = {"enter": self._submit, "quit": self._quit_key}      # these leave a quit asked for armed
        shell = {"again": self._again_key, "decline": self._decline_key, "help": self._help_command}
        if line.kind in first:
            return first[line.kind]()
        self._quit_armed = False
        if line.kind == "say":
            return self._say_line(line.text)
        if line.kind in shell:
            return shell[line.kind]()
        self._toggle_help(False)
        if line.kind == "submit":
            return self._submit()
        if line.kind == "unknown":
            raise CommandError(line.error)
        if self.seat is None:
            raise CommandError("you are spectating: there is nothing to move (q quits)")
        if self._snap is not None and self._snap.over:
            raise CommandError("the game is over: there are no more moves (q quits)")
        self._outcome(screen.command(self._ctx(), line.name, list(line.args)))

    def _say_line(self, text: str) -> None:
        """``say TEXT``: a talk line to the table (protocol.md §9.11), or one line saying why not."""
        if self.seat is None:
            raise CommandError("you are watching: spectators cannot talk (only the seats sign lines)")
        if not text:
            raise CommandError("say what? type say and your line, e.g. say good luck")
        if self.on_say is None:
            raise CommandError("nobody to talk to here")
        why = self.on_say(text)
        if why:
            raise CommandError("not said: %s" % why)
        self._say("Said.", "class:info")

    def _help_command(self) -> None:
        self._toggle_help()
        self._say(LONG_HELP if self._help_shown else "help closed")

    def _outcome(self, out: Say | Send | None, submitted: bool = False) -> None:
        """What a screen's command (or its submit, ``submitted``) gave: a move to hold in the draft
        (sent by Enter on an empty line), or to send now (submit, or ``send_at_once``); or words."""
        if isinstance(out, Send):
            if submitted or self.send_at_once:
                self.composer.held = None
                self._send(out.action)
            else:
                self.composer.hold(out.action, secret_of(self._table, self.seat), self._screen().describe)
                self._say("Draft ready: Enter on an empty line sends it, or type another command to replace it.",
                          "class:info")
        elif isinstance(out, Say):
            self.composer.held = None   # another command: the screen's own draft (or its words) replace ours
            self._say(out.text, out.style)

    def _typing(self, _buffer: Buffer) -> None:
        self._quit_armed = False

    def _quit_key(self) -> None:
        """Quitting in the middle of a game takes a second press: our seat would stop moving."""
        snap = self._snap
        if self.seat is None or snap is None or snap.over or self._quit_armed:
            self._exit_now()
            return
        self._quit_armed = True
        self._say("Quit in the middle of the game? You leave for good: the others play on without you, your turns "
                  "pass (easel resume only watches the game then). Press q or Ctrl-Q again to quit, or type any "
                  "command to stay.", "class:error")

    def _again_key(self) -> None:
        """A rematch (a / again at game over): close the UI and let the runner start it; UI thread only."""
        if self.seat is None:
            raise CommandError("you are spectating: only the seats can play again (q quits)")
        if self._snap is None or not self._snap.over:
            raise CommandError("the game is not over yet: a rematch (a) is offered at game over")
        self.again = True
        self._say("Again: the rematch opens...", "class:info")
        self._exit_now()

    def _decline_key(self) -> None:
        """No rematch for us (n / no at game over): close the UI and let the runner say so to the rematch
        lobby; UI thread only."""
        if self.seat is None:
            raise CommandError("you are spectating: only the seats are asked for a rematch (q quits)")
        self.decline = True
        self._say("No rematch: telling the others...", "class:info")
        self._exit_now()

    def _submit(self) -> None:
        if self.seat is None:
            raise CommandError("you are spectating: there is nothing to submit (q quits)")
        c, snap = self.composer, self._snap
        if c.deciding() is None and snap is not None and snap.over:
            raise CommandError("the game is over (a plays again, n says no to a rematch, q quits)")
        held = c.held_now()
        if held is not None:
            c.held = None
            self._send(held.action)
            return
        out = self._screen().submit(self._ctx())
        if out is None and c.deciding() is None:
            raise c.not_your_turn()
        self._outcome(out, submitted=True)

    def _send(self, action: Any) -> None:
        """Check and seal ``action`` against the decision asked and post it to the node: the outbox (UI thread)."""
        ctx, screen = self._ctx(), self._screen()
        sent = self.composer.send(action, secret_of(self._table, self.seat), screen.describe, self.outbox.post)
        self.countdown.stop()
        said = screen.on_sent(ctx, sent.action, sent.text)
        self._say(said.text, said.style)

    # -- panes -----------------------------------------------------------------
    def _pane_status(self, width: int | None = None) -> list:
        snap = self._snap
        out: list = []
        if self.composer.deciding() is not None:
            label = self._screen().decision_label(self._ctx())
            out.append(("class:yourmove", " YOUR MOVE (%s) " % label if label else " YOUR MOVE "))
            left = self.countdown.left()
            if left is not None:
                out.append(("class:error" if left < 31 else "class:waiting", " " + countdown_words(left)))
            tail = " - type commands below, Enter on an empty line submits"
            room = (width or self._cols()) - width_of(out)
            if len(tail) > room:
                tail = " - Enter on an empty line submits"
            if len(tail) > room:
                tail = " - Enter submits"        # one line: a long decision label keeps the status on one
            out.append(("", tail))
        elif snap is None:
            out.append(("class:waiting", "Waiting for the table..."))
        else:
            out.append(step_status(self._shown() or snap, self._screen()))
        return self._wrapped(out, width)

    def _wrapped(self, frags: list, width: int | None = None, indent: str = "  ") -> list:
        return join(wrap(list(frags), width or self._cols(), indent))

    def _pane_draft(self, width: int | None = None) -> list:
        c = self.composer
        fresh = c.deciding() is not None and self.revealing and c.typed_in != self.reel.reveals
        line, as_is = c.draft_line(self._snap, fresh, lambda: self._screen().draft_line(self._ctx()))
        return line if as_is else self._wrapped(line, width) if line else [("", "")]

    def _pane_message(self, width: int | None = None) -> list:
        snap = self._snap
        names = snap.names if snap is not None else ()
        lines: list = []
        for style, text in self.composer.shown(self.revealing):
            lines += wrap([(style, with_names(text, names) if names else text)], width or self._cols())
        return join(lines) if lines else [("", "")]

    def warning(self) -> str:
        """The one line above the prompt: what the next step costs our seat if nothing changes (the
        game's own ``warnings`` hook on the view the panes show), or a time-out close at hand."""
        snap = self._shown()
        if self.seat is None or snap is None or snap.over:
            return ""
        left = self.countdown.left()
        if self.composer.deciding() is not None and left is not None and 0 <= int(left) <= WARN_TIMEOUT:
            return "Time-out in %d s: %s, or it counts as no move%s." % (
                int(left), "press Enter to send your draft" if self.composer.held_now() is not None
                else "send your move now", _effect(self._screen(), snap.step_label))
        return first_warning(snap.game, snap.view, self.seat)

    def _pane_warning(self, width: int | None = None) -> list:
        """The warning line: wrapped to two lines at most (cut with "…" only past that), so a
        warning naming four sheets is read whole at 100 columns."""
        text = self.warning()
        if not text:
            return []
        cols = width or self._cols()
        lines = wrap([("class:alert", "!! " + text)], cols, "   ")
        if len(lines) > WARN_LINES:
            last = "".join(t for _, t in lines[WARN_LINES - 1])
            lines = lines[:WARN_LINES - 1] + [[("class:alert", last[:max(0, cols - 1)].rstrip() + "…")]]
        return join(lines)

    def _pane_help(self, width: int | None = None) -> list:
        if self.seat is None:
            return [("class:help", HELP_SPECTATOR)]
        cols = width or self._cols()
        if self._snap is not None and self._snap.over:
            said = with_say_key(HELP_GAME_OVER)     # a line said after the game is shown live (§9.11)
            return [("class:help", said if self.on_say is not None and cols >= len(said) else HELP_GAME_OVER)]
        options = self._screen().key_help(self._ctx()) or ["help | q quit"]
        if self.on_say is not None:
            # the talk key (protocol.md §9.11) in the first of the screen's lines it fits in; else as before
            for text in options:
                said = with_say_key(text)
                if cols >= len(said):
                    return [("class:help", said)]
        for text in options:
            if cols >= len(text):
                break
        return [("class:help", text)]

    def render_text(self) -> str:
        """Plain text of the main panes, the status, the draft and the message (for tests), TEXT_WIDTH wide."""
        parts = [self._main_text()]
        w = TEXT_WIDTH
        warning = self._pane_warning(w)
        for pane in (self._pane_status(w), self._pane_draft(w), self._pane_message(w)) + ((warning,) if warning else ()) \
                + (self._pane_help(w),):
            parts.append(fragment_list_to_text(pane) + "\n")
        return "".join(parts)


SAY_HELP = SAY_KEY + " say"     # the talk key in the key-help line (table talk, protocol.md §9.11)


def with_say_key(text: str) -> str:
    """A screen's key-help line with the talk key just before its "help" (at its end if it has none)."""
    parts = text.split(" | ")
    at = parts.index("help") if "help" in parts else len(parts)
    return " | ".join(parts[:at] + [SAY_HELP] + parts[at:])


def game_keys(ui: GameUI) -> KeyBindings:
    """The live table's keys: the common ones (cli/panes.py), q, ?, a and n on an empty line, Esc, Space."""
    kb = KeyBindings()
    ui._common_bindings(kb)
    # an empty line: nothing but spaces (a Space pressed as a reveal ended must not turn q, a, n into text)
    empty = Condition(lambda: not ui._buffer.text.strip())

    @kb.add("q", filter=empty)
    def _(event) -> None:
        ui._quit_key()

    @kb.add("?", filter=empty)
    def _(event) -> None:
        ui._toggle_help()

    # " on an empty line opens a talk line: "say " typed for the player (protocol.md §9.11)
    @kb.add(SAY_KEY, filter=empty)
    def _(event) -> None:
        ui._buffer.text = "say "
        ui._buffer.cursor_position = len(ui._buffer.text)

    over = Condition(lambda: ui.seat is not None and ui._snap is not None and ui._snap.over)

    @kb.add("a", filter=empty & over)
    def _(event) -> None:
        ui._again_key()

    @kb.add("n", filter=empty & over)
    def _(event) -> None:
        ui._decline_key()

    # Esc is eager and always bound: prompt-toolkit's own bindings would otherwise read it as the
    # start of a Meta key and take the next letter typed within a second with it ("bid" -> "id")
    @kb.add("escape", eager=True)
    def _(event) -> None:
        if ui._help_shown:
            ui._toggle_help(False)
        else:
            ui.skip_beats()

    # Space on an empty line skips a reveal, and is never typed there: one pressed once more, or just as
    # the reveal ended, would sit in the prompt and make the next q, a or n text until Enter
    @kb.add(" ", filter=empty)
    def _(event) -> None:
        ui.skip_beats()

    return kb


def default_send_at_once() -> bool:
    """EASEL_SEND_AT_ONCE=1 (or true/yes): a complete move is sent as soon as it is typed."""
    return os.environ.get("EASEL_SEND_AT_ONCE", "").strip().lower() in ("1", "true", "yes", "on")
