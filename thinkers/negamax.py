"""A strong alpha-beta thinker: iterative deepening within the time limit.

Parameters (``key=value``, separated by spaces or commas; a bare number is
the depth):

- ``depth=N``  deepest iteration (default: as deep as time allows);
- ``tt=N``     transposition-table entries kept (default 1,048,576; rounded
  down to a power of two; 0 = none);
- ``nodes=N``  search at most N nodes a move (default 0: no limit): the
  search stops at the same node on every machine, so the same game is
  played however busy the machine is, as long as the time limit is not
  reached first (`csl-game sprt|session|league --nodes N` sets it);
- ``margin=MS`` time kept free before the limit (default: adapts to the
  machine, see `TimeKeeper`), for the process transport and the scheduler.

Named ``Negamax`` plus the parameters that were set, e.g. ``NegamaxD6``.
"""

from __future__ import annotations

from csl_game import Board, CancellationToken

from ._alphabeta import MATE_BOUND, WIN, Searcher, SearchStopped, Weights
from ._params import SearchThinker, TimeKeeper, Value, parse_params, thinker_name
from ._tactics import tables_for

_DEFAULTS: dict[str, Value] = {"depth": 0, "tt": 1 << 20, "nodes": 0, "margin": -1}
_LABELS = {"depth": "D", "tt": "TT", "nodes": "N", "margin": "M"}
_LINE_PLIES = 12
"""The most moves of the expected line reported (``line=``)."""
_CHECK_SPACING = 0.0003
"""Seconds of search between two readings of the clock, about."""


class NegamaxThinker(SearchThinker):
    """Alpha-beta with iterative deepening, a transposition table and tactics."""

    weights: type[Weights] = Weights
    """Evaluation weights; a subclass may try others."""
    takes_nodes = True

    def setup(self, params: str) -> None:
        values, given = parse_params(params, _DEFAULTS)
        self._name = thinker_name(super().__str__(), values, given, _LABELS)
        self.max_depth = int(values["depth"]) or 255
        self.tt_size = int(values["tt"])
        self.max_nodes = int(values["nodes"]) or 1 << 62
        self.clock = TimeKeeper(self.time_limit_ms, int(values["margin"]), self.cpu_clock,
                                self.increment_ms if self.game_time_ms else None)
        self._searcher: Searcher | None = None
        # Its tables and transposition table are made here, where the setup's
        # time is, not on the first move: they cost more than a shallow search
        board = Board(self.rows, self.cols, self.win_sequence,
                      self.round_pieces_per_player, self.square_pieces_per_player)
        self._searcher = Searcher(tables_for(board.fast_board().geometry), self.tt_size,
                                  self.weights)

    def _choose(self, board: Board, ct: CancellationToken, start: float) -> int:
        pos = board.fast_board()
        tables = tables_for(pos.geometry)
        if self._searcher is None or self._searcher.tables is not tables:
            self._searcher = Searcher(tables, self.tt_size, self.weights)
        searcher = self._searcher
        deadline = start + self.clock.budget(ct.time_left(), pos.geometry.max_moves - pos.ply)
        searcher.start(pos, deadline, lambda: ct.is_cancellation_requested, self.now)
        searcher.max_nodes = self.max_nodes
        win, moves, losses = searcher.root_moves()
        if win is not None:
            self.on_thinking_info(f"win in one: depth=1 score={WIN - 1} mate=1 "
                                  f"line={_token(win)}")
            return win
        if len(moves) <= 1:
            only = moves[0] if moves else losses[0][1]
            self.on_thinking_info("forced move")
            return only
        move = self._deepen(searcher, moves, start)
        now = self.now()
        self.clock.record(max(searcher.max_gap, now - searcher.last_check),
                          max(0.0, now - deadline))
        return move

    def _deepen(self, searcher: Searcher, moves: list[int], start: float) -> int:
        """Iterative deepening until the deadline or a settled result; the
        best move of the deepest iteration, finished or not."""
        best_move, score, done, line = moves[0], 0, 0, [moves[0]]
        remaining = searcher.geo.max_moves - searcher.pos.ply
        for depth in range(1, min(self.max_depth, remaining) + 1):
            searcher.ext_limit = depth + 8
            try:
                score, best_move = searcher.search_root(depth, moves)
            except SearchStopped:
                # A move that beat the previous best at this depth is better.
                best_move = searcher.root_best if searcher.root_best is not None else best_move
                break
            done = depth
            line = searcher.principal_line(best_move, _LINE_PLIES)
            if _settled(score, done):
                break
            elapsed = self.now() - start
            spacing = searcher.nodes * _CHECK_SPACING / max(elapsed, 1e-6)
            searcher.check_mask = (1 << min(max(int(spacing).bit_length() - 1, 3), 7)) - 1
        elapsed = max(self.now() - start, 1e-6)
        if line[0] != best_move:  # the unfinished depth found a better move
            line = [best_move]
        mate = f" mate={WIN - score if score > 0 else -(WIN + score)}" \
            if abs(score) > MATE_BOUND else ""
        self.on_thinking_info(f"depth={done} nodes={searcher.nodes} "
                              f"nps={searcher.nodes / elapsed:.0f} score={score}{mate} "
                              f"time={elapsed * 1000:.0f}ms "
                              f"margin={self.clock.margin * 1000:.0f}ms "
                              f"line={','.join(_token(m) for m in line)}")
        return best_move


def _token(move: int) -> str:
    return f"{move >> 1}{'rs'[move & 1]}"


def _settled(score: int, depth: int) -> bool:
    """Whether a deeper search cannot change a mate score: a win or loss
    within the plies searched to `depth` (every shorter one is found there)."""
    return abs(score) > MATE_BOUND and WIN - abs(score) <= depth + 1
