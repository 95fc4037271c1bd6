"""The Modern Art game object (core.engine.Game): ``MODERN_ART``.

The table's game is the rules (rules.py) wrapped in the trustless deal
(dealt.py): keys, shuffles, shares, hand checks and the disclosure are
automatic steps; a card play is bound by its positions (the seat's move) and
then shown by its peer in an automatic step (the open), whose time-out
discards the bound cards face down.  ``info.secrets``
is True: every seat has a seat secret (core/engine.py, "Private information");
``info.chance`` is False: neither the rules nor the deal ask for shared
randomness after setup (the shuffle proofs are non-interactive, docs/deal.md §3).

Every method also accepts the rules' bare ``rules.State`` (an open, offline
game: tests, the screen's previews, ``bots.play_game``) and then behaves as
the rules alone (``view(state, seat, known)`` with ``known``: position -> card).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from ...engine import GameInfo, IllegalAction, Turn
from . import dealt, rules

__all__ = ["ModernArtGame", "MODERN_ART"]


def _bots() -> dict:
    from . import bots as _b
    return {"easy": _b.EasyBot, "medium": _b.MediumBot, "hard": _b.HardBot, "random": _b.RandomBot}


class ModernArtGame:
    # no chance turn: the shuffle proofs' challenge is Fiat-Shamir (docs/deal.md §3), not the beacon
    info: GameInfo = replace(rules.INFO, chance=False)

    @property
    def bots(self) -> Mapping[str, Any]:
        return _bots()

    def configure(self, options: Mapping[str, Any], players: int) -> dict:
        return rules.configure(options, players)

    def setup(self, config: Mapping[str, Any], players: int, seed: bytes) -> dealt.DState:
        return dealt.setup(config, players, seed)

    def turn(self, state: Any) -> Turn:
        return rules.turn(state) if _bare(state) else dealt.turn(state)

    def check(self, state: Any, seat: int, action: Any) -> Any:
        return rules.check(state, seat, action) if _bare(state) else dealt.check(state, seat, action)

    def apply(self, state: Any, seat: int, action: Any) -> Any:
        if rules.timeout_only(action):
            return _apply_timeout(state, seat, action)
        if dealt.timeout_only(action):
            if _bare(state):
                raise IllegalAction("only a card shown at the table can be discarded face down")
            return dealt.apply_discard(state, seat, action)
        return rules.apply(state, seat, action) if _bare(state) else dealt.apply(state, seat, action)

    def timeout_only(self, action: Any) -> bool:
        """A lost card turn (``{"do": "skip"}``) and a cut open's discard (``{"discard": true}``) are what a
        time-out gives, never a seat's own move: ``check`` refuses them, the table applies them (as every
        time-out's default) through ``apply``."""
        return rules.timeout_only(action) or dealt.timeout_only(action)

    def chance(self, state: Any, entropy: bytes) -> Any:
        # neither the rules nor the deal ask for randomness after setup (both refuse)
        return rules.chance(state, entropy) if _bare(state) else dealt.chance(state, entropy)

    def default_action(self, state: Any, seat: int) -> Any:
        return rules.default_action(state, seat) if _bare(state) else dealt.default_action(state, seat)

    def auto_action(self, state: dealt.DState, seat: int, secret: bytes) -> Any:
        return dealt.auto_action(state, seat, secret)

    def precompute(self, state: Any, seat: int | None, secret: bytes | None = None) -> list:
        return [] if _bare(state) else dealt.precompute(state, seat, secret)

    def seal_action(self, state: dealt.DState, seat: int, action: Any, secret: bytes) -> Any:
        return dealt.seal_action(state, seat, action, secret)

    def view(self, state: Any, seat: int | None, secret: Any = None) -> dict:
        if _bare(state):
            return rules.view(state, seat, secret)   # offline: ``secret`` is ``known`` (position -> card)
        return dealt.view(state, seat, secret)

    def result(self, state: Any) -> dict | None:
        return rules.result(state) if _bare(state) else dealt.result(state)

    def describe(self, state: Any, seat: int, action: Any) -> str:
        if _bare(state):
            return rules.describe(state, seat, action)
        try:
            return dealt.describe(state, seat, action)
        except Exception:
            return "seat %s: unreadable action" % (seat,)

    def legal_actions(self, state: Any, seat: int, secret: Any = None) -> list:
        if _bare(state):
            return rules.legal_actions(state, seat, secret)
        return dealt.legal_actions(state, seat, secret)

    def problems(self, state: Any, seat: int, action: Any) -> list:
        if _bare(state):
            return rules.problems(state, seat, action)
        try:
            dealt.check(state, seat, action)
        except IllegalAction as exc:
            return [str(exc) or "illegal move"]
        return []

    def determinize(self, state: Any, seat: int | None, rng: Any) -> Any:
        if _bare(state):
            return rules.determinize(state, seat, rng)
        return state._replace(ms=rules.determinize(state.ms, seat, rng))


def _apply_timeout(state: Any, seat: int, action: Any) -> Any:
    """The default of a timed-out card turn, applied without ``check`` (which refuses it as a choice)."""
    ms = state if _bare(state) else getattr(state, "ms", None)
    if not _bare(state) and getattr(state, "stage", None) != "play":
        raise IllegalAction("nobody is on turn to auction a painting now")
    if not isinstance(ms, rules.State) or ms.phase != "play" or ms.actor != seat or action != rules.default_action(ms, seat):
        raise IllegalAction("only the seat on turn loses its turn, and only by timing out")
    if _bare(state):
        return rules.apply_unchecked(ms, seat, action)
    return dealt.apply_timeout(state, seat, action)


def _bare(state: Any) -> bool:
    return isinstance(state, rules.State)


MODERN_ART = ModernArtGame()
