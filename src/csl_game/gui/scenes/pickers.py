"""The home screen's pickers: the level and colour to play the computer at,
and the two AIs to watch.

Each is a small centred screen: a title, rows of choices (each under a
caption), a note, and Back and Play (or Watch) at the bottom. Keys: Left,
Right and Tab move along, Up and Down move between rows (down to Play, the
bottom row's default), Space picks the focused choice, Enter picks it and
plays (on Play, plays; on Back, goes back; on a list, opens it), the number
keys pick a level and leave the focus where it is, Esc goes back home.
What was picked is remembered.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pygame
from pygame import Rect
from pygame_gui.core import ObjectID, UIContainer
from pygame_gui.elements import UIButton, UIDropDownMenu, UITextBox

from csl_game.gui.context import GuiContext
from csl_game.gui.focus import KeyFocus
from csl_game.gui.keys import SCREEN_KEYS, choice_number
from csl_game.gui.scenes.setup import thinker_choices
from csl_game.gui.widgets import Handler, Metrics, WidgetScene, button, label
from csl_game.services.presets import LEVELS, NEW_OPPONENT
from csl_game.services.quick_games import (
    COLOURS,
    ai_of,
    board_options,
    computer_game,
    watch_game,
)
from csl_game.services.settings import PlayOptions

__all__ = ["PickerLayout", "picker_layout", "PickerScene", "ComputerScene", "WatchScene",
           "option_buttons", "fitted_widths", "split"]



@dataclass(frozen=True)
class PickerLayout:
    """Every area of a picker for one window size."""

    title: Rect
    captions: tuple[Rect, ...]
    rows: tuple[Rect, ...]
    note: Rect
    back: Rect
    go: Rect

    def all_rects(self) -> list[Rect]:
        return [self.title, *self.captions, *self.rows, self.note, self.back, self.go]


def picker_layout(size: tuple[int, int], count: int, note_h: int = 0) -> PickerLayout:
    """A centred column of `count` captioned rows, a note (`note_h` high, at
    least two lines), Back and Go."""
    m = Metrics(size)
    w, h = size
    width = min(w - 2 * m.margin, round(620 * m.scale))
    title_h, big, small = round(m.title * 1.3), max(m.row + 8, round(54 * m.scale)), m.row + 6
    block = m.row + big + 2 * m.gap
    note_h = max(2 * m.row, note_h)
    total = title_h + m.gap + count * block + note_h + 2 * m.gap + small
    x, y = (w - width) // 2, max(m.margin, (h - total) // 2)
    title = Rect(x, y, width, title_h)
    y = title.bottom + m.gap
    captions = tuple(Rect(x, y + i * block, width, m.row) for i in range(count))
    rows = tuple(Rect(x, c.bottom, width, big) for c in captions)
    note = Rect(x, y + count * block, width, note_h)
    half = min(round(200 * m.scale), (width - m.gap) // 2)
    back = Rect(x, note.bottom + 2 * m.gap, half, small)
    go = Rect(x + width - half, back.y, half, small)
    return PickerLayout(title, captions, rows, note, back, go)


def split(rect: Rect, count: int, gap: int) -> list[Rect]:
    """`rect` cut into `count` equal parts side by side, `gap` apart."""
    width = (rect.w - (count - 1) * gap) // count
    return [Rect(rect.x + i * (width + gap), rect.y, width, rect.h) for i in range(count)]


def fitted_widths(natural: Sequence[int], room: int, gap: int) -> list[int]:
    """Widths side by side, `gap` apart, filling `room`: equal when every
    `natural` width (a text and its margins) fits so, else each its natural
    width and an equal share of what is left (squeezed alike if nothing is)."""
    count = max(1, len(natural))
    inner = room - (count - 1) * gap
    if max(natural, default=0) * count <= inner:
        return [inner // count] * len(natural)
    left = inner - sum(natural)
    if left >= 0:
        return [n + left // count for n in natural]
    return [max(1, n * inner // max(1, sum(natural))) for n in natural]


def option_buttons(rect: Rect, items: Sequence[tuple[str, str, bool, Handler]], m: Metrics,
                   root: UIContainer, on: Callable[[Any, Handler], Any]) -> dict[str, UIButton]:
    """A row of choices (key, text, chosen, act) in `rect`, each as wide as its
    text needs and a margin of `m.gap` either side (the chosen one styled so)."""
    made = [button(Rect(0, 0, -1, rect.h), text, root,
                   "#option_chosen" if chosen else "#option") for _, text, chosen, _ in items]
    widths = fitted_widths([b.rect.w + 2 * m.gap for b in made], rect.w, m.gap)
    x, out = rect.x, {}
    for (key, _, _, act), widget, width in zip(items, made, widths):
        widget.set_dimensions((width, rect.h))
        widget.set_relative_position((x, rect.y))
        x += width + m.gap
        out[key] = on(widget, act)
    return out


class PickerScene(WidgetScene):
    """Rows of choices, a note, Back and Go; subclasses fill the rows."""

    title = ""
    captions: tuple[str, ...] = ()
    go_text = "Play"
    enter_goes = True
    """Whether Enter on a choice picks it and goes at once (else it only picks it)."""

    def __init__(self, ctx: GuiContext, base: PlayOptions) -> None:
        super().__init__(ctx)
        self.base = base
        """The command line's options, which the game starts from."""
        self.widgets: dict[str, Any] = {}
        """Focusable widgets by key, in Tab order."""
        self.grid: list[list[str]] = []
        """The focusable keys row by row, for Up and Down."""
        self.note: UITextBox | None = None
        self.focus = KeyFocus(ctx.ui, self.layer, lambda: list(self.widgets.items()),
                              arrows="horizontal")
        self.focus.key = "go"

    def build(self, root: UIContainer, m: Metrics) -> None:
        first = picker_layout(m.size, len(self.captions)).note
        self.note = UITextBox(self.note_text(), Rect(first.x, first.y, first.w, -1),
                              root.ui_manager, container=root,
                              object_id=ObjectID("#home_note", "@text_box"))
        lay = picker_layout(m.size, len(self.captions), self.note.rect.h)  # the whole note
        self.note.set_relative_position(lay.note.topleft)
        label(lay.title, self.title, root, "#home_title")
        for rect, text in zip(lay.captions, self.captions):
            label(rect, text, root, "#heading")
        self.widgets, self.grid = {}, []
        for index, rect in enumerate(lay.rows):
            self.grid.append(self.build_row(index, rect, root, m))
        self.widgets["back"] = self.on(button(lay.back, "Back", root), lambda _e: self.back())
        self.widgets["go"] = self.on(button(lay.go, self.go_text, root, "#primary"),
                                     lambda _e: self.go())
        self.grid.append(["back", "go"])

    def build_row(self, index: int, rect: Rect, root: UIContainer, m: Metrics) -> list[str]:
        """Make row `index`'s widgets in `rect`; returns their keys."""
        raise NotImplementedError

    def note_text(self) -> str:
        return ""

    def go(self) -> None:
        """Start what was picked."""
        raise NotImplementedError

    def back(self) -> None:
        self.ctx.nav.show_home()

    def escape(self) -> bool:
        if not self.focus.close_menu():  # Esc closes an open list first
            self.back()
        return True

    def focus_rect(self) -> Rect | None:
        return self.focus.rect()

    def handle_event(self, event: pygame.event.Event) -> None:
        if self.layer.dispatch(event):
            return
        if event.type != pygame.KEYDOWN:
            return
        widget = self.focus.widget()
        between = SCREEN_KEYS.binding("between").step(event)
        if between and not isinstance(widget, UIDropDownMenu):
            self._jump(between)
        elif (self.enter_goes and SCREEN_KEYS.binding("go").matches(event)
              and self.focus.key not in ("back", "go") and isinstance(widget, UIButton)):
            self.focus.handle_key(event)  # a choice: picked as Space would ...
            self.go()  # ... and played at once
        elif self.focus.handle_key(event):
            pass
        elif SCREEN_KEYS.binding("go").matches(event):
            self.go()  # Enter plays, wherever the focus is (but on a button)
        else:
            self.shortcut(event)
        self._changed = True

    def shortcut(self, event: pygame.event.Event) -> None:
        """A key of the picker's own (the number keys pick a level)."""

    def _jump(self, step: int) -> None:
        """Focus the row above or below, at the same place along it."""
        row = next((i for i, keys in enumerate(self.grid) if self.focus.key in keys), None)
        if row is None:
            self.focus.set("go")
            return
        along = self.grid[row].index(self.focus.key)  # type: ignore[arg-type]
        target = self.grid[(row + step) % len(self.grid)]
        if target is self.grid[-1] and row != len(self.grid) - 1:
            self.focus.set("go")  # down to the buttons: on Play, which Enter then takes
            return
        self.focus.set(target[min(along, len(target) - 1)])


