"""Time losses per 1,000 games at a fast time control, idle and under load.

For each load (0, 2 and 6 busy processes beside the run, on this machine's
cores) and each clock (``cpu``, the default, and the reference's ``wall``),
plays GAMES games of `csl-game sprt NEW BASE -t MS --workers 2` (bounds wide
enough that the test never stops early) and counts the games lost on time in
its results file; also the run's wall time, which load stretches on the cpu
clock instead of deciding games.

    python benchmarks/clock_load.py [--games 200] [-t 50] [--loads 0 2 6] [--clocks cpu wall]

The figures for the issue "The clock never decides a game by accident" came
from this script; the closing note gives them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from under_load import BURN  # noqa: E402


def run(games: int, limit: int, clock: str, burners: int, new: str, base: str,
        workers: int) -> tuple[Counter[str], int, float]:
    """Forfeits by reason, games played and wall seconds of one sprt run."""
    spinning = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(burners)]
    try:
        time.sleep(0.5 if burners else 0)
        with tempfile.TemporaryDirectory() as tmp:
            results = Path(tmp) / "r.jsonl"
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "csl_game", "sprt", new, base,
                            "--elo0", "-1", "--elo1", "1", "--alpha", "1e-12", "--beta",
                            "1e-12", "-t", str(limit), "--clock", clock, "--max-games",
                            str(games), "-q", "--workers", str(workers), "--results",
                            str(results)], check=True, stdout=subprocess.DEVNULL)
            wall = time.perf_counter() - started
            docs = [json.loads(line) for line in results.read_text().splitlines()]
    finally:
        for p in spinning:
            p.kill()
            p.wait()
    return Counter(d["forfeit"] for d in docs if d["forfeit"]), len(docs), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("-t", "--time-limit", type=int, default=50)
    parser.add_argument("--loads", type=int, nargs="+", default=[0, 2, 6])
    parser.add_argument("--clocks", nargs="+", default=["cpu", "wall"])
    parser.add_argument("--new", default="negamax")
    parser.add_argument("--base", default="negamax depth=3")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    print(f"{args.new!r} against {args.base!r}, {args.games} games a run at "
          f"{args.time_limit} ms, --workers {args.workers}")
    print(f"{'clock':6} {'busy':>4} {'games':>6} {'on time':>8} {'per 1000':>9} "
          f"{'other forfeits':>15} {'wall s':>7}")
    for clock in args.clocks:
        for load in args.loads:
            forfeits, games, wall = run(args.games, args.time_limit, clock, load, args.new,
                                        args.base, args.workers)
            timeouts = forfeits.pop("timeout", 0)
            others = ", ".join(f"{k} {v}" for k, v in sorted(forfeits.items())) or "-"
            print(f"{clock:6} {load:>4} {games:>6} {timeouts:>8} "
                  f"{1000 * timeouts / max(games, 1):>9.1f} {others:>15} {wall:>7.1f}",
                  flush=True)


if __name__ == "__main__":
    main()
