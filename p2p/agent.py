"""Our seat's agent, as a sans-IO part of ``Peer``: our secrets, and what our events say.

* **Seat secrets** (a game with ``info.secrets``, core/engine.py): the agent makes 64 random
  bytes (``rand(64)``) once, before anything that depends on them is sent, and keeps them in the
  secrets file under the reserved phase ``SEAT_SECRET`` (-1) with an empty salt (``WriteSecret``),
  so a restarted peer resumes with the same secret (and hand).
* **Sealed moves** (protocol.md §6.2): a commit keeps the value and a fresh salt (``WriteSecret``
  first) and signs their commitment; the reveal step opens it.
* **Automatic steps** (purpose ``auto``): answered with the game's ``auto_action``; a decided
  action goes through ``game.seal_action`` before it is checked (``decided``).
* **Our events**: signed with our key (``event``).

*When* our seat signs is ``Peer``'s business (the step, the show gate, the resync gate); the
randomness is injected (``rand(n) -> bytes``), as is the signing function.
"""

from __future__ import annotations

from typing import Any, Callable

from core.events import Event, commitment, make_event

from .effects import Alert, WriteSecret

SEAT_SECRET = -1              # the secrets-file key of our seat secret (phases are >= 0)
SEAT_SECRET_BYTES = 64


class SeatAgent:
    """The secrets of one seat and the bodies of its events."""

    def __init__(self, game_id: bytes, me: bytes, seat: int | None, sign: Callable[[bytes], bytes],
                 rand: Callable[[int], bytes], secrets: dict | None = None) -> None:
        self.game_id = game_id
        self.me = me
        self.seat = seat
        self.sign = sign
        self.rand = rand
        self.secrets: dict[int, tuple] = dict(secrets or {})   # phase -> (value, salt); SEAT_SECRET: ours

    @property
    def seat_secret(self) -> bytes | None:
        """Our seat secret (None before it is made, or for a game without seat secrets)."""
        sec = self.secrets.get(SEAT_SECRET)
        if sec is None or not isinstance(sec[0], bytes) or len(sec[0]) != SEAT_SECRET_BYTES:
            return None
        return sec[0]

    def table_secret(self) -> tuple | None:
        """(our seat, our seat secret) for a table's views, once we have both (else None)."""
        secret = self.seat_secret
        return (self.seat, secret) if secret is not None and self.seat is not None else None

    def uses_secrets(self, table) -> bool:
        """Does our seat make and keep a seat secret (the game's ``info.secrets``): nothing else in the
        peer depends on it, every game is called the same way (core/engine.py, "One calling convention")."""
        return self.seat is not None and table.game.info.secrets

    def ensure_secret(self, table) -> list:
        """Make our seat secret if the game needs one and we have none yet (the table learns it): the
        WriteSecret comes first, so the secret is on disk before anything derived from it is sent."""
        if not self.uses_secrets(table) or self.seat_secret is not None:
            return []
        value = self.rand(SEAT_SECRET_BYTES)
        if not isinstance(value, bytes) or len(value) != SEAT_SECRET_BYTES:
            raise ValueError("rand(%d) must give %d bytes" % (SEAT_SECRET_BYTES, SEAT_SECRET_BYTES))
        self.secrets[SEAT_SECRET] = (value, b"")
        table.secrets[self.seat] = value
        return [WriteSecret(SEAT_SECRET, value, b"")]

    def decided(self, table, st, action: Any) -> tuple[list, tuple]:
        """Our decided move for the current step ``st``, sealed and checked as a peer's would be (raises
        IllegalAction): (effects first, (kind, body) to sign: its commit, or the move)."""
        out = self.ensure_secret(table)
        game, state = table.game, table.state
        action = game.check(state, self.seat, game.seal_action(state, self.seat, action, self.seat_secret))
        if st.kind == "commit":
            first, body = self.commit(st, action)
            return out + first, ("commit", body)
        return out, ("act", {"phase": st.phase, "action": action})

    def commit(self, st, value: Any) -> tuple[list, dict]:
        """(effects first, the commit's body) sealing ``value`` in commit step ``st``."""
        salt = self.rand(32)
        h = commitment(self.game_id, self.me, st.phase, value, salt)
        self.secrets[st.phase] = (value, salt)
        return [WriteSecret(st.phase, value, salt)], {"phase": st.phase, "hash": h}

    def automatic(self, table, st) -> tuple[list, tuple | None]:
        """Our event for a step that needs no decision (a seed commit, a reveal, an automatic step)
        ``st``: (effects first, (kind, body) to sign, or None when we cannot: an alert among the
        effects says why, or the step needs a decision of ours)."""
        if st.kind == "commit" and st.purpose == "seed":
            first, body = self.commit(st, self.rand(32))      # our share of the shared seed
            return first, ("commit", body)
        if st.kind == "reveal":
            sec = self.secrets.get(st.phase - 1)
            if sec is None:
                return [Alert("no secret for phase %d: cannot reveal (we will be timed out)" % (st.phase - 1))], None
            value, salt = sec
            return [], ("reveal", {"phase": st.phase, "value": value, "salt": salt})
        if st.kind == "act" and st.purpose == "auto":
            out = self.ensure_secret(table)
            secret = self.seat_secret
            if secret is None:
                return out + [Alert("no seat secret: cannot take part in an automatic step (we will be timed out)")], None
            game, state = table.game, table.state
            try:
                action = game.check(state, self.seat, game.auto_action(state, self.seat, secret))
            except ValueError as exc:   # IllegalAction, or the deal refusing bad state bytes
                # e.g. our secret does not match the key we published (a lost secrets file)
                return out + [Alert("our automatic move for phase %d is refused by the rules: %s (we will be timed out)"
                                    % (st.phase, exc))], None
            return out, ("act", {"phase": st.phase, "action": action})
        return [], None

    def event(self, st, kind: str, body: dict, seq: int) -> Event:
        """Our event ``seq`` of ``kind`` for step ``st``, signed."""
        return make_event(self.sign, self.game_id, self.me, seq, st.prev, kind, body)
