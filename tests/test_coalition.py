"""No one to trust, not even a majority (protocol.md §6.5 "What a false time-out gives away").

The attack measured on an earlier main: at a Modern Art table, a coalition of seats that does
nothing but sign a time-out certificate against the honest seats as soon as an honest seat's
deal step opens got the honest seats' own signed shuffles rolled back (certificates win over
events already received, §6.6), so the deck was shuffled by the coalition alone and, pooling
its seat secrets, it knew every honest card before any was played.

Here the same coalition plays with the real peers (in memory) at 3 of 5, 2 of 4 and 2 of 3
seats, forging certificates against the honest seats' keys or shuffles.  The deal cannot go on
without those steps: the game ends abandoned, naming the timed-out seat and step, before any
hand is dealt, and the coalition's pooled secrets open none of the honest seats' cards.  The
honest seats' cut moves are named (the false time-out is seen).  And without a forged
certificate the coalition, pooling its secrets, opens none of the honest seats' cards either.

Bind before you show (issue 22): a coalition that cuts every honest card open after reading it
reads only cards that leave the honest hand face down; one that cuts every honest choice reads no
card once the peer's show gate is there; one that cuts the honest shares at a deal ends the game
abandoned, ranking and blaming no one; one that cuts the honest disclosure changes no place.
"""

from __future__ import annotations

import pytest

from core import deal
from core.encoding import encode
from core.events import Event, Timeout, make_timeout, parse_entry, vote_sign_msg
from core.games.modern_art.cards import N_CARDS

from .netutil import Sim, entry_raws

CASES = [(5, (1, 4)), (4, (1, 3)), (3, (1,))]      # (seats, honest seats): every other seat colludes


def forge(sim: Sim, honest: tuple, st) -> bytes:
    """The coalition (every seat but ``honest``) times ``honest`` out of step ``st``."""
    gid = sim.genesis.game_id
    votes = [(k, sim.ids[k].sign(vote_sign_msg(gid, st.phase, st.prev, list(honest))))
             for k in range(sim.n) if k not in honest]
    return encode(["entry", make_timeout(gid, st.phase, st.prev, list(honest), votes).raw])


def cards_opened(sim: Sim, owners: tuple, knowers: tuple) -> int:
    """Positions dealt to ``owners`` whose card the seats ``knowers`` can open from everything
    public (the log's deck and shares) and their own pooled seat secrets."""
    st = sim.peers[0].table.state
    table = deal.card_table(st.gid, N_CARDS)
    ys = {k: deal._secret_scalar(sim.peers[k].seat_secret, st.gid, k) for k in knowers}
    opened = 0
    for pos in range(st.shared):
        if st.owner[pos] not in owners:
            continue
        c1, c2 = st.deck[pos][:32], st.deck[pos][32:]
        acc = c2
        for s in range(sim.n):
            d = ys.get(s)
            share = deal._mul(d, c1, deal.Counter()) if d is not None else st.shares[pos][s]
            if share is None:
                break
            acc = deal._nb.crypto_core_ed25519_sub(acc, share)
        else:
            opened += acc in table
    return opened


@pytest.mark.parametrize("n,honest", CASES)
@pytest.mark.parametrize("target", ["keys", "shuffle"])
def test_a_coalition_forging_time_outs_against_honest_deal_steps_learns_no_card(n, honest, target):
    sim = Sim(n, seed=11, game="modern-art", timeout=600.0, tag="coalition-%d-%s" % (n, target))
    sim.start()
    forged: list = []

    def attack() -> bool:
        st = sim.peers[0].table.step
        if forged:
            return True
        if st is None or st.purpose != "auto":
            return False
        stage = sim.peers[0].table.state.stage
        if stage == target and set(st.seats) & set(honest):
            raw = forge(sim, honest, st)
            forged.append(st)
            for k in range(n):          # the coalition hands its certificate to every peer
                sim.run(k, sim.peers[k].receive(sim.keys[0 if k else 2], raw))
        return bool(forged)

    sim.block = lambda src, dst, msg: attack() and False     # the coalition looks before every delivery
    sim.run_until(attack, max_rounds=20_000)
    sim.block = None
    sim.run_until(max_rounds=50_000)
    logs = [p.log_entries for p in sim.peers]
    assert all(lg == logs[0] for lg in logs)
    st = sim.peers[0].table.state
    res = sim.peers[0].table.result()
    assert res["status"] == "abandoned" and res["ranking"] == [] and res["winners"] == []
    assert any(s in honest and "timed out of its %s" % ("deal key" if target == "keys" else "shuffle") in text
               and "no hand was dealt" in text for s, text in st.named), st.named
    assert st.shared == 0 and all(o == -1 for o in st.owner)          # no hand was ever dealt
    coalition = tuple(k for k in range(n) if k not in honest)
    assert cards_opened(sim, honest, coalition) == 0
    # the honest seats moved (their automatic steps are instant): each sees it was voted out anyway
    cut = [c for k in honest for c in sim.peers[k].cut_moves.values() if c["seat"] == k]
    assert cut and all(c["phase"] == forged[0].phase for c in cut), [sim.peers[k].cut_moves for k in honest]


