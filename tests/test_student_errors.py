"""A student's mistakes, each answered with what to fix (the thinker's own
bug named with its line, a misspelt think() named with the reason)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TYPO = '''
from csl_game import AbstractThinker, FutureMove, PShape


class TypoThinker(AbstractThinker):
    def setup(self, params):
        self.cols_ = self.colz

    def think(self, board, ct):
        return FutureMove(0, PShape.ROUND)
'''

HABIT = '''
from csl_game import AbstractThinker, FutureMove, PShape


class HabitThinker(AbstractThinker):
    def Think(self, board, ct):
        return FutureMove(0, PShape.ROUND)
'''

SIGNATURE = '''
from csl_game import AbstractThinker, FutureMove, PShape


class SigThinker(AbstractThinker):
    def setup(self):
        pass

    def think(self, board, ct):
        return FutureMove(0, PShape.ROUND)
'''


def csl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "csl_game", *args], capture_output=True,
                          text=True, timeout=60)


def csl_all(*argvs: list[str]) -> list[subprocess.CompletedProcess[str]]:
    """These csl-game commands run all at once; each one's exit and output."""
    procs = [subprocess.Popen([sys.executable, "-m", "csl_game", *args], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for args in argvs]
    done = [p.communicate(timeout=60) for p in procs]
    return [subprocess.CompletedProcess(p.args, p.returncode, out, err)
            for p, (out, err) in zip(procs, done)]


@pytest.mark.parametrize("in_process", [False, True])
def test_a_bug_in_setup_is_shown_with_its_type_message_and_line(tmp_path: Path,
                                                                in_process: bool) -> None:
    (tmp_path / "typo.py").write_text(TYPO)
    proc = csl("match", "-W", "typo", "-R", "random", "--thinkers", str(tmp_path),
               *(["--in-process"] if in_process else []))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert "AttributeError: 'TypoThinker' object has no attribute 'colz'" in lines[0]
    assert f"{tmp_path / 'typo.py'}, line 7, in setup: self.cols_ = self.colz" in lines[0]
    assert "does not accept" not in lines[0]  # a bug, not its (empty) parameters


def test_a_wrong_setup_signature_says_what_it_should_be(tmp_path: Path) -> None:
    (tmp_path / "sig.py").write_text(SIGNATURE)
    proc = csl("match", "-W", "sig", "-R", "random", "--thinkers", str(tmp_path))
    assert proc.returncode == 2
    assert "TypeError" in proc.stderr and "def setup(self, params: str)" in proc.stderr


def test_a_class_that_spells_think_Think_is_named_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "habit.py").write_text(HABIT)
    proc, info = csl_all(["match", "-W", "habit", "-R", "random", "--thinkers", str(tmp_path)],
                         ["info", "--thinkers", str(tmp_path)])
    assert proc.returncode == 2
    assert "HabitThinker has no think()" in proc.stderr
    assert "defines Think()" in proc.stderr and "case-sensitive" in proc.stderr
    assert info.returncode == 0 and "not listed: HabitThinker has no think()" in info.stderr


def test_a_cut_off_last_line_is_reported_by_every_reader(tmp_path: Path) -> None:
    league = tmp_path / "league.txt"
    league.write_text("random\nsequential\n")
    results = tmp_path / "r.jsonl"
    assert csl("session", "-g", str(league), "-t", "50", "--results", str(results),
               "-q").returncode == 0
    text = results.read_text()
    torn = tmp_path / "torn.jsonl"
    torn.write_text(text[:-60])  # the second match's line, cut off mid-write
    readers = (["report", str(torn)], ["report", str(torn), "--ratings"],
               ["replay", str(torn), "--list"],
               ["report", str(torn), "--format", "html", "-o", str(tmp_path / "site")])
    *procs, whole, whole_site = csl_all(*readers, ["report", str(results)], [
        "report", str(results), "--format", "html", "-o", str(tmp_path / "whole")])  # all at once
    for args, proc in zip(readers, procs):
        assert proc.returncode == 0, proc.stderr
        assert "its last line was cut off" in proc.stderr, args
    assert "cut off" not in whole.stderr + whole_site.stderr
    cut = len(text[:-60].rpartition("\n")[2])  # the site says it on every page
    matches = sorted(p.name for p in (tmp_path / "site").glob("match-*.html"))
    assert len(matches) == 1  # the line left whole: either match, whichever ended first
    for page in ("index.html", *matches):
        assert (f'id="site-cut">The results file\'s last line was cut off ({cut} characters'
                in (tmp_path / "site" / page).read_text(encoding="utf-8")), page
    for page in ("index.html", "match-1.html", "match-2.html"):
        assert "site-cut" not in (tmp_path / "whole" / page).read_text(encoding="utf-8")


