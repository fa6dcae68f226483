"""Negamax against exact solvers: the quickest win, shape-exhaustion traps, solved endgames.

Positions are move lists from the empty board (White first, moves as
(column, shape), shape 0 round and 1 square). They were found by seeded
random walks and kept where the previous negamax (which stopped deepening at
the first mate score and saw no piece counts) chose worse at 200 ms; each
test proves its own claims with the solvers of tests/solvers.py, which share
no code with the thinkers.
"""

from __future__ import annotations

import threading
import time

import pytest

from csl_game import CancellationToken, MatchConfig, ThinkerPrototype
from csl_game.engine.runners.clocks import backstop
from csl_game.model.core import FastBoard
from csl_game.thinkers._alphabeta import WIN, Weights
from csl_game.thinkers._params import TimeKeeper
from csl_game.thinkers.negamax import NegamaxThinker, _settled
from solvers import move_values, position, shortest_win, value_of_move, win_length_after

pytestmark = pytest.mark.timing

LIMIT_MS = 200
Moves = list[tuple[int, int]]


def config(rows: int, cols: int, limit_ms: int = LIMIT_MS) -> MatchConfig:
    return MatchConfig(rows, cols, 4, rows * cols // 4, -(-rows * cols // 4),
                       time_limit_ms=limit_ms)


def negamax_move(mc: MatchConfig, moves: Moves, infos: list[str] | None = None) -> int:
    """Negamax's move (``col << 1 | shape``) as a runner asks for it: a token
    with the limit on the match's CPU clock (this process's processor time,
    so a busy machine's waits do not shorten the search), and a timer that
    cancels at the cpu clock's wall-clock backstop."""
    board = mc.new_board()
    position(moves, board)
    thinker = ThinkerPrototype("negamax", "", mc).create(
        (infos if infos is not None else []).append)
    assert mc.clock == "cpu"
    ct = CancellationToken(mc.time_limit_ms / 1000, time.process_time)
    timer = threading.Timer(backstop(mc.time_limit_ms / 1000), ct.cancel)
    timer.start()
    try:
        move = thinker.think(board, ct)
    finally:
        timer.cancel()
    assert not move.is_no_move
    return move.column << 1 | int(move.shape)


def fast(mc: MatchConfig, moves: Moves) -> FastBoard:
    return position(moves, mc.new_board())


# ------------------------------------------------------------ quickest win
# The player to move wins in 5 plies, and the previous negamax played a move
# that wins only in 7: a line of forced blocks showed it that mate at depth 1
# or 2, and it stopped deepening there (at 200 ms and at 1 s alike).
QUICKEST = [
    pytest.param(6, 7, [(2, 1), (3, 1), (6, 0), (1, 0), (1, 0), (2, 1), (3, 1), (5, 0), (0, 1),
                        (0, 1), (2, 0), (1, 1), (6, 1), (4, 1), (6, 1), (6, 0), (6, 1), (1, 0),
                        (2, 1), (6, 1)], 5, 10, 7, id="6x7-a"),
    pytest.param(6, 7, [(4, 1), (5, 0), (1, 1), (4, 1), (1, 1), (5, 0), (3, 0), (2, 1), (2, 0),
                        (3, 0), (0, 0), (6, 0), (6, 0), (3, 1), (6, 1), (2, 1), (2, 0), (0, 0)],
                 5, 10, 7, id="6x7-b"),
    pytest.param(8, 9, [(2, 1), (2, 0), (7, 0), (6, 0), (7, 0), (6, 0), (8, 1), (2, 1), (2, 0),
                        (2, 1), (3, 1), (2, 0), (2, 0), (1, 0), (1, 0), (1, 1), (8, 1), (6, 1),
                        (6, 1), (0, 1), (7, 1), (7, 1)], 5, 10, 7, id="8x9-a"),
    pytest.param(8, 9, [(4, 0), (5, 1), (2, 0), (1, 1), (3, 1), (5, 0), (0, 1), (2, 0), (5, 1),
                        (0, 0), (2, 1), (6, 0), (4, 1), (5, 1), (7, 1), (6, 0), (5, 0), (2, 0),
                        (3, 1), (3, 0), (0, 1), (0, 1), (5, 0), (2, 1), (8, 0), (2, 0), (2, 0),
                        (5, 1), (7, 1), (7, 0), (7, 1), (7, 1), (5, 0), (2, 1), (8, 0), (7, 0),
                        (7, 1), (1, 0), (1, 1), (1, 0), (3, 1)], 5, 1, 7, id="8x9-b"),
]


