"""Fault injection for tests (p2p/faults.py): the fate of each outbound frame, seeded per seat."""

from __future__ import annotations

from p2p.faults import Faults, Injector


def _fates(f: Faults | None, seat: int = 0, n: int = 200) -> list:
    inj = Injector(f, seat)
    return [inj.fate() for _ in range(n)]


def test_without_faults_every_frame_goes_once_now():
    assert set(_fates(None)) == {(1, None)}
    assert set(_fates(Faults())) == {(1, None)}


def test_drop_dup_and_reorder_each_do_their_one_thing():
    assert set(_fates(Faults(drop=1.0))) == {(0, None)}
    assert set(_fates(Faults(dup=1.0))) == {(2, None)}
    held = _fates(Faults(reorder=1.0, delay=0.05))
    assert all(copies == 0 and 0 <= d <= 0.05 for copies, d in held)
    assert len({d for _, d in held}) > 100           # the delays are spread, not one value
    both = _fates(Faults(dup=1.0, reorder=1.0))      # one copy now, one later (a delay of at most 1 ms)
    assert all(copies == 1 and 0 <= d <= 0.001 for copies, d in both)


def test_the_fates_are_the_seeds_and_differ_between_seats():
    f = Faults(drop=0.2, dup=0.2, reorder=0.3, delay=0.01, seed=7)
    assert _fates(f, seat=1) == _fates(f, seat=1)
    assert _fates(f, seat=1) != _fates(f, seat=2)
    kinds = {(c, d is not None) for c, d in _fates(f, seat=1, n=500)}
    assert {(0, False), (1, False), (2, False), (0, True), (1, True)} <= kinds


def test_the_faults_are_read_from_the_environment(monkeypatch):
    monkeypatch.delenv("EASEL_FAULTS", raising=False)
    assert Faults.from_env() is None
    monkeypatch.setenv("EASEL_FAULTS", "drop=0.1, dup=0.2,reorder=0.3,delay=0.05,seed=7,other=1")
    assert Faults.from_env() == Faults(drop=0.1, dup=0.2, reorder=0.3, delay=0.05, seed=7)
