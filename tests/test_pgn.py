"""`report --format pgn`: every game of a results file as PGN that Ordo and
BayesElo read, checked by reading it back the way Ordo does (each line's
[White "..."], [Black "..."] and [Result "..."] tags)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from csl_game.cli import main
from csl_game.engine.ratings import bradley_terry
from csl_game.errors import ConfigError
from csl_game.model.notation import parse_moves
from csl_game.services.openings import read_book
from csl_game.thinker.api import MatchConfig

SMALL = ["-r", "4", "-c", "5", "-w", "3", "--in-process", "--workers", "2", "-t", "50"]
_TAG = re.compile(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$')
_POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def read_pgn(text: str) -> list[dict[str, str]]:
    """Games as Ordo collects them: a game is complete once White, Black and
    Result were seen; its movetext (the lines after the tags) kept, joined,
    as 'movetext'."""
    games: list[dict[str, str]] = []
    tags: dict[str, str] = {}
    for line in text.splitlines():
        if (m := _TAG.match(line)) is not None:
            if "movetext" in tags:
                games.append(tags)
                tags = {}
            tags[m.group(1)] = m.group(2).replace('\\"', '"').replace("\\\\", "\\")
        elif line.strip():
            assert {"White", "Black", "Result"} <= set(tags) and len(line) <= 79
            tags["movetext"] = f"{tags['movetext']} {line}" if "movetext" in tags else line
    return games + ([tags] if tags else [])


_MOVE_NUMBER = re.compile(r"^(\d+)(\.|\.\.\.)$")


def pgn_moves(movetext: str) -> tuple[list[str], list[int], str]:
    """(the moves, the plies marked {book}, the result) of a movetext, read by
    PGN's rules (export format): a number before each White move, and before
    a Black move that follows a comment; symbols; comments in braces."""
    tokens = re.findall(r"\{[^}]*\}|\S+", movetext)
    moves: list[str] = []
    book: list[int] = []
    last = "number"  # what came before this token: a number, a move or a comment
    for token in tokens[:-1]:
        if token.startswith("{"):
            book += [len(moves) - 1] if token == "{book}" else []
            last = "comment"
        elif (number := _MOVE_NUMBER.match(token)) is not None:
            assert int(number.group(1)) == len(moves) // 2 + 1, movetext
            assert (number.group(2) == ".") == (len(moves) % 2 == 0), movetext
            last = "number"
        else:
            assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_+#=:-]*", token), token
            white = len(moves) % 2 == 0
            assert last == "number" or not (white or last == "comment"), movetext
            moves.append(token)
            last = "move"
    return moves, book, tokens[-1]


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
        assert game["Result"] == expected
        moves, book, result = pgn_moves(game["movetext"])
        assert result == expected and book == []
        assert parse_moves(" ".join(moves)) == [(m["col"], m["shape"] == "square")
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


def test_the_pgn_of_a_tc_session_names_variant_board_clock_and_date_and_reads_back_as_its_book(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    players, book = tmp_path / "players.txt", tmp_path / "book.txt"
    results, pgn = tmp_path / "r.jsonl", tmp_path / "games.pgn"
    players.write_text("negamax depth=1\nrandom 1\n", encoding="utf-8")
    book.write_text("2r 2s\n3r 1s 4r\n", encoding="utf-8")
    board = ["-r", "5", "-c", "6", "-w", "4"]
    assert main(["session", "-g", str(players), "-q", "--results", str(results), *board,
                 "--tc", "2+0.05", "--openings", str(book), "--in-process"]) == 0
    today = datetime.now(UTC).strftime("%Y.%m.%d")
    capsys.readouterr()
    assert main(["report", str(results), "--format", "pgn"]) == 0
    pgn.write_text(capsys.readouterr().out, encoding="utf-8")
    games = read_pgn(pgn.read_text(encoding="utf-8"))
    docs = sorted((json.loads(line) for line in results.read_text().splitlines()),
                  key=lambda d: d["match"])
    assert len(games) == len(docs) == 4
    for game, doc in zip(games, docs):
        assert {k: game[k] for k in ("Variant", "Rows", "Cols", "WinSequence", "RoundPieces",
                                     "SquarePieces", "TimeControl", "Date")} == {
            "Variant": "colorshapelinks", "Rows": "5", "Cols": "6", "WinSequence": "4",
            "RoundPieces": "7", "SquarePieces": "8", "TimeControl": "2+0.05", "Date": today}
        moves, marked, _ = pgn_moves(game["movetext"])
        assert parse_moves(" ".join(moves)) == [(m["col"], m["shape"] == "square")
                                                for m in doc["moves"]]
        assert marked == list(range(doc["book"])) and doc["book"] in (2, 3)
    config = MatchConfig(rows=5, cols=6, win_sequence=4)
    assert read_book(pgn, config) == read_book(book, config)
    with pytest.raises(ConfigError, match=r"games.pgn:\d+: a game on a 5x6 board"):
        read_book(pgn, MatchConfig())
    assert main(["league", "--thinker", "sequential", "--thinker", "random 1", "--openings",
                 str(pgn), "--games", "2", "-q", *board, "--in-process"]) == 0
    assert "4 games" in capsys.readouterr().out


def test_a_per_move_limit_is_a_time_control_per_move_and_a_pgn_without_book_is_no_book(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    players, results = tmp_path / "players.txt", tmp_path / "r.jsonl"
    players.write_text("sequential\nrandom 1\n", encoding="utf-8")
    assert main(["session", "-g", str(players), "-q", "--results", str(results),
                 *SMALL]) == 0
    capsys.readouterr()
    assert main(["report", str(results), "--format", "pgn"]) == 0
    out = capsys.readouterr().out
    assert {g["TimeControl"] for g in read_pgn(out)} == {"0.05/move"}
    (tmp_path / "games.pgn").write_text(out, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"holds no opening \(from a PGN file"):
        read_book(tmp_path / "games.pgn", MatchConfig(rows=4, cols=5, win_sequence=3))
