"""The row of buttons at the bottom of the banner over an online game's board
(Claim the game, Keep waiting, Reconnect, Review, Home): each a click, and
reached by Tab or the arrows with Enter (gui/focus.py)."""

from __future__ import annotations

from collections.abc import Callable

import pygame
import pygame_gui

from csl_game.gui.focus import KeyFocus
from csl_game.gui.online_table import Action
from csl_game.gui.widgets import Metrics, WidgetLayer, button

__all__ = ["NoticeButtons"]


class NoticeButtons:
    """A row of buttons at the bottom of the banner over the board."""

    def __init__(self, ui: pygame_gui.UIManager, act: Callable[[Action], None]) -> None:
        self.layer = WidgetLayer(ui)
        self.act = act
        self.buttons: dict[Action, pygame_gui.elements.UIButton] = {}
        self.focus = KeyFocus(ui, self.layer, lambda: [(a.name, b) for a, b in
                                                       self.buttons.items()])
        self.shown_for: tuple[object, ...] | None = None

    def room(self, m: Metrics, actions: tuple[Action, ...]) -> tuple[int, int]:
        if not actions:
            return (0, 0)
        width = len(actions) * _button_width(m) + (len(actions) - 1) * m.gap
        return (width + 4 * m.gap, m.row + 6 + m.gap)

    def show(self, m: Metrics, actions: tuple[Action, ...], box: pygame.Rect) -> None:
        """The buttons of `actions`, side by side at the bottom of `box`."""
        root = self.layer.open(m.size)
        self.buttons = {}
        w = _button_width(m)
        total = len(actions) * w + (len(actions) - 1) * m.gap
        x, y = box.centerx - total // 2, box.bottom - m.gap - (m.row + 6)
        for i, action in enumerate(actions):
            rect = pygame.Rect(x + i * (w + m.gap), y, w, m.row + 6)
            style = "#primary" if i == 0 else "#button"
            self.buttons[action] = self.layer.on(button(rect, action.value, root, style),
                                                 self._handler(action))
        if actions and (self.focus.key is None or self.focus.key not in
                        [a.name for a in actions]):
            self.focus.set(actions[0].name)

    def _handler(self, action: Action) -> Callable[[pygame.event.Event], None]:
        return lambda _event: self.act(action)

    def close(self) -> None:
        self.layer.close()
        self.buttons = {}
        self.shown_for = None

    def handle_event(self, event: pygame.event.Event) -> bool:
        if not self.buttons:
            return False
        return self.layer.dispatch(event) or self.focus.handle_key(event)


def _button_width(m: Metrics) -> int:
    """Wide enough for "Claim the game" in the primary style's bold text."""
    return m.button_w + round(64 * m.scale)
