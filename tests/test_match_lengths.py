"""The scheduler's choice of the next match (csl_game.engine.background.MatchLengths):
the longest expected first, players not seen yet before all, ties in fixture order."""

from __future__ import annotations

import pytest

from csl_game.engine import MatchResult
from csl_game.engine.background import MatchLengths
from csl_game.engine.match import PlayedMove
from csl_game.model.board import Move, PColor, Piece, PShape, Winner

pytestmark = pytest.mark.unit


def _result(white_s: float, red_s: float, moves: int = 6) -> MatchResult:
    """A match whose White thought `white_s` and Red `red_s` seconds in all."""
    times = [white_s / (moves // 2), red_s / (moves // 2)] * (moves // 2)
    played = tuple(PlayedMove(Move(0, i % 7, Piece(PColor(i % 2), PShape.ROUND)), t)
                   for i, t in enumerate(times))
    return MatchResult(Winner.DRAW, "W", "R", moves=played)


PAIRS = {0: (0, 1), 1: (2, 3), 2: (1, 2), 3: (0, 3), 4: (0, 2)}


def test_unknown_players_come_first_then_the_longest_expected() -> None:
    lengths = MatchLengths()
    assert lengths.longest(iter([0, 1, 2]), PAIRS.__getitem__) == 0  # all unknown: in order
    lengths.learn(0, 1, _result(0.1, 0.9))
    assert lengths.expected(0) == pytest.approx(0.1) and lengths.expected(1) == pytest.approx(0.9)
    assert lengths.longest(iter([2, 1]), PAIRS.__getitem__) == 2  # 1 and 2 unseen: infinite
    lengths.learn(2, 3, _result(0.2, 0.3))
    # expected: match 2 = 0.9 + 0.2, match 3 = 0.1 + 0.3, match 4 = 0.1 + 0.2
    assert lengths.longest(iter([3, 4, 2]), PAIRS.__getitem__) == 2
    assert lengths.longest(iter([]), PAIRS.__getitem__) is None


def test_equal_expectations_keep_the_fixture_order_and_a_window_bounds_the_search() -> None:
    lengths = MatchLengths()
    lengths.learn(0, 1, _result(0.5, 0.5))
    same = dict.fromkeys(range(1000), (0, 1))
    assert lengths.longest(iter(range(5, 1000)), same.__getitem__) == 5
    seen: list[int] = []

    def pairs(i: int) -> tuple[int, int]:
        seen.append(i)
        return 0, 1

    lengths.longest(iter(range(1000)), pairs)
    assert len(seen) == MatchLengths.WINDOW
