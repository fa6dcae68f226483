"""A stand-in for the session's Scheduler whose matches end only when a test says."""

from __future__ import annotations

from collections.abc import Hashable

from csl_game.engine import MatchResult
from csl_game.engine.background import FixtureKey
from csl_game.engine.scheduler import JobResult, MatchJob
from csl_game.model.board import Winner


class HeldScheduler:
    """Stands in for the Scheduler: matches end only when the test says."""

    made: list[HeldScheduler] = []

    def __init__(self, slots: int, executor: object = None, in_process: bool = False,
                 watched: bool = False) -> None:
        self.slots = slots
        self.running: dict[Hashable, MatchJob] = {}
        self.ended: dict[Hashable, JobResult | BaseException] = {}
        self.closed = False
        HeldScheduler.made.append(self)

    @property
    def has_room(self) -> bool:
        return len(self.running) < self.slots and not self.closed

    def submit(self, key: Hashable, job: MatchJob) -> None:
        self.running[key] = job

    def end(self, index: int, winner: Winner = Winner.WHITE, failed: bool = False) -> None:
        """Let match `index` finish (White wins, unless `winner` says otherwise)."""
        key = FixtureKey(index)
        job = self.running[key]
        self.ended[key] = (RuntimeError("no worker could be started") if failed else
                           JobResult(MatchResult(winner, job.white.name, job.red.name)))

    @property
    def indices(self) -> list[int]:
        """The session's matches it plays, in match order."""
        return sorted(k.index for k in self.running if isinstance(k, FixtureKey))

    def finished(self) -> list[tuple[Hashable, JobResult | BaseException]]:
        out = []
        for key in list(self.ended):
            out.append((key, self.ended.pop(key)))
            del self.running[key]
        return out

    def wait_any(self, timeout: float | None = None) -> None:
        raise AssertionError("a test session never blocks on its scheduler")

    def close(self) -> None:
        self.closed = True
        self.running.clear()
