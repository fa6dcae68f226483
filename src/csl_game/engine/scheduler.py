"""Playing matches N at a time, off the caller's thread: locally or on Dask.

A `MatchJob` is one whole match, self-contained (players by name and
parameters, settings, an optional forced opening), so it can run anywhere.
`play_job()` plays it through the ordinary match engine, its AI players in
worker processes (or threads with `in_process`), and returns a `JobResult`.
The `Scheduler` keeps up to `slots` jobs running on an executor — its own
thread pool by default, or a Dask cluster's — and hands back the ones that
finished, without blocking unless asked to.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Callable, Hashable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from functools import partial
from typing import Any

from csl_game.engine.match import Adjudicator, Match, MatchEvent, MatchResult, ThinkingInfo
from csl_game.engine.naming import failed_setups_factory
from csl_game.engine.results import PlayerInfo
from csl_game.engine.runners.answer import MoveAnswer
from csl_game.engine.runners.base import (
    MEMORY_LIMIT_MB,
    SETUP_TIME_LIMIT,
    Forfeit,
    InfoCallback,
    ReadyJob,
    RunnerFactory,
    ThinkerRunner,
    ThinkJob,
    ThinkOutcome,
    TimedRunner,
    start_timed,
)
from csl_game.engine.runners.thread import ThreadRunner
from csl_game.model.board import Board, PColor, PShape
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["Opening", "MatchJob", "JobResult", "play_job", "Scheduler", "default_workers",
           "OpeningRunner", "runner_factory"]

Opening = tuple[tuple[int, PShape], ...]
"""Forced first moves of a match, as (column, shape)."""


def default_workers() -> int:
    """One match per core, so no more thinkers think at once than there are cores."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class MatchJob:
    """One match, self-contained so that it can be played in any process."""

    white: PlayerInfo
    red: PlayerInfo
    config: MatchConfig
    paths: tuple[str, ...] = ()
    """--thinkers paths the players' thinkers may come from."""
    in_process: bool = False
    """Run the thinkers on threads of the playing process instead of worker processes."""
    opening: Opening = ()
    forfeits: tuple[Forfeit | None, Forfeit | None] = (None, None)
    """(White, Red): the forfeit of a player whose setup failed before the session."""
    setup_limit: float = SETUP_TIME_LIMIT
    """Seconds a worker may take to set its thinker up."""
    memory_limit_mb: int = MEMORY_LIMIT_MB
    """Memory each thinker's processes may use, in MB."""
    adjudicator: Adjudicator | None = None
    """Ends the game early with a proven result (see `Match`)."""
    network: tuple[bool, bool] = (False, False)
    """(White, Red): whether the player's workers keep the network in their sandbox."""


@dataclass(frozen=True)
class JobResult:
    """A finished job: the match's result and what the thinkers said while thinking."""

    result: MatchResult
    info: tuple[tuple[PColor, str], ...] = ()
    """(player, text) of every on_thinking_info() and output line, in order."""


class OpeningRunner(TimedRunner):
    """Plays the opening's forced moves for its thinker, then lets it think."""

    def __init__(self, inner: ThinkerRunner, opening: Opening) -> None:
        self._inner = inner
        self._opening = opening
        self.name = inner.name

    def start(self, board: Board, time_limit_ms: int | None = None) -> ThinkJob:
        n = board.move_count
        if n < len(self._opening):
            col, shape = self._opening[n]
            return ReadyJob(ThinkOutcome(MoveAnswer(col, shape), 0.0))
        return start_timed(self._inner, board, time_limit_ms)

    def close(self) -> None:
        self._inner.close()


def runner_factory(in_process: bool, pool: Any = None,
                   setup_limit: float = SETUP_TIME_LIMIT,
                   memory_limit_mb: int = MEMORY_LIMIT_MB) -> RunnerFactory:
    """Worker processes (from `pool`, a process WorkerPool, if given); threads with
    `in_process`. A daemonic process (a Dask worker's) starts workers too."""
    if in_process:
        return ThreadRunner
    from csl_game.engine.runners.process import ProcessRunner  # only when an AI plays

    return partial(ProcessRunner, pool=pool, startup_timeout=setup_limit,
                   memory_limit_mb=memory_limit_mb)


def with_opening(factory: RunnerFactory, opening: Opening) -> RunnerFactory:
    """`factory`, its runners playing `opening` first."""
    if not opening:
        return factory

    def make(prototype: ThinkerPrototype, info: InfoCallback) -> ThinkerRunner:
        return OpeningRunner(factory(prototype, info), opening)

    return make


