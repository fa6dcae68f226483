"""People's clocks on the server, without I/O: a time control, what is left of
it, and whether a side that ran out of time loses.

A game made with a time control (`TimeControl`: a base and an increment, in
seconds, as ``--tc BASE+INC``) gives each side the base; the side to move
is charged the wall time since its turn began (the server's clock, fed in),
and gets the increment after each of its moves. What each side has left is
worked out from the moves themselves (each move keeps the time it took), so
a reload, a reconnect or a restart reads the same clocks back.

A side whose time runs out loses, unless its opponent could no longer win
whatever is played (`could_still_win`): then the game is drawn, as FIDE's
rule for a flag against a side with too little material, and lichess's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from csl_game.errors import ProtocolError
from csl_game.model.board import Board, PColor, PShape

__all__ = ["TimeControl", "clock_left", "could_still_win", "spent_of", "clock_doc", "MAX_BASE_S",
           "MAX_INCREMENT_S"]

MAX_BASE_S = 3 * 3600
"""The longest base a game may have (lichess's: three hours)."""
MAX_INCREMENT_S = 180


@dataclass(frozen=True)
class TimeControl:
    """Each side's time for the game, and what a move adds to it."""

    base_s: float
    """Seconds each side starts with."""
    increment_s: float = 0.0
    """Seconds added to a side's clock after each of its moves."""

    @classmethod
    def from_doc(cls, doc: object) -> TimeControl | None:
        """A `create`'s or a stored game's clock: {"base": S, "increment": S} or None.

        Raises:
            ProtocolError: not an object of those two numbers in range.
        """
        if doc is None:
            return None
        if not isinstance(doc, Mapping) or set(doc) != {"base", "increment"}:
            raise ProtocolError("'clock' must be null or an object of 'base' and 'increment' "
                                "(seconds)")
        base, inc = doc["base"], doc["increment"]
        for key, value, high in (("base", base, MAX_BASE_S), ("increment", inc, MAX_INCREMENT_S)):
            if isinstance(value, bool) or not isinstance(value, int | float) \
                    or not 0 <= value <= high:
                raise ProtocolError(f"'clock' {key} must be a number of seconds from 0 to {high}")
        if base <= 0:
            raise ProtocolError("'clock' base must be above 0 seconds")
        return cls(float(base), float(inc))

    def to_doc(self) -> dict[str, float]:
        return {"base": self.base_s, "increment": self.increment_s}

    @property
    def tc(self) -> str:
        """As ``--tc`` and PGN's TimeControl write it: ``60+1``."""
        return f"{self.base_s:g}+{self.increment_s:g}"


def clock_left(control: TimeControl, spent: Sequence[float], turn_started: float | None,
               now: float) -> tuple[float, float]:
    """White's and Red's seconds left: `spent` is each move's time in order
    (White's first), the side to move charged since `turn_started` (None:
    its clock is stopped)."""
    left = [control.base_s, control.base_s]
    for ply, seconds in enumerate(spent):
        left[ply % 2] += control.increment_s - seconds
    if turn_started is not None:
        left[len(spent) % 2] -= max(0.0, now - turn_started)
    return left[0], left[1]


def could_still_win(board: Board, color: PColor) -> bool:
    """Whether `color` could still make a line, whatever is played: some
    corridor has `win_sequence` cells in a row each empty or holding a piece
    of `color`'s shape or colour. False means it cannot win any more (a
    cheap test: True may still be a line no play could finish)."""
    n = board.win_sequence
    shape = color.shape

    def open_for(row: int, col: int) -> bool:
        piece = board[row, col]
        return piece is None or piece.shape is shape or piece.color is color

    for corridor in board.win_corridors:
        run = 0
        for pos in corridor:
            run = run + 1 if open_for(pos.row, pos.col) else 0
            if run >= n:
                return True
    return False


def spent_of(moves: Sequence[tuple[int, PShape, float]]) -> list[float]:
    return [seconds for _, _, seconds in moves]


def clock_doc(left: tuple[float, float]) -> dict[str, Any]:
    """{"white": MS, "red": MS}, as the protocol sends it (never below 0)."""
    return {"white": max(0, round(left[0] * 1000)), "red": max(0, round(left[1] * 1000))}
