"""Answers: what think() returned, described as plain data where it ran."""

from __future__ import annotations

import pickle
from enum import IntEnum

import pytest

from csl_game import Board, CancellationToken, FutureMove, MatchConfig, PShape
from csl_game.engine.runners.answer import (
    MoveAnswer,
    Opaque,
    OtherAnswer,
    ask,
    describe,
    exception_detail,
    plain_text,
    value_text,
)
from csl_game.thinker.api import AbstractThinker

pytestmark = pytest.mark.unit


class Trap:
    """A thinker's object: asking it anything fails the test."""

    def __repr__(self) -> str:
        raise AssertionError("repr() was called")

    def __eq__(self, other: object) -> bool:
        raise AssertionError("== was called")

    __hash__ = object.__hash__

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # isinstance() would ask this
        raise AssertionError("__class__ was asked")


class Column(IntEnum):
    MIDDLE = 3


class Lying(FutureMove):
    __slots__ = ()

    @property
    def column(self) -> int:
        raise AssertionError("the column property was asked")


DESCRIBED = [
    (FutureMove(3, PShape.SQUARE), MoveAnswer(3, 1)),
    (FutureMove.NO_MOVE, MoveAnswer(-1, 0)),
    (FutureMove(Column.MIDDLE, 0), MoveAnswer(3, 0)),  # type: ignore[arg-type]
    (FutureMove(1.5, True), MoveAnswer(1.5, True)),  # type: ignore[arg-type]
    (FutureMove("3", None), MoveAnswer("3", None)),  # type: ignore[arg-type]
    (FutureMove(10 ** 30, 0), MoveAnswer(10 ** 30, 0)),  # type: ignore[arg-type]
    (FutureMove(10 ** 5000, PShape.ROUND), MoveAnswer(Opaque("a 5001-digit int"), 0)),
    (FutureMove(-10 ** 60, PShape.ROUND), MoveAnswer(Opaque("a negative 61-digit int"), 0)),
    (FutureMove("x" * 41, 0), MoveAnswer(Opaque("a 41-character str"), 0)),  # type: ignore[arg-type]
    (FutureMove([3], 0), MoveAnswer(Opaque("a list"), 0)),  # type: ignore[arg-type]
    (FutureMove(Trap(), 0), MoveAnswer(Opaque("a Trap"), 0)),  # type: ignore[arg-type]
    (Lying(4, PShape.ROUND), MoveAnswer(4, 0)),
    (None, OtherAnswer("None")),
    ((3, PShape.ROUND), OtherAnswer("(3, PShape.ROUND)")),
    ((3,), OtherAnswer("(3,)")),
    ((1, 2, 3, 4, 5), OtherAnswer("a tuple of 5 items")),
    ((Column.MIDDLE, 0), OtherAnswer("(3 (as a Column), 0)")),
    (Trap(), OtherAnswer("a Trap")),
    ("3", OtherAnswer("'3'")),
    (object(), OtherAnswer("an object")),
]


# Ids by number: pytest's own ids would ask a Trap what it is.
@pytest.mark.parametrize("returned, answer", DESCRIBED, ids=map(str, range(len(DESCRIBED))))
def test_describe(returned: object, answer: object) -> None:
    described = describe(returned)
    assert described == answer
    if isinstance(described, MoveAnswer) and isinstance(described.column, int):
        assert type(described.column) in (int, bool)


def test_ints_in_a_move_answer_are_plain() -> None:
    answer = describe(FutureMove(Column.MIDDLE, PShape.SQUARE))
    assert isinstance(answer, MoveAnswer)
    assert type(answer.column) is int and type(answer.shape) is int


def test_enormous_ints_are_described_without_converting_them() -> None:
    assert value_text(1 << 400_000) == "an int of about 120412 digits"
    assert value_text(10 ** 4999) == "a 5000-digit int"
    assert value_text(10 ** 50 - 1) == "9" * 50


class Text(str):
    def __str__(self) -> str:
        raise AssertionError("str() was called")

    def __format__(self, spec: str) -> str:
        raise AssertionError("format() was called")


class Named:
    __qualname__ = Text("Named")


def test_texts_are_exact_strs() -> None:
    assert type(plain_text(Text("x"))) is str and plain_text(Text("x")) == "x"
    assert plain_text(Trap()) == "a Trap"
    assert value_text(Named()) == "a Named" and type(value_text(Named())) is str


def test_an_opaque_made_by_a_thinker_is_not_trusted() -> None:
    forged = Opaque(Trap())  # type: ignore[arg-type]
    answer = describe(FutureMove(forged, 0))  # type: ignore[arg-type]
    assert answer == MoveAnswer(Opaque("an Opaque"), 0)
    assert isinstance(answer, MoveAnswer) and isinstance(answer.column, Opaque)
    assert type(answer.column.text) is str


def test_answers_pickle_without_the_thinkers_classes() -> None:
    trapped = FutureMove(Trap(), Column.MIDDLE)  # type: ignore[arg-type]
    for returned in (trapped, Trap(), (Trap(), 1)):
        data = pickle.dumps(describe(returned))
        assert __name__.encode() not in data and b"Trap" not in data.replace(b"a Trap", b"")
        assert pickle.loads(data) == describe(returned)


class Raiser(AbstractThinker):
    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        raise KeyError("no such move")


class Hoarder(AbstractThinker):
    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        raise MemoryError


def test_ask_returns_what_think_raised_from_think_down() -> None:
    raised, elapsed = ask(Raiser(), MatchConfig().new_board(), CancellationToken())
    assert isinstance(raised, KeyError) and elapsed >= 0
    detail = exception_detail(raised)
    assert detail.startswith("KeyError: 'no such move'\nTraceback (most recent call last):")
    frames = [line for line in detail.splitlines() if line.lstrip().startswith("File ")]
    assert len(frames) == 1 and "in think" in frames[0]


def test_ask_frees_room_first_on_memory_error() -> None:
    freed: list[bool] = []
    raised, _ = ask(Hoarder(), MatchConfig().new_board(), CancellationToken(),
                    on_memory_error=lambda: freed.append(True))
    assert isinstance(raised, MemoryError) and freed == [True]


def test_exception_detail_survives_a_failing_str() -> None:
    class Nasty(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no text")

    try:
        raise Nasty
    except Nasty as e:
        detail = exception_detail(e)
    assert "Nasty" in detail.splitlines()[0] and "Traceback" in detail