def test_build_common_takes_the_branch_from_an_ordinary_clone(tmp_path: Path) -> None:
    """A fresh clone has origin/common, not common: the sources come from it."""
    git = ["git", "-c", "user.email=t@example.org", "-c", "user.name=t"]
    up = tmp_path / "up"
    up.mkdir()
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "i"],
                 ["checkout", "-q", "-b", "common"]):
        subprocess.run([*git, "-C", str(up), *args], check=True)
    (up / "Common.csproj").write_text("<Project/>")
    subprocess.run([*git, "-C", str(up), "add", "."], check=True)
    subprocess.run([*git, "-C", str(up), "commit", "-q", "-m", "c"], check=True)
    subprocess.run([*git, "-C", str(up), "checkout", "-q", "main"], check=True)
    subprocess.run(["git", "clone", "-q", str(up), str(tmp_path / "clone")], check=True)
    sys.path.insert(0, str(Path(__file__).parents[1] / "examples" / "csharp"))
    try:
        import build_common
    finally:
        sys.path.pop(0)
    out = tmp_path / "out"
    out.mkdir()
    build_common.sources(str(tmp_path / "clone"), out)
    assert (out / "src" / "Common.csproj").is_file()
    help_text = subprocess.run([sys.executable, str(Path(build_common.__file__)), "--help"],
                               capture_output=True, text=True).stdout
    assert "csl-game engine host beside it." in help_text


def test_a_resume_that_does_not_fit_says_what_differs(tmp_path: Path) -> None:
    league = tmp_path / "league.txt"
    league.write_text("random\nsequential\n")
    results = tmp_path / "r.jsonl"
    assert csl("session", "-g", str(league), "-t", "50", "--results", str(results),
               "-q").returncode == 0
    proc = csl("session", "-g", str(league), "-t", "80", "--resume", str(results), "-q")
    assert proc.returncode == 2
    assert "-t 50 there, 80 here" in proc.stderr


SCRIPT = """\
from csl_game.engine import RunOptions, Session, SessionOptions
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

def play():
    config = MatchConfig(time_limit_ms=200)
    players = [ThinkerPrototype(n, "", config) for n in ("random", "sequential")]
    session = Session(players, config, SessionOptions(run=RunOptions(foreground=False)))
    session.run()
    print(session.records[0].result.detail or "played", flush=True)

{call}
"""


@pytest.mark.skipif(sys.platform == "win32", reason="the script's path in the message is POSIX")
@pytest.mark.parametrize("guarded", [False, True])
def test_a_script_without_the_main_guard_is_told_why_its_thinkers_fail(
        tmp_path: Path, guarded: bool) -> None:
    """Worker processes start by running the main script, as multiprocessing's
    do: a script that plays at its top level is told to use the guard."""
    call = 'if __name__ == "__main__":\n    play()' if guarded else "play()"
    script = tmp_path / "tourney.py"
    script.write_text(SCRIPT.format(call=call), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    said = done.stdout.strip().splitlines()[-1]
    if guarded:
        assert said == "played"
    else:
        assert "has no 'if __name__ == \"__main__\":'" in said and str(script) in said
