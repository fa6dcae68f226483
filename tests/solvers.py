"""Exact solvers on the model's fast core, for tests that check a thinker's play.

Independent of the thinkers' own search: plain depth-first search over
`FastBoard.legal_moves()` and `winner_after()`, with no pruning but the
game's end. Moves are coded ``col << 1 | shape``, as in the core.
"""

from __future__ import annotations

from csl_game import Board, PShape, Winner
from csl_game.model.core import FastBoard

WINS = (Winner.WHITE, Winner.RED)


def position(board_moves: list[tuple[int, int]], board: Board) -> FastBoard:
    """The fast board of `board` after these (column, shape) moves."""
    for col, shape in board_moves:
        board.do_move(PShape(shape), col)
    return board.fast_board()


def wins_within(pos: FastBoard, plies: int) -> bool:
    """Whether the player to move can force a win on one of its next moves,
    the last of them at most `plies` plies from now (1 = this move)."""
    me = WINS[pos.turn]
    for m in pos.legal_moves():
        pos.play(m >> 1, m & 1)
        result = pos.winner_after(m & 1)
        won = result is me or (result is Winner.NONE and plies >= 3
                               and every_reply_loses(pos, plies - 1))
        pos.undo(m >> 1)
        if won:
            return True
    return False


def every_reply_loses(pos: FastBoard, plies: int) -> bool:
    """Whether every move of the player to move lets the other player win
    within `plies` plies from now (the reply included)."""
    other = WINS[1 - pos.turn]
    for m in pos.legal_moves():
        pos.play(m >> 1, m & 1)
        result = pos.winner_after(m & 1)
        lost = result is other or (result is Winner.NONE and wins_within(pos, plies - 1))
        pos.undo(m >> 1)
        if not lost:
            return False
    return True


def shortest_win(pos: FastBoard, longest: int) -> int | None:
    """Plies to the quickest forced win of the player to move (odd), if one
    of at most `longest` plies exists."""
    for plies in range(1, longest + 1, 2):
        if wins_within(pos, plies):
            return plies
    return None


def win_length_after(pos: FastBoard, move: int, longest: int) -> int | None:
    """Plies to the quickest forced win that starts with `move`, counting it."""
    pos.play(move >> 1, move & 1)
    try:
        result = pos.winner_after(move & 1)
        if result is not Winner.NONE:
            return 1 if result is WINS[1 - pos.turn] else None
        for plies in range(2, longest, 2):
            if every_reply_loses(pos, plies):
                return plies + 1
        return None
    finally:
        pos.undo(move >> 1)


def value(pos: FastBoard, memo: dict[tuple[int, ...], int]) -> int:
    """The exact value of the position for the player to move: 1 win, 0 draw, -1 loss."""
    key = (pos.colors[0], pos.colors[1], pos.shapes[1], pos.turn, *pos.counts)
    known = memo.get(key)
    if known is not None:
        return known
    best = -1
    for m in pos.legal_moves():
        best = max(best, value_of_move(pos, m, memo))
        if best == 1:
            break
    memo[key] = best
    return best


def value_of_move(pos: FastBoard, move: int, memo: dict[tuple[int, ...], int]) -> int:
    """The exact value of playing `move`, for the player who plays it."""
    me = WINS[pos.turn]
    pos.play(move >> 1, move & 1)
    result = pos.winner_after(move & 1)
    if result is Winner.NONE:
        v = -value(pos, memo)
    else:
        v = 1 if result is me else 0 if result is Winner.DRAW else -1
    pos.undo(move >> 1)
    return v


def move_values(pos: FastBoard) -> dict[int, int]:
    """The exact value of every legal move, for the player to move."""
    memo: dict[tuple[int, ...], int] = {}
    return {m: value_of_move(pos, m, memo) for m in pos.legal_moves()}


def solve(board: Board, memo: dict[tuple[object, ...], tuple[int, int]] | None = None
          ) -> tuple[int, int]:
    """The exact value of `board` for the player to move, by plain minimax over
    the model's own Board (memoized by position, no pruning, no heuristics):
    (1 win, 0 draw, -1 loss; plies to the end with best play: the winner
    hastens it, the loser delays it; for a draw, the plies left to the end)."""
    memo = {} if memo is None else memo
    key = (tuple(board[r, c] for r in range(board.rows) for c in range(board.cols)),
           board.turn)
    if key in memo:
        return memo[key]
    me = WINS[int(board.turn)]
    best: tuple[int, int] | None = None
    for col, shape in board.legal_moves():
        board.do_move(shape, col)
        winner = board.check_winner()
        if winner is Winner.NONE:
            outcome, plies = solve(board, memo)
            value = (-outcome, plies + 1)
        else:
            value = (0 if winner is Winner.DRAW else 1 if winner is me else -1, 1)
        board.undo_move()
        if best is None or _better(value, best):
            best = value
    assert best is not None, "a position with no move is over"
    memo[key] = best
    return best


def _better(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether a is better than b for the player choosing: a win over a draw
    over a loss; a quicker win, a slower loss."""
    if a[0] != b[0]:
        return a[0] > b[0]
    return a[1] < b[1] if a[0] == 1 else a[1] > b[1] if a[0] == -1 else False
