"""A real LAN: every peer in its own network namespace, all on one bridge (itself in a namespace;
``Lan`` and the helpers are in tests/lan.py).

What is tested here and nowhere else: multicast discovery between machines (``easel join`` lists a
table hosted on another one), a whole game between processes that only share the bridge, a real
partition (the host's link down mid-game, then up again) and a peer whose address changes between
two runs (``easel resume`` after its machine got a new address).
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.logfile import parse as parse_log

from .lan import (  # noqa: F401 (lan, lan_available: fixtures)
    FULL,
    GAME_WALL,
    ROOT,
    BRISK,
    SLOW,
    Lan,
    alive,
    assert_all_finished,
    assert_same_logs,
    connected_from,
    established,
    finish,
    first_log,
    host_port,
    lan,
    lan_available,
    play_port,
    read_until,
    records,
    seat_of,
    seated,
    wait_for,
)


# --------------------------------------------------------------------------- the tests
@pytest.mark.parametrize("lan", [4], indirect=True)
def test_discovery_and_a_whole_game_across_four_machines(lan):
    host = lan.easel(0, "host", "--game", "painting", "--players", 4, "--auto", "random", "--timeout", 60, "--name", "Ann")
    port = host_port(host)
    # machine 1 browses the LAN: multicast crosses the bridge, the table is listed, numbered, with the
    # host's name (not its key) and address
    line = None
    for _ in range(3):
        r = lan.easel(1, "join", "--wait", 3)
        so, se = r.communicate(timeout=30)
        text = so.decode()
        m = re.search(r"^\s+1\s+painting\s+3/4 free\s+host (\S+)\s+at (\S+):(\d+)$", text, re.M)
        if m:
            line = m
            break
    assert line is not None, "easel join did not list the table: %r %r" % (text, se.decode()[-2000:])
    assert line.group(1) == "Ann" and line.group(2) == lan.addrs[0] and int(line.group(3)) == port
    assert "easel join --pick N joins table N" in text
    target = "%s:%s" % (line.group(2), line.group(3))
    bots = [lan.easel(k, "bot", "--join", target, "--level", "random") for k in (1, 2, 3)]
    results = finish([host] + bots)
    assert_all_finished(results, 4)
    logs = [first_log(lan, k) for k in range(4)]
    assert all(logs)
    assert_same_logs(logs, 1 + 4 * 14)


def start_three(lan: Lan, faults_seed: int, faults: str = SLOW) -> tuple[subprocess.Popen, list[subprocess.Popen]]:
    """Three machines, a painting game of three bots, every frame late (``faults``, SLOW: "mid-game" exists)."""
    host = lan.easel(0, "host", "--game", "painting", "--players", 3, "--auto", "random", "--timeout", 60, "--no-advertise",
                     faults=faults % faults_seed)
    port = host_port(host)
    bots = []
    for k in (1, 2):
        bots.append(lan.easel(k, "bot", "--join", "%s:%d" % (lan.addrs[0], port), "--level", "random", "--name", "m%d" % k,
                              faults=faults % (faults_seed + k)))
    return host, bots


def test_host_link_down_mid_game_then_up_the_game_finishes(lan):
    host, bots = start_three(lan, 10)
    assert wait_for(lambda: records(first_log(lan, 0)) >= 6, timeout=30), finish([host] + bots, 1)
    lan.link(0, "down")              # a real partition: the host's cable is out
    at_down = records(first_log(lan, 0))
    time.sleep(3.0)
    during = records(first_log(lan, 0))
    lan.link(0, "up")
    assert at_down < FULL and during < FULL, "the game ended before the partition"
    # cut off, the host cannot place the others' moves: its log (almost) stops -- it is a real partition
    assert during <= at_down + 2, (at_down, during)
    results = finish([host] + bots)
    assert_all_finished(results, 3)
    # nobody was timed out: every seat made every move, across the partition
    assert_same_logs([first_log(lan, k) for k in range(3)], FULL)


def test_a_peer_whose_address_changed_resumes_and_the_game_finishes(lan):
    host, bots = start_three(lan, 20)
    def seated(j: int) -> bool:   # the log is made before the roster beside it: wait for both
        log = first_log(lan, j)
        return bool(log) and (log.parent / "roster").exists()

    assert wait_for(lambda: seated(1) and seated(2), timeout=30), finish([host] + bots, 1)
    # the machine holding the last seat is the one that moves (it dials every other seat itself)
    k = max((1, 2), key=lambda j: seat_of(lan, j))
    victim = bots[k - 1]
    assert wait_for(lambda: records(first_log(lan, k)) >= 6, timeout=30), finish([host] + bots, 1)
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=10)
    killed_at = records(first_log(lan, k))
    assert killed_at < FULL
    old = lan.addrs[k]
    lan.set_addr(k, lan.addr(k, host=100 + k))     # its machine came back with another address
    assert lan.addrs[k] != old
    resumed = lan.easel(k, "resume", first_log(lan, k).parent, "--level", "random")
    others = [b for b in bots if b is not victim]
    results = finish([host] + others + [resumed])
    assert_all_finished(results, 3)
    assert_same_logs([first_log(lan, j) for j in range(3)], FULL)


def test_three_by_name_the_host_quits_mid_game_and_resumes_from_another_address(lan):
    """Ann hosts, Bo and Cy join, each by name; Ann's machine dies mid-game and comes back with another
    address. Nobody types an address: the resumed host dials the others back (protocol.md §9.4), they
    keep its new address, and the game finishes with every name signed into one valid log."""
    host = lan.easel(0, "host", "--game", "painting", "--players", 3, "--auto", "random", "--timeout", 60, "--no-advertise",
                     "--name", "Ann", faults=SLOW % 30)
    port = host_port(host)
    bots = [lan.easel(k, "bot", "--join", "%s:%d" % (lan.addrs[0], port), "--level", "random", "--name", name,
                      faults=SLOW % (30 + k)) for k, name in ((1, "Bo"), (2, "Cy"))]
    assert wait_for(lambda: records(first_log(lan, 0)) >= 6, timeout=30), finish([host] + bots, 1)
    host.send_signal(signal.SIGKILL)
    host.wait(timeout=10)
    assert records(first_log(lan, 0)) < FULL
    old = lan.addrs[0]
    lan.set_addr(0, lan.addr(0, host=100))
    assert lan.addrs[0] != old
    resumed = lan.easel(0, "resume", first_log(lan, 0).parent, "--level", "random")
    results = finish([resumed] + bots)
    assert_all_finished(results, 3)
    logs = [first_log(lan, k) for k in range(3)]
    assert_same_logs(logs, FULL)
    from core.events import parse_genesis
    from p2p.node import load_roster

    genesis = parse_genesis(parse_log(logs[0].read_bytes()).entries[0])
    assert genesis.doc["names"][0] == "Ann" and sorted(genesis.doc["names"][1:]) == ["Bo", "Cy"]
    r = subprocess.run([sys.executable, "-m", "cli", "audit", "--json", str(logs[1])], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert json.loads(r.stdout)["names"] == genesis.doc["names"]
    # the others learnt the host's new address: their own resume would dial it there
    for k in (1, 2):
        _, roster = load_roster(logs[k].parent)
        assert roster["addrs"][0][0] == lan.addrs[0], roster["addrs"]


def _show(path: Path, *args) -> dict:
    r = subprocess.run([sys.executable, "-m", "cli", "show", str(path), *map(str, args)], cwd=ROOT, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("lan", [4], indirect=True)
def test_a_spectator_joins_a_modern_art_table_mid_game_and_sees_exactly_the_public_view(lan):
    """Machine 3 holds no seat: it watches through seat 1's play address from the middle of the game on.
    It gets the signed log (verified entry by entry), its view is the public one `easel show` gives (no
    `--as`), never a seat's hand, and the seats count it."""
    faults = "reorder=1,delay=0.05,seed=%d"
    host = lan.easel(0, "host", "--game", "modern-art", "--players", 3, "--auto", "random", "--timeout", 60, "--no-advertise",
                     "--name", "Ann", faults=faults % 40)
    port = host_port(host)
    bots = [lan.easel(k, "bot", "--join", "%s:%d" % (lan.addrs[0], port), "--level", "random", "--name", name,
                      faults=faults % (40 + k)) for k, name in ((1, "Bo"), (2, "Cy"))]
    assert wait_for(lambda: records(first_log(lan, 1)) >= 30 and (first_log(lan, 1).parent / "roster").exists(), timeout=40), \
        finish([host] + bots, 1)
    from p2p.node import load_roster

    genesis, roster = load_roster(first_log(lan, 1).parent)
    me = seat_of(lan, 1)
    addr = "%s:%d" % (lan.addrs[1], roster["addrs"][me][1])
    out = lan.homes[3] / "watched.log"
    spectator = lan.easel(3, "watch", addr, "--json", "--log", out)
    results = finish([host] + bots + [spectator])
    assert_all_finished(results[:3], 3)
    rc, so, se = results[3]
    assert rc == 0 and "Traceback" not in se, se[-2000:]
    seen = json.loads(so.strip().splitlines()[-1])
    logs = [first_log(lan, k) for k in range(3)]
    assert_same_logs(logs + [out])                   # the spectator's verified log is the table's, byte for byte
    assert seen["over"] is True and seen["entries"] == records(logs[0])
    assert 1 < seen["first"] < seen["entries"], "the spectator came in mid-game"
    assert seen["names"] == genesis.doc["names"]
    assert seen["watching"] >= 1                      # the seat it watched through counted it
    # exactly the public view, when it came in and at the end
    at = seen["first"] - 1
    assert seen["first_view"] == _show(out, "--at", at)["view"] == _show(logs[0], "--at", at)["view"]
    assert seen["view"] == _show(logs[0])["view"]
    # and never a hand: what a seat's own view holds beyond the public one (its cards) the spectator never got
    for s in range(3):
        own = _show(logs[s], "--at", at, "--as", seat_of(lan, s))["view"]
        private = set(own) - set(seen["first_view"])
        assert private, "a seat's view shows it something the public view does not (its hand)"
        assert not private & set(seen["view"])


