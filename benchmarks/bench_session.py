"""How much faster a complete session runs with more workers.

Plays the same 6-thinker complete session (30 matches) of fast thinkers with
--workers 1 and with --workers 2, each AI in its own worker process, in one
run, alternating, and prints the wall times, their ratio and how many cores
were busy. This machine's speed drifts between runs, so each round plays
both back to back and the median of the rounds' ratios is the figure to read.

Each round also measures the ceiling: how much faster N processes that only
spin do N units of work than one process does them one after another (on an
idle machine with N cores, N times; what other programs take off the cores
lowers it). The session's speed-up is read against it.

    python benchmarks/bench_session.py [--rounds 5] [--workers 2]

With --sandbox, each round plays the session on --workers N twice instead,
with the workers' sandbox (Linux) and without it, back to back, and prints
how fast the session runs in the sandbox against without it.

    python benchmarks/bench_session.py --sandbox [--rounds 5]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import time

from csl_game.engine import RunOptions, Session, SessionOptions
from csl_game.services.settings import AIEntry
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

# Quick thinkers (a few ms a move), but with real search, so the matches and
# not the bookkeeping around them dominate, as in a real league.
PLAYERS = [AIEntry("minimax", "2"), AIEntry("minimax", "3"), AIEntry("sequential"),
           AIEntry("negamax", "depth=3"), AIEntry("mcts", "playouts=200 seed=1"),
           AIEntry("random", "3")]
"""Every one deterministic (fixed depth, seeded), so each run plays the very
same games and only the number of workers differs."""


def busy_seconds() -> float:
    """CPU seconds the whole machine has spent busy (Linux), else 0."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            ticks = [int(v) for v in f.readline().split()[1:]]
    except OSError:
        return 0.0
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def _spin(n: int) -> None:
    x = 0
    for i in range(n):
        x += i * i


def ceiling(workers: int, n: int = 4_000_000) -> float:
    """The machine's speed-up of `workers` spinning processes over one, right now."""
    ctx = multiprocessing.get_context("spawn")
    alone = [ctx.Process(target=_spin, args=(n,)) for _ in range(workers)]
    start = time.perf_counter()
    for p in alone:
        p.start()
        p.join()
    one = time.perf_counter() - start
    together = [ctx.Process(target=_spin, args=(n,)) for _ in range(workers)]
    start = time.perf_counter()
    for p in together:
        p.start()
    for p in together:
        p.join()
    return one / (time.perf_counter() - start)


def timed(workers: int, clock: str = "cpu") -> tuple[float, float, list[tuple[str, int]]]:
    """Wall seconds, busy CPU seconds and standings of one session."""
    config = MatchConfig(time_limit_ms=2000, clock=clock)
    players = [ThinkerPrototype(p.thinker, p.params, config) for p in PLAYERS]
    session = Session(players, config,
                      SessionOptions(run=RunOptions(workers=workers, foreground=False)))
    busy, start = busy_seconds(), time.perf_counter()
    table = session.run()
    wall = time.perf_counter() - start
    return wall, busy_seconds() - busy, [(s.name, s.points) for s in table]


def with_and_without_sandbox(rounds: int, workers: int, clock: str) -> None:
    """Each round: the session in the sandbox, then without it (the check's
    answer is replaced; every worker asks it as it starts)."""
    from csl_game import sandbox

    inside = sandbox.status()
    if not inside.active:
        raise SystemExit(f"no sandbox here to compare with: {inside.reason}")
    outside = sandbox.SandboxStatus(False, "off for the comparison")
    times: dict[bool, list[float]] = {True: [], False: []}
    tables = set()
    timed(workers, clock)  # warm up: the fork server and the import caches
    for _ in range(rounds):
        for boxed in (True, False):
            sandbox._status = inside if boxed else outside  # noqa: SLF001
            seconds, _, table = timed(workers, clock)
            times[boxed].append(seconds)
            tables.add(tuple(table))
    ratios = [b / a for a, b in zip(times[True], times[False])]
    print(f"30 matches, 6 thinkers, --workers {workers}, {rounds} rounds")
    for boxed, label in ((True, "in the sandbox"), (False, "without it")):
        print(f"{label}: {statistics.median(times[boxed]):.2f} s (median)   "
              f"runs: {[round(x, 2) for x in times[boxed]]}")
    print(f"speed in the sandbox against without: {statistics.median(ratios):.3f} (median of "
          f"the rounds' ratios {[round(r, 3) for r in ratios]}; 1 is as fast)")
    print(f"same standings every run: {len(tables) == 1}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="the match clock the moves are timed on (default cpu)")
    parser.add_argument("--sandbox", action="store_true",
                        help="compare the session with and without the workers' sandbox")
    args = parser.parse_args()
    if args.sandbox:
        with_and_without_sandbox(args.rounds, args.workers, args.clock)
        return
    times: dict[int, list[float]] = {1: [], args.workers: []}
    cores: dict[int, list[float]] = {1: [], args.workers: []}
    tables = set()
    ceilings = []
    timed(args.workers, args.clock)  # warm up: the fork server and the import caches
    for _ in range(args.rounds):
        ceilings.append(ceiling(args.workers))
        for workers in times:
            seconds, busy, table = timed(workers, args.clock)
            times[workers].append(seconds)
            cores[workers].append(busy / seconds)
            tables.add(tuple(table))
    one, many = statistics.median(times[1]), statistics.median(times[args.workers])
    # each round's two sessions ran back to back: their ratio is the least noisy
    rounds = [a / b for a, b in zip(times[1], times[args.workers])]
    print(f"30 matches, 6 thinkers, each AI in a worker process, {args.rounds} rounds")
    for workers in times:
        print(f"--workers {workers}: {statistics.median(times[workers]):.2f} s (median)   "
              f"runs: {[round(x, 2) for x in times[workers]]}   "
              f"cores busy: {statistics.median(cores[workers]):.2f}")
    print(f"speed-up: {one / many:.2f}x (medians), {statistics.median(rounds):.2f}x (median "
          f"of the rounds' ratios {[round(r, 2) for r in rounds]})")
    print(f"ceiling: {args.workers} spinning processes ran {statistics.median(ceilings):.2f}x "
          f"as fast as one (median of {[round(c, 2) for c in ceilings]}): the session "
          f"reached {statistics.median(rounds) / statistics.median(ceilings):.0%} of it")
    print(f"same standings every run: {len(tables) == 1}")


if __name__ == "__main__":
    main()
