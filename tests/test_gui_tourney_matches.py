"""Every match of a tournament can be seen, through real events under the dummy
driver: a finished match opens from the results table as a replay (a click on
its row, or Tab, Down and Enter), the tournament goes on meanwhile, Close or Esc
comes back, and the final screen puts the results under the keyboard first."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pygame
import pytest

from csl_game.engine import Choice
from csl_game.engine import background as background_module
from csl_game.gui.app import App
from csl_game.gui.scenes.info import FinalScene, PreMatchScene
from csl_game.gui.scenes.replay import ReplayScene
from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.thinker.api import MatchConfig
from gui_events import DT, click, click_at, key, run_until
from held_scheduler import HeldScheduler

FAKES = str(Path(__file__).parent / "fakes" / "fake_thinkers.py")
BOARD = dict(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4)


@pytest.fixture
def tourney(monkeypatch: pytest.MonkeyPatch) -> Iterator[App]:
    """Four AIs, two matches at a time: one on screen, one held off screen."""
    HeldScheduler.made.clear()
    monkeypatch.setattr(background_module, "Scheduler", HeldScheduler)
    config = MatchConfig(**BOARD, time_limit_ms=2000, min_move_time_ms=0)
    options = PlayOptions(ais=(AIEntry("sequential"), AIEntry("steady", "1"),
                               AIEntry("sequential"), AIEntry("steady", "2")), match=config,
                          window_size=(1024, 700), in_process=True, thinker_paths=(FAKES,),
                          last_move_animation_s=0.0, wait_before_match=True,
                          wait_after_match=False, unblocked_screen_s=0.0, workers=2)
    app = App(options, out=io.StringIO())
    app.step(DT)
    yield app
    app.close()


def _pre(app: App) -> PreMatchScene:
    scene = app.scenes.current
    assert isinstance(scene, PreMatchScene)
    return scene


def test_a_match_played_off_screen_opens_from_the_results_and_comes_back(
        tourney: App) -> None:
    app = tourney
    pre = _pre(app)
    session = pre.session
    assert session.total_matches == 12
    background = HeldScheduler.made[0]
    background.end(1)
    app.step(DT)
    pre = _pre(app)
    table = pre.results
    assert table is not None and len(table.rows) == 1
    click_at(app, table.row_rect(0).center)
    replay = app.scenes.current
    assert isinstance(replay, ReplayScene) and replay.replay.index == 1
    assert replay.replay.title.startswith("Match 2: ")
    background.end(2)  # the tournament goes on while the replay is shown
    for _ in range(3):
        app.step(DT)
    assert app.scenes.current is replay and len(session.records) == 2
    key(app, pygame.K_ESCAPE)
    pre = _pre(app)
    assert app.overlay is None, "Esc closes the replay, no menu"
    assert pre.results is not None and len(pre.results.rows) == 2
    # by the keyboard: Tab round to the results, Down to the second row, Enter
    for _ in range(5):
        if pre.focus.key == "results":
            break
        key(app, pygame.K_TAB)
    assert pre.focus.key == "results"
    key(app, pygame.K_DOWN)
    assert pre.results.picked == 1
    ring = app.scenes.current.focus_rect()
    assert ring == pre.results.row_rect(1).clip(pre.results.body), "the ring is on the row"
    key(app, pygame.K_RETURN, frames=2)
    replay = app.scenes.current
    assert isinstance(replay, ReplayScene) and replay.replay.index == 2
    click(app, replay.buttons["after0"])  # Close
    assert isinstance(app.scenes.current, PreMatchScene)


def test_the_final_screen_opens_any_match_from_the_keyboard(tourney: App) -> None:
    app = tourney
    session = _pre(app).session
    background = HeldScheduler.made[0]
    while not isinstance(app.scenes.current, FinalScene):
        for index in background.indices:
            background.end(index)
        app.step(DT)
        scene = app.scenes.current
        if isinstance(scene, PreMatchScene) and Choice.START in scene.buttons:
            key(app, pygame.K_RETURN, frames=2)  # Start the match on screen
        run_until(app, lambda: not isinstance(app.scenes.current, PreMatchScene)
                  or not app.scenes.current.session.waiting
                  or bool(background.indices), seconds=30)
    final = app.scenes.current
    assert isinstance(final, FinalScene) and len(session.records) == 12
    assert final.focus.key == "results", "the results first: Enter never quits"
    key(app, pygame.K_END)  # not a key of the table: nothing happens
    for _ in range(11):
        key(app, pygame.K_DOWN)
    assert final.results is not None and final.results.picked == 11
    key(app, pygame.K_RETURN, frames=2)
    replay = app.scenes.current
    assert isinstance(replay, ReplayScene) and replay.replay.index == 11
    key(app, pygame.K_ESCAPE)
    assert isinstance(app.scenes.current, FinalScene) and app.running
