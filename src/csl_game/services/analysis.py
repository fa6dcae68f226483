"""Analysis of a position: every legal move's value and the best line, by the
analyst (csl_game.thinkers._analyst) in a worker process.

An `AnalysisJob` never blocks: it starts the analyst on a copy of the board,
turns each report into an `Analysis` as it comes (`poll()`), and stops the
search at once on `close()`. Results the analyst proves (a forced win for
White or Red in k plies, a draw) are stated as such (a win in the winner's
moves, `MoveValue.text`); the others carry the negamax evaluation, as
White's advantage.
"""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from csl_game.engine import RunnerFactory, ThinkerRunner, ThinkJob
from csl_game.model.board import Board, PColor, Piece, Pos, PShape, Winner
from csl_game.model.notation import format_history, format_move, parse_move
from csl_game.thinker.api import AbstractThinker, CancellationToken, MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["Analysis", "MoveValue", "AnalysisJob", "Analyst", "analyse", "LONG_MS", "Threat", "threats",
           "line_cells", "score_share", "expected_score", "SCALE", "moves_to_win", "adjudicate",
           "ADJUDICATE_MS"]

ANALYST_MODULE = "csl_game.thinkers._analyst"
LONG_MS = 3_600_000
"""The analyst's time when it is limited by depth, not by time."""
_PREFIX = "analysis "
FOUND_WIN = 900_000
"""An unproven score this large is a win the evaluating search found by its
shortcuts (not proven, so not stated in plies)."""


@dataclass(frozen=True)
class MoveValue:
    """One legal move: its proven result ("white", "red", "draw") and plies to
    the end with best play, or else its score (White's advantage)."""

    move: str
    result: str | None
    plies: int | None
    score: float | None

    def text(self, after: bool = False, expected: bool = False) -> str:
        """'White wins in 3', 'Draw', 'Red +85' (an advantage, in the search's
        units; with `expected`, 'Red +85 (65 % expected)': the score the side
        ahead can expect, `expected_score`), 'Even' (under 10), 'White winning'
        (a win found, not proven).

        A proven win counts the winner's moves, as chess counts a mate in 3:
        from the position the move is played in, this move included; with
        `after`, from the position it leaves ('White won': the move itself won).
        The window and the console count this one way everywhere.
        """
        if self.result == "draw":
            return "Draw"
        if self.result is not None:
            plies = (self.plies or 1) - (1 if after else 0)
            if plies <= 0:
                return f"{self.result.title()} won"
            return f"{self.result.title()} wins in {moves_to_win(plies)}"
        score = self.score or 0.0
        side = "White" if score > 0 else "Red"
        if abs(score) >= FOUND_WIN:
            return f"{side} winning"
        if abs(score) < 10:
            return "Even"
        if not expected:
            return f"{side} +{abs(score):.0f}"
        share = expected_score(self) if score > 0 else 1 - expected_score(self)
        return f"{side} +{abs(score):.0f} ({100 * share:.0f} % expected)"


def moves_to_win(plies: int) -> int:
    """The winner's moves among `plies` plies to the end (the last one the
    winner's): 1 ply or 2 is a win in 1, 3 or 4 a win in 2."""
    return (plies + 1) // 2


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


