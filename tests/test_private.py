"""Private information at the table (issue 6 §1-2) with Modern Art's trustless deal.

Seat secrets, automatic steps, seal_action, secret-aware views, disclosure and
withholding, through the real table with in-memory sans-IO peers and through a
local driver over the game object: no card identity in any byte a seat
receives; every shuffle carries its proof and is checked before any share;
a shuffle step closed by a time-out abandons the game before any hand is dealt; the coalition of all seats but one cannot read the honest seat's hand;
a wrong share, a card play that was not dealt and a tampered shuffle are
named with the seat (the tampered shuffle by its proof, before any share); a restarted
peer keeps its secret and hand; missing shares abandon the game (nobody
ranked), a missing disclosure ranks nobody last.
"""

from __future__ import annotations

import hashlib
import random

import pytest

import core.games
from core import deal
from core.audit import audit
from core.encoding import decode
from core.engine import IllegalAction
from core.events import Event, parse_entry
from core.games.modern_art import dealt, rules
from core.games.modern_art.cards import N_CARDS
from core.games.modern_art.game import MODERN_ART as GAME
from core.hashing import dhash
from core.rng import Rng
from core.table import replay
from p2p.protocol import SEAT_SECRET, Broadcast, Peer, Send, WriteSecret
from p2p.store import GameStore

from .helpers import genesis_for, log_file, seat_keys, signer
from .test_shuffle_proof import copy_cheat

# the registry the tables replay with: every registered game, and Modern Art (registered or not yet)
GAMES = core.games.Registry([g for g in core.games.default() if g.info.name != "modern-art"] + [GAME])


def secret_of(seat: int, tag: str = "s") -> bytes:
    return hashlib.sha512(("%s-%d" % (tag, seat)).encode()).digest()


# --------------------------------------------------------------------------- in-memory peers


class Net:
    """n sans-IO peers; every message delivered to a seat is recorded (``seen[seat]``)."""

    def __init__(self, n: int = 3, seed: int = 1, level: str = "random", timeout: float = 60.0,
                 games: dict | None = None) -> None:
        self.games = games or {}   # seat -> the registry its peer runs (default GAMES)
        self.r = random.Random(seed)
        self.sks = seat_keys(n)
        self.keys = [bytes(sk.verify_key) for sk in self.sks]
        self.g = genesis_for(self.sks, game="modern-art", table=b"priv%d" % seed)
        self.n, self.seed = n, seed
        self.bot = GAME.bots[level]()
        self.timeout = timeout
        self.written: list[dict] = [{} for _ in range(n)]   # what each peer wrote to its secrets file
        self.peers = [self._peer(i) for i in range(n)]
        self.q: list = []
        self.seen: list[list[bytes]] = [[] for _ in range(n)]
        self.dead: set = set()
        self.clock = 0.0
        for i in range(n):
            for j in range(n):
                if i != j:
                    self.run(i, self.peers[i].connected(self.keys[j]))
            self.run(i, self.peers[i].start())

    def _rand(self, k: int) -> bytes:
        return bytes(self.r.getrandbits(8) for _ in range(k))

    def _peer(self, i: int, log_entries=None, secrets=None) -> Peer:
        return Peer(self.g, self.keys[i], signer(self.sks[i]), self._rand, log_entries=log_entries,
                    secrets=secrets, games=self.games.get(i, GAMES), timeout=self.timeout)

    def run(self, i: int, effects: list) -> None:
        for e in effects:
            if isinstance(e, WriteSecret):
                self.written[i][e.phase] = (e.value, e.salt)
            elif isinstance(e, Send):
                self.q.append((i, self.keys.index(e.to), e.msg))
            elif isinstance(e, Broadcast):
                self.q.extend((i, j, e.msg) for j in range(self.n) if j != i)

    def step(self) -> bool:
        for i, p in enumerate(self.peers):
            if i not in self.dead and p.needs_decision():
                rng = Rng(bytes(32), "b%d-%d-%d" % (self.seed, i, p.table.phase))
                self.run(i, p.act(self.bot.choose(p.view(), p.seat, rng)))
        if not self.q:
            return False
        src, dst, m = self.q.pop(self.r.randrange(len(self.q)))
        if src in self.dead or dst in self.dead:
            return True
        self.seen[dst].append(m)
        self.run(dst, self.peers[dst].receive(self.keys[src], m))
        return True

    def live(self):
        return [p for i, p in enumerate(self.peers) if i not in self.dead]

    def until(self, done, limit: int = 400_000) -> None:
        for _ in range(limit):
            if done():
                return
            if not self.step():
                if all(p.table.over for p in self.live()):
                    return
                # nothing in flight: time passes (votes, certificates)
                self.clock += self.timeout + 1
                for i, p in enumerate(self.peers):
                    if i not in self.dead:
                        self.run(i, p.tick(self.clock))
        raise AssertionError("the game did not get there")


