"""The setup screen: AI players, settings, config files, and Start.

The scene keeps a draft (players and the settings as typed) and checks it
with the engine's `SetupChecker` after every edit: the mode follows the active
players, a bad value is named in place, and Start works only for a valid
setup. Players are checked in worker processes without blocking a frame:
each frame takes the answers that came in. The draft outlives the widgets,
which are rebuilt on resize.
"""

from __future__ import annotations

import dataclasses
import html
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pygame
from pygame import Rect
from pygame_gui.core import ObjectID, UIContainer
from pygame_gui.elements import UIButton, UILabel, UITextBox, UITextEntryLine

from csl_game.engine import mode_text
from csl_game.errors import ConfigFileError, CslError
from csl_game.gui.context import GuiContext
from csl_game.gui.focus import KeyFocus
from csl_game.gui.keys import SCREEN_KEYS
from csl_game.gui.scenes.setup_form import (
    MODES_HELP,
    PiecesFollow,
    PlayerEdits,
    PlayerRows,
    SettingsForm,
    field_label,
    setup_layout,
    thinker_help,
)
from csl_game.gui.widgets import Metrics, WidgetScene, button, label, set_text
from csl_game.services.limits import SETTING, setting_values
from csl_game.services.presets import LEVELS, NEW_OPPONENT, Level, level, level_of
from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.services.setup_file import (
    DERIVED_BY_UNKNOWN_TRACK,
    SetupChecker,
    load_config,
    save_config,
)
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.discovery import ThinkerRef, catalog, fqn_of

__all__ = ["SetupScene", "thinker_choices", "DEFAULT_CONFIG_PATH", "workers_warning"]

DEFAULT_CONFIG_PATH = "csl-game.toml"


def thinker_choices(paths: tuple[str, ...]) -> dict[str, str]:
    """Drop-down label -> fully qualified name of every known thinker.

    Labels are short names, or the full name where two thinkers share one.
    """
    reg = catalog(paths)  # the files are read, not run
    short = {fqn: reg.short_name(fqn) for fqn in reg.listed()}
    shared = {name for name in short.values() if list(short.values()).count(name) > 1}
    labels = {(fqn if name in shared else name): fqn for fqn, name in short.items()}
    return dict(sorted(labels.items()))


def unknown_track_entries(entries: dict[str, str | bool]) -> dict[str, str]:
    """The entries the unknown-track rules derive from the rows and columns typed
    (nothing while those are not valid)."""
    try:
        rows, cols = (SETTING[k].parse(str(entries[k])) for k in ("rows", "cols"))
        config = MatchConfig.unknown_track(int(rows), int(cols))
    except CslError:
        return {}
    return {key: SETTING[key].format(getattr(config, key)) for key in DERIVED_BY_UNKNOWN_TRACK}


def workers_warning(workers: int, cores: int | None = None) -> str:
    """A warning when more matches would be played at once than there are cores."""
    cores = cores or os.cpu_count() or 1
    if workers <= cores:
        return ""
    return (f"{workers} matches at once on {cores} core{'s' if cores != 1 else ''}: AIs "
            "would share cores and think less within their time limits")


def _describe(key: str, problem: str) -> str:
    if key in SETTING:
        return f"{field_label(key)}: {problem}"
    if key.startswith("players["):
        return f"AI player {key[len('players['):key.index(']')]}: {problem}"
    return f"{key}: {problem}"


