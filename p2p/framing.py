"""Length-prefixed frames: 4-byte big-endian length, then the payload.

``FrameDecoder`` is sans-IO; ``FramedStream`` runs it over any trio Stream
(normally a ``trio.SSLStream`` from p2p.tls).
"""

from __future__ import annotations

import struct
from collections import deque

import trio

__all__ = [
    "MAX_FRAME",
    "HEADER_SIZE",
    "FrameError",
    "FrameTimeout",
    "ConnectionClosed",
    "encode_frame",
    "FrameDecoder",
    "FramedStream",
]

MAX_FRAME = 1 << 20  # 1 MiB: the largest payload a peer may send
HEADER_SIZE = 4
_HEADER = struct.Struct(">I")
_RECEIVE_CHUNK = 64 * 1024


class FrameError(Exception):
    """The byte stream is not a valid sequence of frames (the connection is unusable)."""


class FrameTimeout(FrameError):
    """No frame for ``idle`` seconds, or a frame begun but not finished within ``frame`` seconds
    (a peer that stalls mid-frame); the connection should be dropped."""


class ConnectionClosed(Exception):
    """The connection ended (cleanly at a frame boundary, broken, or closed locally).

    ``__cause__`` holds the underlying trio error, if any.
    """


def _describe(e: BaseException) -> str:
    inner = e.__cause__ or e.__context__
    for x in (inner, e):
        if x is not None and str(x):
            return f"{type(x).__name__}: {x}"
    return type(e).__name__


def _check_size(n: int, max_frame: int) -> None:
    if n == 0:
        raise FrameError("zero-length frame")
    if n > max_frame:
        raise FrameError(f"oversize frame: {n} bytes, limit {max_frame}")


def encode_frame(payload: bytes, *, max_frame: int = MAX_FRAME) -> bytes:
    """Header + payload.  Raises FrameError for an empty or oversize payload."""
    if not isinstance(payload, (bytes, bytearray, memoryview)):
        raise TypeError(f"frame payload must be bytes, not {type(payload).__name__}")
    payload = bytes(payload)
    _check_size(len(payload), max_frame)
    return _HEADER.pack(len(payload)) + payload


class FrameDecoder:
    """Incremental frame decoder.

    ``feed(data)`` returns the payloads completed by ``data`` (possibly none).
    A zero-length or oversize frame raises FrameError as soon as its header is
    seen (an oversize body is never buffered); after an error the decoder is
    dead and every later ``feed`` raises the same error again.
    """

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        if not 0 < max_frame < 1 << 32:
            raise ValueError("max_frame must fit in the 4-byte header")
        self.max_frame = max_frame
        self._buf = bytearray()
        self._need: int | None = None  # payload length of the frame being read
        self._error: FrameError | None = None

    @property
    def buffered(self) -> int:
        """Bytes held for an incomplete frame (0 iff at a frame boundary)."""
        return len(self._buf) + (HEADER_SIZE if self._need is not None else 0)

    @property
    def at_boundary(self) -> bool:
        return self.buffered == 0

    def feed(self, data: bytes) -> list[bytes]:
        if self._error is not None:
            raise FrameError(str(self._error))
        out: list[bytes] = []
        self._buf += data
        buf = self._buf
        pos = 0
        try:
            while True:
                if self._need is None:
                    if len(buf) - pos < HEADER_SIZE:
                        break
                    (n,) = _HEADER.unpack_from(buf, pos)
                    _check_size(n, self.max_frame)
                    pos += HEADER_SIZE
                    self._need = n
                n = self._need
                if len(buf) - pos < n:
                    break
                out.append(bytes(buf[pos : pos + n]))
                pos += n
                self._need = None
        except FrameError as e:
            self._error = e
            self._buf = bytearray()
            self._need = None
            raise
        del buf[:pos]
        return out


async def _take(lock: trio.Lock) -> None:
    """Acquire ``lock``: at once when it is free (``trio.Lock.acquire`` always passes through the
    scheduler, a second trip per frame next to the one every TLS read or write makes), else wait."""
    try:
        lock.acquire_nowait()
    except trio.WouldBlock:
        await lock.acquire()


