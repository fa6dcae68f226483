"""The thinker (AI player) API: what thinker authors code against.

A thinker subclasses `AbstractThinker` and overrides `think()`; it is made
with a `ThinkerPrototype` (csl_game.thinker.prototype), which sets up the
inherited match properties and calls `setup()` with the parameter string.
"""

from __future__ import annotations

import math
import re
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

from csl_game.errors import BoardConfigError, ConfigError, ThinkerError
from csl_game.model.board import Board, PShape

__all__ = ["AbstractThinker", "FutureMove", "CancellationToken", "MatchConfig",
           "thinker_display_name", "InfoHandler"]


class _FutureMoveFields(NamedTuple):
    column: int
    """Column to drop the piece into; -1 for NO_MOVE."""
    shape: PShape
    """Shape of the piece to play."""


class FutureMove(_FutureMoveFields):
    """A move a thinker wants to play: a column and a shape."""

    __slots__ = ()
    NO_MOVE: ClassVar[FutureMove]
    """The thinker gives up (it loses the match)."""

    @property
    def is_no_move(self) -> bool:
        """Whether this is FutureMove.NO_MOVE (the thinker gives up)."""
        return self.column == -1

    def __str__(self) -> str:
        if self.is_no_move:
            return "no move"
        shape = self.shape
        name = PShape(shape).name.lower() if shape in (0, 1) else f"shape {shape!r}"
        return f"{name} at column {self.column!r}"


FutureMove.NO_MOVE = FutureMove(-1, PShape.ROUND)


