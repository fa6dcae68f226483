"""A worker's descendants as csl_game.engine.runners.tree finds them: from
/proc/PID/task/*/children on Linux (no walk over every process of the
machine), the same processes as psutil's walk finds."""

from __future__ import annotations

import subprocess
import sys
import time

import psutil
import pytest

from csl_game.engine.runners.tree import descendant_pids, descendants, end_descendants

# a child that starts a grandchild, both sleeping until killed
FAMILY = ("import subprocess, sys, time; "
          "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
          "time.sleep(60)")


def test_the_fast_walk_finds_what_psutil_finds_and_end_descendants_ends_them() -> None:
    root = subprocess.Popen([sys.executable, "-c", FAMILY])
    try:
        proc = psutil.Process(root.pid)
        deadline = time.monotonic() + 20
        while len(proc.children(recursive=True)) < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        walked = {p.pid for p in proc.children(recursive=True)}
        assert walked, "the grandchild started"
        if sys.platform.startswith("linux"):
            assert set(descendant_pids(root.pid) or ()) == walked
        assert {p.pid for p in descendants(proc)} == walked
        me = psutil.Process()
        assert {p.pid for p in descendants(me)} >= {root.pid, *walked}
        assert end_descendants(proc)
        assert not [p for p in proc.children(recursive=True)
                    if p.status() != psutil.STATUS_ZOMBIE]
    finally:
        root.kill()
        root.wait(timeout=10)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the /proc walk is Linux's")
def test_a_gone_process_has_no_fast_walk() -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(timeout=10)
    assert descendant_pids(gone.pid) is None
