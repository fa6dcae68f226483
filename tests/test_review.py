"""The game review: grades, expected scores, accuracy, the job and `replay --review`.

The blunder game's proven values are checked against tests/solvers.solve (a
plain memoized minimax, independent of the analyst)."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest

from csl_game import MatchConfig
from csl_game.cli import main
from csl_game.engine import ThreadRunner
from csl_game.errors import InvalidMoveError
from csl_game.model.notation import parse_moves, play_moves
from csl_game.services import review as rv
from csl_game.services.analysis import Analysis, MoveValue
from csl_game.services.review import Review, ReviewJob, expected_score, grade, move_accuracy
from solvers import solve

SMALL = MatchConfig(rows=4, cols=5, win_sequence=3, round_pieces=5, square_pieces=5)
BLUNDER_GAME = "3r 1r 0r 2s 0s 0r 0s 4s 3r 1r"
"""White, with a forced win in 3 after the first eight moves, plays 3r, and
Red's 1r ends the game at once."""


def _review(moves: str, time_ms: int = 300) -> Review:
    job = ReviewJob(SMALL, parse_moves(moves), ThreadRunner, time_ms)
    try:
        deadline = time.monotonic() + 60
        while not job.done and time.monotonic() < deadline:
            job.poll()
            time.sleep(0.01)
        assert job.done and job.progress == (len(moves.split()),) * 2
        found = job.poll()
    finally:
        job.close()
    assert found is not None
    return found


def test_a_blunder_is_graded_and_the_winning_move_is_best() -> None:
    review = _review(BLUNDER_GAME)
    assert len(review.moves) == 10
    blunder, reply = review.moves[8], review.moves[9]
    assert (blunder.color, blunder.played.move, blunder.grade) == ("white", "3r", "blunder")
    assert blunder.played.result == "red" and blunder.played.plies == 2
    assert blunder.best.result == "white" and blunder.before == 1.0 and blunder.after == 0.0
    assert blunder.line[0] == blunder.best.move and blunder.accuracy == 0.0
    board = play_moves(SMALL.new_board(), " ".join(BLUNDER_GAME.split()[:8]))
    assert solve(board) == (1, blunder.best.plies)  # White wins, that quickly
    board.do_move(*reversed(parse_moves(blunder.best.move)[0]))
    assert solve(board) == (-1, blunder.best.plies - 1)
    assert (reply.grade, reply.played.result, reply.played.plies) == ("best", "red", 1)
    assert review.graph()[-1] == 0.0 and len(review.graph()) == 11
    assert review.graph()[-2] == 0.0 and review.graph()[-3] == 1.0


@pytest.mark.unit
def test_the_job_reports_as_it_goes_and_stops_at_once() -> None:
    job = ReviewJob(MatchConfig(), parse_moves("3r 3s 2r 4s"), ThreadRunner, 60_000)
    try:
        assert job.poll() is None and job.progress == (0, 4) and not job.done
        started = time.perf_counter()
    finally:
        job.close()
    assert time.perf_counter() - started < 1.5


@pytest.mark.unit
def test_bad_moves_are_refused_by_name() -> None:
    with pytest.raises(InvalidMoveError, match="move 5 '0r'"):
        ReviewJob(SMALL, parse_moves("0r 0s 0r 0s 0r"), ThreadRunner)
    with pytest.raises(InvalidMoveError, match="after the end of the game"):
        ReviewJob(SMALL, parse_moves("0r 1s 0r 1s 0r 1s"), ThreadRunner)


# --------------------------------------------------------------- values and grades
def _value(score: float | None = None, result: str | None = None, move: str = "0r",
           plies: int | None = None) -> MoveValue:
    return MoveValue(move, result, plies if result else None, None if result else score)


@pytest.mark.unit
@pytest.mark.parametrize("score", [-900.0, -120.0, 0.0, 35.0, 400.0])
def test_expected_score_is_the_logistic_of_the_score(score: float) -> None:
    assert expected_score(_value(score)) == pytest.approx(1 / (1 + math.exp(-score / rv.SCALE)))
    assert expected_score(_value(score)) + expected_score(_value(-score)) == pytest.approx(1)


@pytest.mark.unit
def test_expected_score_of_proven_results_and_won_scores() -> None:
    assert [expected_score(_value(result=r, plies=3)) for r in ("white", "red", "draw")] == \
        [1.0, 0.0, 0.5]
    assert expected_score(_value(-999_990.0)) == 0.0
    assert expected_score(_value(999_990.0)) == 1.0


