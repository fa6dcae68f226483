"""The operating system's window: its icon, its first size, how its text
scales, and the refusal to open one nobody can see."""

from __future__ import annotations

import os

import pygame

from csl_game.errors import NoDisplay
from csl_game.gui.layout import ui_scale, window_size_for
from csl_game.gui.pieces import PieceArt
from csl_game.model.board import PColor, PShape

__all__ = ["icon", "first_size", "text_scale", "check_display", "HEADLESS_DRIVERS"]


def icon() -> pygame.Surface:
    """The window's icon: a white round piece and a red square one."""
    art = PieceArt()
    surface = pygame.Surface((32, 32), pygame.SRCALPHA)
    surface.blit(art.image(PColor.WHITE, PShape.ROUND, 20), (0, 0))
    surface.blit(art.image(PColor.RED, PShape.SQUARE, 20), (12, 12))
    return surface


def first_size() -> tuple[int, int]:
    """A window size that fits the desktop the window opens on."""
    try:
        desktops = pygame.display.get_desktop_sizes()
    except pygame.error:
        desktops = []
    return window_size_for(desktops[0] if desktops else None)


def text_scale(size: tuple[int, int]) -> float:
    """How much the theme's text grows with the window (never below readable)."""
    return round(max(0.85, ui_scale(size)), 2)


HEADLESS_DRIVERS = ("offscreen", "dummy")
"""Video drivers SDL falls back to where there is no display."""


def check_display() -> None:
    """Refuse to run a window nobody can see, unless such a driver was asked for.

    Raises:
        NoDisplay: SDL found no display and fell back to a headless driver.
    """
    if os.environ.get("SDL_VIDEODRIVER") or pygame.display.get_driver() not in HEADLESS_DRIVERS:
        return
    pygame.display.quit()
    raise NoDisplay("there is no display to open the window on (no DISPLAY or WAYLAND_DISPLAY "
                    "here): play in the terminal with `csl-game match` or `csl-game session`, "
                    "or set SDL_VIDEODRIVER=offscreen to run the window unseen")
