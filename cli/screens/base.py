"""The screen protocol's parts: what the shell hands a screen (``Context``, ``Snapshot``, ``Sent``), what a
screen gives back (``Say``, ``Send``, ``Beat``, ``CommandError``) and the ``Screen`` base class, every
method with a usable default.  When the shell calls what: cli/screens/__init__.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .text import Line, ordinal, plain, seat_name, wrap

__all__ = ["CommandError", "Say", "Send", "Sent", "Snapshot", "Beat", "Context", "Screen"]


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

    @property
    def table_view(self) -> dict | None:
        """The latest snapshot's view (else ``view``) when it is a map: the table as the panes draw it."""
        v = self.snap.view if self.snap and self.snap.view is not None else self.view
        return v if isinstance(v, dict) else None

    @property
    def move_view(self) -> dict | None:
        """While deciding, the open decision's view; else ``table_view``: what a command is read against."""
        v = self.view if self.deciding else self.table_view
        return v if isinstance(v, dict) else None



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
