"""The operating system's window: its icon, its first size, how its text
scales, the refusal to open one nobody can see, and the silence of the C
libraries under it (SDL, ALSA) on standard error."""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import pygame

from csl_game.errors import NoDisplay
from csl_game.gui.layout import MIN_SIZE, ui_scale, window_size_for
from csl_game.gui.pieces import PieceArt
from csl_game.model.board import PColor, PShape

__all__ = ["icon", "first_size", "text_scale", "check_display", "HEADLESS_DRIVERS",
           "quiet_stderr", "open_display", "NO_DISPLAY", "declare_minimum_size",
           "minimum_size"]


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


def minimum_size() -> tuple[int, int]:
    """The smallest window every screen is whole in, or the desktop where it is smaller."""
    try:
        desktops = pygame.display.get_desktop_sizes()
    except pygame.error:
        desktops = []
    if not desktops:
        return MIN_SIZE
    w, h = desktops[0]
    return min(MIN_SIZE[0], w), min(MIN_SIZE[1], h)


def declare_minimum_size(size: tuple[int, int]) -> bool:
    """Tell the window manager the window's minimum size (pygame-ce's
    `Window.minimum_size`); whether that could be said."""
    try:
        with warnings.catch_warnings():  # the display module's window, as a Window
            warnings.simplefilter("ignore", DeprecationWarning)
            window = pygame.Window.from_display_module()
        window.minimum_size = size
    except (AttributeError, pygame.error, ValueError):  # an older pygame, or no window
        return False
    return True


def text_scale(size: tuple[int, int]) -> float:
    """How much the theme's text grows with the window (never below readable)."""
    return round(max(0.85, ui_scale(size)), 2)


HEADLESS_DRIVERS = ("offscreen", "dummy")
"""Video drivers SDL falls back to where there is no display."""


NO_DISPLAY = ("there is no display to open the window on (no DISPLAY or WAYLAND_DISPLAY "
              "here): play in the terminal with `csl-game match` or `csl-game session`, "
              "or set SDL_VIDEODRIVER=offscreen to run the window unseen")


@contextmanager
def quiet_stderr() -> Iterator[None]:
    """Send what C libraries write on standard error (file descriptor 2) nowhere
    meanwhile: ALSA's lines where there is no sound card, SDL's complaints while
    it looks for a display. Python's own messages are flushed first."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):  # no descriptor 2 to silence
        yield
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, 2)
        finally:
            os.close(devnull)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _no_desktop() -> bool:
    """No SDL driver asked for, on a system whose windows need an X11 or
    Wayland display, and neither is named."""
    if os.environ.get("SDL_VIDEODRIVER"):
        return False
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return False
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def open_display() -> None:
    """Start SDL's video (quietly) where a window can be seen.

    Raises:
        NoDisplay: there is no display, and no driver was asked for.
    """
    if _no_desktop():
        raise NoDisplay(NO_DISPLAY)  # before SDL says anything of its own
    with quiet_stderr():
        pygame.display.init()
    check_display()


def check_display() -> None:
    """Refuse to run a window nobody can see, unless such a driver was asked for.

    Raises:
        NoDisplay: SDL found no display and fell back to a headless driver.
    """
    if os.environ.get("SDL_VIDEODRIVER") or pygame.display.get_driver() not in HEADLESS_DRIVERS:
        return
    pygame.display.quit()
    raise NoDisplay(NO_DISPLAY)
