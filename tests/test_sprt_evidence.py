"""SPRT evidence one can bet on: the test's bounds kept with its results, the
summary on Ctrl+C, an unfinished pair said as such."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from procs import INTERRUPTIBLE

SPRT = [sys.executable, "-m", "csl_game", "sprt", "negamax depth=2", "random 1", "-t", "50",
        "--workers", "1"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The sprt command of SPRT run by the CLI's main() in this process, its
    thinkers on threads (what is checked is the results file and the verdict,
    not the workers): (exit code, stdout, stderr)."""
    from csl_game.cli import main

    code = main([*SPRT[3:], *args, "--in-process"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_each_results_line_keeps_the_tests_bounds_and_a_resume_with_others_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "r.jsonl"
    code, _, err = run(capsys, "--elo0", "0", "--elo1", "20", "--max-games", "4",
                       "--results", str(results))
    assert code == 0, err
    lines = results.read_text().splitlines()
    assert all(json.loads(line)["sprt"] == {"elo0": 0.0, "elo1": 20.0, "alpha": 0.05,
                                            "beta": 0.05, "model": "logistic",
                                            "adjudicate": False, "swap": True,
                                            "draw": None, "resign": None}
               for line in lines)
    code, _, err = run(capsys, "--elo0", "-100", "--elo1", "-60", "--max-games", "8",
                       "--resume", str(results))
    assert code == 2
    message = err.strip().splitlines()
    assert len(message) == 1 and "another test" in message[0] and "elo1 -60" in message[0]
    assert results.read_text().splitlines() == lines  # nothing appended
    code, _, err = run(capsys, "--elo0", "0", "--elo1", "20", "--max-games", "6",
                       "--resume", str(results))
    assert code == 0, err


def test_an_unfinished_pair_is_reported_as_such(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A run stopped between a pair's games (here: a file whose last pair lost
    its second game, resumed by a test that the first pair already decides)."""
    results = tmp_path / "r.jsonl"
    wide = ("--elo0", "-1", "--elo1", "1", "--alpha", "1e-9", "--beta", "1e-9")
    assert run(capsys, *wide, "--max-games", "4", "--results", str(results))[0] == 0
    quick = {"elo0": -400.0, "elo1": -300.0, "alpha": 0.4, "beta": 0.4, "model": "logistic"}
    docs = [{**json.loads(line), "sprt": quick} for line in results.read_text().splitlines()]
    assert [d["winner"] for d in docs[:2]] == ["white", "red"]  # NEW won the first pair
    results.write_text("".join(json.dumps(d) + "\n" for d in docs[:3]))
    code, out, err = run(capsys, "--elo0", "-400", "--elo1", "-300", "--alpha", "0.4",
                         "--beta", "0.4", "--max-games", "4", "--resume", str(results),
                         "--json")
    assert code == 0, err
    doc = json.loads(out.strip().splitlines()[-1])
    assert (doc["result"], doc["games"], doc["pairs"], doc["unpaired"]) == ("H1", 3, 1, 1)
    assert "game of an unfinished pair" in err


@pytest.mark.skipif(os.name != "posix", reason="SIGINT to a child process")
def test_ctrl_c_prints_the_summary_so_far_and_its_json(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    proc = subprocess.Popen([*SPRT, "--max-games", "400", "--results", str(results), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            **INTERRUPTIBLE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (
                not results.exists() or len(results.read_text().splitlines()) < 4):
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130
    doc = json.loads(out.strip().splitlines()[-1])
    # the summary counts the games whose end it heard of: the last line may be newer
    assert doc["result"] == "interrupted" and doc["games"] >= 3
    assert "interrupted: no verdict" in err and "Games " in err


def test_a_league_writes_results_that_report_rates_and_says_its_prior(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from csl_game.cli import main

    results = tmp_path / "league.jsonl"
    assert main(["league", "--thinker", "random 1", "--thinker", "negamax depth=2", "--games",
                 "1", "-t", "50", "--results", str(results), "-q", "--in-process"]) == 0, \
        capsys.readouterr().err
    assert len(results.read_text().splitlines()) == 2
    capsys.readouterr()
    assert main(["report", str(results), "--ratings", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    # negamax won both games: no finite maximum-likelihood rating, so the prior says so
    assert doc["method"] == "prior" and all(row["prior"] for row in doc["ratings"])
    assert main(["report", str(results), "--ratings"]) == 0
    md = capsys.readouterr().out
    assert "prior of one virtual draw" in md and "Maximum-likelihood" not in md


def test_the_json_names_one_point_pairs_and_gives_no_elo_before_a_pair() -> None:
    from csl_game.engine.stats import SPRT as Test
    from csl_game.engine.stats import Pentanomial, Trinomial, logistic_elo
    from csl_game.services.sprt import SprtState

    test = Test(0, 5, 0.05, 0.05, "logistic")
    for tri in (Trinomial(), Trinomial(1, 0, 0)):  # no game, one game of an unfinished pair
        doc = SprtState(test, tri, Pentanomial(), 0.0, "continue", logistic_elo(tri)).to_json()
        assert doc["elo"] is doc["elo_ci95"] is doc["los"] is None
        assert doc["one_point_pair_ratio"] is None
    # 4 pairs: one lost both, two scoring one point (a WL and a DD), one won both
    penta, tri = Pentanomial((1, 0, 2, 0, 1)), Trinomial(3, 2, 3)
    doc = SprtState(test, tri, penta, 0.0, "continue", logistic_elo(penta)).to_json()
    assert doc["one_point_pair_ratio"] == doc["draw_ratio"] == 0.5  # 2 of 4 pairs
    assert doc["elo"] == 0.0 and doc["los"] == 0.5


def test_report_every_n_games_in_sprt_and_session(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from csl_game.cli import main

    small = ["-r", "4", "-c", "5", "-w", "3", "--in-process", "--workers", "2", "-t", "50"]
    assert main(["sprt", "minimax 2", "random", "--max-games", "12", "--report-every", "4",
                 "--alpha", "1e-9", "--beta", "1e-9", *small]) == 0  # never stops early
    out = capsys.readouterr().out.splitlines()
    progress = [line.split(":")[0] for line in out if line.startswith("Games ")]
    assert progress[:-1] == ["Games 4", "Games 8", "Games 12"]  # the last: the summary
    players = tmp_path / "players.txt"
    players.write_text("sequential\nrandom 1\nminimax 1\n", encoding="utf-8")
    assert main(["session", "-g", str(players), "--report-every", "4", *small]) == 0
    out = capsys.readouterr().out.splitlines()
    assert not any(line.startswith("Match ") for line in out)
    assert [line.split(":")[0] for line in out if line.startswith("Matches ")] == \
        ["Matches 4/6", "Matches 6/6"]
    assert main(["session", "-g", str(players), "--report-every", "0", *small]) == 2
