"""The engine: matches, sessions, results and the runners that run thinkers.

It holds every rule a frontend needs and no user interface. This module is
its front door, the one way in: the services, online play, the frontends
and the command line import what they need from here, never from a module
of the engine (tests/test_layers.py holds every module outside the engine
to it). Worker processes are reached through `process_runner` and
`start_workers_soon`, which import them only when first asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from csl_game.engine.events import (
    MatchReplayed,
    PostMatch,
    PreMatch,
    SessionEnded,
    SessionEvent,
    SessionStarted,
    TieBreakRound,
)
from csl_game.engine.figures import Figures, parse_figures, parse_line
from csl_game.engine.judging import explain, judge, move_text
from csl_game.engine.match import (
    Adjudicator,
    BoardUpdated,
    Human,
    InvalidPlay,
    Match,
    MatchEvent,
    MatchOver,
    MatchResult,
    MatchStarted,
    MovePerformed,
    MovesTakenBack,
    NextTurn,
    PlayedMove,
    Player,
    Resigned,
    ThinkingInfo,
)
from csl_game.engine.options import Fixture, RunOptions, SessionOptions
from csl_game.engine.outcomes import Forfeit, ForfeitReason
from csl_game.engine.presenter import Presenter, SessionState
from csl_game.engine.ratings import Rating, interval_text, plus_minus, rate_records
from csl_game.engine.remote import Remote
from csl_game.engine.results import (
    COLOR_WORDS,
    HUMAN_THINKER,
    SHAPE_WORDS,
    UNRECORDED_CLOCK,
    PlayerInfo,
    ResultsWriter,
    duplicates_note,
    first_lines,
    note_torn,
    numbered_results,
    read_results,
    record_from_json,
    record_to_json,
    recorded_settings,
    result_to_json,
    settings_json,
    torn_tail,
)
from csl_game.engine.runners.answer import MoveAnswer
from csl_game.engine.runners.base import (
    MEMORY_LIMIT_MB,
    SETUP_TIME_LIMIT,
    InfoCallback,
    RunnerFactory,
    ThinkerRunner,
    ThinkJob,
    ThinkOutcome,
    answer_at_limit,
)
from csl_game.engine.runners.probe import SetupProbe, SetupReport, probe_all
from csl_game.engine.runners.thread import ThreadRunner
from csl_game.engine.scheduler import Opening, default_workers, runner_factory
from csl_game.engine.scoring import (
    MatchRecord,
    Points,
    Standing,
    in_table_order,
    round_robin,
    standings,
    tie_order,
    unique_names,
    winner_text,
)
from csl_game.engine.screens import Choice, Screen, ScreenPolicy, mode_text
from csl_game.engine.session import Session
from csl_game.engine.stats import (
    SPRT,
    EloEstimate,
    Pentanomial,
    Status,
    Trinomial,
    logistic_elo,
    normalized_elo,
)
from csl_game.engine.tiebreak import TieBreak, TieRound
from csl_game.errors import WorkerStartError
from csl_game.thinker.prototype import ThinkerPrototype

if TYPE_CHECKING:  # imported when first asked for: see worker_pool()
    from csl_game.engine.runners.process import WorkerPool as WorkerPool

__all__ = [
    # a match, its players, its events and how it ends
    "Match", "MatchResult", "PlayedMove", "Adjudicator", "Human", "Player", "Remote",
    "MatchEvent", "MatchStarted", "NextTurn", "MovePerformed", "InvalidPlay", "BoardUpdated",
    "ThinkingInfo", "MatchOver", "MovesTakenBack", "Resigned",
    "Forfeit", "ForfeitReason", "judge", "explain", "move_text",
    "Figures", "parse_figures", "parse_line",
    # sessions: options, fixtures, states, screens and events
    "Session", "SessionOptions", "RunOptions", "Fixture", "Opening", "SessionState", "Presenter",
    "Screen", "Choice", "ScreenPolicy", "mode_text",
    "SessionEvent", "SessionStarted", "PreMatch", "PostMatch", "MatchReplayed", "TieBreakRound", "SessionEnded",
    # scoring: points, standings and tie-breaks
    "Points", "MatchRecord", "Standing", "standings", "round_robin", "winner_text",
    "unique_names", "TieBreak", "TieRound", "tie_order", "in_table_order",
    # results files
    "ResultsWriter", "PlayerInfo", "read_results", "numbered_results", "first_lines",
    "duplicates_note", "note_torn", "torn_tail", "result_to_json", "COLOR_WORDS", "SHAPE_WORDS", "record_to_json", "record_from_json", "recorded_settings",
    "settings_json",
    "UNRECORDED_CLOCK", "HUMAN_THINKER",
    # statistics and ratings
    "SPRT", "Trinomial", "Pentanomial", "EloEstimate", "Status", "logistic_elo",
    "normalized_elo", "Rating", "rate_records", "plus_minus", "interval_text",
    # running thinkers
    "RunnerFactory", "ThinkerRunner", "ThinkJob", "ThinkOutcome", "InfoCallback", "MoveAnswer",
    "ThreadRunner", "runner_factory", "default_workers", "SETUP_TIME_LIMIT", "MEMORY_LIMIT_MB",
    "answer_at_limit",
    "SetupProbe", "SetupReport", "probe_all", "WorkerStartError", "process_runner",
    "process_runner_available", "start_workers_soon", "worker_pool", "sandbox_note",
]


def process_runner(prototype: ThinkerPrototype, info: InfoCallback,
                   pool: WorkerPool | None = None) -> ThinkerRunner:
    """A runner that plays the thinker's moves in a worker process of its own
    (one of `pool`'s warm workers if it has one for the thinker)."""
    from csl_game.engine.runners.process import ProcessRunner

    return ProcessRunner(prototype, info, pool=pool)


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


def sandbox_note() -> str:
    """The line a session starts with where thinkers' workers get no sandbox
    here, and why ('' where they do): see `csl_game.sandbox`."""
    from csl_game.engine.runners.handle import sandbox_status

    return sandbox_status().line()
