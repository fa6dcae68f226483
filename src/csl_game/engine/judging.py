"""The judge: what a thinker's answer, or its failure, comes to on the board.

Every runner hands the match a `ThinkOutcome`: an answer described where
think() ran, or a failure the runner saw. `judge()` turns it into the legal
move to play or the forfeit it costs, asking `Board.move_problem()` (the
model's one legality predicate) about the move. The same answer is judged the
same on every runner, with the same reason and the same words.
"""

from __future__ import annotations

from typing import cast

from csl_game.engine.outcomes import Forfeit, ForfeitReason
from csl_game.engine.runners.answer import OtherAnswer, value_text
from csl_game.engine.runners.base import ThinkOutcome
from csl_game.errors import InvalidMoveError
from csl_game.model.board import Board, MoveProblem, PShape
from csl_game.thinker.api import FutureMove

__all__ = ["judge", "move_text", "explain"]

_REASONS = {
    MoveProblem.NO_SUCH_COLUMN: ForfeitReason.INVALID_COLUMN,
    # A shape that does not exist is one the player has no pieces of.
    MoveProblem.NO_SUCH_SHAPE: ForfeitReason.NO_PIECES,
    MoveProblem.NO_PIECES_LEFT: ForfeitReason.NO_PIECES,
    MoveProblem.COLUMN_FULL: ForfeitReason.FULL_COLUMN,
}


def judge(outcome: ThinkOutcome, board: Board) -> FutureMove | Forfeit:
    """The legal move `outcome` names for the player to move on `board`, or
    the forfeit it costs that player.

    Raises:
        InvalidMoveError: the game on `board` is over, so nobody is to move.
    """
    result = outcome.result
    if isinstance(result, Forfeit):
        return result
    if isinstance(result, OtherAnswer):
        return Forfeit(ForfeitReason.EXCEPTION,
                       f"think() returned {result.returned}, not a FutureMove")
    column, shape = result
    if type(column) is int and column == -1:  # FutureMove.NO_MOVE, whatever its shape
        return Forfeit(ForfeitReason.NO_MOVE)
    problem = board.move_problem(shape, column)
    if problem is None:
        return FutureMove(cast(int, column),
                          shape if shape.__class__ is PShape else PShape(cast(int, shape)))
    if problem is MoveProblem.GAME_OVER:
        raise InvalidMoveError(f"cannot judge {move_text(column, shape)}: {problem}", problem)
    return Forfeit(_REASONS[problem],
                   f"it played {move_text(column, shape)}: {explain(problem, board)}")


def move_text(column: object, shape: object) -> str:
    """'round at column 3', 'shape 7 at column 0', "square at column '1'"."""
    return f"{_shape_text(shape)} at column {value_text(column)}"


def _shape_text(shape: object) -> str:
    if type(shape) in (int, PShape) and shape in (PShape.ROUND, PShape.SQUARE):
        return str(PShape(cast(int, shape)))
    return f"shape {value_text(shape)}"


def explain(problem: MoveProblem, board: Board) -> str:
    """Why a move with `problem` cannot be played on `board`, in words."""
    if problem is MoveProblem.NO_SUCH_COLUMN:
        return f"{problem} (columns are whole numbers from 0 to {board.cols - 1})"
    if problem is MoveProblem.NO_SUCH_SHAPE:
        return (f"{problem} (shapes are {PShape.ROUND:d} for round and "
                f"{PShape.SQUARE:d} for square)")
    if problem is MoveProblem.NO_PIECES_LEFT:
        return f"{board.turn} has no pieces of that shape left"
    return str(problem)
