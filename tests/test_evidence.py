"""Evidence that holds, and words that say what is known (issue 22; protocol.md §6.5 "False
time-outs seen", §11).

Measured before: ``easel audit GAME_DIR`` read the log only and said "timed out seats [1]" (the
DISPUTED lines needed ``easel audit DIR/log DIR/spool``); ``easel history`` said nothing of a
dispute; a seat that really timed out could sign, later, a move for that step with sequence number
500 into its spool and the audit printed DISPUTED, saying the honest voters "voted it out although
it moved"; a forged shuffle refused on arrival left no trace (the cheat read as "timed out of its
shuffle", like a crashed peer); the audit's text said nothing of an abandoned result's status.

Here, with the real peers in memory (tests/netutil.py ``Sim``) and the real ``easel`` command:
the audit of a game directory (and of ``last``) shows the dispute, ``easel history`` and the
exported page too; a backdated move is named as signed afterwards, not evidence; a forged shuffle
is alerted on arrival, kept in the spool (also across the spool's compaction at start) and named
by the audit and the export as its author's fault; every result shown names each certificate and
its status and named seats.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.export import build_page
from cli.history import audit_lines
from core import audit as audit_mod
from core import games as registry
from core.encoding import encode
from core.events import make_event, parse_entry
from core.evidence import chain_misfit, first_free
from core.logfile import LOG_MAGIC, SPOOL_MAGIC, encode_record, parse
from core.table import Timeout

from . import netutil
from .netutil import Sim
from core.rng import Rng

from .test_false_timeouts import VICTIM, file_bytes, forged_certificate

easel = netutil.easel


# --------------------------------------------------------------------------- helpers
def cut_victim(game: str = "painting", n: int = 3, step: str = "", names: list | None = None) -> tuple:
    """A coalition of every other seat cuts the victim's first decided move (in a step whose label
    holds ``step``) with a forged certificate; the game is played to its end.  (sim, the step, the
    victim's cut event).  ``names``: the seats' names in the genesis (none by default)."""
    sim = Sim(n, seed=3, game=game, timeout=600.0, tag="evidence-" + game, names=names)
    moved: list = []

    def decide(view, seat, peer):
        st = peer.table.step
        if not moved and st.phase > 8 and step in st.label:
            moved.append(st)
        return sim.bots[seat].choose(view, seat, Rng(bytes(32), "victim/%d" % st.phase))

    sim.decisions[VICTIM] = decide
    sim.start()
    sim.run_until(lambda: bool(moved), max_rounds=20_000)
    st = moved[0]
    mine = sim.peers[VICTIM].replica.held_in_step(VICTIM, st.phase, st.prev)
    assert mine is not None
    cert = forged_certificate(sim, VICTIM, st)
    for k in range(n):
        sim.run(k, sim.peers[k].receive(sim.keys[0 if k else 2], encode(["entry", cert.raw])))
    sim.run_until(max_rounds=200_000)
    return sim, st, mine


def game_dir(home: Path, sim: Sim, seat: int, extra_spool: tuple = ()) -> Path:
    """Seat ``seat``'s files as its peer left them, in ``home``'s games directory."""
    d = home / "games" / sim.genesis.game_id.hex()
    d.mkdir(parents=True, exist_ok=True)
    (d / "log").write_bytes(file_bytes(LOG_MAGIC, sim.disks[seat].log))
    (d / "spool").write_bytes(file_bytes(SPOOL_MAGIC, list(sim.disks[seat].spool) + list(extra_spool)))
    return d


def audit_dir(d: Path) -> dict:
    from cli.history import audit_targets, audit_with_spools

    names, beside = audit_targets([str(d)])
    return audit_with_spools({f: Path(f).read_bytes() for f in names}, beside)


# --------------------------------------------------------------------------- the chain rule
def test_a_move_fits_the_chain_only_between_the_seats_last_and_next_logged_events():
    # a later event in the log: strictly between
    assert chain_misfit(5, 4, 7) is None and chain_misfit(6, 4, 7) is None
    assert chain_misfit(500, 4, 7) == "sequence number 500; its next logged event has 7"
    assert chain_misfit(7, 4, 7) == "sequence number 7; its next logged event has 7"
    assert chain_misfit(4, 4, 7) == "sequence number 4; its last logged event before the step has 4"
    assert chain_misfit(2, 4, None) == "sequence number 2; its last logged event before the step has 4"
    # none later: exactly the first seq above the last not taken by the seat's other held events
    assert chain_misfit(5, 4, None) is None and chain_misfit(0, -1, None) is None
    assert "only 5 fits" in chain_misfit(6, 4, None)
    assert chain_misfit(6, 4, None, held={5}) is None          # an earlier cut move took 5
    assert "only 7 fits" in chain_misfit(500, 4, None, held={5, 6})
    assert first_free(4, {5, 6, 8}) == 7
    assert "none of its events is logged before the step" in chain_misfit(3, -1, None)


# --------------------------------------------------------------------------- the dispute, everywhere
def test_the_audit_of_a_game_directory_and_of_last_shows_the_dispute_and_history_says_so(tmp_path):
    sim, st, mine = cut_victim()
    home = tmp_path / "home"
    d = game_dir(home, sim, VICTIM)
    for arg in (str(d), "last"):
        r = easel("audit", arg, home=home)
        assert r.returncode == 0, r.stdout + r.stderr                 # valid and finished: a dispute is no problem
        assert r.stdout.startswith("VALID") and "\n  DISPUTED: 1 signed move(s)" in r.stdout, r.stdout
        assert ("seat 1's signed move for phase %d (" % st.phase) in r.stdout
        assert "did not reach seats 0 and 2 before they voted it out, or they voted anyway" in r.stdout
        assert "sequence number %d; signed, kept in %s entry" % (mine.seq, d / "spool") in r.stdout
        assert "although" not in r.stdout and "did not move" not in r.stdout
        # the certificate, with its step, whom it voted out and who signed it
        assert "time-out certificates (1)" in r.stdout and ": seats 0 and 2 voted seat 1 out" in r.stdout
    rep = json.loads(easel("audit", "--json", d, home=home).stdout)
    assert [(c["seat"], c["phase"], c["seq"], c["voters"]) for c in rep["cut_moves"]] == [(VICTIM, st.phase, mine.seq, [0, 2])]
    assert [(c["phase"], c["seats"], c["voters"], c["label"]) for c in rep["certificates"]] == [(st.phase, [1], [0, 2], st.label)]
    assert rep["signed_afterwards"] == [] and rep["illegal"] == []
    # the log alone cannot show it, and says where the evidence is
    r = easel("audit", d / "log", home=home)
    assert r.returncode == 0 and "DISPUTED" not in r.stdout
    assert "the spool beside %s was not read: `easel audit %s`" % (d / "log", d) in r.stdout
    # a spool torn by a crash is read up to its torn record: a note, not a problem
    with open(d / "spool", "ab") as f:
        f.write(b"\x00\x00\x01")
    r = easel("audit", d, home=home)
    assert r.returncode == 0 and r.stdout.startswith("VALID") and "DISPUTED" in r.stdout, r.stdout
    assert "the spool beside the log ends in a torn record" in r.stdout

    # easel history: a dispute word on the game's line, the dispute and the certificate below it
    r = easel("history", home=home)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    row = next(i for i, ln in enumerate(lines) if "painting" in ln)
    assert "DISPUTED: 1 signed move voted out" in lines[row]
    below = "\n".join(lines[row + 1:row + 5])
    assert "DISPUTED: seat 1's signed move for phase %d" % st.phase in below
    assert "time-out: phase %d (%s): seats 0 and 2 voted seat 1 out" % (st.phase, st.label) in below
    rows = json.loads(easel("history", "--json", home=home).stdout)
    assert rows[0]["disputed"] is True and len(rows[0]["cut_moves"]) == 1
    assert rows[0]["certificates"] == rep["certificates"]

    # the exported page: the dispute, and the certificate beside the result
    page = build_page(str(d / "log"), (d / "log").read_bytes(), None)
    assert 'id="cut-moves"' in page and 'id="certificates"' in page and "Time-out certificates (1)" in page
    assert "although" not in page


def test_a_move_signed_afterwards_for_a_step_the_seat_really_missed_is_named_not_disputed(tmp_path):
    sim = Sim(3, seed=6, game="painting", timeout=5.0, tag="evidence-afterwards")
    sim.silent.add(VICTIM)
    sim.start()
    sim.run_until(lambda: bool(sim.peers[0].table.certificates), max_rounds=20_000)
    sim.silent.discard(VICTIM)             # it comes back and plays on: its later events are in the log
    sim.run_until(max_rounds=50_000)
    rec = next(iter(sim.peers[0].table.certificates.values()))
    assert rec.seats == (VICTIM,) and rec.label.endswith(": commit")
    nxt = rec.next[VICTIM]
    assert all(p.cut_moves == {} for p in sim.peers)          # it never moved: nothing to dispute
    # afterwards, the seat signs a move for that step with sequence number 500 into its own spool
    key = sim.keys[VICTIM]
    forged = make_event(sim.ids[VICTIM].sign, sim.genesis.game_id, key, 500, rec.prev, "commit",
                        {"phase": rec.phase, "hash": bytes(32)})
    d = game_dir(tmp_path / "home", sim, VICTIM, extra_spool=(forged.raw,))
    rep = audit_dir(d)
    assert rep["valid"] and rep["complete"] and rep["cut_moves"] == []
    assert [(c["seat"], c["phase"], c["seq"], c["next"]) for c in rep["signed_afterwards"]] == [(VICTIM, rec.phase, 500, nxt)]
    note = rep["signed_afterwards"][0]["note"]
    assert note.startswith("a move seat 1 signed afterwards for phase %d (%s; sequence number 500; its next logged "
                           "event has %d; kept in " % (rec.phase, rec.label, nxt))
    assert note.endswith("): not evidence")
    text = "\n".join(audit_lines(rep))
    assert "DISPUTED" not in text and "NOT EVIDENCE: 1 move(s) were signed afterwards" in text and "although" not in text

    # the live peer words it the same way when such a move reaches it (a fresh seq, so it is taken)
    seq = max(sim.peers[0].replica.events[key]) + 1
    late = make_event(sim.ids[VICTIM].sign, sim.genesis.game_id, key, seq, rec.prev, "commit",
                      {"phase": rec.phase, "hash": bytes(32)})
    out = sim.run(0, sim.peers[0].receive(sim.keys[2], encode(["entry", late.raw])))
    said = [e.text for e in out if type(e).__name__ == "Alert"]
    assert said == ["a move seat 1 signed afterwards for phase %d (%s; sequence number %d; its next logged event has "
                    "%d): not evidence" % (rec.phase, rec.label, seq, nxt)], said
    assert sim.peers[0].cut_moves == {} and (rec.phase, VICTIM) in sim.peers[0].signed_afterwards


# --------------------------------------------------------------------------- an illegal event refused on arrival
CHEAT = 2


def forged_shuffle_game(names: list | None = None) -> tuple:
    """Modern Art, 3 seats: seat 2 signs a shuffle that passes its deck on without re-encrypting it
    (the rules refuse it on arrival); the others time it out.  (sim, the shuffle step).  ``names``:
    the seats' names in the genesis (none by default)."""
    sim = Sim(3, seed=5, game="modern-art", timeout=5.0, tag="forged-shuffle", names=names)
    peer = sim.peers[CHEAT]
    emit = peer._emit
    forged: list = []

    def cheat_emit(st, kind, body, _emit=emit):
        state = peer.table.state
        if kind == "act" and getattr(state, "stage", None) == "shuffle" and not forged:
            body = dict(body, action=dict(body["action"], deck=list(state.deck)))
            forged.append(st)
        return _emit(st, kind, body)

    peer._emit = cheat_emit
    sim.start()
    sim.run_until(max_rounds=5000)
    assert forged
    return sim, forged[0]


def test_a_forged_shuffle_refused_on_arrival_is_kept_as_evidence_and_named_as_its_authors_fault(tmp_path):
    sim, st = forged_shuffle_game()
    res = sim.peers[0].table.result()
    assert res["status"] == "abandoned" and sim.peers[0].table.timeouts == {st.phase: (CHEAT,)}
    bad = next(parse_entry(r) for r in sim.disks[0].spool
               if r not in sim.disks[0].log and not isinstance(parse_entry(r), Timeout)
               and parse_entry(r).author == sim.keys[CHEAT])
    # every honest peer says so once, on arrival, with the rules' reason
    for k in (0, 1):
        said = [a for a in sim.alerts(k) if "rules refuse" in a]
        assert said == ["seat 2 signed a move the rules refuse for phase %d (%s; sequence number %d): seat 2's "
                        "shuffled deck is refused: output position 0 keeps an input C1: not re-encrypted; it is kept "
                        "as evidence" % (st.phase, st.label, bad.seq)], sim.alerts(k)
        # and nobody calls the cheat's refused move a cut move
        assert sim.peers[k].cut_moves == {} and not [a for a in sim.alerts(k) if "did not reach" in a]

    # the spool keeps it, also across the compaction a starting node does
    from p2p import tls
    from p2p.node import GameNode
    from p2p.store import GameStore

    d = game_dir(tmp_path / "home", sim, 0)
    roster = {"certs": [tls.make_certificate(i) for i in sim.ids], "addrs": [["127.0.0.1", p] for p in netutil.free_ports(3)]}
    before = (d / "spool").stat().st_size
    store = GameStore(d)
    try:
        GameNode(sim.ids[0], sim.genesis, roster, store, None, timeout=5, games=registry)
    finally:
        store.close()
    kept = parse((d / "spool").read_bytes()).entries
    assert (d / "spool").stat().st_size < before            # compacted: what the log holds was dropped
    assert bad.raw in kept and not set(kept) & set(parse((d / "log").read_bytes()).entries)

    # the audit of the game directory names it, with the rules' reason
    rep = audit_dir(d)
    assert rep["valid"] and rep["complete"] and rep["cut_moves"] == []
    assert [(c["seat"], c["phase"], c["seq"]) for c in rep["illegal"]] == [(CHEAT, st.phase, bad.seq)]
    assert rep["illegal"][0]["reason"] == "seat 2's shuffled deck is refused: output position 0 keeps an input C1: not re-encrypted"
    r = easel("audit", d)
    assert r.returncode == 0 and "FAULT: 1 signed move(s) the rules refuse" in r.stdout, r.stdout
    assert "seat 2 signed an illegal move for phase %d (%s; sequence number %d; signed, kept in %s entry" % (
        st.phase, st.label, bad.seq, d / "spool") in r.stdout
    # the result: its status, the seat it names and the certificate, in the text too
    assert "    status: abandoned" in r.stdout
    assert "    seat 2 named: seat 2 was timed out of its shuffle" in r.stdout
    assert "time-out certificates (1)" in r.stdout and "seats 0 and 1 voted seat 2 out" in r.stdout
    # and the exported page
    page = build_page(str(d / "log"), (d / "log").read_bytes(), None)
    assert 'id="illegal"' in page and "seat 2 signed an illegal move for phase %d" % st.phase in page
    assert 'id="status"' in page and "status: abandoned" in page
    # the log alone: only the time-out (the spool is the evidence)
    alone = audit_mod.audit({"log": (d / "log").read_bytes()}, registry)
    assert alone["illegal"] == [] and alone["certificates"] == rep["certificates"]


def test_an_event_with_a_bad_signature_in_the_spool_names_no_one(tmp_path):
    sim, st = forged_shuffle_game()
    spool = []
    for r in sim.disks[0].spool:
        e = parse_entry(r, verify=False)
        if not isinstance(e, Timeout) and e.author == sim.keys[CHEAT] and r not in sim.disks[0].log:
            r = r[:-64] + bytes(64)          # its signature broken
        spool.append(r)
    files = {"log": file_bytes(LOG_MAGIC, sim.disks[0].log), "spool": file_bytes(SPOOL_MAGIC, spool)}
    rep = audit_mod.audit(files, registry)
    assert rep["illegal"] == [] and rep["cut_moves"] == []


@pytest.mark.parametrize("game,step", [("painting", ""), ("modern-art", "auctions a painting")])
def test_the_victims_screen_never_says_it_did_not_move(game, step):
    from prompt_toolkit.output import DummyOutput

    from cli.shell import GameUI
    from core.table import Table

    sim, st, _ = cut_victim(game, step=step)
    ui = GameUI(VICTIM, output=DummyOutput())
    ui.update(Table.start(sim.genesis, registry), [], "")
    ui.update(sim.peers[VICTIM].table, [], "", cut=sim.peers[VICTIM].cut_moves)
    text = " ".join(ui.render_text().split())
    assert "Voted out: your signed move for phase %d" % st.phase in text
    for wrong in ("did not move in time", "counted as no move", "(timed out)", "although", "not sent in time"):
        assert wrong not in text, wrong
    # its event log says what happened to its move, nothing else about it
    from cli.screens import plain_label

    log = [t for _, t in ui._snap.log]
    said = [t for t in log if "time-out" in t or "voted out" in t]
    assert said and said[0].startswith("!   time-out: your signed move for %s did not reach seats 0 and 2 before they "
                                       "voted it out, or they voted anyway" % plain_label(st.label)), said
    for wrong in ("did not move in time", "counted as no move", "(timed out)", "although", "not sent in time"):
        assert not [t for t in log if wrong in t], wrong
    if game == "modern-art":    # the turn to auction it lost: said so, without a word of not moving
        assert [t for t in log if "seat 1 (you) loses the turn to auction: voted out (a time-out)" in t], log[-40:]
    # the result, when shown, names the certificate
    if sim.peers[VICTIM].table.over:
        assert "Time-out certificates (1)" in text and "seats 0 and 2 voted you out" in text


def test_the_audit_text_shows_every_results_status_and_named_seats():
    from cli.history import status_lines

    res = {"status": "withheld", "named": [[1, "withheld its share for position 0"]], "ranking": [0, 2, 1],
           "money": [10, 5, 3], "places": [1, 2, 3], "winners": [0]}
    assert status_lines(res) == ["status: withheld", "seat 1 named: withheld its share for position 0"]
    assert status_lines({"status": "complete", "named": [], "ranking": [0]}) == []
    assert status_lines({"ranking": [0, 1]}) == [] and status_lines(None) == []
    rep = {"valid": True, "complete": True, "game": "modern-art", "events": 9, "head": "00", "names": None,
           "problems": [], "notes": [], "results": res,
           "certificates": [{"index": 7, "phase": 5, "label": "the deal: shares", "seats": [1], "voters": [0, 2]}]}
    text = "\n".join(audit_lines(rep))
    assert "    status: withheld\n    seat 1 named: withheld its share for position 0\n" in text
    assert text.endswith("  time-out certificates (1): each says only that its signers voted the seats it names out "
                         "of one step; it blames and ranks no one by itself\n"
                         "    entry 7: phase 5 (the deal: shares): seats 0 and 2 voted seat 1 out")


def test_an_abandoned_modern_art_game_over_screen_says_so_and_names_the_seat():
    """Issue 22 item 7: the game-over table of an abandoned game said "the screens are lifted: most money
    wins" over no rows; it now says the game is abandoned, nobody ranked, and whom the result names."""
    from cli.screens.modern_art import ModernArtScreen, result_lines

    res = {"status": "abandoned", "named": [[1, "timed out of its deal key"]], "money": [100] * 3, "rounds": 0,
           "ranking": [], "places": [None] * 3, "winners": []}
    text = ["".join(t for _, t in line) for line in result_lines(res, 0, 100, ("Ann", "Bob", "Cy"))]
    assert text == ["GAME OVER - abandoned: the deal could not go on, nobody is ranked, nobody wins",
                    "  Bob: timed out of its deal key"]
    assert "most money wins" not in "\n".join(text)
    over = dict(res, status="not disclosed", ranking=[0, 2, 1], places=[1, 3, 2], winners=[0], money=[120, 80, 100])
    text = ["".join(t for _, t in line) for line in result_lines(over, 0, 100, ("Ann", "Bob", "Cy"))]
    assert text[1:3] == ["  status: not disclosed", "  Bob: timed out of its deal key"] and "winner" in text[3]

    from cli.screens import Context, Snapshot
    snap = Snapshot(seat=0, players=3, view=None, phase=0, step_kind=None, step_purpose=None, step_label="",
                    step_seats=(), missing=(), over=True, result=res, log=(), moves=0, entries=0,
                    game_name="modern-art", names=())
    assert "abandoned" in ModernArtScreen().final_words(Context(seat=0, snap=snap))
    # the audit says the status and the named seat once, in its own words
    rep = {"valid": True, "complete": True, "game": "modern-art", "events": 9, "head": "00", "names": None,
           "problems": [], "notes": [], "results": res, "certificates": []}
    lines = audit_lines(rep)
    assert lines[-3:] == ["    status: abandoned", "    seat 1 named: timed out of its deal key",
                          "    GAME OVER - abandoned: the deal could not go on, nobody is ranked, nobody wins"]