@pytest.mark.unit
def test_proven_grades_are_exact() -> None:
    win, draw = _value(result="white", plies=3, move="1r"), _value(result="draw", plies=9)
    loss = _value(result="red", plies=4)
    assert grade(win, _value(result="white", plies=7), "white") == "best"
    assert grade(win, draw, "white") == "mistake"
    assert grade(win, loss, "white") == "blunder"
    assert grade(_value(result="draw", plies=9, move="1r"), loss, "white") == "blunder"
    assert grade(_value(result="red", plies=3, move="1s"), _value(result="white", plies=4),
                 "red") == "blunder"
    assert grade(win, win, "white") == "best"


def _score_for(white_expected: float) -> float:
    return rv.SCALE * math.log(white_expected / (1 - white_expected))


@pytest.mark.unit
@pytest.mark.parametrize("loss, expected", [
    (0.0, "best"), (0.01, "good"), (0.0499, "good"), (0.0501, "inaccuracy"),
    (0.0999, "inaccuracy"), (0.1001, "mistake"), (0.1499, "mistake"), (0.1501, "blunder"),
    (0.6, "blunder")])
def test_grade_thresholds_at_their_boundaries(loss: float, expected: str) -> None:
    best = _value(_score_for(0.7), move="1r")
    assert grade(best, _value(_score_for(0.7 - loss)), "white") == expected
    # the same seen from Red's side: Red's expected score is 1 - White's
    red_best = _value(_score_for(0.3), move="1s")
    assert grade(red_best, _value(_score_for(0.3 + loss), move="2s"), "red") == expected
    assert [t for t, _ in rv.THRESHOLDS] == [0.15, 0.10, 0.05]


@pytest.mark.unit
def test_move_accuracy_is_lichess_formula() -> None:
    assert move_accuracy(0.6, 0.6) == 100.0 and move_accuracy(0.6, 0.7) == 100.0
    assert move_accuracy(0.6, 0.5) == pytest.approx(
        103.1668100711649 * math.exp(-0.04354415386753951 * 10) - 3.166924740191411 + 1)
    assert move_accuracy(1.0, 0.0) == 0.0


def _analysis(to_move: str, *values: MoveValue) -> Analysis:
    return Analysis(to_move, 4, values, (values[0].move,))


@pytest.mark.unit
def test_a_player_of_best_moves_only_is_100_accurate() -> None:
    white_best = _analysis("white", _value(60.0, move="3r"), _value(-200.0, move="0r"))
    red_best = _analysis("red", _value(20.0, move="3s"), _value(3000.0, move="6s"))
    moves = (rv.reviewed(0, white_best, "3r"), rv.reviewed(1, red_best, "6s"),
             rv.reviewed(2, white_best, "3r"), rv.reviewed(3, red_best, "3s"))
    review = Review(moves)
    assert review.accuracy("white") == 100.0
    assert [m.grade for m in moves] == ["best", "blunder", "best", "best"]
    assert review.accuracy("red") is not None and review.accuracy("red") < 100  # type: ignore[operator]
    assert review.graph() == [moves[0].before, *(m.after for m in moves)]
    assert Review(()).accuracy("white") is None and Review(()).graph() == []


# --------------------------------------------------------------- the command line
@pytest.fixture()
def match_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["match", "--json", "--in-process", "-W", "sequential", "-R", "sequential",
                 "-r", "4", "-c", "5", "-w", "3"]) == 0
    path = tmp_path / "match.json"
    path.write_text(capsys.readouterr().out, encoding="utf-8")
    return path


def test_replay_review_prints_a_table_and_json(match_file: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(match_file.read_text(encoding="utf-8").splitlines()[-1])
    plies = len(doc["moves"])
    assert main(["replay", str(match_file), "--review", "--review-time", "150"]) == 0
    out = capsys.readouterr().out
    assert "grade" in out and "White: accuracy" in out and "Red: accuracy" in out
    assert main(["replay", str(match_file), "--review", "--review-time", "150", "--json"]) == 0
    found = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert len(found["moves"]) == plies and len(found["graph"]) == plies + 1
    assert set(found["accuracy"]) == {"white", "red"}
    winner = doc["winner"]
    assert found["graph"][-1] == {"white": 1.0, "red": 0.0, "draw": 0.5}[winner]
    assert {m["grade"] for m in found["moves"]} <= set(rv.GRADES)
