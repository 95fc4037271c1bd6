"""Game screens for the terminal UI: the protocol between cli/shell.py and one game's screen.

The shell (cli/shell.py) is game-agnostic: it runs prompt-toolkit next to
trio, shows the title, the seats with their step status, whom the table
waits for, the time left, the message line, the command line, the alerts
and the event log, the help page, the replay viewer and quitting.  Every
word about one game's board, moves and rules comes from that game's
*screen*: a ``Screen`` subclass in ``cli/screens/<game name, "-" -> "_">.py``
exported as ``SCREEN``.  ``screen_for(name)`` finds it; a game without a
module gets ``GenericScreen`` (its view as indented JSON-ish text, actions
typed as JSON, legal actions picked by number), so a new game is playable
at once.

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
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

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
]

Frag = tuple  # (style, text)
Line = list   # list of fragments


class CommandError(ValueError):
    """A command line the UI cannot understand or accept; the message says why."""


@dataclass(frozen=True)
class Say:
    """Show ``text`` on the message line; nothing is sent."""

    text: str
    style: str = "class:info"


@dataclass(frozen=True)
class Send:
    """Send ``action`` for the open decision."""

    action: Any


@dataclass(frozen=True)
class Sent:
    """The last action this UI sent: the table phase it was for, the action, its description."""

    phase: int
    action: Any
    text: str


@dataclass(frozen=True)
class Snapshot:
    """Everything the screen shows about the table, taken in the trio thread."""

    seat: int | None
    players: int
    view: Any
    phase: int
    step_kind: str | None
    step_purpose: str | None
    step_label: str
    step_seats: tuple
    missing: tuple
    over: bool
    result: dict | None
    log: tuple                  # ((style, text), ...) oldest first
    moves: int                  # moves applied so far
    entries: int                # log entries applied (genesis included)
    alerts: tuple = ()
    status: str = ""
    config: dict | None = None  # the game's configuration (options with their defaults)
    game_name: str = ""
    game_title: str = ""
    game: Any = None            # the engine object
    state: Any = None           # the (immutable) engine state
    moves_tail: tuple = ()      # ((number, seat, action), ...): the last moves applied, oldest first
    prev_view: Any = None       # the view before the latest step that applied moves (None: unknown)
    happenings: tuple = ()      # ((entry count, text), ...): the screen's happenings so far (Screen.happenings)
    names: tuple = ()           # every seat's display name (core.events.seat_names), () if the genesis has none
    # every time-out certificate in the log: ((phase, label, seats voted out, voters), ...) (shown with the result)
    certificates: tuple = ()


@dataclass(frozen=True)
class Beat:
    """One frame of a reveal: a caption, and lines for the board pane and the top of the middle pane.

    ``board`` None keeps the screen's ``board_lines``; ``middle`` goes under the
    caption, above the screen's usual middle pane; ``hold`` is how many beats
    long it stays (the last beat of a reveal often holds 2).  ``after``: from
    this beat on, the panes show the table after the step (the reveal has
    reached its result: e.g. the market refilled); before it they show the
    table as it was before the step.
    """

    caption: str
    board: list | None = None
    middle: list = field(default_factory=list)
    hold: int = 1
    after: bool = False


@dataclass(frozen=True)
class Context:
    """What a screen is given on every call (see the module docstring)."""

    seat: int | None
    snap: Snapshot | None = None
    view: Any = None
    game: Any = None
    state: Any = None
    deciding: bool = False
    sent: Sent | None = None
    check: Callable[[Any], Any] = field(default=lambda action: action)
    problems: Callable[[Any], list] = field(default=lambda action: [])
    legal: Callable[[], Any] = field(default=lambda: None)
    reveal: bool = False        # drawing the table as it was, while a reveal plays (see the module docstring)

    @property
    def players(self) -> int:
        return self.snap.players if self.snap else 0

    @property
    def over(self) -> bool:
        return bool(self.snap and self.snap.over)

    @property
    def result(self) -> dict | None:
        return self.snap.result if self.snap else None

    @property
    def config(self) -> dict | None:
        return self.snap.config if self.snap else None

    @property
    def missing(self) -> tuple:
        return self.snap.missing if self.snap else ()


# --------------------------------------------------------------------------- rendering helpers


def width_of(line: Line) -> int:
    return sum(len(t) for _, t in line)


def join(lines: Sequence[Line]) -> list:
    """Lines -> one fragment list with newlines."""
    out: list = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.extend(line)
    return out


def seat_name(s: int, me: int | None, names: Sequence[str] = ()) -> str:
    """``seat 2`` or, when the genesis names the seats, the seat's name; ``(you)`` after our own."""
    name = names[s] if isinstance(s, int) and 0 <= s < len(names) else "seat %d" % s
    return "%s (you)" % name if s == me else name


