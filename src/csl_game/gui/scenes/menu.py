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
from csl_game.gui.keys import ALL_TABLES, GLOBAL_KEYS, HELP_KEYS, KeyTable
from csl_game.gui.widgets import Metrics, WidgetLayer, button, label

__all__ = ["MenuItem", "Overlay", "MenuOverlay", "HelpOverlay", "HOW_TO_PLAY", "how_to_play"]

OVERLAY_HEIGHT = 100
"""The layer of an overlay's widgets: over any screen's (rebuilt after a
resize under it, an open list's included), below none."""
_LINE_PX = 22
"""About a line of the help's text, in pixels: what Up and Down scroll by."""


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

    def _items(self) -> Sequence[tuple[str, object]]:
        return self._widgets

    def build(self, size: tuple[int, int]) -> None:
        """(Re)build the widgets for a window of `size`: a shade over the whole
        screen (its widgets too, which it keeps from the mouse), the panel on it."""
        m = Metrics(size)
        root = self.layer.open(size, OVERLAY_HEIGHT)
        self.shade = UIPanel(Rect((0, 0), size), starting_height=1, manager=self.layer.ui,
                             container=root, object_id="#shade")
        self._widgets = []
        self.panel = self._panel(root, m)

    def _panel(self, root: object, m: Metrics) -> Rect:
        raise NotImplementedError

    def handle_event(self, event: pygame.event.Event) -> None:
        """Widget events, the focus keys, and Esc to close."""
        if self.layer.dispatch(event):
            return
        if GLOBAL_KEYS.action(event) == "menu":  # Esc closes the menu it opens
            self.close_overlay()
            return
        self.focus.handle_key(event)

    def draw(self, surface: pygame.Surface) -> None:
        """Nothing of its own: the UI manager draws the shade and the panel."""

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
        panel = UIPanel(rect, starting_height=2, manager=self.layer.ui,
                        container=root, object_id="#overlay")  # type: ignore[arg-type]
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


RULES = (
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
    "in your panel to choose it. The buttons above the log do what the keys below do.<br><br>"
    "<b>Counting moves</b><br>\u201cWhite wins in 3\u201d counts White's moves from the "
    "position on the board, the next one included (as chess counts a mate in 3).")

HOW_TO_PLAY = RULES + "<br><br>" + "<br><br>".join(t.help_html() for t in ALL_TABLES)
"""The rules in short, then every screen's keys (gui/keys.py: the keys' one table)."""


def how_to_play(first: KeyTable | None = None) -> str:
    """HOW_TO_PLAY with the keys of `first` (the screen's own) at its top."""
    if first is None:
        return HOW_TO_PLAY
    others = "<br><br>".join(t.help_html() for t in ALL_TABLES if t is not first)
    return (f"<b>On this screen:</b> {first.help_html()}<br><br>{RULES}<br><br>{others}")


class HelpOverlay(Overlay):
    """The rules in short and every screen's keys, with a Close button; the
    keys of `HELP_KEYS` scroll it (a small window shows only part of it)."""

    title = "How to play"

    def __init__(self, ui: pygame_gui.UIManager, close: Callable[[], None],
                 first: KeyTable | None = None) -> None:
        """`first`: the keys of the screen under it, shown at the top."""
        super().__init__(ui, close)
        self.text: UITextBox | None = None
        self.html = how_to_play(first)

    def _panel(self, root: object, m: Metrics) -> Rect:
        w, h = m.size
        rect = Rect(0, 0, min(w - 2 * m.margin, round(760 * m.scale)), h - 2 * m.margin)
        rect.center = (w // 2, h // 2)
        panel = UIPanel(rect, starting_height=2, manager=self.layer.ui,
                        container=root, object_id="#overlay")  # type: ignore[arg-type]
        label(Rect(0, m.gap, rect.w, m.title), self.title, panel, "#menu_title")
        bottom = rect.h - m.gap - m.row - 6
        top = m.title + m.gap
        self.text = UITextBox(self.html, Rect(m.gap, top, rect.w - 2 * m.gap - 6,
                                                bottom - m.gap - top),
                              self.layer.ui, container=panel,
                              object_id=ObjectID("#help_text", "@text_box"))
        close = button(Rect((rect.w - m.button_w) // 2, bottom, m.button_w, m.row + 6),
                       f"Close ({HELP_KEYS.names('close').split(',')[0]})", panel, "#primary")
        self.layer.on(close, lambda _e: self.close_overlay())
        self._widgets.append(("close", close))
        self.focus.set("close")
        return rect

    @property
    def scroll(self) -> float:
        """How far down the text is scrolled, 0 (the top) to 1 (the end shown)."""
        bar = self.text.scroll_bar if self.text is not None else None
        if bar is None:
            return 0.0
        end = 1.0 - bar.visible_percentage
        return 1.0 if end <= 0 else min(1.0, bar.start_percentage / end)

    def scroll_by(self, lines: float) -> None:
        """Scroll by `lines` lines of text (negative: up); inf goes to the end."""
        text = self.text
        bar = text.scroll_bar if text is not None else None
        if text is None or bar is None:
            return
        layout = text.text_box_layout
        total = max(1, layout.layout_rect.height if layout is not None else text.rect.h)
        step = lines * _LINE_PX / total
        end = 1.0 - bar.visible_percentage
        target = min(end, max(0.0, bar.start_percentage + step))
        bar.set_scroll_from_start_percentage(target)

    def handle_event(self, event: pygame.event.Event) -> None:
        action = HELP_KEYS.action(event)
        page = (self.text.rect.h / _LINE_PX - 1) if self.text is not None else 10
        steps = {"up": -2.0, "down": 2.0, "page_up": -page, "page_down": page,
                 "top": -float("inf"), "bottom": float("inf")}
        if action == "close":
            self.close_overlay()
        elif action in steps:
            self.scroll_by(max(-1e6, min(1e6, steps[action])))
        else:
            super().handle_event(event)
