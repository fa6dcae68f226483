"""Time forfeits and the harness's overhead of an SPRT at a fast time control.

Plays GAMES games of THINKER against itself (`csl-game sprt`, one game per
core, bounds wide enough that the test never stops early), then reads the
results file: games lost on time (or by any other forfeit), the longest
move, and the harness's overhead per game: the wall time of the run times
the games played at once, divided by the games, less the thinkers' own time
per game (the moves' recorded thinking times).

    python benchmarks/sprt_timeouts.py [--games 2000] [-t 50] [--thinker negamax]
        [--clock wall]  (the moves' thinking times on the wall clock, as the run's:
                         on a busy machine, CPU times understate what a move held its slot)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("-t", "--time-limit", type=int, default=50)
    parser.add_argument("--thinker", default="negamax")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "r.jsonl"
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "csl_game", "sprt", args.thinker, args.thinker,
                        "--elo0", "-1", "--elo1", "1", "--alpha", "1e-12", "--beta", "1e-12",
                        "-t", str(args.time_limit), "--max-games", str(args.games), "-q",
                        "--workers", str(args.workers), "--results", str(results),
                        "--clock", args.clock],
                       check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - started
        docs = [json.loads(line) for line in results.read_text().splitlines()]
    reasons = Counter(d["forfeit"] for d in docs if d["forfeit"])
    for d in docs:
        if d["forfeit"]:
            print(f"  {d['forfeit']}: {d['detail'].splitlines()[0]}")
    thinking = sum(m["ms"] for d in docs for m in d["moves"]) / 1000
    longest = max(m["ms"] for d in docs for m in d["moves"])
    games = len(docs)
    per_game = wall * args.workers / games
    print(f"{games} games of {args.thinker} vs itself at {args.time_limit} ms a move, "
          f"{args.workers} at once, in {wall:.0f} s")
    print(f"forfeits: {dict(reasons) or 'none'}; time forfeits: "
          f"{reasons.get('timeout', 0) + reasons.get('ignored_cancellation', 0)} in {games}")
    print(f"longest move: {longest:.1f} ms ({longest / args.time_limit:.2f} of the limit)")
    print(f"per game: {per_game:.3f} s of a worker slot, {thinking / games:.3f} s thinking, "
          f"overhead {per_game - thinking / games:.3f} s "
          f"({(per_game - thinking / games) / per_game:.1%} of the slot)")


if __name__ == "__main__":
    main()
