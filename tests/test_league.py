"""The thinker league: openings, schedule, statistics, tables, command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from csl_game import MatchConfig, PShape, ThinkerPrototype, Winner
from csl_game.cli import main as csl_game
from csl_game.console.league_cmd import matrix_rows, render, standings_rows
from csl_game.services.league import Entry, League, make_openings, parse_info, tally

SMALL = MatchConfig(rows=4, cols=5, win_sequence=3, round_pieces=5, square_pieces=5,
                    time_limit_ms=200)


def main(argv: list[str]) -> int:
    """``csl-game league ARGV``."""
    return csl_game(["league", *argv])


def entry(name: str, params: str = "") -> Entry:
    return Entry(name, params, ThinkerPrototype(name, params, SMALL))


@pytest.mark.unit
def test_parse_info_reads_numbers() -> None:
    assert parse_info("depth=7 nodes=12345 nps=3.5e") == {"depth": 7, "nodes": 12345, "nps": 3.5}
    assert parse_info("forced") == {}


@pytest.mark.unit
def test_openings_use_own_shapes_and_leave_the_game_open() -> None:
    openings = make_openings(MatchConfig(), 2, seed=1)
    assert len(openings) == 49
    assert all(o[0][1] is PShape.ROUND and o[1][1] is PShape.SQUARE for o in openings)
    assert make_openings(MatchConfig(), 2, seed=1) == openings
    assert make_openings(MatchConfig(), 0, seed=1) == [()]
    # A one-in-a-row board: every first move ends the game, so no opening is left.
    assert make_openings(MatchConfig(3, 3, 1, 2, 2), 1, seed=1) == [()]


def test_league_plays_each_pair_both_colours_from_the_same_openings() -> None:
    league = League([entry("sequential"), entry("random", "1"), entry("negamax", "depth=2")],
                    SMALL, 2, make_openings(SMALL, 2, 3), in_process=True)
    league.play()
    assert len(league.records) == 3 * 2 * 2
    for rec in league.records:
        played = tuple((m.move.col, m.move.piece.shape) for m in rec.result.moves[:2])
        assert played == rec.opening
        assert rec.result.winner is not Winner.NONE
    tallies, matrix = tally(league)
    assert sum(t.wins for t in tallies) == sum(t.losses for t in tallies)
    assert sum(t.games for t in tallies) == 2 * len(league.records)
    assert tallies[0].name == "NegamaxD2"
    assert all(t.over_limit == 0 for t in tallies)
    assert tallies[0].depths and set(tallies[0].depths) <= {0.0, 1.0, 2.0}
    assert matrix[0][0] is None and matrix[0][1] is not None
    text = render(standings_rows(tallies), markdown=False)
    assert "NegamaxD2" in text and "Score" in text and "Max wall ms" in text
    for i, t in enumerate(tallies):  # the slowest move on the wall, forced moves excluded
        index = league.names.index(t.name)
        walls = [m.wall for rec in league.records for k, m in enumerate(rec.result.moves)
                 if k >= 2 and (rec.white, rec.red)[k % 2] == index and m.wall is not None]
        assert t.max_wall == pytest.approx(max(walls))
        assert standings_rows(tallies)[i + 1][-1] == f"{1000 * max(walls):.0f}"
    md = render(matrix_rows(tallies, matrix), markdown=True)
    assert md.startswith("| vs |") and md.count("\n") == 4


@pytest.mark.unit
def test_main_prints_the_tables(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--thinker", "sequential", "--thinker", "random 2", "--games", "1",
                 "-r", "4", "-c", "4", "-w", "3", "-t", "100", "--in-process",
                 "--markdown"]) == 0
    out, err = capsys.readouterr()
    assert "| 1 |" in out and "Sequential" in out and "Random" in out
    assert "Game 1/2:" in err and "Game 2/2:" in err


@pytest.mark.unit
@pytest.mark.parametrize("argv", [
    ["--thinker", "random"],
    ["--thinker", "nosuchthinker", "--thinker", "random"],
    ["--games", "0"],
    ["--workers", "0"],
    ["-r", "2", "-c", "2", "-w", "4"],
    ["--bogus"],
])
def test_bad_usage_exits_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv + ["--in-process", "--quiet"]) == 2
    assert capsys.readouterr().err.startswith("csl-game: error:")


@pytest.mark.unit
def test_league_plays_games_at_once_on_the_session_engine() -> None:
    entries = [entry("sequential"), entry("random", "1"), entry("random", "2")]
    league = League(entries, SMALL, 1, make_openings(SMALL, 2, 5), in_process=True, workers=2)
    seen: list[int] = []
    league.play(lambda i, total, rec: seen.append(total))
    assert len(league.records) == 6 and seen == [6] * 6
    assert league.names == ("Sequential", "Random #1", "Random #2")
    tallies, _ = tally(league)
    assert sum(t.points for t in tallies) == sum(2 if r.result.winner is Winner.DRAW else 3
                                                 for r in league.records)


RESUMED = ["--thinker", "sequential", "--thinker", "random 1", "--thinker", "negamax depth=2",
           "--games", "2", "-r", "4", "-c", "5", "-w", "3", "--in-process", "-q", "--markdown"]
SAME_EVERY_RUN = ("Thinker", "Pts", "W", "D", "L", "Score", "Elo", "Avg depth", "Avg playouts",
                  "Moves", "Over limit")
"""The standings' columns that no clock changes."""


