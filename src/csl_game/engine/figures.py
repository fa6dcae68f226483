"""The figures a thinker reports while it thinks: ``key=number`` words of its
thinking-info lines (``depth=7 nodes=12345 nps=150000 score=55``).

The convention (docs/thinkers.md, "Thinking information"): `score` is the
thinker's evaluation from the point of view of the player to move, positive
when it is ahead; `depth`, `nodes`, `nps` and `playouts` are what their names
say. Any other key is kept as it is. The match keeps, for each move, the last
value of each key its thinker reported during that turn.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["parse_figures", "turn_figures", "Figures"]

Figures = tuple[tuple[str, float], ...]
"""A move's figures, in the order first reported (hashable, for frozen records)."""

_WORD = re.compile(r"(\w+)=(-?\d+(?:\.\d+)?)")


def parse_figures(text: str) -> dict[str, float]:
    """The ``key=number`` words of one thinking-info line (keys lower-cased)."""
    return {k.lower(): float(v) for k, v in _WORD.findall(text)}


def turn_figures(lines: Iterable[str]) -> Figures:
    """The figures of a turn: each key's last value over its lines."""
    merged: dict[str, float] = {}
    for line in lines:
        merged.update(parse_figures(line))
    return tuple(merged.items())
