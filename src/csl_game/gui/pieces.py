"""Piece art, drawn in code: four kinds that read at a glance.

White pieces are light with a dark outline, red pieces darker with a light
outline, so colour shows as lightness and outline, not hue alone; round and
square differ in silhouette and in the inner bevel. Pieces are drawn at four
times their size and smooth-scaled down, which anti-aliases every edge, and
each (kind, size, look) is drawn once and cached.
"""

from __future__ import annotations

from enum import Enum

import pygame

from csl_game.gui.style import PieceColors, piece_colors
from csl_game.model.board import PColor, Piece, PShape

__all__ = ["Look", "PieceArt", "draw_piece_shape"]

_SUPERSAMPLE = 4


class Look(Enum):
    """Variants of a piece image."""

    NORMAL = "normal"
    GHOST = "ghost"
    """Where a piece would land: see-through."""
    DISABLED = "disabled"
    """A shape the player has no pieces of: grey and faint."""


def draw_piece_shape(surface: pygame.Surface, rect: pygame.Rect, shape: PShape,
                     color: pygame.Color | tuple[int, ...], width: int = 0) -> None:
    """A round or rounded-square silhouette filling `rect` (aliased)."""
    if shape is PShape.ROUND:
        pygame.draw.ellipse(surface, color, rect, width)
    else:
        radius = max(1, rect.w * 16 // 100)
        pygame.draw.rect(surface, color, rect, width, border_radius=radius)


def _paint(size: int, shape: PShape, colors: PieceColors) -> pygame.Surface:
    big = size * _SUPERSAMPLE
    surf = pygame.Surface((big, big), pygame.SRCALPHA)
    # transparent pixels carry the outline's colour so smoothscale blends edges cleanly
    surf.fill((*colors.outline[:3], 0))
    full = surf.get_rect()
    draw_piece_shape(surf, full, shape, colors.outline)
    edge = max(_SUPERSAMPLE, big * 7 // 100)
    body = full.inflate(-2 * edge, -2 * edge)
    draw_piece_shape(surf, body, shape, colors.shade)
    top = body.inflate(-big * 6 // 100, -big * 6 // 100)
    top.move_ip(-big // 60, -big // 60)
    draw_piece_shape(surf, top, shape, colors.fill)
    inner = body.inflate(-big * 34 // 100, -big * 34 // 100)
    draw_piece_shape(surf, inner, shape, colors.shade, max(_SUPERSAMPLE, big * 3 // 100))
    _shine(surf, top)
    return pygame.transform.smoothscale(surf, (size, size))


def _shine(surf: pygame.Surface, top: pygame.Rect) -> None:
    glare = pygame.Surface(surf.get_size(), pygame.SRCALPHA)
    spot = pygame.Rect(0, 0, top.w * 36 // 100, top.h * 20 // 100)
    spot.center = (top.x + top.w * 36 // 100, top.y + top.h * 20 // 100)
    pygame.draw.ellipse(glare, (255, 255, 255, 70), spot)
    surf.blit(glare, (0, 0))


class PieceArt:
    """Cached piece images by colour, shape, size and look."""

    def __init__(self) -> None:
        self._cache: dict[tuple[PColor, PShape, int, Look], pygame.Surface] = {}

    def image(self, color: PColor, shape: PShape, size: int,
              look: Look = Look.NORMAL) -> pygame.Surface:
        """A `size` x `size` image of the piece, transparent around it."""
        key = (PColor(color), PShape(shape), max(2, size), look)
        surf = self._cache.get(key)
        if surf is None:
            if len(self._cache) > 256:  # sizes pile up while a window is dragged
                self._cache.clear()
            surf = self._make(*key)
            self._cache[key] = surf
        return surf

    def piece(self, piece: Piece, size: int, look: Look = Look.NORMAL) -> pygame.Surface:
        return self.image(piece.color, piece.shape, size, look)

    def _make(self, color: PColor, shape: PShape, size: int, look: Look) -> pygame.Surface:
        if look is Look.NORMAL:
            return _paint(size, shape, piece_colors(color))
        base = self.image(color, shape, size).copy()
        if look is Look.DISABLED:
            base = pygame.transform.grayscale(base)
            base.set_alpha(70)
        else:
            base.set_alpha(120)
        return base

    def clear(self) -> None:
        """Forget every image (e.g. after the window was resized)."""
        self._cache.clear()
