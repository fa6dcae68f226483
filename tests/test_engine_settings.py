"""Declaring engines: --engine on every verb, session files, TOML setup files, setup screen."""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path

import pytest

import csl_game.gui
from csl_game.cli import main
from csl_game.errors import ConfigFileError
from csl_game.services.settings import AIEntry, PlayOptions, read_session_engines, read_session_file
from csl_game.services.setup_file import dump_config, load_config
from csl_game.thinker.engine_thinker import EngineSpec

ENGINE = Path(__file__).resolve().parent.parent / "examples" / "engines" / "random_engine.py"
DECLARATION = f"pyrandom={sys.executable} {ENGINE}"
SOURCE = EngineSpec.parse(DECLARATION).source


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[PlayOptions]:
    """The options each window would open with (no window opens)."""
    seen: list[PlayOptions] = []
    monkeypatch.setattr(csl_game.gui, "run_gui", lambda options: seen.append(options) or 0)
    return seen


# ------------------------------------------------------------- command line
@pytest.mark.unit
def test_info_lists_an_engine_with_its_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", "--engine", DECLARATION]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "pyrandom" in x)
    assert f"Engine: {sys.executable} {ENGINE}" in line


@pytest.mark.parametrize("in_process", [[], ["--in-process"]], ids=["worker", "in-process"])
def test_match_plays_an_engine(capsys: pytest.CaptureFixture[str], in_process: list[str]
                               ) -> None:
    code = main(["match", "-W", "sequential", "-R", "pyrandom", "--red-params", "4",
                 "--engine", DECLARATION, "-t", "2000", "--json", *in_process])
    assert code == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["red"] == "RandomPy" and doc["forfeit"] is None
    assert "Red (RandomPy) says:" in captured.err


@pytest.mark.unit
@pytest.mark.parametrize("argv, problem", [
    (["info", "--engine", "nocommand"], "write NAME=COMMAND"),
    (["match", "-W", "e", "--engine", "e=./a", "--engine", "e=./b"], "declared twice"),
])
def test_a_bad_engine_is_bad_input(capsys: pytest.CaptureFixture[str], argv: list[str],
                                   problem: str, opened: list[PlayOptions]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert problem in err and err.count("\n") == 1 and not opened


def test_an_engine_that_cannot_start_is_no_bad_input(opened: list[PlayOptions]) -> None:
    """It fails as the players' setups do, in the window ("The AI failed to
    start", tests/test_gui_setup_failure.py), not as a refused parameter."""
    assert main(["play", "--ai", "ghost", "--engine", "ghost=/no/such/engine"]) == 0
    (options,) = opened
    assert options.ais[0] == AIEntry("ghost", "")


def test_play_takes_an_engine_as_an_ai(opened: list[PlayOptions]) -> None:
    assert main(["play", "--ai", "pyrandom 3", "--ai", "random", "--engine", DECLARATION]) == 0
    (options,) = opened
    assert SOURCE in options.thinker_paths
    assert options.ais[0] == AIEntry("pyrandom", "3")


def test_the_league_plays_an_engine(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["league", "--thinker", "pyrandom", "--thinker", "random", "--engine",
                 DECLARATION, "--games", "1", "--quiet", "-t", "1000"])
    assert code == 0
    assert "RandomPy" in capsys.readouterr().out


# ------------------------------------------------------------- session files
@pytest.mark.unit
@pytest.mark.parametrize("line", [f"--engine {DECLARATION}", f'--engine "{DECLARATION}"',
                                  f"--engine '{DECLARATION}'", f"--engine={DECLARATION}"])
def test_a_session_file_declares_engines_as_the_command_line_does(tmp_path: Path,
                                                                  line: str) -> None:
    games = tmp_path / "games.txt"
    games.write_text(f"{line}   # our engine\npyrandom 7\n\nminimax 2\n", encoding="utf-8")
    assert read_session_engines(games) == [DECLARATION]
    assert read_session_file(games) == [AIEntry("pyrandom", "7"), AIEntry("minimax", "2")]


# ------------------------------------------------------------- TOML files
def toml_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "setup.toml"
    path.write_text(text, encoding="utf-8")
    return path


ENGINE_TABLE = f'[[engines]]\nname = "pyrandom"\ncommand = {json.dumps(DECLARATION[9:])}\n'


@pytest.mark.unit
def test_a_setup_file_declares_engines_its_players_use(tmp_path: Path) -> None:
    path = toml_file(tmp_path, ENGINE_TABLE + '[[players]]\nthinker = "pyrandom"\n')
    options = load_config(path)
    assert options.thinker_paths == (SOURCE,) and options.ais == (AIEntry("pyrandom"),)
    data = tomllib.loads(dump_config(options))
    assert data["engines"] == [{"name": "pyrandom", "command": DECLARATION[9:]}]
    assert load_config(toml_file(tmp_path, dump_config(options))) == options


@pytest.mark.unit
def test_engines_from_the_file_join_those_already_declared(tmp_path: Path) -> None:
    other = EngineSpec.parse("other=./other").source
    options = load_config(toml_file(tmp_path, ENGINE_TABLE), PlayOptions(thinker_paths=(other,)))
    assert options.thinker_paths == (other, SOURCE)


@pytest.mark.unit
@pytest.mark.parametrize("text, problem", [
    ('engines = "x"\n', "key 'engines': must be an array of tables"),
    ('[[engines]]\nname = "x"\n', "key 'engines[1].command': missing"),
    ('[[engines]]\nname = "x"\ncommand = 3\n', "key 'engines[1].command': must be a string"),
    ('[[engines]]\nname = "x"\ncommand = "y"\nargs = "z"\n', "'engines[1].args': unknown key"),
    ('[[engines]]\nname = "a b"\ncommand = "y"\n', "key 'engines[1]': engine name 'a b'"),
])
def test_a_bad_engine_table_is_one_line_naming_its_key(tmp_path: Path, text: str,
                                                       problem: str) -> None:
    with pytest.raises(ConfigFileError, match=re.escape(problem)):
        load_config(toml_file(tmp_path, text))


@pytest.mark.unit
def test_the_setup_screen_lists_engines_among_thinkers() -> None:
    from csl_game.gui.scenes.setup import thinker_choices

    choices = thinker_choices((SOURCE,))
    assert choices["pyrandom"] == "csl_game.thinker.engine_thinker.EngineThinker[pyrandom]"
    assert "random" in choices and "minimax" in choices
