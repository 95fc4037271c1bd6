"""Table talk without a screen (protocol.md §9.11, cli/narrate.py): a headless seat (easel bot, host --auto:
``run_node`` without a UI) and a headless spectator (easel watch --json) print each talk line once, as it
arrives, as a JSON ``said`` record on standard output; the line placed later in the log is not printed again.
A headless seat also says whom the table waits for (the screen's silence lines, without "or quit").

Real nodes on loopback TLS, every wait bounded (LIMIT s); the bots play a one-round Painting game."""

from __future__ import annotations

import json

import trio

from cli.narrate import Narrator
from cli.options import LiveArgs
from cli.runner import bot_decider, run_node, silence_lines
from cli.watching import watch_main
from p2p import tls
from p2p.node import GameNode
from p2p.store import GameStore

from .netutil import DetRand, free_ports, identities, make_table
from .test_ui import until

LIMIT = 60
LINE = "good luck, Bo! 🎨 幸運を"


def _records(text: str) -> list:
    return [json.loads(ln)["said"] for ln in text.splitlines() if ln.startswith('{"said"')]


async def test_a_headless_seat_and_a_headless_spectator_print_each_line_once_as_it_arrives(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("EASEL_HOME", str(tmp_path / "home"))
    ids = identities(2, "talk-headless")
    genesis = make_table(ids, "painting", {"rounds": 1}, timeout=300, nonce=b"talkhl01", names=["Ann", "Bo"])
    roster = {"certs": [tls.make_certificate(i) for i in ids], "addrs": [["127.0.0.1", p] for p in free_ports(2)]}
    store = GameStore(tmp_path / "ann")
    play = bot_decider("painting", "random", "talk-headless")
    said: list = []
    watching = trio.Event()

    async def ann_decide(d):
        if not said:        # Ann says a line before her first move, once a spectator follows the table
            await watching.wait()
            said.append(ann.say(LINE))
        return await play(d)

    ann_decide.takes_decision = True
    ann = GameNode(ids[0], genesis, roster, store, ann_decide, timeout=300, rand=DetRand("talk-headless", 0))
    got = {}
    try:
        with trio.fail_after(LIMIT):
            async with trio.open_nursery() as n:
                await n.start(ann.run)

                async def bo():
                    got["bo"] = await run_node(ids[1], genesis, roster, bot_decider("painting", "random", "bo"),
                                               timeout=300, seed="talk-headless")

                async def spectator():
                    args = LiveArgs(cmd="watch", target="127.0.0.1:%d" % roster["addrs"][0][1], watch_patience=10,
                                    json=True)
                    got["watch"] = await watch_main(args, None)

                n.start_soon(bo)
                await until(lambda: len(ann.conns) == 1)
                n.start_soon(spectator)
                await until(lambda: ann.watching == 1)
                watching.set()
                await until(lambda: "bo" in got and "watch" in got and ann.done.is_set())
                n.cancel_scope.cancel()
    finally:
        store.close()
    assert said == [""]
    captured = capsys.readouterr()
    out = captured.out
    # nobody went away: no words about waiting (the seats not connected yet at the start are not "gone")
    assert "not connected" not in captured.err and "waits for" not in captured.err, captured.err
    recs = _records(out)
    # once by Bo's seat, once by the spectator: each printed it once, though the log placed it later
    assert len(recs) == 2 and all(r == {"seat": 0, "name": "Ann", "phase": recs[0]["phase"], "text": LINE} for r in recs)
    assert isinstance(recs[0]["phase"], int)
    t = got["bo"].peer.table
    assert t.over and [d["text"] for d in t.said] == [LINE]          # placed with Ann's first move
    assert json.loads(out.strip().splitlines()[-1])["over"] is True    # the spectator's report stays the last line


def test_the_narrator_prints_a_line_once_and_wait_words_when_they_change(capsys):
    import io

    out, err = io.StringIO(), io.StringIO()
    n = Narrator(["Ann", "Bo", "Cy"], out=out, err=err)
    line = {"seat": 1, "seq": 4, "phase": 3, "text": "hi", "placed": False}
    assert n.said([line]) == 1
    assert n.said([dict(line, placed=True), {"seat": 1, "seq": 5, "phase": 3, "text": "again"}]) == 1
    assert [r["text"] for r in _records(out.getvalue())] == ["hi", "again"]
    words = silence_lines(["Ann", "Bo", "Cy"], {2: 0.0}, 0, 60, False, "g1", needed=("the deal", (1, 2), 180),
                          person=False)
    assert n.waits(words) == words and n.waits(words) == []
    text = err.getvalue()
    # whom it waits for at a deal step, as the screen says it; no "or quit (q)": nobody to quit
    assert "the game cannot pass the deal without Cy (seat 2): the table waits for Cy up to 180 s" in text
    assert "quit" not in text and text.count("\n") == len(words)


def test_a_seat_gone_by_its_own_word_is_not_waited_for_so_no_wait_or_quit_hint():
    names = ["Ann", "Bo", "Cy"]
    left = silence_lines(names, {1: 0.0}, 0, 60, False, "g1", left={1: 4})
    assert any("Bo (seat 1) left the table" in w for w in left) and any("left for good" in w for w in left)
    assert not any("you can wait" in w for w in left), left
    # a silent seat is waited for: the hint is there
    silent = silence_lines(names, {1: 0.0}, 0, 60, False, "g1")
    assert silent[-1] == "you can wait, or quit (q) and come back later with: easel resume g1"
    # one left, one silent: the silent one is waited for
    both = silence_lines(["Ann", "Bo", "Cy", "Di"], {1: 0.0, 2: 0.0}, 0, 60, False, "g1", left={1: 4})
    assert both[-1].startswith("you can wait, or quit")
    # more than half gone by their word: the table can never time them out and waits: the hint stays
    many = silence_lines(names, {1: 0.0, 2: 0.0}, 0, 60, False, "g1", left={1: 4, 2: 4})
    assert any("it waits for" in w for w in many) and many[-1].startswith("you can wait, or quit")


def test_a_headless_seat_at_a_deal_step_says_whom_it_waits_for(tmp_path, capsys):
    """Modern Art's deal cannot pass without each seat (``Turn.needs``): a headless seat whose neighbour went
    silent there names it, how long the table waits and what follows, as the screen does."""
    from types import SimpleNamespace

    from cli.narrate import wait_words

    from .netutil import Sim

    sim = Sim(3, seed=31, game="modern-art", timeout=2.0, tag="headless-deal", fifo=True,
              names=["Ann", "Bo", "Cy"])
    sim.start()
    sim.run_until(lambda: sim.peers[0].table.step is not None and sim.peers[0].table.step.needs, max_rounds=20_000)
    node = SimpleNamespace(peer=sim.peers[0], genesis=sim.genesis, silent_since={2: 0.0}, seat=0,
                           store=SimpleNamespace(dir=tmp_path / "g"))
    words = wait_words(node)
    assert any("cannot pass" in w and "without Cy (seat 2)" in w and "waits for Cy up to 6 s" in w for w in words), words
    assert any(w.startswith("not connected: Cy (seat 2)") for w in words)
    assert not any("quit" in w for w in words)
