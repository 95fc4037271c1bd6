"""Bot processes forked from an easel that has already imported everything (a "zygote").

``easel play`` seats up to five bots.  Started as ``python -P -m cli bot ...``, each one starts
Python and imports the whole CLI again (0.2-0.6 s of CPU each, all at once on a small machine)
while the person waits for the table.  So, before trio runs (no event loop, no thread yet), a
command that may start bots forks a zygote: a process that holds the imported code, in a session
of its own (the person's terminal neither signals nor holds it), and does nothing but wait on a
socket.  Asked to, it forks a bot: its own session, its output appended to its log file, its own
environment (``EASEL_HOME``), then the entry its starter handed to ``start``: cli/main.py's
``main(argv)``, what ``python -P -m cli ARGV`` runs (handed down, not imported here: cli/main.py
imports the live commands, which import this module).
The zygote reaps its bots and reports each one's exit status; the command sees each bot through
a ``BotProcess`` (``pid``, ``poll``, ``wait``, ``terminate``, ``kill``: what it used of a Popen).

The zygote ends when the process that forked it does (end of file on the socket); the bots it
started play on (they are the table's, each its own peer) and are reparented like any orphan.
Without ``os.fork`` (or with a thread already running) there is no zygote and bots are started
the old way (``subprocess.Popen``).

Wire between the command and its zygote: one JSON object per line.
    command -> zygote  {"argv": [...], "env": {name: value}, "log": path or null, "title": text}
    zygote -> command  {"pid": N, "started": S} | {"error": text}     (the answer to a request)
                       {"exit": N, "rc": code}                         (whenever a bot ends)
"""

from __future__ import annotations

import atexit
import gc
import json
import logging
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

ANSWER_TIMEOUT = 10.0   # s the command waits for the zygote to say it forked a bot


def started_at(pid: int) -> str | None:
    """A process's start time (field 22 of /proc/PID/stat), to tell it from a later one with its pid;
    None if it is gone (or a zombie: dead, only not reaped yet); "" where /proc cannot say."""
    try:
        stat = Path("/proc/%d/stat" % pid).read_text()
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            return None
        return ""
    try:
        fields = stat.rsplit(")", 1)[1].split()
        return None if fields[0] == "Z" else fields[19]
    except IndexError:
        return ""


class BotProcess:
    """A bot process that is not our child: forked by our zygote (which reports its exit status), or
    found still running by ``easel resume`` (``zygote`` None: only whether it runs is known).

    Quacks like the part of ``subprocess.Popen`` the CLI uses; ``status_unknown`` is True once it is
    gone without a status (a process we did not start, or the zygote died first)."""

    def __init__(self, pid: int, started: str | None, zygote: "Zygote | None" = None) -> None:
        self.pid = pid
        self.started = started
        self.zygote = zygote
        self.returncode: int | None = None
        self.status_unknown = False

    def poll(self) -> int | None:
        if self.returncode is not None:
            return self.returncode
        z = self.zygote
        if z is not None:
            z.read(0)
            if self.pid in z.exits:
                self.returncode = z.exits.pop(self.pid)
                return self.returncode
            if z.alive:
                return None
        now = started_at(self.pid)
        if now is None or (self.started and now and now != self.started):
            self.returncode = 0
            self.status_unknown = True
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired("bot process %d" % self.pid, timeout)
            z = self.zygote
            if z is not None and z.alive:
                z.read(0.5 if left is None else min(0.5, left))
            else:
                time.sleep(0.05 if left is None else max(0.0, min(0.05, left)))
        return self.returncode

    def send_signal(self, sig: int) -> None:
        # never a signal to a later process that got the pid: it must still be the one we know
        if self.poll() is None and (not self.started or started_at(self.pid) == self.started):
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class Zygote:
    """The command's side of its zygote: ask it for bots, learn when they end."""

    def __init__(self, sock: socket.socket, pid: int) -> None:
        self.sock = sock
        self.pid = pid
        self.alive = True
        self.exits: dict[int, int] = {}
        self._answers: list[dict] = []
        self._buf = b""

    def read(self, timeout: float) -> None:
        """Take what the zygote said (waiting up to ``timeout`` s for something)."""
        if not self.alive:
            return
        try:
            r, _, _ = select.select([self.sock], [], [], max(0.0, timeout))
            while r:
                data = self.sock.recv(65536)
                if not data:
                    self.alive = False
                    break
                self._buf += data
                r, _, _ = select.select([self.sock], [], [], 0)
        except (OSError, ValueError):
            self.alive = False
        *lines, self._buf = self._buf.split(b"\n")
        for line in lines:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if "exit" in msg:
                self.exits[int(msg["exit"])] = int(msg["rc"])
            else:
                self._answers.append(msg)

    def close(self, wait: float = 2.0) -> None:
        """We are done: the zygote ends (the end of its socket), and is reaped rather than left a zombie
        (its bots are not touched: they play on)."""
        try:
            self.sock.close()
        except OSError:
            pass
        self.alive = False
        deadline = time.monotonic() + wait
        while True:
            try:
                done, _ = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                return
            if done or time.monotonic() > deadline:
                return
            time.sleep(0.01)

    def spawn(self, argv: list[str], env: dict[str, str], log_path: Path | None, title: str) -> BotProcess:
        """Fork a bot running ``easel ARGV`` with ``env`` on top of ours; OSError if the zygote cannot."""
        req = {"argv": list(argv), "env": dict(env), "log": str(log_path) if log_path is not None else None, "title": title}
        try:
            self.sock.sendall((json.dumps(req) + "\n").encode())
        except OSError:
            self.alive = False
            raise
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while not self._answers:
            left = deadline - time.monotonic()
            if not self.alive or left <= 0:
                self.alive = False
                raise OSError("the bot starter (process %d) did not answer" % self.pid)
            self.read(left)
        ans = self._answers.pop(0)
        if "pid" not in ans:
            raise OSError("the bot starter could not start a bot: %s" % ans.get("error", "?"))
        return BotProcess(int(ans["pid"]), ans.get("started"), self)


