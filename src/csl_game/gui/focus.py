"""Keyboard focus over a screen's widgets: Tab order, arrows, Enter and Space.

`KeyFocus` walks an ordered list of (key, widget) pairs that the screen
gives afresh each time (widgets are rebuilt on resize and edits, so focus is
kept by key, not by widget). Enter or Space activates the focused widget as a
click would: a button is pressed, a check box flips, a drop-down opens its
list (Up and Down then move through it, Enter or Space takes the option,
Esc closes it; closed, Up and Down step its option); a text entry gets
pygame_gui's own focus so typing goes into it. The window draws a ring
around the focused widget, or the option picked in an open list.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pygame
import pygame_gui
from pygame_gui.elements import UIButton, UICheckBox, UIDropDownMenu, UITextEntryLine

from csl_game.gui.keys import LIST_KEYS, SCREEN_KEYS, is_shifted
from csl_game.gui.widgets import WidgetLayer

__all__ = ["KeyFocus", "draw_focus_ring"]

Items = Callable[[], Sequence[tuple[str, Any]]]


class KeyFocus:
    """Which widget of a screen has the keyboard, and what keys do to it."""

    def __init__(self, ui: pygame_gui.UIManager, layer: WidgetLayer, items: Items,
                 arrows: str = "horizontal") -> None:
        self.ui, self.layer, self.items = ui, layer, items
        self.arrows = arrows
        """Which arrow keys move the focus: 'horizontal', 'vertical' or 'none'."""
        self.key: str | None = None
        self.picked: int | None = None
        """The option picked in the focused drop-down's open list (None: closed)."""

    # ------------------------------------------------------------- reading
    def widget(self) -> Any | None:
        """The focused widget, if any is focused and still shown."""
        return dict(self.items()).get(self.key) if self.key is not None else None

    def rect(self) -> pygame.Rect | None:
        """Where to draw the focus ring: round the focused widget, or the
        option picked in its open list."""
        widget = self.widget()
        if widget is None or not widget.visible:
            return None
        if isinstance(widget, UIDropDownMenu) and self.picked is not None:
            option = _option_button(widget, self.picked)
            if option is not None and option.visible:
                return pygame.Rect(option.rect)
        rect: pygame.Rect = getattr(widget, "focus_area", widget.rect)  # a table: its row
        return rect

    def menu_open(self) -> bool:
        """Whether the focused widget is a drop-down showing its list."""
        widget = self.widget()
        return isinstance(widget, UIDropDownMenu) and _expanded(widget)

    # ------------------------------------------------------------- moving
    def set(self, key: str | None) -> None:
        """Focus the widget of `key` (None: nothing)."""
        if key != self.key:
            self.close_menu()
        self.key = key
        widget = self.widget()
        if isinstance(widget, UITextEntryLine):
            self.ui.set_focus_set(widget)
            widget.edit_position = len(widget.get_text())  # type on after the text
        elif self.ui.get_focus_set() and any(isinstance(w, UITextEntryLine)
                                             for w in self.ui.get_focus_set() or ()):
            self.ui.set_focus_set(None)

    def move(self, step: int) -> None:
        """Focus the next (`step` 1) or previous (-1) enabled widget, wrapping round."""
        keys = [k for k, w in self.items() if w.is_enabled and w.visible]
        if not keys:
            return
        at = keys.index(self.key) if self.key in keys else (-1 if step > 0 else 0)
        self.set(keys[(at + step) % len(keys)])

    def follow_mouse(self) -> None:
        """After a click: focus the text entry pygame_gui focused, if any."""
        focused = self.ui.get_focus_set() or set()
        for key, widget in self.items():
            if isinstance(widget, UITextEntryLine) and widget in focused:
                self.key = key

    # ------------------------------------------------------------- keys
    def handle_key(self, event: pygame.event.Event) -> bool:
        """Tab, the arrows, Enter and Space; returns whether the key was used."""
        if event.type != pygame.KEYDOWN:
            return False
        widget = self.widget()
        if isinstance(widget, UIDropDownMenu) and self._menu_key(widget, event):
            return True
        action = SCREEN_KEYS.action(event)
        if action == "next":
            self.move(-1 if is_shifted(event) else 1)
            return True
        if isinstance(widget, UIDropDownMenu) and action == "between":
            self._step_menu(widget, SCREEN_KEYS.binding(action).step(event))
            return True
        if self._arrow(event, widget):
            return True
        if action == "choose" and widget is not None and widget.is_enabled:
            return self._activate(widget)
        return False

    def _arrow(self, event: pygame.event.Event, widget: Any) -> bool:
        along = {"horizontal": "along", "vertical": "between"}.get(self.arrows)
        if along is None or (isinstance(widget, UITextEntryLine) and along == "along"):
            return False  # no arrows here, or the caret's keys
        step = SCREEN_KEYS.binding(along).step(event)
        if step:
            self.move(step)
        return bool(step)

    def _activate(self, widget: Any) -> bool:
        if isinstance(widget, UIButton):
            return self._send(pygame_gui.UI_BUTTON_PRESSED, widget)
        if isinstance(widget, UICheckBox):
            widget.set_state(not widget.is_checked)
            return self._send(pygame_gui.UI_CHECK_BOX_CHECKED if widget.is_checked
                              else pygame_gui.UI_CHECK_BOX_UNCHECKED, widget)
        if isinstance(widget, UIDropDownMenu):
            self.open_menu(widget)
            return True
        return False  # Enter in a text entry: the screen decides

    def _send(self, kind: int, widget: Any, **attrs: Any) -> bool:
        return self.layer.dispatch(pygame.event.Event(kind, ui_element=widget, **attrs))

    def _step_menu(self, menu: UIDropDownMenu, step: int) -> None:
        options = _options(menu)
        at = _selected(menu)
        self._send(pygame_gui.UI_DROP_DOWN_MENU_CHANGED, menu,
                   text=options[(at + step) % len(options)])

    # ------------------------------------------------------------- open lists
    def open_menu(self, menu: UIDropDownMenu) -> None:
        """Show the drop-down's list, its current option picked."""
        self.picked = _selected(menu)
        if not _expanded(menu):
            _transition(menu)  # opens on the UI's next update

    def close_menu(self) -> bool:
        """Close the focused drop-down's list without taking an option; returns
        whether one was open (Esc closes the list, nothing else)."""
        widget = self.widget() if self.key is not None else None
        was_open = self.picked is not None
        self.picked = None
        if isinstance(widget, UIDropDownMenu) and _expanded(widget):
            _transition(widget)
            return True
        return was_open

    def _menu_key(self, menu: UIDropDownMenu, event: pygame.event.Event) -> bool:
        """The keys of an open list (`LIST_KEYS`) but Esc, which the screen
        handles (`close_menu`)."""
        if not _expanded(menu):
            state = menu.current_state
            if self.picked is not None and not (state is not None and state.should_transition):
                self.picked = None  # closed by a click elsewhere
            if self.picked is None:
                return False
        if self.picked is None:  # opened with the mouse
            self.picked = _selected(menu)
        action = LIST_KEYS.action(event)
        step = LIST_KEYS.binding(action).step(event) if action is not None else 0
        if step:
            count = len(_options(menu))
            self.picked = max(0, min(count - 1, self.picked + step))
            _show_option(menu, self.picked)
            return True
        if action == "take":
            text = _options(menu)[self.picked]
            self.close_menu()
            self._send(pygame_gui.UI_DROP_DOWN_MENU_CHANGED, menu, text=text)
            return True
        if action == "leave":
            self.close_menu()
        return False


