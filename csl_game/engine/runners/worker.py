"""The worker-process side of `ProcessRunner`: one thinker, many think() calls.

A worker makes its thinker once, then serves think requests until the parent
says quit or goes away. The parent and the worker talk over two one-way pipes
with small tuples:

parent -> worker::

    ("think", job_id, board)      # Board pickles as settings + moves
    ("cancel", job_id)
    ("quit",)

worker -> parent::

    ("ready",)                    # the thinker is set up
    ("setup_error", text)         # it is not; the worker then exits
    ("info", text)                # on_thinking_info()
    ("out", text)                 # lines written to stdout or stderr (file descriptors 1, 2)
    ("move", job_id, column, shape, elapsed)
    ("error", job_id, kind, detail, elapsed)    # kind: "exception" or "memory"
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import operator
import os
import queue
import resource
import select
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, NoReturn, cast

from csl_game.model.board import Board
from csl_game.thinker.discovery import registry
from csl_game.errors import ThinkerError
from csl_game.thinker.api import AbstractThinker, CancellationToken, FutureMove, MatchConfig
from csl_game.thinker.prototype import ThinkerPrototype

__all__ = ["WorkerSpec", "worker_main", "EXIT_MEMORY", "exception_detail"]

EXIT_MEMORY = 86
"""Exit status of a worker that ran out of memory outside a reportable think()."""

_PR_SET_PDEATHSIG = 1
_RESERVE_BYTES = 8 << 20
_CHUNK = 1 << 16  # bytes of output per message
_reserve: bytes | None = None  # freed on MemoryError to make room for the report

Message = tuple[Any, ...]


@dataclass(frozen=True)
class WorkerSpec:
    """What a worker needs to make its thinker (all picklable)."""

    module: str
    """The thinker class's module (as named in the parent's sys.modules)."""
    qualname: str
    params: str
    match_config: MatchConfig
    paths: tuple[str, ...]
    """--thinkers paths the class may come from."""
    memory_limit_mb: int
    """Address-space cap of the worker; 0 or less for none."""

    @property
    def fqn(self) -> str:
        """The class's fully qualified name."""
        return f"{self.module}.{self.qualname}"


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


def exception_detail(exc: BaseException) -> str:
    """'Type: message' and the traceback, as the runners report exceptions."""
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return f"{type(exc).__name__}: {exc}\n{text.rstrip()}"


class _Outbox:
    """Sends messages to the parent from any thread."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self._lock = threading.Lock()

    def send(self, message: Message) -> None:
        with self._lock:
            try:
                self._conn.send(message)
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
                self._outbox.send(("out", text.decode("utf-8", errors="replace")))
            if not chunk:
                return

    def send_after(self, message: Message) -> None:
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
    """The set-up thinker; on failure tell the parent and exit."""
    try:
        prototype = ThinkerPrototype(_thinker_class(spec), spec.params, spec.match_config,
                                     spec.paths)
        return prototype.create(lambda text: output.send_after(("info", text)))
    except ThinkerError as e:
        output.send_after(("setup_error", str(e)))
    except MemoryError:
        _out_of_memory()
    except BaseException as e:  # a thinker module may raise anything at import
        output.send_after(("setup_error", f"thinker {spec.fqn} could not be loaded: "
                                          f"{type(e).__name__}: {e}"))
    os._exit(0)


RESET = -1
"""Job id of a request to make a fresh thinker (for the worker's next match)."""

Jobs = queue.SimpleQueue[tuple[int, Any, CancellationToken | None]]


def _read_requests(inbox: Connection, jobs: Jobs,
                   tokens: dict[int, CancellationToken]) -> None:
    """Reader thread: queue think and reset requests, cancel tokens; exit with the parent."""
    try:
        while (message := inbox.recv())[0] != "quit":
            if message[0] == "think":
                tokens[message[1]] = CancellationToken()
                jobs.put((message[1], message[2], tokens[message[1]]))
            elif message[0] == "reset":
                tokens.clear()
                jobs.put((RESET, message[1], None))
            elif (token := tokens.get(message[1])) is not None:
                token.cancel()
    except (EOFError, OSError):
        pass  # the parent closed its end or died
    except MemoryError:
        _out_of_memory()
    os._exit(0)


def _move_message(job_id: int, move: object, elapsed: float) -> Message:
    if not isinstance(move, FutureMove):
        return ("error", job_id, "exception",
                f"think() returned {_safe_repr(move)}, not a FutureMove", elapsed)
    try:
        column, shape = operator.index(move.column), operator.index(move.shape)
    except TypeError:
        return ("error", job_id, "exception",
                f"think() returned {_safe_repr(move)}: column and shape must be "
                "whole numbers", elapsed)
    return ("move", job_id, column, shape, elapsed)


def _safe_repr(value: object) -> str:
    try:
        return repr(value)[:200]
    except Exception:
        return f"a {type(value).__name__}"


def _think_once(thinker: AbstractThinker, job_id: int, board: Board,
                token: CancellationToken, output: _Output) -> None:
    global _reserve
    start = time.perf_counter()
    out_of_memory = False
    try:
        message = _move_message(job_id, thinker.think(board, token),
                                time.perf_counter() - start)
    except MemoryError as e:
        _reserve = None  # room to format and send the report
        out_of_memory = True
        message = ("error", job_id, "memory", f"{exception_detail(e)}\n{_limit_text()}",
                   time.perf_counter() - start)
    except BaseException as e:  # user code: every failure is a forfeit
        message = ("error", job_id, "exception", exception_detail(e),
                   time.perf_counter() - start)
    output.send_after(message)
    if out_of_memory:
        _out_of_memory()


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
    output.send_after(("ready",))
    while True:
        job_id, payload, token = jobs.get()
        if job_id == RESET:  # a new match: a fresh thinker, set up anew
            del thinker
            thinker = _make_thinker(payload, output)
            output.send_after(("ready",))
            continue
        assert token is not None
        try:
            _think_once(thinker, job_id, payload, token, output)
        except MemoryError:
            _out_of_memory()
        tokens.pop(job_id, None)
