"""The board: reference facts, winner priority, errors, undo, copies, corridors."""

from __future__ import annotations

import copy
import functools
import pickle
import random
from collections.abc import Callable, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from csl_game import (
    Board,
    BoardConfigError,
    InvalidMoveError,
    Move,
    PColor,
    Piece,
    Pos,
    PShape,
    Winner,
)

o, s = PShape.ROUND, PShape.SQUARE
Moves = list[tuple[int, PShape]]
Settings = tuple[int, int, int, int, int]
DEFAULT: Settings = (6, 7, 4, 10, 11)


def alternate(first: Moves, second: Moves) -> Moves:
    """Two players' moves interleaved, the first player's first."""
    assert len(first) - len(second) in (0, 1)
    out = [m for pair in zip(first, second) for m in pair]
    return out + first[len(second):]


def mirror(moves: Moves, cols: int = 7) -> Moves:
    return [(cols - 1 - c, shape) for c, shape in moves]


def play(board: Board, moves: Moves) -> Board:
    for col, shape in moves:
        assert board.do_move(shape, col) >= 0
    return board


def winner_with_solution(board: Board) -> tuple[Winner, list[tuple[int, int]]]:
    solution: list[Pos] = []
    winner = board.check_winner(solution)
    return winner, [tuple(p) for p in solution]


REF_WHITE = [(3, o), (3, o), (1, o), (2, o), (0, o), (2, o), (3, o), (1, o),
             (4, o), (1, s), (1, s), (0, o), (0, s), (0, s)]
REF_RED = [(3, s), (3, s), (2, s), (2, s), (2, s), (3, s), (1, s), (1, s),
           (6, s), (4, s), (5, o), (4, s), (2, o)]
DIAG_ROUNDS = [(0, o), (1, s), (1, o), (2, s), (2, s), (2, o), (3, s), (3, s), (3, s), (3, o)]
DIAG_REDS = [(0, o), (3, o), (1, o), (0, s), (2, s), (2, o), (1, s), (1, s), (0, s), (0, s)]

FACTS = [
    pytest.param(DEFAULT, alternate(REF_WHITE, REF_RED), Winner.RED,
                 [(3, 0), (3, 1), (3, 2), (3, 3)], id="reference-6x7"),
    pytest.param((2, 3, 3, 10, 11), alternate([(0, o), (1, o), (2, o)], [(1, s), (2, s), (0, o)]),
                 Winner.WHITE, [(1, 0), (1, 1), (1, 2)], id="reference-2x3-white-full-board"),
    pytest.param((2, 3, 3, 10, 11), alternate([(0, o), (1, o), (2, o)], [(1, s), (2, s), (0, s)]),
                 Winner.DRAW, [], id="reference-2x3-draw"),
    pytest.param(DEFAULT, alternate([(0, s), (1, s), (2, s), (3, s)], [(6, o)] * 3),
                 Winner.RED, [(0, 0), (0, 1), (0, 2), (0, 3)], id="white-square-completes-both"),
    pytest.param(DEFAULT, alternate([(6, s), (6, s), (6, s), (5, s)],
                                    [(0, o), (1, o), (2, o), (3, o)]),
                 Winner.WHITE, [(0, 0), (0, 1), (0, 2), (0, 3)], id="red-round-completes-both"),
    pytest.param((4, 4, 3, 8, 8), alternate([(1, o), (2, o), (2, o)], [(3, s), (3, s), (3, o)]),
                 Winner.WHITE, [(0, 1), (1, 2), (2, 3)], id="shape-beats-earlier-colour-corridor"),
    pytest.param(DEFAULT, DIAG_ROUNDS, Winner.WHITE,
                 [(0, 0), (1, 1), (2, 2), (3, 3)], id="diagonal-up-right-shape"),
    pytest.param(DEFAULT, mirror(DIAG_ROUNDS), Winner.WHITE,
                 [(0, 6), (1, 5), (2, 4), (3, 3)], id="diagonal-up-left-shape"),
    pytest.param(DEFAULT, DIAG_REDS, Winner.RED,
                 [(0, 3), (1, 2), (2, 1), (3, 0)], id="diagonal-up-left-colour"),
    pytest.param(DEFAULT, mirror(DIAG_REDS), Winner.RED,
                 [(0, 3), (1, 4), (2, 5), (3, 6)], id="diagonal-up-right-colour"),
    pytest.param(DEFAULT, alternate([(0, o)] * 4, [(1, s)] * 3), Winner.WHITE,
                 [(0, 0), (1, 0), (2, 0), (3, 0)], id="vertical-shape"),
    pytest.param(DEFAULT, alternate([(0, o), (0, s), (0, o), (0, s)], [(1, o), (1, s), (1, o)]),
                 Winner.WHITE, [(0, 0), (1, 0), (2, 0), (3, 0)], id="vertical-colour"),
    pytest.param(DEFAULT, alternate([(6, o), (6, s), (6, o), (5, s)],
                                    [(0, s), (1, o), (2, s), (3, o)]),
                 Winner.RED, [(0, 0), (0, 1), (0, 2), (0, 3)], id="horizontal-colour"),
    pytest.param(DEFAULT, alternate([(0, s), (2, s)], [(1, s), (3, s)]),
                 Winner.RED, [(0, 0), (0, 1), (0, 2), (0, 3)], id="horizontal-shape"),
    pytest.param((3, 3, 1, 2, 2), [(1, s)], Winner.RED, [(0, 1)], id="win-sequence-1-square"),
    pytest.param((3, 3, 1, 2, 2), [(2, o)], Winner.WHITE, [(0, 2)], id="win-sequence-1-round"),
    pytest.param((1, 5, 5, 2, 3), [(0, s), (4, s), (1, s), (3, s), (2, s)], Winner.RED,
                 [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)], id="one-row-board"),
]

