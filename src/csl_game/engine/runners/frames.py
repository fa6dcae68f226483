"""A worker's result pipe read as untrusted bytes: framed, bounded, never blocking.

The worker writes each message with ``Connection.send_bytes()``: a 4-byte
big-endian length, then that many bytes (multiprocessing's own framing). A
thinker's code runs in the worker and can write anything on that pipe, so
the parent reads it as bytes of its own accord and never with
``Connection.recv()``, which blocks until a whole announced message has come
and unpickles whatever arrives.

A frame longer than `MAX_FRAME` or a negative length is a `FrameError` the
moment its header is read; a frame begun and not finished stays pending (its
bytes kept, never waited for), and the caller decides how long it may stay
so (`FrameReader.pending_since`).

Two readers, one interface: where pipes can be read without blocking (POSIX:
``os.set_blocking``), the caller's thread reads the pipe's file descriptor;
elsewhere (Windows, whose pipes are handles) a daemon thread per worker reads
frames with ``recv_bytes(MAX_FRAME)``, which checks the length before it
reads the body, and hands them over. Either way the caller never blocks.
"""

from __future__ import annotations

import collections
import os
import struct
import sys
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

from csl_game.errors import WorkerProtocolError

__all__ = ["MAX_FRAME", "FrameError", "FrameReader", "FdFrameReader", "ThreadFrameReader",
           "frame_reader"]

MAX_FRAME = 8 << 20
"""Bytes of one message from a worker, at most: a long traceback or a burst of
a thinker's printed output fits many times over."""

_HEADER = struct.Struct("!i")
_CHUNK = 1 << 16


FrameError = WorkerProtocolError
"""Bytes on a worker's pipe that are no frame: a negative or oversized length."""


class FrameReader:
    """The parent's reading end of one worker's result pipe."""

    eof: bool = False
    """The worker's end is closed and every complete frame was handed out."""
    pending_since: float | None = None
    """When the frame now incomplete began to arrive (time.perf_counter()), if one is."""
    last_byte_at: float = 0.0
    """When the last bytes arrived (time.perf_counter())."""
    drained: bool = True
    """The last `read()` found nothing more to read for now."""

    def read(self, budget: float) -> list[bytes]:
        """The frames that arrived whole, reading for about `budget` seconds at most.

        Raises:
            FrameError: the pipe holds bytes that are no frame.
        """
        raise NotImplementedError

    def pending(self) -> int:
        """Bytes held of a frame not yet complete (0 if none)."""
        raise NotImplementedError

    def waitable(self) -> Any | None:
        """What `multiprocessing.connection.wait()` can wait on for news, or
        None when the caller must poll."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the reader (the connection is closed by its owner)."""


def _length(buffer: bytes | bytearray, start: int = 0) -> int:
    """The length the header at `start` announces.

    Raises:
        FrameError: a negative or oversized length.
    """
    size: int = _HEADER.unpack_from(buffer, start)[0]
    if size < 0 or size > MAX_FRAME:
        shown = "a length beyond 2 GB" if size < 0 else f"{size} bytes"
        raise FrameError(f"announced a message of {shown} (at most {MAX_FRAME} allowed)")
    return size


class FdFrameReader(FrameReader):
    """Reads the pipe's file descriptor without blocking, in the caller's thread."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self._fd = conn.fileno()
        os.set_blocking(self._fd, False)
        self._buffer = bytearray()
        self._error: FrameError | None = None

    def read(self, budget: float) -> list[bytes]:
        until = time.perf_counter() + budget
        self.drained = False
        while not self.eof:
            try:
                chunk = os.read(self._fd, _CHUNK)
            except BlockingIOError:
                self.drained = True
                break
            except OSError:
                chunk = b""
            if not chunk:
                self.eof = self.drained = True
                break
            self._buffer += chunk
            self.last_byte_at = time.perf_counter()
            if len(chunk) < _CHUNK:  # a short read: the pipe held no more just now
                self.drained = True
                break
            if self.last_byte_at > until:
                break
        return self._frames()

    def _frames(self) -> list[bytes]:
        frames: list[bytes] = []
        buffer, start = self._buffer, 0
        if self._error is not None:
            raise self._error
        while len(buffer) - start >= _HEADER.size:
            try:
                size = _length(buffer, start)
            except FrameError as e:
                if not frames:
                    raise
                self._error = e  # the whole frames before it first; the error next time
                break
            end = start + _HEADER.size + size
            if len(buffer) < end:
                break
            frames.append(bytes(buffer[start + _HEADER.size:end]))
            start = end
        del buffer[:start]
        if buffer:
            if self.pending_since is None or start:
                self.pending_since = time.perf_counter()
        else:
            self.pending_since = None
        if self.eof and buffer and self._error is None:  # a frame cut short by the worker's end
            raise FrameError(f"ended in the middle of a message ({len(buffer)} bytes of it)")
        return frames

    def pending(self) -> int:
        return len(self._buffer)

    def waitable(self) -> Any | None:
        return None if self.eof else self._conn


class ThreadFrameReader(FrameReader):
    """A daemon thread reads whole frames (``recv_bytes`` checks each length
    before it reads the body) and hands them over; for pipes that cannot be
    read without blocking (Windows). A header followed by silence blocks only
    that thread, until the worker is killed and its pipe closes."""

    def __init__(self, conn: Connection) -> None:
        self._frames: collections.deque[bytes] = collections.deque()
        self._error: FrameError | None = None
        self._done = False
        self._thread = threading.Thread(target=self._run, args=(conn,), daemon=True,
                                        name="csl-worker-reader")
        self._thread.start()

    def _run(self, conn: Connection) -> None:
        try:
            while True:
                frame = conn.recv_bytes(MAX_FRAME)
                self.last_byte_at = time.perf_counter()
                self._frames.append(frame)
        except (EOFError, OSError) as e:
            if isinstance(e, OSError) and "bad message length" in str(e):
                self._error = FrameError(f"announced a message of more than {MAX_FRAME} "
                                         "bytes")
        finally:
            self._done = True

    def read(self, budget: float) -> list[bytes]:
        frames = []
        while self._frames:
            frames.append(self._frames.popleft())
        if self._error is not None:
            raise self._error
        if self._done and not self._frames:
            self.eof = True
        self.drained = not self._frames
        return frames

    def pending(self) -> int:
        return 0  # what the thread is waiting for is unknown here; the time limit judges it

    def waitable(self) -> Any | None:
        return None


def frame_reader(conn: Connection) -> FrameReader:
    """The reader for this platform's pipes."""
    if sys.platform == "win32" or not hasattr(os, "set_blocking"):
        return ThreadFrameReader(conn)
    return FdFrameReader(conn)
