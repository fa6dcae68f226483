"""The search thinkers (negamax, mcts): tactics, legality on odd boards, parameters.

Tactical positions are move lists from the empty board (White first, moves as
(column, shape)); each test also checks its own claim with the Board alone.
"""

from __future__ import annotations

import threading
import time

import pytest

from csl_game import (
    AbstractThinker,
    Board,
    CancellationToken,
    FutureMove,
    MatchConfig,
    PShape,
    ThinkerError,
    ThinkerPrototype,
    Winner,
)
from csl_game.engine import Match, ThreadRunner

pytestmark = pytest.mark.timing

O, S = PShape.ROUND, PShape.SQUARE
LIMIT_MS = 200


def board_after(moves: list[tuple[int, PShape]], mc: MatchConfig = MatchConfig()) -> Board:
    board = mc.new_board()
    for col, shape in moves:
        board.do_move(shape, col)
    assert board.check_winner() is Winner.NONE
    return board


def think(name: str, board: Board, mc: MatchConfig = MatchConfig(),
          limit_ms: int = LIMIT_MS, params: str = "") -> FutureMove:
    """One think() under a timer that cancels at the limit, as the runner does.

    In time means the thinker's own work, the CPU time of this thread, fits
    the limit: on a loaded machine (CI runs other jobs on its two cores) the
    wall clock also counts time the thread waited for a core, which no
    thinker controls. A thinker that sleeps or hangs still fails the wall
    clock check, a second past the limit.
    """
    config = MatchConfig(mc.rows, mc.cols, mc.win_sequence, mc.round_pieces,
                         mc.square_pieces, time_limit_ms=limit_ms)
    thinker = ThinkerPrototype(name, params, config).create()
    ct = CancellationToken()
    timer = threading.Timer(limit_ms / 1000, ct.cancel)
    timer.start()
    start, cpu = time.perf_counter(), time.thread_time()
    try:
        move = thinker.think(board.copy(), ct)
    finally:
        timer.cancel()
    assert time.thread_time() - cpu < limit_ms / 1000
    assert time.perf_counter() - start < limit_ms / 1000 + 1
    assert not move.is_no_move
    return move


def result_of(board: Board, col: int, shape: PShape) -> Winner:
    board.do_move(shape, col)
    try:
        return board.check_winner()
    finally:
        board.undo_move()


def legal_moves(board: Board) -> list[tuple[int, PShape]]:
    return [(c, s) for c in range(board.cols) if not board.is_column_full(c)
            for s in PShape if board.piece_count(board.turn, s)]


def wins_in_one(board: Board) -> bool:
    me = board.turn.winner
    return any(result_of(board, c, s) is me for c, s in legal_moves(board))


def forces_win(board: Board, move: FutureMove) -> bool:
    """Whether `move` wins at once or leaves every reply a win in one."""
    me = board.turn.winner
    board.do_move(move.shape, move.column)
    try:
        if board.check_winner() is not Winner.NONE:
            return board.check_winner() is me
        for col, shape in legal_moves(board):
            board.do_move(shape, col)
            after = board.check_winner()
            ok = after is me or (after is Winner.NONE and wins_in_one(board))
            board.undo_move()
            if not ok:
                return False
        return True
    finally:
        board.undo_move()


# White to move in each position.
WIN_IN_1 = [(0, O), (0, S), (1, O), (1, S), (2, O), (2, S)]
# Three white squares: a fourth white completes the colour run, but a square
# completes four squares first and hands Red the win. Only round wins.
SHAPE_TRAP = [(0, S), (6, S), (1, S), (6, O), (2, S), (6, S)]
# Three red squares: White must block with a round; a square completes Red's run.
BLOCK_WITH_ROUND = [(6, O), (0, S), (6, O), (1, S), (5, O), (2, S)]
# Three reds of mixed shapes: Red wins by colour at column 3 unless White blocks.
BLOCK_COLOUR = [(6, O), (0, O), (6, O), (1, S), (5, S), (2, O)]
# Two white rounds: a third one beside them makes two threats Red cannot both stop.
WIN_IN_3 = [(2, O), (6, S), (3, O), (6, S)]
# Red has no square left, so it cannot block a round threat: a third round on the
# column wins.
NO_SQUARES = MatchConfig(round_pieces=10, square_pieces=2)
WIN_IN_3_SHAPES = [(3, O), (0, S), (3, O), (6, S)]


