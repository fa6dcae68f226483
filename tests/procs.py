"""Looking at processes from tests, the same way on every OS (psutil)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psutil

from csl_game.engine.runners.schedstat import ThreadWaits
from csl_game.engine.runners.tree import MARKER

HELPERS = ("multiprocessing.forkserver", "multiprocessing.resource_tracker")
"""multiprocessing's own helper processes, which live as long as the program."""


def _sigint_as_default() -> None:  # in the child, between fork and exec
    signal.signal(signal.SIGINT, signal.SIG_DFL)


INTERRUPTIBLE: dict[str, Any] = {} if sys.platform == "win32" else {
    "preexec_fn": _sigint_as_default}
"""subprocess.Popen's keywords for a child that a Ctrl+C (SIGINT) from the test
stops, however the test run was started: a non-interactive shell starts its
background jobs (`pytest ... &` in a script) with SIGINT ignored, every process
started from them inherits that, and a Python started so keeps ignoring it (no
KeyboardInterrupt ever). Every test that sends SIGINT starts its process with
these. Windows has no preexec_fn and no SIGINT to send: nothing there."""


def _cmdline(proc: psutil.Process) -> str:
    try:
        return " ".join(proc.cmdline())
    except (psutil.Error, OSError):
        return ""


def alive(pid: int) -> bool:
    """Whether `pid` exists and is not a zombie."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def descendants(root: int, helpers: bool = False) -> set[int]:
    """Living processes below `root`; multiprocessing's helpers (its own children
    running the fork server or the resource tracker) only when `helpers`.
    Workers forked by the fork server share its command line, so only the
    helpers themselves are told apart, by being `root`'s children."""
    try:
        procs = psutil.Process(root).children(recursive=True)
    except psutil.Error:
        return set()
    found = set()
    for proc in procs:
        try:
            helper = proc.ppid() == root and any(h in _cmdline(proc) for h in HELPERS)
        except psutil.Error:
            continue
        if alive(proc.pid) and (helpers or not helper):
            found.add(proc.pid)
    return found


def marked(owner: int | None = None) -> set[int]:
    """Living processes marked as started by `owner`'s workers (any owner if None).

    The processes a thinker starts carry the mark from their start; a worker
    itself may not show it (some OSes show a process's first environment).
    """
    found = set()
    for proc in psutil.process_iter():
        try:
            mark = proc.environ().get(MARKER)
        except (psutil.Error, OSError):
            continue
        if mark and (owner is None or mark.split(":")[0] == str(owner)) and alive(proc.pid):
            found.add(proc.pid)
    return found


def gone_within(pids: Iterable[int], seconds: float) -> bool:
    """Whether every process of `pids` is gone within `seconds`."""
    pids = list(pids)
    end = time.monotonic() + seconds
    while any(alive(p) for p in pids):
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True


def open_fds() -> int:
    """File descriptors (handles on Windows) this process holds."""
    proc = psutil.Process(os.getpid())
    return proc.num_handles() if hasattr(proc, "num_handles") else proc.num_fds()


def kill_after_lines(command: list[str], results: Path, lines: int, seconds: float,
                     env: dict[str, str] | None = None) -> None:
    """Run `command` until its results file has `lines` lines (or `seconds`
    pass), then kill it (SIGKILL, or TerminateProcess on Windows): no chance
    to clean up."""
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=env)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and (not results.exists()
                                           or results.read_text().count("\n") < lines):
        time.sleep(0.02)
    proc.kill()
    proc.wait()


