"""What a report prints of a match and a name: matches numbered from 1 in
every format (as the site, the progress lines and replay number them), and
names shown as they are in Markdown (the md report, the reference's
standings.md), never read as formatting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from csl_game.cli import main
from csl_game.services.reference import write_reference
from csl_game.services.report import load_report

SETTINGS = {"rows": 3, "cols": 3, "win_sequence": 3, "round_pieces": 5, "square_pieces": 5,
            "time_limit_ms": 100}
TALKER = "Talk<b>er</b>"
SNEAKY = "Sn*ea*ky_|`x`"


def _doc(match: int, white: str, red: str, winner: str) -> dict[str, object]:
    return {"white": {"thinker": white.lower(), "params": "", "name": white},
            "red": {"thinker": red.lower(), "params": "", "name": red}, "winner": winner,
            "winner_name": white if winner == "white" else red, "solution": [],
            "forfeit": "timeout", "detail": "", "match": match, "settings": SETTINGS,
            "moves": [{"row": 0, "col": 0, "color": "white", "shape": "round", "ms": 1.0}]}


DOCS = [_doc(0, TALKER, SNEAKY, "white"), _doc(1, SNEAKY, TALKER, "red")]


@pytest.fixture
def results(tmp_path: Path) -> Path:
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in DOCS))
    return path


@pytest.mark.unit
def test_matches_are_numbered_from_1_in_every_format() -> None:
    report = load_report(DOCS)
    assert [r["match"] for r in report.result_rows()] == [1, 2]
    assert "| 1 | " in report.markdown() and "| 2 | " in report.markdown()


def test_json_and_csv_number_matches_from_1(results: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(results), "--format", "json"]) == 0
    assert [r["match"] for r in json.loads(capsys.readouterr().out)["results"]] == [1, 2]
    assert main(["report", str(results), "--format", "csv", "--table", "results"]) == 0
    assert [line.split(",")[0] for line in capsys.readouterr().out.splitlines()[1:]] == \
        ["1", "2"]


@pytest.mark.unit
def test_markdown_shows_names_as_they_are() -> None:
    report = load_report(DOCS)
    md = report.markdown() + report.render_ratings("md")
    assert TALKER not in md and "Talk\\<b\\>er\\</b\\>" in md
    assert "Sn\\*ea\\*ky\\_\\|\\`x\\`" in md  # no emphasis, no code, no extra column
    for line in md.splitlines():
        if line.startswith("| ") and "Player" not in line and "Match" not in line:
            assert line.replace("\\|", "").count("|") in (7, 5, 8, 6), line


def test_the_references_standings_show_names_as_they_are(tmp_path: Path) -> None:
    files = write_reference(DOCS, tmp_path)
    md = files[0].read_text()
    assert "| Talk\\<b\\>er\\</b\\> |" in md and "| Sn\\*ea\\*ky\\_\\|\\`x\\` |" in md
    assert "**`Talk<b>er</b>`**" in md  # a code span shows its text as it is
    assert "``Sn*ea*ky_\\|`x` ``" in md or "`` Sn*ea*ky_\\|`x` ``" in md
