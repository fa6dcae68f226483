"""The seat of an online match: the joined player, as the match engine sees it.

`SeatPlayer` is a `Remote` player: its runner's jobs wait for the move the
host took from the seat's connection (or the forfeit its own machine
reported), and time it on the `GameClock`, which stops while the game is
paused. A human is never timed; an AI has the time limit and a margin for
the network. The match judges what the job brings like any thinker's answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from csl_game.engine import (
    Forfeit,
    ForfeitReason,
    InfoCallback,
    MoveAnswer,
    Remote,
    ThinkerRunner,
    ThinkJob,
    ThinkOutcome,
)
from csl_game.model.board import Board, PColor

__all__ = ["Seat", "GameClock", "SeatPlayer"]

Clock = Callable[[], float]


@dataclass
class Seat:
    name: str
    color: PColor
    timed: bool
    peer: int | None
    """The connection it plays on (the host's number for it); None while away."""
    away_since: float | None = None
    offered: bool = False
    expected: int | None = None
    """The ply a move is awaited for (a job runs), else None."""
    answer: MoveAnswer | Forfeit | None = None
    """The move the seat's connection sent for `expected`, not played yet."""


@dataclass
class GameClock:
    """The game clock: stops while the game is paused."""

    now: Clock
    paused_total: float = 0.0
    paused_at: float | None = None

    def __call__(self) -> float:
        stopped = 0.0 if self.paused_at is None else self.now() - self.paused_at
        return self.now() - self.paused_total - stopped

    def pause(self) -> None:
        if self.paused_at is None:
            self.paused_at = self.now()

    def resume(self) -> None:
        if self.paused_at is not None:
            self.paused_total += self.now() - self.paused_at
            self.paused_at = None



@dataclass(eq=False)
class SeatPlayer(Remote):
    """The seated player, as the match sees it."""

    name: str
    seat: Seat
    clock: GameClock
    limit: float | None
    """Seconds its moves may take (None: a human, never timed)."""
    limit_text: str
    """The limit in words, for a forfeit's detail."""

    def runner(self, info: InfoCallback) -> ThinkerRunner:
        return SeatRunner(self)


@dataclass(eq=False)
class SeatRunner(ThinkerRunner):
    player: SeatPlayer

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.player.name

    def start(self, board: Board) -> ThinkJob:
        seat = self.player.seat
        seat.expected, seat.answer = board.move_count, None
        return SeatJob(self.player, self.player.clock())


@dataclass(eq=False)
class SeatJob(ThinkJob):
    """A move of the seated player, awaited: its answer, or its time running out."""

    player: SeatPlayer
    started: float
    done: bool = field(default=False)

    def poll(self) -> ThinkOutcome | None:
        if self.done:
            return None
        seat, limit = self.player.seat, self.player.limit
        elapsed = self.player.clock() - self.started
        answer, seat.answer = seat.answer, None
        if answer is None and limit is not None and elapsed > limit:
            answer = Forfeit(ForfeitReason.TIMEOUT, self.player.limit_text)
        if answer is None:
            return None
        self.done, seat.expected = True, None
        return ThinkOutcome(answer, elapsed)

    def wait(self, timeout: float | None) -> ThinkOutcome | None:
        time.sleep(min(timeout if timeout is not None else 0.05, 0.05))
        return self.poll()

    def cancel(self) -> None:
        self.done, self.player.seat.expected = True, None
