"""A person plays a whole 4-seat Modern Art game through the UI and is asked no more than a person at a table.

Four sans-IO peers over memory (``MANet``: the trustless deal included); seats 1-3 move as small bots;
seat 0 is a person typing into the real ``GameUI`` through prompt-toolkit's pipe input.  The person
auctions a card when on turn, passes every open auction it does not want and sets a standing order
("upto N") on every other one; it passes a double offer, once around, a fixed price, and hands in no
sealed bid.  Asserted, for every open auction: once the person has passed or set a ceiling it is asked
nothing more in that auction (a pass drops it out in the rules; the ceiling answers on its own screen,
and the bids it makes are the ones the order gives).  The person's prompt count for the game is
printed (README quotes it).

Every wait is bounded (LIMIT s); no clock and no network.
"""

from __future__ import annotations

import trio
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from cli.screens.modern_art import hand_order
from cli.shell import GameUI
from core.games.modern_art.auctions import auction_key, next_raise
from core.games.modern_art.cards import CARDS
from p2p.node import decision_of

from .test_modern_art_dealt_ui import MANet
from .test_ui import flat, running, until

ENTER = "\r"
CTRL_Q = "\x11"
LIMIT = 600             # seconds for the whole game on a loaded machine (the deal and every signature)
CEIL = 12              # the person's ceiling: the table's small bots bid up to 10, so they outbid its first raises


def _answer(v: dict, opens: dict) -> str:
    """What the person types for the decision its view shows."""
    ph = v["phase"]
    a = v.get("auction") or {}
    if ph == "play":
        order = hand_order(v["cards"])
        assert order
        k = next((i for i, c in enumerate(order) if CARDS[c["id"]].type != "double"), 0)
        return "play %d" % (k + 1)
    if ph == "open":
        key = repr(auction_key(v))
        opens.setdefault(key, {"prompts": 0, "said": None, "bids": []})
        want = len(opens) % 2 == 0              # every other open auction: a ceiling; the rest: pass
        if want and a.get("high", 0) < CEIL:
            return "upto %d" % CEIL
        return "pass"
    if ph == "price":
        return "price 10"
    return "pass"                               # double offer, once around, fixed price; sealed: no bid


async def test_a_person_who_passes_or_sets_a_ceiling_is_asked_nothing_more_in_that_open_auction(capsys):
    net = MANet(4, seed=5)
    me = 0
    t = net.table(me)
    opens: dict = {}          # auction key -> {"prompts", "said", "bids"}
    prompts = {"all": 0}
    with trio.fail_after(LIMIT):
        with create_pipe_input() as inp:
            ui = GameUI(me, input=inp, output=DummyOutput(), send_at_once=True)   # a typed move goes at once (as with --send-at-once)
            ui.update(t, [], "")
            screen = ui._screen()
            asked = screen.on_decision

            def counting(ctx):
                prompts["all"] += 1
                v = ctx.view
                if isinstance(v, dict):
                    prompts[v.get("phase")] = prompts.get(v.get("phase"), 0) + 1
                if isinstance(v, dict) and v.get("phase") == "open":
                    rec = opens.setdefault(repr(auction_key(v)), {"prompts": 0, "said": None, "bids": []})
                    assert rec["said"] is None, "asked again in an open auction after %r" % rec["said"]
                    rec["prompts"] += 1
                return asked(ctx)

            screen.on_decision = counting
            async with running(ui):
                for _ in range(5000):
                    if t.over:
                        break
                    net.bots(range(1, 4), until=lambda: net.peers[me].needs_decision() or t.over, limit=50)
                    if t.over:
                        break
                    if not net.peers[me].needs_decision():
                        continue
                    view = t.view(me, net.secret(me))
                    before = prompts["all"]
                    got: dict = {}

                    async def decide():
                        got["action"] = await ui.decide(decision_of(net.peers[me], me, trio.current_time()))

                    async with trio.open_nursery() as n:
                        n.start_soon(decide)
                        await until(lambda: "action" in got or (ui.composer.asked is not None and prompts["all"] > before))
                        if "action" not in got:
                            line = _answer(view, opens)
                            inp.send_text(line + ENTER)
                            await until(lambda: "action" in got)
                            if view["phase"] == "open":
                                opens[repr(auction_key(view))]["said"] = line
                    action = got["action"]
                    if view["phase"] == "open":
                        rec = opens[repr(auction_key(view))]
                        if prompts["all"] == before:      # answered by the standing order: no prompt
                            assert rec["said"] == "upto %d" % CEIL
                            a = view["auction"]
                            cap = min(CEIL, view["money"][me])
                            want = {"do": "pass"} if a["high"] >= cap else {"do": "bid", "amount": next_raise(a["high"], cap)}
                            assert {k: action[k] for k in want} == want
                        rec["bids"].append(action)
                    net.act(me, action)
                else:
                    raise AssertionError("the game did not end")
                assert "Traceback" not in flat(ui)
                inp.send_text(CTRL_Q + CTRL_Q)
                await until(lambda: ui.closed)
    assert t.over and t.state.ms.phase == "over"
    ceilings = [r for r in opens.values() if r["said"] == "upto %d" % CEIL]
    passes = [r for r in opens.values() if r["said"] == "pass"]
    assert ceilings and passes, opens
    assert all(r["prompts"] == 1 for r in opens.values())          # one question per open auction, at most
    assert any(len(r["bids"]) > 1 for r in ceilings)               # the order answered later rounds itself
    with capsys.disabled():
        print("\nperson's prompts in one 4-seat game: %r; open auctions: %d, each asked once (%d passed, %d with a "
              "ceiling); %d later answer(s) given by its standing orders" % (
                  prompts, len(opens), len(passes), len(ceilings), sum(len(r["bids"]) - 1 for r in ceilings)))
