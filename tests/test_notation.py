"""The compact move notation, Board.legal_moves() and str(board)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from csl_game import Board, FutureMove, InvalidMoveError, PColor, PShape, Winner
from csl_game.errors import NotationError
from csl_game.model.board import LEGEND, MoveProblem
from csl_game.model.notation import (
    format_history,
    format_move,
    format_moves,
    parse_move,
    parse_moves,
    play_moves,
)

R, S = PShape.ROUND, PShape.SQUARE


# ------------------------------------------------------------------ one move
@pytest.mark.unit
@pytest.mark.parametrize(("token", "move"), [
    ("0r", (0, R)), ("3s", (3, S)), ("12r", (12, R)), ("36s", (36, S)), ("007r", (7, R)),
])
def test_parse_move(token: str, move: tuple[int, PShape]) -> None:
    assert parse_move(token) == move
    assert parse_move(token)[1] is move[1]


@pytest.mark.unit
@pytest.mark.parametrize("token", [
    "", "r", "3", "3R", "3S", "3x", "-1r", "+3r", "3 r", "r3", "3rs", "3.0r", "3r,", "٣r",
    "three r",
])
def test_bad_tokens_are_named_in_the_error(token: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_move(token)
    assert repr(token) in str(info.value)
    assert info.value.token == token and isinstance(info.value, ValueError)


@pytest.mark.unit
@pytest.mark.parametrize(("move", "token"), [
    ((0, R), "0r"), ((3, S), "3s"), ((12, 1), "12s"), ((5, 0), "5r"),
    (FutureMove(4, S), "4s"),
])
def test_format_move(move: tuple[int, PShape], token: str) -> None:
    assert format_move(*move) == token


@pytest.mark.unit
@pytest.mark.parametrize(("col", "shape"), [(-1, R), (1.5, R), (True, R), ("3", R),
                                           (3, 2), (3, True), (3, "r"), (3, -1)])
def test_format_move_refuses_what_is_no_move(col: object, shape: object) -> None:
    with pytest.raises(NotationError, match="cannot write"):
        format_move(col, shape)  # type: ignore[arg-type]


# ----------------------------------------------------------------- many moves
@pytest.mark.unit
def test_parse_moves_splits_on_any_whitespace() -> None:
    assert parse_moves(" 3r  2s\n4r\t0s ") == [(3, R), (2, S), (4, R), (0, S)]
    assert parse_moves("") == [] and parse_moves("   ") == []


@pytest.mark.unit
@pytest.mark.parametrize(("text", "index", "token"), [
    ("3r 2x 4r", 2, "2x"), ("3r 2s 4", 3, "4"), ("R 2s", 1, "R"), ("3r, 2s", 1, "3r,"),
])
def test_parse_moves_names_the_bad_token_and_its_place(text: str, index: int,
                                                       token: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_moves(text)
    assert (info.value.index, info.value.token) == (index, token)
    assert str(info.value).startswith(f"move {index} {token!r} is not a move")


@pytest.mark.unit
def test_format_moves_and_history() -> None:
    board = play_moves(Board(), "3r 3s 2r 4s")
    assert format_history(board.history) == "3r 3s 2r 4s"
    assert format_moves([(3, R), FutureMove(3, S)]) == "3r 3s"
    assert format_moves([]) == ""


# -------------------------------------------------------------- playing text
@pytest.mark.unit
@pytest.mark.parametrize(("settings_", "text", "index", "problem", "words"), [
    ((6, 7, 4, 10, 11), "3r 9s", 2, MoveProblem.NO_SUCH_COLUMN, "column 9 does not exist"),
    ((2, 3, 3, 10, 11), "0r 0s 0r", 3, MoveProblem.COLUMN_FULL, "column 0 is full"),
    ((6, 7, 4, 1, 5), "0r 1r 0r", 3, MoveProblem.NO_PIECES_LEFT, "no round pieces left"),
    ((6, 7, 4, 10, 11), "0r 6s 1r 6s 2r 6s 3r 5s", 8, MoveProblem.GAME_OVER, "game is over"),
])
def test_play_moves_names_the_move_that_cannot_be_played(
        settings_: tuple[int, int, int, int, int], text: str, index: int,
        problem: MoveProblem, words: str) -> None:
    board = Board(*settings_)
    with pytest.raises(InvalidMoveError) as info:
        play_moves(board, text)
    token = text.split()[index - 1]
    assert str(info.value).startswith(f"move {index} '{token}' cannot be played")
    assert words in str(info.value) and info.value.problem is problem
    assert board.move_count == index - 1


@pytest.mark.unit
def test_play_moves_plays_nothing_when_a_token_is_bad() -> None:
    board = Board()
    with pytest.raises(NotationError):
        play_moves(board, "3r 3s oops")
    assert board.move_count == 0


@st.composite
def games(draw: st.DrawFn) -> Board:
    """A board after random legal moves, of a random size."""
    rows, cols = draw(st.integers(1, 8)), draw(st.integers(1, 12))
    n = draw(st.integers(1, max(rows, cols)))
    pieces = draw(st.integers(1, rows * cols))
    board = Board(rows, cols, n, pieces, draw(st.integers(0, rows * cols)))
    rng = random.Random(draw(st.integers(0, 2**32)))
    for _ in range(draw(st.integers(0, rows * cols))):
        moves = board.legal_moves()
        if not moves:
            break
        col, shape = rng.choice(moves)
        board.do_move(shape, col)
    return board


SOME = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SOME
@given(games())
def test_notation_round_trips_a_game(board: Board) -> None:
    text = format_history(board.history)
    assert format_moves(parse_moves(text)) == text
    again = play_moves(Board(*board.settings), text)
    assert again == board and str(again) == str(board)


# ---------------------------------------------------------------- legal moves
@SOME
@given(games())
def test_legal_moves_are_exactly_the_moves_without_a_problem(board: Board) -> None:
    expected = [(col, shape) for col in range(board.cols) for shape in PShape
                if board.move_problem(shape, col) is None]
    assert board.legal_moves() == expected
    assert all(type(s) is PShape for _, s in board.legal_moves())
    if board.check_winner() is not Winner.NONE:
        assert board.legal_moves() == []


@pytest.mark.unit
def test_legal_moves_of_a_position() -> None:
    board = play_moves(Board(rows=2, cols=3, win_sequence=3, round_pieces=1,
                             square_pieces=5), "0r 0s")
    assert board.legal_moves() == [(1, S), (2, S)]  # column 0 full, White's round gone
    assert FutureMove(1, S) in board.legal_moves()
    assert FutureMove(1, R) not in board.legal_moves()


# ----------------------------------------------------------------- str(board)
@pytest.mark.unit
def test_str_is_the_reference_console_board_with_a_legend() -> None:
    board = play_moves(Board(), "3r 3s 2r 4s 3r")
    assert str(board).splitlines() == [
        ".......",
        ".......",
        ".......",
        "...w...",
        "...R...",
        "..wwR..",
        LEGEND,
    ]


@pytest.mark.unit
def test_str_shows_every_kind_of_piece_top_row_first() -> None:
    board = play_moves(Board(rows=3, cols=3, win_sequence=3), "0r 0s 1s")
    assert str(board).splitlines()[:3] == ["...", "R..", "wW."]
    board.do_move(R, 1)
    assert str(board).splitlines()[:3] == ["...", "Rr.", "wW."]
    assert board.turn is PColor.WHITE


@pytest.mark.unit
def test_str_of_an_empty_board() -> None:
    assert str(Board(rows=3, cols=4, win_sequence=3)) == "\n".join(["...."] * 3 + [LEGEND])
