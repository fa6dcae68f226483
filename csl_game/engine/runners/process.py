"""Running a thinker in a worker process, so a misbehaving AI costs only its match.

`ProcessRunner` is a drop-in `RunnerFactory` beside `ThreadRunner`: one worker
process per runner (that is, per player and match), reused for every move.
A thinker that raises, overruns, ignores cancellation, crashes its
interpreter or exhausts its memory cap loses with a named `ForfeitReason`;
the worker is killed when needed and never outlives the program.

Workers come from the ``forkserver`` start method where there is one (a
clean, single-threaded server: no pygame, no threads inherited) and from
``spawn`` elsewhere; never from a plain fork of the caller.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import signal
import threading
import time
import weakref
from multiprocessing.connection import wait
from multiprocessing.context import ForkServerContext, SpawnContext
from multiprocessing.process import BaseProcess
from typing import Any

from csl_game.engine.runners.base import (Forfeit, ForfeitReason, InfoCallback, ThinkerRunner,
                                          ThinkJob, ThinkOutcome)
from csl_game.engine.runners.protocol import (Answered, Cancel, Info, Message, OutOfMemory,
                                              Output, Raised, Ready, Reply, Reset, SetupFailed,
                                              Think, ToWorker, WorkerSpec, decode, encode)
from csl_game.engine.runners.worker import EXIT_MEMORY, worker_main
from csl_game.model.board import Board
from csl_game.thinker.discovery import builtin_modules
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["ProcessRunner", "WorkerPool", "DEFAULT_MEMORY_LIMIT_MB", "CANCEL_GRACE",
           "start_server_soon"]

DEFAULT_MEMORY_LIMIT_MB = 2048
"""The competition's memory limit: 2 GB of address space per thinker."""
CANCEL_GRACE = 0.4
"""Seconds a thinker has to answer a cancel before its process is killed."""
STARTUP_TIMEOUT = 30.0
"""Seconds a worker may take to load and set up its thinker."""
_POLL_BUDGET = 0.002  # seconds of message handling per poll, so a GUI frame stays short

_live: weakref.WeakSet[_Worker] = weakref.WeakSet()
_context: ForkServerContext | SpawnContext | None = None


def _mp_context() -> ForkServerContext | SpawnContext:
    global _context
    if _context is None:
        if "forkserver" in multiprocessing.get_all_start_methods():
            server = multiprocessing.get_context("forkserver")
            # Preloaded once in the server, so each worker starts in milliseconds.
            server.set_forkserver_preload(["__main__", "csl_game.engine.runners.worker",
                                           *builtin_modules(), "csl_game.engine.runners.warm"])
            _context = server
        else:
            _context = multiprocessing.get_context("spawn")
    return _context


def start_server_soon() -> None:
    """Start the fork server on a background thread now, so the first worker
    of the first match does not wait ~0.1 s for it (a stalled frame in a window)."""
    if isinstance(_mp_context(), ForkServerContext):
        from multiprocessing import forkserver

        threading.Thread(target=forkserver.ensure_running, name="csl-forkserver-start",
                         daemon=True).start()


def _kill_all() -> None:
    for worker in list(_live):
        worker.close()


# Registered after multiprocessing's own exit hook, so it runs first: killed
# workers are never waited on, even if a thinker blocks SIGTERM.
atexit.register(_kill_all)


def _death_text(exitcode: int | None) -> str:
    if exitcode is None:
        return "its process stopped answering"
    if exitcode < 0:
        try:
            return f"its process was killed by signal {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"its process was killed by signal {-exitcode}"
    return f"its process exited with code {exitcode}"


