"""Each move's wall-clock time is kept beside what it was charged: in the
match's moves, in results files (``wall_ms`` beside ``ms``; older files
without it still load) and in the report, which shows each player's slowest
move on the wall clock with its charge, so an organiser sees a thinker that
waits. The online protocol's result (`result_to_json`) is left as it was:
its peers check every field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from csl_game import MatchConfig, ThinkerPrototype
from csl_game.cli import main
from csl_game.engine import (
    Match,
    MatchResult,
    PlayedMove,
    PlayerInfo,
    ThreadRunner,
    record_from_json,
    record_to_json,
    result_to_json,
)
from csl_game.model.board import Move, PColor, Piece, PShape, Winner
from csl_game.services.report import load_report

MC = MatchConfig(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4)
WHITE, RED = PlayerInfo("nap", "", "Napper"), PlayerInfo("random", "", "Quick")


def _move(color: PColor, col: int, ms: float, wall_ms: float | None) -> PlayedMove:
    piece = Piece(color, PShape.ROUND if color is PColor.WHITE else PShape.SQUARE)
    return PlayedMove(Move(0, col, piece), ms / 1000,
                      wall=None if wall_ms is None else wall_ms / 1000)


RESULT = MatchResult(Winner.RED, "Napper", "Quick", moves=(
    _move(PColor.WHITE, 0, 3.0, 480.0), _move(PColor.RED, 1, 40.0, 45.0),
    _move(PColor.WHITE, 2, 150.0, 160.0), _move(PColor.RED, 3, 41.0, 300.0)))


@pytest.mark.unit
def test_a_results_line_keeps_each_moves_wall_time_and_reads_it_back() -> None:
    doc = record_to_json(0, WHITE, RED, RESULT, MC)
    assert [m["wall_ms"] for m in doc["moves"]] == [480.0, 45.0, 160.0, 300.0]
    assert [m["ms"] for m in doc["moves"]] == [3.0, 40.0, 150.0, 41.0]
    back = record_from_json(json.loads(json.dumps(doc)), {WHITE: 0, RED: 1}).result
    assert [m.wall for m in back.moves] == [pytest.approx(m.wall) for m in RESULT.moves]


@pytest.mark.unit
def test_an_older_line_without_wall_times_still_loads() -> None:
    doc = record_to_json(0, WHITE, RED, RESULT, MC)
    for m in doc["moves"]:
        del m["wall_ms"]
    doc["moves"][0]["wall_ms"] = "soon"  # malformed: read as unknown
    back = record_from_json(doc, {WHITE: 0, RED: 1}).result
    assert [m.wall for m in back.moves] == [None] * 4
    assert [m.elapsed for m in back.moves] == [pytest.approx(m.elapsed) for m in RESULT.moves]


@pytest.mark.unit
def test_the_online_result_has_no_new_field() -> None:
    assert all("wall_ms" not in m for m in result_to_json(RESULT, MC)["moves"])


@pytest.mark.unit
def test_the_report_shows_each_players_slowest_move_on_the_wall() -> None:
    report = load_report([record_to_json(0, WHITE, RED, RESULT, MC)])
    rows = {r["name"]: r for r in report.time_rows()}
    assert rows["Napper"] == {"name": "Napper", "moves": 2, "slowest_ms": 150.0,
                              "slowest_wall_ms": 480.0, "its_charged_ms": 3.0}
    assert rows["Quick"]["slowest_wall_ms"] == 300.0 and rows["Quick"]["its_charged_ms"] == 41.0
    md = report.markdown()
    assert "## Time" in md and "| Napper | 2 | 150.0 | 480.0 | 3.0 |" in md
    assert json.loads(report.render("json"))["time"] == report.time_rows()


@pytest.mark.unit
def test_the_report_of_an_older_file_says_the_wall_time_is_unknown(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = record_to_json(0, WHITE, RED, RESULT, MC)
    for m in doc["moves"]:
        del m["wall_ms"]
    results = tmp_path / "old.jsonl"
    results.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    assert main(["report", str(results)]) == 0
    assert "| Napper | 2 | 150.0 | - | - |" in capsys.readouterr().out


def test_a_match_records_its_moves_wall_time() -> None:
    mc = MatchConfig(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4,
                     time_limit_ms=2000)
    match = Match(mc, ThinkerPrototype("sequential", "", mc),
                  ThinkerPrototype("random", "1", mc), ThreadRunner)
    result = match.run()
    assert result.moves
    for played in result.moves:
        assert played.wall is not None and played.wall >= 0
