"""Where everything goes, from the board size and the window size alone.

`compute_layout()` is pure: it tries three arrangements (player panels on
both sides, panels on top, or one sidebar holding panels and log) and keeps
the one that gives the board the largest cells.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum

from pygame import Rect

from csl_game.gui.style import TextRole
from csl_game.model.board import PShape

__all__ = ["Arrangement", "PanelLayout", "BoardLayout", "compute_layout", "ui_scale",
           "window_size_for", "MIN_SIZE", "at_least_minimum"]

# Board geometry in cell units.
ARROW = 0.7          # height of the column-arrow row
ARROW_GAP = 0.15     # between arrows and the board's frame
PAD = 0.14           # frame around the cells (left, right, top)
GROUND = 0.32        # ground thickness under the cells
OVERHANG = 0.22      # ground sticking out past the frame on each side
PIECE = 0.86         # piece size as a fraction of the cell
DROP_HEIGHT = ARROW + ARROW_GAP + PAD - PIECE / 2
"""Cells above the top row where a falling piece's centre starts (its top at the arrows' top)."""

WIDTH_UNITS = 2 * PAD + 2 * OVERHANG
HEIGHT_UNITS = ARROW + ARROW_GAP + PAD + GROUND


class Arrangement(Enum):
    SIDES = "panels left and right, log below"
    TOP = "panels on top, log below"
    SIDEBAR = "panels and log in a right sidebar"


def ui_scale(size: tuple[int, int]) -> float:
    """How big text and panels are: 1.0 at 1280x800, between 0.7 and 2.0."""
    w, h = size
    return max(0.7, min(2.0, w / 1280, h / 800))


MIN_SIZE = (800, 600)
"""The smallest window every screen is whole in (the window tells the window
manager so, and a smaller size that comes anyway is taken as this one)."""


def at_least_minimum(size: tuple[int, int]) -> tuple[int, int]:
    """`size`, grown to the minimum window size where it is smaller."""
    return max(size[0], MIN_SIZE[0]), max(size[1], MIN_SIZE[1])


def window_size_for(desktop: tuple[int, int] | None) -> tuple[int, int]:
    """The first window size on a desktop of size `desktop`: 1280x800 where it
    fits with room for a title bar and a task bar, smaller on small screens
    (never below the minimum size but on a desktop smaller still), larger
    (three fifths of the desktop) on big ones; never the desktop's whole size."""
    if desktop is None:
        return 1280, 800
    w, h = desktop
    fit = (min(int(w * 0.92), max(1280, int(w * 0.6))),
           min(int(h * 0.88), max(800, int(h * 0.6))))
    return min(at_least_minimum(fit)[0], w), min(at_least_minimum(fit)[1], h)


def _line(role: TextRole, scale: float) -> int:
    return round(role.size(scale) * 1.35)


@dataclass(frozen=True)
class PanelLayout:
    """A player panel: title, colour label, two shape toggles, status line."""

    rect: Rect
    title: Rect
    subtitle: Rect
    toggles: tuple[Rect, Rect]
    """Indexed by PShape."""
    status: Rect

    def toggle_at(self, pos: tuple[int, int]) -> PShape | None:
        for shape in PShape:
            if self.toggles[shape].collidepoint(pos):
                return shape
        return None

    def parts(self) -> list[Rect]:
        return [self.title, self.subtitle, *self.toggles, self.status]


def _panel_tall(rect: Rect, s: float) -> PanelLayout:
    pad, gap = round(10 * s), round(8 * s)
    title_h, body_h = _line(TextRole.TITLE, s), _line(TextRole.BODY, s)
    inner = rect.inflate(-2 * pad, -2 * pad)
    title = Rect(inner.x, inner.y, inner.w, title_h)
    subtitle = Rect(inner.x, title.bottom, inner.w, body_h)
    toggle_w = (inner.w - gap) // 2
    toggle_y = subtitle.bottom + gap
    toggle_h = round(74 * s)
    toggles = (Rect(inner.x, toggle_y, toggle_w, toggle_h),
               Rect(inner.right - toggle_w, toggle_y, toggle_w, toggle_h))
    status = Rect(inner.x, toggle_y + toggle_h + gap, inner.w, body_h + round(8 * s))
    return PanelLayout(rect, title, subtitle, toggles, status)


def tall_panel_height(s: float) -> int:
    pad, gap = round(10 * s), round(8 * s)
    body_h = _line(TextRole.BODY, s)
    return (2 * pad + _line(TextRole.TITLE, s) + body_h + 2 * gap + round(74 * s)
            + body_h + round(8 * s))


