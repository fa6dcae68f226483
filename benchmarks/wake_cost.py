"""What one wake-up of an idle asyncio process costs in CPU on this machine.

An event loop that sleeps and wakes RATE times a second doing nothing else
(a bare `asyncio.sleep` loop), its process's CPU time (user and system)
divided by its wake-ups. A server at a light load spends most of its CPU
on such wake-ups (one for each message from a client, each batch
committed, each notification from another process), so this figure reads
the light-load figures of server_load.py: on a machine where a wake-up
costs 150 us, a move that wakes two processes once more each costs 0.3 ms
more, whatever its own work.

    python benchmarks/wake_cost.py                # 100 and 20 wake-ups a second, 10 s each
    python benchmarks/wake_cost.py --rates 1000 --seconds 5
"""

from __future__ import annotations

import argparse
import asyncio
import time


async def wakes(rate: float, seconds: float) -> tuple[int, float]:
    """Wake-ups made and CPU seconds used sleeping 1 / `rate` s at a time for `seconds`."""
    cpu, until = time.process_time(), time.monotonic() + seconds
    count = 0
    while time.monotonic() < until:
        await asyncio.sleep(1 / rate)
        count += 1
    return count, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rates", type=float, nargs="+", default=[100.0, 20.0])
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    for rate in args.rates:
        count, cpu = asyncio.run(wakes(rate, args.seconds))
        print(f"{rate:g} a second: {count} wake-ups, {cpu / max(1, count) * 1e6:.0f} us "
              f"of CPU each")


if __name__ == "__main__":
    main()
