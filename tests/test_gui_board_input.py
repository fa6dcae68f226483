"""One board input for both boards (gui/board_input.py): the same real mouse and
key events, posted under the dummy driver, do the same on the match scene
(two humans in one window) and on an online game's board (a host and a
joiner on the loopback network): the pointer's shape toggle is lit, a drag
off a column drops nothing, a toggle's click and Tab choose the shape, Right
and a digit pick the column, Enter drops, a click on a column's arrow drops;
then Ctrl+Z takes the move back in the match, and on the online board says
in the log that it cannot. Both tell a human player how to play, F1 included.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator

import pygame
import pytest

from csl_game.gui.app import App
from csl_game.gui.board_input import BoardInput, how_to_play
from csl_game.gui.scenes.match import MatchScene
from csl_game.gui.scenes.online_board import NOT_ONLINE, OnlineBoardScene
from csl_game.model.board import Board, PColor, Piece, PShape
from csl_game.services.settings import PlayOptions
from csl_game.thinker.api import MatchConfig
from gui_events import DT, Apps, key, post
from test_gui_online import board, host, join, on_board, steps, window

BoardScene = MatchScene | OnlineBoardScene


def board_of(scene: BoardScene) -> Board:
    if isinstance(scene, MatchScene):
        assert scene.match is not None
        return scene.match.board
    return scene.table.board


def input_of(scene: BoardScene) -> BoardInput:
    assert scene.input is not None
    return scene.input


def mouse(app: App, kind: int, pos: tuple[int, int]) -> None:
    if kind == pygame.MOUSEMOTION:
        post(kind, pos=pos, rel=(0, 0), buttons=(0, 0, 0))
    else:
        post(kind, pos=pos, button=1)
    app.step(DT)


def play_the_script(windows: Callable[[PColor], App], scene_of: Callable[[App], BoardScene],
                    step_until: Callable[[Callable[[], bool]], None]) -> list[object]:
    """White's keys and mouse in its window, then Red's click in its window;
    what each step left on the board, for the two boards to compare."""
    seen: list[object] = []
    white = windows(PColor.WHITE)
    sc = scene_of(white)
    step_until(lambda: sc.input_enabled)
    lay = sc.layout
    square = lay.panels[PColor.WHITE].toggles[PShape.SQUARE].center
    mouse(white, pygame.MOUSEMOTION, square)
    seen.append(("hover", input_of(sc).hover))
    mouse(white, pygame.MOUSEBUTTONDOWN, lay.arrows[1].center)  # a drag from one column...
    mouse(white, pygame.MOUSEBUTTONUP, lay.arrows[2].center)  # ...to another drops nothing
    seen.append(("dragged", board_of(sc).move_count))
    mouse(white, pygame.MOUSEBUTTONDOWN, square)
    mouse(white, pygame.MOUSEBUTTONUP, square)
    seen.append(("toggle", sc.controls.selected[PColor.WHITE] if sc.controls else None))
    key(white, pygame.K_TAB)
    seen.append(("tab", sc.controls.selected[PColor.WHITE] if sc.controls else None))
    key(white, pygame.K_RIGHT)
    seen.append(("right", sc.controls.column if sc.controls else None))
    key(white, pygame.K_6)  # the sixth column: 5, from 0
    seen.append(("digit", sc.controls.column if sc.controls else None))
    key(white, pygame.K_RETURN)
    step_until(lambda: board_of(scene_of(windows(PColor.RED))).move_count == 1)
    seen.append(("enter", board_of(sc)[0, 5]))
    red = windows(PColor.RED)
    rs = scene_of(red)
    step_until(lambda: rs.input_enabled)
    mouse(red, pygame.MOUSEMOTION, rs.layout.arrows[1].center)
    mouse(red, pygame.MOUSEBUTTONDOWN, rs.layout.arrows[1].center)
    mouse(red, pygame.MOUSEBUTTONUP, rs.layout.arrows[1].center)
    step_until(lambda: board_of(sc).move_count == 2)
    seen.append(("click", board_of(sc)[0, 1]))
    return seen


EXPECTED = [("hover", PShape.SQUARE), ("dragged", 0), ("toggle", PShape.SQUARE),
            ("tab", PShape.ROUND), ("right", 3), ("digit", 5),
            ("enter", Piece(PColor.WHITE, PShape.ROUND)),
            ("click", Piece(PColor.RED, PShape.SQUARE))]


@pytest.fixture
def two_humans() -> Iterator[App]:
    config = MatchConfig(time_limit_ms=3000, min_move_time_ms=0)
    app = App(PlayOptions(match=config, window_size=(1024, 768), in_process=True, auto=True,
                          unblocked_screen_s=0.0, last_move_animation_s=0.0),
              out=io.StringIO())
    try:
        while not isinstance(app.scenes.current, MatchScene):
            app.step(DT)
        app.step(DT)
        yield app
    finally:
        app.close()


def _match_scene(app: App) -> BoardScene:
    scene = app.scenes.current
    assert isinstance(scene, MatchScene)
    return scene


def _frames(app: App) -> Callable[[Callable[[], bool]], None]:
    def until(done: Callable[[], bool]) -> None:
        for _ in range(300):
            if done():
                return
            app.step(DT)
        assert done(), "the condition was not met in time"
    return until


def test_the_match_scene_takes_the_script_and_undoes_with_ctrl_z(two_humans: App) -> None:
    app = two_humans
    assert how_to_play() in app.log.lines and "F1: how to play" in how_to_play()
    seen = play_the_script(lambda _color: app, _match_scene, _frames(app))
    assert seen == EXPECTED
    key(app, pygame.K_z, pygame.KMOD_CTRL)
    sc = _match_scene(app)
    assert board_of(sc).move_count == 1, "Ctrl+Z takes back Red's move (two humans: one)"
    key(app, pygame.K_u)
    assert board_of(sc).move_count == 0, "and U White's"


def test_the_online_board_takes_the_same_script_and_says_it_cannot_undo(apps: Apps) -> None:
    a = window(apps)
    host_ = host(a)
    b = window(apps)
    join(b, host_)
    steps([a, b], on_board(a, b))
    ends = {board(a).table.local: a, board(b).table.local: b}
    assert set(ends) == set(PColor)

    def until(done: Callable[[], bool]) -> None:
        steps([a, b], done)

    seen = play_the_script(lambda color: ends[color], board, until)
    assert seen == EXPECTED
    white = ends[PColor.WHITE]
    for undo in ((pygame.K_z, pygame.KMOD_CTRL), (pygame.K_u, 0)):
        before = len(white.log.lines)
        key(white, *undo)
        assert NOT_ONLINE["undo"] in white.log.lines[before:], "said, not silently ignored"
    until(lambda: board(b).table.board.move_count == 2)
    assert board(a).table.board.move_count == 2, "an online game takes nothing back"
    for end in (a, b):
        hint = next(line for line in end.log.lines if line.startswith("To play"))
        assert "F1: how to play" in hint and "cannot take back" in hint
    before = len(white.log.lines)
    key(white, pygame.K_h)
    assert NOT_ONLINE["hint"] in white.log.lines[before:]
