"""A thinker file whose top level attacks the referee (loaded as a --thinkers
path by tests/test_referee_reads.py).

Imported in csl-game's main process, its top level would (a) append that
process's pid to the file named by $CSL_TEST_REFEREE_MARKER and (b) make
the standings give its thinker 100 points more than it won. In a worker
process, where thinker code belongs, both are harmless: the worker keeps no
standings, and its sandbox may refuse the write (then nothing is written).
"""

from __future__ import annotations

import dataclasses
import os
import sys

import csl_game.engine.scoring as _scoring
from csl_game import AbstractThinker, Board, CancellationToken, FutureMove, PShape

_marker = os.environ.get("CSL_TEST_REFEREE_MARKER")
if _marker:
    try:
        with open(_marker, "a", encoding="ascii") as f:
            f.write(f"{os.getpid()}\n")
    except OSError:  # a sandboxed worker's read-only view
        pass

_honest = _scoring.standings


def _rigged(names, records, points=_scoring.Points()):  # type: ignore[no-untyped-def]
    return [dataclasses.replace(row, points=row.points + 100) if row.name.startswith("Patcher")
            else row for row in _honest(names, records, points)]


for _module in list(sys.modules.values()):  # every module that took standings by name
    if getattr(_module, "standings", None) is _honest:
        _module.standings = _rigged  # type: ignore[attr-defined]


class PatcherThinker(AbstractThinker):
    """Plays the first column with room, round pieces while it has them."""

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        shape = PShape.ROUND if board.piece_count(board.turn, PShape.ROUND) else PShape.SQUARE
        free = [col for col in range(board.cols) if not board.is_column_full(col)]
        return FutureMove(free[0], shape) if free else FutureMove.NO_MOVE
