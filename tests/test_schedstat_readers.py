"""The schedstat readers on real processes (the unit tier starts none, so they
are here and not in tests/test_schedstat_clock.py): waits for a core seen,
a sleeping process read as not runnable, a thinker's own clock counting its
sleep."""

from __future__ import annotations

import os
import time

import pytest

from csl_game.engine.runners.clocks import TreeClock, schedstat_works
from csl_game.engine.runners.schedstat import ThreadWaits

linux = pytest.mark.skipif(not schedstat_works(), reason="no schedstat on this system")


@linux
def test_processes_that_share_a_core_are_seen_waiting_for_it() -> None:
    """Two processes spinning on one core: each waits for it about half the
    time, and the sum of their threads' waits says so."""
    import subprocess
    import sys
    if not hasattr(os, "sched_setaffinity"):
        pytest.skip("no CPU affinity")
    core = min(os.sched_getaffinity(0))
    code = (f"import os, time\nos.sched_setaffinity(0, {{{core}}})\nprint(flush=True)\n"
            "end = time.perf_counter() + 30\nwhile time.perf_counter() < end: pass\n")
    born = time.perf_counter()
    children = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
                for _ in range(2)]
    try:
        for child in children:  # both on the core, spinning (a busy machine starts them late)
            assert child.stdout is not None and child.stdout.readline() == b"\n"
        waits, pids = ThreadWaits(), [str(c.pid) for c in children]
        began, start = time.perf_counter(), waits.read(pids)
        waited = 0.0
        while waited <= 0.05 and time.perf_counter() - began < 10:
            time.sleep(0.2)  # (one 0.2 s span on an idle machine; more while others
            waited = (waits.read(pids) - start) / 1e9  # hold both children off the core)
        span, lived = time.perf_counter() - began, time.perf_counter() - born
        assert waits.runnable()
    finally:
        for child in children:
            child.kill()
            child.wait()
    # about 0.2 s a 0.2 s span on an idle machine (one of the two waits at any
    # time); on a busy one both wait more. A wait is counted once it ends: one
    # under way at the first reading comes whole in a later one, so each
    # process's share is at most its life so far, not the span.
    assert 0.05 < waited <= 2 * lived, (waited, span)


@linux
def test_the_tree_clock_reads_a_sleeping_process_as_not_runnable() -> None:
    import subprocess
    import sys

    import psutil
    child = subprocess.Popen([sys.executable, "-c", "print(flush=True)\nimport time\n"
                              "time.sleep(30)"], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline() == b"\n"
        tree = TreeClock(psutil.Process(child.pid))
        assert tree.waits_known
        tree.read()
        first = tree.waits()
        deadline = time.monotonic() + 10  # a busy machine may take a while to run it to its sleep
        while tree.runnable() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not tree.runnable()
        assert tree.waits() >= first >= 0
    finally:
        child.kill()
        child.wait()


OWN_CLOCK = """
import time
from csl_game.engine.runners.clocks import own_clock
clock = own_clock("cpu")
time.sleep(0.05)
slept = clock()
busy_until = time.process_time() + 0.02
while time.process_time() < busy_until:
    pass
print(slept, clock())
"""


@linux
def test_the_thinkers_own_clock_counts_its_sleep() -> None:
    """In a process of one thread, as a worker is while its thinker thinks
    (here another thread's wait for a core would cover the sleep)."""
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", OWN_CLOCK], capture_output=True, text=True,
                         check=True, timeout=60).stdout.split()
    slept, then = float(out[0]), float(out[1])
    assert slept >= 0.045
    assert then >= max(slept, 0.02)  # its CPU time at least, busy machine or not
