"""Screens made of pygame_gui widgets: the base scene and small shared pieces.

A `WidgetLayer` holds widgets under one root container and sends each
widget's events to the handler registered for it with `on()`, so no scene
switches on `ui_element`. A `WidgetScene` builds its layer on enter (and
again after a resize) and kills it on exit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pygame
import pygame_gui
from pygame import Rect
from pygame_gui.core import ObjectID, UIContainer
from pygame_gui.core.interfaces import IUIElementInterface
from pygame_gui.elements import UIButton, UILabel, UITextEntryLine

from csl_game.gui.context import GuiContext
from csl_game.gui.keys import SCREEN_KEYS, KeyTable
from csl_game.gui.layout import ui_scale
from csl_game.gui.scene import Scene
from csl_game.gui.style import backdrop, palette

__all__ = ["Metrics", "WidgetLayer", "WidgetScene", "Handler", "HintedEntry", "label",
           "set_text", "button"]

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


class WidgetLayer:
    """Widgets under one root container, each widget's events sent to its handler."""

    def __init__(self, ui: pygame_gui.UIManager) -> None:
        self.ui = ui
        self.root: UIContainer | None = None
        self._handlers: dict[IUIElementInterface, Handler] = {}

    def open(self, size: tuple[int, int], height: int = 1) -> UIContainer:
        """A new, empty root container of `size` (the widgets of the last one
        are killed), `height` layers above the window's (over lower layers')."""
        self.close()
        self.root = UIContainer(Rect((0, 0), size), self.ui, starting_height=height)
        return self.root

    def close(self) -> None:
        """Kill every widget of the layer."""
        self._handlers.clear()
        if self.root is not None:
            self.root.kill()
            self.root = None

    def on(self, widget: IUIElementInterface, handler: Handler) -> Any:
        """Send `widget`'s events to `handler`; returns the widget."""
        self._handlers[widget] = handler
        return widget

    def show(self, shown: bool) -> None:
        """Show or hide every widget of the layer (nothing when none is open)."""
        if self.root is not None:
            (self.root.show if shown else self.root.hide)()

    @property
    def handled(self) -> tuple[IUIElementInterface, ...]:
        """The widgets that have a handler."""
        return tuple(self._handlers)

    def dispatch(self, event: pygame.event.Event) -> bool:
        """Give a widget event to its widget's handler; returns whether one took it."""
        if event.type not in _WIDGET_EVENTS:
            return False
        handler = self._handlers.get(event.ui_element)
        if handler is None:
            return False
        handler(event)
        return True


class WidgetScene(Scene):
    """A screen of widgets over the backdrop; subclasses implement build()."""

    def __init__(self, ctx: GuiContext) -> None:
        self.ctx = ctx
        self.layer = WidgetLayer(ctx.ui)
        self._backdrop: pygame.Surface | None = None
        self._changed = True

    @property
    def root(self) -> UIContainer | None:
        """The container of the scene's widgets (None while not shown)."""
        return self.layer.root

    @property
    def metrics(self) -> Metrics:
        return Metrics(self.ctx.size)

    @property
    def keys(self) -> KeyTable | None:
        return SCREEN_KEYS

    def build(self, root: UIContainer, m: Metrics) -> None:
        """Create the widgets (children of `root`) for the window's size."""

    def on(self, widget: IUIElementInterface, handler: Handler) -> Any:
        """Send `widget`'s events to `handler`; returns the widget."""
        return self.layer.on(widget, handler)

    def enter(self) -> None:
        self.rebuild()

    def exit(self) -> None:
        self.layer.close()

    def resize(self, size: tuple[int, int]) -> None:
        self.rebuild()

    def rebuild(self) -> None:
        """Build every widget anew (after the shown state changed shape)."""
        self.build(self.layer.open(self.ctx.size), self.metrics)
        self._changed = True

    def take_changed(self) -> bool:
        changed, self._changed = self._changed, False
        return changed

    def set_widgets_shown(self, shown: bool) -> None:
        self.layer.show(shown)

    def restyle(self, size: tuple[int, int]) -> None:
        self._backdrop = None
        self.rebuild()

    def handle_event(self, event: pygame.event.Event) -> None:
        self.layer.dispatch(event)

    def draw(self, surface: pygame.Surface) -> None:
        if self._backdrop is None or self._backdrop.get_size() != surface.get_size():
            self._backdrop = backdrop(surface.get_size())
        surface.blit(self._backdrop, (0, 0))


class HintedEntry(UITextEntryLine):
    """A text entry whose placeholder is drawn in the theme's dim text, as a
    hint of what to type rather than a value typed (pygame_gui 0.6 draws it
    in the text's own colour). The hint shows while the entry is empty and
    not focused; its colour is set by a rebuild as that changes, never while
    the entry is focused (a rebuild would lose its cursor)."""

    _dim = False

    def _hinting(self) -> bool:
        return bool(self.placeholder_text) and not self.text and not self.is_focused

    def rebuild(self) -> None:
        self._dim = self._hinting()
        if not self._dim:
            super().rebuild()
            return
        normal, self.text_colour = self.text_colour, palette().text_dim
        try:
            super().rebuild()
        finally:
            self.text_colour = normal

    def focus(self) -> None:
        if self._dim:  # the text typed next is in the text's colour
            self._dim = False
            super().rebuild()
        super().focus()

    def unfocus(self) -> None:
        super().unfocus()
        if self._hinting() != self._dim:
            self.rebuild()

    def set_text(self, text: str | None) -> None:
        super().set_text(text)
        if not self.is_focused and self._hinting() != self._dim:
            self.rebuild()
