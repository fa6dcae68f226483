"""Calibrate the review's logistic: P(White scores) = 1 / (1 + exp(-score / k)).

Plays negamax against itself at a short fixed depth from seeded random
openings (random moves and shapes, as services/openings.py draws them, that
leave the game open), records at every position after the opening negamax's
score of the position for White (the searcher the analyst uses for unproven
moves, at the same fixed depth) and the game's final result (1, 1/2, 0 for
White), then fits k by maximum likelihood (Newton's method on 1/k; draws
count 1/2, a binomial likelihood with fractional outcome). Positions whose
score is a found win or loss (beyond negamax's MATE_BOUND) are left out:
the review treats them as all but certain anyway.

The interval is a cluster bootstrap over games (positions of one game are
not independent), beside the naive Fisher-information interval.

    python benchmarks/calibrate_eval.py                    # 6x7, 300 games, depth 5
    python benchmarks/calibrate_eval.py --games 60 --depth 3 --seed 5
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(HERE / "src"), str(HERE)]

from csl_game.model.board import Winner  # noqa: E402
from csl_game.model.core import FastBoard, geometry  # noqa: E402
from thinkers._alphabeta import MATE_BOUND, Searcher  # noqa: E402
from thinkers._tactics import tables_for  # noqa: E402

Sample = tuple[float, float]
"""(score for White, White's final score 0 / 0.5 / 1)."""


def opening(pos: FastBoard, plies: int, rng: random.Random) -> bool:
    """Play `plies` random moves; False when one of them ended the game."""
    for _ in range(plies):
        m = rng.choice(pos.legal_moves())
        pos.play(m >> 1, m & 1)
        if pos.winner_after(m & 1) is not Winner.NONE:
            return False
    return True


def play_game(pos: FastBoard, searcher: Searcher, depth: int) -> tuple[list[float], float]:
    """Negamax against itself from `pos` to the end: White's score of every
    position before a move (None-free: found wins left out), and the result."""
    scores: list[float] = []
    while True:
        searcher.start(pos.copy(), float("inf"), lambda: False)
        win, moves, losses = searcher.root_moves()
        sign = 1 if pos.turn == 0 else -1
        if win is not None:
            move = win
        elif not moves:
            move = losses[0][1]
        else:
            left = pos.geometry.max_moves - pos.ply
            score, move = searcher.search_root(max(1, min(depth, left)), list(moves))
            if abs(score) < MATE_BOUND:
                scores.append(sign * score)
        pos.play(move >> 1, move & 1)
        result = pos.winner_after(move & 1)
        if result is not Winner.NONE:
            return scores, {Winner.WHITE: 1.0, Winner.RED: 0.0}.get(result, 0.5)


def fit(samples: list[Sample]) -> tuple[float, float]:
    """Maximum-likelihood 1/k and its Fisher standard error."""
    beta = 0.01
    for _ in range(100):
        grad = hess = 0.0
        for s, y in samples:
            p = 1 / (1 + math.exp(-max(-500.0, min(500.0, beta * s))))
            grad += (y - p) * s
            hess += p * (1 - p) * s * s
        step = grad / hess
        beta += step
        if abs(step) < 1e-12:
            break
    return beta, 1 / math.sqrt(hess)


def _k(beta: float) -> float:
    return 1 / beta if beta > 0 else math.inf


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--boot", type=int, default=400, help="bootstrap resamples")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    geo = geometry()
    searcher = Searcher(tables_for(geo), 1 << 16)
    games: list[list[Sample]] = []
    results = {1.0: 0, 0.5: 0, 0.0: 0}
    started = time.perf_counter()
    while len(games) < args.games:
        pos = FastBoard(geo)
        if not opening(pos, rng.randrange(2, 9), rng):
            continue
        scores, result = play_game(pos, searcher, args.depth)
        results[result] += 1
        games.append([(s, result) for s in scores])
    elapsed = time.perf_counter() - started
    samples = [s for g in games for s in g]
    beta, se = fit(samples)
    boot = []  # of 1/k, which is near normal; k = 1/(1/k) keeps the order reversed
    for _ in range(args.boot):
        pick = [s for _ in games for s in games[rng.randrange(len(games))]]
        boot.append(fit(pick)[0])
    boot.sort()
    low, high = _k(boot[int(0.975 * len(boot)) - 1]), _k(boot[int(0.025 * len(boot))])
    print(f"6x7 n=4 10+11, negamax depth {args.depth} self-play, seed {args.seed}: "
          f"{len(games)} games (White {results[1.0]}, draws {results[0.5]}, "
          f"Red {results[0.0]}), {len(samples)} positions, {elapsed:.0f} s of play")
    print(f"k = {1 / beta:.1f}  (95 % cluster bootstrap over games: {low:.1f} .. {high:.1f}; "
          f"Fisher, as if positions were independent: {1 / (beta + 1.96 * se):.1f} .. "
          f"{1 / (beta - 1.96 * se):.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
