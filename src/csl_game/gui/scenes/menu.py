"""Windows over any screen: the Esc menu and "How to play" (F1).

An overlay takes every key and click while it is open (the screen under it
goes on: an AI keeps thinking), dims what is under it, and is worked with the
keyboard alone: the arrows or Tab move, Enter or Space choose, Esc closes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pygame
import pygame_gui
from pygame import Rect
from pygame_gui.core import ObjectID
from pygame_gui.elements import UIPanel, UITextBox

from csl_game.gui.focus import KeyFocus
from csl_game.gui.style import palette
from csl_game.gui.widgets import Metrics, WidgetLayer, button, label

__all__ = ["MenuItem", "Overlay", "MenuOverlay", "HelpOverlay", "HOW_TO_PLAY"]

_CLOSE_KEYS = (pygame.K_ESCAPE,)


@dataclass(frozen=True)
class MenuItem:
    """A choice of the menu: its text, what it does, its key shown beside it."""

    text: str
    act: Callable[[], None]
    key: str = ""


class Overlay:
    """A panel of widgets in the middle of the window, over a dimmed screen."""

    title = ""

    def __init__(self, ui: pygame_gui.UIManager, close: Callable[[], None]) -> None:
        self.layer = WidgetLayer(ui)
        self.close_overlay = close
        self.focus = KeyFocus(ui, self.layer, self._items, arrows="vertical")
        self._widgets: list[tuple[str, object]] = []
        self._shade: pygame.Surface | None = None

    def _items(self) -> Sequence[tuple[str, object]]:
        return self._widgets

    def build(self, size: tuple[int, int]) -> None:
        """(Re)build the widgets for a window of `size`."""
        m = Metrics(size)
        root = self.layer.open(size)
        self._widgets = []
        self.panel = self._panel(root, m)

    def _panel(self, root: object, m: Metrics) -> Rect:
        raise NotImplementedError

    def handle_event(self, event: pygame.event.Event) -> None:
        """Widget events, the focus keys, and Esc to close."""
        if self.layer.dispatch(event):
            return
        if event.type == pygame.KEYDOWN and event.key in _CLOSE_KEYS:
            self.close_overlay()
            return
        self.focus.handle_key(event)

    def draw(self, surface: pygame.Surface) -> None:
        """Dim the screen under the panel (its widgets are drawn by the UI manager)."""
        if self._shade is None or self._shade.get_size() != surface.get_size():
            self._shade = pygame.Surface(surface.get_size(), pygame.SRCALPHA)
            self._shade.fill(palette().shade)
        surface.blit(self._shade, (0, 0))

    def close(self) -> None:
        self.layer.close()


class MenuOverlay(Overlay):
    """Resume, restart, setup, home, how to play, sound, theme, quit: a column of buttons."""

    title = "Menu"

    def __init__(self, ui: pygame_gui.UIManager, close: Callable[[], None],
                 items: Sequence[MenuItem]) -> None:
        super().__init__(ui, close)
        self.items = list(items)

    def _panel(self, root: object, m: Metrics) -> Rect:
        w, h = m.size
        bw, pitch = max(260, round(300 * m.scale)), m.row + 6 + m.gap
        height = m.title + 2 * m.gap + pitch * len(self.items) + m.gap
        rect = Rect(0, 0, bw + 4 * m.gap, height)
        rect.center = (w // 2, h // 2)
        rect.clamp_ip(Rect(0, 0, w, h))
        panel = UIPanel(rect, manager=self.layer.ui, container=root,  # type: ignore[arg-type]
                        object_id="#overlay")
        label(Rect(0, m.gap, rect.w, m.title), self.title, panel, "#menu_title")
        y = m.title + 2 * m.gap
        for i, item in enumerate(self.items):
            text = f"{item.text}   ({item.key})" if item.key else item.text
            widget = button(Rect(2 * m.gap - 3, y, bw, m.row + 6), text, panel,
                            "#primary" if i == 0 else "#button")
            self.layer.on(widget, self._handler(item))
            self._widgets.append((item.text, widget))
            y += pitch
        if self.focus.key is None:
            self.focus.set(self.items[0].text)
        return rect

    @staticmethod
    def _handler(item: MenuItem) -> Callable[[pygame.event.Event], None]:
        return lambda _event: item.act()


HOW_TO_PLAY = (
    "<b>The aim</b><br>Make a line of 4 (or as many as the board says) across, up or "
    "diagonally. Pieces fall to the lowest free cell of the column you choose.<br><br>"
    "<b>Colour and shape</b><br>Every piece has a colour (yours) and a shape you choose "
    "each move. <b>Round pieces and white pieces count for White; square pieces and red "
    "pieces count for Red.</b> A line of one shape wins for that shape's player, whatever "
    "the colours, and shape beats colour: a white square that completes four whites and "
    "four squares makes Red win. So you can lose on your own move.<br><br>"
    "<b>The end</b><br>Nobody wins when the board is full, or when both players have no "
    "pieces left. An AI that runs out of time, crashes or tries an illegal move loses.<br><br>"
    "<b>Playing with the mouse</b><br>Click a column's arrow (or its cells); click a shape "
    "in your panel to choose it.<br><br>"
    "<b>Playing with the keyboard</b><br>"
    "Left, Right: choose a column \u00b7 digits: a column by number (two digits for 10 and "
    "up, e.g. 1 then 2 for 12) \u00b7 Enter, Space or Down: drop \u00b7 Tab or S: the other "
    "shape<br>"
    "H: a hint \u00b7 U or Ctrl+Z: take back your last move \u00b7 R: resign<br>"
    "Esc: the menu (restart, home, sound, theme) \u00b7 M: sound on or off \u00b7 F1: this "
    "page \u00b7 Ctrl+Q: quit<br>"
    "On other screens: Tab or the arrows move between buttons and fields, Enter or Space "
    "chooses; on the home screen the number keys choose too, and on the setup screen "
    "Enter starts.")


class HelpOverlay(Overlay):
    """The rules in short and every key, with a Close button."""

    title = "How to play"

    def _panel(self, root: object, m: Metrics) -> Rect:
        w, h = m.size
        rect = Rect(0, 0, min(w - 2 * m.margin, round(760 * m.scale)), h - 2 * m.margin)
        rect.center = (w // 2, h // 2)
        panel = UIPanel(rect, manager=self.layer.ui, container=root,  # type: ignore[arg-type]
                        object_id="#overlay")
        label(Rect(0, m.gap, rect.w, m.title), self.title, panel, "#menu_title")
        bottom = rect.h - m.gap - m.row - 6
        top = m.title + m.gap
        UITextBox(HOW_TO_PLAY, Rect(m.gap, top, rect.w - 2 * m.gap - 6, bottom - m.gap - top),
                  self.layer.ui, container=panel, object_id=ObjectID("#help_text", "@text_box"))
        close = button(Rect((rect.w - m.button_w) // 2, bottom, m.button_w, m.row + 6),
                       "Close", panel, "#primary")
        self.layer.on(close, lambda _e: self.close_overlay())
        self._widgets.append(("close", close))
        self.focus.set("close")
        return rect

    def handle_event(self, event: pygame.event.Event) -> None:
        if event.type == pygame.KEYDOWN and event.key == pygame.K_F1:
            self.close_overlay()
            return
        super().handle_event(event)