class FramedStream:
    """Frames over a trio Stream.

    * ``send`` may be called from several tasks at once (a lock keeps frames
      whole).  If a send is cancelled or fails part-way the stream is left
      broken, and later sends raise ConnectionClosed.
    * ``receive`` returns one payload; it raises ConnectionClosed when the
      peer closed at a frame boundary or the transport broke, and FrameError
      for a bad frame or an EOF in the middle of a frame ("truncated frame").
    """

    def __init__(self, stream: trio.abc.Stream, *, max_frame: int = MAX_FRAME) -> None:
        self.stream = stream
        self.max_frame = max_frame
        self._decoder = FrameDecoder(max_frame)
        self._frames: deque[bytes] = deque()
        self._send_lock = trio.Lock()
        self._receive_lock = trio.Lock()
        self._send_broken = False
        self._eof = False
        self._partial_since: float | None = None   # when the frame being read began

    async def send(self, payload: bytes) -> None:
        frame = encode_frame(payload, max_frame=self.max_frame)
        await _take(self._send_lock)
        try:
            if self._send_broken:
                raise ConnectionClosed("an earlier send on this connection was interrupted")
            self._send_broken = True  # until send_all has returned normally
            try:
                await self.stream.send_all(frame)
            except (trio.BrokenResourceError, trio.ClosedResourceError) as e:
                raise ConnectionClosed(f"connection lost while sending: {_describe(e)}") from e
            self._send_broken = False
        finally:
            self._send_lock.release()

    async def receive(self, *, idle: float | None = None, frame: float | None = None) -> bytes:
        """One payload.  ``idle``: at most this many seconds without a frame beginning;
        ``frame``: at most this many seconds from a frame's first byte to its last.
        Either raises FrameTimeout (the connection is then unusable)."""
        await _take(self._receive_lock)
        try:
            if self._frames:
                # a frame decoded from an earlier read: no I/O, so give the other tasks their turn here
                # (a read does: every receive_some passes through the scheduler at least once)
                await trio.lowlevel.cancel_shielded_checkpoint()
                return self._frames.popleft()
            started = trio.current_time()
            while not self._frames:
                if self._eof:
                    raise ConnectionClosed("peer closed the connection")
                now = trio.current_time()
                if self._partial_since is not None:
                    left = None if frame is None else self._partial_since + frame - now
                    since, what = self._partial_since, "a frame begun %.1f s ago is not finished (limit FRAME_DEADLINE)"
                else:
                    left = None if idle is None else started + idle - now
                    since, what = started, "no frame for %.1f s (limit IDLE_TIMEOUT)"
                try:
                    if left is None:
                        data = await self.stream.receive_some(_RECEIVE_CHUNK)
                    else:
                        data = b""
                        with trio.move_on_after(max(left, 0)) as scope:
                            data = await self.stream.receive_some(_RECEIVE_CHUNK)
                        if scope.cancelled_caught:
                            raise FrameTimeout(what % (trio.current_time() - since))   # (when it ran out, not when it began)
                except (trio.BrokenResourceError, trio.ClosedResourceError) as e:
                    raise ConnectionClosed(f"connection lost: {_describe(e)}") from e
                if not data:
                    self._eof = True
                    if not self._decoder.at_boundary:
                        raise FrameError(
                            f"truncated frame: EOF after {self._decoder.buffered} bytes of a frame"
                        )
                    raise ConnectionClosed("peer closed the connection")
                got = self._decoder.feed(data)
                self._frames.extend(got)
                if self._decoder.at_boundary:
                    self._partial_since = None
                elif got or self._partial_since is None:
                    self._partial_since = trio.current_time()
            return self._frames.popleft()
        finally:
            self._receive_lock.release()

    async def aclose(self) -> None:
        try:
            await self.stream.aclose()
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass

    async def __aenter__(self) -> "FramedStream":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
