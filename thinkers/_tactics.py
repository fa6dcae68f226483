"""Search tables and tactics of the search thinkers (negamax, mcts).

The position itself, its moves and its winner test are the model's fast core
(`csl_game.model.core.FastBoard`, whose bit layout this module relies on).
Here is only what a search adds on top: threat masks (empty cells that would
complete a run), the tactics read from them, cell weights and Zobrist keys.

Moves are coded as ``col << 1 | shape`` and piece kinds as
``2 * colour + shape``, as in the core. A player's own shape has the same
number as its colour: round counts for White, square for Red.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from csl_game.model.core import FastBoard, Geometry

__all__ = ["Tables", "Tactics", "tables_for", "tactics", "win_cells", "winning_shape",
           "column_of", "zobrist_hash", "popcount"]

popcount = int.bit_count


class Tables:
    """Threat masks, cell weights and Zobrist keys of one geometry; built once."""

    def __init__(self, geo: Geometry) -> None:
        rows, cols, n, h = geo.rows, geo.cols, geo.win_sequence, geo.height
        self.geo = geo
        vertical = rows >= n
        lateral = [h] if cols >= n else []
        if rows >= n and cols >= n:
            lateral += [h + 1, h - 1]
        self.even_rows = sum(1 << (c * h + r) for c in range(cols) for r in range(0, rows, 2))
        """Cells of rows 0, 2, 4, ..."""
        self.odd_rows = geo.full & ~self.even_rows
        """Cells of rows 1, 3, 5, ..."""
        self.weights = _window_weights(geo)
        """How many n-cell windows pass through each cell (by bit index)."""
        rng = random.Random(0x5EED)
        self.zobrist = tuple(tuple(rng.getrandbits(64) for _ in range(cols * h))
                             for _ in range(4))
        """zobrist[kind][bit index]: the hash key of a piece of that kind there."""
        self._compile(vertical, tuple(lateral))

    def _compile(self, vertical: bool, lateral: tuple[int, ...]) -> None:
        """Build `threats` and `threat_sets` as straight-line code for this size.

        The threat masks are computed at every search node and every playout
        step; unrolled shifts for this win length and these directions run
        about twice as fast as loops over them.
        """
        geo = self.geo
        body = _threat_lines(geo.win_sequence, vertical, lateral)
        lines = ["def threats(b):", *body, "    return t & FULL",
                 "def threat_sets(rnd, sq, w, r):",
                 "    empty = FULL & ~(w | r)", "    b = rnd"]
        for i, source in enumerate(("sq", "w", "r", "")):
            lines += [*body, f"    t{i} = t & empty"]
            lines.append(f"    b = {source}" if source else "    return t0, t1, t2, t3")
        scope: dict[str, object] = {"FULL": geo.full}
        exec(compile("\n".join(lines), f"<threats {geo.rows}x{geo.cols}>", "exec"), scope)
        self.threats: Callable[[int], int] = scope["threats"]  # type: ignore[assignment]
        """threats(cells): every cell (empty or not) that would complete a run of `cells`."""
        self.threat_sets: Callable[[int, int, int, int], tuple[int, int, int, int]] = \
            scope["threat_sets"]  # type: ignore[assignment]
        """threat_sets(round, square, white, red): the empty cells completing
        a round, square, white, red run."""


def _window_weights(geo: Geometry) -> list[int]:
    w = [0] * (geo.cols * geo.height)
    n = geo.win_sequence
    for dr, dc in ((1, 0), (0, 1), (1, 1), (-1, 1)):
        for r in range(geo.rows):
            for c in range(geo.cols):
                end_r, end_c = r + dr * (n - 1), c + dc * (n - 1)
                if 0 <= end_r < geo.rows and 0 <= end_c < geo.cols:
                    for k in range(n):
                        w[geo.index(r + dr * k, c + dc * k)] += 1
    return w


def _threat_lines(n: int, vertical: bool, lateral: tuple[int, ...]) -> list[str]:
    """Python lines (indented for a function body) that set t to the threats of b."""
    if n == 1:
        return ["    t = FULL"]
    terms = []
    if vertical:
        terms.append(" & ".join(f"(b << {k})" for k in range(1, n)))
    lines = []
    for j, d in enumerate(lateral):
        for side, op in (("l", "<<"), ("r", ">>")):
            lines.append(f"    {side}{j}_1 = b {op} {d}")
            for k in range(2, n):
                lines.append(f"    {side}{j}_{k} = {side}{j}_{k - 1} & (b {op} {k * d})")
        terms += [f"l{j}_{n - 1}", f"r{j}_{n - 1}"]
        terms += [f"l{j}_{a} & r{j}_{n - 1 - a}" for a in range(1, n - 1)]
    return lines + ["    t = " + (" | ".join(terms) if terms else "0")]


_TABLES: dict[Geometry, Tables] = {}


def tables_for(geo: Geometry) -> Tables:
    """The (cached) tables of a geometry."""
    tables = _TABLES.get(geo)
    if tables is None:
        if len(_TABLES) > 16:
            _TABLES.clear()
        tables = _TABLES[geo] = Tables(geo)
    return tables


@dataclass
class Tactics:
    """What the player to move can win or must fear this turn (cell masks)."""

    playable: int
    """The lowest empty cell of every column that is not full."""
    wins: int
    """Playable cells where the mover wins at once (with some shape it has)."""
    loses_off: int
    """Cells where the mover's off-shape piece completes the opponent's shape run."""
    opp_hard: int
    """Cells where the opponent wins next turn whatever the mover does elsewhere."""
    shape_threats: tuple[int, int]
    """Empty cells completing a round run, a square run."""
    colour_threats: tuple[int, int]
    """Empty cells completing a white run, a red run."""


def tactics(pos: FastBoard, tables: Tables) -> Tactics:
    """Immediate wins, self-inflicted losses and the opponent's threats."""
    geo = pos.geometry
    w, r = pos.colors
    s0, s1, c0, c1 = tables.threat_sets(pos.shapes[0], pos.shapes[1], w, r)
    shape_t, colour_t = (s0, s1), (c0, c1)
    playable = ((w | r) + geo.bottom) & geo.full
    c = pos.turn
    wins, opp_hard = win_cells(pos.counts, c, shape_t, colour_t)
    return Tactics(playable, wins & playable, shape_t[1 - c], opp_hard, shape_t, colour_t)


