"""Does a search lose speed when the window is open?

Plays negamax against negamax for a while in the window (SDL's dummy driver,
the full 60 FPS frame loop, each AI in its worker process) and the same
match headless in the terminal, in one run, and compares the nodes per
second the thinkers report.

    python benchmarks/bench_gui_search.py [--seconds 20] [--time-limit 1000]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

NPS = re.compile(r"says: depth=\d+ nodes=\d+ nps=(\d+)")


def collect(argv: list[str], seconds: float) -> list[int]:
    """Run the program for `seconds` and return every nps figure it logged."""
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    proc = subprocess.Popen([sys.executable, "-m", "csl_game", *argv], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    figures: list[int] = []
    deadline = time.monotonic() + seconds
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            m = NPS.search(line)
            if m:
                figures.append(int(m[1]))
            if time.monotonic() > deadline:
                break
    finally:
        proc.terminate()
        proc.wait(10)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--time-limit", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    t = str(args.time_limit)
    gui_argv = ["play", "--auto", "--ai", "negamax", "--ai", "negamax", "-t", t]
    cli_argv = ["match", "-W", "negamax", "-R", "negamax", "-t", t]
    gui: list[int] = []
    headless: list[int] = []
    for _ in range(args.rounds):
        gui += collect(gui_argv, args.seconds)
        headless += collect(cli_argv, args.seconds)
    g, h = statistics.median(gui), statistics.median(headless)
    print(f"negamax at {t} ms a move, median nodes/s over {len(gui)} and "
          f"{len(headless)} moves")
    print(f"window open: {g:,.0f}   headless: {h:,.0f}   ratio: {g / h:.2f}")


if __name__ == "__main__":
    main()