# Boards drawn as text, top row first: w/r = colour, o/s = shape, .. = empty.
# Filling them row by row, each row holds the right mix of colours for White
# and Red to alternate, and no line has a run.
FULL_BOARD_GRID = [  # 6x7, 4 in a row, 10 + 11 pieces: the standard game
    "rs ro ws wo rs ro ws",
    "ws wo rs ro ws wo rs",
    "ro rs wo ws ro rs wo",
    "wo ws ro rs wo ws ro",
    "rs ro ws wo rs ro ws",
    "ws wo rs ro ws wo rs",
]
NO_PIECES_GRID = [  # 10x10, 7 in a row, 24 + 25 pieces: 98 pieces for 100 cells
    "wo ro ws rs wo ro ws rs .. ..",
    "ws rs wo ro ws rs wo ro ws rs",
    "ro wo rs ws ro wo rs ws ro wo",
    "rs ws ro wo rs ws ro wo rs ws",
    "wo ro ws rs wo ro ws rs wo ro",
    "ws rs wo ro ws rs wo ro ws rs",
    "ro wo rs ws ro wo rs ws ro wo",
    "rs ws ro wo rs ws ro wo rs ws",
    "wo ro ws rs wo ro ws rs wo ro",
    "ws rs wo ro ws rs wo ro ws rs",
]


def grid_moves(grid: list[str]) -> Moves:
    """Moves that build the grid row by row, White and Red alternating."""
    moves: Moves = []
    for line in reversed(grid):
        tokens = line.split()
        by_color = {k: [(c, o if t[1] == "o" else s) for c, t in enumerate(tokens) if t[0] == k]
                    for k in "wr"}
        first, second = "wr" if len(moves) % 2 == 0 else "rw"
        moves += alternate(by_color[first], by_color[second])
    return moves


FACTS.append(pytest.param(DEFAULT, grid_moves(FULL_BOARD_GRID), Winner.DRAW, [],
                          id="draw-full-board"))
FACTS.append(pytest.param((10, 10, 7, 24, 25), grid_moves(NO_PIECES_GRID), Winner.DRAW, [],
                          id="draw-no-pieces-left"))


@pytest.mark.unit
@pytest.mark.parametrize("settings_, moves, winner, solution", FACTS)
def test_move_table(settings_: Settings, moves: Moves, winner: Winner,
                    solution: list[tuple[int, int]]) -> None:
    board = Board(*settings_)
    for col, shape in moves:
        assert board.check_winner() is Winner.NONE
        color = board.turn
        row = board.do_move(shape, col)
        assert board[row, col] == Piece(color, shape)
    assert winner_with_solution(board) == (winner, solution)
    assert board.move_count == len(moves)


@pytest.mark.unit
def test_draw_by_pieces_leaves_cells_empty() -> None:
    board = play(Board(10, 10, 7, 24, 25), grid_moves(NO_PIECES_GRID))
    assert board.move_count == 98
    assert board[9, 8] is None and board[9, 9] is None
    assert all(board.piece_count(c, sh) == 0 for c in PColor for sh in PShape)
    assert board.check_winner() is Winner.DRAW