@pytest.mark.parametrize("n,honest", CASES[:1])
def test_without_a_forged_certificate_the_pooled_coalition_opens_no_honest_card(n, honest):
    sim = Sim(n, seed=12, game="modern-art", timeout=600.0, tag="coalition-honest")
    sim.start()
    def dealt() -> bool:
        st = sim.peers[0].table.state
        return st is not None and st.stage == "play" and st.shared > 0
    sim.run_until(dealt, max_rounds=20_000)
    st = sim.peers[0].table.state
    dealt = sum(1 for p in range(st.shared) if st.owner[p] in honest)
    assert dealt > 0
    coalition = tuple(k for k in range(n) if k not in honest)
    assert cards_opened(sim, honest, coalition) == 0
    # the check can see a card: with the honest seats' secrets too, every honest card opens
    assert cards_opened(sim, honest, tuple(range(n))) == dealt


# --------------------------------------------------------------------------- bind before you show (issue 22)
#
# A card play is bound by its positions (the choice, a decided move) and shown by the seat's peer in
# the next, automatic step (the open).  A coalition that signs a certificate against an honest seat's
# open after reading it gets a card that has left the honest hand (discarded face down, never to be
# played); one that cuts the choice gets positions only.  Measured with the real peers: every card
# id of an honest open that reached a coalition peer is classified by the agreed log at the end.

CUT_CASES = [(3, (1,)), (4, (1, 3)), (5, (1, 4))]


class ReadWhileInHand(Exception):
    """The coalition read an honest card that stayed in the honest hand (the property of issue 22)."""


# Where the game's side (this file's subject) is not enough: a shown card goes back to the hand when a
# certificate for an EARLIER step (the choice that bound it, or any step before) rolls the open away.
# The peer's rule that closes it (send a step's secrets only once the step that bound them is settled,
# never roll back past a step in which it showed one; protocol.md §6.5) is p2p/protocol.py's, built
# apart: until it is there these cases read cards (measured on this branch: cutting every choice reads
# 28 honest cards at 3 seats; cutting every open at 5 seats reads 1, from a later open that a late cut
# of an earlier open rolled away).  Strict: they fail the suite once the peer's rule makes them pass.
NEEDS_SHOW_GATE = pytest.mark.xfail(
    raises=ReadWhileInHand, strict=True,
    reason="needs the peer's show gate (p2p/protocol.py): a certificate for an earlier step rolls a shown card back")


def _held(sim: Sim, k: int, seat: int, phase: int, prev: bytes) -> bool:
    """Does peer ``k`` hold ``seat``'s event for the step (phase, prev)?"""
    return any(ev.prev == prev and ev.body.get("phase") == phase for ev in sim.peers[k].events[sim.keys[seat]].values())


class Coalition:
    """Every seat but ``honest`` colludes: it reads every message that reaches any of its peers, and
    cuts (forges a time-out certificate against the honest seats for) every step of ``kind`` an honest
    seat made, once the coalition holds the honest event: "open" (the card shown), "choice" (a card
    play or an add, positions only), "shares" (a deal step), "disclose" (the seat secret)."""

    def __init__(self, n: int, honest: tuple, kind: str, seed: int) -> None:
        self.sim = Sim(n, seed=seed, game="modern-art", timeout=600.0, tag="bind-%d-%s" % (n, kind))
        self.honest, self.kind = honest, kind
        self.members = tuple(k for k in range(n) if k not in honest)
        self.read: dict = {}               # event id -> Event: honest events that reached the coalition
        self.cut: list = []                # (phase, prev) of the steps it cut

    def _spy(self, src: int, dst: int, msg: bytes) -> bool:
        if dst in self.members:
            for raw in entry_raws(msg):
                try:
                    ev = parse_entry(raw, verify=False)
                except Exception:
                    continue
                if isinstance(ev, Event) and ev.author in [self.sim.keys[h] for h in self.honest]:
                    self.read[ev.id] = ev
        self._attack()
        return False                       # it never drops a message: it only adds certificates

    def _target(self, action) -> bool:
        if not isinstance(action, dict):
            return False
        if self.kind == "open":
            return "open" in action
        if self.kind == "choice":
            return action.get("do") in ("play", "add") and "card" not in action
        if self.kind == "shares":
            return "shares" in action
        return "secret" in action

    def _attack(self) -> None:
        sim = self.sim
        t = sim.peers[self.members[0]].table
        for _idx, phase, seat, action in list(t.moves)[-8:]:
            if seat not in self.honest or not self._target(action):
                continue
            prev = t.starts[phase][1]
            if (phase, prev) in self.cut or not all(_held(sim, k, seat, phase, prev) for k in self.members):
                continue
            self.cut.append((phase, prev))
            step = type("S", (), {"phase": phase, "prev": prev})
            raw = forge(sim, self.honest, step)
            for k in range(sim.n):          # the coalition hands its certificate to every peer
                sim.run(k, sim.peers[k].receive(sim.keys[self.members[0]], raw))
            return

    def play(self, max_rounds: int = 60_000) -> None:
        sim = self.sim
        sim.block = self._spy
        sim.start()
        sim.run_until(max_rounds=max_rounds)
        sim.block = None

    def in_hand_reads(self) -> tuple[int, int, int]:
        """(honest cards read while still in hand, read and discarded face down, read and played), by
        the agreed log: an open read is *played* if that very event is in the log, *discarded* if a
        certificate cut its step (then its positions are in ``discarded``), else the card was read and
        its step never happened: it stayed in the honest hand."""
        log = self.sim.peers[self.members[0]].log_entries
        final = self.sim.peers[self.members[0]].table.state
        cuts = set()
        for raw in log[1:]:
            e = parse_entry(raw, verify=False)
            if isinstance(e, Timeout):
                cuts.add((e.phase, e.prev))
        in_hand = discarded = played = 0
        for ev in self.read.values():
            action = ev.body.get("action") if ev.kind == "act" else None
            if not isinstance(action, dict) or not isinstance(action.get("open"), list):
                continue
            k = len(action["open"])
            if ev.raw in log:
                played += k
            elif (ev.body["phase"], ev.prev) in cuts:
                assert all(item[0] in final.discarded for item in action["open"])
                discarded += k
            else:
                in_hand += k
        return in_hand, discarded, played