class OwnTime:
    """How long a process takes to do something, as it would on an idle
    machine: the wall time less the time its main thread waited in a run
    queue for a core (Linux's schedstat; the wall time elsewhere). A busy
    machine stretches the wall time, not this; a process that waits for
    something (a thinker, a grace, a child) is charged the wait."""

    def __init__(self, pid: int, tid: int | None = None, tree: bool = False) -> None:
        """Watch process `pid`'s main thread (or its thread `tid`) from now;
        with `tree`, the waits of every thread of it and of every process
        below it (one whose end waits on its workers' ends: a killed worker
        runs to exit, and waits for a core to do so)."""
        self._path = f"/proc/{pid}/task/{tid or pid}/schedstat"
        self._tree = CoreWaits(pid) if tree else None
        self._start = time.perf_counter()
        self._first = self._last = self._waited()

    def _waited(self) -> float | None:
        if self._tree is not None:
            return self._tree.seconds()
        try:
            with open(self._path, "rb") as f:
                return int(f.read().split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            return None

    def look(self) -> None:
        """Read the waits again (a process that ended keeps its last reading)."""
        if (now := self._waited()) is not None:
            self._last = now

    def waited(self) -> float:
        """Seconds it waited for a core since the watch began, as last read."""
        return 0.0 if self._first is None or self._last is None else self._last - self._first

    def seconds(self) -> float:
        """Seconds since the watch began, less the waits for a core it read."""
        return time.perf_counter() - self._start - self.waited()


class CoreWaits:
    """How long a process and every process below it waited for a core
    (Linux's schedstat; 0 elsewhere): each thread's waits in a run queue since
    the count began, summed. A turn that a busy machine stretches is
    stretched by these; an idle machine leaves them near 0. A process that
    ended keeps what it was last seen with (`look`, or `watching` to look on a
    thread of its own while a call blocks)."""

    def __init__(self, root: int | None = None, below: bool = True) -> None:
        """Count the waits of `root` (this process by default) and, if
        `below`, of every process below it."""
        self._root = os.getpid() if root is None else root
        self._below = below
        self._waits = ThreadWaits()  # the clock's own reader: a thread that ended keeps its share
        self._from = self._read()

    def _read(self) -> float:
        below = descendants(self._root, helpers=True) if self._below else set()
        return self._waits.read(str(pid) for pid in {self._root, *below}) / 1e9

    def look(self) -> None:
        """Read the waits again."""
        self._read()

    @contextmanager
    def watching(self, every: float = 0.05) -> Iterator[CoreWaits]:
        """Look every `every` seconds on a thread of its own until the block ends."""
        done = threading.Event()

        def watch() -> None:
            while not done.wait(every):
                self.look()
        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        try:
            yield self
        finally:
            done.set()
            watcher.join()

    def seconds(self) -> float:
        """Seconds waited since the count began, as of now (a thread started
        since counts whole; one that ended, as it was last seen)."""
        return self._read() - self._from


def interrupt_while_thinking(args: list[str], min_workers: int = 1) -> None:
    """Run `csl-game ARGS`; once its thinkers think, Ctrl+C: out within 1 s of
    its own time (a busy machine's waits for a core aside), no worker left."""
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    proc = subprocess.Popen([sys.executable, "-m", "csl_game", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            **INTERRUPTIBLE)
    family: set[int] = set()
    try:
        assert proc.stdout is not None
        for line in proc.stdout:  # wait until a busy thinker is thinking
            if "is thinking" in line:
                break
        deadline = time.monotonic() + 30
        while len(family := descendants(proc.pid, helpers=True)) < min_workers \
                and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(family) >= min_workers, "the AI players run in worker processes"
        own = OwnTime(proc.pid, tree=True)
        proc.send_signal(signal.SIGINT)
        while proc.poll() is None and own.seconds() < 5:
            own.look()
            time.sleep(0.005)
        assert proc.poll() is not None and own.seconds() < 1.0, own.seconds()
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline and any(alive(p) for p in family):
        time.sleep(0.05)
    assert not any(alive(p) for p in family)


def forfeit_within(mc: Any, extra: float = 1.0) -> float:
    """Wall seconds a move may take before its forfeit is known, by the match
    clock's own rules: on the CPU clock the limit and the cancel grace are
    CPU time, each bounded on the wall by its backstop (a busy machine may
    stretch them that far); on the wall clock they are wall time."""
    from csl_game.engine.runners.clocks import backstop, schedstat_works
    from csl_game.engine.runners.process import CANCEL_GRACE

    allowed = (mc.time_limit_ms + mc.time_margin_ms) / 1000
    if mc.clock == "cpu":  # where schedstat works, a wait for a core is no move's own
        waits = schedstat_works()
        return backstop(allowed, waits) + backstop(CANCEL_GRACE, waits) + extra
    return allowed + CANCEL_GRACE + extra
