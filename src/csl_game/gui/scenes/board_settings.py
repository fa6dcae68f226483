"""The home screen's Settings: the board, the AIs' time limits and the
animation, as the setup screen's own settings form shows them.

They are the remembered setup's settings (the file the setup screen saves
when a tournament starts), so the home's games and the tournament share one
board; Save writes them back with the remembered AI players untouched.
Tab moves, Enter saves, Esc goes back without saving.
"""

from __future__ import annotations

import dataclasses
import html
from typing import Any

import pygame
from pygame import Rect
from pygame_gui.core import ObjectID, UIContainer
from pygame_gui.elements import UIButton, UITextBox

from csl_game.gui.context import GuiContext
from csl_game.gui.focus import KeyFocus
from csl_game.gui.keys import SCREEN_KEYS
from csl_game.gui.scenes.setup import unknown_track_entries
from csl_game.gui.scenes.setup_form import (
    FORM,
    SCROLL_BAR,
    PiecesFollow,
    SettingsForm,
    field_label,
)
from csl_game.gui.widgets import Metrics, WidgetScene, button, label
from csl_game.services.limits import SETTING, setting_values
from csl_game.services.settings import PlayOptions
from csl_game.services.setup_file import SetupChecker

__all__ = ["SettingsScene", "HOME_SECTIONS"]

HOME_SECTIONS = tuple(section for section in FORM
                      if section[0] in ("Board", "AI players", "Display"))
"""The settings a game from the home screen uses (the rest are a tournament's)."""


class SettingsScene(WidgetScene):
    """The settings form of the home's games, with Back and Save."""

    def __init__(self, ctx: GuiContext, base: PlayOptions) -> None:
        super().__init__(ctx)
        self.base = base
        self.remembered = ctx.user.last_setup(base) or base
        self.entries: dict[str, str | bool] = {
            key: value if isinstance(value, bool) else SETTING[key].format(value)
            for key, value in setting_values(self.remembered).items()}
        self.pieces = PiecesFollow(self.entries)
        self.checker = SetupChecker()
        self.check = self.checker.check(self.remembered, self.entries, ())
        self.form: SettingsForm | None = None
        self.message: UITextBox | None = None
        self.buttons: dict[str, UIButton] = {}
        self.focus = KeyFocus(ctx.ui, self.layer, self._focusables, arrows="none")
        self.focus.key = "s.rows"

    def build(self, root: UIContainer, m: Metrics) -> None:
        w, h = m.size
        width = min(w - 2 * m.margin, round(760 * m.scale))
        small, form_h = m.row + 6, SettingsForm.height(m, HOME_SECTIONS) + 4
        total = m.title + m.gap + form_h + m.gap + 2 * m.row + m.gap + small
        x, top = (w - width) // 2, max(m.margin, (h - total) // 2)
        label(Rect(x, top, width, m.title), "Settings", root, "#title_left")
        body_top = top + m.title + m.gap
        bottom_y = min(h - m.margin - small, body_top + form_h + 2 * m.gap + 2 * m.row)
        bottom = Rect(x, bottom_y, width - SCROLL_BAR, small)
        message = Rect(x, bottom.y - m.gap - 2 * m.row, width, 2 * m.row)
        body = Rect(x, body_top, width, message.y - m.gap - body_top)
        self.form = SettingsForm(root, m, body, self.entries, self.on, self._set_entry,
                                 HOME_SECTIONS, "For every game started from the home screen")
        self.message = UITextBox("", message, root.ui_manager, container=root,
                                 object_id=ObjectID("#error", "@text_box"))
        half = min(m.button_w * 3 // 2, (width - m.gap) // 2)
        self.buttons = {
            "back": self.on(button(Rect(x, bottom.y, half, small), "Back", root),
                            lambda _e: self.back()),
            "save": self.on(button(Rect(bottom.right - half, bottom.y, half, small), "Save",
                                   root, "#primary"), lambda _e: self.save())}
        self._derive()
        self._refresh()

    def _focusables(self) -> list[tuple[str, Any]]:
        controls = self.form.focusables() if self.form is not None else []
        return [*controls, *self.buttons.items()]

    def focus_rect(self) -> Rect | None:
        return self.focus.rect()

    # ------------------------------------------------------------- editing
    def _set_entry(self, key: str, value: str | bool) -> None:
        self.entries[key] = value
        follow = self.pieces.edit(self.entries, key, str(value))  # a quarter of the cells each
        self.entries.update(follow)
        if self.form is not None:
            self.form.show(follow)
        self._derive()
        self._refresh()

    def _derive(self) -> None:
        """Under the unknown-track rules, show (and lock) what rows and columns decide."""
        derived = unknown_track_entries(self.entries) if self.entries["unknown_track"] else None
        if derived:
            self.entries.update(derived)
        if self.form is not None:
            self.form.show_derived(derived)

    def _refresh(self) -> None:
        self.check = self.checker.check(self.remembered, self.entries, ())
        problems = self.check.problems
        if self.form is not None:
            self.form.mark(problems)
        if self.message is not None:
            text = "<br>".join(html.escape(f"{field_label(k)}: {p}")
                               for k, p in problems.items())
            self.message.set_text(text)
        save = self.buttons.get("save")
        if save is not None:
            (save.enable if self.check.options is not None else save.disable)()
        self._changed = True

    # ------------------------------------------------------------- leaving
    def save(self) -> None:
        """Remember the settings (with the remembered players), then go home."""
        if self.check.options is None:
            return
        self.ctx.user.save_last_setup(dataclasses.replace(self.check.options,
                                                          ais=self.remembered.ais))
        self.back()

    def back(self) -> None:
        self.ctx.nav.show_home()

    def escape(self) -> bool:
        self.back()
        return True

    def exit(self) -> None:
        self.checker.close()
        super().exit()

    def handle_event(self, event: pygame.event.Event) -> None:
        if self.layer.dispatch(event):
            return
        if self.focus.handle_key(event):
            key = self.focus.key or ""
            if key.startswith("s.") and self.form is not None:
                self.form.reveal(self.form.controls[key[2:]])
            self._changed = True
            return
        if SCREEN_KEYS.binding("go").matches(event):
            self.save()
