"""Four corners a second implementation found silent (issue 33; protocol.md §7.1, §11, §12.3
decisions 26-27, §12.4), each decided and pinned here:

1. a Modern Art choice naming its card is never in a log: the table's ``check`` refuses it, and
   honest peers sign positions only (their ``seal_action`` turns the card-id form into that);
2. ``{"do": "fault"}`` on a turn: which steps take it, every share checked first, a false claim
   refused like any illegal move;
3. a main log with a problem of its own (a torn tail, a refused entry) is not searched for
   evidence, not even its valid prefix: the evidence lists are empty and ``results`` is null;
4. ``unfollowed``: certificates held in spools only, for a step the log closed, naming a seat that
   step expected, beating how the log closed it, valid; the best per phase, sorted by phase.
"""

from __future__ import annotations

import re

import pytest

from core import audit as audit_mod
from core import deal
from core import games as registry
from core.engine import IllegalAction
from core.events import Event, Timeout, make_event, make_timeout, parse_entry, vote_sign_msg
from core.games.modern_art import dealt
from core.games.modern_art.game import MODERN_ART as GAME
from core.logfile import LOG_MAGIC, SPOOL_MAGIC

from .netutil import Sim
from .test_evidence import cut_victim
from .test_false_timeouts import VICTIM, file_bytes
from .test_private import SEED, drive, secret_of

NAMES_A_CARD = "a card play or an add names its deck positions only, no card"


def audit(files: dict) -> dict:
    return audit_mod.audit(files, registry)


def parsed(entries: list) -> list:
    return [parse_entry(raw, verify=False) for raw in entries]


# --------------------------------------------------------------------------- 1. the choice's form
def test_a_logged_choice_that_names_its_card_is_refused_and_no_honest_peer_signs_one():
    # the game: the card-id form a screen or a bot chooses is sealed into positions; check refuses it
    secrets = [secret_of(s) for s in range(3)]
    st = drive(3, SEED, secrets, stop=lambda s: s.stage == "play" and s.ms.phase == "play")
    seat = st.ms.actor
    known = dealt.known_cards(st, seat, secrets[seat])
    pos = next(p for p in sorted(known) if p not in dealt.dead_positions(st, seat, known))
    chosen = {"do": "play", "pos": pos, "card": known[pos], "double": None}
    assert GAME.seal_action(st, seat, chosen, secrets[seat]) == {"do": "play", "pos": pos, "double": None}
    with pytest.raises(IllegalAction, match=NAMES_A_CARD):
        GAME.check(st, seat, chosen)
    assert GAME.problems(st, seat, chosen) and NAMES_A_CARD in GAME.problems(st, seat, chosen)[0]
    # a claim the rules refuse gets the rules' reason first (what a screen explains)
    theirs = st.ms.hands[(seat + 1) % 3][0]
    with pytest.raises(IllegalAction, match="not in your hand"):
        GAME.check(st, seat, {"do": "play", "pos": theirs, "card": known[pos], "double": None})

    # the table: a real game's log holds positions only; the same choice re-signed with its (true)
    # card id is refused by the audit at that entry
    sim = Sim(3, seed=7, game="modern-art", timeout=600.0, tag="corners-choice")
    sim.start()

    def opened() -> int | None:
        for i, e in enumerate(parsed(sim.peers[0].log_entries)):
            if type(e) is Event and e.kind == "act" and isinstance(e.body["action"], dict) \
                    and "open" in e.body["action"]:
                return i
        return None

    sim.run_until(lambda: opened() is not None, max_rounds=200_000)
    entries = list(sim.peers[0].log_entries)
    at = opened()
    choices = [e for e in parsed(entries) if type(e) is Event and e.kind == "act"
               and isinstance(e.body["action"], dict) and e.body["action"].get("do") in ("play", "add")]
    assert choices and all("card" not in e.body["action"] and "card" not in (e.body["action"].get("double") or {})
                           for e in choices)
    choice, shown = parsed(entries)[at - 1], parsed(entries)[at]
    assert choice.body["action"]["do"] == "play" and choice.author == shown.author
    rep = audit({"log": file_bytes(LOG_MAGIC, entries[:at + 1])})
    assert rep["valid"] and rep["problems"] == []
    seat = sim.keys.index(choice.author)
    card = shown.body["action"]["open"][0][1]
    action = dict(choice.body["action"], card=card)
    if action["double"] is not None:
        action["double"] = dict(action["double"], card=shown.body["action"]["open"][1][1])
    named = make_event(sim.ids[seat].sign, sim.genesis.game_id, choice.author, choice.seq, choice.prev, "act",
                       dict(choice.body, action=action))
    rep = audit({"log": file_bytes(LOG_MAGIC, entries[:at - 1] + [named.raw])})
    assert not rep["valid"] and rep["results"] is None
    assert [(p["index"], p["problem"][:len("illegal move by seat %d: " % seat) + len(NAMES_A_CARD)])
            for p in rep["problems"]] == [(at - 1, "illegal move by seat %d: %s" % (seat, NAMES_A_CARD))]


