"""`report --format pgn`: every game of a results file as PGN that Ordo and
BayesElo read, checked by reading it back the way Ordo does (each line's
[White "..."], [Black "..."] and [Result "..."] tags)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from csl_game.cli import main
from csl_game.engine.ratings import bradley_terry
from csl_game.model.notation import parse_moves

SMALL = ["-r", "4", "-c", "5", "-w", "3", "--in-process", "--workers", "2", "-t", "50"]
_TAG = re.compile(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$')
_POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def read_pgn(text: str) -> list[dict[str, str]]:
    """Games as Ordo collects them: a game is complete once White, Black and
    Result were seen; the movetext (after the tags) kept as 'moves'."""
    games, tags = [], {}
    for line in text.splitlines():
        if (m := _TAG.match(line)) is not None:
            tags[m.group(1)] = m.group(2).replace('\\"', '"').replace("\\\\", "\\")
        elif line.strip():
            tags["movetext"] = line
            assert {"White", "Black", "Result"} <= set(tags)
            games.append(tags)
            tags = {}
    return games


def test_the_pgn_of_a_session_reads_back_as_its_games_and_rates_the_same(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    players, results = tmp_path / "players.txt", tmp_path / "r.jsonl"
    players.write_text("sequential\nrandom 1\nminimax 1\n", encoding="utf-8")
    assert main(["session", "-g", str(players), "-q", "--results", str(results), *SMALL]) == 0
    capsys.readouterr()
    assert main(["report", str(results), "--format", "pgn"]) == 0
    games = read_pgn(capsys.readouterr().out)
    docs = sorted((json.loads(line) for line in results.read_text().splitlines()),
                  key=lambda d: d["match"])
    assert len(games) == len(docs) == 6
    for game, doc in zip(games, docs):
        assert game["Round"] == str(doc["match"] + 1)
        assert (game["White"], game["Black"]) == (doc["white"]["name"], doc["red"]["name"])
        expected = {"white": "1-0", "red": "0-1", "draw": "1/2-1/2"}[doc["winner"]]
        assert game["Result"] == expected and game["movetext"].endswith(" " + expected)
        moves = re.fullmatch(r"\{(.*)\} .*", game["movetext"])
        assert moves is not None
        assert parse_moves(moves.group(1)) == [(m["col"], m["shape"] == "square")
                                               for m in doc["moves"]]
        assert game["PlyCount"] == str(len(doc["moves"]))
    # the ratings of the games read back are the report's own
    from_pgn = bradley_terry([(g["White"], g["Black"], _POINTS[g["Result"]]) for g in games])
    assert main(["report", str(results), "--ratings", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)["ratings"]
    assert {r.name: round(r.elo, 1) for r in from_pgn} == {r["name"]: r["elo"] for r in report}


def test_pgn_tags_escape_quotes_and_name_forfeits() -> None:
    from csl_game.services.report import load_report

    base = {"white": {"thinker": "a", "params": "", "name": 'A "quoted" \\ name'},
            "red": {"thinker": "b", "params": "", "name": "B"}, "solution": [],
            "detail": "", "moves": [], "settings": {}, "winner_name": None}
    docs = [{**base, "match": 0, "winner": "red", "forfeit": "timeout"},
            {**base, "match": 1, "winner": "white", "forfeit": "exception"},
            {**base, "match": 2, "winner": "draw", "forfeit": None}]
    games = read_pgn(load_report(docs).pgn())
    assert [g["White"] for g in games] == ['A "quoted" \\ name'] * 3
    assert [g.get("Termination") for g in games] == ["time forfeit", "rules infraction", None]
    assert [g["Result"] for g in games] == ["0-1", "1-0", "1/2-1/2"]
    assert [g["movetext"] for g in games] == ["0-1", "1-0", "1/2-1/2"]