def who(seats: Sequence[int], me: int | None, names: Sequence[str] = ()) -> str:
    return ", ".join("you" if s == me else seat_name(s, None, names) for s in seats)


_SEAT_WORD = re.compile(r"\b[Ss]eat (\d+)\b( \(you\))?(  +|─+)?")


def with_names(text: str, names: Sequence[str]) -> str:
    """A line of a screen or the log with every ``seat N`` (or ``Seat N``, a sentence's start) replaced by
    that seat's name (if the seats have names).

    In a column (``seat N`` or ``seat N (you)`` followed by two spaces or more, or on a box's edge,
    followed by ``─``) the name keeps the column's width: it is padded, or takes spaces (or ``─``),
    leaving at least one, so the columns (and the box) after it stay put."""
    if not names:
        return text

    def name(m: re.Match) -> str:
        s = int(m.group(1))
        if s >= len(names):
            return m.group(0)
        said = names[s] + (m.group(2) or "")
        pad = m.group(3)
        if not pad:
            return said
        return said + pad[0] * max(1, len(m.group(0)) - len(said))

    return _SEAT_WORD.sub(name, text)


def ordinal(n: int) -> str:
    return "%d%s" % (n, "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th"))


def shared_places(ranking: Sequence[int], key: Callable[[int], Any]) -> dict[int, int]:
    """Each seat's place in ``ranking`` (best first), seats with the same ``key`` sharing one:
    standard competition ranking (1, 2, 2, 4)."""
    places: dict[int, int] = {}
    for i, s in enumerate(ranking):
        prev = ranking[i - 1] if i else None
        places[s] = places[prev] if prev is not None and key(prev) == key(s) else i + 1
    return places


def place_words(place: int, of: int, shared: bool = False) -> str:
    """ "2nd of 3", "joint 2nd of 3" (a place shared with another seat)."""
    return "%s%s of %d" % ("joint " if shared else "", ordinal(place), of)


def plural(n: int, word: str, many: str | None = None) -> str:
    """ "1 token", "2 tokens" ("1 canvas", "2 canvases" with ``many``)."""
    return "%d %s" % (n, word if n == 1 else (many or word + "s"))


def plain_label(label: str) -> str:
    """A step label without the commit/reveal plumbing: "round 2: bids and splash: commit" -> "round 2: bids and splash"."""
    for suffix in (": commit", ": reveal", " (reveal)"):
        if label.endswith(suffix):
            return label[: -len(suffix)]
    return label


def wrap(line: Line, width: int, indent: str = "  ") -> list[Line]:
    """Word-wrap one line of fragments to ``width`` columns."""
    chars = [(st, ch) for st, text in line for ch in text]
    if len(chars) <= width or width < 10:
        return [line]
    out: list[Line] = []
    first = True
    while chars:
        room = width if first else width - len(indent)
        if len(chars) <= room:
            cut = len(chars)
        else:
            cut = room
            for i in range(room, 0, -1):
                if chars[i][1] == " ":
                    cut = i
                    break
        piece, chars = chars[:cut], chars[cut:]
        while chars and chars[0][1] == " ":
            chars = chars[1:]
        frags: Line = [] if first else [("", indent)]
        for st, ch in piece:
            if frags and frags[-1][0] == st:
                frags[-1] = (st, frags[-1][1] + ch)
            else:
                frags.append((st, ch))
        out.append(frags)
        first = False
    return out


