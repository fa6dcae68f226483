"""The ``session`` verb: a complete tournament in the terminal, on the session engine."""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import Executor
from contextlib import ExitStack

from csl_game.console.progress import SessionProgress
from csl_game.console.render import ConsoleListener, render_standings
from csl_game.engine.match import Match, MatchResult
from csl_game.engine.results import ResultsWriter, read_results
from csl_game.engine.scheduler import default_workers, runner_factory
from csl_game.engine import narration
from csl_game.engine.session import PostMatch, Session, SessionEvent, TieBreakRound
from csl_game.engine.settings import read_session_file
from csl_game.engine.standings import Points, Standing
from csl_game.engine.tiebreak import TieBreak
from csl_game.errors import ConfigError
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["run_session", "results_paths"]


def _executor(args: argparse.Namespace, stack: ExitStack) -> Executor | None:
    if args.dask is None:
        return None
    try:
        from dask.distributed import Client
    except ImportError:
        raise ConfigError("--dask needs the dask extra: pip install 'csl-game[dask]'") from None
    try:
        client = stack.enter_context(Client(args.dask, timeout=10))
    except (OSError, TimeoutError) as e:
        raise ConfigError(f"cannot reach the Dask scheduler at {args.dask}: {e}") from None
    executor: Executor = client.get_executor()
    return executor


def _workers(args: argparse.Namespace) -> int:
    if args.verbose:
        return 1
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
    """Play the session the arguments describe; returns the exit status."""
    paths = tuple(args.thinkers)
    players = [ThinkerPrototype(e.thinker, e.params, mc, paths)
               for e in read_session_file(args.game_file)]
    points = Points(args.points_per_win, args.points_per_draw, args.points_per_loss)
    workers = _workers(args)
    path, resume = results_paths(args.results, args.resume)
    docs = read_results(path) if resume else []
    with ExitStack() as stack:
        executor = _executor(args, stack)
        writer = ResultsWriter(path) if path else None
        session = Session(players, mc, points, runner_factory(args.in_process),
                          workers=workers, in_process=args.in_process, foreground=args.verbose,
                          results=writer, competition=args.competition, executor=executor,
                          tournament=True)
        stack.callback(session.abort)
        done = session.resume(docs, path)
        if not args.quiet:
            _print_plan(session, len(done))
        progress = stack.enter_context(SessionProgress(
            session.total_matches, len(done), session.standings,
            quiet=args.quiet or args.verbose))
        session.subscribe(lambda event: _on_event(event, session, progress))
        session.run(_verbose_match if args.verbose else None)
    _print_final(session.standings(), session.tie_break)
    return 0


def _on_event(event: SessionEvent, session: Session, progress: SessionProgress) -> None:
    if isinstance(event, PostMatch):
        record = event.record
        progress.record(session.names[record.white], session.names[record.red], record.result)
    elif isinstance(event, TieBreakRound) and not progress.quiet:
        progress.say(narration.tie_break_round(event.round, event.players))


def _verbose_match(match: Match) -> MatchResult:
    match.subscribe(ConsoleListener().on_match_event)
    return match.run()


def _print_plan(session: Session, done: int) -> None:
    mc = session.config
    print(f"Session: {session.total_matches} matches, {mc.rows}x{mc.cols}, "
          f"{mc.win_sequence} in a row, {mc.time_limit_ms} ms per move"
          + (f"; {done} already played" if done else ""), flush=True)


def _print_final(table: list[Standing], tb: TieBreak | None) -> None:
    print("\nFinal standings:")
    print(render_standings(table))
    if tb is not None:
        print("\nTie-break for first place:")
        for step in tb.steps:
            print(f"  - {step}")
        if tb.tied:
            print("  Officially tied: " + ", ".join(s.name for s in table if s.player in tb.tied))
    sys.stdout.flush()
