"""The analyst: every legal move of a position valued, deepened one ply at a
time until stopped or solved; the analysis service (csl_game.services.analysis)
runs it in a worker process like any thinker and reads its reports.

Not a player (discovery skips private modules). After each depth it reports
one thinking-info line: ``analysis `` and a JSON object ``{"position":
moves, "depth": d,
"moves": [{"move": code, "result": r, "plies": k, "score": s,
"line": [codes]}, ...]}`` (`position`: the moves that led to the position
analysed, in move notation) best first, from the mover's side: `result` is
``"win"``, ``"loss"`` or ``"draw"`` when proven (then `plies` is the number of
plies to the end with best play: the winner hastens it, the loser delays it),
else null and `score` is the negamax search's evaluation. The best move's
`line` is up to LINE_PLIES plies long (see `best_line`); the others' are the
move and the prover's reply.

Proofs come from a plain alpha-beta search of its own, with no pruning but
alpha-beta's and no evaluation: a position beyond its depth counts as
unknown, so a value is proven when it is a forced win or loss within the
depth (an unknown line would be preferred by the side it cannot help), or
when no line reached the horizon. The evaluation of unproven moves is the
negamax searcher's.
"""

from __future__ import annotations

import json

from csl_game.model.board import Board, Winner
from csl_game.model.core import FastBoard
from csl_game.model.notation import format_history
from csl_game.thinker.api import AbstractThinker, CancellationToken, FutureMove

from ._alphabeta import Searcher, SearchStopped
from ._tactics import tables_for

__all__ = ["AnalystThinker", "WIN", "best_line", "LINE_PLIES", "prove"]

WIN = 1_000_000
_UNKNOWN = 0
_INF = WIN + 1
_TT = 1 << 16
LINE_PLIES = 8
"""The longest best line reported (a proven one ends sooner with the game)."""


class _Stop(Exception):
    pass


class _Prover:
    """Alpha-beta with exact scores: ±(WIN - plies) for forced results, 0 for a
    draw or for a line cut at the horizon (`self.cut` tells which happened)."""

    def __init__(self, ct: CancellationToken) -> None:
        self.ct = ct
        self.nodes = 0
        self.cut = False

    def value(self, pos: FastBoard, depth: int, alpha: int, beta: int, ply: int
              ) -> tuple[int, int]:
        """(score for the mover, its best move); raises _Stop when cancelled."""
        self.nodes += 1
        if self.nodes & 1023 == 0 and (self.ct.is_cancellation_requested
                                       or self.ct.time_left() <= 0):
            raise _Stop
        if depth == 0:
            self.cut = True
            return _UNKNOWN, -1
        mover = (Winner.WHITE, Winner.RED)[pos.turn]
        best, best_move = -_INF, -1
        moves = pos.legal_moves()
        middle = pos.geometry.cols - 1
        moves.sort(key=lambda m: abs(2 * (m >> 1) - middle))
        for m in moves:
            pos.play(m >> 1, m & 1)
            result = pos.winner_after(m & 1)
            if result is Winner.NONE:
                score = -self.value(pos, depth - 1, -beta, -alpha, ply + 1)[0]
            elif result is Winner.DRAW:
                score = 0
            else:
                score = WIN - ply if result is mover else -(WIN - ply)
            pos.undo(m >> 1)
            if score > best:
                best, best_move = score, m
            alpha = max(alpha, score)
            if alpha >= beta:
                break
        return best, best_move


def prove(board: Board, ct: CancellationToken, max_depth: int = 255) -> tuple[str, int] | None:
    """What the prover finds of `board`'s position, deepening a ply at a time
    until `ct` is cancelled or its time is up: ("win", k) or ("loss", k) for
    the side to move, a forced end in k plies, or ("draw", k) when no line
    goes past the end (k plies left); None while unproven."""
    pos = board.fast_board()
    remaining = pos.geometry.max_moves - pos.ply
    prover = _Prover(ct)
    for depth in range(1, min(max_depth, remaining) + 1):
        if ct.time_left() <= 0:
            return None
        prover.cut = False
        try:
            score = prover.value(pos, depth, -_INF, _INF, 0)[0]
        except _Stop:
            return None
        if abs(score) > WIN - 10_000:
            return ("win" if score > 0 else "loss"), WIN - abs(score) + 1
        if not prover.cut:
            return "draw", remaining
    return None


