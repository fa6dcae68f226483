"""The window's rough edges, through real events under the dummy driver at
800x600, 1280x800 and 1920x1080: choice buttons that hold their text, the
Esc menu over a screen of widgets (dimmed, after a resize too), drop-down
rows as tall as their text, a picker's whole note, and the server's join
code and Enter on the online picker."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest
from pygame import Rect
from pygame_gui.elements import UIButton, UIDropDownMenu, UITextEntryLine

from csl_game.engine.runners.thread import ThreadRunner
from csl_game.gui.app import App
from csl_game.gui.scenes.menu import MenuOverlay
from csl_game.gui.scenes.online import OnlineScene
from csl_game.gui.scenes.online_wait import OnlineWaitScene
from csl_game.gui.scenes.pickers import ComputerScene, WatchScene
from csl_game.gui.scenes.setup import SetupScene
from csl_game.gui.server_table import ServerTable
from csl_game.server import ServerOptions
from csl_game.services.settings import PlayOptions
from gui_events import DT, Apps, click, key, post
from server_thread import ServerThread

SIZES = [(800, 600), (1280, 800), (1920, 1080)]


def _home(apps: Apps, size: tuple[int, int]) -> App:
    return apps.open(PlayOptions(show_home=True, window_size=size, in_process=True),
                     runner_factory=ThreadRunner)


def _holds_its_text(widget: UIButton) -> bool:
    """The text and a margin either side (pygame_gui's padding at least) fit the button."""
    font = widget.font
    assert font is not None
    return font.size(widget.text)[0] + 2 * 8 <= widget.rect.w


def _colours(surface: pygame.Surface, rect: Rect) -> int:
    area = surface.subsurface(rect.clip(surface.get_rect()))
    return len({area.get_at((x, y))[:3] for x in range(area.get_width())
                for y in range(area.get_height())})


# ----------------------------------------------------------------- item 3
@pytest.mark.parametrize("size", SIZES)
def test_choice_buttons_hold_their_text_at_every_size(apps: Apps, size: tuple[int, int]
                                                      ) -> None:
    app = _home(apps, size)
    key(app, pygame.K_5, frames=2)
    online = app.scenes.current
    assert isinstance(online, OnlineScene)
    for mode in ("host", "server"):
        click(app, online.widgets[f"mode.{mode}"])
        online = app.scenes.current  # type: ignore[assignment]
        assert isinstance(online, OnlineScene) and online.mode == mode
        buttons = [w for k, w in online.widgets.items() if isinstance(w, UIButton)
                   and k.split(".")[0] in ("mode", "colour", "player")]
        assert any(b.text == "On a server" for b in buttons)
        for b in buttons:
            assert _holds_its_text(b), f"'{b.text}' is cut or touches its edges at {size}"
        rects = [Rect(b.rect) for b in buttons]
        assert not any(r.colliderect(o) for i, r in enumerate(rects) for o in rects[i + 1:])
    key(app, pygame.K_ESCAPE, frames=2)
    key(app, pygame.K_1, frames=2)
    computer = app.scenes.current
    assert isinstance(computer, ComputerScene)
    for name, widget in computer.widgets.items():
        if isinstance(widget, UIButton) and "." in name:
            assert _holds_its_text(widget), f"'{widget.text}' at {size}"


# ----------------------------------------------------------------- item 4
def _setup(apps: Apps, size: tuple[int, int]) -> tuple[App, SetupScene]:
    app = _home(apps, size)
    key(app, pygame.K_4, frames=2)
    scene = app.scenes.current
    assert isinstance(scene, SetupScene)
    return app, scene


@pytest.mark.parametrize("resize_to", [None, (800, 600), (1920, 1080)])
def test_the_esc_menu_dims_the_setup_screen_and_stays_on_top(
        apps: Apps, resize_to: tuple[int, int] | None) -> None:
    app, scene = _setup(apps, (1280, 800))
    key(app, pygame.K_ESCAPE, frames=2)
    assert isinstance(app.overlay, MenuOverlay)
    if resize_to is not None:
        post(pygame.VIDEORESIZE, size=resize_to, w=resize_to[0], h=resize_to[1])
        app.step(DT)
        app.step(DT)
        assert app.size == resize_to
    scene = app.scenes.current  # type: ignore[assignment]
    menu = app.overlay
    assert isinstance(menu, MenuOverlay)
    assert menu.layer.root is not None and scene.layer.root is not None
    shade = menu.shade.layer
    under = [w for w in _tree(scene.layer.root) if w.visible]
    assert len(under) > 20, "the setup screen's widgets stay, under the shade"
    for widget in under:
        assert widget.get_top_layer() < shade, \
            f"{type(widget).__name__} is drawn over the menu's shade"
    # the panel: nothing of the screen under it shows through its margin
    panel = menu.panel
    margin = Rect(panel.x + 4, panel.y + 4, 6, panel.h - 8)
    assert _colours(app.screen, margin) <= 2, "the screen's labels show over the menu"
    # the screen under it: dimmed, not gone (its Start button is still drawn there)
    start = Rect(scene.buttons["start"].rect)
    assert not start.colliderect(panel)
    shaded = _colours(app.screen, start)
    key(app, pygame.K_ESCAPE, frames=2)
    assert app.overlay is None
    plain = app.screen.get_at(start.center)
    assert shaded > 4, "the setup screen is drawn under the menu"
    key(app, pygame.K_ESCAPE, frames=2)
    dim = app.screen.get_at(start.center)
    assert sum(dim[:3]) < sum(plain[:3]), "dimmed as a match's menu dims the board"


def _tree(element: Any) -> Iterator[Any]:
    """A UI element and every element inside it."""
    yield element
    container = element.get_container() if hasattr(element, "get_container") else None
    for child in getattr(container or element, "elements", ()):
        if child is not element:
            yield from _tree(child)


# ----------------------------------------------------------------- item 5
@pytest.mark.parametrize("size", SIZES)
def test_drop_down_rows_are_as_tall_as_their_text(apps: Apps, size: tuple[int, int]) -> None:
    app = _home(apps, size)
    key(app, pygame.K_3, frames=2)
    watch = app.scenes.current
    assert isinstance(watch, WatchScene)
    menu = watch.widgets["white"]
    assert isinstance(menu, UIDropDownMenu)
    click(app, menu, frames=3)
    state = menu.current_state
    items = state.options_selection_list.item_list  # type: ignore[union-attr]
    buttons = [item["button_element"] for item in items if item["button_element"] is not None]
    assert len(buttons) >= 3
    for upper, lower in zip(buttons, buttons[1:]):
        assert upper.rect.bottom <= lower.rect.top, "rows overlap"
    for b in buttons:
        assert b.font.size("\u00c9gy")[1] <= b.rect.h, f"'{b.text}' is cut at {size}"


# ----------------------------------------------------------------- item 7
@pytest.mark.parametrize("size", SIZES)
def test_a_pickers_note_is_shown_whole(apps: Apps, size: tuple[int, int]) -> None:
    app = _home(apps, size)
    for shortcut in (pygame.K_3, pygame.K_1):
        key(app, shortcut, frames=2)
        picker = app.scenes.current
        assert isinstance(picker, WatchScene | ComputerScene)
        note = picker.note
        assert note is not None and note.scroll_bar is None, "the note scrolls"
        layout = note.text_box_layout
        assert layout is not None and layout.layout_rect.height <= note.rect.h
        assert Rect(0, 0, *size).contains(note.rect)
        assert not note.rect.colliderect(picker.widgets["go"].rect)
        key(app, pygame.K_ESCAPE, frames=2)


# ----------------------------------------------------------------- item 6
@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerThread]:
    with ServerThread(tmp_path, ServerOptions()) as s:
        yield s


