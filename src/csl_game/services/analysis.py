"""Analysis of a position: every legal move's value and the best line, by the
analyst (csl_game.thinkers._analyst) in a worker process.

An `AnalysisJob` never blocks: it starts the analyst on a copy of the board,
turns each report into an `Analysis` as it comes (`poll()`), and stops the
search at once on `close()`. Results the analyst proves (a forced win for
White or Red in k plies, a draw) are stated as such; the others carry the
negamax evaluation, as White's advantage.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from csl_game.engine.runners.base import RunnerFactory, ThinkerRunner, ThinkJob
from csl_game.model.board import Board, PColor, Winner
from csl_game.model.notation import format_move
from csl_game.thinker.api import AbstractThinker, MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["Analysis", "MoveValue", "AnalysisJob", "analyse", "LONG_MS"]

ANALYST_MODULE = "csl_game.thinkers._analyst"
LONG_MS = 3_600_000
"""The analyst's time when it is limited by depth, not by time."""
_PREFIX = "analysis "


@dataclass(frozen=True)
class MoveValue:
    """One legal move: its proven result ("white", "red", "draw") and plies to
    the end with best play, or else its score (White's advantage)."""

    move: str
    result: str | None
    plies: int | None
    score: float | None

    def text(self) -> str:
        if self.result == "draw":
            return "draw"
        if self.result is not None:
            return f"{self.result.title()} wins in {self.plies}"
        return f"{self.score:+.0f}"


@dataclass(frozen=True)
class Analysis:
    """What is known of a position after `depth` plies of search."""

    to_move: str
    depth: int
    moves: tuple[MoveValue, ...]
    """Every legal move, best first for the player to move."""
    line: tuple[str, ...]

    @property
    def best(self) -> MoveValue:
        return self.moves[0]

    def to_json(self) -> dict[str, Any]:
        best = self.best
        return {"to_move": self.to_move, "best": best.move, "line": list(self.line),
                "result": best.result, "plies": best.plies,
                "score": None if best.result is not None else best.score,
                "depth": self.depth,
                "moves": [{"move": m.move, "result": m.result, "plies": m.plies,
                           "score": None if m.result is not None else m.score}
                          for m in self.moves]}


def _analyst() -> type[AbstractThinker]:
    """The analyst's class (a private module of the built-in thinkers, which
    discovery does not list as a player)."""
    found: type[AbstractThinker] = importlib.import_module(ANALYST_MODULE).AnalystThinker
    return found


def _from_report(report: dict[str, Any], mover: PColor) -> Analysis:
    sign = 1 if mover is PColor.WHITE else -1
    colours = {"win": mover.name.lower(), "loss": mover.other.name.lower(), "draw": "draw"}
    moves = []
    for entry in report["moves"]:
        code = int(entry["move"])
        result = colours.get(entry["result"]) if entry["result"] else None
        moves.append(MoveValue(format_move(code >> 1, code & 1), result,
                               None if result is None else int(entry["plies"]),
                               None if result is not None else sign * float(entry["score"])))
    line = tuple(format_move(c >> 1, c & 1) for c in report["moves"][0]["line"])
    return Analysis(mover.name.lower(), int(report["depth"]), tuple(moves), line)


class AnalysisJob:
    """One position being analysed; poll it, close it when done with it."""

    def __init__(self, board: Board, config: MatchConfig, runner_factory: RunnerFactory,
                 time_ms: int | None = None, depth: int | None = None) -> None:
        self.board = board.copy()
        self.latest: Analysis | None = None
        """The deepest analysis reported so far."""
        self._reports: list[str] = []
        limited = replace(config, time_limit_ms=time_ms or LONG_MS, min_move_time_ms=0)
        prototype = ThinkerPrototype(_analyst(), str(depth or ""), limited)
        self._runner: ThinkerRunner | None = runner_factory(prototype, self._reports.append)
        self._job: ThinkJob | None = self._runner.start(self.board)
        self.done = False
        """The search ended: solved, at its depth, or out of time."""

    def poll(self) -> Analysis | None:
        """The latest analysis (None before the first depth is done)."""
        if self._job is not None and self._job.poll() is not None:
            self.done = True
            self._job = None
        mover = self.board.turn
        while self._reports:
            text = self._reports.pop(0)
            if text.startswith(_PREFIX):
                self.latest = _from_report(json.loads(text[len(_PREFIX):]), mover)
        return self.latest

    def close(self) -> None:
        """Stop the search now and end its worker."""
        if self._job is not None:
            self._job.cancel()
            self._job = None
        if self._runner is not None:
            self._runner.close()
            self._runner = None


def analyse(board: Board, config: MatchConfig, runner_factory: RunnerFactory,
            time_ms: int | None = None, depth: int | None = None) -> Analysis | None:
    """Analyse until solved, `depth` reached or `time_ms` spent; the last analysis."""
    import time

    job = AnalysisJob(board, config, runner_factory, time_ms, depth)
    try:
        while not job.done:
            job.poll()
            time.sleep(0.01)
        return job.poll()
    finally:
        job.close()


def position_problem(board: Board) -> str | None:
    """Why `board` cannot be analysed (the game is over), or None."""
    winner = board.check_winner()
    if winner is Winner.NONE:
        return None
    return "the game is over: a draw" if winner is Winner.DRAW else \
        f"the game is over: {winner.name.title()} has won"


def moves_text(moves: Sequence[str]) -> str:
    return " ".join(moves) if moves else "(none)"
