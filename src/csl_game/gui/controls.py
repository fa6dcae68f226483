"""A human's choices on the board: the column in focus and the shape to drop.

Legality is the model's: `Board.move_problem()` decides what may be played,
and the mover's `submit_move` plays it (a local `Match`, or an online game
that sends it to its host). Nothing here knows a rule of the game.
"""

from __future__ import annotations

from typing import Protocol

from csl_game.errors import InvalidMoveError
from csl_game.model.board import Board, PColor, Piece, PShape

__all__ = ["HumanControls", "Mover"]


class Mover(Protocol):
    """What takes a human's moves: a board to play on, and where moves go."""

    @property
    def board(self) -> Board:
        """The position moves are played on."""

    def submit_move(self, col: int, shape: PShape) -> None:
        """Play (or send) the move; InvalidMoveError if it is not legal now."""


class HumanControls:
    """Column focus and per-player shape selection for human players."""

    def __init__(self, match: Mover) -> None:
        self.match = match
        self.column: int | None = None
        """The column in focus (under the mouse or picked with keys)."""
        self.selected = {color: color.shape for color in PColor}
        """The shape each human drops next; starts as the shape that wins for them."""
        self.enabled = False
        """Whether a human may act now (set by the scene every frame)."""
        self.refresh()

    # ------------------------------------------------------------- reading
    @property
    def color(self) -> PColor:
        """The player to move."""
        return self.match.board.turn

    def can_drop(self, col: int) -> bool:
        """Whether dropping the selected shape into `col` is a legal move now."""
        if not self.enabled:
            return False
        return self.match.board.move_problem(self.selected[self.color], col) is None

    def playable(self) -> tuple[bool, ...]:
        """Per column: may the human drop there now."""
        return tuple(self.can_drop(col) for col in range(self.match.board.cols))

    def ghost(self) -> tuple[Piece, int] | None:
        """The piece that would be dropped in the focused column and its landing row."""
        col = self.column
        if col is None or not self.can_drop(col):
            return None
        return (Piece(self.color, self.selected[self.color]),
                self.match.board.column_height(col))

    def shape_available(self, color: PColor, shape: PShape) -> bool:
        return self.match.board.piece_count(color, shape) > 0

    # ------------------------------------------------------------- acting
    def refresh(self) -> None:
        """Switch any player whose selected shape ran out to the other shape."""
        for color in PColor:
            shape = self.selected[color]
            if not self.shape_available(color, shape) and self.shape_available(color, shape.other):
                self.selected[color] = shape.other

    def select(self, shape: PShape) -> bool:
        """Choose the shape for the player to move; False if not possible."""
        if not self.enabled or not self.shape_available(self.color, shape):
            return False
        self.selected[self.color] = shape
        return True

    def toggle_shape(self) -> bool:
        return self.select(self.selected[self.color].other)

    def focus(self, col: int | None) -> None:
        self.column = col

    def step(self, direction: int) -> None:
        """Move the focus to the next playable column left (-1) or right (+1)."""
        cols = self.match.board.cols
        if self.column is None:
            self.column = cols // 2
            if self.can_drop(self.column):
                return
        col = self.column
        for _ in range(cols):
            col += direction
            if not 0 <= col < cols:
                return
            if self.can_drop(col):
                self.column = col
                return

    def drop(self, col: int | None = None) -> bool:
        """Play the selected shape in `col` (default: the focused column).

        Returns whether a move was made; an illegal request does nothing.
        """
        col = self.column if col is None else col
        if col is None or not self.can_drop(col):
            return False
        try:
            self.match.submit_move(col, self.selected[self.color])
        except InvalidMoveError:
            return False
        self.refresh()
        return True