def stage_of(p: Peer) -> str | None:
    st = p.table.state
    return None if st is None else st.stage


def test_full_game_no_card_identity_in_any_byte_a_seat_receives_and_the_log_audits():
    net = Net(3, seed=5)
    net.until(lambda: all(p.table.over for p in net.peers))
    p0 = net.peers[0]
    log = p0.log_entries
    assert all(p.log_entries == log for p in net.peers)
    res = p0.table.result()
    assert res["status"] == "complete" and res["named"] == [] and res["rounds"] == 4
    gid = p0.table.state.gid
    # card identities: the card points and their hash preimages (the card ids of plays are public
    # only inside a play, which reveals the card anyway)
    idents = deal.card_points(gid, N_CARDS) + [dhash("deal/card", gid, i) for i in range(N_CARDS)]
    total = 0
    for seat in range(3):
        for m in net.seen[seat]:
            total += len(m)
            for x in idents:
                assert x not in m, "a card identity reached seat %d" % seat
    assert total > 100_000     # the deal's messages went through the scan
    # every shuffle carries its proof: the first share step follows the last shuffle at once (no
    # challenge, no proof step); replayed step by step from the log
    t = replay(log[:1], GAMES)
    order = []
    for raw in log[1:]:
        t.append(raw)
        if t.step is not None and t.state is not None:
            mark = (t.state.stage, t.step.kind, t.step.purpose)
            if not order or order[-1] != mark:
                order.append(mark)
    stages = [m[0] for m in order]
    last_shuffle = max(i for i, m in enumerate(order) if m[0] == "shuffle")
    assert [m for m in order if m[0] in ("keys", "shuffle")] == [("keys", "act", "auto"), ("shuffle", "act", "auto")]
    assert order[last_shuffle + 1] == ("deal", "act", "auto")
    assert "challenge" not in stages and "proofs" not in stages and all(m[2] != "seed" for m in order[1:])
    assert len(t.state.proofs) == 3 and all(len(x) == deal.proof_bytes(N_CARDS) for x in t.state.proofs)
    # a seat's secret never went out before the disclosure, and went out in it
    secrets = [p.seat_secret for p in net.peers]
    assert all(s is not None and len(s) == 64 for s in secrets)
    disclosed_at = [next(i for i, raw in enumerate(log) if secrets[s] in raw) for s in range(3)]
    t = replay(log[:min(disclosed_at)], GAMES)
    assert t.state.stage == "disclose" and t.state.ms.phase == "over"
    # the audit, offline: valid, complete, and the result says complete
    rep = audit({"ma.log": log_file(log)}, GAMES)
    assert rep["valid"] and rep["complete"]
    assert rep["results"]["status"] == "complete"