def play_job(job: MatchJob, listener: Callable[[MatchEvent], None] | None = None,
             stop: threading.Event | None = None, pool: Any = None) -> JobResult:
    """Play one match to its end and return its result.

    With a process `WorkerPool`, the players' worker processes come from and
    go back to it, so a session does not start two processes a match.

    Raises:
        MatchAborted: `stop` was set before the match ended.
        WorkerStartError: no worker process could be started for a player.
    """
    white = ThinkerPrototype(job.white.thinker, job.white.params, job.config, job.paths)
    red = ThinkerPrototype(job.red.thinker, job.red.params, job.config, job.paths)
    white.network, red.network = job.network
    names = (job.white.name, job.red.name)
    factory = failed_setups_factory(runner_factory(job.in_process, pool, job.setup_limit,
                                                   job.memory_limit_mb),
                                    (white, red), names, job.forfeits)
    match = Match(job.config, white, red, with_opening(factory, job.opening), names=names,
                  adjudicator=job.adjudicator)
    info: list[tuple[PColor, str]] = []

    def collect(event: MatchEvent) -> None:
        if isinstance(event, ThinkingInfo):
            info.append((event.color, event.text))

    match.subscribe(collect)
    if listener is not None:
        match.subscribe(listener)
    try:
        result = match.run(stop=stop)
    finally:
        match.close()
    return JobResult(result, tuple(info))


class Scheduler:
    """Up to `slots` jobs at once, each under a key of the caller's choosing.

    Without an executor, jobs run on threads of this process, their thinkers
    in worker processes that are kept between matches (in `pool`, if given:
    the session's, which it closes; else in one of the scheduler's own);
    `close()` stops them all at once. With an executor (e.g. Dask's), jobs go
    to it as they are.
    """

    def __init__(self, slots: int, executor: Executor | None = None,
                 in_process: bool = False, watched: bool = False, pool: Any = None) -> None:
        self.slots = max(1, slots)
        self.in_process = in_process
        self.watched = watched
        """Whether someone watches the matches: if not, no apparent move time is waited out."""
        self.running: dict[Hashable, Future[JobResult]] = {}
        self.stop_event = threading.Event()
        self._executor = executor
        self._own: ThreadPoolExecutor | None = None
        self._pool: Any = pool
        self._owns_pool = pool is None

    @property
    def has_room(self) -> bool:
        return len(self.running) < self.slots and not self.stop_event.is_set()

    def submit(self, key: Hashable, job: MatchJob) -> None:
        """Start playing `job`; its result comes back under `key`."""
        if not self.watched:
            job = dataclasses.replace(job, config=dataclasses.replace(job.config,
                                                                      min_move_time_ms=0))
        if self._executor is not None:
            self.running[key] = self._executor.submit(play_job, job)
            return
        if self._own is None:
            self._own = ThreadPoolExecutor(max_workers=self.slots, thread_name_prefix="match")
            if not self.in_process and self._pool is None:
                from csl_game.engine.runners.process import WorkerPool

                self._pool = WorkerPool()
        self.running[key] = self._own.submit(play_job, job, stop=self.stop_event,
                                             pool=self._pool)

    def finished(self) -> list[tuple[Hashable, JobResult | BaseException]]:
        """The jobs that ended since the last call: their result, or what they raised."""
        out: list[tuple[Hashable, JobResult | BaseException]] = []
        for key, future in list(self.running.items()):
            if not future.done():
                continue
            del self.running[key]
            try:
                out.append((key, future.result()))
            except BaseException as e:  # noqa: BLE001 - the caller decides what a failure means
                out.append((key, e))
        return out

    def wait_any(self, timeout: float | None = None) -> None:
        """Block until a running job ends (at most `timeout` seconds)."""
        if self.running:
            wait(list(self.running.values()), timeout=timeout, return_when=FIRST_COMPLETED)

    def close(self) -> None:
        """Stop the running jobs and return at once; their threads close their
        worker processes as soon as they see the stop."""
        self.stop_event.set()
        for future in self.running.values():
            future.cancel()
        self.running.clear()
        if self._own is not None:
            self._own.shutdown(wait=False, cancel_futures=True)
            self._own = None
        if self._pool is not None and self._owns_pool:
            self._pool.close()
        self._pool = None

    def share_pool(self, pool: Any) -> None:
        """Take workers from (and give them back to) `pool`, a process
        WorkerPool that the caller closes; before the first job."""
        if self._own is None:
            self._pool, self._owns_pool = pool, False
