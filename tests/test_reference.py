"""report --format reference: standings.md and results/<White>vs<Red>.txt as the
reference framework's competition listener writes them."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from csl_game.cli import main
from csl_game.errors import ConfigError
from csl_game.model.notation import parse_moves
from csl_game.services.reference import transcript_name, write_reference

pytestmark = pytest.mark.unit

SETTINGS = {"rows": 2, "cols": 3, "win_sequence": 3, "round_pieces": 3, "square_pieces": 3,
            "time_limit_ms": 250}
NOW = datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)


def player(name: str) -> dict[str, str]:
    return {"thinker": name.lower().replace(" ", "_"), "params": "", "name": name}


def line(index: int, white: str, red: str, moves: str, ms: list[float], winner: str,
         solution: list[list[int]], forfeit: str | None = None,
         detail: str = "") -> dict[str, Any]:
    heights = [0] * SETTINGS["cols"]
    out = []
    for i, (col, shape) in enumerate(parse_moves(moves)):
        out.append({"row": heights[col], "col": col, "color": ("white", "red")[i % 2],
                    "shape": shape.name.lower(), "ms": ms[i]})
        heights[col] += 1
    return {"match": index, "white": player(white), "red": player(red), "winner": winner,
            "winner_name": None, "solution": solution, "forfeit": forfeit, "detail": detail,
            "moves": out, "settings": SETTINGS}


DOCS = [
    line(0, "Alpha", "Beta Two", "0r 0s 1r 1s 2r", [12.9, 3.2, 0.4, 1000.0, 7.0], "white",
         [[0, 0], [0, 1], [0, 2]]),
    line(1, "Beta Two", "Alpha", "1r", [5.5], "white", [], "timeout", "time limit 250 ms"),
    line(2, "Gamma", "Alpha", "0r 1s 1r 2s 2r 0s", [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "draw", []),
]

LEGEND = "\tw - White Round\n\tW - White Square\n\tr - Red   Round\n\tR - Red   Square\n"

STANDINGS = """\
# Standings

Last update: Mon, 06 May 2024 07:08:09 GMT

## Configuration

| Parameter      | Value             |
|:-------------- | ----------------: |
| Rows          | 2        |
| Cols          | 3        |
| Win sequence  | 3 |
| Round pieces  | 3  |
| Square pieces | 3 |
| Time limit    | 250ms     |

## Classification

| Pos. | AI Thinker | Points |
|:----:| ---------- | -----: |
| 1 | Alpha | 4 |
| 2 | Beta Two | 3 |
| 3 | Gamma | 1 |

## Results

_Winner, if any, shown in bold_

| White |   Red   | Details |
| -----:|:------- | :-----: |
| **`Alpha`** | `Beta Two` | [+](results/AlphavsBetaTwo.txt) |
| **`Beta Two`** | `Alpha` | [+](results/BetaTwovsAlpha.txt) |
| `Gamma` | `Alpha` | [+](results/GammavsAlpha.txt) |
"""

WON = f"""\
=> Alpha (White) vs Beta Two (Red) <=

{LEGEND}
...
...

Alpha (White) turn
Alpha (White) placed a Round piece at column 0 after 12ms
...
w..

Beta Two (Red) turn
Beta Two (Red) placed a Square piece at column 0 after 3ms
R..
w..

Alpha (White) turn
Alpha (White) placed a Round piece at column 1 after 0ms
R..
ww.

Beta Two (Red) turn
Beta Two (Red) placed a Square piece at column 1 after 1000ms
RR.
ww.

Alpha (White) turn
Alpha (White) placed a Round piece at column 2 after 7ms
RR.
www

Winner is Alpha (White)
Solution=(0,0)(0,1)(0,2)
"""

FORFEIT = f"""\
=> Beta Two (White) vs Alpha (Red) <=

{LEGEND}
...
...

Beta Two (White) turn
Beta Two (White) placed a Round piece at column 1 after 5ms
...
.w.

Alpha (Red) turn
Alpha (Red) loses match! Reason: Time limit expired
...
.w.

