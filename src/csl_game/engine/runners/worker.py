"""The worker-process side of `ProcessRunner`: one thinker, many think() calls.

A worker makes its thinker once, then serves think requests until the parent
says quit or goes away. The messages it reads and sends are the dataclasses
of `csl_game.engine.runners.protocol`; what think() returned is described
here, in the worker, so the parent only ever reads plain data.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import importlib
import os
import queue
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection
from types import ModuleType
from typing import Any, NoReturn, cast

import psutil

from csl_game import sandbox
from csl_game.engine.runners.answer import ask, crashed, exception_detail, plain_text
from csl_game.engine.runners.clocks import own_clock
from csl_game.engine.runners.output import OutputForwarder
from csl_game.engine.runners.protocol import (
    Answered,
    Cancel,
    FromWorker,
    Info,
    OutOfMemory,
    Quit,
    Raised,
    Ready,
    Reset,
    SetupFailed,
    Think,
    WorkerSpec,
    decode,
    to_bytes,
)
from csl_game.engine.runners.tree import mark_environment
from csl_game.errors import SetupRefused, ThinkerError
from csl_game.thinker.api import AbstractThinker, CancellationToken, MatchConfig
from csl_game.thinker.discovery import registry
from csl_game.thinker.prototype import ThinkerPrototype

_resource: ModuleType | None
try:
    import resource as _resource
except ImportError:  # Windows: the parent's memory watch is the only cap
    _resource = None

__all__ = ["worker_main", "EXIT_MEMORY", "EXIT_HARNESS"]

EXIT_MEMORY = 86
"""Exit status of a worker that ran out of memory outside a reportable think()."""
EXIT_HARNESS = 87
"""Exit status of a worker that could not make itself ready for any thinker
(no pipe, no thread): the program's failure, not the thinker's."""

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_RESERVE_BYTES = 8 << 20
_MAX_NAME = 200  # characters of a thinker's display name
_reserve: bytes | None = None  # freed on MemoryError to make room for the report
_address_cap_mb = 0  # the RLIMIT_AS this worker runs under, 0 when there is none
_watched_cap_mb = 0  # the cap the parent watches


def _thinker_class(spec: WorkerSpec) -> type[AbstractThinker]:
    """The class through discovery, else by importing its module (a prototype
    may be made from a class that discovery does not know)."""
    known = registry(spec.paths).classes.get(spec.fqn)
    if known is not None:
        return known
    found: Any = importlib.import_module(spec.module)
    for name in spec.qualname.split("."):
        found = getattr(found, name)
    return cast(type[AbstractThinker], found)


class _Outbox:
    """Sends messages to the parent from any thread."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self._lock = threading.Lock()

    def send(self, message: FromWorker) -> None:
        with self._lock:
            try:
                self._conn.send_bytes(to_bytes(message))
            except OSError:  # the parent is gone: nobody to think for
                os._exit(0)


def _prctl(option: int, value: int) -> None:
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def _keep_the_family() -> None:
    """Linux: die with the parent, and adopt orphaned descendants.

    The kernel kills us when our parent (the fork server, which exits with the
    main program) dies, even if think() never lets the reader run. As a
    subreaper, processes the thinker starts that lose their parent (a double
    fork) are re-parented to us, not to init, so the parent finds them all by
    walking our tree. Elsewhere the environment marker finds them.
    """
    _prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL) if hasattr(signal, "SIGKILL") else 9)
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def _enter_sandbox(spec: WorkerSpec) -> None:
    """Make the worker's sandbox (this process goes on inside it: process 1 of
    its own namespaces). The parent asked for one because the kernel made one
    for its check; if this one is refused all the same, the worker goes on
    without it, and the parent sees so (it finds no namespace of its own)."""
    try:
        sandbox.enter(network=spec.network, tmp_size_mb=min(
            sandbox.TMP_SIZE_MB, spec.memory_limit_mb) if spec.memory_limit_mb > 0
            else sandbox.TMP_SIZE_MB)
    except sandbox.SandboxError as e:
        with contextlib.suppress(OSError):
            sys.stderr.write(f"csl-game: this worker runs without its sandbox: {e}\n")
        return
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)  # process 1 adopts orphans anyway; say so


