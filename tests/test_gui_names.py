"""The window names AI players as the player chose them: 'Easy', 'Medium', 'Hard'
(not their classes' names) in the panels, the log, the title, the who-plays-first
screen and a tournament's tables; and an AI playing a human keeps its thoughts
out of the window's log."""

from __future__ import annotations

import io
from pathlib import Path

import pygame
import pytest

from csl_game.engine.runners.thread import ThreadRunner
from csl_game.gui.app import App
from csl_game.gui.names import shown_names
from csl_game.gui.scenes.home import HomeScene
from csl_game.gui.scenes.info import PreMatchScene
from csl_game.gui.scenes.match import MatchScene
from csl_game.model.board import PColor
from csl_game.services.presets import level
from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype
from gui_events import DT, Apps, key, run_until

FAKES = str(Path(__file__).parent / "fakes" / "fake_thinkers.py")
SMALL = MatchConfig(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4,
                    time_limit_ms=2000, min_move_time_ms=0)


def _level(name: str) -> AIEntry:
    lv = level(name)
    return AIEntry(lv.thinker, lv.params)


def _play_a_move_and_its_answer(app: App) -> None:
    """Start the set-up match, drop a piece in column 0 and wait for the AI's reply."""
    key(app, pygame.K_RETURN, frames=2)
    run_until(app, lambda: isinstance(app.scenes.current, MatchScene), seconds=20)
    scene = app.scenes.current
    assert isinstance(scene, MatchScene) and scene.match is not None
    run_until(app, lambda: scene.input_enabled, seconds=20)
    key(app, pygame.K_1)
    key(app, pygame.K_RETURN)
    run_until(app, lambda: scene.match.board.move_count >= 2  # type: ignore[union-attr]
              and scene.input_enabled, seconds=20)


def test_levels_are_named_as_chosen_others_keep_their_names() -> None:
    easy, hard = (ThinkerPrototype(level(n).thinker, level(n).params) for n in ("easy", "hard"))
    deeper = ThinkerPrototype("negamax", "depth=5")
    assert shown_names([easy, hard, deeper], ["MinimaxD1", "Negamax", "NegamaxD5"]) == (
        "Easy", "Hard", "NegamaxD5")
    assert shown_names([easy, easy], ["MinimaxD1 #1", "MinimaxD1 #2"]) == ("Easy #1", "Easy #2")


def test_home_1_1_enter_plays_easy_named_easy(apps: Apps) -> None:
    out = io.StringIO()
    app = apps.open(PlayOptions(show_home=True, window_size=(1024, 700), in_process=True,
                                last_move_animation_s=0.0), runner_factory=ThreadRunner,
                    out=out)
    assert isinstance(app.scenes.current, HomeScene)
    key(app, pygame.K_1)
    key(app, pygame.K_1)
    key(app, pygame.K_RETURN, frames=2)
    run_until(app, lambda: isinstance(app.scenes.current, MatchScene), seconds=30)
    scene = app.scenes.current
    assert isinstance(scene, MatchScene)
    assert "=> Human (White) vs Easy (Red) <=" in app.log.lines
    assert scene._panel_state(PColor.RED).name == "Easy"
    run_until(app, lambda: scene.input_enabled, seconds=30)
    key(app, pygame.K_3)
    key(app, pygame.K_RETURN)
    run_until(app, lambda: scene.match is not None and scene.match.board.move_count >= 2,
              seconds=30)
    app.step(DT)
    assert any(line.startswith("Red (Easy) placed") for line in app.log.lines), app.log.lines
    assert "MinimaxD1" not in "\n".join(app.log.lines) + app.title
    assert "MinimaxD1" not in out.getvalue()


def test_an_ai_playing_a_human_keeps_its_thoughts_out_of_the_log(apps: Apps) -> None:
    out = io.StringIO()
    app = apps.open(PlayOptions(ais=(AIEntry("chatty"),), match=SMALL, in_process=True,
                                thinker_paths=(FAKES,), window_size=(1024, 700),
                                last_move_animation_s=0.0), runner_factory=ThreadRunner,
                    out=out)
    _play_a_move_and_its_answer(app)
    assert not any(" says: " in line for line in app.log.lines), app.log.lines
    assert " says: " not in out.getvalue(), "nor on standard output"


def test_a_tournament_of_levels_names_them_on_every_screen(apps: Apps) -> None:
    options = PlayOptions(ais=(_level("easy"), _level("medium"), _level("hard")), match=SMALL,
                          in_process=True, window_size=(1280, 800), last_move_animation_s=0.0)
    app = App(options, runner_factory=ThreadRunner, out=io.StringIO())
    try:
        app.step(DT)
        run_until(app, lambda: isinstance(app.scenes.current, PreMatchScene)
                  and not app.scenes.current.session.naming, seconds=30)
        pre = app.scenes.current
        assert isinstance(pre, PreMatchScene)
        app.step(DT)
        texts = [e.text for e in app.ui.get_sprite_group().sprites() if hasattr(e, "text")]
        assert pre.names.all == ("Easy", "Medium", "Hard")
        white, red = pre.names.pair(pre.session.next_pairing)
        assert {white, red} <= {"Easy", "Medium", "Hard"}
        assert white in texts and red in texts, "the who-plays-next cards"
        assert not any(name in str(t) for t in texts
                       for name in ("MinimaxD1", "NegamaxD3", "Negamax"))
        assert f"* Match 1: {white} (White) vs {red} (Red) now playing..." in app.log.lines
    finally:
        app.close()


OVERRIDE = '''
from csl_game import AbstractThinker, FutureMove


class OverrideThinker(AbstractThinker):
    """Plays the first free column; its name holds a right-to-left override."""

    def __str__(self):
        return "Evil\\u202eDrawn"

    def think(self, board, ct):
        col = next(c for c in range(board.cols) if not board.is_column_full(c))
        return FutureMove(col, board.turn.shape)
'''


def test_a_name_with_a_right_to_left_override_turns_nothing_round(
        apps: Apps, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A name holding U+202E (issue 43, item 11): the title bar and standard
    output show the override escaped (a window manager or a terminal would
    turn the rest of the line round after it), and the window draws the log's
    line in order, the override inert."""
    titles: list[str] = []
    set_caption = pygame.display.set_caption
    monkeypatch.setattr(pygame.display, "set_caption",
                        lambda title: (titles.append(title), set_caption(title)))
    path = tmp_path / "override_thinker.py"
    path.write_text(OVERRIDE)
    out = io.StringIO()
    app = apps.open(PlayOptions(ais=(AIEntry("OverrideThinker"),), match=SMALL,
                                in_process=True, thinker_paths=(str(path),),
                                window_size=(1024, 700), last_move_animation_s=0.0),
                    runner_factory=ThreadRunner, out=out)
    _play_a_move_and_its_answer(app)
    assert any("Evil\\u202eDrawn" in t for t in titles), titles
    assert not any("\u202e" in t for t in titles)
    printed = out.getvalue()
    assert "(Evil\\u202eDrawn) placed a square piece" in printed and "\u202e" not in printed
    line = next(m for m in app.log.lines if "placed" in m and "Red" in m)
    assert "\u202e" in line  # the window keeps the name as it is ...
    font = app.ctx.fonts.get(20, False)
    drawn, plain = (font.render(text, True, (255, 255, 255), (0, 0, 0))
                    for text in (line, line.replace("\u202e", "")))
    # ... and draws it in order: as the same line without the override
    assert pygame.image.tobytes(drawn, "RGB") == pygame.image.tobytes(plain, "RGB")
