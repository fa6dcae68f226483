"""Columns as players count them: from 1, on the left.

The model, the notation of files and the command line count from 0 (``3r``
is the fourth column); the window's arrows, its digit keys and the moves it
names count from 1, as a player of Four-in-a-row does: the window's ``4r``
is that same move.
"""

from __future__ import annotations

from collections.abc import Iterable

from csl_game.model import parse_move

__all__ = ["column_number", "shown_move", "shown_moves"]


def column_number(col: int) -> int:
    """The number a player sees for column `col` (from 0): its place from 1."""
    return col + 1


def shown_move(token: str) -> str:
    """A move of the notation (``3r``) as the window names it (``4r``); a token
    that is not a move is shown as it is."""
    try:
        col, _ = parse_move(token)
    except ValueError:
        return token
    return f"{column_number(col)}{token[-1]}"


def shown_moves(tokens: Iterable[str]) -> list[str]:
    """Each move of a line, as the window names it."""
    return [shown_move(t) for t in tokens]
