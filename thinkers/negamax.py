"""A strong alpha-beta thinker: iterative deepening within the time limit.

Parameters (``key=value``, separated by spaces or commas; a bare number is
the depth):

- ``depth=N``  deepest iteration (default: as deep as time allows);
- ``tt=N``     transposition-table entries kept (default 1,000,000; 0 = none);
- ``margin=MS`` time kept free before the limit (default: 30 % of the
  limit, at least 30 ms), for the process transport and the clock's jitter.

Named ``Negamax`` plus the parameters that were set, e.g. ``NegamaxD6``.
"""

from __future__ import annotations

import time

from csl_game import Board, CancellationToken

from ._alphabeta import MATE_BOUND, Searcher, SearchStopped, Weights
from ._params import SearchThinker, Value, parse_params, thinker_name, time_budget
from ._tactics import tables_for

_DEFAULTS: dict[str, Value] = {"depth": 0, "tt": 1_000_000, "margin": -1}
_LABELS = {"depth": "D", "tt": "TT", "margin": "M"}


class NegamaxThinker(SearchThinker):
    """Alpha-beta with iterative deepening, a transposition table and tactics."""

    weights: type[Weights] = Weights
    """Evaluation weights; a subclass may try others."""

    def setup(self, params: str) -> None:
        values, given = parse_params(params, _DEFAULTS)
        self._name = thinker_name(super().__str__(), values, given, _LABELS)
        self.max_depth = int(values["depth"]) or 255
        self.tt_size = int(values["tt"])
        self.margin_ms = int(values["margin"])
        self._searcher: Searcher | None = None

    def _choose(self, board: Board, ct: CancellationToken, start: float) -> int:
        pos = board.fast_board()
        tables = tables_for(pos.geometry)
        if self._searcher is None or self._searcher.tables is not tables:
            self._searcher = Searcher(tables, self.tt_size, self.weights)
        searcher = self._searcher
        budget = time_budget(self.time_limit_ms, self.margin_ms)
        searcher.start(pos, start + budget, lambda: ct.is_cancellation_requested)
        win, moves, losses = searcher.root_moves()
        if win is not None:
            self.on_thinking_info("win in one")
            return win
        if len(moves) <= 1:
            only = moves[0] if moves else losses[0][1]
            self.on_thinking_info("forced move")
            return only
        return self._deepen(searcher, moves, start, budget)

    def _deepen(self, searcher: Searcher, moves: list[int], start: float,
                budget: float) -> int:
        """Iterative deepening; the best move of the deepest finished iteration."""
        best_move, score, done = moves[0], 0, 0
        for depth in range(1, self.max_depth + 1):
            searcher.ext_limit = depth + 8
            try:
                score, best_move = searcher.search_root(depth, moves)
            except SearchStopped:
                break
            done = depth
            elapsed = time.perf_counter() - start
            if abs(score) > MATE_BOUND or elapsed * 3 > budget:
                break
            if done >= searcher.geo.max_moves - searcher.pos.ply:
                break
        elapsed = max(time.perf_counter() - start, 1e-6)
        self.on_thinking_info(f"depth={done} nodes={searcher.nodes} "
                              f"nps={searcher.nodes / elapsed:.0f} score={score} "
                              f"time={elapsed * 1000:.0f}ms")
        return best_move

