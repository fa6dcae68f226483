"""One match number everywhere: a session's progress line, the results file,
`report` and `replay` name the same match by the same number, whatever order
the matches end in."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from csl_game.cli import main

PLAYERS = "random 1\nsequential\nminimax 1\nrandom 2\n"


def test_every_view_gives_a_match_the_same_number(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "game.txt"
    game.write_text(PLAYERS)
    results = tmp_path / "r.jsonl"
    # two at once and uneven thinkers: matches end out of order
    assert main(["session", "-g", str(game), "-r", "4", "-c", "4", "-w", "3", "-t", "100",
                 "--workers", "2", "--results", str(results)]) == 0
    progress = {int(m[1]): (m[2], m[3]) for m in re.finditer(
        r"^Match (\d+)/12: (.+?) \(White\) vs (.+?) \(Red\)", capsys.readouterr().out, re.M)}
    assert sorted(progress) == list(range(1, 13))

    assert main(["report", str(results)]) == 0
    rows = re.findall(r"^\| (\d+) \| \**(.+?)\** \| \**(.+?)\** \|", capsys.readouterr().out,
                      re.M)
    report = {int(n): (w, r) for n, w, r in rows}

    assert main(["replay", "--list", str(results)]) == 0
    listed = {int(m[1]): (m[2], m[3]) for m in re.finditer(
        r"^\s*(\d+)\s+(.+?) \(White\) vs (.+?) \(Red\)", capsys.readouterr().out, re.M)}

    assert progress == report == listed
    for number in (1, 7, 12):
        assert main(["replay", "--console", "--match", str(number), str(results)]) == 0
        first = capsys.readouterr().out.splitlines()[0]
        white, red = progress[number]
        assert first == f"Match {number}: {white} (White) vs {red} (Red)"
