"""The ``analyse`` verb (alias ``analyze``): a position's every legal move valued,
its proven results stated as such, and the best line."""

from __future__ import annotations

import argparse
import json

from csl_game.console.progress import WorkProgress
from csl_game.engine import process_runner
from csl_game.errors import UsageError
from csl_game.model.board import Board
from csl_game.model.notation import play_moves
from csl_game.services.analysis import Analysis, analyse, moves_text, position_problem
from csl_game.services.flag_values import match_config
from csl_game.thinker.api import MatchConfig

__all__ = ["run_analyse", "DEFAULT_MS", "VALUES"]

DEFAULT_MS = 3000
"""Time to analyse when neither -t nor --depth is given."""
VALUES = "proven results; else the side ahead, by evaluation points, and its expected score"
"""What a move's value says (MoveValue.text), for the list of moves."""


def run_analyse(args: argparse.Namespace) -> int:
    """Analyse the position of the arguments and print it.

    Raises:
        CslError: bad input: a move that is not one, or cannot be played where
            it comes, a finished game, a depth below 1 (one line, exit 2).
    """
    config = match_config(args, time_limit_ms=DEFAULT_MS)
    if args.depth is not None and args.depth < 1:
        raise UsageError(f"--depth must be at least 1, got {args.depth}")
    board = play_moves(config.new_board(), " ".join(args.moves))
    problem = position_problem(board)
    if problem is not None:
        raise UsageError(f"cannot analyse {moves_text(args.moves)}: {problem}")
    time_ms = None if args.depth is not None and args.time_limit is None \
        else config.time_limit_ms
    found = _analysed(board, config, time_ms, args.depth, args.quiet)
    if found is None:
        raise UsageError("no depth of the analysis finished in the time given: give more "
                         "time with -t MS")
    if args.json:
        print(json.dumps(found.to_json()))
        return 0
    best = found.best
    print(f"Position: {moves_text(args.moves)} ({config.rows}x{config.cols}, "
          f"{config.win_sequence} in a row); {found.to_move.title()} to move")
    print(f"Best: {best.move}, {best.text(expected=True)}; searched {found.depth} plies deep")
    print(f"Line: {moves_text(found.line)}")
    print(f"Moves ({VALUES}):")
    for m in found.moves:
        print(f"  {m.move:<5} {m.text(expected=True)}")
    return 0


def _analysed(board: Board, config: MatchConfig, time_ms: int | None, depth: int | None,
              quiet: bool) -> Analysis | None:
    """`analyse`, with a bar on a terminal (unless `quiet`): of the time given,
    or of the depths asked for (--depth alone)."""
    by_depth = time_ms is None
    total = float(depth or 1) if time_ms is None else time_ms / 1000

    def show(seconds: float, latest: Analysis | None) -> None:
        reached = latest.depth if latest is not None else 0
        bar.update(reached if by_depth else min(seconds, total),
                   "" if by_depth or latest is None else f"depth {reached}")

    amount = ("depth {task.completed:.0f}/{task.total:.0f}" if by_depth
              else "{task.completed:.1f}/{task.total:g} s")
    with WorkProgress("analysing", total, quiet, amount=amount, transient=True) as bar:
        return analyse(board, config, process_runner, time_ms, depth, show)
