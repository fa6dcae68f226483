"""The game model: pieces, moves, the board and its winner check.

Pure and fast: no I/O, no imports beyond the standard library. Internally the
board keeps one bitboard (a Python int) per colour and one per shape, laid out
column by column with one spare bit on top of each column, so that a run of n
pieces in any direction is found with a few shifts and ands. The result is
worked out once per move and kept on a stack, so `check_winner()` costs
nothing and `undo_move()` restores it.
"""

from __future__ import annotations

from enum import Enum, IntEnum
from functools import lru_cache
from typing import Callable, NamedTuple

from csl_game.errors import BoardConfigError, InvalidMoveError

__all__ = [
    "PColor", "PShape", "Winner", "Piece", "Pos", "Move", "MoveProblem", "Board",
]


class PShape(IntEnum):
    """The shape of a piece."""

    ROUND = 0
    SQUARE = 1

    @property
    def other(self) -> PShape:
        """The other shape."""
        return PShape(1 - self)

    def __str__(self) -> str:
        return self.name.lower()


class PColor(IntEnum):
    """The colour of a piece, which is also the player who owns it."""

    WHITE = 0
    RED = 1

    @property
    def other(self) -> PColor:
        """The opponent's colour."""
        return PColor(1 - self)

    @property
    def shape(self) -> PShape:
        """The shape that counts for this player (ROUND for WHITE)."""
        return PShape(int(self))

    @property
    def winner(self) -> Winner:
        """The `Winner` value meaning that this player won."""
        return Winner.WHITE if self is PColor.WHITE else Winner.RED

    def __str__(self) -> str:
        return self.name.capitalize()


class Winner(IntEnum):
    """The state of a game: no result yet, a draw, or who won."""

    NONE = -1
    DRAW = 0
    WHITE = 1
    RED = 2

    @property
    def color(self) -> PColor | None:
        """The winning player's colour, or None for NONE and DRAW."""
        if self is Winner.WHITE:
            return PColor.WHITE
        if self is Winner.RED:
            return PColor.RED
        return None

    def __str__(self) -> str:
        return self.name.capitalize()


class Piece(NamedTuple):
    """A game piece."""

    color: PColor
    """Who owns it."""
    shape: PShape
    """Round or square, chosen when it is played."""

    def __str__(self) -> str:
        return f"{self.color.name.lower()} {self.shape.name.lower()}"


class Pos(NamedTuple):
    """A board position; row 0 is the bottom row, column 0 the left column."""

    row: int
    """Row, counted from the bottom."""
    col: int
    """Column, counted from the left."""

    def __str__(self) -> str:
        return f"({self.row}, {self.col})"


class Move(NamedTuple):
    """A move that was played: where the piece landed and which piece."""

    row: int
    """Row the piece landed in."""
    col: int
    """Column the piece was dropped into."""
    piece: Piece
    """The piece played."""


class MoveProblem(Enum):
    """Why a move (a column and a shape) cannot be played now.

    `Board.move_problem()` is the one place that decides it: `do_move()`,
    the engine's judge of thinker answers and the GUI's human controls all
    ask it.
    """

    NO_SUCH_COLUMN = "the column does not exist"
    GAME_OVER = "the game is over"
    NO_SUCH_SHAPE = "the shape does not exist"
    NO_PIECES_LEFT = "no piece of that shape is left"
    COLUMN_FULL = "the column is full"

    def __str__(self) -> str:
        return self.value


_PIECES = ((Piece(PColor.WHITE, PShape.ROUND), Piece(PColor.WHITE, PShape.SQUARE)),
           (Piece(PColor.RED, PShape.ROUND), Piece(PColor.RED, PShape.SQUARE)))
_OTHER = (PColor.RED, PColor.WHITE)
_SHAPES = (PShape.ROUND, PShape.SQUARE)
_NONE, _DRAW = Winner.NONE, Winner.DRAW
_WINS_FOR = (Winner.WHITE, Winner.RED)  # by shape or colour value: ROUND/WHITE -> White

# (does the predicate look at shape?, which value, who wins); shape beats colour.
_PREDICATES = ((True, PShape.ROUND, Winner.WHITE),
               (True, PShape.SQUARE, Winner.RED),
               (False, PColor.WHITE, Winner.WHITE),
               (False, PColor.RED, Winner.RED))


