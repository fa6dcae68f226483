"""How much faster a complete session runs with more workers.

Plays the same 6-thinker complete session (30 matches) of fast thinkers with
--workers 1 and with --workers 2, each AI in its own worker process, in one
run, alternating, and prints the wall times and their ratio.

    python benchmarks/bench_session.py [--rounds 2] [--workers 2]
"""

from __future__ import annotations

import argparse
import statistics
import time

from csl_game.config import AIEntry
from csl_game.thinker import MatchConfig
from csl_game.tournament import Tournament

# Quick thinkers (a few ms a move), but with real search, so the matches and
# not the bookkeeping around them dominate, as in a real league.
PLAYERS = [AIEntry("minimax", "2"), AIEntry("minimax", "3"), AIEntry("sequential"),
           AIEntry("negamax", "depth=3"), AIEntry("mcts", "playouts=200"), AIEntry("random", "3")]


def timed(workers: int) -> tuple[float, list[tuple[str, int]]]:
    t = Tournament(PLAYERS, MatchConfig(time_limit_ms=2000))
    start = time.perf_counter()
    table = t.run(workers=workers)
    return time.perf_counter() - start, [(s.name, s.points) for s in table]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    times: dict[int, list[float]] = {1: [], args.workers: []}
    tables = set()
    for _ in range(args.rounds):
        for workers in times:
            seconds, table = timed(workers)
            times[workers].append(seconds)
            tables.add(tuple(table))
    one, many = statistics.median(times[1]), statistics.median(times[args.workers])
    print(f"30 matches, 6 thinkers, each AI in a worker process, {args.rounds} rounds")
    print(f"--workers 1: {one:.2f} s (median)   runs: {[round(x, 2) for x in times[1]]}")
    print(f"--workers {args.workers}: {many:.2f} s (median)   runs: "
          f"{[round(x, 2) for x in times[args.workers]]}")
    print(f"speed-up: {one / many:.2f}x   same standings every run: {len(tables) == 1}")


if __name__ == "__main__":
    main()
