"""A thinker's reach ends with its match: the descriptors it inherits, the
processes it starts (issue: every peer is hostile)."""

from __future__ import annotations

import contextlib
import os
import time
from functools import partial
from pathlib import Path

import pytest

from csl_game import MatchConfig, ThinkerPrototype
from csl_game.engine import RunOptions, Session, SessionOptions, ThinkingInfo
from csl_game.engine.match import Match
from csl_game.engine.runners.process import ProcessRunner, WorkerPool
from procs import alive, descendants

MISBEHAVING = (str(Path(__file__).parent / "misbehaving"),)
POSIX = pytest.mark.skipif(os.name != "posix", reason="file descriptors and fork are POSIX's")


def _own_pid(pid: int) -> str:
    """`pid` as the process itself sees it (in its own PID namespace, on Linux)."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("NSpid:"):
                return line.split()[-1]
    return str(pid)


@POSIX
def test_a_byte_in_every_inherited_pipe_costs_only_its_own_matches() -> None:
    """With two matches at once, a thinker writing into every pipe it can find
    leaves every other match to end as it would have (no worker died)."""
    mc = MatchConfig(time_limit_ms=500)
    names = [("pipewriter", ""), ("sequential", ""), ("random", "1"), ("minimax", "1")]
    players = [ThinkerPrototype(n, p, mc, MISBEHAVING) for n, p in names]
    session = Session(players, mc, SessionOptions(run=RunOptions(foreground=False, workers=2)))
    session.run()
    assert len(session.records) == 12
    for record in session.records:
        if 0 in (record.white, record.red):
            continue  # the pipe writer's own matches: what they come to is its doing
        assert record.result.forfeit is None, record.result.detail


@POSIX
@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork")
def test_a_forked_child_ends_with_the_match_when_its_worker_is_kept() -> None:
    mc = MatchConfig(time_limit_ms=1000)
    pool = WorkerPool()
    started: set[int] = set()
    try:
        match = Match(mc, ThinkerPrototype("orphan", "", mc, MISBEHAVING),
                      ThinkerPrototype("sequential", "", mc), partial(ProcessRunner, pool=pool))
        worker = match._runners[0].pid  # type: ignore[union-attr]  # noqa: SLF001
        assert worker is not None

        def look(event: object) -> None:  # the child lives while the move is played
            if isinstance(event, ThinkingInfo) and event.text.startswith("forked "):
                said = event.text.split()[1]  # as the worker sees it (in its namespace)
                started.update(p for p in descendants(worker, helpers=True)
                               if _own_pid(p) == said)

        match.subscribe(look)
        match.run()
        assert started  # the thinker's child was seen
        deadline = time.monotonic() + 5
        while any(alive(p) for p in started) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not any(alive(p) for p in started)  # the match is over: the child with it
        assert alive(worker) and pool.reused == 0  # kept for reuse
    finally:
        pool.close()
