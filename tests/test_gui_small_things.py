"""Small things a player meets, through real events under the dummy driver where
there is a window: `play -r 8 -c 9` has a quarter of the cells in pieces of each
shape as `match` has, and so do the setup screen's rows and columns; a win is
counted one way (the winner's moves) by the analysis and the review alike; Play
again after a game against a level starts at once; the home's Tournament starts
with an AI of each level; X says so when no mistake is left."""

from __future__ import annotations

import argparse
from pathlib import Path

import pygame
import pytest
from pygame_gui.elements import UITextEntryLine

import csl_game.gui
from csl_game.cli import main
from csl_game.engine import Choice
from csl_game.engine.match import MatchResult, PlayedMove
from csl_game.engine.runners.thread import ThreadRunner
from csl_game.gui.review_view import ReviewTool
from csl_game.gui.scenes.home import HomeScene
from csl_game.gui.scenes.match import MatchScene
from csl_game.gui.scenes.replay import ReplayScene
from csl_game.gui.scenes.setup import SetupScene
from csl_game.model.board import Board, Move, Pos, Winner
from csl_game.services.analysis import MoveValue, moves_to_win
from csl_game.services.flag_values import match_config
from csl_game.services.options import default_pieces
from csl_game.services.presets import LEVELS, level_of
from csl_game.services.replay import Replay
from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.thinker.api import MatchConfig
from gui_events import DT, Apps, key, press, result_overlay, run_until, type_into


# ----------------------------------------------------------------- pieces
@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[PlayOptions]:
    seen: list[PlayOptions] = []
    monkeypatch.setattr(csl_game.gui, "run_gui", lambda options: seen.append(options) or 0)
    return seen


def test_play_and_match_give_a_board_the_same_pieces(opened: list[PlayOptions]) -> None:
    assert main(["play", "-r", "8", "-c", "9", "--in-process"]) == 0
    play = opened[0].match
    flags = {k: None for k in ("rows", "cols", "win_sequence", "round_pieces", "square_pieces",
                               "time_limit", "min_move_time")}
    match = match_config(argparse.Namespace(**{**flags, "rows": 8, "cols": 9}))
    assert (play.round_pieces, play.square_pieces) == (match.round_pieces,
                                                       match.square_pieces) == (18, 18)
    assert main(["play", "-r", "8", "-c", "9", "-o", "5", "--in-process"]) == 0
    assert (opened[1].match.round_pieces, opened[1].match.square_pieces) == (5, 11), \
        "pieces given are kept"


def test_the_setup_screens_pieces_follow_the_board(apps: Apps) -> None:
    app = apps.open(PlayOptions(show_setup=True, window_size=(1280, 800), in_process=True))
    setup = app.scenes.current
    assert isinstance(setup, SetupScene) and setup.form is not None
    controls = setup.form.controls
    rows = controls["rows"]
    assert isinstance(rows, UITextEntryLine)
    type_into(app, rows, "8")
    type_into(app, controls["cols"], "9")  # type: ignore[arg-type]
    assert (setup.entries["round_pieces"], setup.entries["square_pieces"]) == ("18", "18")
    assert controls["round_pieces"].get_text() == "18"  # type: ignore[union-attr]
    type_into(app, controls["square_pieces"], "20")  # type: ignore[arg-type]
    type_into(app, controls["rows"], "6")  # type: ignore[arg-type]
    assert setup.entries["square_pieces"] == "20", "pieces typed for a board are kept"
    assert default_pieces(6, 7) == (10, 11)


# ----------------------------------------------------------------- counting a win
def test_a_win_counts_the_winners_moves_before_and_after_the_move() -> None:
    assert [moves_to_win(p) for p in (1, 2, 3, 4, 5)] == [1, 1, 2, 2, 3]
    win = MoveValue("3r", "white", 3, None)  # White plays 3r, Red, White wins: 3 plies
    assert win.text() == "White wins in 2"
    assert win.text(after=True) == "White wins in 1"
    assert MoveValue("0r", "white", 1, None).text(after=True) == "White won"
    loss = MoveValue("2s", "red", 4, None)  # White's 2s, then Red wins on the 4th ply
    assert loss.text() == "Red wins in 2" and loss.text(after=True) == "Red wins in 2"
    # the review of a move says what the analysis of the position it leaves says:
    # that position's best move is one ply nearer the end, its mover the other side
    for plies in range(1, 12):
        played = MoveValue("1r", "white", plies + 1, None)
        best_after = MoveValue("2r", "white", plies, None)
        assert played.text(after=True) == best_after.text()


