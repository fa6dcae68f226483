"""Thinkers that spend a known amount of CPU time, for the clock tests.

Loaded as a --thinkers path. Each spends its CPU on processor time, not on
the wall clock, so what it costs does not depend on how busy the machine is.
Parameters: the share of the time limit to spend, in per cent (default 50).
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time

from csl_game import AbstractThinker, Board, CancellationToken, FutureMove, PShape


def _first_free(board: Board) -> int:
    return next(c for c in range(board.cols) if not board.is_column_full(c))


def _spin(seconds: float, ct: CancellationToken | None = None) -> None:
    """Spend `seconds` of this thread's CPU time, or less if `ct` is cancelled."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        if ct is not None and ct.is_cancellation_requested:
            return


class _Share(AbstractThinker):
    def setup(self, params: str) -> None:
        self.share = int(params or 50) / 100

    def seconds(self) -> float:
        return self.share * self.time_limit_ms / 1000


class SpendThinker(_Share):
    """Spends a share of the limit on this thread, then answers; reports what
    its token said was left."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        left = ct.time_left()
        _spin(self.seconds(), ct)
        self.on_thinking_info(f"left={left:.4f} after={ct.time_left():.4f} "
                              f"elapsed={ct.elapsed():.4f}")
        return FutureMove(_first_free(board), PShape.ROUND)


class TwoThreadsThinker(_Share):
    """Spends the share on each of two threads at once: twice the share in all."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        helper = threading.Thread(target=_spin, args=(self.seconds(), ct))
        helper.start()
        _spin(self.seconds(), ct)
        helper.join()
        return FutureMove(_first_free(board), PShape.ROUND)


class ChildThinker(_Share):
    """Has a child process spend the share while it waits for it."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        code = ("import time\nend = time.process_time() + float(__import__('sys').argv[1])\n"
                "while time.process_time() < end: pass\n")
        child = subprocess.Popen([sys.executable, "-c", code, str(self.seconds())])
        while child.poll() is None and not ct.is_cancellation_requested:
            ct.wait(0.01)
        child.kill()
        child.wait()
        return FutureMove(_first_free(board), PShape.ROUND)


class NapThinker(_Share):
    """Sleeps for the share of the limit (spending no CPU), then answers;
    reports what its token said it used."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        ct.wait(self.seconds())
        self.on_thinking_info(f"elapsed={ct.elapsed():.4f}")
        return FutureMove(_first_free(board), PShape.ROUND)


class OversleepThinker(AbstractThinker):
    """time.sleep(9 * its limit) on every move, deaf to cancellation, then answers."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        time.sleep(9 * self.time_limit_ms / 1000)
        return FutureMove(_first_free(board), PShape.ROUND)


class SlowSetupThinker(AbstractThinker):
    """Spends its parameter's milliseconds of CPU time in setup() (or sleeps
    them, with a leading ``nap:``), then plays the first free column."""

    def setup(self, params: str) -> None:
        nap = params.startswith("nap:")
        seconds = int(params.removeprefix("nap:")) / 1000
        if nap:
            time.sleep(seconds)
        else:
            _spin(seconds)

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        return FutureMove(_first_free(board), PShape.ROUND)