def _options(menu: UIDropDownMenu) -> list[str]:
    return [o[0] if isinstance(o, tuple) else o for o in menu.options_list]


def _selected(menu: UIDropDownMenu) -> int:
    current = menu.selected_option
    name = current[0] if isinstance(current, tuple) else current
    options = _options(menu)
    return options.index(name) if name in options else 0


def _transition(menu: UIDropDownMenu) -> None:
    """Open a closed drop-down's list, or close an open one, on the UI's next update."""
    if menu.current_state is not None:
        menu.current_state.should_transition = True


def _expanded(menu: UIDropDownMenu) -> bool:
    return bool(menu.current_state is menu.menu_states["expanded"])


def _option_button(menu: UIDropDownMenu, index: int) -> Any | None:
    """The button of option `index` in the open list (None while it is scrolled away)."""
    listing = getattr(menu.current_state, "options_selection_list", None)
    if not _expanded(menu) or listing is None or index >= len(listing.item_list):
        return None
    return listing.item_list[index]["button_element"]


def _show_option(menu: UIDropDownMenu, index: int) -> None:
    """Scroll the open list so that option `index` is in view."""
    listing = getattr(menu.current_state, "options_selection_list", None)
    bar = getattr(listing, "scroll_bar", None)
    if listing is None or bar is None:
        return
    total = max(1, listing.total_height_of_list)
    shown = bar.visible_percentage
    top = index * listing.list_item_height / total
    bottom = (index + 1) * listing.list_item_height / total
    start = bar.start_percentage
    if top < start:
        bar.set_scroll_from_start_percentage(top)
    elif bottom > start + shown:
        bar.set_scroll_from_start_percentage(bottom - shown)


def focus_ring_area(rect: pygame.Rect, width: int) -> pygame.Rect:
    """Where draw_focus_ring() draws around `rect`."""
    return rect.inflate(2 * width + 2, 2 * width + 2)


def draw_focus_ring(surface: pygame.Surface, rect: pygame.Rect | None,
                    color: pygame.Color, width: int) -> None:
    """A rounded ring just outside `rect`."""
    if rect is not None:
        pygame.draw.rect(surface, color, focus_ring_area(rect, width), width,
                         border_radius=2 * width + 4)
