"""Pause and speed while watching AIs.

The window's sessions make their AI players' runners through a `Pacer`
(`Pacer.wrap`): a turn's thinking starts only once the pacer lets it, so a
paused match waits between two moves (the move being thought out is still
played, on its own clock: a thinker is never stopped halfway, nor charged
for the pause), and at a slow speed each move stays on the board a while
before the next is asked for. The match scene of a game between AIs holds
the pacer (`watch`); every other screen leaves it open, so humans' games,
hints and the analysis are never held.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from csl_game.engine import InfoCallback, RunnerFactory, ThinkerRunner, ThinkJob, ThinkOutcome
from csl_game.model.board import Board
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["Pacer", "SPEEDS", "speed_text"]

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0)
"""The watching speeds: below 1, each move stays on the board longer; above
1, the pieces fall faster (the AIs still think as long as they do)."""
STAY_S = 1.0
"""At speed 1/2, how much longer than usual a move stays on the board (3 s at 1/4)."""


def speed_text(speed: float) -> str:
    """'¼×', '½×', '1×', '2×'."""
    return {0.25: "\u00bc\u00d7", 0.5: "\u00bd\u00d7"}.get(speed, f"{speed:g}\u00d7")


class Pacer:
    """Whether the next turn of a watched match may start thinking."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.watching = False
        """Whether a match between AIs is on screen (else the pacer holds nothing)."""
        self.paused = False
        self.speed = 1.0
        self._landed_at: float | None = None
        """When the last move shown finished landing (None: one is still falling)."""
        self.waiting = False
        """Whether a turn is being held now (its thinking not started)."""
        self.released_at: float | None = None
        """When the last turn held was let think (its clock starts then)."""

    # ------------------------------------------------------------- the screen's side
    def watch(self, watching: bool) -> None:
        """A match between AIs is (or is no longer) on screen; a new one starts unpaused."""
        if watching != self.watching:
            self.watching = watching
            self.paused = self.waiting = False
            self.released_at = None
            self._landed_at = self._clock()

    def now(self) -> float:
        return self._clock()

    def thinking_for(self, since_turn: float) -> float:
        """How long the AI to move has been thinking, given `since_turn`, the
        seconds since its turn began (the time it was held does not count)."""
        if not self.watching or self.released_at is None:
            return since_turn
        return max(0.0, min(since_turn, self._clock() - self.released_at))

    def toggle_pause(self) -> bool:
        """Pause or go on; returns whether paused now."""
        self.paused = not self.paused
        return self.paused

    def faster(self, step: int = 1) -> float:
        """The next speed up (`step` -1: down); returns the speed now."""
        at = SPEEDS.index(self.speed) if self.speed in SPEEDS else SPEEDS.index(1.0)
        self.speed = SPEEDS[max(0, min(len(SPEEDS) - 1, at + step))]
        return self.speed

    def shown(self, idle: bool) -> None:
        """Each frame: whether every move is on the board (nothing falling)."""
        if not idle:
            self._landed_at = None
        elif self._landed_at is None:
            self._landed_at = self._clock()

    @property
    def animation_speed(self) -> float:
        """How much faster than usual the pieces fall and pulse."""
        return max(1.0, self.speed) if self.watching else 1.0

    @property
    def stay_s(self) -> float:
        """How long a move stays on the board before the next is asked for."""
        return STAY_S * (1 / self.speed - 1) if self.speed < 1 else 0.0

    # ------------------------------------------------------------- the runners' side
    def holds(self) -> bool:
        """Whether a turn must wait before its thinking starts."""
        if not self.watching:
            return False
        if self.paused:
            return True
        if self.speed >= 1:
            return False
        landed = self._landed_at
        return landed is None or self._clock() - landed < self.stay_s

    def wrap(self, factory: RunnerFactory) -> RunnerFactory:
        """`factory`, whose runners wait for this pacer before each turn."""

        def make(prototype: ThinkerPrototype, info: InfoCallback) -> ThinkerRunner:
            return PacedRunner(factory(prototype, info), self)

        make.unpaced = factory  # type: ignore[attr-defined]
        return make


def unpaced(factory: RunnerFactory) -> RunnerFactory:
    """The factory a pacer wrapped (for hints and the analysis), or `factory` itself."""
    inner: RunnerFactory = getattr(factory, "unpaced", factory)
    return inner


class PacedRunner(ThinkerRunner):
    """A runner whose turns start once the pacer lets them."""

    def __init__(self, inner: ThinkerRunner, pacer: Pacer) -> None:
        self._inner = inner
        self._pacer = pacer
        self.name = inner.name

    def start(self, board: Board) -> ThinkJob:
        position = board.copy()
        return _HeldJob(lambda: self._inner.start(position), self._pacer)

    def close(self) -> None:
        self._inner.close()

    def __getattr__(self, name: str) -> object:
        """What else the runner has (its worker's pid, ...), as the runner wrapped."""
        if name.startswith("__") or name == "_inner":
            raise AttributeError(name)
        return getattr(self._inner, name)


class _HeldJob(ThinkJob):
    """A turn that starts thinking (its clock with it) when the pacer lets it."""

    def __init__(self, start: Callable[[], ThinkJob], pacer: Pacer) -> None:
        self._start: Callable[[], ThinkJob] | None = start
        self._pacer = pacer
        self._job: ThinkJob | None = None
        self._go()

    def _go(self) -> ThinkJob | None:
        if self._job is None and self._start is not None:
            self._pacer.waiting = self._pacer.holds()
            if not self._pacer.waiting:
                start, self._start = self._start, None
                self._pacer.released_at = self._pacer.now()
                self._job = start()
        return self._job

    def poll(self) -> ThinkOutcome | None:
        job = self._go()
        return job.poll() if job is not None else None

    def wait(self, timeout: float | None) -> ThinkOutcome | None:
        job = self._go()
        if job is not None:
            return job.wait(timeout)
        time.sleep(min(0.05, timeout if timeout is not None else 0.05))
        return None

    def cancel(self) -> None:
        if self._start is not None:  # never started: nothing to stop
            self._start = None
            self._pacer.waiting = False
        if self._job is not None:
            self._job.cancel()
