"""Time losses are visible: session, league and sprt count forfeits by reason,
warn on standard error when more than 3 % of the games are lost on time, and
`sprt --json` counts the forfeits of its results file."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path

import pytest
from rich.console import Console

from csl_game.cli import main
from csl_game.console.progress import SessionProgress
from csl_game.engine import ForfeitReason, MatchResult
from csl_game.engine.outcomes import first_to_play
from csl_game.model.board import Winner
from csl_game.services.forfeits import Forfeits

MISBEHAVING = str(Path(__file__).parent / "misbehaving")
FAST = ["-r", "4", "-c", "4", "-w", "3", "--in-process", "--thinkers", MISBEHAVING]
WALL = ["--clock", "wall", "-t", "250"]
"""A sleeper (it waits for the stop) loses on the wall clock at the limit; on
the CPU clock only at the backstop, seconds later."""


def result(forfeit: ForfeitReason | None = None) -> MatchResult:
    return MatchResult(Winner.WHITE, "A", "B", forfeit=forfeit)


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("csl-game: warning:")]


# ---------------------------------------------------------------- counting
@pytest.mark.unit
def test_forfeits_are_counted_by_reason_and_time_losses_named() -> None:
    games = [result(ForfeitReason.TIMEOUT)] * 12 + [result(ForfeitReason.EXCEPTION)] + \
        [result(ForfeitReason.IGNORED_CANCELLATION)] + [result()] * 28
    forfeits = Forfeits.of(games)
    assert forfeits.games == 42 and forfeits.on_time == 13
    assert forfeits.to_json() == {"timeout": 12, "exception": 1, "ignored_cancellation": 1}
    assert forfeits.summary() == ("Forfeits: 12 timeout, 1 exception, 1 ignored cancellation; "
                                  "13 of 42 matches lost on time")
    warning = forfeits.warning("games")
    assert warning is not None and warning.startswith("13 of 42 games (31 %) were lost on time")
    assert "--time-margin" in warning and "-t" in warning and "--workers" in warning
    none = Forfeits.of([result()] * 5)
    assert none.to_json() == {} and none.summary() is None and none.warning() is None
    crashes = Forfeits.of([result(ForfeitReason.WORKER_DIED), result()])
    assert crashes.summary() == "Forfeits: 1 worker died" and crashes.warning() is None


@pytest.mark.unit
@pytest.mark.parametrize("lost, games, warns", [(1, 34, False), (2, 34, True), (3, 100, False),
                                                (4, 100, True), (1, 1, True)])
def test_the_warning_comes_above_3_percent_of_the_games(lost: int, games: int,
                                                        warns: bool) -> None:
    played = [result(ForfeitReason.TIMEOUT)] * lost + [result()] * (games - lost)
    assert (Forfeits.of(played).warning() is not None) == warns


@pytest.mark.unit
def test_the_live_display_shows_the_forfeits_so_far() -> None:
    out = io.StringIO()
    with SessionProgress(3, 0, list, quiet=True, out=out) as progress:
        progress.record(1, "A", "B", result())
        progress.record(2, "A", "B", result(ForfeitReason.TIMEOUT))
    console = Console(file=io.StringIO(), width=100)
    console.print(progress._render())
    assert "Forfeits: 1 timeout; 1 of 2 matches lost on time" in console.file.getvalue()  # type: ignore[attr-defined]


# ---------------------------------------------------------------- session and league
def test_a_session_counts_its_forfeits_and_warns_of_time_losses(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "g.txt"
    games.write_text("sleepy\nsequential\nrandom 2\n", encoding="utf-8")
    assert main(["session", "-g", str(games), *FAST, *WALL]) == 0
    out, err = capsys.readouterr()
    assert "Forfeits: 4 timeout; 4 of 6 matches lost on time" in out
    assert out.index("Forfeits:") < out.index("Final standings:")
    assert _warnings(err) == ["csl-game: warning: 4 of 6 matches (67 %) were lost on time: "
                              "give a --time-margin, a higher -t, or fewer --workers"]
    games.write_text("raise\nsequential\n", encoding="utf-8")
    assert main(["session", "-g", str(games), *FAST, "-q"]) == 0
    out, err = capsys.readouterr()
    assert "Forfeits: 2 exception\n" in out and "lost on time" not in out
    assert _warnings(err) == []


def test_a_session_without_forfeits_says_nothing_of_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "g.txt"
    games.write_text("sequential\nrandom 2\n", encoding="utf-8")
    assert main(["session", "-g", str(games), *FAST, "-q"]) == 0
    out, err = capsys.readouterr()
    assert "Forfeits" not in out and "warning" not in err


def test_a_league_counts_its_forfeits_and_warns_of_time_losses(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["league", "--thinker", "sleepy", "--thinker", "sequential", "--games", "1",
                 "--opening-plies", "0", "-q", *FAST, *WALL]) == 0
    out, err = capsys.readouterr()
    assert out.rstrip().endswith("Forfeits: 2 timeout; 2 of 2 games lost on time")
    assert _warnings(err) == ["csl-game: warning: 2 of 2 games (100 %) were lost on time: "
                              "give a --time-margin, a higher -t, or fewer --workers"]


def test_on_the_cpu_clock_a_spinner_loses_on_time_in_its_worker(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Busy spins without looking at its token: its worker's CPU time passes the
    limit, it is told to stop, does not, and is killed (a loss on time too)."""
    assert main(["league", "--thinker", "busy", "--thinker", "sequential", "--games", "1",
                 "--opening-plies", "0", "-q", "-r", "4", "-c", "4", "-w", "3", "-t", "100",
                 "--thinkers", MISBEHAVING]) == 0
    out, err = capsys.readouterr()
    assert out.rstrip().endswith("Forfeits: 2 ignored cancellation; 2 of 2 games lost on time")
    assert len(_warnings(err)) == 1


