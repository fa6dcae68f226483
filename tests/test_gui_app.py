"""The board scene driven by real pygame events through the real frame loop.

Events are posted with pygame.event.post and App.step() runs a frame with a
given dt, so animations advance without waiting in real time.
"""

from __future__ import annotations

import io
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pygame  # noqa: E402

from csl_game.engine import SessionState  # noqa: E402
from csl_game.gui.app import App  # noqa: E402
from csl_game.gui.scenes.info import FinalScene  # noqa: E402
from csl_game.gui.scenes.match import MatchScene  # noqa: E402
from csl_game.model.board import PColor, Piece, PShape  # noqa: E402
from csl_game.services.settings import AIEntry, PlayOptions  # noqa: E402
from csl_game.thinker.api import MatchConfig  # noqa: E402
from gui_events import ShownChecker, scene  # noqa: E402
from procs import alive  # noqa: E402

FAKES = str(Path(__file__).parent / "fakes" / "fake_thinkers.py")
DT = 1 / 30

MakeApp = Callable[..., App]


@pytest.fixture
def make_app() -> Iterator[MakeApp]:
    apps: list[App] = []

    def make(*ais: str, size: tuple[int, int] = (1024, 768), time_limit_ms: int = 3000,
             out: io.StringIO | None = None, **board: int) -> App:
        config = MatchConfig(**board, time_limit_ms=time_limit_ms, min_move_time_ms=0)
        entries = tuple(AIEntry(*spec.split(" ", 1)) for spec in ais)
        options = PlayOptions(ais=entries, match=config, window_size=size, in_process=True,
                              auto=True, unblocked_screen_s=0.0, thinker_paths=(FAKES,))
        app = App(options, out=out or io.StringIO())
        apps.append(app)
        while not isinstance(app.scenes.current, MatchScene):  # the pre-match screen times out
            app.step(DT)
        app.step(DT)
        return app

    yield make
    for app in apps:
        app.close()


def settle(app: App, frames: int = 120) -> None:
    """Step until every animation has played (or `frames` frames)."""
    for _ in range(frames):
        app.step(DT)
        if scene(app).visual.idle and not scene(app).visual.pulsing:
            return


def post(kind: int, **attrs: object) -> None:
    pygame.event.post(pygame.event.Event(kind, **attrs))


def click(app: App, pos: tuple[int, int]) -> None:
    post(pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(0, 0, 0))
    post(pygame.MOUSEBUTTONDOWN, pos=pos, button=1)
    post(pygame.MOUSEBUTTONUP, pos=pos, button=1)
    app.step(DT)


def press(app: App, key: int) -> None:
    post(pygame.KEYDOWN, key=key, mod=0, unicode="", scancode=0)
    post(pygame.KEYUP, key=key, mod=0, unicode="", scancode=0)
    app.step(DT)


def arrow(app: App, col: int) -> tuple[int, int]:
    return scene(app).layout.arrows[col].center


def toggle(app: App, color: PColor, shape: PShape) -> tuple[int, int]:
    return scene(app).layout.panels[color].toggles[shape].center


def board(app: App):  # type: ignore[no-untyped-def]
    match = scene(app).match
    assert match is not None
    return match.board


# ----------------------------------------------------------------- humans
def test_clicking_an_arrow_drops_the_selected_shape(make_app: MakeApp) -> None:
    app = make_app()
    click(app, arrow(app, 3))
    assert board(app)[0, 3] == Piece(PColor.WHITE, PShape.ROUND)
    assert board(app).turn is PColor.RED
    settle(app)
    click(app, scene(app).layout.cell_rect(2, 5).center)  # a column's cells work too
    assert board(app)[0, 5] == Piece(PColor.RED, PShape.SQUARE)


def test_a_click_needs_press_and_release_on_the_same_arrow(make_app: MakeApp) -> None:
    app = make_app()
    post(pygame.MOUSEBUTTONDOWN, pos=arrow(app, 1), button=1)
    post(pygame.MOUSEBUTTONUP, pos=arrow(app, 2), button=1)
    post(pygame.MOUSEBUTTONDOWN, pos=arrow(app, 2), button=3)  # right button: nothing
    post(pygame.MOUSEBUTTONUP, pos=arrow(app, 2), button=3)
    app.step(DT)
    assert board(app).move_count == 0


