"""The guide's minimax with the enum properties as tuple lookups, against enum calls.

`PColor.other`, `PColor.shape`, `PColor.winner`, `PShape.other` and
`Winner.color` answer from tuples (csl_game.model.values). Before, they built
the member from its value (``PColor(1 - self)``), which a guide-style search
pays for at every node. This script runs the guide's minimax (the built-in
``minimax``, which chooses the same moves as docs/thinkers.md's tutorial) on
the same positions both ways: "before" puts the former property bodies back
into the classes, "after" runs the model as it is. Each side runs in a fresh
interpreter, alternating round after round so the machine's drift hits both
alike, and is timed in CPU seconds; the ratio of the medians is reported, and
both sides must choose the same moves.

    python benchmarks/bench_enums.py                  # depth 3, 7 rounds
    python benchmarks/bench_enums.py --depth 4 --rounds 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

# Runs in a fresh interpreter: argv = depth, "before" or "after", positions (JSON).
SEARCH = r"""
import json, sys, time
from csl_game import (CancellationToken, MatchConfig, PColor, PShape, ThinkerPrototype,
                      Winner)

depth, side, positions = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
if side == "before":  # the property bodies the tables replaced
    def _color(self):
        if self is Winner.WHITE:
            return PColor.WHITE
        if self is Winner.RED:
            return PColor.RED
        return None
    PShape.other = property(lambda self: PShape(1 - self))
    PColor.other = property(lambda self: PColor(1 - self))
    PColor.shape = property(lambda self: PShape(int(self)))
    PColor.winner = property(
        lambda self: Winner.WHITE if self is PColor.WHITE else Winner.RED)
    Winner.color = property(_color)
assert PColor.WHITE.other is PColor.RED and PColor.RED.shape is PShape.SQUARE
mc = MatchConfig(time_limit_ms=3_600_000)
thinker = ThinkerPrototype("minimax", depth, mc).create()
moves, seconds = [], 0.0
for position in positions:
    board = mc.new_board()
    for col, shape in position:
        board.do_move(PShape(shape), col)
    start = time.process_time()
    move = thinker.think(board, CancellationToken())
    seconds += time.process_time() - start
    moves.append([move.column, int(move.shape)])
print(json.dumps({"seconds": seconds, "moves": moves}))
"""

# 6x7 positions (moves as (column, shape)) from the opening to the middle game.
POSITIONS = [
    [],
    [(3, 0), (3, 1)],
    [(3, 0), (3, 1), (2, 0), (4, 1)],
    [(3, 0), (2, 1), (4, 0), (3, 1), (1, 0), (5, 1)],
    [(3, 0), (3, 1), (3, 0), (2, 1), (4, 0), (4, 1), (2, 0), (5, 1)],
    [(3, 0), (3, 1), (2, 0), (4, 1), (4, 0), (2, 1), (3, 0), (5, 1), (1, 0), (3, 1)],
]


def run(depth: int, side: str) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", SEARCH, str(depth), side,
                          json.dumps(POSITIONS)],
                         cwd=HERE, capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(f"{side}: {out.stderr.strip()}")
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=3, help="minimax depth (default 3)")
    parser.add_argument("--rounds", type=int, default=7,
                        help="alternating rounds (default 7)")
    args = parser.parse_args(argv)
    times: dict[str, list[float]] = {"before": [], "after": []}
    moves: dict[str, object] = {}
    for r in range(args.rounds):
        for side in (("before", "after") if r % 2 == 0 else ("after", "before")):
            result = run(args.depth, side)
            times[side].append(float(result["seconds"]))  # type: ignore[arg-type]
            moves.setdefault(side, result["moves"])
    before, after = statistics.median(times["before"]), statistics.median(times["after"])
    same = "same moves" if moves["before"] == moves["after"] else "MOVES DIFFER"
    print(f"guide minimax, depth {args.depth}, {len(POSITIONS)} positions, "
          f"{args.rounds} alternating rounds (median CPU seconds)")
    print(f"  before (enum calls):    {before:8.3f} s")
    print(f"  after (tuple lookups):  {after:8.3f} s")
    print(f"  speed-up:               {before / after:8.2f}x   {same}")
    return 0 if moves["before"] == moves["after"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
