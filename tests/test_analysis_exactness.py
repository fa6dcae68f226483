"""Exactness on 6x7 endgames (issue 19): every result the analysis service
proves, with its plies, equals an independent exact solver's.

The solver (tests/solvers.DistanceSolver: alpha-beta with a transposition dict,
no code shared with the analyst) is first checked against the plain memoized
minimax tests/solvers.solve. benchmarks/analysis_exactness.py runs the same
check on many positions of 14 empty cells."""

from __future__ import annotations

import random

import pytest

from csl_game import Board, MatchConfig, PShape, Winner
from csl_game.engine import ThreadRunner
from csl_game.model.notation import parse_move, play_moves
from csl_game.services.analysis import analyse
from solvers import WINS, DistanceSolver, solve

ENDGAMES = [  # from benchmarks/analysis_exactness.py --empty 10 --seed 3: a draw, a win in 6
    "2s 1s 3r 3s 4s 5s 3r 3s 3r 3s 1r 4r 4r 5s 2s 2s 2r 5s 5r 4s 4r 6r 6r 1s 1r 1s 2s "
    "5r 0s 1r 2s 0r",
    "1s 1r 5s 6r 6s 6r 1r 1s 1r 5s 0r 5r 6s 5s 5r 1s 3r 2s 3r 3s 2r 0s 3r 2s 2r 3s 3s "
    "2s 0r 0s 5s 2r",
]


def _minimax_values(board: Board) -> dict[int, tuple[int, int]]:
    """Every move's (outcome for its player, plies with it) by tests/solvers.solve."""
    memo: dict = {}  # type: ignore[type-arg]
    out = {}
    for col, shape in board.legal_moves():
        me = WINS[int(board.turn)]
        board.do_move(shape, col)
        winner = board.check_winner()
        if winner is Winner.NONE:
            outcome, plies = solve(board, memo)
            out[col << 1 | int(shape)] = (-outcome, plies + 1)
        else:
            out[col << 1 | int(shape)] = (0 if winner is Winner.DRAW else
                                          1 if winner is me else -1, 1)
        board.undo_move()
    return out


@pytest.mark.parametrize("seed", range(6))
def test_the_distance_solver_agrees_with_plain_minimax(seed: int) -> None:
    config = MatchConfig(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4)
    rng = random.Random(seed)
    board = config.new_board()
    for _ in range(rng.randrange(4, 8)):
        col, shape = rng.choice(board.legal_moves())
        board.do_move(shape, col)
        if board.check_winner() is not Winner.NONE:
            board.undo_move()
            break
    assert DistanceSolver().move_values(board.fast_board()) == _minimax_values(board)


@pytest.mark.unit
@pytest.mark.parametrize("moves", ENDGAMES, ids=["draw", "win"])
def test_every_proven_result_on_a_6x7_endgame_is_exact(moves: str) -> None:
    config = MatchConfig()
    board = play_moves(config.new_board(), moves)
    assert board.rows * board.cols - board.move_count == 10
    truth = _minimax_values(board.copy())
    assert DistanceSolver().move_values(board.fast_board()) == truth
    found = analyse(board, config, ThreadRunner, 5000)
    assert found is not None
    named = {1: board.turn.name.lower(), -1: board.turn.other.name.lower(), 0: "draw"}
    for m in found.moves:
        assert m.result is not None, "ten empty cells are solved in seconds"
        col, shape = parse_move(m.move)
        outcome, plies = truth[col << 1 | int(shape)]
        assert (m.result, m.plies) == (named[outcome], plies), m
    assert len(found.line) == min(found.best.plies or 0, 8)
    for token in found.line:
        col, shape = parse_move(token)
        board.do_move(PShape(shape), col)
    if (found.best.plies or 0) <= 8:
        assert board.check_winner().name.lower() == found.best.result
