"""Child easel processes: their command line and environment, free ports for them, and stopping them.

Every easel this one starts (a bot of ``easel play``, a demo peer; the benchmarks' peers too) is
``easel_command(...)`` run with ``easel_env()``: the very code this process runs, whatever lies in
the directory it was started from. ``stop_processes`` is the one kill-and-reap loop.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

log = logging.getLogger("easel.cli")

KILLED_WAIT = 5.0     # s a process killed (SIGKILL) by stop_processes is waited for at most

# The directory this easel's packages (cli, core, p2p) are imported from.
_CODE_ROOT = Path(__file__).resolve().parent.parent


def _site_dirs() -> set[str]:
    import site

    dirs = list(getattr(site, "getsitepackages", lambda: [])())
    try:
        dirs.append(site.getusersitepackages())
    except AttributeError:
        pass
    return {os.path.normcase(os.path.realpath(d)) for d in dirs}


def easel_command(*args: str) -> list[str]:
    """The command line of a child easel (a bot, a demo peer): ``python -P -m cli ARGS``.

    ``-P`` keeps the current directory off the child's ``sys.path``, so a
    ``cli.py``, ``core.py`` or ``p2p/`` lying in the directory easel was started
    from cannot stand in for easel's own packages. Use it with easel_env()."""
    return [sys.executable, "-P", "-m", "cli", *args]


def easel_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: ours) for a child made by easel_command(): it imports the very
    code this process runs. A source checkout run without installing, or a
    development install, puts its directory first on PYTHONPATH; an ordinary
    install in site-packages needs nothing (the child finds it there)."""
    env = dict(os.environ if env is None else env)
    root = str(_CODE_ROOT)
    if os.path.normcase(os.path.realpath(root)) not in _site_dirs():
        rest = env.get("PYTHONPATH", "")
        env["PYTHONPATH"] = root + (os.pathsep + rest if rest else "")
    return env


def free_ports(n: int, host: str = "127.0.0.1") -> list[int]:
    """``n`` distinct TCP ports free on ``host`` right now (all held open until every one is chosen)."""
    socks, ports = [], []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            socks.append(s)
            s.bind((host, 0))
            ports.append(s.getsockname()[1])
    finally:
        for s in socks:
            s.close()
    return ports


def free_port(host: str = "127.0.0.1") -> int:
    return free_ports(1, host)[0]


def stop_processes(procs: list, *, terminate: bool = True, grace: float = 5.0) -> None:
    """End ``procs`` (Popens, or zygote.BotProcess) and reap them: each still running is asked to stop
    (SIGTERM; ``terminate`` False: it is left to finish by itself), gets ``grace`` seconds, then is killed
    and waited for ``KILLED_WAIT`` seconds more at most (never for ever: a bot of our zygote is reaped by
    the zygote, which might not say so; a process in uninterruptible sleep dies late)."""
    if terminate:
        for p in procs:
            if p.poll() is None:
                p.terminate()
    deadline = time.monotonic() + grace
    for p in procs:
        try:
            p.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            try:
                p.wait(timeout=KILLED_WAIT)
            except subprocess.TimeoutExpired:
                log.warning("process %d did not end within %.0f s of SIGKILL: not waited for", p.pid, KILLED_WAIT)


def exit_words(rc: int) -> str:
    """How a child process ended, from its exit status: "exited with code N" or "was killed by signal N"."""
    return "was killed by signal %d" % -rc if rc < 0 else "exited with code %d" % rc
