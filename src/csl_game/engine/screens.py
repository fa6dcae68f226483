"""What a frontend shows of a session: its mode, its screens and the choices they offer.

The session (csl_game.engine.session) says which `Screen` its state shows and
which `Choice`s that screen offers; a frontend only draws them and passes the
user's choice back.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from csl_game.errors import ConfigError

__all__ = ["Mode", "mode_for", "mode_text", "Screen", "Choice", "ScreenPolicy"]


class Mode(Enum):
    """What kind of session the active AI players make."""

    HUMAN_VS_HUMAN = "human vs human"
    HUMAN_VS_AI = "human vs AI"
    AI_VS_AI = "AI vs AI"
    TOURNAMENT = "tournament"

    @property
    def asks_who_plays_first(self) -> bool:
        return self in (Mode.HUMAN_VS_AI, Mode.AI_VS_AI)


def mode_for(active_ai_players: int) -> Mode:
    """0 -> two humans, 1 -> human vs AI, 2 -> AI vs AI, 3 or more -> tournament."""
    if active_ai_players < 0:
        raise ConfigError(f"the number of AI players cannot be {active_ai_players}")
    return (Mode.HUMAN_VS_HUMAN, Mode.HUMAN_VS_AI, Mode.AI_VS_AI,
            Mode.TOURNAMENT)[min(active_ai_players, 3)]


def mode_text(active_ai_players: int) -> str:
    """'Human vs AI', or 'Tournament of 4 AIs (12 matches)' for 3 or more."""
    mode = mode_for(active_ai_players)
    if mode is not Mode.TOURNAMENT:
        text = str(mode.value)
        return text[0].upper() + text[1:]
    n = active_ai_players
    return f"Tournament of {n} AIs ({n * (n - 1)} matches)"


class Screen(Enum):
    """What a frontend shows for a session's current state."""

    PRE_MATCH = "pre-match"
    """Who plays next; for a single match also who plays first; standings once
    results exist."""
    MATCH = "match"
    POST_MATCH = "post-match"
    """The result of a tournament match over its final board."""
    FINAL = "final"
    """The end: the result of a single match, or a tournament's standings."""


class Choice(Enum):
    """What the user can choose on a screen."""

    START = "Start"
    SWAP = "Swap"
    OK = "OK"
    PLAY_AGAIN = "Play again"
    PLAY_AGAIN_SWAPPED = "Swap and play again"
    REVIEW = "Review"
    SETUP = "Back to setup"
    QUIT = "Quit"

    @property
    def leaves_session(self) -> bool:
        """Whether the frontend acts on it (a new session, setup, quit)."""
        return self in (Choice.PLAY_AGAIN, Choice.PLAY_AGAIN_SWAPPED, Choice.REVIEW,
                        Choice.SETUP, Choice.QUIT)


@dataclass(frozen=True)
class ScreenPolicy:
    """Whether the screens between tournament matches wait for a button."""

    wait_before_match: bool = True
    wait_after_match: bool = True
    unblocked_s: float = 1.5
    """How long a screen that does not wait stays."""
    auto: bool = False
    """Nothing waits: every screen takes its default choice after `unblocked_s`."""
