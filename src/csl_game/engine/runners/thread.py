"""Running think() on a background thread of this process (for debugging thinkers)."""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import replace

from csl_game.engine.runners.answer import Answer, ask, crashed, exception_detail
from csl_game.engine.runners.base import (
    CANCEL_GRACE,
    Forfeit,
    ForfeitReason,
    InfoCallback,
    ReadyJob,
    ThinkJob,
    ThinkOutcome,
    TimedRunner,
)
from csl_game.engine.runners.clocks import MoveClock, ThreadClock
from csl_game.errors import ThinkerError
from csl_game.model.board import Board
from csl_game.thinker.api import AbstractThinker, CancellationToken, MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["ThreadRunner"]


class _ThreadJob(ThinkJob):
    """think() on a thread of its own, timed by a `MoveClock` as a worker's move
    is: on the ``cpu`` clock a move costs that thread's processor time (the
    threads a thinker starts itself are not counted here: run it in a worker
    process for that)."""

    def __init__(self, thinker: AbstractThinker, board: Board, config: MatchConfig,
                 at_limit: bool = False) -> None:
        self._config = config
        self._at_limit = at_limit
        """At the limit, ask the thinker to stop and take its answer (`TimedRunner.at_limit`)."""
        self._asked_at: float | None = None
        """When the thinker was asked to stop at its limit (with `at_limit`)."""
        self._move: MoveClock | None = None
        """The move's clock, started by the thinking thread itself."""
        self._token = CancellationToken(config.time_limit_ms / 1000,
                                        self._charged if config.clock == "cpu" else None)
        self._done = threading.Event()
        self._answer: tuple[Answer | Forfeit, float, float] | None = None
        """What think() came to, and the move's charged and wall seconds then."""
        threading.Thread(target=self._run, args=(thinker, board), name=f"think-{thinker}",
                         daemon=True).start()

    def _charged(self) -> float:
        move = self._move
        return move.charged() if move is not None else 0.0

    def _run(self, thinker: AbstractThinker, board: Board) -> None:
        clock = ThreadClock(threading.current_thread()) if self._config.clock == "cpu" \
            else None
        move = self._move = MoveClock(self._config, clock.read if clock else None,
                                      starved=clock.waited if clock else None)
        answer, _ = ask(thinker, board, self._token)
        if isinstance(answer, BaseException):  # every failure of user code is a forfeit
            reason = ForfeitReason.WORKER_DIED if crashed(answer) else ForfeitReason.EXCEPTION
            result: Answer | Forfeit = Forfeit(reason, exception_detail(answer))
        else:
            result = answer
        self._answer = (result, move.charged(), move.wall())  # read here, while it lives
        self._done.set()

    def _late(self, detail: str, charged: float, wall: float) -> ThinkOutcome:
        self._token.cancel()
        return ThinkOutcome(Forfeit(ForfeitReason.TIMEOUT, detail), charged, wall)

    def poll(self) -> ThinkOutcome | None:
        return self.wait(0)

    def wait(self, timeout: float | None) -> ThinkOutcome | None:
        end = None if timeout is None else time.perf_counter() + timeout
        while True:
            move = self._move
            if self._done.is_set() and move is not None and self._answer is not None:
                result, charged, wall = self._answer
                late = move.verdict(charged, wall)
                if late and self._at_limit and not isinstance(result, Forfeit):
                    late = None  # asked to stop at its limit, it answered
                return (self._late(late, charged, wall) if late
                        else ThinkOutcome(result, charged, wall))
            now = time.perf_counter()
            if move is not None:
                late = move.over()
                if late is not None:
                    if not self._at_limit:
                        return self._late(late, move.charged(), move.wall())
                    if (deaf := self._ask_to_stop(now, move)) is not None:
                        return deaf
            if end is not None and now >= end:
                return None
            next_at = move.next_check(now) if move is not None else now + 0.001
            if self._asked_at is not None:
                next_at = min(now + 0.01, self._asked_at + CANCEL_GRACE)
            if end is not None:
                next_at = min(next_at, end)
            self._done.wait(max(next_at - now, 0.0005))

    def _ask_to_stop(self, now: float, move: MoveClock) -> ThinkOutcome | None:
        """At the limit: ask the thinker to stop, and wait `CANCEL_GRACE` for
        its answer; the forfeit of a thinker that did not answer by then."""
        if self._asked_at is None:
            self._asked_at = now
            self._token.cancel()
        if now - self._asked_at < CANCEL_GRACE:
            return None
        return ThinkOutcome(Forfeit(ForfeitReason.IGNORED_CANCELLATION,
                                    f"no answer {CANCEL_GRACE:.1f} s after being asked to "
                                    f"stop (time limit {self._config.time_limit_ms} ms)"),
                            move.charged(), move.wall())

    def cancel(self) -> None:
        self._token.cancel()


class ThreadRunner(TimedRunner):
    """Runs think() on a background thread of this process.

    Good for debugging a thinker (breakpoints, print). A thinker that ignores
    cancellation keeps its thread busy: use the process runner to contain it.
    """

    def __init__(self, prototype: ThinkerPrototype, info: InfoCallback | None = None) -> None:
        self._config = prototype.match_config
        self._thinker: AbstractThinker | None = None
        self._setup_error = ""
        try:
            self._thinker = prototype.create(info)
            self.name = str(self._thinker)
        except ThinkerError as e:
            self._setup_error = str(e)
            self.name = prototype.default_name
        except KeyboardInterrupt:
            raise
        except BaseException as e:  # user code: SystemExit in setup() is a forfeit too
            self._setup_error = (f"thinker {prototype.fqn} could not be set up: "
                                 f"{type(e).__name__}: {e}")
            self.name = prototype.default_name
        self._job: ThinkJob | None = None

    def start(self, board: Board, time_limit_ms: int | None = None) -> ThinkJob:
        if self._thinker is None:
            return ReadyJob(ThinkOutcome(Forfeit(ForfeitReason.SETUP, self._setup_error), 0.0))
        config = (self._config if time_limit_ms is None
                  else replace(self._config, time_limit_ms=max(1, time_limit_ms)))
        self._job = _ThreadJob(self._thinker, board.copy(), config, self.at_limit)
        return self._job

    def close(self) -> None:
        if self._job is not None:
            self._job.cancel()
        # A thinker with resources of its own (an external engine's process)
        # frees them now rather than when it is collected.
        # Its failure there is not the match's: the match has its result.
        close = getattr(self._thinker, "close", None)
        if callable(close):
            with contextlib.suppress(Exception):
                close()
