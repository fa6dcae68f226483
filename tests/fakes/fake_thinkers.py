"""Thinkers that misbehave on purpose, for engine tests (loaded as a --thinkers path)."""

from __future__ import annotations

import time

from csl_game import AbstractThinker, Board, CancellationToken, FutureMove, PShape


class RaiserThinker(AbstractThinker):
    """Raises from think()."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        raise RuntimeError("boom from think")


class SleeperThinker(AbstractThinker):
    """Sleeps until cancelled, then gives up."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        ct.wait(30)
        return FutureMove.NO_MOVE


class NoMoveThinker(AbstractThinker):
    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        return FutureMove.NO_MOVE


class OffBoardThinker(AbstractThinker):
    """Plays column == cols (params: 'neg' plays -2)."""

    def setup(self, params: str) -> None:
        self.neg = params == "neg"

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        return FutureMove(-2 if self.neg else board.cols, PShape.ROUND)


class ColumnZeroThinker(AbstractThinker):
    """Always plays column 0, so it eventually plays a full column."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        return FutureMove(0, PShape.SQUARE if board.turn else PShape.ROUND)


class GreedyShapeThinker(AbstractThinker):
    """Always plays round pieces, spreading across columns, until it has none."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        col = board.move_count // 2 % board.cols
        while board.is_column_full(col):
            col = (col + 1) % board.cols
        return FutureMove(col, PShape.ROUND)


class WrongTypeThinker(AbstractThinker):
    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        return (0, 0)  # type: ignore[return-value]


class BadSetupThinker(AbstractThinker):
    def setup(self, params: str) -> None:
        raise ValueError("cannot parse " + params)

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        return FutureMove(0, PShape.ROUND)


class ChattyThinker(AbstractThinker):
    """Reports thinking info, then plays the first free column."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        self.on_thinking_info(f"move {board.move_count}")
        col = next(c for c in range(board.cols) if not board.is_column_full(c))
        shape = board.turn.shape
        if board.piece_count(board.turn, shape) == 0:
            shape = shape.other
        return FutureMove(col, shape)


class SlowPokeThinker(AbstractThinker):
    """Answers after params seconds, ignoring cancellation."""

    def setup(self, params: str) -> None:
        self.delay = float(params or 0.05)

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        time.sleep(self.delay)
        col = next(c for c in range(board.cols) if not board.is_column_full(c))
        return FutureMove(col, board.turn.shape)


class SteadyThinker(AbstractThinker):
    """Deterministic and a little slow: the centre-most free column after `params` ms."""

    def setup(self, params: str) -> None:
        self.delay = float(params or 10) / 1000

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        time.sleep(self.delay)
        centre = board.cols // 2
        cols = sorted(range(board.cols), key=lambda c: (abs(c - centre), c))
        col = next(c for c in cols if not board.is_column_full(c))
        shape = board.turn.shape
        if board.piece_count(board.turn, shape) == 0:
            shape = shape.other
        return FutureMove(col, shape)


class OddShapeThinker(AbstractThinker):
    """Returns a shape that does not exist."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        return FutureMove(0, 7)  # type: ignore[arg-type]
