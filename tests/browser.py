"""A headless Chromium driven over the DevTools protocol, for the exported pages' tests (stdlib only).

Chromium talks the protocol over a pipe (``--remote-debugging-pipe``: it reads
commands on fd 3 and writes answers on fd 4, each a JSON text ended by a NUL
byte), so no websocket client is needed.  ``Browser.open(url)`` gives a
``Tab`` that can press keys, evaluate script, take a PNG screenshot and tell
which console errors and exceptions the page raised.  ``png_pixels`` decodes
the 8-bit RGB(A) PNGs Chromium writes, to compare a screenshot's regions.

Every wait is bounded (``TIMEOUT``): a browser that stops answering fails
the test, it never hangs it.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import struct
import subprocess
import tempfile
import time
import zlib
from typing import Any

TIMEOUT = 60.0

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


class BrowserError(Exception):
    pass


class Browser:
    def __init__(self, width: int = 1400, height: int = 1000) -> None:
        if CHROMIUM is None:
            raise BrowserError("no chromium on PATH (.ci/run installs it)")
        self.profile = tempfile.mkdtemp(prefix="easel-chromium-")
        cmd_r, self._cmd_w = os.pipe()
        self._out_r, out_w = os.pipe()
        # the child's ends, above 4 so that placing them on 3 and 4 never overwrites one with the other
        high_r, high_w = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10), fcntl.fcntl(out_w, fcntl.F_DUPFD, 10)
        os.close(cmd_r)
        os.close(out_w)
        cmd_r, out_w = high_r, high_w

        def fds() -> None:      # in the child: the protocol's fds 3 (commands in) and 4 (answers out)
            os.dup2(cmd_r, 3)
            os.dup2(out_w, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--no-default-browser-check", "--hide-scrollbars", "--mute-audio",
             "--remote-debugging-pipe", "--user-data-dir=%s" % self.profile,
             "--window-size=%d,%d" % (width, height), "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=fds, close_fds=False)
        os.close(cmd_r)
        os.close(out_w)
        self._buf = b""
        self._id = 0
        self.events: list[dict] = []
        self.width, self.height = width, height

    # -- the protocol --------------------------------------------------------------
    def _read(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("chromium did not answer within %g s" % TIMEOUT)
            ready, _, _ = select.select([self._out_r], [], [], left)
            if ready:
                chunk = os.read(self._out_r, 1 << 20)
                if not chunk:
                    raise BrowserError("chromium closed its protocol pipe")
                self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session is not None:
            msg["sessionId"] = session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            got = self._read(deadline)
            if got.get("id") == self._id:
                if "error" in got:
                    raise BrowserError("%s: %s" % (method, got["error"]))
                return got.get("result", {})
            self.events.append(got)

    def wait_event(self, method: str, session: str, since: int = 0) -> dict:
        deadline = time.monotonic() + TIMEOUT
        k = since
        while True:
            while k < len(self.events):
                ev = self.events[k]
                k += 1
                if ev.get("method") == method and ev.get("sessionId") == session:
                    return ev
            self.events.append(self._read(deadline))

    def open(self, url: str) -> "Tab":
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        tab = Tab(self, session)
        for domain in ("Page.enable", "Runtime.enable", "Log.enable"):
            self.send(domain, session=session)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False}, session)
        mark = len(self.events)
        self.send("Page.navigate", {"url": url}, session)
        self.wait_event("Page.loadEventFired", session, mark)
        return tab

    def close(self) -> None:
        try:
            os.write(self._cmd_w, json.dumps({"id": 0, "method": "Browser.close", "params": {}}).encode() + b"\0")
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for fd in (self._cmd_w, self._out_r):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class Tab:
    def __init__(self, browser: Browser, session: str) -> None:
        self.b = browser
        self.session = session

    def eval(self, expr: str) -> Any:
        got = self.b.send("Runtime.evaluate", {"expression": expr, "returnByValue": True}, self.session)
        if "exceptionDetails" in got:
            raise BrowserError("script failed: %s" % got["exceptionDetails"].get("text"))
        return got.get("result", {}).get("value")

    def text(self, element_id: str) -> str:
        return self.eval("(document.getElementById(%s) || {}).textContent || ''" % json.dumps(element_id))

    def key(self, key: str, code: str | None = None, keycode: int = 0) -> None:
        """Press and release ``key`` (a DOM key name such as ArrowRight) as a user would."""
        for kind in ("keyDown", "keyUp"):
            self.b.send("Input.dispatchKeyEvent", {"type": kind, "key": key, "code": code or key,
                                                   "windowsVirtualKeyCode": keycode}, self.session)

    def rect(self, element_id: str) -> tuple[int, int, int, int] | None:
        """(x, y, width, height) of an element on the page (not the viewport), in CSS pixels, or None."""
        r = self.eval("(function(){var e=document.getElementById(%s); if(!e) return null;"
                      "var r=e.getBoundingClientRect(); return [r.x + scrollX, r.y + scrollY, r.width, r.height];})()"
                      % json.dumps(element_id))
        return None if r is None else tuple(int(round(v)) for v in r)

    def screenshot(self, scale: float = 1.0) -> bytes:
        """A PNG of the top of the page (the window's size), at ``scale``."""
        self.eval("window.scrollTo(0, 0)")
        clip = {"x": 0, "y": 0, "width": self.b.width, "height": self.b.height, "scale": scale}
        got = self.b.send("Page.captureScreenshot", {"format": "png", "clip": clip}, self.session)
        return base64.b64decode(got["data"])

    def errors(self) -> list[str]:
        """The page's uncaught exceptions and console errors so far."""
        out = []
        for ev in self.b.events:
            if ev.get("sessionId") != self.session:
                continue
            m, p = ev.get("method"), ev.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append("exception: %s" % p.get("exceptionDetails", {}).get("text"))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console.%s: %s" % (p.get("type"), [a.get("value") for a in p.get("args", [])]))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append("log: %s" % p["entry"].get("text"))
        return out


# --------------------------------------------------------------------------- PNG pixels
def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB bytes) of an 8-bit RGB or RGBA, non-interlaced PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, b"", 0
    h = depth = ctype = interlace = 0
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("unsupported PNG (depth %d, colour type %d, interlace %d)" % (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        if bpp == 4:
            rows.append(bytes(b for i in range(0, stride, 4) for b in line[i:i + 3]))
        else:
            rows.append(bytes(line))
    return w, h, rows


def region_stats(rows: list[bytes], box: tuple[int, int, int, int]) -> tuple[int, tuple[int, int, int]]:
    """(distinct colours, the most common colour) of the pixels in ``box`` (x, y, w, h)."""
    x, y, w, h = box
    counts: dict[tuple[int, int, int], int] = {}
    for row in rows[max(0, y):y + h]:
        for i in range(max(0, x), min(x + w, len(row) // 3)):
            c = (row[3 * i], row[3 * i + 1], row[3 * i + 2])
            counts[c] = counts.get(c, 0) + 1
    if not counts:
        return 0, (0, 0, 0)
    return len(counts), max(counts, key=counts.get)