def test_own_hand_in_own_view_only_counts_in_others_and_restart_keeps_secret_and_hand(tmp_path):
    net = Net(3, seed=2)
    net.until(lambda: stage_of(net.peers[0]) == "play" and net.peers[0].table.state.ms.round == 1
              and len(net.peers[0].table.state.ms.revealed) - net.peers[0].table.state.ms.revealed.count(-1) >= 2)
    p0 = net.peers[0]
    mine = p0.view()
    assert mine["cards"] and {c["pos"] for c in mine["cards"]} == set(p0.table.state.ms.hands[0])
    assert "cards" not in p0.table.view(1) and "cards" not in p0.table.view(None)
    # the table of another seat's peer shows seat 0 no cards either
    assert "cards" not in net.peers[1].table.view(0)
    # the seat secret was written (to the secrets file) before anything was sent
    assert net.written[0][SEAT_SECRET] == (p0.seat_secret, b"")
    # a restarted peer: same log, same secrets file -> same secret, same hand
    again = net._peer(0, log_entries=list(p0.log_entries), secrets=dict(net.written[0]))
    again.start()
    assert again.seat_secret == p0.seat_secret
    assert again.view()["cards"] == mine["cards"]
    # and a peer that lost its secrets file cannot read its hand (the secret is not in the log)
    lost = net._peer(0, log_entries=list(p0.log_entries), secrets={})
    lost.start()
    assert lost.seat_secret is not None and lost.seat_secret != p0.seat_secret
    assert not lost.view().get("cards")
    # the store keeps the seat secret under its reserved key across a reopen
    st = GameStore(tmp_path / "g")
    st.put_secret(SEAT_SECRET, p0.seat_secret, b"")
    st.close()
    st2 = GameStore(tmp_path / "g")
    assert st2.secrets[SEAT_SECRET] == (p0.seat_secret, b"")
    st2.close()


def test_shares_that_do_not_come_abandon_the_game_ranking_nobody_and_the_audit_says_so():
    net = Net(3, seed=3, timeout=5.0)
    # seat 2 vanishes when round 1's shares are due (only it can give its shares)
    net.until(lambda: all(stage_of(p) == "deal" for p in net.peers))
    net.dead.add(2)
    net.until(lambda: all(p.table.over for p in net.live()))
    p0 = net.peers[0]
    res = p0.table.result()
    # a time-out certificate could have been signed against a seat that sent its shares: it blames
    # and ranks nobody (issue 22); the deal cannot go on, so the game is abandoned
    assert res["status"] == "abandoned"
    assert res["ranking"] == [] and res["places"] == [None] * 3 and res["winners"] == []
    rnd = p0.table.state.ms.round      # the deal whose shares did not come (seat 2 may have given round 1's)
    assert res["named"] == [[2, "seat 2's shares for round %d's deal did not come (timed out or withheld; a time-out "
                                "can be signed by the other seats although they were sent): the deal cannot go on, "
                                "nobody is ranked; the money stands as the auctions so far left it" % rnd]]
    assert not any("withheld its share" in text for _s, text in res["named"])
    assert p0.log_entries == net.peers[1].log_entries
    rep = audit({"ma.log": log_file(p0.log_entries)}, GAMES)
    assert rep["valid"] and rep["results"]["status"] == "abandoned" and rep["results"]["ranking"] == []
    assert rep["results"]["named"][0][0] == 2


# --------------------------------------------------------------------------- the game object, locally


def drive(n: int, seed: bytes, secrets: list, stop=None, tamper=None, max_steps: int = 5000):
    """Play locally: automatic turns with each seat's secret, decisions by the random bot with the
    seat's own view.  ``tamper(state, seat, action) -> action`` may replace any action; ``stop(state)``
    ends the drive early.  Returns the state."""
    bot = GAME.bots["random"]()
    state = GAME.setup(GAME.configure({}, n), n, seed)
    for k in range(max_steps):
        if stop is not None and stop(state):
            return state
        t = GAME.turn(state)
        if t.kind == "over":
            return state
        assert t.kind != "chance", "the deal asks for no shared randomness"
        chosen = []
        for s in t.seats:
            if t.auto:
                a = GAME.auto_action(state, s, secrets[s])
            else:
                raw = bot.choose(GAME.view(state, s, secrets[s]), s, Rng(seed, "b%d-%d" % (s, k)))
                a = GAME.seal_action(state, s, raw, secrets[s])
            if tamper is not None:
                a = tamper(state, s, a)
            chosen.append((s, GAME.check(state, s, a)))
        for s, a in chosen:
            state = GAME.apply(state, s, a)
    raise AssertionError("no end")


SEED = bytes(range(32))


