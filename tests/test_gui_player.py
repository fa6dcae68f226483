"""The player's game through real events under the dummy driver: keyboard only from
setup through a game and a tournament and back, the Esc menu and help, undo and
hint, levels, resizing at any moment, idle frames, sound, themes, remembered things."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pygame
import pytest

from csl_game.engine import Choice
from csl_game.gui.animation import VisualBoard
from csl_game.gui.app import App
from csl_game.gui.board_view import BoardView, Pointer
from csl_game.gui.layout import DROP_HEIGHT, compute_layout
from csl_game.gui.scenes.info import FinalScene, PreMatchScene
from csl_game.gui.scenes.match import MatchScene
from csl_game.gui.scenes.menu import HelpOverlay, MenuOverlay
from csl_game.gui.scenes.result import KEY_GUARD_S
from csl_game.gui.scenes.setup import SetupScene
from csl_game.gui.sound import Effect
from csl_game.gui.style import palette, theme_name
from csl_game.model.board import PColor
from csl_game.services.presets import level
from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.services.userdata import UserData
from csl_game.thinker.api import MatchConfig
from gui_events import (
    DT,
    Apps,
    board_scene,
    click,
    key,
    keys_reach_the_result,
    result_overlay,
    run_until,
    shown_result,
)

FAKES = str(Path(__file__).parent / "fakes" / "fake_thinkers.py")
SMALL = dict(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4)
MakeApp = Callable[..., App]


@pytest.fixture
def make_app(apps: Apps) -> MakeApp:
    def make(*ais: AIEntry, board: dict[str, int] = SMALL,
             size: tuple[int, int] | None = (1024, 700), **options: object) -> App:
        config = MatchConfig(**board, time_limit_ms=2000, min_move_time_ms=0)
        options.setdefault("last_move_animation_s", 0.0)
        return apps.open(PlayOptions(ais=ais, match=config, window_size=size, in_process=True,
                                     thinker_paths=(FAKES,), **options))  # type: ignore[arg-type]

    return make


def enter(app: App, frames: int = 2) -> None:
    key(app, pygame.K_RETURN, frames=frames)


def focused(app: App) -> str | None:
    scene = app.scenes.current
    if app.overlay is not None:
        return app.overlay.focus.key
    overlay = result_overlay(app)
    if overlay is not None:
        return overlay.focus.key
    return scene.focus.key  # type: ignore[no-any-return]


def focus_on(app: App, wanted: str, step: int = pygame.K_RIGHT) -> None:
    """Press `step` until `wanted` has the focus."""
    for _ in range(20):
        if focused(app) == wanted:
            return
        key(app, step)
    assert focused(app) == wanted


def type_digits(app: App, col: int) -> None:
    """The number of column `col` (from 0), as a player types it (from 1)."""
    for digit in str(col + 1):
        key(app, getattr(pygame, f"K_{digit}"))


def keyboard_drop(app: App, col: int) -> None:
    run_until(app, lambda: isinstance(app.scenes.current, MatchScene)
              and app.scenes.current.input_enabled)
    type_digits(app, col)
    enter(app, frames=1)


# ----------------------------------------------------------------- keyboard only
def test_keyboard_only_from_setup_through_a_game_and_back(make_app: MakeApp) -> None:
    app = make_app(show_setup=True)
    assert isinstance(app.scenes.current, SetupScene) and focused(app) == "start"
    enter(app)
    assert isinstance(app.scenes.current, PreMatchScene) and focused(app) == "Start"
    enter(app)
    scene = board_scene(app)
    for col in (0, 0, 1, 1, 2):
        keyboard_drop(app, col)
    run_until(app, lambda: result_overlay(app) is not None)
    assert scene.match is not None and scene.match.is_over
    assert focused(app) == Choice.PLAY_AGAIN.value
    keys_reach_the_result(app)
    focus_on(app, Choice.SETUP.value)
    enter(app)
    assert isinstance(app.scenes.current, SetupScene)


def test_keyboard_swaps_who_plays_first(make_app: MakeApp) -> None:
    app = make_app(AIEntry("sequential"))
    pre = app.scenes.current
    assert isinstance(pre, PreMatchScene) and pre.session.next_pairing == ("Human", "Sequential")
    focus_on(app, "Swap", pygame.K_LEFT)
    enter(app)
    pre = app.scenes.current
    assert isinstance(pre, PreMatchScene) and pre.session.next_pairing == ("Sequential", "Human")
    enter(app)
    assert isinstance(app.scenes.current, MatchScene)


def test_keyboard_through_a_tournament_and_back_to_setup(make_app: MakeApp) -> None:
    app = make_app(AIEntry("sequential"), AIEntry("nomove"), AIEntry("raiser"),
                   show_setup=True)
    enter(app)
    pre = app.scenes.current
    assert isinstance(pre, PreMatchScene) and pre.session.total_matches == 6
    assert len(pre._shown_tables[3][0].rows) == 6, "the matches to play are listed"
    for match in range(6):
        run_until(app, lambda: isinstance(app.scenes.current, PreMatchScene)
                  or isinstance(app.scenes.current, FinalScene))
        if isinstance(app.scenes.current, FinalScene):
            break
        enter(app)  # Start
        run_until(app, lambda: result_overlay(app) is not None)
        assert focused(app) == "OK"
        if match == 0:
            keys_reach_the_result(app)  # the result's keys come alive on the clock
        else:  # the same, with its KEY_GUARD_S already behind it
            overlay = shown_result(app)
            assert overlay.shown_at is not None
            overlay.shown_at -= KEY_GUARD_S
        enter(app)
    run_until(app, lambda: isinstance(app.scenes.current, FinalScene))
    assert focused(app) != "Quit", "Enter does not close the window by surprise"
    focus_on(app, Choice.SETUP.value)
    enter(app)
    assert isinstance(app.scenes.current, SetupScene)


def test_setup_tab_order_reaches_every_control(make_app: MakeApp) -> None:
    app = make_app(AIEntry("random"), show_setup=True)
    seen = set()
    for _ in range(60):
        key(app, pygame.K_TAB)
        seen.add(focused(app))
    assert {"p0.thinker", "p0.params", "p0.active", "add", "s.rows", "path", "save",
            "start"} <= seen
    focus_on(app, "p0.active", pygame.K_TAB)
    key(app, pygame.K_SPACE)
    setup = app.scenes.current
    assert isinstance(setup, SetupScene) and not setup.players[0].active
    focus_on(app, "s.rows", pygame.K_TAB)
    pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text="5"))  # rows 45: too many
    app.step(DT)
    app.step(DT)
    assert setup.entries["rows"] == "45" and not setup.buttons["start"].is_enabled, \
        "typing goes after the text the focus found"
    assert "Rows: must be" in setup.form.labels["rows"].text  # type: ignore[union-attr]


def test_tab_scrolls_each_setting_into_view(make_app: MakeApp) -> None:
    app = make_app(AIEntry("random"), show_setup=True, size=(800, 600))
    setup = app.scenes.current
    assert isinstance(setup, SetupScene) and setup.form is not None
    form = setup.form
    assert form.scroller.vert_scroll_bar is not None, "at 800x600 the settings scroll"

    def in_view(name: str) -> bool:
        return form.scroller.rect.contains(form.controls[name].rect)

    keys = list(form.controls)
    assert not in_view(keys[-1]), "the last setting starts out of view"
    focus_on(app, f"s.{keys[0]}", pygame.K_TAB)
    for name in keys[1:]:
        key(app, pygame.K_TAB, frames=3)
        assert focused(app) == f"s.{name}" and in_view(name), name
    for name in reversed(keys[:-1]):
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_TAB,
                                             mod=pygame.KMOD_SHIFT, unicode="", scancode=0))
        for _ in range(3):
            app.step(DT)
        assert focused(app) == f"s.{name}" and in_view(name), name


# ----------------------------------------------------------------- Esc menu, F1, Ctrl+Q
def test_escape_menu_resume_new_game_and_setup(make_app: MakeApp) -> None:
    app = make_app()
    enter(app)  # two humans: Start
    scene = board_scene(app)
    keyboard_drop(app, 0)
    key(app, pygame.K_ESCAPE)
    assert isinstance(app.overlay, MenuOverlay) and focused(app) == "Resume"
    key(app, pygame.K_ESCAPE)
    assert app.overlay is None and app.scenes.current is scene
    key(app, pygame.K_ESCAPE)
    key(app, pygame.K_DOWN)
    assert focused(app) == "Restart", "a match being played restarts"
    enter(app)
    again = app.scenes.current
    assert app.overlay is None and isinstance(again, MatchScene) and again is not scene, \
        "the game starts again at once (who plays first is chosen)"
    assert again.match is not None and again.match.board.move_count == 0
    key(app, pygame.K_ESCAPE)
    assert [item.text for item in app.overlay.items][:4] == [  # type: ignore[union-attr]
        "Resume", "Restart", "Back to setup", "Home"]
    focus_on(app, "Back to setup", pygame.K_DOWN)
    enter(app)
    assert isinstance(app.scenes.current, SetupScene) and app.flow is None


def test_f1_shows_how_to_play_and_ctrl_q_quits(make_app: MakeApp) -> None:
    app = make_app(show_setup=True)
    key(app, pygame.K_F1)
    assert isinstance(app.overlay, HelpOverlay)
    key(app, pygame.K_F1)
    assert app.overlay is None
    key(app, pygame.K_F1)
    enter(app)  # Close has the focus
    assert app.overlay is None
    key(app, pygame.K_q, pygame.KMOD_CTRL)
    assert not app.running and app.status == 0


# ----------------------------------------------------------------- undo, hint, resign
def test_undo_takes_back_the_move_and_the_reply(make_app: MakeApp) -> None:
    app = make_app(AIEntry("sequential"))
    enter(app)
    scene = board_scene(app)
    match = scene.match
    assert match is not None
    keyboard_drop(app, 3)
    run_until(app, lambda: match.board.move_count == 2 and scene.visual.idle)
    key(app, pygame.K_u)
    assert match.board.move_count == 0 and match.awaiting_human
    assert scene.visual.landed == {}, "the board shown follows"
    key(app, pygame.K_u)
    assert "Cannot take back a move: no human has moved yet" in app.log.lines
    assert app.ctx.sound.asked[-1] is Effect.INVALID
    keyboard_drop(app, 1)
    run_until(app, lambda: match.board.move_count == 2)
    tools = scene.tools
    assert tools is not None
    click(app, tools.buttons["undo"])
    assert match.board.move_count == 0


def test_a_hint_is_shown_on_the_board(make_app: MakeApp) -> None:
    app = make_app(AIEntry("sequential"))
    enter(app)
    scene = board_scene(app)
    run_until(app, lambda: scene.input_enabled)
    key(app, pygame.K_h)
    tools = scene.tools
    assert tools is not None and tools.hint is not None, "the hint is thought out off the UI thread"
    run_until(app, lambda: tools.hinted is not None, seconds=20)  # a 1 s search in a worker
    col, row, piece = tools.hinted
    assert piece.color is PColor.WHITE and row == 0
    assert scene._pointer().hint == tools.hinted
    assert any(line.startswith("Hint: a ") for line in app.log.lines)
    keyboard_drop(app, col)
    assert tools.hinted is None, "a move clears the hint"


def test_resign_asks_twice(make_app: MakeApp) -> None:
    app = make_app(AIEntry("sequential"))
    enter(app)
    scene = board_scene(app)
    run_until(app, lambda: scene.input_enabled)
    key(app, pygame.K_r)
    assert scene.match is not None and not scene.match.is_over
    key(app, pygame.K_r)
    run_until(app, lambda: result_overlay(app) is not None)
    assert scene._banner == ("You lose", "You resigned")



def test_a_key_pressed_as_the_game_ends_does_not_take_play_again(make_app: MakeApp) -> None:
    """The drop that ends the game, pressed twice (or any key at that moment):
    the result stays, its choices take keys only once the player could read
    it (issue 43, item 8); a click is taken at once."""
    app = make_app()
    enter(app)
    scene = board_scene(app)
    for col in (0, 0, 1, 1, 2):
        keyboard_drop(app, col)
    run_until(app, lambda: result_overlay(app) is not None)
    assert focused(app) == Choice.PLAY_AGAIN.value
    enter(app)
    enter(app)
    assert result_overlay(app) is not None and scene.match is not None \
        and scene.match.is_over, "the result is still shown: no Play again"
    keys_reach_the_result(app)
    enter(app)
    assert result_overlay(app) is None, "then Enter plays again"


# ----------------------------------------------------------------- levels
def test_levels_are_offered_by_name_in_setup(make_app: MakeApp) -> None:
    from gui_events import choose_option

    app = make_app(AIEntry("random"), show_setup=True, size=(1280, 800))
    setup = app.scenes.current
    assert isinstance(setup, SetupScene) and setup.rows is not None
    choose_option(app, setup.rows.widgets[0].thinker, "Hard")
    for _ in range(3):  # the drop-down tells its choice a frame or two later
        app.step(DT)
    hard = level("hard")
    assert setup.players == [AIEntry(hard.thinker, hard.params)]
    assert "Hard" in setup.rows.help_box.html_text  # type: ignore[union-attr]
    assert "depth=N" in setup.rows.help_box.html_text  # type: ignore[union-attr]
    assert setup.rows.widgets[0].thinker.selected_option[0] == "Hard"
    focus_on(app, "p0.thinker", pygame.K_TAB)
    key(app, pygame.K_UP)  # the arrows walk the list: Medium is above Hard
    medium = level("medium")
    assert setup.players == [AIEntry(medium.thinker, medium.params)]
    assert setup.rows.widgets[0].thinker.selected_option[0] == "Medium"


# ----------------------------------------------------------------- resizing at any moment
def _fresh_board(scene: MatchScene, size: tuple[int, int]) -> pygame.Surface:
    """The board as a fresh view of the same position draws it at `size`."""
    cfg = scene.session.config
    layout = compute_layout(cfg.rows, cfg.cols, size)
    visual = VisualBoard(cfg.rows, cfg.cols, 0.0, DROP_HEIGHT)
    visual.landed = dict(scene.visual.landed)
    visual.last = scene.visual.last
    view = BoardView(scene.ctx.art, scene.ctx.text)
    view.set_layout(layout)
    surface = pygame.Surface(size)
    view.draw(surface, visual, Pointer(playable=(False,) * cfg.cols))
    return surface


def _same_pieces(app: App, scene: MatchScene) -> int:
    fresh = _fresh_board(scene, app.size)
    covered = [scene.layout.piece_rect(*p) for p in scene.visual.solution]
    if scene.result is not None and scene.result.box is not None:
        covered.append(scene.result.box)
    compared = 0
    for pos in scene.visual.landed:
        rect = scene.layout.piece_rect(*pos)
        if rect.collidelist(covered) >= 0:
            continue
        drawn, expected = app.screen.subsurface(rect), fresh.subsurface(rect)
        assert pygame.image.tobytes(drawn, "RGB") == pygame.image.tobytes(expected, "RGB"), \
            f"the piece at {pos} is not drawn as a fresh layout draws it"
        compared += 1
    return compared


@pytest.mark.parametrize("moment", ["falling", "landed", "result", "undone"])
def test_resizing_at_any_moment_keeps_every_piece(make_app: MakeApp, moment: str) -> None:
    board = dict(rows=6, cols=7, win_sequence=4, round_pieces=10, square_pieces=11)
    app = make_app(board=board, size=(1280, 800), last_move_animation_s=0.5)
    enter(app)
    scene = board_scene(app)
    for col in (0, 6, 1, 6, 2, 5):
        keyboard_drop(app, col)
    if moment == "result":
        keyboard_drop(app, 3)
        run_until(app, lambda: result_overlay(app) is not None)
    elif moment == "undone":
        run_until(app, lambda: scene.visual.idle)
        key(app, pygame.K_u)
    elif moment == "landed":
        run_until(app, lambda: scene.visual.idle)
    else:
        assert not scene.visual.idle
    for size in ((800, 600), (1920, 1080), (1000, 1000)):
        pygame.event.post(pygame.event.Event(pygame.VIDEORESIZE, size=size, w=size[0],
                                             h=size[1]))
        app.step(DT)
        run_until(app, lambda: scene.visual.idle and not scene.visual.pulsing)
        for _ in range(20):
            app.step(DT)
        assert _same_pieces(app, scene) >= 3


def test_the_frame_an_animation_ends_in_is_drawn(make_app: MakeApp) -> None:
    """On a slow machine the moment after the last key runs out while a
    piece still falls: the frame that lands it is drawn all the same."""
    app = make_app(board=dict(rows=6, cols=7, win_sequence=4, round_pieces=10,
                              square_pieces=11), size=(1280, 800), last_move_animation_s=0.5)
    enter(app)
    scene = board_scene(app)
    for col in (0, 6, 1, 6):
        keyboard_drop(app, col)
    assert not scene.visual.idle
    for _ in range(600):  # every frame as late as a slow machine makes it
        if scene.visual.idle and not scene.visual.pulsing:
            break
        app._awake_until = 0.0
        app.step(DT)
    for _ in range(5):
        app._awake_until = 0.0
        app.step(DT)
    assert app.idle and _same_pieces(app, scene) == 4


# ----------------------------------------------------------------- idle frames
def test_an_idle_screen_draws_nothing(make_app: MakeApp) -> None:
    app = make_app(show_setup=True)
    for _ in range(20):  # the first draws, then the awake time after events runs out
        app.step(DT)
    import time
    time.sleep(0.4)
    app.step(DT)
    drawn = app.frames_drawn
    for _ in range(30):
        app.step(DT)
    assert app.frames_drawn == drawn and app.idle, "nothing changed: nothing drawn"
    pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=(5, 5), rel=(1, 1),
                                         buttons=(0, 0, 0)))
    app.step(DT)
    assert app.frames_drawn == drawn + 1 and not app.idle


def test_a_thinking_ai_draws_every_frame(make_app: MakeApp) -> None:
    app = make_app(AIEntry("sleeper"), AIEntry("sleeper"))
    enter(app)
    assert isinstance(app.scenes.current, MatchScene)
    drawn = app.frames_drawn
    for _ in range(10):
        app.step(DT)
    assert app.frames_drawn == drawn + 10


def test_the_window_opens_inside_the_desktop(make_app: MakeApp) -> None:
    app = make_app(size=None, show_setup=True)
    desktop = pygame.display.get_desktop_sizes()[0]
    assert app.size[0] <= desktop[0] and app.size[1] <= desktop[1]


# ----------------------------------------------------------------- columns
def test_two_digits_reach_columns_past_nine(make_app: MakeApp) -> None:
    board = dict(rows=4, cols=15, win_sequence=4, round_pieces=15, square_pieces=15)
    app = make_app(board=board)
    enter(app)
    scene = board_scene(app)
    keyboard_drop(app, 12)
    assert scene.match is not None and scene.match.board[0, 12] is not None
    keyboard_drop(app, 3)
    assert scene.match.board[0, 3] is not None
    for _ in range(40):  # a first digit waits a second for a second one, then is alone
        app.step(DT)
    keyboard_drop(app, 1)
    assert scene.match.board[0, 1] is not None


def _arrow_numbers(app: App) -> set[str]:
    """The numbers drawn on the board's arrows so far (bold, in the arrows' colour)."""
    color = tuple(palette().arrow_text)
    return {text for text, _, shade, bold in app.ctx.text._cache  # type: ignore[misc]
            if bold and shade == color and str(text).isdigit()}


def test_columns_are_counted_from_1_as_players_count_them(make_app: MakeApp) -> None:
    """The arrows say 1 to 10, the digit keys pick the column of that number
    (1 then 0: the tenth), and the log names a move's column by its number."""
    app = make_app(board=dict(rows=4, cols=10, win_sequence=4, round_pieces=10,
                              square_pieces=10))
    enter(app)
    scene = board_scene(app)
    run_until(app, lambda: scene.input_enabled)
    app.step(DT)
    assert _arrow_numbers(app) == {str(n) for n in range(1, 11)}
    controls = scene.controls
    assert controls is not None
    key(app, pygame.K_7)
    assert controls.column == 6, "7 is the seventh column"
    key(app, pygame.K_RETURN)
    run_until(app, lambda: scene.match.board.move_count == 1)  # type: ignore[union-attr]
    assert scene.match.board[0, 6] is not None  # type: ignore[union-attr]
    assert "at column 7 " in app.log.lines[-1], app.log.lines[-1]
    run_until(app, lambda: scene.input_enabled)
    key(app, pygame.K_1)
    key(app, pygame.K_0)  # within a second of the 1: ten
    assert controls.column == 9
    for _ in range(40):  # a lone 0 names no column
        app.step(DT)
    key(app, pygame.K_0)
    assert controls.column == 9


