"""The match clock: what a move costs a thinker, measured so that a busy
machine cannot bend it.

Two clocks (`MatchConfig.clock`):

- ``cpu`` (the default): a move costs the processor time its thinker's
  process tree spends on it, every thread and child process (an engine, a
  pool of its own) included. Time spent waiting for a core that another
  program holds is not the thinker's doing and costs it nothing, so a loaded
  machine makes a tournament slower, never different. A wall-clock backstop
  (`backstop()`) still ends a move that waits instead of thinking (a sleep, a
  blocked read).
- ``wall``: the reference framework's clock, the time from the request to the
  answer as the parent sees it.

The parent measures the ``cpu`` clock from outside the worker (`TreeClock`),
so thinker code cannot tamper with it; the worker offers the thinker the same
reading of its own process (`own_clock`) through `CancellationToken.time_left()`.
Every reading is a float of seconds on a clock that only moves forward.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import sys
import threading
import time
from collections.abc import Callable

import psutil

from csl_game.engine.runners.tree import descendant_pids
from csl_game.thinker.api import MatchConfig

__all__ = ["CLOCKS", "own_clock", "TreeClock", "ThreadClock", "MoveClock", "backstop",
           "clock_text",
           "BACKSTOP_FACTOR", "BACKSTOP_EXTRA"]

CLOCKS = ("cpu", "wall")
BACKSTOP_FACTOR = 10
"""The wall-clock backstop of the cpu clock is this many times the limit ..."""
BACKSTOP_EXTRA = 1.0
"""... plus this many seconds: a thinker squeezed to a tenth of a core still
finishes, one that sleeps or blocks still loses."""

_CPUS = os.cpu_count() or 1
"""The most processor seconds a process tree can spend in a second of the wall clock."""
_GONE = (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess, OSError)
_LINUX = sys.platform.startswith("linux")


def backstop(limit: float) -> float:
    """Wall seconds a move may take on the cpu clock before it is lost anyway."""
    return BACKSTOP_FACTOR * limit + BACKSTOP_EXTRA


def clock_text(config: MatchConfig) -> str:
    """'CPU time' or 'wall-clock time': what the limit counts."""
    return "CPU time" if config.clock == "cpu" else "wall-clock time"


def _children_cpu() -> float:
    """Processor seconds of this process's children that were waited for."""
    if os.name != "posix":
        return 0.0
    times = os.times()
    return times.children_user + times.children_system


def own_clock(kind: str) -> Callable[[], float]:
    """The clock a worker's thinker reads its time on (`CancellationToken`):
    this process's processor time (its threads, and its children once they
    ended) for ``cpu``, the monotonic wall clock for ``wall``."""
    if kind == "wall":
        return time.perf_counter
    if os.name != "posix":
        return time.process_time
    return lambda: time.process_time() + _children_cpu()


# ------------------------------------------------- another process's CPU time
class _ProcessCpuClock:
    """Linux and other POSIX systems with clock_getcpuclockid: a process's
    processor time to the nanosecond (psutil reads it in 10 ms ticks)."""

    def __init__(self) -> None:
        self._fn: Callable[..., int] | None = None
        name = ctypes.util.find_library("c") if os.name == "posix" else None
        with contextlib.suppress(OSError, AttributeError, TypeError):
            libc = ctypes.CDLL(name, use_errno=True)
            fn = libc.clock_getcpuclockid
            fn.argtypes = (ctypes.c_int, ctypes.POINTER(ctypes.c_int))
            fn.restype = ctypes.c_int
            self._fn = fn

    def clock_id(self, pid: int) -> int | None:
        if self._fn is None or not hasattr(time, "clock_gettime"):
            return None
        cid = ctypes.c_int()
        if self._fn(pid, ctypes.byref(cid)) != 0:
            return None
        try:
            time.clock_gettime(cid.value)
        except OSError:
            return None
        return cid.value


_cpu_clocks = _ProcessCpuClock()


class _Member:
    """One process of a tree: how to read its processor time."""

    __slots__ = ("proc", "clock_id")

    def __init__(self, proc: psutil.Process) -> None:
        self.proc = proc
        self.clock_id = _cpu_clocks.clock_id(proc.pid)

    def read(self) -> float:
        """Its processor time and its waited-for children's (raises _GONE)."""
        times = self.proc.cpu_times()
        reaped = times.children_user + times.children_system
        if self.clock_id is not None:
            return time.clock_gettime(self.clock_id) + reaped
        return times.user + times.system + reaped


