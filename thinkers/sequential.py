"""A thinker that fills the columns one after another."""

from __future__ import annotations

from csl_game import AbstractThinker, Board, CancellationToken, FutureMove


class SequentialAIThinker(AbstractThinker):
    """Plays the next free column after its previous one, left to right.

    It uses its own winning shape (round for White, square for Red) while it
    has pieces of it, then the other shape.
    """

    def setup(self, params: str) -> None:
        self._last_col = -1

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        color = board.turn
        shape = color.shape
        if board.piece_count(color, shape) == 0:
            shape = shape.other
            if board.piece_count(color, shape) == 0:
                return FutureMove.NO_MOVE
        for step in range(1, board.cols + 1):
            col = (self._last_col + step) % board.cols
            if not board.is_column_full(col):
                self._last_col = col
                return FutureMove(col, shape)
        return FutureMove.NO_MOVE
