"""The analysis service and `csl-game analyse`: every proven result is exact.

What the analyst proves is checked against tests/solvers.solve_fast, a plain
memoized minimax with no evaluation and no pruning but a win in one ending a
position's search (independent of the analyst's alpha-beta and of negamax),
whose answers are checked here against tests/solvers.solve, the same minimax
over the model's own Board."""

from __future__ import annotations

import json
import os
import random
import time

import pytest

from csl_game import Board, CancellationToken, MatchConfig, PShape, ThinkerPrototype, Winner
from csl_game.cli import main
from csl_game.engine.runners.process import ProcessRunner
from csl_game.model.notation import format_history, format_move, play_moves
from csl_game.services.analysis import AnalysisJob, _analyst, _from_report
from solvers import solve, solve_fast

SMALL = [MatchConfig(rows=3, cols=4, win_sequence=3, round_pieces=3, square_pieces=3),
         MatchConfig(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4)]


def _analysed(board: Board, config: MatchConfig) -> dict[str, object]:
    """The analyst's last report, run here until it has proven every move."""
    said: list[str] = []
    thinker = ThinkerPrototype(_analyst(), "", config).create(said.append)
    thinker.think(board.copy(), CancellationToken())
    return json.loads(said[-1].split(" ", 1)[1])  # type: ignore[no-any-return]


_MEMOS: dict[tuple[int, ...], dict[tuple[int, ...], tuple[int, int]]] = {}
"""`solve_fast`'s memo of each setting, for every test of the module: a
position's key holds all its value depends on, given the setting."""


def _solved(board: Board) -> tuple[int, int]:
    """The exact (value, plies) of `board` for the player to move."""
    pos = board.fast_board()
    g = pos.geometry
    memo = _MEMOS.setdefault((g.rows, g.cols, g.win_sequence, g.round_pieces,
                              g.square_pieces), {})
    return solve_fast(pos, memo)


def _truth(board: Board, col: int, shape: PShape) -> tuple[str, int]:
    """The exact result of playing (col, shape) for the mover, and its plies."""
    mover = (Winner.WHITE, Winner.RED)[int(board.turn)]
    board.do_move(shape, col)
    try:
        winner = board.check_winner()
        if winner is Winner.NONE:
            outcome, plies = _solved(board)
            return {1: "loss", 0: "draw", -1: "win"}[outcome], plies + 1
        return ("draw" if winner is Winner.DRAW else "win" if winner is mover else "loss"), 1
    finally:
        board.undo_move()


def _random_position(config: MatchConfig, rng: random.Random, plies: int) -> Board:
    board = config.new_board()
    for _ in range(plies):
        moves = board.legal_moves()
        col, shape = rng.choice(moves)
        board.do_move(shape, col)
        if board.check_winner() is not Winner.NONE:
            board.undo_move()
            break
    return board


@pytest.mark.parametrize("config", SMALL, ids=["3x4", "4x4"])
def test_every_proven_result_is_exact(config: MatchConfig) -> None:
    rng = random.Random(config.rows * 10 + config.cols)
    proven = 0
    for _ in range(12):
        empty = config.rows * config.cols
        board = _random_position(config, rng, rng.randrange(empty - 10, empty - 5))
        report = _analysed(board, config)
        for entry in report["moves"]:  # type: ignore[attr-defined]
            col, shape = entry["move"] >> 1, PShape(entry["move"] & 1)
            assert entry["result"] is not None, "solved: searched to the end"
            assert (entry["result"], entry["plies"]) == _truth(board, col, shape), \
                (" ".join(format_move(m.col, m.piece.shape) for m in board.history), entry)
            proven += 1
    assert proven > 50


KNOWN = MatchConfig(rows=4, cols=5, win_sequence=3, round_pieces=5, square_pieces=5)
_DEEP = pytest.mark.long  # 15-16 plies left: the exact solver takes tens of seconds


