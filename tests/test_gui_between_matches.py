"""The screen between a tournament's matches, as a player meets it: it
follows the matches played off screen without any input, and its results
table is reached and worked by the keys its hint names."""

from __future__ import annotations

import io
from pathlib import Path

import pygame
from pygame_gui.elements import UILabel

from csl_game.gui.app import App
from csl_game.gui.scenes.info import PreMatchScene
from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.thinker.api import MatchConfig
from gui_events import DT, run_until

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

        run_until(app, frame, seconds=120)
        # results that end in the same frame are drawn together
        assert drawn_counts == sorted(set(drawn_counts))
        assert drawn_counts[-1] == session.total_matches - 1 and len(drawn_counts) > 2
    finally:
        app.close()