@pytest.mark.parametrize("size", [(736, 528), (800, 600), (1920, 1080)])
def test_column_numbers_stay_on_dense_boards(make_app: MakeApp, size: tuple[int, int]) -> None:
    """40 columns: numbers too small for their arrows go under the board, every
    column, or every 2nd, 5th or 10th as their width allows."""
    app = make_app(show_setup=True)
    view = BoardView(app.ctx.art, app.ctx.text)
    layout = compute_layout(10, 40, size)
    view.set_layout(layout)
    surface = pygame.Surface(size)
    view.draw(surface, VisualBoard(10, 40), Pointer(playable=(True,) * 40))
    every = view.label_step(layout)
    if view.numbers_below(layout):
        band = pygame.Rect(layout.ground.left, layout.ground.bottom, layout.ground.w, 12)
        color = palette().text
    else:
        band = layout.arrows[0].union(layout.arrows[-1])
        color = palette().arrow_text
    for col in (every - 1, 39):  # numbered `every` and 40, as players count
        cell = layout.cell_rect(0, col)
        area = pygame.Rect(cell.x, band.y, cell.w, band.h).clip(surface.get_rect())
        pixels = {tuple(surface.get_at((x, y))) for x in range(area.left, area.right)
                  for y in range(area.top, area.bottom)}
        assert tuple(color) in pixels, f"column {col}'s number is drawn"


