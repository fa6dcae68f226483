"""Reading a human's move at the terminal."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol

from csl_game.errors import InputEnded, InvalidMoveError
from csl_game.model.board import Board, PColor, PShape
from csl_game.services.narration import terminal_safe

__all__ = ["ask_human_move", "parse_move", "move_prompt", "try_move", "MoveTaker", "InputEnded"]


class MoveTaker(Protocol):
    """What takes a human's move: a Match, or an online match's joining side."""

    @property
    def board(self) -> Board | None: ...

    def name(self, color: PColor) -> str: ...

    def submit_move(self, col: int, shape: PShape) -> None: ...

_MOVE = re.compile(r"^\s*(\d+)\s*([a-z]*)\s*$|^\s*([a-z]+)\s*(\d+)\s*$")
_SHAPES = {"r": PShape.ROUND, "o": PShape.ROUND, "round": PShape.ROUND,
           "s": PShape.SQUARE, "square": PShape.SQUARE}




def parse_move(text: str, default: PShape) -> tuple[int, PShape]:
    """'3 r', '3s', '3 square', 's 3', or just '3' (the default shape).

    Raises:
        ValueError: the text is not a column optionally with a shape.
    """
    m = _MOVE.match(text.lower())
    if not m:
        raise ValueError("type a column number and a shape, e.g. '3 r' or '3 s'")
    col, shape = (m[1], m[2]) if m[1] is not None else (m[4], m[3])
    if shape and shape not in _SHAPES:
        raise ValueError(f"unknown shape '{shape}': use r (round) or s (square)")
    return int(col), _SHAPES[shape] if shape else default


def move_prompt(taker: MoveTaker) -> tuple[str, PShape]:
    """The prompt asking the human to move, and the shape a bare column means."""
    board = taker.board
    assert board is not None
    color = board.turn
    default = color.shape if board.piece_count(color, color.shape) else color.shape.other
    counts = ", ".join(f"{board.piece_count(color, s)} {s.name.lower()}" for s in PShape)
    prompt = (f"{color} ({terminal_safe(taker.name(color))}), your move: column 0-{board.cols - 1} "
              f"and shape r/s [{default.name.lower()}] ({counts} left): ")
    return prompt, default


def try_move(taker: MoveTaker, text: str, default: PShape) -> str | None:
    """Submit the move `text` names; why it was refused ('Invalid move: ...'), or None."""
    try:
        col, shape = parse_move(text, default)
        taker.submit_move(col, shape)
        return None
    except (ValueError, InvalidMoveError) as e:
        return f"Invalid move: {e}"


def ask_human_move(match: MoveTaker, read: Callable[[str], str] = input,
                   say: Callable[[str], None] = print) -> None:
    """Ask the human to play until a legal move is given, then submit it.

    Raises:
        InputEnded: the input ended (EOF) before a move was given.
    """
    prompt, default = move_prompt(match)
    while True:
        try:
            text = read(prompt)
        except EOFError:
            raise InputEnded("input ended before the match did") from None
        refusal = try_move(match, text, default)
        if refusal is None:
            return
        say(refusal)
