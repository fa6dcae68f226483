"""Running a thinker in a worker process, so a misbehaving AI costs only its match.

`ProcessRunner` is a drop-in `RunnerFactory` beside `ThreadRunner`: one worker
process per runner (that is, per player and match), reused for every move.
A thinker that raises, overruns, ignores cancellation, crashes its
interpreter or exhausts its memory cap loses with a named `ForfeitReason`;
the worker and every process it started are killed when needed and never
outlive the program. The parent runs no thinker code: even the thinker's
name comes from its worker. The worker's side is `csl_game.engine.runners.worker`,
the parent's end of one worker `csl_game.engine.runners.handle`.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import weakref
from dataclasses import replace
from typing import Any

from csl_game.engine.runners.answer import MoveAnswer
from csl_game.engine.runners.base import (
    CANCEL_GRACE,
    MEMORY_LIMIT_MB,
    SETUP_TIME_LIMIT,
    Forfeit,
    ForfeitReason,
    InfoCallback,
    ThinkJob,
    ThinkOutcome,
    TimedRunner,
)
from csl_game.engine.runners.clocks import MoveClock
from csl_game.engine.runners.handle import WorkerHandle, close_workers, start_server_soon
from csl_game.engine.runners.protocol import (
    Answered,
    Cancel,
    OutOfMemory,
    Raised,
    Reply,
    Think,
    WorkerSpec,
)
from csl_game.model.board import Board
from csl_game.sandbox import status as sandbox_status
from csl_game.thinker.api import MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["ProcessRunner", "WorkerPool", "MoveClock", "DEFAULT_MEMORY_LIMIT_MB", "CANCEL_GRACE",
           "STARTUP_TIMEOUT", "start_server_soon", "worker_spec"]

log = logging.getLogger(__name__)

DEFAULT_MEMORY_LIMIT_MB = MEMORY_LIMIT_MB
STARTUP_TIMEOUT = SETUP_TIME_LIMIT
"""Seconds a worker may take to load and set up its thinker (and read its name)."""


def worker_spec(prototype: ThinkerPrototype, memory_limit_mb: int) -> WorkerSpec:
    """What a worker needs to make `prototype`'s thinkers."""
    return WorkerSpec(prototype.module, prototype.qualname, prototype.params,
                      prototype.match_config, prototype.paths, memory_limit_mb, os.getpid(),
                      sandbox=sandbox_status().active,
                      network=prototype.network)


