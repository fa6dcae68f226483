"""What a session tells its listeners: frozen events, one per step."""

from __future__ import annotations

from dataclasses import dataclass

from csl_game.engine.scoring import MatchRecord, Standing
from csl_game.engine.screens import Mode
from csl_game.engine.tiebreak import TieBreak, TieRound
from csl_game.model.board import PColor

__all__ = ["SessionEvent", "SessionStarted", "PreMatch", "PostMatch", "MatchReplayed",
           "TieBreakRound", "SessionEnded"]


@dataclass(frozen=True)
class SessionEvent:
    """Base of all session events."""


@dataclass(frozen=True)
class SessionStarted(SessionEvent):
    mode: Mode
    players: tuple[str, ...]
    total_matches: int


@dataclass(frozen=True)
class PreMatch(SessionEvent):
    index: int
    white: str
    red: str


@dataclass(frozen=True)
class PostMatch(SessionEvent):
    index: int
    record: MatchRecord
    background: bool = False
    """Played off screen (by the scheduler) rather than here."""
    info: tuple[tuple[PColor, str], ...] = ()
    """What the thinkers said while thinking (matches played off screen only)."""


@dataclass(frozen=True)
class MatchReplayed(SessionEvent):
    """A match is not scored but played again: a player's worker was stopped
    or killed by another program (`ForfeitReason.INTERFERED`)."""

    index: int
    white: str
    red: str
    detail: str
    """Whose worker, and what was done to it."""
    times: int
    """How often this match was played again so far (this time included)."""


@dataclass(frozen=True)
class TieBreakRound(SessionEvent):
    """A tie-break tournament for first place starts."""

    round: TieRound
    players: tuple[str, ...]


@dataclass(frozen=True)
class SessionEnded(SessionEvent):
    standings: tuple[Standing, ...]
    """Final standings, a tie-break applied."""
    tie_break: TieBreak | None = None
