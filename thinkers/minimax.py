"""The minimax thinker of the thinker authors' guide (docs/thinkers.md)."""

from __future__ import annotations

import math

from csl_game import AbstractThinker, Board, CancellationToken, FutureMove, PColor, PShape, Winner


class MinimaxAIThinker(AbstractThinker):
    """Plain minimax to a fixed depth with a centre-distance heuristic.

    Parameters: the maximum depth (default 3). Named ``MinimaxD<depth>``.
    """

    def setup(self, params: str) -> None:
        try:
            self.max_depth = int(params)
        except ValueError:
            self.max_depth = 3

    def __str__(self) -> str:
        return super().__str__() + "D" + str(self.max_depth)

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        move, _ = self.minimax(board, ct, board.turn, board.turn, 0)
        return move

    def minimax(self, board: Board, ct: CancellationToken, player: PColor,
                turn: PColor, depth: int) -> tuple[FutureMove, float]:
        """Best move and its score for `player`, with `turn` to play."""
        if ct.is_cancellation_requested:
            return FutureMove.NO_MOVE, math.nan
        winner = board.check_winner()
        if winner != Winner.NONE:
            if winner.color == player:
                return FutureMove.NO_MOVE, math.inf
            if winner.color == player.other:
                return FutureMove.NO_MOVE, -math.inf
            return FutureMove.NO_MOVE, 0.0
        if depth == self.max_depth:
            return FutureMove.NO_MOVE, self.heuristic(board, player)
        maximizing = turn == player
        best = (FutureMove.NO_MOVE, -math.inf if maximizing else math.inf)
        for col in range(self.cols):
            if board.is_column_full(col):
                continue
            for shape in PShape:
                if board.piece_count(turn, shape) == 0:
                    continue
                board.do_move(shape, col)
                score = self.minimax(board, ct, player, turn.other, depth + 1)[1]
                board.undo_move()
                if maximizing and score >= best[1] or not maximizing and score <= best[1]:
                    best = (FutureMove(col, shape), score)
        return best

    def heuristic(self, board: Board, color: PColor) -> float:
        """Pieces near the centre are worth more: ours add, theirs subtract."""
        center_row = float(board.rows // 2)
        center_col = float(board.cols // 2)
        max_points = math.hypot(center_row, center_col)
        h = 0.0
        for row in range(board.rows):
            for col in range(board.cols):
                piece = board[row, col]
                if piece is None:
                    continue
                points = max_points - math.hypot(center_row - row, center_col - col)
                h += points if piece.color == color else -points
                h += points if piece.shape == color.shape else -points
        return h
