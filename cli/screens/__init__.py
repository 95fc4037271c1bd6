"""Game screens for the terminal UI: the protocol between cli/shell.py and one game's screen.

The shell (cli/shell.py) is game-agnostic: it runs prompt-toolkit next to
trio, shows the title, the seats with their step status, whom the table
waits for, the time left, the message line, the command line, the alerts
and the event log, the help page, the replay viewer and quitting.  Every
word about one game's board, moves and rules comes from that game's
*screen*: a ``Screen`` subclass in ``cli/screens/<game name, "-" -> "_">.py``
(or, for a screen with parts, the folder ``cli/screens/<game>/`` whose
``__init__.py`` is the screen and its other modules what it draws, reads,
reveals) exported as ``SCREEN``.  ``screen_for(name)`` finds it; a game without a
module gets ``GenericScreen`` (its view as indented JSON-ish text, actions
typed as JSON, legal actions picked by number), so a new game is playable
at once.

What every screen shares lives beside them: ``base.py`` (the records below
and the ``Screen`` base class), ``text.py`` (lines of fragments: wrap, join,
cards side by side, seat names, places in words) and ``generic.py``
(``GenericScreen``); all of it imports from here too.  (So no game's screen
may be named ``base``, ``text`` or ``generic``.)

How the shell drives a screen
-----------------------------
One screen instance serves one UI (it may keep a draft between calls).  The
shell calls it from two threads: the trio thread (``on_decision``,
``final_words``, ``log_tag``/``describe`` while taking a snapshot) and the
UI thread (everything that renders or parses).  A screen must only read
what it is given (``Context``: immutable snapshots, views and game states)
and keep its own small draft state; it never touches the table or the
network.

Every call gets a ``Context`` (``ctx``):

* ``ctx.seat``      our seat, or None for a spectator;
* ``ctx.snap``      the latest ``Snapshot`` of the table (None before the first);
* ``ctx.view``      ``game.view(state, seat)`` of the decision that is open,
                    else the latest snapshot's view (None before the seed);
* ``ctx.game`` / ``ctx.state``  the engine object and the immutable state the
                    view was taken from (for ``describe``, legality);
* ``ctx.deciding``  True while ``decide`` waits for our action and nothing
                    has been sent for it yet;
* ``ctx.sent``      the last action we sent (``Sent``: phase, action, text);
* ``ctx.check(action)``     the game's verdict: the normalised action, or
                    ``IllegalAction`` with the reason (first problem only);
* ``ctx.problems(action)``  every problem the game finds (``[]`` = legal),
                    from the engine's ``problems`` hook (or ``check``);
* ``ctx.legal()``   the game's ``legal_actions`` for our seat, or None when
                    the game has no such hook;
* ``ctx.table_view`` the latest snapshot's view when it is a map (what the
                    panes draw), ``ctx.move_view`` the open decision's view
                    while deciding, else ``table_view`` (what a command reads);
* ``ctx.reveal``    True when the panes are drawn from an earlier snapshot
                    while a reveal plays (below): draw ``ctx.snap`` as it
                    is, and leave the draft alone (it belongs to the open
                    decision, which may already be the next round's).
Legality shown to a person comes from these, never from rules written
again in a screen.  In a game with seat secrets, ``check``, ``problems`` and
``legal`` see an action as our peer will send it: passed through the game's
``seal_action`` with our seat's secret (e.g. a card play gets its proof), so
a screen composes plain actions.

Rendering: a *line* is a list of prompt-toolkit formatted-text fragments
``(style, text)``; styles are ``"class:NAME"`` names of the shell's style
sheet (title, header, label, you, waiting, sent, error, info, bid, over,
alert, ...) plus the screen's own ``styles`` (a dict merged in).  A screen
returns lines that fit the ``width`` it is given (``wrap`` helps).

The calls, by where they show:

* title bar: ``title_parts(ctx) -> [str]`` (e.g. "round 2/6", an edition);
  the shell adds the game's title, our key, seat, "game over" and the status.
* top-left board: ``board_lines(ctx) -> [Line]``, ``board_width`` columns
  wide (0 = no board pane; the seats take the whole top).
* seats table: ``seat_columns(ctx) -> [(heading, width)]`` and
  ``seat_cells(ctx, seat) -> [str]`` (one per column); the shell adds the
  ">" mark, the seat name and its step status ("choosing", "to move", ...).
* middle pane (scrollable): ``game_over_lines(ctx, width)`` at the top once
  there is a result, then ``middle_lines(ctx, width)``, then the shell's
  event log (alerts, described moves, table notes), newest first; a log
  line is ``log_tag(step) + "  " + describe(...)``.
* bottom: the shell's status line, where a decision shows as
  ``" YOUR MOVE (%s) " % decision_label(ctx)``; then ``draft_line(ctx)`` (one
  line of fragments, the shell wraps it; not asked for spectators or once
  the game is over); the message line; the command line; and the first
  of ``key_help(ctx)`` (longest first) that fits the width.
* help page: "Commands" = ``command_help(ctx)`` rows + the shell's rows
  (help, quit, scrolling), then ``rules_help(ctx)`` sections; rows are
  ``(key, text)`` with the text final (the screen fills in its numbers).

Commands.  The shell owns: an empty line and ``submit``/``send``/``ok``/
``go`` (submit), ``help``/``h``/``?``, ``q``/``quit``/``exit``.  Any other
first word is looked up in ``commands`` (alias -> canonical name); unknown
words, spectators and a finished game get the shell's error; otherwise the
shell calls ``command(ctx, name, args)`` which returns:

* ``Say(text, style)`` - the draft changed (or an answer): show the message;
* ``Send(action)``     - a complete move: the shell checks it with the game
                         and holds it as the draft (Enter on an empty line
                         sends it, then calls ``on_sent``); with the player's
                         ``send_at_once`` setting it is sent at once;
* or raises ``CommandError(text)`` - shown as an error, nothing changes.
(One way to play every game: every command edits the draft, Enter sends.)

Submitting (empty line or submit) calls ``submit(ctx)`` - also when no
decision is open (``ctx.deciding`` False: raise your own words, or return
None for the shell's "it is not your turn").  It returns ``Send``, ``Say``
(e.g. "press Enter again to confirm") or None (nothing to send).

Decisions.  The shell's ``decide(decision)`` may be called many
times in one round or day (each call is one action); every call opens a
decision and calls ``on_decision(ctx) -> Say | None`` (a prompt for the
player; a screen resets or keeps its draft here as its game needs: the
shell never resets a draft).  Before that the shell asks ``standing(ctx) ->
Send | None``: a standing order the player gave (kept by the screen, never
sent as such) answering this decision at once; then there is no prompt.  After a send the shell calls
``on_sent(ctx, action, text) -> Say``.  When the table timed our seat out
the shell says so with ``timeout_effect_for(label)`` (what the rules did
instead in the step with that label, e.g. "no bid"; default: the
``timeout_effect`` attribute, e.g. "no bids, no splash"); chance steps are described with
``chance_words``.  At the game's end ``final_words(ctx)`` is said once.

The reveal moment.  When the table moves on (moves applied: a sealed step
opens, a night is paid out, ...; or chance: cubes drawn) the live shell asks
``beats(ctx, before) -> [Beat]`` (``ctx`` the new table, ``before`` the
previous ``Snapshot``; default: none) and plays
them one after the other at the UI's *pace* (seconds a beat; 0 = instant, the
default in tests and when the output is not a terminal): while a beat shows,
its ``board`` lines (if any) replace ``board_lines`` and its caption and
``middle`` lines head the middle pane; Space (on an empty line) or Esc skips
the rest.  Beats only show what already happened; nothing waits for them.
While they play, the title, board, seats, middle pane and event log are
drawn from ``before`` (``ctx.reveal`` True): the results show when the beats
end or are skipped, not under them, except from a beat marked ``after``
on (the reveal has reached the step's result: they are drawn from the new
table then); the status, draft and command line stay live (a decision may
be open).  A newer step's reveal replaces one still playing (cli/reveal.py):
the older beats are dropped (the first new beat says how many), the new ones
count from 1 ("REVEAL k/n" over one step), and nothing of an earlier step
plays after a later one or after the game is over.

Happenings.  The event log lists the moves and the table's notes; a game's
own events that no move names (a seat starving at dawn) come from
``happenings(before_view, view) -> [str]`` (default: none), called with the
views before and after each update, and go into the log at that point.
A snapshot carries what a screen needs for this: ``moves_tail`` (the last
moves applied, as ``(number, seat, action)``; ``snap.moves`` counts them, so
the moves applied since ``before`` are those numbered ``>= before.moves``)
and ``prev_view`` (the view as it was before the latest step that applied
moves, when the snapshot was taken after another one: ``snapshot_of(...,
before=...)``; else None), so one snapshot alone can still show what changed.

Replay.  ``describe(game, state, seat, action)`` words an action (default
``game.describe``) against the state it was made in (the live log passes
``Table.state_before(k)`` for move ``k``, so a buy names the canvas that was
in the slot then), ``describe_table(ctx, config, players)`` the genesis
line.  Down/Up (n/p) jump to the next/previous *mark*: ``is_mark(before,
after)`` (two consecutive snapshots; default: the entry applied moves, i.e.
a step closed); ``mark_words`` = (short name, help text) for the keys.
"""

