"""Thinkers that reach beyond their match on purpose, for the isolation tests.

Loaded as a --thinkers path, beside misbehaving_thinkers.py.
"""

from __future__ import annotations

import os
import time

from csl_game import AbstractThinker, Board, CancellationToken, FutureMove, PShape


def _first_legal(board: Board) -> FutureMove:
    col = next(c for c in range(board.cols) if not board.is_column_full(c))
    shape = PShape.ROUND if board.piece_count(board.turn, PShape.ROUND) else PShape.SQUARE
    return FutureMove(col, shape)


class PipeWriterThinker(AbstractThinker):
    """Writes a byte into every pipe among its process's file descriptors but
    its own standard output and error (as any code can find them in
    /proc/self/fd), then plays legally."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        folder = "/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"
        for name in os.listdir(folder):
            fd = int(name)
            if fd <= 2:
                continue
            try:
                if "pipe" in os.readlink(f"{folder}/{name}") or folder == "/dev/fd":
                    os.write(fd, b"x")
            except OSError:
                pass
        return _first_legal(board)


class OrphanThinker(AbstractThinker):
    """Forks a child that sleeps a minute (a plain fork, no exec), writes the
    child's process id to the file its parameters name, then plays legally."""

    def setup(self, params: str) -> None:
        self.pid_file = params

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        if not hasattr(os, "fork") or os.path.exists(self.pid_file):
            return _first_legal(board)
        pid = os.fork()
        if pid == 0:  # the child: sleep, whatever happens to the match
            time.sleep(60)
            os._exit(0)
        with open(self.pid_file, "w") as f:
            f.write(str(pid))
        return _first_legal(board)
