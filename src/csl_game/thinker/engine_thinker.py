"""Engines: thinkers that are executables speaking the engine protocol.

An engine is declared by a name and a command (``crandom=./random_engine 7``).
Discovery makes one thinker class per declared engine (`engine_class()`), so
an engine plays wherever a thinker does. Its thinker (`EngineThinker`) starts
the executable in `setup()`, as a child of the process that runs the thinker,
and talks the protocol of `csl_game.thinker.engine_protocol` over the child's
standard input and output; the child's standard error is the thinker's own.
So the runner's isolation, time limit, cancellation and forfeits apply to an
engine exactly as to a Python thinker: its worker process owns the child.
"""

from __future__ import annotations

import contextlib
import math
import os
import queue
import re
import shlex
import signal
import subprocess
import threading
import time
import weakref
from dataclasses import dataclass
from functools import cache
from typing import IO, ClassVar, TypeVar, cast

from csl_game.errors import ConfigError, EngineDied, EngineError, EngineRefused
from csl_game.model.board import Board
from csl_game.thinker import engine_protocol as protocol
from csl_game.thinker.api import AbstractThinker, CancellationToken, FutureMove, MatchConfig

__all__ = ["EngineSpec", "EngineThinker", "EngineError", "EngineDied", "EngineRefused",
           "engine_class", "ENGINE_PREFIX", "HELLO_TIMEOUT", "HANDSHAKE_TIMEOUT", "STOP_GRACE"]

ENGINE_PREFIX = "engine:"
"""How an engine declaration is written among thinker sources (``--thinkers`` paths)."""
HELLO_TIMEOUT = 4.0
"""Seconds an engine has to answer ``csl VERSION`` with its own ``csl`` line."""
HANDSHAKE_TIMEOUT = 5.0
"""Seconds an engine then has to answer ``setup`` with ``ready``. Both together
stay within the default setup time limit (10 s), so that a silent engine is
told as such, not as a setup that took too long."""
STOP_GRACE = 1.0
"""Seconds an engine has to answer ``stop`` before it is killed. A worker process
is killed sooner (the runner's own grace); this grace matters when thinkers run
in-process, where nobody else would end the engine."""
_QUIT_GRACE = 0.2  # seconds an engine has to exit after quit before it is killed
_POLL = 0.005  # seconds between looks at the cancellation token while waiting
_MAX_LINE = 1 << 20  # bytes of one line from an engine
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")






@dataclass(frozen=True)
class EngineSpec:
    """A declared engine: the thinker name it plays under, and its command line."""

    name: str
    command: str

    @classmethod
    def parse(cls, declaration: str) -> EngineSpec:
        """The engine of ``NAME=COMMAND ARGS``.

        Raises:
            ConfigError: no name, a name with other characters than letters,
                digits and ``_.+-``, no command, or unbalanced quotes.
        """
        name, equals, command = declaration.partition("=")
        name, command = name.strip(), command.strip()
        if not equals or not command:
            raise ConfigError(f"engine '{protocol.shown(declaration)}': write NAME=COMMAND, "
                              "e.g. crandom=./random_engine")
        if not _NAME.fullmatch(name):
            raise ConfigError(f"engine name '{protocol.shown(name)}': use letters, digits "
                              "and _.+- (starting with a letter, digit or _)")
        spec = cls(name, command)
        spec.argv()
        return spec

    @classmethod
    def from_source(cls, source: str) -> EngineSpec | None:
        """The engine a thinker source declares, or None for a path.

        Raises:
            ConfigError: the source declares an engine badly.
        """
        if not source.startswith(ENGINE_PREFIX):
            return None
        return cls.parse(source[len(ENGINE_PREFIX):])

    @property
    def declaration(self) -> str:
        """``NAME=COMMAND``, as ``--engine`` takes it."""
        return f"{self.name}={self.command}"

    @property
    def source(self) -> str:
        """The engine as a thinker source, beside --thinkers paths."""
        return ENGINE_PREFIX + self.declaration

    def argv(self) -> list[str]:
        """The command split into the program and its arguments.

        Raises:
            ConfigError: unbalanced quotes, or nothing to run.
        """
        try:
            argv = shlex.split(self.command, posix=os.name != "nt")
        except ValueError as e:
            raise ConfigError(f"engine '{self.name}': command `{self.command}`: {e}") from None
        if not argv:
            raise ConfigError(f"engine '{self.name}': the command is empty")
        return argv


@cache
def engine_class(spec: EngineSpec) -> type[EngineThinker]:
    """The thinker class of one declared engine (the same class for the same spec).

    Its fully qualified name, ``csl_game.thinker.engine_thinker.EngineThinker[NAME]``,
    is made again from the declaration in every process, which is how a worker
    finds the class its parent asked for.
    """
    namespace = {"engine": spec, "__doc__": f"Engine: {spec.command}",
                 "__module__": __name__, "__qualname__": f"EngineThinker[{spec.name}]"}
    return cast(type[EngineThinker], type(spec.name, (EngineThinker,), namespace))


