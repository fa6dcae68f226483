"""The choices after a match, inside the result banner over the final board.

The match scene owns the overlay: the flow hands it the session's offer once
the match is over, and the scene shows it when every move has been shown.
After a tournament match: OK (or a countdown). After a single match this is
the final screen: play again (optionally swapped), back to setup, or quit.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pygame
import pygame_gui
from pygame import Rect

from csl_game.engine import Choice
from csl_game.gui.focus import KeyFocus
from csl_game.gui.scenes.choices import ChoiceRow, Offer, ShowsChoices
from csl_game.gui.widgets import Metrics, WidgetLayer, label

__all__ = ["ResultOverlay", "KEY_GUARD_S"]

KEY_GUARD_S = 0.6
"""Seconds after the choices appear during which keys do nothing: a key meant
for the game (a drop pressed as the game ended) must not take 'Play again'
and skip the result. A click, aimed at a choice, is taken at once."""


class ResultOverlay(ShowsChoices):
    """A row of choices placed inside the result banner, which grows to hold them."""

    def __init__(self, ui: pygame_gui.UIManager, offer: Offer,
                 choose: Callable[[Choice], None], note: str = "") -> None:
        self.layer = WidgetLayer(ui)
        self.row = ChoiceRow(offer, choose)
        self.note = note
        """A line above the choices (the human's record against this AI)."""
        self.focus = KeyFocus(ui, self.layer, self._items)
        """Left, Right and Tab move between the choices; Enter or Space takes one."""
        self.room = (0, 0)
        """Room (width, height) the banner leaves free below its text for the choices."""
        self.box: Rect | None = None
        """Where the banner is, while the overlay is shown."""
        self.shown_at: float | None = None
        """When the choices first appeared (`time.monotonic()`), while shown."""

    def _items(self) -> list[tuple[str, object]]:
        return [(c.value, b) for c, b in self.row.buttons.items()]

    @property
    def shown(self) -> bool:
        return self.layer.root is not None

    @property
    def offer(self) -> Offer:
        return self.row.offer

    def show(self, size: tuple[int, int], place: Callable[[tuple[int, int]], Rect],
             width: int | None = None) -> None:
        """Build the choices for a window of `size` (again after a resize).

        `place(room)` says where the banner goes once it leaves `room` free
        below its text; the choices go at its bottom, in two lines (or more)
        where one would be wider than `width` (the board's area).
        """
        m = Metrics(size)
        root = self.layer.open(size)
        self.row.make(root, m, self.layer.on)
        limit = None if width is None else max(m.button_w, width - 4 * m.gap)
        note_h = m.row if self.note else 0
        self.room = (self.row.width(m, limit) + 4 * m.gap,
                     self.row.height(m, limit) + m.gap + note_h)
        self.box = place(self.room)
        top = self.row.place(m, self.box.centerx, self.box.bottom - m.gap, limit)
        if self.note:
            label(pygame.Rect(self.box.x, top - m.row, self.box.w, m.row), self.note, root,
                  "#dim")
        if self.focus.key is None and self.offer.primary is not None:
            self.focus.set(self.offer.primary.value)
        if self.shown_at is None:  # a resize builds them again: no new guard
            self.shown_at = time.monotonic()

    def close(self) -> None:
        """Remove the choices (the banner shrinks back to its text)."""
        self.layer.close()
        self.room = (0, 0)
        self.box = None
        self.shown_at = None

    def handle_event(self, event: pygame.event.Event) -> bool:
        """A click on a choice, or the focus keys; returns whether either took the event."""
        if not self.shown:
            return False
        if event.type == pygame.KEYDOWN and self.shown_at is not None \
                and time.monotonic() - self.shown_at < KEY_GUARD_S:
            return True  # too soon to be meant for the choices: swallowed
        return self.layer.dispatch(event) or self.focus.handle_key(event)

    def update(self, dt: float) -> None:
        """Count down a timed offer while shown."""
        if self.shown:
            self.row.update(dt)
