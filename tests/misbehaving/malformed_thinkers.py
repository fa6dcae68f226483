"""A thinker whose think() answers with a malformed move, for the runner-parity tests.

Loaded as a --thinkers path. Its params name the answer (a key of ANSWERS);
unknown params make setup() fail.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from csl_game import AbstractThinker, Board, CancellationToken, FutureMove, PShape


class Weird:
    """An object of the thinker's own whose every method misbehaves."""

    def __repr__(self) -> str:
        raise RuntimeError("repr of a Weird")

    def __str__(self) -> str:
        while True:
            pass

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("== of a Weird")

    __hash__ = object.__hash__


class SneakyMove(FutureMove):
    """A FutureMove subclass whose properties and repr disagree with the tuple it is."""

    __slots__ = ()

    @property
    def column(self) -> int:
        return 0

    def __repr__(self) -> str:
        raise RuntimeError("repr of a SneakyMove")

    def __iter__(self) -> Iterator[int]:
        raise RuntimeError("iterating a SneakyMove")


def _raise() -> FutureMove:
    raise ValueError("malformed on purpose")


ANSWERS: dict[str, Callable[[], object]] = {
    "float-col": lambda: FutureMove(1.5, PShape.ROUND),  # type: ignore[arg-type]
    "float-whole-col": lambda: FutureMove(2.0, PShape.ROUND),  # type: ignore[arg-type]
    "bool-col": lambda: FutureMove(True, PShape.ROUND),
    "bool-shape": lambda: FutureMove(3, True),  # type: ignore[arg-type]
    "str-col": lambda: FutureMove("3", PShape.ROUND),  # type: ignore[arg-type]
    "none": lambda: None,
    "tuple": lambda: (3, PShape.ROUND),
    "weird": Weird,
    "weird-col": lambda: FutureMove(Weird(), PShape.ROUND),  # type: ignore[arg-type]
    "huge-col": lambda: FutureMove(10 ** 30, PShape.ROUND),
    "huger-col": lambda: FutureMove(10 ** 5000, PShape.ROUND),
    "negative-col": lambda: FutureMove(-3, PShape.ROUND),
    "no-move": lambda: FutureMove.NO_MOVE,
    "shape-2": lambda: FutureMove(3, 2),  # type: ignore[arg-type]
    "shape-minus-1": lambda: FutureMove(3, -1),  # type: ignore[arg-type]
    "shape-float": lambda: FutureMove(3, 1.0),  # type: ignore[arg-type]
    "shape-str": lambda: FutureMove(3, "round"),  # type: ignore[arg-type]
    "subclass": lambda: SneakyMove(99, PShape.ROUND),
    "subclass-legal": lambda: SneakyMove(5, PShape.SQUARE),
    "col-0-square": lambda: FutureMove(0, PShape.SQUARE),
    "col-1-round": lambda: FutureMove(1, PShape.ROUND),
    "raise": _raise,
}


class MalformedThinker(AbstractThinker):
    """Answers every think() with ANSWERS[params]()."""

    def setup(self, params: str) -> None:
        if params not in ANSWERS:
            raise ValueError(f"no malformed answer named {params!r}")
        self.answer = ANSWERS[params]

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        return self.answer()  # type: ignore[return-value]


class SneakyStr(str):
    """A str of the thinker's own class: the parent must never unpickle one."""

    def __str__(self) -> str:
        return self


class SneakyNameThinker(AbstractThinker):
    """Names itself and reports its thinking with SneakyStr texts, then gives up."""

    def __str__(self) -> str:
        return SneakyStr("sneaky name")

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        self.on_thinking_info(SneakyStr("sneaky info"))
        return FutureMove.NO_MOVE