class CancellationToken:
    """Tells a thinking thinker to stop, and how much time it has; thread-safe.

    Thinkers read `is_cancellation_requested` and `time_left()`; the runner
    calls `cancel()`. A runner makes each move's token with the move's time
    limit and the match's clock (`MatchConfig.clock`), started when the move
    is asked for; a token made with no arguments (in a test, a notebook) has
    no limit and `time_left()` is infinite.
    """

    __slots__ = ("_event", "_limit", "_clock", "_start")

    def __init__(self, time_limit: float = math.inf,
                 clock: Callable[[], float] | None = None) -> None:
        """A token for a move of `time_limit` seconds on `clock` (a function
        returning seconds, started now; the wall clock by default)."""
        self._event = threading.Event()
        self._limit = float(time_limit)
        self._clock = clock or time.perf_counter
        self._start = self._clock()

    @property
    def time_limit(self) -> float:
        """Seconds this move may take on the match's clock (inf: no limit)."""
        return self._limit

    def elapsed(self) -> float:
        """Seconds this move has cost so far, on the match's clock."""
        return max(0.0, self._clock() - self._start)

    def time_left(self) -> float:
        """Seconds left before the time limit, on the match's clock (never
        below 0; inf without a limit). Answer before it reaches 0: the runner
        cancels the token then, and an answer after that loses on time.

        The clock is the one the match is judged on: by default the processor
        time of the thinker's process (its threads, its ended child processes),
        so time the machine gives to other programs does not count."""
        return max(0.0, self._limit - self.elapsed())

    @property
    def is_cancellation_requested(self) -> bool:
        """True once cancel() was called: return FutureMove.NO_MOVE quickly."""
        return self._event.is_set()

    def cancel(self) -> None:
        """Ask the thinker to stop."""
        self._event.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until cancelled or timeout seconds pass; True if cancelled."""
        return self._event.wait(timeout)


@dataclass(frozen=True)
class MatchConfig:
    """The settings of one match, as a thinker sees them.

    Defaults are the reference's standard track (6x7, four in a row, 10 round
    and 11 square pieces per player, 0.5 s per move).

    `clock` is what the time limit counts: ``"cpu"`` (the default) the
    processor time of the thinker's own processes, so a busy machine cannot
    make it lose on time; ``"wall"`` the reference's wall-clock time.
    `time_margin_ms` is the organiser's forgiveness: an answer up to that much
    past the limit still counts (thinkers should not plan on it:
    `CancellationToken.time_left()` counts to the limit itself).

    `game_time_ms` above 0 gives each side a game clock instead of a limit per
    move (cutechess-cli's and fastchess's ``tc=BASE+INC``): it starts with
    that much, each move's limit is what is left of it (what
    `CancellationToken.time_left()` tells), a move's time is taken off it and
    `increment_ms` added after each move; running out is a timeout. 0, the
    default, keeps the reference's `time_limit_ms` per move.
    """

    rows: int = 6
    cols: int = 7
    win_sequence: int = 4
    round_pieces: int = 10
    square_pieces: int = 11
    time_limit_ms: int = 500
    min_move_time_ms: int = 0
    clock: str = "cpu"
    time_margin_ms: int = 0
    game_time_ms: int = 0
    increment_ms: int = 0

    def __post_init__(self) -> None:
        try:
            self.new_board()
        except BoardConfigError as e:
            raise ConfigError(str(e)) from None
        for name in ("time_limit_ms", "min_move_time_ms", "time_margin_ms", "game_time_ms",
                     "increment_ms"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(f"{name} must be a whole number, got {value!r}")
        if self.time_limit_ms < 1:
            raise ConfigError(f"time_limit_ms must be at least 1, got {self.time_limit_ms}")
        if self.min_move_time_ms < 0:
            raise ConfigError(
                f"min_move_time_ms must be at least 0, got {self.min_move_time_ms}")
        if self.time_margin_ms < 0:
            raise ConfigError(f"time_margin_ms must be at least 0, got {self.time_margin_ms}")
        if self.game_time_ms < 0 or self.increment_ms < 0:
            raise ConfigError("game_time_ms and increment_ms must be at least 0, got "
                              f"{self.game_time_ms} and {self.increment_ms}")
        if self.increment_ms and not self.game_time_ms:
            raise ConfigError("increment_ms needs a game clock (game_time_ms above 0)")
        if self.clock not in ("cpu", "wall"):
            raise ConfigError(f"clock must be 'cpu' or 'wall', got {self.clock!r}")

    @property
    def game_clock(self) -> bool:
        """Whether each side has a game clock (`game_time_ms`), not a limit per move."""
        return self.game_time_ms > 0

    @property
    def tc(self) -> str:
        """The game clock as ``BASE+INC`` in seconds (``"10+0.1"``); "" without one."""
        if not self.game_clock:
            return ""
        return f"{self.game_time_ms / 1000:g}+{self.increment_ms / 1000:g}"

    def timing_text(self, per_move: str = "per move") -> str:
        """'200 ms per move', or the game clock's 'tc 10+0.1 (s a game + s a move)'."""
        if self.game_clock:
            return f"tc {self.tc} (seconds a game + a move)"
        return f"{self.time_limit_ms} ms {per_move}"

    def new_board(self) -> Board:
        """An empty board with these settings."""
        return Board(self.rows, self.cols, self.win_sequence,
                     self.round_pieces, self.square_pieces)

    @classmethod
    def unknown_track(cls, rows: int, cols: int) -> MatchConfig:
        """The competition's unknown-track settings derived from two numbers."""
        return cls(rows=rows, cols=cols, win_sequence=-(-rows // 2),
                   round_pieces=rows * cols // 4, square_pieces=-(-rows * cols // 4),
                   time_limit_ms=25 * max(rows, cols))


_SUFFIX = re.compile(r"(aithinker|thinkerai|thinker)$", re.IGNORECASE)


def thinker_display_name(class_name: str) -> str:
    """A class name without its Thinker/AIThinker/ThinkerAI suffix."""
    short = _SUFFIX.sub("", class_name)
    return short or class_name


InfoHandler = Callable[[str], None]


class AbstractThinker(ABC):
    """Base class of every thinker.

    Override `think()`; optionally `setup()` and `__str__()`. Match settings
    are inherited as read-only properties once the thinker was made by a
    `ThinkerPrototype`.
    """

    _config: MatchConfig | None = None
    _info_handler: InfoHandler | None = None

    def setup(self, params: str) -> None:  # noqa: B027 (optional, as in the reference)
        """Configure the thinker from its free-form parameter string."""

    @abstractmethod
    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        """Choose a move for `board.turn` on a board copy the thinker may change.

        Poll `ct.is_cancellation_requested` and return FutureMove.NO_MOVE
        soon after it turns true.
        """

    def __str__(self) -> str:
        return thinker_display_name(type(self).__name__)

    def on_thinking_info(self, text: str) -> None:
        """Report what the thinker is doing (shown in the log, for debugging)."""
        if self._info_handler is not None:
            self._info_handler(str(text))

    def _configure(self, config: MatchConfig, info: InfoHandler | None = None) -> None:
        self._config = config
        self._info_handler = info

    def _cfg(self) -> MatchConfig:
        if self._config is None:
            raise ThinkerError(
                f"{type(self).__name__} was not made by a ThinkerPrototype, "
                "so its match settings are unknown")
        return self._config

    @property
    def rows(self) -> int:
        """Board rows."""
        return self._cfg().rows

    @property
    def cols(self) -> int:
        """Board columns."""
        return self._cfg().cols

    @property
    def win_sequence(self) -> int:
        """Pieces in a row needed to win."""
        return self._cfg().win_sequence

    @property
    def round_pieces_per_player(self) -> int:
        """Round pieces each player starts with."""
        return self._cfg().round_pieces

    @property
    def square_pieces_per_player(self) -> int:
        """Square pieces each player starts with."""
        return self._cfg().square_pieces

    @property
    def match_clock(self) -> str:
        """What the time limit counts: ``"cpu"`` (this thinker's processor
        time) or ``"wall"`` (wall-clock time); see `MatchConfig.clock`."""
        return self._cfg().clock

    @property
    def time_limit_ms(self) -> int:
        """Time allowed for one move, in milliseconds (on the match's clock:
        read `CancellationToken.time_left()` while thinking). With a game
        clock (`game_time_ms`), the token's time is what is left of it."""
        return self._cfg().time_limit_ms

    @property
    def game_time_ms(self) -> int:
        """Each side's game clock at the start, in ms; 0: a limit per move."""
        return self._cfg().game_time_ms

    @property
    def increment_ms(self) -> int:
        """What the game clock gains after each of the thinker's moves, in ms."""
        return self._cfg().increment_ms