def _type(app: App, text: str) -> None:
    key(app, pygame.K_a, pygame.KMOD_CTRL)
    key(app, pygame.K_BACKSPACE)
    for char in text:
        post(pygame.TEXTINPUT, text=char)
    app.step(DT)


def test_enter_goes_field_to_field_and_a_servers_code_is_not_kept(
        apps: Apps, server: ServerThread) -> None:
    app = _home(apps, (1280, 800))
    key(app, pygame.K_5, frames=2)
    online = app.scenes.current
    assert isinstance(online, OnlineScene)
    click(app, online.widgets["mode.server"])
    online = app.scenes.current  # type: ignore[assignment]
    assert isinstance(online, OnlineScene)
    key(app, pygame.K_DOWN)
    assert online.focus.key == "server"
    _type(app, server.url)
    key(app, pygame.K_RETURN, frames=2)
    assert app.scenes.current is online and online.focus.key == "server_code", \
        "Enter in a field goes to the next one"
    assert isinstance(online.focus.widget(), UITextEntryLine)
    _type(app, "gone-game")
    key(app, pygame.K_RETURN, frames=2)
    assert app.scenes.current is online, "Enter in the code did not press Play"
    online.focus.set("name")
    _type(app, "Alice")
    key(app, pygame.K_RETURN, frames=2)  # the last field: Enter plays, as a form's does
    shown = app.scenes.current
    assert not isinstance(shown, OnlineScene) or shown.error, "Enter in the name plays"
    # a new window (a restart): the server remembered, its one-game code not
    again = _home(apps, (1280, 800))
    key(again, pygame.K_5, frames=2)
    picker = again.scenes.current
    assert isinstance(picker, OnlineScene) and picker.mode == "server"
    assert picker.widgets["server"].get_text() == server.url
    assert picker.widgets["server_code"].get_text() == ""
    click(again, picker.widgets["go"])
    waiting = again.scenes.current
    assert isinstance(waiting, OnlineWaitScene) and isinstance(waiting.table, ServerTable), \
        getattr(waiting, "error", "")


def test_the_menu_names_the_theme_and_the_sound_as_they_are(apps: Apps) -> None:
    app = _home(apps, (1280, 800))
    key(app, pygame.K_ESCAPE, frames=2)
    menu = app.overlay
    assert isinstance(menu, MenuOverlay)
    texts = [item.text for item in menu.items]
    assert "Theme: default" in texts and "Sound: on" in texts
    key(app, pygame.K_t, frames=2)
    menu = app.overlay
    assert isinstance(menu, MenuOverlay)
    assert "Theme: high contrast" in [item.text for item in menu.items]
