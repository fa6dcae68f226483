"""Run a command while CPU-burning processes keep the machine busy.

    python benchmarks/under_load.py --burners 2 -- csl-game league --thinker negamax \\
        --thinker "minimax 3" --thinker mcts --games 25 --markdown

Each burner is a Python process spinning ``while True: pass`` at normal
priority, started before the command and ended (by its own process id) when
the command ends, however it ends. On the project's 2-core machine two
burners leave the command's processes about two thirds of a core each while
they run: the load the time margins of the search thinkers must absorb. The
script prints the load average before and after, and exits with the
command's exit code.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Sequence

BURN = "while True: pass"


def run_loaded(command: Sequence[str], burners: int, warmup: float = 1.0) -> int:
    """Run `command` with `burners` busy-looping processes beside it; its exit code."""
    spinning = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(burners)]
    try:
        time.sleep(warmup)  # the burners are running before the command starts
        return subprocess.run(list(command), check=False).returncode
    finally:
        for burner in spinning:
            burner.kill()
            burner.wait()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--burners", type=int, default=2,
                        help="CPU-burning processes beside the command (default 2)")
    parser.add_argument("command", nargs=argparse.REMAINDER,
                        help="the command and its arguments, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given (put it after --)")
    print(f"# {args.burners} burner(s) on {os.cpu_count()} cores; load average before: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", file=sys.stderr, flush=True)
    code = run_loaded(command, args.burners)
    print(f"# load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}",
          file=sys.stderr, flush=True)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
