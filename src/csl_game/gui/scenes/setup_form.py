"""The setup screen's layout and its two lists: AI players and settings.

`setup_layout()` is pure (window size in, rectangles out). `PlayerRows` and
`SettingsForm` build widgets for a draft of the setup and report edits
through callbacks; the scene owns the draft and what the edits mean.
"""

from __future__ import annotations

import html
import inspect
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pygame import Rect
from pygame_gui.core import ObjectID, UIContainer
from pygame_gui.elements import (
    UIButton,
    UICheckBox,
    UIDropDownMenu,
    UIScrollingContainer,
    UITextBox,
    UITextEntryLine,
    UIVerticalScrollBar,
)

from csl_game.errors import CslError
from csl_game.gui.widgets import Handler, HintedEntry, Metrics, button, label, set_text
from csl_game.services.limits import SETTING, Setting
from csl_game.services.presets import Level
from csl_game.services.settings import AIEntry, default_pieces
from csl_game.thinker.discovery import ThinkerRef, catalog, fqn_of

__all__ = ["SetupLayout", "setup_layout", "PlayerRows", "SettingsForm", "FORM", "Sections",
           "field_label", "PiecesFollow",
           "thinker_help", "parameters_text", "MODES_HELP"]

SCROLL_BAR = 20
MODES_HELP = ("The active AI players decide what is played: none, two humans play each "
              "other; one, you play it; two, they play each other (you choose who starts); "
              "three or more, a tournament where every pair plays twice, once with each "
              "colour.")


def _paragraphs(doc: str) -> list[str]:
    return [" ".join(p.split()) for p in inspect.cleandoc(doc).split("\n\n") if p.strip()]


def parameters_text(doc: str) -> str:
    """The "Parameters" part of a docstring (with its list), on one line."""
    paragraphs = _paragraphs(doc)
    start = next((i for i, p in enumerate(paragraphs) if p.startswith("Parameters")), None)
    if start is None:
        return ""
    parts = [paragraphs[start]]
    parts += [p for p in paragraphs[start + 1:start + 2] if p.startswith("- ")]
    text = " ".join(parts).replace("``", "").replace(" - ", " \u00b7 ")
    return text.replace(": \u00b7 ", ": ").replace("; \u00b7 ", " \u00b7 ")


def thinker_help(name: str, level: Level | None, paths: tuple[str, ...]) -> str:
    """What the help box says of an AI: its level, what its thinker does
    (the class docstring's first paragraph) and its parameters (from the class
    or its module's docstring), as text-box HTML."""
    lines = []
    if level is not None:
        lines.append(f"<b>{level.label}</b>: {html.escape(level.description)}")
    try:
        reg = catalog(paths)  # a --thinkers file is read, not run
        found = reg.find(name)
    except CslError:
        return "<br>".join(lines) or MODES_HELP
    if isinstance(found, ThinkerRef):
        fqn, doc, module_doc = found.fqn, found.doc, found.module_doc
    else:
        fqn, doc = fqn_of(found), inspect.getdoc(found) or ""
        module_doc = getattr(sys.modules.get(found.__module__), "__doc__", None) or ""
    first = _paragraphs(doc)[0] if doc.strip() else ""
    params = parameters_text(doc) or parameters_text(module_doc) or "No parameters."
    short = reg.short_name(fqn)
    lines.append(f"<b>{html.escape(short)}</b>: {html.escape(first)}")
    lines.append(html.escape(params))
    return "<br>".join(lines)


@dataclass(frozen=True)
class SetupLayout:
    """Every area of the setup screen for one window size."""

    metrics: Metrics
    title: Rect
    mode: Rect
    players: Rect
    """Heading, column headers, rows and the Add button."""
    settings: Rect
    message: Rect
    buttons: Rect
    """The bottom row: config file entry, Load, Save ... Quit, Start."""


