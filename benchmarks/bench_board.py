"""Random-playout throughput of csl_game.model.board.Board against a plain board.

The baseline is what a straightforward port of the reference looks like: a 2D
list of cells, do/undo, and a winner check that scans every win corridor with
the four predicates in order. Both boards play the very same games (same
seeds), interleaved in rounds so that machine noise hits both alike.

    python benchmarks/bench_board.py                      # 6x7 n=4 and 9x10 n=5
    python benchmarks/bench_board.py --seconds 20 --size 6x7 --size 8x8:5
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from csl_game import Board, PColor, PShape, Winner  # the public API: any revision has it

WHITE, RED = PColor.WHITE, PColor.RED
ROUND, SQUARE = PShape.ROUND, PShape.SQUARE


class PlayableBoard(Protocol):
    cols: int
    turn: PColor

    def do_move(self, shape: PShape, col: int) -> int: ...
    def piece_count(self, color: PColor, shape: PShape) -> int: ...
    def check_winner(self) -> Winner: ...


def corridors(rows: int, cols: int, n: int) -> list[list[tuple[int, int]]]:
    """Win corridors in the reference order: rows, columns, / and \\ diagonals."""
    out: list[list[tuple[int, int]]] = []
    if cols >= n:
        out += [[(r, c) for c in range(cols)] for r in range(rows)]
    if rows >= n:
        out += [[(r, c) for r in range(rows)] for c in range(cols)]
    for r0, c0 in [(r, 0) for r in range(rows - 1, -1, -1)] + [(0, c) for c in range(1, cols)]:
        line = [(r0 + k, c0 + k) for k in range(min(rows - r0, cols - c0))]
        if len(line) >= n:
            out.append(line)
    for r0, c0 in ([(r, cols - 1) for r in range(rows - 1, -1, -1)]
                   + [(0, c) for c in range(cols - 2, -1, -1)]):
        line = [(r0 + k, c0 - k) for k in range(min(rows - r0, c0 + 1))]
        if len(line) >= n:
            out.append(line)
    return out


# (index into a (color, shape) piece, value, winner), in the reference order.
PREDICATES = ((1, ROUND, Winner.WHITE), (1, SQUARE, Winner.RED),
              (0, WHITE, Winner.WHITE), (0, RED, Winner.RED))


class PlainBoard:
    """The baseline: cells in a 2D list, the winner found by scanning corridors."""

    def __init__(self, rows: int, cols: int, n: int, round_pieces: int,
                 square_pieces: int) -> None:
        self.rows, self.cols, self.n = rows, cols, n
        self.cells: list[list[tuple[PColor, PShape] | None]] = [
            [None] * cols for _ in range(rows)]
        self.heights = [0] * cols
        self.counts = {(c, s): (round_pieces, square_pieces)[s]
                       for c in PColor for s in PShape}
        self.turn = WHITE
        self.history: list[tuple[int, int]] = []
        self.corridors = corridors(rows, cols, n)

    def do_move(self, shape: PShape, col: int) -> int:
        row = self.heights[col]
        if row == self.rows:
            return -1
        self.cells[row][col] = (self.turn, shape)
        self.heights[col] = row + 1
        self.counts[self.turn, shape] -= 1
        self.history.append((row, col))
        self.turn = RED if self.turn is WHITE else WHITE
        return row

    def undo_move(self) -> None:
        row, col = self.history.pop()
        color, shape = self.cells[row][col]  # type: ignore[misc]
        self.cells[row][col] = None
        self.heights[col] = row
        self.counts[color, shape] += 1
        self.turn = color

    def piece_count(self, color: PColor, shape: PShape) -> int:
        return self.counts[color, shape]

    def check_winner(self) -> Winner:
        n, cells = self.n, self.cells
        for index, value, winner in PREDICATES:
            for corridor in self.corridors:
                count = 0
                for r, c in corridor:
                    piece = cells[r][c]
                    if piece is not None and piece[index] == value:
                        count += 1
                        if count == n:
                            return winner
                    else:
                        count = 0
        if len(self.history) == self.rows * self.cols or not any(self.counts.values()):
            return Winner.DRAW
        return Winner.NONE


def playout(board: PlayableBoard, rng: random.Random) -> Winner:
    """Random legal moves until the game is over, checking after each move."""
    cols = board.cols
    none = Winner.NONE
    winner = board.check_winner()
    while winner == none:
        shape = SQUARE if rng.random() < 0.5 else ROUND
        if not board.piece_count(board.turn, shape):
            shape = ROUND if shape else SQUARE
        while board.do_move(shape, rng.randrange(cols)) < 0:
            pass
        winner = board.check_winner()
    return winner


Factory = Callable[[], PlayableBoard]


def play(factory: Factory, seed: int, games: int) -> tuple[float, list[Winner]]:
    """Time `games` playouts on fresh boards; return seconds and results."""
    rng = random.Random(seed)
    results = []
    start = time.perf_counter()
    for _ in range(games):
        results.append(playout(factory(), rng))
    return time.perf_counter() - start, results


def parse_size(text: str) -> tuple[int, int, int]:
    """'6x7' or '9x10:5' -> (rows, cols, win_sequence); n defaults to max(4, ceil(rows/2))."""
    size, _, n = text.partition(":")
    rows, _, cols = size.lower().partition("x")
    try:
        r, c = int(rows), int(cols)
        size = r, c, int(n) if n else max(4, -(-r // 2))
        Board(*size)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"bad size {text!r}: use ROWSxCOLS[:N] ({e})") from None
    return size


def bench_size(rows: int, cols: int, n: int, seconds: float, rounds: int,
               seed: int) -> tuple[float, float]:
    """Games per second of (Board, PlainBoard) on one board size."""
    pieces = (rows * cols // 4, -(-rows * cols // 4))
    impls: dict[str, Factory] = {
        "Board": lambda: Board(rows, cols, n, *pieces),
        "plain": lambda: PlainBoard(rows, cols, n, *pieces),
    }
    probe = sum(play(f, seed, 5)[0] for f in impls.values()) / 5
    games = max(1, int(seconds / rounds / probe))
    totals = dict.fromkeys(impls, 0.0)
    for r in range(rounds):
        outcomes = []
        order = list(impls) if r % 2 == 0 else list(reversed(impls))
        for name in order:
            elapsed, results = play(impls[name], seed + r, games)
            totals[name] += elapsed
            outcomes.append(results)
        if outcomes[0] != outcomes[1]:
            raise SystemExit(f"{rows}x{cols} n={n}: the boards disagree on round {r}")
    played = games * rounds
    return played / totals["Board"], played / totals["plain"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="rough total running time (default 10)")
    parser.add_argument("--size", type=parse_size, action="append",
                        help="ROWSxCOLS[:N], repeatable (default 6x7:4 and 9x10:5)")
    parser.add_argument("--rounds", type=int, default=6, help="interleaved rounds (default 6)")
    parser.add_argument("--seed", type=int, default=2020)
    args = parser.parse_args(argv)
    sizes = args.size or [(6, 7, 4), (9, 10, 5)]
    print(f"Python {sys.version.split()[0]}, {args.rounds} rounds, seed {args.seed}")
    print(f"{'board':<12}{'Board games/s':>16}{'plain games/s':>16}{'ratio':>9}")
    for rows, cols, n in sizes:
        fast, plain = bench_size(rows, cols, n, args.seconds / len(sizes),
                                 args.rounds, args.seed)
        print(f"{f'{rows}x{cols} n={n}':<12}{fast:>16,.0f}{plain:>16,.0f}{fast / plain:>8.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
