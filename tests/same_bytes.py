"""Digests of whole games, to prove a refactoring changed no byte (issue 25: "behaviour and bytes
unchanged, the logs of the demo games identical before and after").

Every game is played from a fixed seed on the deterministic in-memory network (tests/netutil.py
``Sim``: fixed identities, fixed randomness, a seeded delivery order), so the same code gives the
same log bytes on every run; ``easel demo`` cannot serve (its peers make fresh identity keys and
run on real sockets).  Per game:

* ``log``: the log every peer ends with, all seats played by bots (the first listed level);
* ``timeouts``: the same with one seat that never decides and a short time-out, so the table's
  time-outs and the game's default actions are in the log;
* ``views``: every seat's view (with its seat secret, as its peer sees it) and the public view
  after every entry of ``log``'s replay, and each seat's ``legal_actions`` and ``warnings``, in
  one hash;
* ``offline``: ``bots.play_game`` (the rules alone, no table) from a fixed seed: its result.

``python -m tests.same_bytes`` prints the digests as JSON (the fixture tests/same_bytes.json was
made that way on the code before the change); tests/test_same_bytes.py recomputes them.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys

from core import games as registry
from core.encoding import encode
from core.table import Table

from .netutil import Sim

PLAYERS = 3
SEED = 25
# options that keep a whole game short
OPTIONS = {"painting": {"rounds": 2}, "starving-artists": {}, "modern-art": {}}
SILENT = 1


def _h(*parts: bytes) -> str:
    d = hashlib.sha256()
    for p in parts:
        d.update(len(p).to_bytes(8, "big") + p)
    return d.hexdigest()


def _enc(value) -> bytes:
    try:
        return encode(value)
    except Exception:
        return repr(value).encode()


def play(game: str, silent: bool = False) -> Sim:
    level = next(iter(registry.get(game).bots))
    sim = Sim(PLAYERS, seed=SEED, game=game, options=OPTIONS[game], timeout=5.0 if silent else 600.0,
              level=level, tag="same-bytes-" + game + ("-silent" if silent else ""))
    if silent:
        sim.silent.add(SILENT)
    sim.start()
    sim.run_until(max_rounds=400_000, wall=600.0)
    return sim


def views_digest(sim: Sim) -> str:
    entries = sim.peers[0].log_entries
    secrets = {k: sim.peers[k].seat_secret for k in range(PLAYERS)}
    t = Table.start(entries[0], registry)
    game = t.game
    hook = game.warnings
    parts = []
    for raw in entries[1:]:
        t.append(raw)
        parts.append(_enc(t.view(None)))
        for s in range(PLAYERS):
            v = t.view(s, secrets[s])
            parts.append(_enc(v))
            st = t.step
            if st is not None and s in st.seats and t.state is not None and not t.over:
                parts.append(_enc(game.legal_actions(t.state, s, secrets[s])))
            parts.append(_enc(hook(v, s)))
    return _h(*parts)


def offline(game: str) -> str:
    pkg = importlib.import_module("core.games.%s" % game.replace("-", "_"))
    bots = importlib.import_module(pkg.__name__ + ".bots")
    g = registry.get(game)
    level = next(iter(g.bots))
    config = g.configure(OPTIONS[game], PLAYERS)
    out = bots.play_game(config, PLAYERS, bytes(range(32)), [g.bots[level]() for _ in range(PLAYERS)])
    return _h(_enc(out[1] if isinstance(out, tuple) else out))


def digests() -> dict:
    out = {}
    for game in registry.names():
        sim = play(game)
        quiet = play(game, silent=True)
        out[game] = {
            "log": _h(*sim.peers[0].log_entries),
            "entries": len(sim.peers[0].log_entries),
            "timeouts": _h(*quiet.peers[0].log_entries),
            "timeout_entries": len(quiet.peers[0].log_entries),
            "views": views_digest(sim),
            "offline": offline(game),
        }
    return out


if __name__ == "__main__":
    json.dump(digests(), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
