"""Conformance of every game to the engine API (core/engine.py), parametrised on the registry.

Every game in the default registry (core.games) plus the toy game, for every
edition, each bool option turned on alone, and the min/default/max player
counts — and, for a game that can be played solo (``info.min_players == 1``),
the solo table with every edition, each bool option turned on alone, each
whole-number option at the lowest and the highest value ``configure`` accepts,
and all of those bool options at once (alone and with each of those values) —
is played by random legal moves (``game.legal_actions``) through a
generic local driver that feeds chance turns entropy from an Rng.  Checked:

* play ends within a bounded number of steps and never raises;
* replaying the recorded (seat, action) / entropy sequence gives an equal state
  (every seat's encoded view and the result), and the same inputs give the same
  bytes (determinism);
* every view is canonical-encodable; ``apply`` and ``chance`` leave their input unchanged;
* ``default_action`` passes ``check`` for every seat asked in every step, unless the game's
  ``timeout_only(action)`` hook says only a time-out gives it: then ``check`` refuses it and ``apply`` takes it;
* ``describe`` never raises and returns text for every applied action;
* ``problems`` is empty exactly when ``check`` passes, for legal actions (sealed first with the
  seat's secret, as its peer sends them: ``seal_action``) and for mutated bad ones, and ``check``
  raises nothing but IllegalAction;
* views leak nothing: ``view(determinize(state, seat, rng), seat) == view(state, seat)``
  (a game of imperfect information overrides ``determinize``; the default keeps the state);
* the same game through the real table (signed log, commit-reveal, in-memory
  peers) replays with ``core.table.replay(entries, games)`` to the same head.

One calling convention: the driver gives every seat of every game a secret of
64 bytes and calls every game the same way.  A game with seat secrets
(``info.secrets``) answers automatic turns with ``game.auto_action`` (the
default action must still pass ``check``), lists ``legal_actions`` with the
seat's secret, and ``view(state, seat)`` without the secret and every other
seat's view carry nothing of that seat's secret-only knowledge (``view`` with
the secret is a superset of the one without); a game without seat secrets
ignores the secret (its views and legal actions are the same with and
without it).  Every game is a ``core.engine.Game`` and every optional hook
has its documented default there (``test_every_optional_hook_has_its_default``).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pytest

import core.games
from core.encoding import encode
from core.engine import ConfigError, Game, GameInfo, IllegalAction, Turn
from core.games import Registry, UnknownGame
from core.rng import Rng
from core.table import replay

from .helpers import GAMES, log_file, simulate
from .toy_game import TOY, ToyGame

SEEDS = 5                  # random games per configuration
SOLO_SEEDS = 20            # random games per solo configuration (solo games are short)
MAX_STEPS = 5000           # turns (chance included) one game may take
SAMPLE = 24                # legal actions per seat and step whose problems() are compared with check()

from core.games.modern_art.game import MODERN_ART  # noqa: E402  (under test even before it is registered)

UNDER_TEST = list(core.games.default()) + [TOY] + ([] if "modern-art" in core.games.names() else [MODERN_ART])
TABLE_GAMES = Registry(list(GAMES) + [g for g in UNDER_TEST if g.info.name not in GAMES.names()])


# --------------------------------------------------------------------------- configurations


def configurations(game) -> list[tuple[str, dict, int]]:
    """(id, options, players): every edition, each bool option flipped alone, min/default/max players."""
    info = game.info
    out: list[tuple[str, dict, int]] = []
    seen = set()

    def add(label: str, options: dict, players: int) -> None:
        try:
            key = (encode(game.configure(options, players)), players)     # one case per distinct table
        except ConfigError:     # an option for other tables only (e.g. solo-only): played where accepted
            return
        if key not in seen:
            seen.add(key)
            out.append(("%s-%s-p%d" % (info.name, label, players), options, players))

    for ed in info.editions:
        opts = {"edition": ed} if "edition" in info.options else {}
        add("edition=%s" % ed, opts, info.default_players)
    for name, default in sorted(info.options.items()):
        if type(default) is bool:
            add("%s=%s" % (name, str(not default).lower()), {name: not default}, info.default_players)
    for players in (info.min_players, info.max_players):
        add("defaults", {}, players)
    if info.min_players == 1:
        # the solo table: options that matter only there are played where they do something
        for ed in info.editions:
            add("edition=%s" % ed, {"edition": ed} if "edition" in info.options else {}, 1)
        flipped, extremes = {}, []
        for name, default in sorted(info.options.items()):
            if type(default) is bool:
                flipped[name] = not default
                add("%s=%s" % (name, str(not default).lower()), {name: not default}, 1)
            elif type(default) is int:
                for value in accepted_range(game, name, 1):
                    extremes.append((name, value))
                    add("%s=%d" % (name, value), {name: value}, 1)
        if flipped:     # every bool option at once, alone and with each extreme
            add("all-flags", flipped, 1)
            for name, value in extremes:
                add("all-flags-%s=%d" % (name, value), dict(flipped, **{name: value}), 1)
    return out


def accepted_range(game, name: str, players: int, limit: int = 2**31) -> tuple[int, ...]:
    """The lowest and highest whole number ``game.configure`` accepts for option ``name``
    (searched from its default; a side with no bound below ``limit`` is left out)."""
    default = game.info.options[name]

    def ok(value: int) -> bool:
        try:
            return game.configure({name: value}, players)[name] == value
        except ConfigError:
            return False

    assert ok(default), (name, default)
    out = []
    for sign in (-1, 1):
        good, step = default, 1
        while ok(default + sign * step):
            good = default + sign * step
            step *= 2
            if step > limit:
                break
        else:
            bad = default + sign * step
            while abs(bad - good) > 1:      # good is accepted, bad is not: bisect
                mid = (good + bad) // 2
                good, bad = (mid, bad) if ok(mid) else (good, mid)
            out.append(good)
    return tuple(sorted(set(out)))


CASES = [pytest.param(game, opts, players, id=cid) for game in UNDER_TEST for cid, opts, players in configurations(game)]


def _seed32(*parts: Any) -> bytes:
    return hashlib.sha256("/".join(str(p) for p in parts).encode()).digest()


def views(game, state, players: int) -> list[bytes]:
    return [encode(game.view(state, s)) for s in [None] + list(range(players))]


# --------------------------------------------------------------------------- the driver

BAD = [None, 0, -1, 2**40, "junk", b"\x00", [], {}, {"no such key": 1}, [1, 2, 3], True]


def mutations(action: Any) -> list:
    """A few actions near a legal one that are likely illegal (they need not all be)."""
    out = list(BAD)
    if isinstance(action, dict):
        for k in list(action)[:6]:
            for v in (None, -1, 10**9, "x", [99, 99, "Q"], {"x": -5}):
                out.append(dict(action, **{k: v}))
        out.append(dict(action, unknown_key=1))
    return out


def same_verdict(game, state, seat, action) -> None:
    """problems() is empty exactly when check() passes; check raises only IllegalAction."""
    try:
        game.check(state, seat, action)
        ok = True
    except IllegalAction:
        ok = False
    probs = game.problems(state, seat, action)
    assert isinstance(probs, list) and all(isinstance(p, str) and p for p in probs)
    assert (probs == []) == ok, (seat, action, probs)


def check_hidden(game, state, players: int, tag: str) -> None:
    for seat in range(players):
        mine = encode(game.view(state, seat))
        for k in range(2):
            other = game.determinize(state, seat, Rng(_seed32("determinize", tag, seat, k), "det"))
            assert encode(game.view(other, seat)) == mine, "seat %d's view changed when hidden parts were resampled" % seat


def seat_secret(seed: int, seat: int) -> bytes:
    return _seed32("secret", seed, seat) + _seed32("secret-2", seed, seat)


def play(game, options: dict, players: int, seed: int, checks: bool = True) -> tuple[list, Any]:
    """Random legal play to the end; returns (record, final state)."""
    secrets = game.info.secrets
    config = game.configure(options, players)
    rng = Rng(_seed32(game.info.name, encode(config).hex(), players, seed), "conformance")     # the path
    crng = Rng(_seed32(game.info.name, encode(config).hex(), players, seed), "checks")         # the checks
    state = game.setup(config, players, _seed32("setup", seed))
    record: list = []
    # the views of the state this step starts from, taken when that state was made (at the end of the step
    # before): a step's calls on it (turn, check, legal_actions, auto_action, apply, chance) must leave them
    # as they were. One encoding of every view per state, not three: the views are most of this test's time.
    seen = views(game, state, players) if checks else None
    for step in range(MAX_STEPS):
        t = game.turn(state)
        if t.kind == "over":
            break
        if t.kind == "chance":
            entropy = bytes(rng.below(256) for _ in range(32))
            nxt = game.chance(state, entropy)
            if checks:
                assert views(game, state, players) == seen, "chance (or a call before it this step) changed its input state"
                assert all(0 <= s < players for s in t.seats)
            state = nxt
            record.append(("chance", entropy))
        else:
            assert t.seats and all(0 <= s < players for s in t.seats) and list(t.seats) == sorted(set(t.seats))
            base = state
            chosen = []
            assert not t.auto or secrets, "an automatic turn in a game without seat secrets"
            for seat in t.seats:
                default = game.default_action(base, seat)
                if game.timeout_only(default):
                    # an action only a time-out gives (Modern Art's lost card turn): check refuses it as a
                    # seat's own move; the table applies it without check, so apply must take it
                    with pytest.raises(IllegalAction):
                        game.check(base, seat, default)
                    game.apply(base, seat, default)
                else:
                    game.check(base, seat, default)   # the default action is legal (IllegalAction fails the test)
                if t.auto:
                    action = game.check(base, seat, game.auto_action(base, seat, seat_secret(seed, seat)))
                    if checks:
                        for bad in BAD:
                            same_verdict(game, base, seat, bad)
                    chosen.append((seat, action))
                    continue
                secret = seat_secret(seed, seat)
                # the seat's decided actions; its peer seals each (seal_action: a game without seat
                # secrets keeps it) before check and signing, so each passes check once sealed
                legal = game.legal_actions(base, seat, secret)
                if checks and not secrets:   # one signature: a game without seat secrets ignores the secret
                    assert encode(game.legal_actions(base, seat)) == encode(legal), "the secret changed its legal actions"
                assert legal, "seat %d is asked to act but has no legal action" % seat
                if checks:
                    picks = legal if len(legal) <= SAMPLE else [legal[crng.below(len(legal))] for _ in range(SAMPLE)]
                    for a in picks:
                        assert game.problems(base, seat, game.seal_action(base, seat, a, secret)) == [], (seat, a)
                    for bad in mutations(legal[crng.below(len(legal))]):
                        same_verdict(game, base, seat, bad)
                    outsider = next((s for s in range(players) if s not in t.seats), None)
                    if outsider is not None:
                        same_verdict(game, base, outsider, default)
                action = game.check(base, seat, game.seal_action(base, seat, legal[rng.below(len(legal))], secret))
                chosen.append((seat, action))
            for seat, action in chosen:
                text = game.describe(base, seat, action)
                assert isinstance(text, str) and text
                state = game.apply(state, seat, action)
            if checks:
                assert views(game, base, players) == seen, "apply (or a call before it this step) changed its input state"
            record.append(("moves", chosen))
        if checks:
            seen = views(game, state, players)   # every view is canonical-encodable (and the next step's "before")
            if step % 3 == 0:   # the warnings hook: sentences from a seat's view
                for seat in range(players):
                    said = game.warnings(game.view(state, seat), seat)
                    assert isinstance(said, list) and all(isinstance(x, str) and x for x in said), said
            if step % 3 == 0:
                for seat in range(players):
                    mine = game.view(state, seat, seat_secret(seed, seat))
                    encode(mine)
                    plain = game.view(state, seat)
                    if secrets:
                        assert {k: v for k, v in mine.items() if k in plain} == plain, "the secret changed a public part of the view"
                    else:   # one signature: a game without seat secrets ignores the secret
                        assert encode(mine) == encode(plain), "a game without seat secrets changed its view for a secret"
            if step % 3 == 0:
                check_hidden(game, state, players, "%d-%d" % (seed, step))
    else:
        pytest.fail("%s did not end within %d steps" % (game.info.name, MAX_STEPS))
    assert game.result(state) is not None
    encode(game.result(state))
    return record, state


def replay_record(game, options: dict, players: int, seed: int, record: list) -> Any:
    config = game.configure(options, players)
    state = game.setup(config, players, _seed32("setup", seed))
    for item in record:
        if item[0] == "chance":
            assert game.turn(state).kind == "chance"
            state = game.chance(state, item[1])
        else:
            for seat, action in item[1]:
                state = game.apply(state, seat, action)
    assert game.turn(state).kind == "over"
    return state


# --------------------------------------------------------------------------- the tests


@pytest.mark.parametrize("game, options, players", CASES)
def test_random_legal_play_replays_and_is_deterministic(game, options, players):
    config = game.configure(options, players)
    assert game.configure(config, players) == config   # configure is idempotent (the genesis holds its output)
    for seed in range(SOLO_SEEDS if players == 1 else SEEDS):
        record, state = play(game, options, players, seed)
        again = replay_record(game, options, players, seed, record)
        assert views(game, again, players) == views(game, state, players)
        assert encode(game.result(again)) == encode(game.result(state))
        if seed == 0:   # same inputs, same bytes (the unchecked run takes the same random path)
            record2, state2 = play(game, options, players, seed, checks=False)
            assert encode([[r[0], r[1]] for r in record2]) == encode([[r[0], r[1]] for r in record])
            assert views(game, state2, players) == views(game, state, players)


@pytest.mark.parametrize("game", UNDER_TEST, ids=lambda g: g.info.name)
def test_info_options_and_configure_errors(game):
    info = game.info
    assert info.min_players <= info.default_players <= info.max_players
    assert info.editions and info.default_edition == info.editions[0]
    assert set(info.option_help) == set(info.options), "every option needs a one-line help (allowed values)"
    assert all(isinstance(h, str) and h for h in info.option_help.values())
    encode(dict(info.options))
    for players in (info.min_players - 1, info.max_players + 1, "3", None):
        with pytest.raises(ConfigError):
            game.configure({}, players)
    for bad in ({"no such option": 1}, {"edition": "no such edition"}, "not a map"):
        with pytest.raises(ConfigError):
            game.configure(bad, info.default_players)
    for name, default in info.options.items():
        if type(default) is int:   # the help names the range configure accepts ("1 to 20")
            # at the default table, or at the first table where the option is more than its default
            at = next((p for p in [info.default_players] + list(range(info.min_players, info.max_players + 1))
                       if len(accepted_range(game, name, p)) == 2), info.default_players)
            bounds = accepted_range(game, name, at)
            assert len(bounds) == 2, "option %s accepts numbers without a bound" % name
            assert re.search(r"\b%d to %d\b" % bounds, info.option_help[name]), (name, bounds, info.option_help[name])
            for bad in (bounds[0] - 1, bounds[1] + 1, True, str(default)):
                with pytest.raises(ConfigError):
                    game.configure({name: bad}, at)
    assert set(game.bots) and all(callable(f) for f in game.bots.values())


@pytest.mark.parametrize("game", UNDER_TEST, ids=lambda g: g.info.name)
def test_full_game_through_the_real_table_replays_to_the_same_head(game):
    info = game.info
    players = max(info.min_players, min(3, info.max_players))
    options = {"rounds": 2} if "rounds" in info.options else {}
    level = "random" if "random" in game.bots else sorted(game.bots)[0]
    for seed in (1, 2):
        g, sks, peers = simulate(players, seed, config=options, game=info.name, games=TABLE_GAMES, bot=game.bots[level]())
        log = peers[0].log_entries
        assert all(p.log_entries == log for p in peers)
        t = replay(log, TABLE_GAMES)
        assert t.over and t.head == peers[0].table.head
        assert encode(t.result()) == encode(peers[0].table.result())
        if info.name in core.games.names():
            t2 = replay(log, core.games)    # the module itself is a registry
            assert t2.head == t.head


BOT_DECISIONS = 3          # decisions per bot level checked by test_every_bot_level_decides_from_its_view_alone


@pytest.mark.parametrize("game", [g for g in UNDER_TEST if not g.info.secrets], ids=lambda g: g.info.name)
def test_every_bot_level_decides_from_its_view_alone(game):
    """Every bot level of a game (the search levels included) makes a legal move, and the same move
    when the hidden parts of the state are resampled (``determinize``): it decides from what its
    seat may see.  Checked at states of a random legal game, in a simultaneous step after the
    other seats' moves are applied (hidden until the step closes).  Games with seat secrets give
    their bots the seat's own cards (tests/test_private.py and the game's own bot tests)."""
    info = game.info
    players = info.default_players
    options = {"rounds": 2} if "rounds" in info.options else {}
    for level, make in game.bots.items():
        rng = Rng(_seed32("bots", info.name, level), "path")
        state = game.setup(game.configure(options, players), players, _seed32("bots-setup", info.name))
        done = 0
        for step in range(MAX_STEPS):
            t = game.turn(state)
            if t.kind == "over" or done >= BOT_DECISIONS:
                break
            if t.kind == "chance":
                state = game.chance(state, bytes(rng.below(256) for _ in range(32)))
                continue
            seat = t.seats[-1]
            base = state
            for other in t.seats[:-1]:     # the others' moves are in (and hidden) when the last decides
                legal = game.legal_actions(base, other)
                base = game.apply(base, other, game.check(base, other, legal[rng.below(len(legal))]))
            if step % 3 == 0:
                bot_seed = _seed32("bot", info.name, level, step)
                action = make().choose(game.view(base, seat), seat, Rng(bot_seed, "bot"))
                game.check(base, seat, action)       # legal (IllegalAction fails the test)
                for k in range(2):
                    other = game.determinize(base, seat, Rng(_seed32("bot-det", info.name, level, step, k), "det"))
                    assert encode(game.view(other, seat)) == encode(game.view(base, seat))
                    again = make().choose(game.view(other, seat), seat, Rng(bot_seed, "bot"))
                    assert encode(again) == encode(action), "%s %s: another move when hidden parts were resampled" % (info.name, level)
                done += 1
            legal = game.legal_actions(base, seat)
            state = game.apply(base, seat, game.check(base, seat, legal[rng.below(len(legal))]))
        assert done == BOT_DECISIONS or game.turn(state).kind == "over", (info.name, level, done)


# --------------------------------------------------------------------------- the registry and the engine helpers


def test_default_registry_discovers_every_game_package():
    reg = core.games.default()
    assert reg is core.games.default()      # cached
    assert reg.names() == core.games.names() == ["painting", "starving-artists", "modern-art"]   # by info.listing
    assert [g.info.name for g in reg] == reg.names()
    assert core.games.get("painting") is reg.get("painting")
    assert "toy" not in reg    # the toy game is registered only through test registries
    with pytest.raises(UnknownGame, match="known: .*painting"):
        core.games.get("chess")


def test_registry_api():
    reg = Registry([TOY])
    assert reg.get("toy") is TOY and reg.names() == ["toy"] and list(reg) == [TOY] and len(reg) == 1
    for bad in ("painting", None, 3):
        with pytest.raises(UnknownGame) as exc:
            reg.get(bad)
        assert isinstance(exc.value, ConfigError) and "known: toy" in str(exc.value)
    assert sorted(GAMES.names()) == sorted(core.games.names() + ["toy"])
    assert "modern-art" in TABLE_GAMES.names()

    with pytest.raises(ValueError, match="two games named"):
        Registry([TOY, ToyGame()])

    class NotAGame:      # the hooks' defaults live in core.engine.Game: a registry holds only its subclasses
        info = TOY.info

    with pytest.raises(TypeError, match="not a core.engine.Game"):
        Registry([NotAGame()])


class _OnlyRequired(Game):
    """A game with the required functions only: every optional hook is the base class's default."""

    info = GameInfo(name="bare", title="Bare", min_players=1, max_players=2, default_players=1, editions=("plain",),
                    information="perfect", simultaneous=False, sealed=False, chance=False)
    bots: dict = {}

    def __init__(self, default="ok", reason="only ok") -> None:
        self.default, self.reason = default, reason

    def configure(self, options, players):
        return {}

    def setup(self, config, players, seed):
        return "s"

    def turn(self, state):
        return Turn("sequential", (0,))

    def check(self, state, seat, action):
        if action != "ok":
            raise IllegalAction(self.reason)
        return action

    def apply(self, state, seat, action):
        return state

    def default_action(self, state, seat):
        return self.default

    def view(self, state, seat, secret=None):
        return {}

    def result(self, state):
        return None

    def describe(self, state, seat, action):
        return "seat %d: %s" % (seat, action)