@pytest.mark.parametrize("rows, cols, moves, quickest, slower, slower_plies", QUICKEST)
def test_the_quickest_win_is_taken(rows: int, cols: int, moves: Moves, quickest: int,
                                   slower: int, slower_plies: int) -> None:
    mc = config(rows, cols)
    pos = fast(mc, moves)
    assert shortest_win(pos, quickest) == quickest
    assert win_length_after(pos, slower, slower_plies + 1) == slower_plies > quickest
    move = negamax_move(mc, moves)
    assert win_length_after(pos, move, quickest + 1) == quickest


@pytest.mark.parametrize("score, depth, settled", [
    (WIN - 5, 3, False), (WIN - 5, 4, True), (WIN - 7, 4, False), (-(WIN - 4), 3, True),
    (-(WIN - 6), 4, False), (1234, 9, False), (WIN - 1, 1, True),
])
def test_deepening_goes_on_while_a_mate_is_beyond_the_depth(score: int, depth: int,
                                                            settled: bool) -> None:
    assert _settled(score, depth) is settled


# ------------------------------------------------------- exact endgames
# Ten moves from the end, only a square into column 5 holds the draw: every
# other move loses. A heuristic score cannot tell; a search to the end can.
ENDGAME = [(2, 1), (2, 1), (3, 1), (6, 1), (6, 0), (4, 0), (5, 1), (6, 1), (6, 0), (6, 0),
           (6, 1), (5, 1), (1, 0), (0, 0), (1, 1), (0, 0), (5, 0), (4, 0), (3, 0), (3, 1),
           (0, 1), (3, 0), (4, 1), (5, 1), (2, 0), (3, 1), (3, 0), (0, 0), (2, 1), (0, 0),
           (0, 0), (4, 0)]
ENDGAME_DRAW = 5 << 1 | 1


def test_an_endgame_is_solved_to_the_end() -> None:
    mc = config(6, 7, limit_ms=1000)
    pos = fast(mc, ENDGAME)
    remaining = pos.geometry.max_moves - pos.ply
    values = move_values(pos)
    assert remaining == 10 and values.pop(ENDGAME_DRAW) == 0
    assert len(values) >= 6 and set(values.values()) == {-1}
    infos: list[str] = []
    assert negamax_move(mc, ENDGAME, infos) == ENDGAME_DRAW
    assert f"depth={remaining} " in infos[-1] and "score=0 " in infos[-1]


# ------------------------------------------------------- shape exhaustion
# White to move has 4 round pieces for its last 6 moves. Round into column 6
# looks natural (the previous negamax chose it) but loses by force: White runs
# short of rounds, the only pieces that can fill a cell completing one of Red's
# square runs, and in some lines must drop a square that completes one itself.
# With one more round (one square fewer) the same move would hold the draw;
# round into column 5 is the only move that does.
TRAP = [(5, 1), (6, 0), (6, 1), (3, 1), (1, 1), (1, 1), (6, 1), (0, 0), (4, 0), (0, 1), (2, 0),
        (3, 0), (2, 1), (3, 0), (3, 1), (4, 1), (0, 1), (2, 1), (1, 0), (5, 0), (0, 0), (3, 1),
        (2, 0), (1, 1), (0, 1), (0, 1), (4, 1), (1, 0), (2, 0), (1, 1)]
TRAP_NATURAL, TRAP_DRAW = 6 << 1 | 0, 5 << 1 | 0


def test_a_shape_exhaustion_trap_is_avoided() -> None:
    mc = config(6, 7)
    pos = fast(mc, TRAP)
    white_moves_left = (pos.geometry.max_moves - pos.ply + 1) // 2
    assert pos.turn == 0 and pos.counts[0] < white_moves_left
    memo: dict[tuple[int, ...], int] = {}
    assert value_of_move(pos, TRAP_NATURAL, memo) == -1
    assert value_of_move(pos, TRAP_DRAW, memo) == 0
    pos.counts[0] += 1
    pos.counts[1] -= 1
    assert value_of_move(pos, TRAP_NATURAL, {}) == 0
    pos.counts[0] -= 1
    pos.counts[1] += 1
    assert negamax_move(mc, TRAP) == TRAP_DRAW


