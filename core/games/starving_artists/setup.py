"""Starving Artists: the game's info, the table's options and the set-up (``configure``, ``setup``)."""

from __future__ import annotations

from typing import Any, Mapping

from ...engine import ConfigError, GameInfo
from ...rng import Rng
from ..common import option_map, seed_bytes
from .cards import CARDS
from .state import BAG, NAME, START_CUBES, START_NUTRITION, WILD, State, _draw, _short, _sub, cube_words, order_from

OPTIONS = {
    "edition": "standard",
    "color_study": False,
    "player_trades": False,
    "last_supper": False,
    "remove_comics": False,
    "solo_canvases": 35,
}
BOOL_OPTIONS = ("color_study", "player_trades", "last_supper", "remove_comics")
SOLO_CANVASES = (10, 92)
SOLO_ONLY = ("remove_comics", "solo_canvases")   # refused at 2-4 seats unless left at the default
EDITIONS = ("standard", "junior")

OPTION_HELP = {
    "edition": "rules edition: standard (default) or junior (canvases cost 1, sales paid from the bag)",
    "color_study": "true/false (default false): 4 cubes of one colour to the Paint Market for 1 cube of your choice from the bag, as the free action",
    "player_trades": "true/false (default false): one trade offer a day to all other artists, as the free action",
    "last_supper": "true/false (default false): at nutrition 1, discard a completed canvas at night for its stars in food",
    "remove_comics": "true/false (default false), solo only: leave the zero-star comic-book canvases out of the deck",
    "solo_canvases": "whole number 10 to 92 (default 35), solo only: canvases in the deck",
}


INFO = GameInfo(
    name=NAME, title="Starving Artists", min_players=1, max_players=4, default_players=4,
    editions=EDITIONS, information="imperfect", simultaneous=True, sealed=False,
    chance=True, options=dict(OPTIONS), option_help=dict(OPTION_HELP), listing=10,
)


def configure(options: Mapping[str, Any], players: int) -> dict:
    options = option_map(options)
    if type(players) is not int or not INFO.min_players <= players <= INFO.max_players:
        raise ConfigError("Starving Artists takes 1 to 4 players (1 = solo), not %s" % _short(players))
    config = dict(OPTIONS)
    for key, value in options.items():
        if not isinstance(key, str) or key not in OPTIONS:
            raise ConfigError("unknown option %s (known: %s)" % (_short(key), ", ".join(sorted(OPTIONS))))
        if key == "edition":
            if not isinstance(value, str) or value not in EDITIONS:
                raise ConfigError("option edition must be standard or junior, not %s" % _short(value))
        elif key in BOOL_OPTIONS:
            if type(value) is not bool:
                raise ConfigError("option %s must be true or false, not %s" % (key, _short(value)))
        elif key == "solo_canvases":
            lo, hi = SOLO_CANVASES
            if type(value) is not int or not lo <= value <= hi:
                raise ConfigError("option solo_canvases must be a whole number from %d to %d, not %s"
                                  % (lo, hi, _short(value)))
        if key in SOLO_ONLY and players != 1 and value != OPTIONS[key]:
            raise ConfigError("option %s is for the solo game only (1 player); a table of %d players "
                              "uses the whole deck" % (key, players))
        config[key] = value
    return config


def setup(config: Mapping[str, Any], players: int, seed: bytes) -> State:
    config = configure(config, players)
    seed = seed_bytes(seed, 32)
    rng = Rng(seed, NAME + "/setup")
    n = players
    first = rng.below(n)
    pool = list(range(len(CARDS)))
    if n == 1:
        if config["remove_comics"]:
            pool = [c for c in pool if CARDS[c].stars > 0]
        rng.shuffle(pool)
        pool = pool[: config["solo_canvases"]]
    deck = sorted(pool)
    bag = list(BAG)
    studios: list[list[int]] = [[0] * 8 for _ in range(n)]
    for s in order_from(first, [True] * n):
        studios[s] = _draw(bag, rng, START_CUBES)
    market = [-1, -1, -1]
    for slot in range(3):
        if deck:
            i = rng.below(len(deck))
            market[slot] = deck.pop(i)
    if config["edition"] == "junior":
        pm = [1 if bag[i] > 0 and i != WILD else 0 for i in range(8)]
        _sub(bag, pm)
    else:
        pm = _draw(bag, rng, 4)
    events = [(1, "day 1: seat %d has the first-player marker" % first),
              (1, "the Paint Market starts with %s" % cube_words(pm))]
    return State(
        config=config, players=n, day=1, phase="morning", step="turn", first=first, actor=first,
        alive=(True,) * n, nutrition=(START_NUTRITION,) * n, score=(0,) * n,
        food_earned=(0,) * n, sold=((),) * n, studios=tuple(tuple(x) for x in studios),
        canvases=((),) * n, market=tuple(market), paint_market=tuple(pm), bag=tuple(bag),
        deck=tuple(deck), discarded=(), pending=(), free_used=(False,) * n, offer=None,
        answers=(None,) * n, announced=(), collection=(), coll_next=0, starve_day=0,
        end_reason="", events=tuple(events),
    )