def layout_cards(cards: Sequence[list[Line]], width: int, gap: int = 3) -> list[Line]:
    """Put cards (lists of lines) side by side, wrapping to ``width``."""
    rows: list[list] = []
    cur: list = []
    used = 0
    for card in cards:
        w = max((width_of(l) for l in card), default=0)
        need = w if not cur else used + gap + w
        if cur and need > width:
            rows.append(cur)
            cur, need = [], w
        cur.append((w, card))
        used = need
    if cur:
        rows.append(cur)
    out: list[Line] = []
    for row in rows:
        height = max(len(card) for _, card in row)
        for i in range(height):
            line: Line = []
            for j, (w, card) in enumerate(row):
                frags = card[i] if i < len(card) else []
                if j:
                    line.append(("", " " * gap))
                line.extend(frags)
                pad = w - width_of(frags)
                if pad and j < len(row) - 1:
                    line.append(("", " " * pad))
            out.append(line)
    return out


def side_by_side(left: Sequence[Line], right: Sequence[Line], left_width: int, gap: int = 3) -> list[Line]:
    """Two columns of lines as one (a wide terminal): ``left`` padded to ``left_width``, then ``right``."""
    out: list[Line] = []
    for k in range(max(len(left), len(right))):
        a = list(left[k]) if k < len(left) else []
        b = list(right[k]) if k < len(right) else []
        pad = max(0, left_width - width_of(a)) + gap
        out.append(a + [("", " " * pad)] + b if b else a)
    return out


def plain(value: Any, indent: str = "") -> list[str]:
    """A canonical value as indented text lines (bytes as hex), for the generic screen.

    Maps are one ``key: value`` line per key; a list or map too long for one
    line is spread over several, indented.
    """
    if not isinstance(value, (dict, list, tuple)) or not value:
        return [indent + (_short(value) or "")]
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            s = _short(v) if not isinstance(v, dict) or not v else None
            if s is not None:
                out.append("%s%s: %s" % (indent, k, s))
            else:
                out.append("%s%s:" % (indent, k))
                out += plain(v, indent + "  ")
        return out
    s = _short(value)
    if s is not None:
        return [indent + s]
    for v in value:
        s = _short(v)
        if s is not None:
            out.append("%s- %s" % (indent, s))
        else:
            out.append("%s-" % indent)
            out += plain(v, indent + "  ")
    return out


