"""The analysis and spectator panel of the board scenes (match and replay).

`BoardInsight` puts together what csl_game.gui.insight offers for one scene:
the analysis (off until the user turns it on with A or its button), the
spectator's figures when no human plays (on from the start: they replace
the thinkers' raw lines on the screen's log, which standard output keeps),
and where they go: the panel takes part of the log's area.
"""

from __future__ import annotations

import pygame
from pygame import Rect

from csl_game.engine import RunnerFactory
from csl_game.gui.insight import AnalysisTool, InsightPanel, Spectator, draw_marks, split_for_panel
from csl_game.gui.layout import BoardLayout
from csl_game.gui.pieces import PieceArt
from csl_game.gui.style import TextCache
from csl_game.model.board import Board
from csl_game.thinker.api import MatchConfig

__all__ = ["BoardInsight"]


class BoardInsight:
    """The analysis tool, the spectator's figures and their panel, for one scene."""

    def __init__(self, config: MatchConfig, runner_factory: RunnerFactory, art: PieceArt,
                 text: TextCache, spectating: bool) -> None:
        self.tool = AnalysisTool(config, runner_factory)
        self.spectator = Spectator() if spectating else None
        self.panel = InsightPanel(text)
        self.art, self.text = art, text

    @property
    def shown(self) -> bool:
        """Whether the panel takes part of the log's area."""
        return self.tool.on or self.spectator is not None

    @property
    def version(self) -> tuple[int, int]:
        return self.tool.version, self.spectator.version if self.spectator else 0

    def toggle(self) -> None:
        self.tool.toggle()

    def follow(self, board: Board | None) -> None:
        """The position on screen, once every move is shown (None: the game is over)."""
        self.tool.follow(board)
        self.tool.update()

    def log_rect(self, lay: BoardLayout) -> Rect:
        """Where the log goes: all of its area, or what the panel leaves."""
        return split_for_panel(lay.log, lay.scale)[1] if self.shown else lay.log

    def draw_board(self, surface: pygame.Surface, lay: BoardLayout, line: bool = True) -> None:
        """The threat marks and (with `line`) the best line, over the board."""
        if self.tool.on:
            draw_marks(surface, lay, self.art, self.text, self.tool.marks,
                       self.tool.cells if line else [])

    def draw_panel(self, surface: pygame.Surface, lay: BoardLayout, names: tuple[str, str],
                   ply: int) -> Rect | None:
        """The panel, if shown; returns its rectangle."""
        if not self.shown:
            return None
        rect = split_for_panel(lay.log, lay.scale)[0]
        self.panel.draw(surface, rect, lay.scale, self.tool, self.spectator, names, ply)
        return rect

    def forget(self) -> None:
        self.panel.forget()

    def close(self) -> None:
        self.tool.close()
