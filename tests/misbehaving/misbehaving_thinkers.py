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


class HangupThinker(AbstractThinker):
    """Closes every descriptor it did not open (its pipes to the referee among
    them) and spins on: its pipe ends, its process does not."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        os.closerange(3, 4096)
        while True:
            pass


class SegfaultThinker(AbstractThinker):
    """Sends itself SIGSEGV."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        os.kill(os.getpid(), signal.SIGSEGV)
        time.sleep(10)
        return FutureMove.NO_MOVE


class HogThinker(AbstractThinker):
    """Allocates without limit, touching every page so that it is resident
    memory on every OS (params: 'once' asks for one 4 GB block, 'thread'
    fills memory from a background thread and waits)."""

    def setup(self, params: str) -> None:
        self.mode = params

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        if self.mode == "once":
            block = b"x" * (4 << 30)
            ct.wait(60)
            return FutureMove(len(block) % 7, PShape.ROUND)
        if self.mode == "thread":
            threading.Thread(target=self._hoard, daemon=True).start()
            ct.wait(60)
            return FutureMove.NO_MOVE
        return self._hoard()

    @staticmethod
    def _hoard() -> FutureMove:
        hoard = []
        while True:
            hoard.append(b"x" * (1 << 24))


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


# ------------------------------------------------ misbehaving in setup() or __str__
def _first_legal(board: Board) -> FutureMove:
    shape = board.turn.shape
    if board.piece_count(board.turn, shape) == 0:
        shape = shape.other
    return FutureMove(_first_free(board), shape)


class SetupHangThinker(AbstractThinker):
    """setup() never returns."""

    def setup(self, params: str) -> None:
        while True:
            time.sleep(1)

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        return _first_legal(board)


class SetupExitThinker(AbstractThinker):
    """setup() ends the interpreter: SystemExit(9), or os._exit(0) with params 'hard'."""

    def setup(self, params: str) -> None:
        if params == "hard":
            os._exit(0)
        raise SystemExit(9)

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        return _first_legal(board)


class SetupBaseThinker(AbstractThinker):
    """setup() raises a BaseException that is no Exception."""

    def setup(self, params: str) -> None:
        raise KeyboardInterrupt("setup pressed Ctrl+C")

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        return _first_legal(board)


class SetupHogThinker(AbstractThinker):
    """setup() fills memory, touching every page (3 GB unless params say MB)."""

    def setup(self, params: str) -> None:
        hoard = []
        for _ in range(int(params or 3072) // 16):
            hoard.append(b"x" * (16 << 20))
        self.hoard = hoard

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        return _first_legal(board)


class StrHangThinker(AbstractThinker):
    """Its __str__ never returns."""

    def __str__(self) -> str:
        while True:
            time.sleep(1)

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        return _first_legal(board)


# ------------------------------------------------ leaving things behind
def _spin(seconds: float) -> None:
    end = time.time() + seconds
    while time.time() < end:
        pass


class ForkerThinker(AbstractThinker):
    """On its first move, starts a child that starts a grandchild, which burn
    CPU or sleep for a minute; then plays.

    params 'setsid': the grandchild leaves the tree (double fork, setsid) and
    burns CPU; elsewhere than POSIX, it is a plain grandchild.
    """

    def setup(self, params: str) -> None:
        self.escape = params == "setsid"
        self.forked = False

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        import subprocess

        if self.forked:  # once a match is enough
            return _first_legal(board)
        self.forked = True
        script = ("import os, subprocess, sys, time\n"
                  "escape = sys.argv[1] == '1' and hasattr(os, 'setsid')\n"
                  "code = 'import time\\nend = time.time() + 60\\nwhile time.time() < end: pass'\n"
                  "subprocess.Popen([sys.executable, '-c', code], start_new_session=escape)\n"
                  "if escape:\n    os._exit(0)\n"
                  "time.sleep(60)\n")
        child = subprocess.Popen([sys.executable, "-c", script, "1" if self.escape else "0"])
        if self.escape:
            child.wait()  # its child is an orphan now, in a session of its own
        return _first_legal(board)


class LingerThinker(AbstractThinker):
    """Leaves a thread burning CPU after think() returns, then plays legally."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        threading.Thread(target=_spin, args=(60,), daemon=True).start()
        return _first_legal(board)
