"""Every mode end to end through real events: setup, who plays first, the
match, the result, and what comes after; a tournament with --auto."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pygame
import pytest

from csl_game.cli import main
from csl_game.engine import Choice, Session, SessionState
from csl_game.gui.app import App
from csl_game.gui.scenes.info import FinalScene, PreMatchScene
from csl_game.gui.scenes.match import MatchScene
from csl_game.gui.scenes.setup import SetupScene
from csl_game.model.board import PColor, Piece, PShape, Winner
from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype
from gui_events import (
    DT,
    Apps,
    FastClock,
    board_scene,
    click,
    click_at,
    current,
    drop,
    press,
    result_overlay,
    run_until,
    shown_result,
)

FAKES = str(Path(__file__).parent / "fakes" / "fake_thinkers.py")
BOARD = dict(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4)

MakeApp = Callable[..., App]


@pytest.fixture
def make_app(apps: Apps) -> MakeApp:
    def make(*ais: AIEntry, show_setup: bool = False, **options: object) -> App:
        config = MatchConfig(**BOARD, time_limit_ms=2000, min_move_time_ms=0)
        return apps.open(PlayOptions(ais=ais, match=config, window_size=(1024, 700),
                                     in_process=True, thinker_paths=(FAKES,),
                                     last_move_animation_s=0.0, show_setup=show_setup,
                                     **options))  # type: ignore[arg-type]

    return make


def play_human_moves(app: App) -> None:
    """The humans drop into the first free column until the match ends."""
    while isinstance(app.scenes.current, MatchScene) and result_overlay(app) is None:
        scene = app.scenes.current
        match = scene.match
        assert match is not None
        if match.awaiting_human and scene.visual.idle:
            free = next(c for c in range(match.board.cols) if not match.board.is_column_full(c))
            click_at(app, scene.layout.arrows[free].center, frames=1)
        else:
            app.step(DT)


def names_shown(app: App) -> tuple[str, str]:
    scene = current(app, PreMatchScene)
    return scene.session.next_pairing  # type: ignore[attr-defined]


def playing_at_once(app: App) -> tuple[str, str]:
    """The players of a game played again: it starts at once (colours chosen already)."""
    scene = board_scene(app)
    return scene.session.next_pairing


# ----------------------------------------------------------------- 0 AIs
def test_two_humans_from_setup_to_a_win_and_back(make_app: MakeApp) -> None:
    app = make_app(show_setup=True)
    setup = current(app, SetupScene)
    assert setup.mode_label.text == "Mode: Human vs human"  # type: ignore[attr-defined]
    click(app, setup.buttons["start"])  # type: ignore[attr-defined]
    pre = current(app, PreMatchScene)
    assert pre.choices == (Choice.START,), "two humans: no who-plays-first choice"
    assert names_shown(app) == ("Player 1", "Player 2")
    press(app, Choice.START)
    for col in (0, 0, 1, 1, 2):  # White's round pieces make three in the bottom row
        drop(app, col)
    board = board_scene(app).match.board  # type: ignore[union-attr]
    assert board[0, 2] == Piece(PColor.WHITE, PShape.ROUND)
    run_until(app, lambda: result_overlay(app) is not None)
    result = shown_result(app)
    assert board_scene(app)._banner == ("White (Player 1) wins",
                                        "White (Player 1) made 3 round pieces in a row")
    assert result.choices == (Choice.PLAY_AGAIN, Choice.PLAY_AGAIN_SWAPPED, Choice.REVIEW,
                              Choice.SETUP, Choice.QUIT)
    press(app, Choice.PLAY_AGAIN_SWAPPED)
    assert playing_at_once(app) == ("Player 2", "Player 1")
    drop(app, 3)
    assert board_scene(app).match.board[0, 3] == Piece(PColor.WHITE, PShape.ROUND)  # type: ignore
    play_human_moves(app)
    press(app, Choice.SETUP)
    assert current(app, SetupScene).players == []  # type: ignore[attr-defined]


# ----------------------------------------------------------------- 1 AI
def test_human_vs_ai_swap_then_play(make_app: MakeApp) -> None:
    app = make_app(AIEntry("sequential"))
    pre = current(app, PreMatchScene)
    assert pre.choices == (Choice.SWAP, Choice.START)
    assert names_shown(app) == ("Human", "Sequential")
    press(app, Choice.SWAP)
    assert names_shown(app) == ("Sequential", "Human")
    press(app, Choice.START)
    scene = board_scene(app)
    match = scene.match
    assert match is not None and not match.is_human(PColor.WHITE) and match.is_human(PColor.RED)
    run_until(app, lambda: match.board.move_count == 1)
    assert match.board[0, 0] == Piece(PColor.WHITE, PShape.ROUND), "the AI moved first"
    play_human_moves(app)
    shown_result(app)
    assert match.result is not None and match.result.winner is not Winner.NONE
    assert board_scene(app)._banner[0].startswith(("You win", "You lose",  # type: ignore
                                                   "It's a draw"))
    press(app, Choice.PLAY_AGAIN)
    assert playing_at_once(app) == ("Sequential", "Human"), "play again keeps the colours"


# ----------------------------------------------------------------- 2 AIs
def test_ai_vs_ai_start_play_again_and_quit(make_app: MakeApp) -> None:
    app = make_app(AIEntry("sequential"), AIEntry("random", "1"))
    assert current(app, PreMatchScene).choices == (Choice.SWAP, Choice.START)  # type: ignore
    press(app, Choice.START)
    run_until(app, lambda: result_overlay(app) is not None)
    first = app.flow.board.match.result  # type: ignore[union-attr]
    assert first is not None
    press(app, Choice.PLAY_AGAIN)
    assert playing_at_once(app) == ("Sequential", "Random")
    assert isinstance(app.scenes.current, MatchScene)
    run_until(app, lambda: result_overlay(app) is not None)
    press(app, Choice.QUIT)
    assert not app.running


def test_resizing_an_info_screen_lays_it_out_again(make_app: MakeApp) -> None:
    app = make_app(AIEntry("sequential"), AIEntry("random"))
    pygame.event.post(pygame.event.Event(pygame.VIDEORESIZE, size=(800, 600), w=800, h=600))
    app.step(DT)
    scene = current(app, PreMatchScene)
    screen = pygame.Rect(0, 0, 800, 600)
    assert all(screen.contains(b.rect) for b in scene.buttons.values())  # type: ignore
    press(app, Choice.START)
    assert isinstance(app.scenes.current, MatchScene)


# ----------------------------------------------------------------- tournaments
def test_tournament_screens_wait_or_time_out_as_configured(make_app: MakeApp) -> None:
    app = make_app(AIEntry("sequential"), AIEntry("raiser"), AIEntry("nomove"),
                   wait_before_match=False, wait_after_match=True, unblocked_screen_s=0.5)
    pre = current(app, PreMatchScene)
    assert pre.timeout == 0.5 and pre.session.records == []  # type: ignore[attr-defined]
    run_until(app, lambda: result_overlay(app) is not None)
    result = shown_result(app)
    assert result.timeout is None and result.choices == (Choice.OK,)
    for _ in range(60):
        app.step(DT)
    assert result_overlay(app) is result, "it waits for OK"
    press(app, Choice.OK)
    pre = current(app, PreMatchScene)
    assert pre.session.current_index == 1 and pre.timeout == 0.5  # type: ignore[attr-defined]
    countdown = pre.row.countdown  # type: ignore[attr-defined]
    assert countdown is not None and countdown.text.startswith("Starting in")


def test_auto_tournament_of_four_from_the_command_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "four.toml"
    config.write_text(
        "rows = 4\ncols = 4\nwin_sequence = 3\nround_pieces = 4\nsquare_pieces = 4\n"
        "time_limit_ms = 5000\nmin_move_time_ms = 0\nlast_move_animation_s = 0\n"
        "unblocked_screen_s = 0.2\n"
        + "".join(f'[[players]]\nthinker = "{t}"\nparams = "{p}"\n'
                  for t, p in [("minimax", "2"), ("sequential", ""), ("raiser", ""),
                               ("nomove", "")]), encoding="utf-8")
    monkeypatch.setattr(pygame.time, "Clock", FastClock)
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    code = main(["play", "--auto", "--config", str(config), "--in-process",
                 "--thinkers", FAKES])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert sum(line.startswith("Game Over") for line in out) == 12
    assert [line for line in out if line.startswith("* Match ")][-1].startswith("* Match 12:")
    table = out[out.index("Final standings:") + 1:]
    # the same players played by the blocking engine give the same standings
    mc = MatchConfig(**BOARD, time_limit_ms=5000, min_move_time_ms=0)
    players = [ThinkerPrototype(t, p, mc, (FAKES,)) for t, p in
               [("minimax", "2"), ("sequential", ""), ("raiser", ""), ("nomove", "")]]
    expected = Session(players, mc).run()
    assert table == [f"{s.position}. {s.name}: {s.points} pts ({s.wins} W, {s.draws} D, "
                     f"{s.losses} L)" for s in expected]
    # whoever is White between the two forfeiting thinkers loses at once
    # (tied: by name, as every table orders ties)
    assert table[2:] == ["3. NoMove: 3 pts (1 W, 0 D, 5 L)", "3. Raiser: 3 pts (1 W, 0 D, 5 L)"]


def test_final_screen_offers_quit_play_again_and_setup(make_app: MakeApp) -> None:
    app = make_app(AIEntry("sequential"), AIEntry("raiser"), AIEntry("nomove"),
                   wait_before_match=False, wait_after_match=False, unblocked_screen_s=0.0)
    run_until(app, lambda: isinstance(app.scenes.current, FinalScene))
    final = current(app, FinalScene)
    assert final.choices == (Choice.QUIT, Choice.PLAY_AGAIN, Choice.SETUP)
    assert final.timeout is None, "the final screen waits (without --auto)"
    session = final.session  # type: ignore[attr-defined]
    assert session.state is SessionState.END and len(session.records) == 6
    press(app, Choice.PLAY_AGAIN)  # its first screen times out at once
    assert app.flow is not None
    again = app.flow.session
    assert again is not session and again.names == session.names and again.records == []
    run_until(app, lambda: isinstance(app.scenes.current, FinalScene))
    press(app, Choice.SETUP)
    setup = current(app, SetupScene)
    assert [p.thinker for p in setup.players] == ["sequential", "raiser", "nomove"]  # type: ignore
