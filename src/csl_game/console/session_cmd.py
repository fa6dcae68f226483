"""The ``session`` verb: a complete tournament in the terminal, on the session engine."""

from __future__ import annotations

import argparse
import re
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import Executor
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from csl_game.console.progress import SessionProgress
from csl_game.console.render import ConsoleListener, render_standings
from csl_game.engine import (
    MEMORY_LIMIT_MB,
    SetupReport,
    WorkerStartError,
    probe_all,
    worker_pool,
)
from csl_game.engine.match import Match, MatchResult, Player
from csl_game.engine.options import Fixture
from csl_game.engine.ratings import plus_minus, rate_records
from csl_game.engine.results import ResultsWriter, duplicates_note, first_lines, read_results
from csl_game.engine.scheduler import default_workers, runner_factory
from csl_game.engine.session import PostMatch, Session, SessionEvent, SessionOptions, TieBreakRound
from csl_game.engine.standings import Points, Standing, round_robin
from csl_game.engine.tiebreak import TieBreak
from csl_game.errors import ConfigError
from csl_game.services import narration
from csl_game.services.forfeits import Forfeits
from csl_game.services.openings import read_book
from csl_game.services.options import adjudicator_of, points_of
from csl_game.services.settings import read_session_file
from csl_game.services.setup_file import refusal
from csl_game.services.site import follow
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

if TYPE_CHECKING:
    from csl_game.engine import WorkerPool
    from csl_game.online.broadcast import Broadcaster

__all__ = ["run_session", "results_paths", "check_thinkers", "warm_pool", "report_every", "setup_limit_of", "memory_limit_of",
           "print_forfeits", "DASK_TIMEOUT"]

DASK_TIMEOUT = 10.0
"""Seconds to reach a Dask scheduler before giving up."""
_DASK_ADDRESS = re.compile(r"^(?:(tcp|tls|inproc|ucx|ws|wss)://)?\[?[\w.:-]+\]?:\d{1,5}$")


def warm_pool(in_process: bool, stack: ExitStack) -> WorkerPool | None:
    """A pool for the setup probes to leave their workers in, for the session's
    matches to take (`SessionOptions.pool`); closed with `stack`. None in-process."""
    if in_process:
        return None
    pool = worker_pool()
    stack.callback(pool.close)
    return pool


def check_thinkers(players: Sequence[Player], where: Sequence[str], in_process: bool,
                   setup_limit: float, memory_limit_mb: int = MEMORY_LIMIT_MB,
                   pool: WorkerPool | None = None) -> list[SetupReport | None]:
    """Set each AI player up once, in a worker process, before anything plays;
    returns the reports (None for humans) for the session to use. With a
    `pool`, the set-up workers wait there for the session's first matches.

    Raises:
        ConfigError: a thinker refuses its parameters (`where` names each player).
        WorkerStartError: no worker process could be started.
    """
    protos = [p for p in players if isinstance(p, ThinkerPrototype)]
    reports = iter(probe_all(protos, in_process=in_process, setup_limit=setup_limit,
                             memory_limit_mb=memory_limit_mb, pool=pool))
    known: list[SetupReport | None] = []
    for player, place in zip(players, where):
        report = next(reports) if isinstance(player, ThinkerPrototype) else None
        if isinstance(player, ThinkerPrototype) and report is not None:
            problem = refusal(player, report)
            if problem is not None:
                raise ConfigError(f"{place}: {problem}")
        known.append(report)
    return known


def _executor(args: argparse.Namespace, stack: ExitStack) -> Executor | None:
    if args.dask is None:
        return None
    address = args.dask.strip()
    if not _DASK_ADDRESS.match(address):
        raise ConfigError(f"--dask: '{args.dask}' is not a scheduler address "
                          "(HOST:PORT or tcp://HOST:PORT)")
    try:
        from dask.distributed import Client
    except ImportError:
        raise ConfigError("--dask needs the dask extra: pip install 'csl-game[dask]'") from None
    client = _connect(Client, address)
    stack.callback(client.close)
    executor: Executor = client.get_executor()
    return executor