def test_a_rematch_gives_a_second_valid_log_linked_to_the_first(lan):
    """After a game over, each machine runs `easel again` on its finished game: the old host opens the
    rematch where its old game was, the others find it there, and a second game with the same seats in the
    same order, the same names and options is played; its genesis names the first game."""
    host, bots = start_three(lan, 50, BRISK)        # nothing happens mid-game: it only has to end
    assert_all_finished(finish([host] + bots), 3)
    first = [first_log(lan, k) for k in range(3)]
    assert_same_logs(first, FULL)
    from core.events import parse_genesis

    g1 = parse_genesis(parse_log(first[0].read_bytes()).entries[0])
    # the joiners may ask before the old host is listening: they keep knocking (nobody types an address)
    again = [lan.easel(k, "again", first[k].parent, "--level", "random") for k in (1, 2, 0)]
    assert_all_finished(finish(again), 3)
    second = []
    for k in range(3):
        logs = [p for p in lan.logs(k) if p != first[k]]
        assert len(logs) == 1, lan.logs(k)
        second.append(logs[0])
    assert_same_logs(second, FULL)
    g2 = parse_genesis(parse_log(second[0].read_bytes()).entries[0])
    assert g2.doc["previous"] == g1.game_id != g2.game_id
    assert g2.doc["seats"] == g1.doc["seats"] and g2.doc["names"] == g1.doc["names"]
    assert g2.doc["config"] == g1.doc["config"] and g2.doc["game"] == g1.doc["game"]
    assert_same_logs(first)                       # the first game's logs are untouched