@pytest.mark.parametrize("honest", [0, 1, 2])
def test_all_seats_but_one_cannot_read_the_honest_seats_hand(honest):
    n = 3
    secrets = [secret_of(s) for s in range(n)]
    st = drive(n, SEED, secrets, stop=lambda s: s.stage == "play")
    gid, table = st.gid, deal.card_table(SEED, N_CARDS)
    hand = st.ms.hands[honest]
    assert hand
    # the honest seat reads its hand (so the attempt below could succeed if the deal leaked)
    assert len(dealt.known_cards(st, honest, secrets[honest])) == len(hand)
    others = [s for s in range(n) if s != honest]
    ys = [deal._secret_scalar(secrets[s], gid, s) for s in others]
    for pos in hand:
        ct = st.deck[pos]
        # every subset of the coalition's keys, with every share published so far
        for mask in range(1 << len(ys)):
            p = ct[32:]
            for i, y in enumerate(ys):
                if mask >> i & 1:
                    p = deal._sub(p, deal._mul(y, ct[:32], deal.Counter()))
            assert table.get(p) is None
            q = p
            for s in others:
                if st.shares[pos][s] is not None and not (mask >> others.index(s) & 1):
                    q = deal._sub(q, st.shares[pos][s])
            assert table.get(q) is None
        # the coalition opening it with the honest seat's secret would succeed: the test can fail
        assert deal.open_card(ct, [st.shares[pos][s] for s in others], secrets[honest], gid, honest, table) is not None
    # no view without the honest seat's secret shows its cards; with it, they are there
    assert "cards" not in GAME.view(st, honest)
    shown = {c["pos"] for s in others for c in GAME.view(st, s, secrets[s])["cards"]}
    assert not shown & set(hand)
    assert {c["pos"] for c in GAME.view(st, honest, secrets[honest])["cards"]} == set(hand)


def test_a_wrong_share_is_refused_at_once_naming_the_seat_and_position():
    secrets = [secret_of(s) for s in range(3)]
    st = drive(3, SEED, secrets, stop=lambda s: s.stage == "deal")
    good = GAME.auto_action(st, 1, secrets[1])
    GAME.check(st, 1, good)
    bad = {"shares": [list(x) for x in good["shares"]]}
    bad["shares"][0][1] = good["shares"][1][1]     # another position's (valid) share
    with pytest.raises(IllegalAction, match=r"seat 1's share for position %d does not verify" % good["shares"][0][0]):
        GAME.check(st, 1, bad)
    # a share made with another seat's secret, or for too few positions: refused too
    forged = GAME.auto_action(st, 1, secrets[2])
    with pytest.raises(IllegalAction, match="seat 1"):
        GAME.check(st, 1, forged)
    with pytest.raises(IllegalAction, match="exactly positions"):
        GAME.check(st, 1, {"shares": good["shares"][1:]})


def test_a_card_play_that_was_not_dealt_is_refused_at_once():
    """The choice binds positions of the seat's own hand; the open shows, with the owner's share, the
    very card at each position (docs/deal.md §3, steps 4-5)."""
    secrets = [secret_of(s) for s in range(3)]
    st = drive(3, SEED, secrets, stop=lambda s: s.stage == "play" and s.ms.phase == "play")
    seat = st.ms.actor
    known = dealt.known_cards(st, seat, secrets[seat])
    pos, card = sorted(known.items())[0]
    # the choice: a card-id play (as the screen or a bot chooses it) is sealed into its position only
    choice = GAME.check(st, seat, GAME.seal_action(st, seat, {"do": "play", "pos": pos, "card": card, "double": None},
                                                   secrets[seat]))
    assert choice == {"do": "play", "pos": pos, "double": None}
    # claiming another card at that position: the seat's own peer refuses it before signing anything
    other = next(c for c in range(N_CARDS) if c not in known.values())
    with pytest.raises(IllegalAction, match="deck position %d holds .*, not " % pos):
        GAME.seal_action(st, seat, {"do": "play", "pos": pos, "card": other, "double": None}, secrets[seat])
    # a position of another seat's hand: refused by every peer (public)
    theirs = st.ms.hands[(seat + 1) % 3][0]
    with pytest.raises(IllegalAction, match="not in your hand"):
        GAME.check(st, seat, {"do": "play", "pos": theirs, "double": None})
    with pytest.raises(IllegalAction, match="not in your hand"):
        GAME.check(st, seat, {"do": "play", "pos": theirs, "card": card, "double": None})
    # the open: the owner's share proves the card at the position; another card, another seat's
    # share or a forged proof is refused naming the seat
    st = GAME.apply(st, seat, choice)
    good = GAME.auto_action(st, seat, secrets[seat])
    assert [i[:2] for i in good["open"]] == [[pos, card]]
    assert GAME.check(st, seat, good) == good
    lie = {"open": [[pos, other] + good["open"][0][2:]]}
    with pytest.raises(IllegalAction, match="seat %d's card play is not proven: position %d holds card" % (seat, pos)):
        GAME.check(st, seat, lie)
    D, proof = deal.share(secrets[(seat + 1) % 3], st.deck[pos], st.gid, (seat + 1) % 3, pos)
    with pytest.raises(IllegalAction, match="not proven"):
        GAME.check(st, seat, {"open": [[pos, card, D, proof]]})
    with pytest.raises(IllegalAction, match="not proven"):
        GAME.check(st, seat, {"open": [[pos, card, good["open"][0][2], bytes(64)]]})


