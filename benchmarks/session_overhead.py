"""The fixed cost of a session: a 2-match session of instant thinkers, less the
interpreter's own start (``csl-game --version``).

Runs ``csl-game session`` on two thinkers that answer at once (2 matches) and
``csl-game --version`` in turn, ROUNDS times each, each a whole process timed
from outside, and prints the medians, the median of the rounds' differences
(the session's fixed cost: starting the worker fork server, setting each
thinker up to learn its name, starting the matches, ending the workers) and
of their ratios. Taken in pairs, so that the machine's drift hits both alike.

    python benchmarks/session_overhead.py [--rounds 15] [-t 50]

The other two figures of a session's overhead come from
``benchmarks/bench_session.py`` (the speed-up of a 30-match tournament of
short matches with 2 workers over 1) and ``benchmarks/sprt_timeouts.py
--games 40 --workers 1`` (the harness's overhead per game at 50 ms a move,
as a share of a worker slot).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def command() -> list[str]:
    """The installed command (its launcher is part of what is measured)."""
    found = shutil.which("csl-game", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "csl_game"]


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("-t", "--time-limit", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        players = Path(tmp) / "players.txt"
        players.write_text("sequential\nrandom 3\n", encoding="utf-8")
        session = [*command(), "session", "-g", str(players), "-q", "-t", str(args.time_limit)]
        version = [*command(), "--version"]
        timed(session), timed(version)  # warm up: the file system's caches
        sessions, versions = [], []
        for _ in range(args.rounds):
            sessions.append(timed(session))
            versions.append(timed(version))
    fixed = [s - v for s, v in zip(sessions, versions)]
    ratios = [s / v for s, v in zip(sessions, versions)]
    print(f"{args.rounds} rounds, each a whole process")
    print(f"2-match session: {statistics.median(sessions):.3f} s (median; "
          f"{min(sessions):.3f} to {max(sessions):.3f})")
    print(f"csl-game --version: {statistics.median(versions):.3f} s (median; "
          f"{min(versions):.3f} to {max(versions):.3f})")
    print(f"fixed cost of a session: {statistics.median(fixed):.3f} s (median of the rounds' "
          f"differences); session / --version: {statistics.median(ratios):.2f}x")


if __name__ == "__main__":
    main()