def _limit_resources(memory_limit_mb: int) -> None:
    """No core files, and the memory cap as an address-space limit where the OS has one.

    Where RLIMIT_AS is missing (Windows) or cannot be set (macOS refuses
    values below the current limit with ValueError), the parent's memory
    watch is the cap on its own.
    """
    global _address_cap_mb, _watched_cap_mb
    _watched_cap_mb = memory_limit_mb
    res = _resource
    if res is None:
        return
    with contextlib.suppress(ValueError, OSError, AttributeError):
        res.setrlimit(res.RLIMIT_CORE, (0, 0))
    if memory_limit_mb <= 0 or not hasattr(res, "RLIMIT_AS"):
        return
    try:
        limit = memory_limit_mb << 20
        _, hard = res.getrlimit(res.RLIMIT_AS)
        if hard != res.RLIM_INFINITY:
            limit = min(limit, hard)
        # soft == hard, so the thinker cannot raise its own cap
        res.setrlimit(res.RLIMIT_AS, (limit, limit))
    except (ValueError, OSError):
        return
    _address_cap_mb = limit >> 20


def _out_of_memory() -> NoReturn:
    os._exit(EXIT_MEMORY)


def _thread_hook(args: threading.ExceptHookArgs) -> None:
    if issubclass(args.exc_type, MemoryError):
        _out_of_memory()
    threading.__excepthook__(args)


def _make_thinker(spec: WorkerSpec, output: OutputForwarder) -> AbstractThinker:
    """The set-up thinker, once the parent is told it is ready; on failure tell
    the parent and exit. (Every text sent is an exact str: the parent must
    never unpickle a class of the thinker's.)"""
    threads = _thread_count()
    gc.unfreeze()  # the last match's thinker (a reused worker) may be collected now
    try:
        prototype = ThinkerPrototype(_thinker_class(spec), spec.params, spec.match_config,
                                     spec.paths)
        thinker = prototype.create(lambda text: output.send_after(Info(plain_text(text))))
    except ThinkerError as e:
        if isinstance(e.__cause__, MemoryError):  # out of memory is no refusal
            _out_of_memory()
        if isinstance(e, SetupRefused):
            output.send_after(SetupFailed(plain_text(str(e)), True, e.error, plain_text(e.reason),
                                          plain_text(e.where)))
        else:  # it failed (an engine that would not start): no refusal, a forfeit
            output.send_after(SetupFailed(plain_text(str(e))))
    except MemoryError:
        _out_of_memory()
    except BaseException as e:  # a thinker module may raise anything at import or setup
        output.send_after(SetupFailed(f"thinker {spec.fqn} could not be set up: "
                                      f"{type(e).__name__}: {plain_text(str(e))[:_MAX_NAME]}"))
    else:
        # What setup made (tables, books) is the thinker's for the match: the
        # collector need not go through it again during its moves.
        gc.collect()
        gc.freeze()
        output.send_after(Ready(_display_name(thinker, spec), threads))
        return thinker
    os._exit(0)


def _thread_count() -> int:
    """Threads of this process as the OS counts them (native ones included)."""
    try:
        return psutil.Process().num_threads()
    except (psutil.Error, OSError):
        return threading.active_count()


def _display_name(thinker: AbstractThinker, spec: WorkerSpec) -> str:
    """str(thinker), or a description of what went wrong with it."""
    try:
        name = str(thinker)
    except BaseException as e:  # the thinker's own __str__ may fail in any way
        return f"{spec.qualname} (its name could not be read: {type(e).__name__})"
    return plain_text(name)[:_MAX_NAME]  # str() may give a str subclass


Job = tuple[Think, CancellationToken] | Reset
Jobs = queue.SimpleQueue[Job]


def _token(config: MatchConfig, limit_ms: int = 0) -> CancellationToken:
    """A move's token: its time limit (`limit_ms`, else the match's per move)
    on the match's clock, started now."""
    return CancellationToken((limit_ms or config.time_limit_ms) / 1000, own_clock(config.clock))


def _read_requests(inbox: Connection, jobs: Jobs, tokens: dict[int, CancellationToken],
                   config: MatchConfig) -> None:
    """Reader thread: queue think and reset requests, cancel tokens; exit with the parent."""
    try:
        while not isinstance(message := decode(inbox.recv()), Quit):
            if isinstance(message, Think):
                tokens[message.job_id] = _token(config, message.time_limit_ms)
                jobs.put((message, tokens[message.job_id]))
            elif isinstance(message, Cancel):
                if (running := tokens.get(message.job_id)) is not None:
                    running.cancel()
            elif isinstance(message, Reset):
                tokens.clear()
                config = message.spec.match_config
                jobs.put(message)
    except (EOFError, OSError):
        pass  # the parent closed its end or died
    except MemoryError:
        _out_of_memory()
    os._exit(0)


