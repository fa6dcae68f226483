"""--adjudicate: a game ends once the analysis proves its result (a forced win,
the loser resigning, or a draw), and its results line says so."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from csl_game.cli import main
from csl_game.model.board import Winner
from csl_game.model.notation import play_moves
from csl_game.services.analysis import adjudicate
from csl_game.thinker.api import CancellationToken, MatchConfig
from csl_game.thinkers._analyst import prove

SMALL = ["-r", "4", "-c", "5", "-w", "3", "--in-process", "-t", "2000"]  # depth 3 in time


def test_a_proven_win_or_draw_adjudicates_and_an_open_game_does_not() -> None:
    config = MatchConfig()
    # White's open three on the bottom row, Red to move: Red cannot stop both ends
    verdict = adjudicate(play_moves(config.new_board(), "1r 1s 2r 2s 3r"))
    assert verdict is not None and verdict[0] is Winner.WHITE and "proven" in verdict[1]
    assert adjudicate(config.new_board()) is None  # nothing is proven at the start
    board = play_moves(config.new_board(), "1r 1s 2r 2s 3r")
    assert prove(board, CancellationToken(1.0, time.thread_time)) == ("loss", 2)


def test_the_provers_draw_and_the_movers_loss_are_said_as_results(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import csl_game.thinkers._analyst as analyst

    board = play_moves(MatchConfig().new_board(), "3r")  # Red to move
    monkeypatch.setattr(analyst, "prove", lambda *_: ("draw", 39))
    assert adjudicate(board) == (Winner.DRAW, "adjudicated: a proven draw")
    monkeypatch.setattr(analyst, "prove", lambda *_: ("loss", 4))
    assert adjudicate(board) == (Winner.WHITE, "adjudicated: White wins by force within 4 "
                                               "plies (proven)")
    monkeypatch.setattr(analyst, "prove", lambda *_: ("win", 3))
    verdict = adjudicate(board)
    assert verdict is not None and verdict[0] is Winner.RED


def test_an_adjudicated_game_ends_early_and_says_so(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "r.jsonl"
    argv = ["match", "-W", "negamax", "--white-params", "depth=3", "-R", "sequential",
            "--json", *SMALL]
    assert main(argv) == 0
    played = json.loads(capsys.readouterr().out)
    assert main([*argv, "--adjudicate", "--results", str(results)]) == 0
    judged = json.loads(capsys.readouterr().out)
    assert "adjudicated" not in played and judged["adjudicated"].startswith("adjudicated: ")
    assert len(judged["moves"]) < len(played["moves"])
    assert judged["winner"] == played["winner"] == "white"  # the same game, cut short
    line = json.loads(results.read_text().splitlines()[0])
    assert line["adjudicated"] == judged["adjudicated"] and line["forfeit"] is None
    assert main(["report", str(results), "--format", "pgn"]) == 0
    assert '[Termination "adjudication"]' in capsys.readouterr().out
