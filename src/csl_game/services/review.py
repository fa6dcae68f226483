"""Game review: every move of a game graded against the analysis of the
position before it, White's expected score along the game, and each
player's accuracy.

A `ReviewJob` analyses the positions of a game one after another (one
position at a time, in one worker, a fixed effort each) and never blocks: `poll()`
gives the review of the moves analysed so far. The position after a move
that ended the game needs no analysis: its value is its result.

Expected scores (White's, 0..1) come from proven results (1, 0, 1/2) or else
from the negamax score through a logistic whose scale `SCALE` was fitted on
self-play games (benchmarks/calibrate_eval.py). Grades follow lichess's
judgements (lila, modules/analyse/src/main/Advice.scala): a loss of winning
chances (-1..1) of 0.1, 0.2, 0.3 is an inaccuracy, a mistake, a blunder, which
is 0.05, 0.10, 0.15 of expected score (0..1). Accuracy follows
https://lichess.org/page/accuracy and lila's AccuracyPercent.scala.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from csl_game.engine import RunnerFactory
from csl_game.errors import InvalidMoveError
from csl_game.model.board import Board, PShape, Winner
from csl_game.model.notation import format_move
from csl_game.services.analysis import (
    SCALE,
    Analysis,
    AnalysisJob,
    Analyst,
    MoveValue,
    expected_score,
)
from csl_game.thinker.api import MatchConfig

__all__ = ["ReviewedMove", "Review", "ReviewJob", "expected_score", "grade",
           "move_accuracy", "SCALE", "THRESHOLDS", "GRADES", "DEFAULT_MS"]

THRESHOLDS = ((0.15, "blunder"), (0.10, "mistake"), (0.05, "inaccuracy"))
"""Loss of expected score (the mover's, 0..1) from which a move is graded so:
lichess's winning-chance thresholds 0.3, 0.2, 0.1 (on -1..1) halved."""
GRADES = ("best", "good", "inaccuracy", "mistake", "blunder")
DEFAULT_MS = 1000
"""Time to analyse each position of a game, in ms."""


def _for(color: str, white_score: float) -> float:
    return white_score if color == "white" else 1.0 - white_score


def grade(best: MoveValue, played: MoveValue, color: str) -> str:
    """The grade of playing `played` where `best` was best, for `color` ("white", "red").

    Exact where both are proven: the same result is "best"; a proven win or
    draw given away for a proven loss is a "blunder", a win for a draw a
    "mistake". Otherwise by the loss of the mover's expected score (THRESHOLDS);
    no loss at all is "best", a loss under the lowest threshold "good".
    """
    if played.move == best.move:
        return "best"
    if best.result is not None and played.result is not None:
        if played.result == best.result:
            return "best"
        if played.result not in ("draw", color):
            return "blunder"
        return "mistake"
    loss = _for(color, expected_score(best)) - _for(color, expected_score(played))
    for threshold, name in THRESHOLDS:
        if loss >= threshold:
            return name
    return "best" if loss <= 0 else "good"


def move_accuracy(before: float, after: float) -> float:
    """A move's accuracy (0..100) from the mover's expected score before and
    after it (0..1): lichess's formula on win percentages, with its bonus of 1
    for imperfect analysis (lila AccuracyPercent.fromWinPercents)."""
    drop = 100.0 * (before - after)
    if drop <= 0:
        return 100.0
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * drop) - 3.166924740191411
    return min(100.0, max(0.0, raw + 1))


@dataclass(frozen=True)
class ReviewedMove:
    """One move of the game, valued against the best there."""

    ply: int
    """0-based index of the move in the game."""
    color: str
    """"white" / "red": who played it."""
    played: MoveValue
    """The played move's value (from the analysis of the position before it)."""
    best: MoveValue
    """The best move's value there."""
    line: tuple[str, ...]
    """The best line from the position before the move."""
    grade: str
    """"best", "good", "inaccuracy", "mistake" or "blunder"."""
    before: float
    """White's expected score (0..1) before the move, with best play."""
    after: float
    """White's expected score (0..1) after the played move."""
    accuracy: float
    """0..100, this move's accuracy for its player."""


@dataclass(frozen=True)
class Review:
    """The moves of a game reviewed so far, in order from the first."""

    moves: tuple[ReviewedMove, ...]

    def graph(self) -> list[float]:
        """White's expected score at the start and after each move."""
        if not self.moves:
            return []
        return [self.moves[0].before, *(m.after for m in self.moves)]

    def accuracy(self, color: str) -> float | None:
        """`color`'s accuracy (0..100) over its moves reviewed, None without any.

        As lichess's game accuracy (lila AccuracyPercent.gameAccuracy): the mean
        of the harmonic mean of the move accuracies and of their mean weighted
        by the volatility of the expected score around each move (the standard
        deviation of a window of win percentages, held within 0.5..12).
        """
        weights = _volatility(self.graph())
        own = [(m.accuracy, w) for m, w in zip(self.moves, weights) if m.color == color]
        if not own:
            return None
        weighted = sum(a * w for a, w in own) / sum(w for _, w in own)
        harmonic = 0.0 if any(a <= 0 for a, _ in own) else \
            len(own) / sum(1 / a for a, _ in own)
        return (weighted + harmonic) / 2

    def to_json(self) -> dict[str, object]:
        return {"accuracy": {c: self.accuracy(c) for c in ("white", "red")},
                "graph": self.graph(),
                "moves": [{"ply": m.ply, "color": m.color, "move": m.played.move,
                           "grade": m.grade, "best": m.best.move, "line": list(m.line),
                           "played_value": m.played.text(), "best_value": m.best.text(),
                           "before": m.before, "after": m.after, "accuracy": m.accuracy}
                          for m in self.moves]}


