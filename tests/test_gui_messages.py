"""The log messages' wording (shared by the GUI and the console)."""

from __future__ import annotations

import pytest

from csl_game.engine import ForfeitReason, MatchResult, Standing
from csl_game.model.board import PColor, Pos, PShape, Winner
from csl_game.services import narration as messages

pytestmark = pytest.mark.unit


def test_reference_wording() -> None:
    assert messages.thinking(PColor.RED, "MinimaxD3") == \
        "Red (MinimaxD3) is thinking, please wait..."
    assert messages.placed(PColor.WHITE, "Random", PShape.SQUARE, 4, 0.12341) == \
        "White (Random) placed a square piece at column 4 after thinking for 0.1234s"
    won = MatchResult(Winner.WHITE, "MinimaxD3", "Random",
                      solution=(Pos(0, 0), Pos(0, 1), Pos(0, 2), Pos(0, 3)))
    assert messages.game_over(won) == "Game Over, White (MinimaxD3) won"
    red = MatchResult(Winner.RED, "A", "B", forfeit=ForfeitReason.TIMEOUT)
    assert messages.game_over(red) == "Game Over, Red (B) won"
    assert messages.game_over(MatchResult(Winner.DRAW, "A", "B")) == \
        "Game Over, it's a draw"


def test_forfeits_say_why_on_one_line() -> None:
    text = messages.forfeit(PColor.RED, "Sleeper", ForfeitReason.TIMEOUT, "time limit 500 ms")
    assert text == "Red (Sleeper) exceeded the time limit: time limit 500 ms"
    trace = "RuntimeError: boom\nTraceback (most recent call last):\n  ..."
    text = messages.forfeit(PColor.WHITE, "Raiser", ForfeitReason.EXCEPTION, trace)
    assert text == "White (Raiser) raised an exception: RuntimeError: boom"
    assert messages.forfeit(PColor.WHITE, "X", ForfeitReason.NO_MOVE) == \
        "White (X) returned no move"


def test_session_lines() -> None:
    assert messages.match_started("A", "B") == "=> A (White) vs B (Red) <="
    assert messages.pre_match(1, "A", "B") == "* Match 2: A (White) vs B (Red) now playing..."
    table = [Standing(1, 0, "A", 6, 2, 0, 0), Standing(2, 1, "B", 0, 0, 0, 2)]
    assert messages.session_over(table) == [
        "Final standings:", "1. A: 6 pts (2 W, 0 D, 0 L)", "2. B: 0 pts (0 W, 0 D, 2 L)"]
    assert messages.thinking_info(PColor.RED, "B", "depth 2") == "Red (B) says: depth 2"
