"""The project's exception hierarchy: one base, narrow subclasses."""

from __future__ import annotations


class CslError(Exception):
    """Base of every error this package raises on purpose."""


class BoardConfigError(CslError, ValueError):
    """Board settings that cannot make a playable game."""


class InvalidMoveError(CslError, ValueError):
    """A move the board refuses: bad column, game over or no such piece left.

    `problem` is the model's `MoveProblem` when the board refused the move.
    """

    def __init__(self, message: str, problem: object = None) -> None:
        super().__init__(message)
        self.problem = problem


class ConfigError(CslError, ValueError):
    """Bad match, session or command-line settings."""


class ThinkerError(CslError):
    """A thinker that cannot be found, loaded or set up."""


class NotationError(CslError, ValueError):
    """Text that is not a move in the compact notation (a column, then r or s).

    `token` is the offending piece of text and `index` its 1-based place
    among the moves (0 when a single move was parsed).
    """

    def __init__(self, message: str, token: str = "", index: int = 0) -> None:
        super().__init__(message)
        self.token = token
        self.index = index
