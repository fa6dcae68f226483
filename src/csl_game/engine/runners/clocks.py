"""The match clock: what a move costs a thinker, measured so that a busy
machine cannot bend it.

Two clocks (`MatchConfig.clock`):

- ``cpu`` (the default): a move costs what its thinker did, never the time it
  waited for a core another program held, so a loaded machine makes a
  tournament slower, never different.

  - On Linux, where each thread's wait for a core is told
    (``/proc/PID/task/TID/schedstat``, `schedstat_works`): the *schedstat
    clock*. A move costs ``max(cpu, wall - core)``: ``cpu`` the processor time
    of the thinker's process tree (every thread and child process), ``wall``
    the wall time since the move started, ``core`` the time the tree's threads
    waited in a run queue meanwhile (`charge`, which also forgives the little
    time no account shows: 2 ms and a tenth of the processor time); the wall
    runs from the request's sending to the referee's last look that found no
    answer (`MoveClock.quiet`), so a referee slow to read it costs nothing.
    A thinker pays its processor time plus the time it chose to wait (a
    sleep, a blocked read), and never less than its processor time; a
    sleeper loses as soon as that passes the limit and margin. Only a
    last-resort wall-clock backstop remains (`backstop`, 100 times the limit
    plus 10 s), for a tree kept waiting for a core it never gets.
  - Elsewhere (macOS, Windows, a kernel without CONFIG_SCHED_INFO): the
    processor time alone, with a wall-clock backstop (10 times the limit plus
    1 s) that ends a move that waits instead of thinking. The in-process
    runner's thread clock is timed so too, but where schedstat tells the
    thread's waits for a core its backstop does not count them.
- ``wall``: the reference framework's clock, the time from the request to the
  answer as the parent sees it.

The parent measures the ``cpu`` clock from outside the worker (`TreeClock`),
so thinker code cannot tamper with it; the worker offers the thinker the same
reading of its own process (`own_clock`) through `CancellationToken.time_left()`.
Every reading is a float of seconds on a clock that only moves forward.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import NamedTuple, Protocol

import psutil

from csl_game.engine.runners.schedstat import OwnClock, ThreadWaits, charge, schedstat_works
from csl_game.engine.runners.tree import ProcessClock, descendant_pids
from csl_game.thinker.api import MatchConfig

__all__ = ["CLOCKS", "own_clock", "TreeClock", "ThreadClock", "MoveClock", "MoveTime",
           "WaitReader", "backstop", "charge", "clock_text", "schedstat_works", "setup_clock",
           "BACKSTOP_FACTOR", "BACKSTOP_EXTRA", "LAST_RESORT_FACTOR", "LAST_RESORT_EXTRA",
           "SETTLE"]

CLOCKS = ("cpu", "wall")
BACKSTOP_FACTOR = 10
"""The wall-clock backstop of the cpu clock without schedstat is this many times the limit ..."""
BACKSTOP_EXTRA = 1.0
"""... plus this many seconds: a thinker squeezed to a tenth of a core still
finishes, one that sleeps or blocks still loses."""
LAST_RESORT_FACTOR = 100
"""With schedstat a sleeper is charged its sleep, so the backstop is only a
last resort, this many times the limit ..."""
LAST_RESORT_EXTRA = 10.0
"""... plus this many seconds: for a tree whose threads wait for a core they
never get (one that lowered its own priority), which no clock charges."""

SETTLE = 0.03
"""Seconds the last reading of a move may wait for a runnable thread of its
thinker to run (`MoveClock.settle`)."""

_CPUS = os.cpu_count() or 1
"""The most processor seconds a process tree can spend in a second of the wall clock."""
_GONE = (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess, OSError)
_LINUX = sys.platform.startswith("linux")


def backstop(limit: float, schedstat: bool = False) -> float:
    """Wall seconds a move may take on the cpu clock before it is lost anyway
    (far later with `schedstat`: there waiting is charged already)."""
    if schedstat:
        return LAST_RESORT_FACTOR * limit + LAST_RESORT_EXTRA
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
    """The clock a worker's thinker reads its time on (`CancellationToken`),
    started now: for ``cpu``, this process's processor time (its threads, and
    its children once they ended), and where schedstat tells its threads'
    waits for a core, the schedstat clock's charge of this process (`OwnClock`);
    for ``wall``, the monotonic wall clock."""
    if kind == "wall":
        return time.perf_counter
    if os.name != "posix":
        return time.process_time

    def cpu() -> float:
        return time.process_time() + _children_cpu()

    return OwnClock(cpu) if schedstat_works() else cpu


class TreeClock:
    """The processor time of a process and its living descendants, read from
    outside it (the parent's reading of a worker: thinker code cannot touch it).

    A descendant that ended and was waited for is counted through its parent's
    children times, so the sum only grows; a descendant that ended without
    being waited for keeps the time it was last seen with.

    Where schedstat works (`waits_known`), it is also a `WaitReader`: the
    time the tree's threads waited for a core, over the processes the last
    `read()` found.
    """

    def __init__(self, root: psutil.Process) -> None:
        self._root = ProcessClock(root)
        self._members: dict[int, ProcessClock] = {}
        self._last: dict[int, float] = {}
        self._gone = 0.0
        self._lock = threading.Lock()
        self._waits = ThreadWaits() if schedstat_works() else None

    @property
    def waits_known(self) -> bool:
        """Whether `waits()` tells the tree's waits for a core."""
        return self._waits is not None

    def waits(self) -> float:
        """Seconds every thread of the tree (as the last `read()` found it) has
        waited for a core, each thread that ended with what it was last seen with."""
        if self._waits is None:
            return 0.0
        with self._lock:
            pids = [str(self._root.proc.pid), *map(str, self._members)]
            return self._waits.read(pids) / 1e9

    def runnable(self) -> bool:
        """Whether a thread of the tree is runnable now (its current wait for a
        core, if it is waiting, is not in `waits()` yet)."""
        if self._waits is None:
            return False
        with self._lock:
            return self._waits.runnable()

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
                            member = self._members[proc.pid] = ProcessClock(proc)
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
        self._waits = ThreadWaits() if schedstat_works() else None

    def waited(self) -> float | None:
        """Seconds the threads of this process have waited for a core so far
        (schedstat), or None where that is not told: the thinking thread's own
        waits, and those of a thread that held the interpreter's lock while it
        waited (the thinking thread could not run meanwhile either)."""
        if self._waits is None:
            return None
        return self._waits.read(("self",)) / 1e9

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


class WaitReader(Protocol):
    """The waits for a core of a thinker's threads (`TreeClock` is one)."""

    def waits(self) -> float:
        """Seconds its threads have waited for a core so far; only grows."""

    def runnable(self) -> bool:
        """Whether one of its threads is runnable now (a wait not counted yet)."""


class MoveTime(NamedTuple):
    """One reading of a move's clock, in seconds since the move started."""

    cpu: float
    """The thinker's processor time."""
    wall: float
    """The wall clock's time."""
    core: float = 0.0
    """The time its threads waited for a core."""


class MoveClock:
    """The clock of one move, as the runner keeps it: the seconds the move has
    cost on the match's clock (`MatchConfig.clock`) and on the wall, with the
    limit, margin and backstop they are held to. `cpu` reads the thinker's
    processor seconds (a worker's `TreeClock`, the thinking thread's
    `ThreadClock`); without one the move is timed on the wall.

    With `waits` (the schedstat clock, see the module), a move costs `charge`
    of the readings. Its wall then runs from `start()` (the request is sent:
    the referee's delays in sending it, seen 30-80 ms on a busy machine, are
    not the thinker's) to the referee's last look that found no answer
    (`quiet()`), or to when the worker says it answered if that is later
    (`answered()`), not to the reading: once the thinker answered, its threads
    sleep, and the time the referee then takes to read the answer would be
    charged as the thinker's own wait. Subtracting the referee's polling
    thread's waits for a core was not enough: a busy machine kept it from
    reading 30-180 ms after its wait for news ended, behind other referee
    threads holding the interpreter's lock as much as waiting for a core.
    A referee that has not looked since `start()` charges the processor
    time only. Without `start()` (the in-process runner, which reads its
    clock on the thinking thread) the wall runs to each reading. `wall` is the wall
    clock (injected by tests).
    """

    def __init__(self, config: MatchConfig, cpu: Callable[[], float] | None,
                 waits: WaitReader | None = None, *,
                 wall: Callable[[], float] = time.perf_counter,
                 starved: Callable[[], float | None] | None = None) -> None:
        self.kind = config.clock if cpu is not None or config.clock == "wall" else "wall"
        self.limit = config.time_limit_ms / 1000
        self.allowed = (config.time_limit_ms + config.time_margin_ms) / 1000
        """The limit with the organiser's margin: what an answer must come within."""
        self._cpu = cpu if self.kind == "cpu" else None
        self._waits = waits if self._cpu is not None else None
        self.backstop = self.backstop_of(self.allowed)
        """Wall seconds after which the move is lost whatever its clock says."""
        self._wall = wall
        self._starved = starved if self._cpu is not None and waits is None else None
        """Waits for a core that held the thinking thread up (a thread's clock,
        which charges its processor time only): the backstop does not count them."""
        self._starved_from = (self._starved() or 0.0) if self._starved is not None else 0.0
        self._cpu_from = self._cpu() if self._cpu is not None else 0.0
        self._core_from = self._waits.waits() if self._waits is not None else 0.0
        self._wall_from = self._read_at = wall()
        self._quiet: float | None = None
        """The referee's last look that found no answer (`quiet`), if it says."""
        self._charged = 0.0
        self._term = 0.0
        """The latest `wall - core`, for when to look again."""
        self._unsure: MoveTime | None = None
        """The latest reading, while a runnable thread left its `wall - core` unsure."""
        self._settling: float | None = None
        self._stopped: float | None = None
        self.last = MoveTime(0.0, 0.0)
        """The latest reading (`charged`)."""

    def hold_to(self, seconds: float) -> None:
        """Hold the clock to `seconds` from now on (the limit and margin in one)."""
        self.limit = self.allowed = seconds
        self.backstop = self.backstop_of(seconds)

    def start(self) -> None:
        """Start the wall now: the request has just been sent, so there is no
        answer yet (the first moment `quiet` knows of)."""
        self._wall_from = self._read_at = self._quiet = self._wall()

    def quiet(self, at: float) -> None:
        """The referee knew of no answer at `at` (its wall clock's terms): it
        looked and found none, or its wait for news ran out then. Readings
        charge the wall up to the latest such moment: the answer came after
        it, and a busy referee may read it long after it came."""
        self._quiet = at if self._quiet is None else max(self._quiet, at)

    def answered(self, took: float) -> None:
        """The worker says its answer left `took` seconds after think() began:
        think() began after the request was sent (`start()`), so the answer
        came no earlier than that much after it, and no later than now. An answer read long after it
        came is charged the wall to there, not only to the last look that
        found none; a worker that says less than the truth gains no more than
        that look gives it, and one that says more is held to now."""
        if self._quiet is not None:
            self.quiet(min(self._wall_from + took, self._wall()))

    @property
    def waits_known(self) -> bool:
        """Whether the move is timed on the schedstat clock."""
        return self._waits is not None

    def backstop_of(self, seconds: float) -> float:
        """The wall seconds a span of `seconds` on this clock may take at most."""
        return backstop(seconds, self.waits_known) if self._cpu is not None else seconds

    def wall(self) -> float:
        """Wall seconds since the clock started (to `stop()`)."""
        return self._wall() - self._wall_from if self._stopped is None else self._stopped

    def stop(self) -> None:
        """Stop at the last reading: the thinker's process ended (none is left to read)."""
        self._stopped = self.last.wall

    def charged(self) -> float:
        """Seconds the move has cost so far on the match's clock (it only grows).

        On the schedstat clock a reading while a thread of the thinker is
        runnable may lack that thread's current wait for a core (counted once
        it runs): `wall - core` is then only an upper bound and charges nothing
        until a reading where none is (then every wait up to the first
        reading has ended and is counted by the second)."""
        if self._stopped is not None:
            return self._charged
        if self._cpu is None:
            self.last = MoveTime(self.wall(), self.wall())
            self._charged = self.last.wall
            return self._charged
        end = self._wall() if self._waits is None or self._quiet is None \
            else max(self._quiet, self._wall_from)
        self._read_at, wall = end, end - self._wall_from
        cpu = self._cpu() - self._cpu_from
        self._charged = max(self._charged, cpu)
        self.last = MoveTime(cpu, wall)
        self._unsure = None
        if self._waits is not None:
            self.last = MoveTime(cpu, wall, self._waits.waits() - self._core_from)
            self._term = wall - self.last.core
            if charge(*self.last) > self._charged:
                self._unsure = self.last
                self._count_waits()
        return self._charged

    def _count_waits(self) -> bool:
        """Charge the unsure reading's wall less the waits for a core counted
        now, if no thread of the thinker is runnable (every wait up to that
        reading has ended and is counted); whether it could."""
        assert self._waits is not None and self._unsure is not None
        if self._waits.runnable():
            return False
        self.last = self._unsure._replace(core=self._waits.waits() - self._core_from)
        self._term = self.last.wall - self.last.core
        self._charged = max(self._charged, charge(*self.last))
        self._unsure = None
        return True

    def settle(self) -> float | None:
        """The move's charge once its answer is in: `charged()`, or None while
        a thread of the thinker is runnable and its wait for a core may be
        missing from that reading (ask again a little later: the reading is
        kept, the waits counted anew). After `SETTLE` seconds the reading
        charges its processor time only."""
        if self._settling is None:
            charged = self.charged()
            if self._unsure is None:
                return charged
            self._settling = self._wall()
        if self._unsure is None or self._count_waits() \
                or self._wall() - self._settling >= SETTLE:
            self._unsure = None
            return self._charged
        return None

    def over(self, with_limit: bool = True) -> str | None:
        """Why the move is over its time now (after the limit's own words
        unless not `with_limit`), or None while it is not."""
        if self._cpu is not None and self.wall() * _CPUS <= self.allowed:
            return None  # the thinker cannot have spent more than that on any clock yet
        why = self._why_over(self.charged(), self.wall())
        return why if why is None or not with_limit else f"{self._limit_text()}; {why}"

    def verdict(self, charged: float, wall: float) -> str | None:
        """Why a move that cost `charged` on its clock and `wall` on the wall is
        over its time (past the limit and margin, or the backstop), or None."""
        why = self._why_over(charged, wall)
        return None if why is None else f"{self._limit_text()}; {why}"

    def _why_over(self, charged: float, wall: float) -> str | None:
        if charged > self.allowed:
            return self._overrun(charged, wall)
        if wall >= self.backstop and wall - self._starved_now() >= self.backstop:
            used = (f"{min(self.last.cpu, charged) * 1000:.0f} ms of CPU time, waited "
                    f"{max(0.0, charged - self.last.cpu) * 1000:.0f} ms of its own and "
                    f"{self.last.core * 1000:.0f} ms for a core" if self.waits_known
                    else f"{charged * 1000:.0f} ms of CPU time")
            return (f"it was still not done after {wall:.1f} s on the wall clock, having "
                    f"used {used} (a move may wait at most {self.backstop:g} s)")
        return None

    def overrun_text(self, charged: float, wall: float) -> str:
        return f"{self._limit_text()}; {self._overrun(charged, wall)}"

    def _overrun(self, charged: float, wall: float) -> str:
        if self.kind == "wall":
            return f"it answered after {charged * 1000:.0f} ms"
        if not self.waits_known:
            return (f"it used {charged * 1000:.0f} ms of CPU time "
                    f"({wall * 1000:.0f} ms on the wall clock)")
        cpu = min(self.last.cpu, charged)
        return (f"it used {cpu * 1000:.0f} ms of CPU time and "
                f"waited {(charged - cpu) * 1000:.0f} ms of its own (sleeping or blocked), "
                f"{self.last.core * 1000:.0f} ms waiting for a core "
                f"({wall * 1000:.0f} ms on the wall clock)")

    def counts(self) -> str:
        """What the clock counts, in words ('CPU time plus its own waits')."""
        return ("wall-clock time" if self.kind == "wall" else
                "CPU time plus its own waits" if self.waits_known else "CPU time")

    def _limit_text(self) -> str:
        what = self.counts()
        margin = (f" and a margin of {(self.allowed - self.limit) * 1000:.0f} ms"
                  if self.allowed > self.limit else "")
        return f"time limit {self.limit * 1000:.0f} ms of {what}{margin}"

    def _starved_now(self) -> float:
        """Seconds of `starved` waits since the move began (read only past the backstop)."""
        if self._starved is None:
            return 0.0
        return max(0.0, (self._starved() or self._starved_from) - self._starved_from)

    def next_check(self, now: float) -> float:
        """When the move may next be over its time (`time.perf_counter()` terms)."""
        wall_end = self._wall_from + self.backstop
        if now >= wall_end:  # past it on the wall: the waits for a core it leaves out
            wall_end += self._starved_now()
        if self._cpu is None:
            return wall_end
        # Every core of the machine may be spending the remaining time at once.
        remaining = (self.allowed - self._charged) / _CPUS
        if self._waits is not None:
            # wall - core grows at most as fast as the wall clock; past the
            # limit on a reading it could not trust, look again soon
            ahead = self.allowed - self._term - (now - self._read_at)
            remaining = min(remaining, ahead if ahead > 0 else 0.005)
        return min(wall_end, now + min(max(remaining, 0.002), 0.05))


def setup_clock(limit: float, tree: TreeClock | None) -> MoveClock:
    """The clock a worker's setting its thinker up (starting, loading the
    thinker, its setup() and its name) is held to, started now: a move's cpu
    clock on the worker's process `tree` (the schedstat clock where it works),
    held to `limit` seconds, so a busy machine no more bends the setup time
    limit than a move's; the wall clock if the tree cannot be read."""
    waits = tree if tree is not None and tree.waits_known else None
    clock = MoveClock(MatchConfig(time_limit_ms=max(1, round(limit * 1000))),
                      tree.read if tree is not None else None, waits)
    clock.hold_to(limit)
    clock.start()
    return clock