# --------------------------------------------------------------------------- 2. a deck fault on a turn
def test_a_deck_fault_on_a_turn_checks_every_share_first_and_a_false_one_is_refused(monkeypatch):
    secrets = [secret_of(s) for s in range(3)]
    st = drive(3, SEED, secrets, stop=lambda s: s.stage == "play" and s.ms.phase == "play"
               and len(s.ms.hands[s.ms.actor]) >= 2)
    seat = st.ms.actor
    hand = [p for p in st.ms.hands[seat] if p < st.shared]
    items = [[p, *deal.share(secrets[seat], st.deck[p], st.gid, seat, p)] for p in hand[:2]]
    # honest cards: a claim proves nothing and is refused like any illegal move
    with pytest.raises(IllegalAction, match=re.escape("seat %d's deck fault is not proven: positions %s open to "
                                                      "distinct cards not yet played: no fault" % (seat, [i[0] for i in items]))):
        GAME.check(st, seat, {"do": "fault", "fault": items})
    # form: exactly do and fault, at least one position, ascending, of the seat's dealt hand
    for bad, words in [({"do": "fault", "fault": []}, "distinct positions of your own dealt hand"),
                       ({"do": "fault", "fault": items[::-1]}, "distinct positions of your own dealt hand"),
                       ({"do": "fault", "fault": items, "x": 1}, "exactly do, fault")]:
        with pytest.raises(IllegalAction, match=words):
            GAME.check(st, seat, bad)
    # only the seat asked, on its turn
    with pytest.raises(IllegalAction, match="on one's own turn"):
        GAME.check(st, (seat + 1) % 3, {"do": "fault", "fault": items})
    # every share is checked before anything is opened: a position that opens to no card does not
    # carry a later share that does not verify (before, the check stopped at the first proof)
    monkeypatch.setattr(dealt, "_table", lambda gid: {})          # no position opens to a card now
    assert GAME.check(st, seat, {"do": "fault", "fault": items})["fault"] == items
    forged = [items[0], [items[1][0], items[1][1], bytes(64)]]
    with pytest.raises(IllegalAction, match="the share for position %d does not verify" % items[1][0]):
        GAME.check(st, seat, {"do": "fault", "fault": forged})
    # a proven one stops the game at once: the disclosure, the rules' state as it was
    w = GAME.apply(st, seat, GAME.check(st, seat, {"do": "fault", "fault": items}))
    assert w.stage == "disclose" and w.pending == (0, 1, 2) and w.ms is st.ms
    assert w.fault == "seat %d proved a deck fault at position(s) %s" % (seat, [i[0] for i in items])


# --------------------------------------------------------------------------- 3 and 4: the audit's evidence
@pytest.fixture(scope="module")
def victim():
    """Painting, 3 seats: seats 0 and 2 cut seat 1's first decided move (a commit step) with a
    certificate; seat 1's files hold the cut move.  (sim, the step, the cut event, log, spool)."""
    sim, st, mine = cut_victim()
    return sim, st, mine, list(sim.disks[VICTIM].log), list(sim.disks[VICTIM].spool)


