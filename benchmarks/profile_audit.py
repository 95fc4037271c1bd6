"""Where the audit of one big file spends its CPU, part by part, per entry.  Prints one JSON object.

Every part is timed with time.process_time (CPU of this process: other work on the machine
slows it less than the wall clock) over ``--repeats`` repetitions (default 5), as
{median, min, max, n, raw} microseconds per entry of the 31,001-entry toy log of
bench_audit.py (6 seats, 1,000 rounds), or per signature for the verifies:

  record_parse              core.logfile.parse of the file
  strict_parse              core.events.parse_entry(raw, verify=False) of every entry
  quick_parse               core.events.parse_event_fast of every entry (what the audit uses)
  replay                    core.table.Table.append of every parsed entry (table + the toy rules)
  main_process_share        core.audit.audit_log with a verifier that checks nothing: the main
                            process's whole share of a pooled audit (parse, replay, bookkeeping)
  cross_file_checks         core.audit.combine on that file's summary
  worker_per_entry          core.events.check_entry_signatures (a worker's check of an entry
                            from its bytes: the signed message's hash and the verify)
  raw_verify_libsodium      core.events.verify_many (libsodium crypto_sign_open), per signature
  raw_verify_openssl        OpenSSL's Ed25519 (the ``cryptography`` package), per signature
  ship_decoded_events       pickling a 512-entry chunk's decoded events in a worker, and
                            unpickling them into events here: what moving the decode to the
                            workers would add

and the arithmetic: the least CPU an entry costs (main share + cross-file + worker) and
cores x raw verify / that, the best ratio to one-core verify the pooled audit can reach.

    python benchmarks/profile_audit.py [--repeats 5] [--rounds 1000]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import pickle
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from common import load, log_file, stats  # noqa: E402
from toy import ALL_GAMES, toy_log  # noqa: E402

from core.audit import audit_log, combine, summarize  # noqa: E402
from core.events import (  # noqa: E402
    Event,
    _event_sign_msg_from_raw,
    _new,
    check_entry_signatures,
    parse_entry,
    parse_event_fast,
    parse_genesis,
    verify_many,
)
from core.logfile import parse  # noqa: E402
from core.table import Table  # noqa: E402


class _CheckNothing:
    """A by-entry verifier that checks nothing: audit_log's own work alone."""

    by_entry = True

    def __call__(self, entries, keys, offsets=None):
        return self

    def join(self, limit):
        return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=1000)
    a = ap.parse_args()
    load_before = load()
    data = log_file(toy_log(6, a.rounds))
    ents = parse(data).entries
    n = len(ents)
    keys = parse_genesis(ents[0]).doc["seats"]
    parsed = [parse_event_fast(r) for r in ents[1:]]
    assert all(type(e) is Event for e in parsed)
    sample = min(3000, n - 1)
    jobs = [(e.author, _event_sign_msg_from_raw(e.raw), e.sig) for e in parsed[:sample]]
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    pks = {k: Ed25519PublicKey.from_public_bytes(k) for k, _, _ in jobs}

    def openssl() -> None:
        for k, m, s in jobs:
            pks[k].verify(s, m)

    def replay() -> None:
        t = Table.start(parse_genesis(ents[0]), ALL_GAMES)
        for e in parsed:
            t.append(e)

    summary = [summarize("big.log", data, ALL_GAMES, _CheckNothing())]
    tuples = [(e.game_id, e.author, e.seq, e.prev, e.kind, e.body, e.sig, e.id) for e in parsed]
    chunks = [tuples[i : i + 512] for i in range(0, len(tuples), 512)]
    blobs = [pickle.dumps(c, protocol=5) for c in chunks]

    def unship() -> None:
        for b in blobs:
            for t in pickle.loads(b):
                ev = _new(Event)
                d = ev.__dict__
                d["game_id"], d["author"], d["seq"], d["prev"], d["kind"], d["body"], d["sig"], d["id"] = t

    parts = {
        "record_parse": (lambda: parse(data), n),
        "strict_parse": (lambda: [parse_entry(r, verify=False) for r in ents[1:]], n),
        "quick_parse": (lambda: [parse_event_fast(r) for r in ents[1:]], n),
        "replay": (replay, n),
        "main_process_share": (lambda: audit_log("big.log", data, ALL_GAMES, _CheckNothing()), n),
        "cross_file_checks": (lambda: combine(summary, {"big.log": data}), n),
        "worker_per_entry": (lambda: check_entry_signatures(ents, keys, 1, sample + 1), sample),
        "raw_verify_libsodium": (lambda: verify_many(jobs), sample),
        "raw_verify_openssl": (openssl, sample),
        "ship_decoded_events_pickle": (lambda: [pickle.dumps(c, protocol=5) for c in chunks], n),
        "ship_decoded_events_unpickle": (unship, n),
    }
    runs: dict = {k: [] for k in parts}
    gc.disable()   # as `easel audit` does while it audits
    try:
        for _ in range(a.repeats):
            for k, (fn, per) in parts.items():
                t = time.process_time()
                fn()
                runs[k].append(1e6 * (time.process_time() - t) / per)
    finally:
        gc.enable()
    med = {k: stats(v, 2) for k, v in runs.items()}
    m = {k: v["median"] for k, v in med.items()}
    verify = min(m["raw_verify_libsodium"], m["raw_verify_openssl"])
    least = m["main_process_share"] + m["cross_file_checks"] + m["worker_per_entry"]
    cores = os.cpu_count() or 1
    print(json.dumps({
        "benchmark": "profile_audit",
        "entries": n,
        "repeats": a.repeats,
        "load_before": load_before,
        "load_after": load(),
        "cpu_us_per_entry": med,
        "arithmetic": {
            "raw_verify_us": verify,
            "least_cpu_us_per_entry": round(least, 2),
            "besides_verify_us": round(least - verify, 2),
            "best_ratio_on_2_cores": round(2 * verify / least, 3),
            "best_ratio_on_all_cores": round(cores * verify / least, 3),
            "cores": cores,
            "besides_verify_allowed_for_1.6_on_2_cores_us": round(2 * verify / 1.6 - verify, 2),
        },
    }))


if __name__ == "__main__":
    main()
