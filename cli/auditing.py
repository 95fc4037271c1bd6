"""``easel audit``: the pure audit of core.audit, with signatures checked on
every core while the replay runs (libsodium releases the GIL)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

from core.audit import audit, signature_jobs

CHUNK = 256


def _verify_chunk(chunk):
    bad = []
    for name, index, key, msg, sig in chunk:
        try:
            VerifyKey(key).verify(msg, sig)
        except (BadSignatureError, ValueError, TypeError):
            bad.append((name, index))
        except Exception:
            bad.append((name, index))
    return bad


def audit_files(files: dict[str, bytes], threads: int | None = None) -> dict:
    threads = threads or min(4, os.cpu_count() or 1)
    jobs = [(name, *job) for name, data in files.items() for job in signature_jobs(data)]
    with ThreadPoolExecutor(max_workers=threads) as pool:
        futures = [pool.submit(_verify_chunk, jobs[i : i + CHUNK]) for i in range(0, len(jobs), CHUNK)]

        def failures():
            out: dict = {}
            for f in futures:
                for name, index in f.result():
                    out.setdefault(name, []).append(index)
            return out

        return audit(files, sig_failures=failures)
