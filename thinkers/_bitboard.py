"""Bitboard positions shared by the search thinkers (negamax, mcts).

The game is read once through the Board's public API (sizes, history); from
then on a thinker plays and takes back moves on plain Python ints. Layout:
column by column, ``rows + 1`` bits per column; the top bit of each column
stays empty, so that runs never wrap from one column into the next.

Moves are coded as ``col * 2 + shape`` (shape 0 round, 1 square). Piece kinds
are ``colour * 2 + shape`` (colour 0 white, 1 red). A player's own shape has
the same number as its colour: round counts for White, square for Red.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from csl_game import Board

__all__ = ["Geometry", "Position", "Tactics", "geometry_for", "popcount"]

popcount = int.bit_count


class Geometry:
    """Masks, shifts and tables of one board size; built once per thinker."""

    def __init__(self, rows: int, cols: int, n: int,
                 round_pieces: int, square_pieces: int) -> None:
        self.rows, self.cols, self.n = rows, cols, n
        self.height = h = rows + 1
        column = (1 << rows) - 1
        self.full = sum(column << (c * h) for c in range(cols))
        self.bottom = sum(1 << (c * h) for c in range(cols))
        self.max_moves = min(rows * cols, 2 * (round_pieces + square_pieces))
        self.vertical = rows >= n
        lateral = [h] if cols >= n else []
        if rows >= n and cols >= n:
            lateral += [h + 1, h - 1]
        self.lateral = tuple(lateral)
        """Steps of the non-vertical directions that can hold a run."""
        self.directions = ((1,) if self.vertical else ()) + self.lateral
        self.even_rows = sum(1 << (c * h + r) for c in range(cols) for r in range(0, rows, 2))
        self.odd_rows = self.full & ~self.even_rows
        self.weights = self._window_weights()
        rng = random.Random(0x5EED)
        self.zobrist = tuple(tuple(rng.getrandbits(64) for _ in range(cols * h))
                             for _ in range(4))
        self._compile()

    def cell(self, col: int, row: int) -> int:
        """Bit index of a cell."""
        return col * self.height + row

    def _compile(self) -> None:
        """Build `threats` and `threat_sets` as straight-line code for this size.

        The threat masks are computed at every search node and every playout
        step; unrolled shifts for this win length and these directions run
        about twice as fast as loops over them.
        """
        body = _threat_lines(self.n, self.vertical, self.lateral)
        lines = ["def threats(b):", *body, "    return t & FULL",
                 "def threat_sets(w, r, sq):",
                 "    occ = w | r", "    empty = FULL & ~occ", "    b = occ ^ sq"]
        for i, source in enumerate(("sq", "w", "r", "")):
            lines += [*body, f"    t{i} = t & empty"]
            lines.append(f"    b = {source}" if source else "    return t0, t1, t2, t3")
        scope: dict[str, object] = {"FULL": self.full}
        exec(compile("\n".join(lines), f"<threats {self.rows}x{self.cols}>", "exec"), scope)
        self.threats: Callable[[int], int] = scope["threats"]  # type: ignore[assignment]
        self.threat_sets: Callable[[int, int, int], tuple[int, int, int, int]] = \
            scope["threat_sets"]  # type: ignore[assignment]

    def _window_weights(self) -> list[int]:
        """How many n-cell windows pass through each cell (by bit index)."""
        w = [0] * (self.cols * self.height)
        steps = [(1, 0), (0, 1), (1, 1), (-1, 1)]
        for dr, dc in steps:
            for r in range(self.rows):
                for c in range(self.cols):
                    end_r, end_c = r + dr * (self.n - 1), c + dc * (self.n - 1)
                    if 0 <= end_r < self.rows and 0 <= end_c < self.cols:
                        for k in range(self.n):
                            w[self.cell(c + dc * k, r + dr * k)] += 1
        return w


def _threat_lines(n: int, vertical: bool, lateral: tuple[int, ...]) -> list[str]:
    """Python lines (indented for a function body) that set t to the threats of b."""
    if n == 1:
        return ["    t = FULL"]
    terms = []
    if vertical:
        terms.append(" & ".join(f"(b << {k})" for k in range(1, n)))
    lines = []
    for j, d in enumerate(lateral):
        for side, op in (("l", "<<"), ("r", ">>")):
            lines.append(f"    {side}{j}_1 = b {op} {d}")
            for k in range(2, n):
                lines.append(f"    {side}{j}_{k} = {side}{j}_{k - 1} & (b {op} {k * d})")
        terms += [f"l{j}_{n - 1}", f"r{j}_{n - 1}"]
        terms += [f"l{j}_{a} & r{j}_{n - 1 - a}" for a in range(1, n - 1)]
    return lines + ["    t = " + (" | ".join(terms) if terms else "0")]


_GEOMETRIES: dict[tuple[int, ...], Geometry] = {}


def geometry_for(board: Board) -> Geometry:
    """The (cached) geometry of a board's settings."""
    key = (board.rows, board.cols, board.win_sequence, board.round_pieces,
           board.square_pieces)
    geo = _GEOMETRIES.get(key)
    if geo is None:
        if len(_GEOMETRIES) > 16:
            _GEOMETRIES.clear()
        geo = _GEOMETRIES[key] = Geometry(*key)
    return geo


