"""A game against an AI that could not even be set up: the window says the AI
failed (never "You win!"), the player's scores are left as they were, and a
tournament of AIs still counts the forfeit as the competition rules do."""

from __future__ import annotations

from pathlib import Path

import pygame
import pytest

from csl_game.engine import ForfeitReason
from csl_game.model.board import PColor
from csl_game.services import narration
from csl_game.services.settings import AIEntry, PlayOptions
from csl_game.services.userdata import UserData
from csl_game.thinker.api import MatchConfig
from gui_events import Apps, board_scene, drop, key, result_overlay, run_until

# Imports in the main process (where csl-game finds its thinkers) but not in a
# worker process: the failure a user met when workers imported another copy
# of the package than the one the program ran.
BROKEN_IN_WORKERS = '''\
import multiprocessing

from csl_game import AbstractThinker, Board, CancellationToken, FutureMove

if multiprocessing.parent_process() is not None:
    raise ModuleNotFoundError("No module named 'csl_game.thinkers'")


class BrokenInWorkersThinker(AbstractThinker):
    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        return FutureMove(0, board.turn.shape)
'''
SMALL = MatchConfig(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4,
                    time_limit_ms=2000, min_move_time_ms=0)


def test_an_ai_that_cannot_be_set_up_is_no_win_and_no_score(
        apps: Apps, tmp_path: Path, user_home: Path) -> None:
    thinker = tmp_path / "broken_in_workers.py"
    thinker.write_text(BROKEN_IN_WORKERS, encoding="utf-8")
    user = UserData(user_home)
    user.record("brokeninworkers", True)  # the name the window keeps scores by
    before = (user_home / "scores.json").read_bytes()
    app = apps.open(PlayOptions(ais=(AIEntry("brokeninworkers"),), match=SMALL,
                                window_size=(1024, 700), thinker_paths=(str(thinker),),
                                last_move_animation_s=0.0))
    key(app, pygame.K_RETURN, frames=2)  # Start: the human plays White
    scene = board_scene(app)
    drop(app, 0)
    run_until(app, lambda: result_overlay(app) is not None, seconds=30)
    assert scene.match is not None and scene.match.result is not None
    assert scene.match.result.forfeit is ForfeitReason.SETUP
    title, why = scene._banner
    assert title == "The AI failed to start" and "You win" not in title
    assert why.startswith("Red (BrokenInWorkers) could not be set up: "), why
    assert "ModuleNotFoundError: No module named 'csl_game.thinkers'" in why
    assert "won" not in why and "lost" not in why
    assert pygame.display.get_caption()[0].endswith("The AI failed to start")
    white, red = (scene._panel_state(c) for c in (PColor.WHITE, PColor.RED))
    assert (white.status, red.status) == ("", "Failed to start")  # no "Winner!" either
    assert (user_home / "scores.json").read_bytes() == before
    assert user.score("brokeninworkers").wins == 1
    assert scene.score_note == "Not counted in your record against brokeninworkers"


@pytest.mark.unit
def test_the_log_names_the_cause_once() -> None:
    detail = ("thinker misbehaving_thinkers.SetupExitThinker could not be set up: "
              "SystemExit: 9\nTraceback ...")
    assert narration.forfeit(PColor.RED, "SetupExit", ForfeitReason.SETUP, detail) == \
        "Red (SetupExit) could not be set up: SystemExit: 9"
    assert narration.forfeit(PColor.RED, "Slow", ForfeitReason.SETUP,
                             "setting up the thinker took more than 4 s") == \
        "Red (Slow) could not be set up: setting up the thinker took more than 4 s"


@pytest.mark.unit
def test_game_over_says_the_loser_never_played() -> None:
    from csl_game.engine import MatchResult
    from csl_game.model.board import Winner

    result = MatchResult(winner=Winner.WHITE, white="Human", red="Broken",
                         forfeit=ForfeitReason.SETUP, detail="SystemExit: 9")
    assert narration.game_over(result) == \
        "Game Over, White (Human) won: Red (Broken) could not be set up"