class ComputerScene(PickerScene):
    """The level to play against, and the colour to play."""

    title = "Play the computer"
    captions = ("Level", "You play")

    def __init__(self, ctx: GuiContext, base: PlayOptions) -> None:
        super().__init__(ctx, base)
        prefs = ctx.user.preferences()
        names = [lv.name for lv in LEVELS]
        self.level = prefs.level if prefs.level in names else NEW_OPPONENT
        self.colour = prefs.colour if prefs.colour in COLOURS else COLOURS[0]

    def build_row(self, index: int, rect: Rect, root: UIContainer, m: Metrics) -> list[str]:
        if index == 0:
            items = [(f"level.{lv.name}", f"{n}   {lv.label}", lv.name == self.level,
                      self._picker(self.pick_level, lv.name)) for n, lv in enumerate(LEVELS, 1)]
        else:
            texts = {"white": "White (moves first)", "red": "Red"}
            items = [(f"colour.{c}", texts[c], c == self.colour,
                      self._picker(self.pick_colour, c)) for c in COLOURS]
        made = option_buttons(rect, items, m, root, self.on)
        self.widgets.update(made)
        return list(made)

    @staticmethod
    def _picker(act: Callable[[str], None], value: str) -> Callable[[pygame.event.Event], None]:
        return lambda _event: act(value)

    def note_text(self) -> str:
        lv = next(lv for lv in LEVELS if lv.name == self.level)
        return f"<b>{lv.label}</b>: {lv.description}"

    def pick_level(self, name: str) -> None:
        self.level = name
        self.rebuild()

    def pick_colour(self, colour: str) -> None:
        self.colour = colour
        self.rebuild()

    def shortcut(self, event: pygame.event.Event) -> None:
        """A level's number picks it; the focus stays (on Play: Enter then plays)."""
        index = choice_number(event)
        if index is not None and index < len(LEVELS):
            self.pick_level(LEVELS[index].name)

    def go(self) -> None:
        self.ctx.user.update_preferences(level=self.level, colour=self.colour)
        board = board_options(self.base, self.ctx.user.last_setup(self.base))
        self.ctx.nav.start_game(computer_game(board, self.level),
                                swapped=self.colour == "red")


