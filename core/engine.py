"""The one engine API every Easel game implements (OpenSpiel in spirit).

A game is a ``Game`` (the base class below) with a ``GameInfo`` and pure
functions over an opaque, immutable-by-convention state.  The table layer (core/table.py) owns
everything that is not a rule of a game: seats and keys, the log order,
commit-reveal, the shared seed, time-outs.  A game never sees a key, a salt,
a signature or a clock.

Life of a game::

    config = game.configure(options, players)       # validate + fill defaults
    state  = game.setup(config, players, seed)       # seed: 32 shared bytes
    loop:
        turn = game.turn(state)                      # who must act now
        turn.kind == "over"         -> game.result(state)
        turn.kind == "chance"       -> state = game.chance(state, entropy32)
        turn.kind == "sequential"   -> only turn.seats[0] may act
        turn.kind == "simultaneous" -> every seat in turn.seats sends one
                                       action; the table applies them in seat
                                       order once all are in (if turn.sealed,
                                       through commit-reveal)
        action = game.check(state, seat, raw)        # IllegalAction if not
        state  = game.apply(state, seat, action)     # pure

Seats are ints 0..players-1 in table order ("clockwise" = increasing mod n).
Actions, configs, views and results are canonical-encodable values
(core.encoding): ints, str, bytes, bool, None, lists, str-keyed maps.

Why each piece is there, checked against all three games:

* ``sequential`` covers Modern Art's card play, one-offer and fixed-price
  rounds, the double-auction offer going round the table, and Starving
  Artists' turns, including free actions: ``apply`` simply leaves the same
  seat to act until it ends its turn.
* ``simultaneous`` covers the Painting Game round, Modern Art's hidden
  auction (sealed), open auctions run as rounds of simultaneous raises, and
  Starving Artists' trade offers answered by several players ("first to
  accept" = first accepting seat clockwise from the offerer, decided by the
  rules once all answers are in, never by arrival time).
* ``chance`` lets a game ask for fresh shared randomness mid-game (Starving
  Artists' bag draws, a new round's sheets) instead of drawing everything
  from the start seed, so no seat can see the future in the seed.
* hidden information lives in the state; ``view(state, seat, secret=None)``
  is the only way a seat (or a bot) sees it.  Modern Art's mental-poker deal
  keeps masked cards in the state and reveals them by actions carrying
  decryption shares; nothing here assumes the state is fully known to anyone.
* ``default_action`` is what the rules apply for a seat the table timed out
  (without ``check``).  A game whose default is something a seat may never
  choose itself (Modern Art's lost card turn) says so with the hook
  ``timeout_only(action) -> bool``: ``check`` refuses that action, ``apply``
  takes it (the conformance suite checks both).

Private information (a game whose ``info.secrets`` is True; Modern Art's deal):

* **seat secret**: every seat has 64 random bytes made by its peer (p2p/),
  kept in the peer's secrets file (so it survives a restart) and sent to
  nobody until the game discloses it.  A game fixes it publicly itself (e.g.
  a public key derived from it in its first automatic step).
* **automatic steps**: ``Turn(..., auto=True)`` (sequential or simultaneous,
  never sealed) is a step no person or bot decides: the peer computes its
  action with ``game.auto_action(state, seat, secret)`` and sends it like any
  other event; every peer checks it with ``check`` as usual.  ``default_action``
  is what a timed-out seat gets, as everywhere; where no legal default exists
  (a share only that seat can give) it returns a *withhold marker* that
  ``apply`` turns into the game's end with that seat named (a certificate can
  be signed against a seat that did move, so it ranks no one: Modern Art
  abandons the game), so the table's time-out certificates work unchanged.
* ``seal_action(state, seat, action, secret) -> action`` (a hook; by default
  the action unchanged): the peer passes every action its person or bot
  decided through it, with its seat secret, before checking and signing; it
  may raise ``IllegalAction`` for what only the seat's secret can tell
  (Modern Art: a claimed card that is not the one at its deck position), and
  returns the action in the form the peer signs (Modern Art: a card play's
  positions only; ``check`` refuses the card-id form a screen or a bot chose).
  A malformed action is returned unchanged for ``check``.
* **secret-aware view**: ``view(state, seat, secret=None)``; with the seat's
  own secret the view includes its own hand; without one (audit, spectators,
  another seat) only what is public.  The table's ``view(seat, secret=None)``
  passes it (``Table.secrets`` holds the secrets the local peer knows).
  ``legal_actions(state, seat, secret=None)`` likewise.
* **disclosure**: the game's last step is an automatic step in which every
  seat publishes its seat secret; the game re-checks what it could not check
  before and names a cheating seat; ``result`` is None until then, and says
  ``"status": "complete"`` only when everything was disclosed and checked.

One calling convention.  Every game is called the same way, with or without
seat secrets: ``view(state, seat, secret=None)``, ``legal_actions(state,
seat, secret=None)``, ``seal_action(state, seat, action, secret)``,
``precompute(state, seat, secret=None)``; a game without seat secrets gets
``secret=None`` (nobody makes one for it) and ignores it.  ``info.secrets``
decides one thing only: whether a seat's peer makes and keeps a seat secret
(p2p/protocol.py ``Peer.uses_secrets``; the export, cli/export.py, likewise
looks for one only then).  Nothing above changes the events or logs of a
game without secrets.

One way to declare a hook.  ``Game`` below declares the functions above as
abstract (a game object lacking one cannot be made) and has every optional
hook with its documented default; a game subclasses it (``RulesGame`` for a game whose
rules are one module's functions, ``FullRulesGame`` when that module has the search hooks
too) and overrides the hooks it has.  Callers
call the hook (``game.problems(...)``), never probe for it: every game has
all of them.  The optional hooks, and their defaults:

* ``chance(state, entropy) -> state`` — refuses (``IllegalAction``): a game
  that never returns a chance turn is never asked.
* ``legal_actions(state, seat, secret=None) -> list`` — every *kind* of legal
  action the seat may take now (each one passes ``check`` once sealed with the
  same secret, ``seal_action``, as its peer sends it); where the space
  is huge a representative sample is allowed, but it always holds the
  default action when the seat is asked to act.  Bots, the conformance suite
  and UIs use it.  Default: the default action alone, if ``problems`` finds
  none in it (else ``[]``).
* ``problems(state, seat, action) -> list[str]`` — why ``action`` is not
  legal, one line per problem for a person; empty means legal (exactly when
  ``check`` passes).  The UI's only legality source: a screen never
  re-implements a rule.  Default: ``check``'s one reason (``IllegalAction``'s
  message, "illegal move" if it has none), or ``[]``.
* ``determinize(state, seat, rng) -> state`` — a state consistent with
  everything ``seat`` may know, the hidden parts resampled from ``rng`` (a
  ``core.rng.Rng``): ``view(determinize(s, seat, rng), seat) == view(s, seat)``.
  Search bots sample worlds with it; the conformance suite uses it to check
  that a seat's view carries nothing hidden.  Default: the state unchanged,
  right only for a game that hides nothing (``info.information ==
  "perfect"``); the conformance suite requires a game of imperfect
  information to override it.
* ``timeout_only(action) -> bool`` — default False (every default action is
  one a seat may also choose).
* ``standings(state) -> dict | None`` — what the log has made public of each
  seat's standing so far (Modern Art: the money, which follows from the public
  auctions), shown when a game ends before its end (``forked``, protocol.md
  §6.5; ``abandoned``): standings, never a ranking or a winner.  Default: None.
* ``auto_action(state, seat, secret) -> action`` — default: refuses
  (``IllegalAction``); a game without automatic steps is never asked.
* ``seal_action(state, seat, action, secret) -> action`` — default: the
  action unchanged.
* ``precompute(state, seat, secret=None) -> [zero-argument pure calls]`` —
  work a peer may run ahead in the background (a worker thread) while it
  waits; the game memoises their results, so running them or not changes
  no result, only how soon it is known (docs/deal.md §2a).  Default: ``[]``.
* ``warnings(view, seat) -> list[str]`` — what the next step costs the seat
  if nothing changes, most urgent first, in sentences for a person (the
  shell shows the first above the prompt); a pure function of the seat's
  view.  Default: ``[]``.

A chance turn may name seats: ``Turn("chance", seats=(0, 2))`` asks only
those seats for fresh entropy when the table needs a new seed step (e.g. the
seats still in the game, so an eliminated seat never stalls a draw); no seats
(the default) means every seat.

The table takes a registry of games (core.games.Registry, or the module
core.games itself) as an argument: it never imports one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol

__all__ = [
    "Game",
    "RulesGame",
    "FullRulesGame",
    "GameInfo",
    "Turn",
    "Bot",
    "IllegalAction",
    "ConfigError",
    "OVER",
]


class IllegalAction(ValueError):
    """An action the rules refuse; the message says why, for a person."""


class ConfigError(ValueError):
    """A table configuration the game refuses (unknown edition, bad player count...)."""


@dataclass(frozen=True)
class GameInfo:
    name: str                    # wire name, e.g. "painting"
    title: str                   # for people
    min_players: int
    max_players: int
    default_players: int
    editions: tuple[str, ...]    # rule editions / variants; first is the default
    information: str             # "perfect" | "imperfect"
    simultaneous: bool           # has simultaneous phases
    sealed: bool                 # has sealed (commit-reveal) phases
    chance: bool                 # asks for shared randomness after setup
    options: Mapping[str, Any] = field(default_factory=dict)  # option -> default
    option_help: Mapping[str, str] = field(default_factory=dict)  # option -> one line: allowed values/range
    secrets: bool = False        # needs a per-seat secret (automatic steps, secret-aware views)
    listing: int = 100           # where ``easel games`` lists it; the first listed is the CLI's default game

    @property
    def default_edition(self) -> str:
        return self.editions[0]


@dataclass(frozen=True)
class Turn:
    kind: str                          # "sequential" | "simultaneous" | "chance" | "over"
    seats: tuple[int, ...] = ()        # who must act (one seat when sequential); for a
                                       # chance turn who gives entropy (empty: every seat)
    sealed: bool = False               # simultaneous moves go through commit-reveal
    label: str = ""                    # for people: "round 2 - bids and splash"
    auto: bool = False                 # the peer computes the action (game.auto_action), nobody decides
    time: int | None = None            # seconds a seat gets for this step when shorter than the
                                       # table's time-out (peers vote a late seat out after it)
    shows: bool = False                # an automatic step whose events show a secret of their authors
                                       # (a card, a decryption share, a seat secret): the choice it shows
                                       # was bound in an earlier step, a peer sends it only once the steps
                                       # before are settled, and never rolls back past it (protocol.md §6.5)
    needs: bool = False                # an automatic step the game cannot pass without each of its seats (a
                                       # time-out abandons the game: Modern Art's deal keys, shuffles, shares):
                                       # the peers wait for a silent seat longer than the table's time
                                       # (p2p/timeouts.py NEEDED_PATIENCE), naming it, before voting it out

    def __post_init__(self) -> None:
        if self.kind not in ("sequential", "simultaneous", "chance", "over"):
            raise ValueError("bad turn kind %r" % self.kind)
        if self.kind == "sequential" and len(self.seats) != 1:
            raise ValueError("a sequential turn has exactly one seat")
        if self.sealed and self.kind != "simultaneous":
            raise ValueError("only simultaneous turns can be sealed")
        if self.auto and (self.kind not in ("sequential", "simultaneous") or self.sealed):
            raise ValueError("only open sequential or simultaneous turns can be automatic")
        if self.shows and not self.auto:
            raise ValueError("only an automatic step shows a secret (a sealed move's reveal shows its own)")
        if self.needs and not self.auto:
            raise ValueError("only an automatic step is marked as needing its seats")
        if self.time is not None and (type(self.time) is not int or self.time < 1 or self.kind not in ("sequential", "simultaneous")):
            raise ValueError("a turn's time is a whole number of seconds >= 1, for a sequential or simultaneous turn")


OVER = Turn("over")


class Bot(Protocol):
    """A bot sees only ``view(state, seat)``; randomness comes in as an Rng."""

    def choose(self, view: Any, seat: int, rng: Any) -> Any: ...


class Game(ABC):
    """Every game: the functions the table and the audit need (abstract here), and every optional
    hook with its default (see "One way to declare a hook" above).  A game subclasses this and
    overrides the hooks it has; a caller calls any hook of any game without probing for it.

    ``info`` (a ``GameInfo``) and ``bots`` (level name -> factory of a ``Bot``) are attributes
    (or properties) of the subclass."""

    info: GameInfo
    bots: Mapping[str, Callable[[], Bot]]

    # ---------------------------------------------------------------- what the log's replay needs
    @abstractmethod
    def configure(self, options: Mapping[str, Any], players: int) -> dict: ...

    @abstractmethod
    def setup(self, config: Mapping[str, Any], players: int, seed: bytes) -> Any: ...

    @abstractmethod
    def turn(self, state: Any) -> Turn: ...

    @abstractmethod
    def check(self, state: Any, seat: int, action: Any) -> Any: ...

    @abstractmethod
    def apply(self, state: Any, seat: int, action: Any) -> Any: ...

    @abstractmethod
    def default_action(self, state: Any, seat: int) -> Any: ...

    @abstractmethod
    def view(self, state: Any, seat: int | None, secret: Any = None) -> Any:
        """What ``seat`` (None: the public) may see; with the seat's own ``secret`` (a game with seat
        secrets) also what only that secret opens.  A game without seat secrets ignores ``secret``."""

    @abstractmethod
    def result(self, state: Any) -> dict | None: ...

    @abstractmethod
    def describe(self, state: Any, seat: int, action: Any) -> str: ...

    # ---------------------------------------------------------------- optional hooks, with their defaults
    def chance(self, state: Any, entropy: bytes) -> Any:
        """Default: refused; a game that never returns a chance turn is never asked."""
        raise IllegalAction("this game asks for no shared randomness")

    def legal_actions(self, state: Any, seat: int, secret: Any = None) -> list:
        """Default: the default action alone, if it is legal (else none)."""
        action = self.default_action(state, seat)
        return [action] if not self.problems(state, seat, action) else []

    def problems(self, state: Any, seat: int, action: Any) -> list[str]:
        """Default: ``check``'s reason, or none."""
        try:
            self.check(state, seat, action)
        except IllegalAction as exc:
            return [str(exc) or "illegal move"]
        return []

    def determinize(self, state: Any, seat: int | None, rng: Any) -> Any:
        """Default: the state unchanged (right only for a game whose views hide nothing)."""
        return state

    def timeout_only(self, action: Any) -> bool:
        """Default: no action is a time-out's only."""
        return False

    def standings(self, state: Any) -> dict | None:
        """What the log has made public of each seat's standing so far (e.g. Modern Art's money, which
        follows from the public auctions), shown when a game ends before its end (forked, or abandoned
        by a silent seat): standings, never a ranking or a winner.  Default: none."""
        return None

    def auto_action(self, state: Any, seat: int, secret: bytes) -> Any:
        """Default: refused; a game without automatic turns is never asked."""
        raise IllegalAction("this game has no automatic steps")

    def seal_action(self, state: Any, seat: int, action: Any, secret: bytes | None) -> Any:
        """Default: the action unchanged."""
        return action

    def precompute(self, state: Any, seat: int | None, secret: bytes | None = None) -> list:
        """Default: nothing to run ahead."""
        return []

    def warnings(self, view: Any, seat: int | None) -> list[str]:
        """Default: no warnings."""
        return []

    # ---------------------------------------------------------------- a seat that leaves (protocol.md §6.1, §9.7)
    def leave_payload(self, state: Any, seat: int, secret: Any = None) -> Any:
        """What a seat's ``leave`` event carries so that nobody ever needs that seat again (its peer
        computes it with its seat secret when it quits; ``state`` may be None before the game's setup).
        Default: nil."""
        return None

    def check_leave(self, state: Any, seat: int, payload: Any) -> Any:
        """The payload of ``seat``'s leave normalised, or ``IllegalAction`` (the leave is then refused,
        never placed).  Called with the state the leave's step opened with.  Default: only nil."""
        if payload is not None:
            raise IllegalAction("this game's leave carries nothing (nil)")
        return None

    def leave(self, state: Any, seat: int, payload: Any) -> Any:
        """The state once ``seat`` left for good (its checked ``payload``): applied by the table when the
        step its leave answered closes, before that step's moves; from then on the seat plays
        ``default_action`` wherever a turn names it and is never waited for.  It must not change what
        the other seats' moves of that step are checked against.  Default: the state unchanged."""
        return state


