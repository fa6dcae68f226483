"""What a learning agent sees of a position, and how its actions name moves.

An observation is an array of shape ``(rows, cols, 5)`` of 0s and 1s
(``int8``): one plane per kind of piece and one for the turn. Row 0 is the
bottom row and column 0 the left column, as on the board.

====  =====================================================
plane what a 1 means
====  =====================================================
0     a white round piece is there
1     a white square piece is there
2     a red round piece is there
3     a red square piece is there
4     White is to move (the whole plane; 0s when Red is)
====  =====================================================

An action is one number for a column and a shape: ``2 * column + shape``
(shape 0 round, 1 square), so there are ``2 * cols`` actions. The action
mask has a 1 for each action that is a legal move now.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from csl_game.model.core import FastBoard
from csl_game.model.values import PShape, Winner

__all__ = ["PLANES", "TURN_PLANE", "Array", "observation", "action_mask", "action_of",
           "move_of"]

PLANES = 5
"""Planes of an observation: the four kinds of piece (2 * colour + shape), then the turn."""
TURN_PLANE = 4
Array = npt.NDArray[np.int8]


def _cells(fast: FastBoard, bits: int) -> Array:
    """A bitboard as a (rows, cols) array."""
    geo = fast.geometry
    size = geo.cols * geo.height
    raw = np.frombuffer(bits.to_bytes((size + 7) // 8, "little"), dtype=np.uint8)
    column_major = np.unpackbits(raw, count=size, bitorder="little")
    grid = column_major.reshape(geo.cols, geo.height)[:, :geo.rows]
    return grid.T.astype(np.int8)


def observation(fast: FastBoard) -> Array:
    """The planes of a position (see the module's table)."""
    geo = fast.geometry
    planes = np.zeros((geo.rows, geo.cols, PLANES), dtype=np.int8)
    for color in (0, 1):
        for shape in (0, 1):
            planes[:, :, 2 * color + shape] = _cells(fast, fast.colors[color] & fast.shapes[shape])
    if fast.turn == 0:
        planes[:, :, TURN_PLANE] = 1
    return planes


def action_mask(fast: FastBoard) -> Array:
    """1 for each action that is a legal move for the player to move (all 0s once
    the game is over)."""
    mask = np.zeros(2 * fast.geometry.cols, dtype=np.int8)
    if fast.winner() is Winner.NONE:
        mask[fast.legal_moves()] = 1  # a move code is its action: col << 1 | shape
    return mask


def action_of(column: int, shape: PShape | int) -> int:
    """The action that drops a piece of `shape` into `column`."""
    return 2 * column + int(shape)


def move_of(action: int) -> tuple[int, PShape]:
    """The column and shape an action names.

    Raises:
        ValueError: a negative action.
    """
    action = int(action)
    if action < 0:
        raise ValueError(f"actions are whole numbers from 0, got {action}")
    return action // 2, PShape(action % 2)
