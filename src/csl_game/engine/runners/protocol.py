"""The messages between a `ProcessRunner` and its worker process.

The parent and the worker talk over two one-way pipes, one frozen dataclass
per kind of message. Everything the worker sends is plain data (strs,
numbers, answers described by `csl_game.engine.runners.answer`), so the
parent never unpickles an object of the thinker's.

parent -> worker: `Think`, `Cancel`, `Reset`, `Quit`.
worker -> parent: `Ready` or `SetupFailed` (after making the thinker),
`Info` and `Output` (any time), and per think request one `Reply`:
`Answered`, `Raised` or `OutOfMemory`.

On the pipe a message travels as `encode()` makes it: a tuple of its kind's
number and its fields. Pickle writes a class by name and looks it up again
on loading, some 7 µs per class per message; a tuple of builtins costs
nothing of the kind, and a fast move's round trip stays as fast as it was.

The parent's requests travel pickled (the worker trusts its parent). The
worker's messages travel as JSON (`to_bytes`), because the worker runs the
thinker's code, which can write anything on that pipe: `from_bytes` builds
only the worker's own kinds of message from plain values, checking the type
of every field, so no bytes from a worker make the parent run any code, and
the parent reads the pipe itself, framed and bounded
(`csl_game.engine.runners.frames`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import cast

from csl_game.engine.runners.answer import Answer, MoveAnswer, Opaque, OtherAnswer, Plain
from csl_game.errors import WorkerProtocolError
from csl_game.model.board import Board
from csl_game.thinker.api import MatchConfig

__all__ = ["WorkerSpec", "Message", "ToWorker", "Think", "Cancel", "Reset", "Quit",
           "FromWorker", "Ready", "SetupFailed", "Info", "Output",
           "Reply", "Answered", "Raised", "OutOfMemory", "encode", "decode", "to_bytes",
           "from_bytes"]


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
    """Memory cap of the worker and the processes it starts, in MB; 0 or less for none."""
    owner: int = 0
    """Process id of the parent: the worker marks its environment with it, so
    that processes its thinker starts can be found even when they escape its tree."""
    sandbox: bool = False
    """Whether the worker makes its sandbox (`csl_game.sandbox`)."""
    network: bool = False
    """Whether the sandbox keeps the machine's network (its player asked for it)."""

    @property
    def fqn(self) -> str:
        """The class's fully qualified name."""
        return f"{self.module}.{self.qualname}"


# ------------------------------------------------------------ parent -> worker
@dataclass(frozen=True)
class ToWorker:
    """Base of the parent's requests."""


@dataclass(frozen=True)
class Think(ToWorker):
    """Think about `board` (it pickles as settings and moves), within
    `time_limit_ms` (0: the match's limit per move)."""

    job_id: int
    board: Board
    time_limit_ms: int = 0


@dataclass(frozen=True)
class Cancel(ToWorker):
    """Cancel the token of request `job_id`, if it is still running."""

    job_id: int


@dataclass(frozen=True)
class Reset(ToWorker):
    """Make a fresh thinker from `spec` (the worker's next match)."""

    spec: WorkerSpec


@dataclass(frozen=True)
class Quit(ToWorker):
    """End the worker."""


# ------------------------------------------------------------ worker -> parent
@dataclass(frozen=True)
class FromWorker:
    """Base of the worker's messages."""


@dataclass(frozen=True)
class Ready(FromWorker):
    """The thinker is set up."""

    name: str
    """The thinker's display name as the worker sees it (its str())."""
    threads: int = 0
    """Threads the worker ran before making the thinker: more after a move
    means the thinker left threads running."""


@dataclass(frozen=True)
class SetupFailed(FromWorker):
    """The thinker could not be loaded or set up; the worker exits."""

    text: str
    refused: bool = False
    """Its constructor or setup() raised an Exception: the thinker refuses its
    parameters (bad input), rather than misbehaving."""
    error: str = ""
    """When refused: the class name of the exception it raised."""
    reason: str = ""
    """When refused: that exception's message, in the thinker's own words."""
    where: str = ""
    """When refused: where the thinker's code raised it ('FILE, line N, in FUNCTION: CODE')."""


@dataclass(frozen=True)
class Info(FromWorker):
    """The thinker called on_thinking_info()."""

    text: str


@dataclass(frozen=True)
class Output(FromWorker):
    """Lines written to stdout or stderr (file descriptors 1 and 2)."""

    text: str


@dataclass(frozen=True)
class Reply(FromWorker):
    """Base of the one answer to a `Think` request."""

    job_id: int
    elapsed: float
    """Seconds from think()'s start to this reply's sending (think() itself,
    then forwarding what it wrote)."""


@dataclass(frozen=True)
class Answered(Reply):
    """think() returned; what it returned, described in the worker."""

    answer: Answer


@dataclass(frozen=True)
class Raised(Reply):
    """think() raised; the exception and its traceback as text."""

    detail: str
    crashed: bool = False
    """Whether the thinker's own process died under it (see `answer.crashed`)."""


@dataclass(frozen=True)
class OutOfMemory(Reply):
    """think() ran out of memory; the worker exits after this message."""

    detail: str


Message = ToWorker | FromWorker
Wire = tuple[object, ...]
"""A message as the pipe carries it."""

