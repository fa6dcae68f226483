"""The README's two set-up commands, run literally in a fresh copy of the
repository from its root, as a new user runs them; then a match of every
built-in thinker from that root, in each way the docs start the program.

A checkout's root once held the package folder itself, which the worker
processes imported in place of the installed package (with no thinkers
inside it): every AI forfeited its first move. The package now lives in
src/ and the fork server starts without the current folder on its path.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from doc_blocks import parse_blocks

ROOT = Path(__file__).resolve().parent.parent
BUILTINS = ("random", "sequential", "minimax", "negamax", "mcts")

pytestmark = pytest.mark.skipif(sys.platform == "win32",
                                reason="the README's commands are POSIX shell")


def _setup_commands() -> list[str]:
    """The console blocks of the README's "Set up" section: exactly two."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("## Set up") + 1
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("## "))
    commands = [block.code.strip() for block in parse_blocks("README.md")
                if block.lang == "console" and start < block.line <= end]
    assert len(commands) == 2, commands
    return commands


def _copy_checkout(dest: Path) -> None:
    """The repository's files as they are in the work tree (those git tracks
    or would, where git knows them), without any venv or build output."""
    if (ROOT / ".git").exists() and shutil.which("git"):
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                                 "--exclude-standard"], cwd=ROOT, capture_output=True,
                                check=True).stdout.decode().split("\0")
        files = [name for name in listed if name and (ROOT / name).is_file()]
    else:
        skip = {".venv", ".git", "__pycache__", "build", "dist", ".hypothesis"}
        files = [p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*")
                 if p.is_file() and not skip & set(p.relative_to(ROOT).parts)
                 and not any(part.endswith(".egg-info") for part in p.parts)]
    for name in files:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTEST_ADDOPTS",
                        "PYTEST_CURRENT_TEST", "CSL_SIMULATE")}
    env.update(SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", CSL_GAME_HOME=str(home),
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


def _window_starts(command: str, root: Path, env: dict[str, str]) -> None:
    """Run the first command (install, then start the window); once the
    window's process has run for a few seconds, end it as a user would
    (SIGTERM) and check how it ended."""
    log = root.parent / "install-and-start.log"  # a file: pip says more than a pipe holds
    with log.open("w") as sink:
        shell = subprocess.Popen(["bash", "-c", command], cwd=root, env=env, text=True,
                                 stdout=sink, stderr=subprocess.STDOUT)
    game = None
    deadline = time.monotonic() + 300
    try:
        while game is None and time.monotonic() < deadline and shell.poll() is None:
            top = psutil.Process(shell.pid)  # bash may exec the last command itself
            for child in (top, *top.children(recursive=True)):
                try:
                    words = child.cmdline()
                    if words and not words[0].endswith("bash") and any(
                            word.endswith(os.path.join(".venv", "bin", "csl-game"))
                            for word in words[1:2]):
                        game = child
                except psutil.Error:
                    continue
            time.sleep(0.2)
        assert game is not None, log.read_text(errors="replace")[-3000:]
        time.sleep(4)
        assert game.is_running() and shell.poll() is None, "the window closed by itself"
        game.send_signal(signal.SIGTERM)
        shell.wait(timeout=60)
    finally:
        if shell.poll() is None:
            shell.kill()
            shell.wait()
    out = log.read_text(errors="replace")
    assert shell.returncode == 143, out  # the README: SIGTERM ends it as Ctrl+C does
    assert "Traceback" not in out, out


def _plays(argv: list[str], root: Path, env: dict[str, str]) -> dict[str, object]:
    proc = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result: dict[str, object] = json.loads(proc.stdout.splitlines()[-1])
    assert result["forfeit"] is None, (argv, result["forfeit"], result["detail"])
    return result


SHADOW = '"""A folder named as the package, with none of it inside: imports fine."""\n'


def _beside_a_folder_of_the_same_name(root: Path, env: dict[str, str]) -> None:
    """From a folder holding its own csl_game/ (a checkout of the old layout,
    a user's own folder), the installed program's workers import the program's
    package, under the fork server and spawn alike."""
    shadowed = root.parent / "shadowed"
    (shadowed / "csl_game").mkdir(parents=True)
    (shadowed / "csl_game" / "__init__.py").write_text(SHADOW, encoding="utf-8")
    csl_game = str(root / ".venv" / "bin" / "csl-game")
    spawn = dict(env, PYTHONPATH=str(root / "tests" / "platform_sim"), CSL_SIMULATE="spawn")
    for environment in (env, spawn):
        _plays([csl_game, "match", "-W", "negamax", "-R", "random", "-t", "100", "--json"],
               shadowed, environment)


def _every_builtin_plays(root: Path, env: dict[str, str]) -> None:
    csl_game = str(root / ".venv" / "bin" / "csl-game")
    python = str(root / ".venv" / "bin" / "python")
    for name in BUILTINS:
        _plays([csl_game, "match", "-W", name, "-R", "random", "-t", "100", "--json"],
               root, env)
    _plays([python, "-m", "csl_game", "match", "-W", "negamax", "-R", "minimax", "-t", "100",
            "--json"], root, env)
    spawn = dict(env, PYTHONPATH=str(root / "tests" / "platform_sim"), CSL_SIMULATE="spawn")
    _plays([csl_game, "match", "-W", "mcts", "-R", "negamax", "-t", "100", "--json"],
           root, spawn)
    window = subprocess.run([csl_game, "play", "--auto", "--ai", "negamax", "--ai", "minimax",
                             "-t", "100"], cwd=root, env=env, capture_output=True, text=True,
                            timeout=240)
    assert window.returncode == 0, window.stderr[-2000:]
    assert "could not be set up" not in window.stdout, window.stdout[-2000:]
    assert "Game Over" in window.stdout or "wins" in window.stdout, window.stdout[-2000:]


@pytest.mark.slow
@pytest.mark.long
def test_the_readmes_set_up_commands_from_a_fresh_checkouts_root(tmp_path: Path) -> None:
    install_and_start, install_and_test = _setup_commands()
    assert install_and_start.endswith(".venv/bin/csl-game"), install_and_start
    root = tmp_path / "csl-game"
    _copy_checkout(root)
    assert not (root / "csl_game").exists(), "the package folder is at the root again"
    env = _env(tmp_path / "home")

    _window_starts(install_and_start, root, env)
    _every_builtin_plays(root, env)
    _beside_a_folder_of_the_same_name(root, env)

    # The second command, literally; pytest runs a few quick test files of
    # the copy (not the whole suite again, and not this test).
    quick = "tests/test_board.py tests/test_notation.py tests/test_discovery.py"
    tested = subprocess.run(["bash", "-c", install_and_test], cwd=root, text=True,
                            env=dict(env, PYTEST_ADDOPTS=f"-p no:cacheprovider {quick}"),
                            capture_output=True, timeout=600)
    assert tested.returncode == 0, tested.stdout[-3000:] + tested.stderr[-2000:]
    assert " passed" in tested.stdout and " failed" not in tested.stdout, tested.stdout[-2000:]
    _every_builtin_plays(root, env)

