"""The CLI's safety findings (issue 9): --seed refused outside demos (5), a full disk at start-up and
bots' errors made visible (6), and ``easel resume`` of an ``easel play`` game bringing its bots back (8)."""

from __future__ import annotations

import errno
import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.logfile import parse as parse_log
from p2p import tls
from p2p.identity import Identity
from p2p.node import GameNode, load_roster
from p2p.store import GameStore, StoreError, remove_temp_files, write_atomic

from .netutil import free_ports, make_table, wait_for

ROOT = Path(__file__).resolve().parent.parent


def easel(*args, home: Path, timeout: float = 30, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, EASEL_HOME=str(home))
    env.pop("EASEL_FAULTS", None)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "cli", *map(str, args)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def spawn(args, home: Path, env_extra: dict | None = None) -> subprocess.Popen:
    env = dict(os.environ, EASEL_HOME=str(home))
    env.pop("EASEL_FAULTS", None)
    env.update(env_extra or {})
    return subprocess.Popen([sys.executable, "-m", "cli", *map(str, args)], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def records(path: Path) -> int:
    try:
        return len(parse_log(path.read_bytes()).entries)
    except OSError:
        return 0


# --------------------------------------------------------------------------- finding 5: --seed
SEEDED = [
    ["host", "--seed", "s", "--auto", "random", "--bind", "127.0.0.1", "--no-advertise"],
    ["bot", "--join", "127.0.0.1:5000", "--seed", "s"],
    ["resume", "/nonexistent/game", "--level", "random", "--seed", "s"],
]


@pytest.mark.parametrize("args", SEEDED, ids=["host", "bot", "resume"])
def test_seed_is_refused_without_unsafe_seed(args, tmp_path):
    r = easel(*args, home=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "--unsafe-seed" in r.stderr and "sealed move" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "games").exists()   # refused before anything started


@pytest.mark.parametrize("cmd", ["host", "bot", "resume"])
def test_help_says_plainly_that_seed_is_unsafe(cmd, tmp_path):
    r = easel(cmd, "--help", home=tmp_path)
    assert r.returncode == 0
    text = " ".join(r.stdout.split())
    assert "--seed" in text and "UNSAFE" in text and "--unsafe-seed" in text
    assert "compute every sealed bid" in text


def test_demo_help_says_its_moves_are_not_secret(tmp_path):
    r = easel("demo", "--help", home=tmp_path)
    assert r.returncode == 0 and "nothing sealed is secret" in " ".join(r.stdout.split())


def test_unsafe_seed_game_runs_and_warns(tmp_path):
    """With --unsafe-seed a seeded host and bot play a whole game, each warning about it (log line and alert)."""
    port = free_ports(1)[0]
    host = spawn(["host", "--players", "2", "--port", port, "--auto", "random", "--seed", "s", "--unsafe-seed",
                  "--bind", "127.0.0.1", "--no-advertise", "--timeout", "30"], tmp_path / "h0")
    bot = spawn(["bot", "--join", "127.0.0.1:%d" % port, "--level", "random", "--seed", "s", "--unsafe-seed"], tmp_path / "h1")
    outs = []
    try:
        for p in (host, bot):
            so, se = p.communicate(timeout=60)
            outs.append((p.returncode, so.decode(), se.decode()))
    finally:
        for p in (host, bot):
            if p.poll() is None:
                p.kill()
    for rc, so, se in outs:
        assert rc == 0, se
        assert json.loads(so.strip().splitlines()[-1])["over"] is True
        assert "UNSAFE SEED" in se


def test_unsafe_seed_puts_unsafe_in_the_ui_title(tmp_path, monkeypatch):
    import cli.shell
    from cli.runner import ui_factory_for

    made = {}

    class FakeUI:
        def __init__(self, seat, *, title, key=None, **kw):
            made["title"] = title

    monkeypatch.setenv("EASEL_HOME", str(tmp_path))
    monkeypatch.setattr(cli.shell, "GameUI", FakeUI)
    root = logging.getLogger()
    saved = list(root.handlers)
    try:
        ui_factory_for(unsafe=True)(node_seat=0)
        assert "UNSAFE SEED" in made["title"]
        ui_factory_for()(node_seat=0)
        assert "UNSAFE" not in made["title"]
    finally:
        for h in list(root.handlers):
            root.removeHandler(h)
            h.close()
        for h in saved:
            root.addHandler(h)
    assert "UNSAFE SEED" in (tmp_path / "easel.log").read_text()   # the warning line in the UI's log file


def test_check_seed_rules():
    import argparse

    from cli.common import UsageError, check_seed

    assert check_seed(argparse.Namespace(seed=None, unsafe_seed=False)) is False
    assert check_seed(argparse.Namespace(seed="x", unsafe_seed=True)) is True
    with pytest.raises(UsageError, match="--unsafe-seed"):
        check_seed(argparse.Namespace(seed="x", unsafe_seed=False))


# --------------------------------------------------------------------------- finding 6: a full disk at start-up
class FullDisk:
    """The disk holding ``root`` fills up: os.write and os.fsync on files under ``root`` fail with ENOSPC
    from the ``after``-th such call on (None: count the calls only)."""

    def __init__(self, monkeypatch, after: int | None, root: Path) -> None:
        self.after, self.calls, self.root = after, 0, str(root)
        real_write, real_fsync = os.write, os.fsync

        def gate(fd):
            try:
                where = os.readlink("/proc/self/fd/%d" % fd)
            except OSError:
                where = ""
            if not where.startswith(self.root):
                return   # another disk (e.g. TLS's in-memory file)
            self.calls += 1
            if self.after is not None and self.calls > self.after:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def write(fd, data):
            gate(fd)
            return real_write(fd, data)

        def fsync(fd):
            gate(fd)
            return real_fsync(fd)

        monkeypatch.setattr(os, "write", write)
        monkeypatch.setattr(os, "fsync", fsync)


@pytest.fixture
def table():
    ids = [Identity.generate() for _ in range(2)]
    genesis = make_table(ids, timeout=30, nonce=os.urandom(8))
    roster = {"certs": [tls.make_certificate(i) for i in ids], "addrs": [["127.0.0.1", p] for p in free_ports(2)]}
    return ids, genesis, roster


def start_up(ids, genesis, roster) -> None:
    """What `easel host/bot/resume` do with the disk before the game runs: open the game's directory,
    write the roster, start the node (which writes the genesis)."""
    from cli.home import open_store

    store = open_store(genesis, roster)
    try:
        GameNode(ids[0], genesis, roster, store, None, timeout=30)
    finally:
        store.close()


def test_disk_full_at_any_point_of_start_up_leaves_no_temp_file(table, tmp_path, monkeypatch):
    from cli.home import game_dir

    ids, genesis, roster = table
    monkeypatch.setenv("EASEL_HOME", str(tmp_path / "count"))
    with monkeypatch.context() as m:
        counter = FullDisk(m, None, tmp_path)
        start_up(ids, genesis, roster)
    total = counter.calls
    assert total >= 4
    for k in range(total):
        home = tmp_path / ("k%d" % k)
        monkeypatch.setenv("EASEL_HOME", str(home))
        with monkeypatch.context() as m:
            FullDisk(m, k, tmp_path)
            with pytest.raises(StoreError, match="disk full"):
                start_up(ids, genesis, roster)
        gdir = game_dir(genesis)
        left = sorted(p.name for p in gdir.iterdir()) if gdir.exists() else []
        assert not [n for n in left if n.endswith(".tmp")], (k, left)
        # once there is room again, the same start-up succeeds from what was left
        start_up(ids, genesis, roster)
        g2, r2 = load_roster(gdir)
        assert g2.raw == genesis.raw and r2 == roster
        s = GameStore(gdir)
        assert s.log.records == [genesis.raw]
        s.close()


def test_disk_full_writing_the_roster_is_one_line_and_removes_roster_tmp(table, tmp_path, monkeypatch):
    from cli.home import game_dir

    ids, genesis, roster = table
    monkeypatch.setenv("EASEL_HOME", str(tmp_path))
    real_fsync = os.fsync

    def fsync(fd):
        if os.readlink("/proc/self/fd/%d" % fd).endswith("roster.tmp"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_fsync(fd)

    with monkeypatch.context() as m:
        m.setattr(os, "fsync", fsync)
        with pytest.raises(StoreError) as info:
            start_up(ids, genesis, roster)
    assert str(info.value).startswith("disk full: could not write") and "roster" in str(info.value)
    gdir = game_dir(genesis)
    assert not (gdir / "roster.tmp").exists() and not (gdir / "roster").exists()


def test_stale_temp_files_are_removed_when_the_store_opens(tmp_path):
    d = tmp_path / "g"
    d.mkdir()
    for name in ("roster.tmp", "spool.tmp", "local-bots.json.tmp"):
        (d / name).write_bytes(b"half")
    (d / "keep.txt").write_bytes(b"x")
    s = GameStore(d)
    s.close()
    assert sorted(p.name for p in d.iterdir()) == ["keep.txt", "log", "secrets", "spool"]
    assert remove_temp_files(d) == []


def test_write_atomic_failure_keeps_the_old_file(tmp_path, monkeypatch):
    p = tmp_path / "f.json"
    write_atomic(p, b"old")
    with monkeypatch.context() as m:
        FullDisk(m, 0, tmp_path)
        with pytest.raises(OSError):
            write_atomic(p, b"new" * 1000)
    assert p.read_bytes() == b"old" and sorted(x.name for x in tmp_path.iterdir()) == ["f.json"]


def test_disk_full_start_up_is_an_error_line_not_a_traceback(tmp_path):
    """A real process whose game directory cannot be written: one 'easel:' line, exit 1."""
    ids = [Identity.generate() for _ in range(2)]
    home = tmp_path / "home"
    from p2p.identity import load_or_create

    me = load_or_create(home)
    genesis = make_table([me, ids[1]], timeout=30, nonce=os.urandom(8))
    roster = {"certs": [tls.make_certificate(me), tls.make_certificate(ids[1])], "addrs": [["127.0.0.1", p] for p in free_ports(2)]}
    gdir = home / "games" / genesis.game_id.hex()
    gdir.mkdir(parents=True)
    from core.encoding import encode

    (gdir / "roster").write_bytes(encode({"genesis": genesis.raw, "roster": roster}))
    (gdir / "log").mkdir()   # the log cannot be created: as good as a failing disk for the CLI's error path
    r = easel("resume", gdir, "--level", "random", home=home)
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith("easel: cannot read %s" % (gdir / "log")) and "Traceback" not in r.stderr, r.stderr


# --------------------------------------------------------------------------- finding 6: a bot's error is visible
def test_a_bot_that_dies_before_the_table_is_full_is_named_with_its_log(tmp_path):
    home = tmp_path / "home"
    key = home / "bots" / "bot-1" / "identity.key"
    key.parent.mkdir(parents=True)
    key.write_bytes(b"not a key")
    key.chmod(0o600)
    r = easel("host", "--auto", "random", "--players", "2", "--bots", "1", "--bind", "127.0.0.1", "--no-advertise", home=home)
    assert r.returncode == 2, r.stdout + r.stderr
    # the host makes its bots' keys itself (to hold their seats), so it meets the damaged key first and says so
    assert "cannot make bot 1's key in %s" % (home / "bots" / "bot-1") in r.stderr and "damaged" in r.stderr
    assert "Traceback" not in r.stderr



SLOW = {"EASEL_FAULTS": "reorder=1,delay=0.25,seed=1"}   # every frame a little late: a game of several seconds


def test_play_bots_die_then_resume_restarts_them_and_the_game_finishes(tmp_path):
    """A host with a local bot (what `easel play` does): the bot is killed mid-game -> the host says so and
    where its log is; then the host dies too; `easel resume` of the host's game brings the bot back."""
    home = tmp_path / "home"
    host = spawn(["host", "--auto", "random", "--players", "2", "--bots", "1", "--bind", "127.0.0.1", "--no-advertise",
                  "--timeout", "60"], home, SLOW)
    try:
        logs = lambda: sorted(home.glob("games/*/log"))  # noqa: E731
        assert wait_for(lambda: logs() and records(logs()[0]) >= 3, timeout=30, interval=0.01), host.stderr.read1().decode() if host.poll() is not None else "no progress"
        gdir = logs()[0].parent
        bots_file = json.loads((gdir / "local-bots.json").read_text())
        assert [(b["seat"], b["level"], b["home"]) for b in bots_file["bots"]] == [(1, "heuristic", str(home / "bots" / "bot-1"))]
        assert (gdir / "bot-seat-1.log").exists()        # named by the seat it plays
        # the bot process (forked from the host's zygote, so not the host's own child): as the file names it
        (bot_pid,) = [b["pid"] for b in bots_file["bots"]]
        assert bot_pid not in (host.pid, None)
        os.kill(bot_pid, signal.SIGKILL)
        alert = "bot 1 (seat 1) was killed by signal 9 before the game ended; its log: %s" % (gdir / "bot-seat-1.log")
        err = b""
        deadline = time.monotonic() + 15
        os.set_blocking(host.stderr.fileno(), False)
        while alert.encode() not in err and time.monotonic() < deadline and host.poll() is None:
            time.sleep(0.05)
            err += host.stderr.read() or b""
        assert alert.encode() in err, err.decode()
        assert records(gdir / "log") < 40, "the game ended before the bot was killed"
    finally:
        host.kill()
        host.wait()
    assert records(gdir / "log") < 43
    bot_log = home / "bots" / "bot-1" / "games" / gdir.name / "log"
    assert bot_log.exists()
    r = easel("resume", gdir, "--level", "random", home=home, timeout=90)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "restarted 1 bot(s) of this game from their own game files: bot 1 at seat 1" in r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["over"] is True
    assert wait_for(lambda: bot_log.read_bytes() == (gdir / "log").read_bytes(), timeout=20)
    audit = easel("audit", gdir / "log", bot_log, home=home)
    assert audit.returncode == 0 and audit.stdout.startswith("VALID"), audit.stdout
    assert "started" in (gdir / "bot-seat-1.log").read_text()
    assert "Traceback" not in r.stderr


def test_resume_says_when_a_bot_cannot_be_restarted(tmp_path, table, monkeypatch):
    from cli.bots import restart_bots

    ids, genesis, roster = table
    d = tmp_path / "game"
    d.mkdir()
    write_atomic(d / "local-bots.json", json.dumps({"version": 1, "bots": [
        {"index": 0, "seat": 1, "home": str(tmp_path / "gone"), "level": "random", "name": "bot 1"},
        {"index": "x"},
    ]}).encode())
    bots, notes = restart_bots(d, genesis, None)
    assert bots == []
    assert len(notes) == 1 and "bot 1 (seat 1) cannot be restarted: its game files" in notes[0] and "missing" in notes[0]
    (d / "local-bots.json").write_text("{not json")
    assert restart_bots(d, genesis, None) == ([], [])