class TreeClock:
    """The processor time of a process and its living descendants, read from
    outside it (the parent's reading of a worker: thinker code cannot touch it).

    A descendant that ended and was waited for is counted through its parent's
    children times, so the sum only grows; a descendant that ended without
    being waited for keeps the time it was last seen with.
    """

    def __init__(self, root: psutil.Process) -> None:
        self._root = _Member(root)
        self._members: dict[int, _Member] = {}
        self._last: dict[int, float] = {}
        self._gone = 0.0
        self._lock = threading.Lock()

    def _descendants(self) -> list[psutil.Process]:
        root = self._root.proc
        if _LINUX:
            found = descendant_pids(root.pid)
            if found is not None:
                procs = []
                for p in found:
                    known = self._members.get(p)
                    if known is not None:
                        procs.append(known.proc)
                    else:
                        with contextlib.suppress(*_GONE):
                            procs.append(psutil.Process(p))
                return procs
        try:
            return root.children(recursive=True)
        except _GONE:
            return []

    def read(self) -> float:
        """Processor seconds of the whole tree so far."""
        with self._lock:
            try:
                total = self._root.read()
            except _GONE:
                total = self._last.get(-1, 0.0)
            self._last[-1] = total
            seen: set[int] = set()
            with contextlib.suppress(*_GONE):
                for proc in self._descendants():
                    seen.add(proc.pid)
                    member = self._members.get(proc.pid)
                    if member is None:
                        with contextlib.suppress(*_GONE):
                            member = self._members[proc.pid] = _Member(proc)
                    if member is None:
                        continue
                    with contextlib.suppress(*_GONE):
                        self._last[proc.pid] = member.read()
            for pid in [p for p in self._members if p not in seen]:
                # Ended: waited for (its time is in its parent's children
                # times now) or not (keep what it was last seen with).
                del self._members[pid]
                last = self._last.pop(pid, 0.0)
                if os.name != "posix":  # POSIX: in its parent's children times now
                    self._gone += last
            return total + self._gone + sum(v for k, v in self._last.items() if k != -1)


class ThreadClock:
    """The processor time of one thread of this process (the in-process runner's
    thinker), read from any thread; the wall clock where the OS offers no
    per-thread clock."""

    def __init__(self, thread: threading.Thread) -> None:
        self._clock_id: int | None = None
        self._native = thread.native_id
        getcpu = getattr(time, "pthread_getcpuclockid", None)
        if getcpu is not None and thread.ident is not None:
            with contextlib.suppress(OSError):
                self._clock_id = getcpu(thread.ident)
                time.clock_gettime(self._clock_id)
        self.exact = self._clock_id is not None or os.name == "nt"
        self._last = 0.0

    def read(self) -> float:
        if self._clock_id is not None:
            with contextlib.suppress(OSError):
                self._last = time.clock_gettime(self._clock_id)
            return self._last
        if os.name == "nt":
            with contextlib.suppress(*_GONE):
                for t in psutil.Process().threads():
                    if t.id == self._native:
                        self._last = t.user_time + t.system_time
            return self._last
        return time.perf_counter()


class MoveClock:
    """The clock of one move, as the runner keeps it: the seconds the move has
    cost on the match's clock (`MatchConfig.clock`) and on the wall, with the
    limit, margin and backstop they are held to. `cpu` reads the thinker's
    processor seconds (a worker's `TreeClock`, the thinking thread's
    `ThreadClock`); without one the move is timed on the wall."""

    def __init__(self, config: MatchConfig, cpu: Callable[[], float] | None) -> None:
        self.kind = config.clock if cpu is not None or config.clock == "wall" else "wall"
        self.limit = config.time_limit_ms / 1000
        self.allowed = (config.time_limit_ms + config.time_margin_ms) / 1000
        """The limit with the organiser's margin: what an answer must come within."""
        self.backstop = backstop(self.allowed) if self.kind == "cpu" else self.allowed
        """Wall seconds after which the move is lost whatever its clock says."""
        self._cpu = cpu if self.kind == "cpu" else None
        self._wall_from = time.perf_counter()
        self._cpu_from = self._cpu() if self._cpu is not None else 0.0
        self._charged = 0.0

    def wall(self) -> float:
        """Wall seconds since the clock started."""
        return time.perf_counter() - self._wall_from

    def charged(self) -> float:
        """Seconds the move has cost so far on the match's clock."""
        if self._cpu is None:
            return self.wall()
        self._charged = max(self._charged, self._cpu() - self._cpu_from)
        return self._charged

    def over(self) -> str | None:
        """Why the move is over its time now, or None while it is not."""
        if self._cpu is not None and self.wall() * _CPUS <= self.allowed:
            return None  # the thinker cannot have spent more CPU time than that yet
        return self.verdict(self.charged(), self.wall())

    def verdict(self, charged: float, wall: float) -> str | None:
        """Why a move that cost `charged` on its clock and `wall` on the wall is
        over its time (past the limit and margin, or the backstop), or None."""
        if charged > self.allowed:
            return self.overrun_text(charged, wall)
        if wall >= self.backstop:
            return (f"{self._limit_text()}; it was still not done after {wall:.1f} s on the "
                    f"wall clock, having used {charged * 1000:.0f} ms of CPU time "
                    f"(a move may wait at most {self.backstop:g} s)")
        return None

    def overrun_text(self, charged: float, wall: float) -> str:
        if self.kind == "wall":
            return f"{self._limit_text()}; it answered after {charged * 1000:.0f} ms"
        return (f"{self._limit_text()}; it used {charged * 1000:.0f} ms of CPU time "
                f"({wall * 1000:.0f} ms on the wall clock)")

    def _limit_text(self) -> str:
        what = "CPU time" if self.kind == "cpu" else "wall-clock time"
        margin = (f" and a margin of {(self.allowed - self.limit) * 1000:.0f} ms"
                  if self.allowed > self.limit else "")
        return f"time limit {self.limit * 1000:.0f} ms of {what}{margin}"

    def next_check(self, now: float) -> float:
        """When the move may next be over its time (`time.perf_counter()` terms)."""
        wall_end = self._wall_from + self.backstop
        if self._cpu is None:
            return wall_end
        # Every core of the machine may be spending the remaining time at once.
        remaining = (self.allowed - self._charged) / _CPUS
        return min(wall_end, now + min(max(remaining, 0.002), 0.05))
