"""The model: the board, its pieces and moves, and the winner check. Pure, no I/O.

`Board` is the checked API; `FastBoard` and `Geometry` (from
`csl_game.model.core`) are the fast core it stands on, open to searches.
"""

from csl_game.model.board import Board, Move, MoveProblem, PColor, Piece, Pos, PShape, Winner
from csl_game.model.core import FastBoard, Geometry, geometry

__all__ = ["Board", "Move", "MoveProblem", "PColor", "Piece", "Pos", "PShape", "Winner",
           "FastBoard", "Geometry", "geometry"]
