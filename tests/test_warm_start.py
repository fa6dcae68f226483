"""What a session pays before its first move: the fork server runs the
program's main script once (not each worker), and the command line starts
the server before it imports the engine when the verb plays thinkers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from csl_game.launch import plays_thinkers

SCRIPT = """\
import os, sys
with open(sys.argv[1] if len(sys.argv) > 1 and __name__ == "__main__" else os.environ["RUNS"],
          "a") as f:
    f.write(f"{os.getpid()} {__name__}\\n")

if __name__ == "__main__":
    from csl_game import MatchConfig, ThinkerPrototype
    from csl_game.engine.runners.probe import probe_all

    config = MatchConfig()
    reports = probe_all([ThinkerPrototype("sequential", "", config),
                         ThinkerPrototype("random", "", config),
                         ThinkerPrototype("minimax", "1", config)])
    print(sum(r.ok for r in reports))
"""


def test_the_main_script_runs_once_in_the_fork_server_not_in_each_worker(
        tmp_path: Path) -> None:
    script, runs = tmp_path / "main_script.py", tmp_path / "runs.txt"
    script.write_text(SCRIPT, encoding="utf-8")
    env = {**__import__("os").environ, "RUNS": str(runs)}
    out = subprocess.run([sys.executable, str(script), str(runs)], capture_output=True,
                         text=True, env=env, timeout=60, check=True).stdout
    assert out.split() == ["3"]  # three workers, each set up and named
    lines = [line.split() for line in runs.read_text(encoding="utf-8").splitlines()]
    # the program itself, then the fork server as multiprocessing's __mp_main__ (none
    # of the three workers, which are forks of the server, runs the script again)
    names = sorted(name for _, name in lines)
    if "spawn" in __import__("os").environ.get("CSL_SIMULATE", ""):
        pytest.skip("workers are spawned: each runs the main script, as multiprocessing does")
    assert names == ["__main__", "__mp_main__"]


@pytest.mark.parametrize("argv, plays", [
    (["session", "-g", "players.txt"], True),
    (["sprt", "negamax", "random"], True),
    (["match", "-W", "negamax", "-R", "random"], True),
    (["openings", "--plies", "4"], False),  # its searches run in this process
    (["report", "results.jsonl"], False),
    (["info"], False),
    (["--version"], False),
    ([], False),
    (["session", "--help"], False),
    (["session", "-g", "players.txt", "--in-process"], False),
])
def test_the_command_line_starts_the_fork_server_first_only_for_verbs_that_play(
        argv: list[str], plays: bool) -> None:
    assert plays_thinkers(argv) is plays


@pytest.mark.skipif(sys.platform == "win32", reason="no fork server on Windows")
def test_the_fork_server_has_ended_when_the_command_has() -> None:
    """csl-game waits for its fork server at exit: nothing of it outlives the
    command (left to notice by itself, it went up to a second later)."""
    import time

    import psutil

    from procs import HELPERS, alive

    command = [sys.executable, "-m", "csl_game", "sprt", "random 1", "random 2", "-q",
               "--max-games", "2", "-t", "50", "-r", "4", "-c", "5", "-w", "3"]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    servers: set[int] = set()
    while proc.poll() is None:
        try:
            servers |= {c.pid for c in psutil.Process(proc.pid).children()
                        if HELPERS[0] in " ".join(c.cmdline())}
        except psutil.Error:
            pass
        # a fork server lives as long as the command: once one is seen, a
        # slower look (each reads /proc) still sees any other
        time.sleep(0.02 if servers else 0.002)
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
    assert servers, "the command started no fork server"
    assert not [pid for pid in servers if alive(pid)]
