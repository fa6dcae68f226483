"""Every verb's options come from one table (csl_game.services.options): the
parser of each verb has exactly the table's rows for it, with their flags,
help and defaults; one spelling per option across verbs, old ones kept."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from csl_game.cli import build_parser, main
from csl_game.services.flag_values import match_config, unknown_track_config
from csl_game.services.options import OPTIONS, VERBS, options_of


def _verb_parser(verb: str) -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[verb]


def _actions(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {a.dest: a for a in parser._actions if a.dest != "help"}


@pytest.mark.unit
@pytest.mark.parametrize("verb", VERBS)
def test_each_verbs_parser_is_the_tables(verb: str) -> None:
    actions = _actions(_verb_parser(verb))
    rows = {o.dest: o for o in options_of(verb)}
    assert set(actions) == set(rows), f"{verb}: flags outside the table or missing"
    for dest, option in rows.items():
        action = actions[dest]
        assert tuple(action.option_strings) == (() if option.positional
                                                else option.flags_for(verb))
        assert action.help == option.help_for(verb).replace("%", "%%")
        if not option.positional:
            assert action.default == option.default_for(verb), (verb, dest)
            assert action.required == (verb in option.required)


@pytest.mark.unit
def test_one_spelling_per_flag_across_verbs() -> None:
    """A flag means one option in every verb that takes it; the one short flag
    shared is -o, the board's round pieces, and report's --output (report
    takes no board flags; both are documented spellings)."""
    meaning: dict[str, set[str]] = {}
    for option in OPTIONS:
        for flag in option.flags:
            meaning.setdefault(flag, set()).add(option.dest)
    shared = {flag: dests for flag, dests in meaning.items() if len(dests) > 1}
    assert shared == {"-o": {"round_pieces", "output"}}
    for verb in VERBS:  # within a verb, a flag means one option
        flags = [f for o in options_of(verb) for f in o.flags_for(verb)]
        assert len(flags) == len(set(flags)), verb
    meaning = {flag: dests.pop() for flag, dests in meaning.items() if flag != "-o"}
    assert meaning["-g"] == "game_file" and "--games" in meaning
    assert {"--points", "--points-per-win"} <= set(meaning)
    for verb in ("play", "session", "league", "report"):  # points: both spellings everywhere
        dests = {o.dest for o in options_of(verb)}
        assert {"points", "points_per_win", "points_per_draw", "points_per_loss"} <= dests


@pytest.mark.unit
def test_console_verbs_give_ais_the_competition_limit_and_humans_none(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "-W", "sequential", "-R", "sequential", "--json",
                 "--in-process"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["time_limit_ms"] == 200
    for verb in ("match", "session", "league"):
        assert "200 ms a move" in _verb_parser(verb).format_help()


def test_a_human_at_the_keyboard_is_never_timed_out(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    import io
    import time

    class Slow(io.StringIO):
        def readline(self, *args: object) -> str:
            time.sleep(0.3)  # longer than the AI's limit below
            return super().readline()

    monkeypatch.setattr("sys.stdin", Slow("1\n2\n1\n2\n1\n2\n1\n" * 6))
    assert main(["match", "-R", "sequential", "-t", "100", "-r", "4", "-c", "4", "-w", "3",
                 "--in-process", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["forfeit"] is None, doc


@pytest.mark.unit
def test_points_spelled_either_way(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "r.jsonl"
    games = tmp_path / "g.txt"
    games.write_text("sequential\nrandom 1\n", encoding="utf-8")
    assert main(["session", "-g", str(games), "--results", str(results), "-q", "-r", "4",
                 "-c", "4", "-w", "3", "--in-process"]) == 0
    capsys.readouterr()
    tables = []
    for flags in (["--points", "2", "1", "0"], ["--points-per-win", "2"]):
        assert main(["report", str(results), "--format", "json", *flags]) == 0
        tables.append(json.loads(capsys.readouterr().out))
    assert tables[0] == tables[1]
    assert main(["report", str(results), "--points", "2", "1", "0", "--points-per-win", "3"]) == 2
    assert "drop --points-per-win" in capsys.readouterr().err


@pytest.mark.unit
def test_league_takes_g_as_its_thinkers_file_and_old_g_n_as_games(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "players.txt"
    games.write_text("sequential\nrandom 3\n", encoding="utf-8")
    common = ["-r", "4", "-c", "4", "-w", "3", "-q", "--in-process", "--opening-plies", "0"]
    assert main(["league", "-g", str(games), "--games", "1", *common]) == 0
    out = capsys.readouterr().out
    assert "2 games" in out and "Sequential" in out and "Random" in out
    assert main(["league", "-g", "1", "--thinker", "sequential", "--thinker", "random 2",
                 *common]) == 0
    assert "2 games" in capsys.readouterr().out


@pytest.mark.unit
def test_board_flags_are_checked_alike_in_every_verb(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "g.txt"
    games.write_text("sequential\nrandom\n", encoding="utf-8")
    for verb in ("match", "session", "league", "play"):
        extra = ["-g", str(games)] if verb == "session" else []
        assert main([verb, *extra, "-r", "41"]) == 2
        assert "-r/--rows" in capsys.readouterr().err


@pytest.mark.unit
@pytest.mark.parametrize("verb", VERBS)
def test_every_verbs_help_prints(verb: str, capsys: pytest.CaptureFixture[str]) -> None:
    """--help of every verb prints its usage (a % in a help text once broke it)."""
    assert main([verb, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: csl-game {verb}") and "options:" in out
    if verb == "report":
        assert "95 % interval" in out


PLAYING = ("play", "match", "session", "league", "sprt")


@pytest.mark.unit
def test_the_match_clock_is_one_option_of_every_verb_that_plays() -> None:
    for verb in VERBS:
        dests = {o.dest for o in options_of(verb)}
        assert ({"clock", "time_margin"} <= dests) == (verb in PLAYING), verb
    for verb, extra in (("match", []), ("session", ["-g", "g.txt"]), ("league", []),
                        ("sprt", ["random", "sequential"]), ("play", [])):
        args = build_parser().parse_args([verb, *extra])
        assert (match_config(args).clock, match_config(args).time_margin_ms) == ("cpu", 0)
        args = build_parser().parse_args([verb, *extra, "--clock", "Wall", "--time-margin",
                                          "40"])
        config = match_config(args)
        assert (config.clock, config.time_margin_ms) == ("wall", 40), verb


@pytest.mark.unit
def test_the_unknown_track_keeps_the_clock_given() -> None:
    args = build_parser().parse_args(["session", "-g", "g.txt", "--unknown-track", "7", "8",
                                      "--clock", "wall", "--time-margin", "15"])
    config = unknown_track_config(args)
    assert (config.time_limit_ms, config.clock, config.time_margin_ms) == (200, "wall", 15)


@pytest.mark.unit
@pytest.mark.parametrize("verb", PLAYING)
@pytest.mark.parametrize("flags, message", [
    (["--clock", "sundial"], "argument --clock: invalid choice: 'sundial' (choose from "
                             "'cpu', 'wall')"),
    (["--time-margin", "-5"], "--time-margin: must be "),
    (["--time-margin", "60001"], "--time-margin: "),
    (["--time-margin", "soon"], "argument --time-margin: invalid int value: 'soon'"),
])
def test_a_bad_clock_or_margin_is_one_line_and_exit_2(
        verb: str, flags: list[str], message: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("csl_game.gui.run_gui", lambda options: pytest.fail("a window opened"))
    games = tmp_path / "g.txt"
    games.write_text("sequential\nrandom\n", encoding="utf-8")
    extra = {"session": ["-g", str(games)], "sprt": ["sequential", "random"],
             "match": ["-W", "sequential", "-R", "random"]}.get(verb, [])
    assert main([verb, *extra, *flags, "--in-process"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("csl-game: error: ") and message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
