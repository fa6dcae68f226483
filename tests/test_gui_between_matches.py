"""The screen between a tournament's matches, as a player meets it: it
follows the matches played off screen without any input, and its results
table is reached and worked by the keys its hint names."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pygame
import pytest
from pygame_gui.elements import UILabel

from csl_game.engine import Choice
from csl_game.engine import background as background_module
from csl_game.gui.app import App
from csl_game.gui.keys import TABLE_KEYS
from csl_game.gui.scenes.info import PreMatchScene
from csl_game.gui.scenes.menu import HelpOverlay
from csl_game.gui.scenes.replay import ReplayScene
from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.thinker.api import MatchConfig
from gui_events import DT, key
from held_scheduler import HeldScheduler

FAKES = str(Path(__file__).parent / "fakes" / "fake_thinkers.py")
BOARD = dict(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4)


def _options(**kw: object) -> PlayOptions:
    config = MatchConfig(**BOARD, time_limit_ms=5000, min_move_time_ms=0)
    base = dict(ais=(AIEntry("sequential"), AIEntry("steady", "1"), AIEntry("raiser"),
                     AIEntry("steady", "2")), match=config, window_size=(1024, 700),
                in_process=True, thinker_paths=(FAKES,), last_move_animation_s=0.0,
                wait_before_match=True, wait_after_match=False, unblocked_screen_s=0.0,
                workers=2)
    return PlayOptions(**{**base, **kw})  # type: ignore[arg-type]


def _results_label(app: App) -> UILabel | None:
    labels = [e for e in app.ui.get_sprite_group().sprites()
              if isinstance(e, UILabel) and e.text.startswith("Results (")]
    assert len(labels) <= 1
    return labels[0] if labels else None


def test_the_screen_between_matches_is_drawn_anew_with_each_result_off_screen() -> None:
    """A --workers 2 tournament left on its first screen: every match that ends
    off screen is drawn at once, with no event to wake the window."""
    app = App(_options(), out=io.StringIO())
    try:
        app.step(DT)
        scene = app.scenes.current
        assert isinstance(scene, PreMatchScene)
        session = scene.session
        drawn_counts: list[int] = []
        last_image: bytes | None = None

        def frame() -> bool:
            nonlocal last_image
            before = len(session.records)
            app.step(DT)
            after = len(session.records)
            assert app.scenes.current is scene, "nobody pressed Start"
            if after != before:
                assert not app.idle, f"result {after} came and the frame was not drawn"
                shown = _results_label(app)
                assert shown is not None and shown.text.startswith(
                    f"Results ({after} of {session.total_matches})")
                area = shown.rect.clip(app.screen.get_rect())
                image = pygame.image.tobytes(app.screen.subsurface(area), "RGB")
                assert image != last_image, "the title's pixels changed with the count"
                last_image = image
                drawn_counts.append(after)
            return len(session.records) == session.total_matches - 1

        deadline = time.monotonic() + 120
        while not frame():
            assert time.monotonic() < deadline, "the matches off screen did not end"
            time.sleep(0.0005)  # let the threads that play them have the GIL
        # results that end in the same frame are drawn together
        assert drawn_counts == sorted(set(drawn_counts))
        assert drawn_counts[-1] == session.total_matches - 1 and len(drawn_counts) > 2
    finally:
        app.close()


class _Watched(App):
    """The window, noting each frame in which results came: whether it was
    drawn, and whether the window was resting (frames not drawn) before it."""

    def __init__(self, options: PlayOptions) -> None:
        super().__init__(options, out=io.StringIO())
        self.result_frames: list[tuple[int, bool, bool]] = []
        """(results so far, drawn, rested before) for each frame in which some came."""
        self._rested = False

    def step(self, dt: float | None = None) -> bool:
        session = self.flow.session if self.flow is not None else None
        before = len(session.records) if session is not None else 0
        running = super().step(dt)
        if session is not None and len(session.records) != before:
            self.result_frames.append((len(session.records), not self.idle, self._rested))
            self._rested = False
            if len(session.records) == session.total_matches - 1:
                self.quit()  # all but the match on screen, which waits for Start
        elif self.idle:
            self._rested = True
        return running


def test_the_window_loop_redraws_each_result_with_no_input() -> None:
    """The window's own loop (App.run, which sleeps in pygame.event.wait while
    nothing happens) on the first screen of a --workers 2 tournament: each
    frame in which results came off screen is drawn, those that found the
    window resting too, and no event comes. Each move takes 40 ms or more and
    these games fill the board (16 moves), so no match ends within the moment
    the window stays awake after its start."""
    app = _Watched(_options(ais=tuple(AIEntry("steady", str(ms)) for ms in (40, 45, 50, 55))))
    total = app.flow.session.total_matches if app.flow is not None else 0
    stop = threading.Timer(120, pygame.event.post, (pygame.event.Event(pygame.QUIT),))
    stop.start()
    try:
        app.run()
    finally:
        stop.cancel()
    counts = [count for count, _, _ in app.result_frames]
    assert counts and counts[-1] == total - 1, f"the matches off screen ended: {counts}"
    assert all(drawn for _, drawn, _ in app.result_frames), app.result_frames
    assert any(rested for _, _, rested in app.result_frames), \
        "some result came while the window rested"


@pytest.fixture
def held_app(monkeypatch: pytest.MonkeyPatch) -> Iterator[App]:
    """The first screen of a --workers 2 tournament whose off-screen matches
    end when the test says."""
    HeldScheduler.made.clear()
    monkeypatch.setattr(background_module, "Scheduler", HeldScheduler)
    app = App(_options(), out=io.StringIO())
    app.step(DT)
    yield app
    app.close()


def test_down_and_enter_replay_a_result_as_the_title_says(held_app: App) -> None:
    app = held_app
    scene = app.scenes.current
    assert isinstance(scene, PreMatchScene)
    background = HeldScheduler.made[0]
    background.end(background.indices[0])
    app.step(DT)
    background.end(background.indices[0])
    app.step(DT)
    shown = _results_label(app)
    assert shown is not None and "Down and Enter: replay" in shown.text
    assert scene.focus.key == Choice.START.value, "Start has the keyboard first"
    table = scene.results
    assert table is not None and len(table.rows) == 2
    key(app, pygame.K_DOWN)
    assert scene.focus.key == "results" and table.picked == 0
    assert scene.focus_rect() == table.row_rect(0), "the ring goes round the first result"
    key(app, pygame.K_DOWN)
    assert scene.focus_rect() == table.row_rect(1)
    second = scene.picked_match
    key(app, pygame.K_RETURN)
    replay = app.scenes.current
    assert isinstance(replay, ReplayScene) and replay.replay.index == second
    assert scene.session.current_index == 0, "no match was started"
    key(app, pygame.K_ESCAPE)
    back = app.scenes.current
    assert isinstance(back, PreMatchScene) and back.focus.key == "results"
    assert back.picked_match == second, "the keyboard is back on the match replayed"
    key(app, pygame.K_TAB)
    key(app, pygame.K_RETURN, frames=2)
    assert scene.session.current_index == 0 and not isinstance(app.scenes.current,
                                                                PreMatchScene)


def test_f1_opens_at_the_keys_of_the_screen_under_it(held_app: App) -> None:
    app = held_app
    background = HeldScheduler.made[0]
    background.end(background.indices[0])
    app.step(DT)
    key(app, pygame.K_F1)
    overlay = app.overlay
    assert isinstance(overlay, HelpOverlay)
    assert overlay.html.startswith("<b>On this screen:</b> " + TABLE_KEYS.help_html())
    assert "Down or Up on the buttons first reaches the table" in overlay.html
    assert overlay.scroll == 0.0
