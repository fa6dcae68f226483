"""How much running thinkers in worker processes costs.

1. Per-move overhead: wall time from start() to the outcome for a thinker that
   answers at once (the built-in sequential thinker), ProcessRunner against
   ThreadRunner.
2. Search speed: the built-in minimax at depth 4 on the standard 6x7 board
   from a few positions, think() in a ProcessRunner worker against think()
   called directly in this process (headless, no runner).

Run from the root of a checkout::

    python benchmarks/bench_runner.py [--moves 2000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence

from csl_game import Board, CancellationToken, MatchConfig, PShape, ThinkerPrototype, Winner
from csl_game.engine import RunnerFactory, ThreadRunner
from csl_game.engine.runners.process import ProcessRunner

CONFIG = MatchConfig(time_limit_ms=600_000)  # never the limit that stops a move
PLIES = (0, 4, 8, 12)  # search positions: this many random moves into a game


def position(plies: int, seed: int = 7) -> Board:
    """The standard board after `plies` random moves that win nothing."""
    rng = random.Random(seed)
    board = CONFIG.new_board()
    while board.move_count < plies:
        column, shape = rng.randrange(board.cols), rng.choice(list(PShape))
        if board.is_column_full(column) or board.piece_count(board.turn, shape) == 0:
            continue
        board.do_move(shape, column)
        if board.check_winner() is not Winner.NONE:
            board.undo_move()
    return board


def percentile(values: Sequence[float], fraction: float) -> float:
    """The value below which `fraction` of `values` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def move_times(factory: RunnerFactory, moves: int) -> list[float]:
    """Wall seconds from start() to outcome, per move, for an instant thinker."""
    runner = factory(ThinkerPrototype("sequential", "", CONFIG), lambda _: None)
    board = position(10)
    try:
        for _ in range(50):  # warm up: worker ready, caches filled
            runner.start(board).wait(None)
        times = []
        for _ in range(moves):
            start = time.perf_counter()
            outcome = runner.start(board).wait(None)
            times.append(time.perf_counter() - start)
            assert outcome is not None and outcome.forfeit is None, outcome
        return times
    finally:
        runner.close()


def report_overhead(moves: int) -> None:
    rows = {"ThreadRunner": move_times(ThreadRunner, moves),
            "ProcessRunner": move_times(ProcessRunner, moves)}
    print(f"Per-move wall time, instant thinker, {moves} moves")
    print(f"{'runner':<14} {'median ms':>10} {'p95 ms':>8}")
    for name, times in rows.items():
        print(f"{name:<14} {statistics.median(times) * 1000:>10.3f} "
              f"{percentile(times, 0.95) * 1000:>8.3f}")
    thread, process = rows["ThreadRunner"], rows["ProcessRunner"]
    print(f"ratio process/thread: median "
          f"{statistics.median(process) / statistics.median(thread):.2f}, p95 "
          f"{percentile(process, 0.95) / percentile(thread, 0.95):.2f}\n")


def search_times(board: Board, repeats: int, runner: ProcessRunner) -> tuple[float, float]:
    """Best think() seconds of `repeats`: (headless in this process, in the worker)."""
    thinker = ThinkerPrototype("minimax", "4", CONFIG).create()
    local, worker = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        move = thinker.think(board.copy(), CancellationToken())
        local.append(time.perf_counter() - start)
        outcome = runner.start(board).wait(None)
        assert outcome is not None and outcome.move == move, (outcome, move)
        worker.append(outcome.elapsed)
    return min(local), min(worker)


def report_search(repeats: int) -> None:
    print(f"Minimax depth 4 on 6x7, think() seconds (best of {repeats})")
    print(f"{'position':<10} {'in-process':>10} {'worker':>8} {'worker/in-process':>18}")
    runner = ProcessRunner(ThinkerPrototype("minimax", "4", CONFIG))
    ratios = []
    try:
        for plies in PLIES:
            local, worker = search_times(position(plies), repeats, runner)
            ratios.append(worker / local)
            print(f"{f'{plies} moves':<10} {local:>10.3f} {worker:>8.3f} "
                  f"{worker / local:>18.3f}")
    finally:
        runner.close()
    print(f"geometric mean ratio worker/in-process: {statistics.geometric_mean(ratios):.3f}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=2000, help="moves per runner")
    parser.add_argument("--repeats", type=int, default=3, help="searches per position")
    args = parser.parse_args(argv)
    report_overhead(args.moves)
    report_search(args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
