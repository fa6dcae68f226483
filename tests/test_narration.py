"""Why a match ended, in plain words, from its result and its final board."""

from __future__ import annotations

from pathlib import Path

import pytest

from csl_game import MatchConfig, PColor, PShape
from csl_game.engine import ForfeitReason, Human, Match, MatchResult
from csl_game.model.board import Winner
from csl_game.services.narration import explain_result, how_it_ended, result_title

pytestmark = pytest.mark.unit

O, S = PShape.ROUND, PShape.SQUARE
# RULES.md's reference games, White then Red alternating
SHAPE_BEATS_COLOUR = [(3, O), (3, S), (3, O), (3, S), (1, O), (2, S), (2, O), (2, S), (0, O),
                      (2, S), (2, O), (3, S), (3, O), (1, S), (1, O), (1, S), (4, O), (6, S),
                      (1, S), (4, S), (1, S), (5, O), (0, O), (4, S), (0, S), (2, O), (0, S)]


def play(moves: list[tuple[int, PShape]], **board: int) -> Match:
    match = Match(MatchConfig(**board), Human("Ann"), Human("Bob"))
    match.update()
    for col, shape in moves:
        match.submit_move(col, shape)
    assert match.is_over
    return match


def test_losing_on_your_own_move_is_explained() -> None:
    match = play(SHAPE_BEATS_COLOUR)
    assert match.result is not None and match.result.winner is Winner.RED
    assert explain_result(match.result, match.board, you=PColor.WHITE) == \
        "Your square completed Red's line of squares \u2014 shape beats colour"
    assert explain_result(match.result, match.board) == \
        "White (Ann)'s square completed Red's line of squares \u2014 shape beats colour"
    assert result_title(match.result, PColor.WHITE) == "You lose"
    assert how_it_ended(match.result, match.board.rows * match.board.cols) == "4 in a row"


def test_a_line_of_your_own_shape() -> None:
    match = play([(0, O), (1, S), (0, O), (1, S), (0, O)], rows=4, cols=4, win_sequence=3,
                 round_pieces=4, square_pieces=4)
    assert match.result is not None
    assert explain_result(match.result, match.board, you=PColor.WHITE) == \
        "You made 3 round pieces in a row"
    assert result_title(match.result, PColor.WHITE) == "You win!"
    assert result_title(match.result) == "White (Ann) wins"


@pytest.mark.parametrize("moves, board, text, short", [
    ([(0, O), (1, S), (2, O), (1, O), (2, S), (0, S)], dict(rows=2, cols=3, win_sequence=3),
     "The board is full and nobody made a line", "board full"),
    ([(0, O), (0, O)], dict(rows=4, cols=4, win_sequence=4, round_pieces=1, square_pieces=0),
     "Both players ran out of pieces before anyone made a line", "out of pieces"),
])
def test_two_kinds_of_draw(moves: list[tuple[int, PShape]], board: dict[str, int], text: str,
                           short: str) -> None:
    match = play(moves, **board)
    assert match.result is not None and match.result.winner is Winner.DRAW
    assert explain_result(match.result, match.board) == text
    assert how_it_ended(match.result, match.board.rows * match.board.cols) == short
    assert result_title(match.result) == "It's a draw"


@pytest.mark.parametrize("reason, text, short", [
    (ForfeitReason.TIMEOUT, "Red (Bot) took longer than the time limit, and so lost",
     "timeout"),
    (ForfeitReason.WORKER_DIED, "Red (Bot) crashed (its process died), and so lost", "crash"),
    (ForfeitReason.FULL_COLUMN, "Red (Bot) tried to play in a full column, and so lost",
     "invalid move"),
])
def test_forfeits_in_plain_words(reason: ForfeitReason, text: str, short: str) -> None:
    result = MatchResult(Winner.WHITE, "You", "Bot", forfeit=reason, detail="x")
    board = MatchConfig().new_board()
    assert explain_result(result, board) == text
    assert how_it_ended(result) == short
    assert explain_result(result, board, you=PColor.RED).startswith("You ")


def test_resigning() -> None:
    result = MatchResult(Winner.RED, "You", "Bot", resigned=True)
    assert explain_result(result, MatchConfig().new_board(), you=PColor.WHITE) == "You resigned"
    assert how_it_ended(result) == "resigned"


def test_counts_are_plural_where_they_need_to_be(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """'2 match lines', not '2 match line(s)'."""
    from csl_game.cli import main
    from csl_game.services.narration import counted

    assert [counted(n, noun) for n, noun in ((1, "match line"), (2, "match line"),
                                             (2, "match"), (0, "thinker"), (3, "box"))] == \
        ["1 match line", "2 match lines", "2 matches", "0 thinkers", "3 boxes"]
    used = tmp_path / "r.jsonl"
    used.write_text("{}\n{}\n", encoding="utf-8")
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    one.write_text("random\n", encoding="utf-8")
    two.write_text("random\nsequential\n", encoding="utf-8")
    for argv, said in ((["-g", str(one), "--results", str(tmp_path / "new.jsonl")],
                        "lists 1 thinker;"),
                       (["-g", str(two), "--results", str(used)],
                        "already holds 2 match lines of an earlier run")):
        assert main(["session", *argv, "--in-process"]) == 2
        assert said in capsys.readouterr().err
