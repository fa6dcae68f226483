"""The fast core: its documented operations, and held to Board and to the rules.

The differential property test plays random legal moves with undos in between
on three models at once: the core (`FastBoard`), the `Board` that stands on
it, and a plain oracle written here straight from RULES.md. After every step
all three must agree. The search's inlined moves are checked against the core
node by node.
"""

from __future__ import annotations

import copy
import pickle
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from csl_game import Board, BoardConfigError, PColor, Piece, PShape, Winner
from csl_game.model import FastBoard, Geometry, geometry
from csl_game.thinkers._alphabeta import Searcher
from csl_game.thinkers._tactics import tables_for, zobrist_hash

R, S = 0, 1
Settings = tuple[int, int, int, int, int]


def fields(fast: FastBoard) -> tuple[object, ...]:
    """Everything a FastBoard holds, for comparisons."""
    return (fast.colors, fast.shapes, fast.heights, fast.counts, fast.turn, fast.ply)


def bit(geo: Geometry, row: int, col: int) -> int:
    return 1 << geo.index(row, col)


# ---------------------------------------------------------------- geometry
@pytest.mark.unit
def test_layout_is_column_by_column_with_a_guard_bit() -> None:
    geo = geometry(2, 3, 2, 3, 3)
    assert geo.height == 3
    assert [geo.index(r, c) for c in range(3) for r in range(2)] == [0, 1, 3, 4, 6, 7]
    assert geo.full == 0b011_011_011
    assert geo.bottom == 0b001_001_001
    assert geo.max_moves == 6
    assert geo.settings == (2, 3, 2, 3, 3)


@pytest.mark.unit
@pytest.mark.parametrize("settings_, max_moves", [
    ((6, 7, 4, 10, 11), 42), ((6, 7, 4, 5, 5), 20), ((1, 1, 1, 1, 0), 1), ((3, 3, 3, 0, 2), 4),
])
def test_max_moves_is_full_board_or_no_pieces_left(settings_: Settings,
                                                   max_moves: int) -> None:
    assert geometry(*settings_).max_moves == max_moves


@pytest.mark.unit
def test_geometry_is_made_once_per_setting() -> None:
    assert geometry(6, 7, 4, 10, 11) is geometry()
    assert geometry(6, 7, 4, 10, 11) is not geometry(6, 7, 4, 10, 12)
    assert Board().fast_board().geometry is geometry()


@pytest.mark.unit
@pytest.mark.parametrize("args", [
    (3, 3, 4, 1, 1), (0, 7, 4, 1, 1), (6, 7, 0, 1, 1), (6, 7, 4, -1, 1), (6, 7, 4, 0, 0),
    (True, 7, 4, 1, 1), (6.0, 7, 4, 1, 1), (6, "7", 4, 1, 1),
])
def test_geometry_refuses_what_board_refuses(args: tuple[object, ...]) -> None:
    with pytest.raises(BoardConfigError) as from_core:
        geometry(*args)  # type: ignore[arg-type]
    with pytest.raises(BoardConfigError) as from_board:
        Board(*args)  # type: ignore[arg-type]
    assert str(from_core.value) == str(from_board.value)


@pytest.mark.unit
@pytest.mark.parametrize("row, col, step", [(0, 0, (0, 1)), (2, 1, (1, 0)), (0, 0, (1, 1)),
                                            (0, 3, (1, -1))])
def test_runs_finds_a_run_in_every_direction_and_nothing_shorter(
        row: int, col: int, step: tuple[int, int]) -> None:
    geo = geometry(6, 7, 4, 10, 11)
    cells = [bit(geo, row + k * step[0], col + k * step[1]) for k in range(4)]
    assert geo.runs(sum(cells)) != 0
    assert geo.runs(sum(cells[:3])) == 0
    assert geo.runs(sum(cells) << geo.offset) >> geo.offset != 0


@pytest.mark.unit
def test_runs_do_not_wrap_from_one_column_into_the_next() -> None:
    geo = geometry(3, 3, 3, 5, 5)
    top_then_bottom = bit(geo, 1, 0) | bit(geo, 2, 0) | bit(geo, 0, 1)
    assert geo.runs(top_then_bottom) == 0


