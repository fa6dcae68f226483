"""Hints: the strongest built-in thinker's move under a short time limit, off the caller's thread."""

from __future__ import annotations

import time

import pytest

from csl_game import MatchConfig, PShape
from csl_game.engine import ThreadRunner
from csl_game.services.hint import Hint

SMALL = MatchConfig(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4)


def wait(hint: Hint, seconds: float = 10.0) -> None:
    end = time.perf_counter() + seconds
    while not hint.poll():
        assert time.perf_counter() < end, "no hint in time"
        time.sleep(0.01)


@pytest.mark.timing
@pytest.mark.parametrize("runner", ["thread", "process"])
def test_a_hint_takes_the_win_in_one(runner: str) -> None:
    board = SMALL.new_board()
    for col, shape in ((0, PShape.ROUND), (3, PShape.SQUARE), (1, PShape.ROUND),
                       (3, PShape.SQUARE)):
        board.do_move(shape, col)
    if runner == "process":
        from csl_game.engine.runners.process import ProcessRunner
        factory = ProcessRunner
    else:
        factory = ThreadRunner
    started = time.perf_counter()
    hint = Hint(board, SMALL, factory, time_limit_ms=500)
    assert time.perf_counter() - started < 0.5, "asking for a hint does not wait for it"
    wait(hint)
    assert hint.move is not None and hint.move.column == 2 and hint.move.shape is PShape.ROUND
    assert hint.problem == "" and hint.done
    assert board.move_count == 4, "the caller's board is not touched"


@pytest.mark.unit
def test_a_closed_hint_stops_thinking() -> None:
    hint = Hint(MatchConfig().new_board(), MatchConfig(), ThreadRunner, time_limit_ms=5000)
    hint.close()
    assert hint.done and hint.move is None