@pytest.mark.unit
def test_draw_by_full_board_with_pieces_left() -> None:
    board = play(Board(6, 7, 4, 11, 11), grid_moves(FULL_BOARD_GRID))
    assert all(board.is_column_full(c) for c in range(7))
    assert board.piece_count(PColor.WHITE, o) == board.piece_count(PColor.RED, o) == 1
    assert board.check_winner() is Winner.DRAW


@pytest.mark.unit
def test_a_move_can_lose_for_the_mover() -> None:
    board = play(Board(), alternate([(0, s), (1, s), (2, s)], [(6, o)] * 3))
    assert board.turn is PColor.WHITE
    board.do_move(s, 3)
    assert board.check_winner() is Winner.RED


# ------------------------------------------------------------------- errors
@pytest.mark.unit
@pytest.mark.parametrize("col", [-1, 7, 100])
def test_column_out_of_range(col: int) -> None:
    with pytest.raises(InvalidMoveError, match=str(col)):
        Board().do_move(o, col)
    assert issubclass(InvalidMoveError, ValueError)


@pytest.mark.unit
@pytest.mark.parametrize("size, moves", [
    (DEFAULT, alternate([(0, o)] * 4, [(1, s)] * 3)),
    ((2, 3, 3, 10, 11), alternate([(0, o), (1, o), (2, o)], [(1, s), (2, s), (0, s)])),
    ((10, 10, 7, 24, 25), grid_moves(NO_PIECES_GRID)),
])
def test_move_after_game_over(size: Settings, moves: Moves) -> None:
    board = play(Board(*size), moves)
    assert board.check_winner() is not Winner.NONE
    with pytest.raises(InvalidMoveError, match="over"):
        board.do_move(s, 2)


@pytest.mark.unit
def test_no_piece_of_that_shape() -> None:
    board = play(Board(6, 7, 4, 1, 5), [(0, o), (1, o)])
    with pytest.raises(InvalidMoveError, match="round"):
        board.do_move(o, 2)
    with pytest.raises(InvalidMoveError):
        Board(6, 7, 4, 0, 5).do_move(o, 0)
    assert board.move_count == 2 and board.turn is PColor.WHITE


@pytest.mark.unit
@pytest.mark.parametrize("shape", [2, -1, None, "round"])
def test_not_a_shape_leaves_the_board_unchanged(shape: object) -> None:
    board = play(Board(), [(0, o)])
    before = snapshot(board)
    with pytest.raises(InvalidMoveError, match="not a shape"):
        board.do_move(shape, 1)  # type: ignore[arg-type]
    assert snapshot(board) == before


@pytest.mark.unit
def test_full_column_is_rejected_and_board_unchanged() -> None:
    board = play(Board(), [(0, o), (0, s), (0, s), (0, o), (0, o), (0, s)])
    before = snapshot(board)
    assert board.is_column_full(0)
    assert board.do_move(o, 0) == -1
    assert snapshot(board) == before


@pytest.mark.unit
def test_undo_on_empty_board() -> None:
    with pytest.raises(InvalidMoveError):
        Board().undo_move()
    board = play(Board(), [(3, o)])
    assert board.undo_move() == Move(0, 3, Piece(PColor.WHITE, o))
    with pytest.raises(ValueError):
        board.undo_move()


@pytest.mark.unit
@pytest.mark.parametrize("pos", [(-1, 0), (0, -1), (6, 0), (0, 7), (6, 7)])
def test_index_off_the_board(pos: tuple[int, int]) -> None:
    with pytest.raises(IndexError):
        Board()[pos]


@pytest.mark.unit
@pytest.mark.parametrize("col", [-1, 7])
def test_is_column_full_off_the_board(col: int) -> None:
    with pytest.raises(IndexError):
        Board().is_column_full(col)


@pytest.mark.unit
@pytest.mark.parametrize("kwargs", [
    dict(rows=3, cols=3, win_sequence=4),
    dict(rows=0), dict(cols=0), dict(win_sequence=0), dict(rows=-6), dict(cols=-1),
    dict(win_sequence=-4), dict(round_pieces=-1), dict(square_pieces=-1),
    dict(rows=6.0), dict(cols="7"), dict(win_sequence=None), dict(round_pieces=1.5),
    dict(rows=True), dict(cols=True, win_sequence=1), dict(square_pieces=False),
    dict(round_pieces=0, square_pieces=0),
])
def test_construction_errors(kwargs: dict[str, object]) -> None:
    with pytest.raises(BoardConfigError) as info:
        Board(**kwargs)  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError) and str(info.value)