def _short(value: Any) -> str | None:
    """One-line text of a value, or None if it is too big for one line."""
    try:
        text = json.dumps(_jsonable(value), separators=(", ", ": "), sort_keys=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 70 or not isinstance(value, (list, tuple, dict)) else None


def _jsonable(v: Any) -> Any:
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return v


# --------------------------------------------------------------------------- the protocol


class Screen:
    """One game's part of the terminal UI.  Subclass it; every method has a usable default.

    See the module docstring for when the shell calls what.  Lines are lists
    of ``(style, text)`` fragments.
    """

    #: width of the top-left board pane (0: no board pane)
    board_width: int = 0
    #: the shell says the seats' names in ``middle_lines`` too (``with_names``: a name in a column or on a
    #: box's edge keeps its width); a screen whose middle a name would break leaves it False
    names_in_middle: bool = False
    #: extra styles, merged into the shell's style sheet ({"cell.r": "bg:#d70000", ...})
    styles: Mapping[str, str] = {}
    #: command word (and aliases) -> canonical command name
    commands: Mapping[str, str] = {}
    #: what the rules do for a seat that timed out, in a few words (shown after "counts as no move");
    #: a screen whose steps differ says the one that applies in ``timeout_effect_for``
    timeout_effect: str = ""
    #: a chance step, for people ("dealing the next sheets")
    chance_words: str = "drawing fresh shared randomness"
    #: replay marks: (short name for the key line, what a mark is for the help page)
    mark_words: tuple[str, str] = ("step", "applied moves (a step of the game closed)")

    def timeout_effect_for(self, label: str) -> str:
        """What a time-out does in the step labelled ``label`` (the table's step label, or "" if
        unknown), in a few words; default: ``timeout_effect`` whatever the step."""
        return self.timeout_effect

    # -- title, board, seats ---------------------------------------------------
    def title_parts(self, ctx: Context) -> list[str]:
        return []

    def board_lines(self, ctx: Context) -> list[Line]:
        return []

    def seat_columns(self, ctx: Context) -> list[tuple[str, int]]:
        return []

    def seat_cells(self, ctx: Context, seat: int) -> list[str]:
        return []

    # -- the middle pane -------------------------------------------------------
    def middle_lines(self, ctx: Context, width: int) -> list[Line]:
        return []

    def game_over_lines(self, ctx: Context, width: int) -> list[Line]:
        res = ctx.result
        if not res:
            return []
        lines: list[Line] = [[("class:over", "GAME OVER")]]
        ranking = res.get("ranking") if isinstance(res, dict) else None
        if isinstance(ranking, list):
            for i, s in enumerate(ranking):
                lines.append([("class:you" if s == ctx.seat else "", "%2d. %s" % (i + 1, seat_name(s, ctx.seat, ctx.snap.names if ctx.snap else ())))])
        for text in plain({k: v for k, v in res.items() if k != "ranking"} if isinstance(res, dict) else res):
            lines += wrap([("", text)], width, "      ")
        return lines

    def final_words(self, ctx: Context) -> str:
        res = ctx.result
        ranking = res.get("ranking") if isinstance(res, dict) else None
        if not isinstance(ranking, list) or ctx.seat not in ranking:
            return "The game is over."
        return "Game over: you finished %s of %d." % (ordinal(ranking.index(ctx.seat) + 1), len(ranking))

    # -- the event log -----------------------------------------------------------
    def log_tag(self, step: int) -> str:
        """The tag before a move in the event log; ``step`` counts the table steps that applied moves."""
        return "%d" % step

    def describe(self, game: Any, state: Any, seat: int, action: Any) -> str:
        return game.describe(state, seat, action)

    # -- deciding ----------------------------------------------------------------
    def decision_label(self, ctx: Context) -> str:
        """Words after "YOUR MOVE" ("round 2"); empty for none."""
        return ""

    def on_decision(self, ctx: Context) -> Say | None:
        return None

    def standing(self, ctx: Context) -> Send | None:
        """A standing order the player gave earlier answers this decision (e.g. "raise for me up to N"):
        the shell sends it at once, without a prompt.  Default: none."""
        return None

    def draft_line(self, ctx: Context) -> list:
        return []

    def command(self, ctx: Context, name: str, args: list[str]) -> Say | Send | None:
        raise CommandError("unknown command %r" % name)

    def submit(self, ctx: Context) -> Say | Send | None:
        return None

    def on_sent(self, ctx: Context, action: Any, text: str) -> Say:
        return Say("sent: %s" % text, "class:sent")

    # -- help --------------------------------------------------------------------
    def key_help(self, ctx: Context) -> list[str]:
        return ["help | PgUp/PgDn scroll | q quit"]

    def command_help(self, ctx: Context) -> list[tuple[str, str]]:
        return []

    def rules_help(self, ctx: Context) -> list[tuple[str, list[tuple[str, str]]]]:
        return []

    # -- the reveal moment -------------------------------------------------------
    def beats(self, ctx: Context, before: Snapshot) -> list[Beat]:
        """The frames that show, step by step, what happened between ``before`` and ``ctx.snap`` ([] = none)."""
        return []

    # -- replay ------------------------------------------------------------------
    def happenings(self, before: Any, view: Any) -> list[str]:
        """The game's own events between two views that no move names, for the event log (default: none)."""
        return []

    def describe_table(self, ctx: Context, config: Mapping[str, Any], players: int) -> str:
        title = ctx.snap.game_title if ctx.snap and ctx.snap.game_title else (ctx.snap.game_name if ctx.snap else "a game")
        opts = ", ".join("%s %s" % (k.replace("_", " "), v) for k, v in sorted(config.items())) or "default options"
        return "%s for %d seats; %s" % (title, players, opts)

    def is_mark(self, before: Snapshot, after: Snapshot) -> bool:
        return after.moves > before.moves


class GenericScreen(Screen):
    """Any game, without a screen of its own: the view as text, actions as JSON or picked from the legal ones."""

    commands = {"act": "act", "a": "act", "move": "act", "pick": "pick", "p": "pick", "clear": "clear"}
    timeout_effect = "the rules' default action"
    LEGAL_SHOWN = 30

    def __init__(self) -> None:
        self.action: Any = None
        self.has_action = False

    def title_parts(self, ctx: Context) -> list[str]:
        return [plain_label(ctx.snap.step_label)] if ctx.snap and ctx.snap.step_label and not ctx.over else []

    def middle_lines(self, ctx: Context, width: int) -> list[Line]:
        lines: list[Line] = []
        legal = ctx.legal() if ctx.deciding else None
        if legal:
            lines.append([("class:header", "Legal actions"), ("class:label", " (pick N sends one)")])
            for i, a in enumerate(legal[: self.LEGAL_SHOWN]):
                text = _short(a) or json.dumps(_jsonable(a))
                lines += wrap([("bold", "%3d  " % i), ("", text)], width, "       ")
            if len(legal) > self.LEGAL_SHOWN:
                lines.append([("class:label", "  ... %d more (act JSON sends any)" % (len(legal) - self.LEGAL_SHOWN))])
            lines.append([])
        lines.append([("class:header", "Table"), ("class:label", " (your view)" if ctx.seat is not None else " (public view)")])
        if ctx.view is None:
            lines.append([("class:label", "  (nothing yet)")])
        else:
            for text in plain(ctx.view, "  "):
                lines += wrap([("", text)], width, "      ")
        return lines

    def decision_label(self, ctx: Context) -> str:
        return plain_label(ctx.snap.step_label) if ctx.snap and ctx.snap.step_label else ""

    def draft_line(self, ctx: Context) -> list:
        out: list = [("bold", "Action: ")]
        if not self.has_action:
            return out + [("class:label", "none yet (act JSON, or pick N)")]
        out.append(("", json.dumps(_jsonable(self.action))))
        probs = ctx.problems(self.action) if ctx.deciding else []
        if probs:
            out.append(("class:error", " | to fix: " + "; ".join(probs)))
        return out

    def command(self, ctx: Context, name: str, args: list[str]) -> Say | Send | None:
        if name == "clear":
            self.action, self.has_action = None, False
            return Say("action cleared")
        if name == "pick":
            legal = ctx.legal() if ctx.deciding else None
            if not legal:
                raise CommandError("there is no list of legal actions to pick from now (act JSON sends an action)")
            if len(args) != 1 or not args[0].isdigit() or int(args[0]) >= len(legal):
                raise CommandError("usage: pick N, with N from 0 to %d" % (len(legal) - 1))
            return Send(legal[int(args[0])])
        text = " ".join(args)
        try:
            self.action = json.loads(text)
        except ValueError as exc:
            raise CommandError("act wants the action as JSON, e.g. act {\"kind\": \"pass\"} (%s)" % exc.msg) from None
        self.has_action = True
        return Say("action: %s (Enter sends it)" % json.dumps(self.action))

    def submit(self, ctx: Context) -> Say | Send | None:
        if not ctx.deciding:
            return None
        if not self.has_action:
            raise CommandError("no action yet: act JSON, or pick N from the legal actions")
        action = self.action
        self.action, self.has_action = None, False
        return Send(action)

    def key_help(self, ctx: Context) -> list[str]:
        return ["act JSON | pick N | clear | Enter=send | help | PgUp/PgDn scroll | q quit",
                "act JSON | pick N | Enter=send | help | q quit"]

    def command_help(self, ctx: Context) -> list[tuple[str, str]]:
        return [
            ("act JSON", "the action to send, as JSON (the game's own format), e.g. act {\"kind\": \"pass\"}"),
            ("pick N", "send legal action number N (when the game lists them)"),
            ("clear", "forget the action typed so far"),
            ("submit / empty Enter", "check the action with the game's rules and send it"),
        ]


_NAME = re.compile(r"[a-z][a-z0-9_-]*\Z")


def module_name(game_name: str) -> str:
    return "cli.screens." + game_name.replace("-", "_")


def screen_for(game_name: str) -> Screen:
    """A new screen for the game ``game_name``: ``cli/screens/<name with - as _>.py``'s ``SCREEN``, or ``GenericScreen``."""
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
