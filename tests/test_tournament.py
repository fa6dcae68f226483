"""Tournaments at scale: results files, resume after a crash, exports, tie-breaks."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from csl_game import MatchConfig, Winner
from csl_game.cli import main
from csl_game.engine import (
    MatchRecord,
    MatchResult,
    Points,
    ResultsWriter,
    RunOptions,
    Session,
    SessionOptions,
    read_results,
    standings,
)
from csl_game.engine.tiebreak import apply_tie_break, break_first_place_tie
from csl_game.services.report import load_report
from csl_game.services.settings import AIEntry
from csl_game.thinker.prototype import ThinkerPrototype
from procs import kill_after_lines

FAKES = str(Path(__file__).parent / "fakes")
LEAGUE = "random 1\nsequential\nminimax 1\nrandom 2\nsteady 5\n"


def tournament(entries: list[AIEntry], config: MatchConfig,
               results: ResultsWriter | None = None, **kwargs: object) -> Session:
    """A tournament of these AIs, every match played off screen (as the session verb does)."""
    players = [ThinkerPrototype(e.thinker, e.params, config) for e in entries]
    run = RunOptions(foreground=False, **kwargs)  # type: ignore[arg-type]
    options = SessionOptions(tournament=True, run=run)
    return Session(players, config, options, results=results)


def _standings_block(out: str) -> str:
    return out.split("Final standings:")[1].strip()


@pytest.mark.unit
def test_results_file_has_every_match_with_full_records(tmp_path: Path) -> None:
    writer = ResultsWriter(tmp_path / "r.jsonl")
    tournament([AIEntry("random", "3"), AIEntry("sequential"), AIEntry("minimax", "1")],
               MatchConfig(), in_process=True, workers=2, results=writer).run()
    docs = read_results(tmp_path / "r.jsonl")
    assert sorted(d["match"] for d in docs) == list(range(6))
    doc = docs[0]
    assert set(doc["white"]) == {"thinker", "params", "name"}
    assert doc["settings"]["rows"] == 6 and doc["moves"] and "ms" in doc["moves"][0]
    assert doc["winner"] in ("white", "red", "draw")


@pytest.mark.unit
def test_torn_last_line_is_ignored_and_cut_on_resume(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"match": 0}\n{"match": 1, "whi')
    assert read_results(path) == [{"match": 0}]
    writer = ResultsWriter(path)
    writer.write({"match": 2})
    writer.close()
    assert path.read_text() == '{"match": 0}\n{"match": 2}\n'  # each line whole, torn one gone


def test_resume_after_kill_gives_the_same_standings(tmp_path: Path) -> None:
    game = tmp_path / "league.txt"
    game.write_text(LEAGUE)
    base = [sys.executable, "-m", "csl_game", "session", "-g", str(game), "--thinkers", FAKES,
            "--in-process", "--workers", "1", "--quiet"]
    results = tmp_path / "r.jsonl"
    with subprocess.Popen(base, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as whole:  # the uninterrupted session, meanwhile
        kill_after_lines(base + ["--results", str(results)], results, 4, 60)
        full_out, full_err = whole.communicate(timeout=120)
    assert whole.returncode == 0, full_err
    done = len(read_results(results))
    assert 4 <= done < 20
    resumed = subprocess.run(base + ["--resume", str(results)], capture_output=True,
                             text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert _standings_block(resumed.stdout) == _standings_block(full_out)
    assert sorted(d["match"] for d in read_results(results)) == list(range(20))


@pytest.mark.unit
def test_resume_refuses_a_file_of_another_session(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "g.txt"
    game.write_text("random 1\nsequential\n")
    results = tmp_path / "r.jsonl"
    assert main(["session", "-g", str(game), "--in-process", "--results", str(results),
                 "--quiet"]) == 0
    game.write_text("random 2\nsequential\n")
    assert main(["session", "-g", str(game), "--in-process", "--resume", str(results)]) == 2
    assert "different session" in capsys.readouterr().err


@pytest.mark.unit
def test_resume_refuses_another_clock_and_takes_old_lines_as_the_wall_clock(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "g.txt"
    game.write_text("random 1\nsequential\nrandom 2\n")
    results = tmp_path / "r.jsonl"
    base = ["session", "-g", str(game), "--in-process", "-r", "4", "-c", "4", "-w", "3",
            "--quiet"]
    assert main([*base, "--clock", "wall", "--time-margin", "25", "--results",
                 str(results)]) == 0
    lines = results.read_text().splitlines()
    assert len(lines) == 6 and all(json.loads(line)["settings"]["clock"] == "wall"
                                   and json.loads(line)["settings"]["time_margin_ms"] == 25
                                   for line in lines)
    results.write_text("\n".join(lines[:4]) + "\n")
    capsys.readouterr()
    for flags, was, now in (([], "--clock wall --time-margin 25", "--clock cpu --time-margin 0"),
                            (["--clock", "wall"], "--time-margin 25", "--time-margin 0"),
                            (["--time-margin", "25"], "--clock wall", "--clock cpu")):
        assert main([*base, *flags, "--resume", str(results)]) == 2
        err = capsys.readouterr().err
        assert f"was played with {was}, this run is {now}: resume with {was}" in err, err
        assert err.count("\n") == 1 and "Traceback" not in err
    # lines written before there was a clock were played on the wall clock, with no margin
    old = []
    for line in lines[:4]:
        doc = json.loads(line)
        del doc["settings"]["clock"], doc["settings"]["time_margin_ms"]
        old.append(json.dumps(doc))
    results.write_text("\n".join(old) + "\n")
    assert main([*base, "--resume", str(results)]) == 2
    err = capsys.readouterr().err
    assert "was played with --clock wall (it records no clock" in err and "--clock cpu" in err
    assert main([*base, "--clock", "wall", "--resume", str(results)]) == 0
    docs = read_results(results)
    assert len(docs) == 6 and [d["settings"].get("clock") for d in docs] == [None] * 4 + [
        "wall"] * 2
    capsys.readouterr()
    assert main(["report", str(results), "--format", "reference", "--output",
                 str(tmp_path / "ref")]) == 0  # old lines and new: one set of settings
    assert main(["report", str(results), "--format", "csv"]) == 0


@pytest.fixture(scope="module")
def results_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rep") / "r.jsonl"
    writer = ResultsWriter(path)
    tournament([AIEntry("random", "5"), AIEntry("sequential"), AIEntry("minimax", "1")],
               MatchConfig(), in_process=True, results=writer).run()
    return path


@pytest.mark.unit
def test_exports_parse_back(results_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = load_report(read_results(results_file)).standings_rows()
    assert main(["report", str(results_file), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["standings"] == expected and len(doc["results"]) == 6
    assert main(["report", str(results_file), "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["name"], int(r["points"])) for r in rows] == [(e["name"], e["points"])
                                                             for e in expected]
    assert main(["report", str(results_file), "--format", "csv", "--table", "results"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 6 and {r["winner"] for r in rows} <= {"white", "red", "draw"}
    assert main(["report", str(results_file), "--format", "md"]) == 0
    md = capsys.readouterr().out
    table = [line for line in md.splitlines() if line.startswith("| ") and "Player" not in line]
    assert [line.split("|")[2].strip() for line in table[:3]] == [e["name"] for e in expected]
    assert "**" in md


@pytest.mark.unit
def test_report_of_bad_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    assert main(["report", str(bad)]) == 2
    assert main(["report", str(tmp_path / "missing.jsonl")]) == 2
    (tmp_path / "empty.jsonl").write_text("")
    assert main(["report", str(tmp_path / "empty.jsonl")]) == 2
    assert capsys.readouterr().err.count("\n") == 3


# ----------------------------------------------------------------- tie-breaks
def _rec(white: int, red: int, winner: Winner) -> MatchRecord:
    return MatchRecord(white, red, MatchResult(winner, "w", "r"))


W, R, D = Winner.WHITE, Winner.RED, Winner.DRAW
NAMES = ["A", "B", "C", "D"]


def _no_replay(players, limit):  # noqa: ANN001, ANN202
    raise AssertionError("no replay expected")


@pytest.mark.unit
def test_no_tie_no_tie_break() -> None:
    recs = [_rec(0, 1, W), _rec(1, 0, R)]
    table = standings(NAMES[:2], recs)
    assert break_first_place_tie(table, recs, Points(), 200, _no_replay) is None


@pytest.mark.unit
def test_two_way_tie_broken_head_to_head() -> None:
    # A and B both 6 points; A beat B twice... impossible with 6 each, so A beat B once,
    # drew once; each beat C and D as needed.
    recs = [_rec(0, 1, W), _rec(1, 0, D), _rec(0, 2, R), _rec(2, 0, R),
            _rec(1, 2, W), _rec(2, 1, R), _rec(3, 0, D), _rec(0, 3, D),
            _rec(1, 3, D), _rec(3, 1, D)]
    table = standings(NAMES, recs)
    assert [s.position for s in table][:2] == [1, 1]
    tb = break_first_place_tie(table, recs, Points(), 200, _no_replay)
    assert tb is not None and tb.order[0] == 0 and tb.tied == ()
    final = apply_tie_break(table, tb)
    assert [(s.name, s.position) for s in final][:2] == [("A", 1), ("B", 2)]


@pytest.mark.unit
def test_three_way_tie_goes_to_replays_with_doubled_then_halved_limits() -> None:
    cycle = [_rec(0, 1, W), _rec(1, 0, R), _rec(1, 2, W), _rec(2, 1, R),
             _rec(2, 0, W), _rec(0, 2, R)]  # everyone beats one and loses to one, twice
    table = standings(NAMES[:3], cycle)
    assert {s.position for s in table} == {1}
    limits: list[int] = []

    def replay(players, limit):  # noqa: ANN001, ANN202
        limits.append(limit)
        if len(limits) < 12:  # 10 doubled replays stay tied, then halved: C wins the 2nd
            return list(cycle)
        return [_rec(2, 0, W), _rec(2, 1, W)]

    tb = break_first_place_tie(table, cycle, Points(), 200, replay)
    assert tb is not None and tb.tied == () and tb.order[0] == 2
    assert limits == [400] * 10 + [100] * 2
    assert apply_tie_break(table, tb)[0].name == "C"


@pytest.mark.unit
def test_unbreakable_tie_is_official() -> None:
    recs = [_rec(0, 1, D), _rec(1, 0, D)]
    table = standings(NAMES[:2], recs)
    calls: list[int] = []
    tb = break_first_place_tie(table, recs, Points(), 200,
                               lambda p, lim: calls.append(lim) or [_rec(0, 1, D)])
    assert tb is not None and set(tb.tied) == {0, 1} and len(calls) == 20
    assert [s.position for s in apply_tie_break(table, tb)] == [1, 1]


def test_competition_session_runs_replays(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "g.txt"
    game.write_text("sequential\nsequential\n")  # mirror players: every match the same
    assert main(["session", "-g", str(game), "--in-process", "--competition", "--quiet",
                 "-t", "1000"]) == 0
    out = capsys.readouterr().out
    assert "Tie-break for first place" in out


@pytest.mark.unit
def test_unknown_track_settings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "g.txt"
    game.write_text("sequential\nrandom 1\n")
    assert main(["session", "-g", str(game), "--in-process", "--unknown-track", "7", "8",
                 "--results", str(tmp_path / "r.jsonl"), "--quiet"]) == 0
    settings = read_results(tmp_path / "r.jsonl")[0]["settings"]
    assert settings == {"rows": 7, "cols": 8, "win_sequence": 4, "round_pieces": 14,
                        "square_pieces": 14, "time_limit_ms": 200, "clock": "cpu",
                        "time_margin_ms": 0}
    assert main(["session", "-g", str(game), "--unknown-track", "7", "8", "-r", "5"]) == 2


@pytest.mark.long  # a local Dask cluster: its scheduler and workers start anew
def test_session_on_a_local_dask_cluster(tmp_path: Path) -> None:
    from dask.distributed import Client, LocalCluster

    entries = [AIEntry("random", "4"), AIEntry("sequential"), AIEntry("minimax", "1")]
    reference = tournament(entries, MatchConfig(), in_process=True).run()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        writer = ResultsWriter(tmp_path / "r.jsonl")
        table = tournament(entries, MatchConfig(), workers=2, results=writer,
                           executor=client.get_executor()).run()
        game = tmp_path / "g.txt"
        game.write_text("random 4\nsequential\nminimax 1\n")
        assert main(["session", "-g", str(game), "--dask", cluster.scheduler_address,
                     "--results", str(tmp_path / "cli.jsonl"), "--quiet"]) == 0
    assert [(s.name, s.points) for s in table] == [(s.name, s.points)
                                                   for s in reference]
    assert len(read_results(tmp_path / "r.jsonl")) == 6
    assert len(read_results(tmp_path / "cli.jsonl")) == 6