def test_shape_toggles_choose_the_shape(make_app: MakeApp) -> None:
    app = make_app()
    click(app, toggle(app, PColor.WHITE, PShape.SQUARE))
    click(app, arrow(app, 0))
    assert board(app)[0, 0] == Piece(PColor.WHITE, PShape.SQUARE)
    settle(app)
    click(app, toggle(app, PColor.WHITE, PShape.ROUND))  # not White's turn: ignored
    click(app, toggle(app, PColor.RED, PShape.ROUND))
    click(app, arrow(app, 0))
    assert board(app)[1, 0] == Piece(PColor.RED, PShape.ROUND)
    assert scene(app).controls.selected[PColor.WHITE] is PShape.SQUARE  # type: ignore[union-attr]


def test_keyboard_picks_column_and_shape_and_drops(make_app: MakeApp) -> None:
    app = make_app()
    press(app, pygame.K_RIGHT)          # focus starts in the middle (3)
    press(app, pygame.K_RIGHT)
    press(app, pygame.K_TAB)
    press(app, pygame.K_RETURN)
    assert board(app)[0, 4] == Piece(PColor.WHITE, PShape.SQUARE)
    settle(app)
    press(app, pygame.K_1)              # the first column, as players count
    press(app, pygame.K_s)              # Red: square -> round
    press(app, pygame.K_SPACE)
    assert board(app)[0, 0] == Piece(PColor.RED, PShape.ROUND)
    settle(app)
    press(app, pygame.K_7)
    press(app, pygame.K_DOWN)
    assert board(app)[0, 6] == Piece(PColor.WHITE, PShape.SQUARE), "selection is kept"
    settle(app)
    press(app, pygame.K_LEFT)
    press(app, pygame.K_KP_ENTER)
    assert board(app)[0, 5] == Piece(PColor.RED, PShape.ROUND)


def test_a_full_column_cannot_be_played(make_app: MakeApp) -> None:
    app = make_app(rows=4, cols=5, win_sequence=4, round_pieces=6, square_pieces=6)
    for _ in range(4):  # alternating colours and shapes: nobody wins
        click(app, arrow(app, 2))
        settle(app)
    assert board(app).is_column_full(2) and board(app).move_count == 4
    assert scene(app)._pointer().playable == (True, True, False, True, True)
    click(app, arrow(app, 2))
    press(app, pygame.K_3)
    press(app, pygame.K_RETURN)
    assert board(app).move_count == 4 and board(app).turn is PColor.WHITE
    press(app, pygame.K_LEFT)           # from the full column: to the next free one
    press(app, pygame.K_RETURN)
    assert board(app)[0, 1] is not None


def test_an_empty_shape_is_disabled_and_the_other_selected(make_app: MakeApp) -> None:
    app = make_app(rows=6, cols=7, win_sequence=4, round_pieces=1, square_pieces=20)
    click(app, arrow(app, 0))           # White's only round piece
    settle(app)
    click(app, arrow(app, 6))
    settle(app)
    controls = scene(app).controls
    assert controls is not None and controls.selected[PColor.WHITE] is PShape.SQUARE
    click(app, toggle(app, PColor.WHITE, PShape.ROUND))
    press(app, pygame.K_TAB)
    assert controls.selected[PColor.WHITE] is PShape.SQUARE
    click(app, arrow(app, 1))
    assert board(app)[0, 1] == Piece(PColor.WHITE, PShape.SQUARE)
    assert board(app).piece_count(PColor.WHITE, PShape.ROUND) == 0


def test_ghost_piece_follows_the_mouse(make_app: MakeApp) -> None:
    app = make_app()
    click(app, arrow(app, 2))
    settle(app)
    post(pygame.MOUSEMOTION, pos=arrow(app, 2), rel=(0, 0), buttons=(0, 0, 0))
    app.step(DT)
    pointer = scene(app)._pointer()
    assert pointer.column == 2 and pointer.ghost_row == 1
    assert pointer.ghost == Piece(PColor.RED, PShape.SQUARE)
    post(pygame.MOUSEMOTION, pos=(2, 2), rel=(0, 0), buttons=(0, 0, 0))
    app.step(DT)
    assert scene(app)._pointer().ghost is None


