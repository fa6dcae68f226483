"""The referee reads thinker files and never runs them: csl-game's main process
finds the thinkers of a --thinkers file in its source (`catalog`), and only
worker processes import it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from csl_game.errors import ThinkerError
from csl_game.thinker.discovery import ThinkerRef, catalog, registry
from csl_game.thinker.prototype import ThinkerPrototype

HERE = Path(__file__).parent / "referee"
PATCHER = HERE / "referee_patch.py"


def csl(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str, int]:
    """Run csl-game; its exit status, standard output and error, and its pid."""
    proc = subprocess.Popen([sys.executable, "-m", "csl_game", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out, err, proc.pid


def write(folder: Path, name: str, source: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def honest_points(results: Path) -> dict[str, int]:
    """Points by player name from the recorded match results: 3 a win, 1 a draw."""
    points: Counter[str] = Counter()
    for line in results.read_text(encoding="utf-8").splitlines():
        doc = json.loads(line)
        white, red = doc["white"]["name"], doc["red"]["name"]
        points[white] += 0
        points[red] += 0
        if doc["winner"] == "white":
            points[white] += 3
        elif doc["winner"] == "red":
            points[red] += 3
        else:
            points[white] += 1
            points[red] += 1
    return dict(points)


def printed_points(out: str) -> dict[str, int]:
    """Points by player name from the final standings csl-game printed."""
    table = out[out.index("Final standings:"):].splitlines()[2:]
    rows = [line.split() for line in table if line.strip()[:1].isdigit()]
    return {row[1]: int(row[2]) for row in rows}


# ------------------------------------------------------- the hostile session
def test_a_hostile_file_runs_only_in_workers_and_the_standings_stay_honest(
        tmp_path: Path) -> None:
    league = write(tmp_path, "league.txt", "random 1\nnegamax\nsequential\npatcher\n")
    results, marker = tmp_path / "results.jsonl", tmp_path / "ran-in.txt"
    status, out, err, pid = csl(
        "session", "-g", str(league), "--thinkers", str(PATCHER), "--workers", "2",
        "-r", "5", "-c", "5", "-w", "3", "-t", "30", "-q", "--results", str(results),
        env={"CSL_TEST_REFEREE_MARKER": str(marker)})
    assert status == 0, err
    ran_in = marker.read_text().split() if marker.exists() else []
    assert str(pid) not in ran_in, "the thinker file's top level ran in the referee"
    records = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(records) == 12
    played = [r for r in records if "Patcher" in (r["white"]["name"], r["red"]["name"])]
    assert len(played) == 6 and not any(r["forfeit"] == "setup" for r in played), \
        "the patcher was loaded and played in its workers"
    assert printed_points(out) == honest_points(results)
    assert printed_points(out)["Patcher"] <= 18


# ------------------------------------------------------------ reading a file
@pytest.mark.unit
def test_the_catalog_lists_a_file_without_running_it(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    path = write(tmp_path / "t", "quiet_read_mod.py", f"""
        open({str(marker)!r}, "w").close()
        raise SystemExit("never read this far by the referee")
        from csl_game import AbstractThinker

        class QuietThinker(AbstractThinker):
            '''Plays quietly.

            Parameters: none.'''
            def think(self, board, ct):
                return None
        """)
    reg = catalog((str(path),))
    ref = reg.find("quiet")
    assert isinstance(ref, ThinkerRef) and ref.fqn == "quiet_read_mod.QuietThinker"
    assert ref.path == str(path) and reg.summary(ref.fqn) == "Plays quietly."
    assert ref.fqn in reg.listed() and reg.short_name(ref.fqn) == "quiet"
    prototype = ThinkerPrototype("quiet", "", paths=(str(path),))
    assert (prototype.fqn, prototype.default_name) == (ref.fqn, "Quiet")
    assert prototype.thinker_class.__qualname__ == "QuietThinker"  # names, not the class
    assert not marker.exists() and "quiet_read_mod" not in sys.modules


SIBLINGS = {
    "_common.py": """
        import csl_game as cg

        class Base(cg.AbstractThinker):
            '''A base with a think() of its own.'''
            def think(self, board, ct):
                return self.choose(board)
        """,
    "aliases_mod.py": """
        from csl_game.thinker.api import AbstractThinker as Root
        from csl_game import *
        import csl_game.thinker.api
        from _common import Base
        from csl_game.thinkers.minimax import MinimaxAIThinker

        Alias = Root

        class ByAliasThinker(Alias):
            def think(self, board, ct):
                return FutureMove(0, PShape.ROUND)

        class ByStarThinker(AbstractThinker):
            def think(self, board, ct):
                return FutureMove(0, PShape.ROUND)

        class ByDotsThinker(csl_game.thinker.api.AbstractThinker):
            def think(self, board, ct):
                return FutureMove(0, PShape.ROUND)

        class FromHelperThinker(Base):
            def choose(self, board):
                return FutureMove(0, PShape.ROUND)

        class DeeperMinimaxThinker(MinimaxAIThinker):
            pass

        class Plain:
            def think(self, board, ct):
                return None
        """,
    "derived_mod.py": """
        import aliases_mod

        class DerivedThinker(aliases_mod.ByStarThinker):
            pass

        class HabitThinker(aliases_mod.Root):
            def Think(self, board, ct):
                return None

        class MixedThinker(aliases_mod.Root):
            @staticmethod
            def think(board, ct):
                return None

            class Inner:
                pass
        """,
}


@pytest.mark.unit
def test_reading_finds_what_importing_finds(tmp_path: Path) -> None:
    """Aliases, star imports, dotted names, a helper file beside it, another
    file of the set and a built-in thinker as bases: the catalog lists (and
    refuses, with the same reasons) exactly the classes that importing does."""
    folder = tmp_path / "set"
    for name, source in SIBLINGS.items():
        write(folder, name, source)
    paths = (str(folder),)
    read = catalog(paths)
    mine = sorted(f for f in read.listed() if f in read.refs)
    assert mine == ["aliases_mod.ByAliasThinker", "aliases_mod.ByDotsThinker",
                    "aliases_mod.ByStarThinker", "aliases_mod.DeeperMinimaxThinker",
                    "aliases_mod.FromHelperThinker", "derived_mod.DerivedThinker",
                    "derived_mod.MixedThinker"]
    assert all(read.refs[f].checked for f in mine) and "aliases_mod" not in sys.modules
    with pytest.raises(ThinkerError, match="defines Think\\(\\), but Python names are case"):
        read.find("habit")
    run = registry(paths)  # importing (as a worker does)
    assert sorted(f for f in run.classes if f.split(".")[0] in ("aliases_mod", "derived_mod")) \
        == mine
    assert read.unplayable == run.unplayable and read.near_misses() == run.near_misses()


@pytest.mark.unit
def test_what_reading_cannot_decide_is_found_by_name_only(tmp_path: Path) -> None:
    path = write(tmp_path / "u", "undecided_mod.py", """
        import importlib
        import random
        from some_package_not_read import Base
        from csl_game.rl import policy_thinker

        def centre(observation, action_mask):
            return 0

        Dynamic = getattr(importlib.import_module("json"), "JSONDecoder")
        rng = random.Random(1)
        CentreThinker = policy_thinker(centre)
        Made = type("Made", (object,), {})

        class ElsewhereThinker(Base):
            pass

        class DynThinker(Dynamic):
            pass
        """)
    reg = catalog((str(path),))
    assert reg.refs["undecided_mod.CentreThinker"].checked  # its factory says it makes thinkers
    assert "undecided_mod.CentreThinker" in reg.listed()
    unchecked = {f: ref.unread for f, ref in reg.refs.items() if not ref.checked}
    assert unchecked == {"undecided_mod.ElsewhereThinker": "some_package_not_read.Base",
                         "undecided_mod.DynThinker": "getattr()",
                         "undecided_mod.Made": "type()"}
    assert not set(unchecked) & set(reg.listed())
    found = reg.find("elsewhere")
    assert isinstance(found, ThinkerRef) and not found.checked
    with pytest.raises(ThinkerError, match="unknown thinker 'rng'"):
        reg.find("rng")


@pytest.mark.unit
@pytest.mark.parametrize("source, error", [
    ("def broken(:\n", "failed to load: SyntaxError"),
    ("x = 1\0\n", "failed to load"),
])
def test_a_file_that_is_not_python_is_bad_input(tmp_path: Path, source: str, error: str) -> None:
    path = tmp_path / "unreadable_mod.py"
    path.write_text(source)
    with pytest.raises(ThinkerError, match=error):
        catalog((str(path),))


# --------------------------------------------------------- in a worker only
def test_a_wrong_guess_is_the_workers_clear_setup_error() -> None:
    """A class whose base reading could not follow is played by name; its
    worker finds it is no thinker and says so as the player's setup failure."""
    status, out, err, _ = csl("match", "-W", "dyn", "-R", "random", "-t", "50",
                              "--thinkers", str(HERE / "guessed.py"))
    text = out + err
    assert "Traceback" not in text
    assert "DynThinker is not a thinker class (an AbstractThinker subclass)" in text
    assert status in (0, 2)


