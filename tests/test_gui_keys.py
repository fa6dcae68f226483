"""Every screen by keyboard alone, through real key events under the dummy driver:
a level's number then Enter plays it, Down goes down to Play, Enter on a choice
picks it and plays, a list opens with Enter (Up and Down pick, Enter takes, Esc
closes), F1's page scrolls and names every key, a waiting or final screen never
has Cancel or Quit under Enter; the keys, the buttons and the help come from one
table per screen."""

from __future__ import annotations

import html

import pygame
import pytest
from pygame_gui.elements import UIDropDownMenu, UITextBox

from csl_game.engine.match import Human
from csl_game.engine.runners.thread import ThreadRunner
from csl_game.gui.app import App
from csl_game.gui.keys import ALL_TABLES, LIST_KEYS, MATCH_KEYS, REPLAY_KEYS, WATCH_KEYS
from csl_game.gui.scenes.home import HomeScene
from csl_game.gui.scenes.match import MatchScene
from csl_game.gui.scenes.menu import HOW_TO_PLAY, HelpOverlay
from csl_game.gui.scenes.pickers import ComputerScene, WatchScene
from csl_game.gui.scenes.setup import SetupScene
from csl_game.services.presets import level
from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype
from gui_events import DT, Apps, key, run_until

SMALL = MatchConfig(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4,
                    time_limit_ms=2000, min_move_time_ms=0)


def home(apps: Apps, size: tuple[int, int] = (1024, 700)) -> App:
    app = apps.open(PlayOptions(show_home=True, window_size=size, in_process=True,
                                last_move_animation_s=0.0), runner_factory=ThreadRunner)
    assert isinstance(app.scenes.current, HomeScene)
    return app


def enter(app: App) -> None:
    key(app, pygame.K_RETURN, frames=2)


def playing(app: App) -> MatchScene:
    run_until(app, lambda: isinstance(app.scenes.current, MatchScene), seconds=30)
    scene = app.scenes.current
    assert isinstance(scene, MatchScene)
    return scene


def seats(scene: MatchScene) -> list[object]:
    return ["human" if isinstance(p, Human) else (p.requested_name, p.params)
            for p in scene.session.players
            if isinstance(p, Human | ThinkerPrototype)]


# ----------------------------------------------------------------- playing the computer
def test_a_level_number_then_enter_plays_that_level(apps: Apps) -> None:
    app = home(apps)
    key(app, pygame.K_1)
    picker = app.scenes.current
    assert isinstance(picker, ComputerScene) and picker.focus.key == "go"
    key(app, pygame.K_1)  # Easy: picked, and the focus stays on Play
    assert picker.level == "easy" and app.scenes.current.focus.key == "go"  # type: ignore
    enter(app)
    easy = level("easy")
    assert seats(playing(app)) == ["human", (easy.thinker, easy.params)]


def test_down_goes_down_to_play_and_enter_on_a_choice_picks_it_and_plays(apps: Apps) -> None:
    app = home(apps)
    key(app, pygame.K_1)
    picker = app.scenes.current
    assert isinstance(picker, ComputerScene)
    key(app, pygame.K_UP)  # from Play up to the colours (Red), and up to the levels
    key(app, pygame.K_UP)
    assert picker.focus.key == "level.medium"
    key(app, pygame.K_LEFT)
    assert picker.focus.key == "level.easy"
    key(app, pygame.K_DOWN)
    key(app, pygame.K_DOWN)
    assert picker.focus.key == "go", "Down, Down from Easy lands on Play, not on Back"
    key(app, pygame.K_UP)
    key(app, pygame.K_UP)
    key(app, pygame.K_RIGHT)
    assert picker.focus.key == "level.hard" and picker.level != "hard"
    enter(app)  # Enter on Hard: Hard, and play
    hard = level("hard")
    assert (hard.thinker, hard.params) in seats(playing(app))


def test_space_on_a_choice_only_picks_it(apps: Apps) -> None:
    app = home(apps)
    key(app, pygame.K_1)
    picker = app.scenes.current
    assert isinstance(picker, ComputerScene)
    key(app, pygame.K_UP)
    assert picker.focus.key == "colour.red" and picker.colour == "white"
    key(app, pygame.K_SPACE)
    assert picker.colour == "red" and app.scenes.current is picker


# ----------------------------------------------------------------- lists
def _open_list(app: App, menu: UIDropDownMenu) -> None:
    for _ in range(3):
        app.step(DT)
    assert menu.current_state is menu.menu_states["expanded"], "Enter opens the list"


