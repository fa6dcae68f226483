"""How a session plays, as frozen values: `Session(players, config, options)`, the
tournament's rules in `SessionOptions` and how its matches run in its `RunOptions`."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from csl_game.engine.background import SchedulerFactory, default_scheduler
from csl_game.engine.match import Adjudicator
from csl_game.engine.runners.base import MEMORY_LIMIT_MB, SETUP_TIME_LIMIT, RunnerFactory
from csl_game.engine.runners.probe import SetupReport
from csl_game.engine.runners.thread import ThreadRunner
from csl_game.engine.scheduler import Opening, runner_factory
from csl_game.engine.scoring import Points, round_robin
from csl_game.errors import ConfigError

if TYPE_CHECKING:
    from csl_game.engine.runners.process import WorkerPool

__all__ = ["Fixture", "SessionOptions", "RunOptions"]


class Fixture(NamedTuple):
    """A match of a session, by player index; the opening's moves are forced."""

    white: int
    red: int
    opening: Opening = ()


@dataclass(frozen=True)
class RunOptions:
    """How a session's matches run, whatever they are: where the thinkers'
    code runs, how many matches at once, and the limits of setting a thinker
    up. `of()` makes the runner factory of the command line's three values
    (each given once).

    Raises:
        ConfigError: workers below 1, or a setup limit or memory limit that is not positive.
    """

    runner_factory: RunnerFactory = ThreadRunner
    """How the foreground match's AI players' moves are run (worker processes,
    or threads with in_process); the scheduler's matches make theirs of
    `in_process` and the limits."""
    workers: int = 1
    """Matches at once, the one on screen included."""
    in_process: bool = False
    """Thinker code runs on threads of this process (debugging), not in workers."""
    foreground: bool = True
    """One match at a time is played here, advanced by the frontend."""
    executor: Executor | None = None
    """Where the scheduler plays its matches (a Dask client's executor), if not here."""
    pool: WorkerPool | None = None
    """Warm worker processes (those of the setup probes run before the session,
    `csl_game.engine.runners.probe.probe_all`) for the scheduler's matches to
    take; the session closes it when it ends. Without one, a session that runs
    worker processes here makes its own, and its own probes' workers go to it."""
    scheduler_factory: SchedulerFactory = default_scheduler
    setup_limit: float = SETUP_TIME_LIMIT
    """Seconds each AI player may take to be set up and named."""
    memory_limit_mb: int = MEMORY_LIMIT_MB
    """Memory each AI player's processes may use, in MB."""
    known_setups: Sequence[SetupReport | None] | None = None
    """Setups already made (a session played again): not asked anew; kept as a tuple."""

    @classmethod
    def of(cls, in_process: bool, setup_limit: float = SETUP_TIME_LIMIT,
           memory_limit_mb: int = MEMORY_LIMIT_MB, **more: Any) -> RunOptions:
        """Matches whose AI players run as `in_process` says: on threads, or in
        worker processes held to `setup_limit` seconds to be set up and
        `memory_limit_mb`, their runner factory made of these same values (each
        given once) and of `more`'s `pool` (warm workers) if it has one; `more`
        sets the other fields.

        Raises:
            ConfigError: as the options themselves.
        """
        return cls(runner_factory=runner_factory(in_process, more.get("pool"), setup_limit,
                                                 memory_limit_mb),
                   in_process=in_process, setup_limit=setup_limit,
                   memory_limit_mb=memory_limit_mb, **more)

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ConfigError(f"workers must be at least 1, got {self.workers}")
        if not self.setup_limit > 0:
            raise ConfigError(f"the setup time limit must be positive, got {self.setup_limit}")
        if self.memory_limit_mb < 1:
            raise ConfigError(f"the memory limit must be positive, got {self.memory_limit_mb}")
        if self.known_setups is not None and not isinstance(self.known_setups, tuple):
            object.__setattr__(self, "known_setups", tuple(self.known_setups))


@dataclass(frozen=True)
class SessionOptions:
    """Everything about a session but its players, board and results file:
    the tournament's rules (which matches, their points, how a game may end
    early, how a tie is broken) and, in `run`, how its matches run.
    `again()` of a session is a `dataclasses.replace` of these.
    """

    points: Points = Points()
    complete: bool = True
    """A tournament plays every pair twice (once with each colour), else once."""
    competition: bool = False
    """A tie in first place is broken by the competition rules."""
    fixtures: Sequence[Fixture] | None = None
    """The matches to play, kept as a tuple; by default one match (two
    players) or a round robin."""
    tournament: bool | None = None
    """Two players play a round robin too; by default only three or more do."""
    adjudicator: Adjudicator | None = None
    """Ends a game early with a result proven in its position (`Match`'s
    adjudicator: `csl_game.services.analysis.adjudicate`); None: games are
    played to their end. A plain function, so that a job can go to Dask."""
    run: RunOptions = RunOptions()
    """How the matches run."""

    def fixtures_for(self, players: int) -> tuple[Fixture, ...]:
        """The matches of a session of this many players: `fixtures`, or a round
        robin (three players or more, or `tournament`), or one match."""
        if self.fixtures is not None:
            return tuple(self.fixtures)
        if self.tournament or (self.tournament is None and players > 2):
            return tuple(Fixture(w, r) for w, r in round_robin(players, self.complete))
        return (Fixture(0, 1),)

    def __post_init__(self) -> None:
        if self.fixtures is not None and not isinstance(self.fixtures, tuple):
            object.__setattr__(self, "fixtures", tuple(self.fixtures))
