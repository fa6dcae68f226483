"""Sound effects: a piece dropping, a win, a draw, a move refused.

The sounds are assets/sounds/*.wav (made by assets/make_sounds.py). Sound is
a nicety: with no audio device, no mixer module or a missing file the game
plays on silently, and nothing is said about it (the mixer opens with
standard error silenced: ALSA writes eight lines there where there is no
sound card). Muting is the player's
preference, remembered by the window.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

import pygame

from csl_game.gui.assets import asset_path
from csl_game.gui.window import quiet_stderr

__all__ = ["Effect", "Sound"]


class Effect(Enum):
    """The sound effects, by file name."""

    DROP = "drop"
    WIN = "win"
    DRAW = "draw"
    INVALID = "invalid"


class Sound:
    """Plays effects if it can; `asked` and `played` say what was asked and
    what really played (for tests)."""

    def __init__(self, muted: bool = False) -> None:
        self.muted = muted
        self.asked: list[Effect] = []
        """Every effect asked for while not muted (played or not)."""
        self.played: list[Effect] = []
        """The effects a mixer channel really took."""
        self._sounds: dict[Effect, Any] | None = None
        self.available = False
        """Whether a mixer was opened and the effects loaded."""

    def _load(self) -> dict[Effect, Any]:
        """Open the mixer and load the effects once; {} if either fails."""
        if self._sounds is not None:
            return self._sounds
        self._sounds = {}
        try:
            mixer = pygame.mixer
            if not mixer.get_init():
                with quiet_stderr():
                    mixer.init(22_050, -16, 1, 512)
            self._sounds = {e: mixer.Sound(str(asset_path("sounds", f"{e.value}.wav")))
                            for e in Effect}
            self.available = True
        except (pygame.error, NotImplementedError, AttributeError, ImportError, OSError,
                FileNotFoundError):
            self._sounds = {}
        return self._sounds

    def play(self, effect: Effect) -> None:
        """Play `effect` unless muted; silently nothing without sound."""
        if self.muted:
            return
        self.asked.append(effect)
        sound = self._load().get(effect)
        if sound is None:
            return
        try:
            channel = sound.play()
        except pygame.error:
            return
        if channel is not None:
            self.played.append(effect)

    def toggle_mute(self) -> bool:
        """Mute or unmute; returns whether muted now."""
        self.muted = not self.muted
        return self.muted

    def close(self) -> None:
        """Close the mixer if this opened it."""
        if self.available:
            try:
                pygame.mixer.quit()
            except pygame.error:
                pass
            self.available = False
            self._sounds = None