def setup_layout(size: tuple[int, int]) -> SetupLayout:
    """Players on the left, settings on the right, file and start at the bottom."""
    m = Metrics(size)
    w, h = size
    inner = w - 2 * m.margin
    title = Rect(m.margin, m.margin, inner * 2 // 5, m.title)
    mode = Rect(title.right, m.margin, inner - title.w, m.title)
    buttons = Rect(m.margin, h - m.margin - m.row - 6, inner, m.row + 6)
    message_h = max(44, round(48 * m.scale))  # two lines of text
    message = Rect(m.margin, buttons.y - m.gap - message_h, inner, message_h)
    top = title.bottom + m.gap
    body_h = message.y - m.gap - top
    left_w = (inner - 2 * m.gap) * 11 // 20
    players = Rect(m.margin, top, left_w, body_h)
    settings = Rect(players.right + 2 * m.gap, top, inner - left_w - 2 * m.gap, body_h)
    return SetupLayout(m, title, mode, players, settings, message, buttons)


@dataclass(frozen=True)
class RowWidgets:
    """The widgets of one player's row."""

    thinker: UIDropDownMenu
    params: UITextEntryLine
    active: UICheckBox
    remove: UIButton


@dataclass(frozen=True)
class PlayerEdits:
    """What PlayerRows reports, by row index."""

    thinker: Callable[[int, str], None]
    params: Callable[[int, str], None]
    active: Callable[[int, bool], None]
    remove: Callable[[int], None]


class PlayerRows:
    """The AI players as rows (thinker, parameters, active, remove), paged by a
    scroll bar when they do not all fit.

    Rows are plain widgets of the screen's container rather than of a
    scrolling container, so a thinker's drop-down list is never clipped.
    """

    def __init__(self, root: UIContainer, m: Metrics, rect: Rect, thinkers: Sequence[str],
                 on: Callable[[Any, Handler], Any], edits: PlayerEdits,
                 add: Callable[[], None],
                 shown_as: Callable[[AIEntry], str] = lambda ai: ai.thinker) -> None:
        self.root, self.m, self.on, self.edits, self.add = root, m, on, edits, add
        self.shown_as = shown_as
        """The drop-down's text for a player: its level's name, or its thinker."""
        self.problems: dict[int, str] = {}
        """A problem per player index, shown by its row's number."""
        self.thinkers = list(thinkers)
        pitch = m.row + m.gap // 2
        self.pitch = pitch
        label(Rect(rect.x, rect.y, rect.w, m.row), "AI players", root, "#heading")
        head_y = rect.y + m.row
        self.cols = self._columns(rect.x, rect.w - SCROLL_BAR - m.gap)
        for (x, w), text in zip(self.cols, ("", "Thinker", "Parameters", "Active",
                                            "")):
            label(Rect(x, head_y, w, m.row - 4), text, root, "#cell_head")
        list_top = head_y + m.row - 4
        help_h = 4 * m.row
        self.help = Rect(rect.x, rect.bottom - help_h, rect.w, help_h)
        self.help_box: UITextBox | None = None
        self.area = Rect(rect.x, list_top, rect.w, self.help.y - m.gap - list_top)
        # one slot stays free for the Add button
        self.visible = max(1, self.area.h // pitch - 1)
        self.first = 0
        self.rows: UIContainer | None = None
        self.scroll: UIVerticalScrollBar | None = None
        self.players: list[AIEntry] = []
        self.widgets: dict[int, RowWidgets] = {}
        """The rows shown, by player index."""
        self.add_button: UIButton | None = None
        self.help_box = UITextBox(MODES_HELP, self.help, root.ui_manager, container=root,
                                  object_id=ObjectID("#help", "@text_box"))

    def _columns(self, x: int, w: int) -> list[tuple[int, int]]:
        s, g = self.m.scale, self.m.gap
        number, thinker = round(30 * s), round(150 * s)
        active, remove = max(58, round(60 * s)), round(36 * s)
        params = max(60, w - number - thinker - active - remove - 4 * g)
        widths = [number, thinker, params, active, remove]
        cols = []
        for width in widths:
            cols.append((x, width))
            x += width + g
        return cols

    def show(self, players: Sequence[AIEntry], keep_first: bool = True) -> None:
        """(Re)build the rows for `players`."""
        self.players = list(players)
        last_first = max(0, len(self.players) - self.visible)
        self.first = min(self.first if keep_first else last_first, last_first)
        if self.rows is not None:
            self.rows.kill()
        rows = self.rows = UIContainer(Rect((0, 0), self.root.rect.size), self.root.ui_manager,
                                       container=self.root)
        self.widgets.clear()
        shown = min(self.visible, len(self.players) - self.first)
        for slot in range(shown):
            self._row(rows, self.first + slot, self.area.y + slot * self.pitch)
        add_w = self.m.button_w * 3 // 2
        add = button(Rect(self.cols[1][0], self.area.y + shown * self.pitch + self.m.gap // 2,
                          add_w, self.m.row), "+ Add AI player", rows, "#add")
        self.add_button = self.on(add, lambda _e: self.add())
        self._scroll_bar()

    def _row(self, rows: UIContainer, index: int, y: int) -> None:
        ai, h, edits = self.players[index], self.m.row, self.edits
        (nx, nw), (tx, tw), (px, pw), (ax, aw), (rx, rw) = self.cols
        problem = self.problems.get(index)
        number = label(Rect(nx, y, nw, h), f"{index + 1}" + (" !" if problem else ""), rows,
                       "#field_bad" if problem else "#cell_num")
        if problem:
            number.set_tooltip(problem)
        shown = self.shown_as(ai)
        options: list[str | tuple[str, str]] = [*self.thinkers]
        if shown not in self.thinkers:
            options.append(shown)
        menu = UIDropDownMenu(options, shown, Rect(tx, y, tw, h), rows.ui_manager,
                              container=rows,
                              object_id=ObjectID("#thinker", "@drop_down"))
        self.on(menu, lambda e: edits.thinker(index, e.text))
        # a level's parameters are its own: not shown raw ("depth=3"), and
        # what is typed there replaces them (erased, the level's come back)
        own = shown != ai.thinker
        entry = HintedEntry(Rect(px, y, pw, h), rows.ui_manager, container=rows,
                            initial_text="" if own else ai.params,
                            placeholder_text=f"({shown}'s own)" if own else None,
                            object_id=ObjectID("#params", "@entry"))
        if problem:
            entry.set_tooltip(problem)
        self.on(entry, lambda e: edits.params(index, e.text))
        box = min(h - 6, max(24, h * 3 // 4))
        check = UICheckBox(Rect(ax + (aw - box) // 2, y + (h - box) // 2, box, box), "",
                           rows.ui_manager, container=rows, initial_state=ai.active,
                           object_id=ObjectID("#active", "@check"))
        self.on(check, lambda _e: edits.active(index, bool(check.is_checked)))
        remove = button(Rect(rx, y, rw, h), "\u00d7", rows, "#remove")
        remove.set_tooltip("Remove this player")
        self.on(remove, lambda _e: edits.remove(index))
        self.widgets[index] = RowWidgets(menu, entry, check, remove)

    def _scroll_bar(self) -> None:
        if self.scroll is not None:
            self.scroll.kill()
            self.scroll = None
        count = len(self.players)
        if count <= self.visible:
            return
        rect = Rect(self.area.right - SCROLL_BAR, self.area.y, SCROLL_BAR,
                    self.visible * self.pitch)
        self.scroll = UIVerticalScrollBar(rect, self.visible / count, self.root.ui_manager,
                                          container=self.root)
        self.scroll.set_scroll_from_start_percentage(self.first / count)

    def focusables(self) -> list[tuple[str, Any]]:
        """The rows' widgets in Tab order, then the Add button."""
        out: list[tuple[str, Any]] = []
        for index, row in sorted(self.widgets.items()):
            out += [(f"p{index}.thinker", row.thinker), (f"p{index}.params", row.params),
                    (f"p{index}.active", row.active), (f"p{index}.remove", row.remove)]
        if self.add_button is not None:
            out.append(("add", self.add_button))
        return out

    def follow_scroll(self) -> None:
        """Show the rows the scroll bar points at (called every frame)."""
        if self.scroll is None or not self.scroll.has_moved_recently:
            return
        first = round(self.scroll.start_percentage * len(self.players))
        first = max(0, min(first, len(self.players) - self.visible))
        if first != self.first:
            self.first = first
            self.show(self.players)


Sections = tuple[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], ...]
"""Sections of a settings form: a title, then rows of a label and the settings' keys."""

FORM: Sections = (
    ("Board", (("Rows", ("rows",)), ("Columns", ("cols",)),
               ("Unknown track: the rest from rows and columns", ("unknown_track",)),
               ("Win sequence", ("win_sequence",)),
               ("Round pieces per player", ("round_pieces",)),
               ("Square pieces per player", ("square_pieces",)))),
    ("AI players", (("Time limit per move (ms)", ("time_limit_ms",)),
                    ("Minimum move time (ms)", ("min_move_time_ms",)))),
    ("Display", (("Last-move animation (s)", ("last_move_animation_s",)),)),
    ("Tournament", (("Points: win / draw / loss",
                     ("points_per_win", "points_per_draw", "points_per_loss")),
                    ("Wait for Start before each match", ("wait_before_match",)),
                    ("Wait for OK after each match", ("wait_after_match",)),
                    ("Screen time when not waiting (s)", ("unblocked_screen_s",)),
                    ("Matches played at once", ("workers",)),
                    ("Competition tie-breaks for first place", ("competition",)))),
    ("Results", (("Results file (a line per match)", ("results_file",)),
                 ("Resume from the results file", ("resume",)),
                 ("Web site folder (live)", ("site_folder",)))),
)
"""Sections of the settings form: rows of a label and one or more settings."""


class PiecesFollow:
    """The pieces entries follow the board's size: when rows or columns change
    and the pieces were the last board's quarter of the cells each, they become
    the new board's (pieces typed for a board are kept). Typing goes through
    sizes that are no number (a field emptied): the last good size counts."""

    def __init__(self, entries: dict[str, str | bool]) -> None:
        self.board = self._size(entries) or (0, 0)

    @staticmethod
    def _size(entries: dict[str, str | bool]) -> tuple[int, int] | None:
        try:
            return int(str(entries["rows"])), int(str(entries["cols"]))
        except ValueError:
            return None

    def edit(self, entries: dict[str, str | bool], key: str, text: str) -> dict[str, str]:
        """The pieces entries to show now that `key` is `text` (already in `entries`)."""
        if key not in ("rows", "cols"):
            return {}
        new = self._size(entries)
        if new is None or new == self.board:
            return {}
        old, self.board = self.board, new
        try:
            pieces = int(str(entries["round_pieces"])), int(str(entries["square_pieces"]))
        except ValueError:
            return {}
        if pieces != default_pieces(*old):
            return {}
        rounds, squares = default_pieces(*new)
        return {"round_pieces": str(rounds), "square_pieces": str(squares)}


def field_label(key: str) -> str:
    """How the form names a setting (its row's label, unless the row has several)."""
    for _, rows in FORM:
        for text, keys in rows:
            if keys == (key,):
                return text
    return SETTING[key].label


class SettingsForm:
    """Every setting as a label and a text entry (a check box for yes/no), in
    sections (the sections of `FORM`, or those given)."""

    def __init__(self, root: UIContainer, m: Metrics, rect: Rect,
                 entries: dict[str, str | bool], on: Callable[[Any, Handler], Any],
                 edited: Callable[[str, str | bool], None], sections: Sections | None = None,
                 heading: str = "Settings") -> None:
        sections = FORM if sections is None else sections
        label(Rect(rect.x, rect.y, rect.w, m.row), heading, root, "#heading")
        pitch, head = m.row + 2, max(20, round(24 * m.scale))
        height = self.height(m, sections) - m.row
        body = Rect(rect.x, rect.y + m.row, rect.w, rect.h - m.row)
        scroller = UIScrollingContainer(body, root.ui_manager, container=root,
                                        allow_scroll_x=False, object_id="#form")
        width = body.w - SCROLL_BAR
        scroller.set_scrollable_area_dimensions((width, height))
        self.scroller = scroller
        entry_w = round(100 * m.scale)
        self.labels: dict[str, Any] = {}
        self.controls: dict[str, UITextEntryLine | UICheckBox] = {}
        self._bad: set[int] = set()
        """ids of the labels shown as bad."""
        self.titles: dict[int, str] = {}
        """Each label's own text, by id."""
        self._styles: dict[int, str] = {}
        y = 0
        for title, rows in sections:
            label(Rect(0, y, width, head), title.upper(), scroller, "#section")
            y += head
            for text, keys in rows:
                wide = SETTING[keys[0]].kind is str
                control_w = width // 2 if wide else entry_w
                widget = label(Rect(0, y, width - control_w - m.gap, m.row), text, scroller,
                               "#field")
                self.titles[id(widget)] = text
                self._styles[id(widget)] = "#field"  # as made: no new theme unless marked
                small = control_w if len(keys) == 1 else max(44, round(56 * m.scale))
                left = width - len(keys) * small - (len(keys) - 1) * m.gap
                for i, key in enumerate(keys):
                    self.labels[key] = widget
                    x = left + i * (small + m.gap)
                    self.controls[key] = self._control(
                        SETTING[key], Rect(x, y, small, m.row), entries[key], scroller, on,
                        edited)
                y += pitch

    @staticmethod
    def height(m: Metrics, sections: Sections = FORM) -> int:
        """The height the form needs to show every one of `sections` without scrolling."""
        pitch, head = m.row + 2, max(20, round(24 * m.scale))
        return m.row + sum(head + pitch * len(rows) for _, rows in sections)

    @staticmethod
    def _control(setting: Setting, rect: Rect, value: str | bool, container: Any,
                 on: Callable[[Any, Handler], Any],
                 edited: Callable[[str, str | bool], None]) -> UITextEntryLine | UICheckBox:
        key = setting.key
        if isinstance(value, bool):
            box = min(rect.h - 6, max(24, rect.h * 3 // 4))
            check = UICheckBox(Rect(rect.x, rect.y + (rect.h - box) // 2, box, box), "",
                               container.ui_manager, container=container, initial_state=value,
                               object_id=ObjectID(f"#{key}", "@check"))
            on(check, lambda _e: edited(key, bool(check.is_checked)))
            return check
        entry = UITextEntryLine(rect, container.ui_manager, container=container,
                                initial_text=value,
                                object_id=ObjectID(f"#{key}", "@entry"))
        if setting.kind is not str:
            entry.set_allowed_characters(list("0123456789.-"))
        on(entry, lambda e: edited(key, e.text))
        return entry

    def show(self, values: dict[str, str]) -> None:
        """Show `values` in their text entries (settings that follow another)."""
        for key, text in values.items():
            control = self.controls.get(key)
            if isinstance(control, UITextEntryLine) and control.get_text() != text:
                control.set_text(text)

    def show_derived(self, values: dict[str, str] | None) -> None:
        """Show settings the form does not edit (derived from others) and lock them;
        None unlocks every text entry."""
        for key, control in self.controls.items():
            if not isinstance(control, UITextEntryLine):
                continue
            if values is not None and key in values:
                control.set_text(values[key])
                control.disable()
            elif not control.is_enabled:
                control.enable()

    def mark(self, problems: dict[str, str], notes: dict[str, str] | None = None) -> None:
        """Show each setting's problem (or note, such as a warning) in its label,
        in the error colour, the whole text as the label's tooltip."""
        notes = notes or {}
        texts: dict[int, str] = {}
        for key, problem in {**notes, **problems}.items():
            if key in self.labels:
                texts[id(self.labels[key])] = f"{field_label(key)}: {problem}"
        bad = {id(self.labels[k]) for k in problems if k in self.labels}
        for widget in {id(w): w for w in self.labels.values()}.values():
            text = texts.get(id(widget), self.titles[id(widget)])
            wanted = ("#field_bad" if id(widget) in bad else
                      "#warning_field" if id(widget) in texts else "#field")
            if self._styles.get(id(widget)) != wanted:
                widget.change_object_id(ObjectID(wanted, "@label"))
                self._styles[id(widget)] = wanted
            set_text(widget, text)
            widget.set_tooltip(text if id(widget) in texts else None)
        self._bad = bad

    def focusables(self) -> list[tuple[str, Any]]:
        """The settings' controls in Tab order."""
        return [(f"s.{key}", control) for key, control in self.controls.items()]

    def reveal(self, control: Any) -> None:
        """Scroll the settings so that `control` (one of theirs) is in view,
        with its row's neighbours when there is room."""
        bar = self.scroller.vert_scroll_bar
        if bar is None:
            return  # every setting is in view
        view, content = self.scroller.rect, self.scroller.scrollable_container.rect
        top, bottom = control.rect.top - content.top, control.rect.bottom - content.top
        offset = view.top - content.top
        margin = control.rect.h
        if top - margin < offset:
            offset = top - margin
        elif bottom + margin > offset + view.h:
            offset = bottom + margin - view.h
        else:
            return
        offset = max(0, min(offset, content.h - view.h))
        bar.set_scroll_from_start_percentage(offset / content.h)
