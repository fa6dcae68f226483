"""Running a thinker's think() off the caller's thread, with a time limit.

A `ThinkerRunner` owns one thinker for one match and starts a `ThinkJob` per
move. Jobs are polled (the GUI, every frame) or waited on (the console); both
give the same `ThinkOutcome`. The match engine only sees this interface, so
the thread runner and the process runner are interchangeable.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

from csl_game.engine.outcomes import Forfeit, ForfeitReason
from csl_game.engine.runners.answer import Answer, MoveAnswer
from csl_game.errors import WorkerStartError
from csl_game.model.board import Board
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["ForfeitReason", "Forfeit", "ThinkOutcome", "ThinkJob", "ReadyJob", "ThinkerRunner",
           "RunnerFactory", "InfoCallback", "ForfeitRunner", "WorkerStartError",
           "SETUP_TIME_LIMIT", "MEMORY_LIMIT_MB", "CANCEL_GRACE", "TimedRunner", "start_timed",
           "answer_at_limit"]

InfoCallback = Callable[[str], None]

SETUP_TIME_LIMIT = 10.0
"""Seconds a thinker may take to be loaded and set up, its name read (in its worker)."""
MEMORY_LIMIT_MB = 2048
"""The competition's memory limit: 2 GB per thinker (its worker and what it starts)."""
CANCEL_GRACE = 0.4
"""Seconds a thinker has to answer a cancel before its process is killed: on the
match's clock (by default its CPU time, plus its own waits where schedstat
tells them, with the backstop's wall-clock bound)."""


@dataclass(frozen=True)
class ThinkOutcome:
    """What one think() call came to: the thinker's answer, or a failure the runner saw.

    The answer is not judged yet: `csl_game.engine.judging` decides whether it
    is a legal move.
    """

    result: Answer | Forfeit
    """The answer think() returned, or the forfeit the runner saw (an
    exception, the time limit, a dead process, ...)."""
    elapsed: float
    """Seconds the thinker took, on the match's clock (what it is charged)."""
    wall: float | None = None
    """Seconds from the request to the outcome on the wall clock, as the runner
    saw them (None where no runner measured them: a player on another machine)."""

    @property
    def forfeit(self) -> ForfeitReason | None:
        """The reason of the runner's forfeit, or None when think() answered."""
        return self.result.reason if isinstance(self.result, Forfeit) else None

    @property
    def detail(self) -> str:
        """The runner's forfeit detail ('' when think() answered)."""
        return self.result.detail if isinstance(self.result, Forfeit) else ""

    @property
    def move(self) -> MoveAnswer | None:
        """The column and shape when think() returned a FutureMove (not judged), else None."""
        return self.result if isinstance(self.result, MoveAnswer) else None


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

    def close(self) -> None:  # noqa: B027 (a runner that holds nothing needs none)
        """Release what the runner holds (threads, processes)."""


class TimedRunner(ThinkerRunner):
    """A runner that can hold a move to a limit of its own (a game clock's remainder)."""

    at_limit: bool = False
    """Whether a move still thought out at its limit is asked to stop there and
    its answer taken (the best move found so far, which an iterative-deepening
    thinker gives), not lost on time: against a person, who waits on the wall
    clock. A thinker that answers no move, or none within the grace after it
    is asked to stop, still forfeits."""

    @abstractmethod
    def start(self, board: Board, time_limit_ms: int | None = None) -> ThinkJob:
        """Start thinking about `board` (the runner copies it); `time_limit_ms`,
        when given, is this move's limit instead of the match's (what is left
        of the side's game clock)."""


def start_timed(runner: ThinkerRunner, board: Board, time_limit_ms: int | None) -> ThinkJob:
    """`runner.start(board)`, within `time_limit_ms` when it is given and the
    runner can keep to one (a player on another machine keeps the match's)."""
    if time_limit_ms is not None and isinstance(runner, TimedRunner):
        return runner.start(board, time_limit_ms)
    return runner.start(board)


RunnerFactory = Callable[[ThinkerPrototype, InfoCallback], ThinkerRunner]


def answer_at_limit(factory: RunnerFactory) -> RunnerFactory:
    """`factory`, whose runners answer at their limit (`TimedRunner.at_limit`)."""

    def make(prototype: ThinkerPrototype, info: InfoCallback) -> ThinkerRunner:
        runner = factory(prototype, info)
        if isinstance(runner, TimedRunner):
            runner.at_limit = True
        return runner

    return make


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


class ForfeitRunner(TimedRunner):
    """A thinker known to forfeit: its setup failed before the match (in a
    probe), so each of its turns is that forfeit at once, and nothing is started."""

    def __init__(self, name: str, forfeit: Forfeit) -> None:
        self.name = name
        self.forfeit = forfeit

    def start(self, board: Board, time_limit_ms: int | None = None) -> ThinkJob:
        return ReadyJob(ThinkOutcome(self.forfeit, 0.0))
