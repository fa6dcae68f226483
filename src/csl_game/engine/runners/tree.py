"""A worker's process tree: what it uses, and ending it whole, on every OS.

A thinker may start processes of its own (subprocess, multiprocessing, a
double fork with ``setsid``). They belong to its worker: they count against
its memory cap and die with it. psutil sees processes the same way on Linux,
macOS and Windows, so the parent needs no POSIX-only call:

- the tree is the worker and its descendants, walked from the worker; a
  worker marks its environment (`MARKER`) with its parent's pid and its own,
  which every process it starts inherits, so processes that left the tree (re-parented
  after a double fork) are still found by `marked()`;
- `kill_tree()` stops the whole tree first, so nothing in it can start
  another process meanwhile, then kills it;
- `MemoryWatch` sums each watched tree's resident memory a few times a
  second and ends a tree over its cap. It is the memory cap where the
  address-space limit (RLIMIT_AS) does not exist (Windows) or cannot be set
  (macOS), and the only one that counts a thinker's child processes.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable

import psutil

from csl_game.engine.runners.schedstat import read_proc

__all__ = ["MARKER", "mark_environment", "descendant_pids", "descendants", "tree", "kill_tree", "kill_trees", "end_descendants", "marked",
           "kill_marked",
           "MemoryWatch", "memory_watch", "ProcessClock"]

MARKER = "CSL_GAME_WORKER"
"""Environment variable a worker sets to its parent's pid, inherited by what it starts."""
_GONE = (psutil.NoSuchProcess, psutil.AccessDenied, OSError)
_LINUX = sys.platform.startswith("linux")
"""A process gone meanwhile, another user's, or /proc unreadable (no file descriptors left)."""
_TICK = 0.1  # seconds between two looks at the workers' own memory
_TREE_EVERY = 5  # ticks between two walks of the workers' descendants


def mark_environment(owner: int) -> None:
    """Mark this worker, and every process it starts from now on, as `owner`'s."""
    os.environ[MARKER] = f"{owner}:{os.getpid()}"


def descendant_pids(pid: int) -> list[int] | None:
    """The descendants of `pid` from /proc/PID/task/TID/children (Linux: no walk
    over every process of the machine, which psutil's children() reads); None
    where the kernel does not offer it (other systems, or a kernel without it)."""
    if not _LINUX:
        return None
    found: list[int] = []
    todo = [pid]
    first = True
    while todo:
        current = todo.pop()
        try:
            tids = os.listdir(f"/proc/{current}/task")
        except OSError:
            if first:
                return None
            continue
        for tid in tids:
            try:
                with open(f"/proc/{current}/task/{tid}/children", "rb") as f:
                    data = f.read()
            except FileNotFoundError:
                if first:
                    return None
                continue
            except OSError:
                continue
            for word in data.split():
                child = int(word)
                found.append(child)
                todo.append(child)
        first = False
    return found


def descendants(root: psutil.Process) -> list[psutil.Process]:
    """`root`'s living descendants (`descendant_pids` where it answers, psutil's
    walk elsewhere).

    Raises:
        psutil.NoSuchProcess: `root` is gone (psutil's walk).
    """
    found = descendant_pids(root.pid)
    if found is None:
        return root.children(recursive=True)
    procs = []
    for pid in found:
        with contextlib.suppress(*_GONE):
            procs.append(psutil.Process(pid))
    return procs


def tree(root: psutil.Process) -> list[psutil.Process]:
    """`root` and its living descendants (an empty list once `root` is gone)."""
    try:
        return [root, *descendants(root)]
    except _GONE:
        return []


def _each(procs: Iterable[psutil.Process], action: Callable[[psutil.Process], object]) -> None:
    for proc in procs:
        with contextlib.suppress(*_GONE):
            action(proc)


def kill_tree(root: psutil.Process | None, extra: Iterable[psutil.Process] = (),
              timeout: float = 1.0) -> None:
    """Kill `root`, its descendants and `extra`, and wait up to `timeout` s for them.

    The tree is suspended and walked again until it stops growing, so that a
    process forking in a loop cannot outrun the kill.
    """
    kill_trees([] if root is None else [root], extra, timeout)


def kill_trees(roots: Iterable[psutil.Process], extra: Iterable[psutil.Process] = (),
               timeout: float = 1.0) -> None:
    """`kill_tree()` of several trees at once: every one is killed before any
    is waited for, so closing N workers costs one wait, not N."""
    found: dict[int, psutil.Process] = {p.pid: p for p in extra}
    for root in roots:
        for _ in range(20):
            more = [p for p in tree(root) if p.pid not in found]
            if not more:
                break
            _each(more, psutil.Process.suspend)
            found.update((p.pid, p) for p in more)
    procs = list(found.values())
    _each(procs, psutil.Process.kill)
    # Waiting on a child of this process would reap it under multiprocessing's
    # feet (which would then never learn its exit code): it reaps its own.
    others = [p for p in procs if not _is_child(p)]
    _wait_dead(others, timeout)


def _dead(proc: psutil.Process) -> bool:
    try:
        return proc.status() == psutil.STATUS_ZOMBIE
    except _GONE:
        return True


def _wait_dead(procs: list[psutil.Process], timeout: float) -> None:
    """Wait up to `timeout` s until each of `procs` is gone or a zombie: dead,
    whoever reaps it (an orphan's reaper may be slow to, and it holds nothing)."""
    end = time.monotonic() + timeout
    pause = 0.001
    while procs := [p for p in procs if not _dead(p)]:
        if time.monotonic() >= end:
            return
        time.sleep(pause)
        pause = min(pause * 2, 0.02)


