"""The worker-process side of `ProcessRunner`: one thinker, many think() calls.

A worker makes its thinker once, then serves think requests until the parent
says quit or goes away. The messages it reads and sends are the dataclasses
of `csl_game.engine.runners.protocol`; what think() returned is described
here, in the worker, so the parent only ever reads plain data.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import os
import queue
import resource
import select
import signal
import sys
import threading
from multiprocessing.connection import Connection
from typing import Any, NoReturn, cast

from csl_game.engine.runners.answer import ask, exception_detail, plain_text
from csl_game.engine.runners.protocol import (Answered, Cancel, FromWorker, Info, OutOfMemory,
                                              Output, Quit, Raised, Ready, Reset, SetupFailed,
                                              Think, WorkerSpec, decode, encode)
from csl_game.errors import ThinkerError
from csl_game.thinker.api import AbstractThinker, CancellationToken
from csl_game.thinker.discovery import registry
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["worker_main", "EXIT_MEMORY"]

EXIT_MEMORY = 86
"""Exit status of a worker that ran out of memory outside a reportable think()."""

_PR_SET_PDEATHSIG = 1
_RESERVE_BYTES = 8 << 20
_CHUNK = 1 << 16  # bytes of output per message
_MAX_NAME = 200  # characters of a thinker's display name
_reserve: bytes | None = None  # freed on MemoryError to make room for the report


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
                self._conn.send(encode(message))
            except OSError:  # the parent is gone: nobody to think for
                os._exit(0)


class _Output:
    """Forwards everything written to file descriptors 1 and 2 to the parent.

    print(), C extensions and subprocesses all write there, so one pipe keeps
    their order; `send_after()` drains it first, so no output is overtaken by
    the move it came before.
    """

    def __init__(self, outbox: _Outbox) -> None:
        self._outbox = outbox
        read_fd, write_fd = os.pipe()
        os.dup2(write_fd, 1)
        os.dup2(write_fd, 2)
        os.close(write_fd)
        os.set_blocking(read_fd, False)
        self._fd = read_fd
        self._pending = b""
        self._lock = threading.Lock()
        for fd, name in ((1, "stdout"), (2, "stderr")):
            setattr(sys, name, open(fd, "w", buffering=1, encoding="utf-8",  # noqa: SIM115
                                    errors="backslashreplace", closefd=False))
        threading.Thread(target=self._forward, name="csl-output", daemon=True).start()

    def _forward(self) -> None:
        while True:
            select.select([self._fd], [], [])
            with self._lock:
                self._drain(final=False)

    def _drain(self, final: bool) -> None:
        """Send what the pipe holds: whole lines only, unless `final`."""
        while True:
            try:
                chunk = os.read(self._fd, _CHUNK)
            except BlockingIOError:
                chunk = b""
            data = self._pending + chunk
            text, newline, self._pending = data.rpartition(b"\n")
            if (final and not chunk) or (not newline and len(data) >= _CHUNK):
                text, self._pending = data, b""  # a huge line goes in pieces
            if text:
                self._outbox.send(Output(text.decode("utf-8", errors="replace")))
            if not chunk:
                return

    def send_after(self, message: FromWorker) -> None:
        """Send what was written so far, then `message`."""
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # a thinker may have replaced them
                stream.flush()
        with self._lock:
            self._drain(final=True)
            self._outbox.send(message)


def _die_with_parent() -> None:
    # The kernel kills us when our parent (the fork server, which exits with
    # the main program) dies, even if think() never lets the reader run.
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _limit_resources(memory_limit_mb: int) -> None:
    with contextlib.suppress(ValueError, OSError):  # no core files from crashing thinkers
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if memory_limit_mb > 0:
        limit = memory_limit_mb << 20
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        # soft == hard, so the thinker cannot raise its own cap
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _out_of_memory() -> NoReturn:
    os._exit(EXIT_MEMORY)


def _thread_hook(args: threading.ExceptHookArgs) -> None:
    if issubclass(args.exc_type, MemoryError):
        _out_of_memory()
    threading.__excepthook__(args)


def _make_thinker(spec: WorkerSpec, output: _Output) -> AbstractThinker:
    """The set-up thinker, once the parent is told it is ready; on failure tell
    the parent and exit. (Every text sent is an exact str: the parent must
    never unpickle a class of the thinker's.)"""
    try:
        prototype = ThinkerPrototype(_thinker_class(spec), spec.params, spec.match_config,
                                     spec.paths)
        thinker = prototype.create(lambda text: output.send_after(Info(plain_text(text))))
    except ThinkerError as e:
        output.send_after(SetupFailed(plain_text(str(e))))
    except MemoryError:
        _out_of_memory()
    except BaseException as e:  # a thinker module may raise anything at import
        output.send_after(SetupFailed(f"thinker {spec.fqn} could not be loaded: "
                                      f"{type(e).__name__}: {e}"))
    else:
        output.send_after(Ready(_display_name(thinker, spec)))
        return thinker
    os._exit(0)


def _display_name(thinker: AbstractThinker, spec: WorkerSpec) -> str:
    """str(thinker), or a description of what went wrong with it."""
    try:
        name = str(thinker)
    except BaseException as e:  # the thinker's own __str__ may fail in any way
        return f"{spec.qualname} (its name could not be read: {type(e).__name__})"
    return plain_text(name)[:_MAX_NAME]  # str() may give a str subclass


Job = tuple[Think, CancellationToken] | Reset
Jobs = queue.SimpleQueue[Job]


def _read_requests(inbox: Connection, jobs: Jobs,
                   tokens: dict[int, CancellationToken]) -> None:
    """Reader thread: queue think and reset requests, cancel tokens; exit with the parent."""
    try:
        while not isinstance(message := decode(inbox.recv()), Quit):
            if isinstance(message, Think):
                tokens[message.job_id] = CancellationToken()
                jobs.put((message, tokens[message.job_id]))
            elif isinstance(message, Cancel):
                if (running := tokens.get(message.job_id)) is not None:
                    running.cancel()
            elif isinstance(message, Reset):
                tokens.clear()
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
                output: _Output) -> None:
    answer, elapsed = ask(thinker, request.board, token, on_memory_error=_free_reserve)
    if isinstance(answer, MemoryError):
        output.send_after(OutOfMemory(request.job_id, elapsed,
                                      f"{exception_detail(answer)}\n{_limit_text()}"))
        _out_of_memory()
    if isinstance(answer, BaseException):
        output.send_after(Raised(request.job_id, elapsed, exception_detail(answer)))
    else:
        output.send_after(Answered(request.job_id, elapsed, answer))


def _limit_text() -> str:
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return "(no memory limit was set)"
    return f"(memory limit {soft >> 20} MB)"


def worker_main(inbox: Connection, outbox_conn: Connection, spec: WorkerSpec) -> None:
    """Entry point of a worker process: make the thinker, then serve requests."""
    global _reserve
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the parent's to handle
    _limit_resources(spec.memory_limit_mb)
    _reserve = bytes(_RESERVE_BYTES)  # calloc: address space, untouched pages
    threading.excepthook = _thread_hook
    output = _Output(_Outbox(outbox_conn))
    thinker = _make_thinker(spec, output)
    jobs: Jobs = queue.SimpleQueue()
    tokens: dict[int, CancellationToken] = {}
    threading.Thread(target=_read_requests, args=(inbox, jobs, tokens),
                     name="csl-requests", daemon=True).start()
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
