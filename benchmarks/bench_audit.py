"""Offline audit throughput (log entries per second) and its ratio to raw Ed25519
verification (libsodium via PyNaCl, one thread) measured in the same run.

The corpus is GAMES complete 6-seat Painting Game logs made by in-memory peers.
Two audit figures: `easel audit` on the whole corpus (files replayed in parallel
worker processes, one per core) and core.audit one file after the other on one
core.  Prints one JSON object.  Goal: ratio >= 0.7.
"""

from __future__ import annotations

import json
import os
import time

from common import log_file, median, simulate

from cli.auditing import audit_files
from core import games as registry
from core.audit import audit
from core.events import Event, Genesis, event_sign_msg, genesis_sign_msg, parse_entry
from core.logfile import parse
from nacl.signing import VerifyKey

GAMES = 16


def main(repeats: int = 5) -> None:
    files = {"game%02d.log" % s: log_file(simulate(6, seed=s)) for s in range(1, GAMES + 1)}
    sigs = []
    entries = 0
    for data in files.values():
        for raw in parse(data).entries:
            entries += 1
            ent = parse_entry(raw, verify=False)
            if isinstance(ent, Event):
                sigs.append((VerifyKey(ent.author), event_sign_msg(ent.game_id, ent.author, ent.seq, ent.prev, ent.kind, ent.body), ent.sig))
            elif isinstance(ent, Genesis):
                for key, sig in zip(ent.doc["seats"], ent.sigs):
                    sigs.append((VerifyKey(key), genesis_sign_msg(ent.game_id), sig))
    par, seq, ver = [], [], []
    for _ in range(repeats):
        t = time.perf_counter()
        rep = audit_files(files)
        par.append(entries / (time.perf_counter() - t))
        assert rep["valid"] and rep["complete"], rep["problems"]
        t = time.perf_counter()
        for name, data in files.items():
            rep = audit({name: data}, registry)
            assert rep["valid"] and rep["complete"], rep["problems"]
        seq.append(entries / (time.perf_counter() - t))
        t = time.perf_counter()
        for vk, msg, sig in sigs:
            vk.verify(msg, sig)
        ver.append(len(sigs) / (time.perf_counter() - t))
    p, q, v = median(par), median(seq), median(ver)
    print(json.dumps({
        "benchmark": "audit_throughput",
        "logs": GAMES,
        "entries": entries,
        "signatures": len(sigs),
        "cores": os.cpu_count(),
        "easel_audit_entries_per_s": round(p),
        "one_core_entries_per_s": round(q),
        "ed25519_verify_per_s": round(v),
        "ratio": round(p / v, 3),
        "ratio_one_core": round(q / v, 3),
        "definition": "entries audited per second / single-thread Ed25519 verifications per second, medians of %d in one run" % repeats,
        "goal": "ratio >= 0.7",
    }))


if __name__ == "__main__":
    main()