# ------------------------------------------------------------ play and undo
@pytest.mark.unit
def test_an_empty_board() -> None:
    fast = FastBoard(geometry(6, 7, 4, 10, 11))
    assert fields(fast) == ([0, 0], [0, 0], [0] * 7, [10, 11, 10, 11], 0, 0)
    assert fast.legal_moves() == [m for col in range(7) for m in (col << 1, col << 1 | 1)]
    assert fast.winner() is Winner.NONE


@pytest.mark.unit
def test_play_sets_the_cell_and_passes_the_turn() -> None:
    fast = FastBoard(geometry())
    assert fast.play(3, S) == fast.geometry.index(0, 3)
    assert fast.play(3, R) == fast.geometry.index(1, 3)
    geo = fast.geometry
    assert fast.colors == [bit(geo, 0, 3), bit(geo, 1, 3)]
    assert fast.shapes == [bit(geo, 1, 3), bit(geo, 0, 3)]
    assert fast.heights[3] == 2 and fast.counts == [10, 10, 9, 11]
    assert (fast.turn, fast.ply) == (0, 2)
    assert (fast.kind_at(0, 3), fast.kind_at(1, 3), fast.kind_at(2, 3)) == (1, 2, -1)


@pytest.mark.unit
def test_undo_returns_the_shape_and_restores_everything() -> None:
    fast = FastBoard(geometry())
    before = [fields(fast.copy())]
    for col, shape in [(3, S), (3, R), (0, R), (6, S)]:
        fast.play(col, shape)
        before.append(fields(fast.copy()))
    before.pop()
    for col, shape in [(6, S), (0, R), (3, R), (3, S)]:
        assert fast.undo(col) == shape
        assert fields(fast) == before.pop()


@pytest.mark.unit
def test_legal_moves_leave_out_full_columns_and_missing_shapes() -> None:
    fast = FastBoard(geometry(2, 3, 3, 0, 5))
    for col in (1, 1):
        fast.play(col, S)
    assert fast.legal_moves() == [0 << 1 | S, 2 << 1 | S]


@pytest.mark.unit
@pytest.mark.parametrize("moves, winner", [
    ([(0, S), (6, R), (1, S), (6, R), (2, S), (6, R), (3, S)], Winner.RED),
    ([(0, R), (6, S), (1, R), (6, S), (2, R), (6, S), (3, R)], Winner.WHITE),
    ([(0, R), (6, S), (1, S), (6, S), (2, R), (6, S), (3, S)], Winner.WHITE),
    ([(0, R), (0, S), (1, R), (1, S), (2, R), (2, S)], Winner.NONE),
], ids=["white-squares-win-for-red", "round-run", "colour-run", "nothing-yet"])
def test_winner_after_gives_shape_before_colour(moves: list[tuple[int, int]],
                                                winner: Winner) -> None:
    fast = FastBoard(geometry())
    for col, shape in moves:
        assert fast.winner() is Winner.NONE
        fast.play(col, shape)
    assert fast.winner_after(moves[-1][1]) is winner
    assert fast.winner() is winner


@pytest.mark.unit
def test_winner_sees_a_draw_by_full_board_and_by_no_pieces() -> None:
    full = FastBoard(geometry(1, 2, 2, 1, 1))
    full.play(0, R)
    full.play(1, S)
    assert full.winner_after(S) is full.winner() is Winner.DRAW
    no_pieces = FastBoard(geometry(1, 5, 5, 1, 0))
    no_pieces.play(0, R)
    no_pieces.play(4, R)
    assert no_pieces.winner_after(R) is no_pieces.winner() is Winner.DRAW
    assert no_pieces.heights == [1, 0, 0, 0, 1]


@pytest.mark.unit
def test_copies_and_fast_boards_of_a_board_are_independent() -> None:
    board = Board()
    board.do_move(PShape.ROUND, 3)
    fast = board.fast_board()
    twins = [fast.copy(), copy.copy(fast), copy.deepcopy(fast)]
    fast.play(3, S)
    for twin in twins:
        assert fields(twin) == fields(board.fast_board()) != fields(fast)
    assert board.move_count == 1 and board[1, 3] is None


