"""Every size, through real events under the dummy driver: the window declares a
minimum size and keeps to it when made smaller; at 800x600 the result banner
stays clear of the panels with its buttons in it, the replay bar's buttons hold
their text, and the review says all it has to say (no line cut short)."""

from __future__ import annotations

import itertools
import warnings

import pygame
import pytest
from pygame import Rect
from pygame_gui.elements import UIButton

from csl_game.engine import Choice
from csl_game.engine.match import MatchResult, PlayedMove
from csl_game.engine.runners.thread import ThreadRunner
from csl_game.gui.layout import MIN_SIZE, window_size_for
from csl_game.gui.review_view import ReviewTool
from csl_game.gui.scenes.home import HomeScene
from csl_game.gui.scenes.match import MatchScene
from csl_game.gui.scenes.replay import ReplayScene
from csl_game.model.board import Board, Move, Pos, Winner
from csl_game.services.replay import Replay
from csl_game.services.settings import PlayOptions
from csl_game.thinker.api import MatchConfig
from gui_events import DT, Apps, drop, key, post, result_overlay, run_until


def _fits(widget: UIButton) -> bool:
    """The button's text is no wider than the button (with a little padding)."""
    font = widget.font
    assert font is not None
    return font.size(widget.text)[0] <= widget.rect.w - 4


def _on_screen_and_apart(rects: list[Rect], size: tuple[int, int]) -> None:
    screen = Rect(0, 0, *size)
    for rect in rects:
        assert screen.contains(rect), f"{rect} is off the {size} window"
    for a, b in itertools.combinations(rects, 2):
        assert not a.colliderect(b), f"{a} overlaps {b}"


# ----------------------------------------------------------------- the minimum
def test_the_window_declares_its_minimum_size_and_keeps_to_it(apps: Apps) -> None:
    app = apps.open(PlayOptions(show_home=True, window_size=(1024, 700)),
                    runner_factory=ThreadRunner)
    assert app.declared_minimum and app.minimum == MIN_SIZE
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert pygame.Window.from_display_module().minimum_size == MIN_SIZE
    post(pygame.VIDEORESIZE, size=(300, 200), w=300, h=200)
    app.step(DT)
    assert app.size == MIN_SIZE, "a smaller size is taken as the minimum"
    home = app.scenes.current
    assert isinstance(home, HomeScene)
    _on_screen_and_apart([Rect(w.rect) for _, w in home.focus.items()], app.size)
    for shortcut in (pygame.K_1, pygame.K_3):
        key(app, shortcut)
        scene = app.scenes.current
        _on_screen_and_apart([Rect(w.rect) for _, w in scene.focus.items()  # type: ignore
                              if w.visible], app.size)
        key(app, pygame.K_ESCAPE)


def test_a_window_never_opens_below_the_minimum(apps: Apps) -> None:
    app = apps.open(PlayOptions(show_home=True, window_size=(320, 240)),
                    runner_factory=ThreadRunner)
    assert app.size == MIN_SIZE
    assert window_size_for((1024, 600)) == (942, 600), "a small desktop: all its height"
    assert window_size_for((640, 480)) == (640, 480), "smaller still: the desktop"


# ----------------------------------------------------------------- 800x600
@pytest.mark.parametrize("board", [(6, 7), (4, 4), (7, 6), (9, 9), (6, 12)], ids=str)
def test_the_result_banner_stays_clear_of_the_panels(apps: Apps, board: tuple[int, int]) -> None:
    rows, cols = board
    config = MatchConfig(rows=rows, cols=cols, win_sequence=4, round_pieces=rows * cols // 4,
                         square_pieces=(rows * cols + 3) // 4, time_limit_ms=2000,
                         min_move_time_ms=0)
    app = apps.open(PlayOptions(match=config, window_size=MIN_SIZE, in_process=True,
                                last_move_animation_s=0.0), runner_factory=ThreadRunner)
    key(app, pygame.K_RETURN, frames=2)  # two humans: Start
    for col in (0, 1, 0, 1, 0, 1, 0):  # four whites up column 0
        drop(app, col)
    run_until(app, lambda: result_overlay(app) is not None)
    overlay = result_overlay(app)
    scene = app.scenes.current
    assert overlay is not None and overlay.box is not None and isinstance(scene, MatchScene)
    assert set(overlay.buttons) >= {Choice.PLAY_AGAIN, Choice.QUIT}
    lay = scene.layout
    for panel in lay.panels:
        assert not overlay.box.colliderect(panel.rect), f"the banner covers {panel.rect}"
    assert Rect(0, 0, *app.size).contains(overlay.box)
    for widget in overlay.buttons.values():
        assert overlay.box.contains(widget.rect), f"{widget.text} leaves the banner"
        assert _fits(widget), f"{widget.text!r} overflows its button"
    _on_screen_and_apart([Rect(w.rect) for w in overlay.buttons.values()], app.size)


def _replay() -> Replay:
    board = Board(6, 7)
    moves = []
    for col in (3, 3, 2, 4, 1, 5, 0):
        shape = board.turn.shape
        row = board.do_move(shape, col)
        moves.append(PlayedMove(Move(row, col, board[row, col]), 0.01))  # type: ignore[arg-type]
    solution: list[Pos] = []
    winner = board.check_winner(solution)
    assert winner is Winner.WHITE
    return Replay((6, 7, 4, 10, 11), 500, MatchResult(winner, "Human", "Easy",
                                                      solution=tuple(solution),
                                                      moves=tuple(moves)), None, (True, False))


def test_the_replay_bar_and_the_review_fit_800x600(apps: Apps) -> None:
    app = apps.open(PlayOptions(window_size=MIN_SIZE, in_process=True, show_home=True),
                    runner_factory=ThreadRunner)
    replay = ReplayScene(app.ctx, _replay(),
                         after=(("Play again", lambda: None), ("Back to setup", lambda: None)))
    # a tenth of the review's second a position grades this game as richly (an
    # inaccuracy, a blunder, better moves with their lines): the longest lines it says
    replay.review = ReviewTool(replay.replay, ThreadRunner, time_ms=100)
    replay.review.start()  # as review=True does
    app.scenes.switch(replay)
    app.step(DT)
    for widget in replay.buttons.values():
        assert _fits(widget), f"{widget.text!r} overflows its button"
    _on_screen_and_apart([Rect(w.rect) for w in replay.buttons.values()], app.size)
    run_until(app, lambda: replay.review.review is not None and replay.review.job is None,
              seconds=60)
    lay = replay.layout
    panel, _ = replay._review_areas(lay)
    font = app.ctx.fonts.get(11)
    said: set[str] = set()
    for step in range(replay.last + 1):
        lines = replay.review_panel.lines(panel.w - 16, lay.scale, replay.review, step)
        assert not any(text.endswith("\u2026") for text, _, _ in lines)
        assert all(font.size(text)[0] <= panel.w for text, _, _ in lines)
        said.update(text.split()[0] for text, _, _ in lines)
    assert "Best" in said, "a better move and its line were said"
