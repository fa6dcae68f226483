"""The ``session`` verb: a complete tournament in the terminal."""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import Executor
from contextlib import ExitStack
from functools import partial
from typing import Any

from csl_game.engine.settings import read_session_file
from csl_game.console.progress import SessionProgress
from csl_game.console.render import ConsoleListener, render_standings
from csl_game.errors import ConfigError
from csl_game.engine.results import ResultsWriter
from csl_game.engine.standings import MatchRecord, Points, Standing
from csl_game.thinker.api import MatchConfig
from csl_game.engine.tiebreak import TieBreak, apply_tie_break, break_first_place_tie
from csl_game.engine.tournament import Tournament, default_workers, play_job

__all__ = ["run_session"]


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
    return client.get_executor()


def _workers(args: argparse.Namespace) -> int:
    if args.verbose:
        return 1
    workers = default_workers() if args.workers is None else args.workers
    if workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {workers}")
    return workers


def _tie_break(t: Tournament, table: list[Standing], executor: Executor | None,
               workers: int) -> TieBreak | None:
    def play_round(players: Any, limit_ms: int) -> list[MatchRecord]:
        sub = Tournament([t.entries[i] for i in players],
                         MatchConfig(**{**t.config.__dict__, "time_limit_ms": limit_ms}),
                         t.points, t.paths, t.in_process)
        sub.run(executor, workers)
        return [MatchRecord(players[r.white], players[r.red], r.result) for r in sub.records]

    return break_first_place_tie(table, t.records, t.points, t.config.time_limit_ms,
                                 play_round)


def run_session(args: argparse.Namespace, mc: MatchConfig) -> int:
    """Play the session the arguments describe; returns the exit status."""
    entries = read_session_file(args.game_file)
    points = Points(args.points_per_win, args.points_per_draw, args.points_per_loss)
    t = Tournament(entries, mc, points, tuple(args.thinkers), args.in_process)
    workers = _workers(args)
    done: set[int] = set()
    if args.resume:
        done = t.resume_from(args.resume)
    with ExitStack() as stack:
        executor = _executor(args, stack)
        path = args.resume or args.results
        writer = ResultsWriter(path) if path else None
        if writer is not None:
            stack.callback(writer.close)
        if not args.quiet:
            _print_plan(t, done)
        job_runner = _verbose_runner() if args.verbose else None
        progress = stack.enter_context(SessionProgress(
            len(t.pairings), len(done), t.standings, quiet=args.quiet or args.verbose))
        t.run(executor, workers, writer, done, progress.record, job_runner)
        table = t.standings()
        tb = _tie_break(t, table, executor, workers) if args.competition else None
    _print_final(apply_tie_break(table, tb), tb)
    return 0


def _verbose_runner() -> Any:
    listener = ConsoleListener()
    return partial(play_job, listener=listener.on_match_event)


def _print_plan(t: Tournament, done: set[int]) -> None:
    print(f"Session: {len(t.pairings)} matches, {t.config.rows}x{t.config.cols}, "
          f"{t.config.win_sequence} in a row, {t.config.time_limit_ms} ms per move"
          + (f"; {len(done)} already played" if done else ""), flush=True)


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
