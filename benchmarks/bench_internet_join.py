"""Beyond the LAN (issue 30): from ``easel bot --join INVITATION`` in one home to its seat at a table hosted in
another, through ``easel relay``, in network namespaces (two homes behind MASQUERADE routers that drop unsolicited
inbound; tests/test_internet.py builds them).  Needs root, ip netns and iptables.

For each kind of home router -- ``keeps_ports`` (a hole punch can work) and ``random_ports`` (--random-fully on
home B's router: relayed) -- REPS tables of two seats: ``seated_s`` is the time from starting the joiner to the host
printing it seated (process start and imports included: what a person waits), ``direct_s`` the time from then until
home B holds a TCP connection to home A's router (the direct path; null if none within 10 s; both seats delay
every frame a little, as tests/test_lan.py's SLOW, so that the game outlasts the punch).  Prints one JSON line:
medians, min and max.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.test_internet import Homes, _nat_why_not  # noqa: E402
from tests.test_lan import SLOW, wait_for  # noqa: E402

REPS = 5
DIRECT_WAIT = 10.0


def one(random_b: bool) -> tuple[float, float | None]:
    with TemporaryDirectory() as d:
        net = Homes(Path(d), random_b=random_b).up()
        try:
            net.easel("inet", "relay", "relay", "--listen", net.relay_ip, "--port", 4001)
            address = net.line("relay", "relay: ", "out")
            net.easel("hA", "host", "host", "--game", "painting", "--players", 2, "--auto", "random", "--timeout", 60,
                      "--internet", "--relay", address, faults=SLOW % 1)   # every frame a little late: the game outlasts the punch
            invite = net.line("host", "invite: ", "err")
            t0 = time.monotonic()
            net.easel("hB", "b1", "bot", "--join", invite, "--level", "random", "--name", "Cy", faults=SLOW % 2)
            seated = re.compile(r"^easel: seats: .*Cy \(bot", re.M)
            assert wait_for(lambda: seated.search(net.text("host")) is not None, 60, interval=0.01), net.text("b1")
            t1 = time.monotonic()
            got = wait_for(lambda: net.wan["A"] in net.tcp_peers("hB"), DIRECT_WAIT, interval=0.02)
            return t1 - t0, (time.monotonic() - t1) if got else None
        finally:
            net.down()


def summary(xs: list) -> dict:
    got = [x for x in xs if x is not None]
    if not got:
        return {"median": None, "min": None, "max": None, "n": 0}
    return {"median": round(statistics.median(got), 3), "min": round(min(got), 3), "max": round(max(got), 3), "n": len(got)}


def main() -> int:
    why = _nat_why_not()
    if why:
        print(json.dumps({"bench": "internet_join", "skipped": why}))
        return 0
    out = {"bench": "internet_join", "reps": REPS}
    for name, random_b in (("keeps_ports", False), ("random_ports", True)):
        runs = [one(random_b) for _ in range(REPS)]
        out[name] = {"seated_s": summary([r[0] for r in runs]), "direct_s": summary([r[1] for r in runs]),
                     "direct_runs": sum(r[1] is not None for r in runs)}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
