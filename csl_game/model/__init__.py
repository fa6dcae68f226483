"""The model: the board, its pieces and moves, and the winner check. Pure, no I/O."""

from csl_game.model.board import Board, Move, PColor, Piece, Pos, PShape, Winner

__all__ = ["Board", "Move", "PColor", "Piece", "Pos", "PShape", "Winner"]