@pytest.mark.parametrize("moves, expected", [
    pytest.param("2r 2s 1r 3s", ("white", 1), marks=_DEEP),  # 0r: three whites in a row
    ("4s 0r 3s 2r 1s 1r 3s 3r", ("white", 3)),
    ("3r 3s 2s 0r 3r 1s 3s 4s", ("white", 5)),  # only 0r wins: the rest lose
    # The shape trap: two white squares in column 0. A third white piece
    # there wins if round (three whites) and loses if square (three
    # squares: shape beats colour); anything else lets Red's square in.
    ("0s 3s 2r 1r 0s 4r", ("white", 1)),
    pytest.param("3r 3s 1r 1s 0s", None, marks=_DEEP),  # Red to move: the solver says
])
def test_known_positions(moves: str, expected: tuple[str, int] | None,
                         capsys: pytest.CaptureFixture[str]) -> None:
    """A win in one, a shape trap (every move but the round ones loses at
    once: a square completes Red's squares), wins in 3 and 5, a position
    many plies from its end; every move's proven result is the exact one."""
    assert main(["analyse", *moves.split(), "-r", "4", "-c", "5", "-w", "3",
                 "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    board = play_moves(KNOWN.new_board(), moves)
    if expected is not None:
        assert (found["result"], found["plies"]) == expected
    if moves in ("0s 3s 2r 1r 0s 4r", "3r 3s 2s 0r 3r 1s 3s 4s"):  # one move holds
        values = {m["move"]: (m["result"], m["plies"]) for m in found["moves"]}
        assert [m for m, v in values.items() if v[0] != "red"] == [found["best"]]
        if moves.startswith("0s"):
            assert values["0s"] == ("red", 1) and found["best"] == "0r"
    for entry in found["moves"]:
        col, shape = int(entry["move"][:-1]), PShape("rs".index(entry["move"][-1]))
        if entry["result"] is None:
            continue
        result, plies = _truth(board, col, shape)
        mover = board.turn.name.lower()
        named = {"win": mover, "loss": board.turn.other.name.lower(), "draw": "draw"}
        assert (entry["result"], entry["plies"]) == (named[result], plies)
    assert {"to_move", "best", "line", "result", "plies", "score", "moves"} <= set(found)


def test_the_two_exact_solvers_agree() -> None:
    """solve_fast (the fast core's bitboards) and solve (the model's Board)
    give the same value and plies, on positions of both small settings with
    up to 10 empty cells."""
    rng = random.Random(11)
    for config in SMALL:
        empty, memo, compared = config.rows * config.cols, {}, 0  # type: ignore[var-annotated]
        while compared < 8:
            board = _random_position(config, rng, rng.randrange(empty - 6, empty - 3))
            if board.check_winner() is Winner.NONE and empty - len(board.history) <= 10:
                assert solve(board, memo) == _solved(board), format_history(board.history)
                compared += 1


def test_a_drawn_end_is_proven_a_draw(capsys: pytest.CaptureFixture[str]) -> None:
    """2x3, three in a row, 10+11 pieces: after 0r 1s 2r 0s 1r White's last
    move 2s fills the board with no run."""
    assert main(["analyse", "0r", "1s", "2r", "0s", "1r", "-r", "2", "-c", "3", "-w", "3",
                 "-o", "3", "-s", "3", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    board = play_moves(MatchConfig(rows=2, cols=3, win_sequence=3, round_pieces=3,
                                   square_pieces=3).new_board(), "0r 1s 2r 0s 1r")
    for entry in found["moves"]:
        col, shape = int(entry["move"][:-1]), PShape("rs".index(entry["move"][-1]))
        result, plies = _truth(board, col, shape)
        assert entry["plies"] == plies
        assert (entry["result"] == "draw") == (result == "draw")


@pytest.mark.unit
@pytest.mark.parametrize("argv, words", [
    (["analyse", "3r", "3x"], "3x"),
    (["analyse", "0r", "0s", "0r", "0s", "0r", "0s", "0r"], "column 0 is full"),
    (["analyse", "0r", "1s", "0r", "1s", "0r", "1s", "0r"], "the game is over: White has won"),
    (["analyse", "--depth", "0"], "--depth must be at least 1"),
])
def test_bad_positions_are_one_line_and_exit_2(argv: list[str], words: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_analyze_is_the_same_verb(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "2r", "2s", "1r", "3s", "-r", "4", "-c", "5", "-w", "3",
                 "--depth", "2"]) == 0
    out = capsys.readouterr().out
    assert "Best: 0r, White wins in 1" in out and "White to move" in out


def test_an_advantage_says_what_it_is_worth(capsys: pytest.CaptureFixture[str]) -> None:
    """'White +45' alone has no unit: the console names the evaluation's points
    and adds the score the side ahead can expect (expected_score)."""
    from csl_game.console.analyse_cmd import VALUES
    from csl_game.services.analysis import MoveValue, expected_score

    ahead = MoveValue("1s", None, None, 45.0)
    assert ahead.text() == "White +45" and ahead.text(expected=True) == \
        f"White +45 ({100 * expected_score(ahead):.0f} % expected)"
    assert MoveValue("1s", None, None, -85.0).text(expected=True) == "Red +85 (65 % expected)"
    assert MoveValue("1s", None, None, 4.0).text(expected=True) == "Even"
    assert main(["analyse", "3r", "3s", "2r", "--depth", "2"]) == 0
    out = capsys.readouterr().out
    assert f"Moves ({VALUES}):" in out and "evaluation points" in VALUES
    values = [line.split(maxsplit=1)[1] for line in out.split("Moves")[1].splitlines()[1:]]
    advantages = [v for v in values if "+" in v]
    assert advantages and all(v.endswith("% expected)") for v in advantages), values
    assert "% expected); searched 2 plies deep" in out.splitlines()[1] or \
        "wins in" in out.splitlines()[1]


@pytest.mark.timing
def test_the_analysis_runs_in_a_worker_and_stops_at_once() -> None:
    """On the empty 6x7 board nothing is solved quickly: the job reports depth
    after depth from its worker, and close() ends the search and the worker."""
    import psutil

    config = MatchConfig()
    job = AnalysisJob(config.new_board(), config, ProcessRunner)
    try:
        deadline = time.monotonic() + 20
        while (job.poll() is None or job.latest is None or job.latest.depth < 3) \
                and time.monotonic() < deadline:
            time.sleep(0.02)
        assert job.latest is not None and job.latest.depth >= 3 and not job.done
        assert len(job.latest.moves) == 14 and job.latest.best.result is None
        pid = job._runner.pid  # type: ignore[union-attr]
        assert pid is not None and pid != os.getpid(), "the analysis runs in a worker"
        started = time.perf_counter()
    finally:
        job.close()
    assert time.perf_counter() - started < 1.5
    deadline = time.monotonic() + 3
    while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


@pytest.mark.unit
def test_reports_read_from_the_movers_side() -> None:
    report = {"depth": 2, "moves": [
        {"move": 0, "result": "win", "plies": 3, "score": 0, "line": [0, 2]},
        {"move": 2, "result": None, "plies": None, "score": 40, "line": [2]},
        {"move": 3, "result": "loss", "plies": 2, "score": 0, "line": [3]}]}
    found = _from_report(report, Board().turn.other)  # Red to move
    assert [m.result for m in found.moves] == ["red", None, "white"]
    assert found.moves[1].score == -40 and found.line == ("0r", "1r")


def _line_ends_as_proven(board: Board, best: dict[str, object]) -> None:
    """The line is legal move after move and every move keeps the proven value:
    the winner hastens the end, the loser delays it; it ends with the result
    after exactly `plies` plies when that is within 8."""
    line, plies = best["line"], best["plies"]
    assert isinstance(line, list) and isinstance(plies, int)
    assert len(line) == min(plies, 8)
    sign = {"win": 1, "loss": -1, "draw": 0}[str(best["result"])]
    mover = board.turn
    for i, code in enumerate(line):
        assert (code >> 1, PShape(code & 1)) in board.legal_moves(), (line, i)
        outcome, left = _solved(board)
        assert (outcome, left) == (sign if i % 2 == 0 else -sign, plies - i), (line, i)
        board.do_move(PShape(code & 1), code >> 1)
    winner = board.check_winner()
    if plies <= 8:
        expected = {1: mover.winner, -1: mover.other.winner, 0: Winner.DRAW}[sign]
        assert winner is expected
    else:
        assert winner is Winner.NONE


@pytest.mark.parametrize("config", SMALL, ids=["3x4", "4x4"])
def test_the_best_line_of_a_proven_result_is_exact(config: MatchConfig) -> None:
    rng = random.Random(7 + config.rows)
    lengths = set()
    for _ in range(10):
        empty = config.rows * config.cols
        board = _random_position(config, rng, rng.randrange(empty - 11, empty - 5))
        best = _analysed(board, config)["moves"][0]  # type: ignore[index]
        _line_ends_as_proven(board.copy(), best)
        lengths.add(len(best["line"]))
    assert max(lengths) > 2


@pytest.mark.unit
def test_an_unproven_best_line_is_eight_legal_plies() -> None:
    config = MatchConfig()
    board = play_moves(config.new_board(), "3r 3s 2r 4s")
    said: list[str] = []
    thinker = ThinkerPrototype(_analyst(), "3", config).create(said.append)
    thinker.think(board.copy(), CancellationToken())
    best = json.loads(said[-1].split(" ", 1)[1])["moves"][0]
    assert best["result"] is None and len(best["line"]) == 8
    for code in best["line"]:
        assert (code >> 1, PShape(code & 1)) in board.legal_moves()
        board.do_move(PShape(code & 1), code >> 1)
        assert board.check_winner() is Winner.NONE