def test_a_tampered_shuffle_is_refused_by_its_proof_before_any_share_and_the_game_abandoned():
    """docs/deal.md §2a: a shuffle is placed once its deck and its proof's form pass (the next seat
    shuffles on from it at once); every proof is checked when the last shuffle is applied, before
    any share: a proof that fails abandons the game naming its seat."""
    secrets = [secret_of(s) for s in range(3)]
    placed = []

    def tamper(state, seat, action):
        if state.stage == "shuffle" and seat == 1:
            # position 0 (round 1: seat 0's) becomes a re-randomised copy of position 20 (seat 2's)
            cheat = dict(action, deck=copy_cheat(action["deck"], dealt._joint(state.keys), 20, 0))
            # well formed: placed; its proof does not verify
            assert dealt._proof_problem(state.gid, 1, state.deck, tuple(cheat["deck"]), cheat["proof"],
                                        dealt._joint(state.keys)) == \
                "the proof does not verify: the output is not proven a shuffle of the input"
            placed.append(1)
            return cheat
        if state.stage == "shuffle" and seat == 2:
            placed.append(2)    # the next seat shuffles on from the (not yet checked) deck
        assert state.stage not in ("deal", "check"), "a share step after an unproven shuffle"
        return action

    st = drive(3, SEED, secrets, tamper=tamper)
    assert placed == [1, 2]
    res = GAME.result(st)
    assert res["status"] == "abandoned" and res["ranking"] == []
    assert res["named"] == [[1, "seat 1's shuffle is refused: the proof does not verify: the output is not proven a "
                                "shuffle of the input: the deal cannot go on, no hand was dealt"]]
    assert st.shared == 0 and all(row == (None,) * 3 for row in st.shares)
    # a malformed deck or proof is still refused at once, naming the seat
    st = drive(3, SEED, secrets, stop=lambda s: s.stage == "shuffle" and s.shuffler == 1)
    good = GAME.auto_action(st, 1, secrets[1])
    with pytest.raises(IllegalAction, match="seat 1's shuffled deck is refused: output position 0 keeps an input C1"):
        GAME.check(st, 1, dict(good, deck=[st.deck[0]] + good["deck"][1:]))
    with pytest.raises(IllegalAction, match="seat 1's shuffled deck is refused: scalar 0 of the proof is not canonical"):
        n = N_CARDS
        GAME.check(st, 1, dict(good, proof=good["proof"][:64 * n] + b"\xff" * 32 + good["proof"][64 * n + 32:]))


class _CheatingGame(type(GAME)):
    """Seat ``CHEAT``'s peer: a copy cheat in its shuffle, sent with its (failing) proof anyway."""

    CHEAT = 2

    def auto_action(self, state, seat, secret):
        a = super().auto_action(state, seat, secret)
        if state.stage == "shuffle" and seat == self.CHEAT:
            a = dict(a, deck=copy_cheat(a["deck"], dealt._joint(state.keys), 3, 25))
        return a

    def check(self, state, seat, action):
        if not isinstance(state, rules.State) and state.stage == "shuffle" and seat == self.CHEAT:
            return action      # its own peer does not refuse it; the others do
        return super().check(state, seat, action)