_ZYGOTE: Zygote | None = None


def current() -> Zygote | None:
    """This process's zygote, if one was started and still answers."""
    return _ZYGOTE if _ZYGOTE is not None and _ZYGOTE.alive else None


def start(entry: Callable[[list[str]], int]) -> Zygote | None:
    """Fork the zygote now (call it before trio runs: never fork a process running an event loop or a
    thread), whose bots each run ``entry(argv)`` (cli/main.py's ``main``) and exit with what it returns;
    None where that cannot be done (bots are then started the old way)."""
    global _ZYGOTE
    if _ZYGOTE is not None:
        return current()
    if not hasattr(os, "fork") or threading.active_count() > 1:
        return None
    try:
        ours, theirs = socket.socketpair()
    except OSError:
        return None
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    # what is alive now (the imported code) lives as long as we do: out of the collector's reach, so that
    # neither we nor a bot scans it again (a bot's first collection would also copy every page it shares)
    gc.collect()
    gc.freeze()
    # the trust domain's board of passed checks (p2p/vouching.py): made now, so that we, the zygote and
    # every bot it forks map the same memory, and no other process maps it (one of the same user could
    # still reach it through /proc/PID/mem, as it could our key files: see p2p/vouching.py)
    from p2p import vouching

    vouching.make()
    try:
        pid = os.fork()
    except OSError:
        ours.close()
        theirs.close()
        return None
    if pid == 0:
        code = 0
        try:
            ours.close()
            _serve(theirs, entry)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    theirs.close()
    _ZYGOTE = Zygote(ours, pid)
    atexit.register(_ZYGOTE.close)
    return _ZYGOTE


# ----------------------------------------------------------------------------- the zygote itself
def set_title(title: str, name: str | None = None) -> None:
    """What ``ps`` shows for this process: its ``name`` (comm, 15 bytes; default: the title's) and, within the room its original
    command line took, its command line (the bytes between /proc/self/stat's arg_start and arg_end,
    overwritten in place, never beyond). Best effort, Linux only."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(15, (name or title).encode()[:15], 0, 0, 0)       # PR_SET_NAME
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        start, end = int(fields[45]), int(fields[46])       # fields 48 and 49: arg_start, arg_end
        room = end - start
        if not 0 < room < 1 << 16:
            return
        data = title.encode()[:room - 1]
        ctypes.memmove(start, data + b"\0" * (room - len(data)), room)
    except Exception:
        pass


def _send(sock: socket.socket, msg: dict) -> None:
    sock.sendall((json.dumps(msg) + "\n").encode())


def _serve(sock: socket.socket, entry: Callable[[list[str]], int]) -> None:
    """The zygote's loop: fork a bot per request, report each bot's end; return when the command is gone."""
    os.setsid()                       # not the person's terminal's: its hang-up and Ctrl-C are the command's
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    os.set_blocking(wake_r, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *a: None)
    set_title("easel bot starter (for process %d)" % os.getppid(), "easel starter")
    buf = b""
    while True:
        try:
            r, _, _ = select.select([sock, wake_r], [], [])
        except InterruptedError:
            continue
        if wake_r in r:
            try:
                while os.read(wake_r, 512):
                    pass
            except BlockingIOError:
                pass
        while True:                    # reap every bot that ended, and say so
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            _send(sock, {"exit": pid, "rc": os.waitstatus_to_exitcode(status)})
        if sock in r:
            data = sock.recv(65536)
            if not data:
                return                 # the command is gone: so are we (its bots play on)
            buf += data
            *lines, buf = buf.split(b"\n")
            for line in lines:
                try:
                    req = json.loads(line)
                    pid = _fork_bot(req, sock, (wake_r, wake_w, devnull), entry)
                    _send(sock, {"pid": pid, "started": started_at(pid)})
                except Exception as exc:      # noqa: BLE001 - said to the command, which reports it
                    _send(sock, {"error": "%s: %s" % (type(exc).__name__, exc)})


def _fork_bot(req: dict, sock: socket.socket, close: tuple, entry: Callable[[list[str]], int]) -> int:
    argv = [str(a) for a in req["argv"]]
    env = {str(k): str(v) for k, v in dict(req.get("env") or {}).items()}
    log_path = req.get("log")
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGHUP, signal.SIGTERM, signal.SIGQUIT):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.setsid()                   # its own session, like a bot started by Popen(start_new_session=True)
        sock.close()
        out = None
        if log_path:
            try:
                out = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            except OSError:
                out = None
        devnull = close[2]
        os.dup2(devnull, 0)
        os.dup2(out if out is not None else devnull, 1)
        os.dup2(out if out is not None else devnull, 2)
        for fd in close + ((out,) if out is not None else ()):
            try:
                os.close(fd)
            except OSError:
                pass
        os.environ.update(env)
        root = logging.getLogger()
        for h in list(root.handlers):         # main() configures logging afresh, to this stderr
            root.removeHandler(h)
        set_title(str(req.get("title") or "easel " + " ".join(argv)), "easel " + (argv[0] if argv else ""))
        sys.argv = ["easel", *argv]
        code = entry(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        try:
            logging.shutdown()
        except Exception:
            pass
        os._exit(code if isinstance(code, int) else 1)