def _volatility(graph: list[float]) -> list[float]:
    """One weight per move: as lila, windows of the win percentages (size n/10
    within 2..8, the first window repeated at the start), their standard
    deviation within 0.5..12."""
    moves = len(graph) - 1
    if moves < 1:
        return []
    size = min(max(moves // 10, 2), 8)
    percents = [100 * x for x in graph]
    windows = [percents[:size]] * (min(size, len(percents)) - 2)
    windows += [percents[i:i + size] for i in range(len(percents) - size + 1)]
    return [min(max(statistics.pstdev(w), 0.5), 12.0) for w in windows[:moves]]


def reviewed(ply: int, analysis: Analysis, move: str) -> ReviewedMove:
    """Move `move`, the `ply`-th of the game, reviewed with the analysis of the
    position before it."""
    played = next(m for m in analysis.moves if m.move == move)
    best, color = analysis.best, analysis.to_move
    before, after = expected_score(best), expected_score(played)
    return ReviewedMove(ply, color, played, best, analysis.line, grade(best, played, color),
                        before, after, move_accuracy(_for(color, before), _for(color, after)))


class ReviewJob:
    """A game being reviewed, position after position; poll it, close it when done.

    Raises:
        InvalidMoveError: a move cannot be played where it comes (it names
            the move), or comes after the game's end.
    """

    def __init__(self, config: MatchConfig, moves: Sequence[tuple[int, PShape]],
                 runner_factory: RunnerFactory, time_ms_per_move: int = DEFAULT_MS) -> None:
        self.config = config
        self.runner_factory = runner_factory
        self.time_ms = time_ms_per_move
        self.boards, self.tokens = _positions(config, moves)
        self.analyses: list[Analysis] = []
        """The analyses of the positions before each move, in order, so far."""
        self._analyst = Analyst(config, runner_factory, time_ms_per_move)
        """One worker for the positions in turn (a fallback job aside)."""
        self._job: Analyst | None = None
        self._review: Review | None = None
        self._start_next()

    @property
    def progress(self) -> tuple[int, int]:
        """(positions analysed, positions to analyse)."""
        return len(self.analyses), len(self.boards)

    @property
    def done(self) -> bool:
        return len(self.analyses) == len(self.boards)

    def poll(self) -> Review | None:
        """The review of the moves analysed so far (None before the first)."""
        job = self._job
        if job is not None:
            found = job.poll()
            if job.done:
                if job is not self._analyst:
                    job.close()
                self._job = None
                if found is None:  # no depth finished in the time: one ply, untimed
                    self._job = AnalysisJob(self.boards[len(self.analyses)], self.config,
                                            self.runner_factory, depth=1)
                else:
                    self._add(found)
                    self._start_next()
        return self._review

    def _add(self, analysis: Analysis) -> None:
        ply = len(self.analyses)
        self.analyses.append(analysis)
        done = self._review.moves if self._review is not None else ()
        self._review = Review((*done, reviewed(ply, analysis, self.tokens[ply])))

    def _start_next(self) -> None:
        if not self.done:
            self._analyst.show(self.boards[len(self.analyses)])
            self._job = self._analyst

    def close(self) -> None:
        """Stop the analysis now and end its worker."""
        if self._job is not None and self._job is not self._analyst:
            self._job.close()
        self._job = None
        self._analyst.close()


def _positions(config: MatchConfig, moves: Sequence[tuple[int, PShape]]
               ) -> tuple[list[Board], list[str]]:
    """The board before each move, and each move in notation."""
    board = config.new_board()
    boards, tokens = [], []
    for i, (col, shape) in enumerate(moves, 1):
        token = format_move(col, shape)
        if board.check_winner() is not Winner.NONE:
            raise InvalidMoveError(f"move {i} '{token}' comes after the end of the game")
        boards.append(board.copy())
        tokens.append(token)
        try:
            row = board.do_move(PShape(shape), col)
        except InvalidMoveError as e:
            raise InvalidMoveError(f"move {i} '{token}' cannot be played: {e}",
                                   e.problem) from None
        if row < 0:
            raise InvalidMoveError(f"move {i} '{token}' cannot be played: "
                                   f"column {col} is full")
    return boards, tokens