def test_no_input_while_an_ai_thinks(make_app: MakeApp) -> None:
    app = make_app("sleeper", time_limit_ms=3000)
    click(app, arrow(app, 3))           # the human is White
    settle(app)
    assert scene(app).match.awaiting_human is False  # type: ignore[union-attr]
    assert not any(scene(app)._pointer().playable)
    click(app, arrow(app, 4))
    press(app, pygame.K_RETURN)
    click(app, toggle(app, PColor.RED, PShape.ROUND))
    assert board(app).move_count == 1 and board(app)[0, 4] is None


# ----------------------------------------------------------------- AIs
def run_to_end(app: App, frames: int = 5000) -> None:
    for _ in range(frames):
        if not app.step(DT):
            return
    pytest.fail("the session did not end")


def test_ai_vs_ai_plays_to_a_result_and_exits(make_app: MakeApp) -> None:
    stdout = io.StringIO()
    app = make_app("random 1", "random 2", out=stdout)
    versions = []
    for _ in range(5000):
        versions.append(scene(app).visual.version)
        if not app.step(DT):
            break
    assert not app.running and app.status == 0
    match = scene(app).match
    assert match is not None and match.result is not None
    assert versions[-1] == match.board.move_count, "every move was shown"
    assert len(set(versions)) > 5, "the scene updated move by move"
    out = stdout.getvalue().splitlines()
    assert out[0] == "=> Random #1 (White) vs Random #2 (Red) <="
    assert "White (Random #1) is thinking, please wait..." in out
    assert out[-1].startswith("Game Over, ")
    # Watching AIs, the panel beside the log shows who thinks and what they
    # say; standard output keeps those lines, the screen's log the rest.
    assert [line for line in out if " is thinking, " not in line
            and " says: " not in line] == app.log.lines


def test_a_forfeit_is_logged_and_announced(make_app: MakeApp) -> None:
    app = make_app("raiser", "random 3")
    run_to_end(app)
    assert "White (Raiser) raised an exception: RuntimeError: boom from think" in app.log.lines
    assert app.log.lines[-1] == "Game Over, Red (Random) won"
    assert scene(app)._banner == ("Red (Random) wins", "White (Raiser) crashed (its code "
                                                       "raised an error), and so lost")


def test_three_ais_play_a_whole_tournament(make_app: MakeApp) -> None:
    app = make_app("random 1", "random 2", "sequential", rows=4, cols=4, win_sequence=3,
                   round_pieces=4, square_pieces=4)
    run_to_end(app)
    session = scene(app).session
    assert session.state is SessionState.END and len(session.records) == 6
    assert app.log.lines[-4] == "Final standings:"
    assert sum(line.startswith("Game Over") for line in app.log.lines) == 6
    assert isinstance(app.scenes.current, FinalScene)


def test_worker_processes_by_default(make_app: MakeApp) -> None:
    pytest.importorskip("csl_game.engine.runners.process")
    config = MatchConfig(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4,
                         time_limit_ms=5000, min_move_time_ms=0)
    options = PlayOptions(ais=(AIEntry("random", "1"), AIEntry("random", "2")), match=config,
                          window_size=(800, 600), auto=True, unblocked_screen_s=0.0)
    app = App(options, out=io.StringIO())
    try:
        assert app.run() == 0
    finally:
        app.close()
    assert app.log.lines[-1].startswith("Game Over")


# ----------------------------------------------------------------- window
@pytest.mark.parametrize("event", ["videoresize", "windowresized"])
def test_resizing_relays_out_the_scene(make_app: MakeApp, event: str) -> None:
    app = make_app(size=(1280, 800))
    if event == "videoresize":
        post(pygame.VIDEORESIZE, size=(800, 600), w=800, h=600)
    else:
        post(pygame.WINDOWRESIZED, x=800, y=600)
    app.step(DT)
    assert app.size == (800, 600) and scene(app).layout.size == (800, 600)
    click(app, arrow(app, 6))
    assert board(app)[0, 6] is not None