def test_a_cheating_shuffle_at_the_table_is_refused_and_the_game_abandoned_before_any_share():
    cheat = _CheatingGame()
    games = core.games.Registry([g for g in core.games.default() if g.info.name != "modern-art"] + [cheat])
    net = Net(3, seed=7, timeout=5.0, games={2: games})
    honest = net.peers[:2]
    net.until(lambda: all(p.table.over for p in honest))
    p0 = honest[0]
    assert p0.log_entries == honest[1].log_entries
    res = p0.table.result()
    assert res["status"] == "abandoned" and res["ranking"] == []
    assert res["named"] == [[2, "seat 2's shuffle is refused: the proof does not verify: the output is not proven a "
                                "shuffle of the input: the deal cannot go on, no hand was dealt"]]
    # the cheat's shuffle is well formed, so it is placed (the evidence, signed by its author, in
    # every log); its proof is checked when it is applied, the last shuffle, before any share
    sent = []
    for m in net.seen[0]:
        msg = decode(m)
        if msg[0] == "entry":
            ev = parse_entry(msg[1], keys=net.keys)
            if isinstance(ev, Event) and ev.author == net.keys[2] and isinstance(ev.body.get("action"), dict) \
                    and "deck" in ev.body["action"]:
                sent.append(msg[1])
    assert sent and set(sent) <= set(p0.log_entries)
    st = p0.table.state
    assert st.shared == 0 and all(row == (None,) * 3 for row in st.shares)   # no share was ever given
    rep = audit({"ma.log": log_file(p0.log_entries)}, GAMES)
    assert rep["valid"] and rep["results"]["status"] == "abandoned" and rep["results"]["named"][0][0] == 2


@pytest.mark.parametrize("victim", [0, 2])
def test_a_coalition_that_times_an_honest_seat_out_of_its_shuffle_gets_no_hand(victim):
    """The attack of the old design: the other seats sign a time-out certificate against an honest
    seat's shuffle step (here it is silent, so the certificate is genuine; a false one closes the step
    the same way).  The deck shuffled by the coalition alone is never dealt: the game is abandoned."""
    nets = []

    class Silenced(type(GAME)):
        def auto_action(self, state, seat, secret):
            if state.stage == "shuffle" and seat == victim:
                nets[0].dead.add(victim)   # from its shuffle on, nothing the victim sends arrives
            return super().auto_action(state, seat, secret)

    games = core.games.Registry([g for g in core.games.default() if g.info.name != "modern-art"] + [Silenced()])
    net = Net(3, seed=11, timeout=5.0, games={victim: games})
    nets.append(net)
    net.until(lambda: all(p.table.over for p in net.live()))
    p0 = net.live()[0]
    assert all(p.log_entries == p0.log_entries for p in net.live())
    res = p0.table.result()
    assert res["status"] == "abandoned" and res["ranking"] == [] and res["winners"] == []
    assert res["named"] == [[victim, "seat %d was timed out of its shuffle (it did not come in time; it could have come back with easel resume): "
                                 "the deal cannot go on without it, "
                                     "no hand was dealt" % victim]]
    st = p0.table.state
    assert st.shared == 0 and all(row == (None,) * 3 for row in st.shares) and len(st.decks) == victim + 1
    # the certificate is in the log and the audit agrees
    assert any("timed out seats [%d]" % victim in n.text for n in p0.table.notes)
    rep = audit({"ma.log": log_file(p0.log_entries)}, GAMES)
    assert rep["valid"] and rep["results"]["status"] == "abandoned"