class _ProcessJob(ThinkJob):
    """One think() request to a worker, with the time limit enforced here."""

    def __init__(self, worker: WorkerHandle, job_id: int, board: Board, config: MatchConfig,
                 grace: float, previous: _ProcessJob | None, at_limit: bool = False) -> None:
        self._worker = worker
        self._at_limit = at_limit
        """Take an answer that comes after the limit (`TimedRunner.at_limit`)."""
        self._id = job_id
        self._board: Board | None = board
        """The position, until it is sent: when the worker is free for it, with
        the clock started just before, so no thinking happens off the clock."""
        self._config = config
        self._grace = grace
        self._previous = previous
        self._created = time.perf_counter()
        self._clock: MoveClock | None = None
        self._cancel_at: float | None = None
        self._cancel_cpu: float | None = None
        self._timed_out: str | None = None
        self._hung_at: float | None = None
        """When its pipe was found at its end with no answer (`_ending`)."""
        self._reply: Reply | None = None
        """The worker's reply, kept while the clock settles its last reading."""
        self._outcome: ThinkOutcome | None = None
        if previous is None and worker.ready:
            self._send()

    def _send(self) -> None:
        assert self._board is not None
        tree = self._worker.tree_clock() if self._config.clock == "cpu" else None
        waits = tree if tree is not None and tree.waits_known else None
        self._clock = MoveClock(self._config, tree.read if tree is not None else None, waits)
        self._worker.send(Think(self._id, self._board, self._config.time_limit_ms))
        self._clock.start()
        self._board = None

    @property
    def pending(self) -> bool:
        """Whether the worker may still be working on this request."""
        return self._outcome is None

    def poll(self) -> ThinkOutcome | None:
        if self._outcome is None:
            looked = time.perf_counter()
            self._worker.pump()
            self._outcome = self._settled()
            if self._outcome is None and self._reply is None:
                if self._worker.hung_up and self._clock is not None:
                    self._ending(looked)
                else:
                    if self._clock is not None:
                        self._clock.quiet(looked)  # no answer then: the clock may run to there
                    self._outcome = self._enforce(time.perf_counter())
        return self._outcome

    def _ending(self, now: float) -> None:
        """The worker's pipe ended with no answer: its process is ending. Its
        clock stops at its last reading (a process gone has no time to read,
        and its exit code, which the fork server reaps, may come late on a busy
        machine); one whose thinker closed the pipe and lives on is killed
        after the grace on the wall (its clock stopped: it is owed no more),
        and ends so (a kill leaves the exit code of one that had ended)."""
        assert self._clock is not None
        if self._hung_at is None:
            self._hung_at = now
            self._clock.stop()
        elif now - self._hung_at >= self._grace:
            self._worker.kill()

    def wait(self, timeout: float | None) -> ThinkOutcome | None:
        end = None if timeout is None else time.perf_counter() + timeout
        while (outcome := self.poll()) is None:
            now = time.perf_counter()
            if end is not None and now >= end:
                return None
            next_check = self._next_check(now)
            if end is not None:
                next_check = min(next_check, end)
            self._worker.wait_for_news(next_check - now)
        return outcome

    def _past_grace(self, now: float) -> bool:
        """Whether the thinker had its grace to answer a cancel: that much time
        on the match's clock (a busy machine does not shorten it either), or
        the grace's own wall-clock backstop."""
        assert self._cancel_at is not None
        if self._clock is None or self._clock.kind == "wall" or self._cancel_cpu is None:
            return now - self._cancel_at >= self._grace
        return (self._clock.charged() - self._cancel_cpu >= self._grace
                or now - self._cancel_at >= self._clock.backstop_of(self._grace))

    def cancel(self) -> None:
        if self._outcome is None and self._board is not None:  # never sent: nothing to stop
            self._board = None
            self._outcome = ThinkOutcome(MoveAnswer(-1, 0), 0.0, 0.0)  # as a cancelled thinker's
            return
        if self._outcome is None and self._cancel_at is None:
            self._worker.send(Cancel(self._id))
            self._cancel_at = time.perf_counter()
            self._cancel_cpu = self._clock.charged() if self._clock is not None else None

    # -------------------------------------------------------------- internals
    def _elapsed(self) -> float:
        """Seconds charged so far (wall seconds since the request before the clock starts)."""
        if self._clock is None:
            return time.perf_counter() - self._created
        return self._clock.charged()

    def _wall(self) -> float:
        """Wall seconds since the move's clock started (since the request before)."""
        if self._clock is None:
            return time.perf_counter() - self._created
        return self._clock.wall()

    def _next_check(self, now: float) -> float:
        """When the clocks may next change the outcome."""
        if self._reply is not None:
            return now + 0.001  # the clock settles its last reading
        if self._hung_at is not None:  # its exit wakes the wait; the grace ends it
            return self._hung_at + self._grace
        if self._cancel_at is not None:
            if self._clock is not None and self._clock.kind == "cpu":
                return min(self._cancel_at + self._clock.backstop_of(self._grace), now + 0.02)
            return self._cancel_at + self._grace
        if self._clock is not None:
            return self._clock.next_check(now)
        if not self._worker.ready:
            return self._worker.setup_next_check(now)
        return now + 0.05  # waiting for the previous request to finish

    def _settled(self) -> ThinkOutcome | None:
        """The outcome told by the worker's answer or death, if any."""
        worker = self._worker
        result = self._reply or worker.results.pop(self._id, None)
        if result is not None:
            return self._from_result(result)
        if worker.setup_error is not None:
            return ThinkOutcome(Forfeit(ForfeitReason.SETUP, worker.setup_error.text), 0.0)
        if worker.is_dead():
            return self._died()
        return None

    def _from_result(self, reply: Reply) -> ThinkOutcome | None:
        """The outcome of the worker's reply (None while the clock settles)."""
        clock = self._clock
        wall = self._wall()
        if clock is None or clock.kind == "wall":
            # the reference's clock: the time the worker measured, and the parent's alarm
            elapsed = reply.elapsed
            late = self._timed_out is not None or (
                clock is not None and elapsed > clock.allowed)
        else:
            clock.answered(reply.elapsed)
            settled = clock.settle()
            self._reply = None if settled is not None else reply
            if settled is None:
                return None
            elapsed, wall = settled, clock.last.wall  # to the answer, as far as it is known
            late = (self._timed_out is not None or elapsed > clock.allowed
                    or wall >= clock.backstop)
        if late and self._at_limit and isinstance(reply, Answered):
            return ThinkOutcome(reply.answer, elapsed, wall)  # asked to stop, it answered
        if late and not isinstance(reply, OutOfMemory):  # memory is the more telling reason
            assert clock is not None
            detail = clock.verdict(elapsed, wall) or self._timed_out or ""
            return self._timeout(elapsed, detail, wall)
        if isinstance(reply, Answered):
            return ThinkOutcome(reply.answer, elapsed, wall)
        assert isinstance(reply, (Raised, OutOfMemory))
        if isinstance(reply, OutOfMemory):
            reason = ForfeitReason.MEMORY
        else:
            reason = ForfeitReason.WORKER_DIED if reply.crashed else ForfeitReason.EXCEPTION
        return ThinkOutcome(Forfeit(reason, reply.detail), elapsed, wall)

    @staticmethod
    def _timeout(elapsed: float, detail: str, wall: float) -> ThinkOutcome:
        return ThinkOutcome(Forfeit(ForfeitReason.TIMEOUT, detail), elapsed, wall)

    def _died(self) -> ThinkOutcome:
        forfeit = self._worker.death(setting_up=not self._worker.ready)
        if self._timed_out and forfeit.reason is not ForfeitReason.MEMORY:
            return self._timeout(self._elapsed(), f"{self._timed_out}; then {forfeit.detail}",
                                 self._wall())
        return ThinkOutcome(forfeit, self._elapsed(), self._wall())

    def _enforce(self, now: float) -> ThinkOutcome | None:
        """Start the clock, cancel when the move is over its time, kill after the grace period."""
        if self._clock is None:
            return self._wait_for_turn(now)
        if self._cancel_at is None:
            over = self._clock.over()
            if over is not None:
                if (stopped := self._interfered()) is not None:
                    return stopped
                self._timed_out = over
                self.cancel()
            return None
        if not self._past_grace(now):
            return None
        if (stopped := self._interfered()) is not None:
            return stopped
        log.warning("worker %s (%s) did not answer %.1f s after being asked to stop: "
                    "killing it", self._worker.pid, self._worker.spec.fqn, self._grace)
        self._worker.kill()
        return ThinkOutcome(Forfeit(ForfeitReason.IGNORED_CANCELLATION,
                                    f"no answer {self._grace:.1f} s after being asked to stop "
                                    f"(time limit {self._config.time_limit_ms} ms); its "
                                    "process was killed"),
                            self._elapsed(), self._wall())

    def _interfered(self) -> ThinkOutcome | None:
        """The outcome of a worker that another program stopped (possible only
        without the sandbox), found when its time is up: not its thinker's
        doing (`ForfeitReason.INTERFERED`: the session plays the match again)."""
        why = self._worker.stopped_by_another()
        if why is None:
            return None
        self._worker.kill()
        return ThinkOutcome(Forfeit(ForfeitReason.INTERFERED, why), self._elapsed(), self._wall())

    def _wait_for_turn(self, now: float) -> ThinkOutcome | None:
        """Start the clock once the worker is set up and done with earlier requests."""
        worker = self._worker
        if not worker.ready:
            done = worker.setup_done()
            if done is None:
                return None
            if isinstance(done, Forfeit):
                return ThinkOutcome(done, now - self._created)
        if self._previous is not None:
            earlier = self._previous.poll()
            if earlier is None:
                return None
            self._previous = None
            if earlier.forfeit is ForfeitReason.IGNORED_CANCELLATION:
                return earlier
        self._send()
        return None