class _Worker:
    """The parent's end of one worker process: pipes, state, messages."""

    def __init__(self, spec: WorkerSpec, info: InfoCallback | None,
                 startup_timeout: float) -> None:
        self.spec = spec
        self._info = info
        self.started_at = time.perf_counter()
        self.startup_timeout = startup_timeout
        self.ready = False
        self.name: str | None = None
        """The thinker's display name as the worker reported it when ready."""
        self.setup_error: str | None = None
        self.results: dict[int, Reply] = {}
        self._eof = False
        self.closed = False
        self._process: BaseProcess | None = None
        try:
            self._start()
        except Exception as e:  # e.g. no processes left, or a daemonic parent
            self.setup_error = (f"could not start a worker process for {spec.fqn}: "
                                f"{type(e).__name__}: {e}")
        _live.add(self)

    def _start(self) -> None:
        ctx = _mp_context()
        inbox_r, self._to_worker = ctx.Pipe(duplex=False)
        self._from_worker, outbox_w = ctx.Pipe(duplex=False)
        process = ctx.Process(target=worker_main, args=(inbox_r, outbox_w, self.spec),
                              name=f"csl-thinker {self.spec.fqn}", daemon=True)
        try:
            process.start()
        finally:
            inbox_r.close()  # the worker holds its own copies; EOF must mean it is gone
            outbox_w.close()
        self._process = process

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    @property
    def exitcode(self) -> int | None:
        return None if self._process is None else self._process.exitcode

    def send(self, message: ToWorker) -> None:
        if self._process is None or self.closed:
            return
        with contextlib.suppress(OSError):  # if it died, its job learns so from the exit code
            self._to_worker.send(encode(message))

    def pump(self, budget: float = _POLL_BUDGET) -> None:
        """Handle the messages that arrived, for at most about `budget` seconds."""
        if self._process is None or self._eof or self.closed:
            return
        until = time.perf_counter() + budget
        conn = self._from_worker
        try:
            while conn.poll(0):
                self._handle(decode(conn.recv()))
                if time.perf_counter() > until:
                    return
        except (EOFError, OSError):
            self._eof = True
        except ValueError:  # only thinker code writing to our pipe sends such things
            self.kill()

    def _handle(self, message: Message) -> None:
        if isinstance(message, Reply):
            if self.ready:  # replies from before a reset belong to the last match
                self.results[message.job_id] = message
        elif isinstance(message, (Info, Output)):
            if self._info is not None:
                for line in message.text.split("\n"):
                    self._info(line)
        elif isinstance(message, Ready):
            self.ready = True
            self.name = message.name
        elif isinstance(message, SetupFailed):
            self.setup_error = message.text

    def reset(self, spec: WorkerSpec, info: InfoCallback | None) -> None:
        """Ask the worker for a fresh thinker, for a new match."""
        self.spec, self._info = spec, info
        self.ready = False
        self.name = None
        self.results.clear()
        self.started_at = time.perf_counter()
        self.send(Reset(spec))

    @property
    def healthy(self) -> bool:
        """Alive, set up, and not known to have failed."""
        return (self._process is not None and self._process.exitcode is None
                and not self.closed and not self._eof and self.ready
                and self.setup_error is None)

    def is_dead(self) -> bool:
        """Whether the process is gone and everything it sent was read."""
        if self._process is None:
            return True
        if self._process.exitcode is None:
            return False
        return self._eof or self.closed or not self._from_worker.poll(0)

    def wait_for_news(self, timeout: float) -> None:
        """Block until a message or the process's end, at most `timeout` seconds."""
        if self._process is None or self.closed:
            time.sleep(max(0.0, timeout))
            return
        handles: list[Any] = [self._process.sentinel]
        if not self._eof:
            handles.append(self._from_worker)
        wait(handles, max(0.0, timeout))

    def kill(self) -> None:
        """Stop the process now (SIGKILL) and reap it."""
        process = self._process
        if process is not None and process.exitcode is None:
            process.kill()
            process.join(2.0)

    def close(self) -> None:
        """Kill the process, reap it and close the pipes; safe to call twice."""
        if self.closed:
            return
        self.closed = True
        _live.discard(self)
        if self._process is None:
            return
        self.kill()
        self._process.join(2.0)
        self._to_worker.close()
        self._from_worker.close()


