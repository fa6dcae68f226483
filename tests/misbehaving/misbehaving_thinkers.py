"""Thinkers that misbehave on purpose, for the isolation tests.

Loaded as a --thinkers path. Each misbehaves on its first think() so that a
match against a well-behaved thinker ends at once.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time

from csl_game import AbstractThinker, Board, CancellationToken, FutureMove, PShape


def _first_free(board: Board) -> int:
    return next(c for c in range(board.cols) if not board.is_column_full(c))


class RaiseThinker(AbstractThinker):
    """Raises from think()."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        raise ValueError("deliberate failure in think")


class SleepyThinker(AbstractThinker):
    """Sleeps past the limit but honours cancellation."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        ct.wait(60)
        return FutureMove.NO_MOVE


class BusyThinker(AbstractThinker):
    """Loops forever without looking at the token."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        while True:
            pass


class ExitThinker(AbstractThinker):
    """Ends its interpreter with os._exit(3)."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        os._exit(3)


class SegfaultThinker(AbstractThinker):
    """Sends itself SIGSEGV."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        os.kill(os.getpid(), signal.SIGSEGV)
        time.sleep(10)
        return FutureMove.NO_MOVE


class HogThinker(AbstractThinker):
    """Allocates without limit (params: 'once' asks for one huge block,
    'thread' fills memory from a background thread and waits)."""

    def setup(self, params: str) -> None:
        self.mode = params

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        if self.mode == "once":
            return FutureMove(len(bytes(1 << 40)), PShape.ROUND)
        if self.mode == "thread":
            threading.Thread(target=self._hoard, daemon=True).start()
            ct.wait(60)
            return FutureMove.NO_MOVE
        return self._hoard()

    @staticmethod
    def _hoard() -> FutureMove:
        hoard = []
        while True:
            hoard.append(bytes(1 << 24))  # address space, not touched pages


class InvalidThinker(AbstractThinker):
    """Returns an invalid move of the kind its params name."""

    def setup(self, params: str) -> None:
        self.kind = params

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        free = _first_free(board)
        moves = {
            "none": FutureMove.NO_MOVE,
            "minus1": FutureMove(-1, PShape.SQUARE),
            "minus2": FutureMove(-2, PShape.ROUND),
            "cols": FutureMove(board.cols, PShape.ROUND),
            "full": FutureMove(0, PShape.ROUND),
            "round": FutureMove(free, PShape.ROUND),
            "shape7": FutureMove(free, 7),  # type: ignore[arg-type]
            "tuple": (free, 0),
            "strcol": FutureMove("1", PShape.ROUND),  # type: ignore[arg-type]
        }
        return moves[self.kind]  # type: ignore[return-value]


class ChattyThinker(AbstractThinker):
    """Prints a lot (params: line count; 'forever' never stops), then plays."""

    def setup(self, params: str) -> None:
        self.lines = -1 if params == "forever" else int(params or 2000)

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        self.on_thinking_info(f"thinking about move {board.move_count}")
        print("to stderr", file=sys.stderr)
        os.write(1, b"raw write to fd 1\n")
        n = 0
        while n != self.lines:
            print(f"line {n} " + "x" * 60)
            n += 1
        print("last words", end="")
        return FutureMove(_first_free(board), board.turn.shape)


class BadSetupThinker(AbstractThinker):
    """Raises from setup()."""

    def setup(self, params: str) -> None:
        raise ValueError(f"cannot parse {params!r}")

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        return FutureMove(0, PShape.ROUND)


class SlowSetupThinker(AbstractThinker):
    """Hangs in setup(), but only inside a worker process."""

    def setup(self, params: str) -> None:
        if multiprocessing.parent_process() is not None:
            time.sleep(60)

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        return FutureMove(_first_free(board), board.turn.shape)
