"""The parent's end of one worker process: starting it, its messages, its end.

Workers come from the ``forkserver`` start method where there is one (a
clean, single-threaded server: no pygame, no threads inherited; a worker
starts in milliseconds; see `csl_game.forkserver`) and from ``spawn``
elsewhere (Windows); never from a plain fork of the caller. A daemonic process (a Dask worker's) may start
them too: they are looked after here, not by multiprocessing's daemon rule.

A worker that cannot be started is the program's failure, not the
thinker's: `WorkerStartError`. Closing a worker ends its whole process tree
(`csl_game.engine.runners.tree`) and releases every file descriptor at once.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import sys
import time
import weakref
from collections.abc import Iterable
from multiprocessing.connection import wait
from multiprocessing.process import BaseProcess
from typing import Any

import psutil

from csl_game.engine.runners import interference
from csl_game.engine.runners.base import Forfeit, ForfeitReason, InfoCallback, WorkerStartError
from csl_game.engine.runners.clocks import MoveClock, TreeClock, setup_clock
from csl_game.engine.runners.frames import FrameReader, frame_reader
from csl_game.engine.runners.protocol import (
    Info,
    Message,
    Output,
    Ready,
    Reply,
    Reset,
    SetupFailed,
    ToWorker,
    WorkerSpec,
    encode,
    from_bytes,
)
from csl_game.engine.runners.starting import children_allowed, fd_headroom
from csl_game.engine.runners.tree import (
    end_descendants,
    kill_marked,
    kill_tree,
    kill_trees,
    memory_watch,
)
from csl_game.engine.runners.worker import EXIT_HARNESS, EXIT_MEMORY, worker_main
from csl_game.forkserver import mp_context, server_pid, start_server_soon, unguarded_main
from csl_game.sandbox import checked as sandbox_checked
from csl_game.sandbox import sandboxed_processes
from csl_game.sandbox import status as sandbox_status
from csl_game.thinker.engine_thinker import exit_text

__all__ = ["WorkerHandle", "SetupDone", "mp_context", "start_server_soon", "close_all",
           "close_workers", "sandbox_status"]

log = logging.getLogger(__name__)
"""Diagnostics of worker processes: started, killed, dead (--log-level info or debug)."""

_POLL_BUDGET = 0.002  # seconds of message handling per poll, so a GUI frame stays short
_STALLED = 2.0
"""Seconds a message begun on the result pipe may wait for its next byte: a
worker writes a message whole, so a longer pause is a thinker writing there."""

_live: weakref.WeakSet[WorkerHandle] = weakref.WeakSet()
_SUBREAPER = sys.platform.startswith("linux")
"""Whether workers adopt their orphaned descendants (see worker._keep_the_family)."""


def close_all() -> None:
    """Close every worker of this process, and kill what their thinkers left."""
    close_workers(list(_live))
    if (known := sandbox_checked()) is not None and known.active:
        return  # every process a thinker started ended with its worker's namespace
    with contextlib.suppress(psutil.Error, OSError):
        kill_marked()


def close_workers(workers: Iterable[WorkerHandle]) -> None:
    """Close several workers at once: every process tree is killed before any
    is waited for (closing idle workers one by one waits for each in turn)."""
    workers = [w for w in workers if not w.closed]
    trees = []
    for worker in workers:
        proc = worker.stop_watching()
        if proc is not None and worker.exitcode is None:
            worker.tree_killed = True
            trees.append(proc)
    kill_trees(trees)
    for worker in workers:
        worker.close()


# Registered after multiprocessing's own exit hook, so it runs first: killed
# workers are never waited on, even if a thinker blocks SIGTERM.
atexit.register(close_all)


def death_text(exitcode: int | None) -> str:
    """How a worker's process ended, in words."""
    if exitcode is None:
        return "its process stopped answering"
    return exit_text(exitcode)


SetupDone = str | Forfeit
"""How setting a thinker up ended: its display name, or the forfeit it costs."""


