"""The engine lab's options as fastchess and cutechess-cli users know them:
--nodes (and the thinkers' nodes=N), --no-swap, league's --report-every,
--pgnout, the book's --openings-order/-start/-plies (a PGN read back as a
book), --log, and bot --connect-timeout."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from csl_game.cli import main
from csl_game.services.openings import arrange, read_book
from csl_game.thinker.api import CancellationToken, MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

SMALL = ["-r", "4", "-c", "5", "-w", "3", "--in-process", "--workers", "2"]
SPRT = ["sprt", "--elo0", "0", "--elo1", "20", "--json", "-q", *SMALL]


def _docs(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _games(path: Path) -> list[tuple[object, list[tuple[object, object]]]]:
    return sorted((d["match"], [(m["col"], m["shape"]) for m in d["moves"]])  # type: ignore[attr-defined]
                  for d in _docs(path))


# ---------------------------------------------------------------- nodes=N
@pytest.mark.unit
@pytest.mark.parametrize("name, params, said", [
    ("negamax", "nodes=700", "nodes=700"),
    ("mcts", "nodes=150 seed=5", "playouts=150")])
def test_a_node_limit_stops_the_search_at_the_same_node_every_time(
        name: str, params: str, said: str) -> None:
    config = MatchConfig(time_limit_ms=60_000)
    moves, infos = [], []
    for _ in range(2):
        info: list[str] = []
        thinker = ThinkerPrototype(name, params, config).create(info.append)
        move = thinker.think(config.new_board(), CancellationToken(60.0, time.process_time))
        moves.append((move.column, move.shape))
        infos.append(info[-1])
    assert moves[0] == moves[1]
    assert all(said in text.split() for text in infos), infos
    assert "N" in str(thinker)  # NegamaxN700, MCTSN150S5


@pytest.mark.unit
def test_mcts_keeps_its_tree_bound_as_tree() -> None:
    info: list[str] = []
    config = MatchConfig(time_limit_ms=60_000)
    thinker = ThinkerPrototype("mcts", "tree=20 seed=1 playouts=200", config).create(info.append)
    thinker.think(config.new_board(), CancellationToken(60.0, time.process_time))
    assert "tree=20" in info[-1].split()


@pytest.mark.unit
def test_sprt_with_nodes_plays_the_same_games_twice(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    runs = []
    for i in range(2):
        results = tmp_path / f"r{i}.jsonl"
        assert main([*SPRT, "negamax", "negamax tt=4096", "--nodes", "200", "-t", "5000",
                     "--max-games", "4", "--results", str(results)]) == 0
        runs.append(_games(results))
        doc = _docs(results)[0]
        assert {doc["white"]["name"], doc["red"]["name"]} == {  # type: ignore[index]
            "NegamaxN200", "NegamaxTT4096N200"}
    assert runs[0] == runs[1] and len(runs[0]) == 4
    capsys.readouterr()


@pytest.mark.unit
def test_nodes_says_which_thinkers_play_by_the_clock(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*SPRT, "negamax", "sequential", "--nodes", "300", "-t", "5000",
                 "--max-games", "2"]) == 0
    err = capsys.readouterr().err
    assert "--nodes 300: sequential take no node limit (negamax and mcts do)" in err
    assert "negamax take" not in err


# ---------------------------------------------------------------- -noswap
@pytest.mark.unit
@pytest.mark.parametrize("flag", ["--no-swap", "-noswap"])
def test_no_swap_plays_each_pair_with_the_same_colours(
        flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "r.jsonl"
    assert main([*SPRT, "sequential", "random 1", "--max-games", "4", "--results",
                 str(results), flag]) == 0
    docs = _docs(results)
    assert len(docs) == 4 and {d["white"]["name"] for d in docs} == {"Sequential"}  # type: ignore[index]
    doc = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    # NEW is White in every game: its points follow White's results
    white_wins = sum(d["winner"] == "white" for d in docs)
    assert doc["wins"] == white_wins and doc["pairs"] == 2


@pytest.mark.unit
def test_a_resume_that_changes_no_swap_is_refused(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "r.jsonl"
    common = [*SPRT, "sequential", "random 1", "--results", str(results)]
    assert main([*common, "--max-games", "2", "--no-swap"]) == 0
    assert main([*SPRT, "sequential", "random 1", "--max-games", "4", "--resume",
                 str(results)]) == 2
    assert "(--no-swap; this run: colours swapped)" in capsys.readouterr().err
    assert main([*SPRT, "sequential", "random 1", "--max-games", "4", "--resume",
                 str(results), "--no-swap"]) == 0
    assert len(_docs(results)) == 4


@pytest.mark.unit
def test_session_no_swap_plays_each_pairing_twice_with_its_colours(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "g.txt"
    games.write_text("sequential\nrandom 1\nrandom 2\n", encoding="utf-8")
    pairs = {}
    for flags in ([], ["--no-swap"]):
        results = tmp_path / f"r{len(flags)}.jsonl"
        assert main(["session", "-g", str(games), "-q", "--results", str(results), *SMALL,
                     *flags]) == 0
        pairs[bool(flags)] = sorted((d["white"]["name"], d["red"]["name"])  # type: ignore[index]
                                    for d in _docs(results))
    assert len(pairs[True]) == len(pairs[False]) == 6
    assert len(set(pairs[False])) == 6  # each ordered pair once
    assert len(set(pairs[True])) == 3 and all(pairs[True].count(p) == 2 for p in pairs[True])
    capsys.readouterr()


# ---------------------------------------------------------------- league --report-every
@pytest.mark.unit
def test_league_reports_every_n_games(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["league", "--thinker", "sequential", "--thinker", "random 1", "--games", "3",
                 "--report-every", "4", *SMALL]) == 0
    err = capsys.readouterr().err
    lines = re.findall(r"^Games (\d+)/6: 1\. .* pts .*$", err, re.M)
    assert lines == ["4", "6"] and "Game 1/6" not in err


# ---------------------------------------------------------------- PGN out, books
@pytest.mark.unit
def test_pgnout_writes_each_game_and_reads_back_as_the_book(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    book = tmp_path / "book.txt"
    book.write_text("2r 2s 1r\n0r 4s\n3r 1s\n", encoding="utf-8")
    pgn, results = tmp_path / "g.pgn", tmp_path / "r.jsonl"
    assert main([*SPRT, "sequential", "random 1", "--max-games", "6", "--openings", str(book),
                 "-pgnout", str(pgn), "--results", str(results)]) == 0
    text = pgn.read_text(encoding="utf-8")
    rounds = [int(r) for r in re.findall(r'^\[Round "(\d+)"\]$', text, re.M)]
    # one game a results line, in the order they ended
    assert rounds == [int(d["match"]) + 1 for d in _docs(results)]  # type: ignore[call-overload]
    assert text.count('[Event "csl-game sprt"]') == 6 and "{book}" in text
    config = MatchConfig(rows=4, cols=5, win_sequence=3)
    assert read_book(pgn, config) == read_book(book, config)
    # the PGN as a book, from its second opening, cut to one ply
    again = tmp_path / "again.jsonl"
    assert main([*SPRT, "sequential", "random 1", "--max-games", "4", "--openings", str(pgn),
                 "--openings-order", "sequential", "--openings-start", "2",
                 "--openings-plies", "1", "--results", str(again)]) == 0
    firsts = [(d["match"], d["moves"][0]["col"]) for d in _docs(again)]  # type: ignore[index]
    assert sorted(firsts) == [(0, 0), (1, 0), (2, 3), (3, 3)]  # from the second: 0r, then 3r
    capsys.readouterr()


@pytest.mark.unit
def test_arrange_cuts_orders_and_starts_a_book() -> None:
    a, b, c = ((2, 0), (2, 1)), ((0, 0), (4, 1)), ((2, 0), (3, 1))
    book = [a, b, c]
    assert arrange(book) == book
    assert arrange(book, plies=1) == [((2, 0),), ((0, 0),)]  # a and c are one opening cut
    assert arrange(book, start=3) == [c, a, b]
    shuffled = arrange(book * 4, "random", seed=3)
    assert sorted(shuffled) == sorted(book * 4) and shuffled != book * 4
    assert arrange(book * 4, "random", seed=3) == shuffled


@pytest.mark.unit
@pytest.mark.parametrize("argv, words", [
    (["--nodes", "0"], "--nodes must be at least 1"),
    (["--openings-start", "99"], "--openings-start must be from 1 to"),
    (["--openings-plies", "5"], "--openings-plies without --openings must be from 0 to 2"),
    (["--pgnout", "."], "cannot write PGN file ."),
    (["--log", "."], "cannot write log file ."),
    (["--openings-order", "shuffled"], "invalid choice"),
])
def test_bad_lab_options_are_one_line(argv: list[str], words: str,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*SPRT, "sequential", "random", "--max-games", "2", *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.unit
def test_session_book_options_need_a_book(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "g.txt"
    games.write_text("sequential\nrandom 1\n", encoding="utf-8")
    assert main(["session", "-g", str(games), "--openings-start", "2", *SMALL]) == 2
    assert "--openings-start needs an opening book" in capsys.readouterr().err


# ---------------------------------------------------------------- --log
@pytest.mark.unit
def test_log_says_what_the_run_did_with_times(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "run.log"
    assert main([*SPRT, "sequential", "random 1", "--max-games", "4", "--log", str(log)]) == 0
    lines = log.read_text(encoding="utf-8").splitlines()
    stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z "
    assert all(re.match(stamp, line) for line in lines), lines
    assert "started: csl-game sprt" in lines[0] and "--log" in lines[0]
    assert sum(" ended: " in line and "(White) vs" in line for line in lines) == 4
    assert "ended, inconclusive: Games 4" in lines[-1]
    capsys.readouterr()


# ---------------------------------------------------------------- bot
def test_a_bot_that_never_connected_gives_up(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    assert main(["bot", f"http://127.0.0.1:{port}", "random", "--connect-timeout", "0.5"]) == 2
    assert time.monotonic() - started < 30
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "never answered the bot in 0.5 s" in err[0]
    assert main(["bot", f"http://127.0.0.1:{port}", "random", "--connect-timeout", "-1"]) == 2


# ---------------------------------------------------------------- -draw, -resign
@pytest.mark.unit
def test_score_rules_resign_and_draw_by_the_scores() -> None:
    from types import SimpleNamespace

    from csl_game.model.board import Winner
    from csl_game.services.score_rules import ScoreRules

    def moves(*scores: float | None) -> tuple[object, ...]:
        return tuple(SimpleNamespace(figures=() if s is None else (("score", s),))
                     for s in scores)

    board = MatchConfig().new_board()
    resign = ScoreRules(resign={"movecount": 2, "score": 500})
    # White's moves are the even ones: its last two scored -600 and -700
    assert resign(board, moves(None, None, -600, 10, -700)) == (
        Winner.RED, "adjudicated: White resigns (its score -500 or below for 2 moves)")
    assert resign(board, moves(None, None, None, 10, -700)) is None  # a book move breaks it
    assert resign(board, moves(-600, 10, -400)) is None
    draw = ScoreRules(draw={"movenumber": 2, "movecount": 1, "score": 20})
    assert draw(board, moves(5, -5)) is None  # before move 2
    assert draw(board, moves(300, 5, 19, -20))[0] is Winner.DRAW  # type: ignore[index]
    assert draw(board, moves(300, 5, 19, -21)) is None


@pytest.mark.unit
def test_sprt_adjudicates_by_the_scores_and_records_the_rules(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "r.jsonl"
    common = ["sprt", "negamax depth=3", "negamax depth=1", "--json", "-q", "-r", "5", "-c",
              "6", "-w", "4", "--in-process", "--workers", "2", "-t", "5000",
              "--results", str(results)]
    assert main([*common, "--max-games", "2", "-draw", "movenumber=0", "movecount=1",
                 "score=1000000000"]) == 0
    docs = _docs(results)
    assert all(d["winner"] == "draw" and len(d["moves"]) == 4  # type: ignore[arg-type]
               and "a draw by the scores" in d["adjudicated"] for d in docs)  # type: ignore[operator]
    assert docs[0]["sprt"]["draw"] == "movenumber=0 movecount=1 score=1000000000"  # type: ignore[index]
    capsys.readouterr()
    assert main([*common[:-2], "--max-games", "4", "--resume", str(results)]) == 2
    assert "(--draw movenumber=0 movecount=1 score=1000000000; this run: no --draw)" in \
        capsys.readouterr().err


@pytest.mark.unit
@pytest.mark.parametrize("argv, words", [
    (["--resign", "movecount=2"], "--resign needs score=N"),
    (["--resign", "moves=2", "score=3"], "--resign takes movecount=N score=N, got 'moves=2'"),
    (["--draw", "movecount=0", "score=3"], "--draw: movecount must be at least 1"),
    (["--draw", "movecount=x", "score=3"], "--draw: movecount must be a whole number"),
])
def test_bad_score_rules_are_one_line(argv: list[str], words: str,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*SPRT, "sequential", "random", "--max-games", "2", *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1