class RulesGame(Game):
    """A game whose rules are one module's functions: ``configure``, ``setup``, ``turn``, ``check``,
    ``apply``, ``chance``, ``default_action``, ``view(state, seat)``, ``result``, ``describe`` and
    ``INFO``.  Saves every such game the same delegating methods; the game's own subclass
    overrides the hooks it has, like any ``Game`` (a rules module has no seat secrets: ``view``
    ignores ``secret``)."""

    def __init__(self, rules: Any, bots: Mapping[str, Callable[[], Bot]]) -> None:
        self.rules = rules
        self.info: GameInfo = rules.INFO
        self.bots = dict(bots)

    def configure(self, options: Mapping[str, Any], players: int) -> dict:
        return self.rules.configure(options, players)

    def setup(self, config: Mapping[str, Any], players: int, seed: bytes) -> Any:
        return self.rules.setup(config, players, seed)

    def turn(self, state: Any) -> Turn:
        return self.rules.turn(state)

    def check(self, state: Any, seat: int, action: Any) -> Any:
        return self.rules.check(state, seat, action)

    def apply(self, state: Any, seat: int, action: Any) -> Any:
        return self.rules.apply(state, seat, action)

    def chance(self, state: Any, entropy: bytes) -> Any:
        return self.rules.chance(state, entropy)

    def default_action(self, state: Any, seat: int) -> Any:
        return self.rules.default_action(state, seat)

    def standings(self, state: Any) -> dict | None:
        hook = getattr(self.rules, "standings", None)
        return None if hook is None else hook(state)

    def view(self, state: Any, seat: int | None, secret: Any = None) -> Any:
        return self.rules.view(state, seat)

    def result(self, state: Any) -> dict | None:
        return self.rules.result(state)

    def describe(self, state: Any, seat: int, action: Any) -> str:
        return self.rules.describe(state, seat, action)


class FullRulesGame(RulesGame):
    """A ``RulesGame`` whose rules module also has the hooks ``legal_actions(state, seat)``,
    ``problems`` and ``determinize``, and whose ``warnings`` are the pure function of the view
    given here (a game's warnings.py).  A game that is only that declares no class of its own."""

    def __init__(
        self,
        rules: Any,
        bots: Mapping[str, Callable[[], Bot]],
        *,
        warnings: Callable[[Any, int | None], list[str]],
    ) -> None:
        super().__init__(rules, bots)
        self._warnings = warnings

    def legal_actions(self, state: Any, seat: int, secret: Any = None) -> list:
        return self.rules.legal_actions(state, seat)

    def problems(self, state: Any, seat: int, action: Any) -> list[str]:
        return self.rules.problems(state, seat, action)

    def determinize(self, state: Any, seat: int | None, rng: Any) -> Any:
        return self.rules.determinize(state, seat, rng)

    def warnings(self, view: Any, seat: int | None) -> list[str]:
        """What the next step costs a seat if nothing changes (a pure function of the view)."""
        return self._warnings(view, seat)
