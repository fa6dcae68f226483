"""The home screen, the window's first view, through real key and mouse events
under the dummy driver: each choice reaches its game with the right players,
the keyboard alone gets everywhere, the last choice is remembered by the next
window, the layouts fit 800x600 and 1920x1080, and a game goes back home."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pygame
import pytest
from pygame import Rect

from csl_game.engine import Choice, Human, ThreadRunner
from csl_game.gui.app import App
from csl_game.gui.scenes.board_settings import SettingsScene
from csl_game.gui.scenes.home import HOME_CHOICES, HomeChoice, HomeScene, home_layout
from csl_game.gui.scenes.match import MatchScene
from csl_game.gui.scenes.menu import MenuOverlay
from csl_game.gui.scenes.pickers import ComputerScene, WatchScene, picker_layout
from csl_game.gui.scenes.setup import SetupScene
from csl_game.services.presets import level
from csl_game.services.settings import PlayOptions
from csl_game.services.userdata import UserData
from csl_game.thinker.prototype import ThinkerPrototype
from gui_events import DT, Apps, click, drop, key, result_overlay, run_until, type_into

SIZES = [(800, 600), (1920, 1080)]


def home(apps: Apps, size: tuple[int, int] = (1024, 700)) -> App:
    app = apps.open(PlayOptions(show_home=True, window_size=size, in_process=True,
                                last_move_animation_s=0.0), runner_factory=ThreadRunner)
    assert isinstance(app.scenes.current, HomeScene)
    return app


def enter(app: App) -> None:
    key(app, pygame.K_RETURN, frames=2)


def focused(app: App) -> str | None:
    if app.overlay is not None:
        return app.overlay.focus.key
    overlay = result_overlay(app)
    if overlay is not None:
        return overlay.focus.key
    return app.scenes.current.focus.key  # type: ignore[union-attr]


def playing(app: App) -> MatchScene:
    run_until(app, lambda: isinstance(app.scenes.current, MatchScene), seconds=30)
    scene = app.scenes.current
    assert isinstance(scene, MatchScene)
    return scene


def described(player: object) -> tuple[str, str] | str:
    """A player as (thinker's short name, parameters), or 'human'."""
    if isinstance(player, Human):
        return "human"
    assert isinstance(player, ThinkerPrototype)
    return player.requested_name, player.params


# ----------------------------------------------------------------- the first view
def test_home_is_the_first_view_with_numbered_choices(apps: Apps) -> None:
    app = home(apps)
    scene = app.scenes.current
    assert isinstance(scene, HomeScene) and app.flow is None
    texts = [scene.buttons[c.key].text for c in HOME_CHOICES]
    assert texts == [f"{n}    {c.label}" for n, c in enumerate(HOME_CHOICES, 1)]
    assert [c.label for c in HOME_CHOICES] == [
        "Play the computer", "Two players on this computer", "Watch AIs", "Tournament",
        "Play online"]
    assert focused(app) == "computer", "a first window starts on the first choice"


def test_a_window_opened_to_play_skips_home(apps: Apps) -> None:
    app = apps.open(PlayOptions(show_setup=True, window_size=(1024, 700)))
    assert isinstance(app.scenes.current, SetupScene)
    assert app.scenes.current.buttons["quit"].text == "Quit", "no home to go back to"


# ----------------------------------------------------------------- each choice
@pytest.mark.parametrize("colour, seats", [("white", ("human", ("negamax", ""))),
                                           ("red", (("negamax", ""), "human"))])
def test_play_the_computer_at_hard(apps: Apps, colour: str,
                                   seats: tuple[object, object]) -> None:
    app = home(apps)
    key(app, pygame.K_1)
    picker = app.scenes.current
    assert isinstance(picker, ComputerScene) and focused(app) == "go"
    key(app, pygame.K_3)  # Hard, the focus left on Play
    assert picker.level == "hard" and focused(app) == "go"
    key(app, pygame.K_UP)  # the colour row, above Play: Red
    assert focused(app) == "colour.red"
    if colour == "white":
        key(app, pygame.K_LEFT)
    key(app, pygame.K_SPACE)
    assert picker.colour == colour
    key(app, pygame.K_DOWN)  # down to Play, whichever colour
    assert focused(app) == "go"
    enter(app)
    scene = playing(app)
    session = scene.session
    assert session.is_single and tuple(map(described, session.players)) == seats
    assert (level("hard").thinker, level("hard").params) in map(described, session.players)


def test_two_players_start_at_once(apps: Apps) -> None:
    app = home(apps)
    key(app, pygame.K_DOWN)
    assert focused(app) == "two_players"
    enter(app)
    scene = app.scenes.current
    assert isinstance(scene, MatchScene), "no pre-match screen: the game starts"
    assert all(isinstance(p, Human) for p in scene.session.players)


def test_watch_two_ais_picked_with_the_keyboard(apps: Apps) -> None:
    app = home(apps)
    key(app, pygame.K_3)
    picker = app.scenes.current
    assert isinstance(picker, WatchScene) and picker.picked == ["Medium", "Hard"]
    key(app, pygame.K_UP)
    assert focused(app) == "red"
    key(app, pygame.K_DOWN)  # the drop-down's next option: the first thinker found
    thinker = picker.picked[1]
    assert thinker == next(iter(picker.thinkers)) and thinker in picker.thinkers
    key(app, pygame.K_TAB)  # on to Back, then Watch (Enter on a list opens it)
    key(app, pygame.K_TAB)
    assert focused(app) == "go"
    enter(app)
    session = playing(app).session
    white, red = session.players
    assert described(white) == (level("medium").thinker, level("medium").params)
    assert isinstance(red, ThinkerPrototype) and red.fqn == picker.thinkers[thinker]


def test_tournament_is_the_setup_screen_with_a_way_home(apps: Apps) -> None:
    app = home(apps)
    key(app, pygame.K_4)
    setup = app.scenes.current
    assert isinstance(setup, SetupScene)
    assert setup.buttons["quit"].text == "Home"
    click(app, setup.buttons["quit"])
    assert isinstance(app.scenes.current, HomeScene) and focused(app) == "tournament"


def test_settings_change_the_board_of_the_home_games(apps: Apps, user_home: Path) -> None:
    app = home(apps)
    click(app, app.scenes.current.buttons["settings"])  # type: ignore[union-attr]
    settings = app.scenes.current
    assert isinstance(settings, SettingsScene) and settings.form is not None
    assert "workers" not in settings.form.controls, "only what a home game uses"
    rows = settings.form.controls["rows"]
    type_into(app, rows, "45")  # type: ignore[arg-type]
    assert not settings.buttons["save"].is_enabled
    assert settings.message is not None and "Rows" in settings.message.html_text
    enter(app)
    assert app.scenes.current is settings, "nothing bad is saved"
    type_into(app, rows, "5")  # type: ignore[arg-type]
    assert settings.buttons["save"].is_enabled
    enter(app)  # saves
    assert isinstance(app.scenes.current, HomeScene)
    assert "rows = 5" in (user_home / "last-setup.toml").read_text(encoding="utf-8")
    key(app, pygame.K_2)
    assert playing(app).session.config.rows == 5


# ----------------------------------------------------------------- the keyboard
def test_keyboard_moves_wrap_and_escape(apps: Apps) -> None:
    app = home(apps)
    order = [c.key for c in HOME_CHOICES] + ["settings", "quit"]
    for expected in order[1:] + order[:1]:
        key(app, pygame.K_DOWN)
        assert focused(app) == expected
    key(app, pygame.K_TAB, pygame.KMOD_SHIFT)
    assert focused(app) == "quit"
    key(app, pygame.K_ESCAPE)
    assert isinstance(app.overlay, MenuOverlay)
    assert "Home" not in [item.text for item in app.overlay.items], "home is here already"
    key(app, pygame.K_ESCAPE)
    key(app, pygame.K_1)
    assert isinstance(app.scenes.current, ComputerScene)
    key(app, pygame.K_ESCAPE)
    assert isinstance(app.scenes.current, HomeScene) and app.overlay is None, \
        "Esc leaves a picker for home"
    key(app, pygame.K_UP)
    enter(app)  # Quit
    assert not app.running


# ----------------------------------------------------------------- remembering
def test_the_last_choice_level_and_colour_are_remembered(apps: Apps) -> None:
    first = home(apps)
    key(first, pygame.K_1)
    key(first, pygame.K_1)  # Easy (the focus stays on Play)
    key(first, pygame.K_UP)  # Red, above Play
    key(first, pygame.K_SPACE)
    assert first.scenes.current.colour == "red"  # type: ignore[union-attr]
    key(first, pygame.K_DOWN)
    enter(first)
    playing(first)
    first.close()
    assert UserData().preferences().home_choice == "computer"
    second = home(apps)
    assert focused(second) == "computer"
    enter(second)
    picker = second.scenes.current
    assert isinstance(picker, ComputerScene)
    assert (picker.level, picker.colour) == ("easy", "red")
    key(second, pygame.K_ESCAPE)
    key(second, pygame.K_3)
    key(second, pygame.K_ESCAPE)
    third = home(apps)
    assert focused(third) == "watch"


# ----------------------------------------------------------------- after a game
def test_a_finished_game_offers_play_again_and_home(apps: Apps) -> None:
    app = home(apps)
    key(app, pygame.K_2)
    for col in (0, 1, 0, 1, 0, 1, 0):  # four whites in column 0
        drop(app, col)
    run_until(app, lambda: result_overlay(app) is not None)
    overlay = result_overlay(app)
    assert overlay is not None
    assert overlay.buttons[Choice.SETUP].text == "Home"
    assert overlay.buttons[Choice.PLAY_AGAIN].text == "Play again"
    click(app, overlay.buttons[Choice.PLAY_AGAIN])
    assert isinstance(app.scenes.current, MatchScene), "play again starts at once"
    key(app, pygame.K_ESCAPE)
    texts = [item.text for item in app.overlay.items]  # type: ignore[union-attr]
    assert "Home" in texts and "Back to setup" not in texts
    for _ in range(texts.index("Home")):
        key(app, pygame.K_DOWN)
    enter(app)
    assert isinstance(app.scenes.current, HomeScene) and app.flow is None
    assert focused(app) == "two_players"


# ----------------------------------------------------------------- layouts
def _on_screen_and_apart(rects: list[Rect], size: tuple[int, int]) -> None:
    screen = Rect(0, 0, *size)
    for rect in rects:
        assert screen.contains(rect), f"{rect} is off the {size} window"
    for a, b in itertools.combinations(rects, 2):
        assert not a.colliderect(b), f"{a} overlaps {b}"


@pytest.mark.unit
@pytest.mark.parametrize("size, count", [(size, count) for size in SIZES + [(1280, 800)]
                                          for count in (4, 5, 9)] + [((640, 480), 5)], ids=str)
def test_layouts_fit(size: tuple[int, int], count: int) -> None:
    lay = home_layout(size, count)
    _on_screen_and_apart([lay.title, lay.subtitle, *lay.buttons(), lay.hint], size)
    assert min(r.h for r in lay.choices) >= 28, "big enough to read and click"
    picker = picker_layout(size, 2)
    _on_screen_and_apart(picker.all_rects(), size)


def _widget_rects(app: App) -> list[Rect]:
    scene = app.scenes.current
    widgets = scene.focus.items()  # type: ignore[union-attr]
    return [Rect(w.rect) for _, w in widgets if w.visible]


@pytest.mark.parametrize("size", SIZES, ids=str)
def test_every_screen_of_home_fits_the_window(apps: Apps, size: tuple[int, int]) -> None:
    app = home(apps, size)
    assert len(_widget_rects(app)) == len(HOME_CHOICES) + 2
    _on_screen_and_apart(_widget_rects(app), size)
    for shortcut in (pygame.K_1, pygame.K_3):
        key(app, shortcut)
        _on_screen_and_apart(_widget_rects(app), size)
        key(app, pygame.K_ESCAPE)
    app.scenes.current.open_settings()  # type: ignore[union-attr]
    app.step(DT)
    settings = app.scenes.current
    assert isinstance(settings, SettingsScene) and settings.form is not None
    _on_screen_and_apart([Rect(b.rect) for b in settings.buttons.values()]
                         + [Rect(settings.form.scroller.rect)], size)


# ----------------------------------------------------------------- one more choice
def test_one_more_choice_is_one_more_item(apps: Apps) -> None:
    chosen: list[str] = []
    extra = HomeChoice("extra", "Something new", lambda home: chosen.append(home.base.__class__
                                                                          .__name__))
    app = apps.open(PlayOptions(show_home=True, window_size=(800, 600)))
    app.scenes.switch(HomeScene(app.ctx, app.base, [*HOME_CHOICES, extra]))
    app.step(DT)
    scene = app.scenes.current
    number = len(HOME_CHOICES) + 1
    assert isinstance(scene, HomeScene) and scene.buttons["extra"].text.startswith(str(number))
    _on_screen_and_apart(_widget_rects(app), (800, 600))
    key(app, pygame.K_0 + number)
    assert chosen == ["PlayOptions"] and UserData().preferences().home_choice == "extra"


def test_the_readme_describes_every_choice() -> None:
    """The README's "Playing in the window" numbers the choices as the home
    screen does and says what each one is."""
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("**The home screen**", 1)[1].split("**Settings**", 1)[0]
    assert f"(1 to {len(HOME_CHOICES)};" in section
    described = re.findall(r"^- \*\*(.+?)\*\*", section, re.M)
    assert described == [c.label for c in HOME_CHOICES]
