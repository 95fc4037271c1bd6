"""cli/runner.py and cli/children.py: how a seat's run ends (SeatEnd), the watch beside a game, stopping child processes."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import trio
import trio.testing

from cli.children import exit_words, stop_processes
from cli.common import EXIT_INTERRUPTED
from cli.runner import SeatEnd, report, watching


def _node(d: Path, over: bool = False, left: bool = False):
    table = SimpleNamespace(over=over, head=b"", result=lambda: None)
    return SimpleNamespace(peer=SimpleNamespace(table=table, left_for_good=lambda: left), failed=None,
                           store=SimpleNamespace(dir=d), seat=0)


def test_a_seat_left_mid_game_reports_what_its_end_says(tmp_path, monkeypatch, capsys):
    """The words after quitting: whether the others were told, and which of our bots play on without us."""
    monkeypatch.setenv("EASEL_HOME", str(tmp_path / "home"))
    assert report(_node(tmp_path), interactive=True) == EXIT_INTERRUPTED
    out = capsys.readouterr().out
    assert "told you left" not in out and "your bots play on" not in out
    assert "you left an unfinished game" in out and "for good" not in out
    playing = SimpleNamespace(name="bot 1", seat=2, proc=SimpleNamespace(poll=lambda: None))
    gone = SimpleNamespace(name="bot 2", seat=3, proc=SimpleNamespace(poll=lambda: 0))
    report(_node(tmp_path, left=True), interactive=True, end=SeatEnd(told_leaving=True, bots_playing=[playing, gone]))
    out = capsys.readouterr().out
    # a signed leave is for good (issue 29): said so, and resume only follows the game then
    assert "easel: you left the table for good: the others play on without you" in out
    assert "easel: the other seats were told you left\n" in out
    assert "easel: your bots play on at the table without you: bot 1 (seat 2)\n" in out
    report(_node(tmp_path), interactive=True, end=SeatEnd(told_leaving=False))
    assert "the other seats were told you left (not every one answered in time)" in capsys.readouterr().out


async def test_the_watch_runs_every_task_beside_the_game_until_it_is_over():
    assert watching() is None and watching(None, None) is None
    node = SimpleNamespace(done=trio.Event())
    seen = []

    async def forever(n):
        seen.append(("forever", n))
        await trio.sleep_forever()

    async def brief(n):
        seen.append(("brief", n))

    watch = watching(forever, None, brief)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(watch, node)
            await trio.testing.wait_all_tasks_blocked()
            assert sorted(seen, key=str) == [("brief", node), ("forever", node)]
            node.done.set()          # the game is over: the watch ends, its tasks with it


def _child(code: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)


def test_stop_processes_terminates_then_kills_and_reaps_every_one():
    stubborn = _child("import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                      "print('ready', flush=True); time.sleep(60)")
    polite = _child("import time; time.sleep(60)")
    assert stubborn.stdout.readline() == b"ready\n"     # it ignores SIGTERM from now on
    t0 = time.monotonic()
    stop_processes([stubborn, polite], grace=1.0)
    assert polite.returncode == -15 and stubborn.returncode == -9     # asked, then killed after its grace
    assert time.monotonic() - t0 < 30
    for p in (stubborn, polite):
        p.stdout.close()
    assert exit_words(-9) == "was killed by signal 9" and exit_words(3) == "exited with code 3"


def test_stop_processes_without_terminate_lets_them_finish():
    done = _child("import time; time.sleep(0.3)")
    stop_processes([done], terminate=False, grace=30)
    assert done.returncode == 0          # not asked to stop: it ended by itself
    done.stdout.close()