class WorkerPool:
    """Keeps healthy workers between the matches of a session.

    A worker whose match ended normally, or whose thinker was just set up to
    learn its name (a setup probe's), waits here for the next match of the
    same thinker, which gets a fresh thinker instance from it (setup runs
    again) instead of a new process. A worker that failed in any way, or
    whose thinker left threads running, is never kept. `close()` ends the
    idle ones, all at once, and from then on the pool takes no worker back:
    a match still ending closes its own.
    """

    def __init__(self, max_idle: int = 16) -> None:
        self._idle: dict[tuple[Any, ...], list[WorkerHandle]] = {}
        self._lock = threading.Lock()
        self._max_idle = max_idle
        self._closed = False
        self.reused = 0

    @property
    def idle(self) -> int:
        """How many workers wait here for a match."""
        with self._lock:
            return sum(len(v) for v in self._idle.values())

    @staticmethod
    def _key(spec: WorkerSpec) -> tuple[Any, ...]:
        return spec.module, spec.qualname, spec.paths, spec.memory_limit_mb, spec.network

    def take(self, spec: WorkerSpec, info: InfoCallback | None) -> WorkerHandle | None:
        """An idle worker for this thinker, asked to set up a fresh one."""
        with self._lock:
            idle = self._idle.get(self._key(spec), [])
            while idle:
                worker = idle.pop()
                if worker.healthy:
                    log.debug("worker %s reused for %s", worker.pid, spec.fqn)
                    self.reused += 1
                    worker.reset(spec, info)
                    return worker
                worker.close()
        return None

    def give(self, worker: WorkerHandle) -> bool:
        """Keep `worker` for a later match if it is healthy and its thinker left
        no thread running (it would go on between and across matches); False
        if not taken."""
        worker.pump()  # a worker that never played may not have said "ready" yet
        if not worker.end_descendants():  # the thinker's processes end with its match
            log.info("worker %s (%s) is not reused: processes its thinker started "
                     "could not be ended", worker.pid, worker.spec.fqn)
            return False
        if worker.lingering_threads():
            log.info("worker %s (%s) is not reused: its thinker left threads running",
                     worker.pid, worker.spec.fqn)
            return False
        with self._lock:
            count = sum(len(v) for v in self._idle.values())
            if self._closed or not worker.healthy or count >= self._max_idle:
                return False
            self._idle.setdefault(self._key(worker.spec), []).append(worker)
            return True

    def close(self) -> None:
        """End every idle worker; take none back from now on."""
        with self._lock:
            self._closed = True
            workers = [w for idle in self._idle.values() for w in idle]
            self._idle.clear()
        close_workers(workers)