def test_a_damaged_main_log_gets_no_evidence_and_no_results(victim):
    sim, st, mine, log, spool = victim
    sound = audit({"log": file_bytes(LOG_MAGIC, log), "spool": file_bytes(SPOOL_MAGIC, spool)})
    assert sound["valid"] and sound["results"] is not None
    assert [(c["seat"], c["phase"], c["seq"]) for c in sound["cut_moves"]] == [(VICTIM, st.phase, mine.seq)]
    certs = sound["certificates"]
    assert [(c["phase"], c["seats"]) for c in certs] == [(st.phase, [VICTIM])]

    def damaged(files: dict) -> dict:
        rep = audit(dict(files, spool=file_bytes(SPOOL_MAGIC, spool)))
        assert not rep["valid"] and rep["results"] is None
        assert all(rep[k] == [] for k in ("cut_moves", "signed_afterwards", "illegal", "unfollowed"))
        return rep

    # a torn tail: every entry before it replays to the game's end, yet nothing is searched
    rep = damaged({"log": file_bytes(LOG_MAGIC, log) + b"\x00\x00\x01"})
    assert rep["problems"][0]["problem"].startswith("torn record at the end of the file")
    assert rep["certificates"] == certs and rep["events"] == len(log)
    # ... even with a sound shorter copy of the game given too
    rep = damaged({"short": file_bytes(LOG_MAGIC, log[:-1]), "log": file_bytes(LOG_MAGIC, log) + b"\x00\x00\x01"})
    assert [p["file"] for p in rep["problems"]] == ["log"]
    # a refused entry: the certificates replayed before it are listed
    rep = damaged({"log": file_bytes(LOG_MAGIC, log + [log[-1]])})
    assert rep["problems"][0]["index"] == len(log) and rep["certificates"] == certs


def certificate(sim, phase: int, prev: bytes, seats: list, bad: bool = False) -> Timeout:
    gid = sim.genesis.game_id
    votes = [(k, sim.ids[k].sign(vote_sign_msg(gid, phase, prev, seats))) for k in range(sim.n) if k not in seats]
    if bad:
        votes[0] = (votes[0][0], bytes(64))
    return make_timeout(gid, phase, prev, seats, votes)


def test_unfollowed_certificates_come_from_spools_best_per_phase_naming_an_expected_seat(victim):
    sim, st, mine, log, spool = victim
    from core.table import replay

    t = replay(log, registry)
    reveal = st.phase + 1                 # the reveal step of the cut commit: seat 1 is not expected in it
    steps = {}
    for e in parsed(log)[1:]:
        if type(e) is Event:
            steps.setdefault(e.body["phase"], set()).add(sim.keys.index(e.author))
    assert VICTIM not in steps[reveal] and steps[reveal] == {0, 2}
    early = next(p for p in sorted(steps) if steps[p] == {0, 1, 2} and p < st.phase)   # closed by every seat's event
    late = next(p for p in sorted(steps) if steps[p] == {0, 1, 2} and p > reveal)
    prev = {p: t.starts[p][1] for p in (early, reveal, late, st.phase)}
    held = [
        certificate(sim, late, prev[late], [2]),                    # listed
        certificate(sim, early, prev[early], [2]),                  # beaten by the next one
        certificate(sim, early, prev[early], [0], bad=True),        # the best, but a vote does not verify
        certificate(sim, early, prev[early], [1]),                  # the best valid one: listed
        certificate(sim, early, prev[early], [1]),                  # the same again: counted once
        certificate(sim, reveal, prev[reveal], [VICTIM]),           # names no seat the step expected
        certificate(sim, st.phase, prev[st.phase], [1, 2]),         # worse than the log's own ([1])
        certificate(sim, early, b"\x07" * 32, [0]),                 # another step (prev) than the log's
    ]
    other_log = file_bytes(LOG_MAGIC, [log[0], certificate(sim, late, prev[late], [0]).raw])   # not a spool
    rep = audit({"other.log": other_log, "log": file_bytes(LOG_MAGIC, log),
                 "spool": file_bytes(SPOOL_MAGIC, spool + [c.raw for c in held])})
    first = len(spool)
    got = [(c["phase"], c["seats"], c["voters"], c["index"], c["seat"], c["file"]) for c in rep["unfollowed"]]
    assert got == [(early, [1], [0, 2], first + 3, None, "spool"), (late, [2], [0, 1], first, None, "spool")]
    assert "seats 0 and 2 signed a time-out certificate voting seat 1 out of phase %d that this log does not " \
           "follow" % early in rep["unfollowed"][0]["note"]
    # the certificates of the log itself are listed apart, as before
    assert [(c["phase"], c["seats"]) for c in rep["certificates"]] == [(st.phase, [VICTIM])]
