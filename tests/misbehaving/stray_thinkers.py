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
    """On its worker's first move, forks a child that sleeps a minute (a plain
    fork, no exec) and says so ("forked PID", as its worker sees the child),
    then plays legally."""

    forked = False  # once a worker: a kept worker's next thinker plays only

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        if not hasattr(os, "fork") or OrphanThinker.forked:
            return _first_legal(board)
        OrphanThinker.forked = True
        pid = os.fork()
        if pid == 0:  # the child: sleep, whatever happens to the match
            time.sleep(60)
            os._exit(0)
        print(f"forked {pid}", flush=True)
        return _first_legal(board)