def _connect(client_class: Any, address: str) -> Any:
    """A client of the scheduler at `address`, within DASK_TIMEOUT seconds.

    Dask's own timeout does not cover every case (a port that accepts but
    never answers), so the attempt runs on a thread this waits for.

    Raises:
        ConfigError: the scheduler cannot be reached in time.
    """
    got: list[Any] = []
    failed: list[BaseException] = []

    def connect() -> None:
        try:
            got.append(client_class(address, timeout=DASK_TIMEOUT))
        except BaseException as e:  # noqa: BLE001 - reported as one line below
            failed.append(e)

    thread = threading.Thread(target=connect, name="csl-dask-connect", daemon=True)
    thread.start()
    thread.join(DASK_TIMEOUT + 0.5)
    if got:
        return got[0]
    why = (f"{type(failed[0]).__name__}: {failed[0]}" if failed
           else f"no answer within {DASK_TIMEOUT:g} s")
    raise ConfigError(f"cannot reach the Dask scheduler at {address}: {why}".splitlines()[0])


def _workers(args: argparse.Namespace) -> int:
    if args.verbose or args.listen is not None:
        return 1  # one match at a time, here: every move is printed or broadcast
    workers = default_workers() if args.workers is None else args.workers
    if workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {workers}")
    return workers


def results_paths(results: str | None, resume: str | None) -> tuple[str, bool]:
    """(the results file, whether to resume from it) of --results and --resume.

    Raises:
        ConfigError: both name files, and not the same one.
    """
    if results and resume and results != resume:
        raise ConfigError("--results and --resume name different files; --resume appends "
                          "to the file it resumes from")
    return (resume or results or ""), bool(resume)


def run_session(args: argparse.Namespace, mc: MatchConfig) -> int:
    """Play the session the arguments describe; returns the exit status.

    Raises:
        ConfigError: bad input (a thinker refusing its parameters included).
        WorkerStartError: the program could not start a worker process; the
            results written so far are kept, and the session can be resumed.
    """
    paths = tuple(args.thinkers)
    entries = read_session_file(args.game_file)
    players = [ThinkerPrototype(e.thinker, e.params, mc, paths) for e in entries]
    points = points_of(args) or Points()
    workers = _workers(args)
    limit, memory = setup_limit_of(args), memory_limit_of(args)
    path, resume = results_paths(args.results, args.resume)
    docs = _resumed(path) if resume else []
    where = [f"session file {args.game_file}, thinker {i}" for i in range(1, len(players) + 1)]
    try:
        with ExitStack() as stack:
            pool = warm_pool(args.in_process or args.dask is not None, stack)
            known = check_thinkers(players, where, args.in_process, limit, memory, pool)
            executor = _executor(args, stack)
            writer = ResultsWriter(path) if path else None
            options = SessionOptions(
                points=points,
                runner_factory=runner_factory(args.in_process, pool, limit, memory),
                workers=workers, in_process=args.in_process, pool=pool,
                foreground=args.verbose or args.listen is not None,
                competition=args.competition, executor=executor, tournament=True,
                setup_limit=limit, memory_limit_mb=memory, known_setups=known,
                adjudicator=adjudicator_of(args),
                fixtures=_book_fixtures(args, mc, players))
            session = Session(players, mc, options, results=writer)
            stack.callback(session.abort)
            done = session.resume(docs, path)
            if args.site:
                follow(session, args.site, points, docs)
            broadcaster = None
            if args.listen is not None:
                from csl_game.console.tourney_cmd import start_broadcast

                broadcaster = start_broadcast(session, args)
                stack.callback(broadcaster.close)
            _play(session, args, done, broadcaster)
    except WorkerStartError as e:
        kept = (f"; the results so far are in {path}: resume with --resume {path}"
                if path and Path(path).is_file() else "")
        raise WorkerStartError(f"{e}{kept}") from None
    elo = {int(r.name): plus_minus(r)
           for r in rate_records([str(i) for i in range(len(session.players))], session.records)}
    print_forfeits(Forfeits.of(r.result for r in session.records))
    _print_final(session.standings(), session.tie_break, elo)
    return 0


