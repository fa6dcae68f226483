"""The judge: an outcome and a board in, a legal move or a forfeit out."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from csl_game import Board, FutureMove, InvalidMoveError, PShape, Winner
from csl_game.engine import Forfeit, ForfeitReason, ThinkOutcome, explain, judge, move_text
from csl_game.engine.runners.answer import MoveAnswer, Opaque, OtherAnswer, Plain
from csl_game.model.board import MoveProblem

R = ForfeitReason


def tiny() -> Board:
    """One row, two columns, one piece of each shape per player."""
    return Board(rows=1, cols=2, win_sequence=2, round_pieces=1, square_pieces=1)


def verdict(column: Plain, shape: Plain, board: Board | None = None) -> FutureMove | Forfeit:
    return judge(ThinkOutcome(MoveAnswer(column, shape), 0.1), board or tiny())


@pytest.mark.unit
@pytest.mark.parametrize("column, shape, reason", [
    (-1, PShape.ROUND, R.NO_MOVE),
    (-1, 7, R.NO_MOVE),  # NO_MOVE whatever its shape
    (2, PShape.ROUND, R.INVALID_COLUMN),
    (-2, PShape.ROUND, R.INVALID_COLUMN),
    (-1.0, PShape.ROUND, R.INVALID_COLUMN),
    (0, 7, R.NO_PIECES),
    ("0", 0, R.INVALID_COLUMN),
    (1.0, 0, R.INVALID_COLUMN),
    (True, 0, R.INVALID_COLUMN),
    (None, 0, R.INVALID_COLUMN),
    (Opaque("a list"), 0, R.INVALID_COLUMN),
    (0, None, R.NO_PIECES),
    (0, True, R.NO_PIECES),
    (0, 1.0, R.NO_PIECES),
    (0, Opaque("a list"), R.NO_PIECES),
])
def test_reasons_of_bad_answers(column: Plain, shape: Plain, reason: ForfeitReason) -> None:
    result = verdict(column, shape)
    assert isinstance(result, Forfeit) and result.reason is reason


@pytest.mark.unit
def test_full_column() -> None:
    board = tiny()
    board.do_move(PShape.ROUND, 0)
    full = verdict(0, PShape.SQUARE, board)
    assert full == Forfeit(R.FULL_COLUMN, "it played square at column 0: the column is full")


@pytest.mark.unit
def test_no_pieces_left_names_the_player() -> None:
    board = Board(rows=6, cols=7, win_sequence=4, round_pieces=0, square_pieces=21)
    result = verdict(3, PShape.ROUND, board)
    assert result == Forfeit(R.NO_PIECES,
                             "it played round at column 3: White has no pieces of that "
                             "shape left")


@pytest.mark.unit
def test_a_legal_answer_becomes_a_future_move() -> None:
    result = verdict(1, 1)
    assert result == FutureMove(1, PShape.SQUARE)
    assert isinstance(result, FutureMove) and type(result.shape) is PShape


@pytest.mark.unit
def test_failures_the_runner_saw_pass_unchanged() -> None:
    failure = Forfeit(R.TIMEOUT, "time limit 500 ms")
    assert judge(ThinkOutcome(failure, 0.6), tiny()) is failure


@pytest.mark.unit
def test_something_other_than_a_future_move() -> None:
    result = judge(ThinkOutcome(OtherAnswer("None"), 0.0), tiny())
    assert result == Forfeit(R.EXCEPTION, "think() returned None, not a FutureMove")


@pytest.mark.unit
def test_a_finished_game_cannot_be_judged() -> None:
    board = Board(rows=1, cols=2, win_sequence=1, round_pieces=1, square_pieces=1)
    board.do_move(PShape.ROUND, 0)
    with pytest.raises(InvalidMoveError, match="game is over") as caught:
        verdict(1, PShape.SQUARE, board)
    assert caught.value.problem is MoveProblem.GAME_OVER


@pytest.mark.unit
@pytest.mark.parametrize("column, shape, text", [
    (3, PShape.ROUND, "round at column 3"),
    (3, 1, "square at column 3"),
    (0, 7, "shape 7 at column 0"),
    (0, True, "shape True at column 0"),
    ("1", 0, "round at column '1'"),
    (10 ** 60, 0, "round at column a 61-digit int"),
    (Opaque("a list"), 0, "round at column a list"),
])
def test_move_text(column: object, shape: object, text: str) -> None:
    assert move_text(column, shape) == text


@pytest.mark.unit
def test_explain_names_the_limits() -> None:
    board = tiny()
    assert explain(MoveProblem.NO_SUCH_COLUMN, board) == \
        "the column does not exist (columns are whole numbers from 0 to 1)"
    assert "0 for round and 1 for square" in explain(MoveProblem.NO_SUCH_SHAPE, board)
    assert explain(MoveProblem.COLUMN_FULL, board) == "the column is full"


PLAIN = st.one_of(st.integers(-3, 9), st.integers(), st.floats(allow_nan=False),
                  st.booleans(), st.none(), st.text(max_size=3))


@given(moves=st.lists(st.tuples(st.integers(0, 4), st.sampled_from(list(PShape))),
                      max_size=12),
       column=PLAIN, shape=PLAIN)
def test_judge_agrees_with_the_model(moves: list[tuple[int, PShape]], column: Plain,
                                     shape: Plain) -> None:
    board = Board(rows=3, cols=5, win_sequence=3, round_pieces=4, square_pieces=4)
    for col, piece_shape in moves:
        if board.check_winner() is not Winner.NONE:
            break
        if board.move_problem(piece_shape, col) is None:
            board.do_move(piece_shape, col)
    if board.check_winner() is not Winner.NONE:
        return
    result = verdict(column, shape, board)
    problem = board.move_problem(shape, column)
    if isinstance(result, FutureMove):
        assert problem is None
        assert board.do_move(result.shape, result.column) >= 0
    elif result.reason is R.NO_MOVE:
        assert column == -1 and type(column) is int
    else:
        assert problem is not None and result.detail.startswith("it played ")
        assert result.detail.endswith(explain(problem, board))