@pytest.mark.unit
@pytest.mark.parametrize("size", [(1, 1, 1, 1, 0), (1, 9, 9, 0, 5), (9, 1, 9, 5, 0),
                                  (3, 7, 7, 2, 2)])
def test_edge_sizes_are_valid(size: Settings) -> None:
    assert Board(*size).check_winner() is Winner.NONE


# ------------------------------------------------------- undo, copy, pickle
def snapshot(board: Board) -> tuple[object, ...]:
    """Everything observable about a board."""
    cells = tuple(board[r, c] for r in range(board.rows) for c in range(board.cols))
    counts = tuple(board.piece_count(c, sh) for c in PColor for sh in PShape)
    full = tuple(board.is_column_full(c) for c in range(board.cols))
    return (cells, counts, full, board.turn, board.move_count, winner_with_solution(board),
            board.history, board.last_move, board.settings)


SIDES = (6, 7, 5, 8, 9, 4, 3, 2, 1)


@st.composite
def sizes(draw: st.DrawFn) -> Settings:
    """Valid settings; realistic sizes come first, so they are drawn most."""
    n = draw(st.sampled_from((4, 3, 5, 2, 6, 1)))
    rows = draw(st.sampled_from(SIDES))
    cols = draw(st.sampled_from([c for c in SIDES if c >= n or rows >= n]))
    enough = (rows * cols + 1) // 2
    pieces = st.one_of(st.just(enough), st.integers(0, enough), st.just(enough // 2))
    round_, square = draw(pieces), draw(pieces)
    return rows, cols, n, round_ or int(square == 0), square


def random_moves(board: Board, rng: random.Random, limit: int = 100) -> Iterator[Board]:
    """Play random legal moves until the game ends, yielding after each one."""
    while board.check_winner() is Winner.NONE and limit > 0:
        free = [c for c in range(board.cols) if not board.is_column_full(c)]
        shapes = [sh for sh in PShape if board.piece_count(board.turn, sh)]
        assert board.do_move(rng.choice(shapes), rng.choice(free)) >= 0
        limit -= 1
        yield board


FAST = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(sizes(), st.randoms(use_true_random=False))
def test_undo_restores_everything(size: Settings, rng: random.Random) -> None:
    board = Board(*size)
    before = [snapshot(board)]
    for _ in random_moves(board, rng):
        before.append(snapshot(board))
    for expected in reversed(before[:-1]):
        board.undo_move()
        assert snapshot(board) == expected
    assert board == Board(*size)


MUTATIONS: list[Callable[[Board], object]] = [
    lambda b: b.undo_move(),
    lambda b: b.do_move(PShape.SQUARE, 0),
    lambda b: [b.undo_move() for _ in range(b.move_count)],
]


@FAST
@given(sizes(), st.randoms(use_true_random=False), st.sampled_from(range(len(MUTATIONS))),
       st.sampled_from([Board.copy, copy.copy, copy.deepcopy]))
def test_copies_are_independent(size: Settings, rng: random.Random, mutation: int,
                                how: Callable[[Board], Board]) -> None:
    board = Board(*size)
    for _ in random_moves(board, rng, limit=rng.randrange(1, 30)):
        pass
    clone = how(board)
    assert snapshot(clone) == snapshot(board) and clone == board
    before = snapshot(board)
    try:
        MUTATIONS[mutation](clone)
    except ValueError:
        pass
    assert snapshot(board) == before
    for _ in random_moves(clone, rng):
        pass
    assert snapshot(board) == before
    other = board.copy()
    for _ in random_moves(board, rng):
        pass
    assert snapshot(other) == before


@FAST
@given(sizes(), st.randoms(use_true_random=False))
def test_pickle_round_trip(size: Settings, rng: random.Random) -> None:
    board = Board(*size)
    for _ in random_moves(board, rng, limit=rng.randrange(0, 40)):
        pass
    clone = pickle.loads(pickle.dumps(board))
    assert snapshot(clone) == snapshot(board)
    twin_rng = copy.deepcopy(rng)
    played = [snapshot(b) for b in random_moves(board, rng)]
    assert [snapshot(b) for b in random_moves(clone, twin_rng)] == played


# --------------------------------------------------------- reference model
def reference_corridors(rows: int, cols: int, n: int) -> list[list[tuple[int, int]]]:
    """The reference order, written out from RULES.md independently of board.py."""
    def ray(r: int, c: int, dr: int, dc: int) -> list[tuple[int, int]]:
        line = []
        while 0 <= r < rows and 0 <= c < cols:
            line.append((r, c))
            r, c = r + dr, c + dc
        return line

    lines = []
    if cols >= n:
        lines += [ray(r, 0, 0, 1) for r in range(rows)]
    if rows >= n:
        lines += [ray(0, c, 1, 0) for c in range(cols)]
    up_right = [(r, 0) for r in reversed(range(rows))] + [(0, c) for c in range(1, cols)]
    up_left = ([(r, cols - 1) for r in reversed(range(rows))]
               + [(0, c) for c in reversed(range(cols - 1))])
    lines += [ray(r, c, 1, 1) for r, c in up_right]
    lines += [ray(r, c, 1, -1) for r, c in up_left]
    diagonals = lines[-(len(up_right) + len(up_left)):]
    return lines[:len(lines) - len(diagonals)] + [d for d in diagonals if len(d) >= n]


_corridors = functools.cache(reference_corridors)
"""reference_corridors of each board size, built once (reference_winner runs
after every move of every random game)."""

PREDICATES: list[tuple[Callable[[Piece], bool], Winner]] = [
    (lambda p: p.shape is PShape.ROUND, Winner.WHITE),
    (lambda p: p.shape is PShape.SQUARE, Winner.RED),
    (lambda p: p.color is PColor.WHITE, Winner.WHITE),
    (lambda p: p.color is PColor.RED, Winner.RED),
]


def reference_winner(board: Board) -> tuple[Winner, list[tuple[int, int]]]:
    n = board.win_sequence
    corridors = _corridors(board.rows, board.cols, n)
    for predicate, winner in PREDICATES:
        for corridor in corridors:
            run: list[tuple[int, int]] = []
            for pos in corridor:
                piece = board[pos]
                run = run + [pos] if piece is not None and predicate(piece) else []
                if len(run) == n:
                    return winner, run
    pieces_left = sum(board.piece_count(c, sh) for c in PColor for sh in PShape)
    if board.move_count == board.rows * board.cols or pieces_left == 0:
        return Winner.DRAW, []
    return Winner.NONE, []


@pytest.mark.unit
def test_corridors_of_a_small_board() -> None:
    assert Board(2, 3, 2, 3, 3).win_corridors == (
        ((0, 0), (0, 1), (0, 2)), ((1, 0), (1, 1), (1, 2)),
        ((0, 0), (1, 0)), ((0, 1), (1, 1)), ((0, 2), (1, 2)),
        ((0, 0), (1, 1)), ((0, 1), (1, 2)),
        ((0, 2), (1, 1)), ((0, 1), (1, 0)))


@pytest.mark.unit
@pytest.mark.parametrize("rows", range(1, 10))
def test_corridors_in_reference_order(rows: int) -> None:
    for cols in range(1, 10):
        for n in range(1, max(rows, cols) + 1):
            corridors = Board(rows, cols, n, 1, 1).win_corridors
            assert [list(map(tuple, c)) for c in corridors] == reference_corridors(rows, cols, n)
            assert all(isinstance(p, Pos) for c in corridors for p in c)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sizes(), st.randoms(use_true_random=False))
def test_check_winner_matches_reference(size: Settings, rng: random.Random) -> None:
    board = Board(*size)
    assert winner_with_solution(board) == reference_winner(board)
    for _ in random_moves(board, rng):
        assert winner_with_solution(board) == reference_winner(board)
    assert board.check_winner() is not Winner.NONE


@pytest.mark.unit
def test_turn_is_read_only_and_column_height_checks_range() -> None:
    b = Board()
    with pytest.raises(AttributeError):
        b.turn = PColor.RED  # type: ignore[misc]
    with pytest.raises(IndexError):
        b.column_height(-1)
    with pytest.raises(IndexError):
        b.column_height(b.cols)
    b.do_move(PShape.ROUND, 3)
    assert b.column_height(3) == 1 and b.turn is PColor.RED
