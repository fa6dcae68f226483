"""What a thinker's think() came to, described as plain data where it ran.

`ask()` runs think() and describes what it returned as an `Answer`: a
`MoveAnswer` holding the column and shape as given (when they are plain
values) or an `Opaque` description of them, or an `OtherAnswer` describing
whatever was returned instead of a `FutureMove`. An answer is small,
picklable, and holds no object of the thinker's, so a worker can send it
and the parent can judge it without running any thinker code. Both runners
describe answers here, so the judge sees the same answer on every runner.
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple, cast

from csl_game.model.board import Board, PShape
from csl_game.thinker.api import AbstractThinker, CancellationToken, FutureMove
from csl_game.thinker.engine_thinker import EngineDied

__all__ = ["Opaque", "Plain", "MoveAnswer", "OtherAnswer", "Answer", "describe",
           "value_text", "plain_text", "ask", "exception_detail"]

_MAX_STR = 40  # characters of a str kept as given
_MAX_INT = 10 ** 50  # ints beyond this are described by their length
_EXACT_DIGITS_BITS = 100_000  # beyond this many bits, digits are estimated
_LOG10_2 = 0.30102999566398120
_MAX_ITEMS = 4  # items of a tuple shown one by one
_MAX_NAME = 60


@dataclass(frozen=True)
class Opaque:
    """A value that was not a plain value (or too big to carry): its description."""

    text: str
    """What it was, e.g. 'a list' or 'a 5001-digit int'."""

    def __str__(self) -> str:
        return self.text


Plain = int | float | str | bool | None | Opaque
"""A column or shape as an answer carries it."""


class MoveAnswer(NamedTuple):
    """think() returned a FutureMove holding this column and shape.

    ints (an int subclass such as PShape included) are plain ints; floats,
    short strs, bools and None are kept as given; anything else is `Opaque`.
    """

    column: Plain
    shape: Plain


@dataclass(frozen=True)
class OtherAnswer:
    """think() returned something other than a FutureMove."""

    returned: str
    """What it returned, e.g. 'None' or '(3, 0)'."""


Answer = MoveAnswer | OtherAnswer


def _type_name(value: object) -> str:
    # The type's own slot, so a metaclass runs nothing; it may hold a str subclass.
    name = str.__str__(type.__dict__["__qualname__"].__get__(type(value)))
    return name[:_MAX_NAME]


def _a(noun: str) -> str:
    return f"an {noun}" if noun[:1].lower() in tuple("aeiou") else f"a {noun}"


def _digits(n: int) -> tuple[int, bool]:
    """How many decimal digits abs(n) has, and whether that is exact."""
    n = abs(n)
    estimate = int((n.bit_length() - 1) * _LOG10_2) + 1
    if n.bit_length() > _EXACT_DIGITS_BITS:
        return estimate, False
    while n >= 10 ** estimate:
        estimate += 1
    while estimate > 1 and n < 10 ** (estimate - 1):
        estimate -= 1
    return estimate, True


def _int_text(n: int) -> str:
    if -_MAX_INT < n < _MAX_INT:
        return str(n)
    digits, exact = _digits(n)
    sign = "negative " if n < 0 else ""
    if exact:
        return f"a {sign}{digits}-digit int"
    return f"{_a(sign + 'int')} of about {digits} digits"


def value_text(value: object) -> str:
    """A short description of `value` that runs none of its own code.

    Plain values read as Python writes them ('1.5', "'3'", 'None'); big ints
    by their length; other objects by their type ('a list').
    """
    # Exact type tests, not isinstance(): nothing of the value's class is asked.
    kind = type(value)
    if value is None or kind is bool or kind is float:
        return repr(value)
    if kind is int:
        return _int_text(cast(int, value))
    if kind is PShape:
        return f"PShape.{cast(PShape, value).name}"
    if kind is Opaque:  # a thinker could make one: its text is checked too
        text = cast(Opaque, value).text
        return text if type(text) is str else "an Opaque"
    if kind is str:
        text = cast(str, value)
        return repr(text) if len(text) <= _MAX_STR else f"a {len(text)}-character str"
    if issubclass(kind, int):
        return f"{_int_text(int.__index__(cast(int, value)))} (as {_a(_type_name(value))})"
    if kind is tuple:
        items = cast(tuple[object, ...], value)
        if len(items) > _MAX_ITEMS:
            return f"a tuple of {len(items)} items"
        inner = ", ".join(value_text(item) for item in items)
        return f"({inner},)" if len(items) == 1 else f"({inner})"
    return _a(_type_name(value))


def plain_text(value: object) -> str:
    """`value` as an exact str, running none of its code: a str (a subclass
    copied) as it reads, anything else as `value_text()` describes it."""
    if issubclass(type(value), str):
        return str.__str__(cast(str, value))
    return value_text(value)


def _plain(value: object) -> Plain:
    """`value` as an answer carries it."""
    kind = type(value)
    if value is None or kind is bool or kind is float:
        return cast(Plain, value)
    if issubclass(kind, int):  # bool was taken above
        number = int.__index__(cast(int, value))  # a plain int, even from a subclass
        return number if -_MAX_INT < number < _MAX_INT else Opaque(_int_text(number))
    if kind is str and len(cast(str, value)) <= _MAX_STR:
        return cast(str, value)
    return Opaque(value_text(value))


def describe(returned: object) -> Answer:
    """What think() returned, as plain data.

    A FutureMove (or a subclass) is read through the tuple it is, so a
    subclass's own properties are not asked.
    """
    if not issubclass(type(returned), FutureMove):  # not isinstance: no __class__ asked
        return OtherAnswer(value_text(returned))
    fields = cast(tuple[object, ...], returned)
    size = tuple.__len__(fields)
    if size != 2:
        return OtherAnswer(f"{_a(_type_name(returned))} holding {size} values")
    return MoveAnswer(_plain(tuple.__getitem__(fields, 0)),
                      _plain(tuple.__getitem__(fields, 1)))


def ask(thinker: AbstractThinker, board: Board, token: CancellationToken,
        on_memory_error: Callable[[], None] | None = None
        ) -> tuple[Answer | BaseException, float]:
    """Run think() and describe its answer; (answer or what it raised, seconds).

    Whatever think() raises is returned, with this function's own frame cut
    from its traceback, so every runner reports the same traceback.
    `on_memory_error` is called first thing on a MemoryError (to free a
    reserve before anything else is allocated).
    """
    start = time.perf_counter()
    try:
        returned = thinker.think(board, token)
        elapsed = time.perf_counter() - start
        return describe(returned), elapsed
    except BaseException as e:  # user code: the caller decides what each failure costs
        if on_memory_error is not None and issubclass(type(e), MemoryError):
            on_memory_error()
        tb = e.__traceback__
        trimmed = BaseException.with_traceback(e, tb.tb_next if tb is not None else None)
        return trimmed, time.perf_counter() - start


def crashed(exc: BaseException) -> bool:
    """Whether think() failed because the thinker's own process ended (an
    external engine that died): a crash, not an exception of its code."""
    return isinstance(exc, EngineDied)


def exception_detail(exc: BaseException) -> str:
    """'Type: message' and the traceback, as the runners report exceptions."""
    headline = "".join(traceback.format_exception_only(type(exc), exc)).rstrip()
    if exc.__traceback__ is None:  # raised by the call itself (a wrong signature): no frame
        if isinstance(exc, TypeError) and "think()" in str(exc):
            headline += "\n(a thinker's think is `def think(self, board, ct) -> FutureMove`)"
        return headline
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not _ours(f.filename)]
    if not frames:  # raised by csl-game's own code for the thinker (an engine's bad line)
        return headline
    text = "".join(["Traceback (most recent call last):\n",
                    *traceback.format_list(frames),
                    *traceback.format_exception_only(type(exc), exc)])
    return f"{headline}\n{text.rstrip()}"


_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _ours(filename: str) -> bool:
    """Whether a traceback frame is csl-game's own code (not a thinker's, built-in or not)."""
    path = os.path.abspath(filename)
    return path.startswith(_PACKAGE + os.sep) and \
        not path.startswith(os.path.join(_PACKAGE, "thinkers") + os.sep)