def _free_reserve() -> None:
    global _reserve
    _reserve = None  # room to format and send the report


def _think_once(thinker: AbstractThinker, request: Think, token: CancellationToken,
                output: OutputForwarder) -> None:
    started = time.perf_counter()
    answer, elapsed = ask(thinker, request.board, token, on_memory_error=_free_reserve)
    if isinstance(answer, MemoryError):
        output.send_after(OutOfMemory(request.job_id, elapsed,
                                      f"{exception_detail(answer)}\n{_limit_text()}"), started)
        _out_of_memory()
    if isinstance(answer, BaseException):
        output.send_after(Raised(request.job_id, elapsed, exception_detail(answer),
                                crashed(answer)), started)
    else:
        output.send_after(Answered(request.job_id, elapsed, answer), started)


def _limit_text() -> str:
    if _address_cap_mb:
        return f"(memory limit {_address_cap_mb} MB)"
    if _watched_cap_mb > 0:
        return f"(memory limit {_watched_cap_mb} MB, watched by the parent)"
    return "(no memory limit was set)"


def _start_harness(inbox: Connection, outbox_conn: Connection, config: MatchConfig
                   ) -> tuple[OutputForwarder, Jobs, dict[int, CancellationToken]]:
    """The worker's own pipes and threads; exit with EXIT_HARNESS if they cannot be made."""
    try:
        output = OutputForwarder(_Outbox(outbox_conn).send)
        jobs: Jobs = queue.SimpleQueue()
        tokens: dict[int, CancellationToken] = {}
        threading.Thread(target=_read_requests, args=(inbox, jobs, tokens, config),
                         name="csl-requests", daemon=True).start()
    except (OSError, RuntimeError, MemoryError):
        os._exit(EXIT_HARNESS)
    return output, jobs, tokens


def _open_fds() -> list[int] | None:
    """This process's open file descriptors, where the system lists them."""
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            return [int(name) for name in os.listdir(folder) if name.isdigit()]
        except OSError:
            continue
    return None


def _close_inherited(keep: set[int]) -> None:
    """Close every file descriptor but `keep` before any thinker code runs.

    A worker inherits descriptors it has no use for (the fork server's pipes,
    multiprocessing's resource tracker, the parent's sentinel): thinker code
    could find them (in /proc/self/fd) and write into them, and one byte in the
    fork server's pipe would bring down every worker of the program. POSIX
    only: on Windows a spawned worker inherits only the handles it is given.
    """
    if os.name != "posix":
        return
    listed = _open_fds()
    if listed is None:  # no listing: close the whole range around what is kept
        top = max(keep) + 1
        for low, high in zip([3, *sorted(k + 1 for k in keep if k >= 3)],
                             [*sorted(k for k in keep if k >= 3), top]):
            if low < high:
                os.closerange(low, high)
        os.closerange(top, 1 << 16)
        return
    for fd in listed:
        if fd > 2 and fd not in keep:
            with contextlib.suppress(OSError):
                os.close(fd)


def worker_main(inbox: Connection, outbox_conn: Connection, spec: WorkerSpec) -> None:
    """Entry point of a worker process: make the thinker, then serve requests."""
    global _reserve
    if os.environ.pop("CSL_GAME_SAFE_PATH_ADDED", None):  # see csl_game.forkserver._safe_path
        os.environ.pop("PYTHONSAFEPATH", None)
    _keep_the_family()
    if spec.sandbox:
        _enter_sandbox(spec)
    if spec.owner:
        mark_environment(spec.owner)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the parent's to handle
    _limit_resources(spec.memory_limit_mb)
    _reserve = bytes(_RESERVE_BYTES)  # calloc: address space, untouched pages
    threading.excepthook = _thread_hook
    output, jobs, tokens = _start_harness(inbox, outbox_conn, spec.match_config)
    _close_inherited({0, 1, 2, inbox.fileno(), outbox_conn.fileno(), *output.fds})
    thinker = _make_thinker(spec, output)
    while True:
        job = jobs.get()
        if isinstance(job, Reset):  # a new match: a fresh thinker, set up anew
            del thinker
            thinker = _make_thinker(job.spec, output)
            continue
        request, token = job
        try:
            _think_once(thinker, request, token, output)
        except MemoryError:
            _out_of_memory()
        tokens.pop(request.job_id, None)
