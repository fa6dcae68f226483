"""A hint for a human player: the strongest built-in thinker's move, asked for
under a short time limit.

The thinker runs in the runner the caller gives (a worker process in the
window, so a search never slows the frame loop); `Hint.poll()` never blocks.
What it answers is judged like any AI move, so a hint is always legal.
"""

from __future__ import annotations

from dataclasses import replace

from csl_game.engine import Forfeit, RunnerFactory, ThinkerRunner, ThinkJob, judge
from csl_game.model.board import Board
from csl_game.services.presets import STRONGEST_THINKER
from csl_game.thinker.api import FutureMove, MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["Hint", "HINT_TIME_MS"]

HINT_TIME_MS = 1000
"""How long the hint's thinker may search."""


class Hint:
    """One hint being thought about; poll it every frame, close it when done with it."""

    def __init__(self, board: Board, config: MatchConfig, runner_factory: RunnerFactory,
                 time_limit_ms: int = HINT_TIME_MS) -> None:
        self.board = board.copy()
        """The position the hint is for."""
        self.move: FutureMove | None = None
        """The hinted move, once known."""
        self.problem = ""
        """Why no hint came, if none did."""
        limited = replace(config, time_limit_ms=time_limit_ms, min_move_time_ms=0)
        self._runner: ThinkerRunner | None = runner_factory(
            ThinkerPrototype(STRONGEST_THINKER, "", limited), lambda _text: None)
        self._job: ThinkJob | None = self._runner.start(self.board)

    @property
    def done(self) -> bool:
        """Whether the hint is known (or failed)."""
        return self._job is None

    def poll(self) -> bool:
        """Take the thinker's answer if it is there; returns `done`."""
        if self._job is None:
            return True
        outcome = self._job.poll()
        if outcome is None:
            return False
        self._job = None
        verdict = judge(outcome, self.board)
        if isinstance(verdict, Forfeit):
            self.problem = f"no hint this time: the AI {verdict.reason}"
        else:
            self.move = verdict
        self.close()
        return True

    def close(self) -> None:
        """Stop thinking (if it still does) and release the runner."""
        if self._job is not None:
            self._job.cancel()
            self._job = None
        if self._runner is not None:
            self._runner.close()
            self._runner = None
