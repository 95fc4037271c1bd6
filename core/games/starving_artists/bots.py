"""Bots for Starving Artists.  A bot sees only ``view(state, seat)``.

* ``RandomBot``: a random legal action: a kind of action (work, buy, paint,
  trade, ...) uniformly among the legal kinds, then one of that kind's
  representative actions from ``rules.legal_actions`` uniformly.

Helpers other bots reuse:

* ``state_from_view(view, rng)``: a full State consistent with a view (the
  unseen deck drawn at random: determinization for search).
* ``legal_actions(state, seat)``, ``rules.apply_unchecked`` for fast rollouts.

``play_game`` drives a whole game locally, for tests and benchmarks.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...rng import Rng
from ..common import entropy_from, play_locally
from . import rules
from .rules import legal_actions, state_from_view

__all__ = ["RandomBot", "play_game", "state_from_view", "legal_actions", "random_legal", "entropy_from"]


def random_legal(state: rules.State, seat: int, rng: Rng) -> dict:
    """A random legal action: kind first (uniform), then an action of that kind (uniform)."""
    acts = legal_actions(state, seat)
    if not acts:
        return rules.default_action(state, seat)
    kinds: dict[str, list[dict]] = {}
    for a in acts:
        kinds.setdefault(a["do"], []).append(a)
    names = sorted(kinds)
    group = kinds[names[rng.below(len(names))]]
    return group[rng.below(len(group))]


class RandomBot:
    """A random legal action, chosen from a state rebuilt from the view."""

    def choose(self, view: Mapping[str, Any], seat: int, rng: Rng) -> dict:
        state = state_from_view(view, rng)
        return random_legal(state, seat, rng)


def play_game(
    config: Mapping[str, Any],
    players: int,
    seed: bytes,
    bots_by_seat: Sequence[Any] | Mapping[int, Any],
    max_steps: int = 20000,
) -> tuple[rules.State, dict]:
    """Play a whole game locally; every bot action goes through ``check`` (core/games/common.py).

    Chance steps get entropy from ``Rng(seed, "starving-artists/play/chance")``;
    the bot deciding at step k gets ``Rng(seed, "starving-artists/play/bot/<seat>/<k>")``.
    In a simultaneous step every seat chooses from the same state, then the
    actions are applied in seat order (as the table does).
    """
    return play_locally(rules, rules.NAME, config, players, seed, bots_by_seat, max_steps=max_steps,
                        bot_rng=lambda state, s, k: Rng(seed, "%s/play/bot/%d/%d" % (rules.NAME, s, k)))
