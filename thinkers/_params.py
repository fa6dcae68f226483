"""Parameter strings of the search thinkers: ``key=value`` integers."""

from __future__ import annotations

import gc
import time
from abc import abstractmethod
from collections.abc import Callable
from typing import ClassVar

from csl_game import AbstractThinker, Board, CancellationToken, FutureMove, PShape

__all__ = ["parse_params", "thinker_name", "time_budget", "Value", "SearchThinker",
           "TimeKeeper"]


Value = int | float | str


def parse_params(params: str, defaults: dict[str, Value]) -> tuple[dict[str, Value], list[str]]:
    """Parse ``key=value`` tokens separated by spaces or commas; a bare value
    is the first key's. Each value takes the type of its default.

    Returns the values and the keys that were given, in the order given.

    Raises:
        ValueError: an unknown key, or a value of the wrong type or below 0.
    """
    values = dict(defaults)
    given: list[str] = []
    for token in params.replace(",", " ").split():
        key, sep, text = token.partition("=")
        if not sep:
            key, text = next(iter(defaults)), token
        key = key.strip().lower()
        if key not in defaults:
            raise ValueError(f"unknown parameter '{key}' (known: {', '.join(defaults)})")
        values[key] = _convert(key, text, defaults[key])
        if key not in given:
            given.append(key)
    return values, given


def _convert(key: str, text: str, default: Value) -> Value:
    if isinstance(default, str):
        return text.lower()
    kind = int if isinstance(default, int) else float
    try:
        value: int | float = kind(text)
    except ValueError:
        raise ValueError(f"parameter {key} must be a {'whole ' if kind is int else ''}"
                         f"number, got {text!r}") from None
    if value < 0:
        raise ValueError(f"parameter {key} must be at least 0, got {text}")
    return value


def thinker_name(base: str, values: dict[str, Value], given: list[str],
                 labels: dict[str, str]) -> str:
    """The base name plus a label and value for each parameter that was given."""
    return base + "".join(f"{labels[k]}{values[k]}" for k in given)


def time_budget(limit_ms: float, margin_ms: int, cpu: bool = False) -> float:
    """Seconds a thinker may search for one move.

    `margin_ms` is kept free before the limit; a negative value means the
    default: on the wall clock 30 % of the limit and at least 30 ms, which
    covers the process transport, a busy machine's scheduling delays and the
    last node; on the CPU clock (which neither counts) 10 % and at least 5 ms.
    """
    limit = limit_ms / 1000
    if margin_ms >= 0:
        margin = margin_ms / 1000
    else:
        margin = max(0.005, 0.1 * limit) if cpu else max(0.03, 0.3 * limit)
    return max(limit - margin, 0.2 * limit)


