"""The screen of a game without one of its own: its view as text, actions typed as JSON or picked by
number from the game's legal actions, so a new game is playable at once."""

from __future__ import annotations

import json
from typing import Any

from .base import CommandError, Context, Say, Screen, Send
from .text import Line, _short, plain, plain_label, wrap
from ..common import jsonable

__all__ = ["GenericScreen"]


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
                text = _short(a) or json.dumps(jsonable(a))
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
        out.append(("", json.dumps(jsonable(self.action))))
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

