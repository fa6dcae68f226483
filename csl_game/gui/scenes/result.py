"""The choices after a match, inside the result banner over the final board.

The match scene owns the overlay: the flow hands it the session's offer once
the match is over, and the scene shows it when every move has been shown.
After a tournament match: OK (or a countdown). After a single match this is
the final screen: play again (optionally swapped), back to setup, or quit.
"""

from __future__ import annotations

from collections.abc import Callable

import pygame
import pygame_gui
from pygame import Rect

from csl_game.engine.session import Choice
from csl_game.gui.scenes.choices import ChoiceRow, Offer, ShowsChoices
from csl_game.gui.widgets import Metrics, WidgetLayer

__all__ = ["ResultOverlay"]


class ResultOverlay(ShowsChoices):
    """A row of choices placed inside the result banner, which grows to hold them."""

    def __init__(self, ui: pygame_gui.UIManager, offer: Offer,
                 choose: Callable[[Choice], None]) -> None:
        self.layer = WidgetLayer(ui)
        self.row = ChoiceRow(offer, choose)
        self.room = (0, 0)
        """Room (width, height) the banner leaves free below its text for the choices."""
        self.box: Rect | None = None
        """Where the banner is, while the overlay is shown."""

    @property
    def shown(self) -> bool:
        return self.layer.root is not None

    @property
    def offer(self) -> Offer:
        return self.row.offer

    def show(self, size: tuple[int, int], place: Callable[[tuple[int, int]], Rect]) -> None:
        """Build the choices for a window of `size` (again after a resize).

        `place(room)` says where the banner goes once it leaves `room` free
        below its text; the choices go at its bottom.
        """
        m = Metrics(size)
        width = self.row.make(self.layer.open(size), m, self.layer.on)
        self.room = (width + 4 * m.gap, self.row.height(m) + m.gap)
        self.box = place(self.room)
        self.row.place(m, self.box.centerx, self.box.bottom - m.gap)

    def close(self) -> None:
        """Remove the choices (the banner shrinks back to its text)."""
        self.layer.close()
        self.room = (0, 0)
        self.box = None

    def handle_event(self, event: pygame.event.Event) -> bool:
        """A click on a choice, or Enter; returns whether a widget took the event."""
        if not self.shown:
            return False
        taken = self.layer.dispatch(event)
        self.row.handle_event(event)
        return taken

    def update(self, dt: float) -> None:
        """Count down a timed offer while shown."""
        if self.shown:
            self.row.update(dt)