class TimeKeeper:
    """The search time of each move of a match, with a margin that adapts to the machine.

    The margin kept free before the limit covers what the thinker cannot
    time itself: the request and the answer crossing to and from its worker
    process, and the waits of a busy machine's scheduler. It is a fixed part
    (`BASE_MS` plus `SHARE` of the limit) and a measured one: twice the
    longest pause between two clock readings of the recent searches (a time
    the process was not running, or the spacing of the readings) plus the
    recent overrun past the deadline. Both measures decay move by move, so
    the margin grows within a move of the machine getting busy and shrinks
    slowly once it is quiet again; a new match starts from the stall the
    process saw last.
    """

    BASE_MS = 20
    SHARE = 0.08
    CPU_BASE_MS = 5
    CPU_SHARE = 0.06
    """On the CPU clock the transport and the scheduler's waits cost nothing:
    what is left is the last node, the answer's way out, the clock's grain,
    and what a busy machine adds to the processor time itself (caches
    emptied by the processes it switches to): with 3 ms and 4 %, moves
    budgeted 189 ms of 200 and 45 of 50 were charged 201 and 53 ms beside
    12-24 busy processes, and lost on time."""
    DECAY = 0.95

    _last_stall = 0.0
    """The stall estimate of the process's last move: a new match's first
    move starts from it, since the machine's load outlives a match."""

    GAME_SPREAD = 3
    """With a game clock, a move may spend what is left over a third of the
    plies left (about the moves this side has left in a game that does not
    fill the board), plus most of the increment."""

    def __init__(self, limit_ms: int, margin_ms: int = -1, cpu: bool = False,
                 increment_ms: int | None = None) -> None:
        """`margin_ms` >= 0 fixes the margin instead; `cpu`: the match is timed
        on the CPU clock (`MatchConfig.clock`); `increment_ms` given: the
        match has a game clock with that increment (`MatchConfig.game_time_ms`)."""
        self.limit = limit_ms / 1000
        self.increment = None if increment_ms is None else increment_ms / 1000
        self.base = (self.CPU_BASE_MS if cpu else self.BASE_MS) / 1000
        self.share = self.CPU_SHARE if cpu else self.SHARE
        self.fixed = margin_ms / 1000 if margin_ms >= 0 else None
        self.stall = TimeKeeper._last_stall
        """Recent longest pause between two clock readings, in seconds."""
        self.overrun = 0.0
        """Recent time from the deadline to the answer, in seconds."""

    @property
    def margin(self) -> float:
        """Seconds kept free before the limit on the next move."""
        return self._margin(self.limit)

    def _margin(self, limit: float) -> float:
        if self.fixed is not None:
            return self.fixed
        return self.base + self.share * limit + 2 * self.stall + self.overrun

    def budget(self, time_left: float = float("inf"), plies_left: int = 0) -> float:
        """Seconds the next move may search, of the `time_left` its token
        gives (the limit when that is unknown); at least a third of it. With a
        game clock, `time_left` is the whole game's: the move takes its share
        over the `plies_left` (see GAME_SPREAD), never more than half."""
        if self.increment is None or time_left == float("inf"):
            limit = min(self.limit, time_left)
            return max(limit - self.margin, limit / 3)
        share = time_left / max(2, plies_left // self.GAME_SPREAD) + 0.9 * self.increment
        limit = min(share, time_left / 2)
        return max(limit - self._margin(limit), limit / 3)

    def record(self, longest_gap: float, overrun: float) -> None:
        """Learn from a finished move: its longest pause between clock
        readings and how far past its deadline it answered (0 if not)."""
        self.stall = TimeKeeper._last_stall = max(longest_gap, self.stall * self.DECAY)
        self.overrun = max(overrun, self.overrun * self.DECAY)


class SearchThinker(AbstractThinker):
    """Shared plumbing of the search thinkers: the name, the match's clock,
    and think() with the garbage collector paused (a collection could push a
    move over the limit).

    Subclasses set `_name` in setup() and implement `_choose`, which returns
    a move encoded as ``column << 1 | shape``; they read the time on
    `self.now()`, the match's own clock (the token's: the CPU time of this
    process by default, so a busy machine does not shorten a search's time).
    """

    _name = ""
    takes_nodes: ClassVar[bool] = False
    """Whether its parameters take ``nodes=N``, a node limit per move (the
    lab's --nodes N passes it to the thinkers that say so)."""
    now: Callable[[], float] = staticmethod(time.perf_counter)
    """Seconds on the match's clock, during think()."""

    def __str__(self) -> str:
        return self._name or super().__str__()

    @property
    def cpu_clock(self) -> bool:
        """Whether the match is timed on the CPU clock."""
        return self.match_clock == "cpu"

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        self.now = ct.elapsed
        start = self.now()
        gc_was_on = gc.isenabled()
        gc.disable()
        try:
            move = self._choose(board, ct, start)
        finally:
            if gc_was_on:
                gc.enable()
        # Cancelled or not, the best move found is the answer: the runner
        # decides whether it came in time.
        return FutureMove(move >> 1, PShape(move & 1))

    @abstractmethod
    def _choose(self, board: Board, ct: CancellationToken, start: float) -> int:
        """The chosen move as ``column << 1 | shape`` (`start` on `self.now()`)."""
