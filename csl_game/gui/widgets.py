"""Screens made of pygame_gui widgets: the base scene and small shared pieces.

A `WidgetScene` builds its widgets under one root container on enter (and
again after a resize) and kills them on exit. Widget events go to handlers
registered per widget with `on()`, so no scene switches on `ui_element`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pygame
import pygame_gui
from pygame import Rect
from pygame_gui.core import ObjectID, UIContainer
from pygame_gui.core.interfaces import IUIElementInterface
from pygame_gui.elements import UIButton, UILabel

from csl_game.gui.layout import ui_scale
from csl_game.gui.scene import Scene
from csl_game.gui.style import backdrop

if TYPE_CHECKING:
    from csl_game.gui.app import App

__all__ = ["Metrics", "WidgetScene", "Handler", "label", "set_text", "button"]

Handler = Callable[[pygame.event.Event], None]

_WIDGET_EVENTS = (pygame_gui.UI_BUTTON_PRESSED, pygame_gui.UI_CHECK_BOX_CHECKED,
                  pygame_gui.UI_CHECK_BOX_UNCHECKED, pygame_gui.UI_DROP_DOWN_MENU_CHANGED,
                  pygame_gui.UI_TEXT_ENTRY_CHANGED, pygame_gui.UI_TEXT_ENTRY_FINISHED)


@dataclass(frozen=True)
class Metrics:
    """Sizes of widget screens for one window size (text sizes are the theme's)."""

    size: tuple[int, int]

    @property
    def scale(self) -> float:
        return ui_scale(self.size)

    @property
    def margin(self) -> int:
        return round(16 * self.scale)

    @property
    def gap(self) -> int:
        return max(4, round(8 * self.scale))

    @property
    def row(self) -> int:
        """Height of a widget row (buttons, entries, table rows)."""
        return max(28, round(32 * self.scale))

    @property
    def title(self) -> int:
        return max(36, round(44 * self.scale))

    @property
    def button_w(self) -> int:
        return max(96, round(130 * self.scale))


def label(rect: Rect, text: str, container: Any, object_id: str = "#text") -> UILabel:
    """A themed label (object IDs in assets/theme.json), its text shortened to fit."""
    widget = UILabel(rect, "", manager=container.ui_manager, container=container,
                     object_id=ObjectID(object_id, "@label"))
    set_text(widget, text)
    return widget


def set_text(widget: UILabel, text: str) -> None:
    """Show `text`, ending in an ellipsis if the label is too narrow for all of it."""
    room = widget.relative_rect.w - 2 * int(widget.text_horiz_alignment_padding) - 2
    font = widget.font
    if font is not None and font.size(text)[0] > room:
        lo, hi = 0, len(text)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if font.size(text[:mid].rstrip() + "\u2026")[0] <= room:
                lo = mid
            else:
                hi = mid - 1
        text = text[:lo].rstrip() + "\u2026"
    if text != widget.text:
        widget.set_text(text)


def button(rect: Rect, text: str, container: Any, object_id: str = "#button") -> UIButton:
    """A themed button; a width of -1 fits the text."""
    return UIButton(rect, text, manager=container.ui_manager, container=container,
                    object_id=ObjectID(object_id, "@button"))


class WidgetScene(Scene):
    """A screen of widgets over the backdrop; subclasses implement build()."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.root: UIContainer | None = None
        self._handlers: dict[IUIElementInterface, Handler] = {}
        self._backdrop: pygame.Surface | None = None

    @property
    def metrics(self) -> Metrics:
        return Metrics(self.app.size)

    def build(self, root: UIContainer, m: Metrics) -> None:
        """Create the widgets (children of `root`) for the window's size."""

    def on(self, widget: IUIElementInterface, handler: Handler) -> Any:
        """Send `widget`'s events to `handler`; returns the widget."""
        self._handlers[widget] = handler
        return widget

    def enter(self) -> None:
        self._build()

    def exit(self) -> None:
        self._clear()

    def resize(self, size: tuple[int, int]) -> None:
        self._clear()
        self._build()

    def rebuild(self) -> None:
        """Build every widget anew (after the shown state changed shape)."""
        self._clear()
        self._build()

    def _build(self) -> None:
        self.root = UIContainer(Rect((0, 0), self.app.size), self.app.ui)
        self.build(self.root, self.metrics)

    def _clear(self) -> None:
        self._handlers.clear()
        if self.root is not None:
            self.root.kill()
            self.root = None

    def handle_event(self, event: pygame.event.Event) -> None:
        if event.type in _WIDGET_EVENTS:
            handler = self._handlers.get(event.ui_element)
            if handler is not None:
                handler(event)

    def draw(self, surface: pygame.Surface) -> None:
        if self._backdrop is None or self._backdrop.get_size() != surface.get_size():
            self._backdrop = backdrop(surface.get_size())
        surface.blit(self._backdrop, (0, 0))
