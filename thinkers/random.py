"""A thinker that plays a random legal move."""

from __future__ import annotations

import random

from csl_game import AbstractThinker, Board, CancellationToken, FutureMove, PShape


class RandomAIThinker(AbstractThinker):
    """Plays a random free column with a random shape it still has.

    Parameters: an optional integer seed, for repeatable games.
    """

    def setup(self, params: str) -> None:
        seed = params.strip()
        self._rng = random.Random(int(seed)) if seed.lstrip("-").isdigit() else random.Random()

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        columns = [c for c in range(board.cols) if not board.is_column_full(c)]
        shapes = [s for s in PShape if board.piece_count(board.turn, s) > 0]
        if not columns or not shapes:
            return FutureMove.NO_MOVE
        return FutureMove(self._rng.choice(columns), self._rng.choice(shapes))
