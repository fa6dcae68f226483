"""The command line: verbs, output, JSON, results file and every exit-2 path."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from csl_game.cli import main

FAKES = str(Path(__file__).parent / "fakes")


@pytest.mark.unit
def test_info_lists_builtin_and_path_thinkers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", "--thinkers", FAKES]) == 0
    out = capsys.readouterr().out
    for name in ("random", "sequential", "minimax", "csl_game.thinkers.minimax.MinimaxAIThinker",
                 "fake_thinkers.RaiserThinker"):
        assert name in out


@pytest.mark.unit
def test_match_json_between_thinkers(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["match", "-W", "minimax", "--white-params", "2", "-R", "random",
                 "--red-params", "7", "--in-process", "-r", "5", "-c", "5", "-w", "4",
                 "--json"])
    assert code == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["white"] == "MinimaxD2" and doc["red"] == "Random"
    assert doc["winner"] in ("white", "red", "draw")
    assert doc["settings"]["rows"] == 5 and doc["settings"]["time_limit_ms"] == 200  # the default
    assert "MinimaxD2" in captured.err and "placed a" in captured.err
    assert (doc["settings"]["clock"], doc["settings"]["time_margin_ms"]) == ("cpu", 0)


@pytest.mark.unit
def test_match_records_the_clock_it_was_timed_on(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "r.jsonl"
    assert main(["match", "-W", "sequential", "-R", "random", "--in-process", "-r", "4",
                 "-c", "4", "-w", "3", "--clock", "wall", "--time-margin", "15", "--json",
                 "--results", str(results)]) == 0
    doc = json.loads(capsys.readouterr().out)
    line = json.loads(results.read_text())
    for settings in (doc["settings"], line["settings"]):
        assert (settings["clock"], settings["time_margin_ms"]) == ("wall", 15)


@pytest.mark.unit
def test_match_text_shows_board_moves_and_winner(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "-W", "sequential", "-R", "nomove", "--thinkers", FAKES,
                 "--in-process"]) == 0
    out = capsys.readouterr().out
    assert "=> Sequential (White) vs NoMove (Red) <=" in out
    assert "Red (Sequential)" not in out and "Game Over, White (Sequential) won" in out
    assert "White (Sequential) placed a round piece at column 0 after thinking for" in out
    assert "Red (NoMove) returned no move" in out
    assert "w - White Round" in out


@pytest.mark.unit
def test_human_match_reads_moves_and_reasks(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    moves = "0\n9\nzz\n0 s\n1 r\n1 s\n2 round\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(moves))
    assert main(["match", "-r", "4", "-c", "4", "-w", "3", "--json"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["winner"] == "white" and doc["solution"] == [[0, 0], [0, 1], [0, 2]]
    assert captured.err.count("Invalid move") == 2


@pytest.mark.unit
def test_session_prints_standings_and_writes_results(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "game.txt"
    game.write_text("# a small league\nrandom 1\n\nsequential   # simple\nminimax 1\n")
    results = tmp_path / "results.jsonl"
    assert main(["session", "-g", str(game), "--in-process", "--results", str(results),
                 "--points-per-win", "2"]) == 0
    out = capsys.readouterr().out
    assert "Session: 6 matches" in out and "Final standings:" in out
    assert out.count("(White) vs") == 6
    lines = [json.loads(x) for x in results.read_text().splitlines()]
    assert sorted(x["match"] for x in lines) == list(range(6))
    total = sum(2 for _ in lines)  # a win gives 2 here, and so does a draw (1 + 1)
    table = out.split("Final standings:")[1]
    points = [int(line.split()[2]) for line in table.splitlines()[2:] if line.strip()]
    assert sum(points) == total


@pytest.mark.parametrize("argv, message", [
    (["match", "-r", "x"], "invalid int value"),
    (["match", "-r", "2", "-c", "2", "-w", "3"], "no win is possible"),
    (["match", "-r", "0"], "rows must be at least 1"),
    (["match", "-o", "0", "-s", "0"], "at least one piece"),
    (["match", "-t", "0"], "time_limit_ms"),
    (["match", "-m", "-5"], "min_move_time_ms"),
    (["match", "-W", "nosuch"], "unknown thinker 'nosuch'"),
    # refusing its parameters is bad input on every verb, as `play --ai` has it
    (["match", "-W", "badsetup", "--thinkers", FAKES, "--in-process"],
     "-W/--white: badsetup does not accept '': cannot parse"),
    (["match", "-W", "badsetup", "--thinkers", FAKES], "badsetup does not accept ''"),
    (["match", "--thinkers", "/no/such/path.py"], "does not exist"),
    (["session"], "required"),
    (["session", "-g", "/no/such/file"], "cannot read session file"),
    (["session", "-g", "EMPTY"], "needs at least 2"),
    (["session", "-g", "ONE", "--results", "/no/such/dir/r.jsonl"], "cannot write results"),
    (["info", "--thinkers", "BROKEN"], "failed to load"),
    (["frobnicate"], "unknown command"),
    (["play", "--ai", "nosuch"], "unknown thinker"),
    (["play", "--ai", " "], "thinker name"),
])
def test_bad_input_exits_2_with_one_line(argv: list[str], message: str, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty.txt").write_text("# nothing\n")
    (tmp_path / "one.txt").write_text("random\nrandom\n")
    (tmp_path / "broken.py").write_text("def oops(:\n")
    subst = {"EMPTY": str(tmp_path / "empty.txt"), "ONE": str(tmp_path / "one.txt"),
             "BROKEN": str(tmp_path / "broken.py")}
    argv = [subst.get(a, a) for a in argv]
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("csl-game: error: ")
    assert message in err
    assert "Traceback" not in err


@pytest.mark.unit
def test_human_input_ending_early_is_exit_2(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("0\n"))
    assert main(["match"]) == 2
    assert "input ended" in capsys.readouterr().err


@pytest.mark.unit
def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "match" in capsys.readouterr().out


def test_python_dash_m_runs() -> None:
    info, bad = (subprocess.Popen([sys.executable, "-m", "csl_game", *argv], text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for argv in (["info"], ["match", "-r", "1", "-c", "1"]))  # both at once
    with info, bad:
        out, _ = info.communicate(timeout=60)
        _, err = bad.communicate(timeout=60)
    assert info.returncode == 0 and "minimax" in out
    assert bad.returncode == 2 and err.count("\n") == 1


@pytest.mark.unit
def test_verbose_session_prints_moves(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "g.txt"
    game.write_text("sequential\nminimax 1\n")
    assert main(["session", "-g", str(game), "--in-process", "--verbose"]) == 0
    out = capsys.readouterr().out
    assert out.count("=> ") == 2 and "placed a" in out and "Final standings:" in out


@pytest.mark.unit
def test_bad_workers_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "g.txt"
    game.write_text("sequential\nminimax 1\n")
    assert main(["session", "-g", str(game), "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err


@pytest.mark.unit
def test_league_verb(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["league", "--thinker", "random 1", "--thinker", "sequential", "--games", "1",
                 "-t", "100", "--in-process", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "Sequential" in out and "Random" in out
    assert main(["league", "--thinker", "nosuch", "--in-process"]) == 2
