"""--version, and every verb whose reader stops reading (`csl-game VERB | head -1`)
ends quietly with status 141, no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

import csl_game
from csl_game.cli import BROKEN_PIPE, main

FAKES = str(Path(__file__).parent / "fakes")


@pytest.mark.unit
def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"csl-game {csl_game.__version__}\n"
    assert version("csl-game") == csl_game.__version__


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pipes")
    (folder / "players.txt").write_text("random 1\nsequential\n", encoding="utf-8")
    path = folder / "r.jsonl"
    assert main(["session", "-g", str(folder / "players.txt"), "--results", str(path),
                 "--quiet", "--in-process", "--workers", "1"]) == 0
    return path


def run_into_a_closed_pipe(*args: str) -> subprocess.CompletedProcess[str]:
    """Run csl-game with standard output a pipe nobody reads any more."""
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first write: the pipe is broken
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    try:
        return subprocess.run([sys.executable, "-m", "csl_game", *args], stdout=write,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                              env=env, timeout=120, check=False)
    finally:
        os.close(write)


VERBS = [
    ("info",),
    ("--help",),
    ("--version",),
    ("match", "-W", "sequential", "-R", "random", "--in-process"),
    ("match", "-W", "sequential", "-R", "nomove", "--json", "--thinkers", FAKES),
    ("session", "-g", "{players}", "--workers", "1"),
    ("report", "{results}"),
    ("replay", "{results}", "--match", "1", "--console"),
    ("replay", "{results}", "--list"),
    ("league", "--thinker", "random", "--thinker", "sequential", "--games", "1", "-t", "50"),
    ("play", "--ai", "sequential", "--ai", "random", "--auto", "--in-process"),
]


@pytest.mark.parametrize("args", VERBS, ids=lambda a: " ".join(a[:2]))
def test_a_closed_pipe_ends_quietly(results: Path, args: tuple[str, ...]) -> None:
    paths = {"results": str(results), "players": str(results.with_name("players.txt"))}
    proc = run_into_a_closed_pipe(*(a.format(**paths) for a in args))
    # argparse drops what --help and --version cannot write, and exits 0.
    expected = (0, BROKEN_PIPE) if args[0].startswith("--") else (BROKEN_PIPE,)
    assert proc.returncode in expected, proc.stderr
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr
    assert "Exception ignored" not in proc.stderr, proc.stderr


@pytest.mark.unit
def test_match_json_still_goes_to_stdout_whole(capsys: pytest.CaptureFixture[str]) -> None:
    # The flush that catches a broken pipe must not get in the way of normal output.
    assert main(["match", "-W", "sequential", "-R", "nomove", "--json", "--thinkers",
                 FAKES, "--in-process"]) == 0
    assert json.loads(capsys.readouterr().out)["forfeit"] == "no_move"