IN_PLAY = r"^\s+1\s+painting\s+in play \(3 seats\)\s+host Ann\s+watch: easel watch (\S+):(\d+)$"
HELD_TIMEOUT = 300            # s: no seat is timed out while the test holds one (SIGSTOP)


def start_held(lan: Lan, faults_seed: int) -> tuple[subprocess.Popen, list[subprocess.Popen]]:
    """Ann hosts on machine 0 (advertised), Bo and Cy join from machines 1 and 2; once the game is on, Cy is
    held (SIGSTOP): the table waits for Cy at a known step, so the game cannot end while it is held (what keeps
    it in the middle is the hold, not the late frames: BRISK, the rest plays out in a few seconds)."""
    host = lan.easel(0, "host", "--game", "painting", "--players", 3, "--auto", "random", "--timeout", HELD_TIMEOUT,
                     "--name", "Ann", faults=BRISK % faults_seed)
    port = host_port(host)
    bots = [lan.easel(k, "bot", "--join", "%s:%d" % (lan.addrs[0], port), "--level", "random", "--name", name,
                      faults=BRISK % (faults_seed + k)) for k, name in ((1, "Bo"), (2, "Cy"))]
    assert wait_for(lambda: records(first_log(lan, 0)) >= 2 and records(first_log(lan, 2)) >= 2, timeout=30), \
        finish([host] + bots, 1)
    bots[1].send_signal(signal.SIGSTOP)
    return host, bots


