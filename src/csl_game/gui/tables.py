"""Standings and results as tables that scroll when long.

Cells carry an object ID of assets/theme.json: the winner of a match is bold
in the winner's colour (``#cell_white``, ``#cell_red``), draws are grey
(``#cell_dim``). The rows are painted, in those styles, into one image inside
a scrolling container: a label per cell would take about a second to build
for a tournament of ten. A table given `on_open` has rows to open: a click on
a row opens it, and with the keyboard's focus (a ring round the row picked)
Up and Down pick a row and Enter or Space opens it (gui/keys.py TABLE_KEYS).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import pygame
from pygame import Rect
from pygame_gui.elements import UIImage, UIPanel, UIScrollingContainer

from csl_game.engine import MatchRecord, Standing, in_table_order
from csl_game.gui.assets import load_theme
from csl_game.gui.keys import TABLE_KEYS
from csl_game.gui.style import TextCache, theme_name
from csl_game.gui.widgets import Metrics, label
from csl_game.model.board import PColor
from csl_game.services.narration import how_it_ended

__all__ = ["Column", "Cell", "CellStyle", "cell_style", "paint_rows", "Table", "fixture_rows",
           "fixtures_table", "column_widths",
           "standings_rows", "result_rows", "standings_table", "results_table"]

Cell = tuple[str, str]
"""Text and the object ID that styles it."""

SCROLL_BAR = 20


@dataclass(frozen=True)
class Column:
    """A column: a fixed width (pixels at scale 1), or 0 to share what is left."""

    header: str
    width: int = 0
    numeric: bool = False


def column_widths(columns: Sequence[Column], total: int, scale: float) -> list[int]:
    fixed = [round(c.width * scale) for c in columns]
    flexible = [i for i, c in enumerate(columns) if c.width == 0]
    left = max(0, total - sum(fixed))
    for i in flexible:
        fixed[i] = left // len(flexible)
    return fixed


@dataclass(frozen=True)
class CellStyle:
    """How the theme styles a cell's object ID."""

    color: pygame.Color
    size: int
    bold: bool
    right: bool


def cell_style(object_id: str) -> CellStyle:
    """How the current theme styles a cell of `object_id`."""
    return _cell_style(object_id, theme_name())


@cache
def _cell_style(object_id: str, name: str) -> CellStyle:
    theme = load_theme(name)
    block = theme.get(object_id, {})
    font = {**theme["defaults"]["font"], **block.get("font", {})}
    color = block.get("colours", {}).get("normal_text", theme["defaults"]["colours"]
                                         ["normal_text"])
    right = block.get("misc", {}).get("text_horiz_alignment") == "right"
    return CellStyle(pygame.Color(color), int(font["size"]), font.get("bold") == "1", right)


def paint_rows(rows: Sequence[Sequence[Cell]], widths: Sequence[int], line: int, pad: int,
               text: TextCache, scale: float = 1.0) -> pygame.Surface:
    """The rows as one transparent image, each cell in its theme style (text sizes times `scale`)."""
    surf = pygame.Surface((max(1, sum(widths)), max(1, len(rows) * line)), pygame.SRCALPHA)
    for r, row in enumerate(rows):
        x = 0
        for (value, object_id), w in zip(row, widths):
            style = cell_style(object_id)
            image = text.fit(value, max(9, round(style.size * scale)), style.color,
                             w - 2 * pad, style.bold)
            y = r * line + (line - image.get_height()) // 2
            surf.blit(image, (x + w - pad - image.get_width() if style.right else x + pad, y))
            x += w
    return surf


