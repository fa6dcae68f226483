"""The sprt and openings verbs, --openings for session and league, and the
worked example of docs/testing.md (its output is what the command prints)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from csl_game.cli import main
from csl_game.services.openings import make_book, read_book
from csl_game.services.sprt import fixtures_for
from csl_game.thinker.api import MatchConfig
from doc_blocks import parse_blocks

SMALL = ["-r", "4", "-c", "5", "-w", "3", "--in-process", "--workers", "2"]
KEYS = {"result", "llr", "lower", "upper", "games", "wins", "draws", "losses", "pentanomial",
        "elo", "elo_ci95", "elo0", "elo1", "model"}


def _json(out: str) -> dict[str, object]:
    doc: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return doc


def test_a_clearly_stronger_thinker_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sprt", "minimax 2", "random", "--elo0", "0", "--elo1", "100", "--json",
                 "-q", "--max-games", "400", *SMALL]) == 0
    doc = _json(capsys.readouterr().out)
    assert KEYS <= set(doc) and doc["result"] == "H1"
    assert doc["llr"] >= doc["upper"]  # type: ignore[operator]
    assert doc["games"] == doc["wins"] + doc["draws"] + doc["losses"]  # type: ignore[operator]
    assert sum(doc["pentanomial"]) * 2 <= doc["games"]  # type: ignore[arg-type,operator]
    low, high = doc["elo_ci95"]  # type: ignore[misc]
    assert low <= doc["elo"] <= high


@pytest.mark.unit
def test_equal_thinkers_end_inconclusive_at_max_games_and_resume_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "r.jsonl"
    common = ["sprt", "sequential", "sequential", "--elo0", "0", "--elo1", "20", "--json",
              "-q", *SMALL]
    assert main([*common, "--max-games", "6", "--results", str(results)]) == 0
    first = _json(capsys.readouterr().out)
    assert first["result"] == "inconclusive" and first["games"] == 6
    assert len(results.read_text().splitlines()) == 6
    assert main([*common, "--max-games", "10", "--resume", str(results)]) == 0
    captured = capsys.readouterr()
    second = _json(captured.out)
    assert second["games"] == 10 and "Resumed 6 games" in captured.err
    assert len(results.read_text().splitlines()) == 10


@pytest.mark.unit
@pytest.mark.parametrize("argv, words", [
    (["--elo0", "5", "--elo1", "0"], "elo0 must be below elo1"),
    (["--alpha", "0"], "alpha and beta"),
    (["--max-games", "1"], "--max-games must be at least 2"),
    (["--model", "bayes"], "invalid choice"),
    (["--elo1", "inf"], "argument --elo1: 'inf' is not a finite number"),
    (["--elo1", "1e400"], "argument --elo1: '1e400' is not a finite number"),
    (["--elo0=-inf"], "argument --elo0: '-inf' is not a finite number"),
    (["--elo1", "NaN"], "argument --elo1: 'NaN' is not a finite number"),
    (["--alpha", "nan"], "argument --alpha: 'nan' is not a finite number"),
    (["--beta", "infinity"], "argument --beta: 'infinity' is not a finite number"),
    (["--elo1", "1e5"], "elo0 and elo1 must lie within"),
    (["--elo0=-900", "--model", "normalized"], "must lie within \u00b1500 (normalized Elo)"),
])
def test_bad_input_is_one_line(argv: list[str], words: str,
                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sprt", "random", "sequential", *argv, *SMALL]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.unit
@pytest.mark.parametrize("argv", [
    ["openings", "--band", "nan"],
    ["watch", "127.0.0.1:9", "--reconnect-timeout", "inf"],
    ["match", "--listen", "0", "--handshake-timeout=-inf"],
    ["sprt", "random", "random", "--beta", "x"],
])
def test_every_float_flag_takes_finite_numbers_only(argv: list[str],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "is not a" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.unit
def test_an_unknown_thinker_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sprt", "nosuch", "random", *SMALL]) == 2
    assert "nosuch" in capsys.readouterr().err


@pytest.mark.unit
def test_pairs_share_their_opening_with_colours_swapped() -> None:
    book = [((0, 0),), ((3, 0),)]
    fixtures = fixtures_for(book, 9)  # rounded down to whole pairs
    assert len(fixtures) == 8
    assert [(f.white, f.red) for f in fixtures[:2]] == [(0, 1), (1, 0)]
    assert fixtures[0].opening == fixtures[1].opening != fixtures[2].opening
    assert fixtures[4].opening == book[0]


# ---------------------------------------------------------------- books
@pytest.mark.unit
def test_a_book_is_read_checked_and_refused_with_file_and_line(tmp_path: Path) -> None:
    config = MatchConfig(rows=4, cols=5, win_sequence=3)
    book = tmp_path / "book.txt"
    book.write_text("# two openings\n2r 2s\n\n0r 4s 1r  # a comment\n", encoding="utf-8")
    assert read_book(book, config) == [((2, 0), (2, 1)), ((0, 0), (4, 1), (1, 0))]
    for text, words in (("2r 9s\n", "no column 9 on a 5-column board"), ("2x\n", "is not a move"),
                        ("0r 0s 1r 1s 2r\n", "ends the game"), ("# none\n", "no opening")):
        book.write_text(text, encoding="utf-8")
        with pytest.raises(Exception, match=words) as info:
            read_book(book, config)
        assert str(book) in str(info.value)


def test_the_openings_verb_writes_distinct_balanced_reproducible_books(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "book.txt"
    argv = ["openings", "--plies", "3", "--count", "4", "--seed", "4", "--depth", "3"]
    assert main([*argv, "-o", str(out)]) == 0
    config = MatchConfig()
    book = read_book(out, config)
    assert len(book) == len(set(book)) == 4 and all(len(o) == 3 for o in book)
    assert book == [r.opening for r in make_book(config, 3, 4, seed=4, depth=3)]
    assert main(argv) == 0
    assert capsys.readouterr().out == out.read_text(encoding="utf-8")


@pytest.mark.unit
def test_session_and_league_play_every_opening_of_a_book(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    book = tmp_path / "book.txt"
    book.write_text("2r 2s\n0r 4s\n", encoding="utf-8")
    games = tmp_path / "g.txt"
    games.write_text("sequential\nrandom 1\n", encoding="utf-8")
    results = tmp_path / "r.jsonl"
    assert main(["session", "-g", str(games), "--openings", str(book), "--results",
                 str(results), "-q", *SMALL]) == 0
    docs = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(docs) == 2 * 2  # each opening, both colours
    firsts = {(d["moves"][0]["col"], d["moves"][1]["col"]) for d in docs}
    assert firsts == {(2, 2), (0, 4)}
    capsys.readouterr()
    assert main(["league", "--thinker", "sequential", "--thinker", "random 1", "--openings",
                 str(book), "--games", "2", "-q", *SMALL]) == 0
    assert "4 games" in capsys.readouterr().out


# ---------------------------------------------------------------- docs/testing.md
def test_the_worked_example_of_the_testing_guide(capsys: pytest.CaptureFixture[str]) -> None:
    """The guide's command runs, and prints what its output block shows (the
    numbers vary from run to run; the lines, verdict and JSON keys do not)."""
    blocks = parse_blocks("docs/testing.md")
    command = next(b for b in blocks if b.marker == "sprt: example").code.strip()
    shown = next(b for b in blocks if b.marker == "sprt: output").code.strip().splitlines()
    argv = command.split(" ", 1)[1]
    import shlex

    assert main(shlex.split(argv)) == 0
    captured = capsys.readouterr()
    printed = (captured.err + captured.out).strip().splitlines()
    shape = re.compile(r"[-+]?\d+(\.\d+)?")
    assert [shape.sub("N", line)[:12] for line in printed[-3:-1]] == \
        [shape.sub("N", line)[:12] for line in shown[-3:-1]]
    doc, expected = json.loads(printed[-1]), json.loads(shown[-1])
    assert set(doc) == set(expected)
    assert doc["result"] == expected["result"] == "H1"


@pytest.mark.unit
def test_the_json_records_the_game_clock_and_adjudication(
        capsys: pytest.CaptureFixture[str]) -> None:
    common = ["sprt", "sequential", "random 1", "--json", "-q", "--max-games", "2", *SMALL]
    assert main([*common, "--tc", "2+0.05", "--adjudicate"]) == 0
    doc = _json(capsys.readouterr().out)
    assert doc["tc"] == "2+0.05" and doc["adjudicate"] is True
    assert main(common) == 0
    doc = _json(capsys.readouterr().out)
    assert doc["tc"] is None and doc["adjudicate"] is False


@pytest.mark.unit
@pytest.mark.parametrize("first, then, words", [
    (["--adjudicate"], [], "(--adjudicate; this run: no --adjudicate)"),
    ([], ["--adjudicate"], "(no --adjudicate; this run: --adjudicate)"),
])
def test_a_resume_that_changes_adjudication_is_refused(
        first: list[str], then: list[str], words: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "r.jsonl"
    common = ["sprt", "sequential", "random 1", "--json", "-q", *SMALL]
    assert main([*common, "--max-games", "2", "--results", str(results), *first]) == 0
    assert json.loads(results.read_text().splitlines()[0])["sprt"]["adjudicate"] is bool(first)
    capsys.readouterr()
    assert main([*common, "--max-games", "4", "--resume", str(results), *then]) == 2
    err = capsys.readouterr().err
    assert words in err and "start a new results file" in err
    assert len(err.strip().splitlines()) == 1 and len(results.read_text().splitlines()) == 2
    assert main([*common, "--max-games", "4", "--resume", str(results), *first]) == 0
    assert _json(capsys.readouterr().out)["games"] == 4


@pytest.mark.parametrize("when, group", [("loading", True), ("loading", False),
                                         ("playing", True)])
def test_ctrl_c_at_any_moment_prints_the_summary_and_the_json(when: str,
                                                              group: bool) -> None:
    """Ctrl+C as a terminal sends it (to the process group: the fork server and
    workers too) or to the command alone, while it loads (0.2 s after it
    started its fork server) or while it plays (once it has printed its first
    pair's line)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    import psutil

    command = [sys.executable, "-m", "csl_game", "sprt", "random 1", "random 2", "--json",
               "-r", "4", "-c", "5", "-w", "3", "-t", "50", "--workers", "1"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    # `after` counts from the command's first step (it starts the fork server then),
    # not from Python's own start-up, which no program can answer and which a busy
    # machine stretches past a second
    started = time.monotonic()
    while not psutil.Process(proc.pid).children() and time.monotonic() - started < 30:
        time.sleep(0.005)
    seen = ""
    if when == "loading":
        time.sleep(0.2)
    else:
        assert proc.stderr is not None
        while not seen.endswith("\n") or not seen.splitlines()[-1].startswith("Games "):
            line = proc.stderr.readline()
            assert line, "the command ended before its first pair: " + seen
            seen += line
    if group:
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    err = seen + err
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted: no verdict" in err, err
    doc = _json(out)
    assert doc["result"] == "interrupted" and doc["games"] == doc["wins"] + doc["draws"] + \
        doc["losses"]
