"""Small filesystem helpers shared by identity and storage."""

from __future__ import annotations

import os
from pathlib import Path


def fsync_dir(d: Path) -> None:
    """fsync a directory so a file created or renamed in it survives a crash (best effort)."""
    try:
        fd = os.open(d, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return  # e.g. platforms that cannot open directories
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
