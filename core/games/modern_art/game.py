"""The Modern Art game objects (core.engine.Game): ``MODERN_ART``, the table's, and ``OFFLINE``.

``MODERN_ART`` (the registry's ``GAME``) is the rules (rules.py) wrapped in the
trustless deal (dealt.py); its states are the deal's ``dealt.DState`` only:
keys, shuffles, shares, hand checks and the disclosure are automatic steps; a
card play is bound by its positions (the seat's move) and then shown by its
peer in an automatic step (the open), whose time-out discards the bound cards
face down.  ``info.secrets`` is True: every seat has a seat secret
(core/engine.py, "Private information"); ``info.chance`` is False: neither
the rules nor the deal ask for shared randomness after setup (the shuffle
proofs are non-interactive, docs/deal.md §3).

``OFFLINE`` is the rules alone, over the rules' bare ``rules.State`` with an
open deal (tests, the screen's previews, local play): no deal, no automatic
steps, and a seat's ``secret`` is what it knows of the deal, ``known``
(position -> card of its own hand), so ``view(state, seat, known)`` shows its
cards.  It is in no registry: no table plays it.  ``bots.play_game`` and the
bots' rollouts call the rules module directly.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from ...engine import GameInfo, IllegalAction, RulesGame
from ... import deal
from . import dealt, rules, warnings

__all__ = ["ModernArtGame", "OfflineModernArt", "MODERN_ART", "OFFLINE"]


def _bots() -> dict:
    from . import bots as _b
    return {"easy": _b.EasyBot, "medium": _b.MediumBot, "hard": _b.HardBot, "random": _b.RandomBot}


def _lost_turn(ms: rules.State, seat: int, action: Any) -> None:
    """Refuse a skip that is not the timed-out card turn's default (``check`` refuses every skip)."""
    if not isinstance(ms, rules.State) or ms.phase != "play" or ms.actor != seat or action != rules.default_action(ms, seat):
        raise IllegalAction("only the seat on turn loses its turn, and only by timing out")


class _ModernArt(RulesGame):
    """What both game objects are alike: a ``RulesGame`` over their module (the class's ``rules``:
    ``dealt`` for the table's game, ``rules`` offline), whose ``view`` and ``legal_actions`` also take
    the seat's secret; the game's facts, its bots (imported when first asked for), its options and its
    warnings are the class's own (``RulesGame.__init__`` is not called: nothing to set per object)."""

    # no chance turn: the shuffle proofs' challenge is Fiat-Shamir (docs/deal.md §3), not the beacon
    info: GameInfo = replace(rules.INFO, chance=False)

    def __init__(self) -> None:     # the module, facts and bots are the class's: nothing per object
        pass

    @property
    def bots(self) -> Mapping[str, Any]:
        return _bots()

    def configure(self, options: Mapping[str, Any], players: int) -> dict:
        return rules.configure(options, players)

    def view(self, state: Any, seat: int | None, secret: Any = None) -> dict:
        return self.rules.view(state, seat, secret)

    def legal_actions(self, state: Any, seat: int, secret: Any = None) -> list:
        return self.rules.legal_actions(state, seat, secret)

    def warnings(self, view: Any, seat: int | None) -> list[str]:
        return warnings.warnings(view, seat)


class ModernArtGame(_ModernArt):
    """The table's game: the rules wrapped in the deal, over ``dealt.DState`` (a seat's ``secret`` is its
    seat secret)."""

    rules = dealt

    def apply(self, state: dealt.DState, seat: int, action: Any) -> dealt.DState:
        if action == dealt.LEFT:
            return dealt.apply_left(state, seat, action)
        if rules.timeout_only(action):
            # the default of a timed-out card turn, applied without ``check`` (which refuses it as a choice)
            if state.stage != "play":
                raise IllegalAction("nobody is on turn to auction a painting now")
            _lost_turn(state.ms, seat, action)
            return dealt.apply_timeout(state, seat, action)
        if dealt.timeout_only(action):
            return dealt.apply_discard(state, seat, action)
        return dealt.apply(state, seat, action)

    def timeout_only(self, action: Any) -> bool:
        """A lost card turn (``{"do": "skip"}``) and a cut open's discard (``{"discard": true}``) are what a
        time-out gives, never a seat's own move: ``check`` refuses them, the table applies them (as every
        time-out's default) through ``apply``."""
        return rules.timeout_only(action) or dealt.timeout_only(action)

    def leave_payload(self, state: Any, seat: int, secret: Any = None) -> Any:
        return dealt.leave_payload(state, seat, secret)

    def check_leave(self, state: dealt.DState, seat: int, payload: Any) -> Any:
        try:
            return dealt.check_leave(state, seat, payload)
        except deal.DealError as exc:
            raise IllegalAction(str(exc)) from None

    def leave(self, state: dealt.DState, seat: int, payload: Any) -> dealt.DState:
        return dealt.leave(state, seat, payload)

    def auto_action(self, state: dealt.DState, seat: int, secret: bytes) -> Any:
        return dealt.auto_action(state, seat, secret)

    def precompute(self, state: dealt.DState, seat: int | None, secret: bytes | None = None) -> list:
        return dealt.precompute(state, seat, secret)

    def seal_action(self, state: dealt.DState, seat: int, action: Any, secret: bytes | None) -> Any:
        if secret is None:          # only the seat's own secret tells its cards: nothing to check without it
            return action
        return dealt.seal_action(state, seat, action, secret)

    def describe(self, state: dealt.DState, seat: int, action: Any) -> str:
        try:
            return dealt.describe(state, seat, action)
        except Exception:
            return "seat %s: unreadable action" % (seat,)

    def determinize(self, state: dealt.DState, seat: int | None, rng: Any) -> dealt.DState:
        return state._replace(ms=rules.determinize(state.ms, seat, rng))


class OfflineModernArt(_ModernArt):
    """The rules alone over a bare ``rules.State`` (an open deal); a seat's ``secret`` is ``known``."""

    rules = rules

    def apply(self, state: rules.State, seat: int, action: Any) -> rules.State:
        if rules.timeout_only(action):
            _lost_turn(state, seat, action)
            return rules.apply_unchecked(state, seat, action)
        if dealt.timeout_only(action):
            raise IllegalAction("only a card shown at the table can be discarded face down")
        return rules.apply(state, seat, action)

    def timeout_only(self, action: Any) -> bool:
        return rules.timeout_only(action)

    def problems(self, state: rules.State, seat: int, action: Any) -> list[str]:
        return rules.problems(state, seat, action)

    def determinize(self, state: rules.State, seat: int | None, rng: Any) -> rules.State:
        return rules.determinize(state, seat, rng)


MODERN_ART = ModernArtGame()
OFFLINE = OfflineModernArt()