class Analyst:
    """One worker that analyses whichever position it is shown, for a window
    that follows a game: `show()` a position (the previous search stops at
    once, the worker stays), `poll()` every frame. Never blocks.

    Reports name the position they are about, so a late report of the
    previous one is never taken for the new one's.
    """

    def __init__(self, config: MatchConfig, runner_factory: RunnerFactory,
                 time_ms: int = LONG_MS, depth: int | None = None) -> None:
        """Each position is searched until solved, `time_ms` spent or, given
        `depth`, that many plies deep."""
        limited = replace(config, time_limit_ms=time_ms, min_move_time_ms=0)
        self._prototype = ThinkerPrototype(_analyst(), str(depth or ""), limited)
        self._factory = runner_factory
        self._runner: ThinkerRunner | None = None
        self._job: ThinkJob | None = None
        self._reports: list[str] = []
        self._key: str | None = None
        self.board: Board | None = None
        """The position being analysed (None: none)."""
        self.latest: Analysis | None = None
        """Its deepest analysis so far."""
        self.done = True
        """The search of `board` ended: solved or out of time (or none runs)."""

    def show(self, board: Board | None) -> None:
        """Analyse `board` from now on (None or a finished game: stop)."""
        if board is not None and position_problem(board) is not None:
            board = None
        key = None if board is None else format_history(board.history)
        if key == self._key:
            return
        self._key, self.latest = key, None
        self.board = None if board is None else board.copy()
        if self._job is not None:
            self._job.cancel()
            self._job = None
        self.done = board is None
        if self.board is None:
            return
        if self._runner is None:
            self._runner = self._factory(self._prototype, self._reports.append)
        self._job = self._runner.start(self.board)

    def poll(self) -> Analysis | None:
        """The latest analysis of the position shown (None before its first depth)."""
        outcome = self._job.poll() if self._job is not None else None
        if outcome is not None:
            self._job = None
            self.done = True
            if outcome.forfeit is not None and self._runner is not None:
                self._runner.close()  # out of time, or its worker died: a new one next time
                self._runner = None
        while self._reports:
            text = self._reports.pop(0)
            if not text.startswith(_PREFIX) or self.board is None:
                continue
            report = json.loads(text[len(_PREFIX):])
            if report.get("position") == self._key:
                self.latest = _from_report(report, self.board.turn)
        return self.latest

    @property
    def running(self) -> bool:
        return self._job is not None

    def close(self) -> None:
        """Stop the search and end the worker."""
        if self._job is not None:
            self._job.cancel()
            self._job = None
        if self._runner is not None:
            self._runner.close()
            self._runner = None
        self._key, self.board, self.done = None, None, True


class AnalysisJob(Analyst):
    """One position being analysed; poll it, close it when done with it."""

    def __init__(self, board: Board, config: MatchConfig, runner_factory: RunnerFactory,
                 time_ms: int | None = None, depth: int | None = None) -> None:
        super().__init__(config, runner_factory, time_ms or LONG_MS, depth)
        self.show(board)


def analyse(board: Board, config: MatchConfig, runner_factory: RunnerFactory,
            time_ms: int | None = None, depth: int | None = None,
            progress: Callable[[float, Analysis | None], None] | None = None
            ) -> Analysis | None:
    """Analyse until solved, `depth` reached or `time_ms` spent; the last analysis.
    `progress(seconds, latest)` is told the time spent and the deepest analysis
    so far, every 10 ms of waiting."""
    import time

    started = time.monotonic()
    job = AnalysisJob(board, config, runner_factory, time_ms, depth)
    try:
        while not job.done:
            latest = job.poll()
            if progress is not None:
                progress(time.monotonic() - started, latest)
            time.sleep(0.01)
        return job.poll()
    finally:
        job.close()


ADJUDICATE_MS = 10
"""CPU time the proof search of `adjudicate` may spend on a position."""


def adjudicate(board: Board, moves: Sequence[object] = ()) -> tuple[Winner, str] | None:
    """The result a game may be adjudicated with after its last move: a proven
    win (the loser resigns) or draw that the analyst's prover finds within
    ADJUDICATE_MS of this thread's CPU time, with why; None when unproven.

    The prover (csl_game.thinkers._analyst) is exact: a forced result within
    the plies it searched, or a draw when no line goes past the end of the
    game. It runs here, on the match's thread: it is the program's own code.
    The moves (an `Adjudicator`'s second argument) are not needed.
    """
    import time

    prove = importlib.import_module(ANALYST_MODULE).prove
    found = prove(board, CancellationToken(ADJUDICATE_MS / 1000, time.thread_time))
    if found is None:
        return None
    result, plies = found
    if result == "draw":
        return Winner.DRAW, "adjudicated: a proven draw"
    winner = board.turn if result == "win" else board.turn.other
    return winner.winner, (f"adjudicated: {winner.name.title()} wins by force within "
                           f"{plies} plies (proven)")