class _ProcessJob(ThinkJob):
    """One think() request to a worker, with the time limit enforced here."""

    def __init__(self, worker: _Worker, job_id: int, limit: float, grace: float,
                 previous: _ProcessJob | None) -> None:
        self._worker = worker
        self._id = job_id
        self._limit = limit
        self._grace = grace
        self._previous = previous
        self._created = time.perf_counter()
        self._clock_from: float | None = None
        self._cancel_at: float | None = None
        self._timed_out = False
        self._outcome: ThinkOutcome | None = None

    @property
    def pending(self) -> bool:
        """Whether the worker may still be working on this request."""
        return self._outcome is None

    def poll(self) -> ThinkOutcome | None:
        if self._outcome is None:
            self._worker.pump()
            self._outcome = self._settled() or self._enforce(time.perf_counter())
        return self._outcome

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

    def cancel(self) -> None:
        if self._outcome is None and self._cancel_at is None:
            self._worker.send(Cancel(self._id))
            self._cancel_at = time.perf_counter()

    # -------------------------------------------------------------- internals
    def _elapsed(self) -> float:
        return time.perf_counter() - (self._clock_from or self._created)

    def _next_check(self, now: float) -> float:
        """When the clocks may next change the outcome."""
        if self._cancel_at is not None:
            return self._cancel_at + self._grace
        if self._clock_from is not None:
            return self._clock_from + self._limit
        if not self._worker.ready:
            return self._worker.started_at + self._worker.startup_timeout
        return now + 0.05  # waiting for the previous request to finish

    def _settled(self) -> ThinkOutcome | None:
        """The outcome told by the worker's answer or death, if any."""
        worker = self._worker
        result = worker.results.pop(self._id, None)
        if result is not None:
            return self._from_result(result)
        if worker.setup_error is not None:
            return ThinkOutcome(Forfeit(ForfeitReason.EXCEPTION, worker.setup_error), 0.0)
        if worker.is_dead():
            return self._died(worker.exitcode)
        return None

    def _from_result(self, reply: Reply) -> ThinkOutcome:
        elapsed = reply.elapsed
        if self._timed_out or elapsed > self._limit:
            return self._timeout(max(elapsed, self._elapsed()))
        if isinstance(reply, Answered):
            return ThinkOutcome(reply.answer, elapsed)
        assert isinstance(reply, (Raised, OutOfMemory))
        memory = isinstance(reply, OutOfMemory)
        reason = ForfeitReason.MEMORY if memory else ForfeitReason.EXCEPTION
        return ThinkOutcome(Forfeit(reason, reply.detail), elapsed)

    def _timeout(self, elapsed: float, extra: str = "") -> ThinkOutcome:
        return ThinkOutcome(Forfeit(ForfeitReason.TIMEOUT,
                                    f"time limit {self._limit * 1000:.0f} ms{extra}"), elapsed)

    def _died(self, exitcode: int | None) -> ThinkOutcome:
        text = ("its process was stopped: the runner was closed" if self._worker.closed
                else _death_text(exitcode))
        if self._timed_out:
            return self._timeout(self._elapsed(), f"; then {text}")
        if exitcode == EXIT_MEMORY:
            return ThinkOutcome(Forfeit(ForfeitReason.MEMORY,
                                        f"its process ran out of memory (limit "
                                        f"{self._worker.spec.memory_limit_mb} MB)"),
                                self._elapsed())
        return ThinkOutcome(Forfeit(ForfeitReason.WORKER_DIED, text), self._elapsed())

    def _enforce(self, now: float) -> ThinkOutcome | None:
        """Start the clock, cancel at the limit, kill after the grace period."""
        if self._clock_from is None:
            return self._wait_for_turn(now)
        if self._cancel_at is None:
            if now - self._clock_from >= self._limit:
                self._timed_out = True
                self.cancel()
            return None
        if now - self._cancel_at < self._grace:
            return None
        self._worker.kill()
        return ThinkOutcome(Forfeit(ForfeitReason.IGNORED_CANCELLATION,
                                    f"no answer {self._grace:.1f} s after being asked to stop "
                                    f"(time limit {self._limit * 1000:.0f} ms); its process "
                                    "was killed"),
                            self._elapsed())

    def _wait_for_turn(self, now: float) -> ThinkOutcome | None:
        """Start the clock once the worker is set up and done with earlier requests."""
        worker = self._worker
        if not worker.ready:
            if now - worker.started_at < worker.startup_timeout:
                return None
            worker.kill()
            return ThinkOutcome(Forfeit(ForfeitReason.TIMEOUT,
                                        f"loading and setting up the thinker took more than "
                                        f"{worker.startup_timeout:g} s"),
                                now - self._created)
        if self._previous is not None:
            earlier = self._previous.poll()
            if earlier is None:
                return None
            self._previous = None
            if earlier.forfeit is ForfeitReason.IGNORED_CANCELLATION:
                return earlier
        self._clock_from = now
        return None