def test_the_thinker_list_opens_with_enter_and_picks_with_the_arrows(apps: Apps) -> None:
    app = apps.open(PlayOptions(ais=(AIEntry("random"),), show_setup=True, in_process=True,
                                window_size=(1024, 700)))
    setup = app.scenes.current
    assert isinstance(setup, SetupScene) and setup.rows is not None
    setup.focus.set("p0.thinker")
    menu = setup.rows.widgets[0].thinker
    enter(app)
    assert app.flow is None, "Enter on a list opens it: the session does not start"
    _open_list(app, menu)
    options = [o[0] if isinstance(o, tuple) else o for o in menu.options_list]
    at = options.index("random")
    assert at >= 2
    key(app, pygame.K_UP)
    key(app, pygame.K_UP)
    ring = app.scenes.current.focus_rect()
    assert ring is not None and not menu.rect.contains(ring), "the ring is on the option"
    enter(app)
    assert setup.players[0].thinker == options[at - 2] and app.flow is None
    widget = setup.rows.widgets[0].thinker
    assert widget.current_state is widget.menu_states["closed"]
    # Esc closes an open list without taking anything, and opens no menu
    enter(app)
    _open_list(app, setup.rows.widgets[0].thinker)
    key(app, pygame.K_DOWN)
    key(app, pygame.K_ESCAPE, frames=3)
    assert app.overlay is None and setup.players[0].thinker == options[at - 2]
    widget = setup.rows.widgets[0].thinker
    assert widget.current_state is widget.menu_states["closed"]


def test_the_watch_picker_opens_its_lists_with_enter(apps: Apps) -> None:
    app = home(apps)
    key(app, pygame.K_3)
    picker = app.scenes.current
    assert isinstance(picker, WatchScene)
    key(app, pygame.K_TAB)  # from Watch round to White's list
    assert picker.focus.key == "white"
    key(app, pygame.K_SPACE)
    _open_list(app, picker.widgets["white"])
    key(app, pygame.K_UP)  # Medium to Easy
    key(app, pygame.K_RETURN)
    assert picker.picked[0] == "Easy" and isinstance(app.scenes.current, WatchScene)


# ----------------------------------------------------------------- help
def test_help_names_every_key_and_scrolls_with_the_keyboard(apps: Apps) -> None:
    for table in ALL_TABLES:
        for binding in table.bindings:
            assert binding.names in HOW_TO_PLAY and binding.does in HOW_TO_PLAY
    for letter, action in (("A", "analysis"), ("V", "review"), ("X", "mistake")):
        table = REPLAY_KEYS if action != "analysis" else MATCH_KEYS
        assert table.names(action) == letter
    assert MATCH_KEYS.names("resign") == "R, twice" and "<b>T</b>" in HOW_TO_PLAY
    app = home(apps, (800, 600))
    key(app, pygame.K_F1)
    overlay = app.overlay
    assert isinstance(overlay, HelpOverlay) and isinstance(overlay.text, UITextBox)
    app.step(DT)
    assert overlay.text.scroll_bar is not None, "at 800x600 the page scrolls"
    assert overlay.scroll == 0
    key(app, pygame.K_DOWN)
    down = overlay.scroll
    assert down > 0
    key(app, pygame.K_PAGEDOWN)
    assert overlay.scroll > down
    key(app, pygame.K_END)
    assert overlay.scroll == pytest.approx(1.0, abs=0.01)
    key(app, pygame.K_HOME)
    assert overlay.scroll == 0
    key(app, pygame.K_ESCAPE)
    assert app.overlay is None


def test_the_match_buttons_name_the_keys_of_the_table(apps: Apps) -> None:
    app = apps.open(PlayOptions(ais=(AIEntry("random"),), match=SMALL, in_process=True,
                                window_size=(1920, 1080), last_move_animation_s=0.0))
    enter(app)
    tools = playing(app).tools
    assert tools is not None
    for name in ("hint", "undo", "resign", "analysis"):
        assert tools.buttons[name].tool_tip_text.endswith(f": {MATCH_KEYS.names(name)}")
    watch = apps.open(PlayOptions(ais=(AIEntry("random"), AIEntry("random")), match=SMALL,
                                  in_process=True, window_size=(1920, 1080)))
    enter(watch)
    tools = playing(watch).tools
    assert tools is not None
    for name in ("pause", "slower", "faster", "analysis"):
        assert tools.buttons[name].tool_tip_text.endswith(f": {WATCH_KEYS.names(name)}")


# ----------------------------------------------------------------- one table of keys
_SPOKEN = {"return": "Enter", "enter": "Enter", "space": "Space", "escape": "Esc",
           "backspace": "Backspace", "page up": "Page Up", "page down": "Page Down",
           "[-]": "-", "[+]": "+", "=": "+"}
"""How help names a key pygame calls otherwise (the keypad's and '=' as the key's own sign)."""


def _spoken(code: int) -> str:
    name = pygame.key.name(code)
    return "digits" if name.strip("[]").isdigit() else _SPOKEN.get(name, name)