def listed_in_play(lan: Lan, k: int, attempts: int = 5):
    """`easel watch` on machine k (bounded attempts: the table is held, so nothing ends meanwhile): the match."""
    text = ""
    for _ in range(attempts):
        so, se = lan.easel(k, "watch", "--wait", 3).communicate(timeout=60)
        text = so.decode() + se.decode()[-2000:]
        m = re.search(IN_PLAY, so.decode(), re.M)
        if m:
            return m, text
    return None, text






@pytest.mark.parametrize("lan", [4], indirect=True)
def test_a_table_in_play_is_listed_and_watched_from_another_machine(lan):
    """Once sealed, the host advertises its table as in play at its play port: `easel watch` on another
    machine lists it (numbered, the host by name) with the command to watch it, and watching it that way
    follows the game to its end. The game is held at a known step (Cy stopped) while it is listed and
    the spectator comes in: nothing here races the game."""
    host, (bo, cy) = start_held(lan, 60)
    line, text = listed_in_play(lan, 3)
    assert line is not None, text
    assert line.group(1) == lan.addrs[0] and int(line.group(2)) == play_port(lan, 0)
    spectator = lan.easel(3, "watch", "%s:%s" % (line.group(1), line.group(2)), "--json")
    assert wait_for(lambda: connected_from(lan, 0, int(line.group(2)), 3), timeout=30)
    cy.send_signal(signal.SIGCONT)
    results = finish([host, bo, cy, spectator])
    assert_all_finished(results[:3], 3)
    rc, so, se = results[3]
    assert rc == 0, se[-2000:]
    seen = json.loads(so.strip().splitlines()[-1])
    assert seen["over"] and seen["entries"] == FULL and seen["names"][0] == "Ann"


@pytest.mark.parametrize("lan", [4], indirect=True)
def test_a_host_killed_and_resumed_advertises_its_table_again_and_is_watched_by_number(lan):
    """Issue 23: before a kill -9 the table in play is listed on another machine; while its host is dead it is
    not; once the host resumed (`easel resume`) it is listed again, and `easel watch --pick 1` on that
    machine follows it to its end. The game is held (Cy stopped) until the spectator is in."""
    host, (bo, cy) = start_held(lan, 70)
    line, text = listed_in_play(lan, 3)
    assert line is not None, text
    port = int(line.group(2))
    host.send_signal(signal.SIGKILL)
    host.wait(timeout=10)
    so, se = lan.easel(3, "watch", "--wait", 3).communicate(timeout=60)
    assert not re.search(IN_PLAY, so.decode(), re.M), so.decode()        # a dead host says nothing
    assert "no tables in play found" in so.decode()
    resumed = lan.easel(0, "resume", first_log(lan, 0).parent, "--level", "random")
    spectator = lan.easel(3, "watch", "--pick", 1, "--json", "--wait", 60)
    assert wait_for(lambda: connected_from(lan, 0, port, 3) or spectator.poll() is not None, timeout=90)
    assert spectator.poll() is None, finish([spectator], 1)
    cy.send_signal(signal.SIGCONT)
    results = finish([resumed, bo, cy, spectator])
    assert_all_finished(results[:3], 3)
    assert_same_logs([first_log(lan, k) for k in range(3)], FULL)
    rc, so, se = results[3]
    assert rc == 0, se[-2000:]
    out = so.strip().splitlines()
    assert re.search(IN_PLAY, so, re.M) and int(re.search(IN_PLAY, so, re.M).group(2)) == port, so
    assert "easel: watching table 1: painting, host Ann, at %s:%d" % (lan.addrs[0], port) in out
    seen = json.loads(out[-1])
    assert seen["over"] and seen["entries"] == FULL and seen["names"][0] == "Ann"


