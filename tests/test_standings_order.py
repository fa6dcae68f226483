"""One tie order and one way to number tied places, wherever standings are
shown: the session's printed table, every `report` format, the reference's
standings.md, the site and the window's standings table."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from csl_game.cli import main
from csl_game.engine import MatchRecord, ResultsWriter, Session, SessionOptions, read_results
from csl_game.engine.match import Human, Match, MatchResult
from csl_game.engine.scoring import Standing, standings
from csl_game.model.board import Winner
from csl_game.thinker.api import MatchConfig

pytestmark = pytest.mark.unit

CONFIG = MatchConfig(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4)
EXPECTED = [(1, "Alpha"), (2, "Minimax"), (2, "Random"), (2, "Sequential")]
"""Alpha wins all; the others beat each other with White."""


def _result(match: Match) -> MatchResult:
    white, red = match.names
    winner = Winner.RED if red == "Alpha" else Winner.WHITE
    return MatchResult(winner, white, red)


@pytest.fixture
def played(tmp_path: Path) -> tuple[Session, Path]:
    """A session whose tied players are listed in neither their names' order
    (Minimax, Random, Sequential) nor the order they first appear in its results
    file (Random, Sequential, Minimax)."""
    results = tmp_path / "r.jsonl"
    players = [Human("Random"), Human("Minimax"), Human("Sequential"), Human("Alpha")]
    session = Session(players, CONFIG, SessionOptions(), results=ResultsWriter(results))
    session.run(_result)
    assert [d["white"]["name"] for d in read_results(results)][:2] == ["Random", "Sequential"]
    return session, results


def _places(table: list[Standing]) -> list[tuple[int, str]]:
    return [(s.position, s.name) for s in table]


def test_the_session_lists_ties_by_name(played: tuple[Session, Path]) -> None:
    from csl_game.console.render import render_standings

    session, _ = played
    assert _places(session.standings()) == EXPECTED
    lines = render_standings(session.standings()).splitlines()[1:]
    assert [tuple(line.split()[:2]) for line in lines] == [(f"{p}.", n) for p, n in EXPECTED]


@pytest.mark.parametrize("fmt", ["md", "csv", "json"])
def test_every_report_format_has_the_sessions_order(
        played: tuple[Session, Path], fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    _, results = played
    assert main(["report", str(results), "--format", fmt]) == 0
    out = capsys.readouterr().out
    if fmt == "md":
        rows = [line.split("|")[1:3] for line in out.split("## Time")[0].splitlines()
                if re.match(r"\| \d", line)]
    elif fmt == "csv":
        rows = [[r["position"], r["name"]] for r in csv.DictReader(io.StringIO(out))]
    else:
        rows = [[r["position"], r["name"]] for r in json.loads(out)["standings"]]
    assert [(int(p), n.strip()) for p, n in rows] == EXPECTED


def test_the_reference_standings_share_tied_places(played: tuple[Session, Path],
                                                    tmp_path: Path) -> None:
    _, results = played
    assert main(["report", str(results), "--format", "reference", "-o",
                 str(tmp_path / "ref")]) == 0
    text = (tmp_path / "ref" / "standings.md").read_text()
    classification = text.split("## Classification")[1].split("## Results")[0]
    rows = re.findall(r"^\| (\d+) \| (\w+) \| \d+ \|$", classification, re.M)
    assert [(int(p), n) for p, n in rows] == EXPECTED


def test_the_site_has_the_sessions_order(played: tuple[Session, Path], tmp_path: Path) -> None:
    from csl_game.services.site import write_site

    _, results = played
    index = write_site(read_results(results), tmp_path / "site") / "index.html"
    table = index.read_text().split('id="standings"')[1].split("</table>")[0]
    rows = re.findall(r"<tr[^>]*><td[^>]*>(\d+)</td><th[^>]*>(?:<bdi[^>]*>)?(\w+)", table)
    assert [(int(p), n) for p, n in rows] == EXPECTED


def test_the_window_lists_ties_by_the_names_it_shows(played: tuple[Session, Path]) -> None:
    from csl_game.gui.tables import standings_rows

    session, _ = played
    assert [(int(r[0][0].rstrip(".")), r[1][0]) for r in standings_rows(session.standings())
            ] == EXPECTED
    # the window names the players its own way: ties follow the names it shows
    shown = {"Minimax": "Zara (level 2)", "Sequential": "Ada (level 1)"}
    renamed = [Standing(s.position, s.player, shown.get(s.name, s.name), s.points, s.wins,
                        s.draws, s.losses) for s in session.standings()]
    assert [r[1][0] for r in standings_rows(renamed)] == ["Alpha", "Ada (level 1)", "Random",
                                                          "Zara (level 2)"]


def test_the_windows_names_for_a_session_keep_the_tie_order() -> None:
    """A level goes by its name in the window ('Hard', not its class's 'Aardvark'
    here): the final screen and the log list the tie by the names shown."""
    from types import SimpleNamespace

    from csl_game.gui.names import ShownNames
    from csl_game.services.presets import level
    from csl_game.thinker.prototype import ThinkerPrototype

    hard = level("hard")
    session = SimpleNamespace(players=[Human("Ann"), ThinkerPrototype(hard.thinker, hard.params)],
                              names=["Ann", "Aardvark"])
    table = standings(session.names, [MatchRecord(0, 1, MatchResult(Winner.DRAW, "Ann",
                                                                    "Aardvark"))])
    assert [s.name for s in table] == ["Aardvark", "Ann"]
    shown = ShownNames(session).standings(table)  # type: ignore[arg-type]
    assert [(s.position, s.name) for s in shown] == [(1, "Ann"), (1, "Hard")]


def test_tied_places_are_numbered_as_in_sport() -> None:
    """1, 2, 2, 4: a tie shares the place of its first, and the next place is skipped."""
    from csl_game.engine.scoring import in_table_order, tie_order

    names = ["d", "C", "b", "a"]
    records = [MatchRecord(0, 3, MatchResult(Winner.WHITE, "d", "a")),
               MatchRecord(1, 2, MatchResult(Winner.DRAW, "C", "b"))]
    assert _places(standings(names, records)) == [(1, "d"), (2, "b"), (2, "C"), (4, "a")]
    assert sorted(["b", "B", "a"], key=tie_order) == ["a", "B", "b"]
    same = [Standing(1, 1, "X", 0, 0, 0, 0), Standing(1, 0, "X", 0, 0, 0, 0)]
    assert [s.player for s in in_table_order(same)] == [0, 1]