class WorkerHandle:
    """The parent's end of one worker process: pipes, state, messages, process tree."""

    def __init__(self, spec: WorkerSpec, info: InfoCallback | None,
                 startup_timeout: float) -> None:
        """Start the worker.

        Raises:
            WorkerStartError: no process could be started (no file
                descriptors, memory or processes left).
        """
        self.spec = spec
        self._info = info
        self._startup_timeout = startup_timeout
        self.ready = False
        self.name: str | None = None
        """The thinker's display name as the worker reported it when ready."""
        self.setup_error: SetupFailed | None = None
        self.memory_used: int | None = None
        """Bytes the tree used when the memory watch killed it."""
        self.threads = 0
        """The worker's own thread count, before its thinker was made."""
        self.results: dict[int, Reply] = {}
        self.protocol_error: str | None = None
        """What the worker wrote on its result pipe that is no message, if it did."""
        self._eof = False
        self.closed = False
        self.tree_killed = False
        """Whether this side killed the process tree (it did not die by itself)."""
        self.sandboxed = False
        """Whether the thinker runs in its sandbox (seen once it is set up)."""
        self._proc: psutil.Process | None = None
        """The worker's process (in a sandbox, its keeper)."""
        self._inner: psutil.Process | None = None
        """The process that runs the thinker, once known (in a sandbox, its process 2)."""
        self._init: psutil.Process | None = None
        """In a sandbox, its process 1: killing it ends every process in it."""
        self._tree: TreeClock | None = None
        self._exitcode: int | None = None
        self._starter: psutil.Process | None = None  # its fork server, which tells its end
        try:
            self._process = self._start()
            self._pid = self._process.pid
            log.debug("worker %s started for %s", self._pid, spec.fqn)
            self._reader: FrameReader = frame_reader(self._from_worker)
        except (OSError, MemoryError) as e:
            raise WorkerStartError(f"could not start a worker process for {spec.fqn}: "
                                   f"{type(e).__name__}: {e}") from e
        _live.add(self)
        self._setup = self._setup_clock()

    def _setup_clock(self) -> MoveClock:
        """The clock of setting the thinker up, started now (`setup_clock`)."""
        tree = None
        with contextlib.suppress(psutil.Error, OSError):
            tree = self._tree or (TreeClock(self._proc) if self._proc else None)
        return setup_clock(self._startup_timeout, tree)

    @property
    def startup_timeout(self) -> float:
        """Seconds of the setup clock that setting the thinker up may take."""
        return self._startup_timeout

    @startup_timeout.setter
    def startup_timeout(self, seconds: float) -> None:
        self._startup_timeout = seconds
        self._setup.hold_to(seconds)

    def setup_next_check(self, now: float) -> float:
        """When setting the thinker up may next be over its time."""
        return self._setup.next_check(now)

    def _start(self) -> BaseProcess:
        fd_headroom()
        ctx = mp_context()
        inbox_r, self._to_worker = ctx.Pipe(duplex=False)
        try:
            self._from_worker, outbox_w = ctx.Pipe(duplex=False)
        except BaseException:
            inbox_r.close()
            self._to_worker.close()
            raise
        process = ctx.Process(target=worker_main, args=(inbox_r, outbox_w, self.spec),
                              name=f"csl-thinker {self.spec.fqn}", daemon=True)
        try:
            with children_allowed():
                process.start()
        except BaseException:
            self._to_worker.close()
            self._from_worker.close()
            raise
        finally:
            inbox_r.close()  # the worker holds its own copies; EOF must mean it is gone
            outbox_w.close()
        self._watch(process)
        if (server := server_pid()) is not None:
            with contextlib.suppress(psutil.Error, OSError):
                self._starter = psutil.Process(server)
        return process

    def _watch(self, process: BaseProcess) -> None:
        if process.pid is None:
            return
        with contextlib.suppress(psutil.Error, OSError):
            self._proc = psutil.Process(process.pid)
            if self.spec.memory_limit_mb > 0:
                memory_watch.watch(self._proc, self.spec.memory_limit_mb, self._over_memory)

    def _over_memory(self, used: int) -> None:
        self.memory_used = used  # before the kill, so its death is read as this
        log.warning("worker %s (%s) uses %d MB, over its %d MB: killing it", self._pid,
                    self.spec.fqn, used >> 20, self.spec.memory_limit_mb)

    @property
    def pid(self) -> int | None:
        return self._pid

    def tree_clock(self) -> TreeClock | None:
        """The reading of the processor time of the worker's process tree (None
        if the process cannot be read: the move is then timed on the wall).
        One for the worker's life: a move's cost is the difference of two
        readings, and the sum only grows, so each move need not set it up anew."""
        if self._proc is None or self.closed:
            return None
        if self._tree is None:
            try:
                self._tree = TreeClock(self._init or self._proc)  # in a sandbox, init
            except (psutil.Error, OSError):
                return None
        return self._tree

    @property
    def exitcode(self) -> int | None:
        return self._exitcode if self.closed else self._process.exitcode

    def send(self, message: ToWorker) -> None:
        if self.closed:
            return
        with contextlib.suppress(OSError):  # if it died, its job learns so from the exit code
            self._to_worker.send(encode(message))

    def pump(self, budget: float = _POLL_BUDGET) -> None:
        """Handle the messages that arrived, for at most about `budget` seconds."""
        if self._eof or self.closed or self.protocol_error is not None:
            return
        reader = self._reader
        try:
            for frame in reader.read(budget):
                self._handle(from_bytes(frame))
        except ValueError as e:  # only thinker code writing to our pipe sends such things
            self._misbehaved(str(e))
            return
        if reader.eof:
            self._eof = True
        elif (reader.pending_since is not None
              and time.perf_counter() - reader.last_byte_at > _STALLED):
            self._misbehaved(f"began a message ({reader.pending()} bytes) and sent nothing "
                             f"more for {_STALLED:g} s")

    def _misbehaved(self, what: str) -> None:
        """The worker wrote on its result pipe what is no message: it is killed."""
        self.protocol_error = f"its process wrote what is no message on its pipe: {what}"
        log.warning("worker %s (%s) %s; killing it", self._pid, self.spec.fqn, self.protocol_error)
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
            self._find_inner()
            self.ready = True
            self.name = message.name
            self.threads = message.threads
        elif isinstance(message, SetupFailed):
            self.setup_error = message

    def _find_inner(self) -> None:
        """Learn which process runs the thinker, from the kernel's view of the
        tree (not from the worker's words): in a sandbox, its process 2, whose
        init, process 1, ends the whole namespace when it ends."""
        if self._inner is not None or self._proc is None:
            return
        self._inner = self._proc
        found = sandboxed_processes(self._proc.pid) if self.spec.sandbox else None
        with contextlib.suppress(psutil.Error, OSError):
            if found is not None:
                self._init, self._inner = (psutil.Process(p) for p in found)
                self.sandboxed = True

    def reset(self, spec: WorkerSpec, info: InfoCallback | None) -> None:
        """Ask the worker for a fresh thinker, for a new match."""
        self.spec, self._info = spec, info
        self.ready = False
        self.name = None
        self.results.clear()
        self._setup = self._setup_clock()
        self.send(Reset(spec))

    @property
    def healthy(self) -> bool:
        """Alive, set up, and not known to have failed."""
        return (not self.closed and self._process.exitcode is None and not self._eof
                and self.ready and self.setup_error is None and self.memory_used is None
                and self.protocol_error is None)

    def end_descendants(self) -> bool:
        """Kill every process the worker's thinker started, the worker aside (its
        match is over); True when none is left. Where the system has no
        subreaper, those that left the tree are found by their mark."""
        if self._proc is None:
            return False
        self._find_inner()
        if self._init is not None and self._inner is not None:
            # in a sandbox: everything in it but its init and the worker
            # (what left the worker's tree was adopted by init)
            ended = end_descendants(self._init, spare=self._inner.pid)
        else:
            ended = end_descendants(self._inner or self._proc)
        if not _SUBREAPER and not self.sandboxed and self.pid is not None:
            with contextlib.suppress(psutil.Error, OSError):
                kill_marked(self.spec.owner, self.pid)
        return ended

    def lingering_threads(self) -> int:
        """Threads beyond the worker's own that its thinker left running (0 if unknown)."""
        if self._inner is None or not self.ready:
            return 0
        try:
            return max(0, self._inner.num_threads() - self.threads)
        except (psutil.Error, OSError):
            return 0

    def stopped_by_another(self) -> str | None:
        """Why the worker is not running, if another program stopped it (see
        `csl_game.engine.runners.interference`); None in a sandbox."""
        if self.sandboxed or self.tree_killed or self.closed:
            return None
        return interference.stopped_by_another(self._inner or self._proc)

    def is_dead(self) -> bool:
        """Whether the process is gone and everything it sent was read."""
        if self.closed:
            return True
        if self._process.exitcode is None:
            return False
        if not self._eof and self.protocol_error is None:
            self.pump()
        return self._eof or self.protocol_error is not None or self._reader.drained

    @property
    def hung_up(self) -> bool:
        """Whether its pipe reached its end: the process is ending (its exit code
        comes through the fork server), or its thinker closed the pipe."""
        return self._eof

    def setup_done(self) -> SetupDone | None:
        """The thinker's name once it is set up, or the forfeit its setup costs
        (always `ForfeitReason.SETUP`: what went wrong is in the detail); None
        while it is being set up (killing it once its setup clock is past the
        startup timeout).

        Raises:
            WorkerStartError: the worker died before it could load any thinker.
        """
        looked = time.perf_counter()
        self.pump()
        if self.ready:
            return self.name or ""
        if self.setup_error is not None:
            return Forfeit(ForfeitReason.SETUP, self.setup_error.text)
        if self.is_dead():
            return self.death(setting_up=True)
        self._setup.quiet(looked)  # not ready then: the clock may run to there
        if (why := self._setup.over(with_limit=False)) is None:
            return None
        if (stopped := self.stopped_by_another()) is not None:
            self.kill()
            return Forfeit(ForfeitReason.INTERFERED, f"{stopped} while setting up the thinker")
        log.info("worker %s (%s) took more than %g s to set its thinker up: killing it",
                 self._pid, self.spec.fqn, self.startup_timeout)
        self.kill()
        return Forfeit(ForfeitReason.SETUP,
                       f"setting up the thinker (loading it, its setup() and its name) took "
                       f"more than {self.startup_timeout:g} s of {self._setup.counts()} "
                       f"({why}); its process was killed")

    def death(self, setting_up: bool = False) -> Forfeit:
        """The forfeit the worker's death costs its thinker (`ForfeitReason.SETUP`
        when it died setting the thinker up).

        Raises:
            WorkerStartError: it died before it could load any thinker.
        """
        # What it wrote before it ended is read first: a worker that reported
        # its thinker's setup failure and exited may have done both between
        # two looks (a busy machine), and its own words say more than its code.
        self.pump()
        if setting_up and self.setup_error is not None:
            return Forfeit(ForfeitReason.SETUP, self.setup_error.text)
        code = self.exitcode
        when = " while setting up the thinker" if setting_up else ""
        log.info("worker %s (%s) ended%s: exit code %s", self._pid, self.spec.fqn, when, code)
        if code == EXIT_HARNESS:
            raise WorkerStartError(f"a worker process for {self.spec.fqn} could not make "
                                   "its own pipes and threads")
        limit = f"memory limit {self.spec.memory_limit_mb} MB"
        setup = ForfeitReason.SETUP if setting_up else None
        if self.protocol_error is not None:
            return Forfeit(setup or ForfeitReason.PROTOCOL,
                           f"{self.protocol_error}{when}; it was killed")
        if self.memory_used is not None:
            return Forfeit(setup or ForfeitReason.MEMORY, f"its processes used "
                           f"{self.memory_used >> 20} MB{when} ({limit}): they were killed")
        if code == EXIT_MEMORY:
            return Forfeit(setup or ForfeitReason.MEMORY,
                           f"its process ran out of memory{when} ({limit})")
        if not (self.closed or self.tree_killed or self.sandboxed) and (
                another := interference.killed_by_another(code)
                or interference.starter_killed(code, self._starter)):
            return Forfeit(ForfeitReason.INTERFERED, another + when)
        text = ("its process was stopped: the runner was closed" if self.closed
                else death_text(code))
        if setting_up and not self.closed and (script := unguarded_main()) is not None:
            when += (f" (the main script {script} has no 'if __name__ == \"__main__\":'; "
                     "worker processes start by running it, so what it plays at its top "
                     "level must be under that test)")
        return Forfeit(setup or ForfeitReason.WORKER_DIED, text + when)

    def wait_for_news(self, timeout: float) -> None:
        """Block until a message or the process's end, at most `timeout` seconds."""
        if self.closed:
            time.sleep(max(0.0, timeout))
            return
        handles: list[Any] = [self._process.sentinel]
        pipe = None if self._eof else self._reader.waitable()
        if pipe is not None:
            handles.append(pipe)
        elif not self._eof:  # a reader thread hands frames over: look again soon
            timeout = min(timeout, 0.005)
        wait(handles, max(0.0, timeout))

    def stop_watching(self) -> psutil.Process | None:
        """Take the process off the memory watch (it is about to end); the
        process, if it can be read."""
        if self._proc is not None:
            memory_watch.forget(self._proc)
        return self._proc

    def kill(self) -> None:
        """Stop the process and everything it started, now, and reap it."""
        self.stop_watching()
        if self.closed or self._process.exitcode is not None:
            return
        log.debug("killing worker %s (%s) and its process tree", self._pid, self.spec.fqn)
        self.tree_killed = True
        if self._init is not None:  # the kernel ends the rest; the keeper exits as it did
            with contextlib.suppress(psutil.Error, OSError):
                self._init.kill()
                self._process.join(2.0)
        if self._process.exitcode is None and self._proc is not None:
            kill_tree(self._proc)
        elif self._process.exitcode is None:
            self._process.kill()
        self._process.join(2.0)

    def close(self) -> None:
        """Kill the process tree, reap it, close the pipes and the process's own
        handles (no file descriptor waits for the garbage collector); safe to call twice.

        Processes its thinker started that left the tree are found by their
        mark: on Linux only if the worker died by itself (as a subreaper it
        keeps the rest in its tree); elsewhere always.
        """
        if self.closed:
            return
        died_alone = self._process.exitcode is not None and not self.tree_killed
        self.kill()
        self.closed = True
        _live.discard(self)
        self._process.join(2.0)
        self._exitcode = self._process.exitcode
        if (died_alone or not _SUBREAPER) and not self.sandboxed and self.pid is not None:
            with contextlib.suppress(psutil.Error, OSError):
                kill_marked(self.spec.owner, self.pid)
        with contextlib.suppress(ValueError):  # still running: its handles go with the object
            self._process.close()
        self._to_worker.close()
        self._from_worker.close()
        self._reader.close()


def _after_fork_in_child() -> None:
    _live.clear()  # a forked copy of this process owns none of its parent's workers


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
