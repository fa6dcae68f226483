"""How long a thinker's threads waited for a core, on Linux: the run-queue
wait the kernel keeps per thread in ``/proc/PID/task/TID/schedstat`` (its
fields: processor ns, run-queue wait ns, timeslices), where it keeps one
(CONFIG_SCHED_INFO; a kernel without it writes ``0 0 0``).

It makes the ``cpu`` match clock's *schedstat clock*
(`csl_game.engine.runners.clocks`): a move costs its processor time, or its
wall time less its threads' waits for a core (and a little time no account
shows), whichever is more (`charge`).
A thread's current wait is added to its file only once it runs again, so a
reading while one is runnable (`ThreadWaits.runnable`) is short of it.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable

__all__ = ["charge", "UNSEEN_BASE", "UNSEEN_SHARE", "schedstat_works", "read_proc",
           "ThreadWaits", "OwnClock"]

_LINUX = sys.platform.startswith("linux")


UNSEEN_BASE = 0.002
"""Seconds of a move's wall time that no account shows, forgiven ..."""
UNSEEN_SHARE = 0.1
"""... plus this share of its processor time. The kernel counts some time a
running thread spends on its core neither as its processor time nor as a
wait for a core: a virtual machine's stolen time (the host ran another
machine meanwhile) and interrupt handling. On a virtual machine that was a
few per cent of a thread's time, up to 15 % of a 50 ms stretch at moments;
the request and the answer crossing pipes and threads add a fraction of a
millisecond. Counted as the thinker's own waits, they would lose on time
thinkers that use most of their limit; a sleeper gains no more than this."""


def charge(cpu: float, wall: float, core: float) -> float:
    """What a move costs on the schedstat clock: its processor time `cpu`, or
    its `wall` time less the time its threads waited for a core (`core`) and
    the time no account shows (`UNSEEN_BASE`, `UNSEEN_SHARE`), whichever is
    more (seconds)."""
    return max(cpu, wall - core - UNSEEN_BASE - UNSEEN_SHARE * cpu)


def read_proc(path: str, size: int = 256) -> bytes | None:
    """The start of a /proc file, or None when it cannot be read (its thread ended)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.read(fd, size)
    except OSError:
        return None
    finally:
        os.close(fd)


def _run_delay(path: str) -> int | None:
    """The nanoseconds a thread has waited in a run queue, from its schedstat
    file (cpu ns, run-queue wait ns, timeslices), or None."""
    fields = (read_proc(path) or b"").split()
    return int(fields[1]) if len(fields) == 3 and fields[1].isdigit() else None


@functools.cache
def schedstat_works() -> bool:
    """Whether this system tells each thread's wait for a core: Linux with
    schedstat files (a kernel without CONFIG_SCHED_INFO writes ``0 0 0``)."""
    if not _LINUX:
        return False
    fields = (read_proc(f"/proc/self/task/{threading.get_native_id()}/schedstat")
              or b"").split()
    return len(fields) == 3 and all(f.isdigit() for f in fields) and int(fields[2]) > 0


class ThreadWaits:
    """The run-queue waits of every thread of some processes, in nanoseconds:
    the sum of what each thread was last seen with, so a thread or process
    that ended keeps its share and the sum only grows."""

    def __init__(self) -> None:
        self._seen: dict[tuple[str, str], int] = {}
        self._gone = 0

    def read(self, pids: Iterable[str]) -> int:
        listed: set[tuple[str, str]] = set()
        for pid in pids:
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except FileNotFoundError:
                continue  # ended: its threads keep what they were last seen with
            except OSError:  # unreadable for now (no descriptor left): keep them as seen
                listed.update(k for k in self._seen if k[0] == pid)
                continue
            for tid in tids:
                key = (pid, tid)
                listed.add(key)
                ns = _run_delay(f"/proc/{pid}/task/{tid}/schedstat")
                if ns is None:
                    continue
                old = self._seen.get(key)
                if old is not None and ns < old:  # another thread with the same id
                    self._gone += old
                self._seen[key] = ns
        for key in [k for k in self._seen if k not in listed]:
            self._gone += self._seen.pop(key)
        return self._gone + sum(self._seen.values())

    def runnable(self) -> bool:
        """Whether a thread is runnable now (state R): one waiting for a core
        has that wait counted only once it runs again."""
        for pid, tid in list(self._seen):
            stat = read_proc(f"/proc/{pid}/task/{tid}/stat", 512) or b""
            if stat.rpartition(b")")[2][1:2] == b"R":
                return True
        return False


class OwnClock:
    """The schedstat clock as a worker reads it of itself (its thinker's token,
    `csl_game.engine.runners.clocks.own_clock`): its processor time, or the
    wall time less its threads' waits for a core, whichever is more, since
    the clock was made. The waits are read at most
    every `EVERY` seconds (a search reads its clock thousands of times a
    second); in between the last reading stands, which can only make the
    thinker think it used more, never less."""

    EVERY = 0.002

    def __init__(self, cpu: Callable[[], float]) -> None:
        self._cpu = cpu
        self._waits = ThreadWaits()
        self._cpu_from = cpu()
        self._wall_from = self._read_at = time.perf_counter()
        self._core_from = self._waits.read(("self",))
        self._core = 0.0
        self._last = 0.0

    def __call__(self) -> float:
        now = time.perf_counter()
        if now - self._read_at >= self.EVERY:
            self._core = (self._waits.read(("self",)) - self._core_from) / 1e9
            self._read_at = now
        self._last = max(self._last, charge(self._cpu() - self._cpu_from,
                                            now - self._wall_from, self._core))
        return self._last
