"""Test-wide safety: loopback-only discovery and a private EASEL_HOME per test."""

import pytest


@pytest.fixture(autouse=True)
def _isolate(monkeypatch, tmp_path):
    monkeypatch.setenv("EASEL_ZEROCONF_INTERFACES", "127.0.0.1")
    monkeypatch.setenv("EASEL_HOME", str(tmp_path / "easel-home"))
    monkeypatch.delenv("EASEL_FAULTS", raising=False)