def test_positions_are_what_they_claim() -> None:
    assert wins_in_one(board_after(WIN_IN_1))
    trap = board_after(SHAPE_TRAP)
    assert result_of(trap, 3, S) is Winner.RED and result_of(trap, 3, O) is Winner.WHITE
    block = board_after(BLOCK_WITH_ROUND)
    assert result_of(block, 3, S) is Winner.RED and not wins_in_one(block)
    colour = board_after(BLOCK_COLOUR)
    assert not wins_in_one(colour)
    colour.do_move(O, 6)
    assert result_of(colour, 3, S) is Winner.RED
    for moves, mc in ((WIN_IN_3, MatchConfig()), (WIN_IN_3_SHAPES, NO_SQUARES)):
        board = board_after(moves, mc)
        assert not wins_in_one(board)
        assert any(forces_win(board, FutureMove(c, s)) for c, s in legal_moves(board))


@pytest.mark.parametrize("name", ["negamax", "mcts"])
def test_win_in_one(name: str) -> None:
    board = board_after(WIN_IN_1)
    move = think(name, board)
    assert result_of(board, move.column, move.shape) is Winner.WHITE


@pytest.mark.parametrize("name", ["negamax", "mcts"])
def test_shape_trap_is_avoided(name: str) -> None:
    board = board_after(SHAPE_TRAP)
    assert think(name, board) == FutureMove(3, O)


@pytest.mark.parametrize("name", ["negamax", "mcts"])
def test_block_with_the_right_shape(name: str) -> None:
    assert think(name, board_after(BLOCK_WITH_ROUND)) == FutureMove(3, O)


@pytest.mark.parametrize("name", ["negamax", "mcts"])
def test_forced_block_of_a_colour_run(name: str) -> None:
    assert think(name, board_after(BLOCK_COLOUR)).column == 3


@pytest.mark.parametrize("moves, mc", [(WIN_IN_3, MatchConfig()),
                                       (WIN_IN_3_SHAPES, NO_SQUARES)],
                         ids=["double-threat", "no-squares-to-block"])
def test_negamax_wins_in_three(moves: list[tuple[int, PShape]], mc: MatchConfig) -> None:
    board = board_after(moves, mc)
    assert forces_win(board, think("negamax", board, mc))


# Red's three squares on row 1 wait for (1, 3): filling (0, 3) lets Red win there.
UNDER_THREAT = [(0, O), (1, O), (2, S), (0, S), (6, O), (1, S), (6, O), (2, S)]


@pytest.mark.parametrize("name", ["negamax", "mcts"])
def test_the_cell_under_a_threat_is_avoided(name: str) -> None:
    board = board_after(UNDER_THREAT)
    board.do_move(O, 3)
    assert wins_in_one(board)
    board.undo_move()
    move = think(name, board)
    board.do_move(move.shape, move.column)
    assert not wins_in_one(board)


ODD_BOARDS = [
    MatchConfig(1, 7, 4, 2, 2), MatchConfig(7, 1, 4, 2, 2), MatchConfig(2, 3, 3, 10, 11),
    MatchConfig(3, 9, 4, 7, 7), MatchConfig(9, 3, 4, 7, 7), MatchConfig(4, 4, 2, 4, 4),
    MatchConfig(5, 5, 1, 3, 3), MatchConfig(3, 3, 3, 1, 1), MatchConfig(6, 7, 4, 3, 18),
    MatchConfig.unknown_track(7, 8), MatchConfig.unknown_track(9, 10),
]


