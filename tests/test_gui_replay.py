"""The replay scene, driven by real pygame events through the window's frame loop."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pygame  # noqa: E402

from csl_game.engine import ThreadRunner  # noqa: E402
from csl_game.gui.app import AWAKE_S, App  # noqa: E402
from csl_game.gui.scenes.replay import (  # noqa: E402
    END_PAUSE_S,
    KEYS_HINT,
    PLAY_INTERVAL_S,
    ReplayScene,
    duration,
)
from csl_game.model.board import PColor, Pos  # noqa: E402
from csl_game.model.notation import parse_moves  # noqa: E402
from csl_game.services.replay import Replay  # noqa: E402
from csl_game.services.settings import PlayOptions  # noqa: E402
from gui_events import DT, Apps, click, key, post  # noqa: E402

# White rounds along the bottom row, Red squares in column 6: White wins on move 7.
WIN = "0r 6s 1r 6s 2r 6s 3r"
TIMES_MS = [12.5, 1500.0, 3.25, 40.0, 0.5, 7.0, 2.0]


def record(moves: str, winner: str, solution: list[list[int]], forfeit: str | None = None,
           cols: int = 7) -> dict[str, Any]:
    """A results line for these moves (rows worked out by a board)."""
    heights = [0] * cols
    out = []
    for i, (col, shape) in enumerate(parse_moves(moves)):
        out.append({"row": heights[col], "col": col, "color": "white" if i % 2 == 0 else "red",
                    "shape": shape.name.lower(), "ms": TIMES_MS[i % len(TIMES_MS)]})
        heights[col] += 1
    return {"match": 2, "white": {"thinker": "human", "params": "", "name": "Alice"},
            "red": {"thinker": "minimax", "params": "3", "name": "MinimaxD3"},
            "winner": winner, "winner_name": None, "solution": solution, "forfeit": forfeit,
            "detail": "", "moves": out,
            "settings": {"rows": 6, "cols": cols, "win_sequence": 4, "round_pieces": 10,
                         "square_pieces": 11, "time_limit_ms": 500}}


WON = Replay.from_json(record(WIN, "white", [[0, 0], [0, 1], [0, 2], [0, 3]]))
FORFEIT = Replay.from_json(record("3r 3s 4r", "white", [], "timeout"))

MakeApp = Callable[..., App]


@pytest.fixture
def make_app(apps: Apps) -> MakeApp:
    def make(replay: Replay = WON, size: tuple[int, int] = (1024, 768), **kw: Any) -> App:
        return apps.open(PlayOptions(window_size=size), runner_factory=ThreadRunner,
                         start=lambda ctx: ReplayScene(ctx, replay, **kw))

    return make


def scene_of(app: App) -> ReplayScene:
    scene = app.scenes.current
    assert isinstance(scene, ReplayScene)
    return scene


def settle(app: App, frames: int = 40) -> None:
    for _ in range(frames):
        app.step(DT)


def shown(scene: ReplayScene) -> dict[Pos, object]:
    return dict(scene.visual.landed)


def expected(scene: ReplayScene, step: int) -> dict[Pos, object]:
    board = scene.boards[step]
    return {Pos(r, c): board[r, c] for r in range(board.rows) for c in range(board.cols)
            if board[r, c] is not None}


# ------------------------------------------------------------- moving
def test_keys_step_forward_and_back_and_jump(make_app: MakeApp) -> None:
    app = make_app()
    scene = scene_of(app)
    assert scene.step == 0 and shown(scene) == {}
    key(app, pygame.K_RIGHT)
    assert scene.step == 1 and scene.visual.falling is not None  # the piece falls
    settle(app)
    assert shown(scene) == expected(scene, 1)
    key(app, pygame.K_RIGHT)
    key(app, pygame.K_RIGHT)
    settle(app)
    assert scene.step == 3 and shown(scene) == expected(scene, 3)
    key(app, pygame.K_LEFT)
    assert scene.step == 2 and shown(scene) == expected(scene, 2)  # back is at once
    key(app, pygame.K_END)
    assert scene.step == 7 and shown(scene) == expected(scene, 7)
    assert scene.visual.solution == WON.result.solution
    key(app, pygame.K_RIGHT)
    assert scene.step == 7  # nothing after the end
    key(app, pygame.K_HOME)
    assert scene.step == 0 and shown(scene) == {} and scene.visual.solution == ()
    key(app, pygame.K_LEFT)
    assert scene.step == 0


def test_buttons_and_the_mouse_wheel(make_app: MakeApp) -> None:
    app = make_app()
    scene = scene_of(app)
    assert not scene.buttons["back"].is_enabled and scene.buttons["end"].is_enabled
    click(app, scene.buttons["forward"])
    click(app, scene.buttons["forward"])
    settle(app)
    assert scene.step == 2 and scene.buttons["back"].is_enabled
    click(app, scene.buttons["end"])
    assert scene.step == 7 and not scene.buttons["forward"].is_enabled
    click(app, scene.buttons["back"])
    assert scene.step == 6
    click(app, scene.buttons["start"])
    assert scene.step == 0
    post(pygame.MOUSEWHEEL, x=0, y=-1, flipped=False, precise_x=0.0, precise_y=-1.0)
    app.step(DT)
    assert scene.step == 1
    post(pygame.MOUSEWHEEL, x=0, y=1, flipped=False, precise_x=0.0, precise_y=1.0)
    app.step(DT)
    assert scene.step == 0


def test_play_runs_through_the_moves_then_pauses(make_app: MakeApp) -> None:
    app = make_app()
    scene = scene_of(app)
    click(app, scene.buttons["play"])
    assert scene.playing and scene.buttons["play"].text == "Pause"
    for _ in range(round(7 * (PLAY_INTERVAL_S + 1.0) / DT)):
        app.step(DT)
        if scene.step == 7 and not scene.playing:
            break
    assert scene.step == 7 and not scene.playing and scene.buttons["play"].text == "Play"
    key(app, pygame.K_SPACE)  # at the end, Play starts again from the start
    assert scene.playing and scene.step == 0
    key(app, pygame.K_SPACE)
    assert not scene.playing


def test_auto_plays_to_the_end_and_closes_the_window(make_app: MakeApp) -> None:
    app = make_app(play=True, quit_at_end=True)
    frames = round((7 * (PLAY_INTERVAL_S + 1.0) + END_PAUSE_S) / DT)
    for _ in range(frames):
        if not app.step(DT):
            break
    assert not app.running and scene_of(app).step == 7


def test_escape_opens_the_menu_and_q_quits(make_app: MakeApp) -> None:
    app = make_app()
    post(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0, unicode="", scancode=0)
    assert app.step(DT) is True and app.overlay is not None, "the menu, as everywhere"
    post(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0, unicode="", scancode=0)
    assert app.step(DT) is True and app.overlay is None, "Esc again resumes"
    post(pygame.KEYDOWN, key=pygame.K_q, mod=0, unicode="", scancode=0)
    assert app.step(DT) is False


# --------------------------------------------------------------- texts
def test_panels_say_whose_turn_and_how_long_each_move_took(make_app: MakeApp) -> None:
    app = make_app()
    scene = scene_of(app)
    white, red = (scene._panel_state(c) for c in PColor)
    assert (white.name, white.is_human, white.status, white.to_play) == (
        "Alice", True, "To play", True)
    assert (red.name, red.is_human, red.status) == ("MinimaxD3", False, "")
    key(app, pygame.K_RIGHT)
    key(app, pygame.K_RIGHT)
    settle(app)
    white, red = (scene._panel_state(c) for c in PColor)
    assert red.status == "Played 7s in 1.500 s" and white.status == "To play"
    assert white.counts == (9, 11) and red.counts == (10, 10)
    assert scene.caption_text() == "Move 2 of 7: Red 7s in 1.500 s"
    key(app, pygame.K_END)
    settle(app)
    white, red = (scene._panel_state(c) for c in PColor)
    assert (white.status, white.emphasis, red.status) == ("Winner!", True, "Lost")
    assert scene._banner() == ("Winner is White (Alice)", "4 in a row")


def test_the_log_lists_the_moves_so_far(make_app: MakeApp) -> None:
    app = make_app()
    scene = scene_of(app)
    assert scene.log.lines == ["Match 3: Alice (White) vs MinimaxD3 (Red)"]
    assert scene.caption is not None and scene.caption.text.startswith("Start: 7 moves")
    key(app, pygame.K_RIGHT)
    assert scene.log.lines[1:] == ["1. White: 1r in 12.5 ms"], "columns counted from 1"
    key(app, pygame.K_END)
    assert scene.log.lines[-2:] == ["7. White: 4r in 2.0 ms", "Game Over, White (Alice) won"]


def test_a_forfeit_shows_at_the_end(make_app: MakeApp) -> None:
    app = make_app(FORFEIT)
    scene = scene_of(app)
    key(app, pygame.K_END)
    settle(app)
    assert scene.log.lines[-1] == ("Red (MinimaxD3) exceeded the time limit. "
                                   "Game Over, White (Alice) won")
    assert scene._panel_state(PColor.RED).status == "Forfeited"
    assert scene._banner() == ("Winner is White (Alice)", "MinimaxD3 exceeded the time limit")
    assert scene.visual.solution == ()


@pytest.mark.unit
@pytest.mark.parametrize(("seconds", "text"), [(0.0, "0.0 ms"), (0.01249, "12.5 ms"),
                                               (0.9999, "999.9 ms"), (1.5, "1.500 s")])
def test_duration(seconds: float, text: str) -> None:
    assert duration(seconds) == text


# ---------------------------------------------------------- window sizes
@pytest.mark.parametrize("size", [(800, 600), (1280, 800), (1920, 1080), (640, 480)])
def test_everything_fits_the_window(make_app: MakeApp, size: tuple[int, int]) -> None:
    app = make_app(size=size)
    scene = scene_of(app)
    key(app, pygame.K_END)
    settle(app)
    size = app.size  # 640x480 opens at the minimum size, 800x600
    window = pygame.Rect(0, 0, *size)
    assert window.contains(scene.bar) and scene.bar.bottom == size[1]
    assert not scene.layout.frame.colliderect(scene.bar)
    assert not scene.layout.log.colliderect(scene.bar)
    for widget in [*scene.buttons.values(), scene.caption]:
        assert widget is not None and window.contains(widget.rect), widget
        assert scene.bar.contains(widget.rect)
    if size[0] >= 1920:
        assert KEYS_HINT in scene.caption.text  # type: ignore[union-attr]


def test_resizing_keeps_the_position(make_app: MakeApp) -> None:
    app = make_app()
    scene = scene_of(app)
    key(app, pygame.K_RIGHT)
    key(app, pygame.K_RIGHT)
    settle(app)
    post(pygame.VIDEORESIZE, size=(800, 600), w=800, h=600)
    settle(app, 3)
    assert scene.step == 2 and shown(scene) == expected(scene, 2)
    assert scene.bar.bottom == 600 and scene.buttons["start"].rect.bottom <= 600


# ---------------------------------------------------------- drawn without events
def _quiet(app: App) -> None:
    """Frames with no time passing until the moment after the last event is
    over (the window draws every frame for AWAKE_S after one, busy or not)."""
    start = time.monotonic()
    while time.monotonic() - start <= AWAKE_S:
        app.step(0.0)


def _cells(app: App, scene: ReplayScene, *cells: tuple[int, int]) -> list[bytes]:
    """The pixels shown in each (row, column) cell of the board."""
    return [pygame.image.tobytes(app.screen.subsurface(scene.layout.cell_rect(r, c)), "RGB")
            for r, c in cells]


@pytest.mark.parametrize("code", [pygame.K_RIGHT, pygame.K_p], ids=["step", "play"])
def test_a_falling_piece_is_drawn_to_its_cell_without_an_event(
        make_app: MakeApp, code: int) -> None:
    """A step (or Play) starts a drop and nobody touches the mouse: every frame
    of the fall is drawn, the last with the piece in its cell (before, the
    piece stayed in mid-air until the next event)."""
    app = make_app()
    scene = scene_of(app)
    cells = ((0, 0), (1, 0), (3, 0))  # White's first round lands in (0, 0)
    settle(app, 3)
    empty = _cells(app, scene, *cells)
    key(app, code)
    assert not scene.visual.idle, "a piece falls"
    _quiet(app)
    falling = 0
    while not scene.visual.idle:
        app.step(DT)
        assert not app.idle, f"frame {falling + 1} of the fall was not drawn"
        falling += 1
        assert falling < 200
    assert falling > 2
    app.step(DT)
    landed, above, high = _cells(app, scene, *cells)
    assert landed != empty[0], "the piece is drawn in its cell"
    assert (above, high) == (empty[1], empty[2]), "nothing is left in mid-air"
    if code == pygame.K_p:
        key(app, pygame.K_p)  # paused: the window may rest
    deadline = time.monotonic() + 10  # the pulse of the landed piece ends, then nothing is drawn
    while not app.idle and time.monotonic() < deadline:
        app.step(DT)
    assert app.idle, "an idle replay draws nothing"