def test_a_file_that_raises_as_it_loads_is_bad_input_named_with_its_line() -> None:
    status, out, err, _ = csl("match", "-W", "boom", "-R", "random", "-t", "50",
                              "--thinkers", str(HERE / "boom_at_import.py"))
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1 and "Traceback" not in err
    assert "RuntimeError: the file's own bug" in lines[0]
    assert f"{HERE / 'boom_at_import.py'}, line 8, in <module>" in lines[0]


@pytest.mark.unit
def test_only_thinker_side_code_imports_thinker_files() -> None:
    """`registry` (which imports --thinkers files) is called only where thinker
    code may run: a worker, the fork server's warm-up (no paths), and a
    prototype's load() (a worker, or in-process mode). The rest use `catalog`."""
    import ast

    src = Path(__file__).parents[1] / "src" / "csl_game"
    callers = set()
    for path in src.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "registry" not in text:  # the name of any call to it is in the text
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "registry":
                callers.add(path.relative_to(src).as_posix())
    assert callers <= {"engine/runners/worker.py", "engine/runners/warm.py",
                       "thinker/prototype.py", "thinker/discovery.py"}, callers


@pytest.mark.unit
def test_a_value_error_at_import_is_a_bug_not_a_refusal_of_parameters() -> None:
    from csl_game.engine import SetupReport
    from csl_game.engine.runners.base import Forfeit, ForfeitReason
    from csl_game.services.players import refusal

    report = SetupReport("Boom", Forfeit(ForfeitReason.SETUP, "failed to load"), True,
                         "ValueError", "bad table", "/x/boom.py, line 3, in <module>: T = f()")
    text = refusal(ThinkerPrototype("random"), report)
    assert text == ("random could not be set up: its code raised ValueError: bad table at "
                    "/x/boom.py, line 3, in <module>: T = f()")
