"""What starting a worker process needs: room for its file descriptors, and
leave to start one from a daemonic process (a Dask worker's)."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
from collections.abc import Iterator

__all__ = ["children_allowed", "fd_headroom"]

_start_lock = threading.Lock()


@contextlib.contextmanager
def children_allowed() -> Iterator[None]:
    """Let a daemonic process (a Dask worker's) start a worker.

    multiprocessing refuses children to daemonic processes because it would
    not end them; these are ended here (a closed handle, the exit hook, the
    worker's own death with its parent), so the refusal does not apply.
    """
    current = multiprocessing.current_process()
    with _start_lock:
        if not current.daemon:
            yield
            return
        current.daemon = False
        try:
            yield
        finally:
            current.daemon = True


_HEADROOM = 8  # file descriptors a start needs beyond its pipes (fork server handshake)


def fd_headroom() -> None:
    """Fail before the fork server is asked, when file descriptors run out:
    a handshake cut short makes the server print a traceback of its own."""
    held = []
    try:
        for _ in range(_HEADROOM):
            held.append(os.open(os.devnull, os.O_RDONLY))
    finally:
        for fd in held:
            os.close(fd)
