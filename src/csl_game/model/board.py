"""The game model's board: checked moves, history, the winner and its run.

`Board` is the API thinkers and the engine code against: every move is
checked (`move_problem()` says why one cannot be played), kept on a history
and undone exactly. It stands on the fast core (`csl_game.model.core`), which
holds the position as bitboards and decides who won; the result is worked out
once per move, so `check_winner()` costs nothing.
"""

from __future__ import annotations

from enum import Enum
from functools import lru_cache
from typing import ClassVar

from csl_game.errors import InvalidMoveError
from csl_game.model.core import FastBoard, geometry
from csl_game.model.values import Move, PColor, Piece, Pos, PShape, Winner

__all__ = [
    "PColor", "PShape", "Winner", "Piece", "Pos", "Move", "MoveProblem", "Board",
    "PIECE_LETTERS", "LEGEND",
]


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


# Indexed by kind, 2 * colour + shape, as the core counts pieces.
_PIECES = (Piece(PColor.WHITE, PShape.ROUND), Piece(PColor.WHITE, PShape.SQUARE),
           Piece(PColor.RED, PShape.ROUND), Piece(PColor.RED, PShape.SQUARE))
_COLORS = (PColor.WHITE, PColor.RED)
_SHAPES = (PShape.ROUND, PShape.SQUARE)
_NONE = Winner.NONE

PIECE_LETTERS = {piece: letter for piece, letter in zip(_PIECES, "wWrR")}
"""How str(board) writes each piece, as the reference console does."""
LEGEND = "w white round, W white square, r red round, R red square, . empty"
"""The last line of str(board)."""

# (does the predicate look at shape (else colour)?, which value); shape beats colour.
_PREDICATES = ((True, PShape.ROUND), (True, PShape.SQUARE),
               (False, PColor.WHITE), (False, PColor.RED))


@lru_cache(maxsize=64)
def _corridor_bits(rows: int, cols: int, n: int) -> tuple[int, ...]:
    """Each corridor's cells as a bitboard of csl_game.model.core's layout."""
    return tuple(sum(1 << (p.col * (rows + 1) + p.row) for p in corridor)
                 for corridor in _corridors(rows, cols, n))


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


@lru_cache(maxsize=64)
def _drops(cols: int) -> tuple[tuple[int, PShape], ...]:
    """table[move code]: the (column, shape) of a core move code ``col << 1 | shape``."""
    return tuple((code >> 1, _SHAPES[code & 1]) for code in range(2 * cols))


