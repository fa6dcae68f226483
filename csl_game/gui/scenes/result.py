"""The result over the final board, with the choices of what comes next.

After a tournament match: OK (or a countdown). After a single match this is
the final screen: play again (optionally swapped), back to setup, or quit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame
from pygame_gui.core import UIContainer

from csl_game.gui.scenes.info import ChoiceScene
from csl_game.gui.scenes.match import MatchScene
from csl_game.gui.widgets import Metrics

if TYPE_CHECKING:
    from csl_game.gui.app import App
    from csl_game.gui.flow import SessionFlow

__all__ = ["ResultScene"]


class ResultScene(ChoiceScene):
    """The finished match's scene, still animating its win line, under the choices."""

    def __init__(self, app: App, flow: SessionFlow, board: MatchScene) -> None:
        super().__init__(app, flow)
        self.board = board

    def build(self, root: UIContainer, m: Metrics) -> None:
        """The choices inside the result banner, which grows to hold them."""
        width = self.make_choices(root, m)
        room = (width + 4 * m.gap, self.choice_height(m) + m.gap)
        self.board.banner_room = room
        box = self.board.view.banner_rect(self.board.visual, room)
        self.place_choices(m, box.centerx, box.bottom - m.gap)

    def exit(self) -> None:
        super().exit()
        self.board.banner_room = (0, 0)

    def resize(self, size: tuple[int, int]) -> None:
        self.board.resize(size)
        super().resize(size)

    def update(self, dt: float) -> None:
        self.board.visual.update(dt)
        super().update(dt)

    def draw(self, surface: pygame.Surface) -> None:
        self.board.draw(surface)
