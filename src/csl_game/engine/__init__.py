"""The engine: matches, sessions, results and the runners that run thinkers.

It holds every rule a frontend needs and no user interface. This module is
its front door: the services and frontends import what they need from
here, never from `csl_game.engine.runners` (tests/test_layers.py holds the
frontends to it). Worker processes are reached through `process_runner`
and `start_workers_soon`, which import them only when first asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from csl_game.engine.events import (
    PostMatch,
    PreMatch,
    SessionEnded,
    SessionEvent,
    SessionStarted,
    TieBreakRound,
)
from csl_game.engine.match import Human, Match, MatchEvent, MatchResult, Player
from csl_game.engine.options import Fixture, SessionOptions
from csl_game.engine.presenter import Presenter, SessionState
from csl_game.engine.remote import Remote
from csl_game.engine.runners.answer import MoveAnswer
from csl_game.engine.runners.base import (
    MEMORY_LIMIT_MB,
    SETUP_TIME_LIMIT,
    Forfeit,
    ForfeitReason,
    InfoCallback,
    RunnerFactory,
    ThinkerRunner,
    ThinkJob,
    ThinkOutcome,
)
from csl_game.engine.runners.probe import SetupProbe, SetupReport, probe_all
from csl_game.engine.runners.thread import ThreadRunner
from csl_game.engine.scheduler import runner_factory
from csl_game.engine.session import Session
from csl_game.errors import WorkerStartError
from csl_game.thinker.prototype import ThinkerPrototype

if TYPE_CHECKING:  # imported when first asked for: see worker_pool()
    from csl_game.engine.runners.process import WorkerPool as WorkerPool

__all__ = ["Match", "MatchEvent", "MatchResult", "Human", "Player", "Session",
           "SessionOptions", "SessionState", "Fixture", "Presenter", "SessionEvent",
           "SessionStarted", "PreMatch", "PostMatch", "TieBreakRound", "SessionEnded",
           "Forfeit", "ForfeitReason", "InfoCallback", "RunnerFactory", "ThinkerRunner",
           "ThinkJob", "ThinkOutcome", "MoveAnswer", "Remote", "ThreadRunner", "SETUP_TIME_LIMIT", "MEMORY_LIMIT_MB", "SetupProbe", "SetupReport",
           "probe_all", "runner_factory", "WorkerStartError", "process_runner",
           "process_runner_available", "start_workers_soon", "worker_pool"]


def process_runner(prototype: ThinkerPrototype, info: InfoCallback) -> ThinkerRunner:
    """A runner that plays the thinker's moves in a worker process of its own."""
    from csl_game.engine.runners.process import ProcessRunner

    return ProcessRunner(prototype, info)


def process_runner_available() -> bool:
    """Whether worker processes can be used here (multiprocessing imports)."""
    try:
        import csl_game.engine.runners.process  # noqa: F401
    except ImportError:
        return False
    return True


def worker_pool() -> WorkerPool:
    """A pool of warm worker processes (`SessionOptions.pool`): the setup
    probes leave their workers there for a session's matches to take."""
    from csl_game.engine.runners.process import WorkerPool

    return WorkerPool()


def start_workers_soon() -> None:
    """Start the worker processes' fork server in the background now, so the
    first worker of the first match does not wait for it."""
    from csl_game.engine.runners.process import start_server_soon

    start_server_soon()