def test_withholding_locally_and_defaults_of_automatic_steps():
    secrets = [secret_of(s) for s in range(3)]
    st = drive(3, SEED, secrets, stop=lambda s: s.stage == "deal")
    assert GAME.default_action(st, 0) == {"withhold": True}

    def tamper(state, seat, action):
        return {"withhold": True} if state.stage == "deal" and seat == 0 else action

    # a seat's own withhold marker is taken exactly as a time-out: the game is abandoned, nobody ranked
    end = drive(3, SEED, secrets, tamper=tamper)
    res = GAME.result(end)
    assert res["status"] == "abandoned" and res["ranking"] == [] and res["winners"] == []
    assert [s for s, _ in res["named"]] == [0] and "did not come" in res["named"][0][1]
    # a withheld key: the deal never begins, nobody is ranked
    end = drive(3, SEED, secrets, tamper=lambda s, seat, a: {"withhold": True} if s.stage == "keys" and seat == 2 else a)
    res = GAME.result(end)
    assert res["status"] == "abandoned" and res["ranking"] == [] and res["named"][0][0] == 2
    # a withheld (or timed-out) disclosure: the game is not complete; the seat is named, but every money
    # total is public by then, so the ranking by money stands for every seat (it is not ranked last)
    full = GAME.result(drive(3, SEED, secrets))
    end = drive(3, SEED, secrets, tamper=lambda s, seat, a: {"withhold": True} if s.stage == "disclose" and seat == 1 else a)
    res = GAME.result(end)
    assert res["status"] == "not disclosed"
    assert res["named"] == [[1, "seat secret not disclosed (timed out or withheld): its shuffle is not redone; it "
                                "was proven at the deal"]]
    assert full["status"] == "complete" and res["money"] == full["money"]
    assert (res["ranking"], res["places"], res["winners"]) == (full["ranking"], full["places"], full["winners"])
    assert res["ranking"] == sorted(range(3), key=lambda s: (-res["money"][s], s))
    # a timed-out shuffle: the deal cannot go on without it, the game is abandoned, no hand dealt
    st = drive(3, SEED, secrets, stop=lambda s: s.stage == "shuffle")
    assert GAME.default_action(st, 0) == {"withhold": True}
    end = drive(3, SEED, secrets, tamper=lambda s, seat, a: {"withhold": True} if s.stage == "shuffle" and seat == 0 else a)
    res = GAME.result(end)
    assert res["status"] == "abandoned" and res["ranking"] == [] and end.shared == 0
    assert res["named"] == [[0, "seat 0 was timed out of its shuffle (it did not come in time; it could have come back "
                                "with easel resume): the deal cannot go on without it, no hand was dealt"]]
    # a disclosed secret that is not the key's is refused at once
    st = drive(3, SEED, secrets, stop=lambda s: s.stage == "disclose")
    with pytest.raises(IllegalAction, match="does not match its key"):
        GAME.check(st, 0, {"secret": secrets[1]})
    assert GAME.result(st) is None     # not over (nor complete) before the disclosure


def _proofs_broken(monkeypatch):
    """What a cheat would need to pass a wrong shuffle (probability < 2^-245 per try, docs/deal.md §4):
    here every shuffle proof is taken as verified, so the deck-fault rules can be exercised."""
    monkeypatch.setattr(dealt, "_proof_problem", lambda *a: None)


def test_a_proven_deck_fault_stops_the_game_and_the_disclosure_names_the_shuffler(monkeypatch):
    _proofs_broken(monkeypatch)
    secrets = [secret_of(s) for s in range(3)]

    def tamper(state, seat, action):
        if state.stage == "shuffle" and seat == 2:
            deck = list(action["deck"])
            # position 1 (seat 0's) opens to no card: its C2 shifted by G
            ct = deck[1]
            deck[1] = ct[:32] + deal._add(ct[32:], deal.G)
            return dict(action, deck=deck)
        return action

    seen = []
    st = drive(3, SEED, secrets, tamper=tamper, stop=lambda s: seen.append(s.fault) or False)
    assert any(f.startswith("seat 0 proved a deck fault at position(s) [1]") for f in seen)
    res = GAME.result(st)
    assert res["status"] == "cheating" and [s for s, _ in res["named"]] == [2]
    assert res["ranking"][-1] == 2 and 2 not in res["winners"]   # proven by its own secret: ranked last
    assert st.ms.round == 1 and st.ms.phase == "play"   # stopped before any card was played


