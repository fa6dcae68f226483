"""A session's matches played off screen: its scheduler, and what it plays
under typed keys (a fixture of the session, or a match of a tie-break round)."""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, Protocol

from csl_game.engine.scheduler import JobResult, MatchJob, Scheduler

__all__ = ["FixtureKey", "TieKey", "Key", "SchedulerFactory", "default_scheduler",
           "Background"]


@dataclass(frozen=True)
class FixtureKey:
    """The session's match `index` (0-based, in fixture order)."""

    index: int


@dataclass(frozen=True)
class TieKey:
    """Match `pairing` of tie-break round `number` of `stage` ('doubled', 'halved')."""

    stage: str
    number: int
    pairing: int


Key = FixtureKey | TieKey


def _order(key: Key) -> tuple[int, str, int, int]:
    """Fixtures first, in match order; then tie-break matches, in theirs."""
    if isinstance(key, FixtureKey):
        return 0, "", key.index, 0
    return 1, key.stage, key.number, key.pairing


class SchedulerFactory(Protocol):
    """Makes the scheduler: (slots, executor, in_process, watched)."""

    def __call__(self, slots: int, executor: Executor | None, in_process: bool,
                 watched: bool) -> Scheduler: ...


def default_scheduler(slots: int, executor: Executor | None, in_process: bool,
                      watched: bool) -> Scheduler:
    return Scheduler(slots, executor, in_process, watched)


class Background:
    """The scheduler of a session, made when first needed, and the names
    (White, Red) of what it plays, by key. Given the session's `pool` (a
    process WorkerPool), its matches take their workers from there."""

    def __init__(self, slots: int, executor: Executor | None, in_process: bool,
                 factory: SchedulerFactory = default_scheduler, pool: Any = None) -> None:
        self._args = (max(1, slots), executor, in_process)
        self._factory = factory
        self._pool = pool
        self.scheduler: Scheduler | None = None
        self.running: dict[Key, tuple[str, str]] = {}

    def ensure(self) -> Scheduler:
        if self.scheduler is None:
            self.scheduler = self._factory(*self._args, False)
            if self._pool is not None and isinstance(self.scheduler, Scheduler):
                self.scheduler.share_pool(self._pool)  # the session's warm workers
        return self.scheduler

    @property
    def has_room(self) -> bool:
        return self.ensure().has_room

    def submit(self, key: Key, job: MatchJob, names: tuple[str, str]) -> None:
        self.ensure().submit(key, job)
        self.running[key] = names

    def finished(self) -> list[tuple[Key, JobResult | BaseException]]:
        """What ended since the last call (no longer running)."""
        if self.scheduler is None:
            return []
        done: list[tuple[Key, JobResult | BaseException]] = []
        for key, outcome in self.scheduler.finished():
            assert isinstance(key, (FixtureKey, TieKey))
            self.running.pop(key, None)
            done.append((key, outcome))
        return done

    def indices(self) -> set[int]:
        """The fixtures being played."""
        return {k.index for k in self.running if isinstance(k, FixtureKey)}

    def pairings(self) -> list[tuple[str, str]]:
        """(White, Red) names of what is being played, in match order."""
        return [self.running[k] for k in sorted(self.running, key=_order)]

    def wait_any(self, timeout: float) -> None:
        if self.scheduler is not None:
            self.scheduler.wait_any(timeout)

    def close(self) -> None:
        if self.scheduler is not None:
            self.scheduler.close()
        self.running.clear()