def test_every_optional_hook_has_its_default():
    """core/engine.py, "One way to declare a hook": each default as documented (protocol.md §7)."""
    g = _OnlyRequired()
    assert g.problems("s", 0, "ok") == [] and g.problems("s", 0, "no") == ["only ok"]
    assert _OnlyRequired(reason="").problems("s", 0, "no") == ["illegal move"]     # a reason is never empty
    assert g.legal_actions("s", 0) == ["ok"] and g.legal_actions("s", 0, b"\x01" * 64) == ["ok"]
    assert _OnlyRequired(default="no").legal_actions("s", 0) == []                  # an illegal default: none
    assert g.determinize("s", 0, Rng(bytes(32), "x")) == "s"
    assert g.timeout_only("ok") is False and g.timeout_only({"do": "skip"}) is False
    assert g.seal_action("s", 0, {"a": 1}, b"\x01" * 64) == {"a": 1} and g.seal_action("s", 0, "x", None) == "x"
    assert g.precompute("s", 0, b"\x01" * 64) == [] and g.precompute("s", None) == []
    assert g.warnings({}, 0) == [] and g.warnings(None, None) == []
    with pytest.raises(IllegalAction):
        g.chance("s", bytes(32))
    with pytest.raises(IllegalAction):
        g.auto_action("s", 0, b"\x01" * 64)

    class Incomplete(Game):     # a required function missing: refused when the game object is made
        info = g.info

        def view(self, state, seat, secret=None):
            return {}

    with pytest.raises(TypeError):
        Incomplete()