def test_a_card_whose_twin_was_played_is_never_offered_and_proves_a_deck_fault(monkeypatch):
    """deal.md §4: a duplicate is a deck fault, never an offered-then-refused move."""
    _proofs_broken(monkeypatch)
    secrets = [secret_of(s) for s in range(3)]
    n0 = None

    def tamper(state, seat, action):
        nonlocal n0
        if state.stage == "shuffle" and seat == 2:
            # seat 1's first position becomes a re-randomised copy of seat 0's first position: twins
            h0, h1 = state.ms.hands[0][0], state.ms.hands[1][0]
            n0 = (h0, h1)
            return dict(action, deck=copy_cheat(action["deck"], dealt._joint(state.keys), h0, h1))
        if n0 is not None and state.stage == "play" and state.ms.phase == "play" and seat == 0 \
                and n0[0] in state.ms.hands[0] and n0[1] in state.ms.hands[1]:
            # seat 0 auctions its twin as soon as it is on turn (seat 1, on its left, is next)
            plays = [a for a in GAME.legal_actions(state, seat, secrets[seat])
                     if a.get("do") == "play" and a.get("pos") == n0[0] and not a.get("double")]
            if plays:
                return GAME.seal_action(state, seat, plays[0], secrets[seat])
        if isinstance(action, dict) and action.get("do") == "fault":
            # the random bot may prove the fault the first time it is asked (say, to bid in seat 0's
            # auction): here it waits for its own card turn, where the test looks at what it is offered
            return GAME.seal_action(state, seat, next(a for a in GAME.legal_actions(state, seat, secrets[seat])
                                                      if a.get("do") != "fault"), secrets[seat])
        return action

    def twin_played(state):
        if state.stage != "play" or state.ms.phase != "play" or n0 is None:
            return False
        actor = state.ms.actor
        if actor not in (0, 1) or n0[actor] not in state.ms.hands[actor]:
            return False
        card = dealt.known_cards(state, actor, secrets[actor]).get(n0[actor])   # the twin still held
        return card is not None and card in state.ms.revealed

    st = drive(3, SEED, secrets, tamper=tamper, stop=twin_played)
    assert twin_played(st), (st.stage, st.status, st.named, st.ms.phase)
    holder = st.ms.actor
    pos = n0[holder]
    assert pos in st.ms.hands[holder]          # the actor still holds the twin of the played card
    known = dealt.known_cards(st, holder, secrets[holder])
    assert known[pos] in st.ms.revealed
    legal = GAME.legal_actions(st, holder, secrets[holder])
    plays = [a for a in legal if a.get("do") == "play"]
    assert plays and all(a["pos"] != pos and (a["double"] or {}).get("pos") != pos for a in plays)
    assert pos not in [c["pos"] for c in GAME.view(st, holder, secrets[holder]).get("cards", [])]
    assert GAME.view(st, holder, secrets[holder])["deal"]["dead"] == [[pos, known[pos]]]
    assert "dead" not in GAME.view(st, holder)["deal"]
    fault = [a for a in legal if a.get("do") == "fault"]
    assert len(fault) == 1 and [i[0] for i in fault[0]["fault"]] == [pos]
    assert GAME.check(st, holder, fault[0]) == fault[0]
    # a false claim (a live card of the hand) is refused like any illegal move: nothing happens
    live = next(p for p in st.ms.hands[holder] if p != pos and p < st.shared)
    D, proof = deal.share(secrets[holder], st.deck[live], st.gid, holder, live)
    with pytest.raises(IllegalAction, match="deck fault is not proven: positions \\[%d\\] open to distinct cards" % live):
        GAME.check(st, holder, {"do": "fault", "fault": [[live, D, proof]]})
    # another seat, not on its turn, cannot claim
    other = 2
    with pytest.raises(IllegalAction, match="on one's own turn"):
        GAME.check(st, other, {"do": "fault", "fault": fault[0]["fault"]})
    # the proven fault stops the game; the disclosure names the shuffler
    st = GAME.apply(st, holder, GAME.check(st, holder, fault[0]))
    assert st.stage == "disclose" and st.fault == "seat %d proved a deck fault at position(s) [%d]" % (holder, pos)
    for s in range(3):
        st = GAME.apply(st, s, GAME.auto_action(st, s, secrets[s]))
    res = GAME.result(st)
    assert res["status"] == "cheating" and [s for s, _ in res["named"]] == [2]