def test_no_module_of_the_window_but_the_table_names_a_key() -> None:
    """gui/keys.py is the one table of keys: no other module reads a key code or
    a modifier itself (the 38 pygame.K_* of seven modules are gone)."""
    import re
    from pathlib import Path

    import csl_game.gui as gui

    root = Path(gui.__file__).parent
    found = {str(p.relative_to(root)): re.findall(r"\bK(?:MOD)?_\w+", p.read_text())
             for p in root.rglob("*.py") if p.name != "keys.py"}
    assert {k: v for k, v in found.items() if v} == {}


def test_f1_names_every_key_each_table_takes(apps: Apps) -> None:
    """F1 opened by its key shows each table's every binding, and each key a
    binding takes is named in it (an open list's Page Up, Page Down, Home and
    End included)."""
    app = home(apps)
    key(app, pygame.K_F1)
    overlay = app.overlay
    assert isinstance(overlay, HelpOverlay) and isinstance(overlay.text, UITextBox)
    shown = html.unescape(overlay.text.html_text)
    assert "An open list" in shown
    for table in ALL_TABLES:
        assert table.title in shown
        for binding in table.bindings:
            assert f"<b>{binding.names}</b>: {binding.does}" in shown, binding.action
            for code, _ in binding.chords:
                assert _spoken(code).lower() in binding.names.lower(), \
                    (table.title, binding.action, _spoken(code))
    assert (LIST_KEYS.names("page"), LIST_KEYS.names("ends")) == ("Page Up, Page Down",
                                                                   "Home, End")


def test_an_open_list_takes_end_home_and_the_pages(apps: Apps) -> None:
    """The keys help gives an open list do what it says, through real key events."""
    app = apps.open(PlayOptions(ais=(AIEntry("random"),), show_setup=True, in_process=True,
                                window_size=(1024, 700)))
    setup = app.scenes.current
    assert isinstance(setup, SetupScene) and setup.rows is not None
    setup.focus.set("p0.thinker")
    enter(app)
    menu = setup.rows.widgets[0].thinker
    _open_list(app, menu)
    count = len(menu.options_list)
    assert count > 2
    key(app, pygame.K_END)
    assert setup.focus.picked == count - 1
    key(app, pygame.K_HOME)
    assert setup.focus.picked == 0
    key(app, pygame.K_PAGEDOWN)
    assert setup.focus.picked == min(8, count - 1)
    key(app, pygame.K_PAGEUP)
    assert setup.focus.picked == 0
    key(app, pygame.K_DOWN)
    assert setup.focus.picked == 1
    options = [o[0] if isinstance(o, tuple) else o for o in menu.options_list]
    enter(app)
    chosen = setup.rows.widgets[0].thinker.selected_option
    assert (chosen[0] if isinstance(chosen, tuple) else chosen) == options[1]


def test_the_window_keys_come_from_the_global_table(apps: Apps) -> None:
    """App._global_key reads GLOBAL_KEYS: Q alone does not quit, Ctrl+Q does;
    M mutes and unmutes; Esc opens the menu and closes it."""
    app = home(apps)
    key(app, pygame.K_q)
    assert app.running
    muted = app.ctx.sound.muted
    key(app, pygame.K_m)
    assert app.ctx.sound.muted is not muted
    key(app, pygame.K_m)
    key(app, pygame.K_ESCAPE)
    assert app.overlay is not None and app.overlay.title == "Menu"
    key(app, pygame.K_ESCAPE)
    assert app.overlay is None
    key(app, pygame.K_q, pygame.KMOD_CTRL)
    assert not app.running


@pytest.mark.parametrize("watching", [False, True], ids=["playing", "watching"])
def test_at_800x600_the_match_buttons_are_named_not_bare_symbols(apps: Apps,
                                                                 watching: bool) -> None:
    """A narrow sidebar's toolbar takes two rows, so each button shows its
    name ('Hint', 'Analysis'), not a bare symbol (◑ for Eval), and keeps
    its tooltip (issue 43, item 8)."""
    ais = (AIEntry("random"), AIEntry("random")) if watching else (AIEntry("random"),)
    standard = MatchConfig(time_limit_ms=2000, min_move_time_ms=0)  # 6 x 7: a narrow sidebar
    app = apps.open(PlayOptions(ais=ais, match=standard, in_process=True,
                                window_size=(800, 600), last_move_animation_s=0.0))
    enter(app)
    scene = playing(app)
    tools = scene.tools
    assert tools is not None
    words = {"hint": "Hint", "undo": "Undo", "resign": "Resign", "analysis": "Analysis",
             "menu": "Menu", "pause": "Pause", "slower": "Slower", "faster": "Faster"}
    rects = []
    for name, widget in tools.buttons.items():
        assert widget.text.startswith(words[name]) or widget.text.startswith("Go on"), \
            widget.text
        assert widget.tool_tip_text, name
        rects.append(pygame.Rect(widget.rect))
    assert len({r.y for r in rects}) == 2, "two rows"
    assert all(scene.layout.toolbar.contains(r) for r in rects)
    assert not any(r.colliderect(o) for i, r in enumerate(rects) for o in rects[i + 1:])