def _panel_wide(rect: Rect, s: float) -> PanelLayout:
    pad, gap = round(10 * s), round(8 * s)
    title_h = _line(TextRole.TITLE, s)
    inner = rect.inflate(-2 * pad, -2 * pad)
    title = Rect(inner.x, inner.y, inner.w * 3 // 5, title_h)
    subtitle = Rect(title.right + gap, inner.y, inner.right - title.right - gap, title_h)
    toggle_w = round(112 * s)
    toggle_y = title.bottom + round(6 * s)
    toggle_h = inner.bottom - toggle_y
    toggles = (Rect(inner.x, toggle_y, toggle_w, toggle_h),
               Rect(inner.x + toggle_w + gap, toggle_y, toggle_w, toggle_h))
    status_x = toggles[1].right + gap
    status = Rect(status_x, toggle_y, inner.right - status_x, toggle_h)
    return PanelLayout(rect, title, subtitle, toggles, status)


def wide_panel_height(s: float) -> int:
    return 2 * round(10 * s) + _line(TextRole.TITLE, s) + round(6 * s) + round(58 * s)


@dataclass(frozen=True)
class BoardLayout:
    """Every rectangle of the board scene, for one board size and window size."""

    size: tuple[int, int]
    rows: int
    cols: int
    scale: float
    arrangement: Arrangement
    cell: int
    cells: Rect
    """The area of the cells (rows x cols squares of `cell` pixels)."""
    frame: Rect
    ground: Rect
    arrows: tuple[Rect, ...]
    panels: tuple[PanelLayout, PanelLayout]
    """Indexed by PColor."""
    log: Rect
    toolbar: Rect
    """The row of buttons above the log (hint, undo, resign, menu)."""
    banner: Rect
    """Where results are announced: beside the board, or over its upper third."""
    banner_low: Rect
    """The same, or over the lower third for when the win line is up high."""
    area: Rect = field(default_factory=lambda: Rect(0, 0, 0, 0))
    """What the board may take: the window less the panels and the log (a
    result banner stays within its width, clear of the panels)."""

    @property
    def piece(self) -> int:
        """Side (or diameter) of a piece in pixels."""
        return max(2, round(self.cell * PIECE))


    def cell_rect(self, row: int, col: int) -> Rect:
        """The square of a cell; row 0 is the bottom row."""
        c = self.cell
        return Rect(self.cells.x + col * c, self.cells.bottom - (row + 1) * c, c, c)

    def piece_rect(self, row: int, col: int) -> Rect:
        r = Rect(0, 0, self.piece, self.piece)
        r.center = self.cell_rect(row, col).center
        return r

    def column_rect(self, col: int) -> Rect:
        """The clickable column: its arrow and all its cells."""
        arrow = self.arrows[col]
        return Rect(arrow.x, arrow.y, arrow.w, self.cells.bottom - arrow.y)

    def column_at(self, pos: tuple[int, int]) -> int | None:
        """The column under a point (on its arrow or its cells), or None."""
        x, y = pos
        if not self.arrows[0].top <= y < self.cells.bottom:
            return None
        if not self.cells.left <= x < self.cells.right:
            return None
        return (x - self.cells.left) // self.cell

    @property
    def board_region(self) -> Rect:
        """Everything the board view draws on: frame, ground, arrows, banners."""
        region = self.frame.unionall([self.ground, *self.arrows, self.banner, self.banner_low])
        return region.inflate(4, 4).clip(Rect(0, 0, *self.size))

    def all_rects(self) -> list[Rect]:
        """Everything drawn, for checks that it fits the window."""
        rects = [self.frame, self.ground, *self.arrows, self.log, self.toolbar, self.banner,
                 self.banner_low]
        for panel in self.panels:
            rects += [panel.rect, *panel.parts()]
        return rects


def _board_area_sides(size: tuple[int, int], s: float) -> tuple[Rect, list[Rect], Rect]:
    w, h = size
    m, pw = round(12 * s), round(220 * s)
    log_h = _log_height(s)
    ph = tall_panel_height(s)
    panels = [Rect(m, m, pw, ph), Rect(w - m - pw, m, pw, ph)]
    log = Rect(m, h - m - log_h, w - 2 * m, log_h)
    area = Rect(2 * m + pw, m, w - 4 * m - 2 * pw, log.top - 2 * m)
    return area, panels, log


def _board_area_top(size: tuple[int, int], s: float) -> tuple[Rect, list[Rect], Rect]:
    w, h = size
    m = round(12 * s)
    ph = wide_panel_height(s)
    pw = (w - 3 * m) // 2
    panels = [Rect(m, m, pw, ph), Rect(w - m - pw, m, pw, ph)]
    log_h = _log_height(s)
    log = Rect(m, h - m - log_h, w - 2 * m, log_h)
    area = Rect(m, 2 * m + ph, w - 2 * m, log.top - 3 * m - ph)
    return area, panels, log


SIDEBAR_WIDEST = 1.6
"""How much wider than its own the sidebar grows into width the board leaves
(a wide window whose height sets the board: no empty band beside it)."""


def _board_area_sidebar(size: tuple[int, int], s: float,
                        wider: int = 0) -> tuple[Rect, list[Rect], Rect]:
    """The sidebar arrangement; `wider`: pixels the sidebar takes beyond its own."""
    w, h = size
    m, pw = round(12 * s), round(270 * s) + wider
    ph = tall_panel_height(s)
    x = w - m - pw
    panels = [Rect(x, m, pw, ph), Rect(x, 2 * m + ph, pw, ph)]
    log_top = panels[1].bottom + m
    log = Rect(x, log_top, pw, h - m - log_top)
    area = Rect(m, m, x - 2 * m, h - 2 * m)
    return area, panels, log


def toolbar_height(s: float) -> int:
    return max(24, round(30 * s))


def _log_height(s: float) -> int:
    """The log's height with the toolbar above it."""
    return 5 * _line(TextRole.LOG, s) + 2 * round(8 * s) + toolbar_height(s) + round(6 * s)


TWO_ROW_TOOLBAR = 290
"""Below this width (at scale 1) the toolbar takes two rows: one row of five
buttons there would show bare symbols instead of their names."""


def _split_log(log: Rect, s: float) -> tuple[Rect, Rect]:
    """(toolbar, log): the toolbar takes the top of the log's area (two rows
    of buttons where the log is narrow)."""
    bar = toolbar_height(s)
    if log.w < round(TWO_ROW_TOOLBAR * s):
        bar = 2 * bar + max(2, round(4 * s))
    top = bar + round(6 * s)
    return Rect(log.x, log.y, log.w, bar), Rect(log.x, log.y + top, log.w, log.h - top)


_AREAS = {Arrangement.SIDES: _board_area_sides, Arrangement.TOP: _board_area_top,
          Arrangement.SIDEBAR: _board_area_sidebar}


def _cell_size(area: Rect, rows: int, cols: int, s: float) -> int:
    by_width = area.w / (cols + WIDTH_UNITS)
    by_height = area.h / (rows + HEIGHT_UNITS)
    return max(0, min(int(by_width), int(by_height), round(130 * s)))


def _board_rects(area: Rect, rows: int, cols: int, c: int
                 ) -> tuple[Rect, Rect, Rect, tuple[Rect, ...]]:
    total_h = round((rows + HEIGHT_UNITS) * c)
    top = area.y + (area.h - total_h) // 2
    cells = Rect(0, 0, cols * c, rows * c)
    cells.centerx = area.centerx
    arrow_h = round(ARROW * c)
    cells.top = top + arrow_h + round((ARROW_GAP + PAD) * c)
    pad = round(PAD * c)
    frame = Rect(cells.x - pad, cells.y - pad, cells.w + 2 * pad, cells.h + pad)
    overhang = round(OVERHANG * c)
    ground = Rect(frame.x - overhang, cells.bottom, frame.w + 2 * overhang,
                  max(2, round(GROUND * c)))
    arrows = tuple(Rect(cells.x + i * c, top, c, arrow_h) for i in range(cols))
    return cells, frame, ground, arrows


def _banners(area: Rect, frame: Rect, ground: Rect, size: tuple[int, int],
             s: float) -> tuple[Rect, Rect]:
    """Where to announce results: in free space by the board if there is
    room (the arrows count as free then), else over its upper or lower third;
    never wider than the board's area (the panels beside it stay in view)."""
    height = round(TextRole.BANNER.size(s) * 2.1)
    width = min(area.w, max(frame.w, round(420 * s)))
    banner = Rect(0, 0, width, height)
    banner.centerx = frame.centerx
    banner.x = max(area.x, min(banner.x, area.right - width))
    if frame.top - area.top >= height:
        banner.centery = (area.top + frame.top) // 2
        return banner, banner
    if area.bottom - ground.bottom >= height:
        banner.centery = (ground.bottom + area.bottom) // 2
        return banner, banner
    low = banner.copy()
    banner.centery = frame.y + frame.h // 3
    low.centery = frame.y + frame.h * 2 // 3
    return banner, low


def compute_layout(rows: int, cols: int, size: tuple[int, int],
                   arrangement: Arrangement | None = None) -> BoardLayout:
    """The layout giving the biggest cells (or the one asked for)."""
    s = ui_scale(size)
    options = [arrangement] if arrangement else list(Arrangement)
    best: tuple[int, Arrangement, Rect, list[Rect], Rect] | None = None
    for arr in options:
        area, panel_rects, log = _AREAS[arr](size, s)
        if log.h < 3 * _line(TextRole.LOG, s) + toolbar_height(s):
            continue
        c = _cell_size(area, rows, cols, s)
        if best is None or c > best[0]:
            best = (c, arr, area, panel_rects, log)
    assert best is not None, "the side-panel arrangement always has a log"
    c, arr, area, panel_rects, log = best
    if arr is Arrangement.SIDEBAR:
        # the board's height sets its cells: width it leaves goes to the sidebar
        spare = area.w - math.ceil((cols + WIDTH_UNITS) * c) - round(24 * s)
        wider = max(0, min(spare, round(270 * s * (SIDEBAR_WIDEST - 1))))
        if wider:
            area, panel_rects, log = _board_area_sidebar(size, s, wider)
    toolbar, log = _split_log(log, s)
    cells, frame, ground, arrows = _board_rects(area, rows, cols, c)
    make_panel = _panel_wide if arr is Arrangement.TOP else _panel_tall
    panels = (make_panel(panel_rects[0], s), make_panel(panel_rects[1], s))
    return BoardLayout(size, rows, cols, s, arr, c, cells, frame, ground, arrows,
                       panels, log, toolbar, *_banners(area, frame, ground, size, s), area=area)
