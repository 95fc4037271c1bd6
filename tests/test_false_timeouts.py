"""A false time-out is seen and named (protocol.md §6.5, "False time-outs seen").

Any half of a table can sign a time-out certificate against the other half, whether or
not those seats moved: a certificate is valid by its signatures alone, and certificates
win over events already received (§6.6).  The victim's move is then cut, but never
silently: the victim's own peer says so at once (and its screen), every peer that holds
the victim's signed move names it too, ``easel audit`` of the victim's files (its log and
the spool that keeps its own events) lists the cut move and who signed the certificate,
and so does the exported page.  Shown here with real peers, in memory, in every game.
"""

from __future__ import annotations

import pytest
from prompt_toolkit.output import DummyOutput

from cli.export import build_page
from cli.shell import GameUI
from core import audit as audit_mod
from core import games as registry
from core.encoding import encode
from core.events import make_timeout, vote_sign_msg
from core.logfile import LOG_MAGIC, SPOOL_MAGIC, encode_record
from core.rng import Rng
from core.table import Table

from .netutil import Sim

VICTIM = 1


def forged_certificate(sim: Sim, victim: int, st):
    """Every seat but ``victim`` signs a time-out of ``victim`` for step ``st``."""
    gid = sim.genesis.game_id
    voters = [k for k in range(sim.n) if k != victim]
    votes = [(k, sim.ids[k].sign(vote_sign_msg(gid, st.phase, st.prev, [victim]))) for k in voters]
    return make_timeout(gid, st.phase, st.prev, [victim], votes)


def watch_victim(sim: Sim) -> list:
    """The victim plays as its bot would; the first decided move it signs after the opening
    (not a seed or an automatic deal step) is recorded as (step, its event)."""
    moved: list = []

    def decide(view, seat, peer):
        st = peer.table.step
        if not moved and st.phase > 8:
            moved.append(st)
        return sim.bots[seat].choose(view, seat, Rng(bytes(32), "victim/%d" % st.phase))

    sim.decisions[VICTIM] = decide
    return moved


def file_bytes(magic: bytes, entries: list) -> bytes:
    return magic + b"".join(encode_record(e) for e in entries)


@pytest.mark.parametrize("game,n", [("painting", 3), ("starving-artists", 3), ("modern-art", 3)])
def test_a_forged_certificate_against_a_seat_that_moved_is_named_everywhere(game, n, tmp_path):
    sim = Sim(n, seed=3, game=game, timeout=600.0, tag="false-" + game)
    moved = watch_victim(sim)
    sim.start()
    sim.run_until(lambda: bool(moved), max_rounds=20_000)
    st = moved[0]
    mine = sim.peers[VICTIM].replica.held_in_step(VICTIM, st.phase, st.prev)
    assert mine is not None
    cert = forged_certificate(sim, VICTIM, st)
    for k in range(n):          # the coalition hands its certificate to everyone at once
        if k != VICTIM:
            sim.run(k, sim.peers[k].receive(sim.keys[(k + 1) % n if (k + 1) % n != VICTIM else (k + 2) % n],
                                            encode(["entry", cert.raw])))
    sim.run(VICTIM, sim.peers[VICTIM].receive(sim.keys[0], encode(["entry", cert.raw])))
    sim.run_until(max_rounds=200_000)
    voters = [k for k in range(n) if k != VICTIM]

    # every log agrees, and the step was closed by the certificate without the victim's move
    logs = [p.log_entries for p in sim.peers]
    assert all(lg == logs[0] for lg in logs)
    assert sim.peers[0].table.timeouts.get(st.phase) == (VICTIM,)
    assert mine.raw not in logs[0]

    # the victim's peer says so at once, with who and when
    cut = sim.peers[VICTIM].cut_moves[(st.phase, VICTIM)]
    assert cut["seq"] == mine.seq and cut["voters"] == voters
    said = [a for a in sim.alerts(VICTIM) if a.startswith("your signed move for phase %d (" % st.phase)]
    assert said and "did not reach seats 0 and 2 before they voted it out, or they voted anyway" in said[0], sim.alerts(VICTIM)
    assert not [a for a in sim.alerts(VICTIM) if "although" in a or "did not move" in a]

    # a peer that holds the victim's signed move names it too, in the same words
    others = [a for k in voters for a in sim.alerts(k)
              if a.startswith("seat %d's signed move for phase %d (" % (VICTIM, st.phase))]
    assert others and all("did not reach seats 0 and 2 before they voted it out, or they voted anyway" in a
                          for a in others), [sim.alerts(k) for k in voters]

    # easel audit of the victim's files (log + spool) lists the cut move and the signers
    files = {"log": file_bytes(LOG_MAGIC, sim.disks[VICTIM].log), "spool": file_bytes(SPOOL_MAGIC, sim.disks[VICTIM].spool)}
    rep = audit_mod.audit(files, registry)
    assert rep["valid"] and rep["complete"], rep["problems"]
    found = [c for c in rep["cut_moves"] if c["phase"] == st.phase]
    assert found == [dict(found[0], seat=VICTIM, seq=mine.seq, voters=voters, file="spool")]
    assert any("did not reach seats 0 and 2 before they voted it out, or they voted anyway" in x["note"]
               and x["seat"] == VICTIM for x in rep["notes"])
    assert not [x for x in rep["notes"] if "although" in x["note"]]
    # the log alone cannot show it: the spool is the evidence
    assert audit_mod.audit({"log": files["log"]}, registry)["cut_moves"] == []

    # the exported page shows it, beside the log's own verdict
    (tmp_path / "log").write_bytes(files["log"])
    (tmp_path / "spool").write_bytes(files["spool"])
    page = build_page(str(tmp_path / "log"), files["log"], None)
    assert 'id="cut-moves"' in page and "Disputed: signed moves voted out by a time-out certificate (1)" in page
    assert "seat %d&#x27;s signed move for phase %d" % (VICTIM, st.phase) in page
    assert "although" not in page

    # and the victim's screen words it as what it was, not "your move was not sent in time"
    ui = GameUI(VICTIM, output=DummyOutput())
    ui.update(Table.start(sim.genesis, registry), [], "")
    ui.update(sim.peers[VICTIM].table, [], "", cut=sim.peers[VICTIM].cut_moves)
    text = " ".join(ui.render_text().split())
    assert "Voted out: your signed move for phase %d" % st.phase in text
    assert "did not reach seats 0 and 2 before they voted it out, or they voted anyway" in text
    assert "your move was not sent in time" not in text and "did not move in time" not in text
    assert "although" not in text


def test_an_honest_time_out_of_a_seat_that_never_moved_names_no_cut_move():
    sim = Sim(3, seed=4, game="painting", timeout=5.0, tag="honest-timeout")
    sim.silent.add(VICTIM)
    sim.start()
    sim.run_until(lambda: bool(sim.peers[0].table.timeouts), max_rounds=20_000)
    assert all(p.cut_moves == {} for p in sim.peers)
    files = {"log": file_bytes(LOG_MAGIC, sim.disks[VICTIM].log), "spool": file_bytes(SPOOL_MAGIC, sim.disks[VICTIM].spool)}
    assert audit_mod.audit(files, registry)["cut_moves"] == []