# ----------------------------------------------------------------- sound, theme, title
def test_sounds_follow_the_game_and_mute_is_remembered(make_app: MakeApp) -> None:
    app = make_app()
    enter(app)
    for col in (0, 0, 1, 1, 2):
        keyboard_drop(app, col)
    run_until(app, lambda: result_overlay(app) is not None)
    played = app.ctx.sound.asked
    assert played.count(Effect.DROP) == 5 and played[-1] is Effect.WIN
    key(app, pygame.K_m)
    assert app.ctx.sound.muted and UserData().preferences().muted
    app.ctx.sound.play(Effect.DROP)
    assert app.ctx.sound.asked == played, "muted: nothing played"


@pytest.mark.unit
def test_no_mixer_at_all_is_silent(monkeypatch: pytest.MonkeyPatch) -> None:
    from csl_game.gui.sound import Sound

    class NoMixer:
        def __getattr__(self, name: str) -> object:
            raise NotImplementedError("no mixer module")

    monkeypatch.setattr(pygame, "mixer", NoMixer())
    sound = Sound()
    sound.play(Effect.WIN)
    assert not sound.available and sound.asked == [Effect.WIN] and sound.played == []
    sound.close()


def test_the_theme_switch_is_remembered(make_app: MakeApp) -> None:
    app = make_app(show_setup=True)
    before = palette().background
    key(app, pygame.K_t)
    try:
        assert theme_name() == "high-contrast" and UserData().preferences().theme == theme_name()
        assert palette().background != before
    finally:
        key(app, pygame.K_t)
    assert theme_name() == "default"