class WorkerPool:
    """Keeps healthy workers between the matches of a session.

    A worker whose match ended normally waits here for the next match of the
    same thinker, which gets a fresh thinker instance from it (setup runs
    again) instead of a new process. A worker that failed in any way is
    never kept. `close()` ends the idle ones, and from then on the pool
    takes no worker back: a match still ending closes its own.
    """

    def __init__(self, max_idle: int = 16) -> None:
        self._idle: dict[tuple[Any, ...], list[_Worker]] = {}
        self._lock = threading.Lock()
        self._max_idle = max_idle
        self._closed = False
        self.reused = 0

    @staticmethod
    def _key(spec: WorkerSpec) -> tuple[Any, ...]:
        return spec.module, spec.qualname, spec.paths, spec.memory_limit_mb

    def take(self, spec: WorkerSpec, info: InfoCallback | None) -> _Worker | None:
        """An idle worker for this thinker, asked to set up a fresh one."""
        with self._lock:
            idle = self._idle.get(self._key(spec), [])
            while idle:
                worker = idle.pop()
                if worker.healthy:
                    self.reused += 1
                    worker.reset(spec, info)
                    return worker
                worker.close()
        return None

    def give(self, worker: _Worker) -> bool:
        """Keep `worker` for a later match if it is healthy; False if not taken."""
        worker.pump()  # a worker that never played may not have said "ready" yet
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
        for worker in workers:
            worker.close()


class ProcessRunner(ThinkerRunner):
    """Runs think() in a worker process of its own, kept for the whole match.

    A drop-in `RunnerFactory`: ``ProcessRunner(prototype, info)``. Thinker
    output (print, on_thinking_info) reaches `info`, one line a call, on the
    thread that polls or waits. The time limit counts from when the worker is
    ready for the move, so starting the worker costs the thinker nothing.
    """

    def __init__(self, prototype: ThinkerPrototype, info: InfoCallback | None = None,
                 memory_limit_mb: int = DEFAULT_MEMORY_LIMIT_MB, *,
                 grace: float = CANCEL_GRACE,
                 startup_timeout: float = STARTUP_TIMEOUT,
                 pool: WorkerPool | None = None) -> None:
        self.name = prototype.display_name
        self._limit = prototype.match_config.time_limit_ms / 1000
        self._grace = grace
        cls = prototype.thinker_class
        spec = WorkerSpec(cls.__module__, cls.__qualname__, prototype.params,
                          prototype.match_config, prototype.paths, memory_limit_mb)
        reused = pool.take(spec, info) if pool is not None else None
        self._worker = reused or _Worker(spec, info, startup_timeout)
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

    def start(self, board: Board) -> ThinkJob:
        """Send `board` to the worker; an unfinished earlier request is cancelled."""
        previous = self._job if self._job is not None and self._job.pending else None
        if previous is not None:
            previous.cancel()
        else:
            self._worker.results.clear()
        self._last_id += 1
        self._worker.send(Think(self._last_id, board))
        self._job = _ProcessJob(self._worker, self._last_id, self._limit, self._grace,
                                previous)
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
