"""Watching a tournament broadcast in the window: the online board for the
match being played, and between matches the standings (gui/tables.py's
columns and cell styles, painted over the scene).

After a match, its result stays on the board for a while, then the
standings after it (gui/tourney_table.py holds what comes meanwhile). A
spectator that comes between matches sees the standings at once. At the
end the final standings stay; Esc opens the menu, whose Home leaves.
"""

from __future__ import annotations

import pygame

from csl_game.engine import MatchStarted
from csl_game.gui.context import GuiContext
from csl_game.gui.online_table import Happening, Notice
from csl_game.gui.scenes.online_board import OnlineBoardScene
from csl_game.gui.style import TextRole, backdrop, palette
from csl_game.gui.tables import STANDINGS, column_widths, paint_rows, standings_rows
from csl_game.gui.tourney_table import WatchTable

__all__ = ["TourneyBoardScene"]


class TourneyBoardScene(OnlineBoardScene):
    """The online board of a tournament's matches, with the standings between them."""

    def __init__(self, ctx: GuiContext, table: WatchTable, where: str,
                 pending: tuple[Happening, ...] = ()) -> None:
        super().__init__(ctx, table, where, pending)
        self.watch = table
        self.standings_rect: pygame.Rect | None = None
        """Where the standings were last drawn (None: the board was)."""

    @property
    def showing_standings(self) -> bool:
        """Whether the standings are the screen now (between matches)."""
        return self.watch.between

    @property
    def shown_notice(self) -> Notice | None:
        return None if self.showing_standings else super().shown_notice

    def _happened(self, item: Happening) -> None:
        if isinstance(item, MatchStarted):
            self.banner = None
        super()._happened(item)

    # ------------------------------------------------------------- drawing
    def draw(self, surface: pygame.Surface) -> None:
        if not self.showing_standings:
            self.standings_rect = None
            super().draw(surface)
            return
        self.standings_rect = self._draw_standings(surface)

    def _standings_title(self) -> str:
        table = self.watch
        shown = table.standings
        if shown is not None and shown.final:
            return "Final standings"
        if shown is None or not shown.played:
            return "The tournament is about to begin"
        return f"Standings after {shown.played} of {table.total} matches"

    def _draw_standings(self, surface: pygame.Surface) -> pygame.Rect:
        """The title, the standings table and a line on what comes next, centred."""
        w, h = surface.get_size()
        scale = self.layout.scale
        colors = palette()
        surface.blit(backdrop((w, h)), (0, 0))
        width = min(w - round(48 * scale), round(640 * scale))
        x, y = (w - width) // 2, max(round(24 * scale), h // 10)
        title = self.ctx.text.fit(self._standings_title(), TextRole.BANNER.size(scale), colors.text,
                                  width, True)
        surface.blit(title, title.get_rect(midtop=(w // 2, y)))
        y += title.get_height() + round(18 * scale)
        line, pad = max(18, round(30 * scale)), max(3, round(6 * scale))
        widths = column_widths(STANDINGS, width, scale)
        header = [(c.header, "#cell_head_num" if c.numeric else "#cell_head") for c in STANDINGS]
        head = paint_rows([header], widths, line, pad, self.ctx.text, scale)
        rows = standings_rows(self.watch.rows)
        room = max(line, h - y - line - round(80 * scale))
        body = paint_rows(rows[:max(1, room // line)], widths, line, pad, self.ctx.text, scale)
        box = pygame.Rect(x, y, width, head.get_height() + body.get_height())
        frame = box.inflate(2 * pad, 2 * pad)
        pygame.draw.rect(surface, colors.panel, frame, border_radius=pad)
        pygame.draw.rect(surface, colors.panel_edge, frame, 1, border_radius=pad)
        surface.blit(head, (x, y))
        pygame.draw.line(surface, colors.text_dim, (x, y + line), (x + width, y + line))
        surface.blit(body, (x, y + line))
        next_line = self._next_line()
        note = self.ctx.text.fit(next_line, TextRole.BODY.size(scale), colors.text_dim, width)
        surface.blit(note, note.get_rect(midtop=(w // 2, box.bottom + round(24 * scale))))
        return box

    def _next_line(self) -> str:
        shown = self.watch.standings
        if shown is not None and shown.final:
            return f"Watching {self.watch.address[0]}:{self.watch.address[1]} \u00b7 " \
                   "the tournament is over (Esc: menu)"
        return "The next match begins in a moment\u2026"