@pytest.mark.parametrize("rows,cols", [(6, 7), (10, 10), (14, 7), (4, 20), (20, 4)])
def test_every_board_draws_at_every_size(make_app: MakeApp, rows: int, cols: int) -> None:
    app = make_app("random 5", "random 6", rows=rows, cols=cols, win_sequence=4,
                   round_pieces=rows * cols // 4, square_pieces=(rows * cols + 3) // 4)
    for size in [(800, 600), (1366, 768), (1920, 1080), (1000, 1000)]:
        post(pygame.VIDEORESIZE, size=size, w=size[0], h=size[1])
        for _ in range(10):
            app.step(DT)
        assert app.screen.get_size() == size
        screen = pygame.Rect(0, 0, *size)
        assert all(screen.contains(r) for r in scene(app).layout.all_rects())


def test_closing_the_window_ends_the_app(make_app: MakeApp) -> None:
    app = make_app("sleeper", "sleeper", time_limit_ms=60_000)
    post(pygame.QUIT)
    assert app.run() == 0
    match = scene(app).match if app.scenes.current else None
    assert match is None or not match.is_over  # stopped, not played out


@pytest.mark.timing
def test_closing_the_window_stops_worker_processes() -> None:
    pytest.importorskip("csl_game.engine.runners.process")
    config = MatchConfig(time_limit_ms=60_000, min_move_time_ms=0)
    options = PlayOptions(ais=(AIEntry("sleeper"), AIEntry("sleeper")), match=config,
                          window_size=(800, 600), thinker_paths=(FAKES,), auto=True,
                          unblocked_screen_s=0.0)
    app = App(options, out=io.StringIO())
    try:
        for _ in range(5):
            app.step(DT)
        match = scene(app).match
        assert match is not None
        pids = [r.pid for r in match._runners if r is not None]  # type: ignore[attr-defined]
        assert all(pids)
        post(pygame.QUIT)
        started = time.perf_counter()
        assert app.run() == 0
        assert time.perf_counter() - started < 3
    finally:
        app.close()
    assert not any(alive(pid) for pid in pids)


@pytest.mark.parametrize("opens", [pygame.K_F1, pygame.K_ESCAPE], ids=["help", "menu"])
def test_a_window_over_the_board_leaves_nothing_behind(make_app: MakeApp, opens: int) -> None:
    """The frame after the help or the menu closes shows all it covered."""
    app = make_app("random 7", size=(800, 600))
    check = ShownChecker(app)
    check.step(30)
    assert scene(app).focus_rect() is None, "no focus ring: the board alone is drawn"
    for key in (opens, pygame.K_ESCAPE):
        post(pygame.KEYDOWN, key=key, mod=0, unicode="", scancode=0)
        check.step(5)
    assert app.overlay is None
    for col in (1, 2):  # hovers show only what they change, and all of it
        post(pygame.MOUSEMOTION, pos=arrow(app, col), rel=(0, 0), buttons=(0, 0, 0))
        check.step(5)
    assert check.partial > 0


def test_the_areas_shown_cover_every_change(make_app: MakeApp) -> None:
    """Only dirty rects reach the display: everything that changed must be in them."""
    app = make_app("random 7", size=(900, 700))
    check = ShownChecker(app)
    for col in (3, 4, 3, 2, 5):
        check.step(60)                  # AI reply, falls, pulses; then all is still
        for hover in (col - 1, col):
            post(pygame.MOUSEMOTION, pos=arrow(app, hover), rel=(0, 0), buttons=(0, 0, 0))
            check.step()
        post(pygame.MOUSEMOTION, pos=toggle(app, PColor.WHITE, PShape.SQUARE), rel=(0, 0),
             buttons=(0, 0, 0))
        check.step()
        for _ in range(2):
            post(pygame.KEYDOWN, key=pygame.K_TAB, mod=0, unicode="", scancode=0)
            check.step()
        post(pygame.MOUSEBUTTONDOWN, pos=arrow(app, col), button=1)
        post(pygame.MOUSEBUTTONUP, pos=arrow(app, col), button=1)
        check.step(2)
    assert board(app).move_count >= 6
    assert check.partial > 300, "most frames show only what changed"
    assert check.column_frames > 0.9 * check.board_frames, \
        "falls, pulses and hovers show the columns they touch, not the whole board"
