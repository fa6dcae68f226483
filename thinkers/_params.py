"""Parameter strings of the search thinkers: ``key=value`` integers."""

from __future__ import annotations

import gc
import time
from abc import abstractmethod

from csl_game import AbstractThinker, Board, CancellationToken, FutureMove, PShape

__all__ = ["parse_params", "thinker_name", "time_budget", "Value", "SearchThinker"]


Value = int | float | str


def parse_params(params: str, defaults: dict[str, Value]) -> tuple[dict[str, Value], list[str]]:
    """Parse ``key=value`` tokens separated by spaces or commas; a bare value
    is the first key's. Each value takes the type of its default.

    Returns the values and the keys that were given, in the order given.

    Raises:
        ValueError: an unknown key, or a value of the wrong type or below 0.
    """
    values = dict(defaults)
    given: list[str] = []
    for token in params.replace(",", " ").split():
        key, sep, text = token.partition("=")
        if not sep:
            key, text = next(iter(defaults)), token
        key = key.strip().lower()
        if key not in defaults:
            raise ValueError(f"unknown parameter '{key}' (known: {', '.join(defaults)})")
        values[key] = _convert(key, text, defaults[key])
        if key not in given:
            given.append(key)
    return values, given


def _convert(key: str, text: str, default: Value) -> Value:
    if isinstance(default, str):
        return text.lower()
    kind = int if isinstance(default, int) else float
    try:
        value: int | float = kind(text)
    except ValueError:
        raise ValueError(f"parameter {key} must be a {'whole ' if kind is int else ''}"
                         f"number, got {text!r}") from None
    if value < 0:
        raise ValueError(f"parameter {key} must be at least 0, got {text}")
    return value


def thinker_name(base: str, values: dict[str, Value], given: list[str],
                 labels: dict[str, str]) -> str:
    """The base name plus a label and value for each parameter that was given."""
    return base + "".join(f"{labels[k]}{values[k]}" for k in given)


def time_budget(limit_ms: int, margin_ms: int) -> float:
    """Seconds a thinker may search for one move.

    `margin_ms` is kept free before the limit; a negative value means the
    default, 30 % of the limit and at least 30 ms, which covers the process
    transport, a busy machine's scheduling delays and the last node.
    """
    limit = limit_ms / 1000
    margin = margin_ms / 1000 if margin_ms >= 0 else max(0.03, 0.3 * limit)
    return max(limit - margin, 0.2 * limit)


class SearchThinker(AbstractThinker):
    """Shared plumbing of the search thinkers: the name, and think() with the
    garbage collector paused (a collection could push a move over the limit).

    Subclasses set `_name` in setup() and implement `_choose`, which returns
    a move encoded as ``column << 1 | shape``.
    """

    _name = ""

    def __str__(self) -> str:
        return self._name or super().__str__()

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        start = time.perf_counter()
        gc_was_on = gc.isenabled()
        gc.disable()
        try:
            move = self._choose(board, ct, start)
        finally:
            if gc_was_on:
                gc.enable()
        if ct.is_cancellation_requested:
            return FutureMove.NO_MOVE
        return FutureMove(move >> 1, PShape(move & 1))

    @abstractmethod
    def _choose(self, board: Board, ct: CancellationToken, start: float) -> int:
        """The chosen move as ``column << 1 | shape``."""