def _standings(out: str) -> list[dict[str, str]]:
    lines = [line for line in out.split("\n\n")[1].splitlines() if line.startswith("|")]
    head = [cell.strip() for cell in lines[0].strip("|").split("|")]
    return [dict(zip(head, (cell.strip() for cell in line.strip("|").split("|"))))
            for line in lines[2:]]


def test_an_interrupted_league_goes_on_with_resume_to_the_same_table(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    whole = tmp_path / "whole.jsonl"
    assert main([*RESUMED, "--results", str(whole)]) == 0
    uninterrupted = _standings(capsys.readouterr().out)
    lines = whole.read_text().splitlines(keepends=True)
    assert len(lines) == 12
    # stopped after five games, the sixth cut off while it was written; one move of
    # Random's made slow, to see that the resumed games' moves are counted too
    first = [json.loads(line) for line in lines[:5]]
    for doc in first:
        for k, move in enumerate(doc["moves"]):
            slow = doc["red" if k % 2 else "white"]["name"] == "Random" and k >= 2
            move["ms"] = 187.0 if slow and move["ms"] < 187.0 else move["ms"]
    part = tmp_path / "part.jsonl"
    part.write_text("".join(json.dumps(d) + "\n" for d in first) + lines[5][:40])
    assert main([*RESUMED, "--results", str(part)]) == 2
    assert "--resume" in capsys.readouterr().err
    assert main([*RESUMED, "--resume", str(part)]) == 0
    out, err = capsys.readouterr()
    assert "Resumed 5 games from" in err and "12 games" in out
    resumed = _standings(out)
    assert [{k: row[k] for k in SAME_EVERY_RUN} for row in resumed] == \
        [{k: row[k] for k in SAME_EVERY_RUN} for row in uninterrupted]
    assert next(r for r in resumed if r["Thinker"] == "Random")["Max ms"] == "187"
    matches = sorted(json.loads(line)["match"] for line in part.read_text().splitlines()
                     if line.endswith("}"))
    assert matches == list(range(12))


@pytest.mark.unit
def test_a_resume_of_another_league_is_refused(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "r.jsonl"
    assert main([*RESUMED, "--games", "1", "--results", str(results)]) == 0
    capsys.readouterr()
    assert main([*RESUMED, "--games", "1", "--seed", "7", "--resume", str(results)]) == 2
    err = capsys.readouterr().err
    assert "made by another league" in err and "--seed" in err
    assert len(err.strip().splitlines()) == 1
