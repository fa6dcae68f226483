"""The player panels and the message log beside the board.

Both keep a rendered surface and redraw it only when what they show changes;
per frame only the thinking spinner and clock are drawn on top.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import TextIO

import pygame

from csl_game.gui.columns import column_number
from csl_game.gui.layout import PanelLayout
from csl_game.gui.pieces import Look, PieceArt
from csl_game.gui.style import TextCache, TextRole, palette
from csl_game.model.board import PColor, PShape
from csl_game.services.narration import terminal_safe, who

__all__ = ["PanelState", "PlayerPanel", "MessageLog", "LogView", "wrap", "seconds_text",
           "placed_text", "TurnClock"]

_SPINNER_DOTS = 8


@dataclass(frozen=True)
class PanelState:
    """Everything a player panel shows, except the running clock."""

    color: PColor
    name: str
    is_human: bool
    counts: tuple[int, int]
    """Pieces left, indexed by PShape."""
    selected: PShape | None = None
    """The human's chosen shape (None for AIs)."""
    to_play: bool = False
    input_enabled: bool = False
    """Whether the toggles react to clicks now."""
    thinking: bool = False
    status: str = ""
    emphasis: bool = False
    """Show the status in the highlight colour (whose turn it is, who won)."""
    hover: PShape | None = None
    kind: str = ""
    """Who plays, beside the colour ("": Human or AI; online: 'Your friend')."""