class ProcessRunner(TimedRunner):
    """Runs think() in a worker process of its own, kept for the whole match.

    A drop-in `RunnerFactory`: ``ProcessRunner(prototype, info)``. Thinker
    output (print, on_thinking_info) reaches `info`, one line a call, on the
    thread that polls or waits. The time limit counts from when the worker is
    ready for the move, so starting the worker costs the thinker nothing.
    `name` is the class-name rule's until the worker tells the thinker's own
    (`worker_name`): the parent never asks the thinker itself.

    Raises:
        WorkerStartError: no worker process could be started.
    """

    def __init__(self, prototype: ThinkerPrototype, info: InfoCallback | None = None,
                 memory_limit_mb: int = DEFAULT_MEMORY_LIMIT_MB, *,
                 grace: float = CANCEL_GRACE,
                 startup_timeout: float = STARTUP_TIMEOUT,
                 pool: WorkerPool | None = None) -> None:
        self.name = prototype.default_name
        self._config = prototype.match_config
        self._grace = grace
        spec = worker_spec(prototype, memory_limit_mb)
        reused = pool.take(spec, info) if pool is not None else None
        self._worker = reused or WorkerHandle(spec, info, startup_timeout)
        self._worker.startup_timeout = startup_timeout
        self._pool = pool
        self._finalizer = weakref.finalize(self, self._worker.close)
        self._job: _ProcessJob | None = None
        self._last_id = 0

    @property
    def pid(self) -> int | None:
        """The worker's process id (None if it could not be started)."""
        return self._worker.pid

    @property
    def worker_name(self) -> str | None:
        """The thinker's display name (its str()) as its worker reported it.

        None until the worker is ready, and when its thinker could not be set
        up. Reading it handles the messages the worker sent meanwhile.
        """
        self._worker.pump()
        return self._worker.name

    def start(self, board: Board, time_limit_ms: int | None = None) -> ThinkJob:
        """Send `board` to the worker (with `time_limit_ms`: this move's limit,
        not the match's); an unfinished earlier request is cancelled."""
        previous = self._job if self._job is not None and self._job.pending else None
        if previous is not None:
            previous.cancel()
        else:
            self._worker.results.clear()
        self._last_id += 1
        config = (self._config if time_limit_ms is None
                  else replace(self._config, time_limit_ms=max(1, time_limit_ms)))
        self._job = _ProcessJob(self._worker, self._last_id, board, config, self._grace,
                                previous, self.at_limit)
        return self._job

    def close(self) -> None:
        """Kill the worker if it is still running and reap it.

        With a pool, a healthy worker whose last request is answered goes back
        to the pool instead.
        """
        idle = self._job is None or not self._job.pending
        if self._pool is not None and idle and self._finalizer.alive \
                and self._pool.give(self._worker):
            self._finalizer.detach()
            return
        self._finalizer()
