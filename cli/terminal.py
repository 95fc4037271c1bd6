"""The terminal is ours while the full-screen UI runs: standard error goes to the easel log meanwhile
(``stderr_into``), and comes back to the terminal afterwards (``restore_stderr``, also from the CLI's
own way out)."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

__all__ = ["stderr_into", "restore_stderr"]


@contextlib.contextmanager
def stderr_into(path: Any):
    """While the full-screen UI runs, whatever is written to standard error (a Python warning, an
    "Exception ignored in" message, a thread's traceback, a library's own print) goes to the file
    ``path`` (the easel log) instead of the terminal. Such a line moves the terminal's cursor under
    prompt-toolkit, which draws each redraw relative to where it believes the cursor is: every later
    redraw then lands rows off and leaves lines twice (issue 23: "the bottom pane repeats lines").
    Nothing changes when ``path`` is None or standard error is not a terminal."""
    try:
        active = path is not None and os.isatty(2)
    except (OSError, ValueError):
        active = False
    if not active:
        yield
        return
    try:
        sys.stderr.flush()
        saved = os.dup(2)
        fd = os.open(str(path), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except (OSError, ValueError):
        yield
        return
    _STDERR_SAVED.append(saved)
    try:
        os.dup2(fd, 2)
        os.close(fd)
        yield
    finally:
        restore_stderr()


_STDERR_SAVED: list[int] = []      # standard error as it was before stderr_into (restore_stderr)


def restore_stderr() -> None:
    """Standard error back on the terminal, if stderr_into still holds it (also from the CLI's own way out:
    an interrupt that abandons the run may skip the context's exit)."""
    while _STDERR_SAVED:
        saved = _STDERR_SAVED.pop()
        try:
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        try:
            os.dup2(saved, 2)
            os.close(saved)
        except OSError:
            pass
