"""Issue 29, item 3, on a real LAN (tests/lan.py: four machines on one bridge): a spectator follows the
table, not one seat. Ann hosts on machine 0, Bo and Cy play from machines 1 and 2, and a spectator on
machine 3 watches through Ann's play address. Ann quits mid-game (her terminal closes: SIGHUP, the path
`q q` takes) or is killed (SIGKILL): the spectator says whom it now watches through, follows the game to
its end and holds a log identical, byte for byte, to Bo's and Cy's. Nothing is left running."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time

import pytest

from cli.tables import PROBE_EVERY, PROBE_MISSES, PROBE_TIMEOUT

from .lan import (  # noqa: F401 (lan, lan_available: fixtures)
    GAME_WALL,
    SLOW,
    Lan,
    assert_same_logs,
    connected_from,
    finish,
    first_log,
    host_port,
    lan,
    read_until,
    lan_available,
    play_port,
    records,
    seated,
    wait_for,
)

ROUNDS = "rounds=2"           # a short game
IN_PLAY = rb"(?m)^\s+1\s+painting\s+in play \(3 seats\)\s+host Ann\s+watch: easel watch "
GONE = rb"table 1 has gone \(painting, host Ann\): its host no longer answers"


PROBE_BOUND = PROBE_MISSES * (PROBE_EVERY + PROBE_TIMEOUT)


def ns_pids(lan: Lan) -> dict:
    """Processes still running in each machine of the LAN (``ip netns pids``)."""
    out = {}
    for ns in lan.hosts:
        r = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True, timeout=10)
        pids = r.stdout.split()
        if pids:
            out[ns] = pids
    return out


@pytest.mark.parametrize("lan", [4], indirect=True)
@pytest.mark.parametrize("how", ["quits", "killed"])
def test_a_spectator_follows_the_table_through_another_seat_when_the_host_goes(lan, how, tmp_path):
    # Ann is timed out of each step she misses once she is gone: a short step time keeps that quick
    timeout = 1
    # killed, Ann's table in play is advertised and listed on machine 3: the listing must say it has gone
    advertise = [] if how == "killed" else ["--no-advertise"]
    host = lan.easel(0, "host", "--game", "painting", "--players", 3, "--auto", "random", "--timeout", timeout,
                     *advertise, "--name", "Ann", "--option", ROUNDS,
                     faults=SLOW % (80 if how == "quits" else 90))      # Ann's frames late: the game cannot end at once
    port = host_port(host)
    people = [lan.easel(k, "bot", "--join", "%s:%d" % (lan.addrs[0], port), "--level", "random", "--name", name)
              for k, name in ((1, "Bo"), (2, "Cy"))]
    everyone = [host] + people
    # once the game is on, Bo and Cy are held (SIGSTOP): Ann alone times nobody out, so the game waits at a
    # known step (nothing races it) until the spectator is in and Ann has gone (held, Bo and Cy may not
    # read her leaving note before her connections close: they time her out, hence the short step time)
    assert wait_for(lambda: seated(lan, 0) and records(first_log(lan, 0)) >= 2, timeout=30), finish(everyone, 1)
    for p in people:
        p.send_signal(signal.SIGSTOP)
    ann_play = play_port(lan, 0)
    seen = tmp_path / "seen.log"
    spectator = lan.easel(3, "watch", "%s:%d" % (lan.addrs[0], ann_play), "--json", "--log", seen, "--patience", 30)
    try:
        # it says whom it watches through once it holds the genesis from that seat
        early = read_until(spectator, rb"easel: watching through Ann\n")
        assert connected_from(lan, 0, ann_play, 3)
        if how == "killed":
            lister = lan.easel(3, "watch", "--wait", 60)
            listed = read_until(lister, IN_PLAY, out=True)
            time.sleep(2 * PROBE_EVERY)         # (not a wait for an event: a few probes reach Ann while she runs)
        host.send_signal(signal.SIGHUP if how == "quits" else signal.SIGKILL)
        (rc, so, se), = finish([host], 30)
        if how == "killed":
            # a killed host says no goodbye: the listing probes its play address and says it has gone within
            # PROBE_MISSES x (PROBE_EVERY + PROBE_TIMEOUT) = 8 s (a refused port: about 2 s)
            t0 = time.monotonic()
            listed = read_until(lister, GONE, timeout=PROBE_BOUND + 10, buf=listed, out=True)
            assert time.monotonic() - t0 < PROBE_BOUND + 10
            lister.terminate()
            finish([lister], 10)
    finally:
        for p in people:
            p.send_signal(signal.SIGCONT)
    if how == "quits":
        assert rc == 1 and "Traceback" not in se, se[-3000:]
        assert json.loads(so.strip().splitlines()[-1])["over"] is False, "the game ended before Ann quit"
    else:
        assert rc == -signal.SIGKILL
        # the listing's probes of Ann's play address before the kill cost her no warning
        assert "(limit HANDSHAKE" not in se and "(limit SPECTATOR" not in se, se[-3000:]
    results = finish(people + [spectator], GAME_WALL)
    for rc, so, se in results[:2]:
        assert rc == 0 and json.loads(so.strip().splitlines()[-1])["over"] is True, se[-3000:]
    rc, so, se = results[2]
    se = early.decode() + se
    assert rc == 0 and "Traceback" not in se, se[-3000:]
    said = re.findall(r"^easel: (.*)$", se, re.M)
    assert "Ann's seat closed; looking for another seat of the table" in said, se[-3000:]
    got = json.loads(so.strip().splitlines()[-1])
    assert got["over"] is True and got["names"][0] == "Ann" and sorted(got["names"][1:]) == ["Bo", "Cy"]
    # the seat after Ann's, the first it knocked at (they join in either order)
    assert [s for s in said if s.startswith("Ann's seat closed; now")] == [
        "Ann's seat closed; now watching through %s" % got["names"][1]], said
    theirs = [first_log(lan, 1), first_log(lan, 2)]
    assert_same_logs(theirs + [seen])
    assert records(seen) == got["entries"] > records(first_log(lan, 0))      # it saw past where Ann went
    assert wait_for(lambda: not ns_pids(lan), timeout=10), ns_pids(lan)
