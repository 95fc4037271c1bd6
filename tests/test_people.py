"""Paper cuts found by playing every game as a new user (each measured before the fix)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from cli.common import EXIT_INTERRUPTED, EXIT_OK
from cli.live import report


def _node(tmp_path: Path, over: bool):
    table = SimpleNamespace(over=over, head=b"", result=lambda: None)
    return SimpleNamespace(peer=SimpleNamespace(table=table), failed=None, store=SimpleNamespace(dir=tmp_path), seat=0)


def test_leaving_an_unfinished_game_exits_130_as_the_help_says(tmp_path, capsys):
    """Measured: quitting an unfinished game exited 0 although easel --help says 130 interrupted."""
    assert report(_node(tmp_path, over=False), interactive=True) == EXIT_INTERRUPTED == 130
    assert "easel resume %s" % tmp_path in capsys.readouterr().out
    assert report(_node(tmp_path, over=True), interactive=True) == EXIT_OK