class Table:
    """A titled table on a panel in `rect`: a header row, then rows that scroll;
    with `on_open`, rows that open (`on_open(row)`, the row from 0)."""

    def __init__(self, rect: Rect, title: str, columns: Sequence[Column],
                 rows: Sequence[Sequence[Cell]], container: Any, m: Metrics,
                 text: TextCache, on_open: Callable[[int], None] | None = None) -> None:
        self.rect = rect
        self.rows = list(rows)
        self.on_open = on_open
        self.picked = 0
        """The row the keyboard picked (the focus ring goes round it)."""
        panel = UIPanel(rect, manager=container.ui_manager, container=container,
                        object_id="#table")
        self.panel = panel
        inner = Rect(m.gap, m.gap // 2, rect.w - 2 * m.gap, rect.h - m.gap)
        line = m.row - 4
        self.line = line
        label(Rect(inner.x, inner.y, inner.w, m.row), title, panel, "#heading")
        widths = column_widths(columns, inner.w - SCROLL_BAR, m.scale)
        pad = max(3, round(5 * m.scale))
        head_y = inner.y + m.row
        x = inner.x
        for column, w in zip(columns, widths):
            label(Rect(x + pad, head_y, w - 2 * pad, line), column.header, panel,
                  "#cell_head_num" if column.numeric else "#cell_head")
            x += w
        body = Rect(inner.x, head_y + line, inner.w, max(line, inner.bottom - head_y - line))
        self.body = body.move(panel.rect.topleft)
        """Where the rows are shown, on the screen."""
        image = paint_rows(rows, widths, line, pad, text, m.scale)
        self.scroller: UIScrollingContainer | None = None
        if image.get_height() <= body.h:  # a scrolling container is dear to build
            UIImage(Rect(body.topleft, image.get_size()), image, container.ui_manager,
                    container=panel)
            return
        self.scroller = UIScrollingContainer(body, container.ui_manager, container=panel,
                                             allow_scroll_x=False, object_id="#table_body")
        self.scroller.set_scrollable_area_dimensions((body.w - SCROLL_BAR, len(rows) * line))
        UIImage(Rect((0, 0), image.get_size()), image, container.ui_manager,
                container=self.scroller)


    # ------------------------------------------------------------- rows to open
    @property
    def visible(self) -> bool:
        return bool(self.panel.visible) and self.on_open is not None and bool(self.rows)

    @property
    def is_enabled(self) -> bool:
        return self.visible

    def row_rect(self, row: int) -> Rect:
        """Where row `row` is on the screen (scrolled out of view: outside the body)."""
        top = (self.scroller.scrollable_container.rect.top if self.scroller is not None
               else self.body.top)
        width = self.body.w - (SCROLL_BAR if self.scroller is not None else 0)
        return Rect(self.body.x, top + row * self.line, width, self.line)

    @property
    def focus_area(self) -> Rect:
        """Where the focus ring goes: round the row picked."""
        return self.row_rect(self.picked).clip(self.body)

    def row_at(self, pos: tuple[int, int]) -> int | None:
        """The row under a point of the screen, if any."""
        if not self.body.collidepoint(pos):
            return None
        row = (pos[1] - self.row_rect(0).top) // self.line
        return row if 0 <= row < len(self.rows) else None

    def pick(self, row: int) -> None:
        """Pick row `row` (within the rows), scrolled into view."""
        self.picked = max(0, min(len(self.rows) - 1, row))
        bar = self.scroller.vert_scroll_bar if self.scroller is not None else None
        if bar is None:
            return
        total = max(1, len(self.rows) * self.line)
        start, shown = bar.start_percentage, self.body.h / total
        top, bottom = self.picked * self.line / total, (self.picked + 1) * self.line / total
        if top < start:
            bar.set_scroll_from_start_percentage(top)
        elif bottom > start + shown:
            bar.set_scroll_from_start_percentage(bottom - shown)

    def open(self, row: int | None = None) -> None:
        if self.on_open is not None and self.rows:
            self.on_open(self.picked if row is None else row)

    def handle_click(self, event: pygame.event.Event) -> bool:
        """A click on a row opens it; returns whether one did."""
        if (event.type != pygame.MOUSEBUTTONUP or event.button != 1 or not self.visible):
            return False
        row = self.row_at(event.pos)
        if row is None:
            return False
        self.picked = row
        self.open(row)
        return True

    def handle_key(self, event: pygame.event.Event) -> bool:
        """The keys of TABLE_KEYS, while the table has the focus; whether one was used."""
        action = TABLE_KEYS.action(event)
        page = max(1, self.body.h // self.line - 1)
        steps = {"up": -1, "down": 1, "page_up": -page, "page_down": page,
                 "first": -len(self.rows), "last": len(self.rows)}
        if action in steps:
            self.pick(self.picked + steps[action])
            return True
        if action == "open":
            self.open()
            return True
        return False


STANDINGS = (Column("#", 40, True), Column("Player"), Column("Pts", 52, True),
             Column("W", 40, True), Column("D", 40, True), Column("L", 40, True))
RESULTS = (Column("#", 40, True), Column("White"), Column("Red"), Column("Winner", 86),
           Column("How", 110))
FIXTURES = (Column("#", 40, True), Column("White"), Column("Red"))


def standings_rows(table: Sequence[Standing]) -> list[list[Cell]]:
    """One row per player: position (shared by equal points), name, points, W/D/L;
    players sharing a position listed by the names shown (`in_table_order`)."""
    return [[(f"{s.position}.", "#cell_num"), (s.name, "#cell"), (str(s.points), "#cell_bold"),
             (str(s.wins), "#cell_num"), (str(s.draws), "#cell_num"),
             (str(s.losses), "#cell_num")] for s in in_table_order(table)]


def result_rows(names: Sequence[str], records: Sequence[MatchRecord],
                numbers: Sequence[int] | None = None, cells: int | None = None
                ) -> list[list[Cell]]:
    """One row per match: its number (`numbers`, else 1, 2, ...), the winner
    bold in its colour, draws grey, and how it ended (`cells`: the board's
    rows x columns, which tells a full board from pieces running out)."""
    rows = []
    for i, rec in zip(numbers or range(1, len(records) + 1), records):
        color = rec.result.winner.color
        white, red = names[rec.white], names[rec.red]
        how = how_it_ended(rec.result, cells)
        if color is None:
            rows.append([(f"{i}", "#cell_dim_num"), (white, "#cell_dim"), (red, "#cell_dim"),
                         ("Draw", "#cell_dim"), (how, "#cell_dim")])
            continue
        won = "#cell_white" if color is PColor.WHITE else "#cell_red"
        rows.append([(f"{i}", "#cell_num"),
                     (white, won if color is PColor.WHITE else "#cell"),
                     (red, won if color is PColor.RED else "#cell"),
                     (str(color), won), (how, "#cell_dim" if rec.result.solution else "#cell")])
    return rows


def fixture_rows(names: Sequence[str], pairings: Sequence[tuple[int, int]]) -> list[list[Cell]]:
    """One row per match to play: its number, White and Red."""
    return [[(f"{i}", "#cell_num"), (names[w], "#cell"), (names[r], "#cell")]
            for i, (w, r) in enumerate(pairings, 1)]


def standings_table(rect: Rect, table: Sequence[Standing], container: Any, m: Metrics,
                    text: TextCache, title: str = "Standings") -> Table:
    return Table(rect, title, STANDINGS, standings_rows(table), container, m, text)


def results_table(rect: Rect, names: Sequence[str], records: Sequence[tuple[int, MatchRecord]],
                  container: Any, m: Metrics, text: TextCache,
                  title: str = "Results", cells: int | None = None,
                  on_open: Callable[[int], None] | None = None) -> Table:
    """The results of `records`, (match index from 0, record) pairs, in that order;
    with `on_open`, a row opens that match (`on_open(index)`, its index from 0)."""
    rows = result_rows(names, [r for _, r in records], [i + 1 for i, _ in records], cells)
    opened = None if on_open is None else (lambda row: on_open(records[row][0]))
    return Table(rect, title, RESULTS, rows, container, m, text, opened)


def fixtures_table(rect: Rect, names: Sequence[str], pairings: Sequence[tuple[int, int]],
                   container: Any, m: Metrics, text: TextCache,
                   title: str = "Matches to play") -> Table:
    """Every match of a tournament, in the order they are played."""
    return Table(rect, title, FIXTURES, fixture_rows(names, pairings), container, m, text)