class SetupScene(WidgetScene):
    """Choose the players and settings, then start (or save them to a file)."""

    def __init__(self, ctx: GuiContext, options: PlayOptions,
                 home: Callable[[], None] | None = None) -> None:
        """`home`: the screen has a Home button (doing that) instead of Quit."""
        super().__init__(ctx)
        self.base = options
        self.home = home
        self.levels: dict[str, Level] = {lv.label: lv for lv in LEVELS}
        self._typed_over: dict[int, Level] = {}
        """The level of a row whose parameters are being typed over."""
        self.thinkers = thinker_choices(options.thinker_paths)
        self.focus = KeyFocus(ctx.ui, self.layer, self._focusables, arrows="none")
        self.focus.key = "start"
        self._overwrite: str | None = None
        """The existing file a second Save replaces."""
        self.described: int | None = None
        """The player whose AI the help box describes."""
        self.players: list[AIEntry] = []
        self.entries: dict[str, str | bool] = {}
        self._take(options)
        self.path = DEFAULT_CONFIG_PATH
        self.note: tuple[str, str] | None = None
        """A message about the last load or save, and its style."""
        self.checker = SetupChecker()
        self.check = self.checker.check(self.base, self.entries, self.players)
        self.mode_label: UILabel | None = None
        self.message: UITextBox | None = None
        self.message_text = ""
        """The message shown under the lists: the first problem, or what was loaded or saved."""
        self.start: UIButton | None = None
        self.path_entry: UITextEntryLine | None = None
        self.buttons: dict[str, UIButton] = {}
        self.rows: PlayerRows | None = None
        self.form: SettingsForm | None = None

    def _take(self, options: PlayOptions) -> None:
        """Show the players and settings of `options` in the draft."""
        self.players = [dataclasses.replace(ai, thinker=self._label_of(ai.thinker))
                        for ai in options.ais]
        self.entries = {key: value if isinstance(value, bool) else SETTING[key].format(value)
                        for key, value in setting_values(options).items()}
        self.pieces = PiecesFollow(self.entries)

    def _label_of(self, thinker: str) -> str:
        try:
            found = catalog(self.base.thinker_paths).find(thinker)
        except CslError:
            return thinker  # shown as is; the check names the problem
        fqn = found.fqn if isinstance(found, ThinkerRef) else fqn_of(found)
        return next((lab for lab, f in self.thinkers.items() if f == fqn), thinker)

    # ------------------------------------------------------------- widgets
    def build(self, root: UIContainer, m: Metrics) -> None:
        lay = setup_layout(m.size)
        label(lay.title, "ColorShapeLinks", root, "#title_left")
        self.mode_label = label(lay.mode, "", root, "#mode")
        edits = PlayerEdits(self._set_thinker, self._set_params, self._set_active, self._remove)
        self.rows = PlayerRows(root, m, lay.players, [*self.levels, *self.thinkers], self.on,
                               edits, self._add, self._shown_as)
        self.rows.show(self.players)
        self.form = SettingsForm(root, m, lay.settings, self.entries, self.on, self._set_entry)
        self.message = UITextBox("", lay.message, root.ui_manager, container=root,
                                 object_id=ObjectID("#message", "@text_box"))
        self._message_style = "#message"
        self._bottom_row(root, m, lay.buttons)
        self._derive()
        self._refresh()

    def _bottom_row(self, root: UIContainer, m: Metrics, rect: Rect) -> None:
        bw = m.button_w
        start = self.on(button(Rect(rect.right - bw, rect.y, bw, rect.h), "Start", root,
                               "#primary"), lambda _e: self._start())
        self.start = start
        home = self.home
        quit_ = self.on(button(Rect(start.rect.x - m.gap - bw, rect.y, bw, rect.h),
                               "Quit" if home is None else "Home", root),
                        lambda _e: self.ctx.nav.quit() if home is None else home())
        caption = round(96 * m.scale)
        label(Rect(rect.x, rect.y, caption, rect.h), "Config file", root, "#field")
        small = round(bw * 0.7)
        entry_w = max(80, start.rect.x - 2 * bw - 4 * m.gap - 2 * small - rect.x - caption)
        entry = UITextEntryLine(Rect(rect.x + caption, rect.y, entry_w, rect.h),
                                root.ui_manager, container=root, initial_text=self.path,
                                object_id=ObjectID("#config_path", "@entry"))
        self.path_entry = self.on(entry, self._set_path)
        x = entry.rect.right + m.gap
        load = self.on(button(Rect(x, rect.y, small, rect.h), "Load", root),
                       lambda _e: self._load())
        save = self.on(button(Rect(x + small + m.gap, rect.y, small, rect.h), "Save", root),
                       lambda _e: self._save())
        self.buttons = {"start": start, "quit": quit_, "load": load, "save": save}

    def update(self, dt: float) -> None:
        if self.rows is not None:
            self.rows.follow_scroll()
        if self.checker.poll():
            self._refresh()

    def exit(self) -> None:
        self.checker.close()
        super().exit()

    def _shown_as(self, ai: AIEntry) -> str:
        """A player's drop-down text: its level's name, or its thinker."""
        lv = level_of(ai.thinker, ai.params)
        return lv.label if lv is not None else ai.thinker

    # ------------------------------------------------------------- keyboard
    def _focusables(self) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = []
        if self.rows is not None:
            out += self.rows.focusables()
        if self.form is not None:
            out += self.form.focusables()
        if self.path_entry is not None:
            out.append(("path", self.path_entry))
        out += [(name, self.buttons[name]) for name in ("load", "save", "quit", "start")
                if name in self.buttons]
        return out

    def focus_rect(self) -> Rect | None:
        return self.focus.rect()

    def escape(self) -> bool:
        """Esc closes an open list; else the window's menu opens."""
        return self.focus.close_menu()

    def handle_event(self, event: pygame.event.Event) -> None:
        if event.type == pygame.MOUSEBUTTONUP:
            self.focus.follow_mouse()
        if self.layer.dispatch(event):
            return
        if self.focus.handle_key(event):
            key = self.focus.key or ""
            if key.startswith("s.") and self.form is not None:
                self.form.reveal(self.form.controls[key[2:]])
            return
        if SCREEN_KEYS.binding("go").matches(event):
            self._start()  # Enter in a text entry starts (a button, a list: what it says)

    # ------------------------------------------------------------- checking
    def _refresh(self) -> None:
        """Check the draft; show the mode, every problem beside its field and
        all of them in the message, and whether Start works (players are
        checked in worker processes: their verdicts arrive in later frames)."""
        self.check = self.checker.check(self.base, self.entries, self.players)
        active = sum(ai.active for ai in self.players)
        if self.mode_label is not None:
            set_text(self.mode_label, f"Mode: {mode_text(active)}")
        problems = self.check.problems
        warning = self._warning()
        if problems:
            text = "\n".join(_describe(k, p) for k, p in problems.items())
            style = "#error"
        elif self.note is not None:
            text, style = self.note
        else:
            text, style = (warning, "#warning") if warning else ("", "#message")
        self._say(text, style)
        if self.form is not None:
            cores = os.cpu_count() or 1
            self.form.mark(problems, {"workers": f"more than the {cores} cores"}
                           if warning else None)
        self._mark_players(problems)
        self._describe_ai()
        if self.start is not None:
            if self.check.options is None:
                self.start.disable()
            else:
                self.start.enable()

    def _warning(self) -> str:
        try:
            workers = int(str(self.entries.get("workers", "1")))
        except ValueError:
            return ""
        return workers_warning(workers) if sum(a.active for a in self.players) > 2 else ""

    def _mark_players(self, problems: dict[str, str]) -> None:
        rows = self.rows
        if rows is None:
            return
        marks = {int(k[len("players["):k.index("]")]) - 1: p for k, p in problems.items()
                 if k.startswith("players[")}
        if marks != rows.problems:
            rows.problems = marks
            rows.show(self.players)

    def _describe_ai(self) -> None:
        """The help box: the focused (or last edited) player's AI, with its
        parameters; the modes when no player is chosen."""
        rows = self.rows
        if rows is None or rows.help_box is None:
            return
        key = self.focus.key or ""
        if key.startswith("p") and "." in key:
            self.described = int(key[1:key.index(".")])
        index = self.described
        text = MODES_HELP
        if index is not None and index < len(self.players):
            ai = self.players[index]
            text = thinker_help(self.thinkers.get(ai.thinker, ai.thinker),
                                level_of(ai.thinker, ai.params), self.base.thinker_paths)
        if text != getattr(rows.help_box, "html_text", None):
            rows.help_box.set_text(text)

    def _say(self, text: str, style: str) -> None:
        """Show a message (wrapped to two lines) in the style of the theme's `style`."""
        self.message_text = text
        if self.message is None:
            return
        if style != self._message_style:
            self.message.change_object_id(ObjectID(style, "@text_box"))
            self._message_style = style
        self.message.set_text(html.escape(text).replace("\n", "<br>"))

    def _edited(self) -> None:
        self.note = None
        self._ask_overwrite(None)
        self._refresh()

    # ------------------------------------------------------------- edits
    def _set_thinker(self, index: int, thinker: str) -> None:
        self._typed_over.clear()
        lv = self.levels.get(thinker)
        old = self.players[index]
        if lv is not None:
            self.players[index] = AIEntry(lv.thinker, lv.params, old.active)
        else:
            params = "" if level_of(old.thinker, old.params) else old.params
            self.players[index] = dataclasses.replace(old, thinker=thinker, params=params)
        self.described = index
        if self.rows is not None:
            self.rows.show(self.players)  # the parameters a level sets show at once
        self._edited()

    def _set_params(self, index: int, params: str) -> None:
        """Parameters typed for a player; for a level's row they replace the
        level's own, and an empty field gives them back."""
        old = self.players[index]
        lv = self._typed_over.get(index) or level_of(old.thinker, old.params)
        if lv is not None:
            self._typed_over[index] = lv
        text = params.strip() or (lv.params if lv is not None else "")
        self.players[index] = dataclasses.replace(old, params=text)
        self._edited()

    def _set_active(self, index: int, active: bool) -> None:
        self.players[index] = dataclasses.replace(self.players[index], active=active)
        self._edited()

    def _remove(self, index: int) -> None:
        self._typed_over.clear()
        del self.players[index]
        assert self.rows is not None
        self.rows.show(self.players)
        self._edited()

    def _add(self) -> None:
        start = level(NEW_OPPONENT)
        if start.thinker in self.thinkers:
            self.players.append(AIEntry(start.thinker, start.params))
        else:
            self.players.append(AIEntry(next(iter(self.thinkers))))
        assert self.rows is not None
        self.rows.show(self.players, keep_first=False)
        self._edited()

    def _set_entry(self, key: str, value: str | bool) -> None:
        self.entries[key] = value
        follow = self.pieces.edit(self.entries, key, str(value))  # a quarter of the cells each
        self.entries.update(follow)
        if self.form is not None:
            self.form.show(follow)
        self._derive()
        self._edited()

    def _derive(self) -> None:
        """Under the unknown-track rules, show (and lock) what rows and columns decide."""
        derived = unknown_track_entries(self.entries) if self.entries["unknown_track"] else None
        if derived:
            self.entries.update(derived)
        if self.form is not None:
            self.form.show_derived(derived)

    def _set_path(self, event: pygame.event.Event) -> None:
        self.path = event.text
        self._ask_overwrite(None)

    # ------------------------------------------------------------- actions
    def _start(self) -> None:
        if self.check.options is not None:
            self.ctx.user.save_last_setup(self.check.options)
            self.ctx.nav.play(self.check.options)

    def _load(self) -> None:
        try:
            options = load_config(self.path.strip(), self.base)
        except ConfigFileError as e:
            self.note = (str(e), "#error")
            self._refresh()
            return
        if options.thinker_paths != self.base.thinker_paths:  # the file declares engines
            self.base = dataclasses.replace(self.base, thinker_paths=options.thinker_paths)
            self.thinkers = thinker_choices(self.base.thinker_paths)
        self._take(options)
        self.note = (f"Loaded the setup from {self.path.strip()}", "#message")
        self.rebuild()

    def _save(self) -> None:
        if self.check.options is None:
            key, problem = next(iter(self.check.problems.items()))
            self._say(f"Not saved: {_describe(key, problem)}", "#error")
            return
        path = self.path.strip()
        if Path(path).exists() and self._overwrite != path:
            self._ask_overwrite(path)
            self._say(f"{path} exists: press Replace to write over it, or edit the file name",
                      "#warning")
            return
        self._ask_overwrite(None)
        try:
            save_config(path, self.check.options)
        except ConfigFileError as e:
            self._say(str(e), "#error")
            return
        self.note = (f"Saved the setup to {path}", "#message")
        self._refresh()

    def _ask_overwrite(self, path: str | None) -> None:
        """Save becomes Replace while `path` waits for a second press."""
        self._overwrite = path
        save = self.buttons.get("save")
        if save is not None:
            wanted = "Save" if path is None else "Replace"
            if save.text != wanted:
                save.set_text(wanted)
