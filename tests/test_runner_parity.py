"""The same answer is judged the same on every runner: same reason, same words.

Each case is a thinker answering its first think() with one malformed move
(tests/misbehaving/malformed_thinkers.py). It plays Red against a human who
opens; the match runs once with the thread runner and once with the process
runner (one pooled worker serves every process case), and both must end
with the expected forfeit and detail, word for word.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pytest

from csl_game import MatchConfig, PShape, ThinkerPrototype
from csl_game.engine import ForfeitReason, RunnerFactory, ThreadRunner
from csl_game.engine.match import Human, Match, MatchResult, MatchState
from csl_game.engine.runners.process import ProcessRunner, WorkerPool

MISBEHAVING = (str(Path(__file__).parent / "misbehaving"),)
STANDARD = MatchConfig(time_limit_ms=5000)
ONE_ROW = MatchConfig(rows=1, cols=4, win_sequence=4, round_pieces=2, square_pieces=2,
                      time_limit_ms=5000)
NO_ROUND = MatchConfig(round_pieces=0, square_pieces=21, time_limit_ms=5000)
R = ForfeitReason
NO_COLUMN = "the column does not exist (columns are whole numbers from 0 to 6)"
NO_SHAPE = "the shape does not exist (shapes are 0 for round and 1 for square)"


@dataclass(frozen=True)
class Case:
    answer: str
    """The key of the thinker's malformed answer."""
    reason: ForfeitReason
    detail: str
    """The whole detail, or its beginning when it ends with '...'."""
    config: MatchConfig = STANDARD
    opening: tuple[int, PShape] = (0, PShape.ROUND)
    """The human's first move, before the thinker answers."""


CASES = [
    Case("float-col", R.INVALID_COLUMN, f"it played round at column 1.5: {NO_COLUMN}"),
    Case("float-whole-col", R.INVALID_COLUMN, f"it played round at column 2.0: {NO_COLUMN}"),
    Case("bool-col", R.INVALID_COLUMN, f"it played round at column True: {NO_COLUMN}"),
    Case("bool-shape", R.NO_PIECES, f"it played shape True at column 3: {NO_SHAPE}"),
    Case("str-col", R.INVALID_COLUMN, f"it played round at column '3': {NO_COLUMN}"),
    Case("none", R.EXCEPTION, "think() returned None, not a FutureMove"),
    Case("tuple", R.EXCEPTION, "think() returned (3, PShape.ROUND), not a FutureMove"),
    Case("weird", R.EXCEPTION, "think() returned a Weird, not a FutureMove"),
    Case("weird-col", R.INVALID_COLUMN, f"it played round at column a Weird: {NO_COLUMN}"),
    Case("huge-col", R.INVALID_COLUMN,
         f"it played round at column {10 ** 30}: {NO_COLUMN}"),
    Case("huger-col", R.INVALID_COLUMN,
         f"it played round at column a 5001-digit int: {NO_COLUMN}"),
    Case("negative-col", R.INVALID_COLUMN, f"it played round at column -3: {NO_COLUMN}"),
    Case("no-move", R.NO_MOVE, ""),
    Case("shape-2", R.NO_PIECES, f"it played shape 2 at column 3: {NO_SHAPE}"),
    Case("shape-minus-1", R.NO_PIECES, f"it played shape -1 at column 3: {NO_SHAPE}"),
    Case("shape-float", R.NO_PIECES, f"it played shape 1.0 at column 3: {NO_SHAPE}"),
    Case("shape-str", R.NO_PIECES, f"it played shape 'round' at column 3: {NO_SHAPE}"),
    Case("subclass", R.INVALID_COLUMN, f"it played round at column 99: {NO_COLUMN}"),
    Case("col-0-square", R.FULL_COLUMN, "it played square at column 0: the column is full",
         ONE_ROW),
    Case("col-1-round", R.NO_PIECES,
         "it played round at column 1: Red has no pieces of that shape left", NO_ROUND,
         (0, PShape.SQUARE)),
    Case("raise", R.EXCEPTION, "ValueError: malformed on purpose\nTraceback ..."),
    Case("unknown", R.SETUP, "thinker malformed_thinkers.MalformedThinker could not be set "
         "up with parameters 'unknown': ValueError: no malformed answer named 'unknown' "
         "(at ..."),  # ... the line of the thinker's file that raised it
]


@pytest.fixture(scope="module")
def pool() -> Iterator[WorkerPool]:
    workers = WorkerPool()
    yield workers
    workers.close()


def play(factory: RunnerFactory, answer: str, config: MatchConfig,
         opening: tuple[int, PShape]) -> Match:
    """Human (White) opens, the malformed thinker (Red) answers; the match is
    left when it is over or waits for the human again."""
    thinker = ThinkerPrototype("malformed", answer, config, MISBEHAVING)
    match = Match(config, Human(), thinker, factory)
    try:
        match.update()
        match.submit_move(*opening)
        while match.state is MatchState.THINKING:
            match.wait(0.05)
            match.update()
    finally:
        match.close()
    return match


def both_runners(pool: WorkerPool, answer: str, config: MatchConfig = STANDARD,
                 opening: tuple[int, PShape] = (0, PShape.ROUND)) -> tuple[Match, Match]:
    """The match played with the thread runner and with the process runner."""
    run = partial(play, answer=answer, config=config, opening=opening)
    return run(ThreadRunner), run(partial(ProcessRunner, pool=pool))


def forfeit_of(match: Match) -> tuple[ForfeitReason | None, str]:
    result: MatchResult | None = match.result
    assert result is not None, "the match did not end"
    return result.forfeit, result.detail


@pytest.mark.parametrize("case", CASES, ids=[c.answer for c in CASES])
def test_same_answer_same_forfeit_on_every_runner(pool: WorkerPool, case: Case) -> None:
    in_thread, in_worker = both_runners(pool, case.answer, case.config, case.opening)
    reason, detail = forfeit_of(in_thread)
    assert forfeit_of(in_worker) == (reason, detail)
    assert reason is case.reason
    if case.detail.endswith("..."):
        assert detail.startswith(case.detail[:-3]) and len(detail) > len(case.detail)
    else:
        assert detail == case.detail
    assert in_thread.board.history == in_worker.board.history
    assert in_thread.board.move_count == 1  # the human's opening only


def test_a_legal_answer_from_a_future_move_subclass_is_played_alike(pool: WorkerPool) -> None:
    in_thread, in_worker = both_runners(pool, "subclass-legal")
    for match in (in_thread, in_worker):
        assert match.result is None and match.state is MatchState.WAITING_HUMAN
        assert match.board.move_count == 2
    assert in_thread.board.history == in_worker.board.history
    last = in_worker.board.history[-1]
    assert (last.col, last.piece.shape) == (5, PShape.SQUARE)