def position_problem(board: Board) -> str | None:
    """Why `board` cannot be analysed (the game is over), or None."""
    winner = board.check_winner()
    if winner is Winner.NONE:
        return None
    return "the game is over: a draw" if winner is Winner.DRAW else \
        f"the game is over: {winner.name.title()} has won"


@dataclass(frozen=True)
class Threat:
    """An empty cell where `piece` would complete a run, and whom it gives the win."""

    pos: Pos
    piece: Piece
    winner: PColor
    """By the winner check's order: a shape run wins for the shape's owner
    (round: White) even when the same piece also completes a colour run."""
    playable: bool
    """Whether the cell can be filled on the next move (the one under it is taken)."""


def threats(board: Board) -> tuple[Threat, ...]:
    """Every (empty cell, piece) that would end the game with a win, from the
    runs of `win_sequence` cells along the win corridors holding one empty cell
    and n-1 pieces of one shape or one colour. Pieces a player has none of left
    are still listed (the marks show the position's lines, not a move list).
    Ordered by row, column, colour, shape."""
    n = board.win_sequence
    shape_runs: set[tuple[Pos, PShape]] = set()
    colour_runs: set[tuple[Pos, PColor]] = set()
    for corridor in board.win_corridors:
        cells = [board[p] for p in corridor]
        for start in range(len(corridor) - n + 1):
            window = cells[start:start + n]
            empty = [i for i, piece in enumerate(window) if piece is None]
            if len(empty) != 1:
                continue
            pieces = [piece for piece in window if piece is not None]
            pos = corridor[start + empty[0]]
            if all(piece.shape is pieces[0].shape for piece in pieces):
                shape_runs.add((pos, pieces[0].shape))
            if all(piece.color is pieces[0].color for piece in pieces):
                colour_runs.add((pos, pieces[0].color))
    marked = {pos for pos, _ in shape_runs} | {pos for pos, _ in colour_runs}
    found = []
    for pos in sorted(marked):
        playable = board.column_height(pos.col) == pos.row
        for color in PColor:
            for shape in PShape:
                if (pos, shape) in shape_runs:
                    winner = PColor.WHITE if shape is PShape.ROUND else PColor.RED
                elif (pos, color) in colour_runs:
                    winner = color
                else:
                    continue
                found.append(Threat(pos, Piece(color, shape), winner, playable))
    return tuple(found)


def line_cells(board: Board, line: Sequence[str]) -> list[tuple[Pos, Piece]]:
    """Where the moves of `line` land, played in turn from `board` (stops at
    the first that cannot be played or once the game ends)."""
    work = board.copy()
    cells = []
    for token in line:
        try:
            col, shape = parse_move(token)
            row = work.do_move(shape, col)
        except ValueError:
            break
        if row < 0:
            break
        cells.append((Pos(row, col), Piece(work.turn.other, shape)))
        if work.check_winner() is not Winner.NONE:
            break
    return cells


SCALE = 139.5
"""k of P(White scores) = 1 / (1 + exp(-score / k)), score in negamax units
(White's advantage). Fitted by maximum likelihood with
benchmarks/calibrate_eval.py (defaults: seed 1) on 2026-11-25: 300 games of negamax
depth 5 against itself from random openings of 2 to 8 plies on 6x7, 3,958
positions; 95 % interval 105.8 .. 192.4 (cluster bootstrap over games)."""

_RESULT_SCORES = {"white": 1.0, "red": 0.0, "draw": 0.5}


def expected_score(value: MoveValue) -> float:
    """White's expected score (0..1) of a move: 1, 0 or 1/2 for a proven win of
    White, of Red, or draw; else the logistic of its score (White's advantage)."""
    if value.result is not None:
        return _RESULT_SCORES[value.result]
    x = -(value.score or 0.0) / SCALE
    if x > 700:  # exp would overflow: the score is a win of Red's, all but proven
        return 0.0
    return 1.0 / (1.0 + math.exp(x))


score_share = expected_score
"""White's share of the evaluation bar: the expected score."""


def moves_text(moves: Sequence[str]) -> str:
    return " ".join(moves) if moves else "(none)"
