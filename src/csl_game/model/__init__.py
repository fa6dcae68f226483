"""The model: the board, its pieces and moves, and the winner check. Pure, no I/O.

`Board` is the checked API; `FastBoard` and `Geometry` (from
`csl_game.model.core`) are the fast core it stands on, open to searches.
`csl_game.model.notation` writes and reads moves as ``3r 2s 4r``.
"""

from csl_game.model.board import Board, Move, MoveProblem, PColor, Piece, Pos, PShape, Winner
from csl_game.model.core import FastBoard, Geometry, geometry
from csl_game.model.notation import (
                                     format_history,
                                     format_move,
                                     format_moves,
                                     parse_move,
                                     parse_moves,
                                     play_moves,
)

__all__ = ["Board", "Move", "MoveProblem", "PColor", "Piece", "Pos", "PShape", "Winner",
           "FastBoard", "Geometry", "geometry", "format_history", "format_move",
           "format_moves", "parse_move", "parse_moves", "play_moves"]