from __future__ import annotations

import importlib
import re

from .base import Beat, CommandError, Context, Say, Screen, Send, Sent, Snapshot
from .generic import GenericScreen
from .text import (
    Frag,
    Line,
    join,
    layout_cards,
    ordinal,
    place_words,
    plain,
    plain_label,
    plural,
    seat_name,
    shared_places,
    side_by_side,
    wrap,
    width_of,
    who,
    with_names,
)

__all__ = [
    "CommandError",
    "Say",
    "Send",
    "Sent",
    "Snapshot",
    "Beat",
    "Context",
    "Screen",
    "GenericScreen",
    "screen_for",
    "wrap",
    "join",
    "width_of",
    "layout_cards",
    "seat_name",
    "who",
    "plain_label",
    "ordinal",
    "place_words",
    "plural",
    "shared_places",
    "side_by_side",
    "with_names",
    "plain",
    "Line",
    "Frag",
]


_NAME = re.compile(r"[a-z][a-z0-9_-]*\Z")


def module_name(game_name: str) -> str:
    return "cli.screens." + game_name.replace("-", "_")


def screen_for(game_name: str) -> Screen:
    """A new screen for the game ``game_name``: the ``SCREEN`` of ``cli/screens/<name with - as _>.py`` (or of
    that folder), or ``GenericScreen``."""
    if not isinstance(game_name, str) or not _NAME.match(game_name):
        return GenericScreen()
    mod_name = module_name(game_name)
    try:
        mod = importlib.import_module(mod_name)
    except ModuleNotFoundError as exc:
        if exc.name != mod_name:   # the module exists but something it imports does not: a real error
            raise
        return GenericScreen()
    factory = getattr(mod, "SCREEN", None)
    return factory() if callable(factory) else GenericScreen()
