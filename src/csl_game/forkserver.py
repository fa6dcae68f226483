"""The fork server that worker processes start from, and starting it early.

Workers come from multiprocessing's ``forkserver`` start method where there
is one (a clean, single-threaded server that has imported the worker's code
and the built-in thinkers once: a worker starts in milliseconds) and from
``spawn`` elsewhere (Windows). The server itself takes a few tenths of a
second to start, the time of a new interpreter importing the engine.

This module imports nothing of the engine, so that the command line
(`csl_game.launch`) can start the server before it imports the engine
itself, and the two start-ups overlap. The engine's runners ask for the
start method through `mp_context()` (re-exported by
`csl_game.engine.runners.handle`), which starts the server if nobody did.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import multiprocessing
import os
import re
import sys
import threading
from collections.abc import Iterator
from multiprocessing.context import ForkServerContext, SpawnContext
from typing import Any

from csl_game.thinker.discovery import builtin_modules

__all__ = ["mp_context", "start_server", "start_server_soon", "server_pid", "SAFE_PATH_ADDED",
           "PRELOAD_MAIN", "unguarded_main"]

WORKER_MODULE = "csl_game.engine.runners.worker"
WARM_MODULE = "csl_game.engine.runners.warm"
"""Imported last by the server (it runs the main script and builds the registry)."""

_context: ForkServerContext | SpawnContext | None = None
_context_lock = threading.Lock()


def _wake_resource_tracker() -> None:
    """At exit, continue multiprocessing's resource tracker if it was stopped.

    Where workers are spawned they are the tracker's siblings, and without
    the sandbox a thinker may stop every process it can see: a stopped
    tracker would outlive csl-game holding its standard output, and whoever
    reads that output would wait for ever. Continued, it reads the end of its
    pipe and exits as usual."""
    import signal

    if not hasattr(signal, "SIGCONT"):
        return  # no such signal, and no such stop (Windows)
    from multiprocessing import resource_tracker

    pid = getattr(resource_tracker._resource_tracker, "_pid", None)  # noqa: SLF001
    if isinstance(pid, int) and pid > 0:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGCONT)


atexit.register(_wake_resource_tracker)


def _end_server(grace: float = 0.15) -> None:
    """At exit, end the fork server now: closing its end of the pipe asks it
    to stop, and it is waited for (killed after `grace` seconds, as a stopped
    one would never go). Left to itself it went a second or more after
    csl-game, holding what csl-game's caller waits on."""
    import signal
    import time
    from multiprocessing import forkserver

    server: Any = forkserver._forkserver  # noqa: SLF001
    pid, alive = server._forkserver_pid, server._forkserver_alive_fd
    if not isinstance(pid, int) or not isinstance(alive, int):
        return
    server._forkserver_pid = server._forkserver_alive_fd = None
    with contextlib.suppress(OSError):
        os.close(alive)
    deadline = time.monotonic() + grace
    try:
        while os.waitpid(pid, os.WNOHANG)[0] == 0:
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return
            time.sleep(0.005)
    except OSError:
        return  # already waited for, or not this process's child


atexit.register(_end_server)


def mp_context() -> ForkServerContext | SpawnContext:
    """The start method of workers: the fork server where there is one (started
    now if it is not running), else spawn."""
    global _context
    with _context_lock:
        if _context is None:
            if "forkserver" in multiprocessing.get_all_start_methods():
                server = multiprocessing.get_context("forkserver")
                # Preloaded once in the server, so each worker starts in milliseconds.
                server.set_forkserver_preload(["__main__", WORKER_MODULE, *builtin_modules(),
                                               WARM_MODULE])
                _ensure_server_quietly()
                _context = server
            else:
                _context = multiprocessing.get_context("spawn")
        return _context


def server_pid() -> int | None:
    """The process id of the fork server that starts workers now (None where
    workers are spawned, or before it started)."""
    if _context is None or _context.get_start_method() != "forkserver":
        return None
    from multiprocessing import forkserver

    pid = forkserver._forkserver._forkserver_pid  # type: ignore[attr-defined]  # noqa: SLF001
    return pid if isinstance(pid, int) else None


