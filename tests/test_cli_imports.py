"""What the command line imports before a verb runs: building the parser and
printing ``--help`` (of one verb, or of csl-game) loads no engine, no runner,
no psutil, no pygame and no server, so ``csl-game VERB --help`` answers at once
(issue 44, item 9). A test of what is imported, not of time: each check runs in
a fresh interpreter and reads its ``sys.modules``."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from csl_game.services import limits, options, settings

HEAVY = ("csl_game.engine", "csl_game.engine.runners", "psutil", "pygame", "csl_game.server")
"""What a parser and its help must not import (a module or any module inside it)."""


def loaded_after(code: str) -> list[str]:
    """The modules of HEAVY (or inside them) that a fresh interpreter has
    imported after running `code`, whose standard output is thrown away."""
    probe = "\n".join([
        "import contextlib, io, json, sys",
        "with contextlib.redirect_stdout(io.StringIO()):",
        textwrap.indent(textwrap.dedent(code), "    "),
        f"heavy = {HEAVY!r}",
        "print(json.dumps(sorted(m for m in sys.modules",
        "                        if any(m == h or m.startswith(h + '.') for h in heavy))))"])
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    found: list[str] = json.loads(done.stdout.splitlines()[-1])
    return found


@pytest.mark.parametrize("argv", [["sprt", "--help"], ["--help"], ["-h"], []],
                         ids=["sprt --help", "--help", "-h", "none"])
def test_the_installed_command_prints_help_without_the_engine(argv: list[str]) -> None:
    """`csl-game sprt --help` as installed (csl_game.launch:main), and csl-game's own help."""
    if not argv:  # the probe itself, without a command: imports nothing heavy either
        assert loaded_after("import csl_game.launch") == []
        return
    assert loaded_after(f"""\
        sys.argv = ["csl-game", *{argv!r}]
        from csl_game.launch import main
        assert main() == 0
        """) == []


def test_every_verbs_help_loads_no_engine() -> None:
    """Each verb's --help (and each alias's), one after another in one process."""
    verbs = [*options.VERBS, *options.ALIASES]
    assert loaded_after(f"""\
        from csl_game.cli import build_parser, main
        build_parser()
        for verb in {verbs!r}:
            assert main([verb, "--help"]) == 0, verb
        """) == []


def test_the_probe_sees_the_engine_once_a_verb_needs_it() -> None:
    """A probe that could never find anything would prove nothing: bad input
    (its message goes through services.narration) and reading the flags load
    the engine, and the probe says so."""
    assert "csl_game.engine" in loaded_after("""\
        from csl_game.cli import main
        assert main(["sprt", "--elo1", "x", "a", "b"]) == 2
        """)
    assert "csl_game.engine.runners" in loaded_after("import csl_game.services.flag_values")


@pytest.mark.unit
def test_the_parser_offers_what_the_settings_take() -> None:
    """The parser's clock choices and pieces are the settings' (which load the engine)."""
    assert options.option("clock").kwargs["choices"] == limits.SETTING["clock"].choices
    assert options.default_pieces(6, 7) == settings.default_pieces(6, 7) == (10, 11)
