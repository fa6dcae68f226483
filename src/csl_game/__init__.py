"""ColorShapeLinks: Simplexity on a board of any size, with an AI workbench.

The public API that thinker authors code against is importable from here.
"""

import logging

from csl_game.errors import BoardConfigError, ConfigError, CslError, InvalidMoveError, ThinkerError
from csl_game.model.board import Board, Move, PColor, Piece, Pos, PShape, Winner
from csl_game.thinker.api import AbstractThinker, CancellationToken, FutureMove, MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__version__ = "0.1.0"

logging.getLogger(__name__).addHandler(logging.NullHandler())  # a library's manners

__all__ = [
    "Board", "Move", "PColor", "Piece", "Pos", "PShape", "Winner",
    "AbstractThinker", "CancellationToken", "FutureMove", "MatchConfig",
    "ThinkerPrototype", "CslError", "BoardConfigError", "ConfigError",
    "InvalidMoveError", "ThinkerError",
]
