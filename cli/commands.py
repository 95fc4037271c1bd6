"""The command line, read: which of the shell's own commands a typed line is, or which of the
screen's (``read_line``), with the shell's command words and their help rows.  Pure: what a command
does is the UI's (cli/shell.py ``GameUI._execute``); what a screen's command does is the screen's.

The shell's words: an empty line sends the draft (``enter``); ``submit``/``send``/``ok``/``go`` too
(``submit``); ``help``/``h``/``?`` shows or hides the help page; ``q``/``quit``/``exit`` quits; at
game over ``a``/``again`` asks for a rematch and ``n``/``no`` says no to it (``n`` is a word of the
screen's while the game goes on).  Any other first word is looked up in the screen's ``commands``
(alias -> canonical name); a word found nowhere is ``unknown``, with the words it could have been.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

__all__ = ["Command", "read_line", "SHELL_HELP", "LONG_HELP", "SAY_KEY"]

AGAIN_WORDS = ("a", "again")
DECLINE_WORDS = ("n", "no")
SUBMIT_WORDS = ("submit", "send", "ok", "go")
HELP_WORDS = ("help", "h", "?")
QUIT_WORDS = ("q", "quit", "exit")
SAY_WORDS = ("say",)
SAY_KEY = '"'          # on an empty line: opens "say " in the command line

LONG_HELP = "help shown above (help, ? or Esc closes it; PgUp/PgDn scrolls it)"

SHELL_HELP = [
    ("help, ?", "show or hide this page (Esc hides it too)"),
    ("q, Ctrl-Q", "quit (q on an empty line); PgUp/PgDn scroll the middle pane; Up/Down recall commands"),
    ("say TEXT, \"", "say a line to the table: every seat and spectator sees it at once, and it goes in the log "
                   "with your next move (\" on an empty line types say for you; at most one line a second)"),
    ("Space, Esc", "skip the reveal of what just happened (Space on an empty line)"),
    ("a, again", "at game over: play again with the same seats, names, game and options (a rematch, as "
                 "easel again GAME_DIR does), in this terminal"),
    ("n, no", "at game over: say no to the rematch, so the others do not wait for you (as easel again "
              "--decline GAME_DIR does), then quit"),
]


@dataclass(frozen=True)
class Command:
    """A typed line, read.  ``kind``: "enter" (an empty line), "quit", "again", "decline", "help",
    "submit", "say" (a talk line: ``text``, as typed between its first word and its end), "screen" (the
    screen's command ``name`` with ``args``) or "unknown" (``error`` says so, naming the commands there are)."""

    kind: str
    name: str = ""
    args: tuple[str, ...] = ()
    error: str = ""
    text: str = ""


def read_line(text: str, commands: Mapping[str, str], over: bool) -> Command:
    """What the line ``text`` asks, given the screen's ``commands`` (alias -> name) and whether the
    game is ``over`` (``n`` says no to a rematch only then)."""
    words = text.strip().split()
    if not words:
        return Command("enter")
    cmd, args = words[0].lower(), tuple(words[1:])
    if cmd in SAY_WORDS:
        line = text.strip()
        return Command("say", text=line[len(words[0]):].strip())
    if cmd in QUIT_WORDS:
        return Command("quit")
    if cmd in AGAIN_WORDS and not args:
        return Command("again")
    if cmd in DECLINE_WORDS and not args and over:
        return Command("decline")
    if cmd in HELP_WORDS:
        return Command("help")
    if cmd in SUBMIT_WORDS:
        return Command("submit")
    name = commands.get(cmd)
    if name is None:
        names = list(dict.fromkeys(commands.values())) + ["submit", "help"]
        return Command("unknown", error="unknown command %r; commands: %s" % (cmd, ", ".join(names)))
    return Command("screen", name, args)
