"""The ``league`` verb: rank thinkers by playing every pair, both colours, from fixed openings.

``csl-game league --thinker negamax --thinker "minimax 3" --thinker mcts``
plays every pair ``--games`` times with each colour, each game from one of a
fixed list of openings, on the session engine (``--workers`` at once), and
prints the standings (points, W/D/L, score, average search depth or playouts
reached, moves over the time limit), a pairwise score matrix and the forfeits
by reason.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TextIO

from csl_game.console.lab import LabOutput, give_nodes, lab_book
from csl_game.console.playing import (
    print_forfeits,
    report_every,
    results_paths,
    resumed_lines,
    say_sandbox,
)
from csl_game.console.progress import leaders_line
from csl_game.engine import MatchRecord, Points, ResultsWriter, standings
from csl_game.errors import ConfigError, UsageError
from csl_game.model.notation import format_moves
from csl_game.services.flag_values import adjudicator_of, match_config, points_of
from csl_game.services.league import Entry, GameRecord, League, Tally, tally
from csl_game.services.narration import terminal_safe
from csl_game.services.settings import read_session_engines, read_session_file
from csl_game.services.site import follow
from csl_game.services.tables import Grid
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.discovery import BUILTIN_PACKAGE, catalog
from csl_game.thinker.engine_thinker import EngineSpec
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["run_league", "standings_rows", "matrix_rows", "render"]


def _mean(values: list[float], digits: int) -> str:
    return f"{sum(values) / len(values):.{digits}f}" if values else "-"


def standings_rows(tallies: list[Tally]) -> list[list[str]]:
    """Header and rows of the standings table."""
    rows = [["#", "Thinker", "Pts", "W", "D", "L", "Score", "Elo", "Avg depth", "Avg playouts",
             "Avg nps", "Moves", "Over limit", "Max ms", "Max wall ms"]]
    for i, t in enumerate(tallies):
        rows.append([str(i + 1), t.name, str(t.points), str(t.wins), str(t.draws),
                     str(t.losses), f"{100 * t.score:.1f}%", t.elo, _mean(t.depths, 2),
                     _mean(t.playouts, 0), _mean(t.nps, 0), str(t.moves),
                     str(t.over_limit), f"{1000 * t.max_elapsed:.0f}",
                     "-" if t.max_wall is None else f"{1000 * t.max_wall:.0f}"])
    return rows


def matrix_rows(tallies: list[Tally], matrix: list[list[float | None]]) -> list[list[str]]:
    """Header and rows of the pairwise matrix: the row player's score against each column."""
    rows = [["vs", *(t.name for t in tallies)]]
    for t, line in zip(tallies, matrix):
        rows.append([t.name, *("-" if v is None else f"{100 * v:.0f}%" for v in line)])
    return rows


def render(rows: list[list[str]], markdown: bool, name_col: int = 1) -> str:
    """A table as aligned text or as Markdown; the names column is left-aligned."""
    grid = Grid.of(rows[0], rows[1:], left=(name_col,))
    return grid.markdown() if markdown else grid.text()


def _games_spelled_g(args: argparse.Namespace) -> None:
    """`-g N` once meant --games N here: a number that names no file still does."""
    value = args.game_file
    if value is not None and value.isdigit() and not Path(value).exists():
        args.games, args.game_file = int(value), None


def _entries(specs: Sequence[str], config: MatchConfig, paths: tuple[str, ...]) -> list[Entry]:
    if not specs:
        reg = catalog(paths)
        specs = sorted(reg.short_name(f) for f in reg.classes
                       if f.startswith(BUILTIN_PACKAGE + "."))
    entries: list[Entry] = []
    for spec in specs:
        thinker, _, params = spec.strip().partition(" ")
        proto = ThinkerPrototype(thinker, params.strip(), config, paths)
        entries.append(Entry(thinker, params.strip(), proto))
    if len(entries) < 2:
        raise ConfigError("a league needs at least two thinkers")
    return entries


