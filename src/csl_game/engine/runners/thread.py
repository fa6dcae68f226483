"""Running think() on a background thread of this process (for debugging thinkers)."""

from __future__ import annotations

import contextlib
import threading
import time

from csl_game.engine.runners.answer import ask, crashed, exception_detail
from csl_game.engine.runners.base import (
    Forfeit,
    ForfeitReason,
    InfoCallback,
    ReadyJob,
    ThinkerRunner,
    ThinkJob,
    ThinkOutcome,
)
from csl_game.errors import ThinkerError
from csl_game.model.board import Board
from csl_game.thinker.api import AbstractThinker, CancellationToken
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["ThreadRunner"]


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
        answer, elapsed = ask(thinker, board, self._token)
        if isinstance(answer, BaseException):  # every failure of user code is a forfeit
            reason = ForfeitReason.WORKER_DIED if crashed(answer) else ForfeitReason.EXCEPTION
            self._outcome = ThinkOutcome(Forfeit(reason, exception_detail(answer)), elapsed)
        else:
            self._outcome = ThinkOutcome(answer, elapsed)
        self._done.set()

    def _late(self) -> ThinkOutcome:
        self._token.cancel()
        return ThinkOutcome(Forfeit(ForfeitReason.TIMEOUT,
                                    f"time limit {self._limit * 1000:.0f} ms"),
                            time.perf_counter() - self._started)

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
            self.name = prototype.default_name
        except KeyboardInterrupt:
            raise
        except BaseException as e:  # user code: SystemExit in setup() is a forfeit too
            self._setup_error = (f"thinker {prototype.fqn} could not be set up: "
                                 f"{type(e).__name__}: {e}")
            self.name = prototype.default_name
        self._job: ThinkJob | None = None

    def start(self, board: Board) -> ThinkJob:
        if self._thinker is None:
            return ReadyJob(ThinkOutcome(Forfeit(ForfeitReason.SETUP, self._setup_error), 0.0))
        self._job = _ThreadJob(self._thinker, board.copy(), self._limit)
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
