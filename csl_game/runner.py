"""Running a thinker's think() off the caller's thread, with a time limit.

A `ThinkerRunner` owns one thinker for one match and starts a `ThinkJob` per
move. Jobs are polled (the GUI, every frame) or waited on (the console); both
give the same `ThinkOutcome`. The match engine only sees this interface, so
the thread runner here and a process runner are interchangeable.
"""

from __future__ import annotations

import threading
import time
import traceback
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from csl_game.board import Board
from csl_game.errors import ThinkerError
from csl_game.thinker import AbstractThinker, CancellationToken, FutureMove, ThinkerPrototype

__all__ = ["ForfeitReason", "ThinkOutcome", "ThinkJob", "ReadyJob", "ThinkerRunner",
           "ThreadRunner", "RunnerFactory", "InfoCallback"]

InfoCallback = Callable[[str], None]


class ForfeitReason(Enum):
    """Why a player lost the match without a winning run."""

    EXCEPTION = "raised an exception"
    TIMEOUT = "exceeded the time limit"
    NO_MOVE = "returned no move"
    INVALID_COLUMN = "chose a column that does not exist"
    FULL_COLUMN = "chose a full column"
    NO_PIECES = "chose a shape it has no pieces of"
    IGNORED_CANCELLATION = "ignored the request to stop thinking"
    WORKER_DIED = "crashed its process"
    MEMORY = "exceeded the memory limit"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class ThinkOutcome:
    """What one think() call came to: a move, or a forfeit and why."""

    move: FutureMove | None
    """The move returned, or None when the thinker forfeited in the runner."""
    elapsed: float
    """Seconds the thinker took."""
    forfeit: ForfeitReason | None = None
    """Set when the runner already knows the thinker loses."""
    detail: str = ""
    """Human-readable detail: exception text and traceback, exit code, ..."""


class ThinkJob(ABC):
    """One running think() call."""

    @abstractmethod
    def poll(self) -> ThinkOutcome | None:
        """The outcome if known now (enforcing the time limit), else None."""

    @abstractmethod
    def wait(self, timeout: float | None) -> ThinkOutcome | None:
        """Block up to `timeout` seconds for the outcome; None if not known yet."""

    @abstractmethod
    def cancel(self) -> None:
        """Ask the thinker to stop; the job ends without a move."""


class ThinkerRunner(ABC):
    """Runs one thinker for the length of a match."""

    name: str
    """The thinker's display name (its str())."""

    @abstractmethod
    def start(self, board: Board) -> ThinkJob:
        """Start thinking about `board` (the runner copies it)."""

    def close(self) -> None:
        """Release what the runner holds (threads, processes)."""


RunnerFactory = Callable[[ThinkerPrototype, InfoCallback], ThinkerRunner]


def _exception_detail(exc: BaseException) -> str:
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return f"{type(exc).__name__}: {exc}\n{text.rstrip()}"


class _ThreadJob(ThinkJob):
    def __init__(self, thinker: AbstractThinker, board: Board, limit: float) -> None:
        self._limit = limit
        self._token = CancellationToken()
        self._done = threading.Event()
        self._outcome: ThinkOutcome | None = None
        self._started = time.perf_counter()
        self._thread = threading.Thread(target=self._run, args=(thinker, board),
                                        name=f"think-{thinker}", daemon=True)
        self._thread.start()

    def _run(self, thinker: AbstractThinker, board: Board) -> None:
        start = time.perf_counter()
        try:
            move = thinker.think(board, self._token)
            elapsed = time.perf_counter() - start
            if not isinstance(move, FutureMove):
                self._outcome = ThinkOutcome(None, elapsed, ForfeitReason.EXCEPTION,
                                             f"think() returned {move!r}, not a FutureMove")
            else:
                self._outcome = ThinkOutcome(move, elapsed)
        except BaseException as e:  # user code: every failure is a forfeit
            self._outcome = ThinkOutcome(None, time.perf_counter() - start,
                                         ForfeitReason.EXCEPTION, _exception_detail(e))
        self._done.set()

    def _late(self) -> ThinkOutcome:
        self._token.cancel()
        return ThinkOutcome(None, time.perf_counter() - self._started,
                            ForfeitReason.TIMEOUT, f"time limit {self._limit * 1000:.0f} ms")

    def poll(self) -> ThinkOutcome | None:
        return self.wait(0)

    def wait(self, timeout: float | None) -> ThinkOutcome | None:
        remaining = self._limit - (time.perf_counter() - self._started)
        wait_for = max(0.0, remaining if timeout is None else min(timeout, remaining))
        if self._done.wait(wait_for):
            assert self._outcome is not None
            if self._outcome.elapsed > self._limit:
                return self._late()
            return self._outcome
        if time.perf_counter() - self._started >= self._limit:
            return self._late()
        return None

    def cancel(self) -> None:
        self._token.cancel()


class ReadyJob(ThinkJob):
    """A job whose outcome is known from the start (a forced move, a failed setup)."""

    def __init__(self, outcome: ThinkOutcome) -> None:
        self._outcome = outcome

    def poll(self) -> ThinkOutcome | None:
        return self._outcome

    def wait(self, timeout: float | None) -> ThinkOutcome | None:
        return self._outcome

    def cancel(self) -> None:
        pass


class ThreadRunner(ThinkerRunner):
    """Runs think() on a background thread of this process.

    Good for debugging a thinker (breakpoints, print). A thinker that ignores
    cancellation keeps its thread busy: use the process runner to contain it.
    """

    def __init__(self, prototype: ThinkerPrototype, info: InfoCallback | None = None) -> None:
        self._limit = prototype.match_config.time_limit_ms / 1000
        self._thinker: AbstractThinker | None = None
        self._setup_error = ""
        try:
            self._thinker = prototype.create(info)
            self.name = str(self._thinker)
        except ThinkerError as e:
            self._setup_error = str(e)
            self.name = prototype.display_name
        self._job: ThinkJob | None = None

    def start(self, board: Board) -> ThinkJob:
        if self._thinker is None:
            return ReadyJob(ThinkOutcome(None, 0.0, ForfeitReason.EXCEPTION, self._setup_error))
        self._job = _ThreadJob(self._thinker, board.copy(), self._limit)
        return self._job

    def close(self) -> None:
        if self._job is not None:
            self._job.cancel()
