"""The ``session`` verb: a complete tournament in the terminal, on the session engine."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from csl_game.console.lab import LabOutput, give_nodes, lab_book
from csl_game.console.playing import (
    check_thinkers,
    dask_executor,
    memory_limit_of,
    print_forfeits,
    report_every,
    results_paths,
    resumed_lines,
    setup_limit_of,
    warm_pool,
)
from csl_game.console.progress import SessionProgress
from csl_game.console.render import ConsoleListener, render_standings
from csl_game.engine import (
    Fixture,
    Match,
    MatchReplayed,
    MatchResult,
    Points,
    PostMatch,
    ResultsWriter,
    RunOptions,
    Session,
    SessionEvent,
    SessionOptions,
    Standing,
    TieBreak,
    TieBreakRound,
    WorkerStartError,
    default_workers,
    plus_minus,
    rate_records,
    round_robin,
)
from csl_game.errors import ConfigError, ThinkerError
from csl_game.services import narration
from csl_game.services.flag_values import (
    add_engine_sources,
    adjudicator_of,
    match_config,
    points_of,
    unknown_track_config,
)
from csl_game.services.forfeits import Forfeits
from csl_game.services.settings import read_session_engines, read_session_file, session_line_numbers
from csl_game.services.site import DEFAULT_TITLE, LiveSite, follow
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

if TYPE_CHECKING:
    from csl_game.online.broadcast import Broadcaster

__all__ = ["run_session"]


def _workers(args: argparse.Namespace) -> int:
    if args.verbose or args.listen is not None:
        return 1  # one match at a time, here: every move is printed or broadcast
    workers = default_workers() if args.workers is None else args.workers
    if workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {workers}")
    return workers


def run_session(args: argparse.Namespace) -> int:
    """Play the session the arguments describe; returns the exit status.

    Raises:
        ConfigError: bad input (a thinker refusing its parameters included).
        WorkerStartError: the program could not start a worker process; the
            results written so far are kept, and the session can be resumed.
    """
    add_engine_sources(args, read_session_engines(args.game_file))
    mc = unknown_track_config(args) if args.unknown_track is not None else match_config(args)
    paths = tuple(args.thinkers)
    entries = read_session_file(args.game_file)
    players = []
    for entry, line in zip(entries, session_line_numbers(args.game_file)):
        try:
            players.append(ThinkerPrototype(entry.thinker, entry.params, mc, paths))
        except ThinkerError as e:
            raise ConfigError(f"session file {args.game_file}, line {line}: {e}") from None
    give_nodes(players, args.nodes)
    points = points_of(args) or Points()
    workers = _workers(args)
    limit, memory = setup_limit_of(args), memory_limit_of(args)
    path, resume = results_paths(args.results, args.resume)
    docs = resumed_lines(path) if resume else []
    where = [f"session file {args.game_file}, thinker {i}" for i in range(1, len(players) + 1)]
    # the site is there from the start (starting, then the schedule), and has a
    # last write however the session ends (final, or stopped)
    site = (LiveSite(args.site, points, title=args.title or DEFAULT_TITLE, docs=docs,
                     results_file=path or None, config=mc)
            if args.site else None)
    try:
        with ExitStack() as stack:
            lab = LabOutput(args, stack)
            fixtures = _book_fixtures(args, mc, players)
            pool = warm_pool(args.in_process or args.dask is not None, stack)
            known = check_thinkers(players, where, args.in_process, limit, memory, pool,
                                   args.network)
            executor = dask_executor(args, stack)
            writer = ResultsWriter(path) if path else None
            run = RunOptions.of(args.in_process, limit, memory, workers=workers,
                                foreground=args.verbose or args.listen is not None,
                                executor=executor, known_setups=known, pool=pool)
            options = SessionOptions(points=points, competition=args.competition,
                                     tournament=True, adjudicator=adjudicator_of(args),
                                     fixtures=fixtures, run=run)
            session = Session(players, mc, options, results=writer)
            stack.callback(session.abort)
            lab.follow(session)
            done = session.resume(docs, path)
            if done:
                lab.say(f"resumed {len(done)} matches from {path}")
            if site is not None:
                follow(session, site.folder, points, docs, site=site)
            broadcaster = None
            if args.listen is not None:
                from csl_game.console.tourney_cmd import start_broadcast

                broadcaster = start_broadcast(session, args)
                stack.callback(broadcaster.close)
            try:
                _play(session, args, done, broadcaster, site)
            except KeyboardInterrupt:
                lab.say(f"interrupted: {len(session.records)} of {session.total_matches} "
                        "matches played")
                raise
            lab.say("ended: " + "; ".join(f"{s.position}. {s.name} {s.points:g} pts "
                                          f"({s.wins}-{s.draws}-{s.losses})"
                                          for s in session.standings()))
    except WorkerStartError as e:
        kept = (f"; the results so far are in {path}: resume with --resume {path}"
                if path and Path(path).is_file() else "")
        raise WorkerStartError(f"{e}{kept}") from None
    finally:
        if site is not None:
            site.close()  # final once the session ended, else stopped
    elo = {int(r.name): plus_minus(r)
           for r in rate_records([str(i) for i in range(len(session.players))], session.records)}
    print_forfeits(Forfeits.of(r.result for r in session.records))
    _print_final(session.standings(), session.tie_break, elo)
    return 0


def _book_fixtures(args: argparse.Namespace, mc: MatchConfig,
                   players: Sequence[object]) -> list[Fixture] | None:
    """With --openings: every pairing of the round robin from each opening of the
    book (both colours, as the round robin plays them); with --no-swap, each
    pairing of the first leg twice with its colours (from each opening, with
    a book); else None (the session's own round robin)."""
    book = lab_book(args, mc, drawn=False)
    if not args.no_swap:
        return None if book is None else [Fixture(w, r, opening) for opening in book
                                          for w, r in round_robin(len(players))]
    first_leg = round_robin(len(players), complete=False)
    return [Fixture(w, r, opening) for opening in (book or [()])
            for w, r in first_leg + first_leg]


def _play(session: Session, args: argparse.Namespace, done: set[int],
          broadcaster: Broadcaster | None = None, site: LiveSite | None = None) -> None:
    if not args.quiet:
        _print_plan(session, len(done))
    with SessionProgress(session.total_matches, len(done), session.standings,
                         quiet=args.quiet or args.verbose,
                         report_every=report_every(args)) as progress:
        session.subscribe(lambda event: _on_event(event, session, progress))

        def play(match: Match) -> MatchResult:
            if broadcaster is not None:
                broadcaster.follow_match(match)
            if site is not None:
                site.follow_match(match)
            return _verbose_match(match) if args.verbose else match.run()

        session.run(play)


def _on_event(event: SessionEvent, session: Session, progress: SessionProgress) -> None:
    if isinstance(event, PostMatch):
        record = event.record
        progress.record(event.index + 1, session.names[record.white], session.names[record.red],
                        record.result)
    elif isinstance(event, MatchReplayed):
        print(narration.terminal_safe(
            f"csl-game: match {event.index + 1} ({event.white} vs {event.red}) is played again, "
            f"not scored: {event.detail}"), file=sys.stderr, flush=True)
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
            print(narration.terminal_safe(f"  - {step}"))
        if tb.tied:
            print(narration.terminal_safe(
                "  Officially tied: " + ", ".join(s.name for s in table if s.player in tb.tied)))
    sys.stdout.flush()