@dataclass
class Tactics:
    """What the player to move can win or must fear this turn (cell masks)."""

    playable: int
    """The lowest empty cell of every column that is not full."""
    wins: int
    """Playable cells where the mover wins at once (with some shape it has)."""
    loses_off: int
    """Cells where the mover's off-shape piece completes the opponent's shape run."""
    opp_hard: int
    """Cells where the opponent wins next turn whatever the mover does elsewhere."""
    shape_threats: tuple[int, int]
    """Empty cells completing a round run, a square run."""
    colour_threats: tuple[int, int]
    """Empty cells completing a white run, a red run."""


class Position:
    """A mutable bitboard position: colours, squares, heights, piece counts."""

    __slots__ = ("geo", "bits", "sq", "heights", "counts", "ply", "turn", "hash")

    def __init__(self, geo: Geometry) -> None:
        self.geo = geo
        self.bits = [0, 0]
        self.sq = 0
        self.heights = [0] * geo.cols
        self.counts = [0, 0, 0, 0]
        self.ply = 0
        self.turn = 0
        self.hash = 0

    @classmethod
    def from_board(cls, board: Board, geo: Geometry | None = None) -> Position:
        """The position of a board, read through its public API."""
        pos = cls(geo or geometry_for(board))
        pos.counts = [board.round_pieces, board.square_pieces] * 2
        for move in board.history:
            pos.turn = int(move.piece.color)
            pos.play(move.col, int(move.piece.shape))
        return pos

    def copy(self) -> Position:
        """An independent copy."""
        other = Position.__new__(Position)
        other.geo, other.bits, other.sq = self.geo, self.bits.copy(), self.sq
        other.heights, other.counts = self.heights.copy(), self.counts.copy()
        other.ply, other.turn, other.hash = self.ply, self.turn, self.hash
        return other

    def play(self, col: int, shape: int) -> int:
        """Drop a piece of the player to move; returns its bit index."""
        c = self.turn
        idx = col * self.geo.height + self.heights[col]
        self.heights[col] += 1
        self.bits[c] |= 1 << idx
        if shape:
            self.sq |= 1 << idx
        kind = 2 * c + shape
        self.counts[kind] -= 1
        self.hash ^= self.geo.zobrist[kind][idx]
        self.ply += 1
        self.turn = 1 - c
        return idx

    def undo(self, col: int, shape: int) -> None:
        """Take back the last move, which was (col, shape)."""
        c = 1 - self.turn
        self.heights[col] -= 1
        idx = col * self.geo.height + self.heights[col]
        mask = ~(1 << idx)
        self.bits[c] &= mask
        self.sq &= mask
        kind = 2 * c + shape
        self.counts[kind] += 1
        self.hash ^= self.geo.zobrist[kind][idx]
        self.ply -= 1
        self.turn = c

    def tactics(self) -> Tactics:
        """Immediate wins, self-inflicted losses and the opponent's threats."""
        geo = self.geo
        w, r = self.bits
        occ = w | r
        s0, s1, c0, c1 = geo.threat_sets(w, r, self.sq)
        shape_t, colour_t = (s0, s1), (c0, c1)
        playable = (occ + geo.bottom) & geo.full
        c = self.turn
        o = 1 - c
        wins, opp_hard = self.win_cells(c, shape_t, colour_t)
        return Tactics(playable, wins & playable, shape_t[o], opp_hard, shape_t, colour_t)

    def win_cells(self, c: int, shape_t: tuple[int, int],
                  colour_t: tuple[int, int]) -> tuple[int, int]:
        """Cells where player c wins with a piece it has, and where the
        opponent surely wins (with its own shape, which c cannot spoil)."""
        o = 1 - c
        counts = self.counts
        wins = shape_t[c] | colour_t[c] if counts[3 * c] else 0
        if counts[2 * c + o]:
            wins |= colour_t[c] & ~shape_t[o]
        opp_hard = shape_t[o] | colour_t[o] if counts[3 * o] else 0
        return wins, opp_hard

    def result_of_last(self, idx: int, shape: int) -> int:
        """Who won with the last move (a piece of this shape on bit idx): 0 White,
        1 Red, -1 a draw, -2 nobody yet."""
        mover = 1 - self.turn
        occ = self.bits[0] | self.bits[1]
        if self._run_through(self.sq if shape else occ ^ self.sq, idx):
            return shape
        if self._run_through(self.bits[mover], idx):
            return mover
        return -1 if self.ply >= self.geo.max_moves else -2

    def _run_through(self, b: int, idx: int) -> bool:
        n = self.geo.n
        for d in self.geo.directions:
            count, j = 1, idx - d
            while j >= 0 and b >> j & 1:
                count, j = count + 1, j - d
            j = idx + d
            while b >> j & 1:
                count, j = count + 1, j + d
            if count >= n:
                return True
        return False

    def moves(self) -> list[int]:
        """All legal move codes."""
        c = self.turn
        shapes = [s for s in (0, 1) if self.counts[2 * c + s]]
        rows = self.geo.rows
        return [col * 2 + s for col, h in enumerate(self.heights) if h < rows for s in shapes]

    def column_of(self, cell_bit: int) -> int:
        """The column of a single-bit cell mask."""
        return (cell_bit.bit_length() - 1) // self.geo.height

    def winning_shape(self) -> int:
        """The shape to win with on a cell of `Tactics.wins`: the own shape
        when the mover has one (it wins wherever any shape does), else the other."""
        c = self.turn
        return c if self.counts[3 * c] else 1 - c