def test_a_rematch_of_the_seats_that_want_to_play_one_says_no_and_a_bot_comes_back_by_itself(lan):
    """Issue 19 on three machines: Ann hosts; Bo is a bot started on machine 1 with `easel bot --again`,
    Cy one on machine 2 without it. At game over Cy says no (`easel again --decline`), Ann runs `easel
    again`, and Bo comes back by itself: the rematch is Ann and Bo in their old order, renumbered, a second
    log both machines hold byte for byte (valid), whose genesis names the first game; Cy is in no rematch."""
    from core.events import parse_genesis
    from core.table import replay
    from core import games as registry

    host = lan.easel(0, "host", "--game", "painting", "--players", 3, "--auto", "random", "--timeout", 60, "--no-advertise",
                     "--name", "Ann", "--option", "rounds=2")
    port = host_port(host)
    target = "%s:%d" % (lan.addrs[0], port)
    bo = lan.easel(1, "bot", "--join", target, "--level", "random", "--name", "Bo", "--again")
    cy = lan.easel(2, "bot", "--join", target, "--level", "random", "--name", "Cy")
    for rc, so, se in finish([host, cy]):
        assert rc == 0 and json.loads(so.strip().splitlines()[-1])["over"], se[-3000:]
    first = [first_log(lan, k) for k in range(3)]
    assert_same_logs(first)
    g1 = parse_genesis(parse_log(first[0].read_bytes()).entries[0])
    no = lan.easel(2, "again", "--decline", first[2].parent)          # may come before the lobby opens: it knocks
    again = lan.easel(0, "again", first[0].parent, "--level", "random")
    (rn, so_no, se_no), (ra, so_a, se_a) = finish([no, again], 2 * GAME_WALL)
    assert rn == 0 and "the rematch goes on without you" in so_no, so_no + se_no
    assert ra == 0 and json.loads(so_a.strip().splitlines()[-1])["over"], se_a[-3000:]
    assert "Cy (will not play again)" in se_a
    (second_ann,) = [p for p in lan.logs(0) if p != first[0]]
    def bo_over() -> bool:
        logs = [p for p in lan.logs(1) if p != first[1]]
        try:
            return len(logs) == 1 and replay(parse_log(logs[0].read_bytes()).entries, registry).over
        except Exception:           # read while an entry is being appended: look again
            return False

    assert wait_for(bo_over, GAME_WALL), "Bo did not play the rematch"
    (second_bo,) = [p for p in lan.logs(1) if p != first[1]]
    bo.terminate()                                                      # it would wait for a third game
    finish([bo], 10)
    assert_same_logs([second_ann, second_bo])
    g2 = parse_genesis(parse_log(second_ann.read_bytes()).entries[0])
    cy_key = g1.doc["seats"][g1.doc["names"].index("Cy")]
    assert g2.doc["previous"] == g1.game_id
    assert g2.doc["seats"] == [k for k in g1.doc["seats"] if k != cy_key] and sorted(g2.doc["names"]) == ["Ann", "Bo"]
    assert lan.logs(2) == [first[2]]                                    # Cy was pulled into nothing


# --------------------------------------------------------------------------- the host's bots (issue 23)