def print_forfeits(forfeits: Forfeits, noun: str = "matches", out: TextIO | None = None) -> None:
    """The forfeits by reason, a line of `out` (standard output) when there were
    any; and the warning when too many games were lost on time, on standard error."""
    summary = forfeits.summary(noun)
    if summary is not None:
        print(f"\n{summary}", file=out or sys.stdout, flush=True)
    warning = forfeits.warning(noun)
    if warning is not None:
        print(f"csl-game: warning: {warning}", file=sys.stderr, flush=True)


def report_every(args: argparse.Namespace) -> int | None:
    """N of --report-every N (None: not given).

    Raises:
        ConfigError: below 1.
    """
    every: int | None = getattr(args, "report_every", None)
    if every is not None and every < 1:
        raise ConfigError(f"--report-every must be at least 1, got {every}")
    return every


def setup_limit_of(args: argparse.Namespace) -> float:
    """Seconds of --setup-time-limit.

    Raises:
        ConfigError: below 1 ms.
    """
    limit: int = args.setup_time_limit
    if limit < 1:
        raise ConfigError(f"--setup-time-limit must be at least 1 ms, got {limit}")
    return min(limit, 3_600_000) / 1000


MIN_MEMORY_LIMIT_MB = 64
"""Below this not even the interpreter of a worker starts."""


def memory_limit_of(args: argparse.Namespace) -> int:
    """MB of --memory-limit.

    Raises:
        ConfigError: below MIN_MEMORY_LIMIT_MB.
    """
    limit: int = args.memory_limit
    if limit < MIN_MEMORY_LIMIT_MB:
        raise ConfigError(f"--memory-limit must be at least {MIN_MEMORY_LIMIT_MB} MB, got {limit}")
    return min(limit, 1 << 30)


def _book_fixtures(args: argparse.Namespace, mc: MatchConfig,
                   players: Sequence[object]) -> list[Fixture] | None:
    """With --openings: every pairing of the round robin from each opening of the
    book (both colours, as the round robin plays them); else None."""
    if not args.openings:
        return None
    book = read_book(args.openings, mc)
    return [Fixture(w, r, opening) for opening in book
            for w, r in round_robin(len(players))]


def _resumed(path: str) -> list[dict[str, Any]]:
    docs, twice = first_lines(read_results(path))
    if twice:
        print(f"csl-game: note: {duplicates_note(path, twice)}", file=sys.stderr, flush=True)
    return docs


def _play(session: Session, args: argparse.Namespace, done: set[int],
          broadcaster: Broadcaster | None = None) -> None:
    if not args.quiet:
        _print_plan(session, len(done))
    with SessionProgress(session.total_matches, len(done), session.standings,
                         quiet=args.quiet or args.verbose,
                         report_every=report_every(args)) as progress:
        session.subscribe(lambda event: _on_event(event, session, progress))

        def play(match: Match) -> MatchResult:
            if broadcaster is not None:
                broadcaster.follow_match(match)
            return _verbose_match(match) if args.verbose else match.run()

        session.run(play)


def _on_event(event: SessionEvent, session: Session, progress: SessionProgress) -> None:
    if isinstance(event, PostMatch):
        record = event.record
        progress.record(event.index + 1, session.names[record.white], session.names[record.red],
                        record.result)
    elif isinstance(event, TieBreakRound) and not progress.quiet:
        progress.say(narration.tie_break_round(event.round, event.players))


def _verbose_match(match: Match) -> MatchResult:
    match.subscribe(ConsoleListener().on_match_event)
    return match.run()


def _print_plan(session: Session, done: int) -> None:
    mc = session.config
    print(f"Session: {session.total_matches} matches, {mc.rows}x{mc.cols}, "
          f"{mc.win_sequence} in a row, {mc.timing_text()}"
          + (f"; {done} already played" if done else ""), flush=True)


def _print_final(table: list[Standing], tb: TieBreak | None, elo: dict[int, str]) -> None:
    print("\nFinal standings:")
    print(render_standings(table, elo))
    if tb is not None:
        print("\nTie-break for first place:")
        for step in tb.steps:
            print(f"  - {step}")
        if tb.tied:
            print("  Officially tied: " + ", ".join(s.name for s in table if s.player in tb.tied))
    sys.stdout.flush()
