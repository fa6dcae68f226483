"""Side-by-side speed of two checkouts of csl_game: board playouts, negamax nodes/s
and the guide's minimax.

Each measurement runs in a fresh interpreter with one checkout first on its
import path, alternating between the two checkouts round after round, so that
the machine's drift hits both alike; the ratio of the medians is reported.
Rates are per second of the process's CPU time (``time.process_time``), which
other work on the machine disturbs far less than wall-clock time.
Only the public API is used (``from csl_game import ...``), so any revision
can be compared with any other. A checkout with a venv of its own (``DIR/.venv``)
runs under that venv's interpreter: an editable install maps the built-in
thinkers to its own tree whatever PYTHONPATH says.

    git worktree add --detach ../base 9a3a9ad
    python benchmarks/compare_revisions.py --base ../base            # this checkout vs ../base
    python benchmarks/compare_revisions.py --base ../base --rounds 9 --only board
    python benchmarks/compare_revisions.py --base ../base --only minimax
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

BOARD = r"""
import json, random, sys, time
from csl_game import Board
sys.path.insert(0, sys.argv[6])
from bench_board import playout  # this checkout's playout, on the measured checkout's Board
rows, cols, n, games, seed = map(int, sys.argv[1:6])
pieces = (rows * cols // 4, -(-rows * cols // 4))
rng = random.Random(seed)
start = time.process_time()
results = [playout(Board(rows, cols, n, *pieces), rng) for _ in range(games)]
elapsed = time.process_time() - start
print(json.dumps({"rate": games / elapsed, "check": [int(r) for r in results[:50]]}))
"""

NEGAMAX = r"""
import json, re, sys, time
from csl_game import Board, CancellationToken, MatchConfig, PShape, ThinkerPrototype
depth = int(sys.argv[1])
spec = json.loads(sys.argv[2])
nodes, seconds = 0, 0.0
for rows, cols, n, moves in spec:
    mc = MatchConfig(rows=rows, cols=cols, win_sequence=n, round_pieces=rows * cols // 4,
                     square_pieces=-(-rows * cols // 4), time_limit_ms=3_600_000)
    lines = []
    thinker = ThinkerPrototype("negamax", f"depth={depth}", mc).create(lines.append)
    board = mc.new_board()
    for col, shape in moves:
        board.do_move(PShape(shape), col)
    start = time.process_time()
    thinker.think(board, CancellationToken())
    seconds += time.process_time() - start
    words = dict(re.findall(r"(\w+)=(\d+)", " ".join(lines)))
    nodes += int(words.get("nodes", 0))
print(json.dumps({"rate": nodes / seconds, "check": [nodes]}))
"""

MINIMAX = r"""
import json, sys, time
from csl_game import CancellationToken, MatchConfig, PShape, ThinkerPrototype
depth = sys.argv[1]
spec = json.loads(sys.argv[2])
moves, seconds = [], 0.0
for rows, cols, n, played in spec:
    if (rows, cols) != (6, 7):
        continue
    mc = MatchConfig(rows=rows, cols=cols, win_sequence=n, time_limit_ms=3_600_000)
    thinker = ThinkerPrototype("minimax", depth, mc).create()
    for _ in range(3):
        board = mc.new_board()
        for col, shape in played:
            board.do_move(PShape(shape), col)
        start = time.process_time()
        move = thinker.think(board, CancellationToken())
        seconds += time.process_time() - start
        moves.append([move.column, int(move.shape)])
print(json.dumps({"rate": len(moves) / seconds, "check": moves}))
"""

# Opening positions (rows, cols, n, moves as (column, shape)) searched to a fixed depth.
POSITIONS = [
    (6, 7, 4, [(3, 0), (3, 1), (2, 0), (4, 1)]),
    (6, 7, 4, [(3, 0), (2, 1), (4, 0), (3, 1), (1, 0), (5, 1)]),
    (8, 9, 4, [(4, 0), (4, 1), (3, 0), (5, 1)]),
    (9, 10, 5, [(5, 0), (4, 1), (5, 0), (6, 1)]),
]


def run(tree: Path, code: str, args: Sequence[str]) -> dict[str, object]:
    # An editable install maps csl_game.thinkers to its own tree's thinkers/
    # folder whatever PYTHONPATH says, so a checkout with a venv of its own
    # must run under that venv's interpreter.
    own = tree / ".venv" / "bin" / "python"
    python = str(own) if own.exists() else sys.executable
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([python, "-c", code, *args], env=env, cwd=tree,
                         capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(f"{tree}: {out.stderr.strip().splitlines()[-1]}")
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def compare(name: str, base: Path, code: str, args: Sequence[str], rounds: int) -> float:
    rates: dict[str, list[float]] = {"this": [], "base": []}
    checks: dict[str, object] = {}
    for r in range(rounds):
        order = (("this", HERE), ("base", base)) if r % 2 == 0 else (("base", base),
                                                                      ("this", HERE))
        for label, tree in order:
            result = run(tree, code, args)
            rates[label].append(float(result["rate"]))  # type: ignore[arg-type]
            checks.setdefault(label, result["check"])
    this, old = statistics.median(rates["this"]), statistics.median(rates["base"])
    same = "same results" if checks["this"] == checks["base"] else "RESULTS DIFFER"
    print(f"{name:<34}{this:>12,.0f}{old:>12,.0f}{this / old:>9.3f}   {same}", flush=True)
    return this / old


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True,
                        help="the other checkout (e.g. a git worktree of an older commit)")
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds (default 7)")
    parser.add_argument("--only", choices=("board", "negamax", "minimax"), action="append")
    parser.add_argument("--depth", type=int, default=6, help="negamax search depth (default 6)")
    args = parser.parse_args(argv)
    base = args.base.resolve()
    only = args.only or ["board", "negamax", "minimax"]
    print(f"this: {HERE}\nbase: {base}\n{args.rounds} alternating rounds, medians\n")
    print(f"{'measure':<34}{'this':>12}{'base':>12}{'ratio':>9}")
    if "board" in only:
        for rows, cols, n, games in ((6, 7, 4, 3000), (9, 10, 5, 1200)):
            compare(f"board playouts/s {rows}x{cols} n={n}", base, BOARD,
                    [*(str(v) for v in (rows, cols, n, games, 2020)), str(HERE / "benchmarks")],
                    args.rounds)
    if "negamax" in only:
        compare(f"negamax nodes/s (depth {args.depth})", base, NEGAMAX,
                [str(args.depth), json.dumps(POSITIONS)], args.rounds)
    if "minimax" in only:
        compare("guide minimax searches/s (depth 3)", base, MINIMAX,
                ["3", json.dumps(POSITIONS)], args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
