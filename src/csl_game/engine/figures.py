"""The figures a thinker reports while it thinks: ``key=number`` words of its
thinking-info lines (``depth=7 nodes=12345 nps=150000 score=55``).

The convention (docs/thinkers.md, "Thinking information"): `score` is the
thinker's evaluation from the point of view of the player to move, positive
when it is ahead; `mate` a result the thinker has proven, in plies (positive:
the player to move wins, negative: it loses); `depth`, `nodes`, `nps` and
`playouts` are what their names say. Any other key is kept as it is. The
match keeps, for each move, the last value of each key its thinker reported
during that turn. One more word is not a number: ``line=3r,4s,3s``, the line
of play the thinker expects, its first move first (`parse_line`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["parse_figures", "parse_line", "turn_figures", "Figures", "LINE_MOVES"]

Figures = tuple[tuple[str, float], ...]
"""A move's figures, in the order first reported (hashable, for frozen records)."""

_WORD = re.compile(r"(\w+)=(-?\d+(?:\.\d+)?)")
_LINE = re.compile(r"(?:^|\s)line=(\d{1,3}[rs](?:,\d{1,3}[rs])*)(?=\s|$)")
LINE_MOVES = 32
"""The most moves of a reported line kept."""


def parse_figures(text: str) -> dict[str, float]:
    """The ``key=number`` words of one thinking-info line (keys lower-cased)."""
    return {k.lower(): float(v) for k, v in _WORD.findall(_LINE.sub(" ", text))}


def parse_line(text: str) -> tuple[str, ...]:
    """The moves of the last ``line=3r,4s`` word of a thinking-info line (none: ())."""
    found = _LINE.findall(text)
    return tuple(found[-1].split(",")[:LINE_MOVES]) if found else ()


def turn_figures(lines: Iterable[str]) -> Figures:
    """The figures of a turn: each key's last value over its lines."""
    merged: dict[str, float] = {}
    for line in lines:
        merged.update(parse_figures(line))
    return tuple(merged.items())
