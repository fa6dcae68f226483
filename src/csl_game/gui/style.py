"""Colours, fonts and cached text for the scenes.

Colours come from the ``#match_scene`` block of assets/theme.json (the same
file pygame_gui widgets are themed with); font files from assets/fonts.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from enum import Enum
from functools import cache

import pygame

from csl_game.gui.assets import asset_path, load_theme
from csl_game.model.board import PColor

__all__ = ["Palette", "palette", "TextRole", "Fonts", "TextCache", "piece_colors", "backdrop",
           "set_theme", "theme_name"]

_theme = ["default"]


class Palette:
    """Named colours of the board scene, read from the theme."""

    def __init__(self, colours: dict[str, str]) -> None:
        self._colours = {name: pygame.Color(value) for name, value in colours.items()}

    def __getattr__(self, name: str) -> pygame.Color:
        try:
            return self._colours[name]
        except KeyError:
            raise AttributeError(f"the theme has no colour '{name}'") from None

    def __getitem__(self, name: str) -> pygame.Color:
        return self._colours[name]


def set_theme(name: str) -> None:
    """Paint with theme `name` from now on (see assets.THEMES).

    Raises:
        ValueError: no theme has that name.
    """
    load_theme(name)
    _theme[0] = name
    palette.cache_clear()


def theme_name() -> str:
    """The theme painted with."""
    return _theme[0]


@cache
def palette() -> Palette:
    """The board scene's colours in the current theme (loaded once per theme)."""
    return Palette(load_theme(_theme[0])["#match_scene"]["colours"])


@dataclass(frozen=True)
class PieceColors:
    """How a piece of one colour is painted."""

    fill: pygame.Color
    shade: pygame.Color
    outline: pygame.Color


def backdrop(size: tuple[int, int]) -> pygame.Surface:
    """The screens' vertical gradient (theme colours), a new surface of `size`.

    One pixel column is shaded and stretched: a row at a time would cost a
    frame's worth of time at full HD, when a screen appears.
    """
    pal = palette()
    w, h = max(1, size[0]), max(1, size[1])
    strip = pygame.Surface((1, h))
    for y in range(h):
        strip.set_at((0, y), pal.background.lerp(pal.background_low, y / max(1, h - 1)))
    surf = pygame.transform.scale(strip, (w, h))
    return surf.convert() if pygame.display.get_surface() else surf


def piece_colors(color: PColor) -> PieceColors:
    """The fill, shade and outline of `color`'s pieces."""
    key = "white" if color is PColor.WHITE else "red"
    pal = palette()
    return PieceColors(pal[f"{key}_fill"], pal[f"{key}_shade"], pal[f"{key}_outline"])


class TextRole(Enum):
    """What a piece of text is for: (base size in px at scale 1, bold, minimum)."""

    TITLE = (20, True, 14)
    BODY = (15, False, 12)
    SMALL = (13, False, 11)
    LOG = (14, False, 11)
    BANNER = (30, True, 18)
    LABEL = (13, True, 9)

    def size(self, scale: float) -> int:
        base, _, minimum = self.value
        return max(minimum, round(base * scale))

    @property
    def bold(self) -> bool:
        return bool(self.value[1])


class Fonts:
    """DejaVu Sans at any size, loaded once per (size, weight)."""

    def __init__(self) -> None:
        self._fonts: dict[tuple[int, bool], pygame.font.Font] = {}

    def get(self, size: int, bold: bool = False) -> pygame.font.Font:
        key = (size, bold)
        if key not in self._fonts:
            name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
            self._fonts[key] = pygame.font.Font(asset_path("fonts", name), size)
        return self._fonts[key]

    def role(self, role: TextRole, scale: float) -> pygame.font.Font:
        return self.get(role.size(scale), role.bold)


class TextCache:
    """Rendered text surfaces, reused while the same text is shown (LRU)."""

    def __init__(self, fonts: Fonts, capacity: int = 512) -> None:
        self.fonts = fonts
        self._capacity = capacity
        self._cache: OrderedDict[tuple[object, ...], pygame.Surface] = OrderedDict()

    def render(self, text: str, size: int, color: pygame.Color | tuple[int, ...],
               bold: bool = False) -> pygame.Surface:
        """`text` anti-aliased in `color`, on a transparent background."""
        key = (text, size, tuple(color), bold)
        surf = self._cache.get(key)
        if surf is None:
            surf = self.fonts.get(size, bold).render(text, True, color)
            self._cache[key] = surf
            if len(self._cache) > self._capacity:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return surf

    def fit(self, text: str, size: int, color: pygame.Color | tuple[int, ...],
            width: int, bold: bool = False) -> pygame.Surface:
        """Like render(), shortened with an ellipsis to at most `width` pixels."""
        font = self.fonts.get(size, bold)
        if font.size(text)[0] <= width:
            return self.render(text, size, color, bold)
        lo, hi = 0, len(text)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if font.size(text[:mid] + "…")[0] <= width:
                lo = mid
            else:
                hi = mid - 1
        return self.render(text[:lo].rstrip() + "…", size, color, bold)
