"""One match as a state machine that a frontend advances.

The GUI calls `Match.update()` every frame; the console calls `Match.run()`,
which loops over the same `update()` and waits in between. Human moves come
in through `submit_move()`. What happens goes out as frozen event objects to
the subscribers, always on the thread that calls `update()`.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from enum import Enum

from csl_game.engine.figures import Figures, turn_figures
from csl_game.engine.judging import explain, judge, move_text
from csl_game.engine.outcomes import Forfeit, ForfeitReason
from csl_game.engine.remote import Remote
from csl_game.engine.runners.base import RunnerFactory, ThinkerRunner, ThinkJob, start_timed
from csl_game.engine.runners.thread import ThreadRunner
from csl_game.errors import InvalidMoveError, MatchAborted, Refused
from csl_game.model.board import Board, Move, PColor, Pos, PShape, Winner
from csl_game.thinker.api import FutureMove, MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["MatchAborted", "Refused", "Human", "Remote", "Player", "Adjudicator", "Match", "MatchState", "MatchResult",
           "PlayedMove",
           "MatchEvent", "MatchStarted", "NextTurn", "MovePerformed", "InvalidPlay",
           "BoardUpdated", "ThinkingInfo", "MatchOver", "MovesTakenBack", "Resigned"]

log = logging.getLogger(__name__)






@dataclass(frozen=True)
class Human:
    """A human player; moves come from the frontend through submit_move()."""

    name: str = "Human"

    @property
    def display_name(self) -> str:
        return self.name


Player = Human | ThinkerPrototype | Remote
"""A human at this machine, a thinker, or a player on another machine."""

Adjudicator = Callable[[Board, "tuple[PlayedMove, ...]"], "tuple[Winner, str] | None"]
"""Looks at a position after a move, and the moves that led there (with what
their thinkers reported: a score): (the result to end the game with, why)
when the game may be adjudicated, else None."""


def _human_name(player: Player) -> str:
    return player.name if isinstance(player, Human | Remote) else player.default_name


@dataclass(frozen=True)
class PlayedMove:
    """A move of the match with the time its player took."""

    move: Move
    elapsed: float
    """Seconds it cost its player on the match's clock (a human's: on the wall)."""
    figures: Figures = ()
    """What its thinker reported while thinking it (csl_game.engine.figures)."""
    wall: float | None = None
    """Seconds it took on the wall clock, beside `elapsed` (far above it: the
    move waited uncharged, for a core); None where unknown (older results files)."""


@dataclass(frozen=True)
class MatchResult:
    """How a match ended."""

    winner: Winner
    white: str
    red: str
    solution: tuple[Pos, ...] = ()
    """The winning run when the game was won on the board."""
    forfeit: ForfeitReason | None = None
    """Why the loser lost when it was not on the board."""
    detail: str = ""
    moves: tuple[PlayedMove, ...] = ()
    resigned: bool = False
    """The loser resigned (a human's choice; `forfeit` is None then)."""
    adjudicated: str = ""
    """Why the game was adjudicated before its end (a proven result), if it was."""
    ended: str = field(default="", compare=False)
    """When the match ended (UTC, ISO 8601, to the second; "" where unknown:
    older results files, a game rebuilt from another record)."""

    @property
    def winner_name(self) -> str | None:
        color = self.winner.color
        if color is None:
            return None
        return self.white if color is PColor.WHITE else self.red


@dataclass(frozen=True)
class MatchEvent:
    """Base of all match events."""


@dataclass(frozen=True)
class MatchStarted(MatchEvent):
    config: MatchConfig
    white: str
    red: str


@dataclass(frozen=True)
class NextTurn(MatchEvent):
    color: PColor
    name: str
    is_human: bool


@dataclass(frozen=True)
class MovePerformed(MatchEvent):
    color: PColor
    name: str
    move: Move
    elapsed: float


@dataclass(frozen=True)
class InvalidPlay(MatchEvent):
    color: PColor
    name: str
    reason: ForfeitReason
    detail: str


@dataclass(frozen=True)
class BoardUpdated(MatchEvent):
    board: Board = field(compare=False)


@dataclass(frozen=True)
class ThinkingInfo(MatchEvent):
    color: PColor
    name: str
    text: str


@dataclass(frozen=True)
class MatchOver(MatchEvent):
    result: MatchResult


@dataclass(frozen=True)
class MovesTakenBack(MatchEvent):
    """Undo: the last `count` moves left the board, which is now `board`."""

    count: int
    board: Board = field(compare=False)


@dataclass(frozen=True)
class Resigned(MatchEvent):
    color: PColor
    name: str


class MatchState(Enum):
    NOT_STARTED = "not started"
    WAITING_HUMAN = "waiting for a human move"
    THINKING = "an AI is thinking"
    OVER = "over"


class Match:
    """A match between two players, advanced by update() calls."""

    def __init__(self, config: MatchConfig, white: Player, red: Player,
                 runner_factory: RunnerFactory = ThreadRunner,
                 clock: Callable[[], float] = time.perf_counter,
                 names: tuple[str, str] | None = None,
                 adjudicator: Adjudicator | None = None) -> None:
        """A match about to start; the runner factory makes the AI players' runners.

        `names` are the players' display names; by default a human's name and
        each runner's (which a process runner takes from the class-name rule:
        a thinker's own name is asked in its worker, by the session). With an
        `adjudicator`, each position after a move is shown to it, and a game it
        adjudicates ends there with its result (`MatchResult.adjudicated`).
        """
        self.config = config
        self._adjudicator = adjudicator
        self.board = config.new_board()
        self.state = MatchState.NOT_STARTED
        self.result: MatchResult | None = None
        self._clock = clock
        self._subscribers: list[Callable[[MatchEvent], None]] = []
        self._info: queue.SimpleQueue[tuple[PColor, str]] = queue.SimpleQueue()
        self._players = (white, red)
        self._runners: list[ThinkerRunner | None] = [
            self._runner_of(p, runner_factory, color) for color, p in zip(PColor, self._players)]
        if names is None:
            white_name, red_name = (r.name if r is not None else _human_name(p)
                                    for r, p in zip(self._runners, self._players))
            names = (white_name, red_name)
        self.names = names
        self._job: ThinkJob | None = None
        self._ready: tuple[FutureMove, float, float | None] | None = None
        """A judged move, its thinking time and wall time, waiting for the minimum move time."""
        self._turn_started = 0.0
        self._turn_info: list[str] = []
        """The mover's thinking-info lines of this turn."""
        self._moves: list[PlayedMove] = []
        self._clock_left: list[float] | None = (
            [config.game_time_ms / 1000] * 2 if config.game_clock else None)
        """With a game clock (`MatchConfig.game_time_ms`): each side's seconds left."""

    def _runner_of(self, player: Player, factory: RunnerFactory,
                   color: PColor) -> ThinkerRunner | None:
        if isinstance(player, Human):
            return None
        if isinstance(player, Remote):
            return player.runner(self._info_sink(color))
        return factory(player, self._info_sink(color))

    # ------------------------------------------------------------- listening
    def subscribe(self, callback: Callable[[MatchEvent], None]) -> None:
        """Call `callback` with every event from now on."""
        self._subscribers.append(callback)

    def _emit(self, event: MatchEvent) -> None:
        for callback in self._subscribers:
            callback(event)

    def _info_sink(self, color: PColor) -> Callable[[str], None]:
        return lambda text: self._info.put((color, text))

    # ---------------------------------------------------------------- reading
    def name(self, color: PColor) -> str:
        """The display name of a player."""
        return self.names[color]

    def is_human(self, color: PColor) -> bool:
        return self._runners[color] is None

    @property
    def is_over(self) -> bool:
        return self.state is MatchState.OVER

    @property
    def awaiting_human(self) -> bool:
        """Whether the engine waits for submit_move()."""
        return self.state is MatchState.WAITING_HUMAN

    def thinking_time(self) -> float:
        """Seconds since the current turn began (0 when the match is over); once
        an AI's answer is in (held for the minimum move time), the seconds it
        took on the match's clock, as its move will be told."""
        if self.is_over:
            return 0.0
        if self._ready is not None:
            return self._ready[1]
        return self._clock() - self._turn_started

    def clock_left(self, color: PColor) -> float | None:
        """Seconds left on `color`'s game clock (as of its last move); None
        without a game clock."""
        return None if self._clock_left is None else self._clock_left[color]

    # ---------------------------------------------------------------- driving
    def update(self) -> None:
        """Advance the match as far as it can go now, without blocking."""
        self._drain_info()
        if self.state is MatchState.NOT_STARTED:
            self._emit(MatchStarted(self.config, self.names[0], self.names[1]))
            self._emit(BoardUpdated(self.board.copy()))
            self._begin_turn()
        if self.state is MatchState.THINKING:
            self._poll_job()

    def run(self, on_human: Callable[[Match], None] | None = None,
            step: float = 0.05, stop: threading.Event | None = None) -> MatchResult:
        """Play the match to the end, blocking; `on_human` is asked for human moves.

        Raises:
            MatchAborted: `stop` was set before the match ended (it is closed).
        """
        while True:
            self.update()
            if self.is_over:
                assert self.result is not None
                return self.result
            if stop is not None and stop.is_set():
                self.close()
                raise MatchAborted("the match was stopped before it ended")
            if self.awaiting_human:
                if on_human is None:
                    raise InvalidMoveError("a human is to play but no input was given")
                on_human(self)
            else:
                self.wait(step)

    def wait(self, timeout: float) -> None:
        """Sleep until the thinking AI may have news, at most `timeout` seconds."""
        if self._ready is not None:
            remaining = self._min_time_left()
            if remaining > 0:
                time.sleep(min(timeout, remaining))
        elif self._job is not None:
            self._job.wait(timeout)

    def submit_move(self, col: int, shape: PShape) -> None:
        """Play a human's move.

        Raises:
            InvalidMoveError: no human is to play, or the move is not legal.
        """
        if not self.awaiting_human:
            raise InvalidMoveError("it is not a human's turn")
        problem = self.board.move_problem(shape, col)
        if problem is not None:
            raise InvalidMoveError(f"cannot play {move_text(col, shape)}: "
                                   f"{explain(problem, self.board)}", problem)
        took = self._clock() - self._turn_started
        self._play(FutureMove(col, PShape(shape)), took, took)

    # ---------------------------------------------------------------- undo, resign
    def undo_problem(self) -> str | None:
        """Why moves cannot be taken back now, or None when they can."""
        if self.is_over:
            return "the match is over"
        if not any(map(self.is_human, PColor)):
            return "only AIs play this match"
        if any(isinstance(p, Remote) for p in self._players):
            return "a player on another machine takes part"
        if self._undo_count() == 0:
            return "no human has moved yet"
        return None

    def _undo_count(self) -> int:
        """Moves back to, and including, the last human move (0: none)."""
        for back, played in enumerate(reversed(self._moves), 1):
            if self.is_human(played.move.piece.color):
                return back
        return 0

    def undo(self) -> int:
        """Take back the last human move and every AI reply after it; returns how
        many moves left the board. A thinking AI is stopped first, and the
        human whose move was taken back is to play again.

        Raises:
            Refused: `undo_problem()` says why.
        """
        problem = self.undo_problem()
        if problem is not None:
            raise Refused(f"cannot take back a move: {problem}")
        count = self._undo_count()
        if self._job is not None:
            self._job.cancel()
            self._job = None
        self._ready = None
        for _ in range(count):
            self.board.undo_move()
            self._moves.pop()
        self._emit(MovesTakenBack(count, self.board.copy()))
        self._emit(BoardUpdated(self.board.copy()))
        self._begin_turn()
        return count

    def resign(self, color: PColor) -> None:
        """A human player gives up: the other player wins.

        Raises:
            Refused: the match is over, or `color` is not a human player.
        """
        if self.is_over or not self.is_human(color):
            raise Refused(f"{color} cannot resign now")
        if self._job is not None:
            self._job.cancel()
            self._job = None
        self._emit(Resigned(color, self.names[color]))
        self._finish(MatchResult(color.other.winner, *self.names, resigned=True,
                                 moves=tuple(self._moves)))

    def close(self) -> None:
        """Stop any thinking and release the players' runners."""
        if self._job is not None:
            self._job.cancel()
            self._job = None
        for runner in self._runners:
            if runner is not None:
                runner.close()

    # -------------------------------------------------------------- internals
    def _drain_info(self) -> None:
        while True:
            try:
                color, text = self._info.get_nowait()
            except queue.Empty:
                return
            if color is self.board.turn and self.state is MatchState.THINKING:
                self._turn_info.append(text)
            self._emit(ThinkingInfo(color, self.names[color], text))

    def _begin_turn(self) -> None:
        color = self.board.turn
        runner = self._runners[color]
        self._turn_started = self._clock()
        self._turn_info = []
        self._ready = None
        self._emit(NextTurn(color, self.names[color], runner is None))
        if runner is None:
            self.state = MatchState.WAITING_HUMAN
        else:
            self.state = MatchState.THINKING
            limit = (None if self._clock_left is None
                     else max(1, int(self._clock_left[color] * 1000)))
            self._job = start_timed(runner, self.board, limit)

    def _min_time_left(self) -> float:
        return self.config.min_move_time_ms / 1000 - (self._clock() - self._turn_started)

    def _poll_job(self) -> None:
        if self._ready is None:
            assert self._job is not None
            outcome = self._job.poll()
            if outcome is None:
                return
            self._job = None
            self._drain_info()
            verdict = judge(outcome, self.board)
            if isinstance(verdict, Forfeit):
                self._forfeit(verdict.reason, verdict.detail)
                return
            self._charge(outcome.elapsed)
            self._ready = (verdict, outcome.elapsed, outcome.wall)
        if self._min_time_left() <= 0:
            (move, elapsed, wall), self._ready = self._ready, None
            self._play(move, elapsed, wall)

    def _charge(self, elapsed: float) -> None:
        """Take a move's time off the mover's game clock, then add the increment
        (a move answered within the organiser's margin leaves it at 0, not below)."""
        if self._clock_left is None:
            return
        color = self.board.turn
        left = max(0.0, self._clock_left[color] - elapsed)
        self._clock_left[color] = left + self.config.increment_ms / 1000

    def _play(self, move: FutureMove, elapsed: float, wall: float | None) -> None:
        color = self.board.turn
        row = self.board.do_move(move.shape, move.column)
        played = Move(row, move.column, self.board[row, move.column])  # type: ignore[arg-type]
        self._moves.append(PlayedMove(played, elapsed, turn_figures(self._turn_info), wall))
        self._emit(MovePerformed(color, self.names[color], played, elapsed))
        self._emit(BoardUpdated(self.board.copy()))
        solution: list[Pos] = []
        winner = self.board.check_winner(solution)
        if winner is Winner.NONE and self._adjudicator is not None:
            verdict = self._adjudicator(self.board.copy(), tuple(self._moves))
            if verdict is not None:
                log.info("adjudicated after %d moves: %s", len(self._moves), verdict[1])
                self._finish(MatchResult(verdict[0], *self.names, moves=tuple(self._moves),
                                         adjudicated=verdict[1]))
                return
        if winner is Winner.NONE:
            self._begin_turn()
        else:
            self._finish(MatchResult(winner, *self.names, solution=tuple(solution),
                                     moves=tuple(self._moves)))

    def forfeit(self, color: PColor, reason: ForfeitReason, detail: str = "") -> None:
        """`color` loses other than on the board, whoever is to move (a player
        on another machine who left and did not come back).

        Raises:
            Refused: the match is over.
        """
        if self.is_over:
            raise Refused(f"{color} cannot forfeit: the match is over")
        if self._job is not None:
            self._job.cancel()
            self._job = None
        self._forfeit(reason, detail, color)

    def _forfeit(self, reason: ForfeitReason, detail: str, color: PColor | None = None) -> None:
        """The one path by which a player loses other than on the board."""
        color = self.board.turn if color is None else color
        log.info("%s (%s) forfeits: %s: %s", self.names[color], color.name.title(),
                 reason.name.lower(), detail)
        self._emit(InvalidPlay(color, self.names[color], reason, detail))
        self._finish(MatchResult(color.other.winner, *self.names, forfeit=reason,
                                 detail=detail, moves=tuple(self._moves)))

    def _finish(self, result: MatchResult) -> None:
        result = replace(result, ended=datetime.now(UTC).isoformat(timespec="seconds"))
        self.state = MatchState.OVER
        self.result = result
        self.close()
        self._emit(MatchOver(result))
