"""What the board looks like right now: landed pieces and running animations.

The engine moves on at once; `VisualBoard` replays its moves one after the
other, each falling into place and then pulsing, and speeds up when moves
arrive faster than they can be shown. Pure Python, advanced by `update(dt)`.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

from csl_game.model.board import Move, Piece, Pos

__all__ = ["fall_curve", "fall_duration", "Fall", "VisualBoard"]

_GRAVITY_PART = 0.8  # share of a fall spent accelerating; the rest is the bounce


def fall_curve(t: float, distance: float) -> float:
    """Share of the fall's distance covered at time share `t` (0..1).

    Accelerates like a dropped object, then bounces up a little (at most a
    third of a cell) and settles exactly at 1.
    """
    t = min(max(t, 0.0), 1.0)
    if t < _GRAVITY_PART:
        return (t / _GRAVITY_PART) ** 2
    bounce = min(0.08, 0.3 / max(distance, 1.0))
    return 1.0 - bounce * math.sin(math.pi * (t - _GRAVITY_PART) / (1 - _GRAVITY_PART))


def fall_duration(distance: float) -> float:
    """Seconds to fall `distance` cells (longer drops take longer, like gravity)."""
    return 0.12 + 0.075 * math.sqrt(max(distance, 0.0))


@dataclass
class Fall:
    """A piece on its way down."""

    move: Move
    distance: float
    """Cells from the drop point to the landing cell."""
    duration: float
    elapsed: float = 0.0

    @property
    def done(self) -> bool:
        return self.elapsed >= self.duration

    @property
    def height(self) -> float:
        """Cells above the landing cell's centre (never below it)."""
        share = self.elapsed / self.duration if self.duration > 0 else 1.0
        return self.distance * (1.0 - fall_curve(share, self.distance))


class VisualBoard:
    """The board as shown, which trails the engine's board by its animations."""

    def __init__(self, rows: int, cols: int, pulse_s: float = 1.0,
                 drop_height: float = 1.0) -> None:
        self.rows, self.cols = rows, cols
        self.pulse_s = pulse_s
        self.drop_height = drop_height
        """Cells above the top row from which pieces start to fall."""
        self.landed: dict[Pos, Piece] = {}
        self.version = 0
        """Bumped whenever a piece lands, so views know to redraw the board."""
        self.column_versions = [0] * cols
        """Per column: bumped whenever a piece lands in it."""
        self.falling: Fall | None = None
        self.last: Move | None = None
        self.pulse_elapsed = math.inf
        self.solution: tuple[Pos, ...] = ()
        self.win_elapsed = 0.0
        self.epoch = 0
        """Bumped when pieces leave the board (undo), so views paint it anew."""
        self._pending: deque[Move] = deque()

    # ------------------------------------------------------------- feeding
    def push(self, move: Move) -> None:
        """Show `move` after the moves already waiting."""
        self._pending.append(move)
        if self.falling is None:
            self._next_fall()

    def reset(self, landed: dict[Pos, Piece]) -> None:
        """Show exactly `landed` at once (after moves were taken back): nothing
        falls, pulses or waits."""
        self._pending.clear()
        self.falling = None
        self.landed = dict(landed)
        self.last = None
        self.solution = ()
        self.version += 1
        self.epoch += 1
        self.column_versions = [v + 1 for v in self.column_versions]

    def show_win(self, solution: tuple[Pos, ...]) -> None:
        """Draw the win line through `solution` once every piece has landed."""
        self.solution = tuple(solution)
        self.win_elapsed = 0.0

    # ------------------------------------------------------------- reading
    @property
    def idle(self) -> bool:
        """Every move shown: nothing falling or waiting to fall."""
        return self.falling is None and not self._pending

    @property
    def pulsing(self) -> bool:
        return self.last is not None and self.pulse_elapsed < self.pulse_s

    @property
    def pulse_phase(self) -> float:
        """0..1 through the last-move pulse (1 when over)."""
        if self.pulse_s <= 0:
            return 1.0
        return min(1.0, self.pulse_elapsed / self.pulse_s)

    @property
    def win_progress(self) -> float:
        """0..1: how much of the win line is drawn (0 until all pieces landed)."""
        if not self.solution or not self.idle:
            return 0.0
        return min(1.0, self.win_elapsed / 0.4)

    # ------------------------------------------------------------- advancing
    def update(self, dt: float) -> None:
        """Advance the animations by `dt` seconds."""
        self.pulse_elapsed += dt
        if self.falling is not None:
            # a backlog plays faster so the view never lags far behind the engine
            self.falling.elapsed += dt * (1 + len(self._pending))
            if self.falling.done:
                self._land(self.falling.move)
        if self.solution and self.idle:
            self.win_elapsed += dt

    def _land(self, move: Move) -> None:
        self.landed[Pos(move.row, move.col)] = move.piece
        self.version += 1
        self.column_versions[move.col] += 1
        self.last = move
        self.pulse_elapsed = 0.0
        self.falling = None
        self._next_fall()

    def _next_fall(self) -> None:
        if not self._pending:
            return
        move = self._pending.popleft()
        distance = self.rows - move.row - 0.5 + self.drop_height
        self.falling = Fall(move, distance, fall_duration(distance))