# ----------------------------------------------------------------- play again, tournament
def test_play_again_after_a_level_starts_at_once(apps: Apps) -> None:
    small = MatchConfig(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4,
                        time_limit_ms=2000, min_move_time_ms=0)
    lv = LEVELS[0]
    app = apps.open(PlayOptions(ais=(AIEntry(lv.thinker, lv.params),), match=small,
                                in_process=True, window_size=(1024, 700),
                                last_move_animation_s=0.0), runner_factory=ThreadRunner)
    key(app, pygame.K_RETURN, frames=2)  # who plays first: Start
    run_until(app, lambda: isinstance(app.scenes.current, MatchScene), seconds=20)
    scene = app.scenes.current
    assert isinstance(scene, MatchScene)
    run_until(app, lambda: scene.input_enabled, seconds=20)
    key(app, pygame.K_r)
    key(app, pygame.K_r)  # resigned: the game is over
    run_until(app, lambda: result_overlay(app) is not None, seconds=20)
    assert any("resigned" in line for line in app.log.lines)
    press(app, Choice.PLAY_AGAIN)
    assert isinstance(app.scenes.current, MatchScene), "no who-plays-first again"
    app.step(DT)
    # the new game's log starts with it: the last game's lines are gone from the screen
    assert app.log.lines[0].startswith("=> ") and not any("resigned" in line
                                                          for line in app.log.lines)
    key(app, pygame.K_ESCAPE)
    texts = [item.text for item in app.overlay.items]  # type: ignore[union-attr]
    assert "Restart" in texts
    for _ in range(texts.index("Restart")):
        key(app, pygame.K_DOWN)
    key(app, pygame.K_RETURN, frames=2)
    assert isinstance(app.scenes.current, MatchScene), "nor after Restart"


def test_the_homes_tournament_starts_with_an_ai_of_each_level(apps: Apps) -> None:
    app = apps.open(PlayOptions(show_home=True, window_size=(1280, 800), in_process=True),
                    runner_factory=ThreadRunner)
    assert isinstance(app.scenes.current, HomeScene)
    key(app, pygame.K_4)
    setup = app.scenes.current
    assert isinstance(setup, SetupScene)
    levels = [level_of(ai.thinker, ai.params) for ai in setup.players]
    assert [lv.label for lv in levels if lv is not None] == ["Easy", "Medium", "Hard"]
    assert all(ai.active for ai in setup.players) and "tournament" in \
        setup.mode_label.text.lower()  # type: ignore[union-attr]


# ----------------------------------------------------------------- X
def test_x_says_so_when_no_mistake_is_left(apps: Apps) -> None:
    board = Board(6, 7)
    moves = []
    for col in (3, 3, 2, 4, 1, 5, 0):
        shape = board.turn.shape
        row = board.do_move(shape, col)
        moves.append(PlayedMove(Move(row, col, board[row, col]), 0.01))  # type: ignore[arg-type]
    solution: list[Pos] = []
    assert board.check_winner(solution) is Winner.WHITE
    replay = Replay((6, 7, 4, 10, 11), 500, MatchResult(Winner.WHITE, "Easy", "Medium",
                                                        solution=tuple(solution),
                                                        moves=tuple(moves)))
    app = apps.open(PlayOptions(show_home=True, window_size=(1920, 1080), in_process=True),
                    runner_factory=ThreadRunner)
    scene = ReplayScene(app.ctx, replay)
    # a tenth of the review's second a position finds this game's inaccuracy and blunder
    # as well, and X's walk through them is what is proven here
    scene.review = ReviewTool(replay, ThreadRunner, time_ms=100)
    app.scenes.switch(scene)
    app.step(DT)
    key(app, pygame.K_x)
    assert scene.review.started and "X again" in scene.note, "X starts the review first"
    run_until(app, lambda: scene.review.job is None and scene.review.review is not None,
              seconds=60)
    for _ in range(len(moves) + 1):
        key(app, pygame.K_x)
    assert scene.note.startswith(("No more mistakes after move", "No inaccuracy")), scene.note
    assert scene.note in scene.caption.text  # type: ignore[union-attr]
    key(app, pygame.K_HOME)
    assert scene.note == ""


def test_no_log_line_says_learn_its_name() -> None:
    source = (Path(csl_game.gui.__file__).parent / "scenes" / "info.py").read_text()
    assert "to learn its name" not in source