# Red to move has 4 squares for its last 8 moves. A square into column 0 spends
# one where a round does as well: it loses by force, and would win with one
# more square (one round fewer). A round there wins. Searched 3 or 4 plies
# deep, only an evaluation that weighs the opponent's shape threats against
# the pieces left to fill them tells the two apart.
SHORT_OF_SQUARES = [(0, 1), (1, 0), (3, 0), (6, 0), (1, 0), (0, 1), (6, 0), (2, 1), (5, 1),
                    (4, 0), (2, 1), (5, 1), (0, 0), (1, 1), (5, 0), (1, 0), (1, 1), (1, 1),
                    (5, 0), (5, 1), (5, 0), (4, 0), (0, 1), (4, 1), (4, 0), (4, 0), (0, 1)]
SAVES_A_SQUARE, SPENDS_A_SQUARE = 0 << 1 | 0, 0 << 1 | 1


class _CountBlind(Weights):
    shortage = 0


class CountBlindNegamax(NegamaxThinker):
    """Negamax whose evaluation ignores the shortage of pieces: the control."""

    weights = _CountBlind


@pytest.mark.parametrize("depth", [3, 4])
def test_the_evaluation_sees_a_shape_running_out(depth: int) -> None:
    mc = config(6, 7, limit_ms=60_000)
    pos = fast(mc, SHORT_OF_SQUARES)
    assert pos.turn == 1 and pos.counts[3] < (pos.geometry.max_moves - pos.ply + 1) // 2
    memo: dict[tuple[int, ...], int] = {}
    assert value_of_move(pos, SAVES_A_SQUARE, memo) == 1
    assert value_of_move(pos, SPENDS_A_SQUARE, memo) == -1
    pos.counts[3] += 1
    pos.counts[2] -= 1
    assert value_of_move(pos, SPENDS_A_SQUARE, {}) == 1
    pos.counts[3] -= 1
    pos.counts[2] += 1
    for thinker, expected in (("negamax", SAVES_A_SQUARE),
                              (CountBlindNegamax, SPENDS_A_SQUARE)):
        board = mc.new_board()
        position(SHORT_OF_SQUARES, board)
        move = ThinkerPrototype(thinker, f"depth={depth}", mc).create().think(
            board, CancellationToken())
        assert move.column << 1 | int(move.shape) == expected, thinker


# ------------------------------------------------------------ time keeping
def test_the_margin_grows_with_the_pauses_seen_and_decays(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(TimeKeeper, "_last_stall", 0.0)
    clock = TimeKeeper(200)
    assert clock.margin == pytest.approx(0.020 + 0.016)
    assert clock.budget() == pytest.approx(0.2 - clock.margin)
    clock.record(0.020, 0.005)
    assert clock.margin == pytest.approx(0.036 + 0.040 + 0.005)
    for _ in range(150):
        clock.record(0.0005, 0.0)
    assert clock.margin < 0.036 + 0.002
    clock.record(1.0, 0.0)
    assert clock.budget() == pytest.approx(0.2 / 3)
    assert TimeKeeper(200).stall == 1.0  # the next match starts from what was seen


def test_on_the_cpu_clock_the_margin_covers_a_busy_machines_cost(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """5 ms and 6 % of the limit: what the processor time itself grows by on
    a busy machine (caches emptied by other processes), which the thinker's
    own readings cannot see coming."""
    monkeypatch.setattr(TimeKeeper, "_last_stall", 0.0)
    assert TimeKeeper(50, cpu=True).budget() == pytest.approx(0.05 - 0.005 - 0.003)
    assert TimeKeeper(200, cpu=True).budget() == pytest.approx(0.2 - 0.005 - 0.012)


def test_a_fixed_margin_does_not_adapt() -> None:
    clock = TimeKeeper(500, margin_ms=40)
    clock.record(0.1, 0.1)
    assert clock.margin == 0.04 and clock.budget() == pytest.approx(0.46)