def end_descendants(root: psutil.Process, spare: int | None = None) -> bool:
    """Kill every living descendant of `root` (not `root` itself, nor `spare`,
    one of its children), each subtree stopped before it is killed; True when
    none is left (zombies, which hold nothing but their process id until
    their parent waits for them, aside)."""
    for _ in range(5):
        try:
            living = [p for p in descendants(root)
                      if p.pid != spare and p.status() != psutil.STATUS_ZOMBIE]
        except _GONE:
            return False
        if not living:
            return True
        for proc in living:
            kill_tree(proc, timeout=0.5)
    return False


def _is_child(proc: psutil.Process) -> bool:
    try:
        return proc.ppid() == os.getpid()
    except _GONE:
        return False


def marked(owner: int, worker: int | None = None) -> list[psutil.Process]:
    """Living processes marked as started by `owner`'s workers (by its worker
    `worker` only, if given)."""
    found = []
    for proc in psutil.process_iter():
        if proc.pid == os.getpid():
            continue
        try:
            mark = proc.environ().get(MARKER, "")
            if _is_ours(mark, owner, worker) and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except _GONE:
            continue  # another user's, or gone meanwhile
    return found


def _is_ours(mark: str, owner: int, worker: int | None) -> bool:
    mark_owner, _, mark_worker = mark.partition(":")
    return mark_owner == str(owner) and worker in (None, int(mark_worker or -1))


def kill_marked(owner: int = 0, worker: int | None = None) -> int:
    """Kill every process marked as `owner`'s (default: this process's), or
    as its worker `worker`'s; returns how many there were."""
    procs = marked(owner or os.getpid(), worker)
    if procs:
        kill_tree(None, procs)
    return len(procs)


class _Watched:
    def __init__(self, root: psutil.Process, limit: int,
                 over: Callable[[int], None]) -> None:
        self.root = root
        self.limit = limit
        self.over = over
        self.children: list[psutil.Process] = []


class MemoryWatch:
    """Ends each watched process tree whose resident memory exceeds its cap.

    One thread watches every tree; it runs while there is something to watch.
    """

    def __init__(self, tick: float = _TICK) -> None:
        self._tick = tick
        self._watched: dict[int, _Watched] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def watch(self, root: psutil.Process, limit_mb: int, over: Callable[[int], None]) -> None:
        """Watch `root`'s tree; over `limit_mb`, call `over(bytes used)`, then kill the tree."""
        with self._lock:
            self._watched[root.pid] = _Watched(root, limit_mb << 20, over)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="csl-memory-watch",
                                                daemon=True)
                self._thread.start()

    def forget(self, root: psutil.Process) -> None:
        """Stop watching `root`'s tree. Without the lock (one pop is atomic): a
        garbage collection in the watch's own thread, while it holds the lock,
        may run a finalizer that closes workers (a Session's pool), and a
        second acquire of the lock there would never return."""
        self._watched.pop(root.pid, None)

    def _run(self) -> None:
        tick = 0
        while True:
            with self._lock:
                watched = list(self._watched.values())
                if not watched:
                    self._thread = None
                    return
            walk = tick % _TREE_EVERY == 0
            for entry in watched:
                self._check(entry, walk)
            tick += 1
            time.sleep(self._tick)

    def _check(self, entry: _Watched, walk: bool) -> None:
        if walk:
            entry.children = tree(entry.root)[1:]
        used = 0
        for proc in (entry.root, *entry.children):
            with contextlib.suppress(*_GONE):
                used += proc.memory_info().rss
        if used > entry.limit:
            self.forget(entry.root)
            entry.over(used)
            kill_tree(entry.root)


memory_watch = MemoryWatch()
"""The watch of this process's workers."""


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


class ProcessClock:
    """One process of a tree: how to read its processor time (`TreeClock`)."""

    __slots__ = ("proc", "clock_id")

    def __init__(self, proc: psutil.Process) -> None:
        self.proc = proc
        self.clock_id = _cpu_clocks.clock_id(proc.pid)

    def read(self) -> float:
        """Its processor time and its waited-for children's (raises _GONE)."""
        if _LINUX:
            own, reaped = _stat_times(self.proc.pid)
        else:
            times = self.proc.cpu_times()
            own, reaped = times.user + times.system, times.children_user + times.children_system
        if self.clock_id is not None:
            return time.clock_gettime(self.clock_id) + reaped
        return own + reaped


_TICKS = os.sysconf("SC_CLK_TCK") if _LINUX else 100


def _stat_times(pid: int) -> tuple[float, float]:
    """A process's processor seconds and its waited-for children's, from
    /proc/PID/stat (utime + stime, cutime + cstime): what psutil's cpu_times()
    reads, at a tenth of its cost (a clock reads every process of a worker's
    tree several times a move). Raises psutil.NoSuchProcess when it ended."""
    data = read_proc(f"/proc/{pid}/stat", 1024)
    fields = data.rpartition(b")")[2].split() if data is not None else []
    if len(fields) < 15:
        raise psutil.NoSuchProcess(pid)
    return ((int(fields[11]) + int(fields[12])) / _TICKS,
            (int(fields[13]) + int(fields[14])) / _TICKS)