class PlayerPanel:
    """Draws one player's panel: name, colour, shape toggles, status."""

    def __init__(self, art: PieceArt, text: TextCache) -> None:
        self.art = art
        self.text = text
        self._cache: tuple[tuple[object, ...], pygame.Surface] | None = None

    def draw(self, surface: pygame.Surface, lay: PanelLayout, state: PanelState,
             scale: float, thinking_s: float = 0.0) -> None:
        """Draw the panel; `thinking_s` feeds the clock while an AI thinks."""
        key = (lay, state, scale)
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, self._paint(lay, state, scale))
        surface.blit(self._cache[1], lay.rect)
        if state.thinking:
            self._draw_clock(surface, lay, scale, thinking_s)

    def forget(self) -> None:
        """Paint anew next time (the theme changed)."""
        self._cache = None

    @staticmethod
    def clock_key(seconds: float) -> tuple[str, int]:
        """Changes exactly when the thinking clock or spinner would look different."""
        return f"{seconds:.1f}", int(seconds * _SPINNER_DOTS) % _SPINNER_DOTS

    def _paint(self, lay: PanelLayout, st: PanelState, s: float) -> pygame.Surface:
        pal = palette()
        surf = pygame.Surface(lay.rect.size, pygame.SRCALPHA)
        local = surf.get_rect()
        radius = round(10 * s)
        pygame.draw.rect(surf, pal.panel, local, border_radius=radius)
        edge = pal.panel_turn if st.to_play else pal.panel_edge
        pygame.draw.rect(surf, edge, local, round((3 if st.to_play else 1) * s) or 1,
                         border_radius=radius)
        off = (-lay.rect.x, -lay.rect.y)
        title = lay.title.move(off)
        name = self.text.fit(st.name, TextRole.TITLE.size(s), pal.text, title.w, bold=True)
        surf.blit(name, name.get_rect(midleft=title.midleft))
        self._paint_subtitle(surf, lay.subtitle.move(off), st, s)
        for shape in PShape:
            self._paint_toggle(surf, lay.toggles[shape].move(off), st, shape, s)
        if not st.thinking and st.status:
            status = lay.status.move(off)
            color = pal.highlight if st.emphasis else pal.text_dim
            label = self.text.fit(st.status, TextRole.BODY.size(s), color, status.w,
                                  bold=st.emphasis)
            surf.blit(label, label.get_rect(midleft=status.midleft))
        return surf

    def _paint_subtitle(self, surf: pygame.Surface, rect: pygame.Rect, st: PanelState,
                        s: float) -> None:
        size = TextRole.BODY.size(s)
        icon = self.art.image(st.color, st.color.shape, max(6, round(size * 1.1)))
        surf.blit(icon, icon.get_rect(midleft=rect.midleft))
        kind = st.kind or ("Human" if st.is_human else "AI")
        x = rect.x + icon.get_width() + round(6 * s)
        label = self.text.fit(f"{st.color} · {kind}", size, palette().text_dim, rect.right - x)
        surf.blit(label, label.get_rect(midleft=(x, rect.centery)))

    def _paint_toggle(self, surf: pygame.Surface, rect: pygame.Rect, st: PanelState,
                      shape: PShape, s: float) -> None:
        pal = palette()
        count = st.counts[shape]
        enabled = count > 0
        selected = st.is_human and st.selected is shape and enabled
        hovered = st.input_enabled and st.hover is shape and enabled
        back = (pal.toggle_disabled if not enabled else
                pal.toggle_hover if hovered else pal.toggle)
        radius = round(8 * s)
        pygame.draw.rect(surf, back, rect, border_radius=radius)
        if selected:
            edge = pal.toggle_selected if st.to_play else pal.text_dim
            pygame.draw.rect(surf, edge, rect, max(2, round(3 * s)), border_radius=radius)
        label_size = TextRole.BODY.size(s)
        icon_size = max(8, min(rect.h - label_size - round(14 * s), rect.w // 2))
        look = Look.NORMAL if enabled else Look.DISABLED
        icon = self.art.image(st.color, shape, icon_size, look)
        text_color = pal.text if enabled else pal.text_disabled
        label = self.text.render(f"{shape} ×{count}", label_size, text_color)
        if label.get_width() > rect.w - 4:
            label = self.text.render(f"×{count}", label_size, text_color)
        gap = round(4 * s)
        top = rect.centery - (icon_size + gap + label.get_height()) // 2
        surf.blit(icon, icon.get_rect(midtop=(rect.centerx, top)))
        surf.blit(label, label.get_rect(midtop=(rect.centerx, top + icon_size + gap)))

    def _draw_clock(self, surface: pygame.Surface, lay: PanelLayout, s: float,
                    seconds: float) -> None:
        pal = palette()
        rect = lay.status
        radius = max(5, min(rect.h // 2 - 2, round(10 * s)))
        center = (rect.x + radius + 1, rect.centery)
        _spinner(surface, center, radius, seconds, pal.highlight)
        x = center[0] + radius + round(8 * s)
        text = self.text.fit(f"Thinking… {seconds_text(seconds)}", TextRole.BODY.size(s),
                             pal.highlight, rect.right - x)
        surface.blit(text, text.get_rect(midleft=(x, rect.centery)))


class TurnClock:
    """The time of the turn being played, as the panel shows it and the log
    tells it: it never runs back (the thinker's own reading of its answer may
    be a few ms below the last the panel showed), and it stops at the answer."""

    def __init__(self) -> None:
        self._peak = 0.0

    def reset(self) -> None:
        """A new turn begins."""
        self._peak = 0.0

    def shown(self, seconds: float) -> float:
        """What the panel shows when the turn has taken `seconds`."""
        self._peak = max(self._peak, seconds)
        return self._peak

    def told(self, seconds: float) -> float:
        """What the log tells of a move that took `seconds`: what the panel showed."""
        return max(self._peak, seconds)


def seconds_text(seconds: float) -> str:
    """'0.43 s', '12.5 s': a move's time as the panel's clock and the log both show it."""
    return f"{seconds:.2f} s" if seconds < 10 else f"{seconds:.1f} s"


def placed_text(color: PColor, name: str, shape: PShape, col: int, seconds: float,
                wall: float | None = None) -> str:
    """'Red (Hard) placed a round piece at column 4 after thinking for 0.43 s':
    the column `col` (from 0) as players count it (from 1: 3 is column 4), the
    time the panel's clock showed when the move came. With `wall` (a move
    timed on the CPU clock, between AIs), the CPU time it was charged, and the
    wall's too where a busy machine made it much longer: '... for 0.46 s of
    CPU time (1.58 s on the wall)'."""
    text = (f"{who(color, name)} placed a {PShape(shape)} piece at column "
            f"{column_number(col)} after thinking for {seconds_text(seconds)}")
    if wall is not None and wall - seconds >= max(0.1, seconds / 4):  # not a mere lag
        text += f" of CPU time ({seconds_text(wall)} on the wall)"
    return text


def _spinner(surface: pygame.Surface, center: tuple[int, int], radius: int,
             seconds: float, color: pygame.Color) -> None:
    """Eight dots on a circle, the brightest going round once a second."""
    dots = _SPINNER_DOTS
    lead = int(seconds * dots) % dots
    dot_r = max(1, radius // 4)
    for i in range(dots):
        angle = 2 * math.pi * i / dots - math.pi / 2
        x = center[0] + round((radius - dot_r) * math.cos(angle))
        y = center[1] + round((radius - dot_r) * math.sin(angle))
        fade = ((lead - i) % dots) / dots
        pygame.draw.circle(surface, color.lerp(palette().panel, min(1.0, fade * 1.1)),
                           (x, y), dot_r)


def wrap(text: str, font: pygame.font.Font, width: int) -> list[str]:
    """`text` broken into lines of at most `width` pixels, at spaces if possible."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        trial = f"{current} {word}" if current else word
        if font.size(trial)[0] <= width:
            current = trial
            continue
        if current:
            lines.append(current)
        while font.size(word)[0] > width and len(word) > 1:
            cut = max(1, len(word) * width // max(1, font.size(word)[0]))
            lines.append(word[:cut])
            word = word[cut:]
        current = word
    lines.append(current)
    return lines


class MessageLog:
    """The match messages; each is also printed to standard output at once."""

    def __init__(self, out: TextIO | None = None, keep: int = 200) -> None:
        self.lines: list[str] = []
        self.version = 0
        self._out = out
        self._keep = keep

    def clear(self) -> None:
        """A new session: the screen's log starts empty (standard output keeps all)."""
        self.lines.clear()
        self.version += 1

    def add(self, text: str, shown: bool = True) -> None:
        """Log one message (one line on standard output); `shown=False` keeps it
        off the screen's log (something else on screen shows it)."""
        line = " ".join(text.split("\n"))
        # a terminal would act on a name's controls (a right-to-left override
        # turning the rest of the line round, escape sequences): shown escaped
        print(terminal_safe(line), file=self._out or sys.stdout, flush=True)
        if not shown:
            return
        self.lines.append(line)
        del self.lines[:-self._keep]
        self.version += 1


def log_box(size: tuple[int, int], s: float) -> tuple[pygame.Surface, pygame.Rect]:
    """A see-through surface of `size` painted as the log's rounded box, and
    the area inside its padding: the log and the panels beside it share it."""
    pal = palette()
    surf = pygame.Surface(size, pygame.SRCALPHA)
    radius = round(8 * s)
    pygame.draw.rect(surf, pal.log, surf.get_rect(), border_radius=radius)
    pygame.draw.rect(surf, pal.log_edge, surf.get_rect(), 1, border_radius=radius)
    pad = round(8 * s)
    return surf, surf.get_rect().inflate(-2 * pad, -2 * pad)


class LogView:
    """Draws the newest log messages that fit, wrapped, newest at the bottom."""

    def __init__(self, text: TextCache) -> None:
        self.text = text
        self._cache: tuple[tuple[object, ...], pygame.Surface] | None = None
        self._wrapped: dict[tuple[str, int, int], list[str]] = {}

    def _wrap(self, line: str, font: pygame.font.Font, size: int, width: int) -> list[str]:
        key = (line, size, width)
        parts = self._wrapped.get(key)
        if parts is None:
            if len(self._wrapped) > 1000:
                self._wrapped.clear()
            parts = self._wrapped[key] = wrap(line, font, width)
        return parts

    def forget(self) -> None:
        """Paint anew next time (the theme changed)."""
        self._cache = None

    def draw(self, surface: pygame.Surface, rect: pygame.Rect, log: MessageLog,
             scale: float) -> None:
        key = (tuple(rect), id(log), log.version, scale)
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, self._paint(rect, log, scale))
        surface.blit(self._cache[1], rect)

    def _paint(self, rect: pygame.Rect, log: MessageLog, s: float) -> pygame.Surface:
        pal = palette()
        surf, inner = log_box(rect.size, s)
        size = TextRole.LOG.size(s)
        font = self.text.fonts.get(size)
        line_h = font.get_linesize()
        y = inner.bottom
        for index in range(len(log.lines) - 1, -1, -1):
            color = pal.log_latest if index == len(log.lines) - 1 else pal.log_text
            parts = self._wrap(log.lines[index], font, size, inner.w)
            y -= line_h * len(parts)
            for i, part in enumerate(parts):
                if y + i * line_h >= inner.top:
                    surf.blit(self.text.render(part, size, color), (inner.x, y + i * line_h))
            if y <= inner.top:
                break
        return surf