Winner is Beta Two (White)
"""


@pytest.fixture
def written(tmp_path: Path) -> Path:
    files = write_reference(DOCS, tmp_path / "site", now=NOW)
    assert files[0] == tmp_path / "site" / "standings.md" and len(files) == 4
    return tmp_path / "site"


def test_standings_file_is_the_reference_layout(written: Path) -> None:
    assert (written / "standings.md").read_text(encoding="utf-8") == STANDINGS


def test_transcript_of_a_board_win(written: Path) -> None:
    assert (written / "results" / "AlphavsBetaTwo.txt").read_text(encoding="utf-8") == WON


def test_transcript_of_a_forfeit(written: Path) -> None:
    assert (written / "results" / "BetaTwovsAlpha.txt").read_text(encoding="utf-8") == FORFEIT


def test_transcript_of_a_draw_ends_without_a_run(written: Path) -> None:
    text = (written / "results" / "GammavsAlpha.txt").read_text(encoding="utf-8")
    assert text.endswith("Alpha (Red) placed a Square piece at column 0 after 6ms\n"
                         "Rww\nwRR\n\nGame ended in a draw\n")
    assert text.count(" turn\n") == 6 and "Solution" not in text


@pytest.mark.parametrize(("forfeit", "detail", "reason"), [
    ("no_move", "", "Thinker unable to perform move"),
    ("exception", "ValueError: boom\nTraceback ...", "Thinker exception: 'ValueError: boom'"),
    ("full_column", "it played round at column 1: the column is full",
     "Tried to place piece in column 1, which is full"),
    ("invalid_column", "it played round at column 9: the column does not exist",
     "chose a column that does not exist: it played round at column 9: the column does "
     "not exist"),
    ("worker_died", "", "crashed its process"),
])
def test_forfeit_reasons_in_the_reference_words(tmp_path: Path, forfeit: str, detail: str,
                                                reason: str) -> None:
    doc = line(0, "A", "B", "1r", [1.0], "white", [], forfeit, detail)
    write_reference([doc], tmp_path, now=NOW)
    text = (tmp_path / "results" / "AvsB.txt").read_text(encoding="utf-8")
    assert f"B (Red) loses match! Reason: {reason}\n" in text


@pytest.mark.parametrize(("white", "red", "name"), [
    ("Random", "MinimaxD3", "RandomvsMinimaxD3.txt"),
    ("Random #1", "Random #2", "Random#1vsRandom#2.txt"),
    ("a/b", "c\\d", "a_bvsc_d.txt"),
])
def test_transcript_names(white: str, red: str, name: str) -> None:
    assert transcript_name(white, red) == name


def test_links_are_url_safe(tmp_path: Path) -> None:
    doc = line(0, "Random #1", "Random #2", "1r", [1.0], "white", [], "timeout")
    write_reference([doc], tmp_path, now=NOW)
    standings = (tmp_path / "standings.md").read_text(encoding="utf-8")
    assert "[+](results/Random%231vsRandom%232.txt)" in standings
    assert (tmp_path / "results" / "Random#1vsRandom#2.txt").is_file()


def test_matches_with_other_settings_are_refused(tmp_path: Path) -> None:
    other = json.loads(json.dumps(DOCS[1]))
    other["settings"]["time_limit_ms"] = 500
    with pytest.raises(ConfigError, match="not all played with the same settings"):
        write_reference([DOCS[0], other], tmp_path)


# ------------------------------------------------------------ command line
def test_report_verb_writes_the_reference_files(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(d) + "\n" for d in DOCS), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["report", str(results), "--format", "reference", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed == f"wrote {out / 'standings.md'} and 3 match transcripts in " \
                      f"{out / 'results'}\n"
    assert sorted(p.name for p in (out / "results").iterdir()) == [
        "AlphavsBetaTwo.txt", "BetaTwovsAlpha.txt", "GammavsAlpha.txt"]
    assert (out / "standings.md").read_text(encoding="utf-8").splitlines()[4:] == \
        STANDINGS.splitlines()[4:]


def test_report_verb_from_a_real_session(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    fakes = str(Path(__file__).parent / "fakes")
    (tmp_path / "players.txt").write_text("sequential\nrandom 4\nnomove\n", encoding="utf-8")
    results = tmp_path / "r.jsonl"
    assert main(["session", "-g", str(tmp_path / "players.txt"), "--results", str(results),
                 "--quiet", "--in-process", "--thinkers", fakes, "--workers", "1"]) == 0
    assert main(["report", str(results), "--format", "reference", "-o", str(tmp_path)]) == 0
    transcripts = sorted((tmp_path / "results").iterdir())
    assert len(transcripts) == 6
    for path in transcripts:
        text = path.read_text(encoding="utf-8")
        assert text.startswith("=> ") and text.splitlines()[-1].startswith(
            ("Winner is ", "Solution=", "Game ended in a draw"))
    capsys.readouterr()


def test_report_verb_cannot_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps(DOCS[0]) + "\n", encoding="utf-8")
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    assert main(["report", str(results), "--format", "reference", "-o", str(blocker)]) == 2
    assert capsys.readouterr().err.startswith("csl-game: error: cannot write")
