"""People's clocks on a player panel, as a game server keeps them.

Each side's time left is drawn at the right of its panel's status line, as
lichess shows minutes and seconds (tenths under ten seconds): the side to
move's clock lit and ticking, a clock under ten seconds in the warning
colour, a clock at zero (a flag, as the server judges it) marked so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from csl_game.gui.style import TextCache, TextRole, palette

if TYPE_CHECKING:  # the server's package loads only when a server is played on
    from csl_game.server.clock import TimeControl

__all__ = ["clock_text", "control_text", "control_words", "game_clock_text", "draw_clock", "clock_box", "LOW_MS"]

LOW_MS = 10_000
"""Below this, a clock shows tenths and the warning colour."""


def clock_text(ms: int) -> str:
    """'4:59', '0:09.3', '1:02:05': a clock's time left as it is shown."""
    if ms < LOW_MS:
        return f"0:{ms / 1000:04.1f}"
    seconds = ms // 1000
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


def clock_box(text: TextCache, status: pygame.Rect, scale: float) -> pygame.Rect:
    """Where a clock is drawn: the right end of a panel's status line, as wide as
    the widest time it shows."""
    size = TextRole.TITLE.size(scale)
    width = text.fonts.get(size, True).size("00:00.0")[0] + round(12 * scale)
    height = min(status.h, text.fonts.get(size, True).get_linesize() + round(4 * scale))
    return pygame.Rect(status.right - width, status.centery - height // 2, width, height)


def draw_clock(surface: pygame.Surface, text: TextCache, status: pygame.Rect, ms: int,
               running: bool, scale: float) -> pygame.Rect:
    """Draw one side's clock at the right of `status`; returns where."""
    pal = palette()
    box = clock_box(text, status, scale)
    low = ms < LOW_MS
    back = pal.highlight if running else pal.toggle
    ink = pal.panel if running else (pal.grade_blunder if low else pal.text)
    if running and low:
        back, ink = pal.grade_blunder, pal.banner_text
    radius = max(3, round(6 * scale))
    pygame.draw.rect(surface, back, box, border_radius=radius)
    if not running:
        pygame.draw.rect(surface, pal.panel_edge, box, 1, border_radius=radius)
    shown = text.fit(clock_text(ms), TextRole.TITLE.size(scale), ink, box.w - 4, bold=True)
    surface.blit(shown, shown.get_rect(center=box.center))
    return box


def control_text(base_s: float, increment_s: float) -> str:
    """A time control as it is typed here and on lichess: '3+2' (minutes and
    seconds a move), '30s+0' (a base of seconds, not whole minutes)."""
    said = f"{base_s / 60:g}" if base_s % 60 == 0 else f"{base_s:g}s"
    return f"{said}+{increment_s:g}"


def control_words(control: TimeControl | None) -> str:
    """'clock 3+2', or 'no clock'."""
    return "no clock" if control is None else \
        f"clock {control_text(control.base_s, control.increment_s)}"


def game_clock_text(control: TimeControl | None, clock: tuple[int, int] | None) -> str:
    """The game's clock as lichess writes it, 'clock 3+2', and each side's time
    where it is no longer the base (a game in progress)."""
    if clock is None:
        return "no clock"
    if control is None:  # a server that does not tell its time control
        return f"{clock_text(max(clock))} on each clock"
    said = control_words(control)
    if clock != (round(control.base_s * 1000),) * 2:
        said += f" (White {clock_text(clock[0])}, Red {clock_text(clock[1])} left)"
    return said