class AnalystThinker(AbstractThinker):
    """Values every legal move until stopped or solved; plays the best."""

    def setup(self, params: str) -> None:
        self.max_depth = int(params) if params.strip().isdigit() else 255

    def think(self, board: Board, ct: CancellationToken) -> FutureMove:
        pos = board.fast_board()
        position = format_history(board.history)
        searcher = Searcher(tables_for(pos.geometry), _TT)
        prover = _Prover(ct)
        found: dict[int, dict[str, object]] = {}
        remaining = pos.geometry.max_moves - pos.ply
        for depth in range(1, min(self.max_depth, remaining) + 1):
            try:
                for move in pos.legal_moves():
                    if found.get(move, {}).get("result") is not None:
                        continue  # proven: deeper cannot change it
                    found[move] = _value(pos, move, depth, prover, searcher, ct)
            except (_Stop, SearchStopped):
                break
            ranked = sorted(found.values(), key=_rank, reverse=True)
            stopped = False
            try:
                ranked[0]["line"] = best_line(pos, ranked[0], depth, prover, searcher, ct)
            except (_Stop, SearchStopped):
                stopped = True
            self.on_thinking_info("analysis " + json.dumps(
                {"position": position, "depth": depth, "moves": ranked}))
            if stopped or all(m["result"] is not None for m in ranked):
                break
        if not found:
            return FutureMove.NO_MOVE
        best = max(found.values(), key=_rank)["move"]
        assert isinstance(best, int)
        return FutureMove(best >> 1, best & 1)  # type: ignore[arg-type]


def _rank(entry: dict[str, object]) -> float:
    """Wins first (quicker first), then unproven by score, draws among them at 0,
    then losses (slower first)."""
    result, plies, score = entry["result"], entry["plies"], entry["score"]
    if result == "win":
        return 10 * WIN - float(plies)  # type: ignore[arg-type]
    if result == "loss":
        return -10 * WIN + float(plies)  # type: ignore[arg-type]
    return 0.0 if result == "draw" else float(score)  # type: ignore[arg-type]


def _value(pos: FastBoard, move: int, depth: int, prover: _Prover, searcher: Searcher,
           ct: CancellationToken) -> dict[str, object]:
    """One move's entry, searched `depth` plies deep (its own ply included)."""
    mover = (Winner.WHITE, Winner.RED)[pos.turn]
    child = pos.copy()
    child.play(move >> 1, move & 1)
    result = child.winner_after(move & 1)
    entry: dict[str, object] = {"move": move, "result": None, "plies": None, "score": 0,
                                "line": [move]}
    if result is not Winner.NONE:
        entry["result"] = "draw" if result is Winner.DRAW else \
            "win" if result is mover else "loss"
        entry["plies"] = 1
        return entry
    prover.cut = False
    score, reply = prover.value(child, depth - 1, -_INF, _INF, 1)
    if reply >= 0:
        entry["line"] = [move, reply]
    if abs(score) > WIN - 10_000:  # the reply's side wins (score > 0) or loses
        entry["result"] = "loss" if score > 0 else "win"
        entry["plies"] = WIN - abs(score) + 1
    elif not prover.cut:
        entry["result"], entry["plies"] = "draw", child.geometry.max_moves - child.ply + 1
    if entry["result"] is None or entry["result"] == "draw":
        searcher.start(child.copy(), float("inf"), lambda: ct.is_cancellation_requested)
        win, moves, losses = searcher.root_moves()
        if win is None and moves:
            left = child.geometry.max_moves - child.ply
            best, _ = searcher.search_root(max(1, min(depth, left)), list(moves))
            entry["score"] = -best
    return entry


def best_line(pos: FastBoard, entry: dict[str, object], depth: int, prover: _Prover,
              searcher: Searcher, ct: CancellationToken) -> list[int]:
    """The best line of up to LINE_PLIES plies that starts with the entry's move.

    A proven result's line follows the prover's best move at each step, searched
    exactly as deep as the plies left (the winner hastens the end, the loser
    delays it), so it ends with that result after exactly `plies` plies when
    that is within LINE_PLIES. Otherwise the negamax searcher's best move at
    each step, one ply shallower each time.
    """
    move = entry["move"]
    assert isinstance(move, int)
    child = pos.copy()
    line = [move]
    proven = entry["plies"] if entry["result"] is not None else None
    left = (proven if isinstance(proven, int) else depth) - 1
    sign = {"win": 1, "loss": -1}.get(str(entry["result"]), 0)
    child.play(move >> 1, move & 1)
    last = child.winner_after(move & 1)
    while last is Winner.NONE and len(line) < LINE_PLIES and (left > 0 or proven is None):
        if proven is not None:
            # The value here is known: a null window around it finds a move
            # that keeps it (none does better), far quicker than a full search.
            target = (sign if len(line) % 2 == 0 else -sign) * (WIN - (left - 1))
            m = prover.value(child, left, target - 1, target, 0)[1]
        else:
            m = _searcher_move(child, max(1, left), searcher, ct)
        line.append(m)
        child.play(m >> 1, m & 1)
        last, left = child.winner_after(m & 1), left - 1
    return line


def _searcher_move(pos: FastBoard, depth: int, searcher: Searcher,
                   ct: CancellationToken) -> int:
    """Negamax's choice in `pos` at `depth` (a win at once, a forced move, or searched)."""
    searcher.start(pos.copy(), float("inf"), lambda: ct.is_cancellation_requested)
    win, moves, losses = searcher.root_moves()
    if win is not None:
        return win
    if not moves:
        return losses[0][1]
    left = pos.geometry.max_moves - pos.ply
    return searcher.search_root(max(1, min(depth, left)), list(moves))[1]