def _check_int(name: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BoardConfigError(f"{name} must be a whole number, got {value!r}")
    if value < low:
        raise BoardConfigError(f"{name} must be at least {low}, got {value}")
    return value


@lru_cache(maxsize=64)
def _corridors(rows: int, cols: int, n: int) -> tuple[tuple[Pos, ...], ...]:
    """Win corridors in the reference order: rows, columns, / and \\ diagonals."""
    out: list[tuple[Pos, ...]] = []
    if cols >= n:
        out += [tuple(Pos(r, c) for c in range(cols)) for r in range(rows)]
    if rows >= n:
        out += [tuple(Pos(r, c) for r in range(rows)) for c in range(cols)]
    starts = [(r, 0) for r in range(rows - 1, -1, -1)] + [(0, c) for c in range(1, cols)]
    for r0, c0 in starts:
        line = tuple(Pos(r0 + k, c0 + k) for k in range(min(rows - r0, cols - c0)))
        if len(line) >= n:
            out.append(line)
    starts = ([(r, cols - 1) for r in range(rows - 1, -1, -1)]
              + [(0, c) for c in range(cols - 2, -1, -1)])
    for r0, c0 in starts:
        line = tuple(Pos(r0 + k, c0 - k) for k in range(min(rows - r0, c0 + 1)))
        if len(line) >= n:
            out.append(line)
    return tuple(out)


class _Geometry(NamedTuple):
    """What every board of one size shares: bit layout, run shifts, moves."""

    runs: Callable[[int], int]
    """runs(bitboard): the start bits of every run of n set bits, any direction."""
    offset: int
    """Bit where the shape half of a combined shape+colour bitboard starts."""
    bits: tuple[int, ...]
    """The bit of each cell, indexed by row * cols + col."""
    moves: tuple[tuple[Move, ...], ...]
    """moves[2 * color + shape][row * cols + col]: the Move, made once."""


def _shift_plans(height: int, n: int) -> tuple[tuple[int, ...], ...]:
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


@lru_cache(maxsize=64)
def _geometry(rows: int, cols: int, n: int) -> _Geometry:
    height = rows + 1
    # The gap between the two halves is wider than any shift, so bits of the
    # shape half never reach the colour half.
    offset = height * cols + n * (height + 1)
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    bits = tuple(1 << (c * height + r) for r, c in cells)
    moves = tuple(tuple(Move(r, c, _PIECES[color][shape]) for r, c in cells)
                  for color in PColor for shape in PShape)
    return _Geometry(_run_finder(_shift_plans(height, n)), offset, bits, moves)


class Board:
    """A ColorShapeLinks board of any size.

    White moves first. A move drops a piece of the player's colour and a
    chosen shape into a column. Round or white pieces count for White,
    square or red pieces for Red, and shape beats colour.
    """

    __slots__ = ("rows", "cols", "win_sequence", "round_pieces", "square_pieces",
                 "_turn", "_cells", "_heights", "_counts", "_color_bits",
                 "_shape_bits", "_history", "_results", "_draw_at", "_geometry")

    def __init__(self, rows: int = 6, cols: int = 7, win_sequence: int = 4,
                 round_pieces: int = 10, square_pieces: int = 11) -> None:
        """Create an empty board.

        Raises:
            BoardConfigError: a size or count is not a whole number, is out of
                range, or no player could ever win (rows and cols both below
                win_sequence).
        """
        self.rows = _check_int("rows", rows, 1)
        self.cols = _check_int("cols", cols, 1)
        self.win_sequence = _check_int("win_sequence", win_sequence, 1)
        self.round_pieces = _check_int("round_pieces", round_pieces, 0)
        self.square_pieces = _check_int("square_pieces", square_pieces, 0)
        if rows < win_sequence and cols < win_sequence:
            raise BoardConfigError(
                f"no win is possible: a {rows}x{cols} board cannot hold "
                f"{win_sequence} pieces in a row")
        if round_pieces + square_pieces == 0:
            raise BoardConfigError("each player needs at least one piece")
        self._turn = PColor.WHITE
        self._cells: list[Piece | None] = [None] * (rows * cols)
        self._heights = [0] * cols
        self._counts = [round_pieces, square_pieces, round_pieces, square_pieces]
        self._color_bits = [0, 0]
        self._shape_bits = [0, 0]
        self._history: list[Move] = []
        self._results: list[Winner] = [Winner.NONE]
        self._draw_at = min(rows * cols, 2 * (round_pieces + square_pieces))
        self._geometry = _geometry(rows, cols, win_sequence)

    # ----------------------------------------------------------------- reading
    @property
    def turn(self) -> PColor:
        """The colour of the player to move."""
        return self._turn

    def __getitem__(self, pos: tuple[int, int]) -> Piece | None:
        """The piece at (row, col), or None.

        Raises:
            IndexError: the position is off the board.
        """
        row, col = pos
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise IndexError(f"position ({row}, {col}) is off the "
                             f"{self.rows}x{self.cols} board")
        return self._cells[row * self.cols + col]

    @property
    def move_count(self) -> int:
        """How many moves have been played."""
        return len(self._history)

    @property
    def history(self) -> tuple[Move, ...]:
        """The moves played so far, oldest first."""
        return tuple(self._history)

    @property
    def last_move(self) -> Move | None:
        """The most recent move, or None before the first."""
        return self._history[-1] if self._history else None

    @property
    def win_corridors(self) -> tuple[tuple[Pos, ...], ...]:
        """Every line where a winning run can lie, in the reference order."""
        return _corridors(self.rows, self.cols, self.win_sequence)

    def piece_count(self, color: PColor, shape: PShape) -> int:
        """How many pieces of this colour and shape are still to be played."""
        return self._counts[2 * color + shape]

    def is_column_full(self, col: int) -> bool:
        """Whether no piece fits in this column.

        Raises:
            IndexError: the column is off the board.
        """
        if not 0 <= col < self.cols:
            raise IndexError(f"column {col} is off the board (0 to {self.cols - 1})")
        return self._heights[col] >= self.rows

    def column_height(self, col: int) -> int:
        """How many pieces the column holds (the row the next piece lands in).

        Raises:
            IndexError: the column is off the board.
        """
        if not 0 <= col < self.cols:
            raise IndexError(f"column {col} is off the board (0 to {self.cols - 1})")
        return self._heights[col]

    def move_problem(self, shape: object, col: object) -> MoveProblem | None:
        """Why the player to move cannot drop a piece of `shape` into `col`
        now, or None when the move is legal.

        A column is a whole number (not a bool) from 0 to cols - 1; a shape is
        a PShape or its value, 0 or 1 (not a bool). The problems are looked
        for in the order of MoveProblem.
        """
        if col.__class__ is not int and not (isinstance(col, int)
                                             and not isinstance(col, bool)):
            return MoveProblem.NO_SUCH_COLUMN
        if not 0 <= col < self.cols:  # type: ignore[operator]
            return MoveProblem.NO_SUCH_COLUMN
        if self._results[-1] is not _NONE:
            return MoveProblem.GAME_OVER
        if isinstance(shape, bool) or not isinstance(shape, int) or shape not in _SHAPES:
            return MoveProblem.NO_SUCH_SHAPE
        if not self._counts[2 * self._turn + shape]:
            return MoveProblem.NO_PIECES_LEFT
        if self._heights[col] == self.rows:  # type: ignore[index]
            return MoveProblem.COLUMN_FULL
        return None

    def _refuse(self, problem: MoveProblem, shape: object, col: object) -> InvalidMoveError:
        if problem is MoveProblem.NO_SUCH_COLUMN:
            text = f"column {col!r} does not exist (0 to {self.cols - 1})"
        elif problem is MoveProblem.GAME_OVER:
            text = "the game is over, no more moves can be made"
        elif problem is MoveProblem.NO_SUCH_SHAPE:
            text = f"{shape!r} is not a shape (PShape.ROUND or PShape.SQUARE)"
        else:
            text = f"{self._turn} has no {PShape(shape).name.lower()} pieces left"  # type: ignore[arg-type]
        return InvalidMoveError(text, problem)

    # ---------------------------------------------------------------- changing
    def do_move(self, shape: PShape, col: int) -> int:
        """Drop a piece of the player to move, of this shape, into a column.

        Returns the row the piece landed in, or -1 if the column is full
        (the board is then unchanged).

        Raises:
            InvalidMoveError: the column does not exist, the game is already
                over, the shape is not a PShape, or the player has no piece
                of that shape left (`move_problem()` says which; the error
                carries it as `.problem`).
        """
        color = self._turn
        # The common case in one test (this is the innermost step of every
        # playout); anything unusual is left to move_problem(), which decides.
        if (col.__class__ is int and 0 <= col < self.cols and self._results[-1] is _NONE
                and (shape.__class__ is PShape or shape.__class__ is int)
                and (shape == 0 or shape == 1) and self._counts[2 * color + shape]):
            row = self._heights[col]
            if row == self.rows:
                return -1
        else:
            problem = self.move_problem(shape, col)
            if problem is MoveProblem.COLUMN_FULL:
                return -1
            assert problem is not None, "the fast test refused a legal move"
            raise self._refuse(problem, shape, col)
        index = 2 * color + shape
        cell = row * self.cols + col
        geometry = self._geometry
        move = geometry.moves[index][cell]
        bit = geometry.bits[cell]
        self._cells[cell] = move.piece
        self._heights[col] = row + 1
        self._counts[index] -= 1
        self._color_bits[color] |= bit
        self._shape_bits[shape] |= bit
        self._history.append(move)
        self._turn = _OTHER[color]
        self._results.append(self._result_after(color, shape))
        return row

    def undo_move(self) -> Move:
        """Take back the last move and return it.

        Raises:
            InvalidMoveError: no move has been played.
        """
        if not self._history:
            raise InvalidMoveError("there is no move to undo")
        move = self._history.pop()
        self._results.pop()
        row, col, (color, shape) = move
        cell = row * self.cols + col
        bit = self._geometry.bits[cell]
        self._cells[cell] = None
        self._heights[col] = row
        self._counts[2 * color + shape] += 1
        self._color_bits[color] ^= bit
        self._shape_bits[shape] ^= bit
        self._turn = color
        return move

    def _result_after(self, color: PColor, shape: PShape) -> Winner:
        # Before this move nobody had a run (do_move refuses a finished
        # game), so a new run passes through the new piece: a run of its
        # shape wins first, else a run of its colour. Both are searched at
        # once in one int: the shape bits above the colour bits.
        offset, runs = self._geometry.offset, self._geometry.runs
        found = runs(self._shape_bits[shape] << offset | self._color_bits[color])
        if found:
            return _WINS_FOR[shape] if found >> offset else _WINS_FOR[color]
        if len(self._history) == self._draw_at:
            return _DRAW
        return _NONE

    # ----------------------------------------------------------------- results
    def check_winner(self, solution: list[Pos] | None = None) -> Winner:
        """The state of the game: NONE, DRAW, WHITE or RED.

        If a list is given and somebody won, it is filled with the positions
        of the winning run (win_sequence of them, in corridor order).
        """
        result = self._results[-1]
        if solution is not None and result in (Winner.WHITE, Winner.RED):
            solution[:] = self._find_solution()
        return result

    def _find_solution(self) -> list[Pos]:
        n = self.win_sequence
        for by_shape, value, _ in _PREDICATES:
            for corridor in self.win_corridors:
                run: list[Pos] = []
                for pos in corridor:
                    piece = self._cells[pos.row * self.cols + pos.col]
                    ok = piece is not None and (
                        piece.shape == value if by_shape else piece.color == value)
                    run = run + [pos] if ok else []
                    if len(run) == n:
                        return run
        return []

    # ------------------------------------------------------------------ copies
    def copy(self) -> Board:
        """An independent copy, history included."""
        other = Board.__new__(Board)
        other.rows, other.cols = self.rows, self.cols
        other.win_sequence = self.win_sequence
        other.round_pieces, other.square_pieces = self.round_pieces, self.square_pieces
        other._turn = self._turn
        other._cells = self._cells.copy()
        other._heights = self._heights.copy()
        other._counts = self._counts.copy()
        other._color_bits = self._color_bits.copy()
        other._shape_bits = self._shape_bits.copy()
        other._history = self._history.copy()
        other._results = self._results.copy()
        other._draw_at = self._draw_at
        other._geometry = self._geometry
        return other

    __copy__ = copy

    def __deepcopy__(self, memo: dict[int, object]) -> Board:
        return self.copy()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (self.settings == other.settings and self._history == other._history)

    __hash__ = None  # type: ignore[assignment]

    @property
    def settings(self) -> tuple[int, int, int, int, int]:
        """(rows, cols, win_sequence, round_pieces, square_pieces)."""
        return (self.rows, self.cols, self.win_sequence,
                self.round_pieces, self.square_pieces)

    def __reduce__(self) -> tuple[object, ...]:
        # Pickle as settings plus moves: small, and rebuilt through do_move.
        moves = tuple((m.piece.shape, m.col) for m in self._history)
        return (_rebuild, (self.settings, moves))

    def __repr__(self) -> str:
        return (f"Board(rows={self.rows}, cols={self.cols}, "
                f"win_sequence={self.win_sequence}, round_pieces={self.round_pieces}, "
                f"square_pieces={self.square_pieces}) after {self.move_count} moves")


def _rebuild(settings: tuple[int, int, int, int, int],
             moves: tuple[tuple[int, int], ...]) -> Board:
    board = Board(*settings)
    for shape, col in moves:
        board.do_move(PShape(shape), col)
    return board