def test_the_title_says_whose_turn_it_is(make_app: MakeApp) -> None:
    app = make_app(AIEntry("sleeper"), AIEntry("sequential"), AIEntry("sequential"))
    enter(app)
    run_until(app, lambda: isinstance(app.scenes.current, MatchScene))
    app.step(DT)
    assert "Match 1 of 6 \u00b7 " in app.title and app.title.endswith(" is thinking")


# ----------------------------------------------------------------- remembered setup, Save
def test_the_last_setup_is_loaded_at_start(make_app: MakeApp) -> None:
    app = make_app(AIEntry("sequential"), show_setup=True)
    enter(app)
    assert isinstance(app.scenes.current, PreMatchScene)
    app = make_app(show_setup=True)
    setup = app.scenes.current
    assert isinstance(setup, SetupScene) and setup.players == [AIEntry("sequential")]


def test_save_asks_before_replacing_a_file(make_app: MakeApp, tmp_path: Path) -> None:
    from gui_events import type_into

    path = tmp_path / "mine.toml"
    path.write_text("# mine\n")
    app = make_app(show_setup=True)
    setup = app.scenes.current
    assert isinstance(setup, SetupScene) and setup.path_entry is not None
    type_into(app, setup.path_entry, str(path))
    click(app, setup.buttons["save"])
    assert path.read_text() == "# mine\n" and setup.buttons["save"].text == "Replace"
    assert "exists" in setup.message_text
    click(app, setup.buttons["save"])
    assert path.read_text().startswith("# ColorShapeLinks setup")


def test_more_matches_at_once_than_cores_is_a_warning(make_app: MakeApp) -> None:
    import os

    from gui_events import type_into

    app = make_app(AIEntry("random"), AIEntry("random"), AIEntry("random"), show_setup=True)
    setup = app.scenes.current
    assert isinstance(setup, SetupScene) and setup.form is not None
    type_into(app, setup.form.controls["workers"], str((os.cpu_count() or 1) + 1))  # type: ignore[arg-type]
    assert "core" in setup.message_text and setup.buttons["start"].is_enabled
    label = setup.form.labels["workers"]
    assert "core" in label.text
