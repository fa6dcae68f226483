"""Complete tournaments at scale: parallel, resumable, results kept safe.

Matches are independent jobs given to any `concurrent.futures.Executor`
(threads here by default, or a Dask cluster's executor). Each job plays one
whole match through the ordinary match engine, its AI players in their own
worker processes, and returns a JSON-ready record. Records are written to
the results file the moment they arrive.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor, wait, FIRST_COMPLETED
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from csl_game.engine.settings import AIEntry
from csl_game.errors import ConfigError
from csl_game.engine.match import Match, MatchEvent
from csl_game.engine.results import (PlayerInfo, ResultsWriter, check_compatible, read_results,
                              record_from_json, record_to_json)
from csl_game.engine.runners.base import RunnerFactory
from csl_game.engine.runners.thread import ThreadRunner
from csl_game.engine.session import (MatchRecord, Points, Standing, round_robin, standings,
                              unique_names)
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["MatchJob", "Tournament", "play_job", "default_workers"]


def default_workers() -> int:
    """One match per core, so no more thinkers think at once than there are cores."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else os.cpu_count() or 1)


@dataclass(frozen=True)
class MatchJob:
    """One match of a tournament, self-contained so it can run anywhere."""

    index: int
    white: AIEntry
    red: AIEntry
    white_info: PlayerInfo
    red_info: PlayerInfo
    config: MatchConfig
    paths: tuple[str, ...] = ()
    in_process: bool = False


def _process_runner_factory(pool: Any = None) -> RunnerFactory:
    from csl_game.engine.runners.process import ProcessRunner

    return ProcessRunner if pool is None else partial(ProcessRunner, pool=pool)


def play_job(job: MatchJob, listener: Callable[[MatchEvent], None] | None = None,
             stop: threading.Event | None = None, pool: Any = None) -> dict[str, Any]:
    """Play one match and return its record (a JSON-ready dict).

    With a `procrunner.WorkerPool`, the players' worker processes come from
    and go back to it, so a session does not start two processes a match.

    Raises:
        MatchAborted: `stop` was set before the match ended.
    """
    # A daemonic process (e.g. a Dask worker) may not start children: use threads there.
    threads = job.in_process or multiprocessing.current_process().daemon
    factory = ThreadRunner if threads else _process_runner_factory(pool)
    white = ThinkerPrototype(job.white.thinker, job.white.params, job.config, job.paths)
    red = ThinkerPrototype(job.red.thinker, job.red.params, job.config, job.paths)
    match = Match(job.config, white, red, factory)
    match.names = (job.white_info.name, job.red_info.name)
    if listener is not None:
        match.subscribe(listener)
    try:
        result = match.run(stop=stop)
    finally:
        match.close()
    return record_to_json(job.index, job.white_info, job.red_info, result, job.config)


def _worker_pool() -> Any:
    from csl_game.engine.runners.process import WorkerPool

    return WorkerPool()


@dataclass
class Tournament:
    """Every pair plays twice, once with each colour, as independent jobs."""

    entries: Sequence[AIEntry]
    config: MatchConfig
    points: Points = Points()
    paths: tuple[str, ...] = ()
    in_process: bool = False
    infos: tuple[PlayerInfo, ...] = field(init=False)
    records: list[MatchRecord] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        if len(self.entries) < 2:
            raise ConfigError(f"a tournament needs at least 2 players, got {len(self.entries)}")
        protos = [ThinkerPrototype(e.thinker, e.params, self.config, self.paths)
                  for e in self.entries]
        names = unique_names(protos)
        self.infos = tuple(PlayerInfo(e.thinker, e.params, n)
                           for e, n in zip(self.entries, names))
        self.pairings = round_robin(len(self.entries))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(i.name for i in self.infos)

    def jobs(self) -> list[MatchJob]:
        return [MatchJob(i, self.entries[w], self.entries[r], self.infos[w], self.infos[r],
                         self.config, self.paths, self.in_process)
                for i, (w, r) in enumerate(self.pairings)]

    def standings(self) -> list[Standing]:
        return standings(self.names, self.records, self.points)

    def resume_from(self, path: str) -> set[int]:
        """Load the records of an earlier run; returns the match indices done.

        Raises:
            ConfigError: the file was made by a different session.
        """
        docs = read_results(path)
        expected = {i: (self.infos[w], self.infos[r]) for i, (w, r) in enumerate(self.pairings)}
        check_compatible(docs, expected, self.config, path)
        index_of = {info: i for i, info in enumerate(self.infos)}
        done = set()
        for doc in docs:
            if doc["match"] not in done:
                done.add(doc["match"])
                self.records.append(record_from_json(doc, index_of))
        return done

    def run(self, executor: Executor | None = None, workers: int = 1,
            results: ResultsWriter | None = None, skip: Collection[int] = (),
            on_record: Callable[[dict[str, Any]], None] | None = None,
            job_runner: Callable[[MatchJob], dict[str, Any]] | None = None
            ) -> list[Standing]:
        """Play every match not in `skip`, at most `workers` at once.

        Without an executor, matches run on threads of this process (their
        thinkers in worker processes); an interruption stops them all.
        """
        todo = [j for j in self.jobs() if j.index not in skip]
        own = executor is None
        stop = threading.Event()
        pool = executor or ThreadPoolExecutor(max_workers=workers,
                                              thread_name_prefix="match")
        workers_pool = _worker_pool() if own and not self.in_process else None
        if job_runner is None:
            job_runner = partial(play_job, stop=stop, pool=workers_pool) if own else play_job
        index_of = {info: i for i, info in enumerate(self.infos)}
        running: set[Future[dict[str, Any]]] = set()
        try:
            while todo or running:
                while todo and len(running) < workers:
                    running.add(pool.submit(job_runner, todo.pop(0)))
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    doc = future.result()
                    if results is not None:
                        results.write(doc)
                    self.records.append(record_from_json(doc, index_of))
                    if on_record is not None:
                        on_record(doc)
        finally:
            stop.set()
            for future in running:
                future.cancel()
            if own:
                pool.shutdown(wait=True, cancel_futures=True)
            if workers_pool is not None:
                workers_pool.close()
        return self.standings()
