"""ColorShapeLinks: Simplexity on a board of any size, with an AI workbench.

The public API that thinker authors code against is importable from here.
Its names are loaded when first asked for (PEP 562), so that what needs none
of them (``csl-game --version``, a verb's ``--help``) does not pay for the
model, the thinker API and the engine they bring in.
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from csl_game.errors import (
        BoardConfigError,
        ConfigError,
        CslError,
        InvalidMoveError,
        ThinkerError,
    )
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

_HOMES = {
    **dict.fromkeys(("CslError", "BoardConfigError", "ConfigError", "InvalidMoveError",
                     "ThinkerError"), "csl_game.errors"),
    **dict.fromkeys(("Board", "Move", "PColor", "Piece", "Pos", "PShape", "Winner"),
                    "csl_game.model.board"),
    **dict.fromkeys(("AbstractThinker", "CancellationToken", "FutureMove", "MatchConfig"),
                    "csl_game.thinker.api"),
    "ThinkerPrototype": "csl_game.thinker.prototype",
}
"""The module each public name comes from."""


def __getattr__(name: str) -> Any:
    """A public name, imported from its module the first time it is asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'csl_game' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
