"""Test-wide safety: loopback-only discovery and a private EASEL_HOME per test."""

import os

import pytest
from hypothesis import settings


def _tmpfs(path: str) -> bool:
    """Is ``path`` a writable tmpfs mount (memory: fsync returns at once)?"""
    try:
        with open("/proc/self/mounts") as f:
            mounted = any(line.split()[1:3] == [path, "tmpfs"] for line in f)
    except OSError:
        return False
    return mounted and os.access(path, os.W_OK | os.X_OK)


# Every peer fsyncs before it sends or acknowledges (protocol.md), and a test's peers keep their files under
# tmp_path: on a disk each fsync costs milliseconds (about 5 ms on the 2-core CI machine), which the tests
# with several peers in one process pay in series, thousands of times. What they check never depends on
# the data reaching the platter (a crash is a SIGKILL or a torn file, never a power cut), so their files
# live in memory when the machine has a tmpfs at /dev/shm. PYTEST_DEBUG_TEMPROOT (pytest's own setting,
# read when the first tmp_path is made) or --basetemp set by hand win.
if "PYTEST_DEBUG_TEMPROOT" not in os.environ and _tmpfs("/dev/shm"):
    os.environ["PYTEST_DEBUG_TEMPROOT"] = "/dev/shm"


def _keep_bytecode() -> None:
    """The tests start thousands of ``python -m cli`` processes (every peer, every command a test runs), each
    importing some 30,000 lines of our own code. Where bytecode may not be written (PYTHONDONTWRITEBYTECODE, set
    in the environment of the machines this suite runs on) each of them compiled all of it again: about 0.1 s of
    CPU per process, minutes per run on 2 cores. The processes the tests start (and this one) keep their
    bytecode in a cache outside the tree instead (PYTHONPYCACHEPREFIX, Python's own setting: a file is compiled
    once per machine, and again whenever its source changes, as always); a cache prefix set by hand wins.
    Nothing a test checks depends on where Python keeps its bytecode."""
    import sys
    import tempfile

    prefix = os.environ.get("PYTHONPYCACHEPREFIX")
    if not prefix:
        root = "/dev/shm" if _tmpfs("/dev/shm") else tempfile.gettempdir()
        prefix = os.path.join(root, "easel-pycache-%d" % os.getuid())
        os.environ["PYTHONPYCACHEPREFIX"] = prefix
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.pycache_prefix = prefix
    sys.dont_write_bytecode = False


_keep_bytecode()


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