def _progress(out: TextIO, league: League, points: Points,
              every: int | None = None) -> Callable[[int, int, GameRecord], None]:
    """A line per game; with `every`, a line of the leaders every that many
    games (and after the last) instead."""
    def report(i: int, total: int, rec: GameRecord) -> None:
        if every is not None:
            done = len(league.records)
            if done % every == 0 or done == league.session.total_matches:
                records = [MatchRecord(r.white, r.red, r.result) for r in league.records]
                table = standings(list(league.names), records, points)
                print(terminal_safe(leaders_line(done, total, table, noun="Games")), file=out,
                      flush=True)
            return
        res = rec.result
        white, red = league.names[rec.white], league.names[rec.red]
        how = f" ({res.forfeit})" if res.forfeit else ""
        opening = format_moves(rec.opening)
        print(terminal_safe(f"Game {i}/{total}: {white} vs {red} [{opening}]: {res.winner}{how} "
              f"in {len(res.moves)} moves"), file=out, flush=True)
    return report


def run_league(args: argparse.Namespace) -> int:
    """Play the league the arguments describe and print its tables; 0 when done.

    Raises:
        CslError: bad input (one line, exit 2).
    """
    _games_spelled_g(args)
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, got {args.games}")
    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    config = match_config(args)
    paths = (*args.thinkers, *(EngineSpec.parse(e).source for e in args.engine))
    specs = list(args.thinker)
    if args.game_file is not None:
        declared = read_session_engines(args.game_file)
        paths = (*paths, *(EngineSpec.parse(d).source for d in declared))
        specs += [f"{e.thinker} {e.params}".strip() for e in read_session_file(args.game_file)]
    entries = _entries(specs, config, paths)
    give_nodes([e.prototype for e in entries], args.nodes)
    points = points_of(args)
    assert points is not None
    every = report_every(args)
    openings = lab_book(args, config)
    assert openings is not None
    path, resume = results_paths(args.results, args.resume)
    docs = resumed_lines(path) if resume else []
    writer = ResultsWriter(path) if path else None
    if not args.in_process:
        say_sandbox()
    league = League(entries, config, args.games, openings, in_process=args.in_process,
                    workers=args.workers, results=writer, adjudicator=adjudicator_of(args))
    with ExitStack() as stack:
        lab = LabOutput(args, stack)
        lab.follow(league.session)
        if docs:
            resumed = league.resume(docs, path)
            print(f"Resumed {resumed} games from {path}", file=sys.stderr)
            lab.say(f"resumed {resumed} games from {path}")
        site = (follow(league.session, args.site, points, docs, title=args.title or "League",
                       results_file=path or None) if args.site else None)
        started = time.perf_counter()
        try:
            league.play(None if args.quiet else _progress(sys.stderr, league, points, every))
        except KeyboardInterrupt:
            lab.say(f"interrupted: {len(league.records)} of {league.session.total_matches} "
                    "games played")
            if path:
                print(f"csl-game: {len(league.records)} of {league.session.total_matches} "
                      f"games are in {path}: go on with --resume {path}", file=sys.stderr,
                      flush=True)
            raise
        finally:
            if writer is not None:
                writer.close()
            if site is not None:
                site.close()  # final once every game was played, else stopped
        tallies, matrix = tally(league, points)
        lab.say("ended: " + "; ".join(f"{i}. {t.name} {t.points} pts ({t.wins}-{t.draws}-"
                                      f"{t.losses})" for i, t in enumerate(tallies, 1)))
    print(f"League: {config.rows}x{config.cols}, {config.win_sequence} in a row, "
          f"{config.round_pieces}+{config.square_pieces} pieces, "
          f"{config.timing_text()}, {len(league.records)} games "
          f"({time.perf_counter() - started:.0f} s)\n")
    print(terminal_safe(render(standings_rows(tallies), args.markdown)) + "\n")
    print(terminal_safe(render(matrix_rows(tallies, matrix), args.markdown, name_col=0)))
    print_forfeits(league.forfeits(), "games")
    return 0
