"""What the command loads before it answers: ``csl-game --version`` loads no
more of the package than its version (the goal: under 0.1 s, Python's own
start-up being about 0.03 s), and the public API is still all there, each
name loaded when first asked for."""

from __future__ import annotations

import subprocess
import sys

import pytest

import csl_game

LOADED = ("import sys; from csl_game.launch import main; sys.argv = ['csl-game', '--version'];"
          " code = main(); print(sorted(m for m in sys.modules if m.startswith('csl_game')));"
          " print(code)")


def test_version_loads_nothing_of_the_package_but_its_version() -> None:
    done = subprocess.run([sys.executable, "-c", LOADED], capture_output=True, text=True,
                          timeout=60)
    version, loaded, code = done.stdout.splitlines()
    assert version == f"csl-game {csl_game.__version__}" and code == "0"
    assert loaded == "['csl_game', 'csl_game.launch']", loaded


def test_the_version_is_the_parsers(capsys: pytest.CaptureFixture[str]) -> None:
    from csl_game.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["--version"])
    parsers = capsys.readouterr().out
    done = subprocess.run([sys.executable, "-m", "csl_game", "--version"], capture_output=True,
                          text=True, timeout=60)
    assert done.stdout == parsers == f"csl-game {csl_game.__version__}\n"
    assert done.returncode == 0


def test_every_public_name_is_there_when_asked_for() -> None:
    fresh = ("import csl_game; names = csl_game.__all__;"
             " missing = [n for n in names if not hasattr(csl_game, n)];"
             " from csl_game import Board, MatchConfig, ThinkerPrototype;"
             " print(missing, Board.__module__, set(names) <= set(dir(csl_game)))")
    done = subprocess.run([sys.executable, "-c", fresh], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.strip() == "[] csl_game.model.board True", done.stderr
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        csl_game.Nothing  # noqa: B018
