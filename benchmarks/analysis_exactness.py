"""Is every result the analysis service proves exact on 6x7 endgames?

Positions come from real games: negamax (depth 2) against itself from a
seeded random opening, with one move in ten played at random, stopped when
at most `--empty` cells are left and nobody has won. Each is analysed by the
service (`AnalysisJob`, the analyst in a worker process, `--ms` each), and
every move it reports proven (result and plies) is compared with an
independent exact solver: tests/solvers.DistanceSolver, an alpha-beta with a
transposition dict of its own that shares no code with the analyst (only the
model's rules), itself checked against the plain memoized minimax
tests/solvers.solve in tests/test_analysis_exactness.py. The best line of a
proven best move is checked too: legal, and ending in its result after
exactly its plies when that is within 8.

    python benchmarks/analysis_exactness.py                 # 20 positions, 14 empty, 3 s
    python benchmarks/analysis_exactness.py --positions 5 --empty 12 --ms 2000
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(HERE / "src"), str(HERE), str(HERE / "tests")]

from csl_game import Board, CancellationToken, MatchConfig, ThinkerPrototype  # noqa: E402
from csl_game.engine import process_runner  # noqa: E402
from csl_game.model.board import PShape, Winner  # noqa: E402
from csl_game.model.notation import format_history, parse_move  # noqa: E402
from csl_game.services.analysis import Analysis, analyse  # noqa: E402
from solvers import DistanceSolver  # noqa: E402

CONFIG = MatchConfig()


def endgame(rng: random.Random, empty: int) -> Board | None:
    """A position of a real game with at most `empty` cells left, or None if
    that game ended before."""
    board = CONFIG.new_board()
    player = ThinkerPrototype("negamax", "depth=2", CONFIG).create()
    for _ in range(rng.randrange(2, 7)):
        col, shape = rng.choice(board.legal_moves())
        board.do_move(shape, col)
        if board.check_winner() is not Winner.NONE:
            return None
    while board.check_winner() is Winner.NONE:
        if board.rows * board.cols - board.move_count <= empty:
            return board
        if rng.random() < 0.1:
            col, shape = rng.choice(board.legal_moves())
        else:
            move = player.think(board.copy(), CancellationToken())
            col, shape = move.column, move.shape
        board.do_move(shape, col)
    return None


def check(board: Board, found: Analysis, solver: DistanceSolver) -> tuple[int, list[str]]:
    """(proven moves checked, mismatches described)."""
    truth = solver.move_values(board.fast_board())
    mover = board.turn.name.lower()
    named = {1: mover, -1: board.turn.other.name.lower(), 0: "draw"}
    checked, wrong = 0, []
    for m in found.moves:
        if m.result is None:
            continue
        col, shape = parse_move(m.move)
        outcome, plies = truth[col << 1 | int(shape)]
        checked += 1
        if (m.result, m.plies) != (named[outcome], plies):
            wrong.append(f"{format_history(board.history)} | {m.move}: service says "
                         f"{m.result} in {m.plies}, solver {named[outcome]} in {plies}")
    best = found.best
    if best.result is not None and not line_ends_right(board.copy(), found, named):
        wrong.append(f"{format_history(board.history)}: best line {' '.join(found.line)} "
                     f"does not end in {best.result} after {best.plies}")
    return checked, wrong


def line_ends_right(board: Board, found: Analysis, named: dict[int, str]) -> bool:
    plies = found.best.plies or 0
    if len(found.line) != min(plies, 8):
        return False
    for token in found.line:
        col, shape = parse_move(token)
        if (col, shape) not in board.legal_moves():
            return False
        board.do_move(PShape(shape), col)
    winner = board.check_winner()
    if plies > 8:
        return winner is Winner.NONE
    return winner.name.lower() == found.best.result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--empty", type=int, default=14)
    parser.add_argument("--ms", type=int, default=3000, help="analysis time a position")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    positions = checked = moves = 0
    mismatches: list[str] = []
    analysis_s = solver_s = 0.0
    while positions < args.positions:
        board = endgame(rng, args.empty)
        if board is None:
            continue
        positions += 1
        started = time.perf_counter()
        found = analyse(board, CONFIG, process_runner, args.ms)
        analysis_s += time.perf_counter() - started
        assert found is not None, "no depth finished"
        started = time.perf_counter()
        n, wrong = check(board, found, DistanceSolver())
        solver_s += time.perf_counter() - started
        checked, moves = checked + n, moves + len(found.moves)
        mismatches += wrong
        print(f"{positions:>3}. {format_history(board.history)}: {n}/{len(found.moves)} "
              f"proven, depth {found.depth}, best {found.best.move} {found.best.text()}",
              flush=True)
    for line in mismatches:
        print("MISMATCH", line)
    print(f"6x7 positions with <= {args.empty} empty cells: {positions}; moves {moves}, "
          f"proven and checked {checked}; mismatches {len(mismatches)}; analysis "
          f"{analysis_s:.0f} s ({args.ms} ms each at most), solver {solver_s:.0f} s")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