def win_cells(counts: list[int], c: int, shape_t: tuple[int, int],
              colour_t: tuple[int, int]) -> tuple[int, int]:
    """Cells where player c wins with a piece it has, and where the opponent
    surely wins (with its own shape, which c cannot spoil).

    `counts` are the pieces left by kind; `shape_t` and `colour_t` the
    threat cells of each shape and colour.
    """
    o = 1 - c
    wins = shape_t[c] | colour_t[c] if counts[3 * c] else 0
    if counts[2 * c + o]:
        wins |= colour_t[c] & ~shape_t[o]
    opp_hard = shape_t[o] | colour_t[o] if counts[3 * o] else 0
    return wins, opp_hard


def winning_shape(pos: FastBoard) -> int:
    """The shape to win with on a cell of `Tactics.wins`: the own shape when
    the mover has one (it wins wherever any shape does), else the other."""
    c = pos.turn
    return c if pos.counts[3 * c] else 1 - c


def column_of(geo: Geometry, cell_bit: int) -> int:
    """The column of a single-bit cell mask."""
    return (cell_bit.bit_length() - 1) // geo.height


def zobrist_hash(pos: FastBoard, tables: Tables) -> int:
    """The Zobrist hash of a position: the keys of its pieces, xored."""
    key = 0
    for kind in range(4):
        cells = pos.colors[kind >> 1] & pos.shapes[kind & 1]
        keys = tables.zobrist[kind]
        while cells:
            low = cells & -cells
            key ^= keys[low.bit_length() - 1]
            cells ^= low
    return key
