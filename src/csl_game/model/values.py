"""The model's value types: colours, shapes, results, pieces, positions, moves.

Small and immutable; the board (`csl_game.model.board`) and its fast core
(`csl_game.model.core`) both speak in them.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

__all__ = ["PShape", "PColor", "Winner", "Piece", "Pos", "Move"]


class PShape(IntEnum):
    """The shape of a piece."""

    ROUND = 0
    SQUARE = 1

    @property
    def other(self) -> PShape:
        """The other shape."""
        return _OTHER_SHAPE[self]

    def __str__(self) -> str:
        return self.name.lower()


class PColor(IntEnum):
    """The colour of a piece, which is also the player who owns it."""

    WHITE = 0
    RED = 1

    @property
    def other(self) -> PColor:
        """The opponent's colour."""
        return _OTHER_COLOR[self]

    @property
    def shape(self) -> PShape:
        """The shape that counts for this player (ROUND for WHITE)."""
        return _SHAPE_OF[self]

    @property
    def winner(self) -> Winner:
        """The `Winner` value meaning that this player won."""
        return _WINNER_OF[self]

    def __str__(self) -> str:
        return self.name.capitalize()


class Winner(IntEnum):
    """The state of a game: no result yet, a draw, or who won."""

    NONE = -1
    DRAW = 0
    WHITE = 1
    RED = 2

    @property
    def color(self) -> PColor | None:
        """The winning player's colour, or None for NONE and DRAW."""
        return _COLOR_OF[self]

    def __str__(self) -> str:
        return self.name.capitalize()


# The properties above answer from these tables: thinkers call them at every
# node of a search, where building an enum member from its value (PColor(1 -
# self)) cost a guide-style minimax 15% of its time.
_OTHER_SHAPE = (PShape.SQUARE, PShape.ROUND)
_OTHER_COLOR = (PColor.RED, PColor.WHITE)
_SHAPE_OF = (PShape.ROUND, PShape.SQUARE)
_WINNER_OF = (Winner.WHITE, Winner.RED)
_COLOR_OF: tuple[PColor | None, ...] = (None, PColor.WHITE, PColor.RED, None)
"""Indexed by a Winner's value: DRAW (0), WHITE, RED, and NONE (-1) from the end."""


class Piece(NamedTuple):
    """A game piece."""

    color: PColor
    """Who owns it."""
    shape: PShape
    """Round or square, chosen when it is played."""

    def __str__(self) -> str:
        return f"{self.color.name.lower()} {self.shape.name.lower()}"


class Pos(NamedTuple):
    """A board position; row 0 is the bottom row, column 0 the left column."""

    row: int
    """Row, counted from the bottom."""
    col: int
    """Column, counted from the left."""

    def __str__(self) -> str:
        return f"({self.row}, {self.col})"


class Move(NamedTuple):
    """A move that was played: where the piece landed and which piece."""

    row: int
    """Row the piece landed in."""
    col: int
    """Column the piece was dropped into."""
    piece: Piece
    """The piece played."""