_KINDS: tuple[type[Message], ...] = (Think, Cancel, Reset, Quit, Ready, SetupFailed, Info,
                                     Output, Answered, Raised, OutOfMemory)
_CODES = {kind: code for code, kind in enumerate(_KINDS)}


def encode(message: Message) -> Wire:
    """`message` as the pipe carries it: its kind's number, then its fields."""
    # A frozen dataclass's __dict__ holds its fields in their declared order.
    fields = tuple(vars(message).values())
    if type(message) is Answered and type(message.answer) is MoveAnswer:
        fields = (message.job_id, message.elapsed, tuple(message.answer))
    return (_CODES[type(message)], *fields)


def decode(wire: Wire) -> Message:
    """The message `encode()` made `wire` from.

    Raises:
        ValueError: `wire` is not an encoded message.
    """
    try:
        code, *fields = wire
        kind = _KINDS[cast(int, code)]
        if kind is Answered and type(fields[2]) is tuple:
            fields[2] = MoveAnswer(*cast(tuple[Plain, Plain], fields[2]))
        message: Message = kind(*fields)
    except (TypeError, IndexError, ValueError) as e:
        raise ValueError(f"not a message of the worker protocol: {e}") from None
    return message


# ------------------------------------------------------------ the worker's bytes
_FROM_WORKER: tuple[type[FromWorker], ...] = (Ready, SetupFailed, Info, Output, Answered,
                                               Raised, OutOfMemory)
_FROM_CODES = {kind: code for code, kind in enumerate(_FROM_WORKER)}
_NUMBER = (int, float)


def _plain_json(value: Plain) -> object:
    return {"opaque": value.text} if type(value) is Opaque else value


def _answer_json(answer: Answer) -> object:
    if type(answer) is MoveAnswer:
        return [_plain_json(answer.column), _plain_json(answer.shape)]
    return {"returned": cast(OtherAnswer, answer).returned}


def to_bytes(message: FromWorker) -> bytes:
    """A worker's message as it travels to the parent: JSON of plain values."""
    code = _FROM_CODES[type(message)]
    if isinstance(message, Answered):
        fields: list[object] = [message.job_id, message.elapsed, _answer_json(message.answer)]
    else:
        fields = list(vars(message).values())
    return json.dumps([code, *fields], separators=(",", ":")).encode()


def _is(value: object, *kinds: type) -> bool:
    """Exact type test (bool is no int here, an int is a number)."""
    return type(value) in kinds


def _plain_from(value: object) -> Plain:
    if value is None or _is(value, bool, int, float, str):
        return cast(Plain, value)
    if _is(value, dict) and set(cast(dict[str, object], value)) == {"opaque"}:
        text = cast(dict[str, object], value)["opaque"]
        if _is(text, str):
            return Opaque(cast(str, text))
    raise WorkerProtocolError("a column or shape that is no plain value")


def _answer_from(value: object) -> Answer:
    if _is(value, list) and len(cast(list[object], value)) == 2:
        column, shape = cast(list[object], value)
        return MoveAnswer(_plain_from(column), _plain_from(shape))
    if _is(value, dict) and set(cast(dict[str, object], value)) == {"returned"}:
        returned = cast(dict[str, object], value)["returned"]
        if _is(returned, str):
            return OtherAnswer(cast(str, returned))
    raise WorkerProtocolError("an answer of no known form")


_FIELDS: dict[type[FromWorker], tuple[tuple[type, ...], ...]] = {
    Ready: ((str,), (int,)),
    SetupFailed: ((str,), (bool,), (str,), (str,), (str,)),
    Info: ((str,),),
    Output: ((str,),),
    Raised: ((int,), _NUMBER, (str,), (bool,)),
    OutOfMemory: ((int,), _NUMBER, (str,)),
}


def from_bytes(data: bytes) -> FromWorker:
    """The worker's message that `to_bytes()` made `data` from, built from
    plain values only (nothing runs while loading it).

    Raises:
        WorkerProtocolError: `data` is not a message a worker sends (not JSON, an
            unknown or parent-only kind, a field of the wrong type or count).
    """
    try:
        wire = json.loads(data)
    except (ValueError, RecursionError, UnicodeDecodeError) as e:
        raise WorkerProtocolError(f"not a message of the worker protocol: {type(e).__name__}") from None
    if not _is(wire, list) or not wire or not _is(wire[0], int):
        raise WorkerProtocolError("not a message of the worker protocol: no kind")
    code, *fields = cast(list[object], wire)
    if not 0 <= cast(int, code) < len(_FROM_WORKER):
        raise WorkerProtocolError(f"not a message a worker sends: kind {code}")
    kind = _FROM_WORKER[cast(int, code)]
    if kind is Answered:
        if len(fields) != 3 or not _is(fields[0], int) or not _is(fields[1], *_NUMBER):
            raise WorkerProtocolError("not a message of the worker protocol: a malformed answer")
        fields[2] = _answer_from(fields[2])
    else:
        types = _FIELDS[kind]
        if len(fields) != len(types) or not all(_is(f, *t) for f, t in zip(fields, types)):
            raise WorkerProtocolError(f"not a message of the worker protocol: a malformed {kind.__name__}")
    if issubclass(kind, Reply) and not (math.isfinite(cast(float, fields[1]))
                                        and cast(float, fields[1]) >= 0):
        raise WorkerProtocolError("not a message of the worker protocol: a time that is no duration")
    return kind(*fields)