# ------------------------------------------------------------------ the process
Line = str | None | protocol.EngineProtocolError
"""What the reader hands on: a line, None at the end of the output, or a line too long."""


def _read_lines(stream: IO[bytes], lines: queue.SimpleQueue[Line]) -> None:
    while True:
        raw = stream.readline(_MAX_LINE)
        if not raw:
            break
        if not raw.endswith(b"\n") and len(raw) >= _MAX_LINE:
            lines.put(protocol.EngineProtocolError(f"sent a line longer than {_MAX_LINE} bytes"))
            break
        lines.put(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
    lines.put(None)


def _stop(popen: subprocess.Popen[bytes]) -> None:
    """Ask the engine to quit (without ever blocking on its pipe), then kill it."""
    stdin = popen.stdin
    if stdin is not None:
        with contextlib.suppress(OSError, ValueError, AttributeError):  # no set_blocking: Windows
            os.set_blocking(stdin.fileno(), False)
            os.write(stdin.fileno(), f"{protocol.QUIT}\n".encode())
        with contextlib.suppress(OSError, ValueError):
            stdin.close()  # end of input: the other way to say quit
    try:
        popen.wait(_QUIT_GRACE)
    except subprocess.TimeoutExpired:
        popen.kill()
        popen.wait()


def _exit_text(code: int | None) -> str:
    if code is None:
        return "it closed its output but its process is still running"
    return exit_text(code)


def exit_text(code: int) -> str:
    """How an ended process ended, in words: its exit code, or the signal that
    killed it (a negative code, as subprocess and multiprocessing give it)."""
    if code < 0:
        try:
            return f"its process was killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"its process was killed by signal {-code}"
    return f"its process exited with code {code}"


class _Process:
    """One running engine: its pipes, and the lines it wrote, in order."""

    def __init__(self, spec: EngineSpec) -> None:
        self.name = spec.name
        self.command = spec.command
        self.ended = ""
        """How its process ended, once it did."""
        try:
            self._popen = subprocess.Popen(spec.argv(), stdin=subprocess.PIPE,
                                           stdout=subprocess.PIPE)
        except OSError as e:
            raise EngineError(f"engine '{spec.name}' cannot start `{spec.command}`: "
                              f"{e.strerror or e}") from None
        self._lines: queue.SimpleQueue[Line] = queue.SimpleQueue()
        assert self._popen.stdout is not None
        threading.Thread(target=_read_lines, args=(self._popen.stdout, self._lines),
                         name=f"csl-engine {spec.name}", daemon=True).start()
        self._finalizer = weakref.finalize(self, _stop, self._popen)

    def send(self, line: str) -> None:
        """Write one line to the engine.

        Raises:
            EngineDied: the engine's input is closed (its process is gone).
        """
        stdin = self._popen.stdin
        assert stdin is not None
        try:
            stdin.write(f"{line}\n".encode())
            stdin.flush()
        except (OSError, ValueError):
            raise self.died() from None

    def next_line(self, timeout: float) -> str | None:
        """The engine's next line, or None if none came within `timeout` seconds.

        Raises:
            EngineDied: the engine's output ended.
            EngineProtocolError: the engine sent a line too long to be one.
        """
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            return None
        if line is None:
            self._lines.put(None)  # every later read sees the end too
            raise self.died()
        if isinstance(line, protocol.EngineProtocolError):
            raise protocol.EngineProtocolError(f"engine '{self.name}' {line}")
        return line

    def died(self) -> EngineDied:
        """The error for an engine whose pipes closed, with its exit status."""
        try:
            code: int | None = self._popen.wait(1.0)
        except subprocess.TimeoutExpired:
            code = None
        self.ended = _exit_text(code)
        return EngineDied(f"engine '{self.name}' (`{self.command}`) stopped answering: "
                          f"{self.ended}")

    def kill(self) -> None:
        """End the engine now."""
        self._popen.kill()
        self._popen.wait()

    def close(self) -> None:
        """Ask the engine to quit, and kill it if it does not; safe to call twice."""
        self._finalizer()


# ------------------------------------------------------------------ the thinker
M = TypeVar("M", bound=protocol.EngineMessage)


class EngineThinker(AbstractThinker):
    """A thinker whose moves come from an engine executable.

    Not used directly: `engine_class()` makes a subclass per declared engine.
    `setup()` starts the engine and sends it the match settings and the
    parameters; each `think()` sends the position and waits for the move,
    passing ``info`` lines on as thinking information and sending ``stop``
    when cancelled.
    """

    engine: ClassVar[EngineSpec]

    def __init__(self) -> None:
        if not hasattr(type(self), "engine"):
            raise EngineError("EngineThinker is made per engine: use engine_class()")
        self._process: _Process | None = None
        self._name = self.engine.name
        """The engine's own name once it said one, else its declared name."""

    def setup(self, params: str) -> None:
        """Start the engine, shake hands, and send it the match settings.

        Raises:
            EngineError: it cannot start, speaks another protocol version,
                refuses the settings, or does not answer in time.
        """
        process = self._process = _Process(self.engine)
        try:
            self._shake_hands(process, params)
        except EngineDied:
            process.close()
            raise EngineDied(f"{self._called} ended before it was set up: "
                             f"{process.ended}") from None
        except BaseException:
            process.close()  # now, not when the failed thinker is collected
            raise

    def _shake_hands(self, process: _Process, params: str) -> None:
        process.send(protocol.hello())
        hello = self._expect(protocol.Hello, f"`{protocol.hello()}`", HELLO_TIMEOUT)
        if hello.version != protocol.VERSION:
            raise EngineError(f"{self._called} speaks protocol version {hello.version}; "
                              f"this csl-game speaks {protocol.VERSION}")
        self._name = hello.name or self._name
        config = MatchConfig(self.rows, self.cols, self.win_sequence,
                             self.round_pieces_per_player, self.square_pieces_per_player,
                             self.time_limit_ms)
        process.send(protocol.setup(config, params))
        self._name = self._expect(protocol.Ready, "its settings (`setup`)",
                                  HANDSHAKE_TIMEOUT).name or self._name

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        """Send the position, and return the engine's answer (NO_MOVE once cancelled).

        Raises:
            EngineError: the engine died, reported an error, or broke the protocol.
        """
        started = time.perf_counter()
        process = self._running()
        self._drain(process)
        process.send(protocol.position((m.col, m.piece.shape) for m in board.history))
        spent_ms = int((time.perf_counter() - started) * 1000)
        left = ct.time_left()  # a game clock's remainder may be less than a move's limit
        limit = self.time_limit_ms if math.isinf(left) else min(self.time_limit_ms,
                                                                  int(left * 1000))
        process.send(protocol.go(limit - spent_ms))
        return self._answer(process, ct)

    def __str__(self) -> str:
        return self._name

    def close(self) -> None:
        """Ask the engine to quit (it is also asked when the thinker is dropped)."""
        if self._process is not None:
            self._process.close()

    # -------------------------------------------------------------- internals
    def _running(self) -> _Process:
        if self._process is None:
            raise EngineError(f"engine '{self.engine.name}' was not set up")
        return self._process

    def _message(self, line: str) -> protocol.EngineMessage:
        try:
            return protocol.parse_line(line)
        except protocol.EngineProtocolError as e:
            raise protocol.EngineProtocolError(f"engine '{self.engine.name}' {e}") from None

    @property
    def _called(self) -> str:
        """The engine as messages name it: its name and its command."""
        return f"engine '{self.engine.name}' (`{self.engine.command}`)"

    def _expect(self, kind: type[M], what: str, timeout: float) -> M:
        """The next message, which must be of `kind`; info lines are passed on."""
        process = self._running()
        deadline = time.perf_counter() + timeout
        while (left := deadline - time.perf_counter()) > 0:
            line = process.next_line(left)
            if line is None:
                continue
            message = self._message(line)
            if isinstance(message, kind):
                return message
            self._other(message, what, refusal=kind is protocol.Ready)
        raise EngineError(f"{self._called} did not answer {what} within {timeout:g} s")

    def _other(self, message: protocol.EngineMessage, what: str, refusal: bool = False) -> None:
        """Pass an info line on; any other message is wrong here (an ``error``
        answering the settings is a refusal of them: `EngineRefused`)."""
        if isinstance(message, protocol.Info):
            self.on_thinking_info(message.text)
            return
        if isinstance(message, protocol.Failed):
            error = EngineRefused if refusal else EngineError
            raise error(f"engine '{self.engine.name}' reported an error "
                        f"(waiting for {what}): {message.text}")
        raise protocol.EngineProtocolError(
            f"engine '{self.engine.name}' sent a '{_word(message)}' line while "
            f"csl-game waited for {what}")

    def _drain(self, process: _Process) -> None:
        """Pass on the info lines written since the last answer; nothing else may be there."""
        while (line := process.next_line(0)) is not None:
            message = self._message(line)
            if not isinstance(message, protocol.Info):
                raise protocol.EngineProtocolError(
                    f"engine '{self.engine.name}' sent '{protocol.shown(line)}' after its "
                    "answer, without being asked")
            self.on_thinking_info(message.text)

    def _answer(self, process: _Process, ct: CancellationToken) -> FutureMove:
        stopped_at: float | None = None
        while True:
            if stopped_at is None and ct.is_cancellation_requested:
                process.send(protocol.STOP)
                stopped_at = time.perf_counter()
            elif stopped_at is not None and time.perf_counter() - stopped_at > STOP_GRACE:
                process.kill()  # ignored stop: nobody else ends it when running in-process
                return FutureMove.NO_MOVE
            line = process.next_line(_POLL)
            if line is None:
                continue
            message = self._message(line)
            if isinstance(message, protocol.Answer):
                return FutureMove.NO_MOVE if stopped_at is not None else message.move
            self._other(message, "a move")


def _word(message: protocol.EngineMessage) -> str:
    words = {protocol.Hello: "csl", protocol.Ready: "ready", protocol.Answer: "move"}
    return words.get(type(message), type(message).__name__.lower())
