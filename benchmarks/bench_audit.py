"""Offline audit throughput (entries/s) vs raw Ed25519 verification, measured in the same run.

Prints one JSON object.  Goal: ratio >= 0.7.
"""

from __future__ import annotations

import json
import time

from common import log_file, median, simulate

from cli.auditing import audit_files
from core.audit import audit
from core.events import Event, event_sign_msg, parse_entry
from nacl.signing import VerifyKey


def main(repeats: int = 7, games: int = 4) -> None:
    files = {"game%d.log" % s: log_file(simulate(6, seed=s)) for s in range(1, games + 1)}
    # the signatures the audit checks, for the raw-verification baseline
    sigs = []
    entries = 0
    from core.logfile import parse

    for data in files.values():
        for raw in parse(data).entries:
            entries += 1
            ent = parse_entry(raw, verify=False)
            if isinstance(ent, Event):
                sigs.append((VerifyKey(ent.author), event_sign_msg(ent.game_id, ent.author, ent.seq, ent.prev, ent.kind, ent.body), ent.sig))
            elif hasattr(ent, "sigs"):
                for key, sig in zip(ent.doc["seats"], ent.sigs):
                    from core.events import genesis_sign_msg

                    sigs.append((VerifyKey(key), genesis_sign_msg(ent.game_id), sig))
    audit_rates, seq_rates, verify_rates = [], [], []
    for _ in range(repeats):
        t = time.perf_counter()
        for name, data in files.items():
            rep = audit({name: data})
            assert rep["valid"] and rep["complete"], rep["problems"]
        seq_rates.append(entries / (time.perf_counter() - t))
        t = time.perf_counter()
        for name, data in files.items():
            rep = audit_files({name: data})
            assert rep["valid"] and rep["complete"], rep["problems"]
        audit_rates.append(entries / (time.perf_counter() - t))
        t = time.perf_counter()
        for vk, msg, sig in sigs:
            vk.verify(msg, sig)
        # same count of verifications as entries: one signature per entry (genesis: one per seat)
        verify_rates.append(len(sigs) / (time.perf_counter() - t))
    a, q, v = median(audit_rates), median(seq_rates), median(verify_rates)
    print(json.dumps({
        "benchmark": "audit_throughput",
        "entries": entries,
        "signatures": len(sigs),
        "audit_entries_per_s": round(a),
        "audit_entries_per_s_single_thread": round(q),
        "ed25519_verify_per_s": round(v),
        "ratio": round(a / v, 3),
        "ratio_single_thread": round(q / v, 3),
        "ratio_definition": "entries audited per second (easel audit: signatures checked on a thread pool while the replay runs) over single-thread Ed25519 verifications per second, same run, medians of %d" % repeats,
        "goal": ">= 0.7",
    }))


if __name__ == "__main__":
    main()
