"""The compact move notation: a column number and ``r`` or ``s``.

``3r`` drops a round piece into column 3, ``12s`` a square piece into column
12 (columns count from 0, on the left). A game is its moves in order,
separated by spaces: ``3r 3s 2r 4s``. The colour is not written: White
plays the first move and the players alternate. Tokens are exactly a column
number in decimal digits and a lower-case ``r`` or ``s``; the replay, the
engine protocol and docs/thinkers.md all speak this form.
"""

from __future__ import annotations

from collections.abc import Iterable

from csl_game.errors import InvalidMoveError, NotationError
from csl_game.model.board import Board, Move, MoveProblem, PShape

__all__ = ["format_move", "format_moves", "format_history", "parse_move", "parse_moves",
           "play_moves", "SHAPE_LETTERS"]

SHAPE_LETTERS = {PShape.ROUND: "r", PShape.SQUARE: "s"}
"""The letter of each shape in the notation."""

_SHAPES = {"r": PShape.ROUND, "s": PShape.SQUARE}


def format_move(col: int, shape: PShape | int) -> str:
    """The token of one move: ``format_move(3, PShape.ROUND) == "3r"``.

    Raises:
        NotationError: the column is not a whole number from 0 up, or the
            shape is not a PShape (or its value, 0 or 1).
    """
    if isinstance(col, bool) or not isinstance(col, int) or col < 0:
        raise NotationError(f"cannot write column {col!r} (a whole number from 0 up)")
    if isinstance(shape, bool) or shape not in (0, 1):
        raise NotationError(f"cannot write shape {shape!r} (PShape.ROUND or PShape.SQUARE)")
    return f"{col}{SHAPE_LETTERS[PShape(shape)]}"


def format_moves(moves: Iterable[tuple[int, PShape | int]]) -> str:
    """The tokens of (column, shape) moves, space-separated: ``"3r 3s 2r"``.

    FutureMoves are (column, shape) pairs too, so a list of them works.

    Raises:
        NotationError: a column or shape cannot be written.
    """
    return " ".join(format_move(col, shape) for col, shape in moves)


def format_history(history: Iterable[Move]) -> str:
    """The moves a board has played (``board.history``) as notation."""
    return " ".join(format_move(m.col, m.piece.shape) for m in history)


def parse_move(token: str, index: int = 0) -> tuple[int, PShape]:
    """The (column, shape) of one token: ``parse_move("3r") == (3, PShape.ROUND)``.

    `index` is the token's 1-based place in a list of moves, for the error.

    Raises:
        NotationError: the token is not a column number followed by r or s;
            the message quotes it.
    """
    digits, letter = token[:-1], token[-1:]
    if not (digits.isascii() and digits.isdigit() and letter in _SHAPES):
        where = f"move {index} " if index else ""
        raise NotationError(f"{where}{token!r} is not a move: write a column number "
                            f"and r (round) or s (square), as in '3r'", token, index)
    return int(digits), _SHAPES[letter]


def parse_moves(text: str) -> list[tuple[int, PShape]]:
    """The (column, shape) moves of a space-separated list: ``"3r 2s"``.

    Raises:
        NotationError: a token is not a move; the message names it and its place.
    """
    return [parse_move(token, i) for i, token in enumerate(text.split(), 1)]


def play_moves(board: Board, text: str) -> Board:
    """Play the moves of `text` on `board`, in order, and return the board.

    Raises:
        NotationError: a token is not a move (nothing is played then).
        InvalidMoveError: a move cannot be played where it comes (its column
            does not exist or is full, no piece of its shape is left, or the
            game is over); the message names the move and its place, and the
            moves before it stay played.
    """
    for i, (col, shape) in enumerate(parse_moves(text), 1):
        token = format_move(col, shape)
        try:
            row = board.do_move(shape, col)
        except InvalidMoveError as e:
            raise InvalidMoveError(f"move {i} '{token}' cannot be played: {e}",
                                   e.problem) from None
        if row < 0:
            raise InvalidMoveError(f"move {i} '{token}' cannot be played: "
                                   f"column {col} is full", MoveProblem.COLUMN_FULL)
    return board