@pytest.mark.parametrize("n,honest", [pytest.param(*CUT_CASES[0]), pytest.param(*CUT_CASES[1]),
                                       pytest.param(*CUT_CASES[2], marks=NEEDS_SHOW_GATE)])
def test_a_coalition_cutting_every_honest_open_reads_no_card_still_in_the_hand(n, honest):
    c = Coalition(n, honest, "open", seed=21)
    c.play()
    sim = c.sim
    logs = [p.log_entries for p in sim.peers]
    assert all(lg == logs[0] for lg in logs)
    st = sim.peers[0].table.state
    in_hand, discarded, played = c.in_hand_reads()
    # the game's side: every open the coalition cut left the hand face down, never shown in the log,
    # never played later; no honest card was ever auctioned; the game still ends, ranking everybody
    assert c.cut and discarded > 0 and played == 0
    assert all(st.owner[p] in honest and st.ms.revealed[p] == -1 for p in st.discarded)
    assert not any(st.owner[p] in honest for p, card in enumerate(st.ms.revealed) if card >= 0)
    res = sim.peers[0].table.result()
    assert res["status"] == "complete" and sorted(res["ranking"]) == list(range(n))
    if in_hand:
        raise ReadWhileInHand("%d honest cards read while still in the hand" % in_hand)


@pytest.mark.parametrize("n,honest", [pytest.param(*CUT_CASES[0], marks=NEEDS_SHOW_GATE)])
def test_a_coalition_cutting_every_honest_choice_reads_no_card(n, honest):
    c = Coalition(n, honest, "choice", seed=22)
    c.play()
    st = c.sim.peers[0].table.state
    assert c.cut
    # a choice names positions only: no card id, no share, in any honest choice the coalition read
    for ev in c.read.values():
        a = ev.body.get("action") if ev.kind == "act" else None
        if isinstance(a, dict) and a.get("do") in ("play", "add"):
            assert set(a) <= {"do", "pos", "double"} and (a.get("double") is None or set(a["double"]) == {"pos"})
    assert not any(st.owner[p] in honest for p, card in enumerate(st.ms.revealed) if card >= 0)
    in_hand, discarded, played = c.in_hand_reads()
    assert discarded == 0 and played == 0
    if in_hand:
        raise ReadWhileInHand("%d honest cards read while still in the hand" % in_hand)


@pytest.mark.parametrize("n,honest", CUT_CASES)
def test_a_coalition_cutting_the_honest_shares_blames_and_ranks_no_one(n, honest):
    c = Coalition(n, honest, "shares", seed=23)
    c.play()
    res = c.sim.peers[0].table.result()
    assert len(c.cut) == 1
    assert res["status"] == "abandoned" and res["ranking"] == [] and res["winners"] == []
    assert res["places"] == [None] * n
    assert sorted(s for s, _ in res["named"]) == sorted(honest)
    assert all("did not come" in text and "nobody is ranked" in text and "withheld its share" not in text
               for _s, text in res["named"])


@pytest.mark.parametrize("n,honest", CUT_CASES[:1])
def test_a_coalition_cutting_the_honest_disclosure_changes_no_place(n, honest):
    c = Coalition(n, honest, "disclose", seed=24)
    c.play()
    res = c.sim.peers[0].table.result()
    assert len(c.cut) == 1 and res["status"] == "not disclosed"
    money = res["money"]
    assert res["ranking"] == sorted(range(n), key=lambda s: (-money[s], s))      # by money, every seat
    assert res["places"] == [1 + sum(1 for o in range(n) if money[o] > money[s]) for s in range(n)]
    assert [s for s, _ in res["named"]] == list(honest)
