"""Nothing left behind: a thinker's process tree, its threads, file descriptors."""

from __future__ import annotations

import gc
import os
import time
from functools import partial
from pathlib import Path

import pytest

from csl_game import MatchConfig, ThinkerPrototype, Winner
from csl_game.engine import Match
from csl_game.engine.runners.process import ProcessRunner, WorkerPool
from procs import descendants, gone_within, marked, open_fds

MISBEHAVING = (str(Path(__file__).parent / "misbehaving"),)
MC = MatchConfig(rows=4, cols=4, win_sequence=3, round_pieces=4, square_pieces=4,
                 time_limit_ms=5000)


def proto(name: str, params: str = "") -> ThinkerPrototype:
    return ThinkerPrototype(name, params, MC, MISBEHAVING)


@pytest.mark.parametrize("params", ["", "setsid"])
def test_a_thinkers_children_die_with_its_worker(params: str) -> None:
    before = descendants(os.getpid())
    pool = WorkerPool()
    try:
        match = Match(MC, proto("forker", params), proto("sequential"),
                      partial(ProcessRunner, pool=pool))
        match.update()
        family: set[int] = set()
        deadline = time.monotonic() + 20
        while not match.is_over and time.monotonic() < deadline:
            match.update()
            family |= descendants(os.getpid()) - before
            match.wait(0.02)
        assert match.result is not None and match.result.forfeit is None
        assert len(family) >= 3, "the worker, its child and grandchild"
    finally:
        match.close()
        pool.close()
    assert gone_within(family, 1.0)
    assert not marked(os.getpid())


def test_a_worker_whose_thinker_left_a_thread_is_not_reused() -> None:
    pool = WorkerPool()
    try:
        pids = []
        for _ in range(2):
            match = Match(MC, proto("linger"), proto("sequential"),
                          partial(ProcessRunner, pool=pool))
            pids.append([r.pid for r in match._runners if r is not None])  # noqa: SLF001
            match.run()
            assert match.result is not None and match.result.forfeit is None
        assert pids[0][0] != pids[1][0], "the lingering thinker's worker was not kept"
        assert pids[0][1] == pids[1][1], "the clean one's was"
    finally:
        pool.close()
    assert gone_within([p for pair in pids for p in pair], 1.0)


def test_no_file_descriptor_is_left_per_match() -> None:
    """Each match starts and ends two workers; their pipes and process handles go at once
    (measured over 1,000 matches: no growth; here over 15, where a descriptor
    left by each match would grow by 15)."""
    def one() -> None:
        match = Match(MC, ThinkerPrototype("sequential", "", MC),
                      ThinkerPrototype("sequential", "", MC), ProcessRunner)
        try:
            assert match.run().winner is not Winner.NONE
        finally:
            match.close()

    one()
    gc.collect()
    gc.disable()  # nothing is left to the collector to close
    try:
        before = open_fds()
        for _ in range(15):
            one()
        after = open_fds()
    finally:
        gc.enable()
    assert after - before <= 2
