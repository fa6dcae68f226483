"""Running think() on a background thread of this process (for debugging thinkers)."""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import replace

from csl_game.engine.runners.answer import ask, crashed, exception_detail
from csl_game.engine.runners.base import (
    Forfeit,
    ForfeitReason,
    InfoCallback,
    ReadyJob,
    ThinkJob,
    ThinkOutcome,
    TimedRunner,
)
from csl_game.engine.runners.clocks import ThreadClock, backstop
from csl_game.errors import ThinkerError
from csl_game.model.board import Board
from csl_game.thinker.api import AbstractThinker, CancellationToken, MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["ThreadRunner"]


class _ThreadJob(ThinkJob):
    """think() on a thread of its own; on the ``cpu`` clock a move costs that
    thread's processor time (the threads a thinker starts itself are not
    counted here: run it in a worker process for that)."""

    def __init__(self, thinker: AbstractThinker, board: Board, config: MatchConfig) -> None:
        self._limit = config.time_limit_ms / 1000
        self._allowed = (config.time_limit_ms + config.time_margin_ms) / 1000
        self._cpu = config.clock == "cpu"
        self._backstop = backstop(self._allowed) if self._cpu else self._allowed
        self._what = "CPU time" if self._cpu else "wall-clock time"
        self._clock: ThreadClock | None = None
        self._cpu_from = 0.0
        self._thread: threading.Thread | None = None
        self._token = CancellationToken(self._limit, self._read if self._cpu else None)
        self._done = threading.Event()
        self._outcome: ThinkOutcome | None = None
        self._started = time.perf_counter()
        self._wall = 0.0
        self._thread = threading.Thread(target=self._run, args=(thinker, board),
                                        name=f"think-{thinker}", daemon=True)
        self._thread.start()
        if self._cpu:
            self._clock = ThreadClock(self._thread)

    def _read(self) -> float:
        """The thinking thread's processor seconds since it started (its own
        reading when it asks)."""
        if self._thread is not None and threading.current_thread() is self._thread:
            return time.thread_time() - self._cpu_from
        return self._charged() if self._clock is not None else 0.0

    def _charged(self) -> float:
        if self._clock is None:
            return time.perf_counter() - self._started
        return max(0.0, self._clock.read() - self._cpu_from)

    def _run(self, thinker: AbstractThinker, board: Board) -> None:
        self._cpu_from = time.thread_time()
        answer, elapsed = ask(thinker, board, self._token)
        if self._cpu:
            elapsed = time.thread_time() - self._cpu_from
        self._wall = time.perf_counter() - self._started
        if isinstance(answer, BaseException):  # every failure of user code is a forfeit
            reason = ForfeitReason.WORKER_DIED if crashed(answer) else ForfeitReason.EXCEPTION
            self._outcome = ThinkOutcome(Forfeit(reason, exception_detail(answer)), elapsed)
        else:
            self._outcome = ThinkOutcome(answer, elapsed)
        self._done.set()

    def _late(self, charged: float, wall: float | None = None) -> ThinkOutcome:
        self._token.cancel()
        wall = time.perf_counter() - self._started if wall is None else wall
        margin = (f" and a margin of {(self._allowed - self._limit) * 1000:.0f} ms"
                  if self._allowed > self._limit else "")
        detail = f"time limit {self._limit * 1000:.0f} ms of {self._what}{margin}"
        if charged > self._allowed:
            detail += (f"; it used {charged * 1000:.0f} ms" if self._cpu
                       else f"; it answered after {charged * 1000:.0f} ms")
        else:
            detail += (f"; it was still not done after {wall:.1f} s on the wall clock, "
                       f"having used {charged * 1000:.0f} ms of CPU time")
        return ThinkOutcome(Forfeit(ForfeitReason.TIMEOUT, detail), max(charged, self._limit))

    def poll(self) -> ThinkOutcome | None:
        return self.wait(0)

    def wait(self, timeout: float | None) -> ThinkOutcome | None:
        end = None if timeout is None else time.perf_counter() + timeout
        while True:
            if self._done.is_set():
                assert self._outcome is not None
                if self._outcome.elapsed > self._allowed or self._wall >= self._backstop:
                    return self._late(self._outcome.elapsed, self._wall)
                return self._outcome
            now = time.perf_counter()
            charged = self._charged()
            if charged > self._allowed or now - self._started >= self._backstop:
                return self._late(charged)
            # One thread's clock runs at most as fast as the wall clock.
            step = min(self._allowed - charged, self._started + self._backstop - now)
            if end is not None:
                if now >= end:
                    return None
                step = min(step, end - now)
            self._done.wait(max(step, 0.0005))

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
        self._job = _ThreadJob(self._thinker, board.copy(), config)
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