@pytest.mark.parametrize("mc", ODD_BOARDS, ids=lambda m: f"{m.rows}x{m.cols}w{m.win_sequence}")
def test_whole_games_are_legal_on_odd_boards(mc: MatchConfig) -> None:
    config = MatchConfig(mc.rows, mc.cols, mc.win_sequence, mc.round_pieces,
                         mc.square_pieces, time_limit_ms=1000)
    match = Match(config, ThinkerPrototype("negamax", "depth=3", config),
                  ThinkerPrototype("mcts", "seed=1 playouts=100", config), ThreadRunner)
    result = match.run(step=0.005)
    assert result.forfeit is None, result.detail
    assert result.winner is not Winner.NONE


@pytest.mark.timing
@pytest.mark.parametrize("name", ["negamax", "mcts"])
def test_big_board_moves_are_legal_and_in_time(name: str) -> None:
    mc = MatchConfig(20, 20, 10, 100, 100)
    board = board_after([(7 * i % 20, PShape(i % 4 < 2)) for i in range(40)], mc)
    for _ in range(3):
        move = think(name, board, mc, limit_ms=300)
        assert board.do_move(move.shape, move.column) >= 0


@pytest.mark.parametrize("name, params, shown", [
    ("negamax", "", "Negamax"), ("negamax", "6", "NegamaxD6"),
    ("negamax", "depth=6", "NegamaxD6"), ("negamax", "depth=4, tt=1000", "NegamaxD4TT1000"),
    ("mcts", "", "MCTS"), ("mcts", "c=1.4", "MCTSC1.4"),
    ("mcts", "playout=light seed=3", "MCTSPlightS3"),
])
def test_names_show_the_parameters(name: str, params: str, shown: str) -> None:
    from csl_game.engine import probe_all  # names are read in a worker

    assert probe_all([ThinkerPrototype(name, params)])[0].name == shown


@pytest.mark.parametrize("name, params", [
    ("negamax", "depth=x"), ("negamax", "speed=3"), ("negamax", "depth=-1"),
    ("mcts", "playout=smart"), ("mcts", "c=abc"),
])
def test_bad_parameters_fail_setup(name: str, params: str) -> None:
    with pytest.raises(ThinkerError):
        ThinkerPrototype(name, params).create()


def test_negamax_fixed_depth_reports_it() -> None:
    infos: list[str] = []
    thinker: AbstractThinker = ThinkerPrototype("negamax", "depth=3",
                                                MatchConfig(time_limit_ms=5000)).create(
        infos.append)
    thinker.think(MatchConfig().new_board(), CancellationToken())
    assert "depth=3" in infos[-1] and "nodes=" in infos[-1]


@pytest.mark.timing
@pytest.mark.parametrize("name", ["negamax", "mcts"])
def test_cancellation_returns_the_best_move_so_far_quickly(name: str) -> None:
    thinker = ThinkerPrototype(name, "", MatchConfig(time_limit_ms=60_000)).create()
    ct = CancellationToken()
    threading.Timer(0.05, ct.cancel).start()
    start = time.thread_time()
    move = thinker.think(MatchConfig().new_board(), ct)
    assert not move.is_no_move and 0 <= move.column < 7
    assert time.thread_time() - start < 0.5


def test_negamax_makes_its_tables_in_setup_not_on_its_first_move() -> None:
    """Warm-up is not the thinker's play: a side's first searched move costs
    about what its next ones do (it cost 15-20 ms against 1-2 ms when the
    tables were made on the first move)."""
    mc = MatchConfig(time_limit_ms=500)
    match = Match(mc, ThinkerPrototype("negamax", "depth=2", mc),
                  ThinkerPrototype("negamax", "depth=2", mc), ThreadRunner)
    result = match.run(step=0.002)
    for side in (0, 1):
        times = [m.elapsed for m in result.moves[side::2]]
        assert len(times) >= 4
        later = sorted(times[1:])[len(times[1:]) // 2]
        assert times[0] <= later + 0.002, (times[0], later)
