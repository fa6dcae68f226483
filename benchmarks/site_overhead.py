"""What keeping the web site live costs a session: its wall time with --site
against without, alternating runs of the same 56-match session (8 thinkers,
each pair with both colours, 100 ms a move).

    python benchmarks/site_overhead.py [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PLAYERS = ["negamax", "negamax depth=4", "mcts", "minimax 3", "minimax 2", "negamax depth=2",
           "random 1", "sequential"]


def run(folder: Path, site: bool) -> float:
    game = folder / "players.txt"
    game.write_text("\n".join(PLAYERS) + "\n")
    argv = [sys.executable, "-m", "csl_game", "session", "-g", str(game), "-t", "100",
            "-q", "--workers", "2"]
    if site:
        argv += ["--site", str(folder / f"site-{time.monotonic_ns()}")]
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    plain, live = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.runs):
            plain.append(run(Path(tmp), site=False))
            live.append(run(Path(tmp), site=True))
    print(f"without --site: {', '.join(f'{t:.1f}' for t in plain)} s")
    print(f"with --site:    {', '.join(f'{t:.1f}' for t in live)} s")
    ratio = statistics.median(live) / statistics.median(plain)
    print(f"median ratio with/without: {ratio:.3f} ({(ratio - 1):+.1%})")


if __name__ == "__main__":
    main()
