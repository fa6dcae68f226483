"""Side-by-side search depth of negamax in two checkouts, at the time limits of play.

Each checkout thinks on the same positions (middle-game positions from a
seeded random walk that leaves no win in one) under the match's time limit,
cancelled at the limit as a runner does, and the script reports the average
depth of the deepest finished iteration, nodes per second of wall time and
of CPU time, and the slowest move. The boards are 6x7 and 8x9 at 200 ms and
the competition's unknown-track boards (win sequence ceil(rows / 2), time
25 x max(rows, cols) ms). Runs alternate between the checkouts, round after
round, so that the machine's drift hits both alike.

Each checkout runs under its own interpreter: ``DIR/.venv/bin/python`` if it
has one (needed when the built-in thinkers are installed editable from the
top-level thinkers/ folder), else this interpreter with DIR on PYTHONPATH.

    python benchmarks/bench_depth.py --base ../strength-base
    python benchmarks/bench_depth.py --base ../strength-base --rounds 3 --positions 8
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

# (label, rows, cols, win sequence, time limit in ms or 0 for unknown track)
BOARDS = [("6x7 n=4 200ms", 6, 7, 4, 200), ("8x9 n=4 200ms", 8, 9, 4, 200),
          ("12x12 n=6 300ms", 12, 12, 6, 0), ("18x22 n=9 550ms", 18, 22, 9, 0),
          ("9x37 n=5 925ms", 9, 37, 5, 0)]

SEARCH = r"""
import json, re, sys, threading, time
from csl_game import CancellationToken, MatchConfig, PShape, ThinkerPrototype
spec = json.loads(sys.argv[1])
out = []
for rows, cols, n, limit, games in spec:
    if limit:
        mc = MatchConfig(rows, cols, n, rows * cols // 4, -(-rows * cols // 4),
                         time_limit_ms=limit)
    else:
        mc = MatchConfig.unknown_track(rows, cols)
    depths, nodes, wall, cpu, slowest = [], 0, 0.0, 0.0, 0.0
    lines = []
    thinker = ThinkerPrototype("negamax", "", mc).create(lines.append)
    for moves in games:
        lines.clear()
        board = mc.new_board()
        for col, shape in moves:
            board.do_move(PShape(shape), col)
        ct = CancellationToken()
        timer = threading.Timer(mc.time_limit_ms / 1000, ct.cancel)
        timer.start()
        start, start_cpu = time.perf_counter(), time.process_time()
        thinker.think(board, ct)
        took, took_cpu = time.perf_counter() - start, time.process_time() - start_cpu
        timer.cancel()
        slowest = max(slowest, took)
        words = dict(re.findall(r"(\w+)=(\d+)", " ".join(l for l in lines if "depth=" in l)))
        if "depth" in words:
            depths.append(int(words["depth"]))
            nodes += int(words["nodes"])
            wall += took
            cpu += took_cpu
    out.append({"depth": sum(depths) / max(len(depths), 1), "searched": len(depths),
                "nps": nodes / max(wall, 1e-9), "cpu_nps": nodes / max(cpu, 1e-9),
                "slowest_ms": slowest * 1000})
print(json.dumps(out))
"""


def positions(rows: int, cols: int, n: int, count: int, seed: int) -> list[list[list[int]]]:
    """Move lists of `count` positions, 10 % to 45 % of the board filled: a
    random walk that never completes a run nor leaves the opponent a win in one."""
    from csl_game.model.core import FastBoard, geometry

    geo = geometry(rows, cols, n, rows * cols // 4, -(-rows * cols // 4))
    rng = random.Random(seed)
    found: list[list[list[int]]] = []
    while len(found) < count:
        pos = FastBoard(geo)
        target = int(rows * cols * (0.1 + 0.35 * len(found) / max(count - 1, 1)))
        moves: list[list[int]] = []
        while len(moves) < target:
            safe = [m for m in pos.legal_moves() if _quiet(pos, m)]
            if not safe:
                break
            m = rng.choice(safe)
            pos.play(m >> 1, m & 1)
            moves.append([m >> 1, m & 1])
        if len(moves) == target:
            found.append(moves)
    return found


def _quiet(pos: object, move: int) -> bool:
    """Whether `move` neither ends the game nor gives the opponent a win in one."""
    from csl_game.model.core import FastBoard
    from csl_game.model.values import Winner

    assert isinstance(pos, FastBoard)
    pos.play(move >> 1, move & 1)
    quiet = pos.winner_after(move & 1) is Winner.NONE
    for reply in pos.legal_moves() if quiet else ():
        pos.play(reply >> 1, reply & 1)
        over = pos.winner_after(reply & 1) is not Winner.NONE
        pos.undo(reply >> 1)
        if over:
            quiet = False
            break
    pos.undo(move >> 1)
    return quiet


def run(tree: Path, spec: str) -> list[dict[str, float]]:
    own = tree / ".venv" / "bin" / "python"
    python = str(own) if own.exists() else sys.executable
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([python, "-c", SEARCH, spec], env=env, cwd=tree,
                         capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(f"{tree}: {out.stderr.strip()}")
    result: list[dict[str, float]] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the other checkout")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--positions", type=int, default=6,
                        help="positions per board (default 6)")
    args = parser.parse_args(argv)
    trees = {"this": HERE, "base": args.base.resolve()}
    spec = json.dumps([(r, c, n, t, positions(r, c, n, args.positions, 1000 * r + c))
                       for _, r, c, n, t in BOARDS])
    results: dict[str, list[list[dict[str, float]]]] = {"this": [], "base": []}
    for i in range(args.rounds):
        for label in (("this", "base") if i % 2 == 0 else ("base", "this")):
            results[label].append(run(trees[label], spec))
    print(f"this: {trees['this']}\nbase: {trees['base']}\n{args.rounds} alternating rounds "
          f"x {args.positions} positions a board; medians of the rounds\n")
    print(f"{'board':<18}{'depth':>13}{'nodes/s (wall)':>22}{'nodes/s (CPU)':>22}"
          f"{'slowest ms':>14}")
    print(f"{'':<18}{'this':>6}{'base':>7}{'this':>8}{'base':>8}{'ratio':>6}"
          f"{'this':>8}{'base':>8}{'ratio':>6}{'this':>7}{'base':>7}")
    for b, (name, *_rest) in enumerate(BOARDS):
        def med(label: str, key: str, b: int = b) -> float:
            return statistics.median(r[b][key] for r in results[label])
        print(f"{name:<18}{med('this', 'depth'):>6.2f}{med('base', 'depth'):>7.2f}"
              f"{med('this', 'nps'):>8.0f}{med('base', 'nps'):>8.0f}"
              f"{med('this', 'nps') / med('base', 'nps'):>6.2f}"
              f"{med('this', 'cpu_nps'):>8.0f}{med('base', 'cpu_nps'):>8.0f}"
              f"{med('this', 'cpu_nps') / med('base', 'cpu_nps'):>6.2f}"
              f"{max(r[b]['slowest_ms'] for r in results['this']):>7.0f}"
              f"{max(r[b]['slowest_ms'] for r in results['base']):>7.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