# ------------------------------------------------------------ the oracle
@dataclass
class Oracle:
    """The rules as RULES.md states them, on a plain grid, with no cleverness."""

    rows: int
    cols: int
    n: int
    round_pieces: int
    square_pieces: int
    grid: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    """(row, col) -> (colour, shape) of the piece there."""
    history: list[tuple[int, int]] = field(default_factory=list)
    lines: list[list[tuple[int, int]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.lines = self.corridors()

    @property
    def turn(self) -> int:
        return len(self.history) % 2

    def height(self, col: int) -> int:
        return sum(1 for (_, c) in self.grid if c == col)

    def count(self, color: int, shape: int) -> int:
        start = (self.round_pieces, self.square_pieces)[shape]
        return start - sum(1 for piece in self.grid.values() if piece == (color, shape))

    def play(self, col: int, shape: int) -> None:
        row = self.height(col)
        self.grid[row, col] = (self.turn, shape)
        self.history.append((row, col))

    def undo(self) -> None:
        del self.grid[self.history.pop()]

    def corridors(self) -> list[list[tuple[int, int]]]:
        """Rows, columns and diagonals long enough to hold a run."""
        rows, cols = self.rows, self.cols
        cells = [(r, c) for r in range(rows) for c in range(cols)]
        lines = [[(r, c) for c in range(cols)] for r in range(rows)]
        lines += [[(r, c) for r in range(rows)] for c in range(cols)]
        lines += [[(r, c) for r, c in cells if c - r == d] for d in range(-rows, cols)]
        lines += [[(r, c) for r, c in cells if c + r == d] for d in range(rows + cols)]
        return [line for line in lines if len(line) >= self.n]

    def winner(self) -> Winner:
        predicates = [(1, R, Winner.WHITE), (1, S, Winner.RED),
                      (0, 0, Winner.WHITE), (0, 1, Winner.RED)]
        for index, value, who in predicates:  # round, square, white, red: in this order
            for line in self.lines:
                run = 0
                for cell in line:
                    piece = self.grid.get(cell)
                    run = run + 1 if piece is not None and piece[index] == value else 0
                    if run == self.n:
                        return who
        pieces_left = sum(self.count(c, s) for c in (0, 1) for s in (R, S))
        if len(self.grid) == self.rows * self.cols or pieces_left == 0:
            return Winner.DRAW
        return Winner.NONE

    def legal_moves(self) -> list[int]:
        if self.winner() is not Winner.NONE:
            return []
        return [col << 1 | s for col in range(self.cols) if self.height(col) < self.rows
                for s in (R, S) if self.count(self.turn, s)]


def board_legal_moves(board: Board) -> list[int]:
    return [col << 1 | s for col in range(board.cols) for s in (R, S)
            if board.move_problem(PShape(s), col) is None]


def assert_all_agree(fast: FastBoard, result: Winner, board: Board, oracle: Oracle) -> None:
    geo = fast.geometry
    heights = [oracle.height(c) for c in range(geo.cols)]
    counts = [oracle.count(c, s) for c in (0, 1) for s in (R, S)]
    winner = oracle.winner()
    assert fast.turn == board.turn == oracle.turn
    assert fast.ply == board.move_count == len(oracle.history)
    assert fast.heights == [board.column_height(c) for c in range(geo.cols)] == heights
    assert fast.counts == [board.piece_count(c, s) for c in PColor for s in PShape] == counts
    assert result is fast.winner() is board.check_winner() is winner
    assert fields(board.fast_board()) == fields(fast)
    for (row, col), (color, shape) in oracle.grid.items():
        assert fast.kind_at(row, col) == 2 * color + shape
    assert [board[r, c] for r in range(geo.rows) for c in range(geo.cols)] == [
        Piece(PColor(cell[0]), PShape(cell[1])) if (cell := oracle.grid.get((r, c))) else None
        for r in range(geo.rows) for c in range(geo.cols)]
    assert bin(fast.colors[0] | fast.colors[1]).count("1") == len(oracle.grid)
    legal = oracle.legal_moves()
    assert board_legal_moves(board) == legal
    if winner is Winner.NONE:
        assert fast.legal_moves() == legal


@st.composite
def odd_settings(draw: st.DrawFn) -> Settings:
    """Any valid setting, the odd ones included: one row or column, n = 1,
    n above rows or cols, too few pieces to fill the board, no round pieces."""
    rows, cols = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    n = draw(st.integers(1, max(rows, cols)))
    cells = rows * cols
    round_ = draw(st.sampled_from([0, 1, cells // 4, (cells + 1) // 2]))
    square = draw(st.sampled_from([0, 2, cells // 4, (cells + 1) // 2]))
    return rows, cols, n, round_, square or int(round_ == 0)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(odd_settings(), st.data())
def test_core_board_and_rules_agree_through_play_and_undo(settings_: Settings,
                                                          data: st.DataObject) -> None:
    fast, board, oracle = FastBoard(geometry(*settings_)), Board(*settings_), Oracle(*settings_)
    results = [Winner.NONE]
    assert_all_agree(fast, results[-1], board, oracle)
    for _ in range(data.draw(st.integers(0, 60), label="steps")):
        moves = fast.legal_moves() if results[-1] is Winner.NONE else []
        undo = oracle.history and (not moves or data.draw(st.integers(0, 4)) == 0)
        if undo:
            col = oracle.history[-1][1]
            assert fast.undo(col) == board.undo_move().piece.shape
            oracle.undo()
            results.pop()
        elif moves:
            m = data.draw(st.sampled_from(moves))
            col, shape = m >> 1, m & 1
            assert fast.play(col, shape) == geometry(*settings_).index(board.do_move(
                PShape(shape), col), col)
            oracle.play(col, shape)
            results.append(fast.winner_after(shape))
        else:
            break
        assert_all_agree(fast, results[-1], board, oracle)


# --------------------------------------------------- the search's own moves
class CheckedSearcher(Searcher):
    """A Searcher that checks, at every node, that its inlined play and undo
    left the position, its hash and its positional score as the core would."""

    def __init__(self, root: FastBoard) -> None:
        super().__init__(tables_for(root.geometry), 10_000)
        self.root = root.copy()
        self.path: list[int] = []
        self.checked = 0

    def _search(self, depth: int, alpha: int, beta: int, ply: int,
                raw: tuple[int, int, int, int], last: int) -> int:
        del self.path[ply - 1:]
        self.path.append(last)
        expected = self.root.copy()
        for m in self.path:
            expected.play(m >> 1, m & 1)
        assert fields(self.pos) == fields(expected)
        assert self.hash == zobrist_hash(expected, self.tables)
        assert self.ps == self._positional(expected)
        self.checked += 1
        return super()._search(depth, alpha, beta, ply, raw, last)


@pytest.mark.unit
@pytest.mark.parametrize("settings_, moves", [
    ((6, 7, 4, 10, 11), [(3, R), (3, S), (2, R), (4, S)]),
    ((5, 4, 3, 2, 8), [(1, R), (2, S)]),
    ((4, 5, 4, 0, 10), []),
])
def test_the_search_plays_and_undoes_as_the_core_does(settings_: Settings,
                                                      moves: list[tuple[int, int]]) -> None:
    board = Board(*settings_)
    for col, shape in moves:
        board.do_move(PShape(shape), col)
    pos = board.fast_board()
    searcher = CheckedSearcher(pos)
    searcher.start(pos, float("inf"), lambda: False)
    _, root_moves, _ = searcher.root_moves()
    for depth in (1, 2, 3, 4):
        searcher.search_root(depth, root_moves)
    assert searcher.checked > 100
    assert fields(pos) == fields(board.fast_board())


@pytest.mark.unit
def test_boards_and_fast_boards_pickle() -> None:
    board = Board(4, 5, 3, 4, 6)
    for col, shape in [(0, PShape.ROUND), (1, PShape.SQUARE), (0, PShape.SQUARE)]:
        board.do_move(shape, col)
    clone = pickle.loads(pickle.dumps(board))
    assert clone == board and fields(clone.fast_board()) == fields(board.fast_board())
    fast = pickle.loads(pickle.dumps(board.fast_board()))
    assert fast.geometry is geometry(4, 5, 3, 4, 6)
    assert fields(fast) == fields(board.fast_board())
    fast.play(2, S)
    assert fast.winner_after(S) is Winner.NONE
