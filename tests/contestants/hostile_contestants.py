"""Hostile contestants a student could write in an afternoon (loaded as a
--thinkers path by tests/test_contestants.py). Each does its harm on its
first move, then plays its first legal move every move, so its matches go
on and only the harm it does elsewhere tells.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import time

from csl_game import AbstractThinker, Board, CancellationToken, FutureMove, PShape

ESCAPEE = b"csl-escapee"
"""The name the escaper's helper gives itself (what the tests look for)."""


def _first_legal(board: Board) -> FutureMove:
    col = next(c for c in range(board.cols) if not board.is_column_full(c))
    shape = PShape.ROUND if board.piece_count(board.turn, PShape.ROUND) else PShape.SQUARE
    return FutureMove(col, shape)


def _ancestors() -> set[int]:
    """This process and its parents, up the chain."""
    found, pid = {os.getpid()}, os.getpid()
    while pid > 1:
        pid = _parent(pid)
        if pid <= 0:
            break
        found.add(pid)
    return found


def _parent(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def _others() -> list[int]:
    """The other thinkers' workers this one can find through /proc: the other
    children of its own worker's parent (only those: these tests may run
    without a sandbox too, and harm nothing else)."""
    me = os.getpid()
    parent = _parent(me)
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    return [int(n) for n in names if n.isdigit() and int(n) != me and _parent(int(n)) == parent]


class _OnceThenPlays(AbstractThinker):
    done = False

    def harm(self) -> None:
        raise NotImplementedError

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        if not type(self).done:
            type(self).done = True
            self.harm()
        return _first_legal(board)


class SiblingStopperThinker(_OnceThenPlays):
    """Sends SIGSTOP to every process it can see but its own chain."""

    def harm(self) -> None:
        for pid in _others():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGSTOP)


class SiblingKillerThinker(_OnceThenPlays):
    """Sends SIGKILL to every process it can see but its own chain."""

    def harm(self) -> None:
        for pid in _others():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


class MainStopperThinker(_OnceThenPlays):
    """Sends SIGSTOP to the tournament's main process: the parent its worker's
    environment names, and every ancestor it can see."""

    def harm(self) -> None:
        targets = _ancestors() - {os.getpid(), 1}
        owner = os.environ.get("CSL_GAME_WORKER", "").partition(":")[0]
        if owner.isdigit():
            targets.add(int(owner))
        for pid in targets:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGSTOP)


class EscaperThinker(_OnceThenPlays):
    """Clears its worker's subreaper flag, then double forks a helper that
    leaves the session (setsid), names itself `ESCAPEE` and burns a core."""

    def harm(self) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 0, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER, 0
        child = os.fork()
        if child == 0:
            if os.fork() == 0:
                os.setsid()
                libc.prctl(15, ctypes.c_char_p(ESCAPEE), 0, 0, 0)  # PR_SET_NAME
                end = time.monotonic() + 120
                while time.monotonic() < end:
                    pass
            os._exit(0)
        os.waitpid(child, 0)
