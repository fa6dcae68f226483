"""The minimax thinker of the thinker authors' guide (docs/thinkers.md): its
tutorial builds this code, method for method (tests/test_docs.py checks it)."""

from __future__ import annotations

import math

from csl_game import AbstractThinker, Board, CancellationToken, FutureMove, PColor, PShape, Winner


class MinimaxAIThinker(AbstractThinker):
    """Plain minimax with a centre-distance heuristic, searching one move deeper
    at a time while the time limit allows (iterative deepening), up to a
    maximum depth.

    Parameters: the maximum depth (default 3). Named ``MinimaxD<depth>``.
    """

    def setup(self, params: str) -> None:
        """The maximum depth: a whole number from 1 up, or nothing for 3.

        Raises:
            ValueError: anything else (it searched to 3 for words, and to no
                depth at all, forfeiting its match, for 0 or less).
        """
        text = params.strip()
        if text and not (text.isdecimal() and int(text) >= 1):
            raise ValueError(f"the depth is a whole number from 1 up, got {text!r}")
        self.max_depth = int(text) if text else 3

    def __str__(self) -> str:
        return super().__str__() + "D" + str(self.max_depth)

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        """Iterative deepening: play the move of the deepest search that finished."""
        best = FutureMove.NO_MOVE
        for depth in range(1, self.max_depth + 1):
            started = ct.elapsed()
            move, _score = self.minimax(board, ct, board.turn, board.turn, depth)
            if self.out_of_time(ct):            # cut short: keep the last finished move
                break
            best = move
            # The next search, a move deeper, costs about this one per legal move.
            next_search = (ct.elapsed() - started) * len(board.legal_moves())
            if ct.time_left() < max(next_search, ct.time_limit / 2):
                break                           # it would not finish in time
        return best

    def out_of_time(self, ct: CancellationToken) -> bool:
        """Whether to stop searching: cancelled, or under a tenth of the limit left."""
        return ct.is_cancellation_requested or ct.time_left() < ct.time_limit / 10

    def minimax(self, board: Board, ct: CancellationToken, player: PColor,
                turn: PColor, depth: int) -> tuple[FutureMove, float]:
        """`turn`'s best move, `depth` moves ahead, and its score for `player`."""
        if self.out_of_time(ct):                        # 1. stop
            return FutureMove.NO_MOVE, math.nan
        winner = board.check_winner()                   # 2. the game is over
        if winner != Winner.NONE:
            if winner.color == player:
                return FutureMove.NO_MOVE, math.inf
            if winner.color == player.other:
                return FutureMove.NO_MOVE, -math.inf
            return FutureMove.NO_MOVE, 0.0              # a draw
        if depth == 0:                                  # 3. deep enough
            return FutureMove.NO_MOVE, self.heuristic(board, player)
        maximizing = turn == player                     # 4. try every move
        best = (FutureMove.NO_MOVE, -math.inf if maximizing else math.inf)
        for col in range(self.cols):
            if board.is_column_full(col):
                continue
            for shape in PShape:
                if board.piece_count(turn, shape) == 0:
                    continue
                board.do_move(shape, col)
                score = self.minimax(board, ct, player, turn.other, depth - 1)[1]
                board.undo_move()
                better = score >= best[1] if maximizing else score <= best[1]
                if better:
                    best = (FutureMove(col, shape), score)
        return best

    def heuristic(self, board: Board, color: PColor) -> float:
        """Pieces near the centre are worth more: ours add, theirs subtract."""
        center_row = float(board.rows // 2)
        center_col = float(board.cols // 2)
        max_points = math.hypot(center_row, center_col)   # centre to a corner
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
