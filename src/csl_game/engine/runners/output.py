"""A worker's output: what its thinker writes to file descriptors 1 and 2, sent on.

print(), C extensions and subprocesses all write to the file descriptors 1
and 2, so the worker points both at one pipe and keeps their order. A thread
reads the pipe with plain blocking reads, which work on pipes on every OS
(``select()`` takes only sockets on Windows). To send a message after all
the output written before it, `Output.send_after()` writes a mark into the
same pipe and waits until the reader has read up to it: a pipe keeps order,
so everything written before the mark has been sent by then.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace

from csl_game.engine.runners.protocol import FromWorker, Output, Reply

__all__ = ["OutputForwarder"]

_CHUNK = 1 << 16  # bytes of output per message
_MARK_WAIT = 2.0  # seconds send_after() waits for the reader to reach its mark
_STD_HANDLES = (-11, -12)  # STD_OUTPUT_HANDLE, STD_ERROR_HANDLE


def _point_std_handles_at(fd: int) -> None:
    """On Windows, make the pipe the standard handles too: processes the thinker
    starts inherit those, not the C runtime's file descriptors."""
    if sys.platform != "win32":
        return
    import ctypes
    import msvcrt

    os.set_inheritable(fd, True)
    handle = msvcrt.get_osfhandle(fd)
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    for which in _STD_HANDLES:
        kernel32.SetStdHandle(which, handle)


class OutputForwarder:
    """Sends everything written to file descriptors 1 and 2 to the parent, line by line."""

    def __init__(self, send: Callable[[FromWorker], None]) -> None:
        self._send = send
        read_fd, write_fd = os.pipe()
        os.dup2(write_fd, 1)
        os.dup2(write_fd, 2)
        _point_std_handles_at(write_fd)
        self._mark_fd = write_fd  # our own end: the thinker may close 1 and 2
        self._fd = read_fd
        self._token = b"\0csl-mark-" + os.urandom(8).hex().encode() + b"\0"
        self._pending = b""
        self._asked = 0
        self._reached = 0
        self._reached_cv = threading.Condition()
        self._lock = threading.Lock()
        for fd, name in ((1, "stdout"), (2, "stderr")):
            setattr(sys, name, open(fd, "w", buffering=1, encoding="utf-8",  # noqa: SIM115
                                    errors="backslashreplace", closefd=False))
        threading.Thread(target=self._forward, name="csl-output", daemon=True).start()

    @property
    def fds(self) -> tuple[int, int]:
        """The forwarder's own file descriptors (its pipe's two ends)."""
        return self._fd, self._mark_fd

    def _forward(self) -> None:
        while True:
            try:
                chunk = os.read(self._fd, _CHUNK)
            except OSError:
                return
            if not chunk:
                return
            self._take(self._pending + chunk)

    def _take(self, data: bytes) -> None:
        """Send the whole lines of `data`, cut at each mark; keep the rest."""
        token = self._token
        while (at := data.find(token)) >= 0:
            self._lines(data[:at], final=True)
            data = data[at + len(token):]
            with self._reached_cv:
                self._reached += 1
                self._reached_cv.notify_all()
        # A mark may be cut in two by a read: keep what could be its start.
        keep = next((n for n in range(min(len(token) - 1, len(data)), 0, -1)
                     if token.startswith(data[-n:])), 0)
        head, tail = (data[:-keep], data[-keep:]) if keep else (data, b"")
        self._pending = self._lines(head, final=False) + tail

    def _lines(self, data: bytes, final: bool) -> bytes:
        """Send the whole lines of `data` (all of it if `final`); return the rest."""
        text, newline, rest = data.rpartition(b"\n")
        if final and rest:  # the unfinished last line goes too
            text, rest = text + newline + rest, b""
        elif not newline and len(rest) >= _CHUNK:  # a huge line goes in pieces
            text, rest = rest, b""
        if text:
            self._send(Output(text.decode("utf-8", errors="replace")))
        return rest

    def send_after(self, message: FromWorker, started: float | None = None) -> None:
        """Send what was written so far, then `message`; a reply to a move
        whose think() `started` then (`time.perf_counter()`) says the seconds
        since, to its sending: the parent's clock ends the move's wall there."""
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # a thinker may have replaced them
                stream.flush()
        with self._lock:
            self._asked += 1
            wanted = self._asked
            try:
                os.write(self._mark_fd, self._token)
            except OSError:
                wanted = 0
            with self._reached_cv:
                self._reached_cv.wait_for(lambda: self._reached >= wanted, _MARK_WAIT)
            if started is not None and isinstance(message, Reply):
                message = replace(message, elapsed=max(message.elapsed,
                                                       time.perf_counter() - started))
            self._send(message)
