"""Issue 29 on a real LAN (tests/lan.py: a machine per seat on one bridge): a Modern Art seat that leaves in
round 2 by its terminal closing (SIGHUP, the path a person's `q q` takes: cli/hangup.py) leaves for good
(protocol.md §6.1 "A leave", §9.7): the others (2 or 4) finish the game, ranked, with identical valid complete
logs whose audit lists the leave (``left``) and ranks the leaver after the seats that stayed
(core/games/modern_art/RULES.md decision 28); a host's bot left alone leaves after BOT_ALONE. Nothing is
left running."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from .lan import (  # noqa: F401 (lan, lan_available: fixtures)
    GAME_WALL,
    ROOT,
    assert_all_finished,
    assert_same_logs,
    finish,
    first_log,
    host_port,
    lan,
    lan_available,
    paced,
    wait_for,
)
from .netutil import LogFollower
from .test_lan_watch import ns_pids

TABLE = 30        # s: the table's step time; no step may time out here (a leave is never waited for)


def round_two(t) -> bool:
    """Round 2 (or later) is in play on this table."""
    return getattr(t.state, "stage", None) == "play" and t.state.ms.round >= 2


@pytest.mark.parametrize("lan, players", [(3, 3), (5, 5)], indirect=["lan"])
def test_a_modern_art_seat_whose_terminal_closes_in_round_2_leaves_and_the_others_finish_ranked(lan, players):
    # Ann hosts on machine 0 (a headless --auto seat: SIGHUP there is a person's q q), Bo and Cy join from 1, 2
    # (at 5 seats Di and Ed too, from machines 3 and 4)
    host = lan.easel(0, "host", "--game", "modern-art", "--players", players, "--auto", "random", "--timeout", TABLE,
                     "--no-advertise", "--name", "Ann")
    port = host_port(host)
    bots = [lan.easel(k, "bot", "--join", "%s:%d" % (lan.addrs[0], port), "--level", "random", "--name", name)
            for k, name in ((1, "Bo"), (2, "Cy"), (3, "Di"), (4, "Ed"))[:players - 1]]
    everyone = [host] + bots
    # Ann's terminal closes once her log shows round 2 in play (an event in the log, not a guess of time): Bo
    # paces the game (stopped while we read the log, so it cannot run past round 2 while we look)
    ann = LogFollower(lan.homes[0])
    seen = {}
    t = paced(bots[0], ann, round_two, ended=lambda: host.poll() is not None)
    assert t is not None, finish(everyone, 1)
    seen["at"] = ann.n
    host.send_signal(signal.SIGHUP)
    (rc, so, se), = finish([host], 30)
    bots[0].send_signal(signal.SIGCONT)
    assert rc is not None and rc != 0 and "Traceback" not in se, se[-3000:]
    assert json.loads(so.strip().splitlines()[-1])["over"] is False, "the game ended before Ann left"
    results = finish(bots, GAME_WALL)
    assert_all_finished(results, players - 1)
    # the others' logs (their screens are their stderr) name who left, and accuse no one
    for _, _, err in results:
        assert "Ann left the table: their turns pass at once" in err, err[-2000:]
        assert "although" not in err
    logs = [first_log(lan, k) for k in range(1, players)]
    assert_same_logs(logs)
    r = subprocess.run([sys.executable, "-m", "cli", "audit", "--json", *map(str, logs)], cwd=ROOT, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    rep = json.loads(r.stdout)
    ann_seat = rep["names"].index("Ann")
    assert rep["valid"] and rep["complete"], rep["problems"]
    # her leave is in the log once, at or after where she left, and she was never voted out
    assert [d["seat"] for d in rep["left"]] == [ann_seat] and rep["left"][0]["index"] >= seen["at"], rep["left"]
    assert not any(ann_seat in c.get("seats", ()) for c in rep["certificates"] if isinstance(c, dict)), rep["certificates"]
    res = rep["results"]
    assert res["status"] == "complete" and res["rounds"] == 4, res
    assert res["left"] == [ann_seat] and res["ranking"][-1] == ann_seat and sorted(res["ranking"]) == list(range(players)), res
    assert wait_for(lambda: not ns_pids(lan), timeout=10), ns_pids(lan)


ALONE = 3         # s: BOT_ALONE for this test (EASEL_BOT_ALONE, a test knob the host's bots inherit)


def test_a_hosts_bot_left_alone_on_the_lan_leaves_after_bot_alone_with_a_valid_unfinished_log(lan):
    """Ann hosts Modern Art on machine 0 with a bot of hers, Bo plays from machine 1. In round 2 Ann's terminal
    closes (her bot plays on: Bo is still at the table) and then Bo's machine loses him (SIGKILL: no word).
    Her bot, on machine 0, has nobody but bots left: after BOT_ALONE it leaves by itself, says why, and
    leaves a valid, unfinished log; nothing of the table is left running on any machine."""
    from .test_leaving import _running

    host = lan.easel(0, "host", "--game", "modern-art", "--players", 3, "--bots", 1, "--auto", "random", "--timeout", TABLE,
                     "--no-advertise", "--name", "Ann", env={"EASEL_BOT_ALONE": str(ALONE)})
    port = host_port(host)
    bo = lan.easel(1, "bot", "--join", "%s:%d" % (lan.addrs[0], port), "--level", "random", "--name", "Bo")
    ann = LogFollower(lan.homes[0])
    # round 2 in play, Bo pacing the game (stopped while we read Ann's log; still connected, so still at the table)
    assert paced(bo, ann, round_two, ended=lambda: host.poll() is not None) is not None, finish([host, bo], 1)
    gdir = first_log(lan, 0).parent
    (bot,) = json.loads((gdir / "local-bots.json").read_text())["bots"]
    host.send_signal(signal.SIGHUP)
    (rc, so, se), = finish([host], 30)
    assert rc is not None and rc != 0 and "Traceback" not in se, se[-3000:]
    assert json.loads(so.strip().splitlines()[-1])["over"] is False, "the game ended before Ann left"
    assert "leaving 1 bot(s) playing on at the table" in se, se[-3000:]
    assert _running(bot["pid"], bot["started"]), "Ann's bot left with her although Bo was at the table"
    bo.kill()
    finish([bo], 10)
    gone_at = time.monotonic()
    assert wait_for(lambda: not _running(bot["pid"], bot["started"]), timeout=ALONE + 30), "the bot stayed alone at the table"
    took = time.monotonic() - gone_at
    assert took >= ALONE - 1, "it left before BOT_ALONE: %.1f s" % took
    text = next(gdir.glob("bot-seat-*.log")).read_text()
    assert "nobody but bots has been connected to this seat for %d s (Ann, Bo gone): leaving the table" % ALONE in text, \
        text[-3000:]
    assert "Traceback" not in text
    (bot_log,) = (lan.homes[0] / "bots" / "bot-1" / "games").glob("*/log")
    r = subprocess.run([sys.executable, "-m", "cli", "audit", str(bot_log)], cwd=ROOT, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 1 and r.stdout.startswith("VALID") and "the game is not finished" in r.stdout, r.stdout
    assert wait_for(lambda: not ns_pids(lan), timeout=10), ns_pids(lan)
