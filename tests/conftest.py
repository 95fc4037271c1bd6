"""Test-wide safety: loopback-only discovery and a private EASEL_HOME per test."""

import os

import pytest
from hypothesis import settings


@pytest.fixture(autouse=True)
def _isolate(monkeypatch, tmp_path):
    monkeypatch.setenv("EASEL_ZEROCONF_INTERFACES", "127.0.0.1")
    monkeypatch.setenv("EASEL_HOME", str(tmp_path / "easel-home"))
    monkeypatch.delenv("EASEL_FAULTS", raising=False)


# CI replays the same hypothesis examples every run (a failure there is then
# reproducible); local runs keep exploring new ones.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
