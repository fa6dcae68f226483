"""What scenes get from the window, and what they may ask of the application.

Scenes depend on a `GuiContext` (the UI manager, text, piece art, message log,
options and window size) and, through it, on a `Navigator` for the few
requests that leave the screen's session: back to setup or home, a new
session, quit. The application implements the navigator; no scene knows the
application.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import pygame_gui

from csl_game.engine import Choice, RunnerFactory, ScreenPolicy, Session
from csl_game.gui.pacing import Pacer
from csl_game.gui.panels import MessageLog
from csl_game.gui.pieces import PieceArt
from csl_game.gui.scene import Scene
from csl_game.gui.sound import Sound
from csl_game.gui.style import Fonts, TextCache
from csl_game.services.settings import PlayOptions
from csl_game.services.userdata import UserData

__all__ = ["Navigator", "GuiContext"]


class Navigator(Protocol):
    """The requests a scene makes of the application."""

    def show_setup(self) -> None:
        """Leave any session for the setup screen."""

    def show_home(self) -> None:
        """Leave any session for the home screen."""

    def go_back(self) -> None:
        """Leave the session for the screen it was started from (home or setup)."""

    def show(self, scene: Scene) -> None:
        """Leave any session for `scene` (a screen of the home's: a picker, settings)."""

    def start_game(self, options: PlayOptions, swapped: bool = False) -> None:
        """Play the single match `options` describe at once (no pre-match screen),
        its colours swapped if `swapped`; 'Back' from it returns home."""

    def play(self, options: PlayOptions) -> None:
        """Play the session `options` describe (and remember them for setup)."""

    def play_session(self, session: Session, at_once: bool | None = None) -> None:
        """Show `session` from its first screen; `at_once`: a single match starts
        without its pre-match screen (None: as the last session did)."""

    def quit(self, status: int = 0) -> None:
        """Close the window after this frame, with exit status `status`."""

    def open_menu(self) -> None:
        """Show the menu (what Esc shows) over the current screen."""

    def set_title(self, text: str) -> None:
        """Show `text` in the window's title bar (after the game's name)."""


@dataclass(eq=False)
class GuiContext:
    """What every scene shares: the window's UI, drawing helpers and settings."""

    ui: pygame_gui.UIManager
    fonts: Fonts
    text: TextCache
    art: PieceArt
    log: MessageLog
    options: PlayOptions
    """The options of the session shown (or last shown); setup starts from them."""
    size: tuple[int, int]
    """The window's drawable size, kept current by the window."""
    nav: Navigator
    sound: Sound
    user: UserData
    """Preferences, the last setup and scores, in the user's config folder."""
    runner_factory: RunnerFactory | None = None
    """How the window runs thinker code off its thread (analysis, hints); None: threads."""
    choice_names: dict[Choice, str] = field(default_factory=dict)
    """Button texts of session choices other than their own ('Home' for 'Back to setup')."""
    pacer: Pacer = field(default_factory=Pacer)
    """Pause and speed of the AIs watched (the window's sessions' runners wait for it)."""

    @property
    def screen_policy(self) -> ScreenPolicy:
        """Whether the screens between matches wait, and for how long they stay."""
        return self.options.screen_policy