@pytest.mark.parametrize("game", UNDER_TEST, ids=lambda g: g.info.name)
def test_every_game_is_a_game_and_overrides_the_hooks_its_kind_needs(game):
    """One way to declare a hook: a game subclasses core.engine.Game and overrides what it has.
    A game that hides something overrides ``determinize`` (the default keeps the state, which would
    let a search bot see everything); a game with seat secrets overrides ``auto_action`` (its automatic
    steps) and ``legal_actions`` (the default cannot list what only a secret opens)."""
    assert isinstance(game, Game)
    cls = type(game)
    if game.info.information == "imperfect":
        assert cls.determinize is not Game.determinize
    if game.info.secrets:
        assert cls.auto_action is not Game.auto_action and cls.legal_actions is not Game.legal_actions


def test_toy_view_hides_other_seats_rolls_until_the_round_resolves():
    state = TOY.chance(TOY.setup(TOY.configure({}, 3), 3, bytes(32)), b"\x07" * 32)
    v0, v1 = TOY.view(state, 0), TOY.view(state, 1)
    assert v0["my_roll"] == state.rolls[0] and v1["my_roll"] == state.rolls[1]
    assert TOY.view(state, None)["my_roll"] is None
    assert all(1 <= r <= 6 for r in state.rolls)
    other = TOY.determinize(state, 0, Rng(bytes(32), "x"))
    assert encode(TOY.view(other, 0)) == encode(v0)


def test_audit_of_a_toy_log_with_the_test_registry():
    from core.audit import audit

    g, sks, peers = simulate(2, 9, config={"rounds": 2})
    rep = audit({"toy.log": log_file(peers[0].log_entries)}, GAMES)
    assert rep["valid"] and rep["complete"] and rep["game"] == "toy"
    rep = audit({"toy.log": log_file(peers[0].log_entries)}, core.games)
    assert not rep["valid"] and "unknown game 'toy'" in rep["problems"][0]["problem"]
