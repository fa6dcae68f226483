"""Threat marks and line cells of the analysis service.

`threats()` is checked against a plain re-statement of the winner check
(every run of n cells along rows, columns and both diagonals, the four
predicates in the rules' order) applied to the grid with the piece put in
the cell, and, where the model can play it, against the model's own
do_move + check_winner."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from csl_game import Board, PColor, Piece, Pos, PShape, Winner
from csl_game.model.notation import play_moves
from csl_game.services.analysis import MoveValue, line_cells, score_share, threats

O, S = PShape.ROUND, PShape.SQUARE
_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


@functools.cache
def _lines(rows: int, cols: int, n: int) -> tuple[tuple[Pos, ...], ...]:
    """Every run of n cells inside the board, along rows, columns and both
    diagonals (each board size's runs are built once)."""
    lines = []
    for r in range(rows):
        for c in range(cols):
            for dr, dc in _DIRECTIONS:
                cells = tuple(Pos(r + i * dr, c + i * dc) for i in range(n))
                if all(0 <= p.row < rows and 0 <= p.col < cols for p in cells):
                    lines.append(cells)
    return tuple(lines)


def _winner(grid: dict[Pos, Piece], rows: int, cols: int, n: int) -> Winner:
    """The rules' check, written out: round, square, white, red runs in turn."""
    tests = ((lambda p: p.shape is O, Winner.WHITE), (lambda p: p.shape is S, Winner.RED),
             (lambda p: p.color is PColor.WHITE, Winner.WHITE),
             (lambda p: p.color is PColor.RED, Winner.RED))
    lines = _lines(rows, cols, n)
    for fits, winner in tests:
        for cells in lines:
            if all(p in grid and fits(grid[p]) for p in cells):
                return winner
    return Winner.NONE


def _random_board(data: st.DataObject) -> Board:
    rows = data.draw(st.integers(3, 6))
    cols = data.draw(st.integers(3, 7))
    n = data.draw(st.integers(3, max(3, min(4, max(rows, cols)))))
    pieces = rows * cols // 2 + 1
    board = Board(rows, cols, n, pieces // 2 + 1, pieces // 2 + 1)
    for _ in range(data.draw(st.integers(0, rows * cols - 1))):
        moves = [m for m in board.legal_moves()
                 if board.piece_count(board.turn, m[1]) > 0]
        col, shape = data.draw(st.sampled_from(moves))
        board.do_move(shape, col)
        if board.check_winner() is not Winner.NONE:
            board.undo_move()
            break
    return board


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_threats_are_the_cells_that_would_end_the_game(data: st.DataObject) -> None:
    board = _random_board(data)
    rows, cols, n = board.rows, board.cols, board.win_sequence
    grid = {Pos(r, c): p for r in range(rows) for c in range(cols)
            if (p := board[r, c]) is not None}
    expected = set()
    for r in range(rows):
        for c in range(cols):
            if Pos(r, c) in grid:
                continue
            for color in PColor:
                for shape in PShape:
                    piece = Piece(color, shape)
                    winner = _winner({**grid, Pos(r, c): piece}, rows, cols, n)
                    if winner is not Winner.NONE:
                        expected.add((Pos(r, c), piece, winner.color))
    found = threats(board)
    assert {(t.pos, t.piece, t.winner) for t in found} == expected
    for t in found:
        assert t.playable == (board.column_height(t.pos.col) == t.pos.row)
        if t.playable and t.piece.color is board.turn and board.piece_count(
                board.turn, t.piece.shape):
            board.do_move(t.piece.shape, t.pos.col)
            assert board.check_winner().color is t.winner
            board.undo_move()


@pytest.mark.unit
def test_a_white_square_completing_both_runs_gives_red_the_win() -> None:
    # White squares 0, 1, 2 on the bottom row (Red answers elsewhere):
    # a white square in column 3 completes four whites and four squares.
    board = play_moves(Board(6, 7, 4, 10, 11), "0s 6r 1s 6r 2s 5r")
    marks = {(t.piece, t.winner) for t in threats(board) if t.pos == Pos(0, 3)}
    assert (Piece(PColor.WHITE, S), PColor.RED) in marks  # shape beats colour
    assert (Piece(PColor.WHITE, O), PColor.WHITE) in marks  # a white round: colour run
    assert (Piece(PColor.RED, S), PColor.RED) in marks
    assert not any(p == Piece(PColor.RED, O) for p, _ in marks)


@pytest.mark.unit
def test_line_cells_land_where_the_moves_fall_and_stop_at_the_end() -> None:
    board = play_moves(Board(6, 7, 4, 10, 11), "3r 3s")
    cells = line_cells(board, ["3r", "4s", "bad", "0r"])
    assert cells == [(Pos(2, 3), Piece(PColor.WHITE, O)), (Pos(0, 4), Piece(PColor.RED, S))]
    won = play_moves(Board(6, 7, 4, 10, 11), "0r 0s 1r 1s 2r 2s")
    assert line_cells(won, ["3r", "4r"]) == [(Pos(0, 3), Piece(PColor.WHITE, O))]


@pytest.mark.unit
def test_the_bar_share_is_certain_for_proven_results_and_even_at_zero() -> None:
    assert score_share(MoveValue("3r", "white", 5, None)) == 1.0
    assert score_share(MoveValue("3r", "red", 4, None)) == 0.0
    assert score_share(MoveValue("3r", "draw", 9, None)) == 0.5
    assert score_share(MoveValue("3r", None, None, 0.0)) == 0.5
    assert 0.5 < score_share(MoveValue("3r", None, None, 120.0)) < 1.0
    assert score_share(MoveValue("3r", None, None, -120.0)) == pytest.approx(
        1 - score_share(MoveValue("3r", None, None, 120.0)))
