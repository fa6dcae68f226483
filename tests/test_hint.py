"""Hints: the strongest built-in thinker's move under a short time limit, off the caller's thread."""

from __future__ import annotations

import os
import threading
import time

import pytest

from csl_game import MatchConfig, PShape
from csl_game.engine import ThreadRunner
from csl_game.services.hint import Hint
from procs import CoreWaits, OwnTime

SMALL = MatchConfig(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4)


def wait(hint: Hint, seconds: float = 10.0) -> None:
    """Until the hint comes, at most `seconds` of the wall less the waits for a
    core of this process and its workers (a busy machine's)."""
    start, waits = time.perf_counter(), CoreWaits()
    while not hint.poll():
        assert time.perf_counter() - start - waits.seconds() < seconds, "no hint in time"
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
        from csl_game.forkserver import start_server
        from csl_game.sandbox import status
        factory = ProcessRunner
        start_server()  # as the window does when it opens (start_workers_soon), and
        status()  # the sandbox's check: a hint's worker then starts without waiting
    else:
        factory = ThreadRunner
    own = OwnTime(os.getpid(), threading.get_native_id())  # this thread's waits for a core aside
    hint = Hint(board, SMALL, factory, time_limit_ms=500)
    own.look()
    assert own.seconds() < 0.5, "asking for a hint does not wait for it"
    wait(hint)
    assert hint.move is not None and hint.move.column == 2 and hint.move.shape is PShape.ROUND
    assert hint.problem == "" and hint.done
    assert board.move_count == 4, "the caller's board is not touched"


@pytest.mark.unit
def test_a_closed_hint_stops_thinking() -> None:
    hint = Hint(MatchConfig().new_board(), MatchConfig(), ThreadRunner, time_limit_ms=5000)
    hint.close()
    assert hint.done and hint.move is None