class WatchScene(PickerScene):
    """Two AIs, each a level or any thinker discovery finds."""

    title = "Watch AIs"
    captions = ("White (moves first)", "Red")
    go_text = "Watch"

    def __init__(self, ctx: GuiContext, base: PlayOptions) -> None:
        super().__init__(ctx, base)
        self.thinkers = thinker_choices(base.thinker_paths)
        self.options: list[str | tuple[str, str]] = [*(lv.label for lv in LEVELS),
                                                     *self.thinkers]
        prefs = ctx.user.preferences()
        self.picked = [p if p in self.options else default for p, default in
                       ((prefs.watch_white, LEVELS[1].label), (prefs.watch_red, LEVELS[-1].label))]

    def build_row(self, index: int, rect: Rect, root: UIContainer, m: Metrics) -> list[str]:
        height = m.row + 6
        menu = UIDropDownMenu(self.options, self.picked[index],
                              Rect(rect.x, rect.y + (rect.h - height) // 2, rect.w, height),
                              root.ui_manager, container=root,
                              object_id=ObjectID("#thinker", "@drop_down"))
        key = ("white", "red")[index]
        self.widgets[key] = self.on(menu, lambda e: self.pick(index, e.text))
        return [key]

    def pick(self, index: int, text: str) -> None:
        self.picked[index] = text
        self.rebuild()

    def note_text(self) -> str:
        return ("Levels are the built-in AIs at Easy, Medium and Hard; the others are "
                "every thinker found (built in, --thinkers, installed). Up and Down pick; "
                "Enter opens the list.")

    def go(self) -> None:
        white, red = self.picked
        self.ctx.user.update_preferences(watch_white=white, watch_red=red)
        board = board_options(self.base, self.ctx.user.last_setup(self.base))
        self.ctx.nav.start_game(watch_game(board, ai_of(white, self.thinkers),
                                           ai_of(red, self.thinkers)))