def test_the_hosts_bot_is_reached_from_every_machine_and_plays_on_after_its_host_quits(lan):
    """Issue 23, item 1: Ann hosts with a bot of her own on machine 0; Bo and Cy join from machines 1 and 2
    after the bot took its seat (so it is a seat they must dial: seat i dials every seat j < i). The bot
    listens where Ann does and is in the roster under the address they reached Ann at: each of them is
    connected to it (ss on each machine). Ann's terminal closes mid-game: her bot plays on with Bo and Cy
    (connected to them directly, nothing relayed through Ann), the game finishes on all three, and the
    bot leaves at game over."""
    from p2p.identity import load_or_create
    from p2p.node import load_roster

    host = lan.easel(0, "host", "--game", "painting", "--players", 4, "--bots", 1, "--auto", "random", "--timeout", 2,
                     "--no-advertise", "--name", "Ann", "--option", "rounds=2", faults=SLOW % 70)
    said = read_until(host, rb"table open on port (\d+)")
    port = int(re.search(rb"table open on port (\d+)", said).group(1))
    read_until(host, rb"seats: Ann \(bot, random\) \(you\), bot 1 \(bot, ", buf=said)     # the bot sits at seat 1
    people = [lan.easel(k, "bot", "--join", "%s:%d" % (lan.addrs[0], port), "--level", "random", "--name", name,
                        faults=SLOW % (70 + k)) for k, name in ((1, "Bo"), (2, "Cy"))]
    # local-bots.json is written once the table is sealed, the roster as the host's node starts
    assert wait_for(lambda: any((f.parent / "roster").exists() for f in lan.homes[0].glob("games/*/local-bots.json")),
                    timeout=30), finish([host] + people, 1)
    gdir = next(lan.homes[0].glob("games/*/local-bots.json")).parent
    (rec,) = json.loads((gdir / "local-bots.json").read_text())["bots"]
    bot_pid = rec["pid"]
    genesis, roster = load_roster(gdir)
    seats = genesis.doc["seats"]
    bot_seat = seats.index(load_or_create(lan.homes[0] / "bots" / "bot-1").public)
    assert bot_seat == rec["seat"] == 1 and genesis.doc["names"][1] == "bot 1"
    # in the roster the host hands out, the bot's host part is empty, like the host's own (filled in by each joiner)
    assert wait_for(lambda: seated(lan, 1) and seated(lan, 2), timeout=30), finish([host] + people, 1)
    for k in (1, 2):
        _, theirs = load_roster(first_log(lan, k).parent)
        assert theirs["addrs"][bot_seat][0] == lan.addrs[0], theirs["addrs"]
    bot_port = roster["addrs"][bot_seat][1]

    # the bot listens on every interface, and Bo and Cy are connected to it: each machine's own sockets say so
    def bot_reaches_everyone() -> bool:
        peers = {peer[0] for _, peer in established(lan, 0, bot_pid)}
        return {lan.addrs[1], lan.addrs[2]} <= peers

    def reaches_bot(k: int) -> bool:
        # Bo's (Cy's) own connections: one to the host, one to the bot, both on machine 0
        pid = people[k - 1].pid
        return sum(1 for _, peer in established(lan, k, pid) if peer[0] == lan.addrs[0]) >= 2

    assert wait_for(lambda: bot_reaches_everyone() and reaches_bot(1) and reaches_bot(2), timeout=30), \
        (established(lan, 0, bot_pid), established(lan, 1, people[0].pid), established(lan, 2, people[1].pid))
    listening = subprocess.run(["ip", "netns", "exec", lan.hosts[0], "ss", "-tlnpH"], capture_output=True, text=True).stdout
    assert any("pid=%d," % bot_pid in line and line.split()[3] in ("0.0.0.0:%d" % bot_port, "*:%d" % bot_port)
               for line in listening.splitlines()), listening

    # Ann's terminal closes: she quits as with q; her bot plays on at the table with Bo and Cy
    host.send_signal(signal.SIGHUP)
    (rc, so, se), = finish([host], 30)
    assert rc == 1 and "Traceback" not in se, se[-3000:]
    assert json.loads(so.strip().splitlines()[-1])["over"] is False, "the game ended before the host quit"
    assert alive(bot_pid), "the host's bot left with it although two people play on"
    results = finish(people)
    assert_all_finished(results, 2)
    bot_log = lan.homes[0] / "bots" / "bot-1" / "games" / gdir.name / "log"
    assert_same_logs([first_log(lan, 1), first_log(lan, 2), bot_log])
    assert parse_log(bot_log.read_bytes()).entries and records(bot_log) > records(gdir / "log")
    assert wait_for(lambda: not alive(bot_pid), timeout=30), "the bot stayed after the game was over"

