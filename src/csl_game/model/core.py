"""The fast core of the model: a position as bitboards, played without checks.

`Board` stands on this module, and search thinkers use it directly (the
"fast door" of docs/thinkers.md). The rules live here once: where a piece
lands, what a move changes, and who has won.

Layout: a set of cells is one Python int with one bit per cell, column by
column, ``rows + 1`` bits a column, so cell (row, col) is bit
``col * (rows + 1) + row``. The top bit of every column stays empty: that
guard stops a run from wrapping from one column into the next, and a run of
n in any direction is then found with a few shifts and ands.

Numbers: a colour is 0 (White) or 1 (Red) and a shape 0 (round) or 1
(square), the values of `PColor` and `PShape`. A piece's kind is
``2 * colour + shape``; a move code is ``col << 1 | shape``.

Nothing here checks its arguments. Playing into a full column, a shape with
no pieces left, or after the game is over corrupts the position: `Board`
checks for its callers, and a search that plays only moves from
`FastBoard.legal_moves()` on unfinished games needs no checks.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from csl_game.errors import BoardConfigError
from csl_game.model.values import Winner

__all__ = ["Geometry", "FastBoard", "geometry"]

_NONE, _DRAW = Winner.NONE, Winner.DRAW
_WINS_FOR = (Winner.WHITE, Winner.RED)  # by shape or colour value: ROUND/WHITE -> White


class Geometry:
    """What every board of one setting shares: bit layout, masks, run finder.

    Made once per setting by `geometry()`, which also checks the setting;
    read-only.
    """

    __slots__ = ("rows", "cols", "win_sequence", "round_pieces", "square_pieces",
                 "height", "full", "bottom", "max_moves", "offset", "runs")
    rows: int
    cols: int
    win_sequence: int
    round_pieces: int
    square_pieces: int
    height: int
    full: int
    bottom: int
    max_moves: int
    offset: int
    runs: Callable[[int], int]

    def __init__(self, rows: int, cols: int, win_sequence: int, round_pieces: int,
                 square_pieces: int) -> None:
        self.rows, self.cols, self.win_sequence = rows, cols, win_sequence
        self.round_pieces, self.square_pieces = round_pieces, square_pieces
        self.height = height = rows + 1
        """Bits per column: the rows and the empty guard bit on top."""
        self.full = sum(((1 << rows) - 1) << (c * height) for c in range(cols))
        """Every cell of the board."""
        self.bottom = sum(1 << (c * height) for c in range(cols))
        """The bottom cell of every column."""
        self.max_moves = min(rows * cols, 2 * (round_pieces + square_pieces))
        """Moves after which the game is drawn: the board is full or no pieces are left."""
        # The gap between the two halves is wider than any shift, so bits of
        # the upper half never reach the lower one.
        self.offset = height * cols + win_sequence * (height + 1)
        """Where the upper half starts in a search of two sets at once:
        ``runs(a << offset | b)`` finds runs of `a` above this bit and of `b` below."""
        self.runs = _run_finder(_shift_plans(height, win_sequence))
        """runs(cells): the start bit of every run of win_sequence cells, any direction."""

    def index(self, row: int, col: int) -> int:
        """The bit index of cell (row, col)."""
        return col * self.height + row

    @property
    def settings(self) -> tuple[int, int, int, int, int]:
        """(rows, cols, win_sequence, round_pieces, square_pieces)."""
        return (self.rows, self.cols, self.win_sequence, self.round_pieces,
                self.square_pieces)

    def __reduce__(self) -> tuple[object, ...]:
        # The run finder is generated code, which pickle cannot carry: a
        # geometry travels as its setting and is made again on arrival.
        return (geometry, self.settings)

    def __repr__(self) -> str:
        return f"Geometry{self.settings}"


def _shift_plans(height: int, n: int) -> tuple[tuple[int, ...], ...]:
    """Shifts that fold runs of n bits, for the steps up, right, and the two diagonals."""
    plans = []
    for step in (1, height, height + 1, height - 1):
        shifts, k = [], 1
        while 2 * k <= n:
            shifts.append(k * step)
            k *= 2
        if k < n:
            shifts.append((n - k) * step)
        plans.append(tuple(shifts))
    return tuple(plans)


def _run_finder(plans: tuple[tuple[int, ...], ...]) -> Callable[[int], int]:
    # Generated straight-line code runs about twice as fast as nested loops
    # over the shifts, and this is the innermost step of every search.
    lines = ["def runs(b):"]
    for d, shifts in enumerate(plans):
        lines.append(f"    m{d} = b & b >> {shifts[0]}" if shifts else f"    m{d} = b")
        lines += [f"    m{d} &= m{d} >> {s}" for s in shifts[1:]]
    lines.append("    return " + " | ".join(f"m{d}" for d in range(len(plans))))
    namespace: dict[str, Callable[[int], int]] = {}
    exec("\n".join(lines), namespace)
    return namespace["runs"]


def _check_int(name: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BoardConfigError(f"{name} must be a whole number, got {value!r}")
    if value < low:
        raise BoardConfigError(f"{name} must be at least {low}, got {value}")
    return value


def geometry(rows: int = 6, cols: int = 7, win_sequence: int = 4, round_pieces: int = 10,
             square_pieces: int = 11) -> Geometry:
    """The geometry of a board setting, made once and shared.

    Raises:
        BoardConfigError: a size or count is not a whole number, is out of
            range, no player could ever win (rows and cols both below
            win_sequence), or the players have no pieces.
    """
    settings = (_check_int("rows", rows, 1), _check_int("cols", cols, 1),
                _check_int("win_sequence", win_sequence, 1),
                _check_int("round_pieces", round_pieces, 0),
                _check_int("square_pieces", square_pieces, 0))
    if rows < win_sequence and cols < win_sequence:
        raise BoardConfigError(
            f"no win is possible: a {rows}x{cols} board cannot hold "
            f"{win_sequence} pieces in a row")
    if round_pieces + square_pieces == 0:
        raise BoardConfigError("each player needs at least one piece")
    return _geometry(*settings)


@lru_cache(maxsize=128)
def _geometry(rows: int, cols: int, win_sequence: int, round_pieces: int,
              square_pieces: int) -> Geometry:
    return Geometry(rows, cols, win_sequence, round_pieces, square_pieces)


class FastBoard:
    """A position as bitboards, changed in place by unchecked play and undo.

    The attributes are the position; read them freely, change them only
    through `play()` and `undo()`. `Board.fast_board()` gives the position of
    a board; `FastBoard(geometry(...))` an empty one.
    """

    __slots__ = ("geometry", "colors", "shapes", "heights", "counts", "turn", "ply")
    geometry: Geometry
    colors: list[int]
    shapes: list[int]
    heights: list[int]
    counts: list[int]
    turn: int
    ply: int

    def __init__(self, geometry: Geometry) -> None:
        """An empty board of this geometry, White to move."""
        self.geometry = geometry
        """The board's setting and bit layout."""
        self.colors = [0, 0]
        """Cells holding a white piece, a red piece."""
        self.shapes = [0, 0]
        """Cells holding a round piece, a square piece."""
        self.heights = [0] * geometry.cols
        """Pieces in each column, which is the row the next one lands in."""
        self.counts = [geometry.round_pieces, geometry.square_pieces] * 2
        """Pieces left to play, by kind (2 * colour + shape)."""
        self.turn = 0
        """The colour to move: 0 White, 1 Red."""
        self.ply = 0
        """Moves played so far."""

    def copy(self) -> FastBoard:
        """An independent copy (the geometry is shared)."""
        other = FastBoard.__new__(FastBoard)
        other.geometry = self.geometry
        other.colors, other.shapes = self.colors.copy(), self.shapes.copy()
        other.heights, other.counts = self.heights.copy(), self.counts.copy()
        other.turn, other.ply = self.turn, self.ply
        return other

    __copy__ = copy

    def play(self, col: int, shape: int) -> int:
        """Drop a piece of the player to move, of this shape, into a column;
        returns the bit index of the cell where it landed.

        Unchecked: the column must have room, the player a piece of that
        shape, and the game must not be over.
        """
        color = self.turn
        row = self.heights[col]
        index = col * self.geometry.height + row
        bit = 1 << index
        self.colors[color] |= bit
        self.shapes[shape] |= bit
        self.heights[col] = row + 1
        self.counts[2 * color + shape] -= 1
        self.turn = 1 - color
        self.ply += 1
        return index

    def undo(self, col: int) -> int:
        """Take back the last move, which went into this column; returns its shape.

        Unchecked: the column must hold the last piece played.
        """
        color = 1 - self.turn
        row = self.heights[col] - 1
        bit = 1 << (col * self.geometry.height + row)
        shapes = self.shapes
        shape = 1 if shapes[1] & bit else 0
        self.colors[color] ^= bit
        shapes[shape] ^= bit
        self.heights[col] = row
        self.counts[2 * color + shape] += 1
        self.turn = color
        self.ply -= 1
        return shape

    def legal_moves(self) -> list[int]:
        """Codes (``col << 1 | shape``) of the moves that fit: columns left to
        right, round before square. Whether the game is over is not asked."""
        counts, color = self.counts, self.turn
        shapes = [s for s in (0, 1) if counts[2 * color + s]]
        rows = self.geometry.rows
        return [col << 1 | s for col, h in enumerate(self.heights) if h < rows for s in shapes]

    def winner_after(self, shape: int) -> Winner:
        """The result just after the last move, which dropped a piece of this shape.

        The game must have been going on before that move, so that a new run
        goes through the new piece: a run of its shape decides first (shape
        beats colour), then a run of its colour. One run search.
        """
        geo = self.geometry
        offset = geo.offset
        color = 1 - self.turn
        found = geo.runs(self.shapes[shape] << offset | self.colors[color])
        if found:
            return _WINS_FOR[shape] if found >> offset else _WINS_FOR[color]
        return _DRAW if self.ply >= geo.max_moves else _NONE

    def winner(self) -> Winner:
        """The result of the position by the rules' full test, with no
        assumption about the last move: a run of round, square, white, then
        red pieces; else a draw on a full board or with no pieces left."""
        geo = self.geometry
        offset, runs = geo.offset, geo.runs
        for first, second in (self.shapes, self.colors):
            found = runs(first << offset | second)
            if found:
                return Winner.WHITE if found >> offset else Winner.RED
        return _DRAW if self.ply >= geo.max_moves else _NONE

    def kind_at(self, row: int, col: int) -> int:
        """The kind (2 * colour + shape) of the piece at (row, col), or -1 if
        the cell is empty. Unchecked: the cell must be on the board."""
        bit = 1 << (col * self.geometry.height + row)
        if not (self.colors[0] | self.colors[1]) & bit:
            return -1
        return (2 if self.colors[1] & bit else 0) + (1 if self.shapes[1] & bit else 0)

    def __repr__(self) -> str:
        return (f"FastBoard({self.geometry!r}, ply={self.ply}, turn={self.turn}, "
                f"heights={self.heights}, counts={self.counts})")