@lru_cache(maxsize=64)
def _move_table(rows: int, cols: int) -> tuple[tuple[Move, ...], ...]:
    """table[kind][bit index]: the Move of a piece of that kind landing there, made once.

    Guard bits get a Move too (row == rows) so that the table is plain; no
    move ever lands there.
    """
    height = rows + 1
    return tuple(tuple(Move(i % height, i // height, piece) for i in range(cols * height))
                 for piece in _PIECES)


class Board:
    """A ColorShapeLinks board of any size.

    White moves first. A move drops a piece of the player's colour and a
    chosen shape into a column. Round or white pieces count for White,
    square or red pieces for Red, and shape beats colour.
    """

    __slots__ = ("rows", "cols", "win_sequence", "round_pieces", "square_pieces",
                 "_fast", "_history", "_result", "_moves", "_cells")
    rows: int
    cols: int
    win_sequence: int
    round_pieces: int
    square_pieces: int

    def __init__(self, rows: int = 6, cols: int = 7, win_sequence: int = 4,
                 round_pieces: int = 10, square_pieces: int = 11) -> None:
        """Create an empty board.

        Raises:
            BoardConfigError: a size or count is not a whole number, is out of
                range, no player could ever win (rows and cols both below
                win_sequence), or the players have no pieces.
        """
        geo = geometry(rows, cols, win_sequence, round_pieces, square_pieces)
        self.rows, self.cols, self.win_sequence = geo.rows, geo.cols, geo.win_sequence
        self.round_pieces, self.square_pieces = geo.round_pieces, geo.square_pieces
        self._fast = FastBoard(geo)
        self._history: list[Move] = []
        self._result = _NONE
        self._moves = _move_table(geo.rows, geo.cols)
        # The pieces by the core's bit index (guard bits stay None): a read of
        # board[row, col] is then one list index, which heuristics that look
        # at every cell of every leaf feel most.
        self._cells: list[Piece | None] = [None] * (geo.cols * geo.height)

    # ----------------------------------------------------------------- reading
    @property
    def turn(self) -> PColor:
        """The colour of the player to move."""
        return _COLORS[self._fast.turn]

    def __getitem__(self, pos: tuple[int, int]) -> Piece | None:
        """The piece at (row, col), or None.

        Raises:
            IndexError: the position is off the board.
        """
        row, col = pos
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise IndexError(f"position ({row}, {col}) is off the "
                             f"{self.rows}x{self.cols} board")
        return self._cells[col * (self.rows + 1) + row]

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
        return self._fast.counts[2 * color + shape]

    def is_column_full(self, col: int) -> bool:
        """Whether no piece fits in this column.

        Raises:
            IndexError: the column is off the board.
        """
        return self.column_height(col) >= self.rows

    def column_height(self, col: int) -> int:
        """How many pieces the column holds (the row the next piece lands in).

        Raises:
            IndexError: the column is off the board.
        """
        if not 0 <= col < self.cols:
            raise IndexError(f"column {col} is off the board (0 to {self.cols - 1})")
        return self._fast.heights[col]

    def legal_moves(self) -> list[tuple[int, PShape]]:
        """Every move the player to move can make, as (column, shape) pairs:
        columns left to right, round before square; empty once the game is over.

        A `FutureMove` is a (column, shape) pair too, so
        ``FutureMove(3, PShape.ROUND) in board.legal_moves()`` asks whether it
        is legal.
        """
        if self._result is not _NONE:
            return []
        drops = _drops(self.cols)
        return [drops[code] for code in self._fast.legal_moves()]

    def fast_board(self) -> FastBoard:
        """The position as an independent `FastBoard`: the fast door for
        searches (unchecked play and undo on bitboards)."""
        return self._fast.copy()

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
        if not 0 <= col < self.cols:
            return MoveProblem.NO_SUCH_COLUMN
        if self._result is not _NONE:
            return MoveProblem.GAME_OVER
        if isinstance(shape, bool) or not isinstance(shape, int) or shape not in _SHAPES:
            return MoveProblem.NO_SUCH_SHAPE
        fast = self._fast
        if not fast.counts[2 * fast.turn + shape]:
            return MoveProblem.NO_PIECES_LEFT
        if fast.heights[col] == self.rows:
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
            text = f"{self.turn} has no {PShape(shape).name.lower()} pieces left"  # type: ignore[arg-type]
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
        fast = self._fast
        # The common case in one test (this is the innermost step of every
        # playout); anything unusual is left to move_problem(), which decides.
        if (col.__class__ is int and 0 <= col < self.cols and self._result is _NONE
                and (shape.__class__ is PShape or shape.__class__ is int)
                and (shape == 0 or shape == 1) and fast.counts[kind := 2 * fast.turn + shape]):
            row = fast.heights[col]
            if row == self.rows:
                return -1
        else:
            problem = self.move_problem(shape, col)
            if problem is MoveProblem.COLUMN_FULL:
                return -1
            assert problem is not None, "the fast test refused a legal move"
            raise self._refuse(problem, shape, col)
        index = fast.play(col, shape)
        self._history.append(self._moves[kind][index])
        self._cells[index] = _PIECES[kind]
        self._result = fast.winner_after(shape)
        return row

    def undo_move(self) -> Move:
        """Take back the last move and return it.

        Raises:
            InvalidMoveError: no move has been played.
        """
        if not self._history:
            raise InvalidMoveError("there is no move to undo")
        move = self._history.pop()
        self._fast.undo(move.col)
        self._cells[move.col * (self.rows + 1) + move.row] = None
        # do_move refuses a finished game, so before any move the game was on.
        self._result = _NONE
        return move

    # ----------------------------------------------------------------- results
    def check_winner(self, solution: list[Pos] | None = None) -> Winner:
        """The state of the game: NONE, DRAW, WHITE or RED.

        If a list is given and somebody won, it is filled with the positions
        of the winning run (win_sequence of them, in corridor order).
        """
        result = self._result
        if solution is not None and result in (Winner.WHITE, Winner.RED):
            solution[:] = self._find_solution()
        return result

    def _find_solution(self) -> list[Pos]:
        n = self.win_sequence
        fast = self._fast
        kind_at, runs = fast.kind_at, fast.geometry.runs
        for by_shape, value in _PREDICATES:
            pieces = fast.shapes[value] if by_shape else fast.colors[value]
            if not runs(pieces):  # no run of this kind: its corridors need no look
                continue
            for corridor, cells in zip(self.win_corridors,
                                       _corridor_bits(self.rows, self.cols, n), strict=True):
                if (cells & pieces).bit_count() < n:
                    continue
                run: list[Pos] = []
                for pos in corridor:
                    kind = kind_at(pos.row, pos.col)
                    ok = kind >= 0 and (kind & 1 if by_shape else kind >> 1) == value
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
        other._fast = self._fast.copy()
        other._history = self._history.copy()
        other._cells = self._cells.copy()
        other._result = self._result
        other._moves = self._moves
        return other

    __copy__ = copy

    def __deepcopy__(self, memo: dict[int, object]) -> Board:
        return self.copy()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (self.settings == other.settings and self._history == other._history)

    __hash__: ClassVar[None] = None  # type: ignore[assignment]  # mutable: no hash

    @property
    def settings(self) -> tuple[int, int, int, int, int]:
        """(rows, cols, win_sequence, round_pieces, square_pieces)."""
        return (self.rows, self.cols, self.win_sequence,
                self.round_pieces, self.square_pieces)

    def __reduce__(self) -> tuple[object, ...]:
        # Pickle as settings plus moves: small, and rebuilt through do_move.
        moves = tuple((m.piece.shape, m.col) for m in self._history)
        return (_rebuild, (self.settings, moves))

    def __str__(self) -> str:
        """The board as the reference console shows it, then a legend: a line
        per row, top row first, a letter per cell (``..Rw...``)."""
        cells = self._cells
        height = self.rows + 1
        lines = ["".join("." if (piece := cells[col * height + row]) is None
                         else PIECE_LETTERS[piece] for col in range(self.cols))
                 for row in range(self.rows - 1, -1, -1)]
        return "\n".join([*lines, LEGEND])

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