def start_server() -> None:
    """Start the fork server now (it loads on its own while this process goes
    on); returns in milliseconds. Nothing where workers are spawned."""
    mp_context()


def start_server_soon() -> None:
    """Start the fork server on a background thread now, so the first worker
    of the first match does not wait ~0.1 s for it (a stalled frame in a window)."""
    threading.Thread(target=_warm_up, name="csl-forkserver-start", daemon=True).start()


def _warm_up() -> None:
    """The fork server, then the check of the workers' sandbox (a short-lived
    process of its own), both before the first worker asks for them."""
    mp_context()
    from csl_game.sandbox import status

    status()


def _ensure_server_quietly() -> None:
    """Start the fork server (and multiprocessing's resource tracker) with its
    standard error on the null device: what it would print are its own
    tracebacks (e.g. a handshake cut short when file descriptors run out),
    never a thinker's, whose output goes through its worker's pipe."""
    from multiprocessing import forkserver

    with contextlib.suppress(OSError):
        sys.stderr.flush()
    try:
        saved, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return  # no file descriptors: the first worker's start will say so
    try:
        os.dup2(null, 2)
        with _safe_path(), _main_for_server():
            forkserver.ensure_running()
    except OSError:
        pass  # the first worker's start will say so
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def unguarded_main() -> str | None:
    """The main script's path when it is a Python file with no ``if __name__ ==
    "__main__":`` test: the workers' server (and spawn) runs that script to
    start, so a script that plays matches at its top level plays them again in
    there, and its workers die setting their thinkers up. None otherwise."""
    path = getattr(sys.modules.get("__main__"), "__file__", None)
    if not path or not str(path).endswith(".py"):
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            source = f.read()
    except OSError:
        return None
    return None if re.search(r"""__name__\s*==\s*['"]__main__['"]""", source) else str(path)


PRELOAD_MAIN = "CSL_GAME_PRELOAD_MAIN"
"""The fork server's environment variable that names the program's main script
(JSON: its path, sys.argv and sys.path) for `csl_game.engine.runners.warm`."""


@contextlib.contextmanager
def _main_for_server() -> Iterator[None]:
    """Have the fork server run the program's main script once, not each worker.

    A worker started by the fork server runs the parent's main script again
    (as ``__mp_main__``) unless the server already did: multiprocessing's
    preload of ``__main__`` is meant to, but from Python 3.4 until its fix in
    3.13.8 (CPython issues gh-126631 and gh-137996) the server is never told
    the script's path. A script that imports the engine costs every worker
    some 70 ms that way. The server's environment (it inherits this
    process's) names the script, and `warm` runs it there.
    """
    from multiprocessing import spawn

    data = spawn.get_preparation_data("csl-forkserver")
    path = data.get("init_main_from_path")
    if not path:
        yield
        return
    os.environ[PRELOAD_MAIN] = json.dumps({"path": path, "argv": data.get("sys_argv", []),
                                           "sys_path": data.get("sys_path", [])})
    try:
        yield
    finally:
        os.environ.pop(PRELOAD_MAIN, None)


SAFE_PATH_ADDED = "CSL_GAME_SAFE_PATH_ADDED"
"""Set in the fork server's environment when `_safe_path` added PYTHONSAFEPATH,
so that each worker takes it out again before a thinker runs."""


@contextlib.contextmanager
def _safe_path() -> Iterator[None]:
    """Start the fork server without the current folder on its import path.

    The server is started as ``python -c ...``, which puts the current folder
    first on ``sys.path`` (and Python 3.11 and 3.12 ignore the parent's path
    that multiprocessing hands it): a folder named ``csl_game`` there, such as
    a checkout's, would be imported in the workers in place of the package
    the program runs. PYTHONSAFEPATH (``-P``, Python 3.11+) leaves it out.
    """
    if os.environ.get("PYTHONSAFEPATH"):
        yield
        return
    os.environ["PYTHONSAFEPATH"] = os.environ[SAFE_PATH_ADDED] = "1"
    try:
        yield
    finally:
        os.environ.pop("PYTHONSAFEPATH", None)
        os.environ.pop(SAFE_PATH_ADDED, None)
