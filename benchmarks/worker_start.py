"""How long a worker process takes to be ready: started, thinker loaded, set up, named.

    python benchmarks/worker_start.py [N]

Prints the start method and the median and worst of N starts (default 20).
Run with PYTHONPATH=tests/platform_sim CSL_SIMULATE=spawn to see the spawn
start method on a machine that has a fork server.
"""

from __future__ import annotations

import statistics
import sys
import time

from csl_game import MatchConfig, ThinkerPrototype
from csl_game.engine import SetupProbe
from csl_game.engine.runners.handle import mp_context, start_server_soon


def main(n: int) -> None:
    start_server_soon()
    prototype = ThinkerPrototype("minimax", "2", MatchConfig())
    SetupProbe(prototype).wait()  # the fork server's own start is not a worker's
    times = []
    for _ in range(n):
        started = time.perf_counter()
        report = SetupProbe(prototype).wait()
        times.append(time.perf_counter() - started)
        assert report is not None and report.ok, report
    print(f"{type(mp_context()).__name__}: median {statistics.median(times) * 1000:.0f} ms, "
          f"worst {max(times) * 1000:.0f} ms over {n} workers")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