# ---------------------------------------------------------------- sprt
def _results_forfeits(path: Path) -> dict[str, int]:
    docs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return dict(Counter(d["forfeit"] for d in docs if d["forfeit"] is not None))


def test_sprt_json_counts_the_forfeits_of_its_results_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Sleepy loses on time as White, Raise by exception: every game a forfeit."""
    results = tmp_path / "r.jsonl"
    common = ["sprt", "sleepy", "raise", "--json", *FAST, *WALL, "--workers", "2"]
    assert main([*common, "--max-games", "6", "--results", str(results)]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out.strip().splitlines()[-1])
    assert doc["games"] == 6 and doc["forfeits"] == _results_forfeits(results)
    assert doc["forfeits"] == {"timeout": 3, "exception": 3}
    progress = [line for line in err.splitlines() if line.startswith("Games ")]
    assert progress and all(line.endswith("lost on time") for line in progress)
    assert progress[-1].endswith("  3 lost on time")
    assert "Forfeits: 3 exception, 3 timeout; 3 of 6 games lost on time" in err
    assert len(_warnings(err)) == 1
    assert main([*common, "--max-games", "10", "--resume", str(results)]) == 0
    doc = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert doc["games"] == 10 and doc["forfeits"] == _results_forfeits(results) == {
        "timeout": 5, "exception": 5}  # the resumed games' forfeits too


@pytest.mark.unit
def test_sprt_json_has_no_forfeits_when_none_happened(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sprt", "sequential", "random 3", "--json", "-q", "--max-games", "4",
                 *FAST]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out.strip().splitlines()[-1])["forfeits"] == {}
    assert "lost on time" not in err and "Forfeits" not in err


@pytest.mark.unit
def test_a_match_played_again_goes_to_the_scheduler_only_alone() -> None:
    """A match to be played again (another program stopped or killed a worker
    of it) waits while others play, the ones not tried going first; it goes
    once nothing else is played, and nothing goes beside it."""
    assert first_to_play(iter([2, 3, 5]), {1}, {2: 1}) == 3  # a fresh one beside the one playing
    assert first_to_play(iter([2]), {1}, {2: 1}) is None  # it waits for that one
    assert first_to_play(iter([2, 3]), set(), {2: 1}) == 2  # alone: its turn
    assert first_to_play(iter([3, 5]), {2}, {2: 2}) is None  # nothing beside it
    assert first_to_play(iter([3, 5]), {1}, {1: 1}) is None  # (a match played again, once more)
    assert first_to_play(iter([3, 5]), {1}, {}) == 3
    assert first_to_play(iter([]), set(), {}) is None
