"""Outcomes of a match besides a win on the board: why a player forfeits.

A forfeit is what a match comes to when a player fails (raises, runs out of
time or memory, answers no legal move, leaves, cannot be set up). The
runners report the failures they see as a `Forfeit`, the judge the moves it
refuses, and results files, reports and the online protocol name the
reasons. This module stands at the engine's ground: the runners import it
(through `csl_game.engine.runners.base`, which hands its names on), and it
imports nothing of the package.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set
from dataclasses import dataclass
from enum import Enum

__all__ = ["ForfeitReason", "Forfeit", "MAX_REPLAYS", "first_to_play"]


class ForfeitReason(Enum):
    """Why a player lost the match without a winning run.

    Results files store `name.lower()`, so names are kept once published.
    """

    EXCEPTION = "raised an exception"
    TIMEOUT = "exceeded the time limit"
    NO_MOVE = "returned no move"
    INVALID_COLUMN = "chose a column that does not exist"
    FULL_COLUMN = "chose a full column"
    NO_PIECES = "chose a shape it has no pieces of"
    IGNORED_CANCELLATION = "ignored the request to stop thinking"
    WORKER_DIED = "crashed its process"
    MEMORY = "exceeded the memory limit"
    PROTOCOL = "broke the worker protocol"
    """Its worker process wrote on the result pipe what is no message (garbage,
    an oversized or unfinished message): only thinker code writes such things."""
    DISCONNECTED = "left the game and did not come back"
    """A player on another machine whose connection dropped, for longer than
    its opponent would wait."""
    INTERFERED = "was stopped or killed by another program"
    """Its worker was stopped or killed by a signal that csl-game did not send
    (possible only without the sandbox): not its doing, so the match is played
    again rather than scored (`Session`)."""
    SETUP = "could not be set up"
    """The thinker could not even be made ready to play (its module did not
    import, its constructor or setup() failed, its engine did not start)."""

    def __str__(self) -> str:
        return self.value


MAX_REPLAYS = 2
"""Times a session plays a match again for `ForfeitReason.INTERFERED`; the
next such result is scored as it is (a thinker that kills its own worker
cannot have its match played for ever)."""


def first_to_play(free: Iterable[int], running: Set[int], replayed: Mapping[int, int]
                  ) -> int | None:
    """The first of the matches `free` to play beside those `running`: one to
    be played again (`replayed`) only alone, as what stopped or killed its
    worker may be playing still (and it again only with nothing beside it)."""
    if running & replayed.keys():
        return None
    return next((i for i in free if not running or i not in replayed), None)


@dataclass(frozen=True)
class Forfeit:
    """A player loses the match: why, and the details."""

    reason: ForfeitReason
    detail: str = ""
    """Human-readable detail: the move played, exception and traceback, exit code, ..."""
