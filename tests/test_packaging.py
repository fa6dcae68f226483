"""The package as users get it: the sdist holds the whole checkout, the wheel's
metadata is complete, and a fresh venv from the wheel lists and plays the
built-in thinkers from a folder that holds its own `thinkers` package.

Marked `packaging`: it builds both distributions (python -m build, in an
isolated environment) and installs the wheel with its dependencies into a new
venv, about a minute the first time (pip caches the downloads). It runs in CI
with the rest; `-m "not packaging"` leaves it out while working.
"""

from __future__ import annotations

import email
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import csl_game

pytestmark = [pytest.mark.packaging, pytest.mark.slow, pytest.mark.long]

ROOT = Path(__file__).resolve().parent.parent
VERSION = csl_game.__version__
BIN = "Scripts" if os.name == "nt" else "bin"


def _run(*args: str | Path, cwd: Path = ROOT, timeout: float = 600,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env, check=False)
    assert proc.returncode == 0, f"{args}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist, and the wheel built from it (python -m build builds both so)."""
    out = tmp_path_factory.mktemp("dist")
    _run(sys.executable, "-m", "build", "--outdir", out, ROOT)
    return out


def _sdist(dist: Path) -> Path:
    (path,) = dist.glob("csl_game-*.tar.gz")
    return path


def _wheel(dist: Path) -> Path:
    (path,) = dist.glob("csl_game-*.whl")
    return path


def _checkout_files() -> set[str]:
    """The files of the checkout (git's list, or the files on disk in an unpacked sdist)."""
    if (ROOT / ".git").exists():
        listed = _run("git", "ls-files", "-z").stdout.split("\0")
        return {name for name in listed if name and (ROOT / name).is_file()} - {".gitignore"}
    skip = {"__pycache__", ".pytest_cache", ".hypothesis", "csl_game.egg-info", ".venv"}
    return {p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*")
            if p.is_file() and not skip & set(p.relative_to(ROOT).parts)
            and p.suffix != ".pyc" and p.name != "PKG-INFO" and p.name != "setup.cfg"}


def test_sdist_holds_everything_the_checkout_has(dist: Path) -> None:
    with tarfile.open(_sdist(dist)) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    missing = _checkout_files() - names
    assert not missing, f"the sdist leaves out {sorted(missing)}"
    for needed in ("tests/fakes/fake_thinkers.py", "tests/misbehaving/misbehaving_thinkers.py",
                   "tests/gui_events.py", "docs/thinkers.md", "LICENSE", "CHANGELOG.md",
                   "MANIFEST.in", "benchmarks/bench_enums.py", "thinkers/minimax.py"):
        assert needed in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


def test_wheel_metadata_and_contents(dist: Path) -> None:
    with zipfile.ZipFile(_wheel(dist)) as whl:
        names = set(whl.namelist())
        info = f"csl_game-{VERSION}.dist-info"
        meta = email.message_from_string(whl.read(f"{info}/METADATA").decode())
    assert meta["Version"] == VERSION and meta["Name"] == "csl-game"
    assert meta["License-Expression"] == "MIT" and "License" not in meta
    assert set(meta.get_all("License-File") or ()) == {"LICENSE", "assets/fonts/LICENSE"}
    assert f"{info}/licenses/LICENSE" in names
    classifiers = meta.get_all("Classifier") or []
    assert "Topic :: Games/Entertainment :: Board Games" in classifiers
    assert not [c for c in classifiers if c.startswith("License ::")]  # the expression says it
    assert any(url.startswith("Reference framework, https://") for url in
               meta.get_all("Project-URL") or ())
    for path in ("csl_game/thinkers/minimax.py", "csl_game/assets/theme.json",
                 "csl_game/assets/fonts/DejaVuSans.ttf", "csl_game/py.typed",
                 "csl_game/model/notation.py", "csl_game/gui/scenes/replay.py",
                 "csl_game/examples/engines/random_engine.c",
                 "csl_game/examples/engines/thinking_engine.py",
                 "csl_game/examples/csharp/CslEngineHost.cs",
                 "csl_game/examples/csharp/build_common.py"):
        assert path in names
    tops = {n.split("/")[0] for n in names}
    assert tops == {"csl_game", info}, f"only csl_game is installed, not {tops}"


STUDENT_THINKER = '''\
"""A student's own thinkers package, named as students name it."""
raise ImportError("the student's thinkers package was imported in place of the built-ins")
'''


def test_fresh_venv_lists_and_plays_builtins_beside_a_thinkers_package(
        dist: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / BIN / "python"
    # This interpreter's pip installs into the new venv: no pip of its own to set up.
    _run(sys.executable, "-m", "pip", "--python", python, "install", "--quiet",
         "--disable-pip-version-check", _wheel(dist))
    work = tmp_path / "student"
    (work / "thinkers").mkdir(parents=True)
    (work / "thinkers" / "__init__.py").write_text("", encoding="utf-8")
    (work / "thinkers" / "random.py").write_text(STUDENT_THINKER, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["SDL_VIDEODRIVER"] = "dummy"
    where = _run(python, "-c", "import csl_game; print(csl_game.__file__)", cwd=work, env=env)
    assert Path(where.stdout.strip()).is_relative_to(venv)
    for command in ([venv / BIN / "csl-game"], [python, "-m", "csl_game"]):
        info = _run(*command, "info", cwd=work, env=env).stdout
        for name in ("random", "sequential", "minimax", "negamax", "mcts",
                     "csl_game.thinkers.random.RandomAIThinker"):
            assert name in info, info
        played = _run(*command, "match", "-W", "random", "-R", "sequential", cwd=work,
                      env=env).stdout
        assert "=> Random (White) vs Sequential (Red) <=" in played
        assert "Game Over, " in played
    assert _run(venv / BIN / "csl-game", "--version", cwd=work, env=env).stdout == \
        f"csl-game {VERSION}\n"
    # the examples a checkout has, out of the wheel
    _run(venv / BIN / "csl-game", "info", "--examples", "ex", cwd=work, env=env)
    for name in ("engines/random_engine.py", "engines/thinking_engine.py",
                 "csharp/CslEngineHost.cs", "csharp/build_common.py"):
        assert (work / "ex" / name).read_bytes() == (ROOT / "examples" / name).read_bytes()
